"""Backward nodes: the graph that `backward()` walks.

Every differentiable op that records creates one `Node`, PyTorch's "grad_fn"
(how it is made: `record.py`). A node knows:

- its edges, `next_functions`: for each input of the forward op, the node
  that made that input (also called its "grad pending ops"). A leaf
  that requires grad is reached through its `AccumulateGrad` node; an input
  that needs no grad has no edge (None);
- what it saved from the forward pass, to compute its local derivative;
- `vjp(xp, g, *saved)`: given the gradient `g` of its output, the gradient for
  each input ("upstream × local").

Nodes never hold their output tensor, so tensor -> grad_fn -> ... never loops
back, and a dropped graph is freed by reference counting alone.

The public, read-only properties below (`edges`, `constants`, `saved_values`,
`output`, `output_name`, `label`, `variable`, `module_calls`, with `op`,
`rules` and `name()`) are the graph API of `protocol.py`: what drawings and
the stepper read.

Attached from outside, so that this file holds only what backward needs: a
node's "unpack" extra (see "saved values" below; set by autograd/graph.py,
where the user's functions pack what nodes save), and `Node.__getattr__`,
PyTorch's names for the saved values, `y.grad_fn._saved_self`
(autograd/saved_names.py).
"""

from __future__ import annotations

import weakref
from typing import NamedTuple

import numpy as np

from .printing import short_number
from .tensor import Tensor, _make


class _Output:
    """Marks "this node's own output" among the values an op saves: the node
    keeps the output's array, since holding the output tensor would form a cycle."""

    def __repr__(self) -> str:
        return "OUTPUT"


OUTPUT = _Output()


class SavedValue(NamedTuple):
    """One value a node saved for backward, and where it came from: the index
    of the input it is, "output" for the op's result, or None (an index, a mask)."""

    value: object
    source: int | str | None


class Node:
    __slots__ = (
        "_edges",  # tuple: for each input, the node its gradient goes to, or None
        "_constants",  # None, or for each input: its value where the input has no edge
        "_input_facts",  # None, or for each input: (shape, dtype), when some differ from the output's
        "_saved",  # tuple of the values backward needs; None once backward freed them
        "_checks",  # tuple of (position, source, counter, version), one per saved tensor
        "_output",  # the output's array, for drawings; None once freed
        "args",  # the op's non-tensor parameters (dim, keepdim, ...)
        "_meta",  # None, or a dict of rare extras: "hooks", "retained", "name", "modules", "unpack"
        "__weakref__",
    )

    # one rule per input, written as a formula; the stepper and drawings show them
    rules: tuple[str, ...] = ()
    # the forward op this node reverses, as a learner would write it
    op: str = ""
    # None means PyTorch records a node of the same name for this op; otherwise, text saying
    # what PyTorch records instead (or in which cases), or "— (autogradviz only: why)".
    # docs/formula_sheet.md shows it; a subclass of a class that sets it must set its own
    torch_name: str | None = None
    # True when each output element depends only on the same element of each
    # input: then "upstream × local derivative" is an elementwise product, and
    # the stepper can show the local derivative's values
    elementwise: bool = False
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
        self._meta = None

    def vjp(self, xp, g, *saved):
        """Return one gradient per input: upstream `g` times the local derivative.

        `xp` is the array namespace to compute with: `numpy_math` (numpy on
        arrays) in a plain backward, `tensor_math` (autogradviz's own ops) when
        create_graph=True, so that the backward pass is itself recorded.
        """
        raise NotImplementedError

    def needs(self, i: int) -> bool:
        """Does input i want a gradient? Lets costly formulas skip unused work."""
        return self._edges[i] is not None

    def name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        """`<AddmmBackward0>`: PyTorch's repr without its memory address, the one deliberate
        difference from PyTorch's `<AddmmBackward0 object at 0x7f...>`. An address changes on
        every run, and the lessons' outputs must be the same every time (nbval checks them)."""
        return f"<{type(self).__name__}>"

    # -- the graph API (protocol.GraphNode) ---------------------------------------

    @property
    def next_functions(self) -> tuple[tuple[Node | None, int], ...]:
        """PyTorch's spelling of the edges: (node, 0) pairs."""
        return tuple((node, 0) for node in self._edges)

    @property
    def edges(self) -> tuple[Node | None, ...]:
        """For each input of the forward op: the node its gradient goes to, or None."""
        return self._edges

    @property
    def constants(self) -> tuple:
        """For each input: None where it has an edge, else the value the op used
        (a number, or an array that needs no gradient)."""
        return self._constants if self._constants is not None else (None,) * len(self._edges)

    @property
    def saved_values(self) -> tuple[SavedValue, ...]:
        """What the node saved for backward, with where each value came from;
        empty once backward has freed them."""
        if not self._saved:
            return ()
        sources = [None] * len(self._saved)
        for position, source, _, _ in self._checks:
            sources[position] = "output" if source is OUTPUT else source
        return tuple(SavedValue(value, source) for value, source in zip(self._saved, sources))

    @property
    def saved_tensors(self) -> tuple:
        """The saved tensors, as PyTorch's `ctx.saved_tensors` gives them."""
        return tuple(x for x in self.unpack_saved(as_tensors=True) if isinstance(x, Tensor))

    @property
    def output(self) -> np.ndarray | None:
        """The value the forward op computed; None once backward freed it."""
        return self._output

    @property
    def output_meta(self) -> tuple | None:
        """(shape, dtype) of the forward result, also after backward freed its value."""
        if self._output is not None:
            return self._output.shape, self._output.dtype
        return (self._meta or {}).get("freed")

    @property
    def output_name(self) -> str | None:
        """The name given to the output tensor (`t.name = "h"`), if any."""
        return self._extra("name")

    @property
    def label(self) -> str:
        """The op with the numbers it used, as drawn: `* 0.9`, `** 2`, `2 -`."""
        before, after = self.numbers_used()
        return " ".join([*map(short_number, before), self.op, *map(short_number, after)])

    def numbers_used(self) -> tuple[list, list]:
        """The plain numbers the op used, to show on either side of its symbol.
        A number on the left of an operator is shown on the left (`2 /` for
        2 / x), so that it does not read as x / 2. Ops that keep a number in
        `args` (x ** 2) say so by overriding this."""
        before, after = [], []
        for i, value in enumerate(self.constants):
            if value is not None and not isinstance(value, np.ndarray):
                on_the_left = i == 0 and not self.op[:1].isalpha()
                (before if on_the_left else after).append(value)
        return before, after

    @property
    def variable(self):
        """The leaf tensor, for an AccumulateGrad node; None for every other node."""
        return None

    @property
    def module_calls(self) -> tuple:
        """(module, the nodes its inputs came from), for each nn module call
        whose output this node made: `draw(group="module")` boxes them."""
        return tuple(self._extra("modules") or ())

    # -- saved values ---------------------------------------------------------
    #
    # A node keeps the arrays it needs, not the tensors: an intermediate tensor
    # can then die as soon as the learner drops it. When create_graph needs
    # tensors back, they are rebuilt from the edges: input i was made by edge i.
    #
    # Extension point, who packs saved values: a layer above the kernel may keep
    # something else in place of a saved array (record.set_saver says when). It
    # then sets the node's "unpack" extra, `unpack(node, saved) -> saved`, which
    # gives the arrays back; a stand-in keeps its array's `shape` for the in-place
    # error below. Attached by autograd/graph.py (agv.autograd.graph: the user's
    # own functions pack and unpack what nodes save, as in PyTorch).

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
        if self._meta is not None and "unpack" in self._meta:  # a layer above packed them
            saved = self._meta["unpack"](self, saved)
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

    def output_now_lives_in(self, tensor: Tensor) -> None:
        """An in-place op (relu_, sigmoid_, ...) writes its result into `tensor`.
        What this node saved of its output is now that tensor's data, checked
        against that tensor's version counter: changing it again before
        backward then raises, as in PyTorch, instead of going unnoticed."""
        counter = tensor.version_counter()
        saved, checks = list(self._saved), []
        for position, source, watched, version in self._checks:
            if source is OUTPUT:
                saved[position] = tensor._data
                watched, version = counter, counter.value
            checks.append((position, source, watched, version))
        self._saved, self._checks = tuple(saved), tuple(checks)

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
            self._meta = {**(self._meta or {}), "freed": (self._output.shape, self._output.dtype)}
        self._output = None
        if self._saved:
            self._saved = None  # the checks stay: they say what was saved (`_saved_self`)

    # -- rare extras ---------------------------------------------------------------

    def _extra(self, key: str):
        return None if self._meta is None else self._meta.get(key)

    def _set_extra(self, key: str, value) -> None:
        if self._meta is None:
            self._meta = {}
        self._meta[key] = value

    def _drop_extra(self, key: str) -> None:
        if self._meta is not None:
            self._meta.pop(key, None)

    def retain_output(self, tensor: Tensor) -> None:
        """retain_grad(): backward fills `tensor.grad` as it passes this node
        (held weakly: the node must not keep its output alive)."""
        self._set_extra("retained", weakref.ref(tensor))


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


def node_classes() -> list[type[Node]]:
    """Every subclass of Node defined so far, at any depth (the formula sheet
    lists them; import autogradviz.nn first to include its layers' nodes).
    The nodes of custom Functions (autograd/function.py) are left out: their
    formulas are the user's, not the library's."""
    found, todo = [], [Node]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub not in found and not getattr(sub, "custom_function", False):
                found.append(sub)
                todo.append(sub)
    return found


def accumulator_of(leaf: Tensor) -> AccumulateGrad:
    """The leaf's AccumulateGrad node: one per leaf, kept alive by the graphs
    that use it, and only weakly referenced from the leaf."""
    ref = None if leaf._extras is None else leaf._extras.accumulator
    node = ref() if ref is not None else None
    if node is None:
        node = AccumulateGrad(leaf)
        leaf._writable_extras().accumulator = weakref.ref(node)
    return node


def grad_node(t: Tensor) -> Node:
    """Where a gradient for `t` goes: the node that made it, or for a leaf its
    AccumulateGrad. (The grad_fn property brings a stale view up to date.)"""
    return t.grad_fn or accumulator_of(t)
