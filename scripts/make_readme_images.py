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


def network() -> tuple:
    """The 3-layer MLP a class meets first, on 8 samples of 4 features, 3 classes."""
    agv.manual_seed(0)
    model = agv.nn.Sequential(
        agv.nn.Linear(4, 16), agv.nn.ReLU(), agv.nn.Linear(16, 16), agv.nn.ReLU(), agv.nn.Linear(16, 3)
    )
    x = agv.randn(8, 4)
    target = agv.tensor([0, 1, 2, 0, 1, 2, 0, 1])
    loss = agv.nn.functional.cross_entropy(model(x), target)
    return model, x, loss


def network_svg() -> str:
    """The MLP drawn as `agv.draw(loss)` draws it: by layers, after one backward."""
    model, x, loss = network()
    loss.backward(retain_graph=True)
    return agv.draw(loss, names={"x": x, "loss": loss}, model=model).svg()


def stepper_layer_svg() -> str:
    """The layer-by-layer stepper on the MLP, inside layer 2 (a Linear), two of its steps run."""
    model, x, loss = network()
    stepper = agv.BackwardStepper(loss, names={"x": x, "loss": loss}, model=model)
    return stepper.frame_svg(2, layer="2")


PICTURES = {
    "graph.svg": graph_svg,
    "stepper_frame.svg": stepper_svg,
    "network_layers.svg": network_svg,
    "stepper_inside_layer.svg": stepper_layer_svg,
}


def main(out: Path = OUT) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name, make in PICTURES.items():
        (out / name).write_text(make(), encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT)
