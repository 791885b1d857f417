"""`paddle.vision.models`: the networks of agv.models, with Paddle parameters.

    from autogradviz.paddle.vision.models import vgg11
    model = vgg11()

The network is autogradviz's (torchvision's layout and initialisation: see
autogradviz/models.py); its parameters are made Paddle tensors, so they have
stop_gradient=False, a numpy .grad, and Paddle's repr. Paddle's VGG has the
same layers in the same order. Nothing is downloaded: pretrained=True raises.
"""

from __future__ import annotations

from ... import models as _models
from ..framework import PaddleTensor, mark

__all__ = ["vgg11", "VGG"]

VGG = _models.VGG


def _paddle_parameters(model, flavour: type = PaddleTensor):
    for p in model.parameters():
        mark(p, flavour)
    return model


def vgg11(pretrained: bool = False, batch_norm: bool = False, **kwargs) -> VGG:
    """VGG-11 with random weights (seeded by paddle.seed), for [N, 3, 224, 224] images.
    `num_classes` (1000) may be passed, as in Paddle."""
    if pretrained:
        raise NotImplementedError(
            "vgg11(pretrained=True): autogradviz downloads nothing; its weights are random "
            "(load your own with model.set_state_dict(...))"
        )
    if batch_norm:
        raise NotImplementedError("vgg11(batch_norm=True): autogradviz has no BatchNorm2D yet")
    return _paddle_parameters(_models.vgg11(**kwargs))
