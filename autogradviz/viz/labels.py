"""Label text for drawings: previews of values, and escaping.

Every string that reaches a drawing passes through `text()`: a name like
`<script>` or `a"b{c|d}` is shown as those characters and never becomes
markup, in the DOT source, the SVG, or the HTML page around it.
"""

from __future__ import annotations

import html
import re

import numpy as np

from ..core.printing import short_number
from ..ui_text import text as ui_text

# Characters XML cannot hold (most control characters, lone surrogates, U+FFFE,
# U+FFFF) make Graphviz reject the label or the SVG fail to parse (a lone
# surrogate cannot even be encoded): show them as a visible mark instead
_NOT_XML = re.compile("[\x00-\x08\x0b-\x1f\ud800-\udfff\ufffe\uffff]")


def text(value: object) -> str:
    """Escape any text for a Graphviz HTML-like label: each line escaped, the
    lines joined with <BR/>. The <BR/> is ours, so no user string makes markup."""
    value = _NOT_XML.sub("\N{REPLACEMENT CHARACTER}", str(value).replace("\t", " "))
    # Graphviz expands \N, \G, \L... even in HTML labels (after decoding
    # entities, so &#92; does not help); a doubled backslash shows as one
    value = value.replace("\\", "\\\\")
    return '<BR ALIGN="LEFT"/>'.join(html.escape(line, quote=True) for line in value.split("\n"))


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
