"""Plotting helpers (matplotlib): a function with its derivatives, and loss curves.

    import autogradviz as agv
    agv.plot.function_and_grad(lambda x: x.sin(), (-3, 3), second=True)
    agv.plot.loss_curve({"train": train_losses, "val": val_losses})

Both return a `matplotlib.figure.Figure`, which Jupyter shows as the cell's
output. The figures are made with `Figure(...)` directly, not with `pyplot`:
pyplot keeps a global list of open figures, and a figure on that list would be
shown a second time at the end of the cell. Here nothing global changes.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from ..backward_and_grad import grad
from ..core.creation import tensor, zeros_like
from ..core.dtypes import float64
from ..core.tensor import Tensor


class InlineFigure(Figure):
    """A matplotlib Figure that Jupyter shows as a picture even when pyplot was
    never imported (a plain `Figure()` then shows only as text)."""

    def _repr_png_(self) -> bytes:
        buffer = io.BytesIO()
        self.savefig(buffer, format="png", bbox_inches="tight")
        return buffer.getvalue()


def _x_values(x_range, num: int) -> np.ndarray:
    """(low, high) -> `num` evenly spaced points; anything else is the x values."""
    if isinstance(x_range, tuple) and len(x_range) == 2:
        return np.linspace(float(x_range[0]), float(x_range[1]), num)
    if isinstance(x_range, Tensor):
        x_range = x_range.detach().numpy()
    return np.asarray(x_range, dtype=np.float64).ravel()


def _derivative(y: Tensor, x: Tensor, create_graph: bool) -> Tensor:
    """dy/dx at every point. f is elementwise (y[i] depends on x[i] only), so
    the gradient of y.sum() with respect to x holds each point's derivative."""
    if not y.requires_grad:  # y does not depend on x, e.g. f' of a straight line
        return zeros_like(x)
    (dy,) = grad(y.sum(), x, create_graph=create_graph, allow_unused=True)
    return zeros_like(x) if dy is None else dy


def function_and_grad(
    f: Callable[[Tensor], Tensor],
    x_range: tuple[float, float] | Sequence[float] | np.ndarray | Tensor,
    *,
    second: bool = False,
    num: int = 200,
    title: str | None = None,
) -> Figure:
    """Plot f(x), its derivative f'(x) computed by autograd, and with
    `second=True` its second derivative f''(x) too.

    f: a function of a tensor, elementwise, written with autogradviz ops
    (`x.sin()`, `x ** 3`, `agv.exp(x)`, ...). x_range: (low, high), sampled at
    `num` points, or the x values themselves (a list, array or tensor).

    f'' is the derivative of f': the first `agv.grad` call runs with
    `create_graph=True`, so that f' is itself a graph that can be differentiated.
    """
    xs = _x_values(x_range, num)
    x = tensor(xs, dtype=float64, requires_grad=True)
    y = f(x)
    if not isinstance(y, Tensor) or y.shape != x.shape:
        got = f"shape {y.shape}" if isinstance(y, Tensor) else type(y).__name__
        raise TypeError(
            f"function_and_grad: f(x) must return a tensor of the same shape as x {x.shape}, "
            f"computed with autogradviz ops (x.sin(), not np.sin(x)); got {got}"
        )
    dy = _derivative(y, x, create_graph=second)
    curves = [("f(x)", y, "-"), ("f'(x)", dy, "--")]
    if second:
        curves.append(("f''(x)", _derivative(dy, x, create_graph=False), ":"))

    fig = InlineFigure(figsize=(6, 4), layout="constrained")
    ax = fig.add_subplot()
    ax.axhline(0, color="0.8", linewidth=0.8, zorder=0)  # where f' crosses 0, f is flat
    for label, values, style in curves:
        ax.plot(xs, values.detach().numpy(), style, label=label)
    ax.set_xlabel("x")
    ax.set_title(title or ("f and its derivatives" if second else "f and its derivative"))
    ax.legend()
    return fig


def _floats(values) -> np.ndarray:
    """A list of numbers or 0-d tensors (e.g. losses appended without .item())."""
    return np.array([float(v) for v in values], dtype=np.float64)


def loss_curve(
    history: Sequence | Mapping[str, Sequence],
    *,
    xlabel: str = "step",
    ylabel: str = "loss",
    log: bool = False,
    title: str | None = "Loss curve",
) -> Figure:
    """Plot recorded losses against the step number (0, 1, 2, ...).

    history: a list of floats or 0-d tensors, or a dict of such lists, one curve
    per name (for example {"train": [...], "val": [...]}). log=True plots the
    loss on a log scale, where a steady decrease shows as a straight line.
    """
    curves = history.items() if isinstance(history, Mapping) else [(None, history)]
    fig = InlineFigure(figsize=(6, 4), layout="constrained")
    ax = fig.add_subplot()
    for name, values in curves:
        losses = _floats(values)
        ax.plot(np.arange(len(losses)), losses, label=name)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # steps are whole numbers
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if log:
        ax.set_yscale("log")
    if title:
        ax.set_title(title)
    if isinstance(history, Mapping):
        ax.legend()
    return fig
