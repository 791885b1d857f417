"""Regenerate the pictures in the README (docs/images/*.svg) from code.

    .venv/bin/python scripts/make_readme_images.py

graphviz-pure gives the same SVG on every machine, so a test can check that the
committed pictures are current (tests/test_readme_images.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

import autogradviz as agv

OUT = Path(__file__).resolve().parents[1] / "docs" / "images"


def graph_svg() -> str:
    """The first lesson's graph, y = w*x + b, after one backward."""
    x = agv.ones(2, 2)
    w = agv.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
    b = agv.tensor([[0.1, 0.2], [0.3, 0.4]], requires_grad=True)
    y = w * x + b
    y.backward(agv.ones(2, 2), retain_graph=True)
    return agv.draw(y, names={"x": x, "w": w, "b": b, "y": y}).svg()


def stepper_svg() -> str:
    """The stepper on e = (a*b)*d, three steps in: the second MulBackward0 is running."""
    a, b, d = (agv.tensor(v, requires_grad=True) for v in (2.0, 5.0, 4.0))
    c = a * b
    e = c * d
    stepper = agv.BackwardStepper(e, names={"a": a, "b": b, "c": c, "d": d, "e": e})
    stepper.goto(3)
    return stepper.frame_svg()


PICTURES = {"graph.svg": graph_svg, "stepper_frame.svg": stepper_svg}


def main(out: Path = OUT) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name, make in PICTURES.items():
        (out / name).write_text(make(), encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT)
