"""numpy's floating-point warnings: off inside every walk of the engine, and only there.

The engine silences numpy once per walk (engine.quiet_numpy) instead of once per node,
and forward ops run their numpy work in a ready-made quiet context
(ops/_operands.quietly). These tests pin both halves: each consumer of the walk, and
each forward op, is quiet on overflow and 0/0, in any thread, and none of them leaves
numpy's error state changed for the learner's own numpy code, not even when the walk
or the op stops with an error. The expected values come from PyTorch.
"""

from __future__ import annotations

import contextvars
import itertools
import threading
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


# -- the forward path: quietly() ------------------------------------------------------------

# ops whose forward overflows or meets 0/0 in float32, on VALUES
FORWARD_OPS = {
    "x * 10": lambda lib, x: x * 10.0,
    "x / [1, 0, 2]": lambda lib, x: x / lib.tensor([1.0, 0.0, 2.0]),
    "exp": lambda lib, x: x.exp(),
    "log(x - 1)": lambda lib, x: (x - 1.0).log(),
    "sinh (via float64)": lambda lib, x: x.sinh(),
    "x ** 2": lambda lib, x: x**2,
}


def _assert_close_floats(ours: list, theirs: list) -> None:
    """inf and nan where PyTorch has them; finite values within an ulp or two (numpy's
    float32 exp is not always rounded as PyTorch's is)."""
    np.testing.assert_allclose(np.array(ours), np.array(theirs), rtol=3e-7, atol=0)


def _forward_in_torch(name: str) -> list:
    return FORWARD_OPS[name](torch, torch.tensor(VALUES)).tolist()


@pytest.mark.parametrize("name", FORWARD_OPS)
def test_forward_ops_are_quiet_even_inside_the_learners_errstate_raise(name):
    """Inside np.errstate(all="raise") numpy itself raises FloatingPointError; the op
    does not, and gives PyTorch's inf and nan. Outside the op, the learner's state holds."""
    with np.errstate(all="raise"):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            out = FORWARD_OPS[name](agv, agv.tensor(VALUES))
        assert np.geterr()["over"] == "raise"
        with pytest.raises(FloatingPointError, match="overflow"):
            np.float32([3e38]) * np.float32(10.0)
    _assert_close_floats(out.tolist(), _forward_in_torch(name))


def test_forward_ops_are_quiet_in_other_threads_at_the_same_time():
    """Each thread gets its own quiet context: a context can be entered by one thread
    at a time, so a shared one would raise "cannot enter context" here."""
    start = threading.Barrier(4)
    results, failures = {}, []

    def work(k: int) -> None:
        try:
            start.wait()
            with np.errstate(all="raise"):  # numpy's state is per thread too
                outs = [
                    FORWARD_OPS[name](agv, agv.tensor(VALUES)).tolist()
                    for name in FORWARD_OPS
                    for _ in range(50)
                ]
            results[k] = outs[::50]
        except BaseException as error:  # noqa: BLE001 - reported below, with its thread
            failures.append((k, repr(error)))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    expected = [_forward_in_torch(name) for name in FORWARD_OPS]
    for k in range(4):
        for ours, theirs in zip(results[k], expected):
            _assert_close_floats(ours, theirs)


def test_an_op_that_fails_inside_the_quiet_context_leaves_it_usable():
    """A broadcast error raised inside the context: the next op still works, and
    numpy's state outside is the learner's."""
    before = np.geterr()
    with pytest.raises(RuntimeError, match="must match the size"):
        agv.ones(3) * agv.ones(4)
    assert np.geterr() == before
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = agv.tensor(VALUES) * 10.0
    _assert_close_floats(out.tolist(), _forward_in_torch("x * 10"))


def test_the_quiet_context_sees_the_learners_other_context_variables_unchanged():
    """The op runs in a copy of the context taken at import; the learner's own context
    variables are not touched by it (nothing leaks either way)."""
    mine = contextvars.ContextVar("mine", default="unset")
    token = mine.set("set by the learner")
    try:
        agv.tensor(VALUES) * 10.0
        assert mine.get() == "set by the learner"
    finally:
        mine.reset(token)
