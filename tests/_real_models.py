"""Real networks for issue 24's measurements: what a class moves on to after the lessons.

Each builder is deterministic (it seeds `agv.manual_seed(0)` itself), needs only `agv` and
`math` at module level, and returns `(loss, model, description)` with the
forward pass done and no backward run yet:

    mlp3       Linear(4,16) ReLU Linear(16,16) ReLU Linear(16,3), batch 8, cross-entropy
    lesson7    lesson 7's agv.models.mlp([2, 16, 16, 2]) on two_moons(200, noise=0.2, seed=0)
    lenet      Conv(1,6,5) ReLU MaxPool(2) Conv(6,16,5) ReLU MaxPool(2) Flatten
               Linear(256,120) ReLU Linear(120,84) ReLU Linear(84,10), one 1x1x28x28 image
    bn_mlp     Linear(4,16) BatchNorm1d(16) ReLU Linear(16,3), batch 8, cross-entropy
    attention  one self-attention block: q, k, v Linear(8,8) modules, softmax(QK^T/sqrt(8))V
               written with ops, sequence 4, dim 8, mean squared error
    rnn        a 5-step unrolled RNN: h = tanh(W_x x_t + W_h h), Linear modules applied 5 times
    vgg11      autogradviz.models.vgg11() on one 1x3x224x224 image, cross-entropy

`notebook(key, language, path)` writes the notebook a teacher would run for one model:
the builder's own source, `agv.draw(loss)`, `agv.draw(loss, model=m)`, and
`s = BackwardStepper(loss, model=m); s`, in English or Chinese (`agv.set_language`).
Used by tests/test_real_models_browser.py and benchmarks/bench_stepper_models.py.
"""

from __future__ import annotations

import inspect
import math
from pathlib import Path

import autogradviz as agv


def build_mlp3():
    """The 3-layer MLP of issue 24: 4 -> 16 -> 16 -> 3, a batch of 8, cross-entropy."""
    agv.manual_seed(0)
    m = agv.nn.Sequential(
        agv.nn.Linear(4, 16),
        agv.nn.ReLU(),
        agv.nn.Linear(16, 16),
        agv.nn.ReLU(),
        agv.nn.Linear(16, 3),
    )
    x = agv.randn(8, 4)
    y = agv.randint(0, 3, (8,))
    loss = agv.nn.functional.cross_entropy(m(x), y)
    return loss, m, "3-layer MLP 4-16-16-3, batch 8, cross-entropy"


def mlp(seed: int = 0):
    """The 3-layer MLP with fixed targets, for the unit tests (test_layers_draw, test_layer_stepper):
    (model, x, y, loss)."""
    agv.manual_seed(seed)
    model = agv.nn.Sequential(
        agv.nn.Linear(4, 16), agv.nn.ReLU(), agv.nn.Linear(16, 16), agv.nn.ReLU(), agv.nn.Linear(16, 3)
    )
    x = agv.randn(8, 4)
    y = agv.tensor([0, 1, 2, 0, 1, 2, 0, 1])
    loss = agv.nn.functional.cross_entropy(model(x), y)
    return model, x, y, loss


def build_lesson7():
    """Lesson 7's network (notebooks/src/07_training_a_network.py): agv.models.mlp([2, 16, 16, 2])
    on all 200 two-moons points, cross-entropy."""
    agv.manual_seed(0)
    X, y = agv.data.two_moons(200, noise=0.2, seed=0)
    m = agv.models.mlp([2, 16, 16, 2])
    loss = agv.nn.functional.cross_entropy(m(X), y)
    return loss, m, "lesson 7's MLP 2-16-16-2 on 200 two-moons points"


def build_lenet():
    """A LeNet-style CNN on one 28x28 grey image, 10 classes."""
    agv.manual_seed(0)
    nn = agv.nn
    m = nn.Sequential(
        nn.Conv2d(1, 6, 5),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(6, 16, 5),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(256, 120),
        nn.ReLU(),
        nn.Linear(120, 84),
        nn.ReLU(),
        nn.Linear(84, 10),
    )
    x = agv.randn(1, 1, 28, 28)
    y = agv.randint(0, 10, (1,))
    loss = nn.functional.cross_entropy(m(x), y)
    return loss, m, "LeNet-style CNN on one 1x1x28x28 image"


def build_bn_mlp():
    """An MLP with BatchNorm1d (training mode: batch statistics), a batch of 8."""
    agv.manual_seed(0)
    m = agv.nn.Sequential(
        agv.nn.Linear(4, 16),
        agv.nn.BatchNorm1d(16),
        agv.nn.ReLU(),
        agv.nn.Linear(16, 3),
    )
    x = agv.randn(8, 4)
    y = agv.randint(0, 3, (8,))
    loss = agv.nn.functional.cross_entropy(m(x), y)
    return loss, m, "MLP 4-16-3 with BatchNorm1d, batch 8"


def build_attention():
    """One self-attention block: q, k, v are Linear modules, the rest is written with ops."""
    agv.manual_seed(0)

    class SelfAttention(agv.nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.dim = dim
            self.q = agv.nn.Linear(dim, dim)
            self.k = agv.nn.Linear(dim, dim)
            self.v = agv.nn.Linear(dim, dim)

        def forward(self, x):
            q, k, v = self.q(x), self.k(x), self.v(x)
            scores = q @ k.transpose(0, 1) / math.sqrt(self.dim)
            weights = scores.softmax(dim=-1)
            return weights @ v

    m = SelfAttention(8)
    x = agv.randn(4, 8)  # a sequence of 4 tokens, 8 numbers each
    target = agv.randn(4, 8)
    loss = agv.nn.functional.mse_loss(m(x), target)
    return loss, m, "self-attention block, sequence 4, dim 8"


def build_rnn():
    """A 5-step unrolled RNN: the same Linear modules applied at every step, tanh."""
    agv.manual_seed(0)

    class UnrolledRNN(agv.nn.Module):
        def __init__(self, n_in, n_hidden, n_out):
            super().__init__()
            self.n_hidden = n_hidden
            self.input = agv.nn.Linear(n_in, n_hidden)
            self.hidden = agv.nn.Linear(n_hidden, n_hidden)
            self.output = agv.nn.Linear(n_hidden, n_out)

        def forward(self, xs):
            h = agv.zeros(xs.shape[1], self.n_hidden)
            for t in range(xs.shape[0]):
                h = (self.input(xs[t]) + self.hidden(h)).tanh()
            return self.output(h)

    m = UnrolledRNN(3, 8, 2)
    xs = agv.randn(5, 2, 3)  # 5 time steps, a batch of 2, 3 inputs
    y = agv.randint(0, 2, (2,))
    loss = agv.nn.functional.cross_entropy(m(xs), y)
    return loss, m, "RNN unrolled over 5 steps, hidden 8, tanh"


def build_vgg11():
    """VGG-11 (torchvision's layout) on one random 224x224 RGB image, 1000 classes."""
    agv.manual_seed(0)
    m = agv.models.vgg11()
    x = agv.rand(1, 3, 224, 224)
    y = agv.randint(0, 1000, (1,))
    loss = agv.nn.functional.cross_entropy(m(x), y)
    return loss, m, "VGG-11 on one 1x3x224x224 image"


BUILDERS = {
    "mlp3": build_mlp3,
    "lesson7": build_lesson7,
    "lenet": build_lenet,
    "bn_mlp": build_bn_mlp,
    "attention": build_attention,
    "rnn": build_rnn,
    "vgg11": build_vgg11,
}
MODELS = list(BUILDERS)


def build(key: str):
    """(loss, model, description) of one of MODELS."""
    return BUILDERS[key]()


# Notebooks ---------------------------------------------------------------------------------

VIEWS = ("draw", "draw_model", "stepper")  # the three outputs, in cell order
VIEW_CELLS = {"draw": "agv.draw(loss)", "draw_model": "agv.draw(loss, model=m)"}
STEPPER_CELL = "s = BackwardStepper(loss, model=m)\ns"


def notebook(key: str, language: str, path: Path) -> Path:
    """Write the notebook a teacher would run for model `key` in `language` ("en"/"zh").
    Cells: set-up, the builder's source and its call, then one cell per view in VIEWS
    (tagged "agv-view-<view>" so that a test can find its output)."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    builder = BUILDERS[key]
    heading = {
        "en": f"# {key}: drawn and stepped\n\n{(builder.__doc__ or '').strip()}",
        "zh": f"# {key}：画出来，一步一步走\n\n{(builder.__doc__ or '').strip()}",
    }[language]
    cells = [
        new_markdown_cell(heading),
        new_code_cell(
            "import math\n\nimport numpy as np\n\nimport autogradviz as agv\n"
            f"from autogradviz import BackwardStepper\n\nagv.set_language({language!r})"
        ),
        new_code_cell(inspect.getsource(builder).rstrip() + f"\n\n\nloss, m, description = {builder.__name__}()\n"
                      "print(description, loss)"),
    ]  # fmt: skip
    for view in VIEWS:
        source = STEPPER_CELL if view == "stepper" else VIEW_CELLS[view]
        cells.append(new_code_cell(source, metadata={"tags": [f"agv-view-{view}"]}))
    nb = new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, str(path))
    return path


def _check() -> None:
    """Build every model and print its loss, its number of backward nodes and the time."""
    import time

    for key in MODELS:
        start = time.perf_counter()
        loss, m, description = build(key)
        took = time.perf_counter() - start
        nodes = len(agv.topological_order([loss.grad_fn]))
        n_params = sum(p.numel() for p in m.parameters())
        print(f"{key:<10} {took:6.2f}s  loss {float(loss.item()):.4f}  nodes {nodes:>4}  "
              f"params {n_params:>10}  {description}")  # fmt: skip


if __name__ == "__main__":
    _check()
