"""Drawings that fit a classroom notebook (issue 13): the HTML form shrinks to
its output while text stays >= 8 px, long graphs turn top to bottom, every
form escapes names, PNG export warns about glyphs no font has, and the
drawings speak Chinese. The last test measures it all in headless Chromium."""

from __future__ import annotations

import base64
import re
import warnings

import pytest
from _browser import CHROMIUM, CHROMIUM_ARGS

import autogradviz as agv
from autogradviz.viz import render
from autogradviz.viz.view import MIN_TEXT_PX, OUTPUT_WIDTH_PX, PX_PER_PT, DrawingSize  # noqa: F401

EVIL = "</svg><script>alert(1)</script>"


pytestmark = pytest.mark.usefixtures("english_and_default_renderer")  # tests/conftest.py


# -- the four graphs of the issue ---------------------------------------------------------------


def lesson01():
    """Lesson 01's `y = w*x + b` (with fixed values instead of rand)."""
    x = agv.ones(2, 2)
    w = agv.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
    b = agv.tensor([[0.1, 0.2], [0.3, 0.4]], requires_grad=True)
    y = w * x + b
    return agv.draw(y, names={"x": x, "w": w, "b": b, "y": y})


def mlp():
    agv.manual_seed(0)
    net = agv.nn.Sequential(agv.nn.Linear(4, 16), agv.nn.ReLU(), agv.nn.Linear(16, 3))
    x = agv.randn(8, 4)
    target = agv.tensor([0, 1, 2, 0, 1, 2, 0, 1])
    loss = agv.nn.functional.cross_entropy(net(x), target)
    return agv.draw(loss, names={"x": x, "target": target, "loss": loss})


def chain70():
    x = agv.tensor(1.0, requires_grad=True)
    h = x
    for _ in range(70):
        h = h * 1.0001
    return agv.draw(h, names={"x": x, "h": h})


def vggish():
    agv.manual_seed(0)
    nn = agv.nn
    layers, channels = [], 3
    for out in (8, 8, "M", 16, 16, "M", 32, 32, 32, "M"):
        if out == "M":
            layers.append(nn.MaxPool2d(2))
        else:
            layers += [nn.Conv2d(channels, out, 3, padding=1), nn.ReLU()]
            channels = out
    model = nn.Sequential(nn.Sequential(*layers), nn.Flatten(), nn.Linear(32 * 2 * 2, 32), nn.ReLU())
    x = agv.randn(1, 3, 16, 16)
    loss = nn.functional.cross_entropy(model(x), agv.tensor([3]))
    return agv.draw(loss, group="module", collapse=True, names={"x": x, "loss": loss})


GRAPHS = {"lesson 01": lesson01, "2-layer MLP": mlp, "70-step chain": chain70, "VGG-ish collapsed": vggish}


def svg_size_pt(svg: str) -> tuple[float, float]:
    found = re.search(r'<svg width="([\d.]+)pt" height="([\d.]+)pt"', svg)
    return float(found.group(1)), float(found.group(2))


def style_px(html: str, prop: str) -> float:
    return float(re.search(rf"[;\"]{prop}:([\d.]+)px", html).group(1))


# -- sizes and rankdir --------------------------------------------------------------------------


def test_drawing_size_is_read_from_the_svg():
    view = lesson01()
    svg = view.svg()
    width_pt, height_pt = svg_size_pt(svg)
    # the legend's words and the shape lines are the smallest text: POINT-SIZE 10 in dot.py
    assert 'font-size="10.00"' in svg and 'font-size="9.00"' not in svg
    size = view.size()
    assert (size.width_px, size.height_px) == pytest.approx((width_pt * 96 / 72, height_pt * 96 / 72))
    assert size.smallest_font_px == pytest.approx(10 * 96 / 72)
    assert size.readable_width_px == pytest.approx(size.width_px * 8 / (10 * 96 / 72))


def test_html_shrinks_down_to_readable_text_and_no_further():
    view = lesson01()
    html = view.html()
    size = view.size()
    assert style_px(html, "width") == pytest.approx(size.width_px, abs=1)
    assert "max-width:100%" in html
    # min-width = natural width * 8 / smallest font px, rounded up, and one px more, so that the
    # smallest text comes out at 8 px or just over, never at 7.99
    exact = size.width_px * MIN_TEXT_PX / size.smallest_font_px
    min_width = style_px(html, "min-width")
    assert exact + 1 <= min_width <= exact + 2
    assert size.smallest_font_px * min_width / size.width_px >= MIN_TEXT_PX
    # the picture inside is exactly the SVG
    encoded = re.search(r'src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)"', html).group(1)
    assert base64.b64decode(encoded).decode("utf-8") == view.svg()


def test_auto_rankdir_keeps_small_graphs_left_to_right_and_turns_long_ones():
    small = lesson01()
    assert small.rankdir == "LR" and "rankdir=LR" in small.source
    assert small.size().readable_width_px <= OUTPUT_WIDTH_PX
    for make in (chain70, mlp):
        view = make()
        assert view.rankdir == "TB"
        across = render.render_svg(view.source.replace("rankdir=TB", "rankdir=LR"))
        # left to right would not fit readably, and top to bottom is narrower
        assert DrawingSize.of(across).readable_width_px > OUTPUT_WIDTH_PX
        assert view.size().width_px < DrawingSize.of(across).width_px
    # an explicit rankdir is kept
    x = agv.tensor(1.0, requires_grad=True)
    h = x
    for _ in range(70):
        h = h * 2
    assert agv.draw(h, rankdir="LR").rankdir == "LR"


def test_forward_drawings_scroll_from_the_root_side():
    # left to right, a forward graph's output is at the right: the scroll box is rtl
    assert "direction:rtl" in lesson01().html()
    assert "direction:ltr;text-align" in chain70().html()  # top to bottom: the root is below
    # backward: the root is at the left, where the view starts
    x = agv.tensor(2.0, requires_grad=True)
    assert "direction:ltr;text-align" in agv.draw(x * 3, kind="backward").html()


def test_mimebundle_has_html_svg_and_plain_text():
    view = lesson01()
    bundle = view._repr_mimebundle_()
    assert set(bundle) == {"text/html", "image/svg+xml", "text/plain"}
    assert bundle["text/html"] == view.html() and bundle["image/svg+xml"] == view.svg()
    assert bundle["text/plain"] == "<autogradviz graph: 7 nodes, 6 edges (forward)>"
    assert "0x" not in bundle["text/plain"]
    # deterministic: the same graph gives the same bundle
    assert lesson01()._repr_mimebundle_() == bundle


def test_standalone_page(tmp_path):
    view = lesson01()
    page = view.save(tmp_path / "graph.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and '<meta charset="utf-8">' in page
    assert view.html() in page
    with pytest.raises(ValueError, match=r"use \.svg, \.png, \.html, \.dot or \.gv"):
        view.save(tmp_path / "graph.pdf")


# -- escaping ----------------------------------------------------------------------------------


def test_malicious_and_chinese_names_are_escaped_in_every_form(tmp_path):
    x = agv.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 2).sum()
    view = agv.draw(y, names={EVIL: x, "权重": y})
    svg = view.svg()
    assert EVIL not in view.source and EVIL not in svg
    assert "&lt;/svg&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in svg
    assert "权重" in svg
    assert render.svg_texts(svg).count(EVIL) == 1  # shown as those characters
    html = view.html()
    # the HTML carries the SVG only base64-encoded, and its one script is ours
    outside_picture = re.sub(r"base64,[A-Za-z0-9+/=]+", "base64,", html)
    assert "alert" not in outside_picture and "权重" not in outside_picture
    assert outside_picture.count("<script>") == 1
    page = view.save(tmp_path / "evil.html").read_text(encoding="utf-8")
    assert "alert" not in re.sub(r"base64,[A-Za-z0-9+/=]+", "base64,", page)
    assert EVIL not in view.summary() and "<script>" not in view._repr_mimebundle_()["text/plain"]


# -- shapes ------------------------------------------------------------------------------------


def test_shapes_read_as_shapes():
    from autogradviz.viz.labels import shape_and_dtype

    assert shape_and_dtype(agv.tensor([1.0, 2.0]).numpy()) == "(2,) float32"
    assert shape_and_dtype(agv.ones(2, 3).numpy()) == "(2, 3) float32"
    assert shape_and_dtype(agv.tensor(1.0).numpy()) == "scalar float32"
    assert shape_and_dtype(agv.tensor(1.0).numpy(), language="zh") == "标量 float32"
    x = agv.tensor([1.0, 2.0], requires_grad=True)
    assert "(2,) float32" in render.svg_texts(agv.draw(x * 2).svg())


# -- fonts -------------------------------------------------------------------------------------


def test_svg_asks_for_cjk_fonts_after_latin_ones():
    svg = lesson01().svg()
    family = re.search(r'font-family="([^"]*)"', svg).group(1)
    fonts = [f.strip(" '") for f in family.split(",")]
    assert fonts[:2] == ["Verdana", "DejaVu Sans"]
    for cjk in (
        "Noto Sans CJK SC",
        "Source Han Sans SC",
        "PingFang SC",
        "Microsoft YaHei",
        "WenQuanYi Micro Hei",
    ):
        assert cjk in fonts[2:]


def test_png_warns_about_glyphs_no_font_has(tmp_path):
    unassigned = "\u0378"  # not a character yet: no font anywhere has it
    x = agv.tensor(1.0, requires_grad=True)
    view = agv.draw(x * 2, names={f"a{unassigned}b": x})
    with pytest.warns(UserWarning) as caught:
        png = view.save(tmp_path / "g.png").read_bytes()
    assert png.startswith(b"\x89PNG")
    (warning,) = [w for w in caught if "PNG export" in str(w.message)]
    message = str(warning.message)
    assert unassigned in message and "empty boxes" in message and "fonts-noto-cjk" in message


def test_png_of_latin_labels_does_not_warn(tmp_path):
    x = agv.tensor(1.0, requires_grad=True)
    view = agv.draw(x * 2, names={"weight": x})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        view.save(tmp_path / "g.png")


def test_png_of_chinese_labels_uses_a_font_with_the_glyphs_or_warns(tmp_path, monkeypatch):
    x = agv.tensor(1.0, requires_grad=True)
    view = agv.draw(x * 2, names={"权重": x})
    has_cjk_font = render._system_dot() is not None and render._installed_fonts_have("权")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        view.save(tmp_path / "zh.png")
    missing = [w for w in caught if "PNG export" in str(w.message)]
    assert bool(missing) == (not has_cjk_font)
    # graphviz-pure forced: its fonts have no CJK glyphs, so it must warn, naming them
    monkeypatch.setenv("AUTOGRADVIZ_RENDERER", "graphviz-pure")
    with pytest.warns(UserWarning, match="权 重"):
        view.save(tmp_path / "zh_pure.png")


# -- language ----------------------------------------------------------------------------------


def test_language_switches_every_drawing_string():
    english = lesson01()
    agv.set_language("zh")
    chinese = lesson01()
    agv.set_language("en")
    assert english.summary() == "<autogradviz graph: 7 nodes, 6 edges (forward)>"
    assert chinese.summary() == "<autogradviz 计算图：7 个节点，6 条边（前向）>"
    assert chinese.language == "zh" and english.language == "en"
    zh_texts = render.svg_texts(chinese.svg())
    assert "参数（叶子张量，需要梯度）" in zh_texts and "parameter (leaf, requires grad)" not in zh_texts
    # a `language=` argument wins over the global setting, for this one drawing
    x = agv.tensor(1.0, requires_grad=True)
    y = x * 2
    one = agv.draw(y, kind="both", language="zh")
    assert "前向：数值沿箭头流动 →" in render.svg_texts(one.svg())
    assert "反向节点（grad_fn）" in render.svg_texts(one.svg())
    assert agv.get_language() == "en"
    # the zoom button's words follow the drawing's language
    assert "\\u9002\\u5e94\\u5bbd\\u5ea6" in one.html()  # 适应宽度, JSON-escaped
    hidden = agv.draw(chain_of(40), max_nodes=10, language="zh")
    assert "，隐藏了" in hidden.summary() and "个节点" in " ".join(render.svg_texts(hidden.svg()))


def chain_of(n: int):
    x = agv.tensor(1.0, requires_grad=True)
    h = x
    for _ in range(n):
        h = h * 1.5
    return h


def test_both_in_top_to_bottom_says_the_flow_goes_down():
    x = agv.ones(2, 2)
    w = agv.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
    y = w * x
    view = agv.draw(y, kind="both", rankdir="TB")
    assert "forward: values flow ↓" in render.svg_texts(view.svg())
    assert "forward: values flow →" in render.svg_texts(agv.draw(y, kind="both", rankdir="LR").svg())


# -- in a real browser ---------------------------------------------------------------------------

MEASURE = """
async () => {
  const img = document.querySelector("img.agv-drawing-picture");
  const box = img.parentElement;
  if (!img.complete) await new Promise(r => img.addEventListener("load", r));
  const svg = new DOMParser().parseFromString(atob(img.src.split(",")[1]), "image/svg+xml");
  const sizes = [...svg.querySelectorAll("text")].filter(t => t.textContent.trim())
    .map(t => parseFloat(t.getAttribute("font-size")));
  const naturalPx = parseFloat(svg.documentElement.getAttribute("width")) * 96 / 72;
  const scale = img.getBoundingClientRect().width / naturalPx;
  const button = document.querySelector("button.agv-zoom");
  return {
    scale, smallestPx: Math.min(...sizes) * 96 / 72 * scale,
    overflow: box.scrollWidth > box.clientWidth + 1,
    renderedWidth: img.getBoundingClientRect().width, renderedHeight: img.getBoundingClientRect().height,
    naturalPx, boxWidth: box.clientWidth,
    rightEdgeShown: Math.abs(img.getBoundingClientRect().right - box.getBoundingClientRect().right) < 2,
    button: button && getComputedStyle(button).display !== "none" ? button.textContent : null,
  };
}
"""


def measure_in_chromium(views: dict, width: int = OUTPUT_WIDTH_PX, screenshot_dir=None) -> dict:
    from playwright.sync_api import sync_playwright

    results = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": width + 100, "height": 900})
        for name, view in views.items():
            page.set_content(
                f'<body style="margin:0"><div id="out" style="width:{width}px">{view.html()}</div></body>'
            )
            page.wait_for_timeout(100)
            results[name] = page.evaluate(MEASURE)
            if screenshot_dir is not None:
                slug = re.sub(r"\W+", "_", name)
                page.locator("#out").screenshot(path=str(screenshot_dir / f"draw_fit_{slug}.png"))
        browser.close()
    return results


@pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium")
def test_drawings_fit_an_850px_output_in_chromium(tmp_path):
    pytest.importorskip("playwright")
    from _browser import ARTIFACTS

    ARTIFACTS.mkdir(exist_ok=True)
    views = {name: make() for name, make in GRAPHS.items()}
    results = measure_in_chromium(views, screenshot_dir=ARTIFACTS)
    print(
        f"\n{'graph':20} {'rankdir':7} {'natural px':>11} {'shown px':>14} {'scale':>6} {'min text':>8} overflow"
    )
    for name, r in results.items():
        shown = f"{r['renderedWidth']:.0f}x{r['renderedHeight']:.0f}"
        print(
            f"{name:20} {views[name].rankdir:7} {r['naturalPx']:11.0f} {shown:>14} {r['scale']:6.3f} "
            f"{r['smallestPx']:8.2f} {r['overflow']}"
        )
    for name, r in results.items():
        assert r["smallestPx"] >= MIN_TEXT_PX - 0.05, name
        readable = views[name].size().readable_width_px
        if readable <= OUTPUT_WIDTH_PX:
            assert not r["overflow"], name
            assert r["renderedWidth"] <= OUTPUT_WIDTH_PX + 0.5
        else:
            assert r["overflow"] and r["button"] == "Show the whole drawing", name
        if r["scale"] < 0.999 and not r["overflow"]:
            assert r["button"] == "Actual size", name
    # the scale Chromium chose is the one Python predicted
    for name, r in results.items():
        size = views[name].size()
        assert r["scale"] == pytest.approx(
            min(1.0, max(OUTPUT_WIDTH_PX, size.readable_width_px) / size.width_px), abs=0.01
        )


@pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium")
def test_too_wide_drawing_keeps_8px_text_and_scrolls_from_the_root_in_chromium():
    pytest.importorskip("playwright")
    x = agv.tensor(1.0, requires_grad=True)
    h = x
    for _ in range(30):
        h = h * 1.5
    view = agv.draw(h, rankdir="LR")
    assert view.size().readable_width_px > OUTPUT_WIDTH_PX
    r = measure_in_chromium({"wide": view})["wide"]
    assert r["overflow"] and r["smallestPx"] == pytest.approx(MIN_TEXT_PX, abs=0.1)
    assert r["button"] == "Show the whole drawing"
    assert r["rightEdgeShown"]  # the root (at the right) is in view without scrolling
    assert PX_PER_PT == 96 / 72
