"""BackwardStepper speed: building the frames in Python, and one step in a browser.

Run from the repository root:

    .venv/bin/python benchmarks/bench_stepper.py
    .venv/bin/python benchmarks/bench_stepper.py --steps 50 --boxes 300

Two graphs: one whose drawing has about 300 nodes (boxes), and one whose
backward walk has about 300 nodes (its drawing has about twice as many boxes).
For each it times, in Python, the stepper's parts (record the walk, lay out the
picture once, compute every frame) and `frame_svg()`; then, in headless
Chromium on the `to_html()` page, the time from clicking Next to the page being
updated, median over --steps clicks. Target: a step on a 300-node graph updates
in under 30 ms. Then, for real networks (--networks: the 3-layer MLP, a LeNet-style
CNN and VGG-11 on one 224x224 image), bench_stepper_models.py: the build time of
BackwardStepper(loss, model=m), stepped layer by layer, and the browser's time per
step; VGG-11's aim is a build in 2 s or less and a step in 100 ms or less. This is
a script, not a test. See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if __name__ == "__main__" and str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # measure the working tree this script sits in

import numpy as np  # noqa: E402

import autogradviz as agv  # noqa: E402
from autogradviz.viz import renderer  # noqa: E402
from autogradviz.widgets import stepper  # noqa: E402

CHROMIUM = Path("/usr/bin/chromium")
TARGET_MS = 30.0


def build_graph(n_ops: int) -> agv.Tensor:
    """x (a parameter) and w (a constant), then n_ops elementwise ops in cycles of
    four with fan-out: a = y * w; a.sin() and a.tanh() (both read a); their sum.
    Each op is drawn as two boxes (the op and its output), and is one backward node."""
    x = agv.tensor(np.linspace(-1.0, 1.0, 3), requires_grad=True)
    w = agv.tensor([0.9, 0.7, 0.5])
    y = x
    done = 0
    while done + 4 <= n_ops - 1:
        a = y * w
        y = a.sin() + a.tanh()
        done += 4
    while done < n_ops - 1:
        y = y * w
        done += 1
    return y.sum()


def ops_for_boxes(boxes: int) -> int:
    """The number of ops whose graph is drawn with `boxes` boxes, or just over:
    the drawing adds boxes of its own (a constant used many times is drawn again
    next to each use), so the count is measured, not computed."""
    low, high = 1, boxes
    while low < high:
        mid = (low + high) // 2
        if agv.draw(build_graph(mid), max_nodes=10_000).nodes < boxes:
            low = mid + 1
        else:
            high = mid
    return low


def timed(f, repeats: int = 1) -> tuple[float, object]:
    """Best of `repeats` wall-clock times, in seconds, and f's result."""
    best, result = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        result = f()
        best = min(best, time.perf_counter() - start)
    return best, result


def python_side(root: agv.Tensor) -> dict:
    """Time each part of making the stepper (draw_options lift the 500-box limit)."""
    t_record, steps = timed(lambda: stepper.trace.record(root), 3)
    t_layout, view = timed(lambda: agv.draw(root, max_nodes=10_000).svg(), 3)
    t_total, s = timed(lambda: agv.BackwardStepper(root, max_nodes=10_000))
    t_frames, (frames, timeline) = timed(s._op_frames, 3)  # the frames and every box's marks
    positions = np.linspace(0, s.last, 20).astype(int)
    t_svg, _ = timed(lambda: [s.frame_svg(int(k)) for k in positions], 3)
    return {
        "stepper": s,
        "boxes": s._view.nodes,
        "steps": len(steps),
        "record": t_record,
        "layout": t_layout,
        "frames": t_frames,
        "per_frame": t_frames / len(frames),
        "frame_svg": t_svg / len(positions),
        "total": t_total,
        "frames_mb": len(json.dumps([frames, timeline])) / 1e6,
    }


# Click Next `n` times. Each sample starts from an idle frame; it reads the time
# right after the click (the handlers have swapped the classes, panel and table),
# after forcing style and layout (the browser's own work for the new marks), and
# at the next animation frame (which also waits for the display's vsync).
STEP_TIMES = """async (n) => {
  const root = document.querySelector(".agv-stepper");
  const next = root.querySelector(".agv-next");
  const idle = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
  const out = {dom: [], layout: [], frame: []};
  for (let i = 0; i < n; i++) {
    await idle();
    const t0 = performance.now();
    next.click();
    const t1 = performance.now();
    root.getBoundingClientRect();
    getComputedStyle(root.querySelector(".agv-s-current > *")).stroke;
    const t2 = performance.now();
    await frame();
    const t3 = performance.now();
    out.dom.push(t1 - t0); out.layout.push(t2 - t0); out.frame.push(t3 - t0);
  }
  return {times: out, position: Number(root.dataset.position)};
}"""


def browser_side(s, n_steps: int) -> dict | str:
    """Median times of one step in headless Chromium, on the to_html() page."""
    if not CHROMIUM.exists():
        return "skipped: no /usr/bin/chromium"
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return "skipped: playwright is not installed"
    n_steps = min(n_steps, s.last)
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        page_path = s.to_html(Path(tmp) / "stepper.html")
        browser = p.chromium.launch(
            executable_path=str(CHROMIUM),
            headless=True,
            args=["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
        )
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        start = time.perf_counter()
        page.goto(page_path.as_uri())
        page.wait_for_selector(".agv-stepper[data-position='0']")
        load = time.perf_counter() - start
        result = page.evaluate(STEP_TIMES, n_steps)
        version = browser.version
        browser.close()
    assert result["position"] == n_steps, result["position"]
    times = result["times"]
    return {
        "chromium": version,
        "load": load,
        "page_mb": page_path_size(s),
        **{k: statistics.median(v) for k, v in times.items()},
        "layout_max": max(times["layout"]),
        "n": n_steps,
    }


def page_path_size(s) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        return s.to_html(Path(tmp) / "p.html").stat().st_size / 1e6


def git_revision() -> str:
    try:
        rev = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        )
        dirty = subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True, text=True)
        return rev.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "")
    except OSError:
        return "unknown"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=50, help="Next clicks timed in the browser (default 50)")
    parser.add_argument("--boxes", type=int, default=300, help="size of the graphs (default 300)")
    parser.add_argument(
        "--networks",
        nargs="*",
        default=["mlp3", "lenet", "vgg11"],
        help="real networks to measure after the synthetic graphs, by bench_stepper_models.py "
        "(default: mlp3 lenet vgg11; none: --networks with no name)",
    )
    args = parser.parse_args()

    print(f"autogradviz BackwardStepper benchmark  rev {git_revision()}")
    print(f"python {platform.python_version()}  numpy {np.__version__}  renderer {renderer()}")
    print(f"machine {platform.machine()} {platform.processor() or ''}".rstrip())
    cases = [
        (f"{args.boxes} drawn nodes", build_graph(ops_for_boxes(args.boxes))),
        (f"{args.boxes} backward nodes", build_graph(args.boxes - 1)),
    ]
    rows = []
    for name, root in cases:
        py = python_side(root)
        web = browser_side(py["stepper"], args.steps)
        rows.append((name, py, web))

    print("\nPython (best of 3; the stepper makes every frame up front)")
    print(
        f"{'graph':<22}{'boxes':>6}{'steps':>6}{'record':>9}{'layout':>9}{'frames':>9}"
        f"{'/frame':>9}{'frame_svg':>10}{'total':>8}{'frames MB':>10}"
    )
    for name, py, _ in rows:
        print(
            f"{name:<22}{py['boxes']:>6}{py['steps']:>6}{py['record'] * 1e3:>7.1f}ms{py['layout'] * 1e3:>7.0f}ms"
            f"{py['frames'] * 1e3:>7.0f}ms{py['per_frame'] * 1e3:>7.2f}ms{py['frame_svg'] * 1e3:>8.2f}ms"
            f"{py['total']:>7.2f}s{py['frames_mb']:>10.2f}"
        )

    print(f"\nBrowser: one step (click Next) on the to_html() page, median of {args.steps} steps")
    print(
        f"{'graph':<22}{'page MB':>8}{'load':>8}{'→ DOM':>9}{'→ layout':>10}{'(max)':>9}"
        f"{'→ frame':>9}{'target':>9}  status"
    )
    for name, _, web in rows:
        if isinstance(web, str):
            print(f"{name:<22}{web}")
            continue
        status = "MET" if web["layout"] < TARGET_MS else "NOT MET"
        print(
            f"{name:<22}{web['page_mb']:>8.2f}{web['load']:>7.2f}s{web['dom']:>7.2f}ms{web['layout']:>8.2f}ms"
            f"{web['layout_max']:>7.2f}ms{web['frame']:>7.1f}ms{'<' + str(int(TARGET_MS)) + ' ms':>9}  {status}"
        )
    chromium = next((web["chromium"] for _, _, web in rows if not isinstance(web, str)), None)
    if chromium:
        print(f"\nChromium {chromium}, headless. Target: a step on a {args.boxes}-node graph updates in")
        print(f"under {int(TARGET_MS)} ms, judged on '→ layout': click → classes, panel and table swapped,")
        print("style and layout done. '→ frame' waits for the next animation frame, so about one vsync.")
    if args.networks:
        # real networks, stepped layer by layer: bench_stepper_models.py, each in a process of its own
        print(f"\nNetworks: {' '.join(args.networks)} (benchmarks/bench_stepper_models.py)\n", flush=True)
        script = Path(__file__).with_name("bench_stepper_models.py")
        subprocess.run([sys.executable, str(script), "--models", *args.networks], check=True)


if __name__ == "__main__":
    main()
