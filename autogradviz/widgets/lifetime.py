"""When a widget, and what it holds, can be freed.

ipywidgets keeps every widget in a table (`Widget.widgets`) until it is
closed, and the `comm` package keeps each widget's comm, which holds the
widget's message handler. Inside a kernel that is on purpose: the browser
finds a widget by its id (after a page reload, in saved notebook state), so a
widget lives until `close()`.

In plain Python (a script, a terminal, pytest) there is no browser: the comm
is a `comm.DummyComm` that sends nowhere, and nothing can ever look a widget
up. There the two tables would only keep every widget, and every graph or
model it refers to, until the process ends. `forget_without_kernel` takes a
widget out of both, so that it is freed like any object.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterable, MutableMapping

import comm
import ipywidgets


def has_kernel(widget: ipywidgets.Widget) -> bool:
    """False when the widget's comm goes nowhere: no kernel, no browser.

    `comm.create_comm` makes a DummyComm until a kernel (ipykernel, or any
    other) replaces it with one that reaches a frontend."""
    return not isinstance(widget.comm, comm.DummyComm)


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
        # closing a DummyComm sends nothing; it unregisters it from the comm manager. The comm
        # stays on the widget, so model_id and the notebook representation keep working.
        with contextlib.suppress(KeyError):
            widget.comm.close()
