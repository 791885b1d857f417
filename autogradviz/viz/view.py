"""`agv.draw(...)` and the GraphView it returns."""

from __future__ import annotations

import base64
import html
import json
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import graphviz

from ..core.protocol import AUTOGRADVIZ, GraphNode, GraphTensors, reader_for
from ..ui_text import resolve_language
from ..ui_text import text as ui_text
from . import dot, model, render
from . import model as graph_model
from .labels import VALUES, remembered_rows
from .modules import module_groups, module_layers
from .names import resolve_names

KINDS = ("forward", "backward", "both")

# JupyterLab at 1280 px with its file browser open leaves an output about 850 px:
# a drawing that fits this, readably, fits a classroom laptop
OUTPUT_WIDTH_PX = 850
# a drawing is shrunk to its output's width, but never so far that its smallest
# text is under this; past that, it keeps this size and scrolls sideways
MIN_TEXT_PX = 8
# a network is drawn by layers when its ops, shrunk to the narrowest classroom output (JupyterLab
# at 1024 px with its file browser open), would need text smaller than LAYER_TEXT_PX
LAYER_FIT_PX = 590
LAYER_TEXT_PX = 10
# Graphviz measures in points; CSS has 96 px to 72 pt
PX_PER_PT = 4 / 3

_SVG_SIZE = re.compile(r'<svg\b[^>]*?\swidth="([\d.]+)pt"\s+height="([\d.]+)pt"')
_TEXT = re.compile(r"<text\b([^>]*)>([^<]*)</text>")
_FONT_SIZE = re.compile(r'font-size="([\d.]+)"')


@dataclass(frozen=True)
class DrawingSize:
    """A drawing's natural size in CSS px, and the size of its smallest text."""

    width_px: float
    height_px: float
    smallest_font_px: float

    @classmethod
    def of(cls, svg: str) -> DrawingSize:
        width, height = (float(v) * PX_PER_PT for v in _SVG_SIZE.search(svg).groups())
        # blank cells (the legend's swatches) hold a space: they are not text anyone reads
        sizes = [
            float(found.group(1)) * PX_PER_PT
            for attrs, content in _TEXT.findall(svg)
            if content.strip() and (found := _FONT_SIZE.search(attrs))
        ]
        return cls(width, height, min(sizes, default=MIN_TEXT_PX))

    @property
    def readable_width_px(self) -> float:
        """The narrowest the drawing may be shown: where its smallest text is MIN_TEXT_PX."""
        return self.narrowest_px(MIN_TEXT_PX)

    def narrowest_px(self, min_text_px: float) -> float:
        """The narrowest the drawing may be shown with its smallest text still min_text_px."""
        return min(self.width_px, self.width_px * min_text_px / self.smallest_font_px)


def fitted_picture_html(svg: str, alt: str, min_text_px: float = MIN_TEXT_PX, direction: str = "ltr") -> str:
    """An SVG as an <img> (a data: URL) that shrinks to its output's width, but
    not so far that its smallest text goes under min_text_px: from there its box
    scrolls sideways. direction="rtl" opens that box scrolled to the right end.

    An <img>, because that is what an untrusted notebook still shows: JupyterLab's
    sanitizer drops inline <svg> and <script> there, but keeps <img> and inline styles.
    """
    size = DrawingSize.of(svg)
    width, height = math.ceil(size.width_px), math.ceil(size.height_px)
    # one px more than the exact limit: the smallest text must not come out at 7.99 px
    readable = min(width, math.ceil(size.narrowest_px(min_text_px)) + 1)
    picture = base64.b64encode(svg.encode("utf-8")).decode("ascii")
    return (
        f'<div class="agv-drawing" style="max-width:100%;overflow-x:auto;overflow-y:hidden;'
        f'direction:{direction};text-align:left">'
        f'<img class="agv-drawing-picture" alt="{html.escape(alt, quote=True)}" width="{width}" '
        f'height="{height}" style="direction:ltr;width:{width}px;max-width:100%;min-width:{readable}px;'
        f'height:auto;vertical-align:top" src="data:image/svg+xml;base64,{picture}"></div>'
    )


class GraphView:
    """A drawing of a computation graph. In Jupyter it shows itself as SVG,
    shrunk to fit the output while its text stays readable; `.source` is its
    DOT text, `.svg()` the picture, `.html()` the page fragment, `.save(path)` a file."""

    def __init__(
        self,
        digraph: graphviz.Digraph,
        kind: str,
        nodes: int,
        edges: int,
        hidden: int = 0,
        boxes=(),
        *,
        language: str | None = None,
        svg: str | None = None,
    ):
        self.digraph = digraph
        # (SVG element id, Box) for every drawn node: the stepper restyles them by id
        self.boxes = list(boxes)
        self.kind = kind
        self.nodes = nodes
        self.edges = edges
        self.hidden = hidden
        self.language = resolve_language(language)
        self._svg = svg
        # a network drawn by layers: SVG id -> the Layer (viz/modules.py) each module box stands for
        self.layers: dict = {}
        self.opened: list[str] = []  # the keys of the layers drawn open (expand=)
        self.layer_of: dict = {}  # backward node -> its Layer, for every node made inside a module
        # html() shrinks the picture to its output until its smallest text is this (a network
        # drawn by layers: LAYER_TEXT_PX; past it, the picture scrolls, with its zoom button)
        self.min_text_px = MIN_TEXT_PX

    @property
    def source(self) -> str:
        return self.digraph.source

    @property
    def rankdir(self) -> str:
        """The direction the drawing is laid out in: LR, RL, TB or BT."""
        found = re.search(r"\brankdir=(\w+)", self.source)
        return found.group(1) if found else "TB"  # Graphviz's default

    def svg(self) -> str:
        if self._svg is None:
            self._svg = render.render_svg(self.source)
        return self._svg

    def size(self) -> DrawingSize:
        return DrawingSize.of(self.svg())

    @property
    def layered(self) -> bool:
        """Is this a network drawn by layers (one box per module call)?"""
        return bool(self.layers)

    def fits(self, width_px: float, min_text_px: float) -> bool:
        """Can the drawing be shrunk to width_px with its smallest text still min_text_px?
        (True when no renderer can lay it out: there is nothing to measure.)"""
        try:
            return self.size().narrowest_px(min_text_px) <= width_px
        except render.RendererError:
            return True

    def html(self) -> str:
        """The drawing as an HTML fragment that needs no kernel and no script:
        fitted_picture_html(), shrunk to its output down to MIN_TEXT_PX text. A
        forward graph drawn left to right has its output at the right: its box is
        right-to-left, so it opens scrolled to the root. A small script (trusted
        outputs only) adds a zoom button.
        """
        width = math.ceil(self.size().width_px)
        direction = "rtl" if self.kind == "forward" and self.rankdir == "LR" else "ltr"
        words = {key: ui_text(f"draw.zoom_{key}", self.language) for key in ZOOM_WORDS}
        script = _ZOOM_SCRIPT.replace("WORDS", json.dumps(words, ensure_ascii=True)).replace(
            "WIDTH", str(width)
        )
        picture = fitted_picture_html(self.svg(), self.summary(), self.min_text_px, direction)
        return f"{picture}<script>{script}</script>"

    def save(self, path: str | Path) -> Path:
        """Write .svg, .png, .html (a page that shows the drawing), or the DOT
        source (.dot, .gv), by the file's suffix."""
        path = Path(path)
        suffix = path.suffix.lower()
        if suffix == ".svg":
            path.write_text(self.svg(), encoding="utf-8")
        elif suffix == ".png":
            path.write_bytes(render.render_png(self.source, render.svg_texts(self.svg())))
        elif suffix in (".html", ".htm"):
            lang = "zh-Hans" if self.language == "zh" else "en"
            page = (
                f'<!DOCTYPE html>\n<html lang="{lang}"><head><meta charset="utf-8">'
                '<meta name="viewport" content="width=device-width, initial-scale=1">'
                f"<title>{html.escape(self.summary())}</title></head>\n"
                f'<body style="margin:16px;font-family:sans-serif">{self.html()}</body></html>\n'
            )
            path.write_text(page, encoding="utf-8")
        elif suffix in (".dot", ".gv"):
            path.write_text(self.source, encoding="utf-8")
        else:
            raise ValueError(f"save: unknown file type {suffix!r}; use .svg, .png, .html, .dot or .gv")
        return path

    def summary(self) -> str:
        language = self.language
        hidden = ui_text("draw.summary_hidden", language, count=f"{self.hidden:,}") if self.hidden else ""
        kind = ui_text(f"draw.kind.{self.kind}", language)
        return ui_text("draw.summary", language, nodes=self.nodes, edges=self.edges, kind=kind, hidden=hidden)

    __repr__ = summary

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        # text/html for JupyterLab, Notebook 7, Voila and nbconvert (trusted or
        # not); image/svg+xml for viewers that skip HTML; text/plain is short
        # and has no memory address, so nbval can compare it
        return {"text/html": self.html(), "image/svg+xml": self.svg(), "text/plain": self.summary()}


ZOOM_WORDS = ("actual", "fit", "whole", "readable")

# Runs only where outputs may run scripts (a trusted notebook, Voila, a saved
# page); without it the drawing already has its right size. A button appears
# when the drawing was shrunk ("Actual size") or still scrolls ("Show the whole
# drawing"), and switches back. WORDS and WIDTH are filled in by GraphView.html().
_ZOOM_SCRIPT = """
(function (script) {
  var box = script && script.previousElementSibling;
  if (!box || !box.classList.contains("agv-drawing") || box.dataset.agvZoom) return;
  box.dataset.agvZoom = "1";
  var img = box.querySelector("img"), words = WORDS, width = WIDTH, mode = "auto";
  var readable = img.style.minWidth;
  var button = document.createElement("button");
  button.type = "button";
  button.className = "agv-zoom";
  button.style.cssText = "display:none;font-size:12px;margin:0 0 4px 0;padding:2px 8px;cursor:pointer";
  box.parentNode.insertBefore(button, box);
  function show() {
    img.style.minWidth = mode === "whole" ? "0px" : mode === "actual" ? width + "px" : readable;
    img.style.maxWidth = mode === "actual" ? "none" : "100%";
    var label = null;
    if (mode === "whole") label = words.readable;
    else if (mode === "actual") label = words.fit;
    else if (box.scrollWidth > box.clientWidth + 1) label = words.whole;
    else if (img.clientWidth < width - 1) label = words.actual;
    button.style.display = label ? "inline-block" : "none";
    button.textContent = label || "";
  }
  button.addEventListener("click", function () {
    if (mode !== "auto") mode = "auto";
    else mode = box.scrollWidth > box.clientWidth + 1 ? "whole" : "actual";
    show();
  });
  if (window.ResizeObserver) new ResizeObserver(function () { if (mode === "auto") show(); }).observe(box);
  img.addEventListener("load", show);
  show();
})(document.currentScript);
"""


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
    values: str = "auto",
    rankdir: str = "auto",
    max_nodes: int = 500,
    highlight: Iterable | None = None,
    legend: bool = True,
    group: Callable | None = None,
    collapse: bool = False,
    model: object | None = None,
    layers: bool | str = "auto",
    expand: bool | Iterable[str] | None = None,
    language: str | None = None,
    fit_width_px: float = OUTPUT_WIDTH_PX,
    min_text_px: float = MIN_TEXT_PX,
) -> GraphView:
    """Draw the graph that produced `roots`.

    kind: "forward" (tensors and ops), "backward" (grad_fn nodes, as backward
    walks them) or "both", side by side. names: by default, tensors are
    labelled with the names of the caller's variables that hold them (a
    notebook's too), and an nn module among those variables names its
    parameters by path (`0.weight`); when several names fit one tensor, a
    variable beats a path, a local beats a global, then the shortest name,
    then the first alphabetically (names starting with "_" are skipped; the
    full rule: `agv.viz.names.resolve_names`). names= a mapping such as
    `locals()`, or (name, tensor) pairs, gives the names instead;
    names=False turns the automatic names off. highlight: tensors or nodes to
    emphasise. group: a function from a backward node to a group name (or
    None): each group is boxed, or drawn as one node with collapse=True.
    model: an nn module whose parameters are named as in `named_parameters()`
    (`names=` may also be those (name, tensor) pairs themselves).
    values: "auto" (a tensor of more than 6 elements shows a one-line summary,
    min · mean · max, or a gradient's norm, and a small heatmap of its block
    means; smaller ones their numbers) or "full" (the numbers of every tensor).
    rankdir: "auto" (left to right, or top to bottom when a long graph would
    not fit a notebook readably), or Graphviz's LR, RL, TB, BT.
    fit_width_px, min_text_px: what "auto" fits: left to right if the drawing,
    shrunk to fit_width_px, keeps its text at min_text_px or more (the
    BackwardStepper, which cannot scroll, asks for 590 px and 10 px).
    layers: a graph made by nn modules is drawn as one box per layer (module
    call) when its ops would not fit a 590 px output (JupyterLab at 1024 px with
    the file browser open) with text of 10 px or more, left to right or top to bottom
    ("auto"); True always, False never. Each layer's box shows its name, type,
    output shape and, once backward has run, its parameters' gradient norm.
    expand: layers to draw open, their ops in place ("1", "features.3"; a module
    called several times opens every call, "cell[2]" one), or True for all.
    language: "en" or "zh" for the legend and notes (default: agv.set_language's).
    """
    if kind not in KINDS:
        raise ValueError(f"draw: kind must be one of {', '.join(KINDS)}, not {kind!r}")
    if rankdir not in ("auto", "LR", "RL", "TB", "BT"):
        raise ValueError(f"draw: rankdir must be auto, LR, RL, TB or BT, not {rankdir!r}")
    if not isinstance(values, str) or values not in VALUES:
        raise ValueError(f'draw: values must be "auto" or "full", not {values!r}')
    language = resolve_language(language)
    tensors, reader = _roots(roots)
    names = resolve_names(names, model, reader=reader, roots=tensors)
    models = (model,) if model is not None and callable(getattr(model, "named_modules", None)) else ()
    model = graph_model  # `model=` was the learner's nn module: from here on, `model` is viz/model.py
    # one item (a tensor would otherwise be iterated over, row by row)
    if reader.is_tensor(highlight) or isinstance(highlight, GraphNode):
        highlight = [highlight]
    highlight = list(highlight) if highlight is not None else []
    if group == "module":  # box each nn module's ops, named by its place in the model
        group = module_groups(model.root_nodes(tensors, reader)).get
    elif group is not None and not callable(group):
        raise ValueError(f'draw: group must be a function or "module", not {group!r}')
    if layers not in ("auto", True, False):
        raise ValueError(f'draw: layers must be "auto", True or False, not {layers!r}')
    layer_of = {}
    if group is None and not collapse and kind == "forward" and (layers is not False or expand):
        layer_of = module_layers(model.root_nodes(tensors, reader), models)
    elif expand:
        raise ValueError(
            'draw: expand= opens layers of a network drawn by layers (kind="forward", no group=)'
        )

    def drawing(group=group, collapse=collapse, opened=None, fit=(fit_width_px, min_text_px)) -> GraphView:
        return _drawing(
            tensors, reader, names, kind, group, collapse, opened, layer_of, show_saved, values, max_nodes,
            highlight, legend, show_data, show_grad, show_shape, rankdir, *fit, language,
        )  # fmt: skip

    with remembered_rows():  # a layer view redraws the arrays of the op view it replaces
        return _by_layers_or_ops(drawing, layer_of, layers, expand, rankdir, fit_width_px, min_text_px)


def _by_layers_or_ops(
    drawing: Callable, layer_of: dict, layers, expand, rankdir, fit_width_px, min_text_px
) -> GraphView:
    """The ops, or one box per layer (see draw's `layers` and `expand`)."""
    if not layer_of:
        if expand and expand is not True:
            raise ValueError(f"draw: expand={expand!r} names no layer: no nn module made this graph")
        return drawing()
    by_layer = {node: layer.label for node, layer in layer_of.items()}.get
    if expand is True:  # every layer open: each module's ops in a labelled frame
        return drawing(by_layer, False, opened=set(layer_of.values()))
    if expand or layers is True:
        return drawing(by_layer, True, opened=_opened(expand or (), layer_of))
    narrow = (min(fit_width_px, LAYER_FIT_PX), max(min_text_px, LAYER_TEXT_PX))
    ops = drawing()
    if ops.fits(*narrow):
        return ops
    if rankdir == "auto" and ops.rankdir == "LR":  # laid out for the narrow output, top to bottom may fit
        down = drawing(fit=narrow)
        if down.fits(*narrow):
            return down
    return drawing(by_layer, True, opened=set())


def _opened(keys, layer_of: dict) -> set:
    """The layers `expand=` names: "features.3", or "cell" for every call of a module called
    several times ("cell[2]" for one of them)."""
    if isinstance(keys, str):
        keys = [keys]
    layers = sorted(set(layer_of.values()), key=lambda layer: layer.key)
    opened = set()
    for key in keys:
        found = [layer for layer in layers if layer.key == key or layer.key.startswith(f"{key}[")]
        if not found:
            known = ", ".join(repr(layer.key) for layer in layers)
            raise ValueError(f"draw: expand={key!r} names no layer of this graph; its layers are {known}")
        opened.update(found)
    return opened


def _drawing(
    tensors, reader, names, kind, group, collapse, opened, layer_of, show_saved, values, max_nodes,
    highlight, legend, show_data, show_grad, show_shape, rankdir, fit_width_px, min_text_px, language,
) -> GraphView:  # fmt: skip
    """Lay out one drawing of the graph: draw()'s work once its options are checked."""
    model = graph_model
    views = []
    if kind in ("forward", "both"):
        views.append(model.forward_model(tensors, names, group, reader, language, values))
    if kind in ("backward", "both"):
        views.append(model.backward_model(tensors, names, show_saved, reader, language, values))
    nodes = edges = hidden = 0
    boxes = []
    drawn = []  # (model, id prefix, highlighted box ids)
    layered = opened is not None
    for view in views:
        if collapse and view.kind == "forward":
            view = model.collapse(view, opened_groups={layer.label for layer in opened or ()})
            if layered:
                model.describe_layers(view, layer_of, reader, language)
        view = model.elide(view, max_nodes, language)
        if view.kind == "forward":
            view = model.split_shared_leaves(view, language=language)
        _trim(view, show_data, show_grad, show_shape)
        nodes, edges, hidden = nodes + len(view.boxes), edges + len(view.arrows), hidden + view.hidden
        prefix = view.kind[0] + "_" if kind == "both" else ""
        boxes.extend((f"agv-{prefix}{box.id}", box) for box in view.boxes)
        highlighted = {box.id for box in view.boxes if highlight and model.matches(box, highlight, reader)}
        drawn.append((view, prefix, highlighted))
    legend_kinds = None
    if legend:
        legend_kinds = dot.LEGEND if kind != "backward" else dot.BACKWARD_LEGEND
        if not show_saved:
            legend_kinds = tuple(k for k in legend_kinds if k[0] != "saved")
        if kind == "both":
            legend_kinds = dot.LEGEND + dot.BACKWARD_LEGEND[1:3]
        if layered:
            legend_kinds = legend_kinds + (("group", "draw.legend.layer"),)

    def digraph(direction: str) -> graphviz.Digraph:
        return _digraph(drawn, kind, direction, legend_kinds, language)

    svg = None
    if rankdir == "auto":
        rankdir, svg = _choose_rankdir(digraph, fit_width_px, min_text_px)
    graph = digraph(rankdir)
    view = GraphView(graph, kind, nodes, edges, hidden, boxes, language=language, svg=svg)
    if layered:
        view.layers = {svg_id: box.ref for svg_id, box in boxes if box.kind == "group"}
        view.opened = sorted(layer.key for layer in opened)
        view.layer_of = layer_of
        view.min_text_px = max(min_text_px, LAYER_TEXT_PX)
    return view


def _digraph(drawn: list, kind: str, rankdir: str, legend_kinds, language: str) -> graphviz.Digraph:
    """The DOT of the prepared views, laid out in direction `rankdir`."""
    graph = dot.new_digraph(rankdir)
    for view, prefix, highlighted in drawn:
        if kind == "both":
            with graph.subgraph(name=f"cluster_{view.kind}") as cluster:
                arrow = {"LR": "→", "RL": "←", "TB": "↓", "BT": "↑"}[rankdir]
                title = ui_text(f"draw.{view.kind}_title", language, arrow=arrow)
                cluster.attr(label=title, style="rounded", color="#cccccc", fontsize="13")
                dot.add_model(cluster, view, prefix, highlighted)
        else:
            dot.add_model(graph, view, "", highlighted)
    if kind == "both":
        _side_by_side(graph, [view for view, _, _ in drawn])
    if legend_kinds:
        graph.attr(label=dot.legend_label(legend_kinds, language), labelloc="b", labeljust="l")
    return graph


def _choose_rankdir(
    digraph: Callable[[str], graphviz.Digraph],
    fit_width_px: float = OUTPUT_WIDTH_PX,
    min_text_px: float = MIN_TEXT_PX,
) -> tuple[str, str | None]:
    """rankdir="auto": left to right, as code reads, if that fits a classroom
    notebook's output (fit_width_px) with its text still min_text_px; else top
    to bottom when that is narrower (a long chain becomes a column that
    scrolls down, not a row thousands of pixels wide). Returns the direction
    and its SVG, so the drawing is not laid out twice. With no renderer at all
    the DOT is still made (left to right); `.svg()` then says how to get one."""
    try:
        svg = render.render_svg(digraph("LR").source)
    except render.RendererError:
        return "LR", None
    across = DrawingSize.of(svg)
    if across.narrowest_px(min_text_px) <= fit_width_px:
        return "LR", svg
    down_svg = render.render_svg(digraph("TB").source)
    if DrawingSize.of(down_svg).width_px < across.width_px:
        return "TB", down_svg
    return "LR", svg


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
