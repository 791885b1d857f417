"""Read the autograd graph into something drawable.

Two views of the same graph:

- forward: tensors and the ops between them, as the learner wrote the code;
- backward: the `grad_fn` nodes that `backward()` walks, down `next_functions`
  to one `AccumulateGrad` per leaf.

This module only reads the graph. Node ids are given in a fixed walk order
(`t0`, `op0`, `fn0`, ...), never from `id()`, so the same graph always gives
the same drawing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

from ..engine import topological_order
from ..node import OUTPUT, AccumulateGrad, Node
from ..tensor import Tensor


@dataclass
class Box:
    """One drawn node."""

    id: str
    kind: str  # param, input, tensor, root, op, grad_fn, accumulate, saved, hidden
    title: str
    shape: str = ""
    data: str | None = None
    grad: str | None = None
    ref: object = None  # the Tensor or Node it stands for
    group: str | None = None


@dataclass
class Arrow:
    tail: str
    head: str
    style: str = ""  # "", "saved" or "leaf"


@dataclass
class Model:
    kind: str
    boxes: list[Box] = field(default_factory=list)
    arrows: list[Arrow] = field(default_factory=list)
    hidden: int = 0


def collect_names(names: Mapping | None) -> dict[int, str]:
    """Tensor -> name, from a mapping such as `locals()`. IPython's own
    variables (`_`, `_1`, `Out`, ...) start with "_" and are skipped; a tensor
    with several names keeps the first."""
    found: dict[int, str] = {}
    for key, value in (names or {}).items():
        if isinstance(value, Tensor) and isinstance(key, str) and not key.startswith("_"):
            found.setdefault(id(value), key)
    return found


class _Namer:
    def __init__(self, roots: list[Tensor], names: Mapping | None):
        self.by_tensor = collect_names(names)
        # the tensors we can see: roots and named ones; an op's output tensor is
        # found through them (a node never holds its output tensor)
        self.tensors = list(roots) + [v for v in (names or {}).values() if isinstance(v, Tensor)]

    def tensor_of(self, node: Node) -> Tensor | None:
        for t in self.tensors:
            if t._grad_fn is node:
                return t
        return None

    def name(self, tensor: Tensor | None, node: Node | None = None) -> str | None:
        if tensor is not None:
            if id(tensor) in self.by_tensor:
                return self.by_tensor[id(tensor)]
            if tensor.name:
                return tensor.name
        return node._extra("name") if node is not None else None


def _grad_array(tensor: Tensor | None):
    if tensor is None or tensor._grad is None:
        return None
    return tensor._grad._data


def _root_nodes(roots: list[Tensor]) -> list[Node]:
    return [t._grad_fn if t._grad_fn is not None else t._accumulator() for t in roots if t._requires_grad]


def _op_title(node: Node) -> str:
    """The op with the numbers it used: `* 0.9`, `** 2`, `where 0.5`. A number
    on the left of an operator symbol is drawn on the left (`2 /` for 2 / x), so
    that it does not read as x / 2."""
    before, after = [], []
    for i, value in enumerate(node._consts or ()):
        if value is not None and not isinstance(value, np.ndarray):
            infix_left = i == 0 and not node.op[:1].isalpha()
            (before if infix_left else after).append(_short(value))
    kind = type(node).__name__
    if kind == "PowBackward0":  # x ** 2: the exponent is a parameter, not an input
        after.append(_short(node.args))
    elif kind in ("RsubBackward1", "PowBackward2"):  # 2 - x, 2 ** x: the number comes first
        before.append(_short(node.args[0]))
    return " ".join([*before, node.op, *after])


def _short(value) -> str:
    from .labels import preview

    return preview(np.asarray(value))


def forward_model(roots: list[Tensor], names: Mapping | None, group: Callable | None = None) -> Model:
    from .labels import preview, shape_and_dtype

    namer = _Namer(roots, names)
    model = Model("forward")
    entity_ids: dict[object, str] = {}
    counters = {"t": 0, "op": 0}

    def new_id(prefix: str) -> str:
        counters[prefix] += 1
        return f"{prefix}{counters[prefix] - 1}"

    def tensor_box(key, kind: str, array, tensor: Tensor | None, node: Node | None, group_name=None) -> str:
        if key in entity_ids:
            return entity_ids[key]
        box_id = entity_ids[key] = new_id("t")
        title = namer.name(tensor, node) or ""
        model.boxes.append(
            Box(
                box_id,
                kind,
                title,
                shape_and_dtype(array) if array is not None else _shape_of_freed(node),
                preview(array),
                None if _grad_array(tensor) is None else preview(_grad_array(tensor)),
                tensor if tensor is not None else node,
                group_name,
            )
        )
        return box_id

    order = topological_order(_root_nodes(roots))
    for node in reversed(order):  # forward order: inputs before the ops that use them
        if type(node) is AccumulateGrad:
            leaf = node.variable
            leaf_group = group(node) if group is not None else None
            tensor_box(("leaf", id(leaf)), "param", leaf._data, leaf, None, leaf_group)
            continue
        group_name = group(node) if group is not None else None
        inputs = []
        for i, child in enumerate(node._next):
            if child is None:
                value = node._consts[i] if node._consts is not None else None
                if isinstance(value, np.ndarray):  # a constant joins the group of the op using it
                    const = _tensor_with_data(namer, value)
                    key = ("const", id(value))
                    inputs.append(
                        tensor_box(
                            key, "input", value, const, None, None if const is not None else group_name
                        )
                    )
            elif type(child) is AccumulateGrad:
                leaf = child.variable
                inputs.append(tensor_box(("leaf", id(leaf)), "param", leaf._data, leaf, None))
            else:
                inputs.append(entity_ids[("out", child)])
        op_id = new_id("op")
        model.boxes.append(Box(op_id, "op", _op_title(node), ref=node, group=group_name))
        model.arrows.extend(Arrow(tail, op_id) for tail in inputs)
        out = namer.tensor_of(node)
        # backward frees the node's copy, not the data of a tensor the learner still holds
        data = out._data if out is not None else node._output
        out_id = tensor_box(("out", node), "tensor", data, out, node, group_name)
        model.arrows.append(Arrow(op_id, out_id))

    for root in roots:
        if root._grad_fn is not None:
            key = ("out", root._grad_fn)
        elif root._requires_grad:
            key = ("leaf", id(root))
        else:
            key = ("const", id(root._data))
        if key not in entity_ids:  # a root with no graph: a lone tensor
            tensor_box(key, "input", root._data, root, None)
        for box in model.boxes:
            if box.id == entity_ids[key]:
                box.kind = "root"
                box.ref = root
                box.title = box.title or namer.name(root) or ""
                if root._grad is not None:
                    box.grad = preview(root._grad._data)
    return model


def _tensor_with_data(namer: _Namer, array: np.ndarray) -> Tensor | None:
    for t in namer.tensors:
        if t._data is array:
            return t
    return None


def _shape_of_freed(node: Node | None) -> str:
    return "" if node is None else "(freed)"


_SOURCE_NAMES = ("self", "other", "third")


def _saved_name(node: Node, source, namer: _Namer) -> str:
    """What a saved value is: the op's result, or input i, by its name if known."""
    if source is OUTPUT:
        return "result"
    if source is None:  # not an input: an index, a mask, im2col columns...
        return "value"
    child = node._next[source]
    name = None
    if type(child) is AccumulateGrad:
        name = namer.name(child.variable)
    elif child is not None:
        name = namer.name(namer.tensor_of(child), child)
    elif node._consts is not None and isinstance(node._consts[source], np.ndarray):
        name = namer.name(_tensor_with_data(namer, node._consts[source]))
    return name or (_SOURCE_NAMES[source] if source < 3 else f"input {source}")


def backward_model(roots: list[Tensor], names: Mapping | None, show_saved: bool = False) -> Model:
    from .labels import preview, shape_and_dtype

    namer = _Namer(roots, names)
    model = Model("backward")
    order = topological_order(_root_nodes(roots))
    fn_ids = {node: f"fn{i}" for i, node in enumerate(order)}
    saved_count = 0
    for i, root in enumerate(roots):
        if not root._requires_grad:
            continue
        root_id = f"r{i}"
        model.boxes.append(
            Box(
                root_id,
                "root",
                namer.name(root) or "",
                shape_and_dtype(root._data),
                preview(root._data),
                None if root._grad is None else preview(root._grad._data),
                root,
            )
        )
        node = root._grad_fn if root._grad_fn is not None else root._accumulator()
        model.arrows.append(Arrow(root_id, fn_ids[node]))
    for node in order:
        node_id = fn_ids[node]
        if type(node) is AccumulateGrad:
            leaf = node.variable
            model.boxes.append(Box(node_id, "accumulate", "AccumulateGrad", ref=node))
            leaf_id = f"leaf{node_id[2:]}"
            model.boxes.append(
                Box(
                    leaf_id,
                    "param",
                    namer.name(leaf) or "",
                    shape_and_dtype(leaf._data),
                    None,
                    None if leaf._grad is None else preview(leaf._grad._data),
                    leaf,
                )
            )
            model.arrows.append(Arrow(node_id, leaf_id, "leaf"))
            continue
        model.boxes.append(Box(node_id, "grad_fn", node.name(), ref=node))
        for child in node._next:
            if child is not None:
                model.arrows.append(Arrow(node_id, fn_ids[child]))
        if show_saved and node._saved:
            for value, source in zip(node._saved, node._saved_sources()):
                if not isinstance(value, np.ndarray):
                    continue
                label = _saved_name(node, source, namer)
                saved_id = f"s{saved_count}"
                saved_count += 1
                model.boxes.append(
                    Box(saved_id, "saved", f"saved {label}", shape_and_dtype(value), preview(value), ref=node)
                )
                model.arrows.append(Arrow(saved_id, node_id, "saved"))
    return model


def split_shared_leaves(model: Model, max_uses: int = 6) -> Model:
    """A leaf used by many ops (a weight reused at every step of a long chain)
    would pull one arrow across the whole picture per use; Graphviz then needs
    a hidden waypoint on every rank for each of them, and the layout slows to
    seconds. Past `max_uses`, each further use gets a small copy of the leaf's
    box, titled like it, right next to the op that uses it."""
    uses: dict[str, int] = {}
    for arrow in model.arrows:
        uses[arrow.tail] = uses.get(arrow.tail, 0) + 1
    shared = {b.id: b for b in model.boxes if b.kind in ("param", "input") and uses.get(b.id, 0) > max_uses}
    if not shared:
        return model
    boxes, seen = list(model.boxes), dict.fromkeys(shared, 0)
    arrows = []
    for arrow in model.arrows:
        leaf = shared.get(arrow.tail)
        if leaf is not None:
            seen[leaf.id] += 1
            if seen[leaf.id] > 1:
                copy = Box(
                    f"{leaf.id}_{seen[leaf.id]}", leaf.kind, leaf.title, "(the same tensor)", ref=leaf.ref
                )
                boxes.append(copy)
                arrow = Arrow(copy.id, arrow.head, arrow.style)
        arrows.append(arrow)
    for leaf in shared.values():
        leaf.shape = f"{leaf.shape}, used {uses[leaf.id]} times"
    return Model(model.kind, boxes, arrows, model.hidden)


def elide(model: Model, max_nodes: int) -> Model:
    """Keep the first and last max_nodes // 2 boxes (in walk order) and replace
    the middle by one placeholder box that says how many were hidden."""
    if len(model.boxes) <= max_nodes:
        return model
    keep = max(max_nodes // 2, 1)
    kept = model.boxes[:keep] + model.boxes[-keep:]
    kept_ids = {b.id for b in kept}
    hidden = len(model.boxes) - len(kept)
    placeholder = Box("hidden", "hidden", f"… {hidden:,} nodes hidden …")
    arrows, seen = [], set()
    for arrow in model.arrows:
        tail = arrow.tail if arrow.tail in kept_ids else "hidden"
        head = arrow.head if arrow.head in kept_ids else "hidden"
        if tail == head == "hidden" or (tail, head) in seen:
            continue
        seen.add((tail, head))
        arrows.append(Arrow(tail, head, arrow.style))
    return Model(model.kind, model.boxes[:keep] + [placeholder] + model.boxes[-keep:], arrows, hidden)


def collapse(model: Model) -> Model:
    """One box per group: a group's ops and tensors become a single box, named
    by the group and showing its last tensor's shape."""
    boxes: list[Box] = []
    members: dict[str, str] = {}
    group_box: dict[str, Box] = {}
    for box in model.boxes:
        if box.group is None:
            boxes.append(box)
            continue
        if box.group not in group_box:
            group_box[box.group] = Box(f"g{len(group_box)}", "group", box.group, ref=box.ref)
            boxes.append(group_box[box.group])
        members[box.id] = group_box[box.group].id
        if box.kind != "op":
            group_box[box.group].shape = box.shape
    arrows, seen = [], set()
    for arrow in model.arrows:
        tail, head = members.get(arrow.tail, arrow.tail), members.get(arrow.head, arrow.head)
        if tail != head and (tail, head) not in seen:
            seen.add((tail, head))
            arrows.append(Arrow(tail, head, arrow.style))
    return Model(model.kind, boxes, arrows, model.hidden)


def matches(box: Box, wanted: Iterable) -> bool:
    """Does `box` stand for one of the tensors or nodes to highlight?

    A node is drawn as its op (forward) or itself (backward); an AccumulateGrad
    node also lights up its leaf. A tensor is drawn as its own box; one whose
    object the drawing never saw is found through its grad_fn."""
    for item in wanted:
        if isinstance(item, Node):
            if box.ref is item and box.kind in ("op", "grad_fn", "accumulate", "group"):
                return True
            if type(item) is AccumulateGrad and box.kind == "param" and box.ref is item.variable:
                return True
        elif isinstance(item, Tensor):
            if box.ref is item and box.kind != "op":
                return True
            if item._grad_fn is not None and box.ref is item._grad_fn and box.kind in ("tensor", "root"):
                return True
    return False
