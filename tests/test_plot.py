"""agv.plot: f with its autograd derivatives, and loss curves. The expected
values are computed here with numpy, independently of autograd."""

import os
import subprocess
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # headless, before pyplot is imported

import matplotlib.pyplot as plt  # noqa: E402 - only to check that no pyplot figure is opened
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

import autogradviz as agv  # noqa: E402


@pytest.fixture(autouse=True)
def no_pyplot_figures(monkeypatch):
    monkeypatch.setenv("MPLBACKEND", "Agg")
    plt.close("all")
    yield
    assert plt.get_fignums() == []


def lines_by_label(fig):
    (ax,) = fig.axes
    return {line.get_label(): line for line in ax.get_lines() if not line.get_label().startswith("_")}


def test_cube_with_first_and_second_derivatives():
    fig = agv.plot.function_and_grad(lambda x: x**3, (-2, 2), second=True, num=41)
    assert isinstance(fig, Figure)
    lines = lines_by_label(fig)
    assert list(lines) == ["f(x)", "f'(x)", "f''(x)"]
    x = np.linspace(-2.0, 2.0, 41)
    for line in lines.values():
        np.testing.assert_array_equal(line.get_xdata(), x)
    np.testing.assert_allclose(lines["f(x)"].get_ydata(), x**3, rtol=1e-12)
    np.testing.assert_allclose(lines["f'(x)"].get_ydata(), 3 * x**2, rtol=1e-12)
    np.testing.assert_allclose(lines["f''(x)"].get_ydata(), 6 * x, rtol=1e-12, atol=1e-12)
    (ax,) = fig.axes
    assert ax.get_xlabel() == "x"
    assert ax.get_title() == "f and its derivatives"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["f(x)", "f'(x)", "f''(x)"]


@pytest.mark.parametrize(
    "x_values",
    [
        np.linspace(-np.pi, np.pi, 50),
        list(np.linspace(-np.pi, np.pi, 50)),
        agv.linspace(-np.pi, np.pi, 50),  # float32: the plot still computes in float64
    ],
    ids=["array", "list", "tensor"],
)
def test_sine_at_given_x_values(x_values):
    fig = agv.plot.function_and_grad(lambda x: x.sin(), x_values, second=True)
    lines = lines_by_label(fig)
    x = np.asarray(x_values, dtype=np.float64)
    np.testing.assert_array_equal(lines["f(x)"].get_xdata(), x)
    np.testing.assert_allclose(lines["f(x)"].get_ydata(), np.sin(x), atol=1e-12)
    np.testing.assert_allclose(lines["f'(x)"].get_ydata(), np.cos(x), atol=1e-12)
    np.testing.assert_allclose(lines["f''(x)"].get_ydata(), -np.sin(x), atol=1e-12)


def test_first_derivative_only_by_default():
    fig = agv.plot.function_and_grad(lambda x: agv.exp(-(x**2)), (-3, 3))
    lines = lines_by_label(fig)
    assert list(lines) == ["f(x)", "f'(x)"]
    x = np.linspace(-3.0, 3.0, 200)
    np.testing.assert_allclose(lines["f'(x)"].get_ydata(), -2 * x * np.exp(-(x**2)), atol=1e-12)
    assert fig.axes[0].get_title() == "f and its derivative"


def test_straight_line_has_zero_second_derivative():
    fig = agv.plot.function_and_grad(lambda x: 2 * x + 1, (0, 1), second=True, num=5)
    lines = lines_by_label(fig)
    np.testing.assert_allclose(lines["f'(x)"].get_ydata(), np.full(5, 2.0))
    np.testing.assert_allclose(lines["f''(x)"].get_ydata(), np.zeros(5))


def test_f_must_return_a_tensor_like_x():
    with pytest.raises(TypeError, match="same shape as x"):
        agv.plot.function_and_grad(lambda x: 1.0, (0, 1))
    with pytest.raises(TypeError, match="same shape as x"):
        agv.plot.function_and_grad(lambda x: x.sum(), (0, 1))


def test_loss_curve_of_floats():
    history = [2.0, 1.2, 0.7, 0.5, 0.45]
    fig = agv.plot.loss_curve(history)
    assert isinstance(fig, Figure)
    (ax,) = fig.axes
    (line,) = ax.get_lines()
    np.testing.assert_array_equal(line.get_xdata(), np.arange(5))
    np.testing.assert_array_equal(line.get_ydata(), history)
    assert ax.get_xlabel() == "step"
    assert ax.get_ylabel() == "loss"
    assert ax.get_title() == "Loss curve"
    assert ax.get_legend() is None


def test_loss_curve_of_tensors():
    w = agv.tensor([1.0, -2.0], requires_grad=True)
    history = [agv.tensor(3.0), (w**2).sum(), agv.tensor([0.5])]  # 0-d, with grad_fn, one element
    fig = agv.plot.loss_curve(history, xlabel="epoch", log=True)
    (ax,) = fig.axes
    (line,) = ax.get_lines()
    np.testing.assert_array_equal(line.get_ydata(), [3.0, 5.0, 0.5])
    assert ax.get_xlabel() == "epoch"
    assert ax.get_yscale() == "log"


def test_loss_curve_of_several_named_curves():
    history = {"train": [1.0, 0.6, 0.4, agv.tensor(0.3)], "val": [1.1, 0.8, 0.7]}
    fig = agv.plot.loss_curve(history)
    lines = lines_by_label(fig)
    assert list(lines) == ["train", "val"]
    np.testing.assert_allclose(lines["train"].get_ydata(), [1.0, 0.6, 0.4, 0.3], rtol=1e-6)  # 0.3 in float32
    np.testing.assert_array_equal(lines["val"].get_xdata(), [0, 1, 2])
    np.testing.assert_array_equal(lines["val"].get_ydata(), [1.1, 0.8, 0.7])
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == ["train", "val"]


def test_figures_show_themselves_as_png():
    for fig in (agv.plot.loss_curve([1.0, 0.5]), agv.plot.function_and_grad(lambda x: x.tanh(), (-1, 1))):
        assert fig._repr_png_().startswith(b"\x89PNG\r\n\x1a\n")


def test_pyplot_is_never_imported():
    code = (
        "import sys, autogradviz as agv\n"
        "agv.plot.function_and_grad(lambda x: x.sin(), (0, 1), second=True)._repr_png_()\n"
        "agv.plot.loss_curve({'a': [1, 2]})._repr_png_()\n"
        "assert 'matplotlib.pyplot' not in sys.modules\n"
    )
    root = Path(__file__).resolve().parent.parent
    subprocess.run(
        [sys.executable, "-c", code], check=True, cwd=root, env={**os.environ, "MPLBACKEND": "Agg"}
    )
