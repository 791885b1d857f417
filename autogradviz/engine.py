"""The backward engine: one walk over the graph, shared by everything.

`walk` visits the backward nodes in topological order (each node only after
every node that sends it gradient) and yields one `BackwardStep` per node it
runs; it writes nothing. `backward_steps` is backward() one step at a time: the
walk, then the writes. `Tensor.backward()`, `agv.grad()` and the backward
stepper all consume this one walk. (Their argument checks, and the gradient
each output starts from, are one layer up, in backward_and_grad.py.)

Writes to `.grad` wait until the walk has finished, so a backward that fails
half-way (a version-counter error, a bad hook) changes no `.grad` at all.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from .core.grad_mode import enable_grad
from .core.graph import AccumulateGrad, Node, grad_node
from .core.tensor import Tensor, _make
from .ops import numpy_math, tensor_math
from .ops._operands import QUIET_NUMPY
from .ops.broadcast import sum_to
from .ops.pointwise import clone


@dataclass(slots=True, eq=False)  # slots: one is made per node, quickly; eq=False: steps hold arrays
class BackwardStep:
    """What happened when the engine ran one node. Gradients are numpy arrays,
    or tensors when create_graph=True."""

    index: int  # its place in the walk (0: the node at the output)
    node: Node  # the backward node (MulBackward0, AccumulateGrad, ...)
    grad: object  # the gradient that arrived at it ("upstream"), all paths summed
    sent: tuple  # what its vjp returned, one per input (an input with no edge gets nothing)
    reductions: list | None  # (input, shape before, shape after): summed down, as the op had broadcast
    merges: list | None  # (input, before, new, after): another path's gradient was waiting, and added

    @property
    def leaf(self) -> Tensor | None:
        """For an AccumulateGrad step, the leaf whose `.grad` gets `grad`; else None."""
        return self.node.variable

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


def _release(node: Node, dependencies: dict, ready: list) -> None:
    """`node` is done: each node it feeds waits for one sender fewer."""
    for child in node.edges:
        if child is not None:
            dependencies[child] -= 1
            if dependencies[child] == 0:  # every node that sends it gradient is done: it can run
                ready.append(child)


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
    filter is not enough). A walk runs inside one."""
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

    The walk writes nothing: `backward_steps` writes `.grad`, `agv.grad()` keeps
    what reaches its inputs, the stepper keeps every step. With `only`, the nodes
    outside it are skipped, and a node in it none of whose inputs is yields its
    gradient but runs no formula (agv.grad runs only what leads to its inputs).

    Run it inside `quiet_numpy()`: once for the whole walk, as a `with` per node
    would cost a microsecond a node.
    """
    __tracebackhide__ = True  # IPython: a learner's traceback ends at their own line
    xp = tensor_math if create_graph else numpy_math
    waiting: dict[Node, object] = {}  # gradient waiting at each node, paths summed
    for node, g in zip(roots, seeds):
        waiting[node] = waiting[node] + g if node in waiting else g
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
            g = _run_hooks(node._extras.hooks, g, create_graph)
        if type(node) is AccumulateGrad:
            leaf = node.variable
            if leaf._extras is not None and leaf._extras.hooks:  # hooks registered on the leaf
                g = _run_hooks(leaf._extras.hooks, g, create_graph)
            yield BackwardStep(index, node, g, (), None, None)
            continue
        if only is not None and not any(child in only for child in node.edges):
            _release(node, dependencies, ready)
            yield BackwardStep(index, node, g, (), None, None)  # nothing below it was asked for
            continue
        if create_graph:  # the formula on tensors, recorded: backward makes a graph of its own
            with enable_grad():
                grads = node.vjp(xp, g, *node.unpack_saved(as_tensors=True))
        else:  # the saved values are checked: not freed, not changed in place since
            grads = node.vjp(xp, g, *node.unpack_saved())
        reductions, merges = _send(node, g, grads, xp, waiting, dependencies, ready)
        yield BackwardStep(index, node, g, grads, reductions, merges)


def _send(node: Node, g, grads, xp, waiting: dict, dependencies: dict, ready: list):
    """Deliver each input's gradient to the node on its edge, releasing that node
    as `_release` does. Returns what the stepper shows: the gradients summed down
    because the op had broadcast, and where two paths' gradients were added.

    As in PyTorch, each input's gradient has that input's dtype, whatever the
    formula computed in (`g * np.float64(2.0)` is float64 under numpy's rules)."""
    reductions = merges = None
    facts = node._input_facts  # (shape, dtype) of each input; None if all are the output's
    output_dtype = _dtype_of(g) if facts is None else None  # upstream has the output's dtype
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
            if gi.shape != shape:  # the forward op broadcast this input: sum back to its shape
                reductions = (reductions or []) + [(i, gi.shape, shape)]
                gi = sum_to(xp, gi, shape)
        else:
            dtype = output_dtype
        if _dtype_of(gi) != dtype:
            gi = xp.to(gi, dtype)
        if child not in waiting:
            waiting[child] = gi
        else:  # another path got here first: gradients from all paths add up
            before = waiting[child]
            waiting[child] = before + gi
            merges = (merges or []) + [(i, before, gi, waiting[child])]
    return reductions, merges


def _dtype_of(g):
    return g._data.dtype if isinstance(g, Tensor) else g.dtype


def _run_hooks(hooks: list, g, create_graph: bool):
    """Each hook sees the gradient in turn; one that returns a tensor replaces it.
    The checks and their messages are PyTorch's."""
    for hook in list(hooks):  # a hook may remove itself
        given = g if create_graph else _make(g)
        result = hook(given)
        if result is None:
            continue
        name = getattr(hook, "__name__", type(hook).__name__)
        if not isinstance(result, Tensor):
            raise TypeError(f"hook '{name}' must return a Tensor or None, not {type(result).__name__}")
        if result.shape != given.shape:
            raise RuntimeError(
                f"hook '{name}' has changed the size of value: it returned a gradient of "
                f"shape {result.shape}, but the gradient has shape {tuple(given.shape)}"
            )
        if result._data.dtype != given._data.dtype:
            raise RuntimeError(
                f"hook '{name}' has changed the type of value: it returned a gradient of "
                f"dtype {result.dtype!r}, but the gradient has dtype {given.dtype!r}"
            )
        g = result if create_graph else result._data
    return g


# -- backward(), one step at a time: the walk, then the writes --------------------------------


def backward_steps(
    tensors: Sequence[Tensor],
    grad_tensors: Sequence[Tensor],
    retain_graph: bool = False,
    create_graph: bool = False,
    accumulate: bool = True,
    only: set[Node] | None = None,
) -> Iterator[BackwardStep]:
    """backward(), one step at a time: the walk's steps, then, once the last has
    run, what backward() writes: each leaf's gradient added into its `.grad`, the
    `.grad` of tensors that retain_grad(), and (unless retain_graph) what the nodes
    that ran had saved is freed. With accumulate=False it writes no `.grad` (the
    stepper records the walk so, and agv.grad() writes its own); `only` goes to the walk."""
    __tracebackhide__ = True  # IPython: a learner's traceback ends at their own line
    seeds = [g if create_graph else g._data for g in grad_tensors]
    leaf_steps: list[BackwardStep] = []
    retained: list[tuple[Tensor, object]] = []
    ran: list[Node] = []
    for step in walk([grad_node(t) for t in tensors], seeds, create_graph, only):
        yield step
        if step.sent:  # its formula ran (with `only`, a node nothing was asked below sends nothing)
            ran.append(step.node)
            if accumulate and step.node._extras is not None:  # only a node with extras retains
                owner = retained_tensor(step.node)
                if owner is not None:
                    retained.append((owner, step.grad))
        elif accumulate and type(step.node) is AccumulateGrad:
            leaf_steps.append(step)
    # the walk succeeded: now write .grad, and free what the nodes that ran had saved
    for step in leaf_steps:
        _accumulate(step.leaf, step.grad, create_graph)
    for owner, g in retained:
        add_retained_grad(owner, g, create_graph)
    if not retain_graph:
        for node in ran:
            node.free()


def _accumulate(t: Tensor, g, create_graph: bool) -> None:
    """Add `g` into `t.grad`, as PyTorch's AccumulateGrad does."""
    dtype = t._data.dtype
    existing = t._grad
    if create_graph:
        # recorded, so that .grad can be differentiated again; a clone, because the
        # arriving gradient may be the caller's `gradient=` or a read-only view
        g = tensor_math.to(g, dtype) if g._data.dtype != dtype else g
        t._grad = clone(g) if existing is None else existing + g
    elif existing is None:  # a copy: the caller's `gradient=`, a hook or another leaf may hold g too
        t._grad = _make(np.array(g, dtype=dtype, copy=True))
    elif not existing._data.flags.writeable:  # a read-only .grad (the learner's doing): add into a new one
        t._grad = _make(np.add(existing._data, g).astype(dtype, copy=False))
    else:
        np.add(existing._data, g, out=existing._data, casting="unsafe")
        if existing._requires_grad:  # a .grad from create_graph: it may be saved in a graph
            existing._bump_version()


def retained_tensor(node: Node) -> Tensor | None:
    """The tensor this node made, if it retain_grad() and is still alive."""
    owner = None if node._extras is None else node._extras.retained
    return None if owner is None else owner()


def add_retained_grad(t: Tensor, g, create_graph: bool) -> None:
    """retain_grad(): `.grad = .grad + g`, a new tensor each time (as PyTorch's
    retain_grad hook does), so a .grad the learner kept stays as it was."""
    if create_graph:
        t._grad = clone(g) if t._grad is None else t._grad + g
    else:
        t._grad = _make(np.array(g, copy=True) if t._grad is None else t._grad._data + g)
