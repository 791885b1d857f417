"""Hardening (issue 26), ops and creation: each test runs the same call on torch and
on autogradviz and compares the outcome: the values and dtype where torch returns,
the exception class and the start of the message where torch raises.

- full(), full_like() and fill_() check a fill value as PyTorch does (one rule,
  creation.fill_number);
- tensor() infers the dtype of a list holding numpy numbers, arrays or tensors as
  PyTorch does (each item's own dtype, promoted);
- zero_ and fill_ through an expand()-ed view are refused when autograd records them;
- an operand that backward does not need (einsum, a product with a constant) or keeps
  a copy of (a matrix times a stack of matrices) may change in place after the forward.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import autogradviz as agv

torch = pytest.importorskip("torch")


def outcome(run):
    """("ok", dtype name, values) or (exception class name, message)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a numpy warning is a defect too
            # torch's advice for a list of arrays is not an outcome
            warnings.filterwarnings("ignore", "Creating a tensor from a list of numpy.ndarrays")
            result = run()
    except Exception as error:  # noqa: BLE001 - the class is what is compared
        return type(error).__name__, str(error)
    return "ok", str(result.dtype).split(".")[-1], result.tolist()


def assert_same_outcome(ours, theirs, prefix: str = ""):
    if theirs[0] == "ok":
        assert ours[:2] == theirs[:2]
        np.testing.assert_array_equal(ours[2], theirs[2])  # nan where torch has nan
    else:
        assert ours[0] == theirs[0], (ours, theirs)
        assert ours[1].startswith(prefix + theirs[1]), (ours, theirs)


# --- 1. the fill value of full / full_like / fill_ ----------------------------------
FILL_VALUES = [
    2**70,
    -(2**70),
    2**63,
    2**64 - 1,
    2**64,
    -(2**63),
    -(2**63) - 1,
    300,
    -129,
    256,
    -1,
    -255,
    -256,
    300.5,
    127.5,
    2.5,
    -2.5,
    float("nan"),
    float("inf"),
    1e39,
    3.4028235e38,
    1 + 2j,
    1 + 0j,
    True,
    np.int64(300),
    np.float32(2.5),
    np.float64(1e39),
    "a",
    None,
    np.array(5),
]
FILL_DTYPES = [None, "int64", "int32", "int16", "int8", "uint8", "float32", "float64", "bool"]


def _dtype(lib, name):
    return {} if name is None else {"dtype": getattr(lib, name)}


@pytest.mark.parametrize("dtype", FILL_DTYPES)
@pytest.mark.parametrize("value", FILL_VALUES, ids=repr)
def test_full_checks_its_fill_value_as_torch(value, dtype):
    if isinstance(value, complex) and dtype is None:
        pytest.skip("autogradviz has no complex dtype")
    theirs = outcome(lambda: torch.full((2,), value, **_dtype(torch, dtype)))
    ours = outcome(lambda: agv.full((2,), value, **_dtype(agv, dtype)))
    assert_same_outcome(ours, theirs)


@pytest.mark.parametrize("dtype", FILL_DTYPES)
@pytest.mark.parametrize("value", FILL_VALUES, ids=repr)
def test_full_like_checks_its_fill_value_as_torch(value, dtype):
    theirs = outcome(lambda: torch.full_like(torch.zeros(2, **_dtype(torch, dtype)), value))
    ours = outcome(lambda: agv.full_like(agv.zeros(2, **_dtype(agv, dtype)), value))
    assert_same_outcome(ours, theirs)


@pytest.mark.parametrize("dtype", FILL_DTYPES)
@pytest.mark.parametrize("value", FILL_VALUES, ids=repr)
def test_fill_checks_its_value_as_torch(value, dtype):
    """fill_ names itself first (its message before this issue), then torch's sentence;
    a non-number is a TypeError as in torch (torch's words list its overloads)."""
    theirs = outcome(lambda: torch.zeros(2, **_dtype(torch, dtype)).fill_(value))
    ours = outcome(lambda: agv.zeros(2, **_dtype(agv, dtype)).fill_(value))
    if theirs[0] == "TypeError":
        assert ours[0] == "TypeError"
        assert ours[1].startswith(
            f"fill_() received an invalid combination of arguments - got ({type(value).__name__})"
        )
    else:
        assert_same_outcome(ours, theirs, prefix="fill_: " if theirs[0] == "RuntimeError" else "")


def test_full_overflow_message_says_the_range():
    with pytest.raises(RuntimeError) as error:
        agv.full((2,), 300, dtype=agv.int8)
    assert str(error.value) == (
        "value cannot be converted to type int8_t without overflow: 300 (full: int8 holds integers from -128 to 127)"
    )


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int64", "float32", "bool"])
@pytest.mark.parametrize("value", [-1, -256, 300, 2.7, -2.7, 1e39, float("nan")], ids=repr)
def test_setitem_with_a_number_follows_the_same_rule(value, dtype):
    def write(lib):
        x = lib.zeros(3, dtype=getattr(lib, dtype))
        x[0] = value
        return x

    assert_same_outcome(
        outcome(lambda: write(agv)), outcome(lambda: write(torch)), prefix="x[index] = value: "
    )


@pytest.mark.parametrize("value", [300, 300.0, -1])
def test_fill_with_a_0d_tensor_wraps_as_torch(value):
    """A 0-d tensor is copied, not checked as a number: 300 wraps to 44 as int8."""
    theirs = torch.zeros(2, dtype=torch.int8).fill_(torch.tensor(value))
    ours = agv.zeros(2, dtype=agv.int8).fill_(agv.tensor(value))
    assert ours.tolist() == theirs.tolist()


def test_fill_with_a_1d_tensor_raises_as_torch():
    with pytest.raises(RuntimeError) as theirs:
        torch.zeros(2).fill_(torch.tensor([1.0, 2.0]))
    with pytest.raises(RuntimeError) as ours:
        agv.zeros(2).fill_(agv.tensor([1.0, 2.0]))
    assert str(ours.value) == str(theirs.value)


# --- 3. zero_ / fill_ through an expand()-ed view -----------------------------------
SHARED = "unsupported operation: more than one element of the written-to tensor refers to a single memory location."


def _write_through_expand(lib, op: str, shape, requires_grad: bool):
    """A write through x[:1].expand(*shape), then a backward through x; the values of
    x, the gradient, or the error."""
    a = lib.tensor([1.0, 2.0], requires_grad=requires_grad)
    x = a * 3
    view = x[:1].expand(*shape)
    if op == "zero_":
        view.zero_()
    elif op == "fill_":
        view.fill_(5.0)
    else:
        getattr(view, op)(2.0)
    if not requires_grad:
        return x.tolist()
    (x * lib.tensor([1.0, 10.0])).sum().backward()
    return x.tolist(), a.grad.tolist()


@pytest.mark.parametrize("requires_grad", [False, True], ids=["no grad", "recorded"])
@pytest.mark.parametrize("shape", [(3,), (1,), (2, 1)], ids=str)
@pytest.mark.parametrize("op", ["zero_", "fill_", "mul_", "add_"])
def test_writes_through_an_expanded_view_as_torch(op, shape, requires_grad):
    """Outside autograd, torch lets fill_ and zero_ write one value into an expanded
    view (every copy gets it) and refuses mul_ and add_; when autograd records the
    write (the base requires grad), it refuses zero_ and fill_ too."""
    try:
        theirs = ("ok", _write_through_expand(torch, op, shape, requires_grad))
    except RuntimeError as error:
        theirs = ("RuntimeError", str(error))
    try:
        ours = ("ok", _write_through_expand(agv, op, shape, requires_grad))
    except RuntimeError as error:
        ours = ("RuntimeError", str(error))
    if theirs[0] == "ok":
        assert ours == theirs
    else:
        assert theirs[1].startswith(SHARED)
        assert ours[0] == "RuntimeError"
        assert ours[1].startswith(f"{op}: {SHARED}")


@pytest.mark.parametrize("op", ["zero_", "fill_"])
def test_refused_fill_through_an_expanded_view_changes_nothing(op):
    """torch writes the values and bumps the version before it raises; autogradviz
    checks first, so the base keeps its values, version and history."""
    a = agv.tensor([1.0, 2.0], requires_grad=True)
    x = a * 3
    view = x[:1].expand(3)
    version, history = x._version, x.grad_fn
    with pytest.raises(RuntimeError, match="more than one element"):
        view.zero_() if op == "zero_" else view.fill_(5.0)
    assert x.tolist() == [3.0, 6.0]
    assert (x._version, x.grad_fn) == (version, history)
    x.sum().backward()
    assert a.grad.tolist() == [3.0, 3.0]


# --- 2. the dtype tensor() infers from a list holding numpy numbers -----------------
LISTS = {
    "[f64]": lambda lib: [np.float64(1.5)],
    "[f32]": lambda lib: [np.float32(1.5)],
    "[i32]": lambda lib: [np.int32(3)],
    "[i8]": lambda lib: [np.int8(3)],
    "[u8]": lambda lib: [np.uint8(3)],
    "[bool_]": lambda lib: [np.bool_(True)],
    "[f32, 1.0]": lambda lib: [np.float32(1.5), 1.0],
    "[1.0, f64]": lambda lib: [1.0, np.float64(1.5)],
    "[f32, f64]": lambda lib: [np.float32(1.5), np.float64(2.5)],
    "[i32, 1]": lambda lib: [np.int32(3), 1],
    "[i32, 1.5]": lambda lib: [np.int32(3), 1.5],
    "[i32, i64]": lambda lib: [np.int32(3), np.int64(4)],
    "[i64, f32]": lambda lib: [np.int64(1), np.float32(2.5)],
    "[u8, i8]": lambda lib: [np.uint8(1), np.int8(2)],
    "[f64, 1]": lambda lib: [np.float64(1.5), 1],
    "[f64, True]": lambda lib: [np.float64(1.5), True],
    "[True, i32]": lambda lib: [True, np.int32(2)],
    "[1.5, i64]": lambda lib: [1.5, np.int64(3)],
    "[[f64], [1.0]]": lambda lib: [[np.float64(1.5)], [1.0]],
    "[[i32, u8]]": lambda lib: [[np.int32(1), np.uint8(2)]],
    "[[i8], [i8]]": lambda lib: [[np.int8(1)], [np.int8(2)]],
    "[array i32, array i32]": lambda lib: [np.array([1], np.int32), np.array([2], np.int32)],
    "[tensor f64, tensor f64]": lambda lib: [
        lib.tensor(1.5, dtype=lib.float64),
        lib.tensor(2.0, dtype=lib.float64),
    ],
    "[tensor i32, 1]": lambda lib: [lib.tensor(1, dtype=lib.int32), 1],
    "[tensor f32, f64]": lambda lib: [lib.tensor(1.5), np.float64(2.0)],
    "f64 scalar": lambda lib: np.float64(1.5),
    "i32 scalar": lambda lib: np.int32(3),
    "[1.0, 2]": lambda lib: [1.0, 2],
    "[]": lambda lib: [],
}


@pytest.mark.parametrize("make", LISTS.values(), ids=LISTS.keys())
def test_tensor_infers_the_dtype_of_numpy_items_as_torch(make):
    assert outcome(lambda: agv.tensor(make(agv))) == outcome(lambda: torch.tensor(make(torch)))


def test_uint64_beyond_int64_raises_instead_of_wrapping():
    """torch keeps a uint64 array as uint64; autogradviz has no uint64 dtype, so it
    makes int64, and a value int64 can't hold raises rather than turning negative."""
    big = np.array([2**63 + 5], dtype=np.uint64)
    assert torch.tensor(big).tolist() == [2**63 + 5]
    with pytest.raises(RuntimeError, match=r"^value cannot be converted to type int64 without overflow"):
        agv.tensor(big)
    assert agv.tensor(np.array([5], dtype=np.uint64)).tolist() == [5]


# --- 4. what backward keeps: an operand it does not need may change in place ---------
def _change_then_backward(lib, make_inputs, forward, grads, change: int):
    """Inputs (as leaves, requiring grad where asked, then copied by an op so that
    they may change in place); the forward; an in-place change of input `change`;
    backward. The leaves' gradients, or the error."""
    rng = np.random.default_rng(0)
    leaves = [
        lib.tensor(x, dtype=lib.float64, requires_grad=needs)
        for x, needs in zip(make_inputs(rng), grads, strict=True)
    ]
    inputs = [x * 1 if needs else x.clone() for x, needs in zip(leaves, grads, strict=True)]
    out = forward(lib, *inputs)
    with lib.no_grad():
        inputs[change].mul_(2)
    out.sum().backward()
    return [None if x.grad is None else x.grad.numpy() for x in leaves]


def _assert_same_after_change(make_inputs, forward, grads, change):
    try:
        theirs = _change_then_backward(torch, make_inputs, forward, grads, change)
    except RuntimeError as error:
        theirs = error
    try:
        ours = _change_then_backward(agv, make_inputs, forward, grads, change)
    except RuntimeError as error:
        ours = error
    if isinstance(theirs, RuntimeError):
        assert isinstance(ours, RuntimeError), "torch raises, autogradviz does not"
        start = (
            "one of the variables needed for gradient computation has been modified by an inplace operation"
        )
        assert str(theirs).startswith(start) and str(ours).startswith(start)
    else:
        assert not isinstance(ours, RuntimeError), f"torch computes, autogradviz raises {ours}"
        for mine, torchs in zip(ours, theirs, strict=True):
            assert (mine is None) == (torchs is None)
            if mine is not None:
                np.testing.assert_allclose(mine, torchs, rtol=1e-12)


def _shaped(*shapes):
    return lambda rng: [rng.standard_normal(s) for s in shapes]


EINSUMS = [
    ("ij->ji", [(2, 3)]),
    ("ij->", [(2, 3)]),
    ("ij->i", [(2, 3)]),
    ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]),
    ("bij->bji", [(4, 2, 3)]),
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("i,i->", [(3,), (3,)]),
    ("i,j->ij", [(2,), (3,)]),
    ("ij,ij->ij", [(2, 3), (2, 3)]),
    ("ij,j->i", [(2, 3), (3,)]),
]
GRAD_CHOICES = {1: [(True,)], 2: [(True, True), (True, False), (False, True)]}


@pytest.mark.parametrize(
    ("equation", "shapes", "grads", "change"),
    [
        (eq, shapes, grads, change)
        for eq, shapes in EINSUMS
        for grads in GRAD_CHOICES[len(shapes)]
        for change in range(len(shapes))
    ],
)
def test_einsum_keeps_only_the_operands_backward_needs(equation, shapes, grads, change):
    _assert_same_after_change(_shaped(*shapes), lambda lib, *xs: lib.einsum(equation, *xs), grads, change)


@pytest.mark.parametrize("grads", [(True, True), (True, False), (False, True)])
@pytest.mark.parametrize("change", [0, 1])
@pytest.mark.parametrize("op", ["mul", "div", "matmul 2-d"])
def test_a_product_keeps_a_factor_only_if_the_other_needs_a_gradient(op, change, grads):
    shapes = [(2, 3), (3, 4)] if op == "matmul 2-d" else [(2, 3), (2, 3)]
    forward = {
        "mul": lambda lib, a, b: a * b,
        "div": lambda lib, a, b: a / b,
        "matmul 2-d": lambda lib, a, b: a @ b,
    }[op]
    _assert_same_after_change(_shaped(*shapes), forward, grads, change)


MATMUL_SHAPES = [
    ((2, 3), (5, 3, 4)),
    ((3,), (5, 3, 4)),
    ((2, 3), (6, 5, 3, 4)),
    ((1, 2, 3), (5, 3, 4)),
    ((5, 2, 3), (3, 4)),
    ((5, 2, 3), (3,)),
    ((5, 2, 3), (5, 3, 4)),
    ((6, 5, 2, 3), (5, 3, 4)),
    ((5, 2, 3), (1, 3, 4)),
    ((1, 2, 3), (1, 3, 4)),
    ((6, 1, 2, 3), (5, 3, 4)),
    ((5, 2, 3), (1, 5, 3, 4)),
    ((1, 5, 2, 3), (6, 1, 3, 4)),
]


@pytest.mark.parametrize("grads", [(True, True), (True, False), (False, True)])
@pytest.mark.parametrize("change", [0, 1])
@pytest.mark.parametrize(("shape_a", "shape_b"), MATMUL_SHAPES, ids=str)
def test_batched_matmul_keeps_a_copy_where_torch_does(shape_a, shape_b, change, grads):
    """PyTorch's backward of a matrix times a stack (or of a stack broadcast over
    batch dims) holds a reshaped copy, which an in-place change does not touch."""
    _assert_same_after_change(_shaped(shape_a, shape_b), lambda lib, a, b: a @ b, grads, change)


def test_batched_matmul_copy_still_gives_second_derivatives():
    """The copy keeps its place in the graph: a second derivative through it is right."""
    results = []
    for lib in (torch, agv):
        rng = np.random.default_rng(1)
        a = lib.tensor(rng.standard_normal((2, 3)), requires_grad=True)
        b = lib.tensor(rng.standard_normal((5, 3, 4)), requires_grad=True)
        (grad_a,) = lib.autograd.grad(((a @ b) ** 2).sum(), a, create_graph=True)
        (g,) = lib.autograd.grad(grad_a.sum(), b)  # through the copy of b that backward kept
        results.append(g.detach().numpy())
    np.testing.assert_allclose(results[1], results[0], rtol=1e-5)
