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
"""

from __future__ import annotations

import warnings

import numpy as np

from . import dtypes, views
from .grad_mode import _state as _grad_mode
from .printing import format_tensor
from .size import Size

_new_tuple = tuple.__new__


class Tensor:
    __slots__ = (
        "_data",  # the numpy array
        "_grad_fn",  # Node that made this tensor, or None for a leaf
        "_requires_grad",
        "_grad",  # Tensor or None
        "_counter",  # the VersionCounter, shared with views and detach()-ed copies; None = version 0
        "_meta",  # None, or a dict of rarely used extras (see _extra)
        "__weakref__",
    )

    # May backward() start from a gradient of ones when this tensor holds more than
    # one number? PyTorch says no: "grad can be implicitly created only for scalar
    # outputs" (backward_and_grad.root_gradients). A subclass that follows another library's
    # rule says yes by setting this to True.
    implicit_grad_any_shape = False

    def __init__(self, *args, dtype=None, requires_grad: bool = False):
        # like torch.Tensor(...): the class itself makes float32 tensors by default, and
        # takes either data, Tensor([1, 2]), or a size, Tensor(2, 3) (see legacy_array)
        _init(self, legacy_array(args, dtypes.to_dtype(dtype) if dtype is not None else dtypes.float32))
        if requires_grad:
            self.requires_grad = True

    # -- basic facts --------------------------------------------------------------

    @property
    def shape(self) -> Size:
        """The sizes of the dimensions, printed as PyTorch's torch.Size([2, 3]) (see size.py)."""
        return _new_tuple(Size, self._data.shape)  # Size.of, without a call: shape is read often

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

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def dim(self) -> int:
        return self._data.ndim

    def numel(self) -> int:
        return self._data.size

    nelement = numel  # PyTorch's older name, still used by makemore

    @property
    def dtype(self) -> dtypes.DType:
        return dtypes.from_numpy_dtype(self._data.dtype)

    def is_floating_point(self) -> bool:
        return self._data.dtype.kind == "f"

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return len(self._data)

    # -- autograd attributes ------------------------------------------------------

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None  # the property: a stale view is brought up to date first

    @property
    def grad_fn(self):
        if self._meta is not None:  # a view whose base changed in place: see views.py
            views.refresh_if_stale(self)
        return self._grad_fn

    @property
    def requires_grad(self) -> bool:
        if self._meta is not None:  # a view whose base changed in place: see views.py
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
        if flag and self._meta is not None and self._meta.get("inference") and not _grad_mode.inference:
            raise RuntimeError(
                "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."
            )
        self._requires_grad = flag

    def is_inference(self) -> bool:
        """Was this tensor made by an op inside `agv.inference_mode()`? (see grad_mode.py)"""
        return self._meta is not None and bool(self._meta.get("inference"))

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        if requires_grad and self._grad_fn is not None:
            return self  # PyTorch allows this no-op on a non-leaf
        if requires_grad:  # PyTorch words it differently here than in the setter
            refuse_integer_grad(self, "only Tensors of floating point dtype can require gradients")
        self.requires_grad = requires_grad
        return self

    @property
    def grad(self) -> Tensor | None:
        if self._grad_fn is not None and self._grad is None and not self._extra("retains_grad"):
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

    def retain_grad(self) -> None:
        """Keep `.grad` for this non-leaf tensor too, as backward passes through it."""
        if self._grad_fn is None:
            if not self._requires_grad:
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
            return
        self._grad_fn.retain_output(self)
        self._set_extra("retains_grad", True)

    @property
    def retains_grad(self) -> bool:
        return bool(self._extra("retains_grad"))

    def register_hook(self, hook):
        """Call `hook(grad)` when this tensor's gradient is computed. The hook may
        return a new gradient of the same shape to use instead. Returns a handle
        whose `.remove()` unregisters it."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._grad_fn is None:
            hooks = self._extra("hooks")
            if hooks is None:
                hooks = []
                self._set_extra("hooks", hooks)
        else:
            extras = self._grad_fn._ensure_extras()
            if extras.hooks is None:
                extras.hooks = []
            hooks = extras.hooks
        hooks.append(hook)
        return _HookHandle(hooks, hook)

    @property
    def version(self) -> int:
        """How many in-place ops changed this tensor's data (shared with detach())."""
        counter = self._counter
        return 0 if counter is None else counter.value

    _version = version

    @property
    def name(self) -> str | None:
        """An optional label: drawings show it."""
        return self._extra("name")

    @name.setter
    def name(self, value: str | None) -> None:
        value = None if value is None else str(value)
        self._set_extra("name", value)
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

    # identity hashing, as in PyTorch: == is elementwise, so it cannot define equality
    __hash__ = object.__hash__

    def __repr__(self) -> str:
        extras = []
        if self._data.dtype not in _DEFAULT_PRINT_DTYPES:
            extras.append(f"dtype={self.dtype!r}")
        if self._grad_fn is not None:
            extras.append(f"grad_fn=<{self._grad_fn.name()}>")
        elif self._requires_grad:
            extras.append("requires_grad=True")
        if self._meta is not None and self._meta.get(
            "uninitialized"
        ):  # nn.LazyLinear's, before its first call
            return "<UninitializedParameter>"
        if self._meta is not None and self._meta.get("parameter"):  # an nn.Parameter
            return "Parameter containing:\n" + format_tensor(self._data, extras)
        return format_tensor(self._data, extras)

    # -- copying and pickling: a leaf's values, grad and labels, never graph links --

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
        """The extras worth keeping in a copy: its name, and whether it is a Parameter.
        (Hooks, the AccumulateGrad node and view links belong to this object only.)"""
        if self._meta is None:
            return None
        kept = {k: v for k, v in self._meta.items() if k in ("name", "parameter")}
        return kept or None

    def __format__(self, spec: str) -> str:
        if self._data.ndim == 0:
            return format(self._data.item(), spec)
        return repr(self)

    # -- leaving the graph ----------------------------------------------------------

    def detach(self) -> Tensor:
        """The same storage and version counter, outside the graph. Changing it in
        place bumps the shared counter, so backward notices."""
        out = _make(self._data)
        out._counter = self.version_counter()
        if self._meta is not None and self._meta.get("inference"):
            out._meta = {"inference": True}  # as in PyTorch, detaching keeps an inference tensor one
        if not self._data.flags.writeable:
            # an expand()-ed view, which numpy marks read-only: a write into the detached
            # tensor goes into the memory owner's array, as a write into the view does
            # (ops/inplace.py). It keeps a plain alias of that array, not the owner and
            # its graph: a detached tensor keeps no history alive
            owner, replays = views.memory_owner(self)
            alias = _make(owner._data)
            alias._counter = owner.version_counter()
            out._set_extra("memory_of", (alias, replays))
        return out

    def detach_(self) -> Tensor:
        if self._extra("base") is not None:
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

    # -- rarely used extras -----------------------------------------------------------

    def _extra(self, key: str):
        meta = self._meta
        return None if meta is None else meta.get(key)

    def _set_extra(self, key: str, value) -> None:
        if self._meta is None:
            self._meta = {}
        self._meta[key] = value


class VersionCounter:
    """How many times a tensor's data has been changed in place.

    A node that saves a tensor for backward notes the counter's value then;
    if the value has moved by the time backward needs the tensor, backward
    raises instead of computing with the new data."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = 0


_DEFAULT_PRINT_DTYPES = (np.dtype("float32"), np.dtype("int64"), np.dtype("bool"))


def _init(t: Tensor, data: np.ndarray, grad_fn=None) -> None:
    t._data = data
    t._grad_fn = grad_fn
    t._requires_grad = grad_fn is not None
    t._grad = None
    t._counter = None
    t._meta = None


def _make(data, grad_fn=None) -> Tensor:
    """Wrap an array as a tensor without copying it (Tensor(...) copies): what
    every op uses for its result."""
    t = Tensor.__new__(Tensor)  # skips __init__
    _init(t, np.asarray(data), grad_fn)  # numpy gives scalars, not arrays, for 0-d results
    return t


def as_array(data, dtype=None) -> np.ndarray:
    """A fresh array for `data`, with PyTorch's dtype inference: Python floats
    give float32, Python ints int64, and a numpy array keeps its dtype.

    Values that don't fit the target dtype raise, as in PyTorch: numpy's cast would
    wrap around (inf, nan and 2**63 all become -2**63 as int64)."""
    if isinstance(data, Tensor):
        data = data._data
    from_python = not isinstance(data, (np.ndarray, np.generic))
    if not from_python:
        array = np.array(data)
        if dtype is None:
            dtypes.from_numpy_dtype(array.dtype)  # refuses float16 with a clear error
    else:
        if isinstance(data, (list, tuple)) and any(isinstance(x, Tensor) for x in _flat(data)):
            data = _untensor(data)
        array = np.array(data)
        if array.dtype == object and array.size and all(isinstance(x, int) for x in array.flat):
            # numpy keeps ints beyond 64 bits as Python objects; PyTorch's error for them
            raise ValueError(
                f"value cannot be converted to type int64 without overflow: {max(array.flat, key=abs)} "
                f"(int64 holds integers from {np.iinfo(np.int64).min} to {np.iinfo(np.int64).max})"
            )
        if dtype is None and array.dtype.kind not in "fiub":
            raise TypeError(
                f"can't make a tensor from {type(data).__name__} data of numpy dtype {array.dtype}"
            )
        if dtype is None:
            dtype = dtypes.float32 if array.dtype.kind == "f" else None
    if array.dtype.kind not in "fiub":  # "abc" with a dtype given: numpy's "could not convert string"
        raise TypeError(
            f"can't make a tensor of dtype {dtypes.to_dtype(dtype)!r} from {type(data).__name__} data "
            f"{data!r:.60}: expected numbers, bools, or lists, arrays or tensors of them"
        )
    target = dtypes.to_dtype(dtype) if dtype is not None else dtypes.from_numpy_dtype(array.dtype)
    if array.dtype != target.numpy:
        # checked as PyTorch checks: every value given as a Python number, and (for
        # int64) a numpy array's floats and uint64s; other numpy arrays wrap around
        checked = from_python or (target is dtypes.int64 and array.dtype.kind in "fu")
        if target.numpy.kind in "iu" and checked and array.size:
            bad = dtypes.overflows(array, target)
            if bad.any():
                # PyTorch's class: ValueError for a Python int beyond int64, RuntimeError otherwise
                error = ValueError if from_python and array.dtype.kind == "u" else RuntimeError
                info = np.iinfo(target.numpy)
                raise error(
                    f"value cannot be converted to type {target.name} without overflow: {array[bad].flat[0]} "
                    f"({target.name} holds integers from {info.min} to {info.max})"
                )
        with np.errstate(over="ignore"):  # 1e308 as float32 is inf, silently as in PyTorch
            array = array.astype(target.numpy)
    return array


def refuse_integer_grad(t: Tensor, sentence: str) -> None:
    """Only floats can have gradients (a small change of an integer is not an integer).
    `sentence` is PyTorch's wording, which differs between the places that check."""
    if t._data.dtype.kind != "f":
        raise RuntimeError(
            f"{sentence}; this tensor is {t.dtype!r}. Make it float first, for example x.float()"
        )


def legacy_array(args: tuple, dtype: dtypes.DType) -> np.ndarray:
    """What agv.Tensor(...) and agv.FloatTensor(...) hold, as in PyTorch: no argument
    is an empty tensor, integers are a size (PyTorch leaves the memory uninitialised:
    here it is zeros, so that printing it is deterministic), and one argument that
    is not an integer is data. A tensor must already have the dtype."""
    if not args:
        return np.zeros(0, dtype.numpy)
    if len(args) == 1 and isinstance(args[0], Size):  # FloatTensor(x.shape): a size, not data
        args = tuple(args[0])
    if all(isinstance(n, (int, np.integer)) and not isinstance(n, (bool, np.bool_)) for n in args):
        if any(n < 0 for n in args):
            raise RuntimeError(f"Trying to create tensor with negative dimension: size {list(args)}")
        return np.zeros(tuple(int(n) for n in args), dtype.numpy)
    if len(args) > 1:
        raise TypeError(
            f"new(): expected a size (integers) or one sequence of data, got {len(args)} arguments of types "
            + ", ".join(type(a).__name__ for a in args)
        )
    (data,) = args
    if isinstance(data, Tensor) and data._data.dtype != dtype.numpy:
        raise TypeError(
            f"expected {dtypes.type_name(dtype)} (got {dtypes.type_name(data.dtype)}): this constructor "
            f"makes {dtype!r} tensors; convert with x.to({dtype!r})"
        )
    return as_array(data, dtype)


def _flat(data):
    for x in data:
        if isinstance(x, (list, tuple)):
            yield from _flat(x)
        else:
            yield x


def _untensor(data):
    if isinstance(data, Tensor):
        return data._data
    if isinstance(data, (list, tuple)):
        return [_untensor(x) for x in data]
    return data


# The subclass a mark in a copied or saved tensor's extras stands for ("parameter": nn.Parameter),
# registered by the layer that defines it: the core cannot import nn
MARKED_CLASSES: dict[str, type] = {}


def _rebuild(data, requires_grad: bool, grad, meta) -> Tensor:
    t = _make(np.asarray(data))
    t._requires_grad = requires_grad
    if grad is not None:
        t._grad = _make(np.asarray(grad))
    t._meta = dict(meta) if meta else None
    for mark, cls in MARKED_CLASSES.items():
        if t._meta is not None and t._meta.get(mark):
            t.__class__ = cls
    return t


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
