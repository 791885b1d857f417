"""Paddle 2.0's tensor methods, attached to autogradviz's Tensor when
autogradviz.paddle is imported (as autogradviz/methods.py attaches the ops).

- new names, on every tensor: `astype(dtype)` and `cast(dtype)` ('float32'
  or paddle.float32), `set_value(value)`, `clear_gradient()`;
- `backward(grad_tensor=...)`, Paddle's name for the seed gradient (a Paddle
  tensor only: on a plain one it is PyTorch's `gradient=`);
- `x.sum()`, `x.mean()`, `x.max()`, `x.min()`, `x.argmax()`: unchanged on plain
  tensors; on a Paddle tensor, a full reduction has shape [1], as in Paddle 2.0
  (the node is the same: framework.as_one_element).
"""

from __future__ import annotations

import numpy as np

from .. import ops
from ..core import dtypes
from ..core.grad_mode import no_grad
from ..core.tensor import Tensor, as_array
from .framework import as_one_element


def astype(self: Tensor, dtype) -> Tensor:
    """A copy converted to `dtype` (recorded: a float result keeps the graph)."""
    return ops.to(self, dtypes.to_dtype(dtype))


def set_value(self: Tensor, value) -> None:
    """Overwrite the values in place, outside the graph (a parameter's new numbers).
    The shape must stay: Paddle's "The shape of the new value must be the same"."""
    array = as_array(value._data if isinstance(value, Tensor) else np.asarray(value), self.dtype)
    if array.shape != self._data.shape:
        raise ValueError(
            f"set_value: the shape of the new value {list(array.shape)} must be the same as the "
            f"tensor's {list(self._data.shape)}"
        )
    with no_grad():
        self._data[...] = array
    self._bump_version()  # a graph that saved the old values must notice


def clear_gradient(self: Tensor) -> None:
    """Paddle 2.0's older name for clear_grad(): set the gradient to zeros."""
    self.clear_grad()


def _backward_with_paddle_keyword(plain):
    """Tensor.backward, also taking Paddle's name for the seed gradient:
    `y.backward(grad_tensor=g, retain_graph=True)` (paddle.Tensor.backward(
    grad_tensor=None, retain_graph=False), Paddle 2.1's docs; 2.0 had no seed
    argument). Only on a Paddle tensor: PyTorch's backward has no grad_tensor."""

    def backward(self, gradient=None, retain_graph=None, create_graph: bool = False, *, grad_tensor=None):
        __tracebackhide__ = True  # IPython: a learner's traceback ends at their own line
        if grad_tensor is not None:
            if self._meta is None or "paddle" not in self._meta:
                raise TypeError(
                    "backward() got an unexpected keyword argument 'grad_tensor' (that is Paddle's name; "
                    "PyTorch's is gradient=)"
                )
            if gradient is not None:
                raise TypeError("backward() got the seed gradient twice: as gradient and as grad_tensor")
            gradient = grad_tensor
        plain(self, gradient, retain_graph, create_graph)

    backward.__doc__ = plain.__doc__
    backward._plain = plain
    return backward


def _one_element_for_paddle(name: str):
    """The method `name`, giving shape [1] instead of 0-d on a Paddle tensor."""
    plain = getattr(Tensor, name)

    def method(self, *args, **kwargs):
        out = plain(self, *args, **kwargs)
        if (
            self._meta is not None
            and "paddle" in self._meta
            and isinstance(out, Tensor)
            and out._data.ndim == 0
        ):
            return as_one_element(out)
        return out

    method.__name__ = method.__qualname__ = name
    method.__doc__ = plain.__doc__
    method._plain = plain  # the method it wraps
    return method


def attach() -> None:
    Tensor.astype = astype
    Tensor.cast = astype
    Tensor.set_value = set_value
    Tensor.clear_gradient = clear_gradient
    if not hasattr(Tensor.backward, "_plain"):
        Tensor.backward = _backward_with_paddle_keyword(Tensor.backward)
    for name in ("sum", "mean", "max", "min", "argmax"):
        if not hasattr(getattr(Tensor, name), "_plain"):  # once, even if this module is reloaded
            setattr(Tensor, name, _one_element_for_paddle(name))
