"""Drawings of autograd graphs (Graphviz) and plotting helpers (matplotlib).

Reading order:

1. `model.py`: reads a graph into boxes and arrows, forward or backward;
   `modules.py` groups them by nn module;
2. `labels.py`: the text in a box (values, shapes), always escaped;
3. `dot.py`: boxes and arrows as Graphviz DOT;
4. `render.py`: DOT to SVG, with no system Graphviz (graphviz-pure);
5. `view.py`: `agv.draw()` and the `GraphView` that Jupyter shows; `names.py`:
   the names a drawing gives tensors when `names=` is not given (the caller's variables);
6. `plot.py`: matplotlib plots of a function and its gradient, loss curves.

Drawings read a graph only through the graph API of `core/protocol.py`,
never a core object's private state: an adapter over another graph (a real
PyTorch grad_fn graph) can feed the same drawings. The core and the ops
never import this package.
"""

import importlib as _importlib

from .render import RendererError, renderer
from .view import GraphView, draw

__all__ = ["GraphView", "RendererError", "TrainingMonitor", "draw", "renderer"]


def __getattr__(name: str):
    # `agv.viz.TrainingMonitor` is the monitor's public path; it lives with the
    # other widgets, and loads on first use (PEP 562): ipywidgets and matplotlib
    # stay out of `import autogradviz.viz`
    if name == "TrainingMonitor":
        return _importlib.import_module("autogradviz.widgets.monitor").TrainingMonitor
    raise AttributeError(f"module 'autogradviz.viz' has no attribute {name!r}")
