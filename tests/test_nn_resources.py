"""Calling modules in a loop costs nothing that stays.

Module.__call__ leaves a note on its output's grad_fn (the module, and the
nodes its inputs came from) for `agv.draw(loss, group="module")`. A module
that returns its input (Identity, Dropout in eval mode) made no node: a note
there would land on the input's node, and a loop over 5,000 calls on the same
tensor would grow that node's list by 5,000 entries. These tests pin that the
list and the traced memory stay flat, that real modules still leave their one
note, and that nothing keeps a model alive once it and its graph are gone.
"""

from __future__ import annotations

import gc
import tracemalloc
import weakref

import pytest

import autogradviz as agv
from autogradviz import nn

PASS_THROUGH = {
    "Identity": lambda: nn.Identity(),
    "Dropout.eval": lambda: nn.Dropout(0.5).eval(),
    "Dropout(p=0)": lambda: nn.Dropout(0.0),  # p=0 passes the input through even while training
    "Sequential(Identity, Dropout.eval)": lambda: nn.Sequential(nn.Identity(), nn.Dropout().eval()),
}


def _input():
    """A tensor made by an op, so that it has a grad_fn a note could be added to."""
    leaf = agv.ones(8, 4, requires_grad=True)
    return leaf * 2


@pytest.mark.parametrize("make", PASS_THROUGH.values(), ids=PASS_THROUGH.keys())
def test_a_pass_through_module_adds_no_note_to_its_input(make):
    module, x = make(), _input()
    node = x.grad_fn
    for _ in range(5_000):
        assert module(x) is x
    assert node.module_calls == ()


@pytest.mark.parametrize("make", PASS_THROUGH.values(), ids=PASS_THROUGH.keys())
def test_a_pass_through_module_called_5000_times_does_not_grow_memory(make):
    module, x = make(), _input()
    tracemalloc.start()
    try:
        for _ in range(100):
            module(x)
        gc.collect()
        after_100, _ = tracemalloc.get_traced_memory()
        for _ in range(4_900):
            module(x)
        gc.collect()
        after_5000, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # one note is a tuple and a list slot, about 110 bytes: 4,900 of them were 550 KB before the fix.
    # 8 KB leaves room for the interpreter's own caches, not for anything per call
    assert after_5000 - after_100 < 8_192, f"grew by {after_5000 - after_100} bytes over 4,900 calls"


def test_a_module_that_computes_still_leaves_exactly_one_note_per_call():
    lin, x = nn.Linear(4, 3), _input()
    start = x.grad_fn
    outputs = [lin(x) for _ in range(3)]
    for y in outputs:
        assert y.grad_fn.module_calls == ((lin, (start,)),)
    assert start.module_calls == ()


def test_a_module_that_returns_one_output_twice_is_noted_once():
    class Twice(nn.Module):
        def forward(self, x):
            y = x * 3
            return y, y

    module, x = Twice(), _input()
    first, second = module(x)
    assert first is second
    assert first.grad_fn.module_calls == ((module, (x.grad_fn,)),)


def test_an_in_place_module_is_noted_on_the_node_it_made():
    # training, in place: the output is the input tensor, but rebased on a new node.
    # The note goes there, naming the node the input had before the call
    agv.manual_seed(0)
    drop, x = nn.Dropout(0.5, inplace=True), _input()
    before = x.grad_fn
    out = drop(x)
    assert out is x and x.grad_fn is not before
    assert x.grad_fn.module_calls == ((drop, (before,)),)
    assert before.module_calls == ()


def test_draw_by_module_boxes_the_layers_around_a_pass_through_module():
    agv.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Identity(), nn.Dropout().eval(), nn.Linear(4, 1))
    x = agv.ones(2, 3)
    for _ in range(50):
        model(x)  # repeated calls must not change the drawing
    loss = model(x).sum()
    from autogradviz.viz.modules import module_groups

    labels = sorted(set(module_groups([loss.grad_fn]).values()))
    assert labels == ["0 Linear(3, 4)", "3 Linear(4, 1)"]
    agv.draw(loss, group="module")  # and the drawing itself goes through


@pytest.mark.parametrize("collect", [False, True], ids=["refcount", "gc.collect"])
def test_nothing_keeps_a_model_alive_after_it_and_its_graph_are_deleted(collect):
    agv.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Identity(), nn.Dropout().eval(), nn.Linear(4, 1))
    opt = agv.optim.Adam(model.parameters(), lr=0.1)
    x = agv.ones(2, 3)
    for _ in range(3):
        opt.zero_grad()
        loss = model(x).pow(2).sum()
        loss.backward()
        opt.step()
    view = agv.draw(loss, group="module")
    refs = {"model": weakref.ref(model)}
    refs |= {name: weakref.ref(p) for name, p in model.named_parameters()}
    refs |= {name: weakref.ref(m) for name, m in model.named_modules() if name}
    del model, opt, loss, view
    if collect:
        gc.collect()
    # with refcounting alone too: the notes hold modules, but nothing refers back to the notes
    assert [name for name, ref in refs.items() if ref() is not None] == []
    assert len(refs) == 10
