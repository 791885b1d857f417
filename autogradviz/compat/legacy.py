"""PyTorch's legacy constructor: the class itself, called as `agv.Tensor(...)`.

Tutorials written before `torch.tensor(...)` existed (PyTorch < 0.4) make
tensors by calling the class: `Tensor(2, 3)` is a 2×3 tensor, `Tensor([1, 2])`
holds that data, always float32 unless `dtype=` says otherwise. The typed classes
`agv.FloatTensor(...)` and friends (autograd/variable.py) share `legacy_array`.

The kernel makes its tensors with `_make` (core/tensor.py), never through
`Tensor(...)`, so this constructor is attached here (see attach.py). A
subclass such as nn.Parameter has its own `__new__` and an `__init__` that does
nothing, so this one never runs for it.
"""

from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.creation import as_array
from ..core.size import Size
from ..core.tensor import Tensor, _init
from .attach import attach


class LegacyConstructor:
    """Not a base class: attach() copies this body onto Tensor."""

    def __init__(self, *args, dtype=None, requires_grad: bool = False):
        # like torch.Tensor(...): the class itself makes float32 tensors by default, and
        # takes either data, Tensor([1, 2]), or a size, Tensor(2, 3) (see legacy_array)
        _init(self, legacy_array(args, dtypes.to_dtype(dtype) if dtype is not None else dtypes.float32))
        if requires_grad:
            self.requires_grad = True


def legacy_array(args: tuple, dtype: dtypes.DType) -> np.ndarray:
    """What agv.Tensor(...) and agv.FloatTensor(...) hold, as in PyTorch: no argument
    is an empty tensor, integers are a size (PyTorch leaves the memory uninitialised:
    here it is zeros, so that printing it is deterministic), and one argument that
    is not an integer is data. A tensor must already have the dtype."""
    if not args:
        return np.zeros(0, dtype.numpy)
    if len(args) == 1 and isinstance(args[0], Size):  # FloatTensor(x.shape): a size, not data
        args = tuple(args[0])
    if all(isinstance(n, (int, np.integer)) and not isinstance(n, (bool, np.bool_)) for n in args):
        if any(n < 0 for n in args):
            raise RuntimeError(f"Trying to create tensor with negative dimension: size {list(args)}")
        return np.zeros(tuple(int(n) for n in args), dtype.numpy)
    if len(args) > 1:
        raise TypeError(
            f"new(): expected a size (integers) or one sequence of data, got {len(args)} arguments of types "
            + ", ".join(type(a).__name__ for a in args)
        )
    (data,) = args
    if isinstance(data, Tensor) and data._data.dtype != dtype.numpy:
        raise TypeError(
            f"expected {dtypes.type_name(dtype)} (got {dtypes.type_name(data.dtype)}): this constructor "
            f"makes {dtype!r} tensors; convert with x.to({dtype!r})"
        )
    return as_array(data, dtype)


attach(LegacyConstructor, Tensor)
