"""The widgets let go of what they hold (issue "Hardening", item 7).

- A BackwardStepper holds a whole graph: the root, every backward node (each
  holds its saved tensors and edges), copies of every gradient. Dropped in plain
  Python it is freed; closed, it frees the graph at once, in a kernel too.
- A finished TrainingMonitor no longer holds the model's parameters.
- The monitor's titles, metric and layer names reach matplotlib as plain text,
  never as math (`$...$`) or TeX.

"Freed" is checked with weak references after gc.collect(). A kernel is faked
by a comm that records what it would send to the browser.
"""

from __future__ import annotations

import gc
import warnings
import weakref

import matplotlib

matplotlib.use("Agg")  # headless, before pyplot is imported

import comm  # noqa: E402
import ipywidgets  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import traitlets  # noqa: E402
from comm.base_comm import BaseComm  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

import autogradviz as agv  # noqa: E402
from autogradviz.widgets.monitor import TrainingMonitor  # noqa: E402

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
CLOSED = r"BackwardStepper: this stepper was closed; {} needs the graph, which close\(\) freed"
# Google Colab's version; tests/test_ipywidgets7.py runs this file under it
IPYWIDGETS_7 = ipywidgets.__version__.startswith("7.")


def registered() -> dict:
    """ipywidgets' table of live widgets, by model id (deprecated to read, still the table)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return ipywidgets.Widget.widgets


def collected(*refs: weakref.ref) -> list[bool]:
    gc.collect()
    return [ref() is None for ref in refs]


@pytest.fixture
def kernel(monkeypatch):
    """Widgets made while this is active get a comm like a kernel's: registered, and sending
    to a browser. Yields the messages sent, as (msg_type, comm_id)."""
    sent: list[tuple[str, str]] = []

    def record(self, msg_type, data=None, metadata=None, buffers=None, **keys):
        sent.append((msg_type, self.comm_id))

    class KernelComm(BaseComm):
        publish_msg = record

    before = set(registered())
    monkeypatch.setattr(comm, "create_comm", KernelComm)
    if IPYWIDGETS_7:  # it makes ipykernel Comms itself, which send only when their kernel is set
        from ipykernel.comm import Comm

        class IPyKernelComm(Comm):
            kernel = traitlets.Any("a kernel")
            publish_msg = record

        monkeypatch.setattr(ipywidgets.widgets.widget, "Comm", IPyKernelComm)
    yield sent
    for model_id in set(registered()) - before:  # don't leave this test's widgets to the next
        registered()[model_id].close()


# -- BackwardStepper ---------------------------------------------------------------------


def seed_stepper(**options):
    """e = (a*b)*d with a=2, b=5, d=4, named as a notebook's names=locals() would."""
    a = agv.tensor(2.0, requires_grad=True)
    b = agv.tensor(5.0, requires_grad=True)
    d = agv.tensor(4.0, requires_grad=True)
    c = a * b
    e = c * d
    return {"a": a, "b": b, "c": c, "d": d, "e": e}, agv.BackwardStepper(e, names=locals(), **options)


def graph_refs(g, stepper) -> dict[str, weakref.ref]:
    """Weak references to the root, a backward node, a leaf, a recorded gradient array, the stepper."""
    leaf_step = next(step for step in stepper.steps if step.leaf is g["a"])
    assert float(leaf_step.leaf_after) == 20.0  # de/da = b*d: the array is a real recorded gradient
    return {
        "root": weakref.ref(g["e"]),
        "node": weakref.ref(g["e"].grad_fn),
        "leaf": weakref.ref(g["a"]),
        "grad array": weakref.ref(leaf_step.leaf_after),
        "stepper": weakref.ref(stepper),
    }


def test_a_dropped_stepper_is_freed_with_its_graph_without_a_kernel():
    g, s = seed_stepper()
    # plain Python: the comm goes nowhere (ipywidgets 7 always makes an ipykernel Comm, without a kernel)
    assert isinstance(s.comm, comm.DummyComm) or (IPYWIDGETS_7 and s.comm.kernel is None)
    # the cause of the leak, fixed: ipywidgets' table and the comm manager would hold it forever
    assert s.model_id not in registered() and s.layout.model_id not in registered()
    assert comm.get_comm_manager().get_comm(s.model_id) is None
    refs = graph_refs(g, s)
    del g, s
    assert dict(zip(refs, collected(*refs.values()))) == dict.fromkeys(refs, True)


def test_the_stepper_still_shows_and_syncs_without_a_kernel():
    """Out of the tables, it keeps its comm: the notebook representation names the same model."""
    _, s = seed_stepper()
    bundle = s._repr_mimebundle_()
    bundle = bundle[0] if isinstance(bundle, tuple) else bundle
    assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == s.model_id
    s.set_state({"position": 3})
    assert s.next() == 4 and s.get_state()["position"] == 4


def test_close_frees_the_graph_while_the_stepper_is_still_referenced():
    g, s = seed_stepper()
    refs = graph_refs(g, s)
    del g
    assert collected(refs["root"], refs["node"]) == [False, False]  # the stepper holds them
    s.close()
    assert collected(refs["root"], refs["node"], refs["leaf"], refs["grad array"]) == [True] * 4
    assert s.comm is None and s.layout.comm is None
    assert repr(s) == "<autogradviz BackwardStepper: closed>"
    assert s.svg == "" and s.frames == []
    s.close()  # a second close does nothing
    del s
    assert collected(refs["stepper"]) == [True]


@pytest.mark.parametrize(
    "call, what",
    [
        (lambda s: s.state(), "state()"),
        (lambda s: s.apply(), "apply()"),
        (lambda s: s.check([1.0]), "check()"),
        (lambda s: s.next(), "next()"),
        (lambda s: s.back(), "back()"),
        (lambda s: s.reset(), "reset()"),
        (lambda s: s.goto(1), "goto()"),
        (lambda s: s.run_to_end(), "run_to_end()"),
        (lambda s: s.frame_svg(), "frame_svg()"),
        (lambda s: s.to_html("never-written.html"), "to_html()"),
        (lambda s: s.steps, "steps"),
        (lambda s: s.current, "current"),
        (lambda s: s.last, "last"),
    ],
)
def test_after_close_what_needs_the_graph_says_so(call, what, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _, s = seed_stepper()
    s.close()
    with pytest.raises(RuntimeError, match=CLOSED.format(what.replace("(", r"\(").replace(")", r"\)"))):
        call(s)
    assert list(tmp_path.iterdir()) == []


def test_apply_before_close_writes_the_gradients_and_close_keeps_them():
    g, s = seed_stepper()
    s.run_to_end()
    s.apply()
    s.close()
    assert (g["a"].grad.item(), g["b"].grad.item(), g["d"].grad.item()) == (20.0, 8.0, 10.0)


def test_in_a_kernel_the_stepper_lives_until_close_then_frees_everything(kernel):
    g, s = seed_stepper()
    stepper_id, layout_id = s.model_id, s.layout.model_id
    # in a kernel the browser may still show a stepper nobody refers to: ipywidgets keeps it
    assert registered()[stepper_id] is s and registered()[layout_id] is s.layout
    assert ("comm_open", stepper_id) in kernel
    refs = graph_refs(g, s)
    del g, s
    assert collected(refs["stepper"], refs["root"]) == [False, False]

    registered()[stepper_id].close()
    assert stepper_id not in registered() and layout_id not in registered()  # its layout closes too
    assert ("comm_close", stepper_id) in kernel and ("comm_close", layout_id) in kernel
    assert comm.get_comm_manager().get_comm(stepper_id) is None
    assert dict(zip(refs, collected(*refs.values()))) == dict.fromkeys(refs, True)


def test_a_stepper_whose_init_fails_cleans_up_quietly(monkeypatch):
    """The base class's __del__ runs close() on the half-made stepper: it must not raise."""
    unraisable = []
    monkeypatch.setattr("sys.unraisablehook", unraisable.append)
    with pytest.raises(RuntimeError, match="does not require grad"):
        agv.BackwardStepper(agv.tensor(1.0))
    gc.collect()
    assert unraisable == []


# -- TrainingMonitor: the model is let go --------------------------------------------------


class Model:
    """Anything with named_parameters(), like an agv.nn.Module."""

    def __init__(self):
        self.weight = agv.tensor(np.ones((3, 2)), requires_grad=True)
        self.weight.grad = agv.tensor(np.full((3, 2), 2.0))  # norm sqrt(6 * 4)

    def named_parameters(self):
        yield "fc.weight", self.weight


class FakeClock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize("mode", ["widget", "text"])
def test_a_finished_monitor_lets_the_model_go(mode, capsys):
    model, clock = Model(), FakeClock()
    monitor = TrainingMonitor(total=3, model=model, mode=mode, clock=clock)
    for step in range(3):
        clock.now += 1.0
        monitor.update(1.0 / (step + 1))
    parameter = weakref.ref(model.weight)
    del model
    assert collected(parameter) == [False]  # training: the monitor reads the gradients each redraw
    monitor.finish()
    assert collected(parameter) == [True]
    if mode == "widget":  # the picture keeps the last norms read
        assert monitor.grad_norms == {"fc": pytest.approx(np.sqrt(24.0), rel=1e-15)}
        assert monitor.figure.axes[-1].get_yticklabels()[0].get_text() == "fc"


def test_a_model_given_to_update_after_finish_is_let_go_at_the_next_finish():
    model, clock = Model(), FakeClock()
    monitor = TrainingMonitor(mode="widget", clock=clock)
    monitor.finish()
    clock.now += 1.0
    monitor.update(0.5, model=model)
    assert monitor.grad_norms == {"fc": pytest.approx(np.sqrt(24.0), rel=1e-15)}
    parameter = weakref.ref(model.weight)
    del model
    monitor.finish()
    assert collected(parameter) == [True]


def test_a_dropped_monitor_is_freed_without_a_kernel_even_unfinished():
    model, clock = Model(), FakeClock()
    monitor = TrainingMonitor(model=model, mode="widget", clock=clock)
    monitor.update(1.0)
    assert all(w.model_id not in registered() for w in (monitor, monitor.bar, monitor.image))
    refs = weakref.ref(model.weight), weakref.ref(monitor), weakref.ref(monitor.figure)
    del model, monitor
    assert collected(*refs) == [True, True, True]


def test_in_a_kernel_close_closes_the_monitor_and_every_widget_it_made(kernel):
    monitor = TrainingMonitor(mode="widget", clock=FakeClock())
    monitor.update(1.0)
    made = [monitor, monitor.bar, monitor.bar.layout, monitor.bar.style, monitor.status, monitor.image]
    ids = [w.model_id for w in made]
    assert all(registered()[i] is w for i, w in zip(ids, made))
    monitor.close()
    assert [i in registered() for i in ids] == [False] * len(ids)
    assert all(("comm_close", i) in kernel for i in ids)
    assert monitor.finished


# -- TrainingMonitor: names are plain text ---------------------------------------------------

# each would stop training inside matplotlib if read as math or TeX ("损失": loss, in Chinese)
HOSTILE = ["$$", r"w_$\bad{$", "a_b^c", r"\frac{1}{2}", "损失", r"cost \$", "_aux", "<b>&"]


def pixels(text: str, **text_options) -> np.ndarray:
    """`text` drawn alone on a small figure: what matplotlib makes of it."""
    fig = Figure(figsize=(3, 0.6), dpi=60)
    FigureCanvasAgg(fig)
    fig.text(0.02, 0.3, text, **text_options)
    fig.canvas.draw()
    return np.asarray(fig.canvas.buffer_rgba()).copy()


def assert_shows_literally(text_artist, literal: str) -> None:
    """The matplotlib Text, drawn as matplotlib draws it, looks exactly like `literal`
    drawn with math parsing off: no character was read as math."""
    with matplotlib.rc_context({"text.usetex": False, "text.parse_math": True}):
        shown = pixels(text_artist.get_text())
    assert not text_artist.get_usetex() and text_artist.get_parse_math()
    assert np.array_equal(shown, pixels(literal, parse_math=False)), (literal, text_artist.get_text())


def test_the_names_would_break_matplotlib_as_they_are():
    """What the escaping prevents: a name read as math raises mid-training."""
    for name in ("$$", r"w_$\bad{$"):
        with pytest.raises(ValueError):
            pixels(name)


@pytest.mark.filterwarnings("ignore:Glyph .* missing from font")  # no CJK font here: boxes, no crash
def test_hostile_titles_metrics_and_layers_render_as_typed():
    layers = [f"{name}.weight" for name in HOSTILE]  # "<b>&.weight" is layer "<b>&"
    params = {}
    for i, layer in enumerate(layers):
        params[layer] = agv.tensor(np.ones(2), requires_grad=True)
        params[layer].grad = agv.tensor(np.full(2, float(i + 1)))
    clock = FakeClock()
    monitor = TrainingMonitor(total=4, model=params, mode="widget", clock=clock, title=r"run $1 \frac{a}{b}$")
    for step in range(4):
        clock.now += 1.0
        monitor.update(1.0 / (step + 1), **{name: 0.1 * step for name in HOSTILE})
    monitor.finish()
    assert bytes(monitor.image.value).startswith(PNG_MAGIC) and monitor.redraws == 5

    loss_ax, metrics_ax, grads_ax = monitor.figure.axes
    (title,) = [t for t in monitor.figure.texts if t.get_text().startswith("run")]
    assert_shows_literally(title, r"run $1 \frac{a}{b}$ - step 4/4")
    legend = [t for t in metrics_ax.get_legend().get_texts()]
    assert len(legend) == len(HOSTILE)  # "_aux" too: legend() alone would leave it out
    for text, name in zip(legend, HOSTILE):
        assert_shows_literally(text, name)
    ticks = grads_ax.get_yticklabels()
    assert len(ticks) == len(HOSTILE)
    for text, name in zip(ticks, HOSTILE):
        assert_shows_literally(text, name)
    assert list(monitor.grad_norms) == HOSTILE
    np.testing.assert_allclose(list(monitor.grad_norms.values()), np.sqrt(2) * np.arange(1, 9), rtol=1e-15)
    # the status line is HTML: escaped for HTML, and only there
    assert "&lt;b&gt;&amp; 0.3 |" in monitor.status.value and "损失 0.3" in monitor.status.value
    assert r"w_$\bad{$ 0.3" in monitor.status.value


@pytest.mark.filterwarnings("ignore:Glyph .* missing from font")
@pytest.mark.parametrize("settings", [{"text.usetex": True}, {"text.parse_math": False}])
def test_names_stay_plain_whatever_the_users_matplotlib_settings(settings):
    """usetex would send every name through LaTeX (none is installed here: that would raise);
    parse_math=False would show the escapes themselves."""
    clock = FakeClock()
    with matplotlib.rc_context(settings):
        monitor = TrainingMonitor(mode="widget", clock=clock, title="a_b^c $x$")
        monitor.update(1.0, **{"损失": 0.5, "%#&_": 0.25})
    assert bytes(monitor.image.value).startswith(PNG_MAGIC)
    (title,) = [t for t in monitor.figure.texts if t.get_text().startswith("a_b")]
    assert_shows_literally(title, "a_b^c $x$ - step 1")
    for text, name in zip(monitor.figure.axes[1].get_legend().get_texts(), ["损失", "%#&_"]):
        assert_shows_literally(text, name)
