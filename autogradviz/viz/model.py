"""Read the autograd graph into something drawable.

Two views of the same graph:

- forward: tensors and the ops between them, as the learner wrote the code;
- backward: the `grad_fn` nodes that `backward()` walks, down `next_functions`
  to one `AccumulateGrad` per leaf.

This module only reads the graph, through the graph API of core/protocol.py
(`tensors` reads the tensors, and the nodes are `GraphNode`s). Node ids are
given in a fixed walk order (`t0`, `op0`, `fn0`, ...), never from `id()`, so
the same graph always gives the same drawing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

from ..core.protocol import AUTOGRADVIZ, GraphNode, GraphTensors, Namer
from ..core.protocol import collect_names as collect_names  # its home was here: kept importable
from ..engine import topological_order
from ..ui_text import text as ui_text
from .labels import brief_number, l2_norm, shape_and_dtype, value_row


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
    # a big tensor's heatmaps (labels.Glyph: rows of "#rrggbb" cells and a tooltip), drawn
    # under its data and grad rows; None: the row shows its numbers (values="full", <= 6 items)
    glyph: tuple | None = None
    grad_glyph: tuple | None = None


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
    # after collapse(): a group box's id -> the boxes it stands for
    members: dict[str, list[Box]] = field(default_factory=dict)


def root_nodes(roots: list, tensors: GraphTensors = AUTOGRADVIZ) -> list[GraphNode]:
    """The node each root's gradient starts at (roots that need no gradient have none)."""
    return [tensors.node(t) for t in roots if tensors.requires_grad(t)]


def forward_model(
    roots: list,
    names: Mapping | None,
    group: Callable | None = None,
    tensors: GraphTensors = AUTOGRADVIZ,
    language: str | None = None,
    values: str = "auto",
) -> Model:
    namer = Namer(roots, names, tensors)
    model = Model("forward")
    entity_ids: dict[object, str] = {}
    counters = {"t": 0, "op": 0}

    def new_id(prefix: str) -> str:
        counters[prefix] += 1
        return f"{prefix}{counters[prefix] - 1}"

    def tensor_box(key, kind: str, array, tensor, node: GraphNode | None, group_name=None) -> str:
        if key in entity_ids:
            return entity_ids[key]
        box_id = entity_ids[key] = new_id("t")
        title = namer.name(tensor, node) or ""
        grad = None if tensor is None else tensors.grad(tensor)
        data_text, glyph = value_row(array, values, language)
        grad_text, grad_glyph = (None, None) if grad is None else value_row(grad, values, language, grad=True)
        model.boxes.append(
            Box(
                box_id,
                kind,
                title,
                shape_and_dtype(array, language=language)
                if array is not None
                else _shape_of_freed(node, language),
                data_text,
                grad_text,
                tensor if tensor is not None else node,
                group_name,
                glyph,
                grad_glyph,
            )
        )
        return box_id

    order = topological_order(root_nodes(roots, tensors))
    for node in reversed(order):  # forward order: inputs before the ops that use them
        if node.variable is not None:  # a leaf's accumulating node: the leaf is drawn
            leaf = node.variable
            leaf_group = group(node) if group is not None else None
            tensor_box(("leaf", id(leaf)), "param", tensors.value(leaf), leaf, None, leaf_group)
            continue
        group_name = group(node) if group is not None else None
        inputs = []
        for child, value in zip(node.edges, node.constants):
            if child is None:
                if isinstance(value, np.ndarray):  # a constant joins the group of the op using it
                    const = _tensor_with_data(namer, value)
                    key = ("const", id(value))
                    inputs.append(
                        tensor_box(
                            key, "input", value, const, None, None if const is not None else group_name
                        )
                    )
            elif child.variable is not None:
                leaf = child.variable
                inputs.append(tensor_box(("leaf", id(leaf)), "param", tensors.value(leaf), leaf, None))
            else:
                inputs.append(entity_ids[("out", child)])
        op_id = new_id("op")
        model.boxes.append(Box(op_id, "op", node.label, ref=node, group=group_name))
        model.arrows.extend(Arrow(tail, op_id) for tail in inputs)
        out = namer.tensor_of(node)
        # backward frees the node's copy, not the data of a tensor the learner still holds
        data = tensors.value(out) if out is not None else node.output
        out_id = tensor_box(("out", node), "tensor", data, out, node, group_name)
        model.arrows.append(Arrow(op_id, out_id))

    for root in roots:
        if tensors.grad_fn(root) is not None:
            key = ("out", tensors.grad_fn(root))
        elif tensors.requires_grad(root):
            key = ("leaf", id(root))
        else:
            key = ("const", id(tensors.value(root)))
        if key not in entity_ids:  # a root with no graph: a lone tensor
            tensor_box(key, "input", tensors.value(root), root, None)
        for box in model.boxes:
            if box.id == entity_ids[key]:
                box.kind = "root"
                box.ref = root
                box.title = box.title or namer.name(root) or ""
                if tensors.grad(root) is not None:
                    box.grad, box.grad_glyph = value_row(tensors.grad(root), values, language, grad=True)
    return model


def _tensor_with_data(namer: Namer, array: np.ndarray):
    for t in namer.tensors:
        if namer.reader.value(t) is array:
            return t
    return None


def _shape_of_freed(node: GraphNode | None, language: str | None = None) -> str:
    """A freed intermediate's shape and dtype where its node still knows them
    (`output_meta`, optional in the graph API), else just "(intermediate)"."""
    meta = getattr(node, "output_meta", None) if node is not None else None
    if meta is None:
        return "" if node is None else ui_text("draw.freed_shape", language)
    return shape_and_dtype(None, *meta, language=language)


_SOURCE_NAMES = ("self", "other", "third")


def _saved_name(node: GraphNode, source, namer: Namer, language: str | None = None) -> str:
    """What a saved value is: the op's result, or input i, by its name if known."""
    if source == "output":
        return ui_text("draw.saved_result", language)
    if source is None:  # not an input: an index, a mask, im2col columns...
        return ui_text("draw.saved_value", language)
    child = node.edges[source]
    name = None
    if child is not None and child.variable is not None:
        name = namer.name(child.variable)
    elif child is not None:
        name = namer.name(namer.tensor_of(child), child)
    elif isinstance(node.constants[source], np.ndarray):
        name = namer.name(_tensor_with_data(namer, node.constants[source]))
    # self, other: PyTorch's names for an op's inputs (its `_saved_self`), so not translated
    return name or (
        _SOURCE_NAMES[source] if source < 3 else ui_text("draw.saved_input", language, index=source)
    )


def backward_model(
    roots: list,
    names: Mapping | None,
    show_saved: bool = False,
    tensors: GraphTensors = AUTOGRADVIZ,
    language: str | None = None,
    values: str = "auto",
) -> Model:
    namer = Namer(roots, names, tensors)
    model = Model("backward")
    order = topological_order(root_nodes(roots, tensors))
    fn_ids = {node: f"fn{i}" for i, node in enumerate(order)}
    saved_count = 0
    for i, root in enumerate(roots):
        if not tensors.requires_grad(root):
            continue
        root_id = f"r{i}"
        grad = tensors.grad(root)
        data_text, glyph = value_row(tensors.value(root), values, language)
        grad_text, grad_glyph = (None, None) if grad is None else value_row(grad, values, language, grad=True)
        model.boxes.append(
            Box(
                root_id,
                "root",
                namer.name(root) or "",
                shape_and_dtype(tensors.value(root), language=language),
                data_text,
                grad_text,
                root,
                glyph=glyph,
                grad_glyph=grad_glyph,
            )
        )
        model.arrows.append(Arrow(root_id, fn_ids[tensors.node(root)]))
    for node in order:
        node_id = fn_ids[node]
        if node.variable is not None:
            leaf = node.variable
            model.boxes.append(Box(node_id, "accumulate", node.name(), ref=node))
            leaf_id = f"leaf{node_id[2:]}"
            grad = tensors.grad(leaf)
            grad_text, grad_glyph = (
                (None, None) if grad is None else value_row(grad, values, language, grad=True)
            )
            model.boxes.append(
                Box(
                    leaf_id,
                    "param",
                    namer.name(leaf) or "",
                    shape_and_dtype(tensors.value(leaf), language=language),
                    None,
                    grad_text,
                    leaf,
                    grad_glyph=grad_glyph,
                )
            )
            model.arrows.append(Arrow(node_id, leaf_id, "leaf"))
            continue
        model.boxes.append(Box(node_id, "grad_fn", node.name(), ref=node))
        for child in node.edges:
            if child is not None:
                model.arrows.append(Arrow(node_id, fn_ids[child]))
        if show_saved:
            for value, source in node.saved_values:
                if not isinstance(value, np.ndarray):
                    continue
                label = ui_text("draw.saved", language, name=_saved_name(node, source, namer, language))
                saved_id = f"s{saved_count}"
                saved_count += 1
                shape = shape_and_dtype(value, language=language)
                data_text, glyph = value_row(value, values, language)
                model.boxes.append(Box(saved_id, "saved", label, shape, data_text, ref=node, glyph=glyph))
                model.arrows.append(Arrow(saved_id, node_id, "saved"))
    return model


def split_shared_leaves(model: Model, max_uses: int = 6, language: str | None = None) -> Model:
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
                same = ui_text("draw.same_tensor", language)
                copy = Box(f"{leaf.id}_{seen[leaf.id]}", leaf.kind, leaf.title, same, ref=leaf.ref)
                boxes.append(copy)
                arrow = Arrow(copy.id, arrow.head, arrow.style)
        arrows.append(arrow)
    for leaf in shared.values():
        leaf.shape = ui_text("draw.used_times", language, shape=leaf.shape, count=uses[leaf.id])
    return Model(model.kind, boxes, arrows, model.hidden)


def elide(model: Model, max_nodes: int, language: str | None = None) -> Model:
    """Keep the first and last max_nodes // 2 boxes (in walk order) and replace
    the middle by one placeholder box that says how many were hidden."""
    if len(model.boxes) <= max_nodes:
        return model
    keep = max(max_nodes // 2, 1)
    kept = model.boxes[:keep] + model.boxes[-keep:]
    kept_ids = {b.id for b in kept}
    hidden = len(model.boxes) - len(kept)
    placeholder = Box("hidden", "hidden", ui_text("draw.hidden_nodes", language, count=f"{hidden:,}"))
    arrows, seen = [], set()
    for arrow in model.arrows:
        tail = arrow.tail if arrow.tail in kept_ids else "hidden"
        head = arrow.head if arrow.head in kept_ids else "hidden"
        if tail == head == "hidden" or (tail, head) in seen:
            continue
        seen.add((tail, head))
        arrows.append(Arrow(tail, head, arrow.style))
    return Model(model.kind, model.boxes[:keep] + [placeholder] + model.boxes[-keep:], arrows, hidden)


def collapse(model: Model, opened_groups: set[str] = frozenset()) -> Model:
    """One box per group: a group's ops and tensors become a single box, named
    by the group and showing its last tensor's shape. The groups in
    `opened_groups` keep their boxes (drawn in a frame named by the group), and
    an output (root) box is never hidden inside a group."""
    boxes: list[Box] = []
    members: dict[str, str] = {}
    group_box: dict[str, Box] = {}
    for box in model.boxes:
        if box.group is None or box.group in opened_groups:
            boxes.append(box)
            continue
        if box.kind == "root":
            box.group = None
            boxes.append(box)
            continue
        if box.group not in group_box:
            group_box[box.group] = Box(f"g{len(group_box)}", "group", box.group, ref=box.ref)
            boxes.append(group_box[box.group])
        members[box.id] = group_box[box.group].id
        model.members.setdefault(group_box[box.group].id, []).append(box)
        if box.kind != "op":
            group_box[box.group].shape = box.shape
    arrows, seen = [], set()
    for arrow in model.arrows:
        tail, head = members.get(arrow.tail, arrow.tail), members.get(arrow.head, arrow.head)
        if tail != head and (tail, head) not in seen:
            seen.add((tail, head))
            arrows.append(Arrow(tail, head, arrow.style))
    return Model(model.kind, boxes, arrows, model.hidden, model.members)


def describe_layers(model: Model, layer_of: dict, tensors: GraphTensors, language: str | None) -> None:
    """Fill in each layer's box (after collapse): its name and type, its output's
    shape, and once backward has run, the norm of its parameters' gradients. The
    box then stands for its Layer (viz/modules.py)."""
    by_label = {layer.label: layer for layer in layer_of.values()}
    for box in model.boxes:
        layer = by_label.get(box.title) if box.kind == "group" else None
        if layer is None:
            continue
        box.ref = layer
        for member in model.members.get(box.id, ()):
            ref = member.ref
            made_by = tensors.grad_fn(ref) if tensors.is_tensor(ref) else ref
            if member.kind in ("tensor", "root") and made_by is layer.output:
                box.shape = ui_text("draw.layer_output", language, shape=member.shape)
        grads = [(name, tensors.grad(p)) for name, p in layer.parameters()]
        grads = [(name, g) for name, g in grads if g is not None]
        if grads:
            norm = l2_norm(*(g for _, g in grads))
            box.grad = ui_text(
                "draw.layer_grad_norm", language, norm=brief_number(norm), of=", ".join(n for n, _ in grads)
            )


def matches(box: Box, wanted: Iterable, tensors: GraphTensors = AUTOGRADVIZ) -> bool:
    """Does `box` stand for one of the tensors or nodes to highlight?

    A node is drawn as its op (forward) or itself (backward); an AccumulateGrad
    node also lights up its leaf. A tensor is drawn as its own box; one whose
    object the drawing never saw is found through its grad_fn."""
    for item in wanted:
        if tensors.is_tensor(item):
            if box.ref is item and box.kind != "op":
                return True
            grad_fn = tensors.grad_fn(item)
            if grad_fn is not None and box.ref is grad_fn and box.kind in ("tensor", "root"):
                return True
        elif isinstance(item, GraphNode):
            if box.ref is item and box.kind in ("op", "grad_fn", "accumulate", "group"):
                return True
            if item.variable is not None and box.kind == "param" and box.ref is item.variable:
                return True
    return False
