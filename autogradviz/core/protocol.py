"""The graph API: everything the drawings and the stepper read of a graph.

`viz/` and `widgets/` never touch a core object's private state, nor test a
node's class name. They read a graph through two small protocols:

- `GraphNode`: one backward node. autogradviz's own `Node` implements it
  (see graph.py).
- `GraphTensors`: how to read one library's tensors: the node a tensor's
  gradient goes to, its value, its `.grad`, its name. `AUTOGRADVIZ` reads
  autogradviz tensors.

An adapter over another library's graph (a real PyTorch `grad_fn` graph)
implements the same two, and the same drawings and stepper then show it.
"""

from __future__ import annotations

import importlib
import sys
from typing import Protocol, runtime_checkable

import numpy as np

from .graph import SavedValue, grad_node
from .tensor import Tensor


@runtime_checkable
class GraphNode(Protocol):
    """One backward node, read-only."""

    op: str  # the forward op it reverses, as a learner writes it: "*", "sum", "relu"
    rules: tuple[str, ...]  # one local-derivative rule per input, as text
    elementwise: bool  # does each output element depend only on the same element of each input?

    def name(self) -> str:
        """The node's name, as PyTorch prints it: "MulBackward0"."""
        ...

    @property
    def edges(self) -> tuple[GraphNode | None, ...]:
        """For each input of the forward op: the node its gradient goes to, or None."""
        ...

    @property
    def constants(self) -> tuple:
        """For each input: None where it has an edge, else the value the op used."""
        ...

    @property
    def label(self) -> str:
        """The op with the plain numbers it used, as drawn: "* 0.9", "** 2"."""
        ...

    @property
    def saved_values(self) -> tuple[SavedValue, ...]:
        """What the node saved for backward, and where each value came from."""
        ...

    @property
    def output(self) -> np.ndarray | None:
        """The forward result's value, where known; None once freed."""
        ...

    @property
    def output_name(self) -> str | None:
        """The name given to the forward result, if any."""
        ...

    @property
    def variable(self) -> object | None:
        """For the node that accumulates into a leaf's `.grad`: that leaf. Else None."""
        ...

    @property
    def module_calls(self) -> tuple:
        """(module, the nodes its inputs came from) for each nn module whose
        output this node made."""
        ...


class GraphTensors(Protocol):
    """How the drawings read one library's tensors."""

    def is_tensor(self, value: object) -> bool: ...

    def node(self, tensor) -> GraphNode | None:
        """Where the tensor's gradient goes: its grad_fn, or for a leaf that
        requires grad its accumulating node; None if it needs no gradient."""
        ...

    def grad_fn(self, tensor) -> GraphNode | None: ...

    def requires_grad(self, tensor) -> bool: ...

    def value(self, tensor) -> np.ndarray:
        """The tensor's values (the same array each time, not a copy)."""
        ...

    def grad(self, tensor) -> np.ndarray | None:
        """Its `.grad` values, where it keeps one; None otherwise (no warning)."""
        ...

    def name(self, tensor) -> str | None: ...


class AutogradvizTensors:
    """`GraphTensors` for autogradviz's own tensors."""

    def is_tensor(self, value: object) -> bool:
        return isinstance(value, Tensor)

    def node(self, tensor: Tensor):
        return grad_node(tensor) if tensor._requires_grad else None

    def grad_fn(self, tensor: Tensor):
        return tensor._grad_fn

    def requires_grad(self, tensor: Tensor) -> bool:
        return tensor._requires_grad

    def value(self, tensor: Tensor) -> np.ndarray:
        return tensor._data

    def grad(self, tensor: Tensor) -> np.ndarray | None:
        return None if tensor._grad is None else tensor._grad._data

    def name(self, tensor: Tensor) -> str | None:
        return tensor.name


AUTOGRADVIZ = AutogradvizTensors()

# The readers the drawings know, tried in order. An adapter for another
# library's graph appends its own (autogradviz itself never imports that library).
READERS: list[GraphTensors] = [AUTOGRADVIZ]


# The adapter for another library, by the top-level module its tensor types come
# from: loaded the first time one of its tensors is drawn (it appends its reader).
ADAPTERS: dict[str, str] = {"torch": "autogradviz.torch"}


def reader_for(value) -> GraphTensors | None:
    """The reader for a tensor of any known library, or None."""
    for reader in READERS:
        if reader.is_tensor(value):
            return reader
    adapter = ADAPTERS.get(type(value).__module__.partition(".")[0])
    if adapter is not None and adapter not in sys.modules:
        importlib.import_module(adapter)  # by name: core imports nothing above it
        return reader_for(value)
    return None
