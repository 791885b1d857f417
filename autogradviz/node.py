"""Backward nodes: the graph that `backward()` walks.

Every differentiable op that records creates one `Node`, PyTorch's "grad_fn".
A node knows:

- `next_functions`: the nodes that produced its inputs (Paddle calls them the
  "grad pending ops"). A leaf that requires grad is reached through its
  `AccumulateGrad` node; an input that needs no grad has no edge (None).
- what it saved from the forward pass, to compute its local derivative;
- `vjp(m, g, *saved)`: given the gradient `g` of its output, return the
  gradient for each input ("upstream x local").

Nodes never hold their output tensor strongly, so tensor -> grad_fn -> ... never
loops back, and a dropped graph is freed by reference counting alone.
"""

from __future__ import annotations

import weakref

# Marks "this node's own output" among the saved values: its array is kept,
# since holding the output tensor itself would form a cycle.
OUTPUT = object()


class Node:
    __slots__ = (
        "_next",  # tuple of Node | None, one per input
        "_saved",  # the saved values (arrays, numbers); None once freed
        "_checks",  # None, or per saved tensor, flat: (position, source, counter, version)
        "_epoch",  # the in-place op count when the values were saved (see tensor._inplace_epoch)
        "_inputs",  # (shape, dtype) of each input, kept only when some differ from the output's
        "args",  # the op's non-tensor parameters (dim, keepdim, ...)
        "_output",  # the output's array: drawings show it (the node never holds the tensor)
        "_consts",  # None, or per input: its value where the input needs no grad (no edge)
        "_meta",  # None, or a dict: "hooks", "retained" (weakref to the output), "name"
        "__weakref__",
    )

    # one rule per input, written as a formula; the stepper and drawings show them
    rules: tuple[str, ...] = ()
    # the forward op this node reverses, as a learner would write it
    op: str = ""
    # True when each output element depends only on the same element of each
    # input: then "upstream × local derivative" is an elementwise product, and
    # the stepper can show the local derivative's values
    elementwise: bool = False
    # True for ops whose gradient comes back in the broadcast (output) shape;
    # the engine then sums it down to each input's shape
    broadcasts: bool = False

    def vjp(self, m, g, *saved):
        """Return one gradient per input: upstream `g` times the local derivative.

        `m` is the math used: numpy functions in a plain backward, autogradviz
        ops when create_graph=True, so that the backward pass is itself recorded.
        """
        raise NotImplementedError

    def _extra(self, key: str):
        return None if self._meta is None else self._meta.get(key)

    def _set_extra(self, key: str, value) -> None:
        if self._meta is None:
            self._meta = {}
        self._meta[key] = value

    def needs(self, i: int) -> bool:
        """Does input i want a gradient? Lets costly formulas skip unused work."""
        return self._next[i] is not None

    def name(self) -> str:
        return type(self).__name__

    @property
    def next_functions(self) -> tuple[tuple[Node | None, int], ...]:
        return tuple((fn, 0) for fn in self._next)

    @property
    def saved_tensors(self) -> tuple:
        """The values saved for backward, as tensors (the drawings' show_saved)."""
        return tuple(x for x in self._unpack(True) if isinstance(x, Tensor))

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    # -- saved values ---------------------------------------------------------
    #
    # A node keeps the arrays it needs, not the tensors: an intermediate tensor
    # object can then die as soon as the learner drops it, and the garbage
    # collector has fewer objects to walk. When create_graph needs tensors
    # back, they are rebuilt from the edges: input i was made by `_next[i]`.

    def _unpack(self, as_tensors: bool) -> tuple:
        """The saved values, after checking none was modified in place since."""
        saved = self._saved
        if saved is None:
            raise RuntimeError(
                "Trying to backward through the graph a second time (or directly access saved "
                "tensors after they have already been freed). Saved intermediate values of the "
                "graph are freed when you call .backward() or autograd.grad(). Specify "
                "retain_graph=True if you need to backward through the graph a second time or "
                "if you need to access saved tensors after calling backward."
            )
        checks = self._checks
        if checks is None:
            return saved
        for k in range(0, len(checks), 4):
            position, box, expected = checks[k], checks[k + 2], checks[k + 3]
            if len(box) != expected:
                self._version_error(len(box), expected, saved[position].shape)
        if not as_tensors:
            return saved
        values = list(saved)
        for k in range(0, len(checks), 4):
            position, source = checks[k], checks[k + 1]
            if source is OUTPUT:
                values[position] = _make(saved[position], self)
                continue
            edge = None if source is None else self._next[source]
            if edge is None:
                values[position] = _make(saved[position])
            elif type(edge) is AccumulateGrad:
                values[position] = edge.variable
            else:
                values[position] = _make(saved[position], edge)
        return tuple(values)

    def _saved_sources(self) -> tuple:
        """Where each saved value came from: an input's index, OUTPUT, or None
        for a plain value (a number, an index array)."""
        sources = [None] * len(self._saved)
        checks = self._checks or ()
        for k in range(0, len(checks), 4):
            sources[checks[k]] = checks[k + 1]
        return tuple(sources)

    def _version_error(self, found: int, expected: int, shape: tuple) -> None:
        raise RuntimeError(
            "one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: the tensor of shape {tuple(shape)} saved by {self.name()} "
            f"is at version {found}; expected version {expected} instead. Hint: an in-place "
            "op (add_, mul_, x[i] = v, or one on a detach()-ed copy, which shares the data "
            "and the version counter) changed a value that backward still needs; use an "
            "out-of-place op or .clone() first."
        )

    def _free(self) -> None:
        """After a backward without retain_graph: drop the arrays kept for it, as
        PyTorch does (a drawing then shows the values as freed)."""
        self._output = None
        if self._saved:
            self._saved = None
            self._checks = None

    # -- building the graph -----------------------------------------------------

    @classmethod
    def record(cls, data, inputs, saved=(), args=None):
        """Wrap `data` as the op's output and, if any input needs grad, link it
        into the graph through a new node of this class.

        `saved` lists what the backward formula needs: input tensors, plain
        values, or OUTPUT for the op's own result.
        """
        # every op passes through here, so it is written for speed: one loop
        # over the inputs, and nothing built that the common case does not need
        if type(data) is not ndarray:  # numpy returns scalars from 0-d ops
            data = asarray(data)
        out = _new(Tensor)
        out._data = data
        out._grad = out._version_box = out._meta = None
        dtype = data.dtype
        # (float32 and float64 are told by identity first: no attribute lookup then)
        if not _grad_state.enabled or (dtype is not _F32 and dtype is not _F64 and dtype.kind != "f"):
            # not recording, or an integer/bool result: those carry no gradient
            out._grad_fn = None
            out._requires_grad = False
            return out
        # the edges, the constants, and whether the engine will need the inputs'
        # shapes and dtypes (to undo broadcasting, or to cast a gradient back).
        # Edges and constants grow one by one: tuples for the usual one or two
        # inputs (cheaper than a list made into a tuple), a list for cat/stack of
        # many (a tuple grown n times would cost n²)
        edges = () if len(inputs) <= 4 else []
        consts = None
        differs = False
        shape = data.shape if cls.broadcasts else None
        for t in inputs:
            if type(t) is Tensor:
                if t._meta is not None:
                    _refresh_if_view(t)
                if t._requires_grad:
                    edges += (t._grad_fn or t._accumulator(),)
                    a = t._data
                    if a.dtype is not dtype or (shape is not None and a.shape != shape):
                        differs = True
                    if consts is not None:
                        consts += (None,)
                    continue
            # a constant: no edge; its value is kept for drawings only
            if consts is None:
                consts = edges[:0]  # empty, a tuple or a list like edges
                consts += (None,) * len(edges)
            consts += (t._data if type(t) is Tensor else t,)
            edges += (None,)
        if consts is not None and not any(edges):  # nothing here needs a gradient
            out._grad_fn = None
            out._requires_grad = False
            return out
        node = _new(cls)
        node._next = tuple(edges)  # no copy when it is a tuple already
        node.args = args
        node._output = data
        node._meta = None
        node._consts = None if consts is None else tuple(consts)
        node._inputs = _shapes_and_dtypes(inputs) if differs else None
        if saved:
            _save(node, saved, inputs, out)
        else:
            node._saved = ()
            node._checks = None
        out._grad_fn = node
        out._requires_grad = True
        return out


def _refresh_if_view(t) -> None:
    """A view whose base was changed in place after the view was made must now
    send its gradient through the base's new history (see ops/inplace.py)."""
    if "base" in t._meta:
        from .ops.inplace import refresh_view

        refresh_view(t)


def _shapes_and_dtypes(inputs) -> tuple:
    return tuple([(t._data.shape, t._data.dtype) if type(t) is Tensor else None for t in inputs])


class AccumulateGrad(Node):
    """The last stop on the way to a leaf: adds the arriving gradient into `.grad`."""

    __slots__ = ("variable",)
    op = "accumulate into .grad"
    rules = ("leaf.grad += g",)

    def __init__(self, variable):
        self.variable = variable
        self._next = ()
        self._saved = ()
        self._checks = None
        self._inputs = None
        self.args = None
        self._output = None  # the leaf itself is `variable`
        self._consts = None
        self._meta = None

    def vjp(self, m, g):
        return ()


def _save(node: Node, saved, inputs, out) -> None:
    """Keep the arrays the formula needs, and watch each one's version counter:
    an in-place change between now and backward must raise, not go unnoticed."""
    # tuples grown one item at a time: ops save one or two values, and for so
    # few, that is cheaper than a list turned into a tuple
    values = ()
    checks = ()  # per saved tensor: its position, its source, its counter, its version now
    for item in saved:
        if type(item) is Tensor:
            box = item._version_box
            if box is None:
                box = item._version_box = bytearray()
            # which input it is; None for a tensor that is not an input (where's
            # condition): it needs no grad, but its version is watched all the same
            source = 0 if item is inputs[0] else _index_of(item, inputs)
            checks += (len(values), source, box, len(box))
            values += (item._data,)
        elif item is OUTPUT:
            box = out._version_box = bytearray()
            checks += (len(values), OUTPUT, box, 0)
            values += (out._data,)
        else:
            values += (item,)
    node._saved = values
    node._epoch = _inplace_epoch[0]
    node._checks = checks or None


def _index_of(item, inputs) -> int | None:
    for i, t in enumerate(inputs):
        if t is item:
            return i
    return None


def _retain(node: Node, tensor) -> None:
    node._set_extra("retained", weakref.ref(tensor))


from numpy import asarray, ndarray  # noqa: E402
from numpy import dtype as _numpy_dtype  # noqa: E402

from .grad_mode import _state as _grad_state  # noqa: E402
from .tensor import Tensor, _inplace_epoch, _make  # noqa: E402

_new = object.__new__
_F32, _F64 = _numpy_dtype("float32"), _numpy_dtype("float64")
