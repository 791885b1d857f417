"""What a class sees (issue 13, item 10): every lesson opened in JupyterLab 4, run with
Run All, and measured, at 1280x800 with the file browser open, and then at 1024x768.

- a drawing may not run past its output's edge (unless it sits next to a zoom/fit button)
  and its smallest text must be at least 8 px on screen;
- a stepper may not overflow, and its smallest text must be at least 10 px;
- no cell raises unless it is tagged raises-exception;
- the Chinese lessons' drawings and steppers are drawn with CJK glyphs, not boxes.

The instrument is tests/_classroom.py; it also measures another copy of the lessons by
hand (`.venv/bin/python tests/_classroom.py --notebooks DIR`). Set AGV_CLASSROOM_NOTEBOOKS
to point this test at one. The table and per-drawing details go to stdout and to
tests/artifacts/classroom/report.txt; screenshots next to it (not in git).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from _browser import CHROMIUM, CHROMIUM_ARGS, ROOT
from _classroom import (
    MIN_DRAWING_PX,
    MIN_STEPPER_PX,
    NARROW,
    OUTPUT_DIR,
    TEXT_PX,
    WIDE,
    Measurement,
    lessons,
    measure,
    write_report,
)

import autogradviz as agv

if not CHROMIUM.exists():
    pytest.skip("no /usr/bin/chromium (apt-get install chromium)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
pytest.importorskip("jupyterlab", reason="jupyterlab is not installed")

NOTEBOOKS = Path(os.environ.get("AGV_CLASSROOM_NOTEBOOKS", ROOT / "notebooks"))
LESSONS = lessons(NOTEBOOKS)
CASES = [(lesson, size[0]) for lesson in LESSONS for size in (WIDE, NARROW)]
CASE_IDS = [f"{lesson}@{width}" for lesson, width in CASES]
CJK_LESSONS = [lesson for lesson in LESSONS if lesson.startswith(("zh/01", "zh/06"))]


def has_cjk_font() -> bool:
    fc_list = shutil.which("fc-list")
    return bool(
        fc_list and subprocess.run([fc_list, ":lang=zh"], capture_output=True, text=True).stdout.strip()
    )


@pytest.fixture(scope="module")
def classroom() -> dict[tuple[str, int], Measurement]:
    """Every lesson run once in one JupyterLab server, measured at both sizes."""
    if not LESSONS:
        pytest.skip(f"no lessons under {NOTEBOOKS}")
    results = measure(NOTEBOOKS, OUTPUT_DIR, [(lesson, [WIDE, NARROW]) for lesson in LESSONS])
    write_report(results, OUTPUT_DIR, f"classroom measurements of {NOTEBOOKS}")
    return {(m.lesson, m.width): m for m in results}


def test_report(classroom, capsys):
    """The table a teacher (and the issue's closing note) reads; also in report.txt."""
    report = (OUTPUT_DIR / "report.txt").read_text(encoding="utf-8")
    with capsys.disabled():
        print("\n" + report)
    assert len(classroom) == len(CASES)


@pytest.mark.parametrize("lesson", LESSONS)
def test_lesson_runs_without_unexpected_errors(classroom, lesson):
    assert classroom[lesson, WIDE[0]].errors == []


@pytest.mark.parametrize(("lesson", "width"), CASES, ids=CASE_IDS)
def test_no_drawing_is_cut_off(classroom, lesson, width):
    m = classroom[lesson, width]
    cut = [
        f"cell {d['cell']}: {d['width']} px wide in a {d['area']} px output, {d['overflow']} px past its edge"
        for d in m.cut_off_drawings()
    ]
    assert cut == [], f"{lesson} at {width} px"


@pytest.mark.parametrize(("lesson", "width"), CASES, ids=CASE_IDS)
def test_drawing_text_is_readable(classroom, lesson, width):
    m = classroom[lesson, width]
    small = [
        f"cell {d['cell']}: {d['smallest']['px']:.1f} px {d['smallest']['label']!r}"
        for d in m.drawings
        if d["smallest"] and d["smallest"]["px"] < MIN_DRAWING_PX
    ]
    assert small == [], f"{lesson} at {width} px: drawing text under {MIN_DRAWING_PX} px"


@pytest.mark.parametrize(("lesson", "width"), CASES, ids=CASE_IDS)
def test_steppers_fit_and_are_readable(classroom, lesson, width):
    m = classroom[lesson, width]
    problems = []
    for s in m.steppers:
        if s["overflow"] > 0:
            problems.append(
                f"cell {s['cell']}: overflows by {s['overflow']} px ({s['width']} px in {s['area']} px)"
            )
        for part in ("picture", "html"):
            text = s[part]
            if text and text["px"] < MIN_STEPPER_PX:
                problems.append(f"cell {s['cell']}: {part} text {text['px']:.1f} px {text['label']!r}")
    assert problems == [], f"{lesson} at {width} px"


@pytest.mark.parametrize("lesson", CJK_LESSONS)
def test_chinese_is_drawn_with_glyphs_not_boxes(classroom, lesson):
    if not has_cjk_font():
        pytest.skip("no CJK font (apt-get install fonts-noto-cjk)")
    cjk = classroom[lesson, WIDE[0]].cjk
    assert cjk["samples"] > 0, f"{lesson}: no Chinese text in any drawing or stepper"
    assert cjk["tofu"] == [], f"{lesson}: these fonts draw Chinese as boxes"


# -- the instrument itself ----------------------------------------------------------------

# the smallest text of an inline SVG, and of the same SVG shown as an <img> (as JupyterLab does)
FORMULA_PAGE = (
    "() => {"
    + TEXT_PX
    + """
  const natural = document.querySelector('#natural svg');
  const squeezed = document.querySelector('#squeezed svg');
  const texts = (svg) => [...svg.querySelectorAll('text')].filter((t) => t.textContent.trim());
  const spanHeight = (family, px, label) => {
    const span = document.createElement('span');
    span.style.cssText = `font-family:${family};font-size:${px}px;line-height:normal;white-space:pre`;
    span.textContent = label;
    document.body.appendChild(span);
    const h = span.getBoundingClientRect().height;
    span.remove();
    return h;
  };
  const t = texts(natural)[0];
  return {
    natural: texts(natural).map((t) => [parseFloat(t.getAttribute('font-size')), textPx(t)]),
    squeezed: texts(squeezed).map((t) => [parseFloat(t.getAttribute('font-size')), textPx(t)]),
    squeezed_width: squeezed.getBoundingClientRect().width,
    view_box_width: natural.viewBox.baseVal.width,
    glyph_height: t.getBoundingClientRect().height,
    span_height: spanHeight(getComputedStyle(t).fontFamily, textPx(t), t.textContent),
    img: smallestImgText(document.querySelector('#img')),
  };
}"""
)


def test_text_px_formula_on_a_known_drawing(tmp_path):
    """Graphviz writes width in pt and a viewBox in pt: at natural size a font-size of f
    user units is f * 4/3 CSS px; squeezed to W px wide it is f * W / viewBox width. The
    on-screen glyph box must match an HTML span of that size in the same font."""
    import urllib.parse

    a = agv.tensor(2.0, requires_grad=True)
    b = agv.tensor(5.0, requires_grad=True)
    e = (a * b).exp()
    svg = agv.draw(e, names={"a": a, "b": b, "e": e}).svg()
    svg = svg[svg.index("<svg") :]
    data_uri = "data:image/svg+xml," + urllib.parse.quote(svg)
    squeezed = svg.replace("<svg ", '<svg style="width:100%;height:auto" ', 1)
    page_html = (
        f"<html><body style='margin:0'><div id='natural'>{svg}</div>"
        f"<div id='squeezed' style='width:300px'>{squeezed}</div>"
        f"<img id='img' style='width:300px' src='{data_uri}'></body></html>"
    )
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 2000, "height": 1000})
            page.set_content(page_html)
            page.wait_for_function("() => document.querySelector('#img').complete")
            found = page.evaluate(FORMULA_PAGE)
        finally:
            browser.close()
    assert found["natural"], "the drawing has no text"
    for size, px in found["natural"]:
        assert px == pytest.approx(size * 4 / 3, abs=0.01)
    assert found["squeezed_width"] == pytest.approx(300, abs=0.5)
    ratio = 300 / found["view_box_width"]
    for size, px in found["squeezed"]:
        assert px == pytest.approx(size * ratio, abs=0.01)
    # the <img> path lays the same source out at the img's size
    smallest = min(size for size, _ in found["squeezed"])
    assert found["img"]["px"] == pytest.approx(smallest * ratio, abs=0.01)
    # and the glyphs really are that big: an HTML span at that size is as tall
    assert found["glyph_height"] == pytest.approx(found["span_height"], rel=0.1)
