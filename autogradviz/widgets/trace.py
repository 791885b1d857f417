"""A recorded backward pass, one step per node, for the stepper to replay.

The trace is made by the engine's own walk (`backward_steps`, the one that
`backward()` consumes) run with accumulate=False: it writes no `.grad`, so
stepping back and forth can never add a gradient twice. `apply()` on the
stepper then runs the real `backward()` once.

Position k in a trace means "the first k steps have run". Position 0 is the
start, when only the output holds its seed gradient.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from .. import engine
from ..core.protocol import AutogradvizTensors, GraphNode, Namer, Sent, Step
from ..ops import numpy_math
from ..ops.broadcast import sum_to
from ..viz.user_text import shortened


def _copy(x) -> np.ndarray | None:
    """A gradient as the trace keeps it: the walk's own array, not a copy. The walk
    computes every gradient out of place and nothing writes into them after (the
    stepper's walk writes no `.grad`), so keeping them is safe, and a copy of each
    cost a VGG-11 stepper seconds: its first Linear's weight gradient alone is 400 MB,
    passed on as a transposed view. (The leaf's `.grad` before the walk is the
    learner's, which zero_() may change later: record() copies that one.)"""
    return None if x is None else np.asarray(x)


def record(root, gradient=None, names: Mapping | None = None) -> list[Step]:
    """Walk backward from `root` (an autogradviz tensor) without writing any
    `.grad`, and keep copies of every gradient on the way."""
    return _recorded(root, _seed(root, gradient), names)


def _seed(root, gradient):
    """The gradient the walk starts from at `root`: given, or 1 for a scalar."""
    (seed,) = engine.root_gradients([root], [] if gradient is None else [gradient], False, "BackwardStepper")
    return seed


def _recorded(root, seed, names: Mapping | None) -> list[Step]:
    namer = Namer([root], names)
    steps: list[Step] = []
    with engine.quiet_numpy():  # the engine's walk, and the stepper's own arithmetic on it
        for raw in engine.backward_steps([root], [seed], retain_graph=True, accumulate=False):
            node = raw.node
            step = Step(raw.index, node, _copy(raw.grad), named_rules=named_rules(node, namer))
            if node.variable is not None:
                step.leaf = node.variable
                # the leaf's .grad: the learner's, which zero_() may change later
                step.leaf_before = None if raw.leaf_grad_before is None else np.array(raw.leaf_grad_before)
                step.leaf_after = (
                    step.upstream if step.leaf_before is None else step.leaf_before + step.upstream
                )
            else:
                step.sent = _sent(node, raw, namer)
            steps.append(step)
    return steps


def _record_backward(
    reader: AutogradvizTensors, root, gradient=None, names: Mapping | None = None
) -> tuple[list[Step], np.ndarray]:
    """The graph protocol's record_backward for autogradviz's own tensors: the
    steps (record) and the seed gradient the walk started from."""
    seed = _seed(root, gradient)
    return _recorded(root, seed, names), np.array(reader.value(seed), copy=True)


def _backward(reader: AutogradvizTensors, root, gradient=None) -> None:
    """The graph protocol's backward for autogradviz's own tensors: the engine's, keeping the graph."""
    engine.backward([root], None if gradient is None else [gradient], retain_graph=True)


# the half of the graph protocol that needs the engine (core/protocol.py cannot import it)
AutogradvizTensors.record_backward = _record_backward
AutogradvizTensors.backward = _backward


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


# A rule names the op's inputs with one letter: a and b, or A and B. "∂(a·b)/∂a" says which input
# a rule is about; a letter counts as the symbol only where no other ASCII letter, digit or _ is
# beside it ("ln a", "aᵀ" yes; "else", "max" no).
_DENOMINATOR = re.compile(r"/∂([A-Za-z])(?![A-Za-z0-9_])")
_ALONE = r"(?<![A-Za-z0-9_]){}(?![A-Za-z0-9_])"
# a symbol raised to a power is written with a superscript letter (eᵃ, aᵇ⁻¹): a name cannot be
_SUPERSCRIPT = {"a": "ᵃ", "b": "ᵇ"}


def _input_symbols(rules: tuple[str, ...], inputs: int) -> list[str | None]:
    """The one-letter symbol each input has in the rules: from "/∂x" where a
    rule says it, else a, b by position when the rules use those letters and
    no ∂ at all ("1 where a > b"): a rule with a ∂ but no one-letter symbol
    ("∂/∂mean = 0: ... a sample") is prose, and keeps its words."""
    if len(rules) == inputs:
        found = [_DENOMINATOR.search(rule) for rule in rules]
        if all(found):
            return [m.group(1) for m in found]
    text = " ".join(rules)
    if "∂" in text:
        return [None] * inputs
    return [
        letter if i < inputs and re.search(_ALONE.format(letter), text) else None
        for i, letter in enumerate("ab")
    ][:inputs] + [None] * max(0, inputs - 2)


def _input_name(node: GraphNode, i: int, namer: Namer) -> str | None:
    """The learner's name for input i of the node's forward op (names= or .name), or None;
    cut to LABEL_COLUMNS (viz/user_text.py), as a rule shows it."""
    child = node.edges[i]
    if child is None:  # a constant: named only if it is the data of a tensor names= holds
        value = node.constants[i] if i < len(node.constants) else None
        if not isinstance(value, np.ndarray):
            return None
        tensor = next((t for t in namer.tensors if namer.reader.value(t) is value), None)
        name = namer.name(tensor) if tensor is not None else None
    elif child.variable is not None:
        name = namer.name(child.variable)
    else:
        name = namer.name(namer.tensor_of(child), child)
    return shortened(name) if name else name


def named_rules(node: GraphNode, namer: Namer) -> tuple[str, ...]:
    """The node's rules with each input's generic letter replaced by the
    learner's name: for `c * d`, "∂(a·b)/∂a = b" becomes "∂(c·d)/∂c = d". An
    unnamed input keeps its letter. All letters are replaced at once, so the
    names a → b, b → a swap correctly."""
    rules = tuple(node.rules)
    inputs = len(node.edges)
    names = {}
    for i, symbol in enumerate(_input_symbols(rules, inputs)):
        name = _input_name(node, i, namer) if symbol is not None else None
        if name and symbol not in names:
            names[symbol] = name
    if not names:
        return rules

    def raised(name: str, minus_one: bool) -> str:
        base = name if re.fullmatch(r"[A-Za-z]", name) else f"({name})"
        return f"^({name}-1)" if minus_one else f"^{base}"

    patterns = [_ALONE.format(re.escape(symbol)) for symbol in names]
    for symbol in names:
        if symbol in _SUPERSCRIPT:
            patterns.append(f"{_SUPERSCRIPT[symbol]}(?:⁻¹)?")
    pattern = re.compile("|".join(patterns))
    by_superscript = {sup: names[letter] for letter, sup in _SUPERSCRIPT.items() if letter in names}

    def substitute(match: re.Match) -> str:
        found = match.group(0)
        if found[0] in by_superscript:
            return raised(by_superscript[found[0]], found.endswith("⁻¹"))
        return names[found]

    return tuple(pattern.sub(substitute, rule) for rule in rules)


@dataclass
class State:
    """Where every node and tensor stands at one position of the trace."""

    done: set[GraphNode]  # the nodes that have run
    current: GraphNode | None
    waiting: dict[GraphNode, np.ndarray]  # gradient received so far, not yet run
    leaf_grads: dict[object, np.ndarray]  # what .grad would hold, for leaves already written


def state_at(steps: list[Step], position: int, root_node: GraphNode, seed: np.ndarray) -> State:
    """Replay the first `position` steps of the trace."""
    *_, last = states(steps[:position], root_node, seed)
    return last


def states(steps: list[Step], root_node: GraphNode, seed: np.ndarray):
    """State at position 0, 1, ..., len(steps), each made from the one before:
    one pass over the walk, not a replay per position. Each State has its own
    `waiting` and `leaf_grads`; `done` is one set that grows as the walk goes,
    so read a State before taking the next."""
    waiting: dict[GraphNode, np.ndarray] = {root_node: seed}
    leaf_grads: dict[object, np.ndarray] = {}
    done: set[GraphNode] = set()
    yield State(done, None, dict(waiting), dict(leaf_grads))
    for step in steps:
        waiting.pop(step.node, None)
        done.add(step.node)
        if step.leaf is not None:
            leaf_grads[step.leaf] = step.leaf_after
        for sent in step.sent:
            waiting[sent.target] = sent.after if sent.after is not None else sent.value
        yield State(done, step.node, dict(waiting), dict(leaf_grads))


@dataclass
class Chunk:
    """The steps of one layer (one module call), or of the ops between layers
    (layer None: a loss, a residual add), as one step of the layer view."""

    layer: object  # viz.modules.Layer, or None
    steps: list[Step] = field(default_factory=list)


def chunks(steps: list[Step], layer_of: Mapping) -> list[Chunk]:
    """The walk grouped by layer: each run of consecutive steps of one module
    call is a chunk. A leaf's AccumulateGrad step joins the chunk of the step
    that sent its last gradient: by then its gradient is complete (the engine
    runs it later, once nothing else can reach it; the op view shows that order)."""
    found: list[Chunk] = []
    chunk_of_step: dict[int, Chunk] = {}
    last_sender: dict[GraphNode, int] = {}
    for step in steps:
        if step.leaf is not None:
            chunk = chunk_of_step.get(last_sender.get(step.node, -1))
            if chunk is None:  # the root itself is a leaf: nothing sent to it
                chunk = Chunk(layer_of.get(step.node))
                found.append(chunk)
            chunk.steps.append(step)
            continue
        layer = layer_of.get(step.node)
        if not found or found[-1].layer is not layer or _only_leaves(found[-1]):
            found.append(Chunk(layer))
        found[-1].steps.append(step)
        chunk_of_step[step.index] = found[-1]
        for sent in step.sent:
            last_sender[sent.target] = step.index
    for chunk in found:
        chunk.steps.sort(key=lambda step: step.index)
    return found


def _only_leaves(chunk: Chunk) -> bool:
    return all(step.leaf is not None for step in chunk.steps)


def timeline(units: list[list[Step]], root_node: GraphNode) -> dict[GraphNode, list[int]]:
    """For each node: [the position its first gradient arrives, the position its
    step runs]. Position k means k units have run (a unit is one step, or a
    layer's steps); the root's gradient is there at 0. (None: it never runs.) A node is waiting from
    the first, current at the second, done after it: every frame's marks in one
    table, so a stepper holds one entry per node, not one per node per frame."""
    marks: dict[GraphNode, list] = {root_node: [0, None]}
    for position, unit in enumerate(units, start=1):
        for step in unit:
            marks.setdefault(step.node, [position, position])[1] = position
            for sent in step.sent:
                marks.setdefault(sent.target, [position, None])
    return marks


def state_class(marks: list[int], position: int) -> str | None:
    """A box's state at `position` from its [arrives, runs, done] marks (stepper.js does the same)."""
    arrives, runs, done = marks
    if runs is not None and position >= done:
        return "done"
    if runs is not None and position >= runs:
        return "current"
    if position >= arrives:
        return "waiting"
    return None
