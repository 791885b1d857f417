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

from . import tensor as _tensor_module

# Marks "this node's own output" inside the saved tuple: the output's array is
# kept instead, since holding the output tensor itself would form a cycle.
OUTPUT = object()


class Node:
    __slots__ = (
        "_next",  # tuple of Node | None, one per input
        "_saved",  # tuple of Tensors / OUTPUT / plain values; None once freed
        "_versions",  # version of each saved tensor when it was saved
        "_shapes",  # input shapes, kept only when some differ from the output's
        "args",  # the op's non-tensor parameters (dim, keepdim, ...)
        "_out",  # (array, version box, version) when the output itself was saved
        "_hooks",  # hooks registered on the output tensor
        "_retained",  # weakref to the output tensor, after retain_grad()
        "__weakref__",
    )

    # one rule per input, written as a formula; the stepper and drawings show them
    rules: tuple[str, ...] = ()
    # the forward op this node reverses, as a learner would write it
    op: str = ""
    # True for ops whose gradient comes back in the broadcast (output) shape;
    # the engine then sums it down to each input's shape
    broadcasts: bool = False

    def vjp(self, m, g, *saved):
        """Return one gradient per input: upstream `g` times the local derivative.

        `m` is the math used: numpy functions in a plain backward, autogradviz
        ops when create_graph=True, so that the backward pass is itself recorded.
        """
        raise NotImplementedError

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
        return tuple(x for x in self._unpack(True) if isinstance(x, _tensor_module.Tensor))

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    # -- saved values ---------------------------------------------------------

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
        Tensor = _tensor_module.Tensor
        values = []
        for item, expected in zip(saved, self._versions):
            if item is OUTPUT:
                array, box, expected = self._out
                self._check_version(box[0], expected, array.shape)
                if as_tensors:
                    # like PyTorch's SavedVariable for an output: a fresh tensor
                    # whose grad_fn is this node, made only when asked
                    values.append(_tensor_module._make(array, self))
                else:
                    values.append(array)
            elif type(item) is Tensor:
                box = item._version_box
                if box is not None and box[0] != expected:
                    self._check_version(box[0], expected, item._data.shape)
                values.append(item if as_tensors else item._data)
            else:
                values.append(item)
        return values

    def _check_version(self, found: int, expected: int, shape: tuple) -> None:
        if found != expected:
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an "
                f"inplace operation: the tensor of shape {tuple(shape)} saved by {self.name()} "
                f"is at version {found}; expected version {expected} instead. Hint: an in-place "
                "op (add_, mul_, x[i] = v, or one on a detach()-ed copy, which shares the data "
                "and the version counter) changed a value that backward still needs; use an "
                "out-of-place op or .clone() first."
            )

    def _free(self) -> None:
        if self._saved:
            self._saved = None
            self._out = None

    # -- building the graph -----------------------------------------------------

    @classmethod
    def record(cls, data, inputs, saved=(), args=None, save_output=False):
        """Wrap `data` as the op's output and, if any input needs grad, link it
        into the graph through a new node of this class."""
        out = _tensor_module._make(data)
        if not _grad_enabled():
            return out
        Tensor = _tensor_module.Tensor
        edges = []
        wanted = False
        for t in inputs:
            if type(t) is Tensor and t._requires_grad:
                edges.append(t._grad_fn or t._accumulator())
                wanted = True
            else:
                edges.append(None)
        if not wanted:
            return out
        node = object.__new__(cls)
        node._next = tuple(edges)
        node.args = args
        node._hooks = None
        node._retained = None
        node._shapes = None
        if cls.broadcasts:
            shapes = tuple(t._data.shape if type(t) is Tensor else () for t in inputs)
            if any(s != data.shape for s in shapes):
                node._shapes = shapes
        node._saved = saved
        node._versions = tuple(
            (t._version_box[0] if t._version_box is not None else 0) if type(t) is Tensor else 0
            for t in saved
        )
        if save_output:
            box = out._version_box = [0]
            node._out = (data, box, 0)
        else:
            node._out = None
        out._grad_fn = node
        out._requires_grad = True
        return out


class AccumulateGrad(Node):
    """The last stop on the way to a leaf: adds the arriving gradient into `.grad`."""

    __slots__ = ("variable",)
    op = "accumulate into .grad"
    rules = ("leaf.grad += g",)

    def __init__(self, variable):
        self.variable = variable
        self._next = ()
        self._saved = ()
        self._versions = ()
        self._shapes = None
        self.args = None
        self._out = None
        self._hooks = None
        self._retained = None

    def vjp(self, m, g):
        return ()


def _grad_enabled() -> bool:
    return _grad_mode_state.enabled


def _retain(node: Node, tensor) -> None:
    node._retained = weakref.ref(tensor)


from .grad_mode import _state as _grad_mode_state  # noqa: E402
