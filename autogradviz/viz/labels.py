"""Label text for drawings: previews of values, and escaping.

Every string that reaches a drawing passes through `text()`: a name like
`<script>` or `a"b{c|d}` is shown as those characters and never becomes
markup, in the DOT source, the SVG, or the HTML page around it.
"""

from __future__ import annotations

import contextlib
import contextvars
import html
import math
import re
from itertools import pairwise
from typing import NamedTuple

import numpy as np

from ..core.printing import short_number
from ..ui_text import text as ui_text
from .user_text import displayable

# Characters XML cannot hold (most control characters, U+FFFE, U+FFFF) make
# Graphviz reject the label or the SVG fail to parse: show them as a visible
# mark instead. Lone surrogates, which no UTF-8 output can hold, get the same
# mark by the rule every output follows (user_text.displayable)
_NOT_XML = re.compile("[\x00-\x08\x0b-\x1f\ufffe\uffff]")


def _xml_text(value: object) -> str:
    """The text as XML can hold it: displayable(), a tab as a space, the rest of _NOT_XML as U+FFFD.
    Graphviz expands \\N, \\G, \\L... even in HTML labels and their tooltips (after
    decoding entities, so &#92; does not help): a doubled backslash shows as one."""
    value = _NOT_XML.sub("\N{REPLACEMENT CHARACTER}", displayable(value).replace("\t", " "))
    return value.replace("\\", "\\\\")


def text(value: object) -> str:
    """Escape any text for a Graphviz HTML-like label: each line escaped, the
    lines joined with <BR/>. The <BR/> is ours, so no user string makes markup."""
    return '<BR ALIGN="LEFT"/>'.join(html.escape(line, quote=True) for line in _xml_text(value).split("\n"))


def attribute(value: object) -> str:
    """Escape any text for an attribute of an HTML-like label (a TOOLTIP): quoted,
    and a newline kept as a character reference (a <BR/> cannot go in an attribute)."""
    return html.escape(_xml_text(value), quote=True).replace("\n", "&#10;")


def preview(array: np.ndarray | None, max_items: int = 6, language: str | None = None) -> str:
    """A few values: a scalar, or the first and last items of a bigger array."""
    if array is None:
        return ui_text("draw.freed_value", language)
    array = np.asarray(array)
    if array.ndim == 0:
        return short_number(array.item())
    if array.ndim > 2 and array.size > max_items:
        # an image batch printed in full would fill the picture: a few values, and the count
        shown = preview(array.reshape(-1)[:4], max_items)
        return f"{shown[:-1]}, …] ({array.size:,} values)"
    return np.array2string(
        array,
        precision=4,
        floatmode="maxprec_equal",
        separator=", ",
        threshold=max_items,
        edgeitems=2,
        suppress_small=True,
        max_line_width=48,
    )


def shape_and_dtype(array: np.ndarray | None, shape=None, dtype=None, language: str | None = None) -> str:
    """`(2, 3) float32`, `(2,) float32`, or `scalar float32` for a 0-d tensor.
    Written as Python writes a shape tuple, so `(2,)` never reads as the number 2."""
    if array is not None:
        shape, dtype = array.shape, array.dtype
    shape = tuple(int(n) for n in shape)
    shape_text = ui_text("draw.scalar", language) if shape == () else str(shape)
    return f"{shape_text} {dtype}" if dtype is not None else shape_text


# -- compact boxes: a one-line summary and a small heatmap, for tensors past EXACT_ITEMS ------------

# a tensor of up to this many elements shows its exact numbers (the lessons' toy graphs)
EXACT_ITEMS = 6
# values= of agv.draw: "auto" (compact past EXACT_ITEMS) or "full" (numbers for every tensor)
VALUES = ("auto", "full")
# the glyph: at most this many rows and columns of block means, each cell CELL_PT square
GLYPH_ROWS = 4
GLYPH_COLUMNS = 16
CELL_PT = 6
# a diverging map centred on 0 (ColorBrewer RdBu's ends): white at 0, these at the largest |mean|
NEGATIVE = (33, 102, 172)  # #2166ac, blue
POSITIVE = (178, 24, 43)  # #b2182b, red
NAN_COLOUR = "#ff00ff"  # magenta: the block holds a NaN (or both +inf and -inf)
INF_COLOUR = "#000000"  # black: the block's mean is +inf or -inf


def is_compact(array, values: str = "auto") -> bool:
    """Is `array` drawn as a summary and a glyph (not as its numbers)?"""
    return values == "auto" and array is not None and np.size(array) > EXACT_ITEMS


def brief_number(value) -> str:
    """A number for a summary line, briefly: 2 significant digits under 10 (-0.42,
    0.013, 3.1), whole numbers from 10 to 1e5 (123, 1791), else scientific
    (1.2e-05, 3.4e+07); integers exactly. Shorter than short_number's 4 decimals,
    which would also print a gradient norm of 1e-6 as 0."""
    value = np.asarray(value).item()
    if isinstance(value, (bool, int)):
        return str(int(value))
    if not math.isfinite(value):
        return str(value)  # nan, inf, -inf
    if value == 0:
        return "0"
    size = abs(value)
    if size < 1e-3 or size >= 1e5:
        return f"{value:.2g}"
    if size >= 10:
        return f"{value:.0f}"
    return np.format_float_positional(value, precision=2, unique=True, fractional=False, trim="-")


def _numbers(array) -> np.ndarray:
    """The array as numbers to summarise: bools as 0 and 1."""
    array = np.asarray(array)
    return array.astype(np.int8) if array.dtype == np.bool_ else array


def summary(array, language: str | None = None, grad: bool = False) -> str:
    """One line about an array: `min -0.42 · mean 0.0134 · max 0.97`, or for a
    gradient `norm 0.53` (its L2 norm). Computed over the finite values, and the
    NaN and infinite ones are counted: `min 0 · mean 0.5 · max 1 · 2 nan · 1 inf`."""
    array = _numbers(array)
    parts = []
    with np.errstate(all="ignore"):
        if array.dtype.kind == "f":
            finite_mask = np.isfinite(array)
            all_finite = bool(finite_mask.all())
            finite = array if all_finite else array[finite_mask]
        else:
            all_finite, finite = True, array
        if finite.size:
            if grad:
                parts.append(ui_text("draw.stats_norm", language, norm=brief_number(l2_norm(finite))))
            else:
                parts.append(
                    ui_text(
                        "draw.stats",
                        language,
                        min=brief_number(finite.min()),
                        mean=brief_number(finite.mean(dtype=np.float64)),
                        max=brief_number(finite.max()),
                    )
                )
        if not all_finite:
            for what, count in (
                ("nan", np.isnan(array).sum()),
                ("inf", np.isposinf(array).sum()),
                ("-inf", np.isneginf(array).sum()),
            ):
                if count:
                    parts.append(ui_text("draw.stats_count", language, count=f"{int(count):,}", what=what))
    return " · ".join(parts)


_SQUARES_BLOCK = 1 << 16


def sum_of_squares(array) -> float:
    """Σ x² over an array, in float64: NaN if a value is NaN, inf if one is infinite.
    Inside remembered_rows() each array's is computed once: a stepper's table shows
    the same big gradients at every step."""
    memo = _ROWS.get()
    key = ("squares", id(array))
    if memo is not None and key in memo and memo[key][0] is array:
        return memo[key][1]
    flat = np.asarray(array).reshape(-1)
    value = 0.0
    with np.errstate(all="ignore"):
        # in float64 a block at a time: a float64 copy of VGG's 100M-value weight gradient whole
        # would take 800 MB and a second; BLAS's dot is 50x faster than np.sum(np.square(...))
        for start in range(0, flat.size, _SQUARES_BLOCK):
            block = flat[start : start + _SQUARES_BLOCK].astype(np.float64)
            value += float(block @ block)
    if memo is not None:
        memo[key] = (array, value)  # the array is held, so its id cannot be reused meanwhile
    return value


def l2_norm(*arrays) -> float:
    """The L2 norm of one gradient, or of several together (a layer's weight and bias)."""
    return math.sqrt(sum(sum_of_squares(array) for array in arrays))


def glyph_matrix(array) -> np.ndarray:
    """The array as a 2-D matrix whose block means the glyph shows. The same rule
    for every rank, so every glyph reads alike: the columns walk the last axis
    (the features of a (batch, features) or (batch, tokens, features) tensor, a
    weight's inputs) and the rows everything before it. From 4-D on, the columns
    walk the last two axes together: an image plane in reading order, so a conv
    activation (N, C, H, W) becomes N*C rows (its channels) of H*W pixels, and a
    row of cells never mixes pixels of different channels at one spot."""
    array = np.asarray(array)
    if array.ndim == 0:
        return array.reshape(1, 1)
    if array.ndim == 1:
        return array.reshape(1, -1)
    if array.ndim <= 3:
        return array.reshape(-1, array.shape[-1])
    return array.reshape(-1, array.shape[-2] * array.shape[-1])


def block_means(array) -> np.ndarray:
    """The glyph's cells: glyph_matrix(array) cut into at most GLYPH_ROWS x
    GLYPH_COLUMNS blocks of (near) equal size, block i of n covering indices
    [i*N//n, (i+1)*N//n), and each block's mean (float64; NaN and inf propagate)."""
    matrix = _numbers(glyph_matrix(array))
    rows, columns = matrix.shape
    n_rows, n_columns = min(rows, GLYPH_ROWS), min(columns, GLYPH_COLUMNS)
    row_edges = np.arange(n_rows + 1) * rows // n_rows
    column_edges = np.arange(n_columns + 1) * columns // n_columns
    with np.errstate(all="ignore"):
        # rows first: the big matrix is summed once, in float64, down to n_rows rows (a slice's
        # sum() per block: np.add.reduceat does the same but was 40x slower on a VGG activation)
        sums = np.stack([matrix[a:b].sum(axis=0, dtype=np.float64) for a, b in pairwise(row_edges)])
        sums = np.stack([sums[:, a:b].sum(axis=1) for a, b in pairwise(column_edges)], axis=1)
        counts = np.outer(np.diff(row_edges), np.diff(column_edges))
        return sums / counts


def colour(value: float, scale: float) -> str:
    """The cell colour of a block mean: white at 0, POSITIVE or NEGATIVE at |value| = scale."""
    if math.isnan(value):
        return NAN_COLOUR
    if math.isinf(value):
        return INF_COLOUR
    if scale <= 0:  # all zero
        return "#ffffff"
    share = min(abs(value) / scale, 1.0)
    end = POSITIVE if value > 0 else NEGATIVE
    return "#" + "".join(f"{round(255 + share * (channel - 255)):02x}" for channel in end)


def glyph_cells(array) -> tuple[tuple[str, ...], ...]:
    """The glyph of an array: rows of "#rrggbb" cell colours, one per block mean
    (block_means), coloured by a map centred on 0 and scaled by the largest
    finite |block mean|, so the strongest cell has the full colour."""
    means = block_means(array)
    finite = np.abs(means[np.isfinite(means)])
    scale = float(finite.max()) if finite.size else 0.0
    return tuple(tuple(colour(float(v), scale) for v in row) for row in means)


class Glyph(NamedTuple):
    """A heatmap as a box draws it: its cells (glyph_cells) and the tooltip that says what they are."""

    cells: tuple[tuple[str, ...], ...]
    tip: str


def value_row(array, values: str = "auto", language: str | None = None, grad: bool = False):
    """What a box shows for one value (its data, or with grad=True its gradient):
    (text, Glyph or None). The exact numbers (preview) and no glyph for a small
    tensor or values="full"; else the summary line and its heatmap."""
    if not is_compact(array, values):
        return preview(array, language=language), None
    memo = _ROWS.get()
    key = (id(array), language, grad)
    if memo is not None and key in memo and memo[key][0] is array:
        return memo[key][1]
    cells = glyph_cells(array)
    tip = ui_text("draw.glyph_tip", language, rows=len(cells), columns=len(cells[0]))
    row = summary(array, language, grad=grad), Glyph(cells, tip)
    if memo is not None:
        memo[key] = (array, row)  # the array is held, so its id cannot be reused meanwhile
    return row


# While a stepper draws one graph several times (its layer view, then each layer open), each
# big array's summary and heatmap are computed once: a heatmap of a VGG activation costs
# about 40 ms. The memo lives only inside `remembered_rows()`, so no array outlives it.
_ROWS: contextvars.ContextVar[dict | None] = contextvars.ContextVar("agv_value_rows", default=None)


@contextlib.contextmanager
def remembered_rows():
    """Inside this block, value_row() computes each (array, language, grad) once, and
    sum_of_squares() each array once."""
    token = _ROWS.set({}) if _ROWS.get() is None else None
    try:
        yield
    finally:
        if token is not None:
            _ROWS.reset(token)
