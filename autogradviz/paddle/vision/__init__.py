"""`paddle.vision`: ready-made networks. Reading order: `models.py`, which
wraps autogradviz/models.py (read that first for the network itself)."""

from . import models

__all__ = ["models"]
