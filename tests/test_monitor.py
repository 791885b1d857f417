"""agv.viz.TrainingMonitor: the text progress line, the widget, per-layer
gradient norms and redraw throttling, all timed by a fake clock. Parameters
are plain tensors with names like "fc1.weight" (no agv.nn needed); expected
norms are computed with numpy."""

import contextlib
import io
import subprocess
import sys
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # headless, before pyplot is imported

import ipywidgets  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402 - only to check that no pyplot figure is opened
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib import font_manager  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.colors import to_rgba  # noqa: E402
from matplotlib.font_manager import FontProperties  # noqa: E402
from matplotlib.ft2font import FT2Font  # noqa: E402

import autogradviz as agv  # noqa: E402
from autogradviz.ui_text import text  # noqa: E402
from autogradviz.widgets import monitor as monitor_module  # noqa: E402
from autogradviz.widgets.monitor import COLORS, TrainingMonitor, grad_state, layer_grad_norms  # noqa: E402

ARTIFACTS = Path(__file__).parent / "artifacts"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(autouse=True)
def no_pyplot_figures():
    plt.close("all")
    yield
    assert plt.get_fignums() == []


class FakeClock:
    """Time stands still until a test moves it."""

    def __init__(self, now: float = 100.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


def param(name, grad=None, shape=(3, 2)):
    t = agv.zeros(*shape, dtype=agv.float64, requires_grad=True)
    t.name = name
    if grad is not None:
        t.grad = agv.tensor(np.asarray(grad, dtype=np.float64))
    return t


def last_line(stream: io.StringIO) -> str:
    return stream.getvalue().split("\r")[-1].rstrip()


# -- text mode -----------------------------------------------------------------


def test_text_line_shows_step_loss_metrics_rate_and_eta():
    clock, out = FakeClock(), io.StringIO()
    monitor = TrainingMonitor(total=100, mode="text", file=out, clock=clock, every=0.25)
    for i in range(1, 9):  # 8 steps of 0.25 s: 4 it/s, 92 steps left -> 23 s
        clock.now += 0.25
        monitor.update(0.5 / i, acc=0.25, lr=1e-3)
    assert (
        last_line(out)
        == "[#-------------------] step 8/100 | loss 0.0625 | acc 0.25 | lr 0.001 | 4.0 it/s | ETA 0:23"
    )
    assert out.getvalue().count("\r") == 8  # a redraw was due at every step
    assert "\n" not in out.getvalue()

    clock.now += 1.0
    monitor.finish()
    assert out.getvalue().endswith("\n") and out.getvalue().count("\n") == 1
    assert (
        last_line(out)
        == "[#-------------------] step 8/100 | loss 0.0625 | acc 0.25 | lr 0.001 | 2.7 it/s | done in 0:03"
    )
    monitor.finish()  # a second finish changes nothing
    assert out.getvalue().count("\n") == 1


def test_text_without_total_shows_elapsed_and_slow_steps_as_seconds_per_step():
    clock, out = FakeClock(), io.StringIO()
    monitor = TrainingMonitor(mode="text", file=out, clock=clock)
    clock.now += 130.0  # one step in 2 min 10 s
    monitor.update(agv.tensor(1.5))  # a 0-d tensor works as a loss
    assert last_line(out) == "step 1 | loss 1.5 | 130.0 s/it | elapsed 2:10"


def test_text_rewrites_one_line_and_wipes_a_longer_previous_one():
    clock, out = FakeClock(), io.StringIO()
    monitor = TrainingMonitor(total=10, mode="text", file=out, clock=clock)
    clock.now += 1.0
    monitor.update(123.456789, accuracy=0.5)
    clock.now += 1.0
    monitor.update(1.0)  # the accuracy is still the latest value shown
    first, second = out.getvalue().split("\r")[1:]
    assert len(second) >= len(first)
    assert second.rstrip() == "[####----------------] step 2/10 | loss 1 | accuracy 0.5 | 1.0 it/s | ETA 0:08"


def test_text_prints_are_throttled():
    clock, out = FakeClock(), io.StringIO()
    monitor = TrainingMonitor(total=1000, mode="text", file=out, clock=clock, every=0.2)
    for _ in range(1000):  # no time passes: only the first update prints
        monitor.update(1.0)
    assert monitor.redraws == 1 and out.getvalue().count("\r") == 1
    clock.now += 0.2
    monitor.update(1.0)
    assert monitor.redraws == 2
    assert "step 1001/1000" in last_line(out)


def test_auto_mode_is_text_outside_jupyter():
    out = io.StringIO()
    monitor = TrainingMonitor(total=3, file=out)
    assert monitor.mode == "text"
    with monitor:
        monitor.update(1.0)
    assert monitor.finished and out.getvalue().endswith("\n")


def test_unknown_mode_is_an_error():
    with pytest.raises(ValueError, match="mode must be"):
        TrainingMonitor(mode="html")


# -- gradient norms --------------------------------------------------------------


def test_layer_grad_norms_group_by_module_and_match_numpy():
    rng = np.random.default_rng(0)
    g1w, g1b, g2w = rng.standard_normal((3, 2)), rng.standard_normal(2), rng.standard_normal((2, 2))
    params = [
        param("fc1.weight", g1w),
        param("fc1.bias", g1b, shape=(2,)),
        param("fc2.weight", g2w, shape=(2, 2)),
        param("fc2.bias", None, shape=(2,)),  # no .grad: left out of fc2's norm
        param("out.weight", None),  # no .grad at all
    ]
    norms = layer_grad_norms(params)
    assert list(norms) == ["fc1", "fc2", "out"]
    both = np.concatenate([g1w.ravel(), g1b])
    assert norms["fc1"] == pytest.approx(np.linalg.norm(both), rel=1e-14)
    assert norms["fc2"] == np.linalg.norm(g2w)
    assert norms["out"] is None

    # the same from a dict, from (name, tensor) pairs and from anything with named_parameters()
    class Model:
        def named_parameters(self):
            return iter([(p.name, p) for p in params])

    as_dict = {p.name: p for p in params}
    assert layer_grad_norms(as_dict) == norms
    assert layer_grad_norms(list(as_dict.items())) == norms
    assert layer_grad_norms(Model()) == norms


def test_names_without_a_module_prefix_and_unnamed_tensors():
    w = agv.tensor([3.0, 4.0], requires_grad=True)
    w.grad = agv.tensor([3.0, 4.0])
    assert layer_grad_norms({"w": w}) == {"w": 5.0}
    unnamed = agv.tensor([1.0], requires_grad=True)
    unnamed.grad = agv.tensor([2.0])
    assert layer_grad_norms([unnamed]) == {"param0": 2.0}


@pytest.mark.parametrize(
    "norm, state",
    [(0.0, "vanishing"), (1e-8, "vanishing"), (1e-7, "ok"), (1.0, "ok"), (1e3, "ok"), (1e3 + 1, "exploding"),
     (float("inf"), "exploding"), (float("nan"), "exploding")],
)  # fmt: skip
def test_grad_state_thresholds(norm, state):
    assert grad_state(norm) == state


# -- widget mode -----------------------------------------------------------------


def widget_monitor(**options):
    clock = FakeClock()
    return TrainingMonitor(mode="widget", clock=clock, **options), clock


def test_widget_shows_png_and_progress():
    monitor, clock = widget_monitor(total=50)
    assert isinstance(monitor, ipywidgets.Widget)
    assert bytes(monitor.image.value) == b""  # nothing drawn before the first step
    for i in range(10):  # 10 steps in 2.5 s: 4 it/s, 40 left -> 10 s
        clock.now += 0.25
        monitor.update(1.0 / (i + 1), accuracy=0.1 * (i + 1))
    assert bytes(monitor.image.value).startswith(PNG_MAGIC)
    assert monitor.bar.value == 10 and monitor.bar.max == 50
    assert monitor.status.value == "<code>step 10/50 | loss 0.1 | accuracy 1 | 4.0 it/s | ETA 0:10</code>"
    assert len(monitor.figure.axes) == 2  # loss and metrics, no model given
    loss_ax, metrics_ax = monitor.figure.axes
    np.testing.assert_allclose(loss_ax.get_lines()[0].get_ydata(), 1.0 / np.arange(1, 11))
    (accuracy,) = metrics_ax.get_lines()
    assert accuracy.get_label() == "accuracy"
    np.testing.assert_allclose(accuracy.get_ydata(), 0.1 * np.arange(1, 11))

    clock.now += 2.5
    monitor.finish()
    assert monitor.bar.bar_style == "success"
    assert monitor.status.value == "<code>step 10/50 | loss 0.1 | accuracy 1 | 2.0 it/s | done in 0:05</code>"


def test_widget_grad_panel_lists_layers_flags_and_matches_numpy():
    rng = np.random.default_rng(1)
    grads = {
        "fc1.weight": rng.standard_normal((3, 2)) * 1e-9,  # vanishing
        "fc1.bias": rng.standard_normal(2) * 1e-9,
        "fc2.weight": rng.standard_normal((3, 2)),  # fine
        "fc3.weight": rng.standard_normal((3, 2)) * 1e4,  # exploding
    }
    params = [param(name, g, shape=g.shape) for name, g in grads.items()]
    monitor, _ = widget_monitor(model=params)
    monitor.update(0.5)
    expected = {
        "fc1": np.linalg.norm(np.concatenate([grads["fc1.weight"].ravel(), grads["fc1.bias"]])),
        "fc2": np.linalg.norm(grads["fc2.weight"]),
        "fc3": np.linalg.norm(grads["fc3.weight"]),
    }
    assert list(monitor.grad_norms) == list(expected)
    for layer, norm in expected.items():
        assert monitor.grad_norms[layer] == pytest.approx(norm, rel=1e-14)

    panel = monitor.figure.axes[-1]
    assert [t.get_text() for t in panel.get_yticklabels()] == ["fc1", "fc2", "fc3"]
    assert panel.get_xscale() == "log"
    bars = [container.patches[0] for container in panel.containers]  # the bars, not the shaded zones
    colors = [p.get_facecolor() for p in bars]
    assert colors == [to_rgba(COLORS[s]) for s in ("vanishing", "ok", "exploding")]
    for bar, norm in zip(bars, expected.values()):  # bars end at the norm (on the axis' range)
        assert bar.get_x() + bar.get_width() == pytest.approx(norm, rel=1e-9)
    texts = {t.get_text().strip() for t in panel.texts}
    assert {"vanishing", "exploding", f"{expected['fc2']:.2g}"} <= texts


def test_model_given_to_update_and_read_through_named_parameters():
    class Model:  # any object with named_parameters(), like an agv.nn.Module
        def __init__(self):
            self.w = param("layer.weight", [[1.0, 2.0], [2.0, 0.0], [0.0, 0.0]])

        def named_parameters(self):
            yield "layer.weight", self.w

    model = Model()
    monitor, clock = widget_monitor()
    monitor.update(1.0)
    assert monitor.grad_norms == {} and len(monitor.figure.axes) == 1  # no model yet: loss only
    clock.now += 1.0
    monitor.update(0.9, model=model)
    assert monitor.grad_norms == {"layer": 3.0}
    model.w.grad = agv.tensor(np.zeros((3, 2)))  # the model is kept: later updates read the new grads
    clock.now += 1.0
    monitor.update(0.8)
    assert monitor.grad_norms == {"layer": 0.0}
    assert monitor.figure.axes[-1].patches[-1].get_facecolor() == to_rgba(COLORS["vanishing"])
    model.w.grad = None  # zero_grad() before finish(): the picture keeps the last gradients read
    monitor.finish()
    assert monitor.grad_norms == {"layer": 0.0}


def test_widget_redraws_are_throttled():
    monitor, clock = widget_monitor(total=10_000, every=0.2)
    for _ in range(500):  # rapid updates, no time passes: one redraw, the first
        monitor.update(1.0)
    assert monitor.redraws == 1
    clock.now += 0.125
    monitor.update(1.0)
    assert monitor.redraws == 1
    clock.now += 0.125
    monitor.update(1.0)
    assert monitor.redraws == 2 and monitor.bar.value == 502
    monitor.finish()  # the final state is always drawn
    assert monitor.redraws == 3


def test_slow_drawing_is_spaced_out():
    monitor, clock = widget_monitor(every=0.2)
    draw = monitor._render_png

    def slow_draw():
        clock.now += 0.5  # drawing takes 0.5 s: the next one waits 9 x 0.5 s
        return draw()

    monitor._render_png = slow_draw
    monitor.update(1.0)
    clock.now += 4.0
    monitor.update(1.0)
    assert monitor.redraws == 1
    clock.now += 0.5
    monitor.update(1.0)
    assert monitor.redraws == 2


def test_close_finishes_and_closes_the_widget():
    monitor, _ = widget_monitor()
    monitor.update(1.0)
    monitor.close()
    assert monitor.finished and monitor.comm is None


def test_import_stays_light_and_the_name_is_exported():
    assert agv.viz.TrainingMonitor is TrainingMonitor
    code = "import sys, autogradviz.viz; assert 'ipywidgets' not in sys.modules, 'ipywidgets imported'"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_screenshot():
    """Draws tests/artifacts/training_monitor.png, to look at: loss, metrics,
    and a gradient panel with a vanishing, an exploding and a missing gradient."""
    rng = np.random.default_rng(0)
    layers = {
        "features.0": 1e-9,
        "features.3": 0.05,
        "features.6": 0.02,
        "classifier.0": 0.1,
        "classifier.3": 5e3,
        "classifier.6": None,
    }
    params = []
    for layer, scale in layers.items():
        for part, shape in (("weight", (8, 4)), ("bias", (8,))):
            params.append(
                param(f"{layer}.{part}", None if scale is None else rng.standard_normal(shape) * scale, shape)
            )
    monitor, clock = widget_monitor(total=200, model=params, title="VGG-ish on digits", every=60)
    for i in range(120):
        clock.now += 0.05
        accuracy = (
            {"train acc": min(0.99, 0.1 + i / 110), "val acc": min(0.95, 0.1 + i / 125)}
            if i % 10 == 0
            else {}
        )
        monitor.update(2.3 * np.exp(-i / 30) + 0.05 + 0.05 * rng.random(), **accuracy)
    monitor.redraw()
    assert monitor.redraws == 2  # the first step, and now
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / "training_monitor.png"
    path.write_bytes(monitor.image.value)
    assert path.read_bytes().startswith(PNG_MAGIC)
    assert len(monitor.figure.axes) == 3
    assert monitor.status.value.endswith("train acc 0.99 | val acc 0.95 | 20.0 it/s | ETA 0:04</code>")


# -- Chinese ----------------------------------------------------------------------


@pytest.fixture
def english_afterwards():
    yield
    agv.set_language("en")


@pytest.fixture
def fresh_font_lookup():
    """cjk_font() looked up again, and its warning not given yet, before and after the test."""
    monitor_module.cjk_font.cache_clear()
    monitor_module._warned["no_cjk_font"] = False
    yield
    monitor_module.cjk_font.cache_clear()
    monitor_module._warned["no_cjk_font"] = False


def test_text_line_in_chinese():
    clock, out = FakeClock(), io.StringIO()
    monitor = TrainingMonitor(total=100, mode="text", file=out, clock=clock, every=0.25, language="zh")
    for i in range(1, 9):  # as in English: 4 steps a second, 92 left -> 23 s
        clock.now += 0.25
        monitor.update(0.5 / i, acc=0.25)
    assert (
        last_line(out)
        == "[#-------------------] 步数 8/100 | 损失 0.0625 | acc 0.25 | 4.0 步/秒 | 预计剩余 0:23"
    )
    clock.now += 1.0
    monitor.finish()
    assert (
        last_line(out)
        == "[#-------------------] 步数 8/100 | 损失 0.0625 | acc 0.25 | 2.7 步/秒 | 已完成，用时 0:03"
    )
    assert repr(monitor) == "<autogradviz 训练监视器：第 8 步>"

    slow = TrainingMonitor(mode="text", file=io.StringIO(), clock=clock, language="zh")
    assert slow.status_text() == "步数 0 | ? 步/秒 | 已用 0:00"
    clock.now += 130.0
    slow.update(1.5)
    assert slow.status_text() == "步数 1 | 损失 1.5 | 130.0 秒/步 | 已用 2:10"


def test_set_language_switches_monitors_made_after_it(english_afterwards):
    agv.set_language("zh")
    chinese = TrainingMonitor(total=2, mode="text", file=io.StringIO(), clock=FakeClock())
    english = TrainingMonitor(total=2, mode="text", file=io.StringIO(), clock=FakeClock(), language="en")
    assert chinese.language == "zh" and chinese.title == "训练"
    assert chinese.status_text().startswith("步数 0/2 | ? 步/秒")
    assert english.status_text().startswith("step 0/2 | ? it/s")
    agv.set_language("en")
    assert chinese.status_text().startswith("步数 0/2")  # a monitor keeps the language it was made in
    assert TrainingMonitor(mode="text", file=io.StringIO()).title == "Training"
    with pytest.raises(ValueError, match="unknown language 'fr'"):
        TrainingMonitor(mode="text", language="fr")


def chinese_widget(**options):
    """A finished zh monitor with a metric and a gradient panel (a layer without .grad)."""
    params = [param("fc1.weight", np.ones((3, 2))), param("fc2.weight", None)]
    monitor, clock = widget_monitor(total=10, model=params, language="zh", **options)
    clock.now += 1.0
    monitor.update(0.5, accuracy=0.5)
    monitor.finish()
    return monitor


def figure_texts(figure) -> list[str]:
    return [t.get_text() for t in figure.findobj(matplotlib.text.Text) if t.get_text()]


def test_widget_figure_in_chinese(fresh_font_lookup):
    monitor = chinese_widget()
    loss_ax, metrics_ax, grads_ax = monitor.figure.axes
    assert (loss_ax.get_title(), loss_ax.get_xlabel()) == ("损失", "步数")
    assert (metrics_ax.get_title(), metrics_ax.get_xlabel()) == ("指标", "步数")
    assert (grads_ax.get_title(), grads_ax.get_xlabel()) == ("每层的梯度范数", "梯度的 L2 范数（对数刻度）")
    assert {"梯度消失", "梯度爆炸", "  没有 .grad"} <= {t.get_text() for t in grads_ax.texts}
    assert monitor.figure.get_suptitle() == "训练 - 步数 1/10"
    assert (
        monitor.status.value
        == "<code>步数 1/10 | 损失 0.5 | accuracy 0.5 | 1.0 步/秒 | 已完成，用时 0:01</code>"
    )
    english_words = {"loss", "step", "metrics", "gradient", "vanishing", "exploding", "no .grad", "Training"}
    assert [t for t in figure_texts(monitor.figure) if any(w in t for w in english_words)] == []


def text_pixels(label: str, settings: dict) -> bytes:
    """`label` drawn alone, with matplotlib settings `settings`, as raw RGBA pixels."""
    with matplotlib.rc_context(settings):
        figure = matplotlib.figure.Figure(figsize=(1.5, 0.5), dpi=80)
        FigureCanvasAgg(figure)
        figure.text(0.05, 0.3, label, fontsize=14)
        figure.canvas.draw()
        return bytes(figure.canvas.buffer_rgba())


def test_chinese_is_drawn_with_a_cjk_font_that_has_the_glyphs(fresh_font_lookup):
    font = monitor_module.cjk_font()
    if font is None:
        pytest.skip("no CJK font installed (apt-get install fonts-noto-cjk)")
    assert font in monitor_module.CJK_FONTS
    with warnings_as_errors():  # matplotlib warns "Glyph ... missing from font(s)" for every box it draws
        monitor = chinese_widget()
    path = font_manager.findfont(FontProperties(family=font), fallback_to_default=False)
    glyphs = FT2Font(path)
    chinese = {ch for label in figure_texts(monitor.figure) for ch in label if monitor_module.has_cjk(ch)}
    assert len(chinese) > 20 and [ch for ch in sorted(chinese) if glyphs.get_char_index(ord(ch)) == 0] == []

    # drawn, two different words differ; as boxes (no CJK font) they would be the same two boxes
    settings = monitor._font_settings()
    assert settings["font.family"][-1] == font
    assert text_pixels("损失", settings) != text_pixels("指标", settings)
    with pytest.warns(UserWarning, match="missing from font"):
        assert text_pixels("损失", {"font.family": ["DejaVu Sans"]}) == text_pixels(
            "指标", {"font.family": ["DejaVu Sans"]}
        )


@contextlib.contextmanager
def warnings_as_errors():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # ipywidgets 7 (Colab's) makes every widget's comm with this class of ipykernel's
        warnings.filterwarnings("ignore", "The `ipykernel.comm.Comm` class has been deprecated")
        yield


def test_english_figures_ask_for_no_cjk_font_unless_a_name_is_chinese(fresh_font_lookup):
    english, _ = widget_monitor()
    english.update(1.0, accuracy=0.5)
    assert english._font_settings() == {}  # so English pictures stay exactly as they were
    named, _ = widget_monitor(title="MNIST 训练")
    if monitor_module.cjk_font() is not None:
        assert named._font_settings()["font.family"][-1] == monitor_module.cjk_font()


def test_without_a_cjk_font_it_warns_once_and_names_the_package(fresh_font_lookup, monkeypatch):
    monkeypatch.setattr(monitor_module, "CJK_FONTS", ("No Such Font SC",))
    monkeypatch.setattr(monitor_module, "CJK_FONT_FILES", ("no-such-font-file",))
    assert monitor_module.cjk_font() is None
    with pytest.warns(UserWarning) as caught:
        monitor = chinese_widget()
    ours = [w for w in caught if "fonts-noto-cjk" in str(w.message)]
    assert len(ours) == 1 and [w for w in caught if "missing from font" in str(w.message)] == []
    assert str(ours[0].message) == text("monitor.no_cjk_font", "zh")
    assert "sudo apt-get install fonts-noto-cjk" in text("monitor.no_cjk_font", "en")
    assert bytes(monitor.image.value).startswith(PNG_MAGIC)  # the picture is still drawn, in boxes
    with warnings_as_errors():  # once: the next monitor and redraw say nothing more
        chinese_widget().redraw()


def test_finish_shows_the_last_steps_norms_even_between_redraws():
    """Lesson 11 found the bars showing an early step: norms were read only when a redraw
    was due. They are read at every update(), so finish() draws the last step's."""
    w = param("layer.weight", [[3.0, 4.0]], shape=(1, 2))
    monitor, clock = widget_monitor(every=10.0)
    monitor.update(1.0, model={"layer.weight": w})  # the first update redraws
    assert monitor.grad_norms == {"layer": 5.0} and monitor.redraws == 1
    w.grad = agv.tensor([[6.0, 8.0]], dtype=agv.float64)
    monitor.update(0.5)  # no time passed: no redraw, but the norms are read
    assert monitor.redraws == 1 and monitor.grad_norms == {"layer": 10.0}
    w.grad = None  # zero_grad() before finish()
    monitor.finish()
    assert monitor.redraws == 2 and monitor.grad_norms == {"layer": 10.0}
    bar = monitor.figure.axes[-1].patches[-1]
    assert bar.get_x() + bar.get_width() == pytest.approx(10.0)
