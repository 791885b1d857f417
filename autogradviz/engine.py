"""The backward engine: one walk over the graph, shared by everything.

`backward_steps` walks the graph of backward nodes in topological order (each
node only after every node that sends it gradient) and yields one
`BackwardStep` per node it runs. `Tensor.backward()`, `agv.grad()` and the
backward-stepper widget all consume this same sequence: there is one engine.

Writes to `.grad` wait until the walk has finished, so a backward that fails
half-way (a version-counter error, a bad hook) changes no `.grad` at all.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import NamedTuple

import numpy as np

from .core.creation import as_array
from .core.grad_mode import _state as _grad_mode
from .core.graph import AccumulateGrad, Node, grad_node
from .core.tensor import Tensor, _make
from .ops import numpy_math, tensor_math
from .ops._operands import QUIET_NUMPY
from .ops.broadcast import reduced_axes, sum_to
from .ops.pointwise import clone


class BackwardStep(NamedTuple):
    """What happened when the engine ran one node.

    - `node`: the backward node (`MulBackward0`, `AccumulateGrad`, ...);
    - `grad`: the gradient that arrived at it ("upstream"), all paths summed;
    - `sent`: what its `vjp` returned, one entry per input; an entry whose input
      has no edge in `node.next_functions` (it needs no grad) goes nowhere;
    - `reductions`: (input, shape before, shape after, axes) for each gradient
      the engine summed down because the forward op had broadcast;
    - `merges`: (input, before, new, after) where the receiving node already
      held gradient from another path, and the two were added;
    - `leaf`: for AccumulateGrad, the leaf tensor, and `leaf_grad_before`
      its `.grad` data before this backward (None if it had none); `shared`:
      the gradient array is also held elsewhere, so `.grad` must take a copy.

    Gradients are numpy arrays, or tensors when create_graph=True.
    """

    index: int
    node: Node
    grad: object
    sent: tuple
    reductions: list | None = None
    merges: list | None = None
    leaf: Tensor | None = None
    leaf_grad_before: np.ndarray | None = None
    shared: bool = False

    def __repr__(self) -> str:
        return f"<BackwardStep {self.index}: {self.node.name()}>"


def _dependencies(roots: Sequence[Node]) -> dict[Node, int]:
    """For every node reachable from `roots`: how many edges lead into it.

    A node may run only when all of them have delivered their gradient. The
    search uses an explicit stack: recursion would overflow on a long chain.
    """
    dependencies: dict[Node, int] = dict.fromkeys(roots, 0)
    stack = list(dependencies)
    while stack:
        for child in stack.pop().edges:
            if child is None:
                continue
            if child in dependencies:
                dependencies[child] += 1
            else:  # first seen: its own children are counted next
                dependencies[child] = 1
                stack.append(child)
    return dependencies


def topological_order(roots: Sequence[Node]) -> list[Node]:
    """Every node reachable from `roots`, each after all the nodes that send it
    gradient: the order in which backward runs them."""
    dependencies = _dependencies(roots)
    ready = [node for node in dependencies if dependencies[node] == 0]
    order = []
    while ready:
        node = ready.pop()
        order.append(node)
        _release(node, dependencies, ready)
    return order


def quiet_numpy() -> np.errstate:
    """numpy's floating-point warnings off, as PyTorch has none: log(0) is -inf and
    0/0 is nan, silently (see QUIET_NUMPY in ops/_operands.py for why a warnings
    filter is not enough). A walk of backward_steps runs inside one."""
    return np.errstate(**QUIET_NUMPY)


def walk(
    roots: Sequence[Node], seeds: Sequence, create_graph: bool = False, only: set[Node] | None = None
) -> Iterator[BackwardStep]:
    """The engine: run backward from `roots`, seeded with `seeds`, one node at a time.

    1. Count, for every node, how many edges lead into it.
    2. A node is ready when all of them have delivered: take a ready node, and
       pop the gradient waiting for it (every path's share, already summed).
    3. Run its hooks, then its formula: `vjp` gives a gradient per input.
    4. Send each to the node on that edge, summed down to the input's shape if
       the op broadcast it; where some gradient is already waiting, add them.
    5. Yield what happened. An AccumulateGrad node runs no formula: its step
       carries the gradient its leaf's `.grad` is to get.

    The walk writes nothing: `backward()` writes `.grad`, `agv.grad()` keeps what
    reaches its inputs, the stepper keeps every step. With `only`, the nodes
    outside it are skipped, and a node in it none of whose inputs is yields its
    gradient but runs no formula (agv.grad runs only what leads to its inputs).

    numpy warns where a formula overflows or meets 0/0, where PyTorch gives inf
    or nan silently: whoever runs the walk runs it inside `quiet_numpy()`, once
    for the whole walk (a `with` per node would cost a microsecond a node).
    """
    __tracebackhide__ = True  # IPython: a learner's traceback ends at their own line
    xp = tensor_math if create_graph else numpy_math
    waiting: dict[Node, object] = {}  # gradient waiting at each node, paths summed
    for node, g in zip(roots, seeds):
        waiting[node] = waiting[node] + g if node in waiting else g
    # ids of arrays that something else may hold too (the seed, what a hook saw or
    # returned, an upstream gradient passed on as it is): a step says so with
    # `shared`, and a leaf's `.grad` then gets a copy, like PyTorch's AccumulateGrad
    # "stealing" only a gradient that nothing else references
    borrowed = {id(g) for g in waiting.values()}
    dependencies = _dependencies(roots)
    ready = [node for node in dependencies if dependencies[node] == 0]
    index = -1
    while ready:
        node = ready.pop()
        index += 1
        g = waiting.pop(node, None)
        if g is None or (only is not None and node not in only):
            _release(node, dependencies, ready)  # nothing to send: it still counts as done
            continue
        if node._extras is not None and node._extras.hooks:  # hooks on the tensor this node made
            g = _run_hooks(node._extras.hooks, g, create_graph, borrowed)
        if type(node) is AccumulateGrad:
            leaf = node.variable
            if leaf._extras is not None and leaf._extras.hooks:  # hooks registered on the leaf
                g = _run_hooks(leaf._extras.hooks, g, create_graph, borrowed)
            before = None if leaf._grad is None else leaf._grad._data
            yield BackwardStep(
                index, node, g, (), leaf=leaf, leaf_grad_before=before, shared=id(g) in borrowed
            )
            continue
        if only is not None and not any(child in only for child in node.edges):
            _release(node, dependencies, ready)
            yield BackwardStep(index, node, g, ())  # agv.grad: nothing below this node was asked for
            continue
        if create_graph:
            grads = _call_vjp_recording(node, xp, g)
        else:  # the saved values are checked: not freed, not changed in place since
            grads = node.vjp(xp, g, *node.unpack_saved())
        reductions, merges = _send(node, g, grads, xp, waiting, dependencies, ready, borrowed)
        yield BackwardStep(index, node, g, grads, reductions, merges)


def backward_steps(
    tensors: Sequence[Tensor],
    grad_tensors: Sequence[Tensor],
    retain_graph: bool = False,
    create_graph: bool = False,
    accumulate: bool = True,
    only: set[Node] | None = None,
) -> Iterator[BackwardStep]:
    """backward(), one step at a time: the walk's steps, and once the last has run,
    what backward() writes. Consumed to the end, it adds each leaf's gradient into
    its `.grad`, fills the `.grad` of tensors that retain_grad(), and (unless
    retain_graph) frees what the nodes saved. With accumulate=False it writes no
    `.grad` at all (the stepper records the walk this way, and agv.grad() writes
    what it writes itself); `only` is passed on to the walk.

    The writes wait until the walk has finished, so a backward that fails half-way
    (a version-counter error, a bad hook) changes no `.grad` at all."""
    __tracebackhide__ = True  # IPython: a learner's traceback ends at their own line
    roots = [grad_node(t) for t in tensors]
    seeds = [g if create_graph else g._data for g in grad_tensors]
    leaf_grads: dict[Tensor, BackwardStep] = {}
    retained: list[tuple[Tensor, object]] = []
    ran: list[Node] = []
    for step in walk(roots, seeds, create_graph, only):
        if step.leaf is not None:
            leaf_grads[step.leaf] = step
        elif step.sent:  # its formula ran (with `only`, a node nothing was asked below sends nothing)
            ran.append(step.node)
            # a retain_grad() tensor's .grad is written with the leaves' (only a node with extras has one)
            if accumulate and step.node._extras is not None:
                owner = _retained_owner(step.node)
                if owner is not None:
                    retained.append((owner, step.grad))
        yield step
    if accumulate:  # the walk succeeded: now write .grad
        for leaf, step in leaf_grads.items():
            _accumulate(leaf, step.grad, create_graph, step.shared)
        for owner, g in retained:
            _retain(owner, g, create_graph)
    if not retain_graph:
        for node in ran:
            node.free()


def _call_vjp_recording(node: Node, xp, g):
    """create_graph=True: run the formula on tensors, with grad mode on, so
    that the backward pass records a graph of its own."""
    previous = _grad_mode.enabled
    _grad_mode.enabled = True
    try:
        return node.vjp(xp, g, *node.unpack_saved(as_tensors=True))
    finally:
        _grad_mode.enabled = previous


def _send(node: Node, g, grads, xp, waiting: dict, dependencies: dict, ready: list, borrowed: set):
    """Deliver each input's gradient to the node on its edge. Returns what the
    stepper shows: the gradients summed down because the op had broadcast, and
    the places where paths met and two gradients were added."""
    reductions = merges = None
    facts = node._input_facts
    for i, child in enumerate(node.edges):
        if child is None:
            continue
        dependencies[child] -= 1
        if dependencies[child] == 0:  # every node that sends it gradient has run: it can run next
            ready.append(child)
        gi = grads[i]
        if gi is None:
            continue
        if facts is not None:
            shape, dtype = facts[i]
            if gi.shape != shape:
                # the forward op broadcast this input: sum the gradient back to its shape
                axes, _ = reduced_axes(gi.shape, shape)
                reductions = (reductions or []) + [(i, gi.shape, shape, axes)]
                gi = sum_to(xp, gi, shape)
            if _dtype_of(gi) != dtype:  # as PyTorch does: each input's gradient in its dtype
                gi = xp.to(gi, dtype)
        if child not in waiting:
            waiting[child] = gi
            if type(child) is AccumulateGrad and (gi is g or _sent_twice(gi, grads)):
                borrowed.add(id(gi))
        else:  # another path got here first: gradients from all paths add up
            before = waiting[child]
            waiting[child] = before + gi
            merges = (merges or []) + [(i, before, gi, waiting[child])]
    return reductions, merges


def _release(node: Node, dependencies: dict, ready: list) -> None:
    """A node that does not run still counts as done for the nodes it feeds."""
    for child in node.edges:
        if child is not None:
            dependencies[child] -= 1
            if dependencies[child] == 0:
                ready.append(child)


def _sent_twice(gi, grads) -> bool:
    """Does this node send the very same array to two of its inputs?"""
    return sum(x is gi for x in grads) > 1


def _retained_owner(node: Node) -> Tensor | None:
    """The tensor this node made, if it retain_grad() and is still alive."""
    if node._extras is None or node._extras.retained is None:
        return None
    return node._extras.retained()


def _dtype_of(g):
    return g._data.dtype if isinstance(g, Tensor) else g.dtype


def _nodes_leading_to(order: list[Node], targets: dict[Node, list[int]]) -> set[Node]:
    """The nodes from which some target can be reached: only they need to run."""
    needed = set(targets)
    for node in reversed(order):
        if node not in needed and any(child in needed for child in node.edges):
            needed.add(node)
    return needed


def _run_hooks(hooks: list, g, create_graph: bool, borrowed: set):
    for hook in list(hooks):
        borrowed.add(id(g))  # the hook may keep what it is given
        result = hook(g if create_graph else _make(g))
        if result is None:
            continue
        if not isinstance(result, Tensor):
            raise TypeError(
                f"hook '{_hook_name(hook)}' must return a Tensor or None, not {type(result).__name__}"
            )
        if result.shape != g.shape:
            raise RuntimeError(
                f"hook '{_hook_name(hook)}' has changed the size of value: it returned a gradient of "
                f"shape {result.shape}, but the gradient has shape {tuple(g.shape)}"
            )
        if result._data.dtype != _dtype_of(g):
            raise RuntimeError(
                f"hook '{_hook_name(hook)}' has changed the type of value: it returned a gradient of "
                f"dtype {result.dtype!r}, but the gradient has dtype {_make(np.empty(0, _dtype_of(g))).dtype!r}"
            )
        g = result if create_graph else result._data
        borrowed.add(id(g))
    return g


def _hook_name(hook) -> str:
    return getattr(hook, "__name__", type(hook).__name__)


def _accumulate(t: Tensor, g, create_graph: bool, borrowed: bool = True) -> None:
    """Add `g` into `t.grad`, as PyTorch's AccumulateGrad does."""
    dtype = t._data.dtype
    existing = t._grad
    if create_graph:
        # recorded, so that .grad can be differentiated again; a clone, because the
        # arriving gradient may be the caller's `gradient=` or a read-only view
        g = tensor_math.to(g, dtype) if g._data.dtype != dtype else g
        t._grad = clone(g) if existing is None else existing + g
    elif existing is None:
        owned = not borrowed and type(g) is np.ndarray and g.base is None and g.flags.writeable
        t._grad = _make(g if owned and g.dtype == dtype else np.array(g, dtype=dtype, copy=True))
    elif not existing._data.flags.writeable:
        t._grad = _make(np.add(existing._data, g).astype(dtype, copy=False))
    else:
        np.add(existing._data, g, out=existing._data, casting="unsafe")
        if existing._requires_grad:  # a .grad from create_graph: it may be saved in a graph
            existing._bump_version()


def _retain(t: Tensor, g, create_graph: bool) -> None:
    """retain_grad(): `.grad = .grad + g`, a new tensor each time (as PyTorch's
    retain_grad hook does), so a .grad the learner kept stays as it was."""
    if create_graph:
        t._grad = clone(g) if t._grad is None else t._grad + g
    else:
        t._grad = _make(np.array(g, copy=True) if t._grad is None else t._grad._data + g)


# -- the public entry points --------------------------------------------------------------


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
    with quiet_numpy():
        for _ in backward_steps(outputs, grads, retain_graph, create_graph):
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
    `.grad` is left untouched."""
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
    only = _nodes_leading_to(topological_order([grad_node(t) for t in outs]), targets)
    captured: list = [None] * len(ins)
    retained: list[tuple[Tensor, object]] = []
    with quiet_numpy():
        for step in backward_steps(outs, grads, retain_graph, create_graph, accumulate=False, only=only):
            for i in targets.get(step.node, ()):
                captured[i] = step.grad  # what arrives at an input's node, after its hooks ran
            owner = _retained_owner(step.node) if step.leaf is None else None
            if owner is not None:  # retain_grad() is a hook in PyTorch: agv.grad fills it too
                retained.append((owner, step.grad))
    for owner, g in retained:
        _retain(owner, g, create_graph)
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
