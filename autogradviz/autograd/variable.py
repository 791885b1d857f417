"""PyTorch's spellings from before version 0.4, which old tutorials still use.

Until PyTorch 0.4 (2018), a tensor had no gradient: it was wrapped in a
`Variable`, which had `.data`, `.grad` and `.grad_fn`, and tensors had one
class per dtype, `torch.FloatTensor`, `torch.LongTensor`, ... Then the two
were merged into today's Tensor. The old names still work in PyTorch, and so
they do here:

    x = Variable(agv.ones(2), requires_grad=True)   # a leaf tensor, as agv.ones(2, requires_grad=True)
    agv.FloatTensor([1, 2])                          # agv.tensor([1., 2.])
    agv.LongTensor(2, 3)                             # a 2×3 int64 tensor (zeros)
    isinstance(x, agv.FloatTensor)                   # True: x is a float32 tensor

Each is a thin layer over the Tensor: nothing here has a behaviour of its own.
"""

from __future__ import annotations

import warnings

from ..compat.legacy import legacy_array
from ..core import dtypes
from ..core.tensor import Tensor, _make, refuse_integer_grad


class _VariableMeta(type):
    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, Tensor)  # every tensor is a Variable now, as in PyTorch


class Variable(metaclass=_VariableMeta):
    """`Variable(t)` is a new leaf tensor that shares t's data (as t.detach()), and
    `Variable(t, requires_grad=True)` one that requires grad. PyTorch 2 gives no
    deprecation warning for it, and neither does autogradviz; only `volatile=`,
    which has had no effect since 0.4, warns (PyTorch's UserWarning)."""

    def __new__(cls, data: Tensor, requires_grad: bool = False, volatile: bool = False) -> Tensor:
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        if volatile:
            warnings.warn(
                "volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                UserWarning,
                stacklevel=2,
            )
        out = data.detach()  # a leaf, whatever `data` was computed from
        if requires_grad:
            refuse_integer_grad(out, "Only Tensors of floating point and complex dtype can require gradients")
            out.requires_grad = True
        return out


class _TensorType(type):
    """The class of agv.FloatTensor and friends: calling one makes a tensor of its
    dtype, and isinstance(x, agv.FloatTensor) checks x's dtype. (Tensors are all of
    the one class Tensor: these classes are only names.)"""

    dtype: dtypes.DType

    def __call__(cls, *args) -> Tensor:
        # FloatTensor([1, 2]) holds data, FloatTensor(2, 3) has a size: see legacy_array
        return _make(legacy_array(args, dtypes.to_dtype(cls.dtype)))  # HalfTensor raises here

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, Tensor) and obj._data.dtype == cls.dtype.numpy

    def __repr__(cls) -> str:
        return f"<class 'torch.{cls.__name__}'>"


class FloatTensor(metaclass=_TensorType):
    dtype = dtypes.float32


class DoubleTensor(metaclass=_TensorType):
    dtype = dtypes.float64


class HalfTensor(metaclass=_TensorType):
    dtype = dtypes.float16  # a name only: making one raises (see core/dtypes.py)


class LongTensor(metaclass=_TensorType):
    dtype = dtypes.int64


class IntTensor(metaclass=_TensorType):
    dtype = dtypes.int32


class ShortTensor(metaclass=_TensorType):
    dtype = dtypes.int16


class CharTensor(metaclass=_TensorType):
    dtype = dtypes.int8


class ByteTensor(metaclass=_TensorType):
    dtype = dtypes.uint8


class BoolTensor(metaclass=_TensorType):
    dtype = dtypes.bool_
