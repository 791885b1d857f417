"""record(): how an op's result joins the graph. Every differentiable op ends here.

    c = record(MulBackward0, a_data * b_data, inputs=(a, b), saved=(a, b))

1. The result becomes a new tensor.
2. If grad mode is off, or the result is not a float, that is all: integers
   and bools carry no gradient.
3. Each input gets an edge: the node its gradient will go to (its grad_fn,
   or a leaf's AccumulateGrad), or None if it needs no gradient.
4. If no input needs a gradient, that is all.
5. Otherwise a node of the op's class is made: it keeps the edges, the
   values of the inputs that are constants (for drawings), the shape and
   dtype of each input where the engine will need them, and what `saved`
   lists, with the version of each saved tensor.
6. The result's grad_fn is that node.

This is micrograd's `Value(data, (self, other), '*')` plus what PyTorch adds:
saved values checked for in-place changes, broadcasting undone, dtypes kept.
"""

from __future__ import annotations

import numpy as np

from . import views
from .grad_mode import _state as _grad_mode
from .graph import OUTPUT, Node, grad_node
from .tensor import Tensor, _make


def record(node_class: type[Node], data, inputs, saved=(), args=None) -> Tensor:
    """Wrap `data`, the result of an op on `inputs`, as a tensor, and, if any
    input needs a gradient, link it into the graph with a new `node_class`.

    `saved` lists what the backward formula needs: input tensors, plain
    values (an index, a mask), or OUTPUT for the op's own result. `args` are
    the op's parameters (a dim, an exponent), kept on the node as they are.
    """
    out = _make(np.asarray(data))  # numpy gives scalars, not arrays, for 0-d results
    if not _grad_mode.enabled or out._data.dtype.kind != "f":
        return out
    for t in inputs:
        if type(t) is Tensor:
            views.refresh_if_stale(t)
    edges = tuple(_edge(t) for t in inputs)
    if not any(edges):
        return out
    node = node_class(
        edges, _constants(inputs, edges), _input_facts(node_class, inputs, out._data), out._data, args
    )
    node._saved, node._checks = _saved_and_checks(saved, inputs, out)
    out._grad_fn = node
    out._requires_grad = True
    return out


def _edge(t) -> Node | None:
    """Where input t's gradient goes; None for a number or a tensor that needs none."""
    if type(t) is Tensor and t._requires_grad:
        return grad_node(t)
    return None


def _constants(inputs, edges: tuple) -> tuple | None:
    """The value of each input without an edge (drawings show it); None when
    every input has one, as for most ops."""
    if all(edges):
        return None
    return tuple(None if edge is not None else _value(t) for t, edge in zip(inputs, edges))


def _value(x):
    return x._data if type(x) is Tensor else x


def _input_facts(node_class: type[Node], inputs, out: np.ndarray) -> tuple | None:
    """(shape, dtype) of each input, kept only when the engine will need them:
    when an input's dtype differs from the result's (its gradient is cast
    back), or when a broadcasting op's input has another shape (its gradient
    is summed back down). None otherwise, as for most ops."""
    facts = tuple((t._data.shape, t._data.dtype) if type(t) is Tensor else None for t in inputs)
    for fact in facts:
        if fact is None:
            continue
        shape, dtype = fact
        if dtype != out.dtype or (node_class.broadcasts and shape != out.shape):
            return facts
    return None


def _saved_and_checks(saved, inputs, out: Tensor) -> tuple[tuple, tuple]:
    """The values the formula needs, and, for each saved tensor, a check:
    (its position, where it came from, its version counter, its version now).
    An in-place change between now and backward moves the counter, and
    backward then raises instead of computing with the new data."""
    values, checks = [], []
    for item in saved:
        if type(item) is Tensor:
            # which input it is; None for a tensor that is not an input (where's
            # condition): it gets no gradient, but its version is checked all the same
            source = next((i for i, t in enumerate(inputs) if t is item), None)
            counter = item.version_counter()
            checks.append((len(values), source, counter, counter.value))
            values.append(item._data)
        elif item is OUTPUT:
            counter = out.version_counter()
            checks.append((len(values), OUTPUT, counter, counter.value))
            values.append(out._data)
        else:
            values.append(item)
    return tuple(values), tuple(checks)
