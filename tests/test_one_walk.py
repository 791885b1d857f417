"""Issue 25, item 3: one walk, and its callers decide what to write.

engine.walk computes and yields; backward() (through backward_steps), agv.grad()
and the stepper's recording each consume it, and only they write `.grad`,
retained grads, or free what the nodes saved.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import autogradviz as agv
from autogradviz import engine
from autogradviz.widgets import BackwardStepper


def graph():
    x = agv.tensor([1.0, -2.0, 3.0], requires_grad=True)
    w = agv.tensor([0.5, 0.25, 2.0], requires_grad=True)
    h = x * w
    h.retain_grad()
    y = (h.sin() + h * h).sum()
    return x, w, h, y


def test_the_walk_has_no_writing_flags():
    assert list(inspect.signature(engine.walk).parameters) == ["roots", "seeds", "create_graph", "only"]


def test_the_walk_writes_nothing_and_frees_nothing():
    x, w, h, y = graph()
    with engine.quiet_numpy():
        steps = list(engine.walk([y.grad_fn], [np.array(1.0)]))
    assert x.grad is None and w.grad is None and h.grad is None
    # what arrived at each leaf is the hand-derived gradient: dy/dh = cos h + 2h, dh/dx = w, dh/dw = x
    hv = (x * w).detach().numpy()
    dh = np.cos(hv) + 2 * hv
    leaf = {id(step.leaf): step.grad for step in steps if step.leaf is not None}
    np.testing.assert_allclose(leaf[id(x)], dh * w.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(leaf[id(w)], dh * x.detach().numpy(), rtol=1e-6)
    y.backward()  # nothing was freed: the graph runs again, and only now is .grad written
    np.testing.assert_allclose(x.grad.numpy(), leaf[id(x)], rtol=1e-6)
    np.testing.assert_allclose(h.grad.numpy(), dh, rtol=1e-6)


@pytest.mark.parametrize("caller", ["backward", "grad", "stepper"])
def test_every_caller_consumes_the_one_walk(caller, monkeypatch):
    calls = []
    original = engine.walk

    def counted(*args, **kwargs):
        calls.append(caller)
        yield from original(*args, **kwargs)

    monkeypatch.setattr(engine, "walk", counted)
    x, w, h, y = graph()
    if caller == "backward":
        y.backward()
        assert x.grad is not None and h.grad is not None
    elif caller == "grad":
        (gx,) = agv.grad(y, x)
        assert x.grad is None and gx.shape == x.shape
        assert h.grad is not None  # retain_grad() is a hook in PyTorch: agv.grad fills it too
    else:
        s = BackwardStepper(y, names=False)
        assert x.grad is None and len(s.steps) > 0
        s.close()
    assert calls == [caller]


def test_agv_grad_frees_only_the_nodes_whose_formula_ran():
    # y = h * h with h = x * x; grad(y, h) runs y's nodes, and not h's own (as in PyTorch)
    x = agv.tensor([1.0, 2.0], requires_grad=True)
    h = x * x
    y = (h * h).sum()
    (gh,) = agv.grad(y, h)
    assert gh.tolist() == [2.0, 8.0]  # 2h = 2x², as torch.autograd.grad gives
    (gx,) = agv.grad(h.sum(), x)  # h's node still has the x it saved: it never ran
    assert gx.tolist() == [2.0, 4.0]  # 2x
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        agv.grad(y, h)
