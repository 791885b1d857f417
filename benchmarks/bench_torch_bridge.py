"""autogradviz's PyTorch bridge next to torchviz, on the same MLP.

    .venv/bin/python benchmarks/bench_torch_bridge.py [--repeat 5] [--screenshot out.png]

Prints two tables: what each drawing shows (features), and the time to draw
the same MLP's graph as SVG (median of --repeat runs). With --screenshot, both
drawings are put side by side in one page and photographed with headless
Chromium (/usr/bin/chromium).

torchviz (`pip install torchviz`) renders with the system Graphviz (`dot`);
autogradviz renders with the graphviz-pure wheel when it is installed.
"""

from __future__ import annotations

import argparse
import html
import statistics
import sys
import time
from pathlib import Path

import torch

import autogradviz as agv

F = torch.nn.functional


def mlp_loss(seed: int = 0):
    torch.manual_seed(seed)
    model = torch.nn.Sequential(torch.nn.Linear(4, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3))
    x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
    with agv.torch.trace(model):
        loss = F.cross_entropy(model(x), y)
    loss.backward(retain_graph=True)  # so both can show .grad, if they can show it at all
    return model, loss


def median_seconds(draw, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        draw()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def deepest_chain_torchviz_draws(torchviz, depth: int) -> str:
    x = torch.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(depth):
        y = y * 1.0
    try:
        torchviz.make_dot(y).source
    except RecursionError:
        return f"RecursionError at {depth:,} ops"
    return f"{depth:,} ops drawn"


def deepest_chain_autogradviz_draws(depth: int) -> str:
    x = torch.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(depth):
        y = y * 1.0
    view = agv.draw(y, kind="backward", max_nodes=200)
    return f"{depth:,} ops drawn ({view.hidden:,} nodes elided)"


def table(rows: list[tuple], header: tuple) -> str:
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
    line = "| " + " | ".join(str(h).ljust(w) for h, w in zip(header, widths)) + " |"
    rule = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    body = ["| " + " | ".join(str(c).ljust(w) for c, w in zip(row, widths)) + " |" for row in rows]
    return "\n".join([line, rule, *body])


def screenshot(svgs: dict[str, str], path: Path) -> Path:
    from playwright.sync_api import sync_playwright

    cells = "".join(
        f'<div class="cell"><h2>{html.escape(title)}</h2>{svg[svg.index("<svg") :]}</div>'
        for title, svg in svgs.items()
    )
    page_html = (
        "<!DOCTYPE html><html><head><meta charset='utf-8'><style>"
        "body{font-family:Verdana,sans-serif;margin:16px;display:flex;flex-wrap:wrap;gap:24px;align-items:flex-start}"
        ".cell{border:1px solid #ccc;border-radius:6px;padding:8px} h2{font-size:15px;margin:4px 0 8px}"
        f"</style></head><body>{cells}</body></html>"
    )
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1500, "height": 900})
        page.set_content(page_html)
        page.screenshot(path=str(path), full_page=True)
        browser.close()
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--screenshot", type=Path, default=None)
    args = parser.parse_args()
    try:
        import torchviz
    except ImportError:
        sys.exit("this benchmark compares with torchviz: pip install torchviz")

    model, loss = mlp_loss()
    params = dict(model.named_parameters())
    torchviz_svg = torchviz.make_dot(loss, params=params).pipe(format="svg").decode()
    ours_backward = agv.draw(loss, kind="backward", model=model).svg()
    ours_modules = agv.draw(loss, model=model, group="module", collapse=True).svg()

    features = [
        ("values of tensors", "no", "yes (forward view; saved values with show_saved)"),
        (".grad of leaves", "no", "yes"),
        ("forward view", "no", 'yes (kind="forward" / "both")'),
        ("parameter names", "yes (params=)", "yes (model= or names=)"),
        ("needs a system Graphviz", "yes (dot)", "no (graphviz-pure wheel)"),
        ("deep graph (3,000-op chain)", deepest_chain_torchviz_draws(torchviz, 3000), ""),
        ("module grouping / collapse", "no", 'yes (trace(model), group="module", collapse=True)'),
        ("step through PyTorch's backward", "no", "yes (BackwardStepper(loss))"),
    ]
    features[5] = (features[5][0], features[5][1], deepest_chain_autogradviz_draws(3000))
    renderer = agv.viz.render.renderer()
    print(f"torch {torch.__version__}, torchviz 0.0.3 API, autogradviz renderer {renderer!r}, on one MLP")
    print(table(features, ("feature", "torchviz", "autogradviz.torch")))
    print()

    def draw_torchviz():
        torchviz.make_dot(loss, params=params).pipe(format="svg")

    def draw_ours():
        agv.draw(loss, kind="backward", model=model).svg()

    def draw_ours_forward():
        agv.draw(loss, kind="forward", model=model).svg()

    timings = [
        ("torchviz make_dot + dot -Tsvg", median_seconds(draw_torchviz, args.repeat)),
        ('autogradviz draw(kind="backward").svg()', median_seconds(draw_ours, args.repeat)),
        ('autogradviz draw(kind="forward").svg()', median_seconds(draw_ours_forward, args.repeat)),
    ]
    print(table([(name, f"{s * 1000:.1f} ms") for name, s in timings], ("time to draw the MLP", "median")))
    if args.screenshot is not None:
        shot = screenshot(
            {
                "torchviz": torchviz_svg,
                'autogradviz draw(loss, kind="backward", model=model)': ours_backward,
                'autogradviz draw(loss, group="module", collapse=True)': ours_modules,
            },
            args.screenshot,
        )
        print(f"\nscreenshot: {shot}")


if __name__ == "__main__":
    main()
