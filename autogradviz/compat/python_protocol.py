"""PyTorch's Python surface of a tensor: the questions, conversions and printing
that tutorials use, with PyTorch's exact errors.

None of it is needed to backpropagate, so the kernel's Tensor (core/tensor.py)
leaves it out, and this module attaches it to every tensor (see attach.py):

- the small questions: `x.size(dim)`, `x.dim()`, `x.numel()`, `x.nelement()`,
  `x.is_floating_point()`, `x.is_inference()`, and `len(x)`;
- leaving for Python and numpy: `x.item()`, `x.tolist()`, `x.numpy()`,
  `np.asarray(x)`, `float(x)`, `int(x)`, `bool(x)`, `range(x)` (`__index__`),
  `for row in x`;
- printing: `repr(x)` as PyTorch prints it (core/printing.py), and `f"{x:.3f}"`
  for a 0-d tensor;
- `x.requires_grad_()`, and `x.grad` with PyTorch's checks when it is assigned
  and its warning when a non-leaf's is read.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..core import dtypes
from ..core.printing import format_tensor
from ..core.size import Size
from ..core.tensor import Tensor, refuse_integer_grad
from .attach import attach

_new_tuple = tuple.__new__

# dtypes that repr() leaves out, as PyTorch does (the ones Python numbers give)
_DEFAULT_PRINT_DTYPES = (np.dtype("float32"), np.dtype("int64"), np.dtype("bool"))


class PythonProtocol:
    """Not a base class: attach() copies this body onto Tensor."""

    # -- small questions ----------------------------------------------------------

    def size(self, dim: int | None = None) -> Size | int:
        """The shape, or with `dim` the size of that one dimension (an int)."""
        if dim is None:
            return _new_tuple(Size, self._data.shape)
        ndim = self._data.ndim
        if ndim == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        if not -ndim <= dim < ndim:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {dim})"
            )
        return self._data.shape[dim]

    def dim(self) -> int:
        return self._data.ndim

    def numel(self) -> int:
        return self._data.size

    nelement = numel  # PyTorch's older name, still used by makemore

    def is_floating_point(self) -> bool:
        return self._data.dtype.kind == "f"

    def is_inference(self) -> bool:
        """Was this tensor made by an op inside `agv.inference_mode()`? (see grad_mode.py)"""
        return self._extras is not None and self._extras.inference

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return len(self._data)

    # -- autograd, PyTorch's way of asking -------------------------------------------

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        if requires_grad and self._grad_fn is not None:
            return self  # PyTorch allows this no-op on a non-leaf
        if requires_grad:  # PyTorch words it differently here than in the setter
            refuse_integer_grad(self, "only Tensors of floating point dtype can require gradients")
        self.requires_grad = requires_grad
        return self

    @property
    def grad(self) -> Tensor | None:
        """The gradient backward accumulated here (core/tensor.py). Reading it on a
        non-leaf that does not retain_grad() gives None, with PyTorch's warning."""
        if self._grad_fn is not None and self._grad is None and not self.retains_grad:
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its "
                ".grad attribute won't be populated during autograd.backward(). If you indeed "
                "want the .grad field to be populated for a non-leaf Tensor, use .retain_grad() "
                "on the non-leaf Tensor.",
                UserWarning,
                stacklevel=2,
            )
        return self._grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                kind = type(value)
                name = (
                    kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"
                )
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type {name}")
            if value.shape != self.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value.shape)}' to a tensor of size "
                    f"'{list(self.shape)}'. Please ensure that the gradient and the tensor are the same size"
                )
            if value._data.dtype != self._data.dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{dtypes.cpp_name(value.dtype)}' to a "
                    f"tensor with grad_dtype '{dtypes.scalar_type_name(self.dtype)}'. The gradient must "
                    f"match the tensor's dtype ({self.dtype!r}); convert it first, for example "
                    f"grad.to({self.dtype!r})"
                )
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        self._grad = None

    # -- leaving for Python and numpy -----------------------------------------------

    def numpy(self) -> np.ndarray:
        if self._requires_grad:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
            )
        return self._data

    def __array__(self, dtype=None, copy=None):
        return self.numpy() if dtype is None else self.numpy().astype(dtype)

    def item(self):
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted to Scalar")
        return self._data.item()

    def _one_number(self):
        """float(x) and int(x): PyTorch's ValueError, unlike item()'s RuntimeError."""
        if self._data.size != 1:
            raise ValueError(
                "only one element tensors can be converted to Python scalars "
                f"(this tensor has {self._data.size} elements, shape {self._data.shape})"
            )
        return self._data.item()

    def tolist(self):
        return self._data.tolist()

    def __float__(self) -> float:
        return float(self._one_number())

    def __int__(self) -> int:
        return int(self._one_number())

    def __bool__(self) -> bool:
        if self._data.size != 1:
            raise RuntimeError(
                f"Boolean value of Tensor with {'more than one value' if self._data.size else 'no values'} "
                f"is ambiguous (this tensor has {self._data.size}); use .any() or .all()"
            )
        return bool(self._data.item())

    def __index__(self) -> int:
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self._data.item())

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(len(self._data)))

    # -- printing ---------------------------------------------------------------------

    def __repr__(self) -> str:
        extras = []
        if self._data.dtype not in _DEFAULT_PRINT_DTYPES:
            extras.append(f"dtype={self.dtype!r}")
        if self._grad_fn is not None:
            extras.append(f"grad_fn=<{self._grad_fn.name()}>")
        elif self._requires_grad:
            extras.append("requires_grad=True")
        return format_tensor(self._data, extras)

    def __format__(self, spec: str) -> str:
        if self._data.ndim == 0:
            return format(self._data.item(), spec)
        return repr(self)


attach(PythonProtocol, Tensor)
