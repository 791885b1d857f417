"""Paddle's spellings of three autograd attributes, on every tensor.

The README lists them among autogradviz's own autograd attributes, so they are
here whether or not `autogradviz.paddle` is imported, and they follow PyTorch's
rules on a plain tensor:

- `x.stop_gradient`: `not x.requires_grad`; setting it sets `requires_grad`
  (so, as in PyTorch, only on a leaf);
- `x.gradient()`: a copy of `x.grad` as a numpy array, or None;
- `x.clear_grad()`: set the accumulated grad to zeros (zero_grad() on a
  module or optimizer sets it to None instead);
- `agv.to_tensor(...)`: `agv.tensor(...)` under Paddle's name (`agv.tensor`
  takes `stop_gradient=` as well as `requires_grad=`).

A Paddle tensor (`autogradviz/paddle/framework.py`, `PaddleTensor`) overrides
`stop_gradient` with Paddle's rule for a computed tensor, and `.grad` with
`gradient()`.
"""

from __future__ import annotations

from ..core import creation
from ..core.tensor import Tensor

to_tensor = creation.tensor


def _get_stop_gradient(self: Tensor) -> bool:
    return not self._requires_grad


def _set_stop_gradient(self: Tensor, flag: bool) -> None:
    self.requires_grad = not flag  # the setter's checks (leaf only, floats only) apply


def gradient(self: Tensor):
    """Paddle's spelling: a copy of the grad as a numpy array, or None."""
    return None if self._grad is None else self._grad._data.copy()


def clear_grad(self: Tensor) -> None:
    """Paddle's spelling: set the accumulated grad to zeros."""
    if self._grad is not None:
        self._grad._data[...] = 0


Tensor.stop_gradient = property(
    _get_stop_gradient, _set_stop_gradient, doc="Paddle's spelling: `stop_gradient` is `not requires_grad`."
)
Tensor.gradient = gradient
Tensor.clear_grad = clear_grad
