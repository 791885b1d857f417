"""`paddle.nn` of Paddle 2.0.1: the layers of autogradviz.paddle.nn, whose
parameters are Paddle 2.0.1 tensors (a numpy `.grad`, `place=CPUPlace`).

Reading order: `Layer` below, then the loop that makes each 2.x layer a 2.0.1
one; functional.py is 2.x's (a result has the release of its inputs)."""

from __future__ import annotations

from ... import nn as _nn
from ...framework import PaddleTensor20
from . import functional  # noqa: F401 - paddle.nn.functional

Parameter = _nn.Parameter

__all__ = list(_nn.__all__)


class Layer(_nn.Layer):
    """Paddle 2.0.1's base class of layers: its parameters are 2.0.1 tensors."""

    tensor_flavour = PaddleTensor20


def _in_2_0(cls: type) -> type:
    """autogradviz.paddle.nn's `cls`, with this module's Layer mixed in."""
    return type(cls.__name__, (Layer, cls), {"__module__": __name__, "__doc__": cls.__doc__})


for _name in _nn.__all__:
    _value = getattr(_nn, _name)
    if isinstance(_value, type) and issubclass(_value, _nn.Layer) and _value is not _nn.Layer:
        globals()[_name] = _in_2_0(_value)
del _name, _value
