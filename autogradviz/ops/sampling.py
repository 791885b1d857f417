"""Sampling from distributions given as tensors: normal, bernoulli, multinomial.

    agv.normal(mean, std)              # one draw per element, mean + std · z
    agv.bernoulli(p)                   # 1 with probability p, else 0
    agv.multinomial(probs, 1, replacement=True, generator=g)   # makemore's sampler

Each draws from autogradviz's seeded generator, or from `generator=` when one
is given (core/random.py); the numbers are numpy's, not PyTorch's.

A sample is not a differentiable function of its parameters, and PyTorch says
so in a particular way: the result of normal() or bernoulli() of a tensor that
requires grad is in the graph (NormalBackward1..3, BernoulliBackward0), but the
gradient it sends back is zero. To learn a distribution's mean and spread, draw
the noise apart and scale it, the "reparameterization trick" of a VAE:
`mean + std * agv.randn_like(std)`, whose gradients are 1 and z.
"""

from __future__ import annotations

import numpy as np

from ..core import creation as _creation
from ..core import device as _device
from ..core import dtypes, random
from ..core.graph import Node
from ..core.random import Generator
from ..core.record import record
from ..core.tensor import Tensor, _make
from ._operands import operand


class NormalBackward1(Node):
    """normal(mean tensor, std number)."""

    __slots__ = ()
    op, broadcasts = "normal", True
    rules = ("∂/∂mean = 0: PyTorch does not differentiate a sample",)

    def vjp(self, xp, g):
        return (xp.zeros_like(g),)


class NormalBackward2(NormalBackward1):
    """normal(mean number, std tensor)."""

    __slots__ = ()
    rules = ("∂/∂std = 0: PyTorch does not differentiate a sample",)


class NormalBackward3(Node):
    """normal(mean tensor, std tensor)."""

    __slots__ = ()
    op, broadcasts = "normal", True
    rules = ("∂/∂mean = 0", "∂/∂std = 0")

    def vjp(self, xp, g):
        return (xp.zeros_like(g), xp.zeros_like(g))


def normal(
    mean=0.0,
    std=1.0,
    size=None,
    *,
    generator: Generator | None = None,
    dtype=None,
    device=None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """Normal samples, in PyTorch's four forms:

    - normal(mean, std) with tensors: one draw per element, broadcast together;
    - normal(mean_tensor, std=1.0) or normal(mean_number, std_tensor);
    - normal(mean, std, size) with numbers: a new tensor of that size
      (float32 unless `dtype` says otherwise).
    """
    mean, std = operand(mean), operand(std)
    tensors = [t for t in (mean, std) if isinstance(t, Tensor)]
    if not tensors:
        return _normal_of_numbers(mean, std, size, generator, dtype, device, requires_grad, pin_memory)
    if size is not None or dtype is not None or requires_grad:
        raise TypeError(
            "normal() received an invalid combination of arguments: size=, dtype= and requires_grad= "
            "go with a float mean and std; with a tensor mean or std, the result takes its shape and dtype"
        )
    _device.check(device)
    leading = tensors[0]  # the result has mean's dtype, or std's when mean is a number, as in PyTorch
    if leading._data.dtype.kind != "f":
        raise NotImplementedError(
            f'"normal_kernel_cpu" not implemented for {_kernel_name(leading)}: mean and std must be floats'
        )
    if isinstance(std, Tensor):
        if (std._data < 0).any():
            raise RuntimeError("normal expects all elements of std >= 0.0")
    else:
        _check_std(std)
    m = mean._data if isinstance(mean, Tensor) else mean
    s = std._data if isinstance(std, Tensor) else std
    try:
        shape = np.broadcast_shapes(np.shape(m), np.shape(s))
    except ValueError:
        raise RuntimeError(
            f"normal: the shapes of mean {tuple(np.shape(m))} and std {tuple(np.shape(s))} don't broadcast"
        ) from None
    z = random.generator(generator).standard_normal(shape)
    values = (m + s * z).astype(leading._data.dtype)
    if isinstance(mean, Tensor) and isinstance(std, Tensor):
        return record(NormalBackward3, values, (mean, std))
    if isinstance(mean, Tensor):
        return record(NormalBackward1, values, (mean,))
    return record(NormalBackward2, values, (std,))


def _kernel_name(t: Tensor) -> str:
    """How PyTorch's kernel errors name a dtype: 'Long' for int64, 'Float' for float32."""
    return repr(t.dtype.legacy_name.removesuffix("Tensor"))


def _check_std(std) -> None:
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")


def _normal_of_numbers(mean, std, size, generator, dtype, device, requires_grad, pin_memory) -> Tensor:
    if size is None:
        raise TypeError(
            "normal() received an invalid combination of arguments - got (float, float): with a number "
            "for both mean and std, give the size too, e.g. agv.normal(0.0, 1.0, size=(2, 3))"
        )
    # creation.py's checks: the size, the device, and requires_grad only of a float dtype
    shape = _creation._size((size,), "normal")
    target = (dtypes.to_dtype(dtype) if dtype is not None else dtypes.float32).numpy
    _creation._check(device, requires_grad, target, pin_memory)
    _check_std(std)
    z = random.generator(generator).standard_normal(shape)
    return _creation._finish((mean + std * z).astype(target), requires_grad)


class BernoulliBackward0(Node):
    __slots__ = ()
    op, rules = "bernoulli", ("∂/∂p = 0: PyTorch does not differentiate a sample",)

    def vjp(self, xp, g):
        return (xp.zeros_like(g),)


def bernoulli(input: Tensor, p: float | None = None, *, generator: Generator | None = None) -> Tensor:
    """1 with probability `input` (elementwise), else 0, in input's dtype: the
    coin flips of a dropout mask. With a number `p`, every element has that
    probability, and `input` gives only the shape and dtype."""
    input = operand(input)
    if not isinstance(input, Tensor):
        raise TypeError(f"bernoulli(): argument 'input' must be Tensor, not {type(input).__name__}")
    x = input._data
    if p is not None:
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
        return _make((random.generator(generator).random(x.shape) < p).astype(x.dtype))
    if x.dtype.kind != "f":
        raise NotImplementedError(
            f'"bernoulli_tensor_cpu_p_" not implemented for {_kernel_name(input)}: probabilities must be floats'
        )
    if not ((x >= 0) & (x <= 1)).all():  # NaN fails both comparisons, so it is refused too
        raise RuntimeError(
            "Expected p_in >= 0 && p_in <= 1 to be true, but got false. "
            "(bernoulli: every probability must be in [0, 1])"
        )
    values = (random.generator(generator).random(x.shape) < x).astype(x.dtype)
    return record(BernoulliBackward0, values, (input,))


def multinomial(
    input: Tensor, num_samples: int, replacement: bool = False, *, generator: Generator | None = None
) -> Tensor:
    """Indices drawn with probability proportional to `input`'s values (weights
    need not sum to 1), int64: for a 1-D input a vector of `num_samples`
    indices, for a 2-D input one row of them per row. Without replacement
    an index is drawn at most once."""
    input = operand(input)
    if not isinstance(input, Tensor):
        raise TypeError(f"multinomial(): argument 'input' must be Tensor, not {type(input).__name__}")
    if isinstance(num_samples, bool) or not isinstance(num_samples, (int, np.integer)):
        raise TypeError(
            "multinomial(): argument 'num_samples' (position 2) must be int, "
            f"not {type(num_samples).__name__}"
        )
    x = input._data
    if x.dtype.kind != "f":
        raise RuntimeError(
            f"multinomial only supports floating-point dtypes for input, got: {_kernel_name(input)[1:-1]}"
        )
    if x.ndim not in (1, 2):
        raise RuntimeError(f"prob_dist must be 1 or 2 dim (got a tensor of shape {tuple(x.shape)})")
    if not replacement and num_samples > x.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    weights = np.atleast_2d(x).astype(np.float64)
    if not (np.isfinite(weights) & (weights >= 0)).all():
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    totals = weights.sum(axis=1)
    if (totals <= 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    stream = random.generator(generator)
    if weights.shape[0] == 0:  # no rows: nothing to draw (and the stream does not move)
        picked = np.zeros((0, int(num_samples)), np.int64)
    elif replacement:
        picked = _with_replacement(stream, weights, totals, int(num_samples))
    else:
        picked = _without_replacement(stream, weights, int(num_samples))
    return _make(picked if x.ndim == 2 else picked[0])


def _with_replacement(stream: np.random.Generator, weights: np.ndarray, totals: np.ndarray, n: int):
    """Inverse transform sampling: a uniform number u in [0, total) falls in the
    slot of the category whose running total first exceeds it. A zero weight has
    an empty slot, so it is never picked."""
    cumulative = np.cumsum(weights, axis=1)
    u = stream.random((weights.shape[0], n)) * totals[:, None]
    picked = np.stack([np.searchsorted(row, draws, side="right") for row, draws in zip(cumulative, u)])
    # u * total can round up to the total itself: that draw belongs to the last nonzero weight
    last = weights.shape[1] - 1 - np.argmax(weights[:, ::-1] > 0, axis=1)
    return np.minimum(picked, last[:, None]).astype(np.int64)


def _without_replacement(stream: np.random.Generator, weights: np.ndarray, n: int):
    """Each category gets a random key, an exponential draw divided by its weight;
    the n smallest keys win. That is the same as drawing one index at a time and
    taking it out, but in one step (PyTorch does it this way too). A zero weight
    has an infinite key, so it comes last, as in PyTorch."""
    with np.errstate(divide="ignore"):
        keys = stream.standard_exponential(weights.shape) / weights
    return np.argsort(keys, axis=1, kind="stable")[:, :n].astype(np.int64)
