"""Turning op arguments into arrays, with PyTorch's type promotion."""

from __future__ import annotations

import contextvars
import numbers
import sys
import threading

import numpy as np

from ..core import dtypes, views
from ..core.creation import tensor
from ..core.tensor import Tensor

F64 = np.dtype("float64")
F32 = np.dtype("float32")

# numpy warns on overflow, 0/0, log(0) and the like; PyTorch returns inf or nan silently.
# autogradviz/__init__.py installs a warnings filter for autogradviz's modules, but a
# filter is not enough: one installed at import time is dropped by any
# `warnings.catch_warnings()` around that import (pytest imports test modules inside
# one, so under pytest the filter is gone), and it misses warnings that numpy raises
# from its own Python code (np.sum, np.clip). So the formulas compute under
# np.errstate(**QUIET_NUMPY) themselves: elementwise functions in `elementwise` and
# binary ops in `binary` (both here, by way of `quietly`), reductions where they
# compute, and every backward formula in one place, the engine (engine.py).
QUIET_NUMPY = {"all": "ignore"}


def operand(x):
    """A tensor stays a tensor and a Python number stays a number (it needs no
    node edge); anything else (lists, arrays) becomes a constant tensor.

    A view whose base was changed in place since it was made is brought up to
    date here, as the op takes it: the op must see its new history (and its
    new requires_grad) before it decides what to save."""
    if isinstance(x, Tensor):
        if x._extras is not None:  # only a tensor with extras can be a view, and so stale
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
    return x._data if isinstance(x, Tensor) else x


def factors_to_save(a, b) -> tuple:
    """What a product a·b (or a @ b) saves for backward: each factor only if the
    other one needs a gradient, since ∂(ab)/∂a = b. As in PyTorch, a factor that
    nothing will use may then change in place freely."""
    return (
        a if isinstance(b, Tensor) and b._requires_grad else None,
        b if isinstance(a, Tensor) and a._requires_grad else None,
    )


def float_data(t: Tensor) -> np.ndarray:
    """Integer tensors become float32 before a float op, as in PyTorch."""
    array = t._data
    return array if array.dtype.kind == "f" else array.astype(F32)


class _QuietContext(threading.local):
    """Per thread, a copy of Python's context (contextvars) taken inside
    np.errstate(**QUIET_NUMPY): numpy keeps its error state in a context variable,
    so whatever runs in this copy runs with numpy's warnings off.

    Why not simply `with np.errstate(**QUIET_NUMPY):` around each op? That is the
    plain version, and the engine does it once per backward walk (engine.quiet_numpy).
    On the forward path it would run for every op, and each entry rebuilds numpy's
    error-state object: about 0.5 µs, a tenth of a small op. Entering a ready-made
    context costs almost nothing. One copy per thread, because a context can be
    entered by one thread at a time."""

    def __init__(self) -> None:
        with np.errstate(**QUIET_NUMPY):
            self.context = contextvars.copy_context()


_quiet = _QuietContext()


def quietly(fn, *args):
    """fn(*args) with numpy's warnings off: what `with np.errstate(**QUIET_NUMPY):
    return fn(*args)` does, faster (see _QuietContext). `fn` must be numpy work that
    calls no autogradviz op (a context cannot be entered twice at once)."""
    return _quiet.context.run(fn, *args)


def elementwise(fn, a: Tensor, *, via_float64: bool = False) -> np.ndarray:
    """fn(a) for numpy's elementwise function `fn` (np.exp, np.log, ...), on a float
    array: integers become float32 first, as in PyTorch. numpy's warnings are off
    (QUIET_NUMPY): log(0) is -inf, sqrt(-1) is nan and exp(1000) is inf, silently,
    as in PyTorch.

    via_float64: a float32 tensor is computed in float64 and rounded back. numpy's
    float32 log10, sinh, tan... are often 1 ulp off, where PyTorch's are rounded
    correctly: log10(100.) would print as 2.0000 instead of PyTorch's 2."""
    x = float_data(a)
    if via_float64 and x.dtype == F32:
        return quietly(_via_float64, fn, x)
    return quietly(fn, x)


def _via_float64(fn, x: np.ndarray) -> np.ndarray:
    return fn(x.astype(F64)).astype(F32)


def _cast_and_apply(fn, x, y, target: np.dtype):
    """fn(x, y) computed in `target`. binary runs it quietly, the casts included:
    1e38 * 10 in float32 is inf, as in PyTorch, and so is the float32 of 1e39.
    (binary's errors, shapes that do not broadcast, are raised anew by `binary`,
    so this frame never shows in a learner's traceback.)"""
    return fn(_in_dtype(x, target), _in_dtype(y, target))


def _float_array_and_number(x, y) -> bool:
    """A float array and a Python int or float, either way round: the next most common
    case (y * 0.9, 1 - y), whose dtype is the array's whatever the promotion rules say
    about the rest (result_type below gives the same, more slowly)."""
    if type(x) is np.ndarray:
        return x.dtype.kind == "f" and (type(y) is float or type(y) is int)
    return type(y) is np.ndarray and y.dtype.kind == "f" and (type(x) is float or type(x) is int)


def binary(op: str, fn, a, b) -> np.ndarray:
    """Apply a numpy binary function in the dtype PyTorch would compute in (see
    result_type), turning numpy's broadcast error into one that names the op and
    both shapes. Division (np.true_divide) of integers gives float32, as in PyTorch."""
    x = a._data if isinstance(a, Tensor) else a
    y = b._data if isinstance(b, Tensor) else b
    if type(x) is np.ndarray and type(y) is np.ndarray and x.dtype == y.dtype:
        target = x.dtype  # the common case, decided without the promotion rules
    elif _float_array_and_number(x, y):
        target = x.dtype if type(x) is np.ndarray else y.dtype  # y * 0.9: a number never decides
    else:
        target = result_type(x, y)
    if fn is np.true_divide and target.kind != "f":
        target = F32  # true division: 1 / 2 is 0.5 for integer tensors too
    try:
        out = quietly(_cast_and_apply, fn, x, y, target)
    except TypeError:
        if target.kind != "f" or not op.startswith("bitwise_"):
            raise
        raise NotImplementedError(  # numpy's "ufunc 'bitwise_and' not supported for the input types"
            f"\"{op}_cpu\" not implemented for '{dtypes.scalar_type_name(dtypes.from_numpy_dtype(target))}' "
            f"({op} works on integer and bool tensors only)"
        ) from None
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
    if target.kind == "b" and out.dtype != BOOL:  # numpy's bool ** bool is int8; PyTorch keeps bool
        out = out.astype(BOOL)
    return out


# -- PyTorch's type promotion ------------------------------------------------------------
#
# Which dtype does `a + b` have? PyTorch ranks the operands in three classes:
# tensors with dimensions, 0-d tensors, and Python numbers. Within a class the
# dtypes are promoted as promote_types says (int8 and uint8 give int16, an int
# and a float give the float). Across classes, a lower class matters only when
# it is of a higher category (bool < integer < float) than every class above
# it: int8 tensor + 1000 stays int8 (and wraps around, as 127 + 1 does), but
# int8 tensor + 2.5 is float32, the default float dtype of Python floats.

BOOL = np.dtype("bool")
I64 = np.dtype("int64")


def promote_types(a: np.dtype, b: np.dtype) -> np.dtype:
    """torch.promote_types: numpy's rule, except that an integer and a float give
    the float (numpy gives float64 for int64 and float32)."""
    if a == b:
        return a
    a_float, b_float = a.kind == "f", b.kind == "f"
    if a_float != b_float:
        return a if a_float else b
    return np.promote_types(a, b)


_CATEGORY = {"b": 0, "u": 1, "i": 1, "f": 2}  # bool < integer < float


def _category(dtype: np.dtype) -> int:
    return _CATEGORY[dtype.kind]


def _combine(higher: np.dtype | None, lower: np.dtype | None) -> np.dtype | None:
    """PyTorch's combine_categories: the higher class decides, unless the lower
    one is of a higher category."""
    if higher is None:
        return lower
    if lower is None or _category(higher) >= _category(lower):
        return higher
    return promote_types(higher, lower)


def result_type(*operands) -> np.dtype:
    """The dtype of an op on these operands (arrays of tensors, or Python numbers),
    as torch.result_type computes it; see the comment above."""
    dims = zero_dims = numbers = None
    for x in operands:
        if isinstance(x, np.ndarray):
            if x.ndim:
                dims = x.dtype if dims is None else promote_types(dims, x.dtype)
            else:
                zero_dims = x.dtype if zero_dims is None else promote_types(zero_dims, x.dtype)
            continue
        if isinstance(x, (bool, np.bool_)):
            dtype = BOOL
        elif isinstance(x, (int, np.integer)):
            dtype = I64
        else:  # a Python float is float32 here, PyTorch's default dtype
            dtype = F32
        numbers = dtype if numbers is None else promote_types(numbers, dtype)
    return _combine(dims, _combine(zero_dims, numbers))


def _in_dtype(x, target: np.dtype):
    """An operand converted to the dtype the op computes in. A Python number is
    converted only into an integer dtype, where it wraps around as in PyTorch
    (int8 tensor + 1000 adds -24); numpy keeps it exact otherwise."""
    if isinstance(x, np.ndarray):
        return x if x.dtype == target else x.astype(target)
    if isinstance(x, np.generic):  # np.float64(2.0) counts as a Python number, as in PyTorch
        x = x.item()
    if target.kind in "iu" and not isinstance(x, (bool, np.bool_)):
        return np.asarray(x).astype(target)
    if target.kind == "b":
        return np.bool_(x)
    return x


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


def broadcast_error(op: str, a_shape: tuple, b_shape: tuple) -> RuntimeError:
    """PyTorch's sentence, then the op and both shapes."""
    where = f"({op}: shapes {tuple(a_shape)} and {tuple(b_shape)} cannot be broadcast together)"
    for i in range(1, max(len(a_shape), len(b_shape)) + 1):
        x = a_shape[-i] if i <= len(a_shape) else 1
        y = b_shape[-i] if i <= len(b_shape) else 1
        if x != y and x != 1 and y != 1:
            dim = max(len(a_shape), len(b_shape)) - i
            return RuntimeError(
                f"The size of tensor a ({x}) must match the size of tensor b ({y}) "
                f"at non-singleton dimension {dim} {where}"
            )
    return RuntimeError(where[1:-1])


def is_bool(x) -> bool:
    """A bool tensor, or a Python bool (which PyTorch treats as a bool scalar)."""
    return x._data.dtype.kind == "b" if isinstance(x, Tensor) else isinstance(x, (bool, np.bool_))


def _shape(x) -> tuple:
    return x._data.shape if isinstance(x, Tensor) else np.shape(x)
