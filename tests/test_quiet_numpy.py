"""numpy's floating-point warnings: off inside every walk of the engine, and only there.

The engine silences numpy once per walk (engine.quiet_numpy) instead of once per node,
and binary ops silence it in one decorated helper (ops/_operands._quietly). These tests
pin both halves: each consumer of the walk is quiet on overflow and 0/0, and none of
them leaves numpy's error state changed for the learner's own numpy code, not even when
the walk stops with an error. The expected gradients come from PyTorch.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import autogradviz as agv
from autogradviz.ops import _operands
from autogradviz.widgets import trace

torch = pytest.importorskip("torch")

# float32 values whose backward overflows (3e38 * 10) and meets 0/0 (grad of x / 0 at x = 0)
VALUES = [3e38, 0.0, 1.0]


def _loss(lib, x):
    return (x * 10.0 + x / lib.tensor([1.0, 0.0, 2.0])).sum()


def _torch_grad() -> list:
    x = torch.tensor(VALUES, requires_grad=True)
    _loss(torch, x).backward()
    return x.grad.tolist()


def _assert_same_floats(ours: list, theirs: list) -> None:
    np.testing.assert_array_equal(np.array(ours), np.array(theirs))


def test_backward_is_quiet_and_leaves_numpys_error_state_as_it_was():
    before = np.geterr()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x = agv.tensor(VALUES, requires_grad=True)
        _loss(agv, x).backward()
    assert np.geterr() == before
    _assert_same_floats(x.grad.tolist(), _torch_grad())
    # the learner's own numpy still warns as numpy does
    with pytest.warns(RuntimeWarning, match="divide by zero"):
        np.array([1.0]) / np.array([0.0])


def test_agv_grad_is_quiet_and_leaves_numpys_error_state_as_it_was():
    before = np.geterr()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x = agv.tensor(VALUES, requires_grad=True)
        (g,) = agv.autograd.grad(_loss(agv, x), x)
    assert np.geterr() == before
    _assert_same_floats(g.tolist(), _torch_grad())


def test_the_steppers_walk_is_quiet_and_its_sent_gradients_are_torchs():
    before = np.geterr()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x = agv.tensor(VALUES, requires_grad=True)
        steps = trace.record(_loss(agv, x))
    assert np.geterr() == before
    leaf_steps = [s for s in steps if s.leaf is not None]
    assert len(leaf_steps) == 1
    _assert_same_floats(leaf_steps[0].leaf_after.tolist(), _torch_grad())
    assert x.grad is None  # the stepper writes no .grad


def test_a_walk_that_fails_still_restores_numpys_error_state():
    before = np.geterr()
    x = agv.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    y.add_(1.0)  # changes the output that exp saved for backward
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
    assert np.geterr() == before


# (float16 is refused by agv.tensor: there is no half dtype to take the shortcut)
FLOAT_ARRAYS = [np.array([1.5, -2.0], dtype=d) for d in ("float32", "float64")]
FLOAT_ARRAYS += [np.array(2.5, dtype=d) for d in ("float32", "float64")]  # 0-d tensors
NUMBERS = [0.9, 3, -7, 10**6, 1e300]


@pytest.mark.parametrize("array, number", list(itertools.product(FLOAT_ARRAYS, NUMBERS)))
@pytest.mark.parametrize("number_first", [False, True])
def test_the_float_and_number_shortcut_gives_the_promotion_rules_dtype(array, number, number_first):
    """binary() decides `y * 0.9` without result_type; both must agree, and with torch."""
    a, b = (number, agv.tensor(array)) if number_first else (agv.tensor(array), number)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # 1e300 overflows float32 to inf, silently
        out = _operands.binary("mul", np.multiply, a, b)
    assert out.dtype == _operands.result_type(array, number)
    t = torch.from_numpy(array.copy())
    expected = (number * t) if number_first else (t * number)
    assert str(expected.dtype).removeprefix("torch.") == out.dtype.name
    np.testing.assert_array_equal(out, expected.numpy())
