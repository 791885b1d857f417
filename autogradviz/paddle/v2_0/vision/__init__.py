"""`paddle.vision` of Paddle 2.0.1. Reading order: models.py (vgg11 with 2.0.1 parameters)."""

from . import models

__all__ = ["models"]
