"""Making tensors: `tensor`, `zeros`, `rand`, ... with PyTorch's dtype rules.

Python floats give float32 and Python ints give int64, as in PyTorch. A numpy
array keeps its dtype. Random numbers come from the one seeded generator of
`random.py`, or from the `generator=` given.

Every function takes PyTorch's keywords: `device=` (the CPU only, see
device.py), `requires_grad=`, and for the sized ones `size=` as well as the
sizes themselves: `zeros(2, 3)`, `zeros((2, 3))` and `zeros(size=(2, 3))` are the
same. Everything is checked before anything is drawn, so a call that fails
leaves the random stream where it was.
"""

from __future__ import annotations

import math

import numpy as np

from . import device as _device
from . import dtypes, random
from .grad_mode import _state as _grad_state
from .random import Generator
from .tensor import Tensor, _make, refuse_integer_grad

# PyTorch's words when a factory function is asked for an integer tensor that requires grad
_ONLY_FLOATS = "Only Tensors of floating point and complex dtype can require gradients"


def as_array(data, dtype=None) -> np.ndarray:
    """A fresh array for `data`, with PyTorch's dtype inference: Python floats
    give float32, Python ints int64, and a numpy array keeps its dtype.

    Values that don't fit the target dtype raise, as in PyTorch: numpy's cast would
    wrap around (inf, nan and 2**63 all become -2**63 as int64)."""
    if isinstance(data, Tensor):
        data = data._data
    from_python = not isinstance(data, (np.ndarray, np.generic))
    if not from_python:
        array = np.array(data)
        if dtype is None:
            dtypes.from_numpy_dtype(array.dtype)  # refuses float16 with a clear error
    else:
        if isinstance(data, (list, tuple)) and any(isinstance(x, Tensor) for x in _flat(data)):
            data = _untensor(data)
        array = np.array(data)
        if array.dtype == object and array.size and all(isinstance(x, int) for x in array.flat):
            # numpy keeps ints beyond 64 bits as Python objects; PyTorch's error for them
            raise ValueError(
                f"value cannot be converted to type int64 without overflow: {max(array.flat, key=abs)} "
                f"(int64 holds integers from {np.iinfo(np.int64).min} to {np.iinfo(np.int64).max})"
            )
        if dtype is None and array.dtype.kind not in "fiub":
            raise TypeError(
                f"can't make a tensor from {type(data).__name__} data of numpy dtype {array.dtype}"
            )
        if dtype is None:
            dtype = _list_dtype(data) if isinstance(data, (list, tuple)) else None
        if dtype is None:
            dtype = dtypes.float32 if array.dtype.kind == "f" else None
    if array.dtype.kind not in "fiub":  # "abc" with a dtype given: numpy's "could not convert string"
        raise TypeError(
            f"can't make a tensor of dtype {dtypes.to_dtype(dtype)!r} from {type(data).__name__} data "
            f"{data!r:.60}: expected numbers, bools, or lists, arrays or tensors of them"
        )
    target = dtypes.to_dtype(dtype) if dtype is not None else dtypes.from_numpy_dtype(array.dtype)
    if array.dtype != target.numpy:
        # checked as PyTorch checks: every value given as a Python number, and (for
        # int64) a numpy array's floats and uint64s; other numpy arrays wrap around
        checked = from_python or (target is dtypes.int64 and array.dtype.kind in "fu")
        if target.numpy.kind in "iu" and checked and array.size:
            bad = dtypes.overflows(array, target)
            if bad.any():
                # PyTorch's class: ValueError for a Python int beyond int64, RuntimeError otherwise
                error = ValueError if from_python and array.dtype.kind == "u" else RuntimeError
                info = np.iinfo(target.numpy)
                raise error(
                    f"value cannot be converted to type {target.name} without overflow: {array[bad].flat[0]} "
                    f"({target.name} holds integers from {info.min} to {info.max})"
                )
        with np.errstate(over="ignore"):  # 1e308 as float32 is inf, silently as in PyTorch
            array = array.astype(target.numpy)
    return array


# PyTorch's C++ type names, as its "value cannot be converted to type ... without overflow" says them
_OVERFLOW_NAMES = {
    "float32": "float",
    "float64": "double",
    "int64": "int64_t",
    "int32": "int",
    "int16": "int16_t",
    "int8": "int8_t",
    "uint8": "uint8_t",
}


def _number_name(value) -> str:
    kind = type(value)
    return kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"


def fill_number(value, dtype: np.dtype, op: str, into: Tensor | None = None):
    """`value` as one number of `dtype`, checked as PyTorch checks a number written into
    a tensor (full, full_like, fill_, x[i] = value): numpy's cast would silently turn
    300 into 44 as int8, nan into -2**63 and 1e39 into inf as float32. `into` is the
    tensor written into, if any: the error then names `op` first and the tensor's dtype.

    - a Python int must fit 64 bits (PyTorch's OverflowError "int too big to convert");
    - into an integer dtype the value must lie in the dtype's range (a float is then cut
      towards zero, 2.5 gives 2); an unsigned dtype also takes negative ints down to
      -max, which wrap around (-1 becomes 255 as uint8);
    - into a float dtype a finite value must be finite there (inf and nan pass);
    - a complex number must have no imaginary part, unless the dtype is bool.
    """
    if isinstance(value, Tensor):
        value = value._data.reshape(()).item()
    elif isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, int) and not isinstance(value, bool):
        if value > 2**64 - 1:
            raise OverflowError(f"int too big to convert ({op}: {value} does not fit 64 bits)")
        if value < -(2**63):
            raise OverflowError(
                f"can't convert negative int to unsigned ({op}: {value} does not fit 64 bits)"
            )
    if dtype.kind == "b":
        return bool(value)

    def overflow():
        sentence = f"value cannot be converted to type {_OVERFLOW_NAMES[dtype.name]} without overflow"
        if into is not None:
            return RuntimeError(f"{op}: {sentence}: {value} (the tensor is {into.dtype!r})")
        target = dtypes.from_numpy_dtype(dtype)
        if dtype.kind == "f":
            span = f"{target.name} holds magnitudes up to {np.finfo(dtype).max:.6g}"
        else:
            info = np.iinfo(dtype)
            span = f"{target.name} holds integers from {info.min} to {info.max}"
        return RuntimeError(f"{sentence}: {value!r} ({op}: {span})")

    if isinstance(value, complex):
        if value.imag != 0:
            raise overflow()
        value = value.real
    if dtype.kind == "f":
        if math.isfinite(value) and abs(value) > float(np.finfo(dtype).max):
            raise overflow()
        return float(value)
    info = np.iinfo(dtype)
    if isinstance(value, float):
        if not (info.min <= value <= info.max):  # nan fails too
            raise overflow()
        return int(value)
    value = int(value)
    lowest = -int(info.max) if info.min == 0 else int(info.min)
    if not (lowest <= value <= info.max):
        raise overflow()
    return value % (int(info.max) + 1) if value < 0 and info.min == 0 else value


def _check_number(value, op: str) -> None:
    """PyTorch's TypeError when `fill_value` is not a number (or a 0-d tensor)."""
    is_number = isinstance(value, (bool, int, float, complex, np.bool_, np.number))
    if not (is_number or (isinstance(value, Tensor) and value.ndim == 0)):
        raise TypeError(
            f"{op}(): argument 'fill_value' (position 2) must be Number, not {_number_name(value)}"
        )


def _number_dtype(value) -> np.dtype:
    """full()'s dtype when none is given: bool for a bool, int64 for an integer, float32
    for anything else (a 0-d tensor gives its own dtype's kind, as in PyTorch)."""
    if isinstance(value, Tensor):
        value = value._data.reshape(()).item()
    if isinstance(value, bool):
        return np.dtype(bool)
    if isinstance(value, (int, np.integer)):
        return np.dtype(np.int64)
    if isinstance(value, complex):
        raise TypeError(f"full(): autogradviz has no complex dtype, so it can't be filled with {value!r}")
    return dtypes.float32.numpy  # PyTorch's default float dtype; np.True_ too, as in PyTorch


def _item_dtype(item) -> np.dtype:
    """The dtype PyTorch infers for one item of a list: float32 for a Python float,
    int64 for an int, bool for a bool; a numpy number or array (or a tensor) its own."""
    if isinstance(item, (np.ndarray, np.generic)):
        return item.dtype
    if isinstance(item, bool):
        return np.dtype(bool)
    if isinstance(item, int):
        return np.dtype(np.int64)
    return dtypes.float32.numpy


def _promoted(a: np.dtype, b: np.dtype) -> np.dtype:
    """PyTorch's promotion of two item dtypes: a float beats an integer or a bool
    whatever their sizes (numpy would make int64 and float32 float64)."""
    if a.kind == "b" or (b.kind == "f" and a.kind != "f"):
        return b
    if b.kind == "b" or (a.kind == "f" and b.kind != "f"):
        return a
    return np.promote_types(a, b)


def _list_dtype(data) -> dtypes.DType | None:
    """For a list holding numpy numbers or arrays (or tensors): the dtype PyTorch
    infers, promoting its items' dtypes (`[np.float64(1.5), 1.0]` is float64, where
    numpy's array would only say "float"). None for plain Python numbers, whose rule
    (floats give float32) the caller applies."""
    items = list(_flat(data))
    if not any(isinstance(x, (np.ndarray, np.generic)) for x in items):
        return None
    found = None
    for item in items:
        found = _item_dtype(item) if found is None else _promoted(found, _item_dtype(item))
    if found is None or found.kind not in "fiub" or found == np.float16:
        return None  # empty, or not numbers (the caller's error), or float16 (float32 here)
    return dtypes.from_numpy_dtype(found)


def _flat(data):
    """The items of nested lists and tuples, in order."""
    for x in data:
        if isinstance(x, (list, tuple)):
            yield from _flat(x)
        else:
            yield x


def _untensor(data):
    """Nested lists with every tensor replaced by its array: `tensor([x, y])`."""
    if isinstance(data, Tensor):
        return data._data
    if isinstance(data, (list, tuple)):
        return [_untensor(x) for x in data]
    return data


def _finish(array: np.ndarray, requires_grad: bool) -> Tensor:
    t = _inference_marked(_make(array))
    if requires_grad:
        refuse_integer_grad(t, _ONLY_FLOATS)
        t.requires_grad = True
    return t


def _check(device, requires_grad: bool = False, dtype: np.dtype | None = None, pin_memory: bool = False):
    """What every creation function checks before it makes (or draws) anything:
    the device is the CPU, memory pinning is not asked for, and requires_grad
    is only asked of a float dtype (PyTorch's message)."""
    _device.check(device)
    if pin_memory:
        raise RuntimeError(
            "pin_memory=True requires a CUDA or other accelerator backend; no pinned memory allocator "
            "is available on this system. (autogradviz runs on the CPU: leave pin_memory out.)"
        )
    if requires_grad and dtype is not None and dtype.kind != "f":
        refuse_integer_grad(_make(np.empty(0, dtype)), _ONLY_FLOATS)  # raises PyTorch's error


def tensor(
    data,
    dtype=None,
    device=None,
    requires_grad: bool = False,
    pin_memory: bool = False,
    stop_gradient: bool | None = None,
) -> Tensor:
    """A new leaf tensor holding a copy of `data`.

    `stop_gradient=False` is another spelling of `requires_grad=True` (the
    attribute is attached in autogradviz/compat/).
    """
    _check(device, pin_memory=pin_memory)
    if stop_gradient is not None:
        if requires_grad and stop_gradient:
            raise ValueError("requires_grad=True and stop_gradient=True contradict each other")
        requires_grad = not stop_gradient
    return _finish(as_array(data, dtype), requires_grad)


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """Like `tensor`, but without a copy when none is needed: a tensor of the
    right dtype comes back as it is, and a numpy array of the right dtype is
    shared (as from_numpy: changing one changes the other)."""
    _check(device)
    target = dtypes.to_dtype(dtype) if dtype is not None else None
    if isinstance(data, Tensor) and (target is None or data.dtype == target):
        return data
    if isinstance(data, np.ndarray) and data.dtype.kind in "fiub":
        kept = dtypes.from_numpy_dtype(data.dtype)
        if kept.numpy == data.dtype and (target is None or target == kept):
            return from_numpy(data)
    return tensor(data, dtype=dtype)


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor sharing memory with `array`: changing one changes the other."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    # sharing memory rules out converting, so the array must already have one of our dtypes
    if dtypes.from_numpy_dtype(array.dtype).numpy != array.dtype:
        raise TypeError(
            f"from_numpy shares the array's memory, so it needs float32, float64, int64 or bool "
            f"data, not {array.dtype}. Use agv.tensor(array) to copy it instead"
        )
    return _inference_marked(_make(array))


def _inference_marked(t: Tensor) -> Tensor:
    """As in PyTorch, a tensor made inside `agv.inference_mode()` (by a factory
    function too, not only by an op) is an inference tensor: `t.is_inference()`."""
    if _grad_state.inference:
        t._ensure_extras().inference = True
    return t


def _is_int(n) -> bool:
    """An int, a numpy integer or a 0-d integer tensor; not a bool, a float or a str
    (int() would quietly turn 2.5 into 2 and "3" into 3)."""
    if isinstance(n, Tensor):
        return n.ndim == 0 and n._data.dtype.kind in "iu"
    return isinstance(n, (int, np.integer)) and not isinstance(n, (bool, np.bool_))


def _size(size, op: str, keyword=None) -> tuple[int, ...]:
    """Sizes may be given as ints, a tuple or a list, or as the keyword size=:
    ones(2, 2) == ones((2, 2)) == ones(size=(2, 2)). Anything else is PyTorch's
    TypeError, and a negative size its RuntimeError (not numpy's "negative
    dimensions are not allowed")."""
    if keyword is not None:
        if size:
            raise TypeError(f"{op}() got multiple values for argument 'size'")
        size = (keyword,)
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    elif len(size) == 1 and isinstance(size[0], Tensor) and size[0].ndim == 1:
        size = size[0].tolist()
    elif len(size) == 1 and not _is_int(size[0]):
        raise TypeError(f"{op}(): argument 'size' must be tuple of ints, not {type(size[0]).__name__}")
    for pos, n in enumerate(size):
        if not _is_int(n):
            raise TypeError(
                f"{op}(): argument 'size' must be tuple of ints, but found element of type "
                f"{type(n).__name__} at pos {pos}"
            )
    size = tuple(int(n) for n in size)
    if any(n < 0 for n in size):
        raise RuntimeError(f"{op}(): Trying to create tensor with negative dimension: size {list(size)}")
    return size


def _float_dtype(dtype) -> np.dtype:
    return (dtypes.to_dtype(dtype) if dtype is not None else dtypes.float32).numpy


def zeros(
    *sizes, size=None, dtype=None, device=None, requires_grad: bool = False, pin_memory: bool = False
) -> Tensor:
    shape, dtype = _size(sizes, "zeros", size), _float_dtype(dtype)
    _check(device, requires_grad, dtype, pin_memory)
    return _finish(np.zeros(shape, dtype), requires_grad)


def ones(
    *sizes, size=None, dtype=None, device=None, requires_grad: bool = False, pin_memory: bool = False
) -> Tensor:
    shape, dtype = _size(sizes, "ones", size), _float_dtype(dtype)
    _check(device, requires_grad, dtype, pin_memory)
    return _finish(np.ones(shape, dtype), requires_grad)


def full(
    size,
    fill_value,
    *,
    dtype=None,
    device=None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """`size` filled with `fill_value`; the dtype follows the value (3.0 gives float32,
    3 int64, True bool) unless `dtype` is given."""
    shape = _size((size,), "full")
    _check_number(fill_value, "full")
    dtype = dtypes.to_dtype(dtype).numpy if dtype is not None else _number_dtype(fill_value)
    _check(device, requires_grad, dtype, pin_memory)
    return _finish(np.full(shape, fill_number(fill_value, dtype, "full"), dtype), requires_grad)


def empty(
    *sizes, size=None, dtype=None, device=None, requires_grad: bool = False, pin_memory: bool = False
) -> Tensor:
    """PyTorch leaves an empty tensor's memory as it was; here it is zeros, so
    that a notebook that prints one prints the same thing every run."""
    shape, dtype = _size(sizes, "empty", size), _float_dtype(dtype)
    _check(device, requires_grad, dtype, pin_memory)
    return _finish(np.zeros(shape, dtype), requires_grad)


def _float_kind(dtype: np.dtype) -> np.dtype:
    """rand and randn draw floats: as in PyTorch, refuse to round them to integers
    (checked before drawing, so the stream does not move)."""
    if dtype.kind != "f":
        raise NotImplementedError(
            f"random floats can't be drawn as {dtypes.from_numpy_dtype(dtype)!r}; "
            "use a float dtype, or randint for integers"
        )
    return dtype


def rand(
    *sizes,
    size=None,
    generator: Generator | None = None,
    dtype=None,
    device=None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """Uniform on [0, 1)."""
    shape, dtype = _size(sizes, "rand", size), _float_kind(_float_dtype(dtype))
    _check(device, requires_grad, dtype, pin_memory)
    return _finish(random.generator(generator).random(shape).astype(dtype), requires_grad)


def randn(
    *sizes,
    size=None,
    generator: Generator | None = None,
    dtype=None,
    device=None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """Standard normal: mean 0, standard deviation 1."""
    shape, dtype = _size(sizes, "randn", size), _float_kind(_float_dtype(dtype))
    _check(device, requires_grad, dtype, pin_memory)
    return _finish(random.generator(generator).standard_normal(shape).astype(dtype), requires_grad)


def _bounds(low, high, op: str) -> None:
    """randint's bounds: PyTorch's error for an empty range (numpy's would say "low >= high")."""
    for name, value in (("low", low), ("high", high)):
        if not _is_int(value):
            raise TypeError(f"{op}(): argument '{name}' must be int, not {type(value).__name__}")
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")


def randint(
    low: int = 0,
    high: int | None = None,
    size=None,
    *,
    shape=None,
    generator: Generator | None = None,
    dtype=None,
    device=None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """Integers in [low, high), int64 unless `dtype` says otherwise. `randint(high, size)`
    starts at 0, as in PyTorch. Without a size, `randint(0, 1000)` gives one number, shape
    (1,), and `shape=` is taken for `size=` (other libraries' spellings)."""
    if high is None:  # randint(high, size=...) or randint(high)
        low, high = 0, low
    elif isinstance(high, (tuple, list)) and size is None:  # randint(high, size)
        low, high, size = 0, low, high
    if shape is not None:
        size = shape
    shape = _size((size if size is not None else (1,),), "randint")
    _bounds(low, high, "randint")
    target = (dtypes.to_dtype(dtype) if dtype is not None else dtypes.int64).numpy
    _check(device, requires_grad, target, pin_memory)
    return _finish(
        random.generator(generator).integers(int(low), int(high), shape).astype(target), requires_grad
    )


def randperm(
    n: int,
    *,
    generator: Generator | None = None,
    dtype=None,
    device=None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """The integers 0 .. n-1 in a random order (int64 unless `dtype` says otherwise):
    a shuffle, as a DataLoader does every epoch."""
    if not _is_int(n):
        raise TypeError(f"randperm(): argument 'n' (position 1) must be int, not {type(n).__name__}")
    n = int(n)
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    target = (dtypes.to_dtype(dtype) if dtype is not None else dtypes.int64).numpy
    _check(device, requires_grad, target, pin_memory)
    return _finish(random.generator(generator).permutation(n).astype(target), requires_grad)


def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    if end is None:
        start, end = 0, start
    # PyTorch's checks, before numpy can answer with its own errors (ZeroDivisionError,
    # "Maximum allowed size exceeded") or quietly give an empty range for a step of the wrong sign
    if step == 0:
        raise RuntimeError(f"arange(): step must be nonzero (got start={start}, end={end}, step={step})")
    if not all(np.isfinite(float(v)) for v in (start, end)):
        raise RuntimeError(f"arange(): unsupported range: {start} -> {end}")
    if (end - start) * step < 0:
        raise RuntimeError(
            f"arange(): upper bound and lower bound inconsistent with step sign "
            f"(start={start}, end={end}, step={step})"
        )
    if dtype is None:
        is_float = any(isinstance(v, float) for v in (start, end, step))
        dtype = dtypes.float32 if is_float else dtypes.int64
    target = dtypes.to_dtype(dtype).numpy
    _check(device, requires_grad, target)
    return _finish(np.arange(start, end, step).astype(target), requires_grad)


def linspace(start, end, steps: int, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    target = _float_dtype(dtype)
    _check(device, requires_grad, target)
    return _finish(np.linspace(start, end, steps).astype(target), requires_grad)


def eye(n: int, m: int | None = None, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    target = _float_dtype(dtype)
    _check(device, requires_grad, target)
    return _finish(np.eye(n, m, dtype=target), requires_grad)


def _like(t: Tensor, dtype, device, requires_grad: bool, floats: bool = False) -> np.dtype:
    """The dtype of a `*_like` result (t's unless `dtype` is given), once checked."""
    target = dtypes.to_dtype(dtype).numpy if dtype is not None else t._data.dtype
    if floats:
        _float_kind(target)
    _check(device, requires_grad, target)
    return target


def zeros_like(t: Tensor, dtype=None, *, device=None, requires_grad: bool = False) -> Tensor:
    return _finish(np.zeros(t.shape, _like(t, dtype, device, requires_grad)), requires_grad)


def ones_like(t: Tensor, dtype=None, *, device=None, requires_grad: bool = False) -> Tensor:
    return _finish(np.ones(t.shape, _like(t, dtype, device, requires_grad)), requires_grad)


def empty_like(t: Tensor, dtype=None, *, device=None, requires_grad: bool = False) -> Tensor:
    """Zeros, as `empty` gives (see there)."""
    return zeros_like(t, dtype, device=device, requires_grad=requires_grad)


def full_like(t: Tensor, fill_value, dtype=None, *, device=None, requires_grad: bool = False) -> Tensor:
    _check_number(fill_value, "full_like")
    target = _like(t, dtype, device, requires_grad)
    return _finish(np.full(t.shape, fill_number(fill_value, target, "full_like"), target), requires_grad)


def rand_like(
    t: Tensor, dtype=None, *, generator: Generator | None = None, device=None, requires_grad: bool = False
) -> Tensor:
    target = _like(t, dtype, device, requires_grad, floats=True)
    return _finish(random.generator(generator).random(t.shape).astype(target), requires_grad)


def randn_like(
    t: Tensor, dtype=None, *, generator: Generator | None = None, device=None, requires_grad: bool = False
) -> Tensor:
    target = _like(t, dtype, device, requires_grad, floats=True)
    return _finish(random.generator(generator).standard_normal(t.shape).astype(target), requires_grad)


def randint_like(
    t: Tensor,
    low: int = 0,
    high: int | None = None,
    *,
    generator: Generator | None = None,
    dtype=None,
    device=None,
    requires_grad: bool = False,
) -> Tensor:
    """Integers in [low, high) of t's shape, and of t's dtype unless `dtype` is given
    (a float tensor gets whole numbers as floats, as in PyTorch)."""
    if high is None:
        low, high = 0, low
    _bounds(low, high, "randint_like")
    target = _like(t, dtype, device, requires_grad)
    return _finish(
        random.generator(generator).integers(int(low), int(high), t.shape).astype(target), requires_grad
    )
