"""A recorded backward pass, one step per node, for the stepper to replay.

The trace is made by the engine's own walk (`backward_steps`, the one that
`backward()` consumes) run with accumulate=False: it writes no `.grad`, so
stepping back and forth can never add a gradient twice. `apply()` on the
stepper then runs the real `backward()` once.

Position k in a trace means "the first k steps have run". Position 0 is the
start, when only the output holds its seed gradient.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from .. import engine
from ..core.protocol import GraphNode
from ..ops import numpy_math
from ..ops.broadcast import sum_to
from ..viz.model import Namer


@dataclass
class Sent:
    """What one step sent to one input."""

    input: int  # which input of the forward op
    target: GraphNode  # the node that receives it
    target_name: str  # a label for it: the tensor's name, or the node's
    product: np.ndarray  # upstream × local, in the output's shape (before any reduction)
    local: np.ndarray | None  # the local derivative's values, for elementwise ops
    reduced_axes: tuple | None = None  # set when broadcasting had to be undone
    shape_before: tuple | None = None
    value: np.ndarray | None = None  # what arrived at the target: product, reduced
    before: np.ndarray | None = None  # what the target already held (paths meeting)
    after: np.ndarray | None = None  # before + value


@dataclass
class Step:
    """One node of the walk."""

    index: int
    node: GraphNode
    upstream: np.ndarray
    sent: list[Sent] = field(default_factory=list)
    leaf: object = None  # for AccumulateGrad: the leaf written
    leaf_before: np.ndarray | None = None
    leaf_after: np.ndarray | None = None

    @property
    def name(self) -> str:
        return self.node.name()

    @property
    def op(self) -> str:
        return self.node.op

    @property
    def rules(self) -> tuple[str, ...]:
        return self.node.rules

    @property
    def code(self) -> str | None:
        """For a custom Function's node, the source of the user's backward (the
        graph API's optional `backward_code`); None for the library's own nodes."""
        return getattr(self.node, "backward_code", None)


def _copy(x) -> np.ndarray | None:
    return None if x is None else np.array(x, copy=True)


def record(root, gradient=None, names: Mapping | None = None) -> list[Step]:
    """Walk backward from `root` (an autogradviz tensor) without writing any
    `.grad`, and keep copies of every gradient on the way."""
    (seed,) = engine.root_gradients([root], [] if gradient is None else [gradient], False, "BackwardStepper")
    namer = Namer([root], names)
    steps: list[Step] = []
    for raw in engine.backward_steps([root], [seed], retain_graph=True, accumulate=False):
        node = raw.node
        step = Step(raw.index, node, _copy(raw.grad))
        if node.variable is not None:
            step.leaf = node.variable
            step.leaf_before = _copy(raw.leaf_grad_before)
            step.leaf_after = step.upstream if step.leaf_before is None else step.leaf_before + step.upstream
        else:
            step.sent = _sent(node, raw, namer)
        steps.append(step)
    return steps


def _sent(node: GraphNode, raw: engine.BackwardStep, namer: Namer) -> list[Sent]:
    locals_ = _local_derivatives(node, raw.grad) if node.elementwise else None
    reductions = {r[0]: r for r in raw.reductions or ()}
    merges = {m[0]: m for m in raw.merges or ()}
    out = []
    for i, child in enumerate(node.edges):
        if child is None or raw.sent[i] is None:
            continue
        product = np.asarray(raw.sent[i])
        entry = Sent(
            i,
            child,
            _target_name(child, namer),
            _copy(product),
            _copy(None if locals_ is None else locals_[i]),
        )
        value = product
        if i in reductions:
            _, before_shape, after_shape, axes = reductions[i]
            value = np.asarray(sum_to(numpy_math, product, after_shape))
            entry.reduced_axes, entry.shape_before = tuple(axes), tuple(before_shape)
        entry.value = _copy(value)
        if i in merges:
            _, waiting, new, total = merges[i]
            entry.before, entry.value, entry.after = _copy(waiting), _copy(new), _copy(total)
        out.append(entry)
    return out


def _local_derivatives(node, upstream) -> tuple | None:
    """For an elementwise op, the local derivative of each input is its vjp of
    an upstream of ones: then the step reads `upstream × local = sent`. (An
    autogradviz node's own formula, `vjp`, on the values it saved.)"""
    ones = np.ones_like(np.asarray(upstream))
    try:
        return node.vjp(numpy_math, ones, *node.unpack_saved())
    except RuntimeError:
        return None


def _target_name(child: GraphNode, namer: Namer) -> str:
    if child.variable is not None:
        return namer.name(child.variable) or "leaf"
    return namer.name(namer.tensor_of(child), child) or child.name()


@dataclass
class State:
    """Where every node and tensor stands at one position of the trace."""

    done: list[GraphNode]
    current: GraphNode | None
    waiting: dict[GraphNode, np.ndarray]  # gradient received so far, not yet run
    leaf_grads: dict[object, np.ndarray]  # what .grad would hold, for leaves already written


def state_at(steps: list[Step], position: int, root_node: GraphNode, seed: np.ndarray) -> State:
    """Replay the first `position` steps of the trace."""
    waiting: dict[GraphNode, np.ndarray] = {root_node: seed}
    leaf_grads: dict[object, np.ndarray] = {}
    done = []
    for step in steps[:position]:
        waiting.pop(step.node, None)
        done.append(step.node)
        if step.leaf is not None:
            leaf_grads[step.leaf] = step.leaf_after
        for sent in step.sent:
            waiting[sent.target] = sent.after if sent.after is not None else sent.value
    current = steps[position - 1].node if position > 0 else None
    return State(done, current, waiting, leaf_grads)
