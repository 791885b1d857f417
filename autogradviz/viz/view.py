"""`agv.draw(...)` and the GraphView it returns."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

import graphviz

from ..core.protocol import AUTOGRADVIZ, GraphNode, GraphTensors, reader_for
from . import dot, model, render
from .modules import module_groups

KINDS = ("forward", "backward", "both")


class GraphView:
    """A drawing of a computation graph. In Jupyter it shows itself as SVG;
    `.source` is its DOT text, `.svg()` the picture, `.save(path)` a file."""

    def __init__(
        self, digraph: graphviz.Digraph, kind: str, nodes: int, edges: int, hidden: int = 0, boxes=()
    ):
        self.digraph = digraph
        # (SVG element id, Box) for every drawn node: the stepper restyles them by id
        self.boxes = list(boxes)
        self.kind = kind
        self.nodes = nodes
        self.edges = edges
        self.hidden = hidden
        self._svg: str | None = None

    @property
    def source(self) -> str:
        return self.digraph.source

    def svg(self) -> str:
        if self._svg is None:
            self._svg = render.render_svg(self.source)
        return self._svg

    def save(self, path: str | Path) -> Path:
        """Write .svg, .png, or the DOT source (.dot, .gv), by the file's suffix."""
        path = Path(path)
        suffix = path.suffix.lower()
        if suffix == ".svg":
            path.write_text(self.svg(), encoding="utf-8")
        elif suffix == ".png":
            path.write_bytes(render.render_png(self.source))
        elif suffix in (".dot", ".gv"):
            path.write_text(self.source, encoding="utf-8")
        else:
            raise ValueError(f"save: unknown file type {suffix!r}; use .svg, .png, .dot or .gv")
        return path

    def summary(self) -> str:
        hidden = f", {self.hidden:,} hidden" if self.hidden else ""
        return f"<autogradviz graph: {self.nodes} nodes, {self.edges} edges ({self.kind}){hidden}>"

    __repr__ = summary

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        # text/plain is short and has no memory address, so nbval can compare it
        return {"image/svg+xml": self.svg(), "text/plain": self.summary()}


def _roots(roots) -> tuple[list, GraphTensors]:
    """The tensors to draw, flattened, and the reader for their library."""
    flat: list = []
    for root in roots:
        flat.extend(root if isinstance(root, (list, tuple)) else [root])
    if not flat:
        raise TypeError("draw: give at least one tensor to draw, for example agv.draw(loss)")
    reader = reader_for(flat[0]) or AUTOGRADVIZ
    for root in flat:
        if not reader.is_tensor(root):
            raise TypeError(f"draw: expected tensors to draw, got {type(root).__name__}")
    return flat, reader


def draw(
    *roots,
    kind: str = "forward",
    names: Mapping | None = None,
    show_data: bool = True,
    show_grad: bool = True,
    show_shape: bool = True,
    show_saved: bool = False,
    rankdir: str = "LR",
    max_nodes: int = 500,
    highlight: Iterable | None = None,
    legend: bool = True,
    group: Callable | None = None,
    collapse: bool = False,
) -> GraphView:
    """Draw the graph that produced `roots`.

    kind: "forward" (tensors and ops), "backward" (grad_fn nodes, as backward
    walks them) or "both", side by side. names: a mapping such as `locals()`,
    to label tensors with your variable names. highlight: tensors or nodes to
    emphasise. group: a function from a backward node to a group name (or
    None): each group is boxed, or drawn as one node with collapse=True.
    """
    if kind not in KINDS:
        raise ValueError(f"draw: kind must be one of {', '.join(KINDS)}, not {kind!r}")
    if rankdir not in ("LR", "RL", "TB", "BT"):
        raise ValueError(f"draw: rankdir must be LR, RL, TB or BT, not {rankdir!r}")
    tensors, reader = _roots(roots)
    # one item (a tensor would otherwise be iterated over, row by row)
    if reader.is_tensor(highlight) or isinstance(highlight, GraphNode):
        highlight = [highlight]
    highlight = list(highlight) if highlight is not None else []
    if group == "module":  # box each nn module's ops, named by its place in the model
        group = module_groups(model.root_nodes(tensors, reader)).get
    elif group is not None and not callable(group):
        raise ValueError(f'draw: group must be a function or "module", not {group!r}')

    views = []
    if kind in ("forward", "both"):
        views.append(model.forward_model(tensors, names, group, reader))
    if kind in ("backward", "both"):
        views.append(model.backward_model(tensors, names, show_saved, reader))
    graph = dot.new_digraph(rankdir)
    nodes = edges = hidden = 0
    boxes = []
    for view in views:
        if collapse and view.kind == "forward":
            view = model.collapse(view)
        view = model.elide(view, max_nodes)
        if view.kind == "forward":
            view = model.split_shared_leaves(view)
        _trim(view, show_data, show_grad, show_shape)
        nodes, edges, hidden = nodes + len(view.boxes), edges + len(view.arrows), hidden + view.hidden
        prefix = view.kind[0] + "_" if kind == "both" else ""
        boxes.extend((f"agv-{prefix}{box.id}", box) for box in view.boxes)
        highlighted = {box.id for box in view.boxes if highlight and model.matches(box, highlight, reader)}
        if kind == "both":
            with graph.subgraph(name=f"cluster_{view.kind}") as cluster:
                title = "forward: values flow →" if view.kind == "forward" else "backward: gradients flow →"
                cluster.attr(label=title, style="rounded", color="#cccccc", fontsize="13")
                dot.add_model(cluster, view, prefix, highlighted)
        else:
            dot.add_model(graph, view, "", highlighted)
    if kind == "both":
        _side_by_side(graph, views)
    if legend:
        kinds = dot.LEGEND if kind != "backward" else dot.BACKWARD_LEGEND
        if not show_saved:
            kinds = tuple(k for k in kinds if k[0] != "saved")
        if kind == "both":
            kinds = dot.LEGEND + dot.BACKWARD_LEGEND[1:3]
        graph.attr(label=dot.legend_label(kinds), labelloc="b", labeljust="l")
    return GraphView(graph, kind, nodes, edges, hidden, boxes)


def _side_by_side(graph: graphviz.Digraph, views: list[model.Model]) -> None:
    """An invisible edge from the forward picture's root to the backward one's
    puts the backward picture to the right: values flow, then gradients."""
    forward_roots = [b.id for b in views[0].boxes if b.kind == "root"]
    backward_roots = [b.id for b in views[1].boxes if b.kind == "root"]
    if forward_roots and backward_roots:
        graph.edge(f"f_{forward_roots[0]}", f"b_{backward_roots[0]}", style="invis", weight="10")


def _trim(view: model.Model, show_data: bool, show_grad: bool, show_shape: bool) -> None:
    for box in view.boxes:
        if not show_data:
            box.data = None
        if not show_grad:
            box.grad = None
        if not show_shape:
            box.shape = ""
