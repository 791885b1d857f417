"""`paddle.vision.models` of Paddle 2.0.1: the networks with 2.0.1 parameters."""

from __future__ import annotations

from ...framework import PaddleTensor20
from ...vision import models as _models
from ...vision.models import VGG

__all__ = ["vgg11", "VGG"]


def vgg11(pretrained: bool = False, batch_norm: bool = False, **kwargs) -> VGG:
    return _models._paddle_parameters(_models.vgg11(pretrained, batch_norm, **kwargs), PaddleTensor20)


vgg11.__doc__ = _models.vgg11.__doc__
