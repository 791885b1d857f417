"""The three tutorial sessions at the end of issue 2, run as written there."""

from __future__ import annotations

import time

import numpy as np
import pytest

import autogradviz as agv

# -- Session 1: the computation graph, leaves, non-scalar backward, accumulation ----------


def test_session_1_pytorch_graph_and_accumulation():
    x = agv.ones(2, 2)
    w = agv.rand(2, 2, requires_grad=True)
    b = agv.rand(2, 2, requires_grad=True)
    y = w * x + b

    assert (x.is_leaf, w.is_leaf, b.is_leaf) == (True, True, True)
    assert y.is_leaf is False
    assert (x.requires_grad, b.requires_grad, w.requires_grad) == (False, True, True)
    assert y.requires_grad is True

    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        y.backward()

    y.backward(agv.ones(2, 2), retain_graph=True)
    assert repr(w.grad) == "tensor([[1., 1.],\n        [1., 1.]])"
    y.backward(agv.ones(2, 2), retain_graph=True)
    assert repr(w.grad) == "tensor([[2., 2.],\n        [2., 2.]])"
    assert w.grad.tolist() == [[2.0, 2.0], [2.0, 2.0]]
    y.backward(agv.ones(2, 2), retain_graph=True)
    assert repr(w.grad) == "tensor([[3., 3.],\n        [3., 3.]])"
    assert w.grad.tolist() == [[3.0, 3.0], [3.0, 3.0]]

    zeroed = w.grad.zero_()
    assert repr(zeroed) == "tensor([[0., 0.],\n        [0., 0.]])"
    assert zeroed is w.grad
    assert w.grad.tolist() == [[0.0, 0.0], [0.0, 0.0]]
    # b.grad is the same ones three times; x needs no grad, so it has none
    assert b.grad.tolist() == [[3.0, 3.0], [3.0, 3.0]]
    assert x.grad is None


# -- Session 2: Paddle style --------------------------------------------------------------


def test_session_2_paddle_stop_gradient():
    a = agv.tensor([1.0, 2.0, 3.0])
    b = agv.tensor([1.0, 2.0, 3.0], stop_gradient=False)
    assert a.stop_gradient is True
    assert b.stop_gradient is False
    a.stop_gradient = False
    assert a.stop_gradient is False


def test_session_2_paddle_polynomial():
    x = agv.tensor([1.0, 2.0, 3.0], stop_gradient=False)
    y = agv.tensor([4.0, 5.0, 6.0], stop_gradient=False)
    z = x**2 + 4 * y
    z.backward(agv.ones_like(z))
    assert x.grad.tolist() == [2.0, 4.0, 6.0]  # 2x
    assert y.grad.tolist() == [4.0, 4.0, 4.0]


def test_session_2_paddle_retain_graph():
    x = agv.tensor([1.0, 2.0, 3.0], stop_gradient=False)
    y = x + 3
    y.backward(agv.ones_like(y), retain_graph=True)
    assert x.grad.tolist() == [1.0, 1.0, 1.0]


def test_session_2_paddle_mul_backward():
    a = agv.tensor(2.0, stop_gradient=False)
    b = agv.tensor(5.0, stop_gradient=True)
    c = a * b
    c.backward()
    assert a.grad.item() == 5.0
    assert b.grad is None
    assert c.grad_fn.name() == "MulBackward0"


def test_session_2_paddle_chain_with_retained_intermediate():
    a = agv.tensor(2.0, stop_gradient=False)
    b = agv.tensor(5.0, stop_gradient=False)
    d = agv.tensor(4.0, stop_gradient=False)
    c = a * b
    c.retain_grad()
    e = c * d
    e.backward()
    assert a.grad.item() == 20.0  # b·d
    assert b.grad.item() == 8.0  # a·d
    assert c.grad.item() == 4.0  # d
    assert d.grad.item() == 10.0  # a·b


def test_session_2_paddle_add_n_and_clear_grad():
    tensors = []
    for _ in range(10):
        t = agv.ones(2, 2)
        t.stop_gradient = False
        tensors.append(t)
    loss = agv.sum(agv.add_n(tensors))
    loss.backward()
    for t in tensors:
        assert t.grad.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    tensors[0].clear_grad()
    assert tensors[0].grad.tolist() == [[0.0, 0.0], [0.0, 0.0]]
    assert tensors[1].grad.tolist() == [[1.0, 1.0], [1.0, 1.0]]


# -- Session 3: logistic regression by hand -------------------------------------------------

EPOCHS = 10_000
EVERY = 500
LR = 1e-2


def train(lib, w, b, x_t, y_t) -> list[float]:
    """The tutorial's loop, written once for autogradviz and for PyTorch: one
    backward and update first (so that the grads exist), then 10,000 epochs."""

    def loss_fn():
        y_p = lib.sigmoid(lib.matmul(x_t, w) + b)
        return -lib.mean(y_t * lib.log(y_p) + (1 - y_t) * lib.log(1 - y_p))

    loss = loss_fn()
    loss.backward()
    w.data = w.data - LR * w.grad.data
    b.data = b.data - LR * b.grad.data
    losses = []
    for epoch in range(EPOCHS):
        loss = loss_fn()
        w.grad.zero_()
        b.grad.zero_()
        loss.backward()
        w.data = w.data - LR * w.grad.data
        b.data = b.data - LR * b.grad.data
        if epoch % EVERY == 0:
            losses.append(loss.item())
    return losses


def train_by_hand(w: np.ndarray, x: np.ndarray, y: np.ndarray) -> list[float]:
    """The same run with the gradients written out (float64): for p = σ(xw + b)
    and the mean cross-entropy L, ∂L/∂w = xᵀ(p - y)/n and ∂L/∂b = mean(p - y)."""
    b = np.zeros(1)
    n = len(x)

    def step(w, b):
        p = 1 / (1 + np.exp(-(x @ w + b)))
        loss = -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))
        return loss, w - LR * x.T @ (p - y) / n, b - LR * np.mean(p - y)

    _, w, b = step(w, b)
    losses = []
    for epoch in range(EPOCHS):
        loss, w, b = step(w, b)
        if epoch % EVERY == 0:
            losses.append(loss)
    return losses


@pytest.fixture(scope="module")
def session_3():
    """Run the tutorial once for all the checks below; report how long it took."""
    agv.manual_seed(0)  # the same initial w whichever tests ran before
    x_t = agv.tensor(np.array([[1, 1], [1, 0], [0, 1], [0, 0]]), dtype=agv.float)
    y_t = agv.tensor([[0], [1], [0], [1]], dtype=agv.float)
    w = agv.randn([2, 1], requires_grad=True)
    b = agv.zeros(1, requires_grad=True)
    w0 = w.detach().numpy().copy()
    assert w.grad is None  # the tutorial's open question: a first w.grad.zero_() would fail
    start = time.perf_counter()
    losses = train(agv, w, b, x_t, y_t)
    seconds = time.perf_counter() - start
    print(f"\nSession 3: {EPOCHS} epochs in {seconds:.2f} s")
    return w0, losses, (w, b, x_t, y_t)


def test_session_3_setup(session_3):
    _, _, (w, b, x_t, y_t) = session_3
    assert x_t.dtype is agv.float32 and x_t.shape == (4, 2)
    assert y_t.dtype is agv.float32 and y_t.shape == (4, 1)
    assert w.shape == (2, 1) and w.is_leaf and w.requires_grad
    assert b.shape == (1,) and b.is_leaf and b.requires_grad
    assert w.dtype is agv.float32 and b.dtype is agv.float32


def test_session_3_loss_falls_throughout(session_3):
    _, losses, _ = session_3
    assert len(losses) == EPOCHS // EVERY
    assert all(later < earlier for earlier, later in zip(losses, losses[1:]))
    assert losses[-1] < 0.5 * losses[0]


def test_session_3_matches_the_gradient_by_hand(session_3):
    w0, losses, (_, _, x_t, y_t) = session_3
    expected = train_by_hand(
        w0.astype(np.float64), x_t.numpy().astype(np.float64), y_t.numpy().astype(np.float64)
    )
    np.testing.assert_allclose(losses, expected, rtol=1e-4)


def test_session_3_matches_torch(session_3):
    torch = pytest.importorskip("torch")
    w0, losses, _ = session_3
    x_t = torch.tensor(np.array([[1, 1], [1, 0], [0, 1], [0, 0]]), dtype=torch.float)
    y_t = torch.tensor([[0], [1], [0], [1]], dtype=torch.float)
    w = torch.tensor(w0, requires_grad=True)  # the same initial w
    b = torch.zeros(1, requires_grad=True)
    expected = train(torch, w, b, x_t, y_t)
    np.testing.assert_allclose(losses, expected, rtol=1e-4)


def test_session_3_first_zero_before_backward_fails():
    """Iterating without the first update raises: w.grad is None until a backward."""
    w = agv.randn([2, 1], requires_grad=True)
    with pytest.raises(AttributeError):
        w.grad.zero_()
