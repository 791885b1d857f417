"""BackwardStepper in a real browser (issue 4): Debian's chromium driven by Playwright.

- the standalone page of `to_html()`, opened from a file:// URL with all networking off;
- the widget in JupyterLab 4, started here on 127.0.0.1 with its own settings.

Skipped when /usr/bin/chromium or the playwright package is missing (`scripts/test.sh`
installs both). Screenshots go to tests/artifacts/ (not in git).
"""

from __future__ import annotations

import base64
import re
import urllib.parse
import urllib.request
from pathlib import Path

import numpy as np
import pytest
from _browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, jupyter_lab  # noqa: E402

import autogradviz as agv
from autogradviz.viz.labels import brief_number, preview

if not CHROMIUM.exists():
    pytest.skip("no /usr/bin/chromium (apt-get install chromium)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
expect = sync_api.expect

ROOT = Path(__file__).resolve().parents[1]

SEED_SOURCE = """\
a = agv.tensor(2.0, requires_grad=True)
b = agv.tensor(5.0, requires_grad=True)
d = agv.tensor(4.0, requires_grad=True)
c = a * b
e = c * d
"""

# a two-layer MLP loss on fixed numbers: the notebook and this process run the same text
MLP_SOURCE = """\
rng = np.random.default_rng(0)
x = agv.tensor(rng.normal(size=(4, 3)).astype(np.float32))
W1 = agv.tensor(rng.normal(size=(3, 5)).astype(np.float32), requires_grad=True)
b1 = agv.tensor(rng.normal(size=5).astype(np.float32), requires_grad=True)
W2 = agv.tensor(rng.normal(size=(5, 2)).astype(np.float32), requires_grad=True)
b2 = agv.tensor(rng.normal(size=2).astype(np.float32), requires_grad=True)
h = (x @ W1 + b1).relu()
logp = (h @ W2 + b2).log_softmax(dim=1)
loss = -logp[agv.arange(4), agv.tensor([0, 1, 1, 0])].mean()
"""


def run(source: str) -> dict:
    namespace = {"agv": agv, "np": np}
    exec(source, namespace)
    return namespace


@pytest.fixture(scope="module")
def browser():
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


# -- what the page shows -----------------------------------------------------------------

# the bold title of every SVG node group carrying a state class, per state
MARKED = """(root) => {
  const out = {done: [], current: [], waiting: []};
  for (const g of root.querySelectorAll("g[id^='agv-']")) {
    const title = g.querySelector("text[font-weight='bold']");
    for (const s of Object.keys(out))
      if (g.classList.contains("agv-s-" + s)) out[s].push(title ? title.textContent : g.id);
  }
  for (const s of Object.keys(out)) out[s].sort();
  return out;
}"""

TABLE = """(root) => [...root.querySelectorAll(".agv-table tr")].slice(1)
  .map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent))"""


def marked(widget) -> dict:
    return widget.evaluate(MARKED)


def table(widget) -> dict[str, tuple[str, str]]:
    return {name: (grad, status) for name, grad, status in widget.evaluate(TABLE)}


def position(widget) -> int:
    return int(widget.get_attribute("data-position"))


def click(widget, button: str, times: int = 1) -> None:
    for _ in range(times):
        before = position(widget)
        widget.locator(button).click()
        expect(widget).not_to_have_attribute("data-position", str(before), timeout=15_000)


# -- the standalone page -----------------------------------------------------------------


@pytest.fixture
def offline_page(browser, tmp_path):
    """A page that can load file:// URLs and nothing else."""
    context = browser.new_context(offline=True, viewport={"width": 1200, "height": 800})
    requests, errors = [], []
    context.route(
        "**/*", lambda route: route.continue_() if route.request.url.startswith("file:") else route.abort()
    )
    page = context.new_page()
    page.on("request", lambda request: requests.append(request.url))
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert errors == [], errors
    assert all(url.startswith(("file:", "data:", "about:")) for url in requests), requests


def open_export(page, tmp_path, quiz=False):
    g = run(SEED_SOURCE)
    stepper = agv.BackwardStepper(g["e"], names=g, quiz=quiz)
    path = stepper.to_html(tmp_path / "stepper.html")
    page.goto(path.as_uri())
    widget = page.locator(".agv-stepper")
    expect(widget).to_have_attribute("data-position", "0", timeout=15_000)
    return widget


def test_html_export_steps_with_no_network(offline_page, tmp_path):
    page = offline_page
    widget = open_export(page, tmp_path)
    assert "Start: 5 steps to go" in widget.locator(".agv-title").text_content()
    assert marked(widget)["waiting"] == ["*", "e"]
    expect(widget.locator(".agv-back")).to_be_disabled()

    click(widget, ".agv-next")
    assert marked(widget)["current"] == ["*", "e"]
    click(widget, ".agv-next", 2)
    assert position(widget) == 3
    assert widget.locator(".agv-title").text_content() == "Step 3 of 5: MulBackward0"
    panel = widget.locator(".agv-panel").text_content()
    assert "gradient arriving (upstream): 4" in panel
    assert "to a (input 1): upstream × local = 4 × 5 = 20" in panel
    assert "to b (input 2): upstream × local = 4 × 2 = 8" in panel
    assert marked(widget) == {"current": ["*", "c"], "done": ["*", "d", "e"], "waiting": ["a", "b"]}
    assert table(widget) == {
        "d": ("10", "written"),
        "b": ("8", "arriving"),
        "a": ("20", "arriving"),
        "e": ("1", "complete"),
        "c": ("4", "complete"),
    }
    widget.screenshot(path=ARTIFACTS / "stepper_html_step3.png")

    click(widget, ".agv-back")
    assert position(widget) == 2
    assert "d.grad was None, and becomes 10" in widget.locator(".agv-panel").text_content()
    assert marked(widget)["current"] == ["d"]
    assert table(widget)["a"] == ("—", "")

    click(widget, ".agv-end")
    assert position(widget) == 5
    assert {name: grad for name, (grad, _) in table(widget).items()} == {
        "a": "20",
        "b": "8",
        "c": "4",
        "d": "10",
        "e": "1",
    }
    expect(widget.locator(".agv-next")).to_be_disabled()
    expect(widget.locator(".agv-end")).to_be_disabled()
    widget.screenshot(path=ARTIFACTS / "stepper_html_end.png")

    widget.locator(".agv-slider").fill("1")
    expect(widget).to_have_attribute("data-position", "1")
    click(widget, ".agv-reset")
    assert position(widget) == 0 and marked(widget)["done"] == []


def test_html_export_play_and_pause(offline_page, tmp_path):
    widget = open_export(offline_page, tmp_path)
    widget.locator(".agv-speed").select_option("2")
    play = widget.locator(".agv-play")
    play.click()
    expect(play).to_have_text("❚❚ Pause")
    offline_page.wait_for_function("document.querySelector('.agv-stepper').dataset.position >= 1")
    play.click()  # pause, half a second before the next step would come
    paused = position(widget)
    assert 1 <= paused < 5
    offline_page.wait_for_timeout(1200)
    assert position(widget) == paused
    widget.locator(".agv-speed").select_option("4")
    play.click()
    expect(widget).to_have_attribute("data-position", "5", timeout=10_000)
    expect(play).to_have_text("▶ Play")  # stops by itself at the end


def test_html_export_quiz(offline_page, tmp_path):
    widget = open_export(offline_page, tmp_path, quiz=True)
    answers = widget.locator(".agv-answer")
    expect(answers).to_have_count(2)  # MulBackward0 of e = c*d sends to c and to d
    assert "to c (input 1)" in widget.locator(".agv-quiz").text_content()
    answers.nth(0).fill("5")
    answers.nth(1).fill("10")
    widget.locator(".agv-check").click()
    verdict = widget.locator(".agv-verdict")
    expect(verdict).to_have_class(re.compile(r"\bagv-wrong\b"))
    text = verdict.text_content()
    # the learner's names c and d (b = 5 is a different tensor of this graph), with d's value
    assert (
        text
        == "Not quite. Hint: MulBackward0: ∂(c·d)/∂c = d = 4; ∂(c·d)/∂d = c = 10. The upstream gradient is 1."
    )
    answers.nth(0).fill("4")
    widget.locator(".agv-check").click()
    expect(verdict).to_have_class(re.compile(r"\bagv-right\b"))
    widget.screenshot(path=ARTIFACTS / "stepper_html_quiz.png")

    click(widget, ".agv-next")  # the next node, AccumulateGrad of d, sends nothing: no question
    expect(widget.locator(".agv-answer")).to_have_count(0)
    click(widget, ".agv-next")
    answers = widget.locator(".agv-answer")
    expect(answers).to_have_count(2)
    answers.nth(0).fill("20")
    answers.nth(1).fill("8.0")
    widget.locator(".agv-check").click()
    expect(widget.locator(".agv-verdict")).to_have_class(re.compile(r"\bagv-right\b"))


def test_html_export_with_hostile_names(offline_page, tmp_path):
    """Names are text, never markup: not in the picture, the panel, the table or the quiz."""
    names = ("<!--<script>", "</script><img src=x onerror=alert(1)>", 'a"b{c|d}')
    a = agv.tensor(2.0, requires_grad=True)
    b = agv.tensor(5.0, requires_grad=True)
    stepper = agv.BackwardStepper(a * b, names={names[0]: a, names[1]: b}, quiz=True)
    dialogs = []
    offline_page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    offline_page.goto(stepper.to_html(tmp_path / "hostile.html").as_uri())
    widget = offline_page.locator(".agv-stepper")
    expect(widget).to_have_attribute("data-position", "0", timeout=15_000)
    assert names[0] in widget.locator(".agv-quiz").text_content()
    click(widget, ".agv-end")
    assert set(table(widget)) == set(names[:2]) | {"(unnamed)"}
    assert names[1] in widget.locator("svg").text_content()
    assert widget.locator("img").count() == 0 and dialogs == []


# -- JupyterLab --------------------------------------------------------------------------

CUBE_SOURCE = """\
class Cube(agv.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad_output):
        # d(x³)/dx = 3x²: the local derivative, times the gradient that arrives
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x**2

z = agv.tensor([1.0, 2.0], requires_grad=True)
"""

NOTEBOOK_CELLS = [
    "import autogradviz as agv\nimport numpy as np\n\n"
    + SEED_SOURCE
    + "stepper = agv.BackwardStepper(e, names=locals())\nstepper",
    MLP_SOURCE + "mlp = agv.BackwardStepper(loss, names=locals())\nmlp",
    'print("positions:", stepper.position, mlp.position)',
    # issue 3: drawings render inline with no system Graphviz (the server's PATH has no `dot`)
    "import shutil\n"
    "x = agv.ones(2, 2); w = agv.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)\n"
    "b = agv.tensor([[0.1, 0.2], [0.3, 0.4]], requires_grad=True); y = w * x + b\n"
    'print("dot on PATH:", shutil.which("dot"), "| renderer:", agv.viz.renderer())\n'
    "agv.draw(y, names=locals())",
    'agv.draw(y, names=locals(), kind="backward")',
    # issue 13: a custom Function's panel shows the user's backward, in English and in Chinese
    CUBE_SOURCE + "cube = agv.BackwardStepper(Cube.apply(z).sum(), names=locals())\ncube.goto(2)\ncube",
    'cube_zh = agv.BackwardStepper(Cube.apply(z).sum(), names=locals(), language="zh")\n'
    "cube_zh.goto(2)\ncube_zh",
]


def _notebook(path: Path) -> None:
    nbformat = pytest.importorskip("nbformat")
    cells = [nbformat.v4.new_code_cell(source) for source in NOTEBOOK_CELLS]
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """`jupyter lab` from this Python on a free port, with settings, kernels and workspaces of
    its own, and no system Graphviz on PATH (tests/_browser.py)."""
    pytest.importorskip("jupyterlab", reason="jupyterlab is not installed")
    tmp = tmp_path_factory.mktemp("lab")
    root = tmp / "root"
    root.mkdir()
    _notebook(root / "stepper.ipynb")
    _stored_notebook(root / "stored.ipynb")
    with jupyter_lab(root, tmp, hide_dot=True) as (base, token):
        yield f"{base}/lab/tree/stepper.ipynb?reset&token={token}"
        # (tests open other notebooks of the root by replacing "stepper.ipynb")


@pytest.fixture(scope="module")
def lab_page(browser, lab):
    """The notebook open in JupyterLab, every cell run, both widgets drawn."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(lab, timeout=90_000)
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=90_000)
    page.wait_for_function(
        """() => {
            const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
            const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
            return k && k.status === 'idle';
        }""",
        timeout=90_000,
    )
    page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
    widgets = page.locator(".jp-OutputArea-output .agv-stepper")
    expect(widgets).to_have_count(4, timeout=90_000)
    expect(page.locator(".jp-OutputArea-output").filter(has_text="positions: 0 0")).to_have_count(
        1, timeout=60_000
    )
    yield page
    page.close()
    assert not [e for e in errors if "agv" in e or "stepper" in e.lower()], errors


def kernel_positions(page) -> str:
    """Run the last cell again: it prints the kernel's `position` of both steppers."""
    output = page.locator(".jp-Cell").nth(2).locator(".jp-OutputArea-output")
    before = output.text_content()
    page.evaluate(
        """() => {
            const panel = window.jupyterapp.shell.currentWidget;
            panel.content.activeCellIndex = 2;
            return window.jupyterapp.commands.execute('notebook:run-cell');
        }"""
    )
    expect(output).not_to_have_text(before, timeout=30_000)
    return re.search(r"positions: \d+ \d+", output.text_content()).group(0)


def test_lab_seed_next_three_times(lab_page):
    page = lab_page
    widget = page.locator(".jp-OutputArea-output .agv-stepper").nth(0)
    expect(widget.locator("svg")).to_be_visible()
    assert position(widget) == 0 and marked(widget)["current"] == []
    expected = [
        # (current nodes, a line of the panel)
        (["*", "e"], "to c (input 1): upstream × local = 1 × 4 = 4"),
        (["d"], "d.grad was None, and becomes 10"),
        (["*", "c"], "to a (input 1): upstream × local = 4 × 5 = 20"),
    ]
    for k, (current, line) in enumerate(expected, start=1):
        click(widget, ".agv-next")
        assert position(widget) == k
        assert marked(widget)["current"] == current
        assert line in widget.locator(".agv-panel").text_content()
    assert table(widget)["d"] == ("10", "written")
    widget.screenshot(path=ARTIFACTS / "stepper_lab_seed_step3.png")
    page.screenshot(path=ARTIFACTS / "stepper_lab_page.png")
    # the browser saved each move: the kernel's traitlet followed
    assert kernel_positions(page).startswith("positions: 3 ")


def test_lab_mlp_first_to_last_matches_backward(lab_page):
    page = lab_page
    widget = page.locator(".jp-OutputArea-output .agv-stepper").nth(1)
    widget.scroll_into_view_if_needed()
    steps = int(re.search(r"Start: (\d+) steps", widget.locator(".agv-title").text_content()).group(1))
    assert steps == 13
    for k in range(1, steps + 1):
        click(widget, ".agv-next")
        assert position(widget) == k
    expect(widget.locator(".agv-next")).to_be_disabled()
    assert widget.locator(".agv-title").text_content() == "Step 13 of 13: AccumulateGrad"

    ref = run(MLP_SOURCE)
    ref["loss"].backward()
    shown = table(widget)
    # names=locals() also saw the seed cell's tensors: they are not part of this graph
    assert set(shown) == {"W1", "b1", "W2", "b2", "loss", "h", "logp"}
    for name in ("W1", "b1", "W2", "b2"):
        grad = ref[name].grad.numpy()
        # up to 6 values: the numbers; more: the shape and the norm (a network's gradients are big)
        norm = brief_number(float(np.linalg.norm(grad.reshape(-1))))
        expected = preview(grad) if grad.size <= 6 else f"shape {grad.shape}, norm {norm}"
        assert shown[name] == (expected, "written"), name
    widget.screenshot(path=ARTIFACTS / "stepper_lab_mlp_end.png")
    assert kernel_positions(page).endswith(" 13")


def test_lab_draws_graphs_inline_without_system_graphviz(lab_page):
    page = lab_page
    cells = page.locator(".jp-Cell")
    forward, backward = (
        cells.nth(3).locator(".jp-OutputArea-output"),
        cells.nth(4).locator(".jp-OutputArea-output"),
    )
    expect(forward.filter(has_text="dot on PATH: None | renderer: graphviz-pure")).to_have_count(
        1, timeout=60_000
    )
    # JupyterLab shows image/svg+xml output as an <img> of the SVG (or inline): read its text either way
    forward_svg, backward_svg = _svg_text(forward), _svg_text(backward)
    for text in (">w<", ">x<", ">b<", ">y<", ">*<", ">+<"):
        assert text in forward_svg, text
    assert "grad " not in forward_svg  # no backward yet: no grads shown
    for text in (">AddBackward0<", ">MulBackward0<", ">AccumulateGrad<"):
        assert text in backward_svg, text
    box = forward.locator("img, svg").first.bounding_box()
    assert box is not None and box["width"] > 200 and box["height"] > 80  # drawn, at a readable size
    cells.nth(3).screenshot(path=ARTIFACTS / "draw_lab_forward.png")
    cells.nth(4).screenshot(path=ARTIFACTS / "draw_lab_backward.png")


def _svg_text(output) -> str:
    """The SVG an output shows, from an inline <svg> or an <img> with a data: URL."""
    expect(output.locator("img, svg").first).to_be_visible(timeout=60_000)
    if output.locator("svg").count():
        return output.locator("svg").first.evaluate("e => e.outerHTML")
    src = output.locator("img").first.get_attribute("src")
    header, _, payload = src.partition(",")
    return (
        base64.b64decode(payload).decode("utf-8")
        if header.endswith(";base64")
        else urllib.parse.unquote(payload)
    )


# -- issue 13: the stepper fits, has keys, and a static first frame ------------------------------

# For one stepper: its rendered smallest SVG text in px (font size in user units × screen px per
# user unit, measured on the text itself), where the panel sits, and whether anything overflows.
MEASURE = """(w) => {
  const svg = w.querySelector(".agv-picture svg");
  let smallest = Infinity;
  for (const t of svg.querySelectorAll("text")) {
    const box = t.getBBox();
    if (!t.textContent.trim() || !box.height) continue;
    const perUnit = t.getBoundingClientRect().height / box.height;
    smallest = Math.min(smallest, parseFloat(t.getAttribute("font-size")) * perUnit);
  }
  const picture = w.querySelector(".agv-picture"), side = w.querySelector(".agv-side");
  const legend = w.querySelector(".agv-legend");
  const p = picture.getBoundingClientRect(), s = side.getBoundingClientRect();
  return {
    width: w.getBoundingClientRect().width,
    smallest,
    panel: s.top >= p.bottom - 1 ? "below" : (s.left >= p.right - 1 ? "beside" : "overlapping"),
    legend_fits: legend.scrollWidth <= legend.clientWidth && legend.getBoundingClientRect().right <= w.getBoundingClientRect().right + 0.5,
    base_font: parseFloat(getComputedStyle(w).fontSize),
    smallest_ui_font: Math.min(...[...w.querySelectorAll("button, select, .agv-legend, .agv-panel, .agv-table td")]
      .map((e) => parseFloat(getComputedStyle(e).fontSize))),
  };
}"""


def natural_size(svg_text: str) -> tuple[float, float]:
    """The SVG's width in CSS px and its smallest text in px, at its natural size (from its attributes)."""
    width = re.search(r'<svg[^>]*\bwidth="([\d.]+)(pt)?"', svg_text)
    px = float(width.group(1)) * (4 / 3 if width.group(2) else 1)
    view_width = float(re.search(r'viewBox="[\d.-]+ [\d.-]+ ([\d.]+)', svg_text).group(1))
    sizes = [
        float(m) for m in re.findall(r'<text[^>]*font-size="([\d.]+)"[^>]*>[^<]*\S[^<]*</text>', svg_text)
    ]
    return px, min(sizes) * px / view_width


def open_file_browser(page) -> None:
    page.evaluate(
        "async () => { if (window.jupyterapp.shell.leftCollapsed) "
        "await window.jupyterapp.commands.execute('filebrowser:activate'); }"
    )
    expect(page.locator(".jp-FileBrowser")).to_be_visible()


@pytest.mark.parametrize("width, height", [(1280, 800), (1024, 768), (1900, 1000)])
def test_lab_stepper_fits_with_the_file_browser_open(lab_page, width, height):
    page = lab_page
    page.set_viewport_size({"width": width, "height": height})
    open_file_browser(page)
    widget = page.locator(".jp-OutputArea-output .agv-stepper").nth(0)
    widget.scroll_into_view_if_needed()  # JupyterLab skips laying out cells out of sight
    page.wait_for_timeout(600)  # the ResizeObserver's new layout
    got = widget.evaluate(MEASURE)
    natural_width, natural_smallest = natural_size(
        widget.locator(".agv-picture svg").evaluate("e => e.outerHTML")
    )
    # beside, the picture would get the widget's width less the panel (360 px) and the gap (12 px)
    beside_px = natural_smallest * min(1.0, (got["width"] - 372) / natural_width)
    print(width, {k: round(v, 1) if isinstance(v, float) else v for k, v in got.items()}, round(beside_px, 1))
    assert got["panel"] == ("beside" if beside_px >= 10 else "below"), (got, beside_px)
    assert got["smallest"] >= 10 - 0.05, got
    assert got["legend_fits"], got
    assert got["base_font"] >= 12 and got["smallest_ui_font"] >= 12, got
    widget.screenshot(path=ARTIFACTS / f"stepper_lab_fit_{width}.png")
    if width == 1280:
        # 848 px of output: beside, this picture (legend wrapped to two rows) keeps 10 px text
        assert got["panel"] == "beside"
    if width == 1900:
        assert got["panel"] == "beside"
    page.set_viewport_size({"width": 1400, "height": 1000})


def test_lab_keys_step_when_the_stepper_has_the_focus(lab_page):
    page = lab_page
    widget = page.locator(".jp-OutputArea-output .agv-stepper").nth(0)
    widget.scroll_into_view_if_needed()
    click(widget, ".agv-reset") if position(widget) else None
    active_cell = "() => window.jupyterapp.shell.currentWidget.content.activeCellIndex"
    widget.locator(".agv-title").click()  # a click gives the stepper the focus
    cell_before = page.evaluate(active_cell)
    for key, expected in [("ArrowRight", 1), ("ArrowRight", 2), ("ArrowLeft", 1), ("End", 5), ("Home", 0)]:
        page.keyboard.press(key)
        expect(widget).to_have_attribute("data-position", str(expected), timeout=10_000)
    page.keyboard.press("Space")
    expect(widget.locator(".agv-play")).to_have_text("❚❚ Pause")
    expect(widget).to_have_attribute("data-position", "1", timeout=10_000)
    page.keyboard.press("Space")
    expect(widget.locator(".agv-play")).to_have_text("▶ Play")
    paused = position(widget)
    page.wait_for_timeout(1500)
    assert position(widget) == paused
    # the notebook did not act on those keys as well: the same cell is active
    assert page.evaluate(active_cell) == cell_before
    page.keyboard.press("Home")
    expect(widget).to_have_attribute("data-position", "0")
    # with the focus elsewhere, the keys are the notebook's again
    page.locator(".jp-Cell").nth(2).locator(".jp-InputArea-prompt").click()
    page.keyboard.press("End")
    page.wait_for_timeout(500)
    assert position(widget) == 0


def test_html_export_keys(offline_page, tmp_path):
    widget = open_export(offline_page, tmp_path)
    offline_page.keyboard.press("ArrowRight")
    page_wide_key_ignored = position(widget) == 0  # no focus yet: the page keeps its keys
    widget.focus()
    offline_page.keyboard.press("ArrowRight")
    expect(widget).to_have_attribute("data-position", "1")
    offline_page.keyboard.press("End")
    expect(widget).to_have_attribute("data-position", "5")
    offline_page.keyboard.press("ArrowRight")  # at the end: stays
    offline_page.keyboard.press("Home")
    expect(widget).to_have_attribute("data-position", "0")
    assert page_wide_key_ignored


def test_lab_custom_function_panel_in_both_languages(lab_page):
    page = lab_page
    page.set_viewport_size({"width": 1280, "height": 800})
    open_file_browser(page)
    for index, (language_line, code_line) in enumerate(
        [
            ("its backward is your code", "return grad_output * 3 * x**2"),
            ("它的反向传播是你写的代码", "(x,) = ctx.saved_tensors"),
        ]
    ):
        widget = page.locator(".jp-OutputArea-output .agv-stepper").nth(2 + index)
        widget.scroll_into_view_if_needed()
        page.wait_for_timeout(600)
        expect(widget).to_have_attribute("data-position", "2")
        panel = widget.locator(".agv-panel")
        assert language_line in panel.text_content() and code_line in panel.text_content()
        code = widget.locator("pre.agv-code")
        # the user's code is shown whole: no line cut off, no sideways scrolling (long lines wrap)
        assert code.evaluate("e => e.scrollWidth <= e.clientWidth"), code.evaluate(
            "e => [e.scrollWidth, e.clientWidth]"
        )
        assert code.evaluate("e => parseFloat(getComputedStyle(e).fontSize)") >= 12
        got = widget.evaluate(MEASURE)
        assert got["smallest"] >= 10 - 0.05 and got["legend_fits"], got
        widget.screenshot(path=ARTIFACTS / f"stepper_lab_function_{'en' if index == 0 else 'zh'}.png")
    zh = page.locator(".jp-OutputArea-output .agv-stepper").nth(3)
    assert zh.locator(".agv-next").text_content() == "前进 ▶"
    assert zh.locator(".agv-legend").text_content() == "已完成当前等待中未触及"
    page.set_viewport_size({"width": 1400, "height": 1000})


def _stored_notebook(path: Path) -> None:
    """A notebook as saved after a run, and opened later: its outputs are the stepper's
    mime bundle, and nothing signs it, so JupyterLab opens it untrusted."""
    nbformat = pytest.importorskip("nbformat")
    g = run(SEED_SOURCE)
    data, metadata = agv.BackwardStepper(g["e"], names=g)._repr_mimebundle_()
    cell = nbformat.v4.new_code_cell(
        "stepper = agv.BackwardStepper(e, names=locals())\nstepper", execution_count=1
    )
    cell.outputs = [nbformat.v4.new_output("display_data", data=data, metadata=metadata)]
    nb = nbformat.v4.new_notebook(cells=[cell])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)


def test_lab_untrusted_notebook_shows_the_static_first_frame(browser, lab):
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    try:
        page.goto(lab.replace("stepper.ipynb", "stored.ipynb"), timeout=90_000)
        output = page.locator(".jp-OutputArea-output").first
        expect(output).to_be_visible(timeout=90_000)
        assert not page.evaluate("window.jupyterapp.shell.currentWidget.content.model.cells.get(0).trusted")
        picture = output.locator("img")
        expect(picture).to_be_visible(timeout=30_000)
        box = picture.bounding_box()
        assert box["width"] > 300 and box["height"] > 100
        assert picture.evaluate("e => e.complete && e.naturalWidth") > 300  # the SVG decoded
        text = output.text_content()
        assert "Start: 5 steps to go" in text and "run the cell to step" in text
        assert "<autogradviz BackwardStepper" not in text
        output.screenshot(path=ARTIFACTS / "stepper_lab_untrusted.png")
    finally:
        page.close()
