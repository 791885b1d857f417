"""Divergences the fuzzer found in the ops, fixed: each against torch."""

from __future__ import annotations

import numpy as np
import pytest

import autogradviz as agv

torch = pytest.importorskip("torch")


def _raises(call, lib):
    try:
        call(lib)
    except Exception as error:  # noqa: BLE001 - which class is the point
        return type(error), str(error)
    return None


@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.tensor(1.0).transpose(0, 1),
        lambda lib: lib.tensor(1.0).softmax(2),
        lambda lib: lib.tensor(1.0).log_softmax(-2),
        lambda lib: lib.tensor(1.0).max(1),
        lambda lib: lib.tensor(1.0).min(3),
    ],
)
def test_a_0d_tensor_accepts_only_dims_0_and_minus_1(call):
    ours, theirs = _raises(call, agv), _raises(call, torch)
    assert ours[0] is theirs[0] is IndexError
    assert ours[1].startswith("Dimension out of range (expected to be in range of [-1, 0], but got")
    assert agv.tensor(1.0).transpose(0, -1).item() == 1.0 and agv.tensor(2.0).max(-1).values.item() == 2.0


def test_integer_softmax_checks_the_dim_first_and_passes_size_0_through():
    assert _raises(lambda lib: lib.tensor([1, 2]).log_softmax(dim=3), agv)[0] is IndexError
    assert _raises(lambda lib: lib.tensor([1, 2]).log_softmax(dim=3), torch)[0] is IndexError
    for dtype in ("int64", "bool"):
        ours = agv.zeros((0, 2), dtype=getattr(agv, dtype)).log_softmax(1)
        theirs = torch.zeros((0, 2), dtype=getattr(torch, dtype)).log_softmax(1)
        assert (
            ours.shape == tuple(theirs.shape)
            and repr(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]
        )


def test_a_list_index_on_a_tensor_with_no_elements_is_empty_as_in_torch():
    shapes = []
    for lib in (agv, torch):
        x = lib.zeros((0, 2), dtype=lib.float64, requires_grad=True)
        y = x[:, [5, 1]]
        y.sum().backward()
        shapes.append((tuple(y.shape), tuple(x.grad.shape), np.asarray(x.grad).size))
    assert shapes[0] == shapes[1] == ((0, 2), (0, 2), 0)
    # a dim of size 0 is still checked
    assert (
        _raises(lambda lib: lib.zeros((0, 2))[[5]], agv)[0]
        is _raises(lambda lib: lib.zeros((0, 2))[[5]], torch)[0]
    )
    assert _raises(lambda lib: lib.tensor(0.0)[1], agv)[0] is IndexError


@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.tensor([1.0]).sub_(lib.tensor([True])),
        lambda lib: lib.tensor([1.0]).sub_(True),
        lambda lib: lib.tensor([True]).sub_(lib.tensor([False])),
        lambda lib: lib.tensor([1.0], requires_grad=True).sub_(True),
    ],
)
def test_in_place_subtraction_with_a_bool_raises_as_torch(call):
    ours, theirs = _raises(call, agv), _raises(call, torch)
    assert ours[0] is theirs[0] is RuntimeError
    assert ours[1].split(".")[0] in theirs[1] or "leaf Variable" in theirs[1]


def test_a_refused_in_place_subtraction_writes_nothing():
    x = agv.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError):
        x -= agv.tensor([True, False])
    assert x.tolist() == [1.0, 2.0] and x.version == 0
