"""The PyTorch surface that course notebooks use and autogradviz lacked (issue 28), each
checked against PyTorch itself: values, dtypes, gradients (and finite differences through
agv.gradcheck), the grad_fn names PyTorch records, and errors (class and message start).
The ops' plain value and gradient cases are in tests/_op_cases.py, which
test_ops_vs_torch.py and test_ops_gradcheck.py walk; this file holds the rest."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import autogradviz as agv

LIBRARIES = (agv, torch)


def _message_start(fn, m):
    """(exception class name, message) of what fn(m) raises."""
    with pytest.raises(Exception) as caught:
        fn(m)
    return type(caught.value).__name__, str(caught.value)


def assert_raises_like_torch(fn, length: int | None = None):
    """Both libraries raise the same class, and our message starts with PyTorch's (its first
    `length` characters, when ours adds a hint after PyTorch's sentence)."""
    ours, theirs = _message_start(fn, agv), _message_start(fn, torch)
    assert ours[0] == theirs[0], f"agv raised {ours}, torch {theirs}"
    expected = theirs[1] if length is None else theirs[1][:length]
    assert ours[1].startswith(expected), f"\nagv:   {ours[1]}\ntorch: {theirs[1]}"


def grad_fn_names(result) -> list:
    pieces = result if isinstance(result, tuple) else (result,)
    return [None if p.grad_fn is None else type(p.grad_fn).__name__ for p in pieces]


def _x(m, shape=(4, 6), requires_grad=True):
    values = np.arange(np.prod(shape), dtype=np.float64).reshape(shape) / 10
    return m.tensor(values, requires_grad=requires_grad)


def _as_lists(result):
    pieces = result if isinstance(result, tuple) else (result,)
    return [(tuple(p.shape), str(p.dtype).split(".")[-1], p.detach().tolist()) for p in pieces]


# 1. narrow, select, split, chunk, unbind ---------------------------------------------------
PARTS = {
    "narrow": lambda m, x: m.narrow(x, 1, 2, 3),
    "narrow-method-negative-start": lambda m, x: x.narrow(0, -3, 2),
    "narrow-full": lambda m, x: x.narrow(0, -4, 4),
    "narrow-empty": lambda m, x: x.narrow(0, 4, 0),
    "narrow-tensor-start": lambda m, x: x.narrow(1, m.tensor(1), 2),
    "select": lambda m, x: m.select(x, 0, 2),
    "select-method-negative": lambda m, x: x.select(-1, -2),
    "split-int": lambda m, x: m.split(x, 4, 1),
    "split-int-method": lambda m, x: x.split(3),
    "split-larger-than-dim": lambda m, x: x.split(10),
    "split-keyword": lambda m, x: m.split(x, split_size_or_sections=2, dim=1),
    "split-sizes": lambda m, x: m.split(x, [1, 3]),
    "split-sizes-tuple-with-zero": lambda m, x: x.split((0, 2, 4), 1),
    "chunk": lambda m, x: m.chunk(x, 4, 1),
    "chunk-more-than-size": lambda m, x: x.chunk(10),
    "chunk-uneven": lambda m, x: x.chunk(4, -1),
    "unbind": lambda m, x: m.unbind(x),
    "unbind-dim1": lambda m, x: x.unbind(1),
    "unbind-vector": lambda m, x: x[0].unbind(),
}


@pytest.mark.parametrize("name", PARTS)
def test_parts_match_torch_in_values_dtypes_and_grad_fn_names(name):
    fn = PARTS[name]
    ours, theirs = fn(agv, _x(agv)), fn(torch, _x(torch))
    assert isinstance(ours, tuple) == isinstance(theirs, tuple)  # a tuple of pieces, or one part
    assert _as_lists(ours) == _as_lists(theirs)
    assert grad_fn_names(ours) == grad_fn_names(theirs)


@pytest.mark.parametrize("name", PARTS)
def test_parts_are_views_sharing_memory(name):
    """Writing into the base (under no_grad) shows in every part, as in PyTorch."""
    results = {}
    for m in LIBRARIES:
        x = _x(m, requires_grad=False)
        parts = PARTS[name](m, x)
        x.mul_(-1)
        results[m] = _as_lists(parts)
        for p in parts if isinstance(parts, tuple) else (parts,):
            if p.numel():
                if m is torch:
                    assert p.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
                else:
                    assert np.shares_memory(p._data, x._data)
    assert results[agv] == results[torch]


@pytest.mark.parametrize("name", PARTS)
def test_parts_gradients_match_torch_and_finite_differences(name):
    fn = PARTS[name]
    grads = {}
    for m in LIBRARIES:
        x = _x(m)
        parts = fn(m, x)
        pieces = parts if isinstance(parts, tuple) else (parts,)
        loss = sum(((p * (i + 1)) ** 2).sum() for i, p in enumerate(pieces))
        if isinstance(loss, int):  # no piece at all (an empty unbind)
            continue
        loss.backward()
        grads[m] = x.grad.tolist()
    if grads:
        np.testing.assert_allclose(grads[agv], grads[torch], rtol=1e-12)
    x = _x(agv)
    assert agv.gradcheck(lambda x: fn(agv, x), (x,))


def test_writing_into_a_piece_of_the_base_changes_the_base():
    x = agv.zeros(3, 2)
    x.unbind()[1].add_(5)
    x.split(1)[2].fill_(7)
    x.narrow(1, 0, 1).mul_(2)
    expected = torch.zeros(3, 2)
    expected.unbind()[1].add_(5)
    expected.split(1)[2].fill_(7)
    expected.narrow(1, 0, 1).mul_(2)
    assert x.tolist() == expected.tolist()


IN_PLACE_ON_PIECES = {
    "unbind": lambda m, y: y.unbind()[1].add_(5),
    "split": lambda m, y: y.split(1)[0].mul_(2),
    "chunk": lambda m, y: y.chunk(3)[2].zero_(),
    "view-of-a-piece": lambda m, y: y.unbind()[0][0].add_(1),
}


@pytest.mark.parametrize("name", IN_PLACE_ON_PIECES)
def test_in_place_change_of_a_recorded_piece_raises_like_torch(name):
    def fn(m):
        y = m.zeros(3, 2, requires_grad=True) * 1
        IN_PLACE_ON_PIECES[name](m, y)

    assert_raises_like_torch(fn)


def test_index_assignment_into_a_recorded_piece_raises_like_torch():
    # PyTorch's message names the Select its indexing made, ours the piece itself: compared from
    # the word after the node's name on
    for m in LIBRARIES:
        y = m.zeros(3, 2, requires_grad=True) * 1
        with pytest.raises(
            RuntimeError, match="is a view and is being modified inplace. This view is the output"
        ):
            y.split([1, 2])[1][0] = 3.0


def test_narrow_in_place_on_a_recorded_tensor_is_allowed_as_in_torch():
    grads = {}
    for m in LIBRARIES:
        x = m.ones(3, 2, requires_grad=True)
        y = x * 2
        y.narrow(0, 1, 1).mul_(3)
        y.sum().backward()
        grads[m] = x.grad.tolist()
    assert grads[agv] == grads[torch]


PART_ERRORS = {
    "narrow-dim": lambda m: _x(m).narrow(2, 0, 1),
    "narrow-too-long": lambda m: _x(m).narrow(0, 3, 2),
    "narrow-start": lambda m: _x(m).narrow(0, 5, 0),
    "narrow-negative-start": lambda m: _x(m).narrow(0, -5, 0),
    "narrow-length": lambda m: _x(m).narrow(0, 0, -1),
    "narrow-0-d": lambda m: m.tensor(1.0).narrow(0, 0, 1),
    "narrow-float": lambda m: _x(m).narrow(0, 1.0, 2),
    "select-index": lambda m: _x(m).select(0, 4),
    "select-negative-index": lambda m: _x(m).select(-1, -7),
    "select-dim": lambda m: _x(m).select(2, 0),
    "select-0-d": lambda m: m.tensor(1.0).select(0, 0),
    "select-float": lambda m: _x(m).select(0, 1.0),
    "split-zero": lambda m: _x(m).split(0),
    "split-negative": lambda m: _x(m).split(-1),
    "split-0-d": lambda m: m.tensor(1.0).split(1),
    "split-dim": lambda m: _x(m).split(2, 5),
    "split-float": lambda m: _x(m).split(2.0),
    "split-sizes-sum": lambda m: _x(m).split([2, 3]),
    "split-sizes-sum-negative-dim": lambda m: _x(m).split([1, 2], -1),
    "split-sizes-negative": lambda m: _x(m).split([5, -1]),
    "split-sizes-empty": lambda m: _x(m).split([]),
    "chunk-zero": lambda m: _x(m).chunk(0),
    "chunk-negative": lambda m: _x(m).chunk(-1),
    "chunk-0-d": lambda m: m.tensor(1.0).chunk(1),
    "chunk-dim": lambda m: _x(m).chunk(2, 5),
    "chunk-float": lambda m: _x(m).chunk(2.5),
    "unbind-dim": lambda m: _x(m).unbind(-3),
    "unbind-0-d": lambda m: m.tensor(1.0).unbind(),
}


@pytest.mark.parametrize("name", PART_ERRORS)
def test_part_errors_match_torch(name):
    # narrow with a float argument: PyTorch then lists its overloads; ours names the one signature
    assert_raises_like_torch(PART_ERRORS[name], length=80 if name == "narrow-float" else None)


def test_empty_dims_split_and_chunk_like_torch():
    for fn in (lambda t: t.split(0), lambda t: t.split(2), lambda t: t.chunk(3), lambda t: t.unbind()):
        assert [p.shape for p in fn(agv.zeros(0, 3))] == [agv.Size(p.shape) for p in fn(torch.zeros(0, 3))]


# 2. // and %, floor_divide, remainder, fmod -------------------------------------------------
SPECIAL = [7.0, -7.0, 5.5, -5.5, 0.0, -0.0, 1.0, 1e-300, 0.1, -2.5, float("inf"), float("-inf"), float("nan")]


@pytest.mark.parametrize("name", ["floor_divide", "remainder", "fmod"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_rounded_division_of_floats_matches_torch_bit_for_bit(name, dtype):
    """Every pair of special values: signs, signed zeros, x / 0, infinities, nan, and
    1 // 0.1 (9, not floor(1 / 0.1) = 10)."""
    a = np.repeat(SPECIAL, len(SPECIAL)).astype(dtype)
    b = np.tile(SPECIAL, len(SPECIAL)).astype(dtype)
    ours = getattr(agv, name)(agv.tensor(a), agv.tensor(b)).numpy()
    theirs = getattr(torch, name)(torch.tensor(a), torch.tensor(b)).numpy()
    assert ours.dtype == theirs.dtype
    np.testing.assert_array_equal(ours, theirs)  # nan where torch has nan
    assert (np.signbit(ours) == np.signbit(theirs))[~np.isnan(ours)].all()  # -0.0 where torch has -0.0


@pytest.mark.parametrize("name", ["floor_divide", "remainder", "fmod"])
def test_rounded_division_of_integers_matches_torch(name):
    a = np.repeat([7, -7, 3, -3, 0, 9, -9, 1], 8)
    b = np.tile([2, -2, 5, -5, 3, -4, 4, 1], 8)
    ours = getattr(agv, name)(agv.tensor(a), agv.tensor(b))
    theirs = getattr(torch, name)(torch.tensor(a), torch.tensor(b))
    assert (str(ours.dtype), ours.tolist()) == (str(theirs.dtype), theirs.tolist())


OPERATORS = {
    "int // int": lambda m: m.tensor([7, -7, 3]) // m.tensor([2, 2, -2]),
    "int // number": lambda m: m.tensor([7, -7, 3]) // 2,
    "int // float number": lambda m: m.tensor([7, -7, 3]) // 2.5,
    "number // int": lambda m: 7 // m.tensor([2, -2, 3]),
    "float // float": lambda m: m.tensor([7.5, -7.5]) // m.tensor([2.0, 2.0]),
    "int32 // int64": lambda m: m.tensor([7, -7], dtype=m.int32) // m.tensor([2, 2]),
    "uint8 // -1": lambda m: m.tensor([5], dtype=m.uint8) // -1,
    "int % int": lambda m: m.tensor([7, -7, 7, -7]) % m.tensor([2, 2, -2, -2]),
    "int % number": lambda m: m.tensor([7, -7, 3]) % -3,
    "int % float number": lambda m: m.tensor([7, -7, 3]) % 2.5,
    "number % int": lambda m: 7 % m.tensor([2, -2, 3]),
    "float % number": lambda m: m.tensor([7.5, -7.5]) % 2,
    "float32 % float64 0-d": lambda m: m.tensor([7.5, -7.5]) % m.tensor(2.0, dtype=m.float64),
    "method floor_divide": lambda m: m.tensor([7.0, -7.0]).floor_divide(2),
    "method remainder": lambda m: m.tensor([7.0, -7.0]).remainder(m.tensor([-2.0, 2.0])),
    "method fmod": lambda m: m.tensor([7.0, -7.0]).fmod(-2),
    "remainder number first": lambda m: m.remainder(7, m.tensor([2.0, -2.0])),
    "broadcast": lambda m: m.tensor([[7.0], [-7.0]]) % m.tensor([2.0, -3.0, 4.0]),
}


@pytest.mark.parametrize("name", OPERATORS)
def test_floordiv_and_mod_operators_match_torch(name):
    ours, theirs = OPERATORS[name](agv), OPERATORS[name](torch)
    assert (str(ours.dtype).split(".")[-1], ours.tolist()) == (
        str(theirs.dtype).split(".")[-1],
        theirs.tolist(),
    )


DIVISION_ERRORS = {
    "int // 0": lambda m: m.tensor([1, 2]) // 0,
    "int % 0": lambda m: m.tensor([1, 2]) % 0,
    "fmod int 0": lambda m: m.fmod(m.tensor([1, 2]), 0),
    "int // tensor with a 0": lambda m: m.tensor([1, 2]) // m.tensor([1, 0]),
    "number // int tensor with a 0": lambda m: 5 // m.tensor([0, 1]),
    "remainder int tensors": lambda m: m.remainder(m.tensor([3, 4]), m.tensor([0, 1])),
    "bool // bool": lambda m: m.tensor([True]) // m.tensor([True]),
    "bool % bool": lambda m: m.tensor([True]) % m.tensor([True]),
    "fmod bool": lambda m: m.fmod(m.tensor([True]), m.tensor([True])),
    "fmod number first": lambda m: m.fmod(5, m.tensor([1.0])),
    "shapes": lambda m: m.tensor([1.0, 2.0]) % m.tensor([1.0, 2.0, 3.0]),
}


@pytest.mark.parametrize("name", DIVISION_ERRORS)
def test_division_errors_match_torch(name):
    # fmod(5, t): PyTorch lists its overloads after this start; ours names them in one line
    assert_raises_like_torch(DIVISION_ERRORS[name], length=60 if name == "fmod number first" else None)


def test_float_division_by_zero_follows_ieee_like_torch():
    for m in LIBRARIES:
        x = m.tensor([1.0, -1.0, 0.0])
        assert (x // 0).tolist()[:2] == [float("inf"), float("-inf")]
        assert np.isnan((x % 0).tolist()).all() and np.isnan(m.fmod(x, 0.0).tolist()).all()


GRAD_FNS = {
    "a // b": lambda m, a, b: a // b,
    "a // 2": lambda m, a, b: a // 2,
    "7 // b": lambda m, a, b: 7 // b,
    "a % b": lambda m, a, b: a % b,
    "a % 2": lambda m, a, b: a % 2,
    "7 % b": lambda m, a, b: 7 % b,
    "remainder(7, b)": lambda m, a, b: m.remainder(7, b),
    "fmod(a, b)": lambda m, a, b: m.fmod(a, b),
    "fmod(a, 2)": lambda m, a, b: m.fmod(a, 2),
}


def _floats(m):
    a = m.tensor([7.0, -7.0, 7.0, -7.0, 5.5, 0.3], requires_grad=True)
    b = m.tensor([2.0, 2.0, -2.0, -2.0, 1.5, -0.7], requires_grad=True)
    return a, b


@pytest.mark.parametrize("name", GRAD_FNS)
def test_floordiv_and_mod_grad_fn_names_match_torch(name):
    names = [type(GRAD_FNS[name](m, *_floats(m)).grad_fn).__name__ for m in LIBRARIES]
    assert names[0] == names[1]


@pytest.mark.parametrize("name", ["a % b", "a % 2", "fmod(a, b)", "fmod(a, 2)"])
def test_remainder_and_fmod_gradients_match_torch_and_finite_differences(name):
    grads = {}
    for m in LIBRARIES:
        a, b = _floats(m)
        (GRAD_FNS[name](m, a, b) * m.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], dtype=m.float64)).sum().backward()
        grads[m] = (a.grad.tolist(), None if b.grad is None else b.grad.tolist())
    assert grads[agv] == grads[torch]
    a, b = (t.detach().double().requires_grad_() for t in _floats(agv))
    assert agv.gradcheck(lambda a, b: GRAD_FNS[name](agv, a, b), (a, b))


def test_remainder_gradient_uses_the_exact_floor_quotient():
    # 1 // 0.1 is 9 (fmod first), so the gradient in b is -9, where -floor(1 / 0.1) would be -10
    grads = []
    for m in LIBRARIES:
        b = m.tensor([0.1], dtype=m.float64, requires_grad=True)
        (m.tensor([1.0], dtype=m.float64) % b).sum().backward()
        grads.append(b.grad.tolist())
    assert grads[0] == grads[1] == [-9.0]


def test_remainder_double_backward_matches_torch():
    results = []
    for m in LIBRARIES:
        a, b = _floats(m)
        out = (a % b) * b
        (ga, gb) = (agv.grad if m is agv else torch.autograd.grad)(out.sum(), (a, b), create_graph=True)
        (second,) = (agv.grad if m is agv else torch.autograd.grad)((gb * b).sum(), (b,))
        results.append((ga.tolist(), gb.tolist(), second.tolist()))
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-6)


@pytest.mark.parametrize("name", ["a // b", "a // 2", "7 // b", "7 % b", "remainder(7, b)"])
def test_backward_through_an_op_without_derivative_raises_like_torch_and_loses_nothing(name):
    for m in LIBRARIES:
        a, b = _floats(m)
        a.grad, b.grad = m.ones(6, dtype=a.dtype), None
        out = GRAD_FNS[name](m, a, b)
        assert out.requires_grad
        with pytest.raises(RuntimeError) as caught:
            (out.sum() + (a * 2).sum()).backward()
        aten = "floor_divide" if "//" in name else "remainder"
        assert str(caught.value).startswith(f"derivative for aten::{aten} is not implemented")
        if m is agv:  # nothing lost: the leaves' grads are as they were
            assert a.grad.tolist() == [1.0] * 6 and b.grad is None


ROUNDED_DIVS = {
    "floor": lambda m: m.tensor([7.0, -7.0, 1.0]).div(m.tensor([2.0, 2.0, 0.1]), rounding_mode="floor"),
    "trunc": lambda m: m.div(m.tensor([7.0, -7.0, 1.0]), 2, rounding_mode="trunc"),
    "int floor": lambda m: m.tensor([7, -7]).div(2, rounding_mode="floor"),
    "int trunc": lambda m: m.tensor([7, -7]).div(m.tensor([2, -2]), rounding_mode="trunc"),
}


@pytest.mark.parametrize("name", ROUNDED_DIVS)
def test_div_with_rounding_mode_matches_torch(name):
    ours, theirs = ROUNDED_DIVS[name](agv), ROUNDED_DIVS[name](torch)
    assert (str(ours.dtype).split(".")[-1], ours.tolist()) == (
        str(theirs.dtype).split(".")[-1],
        theirs.tolist(),
    )


def test_div_with_rounding_mode_records_a_zero_gradient_like_torch():
    grads = []
    for m in LIBRARIES:
        a, b = _floats(m)
        out = a.div(b, rounding_mode="floor")
        out.sum().backward()
        grads.append((type(out.grad_fn).__name__, a.grad.tolist(), b.grad.tolist()))
    assert grads[0] == grads[1] == ("DivBackward2", [0.0] * 6, [0.0] * 6)


@pytest.mark.parametrize(
    "fn",
    [
        lambda m: m.tensor([1.0]).div(2, rounding_mode="round"),
        lambda m: m.tensor([True]).div(m.tensor([True]), rounding_mode="trunc"),
        lambda m: m.tensor([1]).div(0, rounding_mode="trunc"),
    ],
)
def test_div_with_rounding_mode_errors_match_torch(fn):
    assert_raises_like_torch(fn)


# 3. isinf, isfinite, isnan, flip ----------------------------------------------------------------
@pytest.mark.parametrize("name", ["isinf", "isfinite", "isnan"])
@pytest.mark.parametrize(
    "values",
    [[1.0, float("inf"), float("-inf"), float("nan"), -0.0], [[1, -2], [3, 0]], [True, False], 2.5],
)
def test_isinf_isfinite_isnan_match_torch(name, values):
    for dtype in (None, "float32") if isinstance(values, list) and isinstance(values[0], float) else (None,):
        ours = getattr(agv, name)(agv.tensor(values, dtype=getattr(agv, dtype) if dtype else None))
        theirs = getattr(torch.tensor(values, dtype=getattr(torch, dtype) if dtype else None), name)()
        assert (str(ours.dtype), ours.tolist(), ours.requires_grad) == (
            str(theirs.dtype),
            theirs.tolist(),
            theirs.requires_grad,
        )


FLIPS = {
    "function both dims": lambda m, x: m.flip(x, [0, 1]),
    "function tuple": lambda m, x: m.flip(x, (1,)),
    "method ints": lambda m, x: x.flip(-1, 0),
    "method list": lambda m, x: x.flip([2]),
    "no dims": lambda m, x: m.flip(x, []),
    "0-d": lambda m, x: x.sum().flip(0),
}


def _cube(m):
    return m.tensor(np.arange(24.0).reshape(2, 3, 4) / 7, requires_grad=True)


@pytest.mark.parametrize("name", FLIPS)
def test_flip_matches_torch_in_values_grad_fn_and_gradients(name):
    results = []
    for m in LIBRARIES:
        x = _cube(m)
        out = FLIPS[name](m, x)
        (out * m.arange(out.numel(), dtype=m.float64).reshape(out.shape)).sum().backward()
        results.append((_as_lists(out), type(out.grad_fn).__name__, x.grad.tolist()))
    assert results[0] == results[1]
    assert agv.gradcheck(lambda x: FLIPS[name](agv, x), (_cube(agv),))


def test_flip_is_a_copy_as_in_torch():
    for m in LIBRARIES:
        x = m.zeros(3)
        y = x.flip(0)
        x.add_(1)
        assert y.tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize(
    "fn",
    [
        lambda m: _cube(m).flip(3),
        lambda m: _cube(m).flip(0, 0),
        lambda m: _cube(m).flip(0, -3),
        lambda m: m.flip(_cube(m), 0),
        lambda m: _cube(m).flip([1.0]),
    ],
)
def test_flip_errors_match_torch(fn):
    assert_raises_like_torch(fn)
