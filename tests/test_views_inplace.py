"""Views, in-place ops through them, and what indexing saves: each test runs
the same code on autogradviz and on torch and compares values, gradients,
version counters and error classes/phrases."""

from __future__ import annotations

import numpy as np
import pytest

import autogradviz as agv
from autogradviz.core.views import refresh_if_stale as refresh_view

torch = pytest.importorskip("torch")

from _parity import grad, raises_alike, same  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def matrix(m):
    return m.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)


# -- 1. in-place ops through a view of a non-leaf -----------------------------------------

VIEW_IDIOMS = {
    "h[0] += 10": lambda m, x, h: h.__setitem__(0, h[0].__iadd__(10)),
    "h[1] *= x[0]": lambda m, x, h: h.__setitem__(1, h[1].__imul__(x[0])),
    "h.t().mul_(2)": lambda m, x, h: h.t().mul_(2),
    "h[:, 1].zero_()": lambda m, x, h: h[:, 1].zero_(),
    "h.view(3, 2).add_(1)": lambda m, x, h: h.view(3, 2).add_(1),
    "h.view(-1)[1:4].mul_(x[1])": lambda m, x, h: h.view(-1)[1:4].mul_(x[1]),
    "h[1].pow_(2)": lambda m, x, h: h[1].pow_(2),  # pow_ saves the view's old value
    "h.T[0].sub_(x[:, 2])": lambda m, x, h: h.T[0].sub_(x[:, 2]),
    "h.unsqueeze(0)[0, :, 2].fill_(7)": lambda m, x, h: h.unsqueeze(0)[0, :, 2].fill_(7),
    "h.t()[0] = x[1]": lambda m, x, h: h.t().__setitem__(0, x[1] * 3),
    "h[0][[0, 2]] = 5": lambda m, x, h: h[0].__setitem__([0, 2], 5.0),
    "h.permute(1, 0).clamp_(2, 20)": lambda m, x, h: h.permute(1, 0).clamp_(2, 20),
    "h[1].copy_(x[0])": lambda m, x, h: h[1].copy_(x[0] * 2),
}


@pytest.mark.parametrize("idiom", list(VIEW_IDIOMS), ids=list(VIEW_IDIOMS))
def test_inplace_through_a_view_rebases_the_base(idiom):
    def fn(m):
        x = matrix(m)
        h = x * x
        VIEW_IDIOMS[idiom](m, x, h)
        (h * m.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])).sum().backward()
        return h, x.grad, h._version

    same(fn)


def test_the_base_of_a_view_changed_in_place_gets_copyslices():
    def fn(m):
        x = matrix(m)
        h = x * x
        v = h.t()
        v.mul_(2)
        return type(h.grad_fn).__name__, h.grad_fn.next_functions[0][0] is not None

    same(fn)


def test_an_element_of_a_vector_is_a_view_too():
    """numpy returns x[0] of a vector as a copied scalar; agv makes it a 0-d
    view, so that changing it in place changes the vector, as in PyTorch."""

    def fn(m):
        x = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        h = x * x
        h[0].add_(10)  # no setitem afterwards: the view alone must change h
        h[1].mul_(x[2])
        e = h[2]
        e.sub_(1)
        (h * m.tensor([1.0, 2.0, 3.0])).sum().backward(retain_graph=True)
        first = x.grad.clone()
        (e * 5).backward()
        return h, e, first, x.grad, h._version

    same(fn)


def test_the_view_itself_is_rebased_and_usable_afterwards():
    def fn(m):
        x = matrix(m)
        h = x * 2
        v = h[:, 1:]
        v.mul_(x[:, :2])
        w = v.t()
        w.add_(1)  # a view of a view: rebases h, v and w
        y = (w * w).sum() + (v * 3).sum() + (h * h).sum()
        y.backward()
        return h, v, w, x.grad, h._version, v._version, w._version

    same(fn)


def test_the_learners_probe_h0_plus_equals_and_transposed_mul():
    def fn(m):
        x = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        h = x * 2
        h[0] += 10
        k = (x * 1).reshape(1, 3)
        k.t().mul_(2)
        (h.sum() + k.sum()).backward()
        return h, k, x.grad, h._version, k._version

    same(fn)


def test_a_base_that_needs_no_grad_gets_a_history_from_the_value_written():
    def fn(m):
        x = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        h = m.zeros(2, 3)
        h[1, :2].add_(x[1:] * x[1:])
        h.t()[2].copy_(x[:2])
        (h * m.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])).sum().backward()
        return h, x.grad, h.requires_grad, h.is_leaf

    same(fn)


def test_grad_of_grad_through_an_inplace_view_op():
    def fn(m):
        x = m.tensor([0.5, 1.5, 2.0], requires_grad=True)
        h = x * x
        h[1:].mul_(x[:2])
        (g,) = grad(m)(h.sum(), x, create_graph=True)
        (gg,) = grad(m)(g.sum(), x)
        return g, gg

    same(fn)


def test_retain_grad_on_the_base_and_the_view_after_an_inplace_view_op():
    def fn(m):
        x = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        h = x * 2
        h.retain_grad()
        v = h[1:]
        v.retain_grad()
        v.mul_(3)
        (h * m.tensor([1.0, 2.0, 3.0])).sum().backward(retain_graph=True)
        first = h.grad.clone()
        (v * m.tensor([5.0, 7.0])).sum().backward()
        return first, h.grad, v.grad, x.grad

    same(fn)


def test_a_saved_view_changed_through_another_view_is_caught():
    def fn(m):
        x = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        h = x * 2
        y = h[1:].exp()  # saves its result
        h[1:].mul_(2)  # does not touch y's memory: fine
        y.sum().backward()
        e = h.exp()  # saves h
        h[0].add_(1)
        e.sum().backward()
        return x.grad

    same(fn)


def test_inplace_on_a_view_of_a_leaf_that_requires_grad_raises():
    def fn(m):
        x = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        x[0].add_(1)

    raises_alike(
        fn, RuntimeError, "a view of a leaf Variable that requires grad is being used in an in-place"
    )
    raises_alike(
        lambda m: m.ones(2, 2, requires_grad=True).t().mul_(2), RuntimeError, "a view of a leaf Variable"
    )

    def fn(m):
        x = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        x[0] = 5.0

    raises_alike(fn, RuntimeError, "leaf Variable that requires grad")

    def fine_under_no_grad(m):
        x = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        with m.no_grad():
            x[0].add_(1)
            x.t().mul_(2)
        return x, x._version, x.is_leaf

    same(fine_under_no_grad)


def test_inplace_on_an_expanded_view_raises_with_torchs_words():
    phrase = "more than one element of the written-to tensor refers to a single memory location"

    def recorded(m):
        x = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        (x * 2).expand(2, 3).add_(1)

    raises_alike(recorded, RuntimeError, phrase)
    raises_alike(lambda m: m.ones(3).expand(2, 3).mul_(2), RuntimeError, phrase)
    # writing into one row of an expanded tensor is allowed, as its elements don't
    # overlap: agv writes into the base's memory, as torch does
    rows = []
    for m in (agv, torch):
        base = m.ones(3)
        base.expand(2, 3)[0].mul_(2.0)
        rows.append(base.tolist())
    assert rows[0] == rows[1]


def test_version_counters_are_shared_by_the_base_and_its_views():
    def fn(m):
        h = matrix(m) * 1
        a, b = h[0], h.t()
        a.add_(1)
        b.mul_(2)
        h.sub_(1)
        with m.no_grad():
            b[0].zero_()
        return h._version, a._version, b._version, h

    same(fn)


def test_a_sibling_view_refreshed_sees_the_bases_new_history():
    """refresh_view rebuilds the grad_fn of a view whose base changed since."""

    def fn(m):
        x = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        h = x * 2
        v, w = h[0:2], h[1:]
        h.mul_(3)  # on the base itself
        v.mul_(x[:2])  # through another view
        if m is agv:
            refresh_view(w)
        (w * m.tensor([1.0, 10.0])).sum().backward()
        return x.grad, w

    same(fn)


def test_a_view_made_before_its_base_changed_in_place():
    def fn(m):
        x = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        h = x * 2
        v = h[0]
        h.mul_(3)
        (v * 1).backward()
        return x.grad

    same(fn)


# -- 2. view() never copies; reshape() copies when it must, and is then no view ---------


def test_view_of_a_non_contiguous_tensor_raises_and_reshape_copies():
    raises_alike(
        lambda m: m.ones(2, 3).t().view(-1),
        RuntimeError,
        r"view size is not compatible with input tensor's size and stride .* Use \.reshape\(\.\.\.\) instead",
    )
    raises_alike(lambda m: matrix(m).permute(1, 0).view(2, 3), RuntimeError, "view size is not compatible")

    def fn(m):
        x = matrix(m)
        r = x.t().reshape(-1)
        v = x.view(3, 2)
        s = x.t().view(3, 2)  # the transposed layout allows this one
        u = x[:, 1:].view(2, 2, 1)  # so does a slice of rows
        (r * m.arange(6.0)).sum().backward()
        return r, v, s, u, x.grad, r.grad_fn.name(), v.grad_fn.name()

    same(fn)


def test_a_reshape_that_copies_has_its_own_version_counter():
    def fn(m):
        x = m.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        h = x * 1
        z = h * h  # saves h
        r = h.t().reshape(-1)  # a copy
        with m.no_grad():
            r.mul_(2)  # h's version stays 0
        s = h.t().reshape(-1)
        s.mul_(3)  # recorded on the copy: not a view, so no CopySlices on h
        (z.sum() + s.sum()).backward()
        return x.grad, h, r, h._version, r._version, s._version, type(s.grad_fn).__name__

    same(fn)
    h = agv.ones(2, 3) * 1
    assert h.t().reshape(-1)._extra("base") is None
    assert h.reshape(-1)._extra("base") is h


def test_a_reshape_that_does_not_copy_is_a_view():
    def fn(m):
        x = matrix(m)
        h = x * 1
        z = h * h
        h.reshape(3, 2).mul_(2)  # a view: bumps h's counter, so z's backward must fail
        z.sum().backward()

    same(fn)


# -- 3. retain_grad() follows the tensor to its new history ---------------------------------


def test_retain_grad_then_inplace_gives_the_new_values_gradient():
    def fn(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.retain_grad()
        y.mul_(3)
        y.sum().backward()
        h = x * 2
        h.retain_grad()
        h[0] = 0.0
        (h * 3).sum().backward()
        return y.grad, h.grad, x.grad

    same(fn)


def test_hooks_stay_on_the_old_value_and_retain_grad_moves():
    def fn(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        seen = []
        y.register_hook(lambda g: seen.append(g.tolist()) or g * 10)
        y.retain_grad()
        y.mul_(3)
        y.register_hook(lambda g: seen.append(("new", g.tolist())))
        (y * m.tensor([1.0, 2.0])).sum().backward()
        return seen, y.grad, x.grad, y.retains_grad

    same(fn)


# -- 4. indexing saves its index: version-checked, freed by backward -----------------------


def test_changing_an_index_tensor_in_place_is_caught():
    def getitem(m):
        x = m.tensor([1.0, -2.0, 3.0], requires_grad=True)
        idx = m.tensor([0, 1])
        y = x[idx].sum()
        idx.add_(1)
        y.backward()

    def mask(m):
        x = m.tensor([1.0, -2.0, 3.0], requires_grad=True)
        keep = m.tensor([True, False, True])
        y = x[keep].sum()
        keep.zero_()
        y.backward()

    def two_steps(m):
        x = matrix(m)
        idx = m.tensor([2, 0])
        y = x[1, idx].sum()  # the int is applied first, then the index tensor
        idx.zero_()
        y.backward()

    def setitem(m):
        x = m.tensor([1.0, -2.0, 3.0], requires_grad=True)
        v = m.tensor([5.0, 6.0], requires_grad=True)
        h = x * 1
        idx = m.tensor([0, 1])
        h[idx] = v
        idx.add_(1)
        (h * m.tensor([1.0, 2.0, 3.0])).sum().backward()

    for fn in (getitem, mask, two_steps, setitem):
        raises_alike(fn, RuntimeError, "modified by an inplace operation")


def test_index_tensor_unchanged_gives_torchs_gradients():
    def fn(m):
        x = matrix(m)
        v = m.tensor([5.0, 6.0], requires_grad=True)
        idx = m.tensor([2, 0, 2])
        y = x[1, idx] * m.tensor([1.0, 2.0, 3.0])
        h = x * 1
        h[m.tensor([1, 1]), m.tensor([0, 2])] = v
        h[h > 20] = 0.0
        (y.sum() + (h * h).sum() + x[x > 3].sum()).backward()
        return y, h, x.grad, v.grad

    same(fn)


@pytest.mark.parametrize(
    "make",
    [
        lambda m, x: x[m.tensor([0, 0])].sum(),
        lambda m, x: x[x > 0].sum(),
        lambda m, x: x[[0, 0]].sum(),
        lambda m, x: x[np.array([1, 0])].sum(),
        lambda m, x: x[:, m.tensor([0])].sum(),
    ],
    ids=["index_tensor", "mask", "list", "numpy", "tuple"],
)
def test_backward_twice_through_advanced_indexing_raises(make):
    def fn(m):
        x = m.tensor([[1.0, -2.0], [3.0, 4.0]], requires_grad=True)
        y = make(m, x)
        y.backward()
        y.backward()

    raises_alike(fn, RuntimeError, "backward through the graph a second time")


def test_backward_twice_through_setitem_raises():
    def fn(m):
        x = m.tensor([1.0, -2.0, 3.0], requires_grad=True)
        h = x.clone()
        h[0] = 5.0
        s = h.sum()
        s.backward()
        s.backward()

    raises_alike(fn, RuntimeError, "backward through the graph a second time")


def test_basic_indexing_saves_nothing_so_backward_twice_works():
    def fn(m):
        x = m.tensor([[1.0, -2.0], [3.0, 4.0]], requires_grad=True)
        y = x[1:, 0].sum() + x[0].sum() + x[..., None].sum()
        y.backward()
        y.backward()
        return x.grad

    same(fn)


def test_a_numpy_index_array_changed_after_the_forward_pass_is_not_used():
    """The index is copied when recorded: backward uses the positions that
    were read. (torch shares the numpy array's memory here, and follows the
    change: a case where agv keeps the mathematically right answer.)"""
    x = agv.tensor([1.0, -2.0, 3.0], requires_grad=True)
    idx = np.array([0, 0])
    y = x[idx]
    idx[0] = 2
    (y * agv.tensor([1.0, 10.0])).sum().backward()
    assert x.grad.tolist() == [11.0, 0.0, 0.0]

    h = agv.tensor([1.0, -2.0, 3.0], requires_grad=True) * 1
    where = np.array([True, False, False])
    h[where] = 0.0
    where[:] = True
    h.sum().backward()


def test_create_graph_through_an_index_tensor():
    def fn(m):
        x = m.tensor([0.5, 1.5, 2.0], requires_grad=True)
        y = (x[m.tensor([0, 2, 2])] ** 3).sum()
        (g,) = grad(m)(y, x, create_graph=True)
        (gg,) = grad(m)(g.sum(), x)
        return g, gg

    same(fn)


def test_drawings_and_stepper_with_an_index_tensor_and_a_view_op():
    x = agv.tensor([1.0, 2.0, 3.0], requires_grad=True)
    h = x * 2
    h[0] += 10
    y = (h[agv.tensor([0, 2])] * 3).sum()
    for kind in ("forward", "backward", "both"):
        assert agv.draw(y, kind=kind).source
    steps = list(agv.engine.backward_steps([y], [agv.ones_like(y)], retain_graph=True, accumulate=False))
    assert any(step.node.name() == "CopySlices" for step in steps)


# -- 5. squeeze(dim) checks the dim -----------------------------------------------------


def test_squeeze_checks_the_dim():
    raises_alike(
        lambda m: m.ones(2, 1).squeeze(5),
        IndexError,
        r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 5\)",
    )
    raises_alike(lambda m: m.ones(2, 1).squeeze(-3), IndexError, "Dimension out of range")
    raises_alike(lambda m: m.ones(2, 1).squeeze((0, 5)), IndexError, "Dimension out of range")
    raises_alike(lambda m: m.ones(()).squeeze(1), IndexError, r"range of \[-1, 0\]")
    raises_alike(lambda m: m.ones(2, 1).squeeze((1, -1)), RuntimeError, "dim 1 appears multiple times")
    same(
        lambda m: [
            m.ones(()).squeeze(0),
            m.ones(()).squeeze(-1),
            m.ones(2, 1, 1).squeeze((1, 2)),
            m.ones(2, 1, 1).squeeze(-1),
            m.ones(2, 1).squeeze(0),
            m.ones(1, 2, 1).squeeze(),
        ]
    )


def test_index_tensors_are_saved_not_inputs_like_torch():
    # the index gets no gradient, so it has no edge: next_functions as in torch
    def fn(m):
        x = m.ones(3, requires_grad=True)
        i = m.tensor([0, 2])
        y = x[i]
        h = x * 1
        h[i] = m.tensor([5.0, 6.0])
        return [
            (
                t.grad_fn.name(),
                [None if f is None else f.name().split("::")[-1] for f, _ in t.grad_fn.next_functions],
            )
            for t in (y, h)
        ]

    same(fn)
