"""The stepper keeps what it explains in view (issue 24, items 4 and 5), in Debian's chromium.

On standalone pages (the page `to_html()` writes), in a container as wide as JupyterLab's
output with the file browser open (590 px at 1024x768, 850 px at 1280x800):

- at every step the current node is inside the picture's visible rect (scrolled there inside
  the picture, not the page), the panel is in the window, and the whole widget fits ~700 px;
- the picture's smallest text is at least 10 px (computed font size x the text's screen CTM
  scale, as tests/_classroom.py measures it);
- Play turning into Pause moves no control; the zoom buttons, Ctrl+wheel and a drag work, and
  Fit restores the default scale;
- the two levels: Step into / Step out, a click on a module box, Next and Back past a module's
  ends, Enter / Escape / Backspace, on a hand-made two-level state and on an MLP's layer view.

Skipped when /usr/bin/chromium or the playwright package is missing. Screenshots go to
tests/artifacts/stepper_layers/ (not in git).
"""

from __future__ import annotations

import copy
import json
import re

import numpy as np
import pytest
from _browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS

import autogradviz as agv
import autogradviz.nn.functional as F
from autogradviz import nn, ui_text

if not CHROMIUM.exists():
    pytest.skip("no /usr/bin/chromium (apt-get install chromium)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
expect = sync_api.expect

OUT = ARTIFACTS / "stepper_layers"
# (output column width, window) in JupyterLab with the file browser open (tests/_classroom.py)
SIZES = {590: (1024, 768), 850: (1280, 800)}
READABLE_PX = 10
WIDGET_MAX_PX = 700
# the synced traits a page needs (widgets/stepper.py's protocol) and the labels stepper.js reads
TRAITS = ("svg", "frames", "timeline", "modules", "details", "quiz", "labels")
NEW_LABELS = ("into", "into_tip", "out", "out_tip", "zoom_in", "zoom_out", "zoom_fit", "zoom_tip", "inside")


@pytest.fixture(scope="module")
def browser():
    OUT.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


# -- graphs and pages --------------------------------------------------------------------------


def lesson_graph():
    a = agv.tensor(2.0, requires_grad=True)
    b = agv.tensor(5.0, requires_grad=True)
    d = agv.tensor(4.0, requires_grad=True)
    c = a * b
    e = c * d
    return e, {"a": a, "b": b, "c": c, "d": d, "e": e}


def mlp_loss():
    rng = np.random.default_rng(0)
    m = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 3))
    x = agv.tensor(rng.normal(size=(8, 4)).astype(np.float32))
    y = agv.tensor(rng.integers(0, 3, size=8))
    return F.cross_entropy(m(x), y), m


STATE = re.compile(r'(<script type="application/json" id="agv-state">)(.*?)(</script>)', re.S)


def write_page(stepper, path, **overrides):
    """The stepper's to_html() page, its state completed with every synced trait of the protocol
    (and the layer-view labels) that the page does not carry yet, then `overrides` applied."""
    stepper.to_html(path)
    text = path.read_text(encoding="utf-8")
    state = json.loads(STATE.search(text).group(2))
    for name in TRAITS:
        if name not in state and stepper.has_trait(name):
            state[name] = copy.deepcopy(getattr(stepper, name))
    language = "zh" if 'lang="zh-CN"' in text else "en"
    state["labels"] = {key: ui_text.text("stepper." + key, language) for key in NEW_LABELS} | state["labels"]
    state.update(overrides)
    body = json.dumps(state).replace("<", "\\u003c")
    path.write_text(STATE.sub(lambda m: m.group(1) + body + m.group(3), text, count=1), encoding="utf-8")
    return path


def open_page(browser, path, width):
    window_width, window_height = SIZES[width]
    page = browser.new_page(viewport={"width": window_width, "height": window_height})
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(path.as_uri())
    # the notebook's output column: a container of that width
    page.add_style_tag(content=f"#agv-stepper {{ width: {width}px; }}")
    widget = page.locator(".agv-stepper")
    expect(widget).to_have_attribute("data-position", "0", timeout=15_000)
    page.evaluate("() => document.fonts.ready.then(() => null)")
    page.wait_for_timeout(200)  # the ResizeObserver's layout for the new width
    return page, widget, errors


# -- measuring ---------------------------------------------------------------------------------

MEASURE = """(w) => {
  const ctmScale = (el) => { const m = el.getScreenCTM(); return Math.sqrt(Math.abs(m.a * m.d - m.b * m.c)); };
  const rect = (r) => ({left: r.left, top: r.top, right: r.right, bottom: r.bottom});
  const picture = w.querySelector(".agv-picture");
  const p = picture.getBoundingClientRect();
  const visible = {left: p.left + picture.clientLeft, top: p.top + picture.clientTop,
    right: p.left + picture.clientLeft + picture.clientWidth, bottom: p.top + picture.clientTop + picture.clientHeight};
  let smallest = Infinity, smallestLabel = "";
  for (const t of w.querySelectorAll(".agv-picture svg text")) {
    if (!t.textContent.trim()) continue;
    const px = parseFloat(getComputedStyle(t).fontSize) * ctmScale(t);
    if (px < smallest) { smallest = px; smallestLabel = t.textContent.trim(); }
  }
  const controls = [...w.querySelectorAll(".agv-controls > *, .agv-controls .agv-btn")]
    .filter((e) => e.getClientRects().length)
    .map((e) => [e.className, Math.round(e.getBoundingClientRect().left * 10) / 10,
                 Math.round(e.getBoundingClientRect().top * 10) / 10]);
  const text = w.querySelector(".agv-picture svg text");
  return {
    widget: rect(w.getBoundingClientRect()),
    window: {width: innerWidth, height: innerHeight},
    picture: visible,
    current: [...w.querySelectorAll(".agv-picture g.agv-s-current")].map((g) => rect(g.getBoundingClientRect())),
    side: rect(w.querySelector(".agv-side").getBoundingClientRect()),
    panel: rect(w.querySelector(".agv-panel").getBoundingClientRect()),
    beside: w.querySelector(".agv-body").classList.contains("agv-beside"),
    smallest, smallestLabel,
    scale: ctmScale(text),
    controls,
    page_scroll: [scrollX, scrollY],
    picture_scroll: [picture.scrollLeft, picture.scrollTop],
    smallest_html: Math.min(...[...w.querySelectorAll("button, select, .agv-legend, .agv-panel, .agv-title, .agv-table td")]
      .filter((e) => e.getClientRects().length).map((e) => parseFloat(getComputedStyle(e).fontSize))),
  };
}"""


def inside(box, area, slack=1.0) -> bool:
    return (
        box["left"] >= area["left"] - slack
        and box["top"] >= area["top"] - slack
        and box["right"] <= area["right"] + slack
        and box["bottom"] <= area["bottom"] + slack
    )


def check_in_view(got: dict, where: str) -> None:
    """What every step must show: the current node inside the picture's visible rect, the panel
    in the window and beside or below the picture, readable text, the widget within ~700 px."""
    window = {"left": 0, "top": 0, "right": got["window"]["width"], "bottom": got["window"]["height"]}
    if got["current"]:
        # the current node inside the picture's view; when a step has several (a layer's ops with
        # no module), all of them if they fit the view together, else at least one
        shown = [box for box in got["current"] if inside(box, got["picture"])]
        whole = {
            "left": min(b["left"] for b in got["current"]),
            "top": min(b["top"] for b in got["current"]),
            "right": max(b["right"] for b in got["current"]),
            "bottom": max(b["bottom"] for b in got["current"]),
        }
        view = got["picture"]
        fits = whole["right"] - whole["left"] <= view["right"] - view["left"] - 16 and (
            whole["bottom"] - whole["top"] <= view["bottom"] - view["top"] - 16
        )
        wanted = len(got["current"]) if fits else 1
        assert len(shown) >= wanted, (where, "current node out of the picture's view", got["current"], view)
    # the panel: its box (the scrolling strip or column that holds it) in the window, its start shown
    assert inside(got["side"], window), (where, "panel out of the window", got["side"])
    assert got["side"]["top"] - 1 <= got["panel"]["top"] < got["side"]["bottom"] - 20, (where, got["panel"])
    # it does not cover the picture
    side, picture = got["side"], got["picture"]
    assert side["left"] >= picture["right"] - 1 or side["top"] >= picture["bottom"] - 1, (
        where,
        side,
        picture,
    )
    assert got["smallest"] >= READABLE_PX - 0.05, (where, got["smallest"], got["smallestLabel"])
    assert got["smallest_html"] >= 12, (where, got["smallest_html"])
    assert got["widget"]["bottom"] - got["widget"]["top"] <= WIDGET_MAX_PX, (where, got["widget"])
    assert inside(got["widget"], window), (where, "widget out of the window", got["widget"])
    assert got["page_scroll"] == [0, 0], (where, "the page scrolled", got["page_scroll"])


def state(widget) -> tuple[str, int, str]:
    """(open module or "", top position, position inside the module or "")."""
    return (
        widget.get_attribute("data-detail") or "",
        int(widget.get_attribute("data-position")),
        widget.get_attribute("data-detail-position") or "",
    )


def press(widget, selector: str) -> tuple[str, int, str]:
    before = state(widget)
    widget.locator(selector).click()
    widget.page.wait_for_function(
        """([w, before]) => JSON.stringify([w.dataset.detail || '', Number(w.dataset.position),
             w.dataset.detailPosition || '']) !== JSON.stringify(before)""",
        arg=[widget.element_handle(), list(before)],
        timeout=10_000,
    )
    return state(widget)


def walk_to_the_end(widget, where: str, shots: dict[int, str] | None = None) -> list[dict]:
    """Next until it is disabled, measuring every step (and the start). Returns the measures."""
    measures = [widget.evaluate(MEASURE)]
    check_in_view(measures[0], f"{where} start")
    step = 0
    while widget.locator(".agv-next").is_enabled():
        press(widget, ".agv-next")
        step += 1
        got = widget.evaluate(MEASURE)
        check_in_view(got, f"{where} step {step}")
        measures.append(got)
        if shots and step in shots:
            widget.page.screenshot(path=OUT / shots[step])
    return measures


def summary(measures: list[dict]) -> dict:
    return {
        "steps": len(measures) - 1,
        "with_current": sum(1 for m in measures if m["current"]),
        "smallest_px": round(min(m["smallest"] for m in measures), 2),
        "widget_h": round(max(m["widget"]["bottom"] - m["widget"]["top"] for m in measures), 1),
        "side_bottom": round(max(m["side"]["bottom"] for m in measures), 1),
        "beside": measures[0]["beside"],
    }


# -- every step in view ------------------------------------------------------------------------


@pytest.mark.parametrize("width", sorted(SIZES))
def test_lesson_graph_every_step_in_view(browser, tmp_path, width):
    e, names = lesson_graph()
    path = write_page(agv.BackwardStepper(e, names=names), tmp_path / "lesson.html")
    page, widget, errors = open_page(browser, path, width)
    page.screenshot(path=OUT / f"lesson_{width}_start.png")
    measures = walk_to_the_end(widget, f"lesson @ {width}", {1: f"lesson_{width}_step1.png"})
    page.screenshot(path=OUT / f"lesson_{width}_end.png")
    print(width, summary(measures))
    assert len(measures) == 6 and all(m["current"] for m in measures[1:])
    # a small lesson graph has no layer view: no step into / out
    assert widget.locator(".agv-into").is_hidden() and widget.locator(".agv-out").is_hidden()
    # the panel is beside only where the picture keeps 10 px text in the room left beside it
    assert measures[0]["beside"] == (width == 850)
    assert errors == []
    page.close()


@pytest.mark.parametrize("width", sorted(SIZES))
def test_mlp_every_step_in_view(browser, tmp_path, width):
    loss, m = mlp_loss()
    stepper = agv.BackwardStepper(loss, model=m)
    path = write_page(stepper, tmp_path / "mlp.html")
    page, widget, errors = open_page(browser, path, width)
    page.screenshot(path=OUT / f"mlp_{width}_start.png")
    measures = walk_to_the_end(widget, f"MLP @ {width}", {2: f"mlp_{width}_step2.png"})
    page.screenshot(path=OUT / f"mlp_{width}_end.png")
    print(width, "top view", summary(measures))
    assert len(measures) == len(stepper.frames)
    assert sum(1 for m in measures[1:] if m["current"]) >= len(measures) - 2  # the current box is drawn
    if stepper.details:  # the layer view: open each module that a step offers, walk it, step out
        opened = 0
        for k, frame in enumerate(stepper.frames):
            key = frame.get("into")
            if not key:
                continue
            widget.locator(".agv-slider").fill(str(k))
            expect(widget).to_have_attribute("data-position", str(k))
            detail, position, _ = press(widget, ".agv-into")
            assert (detail, position) == (key, k)
            inner = walk_to_the_end_inside(widget, f"MLP @ {width} inside {key}", stepper.details[key])
            if opened == 0:
                print(width, f"inside {key}", summary(inner))
            opened += 1
        assert opened >= 3
    assert errors == []
    page.close()


def walk_to_the_end_inside(widget, where: str, detail: dict) -> list[dict]:
    last = len(detail["frames"]) - 1
    measures = [widget.evaluate(MEASURE)]
    check_in_view(measures[0], f"{where} 0")
    for k in range(1, last + 1):
        assert press(widget, ".agv-next")[2] == str(k)
        measures.append(widget.evaluate(MEASURE))
        check_in_view(measures[-1], f"{where} {k}")
        if k == 1:
            widget.page.screenshot(path=OUT / ("inside_" + re.sub(r"\W+", "_", where) + ".png"))
    # Next at the module's last op steps out, to the layer view just after the module
    assert press(widget, ".agv-next") == ("", detail["leave"], "")
    return measures


# -- play / pause, zoom, pan -------------------------------------------------------------------


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("width", sorted(SIZES))
def test_play_and_pause_move_nothing(browser, tmp_path, width, language):
    e, names = lesson_graph()
    path = write_page(agv.BackwardStepper(e, names=names, language=language), tmp_path / "play.html")
    page, widget, errors = open_page(browser, path, width)
    play = widget.locator(".agv-play")
    before = widget.evaluate(MEASURE)["controls"]
    play.click()
    expect(play).to_have_text(ui_text.text("stepper.pause", language))
    during = widget.evaluate(MEASURE)["controls"]
    expect(widget).to_have_attribute("data-position", "1", timeout=5_000)
    after_step = widget.evaluate(MEASURE)["controls"]
    play.click()
    expect(play).to_have_text(ui_text.text("stepper.play", language))
    after = widget.evaluate(MEASURE)["controls"]
    assert before == during == after_step == after
    assert any("agv-slider" in name for name, *_ in before)
    assert errors == []
    page.close()


def test_zoom_buttons_wheel_drag_and_fit(browser, tmp_path):
    loss, m = mlp_loss()
    path = write_page(agv.BackwardStepper(loss, model=m), tmp_path / "zoom.html")
    page, widget, errors = open_page(browser, path, 590)
    press(widget, ".agv-next")
    fitted = widget.evaluate(MEASURE)
    widget.locator(".agv-zoom-in").click()
    zoomed = widget.evaluate(MEASURE)
    assert zoomed["scale"] == pytest.approx(fitted["scale"] * 1.25, rel=1e-3)
    widget.locator(".agv-zoom-out").click()
    widget.locator(".agv-zoom-out").click()
    smaller = widget.evaluate(MEASURE)
    assert smaller["scale"] < fitted["scale"]  # an overview may go under 10 px text
    widget.locator(".agv-zoom-fit").click()
    back = widget.evaluate(MEASURE)
    assert back["scale"] == pytest.approx(fitted["scale"], rel=1e-6)
    check_in_view(back, "after fit")

    # Ctrl + wheel zooms around the pointer: the picture's point under it stays there
    picture = widget.locator(".agv-picture").bounding_box()
    x, y = picture["x"] + picture["width"] * 0.4, picture["y"] + picture["height"] * 0.5
    probe = """([x, y]) => { const svg = document.querySelector('.agv-picture svg');
      const m = svg.getScreenCTM().inverse(); const p = new DOMPoint(x, y).matrixTransform(m); return [p.x, p.y]; }"""
    under = page.evaluate(probe, [x, y])
    page.mouse.move(x, y)
    page.keyboard.down("Control")
    page.mouse.wheel(0, -200)
    page.keyboard.up("Control")
    page.wait_for_timeout(100)
    wheeled = widget.evaluate(MEASURE)
    assert wheeled["scale"] > fitted["scale"] * 1.2
    assert page.evaluate(probe, [x, y]) == pytest.approx(under, abs=1.0)  # user units
    assert wheeled["page_scroll"] == [0, 0]
    # a plain wheel scrolls the picture, not the page
    scroll_before = wheeled["picture_scroll"]
    page.mouse.wheel(0, 120)
    page.wait_for_timeout(200)
    assert widget.evaluate(MEASURE)["picture_scroll"][1] > scroll_before[1]
    # a drag pans it
    panned_from = widget.evaluate(MEASURE)["picture_scroll"]
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x - 60, y - 40, steps=5)
    page.mouse.up()
    panned = widget.evaluate(MEASURE)["picture_scroll"]
    assert panned[0] == pytest.approx(panned_from[0] + 60, abs=2)
    assert panned[1] == pytest.approx(panned_from[1] + 40, abs=2)
    assert state(widget)[0] == ""  # a drag over a module box does not open it
    page.screenshot(path=OUT / "zoom_panned_590.png")
    widget.locator(".agv-zoom-fit").click()
    assert widget.evaluate(MEASURE)["scale"] == pytest.approx(fitted["scale"], rel=1e-6)
    assert errors == []
    page.close()


# -- two levels: a hand-made state -------------------------------------------------------------


def two_level_page(tmp_path) -> tuple:
    """The lesson graph as the top view, its second * (e = c·d, svg id agv-op1, the first step)
    a module whose own view is another small graph (f = a·b: 3 steps)."""
    e, names = lesson_graph()
    top = agv.BackwardStepper(e, names=names)
    a, b = agv.tensor(3.0, requires_grad=True), agv.tensor(7.0, requires_grad=True)
    inner = agv.BackwardStepper(a * b, names={"a": a, "b": b})
    frames = copy.deepcopy(list(top.frames))
    frames[1]["into"] = "mul"
    details = {
        "mul": {
            "svg": inner.svg,
            "frames": copy.deepcopy(list(inner.frames)),
            "timeline": copy.deepcopy(dict(getattr(inner, "timeline", {}) or {})),
            "enter": 0,
            "leave": 1,
            "title": "e = c·d",
        }
    }
    path = write_page(top, tmp_path / "two.html", frames=frames, modules={"agv-op1": "mul"}, details=details)
    return path, len(inner.frames) - 1


@pytest.mark.parametrize("width", sorted(SIZES))
def test_two_levels_into_out_and_clicks(browser, tmp_path, width):
    path, inner_last = two_level_page(tmp_path)
    assert inner_last == 3
    page, widget, errors = open_page(browser, path, width)
    into, out = widget.locator(".agv-into"), widget.locator(".agv-out")
    expect(into).to_be_visible()
    expect(into).to_be_disabled()  # frame 0 offers no module
    expect(out).to_be_disabled()
    assert widget.locator(".agv-inside").is_hidden()
    top_svg = widget.locator(".agv-picture svg").evaluate("s => s.textContent")

    assert press(widget, ".agv-next") == ("", 1, "")
    expect(into).to_be_enabled()
    assert press(widget, ".agv-into") == ("mul", 1, "0")
    expect(widget.locator(".agv-inside")).to_have_text("inside e = c·d:")
    assert widget.locator(".agv-picture svg").evaluate("s => s.textContent") != top_svg  # its own picture
    expect(out).to_be_enabled()
    expect(into).to_be_disabled()
    check_in_view(widget.evaluate(MEASURE), "inside, start")
    page.screenshot(path=OUT / f"two_levels_inside_{width}.png")
    for k in range(1, inner_last + 1):
        assert press(widget, ".agv-next") == ("mul", 1, str(k))
        got = widget.evaluate(MEASURE)
        check_in_view(got, f"inside, step {k}")
        assert got["current"], k  # the inner view's own node lookup
    expect(widget.locator(".agv-end")).to_be_disabled()
    expect(widget.locator(".agv-next")).to_be_enabled()
    # Next on the module's last frame steps out to `leave`
    assert press(widget, ".agv-next") == ("", 1, "")
    assert widget.locator(".agv-inside").is_hidden()
    assert widget.locator(".agv-picture svg").evaluate("s => s.textContent") == top_svg

    # a click on the module's box opens it; Back at its first frame steps out to `enter`
    press(widget, ".agv-reset")
    widget.locator(".agv-picture g#agv-op1").click()
    expect(widget).to_have_attribute("data-detail", "mul")
    assert state(widget) == ("mul", 0, "0")
    assert press(widget, ".agv-back") == ("", 0, "")
    # Step out from the middle of the module goes to `leave`
    widget.locator(".agv-picture g#agv-op1").click()
    expect(widget).to_have_attribute("data-detail", "mul")
    press(widget, ".agv-next")
    assert press(widget, ".agv-out") == ("", 1, "")

    # keys, with the focus on the stepper: Enter steps into, Escape and Backspace step out
    widget.locator(".agv-title").click()
    page.keyboard.press("Enter")
    expect(widget).to_have_attribute("data-detail", "mul")
    page.keyboard.press("ArrowRight")
    expect(widget).to_have_attribute("data-detail-position", "1")
    page.keyboard.press("Escape")
    expect(widget).to_have_attribute("data-detail", "")
    assert state(widget) == ("", 1, "")
    page.keyboard.press("Enter")
    expect(widget).to_have_attribute("data-detail", "mul")
    page.keyboard.press("Backspace")
    expect(widget).to_have_attribute("data-detail", "")
    page.keyboard.press("ArrowLeft")
    expect(widget).to_have_attribute("data-position", "0")
    page.keyboard.press("Enter")  # nothing to step into at position 0
    page.wait_for_timeout(200)
    assert state(widget) == ("", 0, "")
    # Play inside a module plays to its end, then stops
    widget.locator(".agv-picture g#agv-op1").click()
    widget.locator(".agv-speed").select_option("4")
    widget.locator(".agv-play").click()
    expect(widget).to_have_attribute("data-detail-position", str(inner_last), timeout=5_000)
    expect(widget.locator(".agv-play")).to_have_text("▶ Play", timeout=2_000)
    assert state(widget) == ("mul", 0, str(inner_last))
    assert errors == []
    page.close()


# -- JupyterLab, with the file browser open --------------------------------------------------

LAB_CELLS = [
    "import numpy as np\nimport autogradviz as agv\nfrom autogradviz import nn\nimport autogradviz.nn.functional as F\n"
    "a = agv.tensor(2.0, requires_grad=True)\nb = agv.tensor(5.0, requires_grad=True)\n"
    "d = agv.tensor(4.0, requires_grad=True)\nc = a * b\ne = c * d\n"
    "lesson = agv.BackwardStepper(e, names={'a': a, 'b': b, 'c': c, 'd': d, 'e': e})\nlesson",
    "rng = np.random.default_rng(0)\n"
    "m = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 3))\n"
    "x = agv.tensor(rng.normal(size=(8, 4)).astype(np.float32))\ny = agv.tensor(rng.integers(0, 3, size=8))\n"
    "mlp = agv.BackwardStepper(F.cross_entropy(m(x), y), model=m)\nmlp",
]

# the notebook's visible area: what the class sees without scrolling the page
NOTEBOOK_VIEW = """() => { const n = window.jupyterapp.shell.currentWidget.content.node.getBoundingClientRect();
  return {left: n.left, top: n.top, right: n.right, bottom: n.bottom}; }"""


def test_lab_every_step_in_view_with_the_file_browser_open(browser, tmp_path):
    pytest.importorskip("jupyterlab", reason="jupyterlab is not installed")
    nbformat = pytest.importorskip("nbformat")
    from _browser import jupyter_lab
    from _classroom import LAB_SETTINGS, OPEN_FILE_BROWSER

    root = tmp_path / "root"
    root.mkdir()
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in LAB_CELLS])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, root / "layers.ipynb")
    with jupyter_lab(root, tmp_path, LAB_SETTINGS) as (base, token):
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(f"{base}/lab/tree/layers.ipynb?reset&token={token}", timeout=90_000)
        page.wait_for_function(
            """() => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
               const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
               return k && k.status === 'idle'; }""",
            timeout=90_000,
        )
        page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
        widgets = page.locator(".jp-OutputArea-output .agv-stepper")
        expect(widgets).to_have_count(2, timeout=90_000)
        for (window_width, window_height), column in [((1024, 768), 590), ((1280, 800), 850)]:
            page.set_viewport_size({"width": window_width, "height": window_height})
            page.evaluate(OPEN_FILE_BROWSER)
            page.wait_for_timeout(600)
            for index, name in enumerate(["lesson", "mlp"]):
                widget = widgets.nth(index)
                widget.evaluate("w => w.scrollIntoView({block: 'start'})")
                page.wait_for_timeout(400)
                view = page.evaluate(NOTEBOOK_VIEW)
                width = widget.evaluate("w => w.getBoundingClientRect().width")
                assert abs(width - column) <= 12, (window_width, width)
                if int(widget.get_attribute("data-position")):
                    press(widget, ".agv-reset")
                steps = 0
                while True:
                    got = widget.evaluate(MEASURE)
                    got["window"] = {"width": view["right"], "height": view["bottom"]}
                    got["page_scroll"] = [0, 0]  # the notebook, not the page, is what scrolls here
                    where = f"lab {name} @ {window_width}, step {steps}"
                    check_in_view(got, where)
                    assert got["widget"]["top"] >= view["top"] - 1, (where, got["widget"], view)
                    if steps == 2:
                        widget.screenshot(path=OUT / f"lab_{name}_{window_width}_step2.png")
                        page.screenshot(path=OUT / f"lab_{name}_{window_width}_page.png")
                    if not widget.locator(".agv-next").is_enabled():
                        break
                    press(widget, ".agv-next")
                    steps += 1
                print(
                    window_width,
                    name,
                    "steps",
                    steps,
                    "widget h",
                    round(got["widget"]["bottom"] - got["widget"]["top"]),
                    "notebook view",
                    {k: round(v) for k, v in view.items()},
                    "beside",
                    got["beside"],
                )
        page.close()
