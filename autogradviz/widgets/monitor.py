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
every `$` before a name reaches a figure. They are shown on one line, as
viz/user_text.py says: a newline or an ESC in a metric's name is written `\\n`,
`\\x1b` (it never reaches the terminal raw), and a long name is cut with "…".
The monitor keeps the model only
until `finish()`, so the parameters can be freed once training is over.

Every word the monitor shows comes from `autogradviz/ui_text.py`, in the
language of `agv.set_language()` or of `language=`. Chinese in a matplotlib
figure needs a font with Chinese glyphs: `cjk_font()` picks the first one
installed, and the monitor warns once if there is none (the text would be boxes).
"""

from __future__ import annotations

import functools
import html
import io
import math
import re
import sys
import time
import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TextIO

import ipywidgets as widgets
import matplotlib
import numpy as np
from matplotlib import font_manager
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from ..core.tensor import Tensor
from ..ui_text import resolve_language, text
from ..viz.labels import sum_of_squares
from ..viz.user_text import columns, shortened, visible
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
            squares[layer] = (squares[layer] or 0.0) + sum_of_squares(np.asarray(param.grad))
    return {layer: None if s is None else math.sqrt(s) for layer, s in squares.items()}


def _name(name: object) -> str:
    """A metric's or a layer's name as the monitor shows it, on one line: its
    control characters made visible (a newline as `\\n`, ESC as `\\x1b`), and cut
    in the middle past LABEL_COLUMNS (viz/user_text.py)."""
    return shortened(visible(name))


def _plain(text: str) -> str:
    """`text` for a matplotlib Text, shown exactly as typed: with every `$`
    escaped, matplotlib finds no math in it (and a typed `\\$` shows as `\\$`).
    visible() first: a lone surrogate would make matplotlib raise, an ESC draw as a box."""
    return visible(text).replace("$", r"\$")


# the figure is drawn with these whatever the user's settings: with usetex, every name would go
# through LaTeX (where `_`, `^`, `%`, `#` fail); parse_math=False would show our `\$` as typed
_TEXT_SETTINGS = {"text.usetex": False, "text.parse_math": True}

# fonts with Simplified Chinese glyphs, the most common first (Linux, Linux, Linux, macOS, Windows)
CJK_FONTS = (
    "Noto Sans CJK SC",
    "Source Han Sans SC",
    "WenQuanYi Micro Hei",
    "PingFang SC",
    "Microsoft YaHei",
)
# their files, for a font installed after matplotlib cached its font list (which it never refreshes)
CJK_FONT_FILES = ("notosanscjk", "sourcehansans", "wqy-microhei", "pingfang", "msyh")
_CJK = re.compile("[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")  # CJK, kana, hangul, full-width
_warned = {"no_cjk_font": False}


def has_cjk(label: str) -> bool:
    """True if `label` has a Chinese (or other CJK) character, which needs a CJK font."""
    return _CJK.search(label) is not None


@functools.cache
def cjk_font() -> str | None:
    """The name of the first installed font of CJK_FONTS, or None if there is none."""

    def installed() -> str | None:
        names = {entry.name for entry in font_manager.fontManager.ttflist}
        return next((name for name in CJK_FONTS if name in names), None)

    found = installed()
    if found is None:
        for path in font_manager.findSystemFonts():
            if any(hint in path.lower().replace("_", "") for hint in CJK_FONT_FILES):
                try:
                    font_manager.fontManager.addfont(path)
                except (OSError, RuntimeError, ValueError):  # an unreadable file: look at the next
                    continue
        found = installed()
    return found


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


def _speed(rate: float | None, language: str) -> str:
    if not rate:
        return text("monitor.rate_unknown", language)
    if rate >= 1:
        return text("monitor.steps_per_second", language, rate=f"{rate:.1f}")
    return text("monitor.seconds_per_step", language, seconds=f"{1 / rate:.1f}")  # slow steps read better


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
    title: the figure's title (default: "Training", in the monitor's language).
    file: where text mode prints (default: sys.stderr).
    clock: the time in seconds; tests pass a fake one.
    show: in Jupyter, display the widget at once (so it shows while the loop runs).
    language: "en" or "zh" for every word the monitor shows (default: the one
        of `agv.set_language()` when the monitor is made).

    After `finish()` the picture stays; `close()` also removes the widget.
    `with TrainingMonitor(...) as monitor:` calls finish() at the end.
    """

    def __repr__(self) -> str:
        # short and with no memory address: notebooks store it as text/plain, and nbval compares it
        return text("monitor.repr", self.language, step=self.step)

    def __init__(
        self,
        total: int | None = None,
        *,
        model: Params | None = None,
        mode: str = "auto",
        every: float = 0.2,
        log_loss: bool = False,
        title: str | None = None,
        file: TextIO | None = None,
        clock: Callable[[], float] = time.perf_counter,
        show: bool = True,
        language: str | None = None,
    ):
        self.language = resolve_language(language)
        if title is None:
            title = text("monitor.default_title", self.language)
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
        if self.mode == "widget" and self._params is not None:
            # read at every step, not only when a redraw is due: finish() then shows the last
            # step's norms, even after a zero_grad() has cleared the gradients
            self.grad_norms = layer_grad_norms(self._params)
        if self.clock() >= self._next_redraw:
            self.redraw()

    def status_text(self) -> str:
        """The progress line: step, loss, metrics, speed, and the time left."""
        elapsed = (self._end if self.finished else self.clock()) - self._start
        rate = self.step / elapsed if elapsed > 0 else None
        language = self.language
        parts = [self._step_text()]
        if self.losses:
            parts.append(text("monitor.loss_value", language, value=f"{self.losses[-1]:.4g}"))
        parts += [f"{_name(name)} {points[-1][1]:.4g}" for name, points in self.metrics.items()]
        parts.append(_speed(rate, language))
        if self.finished:
            parts.append(text("monitor.done_in", language, duration=_duration(elapsed)))
        elif self.total and rate:
            parts.append(text("monitor.eta", language, duration=_duration((self.total - self.step) / rate)))
        else:
            parts.append(text("monitor.elapsed", language, duration=_duration(elapsed)))
        return " | ".join(parts)

    def _step_text(self) -> str:
        """'step 8/100', or 'step 8' without a total."""
        if self.total:
            return text("monitor.step_of", self.language, step=self.step, total=self.total)
        return text("monitor.step", self.language, step=self.step)

    def redraw(self) -> None:
        """Show the current state now (update() calls this when a redraw is due)."""
        started = self.clock()
        self.redraws += 1
        if self.mode == "text":
            line = self.status_text()
            if self.total:
                line = f"{_text_bar(self.step, self.total)} {line}"
            # pad with spaces to wipe out the end of a longer previous line (in columns: a Chinese
            # character takes two)
            self.file.write("\r" + line + " " * max(self._line_length - columns(line), 0))
            self.file.flush()
            self._line_length = columns(line)
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
        with matplotlib.rc_context({**_TEXT_SETTINGS, **self._font_settings()}), warnings.catch_warnings():
            if self._needs_cjk() and cjk_font() is None:
                # warned once already: matplotlib's own warning, one per missing glyph per redraw, would flood
                warnings.filterwarnings("ignore", message="Glyph .* missing from font", category=UserWarning)
            return self._draw_figure()

    def _labels(self) -> list[str]:
        """The user's text that the figure shows: the title, the metrics' and the layers' names."""
        return [self.title, *self.metrics, *self.grad_norms]

    def _needs_cjk(self) -> bool:
        return self.language == "zh" or any(has_cjk(str(label)) for label in self._labels())

    def _font_settings(self) -> dict:
        """matplotlib settings that add a CJK font after the usual ones, when the figure needs one:
        Latin text keeps its font, and a glyph missing from it is taken from the CJK font."""
        if not self._needs_cjk():
            return {}
        font = cjk_font()
        if font is None:
            if not _warned["no_cjk_font"]:
                _warned["no_cjk_font"] = True
                warnings.warn(text("monitor.no_cjk_font", self.language), UserWarning, stacklevel=4)
            return {}
        families = list(matplotlib.rcParams["font.family"])
        return {"font.family": [*families, font] if font not in families else families}

    def _draw_figure(self) -> bytes:
        fig = self.figure
        fig.clear()
        panels = 1 + bool(self.metrics) + bool(self.grad_norms)
        fig.set_size_inches(4 * panels, max(3.2, 1.2 + 0.25 * len(self.grad_norms)))
        axes = list(fig.subplots(1, panels, squeeze=False)[0])
        loss_ax = axes.pop(0)
        loss_ax.plot(range(1, len(self.losses) + 1), self.losses, color="tab:blue", linewidth=1.2)
        language = self.language
        step_axis = text("monitor.step_axis", language)
        loss_title = text("monitor.loss_title", language)
        loss_ax.set(title=loss_title, xlabel=step_axis, yscale="log" if self.log_loss else "linear")
        loss_ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        loss_ax.grid(alpha=0.3)
        if self.metrics:
            ax = axes.pop(0)
            ax.sharex(loss_ax)
            lines = []
            for name, points in self.metrics.items():
                steps, values = zip(*points)
                lines += ax.plot(steps, values, marker="." if len(points) <= 50 else None, label=name)
            ax.set(title=text("monitor.metrics_title", language), xlabel=step_axis)
            ax.grid(alpha=0.3)
            # labels given, not collected: legend() would skip a name starting with "_"
            ax.legend(lines, [_plain(_name(name)) for name in self.metrics])
        if self.grad_norms:
            _plot_grad_norms(axes.pop(0), self.grad_norms, language)
        fig.suptitle(f"{_plain(self.title)} - {self._step_text()}")
        buffer = io.BytesIO()
        fig.canvas.print_png(buffer)
        return buffer.getvalue()


def _plot_grad_norms(ax, norms: dict[str, float | None], language: str) -> None:
    """One horizontal bar per layer, on a log scale, the first layer at the top;
    vanishing and exploding norms are colored and their zones shaded."""
    seen = [n for n in norms.values() if n is not None and 0 < n < math.inf]
    low = min([VANISHING / 10, *(n / 10 for n in seen)])
    high = max([EXPLODING * 10, *(n * 10 for n in seen)])
    for start, end, state in ((low, VANISHING, "vanishing"), (EXPLODING, high, "exploding")):
        ax.axvspan(start, end, color=COLORS[state], alpha=0.12, zorder=0)
        middle = math.sqrt(start * end)  # the zone's middle, on a log axis
        ax.text(middle, 1.01, text(f"monitor.{state}", language), transform=ax.get_xaxis_transform(), ha="center", va="bottom",
                color=COLORS[state], fontsize=9)  # fmt: skip
    for y, norm in enumerate(norms.values()):
        if norm is None:
            ax.text(low, y, "  " + text("monitor.no_grad", language), va="center", color="0.5", fontsize=9)
            continue
        end = high if math.isnan(norm) else min(max(norm, low), high)  # 0 and inf show at the edges
        ax.barh(y, end - low, left=low, height=0.6, color=COLORS[grad_state(norm)])
        inside = end > high / 1e3  # near the right edge: write the number inside the bar
        ax.text(end, y, f" {norm:.2g} ", va="center", fontsize=9,
                ha="right" if inside else "left", color="white" if inside else "black")  # fmt: skip
    ax.set_xscale("log")
    ax.set_xlim(low, high)
    ax.set_ylim(len(norms) - 0.5, -0.5)  # the first layer at the top
    ax.set_yticks(range(len(norms)), [_plain(_name(name)) for name in norms])
    ax.set_title(text("monitor.grad_title", language), pad=16)  # room for the zones' names
    ax.set_xlabel(text("monitor.grad_axis", language))
    ax.grid(axis="x", alpha=0.3)
