"""The Tensor: a numpy array plus what autograd needs to know about it.

A tensor holds its values in a numpy array (`.numpy()` shows it). Autograd adds:

- `requires_grad`: should backward compute a gradient for it?
- `grad_fn`: the backward node of the op that made it (None for a leaf);
- `grad`: the gradient accumulated by backward (leaves, and `retain_grad()`);
- a version counter, bumped by every in-place op, so that backward can tell
  when a value it saved has changed since.

The ops themselves (`+`, `exp`, `sum`, ...) live in `autogradviz.ops`; they are
attached as methods in `autogradviz/methods.py`. The node that made a tensor
(`grad_fn`) is described in `graph.py`, and how an op links its result into
the graph in `record.py`.

This file holds only what backpropagation needs. PyTorch's Python surface
(`len(x)`, `x.item()`, `x.numpy()`, printing, `x.size(dim)`, the legacy
constructor `agv.Tensor(2, 3)`, pickling) is attached to the class from
`autogradviz/compat/`, as the ops are; so is `_rebuild`, the function that saved
files name as `autogradviz.core.tensor._rebuild` (compat/pickling.py).
"""

from __future__ import annotations

import numpy as np

from . import dtypes, views
from .grad_mode import check_requires_grad_allowed
from .size import Size

_new_tuple = tuple.__new__


class Tensor:
    __slots__ = (
        "_data",  # the numpy array
        "_grad_fn",  # Node that made this tensor, or None for a leaf
        "_requires_grad",
        "_grad",  # Tensor or None
        "_counter",  # the VersionCounter, shared with views and detach()-ed copies; None = version 0
        "_extras",  # None, or the TensorExtras of the few tensors that need more (views, hooks, ...)
        "__weakref__",
    )

    # May backward() start from ones when this tensor holds more than one number? PyTorch
    # says no (backward_and_grad.root_gradients); a subclass with another library's rule says True.
    implicit_grad_any_shape = False

    # -- basic facts --------------------------------------------------------------

    @property
    def shape(self) -> Size:
        """The sizes of the dimensions, printed as PyTorch's torch.Size([2, 3]) (see size.py)."""
        return _new_tuple(Size, self._data.shape)  # Size.of, without a call: shape is read often

    @property
    def ndim(self) -> int:
        return self._data.ndim

    @property
    def dtype(self) -> dtypes.DType:
        return dtypes.from_numpy_dtype(self._data.dtype)

    # -- autograd attributes ------------------------------------------------------

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None  # the property: a stale view is brought up to date first

    @property
    def grad_fn(self):
        if self._extras is not None:  # a view whose base changed in place: see views.py
            views.refresh_if_stale(self)
        return self._grad_fn

    @property
    def requires_grad(self) -> bool:
        if self._extras is not None:  # a view whose base changed in place: see views.py
            views.refresh_if_stale(self)
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, flag: bool) -> None:
        flag = bool(flag)
        if self._grad_fn is not None:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use a "
                "computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach()."
            )
        if flag:
            refuse_integer_grad(
                self, "only Tensors of floating point and complex dtype can require gradients"
            )
            check_requires_grad_allowed(self)  # not on an inference tensor outside inference_mode()
        self._requires_grad = flag

    @property
    def grad(self) -> Tensor | None:
        """The gradient backward accumulated here: for a leaf, and for a tensor that
        retain_grad(). (compat/python_protocol.py adds PyTorch's checks and warning.)"""
        return self._grad

    def retain_grad(self) -> None:
        """Keep `.grad` for this non-leaf tensor too, as backward passes through it."""
        if self._grad_fn is None:
            if not self._requires_grad:
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
            return
        self._grad_fn.retain_output(self)
        self._ensure_extras().retains_grad = True

    @property
    def retains_grad(self) -> bool:
        return self._extras is not None and self._extras.retains_grad

    def register_hook(self, hook):
        """Call `hook(grad)` when this tensor's gradient is computed. The hook may
        return a new gradient of the same shape to use instead. Returns a handle
        whose `.remove()` unregisters it."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        # a leaf keeps its own hooks; a computed tensor's are kept by the node that made it
        extras = self._ensure_extras() if self._grad_fn is None else self._grad_fn._ensure_extras()
        if extras.hooks is None:
            extras.hooks = []
        extras.hooks.append(hook)
        return _HookHandle(extras.hooks, hook)

    @property
    def version(self) -> int:
        """How many in-place ops changed this tensor's data (shared with detach())."""
        counter = self._counter
        return 0 if counter is None else counter.value

    _version = version

    @property
    def name(self) -> str | None:
        """An optional label: drawings show it."""
        return None if self._extras is None else self._extras.name

    @name.setter
    def name(self, value: str | None) -> None:
        value = None if value is None else str(value)
        self._ensure_extras().name = value
        if self._grad_fn is not None:  # drawings find an intermediate's name on its node
            self._grad_fn._ensure_extras().name = value

    # -- data ---------------------------------------------------------------------

    @property
    def data(self) -> Tensor:
        """The same storage, outside the graph, with a version counter of its own:
        changes made through `.data` are invisible to autograd (prefer detach())."""
        return _make(self._data)

    @data.setter
    def data(self, value) -> None:
        array = value._data if isinstance(value, Tensor) else np.asarray(value)
        if self._requires_grad and array.dtype.kind != "f":
            raise RuntimeError(
                "data set to a tensor that requires gradients must be floating point or complex dtype "
                f"(the new data is {dtypes.from_numpy_dtype(array.dtype)!r})"
            )
        self._data = array

    # identity hashing, as in PyTorch: == is elementwise, so it cannot define equality
    # (and backward keeps tensors in dicts and sets)
    __hash__ = object.__hash__

    # -- leaving the graph ----------------------------------------------------------

    def detach(self) -> Tensor:
        """The same storage and version counter, outside the graph. Changing it in
        place bumps the shared counter, so backward notices."""
        out = _make(self._data)
        out._counter = self.version_counter()
        if self._extras is not None and self._extras.inference:
            out._ensure_extras().inference = True  # as in PyTorch, detaching keeps an inference tensor one
        if not self._data.flags.writeable:  # an expand()-ed view: see views.alias_of_memory
            out._ensure_extras().memory_of = views.alias_of_memory(self)
        return out

    def detach_(self) -> Tensor:
        if views.view_of(self) is not None:
            raise RuntimeError("Can't detach views in-place. Use detach() instead.")
        self._grad_fn = None
        self._requires_grad = False
        return self

    def version_counter(self) -> VersionCounter:
        """The counter shared with detach()-ed copies, views, and the nodes that
        saved this tensor. Made on first need: most tensors are never changed
        in place, and None stands for version 0."""
        if self._counter is None:
            self._counter = VersionCounter()
        return self._counter

    def _bump_version(self) -> None:
        self.version_counter().value += 1

    def _ensure_extras(self) -> TensorExtras:
        """This tensor's extras, made on first need, to set one of them."""
        if self._extras is None:
            self._extras = TensorExtras()
        return self._extras


class TensorExtras:
    """What only some tensors need, kept apart: a plain tensor holds None in its
    `_extras` slot, so the hot paths (every op looks at its inputs) pay one
    `is not None` test for all of it. Made on first need (`_ensure_extras`)."""

    __slots__ = ("view", "memory_of", "inference", "retains_grad", "hooks", "name", "accumulator")

    def __init__(self) -> None:
        self.view: views.ViewOf | None = None  # a view's base, and how to make it again (views.py)
        self.memory_of: tuple | None = None  # a detach()-ed expand() view's memory (views.alias_of_memory)
        self.inference = False  # made inside inference_mode(): no op may save it (grad_mode.py)
        self.retains_grad = False  # retain_grad() was called: backward writes this non-leaf's .grad
        self.hooks: list | None = None  # a leaf's register_hook() hooks (a non-leaf's are on its node)
        self.name: str | None = None  # a label that drawings show
        self.accumulator = None  # a weak reference to a leaf's AccumulateGrad (graph.accumulator_of)


class VersionCounter:
    """How many times a tensor's data has been changed in place.

    A node that saves a tensor for backward notes the counter's value then;
    if the value has moved by the time backward needs the tensor, backward
    raises instead of computing with the new data."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = 0


def _init(t: Tensor, data: np.ndarray, grad_fn=None) -> None:
    t._data = data
    t._grad_fn = grad_fn
    t._requires_grad = grad_fn is not None
    t._grad = None
    t._counter = None
    t._extras = None


def _make(data, grad_fn=None) -> Tensor:
    """Wrap an array as a tensor without copying it (Tensor(...) copies): what
    every op uses for its result."""
    t = Tensor.__new__(Tensor)  # skips __init__
    _init(t, np.asarray(data), grad_fn)  # numpy gives scalars, not arrays, for 0-d results
    return t


def refuse_integer_grad(t: Tensor, sentence: str) -> None:
    """Only floats can have gradients (a small change of an integer is not an integer).
    `sentence` is PyTorch's wording, which differs between the places that check."""
    if t._data.dtype.kind != "f":
        raise RuntimeError(
            f"{sentence}; this tensor is {t.dtype!r}. Make it float first, for example x.float()"
        )


class _HookHandle:
    __slots__ = ("_hooks", "_hook")

    def __init__(self, hooks: list, hook):
        self._hooks = hooks
        self._hook = hook

    def remove(self) -> None:
        if self._hook in self._hooks:
            self._hooks.remove(self._hook)

    def __repr__(self) -> str:
        return f"<hook handle: {getattr(self._hook, '__name__', 'hook')}>"
