"""The four dtypes a lesson needs, named as in PyTorch.

A dtype is a thin label around a numpy dtype: tensors store numpy arrays, and
`agv.float32` prints as `agv.float32` rather than numpy's `dtype('float32')`.
"""

from __future__ import annotations

import numpy as np


class DType:
    __slots__ = ("name", "numpy", "is_floating_point")

    def __init__(self, name: str):
        self.name = name
        self.numpy = np.dtype(name)
        self.is_floating_point = self.numpy.kind == "f"

    def __repr__(self) -> str:
        return f"agv.{self.name}"

    def __reduce__(self):
        return (to_dtype, (self.name,))


float32 = DType("float32")
float64 = DType("float64")
int64 = DType("int64")
bool_ = DType("bool")

_BY_NUMPY = {d.numpy: d for d in (float32, float64, int64, bool_)}
# numpy kinds that have no dtype of their own here are widened, as PyTorch would
_WIDEN = {"i": int64, "u": int64, "b": bool_}


def to_dtype(value) -> DType:
    """Accept agv dtypes, numpy dtypes, Python types and names like "float32"."""
    if isinstance(value, DType):
        return value
    if value is float:  # a Python float is a double: PyTorch maps the type to float64 too
        return float64
    if value is int:
        return int64
    if value is bool:
        return bool_
    try:
        np_dtype = np.dtype(value)
    except TypeError:
        raise TypeError(
            f"unknown dtype {value!r}; use agv.float32, agv.float64, agv.int64 or agv.bool"
        ) from None
    return from_numpy_dtype(np_dtype)


def from_numpy_dtype(np_dtype: np.dtype) -> DType:
    found = _BY_NUMPY.get(np_dtype)
    if found is not None:
        return found
    if np_dtype == np.float16:
        raise TypeError(
            "float16 arrays are not supported: autogradviz computes in float32 or float64. "
            "Convert first, for example array.astype(np.float32)"
        )
    widened = _WIDEN.get(np_dtype.kind)
    if widened is None:
        raise TypeError(f"autogradviz has no dtype for numpy {np_dtype}")
    return widened
