"""Weight initialisation, as in `torch.nn.init`.

Each function overwrites a tensor in place, outside the graph, with numbers
drawn from autogradviz's generator: `agv.manual_seed(0)` makes a model's
initial weights reproducible. As in PyTorch, the random ones take
`generator=`, an agv.Generator of one's own, to leave the default stream alone. Draws go straight into the tensor's memory in its
own dtype, so VGG-11's 100-million-weight layer needs no float64 temporary.
"""

from __future__ import annotations

import math
import warnings

from ..core import random
from ..core.tensor import Tensor


def _written(t: Tensor) -> Tensor:
    t._bump_version()  # like any in-place change: a graph that saved t must notice
    return t


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The factor that keeps activations' variance steady through a nonlinearity."""
    if nonlinearity in ("linear", "conv1d", "conv2d", "sigmoid"):
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        return math.sqrt(2.0 / (1 + slope**2))
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(t: Tensor) -> tuple[int, int]:
    """Fan in: how many inputs feed each output (in_features, or in_channels·kh·kw)."""
    if t.ndim < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive_field = math.prod(t.shape[2:])
    return t.shape[1] * receptive_field, t.shape[0] * receptive_field


def uniform_(t: Tensor, a: float = 0.0, b: float = 1.0, generator: random.Generator | None = None) -> Tensor:
    random.generator(generator).random(dtype=t._data.dtype, out=t._data)
    t._data *= b - a
    t._data += a
    return _written(t)


def normal_(
    t: Tensor, mean: float = 0.0, std: float = 1.0, generator: random.Generator | None = None
) -> Tensor:
    random.generator(generator).standard_normal(dtype=t._data.dtype, out=t._data)
    t._data *= std
    t._data += mean
    return _written(t)


def constant_(t: Tensor, val: float) -> Tensor:
    t._data[...] = val
    return _written(t)


def zeros_(t: Tensor) -> Tensor:
    return constant_(t, 0.0)


def ones_(t: Tensor) -> Tensor:
    return constant_(t, 1.0)


def _kaiming_std(t: Tensor, a: float, mode: str, nonlinearity: str) -> float:
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(t)
    return calculate_gain(nonlinearity, a) / math.sqrt(fan_in if mode == "fan_in" else fan_out)


def kaiming_uniform_(
    t: Tensor,
    a: float = 0.0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: random.Generator | None = None,
) -> Tensor:
    """He initialisation: uniform on ±√3·std, std = gain / √fan."""
    if t._data.size == 0:  # no values and no fan: nothing to draw (PyTorch warns and returns too)
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return t
    bound = math.sqrt(3.0) * _kaiming_std(t, a, mode, nonlinearity)
    return uniform_(t, -bound, bound, generator)


def kaiming_normal_(
    t: Tensor,
    a: float = 0.0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: random.Generator | None = None,
) -> Tensor:
    return normal_(t, 0.0, _kaiming_std(t, a, mode, nonlinearity), generator)


def xavier_uniform_(t: Tensor, gain: float = 1.0, generator: random.Generator | None = None) -> Tensor:
    """Glorot initialisation: uniform on ±gain·√(6 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(t)
    bound = gain * math.sqrt(6.0 / (fan_in + fan_out))
    return uniform_(t, -bound, bound, generator)


def xavier_normal_(t: Tensor, gain: float = 1.0, generator: random.Generator | None = None) -> Tensor:
    fan_in, fan_out = _calculate_fan_in_and_fan_out(t)
    return normal_(t, 0.0, gain * math.sqrt(2.0 / (fan_in + fan_out)), generator)
