"""`paddle.nn.functional` of Paddle 2.0.1: the same functions (a result has the
release of its inputs)."""

from ...nn.functional import *  # noqa: F403
from ...nn.functional import __all__  # noqa: F401
