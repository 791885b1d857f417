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
