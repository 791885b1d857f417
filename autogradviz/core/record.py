"""record(): how an op's result joins the graph. Every differentiable op ends here.

    c = record(MulBackward0, a_data * b_data, inputs=(a, b), saved=(a, b))

It does what micrograd's `Value(data, (self, other), '*')` does, in the same order:

1. wrap: the result becomes a new tensor. If grad mode is off, or the result
   is not a float (integers and bools carry no gradient), that is all.
2. link edges: each input gets an edge, the node its gradient will go to (its
   grad_fn, or a leaf's AccumulateGrad), or None if it needs no gradient. If
   none needs one, that is all. Otherwise a node of the op's class keeps the
   edges (and what PyTorch adds: the inputs' shapes and dtypes, where a
   gradient must be summed or cast back) and becomes the result's grad_fn.
3. keep what backward needs: the values `saved` lists, with the version of
   each saved tensor, so that changing one in place before backward raises.

Layers above attach through three extension points (at the end of this file):
`set_observer` (who is told about every op), `set_saver` (who packs saved
values) and `set_result_hook` (what becomes of every result).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from . import views
from .grad_mode import INFERENCE_SAVED_ERROR
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
    if _observer is not None:
        _observer(node_class)
    out = _make(data)  # 1. wrap
    # inference mode records nothing, even with enable_grad() inside it (as in PyTorch)
    if _grad_mode.inference:
        out._ensure_extras().inference = True  # results made in inference mode are inference tensors
    elif _grad_mode.enabled and out._data.dtype.kind == "f":
        node = _link(node_class, inputs, out._data, args)  # 2. link edges
        if node is not None:
            out._grad_fn, out._requires_grad = node, True
            if saved:
                keep_saved(node, saved, inputs, out)  # 3. keep what backward needs
    return out if _result_hook is None else _result_hook(out, inputs)


def _link(node_class: type[Node], inputs, result: np.ndarray, args) -> Node | None:
    """Step 2: a node with an edge for each input, or None if no input needs a
    gradient. On the same pass: the values of the inputs without an edge, which
    drawings show, and whether the engine will need the inputs' shapes and dtypes."""
    edges = []  # per input: the node its gradient goes to, or None
    constants = []  # per input: its value if it has no edge, else None
    keep_facts = False  # will the engine need the inputs' shapes and dtypes?
    for t in inputs:
        if not isinstance(t, Tensor):  # a plain number
            edges.append(None)
            constants.append(t)
            continue
        if t._extras is not None:  # only a tensor with extras can be a view, and so stale
            views.refresh_if_stale(t)
        # the node that made t; for a leaf, its AccumulateGrad; None if t needs no gradient
        edge = (t._grad_fn or accumulator_of(t)) if t._requires_grad else None
        edges.append(edge)
        constants.append(None if edge is not None else t._data)
        # its gradient must be cast back, or summed back down after broadcasting
        # (one numpy object per dtype: `is not` is quick, and a false alarm is harmless)
        if t._data.dtype is not result.dtype or (node_class.broadcasts and t._data.shape != result.shape):
            keep_facts = True
    if not any(edges):
        return None
    return node_class(
        tuple(edges),
        tuple(constants) if None in edges else None,  # None: no constants, as for most ops
        _shapes_and_dtypes(inputs) if keep_facts else None,
        result,
        args,
    )


def _shapes_and_dtypes(inputs) -> tuple:
    return tuple((t._data.shape, t._data.dtype) if isinstance(t, Tensor) else None for t in inputs)


def keep_saved(node: Node, saved, inputs, out: Tensor) -> None:
    """Step 3 (also for autograd.Function's nodes): the values the formula needs,
    and for each saved tensor a check (its position, where it came from, its
    version counter, its version now). An in-place change before backward moves
    the counter, and backward then raises instead of computing with the new data."""
    values, checks = [], []
    for item in saved:
        if isinstance(item, Tensor):
            if item._extras is not None and item._extras.inference:
                raise RuntimeError(INFERENCE_SAVED_ERROR)  # before anything is kept
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
    node._saved, node._checks = tuple(values), tuple(checks)
    if _saver is not None:
        _saver(node, saved, out)


def _position_of(item, inputs) -> int | None:
    for i, t in enumerate(inputs):
        if t is item:
            return i
    return None


# -- extension points: each is None until a layer above attaches to it, and then
# costs record() one `is not None` test. Each setter returns the previous value,
# for the caller to restore.

_observer: Callable[[type[Node]], None] | None = None
_saver: Callable[[Node, tuple, Tensor], None] | None = None
_result_hook: Callable[[Tensor, tuple], Tensor] | None = None


def set_observer(observer: Callable[[type[Node]], None] | None) -> object:
    """Call `observer(node_class)` at every record() (autograd/ counts and times the ops)."""
    global _observer
    previous, _observer = _observer, observer
    return previous


def set_saver(saver: Callable[[Node, tuple, Tensor], None] | None) -> object:
    """Call `saver(node, saved, out)` once a node keeps its saved values: it may swap
    them for stand-ins, and sets the node's `unpack` extra (graph.py) to give them back."""
    global _saver
    previous, _saver = _saver, saver
    return previous


def set_result_hook(hook: Callable[[Tensor, tuple], Tensor] | None) -> object:
    """Pass every result through `hook(out, inputs)`, which returns the tensor record()
    gives back: a layer whose tensors follow other rules (a subclass of Tensor) makes
    their results follow them, without the core knowing those rules."""
    global _result_hook
    previous, _result_hook = _result_hook, hook
    return previous
