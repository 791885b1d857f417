"""Reductions: sum, mean, var, std, max/min, softmax and friends.

A reduction's backward spreads the gradient back over the reduced axes. The
helper `_unreduce` puts the reduced axes back (size 1) so it can broadcast.

As PyTorch does, every reduction also takes numpy's names for its keywords:
`x.sum(axis=1, keepdims=True)` is `x.sum(dim=1, keepdim=True)` (`numpy_names`).
"""

from __future__ import annotations

import warnings
from collections import namedtuple

import numpy as np

from ..core.dtypes import to_dtype
from ..core.graph import OUTPUT, Node
from ..core.record import record
from ..core.tensor import _make
from ._operands import QUIET_NUMPY, float_data, operand
from .pointwise import maximum, minimum

ValuesIndices = namedtuple("ValuesIndices", ["values", "indices"])


def _axes(dim, ndim: int) -> tuple[int, ...]:
    """`dim` as a tuple of non-negative axes; None means all of them, and so
    does an empty tuple, as in PyTorch."""
    dims = (dim,) if isinstance(dim, int) else tuple(dim or ())
    if not dims:
        return tuple(range(ndim))
    # a 0-d tensor accepts dim 0 or -1. (Not max(ndim, 1): in this module, max is
    # the tensor op defined below, not Python's builtin.)
    bound = ndim if ndim > 0 else 1
    out = []
    for d in dims:
        if not -bound <= d < bound:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-bound}, {bound - 1}], but got {d})"
            )
        if d % bound in out:  # sum((0, 0)) or sum((0, -2)): PyTorch refuses to reduce a dim twice
            raise RuntimeError(f"dim {d % bound} appears multiple times in the list of dims")
        out.append(d % bound)
    # a 0-d tensor accepts dim 0 or -1, and has no axis to reduce
    return tuple(sorted(out)) if ndim else ()


def numpy_names(op: str, dim, axis, keepdim: bool, keepdims: bool | None):
    """dim and keepdim, from either PyTorch's names or numpy's (axis=, keepdims=),
    which PyTorch accepts as well. Both names at once is PyTorch's TypeError."""
    if axis is not None:
        if dim is not None:
            raise TypeError(
                f"{op}() got an unexpected keyword argument 'axis' "
                "(axis is numpy's name for dim: give one of the two)"
            )
        dim = axis
    if keepdims is not None:
        if keepdim:
            raise TypeError(
                f"{op}() got an unexpected keyword argument 'keepdims' "
                "(keepdims is numpy's name for keepdim: give one of the two)"
            )
        keepdim = keepdims
    return dim, keepdim


def _unreduce(xp, g, shape: tuple, axes: tuple, keepdim: bool):
    """Give `g` back its reduced axes as size 1, so it broadcasts against the input."""
    if not keepdim and axes and len(shape):
        g = xp.reshape(g, tuple(1 if i in axes else n for i, n in enumerate(shape)))
    return g


def _count(shape: tuple, axes: tuple) -> int:
    n = 1
    for a in axes:
        n *= shape[a] if shape else 1
    return n


# sum ----------------------------------------------------------------------------
class SumBackward0(Node):
    __slots__ = ()
    op, rules = "sum", ("∂(Σa)/∂aᵢ = 1",)

    def vjp(self, xp, g):
        shape, axes, keepdim = self.args
        return (xp.expand(_unreduce(xp, g, shape, axes, keepdim), shape),)


class SumBackward1(SumBackward0):
    """sum over some dims: PyTorch names it apart from the sum of everything."""

    __slots__ = ()


def sum(a, dim=None, keepdim: bool = False, dtype=None, *, axis=None, keepdims=None):  # noqa: A001
    dim, keepdim = numpy_names("sum", dim, axis, keepdim, keepdims)
    a = operand(a)
    axes = _axes(dim, a.ndim)
    with np.errstate(**QUIET_NUMPY):  # inf + -inf is nan, silently; numpy's np.sum would warn
        out = np.sum(a._data, axis=axes, keepdims=keepdim)
    if dtype is not None:
        out = out.astype(to_dtype(dtype).numpy)
    elif a._data.dtype.kind == "b":
        out = out.astype(np.int64)
    node = SumBackward0 if dim is None else SumBackward1
    return record(node, out, (a,), args=(a.shape, axes, keepdim))


# mean ---------------------------------------------------------------------------
class MeanBackward0(Node):
    __slots__ = ()
    op, rules = "mean", ("∂mean(a)/∂aᵢ = 1/n",)

    def vjp(self, xp, g):
        shape, axes, keepdim = self.args
        n = _count(shape, axes)
        return (xp.expand(_unreduce(xp, g / n, shape, axes, keepdim), shape),)


def mean(a, dim=None, keepdim: bool = False, *, axis=None, keepdims=None):
    dim, keepdim = numpy_names("mean", dim, axis, keepdim, keepdims)
    a = operand(a)
    if a._data.dtype.kind != "f":
        raise RuntimeError(
            f"mean(): could not infer output dtype. Input dtype must be floating point, but got {a.dtype!r}"
        )
    axes = _axes(dim, a.ndim)
    n = _count(a.shape, axes)
    # the sum divided by the count is what np.mean computes, without its overhead (and
    # without its "Mean of empty slice" warning, which np.errstate does not reach)
    with np.errstate(**QUIET_NUMPY):  # the mean of nothing is 0/0 = nan, of inf and -inf too
        out = np.sum(a._data, axis=axes, keepdims=keepdim) / n
    node = MeanBackward0 if dim is None else MeanBackward1
    return record(node, out, (a,), args=(a.shape, axes, keepdim))


class MeanBackward1(MeanBackward0):
    __slots__ = ()


# var, std (unbiased by default: divide by n - 1) ---------------------------------------------
def _correction(unbiased, correction) -> int:
    if correction is not None:
        return int(correction)
    return 1 if unbiased in (None, True) else 0


class VarBackward0(Node):
    __slots__ = ()
    op, rules = "var", ("∂var(a)/∂aᵢ = 2(aᵢ - mean)/(n - c)",)

    def vjp(self, xp, g, a):
        axes, keepdim, c = self.args
        n = _count(a.shape, axes)
        centered = a - xp.mean(a, axes, True)
        return (_unreduce(xp, g, a.shape, axes, keepdim) * 2 * centered / (n - c),)


def _spread(op: str, fn, a, axes: tuple, keepdim: bool, c: int) -> np.ndarray:
    """np.var or np.std of a over `axes`, with the correction c. With inf among the
    values it is nan, silently, as in PyTorch. With n - c <= 0 values (one value and
    the default c = 1, or none at all) it is nan or inf, with PyTorch's warning;
    numpy gives the same numbers, but its own warning ("Degrees of freedom <= 0", from
    its Python code, which np.errstate does not reach): that one is filtered, only
    then (not on the hot path)."""
    with np.errstate(**QUIET_NUMPY):
        if _count(a.shape, axes) > c:
            return fn(a._data, axis=axes, keepdims=keepdim, ddof=c)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            out = fn(a._data, axis=axes, keepdims=keepdim, ddof=c)
    warnings.warn(
        f"{op}(): degrees of freedom is <= 0. Correction should be strictly less than the "
        "reduction factor (input numel divided by output numel).",
        UserWarning,
        stacklevel=3,  # the learner's line, which called var() or std()
    )
    return out


def _float_only(a, op: str) -> None:
    """var and std: PyTorch refuses integer and bool tensors (it does not convert them)."""
    if a._data.dtype.kind != "f":
        raise RuntimeError(
            f"{op}(): std and var only support floating point dtypes, but got {a.dtype!r}. "
            "Convert first, for example x.float()"
        )


def _float_only_kernel(a, op: str) -> None:
    """softmax and log_softmax: PyTorch has no kernel for integer or bool tensors."""
    if a._data.dtype.kind != "f":
        raise NotImplementedError(
            f"{op}(): not implemented for {a.dtype!r}; it needs a floating point tensor. "
            "Convert first, for example x.float()"
        )


def var(a, dim=None, unbiased=None, keepdim: bool = False, *, correction=None, axis=None, keepdims=None):
    dim, keepdim = numpy_names("var", dim, axis, keepdim, keepdims)
    a = operand(a)
    _float_only(a, "var")
    axes = _axes(dim, a.ndim)
    c = _correction(unbiased, correction)
    out = _spread("var", np.var, a, axes, keepdim, c)
    return record(VarBackward0, out, (a,), saved=(a,), args=(axes, keepdim, c))


class StdBackward0(Node):
    __slots__ = ()
    op, rules = "std", ("∂std(a)/∂aᵢ = (aᵢ - mean)/((n - c)·std)",)

    def vjp(self, xp, g, a, out):
        axes, keepdim, c = self.args
        n = _count(a.shape, axes)
        centered = a - xp.mean(a, axes, True)
        # where std is 0 (all values equal) PyTorch sends 0, not 0/0: x / (std + eps)
        # must stay finite on a constant row
        zero = out == 0
        per_unit = xp.where(zero, 0.0, g / ((n - c) * xp.where(zero, 1.0, out)))
        return (_unreduce(xp, per_unit, a.shape, axes, keepdim) * centered,)


def std(a, dim=None, unbiased=None, keepdim: bool = False, *, correction=None, axis=None, keepdims=None):
    dim, keepdim = numpy_names("std", dim, axis, keepdim, keepdims)
    a = operand(a)
    _float_only(a, "std")
    axes = _axes(dim, a.ndim)
    c = _correction(unbiased, correction)
    out = _spread("std", np.std, a, axes, keepdim, c)
    return record(StdBackward0, out, (a,), saved=(a, OUTPUT), args=(axes, keepdim, c))


# max, min ---------------------------------------------------------------------------
class MaxBackward1(Node):
    """max or min over the whole tensor: ties share the gradient evenly."""

    __slots__ = ()
    op, rules = "max", ("1/k at each of the k largest (equal) elements, 0 elsewhere",)

    def vjp(self, xp, g, a, out):
        winners = a == out
        if out != out:  # the result is NaN (x != x only for NaN): the NaNs are the winners, as in PyTorch
            winners = a != a
        return (xp.where(winners, g / winners.sum(), 0.0),)


class MinBackward1(MaxBackward1):
    __slots__ = ()
    op, rules = "min", ("1/k at each of the k smallest (equal) elements, 0 elsewhere",)


class MaxBackward0(Node):
    """max or min along a dim: the gradient goes to the element that was picked."""

    __slots__ = ()
    op, rules = "max", ("1 at the index picked, 0 elsewhere",)

    def vjp(self, xp, g, picked):
        axes, keepdim = self.args
        return (xp.where(picked, _unreduce(xp, g, picked.shape, axes, keepdim), 0.0),)


class MinBackward0(MaxBackward0):
    __slots__ = ()
    op, rules = "min", ("1 at the index picked, 0 elsewhere",)


def _extreme(a, dim, keepdim, largest: bool):
    a = operand(a)
    if isinstance(dim, type(a)):  # max(a, b) is maximum(a, b), as in PyTorch
        return (maximum if largest else minimum)(a, dim)
    x = a._data
    name = "max" if largest else "min"
    if dim is None:
        if x.size == 0:
            raise RuntimeError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0 "
                f"(the input has shape {x.shape}). Specify the reduction dim with the 'dim' argument."
            )
        value = x.max() if largest else x.min()
        node = MaxBackward1 if largest else MinBackward1
        # saved (not kept in args) so that backward checks their versions and frees them
        return record(node, np.asarray(value), (a,), saved=(a, OUTPUT))
    if a.ndim == 0:  # one element: treat it as a vector of one, once dim is checked (0 or -1)
        _axes(dim, 0)
        values, indices = _extreme(a.reshape(1), 0, keepdim, largest)
        return ValuesIndices(values.reshape(()), indices.reshape(()))
    (axis,) = _axes(dim, a.ndim)
    # an empty tensor works as long as the reduced dim is not the empty one: max over
    # dim 0 of shape (1, 2, 0) gives values and indices of shape (2, 0), as in PyTorch
    if x.shape[axis] == 0:
        raise IndexError(
            f"{name}(): Expected reduction dim {axis} to have non-zero size (the input has shape {x.shape})"
        )
    index = (np.argmax if largest else np.argmin)(x, axis=axis, keepdims=True)
    values = np.take_along_axis(x, index, axis=axis)
    picked = np.zeros(x.shape, dtype=bool)
    np.put_along_axis(picked, index, True, axis=axis)
    if not keepdim:
        values, index = values.squeeze(axis), index.squeeze(axis)
    node = MaxBackward0 if largest else MinBackward0
    out = record(node, values, (a,), saved=(picked,), args=((axis,), keepdim))
    return ValuesIndices(out, _make(index.astype(np.int64)))


def max(a, dim=None, keepdim: bool = False, *, axis=None, keepdims=None):  # noqa: A001
    """The largest element, or along `dim` a (values, indices) pair."""
    dim, keepdim = numpy_names("max", dim, axis, keepdim, keepdims)
    return _extreme(a, dim, keepdim, largest=True)


def min(a, dim=None, keepdim: bool = False, *, axis=None, keepdims=None):  # noqa: A001
    dim, keepdim = numpy_names("min", dim, axis, keepdim, keepdims)
    return _extreme(a, dim, keepdim, largest=False)


# amax, amin: the largest (smallest) values over one or more dims, without indices -----------------
class AmaxBackward0(Node):
    """Ties share the gradient evenly, as in PyTorch: g · [a = out] / (how many equal out)."""

    __slots__ = ()
    op, rules = "amax", ("1/k at each of the k largest (equal) elements, 0 elsewhere",)

    def vjp(self, xp, g, a, out):
        axes, keepdim = self.args
        winners = a == _unreduce(xp, out, a.shape, axes, keepdim)
        count = xp.sum(winners, axes, True)  # 0 only where out is NaN: then 0/0 is NaN, as in PyTorch
        with np.errstate(invalid="ignore"):  # that 0/0 is meant: no warning
            return (_unreduce(xp, g, a.shape, axes, keepdim) * winners / count,)


class AminBackward0(AmaxBackward0):
    __slots__ = ()
    op, rules = "amin", ("1/k at each of the k smallest (equal) elements, 0 elsewhere",)


def _amax_amin(op: str, a, dim, keepdim: bool, axis, keepdims):
    dim, keepdim = numpy_names(op, dim, axis, keepdim, keepdims)
    a = operand(a)
    x = a._data
    axes = _axes(dim, a.ndim)
    if x.size == 0:  # PyTorch's errors, where numpy's would say "zero-size array to reduction operation"
        if dim is None or dim == [] or dim == ():
            raise RuntimeError(
                f"{op}(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        for d in axes:
            if x.shape[d] == 0:
                raise IndexError(f"{op}(): Expected reduction dim {d} to have non-zero size.")
    out = (np.max if op == "amax" else np.min)(x, axis=axes, keepdims=keepdim)
    node = AmaxBackward0 if op == "amax" else AminBackward0
    return record(node, np.asarray(out), (a,), saved=(a, OUTPUT), args=(axes, keepdim))


def amax(a, dim=(), keepdim: bool = False, *, axis=None, keepdims=None):
    """The largest values over `dim` (all dims by default): max's values, without
    its indices, and over several dims at once."""
    return _amax_amin("amax", a, None if dim == () else dim, keepdim, axis, keepdims)


def amin(a, dim=(), keepdim: bool = False, *, axis=None, keepdims=None):
    return _amax_amin("amin", a, None if dim == () else dim, keepdim, axis, keepdims)


# softmax, log_softmax, logsumexp (numerically stable: subtract the max first) ------------------
def _shifted(x: np.ndarray, axis: int) -> np.ndarray:
    return x - x.max(axis=axis, keepdims=True) if x.size else x


def _empty_integral(a, dim) -> bool:
    """softmax and log_softmax check the dim first (IndexError, a 0-d tensor too), as
    PyTorch does; then an int or bool tensor with no elements has nothing to compute,
    and PyTorch returns it as it is (same dtype) instead of refusing its dtype."""
    _axes(dim, a.ndim)
    return a._data.size == 0 and a._data.dtype.kind != "f"


class SoftmaxBackward0(Node):
    __slots__ = ()
    op, rules = "softmax", ("∂sᵢ/∂aⱼ = sᵢ(δᵢⱼ - sⱼ)",)

    def vjp(self, xp, g, out):
        (axis,) = self.args
        return (out * (g - xp.sum(g * out, axis, True)),)


def softmax(a, dim: int | None = None, *, axis: int | None = None):
    dim, _ = numpy_names("softmax", dim, axis, False, None)
    dim = -1 if dim is None else dim
    a = operand(a)
    if _empty_integral(a, dim):
        return _make(a._data.copy())
    _float_only_kernel(a, "softmax")
    if a.ndim == 0:
        return softmax(a.reshape(1), 0).reshape(())
    (axis,) = _axes(dim, a.ndim)
    with np.errstate(**QUIET_NUMPY):  # inf - inf is nan, silently, as in PyTorch
        e = np.exp(_shifted(a._data, axis))
        out = e / e.sum(axis=axis, keepdims=True)
    return record(SoftmaxBackward0, out, (a,), saved=(OUTPUT,), args=(axis,))


class LogSoftmaxBackward0(Node):
    __slots__ = ()
    op, rules = "log_softmax", ("∂(log sᵢ)/∂aⱼ = δᵢⱼ - sⱼ",)

    def vjp(self, xp, g, out):
        (axis,) = self.args
        return (g - xp.exp(out) * xp.sum(g, axis, True),)


def log_softmax(a, dim: int | None = None, *, axis: int | None = None):
    dim, _ = numpy_names("log_softmax", dim, axis, False, None)
    dim = -1 if dim is None else dim
    a = operand(a)
    if _empty_integral(a, dim):
        return _make(a._data.copy())
    _float_only_kernel(a, "log_softmax")
    if a.ndim == 0:
        return log_softmax(a.reshape(1), 0).reshape(())
    (axis,) = _axes(dim, a.ndim)
    with np.errstate(**QUIET_NUMPY):  # inf - inf is nan, log(0) is -inf, silently, as in PyTorch
        z = _shifted(a._data, axis)
        out = z - np.log(np.exp(z).sum(axis=axis, keepdims=True))
    return record(LogSoftmaxBackward0, out, (a,), saved=(OUTPUT,), args=(axis,))


class LogsumexpBackward0(Node):
    __slots__ = ()
    op, rules = "logsumexp", ("∂lse(a)/∂aᵢ = softmax(a)ᵢ",)

    def vjp(self, xp, g, a, out):
        axes, keepdim = self.args
        g = _unreduce(xp, g, a.shape, axes, keepdim)
        out = _unreduce(xp, out, a.shape, axes, keepdim)
        return (g * xp.exp(a - out),)


def logsumexp(a, dim=None, keepdim: bool = False, *, axis=None, keepdims=None):
    dim, keepdim = numpy_names("logsumexp", dim, axis, keepdim, keepdims)
    if dim is None:  # PyTorch has no default: which dims to reduce must be said
        raise TypeError('logsumexp() missing 1 required positional arguments: "dim"')
    a = operand(a)
    axes = _axes(dim, a.ndim)
    x = float_data(a)
    top = np.max(x, axis=axes, keepdims=True) if x.size else np.zeros((1,) * x.ndim, x.dtype)
    top = np.where(np.isfinite(top), top, 0)
    with np.errstate(**QUIET_NUMPY):  # log(0) is -inf, exp(inf) is inf, silently, as in PyTorch
        out = np.log(np.sum(np.exp(x - top), axis=axes, keepdims=True)) + top
    if not keepdim:
        out = out.reshape([n for i, n in enumerate(out.shape) if i not in axes])
    out = out.astype(x.dtype, copy=False)
    return record(LogsumexpBackward0, out, (a,), saved=(a, OUTPUT), args=(axes, keepdim))
