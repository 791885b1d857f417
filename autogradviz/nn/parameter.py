"""Parameter: a leaf tensor that a Module learns.

As in PyTorch, `Parameter` is a subclass of `Tensor`: `type(p)` is `nn.Parameter`,
and `isinstance(p, nn.Parameter)` is Python's own check. An op on a parameter
gives a plain tensor, and so do `p.detach()` and `p.data`, as in PyTorch.
"""

from __future__ import annotations

from ..compat.pickling import MARKED_CLASSES
from ..core.creation import as_array
from ..core.tensor import Tensor, _make, refuse_integer_grad


class Parameter(Tensor):
    """`Parameter(data)` returns a leaf tensor that requires grad and that
    Modules register as learnable. A tensor's storage is shared (as PyTorch
    does); other data is copied into a float32 tensor."""

    __slots__ = ()  # Tensor's own layout, so a tensor's class can become Parameter

    def __new__(cls, data=None, requires_grad: bool = True) -> Parameter:
        if isinstance(data, Tensor):
            t = data.detach()  # same storage and version counter, no history
        else:
            t = _make(as_array(() if data is None else data))
            if t._data.dtype.kind != "f":
                t = _make(t._data.astype("float32"))
        t.__class__ = cls  # (a copy or a saved file marks it "parameter": see compat/pickling.py)
        if requires_grad:  # PyTorch's words here differ from the setter's ("only ...")
            refuse_integer_grad(t, "Only Tensors of floating point and complex dtype can require gradients")
        t.requires_grad = requires_grad
        return t

    def __init__(self, data=None, requires_grad: bool = True) -> None:
        pass  # __new__ made it: Tensor.__init__ is the legacy constructor, Tensor(2, 3)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()


class UninitializedParameter(Parameter):
    """A parameter without a shape yet: nn.LazyLinear's weight and bias before the
    first call (an empty float tensor until then). Giving it its values turns it
    into a plain Parameter, `p.__class__ = Parameter`, as PyTorch does."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<UninitializedParameter>"


MARKED_CLASSES["parameter"] = Parameter  # a copy or a saved file of any Parameter comes back as one
