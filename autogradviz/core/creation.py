"""Making tensors: `tensor`, `zeros`, `rand`, ... with PyTorch's dtype rules.

Python floats give float32 and Python ints give int64, as in PyTorch. A numpy
array keeps its dtype. Random numbers come from the one seeded generator of
`random.py`.
"""

from __future__ import annotations

import numpy as np

from . import dtypes
from .random import generator
from .tensor import Tensor, _make, as_array


def _finish(array: np.ndarray, requires_grad: bool) -> Tensor:
    t = _make(array)
    if requires_grad:
        t.requires_grad = True  # the setter refuses integer dtypes with PyTorch's message
    return t


def tensor(data, dtype=None, requires_grad: bool = False, stop_gradient: bool | None = None) -> Tensor:
    """A new leaf tensor holding a copy of `data`.

    `stop_gradient=False` is Paddle's way of saying `requires_grad=True`.
    """
    if stop_gradient is not None:
        if requires_grad and stop_gradient:
            raise ValueError("requires_grad=True and stop_gradient=True contradict each other")
        requires_grad = not stop_gradient
    return _finish(as_array(data, dtype), requires_grad)


to_tensor = tensor  # Paddle's name


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
    return _make(array)


def _is_int(n) -> bool:
    """An int, a numpy integer or a 0-d integer tensor; not a bool, a float or a str
    (int() would quietly turn 2.5 into 2 and "3" into 3)."""
    if isinstance(n, Tensor):
        return n.ndim == 0 and n._data.dtype.kind in "iu"
    return isinstance(n, (int, np.integer)) and not isinstance(n, (bool, np.bool_))


def _size(size, op: str) -> tuple[int, ...]:
    """Sizes may be given as ints, a tuple or a list: ones(2, 2) == ones((2, 2)).
    Anything else is PyTorch's TypeError, and a negative size its RuntimeError
    (not numpy's "negative dimensions are not allowed")."""
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


def zeros(*size, dtype=None, requires_grad: bool = False) -> Tensor:
    return _finish(np.zeros(_size(size, "zeros"), _float_dtype(dtype)), requires_grad)


def ones(*size, dtype=None, requires_grad: bool = False) -> Tensor:
    return _finish(np.ones(_size(size, "ones"), _float_dtype(dtype)), requires_grad)


def full(size, fill_value, dtype=None, requires_grad: bool = False) -> Tensor:
    if dtype is None:
        dtype = as_array(fill_value).dtype
    return _finish(np.full(_size((size,), "full"), fill_value, dtypes.to_dtype(dtype).numpy), requires_grad)


def empty(*size, dtype=None, requires_grad: bool = False) -> Tensor:
    return _finish(np.zeros(_size(size, "empty"), _float_dtype(dtype)), requires_grad)


def _random_floats(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """rand and randn draw floats: as in PyTorch, refuse to round them to integers."""
    if dtype.kind != "f":
        raise NotImplementedError(
            f"random floats can't be drawn as {dtypes.from_numpy_dtype(dtype)!r}; "
            "use a float dtype, or randint for integers"
        )
    return values.astype(dtype)


def rand(*size, dtype=None, requires_grad: bool = False) -> Tensor:
    """Uniform on [0, 1)."""
    return _finish(
        _random_floats(generator().random(_size(size, "rand")), _float_dtype(dtype)), requires_grad
    )


def randn(*size, dtype=None, requires_grad: bool = False) -> Tensor:
    """Standard normal."""
    return _finish(
        _random_floats(generator().standard_normal(_size(size, "randn")), _float_dtype(dtype)), requires_grad
    )


def randint(
    low: int, high: int | None = None, size=(1,), *, shape=None, dtype=None, requires_grad: bool = False
) -> Tensor:
    """Integers in [low, high). `randint(high, size)` starts at 0, and Paddle's
    `randint(0, 1000)` gives one number, shape (1,)."""
    if high is None or isinstance(high, (tuple, list)):  # randint(high) or randint(high, size)
        low, high, size = 0, low, size if high is None else high
    if shape is not None:
        size = shape
    size = _size((size,), "randint")
    target = dtypes.to_dtype(dtype) if dtype is not None else dtypes.int64
    return _finish(generator().integers(low, high, size).astype(target.numpy), requires_grad)


def arange(start, end=None, step=1, dtype=None, requires_grad: bool = False) -> Tensor:
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
    return _finish(np.arange(start, end, step).astype(dtypes.to_dtype(dtype).numpy), requires_grad)


def linspace(start, end, steps: int, dtype=None, requires_grad: bool = False) -> Tensor:
    return _finish(np.linspace(start, end, steps).astype(_float_dtype(dtype)), requires_grad)


def eye(n: int, m: int | None = None, dtype=None, requires_grad: bool = False) -> Tensor:
    return _finish(np.eye(n, m, dtype=_float_dtype(dtype)), requires_grad)


def _like_dtype(t: Tensor, dtype) -> np.dtype:
    return dtypes.to_dtype(dtype).numpy if dtype is not None else t._data.dtype


def zeros_like(t: Tensor, dtype=None, requires_grad: bool = False) -> Tensor:
    return _finish(np.zeros(t.shape, _like_dtype(t, dtype)), requires_grad)


def ones_like(t: Tensor, dtype=None, requires_grad: bool = False) -> Tensor:
    return _finish(np.ones(t.shape, _like_dtype(t, dtype)), requires_grad)


def full_like(t: Tensor, fill_value, dtype=None, requires_grad: bool = False) -> Tensor:
    return _finish(np.full(t.shape, fill_value, _like_dtype(t, dtype)), requires_grad)


def rand_like(t: Tensor, dtype=None, requires_grad: bool = False) -> Tensor:
    return _finish(_random_floats(generator().random(t.shape), _like_dtype(t, dtype)), requires_grad)


def randn_like(t: Tensor, dtype=None, requires_grad: bool = False) -> Tensor:
    return _finish(_random_floats(generator().standard_normal(t.shape), _like_dtype(t, dtype)), requires_grad)
