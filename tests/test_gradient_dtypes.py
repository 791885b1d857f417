"""Issue 26, item 4: a gradient sent into a tensor has that tensor's dtype, as in
PyTorch (its engine casts each gradient to its input's dtype: validate_outputs).

Every case is run on autogradviz and on torch 2.13 with the same program; the
dtypes every hook and every retained .grad sees are compared with torch's, and
each must also be the tensor's own dtype."""

from __future__ import annotations

import numpy as np
import pytest

import autogradviz as agv

torch = pytest.importorskip("torch")

# each case: (name, function of (lib, y)) where y = x * 2 is float32 and non-leaf
CASES = [
    ("max", lambda lib, y: y.max()),
    ("min", lambda lib, y: y.min()),
    ("amax", lambda lib, y: y.amax()),
    ("amin", lambda lib, y: y.amin()),
    ("max(dim)", lambda lib, y: y.max(0).values.sum()),
    ("vector_norm(inf)", lambda lib, y: lib.linalg.vector_norm(y, float("inf"))),
    ("vector_norm(-inf)", lambda lib, y: lib.linalg.vector_norm(y, float("-inf"))),
    ("y * np.float64", lambda lib, y: (y * np.float64(2.0)).sum()),
    ("np.float64 * y", lambda lib, y: (np.float64(2.0) * y).sum()),
    ("y / np.float64", lambda lib, y: (y / np.float64(2.0)).sum()),
    ("y ** np.float64", lambda lib, y: (y ** np.float64(2.0)).sum()),
    ("y - np.float64", lambda lib, y: (y - np.float64(2.0)).prod()),
    ("mean", lambda lib, y: y.mean()),
    ("std", lambda lib, y: y.std()),
    ("softmax", lambda lib, y: lib.softmax(y, 0)[0]),
    ("y.double() * y", lambda lib, y: (y.double() * y).sum()),
]


def _run(lib, f, dtype):
    x = lib.tensor([0.3, 1.7, -0.4], dtype=dtype, requires_grad=True)
    y = x * 2
    y.retain_grad()
    seen = []
    y.register_hook(lambda g: seen.append(("y", str(g.dtype))))
    x.register_hook(lambda g: seen.append(("x", str(g.dtype))))
    f(lib, y).backward()
    return seen, str(y.grad.dtype), str(x.grad.dtype), str(y.dtype)


@pytest.mark.parametrize("dtype_name", ["float32", "float64"])
@pytest.mark.parametrize("name,f", CASES, ids=[c[0] for c in CASES])
def test_every_gradient_a_hook_or_retain_grad_sees_has_the_tensors_dtype(name, f, dtype_name):
    ours = _run(agv, f, getattr(agv, dtype_name))
    theirs = _run(torch, f, getattr(torch, dtype_name))
    assert ours == theirs
    seen, y_grad, x_grad, y_dtype = ours
    assert y_grad == y_dtype == x_grad == f"torch.{dtype_name}"
    assert all(dtype == f"torch.{dtype_name}" for _, dtype in seen)


def test_agv_grad_returns_each_input_in_its_dtype_as_torch():
    def program(lib):
        x = lib.tensor([0.3, 1.7], requires_grad=True)
        y = x * 2
        return [str(g.dtype) for g in lib.autograd.grad(y.max() * np.float64(3.0), [x, y])]

    assert program(agv) == program(torch) == ["torch.float32", "torch.float32"]


def test_double_backward_gradients_keep_the_dtype_as_torch():
    def program(lib):
        x = lib.tensor([0.3, 1.7], requires_grad=True)
        y = (x * np.float64(2.0)).amax() * x.sum()
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        seen = []
        x.register_hook(lambda gg: seen.append(str(gg.dtype)))
        g.sum().backward()
        return str(g.dtype), seen, str(x.grad.dtype)

    assert program(agv) == program(torch)
