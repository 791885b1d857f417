"""Turning op arguments into arrays, with PyTorch's type promotion."""

from __future__ import annotations

import numbers

import numpy as np

from ..tensor import Tensor, _make
from .broadcast import broadcast_error

F64 = np.dtype("float64")
F32 = np.dtype("float32")


def operand(x):
    """A tensor stays a tensor and a Python number stays a number (it needs no
    node edge); anything else (lists, arrays) becomes a constant tensor."""
    if type(x) is Tensor or isinstance(x, (int, float, bool)):
        return x
    if isinstance(x, Tensor):
        return x
    if isinstance(x, numbers.Number):
        return x.item() if hasattr(x, "item") else x
    from ..creation import tensor

    return tensor(x)


def data(x):
    return x._data if type(x) is Tensor else x


def float_data(t: Tensor) -> np.ndarray:
    """Integer tensors become float32 before a float op, as in PyTorch."""
    array = t._data
    return array if array.dtype.kind == "f" else array.astype(F32)


def binary(op: str, fn, a, b) -> np.ndarray:
    """Apply a numpy binary function, turning numpy's broadcast error into one
    that names the op and both shapes, and keeping PyTorch's float32 default."""
    try:
        out = fn(data(a), data(b))
    except ValueError:
        try:
            np.broadcast_shapes(_shape(a), _shape(b))
        except ValueError:
            raise broadcast_error(op, _shape(a), _shape(b)) from None
        raise
    if type(out) is not np.ndarray:
        out = np.asarray(out)
    if out.dtype is F64 and not (_is_f64(a) or _is_f64(b)):
        # numpy widens int64 * float32, or int / int, to float64; PyTorch keeps float32
        out = out.astype(F32)
    return out


def _is_f64(x) -> bool:
    return type(x) is Tensor and x._data.dtype is F64 or type(x) is np.ndarray and x.dtype is F64


def _shape(x) -> tuple:
    return x._data.shape if type(x) is Tensor else np.shape(x)


def wrap(array) -> Tensor:
    return _make(array)
