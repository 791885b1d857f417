"""PyTorch-style printing of tensors, reimplemented with numpy.

This is a port of the dense, real-valued part of PyTorch's `torch/_tensor_str.py`,
so that a tensor here prints character for character like the same tensor in
PyTorch. The recipe has three steps:

1. A `_Formatter` looks at the values that will be shown and picks one style for
   all of them (integer-looking "1.", fixed "0.5000" or scientific "1.0000e-05")
   and one column width, so that the numbers line up.
2. `_render` writes nested brackets, one row per line, wrapping long rows and
   replacing the middle of big tensors with "...".
3. `_add_suffixes` appends ", dtype=...", ", grad_fn=<...>" and closes the paren.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

import numpy as np


@dataclasses.dataclass
class PrintOptions:
    precision: int = 4  # digits after the decimal point
    threshold: float = 1000  # more elements than this: summarize with "..."
    edgeitems: int = 3  # items kept at each end of a summarized dimension
    linewidth: int = 80  # characters per line before a row is wrapped
    sci_mode: bool | None = None  # None: choose automatically, per tensor


options = PrintOptions()

_PROFILES = {
    "default": {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80},
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {
        "precision": 4,
        "threshold": float("inf"),
        "edgeitems": 3,
        "linewidth": 80,
    },
}


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """Same as torch.set_printoptions: arguments left as None keep their value,
    except sci_mode, which is always set (None means "choose automatically")."""
    if profile is not None:
        for name, value in _PROFILES[profile].items():
            setattr(options, name, value)
    for name, value in [
        ("precision", precision),
        ("threshold", threshold),
        ("edgeitems", edgeitems),
        ("linewidth", linewidth),
    ]:
        if value is not None:
            setattr(options, name, value)
    options.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    """The current options, as keyword arguments for set_printoptions."""
    return dataclasses.asdict(options)


class _Formatter:
    """Chooses one style and one width for every number of a tensor."""

    def __init__(self, values: np.ndarray) -> None:
        self.floating = np.issubdtype(values.dtype, np.floating)
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1

        if not self.floating:  # ints and bools print as Python prints them
            self.max_width = max([1, *(len(str(v)) for v in values.ravel().tolist())])
            return

        # 0, nan and inf say nothing about the scale of the data, so only the
        # other values decide the style (and, in torch, the width).
        shown = values[np.isfinite(values) & (values != 0)]
        if shown.size == 0:
            return

        self.int_mode = bool(np.all(shown == np.ceil(shown)))
        magnitudes = np.abs(shown).astype(np.float64)
        biggest, smallest = magnitudes.max(), magnitudes.min()
        if options.sci_mode is None:
            # Fixed notation would lose the small values or be too wide.
            # (The ratio may overflow to inf for float64, which is still > 1000.)
            with np.errstate(over="ignore"):
                spread = biggest / smallest
            self.sci_mode = bool(spread > 1000.0 or biggest > 1.0e8 or smallest < 1.0e-4)
        else:
            self.sci_mode = options.sci_mode

        p = options.precision
        if self.sci_mode:
            texts = [f"{v:.{p}e}" for v in shown.tolist()]
        elif self.int_mode:
            texts = [f"{v:.0f}." for v in shown.tolist()]  # "." marks a float
        else:
            texts = [f"{v:.{p}f}" for v in shown.tolist()]
        self.max_width = max(len(t) for t in texts)

    def format(self, value: Any) -> str:
        if not self.floating:
            text = str(value)
        elif self.sci_mode:
            text = f"{value:{self.max_width}.{options.precision}e}"
        elif self.int_mode:
            text = f"{value:.0f}"
            if math.isfinite(value):  # "nan." or "inf." would not be readable
                text += "."
        else:
            text = f"{value:.{options.precision}f}"
        return text.rjust(self.max_width)


def _shown_values(array: np.ndarray) -> np.ndarray:
    """The elements a summarized print shows (the first and last `edgeitems` of
    each dimension): only these should decide the style and width."""
    e = options.edgeitems
    if array.ndim == 0 or (array.ndim == 1 and len(array) <= 2 * e):
        return array
    if array.ndim == 1:
        # With e == 0, array[-0:] is the whole array; torch has the same quirk.
        return np.concatenate([array[:e], array[-e:]])
    if e == 0:
        return array[:0].ravel()
    rows = list(array) if len(array) <= 2 * e else [*array[:e], *array[-e:]]
    return np.concatenate([_shown_values(row).ravel() for row in rows])


def _render_row(row: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    e = options.edgeitems
    if summarize and e == 0:
        items = ["..."]
    elif summarize and len(row) > 2 * e:
        items = [fmt.format(v) for v in row[:e].tolist()] + [" ..."]
        items += [fmt.format(v) for v in row[-e:].tolist()]
    else:
        items = [fmt.format(v) for v in row.tolist()]

    # Each item takes its width plus ", "; at least one item per line.
    per_line = max(1, (options.linewidth - indent) // (fmt.max_width + 2))
    lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _render(array: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    """Nested brackets; `indent` is the column of this level's opening bracket."""
    if array.ndim == 0:
        return fmt.format(array.item())
    if array.ndim == 1:
        return _render_row(array, indent, summarize, fmt)

    e = options.edgeitems
    if summarize and len(array) > 2 * e:
        parts = [_render(array[i], indent + 1, summarize, fmt) for i in range(e)]
        parts += ["..."]
        parts += [_render(array[i], indent + 1, summarize, fmt) for i in range(len(array) - e, len(array))]
    else:
        parts = [_render(sub, indent + 1, summarize, fmt) for sub in array]

    # Sub-blocks of a 3-D tensor are separated by one blank line, of 4-D by two, ...
    separator = "," + "\n" * (array.ndim - 1) + " " * (indent + 1)
    return "[" + separator.join(parts) + "]"


def _add_suffixes(text: str, suffixes: Sequence[str], indent: int) -> str:
    """Append ", suffix" for each suffix, moving it to a new line if it would
    make the line longer than linewidth."""
    parts = [text]
    # torch's estimate of the last line's length, which is 2 too many; copied as
    # is so that lines wrap at exactly the same place.
    last_line_len = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line_len + len(suffix) + 2 > options.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line_len += len(suffix) + 2
    return "".join(parts) + ")"


def format_tensor(array: np.ndarray, extras: Sequence[str] = ()) -> str:
    """PyTorch-style repr of a tensor holding `array`; `extras` are suffixes such as
    "dtype=torch.float64", "requires_grad=True", "grad_fn=<MulBackward0>" appended as ", extra"."""
    array = np.asarray(array)
    prefix = "tensor("
    indent = len(prefix)
    suffixes: list[str] = []

    if array.size == 0:
        body = "[]"
        # Like numpy, the shape is shown when it is not simply (0,).
        if array.ndim != 1:
            suffixes.append(f"size={tuple(array.shape)}")
        # No values to tell an int from a float, so any dtype but the default
        # float32 is shown (also int64 and bool, unlike for non-empty tensors).
        if array.dtype != np.float32 and not any(s.startswith("dtype=") for s in extras):
            suffixes.append(f"dtype=torch.{array.dtype.name}")
    else:
        if options.edgeitems == 0:  # only "..." is printed: show the shape instead
            suffixes.append(f"size={tuple(array.shape)}")
        summarize = array.size > options.threshold
        fmt = _Formatter(_shown_values(array) if summarize else array)
        body = _render(array, indent, summarize, fmt)

    return _add_suffixes(prefix + body, [*suffixes, *extras], indent)


def short_number(value) -> str:
    """One number, briefly, as drawings show it: 0.9, 2, True, 1.235e+05."""
    value = np.asarray(value).item()
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return str(value)
    return np.format_float_positional(value, precision=4, trim="-") if abs(value) < 1e5 else f"{value:.4g}"
