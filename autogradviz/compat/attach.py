"""How this package attaches a group of methods to Tensor.

Each module of `autogradviz/compat/` writes its part of PyTorch's surface as the
body of a small class (a mixin), and `attach(Mixin, Tensor)` copies that body
onto Tensor: every method and property defined there becomes Tensor's, exactly
as if it were written in core/tensor.py. Subclasses (Parameter, PaddleTensor)
inherit them, and may override them, as usual.

Dunder methods work too: setting `Tensor.__len__` after the class is made
updates the slot CPython calls for `len(x)` (autogradviz/methods.py relies on
the same for `+` and the other operators).
"""

from __future__ import annotations

import types

# what every class body defines for itself (the last two from Python 3.13 on): not methods to copy
_OWN_TO_THE_MIXIN = {
    "__module__",
    "__qualname__",
    "__doc__",
    "__dict__",
    "__weakref__",
    "__firstlineno__",
    "__static_attributes__",
}


def attach(mixin: type, target: type) -> None:
    """Give `target` every name defined in `mixin`'s body. Functions are renamed
    `Target.name`, so a traceback or a wrong-arguments error names the class the
    learner is using."""
    for name, value in vars(mixin).items():
        if name in _OWN_TO_THE_MIXIN:
            continue
        for function in _functions_of(value):
            if function.__name__ == name:  # not an alias (nelement = numel): it keeps its own name
                function.__qualname__ = f"{target.__name__}.{name}"
        setattr(target, name, value)


def _functions_of(value) -> list:
    if isinstance(value, types.FunctionType):
        return [value]
    if isinstance(value, property):
        return [f for f in (value.fget, value.fset, value.fdel) if isinstance(f, types.FunctionType)]
    return []
