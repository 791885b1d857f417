"""Compact tensor boxes (issue 24, item 3): a tensor of more than 6 elements is
drawn with its shape, a one-line summary (min · mean · max, or a gradient's
norm) and a small heatmap of its block means; up to 6 elements it keeps its
exact numbers, and values="full" brings the numbers back everywhere.

The expected numbers and colours are computed here from numpy, with the rule
the docstrings state (block i of n covers [i*N//n, (i+1)*N//n); white at 0, the
end colour at the largest |block mean|), never read back from the drawing."""

from __future__ import annotations

import math
import re
import time
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import autogradviz as agv
from autogradviz.viz import labels, render
from autogradviz.viz.view import PX_PER_PT, DrawingSize

SVG = "{http://www.w3.org/2000/svg}"
WHITE = np.array([255, 255, 255])
BLUE, RED = np.array([33, 102, 172]), np.array([178, 24, 43])


pytestmark = pytest.mark.usefixtures("english_and_default_renderer")  # tests/conftest.py


# -- independent references ----------------------------------------------------------------------


def expected_means(array: np.ndarray) -> np.ndarray:
    """Block means by plain slicing: the matrix the glyph reads (columns = last axis;
    from 4-D on, the last two), cut into at most 4 x 16 blocks."""
    a = np.asarray(array, dtype=np.float64)
    if a.ndim == 1:
        m = a.reshape(1, -1)
    elif a.ndim <= 3:
        m = a.reshape(-1, a.shape[-1])
    else:
        m = a.reshape(int(np.prod(a.shape[:-2])), a.shape[-2] * a.shape[-1])
    rows, cols = m.shape
    nr, nc = min(rows, 4), min(cols, 16)
    out = np.empty((nr, nc))
    for i in range(nr):
        for j in range(nc):
            block = m[i * rows // nr : (i + 1) * rows // nr, j * cols // nc : (j + 1) * cols // nc]
            out[i, j] = block.mean()
    return out


def expected_colour(mean: float, scale: float) -> str:
    if math.isnan(mean):
        return "#ff00ff"
    if math.isinf(mean):
        return "#000000"
    if scale == 0:
        return "#ffffff"
    end = RED if mean > 0 else BLUE
    rgb = WHITE + (abs(mean) / scale) * (end - WHITE)
    return "#" + "".join(f"{int(round(c)):02x}" for c in rgb)


def expected_cells(array) -> list[list[str]]:
    means = expected_means(array)
    finite = np.abs(means[np.isfinite(means)])
    scale = finite.max() if finite.size else 0.0
    return [[expected_colour(v, scale) for v in row] for row in means]


def close_colour(got: str, want: str) -> bool:
    """Equal up to one step per channel (a mean computed in another order may round differently)."""
    g = [int(got[k : k + 2], 16) for k in (1, 3, 5)]
    w = [int(want[k : k + 2], 16) for k in (1, 3, 5)]
    return max(abs(a - b) for a, b in zip(g, w)) <= 1


def parse_stats(line: str) -> dict[str, float]:
    """`min -0.42 · mean 0.013 · max 0.97 · 2 nan` -> {"min": -0.42, ..., "nan": 2}."""
    found = {}
    for part in line.split(" · "):
        first, second = part.split(" ")
        if first in ("min", "mean", "max", "norm"):
            found[first] = float(second)
        else:
            found[second] = int(first.replace(",", ""))
    return found


def two_digits(value: float):
    """What a number shown to 2 significant digits (whole numbers from 10) may be off by."""
    return pytest.approx(value, rel=0.051, abs=0.51 if abs(value) >= 10 else 1e-12)


def boxes_by_title(view):
    return {box.title: box for _, box in view.boxes if box.title}


def mlp(seed=0):
    """The issue's 3-layer MLP, after backward."""
    agv.manual_seed(seed)
    m = agv.nn.Sequential(
        agv.nn.Linear(4, 16), agv.nn.ReLU(), agv.nn.Linear(16, 16), agv.nn.ReLU(), agv.nn.Linear(16, 3)
    )
    x = agv.randn(8, 4)
    loss = agv.nn.functional.cross_entropy(m(x), agv.tensor([0, 1, 2, 0, 1, 2, 0, 1]))
    loss.backward()
    return m, x, loss


# -- the summary ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "array",
    [
        np.random.default_rng(0).normal(size=(8, 16)).astype(np.float32),
        np.random.default_rng(1).normal(scale=1e-4, size=(3, 5, 7)),
        np.random.default_rng(2).normal(loc=300, scale=50, size=40),
        np.random.default_rng(3).uniform(-1e6, 1e6, size=(2, 3, 4, 5)),
    ],
    ids=["normal float32", "tiny", "hundreds", "millions"],
)
def test_summary_is_numpys_min_mean_max_and_norm(array):
    stats = parse_stats(labels.summary(array))
    assert set(stats) == {"min", "mean", "max"}
    assert stats["min"] == two_digits(float(np.min(array)))
    assert stats["mean"] == two_digits(float(np.mean(array, dtype=np.float64)))
    assert stats["max"] == two_digits(float(np.max(array)))
    norm = parse_stats(labels.summary(array, grad=True))
    assert set(norm) == {"norm"}
    assert norm["norm"] == two_digits(float(np.linalg.norm(np.asarray(array, dtype=np.float64))))


def test_summary_of_integers_and_bools_is_exact_where_it_can_be():
    ints = np.arange(-3, 9)  # 12 values
    stats = parse_stats(labels.summary(ints))
    assert (stats["min"], stats["max"]) == (-3, 8)
    assert stats["mean"] == two_digits(ints.mean())
    flags = np.array([True, False, True, True, False, False, False, True, True])
    stats = parse_stats(labels.summary(flags))
    assert (stats["min"], stats["max"]) == (0, 1)
    assert stats["mean"] == two_digits(5 / 9)


def test_summary_counts_nan_and_inf_and_summarises_the_rest():
    a = np.array([1.0, np.nan, np.inf, -np.inf, 2.0, 3.0, 4.0, np.nan])
    stats = parse_stats(labels.summary(a))
    finite = a[np.isfinite(a)]
    assert stats == {"min": 1.0, "mean": two_digits(finite.mean()), "max": 4.0, "nan": 2, "inf": 1, "-inf": 1}
    assert parse_stats(labels.summary(a, grad=True))["norm"] == two_digits(np.linalg.norm(finite))
    assert labels.summary(np.full(9, np.nan)) == "9 nan"
    assert labels.summary(np.full((3, 3), np.inf), grad=True) == "9 inf"


def test_one_gradient_norm_in_float64_a_block_at_a_time():
    """labels.l2_norm is the norm the box's summary, the layer box and the stepper's
    table all print: float64 sums over blocks, equal to numpy's float64 norm."""
    rng = np.random.default_rng(4)
    big = rng.normal(size=labels._SQUARES_BLOCK * 3 + 7).astype(np.float32)  # 3 full blocks and a part
    exact = float(np.linalg.norm(big.astype(np.float64)))
    assert labels.l2_norm(big) == pytest.approx(exact, rel=1e-12)
    w, b = rng.normal(size=(30, 40)).T, rng.normal(size=30)  # a transposed (non-contiguous) weight
    assert labels.l2_norm(w, b) == pytest.approx(math.hypot(np.linalg.norm(w), np.linalg.norm(b)), rel=1e-12)
    assert (
        labels.l2_norm(np.array([3, 4])) == 5.0 and labels.l2_norm(np.array([True, True, True, True])) == 2.0
    )
    assert math.isnan(labels.l2_norm(np.array([1.0, np.nan])))
    assert labels.l2_norm(np.array([1.0, -np.inf])) == math.inf
    # inside remembered_rows() an array's sum of squares is computed once (a stepper's table shows the
    # same gradients at every step), and only there
    a = np.ones(10)
    with labels.remembered_rows():
        assert labels.sum_of_squares(a) == 10.0
        a[:] = 2.0
        assert labels.sum_of_squares(a) == 10.0
    assert labels.sum_of_squares(a) == 40.0


def test_summary_speaks_chinese():
    a = np.linspace(-1, 1, 9)
    assert labels.summary(a, "zh") == "最小 -1 · 平均 0 · 最大 1"
    assert labels.summary(a, "zh", grad=True).startswith("范数 ")
    assert labels.summary(np.array([np.nan] * 7), "zh") == "7 个 nan"


def test_small_numbers_keep_their_digits():
    # short_number's 4 decimals would print a vanishing gradient's norm as 0
    assert labels.brief_number(1.234e-6) == "1.2e-06"
    assert labels.brief_number(-0.4213) == "-0.42"
    assert labels.brief_number(0.01334) == "0.013"
    assert labels.brief_number(1791.3) == "1791"
    assert labels.brief_number(np.int64(7)) == "7"


# -- the glyph -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "shape",
    [(9,), (40,), (3, 5), (8, 16), (10, 37), (33, 3), (2, 5, 7), (2, 3, 9, 11), (1, 64, 14, 14)],
)
def test_glyph_cells_follow_the_block_means(shape):
    rng = np.random.default_rng(sum(shape))
    array = rng.normal(size=shape).astype(np.float32) + rng.normal()  # an offset: not centred on 0
    cells = labels.glyph_cells(array)
    want = expected_cells(array)
    assert [len(row) for row in cells] == [len(row) for row in want]
    assert len(cells) <= 4 and all(len(row) <= 16 for row in cells)
    for got_row, want_row in zip(cells, want):
        for got, expected in zip(got_row, want_row):
            assert close_colour(got, expected), (got, expected)
    # the strongest block has the full colour of its sign
    means = expected_means(array)
    strongest = np.unravel_index(np.argmax(np.abs(means)), means.shape)
    assert cells[strongest[0]][strongest[1]] == ("#b2182b" if means[strongest] > 0 else "#2166ac")


def test_glyph_of_constant_zero_nan_and_inf_tensors():
    assert set(sum(labels.glyph_cells(np.zeros((5, 5))), ())) == {"#ffffff"}
    # all equal and nonzero: every block is the largest, so every cell has the full colour
    assert set(sum(labels.glyph_cells(np.full(20, -3.0)), ())) == {"#2166ac"}
    assert set(sum(labels.glyph_cells(np.full(20, 7)), ())) == {"#b2182b"}
    a = np.arange(16.0).reshape(1, 16) - 4
    a[0, 3], a[0, 9] = np.nan, np.inf
    cells = labels.glyph_cells(a)[0]
    assert (cells[3], cells[9]) == ("#ff00ff", "#000000")
    finite = [c for k, c in enumerate(cells) if k not in (3, 9)]
    assert all(
        close_colour(c, e)
        for c, e in zip(finite, [x for k, x in enumerate(expected_cells(a)[0]) if k not in (3, 9)])
    )
    assert labels.glyph_cells(np.array([True, False] * 5)) is not None


def test_a_vgg_sized_activation_is_labelled_fast():
    big = np.random.default_rng(0).normal(size=(1, 64, 224, 224)).astype(np.float32)
    labels.value_row(big)  # warm up
    start = time.perf_counter()
    text, glyph = labels.value_row(big)
    grad_text, _ = labels.value_row(big, grad=True)
    elapsed = time.perf_counter() - start
    assert elapsed < 1.0, elapsed
    assert len(glyph.cells) == 4 and len(glyph.cells[0]) == 16  # 64 channel rows -> 4, 224*224 pixels -> 16
    stats = parse_stats(text)
    assert stats["max"] == two_digits(float(big.max()))
    assert parse_stats(grad_text)["norm"] == two_digits(float(np.linalg.norm(big.astype(np.float64))))
    # and a drawing of an op on it, laid out and rendered
    x = agv.tensor(big[0], requires_grad=True)
    y = x.relu()
    y.sum().backward()
    start = time.perf_counter()
    svg = agv.draw(y, names={"x": x, "y": y}).svg()
    assert time.perf_counter() - start < 10
    assert svg.count('stroke="none"') < 400  # a few glyphs of at most 64 cells, not 3 million


# -- drawings ------------------------------------------------------------------------------------


def test_the_mlp_drawing_summarises_big_tensors_and_keeps_small_ones():
    m, x, loss = mlp()
    view = agv.draw(loss, model=m, names={"x": x, "loss": loss}, layers=False)
    boxes = boxes_by_title(view)
    weight = m[0].weight
    box = boxes["0.weight"]
    stats = parse_stats(box.data)
    w = weight.detach().numpy()
    assert (stats["min"], stats["mean"], stats["max"]) == (
        two_digits(w.min()),
        two_digits(w.mean(dtype=np.float64)),
        two_digits(w.max()),
    )
    assert parse_stats(box.grad)["norm"] == two_digits(
        np.linalg.norm(weight.grad.detach().numpy().astype(np.float64))
    )
    assert all(close_colour(g, e) for g, e in zip(sum(box.glyph.cells, ()), sum(expected_cells(w), [])))
    grad_cells = expected_cells(weight.grad.detach().numpy())
    assert all(close_colour(g, e) for g, e in zip(sum(box.grad_glyph.cells, ()), sum(grad_cells, [])))
    # the (3,) bias keeps its exact numbers and has no glyph
    bias = boxes["4.bias"]
    assert bias.data == labels.preview(m[4].bias.detach().numpy())
    assert bias.grad == labels.preview(m[4].bias.grad.detach().numpy())
    assert bias.glyph is None and bias.grad_glyph is None
    # the DOT draws the weight's cells, in order, as empty coloured cells
    node = re.search(r'\t"?t\d+"? \[label=<<TABLE[^\n]*?<B>0\.weight</B>[^\n]*', view.source).group(0)
    tables = re.findall(r'TOOLTIP="[^"]*">(.*?)</TABLE>', node)
    assert len(tables) == 2
    drawn = [
        re.findall(r'<TD BGCOLOR="(#[0-9a-f]{6})"[^>]*></TD>', row) for row in tables[0].split("</TR>") if row
    ]
    assert drawn == [list(row) for row in box.glyph.cells]


def test_values_full_shows_todays_numbers_and_small_graphs_do_not_change():
    m, x, loss = mlp()
    full = agv.draw(loss, model=m, names={"x": x, "loss": loss}, layers=False, values="full")
    for _, box in full.boxes:
        assert box.glyph is None and box.grad_glyph is None
    weight = boxes_by_title(full)["0.weight"]
    assert weight.data == labels.preview(m[0].weight.detach().numpy())
    assert weight.grad == labels.preview(m[0].weight.grad.detach().numpy())
    assert "BGCOLOR=" not in full.source.split('label=<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="3"')[0]
    # a graph whose tensors have at most 6 elements: the same DOT either way, backward or forward
    a = agv.tensor([[0.5, -1.0, 2.0], [0.25, 3.0, -2.0]], requires_grad=True)
    b = agv.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (a * b).sum()
    y.backward(retain_graph=True)
    names = {"a": a, "b": b, "y": y}
    for kind in ("forward", "backward", "both"):
        auto = agv.draw(y, names=names, kind=kind, show_saved=kind == "backward")
        assert (
            auto.source
            == agv.draw(y, names=names, kind=kind, values="full", show_saved=kind == "backward").source
        )
        assert "TOOLTIP" not in auto.source
    # 7 elements: compact
    c = agv.tensor(np.arange(7.0), requires_grad=True)
    box = boxes_by_title(agv.draw(c * 2, names={"c": c}))["c"]
    assert parse_stats(box.data) == {"min": 0, "mean": 3, "max": 6} and box.glyph is not None


def test_values_is_checked():
    x = agv.tensor([1.0, 2.0], requires_grad=True)
    for wrong in ("compact", "FULL", None, True):
        with pytest.raises(ValueError, match=r'^draw: values must be "auto" or "full", not '):
            agv.draw(x * 2, values=wrong)


@pytest.mark.parametrize(
    "make",
    [
        lambda: np.full((3, 4), np.nan, dtype=np.float32),
        lambda: np.array([1.0, np.inf, -np.inf, 2.0, np.nan, 0.0, 5.0]),
        lambda: np.zeros((4, 4)),
        lambda: np.full(10, 2.5),
        lambda: np.arange(12).reshape(3, 4),
        lambda: np.arange(10) % 3 == 0,
        lambda: np.full((2, 2, 2), 3e38, dtype=np.float32),  # sums overflow float32
    ],
    ids=["all nan", "nan and inf", "all zero", "all equal", "int", "bool", "float32 huge"],
)
@pytest.mark.parametrize("kind", ["forward", "both"])
def test_awkward_tensors_draw_without_crashing(make, kind):
    value = make()
    with np.errstate(all="raise"):  # a learner's strict numpy settings
        x = agv.tensor(value)  # a constant input (ints and bools cannot require grad)
        w = agv.tensor(1.0, requires_grad=True)
        y = (x * w).sum()
        view = agv.draw(y, names={"x": x, "w": w}, kind=kind)
        svg = view.svg()
    ET.fromstring(svg)
    box = boxes_by_title(view)["x"]
    assert box.glyph is not None
    if np.isnan(value.astype(float)).any():
        assert "nan" in box.data
    if np.isinf(value.astype(float)).any():
        assert "inf" in box.data
    if not value.any():
        assert set(sum(box.glyph.cells, ())) == {"#ffffff"}


def test_hostile_names_stay_text():
    evil = '</TD></TR></TABLE>><script>alert(1)</script>"\\N'
    x = agv.tensor(np.linspace(-1, 1, 12).reshape(3, 4), requires_grad=True)
    y = (x * 2).sum()
    y.backward()
    for language in ("en", "zh"):
        view = agv.draw(y, names={evil: x, "y": y}, kind="both", language=language)
        svg = view.svg()
        root = ET.fromstring(svg)
        assert not [e for e in root.iter() if e.tag.rsplit("}", 1)[-1].lower() in ("script", "foreignobject")]
        texts = render.svg_texts(svg)
        assert evil in texts
        assert "<script" not in svg.lower() and "<script" not in view.source.lower()


def test_glyphs_are_small_squares_with_no_text_and_text_stays_10px():
    m, x, loss = mlp()
    for language in ("en", "zh"):
        view = agv.draw(loss, model=m, names={"x": x, "loss": loss}, layers=False, language=language)
        svg = view.svg()
        size = DrawingSize.of(svg)
        assert size.smallest_font_px >= 10
        root = ET.fromstring(svg)
        cells = 0
        for node in root.iter(f"{SVG}g"):
            if "node" not in (node.get("class") or "").split():
                continue
            for text in node.iter(f"{SVG}text"):
                assert (text.text or "").strip(), "a blank text element"
                assert float(text.get("font-size")) * PX_PER_PT >= 10
            for polygon in node.iter(f"{SVG}polygon"):
                if polygon.get("stroke") not in ("none", "transparent"):
                    continue
                points = [tuple(map(float, p.split(","))) for p in polygon.get("points").split()]
                xs, ys = {p[0] for p in points}, {p[1] for p in points}
                assert max(xs) - min(xs) == pytest.approx(labels.CELL_PT, abs=0.02)
                assert max(ys) - min(ys) == pytest.approx(labels.CELL_PT, abs=0.02)
                cells += 1
        want = sum(
            len(sum(glyph.cells, ()))
            for _, box in view.boxes
            for glyph in (box.glyph, box.grad_glyph)
            if glyph is not None
        )
        assert cells == want > 0


def test_blank_text_does_not_count_as_the_smallest_text():
    svg = (
        '<svg width="100pt" height="50pt" xmlns="http://www.w3.org/2000/svg">'
        '<text font-size="12.00">data</text><text font-size="1.00"> </text></svg>'
    )
    assert DrawingSize.of(svg).smallest_font_px == pytest.approx(12 * PX_PER_PT)


@pytest.mark.skipif(render.renderer() != "graphviz-pure", reason="Graphviz 16 wraps a tooltip's cells")
def test_glyph_cells_are_not_a_nodes_own_outline():
    # the stepper's CSS restyles `g.agv-s-current > polygon` (a box's outline): the glyph's
    # tooltip puts its cells one level down, in their own <g><a>
    m, x, loss = mlp()
    root = ET.fromstring(agv.draw(loss, model=m, names={"x": x}, layers=False).svg())
    for node in root.iter(f"{SVG}g"):
        if "agv-node" in (node.get("class") or ""):
            for child in node:
                if child.tag == f"{SVG}polygon":
                    assert child.get("stroke") not in ("none", "transparent")
