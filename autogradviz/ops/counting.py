"""Counting: `histogram`, how many values fall in each bin. PyTorch's
`torch.histogram(input, bins, *, range=None, weight=None, density=False)`.

    hist, bin_edges = agv.histogram(x, bins=4)

A count is a step function of the values (moving a value a little changes no
count, until it crosses an edge), so there is no useful gradient: as in PyTorch,
the results still require grad when an input does, and backward through them
raises (the `NotImplemented` node of arithmetic.py).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from ..core import dtypes
from ..core.record import record
from ..core.tensor import Tensor
from ._operands import operand
from .arithmetic import NotImplemented

# PyTorch returns a named pair of this type name: torch.return_types.histogram
HistogramResult = namedtuple("histogram", ["hist", "bin_edges"])


def _linspace(start: float, end: float, steps: int, dtype: np.dtype) -> np.ndarray:
    """Evenly spaced edges in the input's dtype, by PyTorch's formula for linspace: the
    first half forward from start, the second half back from end, so that both ends
    are exact. (PyTorch computes blocks of them with vector instructions, which can
    round an inner edge differently in its last bit.)"""
    start, end = dtype.type(start), dtype.type(end)
    step = (end - start) / dtype.type(steps - 1)
    index = np.arange(steps)
    forward = start + step * index.astype(dtype)
    backward = end - step * (steps - index - 1).astype(dtype)
    return np.where(index < steps // 2, forward, backward).astype(dtype)


def _edges_of_the_values(values: np.ndarray, bins: int, value_range) -> np.ndarray:
    """bins + 1 edges from `range`, or else from the smallest to the largest value."""
    if value_range is not None:
        if len(value_range) != 2:
            raise RuntimeError(
                "torch.histogramdd: for a 1-dimensional histogram range should have 2 elements, "
                f"but got {len(value_range)}"
            )
        low, high = float(value_range[0]), float(value_range[1])
    elif values.size:
        low, high = float(values.min()), float(values.max())  # a NaN anywhere gives NaN here
    else:
        low, high = 0.0, 1.0
    if low > high:
        raise RuntimeError(
            f"torch.histogramdd: min should not exceed max, but got min {low:g} max {high:g} for dimension 0"
        )
    if not (np.isfinite(low) and np.isfinite(high)):
        raise RuntimeError(f"torch.histogramdd: dimension 0's range [{low:g}, {high:g}] is not finite")
    if low == high:  # all values equal: one unit wide around them, as PyTorch does
        low, high = low - 0.5, high + 0.5
    return _linspace(low, high, bins + 1, values.dtype)


def _bins_must_be_positive(count: int) -> None:
    if count <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {count} for dimension 0")


def histogram(
    input: Tensor,
    bins: int | Tensor = 100,
    *,
    range: tuple[float, float] | None = None,  # noqa: A002 - PyTorch's keyword
    weight: Tensor | None = None,
    density: bool = False,
) -> HistogramResult:
    """Count the values of `input` (any shape, read flat) in bins; returns (hist, bin_edges).

    - `bins=n`: n bins of equal width from `range=(low, high)`, or else from the
      smallest to the largest value; `bins=tensor`: the edges themselves, increasing.
    - Bin k holds the values v with edge[k] ≤ v < edge[k+1]; the last bin also holds
      v = its right edge. Values outside the edges are not counted.
    - `weight` (one per value) adds its weight instead of 1; `density=True` divides
      each bin by (total × its width), so that the histogram integrates to 1.

    Floating-point input only (PyTorch's rule), and the results have its dtype.
    """
    x = operand(input)
    if not isinstance(x, Tensor):
        raise TypeError(
            f"histogram(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}"
        )
    if x._data.dtype.kind != "f":
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{dtypes.scalar_type_name(x.dtype)}'")
    values = x._data.reshape(-1)
    tensor_inputs = [x]
    if isinstance(bins, Tensor):
        if range is not None:
            raise TypeError("histogram(): range= goes with a number of bins, not with a tensor of bin edges")
        if bins.dtype != x.dtype:
            raise RuntimeError(
                "torch.histogramdd: input tensor and bins tensors should have the same dtype, but got input "
                f"with dtype {dtypes.cpp_name(x.dtype)} and bins for dimension 0 with dtype "
                f"{dtypes.cpp_name(bins.dtype)}"
            )
        if bins.ndim != 1:
            raise RuntimeError(
                "torch.histogramdd: bins tensor should have one dimension, but got "
                f"{bins.ndim} dimensions in the bins tensor for dimension 0"
            )
        _bins_must_be_positive(bins.numel() - 1)
        edges = bins._data.copy()
        tensor_inputs.append(bins)
    elif isinstance(bins, (int, np.integer)) and not isinstance(bins, (bool, np.bool_)):
        _bins_must_be_positive(int(bins))
        edges = _edges_of_the_values(values, int(bins), range)
    else:
        raise TypeError(
            f"histogram() received an invalid combination of arguments - got (Tensor, {type(bins).__name__}), "
            "but expected one of: (Tensor input, Tensor bins, ...) or (Tensor input, int bins = 100, ...)"
        )
    weights = None
    if weight is not None:
        weight = operand(weight)
        if weight.dtype != x.dtype:
            raise RuntimeError(
                "torch.histogramdd: if weight tensor is provided, input tensor and weight tensor should have "
                f"the same dtype, but got input({dtypes.cpp_name(x.dtype)}), and "
                f"weight({dtypes.cpp_name(weight.dtype)})"
            )
        if weight.numel() != values.size:
            raise RuntimeError(
                "torch.histogramdd: if weight tensor is provided it should have the same shape as the input "
                f"tensor excluding its innermost dimension, but got input with shape [{values.size}, 1] and "
                f"weight with shape [{weight.numel()}]"
            )
        weights = weight._data.reshape(-1)
        tensor_inputs.append(weight)

    # which bin: the last edge ≤ v (np.searchsorted is that binary search); v equal to
    # the right edge goes into the last bin; values outside the edges are left out
    inside = (values >= edges[0]) & (values <= edges[-1])
    position = np.searchsorted(edges, values[inside], side="right") - 1
    position = np.minimum(position, len(edges) - 2)
    counted = None if weights is None else weights[inside].astype(np.float64)
    hist = np.bincount(position, weights=counted, minlength=len(edges) - 1).astype(values.dtype)
    if density:
        with np.errstate(invalid="ignore", divide="ignore"):  # nothing counted: NaN, as in PyTorch
            hist = hist / (hist.sum(dtype=hist.dtype) * np.diff(edges))

    # no derivative: both results require grad when an input does, and backward raises
    return HistogramResult(
        record(NotImplemented, hist, tuple(tensor_inputs), args="histogram"),
        record(NotImplemented, edges, tuple(tensor_inputs), args="histogram"),
    )
