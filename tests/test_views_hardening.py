"""Views and in-place ops, against PyTorch: no silent wrong gradient.

Each program runs on both libraries (`lib` is autogradviz or torch; the code is
the same) and returns its leaves; their gradients must agree. The programs take
a view, change the base (or the view) in place afterwards, then use the base,
the view, or both.
"""

from __future__ import annotations

import numpy as np
import pytest

import autogradviz as agv

torch = pytest.importorskip("torch")


def _leaves(lib):
    w = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    p = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
    return w, p


def issue_case(lib):
    """The case from the issue: a view of a plain tensor, the base changed later."""
    w, p = _leaves(lib)
    x = lib.zeros(3)
    v = x[:2]
    x.add_(w)
    (v * 2).sum().backward()
    return w, p


def base_and_view_add(lib):
    w, p = _leaves(lib)
    x = lib.zeros(3)
    v = x[:2]
    x.add_(w)
    (x.sum() + (v * 3).sum()).backward()
    return w, p


def base_and_view_mul(lib):
    w, p = _leaves(lib)
    a = p * 1
    v = a[1:]
    a.mul_(w)
    (a * a).sum().backward(retain_graph=True)
    (v * v).sum().backward()
    return w, p


def base_and_view_copy(lib):
    w, p = _leaves(lib)
    x = lib.zeros(3)
    v = x[1:]
    x.copy_(w * p)
    (x.sum() + (v * v).sum()).backward()
    return w, p


def base_and_view_setitem(lib):
    w, p = _leaves(lib)
    x = lib.zeros(3)
    v = x[:2]
    x[...] = w.exp()
    (v.sum() * 2 + x.sum()).backward()
    return w, p


def base_and_view_partial_setitem(lib):
    w, p = _leaves(lib)
    x = p * 1
    v = x[1:]
    x[0] = w[2]
    x[2] = w[0] * 3
    (v * x[1:]).sum().backward()
    return w, p


def change_through_the_view(lib):
    w, p = _leaves(lib)
    x = lib.zeros(3)
    v = x[:2]
    v.add_(w[:2] * p[1:])
    (x.sum() * 2 + v.sum()).backward()
    return w, p


def transposed_view(lib):
    w = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    p = lib.tensor([[0.5, -1.0], [2.0, 1.0], [3.0, -2.0]], requires_grad=True)
    x = lib.zeros(2, 3)
    v = x.t()
    x.add_(w)
    ((v * p).sum() + x.pow(2).sum()).backward()
    return w, p


def view_of_a_view(lib):
    w, p = _leaves(lib)
    x = lib.ones(4) * 1
    v = x[1:]
    u = v[:2]
    x[:3].mul_(w)
    (u * p[:2]).sum().backward()
    return w, p


def base_changed_twice(lib):
    w, p = _leaves(lib)
    x = lib.zeros(3)
    v = x[:2]
    x.add_(w)
    x.mul_(p)
    (v.sum() + x.sum()).backward()
    return w, p


PROGRAMS = [
    issue_case,
    base_and_view_add,
    base_and_view_mul,
    base_and_view_copy,
    base_and_view_setitem,
    base_and_view_partial_setitem,
    change_through_the_view,
    transposed_view,
    view_of_a_view,
    base_changed_twice,
]


def _grad(t):
    return (
        None
        if t.grad is None
        else np.asarray(t.grad.detach().numpy() if hasattr(t.grad, "detach") else t.grad)
    )


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda f: f.__name__)
def test_views_after_in_place_changes_match_torch(program):
    ours = [_grad(t) for t in program(agv)]
    theirs = [None if t.grad is None else t.grad.numpy() for t in program(torch)]
    assert [g is None for g in ours] == [g is None for g in theirs], (ours, theirs)
    for a, b in zip(ours, theirs):
        if b is not None:
            np.testing.assert_allclose(a, b, rtol=1e-6)


def test_the_issue_case_gives_the_view_a_history():
    w = agv.ones(3, requires_grad=True)
    x = agv.zeros(3)
    v = x[:2]
    assert (v.requires_grad, v.is_leaf, v.grad_fn) == (False, True, None)
    x.add_(w)
    # read before any op uses v: the attributes bring the view up to date themselves
    assert v.requires_grad is True and v.is_leaf is False
    assert v.grad_fn is not None and v.grad_fn.next_functions[0][0] is x.grad_fn
    (v * 2).sum().backward()
    assert w.grad.tolist() == [2.0, 2.0, 0.0]


# -- x[idx] = v, in-place ops whose output is saved, fill_ and copy_ ----------------------


def setitem_repeated_rows(lib):
    v = lib.ones(1, 3, requires_grad=True)
    x = lib.zeros(1, 3)
    x[[0, 0]] = v
    (x * lib.tensor([[1.0, 2.0, 3.0]])).sum().backward()
    return (v,)


def setitem_repeated_broadcast(lib):
    v = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x = lib.zeros(2, 3)
    x[[0, 0, 1]] = v * 2
    (x * lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])).sum().backward()
    return (v,)


def setitem_row_of_a_matrix(lib):
    v = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x = lib.zeros(2, 3)
    x[1] = v
    (x * x).sum().backward()
    return (v,)


@pytest.mark.parametrize(
    "program",
    [setitem_repeated_rows, setitem_repeated_broadcast, setitem_row_of_a_matrix],
    ids=lambda f: f.__name__,
)
def test_setitem_gradients_have_the_values_shape(program):
    (ours,), (theirs,) = program(agv), program(torch)
    assert ours.grad.shape == tuple(theirs.grad.shape)
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy())


def _error_or_grad(lib, build):
    w = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
    try:
        build(lib, w).backward()
    except RuntimeError as error:
        return type(error), str(error)
    return w.grad.numpy().tolist()


def relu_inplace_then_mul_(lib, w):
    y = w * 1
    (agv.nn.functional if lib is agv else torch.nn.functional).relu(y, inplace=True)
    y.mul_(2)
    return y.sum()


def relu_inplace_on_a_view_then_base_add_(lib, w):
    y = w * 1
    (agv.nn.functional if lib is agv else torch.nn.functional).relu(y[:2], inplace=True)
    y.add_(1)
    return y.sum()


def relu_inplace_used_twice(lib, w):
    y = w * 1
    (agv.nn.functional if lib is agv else torch.nn.functional).relu(y, inplace=True)
    return (y * y).sum()


@pytest.mark.parametrize(
    "build",
    [relu_inplace_then_mul_, relu_inplace_on_a_view_then_base_add_, relu_inplace_used_twice],
    ids=lambda f: f.__name__,
)
def test_in_place_op_whose_output_is_saved(build):
    ours, theirs = _error_or_grad(agv, build), _error_or_grad(torch, build)
    if isinstance(theirs, list):
        assert ours == theirs
        return
    assert ours[0] is theirs[0] is RuntimeError
    assert "saved by ReluBackward0 is at version 2; expected version 1 instead" in ours[1]


@pytest.mark.parametrize("op", ["fill_", "zero_", "copy_"])
def test_overwritten_values_get_zeros_under_an_inf_upstream(op):
    results = []
    for lib in (agv, torch):
        w = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = w * 1
        if op == "fill_":
            y.fill_(3.0)
        elif op == "zero_":
            y.zero_()
        else:
            y.copy_(lib.tensor([4.0, 5.0, 6.0]))
        y.backward(lib.tensor([float("inf"), float("nan"), 1.0]))
        results.append(w.grad.numpy().tolist())
    assert results[0] == results[1] == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("value", [float("inf"), float("-inf"), float("nan"), 2.0**64])
def test_int_fill_with_a_value_int64_cannot_hold_raises_as_torch(value):
    with pytest.raises(RuntimeError) as theirs:
        torch.zeros(3, dtype=torch.int64).fill_(value)
    x = agv.zeros(3, dtype=agv.int64)
    with pytest.raises(RuntimeError) as ours:
        x.fill_(value)
    assert str(theirs.value) in str(ours.value)
    assert str(ours.value) == (
        f"fill_: value cannot be converted to type int64_t without overflow: {value} (the tensor is torch.int64)"
    )
    assert x.tolist() == [0, 0, 0] and x.version == 0  # nothing written


@pytest.mark.parametrize("value", [2.7, -3, True])
def test_int_fill_with_a_value_it_can_hold_truncates_as_torch(value):
    theirs = torch.zeros(3, dtype=torch.int64).fill_(value).tolist()
    assert agv.zeros(3, dtype=agv.int64).fill_(value).tolist() == theirs


def value_with_leading_ones(lib):
    v = lib.tensor([[5.0]], requires_grad=True)
    x = lib.zeros(3)
    x[1] = v
    (x * lib.tensor([1.0, 3.0, 2.0])).sum().backward()
    return x.detach(), v.grad


def row_with_leading_ones(lib):
    v = lib.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    x = lib.zeros(2, 3)
    x[1] = v
    (x * x).sum().backward()
    return x.detach(), v.grad


@pytest.mark.parametrize(
    "program", [value_with_leading_ones, row_with_leading_ones], ids=lambda f: f.__name__
)
def test_setitem_drops_a_values_leading_ones_as_torch(program):
    (x, g), (tx, tg) = program(agv), program(torch)
    np.testing.assert_array_equal(x.numpy(), tx.numpy())
    assert g.shape == tuple(tg.shape)
    np.testing.assert_array_equal(g.numpy(), tg.numpy())


def test_x0_equals_a_one_element_tensor():
    x = agv.zeros(3)
    x[0] = agv.tensor([5.0])
    assert x.tolist() == [5.0, 0.0, 0.0]


@pytest.mark.parametrize("value_shape", [(2, 2), (3, 1), (1, 3), (3,), ()])
def test_mask_assignment_broadcasts_or_raises_as_torch(value_shape):
    results = []
    for lib in (agv, torch):
        x = lib.tensor([1.0, -1.0, 2.0, 3.0], dtype=lib.float64) * 1
        v = lib.tensor(np.arange(1.0, 1.0 + np.prod(value_shape)).reshape(value_shape), requires_grad=True)
        try:
            x[x > 0] = v
        except RuntimeError as error:
            results.append(("raised", "shape mismatch" in str(error)))
            continue
        (x * lib.tensor([1.0, 2.0, 3.0, 4.0], dtype=lib.float64)).sum().backward()
        results.append((x.detach().numpy().tolist(), v.grad.numpy().tolist()))
    assert results[0] == results[1]


INDEX_PUTS = [
    lambda lib: lib.tensor([0, 1]).__setitem__([0], lib.tensor(2.0, dtype=lib.float64)),
    lambda lib: lib.tensor([0.0, 1.0]).__setitem__(lib.tensor([True, False]), lib.tensor(2, dtype=lib.int64)),
    lambda lib: lib.tensor([0.0, 1.0, 2.0]).__setitem__(
        lib.tensor([True, False, True]), lib.tensor([2, 3], dtype=lib.int64)
    ),
    lambda lib: lib.tensor([0.0, 1.0]).__setitem__(0, lib.tensor(2, dtype=lib.int64)),
    lambda lib: lib.tensor([0.0, 1.0]).__setitem__([1], 3),
    lambda lib: lib.zeros(2, 3).__setitem__((0, [1]), lib.tensor([1.0], dtype=lib.float64)),
]


@pytest.mark.parametrize("call", INDEX_PUTS)
def test_index_put_dtypes_as_torch(call):
    outcomes = []
    for lib in (agv, torch):
        try:
            call(lib)
            outcomes.append(None)
        except RuntimeError as error:
            outcomes.append(str(error))
    assert (outcomes[0] is None) == (outcomes[1] is None)
    if outcomes[1] is not None:
        assert outcomes[1] in outcomes[0]  # torch's sentence, inside ours
        assert outcomes[0].startswith("x[index] = value: Index put requires the source and destination")
