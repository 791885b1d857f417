"""BackwardStepper on real networks: build time in Python, and one step in a browser.

Run from the repository root:

    .venv/bin/python benchmarks/bench_stepper_models.py
    .venv/bin/python benchmarks/bench_stepper_models.py --steps 30 --models mlp3 lenet

For the 3-layer MLP, the LeNet-style CNN and VGG-11 of tests/_real_models.py it prints:

- steps: the stepper's positions after the first (`s.last`; by layers once the stepper
  walks a network layer by layer) and the backward nodes it recorded (`len(s.steps)`);
- build: `BackwardStepper(loss, model=m)`, best of 3 (of 1 when one build takes over
  --slow seconds, as VGG-11's may: the table says which), on a fresh forward pass each time;
- the browser's time per step on the `to_html()` page in headless Chromium: median over up
  to --steps clicks of Next (default 100: every position of these models) of the time from the click to the title's text changing, then
  to style and layout done, then to the next animation frame (as bench_stepper.py does);
  the page is not made when the stepper's synced state is over --max-page-mb;
- torch: the same architecture's forward + backward in PyTorch (after a warm-up, the best of at least
  5 runs and of as many as fit in about a second), for scale.

Targets (issue 24): VGG-11's stepper built in <= 2 s, a step repainted in <= 100 ms.
This is a script, not a test. Each model runs in its own subprocess (--one), so that one
model's memory is given back before the next.
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
if __name__ == "__main__":
    for path in (ROOT, ROOT / "tests"):  # measure the working tree this script sits in
        if str(path) not in sys.path:
            sys.path.insert(0, str(path))

CHROMIUM = Path("/usr/bin/chromium")
MODELS = ("mlp3", "lenet", "vgg11")
BUILD_TARGET_S = 2.0
STEP_TARGET_MS = 100.0

# Click Next n times, each from an idle page; per click: the time until the title's text has
# changed (synchronously in the handler, or later: then watched frame by frame), until style
# and layout are done for the new marks, and until the next animation frame.
STEP_TIMES = """async (n) => {
  const root = document.querySelector(".agv-stepper");
  const next = root.querySelector(".agv-next");
  const title = root.querySelector(".agv-title");
  const idle = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
  const out = {title: [], layout: [], frame: [], unchanged: 0};
  for (let i = 0; i < n && !next.disabled; i++) {
    await idle();
    const before = title.textContent;
    const t0 = performance.now();
    next.click();
    while (title.textContent === before && performance.now() - t0 < 5000) await new Promise((r) => setTimeout(r, 0));
    const t1 = performance.now();
    if (title.textContent === before) out.unchanged += 1;
    root.getBoundingClientRect();
    const current = root.querySelector(".agv-s-current > *");
    if (current) getComputedStyle(current).stroke;
    const t2 = performance.now();
    await frame();
    const t3 = performance.now();
    out.title.push(t1 - t0); out.layout.push(t2 - t0); out.frame.push(t3 - t0);
  }
  return out;
}"""


def json_mb(value, limit_mb: float) -> float:
    """The size of json.dumps(value) in MB, counted chunk by chunk; stops just past limit_mb."""
    size, limit = 0, limit_mb * 1e6
    for chunk in json.JSONEncoder().iterencode(value):
        size += len(chunk)
        if size > limit:
            break
    return size / 1e6


# -- PyTorch, for scale ----------------------------------------------------------------------


def torch_model(key: str):
    """The same architecture in PyTorch, and an input and a target of the same shapes."""
    import torch
    from torch import nn

    torch.manual_seed(0)
    if key == "mlp3":
        m = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 3))
        return m, torch.randn(8, 4), torch.randint(0, 3, (8,))
    if key == "lenet":
        m = nn.Sequential(
            nn.Conv2d(1, 6, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2),
            nn.Flatten(), nn.Linear(256, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10),
        )  # fmt: skip
        return m, torch.randn(1, 1, 28, 28), torch.randint(0, 10, (1,))
    if key == "vgg11":  # torchvision's vgg11 (configuration A), written out: no torchvision needed
        layers, channels = [], 3
        for v in [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"]:
            if v == "M":
                layers.append(nn.MaxPool2d(2, 2))
            else:
                layers += [nn.Conv2d(channels, v, 3, padding=1), nn.ReLU(True)]
                channels = v
        m = nn.Sequential(
            *layers, nn.AdaptiveAvgPool2d((7, 7)), nn.Flatten(),
            nn.Linear(512 * 7 * 7, 4096), nn.ReLU(True), nn.Dropout(),
            nn.Linear(4096, 4096), nn.ReLU(True), nn.Dropout(), nn.Linear(4096, 1000),
        )  # fmt: skip
        return m, torch.rand(1, 3, 224, 224), torch.randint(0, 1000, (1,))
    raise KeyError(key)


def torch_side(key: str) -> dict | str:
    try:
        import torch
    except ImportError:
        return "torch is not installed"
    m, x, y = torch_model(key)

    def step() -> float:
        m.zero_grad()
        start = time.perf_counter()
        torch.nn.functional.cross_entropy(m(x), y).backward()
        return time.perf_counter() - start

    # warm-up: torch's first calls are slow (tens of ms even for a tiny MLP), then the best
    # of at least 5 runs and of as many as fit in about a second
    for _ in range(3):
        if step() > 0.3:
            break
    times = [step() for _ in range(5)]
    while sum(times) < 1.0 and len(times) < 200:
        times.append(step())
    best = min(times)
    return {"seconds": best, "threads": torch.get_num_threads(), "version": torch.__version__}


# -- autogradviz ---------------------------------------------------------------------------


def browser_side(s, n_steps: int, max_page_mb: float) -> dict | str:
    if not CHROMIUM.exists():
        return "skipped: no /usr/bin/chromium"
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return "skipped: playwright is not installed"
    state_mb = json_mb([s.svg, s.frames, getattr(s, "details", None)], max_page_mb)
    if state_mb > max_page_mb:
        return f"skipped: the page's state is over {max_page_mb:.0f} MB"
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        page_path = s.to_html(Path(tmp) / "stepper.html")
        page_mb = page_path.stat().st_size / 1e6
        browser = p.chromium.launch(
            executable_path=str(CHROMIUM),
            headless=True,
            args=["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
        )
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            start = time.perf_counter()
            page.goto(page_path.as_uri(), timeout=300_000)
            page.wait_for_selector(".agv-stepper .agv-next", timeout=300_000)
            load = time.perf_counter() - start
            times = page.evaluate(STEP_TIMES, n_steps)
            version = browser.version
        finally:
            browser.close()
    if not times["title"]:
        return "no step: Next was disabled at the start"
    return {
        "chromium": version,
        "page_mb": page_mb,
        "load": load,
        "n": len(times["title"]),
        "unchanged": times["unchanged"],
        **{k: statistics.median(times[k]) for k in ("title", "layout", "frame")},
        "layout_max": max(times["layout"]),
    }


def measure_one(key: str, n_steps: int, slow_s: float, max_page_mb: float) -> dict:
    """Everything for one model (run in a subprocess by main())."""
    import _real_models

    import autogradviz as agv
    from autogradviz.widgets.stepper import BackwardStepper

    start = time.perf_counter()
    loss, m, description = _real_models.build(key)
    forward = time.perf_counter() - start
    times, s = [], None
    for attempt in range(3):
        if attempt:  # a fresh graph each time: the same start as a learner's
            if s is not None:
                s.close()
            loss, m, _ = _real_models.build(key)
        start = time.perf_counter()
        s = BackwardStepper(loss, model=m)
        times.append(time.perf_counter() - start)
        if times[-1] > slow_s:
            break
    row = {
        "model": key,
        "description": description,
        "forward": forward,
        "positions": s.last,
        "nodes": len(s.steps),
        "ops": len(agv.topological_order([loss.grad_fn])),
        "build": min(times),
        "builds": len(times),
    }
    row["browser"] = browser_side(s, n_steps, max_page_mb)
    s.close()
    row["torch"] = torch_side(key)
    return row


def git_revision() -> str:
    try:
        rev = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        )
        dirty = subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True, text=True)
        return (rev.stdout.strip() or "not a git tree") + ("-dirty" if dirty.stdout.strip() else "")
    except OSError:
        return "unknown"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--steps", type=int, default=100, help="Next clicks timed in the browser (default 100)"
    )
    parser.add_argument("--models", nargs="*", default=list(MODELS), help=f"default: {' '.join(MODELS)}")
    parser.add_argument("--slow", type=float, default=10.0, help="one build over this (s): no 2nd and 3rd")
    parser.add_argument(
        "--max-page-mb", type=float, default=300.0, help="no browser step past this state size"
    )
    parser.add_argument("--one", help=argparse.SUPPRESS)  # internal: measure one model, print JSON
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure_one(args.one, args.steps, args.slow, args.max_page_mb)))
        return

    import numpy as np

    print(f"autogradviz BackwardStepper on real models  rev {git_revision()}  ({ROOT})")
    print(f"python {platform.python_version()}  numpy {np.__version__}  machine {platform.machine()}")
    rows = []
    for key in args.models:
        command = [sys.executable, __file__, "--one", key, "--steps", str(args.steps),
                   "--slow", str(args.slow), "--max-page-mb", str(args.max_page_mb)]  # fmt: skip
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            print(f"{key}: failed\n{done.stderr[-2000:]}")
            continue
        rows.append(json.loads(done.stdout.strip().splitlines()[-1]))

    print("\nPython: BackwardStepper(loss, model=m), on a fresh forward pass")
    print(
        f"{'model':<8}{'forward':>9}{'ops':>6}{'nodes':>7}{'positions':>11}{'build':>10}{'of':>4}{'target':>9}  status"
    )
    for r in rows:
        vgg = r["model"] == "vgg11"
        status = ("MET" if r["build"] <= BUILD_TARGET_S else "NOT MET") if vgg else ""
        print(
            f"{r['model']:<8}{r['forward']:>8.2f}s{r['ops']:>6}{r['nodes']:>7}{r['positions']:>11}"
            f"{r['build']:>9.2f}s{r['builds']:>4}{'<=2 s' if vgg else '':>9}  {status}"
        )
    print("('of': builds timed, best taken; 1 when one took over --slow s. 'ops': backward nodes of the")
    print(" graph; 'nodes': the steps the stepper recorded; 'positions': its Next clicks, start to end)")

    print(f"\nBrowser: one Next on the to_html() page, median over up to {args.steps} clicks")
    print(
        f"{'model':<8}{'page MB':>8}{'load':>8}{'clicks':>7}{'→ title':>10}{'→ layout':>10}{'(max)':>10}{'→ frame':>10}{'target':>9}  status"
    )
    for r in rows:
        web = r["browser"]
        if isinstance(web, str):
            print(f"{r['model']:<8}{web}")
            continue
        status = "MET" if web["layout"] <= STEP_TARGET_MS else "NOT MET"
        print(
            f"{r['model']:<8}{web['page_mb']:>8.2f}{web['load']:>7.2f}s{web['n']:>7}{web['title']:>8.2f}ms"
            f"{web['layout']:>8.2f}ms{web['layout_max']:>8.2f}ms{web['frame']:>8.1f}ms{'<=100 ms':>9}  {status}"
            + (f"  ({web['unchanged']} clicks left the title as it was)" if web["unchanged"] else "")
        )

    print(
        "\nFor scale: PyTorch's own forward + backward of the same architecture (best run, after a warm-up)"
    )
    print(f"{'model':<8}{'torch':>10}  {'threads':>7}   stepper build / torch step")
    for r in rows:
        t = r["torch"]
        if isinstance(t, str):
            print(f"{r['model']:<8}{t}")
            continue
        print(
            f"{r['model']:<8}{t['seconds'] * 1e3:>8.2f}ms  {t['threads']:>7}   {r['build'] / t['seconds']:>10.0f}x"
        )
    web = next((r["browser"] for r in rows if isinstance(r["browser"], dict)), None)
    torch = next((r["torch"] for r in rows if isinstance(r["torch"], dict)), None)
    print(
        ("\nChromium " + web["chromium"] + ", headless. " if web else "\n")
        + (f"torch {torch['version']}. " if torch else "")
        + "'→ layout' (click → title changed → style and layout done) is judged against the target."
    )


if __name__ == "__main__":
    main()
