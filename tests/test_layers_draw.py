"""agv.draw(loss) of a network: layers first, ops on demand (issue 24, item 2).

A graph made by nn modules is drawn as one box per module call when its ops would
not fit a 590 px output with 10 px text; each box shows the call's name and type,
its output's shape and, after backward, the norm of its parameters' gradients.
`layers=` forces or forbids that, `expand=` opens layers in place. Graphs made
without modules (the lessons' toys) are drawn exactly as before.

The expected values are derived independently of the drawing: output shapes by
running each module's forward on its own, gradient norms with numpy from `.grad`,
the "fits" rule from the op view's measured size.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import numpy as np
import pytest
from _real_models import build, mlp  # noqa: E402  (tests/ is on sys.path under pytest)

import autogradviz as agv
import autogradviz.nn as nn
from autogradviz.viz.view import LAYER_FIT_PX, LAYER_TEXT_PX

GOLDEN = Path(__file__).parent / "golden"
MLP_LABELS = ["0 Linear(4, 16)", "1 ReLU()", "2 Linear(16, 16)", "3 ReLU()", "4 Linear(16, 3)"]
_NODE = re.compile(r'^\s*(\w+) \[label=<(.*)> class="agv-node agv-(\w+)"', re.M)
_ARROW = re.compile(r"^\s*(\w+) -> (\w+)", re.M)


# -- graphs -------------------------------------------------------------------------------


def abd():
    """Lesson 1's `e = (a*b)*d`, named as tests/test_draw.py names it for its golden file."""
    a = agv.tensor(2.0, requires_grad=True)
    b = agv.tensor(5.0, requires_grad=True)
    d = agv.tensor(4.0, requires_grad=True)
    e = (a * b) * d
    return {"_": e, "_1": a, "a": a, "b": b, "d": d, "e": e}


class UnrolledRNN(nn.Module):
    """One Linear cell called `steps` times: h = tanh(cell(h) + x_t). Keeps each call's output."""

    def __init__(self, size: int = 3):
        super().__init__()
        self.cell = nn.Linear(size, size)
        self.size = size
        self.cell_outputs = []

    def forward(self, xs):
        h = agv.zeros(xs[0].shape[0], self.size)
        for x in xs:
            out = self.cell(h)
            self.cell_outputs.append(out)
            h = (out + x).tanh()
        return h


# -- reading the DOT source -------------------------------------------------------------


def nodes(source: str) -> dict[str, tuple[str, list[str]]]:
    """DOT node id -> (its kind: group, op, param, tensor, root...; the texts of its label)."""
    found = {}
    for node_id, label, kind in _NODE.findall(source):
        texts = [html.unescape(t).strip() for t in re.findall(r">([^<>]+)<", label)]
        found[node_id] = (kind, [t for t in texts if t])
    return found


def arrows(source: str) -> list[tuple[str, str]]:
    return _ARROW.findall(source)


def layer_boxes(source: str) -> dict[str, list[str]]:
    """A layer box's title -> the rest of its texts (output shape, gradient norm)."""
    return {texts[0]: texts[1:] for kind, texts in nodes(source).values() if kind == "group"}


def clusters(source: str) -> dict[str, str]:
    """An open layer's frame label -> the DOT text inside its frame."""
    found = {}
    for block in source.split("subgraph cluster_")[1:]:
        label = html.unescape(re.search(r"label=<([^\n]*)>", block).group(1))
        found[label] = block.split("}")[0]
    return found


def bold(text: str) -> list[str]:
    return [html.unescape(t) for t in re.findall(r"<B>([^<]*)</B>", text)]


def printed_close(printed: str, value: float) -> bool:
    """Is `printed` (4 decimals, trailing zeros trimmed, or %.4g) `value`, to its printed precision?"""
    mantissa, _, exponent = printed.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    unit = 10.0 ** (-decimals) * (10.0 ** int(exponent) if exponent else 1.0)
    return abs(float(printed) - value) <= 0.5 * unit * (1 + 1e-6) + 1e-12


def has_cycle(edges: list[tuple[str, str]]) -> bool:
    graph: dict[str, list[str]] = {}
    for tail, head in edges:
        graph.setdefault(tail, []).append(head)
    state: dict[str, int] = {}

    def visit(node: str) -> bool:
        state[node] = 1
        for nxt in graph.get(node, ()):
            if state.get(nxt) == 1 or (nxt not in state and visit(nxt)):
                return True
        state[node] = 2
        return False

    return any(node not in state and visit(node) for node in list(graph))


# -- the MLP, by layers ------------------------------------------------------------------------


def test_mlp_is_drawn_by_layers_one_box_per_module_call_with_real_output_shapes():
    model, x, _, loss = mlp()
    view = agv.draw(loss)
    assert view.layered
    boxes = layer_boxes(view.source)
    assert sorted(boxes) == sorted(MLP_LABELS)  # one box per call, named by path and type
    assert sorted(layer.key for layer in view.layers.values()) == ["0", "1", "2", "3", "4"]
    # the ops inside the modules are gone from the picture; the loss's own ops stay
    ops = [texts[0] for kind, texts in nodes(view.source).values() if kind == "op"]
    assert "addmm" not in ops and "relu" not in ops
    assert {"log_softmax", "nll_loss"} <= set(ops)
    # each box's output shape: run the modules one by one, outside the graph
    h = x
    with agv.no_grad():
        for label, module in zip(MLP_LABELS, model):
            h = module(h)
            dtype = np.asarray(h.numpy()).dtype
            assert f"out {tuple(h.shape)} {dtype}" in boxes[label], (label, boxes[label])
    # before backward no box claims a gradient
    assert not any("norm" in text for texts in boxes.values() for text in texts)


def test_after_backward_each_linear_box_shows_its_parameters_gradient_norm():
    model, _, _, loss = mlp()
    loss.backward()
    boxes = layer_boxes(agv.draw(loss).source)
    for label, module in zip(MLP_LABELS, model):
        norm_lines = [t for t in boxes[label] if "norm" in t]
        if not isinstance(module, nn.Linear):
            assert norm_lines == [], label  # a ReLU has no parameters
            continue
        w = np.asarray(module.weight.grad.numpy(), dtype=np.float64)
        b = np.asarray(module.bias.grad.numpy(), dtype=np.float64)
        expected = float(np.sqrt(np.sum(w**2) + np.sum(b**2)))
        (line,) = norm_lines
        printed = re.search(r"norm\s+([-+0-9.e]+)", line).group(1)
        assert printed_close(printed, expected), (label, line, expected)
        assert "weight" in line and "bias" in line


def test_layers_false_draws_the_ops():
    _, _, _, loss = mlp()
    view = agv.draw(loss, layers=False)
    assert not view.layered and view.layers == {}
    kinds = nodes(view.source)
    assert not any(kind == "group" for kind, _ in kinds.values())
    ops = [texts[0] for kind, texts in kinds.values() if kind == "op"]
    assert ops.count("addmm") == 3 and ops.count("relu") == 2  # three Linear calls, two ReLU calls


def test_expand_one_layer_keeps_its_ops_in_a_frame_and_collapses_the_others():
    _, _, _, loss = mlp()
    view = agv.draw(loss, expand=["2"])
    assert view.opened == ["2"]
    frames = clusters(view.source)
    assert list(frames) == ["2 Linear(16, 16)"]
    inside = bold(frames["2 Linear(16, 16)"])
    assert "addmm" in inside and "t" in inside and {"2.weight", "2.bias"} <= set(inside)
    # the only addmm drawn is layer 2's: the other Linear calls are boxes
    assert bold(view.source).count("addmm") == 1
    assert sorted(layer_boxes(view.source)) == sorted(set(MLP_LABELS) - {"2 Linear(16, 16)"})


def test_expand_true_opens_every_layer():
    _, _, _, loss = mlp()
    view = agv.draw(loss, expand=True)
    assert view.opened == ["0", "1", "2", "3", "4"]
    frames = clusters(view.source)
    assert sorted(frames) == sorted(MLP_LABELS)
    for label, body in frames.items():
        assert ("addmm" if "Linear" in label else "relu") in bold(body), label
    assert layer_boxes(view.source) == {}  # no layer is a closed box


def test_expand_with_an_unknown_key_names_the_known_ones():
    _, _, _, loss = mlp()
    with pytest.raises(ValueError, match=r"expand='7'") as raised:
        agv.draw(loss, expand=["7"])
    for key in ("'0'", "'1'", "'2'", "'3'", "'4'"):
        assert key in str(raised.value)


def test_expand_names_a_layer_on_a_graph_without_modules():
    g = abd()
    with pytest.raises(ValueError, match=r"expand=\['1'\] names no layer: no nn module made this graph"):
        agv.draw(g["e"], names=g, expand=["1"])


# -- graphs without modules: drawn as today ------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [{}, {"layers": True}, {"layers": False}, {"layers": "auto"}, {"expand": None}, {"expand": []}],
)
def test_a_lesson_graph_without_modules_is_byte_identical_whatever_the_layer_options(options):
    g = abd()
    view = agv.draw(g["e"], names=g, **options)
    assert not view.layered
    golden = (GOLDEN / "abd_forward.dot").read_text(encoding="utf-8")
    assert view.source == golden  # tests/test_draw.py's golden file: the drawing of today
    assert view.svg() == agv.draw(g["e"], names=g).svg()


def test_layers_true_on_a_toy_graph_without_modules_draws_the_ops():
    x = agv.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = (x * x).sum()
    names = {"x": x, "y": y}
    assert agv.draw(y, names=names, layers=True).source == agv.draw(y, names=names, layers=False).source


# -- the rule: layers only when the ops would not fit -----------------------------------------------


def test_a_module_graph_whose_ops_fit_is_drawn_as_ops():
    act = nn.Tanh()
    a = agv.tensor([[0.5]], requires_grad=True)
    out = act(a).sum()
    ops = agv.draw(out, layers=False)
    assert ops.fits(LAYER_FIT_PX, LAYER_TEXT_PX)
    assert ops.size().narrowest_px(10) <= 590
    assert agv.draw(out, layers=True).layered  # it is a module's graph: layers exist
    view = agv.draw(out)
    assert not view.layered and view.source == ops.source


def test_the_mlp_ops_do_not_fit_so_it_is_drawn_by_layers():
    _, _, _, loss = mlp()
    assert agv.draw(loss, layers=False).size().narrowest_px(10) > 590
    assert agv.draw(loss).layered


@pytest.mark.parametrize("make", ["tanh", "relu", "linear_2x2", "mlp"])
def test_auto_is_layers_exactly_when_the_op_view_does_not_fit(make):
    agv.manual_seed(1)
    if make == "mlp":
        loss = mlp()[3]
    else:
        module = {"tanh": nn.Tanh, "relu": nn.ReLU, "linear_2x2": lambda: nn.Linear(2, 2)}[make]()
        x = agv.randn(1, 2, requires_grad=make != "linear_2x2")
        loss = module(x).sum()
    # the ops as drawn for the notebook, or laid out for the narrow output (top to bottom if narrower)
    ops_fit = agv.draw(loss, layers=False).fits(590, 10) or agv.draw(
        loss, layers=False, fit_width_px=590, min_text_px=10
    ).fits(590, 10)
    assert agv.draw(loss).layered == (not ops_fit)


# -- an unrolled RNN: one layer per call, the shared weight once ---------------------------------------


def test_unrolled_rnn_has_one_layer_per_call_in_forward_order_and_its_weight_once():
    agv.manual_seed(0)
    rnn = UnrolledRNN()
    xs = [agv.randn(2, 3) for _ in range(5)]
    loss = rnn(xs).sum()
    view = agv.draw(loss, layers=True)
    by_key = {layer.key: layer for layer in view.layers.values()}
    cell_keys = [f"cell[{k}]" for k in range(1, 6)]
    assert set(cell_keys) <= set(by_key)
    for k, key in enumerate(cell_keys):  # cell[k] is the k-th call: its output node is that call's
        assert by_key[key].output is rnn.cell_outputs[k].grad_fn, key
        assert by_key[key].label == f"{key} Linear(3, 3)"
    found = nodes(view.source)
    boxes = layer_boxes(view.source)
    assert all(f"{key} Linear(3, 3)" in boxes for key in cell_keys)
    # the shared parameters are drawn once each, outside every call, feeding all five calls
    group_of = {texts[0]: node_id for node_id, (kind, texts) in found.items() if kind == "group"}
    for name in ("cell.weight", "cell.bias"):
        drawn = [node_id for node_id, (kind, texts) in found.items() if texts and texts[0] == name]
        assert len(drawn) == 1, name
        assert found[drawn[0]][0] == "param"
        fed = {head for tail, head in arrows(view.source) if tail == drawn[0]}
        assert fed == {group_of[f"{key} Linear(3, 3)"] for key in cell_keys}
    # the root is its own box, never inside a layer
    assert [kind for kind, _ in found.values()].count("root") == 1


def layer_places(svg: str, axis: int) -> dict[str, float]:
    """A layer box's title -> where it starts along `axis` in the laid-out SVG (0: x, 1: y)."""
    places = {}
    for block in svg.split('class="node agv-node agv-group"')[1:]:
        points = re.search(r'<polygon[^>]* points="([^"]+)"', block).group(1)
        title = html.unescape(re.search(r'font-weight="bold"[^>]*>([^<]+)<', block).group(1))
        places[title] = min(float(point.split(",")[axis]) for point in points.split())
    return places


@pytest.mark.parametrize("rankdir", ["TB", "LR"])
def test_an_input_projection_is_drawn_beside_the_step_that_adds_it(rankdir):
    # input[t] needs only the data and the shared weight, so Graphviz was free to put all five in
    # the first row, far from the additions that read them; a layer whose output one op reads is
    # now pulled next to that op: input[t] in the row (TB) or column (LR) of hidden[t]
    loss, m, _ = build("rnn")
    svg = agv.draw(loss, model=m, layers=True, rankdir=rankdir).svg()
    places = layer_places(svg, axis=1 if rankdir == "TB" else 0)
    steps = [(places[f"input[{t}] Linear(3, 8)"], places[f"hidden[{t}] Linear(8, 8)"]) for t in range(1, 6)]
    assert all(abs(input_at - hidden_at) < 10 for input_at, hidden_at in steps), steps


def test_unrolled_rnn_layers_are_only_the_cell_calls_and_the_picture_has_no_cycle():
    agv.manual_seed(0)
    rnn = UnrolledRNN()
    xs = [agv.randn(2, 3) for _ in range(5)]
    loss = rnn(xs).sum()
    view = agv.draw(loss, layers=True)
    assert sorted(layer.key for layer in view.layers.values()) == [f"cell[{k}]" for k in range(1, 6)]
    assert not has_cycle(arrows(view.source))
    # the loop's own ops are drawn as ops between the calls: five additions, five tanh
    ops = [texts[0] for kind, texts in nodes(view.source).values() if kind == "op"]
    assert ops.count("tanh") == 5 and ops.count("+") == 5


def test_expand_a_module_called_several_times_opens_every_call_or_one():
    agv.manual_seed(0)
    rnn = UnrolledRNN()
    loss = rnn([agv.randn(2, 3) for _ in range(5)]).sum()
    assert agv.draw(loss, expand=["cell"]).opened == [f"cell[{k}]" for k in range(1, 6)]
    one = agv.draw(loss, expand=["cell[2]"])
    assert one.opened == ["cell[2]"] and list(clusters(one.source)) == ["cell[2] Linear(3, 3)"]


def test_a_module_whose_output_is_the_root_keeps_the_root_out_of_its_box():
    class SquaredSum(nn.Module):
        def forward(self, a):
            return (a * a).sum()

    a = agv.tensor([[1.0, 2.0], [3.0, -1.0]], requires_grad=True)
    out = SquaredSum()(a)
    view = agv.draw(out, layers=True)
    found = nodes(view.source)
    roots = [node_id for node_id, (kind, _) in found.items() if kind == "root"]
    groups = [node_id for node_id, (kind, _) in found.items() if kind == "group"]
    assert len(roots) == 1 and len(groups) == 1
    assert (groups[0], roots[0]) in arrows(view.source)  # the box feeds the root drawn beside it
    assert float(out.item()) == 15.0


# -- escaping ---------------------------------------------------------------------------------------


def test_a_hostile_module_class_name_is_drawn_as_text():
    Script = type("<script>x", (nn.Module,), {"forward": lambda self, x: x.tanh() * 2})
    Img = type('<img src=x onerror="alert(1)">', (nn.Module,), {"forward": lambda self, x: x.relu() + 1})
    agv.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 4), Script(), Img(), nn.Linear(4, 2))
    loss = model(agv.randn(8, 4)).pow(2).mean()
    view = agv.draw(loss, layers=True)
    assert view.layered
    assert {"1 <script>x()", '2 <img src=x onerror="alert(1)">()'} <= set(layer_boxes(view.source))
    svg = view.svg()
    assert "<script" not in svg.lower() and "<img" not in svg.lower()
    assert "&lt;script&gt;x()" in svg  # the name itself is shown, as text
    assert "<script" not in view.source.lower()
    page = view.html()
    assert page.lower().count("<script") == 1  # only draw's own zoom script


# -- the PyTorch bridge ------------------------------------------------------------------------------


def test_the_same_mlp_in_torch_is_drawn_by_layers_with_the_same_labels():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    tm = torch.nn.Sequential(
        torch.nn.Linear(4, 16),
        torch.nn.ReLU(),
        torch.nn.Linear(16, 16),
        torch.nn.ReLU(),
        torch.nn.Linear(16, 3),
    )
    x = torch.randn(8, 4)
    y = torch.tensor([0, 1, 2, 0, 1, 2, 0, 1])
    with agv.torch.trace(tm):
        loss = torch.nn.functional.cross_entropy(tm(x), y)
    view = agv.draw(loss)
    assert view.layered
    boxes = layer_boxes(view.source)
    assert sorted(boxes) == sorted(MLP_LABELS)
    h = x
    with torch.no_grad():
        for label, module in zip(MLP_LABELS, tm):
            h = module(h)
            assert f"out {tuple(h.shape)} float32" in boxes[label], (label, boxes[label])
    loss.backward()
    boxes = layer_boxes(agv.draw(loss).source)
    for label, module in zip(MLP_LABELS, tm):
        if isinstance(module, torch.nn.Linear):
            expected = float(
                np.sqrt(
                    np.sum(module.weight.grad.double().numpy() ** 2)
                    + np.sum(module.bias.grad.double().numpy() ** 2)
                )
            )
            (line,) = [t for t in boxes[label] if "norm" in t]
            assert printed_close(re.search(r"norm\s+([-+0-9.e]+)", line).group(1), expected), (label, line)


class InputProjectedRNN(nn.Module):
    """h_t = tanh(input(x_t) + hidden(h_{t-1})): the input projections need nothing of each other."""

    def __init__(self):
        super().__init__()
        self.input = nn.Linear(3, 4)
        self.hidden = nn.Linear(4, 4)

    def forward(self, xs):
        h = agv.zeros(2, 4)
        for x in xs:
            h = (self.input(x) + self.hidden(h)).tanh()
        return h


def test_independent_calls_are_numbered_by_the_step_that_uses_them():
    agv.manual_seed(0)
    rnn = InputProjectedRNN()
    xs = [agv.randn(2, 3) for _ in range(4)]
    loss = rnn(xs).sum()
    view = agv.draw(loss, model=rnn, layers=True)
    by_key = {layer.key: layer for layer in view.layers.values()}
    assert sorted(by_key) == sorted(
        [f"input[{t}]" for t in range(1, 5)] + [f"hidden[{t}]" for t in range(1, 5)]
    )
    # input[t] is the call on x_t: its input node is none (x_t is data), and the value it made is
    # W x_t + b, computed here independently for each t
    w, b = rnn.input.weight.detach().numpy(), rnn.input.bias.detach().numpy()
    for t, x in enumerate(xs, start=1):
        made = by_key[f"input[{t}]"].output.output
        np.testing.assert_allclose(made, x.numpy() @ w.T + b, rtol=1e-6)
