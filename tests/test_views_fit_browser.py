"""Drawings and steppers fit in Notebook 7 and on the standalone pages too (issue 13, item 1:
"the same holds in Notebook 7, Voila and the standalone page"; Voila: tests/test_voila.py).

Measured with the classroom instrument (tests/_classroom.py): at 1280x800 and 1024x768, no
drawing runs past its output without a zoom/fit button beside it and none has text under
8 px; no stepper overflows, and its text is at least 10 px. Screenshots go to
tests/artifacts/views_fit/ (not in git).
"""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest
from _browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, ROOT, jupyter_lab
from _classroom import LAB_SETTINGS, MEASURE, NARROW, WIDE, measure_lesson, problems

import autogradviz as agv

if not CHROMIUM.exists():
    pytest.skip("no /usr/bin/chromium (apt-get install chromium)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")

OUT = ARTIFACTS / "views_fit"
NOTEBOOK7_LESSONS = ["en/06_inside_the_engine", "zh/01_computation_graph"]


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.mark.skipif(importlib.util.find_spec("notebook") is None, reason="Notebook 7 is not installed")
def test_notebook7_lessons_fit(browser, tmp_path):
    OUT.mkdir(parents=True, exist_ok=True)
    root = tmp_path / "root"
    for lesson in NOTEBOOK7_LESSONS:
        (root / lesson).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / "notebooks" / f"{lesson}.ipynb", root / f"{lesson}.ipynb")
    results = []
    with jupyter_lab(root, tmp_path, LAB_SETTINGS, app="notebook") as (base_url, token):
        for lesson in NOTEBOOK7_LESSONS:
            results += measure_lesson(browser, base_url, token, lesson, OUT, [WIDE, NARROW], app="notebook")
    seen = {(m.lesson, m.width): m for m in results}
    assert set(seen) == {(lesson, size[0]) for lesson in NOTEBOOK7_LESSONS for size in (WIDE, NARROW)}
    for (lesson, width), m in seen.items():
        assert m.errors == [], (lesson, m.errors)
        # the lessons' pictures are there: lesson 6 has drawings and steppers, lesson 1 drawings
        assert m.drawings and (m.steppers or "06" not in lesson), (lesson, width)
        found = {"drawings": m.drawings, "steppers": m.steppers}
        assert problems(found) == [], f"Notebook 7, {lesson} at {width} px"


def long_chain() -> tuple:
    x = agv.tensor(0.5, requires_grad=True)
    h = x
    for _ in range(40):
        h = (h * 1.01).tanh()
    return x, h


def lesson01():
    a = agv.tensor(2.0, requires_grad=True)
    b = agv.tensor(5.0, requires_grad=True)
    c = a * b
    d = agv.tensor(4.0, requires_grad=True)
    e = c * d
    return {"a": a, "b": b, "c": c, "d": d, "e": e}


@pytest.mark.parametrize("size", [WIDE, NARROW], ids=["1280", "1024"])
def test_standalone_pages_fit(browser, tmp_path, size):
    """A drawing saved as .html and a stepper's to_html() page, opened in a window of a
    laptop's size (the page's body is the output)."""
    OUT.mkdir(parents=True, exist_ok=True)
    g = lesson01()
    x, h = long_chain()
    pages = {
        "drawing": agv.draw(g["e"], names=g).save(tmp_path / "drawing.html"),
        "both": agv.draw(g["e"], names=g, kind="both").save(tmp_path / "both.html"),
        "chain": agv.draw(h, names={"x": x}).save(tmp_path / "chain.html"),
        "stepper": agv.BackwardStepper(g["e"], names=g).to_html(tmp_path / "stepper.html"),
        "stepper_zh": agv.BackwardStepper(g["e"], names=g, language="zh").to_html(tmp_path / "zh.html"),
    }
    page = browser.new_page(viewport={"width": size[0], "height": size[1]})
    try:
        for name, path in pages.items():
            page.goto(Path(path).as_uri())
            page.wait_for_function("() => [...document.images].every((i) => i.complete)")
            page.evaluate("() => document.fonts.ready.then(() => null)")
            page.wait_for_timeout(300)
            found = page.evaluate(MEASURE, {"root": "html", "area": "body"})
            page.screenshot(path=str(OUT / f"standalone_{name}_{size[0]}.png"))
            expected = (0, 1) if name.startswith("stepper") else (1, 0)
            assert (len(found["drawings"]), len(found["steppers"])) == expected, name
            assert problems(found) == [], f"{name}.html at {size[0]} px"
    finally:
        page.close()
