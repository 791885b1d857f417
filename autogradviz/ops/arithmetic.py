"""Arithmetic: + - * / ** @ and negation.

Each op is a forward function next to its backward node, whose `vjp` returns
"upstream gradient times local derivative" for each input. Gradients that come
back broadcast (too big) are summed to each input's shape by the engine.
"""

from __future__ import annotations

import math

import numpy as np

from ..core.graph import OUTPUT, Node
from ..core.record import record
from ..core.tensor import Tensor, _make
from . import numpy_math
from ._operands import binary, data, factors_to_save, is_bool, operand
from .broadcast import sum_to

# A number on the left, 2 + x or 2 * x: Python calls x.__radd__(2), and PyTorch then
# computes x + 2, so its node's next_functions list the tensor first: ((x's node, 0),
# (None, 0)). We record the same order (radd, rmul below), with this mark as the node's
# `args`, so that its drawing still reads "2 +", as the learner wrote it.
NUMBER_FIRST = "number first"


def _numbers_as_written(node: Node) -> tuple[list, list]:
    before, after = Node.numbers_used(node)
    return (after, before) if node.args is NUMBER_FIRST else (before, after)


# c = a + b ---------------------------------------------------------------------
class AddBackward0(Node):
    __slots__ = ()
    elementwise = True
    op, broadcasts = "+", True
    rules = ("∂(a+b)/∂a = 1", "∂(a+b)/∂b = 1")

    def numbers_used(self):
        return _numbers_as_written(self)

    def vjp(self, xp, g):
        return g, g


def add(a, b):
    a, b = operand(a), operand(b)
    return record(AddBackward0, binary("add", np.add, a, b), (a, b))


def radd(b, k):
    """k + b: what Python calls for `2 + x`; recorded as x + 2, as PyTorch does."""
    b, k = operand(b), operand(k)
    if isinstance(k, Tensor):
        return add(k, b)
    return record(AddBackward0, binary("add", np.add, k, b), (b, k), args=NUMBER_FIRST)


# c = a - b ---------------------------------------------------------------------
class SubBackward0(Node):
    __slots__ = ()
    elementwise = True
    op, broadcasts = "-", True
    rules = ("∂(a-b)/∂a = 1", "∂(a-b)/∂b = -1")

    def vjp(self, xp, g):
        return g, -g


def sub(a, b):
    a, b = operand(a), operand(b)
    _refuse_bool_subtraction(a, b)
    return record(SubBackward0, binary("sub", np.subtract, a, b), (a, b))


def _refuse_bool_subtraction(a, b) -> None:
    """PyTorch refuses - with a bool on either side (a Python True counts); numpy
    would raise a TypeError for two bools and compute ints for one."""
    if not (is_bool(a) or is_bool(b)):
        return
    if is_bool(a) and is_bool(b):
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. "
            "Use the `^` or `logical_xor()` operator instead."
        )
    raise RuntimeError(
        "Subtraction, the `-` operator, with a bool tensor is not supported. "
        "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."
    )


# c = a * b ---------------------------------------------------------------------
class MulBackward0(Node):
    __slots__ = ()
    elementwise = True
    op, broadcasts = "*", True
    rules = ("∂(a·b)/∂a = b", "∂(a·b)/∂b = a")

    def numbers_used(self):
        return _numbers_as_written(self)

    def vjp(self, xp, g, a, b):
        # each factor was saved only if the other one needs a gradient (see mul)
        return (None if b is None else g * b), (None if a is None else g * a)


def mul(a, b):
    a, b = operand(a), operand(b)
    return record(MulBackward0, binary("mul", np.multiply, a, b), (a, b), saved=factors_to_save(a, b))


def rmul(b, k):
    """k * b: what Python calls for `2 * x`; recorded as x * 2, as PyTorch does."""
    b, k = operand(b), operand(k)
    if isinstance(k, Tensor):
        return mul(k, b)
    out = binary("mul", np.multiply, k, b)
    return record(MulBackward0, out, (b, k), saved=factors_to_save(b, k), args=NUMBER_FIRST)


# c = a / b ---------------------------------------------------------------------
class DivBackward0(Node):
    __slots__ = ()
    elementwise = True
    op, broadcasts = "/", True
    rules = ("∂(a/b)/∂a = 1/b", "∂(a/b)/∂b = -a/b²")

    def vjp(self, xp, g, a, b):
        # -a/b² as PyTorch computes it, (a/b)/b: b·b can underflow to 0 where a/b/b does
        # not (0/0 = nan for b = 5e-324, where PyTorch gives 0)
        return (g / b if self.needs(0) else None), (-g * (a / b / b) if self.needs(1) else None)


def div(a, b, *, rounding_mode: str | None = None):
    """a / b; with rounding_mode="floor" or "trunc", rounded toward -inf or toward 0
    (DivBackward2, whose gradient is 0: a rounded quotient is flat between its jumps)."""
    a, b = operand(a), operand(b)
    if rounding_mode is not None:
        return _rounded_div(a, b, rounding_mode)
    # a is needed only for b's gradient, -g·a/b²; b always (g/b, and -g·a/b²)
    return record(
        DivBackward0, binary("div", np.true_divide, a, b), (a, b), saved=(factors_to_save(a, b)[0], b)
    )


# c = -a ------------------------------------------------------------------------
class NegBackward0(Node):
    __slots__ = ()
    elementwise = True
    op = "neg"
    rules = ("∂(-a)/∂a = -1",)

    def vjp(self, xp, g):
        return (-g,)


def neg(a):
    a = operand(a)
    if a._data.dtype.kind == "b":  # numpy's TypeError here would not be PyTorch's class
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. "
            "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )
    return record(NegBackward0, np.negative(a._data), (a,))


# c = a ** p, p a number ------------------------------------------------------------
class PowBackward0(Node):
    __slots__ = ()
    elementwise = True
    op = "**"
    rules = ("∂(aᵖ)/∂a = p·aᵖ⁻¹",)

    def numbers_used(self):
        return [], [self.args]  # x ** 2: the exponent is a parameter, not an input

    def vjp(self, xp, g, a):
        p = self.args
        if p == 0:  # a⁰ is the constant 1: zeros, as in PyTorch, even for an inf or nan g
            return (xp.zeros_like(g),)
        return (g * p * xp.power(a, p - 1),)  # xp.power: a ** -0.5 as PyTorch's rsqrt


# c = a ** b, b a tensor --------------------------------------------------------------
class PowBackward1(Node):
    __slots__ = ()
    elementwise = True
    op, broadcasts = "**", True
    rules = ("∂(aᵇ)/∂a = b·aᵇ⁻¹", "∂(aᵇ)/∂b = aᵇ·ln a")

    def vjp(self, xp, g, a, b, out):
        if self.needs(0) and _is_bool_array(b):
            # PyTorch's formula b·aᵇ⁻¹ computes b - 1, which it refuses for a bool b
            raise RuntimeError(
                "Subtraction, the `-` operator, with a bool tensor is not supported. "
                "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead. "
                "(The backward of a ** b computes b - 1, and the exponent b is a bool tensor: "
                "convert it first, for example a ** b.float().)"
            )
        # in the output's dtype: float32 ** float64 (b with dimensions) is float64, and
        # ln a taken in float32 would leave b's float64 gradient with float32's digits
        a = xp.to(a, out.dtype)
        # PyTorch's conventions: the slope in a is exactly 0 where b == 0 (a⁰ is the
        # constant 1), even for an inf g; the slope in b, aᵇ·ln a, is taken as 0 where
        # a == 0 and b >= 0 (ln 0 is -inf), and then multiplied by g, so an inf g gives nan
        with np.errstate(divide="ignore", invalid="ignore"):  # 0⁻¹ = inf, ln 0 = -inf: intended
            ga = xp.where(b == 0, 0.0, g * b * a ** (b - 1))
            gb = g * xp.where((a == 0) & (b >= 0), 0.0, out * xp.log(a))
        return ga, gb


def pow(a, b):  # noqa: A001 - PyTorch's name
    a, b = operand(a), operand(b)
    power = numpy_math.power  # np.power, except a ** -0.5, which PyTorch computes as rsqrt(a)
    if hasattr(b, "_data") and _integral(a) and _integral(b):
        if is_bool(a) and is_bool(b):
            raise NotImplementedError(
                f"pow: \"pow\" not implemented for 'Bool': both the base and the exponent are bool "
                f"(shapes {np.shape(data(a))} and {b._data.shape}); convert one first, for example b.long()"
            )
        # a tensor exponent: PyTorch computes negative integer powers (a number exponent,
        # x ** -1, raises in both, with the same text)
        power = _integer_power
    out = binary("pow", power, a, b)
    if not hasattr(b, "_data"):
        return record(PowBackward0, out, (a,), saved=(a,), args=b)
    if not hasattr(a, "_data"):
        # 2 ** x: ln 2 is computed once, at the output's precision (ln 0 = -inf, used only where 0ᵇ = inf)
        ln_base = None  # an integer result (2 ** int tensor) has no gradient
        if out.dtype.kind == "f":
            ln_base = np.asarray(-np.inf, out.dtype) if a == 0 else np.log(np.asarray(a, out.dtype))
        return record(PowBackward2, out, (b,), saved=(OUTPUT,), args=(a, ln_base))
    return record(PowBackward1, out, (a, b), saved=(a, b, OUTPUT))


def _is_bool_array(x) -> bool:
    """A bool array (plain backward) or bool tensor (create_graph=True)."""
    return getattr(x, "_data", x).dtype.kind == "b"


def _integral(x) -> bool:
    """An integer or bool tensor, or a Python int or bool."""
    if isinstance(x, Tensor):
        return x._data.dtype.kind in "biu"
    return isinstance(x, (int, np.integer, np.bool_))


def _integer_power(x, y):
    """Integers to integer-tensor powers, as PyTorch computes them where numpy
    raises: a negative power of 1 is 1, of -1 is ±1 (as its positive power), and
    of any other integer is 0 (1/xⁿ rounded toward 0; 0 for 0 too, as in PyTorch)."""
    negative = np.asarray(y) < 0
    if not negative.any():
        return np.power(x, y)
    # only the parity of a negative exponent matters (for -1). Taking y % 2, not -y,
    # also works for INT64_MIN, whose negation overflows back to itself
    out = np.power(x, np.where(negative, y % 2, y))
    return np.where(negative & (np.abs(x) != 1), 0, out)


# c = k ** b, k a number -----------------------------------------------------------------
class PowBackward2(Node):
    __slots__ = ()
    elementwise = True
    op = "**"
    rules = ("∂(kᵇ)/∂b = kᵇ·ln k",)

    def numbers_used(self):
        return [self.args[0]], []  # 2 ** x: the number comes first

    def vjp(self, xp, g, out):
        k, ln_base = self.args
        if k == 0:
            # PyTorch: 0 where b >= 0, which is where 0ᵇ is 0 or 1; elsewhere 0ᵇ·ln 0 =
            # inf·(-inf) = -inf (nan for a nan b). Then times g, so an inf g can give nan
            with np.errstate(invalid="ignore"):  # 0·(-inf) = nan, in the branch not taken
                return (g * xp.where(out <= 1, 0.0, out * ln_base),)
        return (g * out * ln_base,)


# c = k - b, k a number (PyTorch's "reversed subtraction") ----------------------------------------
class RsubBackward1(Node):
    __slots__ = ()
    elementwise = True
    op = "-"
    rules = ("∂(k-b)/∂b = -1",)

    def numbers_used(self):
        return [self.args[0]], []  # 2 - x: the number comes first

    def vjp(self, xp, g):
        return (-g,)


def rsub(b, k):
    """k - b: what Python calls for `2 - x`."""
    b, k = operand(b), operand(k)
    if hasattr(k, "_data"):
        return sub(k, b)
    _refuse_bool_subtraction(k, b)
    return record(RsubBackward1, binary("rsub", np.subtract, k, b), (b,), args=(k,))


# c = a @ b --------------------------------------------------------------------------
class MatmulBackward0(Node):
    """Also covers vectors (1-D) and batches (3-D and more)."""

    __slots__ = ()
    op, broadcasts = "@", True
    rules = ("∂(a@b)/∂a = g @ bᵀ", "∂(a@b)/∂b = aᵀ @ g")
    torch_name = (
        "— (autogradviz only: for shapes other than mm, mv and dot, PyTorch's matmul records the ops "
        "it is made of, e.g. UnsafeViewBackward0 over BmmBackward0)"
    )

    def vjp(self, xp, g, a, b):
        # a is kept only when b needs a gradient, and b only when a does
        a_ndim, b_ndim = self.args
        if a_ndim == 1 and b_ndim == 1:
            return (g * b if self.needs(0) else None), (g * a if self.needs(1) else None)
        # treat a vector as a one-row (a) or one-column (b) matrix, then undo it
        if a_ndim == 1:
            g = xp.reshape(g, g.shape[:-1] + (1,) + g.shape[-1:])
        if b_ndim == 1:
            g = xp.reshape(g, g.shape + (1,))
        ga = gb = None
        if self.needs(0):
            if b_ndim == 1:
                b = xp.reshape(b, b.shape + (1,))
            ga = g @ xp.transpose(b, -1, -2)
            if a_ndim == 1:
                ga = xp.reshape(ga, ga.shape[:-2] + ga.shape[-1:])
        if self.needs(1):
            if a_ndim == 1:
                a = xp.reshape(a, (1,) + a.shape)
            gb = xp.transpose(a, -1, -2) @ g
            if b_ndim == 1:
                gb = xp.reshape(gb, gb.shape[:-1])
        return ga, gb


class MmBackward0(MatmulBackward0):
    """PyTorch's name for matrix @ matrix; Mv: matrix @ vector; Dot: vector @ vector."""

    __slots__ = ()
    torch_name = None  # PyTorch's own name (MatmulBackward0's note is not about these)


class MvBackward0(MatmulBackward0):
    __slots__ = ()
    torch_name = None  # PyTorch's own name (MatmulBackward0's note is not about these)


class DotBackward0(MatmulBackward0):
    __slots__ = ()
    torch_name = None  # PyTorch's own name (MatmulBackward0's note is not about these)


_MATMUL_NODES = {(2, 2): MmBackward0, (2, 1): MvBackward0, (1, 1): DotBackward0}


def matmul(a, b):
    a, b = operand(a), operand(b)
    x, y = data(a), data(b)
    if np.ndim(x) == 0 or np.ndim(y) == 0:
        raise RuntimeError(
            f"matmul: both arguments need to be at least 1-D, but got shapes {np.shape(x)} and {np.shape(y)}"
        )
    try:
        out = binary("matmul", np.matmul, a, b)
    except (RuntimeError, ValueError):
        raise _matmul_error(x.shape, y.shape) from None
    # after the shapes, as PyTorch checks them: numpy would promote, PyTorch raises
    if x.dtype != y.dtype:
        raise RuntimeError(
            f"matmul: expected both arguments to have the same dtype, but got {x.dtype} and {y.dtype} "
            f"(shapes {x.shape} and {y.shape}); convert one first, for example b.to(a.dtype)"
        )
    # PyTorch has no bool kernel for a product with terms to add up; with none (an
    # empty result, or an inner size of 0) it returns False-filled bools, except for
    # vector @ vector, which always goes to its "dot" kernel
    if x.dtype.kind == "b" and (x.ndim == y.ndim == 1 or (out.size and x.shape[-1])):
        kernel = "dot" if x.ndim == y.ndim == 1 else "addmv_impl_cpu" if y.ndim == 1 else "addmm_impl_cpu_"
        raise NotImplementedError(
            f"matmul: \"{kernel}\" not implemented for 'Bool': both arguments are bool "
            f"(shapes {x.shape} and {y.shape}); convert first, for example a.long() @ b.long()"
        )
    node = _MATMUL_NODES.get((x.ndim, y.ndim), MatmulBackward0)
    result = record(node, out, (a, b), saved=factors_to_save(a, b), args=(x.ndim, y.ndim))
    if result._grad_fn is not None:
        for position, copied in enumerate(_copied_by_torch(x.shape, y.shape)):
            if copied:
                _keep_own_copy(result._grad_fn, position)
    return result


def _copied_by_torch(x_shape: tuple, y_shape: tuple) -> tuple[bool, bool]:
    """Which operand of a batched a @ b PyTorch's backward keeps as its own copy, so
    that changing the operand in place afterwards is fine. PyTorch multiplies stacks of
    matrices as one big product: a matrix times a stack transposes the stack and
    reshapes it (a copy), and a stack whose batch dims must be broadcast is expanded and
    reshaped (a copy); an operand used as it is stays shared, and its version is checked."""
    batch_x = x_shape[:-2] if len(x_shape) >= 3 else ()
    batch_y = y_shape[:-2] if len(y_shape) >= 3 else ()
    count_x, count_y = math.prod(batch_x), math.prod(batch_y)
    if count_y == 1:  # b is one matrix (or vector): a's stack is folded into one matrix, a view
        return False, False
    if count_x == 1:  # a is one matrix (or vector): b's stack is transposed and copied
        return False, True
    count = math.prod(np.broadcast_shapes(batch_x, batch_y))
    return count_x != count, count_y != count


def _keep_own_copy(node: Node, position: int) -> None:
    """The node keeps a copy of saved value `position`, with a counter of its own that
    nothing changes: the operand it came from may then change in place freely."""
    saved, checks = list(node._saved), []
    for where, source, counter, version in node._checks:
        if where == position:
            saved[where] = saved[where].copy()
            counter = _make(saved[where]).version_counter()
            version = counter.value
        checks.append((where, source, counter, version))
    node._saved, node._checks = tuple(saved), tuple(checks)


# c = β·input + α·(mat1 @ mat2): nn.Linear's b + x·Wᵀ as one op ---------------------------------------
class AddmmBackward0(Node):
    """What nn.Linear records for a batch of rows x: b + x @ Wᵀ, with mat2 = Wᵀ made by
    W.t() (a TBackward0 node between this node and W's AccumulateGrad, as in PyTorch)."""

    __slots__ = ()
    op = "addmm"
    rules = (
        "∂(b + x@M)/∂b = g, summed over the rows b was repeated on (× β)",
        "∂(b + x@M)/∂x = g @ Mᵀ (× α)",
        "∂(b + x@M)/∂M = xᵀ @ g (× α)",
    )

    def vjp(self, xp, g, mat1, mat2):
        # mat1 was saved only if mat2 needs a gradient, and mat2 only if mat1 does
        input_shape, beta, alpha = self.args
        g_input = g_mat1 = g_mat2 = None
        if self.needs(0):
            # input broadcast over the rows (a bias of shape (out,)): sum it back
            g_input = sum_to(xp, g if beta == 1 else g * beta, input_shape)
        if alpha != 1:
            g = g * alpha
        if self.needs(1):
            g_mat1 = g @ xp.transpose(mat2, 0, 1)
        if self.needs(2):
            # mat1ᵀ @ g, computed as (gᵀ @ mat1)ᵀ: for nn.Linear, mat2 is Wᵀ, and gᵀ @ mat1 is laid
            # out as W is, which BLAS computes faster and TBackward0 turns back into W's layout
            g_mat2 = xp.transpose(xp.transpose(g, 0, 1) @ mat1, 0, 1)
        return g_input, g_mat1, g_mat2


def addmm(input, mat1, mat2, *, beta: float = 1, alpha: float = 1) -> Tensor:
    """β·input + α·(mat1 @ mat2), for matrices mat1 (n, k) and mat2 (k, m); input
    broadcasts to (n, m). F.linear(x, W, b) of a matrix x is addmm(b, x, W.t())."""
    bias, m1, m2 = operand(input), operand(mat1), operand(mat2)
    for name, m in (("mat1", m1), ("mat2", m2)):
        if m.ndim != 2:
            raise RuntimeError(f"{name} must be a matrix, got {m.ndim}-D tensor")
    a, b = m1._data, m2._data
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]} and {b.shape[0]}x{b.shape[1]})"
        )
    if a.dtype != b.dtype:
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: {a.dtype} != {b.dtype}; "
            "convert one first, for example mat2.to(mat1.dtype)"
        )
    product = a @ b
    target = product.shape
    try:
        fits = np.broadcast_shapes(bias._data.shape, target) == target
    except ValueError:
        fits = False
    if not fits:
        raise _expand_error(bias._data.shape, target)
    out = (product if alpha == 1 else product * alpha) + (bias._data if beta == 1 else bias._data * beta)
    return addmm_record(bias, m1, m2, out.astype(a.dtype, copy=False), beta, alpha)


def _expand_error(shape: tuple, target: tuple) -> RuntimeError:
    """PyTorch's error when addmm's input does not broadcast to the product's shape."""
    if len(shape) > len(target):
        return RuntimeError(
            f"addmm: the input of shape {list(shape)} has more dimensions than the product of "
            f"shape {list(target)}: it must broadcast to it"
        )
    for i in range(1, len(shape) + 1):
        if shape[-i] not in (1, target[-i]):
            return RuntimeError(
                f"The expanded size of the tensor ({target[-i]}) must match the existing size ({shape[-i]}) "
                f"at non-singleton dimension {len(target) - i}.  Target sizes: {list(target)}.  "
                f"Tensor sizes: {list(shape)}"
            )
    return RuntimeError(f"addmm: the input of shape {list(shape)} does not broadcast to {list(target)}")


def addmm_record(bias: Tensor, mat1: Tensor, mat2: Tensor, out: np.ndarray, beta=1, alpha=1) -> Tensor:
    """Link addmm's result into the graph (F.linear computes `out` itself, and calls this)."""
    return record(
        AddmmBackward0, out, (bias, mat1, mat2), saved=factors_to_save(mat1, mat2),
        args=(bias._data.shape, beta, alpha),
    )  # fmt: skip


def _matmul_error(a_shape: tuple, b_shape: tuple) -> RuntimeError:
    k_a = a_shape[-1]
    k_b = b_shape[0] if len(b_shape) == 1 else b_shape[-2]
    if k_a != k_b:
        return RuntimeError(
            f"matmul: shapes {a_shape} and {b_shape} cannot be multiplied: the last dimension of "
            f"a ({k_a}) must equal the {'size' if len(b_shape) == 1 else 'second-to-last dimension'} "
            f"of b ({k_b})"
        )
    return RuntimeError(
        f"matmul: shapes {a_shape} and {b_shape} cannot be multiplied: their batch dimensions "
        f"{a_shape[:-2]} and {b_shape[:-2]} do not broadcast"
    )


# c = a // b, c = a % b, c = fmod(a, b) ----------------------------------------------------------
# Integers divide exactly, and dividing one by 0 has no answer: PyTorch raises (where numpy
# would quietly give 0). Floats follow IEEE: x // 0 is ±inf or nan, x % 0 is nan.
def _rounded_division(op: str, kernel: str, fn, a, b) -> np.ndarray:
    out = binary(op, fn, a, b)
    if out.dtype.kind == "b":
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")
    if out.dtype.kind in "iu" and np.any(np.asarray(data(b)) == 0):
        raise RuntimeError("ZeroDivisionError")
    return out


def _remainder(a, b):
    """The remainder with the sign of b (Python's %), from the exact fmod, which has the
    sign of a: where the two signs differ, b is added once."""
    mod = np.fmod(a, b)
    return np.where((mod != 0) & ((np.asarray(b) < 0) != (mod < 0)), mod + b, mod)


class _OpWithoutDerivative:
    """NotImplemented's `op`, the name drawings print: the op each node stands for, from
    the aten name in its args (the class itself, in the formula sheet, says "//")."""

    SPELLING = {"floor_divide": "//", "remainder": "%"}

    def __get__(self, node, cls=None) -> str:
        if node is None or node.args is None:
            return "//"
        return self.SPELLING.get(node.args, node.args)


class NotImplemented(Node):  # noqa: A001 - PyTorch's name for the node of an op it cannot differentiate
    """a // b, k % b for a number k, and histogram: PyTorch has no derivative for them.
    It still records a node, so the result requires grad, but backward through it raises."""

    __slots__ = ()
    op = _OpWithoutDerivative()
    rules = ("no derivative: backward raises, as in PyTorch",)

    def numbers_used(self):
        return [], []

    def vjp(self, xp, g):
        raise RuntimeError(f"derivative for aten::{self.args} is not implemented")


class DivBackward2(Node):
    """a.div(b, rounding_mode="floor" or "trunc"): a step function of a and b."""

    __slots__ = ()
    elementwise = True
    op, broadcasts = "div (rounded)", True
    rules = ("∂⌊a/b⌋/∂a = 0", "∂⌊a/b⌋/∂b = 0")

    def vjp(self, xp, g):
        return xp.zeros_like(g), xp.zeros_like(g)


def _rounded_div(a, b, rounding_mode: str) -> Tensor:
    if rounding_mode not in ("floor", "trunc"):
        raise RuntimeError(
            f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{rounding_mode}'"
        )
    fn, kernel = {
        "floor": (numpy_math.floor_divide, "div_floor_cpu"),
        "trunc": (numpy_math.trunc_divide, "div_trunc_cpu"),
    }[rounding_mode]
    return record(DivBackward2, _rounded_division("div", kernel, fn, a, b), (a, b))


def floor_divide(a, b):
    """a // b: the quotient rounded toward -inf (-7 // 2 is -4), in the promoted dtype."""
    a, b = operand(a), operand(b)
    out = _rounded_division("floor_divide", "div_floor_cpu", numpy_math.floor_divide, a, b)
    return record(NotImplemented, out, (a, b), args="floor_divide")


class RemainderBackward0(Node):
    """a % k, k a number."""

    __slots__ = ()
    elementwise = True
    op = "%"
    rules = ("∂(a mod k)/∂a = 1",)

    def numbers_used(self):
        return [], [self.args]

    def vjp(self, xp, g):
        return (g,)


class RemainderBackward1(Node):
    """a % b: a - floor(a/b)·b, where floor(a/b) is a step function, flat between its jumps."""

    __slots__ = ()
    elementwise = True
    op, broadcasts = "%", True
    rules = ("∂(a mod b)/∂a = 1", "∂(a mod b)/∂b = -floor(a/b)")

    def vjp(self, xp, g, a, b):
        return (g if self.needs(0) else None), (-g * xp.floor_divide(a, b) if self.needs(1) else None)


def remainder(a, b):
    """a % b: what is left after taking away floor(a / b) whole b's; it has b's sign
    (-7 % 2 is 1, 7 % -2 is -1), as in Python."""
    a, b = operand(a), operand(b)
    out = _rounded_division("remainder", "remainder_cpu", _remainder, a, b)
    if not isinstance(a, Tensor):  # k % b: PyTorch has no derivative for it
        return record(NotImplemented, out, (b,), args="remainder")
    if not isinstance(b, Tensor):
        return record(RemainderBackward0, out, (a,), args=b)
    # a and b are needed only for b's gradient
    return record(RemainderBackward1, out, (a, b), saved=(a, b) if b._requires_grad else (None, None))


def rfloordiv(b, k):
    """k // b: what Python calls for `7 // x`."""
    return floor_divide(k, b)


def rremainder(b, k):
    """k % b: what Python calls for `7 % x`."""
    return remainder(k, b)


class FmodBackward0(Node):
    """fmod(a, k), k a number."""

    __slots__ = ()
    elementwise = True
    op = "fmod"
    rules = ("∂fmod(a, k)/∂a = 1",)

    def numbers_used(self):
        return [], [self.args]

    def vjp(self, xp, g):
        return (g,)


class FmodBackward1(Node):
    """fmod(a, b): a - trunc(a/b)·b."""

    __slots__ = ()
    elementwise = True
    op, broadcasts = "fmod", True
    rules = ("∂fmod(a, b)/∂a = 1", "∂fmod(a, b)/∂b = -trunc(a/b)")

    def vjp(self, xp, g, a, b):
        return (g if self.needs(0) else None), (-g * xp.trunc_divide(a, b) if self.needs(1) else None)


def fmod(a, b):
    """C's remainder: a - trunc(a / b)·b, with a's sign (fmod(-7, 2) is -1)."""
    a, b = operand(a), operand(b)
    if not isinstance(a, Tensor):
        raise TypeError(
            f"fmod() received an invalid combination of arguments - got ({type(a).__name__}, "
            f"{type(b).__name__}), but expected (Tensor input, Tensor or Number other)"
        )
    out = _rounded_division("fmod", "fmod_cpu", np.fmod, a, b)
    if not isinstance(b, Tensor):
        return record(FmodBackward0, out, (a,), args=b)
    return record(FmodBackward1, out, (a, b), saved=(a, b) if b._requires_grad else (None, None))
