"""Rendering in the browser: Graphviz compiled to wasm, for Pyodide (JupyterLite).

graphviz-pure is a native binary, so a notebook that runs Python in the browser
cannot start it. There, autogradviz renders with `@viz-js/viz` (Graphviz 16.1.0
in wasm, MIT), which the JupyterLite site ships as the wheel `autogradviz_vizjs`
(see scripts/build_lite.py). For autogradviz's DOT it writes the same SVG as
graphviz-pure, byte for byte once the version banner is removed
(tests/test_render_browser.py compares them on the lessons' graphs).

Loading the wasm is asynchronous, and drawing is not. So the loading starts as
soon as autogradviz is imported in the browser, and is ready by the time the
next cell runs. If a drawing is asked for before that, and the browser cannot
wait (`pyodide.ffi.run_sync` needs JavaScript Promise Integration), the error
says to run the cell again.
"""

from __future__ import annotations

import sys
from importlib.resources import files

from ..ui_text import text

IN_BROWSER = sys.platform == "emscripten"
NAME = "viz-js"

_state: dict = {"viz": None, "promise": None, "error": None}


class BrowserRendererNotReadyError(RuntimeError):
    """The wasm Graphviz is still loading."""


def available() -> bool:
    """Can this Python render with @viz-js/viz? (Only in Pyodide, with the wheel.)"""
    if not IN_BROWSER:
        return False
    try:
        import autogradviz_vizjs  # noqa: F401 - only checking that the site shipped it
    except ImportError:
        return False
    return True


def start_loading() -> None:
    """Evaluate viz.js in this JavaScript context and start instantiating its wasm."""
    if _state["promise"] is not None or not available():
        return
    import js  # Pyodide's view of the JavaScript global scope
    from pyodide.ffi import create_once_callable

    source = files("autogradviz_vizjs").joinpath("viz-global.js").read_text(encoding="utf-8")
    js.eval(source)  # an indirect eval: the script defines the global `Viz`

    def ready(viz) -> None:
        _state["viz"] = viz

    def failed(error) -> None:
        _state["error"] = str(error)

    promise = js.Viz.instance()
    promise.then(create_once_callable(ready), create_once_callable(failed))
    _state["promise"] = promise


def _instance():
    start_loading()
    if _state["viz"] is None and _state["error"] is None:
        from pyodide.ffi import can_run_sync, run_sync

        if not can_run_sync():
            raise BrowserRendererNotReadyError(text("draw.browser_loading"))
        _state["viz"] = run_sync(_state["promise"])
    if _state["error"] is not None:
        raise RuntimeError(text("draw.browser_failed", error=_state["error"]))
    return _state["viz"]


def render(source: str, fmt: str) -> bytes:
    """DOT text to `fmt` output ("svg"), as the renderer binaries would print it."""
    if fmt != "svg":
        raise RuntimeError(text("draw.browser_svg_only", fmt=fmt.upper()))
    import js
    from pyodide.ffi import to_js

    options = to_js({"format": "svg"}, dict_converter=js.Object.fromEntries)  # a JS object, not a Map
    return str(_instance().renderString(source, options)).encode("utf-8")
