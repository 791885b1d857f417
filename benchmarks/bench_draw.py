"""Drawing speed benchmark: how long `agv.draw` takes on big graphs.

Run from the repository root:

    .venv/bin/python benchmarks/bench_draw.py
    AUTOGRADVIZ_RENDERER=dot .venv/bin/python benchmarks/bench_draw.py  # system Graphviz

For graphs of 2,000 drawn boxes (one deep, one wide) and of 300 boxes, it
times, best of 3:

- DOT build: `agv.draw(root, max_nodes=...).source`, reading the graph and
  writing the DOT text. Target: under 0.2 s for 2,000 boxes.
- SVG render: `view.svg()`, laying out and drawing that DOT with the renderer
  in use. Target: under 2 s for 2,000 boxes.

This is a script, not a test: tests/test_bench_draw_smoke.py only checks that
`build_graph` makes a graph with the expected number of boxes. See
benchmarks/README.md.
"""

from __future__ import annotations

import platform
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if __name__ == "__main__" and str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # measure the working tree this script sits in

import numpy as np  # noqa: E402

import autogradviz as agv  # noqa: E402

# (boxes, branches): a deep graph, the same number of boxes spread over parallel
# branches (a wide, shallow graph: layout time grows with depth), and a small one
CASES = ((2_000, 1), (2_000, 40), (300, 1))
REPEATS = 3
DOT_TARGET = 0.2  # seconds, for 2,000 boxes
RENDER_TARGET = 2.0


def build_graph(n_boxes: int, branches: int = 1) -> agv.Tensor:
    """A graph whose forward drawing has exactly `n_boxes` boxes (an even number).

    Two leaves: x (a parameter) and w (a constant). Then ops, each drawn as two
    boxes (the op and its output tensor). Each branch starts from x and repeats
    a cycle of four ops with fan-out: a = y * w; b = a.sin(); c = a.tanh();
    y = b + c (a feeds two ops, w feeds every cycle); leftover ops are y = y * w.
    The branches' ends are then added up into the root, so every op leads to it.
    """
    n_ops = (n_boxes - 2) // 2 - (branches - 1)  # the ops left after the branches' joins
    if n_boxes % 2 or n_ops < branches:
        raise ValueError(f"n_boxes must be even and at least {2 + 4 * branches}, got {n_boxes}")
    x = agv.tensor(np.linspace(-1.0, 1.0, 3), requires_grad=True)
    w = agv.tensor([0.9, 0.7, 0.5])
    ends = []
    for i in range(branches):
        ops = n_ops // branches + (i < n_ops % branches)
        y = x
        for _ in range(ops // 4):
            a = y * w
            y = a.sin() + a.tanh()
        for _ in range(ops % 4):
            y = y * w
        ends.append(y)
    root = ends[0]
    for y in ends[1:]:
        root = root + y
    return root


def best_time(fn: Callable[[], object], repeats: int = REPEATS) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def measure(n_boxes: int, branches: int) -> dict:
    """Best-of-REPEATS times in seconds; "render" is an error message if the renderer failed."""
    root = build_graph(n_boxes, branches)
    view = agv.draw(root, max_nodes=n_boxes)  # max_nodes: draw every box, elide none
    assert view.hidden == 0 and view.nodes >= n_boxes, view.summary()  # shared leaves add small copies
    dot_s = best_time(lambda: agv.draw(root, max_nodes=n_boxes).source)
    # .svg() caches its result, so each repeat renders a fresh view
    views = [agv.draw(root, max_nodes=n_boxes) for _ in range(REPEATS)]
    try:
        render = best_time(lambda: views.pop().svg())
    except agv.viz.RendererError as error:
        render = str(error).strip() or type(error).__name__
    return {"view": view, "dot": dot_s, "render": render}


def _git_revision() -> str:
    try:
        rev = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        )
        dirty = subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True, text=True)
    except OSError:
        return "unknown"
    return (
        rev.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "") if rev.returncode == 0 else "unknown"
    )


def _status(seconds: float | str, target: float) -> str:
    return "MET" if isinstance(seconds, float) and seconds < target else "NOT MET"


def _seconds(seconds: float | str) -> str:
    return f"{seconds:9.3f} s" if isinstance(seconds, float) else "failed"


def main() -> None:
    print("autogradviz drawing benchmark (benchmarks/bench_draw.py)")
    print(
        f"git {_git_revision()}, Python {platform.python_version()}, {platform.machine()} {platform.system()}"
    )
    print(f"renderer: {agv.viz.renderer()}; best of {REPEATS}; targets are for 2,000 boxes\n")
    header = (
        f"{'forward graph':<46}{'DOT build':>11}{'target':>9}  {'status':<9}"
        f"{'SVG render':>11}{'target':>9}  status"
    )
    print(header)
    print("-" * len(header))
    for n_boxes, branches in CASES:
        r = measure(n_boxes, branches)
        shape = "deep, 1 chain" if branches == 1 else f"wide, {branches} branches"
        name = f"{n_boxes:,} boxes, {r['view'].edges:,} arrows, {shape}"
        print(
            f"{name:<46}{_seconds(r['dot']):>11}{'< ' + str(DOT_TARGET) + ' s':>9}  "
            f"{_status(r['dot'], DOT_TARGET):<9}{_seconds(r['render']):>11}"
            f"{'< ' + str(RENDER_TARGET) + ' s':>9}  {_status(r['render'], RENDER_TARGET)}"
        )
        if isinstance(r["render"], str):
            print(f"    render failed: {r['render']}")
    print("\nDOT build: agv.draw(root, max_nodes=N).source, forward view with data previews and legend.")
    print("SVG render: view.svg(), the renderer run as a subprocess on that DOT (its start-up included).")


if __name__ == "__main__":
    main()
