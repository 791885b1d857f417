"""The drawings read a graph only through core/protocol.py: a graph that is not
autogradviz's own, from a small hand-written adapter, draws the same way.

The foreign graph here is y = relu(w * x) with w a leaf that has a .grad, x a
constant, written out node by node as another library might expose it.
"""

from __future__ import annotations

import numpy as np
import pytest

import autogradviz as agv
from autogradviz.core import protocol
from autogradviz.core.graph_api import SavedValue
from autogradviz.viz.labels import preview


class ForeignTensor:
    def __init__(self, value, name=None, grad=None, grad_fn=None, requires_grad=False):
        self.value, self.label, self.grad_value = np.asarray(value), name, grad
        self.grad_fn, self.requires_grad = grad_fn, requires_grad


class ForeignNode:
    """A GraphNode written from scratch: no autogradviz class behind it."""

    elementwise = True

    def __init__(self, name, op, rules, edges, constants, output=None, variable=None, saved=()):
        self._name, self.op, self.rules = name, op, rules
        self.edges, self.constants, self.output, self.variable = edges, constants, output, variable
        self.saved_values, self.output_name, self.module_calls = saved, None, ()

    def name(self):
        return self._name

    @property
    def label(self):
        return self.op


class ForeignReader:
    def is_tensor(self, value):
        return isinstance(value, ForeignTensor)

    def node(self, tensor):
        return tensor.grad_fn or getattr(tensor, "accumulator", None)

    def grad_fn(self, tensor):
        return tensor.grad_fn

    def requires_grad(self, tensor):
        return tensor.requires_grad

    def value(self, tensor):
        return tensor.value

    def grad(self, tensor):
        return tensor.grad_value

    def name(self, tensor):
        return tensor.label


@pytest.fixture
def foreign_graph(monkeypatch):
    monkeypatch.setattr(protocol, "READERS", [protocol.AUTOGRADVIZ, ForeignReader()])
    w = ForeignTensor([2.0, -1.0], "weight", grad=np.array([3.0, 0.0]), requires_grad=True)
    x = np.array([1.5, 4.0])
    accumulate = ForeignNode("AccumulateGrad", "accumulate", ("leaf.grad += g",), (), (), variable=w)
    w.accumulator = accumulate
    product = np.array([3.0, -4.0])
    mul = ForeignNode(
        "MulBackward0",
        "*",
        ("∂(a·b)/∂a = b", "∂(a·b)/∂b = a"),
        (accumulate, None),
        (None, x),
        output=product,
        saved=(SavedValue(x, 1),),
    )
    relu = ForeignNode("ReluBackward0", "relu", ("1 if a > 0 else 0",), (mul,), (None,), output=None)
    y = ForeignTensor([3.0, 0.0], "out", grad_fn=relu, requires_grad=True)
    return y, w, mul, relu


def test_the_protocol_is_what_foreign_nodes_implement(foreign_graph):
    y, w, mul, relu = foreign_graph
    assert isinstance(mul, protocol.GraphNode) and isinstance(relu, protocol.GraphNode)
    assert protocol.reader_for(y).value(y) is y.value
    assert protocol.reader_for(agv.ones(2)) is protocol.AUTOGRADVIZ
    assert protocol.reader_for(object()) is None


def test_a_foreign_graph_draws_forward(foreign_graph):
    y, w, mul, relu = foreign_graph
    # names=False: the names here are the foreign reader's own (`name()`), not the test's variables
    view = agv.draw(y, kind="forward", highlight=[mul], names=False)
    source = view.source
    assert view.summary() == "<autogradviz graph: 6 nodes, 5 edges (forward)>"
    values = [preview(w.value), preview(w.grad_value), preview(mul.constants[1]), preview(y.value)]
    for text in ("weight", "out", "relu", "(2,) float64", *values):
        assert text in source, text
    assert preview(mul.output) in source  # an intermediate with no tensor: its node's output value
    (op_line,) = [line for line in source.splitlines() if "agv-highlight" in line]
    assert "<B>*</B>" in op_line  # the highlighted node is the foreign mul
    assert "<svg" in view.svg()


def test_a_foreign_graph_draws_backward_with_saved_values(foreign_graph):
    y, w, mul, relu = foreign_graph
    source = agv.draw(y, kind="backward", show_saved=True, names=False).source
    for text in ("ReluBackward0", "MulBackward0", "AccumulateGrad", "weight", "saved other"):
        assert text in source, text
    # the saved value is drawn with its own values, the constant x
    assert preview(mul.constants[1]) in source and preview(w.grad_value) in source


def test_an_unknown_object_is_refused_by_name(foreign_graph):
    with pytest.raises(TypeError, match=r"^draw: expected tensors to draw, got ForeignNode$"):
        agv.draw(foreign_graph[2])
