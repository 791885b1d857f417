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
from .graph import OUTPUT, Node, accumulator_of
from .tensor import Tensor, _make


def record(node_class: type[Node], data, inputs, saved=(), args=None) -> Tensor:
    """Wrap `data`, the result of an op on `inputs`, as a tensor, and, if any
    input needs a gradient, link it into the graph with a new `node_class`.

    `saved` lists what the backward formula needs: input tensors, plain
    values (an index, a mask), or OUTPUT for the op's own result. `args` are
    the op's parameters (a dim, an exponent), kept on the node as they are.
    """
    out = _make(data)
    result = out._data
    if not _grad_mode.enabled or result.dtype.kind != "f":
        return out
    edges = []  # per input: the node its gradient goes to, or None
    constants = []  # per input: its value if it has no edge (drawings show it), else None
    keep_facts = False  # will the engine need the inputs' shapes and dtypes?
    for t in inputs:
        edge = _edge(t)
        edges.append(edge)
        if type(t) is not Tensor:  # a plain number
            constants.append(t)
            continue
        constants.append(None if edge is not None else t._data)
        if _gradient_needs_fixing(node_class, t._data, result):
            keep_facts = True
    if not any(edges):
        return out
    node = node_class(
        tuple(edges),
        tuple(constants) if None in edges else None,  # None: no constants, as for most ops
        _shapes_and_dtypes(inputs) if keep_facts else None,
        result,
        args,
    )
    if saved:
        node._saved, node._checks = _saved_and_checks(saved, inputs, out)
    out._grad_fn = node
    out._requires_grad = True
    return out


def _edge(t) -> Node | None:
    """Where input t's gradient goes; None for a number or a tensor that needs none."""
    if type(t) is not Tensor:
        return None
    if t._meta is not None:  # only a tensor with extras can be a view, and so stale
        views.refresh_if_stale(t)
    if not t._requires_grad:
        return None
    return t._grad_fn or accumulator_of(t)  # the node that made t; for a leaf, its AccumulateGrad


def _gradient_needs_fixing(node_class: type[Node], data: np.ndarray, result: np.ndarray) -> bool:
    """Will this input's gradient need the engine's help? It is cast back when
    the input's dtype differs from the result's, and summed back down when a
    broadcasting op gave the result another shape. (numpy's dtypes are one
    object per dtype, so `is not` is the quick test; a false alarm only keeps
    facts that turn out not to be needed.)"""
    return data.dtype is not result.dtype or (node_class.broadcasts and data.shape != result.shape)


def _shapes_and_dtypes(inputs) -> tuple:
    return tuple((t._data.shape, t._data.dtype) if type(t) is Tensor else None for t in inputs)


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
            source = _position_of(item, inputs)
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


def _position_of(item, inputs) -> int | None:
    for i, t in enumerate(inputs):
        if t is item:
            return i
    return None
