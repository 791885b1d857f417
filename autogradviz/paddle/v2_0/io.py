"""`paddle.io` of Paddle 2.0.1: a DataLoader whose batches are 2.0.1 tensors."""

from .. import io as _io
from ..framework import PaddleTensor20
from ..io import *  # noqa: F403
from ..io import __all__  # noqa: F401


class DataLoader(_io.DataLoader):
    __doc__ = _io.DataLoader.__doc__
    tensor_flavour = PaddleTensor20
