"""The lessons with no install (issue 16): the JupyterLite site that
scripts/build_lite.sh builds runs lessons 01 and 06, in English and Chinese,
in headless Chromium with every request that does not go to localhost aborted.

Checked for each lesson: it runs to the end with only its intentional errors,
its drawings are in the page (rendered in the browser by Graphviz in wasm),
and no request left localhost. In lesson 06 also: a stepper steps on a click,
and the gradients print 20/8/4/10. Timings and sizes go to
tests/artifacts/lite/report.txt.

The site is built once per test run when it is missing or older than the
package, the lessons or the build script (about a minute, plus the downloads
the first time).
"""

from __future__ import annotations

import functools
import http.server
import json
import subprocess
import threading
import time
from pathlib import Path

import pytest
from _browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS

playwright = pytest.importorskip("playwright.sync_api")
if not CHROMIUM.exists():
    pytest.skip("no /usr/bin/chromium: the JupyterLite site is not tested", allow_module_level=True)

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "build" / "lite"
REPORT = ARTIFACTS / "lite"
LESSONS = [
    ("en", "01_computation_graph"),
    ("zh", "01_computation_graph"),
    ("en", "06_inside_the_engine"),
    ("zh", "06_inside_the_engine"),
]
GRADIENTS_LINE = "a.grad 20.0   b.grad 8.0   c.grad 4.0   d.grad 10.0"
_timings: list[str] = []


def _newest_source() -> float:
    sources = [*ROOT.joinpath("autogradviz").rglob("*.py"), *ROOT.joinpath("notebooks").glob("*/*.ipynb")]
    sources += [
        ROOT / "scripts" / "build_lite.py",
        ROOT / "scripts" / "build_lite.sh",
        ROOT / "pyproject.toml",
    ]
    return max(p.stat().st_mtime for p in sources)


@pytest.fixture(scope="module")
def site():
    config = SITE / "jupyter-lite.json"
    if not config.exists() or config.stat().st_mtime < _newest_source():
        started = time.perf_counter()
        subprocess.run(["bash", str(ROOT / "scripts" / "build_lite.sh")], check=True, cwd=ROOT)
        _timings.append(f"build: {time.perf_counter() - started:.0f} s")
    size = sum(p.stat().st_size for p in SITE.rglob("*") if p.is_file())
    _timings.append(f"site: {size / 1e6:.1f} MB")
    handler = functools.partial(_QuietHandler, directory=str(SITE))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    REPORT.mkdir(parents=True, exist_ok=True)
    (REPORT / "report.txt").write_text("\n".join(_timings) + "\n", encoding="utf-8")
    print("\n".join(_timings))


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, ".wasm": "application/wasm"}

    def log_message(self, *args) -> None:  # the test's output is the report, not an access log
        pass


def _intentional_errors(language: str, lesson: str) -> int:
    nb = json.loads((ROOT / "notebooks" / language / f"{lesson}.ipynb").read_text(encoding="utf-8"))
    return sum(
        1
        for cell in nb["cells"]
        if cell["cell_type"] == "code"
        and any(o.get("output_type") == "error" for o in cell.get("outputs", []))
    )


@pytest.mark.parametrize("language, lesson", LESSONS, ids=[f"{lang}-{name[:2]}" for lang, name in LESSONS])
def test_a_lesson_runs_offline_in_the_browser(site, language, lesson):
    expect = playwright.expect
    outside: list[str] = []
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        console: list[str] = []
        page.on("console", lambda message: console.append(message.text))

        def route(request_route) -> None:
            if request_route.request.url.startswith(site):
                request_route.continue_()
            else:
                outside.append(request_route.request.url)
                request_route.abort()

        page.route("**/*", route)
        page.context.route("**/*", route)  # the kernel's web worker fetches through the context
        started = time.perf_counter()
        page.goto(f"{site}/lab/index.html?path={language}/{lesson}.ipynb")
        expect(page.locator("#jp-main-statusbar")).to_contain_text("| Idle", timeout=300_000)
        idle = time.perf_counter() - started
        page.locator(".jp-Notebook").first.click()
        page.get_by_role("menuitem", name="Run", exact=True).click()
        page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
        cells = page.locator(".jp-Notebook .jp-CodeCell")
        # done when no prompt says [*] and the last code cell has its execution count
        page.wait_for_function(
            """() => {
                const prompts = [...document.querySelectorAll('.jp-CodeCell .jp-InputArea-prompt')];
                return prompts.length > 0 && prompts.every(p => /\\[\\d+\\]/.test(p.innerText));
            }""",
            timeout=600_000,
        )
        ran = time.perf_counter() - started
        errors = page.locator('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')
        tracebacks = page.locator(".jp-RenderedText[data-mime-type='application/vnd.jupyter.error']")
        drawings = page.locator(".jp-OutputArea-output svg, .jp-OutputArea-output img")
        n_drawings = drawings.count()
        assert cells.count() > 10
        assert tracebacks.count() == _intentional_errors(language, lesson), [
            tracebacks.nth(i).inner_text()[:300] for i in range(tracebacks.count())
        ]
        mimes = page.evaluate(
            "() => [...document.querySelectorAll('.jp-OutputArea-output')].map(e => e.dataset.mimeType)"
        )
        assert n_drawings > 0, f"no drawing in the page; outputs: {sorted(set(mimes))}"
        # nothing on stderr at all: no error, and no "Matplotlib is building the font cache" (the
        # stepper no longer imports matplotlib: autogradviz/widgets/__init__.py)
        assert [errors.nth(i).inner_text() for i in range(errors.count())] == []
        if lesson.startswith("06"):
            assert GRADIENTS_LINE in page.locator(".jp-Notebook").inner_text()
            stepper = page.locator(".jp-OutputArea-output .agv-next").first
            stepper.scroll_into_view_if_needed()
            title = page.locator(".jp-OutputArea-output .agv-title").first
            before = title.inner_text()
            stepper.click()
            expect(title).not_to_have_text(before, timeout=30_000)
        REPORT.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(REPORT / f"{language}_{lesson}.png"))
        browser.close()
    _timings.append(
        f"{language}/{lesson}: kernel idle {idle:.1f} s, all cells run {ran:.1f} s, "
        f"{n_drawings} drawings, {len(outside)} outside requests"
    )
    assert outside == []
    # a labextension built for a newer JupyterLab than the site's: webpack warns, and loads a
    # second copy of any module that is not a singleton (scripts/build_lite.sh pins the widgets')
    version_warnings = ("Unsatisfied version", "No satisfying version")
    assert [m for m in console if any(warning in m for warning in version_warnings)] == []
