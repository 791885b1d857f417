"""Drawings of autograd graphs (Graphviz) and plotting helpers (matplotlib).

The core (`autogradviz/*.py`, `autogradviz/ops`) never imports this package:
drawing only reads the graph.
"""

from .render import RendererError, renderer
from .view import GraphView, draw

__all__ = ["GraphView", "RendererError", "draw", "renderer"]
