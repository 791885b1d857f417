"""The learner's own text on its way out: names, labels and titles.

A tensor's name, a module's path, a metric's name or a page title is whatever
the learner typed, and it leaves Python in many ways: a drawing (DOT, then
SVG), an HTML page, a widget's JSON payload, a matplotlib figure, a line in a
terminal. Three rules, one function each, hold for all of them:

1. `displayable()`: every lone surrogate (U+D800..U+DFFF, which no UTF-8 text
   can hold: `"t\\ud800".encode()` raises) becomes U+FFFD, the replacement
   character. Everything else is kept. Every exit uses it: HTML, JSON, SVG.
2. `visible()`: for plain text, one line (a terminal, a progress line, a
   figure's legend), each character `str.isprintable()` refuses (a newline,
   ESC, a tab, a right-to-left override) is written as `repr()` writes it:
   `\\n`, `\\x1b`, `\\t`, `\\u202e`. A name can then neither break the line
   nor send the terminal an escape sequence. Backslashes are not doubled:
   it is a name shown to a reader, not Python source.
3. `shortened()`: a label wider than a classroom output is cut in the middle
   with an ellipsis, its start and end kept (`encoder.layers.1…output.dense`).
   Width is counted in columns, as a terminal counts them: a wide (Chinese,
   Japanese, Korean, full-width) character takes two, a combining mark none.
   Where the format has a tooltip, the full text goes there (viz/dot.py).

HTML escaping stays with each format (`html.escape`, labels.text for
Graphviz): these rules decide what text is shown, not how a format quotes it.
"""

from __future__ import annotations

import re
import unicodedata

# a label is cut past this many columns: as many as a box's data row may hold
# (labels.preview's max_line_width). In a drawing's bold 12 pt title that is about
# 400 pt of ordinary letters (24 Chinese characters, one em each: 310 pt), and a
# drawing with such a box still fits a laptop's notebook output (850 px) with its
# text readable (view.DrawingSize.readable_width_px), even for the widest glyphs
LABEL_COLUMNS = 48
ELLIPSIS = "…"

_SURROGATE = re.compile("[\ud800-\udfff]")


def displayable(value: object) -> str:
    """`str(value)` with each lone surrogate replaced by U+FFFD: text any UTF-8 output can hold."""
    return _SURROGATE.sub("\N{REPLACEMENT CHARACTER}", str(value))


def visible(value: object) -> str:
    """`displayable(value)` on one line: each non-printable character as repr() writes it
    (a newline as `\\n`, ESC as `\\x1b`), so the text cannot move a terminal's cursor."""
    shown = displayable(value)
    if shown.isprintable():
        return shown
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in shown)


def char_columns(character: str) -> int:
    """How many columns a character takes: 2 for wide (CJK, full-width), 0 for a combining mark."""
    if unicodedata.combining(character):
        return 0
    return 2 if unicodedata.east_asian_width(character) in ("W", "F") else 1


def columns(text: str) -> int:
    """The width of `text` in columns (char_columns of each character)."""
    return sum(char_columns(c) for c in text)


def shortened(text: str, max_columns: int = LABEL_COLUMNS) -> str:
    """`text` if it fits in max_columns; else its start, "…" and its end, together at most
    max_columns wide (the start gets the larger half)."""
    if columns(text) <= max_columns:
        return text
    room = max_columns - columns(ELLIPSIS)
    head = _fitting(text, (room + 1) // 2)
    tail = _fitting(text[len(head) :][::-1], room - columns(head))[::-1]
    while tail and unicodedata.combining(tail[0]):  # a mark whose letter was cut away
        tail = tail[1:]
    return head + ELLIPSIS + tail


def _fitting(text: str, max_columns: int) -> str:
    """The longest start of `text` at most max_columns wide (a combining mark stays with its letter)."""
    used = 0
    for end, character in enumerate(text):
        used += char_columns(character)
        if used > max_columns:
            return text[:end]
    return text


def payload(value):
    """A widget's or a page's JSON state with displayable() applied to every string in it
    (dict keys too): ipykernel sends widget state as UTF-8, which cannot hold a lone surrogate."""
    if isinstance(value, str):
        return displayable(value)
    if isinstance(value, dict):
        return {payload(key): payload(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [payload(item) for item in value]
    return value
