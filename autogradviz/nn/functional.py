"""`agv.nn.functional`, conventionally imported as F: the layers as plain functions.

    import autogradviz.nn.functional as F
    loss = F.cross_entropy(model(x), labels)

Functions that the core already has (relu, sigmoid, softmax, ...) are the core
ops. The rest sit next to their backward nodes: linear and embedding here,
convolution and pooling in `conv.py`, the losses in `losses.py`.
"""

from __future__ import annotations

import warnings

import numpy as np

from .. import ops
from ..core import creation, dtypes, random
from ..core.grad_mode import no_grad
from ..core.graph import Node
from ..core.record import record
from ..core.tensor import Tensor
from ..ops import pointwise
from ..ops._operands import factors_to_save, operand
from ..ops.arithmetic import MmBackward0, addmm_record
from ..ops.inplace import _inplace
from ..ops.shape import SqueezeBackward0, UnsafeViewBackward0, ViewBackward0
from ._arguments import number_argument, tensor_argument
from .conv import adaptive_avg_pool2d, avg_pool2d, conv1d, conv2d, max_pool2d
from .losses import (
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cross_entropy,
    mse_loss,
    nll_loss,
)

__all__ = [
    "adaptive_avg_pool2d",
    "avg_pool2d",
    "batch_norm",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "conv1d",
    "conv2d",
    "cross_entropy",
    "dropout",
    "embedding",
    "leaky_relu",
    "linear",
    "log_softmax",
    "max_pool2d",
    "mse_loss",
    "nll_loss",
    "one_hot",
    "relu",
    "sigmoid",
    "softmax",
    "tanh",
]

sigmoid = ops.sigmoid
tanh = ops.tanh


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """max(x, 0). inplace=True overwrites the input (and records that, as any
    in-place op does)."""
    if inplace:
        return _inplace(operand(input), "relu_", ops.relu)
    return ops.relu(input)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """x where x > 0, else negative_slope·x: a ReLU whose negative side still
    passes a little gradient, so units cannot die."""
    name = "leaky_relu_" if inplace else "leaky_relu"  # PyTorch's errors name the in-place op so
    input = tensor_argument(input, name)
    negative_slope = number_argument(negative_slope, name, "negative_slope", 2)
    if inplace:
        node = pointwise.LeakyReluBackward1
        return _inplace(operand(input), "leaky_relu_", lambda old: ops.leaky_relu(old, negative_slope, node))
    return ops.leaky_relu(input, negative_slope)


def _softmax_dim(x, dim: int | None, name: str) -> int:
    if dim is not None:
        return dim
    # PyTorch's old implicit choice, with its warning
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as an argument.",
        UserWarning,
        stacklevel=3,
    )
    return 0 if x.ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim: int | None = None, dtype=None) -> Tensor:
    x = operand(input) if dtype is None else ops.to(operand(input), dtype)
    return ops.softmax(x, _softmax_dim(x, dim, "softmax"))


def log_softmax(input: Tensor, dim: int | None = None, dtype=None) -> Tensor:
    x = operand(input) if dtype is None else ops.to(operand(input), dtype)
    return ops.log_softmax(x, _softmax_dim(x, dim, "log_softmax"))


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """While training, zero each element with probability p and scale the rest
    by 1/(1 - p), so the expected value is unchanged; outside training, the input."""
    if not 0 <= p <= 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    x = operand(input)
    if not training or p == 0:
        return x
    keep = random.generator().random(x.shape, dtype=x._data.dtype) >= p
    mask = keep * np.asarray(1 / (1 - p) if p < 1 else 0, dtype=x._data.dtype)
    return x.mul_(mask) if inplace else x * mask


# linear: y = x Wᵀ + b ------------------------------------------------------------------------------
#
# No node of its own: as in PyTorch, linear is W.t() (TBackward0) then addmm (AddmmBackward0:
# b + x @ Wᵀ in one op), or mm (MmBackward0) without a bias. Inputs that are not matrices
# are reshaped to rows first and back after, with PyTorch's view nodes:
#
#   x of shape (N, in):        AddmmBackward0(b, x, TBackward0(W))
#   x of shape (in,):          ViewBackward0(AddmmBackward0(b, ViewBackward0(x), TBackward0(W)))
#   x of shape (..., in):      ViewBackward0(AddmmBackward0(b, ViewBackward0(x), TBackward0(W)))
#   no bias:                   MmBackward0(x, TBackward0(W)), and for (in,) SqueezeBackward4 over
#                              MmBackward0(UnsqueezeBackward0(x), ...), for (..., in) UnsafeViewBackward0
class SqueezeBackward4(SqueezeBackward0):
    """F.linear of a vector without bias: the (1, out) row squeezed back to a vector."""

    __slots__ = ()
    torch_name = None  # PyTorch's own name


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """x Wᵀ + b, for x of shape (..., in_features) and W of shape (out_features, in_features)."""
    x, w = tensor_argument(input, "linear"), tensor_argument(weight, "linear", "weight", 2)
    x_shape, w_shape = x._data.shape, w._data.shape  # (shapes as tuples: the messages print (2, 3))
    if x_shape[-1:] != w_shape[1:]:
        raise RuntimeError(
            f"linear: expected input with last dimension {w_shape[1]} (weight has shape {w_shape}), "
            f"got shape {x_shape}"
        )
    if x._data.dtype != w._data.dtype:
        raise RuntimeError(
            f"linear: input dtype {x.dtype!r} and weight dtype {w.dtype!r} differ; convert one of them "
            "(x.float(), or model.double())"
        )
    if bias is not None:
        bias = operand(bias)
        if not isinstance(bias, Tensor):  # a Python number: PyTorch's TypeError, not a broadcast
            raise TypeError(
                f"linear(): argument 'bias' (position 3) must be Tensor, not {type(bias).__name__}"
            )
        # As in PyTorch the bias may broadcast (a (1,) or 0-d bias is fine), but
        # it must not change the output's shape; numpy's own broadcast error (or
        # a silently larger output) would not say which argument is wrong.
        out_shape = x_shape[:-1] + w_shape[:1]
        if not _fits(bias._data.shape, out_shape):
            raise RuntimeError(
                f"linear: expected bias of shape ({w_shape[0]},), one per output feature (weight of shape "
                f"{w_shape}), got bias of shape {bias._data.shape}, which does not broadcast to the output's "
                f"shape {out_shape} (input of shape {x_shape})"
            )
    wt = ops.t(w)  # Wᵀ, a view of W: TBackward0 when W requires grad
    if x._data.ndim == 2:
        rows = x
    elif x._data.ndim == 1 and bias is None:
        rows = ops.unsqueeze(x, 0)
    else:
        rows = ops.reshape(x, (-1, x_shape[-1]))
    product = rows._data @ wt._data
    # a bias with leading dims of its own, (5, 4) for x of shape (2, 5, 3), does not fit the rows:
    # PyTorch then adds it after the mm, with an AddBackward0
    add_bias_after = bias is not None and not _fits(bias._data.shape, product.shape)
    if bias is None or add_bias_after:
        out = record(MmBackward0, product, (rows, wt), saved=factors_to_save(rows, wt), args=(2, 2))
    else:
        product += bias._data
        out = addmm_record(bias, rows, wt, product)
    if x._data.ndim != 2:
        # back to the input's leading dims; the (N, out) result is never seen, so it needs no view tracking
        if bias is not None and not add_bias_after:
            node = ViewBackward0
        else:
            node = SqueezeBackward4 if x._data.ndim == 1 else UnsafeViewBackward0
        out = record(node, out._data.reshape(x_shape[:-1] + w_shape[:1]), (out,), args=out._data.shape)
    return ops.add(out, bias) if add_bias_after else out


def _fits(shape: tuple, target: tuple) -> bool:
    """Does an array of `shape` broadcast to `target` without growing it?"""
    try:
        return np.broadcast_shapes(shape, target) == target
    except ValueError:
        return False


# embedding: row lookup in a table ------------------------------------------------------------------
class EmbeddingBackward0(Node):
    __slots__ = ()
    op = "embedding"
    rules = ("row i of the table gets the sum of g over the positions that looked up i",)

    def vjp(self, xp, g):
        shape, indices, keep_rows = self.args
        grad = xp.index_into_zeros(g, shape, indices)
        return (grad if keep_rows is None else xp.where(keep_rows, grad, 0.0),)


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None, _layer=None) -> Tensor:
    """Row input[i] of `weight` for every index; the padding row gets no gradient."""
    indices, w = operand(input), operand(weight)
    who = "embedding" if _layer is None else repr(_layer)
    if indices._data.dtype.kind not in "iu":
        # PyTorch's sentence first, then the hint, with dtypes named as tensors print them
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, "
            f"Int; but got {dtypes.type_name(indices.dtype)} instead (while checking arguments for "
            f"embedding). {who}: the indices must be integers ({dtypes.int64}), got {indices.dtype}"
        )
    rows = w.shape[0]
    bad = (indices._data < 0) | (indices._data >= rows)
    if bad.any():
        raise IndexError(
            f"{who}: index {indices._data[bad].flat[0]} is out of range for a table of "
            f"{rows} rows (indices must be in [0, {rows - 1}])"
        )
    index = indices._data
    keep_rows = None
    if padding_idx is not None:
        keep_rows = (np.arange(rows) != padding_idx % rows)[:, None]
    return record(EmbeddingBackward0, w._data[index], (w,), args=(w.shape, index, keep_rows))


# batch_norm: normalise each channel over the batch -----------------------------------------------
def batch_norm(
    input: Tensor,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """(x - mean) / √(var + eps) · weight + bias, per channel (dim 1). Training
    uses the batch's statistics and updates the running ones; evaluation uses
    the running ones. Built from core ops, so the graph shows the formula."""
    x = operand(input)
    axes = (0, *range(2, x.ndim))  # every axis but the channels
    shape = (1, -1) + (1,) * (x.ndim - 2)
    if training:
        count = x._data.size // x.shape[1]
        if count <= 1:
            raise ValueError(
                f"Expected more than 1 value per channel when training, got input size {x.shape}"
            )
        mean = x.mean(axes, keepdim=True)
        var = x.var(axes, unbiased=False, keepdim=True)
        if running_mean is not None:
            with no_grad():  # running statistics are bookkeeping, not part of the graph
                running_mean.mul_(1 - momentum).add_(mean.reshape(-1) * momentum)
                running_var.mul_(1 - momentum).add_(var.reshape(-1) * (momentum * count / (count - 1)))
    else:
        mean, var = running_mean.reshape(shape), running_var.reshape(shape)
    out = (x - mean) / ops.sqrt(var + eps)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """Class indices -> rows of 0s with a 1 at the class: shape (..., num_classes), int64."""
    labels = operand(tensor)._data
    if labels.dtype.kind not in "iu":
        raise RuntimeError(
            "one_hot is only applicable to index tensor of type LongTensor. The class indices must be "
            f"{dtypes.int64}, got {dtypes.from_numpy_dtype(labels.dtype)}"
        )
    if num_classes < 0:
        num_classes = int(labels.max()) + 1 if labels.size else 0
    if labels.size and (labels.min() < 0 or labels.max() >= num_classes):
        raise RuntimeError(f"one_hot: class values must be in [0, {num_classes - 1}]")
    return creation.from_numpy(np.eye(num_classes, dtype=np.int64)[labels])
