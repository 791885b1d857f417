"""agv.Size: x.shape and x.size() as PyTorch gives them, printed as the tutorials print them.

With `import autogradviz as torch`, `print(x.size())` must print `torch.Size([4, 2])`,
and a Size must still be the tuple that code indexes, unpacks, compares and hashes.
"""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest

import autogradviz as agv

torch = pytest.importorskip("torch")

SHAPES = [(4, 2), (), (3,), (2, 0, 5), (1, 1, 1, 7)]


@pytest.mark.parametrize("shape", SHAPES)
def test_shape_and_size_print_as_torch(shape):
    x, xt = agv.zeros(shape), torch.zeros(shape)
    for ours, theirs in ((x.shape, xt.shape), (x.size(), xt.size())):
        assert type(ours) is agv.Size and isinstance(ours, tuple)
        assert repr(ours) == repr(theirs) and str(ours) == str(theirs)
        assert f"{ours}" == f"{theirs}"
        assert str([ours]) == str([theirs])
        assert ours == theirs == shape and hash(ours) == hash(theirs) == hash(shape)
        assert ours.numel() == theirs.numel() == x.numel()
        assert len(ours) == len(theirs) and list(ours) == list(theirs)


def test_tutorial_lines_print_what_pytorch_printed():
    x, xt = agv.ones(4, 2), torch.ones(4, 2)
    assert (
        f"Shape of tensor: {x.shape}"
        == f"Shape of tensor: {xt.shape}"
        == "Shape of tensor: torch.Size([4, 2])"
    )
    assert str(agv.zeros(()).size()) == "torch.Size([])"
    assert x.size(0) == 4 and x.size(-1) == 2 and type(x.size(1)) is int


def test_indexing_slicing_and_arithmetic_keep_pytorchs_types():
    s, st = agv.Size([4, 2, 3]), torch.Size([4, 2, 3])
    for make in (
        lambda s: s[0],
        lambda s: s[-1],
        lambda s: s[1:],
        lambda s: s[::-1],
        lambda s: s + (5,),
        lambda s: (5,) + s,
        lambda s: s * 2,
        lambda s: 2 * s,
        lambda s: s.count(2),
        lambda s: s.index(3),
    ):
        ours, theirs = make(s), make(st)
        assert ours == theirs and repr(ours) == repr(theirs)
        assert type(ours).__name__ == type(theirs).__name__  # int, or Size
    assert (s == [4, 2, 3]) is (st == [4, 2, 3]) is False  # a list is not a tuple, in both
    a, b, c = s
    assert (a, b, c) == (4, 2, 3)


def test_a_size_is_made_from_ints_only_as_in_torch():
    assert agv.Size() == () and agv.Size((2, 3)) == (2, 3) and agv.Size(agv.tensor([2, 3])) == (2, 3)
    assert agv.Size([np.int64(2)]) == (2,) and type(agv.Size([np.int64(2)])[0]) is int
    with pytest.raises(TypeError) as theirs:
        torch.Size([1.5])
    with pytest.raises(TypeError) as ours:
        agv.Size([1.5])
    assert (
        str(ours.value) == str(theirs.value) == "torch.Size() takes an iterable of 'int' (item 0 is 'float')"
    )


def test_sizes_go_back_into_the_functions_that_take_shapes():
    x = agv.arange(6.0).reshape(2, 3)
    y = agv.zeros(3, 2)
    assert x.view(y.size()).shape == (3, 2) and x.reshape(y.shape).shape == (3, 2)
    assert agv.zeros(x.size()).shape == (2, 3) and agv.ones(x.shape).shape == (2, 3)
    assert agv.zeros(x.shape[1:]).shape == (3,) and np.zeros(x.shape).shape == (2, 3)
    assert x.expand(agv.Size([4, 2, 3])).shape == (4, 2, 3)


def test_sizes_serialise_as_tuples():
    s = agv.zeros(2, 3).shape
    assert json.dumps(s) == "[2, 3]"
    back = pickle.loads(pickle.dumps(s))
    assert back == (2, 3) and type(back) is tuple  # agv.load reads plain tuples


def test_size_dim_errors_are_pytorchs():
    for shape, dim in (((2, 3), 2), ((2, 3), -3), ((), 0), ((), -1)):
        with pytest.raises(IndexError) as theirs:
            torch.zeros(shape).size(dim)
        with pytest.raises(IndexError) as ours:
            agv.zeros(shape).size(dim)
        assert str(ours.value) == str(theirs.value)


def test_errors_inside_the_engine_still_print_shapes_as_tuples():
    # internal messages read numpy's shapes: "(2, 3)", not "torch.Size([2, 3])"
    with pytest.raises(RuntimeError, match=r"got shape \(2, 3\)"):
        agv.nn.functional.linear(agv.ones(2, 3), agv.ones(4, 5))
