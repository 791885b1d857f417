"""The graph API: everything the drawings and the stepper read of a graph.

`viz/` and `widgets/` never touch a core object's private state, nor test a
node's class name. They read a graph through two small protocols:

- `GraphNode`: one backward node. autogradviz's own `Node` implements it
  (see graph_api.py).
- `GraphTensors`: how to read one library's tensors: the node a tensor's
  gradient goes to, its value, its `.grad`, its name. `AUTOGRADVIZ` reads
  autogradviz tensors.

An adapter over another library's graph (a real PyTorch `grad_fn` graph)
implements the same two, and the same drawings and stepper then show it.

The stepper also asks a reader to record one backward pass as `Step`s (each
with the `Sent` gradients of one node), and `Namer` names a graph's tensors
for every reader: both are defined here, so an adapter needs nothing from
viz/ or widgets/.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np

from .graph import grad_node
from .graph_api import SavedValue
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

    def record_backward(
        self, root, gradient=None, names: Mapping | None = None
    ) -> tuple[list[Step], np.ndarray]:
        """One backward pass from `root`, recorded for the stepper without writing
        any `.grad`: a Step per node in the order it ran, and the seed gradient."""
        ...

    def backward(self, root, gradient=None) -> None:
        """The real backward, once, keeping the graph (the stepper's apply())."""
        ...


@dataclass
class Sent:
    """What one step sent to one input."""

    input: int  # which input of the forward op
    target: GraphNode  # the node that receives it
    target_name: str  # a label for it: the tensor's name, or the node's
    product: np.ndarray  # upstream × local, in the output's shape (before any reduction)
    local: np.ndarray | None  # the local derivative's values, for elementwise ops
    reduced_axes: tuple | None = None  # set when broadcasting had to be undone
    shape_before: tuple | None = None
    value: np.ndarray | None = None  # what arrived at the target: product, reduced
    before: np.ndarray | None = None  # what the target already held (paths meeting)
    after: np.ndarray | None = None  # before + value


@dataclass
class Step:
    """One node of a recorded backward pass."""

    index: int
    node: GraphNode
    upstream: np.ndarray
    sent: list[Sent] = field(default_factory=list)
    leaf: object = None  # for AccumulateGrad: the leaf written
    leaf_before: np.ndarray | None = None
    leaf_after: np.ndarray | None = None
    # the node's rules with the learner's names for its inputs, where known: ∂(c·d)/∂c = d
    named_rules: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return self.node.name()

    @property
    def op(self) -> str:
        return self.node.op

    @property
    def rules(self) -> tuple[str, ...]:
        return self.node.rules

    @property
    def code(self) -> str | None:
        """For a custom Function's node, the source of the user's backward (the
        graph API's optional `backward_code`); None for the library's own nodes."""
        return getattr(self.node, "backward_code", None)


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

    # record_backward() and backward() need the engine, a layer above core: widgets/trace.py
    # attaches them (the stepper's recording of the engine's own walk), as methods.py attaches ops


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


def collect_names(names: Mapping | None, tensors: GraphTensors = AUTOGRADVIZ) -> dict[int, str]:
    """Tensor -> name, from a mapping such as `locals()`. IPython's own
    variables (`_`, `_1`, `Out`, ...) start with "_" and are skipped; a tensor
    with several names keeps the first."""
    found: dict[int, str] = {}
    for key, value in (names or {}).items():
        if tensors.is_tensor(value) and isinstance(key, str) and not key.startswith("_"):
            found.setdefault(id(value), key)
    return found


class Namer:
    """Names for a graph's tensors and nodes: from `names=`, else the
    tensor's own name, else the name given to a node's output."""

    def __init__(self, roots: list, names: Mapping | None, tensors: GraphTensors = AUTOGRADVIZ):
        self.reader = tensors
        self.by_tensor = collect_names(names, tensors)
        # the tensors we can see: roots and named ones; an op's output tensor is
        # found through them (a node never holds its output tensor)
        self.tensors = list(roots) + [v for v in (names or {}).values() if tensors.is_tensor(v)]

    def tensor_of(self, node: GraphNode):
        for t in self.tensors:
            if self.reader.grad_fn(t) is node:
                return t
        return None

    def name(self, tensor, node: GraphNode | None = None) -> str | None:
        if tensor is not None:
            if id(tensor) in self.by_tensor:
                return self.by_tensor[id(tensor)]
            if self.reader.name(tensor):
                return self.reader.name(tensor)
        return node.output_name if node is not None else None
