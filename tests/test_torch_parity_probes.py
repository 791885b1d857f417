"""Probes of autograd behaviour a learner meets in PyTorch tutorials: each test
runs the same code on autogradviz and on torch and compares the outcomes
(values, None-ness, aliasing, exception classes and key phrases).

Tests marked xfail(strict=True) record a divergence from PyTorch that is still
there; when one is fixed, its test starts passing and strict xfail flags it.
"""

from __future__ import annotations

import pytest

import autogradviz as agv

torch = pytest.importorskip("torch")

from _parity import grad, raises_alike, same  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning", "ignore::UserWarning")

BOTH = pytest.mark.parametrize("m", [agv, torch], ids=["agv", "torch"])


# -- hooks and retain_grad ---------------------------------------------------------


def test_hooks_run_in_order_and_retain_grad_sees_their_result():
    def fn(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        log = []
        y.register_hook(lambda g: log.append(("a", g.tolist())) or g * 2)
        y.retain_grad()
        y.register_hook(lambda g: log.append(("b", g.tolist())) or g + 1)
        y.sum().backward()
        return log, y.grad, x.grad

    same(fn)


def test_hook_removal_and_removal_from_inside_the_hook():
    def fn(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        h = x.register_hook(lambda g: g * 5)
        (x * 1).sum().backward()
        h.remove()
        h.remove()  # removing twice is harmless
        (x * 1).sum().backward()
        handles = []

        def once(g):
            handles[0].remove()
            return g * 2

        handles.append(x.register_hook(once))
        (x * 1).sum().backward()
        (x * 1).sum().backward()
        return x.grad

    same(fn)


def test_hooks_on_a_tensor_used_twice_run_once_with_the_summed_gradient():
    def fn(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = x * 1
        calls_y, calls_x = [], []
        y.register_hook(lambda g: calls_y.append(g.tolist()))
        x.register_hook(lambda g: calls_x.append(g.tolist()))
        (y * y + y + x).sum().backward()
        return calls_y, calls_x, x.grad

    same(fn)


def test_hooks_on_the_root_and_on_a_leaf_that_is_the_root():
    def fn(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = (x * 2).sum()
        y.register_hook(lambda g: g * 10)
        y.retain_grad()
        y.backward(m.tensor(3.0))
        z = m.tensor([1.0, 2.0], requires_grad=True)
        z.register_hook(lambda g: g + 1)
        z.backward(m.tensor([1.0, 1.0]))
        return y.grad, x.grad, z.grad

    same(fn)


def test_hooks_registered_around_an_inplace_op():
    def fn(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        before = []
        y.register_hook(lambda g: before.append(g.tolist()))
        y.mul_(3)
        after = []
        y.register_hook(lambda g: after.append(g.tolist()))
        y.retain_grad()  # after the in-place op: the new value's gradient
        (y * y).sum().backward()
        return before, after, y.grad, x.grad

    same(fn)


def test_leaf_hook_modifying_in_place_changes_what_is_accumulated():
    def fn(m):
        b = m.tensor([1.0, 1.0], requires_grad=True)
        b.register_hook(lambda g: g.add_(1))
        (b * 2).sum().backward()
        return b.grad

    same(fn)


def test_retained_grad_kept_by_the_user_is_not_changed_by_a_second_backward():
    def fn(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.retain_grad()
        z = (y * y).sum()
        z.backward(retain_graph=True)
        kept = y.grad
        z.backward()
        return kept, y.grad, kept is y.grad

    same(fn)


def test_autograd_grad_applies_hooks_of_leaf_inputs():
    def fn(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        x.register_hook(lambda g: g * 10)
        return grad(m)((x * x).sum(), x)

    same(fn)


def test_autograd_grad_fills_retained_grads():
    def fn(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        h = x * 3
        h.retain_grad()
        grad(m)((h * h).sum(), x)
        return h.grad

    same(fn)


def test_hook_changing_the_dtype_is_refused():
    def fn(m):
        x = m.ones(2, requires_grad=True)
        x.register_hook(lambda g: g.double())
        (x * 2).sum().backward()
        return x.grad

    same(fn)


# -- .grad accumulation and aliasing ----------------------------------------------------


def test_grad_accumulates_in_place_into_the_same_object():
    def fn(m):
        a = m.tensor([[1.0, 2.0]], requires_grad=True)
        (a.reshape(2) * 1).sum().backward()
        kept = a.grad
        (a * 2).sum().backward()
        return kept, a.grad, kept is a.grad

    same(fn)


def test_grad_is_not_aliased_with_the_gradient_argument_or_another_leaf():
    def fn(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        v = m.tensor([1.0, 1.0])
        x.backward(v)
        x.grad.add_(5)
        w = m.tensor([1.0, 2.0], requires_grad=True)
        u = m.tensor([1.0, 1.0])
        w.clone().backward(u)
        u.add_(5)
        a = m.tensor([1.0, 2.0], requires_grad=True)
        b = m.tensor([1.0, 2.0], requires_grad=True)
        (a + b).sum().backward()
        a.grad.add_(1)
        return v, x.grad, u, w.grad, a.grad, b.grad

    same(fn)


def test_autograd_grad_result_is_not_aliased_with_grad_outputs():
    def fn(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        v = m.tensor([1.0, 1.0])
        (g,) = grad(m)(x * 1, x, v)
        v.add_(1)
        y = (x**2).sum()
        (g2,) = grad(m)(y, x, retain_graph=True)
        y.backward()
        return g, g2, x.grad

    same(fn)


def test_zero_keeps_the_grad_object_and_none_replaces_it():
    def fn(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        (x * 3).sum().backward()
        kept = x.grad
        x.grad.zero_()
        (x * 2).sum().backward()
        same_object = kept is x.grad
        x.grad = None
        (x * 5).sum().backward()
        return kept, x.grad, same_object

    same(fn)


def test_sum_backward_grad_can_be_changed_in_place():
    def fn(m):
        b = m.tensor([1.0, 1.0], requires_grad=True)
        b.sum().backward()
        b.grad.mul_(3)
        h = b * 2
        h.retain_grad()
        h.mean().backward()
        h.grad.mul_(3)
        return b.grad, h.grad

    same(fn)


def test_create_graph_grad_is_a_fresh_writable_tensor():
    def fn(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        v = m.tensor([1.0, 1.0])
        x.clone().backward(v, create_graph=True)
        b = m.tensor([1.0, 1.0], requires_grad=True)
        c = b.clone()
        c.retain_grad()
        c.sum().backward(create_graph=True)
        with m.no_grad():
            b.grad.mul_(5)
        return x.grad is v, c.grad, b.grad

    same(fn)


def test_zero_grad_to_zeros_after_create_graph_backward():
    def fn(m):
        b = m.tensor([1.0, 1.0], requires_grad=True)
        opt = (agv.optim if m is agv else torch.optim).SGD([b], lr=0.1)
        b.sum().backward(create_graph=True)
        opt.zero_grad(set_to_none=False)
        return b.grad

    same(fn)


def test_plain_backward_into_a_create_graph_grad():
    def fn(m):
        x = m.tensor([2.0], requires_grad=True)
        (x**3).backward(create_graph=True)
        g = x.grad
        g.backward()
        return g, x.grad, g is x.grad

    same(fn)


def test_grad_setter_checks_dtype():
    def fn(m):
        x = m.ones(2, requires_grad=True)
        x.grad = m.ones(2, dtype=m.float64)

    same(fn)


# -- dtypes --------------------------------------------------------------------------


def test_dtype_promotion_of_results_and_of_grads():
    def fn(m):
        a = m.tensor([1.0, 2.0], dtype=m.float64, requires_grad=True)
        b = m.tensor([3.0, 4.0], requires_grad=True)
        c = m.tensor(2.0, dtype=m.float64, requires_grad=True)
        k = m.tensor([1, 2])
        y = a * b
        z = c * b + k * b + k / 2
        (y.sum() + z.sum()).backward()
        return y, z, a.grad, b.grad, c.grad

    same(fn)


def test_integer_and_bool_arithmetic_dtypes():
    def fn(m):
        i, t = m.tensor([3, 4]), m.tensor([True, False])
        return (
            i / m.tensor([2, 2]),
            i / 2,
            i * 2.5,
            i + True,
            i**0.5,
            2 ** m.tensor([1, 2]),
            2.0 ** m.tensor([1, 2]),
            t + t,
            t * 2,
            t * 1.5,
            t.sum(),
            t & t,
            ~t,
        )

    same(fn)


def test_item_and_tolist_give_python_types():
    def fn(m):
        return [
            type(m.tensor(2.5).item()).__name__,
            type(m.tensor(2).item()).__name__,
            type(m.tensor(True).item()).__name__,
            type(m.tensor([1.5]).tolist()[0]).__name__,
            type(m.tensor([1, 2]).tolist()[0]).__name__,
            m.tensor(2.5).tolist(),
        ]

    same(fn)


def test_integer_results_do_not_require_grad():
    def fn(m):
        x = m.tensor([1.5, 2.5], requires_grad=True)
        flags = [x.long().requires_grad, x.bool().requires_grad, x.to(m.int64).grad_fn is None]
        try:
            (x.long().float() * 2).sum().backward()
            flags.append(x.grad)
        except RuntimeError as error:
            flags.append("does not require grad" in str(error))
        return flags

    same(fn)


def test_python_float_as_dtype_means_float64():
    def fn(m):
        return (
            m.tensor([1, 2], dtype=float).dtype,
            m.zeros(2, dtype=float).dtype,
            m.tensor([1.5]).to(float).dtype,
        )

    same(fn)


# -- broadcasting and indexing ---------------------------------------------------------


def test_broadcast_gradients_with_size_one_dims_and_0d_tensors():
    def fn(m):
        a = m.tensor([[1.0], [2.0]], requires_grad=True)
        b = m.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
        c = m.tensor(2.0, requires_grad=True)
        d = m.ones(2, 1, 3, requires_grad=True)
        e = m.ones(4, 1, requires_grad=True)
        (a * b * c).sum().backward()
        ((d + e) ** 2).sum().backward()
        f = m.tensor([[1.0], [2.0]], requires_grad=True)
        (f.expand(-1, 3) * m.tensor([1.0, 2.0, 3.0])).sum().backward()
        f.expand(4, 2, 3).sum().backward()
        return a.grad, b.grad, c.grad, d.grad, e.grad, f.grad

    same(fn)


def test_indexing_gradients_repeated_negative_mask_none_ellipsis():
    def fn(m):
        x = m.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        y = x[[0, 0, -1, 2]] * m.tensor([1.0, 2.0, 3.0, 4.0])
        w = m.tensor([[1.0, -2.0], [3.0, -4.0]], requires_grad=True)
        masked = w[w > 0]
        (y.sum() + (masked * 2).sum()).backward()
        z = m.arange(24.0).reshape(2, 3, 4).requires_grad_()
        a = z[..., None, 1:3]
        b = z[1, :, [0, 2]]  # ints first, then the list: shape (3, 2)
        (a.sum() + (b * 2).sum()).backward()
        return y, x.grad, masked, w.grad, tuple(a.shape), tuple(b.shape), z.grad

    same(fn)


def test_setitem_semantics_and_gradients():
    def fn(m):
        x = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        v = m.tensor(5.0, requires_grad=True)
        y = x * 1
        y[[0, 0]] = v * 2
        y[2] = y[1] * 3
        (y * m.tensor([1.0, 2.0, 3.0])).sum().backward()
        p = m.tensor([1.0, -2.0, 3.0], requires_grad=True)
        q = p * 2
        q[q < 0] = 0
        q[q > 0] *= 3
        q.sum().backward()
        s = m.zeros(2, 3, dtype=m.float64)
        u = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        s[:] = u
        s[0, 1:] = m.tensor(7.0)
        (s * s).sum().backward()
        return y, x.grad, v.grad, q, p.grad, s, u.grad

    same(fn)


def test_view_of_a_transposed_tensor_raises():
    raises_alike(lambda m: m.ones(2, 3).t().view(-1), RuntimeError, "view size is not compatible")


def test_reshape_that_copies_is_independent_of_its_source():
    def fn(m):
        x = m.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        h = x * 1
        z = h * h  # saves h
        r = h.t().reshape(-1)  # not contiguous: a copy, in torch as in numpy
        with m.no_grad():
            r.mul_(2)  # changes only the copy: h's version stays 0
        s = h.t().reshape(-1)
        s.mul_(3)  # recorded on the copy
        (z.sum() + s.sum()).backward()
        return x.grad, h, r, h._version

    same(fn)


# -- in-place ops and version counters --------------------------------------------------

SAVING_OPS = {
    "exp": lambda m, h: h.exp(),
    "tanh": lambda m, h: h.tanh(),
    "sigmoid": lambda m, h: h.sigmoid(),
    "relu": lambda m, h: h.relu(),
    "pow": lambda m, h: h**2,
    "div_by_h": lambda m, h: m.tensor([1.0, 2.0, 3.0]) / h,
    "mul_constant": lambda m, h: h * m.tensor([1.0, 2.0, 3.0]),
    "softmax": lambda m, h: h.softmax(0) * m.tensor([1.0, 2.0, 3.0]),
    "std": lambda m, h: h.std(),
    "max_dim": lambda m, h: h.max(0)[0],
    "where": lambda m, h: m.where(h > 0, h, m.zeros(3)),
    "index_list": lambda m, h: h[[0, 2]],
    "cat": lambda m, h: m.cat([h, h]),
    "matmul": lambda m, h: h @ m.ones(3, 2),
}


def _change_input(m, h, y):
    with m.no_grad():
        h.add_(1)


def _change_output(m, h, y):
    y.mul_(1)


@pytest.mark.parametrize("change", [_change_input, _change_output], ids=["input", "output"])
@pytest.mark.parametrize("op", list(SAVING_OPS), ids=list(SAVING_OPS))
def test_version_counter_catches_exactly_what_torch_catches(op, change):
    def fn(m):
        x = m.tensor([0.5, -1.0, 2.0], requires_grad=True)
        h = x * 1
        y = SAVING_OPS[op](m, h)
        change(m, h, y)
        y.sum().backward()
        return x.grad

    same(fn)


@pytest.mark.parametrize("change", [_change_input, _change_output], ids=["input", "output"])
def test_version_counter_for_full_max(change):
    def fn(m):
        x = m.tensor([0.5, -1.0, 2.0], requires_grad=True)
        h = x * 1
        y = h.max()
        change(m, h, y)
        y.backward()
        return x.grad

    same(fn)


def test_changing_a_where_condition_or_an_index_tensor_in_place_is_caught():
    def fn(m):
        x = m.tensor([1.0, -2.0, 3.0], requires_grad=True)
        c = m.tensor([True, False, True])
        idx = m.tensor([0, 1])
        y = m.where(c, x, 0.0) + x[idx].sum()
        c.zero_()
        idx.add_(1)
        y.sum().backward()
        return x.grad

    same(fn)


def test_inplace_on_a_leaf_and_under_no_grad():
    raises_alike(
        lambda m: m.tensor([1.0], requires_grad=True).add_(1),
        RuntimeError,
        "leaf Variable that requires grad",
    )

    def sgd_without_no_grad(m):
        w = m.tensor([1.0, 2.0], requires_grad=True)
        (w * 2).sum().backward()
        w -= 0.1 * w.grad

    raises_alike(sgd_without_no_grad, RuntimeError, "leaf Variable that requires grad")

    def fn(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        with m.no_grad():
            x.mul_(2)
            x[1] = 5.0
        (x * 3).sum().backward()
        v = m.ones(3)
        v[1:].add_(1)
        v.detach().mul_(2)
        return x, x.grad, x.is_leaf, x.requires_grad, x._version, v, v._version

    same(fn)


def test_detach_shares_the_version_counter_and_data_does_not():
    def fn(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = x.exp()
        y.data.mul_(0)
        y.sum().backward()  # .data changes are invisible: a silently different gradient
        first = x.grad.clone()
        y2 = x.exp()
        d = y2.detach()
        flags = [d.requires_grad, d.is_leaf, y2.data.requires_grad]
        d.mul_(0)
        try:
            y2.sum().backward()
        except RuntimeError as error:
            flags.append("modified by an inplace operation" in str(error))
        return first, flags

    same(fn)


def test_tutorial_training_loops():
    def fn(m):
        w = m.tensor([1.0, 2.0], requires_grad=True)
        b = m.tensor(0.0, requires_grad=True)
        for _ in range(3):
            loss = ((w * 3 + b - 1) ** 2).mean()
            loss.backward()
            with m.no_grad():
                w -= 0.1 * w.grad
                b -= 0.1 * b.grad
                w.grad.zero_()
                b.grad.zero_()
        u = m.tensor([1.0, 2.0], requires_grad=True)
        for _ in range(3):
            ((u * 3 - 1) ** 2).sum().backward()
            u.data -= 0.01 * u.grad.data
            u.grad.data.zero_()
        return w, b, w.grad, w.is_leaf, w._version, u, u.grad, u.is_leaf

    same(fn)


# -- grad mode ----------------------------------------------------------------------------


def test_no_grad_enable_grad_nesting_and_decorators():
    def fn(m):
        x = m.tensor([1.0], requires_grad=True)
        out = []
        with m.no_grad():
            out.append((x * 2).requires_grad)
            with m.enable_grad():
                out.append((x * 2).requires_grad)
                with m.set_grad_enabled(False):
                    out.append((x * 2).requires_grad)
                out.append(m.is_grad_enabled())
            out.append(m.is_grad_enabled())

        @m.no_grad()
        def f():
            return (x * 2).requires_grad, m.is_grad_enabled()

        @m.enable_grad()
        def g():
            return (x * 2).requires_grad

        out.append(f())
        with m.no_grad():
            out.append(g())
            y = x * 2
        out.append(y.is_leaf)
        y.requires_grad_()
        (y * y).sum().backward()
        return out, y.grad, x.grad

    same(fn)


def test_requires_grad_rules():
    def non_leaf(m):
        x = m.tensor([1.0], requires_grad=True)
        y = x * 2
        assert y.requires_grad_() is y  # allowed: a no-op on a non-leaf
        y.requires_grad_(False)

    raises_alike(non_leaf, RuntimeError, "only change requires_grad flags of leaf variables")
    raises_alike(lambda m: m.tensor([1, 2], requires_grad=True), RuntimeError, "floating point")
    raises_alike(lambda m: m.ones(2).retain_grad(), RuntimeError, "requires_grad=False")
    raises_alike(lambda m: m.ones(2).register_hook(lambda g: g), RuntimeError, "doesn't require gradient")


# -- backward twice, create_graph ----------------------------------------------------------


def test_backward_twice_raises_only_when_something_was_saved():
    def twice(make):
        def fn(m):
            x = m.tensor([1.0, 2.0], requires_grad=True)
            y = make(m, x)
            y.backward()
            y.backward()
            return x.grad

        return fn

    for make in (
        lambda m, x: (x + 1).sum(),
        lambda m, x: (x - 2).sum(),
        lambda m, x: (
            (x.reshape(2, 1).t().expand(3, 2)[1:, 0]).sum() + m.cat([x, x]).sum() + m.stack([x, x]).mean()
        ),
    ):
        same(twice(make))
    for make in (lambda m, x: (x * 2).sum(), lambda m, x: x.exp().sum(), lambda m, x: (x * x).sum()):
        raises_alike(twice(make), RuntimeError, "backward through the graph a second time")

    def retained(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = (x * x).sum()
        y.backward(retain_graph=True)
        y.backward()
        return x.grad

    same(retained)


@pytest.mark.parametrize(
    "make",
    [
        lambda m, x: m.where(x > 0, x, m.zeros(2)).sum(),
        lambda m, x: x.max(),
        lambda m, x: x.max(0)[0],
        lambda m, x: x[m.tensor([0, 0])].sum(),
        lambda m, x: x[x > 0].sum(),
    ],
    ids=["where", "max", "max_dim", "index_tensor", "mask"],
)
def test_backward_twice_raises_for_ops_that_save_indices(make):
    def fn(m):
        x = m.tensor([1.0, -2.0], requires_grad=True)
        y = make(m, x)
        y.backward()
        y.backward()

    raises_alike(fn, RuntimeError, "backward through the graph a second time")


def test_create_graph_higher_derivatives():
    def fn(m):
        x = m.tensor([0.5, 1.5], requires_grad=True)
        y = (x**3 + x.exp() * x.sin()).sum()
        (g,) = grad(m)(y, x, create_graph=True)
        (h,) = grad(m)(g.sum(), x, create_graph=True)
        (t,) = grad(m)(h.sum(), x)
        z = m.tensor([2.0], requires_grad=True)
        (z**3).backward(create_graph=True)
        flags = [g.requires_grad, h.requires_grad, t.requires_grad, z.grad.requires_grad]
        first = z.grad.detach().clone()
        z.grad = None
        (z**2).backward()
        return g, h, t, flags, first, z.grad, z.grad.requires_grad

    same(fn)


# -- reductions and pointwise edge cases -------------------------------------------------


def test_reduction_gradients_ties_keepdim_and_losses():
    def fn(m):
        x = m.tensor([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]], requires_grad=True)
        v, i = x.max(dim=1)
        k, j = x.max(dim=0, keepdim=True)
        (v.sum() + (k * m.tensor([[1.0, 2.0, 3.0]])).sum() + x.min()).backward()
        s = m.tensor([[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]], requires_grad=True)
        t = m.tensor([2, 0])
        loss = -s.log_softmax(dim=1)[m.arange(2), t].mean()
        r = m.tensor([[1.0, 3.0, 2.0], [2.0, 0.0, 5.0]], requires_grad=True)
        loss = (
            loss
            + r.var(dim=0).sum()
            + r.std(1, keepdim=True).sum()
            + r.var(unbiased=False)
            + r.std(correction=0)
        )
        loss.backward()
        return v, i, k, j, x.grad, loss, s.grad, r.grad

    same(fn)


def test_pointwise_gradients_at_kinks_and_zeros():
    def fn(m):
        x = m.tensor([-1.0, 0.0, 0.5, 1.0, 2.0], requires_grad=True)
        (x.clamp(0, 1) + x.relu() + x.abs() + m.maximum(x, m.zeros(5)) + x**2 + x**1 + x**0).sum().backward()
        y = m.tensor([0.0, 1.0], requires_grad=True)
        z = m.tensor([0.0, 0.0], requires_grad=True)
        (y / z).sum().backward()
        w = m.tensor([0.0, 4.0], requires_grad=True)
        (w.log() + w**0.5).sum().backward()
        e = m.tensor([0.0, 1.0, 2.0], requires_grad=True)
        (2**e).sum().backward()
        return x.grad, y.grad, z.grad, w.grad, e.grad

    same(fn)


def test_std_of_constant_values_has_zero_gradient():
    def fn(m):
        x = m.tensor([[1.0, 1.0, 1.0], [1.0, 2.0, 4.0]], requires_grad=True)
        y = (x - x.mean(dim=1, keepdim=True)) / (x.std(dim=1, keepdim=True) + 1e-5)
        (y * m.tensor([1.0, 2.0, 3.0])).sum().backward()
        return y, x.grad

    same(fn)


def test_pow_tensor_exponent_at_zero_base():
    def fn(m):
        x = m.tensor([0.0, 0.0, 2.0], requires_grad=True)
        e = m.tensor([0.0, -1.0, 2.0], requires_grad=True)
        (x**e).sum().backward()
        return x.grad, e.grad

    same(fn)


# -- errors ------------------------------------------------------------------------------


def test_exception_classes_of_common_mistakes():
    def fn(m):
        a, b = m.ones(2, 3), m.ones(4)
        attempts = [
            lambda: a + b,
            lambda: a @ a,
            lambda: a[5],
            lambda: a.sum(dim=5),
            lambda: a.view(4),
            lambda: a.item(),
            lambda: bool(a),
            lambda: len(m.tensor(1.0)),
            lambda: iter(m.tensor(1.0)),
            lambda: m.tensor([1.0], requires_grad=True).numpy(),
            lambda: (m.ones(2, requires_grad=True) * 2).backward(),
            lambda: (m.ones(2, requires_grad=True) * 2).backward(m.ones(3)),
            lambda: m.ones(2).sum().backward(),
            lambda: a.unsqueeze(5),
            lambda: a.transpose(0, 2),
            lambda: a.expand(3, 3),
            lambda: m.cat([a, b]),
            lambda: m.ones(3)[m.tensor([True, False])],
            lambda: m.tensor([1, 2]).mean(),
            lambda: m.ones(2, dtype=m.int64).add_(1.5),
            lambda: m.ones(2).add_(m.ones(2, 2)),
            lambda: setattr(m.ones(2, requires_grad=True), "grad", m.ones(3)),
        ]
        names = []
        for attempt in attempts:
            try:
                attempt()
                names.append("ok")
            except Exception as error:  # noqa: BLE001
                names.append(type(error).__name__)
        return names

    same(fn)


def test_error_phrases_of_backward():
    raises_alike(
        lambda m: (m.ones(2, requires_grad=True) * 2).backward(),
        RuntimeError,
        "grad can be implicitly created only for scalar outputs",
    )
    raises_alike(
        lambda m: m.ones(2).sum().backward(),
        RuntimeError,
        "does not require grad and does not have a grad_fn",
    )

    def unused(m):
        x, z = m.ones(2, requires_grad=True), m.ones(2, requires_grad=True)
        grad(m)((x * 2).sum(), z)

    raises_alike(unused, RuntimeError, "allow_unused=True")


def test_integer_to_negative_power_error_class():
    raises_alike(lambda m: m.tensor([2, 3]) ** -1, RuntimeError, "Integers to negative integer powers")
