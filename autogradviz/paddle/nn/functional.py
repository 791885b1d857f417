"""`paddle.nn.functional` (F): activations and losses with Paddle 2.0's arguments.

    import autogradviz.paddle.nn.functional as F
    loss = F.cross_entropy(predicts, label)    # label: int64, shape [N] or [N, 1]

Each function is autogradviz's own (agv.nn.functional), so the graph has
the same nodes (a cross-entropy is LogSoftmaxBackward0 then NllLossBackward0).
What changes is Paddle's interface: `axis=` instead of `dim=`, labels of
shape [N, 1], `soft_label=`, `use_softmax=`, and a reduced loss of shape [1]
(Paddle 2.0 has no 0-d tensors).
"""

from __future__ import annotations

from ... import ops
from ...core.tensor import Tensor
from ...nn import functional as _functional
from ...ops._operands import operand
from ..framework import as_one_element

__all__ = [
    "relu", "leaky_relu", "sigmoid", "tanh", "softmax", "log_softmax", "dropout", "linear",
    "one_hot", "cross_entropy", "nll_loss", "mse_loss", "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
]  # fmt: skip

_REDUCTIONS = ("mean", "sum", "none")


def relu(x: Tensor) -> Tensor:
    return ops.relu(x)


def leaky_relu(x: Tensor, negative_slope: float = 0.01) -> Tensor:
    return _functional.leaky_relu(x, negative_slope)


def sigmoid(x: Tensor) -> Tensor:
    return ops.sigmoid(x)


def tanh(x: Tensor) -> Tensor:
    return ops.tanh(x)


def softmax(x: Tensor, axis: int = -1, dtype=None) -> Tensor:
    return ops.softmax(x if dtype is None else ops.to(x, dtype), axis)


def log_softmax(x: Tensor, axis: int = -1, dtype=None) -> Tensor:
    return ops.log_softmax(x if dtype is None else ops.to(x, dtype), axis)


def dropout(x: Tensor, p: float = 0.5, axis=None, training: bool = True, mode: str = "upscale_in_train"):
    """Paddle's default mode, "upscale_in_train", is PyTorch's dropout: kept values are scaled by 1/(1-p)."""
    if axis is not None or mode != "upscale_in_train":
        raise NotImplementedError("paddle.nn.functional.dropout: only axis=None, mode='upscale_in_train'")
    return _functional.dropout(x, p, training)


def linear(x: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """x @ weight + bias, with Paddle's weight layout: (in_features, out_features)."""
    out = ops.matmul(x, weight)
    return out if bias is None else out + bias


def one_hot(x: Tensor, num_classes: int) -> Tensor:
    """One float32 row per label (Paddle's one_hot gives floats, PyTorch's int64)."""
    return ops.to(_functional.one_hot(x, num_classes), "float32")


def _check_reduction(op: str, reduction: str) -> None:
    if reduction not in _REDUCTIONS:
        raise ValueError(
            f"The value of 'reduction' in {op} should be 'sum', 'mean' or 'none', but received "
            f"{reduction}, which is not allowed."
        )


def _reduced(loss: Tensor, reduction: str) -> Tensor:
    return loss if reduction == "none" else as_one_element(loss)


def cross_entropy(
    input: Tensor,
    label: Tensor,
    weight: Tensor | None = None,
    ignore_index: int = -100,
    reduction: str = "mean",
    soft_label: bool = False,
    axis: int = -1,
    use_softmax: bool = True,
    name=None,
) -> Tensor:
    """Softmax cross-entropy of raw scores `input`, classes along `axis` (the last).

    - hard labels (soft_label=False): int64 class indices, shape [N] or [N, 1]
      for an input [N, C] (the label has the input's rank, with 1 for the classes);
    - soft labels: one probability distribution per sample, the input's shape.

    use_softmax=False: the input already holds probabilities. The mean of
    weighted losses divides by the total weight, as PyTorch's does.
    """
    _check_reduction("cross_entropy", reduction)
    x, label = operand(input), operand(label)
    if x.ndim < 1:
        raise ValueError("cross_entropy: the input needs a class axis, got a tensor of shape []")
    axis = axis % x.ndim
    if x.ndim > 1 and axis != x.ndim - 1:
        raise NotImplementedError(
            f"paddle.nn.functional.cross_entropy: classes along axis {axis} of an input of shape "
            f"{list(x.shape)}: only the last axis (the default, axis=-1) is supported"
        )
    logp = ops.log_softmax(x, -1) if use_softmax else ops.log(x)
    if soft_label:
        if label.shape != x.shape:
            raise ValueError(
                f"cross_entropy: with soft_label=True the label must have the input's shape "
                f"{list(x.shape)}, got {list(label.shape)}"
            )
        if weight is not None:
            raise NotImplementedError("paddle.nn.functional.cross_entropy: weight with soft_label=True")
        losses = -(logp * label).sum(-1)
        out = losses if reduction == "none" else losses.sum() if reduction == "sum" else losses.mean()
        return _reduced(out, reduction)
    if label._data.dtype.kind not in "iu":
        raise TypeError(
            f"cross_entropy: the label must hold int64 class indices, not {label._data.dtype} "
            "(pass soft_label=True for class probabilities)"
        )
    if label.ndim == x.ndim and label.shape[-1] == 1:  # Paddle's [N, 1] labels
        label = ops.squeeze(label, -1)
    if label.shape != x.shape[:-1]:
        raise ValueError(
            f"cross_entropy: input of shape {list(x.shape)} needs a label of shape "
            f"{list(x.shape[:-1]) + [1]} or {list(x.shape[:-1])}, got {list(label.shape)}"
        )
    # agv's nll_loss wants the classes on axis 1 (PyTorch's layout): move them there
    if logp.ndim > 2:
        logp = ops.permute(logp, (0, logp.ndim - 1, *range(1, logp.ndim - 1)))
    return _reduced(_functional.nll_loss(logp, label, weight, ignore_index, reduction), reduction)


def nll_loss(
    input: Tensor, label: Tensor, weight=None, ignore_index: int = -100, reduction: str = "mean", name=None
) -> Tensor:
    _check_reduction("nll_loss", reduction)
    return _reduced(_functional.nll_loss(input, label, weight, ignore_index, reduction), reduction)


def mse_loss(input: Tensor, label: Tensor, reduction: str = "mean", name=None) -> Tensor:
    _check_reduction("mse_loss", reduction)
    return _reduced(_functional.mse_loss(input, label, reduction), reduction)


def binary_cross_entropy(input: Tensor, label: Tensor, weight=None, reduction: str = "mean", name=None):
    _check_reduction("binary_cross_entropy", reduction)
    return _reduced(_functional.binary_cross_entropy(input, label, weight, reduction=reduction), reduction)


def binary_cross_entropy_with_logits(
    logit: Tensor, label: Tensor, weight=None, reduction: str = "mean", pos_weight=None, name=None
) -> Tensor:
    _check_reduction("binary_cross_entropy_with_logits", reduction)
    out = _functional.binary_cross_entropy_with_logits(
        logit, label, weight, reduction=reduction, pos_weight=pos_weight
    )
    return _reduced(out, reduction)
