"""Comparisons and other ops whose results carry no gradient."""

from __future__ import annotations

import numpy as np

from ..core.tensor import _make
from ._operands import binary, data, operand
from .reductions import numpy_names
from .shape import _dim


def _compare(name: str, fn):
    def compare(a, b):
        return _make(binary(name, fn, operand(a), operand(b)))

    compare.__name__ = name
    compare.__doc__ = f"Elementwise `{name}`: a bool tensor, outside the graph."
    return compare


eq = _compare("eq", np.equal)
ne = _compare("ne", np.not_equal)
lt = _compare("lt", np.less)
le = _compare("le", np.less_equal)
gt = _compare("gt", np.greater)
ge = _compare("ge", np.greater_equal)
logical_and = _compare("logical_and", np.logical_and)
logical_or = _compare("logical_or", np.logical_or)
logical_xor = _compare("logical_xor", np.logical_xor)
bitwise_and = _compare("bitwise_and", np.bitwise_and)
bitwise_or = _compare("bitwise_or", np.bitwise_or)
bitwise_xor = _compare("bitwise_xor", np.bitwise_xor)


def logical_not(a):
    return _make(np.logical_not(data(operand(a))))


def bitwise_not(a):
    a = data(operand(a))
    return _make(np.logical_not(a) if a.dtype == bool else np.invert(a))


def isnan(a):
    return _make(np.isnan(data(operand(a))))


def isinf(a):
    """True where a is +inf or -inf (never for integers)."""
    return _make(np.isinf(data(operand(a))))


def isfinite(a):
    """True where a is neither inf nor nan (always for integers)."""
    return _make(np.isfinite(data(operand(a))))


def _arg_extreme(op: str, fn, a, dim, keepdim: bool):
    """argmax / argmin, with PyTorch's errors where numpy would raise its own
    ("attempt to get argmax of an empty sequence", "axis 5 is out of bounds")."""
    x = data(operand(a))
    if dim is None:
        if x.size == 0:
            raise IndexError(
                f"{op}(): Expected reduction dim to be specified for input.numel() == 0 "
                f"(the input has shape {x.shape})."
            )
        return _make(np.asarray(fn(x), dtype=np.int64))
    axis = _dim(dim, x.ndim, op)
    if x.ndim and x.shape[axis] == 0:  # an empty row has no largest element
        raise IndexError(
            f"{op}(): Expected reduction dim {axis} to have non-zero size (the input has shape {x.shape})."
        )
    return _make(np.asarray(fn(x, axis=axis, keepdims=keepdim)).astype(np.int64))


def argmax(a, dim=None, keepdim: bool = False, *, axis=None, keepdims=None):
    dim, keepdim = numpy_names("argmax", dim, axis, keepdim, keepdims)
    return _arg_extreme("argmax", np.argmax, a, dim, keepdim)


def argmin(a, dim=None, keepdim: bool = False, *, axis=None, keepdims=None):
    dim, keepdim = numpy_names("argmin", dim, axis, keepdim, keepdims)
    return _arg_extreme("argmin", np.argmin, a, dim, keepdim)


def _any_all(op: str, fn, a, dim, keepdim: bool):
    x = data(operand(a))
    axis = None if dim is None else _dim(dim, x.ndim, op)  # PyTorch's IndexError, not numpy's AxisError
    return _make(np.asarray(fn(x, axis=axis, keepdims=keepdim)))


def any(a, dim=None, keepdim: bool = False, *, axis=None, keepdims=None):  # noqa: A001
    dim, keepdim = numpy_names("any", dim, axis, keepdim, keepdims)
    return _any_all("any", np.any, a, dim, keepdim)


def all(a, dim=None, keepdim: bool = False, *, axis=None, keepdims=None):  # noqa: A001
    dim, keepdim = numpy_names("all", dim, axis, keepdim, keepdims)
    return _any_all("all", np.all, a, dim, keepdim)


def equal(a, b) -> bool:
    """True when both have the same shape and values."""
    x, y = data(operand(a)), data(operand(b))
    return np.shape(x) == np.shape(y) and bool(np.all(x == y))


def allclose(a, b, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    return bool(np.allclose(data(operand(a)), data(operand(b)), rtol=rtol, atol=atol, equal_nan=equal_nan))
