"""autogradviz.paddle follows Paddle 2.x (2.6, the last 2.x release, what Paddle's
documentation and current tutorials use); autogradviz.paddle.v2_0 keeps Paddle
2.0.1 (tests/test_paddle_namespace.py, tests/test_paddle_tutorial_verbatim.py).

Each printed form below is quoted from Paddle's own documentation, named where it
is used; values are checked against PyTorch.
"""

from __future__ import annotations

import numpy as np
import pytest

import autogradviz as agv
import autogradviz.paddle as paddle
import autogradviz.paddle.v2_0 as paddle20


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


# -- the version choice: .grad, the repr, dtypes, 0-d --------------------------------


def test_grad_is_a_tensor_from_2_1_on_and_numpy_gives_the_array(torch):
    """PaddlePaddle/docs, the autograd guide of 2.1 and later (docs/guides/
    01_paddle2.0_introduction/basic_concept/autograd_cn.ipynb): after z = x**2 + 4*y,
    z.backward(), it prints "Tensor x's grad is: Tensor(shape=[3], dtype=float32,
    place=CUDAPlace(0), stop_gradient=False,\\n       [2., 4., 6.])" (on a GPU; on
    the CPU the place is Place(cpu), see the next test)."""
    x = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    y = paddle.to_tensor([4.0, 5.0, 6.0], stop_gradient=False)
    z = x**2 + 4 * y
    z.backward()
    tx = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    ty = torch.tensor([4.0, 5.0, 6.0], requires_grad=True)
    (tx**2 + 4 * ty).backward(torch.ones(3))
    assert isinstance(x.grad, paddle.Tensor) and isinstance(x.grad, paddle.framework.PaddleTensor)
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy())
    np.testing.assert_allclose(y.grad.numpy(), ty.grad.numpy())
    assert f"Tensor x's grad is: {x.grad}" == (
        "Tensor x's grad is: Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=False,\n"
        "       [2., 4., 6.])"
    )
    # gradient() stays the numpy copy (Paddle 2.6 docs of Tensor.gradient: "Return type: ndarray")
    assert isinstance(x.gradient(), np.ndarray) and x.gradient().tolist() == [2.0, 4.0, 6.0]
    # the grad is the tensor the engine filled: clear_grad() zeroes what .grad shows
    x.clear_grad()
    assert x.grad.numpy().tolist() == [0.0, 0.0, 0.0]


def test_repr_says_place_cpu_and_a_number_is_0_d(torch):
    """PaddlePaddle/community, pfcc/paddle-code-reading/ZeroDim (the 0-d guide of
    Paddle 2.5): `print(paddle.to_tensor(3.14), ...)` prints "Tensor(shape=[],
    dtype=float32, place=Place(cpu), stop_gradient=True,\\n       3.14000010)", and
    `paddle.to_tensor([1, 2, 3])` prints "Tensor(shape=[3], dtype=int64,
    place=Place(cpu), stop_gradient=True,\\n       [1, 2, 3])"."""
    scalar = paddle.to_tensor(3.14)
    assert repr(scalar) == (
        "Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,\n       3.14000010)"
    )
    assert scalar.shape == [] and scalar.ndim == torch.tensor(3.14).ndim == 0
    assert repr(paddle.to_tensor([1, 2, 3])) == (
        "Tensor(shape=[3], dtype=int64, place=Place(cpu), stop_gradient=True,\n       [1, 2, 3])"
    )
    # a full reduction is 0-d, as torch's is, and so is a mean loss
    x = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]], stop_gradient=False)
    tx = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    for ours, theirs in [
        (paddle.sum(x), tx.sum()),
        (paddle.mean(x), tx.mean()),
        (x.sum(), tx.sum()),
        (paddle.max(x), tx.max()),
        (paddle.argmax(x), tx.argmax()),
    ]:
        assert tuple(ours.shape) == tuple(theirs.shape) == ()
        assert ours.item() == pytest.approx(theirs.item())
    loss = paddle.nn.functional.mse_loss(x, paddle.zeros([2, 2]))
    assert loss.shape == [] and loss.item() == pytest.approx(
        torch.nn.functional.mse_loss(tx, torch.zeros(2, 2)).item()
    )


def test_dtype_prints_paddle_float32():
    """PaddlePaddle/docs, docs/guides/beginner/tensor_cn.md: `print("Tensor dtype from
    Python floating point:", paddle.to_tensor(1.0).dtype)` prints "paddle.float32";
    Paddle 2.0 printed the enum, VarType.FP32 (kept by v2_0)."""
    assert str(paddle.to_tensor(1.0).dtype) == "paddle.float32"
    assert str(paddle.to_tensor(1).dtype) == "paddle.int64"
    assert str(paddle.to_tensor([2.0], dtype="float64").dtype) == "paddle.float64"
    assert paddle.float32 == agv.float32 and str(paddle.float32) == "paddle.float32"
    assert str(paddle20.to_tensor(1.0).dtype) == "VarType.FP32" and str(paddle20.float32) == "VarType.FP32"


def test_the_version_is_per_import_and_travels_with_the_tensor():
    """Two namespaces in one process (two notebooks' kernels are two processes, but
    two cells, or a helper module, may import differently): each tensor keeps the
    printing and shapes of the namespace that made it, and results follow their inputs."""
    new = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    old = paddle20.to_tensor([1.0, 2.0], stop_gradient=False)
    (new * new).backward()
    (old * old).backward()
    assert isinstance(new.grad, paddle.Tensor) and isinstance(old.grad, np.ndarray)
    assert old.grad.tolist() == new.grad.numpy().tolist() == [2.0, 4.0]
    assert paddle.__version__ == "2.6.0" and paddle20.__version__ == "2.0.1"
    assert "place=CPUPlace" in repr(old) and "place=Place(cpu)" in repr(new)
    # the same function of either namespace gives a result of its input's release
    assert paddle.sum(old).shape == [1] and paddle20.sum(new).shape == []
    assert paddle20.to_tensor(2.0).shape == [1] and paddle.to_tensor(2.0).shape == []
    # layers: 2.0.1 parameters from v2_0.nn, 2.x ones from nn
    assert isinstance(paddle20.nn.Linear(2, 3).weight.grad, type(None))
    lin20, lin = paddle20.nn.Linear(2, 1), paddle.nn.Linear(2, 1)
    assert isinstance(lin20, paddle20.nn.Layer) and isinstance(lin20, paddle.nn.Layer)
    lin20(paddle20.ones([1, 2])).backward()
    lin(paddle.ones([1, 2])).backward()
    assert isinstance(lin20.weight.grad, np.ndarray) and isinstance(lin.weight.grad, paddle.Tensor)
    assert repr(lin20.weight).startswith(
        "Parameter containing:\nTensor(shape=[2, 1], dtype=float32, place=CPUPlace"
    )
    assert repr(lin.weight).startswith(
        "Parameter containing:\nTensor(shape=[2, 1], dtype=float32, place=Place(cpu)"
    )
    # plain autogradviz code keeps PyTorch's rules
    w = agv.tensor([1.0, 2.0], requires_grad=True)
    (w * w).sum().backward()
    assert repr(w.grad) == "tensor([2., 4.])"


# -- paddle.grad(..., grad_outputs=[None, g]) -----------------------------------------


def test_grad_outputs_with_a_none_entry_starts_that_output_from_ones(torch):
    """Paddle 2.x docs of paddle.grad: "grad_outputs ... If an item of grad_outputs
    is None, the initial gradient of that output is a Tensor of ones of its shape"
    (python/paddle/fluid/dygraph/base.py, grad). Before: AttributeError, autogradviz.ops
    has no ones_like."""
    x = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    y1, y2 = x * x, x * 3
    g = paddle.to_tensor([1.0, 0.5, 2.0])
    (dx,) = paddle.grad([y1, y2], [x], grad_outputs=[None, g])
    tx = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (tdx,) = torch.autograd.grad([tx * tx, tx * 3], [tx], [torch.ones(3), torch.tensor([1.0, 0.5, 2.0])])
    np.testing.assert_allclose(dx.numpy(), tdx.numpy())
    assert isinstance(dx, paddle.framework.PaddleTensor) and x.grad is None
    # in v2_0 too, and the result is of that release
    x0 = paddle20.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    (dx0,) = paddle20.grad([x0 * x0, x0 * 3], [x0], grad_outputs=[None, paddle20.to_tensor([1.0, 0.5, 2.0])])
    np.testing.assert_allclose(dx0.numpy(), tdx.numpy())
    assert "place=CPUPlace" in repr(dx0)


# -- the creation and math functions tutorials call ---------------------------------


def test_normal_uniform_linspace_with_paddles_signatures_and_float32(torch):
    """Paddle 2.6 API docs (paddlepaddle.org.cn/documentation/docs/en/2.6/api/paddle/):
    normal(mean=0.0, std=1.0, shape=None), uniform(shape, dtype=None, min=-1.0,
    max=1.0, seed=0), linspace(start, stop, num, dtype=None): float32 by default."""
    paddle.seed(0)
    n = paddle.normal(shape=[2000])
    assert n.dtype == agv.float32 and n.shape == [2000]
    assert abs(float(n.numpy().mean())) < 0.1 and abs(float(n.numpy().std()) - 1) < 0.1
    m = paddle.normal(mean=paddle.to_tensor([0.0, 100.0]), std=paddle.to_tensor([1e-6, 1e-6]))
    np.testing.assert_allclose(m.numpy(), [0.0, 100.0], atol=1e-3)
    u = paddle.uniform([4000])
    assert u.dtype == agv.float32 and -1 <= u.numpy().min() and u.numpy().max() < 1 and u.numpy().min() < -0.9
    u2 = paddle.uniform([3], dtype="float64", min=2.0, max=3.0, seed=7)
    assert u2.dtype == agv.float64 and ((2 <= u2.numpy()) & (u2.numpy() < 3)).all()
    assert (
        u2.numpy().tolist() == paddle.uniform([3], dtype="float64", min=2.0, max=3.0, seed=7).numpy().tolist()
    )
    with pytest.raises(ValueError, match=r"paddle.uniform: min \(1\) must be less than max \(0\)"):
        paddle.uniform([2], min=1, max=0)
    lin = paddle.linspace(0, 1, 5)
    assert lin.dtype == agv.float32 and lin.stop_gradient is True
    np.testing.assert_allclose(lin.numpy(), torch.linspace(0, 1, 5).numpy())


def test_dot_mm_meshgrid_sinh_cosh_against_torch(torch):
    """Paddle 2.6 API docs: dot of 1-d tensors is 0-d, of 2-d [N, M] tensors one
    inner product per row, shape [N]; meshgrid returns a list, 'ij' indexing."""
    a, b = [1.0, 2.0, 3.0], [4.0, -5.0, 6.0]
    x, y = paddle.to_tensor(a, stop_gradient=False), paddle.to_tensor(b, stop_gradient=False)
    tx, ty = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    d = paddle.dot(x, y)
    td = torch.dot(tx, ty)
    assert d.shape == [] and d.item() == td.item()
    d.backward()
    td.backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy())
    assert paddle20.dot(paddle20.to_tensor(a), paddle20.to_tensor(b)).shape == [1]
    rows = paddle.dot(paddle.to_tensor([a, b]), paddle.to_tensor([b, a]))
    np.testing.assert_allclose(rows.numpy(), (torch.tensor([a, b]) * torch.tensor([b, a])).sum(-1).numpy())
    m1, m2 = np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(3, 4)
    np.testing.assert_allclose(
        paddle.mm(paddle.to_tensor(m1), paddle.to_tensor(m2)).numpy(),
        torch.mm(torch.tensor(m1), torch.tensor(m2)).numpy(),
    )
    gx, gy = paddle.meshgrid(paddle.to_tensor([1, 2, 3]), paddle.to_tensor([4, 5]))
    tgx, tgy = torch.meshgrid(torch.tensor([1, 2, 3]), torch.tensor([4, 5]), indexing="ij")
    assert gx.numpy().tolist() == tgx.tolist() and gy.numpy().tolist() == tgy.tolist()
    assert [t.shape for t in paddle.meshgrid([paddle.to_tensor([1, 2, 3]), paddle.to_tensor([4, 5])])] == [
        [3, 2]
    ] * 2
    v = paddle.to_tensor([-1.0, 0.5, 2.0], stop_gradient=False)
    tv = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
    (paddle.sinh(v) + paddle.cosh(v)).sum().backward()
    (torch.sinh(tv) + torch.cosh(tv)).sum().backward()
    np.testing.assert_allclose(v.grad.numpy(), tv.grad.numpy(), rtol=1e-6)


def test_maximum_values_as_torch_and_a_tie_gives_y_the_gradient(torch):
    """Values and off-tie gradients as torch.maximum. At a tie Paddle gives the whole
    gradient to y (paddle/phi/kernels/funcs/elementwise_functor.h: MaxGradDx = dout *
    (x > y), MaxGradDy = dout * (x <= y)); PyTorch splits it, 0.5 each."""
    a, b = [[1.0, 5.0, 2.0]], [[3.0], [2.0]]
    x, y = paddle.to_tensor(a, stop_gradient=False), paddle.to_tensor(b, stop_gradient=False)
    tx, ty = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    out, tout = paddle.maximum(x, y), torch.maximum(tx, ty)
    np.testing.assert_allclose(out.numpy(), tout.detach().numpy())
    x2, y2 = (
        paddle.to_tensor([[1.0, 5.0, 2.5]], stop_gradient=False),
        paddle.to_tensor(b, stop_gradient=False),
    )
    tx2, ty2 = torch.tensor([[1.0, 5.0, 2.5]], requires_grad=True), torch.tensor(b, requires_grad=True)
    paddle.maximum(x2, y2).sum().backward()
    torch.maximum(tx2, ty2).sum().backward()  # no ties here: the same gradients
    np.testing.assert_allclose(x2.grad.numpy(), tx2.grad.numpy())
    np.testing.assert_allclose(y2.grad.numpy(), ty2.grad.numpy())
    p, q = paddle.to_tensor([2.0], stop_gradient=False), paddle.to_tensor([2.0], stop_gradient=False)
    paddle.maximum(p, q).backward()
    assert p.grad.numpy().tolist() == [0.0] and q.grad.numpy().tolist() == [1.0]


# -- nn.Layer and paddle.io -----------------------------------------------------------


def test_layer_methods_tutorials_use(torch):
    """Paddle 2.6 API docs of paddle.nn.Layer: add_sublayer returns the sublayer,
    named_sublayers leaves out the layer itself unless include_self=True,
    create_parameter makes a parameter (stop_gradient False), set_state_dict loads."""

    class Net(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = self.add_sublayer("fc", paddle.nn.Linear(2, 3))
            self.w = self.create_parameter([3, 1])
            self.add_parameter("b", self.create_parameter([1], is_bias=True))

        def forward(self, x):
            return paddle.matmul(self.fc(x), self.w) + self.b

    net = Net()
    assert isinstance(net.fc, paddle.nn.Linear) and net.w.stop_gradient is False
    assert [n for n, _ in net.named_sublayers()] == ["fc"]
    assert [n for n, _ in net.named_sublayers(include_self=True)] == ["", "fc"]
    assert net.sublayers() == [net.fc]
    assert sorted(n for n, _ in net.named_parameters()) == ["b", "fc.bias", "fc.weight", "w"]
    assert len(net.parameters()) == 4
    other = Net()
    other.set_state_dict(net.state_dict())
    x = paddle.to_tensor([[1.0, 2.0]])
    np.testing.assert_allclose(other(x).numpy(), net(x).numpy())
    # the same net in torch: Paddle's Linear weight is [in, out], torch's [out, in]
    tw = {k: torch.tensor(v.numpy()) for k, v in net.state_dict().items()}
    tx = torch.tensor([[1.0, 2.0]])
    np.testing.assert_allclose(
        net(x).numpy(), ((tx @ tw["fc.weight"] + tw["fc.bias"]) @ tw["w"] + tw["b"]).numpy(), rtol=1e-6
    )


def test_dataloader_is_callable_as_paddle_code_writes_it():
    """python/paddle/io/reader.py: DataLoader.__call__ returns self.__iter__(), so
    `for X, y in train_iter():` works (d2l's Paddle edition writes it so)."""
    features = paddle.to_tensor(np.arange(10.0, dtype=np.float32).reshape(5, 2))
    labels = paddle.to_tensor(np.arange(5))
    train_iter = paddle.io.DataLoader(paddle.io.TensorDataset([features, labels]), batch_size=2)
    batches = [(X.numpy().tolist(), y.numpy().tolist()) for X, y in train_iter()]
    assert batches == [
        (list(map(list, b[0])), b[1])
        for b in [([[0, 1], [2, 3]], [0, 1]), ([[4, 5], [6, 7]], [2, 3]), ([[8, 9]], [4])]
    ]
    assert batches == [(X.numpy().tolist(), y.numpy().tolist()) for X, y in train_iter]
    X, _ = next(iter(train_iter()))
    assert "place=Place(cpu)" in repr(X)
    X0, _ = next(paddle20.io.DataLoader(paddle20.io.TensorDataset([features, labels]), batch_size=2)())
    assert "place=CPUPlace" in repr(X0)
