"""Writes notebooks/00_quick_tour.ipynb (run from the repo root). The lessons of issue 6 replace it."""

import json

cells = [
    (
        "md",
        """# autogradviz: a quick tour

The lessons arrive in later releases; this notebook shows the engine they stand on.
autogradviz is a small numpy autograd engine with PyTorch's names, rules and error messages,
so that what you learn here transfers to PyTorch (and to Paddle, whose spellings work too).""",
    ),
    (
        "code",
        """import autogradviz as agv

agv.manual_seed(0)""",
    ),
    (
        "md",
        """## Leaves, `requires_grad` and the root

For `y = w*x + b`, the tensors you create (`x`, `w`, `b`) are **leaves**; `y` is computed from them.
`requires_grad` spreads: `y` needs a gradient because `w` does.""",
    ),
    (
        "code",
        """x = agv.ones(2, 2)
w = agv.rand(2, 2, requires_grad=True)
b = agv.rand(2, 2, requires_grad=True)
y = w * x + b
print((x.is_leaf, w.is_leaf, b.is_leaf), y.is_leaf)
print((x.requires_grad, w.requires_grad, b.requires_grad), y.requires_grad)
y""",
    ),
    (
        "md",
        """`agv.draw` shows the graph: amber leaves require grad, blue ones are inputs, green is the output.
`names=locals()` labels each tensor with your variable name.""",
    ),
    ("code", """agv.draw(y, names=locals())"""),
    (
        "md",
        """## `backward()` needs a scalar, or a `gradient=`

`y` has four elements, so there is no single "the derivative". PyTorch refuses, and so does autogradviz:""",
    ),
    (
        "code",
        """try:
    y.backward()
except RuntimeError as error:
    print("RuntimeError:", str(error).split(":")[0])""",
    ),
    (
        "md",
        """Pass a gradient of `y`'s shape instead. Gradients **accumulate** over backward calls until you zero them:""",
    ),
    (
        "code",
        """y.backward(agv.ones(2, 2), retain_graph=True)
print(w.grad)
y.backward(agv.ones(2, 2), retain_graph=True)
print(w.grad)
w.grad.zero_()""",
    ),
    (
        "md",
        """Drawn again, the leaves show their `.grad`: `w`'s was just zeroed, while `b`'s still holds two
accumulated backward calls. `kind="backward"` draws the graph that `backward()` walks:""",
    ),
    ("code", """agv.draw(y, names=locals(), kind="backward")"""),
    (
        "md",
        """## The backward graph

Every op records a backward node (`grad_fn`). Its `next_functions` lead to the nodes that made its inputs,
down to an `AccumulateGrad` node per leaf: the graph that `backward()` walks.""",
    ),
    (
        "code",
        """a = agv.tensor(2.0, requires_grad=True)
b = agv.tensor(5.0, requires_grad=True)
d = agv.tensor(4.0, requires_grad=True)
c = a * b
c.retain_grad()
e = c * d
print(e.grad_fn, e.grad_fn.next_functions)
print(c.grad_fn, c.grad_fn.next_functions)""",
    ),
    (
        "md",
        """The engine runs one node at a time: each receives the gradient of its output ("upstream") and sends
upstream × local derivative to each input. `agv.backward_steps` shows the walk that `backward()` itself takes
(`accumulate=False`: just look, write no `.grad`):""",
    ),
    (
        "code",
        """for step in agv.backward_steps([e], [agv.tensor(1.0)], retain_graph=True, accumulate=False):
    sent = [None if s is None else float(s) for s in step.sent]
    print(f"{step.index}: {step.node.name():15s} upstream={float(step.grad):5.1f}  sent={sent}")
e.backward()
print("a.grad", a.grad, " b.grad", b.grad, " c.grad", c.grad, " d.grad", d.grad)""",
    ),
    (
        "md",
        """## Checking a gradient

`agv.gradcheck` compares backward's gradient with finite differences:""",
    ),
    (
        "code",
        """def f(x):
    return (x.sin() * x).sum()


agv.gradcheck(f, agv.randn(3, dtype=agv.float64, requires_grad=True))""",
    ),
]
nb = {
    "cells": [],
    "metadata": {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    },
    "nbformat": 4,
    "nbformat_minor": 5,
}
for i, (kind, src) in enumerate(cells):
    cell = {
        "cell_type": "markdown" if kind == "md" else "code",
        "id": f"cell-{i:02d}",
        "metadata": {},
        "source": src.splitlines(keepends=True),
    }
    if kind == "code":
        cell["execution_count"] = None
        cell["outputs"] = []
    nb["cells"].append(cell)
json.dump(nb, open("notebooks/00_quick_tour.ipynb", "w"), indent=1, ensure_ascii=False)
