"""Module: the building block of networks, as in PyTorch.

A module keeps its learnable tensors (parameters), its non-learnable state
(buffers, such as BatchNorm's running mean) and its sub-modules in three
ordered dicts, filled by plain attribute assignment: `self.fc = nn.Linear(2, 3)`
registers a sub-module, `self.w = nn.Parameter(...)` a parameter. Everything
else (`parameters()`, `state_dict()`, `train()`, the repr) walks those dicts.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict, namedtuple
from collections.abc import Callable, Iterable, Iterator, Mapping

import numpy as np

from ..core import device as _device
from ..core.dtypes import to_dtype
from ..core.grad_mode import no_grad
from ..core.graph import grad_node
from ..core.tensor import Tensor
from ._arguments import typename
from .parameter import Parameter

_STORES = ("_parameters", "_buffers", "_modules")


class IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What load_state_dict(strict=False) could not match."""

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()


class _RemovableHandle:
    def __init__(self, hooks: dict, key: int):
        self._hooks, self._key = hooks, key

    def remove(self) -> None:
        self._hooks.pop(self._key, None)


class Module:
    """Subclass it, create layers in `__init__` (after `super().__init__()`),
    and compute the output in `forward`; call the module, not `forward`."""

    training: bool
    _hook_ids = itertools.count()

    def __init__(self) -> None:
        # object.__setattr__: our own __setattr__ needs these dicts to exist first
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_buffers", {})
        object.__setattr__(self, "_non_persistent", set())
        object.__setattr__(self, "_modules", {})
        object.__setattr__(self, "_forward_hooks", {})

    def forward(self, *args, **kwargs):
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function'
        )

    def __call__(self, *args, **kwargs):
        __tracebackhide__ = True  # IPython: a learner's traceback ends at their own line
        starts = _graph_inputs(args)  # before forward: an in-place op may rebase an input
        out = self.forward(*args, **kwargs)
        for hook in list(self._forward_hooks.values()):
            result = hook(self, args, out)
            if result is not None:
                out = result
        _mark_module(self, starts, out)
        return out

    def register_forward_hook(self, hook: Callable) -> _RemovableHandle:
        """Call `hook(module, inputs, output)` after every forward; a result
        other than None replaces the output. `.remove()` on the handle undoes it."""
        key = next(Module._hook_ids)
        self._forward_hooks[key] = hook
        return _RemovableHandle(self._forward_hooks, key)

    # -- registering by attribute assignment -----------------------------------------

    def __setattr__(self, name: str, value) -> None:
        stores = self.__dict__.get("_parameters")
        if isinstance(value, (Parameter, Module)):
            if stores is None:
                kind = "parameters" if isinstance(value, Tensor) else "module"
                raise AttributeError(
                    f"cannot assign {kind} before Module.__init__() call: "
                    "start your __init__ with super().__init__()"
                )
            # a name keeps its place in its own dict when reassigned, as in PyTorch
            self._forget(name, keep="_modules" if isinstance(value, Module) else "_parameters")
            if isinstance(value, Module):
                # as in PyTorch, an attribute's name is not checked as add_module's is:
                # `self.parameters = nn.Linear(...)` is the learner's choice to make
                self._set_module(name, value)
            else:
                self.register_parameter(name, value)
            return
        for store, expected in (("_parameters", "nn.Parameter"), ("_modules", "nn.Module")):
            if stores is not None and name in self.__dict__[store]:
                if value is not None:
                    raise TypeError(
                        f"cannot assign '{type(value).__name__}' as {store[1:-1]} '{name}' "
                        f"({expected} or None expected)"
                    )
                self.__dict__[store][name] = None
                return
        if stores is not None and name in self._buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign '{type(value).__name__}' as buffer '{name}' (Tensor or None expected)"
                )
            self._buffers[name] = value
            return
        object.__setattr__(self, name, value)

    def __getattr__(self, name: str):
        # only called when normal lookup fails: look in the three dicts
        d = self.__dict__
        for store in _STORES:
            if store in d and name in d[store]:
                return d[store][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        if not self._forget(name):
            object.__delattr__(self, name)

    def _forget(self, name: str, keep: str | None = None) -> bool:
        """Remove `name` wherever it is registered (but from `keep`); was it anywhere?"""
        d = self.__dict__
        found = name in d
        d.pop(name, None)
        for store in _STORES:
            if store != keep and name in d.get(store, {}):
                del d[store][name]
                found = True
        d.get("_non_persistent", set()).discard(name)
        return found

    def _check_new_name(self, name: str, store: str, kind: str) -> None:
        """PyTorch's rules for a parameter's or a buffer's name, in its order and words:
        a dotted name would be ambiguous in state_dict's keys ("fc.weight"), and an
        existing attribute's name ("parameters") would hide the attribute."""
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if hasattr(self, name) and name not in self.__dict__[store]:
            raise KeyError(f"attribute '{name}' already exists")

    def register_parameter(self, name: str, param: Tensor | None) -> None:
        self._check_new_name(name, "_parameters", "parameter")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{type(param).__name__}' object to parameter '{name}' "
                "(nn.Parameter or None required)"
            )
        self._parameters[name] = param
        if param is not None and param.name is None:
            param.name = name  # a parent module puts its own prefix in front later

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """State that is not learned but belongs to the model (saved in state_dict
        unless persistent=False), like BatchNorm's running statistics."""
        self._check_new_name(name, "_buffers", "buffer")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{type(tensor).__name__}' object to buffer '{name}' (Tensor or None required)"
            )
        self._buffers[name] = tensor
        if not persistent:
            self._non_persistent.add(name)
        if tensor is not None and tensor.name is None:
            tensor.name = name

    def add_module(self, name: str, module: Module | None) -> None:
        _check_module(module)
        # PyTorch's rules for a child's name, in its order and words (a parameter's are
        # the same, but for the order: see _check_new_name)
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._set_module(name, module)

    def _set_module(self, name: str, module: Module | None) -> None:
        """Register a child, with no check of its name (attribute assignment's path)."""
        _check_module(module)
        self._modules[name] = module
        if module is None:
            return
        # qualified names for drawings: "weight" becomes "0.weight", then "features.0.weight".
        # A tensor already named by another module (a shared weight) keeps its first name.
        for qualified, t in itertools.chain(module.named_parameters(), module.named_buffers()):
            if t.name == qualified:
                t.name = f"{name}.{qualified}"

    register_module = add_module

    # -- walking the tree ---------------------------------------------------------------

    def named_modules(self, memo: set | None = None, prefix: str = "") -> Iterator[tuple[str, Module]]:
        """This module and every module inside it, each once, with its qualified name."""
        memo = set() if memo is None else memo
        if self in memo:
            return
        memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is not None:
                yield from module.named_modules(memo, f"{prefix}.{name}" if prefix else name)

    def modules(self) -> Iterator[Module]:
        for _, module in self.named_modules():
            yield module

    def named_children(self) -> Iterator[tuple[str, Module]]:
        seen = set()
        for name, module in self._modules.items():
            if module is not None and module not in seen:
                seen.add(module)
                yield name, module

    def children(self) -> Iterator[Module]:
        for _, module in self.named_children():
            yield module

    def _named_members(self, store: str, prefix: str, recurse: bool) -> Iterator[tuple[str, Tensor]]:
        seen = set()  # ids: a tensor shared by two modules is listed once
        modules = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            members = module.__dict__.get(store)
            if members is None:
                name = type(module).__name__
                raise AttributeError(
                    f"'{name}' object has no attribute '{store}': did you forget to call "
                    f"super().__init__() at the start of {name}.__init__?"
                )
            for name, t in members.items():
                if t is not None and id(t) not in seen:
                    seen.add(id(t))
                    yield (f"{module_prefix}.{name}" if module_prefix else name), t

    def named_parameters(self, prefix: str = "", recurse: bool = True) -> Iterator[tuple[str, Tensor]]:
        return self._named_members("_parameters", prefix, recurse)

    def parameters(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix: str = "", recurse: bool = True) -> Iterator[tuple[str, Tensor]]:
        return self._named_members("_buffers", prefix, recurse)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def apply(self, fn: Callable[[Module], None]) -> Module:
        """Call fn on every sub-module, then on this one (e.g. to initialise weights)."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # -- modes and gradients ------------------------------------------------------------

    def train(self, mode: bool = True) -> Module:
        """Training mode: Dropout drops, BatchNorm uses batch statistics."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for module in self.modules():
            object.__setattr__(module, "training", mode)
        return self

    def eval(self) -> Module:
        """Evaluation mode: Dropout does nothing, BatchNorm uses its running statistics."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget the accumulated gradients before the next backward."""
        for p in self.parameters():
            if p._grad is None:
                continue
            if set_to_none:
                p._grad = None
            else:
                with no_grad():
                    p._grad.zero_()

    def clear_gradients(self, set_to_zero: bool = True) -> None:
        """Paddle's spelling of zero_grad (which zeroes rather than drops)."""
        self.zero_grad(set_to_none=not set_to_zero)

    # -- dtype ---------------------------------------------------------------------------

    def to(self, *args, device=None, dtype=None, non_blocking: bool = False) -> Module:
        """Convert every floating-point parameter and buffer in place (the same
        tensor objects, so optimizers that hold them still do): model.to(agv.float64),
        model.to(device), model.to(device, dtype), model.to(tensor). A device must
        be the CPU ("cpu", agv.device("cpu")), and moving there changes nothing."""
        dtype = _device.to_arguments(args, dtype, device)
        if dtype is None:
            return self
        target = to_dtype(dtype).numpy
        for t in itertools.chain(self.parameters(), self.buffers()):
            if t._data.dtype.kind == "f":
                t._data = t._data.astype(target)
                if t._grad is not None:
                    t._grad._data = t._grad._data.astype(target)
        return self

    def cpu(self) -> Module:
        return self

    def cuda(self, device=None) -> Module:
        """There is no GPU: PyTorch's error, with a hint."""
        _device.check("cuda", "a module")

    def double(self) -> Module:
        return self.to("float64")

    def float(self) -> Module:
        return self.to("float32")

    # -- saving and loading -----------------------------------------------------------------

    def state_dict(self, destination=None, prefix: str = "", keep_vars: bool = False) -> OrderedDict:
        """Every parameter and persistent buffer by qualified name, detached (the
        same storage: later training changes them)."""
        out = OrderedDict() if destination is None else destination
        for name, t in itertools.chain(self._parameters.items(), self._buffers.items()):
            if t is not None and name not in self._non_persistent:
                out[prefix + name] = t if keep_vars else t.detach()
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(out, f"{prefix}{name}.", keep_vars)
        return out

    def load_state_dict(self, state_dict, strict: bool = True) -> IncompatibleKeys:
        """Copy values into this module's parameters and buffers. With strict=True
        the keys must match exactly; shapes must always match. Nothing is copied
        unless everything can be."""
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        own = self.state_dict(keep_vars=True)
        # a BatchNorm counter absent from the checkpoint (saved before PyTorch had
        # it, or built by hand) keeps its value, as PyTorch's BatchNorm does
        missing = [key for key in own if key not in state_dict and not key.endswith("num_batches_tracked")]
        unexpected = [key for key in state_dict if key not in own]
        errors, copies = [], []
        for key, target in own.items():
            if key not in state_dict:
                continue
            # every entry is checked and converted before any is copied: a bad one
            # found after a good one must not leave the model half loaded
            array, error = _checkpoint_array(key, state_dict[key], target)
            if error is not None:
                errors.append(error)
            else:
                copies.append((target, array))
        if strict:
            if unexpected:
                errors.insert(
                    0, "Unexpected key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in unexpected))
                )
            if missing:
                errors.insert(
                    0, "Missing key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in missing))
                )
        if errors:
            raise RuntimeError(
                "Error(s) in loading state_dict for {}:\n\t{}".format(
                    type(self).__name__, "\n\t".join(errors)
                )
            )
        for target, array in copies:
            # same shape and dtype, writable target: this copy cannot fail
            np.copyto(target._data, array)
            target._bump_version()
        return IncompatibleKeys(missing, unexpected)

    set_state_dict = load_state_dict  # Paddle's name

    # -- printing ------------------------------------------------------------------------

    def extra_repr(self) -> str:
        """The layer's settings, shown inside its repr's parentheses."""
        return ""

    def __repr__(self) -> str:
        # PyTorch's layout: one line for a leaf layer, an indented block per child
        extra_lines = self.extra_repr().split("\n") if self.extra_repr() else []
        child_lines = [f"({name}): {_indent(repr(module), 2)}" for name, module in self._modules.items()]
        lines = extra_lines + child_lines
        body = ""
        if len(extra_lines) == 1 and not child_lines:
            body = extra_lines[0]
        elif lines:
            body = "\n  " + "\n  ".join(lines) + "\n"
        return f"{type(self).__name__}({body})"


Layer = Module  # Paddle's name


def _check_module(module) -> None:
    if module is not None and not isinstance(module, Module):
        raise TypeError(
            f"{typename(module)} is not a Module subclass: wrap a function in a Module, "
            "for example nn.ReLU() instead of F.relu"
        )


def _indent(text: str, spaces: int) -> str:
    first, *rest = text.split("\n")
    return "\n".join([first] + [" " * spaces + line for line in rest])


class Sequential(Module):
    """Modules called one after another: `Sequential(nn.Linear(2, 8), nn.ReLU(),
    nn.Linear(8, 1))`. Children are named "0", "1", ... unless given as an
    OrderedDict of names."""

    def __init__(self, *args: Module):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], dict):
            for name, module in args[0].items():
                self.add_module(name, module)
        else:
            for index, module in enumerate(args):
                self.add_module(str(index), module)

    def forward(self, input):
        __tracebackhide__ = True  # IPython: a learner's traceback ends at their own line
        for module in self._modules.values():
            input = module(input)
        return input

    def __getitem__(self, index: int | slice) -> Module:
        items = list(self._modules.items())
        if isinstance(index, slice):
            return Sequential(OrderedDict(items[index]))
        if not -len(items) <= index < len(items):
            raise IndexError(f"index {index} is out of range for a Sequential of {len(items)} modules")
        return items[index][1]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def append(self, module: Module) -> Sequential:
        self.add_module(str(len(self)), module)
        return self


class ModuleList(Module):
    """A list of modules, registered as children (so their parameters are the
    model's), for a forward that loops: `for layer in self.layers: x = layer(x)`.
    It has no forward of its own."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, index: int | slice):
        items = list(self._modules.values())
        if isinstance(index, slice):
            return ModuleList(items[index])
        if not -len(items) <= index < len(items):
            raise IndexError(f"index {index} is out of range for a ModuleList of {len(items)} modules")
        return items[index]

    def __setitem__(self, index: int, module: Module) -> None:
        key = list(self._modules)[index]
        self.add_module(key, module)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def append(self, module: Module) -> ModuleList:
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules) -> ModuleList:
        if not isinstance(modules, Iterable):  # a Module is not, but for Sequential and ModuleList
            raise TypeError(
                f"ModuleList.extend should be called with an iterable, but got {type(modules).__name__}"
            )
        modules = list(modules)
        for module in modules:  # every one checked before any is added (PyTorch adds those before a bad one)
            _check_module(module)
        for module in modules:
            self.append(module)
        return self

    def insert(self, index: int, module: Module) -> None:
        items = list(self._modules.values())
        items.insert(index, module)
        self._modules.clear()
        for i, item in enumerate(items):
            self.add_module(str(i), item)

    def forward(self, *args, **kwargs):
        raise NotImplementedError("ModuleList has no forward: loop over it, `for layer in self.layers: ...`")

    def __repr__(self) -> str:
        # like PyTorch: a run of identical modules is one line, "(0-2): 3 x Linear(...)"
        lines, items = [], [(name, repr(module)) for name, module in self._modules.items()]
        start = 0
        while start < len(items):
            end = start
            while end + 1 < len(items) and items[end + 1][1] == items[start][1]:
                end += 1
            text = items[start][1].replace("\n", "\n  ")
            if end > start:
                lines.append(f"({items[start][0]}-{items[end][0]}): {end - start + 1} x {text}")
            else:
                lines.append(f"({items[start][0]}): {text}")
            start = end + 1
        if not lines:
            return "ModuleList()"
        return "ModuleList(\n  " + "\n  ".join(lines) + "\n)"


def _checkpoint_array(key: str, value, target: Tensor) -> tuple[np.ndarray | None, str | None]:
    """The checkpoint's value for `key` as an array in the target's dtype, or
    the error message (PyTorch's wording where PyTorch has one) saying why not."""
    # a Tensor, a numpy array or scalar, or an object that converts itself (a torch
    # tensor, via __array__): PyTorch's "Tensor-like". Lists, None, strings are refused
    # as in PyTorch: np.asarray would turn them into object or string arrays
    if isinstance(value, Tensor):
        array = value._data
    elif isinstance(value, (np.ndarray, np.generic)) or (
        hasattr(value, "__array__") and not isinstance(value, (str, bytes))
    ):
        try:
            array = np.asarray(value)
        except Exception as error:  # an __array__ that fails: report it under its key
            return None, f'While copying the parameter named "{key}", an exception occurred : {error!r}.'
    else:
        return None, (
            f'While copying the parameter named "{key}", expected autogradviz.Tensor or a numpy '
            f"array from checkpoint but received {type(value)}"
        )
    if array.shape != target.shape:
        return None, (
            f"size mismatch for {key}: copying a param with shape {array.shape} from checkpoint, "
            f"the shape in current model is {target.shape}."
        )
    # bool, int and float convert into one another, as PyTorch's copy_ does;
    # complex would lose its imaginary part, strings and objects are not numbers
    dtype = target._data.dtype
    if not (array.dtype.kind in "biuf" or array.dtype.kind == dtype.kind == "c"):
        return None, (
            f'While copying the parameter named "{key}", whose dtype in the current model is '
            f"{dtype} and whose dtype in the checkpoint is {array.dtype}: {array.dtype} values "
            f"cannot be converted to {dtype}."
        )
    if not target._data.flags.writeable:
        return None, f'While copying the parameter named "{key}": the model\'s array is read-only.'
    return array.astype(dtype, copy=False), None


def _graph_inputs(inputs: tuple) -> tuple:
    """The nodes the module's inputs come from."""
    return tuple(grad_node(t) for t in inputs if isinstance(t, Tensor) and t._requires_grad)


def _mark_module(module: Module, starts: tuple, output) -> None:
    """Note on the output's grad_fn which module made it, and where the module's
    inputs came from, so that `agv.draw(loss, group="module")` can box each
    module's ops. One small note per module call, none per op."""
    outputs = output if isinstance(output, (tuple, list)) else (output,)
    for t in outputs:
        if not isinstance(t, Tensor) or t._grad_fn is None:
            continue
        node = t._grad_fn
        # an output that is an input passed through (Identity, eval-mode Dropout) was
        # made by no op of this module: a note would box nothing, and since the node
        # is the input's, calling the module in a loop would grow its list forever
        if node in starts:
            continue
        extras = node._ensure_extras()
        if extras.modules is None:
            extras.modules = []
        if any(m is module and s == starts for m, s in extras.modules):
            continue  # the same call noted twice (an output returned twice) boxes the same ops
        extras.modules.append((module, starts))
