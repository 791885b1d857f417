"""Broadcasting, both ways.

Forward, numpy broadcasts: a (3, 1) tensor times a (4,) tensor gives (3, 4).
Backward, each input must get a gradient of its own shape, so the gradient is
summed over the axes that broadcasting stretched. `sum_to` is that one helper;
the engine calls it for every op whose gradient comes back too big.
"""

from __future__ import annotations


def reduced_axes(grad_shape: tuple, shape: tuple) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The axes of `grad_shape` to sum away, and of those, the ones to keep as size 1."""
    lead = len(grad_shape) - len(shape)
    kept = tuple(i + lead for i, n in enumerate(shape) if n == 1 and grad_shape[i + lead] != 1)
    return tuple(range(lead)) + kept, kept


def sum_to(xp, grad, shape: tuple):
    """Sum `grad` down to `shape`, undoing broadcasting. `xp` is numpy_math or
    tensor_math, so the same helper serves plain and create_graph backward."""
    axes, _ = reduced_axes(grad.shape, shape)
    if axes:
        grad = xp.sum(grad, axes, True)
    return xp.reshape(grad, shape) if grad.shape != shape else grad
