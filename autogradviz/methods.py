"""Every op is both a function, `agv.exp(x)`, and a method, `x.exp()`.

This table attaches the functions from `autogradviz.ops` to `Tensor`, with the
operators (`+`, `@`, `x[i]`, ...) that Python maps to them.
"""

from __future__ import annotations

from . import engine, ops
from .core import dtypes
from .core.tensor import Tensor

_SAME_NAME = """
    add sub mul div pow neg matmul abs exp log sqrt sin cos tanh sigmoid relu clamp clip
    maximum minimum sum mean var std max min softmax log_softmax logsumexp
    reshape view flatten transpose swapaxes permute squeeze unsqueeze expand t
    eq ne lt le gt ge sign isnan argmax argmin any all allclose equal
    logical_and logical_or logical_not logical_xor
    add_ sub_ mul_ div_ pow_ zero_ fill_ copy_ clamp_ normal_ uniform_
""".split()

for _name in _SAME_NAME:
    setattr(Tensor, _name, getattr(ops, _name))


def _swap(fn):
    def reflected(self, other):
        return fn(other, self)

    return reflected


def _where(self, condition, other):
    """x.where(cond, y) is agv.where(cond, x, y), as in PyTorch."""
    return ops.where(condition, self, other)


def _expand_as(self, other):
    return ops.expand(self, other.shape)


def _reshape_as(self, other):
    return ops.reshape(self, other.shape)


def _to(self, *args, dtype=None, device=None, copy: bool = False):
    """x.to(agv.float64), x.to("cpu"), x.to(other_tensor), x.to("cpu", agv.float64):
    the same tensor when nothing changes, as in PyTorch."""
    for arg in args:
        if isinstance(arg, str):
            device = arg
        elif isinstance(arg, Tensor):
            dtype = arg.dtype
        else:
            dtype = arg
    if device is not None:
        _check_device(device)
    out = self if dtype is None else ops.to(self, dtypes.to_dtype(dtype))
    return ops.clone(out) if copy and out is self else out


def _check_device(device) -> None:
    if str(device).split(":")[0] != "cpu":
        raise RuntimeError(
            f"autogradviz computes with numpy on the CPU: there is no device {str(device)!r}. "
            'Tutorial code that moves tensors to a GPU works here with device "cpu".'
        )


def _cpu(self):
    return self


def _cuda(self, *args, **kwargs):
    _check_device("cuda")


def _contiguous(self):
    """The same tensor if its data is laid out row by row (C order), else a copy."""
    return self if self._data.flags.c_contiguous else ops.clone(self)


def _setitem(self, index, value):
    ops.setitem(self, index, value)


def _backward(self, gradient=None, retain_graph=None, create_graph: bool = False) -> None:
    """Compute the gradient of this tensor with respect to every leaf that
    requires grad, and add it into their `.grad`."""
    engine.backward([self], None if gradient is None else [gradient], retain_graph, create_graph)


_METHODS = {
    "__add__": ops.add,
    "__radd__": _swap(ops.add),
    "__sub__": ops.sub,
    "__rsub__": ops.rsub,
    "__mul__": ops.mul,
    "__rmul__": _swap(ops.mul),
    "__truediv__": ops.div,
    "__rtruediv__": _swap(ops.div),
    "__pow__": ops.pow,
    "__rpow__": _swap(ops.pow),
    "__matmul__": ops.matmul,
    "__rmatmul__": _swap(ops.matmul),
    "__neg__": ops.neg,
    "__abs__": ops.abs,
    "__iadd__": ops.add_,
    "__isub__": ops.sub_,
    "__imul__": ops.mul_,
    "__itruediv__": ops.div_,
    "__eq__": ops.eq,
    "__ne__": ops.ne,
    "__lt__": ops.lt,
    "__le__": ops.le,
    "__gt__": ops.gt,
    "__ge__": ops.ge,
    "__and__": ops.bitwise_and,
    "__or__": ops.bitwise_or,
    "__xor__": ops.bitwise_xor,
    "__rand__": _swap(ops.bitwise_and),
    "__ror__": _swap(ops.bitwise_or),
    "__rxor__": _swap(ops.bitwise_xor),
    "__invert__": ops.bitwise_not,
    "__getitem__": ops.getitem,
    "__setitem__": _setitem,
    "backward": _backward,
    "where": _where,
    "expand_as": _expand_as,
    "reshape_as": _reshape_as,
    "view_as": _reshape_as,
    "to": _to,
    "cpu": _cpu,
    "cuda": _cuda,
    "contiguous": _contiguous,
    "is_contiguous": lambda self: self._data.flags.c_contiguous,
    "float": lambda self: ops.to(self, dtypes.float32),
    "double": lambda self: ops.to(self, dtypes.float64),
    "long": lambda self: ops.to(self, dtypes.int64),
    "bool": lambda self: ops.to(self, dtypes.bool_),
    "clone": ops.clone,
    "T": property(lambda self: ops.permute(self, tuple(range(self.ndim))[::-1])),
    "mT": property(lambda self: ops.transpose(self, -2, -1)),
}

for _name, _fn in _METHODS.items():
    setattr(Tensor, _name, _fn)

# numpy must hand `array * tensor` to Tensor.__rmul__ instead of looping over the tensor
Tensor.__array_ufunc__ = None
