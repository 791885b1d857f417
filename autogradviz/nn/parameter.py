"""Parameter: a leaf tensor that a Module learns.

In PyTorch, `Parameter` is a subclass of `Tensor`. Here a parameter is a plain
`Tensor` (the engine's fast paths test `type(t) is Tensor`) carrying a
"parameter" mark; `isinstance(t, nn.Parameter)` checks for that mark.
"""

from __future__ import annotations

from ..core.tensor import Tensor, _make, as_array, refuse_integer_grad


class _ParameterType(type):
    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, Tensor) and bool(obj._extra("parameter"))


class Parameter(metaclass=_ParameterType):
    """`Parameter(data)` returns a leaf tensor that requires grad and that
    Modules register as learnable. A tensor's storage is shared (as PyTorch
    does); other data is copied into a float32 tensor."""

    def __new__(cls, data=None, requires_grad: bool = True) -> Tensor:
        if isinstance(data, Tensor):
            t = data.detach()  # same storage and version counter, no history
        else:
            t = _make(as_array(() if data is None else data))
            if t._data.dtype.kind != "f":
                t = _make(t._data.astype("float32"))
        t._set_extra("parameter", True)
        if requires_grad:  # PyTorch's words here differ from the setter's ("only ...")
            refuse_integer_grad(t, "Only Tensors of floating point and complex dtype can require gradients")
        t.requires_grad = requires_grad
        return t
