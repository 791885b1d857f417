"""The math a plain backward pass uses: numpy on arrays, nothing recorded.

`tensor_math` has the same functions on tensors, for create_graph=True. Each
backward formula is written once, against whichever of the two it is given.
"""

import numpy as np

from ..core.dtypes import to_dtype
from .broadcast import sum_to  # noqa: F401 - part of the namespace
from .shape import index_steps

cos = np.cos
sin = np.sin
exp = np.exp
log = np.log
sign = np.sign
where = np.where


def power(x, p):
    """x ** p for an array x and a number p, as PyTorch computes it: np.power, except
    that PyTorch computes x ** -0.5 as rsqrt(x) = 1 / sqrt(x), so (-inf) ** -0.5 is
    nan (sqrt(-inf) is nan) and (-0.0) ** -0.5 is -inf, where C's pow gives 0 and inf."""
    if type(p) is float and p == -0.5:
        return np.reciprocal(np.sqrt(x))
    return np.power(x, p)


def flip(x, dims):
    return np.flip(x, dims) if dims else x


def zeros_like(x):
    """Zeros of x's shape and dtype: a gradient that is exactly 0, even where the
    upstream is inf or nan (g * 0 would give nan there)."""
    return np.zeros_like(x)


def step(x):
    """1 where x > 0, else 0: a bool array, which numpy multiplies as 0/1 (twice
    as fast as multiplying by a float mask such as sign(x))."""
    return x > 0


def sum(x, dim, keepdim=False):  # noqa: A001 - the name formulas use
    return x.sum(axis=dim, keepdims=keepdim)


def mean(x, dim, keepdim=False):
    return x.mean(axis=dim, keepdims=keepdim)


def reshape(x, shape):
    return np.reshape(x, shape)


def expand(x, shape):
    return np.broadcast_to(x, shape)


def transpose(x, dim0, dim1):
    return x if dim0 == dim1 else np.swapaxes(x, dim0, dim1)


def permute(x, dims):
    return np.transpose(x, dims)


def to(x, dtype):
    return x.astype(to_dtype(dtype).numpy, copy=False)


def getitem(x, index):
    for step in index_steps(index):  # x[1, :, [0, 2]] the PyTorch way
        x = x[step]
    return x


def index_into_zeros(g, shape, index):
    """Zeros of `shape` with `g` added at `index`; repeated indices add up."""
    out = np.zeros(shape, dtype=g.dtype)
    np.add.at(out, index, g)
    return out


# the rounded quotients: a // b (ops/arithmetic.py's floor_divide, and remainder's gradient)
# and fmod's quotient (its gradient)
def floor_divide(a, b):
    """a / b rounded toward -inf. For floats, PyTorch (like Python) takes the exact
    remainder fmod(a, b) first and divides what is left: floor(a / b) can round the wrong
    way (1 // 0.1 is 9, since 0.1 is a little more than a tenth; floor(1 / 0.1) is 10)."""
    dtype = np.result_type(a, b)  # a Python number takes the array's dtype
    a, b = np.asarray(a, dtype), np.asarray(b, dtype)
    if dtype.kind in "biu":
        return np.floor_divide(a, b)
    mod = np.fmod(a, b)
    quotient = (a - mod) / b  # a whole number, up to rounding
    quotient = np.where((mod != 0) & ((b < 0) != (mod < 0)), quotient - 1, quotient)
    floor = np.floor(quotient)
    floor = np.where(quotient - floor > 0.5, floor + 1, floor)  # rounding put it just below an integer
    floor = np.where(quotient == 0, np.copysign(np.zeros_like(quotient), a / b), floor)
    return np.where(b == 0, a / b, floor).astype(quotient.dtype, copy=False)  # x // 0: ±inf or nan


def trunc_divide(a, b):
    """a / b rounded toward 0: how many whole b's fmod(a, b) took away."""
    dtype = np.result_type(a, b)
    if dtype.kind in "biu":  # exactly: what is left after fmod divides evenly
        return (a - np.fmod(a, b)) // b
    return np.trunc(np.divide(a, b)).astype(dtype, copy=False)
