"""A drawable model to DOT, through the `graphviz` package's Digraph.

Every label is an HTML-like label built from escaped text (see labels.py),
and every id is one the model gave: no user string reaches the DOT unescaped.
"""

from __future__ import annotations

from collections import Counter

import graphviz

from ..ui_text import text as ui_text
from . import labels
from .labels import Glyph, text
from .model import Box, Model
from .render import LAYOUT_FONT
from .user_text import ELLIPSIS, LABEL_COLUMNS, displayable, shortened

# fill colours by kind: parameters amber, inputs blue, roots green, ops grey
STYLE = {
    "param": {"shape": "box", "style": "rounded,filled", "fillcolor": "#fde7a9", "color": "#b7950b"},
    "input": {"shape": "box", "style": "rounded,filled", "fillcolor": "#dbe8fb", "color": "#2e6fba"},
    "tensor": {"shape": "box", "style": "rounded,filled", "fillcolor": "#ffffff", "color": "#7f8c8d"},
    "root": {
        "shape": "box",
        "style": "rounded,filled",
        "fillcolor": "#c9efc4",
        "color": "#2e8b57",
        "penwidth": "2",
    },
    "op": {"shape": "ellipse", "style": "filled", "fillcolor": "#eeeeee", "color": "#555555"},
    "grad_fn": {"shape": "box", "style": "rounded,filled", "fillcolor": "#ede3f6", "color": "#7d3c98"},
    "accumulate": {"shape": "box", "style": "rounded,filled", "fillcolor": "#d9f2ee", "color": "#138d75"},
    "saved": {"shape": "box", "style": "rounded,filled,dashed", "fillcolor": "#fff3e0", "color": "#e67e22"},
    "group": {"shape": "box3d", "style": "filled", "fillcolor": "#f4f6f7", "color": "#566573"},
    "hidden": {"shape": "note", "style": "filled", "fillcolor": "#fbfcfc", "color": "#999999"},
}

# (box kind, its words in the legend: a key of ui_text.TABLE)
LEGEND = (
    ("param", "draw.legend.param"),
    ("input", "draw.legend.input"),
    ("tensor", "draw.legend.tensor"),
    ("root", "draw.legend.root"),
    ("op", "draw.legend.op"),
)
BACKWARD_LEGEND = (
    ("root", "draw.legend.backward_root"),
    ("grad_fn", "draw.legend.grad_fn"),
    ("accumulate", "draw.legend.accumulate"),
    ("param", "draw.legend.leaf"),
    ("saved", "draw.legend.saved"),
)

# the caption's words: as big as a box's shape line, the smallest text a drawing has
LEGEND_POINT_SIZE = 10
# two swatches to a row keep the caption about 370 px wide (a one-row caption was 767 px)
LEGEND_PER_ROW = 2

HIGHLIGHT = {"color": "#e74c3c", "penwidth": "3.5"}


def label(box: Box) -> str:
    """An HTML-like label: a bold title, then shape, data and grad rows."""
    rows = []
    if box.title:
        rows.append(f"<B>{text(short_label(box.title))}</B>")
    if box.shape:
        rows.append(f'<FONT POINT-SIZE="10" COLOR="#555555">{text(box.shape)}</FONT>')
    if box.data is not None:
        rows.append(f'<FONT COLOR="#1f4e79">{text("data " + box.data)}</FONT>')
        if box.glyph is not None:
            rows.append(glyph_table(box.glyph))
    if box.grad is not None:
        rows.append(f'<FONT COLOR="#b03a2e">{text("grad " + box.grad)}</FONT>')
        if box.grad_glyph is not None:
            rows.append(glyph_table(box.grad_glyph))
    if not rows:
        rows.append(" ")
    # a title cut short keeps its whole text in a tooltip (the SVG's <title>: shown on hover)
    tips = [_tooltip(box.title)] + [""] * (len(rows) - 1)
    cells = "".join(
        f'<TR><TD ALIGN="LEFT" BALIGN="LEFT"{tip}>{row}</TD></TR>' for row, tip in zip(rows, tips)
    )
    return f'<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="1">{cells}</TABLE>>'


# a title of more lines than this shows its first ones, then "…"
LABEL_LINES = 3


def short_label(title: str) -> str:
    """A box's or a frame's title as the drawing shows it: each line at most
    LABEL_COLUMNS wide (user_text.shortened), at most LABEL_LINES lines. A
    10,000-character name would otherwise make a drawing 200,000 pt wide."""
    lines = displayable(title).split("\n")
    if len(lines) > LABEL_LINES:
        lines = [*lines[: LABEL_LINES - 1], ELLIPSIS]
    return "\n".join(shortened(line, LABEL_COLUMNS) for line in lines)


def _tooltip(title: str | None) -> str:
    """A TOOLTIP attribute with the whole title, if short_label() cut it; else nothing."""
    if not title or short_label(title) == displayable(title):
        return ""
    return f' TOOLTIP="{labels.attribute(title)}"'


def glyph_table(glyph: Glyph) -> str:
    """A heatmap as a nested table of coloured cells, CELL_PT square, framed in grey.

    The cells are empty: no text, so nothing in it is measured as (small) text,
    and with CELLPADDING 0 an empty cell is exactly WIDTH x HEIGHT. Only colours
    we made ("#rrggbb") and the escaped tooltip reach the DOT. The tooltip also
    makes Graphviz (16.x: graphviz-pure, viz-js) wrap the cells in their own
    <g><a>, so CSS aimed at a node's own outline (`g.node > polygon`) misses them.

    A table in a wider cell is stretched to fill it (its cells widened), unless
    it is FIXEDSIZE; a FIXEDSIZE table with ALIGN="LEFT" gets its own border
    drawn at a wrong width (Graphviz 2.43 and 16.1 alike). So an unbordered
    FIXEDSIZE table of exactly the glyph's size holds it at the left, and the
    bordered glyph inside it keeps its real size."""
    size = labels.CELL_PT

    def cell(i: int, j: int, colour: str) -> str:
        # a column is as wide as its widest cell, a row as tall as its tallest: the
        # first row sets the widths and the first column the heights (a shorter DOT)
        width = f' WIDTH="{size}"' if i == 0 else ""
        height = f' HEIGHT="{size}"' if j == 0 else ""
        return f'<TD BGCOLOR="{colour}"{width}{height}></TD>'

    rows = "".join(
        "<TR>" + "".join(cell(i, j, c) for j, c in enumerate(row)) + "</TR>"
        for i, row in enumerate(glyph.cells)
    )
    width, height = len(glyph.cells[0]) * size + 2, len(glyph.cells) * size + 2  # + the 1-pt border
    heatmap = (
        f'<TABLE BORDER="1" COLOR="#aaaaaa" CELLBORDER="0" CELLSPACING="0" CELLPADDING="0" '
        f'TOOLTIP="{labels.attribute(glyph.tip)}">{rows}</TABLE>'
    )
    return (
        f'<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="0" FIXEDSIZE="TRUE" '
        f'ALIGN="LEFT" WIDTH="{width}" HEIGHT="{height}"><TR><TD>{heatmap}</TD></TR></TABLE>'
    )


def legend_label(kinds, language: str | None = None) -> str:
    """The colour swatches, drawn as the picture's caption: LEGEND_PER_ROW to a
    row, so a narrow graph is not widened by a long caption."""
    swatches = [
        f'<TD BGCOLOR="{STYLE[kind]["fillcolor"]}" COLOR="{STYLE[kind]["color"]}" BORDER="1" WIDTH="14"> </TD>'
        f'<TD ALIGN="LEFT"><FONT POINT-SIZE="{LEGEND_POINT_SIZE}" COLOR="#444444">'
        f"{text(ui_text(key, language))}</FONT></TD>"
        for kind, key in kinds
    ]
    rows = "".join(
        "<TR>" + "".join(swatches[i : i + LEGEND_PER_ROW]) + "</TR>"
        for i in range(0, len(swatches), LEGEND_PER_ROW)
    )
    return f'<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="3" CELLPADDING="1">{rows}</TABLE>>'


def add_model(
    graph: graphviz.Digraph, model: Model, prefix: str, highlighted: set[str] = frozenset()
) -> None:
    """Draw `model` into `graph`; ids get `prefix` so two views can share a picture.
    The boxes whose ids are in `highlighted` are emphasised."""
    groups: dict[str, list[Box]] = {}
    for box in model.boxes:
        if box.group is not None and box.kind != "group":
            groups.setdefault(box.group, []).append(box)
            continue
        _node(graph, box, prefix, box.id in highlighted)
    for index, (name, boxes) in enumerate(groups.items()):
        with graph.subgraph(name=f"cluster_{prefix}{index}") as cluster:
            cluster.attr(label=_frame_label(name), style="rounded,dashed", color="#999999", fontsize="11")
            for box in boxes:
                _node(cluster, box, prefix, box.id in highlighted)
    kind_of = {box.id: box.kind for box in model.boxes}
    uses = Counter(arrow.tail for arrow in model.arrows)
    for arrow in model.arrows:
        attrs = {}
        if kind_of.get(arrow.tail) == "group" and uses[arrow.tail] == 1:
            # a layer whose output one op reads is drawn next to that op: an unrolled RNN's input
            # projections (which need only the data and a shared weight) would all sit in the
            # top row otherwise, far from the steps that add them in
            attrs["weight"] = "4"
        if arrow.style == "saved":
            attrs = {"style": "dashed", "color": "#e67e22", "arrowhead": "none"}
        elif arrow.style == "leaf":
            attrs = {"style": "dashed", "color": "#138d75"}
        graph.edge(prefix + arrow.tail, prefix + arrow.head, **attrs)


def _frame_label(name: str) -> str:
    """A group's frame label: its name, cut by short_label(), the whole name in a tooltip."""
    tip = _tooltip(name)
    if not tip:
        return f"<{text(name)}>"
    cell = f'<TD BALIGN="LEFT"{tip}>{text(short_label(name))}</TD>'
    return f'<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="0"><TR>{cell}</TR></TABLE>>'


def _node(graph: graphviz.Digraph, box: Box, prefix: str, highlighted: bool) -> None:
    attrs = dict(STYLE[box.kind])
    classes = f"agv-node agv-{box.kind}"
    if highlighted:
        attrs.update(HIGHLIGHT)
        classes += " agv-highlight"
    graph.node(prefix + box.id, label=label(box), id=f"agv-{prefix}{box.id}", **{"class": classes}, **attrs)


def new_digraph(rankdir: str) -> graphviz.Digraph:
    graph = graphviz.Digraph("autogradviz")
    graph.attr(rankdir=rankdir, fontname=LAYOUT_FONT, nodesep="0.25", ranksep="0.35", bgcolor="transparent")
    graph.attr("node", fontname=LAYOUT_FONT, fontsize="12", margin="0.08,0.04")
    graph.attr("edge", fontname=LAYOUT_FONT, color="#555555", arrowsize="0.7")
    return graph
