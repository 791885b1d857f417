"""docs/formula_sheet.md is current, lists every node, and its PyTorch names hold."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
REGENERATE = ".venv/bin/python scripts/formula_sheet.py"


def load_script():
    spec = importlib.util.spec_from_file_location("formula_sheet", ROOT / "scripts" / "formula_sheet.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


sheet = load_script()


def test_the_sheet_is_current():
    committed = sheet.SHEET.read_text(encoding="utf-8") if sheet.SHEET.exists() else ""
    assert committed == sheet.render(), f"docs/formula_sheet.md is stale: regenerate it with `{REGENERATE}`"


def test_the_sheet_lists_every_node():
    text = sheet.render()
    classes = sheet.node_classes()
    assert len(classes) > 50
    for cls in classes:
        assert text.count(f"| `{cls.__name__}` |") == 1, f"{cls.__name__} is not in the sheet once"
    # no line number is printed: the sheet must not go stale on an unrelated edit
    assert not re.search(r"\.py:\d", text)


def test_torch_names_are_stated_where_they_belong():
    for cls in sheet.node_classes():
        # a subclass of a class whose PyTorch name differs states its own: inherited, the
        # parent's text would describe another op
        assert "torch_name" in vars(cls) or cls.torch_name is None, f"{cls.__name__} inherits a torch_name"
        # None already means "the same name"
        assert cls.torch_name != cls.__name__, f"{cls.__name__}: torch_name should be None"


# -- the claims, against real PyTorch ---------------------------------------------------------------


def rand(lib, *shape, positive=False):
    values = np.random.default_rng(0).random(shape) + (0.5 if positive else -0.5)
    return lib.tensor(values, dtype=lib.float64, requires_grad=True)


def written(lib, index, value):
    h = rand(lib, 3, 2) * 1  # not a leaf: it may be written in place
    h[index] = value
    return h


def double_backward(lib, index):
    x = rand(lib, 3, 2)
    y = x[index]
    return lib.autograd.grad(y, x, rand(lib, *y.shape), create_graph=True)[0]


CLAIMS = {
    # op: (the node autogradviz records, how to run the op with either library)
    "x * y": ("MulBackward0", lambda L, F: rand(L, 3) * rand(L, 3)),
    "2 / x": ("MulBackward0", lambda L, F: 2 / rand(L, 3, positive=True)),  # reciprocal(x) * 2, as torch
    "matmul, batches": ("MatmulBackward0", lambda L, F: rand(L, 2, 2, 3) @ rand(L, 2, 3, 4)),
    "x.t(), 1-D": ("ViewBackward0", lambda L, F: rand(L, 3).t()),
    "squeeze(dims)": ("SqueezeBackward1", lambda L, F: rand(L, 2, 1).squeeze((1,))),
    "squeeze()": ("SqueezeBackward0", lambda L, F: rand(L, 2, 1).squeeze()),
    "reshape that copies": ("UnsafeViewBackward0", lambda L, F: rand(L, 2, 3).t().reshape(6)),
    "x[...]": ("AliasBackward0", lambda L, F: rand(L, 3)[...]),
    "x[None]": ("AliasBackward0", lambda L, F: rand(L, 3)[None]),
    "max()": ("MaxBackward1", lambda L, F: rand(L, 2, 3).max()),
    "max(dim)": ("MaxBackward0", lambda L, F: rand(L, 2, 3).max(1)[0]),
    "fill_": ("FillBackward0", lambda L, F: (rand(L, 3) * 1).fill_(2.0)),
    "zero_": ("FillBackward0", lambda L, F: (rand(L, 3) * 1).zero_()),
    "normal_": ("NormalBackward0", lambda L, F: (rand(L, 3) * 1).normal_()),
    "uniform_": ("UniformBackward0", lambda L, F: (rand(L, 3) * 1).uniform_()),
    "copy_": ("CopyBackwards", lambda L, F: (rand(L, 3) * 1).copy_(rand(L, 3))),
    "a view, in place": ("CopySlices", lambda L, F: (lambda h: (h[0].add_(1), h)[1])(rand(L, 2, 3) * 1)),
    "x[mask] = v": ("IndexPutBackward0", lambda L, F: written(L, L.tensor([True, False, True]), 0.0)),
    "x[1:] = v": ("IndexPutBackward0", lambda L, F: written(L, slice(1, None), 0.0)),
    "create_graph through x[1:]": (
        "IndexIntoZerosBackward0",
        lambda L, F: double_backward(L, slice(1, None)),
    ),
    "linear": ("AddmmBackward0", lambda L, F: F.linear(rand(L, 2, 3), rand(L, 4, 3), rand(L, 4))),
    "linear, no bias": ("MmBackward0", lambda L, F: F.linear(rand(L, 2, 3), rand(L, 4, 3))),
    "linear of a vector": ("ViewBackward0", lambda L, F: F.linear(rand(L, 3), rand(L, 4, 3), rand(L, 4))),
    "linear of a vector, no bias": ("SqueezeBackward4", lambda L, F: F.linear(rand(L, 3), rand(L, 4, 3))),
    "linear, batches, no bias": (
        "UnsafeViewBackward0",
        lambda L, F: F.linear(rand(L, 2, 2, 3), rand(L, 4, 3)),
    ),
    "mse_loss": ("MseLossBackward0", lambda L, F: F.mse_loss(rand(L, 3), rand(L, 3))),
    "embedding": ("EmbeddingBackward0", lambda L, F: F.embedding(L.tensor([0, 2, 0]), rand(L, 3, 2))),
    "nll_loss": ("NllLossBackward0", lambda L, F: F.nll_loss(rand(L, 2, 3), L.tensor([0, 2]))),
    "nll_loss, (N, C, H, W)": (
        "NllLossBackward0",
        lambda L, F: F.nll_loss(rand(L, 2, 3, 2, 2), L.tensor(np.zeros((2, 2, 2), dtype=np.int64))),
    ),
    "binary_cross_entropy": (
        "BinaryCrossEntropyBackward0",
        lambda L, F: F.binary_cross_entropy(
            rand(L, 3, positive=True) * 0.5, rand(L, 3) * 0, reduction="none"
        ),
    ),
    "binary_cross_entropy_with_logits": (
        "BinaryCrossEntropyWithLogitsBackward0",
        lambda L, F: F.binary_cross_entropy_with_logits(rand(L, 3), rand(L, 3) * 0, reduction="none"),
    ),
    "max_pool2d": ("MaxPool2DWithIndicesBackward0", lambda L, F: F.max_pool2d(rand(L, 1, 2, 4, 4), 2)),
    "adaptive_avg_pool2d": (
        "AdaptiveAvgPool2DBackward0",
        lambda L, F: F.adaptive_avg_pool2d(rand(L, 1, 2, 4, 4), 2),
    ),
    "adaptive_avg_pool2d to 1×1": (
        "AdaptiveAvgPool2DBackward0",
        lambda L, F: F.adaptive_avg_pool2d(rand(L, 1, 2, 4, 4), 1),
    ),
}


@pytest.mark.parametrize("op", sorted(CLAIMS))
def test_torch_names_against_pytorch(op):
    torch = pytest.importorskip("torch")
    import torch.nn.functional as torch_F

    import autogradviz as agv
    import autogradviz.nn.functional as agv_F

    name, run = CLAIMS[op]
    node = run(agv, agv_F).grad_fn
    assert type(node).__name__ == name
    recorded = type(run(torch, torch_F).grad_fn).__name__
    if node.torch_name is None:
        assert recorded == name, f"{name}.torch_name should say that PyTorch records {recorded}"
    else:
        assert re.search(rf"\b{recorded}\b", node.torch_name), f"{name}.torch_name misses {recorded}"
