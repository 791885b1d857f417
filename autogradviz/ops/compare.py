"""Comparisons and other ops whose results carry no gradient."""

from __future__ import annotations

import numpy as np

from ..core.tensor import _make
from ._operands import binary, data, operand


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


def argmax(a, dim=None, keepdim: bool = False):
    x = data(operand(a))
    if dim is None:
        return _make(np.asarray(np.argmax(x), dtype=np.int64))
    return _make(np.argmax(x, axis=dim, keepdims=keepdim).astype(np.int64))


def argmin(a, dim=None, keepdim: bool = False):
    x = data(operand(a))
    if dim is None:
        return _make(np.asarray(np.argmin(x), dtype=np.int64))
    return _make(np.argmin(x, axis=dim, keepdims=keepdim).astype(np.int64))


def any(a, dim=None, keepdim: bool = False):  # noqa: A001
    return _make(np.asarray(np.any(data(operand(a)), axis=dim, keepdims=keepdim)))


def all(a, dim=None, keepdim: bool = False):  # noqa: A001
    return _make(np.asarray(np.all(data(operand(a)), axis=dim, keepdims=keepdim)))


def equal(a, b) -> bool:
    """True when both have the same shape and values."""
    x, y = data(operand(a)), data(operand(b))
    return np.shape(x) == np.shape(y) and bool(np.all(x == y))


def allclose(a, b, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    return bool(np.allclose(data(operand(a)), data(operand(b)), rtol=rtol, atol=atol, equal_nan=equal_nan))
