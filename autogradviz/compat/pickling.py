"""Copying and pickling a tensor: `copy.deepcopy(x)`, `pickle.dumps(x)`, `agv.save`.

A copy keeps a leaf's values, its requires_grad, its grad and its labels (a
name, and whether it is an nn.Parameter); never graph links, hooks or view
links, which belong to the one object. A pickled tensor is the call
`_rebuild(data, requires_grad, grad, meta)`, with `meta` None or a dict of
those labels, `{"name": ..., "parameter": True}`.

That call is the file format: files saved with `agv.save` name the function
`autogradviz.core.tensor._rebuild`, and serialization.py's allowlist checks its
arguments. So `_rebuild` is defined here but published under that name, in the
kernel's module; the kernel itself never pickles (see attach.py for how the
methods reach Tensor).

The classes a mark stands for ("parameter": nn.Parameter) are registered in
MARKED_CLASSES by the layer that defines them, since this layer cannot import nn.
"""

from __future__ import annotations

import numpy as np

from ..core import tensor as _tensor_module
from ..core.tensor import Tensor, TensorExtras, _make
from .attach import attach

# mark in a copy's `meta` -> the subclass of Tensor it stands for, filled by nn/parameter.py
MARKED_CLASSES: dict[str, type] = {}


class Pickling:
    """Not a base class: attach() copies this body onto Tensor."""

    def __deepcopy__(self, memo) -> Tensor:
        if self._grad_fn is not None:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                "protocol at the moment. If you want to copy a computed tensor, use .detach().clone()"
            )
        copy = _rebuild(self._data.copy(), self._requires_grad, None, self._portable_meta())
        memo[id(self)] = copy
        if self._grad is not None:
            copy._grad = self._grad.__deepcopy__(memo)
        return copy

    def __reduce_ex__(self, protocol):
        grad = None if self._grad is None else self._grad._data
        requires_grad = self._requires_grad and self._grad_fn is None
        return (_rebuild, (self._data, requires_grad, grad, self._portable_meta()))

    def _portable_meta(self) -> dict | None:
        """The labels worth keeping in a copy, as the file format's dict: whether it
        is a Parameter (or another class of MARKED_CLASSES), and its name. (Hooks,
        the AccumulateGrad node and view links belong to this object only.)"""
        kept = {mark: True for mark, cls in MARKED_CLASSES.items() if isinstance(self, cls)}
        if self.name is not None:
            kept["name"] = self.name
        return kept or None

    # -- the extras as the dict they once were (older code and tests read it) ----------

    @property
    def _meta(self) -> dict | None:
        """The tensor's extras that are set, as a dict: the file format's keys ("name",
        "parameter", ...), a view's three facts as "base", "replay" and "version".
        Read-only: the extras themselves are `t._extras` (core/tensor.py)."""
        meta = {mark: True for mark, cls in MARKED_CLASSES.items() if isinstance(self, cls)}
        extras = self._extras
        if extras is not None:
            for field in TensorExtras.__slots__:
                value = getattr(extras, field)
                if field == "view" and value is not None:
                    meta.update(base=value.base, replay=value.replay, version=value.version)
                elif value is not None and value is not False:
                    meta[field] = value
        return meta or None

    def _extra(self, key: str):
        """One entry of `_meta`, or None."""
        meta = self._meta
        return None if meta is None else meta.get(key)


# the extras a `meta` dict may give back: plain values, never links to other objects
_RESTORED_EXTRAS = ("name", "hooks", "inference", "retains_grad")


def _rebuild(data, requires_grad: bool, grad, meta) -> Tensor:
    """The tensor a pickle or a deepcopy describes (see the module's docstring).
    A key of `meta` that is neither a mark nor one of _RESTORED_EXTRAS is ignored."""
    t = _make(np.asarray(data))
    t._requires_grad = requires_grad
    if grad is not None:
        t._grad = _make(np.asarray(grad))
    for key, value in (meta or {}).items():
        if key in MARKED_CLASSES:
            if value:
                t.__class__ = MARKED_CLASSES[key]
        elif key in _RESTORED_EXTRAS:
            setattr(t._ensure_extras(), key, value)
    return t


# Published in the kernel's module under the name saved files use (a frozen format):
# pickle writes `autogradviz.core.tensor._rebuild` and finds this function there.
_rebuild.__module__ = _tensor_module.__name__
_tensor_module._rebuild = _rebuild

attach(Pickling, Tensor)
