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
7. Last, a result hook, if a layer installed one (set_result_hook), may
   adjust the result before it is returned.

This is micrograd's `Value(data, (self, other), '*')` plus what PyTorch adds:
saved values checked for in-place changes, broadcasting undone, dtypes kept.

Layers above attach to it through three extension points, each saying what
attaches: `set_observer` (who is told about every op), `set_saver` (who packs
saved values) and `set_result_hook` (what becomes of every result).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from . import views
from .grad_mode import INFERENCE_SAVED_ERROR
from .grad_mode import _state as _grad_mode
from .graph import OUTPUT, Node, accumulator_of
from .tensor import Tensor, _make

# Extension point, who is told about every op that runs: None, or `callback(node_class)`
# (autograd/ attaches one to count and time the ops). When none is attached, the
# `is not None` test at the top of record() is all it costs.
_observer = None


def set_observer(callback) -> object:
    """Call `callback(node_class)` at every record() from now on (None: stop).
    Returns the previous callback, for the caller to restore."""
    global _observer
    previous, _observer = _observer, callback
    return previous


# Extension point, who packs saved values: None, or `saver(node, saved, out)`, called
# once a node has kept what `saved` lists. It may swap the saved arrays for stand-ins,
# and sets the node's "unpack" extra to give them back (graph.py, "saved values").
# Attached by autograd/graph.py while one of its `with` blocks is active.
_saver: Callable[[Node, tuple, Tensor], None] | None = None


def set_saver(saver: Callable[[Node, tuple, Tensor], None] | None) -> object:
    """Call `saver(node, saved, out)` after each node keeps its saved values, from
    now on (None: stop). Returns the previous saver, for the caller to restore."""
    global _saver
    previous, _saver = _saver, saver
    return previous


# Extension point, what becomes of every result: None, or `hook(out, inputs)`
# that returns the tensor record() gives back (see set_result_hook). When none is
# installed, the `is None` test at the exit of record() is all it costs.
_result_hook = None


def set_result_hook(hook) -> object:
    """From now on, pass every result through `hook(out, inputs)` before record()
    returns it (None: stop). The hook may change the result in place (give it a
    subclass of Tensor, keep its grad) and returns it. This is how a layer with
    other rules for its own tensors makes their results follow them, without the
    core knowing those rules. Returns the previous hook, for the caller to restore."""
    global _result_hook
    previous, _result_hook = _result_hook, hook
    return previous


def record(node_class: type[Node], data, inputs, saved=(), args=None) -> Tensor:
    """Wrap `data`, the result of an op on `inputs`, as a tensor, and, if any
    input needs a gradient, link it into the graph with a new `node_class`.

    `saved` lists what the backward formula needs: input tensors, plain
    values (an index, a mask), or OUTPUT for the op's own result. `args` are
    the op's parameters (a dim, an exponent), kept on the node as they are.
    """
    if _observer is not None:  # someone is counting the ops (see set_observer)
        _observer(node_class)
    out = _make(data)
    # inference mode records nothing, even with enable_grad() inside it (as in PyTorch)
    if _grad_mode.inference:
        out._writable_extras().inference = True  # results made in inference mode are inference tensors
    elif _grad_mode.enabled and out._data.dtype.kind == "f":  # integers and bools carry no gradient
        _link(out, node_class, inputs, saved, args)
    return out if _result_hook is None else _result_hook(out, inputs)


def _link(out: Tensor, node_class: type[Node], inputs, saved, args) -> None:
    """Steps 3 to 6 of the module's docstring: give `out` a node of `node_class`
    if any input needs a gradient."""
    result = out._data
    edges = []  # per input: the node its gradient goes to, or None
    constants = []  # per input: its value if it has no edge (drawings show it), else None
    keep_facts = False  # will the engine need the inputs' shapes and dtypes?
    for t in inputs:
        edge = _edge(t)
        edges.append(edge)
        if not isinstance(t, Tensor):  # a plain number
            constants.append(t)
            continue
        constants.append(None if edge is not None else t._data)
        if _gradient_needs_fixing(node_class, t._data, result):
            keep_facts = True
    if not any(edges):
        return  # no input needs a gradient: the result is a constant
    node = node_class(
        tuple(edges),
        tuple(constants) if None in edges else None,  # None: no constants, as for most ops
        _shapes_and_dtypes(inputs) if keep_facts else None,
        result,
        args,
    )
    out._grad_fn = node  # first: a saver (below) sees the output with its grad_fn
    out._requires_grad = True
    if saved:
        node._saved, node._checks = _saved_and_checks(saved, inputs, out)
        if _saver is not None:  # something packs saved values (see set_saver)
            _saver(node, saved, out)


def _edge(t) -> Node | None:
    """Where input t's gradient goes; None for a number or a tensor that needs none."""
    if not isinstance(t, Tensor):
        return None
    if t._extras is not None:  # only a tensor with extras can be a view, and so stale
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
    return tuple((t._data.shape, t._data.dtype) if isinstance(t, Tensor) else None for t in inputs)


def _saved_and_checks(saved, inputs, out: Tensor) -> tuple[tuple, tuple]:
    """The values the formula needs, and, for each saved tensor, a check:
    (its position, where it came from, its version counter, its version now).
    An in-place change between now and backward moves the counter, and
    backward then raises instead of computing with the new data."""
    values, checks = [], []
    for item in saved:
        if isinstance(item, Tensor):
            if item._extras is not None and item._extras.inference:
                raise RuntimeError(INFERENCE_SAVED_ERROR)
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
