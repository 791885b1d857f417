"""`paddle.nn`: autogradviz's layers, as Paddle 2.0 names them, with Paddle parameters.

    import autogradviz.paddle as paddle
    class Net(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = paddle.nn.Linear(2, 1)

Each layer here is autogradviz's own (agv.nn), with `Layer` mixed in. `Layer`
is `agv.nn.Module` plus one thing: every parameter it registers becomes a
Paddle tensor (framework.py), so its `stop_gradient` is False, its `.grad`
is a numpy array, and it prints as Paddle prints. Being subclasses, the
layers are still agv.nn's for drawings (`draw(group="module")`).

Reading order: `Layer` and `_paddle_layer` below, then `functional.py`
(the activations and losses with Paddle's arguments), then the loss layers
at the end of this file, which call it.

One layer is Paddle's own, not agv's: `Linear`, whose weight has Paddle's
layout [in_features, out_features] (PyTorch's is the transpose) and Paddle's
initialisation (Xavier-uniform weight, zero bias), computing x @ W + b.
Networks from paddle.vision.models keep agv's layers (PyTorch's layout).
"""

from __future__ import annotations

import numpy as np

from ... import nn as _agv_nn
from ... import ops
from ...core import dtypes
from ...nn import init as _init
from ...nn.parameter import Parameter
from ..framework import PaddleTensor, mark
from . import functional


class Layer(_agv_nn.Module):
    """Paddle's base class of layers: agv.nn.Module, whose parameters are Paddle tensors."""

    # the release of the parameters it makes (autogradviz.paddle.v2_0.nn: PaddleTensor20)
    tensor_flavour: type = PaddleTensor

    def register_parameter(self, name: str, param) -> None:
        if param is not None:
            mark(param, self.tensor_flavour)
        super().register_parameter(name, param)

    def create_parameter(
        self, shape, attr=None, dtype=None, is_bias: bool = False, default_initializer=None
    ) -> Parameter:
        """A new Paddle parameter of `shape`, initialised as Paddle does by default:
        Xavier-uniform for a weight, zeros for a bias. (Assign it to an attribute
        of the layer to register it, as in Paddle.)"""
        if attr is not None or default_initializer is not None:
            raise NotImplementedError(
                "create_parameter: attr and default_initializer are not supported; initialise the "
                "parameter afterwards, e.g. with autogradviz.nn.init.normal_(p, 0, 0.02)"
            )
        target = dtypes.to_dtype(dtype) if dtype is not None else dtypes.float32
        p = mark(Parameter(np.zeros([int(n) for n in shape], target.numpy)), self.tensor_flavour)
        if not is_bias:
            _init.xavier_uniform_(p)
        return p

    def sublayers(self, include_self: bool = False) -> list:
        """Paddle's spelling: every layer inside this one (modules(), without itself)."""
        found = list(self.modules())
        return found if include_self else found[1:]

    def parameters(self, include_sublayers: bool = True) -> list:
        """Paddle's parameters() is a list (PyTorch's a generator): len(net.parameters())."""
        return list(super().parameters(recurse=include_sublayers))

    def named_sublayers(self, prefix: str = "", include_self: bool = False, layers_set=None):
        """(name, layer) for every layer inside this one, depth first; itself (named
        `prefix`) only with include_self=True, as in Paddle (PyTorch's named_modules
        always starts with itself)."""
        for name, layer in self.named_modules(prefix=prefix):
            if layer is self and not include_self:
                continue
            if layers_set is not None:
                if layer in layers_set:
                    continue
                layers_set.add(layer)
            yield name, layer

    def add_sublayer(self, name: str, sublayer):
        """Register `sublayer` under `name` and return it (PyTorch's add_module returns None)."""
        self.add_module(name, sublayer)
        return sublayer

    def add_parameter(self, name: str, parameter):
        """Register `parameter` under `name` and return it (Paddle's add_parameter)."""
        self.register_parameter(name, parameter)
        return parameter

    def set_dict(self, state_dict, use_structured_name: bool = True):
        """Paddle's older names for set_state_dict (structured names only)."""
        return self.set_state_dict(state_dict)

    load_dict = set_dict

    def register_forward_post_hook(self, hook):
        """Paddle's name for register_forward_hook: hook(layer, input, output)."""
        return self.register_forward_hook(hook)

    def full_name(self) -> str:
        """Paddle's unique name of a layer; here the class name in lower case."""
        return type(self).__name__.lower()


def _paddle_layer(cls: type) -> type:
    """agv.nn's `cls` with Layer mixed in: the same layer, with Paddle parameters."""
    return type(cls.__name__, (Layer, cls), {"__module__": __name__, "__doc__": cls.__doc__})


class Linear(Layer):
    """y = x @ weight + bias, with Paddle's weight layout [in_features, out_features]."""

    def __init__(self, in_features: int, out_features: int, weight_attr=None, bias_attr=None, name=None):
        super().__init__()
        if weight_attr is not None or bias_attr not in (None, False):
            raise NotImplementedError(
                "Linear: weight_attr and bias_attr are not supported (bias_attr=False is)"
            )
        self.in_features, self.out_features = in_features, out_features
        self.weight = self.create_parameter([in_features, out_features])
        self.bias = None if bias_attr is False else self.create_parameter([out_features], is_bias=True)

    def forward(self, input):
        return functional.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, dtype=float32"


# Paddle 2.0's names: Conv2D, MaxPool2D, ... (agv.nn has them as aliases of Conv2d, ...)
Conv2D = _paddle_layer(_agv_nn.Conv2D)
MaxPool2D = _paddle_layer(_agv_nn.MaxPool2D)
AvgPool2D = _paddle_layer(_agv_nn.AvgPool2D)
AdaptiveAvgPool2D = _paddle_layer(_agv_nn.AdaptiveAvgPool2D)
BatchNorm1D = _paddle_layer(_agv_nn.BatchNorm1D)
Embedding = _paddle_layer(_agv_nn.Embedding)
Dropout = _paddle_layer(_agv_nn.Dropout)
Identity = _paddle_layer(_agv_nn.Identity)
ReLU = _paddle_layer(_agv_nn.ReLU)
LeakyReLU = _paddle_layer(_agv_nn.LeakyReLU)
Sigmoid = _paddle_layer(_agv_nn.Sigmoid)
Tanh = _paddle_layer(_agv_nn.Tanh)


# layers whose Paddle arguments differ from PyTorch's: axis=-1 (PyTorch: dim=None), start_axis=
class Softmax(Layer):
    def __init__(self, axis: int = -1, name=None):
        super().__init__()
        self.axis = axis

    def forward(self, x):
        return functional.softmax(x, self.axis)

    def extra_repr(self) -> str:
        return f"axis={self.axis}"


class LogSoftmax(Softmax):
    def forward(self, x):
        return functional.log_softmax(x, self.axis)


class Flatten(Layer):
    def __init__(self, start_axis: int = 1, stop_axis: int = -1):
        super().__init__()
        self.start_axis, self.stop_axis = start_axis, stop_axis

    def forward(self, input):
        return ops.flatten(input, self.start_axis, self.stop_axis)


Sequential = _paddle_layer(_agv_nn.Sequential)
LayerList = _paddle_layer(_agv_nn.ModuleList)
LayerList.__name__ = LayerList.__qualname__ = "LayerList"


# the losses as layers: Paddle's arguments, computed by the functions of functional.py
class CrossEntropyLoss(Layer):
    def __init__(
        self,
        weight=None,
        ignore_index: int = -100,
        reduction: str = "mean",
        soft_label: bool = False,
        axis: int = -1,
        use_softmax: bool = True,
        name=None,
    ):
        super().__init__()
        functional._check_reduction("CrossEntropyLoss", reduction)
        self.weight, self.ignore_index, self.reduction = weight, ignore_index, reduction
        self.soft_label, self.axis, self.use_softmax = soft_label, axis, use_softmax

    def forward(self, input, label):
        return functional.cross_entropy(
            input, label, self.weight, self.ignore_index, self.reduction, self.soft_label, self.axis,
            self.use_softmax,
        )  # fmt: skip


class MSELoss(Layer):
    def __init__(self, reduction: str = "mean"):
        super().__init__()
        functional._check_reduction("MSELoss", reduction)
        self.reduction = reduction

    def forward(self, input, label):
        return functional.mse_loss(input, label, self.reduction)


class NLLLoss(Layer):
    def __init__(self, weight=None, ignore_index: int = -100, reduction: str = "mean", name=None):
        super().__init__()
        functional._check_reduction("NLLLoss", reduction)
        self.weight, self.ignore_index, self.reduction = weight, ignore_index, reduction

    def forward(self, input, label):
        return functional.nll_loss(input, label, self.weight, self.ignore_index, self.reduction)


class BCELoss(Layer):
    def __init__(self, weight=None, reduction: str = "mean", name=None):
        super().__init__()
        functional._check_reduction("BCELoss", reduction)
        self.weight, self.reduction = weight, reduction

    def forward(self, input, label):
        return functional.binary_cross_entropy(input, label, self.weight, self.reduction)


class BCEWithLogitsLoss(Layer):
    def __init__(self, weight=None, reduction: str = "mean", pos_weight=None, name=None):
        super().__init__()
        functional._check_reduction("BCEWithLogitsLoss", reduction)
        self.weight, self.reduction, self.pos_weight = weight, reduction, pos_weight

    def forward(self, logit, label):
        return functional.binary_cross_entropy_with_logits(
            logit, label, self.weight, self.reduction, self.pos_weight
        )


__all__ = [
    "Layer", "Parameter", "functional", "Linear", "Conv2D", "MaxPool2D", "AvgPool2D",
    "AdaptiveAvgPool2D", "BatchNorm1D", "Embedding", "Dropout", "Flatten", "Identity", "ReLU",
    "LeakyReLU", "Sigmoid", "Tanh", "Softmax", "LogSoftmax", "Sequential", "LayerList",
    "CrossEntropyLoss", "MSELoss", "NLLLoss", "BCELoss", "BCEWithLogitsLoss",
]  # fmt: skip
