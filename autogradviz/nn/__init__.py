"""`agv.nn`: modules, layers and losses with PyTorch's names (and some of Paddle's).

import autogradviz as agv
from autogradviz import nn
import autogradviz.nn.functional as F

model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 2))
loss = F.cross_entropy(model(x), labels)
loss.backward()
"""

from . import functional, init, utils
from .layers import (
    AdaptiveAvgPool2D,
    AdaptiveAvgPool2d,
    AvgPool2D,
    AvgPool2d,
    BatchNorm1D,
    BatchNorm1d,
    Conv2D,
    Conv2d,
    Dropout,
    Embedding,
    Flatten,
    Identity,
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
from .parameter import Parameter

__all__ = [
    "BCELoss",
    "BCEWithLogitsLoss",
    "CrossEntropyLoss",
    "Identity",
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
    "functional",
    "init",
    "utils",
]
