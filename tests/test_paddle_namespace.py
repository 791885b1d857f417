"""autogradviz.paddle.v2_0: Paddle 2.0.1's dynamic graph on autogradviz's engine (the 2.x default: test_paddle_2x.py).

Values and gradients are checked against PyTorch (the same math: Paddle's
non-scalar backward is PyTorch's backward with a gradient of ones, and
Paddle's kept intermediate gradients are PyTorch's retain_grad()). Printed
reprs are checked against outputs printed in Paddle 2.0's own documentation
(PaddlePaddle/docs, branch release/2.0), quoted where they are used.
Plain autogradviz code in the same process must keep PyTorch's rules.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import autogradviz as agv
import autogradviz.paddle.v2_0 as paddle
import autogradviz.paddle.v2_0.nn.functional as F
from autogradviz.paddle.v2_0.vision.models import vgg11


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


# -- making tensors ------------------------------------------------------------------


def test_to_tensor_defaults_and_shape_1_for_a_number():
    a = paddle.to_tensor([1.0, 2.0, 3.0])
    assert a.stop_gradient is True and a.dtype == agv.float32
    s = paddle.to_tensor(2.0)
    assert s.shape == (1,)  # Paddle 2.0 has no 0-d tensors
    i = paddle.to_tensor(2)
    assert i.shape == (1,) and i.dtype == agv.int64
    d = paddle.to_tensor([2.0, 3.0, 4.0], dtype="float64")
    assert d.dtype == agv.float64
    assert paddle.to_tensor([1.0], dtype=paddle.float64).dtype == agv.float64
    assert paddle.to_tensor(np.ones(3, np.float64)).dtype == agv.float64  # an array keeps its dtype
    with pytest.raises(RuntimeError, match="CPU only"):
        paddle.to_tensor([1.0], place="gpu:0")


def test_creation_functions_take_paddle_shapes():
    paddle.seed(3)
    r = paddle.rand([2, 3])
    assert r.shape == (2, 3) and r.stop_gradient and 0 <= r.numpy().min() and r.numpy().max() < 1
    paddle.seed(3)
    assert np.array_equal(paddle.rand((2, 3)).numpy(), r.numpy())  # seeded: the same numbers
    assert paddle.randn([4]).shape == (4,)
    label = paddle.randint(0, 1000)
    assert label.shape == (1,) and label.dtype == agv.int64
    assert paddle.randint(5, shape=[3]).numpy().max() < 5
    assert paddle.zeros([2]).dtype == agv.float32 and paddle.ones([2, 1]).shape == (2, 1)
    full = paddle.full([2], 3)
    assert full.dtype == agv.float32 and full.tolist() == [3.0, 3.0]  # float32 even for an int
    assert paddle.full([1], 3, dtype="int64").dtype == agv.int64
    with pytest.raises(TypeError, match="paddle.zeros: shape must be a list"):
        paddle.zeros("2")
    with pytest.raises(ValueError, match="high"):
        paddle.randint(3, 3)


# -- Paddle's repr ---------------------------------------------------------------------


def test_repr_as_paddle_2_0_prints():
    # tensor_introduction_cn.md (with CPUPlace, as on a machine without a GPU)
    t = paddle.to_tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert repr(t) == (
        "Tensor(shape=[2, 3], dtype=float32, place=CPUPlace, stop_gradient=True,\n"
        "       [[1., 2., 3.],\n"
        "        [4., 5., 6.]])"
    )
    # tensor_introduction_cn.md: paddle.to_tensor(1, place=paddle.CPUPlace())
    assert str(paddle.to_tensor(1)) == (
        "Tensor(shape=[1], dtype=int64, place=CPUPlace, stop_gradient=True,\n       [1])"
    )
    # api/paddle/tensor/math/pow_cn.rst: paddle.pow(x, 2.5), x = [1, 2, 3] float32
    x = paddle.to_tensor([1, 2, 3], dtype="float32")
    assert str(paddle.pow(x, 2.5)) == (
        "Tensor(shape=[3], dtype=float32, place=CPUPlace, stop_gradient=True,\n"
        "       [1.         , 5.65685415 , 15.58845711])"
    )
    # api_cn/tensor_cn/erf_cn.rst: negative numbers get the sign's column
    erf = paddle.to_tensor([-0.42839241, -0.22270259, 0.11246292, 0.32862678])
    assert str(erf).endswith("\n       [-0.42839241, -0.22270259,  0.11246292,  0.32862678])")


def test_repr_of_grad_results_and_parameters():
    x = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    y = x * 2
    assert repr(y) == (
        "Tensor(shape=[3], dtype=float32, place=CPUPlace, stop_gradient=False,\n       [2., 4., 6.])"
    )
    layer = paddle.nn.Linear(2, 1)
    text = repr(layer.bias)
    assert text.startswith(
        "Parameter containing:\nTensor(shape=[1], dtype=float32, place=CPUPlace, stop_gradient=False,"
    )
    assert "0x" not in repr(paddle.rand([3, 3]))  # deterministic: no memory address


def test_repr_summarises_more_than_1000_numbers():
    text = repr(paddle.arange(2000))
    assert text.splitlines()[1] == "       [0   , 1   , 2   , ..., 1997, 1998, 1999])"


# -- autograd semantics, against PyTorch -------------------------------------------------


def test_non_scalar_backward_seeds_ones_like_torch(torch):
    xs, ys = [0.5, -1.0, 2.0], [1.5, 0.25, -3.0]
    x = paddle.to_tensor(xs, stop_gradient=False)
    y = paddle.to_tensor(ys, stop_gradient=False)
    z = paddle.sin(x) * y + x**3
    z.backward()
    tx = torch.tensor(xs, requires_grad=True)
    ty = torch.tensor(ys, requires_grad=True)
    tz = torch.sin(tx) * ty + tx**3
    tz.backward(torch.ones_like(tz))
    assert isinstance(x.grad, np.ndarray)
    np.testing.assert_allclose(x.grad, tx.grad.numpy(), rtol=1e-6)
    np.testing.assert_allclose(y.grad, ty.grad.numpy(), rtol=1e-6)
    np.testing.assert_allclose(z.grad, np.ones(3))  # the output keeps its own gradient, the seed


def test_intermediate_grads_are_kept_as_torch_retain_grad_gives(torch):
    a = paddle.to_tensor([2.0, -1.0], stop_gradient=False)
    h = a * 3
    r = agv.relu(h)
    loss = paddle.sum(r * r)
    loss.backward()
    ta = torch.tensor([2.0, -1.0], requires_grad=True)
    th = ta * 3
    tr = torch.relu(th)
    th.retain_grad()
    tr.retain_grad()
    (tr * tr).sum().backward()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "non-leaf .grad" warning: Paddle keeps them
        np.testing.assert_allclose(h.grad, th.grad.numpy())
        np.testing.assert_allclose(r.grad, tr.grad.numpy())
    np.testing.assert_allclose(a.grad, ta.grad.numpy())
    assert loss.shape == (1,) and loss.gradient().tolist() == [1.0]


def test_grad_is_a_numpy_copy_and_none_when_stopped():
    a = paddle.to_tensor([2.0], stop_gradient=False)
    b = paddle.to_tensor([5.0])
    c = a * b
    c.backward()
    g = a.grad
    g[0] = 100.0  # a copy, as Paddle 2.0's gradient() is
    assert a.grad.tolist() == [5.0] and a.gradient().tolist() == [5.0]
    assert b.grad is None and b.gradient() is None
    assert c.numpy().tolist() == [10.0]  # numpy() works on a tensor that needs a gradient too


def test_gradients_accumulate_and_clear_grad_zeroes(torch):
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    y = x * x
    y.backward(retain_graph=True)
    y.backward()
    tx = torch.tensor([1.0, 2.0], requires_grad=True)
    ty = tx * tx
    ty.backward(torch.ones(2), retain_graph=True)
    ty.backward(torch.ones(2))
    np.testing.assert_allclose(x.grad, tx.grad.numpy())
    x.clear_grad()
    assert x.grad.tolist() == [0.0, 0.0]


def test_retain_graph_false_frees_the_graph():
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    y = x * x
    y.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()
    assert x.grad.tolist() == [2.0, 4.0]  # the failed call changed nothing


def test_sum_and_mean_give_shape_1_with_torch_gradients(torch):
    data = [[1.0, -2.0], [3.0, 0.5]]
    x = paddle.to_tensor(data, stop_gradient=False)
    s = paddle.sum(x * x)
    m = paddle.mean(x)
    assert s.shape == (1,) and m.shape == (1,)
    (s + m).backward()
    tx = torch.tensor(data, requires_grad=True)
    ((tx * tx).sum() + tx.mean()).backward()
    np.testing.assert_allclose(x.grad, tx.grad.numpy(), rtol=1e-6)
    assert paddle.sum(x, axis=1).shape == (2,)
    assert paddle.mean(x, axis=[0, 1], keepdim=True).shape == (1, 1)
    assert paddle.max(x).shape == (1,) and paddle.max(x, axis=0).tolist() == [3.0, 0.5]


def test_paddle_grad_returns_a_list_and_seeds_ones(torch):
    x = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    y = x * x * x
    (gx,) = paddle.grad(y, x)
    tx = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (tgx,) = torch.autograd.grad(tx**3, tx, torch.ones(3))
    assert isinstance(paddle.grad(x * 2, [x]), list)
    np.testing.assert_allclose(gx.numpy(), tgx.numpy())
    assert str(gx).startswith("Tensor(shape=[3]")
    assert x.grad is None  # paddle.grad leaves .grad alone


def test_matmul_reshape_and_math_functions(torch):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.arange(12, dtype=np.float32).reshape(4, 3)
    out = paddle.matmul(paddle.to_tensor(a), paddle.to_tensor(b), transpose_y=True)
    np.testing.assert_allclose(out.numpy(), (torch.tensor(a) @ torch.tensor(b).T).numpy())
    assert paddle.reshape(paddle.to_tensor(b), [0, -1, 1]).shape == (4, 3, 1)  # 0 keeps that dim
    assert paddle.transpose(paddle.to_tensor(b), [1, 0]).shape == (3, 4)
    assert paddle.concat([paddle.ones([1, 2]), paddle.zeros([2, 2])], axis=0).shape == (3, 2)


def test_no_grad_results_stay_paddle_tensors():
    x = paddle.to_tensor([1.0], stop_gradient=False)
    with paddle.no_grad():
        y = x * 2
    assert y.stop_gradient is True and repr(y).startswith("Tensor(shape=[1]")
    k = paddle.to_tensor([1, 2]) + 1  # an integer result is one too
    assert repr(k).startswith("Tensor(shape=[2], dtype=int64")


def test_plain_autogradviz_keeps_pytorch_rules_in_the_same_process():
    paddle.to_tensor([1.0], stop_gradient=False)  # Paddle is in use in this process
    w = agv.tensor([1.0, 2.0], requires_grad=True)
    y = w * 3
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        y.backward()
    y.sum().backward()
    assert isinstance(w.grad, agv.Tensor) and repr(w.grad) == "tensor([3., 3.])"
    assert repr(y) == "tensor([3., 6.], grad_fn=<MulBackward0>)"
    with pytest.warns(UserWarning, match="not a leaf Tensor"):
        assert y.grad is None
    with pytest.raises(RuntimeError, match="Can't call numpy"):
        w.numpy()


# -- nn, F, optimizer ------------------------------------------------------------------------


@pytest.mark.parametrize("label_shape", ["N", "N1"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_against_torch(torch, label_shape, reduction):
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(4, 5)).astype(np.float32)
    labels = np.array([0, 3, 4, 1])
    weight = np.array([1.0, 2.0, 0.5, 1.0, 3.0], np.float32)
    x = paddle.to_tensor(logits, stop_gradient=False)
    label = paddle.to_tensor(labels if label_shape == "N" else labels[:, None])
    loss = F.cross_entropy(x, label, weight=paddle.to_tensor(weight), reduction=reduction)
    tx = torch.tensor(logits, requires_grad=True)
    tloss = torch.nn.functional.cross_entropy(
        tx, torch.tensor(labels), weight=torch.tensor(weight), reduction=reduction
    )
    expected_shape = (4,) if reduction == "none" else (1,)
    assert loss.shape == expected_shape
    np.testing.assert_allclose(loss.numpy().reshape(-1), tloss.detach().numpy().reshape(-1), rtol=1e-5)
    loss.backward()
    tloss.backward(torch.ones_like(tloss))
    np.testing.assert_allclose(x.grad, tx.grad.numpy(), rtol=1e-5, atol=1e-7)


def test_cross_entropy_soft_label_no_softmax_and_errors(torch):
    rng = np.random.default_rng(1)
    logits = rng.normal(size=(3, 4)).astype(np.float32)
    probs = rng.dirichlet(np.ones(4), size=3).astype(np.float32)
    loss = F.cross_entropy(paddle.to_tensor(logits), paddle.to_tensor(probs), soft_label=True)
    expected = torch.nn.functional.cross_entropy(torch.tensor(logits), torch.tensor(probs))
    np.testing.assert_allclose(loss.numpy(), [expected.item()], rtol=1e-5)
    p = torch.softmax(torch.tensor(logits), 1)
    no_softmax = F.cross_entropy(paddle.to_tensor(p.numpy()), paddle.to_tensor([1, 0, 3]), use_softmax=False)
    expected = torch.nn.functional.nll_loss(torch.log(p), torch.tensor([1, 0, 3]))
    np.testing.assert_allclose(no_softmax.numpy(), [expected.item()], rtol=1e-5)
    with pytest.raises(
        ValueError, match="The value of 'reduction' in cross_entropy should be 'sum', 'mean' or 'none'"
    ):
        F.cross_entropy(paddle.to_tensor(logits), paddle.to_tensor([0, 1, 2]), reduction="avg")
    with pytest.raises(ValueError, match=r"needs a label of shape \[3, 1\] or \[3\], got \[2\]"):
        F.cross_entropy(paddle.to_tensor(logits), paddle.to_tensor([0, 1]))
    with pytest.raises(TypeError, match="int64 class indices"):
        F.cross_entropy(paddle.to_tensor(logits), paddle.to_tensor([0.0, 1.0, 2.0]))


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 2)

    def forward(self, x):
        return self.fc(x)


def test_layers_have_paddle_parameters():
    net = Net()
    params = list(net.parameters())
    assert len(params) == 2 and all(p.stop_gradient is False for p in params)
    loss = paddle.mean(net(paddle.rand([4, 3])))
    loss.backward()
    assert all(isinstance(p.grad, np.ndarray) and p.grad.shape == tuple(p.shape) for p in params)
    # Paddle's Linear: weight [in_features, out_features], Xavier-uniform; bias zeros; x @ W + b
    w, b = net.fc.weight, net.fc.bias
    assert w.shape == (3, 2) and b.tolist() == [0.0, 0.0]
    assert np.abs(w.numpy()).max() <= np.sqrt(6 / 5)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(net(paddle.to_tensor(x)).numpy(), x @ w.numpy() + b.numpy(), rtol=1e-6)
    assert repr(net.fc) == "Linear(in_features=3, out_features=2, dtype=float32)"
    model = vgg11(num_classes=10)
    assert all(p.stop_gradient is False for p in model.parameters())
    with pytest.raises(NotImplementedError, match="downloads nothing"):
        vgg11(pretrained=True)


@pytest.mark.parametrize("name", ["SGD", "Momentum", "Adam", "AdamW"])
def test_optimizers_step_as_torch_does(torch, name):
    start = np.array([[0.5, -1.0], [2.0, 0.25]], np.float32)
    grads = [
        np.array([[0.1, -0.2], [0.3, 0.05]], np.float32),
        np.array([[-0.4, 0.1], [0.2, 0.2]], np.float32),
    ]
    layer = paddle.nn.Linear(2, 2)
    w = layer.weight
    w.set_value(start)
    ours = getattr(paddle.optimizer, name)(learning_rate=0.1, parameters=[w])
    tw = torch.tensor(start, requires_grad=True)
    theirs = {
        "SGD": lambda: torch.optim.SGD([tw], lr=0.1),
        "Momentum": lambda: torch.optim.SGD([tw], lr=0.1, momentum=0.9),
        "Adam": lambda: torch.optim.Adam([tw], lr=0.1),
        "AdamW": lambda: torch.optim.AdamW([tw], lr=0.1, weight_decay=0.01),
    }[name]()
    for g in grads:
        (paddle.sum(w * paddle.to_tensor(g))).backward()
        (tw * torch.tensor(g)).sum().backward()
        ours.step()
        theirs.step()
        ours.clear_grad()
        theirs.zero_grad()
        assert w.grad.tolist() == [[0.0, 0.0], [0.0, 0.0]]  # Paddle's clear_grad: zeros
    np.testing.assert_allclose(w.numpy(), tw.detach().numpy(), rtol=1e-6)
    with pytest.raises(AttributeError, match="should not be None in dygraph mode"):
        getattr(paddle.optimizer, name)(learning_rate=0.1)


def test_io_dataloader_batches():
    x = paddle.to_tensor(np.arange(10, dtype=np.float32).reshape(5, 2))
    y = paddle.to_tensor(np.arange(5))
    loader = paddle.io.DataLoader(paddle.io.TensorDataset([x, y]), batch_size=2, drop_last=True)
    batches = list(loader)
    assert len(batches) == 2
    assert batches[0][0].tolist() == [[0.0, 1.0], [2.0, 3.0]] and batches[1][1].tolist() == [2, 3]

    class Squares(paddle.io.Dataset):
        def __getitem__(self, i):
            return np.array([i * i], np.float32)

        def __len__(self):
            return 3

    (only,) = list(paddle.io.DataLoader(Squares(), batch_size=3))
    assert only[0].tolist() == [[0.0], [1.0], [4.0]]
    assert repr(only[0]).startswith("Tensor(shape=[3, 1], dtype=float32")  # a Paddle tensor


# -- drawings and the stepper work on Paddle tensors -------------------------------------------


def paddle_example_2():
    a = paddle.to_tensor(2.0, stop_gradient=False)
    b = paddle.to_tensor(5.0, stop_gradient=False)
    c = a * b
    d = paddle.to_tensor(4.0, stop_gradient=False)
    e = c * d
    return {"a": a, "b": b, "c": c, "d": d, "e": e}


def test_draw_shows_paddle_graph():
    g = paddle_example_2()
    g["e"].backward()
    forward = agv.draw(g["e"], names=g).source
    for name, data, grad in [("a", 2, 20), ("b", 5, 8), ("c", 10, 4), ("d", 4, 10), ("e", 40, 1)]:
        # Paddle's kept gradients are drawn too: c's [4.] and e's [1.]
        assert f"<B>{name}</B>" in forward and f"data [{data}.]" in forward and f"grad [{grad}.]" in forward
    backward = agv.draw(g["e"], names=g, kind="backward").source
    assert backward.count("<B>MulBackward0</B>") == 2 and backward.count("<B>AccumulateGrad</B>") == 3


def test_stepper_replays_paddle_backward():
    g = paddle_example_2()
    stepper = agv.BackwardStepper(g["e"], names=g)
    assert [step.name for step in stepper.steps] == [
        "MulBackward0",
        "AccumulateGrad",
        "MulBackward0",
        "AccumulateGrad",
        "AccumulateGrad",
    ]
    mul_e = stepper.steps[0]
    assert [float(np.asarray(x.value).item()) for x in mul_e.sent] == [4.0, 10.0]
    assert g["a"].grad is None  # the stepper's replay writes nothing


def test_layers_with_paddle_arguments(torch):
    x = np.random.default_rng(2).normal(size=(2, 3, 4)).astype(np.float32)
    soft = paddle.nn.Softmax()(paddle.to_tensor(x))  # Paddle's default axis=-1, no warning
    np.testing.assert_allclose(soft.numpy(), torch.softmax(torch.tensor(x), -1).numpy(), rtol=1e-6)
    logsoft = paddle.nn.LogSoftmax(axis=1)(paddle.to_tensor(x))
    np.testing.assert_allclose(logsoft.numpy(), torch.log_softmax(torch.tensor(x), 1).numpy(), rtol=1e-5)
    assert paddle.nn.Flatten()(paddle.to_tensor(x)).shape == (2, 12)

    class Custom(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.w = self.create_parameter([3, 4])
            self.b = self.create_parameter([4], is_bias=True)

        def forward(self, x):
            return paddle.matmul(x, self.w) + self.b

    net = Custom()
    assert [name for name, _ in net.named_parameters()] == ["w", "b"]
    assert net.b.tolist() == [0.0] * 4 and net.w.stop_gradient is False
    paddle.sum(net(paddle.ones([2, 3]))).backward()
    assert net.w.grad.tolist() == [[2.0] * 4] * 3 and net.b.grad.tolist() == [2.0] * 4


def test_save_and_load_a_state_dict(tmp_path):
    net = Net()
    path = tmp_path / "model.pdparams"
    paddle.save(net.state_dict(), str(path))
    state = paddle.load(str(path))
    assert sorted(state) == ["fc.bias", "fc.weight"]
    assert repr(state["fc.bias"]).startswith("Tensor(shape=[2], dtype=float32")  # Paddle tensors again
    other = Net()
    other.set_state_dict(state)
    np.testing.assert_array_equal(other.fc.weight.numpy(), net.fc.weight.numpy())
    assert other.fc.weight.stop_gradient is False


def test_tensor_methods_with_paddle_semantics(torch):
    x = paddle.to_tensor([[1.0, -2.0], [3.0, 4.0]], stop_gradient=False)
    s = x.sum()
    assert s.shape == (1,) and x.mean().shape == (1,) and x.max().tolist() == [4.0]
    assert x.sum(axis=1).shape == (2,) and x.argmax().tolist() == [3]
    (s * 2).backward()
    assert x.grad.tolist() == [[2.0, 2.0], [2.0, 2.0]]
    plain = agv.tensor([[1.0, -2.0], [3.0, 4.0]])
    assert plain.sum().shape == () and plain.mean().shape == ()  # plain tensors: PyTorch's 0-d
    assert torch.tensor([[1.0, -2.0], [3.0, 4.0]]).sum().shape == plain.sum().shape
    assert x.astype("float64").dtype == agv.float64 and x.cast(paddle.int64).tolist() == [[1, -2], [3, 4]]

    w = paddle.nn.Linear(2, 2).weight
    w.set_value(np.ones((2, 2), np.float32))
    assert w.numpy().tolist() == [[1.0, 1.0], [1.0, 1.0]] and w.stop_gradient is False
    with pytest.raises(ValueError, match=r"set_value: the shape of the new value \[3\] must be the same"):
        w.set_value(np.ones(3))
    assert w.numpy().tolist() == [[1.0, 1.0], [1.0, 1.0]]  # the failed call changed nothing


def test_stop_gradient_on_a_computed_tensor_cuts_the_graph(torch):
    x = paddle.to_tensor([1.0, 3.0], stop_gradient=False)
    y = x * 2
    y.stop_gradient = True  # Paddle: no gradient flows back through y
    assert y.stop_gradient is True and y.grad_fn is None
    z = y * x
    z.backward()
    tx = torch.tensor([1.0, 3.0], requires_grad=True)
    ty = (tx * 2).detach()
    (ty * tx).backward(torch.ones(2))
    np.testing.assert_allclose(x.grad, tx.grad.numpy())
    plain = agv.tensor([1.0], requires_grad=True) * 2
    with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf variables"):
        plain.stop_gradient = True  # plain tensors keep PyTorch's rule


def test_shape_prints_as_paddle_list():
    # tensor_introduction_cn.md: print("Shape of tensor:", ndim_4_tensor.shape)
    ndim_4_tensor = paddle.ones([2, 3, 4, 5])
    assert f"Shape of tensor: {ndim_4_tensor.shape}" == "Shape of tensor: [2, 3, 4, 5]"
    assert ndim_4_tensor.shape[0] == 2 and ndim_4_tensor.shape[-1] == 5 and ndim_4_tensor.ndim == 4
    assert ndim_4_tensor.shape == [2, 3, 4, 5] and ndim_4_tensor.shape == (2, 3, 4, 5)
    assert ndim_4_tensor.shape + [1] == [2, 3, 4, 5, 1]
    assert repr(agv.ones(2, 3).shape) == "torch.Size([2, 3])"  # plain tensors: PyTorch's


# -- dtypes and shapes as Paddle 2.0 gives them ------------------------------------------------

# Paddle 2.0's dtypes are members of the pybind11 enum core.VarDesc.VarType
# (python/paddle/framework/dtype.py: `float32 = VarDesc.VarType.FP32`); they print
# as "VarType.FP32", and x.dtype of a tensor is one of them.
PADDLE_DTYPE_NAMES = {
    "float32": "VarType.FP32",
    "float64": "VarType.FP64",
    "int8": "VarType.INT8",
    "int16": "VarType.INT16",
    "int32": "VarType.INT32",
    "int64": "VarType.INT64",
    "uint8": "VarType.UINT8",
    "bool": "VarType.BOOL",
}


@pytest.mark.parametrize("name", sorted(PADDLE_DTYPE_NAMES))
def test_paddle_dtypes_print_as_paddle_2_0_and_equal_agvs(name):
    printed = PADDLE_DTYPE_NAMES[name]
    dtype = getattr(paddle, name)
    assert str(dtype) == repr(dtype) == printed
    x = paddle.zeros([2], dtype=name)
    assert str(x.dtype) == printed and f"{x.dtype}" == printed
    assert x.dtype == dtype and not x.dtype != dtype
    agv_dtype = agv.bool if name == "bool" else getattr(agv, name)
    assert dtype == agv_dtype and agv_dtype == dtype and not dtype != agv_dtype
    assert {agv_dtype: "found"}[dtype] == "found"  # hashes as agv's dtype
    assert paddle.to_tensor([1], dtype=dtype).dtype == dtype  # paddle.float32 as an argument
    assert agv.zeros(1, dtype=dtype).dtype is agv_dtype  # and to plain autogradviz
    assert str(agv.zeros(1, dtype=dtype).dtype) == f"torch.{name}"  # plain tensors: PyTorch's print


def test_paddle_dtypes_of_the_tutorials():
    # Paddle 2.0 guide (tensor_introduction_cn.md): print("Tensor dtype:", x.dtype)
    x = paddle.to_tensor([1.0, 2.0, 3.0])
    assert f"Tensor dtype: {x.dtype}" == "Tensor dtype: VarType.FP32"
    assert x.dtype == paddle.float32 and x.dtype != paddle.float64
    assert paddle.to_tensor([1, 2]).dtype == paddle.int64
    assert x.astype("float64").dtype == paddle.float64 and x.cast(paddle.int32).dtype == paddle.int32
    assert (x * 2).dtype == paddle.float32  # results of ops are Paddle tensors: Paddle's dtype
    # the tensor's own repr keeps Paddle's short name, as Paddle 2.0 prints it
    assert repr(x).startswith("Tensor(shape=[3], dtype=float32, place=CPUPlace")
    # a Paddle dtype survives agv.save / agv.load (weights_only) as the dtype it names
    import io
    import pickle

    buffer = io.BytesIO()
    agv.save({"dtype": x.dtype}, buffer)
    buffer.seek(0)
    assert agv.load(buffer)["dtype"] == paddle.float32
    assert pickle.loads(pickle.dumps(paddle.float32)) == paddle.float32


def test_paddle_shape_is_a_list():
    # Paddle 2.0: Tensor.shape is a Python list (a new one each time)
    x = paddle.ones([2, 3])
    shape = x.shape
    assert isinstance(shape, list) and shape == [2, 3] and f"{shape}" == "[2, 3]"
    shape.append(1)  # a copy: the tensor keeps its shape
    assert shape == [2, 3, 1] and x.shape == [2, 3]
    assert x.shape[1:] == [3] and isinstance(x.shape[1:], list)
    assert x.shape + [4] == [2, 3, 4] and list(reversed(x.shape)) == [3, 2]
    # agv's own code reads a Paddle tensor's shape as a tuple: both still work
    assert x.shape == (2, 3) and x.shape[:1] + (5,) == (2, 5) and (5,) + x.shape[1:] == (5, 3)
    assert hash(x.shape) == hash((2, 3))
    assert paddle.flatten(paddle.ones([2, 3, 4]), 1).shape == [2, 12]
    assert (paddle.ones([2, 3]) + agv.ones(3)).shape == [2, 3]
    # plain tensors keep PyTorch's Size, a tuple
    assert not isinstance(agv.ones(2, 3).shape, list) and isinstance(agv.ones(2, 3).shape, tuple)


# -- backward(grad_tensor=...), retain_graph, and paddle.grad ---------------------------------


def test_backward_grad_tensor_as_in_paddles_docs():
    # paddle.Tensor.backward(grad_tensor=None, retain_graph=False), the example of its
    # docs (2.2): x = 5, y = x⁴, so dy/dx = 4·5³ = 500, and 1000 with grad_tensor 2
    x = paddle.to_tensor(5.0, stop_gradient=False)
    printed = []
    for i in range(5):
        y = paddle.pow(x, 4.0)
        y.backward()
        printed.append("{}: {}".format(i, x.grad))  # noqa: UP032 - the docs, verbatim
    assert printed == ["0: [500.]", "1: [1000.]", "2: [1500.]", "3: [2000.]", "4: [2500.]"]
    x.clear_grad()
    grad_tensor = paddle.to_tensor(2.0)
    printed = []
    for i in range(5):
        y = paddle.pow(x, 4.0)
        y.backward(grad_tensor)  # positional, as in the docs
        printed.append("{}: {}".format(i, x.grad))  # noqa: UP032 - the docs, verbatim
    assert printed == ["0: [1000.]", "1: [2000.]", "2: [3000.]", "3: [4000.]", "4: [5000.]"]
    x.clear_grad()
    paddle.pow(x, 4.0).backward(grad_tensor=grad_tensor)  # and by Paddle's keyword
    assert x.grad.tolist() == [1000.0]


def test_backward_grad_tensor_of_a_non_scalar_against_torch(torch):
    seed = np.array([[1.0, 2.0], [2.0, 3.0]], np.float32)
    values = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    x = paddle.to_tensor(values, stop_gradient=False)
    y = paddle.matmul(x, x)
    y.backward(grad_tensor=paddle.to_tensor(seed), retain_graph=True)
    y.backward(grad_tensor=paddle.to_tensor(seed))  # the graph was kept: it runs again
    tx = torch.tensor(values, requires_grad=True)
    ty = tx @ tx
    ty.backward(torch.tensor(seed), retain_graph=True)
    ty.backward(torch.tensor(seed))
    np.testing.assert_allclose(x.grad, tx.grad.numpy(), rtol=1e-6)
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward(grad_tensor=paddle.to_tensor(seed))  # retain_graph=False freed it
    with pytest.raises(TypeError, match="got the seed gradient twice"):
        paddle.matmul(x, x).backward(paddle.to_tensor(seed), grad_tensor=paddle.to_tensor(seed))
    # PyTorch-style tensors keep PyTorch's signature: grad_tensor is not a keyword there
    w = agv.ones(2, requires_grad=True)
    with pytest.raises(TypeError, match="unexpected keyword argument 'grad_tensor'"):
        (w * 2).backward(grad_tensor=agv.ones(2))


def test_paddle_grad_fills_no_grad_not_even_of_intermediate_tensors(torch):
    # paddle.grad returns the gradients and stores none (Paddle 2.0 docs of paddle.grad);
    # after backward(), by contrast, Paddle keeps the intermediate c's grad
    x = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    c = x * 2
    y = paddle.sum(c * c)
    (dx,) = paddle.grad([y], [x], retain_graph=True)
    assert c.grad is None and x.grad is None
    tx = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (tdx,) = torch.autograd.grad(((tx * 2) ** 2).sum(), tx)
    np.testing.assert_allclose(dx.numpy(), tdx.numpy())
    # a grad kept from an earlier backward is left as it was, not added to
    y.backward()
    kept = c.grad.copy()
    (dc,) = paddle.grad([paddle.sum(c * c)], [c])
    np.testing.assert_array_equal(c.grad, kept)
    np.testing.assert_allclose(dc.numpy(), 2 * c.numpy())
    # create_graph=True: the second derivative, d²y/dx² = 8 per entry, still nothing stored
    x2 = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    h = x2 * 2
    (g,) = paddle.grad([paddle.sum(h * h)], [x2], create_graph=True)
    (gg,) = paddle.grad([paddle.sum(g)], [x2])
    assert gg.numpy().tolist() == [8.0, 8.0] and h.grad is None and x2.grad is None


# -- optimizers: Paddle 2.0's formulas --------------------------------------------------------


def paddle_rmsprop(w, grads, lr, rho=0.95, epsilon=1e-6, momentum=0.0, centered=False):
    """Paddle's documented RMSProp (RMSProp_en.html, 2.x): r ← ρr + (1−ρ)g²,
    (centered: ḡ ← ρḡ + (1−ρ)g, r − ḡ²), v ← βv + lr·g/√(r + ε), w ← w − v."""
    w = w.astype(np.float64)
    r, g_mean, v = np.zeros_like(w), np.zeros_like(w), np.zeros_like(w)
    for g in grads:
        r = rho * r + (1 - rho) * g * g
        spread = r
        if centered:
            g_mean = rho * g_mean + (1 - rho) * g
            spread = r - g_mean**2
        v = momentum * v + lr * g / np.sqrt(spread + epsilon)
        w = w - v
    return w


RMSPROP_SETTINGS = {
    "defaults": {},
    "momentum": {"momentum": 0.9},
    "centered": {"centered": True, "rho": 0.9},
    "centered momentum": {"centered": True, "momentum": 0.5, "epsilon": 1e-3},
}


@pytest.mark.parametrize("setting", sorted(RMSPROP_SETTINGS))
def test_rmsprop_follows_paddles_formula(torch, setting):
    kwargs = RMSPROP_SETTINGS[setting]
    start = np.array([[0.5, -1.0], [2.0, 0.25]], np.float64)
    rng = np.random.default_rng(3)
    grads = [rng.standard_normal((2, 2)) for _ in range(4)]
    w = paddle.nn.Linear(2, 2).weight
    w.set_value(start.astype(np.float32))
    w._data = w._data.astype(np.float64)  # float64, so that the formula is checked to 1e-12
    optim = paddle.optimizer.RMSProp(learning_rate=0.01, parameters=[w], **kwargs)
    for g in grads:
        paddle.sum(w * paddle.to_tensor(g)).backward()
        optim.step()
        optim.clear_grad()
    np.testing.assert_allclose(w.numpy(), paddle_rmsprop(start, grads, 0.01, **kwargs), rtol=1e-12)
    # ε inside the root is the difference from torch: with ε = 0 the two agree
    kwargs = {**kwargs, "epsilon": 0.0}
    w.set_value(start)
    optim = paddle.optimizer.RMSProp(learning_rate=0.01, parameters=[w], **kwargs)
    tw = torch.tensor(start, requires_grad=True)
    theirs = torch.optim.RMSprop(
        [tw], lr=0.01, alpha=kwargs.get("rho", 0.95), eps=0.0,
        momentum=kwargs.get("momentum", 0.0), centered=kwargs.get("centered", False),
    )  # fmt: skip
    for g in grads:
        paddle.sum(w * paddle.to_tensor(g)).backward()
        (tw * torch.tensor(g)).sum().backward()
        optim.step()
        theirs.step()
        optim.clear_grad()
        theirs.zero_grad()
    np.testing.assert_allclose(w.numpy(), tw.detach().numpy(), rtol=1e-10)


def test_rmsprop_arguments_and_weight_decay():
    w = paddle.nn.Linear(1, 1).weight
    w.set_value(np.array([[2.0]], np.float32))
    optim = paddle.optimizer.RMSProp(learning_rate=0.1, parameters=[w], weight_decay=0.5)
    assert optim.defaults["rho"] == 0.95 and optim.defaults["epsilon"] == 1e-6  # Paddle's defaults
    paddle.sum(w * 3.0).backward()
    optim.step()
    g = 3.0 + 0.5 * 2.0  # the L2 penalty's wd·w joins the gradient
    expected = 2.0 - 0.1 * g / np.sqrt(0.05 * g * g + 1e-6)
    np.testing.assert_allclose(w.numpy(), [[expected]], rtol=1e-6)
    with pytest.raises(ValueError, match="Invalid value of rho, expect rho >= 0."):
        paddle.optimizer.RMSProp(learning_rate=0.1, rho=-1.0, parameters=[w])
    with pytest.raises(AttributeError, match="should not be None in dygraph mode"):
        paddle.optimizer.RMSProp(learning_rate=0.1)
    with pytest.raises(NotImplementedError, match="grad_clip is not supported"):
        paddle.optimizer.RMSProp(learning_rate=0.1, parameters=[w], grad_clip=1.0)


def paddle_adam(w, grads, lr, beta1=0.9, beta2=0.999, epsilon=1e-8, coeff=0.0):
    """Paddle's Adam kernel (paddle/fluid/operators/optimizers/adam_op.h): the step
    size lr·√(1−β₂ᵗ)/(1−β₁ᵗ), and ε·√(1−β₂ᵗ) beside √v. With coeff, AdamW's decay
    w ← w·(1 − lr·coeff) first (python/paddle/optimizer/adamw.py)."""
    w = w.astype(np.float64)
    m, v = np.zeros_like(w), np.zeros_like(w)
    for t, g in enumerate(grads, start=1):
        w = w * (1 - lr * coeff)
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        step = lr * np.sqrt(1 - beta2**t) / (1 - beta1**t)
        w = w - step * m / (np.sqrt(v) + epsilon * np.sqrt(1 - beta2**t))
    return w


def paddle_momentum(w, grads, lr, mu=0.9, nesterov=False):
    """Paddle's Momentum docs: v ← μv + g; w ← w − lr·v (Nesterov: w ← w − lr·(g + μv))."""
    w = w.astype(np.float64)
    v = np.zeros_like(w)
    for g in grads:
        v = mu * v + g
        w = w - lr * (g + mu * v if nesterov else v)
    return w


@pytest.mark.parametrize(
    "name, kwargs, formula",
    [
        ("SGD", {}, lambda w, gs: w - 0.1 * sum(gs)),
        ("Momentum", {}, lambda w, gs: paddle_momentum(w, gs, 0.1)),
        ("Momentum", {"use_nesterov": True}, lambda w, gs: paddle_momentum(w, gs, 0.1, nesterov=True)),
        ("Adam", {"epsilon": 1e-2}, lambda w, gs: paddle_adam(w, gs, 0.1, epsilon=1e-2)),
        ("AdamW", {"epsilon": 1e-2}, lambda w, gs: paddle_adam(w, gs, 0.1, epsilon=1e-2, coeff=0.01)),
    ],
    ids=["SGD", "Momentum", "Nesterov", "Adam", "AdamW"],
)
def test_sgd_momentum_adam_adamw_follow_paddles_formulas(name, kwargs, formula):
    # a large epsilon, so that where it sits (beside √v, scaled by √(1−β₂ᵗ)) shows
    start = np.array([[0.5, -1.0], [2.0, 0.25]])
    rng = np.random.default_rng(5)
    grads = [rng.standard_normal((2, 2)) for _ in range(5)]
    w = paddle.nn.Linear(2, 2).weight
    w._data = start.copy()  # float64, so that the formula is checked to 1e-12
    optim = getattr(paddle.optimizer, name)(learning_rate=0.1, parameters=[w], **kwargs)
    for g in grads:
        paddle.sum(w * paddle.to_tensor(g)).backward()
        optim.step()
        optim.clear_grad()
    np.testing.assert_allclose(w.numpy(), formula(start, grads), rtol=1e-12)
