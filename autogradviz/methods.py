"""Every op is both a function, `agv.exp(x)`, and a method, `x.exp()`.

This table attaches the functions from `autogradviz.ops` to `Tensor`, with the
operators (`+`, `@`, `x[i]`, ...) that Python maps to them.
"""

from __future__ import annotations

from . import backward_and_grad, ops
from .core import device as _device
from .core import dtypes
from .core.tensor import Tensor
from .ops import arithmetic, sampling

_SAME_NAME = """
    add sub mul div pow neg matmul abs exp log sqrt sin cos tanh sigmoid relu clamp clip
    maximum minimum sum mean var std max min softmax log_softmax logsumexp
    reshape view flatten transpose swapaxes permute squeeze unsqueeze expand t
    narrow select split chunk unbind floor_divide remainder fmod histogram
    eq ne lt le gt ge sign isnan isinf isfinite argmax argmin any all allclose equal
    logical_and logical_or logical_not logical_xor
    add_ sub_ mul_ div_ pow_ zero_ fill_ copy_ clamp_ normal_ uniform_
    log10 log2 log1p expm1 exp2 sinh cosh tan asin acos atan atan2 arctan2 square rsqrt reciprocal
    floor ceil round trunc erf mm mv dot bmm outer ger norm prod cumsum det inverse
    abs_ neg_ exp_ exp2_ expm1_ log_ log2_ log10_ log1p_ sqrt_ rsqrt_ square_ reciprocal_
    sin_ cos_ tan_ sinh_ cosh_ tanh_ asin_ acos_ atan_ sigmoid_ relu_ floor_ ceil_ round_ trunc_
    clamp_min_ clamp_max_
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


def _to(
    self, *args, dtype=None, device=None, copy: bool = False, non_blocking: bool = False, memory_format=None
):
    """x.to(agv.float64), x.to("cpu"), x.to(other_tensor), x.to("cpu", agv.float64):
    the same tensor when nothing changes, as in PyTorch. The device must be the
    CPU (core/device.py); `non_blocking` changes nothing, numpy copies at once."""
    dtype = _device.to_arguments(args, dtype, device)
    out = self if dtype is None else ops.to(self, dtypes.to_dtype(dtype))
    return ops.clone(out) if copy and out is self else out


def _type(self, dtype=None, non_blocking: bool = False):
    """PyTorch's older spelling of `to`: x.type() names the type ("torch.FloatTensor"),
    and x.type(agv.float64), x.type("torch.DoubleTensor") or x.type(agv.DoubleTensor)
    converts (the same tensor when the dtype is already that)."""
    if dtype is None:
        return dtypes.type_name(self.dtype)
    return ops.to(self, dtypes.to_dtype(dtype))


def _cpu(self, memory_format=None):
    return self


def _cuda(self, device=None, non_blocking: bool = False, memory_format=None):
    """There is no GPU: PyTorch's error, with a hint."""
    _device.check("cuda")


def _contiguous(self):
    """The same tensor if its data is laid out row by row (C order), else a copy."""
    return self if self._data.flags.c_contiguous else ops.clone(self)


def _rdiv(self, other):
    """k / x, for k not a tensor: PyTorch computes it as x.reciprocal() * k, so it records
    MulBackward0 over ReciprocalBackward0 (and its last digit can differ from k / x's).
    We compute and record it the same way; the drawing reads "2 *" (see arithmetic.rmul)."""
    return arithmetic.rmul(ops.reciprocal(self), other)


def _setitem(self, index, value):
    __tracebackhide__ = True  # IPython: a learner's traceback ends at their own line
    ops.setitem(self, index, value)


def _backward(self, gradient=None, retain_graph=None, create_graph: bool = False) -> None:
    """Compute the gradient of this tensor with respect to every leaf that
    requires grad, and add it into their `.grad`."""
    __tracebackhide__ = True  # IPython: a learner's traceback ends at their own line
    backward_and_grad.backward([self], None if gradient is None else [gradient], retain_graph, create_graph)


_METHODS = {
    "__add__": ops.add,
    "__radd__": arithmetic.radd,  # 2 + x: PyTorch records x + 2 (the tensor first)
    "__sub__": ops.sub,
    "__rsub__": ops.rsub,
    "__mul__": ops.mul,
    "__rmul__": arithmetic.rmul,
    "__truediv__": ops.div,
    "__rtruediv__": _rdiv,
    "__floordiv__": ops.floor_divide,
    "__rfloordiv__": arithmetic.rfloordiv,
    "__mod__": ops.remainder,
    "__rmod__": arithmetic.rremainder,
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
    "device": property(lambda self: _device.CPU),
    "is_cuda": property(lambda self: False),
    "is_cpu": property(lambda self: True),
    "get_device": lambda self: -1,  # PyTorch's answer for a tensor on the CPU
    "flip": ops.shape.flip_method,
    "amax": ops.reductions.amax,
    "amin": ops.reductions.amin,
    "bernoulli": sampling.bernoulli,
    "multinomial": sampling.multinomial,
    "contiguous": _contiguous,
    "is_contiguous": lambda self: self._data.flags.c_contiguous,
    "float": lambda self: ops.to(self, dtypes.float32),
    "double": lambda self: ops.to(self, dtypes.float64),
    "long": lambda self: ops.to(self, dtypes.int64),
    "bool": lambda self: ops.to(self, dtypes.bool_),
    "int": lambda self: ops.to(self, dtypes.int32),
    "short": lambda self: ops.to(self, dtypes.int16),
    "char": lambda self: ops.to(self, dtypes.int8),
    "byte": lambda self: ops.to(self, dtypes.uint8),
    "half": lambda self: ops.to(self, dtypes.float16),  # raises: see core/dtypes.py
    "type": _type,
    "clone": ops.clone,
    "T": property(lambda self: ops.permute(self, tuple(range(self.ndim))[::-1])),
    "mT": property(lambda self: ops.transpose(self, -2, -1)),
}

for _name, _fn in _METHODS.items():
    setattr(Tensor, _name, _fn)

# numpy must hand `array * tensor` to Tensor.__rmul__ instead of looping over the tensor
Tensor.__array_ufunc__ = None
