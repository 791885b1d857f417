"""Loss functions: how wrong a prediction is, as one number to minimise.

`cross_entropy` is `log_softmax` followed by `nll_loss`, the same two backward
nodes PyTorch records. The binary losses and mse_loss have nodes of their own,
reduction included, as in PyTorch: their gradients, (p - y) / (p(1 - p)),
σ(x) - y and 2(a - b)/n, are simpler and more accurate than what the chain rule
through log, sigmoid or a square and a mean would give.
"""

from __future__ import annotations

import numpy as np

from .. import ops
from ..core import dtypes
from ..core.grad_mode import _state as _grad_mode
from ..core.graph import Node
from ..core.record import record
from ..core.tensor import Tensor, _make
from ..ops._operands import binary, operand


def _same_shape(op: str, input, target) -> None:
    if input.shape != target.shape:
        raise ValueError(
            f"{op}: target of shape {target.shape} must have the same shape as the input {input.shape} "
            f"(broadcasting them would silently compare every prediction with every target); "
            f"reshape one, for example target.reshape{input.shape}"
        )


# nll_loss: -log p of the right class, where the input holds log-probabilities ----------------------
class NllLossBackward0(Node):
    __slots__ = ()
    op = "nll_loss"
    rules = ("∂ℓ/∂(log p)[n, c] = -w[c]·g (÷ Σw for the mean) where c is sample n's target, 0 elsewhere",)
    torch_name = "NllLossBackward0; for input with extra dims (N, C, d₁, …): NllLoss2DBackward0, with views"

    def vjp(self, xp, g):
        shape, index, coefficient = self.args
        return (xp.index_into_zeros(g * coefficient, shape, index),)


def _class_index(op: str, input, target, ignore_index: int) -> tuple:
    """Check class-index targets against an (N, C, ...) input; return the input
    positions picked, (n, target[n], ...), and the mask of targets not ignored."""
    if target._data.dtype.kind not in "iu":
        raise RuntimeError(
            f"expected target dtype to be Long or Byte, but got {dtypes.scalar_type_name(target.dtype)}. "
            f"{op}: class indices are {dtypes.int64}, got a {target.dtype} target of shape "
            f"{tuple(target.shape)}"
            + (
                f"; for class probabilities, pass a float target of the input's shape {tuple(input.shape)}"
                if op == "cross_entropy"
                else ""
            )
        )
    expected = () if input.ndim == 1 else input.shape[:1] + input.shape[2:]
    if target.shape != expected:
        hint = ""
        if target.shape == expected + (1,):
            hint = "; a column of labels can be flattened with target.reshape(-1)"
        # PyTorch: a target with too many dims is a RuntimeError, a batch-size mismatch a ValueError
        error = RuntimeError if target.ndim > len(expected) else ValueError
        raise error(
            f"{op}: for input of shape {input.shape}, expected class-index target of shape {expected}, "
            f"got {target.shape}{hint}"
        )
    classes = input.shape[0] if input.ndim == 1 else input.shape[1]
    labels = target._data
    kept = labels != ignore_index
    bad = kept & ((labels < 0) | (labels >= classes))
    if bad.any():
        raise IndexError(
            f"{op}: Target {labels[bad].flat[0]} is out of bounds: the input has {classes} classes, "
            f"so class labels must be in [0, {classes - 1}]"
        )
    safe = np.where(kept, labels, 0)  # any valid class: an ignored target's weight is 0
    if input.ndim == 1:
        return (safe,), kept
    grid = np.indices(labels.shape, sparse=True)
    return (grid[0], safe, *grid[1:]), kept


def _check_class_weight(op: str, input, weight) -> None:
    """One weight per class, as PyTorch checks: a shorter one would fail inside
    numpy's indexing, and a longer one would silently be read in part."""
    if weight is None or input.ndim == 0:  # a 0-d input has no classes: its own error follows
        return
    dim = 0 if input.ndim == 1 else 1
    classes, shape = input.shape[dim], getattr(weight, "shape", ())
    if shape != (classes,):
        raise RuntimeError(
            f"{op}: weight tensor should be defined either for all {classes} classes or no classes but got "
            f"weight tensor of shape: {shape} (input of shape {input.shape}, classes in dim {dim})"
        )


def _nll_loss(op: str, input, target, weight, ignore_index: int, reduction: str):
    logp, target = operand(input), operand(target)
    # PyTorch checks the weight before the targets
    weight = None if weight is None else operand(weight)
    _check_class_weight(op, logp, weight)
    index, kept = _class_index(op, logp, target, ignore_index)
    dtype = logp._data.dtype
    w = kept.astype(dtype)  # each target's weight: 0 where ignored
    if weight is not None:
        w *= operand(weight)._data.astype(dtype)[index[0] if logp.ndim == 1 else index[1]]
    losses = -logp._data[index] * w
    if reduction == "none":
        out, coefficient = losses, -w
    elif reduction == "sum":
        out, coefficient = losses.sum(), -w
    elif reduction == "mean":  # a weighted mean: divide by the total weight of the targets kept
        total = w.sum()
        out, coefficient = losses.sum() / total, -w / total
    else:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    out = np.asarray(out, dtype=dtype)
    return record(NllLossBackward0, out, (logp,), args=(logp.shape, index, coefficient.astype(dtype)))


def nll_loss(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    ignore_index: int = -100,
    reduction: str = "mean",
) -> Tensor:
    """Negative log-likelihood: the input holds log-probabilities (N, C)."""
    return _nll_loss("nll_loss", input, target, weight, ignore_index, reduction)


def cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    ignore_index: int = -100,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    """Softmax cross-entropy of raw scores (logits) of shape (N, C), or (N, C, d...).

    The target holds class indices, shape (N,) (or (N, d...)), or class
    probabilities of the input's shape.

    `label_smoothing=ε` (between 0 and 1) compares the prediction with a softened
    target, (1 − ε)·target + ε/C: the right class keeps 1 − ε + ε/C and every class
    gets at least ε/C, so the model is not pushed towards infinite confidence.
    As in PyTorch, a negative ε means no smoothing.
    """
    x, target = operand(input), operand(target)
    smoothing = _label_smoothing(label_smoothing)
    if x.ndim == 0:
        raise ValueError("cross_entropy: expected an input of shape (N, C) or (C,), got a 0-d tensor")
    class_dim = 0 if x.ndim == 1 else 1
    logp = ops.log_softmax(x, class_dim)
    if target._data.dtype.kind == "f" and target.shape == x.shape:  # class probabilities
        weight = None if weight is None else operand(weight)
        _check_class_weight("cross_entropy", x, weight)
        if smoothing > 0:
            target = target * (1 - smoothing) + smoothing / x.shape[class_dim]
        return _soft_cross_entropy(logp, target, weight, class_dim, reduction)
    nll = _nll_loss("cross_entropy", logp, target, weight, ignore_index, reduction)
    if smoothing <= 0:
        return nll
    return (1 - smoothing) * nll + _smoothing_term(
        logp, target, weight, ignore_index, reduction, class_dim
    ) * (smoothing / x.shape[class_dim])


def _label_smoothing(value) -> float:
    """PyTorch's checks of label_smoothing: a number, at most 1 (a negative one is no smoothing)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(
            "cross_entropy_loss(): argument 'label_smoothing' (position 6) must be float, "
            f"not {type(value).__name__}"
        )
    if value > 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {value:g}")
    return float(value)


def _smoothing_term(logp, target, weight, ignore_index: int, reduction: str, class_dim: int):
    """-Σ_c w[c]·log p[c] for each sample (0 where its target is ignored), reduced as
    nll_loss reduces: the ε/C part of the loss against a uniform target."""
    if weight is not None:
        logp = logp * operand(weight).reshape((-1,) + (1,) * (logp.ndim - class_dim - 1))
    ignored = target._data == ignore_index
    per_sample = ops.where(_make(ignored), 0.0, -logp.sum(class_dim))
    if reduction == "none":
        return per_sample
    if reduction == "sum":
        return per_sample.sum()
    # the mean divides by the targets' total weight, as nll_loss's mean does
    if weight is None:
        total = np.asarray((~ignored).sum(), logp._data.dtype)
    else:
        kept_labels = target._data[~ignored]
        total = np.asarray(operand(weight)._data[kept_labels].sum(), logp._data.dtype)
    with np.errstate(invalid="ignore", divide="ignore"):  # nothing kept: nan, as in PyTorch
        return per_sample.sum() / _make(total)


# cross_entropy with class probabilities: -Σ target·log p, the ops PyTorch records ----------------
class DivBackward1(Node):
    """The mean over the batch of cross_entropy with class probabilities: a division by
    the number of samples (PyTorch's name for a division by a plain number it computed)."""

    __slots__ = ()
    elementwise = True
    op = "/"
    rules = ("∂(a/k)/∂a = 1/k",)

    def numbers_used(self):
        return [], [self.args]

    def vjp(self, xp, g):
        return (g / self.args,)


def _soft_cross_entropy(logp, target, weight, class_dim: int, reduction: str):
    """-Σ_c target[c]·log p[c] (times the class weight), then the reduction: recorded
    as PyTorch records it, Neg over Sum over Mul, and for the mean DivBackward1."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if weight is not None:
        logp = logp * weight.reshape((-1,) + (1,) * (logp.ndim - 2))
    products = logp * target
    if reduction == "none":
        return -products.sum(class_dim)
    total = -products.sum()
    if reduction == "sum":
        return total
    samples = logp._data.size // logp.shape[class_dim]  # N, or N·d₁·… for (N, C, d₁, …)
    return record(DivBackward1, total._data / np.asarray(samples, total._data.dtype), (total,), args=samples)


# The binary losses and mse_loss are one node each, reduction included, as in PyTorch:
# their next_functions are (the input's node, the target's node or None), and a class
# weight is a constant, not an input (PyTorch refuses a weight that requires grad).
# With the reduction inside, they are not elementwise nodes (a mean's output depends on
# every input); their rules give the gradient of each element's loss ℓ and of the
# reduced loss L = Σℓ/n (the mean) or Σℓ (the sum).
def _reduction_scale(reduction: str, n: int) -> float:
    """What the elementwise gradient is multiplied by: 1/n for the mean, else 1."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return 1 / n if reduction == "mean" and n else 1.0


def _reduced(losses: np.ndarray, reduction: str) -> np.ndarray:
    if reduction == "none":
        return losses
    total = losses.sum(dtype=losses.dtype)
    if reduction == "sum":
        return np.asarray(total)
    with np.errstate(invalid="ignore", divide="ignore"):  # the mean of nothing is nan, as in PyTorch
        return np.asarray(total / np.asarray(losses.size, losses.dtype))


def _constant_weight(op: str, name: str, weight, dtype):
    """A weight's array in the input's dtype (None if no weight); PyTorch refuses one
    that requires grad."""
    if weight is None:
        return None
    weight = operand(weight)
    if weight.requires_grad and _grad_mode.enabled:
        raise RuntimeError(
            f"The function '{op}' is not differentiable with respect to argument '{name}'. "
            "This input cannot have requires_grad True."
        )
    return weight._data.astype(dtype, copy=False)


# binary_cross_entropy: -[y log p + (1 - y) log(1 - p)], for probabilities p -------------------------
class BinaryCrossEntropyBackward0(Node):
    __slots__ = ()
    op = "binary_cross_entropy"
    rules = (
        "∂ℓ/∂p = w·(p - y) / (p(1 - p)) (w the weight, 1 without one); ∂L/∂p = that / n for the mean",
        "∂ℓ/∂y = w·(log(1 - p) - log(p)); ∂L/∂y = that / n for the mean",
    )

    def vjp(self, xp, g, p, y):
        _, scale, weight = self.args
        g = g * scale if weight is None else g * scale * weight
        gp = gy = None
        if self.needs(0):
            spread = p * (1 - p)
            gp = g * (p - y) / xp.where(spread > 1e-12, spread, 1e-12)  # PyTorch's floor, at p = 0 or 1
        if self.needs(1):
            gy = g * (xp.log(1 - p) - xp.log(p))
        return gp, gy


def _check_probabilities(name: str, t, hint: str) -> None:
    """PyTorch's range check of the input and the target, naming the first
    element outside [0, 1]. Written as "not inside" so that NaN, which fails
    every comparison, fails it too instead of passing silently."""
    inside = (t._data >= 0) & (t._data <= 1)
    if not inside.all():
        where = tuple(int(i) for i in np.argwhere(~inside)[0])
        raise RuntimeError(
            f"binary_cross_entropy: all elements of {name} should be between 0 and 1, but {name} of shape "
            f"{t.shape} has {float(t._data[where]):g} at index {where}{hint}"
        )


def binary_cross_entropy(
    input: Tensor, target: Tensor, weight: Tensor | None = None, reduction: str = "mean"
) -> Tensor:
    """Binary cross-entropy of probabilities p in [0, 1] against targets y."""
    p, y = operand(input), operand(target)
    _same_shape("binary_cross_entropy", p, y)
    if y._data.dtype != p._data.dtype:
        raise RuntimeError(
            f"binary_cross_entropy: the target must be a float tensor like the input ({p.dtype!r}), "
            f"got {y.dtype!r}; convert it with target.float()"
        )
    _check_probabilities("input", p, "; for raw scores (logits) use binary_cross_entropy_with_logits")
    _check_probabilities("target", y, "; a target is a probability, usually the label 0 or 1")
    # log is floored at -100, as in PyTorch: p = 0 gives a large loss, not inf
    # (and no numpy warning: p = 0 and p = 1 are valid probabilities)
    w = _constant_weight("binary_cross_entropy", "weight", weight, p._data.dtype)
    scale = _reduction_scale(reduction, p._data.size)
    with np.errstate(divide="ignore"):
        log_p, log_q = np.maximum(np.log(p._data), -100), np.maximum(np.log1p(-p._data), -100)
    losses = -(y._data * log_p + (1 - y._data) * log_q)
    if w is not None:
        losses = (losses * w).astype(p._data.dtype, copy=False)
    out = _reduced(losses, reduction)
    return record(BinaryCrossEntropyBackward0, out, (p, y), saved=(p, y), args=(reduction, scale, w))


# binary_cross_entropy_with_logits: the same loss on p = σ(x), computed stably from x -----------------
class BinaryCrossEntropyWithLogitsBackward0(Node):
    __slots__ = ()
    op = "binary_cross_entropy_with_logits"
    rules = (
        "∂ℓ/∂x = σ(x) - y; with pos_weight w: (1 + (w - 1)·y)·σ(x) - w·y; "
        "times the weight if given, and ∂L/∂x = that / n for the mean",
        "∂ℓ/∂y = -x; with pos_weight w: (w - 1)·softplus(-x) - x; "
        "times the weight if given, and ∂L/∂y = that / n for the mean",
    )

    def vjp(self, xp, g, x, y):
        _, scale, weight, pos_weight = self.args
        g = g * scale if weight is None else g * scale * weight
        gx = gy = None
        if self.needs(0):
            sigma = 1 / (1 + xp.exp(-x))
            if pos_weight is None:
                gx = g * (sigma - y)
            else:
                gx = g * ((1 + (pos_weight - 1) * y) * sigma - pos_weight * y)
        if self.needs(1):
            gy = -g * x
            if pos_weight is not None:
                size = x * xp.sign(x)  # |x|
                gy = gy + g * (pos_weight - 1) * ((size - x) / 2 + xp.log(1 + xp.exp(-size)))
        return gx, gy


def binary_cross_entropy_with_logits(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    reduction: str = "mean",
    pos_weight: Tensor | None = None,
) -> Tensor:
    """Binary cross-entropy of raw scores x, computed stably without forming σ(x).
    pos_weight multiplies the loss of the positive targets (per class)."""
    x, y = operand(input), operand(target)
    _same_shape("binary_cross_entropy_with_logits", x, y)
    if y._data.dtype != x._data.dtype:
        raise RuntimeError(
            f"binary_cross_entropy_with_logits: the target must be a float tensor like the input "
            f"({x.dtype!r}), got {y.dtype!r}; convert it with target.float()"
        )
    op = "binary_cross_entropy_with_logits"
    w = _constant_weight(op, "weight", weight, x._data.dtype)
    pw = _constant_weight(op, "pos_weight", pos_weight, x._data.dtype)
    scale = _reduction_scale(reduction, x._data.size)
    a, t = x._data, y._data
    # softplus(-x) = log(1 + e^-x) = max(-x, 0) + log(1 + e^-|x|): no overflow for any x
    softplus = np.maximum(-a, 0) + np.log1p(np.exp(-np.abs(a)))
    log_weight = 1 if pw is None else 1 + (pw - 1) * t
    losses = (1 - t) * a + log_weight * softplus
    if w is not None:
        losses = losses * w
    out = _reduced(losses.astype(a.dtype, copy=False), reduction)
    return record(
        BinaryCrossEntropyWithLogitsBackward0, out, (x, y), saved=(x, y), args=(reduction, scale, w, pw)
    )


# mse_loss: the mean of squared differences ----------------------------------------------------------
class MseLossBackward0(Node):
    __slots__ = ()
    op = "mse_loss"
    rules = (
        "∂L/∂a = 2(a − b)/n for the mean, 2(a − b) for the sum (and for each ℓ = (a − b)² with none)",
        "∂L/∂b = −2(a − b)/n for the mean, −2(a − b) for the sum (and for each ℓ with none)",
    )

    def vjp(self, xp, g, a, b):
        _, scale = self.args
        # PyTorch's order: (a - b) · (2/n) · g
        ga = (a - b) * (2 * scale) * g
        return (ga if self.needs(0) else None), (-ga if self.needs(1) else None)


def mse_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:
    """Mean squared error. Unlike PyTorch, which only warns, mismatched shapes are an error."""
    x, y = operand(input), operand(target)
    _same_shape("mse_loss", x, y)
    scale = _reduction_scale(reduction, x._data.size)
    diff = binary("mse_loss", np.subtract, x, y)  # PyTorch's dtype: float32 - float64 is float64
    out = _reduced(diff * diff, reduction)
    return record(MseLossBackward0, out, (x, y), saved=(x, y), args=(reduction, scale))
