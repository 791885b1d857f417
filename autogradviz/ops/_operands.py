"""Turning op arguments into arrays, with PyTorch's type promotion."""

from __future__ import annotations

import numbers
import sys

import numpy as np

from ..core import views
from ..core.creation import tensor
from ..core.tensor import Tensor, _make
from .broadcast import broadcast_error

F64 = np.dtype("float64")
F32 = np.dtype("float32")


def operand(x):
    """A tensor stays a tensor and a Python number stays a number (it needs no
    node edge); anything else (lists, arrays) becomes a constant tensor.

    A view whose base was changed in place since it was made is brought up to
    date here, as the op takes it: the op must see its new history (and its
    new requires_grad) before it decides what to save."""
    if type(x) is Tensor:
        if x._meta is not None:
            views.refresh_if_stale(x)
        return x
    if type(x) is float or type(x) is int:
        return x
    if isinstance(x, (int, float, bool)):
        return x
    if isinstance(x, Tensor):
        return x
    if isinstance(x, numbers.Number):
        return x.item() if hasattr(x, "item") else x
    return tensor(x)


def data(x):
    return x._data if type(x) is Tensor else x


def factors_to_save(a, b) -> tuple:
    """What a product a·b (or a @ b) saves for backward: each factor only if the
    other one needs a gradient, since ∂(ab)/∂a = b. As in PyTorch, a factor that
    nothing will use may then change in place freely."""
    return (
        a if type(b) is Tensor and b._requires_grad else None,
        b if type(a) is Tensor and a._requires_grad else None,
    )


def float_data(t: Tensor) -> np.ndarray:
    """Integer tensors become float32 before a float op, as in PyTorch."""
    array = t._data
    return array if array.dtype.kind == "f" else array.astype(F32)


def binary(op: str, fn, a, b) -> np.ndarray:
    """Apply a numpy binary function, turning numpy's broadcast error into one
    that names the op and both shapes, and keeping PyTorch's float32 default."""
    try:
        out = fn(a._data if type(a) is Tensor else a, b._data if type(b) is Tensor else b)
    except ValueError:
        try:
            np.broadcast_shapes(_shape(a), _shape(b))
        except ValueError:
            raise broadcast_error(op, _shape(a), _shape(b)) from None
        # numpy's other ValueErrors (int ** -1: "Integers to negative integer powers
        # are not allowed.") are RuntimeErrors in PyTorch, with the same text
        raise RuntimeError(*sys.exc_info()[1].args) from None
    if type(out) is not np.ndarray:
        out = np.asarray(out)
    return torch_float(out, a, b) if out.dtype is F64 else out


def torch_float(out: np.ndarray, *operands) -> np.ndarray:
    """numpy widens to float64 more often than PyTorch: for int64 * 2.5, int / int,
    int64 + float32, or float32 + a 0-d float64 tensor. PyTorch gives float64
    only when a float64 tensor decides the dtype, where tensors with dimensions
    decide before 0-d ones, and a Python number never decides it."""
    if out.dtype != F64:
        return out
    floats = [
        x for x in map(data, operands) if isinstance(x, (np.ndarray, np.generic)) and x.dtype.kind == "f"
    ]
    deciding = [x for x in floats if x.ndim > 0] or floats
    return out if any(x.dtype == F64 for x in deciding) else out.astype(F32)


def is_bool(x) -> bool:
    """A bool tensor, or a Python bool (which PyTorch treats as a bool scalar)."""
    return x._data.dtype.kind == "b" if type(x) is Tensor else isinstance(x, (bool, np.bool_))


def _shape(x) -> tuple:
    return x._data.shape if type(x) is Tensor else np.shape(x)


def wrap(array) -> Tensor:
    return _make(array)
