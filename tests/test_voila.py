"""Lesson 06 under Voila, as the README's classroom demo runs it, in a real browser.

`voila notebooks/en/06_inside_the_engine.ipynb` on 127.0.0.1 (a free port, a token, its own
Jupyter config/data/runtime dirs and a kernelspec for this very Python), opened in Debian's
chromium by Playwright. Voila runs the whole notebook when the page is requested; the test
waits for it to finish, then steps the first BackwardStepper (`small`, over `c = a * b`) and
compares what the page shows with the frames of the same stepper built here.

Skipped when /usr/bin/chromium, playwright or voila is missing. The screenshot goes to
tests/artifacts/voila_stepper.png (not in git).
"""

from __future__ import annotations

import contextlib
import html.parser
import importlib.util
import io
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from _browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, free_port, jupyter_data_dir  # noqa: E402

import autogradviz as agv

if not CHROMIUM.exists():
    pytest.skip("no /usr/bin/chromium (apt-get install chromium)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
if importlib.util.find_spec("voila") is None:
    pytest.skip("voila is not installed (pip install voila)", allow_module_level=True)
nbformat = pytest.importorskip("nbformat")
expect = sync_api.expect

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = "notebooks/en/06_inside_the_engine.ipynb"
LAST_OUTPUT = "Right: all three answers pass."  # what the lesson's last cell prints


# -- the same stepper, built here --------------------------------------------------------


def lesson_steppers() -> list[tuple[str, agv.BackwardStepper]]:
    """Run every code cell of the lesson here, as Voila's kernel does; return the steppers it
    displays (a cell ending with the stepper's name), in page order, as the lesson leaves them."""
    nb = nbformat.read(ROOT / NOTEBOOK, as_version=4)
    namespace: dict = {}
    shown = []
    with contextlib.redirect_stdout(io.StringIO()):
        for cell in nb.cells:
            if cell.cell_type != "code":
                continue
            exec(compile(cell.source, NOTEBOOK, "exec"), namespace)
            last = cell.source.strip().splitlines()[-1]
            if last.isidentifier() and isinstance(namespace.get(last), agv.BackwardStepper):
                shown.append((last, namespace[last]))
    return shown


class _Text(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_data(self, data):
        self.parts.append(data)


def text_of(fragment: str) -> str:
    """An HTML fragment's textContent, as the browser computes it."""
    parser = _Text()
    parser.feed(fragment)
    parser.close()
    return "".join(parser.parts)


# -- the Voila server --------------------------------------------------------------------


def _descendants(pid: int) -> list[int]:
    """The processes started under `pid` (Linux /proc): the kernels start sessions of their own."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                # the field after "(comm)" is the state, then the parent's pid
                stat = (entry / "stat").read_text()
                parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                pass
    found, todo = [], [pid]
    while todo:
        parent = todo.pop()
        children = [p for p, pp in parents.items() if pp == parent]
        found += children
        todo += children
    return found


def _stop(server: subprocess.Popen) -> None:
    """SIGTERM Voila's process group (Voila then shuts its kernel down); SIGKILL what is left."""
    started = _descendants(server.pid)
    try:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(15)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait(5)
    except ProcessLookupError:
        pass
    # a kernel runs in a session of its own (jupyter_client's start_new_session), outside the group
    deadline = time.monotonic() + 5
    for pid in started:
        while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


@pytest.fixture(scope="module")
def voila(tmp_path_factory):
    """`voila` on the lesson, from this Python, on a free port; yields the page's URL."""
    tmp = tmp_path_factory.mktemp("voila")
    data_dir = jupyter_data_dir(tmp)
    env = {k: v for k, v in os.environ.items() if k != "AUTOGRADVIZ_RENDERER"}
    env.update(
        JUPYTER_CONFIG_DIR=str(tmp / "config"),
        JUPYTER_DATA_DIR=str(data_dir),
        JUPYTER_RUNTIME_DIR=str(tmp / "runtime"),
        IPYTHONDIR=str(tmp / "ipython"),
        PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]),
    )
    port, token = free_port(), secrets.token_hex(16)
    command = [
        sys.executable,
        "-m",
        "voila",
        NOTEBOOK,
        "--no-browser",
        f"--port={port}",
        "--Voila.ip=127.0.0.1",
        "--Voila.port_retries=0",
        f"--Voila.token={token}",
        "--show_tracebacks=True",  # a failing cell shows its traceback on the page
    ]
    log = tmp / "server.log"
    with open(log, "w") as out:
        server = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        # wait for the port to listen: requesting the page itself would start a kernel
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail("voila did not start:\n" + log.read_text())
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/?token={token}", log
    finally:
        _stop(server)


# -- the test ----------------------------------------------------------------------------


def test_voila_lesson06_stepper_next_three_times(voila):
    url, log = voila
    shown = lesson_steppers()
    assert [name for name, _ in shown] == ["small", "stepper", "fan", "broadcast", "quiz"]
    _, stepper = shown[0]  # small = agv.BackwardStepper(c, names=locals()), c = a * b
    assert stepper.position == 0
    frames = stepper.frames
    assert len(frames) == 4  # start, MulBackward0, AccumulateGrad (b), AccumulateGrad (a)
    ARTIFACTS.mkdir(exist_ok=True)

    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport={"width": 1200, "height": 900})
            # nothing leaves this machine (Voila's template links Font Awesome from a CDN)
            outside = []
            context.route(
                "**/*",
                lambda route: (
                    route.continue_()
                    if route.request.url.startswith(("http://127.0.0.1:", "data:", "blob:"))
                    else (outside.append(route.request.url), route.abort())
                ),
            )
            page = context.new_page()
            errors = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(url, timeout=60_000)

            # finished: Voila streams every executed cell, then removes its "Executing i of n"
            # spinner (#loading) and shows #rendered_cells; the widgets then render
            expect(page.locator("#loading")).to_have_count(0, timeout=60_000)
            expect(page.locator("#rendered_cells")).to_be_visible()
            # Voila stops at a failing cell and shows its traceback as stderr output
            done = page.get_by_text(LAST_OUTPUT, exact=True)
            stderr = page.locator("[data-mime-type='application/vnd.jupyter.stderr']")
            expect(done.or_(stderr).first).to_be_visible(timeout=30_000)
            assert stderr.count() == 0, "stderr under Voila:\n" + "\n".join(stderr.all_text_contents())
            expect(done).to_have_count(1)
            widgets = page.locator(".jp-OutputArea-output .agv-stepper")
            expect(widgets).to_have_count(len(shown), timeout=30_000)

            widget = widgets.first
            widget.scroll_into_view_if_needed()
            expect(widget.locator("svg")).to_be_visible()
            title, panel = widget.locator(".agv-title"), widget.locator(".agv-panel")
            expect(widget).to_have_attribute("data-position", "0")
            assert title.text_content() == frames[0]["title"] == "Start: 3 steps to go"
            assert panel.text_content() == text_of(frames[0]["panel"])

            for k in (1, 2, 3):
                before = panel.text_content()
                widget.locator(".agv-next").click()
                expect(widget).to_have_attribute("data-position", str(k), timeout=15_000)
                assert title.text_content() == frames[k]["title"]
                assert panel.text_content() == text_of(frames[k]["panel"]) != before
            # the same frames, spelled out: what a learner reads after three clicks
            assert [f["title"] for f in frames[1:]] == [
                "Step 1 of 3: MulBackward0",
                "Step 2 of 3: AccumulateGrad",
                "Step 3 of 3: AccumulateGrad",
            ]
            assert "to a (input 1): upstream × local = 1 × 5 = 5" in text_of(frames[1]["panel"])
            assert "b.grad was None, and becomes 2" in text_of(frames[2]["panel"])
            assert "a.grad was None, and becomes 5" in panel.text_content()
            expect(widget.locator(".agv-next")).to_be_disabled()  # the last step
            # the others show where the lesson's code left them (stepper.goto(...) in the kernel
            # reached the page), and did not move with the first one
            for i, (name, other) in enumerate(shown[1:], start=1):
                expect(widgets.nth(i)).to_have_attribute("data-position", str(other.position))
                assert (
                    widgets.nth(i).locator(".agv-title").text_content()
                    == other.frames[other.position]["title"]
                ), name
            assert [s.position for _, s in shown] == [0, 5, 0, 0, 2]

            widget.screenshot(path=ARTIFACTS / "voila_stepper.png")
            assert errors == [], errors
            assert all("cdn.jsdelivr.net" in u for u in outside), outside
        finally:
            browser.close()
    assert "Traceback" not in log.read_text(), log.read_text()


def test_voila_lesson06_fits_a_laptop(voila):
    """Issue 13: under Voila too, at 1280x800 and at 1024x768, no drawing runs past its output
    without a zoom button, no drawing text is under 8 px, no stepper overflows or has text
    under 10 px (the classroom instrument's measurement, tests/_classroom.py)."""
    from _classroom import MEASURE, problems

    url, _ = voila
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport={"width": 1280, "height": 800})
            context.route(
                "**/*",
                lambda route: (
                    route.continue_()
                    if route.request.url.startswith(("http://127.0.0.1:", "data:", "blob:"))
                    else route.abort()
                ),
            )
            page = context.new_page()
            page.goto(url, timeout=60_000)
            expect(page.locator("#loading")).to_have_count(0, timeout=60_000)
            expect(page.get_by_text(LAST_OUTPUT, exact=True)).to_have_count(1, timeout=30_000)
            expect(page.locator(".jp-OutputArea-output .agv-stepper")).to_have_count(5, timeout=30_000)
            for width, height in ((1280, 800), (1024, 768)):
                page.set_viewport_size({"width": width, "height": height})
                page.wait_for_timeout(800)
                found = page.evaluate(MEASURE, {"root": "body"})
                page.screenshot(path=ARTIFACTS / f"voila_lesson06_{width}.png")
                assert found["drawings"] and len(found["steppers"]) == 5
                assert problems(found) == [], f"Voila at {width} px"
        finally:
            browser.close()
