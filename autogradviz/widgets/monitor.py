"""TrainingMonitor: watch a training loop, in Jupyter or in a terminal.

    monitor = agv.viz.TrainingMonitor(total=200, model=model)
    for step in range(200):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        monitor.update(loss, accuracy=acc)  # after backward(), before the next zero_grad()
    monitor.finish()

In Jupyter it is a widget: a progress bar, the loss curve, the metrics, and
the size of each layer's gradient, redrawn while the loop runs. In a terminal
it prints one progress line and rewrites it in place.

Drawing a figure takes about 0.1 s, far longer than a small training step. So
the picture is redrawn at most every `every` seconds, and less often if drawing
is slow: drawing never takes more than about a tenth of the time.

Titles, metric and layer names are plain text: matplotlib would read `$...$`
in them as math (and fail mid-training on a name like `w_$x{$`), so `_plain()` escapes
every `$` before a name reaches a figure. The monitor keeps the model only
until `finish()`, so the parameters can be freed once training is over.
"""

from __future__ import annotations

import html
import io
import math
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TextIO

import ipywidgets as widgets
import matplotlib
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from ..core.tensor import Tensor
from .lifetime import forget_without_kernel, widget_tree

VANISHING = 1e-7  # a layer whose gradient norm is below this barely learns
EXPLODING = 1e3  # above this (or inf/nan), one step can throw the weights far away
COLORS = {"ok": "tab:blue", "vanishing": "tab:orange", "exploding": "tab:red"}

Params = Any  # a module (with named_parameters()), a dict {name: tensor}, or a list of named tensors


def grad_state(norm: float) -> str:
    """'vanishing', 'exploding' or 'ok': what a gradient norm says about a layer."""
    if not math.isfinite(norm) or norm > EXPLODING:
        return "exploding"
    return "vanishing" if norm < VANISHING else "ok"


def _named(params: Params) -> list[tuple[str, Any]]:
    """(name, tensor) pairs from a module, a dict, or a list of tensors (named by
    their `.name`) or of (name, tensor) pairs."""
    if hasattr(params, "named_parameters"):
        return list(params.named_parameters())
    if isinstance(params, Mapping):
        return list(params.items())
    return [
        p if isinstance(p, tuple) else (getattr(p, "name", None) or f"param{i}", p)
        for i, p in enumerate(params)
    ]


def layer_grad_norms(params: Params | Iterable[tuple[str, Any]]) -> dict[str, float | None]:
    """The L2 norm of each layer's gradient, in the parameters' order.

    Parameters are grouped by module prefix: `fc1.weight` and `fc1.bias` make
    the layer `fc1`, whose norm is that of both gradients together. A layer
    none of whose parameters has a `.grad` yet gets None.
    """
    squares: dict[str, float | None] = {}
    for name, param in _named(params):
        layer = name.rpartition(".")[0] or name
        squares.setdefault(layer, None)
        if param.grad is not None:
            flat = np.asarray(param.grad, dtype=np.float64).ravel()
            squares[layer] = (squares[layer] or 0.0) + float(flat @ flat)
    return {layer: None if s is None else math.sqrt(s) for layer, s in squares.items()}


def _plain(text: str) -> str:
    """`text` for a matplotlib Text, shown exactly as typed: with every `$`
    escaped, matplotlib finds no math in it (and a typed `\\$` shows as `\\$`)."""
    return str(text).replace("$", r"\$")


# the figure is drawn with these whatever the user's settings: with usetex, every name would go
# through LaTeX (where `_`, `^`, `%`, `#` fail); parse_math=False would show our `\$` as typed
_TEXT_SETTINGS = {"text.usetex": False, "text.parse_math": True}


def _in_jupyter_kernel() -> bool:
    """True inside a Jupyter kernel, where widgets show; False in a terminal or plain IPython."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and any(c.__name__ == "ZMQInteractiveShell" for c in type(shell).__mro__)


def _duration(seconds: float) -> str:
    """12 -> '0:12', 754 -> '12:34', 4000 -> '1:06:40'."""
    minutes, secs = divmod(round(max(seconds, 0)), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def _speed(rate: float | None) -> str:
    if not rate:
        return "? it/s"
    return f"{rate:.1f} it/s" if rate >= 1 else f"{1 / rate:.1f} s/it"  # slow steps read better as s/it


def _text_bar(done: int, total: int, width: int = 20) -> str:
    filled = int(width * min(done / total, 1))
    return "[" + "#" * filled + "-" * (width - filled) + "]"


class TrainingMonitor(widgets.VBox):
    """Watch training: progress, loss curve, metrics and per-layer gradient norms.

    total: the number of steps, for the progress bar and the ETA (optional).
    model: whose gradients to show (widget only): a module (anything with
        `named_parameters()`), a dict {name: tensor}, or a list of named tensors.
        It can also be given to `update()`.
    mode: "widget" (Jupyter), "text" (one progress line printed to `file`), or
        "auto": the widget inside a Jupyter kernel, text anywhere else.
    every: redraw at most every `every` seconds.
    log_loss: plot the loss on a log scale.
    file: where text mode prints (default: sys.stderr).
    clock: the time in seconds; tests pass a fake one.
    show: in Jupyter, display the widget at once (so it shows while the loop runs).

    After `finish()` the picture stays; `close()` also removes the widget.
    `with TrainingMonitor(...) as monitor:` calls finish() at the end.
    """

    def __repr__(self) -> str:
        # short and with no memory address: notebooks store it as text/plain, and nbval compares it
        return f"<autogradviz TrainingMonitor: step {self.step}>"

    def __init__(
        self,
        total: int | None = None,
        *,
        model: Params | None = None,
        mode: str = "auto",
        every: float = 0.2,
        log_loss: bool = False,
        title: str = "Training",
        file: TextIO | None = None,
        clock: Callable[[], float] = time.perf_counter,
        show: bool = True,
    ):
        if mode == "auto":
            mode = "widget" if _in_jupyter_kernel() else "text"
        if mode not in ("widget", "text"):
            raise ValueError(f"TrainingMonitor: mode must be 'auto', 'widget' or 'text', not {mode!r}")
        self.mode, self.total, self.every, self.log_loss, self.title = mode, total, every, log_loss, title
        self.file = sys.stderr if file is None else file
        self.clock = clock
        self.step = 0
        self.losses: list[float] = []
        self.metrics: dict[str, list[tuple[int, float]]] = {}  # name -> [(step, value), ...]
        self.grad_norms: dict[str, float | None] = {}
        self.redraws = 0
        self.finished = False
        self._params = None if model is None else _named(model)
        self._start = clock()
        self._end: float | None = None
        self._next_redraw = self._start  # the first update shows at once
        self._line_length = 0
        children = []
        if mode == "widget":
            self.bar = widgets.IntProgress(value=0, max=max(total or 1, 1))
            self.bar.layout.display = None if total else "none"
            self.status = widgets.HTML()
            self.image = widgets.Image(format="png", layout=widgets.Layout(max_width="100%"))
            self.figure = Figure(dpi=80, layout="constrained")
            FigureCanvasAgg(self.figure)  # draws to pixels, without pyplot
            children = [widgets.HBox([self.bar, self.status]), self.image]
        super().__init__(children)
        # the bar, status, image, their box, layouts and styles: close() closes them too
        self._made = [w for w in widget_tree(self) if w is not self]
        forget_without_kernel([self, *self._made])
        if mode == "widget" and show and _in_jupyter_kernel():
            from IPython.display import display

            display(self)

    def update(self, loss: float | Tensor, *, model: Params | None = None, **metrics: float) -> None:
        """Record one step: its loss (a float or a 0-d tensor) and any metrics,
        e.g. `update(loss, accuracy=0.93)`. Call it after `backward()` and
        before the next `zero_grad()`, while the gradients are there."""
        self.step += 1
        self.losses.append(float(loss))
        for name, value in metrics.items():
            self.metrics.setdefault(name, []).append((self.step, float(value)))
        if model is not None:
            self._params = _named(model)
        if self.clock() >= self._next_redraw:
            if self.mode == "widget" and self._params is not None:
                # read here, not in redraw(): finish() after a zero_grad() keeps the last norms
                self.grad_norms = layer_grad_norms(self._params)
            self.redraw()

    def status_text(self) -> str:
        """The progress line: step, loss, metrics, speed, and the time left."""
        elapsed = (self._end if self.finished else self.clock()) - self._start
        rate = self.step / elapsed if elapsed > 0 else None
        parts = [f"step {self.step}" + (f"/{self.total}" if self.total else "")]
        if self.losses:
            parts.append(f"loss {self.losses[-1]:.4g}")
        parts += [f"{name} {points[-1][1]:.4g}" for name, points in self.metrics.items()]
        parts.append(_speed(rate))
        if self.finished:
            parts.append(f"done in {_duration(elapsed)}")
        elif self.total and rate:
            parts.append(f"ETA {_duration((self.total - self.step) / rate)}")
        else:
            parts.append(f"elapsed {_duration(elapsed)}")
        return " | ".join(parts)

    def redraw(self) -> None:
        """Show the current state now (update() calls this when a redraw is due)."""
        started = self.clock()
        self.redraws += 1
        if self.mode == "text":
            line = self.status_text()
            if self.total:
                line = f"{_text_bar(self.step, self.total)} {line}"
            # pad with spaces to wipe out the end of a longer previous line
            self.file.write("\r" + line.ljust(self._line_length))
            self.file.flush()
            self._line_length = len(line)
        else:
            self.bar.value = min(self.step, self.bar.max)
            self.status.value = f"<code>{html.escape(self.status_text())}</code>"
            self.image.value = self._render_png()
        took = self.clock() - started
        self._next_redraw = self.clock() + max(self.every, 9 * took)  # drawing: at most ~10% of the time

    def finish(self) -> None:
        """Show the final state and stop the clock (in text mode, end the line).
        The model is let go: its last gradient norms stay in `grad_norms`."""
        # before the early return: a model given to an update() after finish() is let go as well
        self._params = None
        if self.finished:
            return
        self._end, self.finished = self.clock(), True
        self.redraw()
        if self.mode == "text":
            self.file.write("\n")
            self.file.flush()
        else:
            self.bar.bar_style = "success"

    def close(self) -> None:
        """finish(), then close the widget: in Jupyter its view disappears."""
        self.finish()
        super().close()
        for widget in self._made:  # a closed box does not close its children: in a kernel they would stay
            widget.close()
        self._made = []

    def __del__(self) -> None:
        super().close()  # garbage collection only frees the widget: it prints nothing

    def __enter__(self) -> TrainingMonitor:
        return self

    def __exit__(self, *exc_info) -> None:
        self.finish()

    # -- the picture -------------------------------------------------------------

    def _render_png(self) -> bytes:
        """Draw the panels afresh (loss; metrics if any; gradient norms if a model
        was given) and return the figure as PNG bytes."""
        # the tick labels are made while drawing, so the whole drawing runs with these settings
        with matplotlib.rc_context(_TEXT_SETTINGS):
            return self._draw_figure()

    def _draw_figure(self) -> bytes:
        fig = self.figure
        fig.clear()
        panels = 1 + bool(self.metrics) + bool(self.grad_norms)
        fig.set_size_inches(4 * panels, max(3.2, 1.2 + 0.25 * len(self.grad_norms)))
        axes = list(fig.subplots(1, panels, squeeze=False)[0])
        loss_ax = axes.pop(0)
        loss_ax.plot(range(1, len(self.losses) + 1), self.losses, color="tab:blue", linewidth=1.2)
        loss_ax.set(title="loss", xlabel="step", yscale="log" if self.log_loss else "linear")
        loss_ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        loss_ax.grid(alpha=0.3)
        if self.metrics:
            ax = axes.pop(0)
            ax.sharex(loss_ax)
            lines = []
            for name, points in self.metrics.items():
                steps, values = zip(*points)
                lines += ax.plot(steps, values, marker="." if len(points) <= 50 else None, label=name)
            ax.set(title="metrics", xlabel="step")
            ax.grid(alpha=0.3)
            # labels given, not collected: legend() would skip a name starting with "_"
            ax.legend(lines, [_plain(name) for name in self.metrics])
        if self.grad_norms:
            _plot_grad_norms(axes.pop(0), self.grad_norms)
        fig.suptitle(f"{_plain(self.title)} - step {self.step}" + (f"/{self.total}" if self.total else ""))
        buffer = io.BytesIO()
        fig.canvas.print_png(buffer)
        return buffer.getvalue()


def _plot_grad_norms(ax, norms: dict[str, float | None]) -> None:
    """One horizontal bar per layer, on a log scale, the first layer at the top;
    vanishing and exploding norms are colored and their zones shaded."""
    seen = [n for n in norms.values() if n is not None and 0 < n < math.inf]
    low = min([VANISHING / 10, *(n / 10 for n in seen)])
    high = max([EXPLODING * 10, *(n * 10 for n in seen)])
    for start, end, state in ((low, VANISHING, "vanishing"), (EXPLODING, high, "exploding")):
        ax.axvspan(start, end, color=COLORS[state], alpha=0.12, zorder=0)
        middle = math.sqrt(start * end)  # the zone's middle, on a log axis
        ax.text(middle, 1.01, state, transform=ax.get_xaxis_transform(), ha="center", va="bottom",
                color=COLORS[state], fontsize=9)  # fmt: skip
    for y, norm in enumerate(norms.values()):
        if norm is None:
            ax.text(low, y, "  no .grad", va="center", color="0.5", fontsize=9)
            continue
        end = high if math.isnan(norm) else min(max(norm, low), high)  # 0 and inf show at the edges
        ax.barh(y, end - low, left=low, height=0.6, color=COLORS[grad_state(norm)])
        inside = end > high / 1e3  # near the right edge: write the number inside the bar
        ax.text(end, y, f" {norm:.2g} ", va="center", fontsize=9,
                ha="right" if inside else "left", color="white" if inside else "black")  # fmt: skip
    ax.set_xscale("log")
    ax.set_xlim(low, high)
    ax.set_ylim(len(norms) - 0.5, -0.5)  # the first layer at the top
    ax.set_yticks(range(len(norms)), [_plain(name) for name in norms])
    ax.set_title("gradient norm per layer", pad=16)  # room for the zones' names
    ax.set_xlabel("L2 norm of the gradient (log scale)")
    ax.grid(axis="x", alpha=0.3)
