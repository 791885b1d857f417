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
