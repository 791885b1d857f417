"""Drawings of autograd graphs (Graphviz) and plotting helpers (matplotlib).

The core (`autogradviz/*.py`, `autogradviz/ops`) never imports this package:
drawing only reads the graph.
"""

from .render import RendererError, renderer
from .view import GraphView, draw

__all__ = ["GraphView", "RendererError", "TrainingMonitor", "draw", "renderer"]


def __getattr__(name: str):
    # loaded on first use: ipywidgets and matplotlib stay out of `import autogradviz.viz`
    if name == "TrainingMonitor":
        from .monitor import TrainingMonitor

        return TrainingMonitor
    raise AttributeError(f"module 'autogradviz.viz' has no attribute {name!r}")
