"""`agv.nn.utils`: gradient clipping, as in `torch.nn.utils`.

    loss.backward()
    agv.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    optimizer.step()

Both change `.grad` in place, outside the graph, between backward and the step.
"""

from __future__ import annotations

import math
import types
import warnings

import numpy as np

from ..core.tensor import Tensor, _make


def _grads(parameters) -> list[Tensor]:
    if isinstance(parameters, types.GeneratorType):
        params = list(parameters)
        if not params:  # model.parameters() read once already: PyTorch's warning
            warnings.warn(
                "`parameters` is an empty generator, no gradient clipping will occur.", stacklevel=3
            )
    else:
        params = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    return [p._grad for p in params if p._grad is not None]


def clip_grad_norm_(
    parameters, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False
) -> Tensor:
    """Scale all gradients together so that their total norm (the norm of the
    vector of every gradient entry) is at most `max_norm`; return that total
    norm, measured before clipping. Exploding gradients then take a bounded step."""
    grads = _grads(parameters)  # tensors: `parameters` may be a generator, read once
    # float() first, as PyTorch does, even when there is nothing to clip: max_norm='a' is
    # its ValueError, max_norm=None its TypeError (numpy would make None a NaN and scale
    # every gradient to NaN)
    norm_type = float(norm_type)
    max_norm = float(max_norm)
    if not grads:
        return _make(np.asarray(0.0, dtype=np.float32))
    arrays = [g._data for g in grads]
    dtype = arrays[0].dtype
    if math.isinf(norm_type):
        norms = [np.abs(a).max() if a.size else dtype.type(0) for a in arrays]
        total = np.max(np.asarray(norms, dtype=dtype))
    else:
        norms = [np.linalg.norm(a.ravel(), norm_type) for a in arrays]
        total = np.linalg.norm(np.asarray(norms, dtype=dtype), norm_type)
    total = np.asarray(total, dtype=dtype)
    if error_if_nonfinite and not np.isfinite(total):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it "
            "cannot be clipped. To disable this error and scale the gradients by the non-finite norm "
            "anyway, set `error_if_nonfinite=False`"
        )
    # as PyTorch: 1e-6 keeps the division finite; a factor above 1 is not applied
    factor = min(dtype.type(max_norm) / (total + dtype.type(1e-6)), dtype.type(1.0))
    for g in grads:
        g._data *= factor
        g._bump_version()  # an in-place change, like any other
    return _make(total)


def clip_grad_value_(parameters, clip_value: float) -> None:
    """Clamp every gradient entry to [-clip_value, clip_value]."""
    clip_value = float(clip_value)  # PyTorch's check: 'a' is a ValueError, None a TypeError
    for g in _grads(parameters):
        np.clip(g._data, -clip_value, clip_value, out=g._data)
        g._bump_version()
