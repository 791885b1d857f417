"""When a widget, and what it holds, can be freed.

ipywidgets keeps every widget in a table (`Widget.widgets`) until it is
closed, and the `comm` package keeps each widget's comm, which holds the
widget's message handler. Inside a kernel that is on purpose: the browser
finds a widget by its id (after a page reload, in saved notebook state), so a
widget lives until `close()`.

In plain Python (a script, a terminal, pytest) there is no browser: the comm
sends nowhere, and nothing can ever look a widget up. There the two tables
would only keep every widget, and every graph or model it refers to, until
the process ends. `forget_without_kernel` takes a widget out of both, so that
it is freed like any object.

Two versions of ipywidgets make that comm differently, and both are in use
(Google Colab ships ipywidgets 7.7):
- ipywidgets 8 asks `comm.create_comm`, which gives a `comm.DummyComm` until a
  kernel replaces that function with its own;
- ipywidgets 7 always makes an `ipykernel.comm.Comm`, kernel or not; made
  outside a kernel, its `kernel` is None, and ipywidgets 7 itself sends a
  widget's changes only when it is not.
"""

from __future__ import annotations

import contextlib
import sys
import warnings
from collections.abc import Iterable, MutableMapping

import comm
import ipywidgets


def has_kernel(widget: ipywidgets.Widget) -> bool:
    """False when the widget's comm goes nowhere: no kernel, no browser."""
    if isinstance(widget.comm, comm.DummyComm):  # ipywidgets 8 outside a kernel
        return False
    if _is_ipykernel_comm(widget.comm):  # ipywidgets 7, inside a kernel or not
        return widget.comm.kernel is not None  # the test ipywidgets 7 makes before it sends
    return True


def _is_ipykernel_comm(widget_comm: object) -> bool:
    # ipykernel is not a dependency of ipywidgets 8: if it was never imported, no comm is its own
    ipykernel_comm = sys.modules.get("ipykernel.comm")
    return ipykernel_comm is not None and isinstance(widget_comm, ipykernel_comm.Comm)


def widget_tree(widget: ipywidgets.Widget) -> list[ipywidgets.Widget]:
    """`widget` and every widget it holds in a public synced trait (children,
    layout, style), depth first, each once."""
    seen: dict[int, ipywidgets.Widget] = {}

    def visit(value: object) -> None:
        if isinstance(value, ipywidgets.Widget):
            if id(value) in seen:
                return
            seen[id(value)] = value
            for key in value.keys:
                if not key.startswith("_"):  # child widgets sit in public traits
                    visit(getattr(value, key, None))
        elif isinstance(value, (list, tuple)):
            for item in value:
                visit(item)

    visit(widget)
    return list(seen.values())


def _registry() -> MutableMapping[str, ipywidgets.Widget]:
    # `Widget.widgets` is ipywidgets' table itself. It is deprecated (since 8.0) with no
    # replacement; if a later version removes it, widgets are kept as before, nothing breaks.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return getattr(ipywidgets.Widget, "widgets", {})


def forget_without_kernel(widgets: Iterable[ipywidgets.Widget]) -> None:
    """Outside a kernel, take these widgets out of ipywidgets' table and out of
    the comm manager, so that dropping the last reference frees them. Inside a
    kernel, do nothing: the browser may still need to find them."""
    registry = _registry()
    for widget in widgets:
        if widget.comm is None or has_kernel(widget):
            continue
        registry.pop(widget.model_id, None)
        # closing a comm that goes nowhere sends nothing; it unregisters it from the comm
        # manager. The comm stays on the widget, so model_id and the notebook representation
        # keep working.
        with contextlib.suppress(KeyError):
            widget.comm.close()
