"""`backward()` and `grad()`: the entry points to the engine, as PyTorch spells them.

Each checks its arguments (with PyTorch's messages), chooses the gradient to start
from at each output (`root_gradients`), and runs the engine's one walk
(engine.py) inside `quiet_numpy()`:

- `backward()` consumes `backward_steps`, which writes `.grad` once the walk is over;
- `grad()` runs only the nodes that lead to its inputs, keeps the gradient that
  reaches each input, and writes no leaf's `.grad`.

`Tensor.backward` (methods.py), `agv.autograd.backward`, `agv.autograd.grad` and
`agv.grad` are these two functions.
"""

from __future__ import annotations

import numpy as np

from . import engine
from .core.creation import as_array
from .core.graph import Node, grad_node
from .core.tensor import Tensor, _make


def _as_list(x) -> list:
    if x is None:
        return []
    if isinstance(x, (Tensor, str)):  # a str is one (wrong) item, not a list of letters
        return [x]
    return list(x)


def root_gradients(outputs: list[Tensor], grad_outputs: list, create_graph: bool, what: str) -> list[Tensor]:
    """The gradient to start from at each output: given, or 1 for a scalar.

    A gradient may be a Tensor, None, or (a convenience PyTorch doesn't offer) a
    number or a list or array of numbers. Anything else is PyTorch's TypeError,
    checked first: a str would otherwise fail deep inside numpy's conversion."""
    for g in grad_outputs:
        if g is not None and not isinstance(g, (Tensor, int, float, list, tuple, np.ndarray, np.generic)):
            raise TypeError(f"{what}: gradients can be either Tensors or None, but got {type(g).__name__}")
    if len(grad_outputs) not in (0, len(outputs)):
        raise RuntimeError(f"{what}: got {len(grad_outputs)} gradients for {len(outputs)} outputs")
    grads = []
    for i, t in enumerate(outputs):
        if not isinstance(t, Tensor):
            raise TypeError(f"{what}: expected Tensors, got {type(t).__name__}")
        if not t._requires_grad:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn: nothing "
                "that it was computed from has requires_grad=True (or it was computed under no_grad)"
            )
        g = grad_outputs[i] if grad_outputs else None
        if g is None:
            # PyTorch starts from 1 only for a single number; a tensor class that follows
            # another library's rule starts from ones whatever the shape (see Tensor)
            if t._data.size != 1 and not t.implicit_grad_any_shape:
                raise RuntimeError(
                    f"grad can be implicitly created only for scalar outputs: this output has shape "
                    f"{t.shape}. Pass a gradient of that shape, for example "
                    "output.backward(agv.ones_like(output)), or reduce the output to a scalar first "
                    "(output.sum())."
                )
            g = _make(np.ones(t.shape, dtype=t._data.dtype))
        else:
            if not isinstance(g, Tensor):
                g = _make(as_array(g, t.dtype))
            if g.shape != t.shape:
                raise RuntimeError(
                    f"Mismatch in shape: the gradient has shape {g.shape} but the output has shape {t.shape}"
                )
            if g._data.dtype != t._data.dtype and not create_graph:
                g = _make(g._data.astype(t._data.dtype))
        grads.append(g)
    return grads


def backward(
    tensors,
    grad_tensors=None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
) -> None:
    """Compute gradients of `tensors` and add them into the leaves' `.grad`."""
    __tracebackhide__ = True  # IPython: a learner's traceback ends at their own line
    outputs = _as_list(tensors)
    grads = root_gradients(outputs, _as_list(grad_tensors), create_graph, "backward")
    if retain_graph is None:
        retain_graph = create_graph
    with engine.quiet_numpy():
        for _ in engine.backward_steps(outputs, grads, retain_graph, create_graph):
            pass


def grad(
    outputs,
    inputs,
    grad_outputs=None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    allow_unused: bool = False,
) -> tuple:
    """The gradients of `outputs` with respect to `inputs`, returned as a tuple;
    no leaf's `.grad` changes (a tensor that retain_grad() gets its gradient,
    since that is a hook in PyTorch)."""
    __tracebackhide__ = True  # IPython: a learner's traceback ends at their own line
    outs = _as_list(outputs)
    ins = _as_list(inputs)
    for t in ins:
        if not isinstance(t, Tensor) or not t._requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    grads = root_gradients(outs, _as_list(grad_outputs), create_graph, "grad")
    if retain_graph is None:
        retain_graph = create_graph
    targets: dict[Node, list[int]] = {}  # each input's node, and where its gradient goes in the result
    for i, t in enumerate(ins):
        targets.setdefault(grad_node(t), []).append(i)
    only = _nodes_leading_to(engine.topological_order([grad_node(t) for t in outs]), targets)
    captured: list = [None] * len(ins)
    retained: list[tuple[Tensor, object]] = []
    with engine.quiet_numpy():
        steps = engine.backward_steps(outs, grads, retain_graph, create_graph, accumulate=False, only=only)
        for step in steps:
            for i in targets.get(step.node, ()):
                captured[i] = step.grad  # what arrives at an input's node, after its hooks ran
            owner = engine.retained_tensor(step.node) if step.leaf is None else None
            if owner is not None:
                retained.append((owner, step.grad))
    for owner, g in retained:  # the walk succeeded: now write them
        engine.add_retained_grad(owner, g, create_graph)
    result = []
    for t, g in zip(ins, captured):
        if g is None:
            if not allow_unused:
                raise RuntimeError(
                    "One of the differentiated Tensors appears to not have been used in the graph. "
                    "Set allow_unused=True if this is the desired behavior."
                )
            result.append(None)
        elif create_graph:
            result.append(g)
        else:
            result.append(_make(np.array(g, dtype=t._data.dtype, copy=True)))
    return tuple(result)


def _nodes_leading_to(order: list[Node], targets: dict[Node, list[int]]) -> set[Node]:
    """The nodes from which some target can be reached: only they need to run."""
    needed = set(targets)
    for node in reversed(order):
        if node not in needed and any(child in needed for child in node.edges):
            needed.add(node)
    return needed
