"""`paddle.optimizer` of Paddle 2.0.1: the same optimizers (they make no tensors)."""

from ..optimizer import *  # noqa: F403
from ..optimizer import __all__  # noqa: F401
