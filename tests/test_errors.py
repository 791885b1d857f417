"""Every error of issue 2, section 5: the same exception class as PyTorch for the
same mistake, a message with the phrase that teaches, and nothing lost on error."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import autogradviz as agv


def torch_or_skip():
    return pytest.importorskip("torch")


def error_of(fn, lib):
    """The exception `fn(lib)` raises, or None."""
    try:
        fn(lib)
    except Exception as error:  # noqa: BLE001 - the class is what is compared
        return error
    return None


def grad_of(lib):
    return lib.grad if lib is agv else lib.autograd.grad


def cases(table: dict, bugs: dict) -> list:
    """The names of `table`, with the known bugs marked xfail."""
    return [pytest.param(name, marks=bugs[name]) if name in bugs else name for name in table]


# -- the errors, each with PyTorch's class ------------------------------------------------


def _second_backward(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    y.backward()


def _inplace_then_backward(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    h = x * 1
    y = h * h  # saves h
    h.add_(1)
    y.sum().backward()


def _leaf_updated_then_backward(lib):
    w = lib.tensor([1.0, 2.0], requires_grad=True)
    y = (w * w).sum()  # saves w
    with lib.no_grad():
        w.sub_(0.5)  # an SGD step taken before backward
    y.backward()


def _detach_then_backward(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    s = x.sigmoid()  # saves its output
    s.detach().zero_()  # detach() shares the data and the version counter
    s.sum().backward()


def _grad_unused(lib):
    x = lib.tensor([1.0], requires_grad=True)
    unused = lib.tensor([1.0], requires_grad=True)
    grad_of(lib)((x * 2).sum(), [x, unused])


def _grad_of_input_without_grad(lib):
    x = lib.tensor([1.0], requires_grad=True)
    grad_of(lib)((x * 2).sum(), [lib.tensor([1.0])])


def _bad_hook(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: lib.ones(5))
    y.sum().backward()


def _bad_gradient(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    (x * 2).backward(lib.ones(3))


def _set_grad_wrong_shape(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    x.grad = lib.ones(3)


def _non_leaf_requires_grad_false(lib):
    x = lib.tensor([1.0], requires_grad=True)
    (x * 2).requires_grad = False


def _numpy_of_requires_grad(lib):
    lib.tensor([1.0], requires_grad=True).numpy()


def _no_grad_result_backward(lib):
    x = lib.tensor([1.0], requires_grad=True)
    with lib.no_grad():
        y = x * 2
    y.backward()


def _setitem_on_leaf(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    x[0] = 5.0


ERRORS = {
    # (what goes wrong, phrases the message must contain)
    "non_scalar_backward": (
        lambda lib: (lib.ones(2, 2, requires_grad=True) * 2).backward(),
        ["grad can be implicitly created only for scalar outputs"],
    ),
    "backward_without_grad": (
        lambda lib: lib.tensor([1.0, 2.0]).sum().backward(),
        ["does not require grad and does not have a grad_fn"],
    ),
    "backward_of_no_grad_result": (
        _no_grad_result_backward,
        ["does not require grad and does not have a grad_fn"],
    ),
    "int_tensor_requires_grad": (
        lambda lib: lib.tensor([1, 2], requires_grad=True),
        ["Only Tensors of floating point and complex dtype can require gradients"],
    ),
    "bool_tensor_requires_grad": (
        lambda lib: lib.tensor([True], requires_grad=True),
        ["Only Tensors of floating point and complex dtype can require gradients"],
    ),
    "int_requires_grad_setter": (
        lambda lib: setattr(lib.tensor([1, 2]), "requires_grad", True),
        ["only Tensors of floating point and complex dtype can require gradients"],
    ),
    "int_requires_grad_": (
        lambda lib: lib.tensor([1, 2]).requires_grad_(),
        ["only Tensors of floating point dtype can require gradients"],
    ),
    "randint_requires_grad": (
        lambda lib: lib.randint(0, 5, (2,), requires_grad=True),
        ["Only Tensors of floating point and complex dtype can require gradients"],
    ),
    "arange_requires_grad": (
        lambda lib: lib.arange(3, requires_grad=True),
        ["Only Tensors of floating point and complex dtype can require gradients"],
    ),
    "full_int_requires_grad": (
        lambda lib: lib.full((2,), 3, requires_grad=True),
        ["Only Tensors of floating point and complex dtype can require gradients"],
    ),
    "zeros_long_requires_grad": (
        lambda lib: lib.zeros(2, dtype=lib.long, requires_grad=True),
        ["Only Tensors of floating point and complex dtype can require gradients"],
    ),
    "leaf_add_": (
        lambda lib: lib.tensor([1.0], requires_grad=True).add_(1),
        ["a leaf Variable that requires grad is being used in an in-place operation"],
    ),
    "leaf_sub_": (
        lambda lib: lib.tensor([1.0], requires_grad=True).sub_(1),
        ["a leaf Variable that requires grad is being used in an in-place operation"],
    ),
    "leaf_mul_": (
        lambda lib: lib.tensor([1.0], requires_grad=True).mul_(2),
        ["a leaf Variable that requires grad is being used in an in-place operation"],
    ),
    "leaf_div_": (
        lambda lib: lib.tensor([1.0], requires_grad=True).div_(2),
        ["a leaf Variable that requires grad is being used in an in-place operation"],
    ),
    "leaf_zero_": (
        lambda lib: lib.tensor([1.0], requires_grad=True).zero_(),
        ["a leaf Variable that requires grad is being used in an in-place operation"],
    ),
    "leaf_fill_": (
        lambda lib: lib.tensor([1.0], requires_grad=True).fill_(3.0),
        ["a leaf Variable that requires grad is being used in an in-place operation"],
    ),
    "leaf_copy_": (
        lambda lib: lib.tensor([1.0], requires_grad=True).copy_(lib.tensor([2.0])),
        ["a leaf Variable that requires grad is being used in an in-place operation"],
    ),
    "leaf_clamp_": (
        lambda lib: lib.tensor([1.0], requires_grad=True).clamp_(0.0, 0.5),
        ["a leaf Variable that requires grad is being used in an in-place operation"],
    ),
    "leaf_setitem": (
        _setitem_on_leaf,
        ["a leaf Variable that requires grad is being used in an in-place operation"],
    ),
    "inplace_then_backward": (
        _inplace_then_backward,
        ["modified by an inplace operation", "version 1", "expected version 0", "MulBackward0"],
    ),
    "leaf_updated_then_backward": (
        _leaf_updated_then_backward,
        ["modified by an inplace operation", "version 1", "expected version 0", "MulBackward0"],
    ),
    "detach_then_backward": (
        _detach_then_backward,
        ["modified by an inplace operation", "version 1", "expected version 0", "SigmoidBackward0"],
    ),
    "second_backward": (_second_backward, ["backward through the graph a second time", "retain_graph=True"]),
    "item_of_many": (
        lambda lib: lib.tensor([1.0, 2.0]).item(),
        ["a Tensor with 2 elements cannot be converted to Scalar"],
    ),
    "grad_unused_input": (_grad_unused, ["appears to not have been used in the graph", "allow_unused=True"]),
    "grad_of_input_without_grad": (_grad_of_input_without_grad, ["does not require grad"]),
    "hook_wrong_shape": (_bad_hook, ["hook", "(5,)", "(2,)"]),
    "gradient_wrong_shape": (_bad_gradient, ["(3,)", "(2,)"]),
    "assigned_grad_wrong_shape": (_set_grad_wrong_shape, ["size '[3]'", "size '[2]'"]),  # torch's words
    "non_leaf_requires_grad_false": (_non_leaf_requires_grad_false, ["leaf", "detach()"]),
    "numpy_of_requires_grad": (_numpy_of_requires_grad, ["detach().numpy()"]),
}


ERROR_BUGS: dict = {}


@pytest.mark.parametrize("name", cases(ERRORS, ERROR_BUGS))
def test_error_message(name):
    fn, phrases = ERRORS[name]
    error = error_of(fn, agv)
    assert error is not None, "no error raised"
    for phrase in phrases:
        assert phrase in str(error)


@pytest.mark.parametrize("name", cases(ERRORS, ERROR_BUGS))
def test_error_class_matches_torch(name):
    torch = torch_or_skip()
    fn, _ = ERRORS[name]
    theirs = error_of(fn, torch)
    assert theirs is not None, "the case must be an error in PyTorch too"
    assert type(error_of(fn, agv)) is type(theirs)


def test_version_error_counts_every_inplace_op():
    x = agv.tensor([1.0, 2.0], requires_grad=True)
    h = x * 1
    y = h.exp() * h  # h is saved by MulBackward0 at version 0
    h.mul_(2)
    h.detach().add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation") as info:
        y.sum().backward()
    message = str(info.value)
    assert re.search(r"\bversion 2\b", message) and "expected version 0" in message
    assert "MulBackward0" in message


def test_inplace_on_leaf_allowed_under_no_grad_or_through_data():
    x = agv.tensor([1.0], requires_grad=True)
    with agv.no_grad():
        x.add_(1)
    x.data.mul_(3)  # untracked
    assert x.tolist() == [6.0]


def test_non_leaf_requires_grad_true_raises_like_torch():
    torch = torch_or_skip()
    for lib in (agv, torch):
        x = lib.tensor([1.0], requires_grad=True)
        with pytest.raises(RuntimeError, match="leaf"):
            (x * 2).requires_grad = True


def test_transpose_dim_out_of_range_like_torch():
    torch = torch_or_skip()
    for lib in (agv, torch):
        with pytest.raises(IndexError, match="out of range"):
            lib.ones(2, 3).transpose(0, 5)


# -- shape mismatches name the op and both shapes --------------------------------------------

A, B = (2, 3), (3, 2)

SHAPE_ERRORS = {
    # name: (op, the word for the op in the message, the shapes it names)
    "add": (lambda lib: lib.ones(*A) + lib.ones(*B), "add", [A, B]),
    "sub": (lambda lib: lib.ones(*A) - lib.ones(*B), "sub", [A, B]),
    "mul": (lambda lib: lib.ones(*A) * lib.ones(*B), "mul", [A, B]),
    "div": (lambda lib: lib.ones(*A) / lib.ones(*B), "div", [A, B]),
    "pow": (lambda lib: lib.ones(*A) ** lib.ones(*B), "pow", [A, B]),
    "add_fn": (lambda lib: lib.add(lib.ones(*A), lib.ones(*B)), "add", [A, B]),
    "maximum": (lambda lib: lib.maximum(lib.ones(*A), lib.ones(*B)), "maximum", [A, B]),
    "minimum": (lambda lib: lib.minimum(lib.ones(*A), lib.ones(*B)), "minimum", [A, B]),
    "eq": (lambda lib: lib.ones(*A) == lib.ones(*B), "eq", [A, B]),
    "lt": (lambda lib: lib.ones(*A) < lib.ones(*B), "lt", [A, B]),
    "ge": (lambda lib: lib.ones(*A) >= lib.ones(*B), "ge", [A, B]),
    "broadcast_3d": (lambda lib: lib.ones(4, 1, 3) + lib.ones(2, 5), "add", [(4, 1, 3), (2, 5)]),
    "add_": (lambda lib: lib.ones(*A).add_(lib.ones(*B)), "add", [A, B]),
    "add_grows": (lambda lib: lib.ones(3).add_(lib.ones(2, 3)), "add_", [(3,), (2, 3)]),
    "copy_": (lambda lib: lib.ones(*A).copy_(lib.ones(*B)), "copy_", [A, B]),
    "matmul_batched": (lambda lib: lib.ones(2, 3, 4) @ lib.ones(5, 4, 2), "matmul", [(2, 3, 4), (5, 4, 2)]),
    "matmul_2d_no_broadcast": (
        lambda lib: lib.matmul(lib.ones(2, 3), lib.ones(4, 5)),
        "matmul",
        [(2, 3), (4, 5)],
    ),
    "matmul_vectors": (lambda lib: lib.ones(3) @ lib.ones(4), "matmul", [(3,), (4,)]),
    "matmul_vector_matrix": (lambda lib: lib.ones(3) @ lib.ones(2, 4), "matmul", [(3,), (2, 4)]),
    "cat": (lambda lib: lib.cat([lib.ones(*A), lib.ones(*B)]), "cat", [A, B]),
    "cat_dim1": (lambda lib: lib.cat([lib.ones(2, 3), lib.ones(3, 3)], 1), "cat", [(2, 3), (3, 3)]),
    "stack": (lambda lib: lib.stack([lib.ones(*A), lib.ones(*B)]), "stack", [A, B]),
    "reshape": (lambda lib: lib.ones(*A).reshape(4, 2), "reshape", [(4, 2), A]),
    "view": (lambda lib: lib.ones(*A).view(5), "reshape", [(5,), A]),
    "expand": (lambda lib: lib.ones(*A).expand(4, 3, 3), "expand", [(4, 3, 3), A]),
    "where": (lambda lib: lib.where(lib.ones(*A) > 0, lib.ones(*A), lib.ones(*B)), "where", [A, B]),
}


@pytest.mark.parametrize("name", SHAPE_ERRORS)
def test_shape_error_names_op_and_shapes(name):
    fn, op, shapes = SHAPE_ERRORS[name]
    error = error_of(fn, agv)
    assert isinstance(error, RuntimeError), repr(error)
    message = str(error)
    assert op in message
    for shape in shapes:
        assert str(shape) in message  # written as a tuple, "(2, 3)"


@pytest.mark.parametrize("name", SHAPE_ERRORS)
def test_shape_error_class_matches_torch(name):
    torch = torch_or_skip()
    fn, _, _ = SHAPE_ERRORS[name]
    theirs = error_of(fn, torch)
    assert theirs is not None
    assert type(error_of(fn, agv)) is type(theirs)


def test_add_n_shape_error():
    with pytest.raises(RuntimeError) as info:
        agv.add_n([agv.ones(*A), agv.ones(*A), agv.ones(*B)])
    assert "add_n" in str(info.value) and str(A) in str(info.value) and str(B) in str(info.value)


BROKEN_SHAPE_ERRORS = {
    # these once let numpy's ValueError escape instead of a RuntimeError naming both shapes
    "matmul_2d": (lambda lib: lib.ones(*A) @ lib.ones(*A), [A, A]),
    "mm_broadcastable": (lambda lib: lib.ones(3, 4) @ lib.ones(1, 4), [(3, 4), (1, 4)]),
    "setitem": (lambda lib: lib.zeros(3).__setitem__(slice(0, 2), lib.ones(3)), [(2,), (3,)]),
}


@pytest.mark.parametrize("name", BROKEN_SHAPE_ERRORS)
def test_shape_errors_that_numpy_reports_differently(name):
    torch = torch_or_skip()
    fn, shapes = BROKEN_SHAPE_ERRORS[name]
    error = error_of(fn, agv)
    assert type(error) is type(error_of(fn, torch))
    for shape in shapes:
        assert str(shape) in str(error)


# -- gradcheck -------------------------------------------------------------------------------


def test_gradcheck_passes_a_correct_function():
    # float64, as gradcheck needs (PyTorch's too): in float32 it warns and fails (test_hardening_names.py)
    x = agv.tensor([1.0, 2.0, 3.0], dtype=agv.float64, requires_grad=True)
    assert agv.gradcheck(lambda t: (t * t).sum(), (x,)) is True


def test_gradcheck_names_input_element_and_both_values():
    # x * x.data: the engine treats x.data as a constant, so the analytic
    # derivative is x; the function's true derivative, d(x²)/dx, is 2x.
    x = agv.tensor([1.0, 2.0, 3.0], dtype=agv.float64, requires_grad=True)
    x.name = "x"
    with pytest.raises(agv.GradcheckError) as info:
        agv.gradcheck(lambda t: t * t.data, (x,))
    assert isinstance(info.value, RuntimeError)
    message = str(info.value)
    assert "input 0" in message and "(x)" in message
    # the worst element is the last one: |3 - 6| beats |2 - 4| and |1 - 2|
    assert "input[2]" in message
    analytic = float(re.search(r"analytic (\S+?),", message).group(1))
    numerical = float(re.search(r"numerical (\S+?) ", message).group(1))
    assert analytic == pytest.approx(3.0) and numerical == pytest.approx(6.0, rel=1e-6)
    assert agv.gradcheck(lambda t: t * t.data, (x,), raise_exception=False) is False
    assert agv.tensor([1.0, 2.0, 3.0], dtype=agv.float64).tolist() == x.tolist()  # x unchanged


def test_gradcheck_names_the_second_input():
    a = agv.tensor([1.0, 2.0], dtype=agv.float64, requires_grad=True)
    b = agv.tensor([0.5, -1.0], dtype=agv.float64, requires_grad=True)
    # correct in a; for b the true derivative is 2b, the engine sees b.data as a constant
    with pytest.raises(agv.GradcheckError, match="input 1"):
        agv.gradcheck(lambda a, b: a * 3 + b * b.data, (a, b))


def test_gradcheck_error_class_like_torch():
    torch = torch_or_skip()
    x = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
    with pytest.raises(RuntimeError) as info:
        torch.autograd.gradcheck(lambda t: t * t.data, (x,))
    assert type(info.value).__name__ == agv.GradcheckError.__name__
    assert issubclass(agv.GradcheckError, RuntimeError)


# -- nothing is lost on error ---------------------------------------------------------------


def grad_quietly(t):
    """t.grad, without the warning a non-leaf's .grad gives."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return t.grad


def snapshot(*tensors) -> list:
    """Copies of each tensor's data, version and grad (grad None stays None)."""
    out = []
    for t in tensors:
        grad = grad_quietly(t)
        out.append(
            (
                t.detach().numpy().copy(),
                t.version,
                None if grad is None else grad.detach().numpy().copy(),
            )
        )
    return out


def assert_unchanged(before, tensors):
    for (data, version, grad), t in zip(before, tensors):
        np.testing.assert_array_equal(t.detach().numpy(), data)
        assert t.version == version
        if grad is None:
            assert grad_quietly(t) is None
        else:
            np.testing.assert_array_equal(grad_quietly(t).detach().numpy(), grad)


FAILING_OPS = {
    "add": lambda a, b: a + b,
    "matmul": lambda a, b: agv.matmul(a, agv.ones(4, 5)),
    "cat": lambda a, b: agv.cat([a, b]),
    "reshape": lambda a, b: a.reshape(7),
    "add_": lambda a, b: a.add_(b),
    "copy_": lambda a, b: a.copy_(b),
    "setitem": lambda a, b: a.__setitem__(0, agv.ones(5)),
    "int_add_float": lambda a, b: a.long().add_(1.5),
    "leaf_mul_": lambda a, b: b.mul_(2.0),
}


@pytest.mark.parametrize("name", FAILING_OPS)
def test_failed_op_changes_nothing(name):
    leaf = agv.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    (leaf * 2).sum().backward()
    a = leaf * 1  # a non-leaf, so in-place ops would be allowed
    b = agv.ones(3, 2, requires_grad=True)
    tensors = (leaf, a, b)
    before = snapshot(*tensors)
    with pytest.raises((RuntimeError, ValueError, IndexError, TypeError)):
        FAILING_OPS[name](a, b)
    assert_unchanged(before, tensors)


def _failing_part(kind, x):
    """A piece of graph from x whose backward fails in the way `kind` says."""
    if kind == "bad_hook":
        h = x * 3
        h.register_hook(lambda g: agv.ones(7))
        return (h * 2).sum()
    if kind == "version":
        h = x * 1
        out = (h * h).sum()
        h.add_(1)
        return out
    if kind == "leaf_hook":  # the error comes at x's AccumulateGrad, the last node
        x.register_hook(lambda g: agv.ones(7))
        return (x * 3).sum()
    if kind == "detach":  # a version error through detach(), which shares the counter
        s = agv.sigmoid(x * 2)
        out = s.sum()
        s.detach().mul_(0.5)
        return out
    if kind == "not_a_tensor":
        h = x * 3
        h.register_hook(lambda g: g.tolist())
        return h.sum()
    raise ValueError(kind)


FAILURES = ["bad_hook", "version", "detach", "leaf_hook", "not_a_tensor"]


@pytest.mark.parametrize("kind", cases(FAILURES, {}))
@pytest.mark.parametrize("order", ["good_first", "bad_first"])
def test_failed_backward_changes_nothing(kind, order):
    w = agv.tensor([1.0, 2.0], requires_grad=True)
    x = agv.tensor([3.0, 4.0], requires_grad=True)
    fresh = agv.tensor([5.0, 6.0], requires_grad=True)  # no grad yet: must stay None
    (w * x).sum().backward()  # existing grads: w.grad = x, x.grad = w
    reached = []
    w.register_hook(lambda g: reached.append("w"))  # shows when w's gradient was ready
    mid = w * fresh
    mid.retain_grad()
    good = (mid * 2).sum()
    bad = _failing_part(kind, x)
    loss = good + bad if order == "good_first" else bad + good
    tensors = (w, x, fresh, mid)
    before = snapshot(*tensors)
    with pytest.raises((RuntimeError, TypeError)):
        loss.backward()
    assert_unchanged(before, tensors)
    assert w.grad.tolist() == [3.0, 4.0] and x.grad.tolist() == [1.0, 2.0]
    assert fresh.grad is None and grad_quietly(mid) is None


@pytest.mark.parametrize("kind", ["bad_hook", "leaf_hook", "not_a_tensor", "detach"])
def test_a_failure_after_some_leaves_got_their_gradient_is_covered(kind):
    """In at least one order, w's gradient is complete before the failure: the
    test above then shows that it was not written to w.grad."""
    seen = set()
    for order in ("good_first", "bad_first"):
        w = agv.tensor([1.0, 2.0], requires_grad=True)
        x = agv.tensor([3.0, 4.0], requires_grad=True)
        reached = []
        w.register_hook(lambda g: reached.append("w"))
        good = (w * 2).sum()
        bad = _failing_part(kind, x)
        with pytest.raises((RuntimeError, TypeError)):
            (good + bad if order == "good_first" else bad + good).backward()
        if reached:
            seen.add(order)
        assert w.grad is None
    assert seen


def test_failed_grad_call_changes_nothing():
    x = agv.tensor([1.0, 2.0], requires_grad=True)
    unused = agv.tensor([1.0], requires_grad=True)
    x.grad = agv.tensor([9.0, 9.0])
    with pytest.raises(RuntimeError, match="allow_unused"):
        agv.grad((x * 2).sum(), [x, unused])
    assert x.grad.tolist() == [9.0, 9.0] and unused.grad is None


def test_failed_non_scalar_backward_changes_nothing():
    x = agv.tensor([1.0, 2.0], requires_grad=True)
    (x * 2).sum().backward()
    y = x * 5
    with pytest.raises(RuntimeError, match="scalar outputs"):
        y.backward()
    with pytest.raises(RuntimeError, match="shape"):
        y.backward(agv.ones(3))
    assert x.grad.tolist() == [2.0, 2.0]
    y.backward(agv.ones(2))  # the graph is intact: the correct call still works
    assert x.grad.tolist() == [7.0, 7.0]
