"""PyTorch's names for what a backward node saved: `y.grad_fn._saved_self`.

    y = x.pow(2)
    y.grad_fn._saved_self is x            # True: a saved input is that tensor
    y.grad_fn._saved_exponent             # 2: an argument of the op
    y.grad_fn._raw_saved_self             # <SavedTensor>: a handle, to give it hooks

The kernel's Node keeps its saved values by position (core/graph.py). This
module attaches `Node.__getattr__`, which maps PyTorch's names onto those
positions, as methods.py attaches the ops to Tensor; `autogradviz.autograd`
imports it, so every node has the names. `TORCH_NAMES` is the one table of
PyTorch's names for a node's inputs and saved values: the PyTorch bridge
(torch/graph.py) reads the input names in it too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import NamedTuple

import numpy as np

from ..core.graph import OUTPUT, Node
from ..core.tensor import Tensor, _make
from .graph import Packed, SavedTensor

__all__ = ["TORCH_NAMES", "TorchNames", "torch_saved_names"]


class TorchNames(NamedTuple):
    """PyTorch's names on one kind of backward node.

    `inputs`: the names of its tensor inputs, in `next_functions` order (None:
    not listed). The PyTorch bridge reads an input that needs no gradient
    through them (`_saved_<name>`).

    `saved`: what autogradviz's node of that name gives as `_saved_<name>`, when
    its saved values' sources do not say it already (input 0 is `self`, input 1
    `other`, the output `result`): an int is a position in the node's saved
    values; a function computes the value from the op's args; None says that
    PyTorch has no such name on this node."""

    inputs: tuple[str, ...] | None = None
    saved: Mapping[str, int | Callable | None] = MappingProxyType({})


def _dims(value) -> tuple:
    return tuple(int(d) for d in value)


def _numel(shape) -> int:
    return int(np.prod(shape, dtype=np.int64))


def _names(inputs: tuple[str, ...] | None = None, **saved: int | Callable | None) -> TorchNames:
    return TorchNames(inputs, MappingProxyType(saved))


# tests/test_saved_tensors.py checks the saved names against torch, and
# tests/test_torch_graph_names.py the input names
TORCH_NAMES: dict[str, TorchNames] = {
    "AddBackward0": _names(("self", "other")),
    "SubBackward0": _names(("self", "other")),
    "MulBackward0": _names(("self", "other"), self=0, other=1),
    "DivBackward0": _names(("self", "other"), self=0, other=1),
    "PowBackward0": _names(exponent=lambda args: args),
    "PowBackward1": _names(("self", "exponent"), other=None, exponent=1),
    "PowBackward2": _names(self=lambda args: args[0]),
    "MaximumBackward0": _names(("self", "other")),
    "MinimumBackward0": _names(("self", "other")),
    "Atan2Backward0": _names(("self", "other")),
    "WhereBackward0": _names(("condition", "self", "other"), condition=0),
    "SumBackward0": _names(self_sym_sizes=lambda args: _dims(args[0])),
    "SumBackward1": _names(
        dim=lambda args: _dims(args[1]),
        keepdim=lambda args: bool(args[2]),
        self_sym_sizes=lambda args: _dims(args[0]),
    ),
    "MeanBackward0": _names(
        self_sym_sizes=lambda args: _dims(args[0]),
        self_sym_numel=lambda args: _numel(args[0]),
    ),
    "MeanBackward1": _names(
        dim=lambda args: _dims(args[1]),
        keepdim=lambda args: bool(args[2]),
        self_sym_sizes=lambda args: _dims(args[0]),
        self_sym_numel=lambda args: _numel(args[0]),
    ),
    "MmBackward0": _names(("self", "mat2"), self=0, other=None, mat2=1),
    "BmmBackward0": _names(("self", "mat2")),
    "MvBackward0": _names(("self", "vec")),
    "DotBackward0": _names(("self", "tensor")),
    "AddmmBackward0": _names(("self", "mat1", "mat2")),
    "SoftmaxBackward0": _names(dim=lambda args: int(args[0])),
    "LogSoftmaxBackward0": _names(dim=lambda args: int(args[0])),
    "TransposeBackward0": _names(dim0=lambda args: int(args[0]), dim1=lambda args: int(args[1])),
    "ClampBackward1": _names(min=lambda args: args[0], max=lambda args: args[1]),
    "ClampBackward0": _names(("self", "min", "max"), min=1, max=2),
    "LeakyReluBackward0": _names(negative_slope=lambda args: args),
    "ViewBackward0": _names(self_sym_sizes=lambda args: _dims(args)),
    "CatBackward0": _names(dim=lambda args: int(args[0])),
    "ConvolutionBackward0": _names(("input", "weight", "bias")),
    "NllLossBackward0": _names(("self",)),  # the class targets are integers: no edge
    "MseLossBackward0": _names(("self", "target")),
    "BinaryCrossEntropyBackward0": _names(("self", "target", "weight")),
    "BinaryCrossEntropyWithLogitsBackward0": _names(("self", "target", "weight", "pos_weight")),
}


def torch_saved_names(node: Node) -> dict[str, int | Callable]:
    """`_saved_<name>` -> where the node keeps it: a position in its saved
    values, or a function of the op's args."""
    if getattr(type(node), "custom_function", False):
        return {}  # a custom Function's ctx has saved_tensors instead
    names = {}
    for position, source, _, _ in node._checks:
        if source == 0:
            names["self"] = position
        elif source == 1:
            names["other"] = position
        elif source is OUTPUT:
            names["result"] = position
    row = TORCH_NAMES.get(type(node).__name__)
    if row is not None:
        names.update(row.saved)
    return {name: where for name, where in names.items() if where is not None}


def _saved_attribute(self: Node, name: str):
    """Node.__getattr__: only reached when normal lookup fails, so the ops never pay for it."""
    raw = name.startswith("_raw_saved_")
    if raw or name.startswith("_saved_"):
        key = name[len("_raw_saved_") :] if raw else name[len("_saved_") :]
        where = torch_saved_names(self).get(key)
        if where is not None:
            if not isinstance(where, int):  # an argument of the op, computed from args
                if raw:
                    raise AttributeError(f"'{self.name()}' object has no attribute '{name}'")
                return where(self.args)
            return SavedTensor(self, where) if raw else _saved_at(self, where)
    raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")


def _saved_at(node: Node, position: int):
    """One saved value, as PyTorch's `_saved_*` attribute gives it: a saved
    input is that tensor (a leaf is the leaf itself), the output a new tensor
    on its data; after backward freed it, PyTorch's error. Only this value is
    unpacked (its unpack hook runs), as in PyTorch."""
    if node._saved is None:
        node.unpack_saved()  # raises the "backward through the graph a second time" error
    value = node._saved[position]
    for where, origin, counter, version in node._checks:
        if where == position:
            if counter.value != version:
                node._version_error(counter.value, version, value.shape)
            if isinstance(value, Packed):
                value = value.unpack()
            return node._as_tensor(value, origin)
    if value is None or isinstance(value, Tensor):
        return value
    return _make(np.asarray(value))  # a plain number the op saved: PyTorch shows it as a tensor


# set after the class is made, from here, so that the kernel's Node stays free of PyTorch's names
Node.__getattr__ = _saved_attribute
