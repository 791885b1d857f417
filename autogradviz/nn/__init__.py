"""`agv.nn`: modules, layers and losses with PyTorch's names (and some of Paddle's).

import autogradviz as agv
from autogradviz import nn
import autogradviz.nn.functional as F

model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 2))
loss = F.cross_entropy(model(x), labels)
loss.backward()

Reading order:

1. `functional.py`: the ops of a network (linear, relu, dropout, embedding),
   with `conv.py` (conv1d, conv2d and pooling, im2col) and `losses.py` (cross_entropy,
   nll_loss, the binary losses, mse_loss): formulas, like autogradviz/ops;
2. `parameter.py`: `Parameter`, a leaf tensor that a Module registers;
3. `module.py`: `Module` (parameters, state_dict, train/eval, the notes that
   `draw(group="module")` reads), `Sequential`, `ModuleList`;
4. `layers.py` and `loss_modules.py`: the layers as Modules; `init.py`, their
   PyTorch-default initialisation; `utils.py`, gradient clipping.
"""

from . import functional, init, utils
from .layers import (
    AdaptiveAvgPool2D,
    AdaptiveAvgPool2d,
    AvgPool2D,
    AvgPool2d,
    BatchNorm1D,
    BatchNorm1d,
    Conv1d,
    Conv2D,
    Conv2d,
    Dropout,
    Embedding,
    Flatten,
    Identity,
    LazyLinear,
    LeakyReLU,
    Linear,
    LogSoftmax,
    MaxPool2D,
    MaxPool2d,
    ReLU,
    Sigmoid,
    Softmax,
    Tanh,
)
from .loss_modules import BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, MSELoss, NLLLoss
from .module import Layer, Module, ModuleList, Sequential
from .parameter import Parameter, UninitializedParameter

__all__ = [
    "BCELoss",
    "BCEWithLogitsLoss",
    "CrossEntropyLoss",
    "Identity",
    "LazyLinear",
    "LeakyReLU",
    "LogSoftmax",
    "MSELoss",
    "ModuleList",
    "NLLLoss",
    "Softmax",
    "AdaptiveAvgPool2D",
    "AdaptiveAvgPool2d",
    "AvgPool2D",
    "AvgPool2d",
    "BatchNorm1D",
    "BatchNorm1d",
    "Conv2D",
    "Conv1d",
    "Conv2d",
    "Dropout",
    "Embedding",
    "Flatten",
    "Layer",
    "Linear",
    "MaxPool2D",
    "MaxPool2d",
    "Module",
    "Parameter",
    "ReLU",
    "Sequential",
    "Sigmoid",
    "Tanh",
    "UninitializedParameter",
    "functional",
    "init",
    "utils",
]
