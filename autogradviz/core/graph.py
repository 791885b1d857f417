"""Backward nodes: the graph that `backward()` walks.

Every differentiable op that records creates one `Node`, PyTorch's "grad_fn"
(how it is made: `record.py`). A node knows:

- its edges: for each input of the forward op, the node that made that input.
  A leaf that requires grad is reached through its `AccumulateGrad` node; an
  input that needs no grad has no edge (None);
- what it saved from the forward pass, to compute its local derivative;
- `vjp(xp, g, *saved)`: given the gradient `g` of its output, the gradient for
  each input ("upstream × local").

Nodes never hold their output tensor, so tensor -> grad_fn -> ... never loops
back, and a dropped graph is freed by reference counting alone.

This file holds only what backward needs. What drawings and the stepper read
of a node (its op and rules as text, `next_functions`, the constants it used,
...) is the mixin `GraphAPI` (graph_api.py). Attached from outside: the
`unpack` extra (see "saved values" below) and `Node.__getattr__`, PyTorch's
names for the saved values, `y.grad_fn._saved_self` (autograd/saved_names.py).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .graph_api import GraphAPI
from .tensor import Tensor, _make


class _Output:
    """Marks "this node's own output" among the values an op saves: the node
    keeps the output's array, since holding the output tensor would form a cycle."""

    def __repr__(self) -> str:
        return "OUTPUT"


OUTPUT = _Output()


@dataclass(slots=True, eq=False)
class NodeExtras:
    """What few nodes need, made on first need (`Node._ensure_extras`): every other
    node keeps None, and a hot path pays one `is not None` test. "Its output" is
    the tensor the node made."""

    hooks: list | None = None  # register_hook() on its output: each hook(grad) may replace grad
    retained: weakref.ref | None = None  # its output, if it retain_grad(); held weakly
    name: str | None = None  # its output's name (`t.name = "h"`), for drawings
    modules: list | None = None  # (module, its inputs' nodes) per nn module call that returned it
    freed: tuple | None = None  # (shape, dtype) of its output, once free() dropped the array
    unpack: Callable[[Node, tuple], tuple] | None = None  # set by a layer above that packed `_saved`


class Node(GraphAPI):
    __slots__ = (
        "_edges",  # tuple: for each input, the node its gradient goes to, or None
        "_constants",  # None, or for each input: its value where the input has no edge
        "_input_facts",  # None, or for each input: (shape, dtype), when some differ from the output's
        "_saved",  # tuple of the values backward needs; None once backward freed them
        "_checks",  # tuple of (position, source, counter, version), one per saved tensor
        "_output",  # the output's array, for drawings; None once freed
        "args",  # the op's non-tensor parameters (dim, keepdim, ...)
        "_extras",  # None, or the NodeExtras of the few nodes that need them
        "__weakref__",
    )

    # True for ops whose gradient comes back in the broadcast (output) shape;
    # the engine then sums it down to each input's shape
    broadcasts: bool = False

    def __init__(self, edges: tuple, constants: tuple | None, input_facts: tuple | None, output, args=None):
        self._edges = edges
        self._constants = constants
        self._input_facts = input_facts
        self._saved = ()
        self._checks = ()
        self._output = output
        self.args = args
        self._extras = None

    def vjp(self, xp, g, *saved):
        """Return one gradient per input: upstream `g` times the local derivative.

        `xp` is the array namespace to compute with: `numpy_math` (numpy on
        arrays) in a plain backward, `tensor_math` (autogradviz's own ops) when
        create_graph=True, so that the backward pass is itself recorded.
        """
        raise NotImplementedError

    @property
    def edges(self) -> tuple[Node | None, ...]:
        """For each input of the forward op: the node its gradient goes to, or None."""
        return self._edges

    def needs(self, i: int) -> bool:
        """Does input i want a gradient? Lets costly formulas skip unused work."""
        return self._edges[i] is not None

    def name(self) -> str:
        return type(self).__name__

    def _ensure_extras(self) -> NodeExtras:
        """The node's extras, made on first need."""
        if self._extras is None:
            self._extras = NodeExtras()
        return self._extras

    # -- saved values ---------------------------------------------------------
    #
    # A node keeps the arrays it needs, not the tensors: an intermediate tensor
    # can then die as soon as the learner drops it. When create_graph needs
    # tensors back, they are rebuilt from the edges: input i was made by edge i.
    #
    # Extension point, who packs saved values (record.set_saver): a layer above
    # may keep stand-ins in place of the arrays (each keeps its array's `shape`
    # for the in-place error), and sets the `unpack` extra that gives them back.

    def unpack_saved(self, as_tensors: bool = False) -> tuple:
        """The saved values, after checking that none was freed by an earlier
        backward, or changed in place since it was saved."""
        __tracebackhide__ = True  # IPython: a learner's traceback ends at their own line
        if self._saved is None:
            raise RuntimeError(
                "Trying to backward through the graph a second time (or directly access saved "
                "tensors after they have already been freed). Saved intermediate values of the "
                "graph are freed when you call .backward() or autograd.grad(). Specify "
                "retain_graph=True if you need to backward through the graph a second time or "
                "if you need to access saved tensors after calling backward."
            )
        for position, _, counter, version in self._checks:
            if counter.value != version:
                self._version_error(counter.value, version, self._saved[position].shape)
        saved = self._saved
        if self._extras is not None and self._extras.unpack is not None:  # a layer above packed them
            saved = self._extras.unpack(self, saved)
        if not as_tensors:
            return saved
        values = list(saved)
        for position, source, _, _ in self._checks:
            values[position] = self._as_tensor(values[position], source)
        return tuple(values)

    def _as_tensor(self, array: np.ndarray, source) -> Tensor:
        """A saved array as a tensor with its history: the output's is this node;
        input i's is edge i (a leaf is its AccumulateGrad's own tensor)."""
        if source is OUTPUT:
            return _make(array, self)
        edge = None if source is None else self._edges[source]
        if edge is None:
            return _make(array)
        if edge.variable is not None:
            return edge.variable
        return _make(array, edge)

    def _version_error(self, found: int, expected: int, shape: tuple) -> None:
        raise RuntimeError(
            "one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: the tensor of shape {tuple(shape)} saved by {self.name()} "
            f"is at version {found}; expected version {expected} instead. Hint: an in-place "
            "op (add_, mul_, x[i] = v, or one on a detach()-ed copy, which shares the data "
            "and the version counter) changed a value that backward still needs; use an "
            "out-of-place op or .clone() first."
        )

    def free(self) -> None:
        """After a backward without retain_graph: drop the arrays kept for it, as
        PyTorch does (a drawing then shows the values as freed, with their shape)."""
        if self._output is not None:
            self._ensure_extras().freed = (self._output.shape, self._output.dtype)
        self._output = None
        if self._saved:
            self._saved = None  # the checks stay: they say what was saved (`_saved_self`)

    def retain_output(self, tensor: Tensor) -> None:
        """retain_grad(): backward fills `tensor.grad` as it passes this node
        (held weakly: the node must not keep its output alive)."""
        self._ensure_extras().retained = weakref.ref(tensor)


class AccumulateGrad(Node):
    """The last stop on the way to a leaf: adds the arriving gradient into `.grad`."""

    __slots__ = ("_variable",)
    op = "accumulate into .grad"
    rules = ("leaf.grad += g",)

    def __init__(self, variable: Tensor):
        super().__init__(edges=(), constants=None, input_facts=None, output=None)
        self._variable = variable

    @property
    def variable(self) -> Tensor:
        return self._variable

    def vjp(self, xp, g):
        return ()


def accumulator_of(leaf: Tensor) -> AccumulateGrad:
    """The leaf's AccumulateGrad node: one per leaf, kept alive by the graphs
    that use it, and only weakly referenced from the leaf."""
    ref = None if leaf._extras is None else leaf._extras.accumulator
    node = ref() if ref is not None else None
    if node is None:
        node = AccumulateGrad(leaf)
        leaf._ensure_extras().accumulator = weakref.ref(node)
    return node


def grad_node(t: Tensor) -> Node:
    """Where a gradient for `t` goes: the node that made it, or for a leaf its
    AccumulateGrad. (The grad_fn property brings a stale view up to date.)"""
    return t.grad_fn or accumulator_of(t)
