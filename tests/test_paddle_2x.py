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
    assert "Tensor x's grad is: {}".format(x.grad) == (
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
