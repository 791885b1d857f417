"""Edge cases of shapes, dims and dtypes where autogradviz used to differ from
PyTorch: values accepted silently that PyTorch refuses, and crashes where
PyTorch works. Each is run on both libraries (torch is the oracle); for our
errors the exact message is pinned too, since learners read it."""

from __future__ import annotations

import re

import numpy as np
import pytest

import autogradviz as agv

torch = pytest.importorskip("torch")

from _parity import raises_alike, same  # noqa: E402


def raises_exactly(fn, exc, message: str) -> None:
    """Ours raises `exc` with exactly `message`; torch raises the same class."""
    with pytest.raises(exc) as ours:
        fn(agv)
    assert str(ours.value) == message
    with pytest.raises(exc):
        fn(torch)


# A. wrong values that were accepted silently ---------------------------------------------
@pytest.mark.parametrize("op", ["cat", "stack"])
@pytest.mark.parametrize("dim", [-4, -3, -2, -1, 0, 1, 2, 3])
def test_cat_stack_dims_in_and_out_of_range(op, dim):
    same(lambda m: getattr(m, op)([m.ones(2, 3), m.zeros(2, 3)], dim))


def test_cat_stack_dim_out_of_range_messages():
    two = lambda m: [m.ones(2, 3), m.ones(2, 3)]  # noqa: E731
    raises_exactly(
        lambda m: m.cat(two(m), 2),
        IndexError,
        "cat: Dimension out of range (expected to be in range of [-2, 1], but got 2)",
    )
    raises_exactly(
        lambda m: m.cat(two(m), -3),
        IndexError,
        "cat: Dimension out of range (expected to be in range of [-2, 1], but got -3)",
    )
    raises_exactly(
        lambda m: m.stack(two(m), 3),
        IndexError,
        "stack: Dimension out of range (expected to be in range of [-3, 2], but got 3)",
    )
    raises_exactly(
        lambda m: m.stack(two(m), -4),
        IndexError,
        "stack: Dimension out of range (expected to be in range of [-3, 2], but got -4)",
    )
    same(lambda m: m.stack([m.tensor(1.0), m.tensor(2.0)], 1))  # 0-d: only dims 0 and -1


def test_cat_stack_negative_dim_gradients():
    def run(m):
        a = m.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        b = m.tensor([[5.0], [6.0]], requires_grad=True)
        (m.cat([a, b], -1) * m.arange(6.0).reshape(2, 3)).sum().backward()
        c = m.tensor([1.0, 2.0], requires_grad=True)
        (m.stack([c, c * 2], -1) * m.tensor([[1.0, 10.0], [100.0, 1000.0]])).sum().backward()
        return a.grad, b.grad, c.grad

    same(run)


@pytest.mark.parametrize("op", ["sum", "mean", "var", "std", "logsumexp"])
@pytest.mark.parametrize("dims", [(0, 0), (0, -2), (1, -1)])
def test_repeated_dims_raise(op, dims):
    same(lambda m: getattr(m.ones(2, 3), op)(dims))


def test_repeated_dims_message_and_zero_d():
    raises_exactly(
        lambda m: m.ones(2, 3).sum((0, 0)), RuntimeError, "dim 0 appears multiple times in the list of dims"
    )
    raises_exactly(
        lambda m: m.ones(2, 3).mean((1, -1)), RuntimeError, "dim 1 appears multiple times in the list of dims"
    )
    same(lambda m: m.tensor(1.0).sum((0, -1)))  # 0-d: 0 and -1 are the same dim
    same(lambda m: m.tensor(1.0).sum((0,)))
    same(lambda m: m.ones(2, 3).sum(()))  # an empty tuple still means every dim


@pytest.mark.parametrize(
    "index",
    [
        slice(None, None, -1),
        slice(2, 0, -1),
        (slice(None), slice(None, None, -2)),
        (0, slice(None, None, -1)),
    ],
)
def test_negative_step_raises(index):
    same(lambda m: m.arange(6.0).reshape(2, 3)[index])


def test_negative_step_message_and_setitem():
    raises_exactly(
        lambda m: m.arange(3.0)[::-1],
        ValueError,
        "index: step must be greater than zero, but got -1 in ::-1. "
        "To reverse, index with a list of positions: x[agv.arange(n - 1, -1, -1)]",
    )

    def write(m):
        x = m.zeros(3)
        x[::-1] = m.ones(3)
        return x

    same(write)
    same(lambda m: m.arange(6.0)[::2])  # a positive step still works
    raises_alike(lambda m: m.arange(3.0)[::0], ValueError, "slice step cannot be zero")


@pytest.mark.parametrize(
    "shape, start, end",
    [((0,), 0, 0), ((0, 3), 0, 0), ((0, 3), 1, 1), ((0, 3), 0, 1), ((2, 0, 3), 1, 2), ((2, 0, 3), 0, 1)],
)
def test_flatten_size_zero(shape, start, end):
    same(lambda m: m.zeros(shape).flatten(start, end))

    def backward(m):
        x = m.zeros(shape, requires_grad=True)
        x.flatten(start, end).sum().backward()
        return x.grad

    same(backward)


@pytest.mark.parametrize("value", [float("inf"), float("-inf"), float("nan"), 1e30])
def test_float_to_int64_overflow_raises(value):
    same(lambda m: m.tensor([value], dtype=m.int64))
    same(lambda m: m.tensor([1.0, value], dtype=m.int64))


def test_float_just_beyond_int64_raises():
    # 2.0**63 is one past int64's largest value: torch lets it wrap around to -2**63; we refuse
    with pytest.raises(RuntimeError, match="without overflow: 9.223372036854776e"):
        agv.tensor([2.0**63], dtype=agv.int64)


def test_float_to_int64_in_range_truncates():
    same(lambda m: m.tensor([2.7, -2.7, -(2.0**63)], dtype=m.int64))
    same(lambda m: m.tensor([float("inf"), float("nan"), 0.0], dtype=m.bool))


def test_float_to_int64_overflow_message():
    with pytest.raises(RuntimeError) as error:
        agv.tensor([float("inf")], dtype=agv.int64)
    assert str(error.value) == (
        "value cannot be converted to type int64 without overflow: inf "
        "(int64 holds integers from -9223372036854775808 to 9223372036854775807)"
    )
    # a numpy float array too (torch wraps this one around to -2**63; we refuse it)
    with pytest.raises(RuntimeError, match="without overflow: nan"):
        agv.tensor(np.array([1.0, np.nan]), dtype=agv.int64)


def test_uint64_above_int64_range_raises():
    # torch keeps such an array as uint64, a dtype autogradviz doesn't have: refuse it
    # rather than wrap 2**63 around to -2**63
    with pytest.raises(RuntimeError) as error:
        agv.tensor(np.array([1, 2**63], dtype=np.uint64))
    assert str(error.value) == (
        "value cannot be converted to type int64 without overflow: 9223372036854775808 "
        "(int64 holds integers from -9223372036854775808 to 9223372036854775807)"
    )
    small = agv.tensor(np.array([5, 2**63 - 1], dtype=np.uint64))
    assert small.dtype == agv.int64 and small.tolist() == [5, 2**63 - 1]
    assert agv.tensor(np.array([2**63], dtype=np.uint64), dtype=agv.float64).tolist() == [2.0**63]


@pytest.mark.parametrize("value", [2**63, 2**64, -(2**63) - 1])
def test_python_ints_beyond_int64_raise(value):
    same(lambda m: m.tensor([value]))
    same(lambda m: m.tensor([-(2**63), 2**63 - 1]))


@pytest.mark.parametrize(
    "make",
    [
        lambda m: m.zeros(2.5),
        lambda m: m.zeros("3"),
        lambda m: m.zeros(True),
        lambda m: m.zeros(None),
        lambda m: m.zeros((2.5,)),
        lambda m: m.ones(2, 2.5),
        lambda m: m.empty([2, "3"]),
        lambda m: m.rand(2.5),
        lambda m: m.randn(1.0, 2),
        lambda m: m.full((2.5,), 1.0),
    ],
)
def test_creation_sizes_must_be_ints(make):
    same(make)


def test_creation_size_messages_and_accepted_forms():
    raises_exactly(
        lambda m: m.zeros(2.5), TypeError, "zeros(): argument 'size' must be tuple of ints, not float"
    )
    raises_exactly(
        lambda m: m.zeros("3"), TypeError, "zeros(): argument 'size' must be tuple of ints, not str"
    )
    raises_exactly(
        lambda m: m.ones(2, 2.5),
        TypeError,
        "ones(): argument 'size' must be tuple of ints, but found element of type float at pos 1",
    )
    raises_exactly(
        lambda m: m.zeros(2, -1),
        RuntimeError,
        "zeros(): Trying to create tensor with negative dimension: size [2, -1]",
    )
    for size in [(2, 3), ((2, 3),), ([2, 3],), (np.int64(2),)]:
        same(lambda m, size=size: m.zeros(*size))
    same(lambda m: m.zeros(m.tensor(2)))  # a 0-d int tensor counts as an int
    assert agv.ones(agv.tensor([2, 3])).shape == (2, 3)  # our convenience: torch wants ints here


@pytest.mark.parametrize("op", ["var", "std", "softmax", "log_softmax"])
@pytest.mark.parametrize("dtype", ["int64", "bool"])
def test_float_only_reductions_refuse_ints(op, dtype):
    def run(m):
        x = m.arange(6).reshape(2, 3) > 2 if dtype == "bool" else m.arange(6).reshape(2, 3)
        return getattr(x, op)(-1) if "softmax" in op else getattr(x, op)()

    same(run)


def test_float_only_reduction_messages():
    raises_exactly(
        lambda m: m.arange(6).var(),
        RuntimeError,
        "var(): std and var only support floating point dtypes, but got torch.int64. "
        "Convert first, for example x.float()",
    )
    raises_exactly(
        lambda m: m.arange(6).softmax(0),
        NotImplementedError,
        "softmax(): not implemented for torch.int64; it needs a floating point tensor. "
        "Convert first, for example x.float()",
    )
    same(lambda m: m.arange(6).float().std())
    same(lambda m: m.arange(6).reshape(2, 3).logsumexp(0))  # PyTorch accepts ints here


# B. crashes where PyTorch works --------------------------------------------------------
@pytest.mark.parametrize(
    "index",
    [(slice(None), [1, 0]), ([1, 0],), (slice(None), [2, 0, 1]), (slice(None), np.array([0, 0]))],
)
def test_advanced_index_copy_can_be_viewed(index):
    same(lambda m: m.arange(6.0).reshape(2, 3)[index].view(-1))

    def backward(m):
        x = m.arange(6.0).reshape(2, 3).requires_grad_()
        (x[index].view(-1) * m.arange(1.0, 1.0 + x[index].numel())).sum().backward()
        return x.grad

    same(backward)


def test_advanced_index_copy_is_independent():
    x = agv.arange(6.0).reshape(2, 3)
    y = x[:, [1, 0]]
    y.view(-1)[0] = 100.0  # writes into the copy only
    assert x.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert y.tolist() == [[100.0, 0.0], [4.0, 3.0]]


@pytest.mark.parametrize(
    "index",
    [[], ([], 0), (slice(None), []), (0, [])],
)
def test_empty_list_index(index):
    same(lambda m: m.arange(6.0).reshape(2, 3)[index])

    def backward(m):
        x = m.arange(6.0).reshape(2, 3).requires_grad_()
        y = x[index]
        (y.sum() + x.sum() * 0).backward()
        return y, x.grad

    same(backward)


def test_empty_list_index_1d_and_setitem():
    same(lambda m: m.arange(3.0)[[]])

    def write(m):
        x = m.arange(3.0)
        x[[]] = 7.0
        return x

    same(write)


@pytest.mark.parametrize("op", ["min", "max"])
@pytest.mark.parametrize("shape, dim", [((1, 2, 0), 0), ((1, 2, 0), 1), ((0, 2), 1), ((2, 0, 3), -1)])
@pytest.mark.parametrize("keepdim", [False, True])
def test_min_max_over_nonempty_dim_of_empty_tensor(op, shape, dim, keepdim):
    same(lambda m: tuple(getattr(m.zeros(shape), op)(dim=dim, keepdim=keepdim)))

    def backward(m):
        x = m.zeros(shape, requires_grad=True)
        values, _ = getattr(x, op)(dim=dim, keepdim=keepdim)
        values.sum().backward()
        return x.grad

    same(backward)


@pytest.mark.parametrize("op", ["min", "max", "argmin", "argmax"])
def test_min_max_empty_errors(op):
    same(lambda m: getattr(m.zeros(1, 2, 0), op)())
    same(lambda m: getattr(m.zeros(1, 2, 0), op)(2))
    same(lambda m: getattr(m.zeros(0, 3), op)(0))
    same(lambda m: getattr(m.zeros(0, 3), op)(1))


def test_min_max_empty_messages():
    raises_exactly(
        lambda m: m.zeros(1, 2, 0).max(dim=2),
        IndexError,
        "max(): Expected reduction dim 2 to have non-zero size (the input has shape (1, 2, 0))",
    )
    raises_exactly(
        lambda m: m.zeros(1, 2, 0).min(),
        RuntimeError,
        "min(): Expected reduction dim to be specified for input.numel() == 0 (the input has shape "
        "(1, 2, 0)). Specify the reduction dim with the 'dim' argument.",
    )
    raises_exactly(
        lambda m: m.zeros(0, 3).argmax(),
        IndexError,
        "argmax(): Expected reduction dim to be specified for input.numel() == 0 (the input has shape (0, 3)).",
    )


@pytest.mark.parametrize("op", ["argmax", "argmin", "any", "all"])
@pytest.mark.parametrize("dim", [-3, -2, 1, 2])
def test_arg_and_logical_reductions_dim_range(op, dim):
    same(lambda m: getattr(m.arange(6.0).reshape(2, 3), op)(dim))


def test_arg_reduction_dim_message():
    raises_exactly(
        lambda m: m.ones(2, 3).argmax(5),
        IndexError,
        "argmax: Dimension out of range (expected to be in range of [-2, 1], but got 5)",
    )


@pytest.mark.parametrize(
    "fn, shapes",
    [
        (lambda t: t * 2, [(0,)]),
        (lambda t: t.sum(), [(0, 3)]),
        (lambda t, u: t.sum() + u, [(0,), (2,)]),
        (lambda t: t.sum(1), [(3, 0)]),  # a size-0 input, an output of 3 zeros
    ],
)
def test_gradcheck_size_zero_input(fn, shapes):
    def run(m):
        inputs = tuple(m.ones(s, dtype=m.float64, requires_grad=True) for s in shapes)
        check = m.gradcheck if m is agv else torch.autograd.gradcheck
        return check(fn, inputs)

    same(run)


def test_gradcheck_size_zero_input_with_cat():
    def run(m):
        x = m.ones(0, dtype=m.float64, requires_grad=True)
        check = m.gradcheck if m is agv else torch.autograd.gradcheck
        return check(lambda t: m.cat([t, m.ones(2, dtype=m.float64)]), (x,))

    same(run)


@pytest.mark.parametrize(
    "args",
    [
        (0, 5, 0),
        (0.0, 5.0, 0.0),
        (0, 5, -1),
        (5, 0, 1),
        (5, 0, -1),
        (0, float("inf")),
        (0, float("nan")),
        (3, 3),
    ],
)
def test_arange_checks(args):
    same(lambda m: m.arange(*args))


def test_arange_messages():
    raises_exactly(
        lambda m: m.arange(0, 5, 0),
        RuntimeError,
        "arange(): step must be nonzero (got start=0, end=5, step=0)",
    )
    raises_exactly(
        lambda m: m.arange(0, 5, -1),
        RuntimeError,
        "arange(): upper bound and lower bound inconsistent with step sign (start=0, end=5, step=-1)",
    )
    raises_exactly(lambda m: m.arange(float("inf")), RuntimeError, "arange(): unsupported range: 0 -> inf")


@pytest.mark.parametrize("gradient", ["abc", b"abc", {"a": 1}, object()])
def test_backward_with_a_non_tensor_gradient(gradient):
    def run(m):
        y = m.ones(2, requires_grad=True) * 2
        y.backward(gradient)

    same(run)
    with pytest.raises(TypeError) as error:
        run(agv)
    assert str(error.value) == (
        f"backward: gradients can be either Tensors or None, but got {type(gradient).__name__}"
    )


def test_grad_functions_with_a_str_gradient():
    def run(m, how):
        y = m.ones(2, requires_grad=True) * 2
        if how == "backward":
            (agv.autograd.backward if m is agv else torch.autograd.backward)([y], ["abc"])
        else:
            (agv.autograd.grad if m is agv else torch.autograd.grad)([y], [y], ["abc"])

    for how in ("backward", "grad"):
        with pytest.raises(
            TypeError, match=re.escape("gradients can be either Tensors or None, but got str")
        ):
            run(agv, how)
        with pytest.raises(TypeError):
            run(torch, how)


def test_backward_number_and_list_gradients_still_accepted():
    # a convenience of ours (PyTorch wants a Tensor): numbers and lists of numbers
    x = agv.ones(2, requires_grad=True)
    (x * 2).backward([1.0, 3.0])
    assert x.grad.tolist() == [2.0, 6.0]
    y = agv.tensor(2.0, requires_grad=True)
    (y * y).backward(1.0)
    assert y.grad.item() == 4.0


@pytest.mark.parametrize("value", [[5.0], [[5.0]]])
def test_setitem_int_index_with_leading_size_one_value(value):
    # PyTorch drops the value's leading size-1 dims; numpy's scalar assignment refused them
    def run(m):
        x = m.zeros(3, requires_grad=True)
        v = m.tensor(value, requires_grad=True)
        y = x * 1
        y[0] = v
        (y * m.tensor([2.0, 3.0, 4.0])).sum().backward()
        return y, x.grad, v.grad

    same(run)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: agv.ones(6).reshape(2.0, 3),
            "reshape(): argument 'shape' must be a tuple of ints, but found element of type float at pos 0",
        ),
        (
            lambda: agv.ones(6).view(2, 3.0),
            "view(): argument 'shape' must be a tuple of ints, but found element of type float at pos 1",
        ),
        (
            lambda: agv.ones(2, 1).expand(2, 3.5),
            "expand(): argument 'shape' must be a tuple of ints, but found element of type float at pos 1",
        ),
        (
            lambda: agv.ones(2, 3).permute(1.0, 0),
            "permute(): argument 'shape' must be a tuple of ints, but found element of type float at pos 0",
        ),
        (
            lambda: agv.ones(6).reshape(True, 6),
            "reshape(): argument 'shape' must be a tuple of ints, but found element of type bool at pos 0",
        ),
    ],
)
def test_shapes_must_be_ints_as_in_torch(call, message):
    with pytest.raises(TypeError) as error:
        call()
    assert str(error.value) == message


def test_a_0d_int_tensor_is_a_size():
    assert agv.ones(6).reshape(agv.tensor(2), 3).shape == tuple(
        torch.ones(6).reshape(torch.tensor(2), 3).shape
    )
