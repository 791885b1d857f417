"""Loss modules: `criterion = nn.CrossEntropyLoss()`, then `loss = criterion(logits, labels)`.

Each is a thin module around its function in losses.py (F.cross_entropy, ...),
holding the options; a class weight is a buffer, so it is in the state_dict, as
in PyTorch.
"""

from __future__ import annotations

from ..core.tensor import Tensor
from . import losses
from .module import Module


class _Loss(Module):
    def __init__(self, reduction: str = "mean"):
        super().__init__()
        self.reduction = reduction


class _WeightedLoss(_Loss):
    def __init__(self, weight: Tensor | None = None, reduction: str = "mean"):
        super().__init__(reduction)
        self.register_buffer("weight", weight)


class CrossEntropyLoss(_WeightedLoss):
    """Softmax cross-entropy of raw scores: F.cross_entropy as a module."""

    def __init__(
        self,
        weight: Tensor | None = None,
        ignore_index: int = -100,
        reduction: str = "mean",
        label_smoothing: float = 0.0,
    ):
        super().__init__(weight, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return losses.cross_entropy(
            input, target, self.weight, self.ignore_index, self.reduction, self.label_smoothing
        )


class NLLLoss(_WeightedLoss):
    """Negative log-likelihood of log-probabilities: F.nll_loss as a module."""

    def __init__(self, weight: Tensor | None = None, ignore_index: int = -100, reduction: str = "mean"):
        super().__init__(weight, reduction)
        self.ignore_index = ignore_index

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return losses.nll_loss(input, target, self.weight, self.ignore_index, self.reduction)


class BCELoss(_WeightedLoss):
    """Binary cross-entropy of probabilities: F.binary_cross_entropy as a module."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return losses.binary_cross_entropy(input, target, self.weight, self.reduction)


class BCEWithLogitsLoss(_WeightedLoss):
    """Binary cross-entropy of raw scores, computed stably: F.binary_cross_entropy_with_logits."""

    def __init__(
        self, weight: Tensor | None = None, reduction: str = "mean", pos_weight: Tensor | None = None
    ):
        super().__init__(weight, reduction)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return losses.binary_cross_entropy_with_logits(
            input, target, self.weight, self.reduction, self.pos_weight
        )


class MSELoss(_Loss):
    """Mean squared error: F.mse_loss as a module."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return losses.mse_loss(input, target, self.reduction)
