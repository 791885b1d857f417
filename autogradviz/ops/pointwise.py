"""Elementwise functions: each output element depends on one input element,
so each local derivative is an elementwise formula."""

from __future__ import annotations

import builtins
import math

import numpy as np

from ..core.dtypes import to_dtype
from ..core.graph import OUTPUT, Node
from ..core.record import record
from ..core.tensor import Tensor
from . import arithmetic, numpy_math
from ._operands import (
    QUIET_NUMPY,
    binary,
    broadcast_error,
    data,
    elementwise,
    float_data,
    operand,
    result_type,
    torch_float,
)


# sign(a): -1, 0 or 1 ---------------------------------------------------------------
class SignBackward0(Node):
    __slots__ = ()
    elementwise = True
    op, rules = "sign", ("∂sign(a)/∂a = 0",)

    def vjp(self, xp, g):
        # a step function: flat wherever its derivative exists. Recording it
        # anyway (as PyTorch does) keeps abs' and relu's second derivatives at
        # 0 instead of "input not used in the graph". Zeros, not g·0: an inf or nan
        # upstream gradient times 0 would be nan, where PyTorch sends 0
        return (xp.zeros_like(g),)


def sign(a):
    a = operand(a)
    x = a._data
    if x.dtype.kind == "b":  # PyTorch: a bool's sign is itself (numpy has no bool sign)
        return record(SignBackward0, x.copy(), (a,))
    out = np.sign(x)
    if out.dtype.kind == "f":  # sign(nan) is 0 in PyTorch, nan in numpy
        out = np.nan_to_num(out, nan=0.0)
    return record(SignBackward0, out, (a,))


# |a| ----------------------------------------------------------------------------
class AbsBackward0(Node):
    __slots__ = ()
    elementwise = True
    op, rules = "abs", ("∂|a|/∂a = sign(a)",)

    def vjp(self, xp, g, a):
        # PyTorch's sign(nan) is 0, so |a|'s slope at nan is 0; numpy's sign gives nan
        return (g * xp.where(a != a, 0.0, xp.sign(a)),)


def abs(a):  # noqa: A001
    a = operand(a)
    if a._data.dtype.kind == "b":
        raise NotImplementedError(
            "abs: \"abs_cpu\" not implemented for 'Bool': abs() of a bool tensor is not supported "
            "(a mask is already its own absolute value)"
        )
    return record(AbsBackward0, np.abs(a._data), (a,), saved=(a,))


# e^a ----------------------------------------------------------------------------
class ExpBackward0(Node):
    __slots__ = ()
    elementwise = True
    op, rules = "exp", ("∂eᵃ/∂a = eᵃ",)

    def vjp(self, xp, g, out):
        return (g * out,)


def exp(a):
    a = operand(a)
    return record(ExpBackward0, elementwise(np.exp, a), (a,), saved=(OUTPUT,))


# ln a ---------------------------------------------------------------------------
class LogBackward0(Node):
    __slots__ = ()
    elementwise = True
    op, rules = "log", ("∂ln(a)/∂a = 1/a",)

    def vjp(self, xp, g, a):
        return (g / a,)


def log(a):
    a = operand(a)
    return record(LogBackward0, elementwise(np.log, a), (a,), saved=(a,))


# √a -----------------------------------------------------------------------------
class SqrtBackward0(Node):
    __slots__ = ()
    elementwise = True
    op, rules = "sqrt", ("∂√a/∂a = 1/(2√a)",)

    def vjp(self, xp, g, out):
        return (g / (2 * out),)


def sqrt(a):
    a = operand(a)
    return record(SqrtBackward0, elementwise(np.sqrt, a), (a,), saved=(OUTPUT,))


# sin a, cos a ------------------------------------------------------------------------
class SinBackward0(Node):
    __slots__ = ()
    elementwise = True
    op, rules = "sin", ("∂sin(a)/∂a = cos(a)",)

    def vjp(self, xp, g, a):
        return (g * xp.cos(a),)


def sin(a):
    a = operand(a)
    return record(SinBackward0, elementwise(np.sin, a), (a,), saved=(a,))


class CosBackward0(Node):
    __slots__ = ()
    elementwise = True
    op, rules = "cos", ("∂cos(a)/∂a = -sin(a)",)

    def vjp(self, xp, g, a):
        return (-g * xp.sin(a),)


def cos(a):
    a = operand(a)
    return record(CosBackward0, elementwise(np.cos, a), (a,), saved=(a,))


# tanh a ---------------------------------------------------------------------------
class TanhBackward0(Node):
    __slots__ = ()
    elementwise = True
    op, rules = "tanh", ("∂tanh(a)/∂a = 1 - tanh²(a)",)

    def vjp(self, xp, g, out):
        return (g * (1 - out * out),)


def tanh(a):
    a = operand(a)
    return record(TanhBackward0, elementwise(np.tanh, a), (a,), saved=(OUTPUT,))


# σ(a) = 1 / (1 + e^-a) ------------------------------------------------------------------
class SigmoidBackward0(Node):
    __slots__ = ()
    elementwise = True
    op, rules = "sigmoid", ("∂σ(a)/∂a = σ(a)·(1 - σ(a))",)

    def vjp(self, xp, g, out):
        return (g * out * (1 - out),)


def sigmoid(a):
    a = operand(a)
    x = float_data(a)
    # e^-|a| never overflows; the two branches are the same function
    e = np.exp(-np.abs(x))
    out = np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)
    return record(SigmoidBackward0, out, (a,), saved=(OUTPUT,))


# relu(a) = max(a, 0) -------------------------------------------------------------------
class ReluBackward0(Node):
    __slots__ = ()
    elementwise = True
    op, rules = "relu", ("∂relu(a)/∂a = 1 if a > 0 else 0",)

    def vjp(self, xp, g, out):
        # PyTorch's threshold_backward: exactly 0 where out <= 0, g elsewhere, nan included
        # (nan <= 0 is false, and relu(nan) is nan). A where, not g·step(out), which would
        # give nan for an inf or nan g times 0. The 0 is written step(out), which is 0
        # there, so that under create_graph the gradient still depends on out, with
        # derivative 0: a second derivative is then 0, not "not used in the graph"
        if xp is numpy_math and np.isfinite(g).all() and not np.isnan(out).any():
            # the same numbers, when nothing is inf or nan: numpy's where is about 9x
            # slower than this product, and relu's backward is on every MLP's path
            return (g * xp.step(out),)
        return (xp.where(out <= 0, xp.step(out), g),)


def relu(a):
    a = operand(a)
    if a._data.dtype.kind == "b":
        raise RuntimeError("Boolean inputs not supported for relu")
    return record(ReluBackward0, np.maximum(a._data, 0), (a,), saved=(OUTPUT,))


# leaky_relu(a) = a if a > 0 else slope·a ------------------------------------------------------
class LeakyReluBackward0(Node):
    __slots__ = ()
    elementwise = True
    op, rules = "leaky_relu", ("∂/∂a = 1 if a > 0 else negative_slope",)

    def vjp(self, xp, g, a):
        slope = self.args
        # g where a > 0, else slope·g (nan included, as in PyTorch). A where, not a sum of
        # products with step(a), which would give nan for an inf g times 0. Adding step(a),
        # which is 0 on that side, keeps a in a create_graph gradient with derivative 0
        return (xp.where(a > 0, g, g * slope + xp.step(a)),)


class LeakyReluBackward1(LeakyReluBackward0):
    """leaky_relu(..., inplace=True): PyTorch's name for the in-place version."""

    __slots__ = ()


def leaky_relu(a, negative_slope: float = 0.01, _node=LeakyReluBackward0):
    a = operand(a)
    x = float_data(a)
    out = np.where(x > 0, x, x * x.dtype.type(negative_slope))
    return record(_node, out, (a,), saved=(a,), args=negative_slope)


# clamp(a, min, max) ----------------------------------------------------------------------
class ClampBackward1(Node):
    """clamp with number bounds (PyTorch's ClampBackward1)."""

    __slots__ = ()
    elementwise = True
    op, rules = "clamp", ("∂clamp(a)/∂a = 1 if min ≤ a ≤ max else 0",)

    def vjp(self, xp, g, a):
        low, high = self.args
        if low is not None:
            g = xp.where(a >= low, g, 0.0)
        if high is not None:
            g = xp.where(a <= high, g, 0.0)
        return (g,)


class ClampBackward0(Node):
    """clamp with tensor bounds (PyTorch's ClampBackward0): the bounds get gradients too.
    Where min > max the result is max, so then max gets the gradient and min none."""

    __slots__ = ()
    elementwise = True
    op, broadcasts = "clamp", True
    rules = (
        "∂clamp(a)/∂a = 1 if min ≤ a ≤ max else 0",
        "∂clamp(a)/∂min = 1 if a < min < max else 0",
        "∂clamp(a)/∂max = 1 where a > max, 1 where max < min",
    )

    def vjp(self, xp, g, a, low, high):
        # nested where()s, not a logical and: the masks stay ops that create_graph can record
        if low is not None and high is not None:
            return (
                xp.where(a >= low, xp.where(a <= high, g, 0.0), 0.0),
                xp.where(a < low, xp.where(low < high, g, 0.0), 0.0),
                xp.where(a > high, g, xp.where(high < low, g, 0.0)),
            )
        if low is not None:
            return xp.where(a >= low, g, 0.0), xp.where(a < low, g, 0.0), None
        return xp.where(a <= high, g, 0.0), None, xp.where(a > high, g, 0.0)


def _type_name(value) -> str:
    """A value's type as PyTorch's argument parser names it: Tensor, float, numpy.ndarray."""
    if isinstance(value, Tensor):
        return "Tensor"
    kind = type(value)
    return kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"


def check_bounds(name: str, bounds: dict, required: bool = False) -> bool:
    """Check clamp's bounds as PyTorch's argument parser does: each is None, a
    number or a tensor, and the given ones are all numbers or all tensors (PyTorch
    has the two signatures, not a mix). Returns True for tensor bounds. `bounds`
    maps each bound's name to its value: {"min": ..., "max": ...}; `required`:
    None is not allowed (clamp_min_'s one bound)."""
    given = {key: value for key, value in bounds.items() if value is not None or required}
    tensors = [isinstance(value, Tensor) for value in given.values()]
    numbers = [_is_number(value) for value in given.values()]
    if all(tensors) or all(numbers):
        return bool(given) and all(tensors)
    # PyTorch's words: keywords as clamp(min=...) is usually called; a required bound as positional
    if required:
        got = ", ".join(_type_name(value) for value in given.values())
    else:
        got = "".join(f"{key}={_type_name(value)}, " for key, value in given.items())
    default = "" if required else " = None"
    signatures = "".join(
        f" * ({', '.join(f'{kind} {key}{default}' for key in bounds)})\n" for kind in ("Tensor", "Number")
    )
    raise TypeError(
        f"{name}() received an invalid combination of arguments - got ({got}), but expected one of:\n"
        f"{signatures}({name}: {_what_is_wrong(given)})"
    )


def _what_is_wrong(given: dict) -> str:
    """Which bound clamp's argument parser refused, and why, in plain words."""
    for key, value in given.items():
        if not isinstance(value, Tensor) and not _is_number(value):
            return (
                f"{key} is a {_type_name(value)}, not a number or a tensor; "
                "for a list or an array, pass agv.tensor(...)"
            )
    kinds = {key: "a tensor" if isinstance(value, Tensor) else "a number" for key, value in given.items()}
    return f"min is {kinds['min']} and max {kinds['max']}: give both as tensors, or both as numbers"


def _is_number(value) -> bool:
    """A Python or numpy number, as PyTorch's `Number` (an array is not one, even 0-d)."""
    return isinstance(value, (int, float, complex, np.bool_, np.number))


def clamp(a, min=None, max=None):  # noqa: A002 - PyTorch's names
    """Each element of `a` limited to [min, max]. The bounds are numbers, or tensors
    that broadcast with `a` (and then get gradients too)."""
    return clamp_as("clamp", a, min, max)


def clip(a, min=None, max=None):  # noqa: A002 - PyTorch's names
    """clamp's other name (NumPy's); its errors say clip, as PyTorch's do."""
    return clamp_as("clip", a, min, max)


def clamp_as(name: str, a, min, max):  # noqa: A002
    """clamp(a, min, max), its errors naming the op `name` that was called (clip, clamp_)."""
    tensor_bounds = check_bounds(name, {"min": min, "max": max})
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    a = operand(a)
    if tensor_bounds:
        return _clamp_by_tensors(
            a, operand(min) if min is not None else None, operand(max) if max is not None else None
        )
    x = a._data
    min, max = (bound.item() if isinstance(bound, np.generic) else bound for bound in (min, max))
    if x.dtype == np.float32:
        # PyTorch turns each bound into the tensor's dtype first; numpy would silently clamp to inf
        limit = float(np.finfo(np.float32).max)
        for bound in (min, max):
            if isinstance(bound, float) and np.isfinite(bound) and builtins.abs(bound) > limit:
                raise RuntimeError(
                    f"clamp: value cannot be converted to type float without overflow: the bound "
                    f"{bound} is outside float32's range (the tensor is float32)"
                )
    # an int or bool tensor with a float bound gives float32, as in PyTorch; numpy gives float64
    out = torch_float(np.clip(x, min, max), a)
    return record(ClampBackward1, out, (a,), saved=(a,), args=(min, max))


def _clamp_by_tensors(a: Tensor, low: Tensor | None, high: Tensor | None) -> Tensor:
    """clamp(a, min, max) with tensor bounds: a, min and max broadcast together, in
    the dtype PyTorch's promotion gives all three, as min(max(a, min), max): a NaN
    anywhere gives NaN, and where min > max the result is max, as in PyTorch."""
    bounds = [bound for bound in (low, high) if bound is not None]
    shape = a.shape
    for bound in bounds:  # left to right, as PyTorch names the shapes that clash
        try:
            shape = np.broadcast_shapes(shape, bound.shape)
        except ValueError:
            raise broadcast_error("clamp", shape, bound.shape) from None
    target = result_type(a._data, *(bound._data for bound in bounds))
    out = a._data.astype(target, copy=False)
    if low is not None:
        out = np.maximum(out, low._data.astype(target, copy=False))
    if high is not None:
        out = np.minimum(out, high._data.astype(target, copy=False))
    return record(ClampBackward0, out, (a, low, high), saved=(a, low, high))


# maximum(a, b), minimum(a, b) -----------------------------------------------------------------
class MaximumBackward0(Node):
    __slots__ = ()
    elementwise = True
    op, broadcasts = "maximum", True
    rules = ("1 where a > b, ½ where a = b", "1 where b > a, ½ where a = b")

    def vjp(self, xp, g, a, b):
        # a tie splits the gradient in half, as in PyTorch; and as there, each side gets 0
        # only where it is strictly smaller, so where a or b is nan (the output is nan) both get g
        share = xp.where(a == b, g / 2, g)
        return xp.where(a < b, 0.0, share), xp.where(b < a, 0.0, share)


def maximum(a, b):
    a, b = operand(a), operand(b)
    return record(MaximumBackward0, binary("maximum", np.maximum, a, b), (a, b), saved=(a, b))


class MinimumBackward0(Node):
    __slots__ = ()
    elementwise = True
    op, broadcasts = "minimum", True
    rules = ("1 where a < b, ½ where a = b", "1 where b < a, ½ where a = b")

    def vjp(self, xp, g, a, b):
        share = xp.where(a == b, g / 2, g)  # as in maximum: ties halve, nan sends g to both
        return xp.where(a > b, 0.0, share), xp.where(b > a, 0.0, share)


def minimum(a, b):
    a, b = operand(a), operand(b)
    return record(MinimumBackward0, binary("minimum", np.minimum, a, b), (a, b), saved=(a, b))


# where(cond, a, b) ---------------------------------------------------------------------------
class WhereBackward0(Node):
    __slots__ = ()
    elementwise = True
    op, broadcasts = "where", True
    rules = ("∂/∂a = 1 where cond, else 0", "∂/∂b = 1 where not cond, else 0")

    def vjp(self, xp, g, cond):
        # the condition gets no gradient: it is saved, not an input
        return xp.where(cond, g, 0.0), xp.where(cond, 0.0, g)


def where(condition, a, b):
    condition, a, b = operand(condition), operand(a), operand(b)
    cond = np.asarray(data(condition), dtype=bool)
    try:
        out = np.where(cond, data(a), data(b))
    except ValueError:
        shapes = ", ".join(str(np.shape(data(x))) for x in (condition, a, b))
        raise RuntimeError(f"where: shapes {shapes} cannot be broadcast together") from None
    out = torch_float(out, a, b)
    # a bool tensor is saved as itself, so an in-place change to it before backward
    # raises (as in PyTorch); any other condition is saved as the bool array made here
    saved = condition if isinstance(condition, Tensor) and condition._data is cond else cond
    return record(WhereBackward0, out, (a, b), saved=(saved,))


# copies: clone() and to(dtype) ------------------------------------------------------------
class CloneBackward0(Node):
    __slots__ = ()
    elementwise = True
    op, rules = "clone", ("∂clone(a)/∂a = 1",)

    def vjp(self, xp, g):
        return (g,)


def clone(a):
    a = operand(a)
    return record(CloneBackward0, a._data.copy(), (a,))


class ToCopyBackward0(Node):
    __slots__ = ()
    elementwise = True
    op, rules = "to(dtype)", ("∂to(a, dtype)/∂a = 1, back in a's dtype",)

    def vjp(self, xp, g):
        return (xp.to(g, self.args),)


def to(a, dtype):
    """A copy in another dtype; the same tensor if it already has that dtype."""
    a = operand(a)
    target = to_dtype(dtype).numpy
    if a._data.dtype == target:
        return a
    with np.errstate(**QUIET_NUMPY):  # nan or inf to an integer: no warning, as in PyTorch
        out = a._data.astype(target)
    return record(ToCopyBackward0, out, (a,), args=a.dtype)


# more math: the rest of the functions tutorials call (d2l, PyTorch's own) ------------------------
#
# Each is one formula. A few derivatives (sinh's is cosh) are themselves ops of this
# file: in a plain backward they are numpy's, and under create_graph=True they are
# this file's own ops, so that the backward pass is recorded too. `_same` picks.


def _same(xp, numpy_fn, our_fn):
    """numpy's function in a plain backward, autogradviz's (recorded) one under create_graph."""
    return numpy_fn if xp is numpy_math else our_fn


_LN2, _LN10 = math.log(2.0), math.log(10.0)


# log₁₀ a, log₂ a ----------------------------------------------------------------------------
class Log10Backward0(Node):
    __slots__ = ()
    elementwise = True
    op, rules = "log10", ("∂log₁₀(a)/∂a = 1/(a·ln 10)",)

    def vjp(self, xp, g, a):
        return (g / (a * _LN10),)


def log10(a):
    a = operand(a)
    return record(Log10Backward0, elementwise(np.log10, a, via_float64=True), (a,), saved=(a,))


class Log2Backward0(Node):
    __slots__ = ()
    elementwise = True
    op, rules = "log2", ("∂log₂(a)/∂a = 1/(a·ln 2)",)

    def vjp(self, xp, g, a):
        return (g / (a * _LN2),)


def log2(a):
    a = operand(a)
    return record(Log2Backward0, elementwise(np.log2, a, via_float64=True), (a,), saved=(a,))


# ln(1 + a), eᵃ - 1, 2ᵃ: exact for small a, where log(1 + a) and exp(a) - 1 lose digits --------
class Log1PBackward0(Node):
    __slots__ = ()
    elementwise = True
    op, rules = "log1p", ("∂ln(1 + a)/∂a = 1/(1 + a)",)

    def vjp(self, xp, g, a):
        return (g / (a + 1),)


def log1p(a):
    a = operand(a)
    return record(Log1PBackward0, elementwise(np.log1p, a, via_float64=True), (a,), saved=(a,))


class Expm1Backward0(Node):
    __slots__ = ()
    elementwise = True
    op, rules = "expm1", ("∂(eᵃ - 1)/∂a = eᵃ",)

    def vjp(self, xp, g, out):
        return (g * (out + 1),)  # eᵃ is the output plus 1: nothing to recompute


def expm1(a):
    a = operand(a)
    return record(Expm1Backward0, elementwise(np.expm1, a, via_float64=True), (a,), saved=(OUTPUT,))


class Exp2Backward0(Node):
    __slots__ = ()
    elementwise = True
    op, rules = "exp2", ("∂2ᵃ/∂a = 2ᵃ·ln 2",)

    def vjp(self, xp, g, out):
        return (g * out * _LN2,)


def exp2(a):
    a = operand(a)
    return record(Exp2Backward0, elementwise(np.exp2, a, via_float64=True), (a,), saved=(OUTPUT,))


# sinh a, cosh a, tan a ----------------------------------------------------------------------
class SinhBackward0(Node):
    __slots__ = ()
    elementwise = True
    op, rules = "sinh", ("∂sinh(a)/∂a = cosh(a)",)

    def vjp(self, xp, g, a):
        return (g * _same(xp, np.cosh, cosh)(a),)


def sinh(a):
    a = operand(a)
    return record(SinhBackward0, elementwise(np.sinh, a, via_float64=True), (a,), saved=(a,))


class CoshBackward0(Node):
    __slots__ = ()
    elementwise = True
    op, rules = "cosh", ("∂cosh(a)/∂a = sinh(a)",)

    def vjp(self, xp, g, a):
        return (g * _same(xp, np.sinh, sinh)(a),)


def cosh(a):
    a = operand(a)
    return record(CoshBackward0, elementwise(np.cosh, a, via_float64=True), (a,), saved=(a,))


class TanBackward0(Node):
    __slots__ = ()
    elementwise = True
    op, rules = "tan", ("∂tan(a)/∂a = 1 + tan²(a)",)

    def vjp(self, xp, g, out):
        return (g * (1 + out * out),)  # from the output, as PyTorch does: 1 + tan² = 1/cos²


def tan(a):
    a = operand(a)
    return record(TanBackward0, elementwise(np.tan, a, via_float64=True), (a,), saved=(OUTPUT,))


# asin a, acos a, atan a, atan2(a, b) -----------------------------------------------------------
class AsinBackward0(Node):
    __slots__ = ()
    elementwise = True
    op, rules = "asin", ("∂asin(a)/∂a = 1/√(1 - a²)",)

    def vjp(self, xp, g, a):
        return (g / _same(xp, np.sqrt, sqrt)(1 - a * a),)


def asin(a):
    a = operand(a)
    return record(AsinBackward0, elementwise(np.arcsin, a, via_float64=True), (a,), saved=(a,))


class AcosBackward0(Node):
    __slots__ = ()
    elementwise = True
    op, rules = "acos", ("∂acos(a)/∂a = -1/√(1 - a²)",)

    def vjp(self, xp, g, a):
        return (-g / _same(xp, np.sqrt, sqrt)(1 - a * a),)


def acos(a):
    a = operand(a)
    return record(AcosBackward0, elementwise(np.arccos, a, via_float64=True), (a,), saved=(a,))


class AtanBackward0(Node):
    __slots__ = ()
    elementwise = True
    op, rules = "atan", ("∂atan(a)/∂a = 1/(1 + a²)",)

    def vjp(self, xp, g, a):
        return (g / (a * a + 1),)


def atan(a):
    a = operand(a)
    return record(AtanBackward0, elementwise(np.arctan, a, via_float64=True), (a,), saved=(a,))


class Atan2Backward0(Node):
    """atan2(a, b): the angle of the point (b, a), in (-π, π]."""

    __slots__ = ()
    elementwise = True
    op, broadcasts = "atan2", True
    rules = ("∂atan2(a, b)/∂a = b/(a² + b²)", "∂atan2(a, b)/∂b = -a/(a² + b²)")

    def vjp(self, xp, g, a, b):
        scale = g / (a * a + b * b)
        return scale * b, -scale * a


def atan2(a, b):
    a, b = operand(a), operand(b)
    # two integer tensors give float32, as in PyTorch; numpy would give float64
    out = torch_float(binary("atan2", np.arctan2, a, b), a, b)
    return record(Atan2Backward0, out, (a, b), saved=(a, b))


arctan2 = atan2


# 1/a, 1/√a ------------------------------------------------------------------------------------
class ReciprocalBackward0(Node):
    __slots__ = ()
    elementwise = True
    op, rules = "reciprocal", ("∂(1/a)/∂a = -1/a²",)

    def vjp(self, xp, g, out):
        return (-g * out * out,)  # 1/a² is the output squared


def reciprocal(a):
    a = operand(a)
    return record(ReciprocalBackward0, elementwise(np.reciprocal, a), (a,), saved=(OUTPUT,))


class RsqrtBackward0(Node):
    __slots__ = ()
    elementwise = True
    op, rules = "rsqrt", ("∂(1/√a)/∂a = -1/(2a√a)",)

    def vjp(self, xp, g, out):
        return (-0.5 * g * out * out * out,)  # 1/(a√a) is the output cubed


def rsqrt(a):
    a = operand(a)
    out = elementwise(lambda x: 1 / np.sqrt(x), a, via_float64=True)
    return record(RsqrtBackward0, out, (a,), saved=(OUTPUT,))


def square(a):
    """a²: PyTorch records it as a ** 2 (PowBackward0), and so does autogradviz."""
    return arithmetic.pow(a, 2)


# floor, ceil, round, trunc: steps, flat wherever their derivative exists ---------------------------
class FloorBackward0(Node):
    """floor, and (as subclasses) ceil, round and trunc: their gradient is 0."""

    __slots__ = ()
    elementwise = True
    op, rules = "floor", ("∂floor(a)/∂a = 0",)

    def vjp(self, xp, g):
        return (xp.zeros_like(g),)  # zeros, not g·0, which is nan for an inf g


class CeilBackward0(FloorBackward0):
    __slots__ = ()
    op, rules = "ceil", ("∂ceil(a)/∂a = 0",)


class RoundBackward0(FloorBackward0):
    __slots__ = ()
    op, rules = "round", ("∂round(a)/∂a = 0",)


class RoundBackward1(FloorBackward0):
    """round(a, decimals=n): PyTorch's name when decimals are given."""

    __slots__ = ()
    op, rules = "round", ("∂round(a, decimals)/∂a = 0",)


class TruncBackward0(FloorBackward0):
    __slots__ = ()
    op, rules = "trunc", ("∂trunc(a)/∂a = 0",)


def _step(node: type[Node], fn, a):
    a = operand(a)
    x = a._data
    if x.dtype.kind in "iub":  # an integer is already whole: PyTorch returns a copy, same dtype
        return record(node, x.copy(), (a,))
    return record(node, fn(x), (a,))


def floor(a):
    return _step(FloorBackward0, np.floor, a)


def ceil(a):
    return _step(CeilBackward0, np.ceil, a)


def trunc(a):
    return _step(TruncBackward0, np.trunc, a)


def round(a, *, decimals: int = 0):  # noqa: A001 - PyTorch's name
    """Halves go to the even neighbour (round(2.5) is 2), in numpy and PyTorch alike."""
    if decimals == 0:
        return _step(RoundBackward0, np.round, a)
    return _step(RoundBackward1, lambda x: np.round(x, decimals), a)


# erf(a) = 2/√π·∫₀ᵃ e^(-t²) dt: the Gaussian's integral (exact GELU is a·Φ(a), Φ built on erf) -----
class ErfBackward0(Node):
    __slots__ = ()
    elementwise = True
    op, rules = "erf", ("∂erf(a)/∂a = 2·exp(-a²)/√π",)

    def vjp(self, xp, g, a):
        return (g * _TWO_OVER_SQRT_PI * xp.exp(-(a * a)),)


_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_erf = np.vectorize(math.erf, otypes=[np.float64])  # numpy has no erf; Python's math module does


def erf(a):
    a = operand(a)
    x = float_data(a)
    return record(ErfBackward0, _erf(x).astype(x.dtype, copy=False).reshape(x.shape), (a,), saved=(a,))
