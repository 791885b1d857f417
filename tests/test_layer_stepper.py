"""BackwardStepper(loss, model=m) on a network: layer by layer, with step into / out
(issue 24, items 4, 6 and 7).

The oracles are independent of the stepper's output: PyTorch's gradients of the
same model (weights copied), an op-level walk recorded separately
(trace.record), the layers found by viz.modules.module_layers, trace.state_at
(the old per-frame replay) for the marks, and the JSON size of the synced state.
"""

from __future__ import annotations

import gc
import json
import re
import sys
import weakref
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from _real_models import mlp  # noqa: E402  (tests/ is on sys.path under pytest)

import autogradviz as agv
import autogradviz.nn as nn
from autogradviz import engine
from autogradviz.core.protocol import AUTOGRADVIZ
from autogradviz.viz.modules import module_layers
from autogradviz.widgets import trace
from autogradviz.widgets.stepper import FIT_WIDTH_PX, QUIZ_MAX_VALUES, READABLE_PX

SVG = "{http://www.w3.org/2000/svg}"
LABELS = ["0 Linear(4, 16)", "1 ReLU()", "2 Linear(16, 16)", "3 ReLU()", "4 Linear(16, 3)"]
# the layer view's steps, in backward order: the loss's own ops, then the modules from the last
LAYER_STEPS = ["log_softmax, nll_loss", *reversed(LABELS)]
_NUMBER = r"([-+0-9.e]+)"


# -- models ---------------------------------------------------------------------------------


def stepper(loss, model, **options):
    return agv.BackwardStepper(loss, model=model, names={"loss": loss}, language="en", **options)


def torch_copy(model):
    """The same MLP in PyTorch, with the agv model's weights."""
    torch = pytest.importorskip("torch")
    copy = torch.nn.Sequential(
        torch.nn.Linear(4, 16),
        torch.nn.ReLU(),
        torch.nn.Linear(16, 16),
        torch.nn.ReLU(),
        torch.nn.Linear(16, 3),
    )
    with torch.no_grad():
        for (name, p), (torch_name, q) in zip(model.named_parameters(), copy.named_parameters()):
            assert name == torch_name
            q.copy_(torch.from_numpy(np.array(p.detach().numpy())))
    return copy


def torch_grads(model, x, y):
    """PyTorch's gradients of the copied model: at every module's output (dY), and its parameters'."""
    torch = pytest.importorskip("torch")
    tm = torch_copy(model)
    h = torch.from_numpy(np.array(x.numpy()))
    outputs = []
    for module in tm:
        h = module(h)
        h.retain_grad()
        outputs.append(h)
    loss = torch.nn.functional.cross_entropy(h, torch.from_numpy(np.array(y.numpy()).astype(np.int64)))
    loss.backward()
    return tm, [out.grad.double().numpy() for out in outputs]


def norm(array) -> float:
    return float(np.linalg.norm(np.asarray(array, dtype=np.float64).reshape(-1)))


def printed_close(printed: str, value: float) -> bool:
    """Is `printed` (4 decimals, trailing zeros trimmed, or %.4g) `value`, to its printed precision?"""
    mantissa, _, exponent = printed.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    unit = 10.0 ** (-decimals) * (10.0 ** int(exponent) if exponent else 1.0)
    return abs(float(printed) - value) <= 0.5 * unit * (1 + 1e-6) + 1e-12


def panel_number(panel: str, pattern: str) -> str:
    found = re.search(pattern + r"[^<]*?norm " + _NUMBER, panel)
    assert found, (pattern, panel)
    return found.group(1)


def panel_shows(panel: str, pattern: str, value) -> bool:
    """Does the panel's line starting with `pattern` show `value`: its norm (a big array),
    or its numbers (up to 6 of them, printed to 4 decimals)?"""
    value = np.asarray(value, dtype=np.float64)
    if value.size > 6:
        return printed_close(panel_number(panel, pattern), norm(value))
    found = re.search(pattern + r"[^<]*<code>([^<]*)</code>", panel)
    assert found, (pattern, panel)
    printed = re.findall(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?", found.group(1))
    return len(printed) == value.size and all(printed_close(p, v) for p, v in zip(printed, value.reshape(-1)))


def svg_boxes(svg: str) -> dict[str, tuple[set[str], list[str]]]:
    """SVG node id -> (its classes, its texts)."""
    root = ET.fromstring(svg)
    return {
        g.get("id"): (set(g.get("class", "").split()), [t.text or "" for t in g.iter(SVG + "text")])
        for g in root.iter(SVG + "g")
        if (g.get("id") or "").startswith("agv-")
    }


def state_of(classes: set[str]) -> str | None:
    found = [c.removeprefix("agv-s-") for c in classes if c.startswith("agv-s-")]
    assert len(found) <= 1, classes
    return found[0] if found else None


def box_with_text(boxes: dict, text: str) -> str:
    (found,) = [box_id for box_id, (_, texts) in boxes.items() if text in texts]
    return found


# -- the layer view -----------------------------------------------------------------------------


def test_mlp_stepper_has_one_step_per_layer_in_backward_order():
    model, _, _, loss = mlp()
    s = stepper(loss, model)
    assert s.last == len(LAYER_STEPS) == 6
    assert len(s.frames) == s.last + 1
    for j, name in enumerate(LAYER_STEPS, start=1):
        title = s.frames[j]["title"]
        assert title.startswith(f"Layer step {j} of 6") and title.endswith(name), title
    assert "6 layer steps" in s.frames[0]["title"] and "16 ops" in s.frames[0]["title"]
    # "Step into" from a frame opens the layer just run (nothing before the first module)
    assert [frame["into"] for frame in s.frames] == [None, None, "4", "3", "2", "1", "0"]
    assert sorted(s.modules.values()) == ["0", "1", "2", "3", "4"]
    assert sorted(s.details) == ["0", "1", "2", "3", "4"]
    for j, key in enumerate(["4", "3", "2", "1", "0"], start=2):
        assert (s.details[key]["enter"], s.details[key]["leave"]) == (j - 1, j), key
        assert s.details[key]["title"] == LABELS[int(key)]
    # a layer's gradients are too many numbers to type: the layer view has no quiz
    assert all(frame["quiz"] is None for frame in s.frames)


def test_layer_chunks_are_the_op_walk_grouped_with_no_second_backward(monkeypatch):
    model, _, _, loss = mlp()
    walks = []
    original = engine.backward_steps

    def counted(*args, **kwargs):
        walks.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(engine, "backward_steps", counted)
    s = stepper(loss, model)
    assert len(walks) == 1  # one walk of the engine built every view
    assert all(p.grad is None for p in model.parameters())  # and it wrote no .grad
    monkeypatch.setattr(engine, "backward_steps", original)

    walk = trace.record(loss)  # the op-level walk, recorded on its own
    walk_nodes = [step.node for step in walk]
    assert len(set(walk_nodes)) == len(walk_nodes) == 16
    assert [step.node for step in s.steps] == walk_nodes  # the stepper's steps: the same nodes, same order
    layer_of = module_layers([loss.grad_fn])
    chunks = trace.chunks(s.steps, layer_of)
    assert len(chunks) == s.last
    grouped = [step.node for chunk in chunks for step in chunk.steps]
    assert len(grouped) == len(set(grouped)) and set(grouped) == set(walk_nodes)  # each node once
    assert [chunk.layer.label if chunk.layer else None for chunk in chunks] == [None, *reversed(LABELS)]
    for chunk in chunks:
        if chunk.layer is None:
            assert {step.op for step in chunk.steps} == {"log_softmax", "nll_loss"}
            continue
        assert all(step.node in chunk.layer.nodes for step in chunk.steps)
        # each detail: one frame before the layer's first step, one after each of its steps
        assert len(s.details[chunk.layer.key]["frames"]) == len(chunk.steps) + 1
        params = [step.leaf for step in chunk.steps if step.leaf is not None]
        assert {id(p) for p in params} == {id(p) for p in model[int(chunk.layer.key)].parameters()}


def test_layer_panels_show_torch_gradient_norms_and_real_shapes():
    model, x, y, loss = mlp()
    tm, dy = torch_grads(model, x, y)  # dy[i]: the gradient at module i's output
    s = stepper(loss, model)
    # the loss step sends dlogits, the gradient at the last module's output
    assert printed_close(panel_number(s.frames[1]["panel"], "dX:"), norm(dy[4]))
    for j, index in enumerate([4, 3, 2, 1, 0], start=2):
        panel = s.frames[j]["panel"]
        assert printed_close(panel_number(panel, "dY:"), norm(dy[index])), (index, panel)
        if index > 0:  # what module `index` sends to its input is the gradient at the output before it
            assert printed_close(panel_number(panel, "dX:"), norm(dy[index - 1])), (index, panel)
            assert "shape " + str(dy[index - 1].shape) in panel
        else:
            assert "dX:" not in panel  # x needs no gradient: nothing is sent to it
        module = tm[index]
        if isinstance(module, type(tm[0])):  # Linear
            w, b = module.weight.grad.double().numpy(), module.bias.grad.double().numpy()
            assert panel_shows(panel, f"Gradient of {index}.weight", w)
            assert panel_shows(panel, f"Gradient of {index}.bias", b)  # 4.bias: its 3 numbers
            # the matrix form, with the real shapes: dX = dY·W, dW = dYᵀ·X, db = Σ dY
            n, out_f, in_f = dy[index].shape[0], module.out_features, module.in_features
            assert f"({n}, {out_f})·({out_f}, {in_f}) → ({n}, {in_f})" in panel
            assert f"({out_f}, {n})·({n}, {in_f}) → ({out_f}, {in_f})" in panel
            assert f"→ ({out_f},)" in panel
        else:
            assert "Gradient of" not in panel  # ReLU has no parameters
            assert "1[X &gt; 0]" in panel  # its mask


def test_first_linear_panel_has_the_real_shapes_in_matrix_form():
    model, _, _, loss = mlp()
    panel = stepper(loss, model).frames[6]["panel"]  # layer 0, the last step
    assert "0 Linear(4, 16)" in panel
    assert "(8, 16)·(16, 4) → (8, 4)" in panel and "(16, 8)·(8, 4) → (16, 4)" in panel


# -- step into / step out ---------------------------------------------------------------------------


def test_step_into_and_out_move_between_the_views():
    model, _, _, loss = mlp()
    s = stepper(loss, model)
    s.goto(4)  # layer 2 has just run
    assert s.step_into() == "2"
    assert (s.detail, s.detail_position) == ("2", 0)
    assert s.step_out() == 4 and s.position == s.details["2"]["leave"] and s.detail == ""
    s.goto(0)
    assert s.step_into("3") == "3" and s.detail == "3"
    assert s.step_out() == s.details["3"]["leave"] == 3  # just after that layer's step
    assert s.details["3"]["enter"] == 2
    with pytest.raises(RuntimeError, match="no layer is open"):
        s.step_out()
    with pytest.raises(KeyError, match=r"'nope' is not a layer of this stepper.*'0'"):
        s.step_into("nope")
    s.goto(1)  # the loss's ops: no module to open
    assert s.frames[1]["into"] is None
    with pytest.raises(KeyError):
        s.step_into()


def test_frame_svg_marks_the_layer_view():
    model, _, _, loss = mlp()
    s = stepper(loss, model)
    boxes = svg_boxes(s.frame_svg(4))  # after layer step 4: "2 Linear(16, 16)"
    state = {label: state_of(boxes[box_with_text(boxes, label)][0]) for label in LABELS}
    assert state == {
        "4 Linear(16, 3)": "done",
        "3 ReLU()": "done",
        "2 Linear(16, 16)": "current",
        "1 ReLU()": "waiting",  # layer 2 has sent it its gradient
        "0 Linear(4, 16)": None,  # nothing has reached it yet
    }
    for op in ("log_softmax", "nll_loss"):
        assert state_of(boxes[box_with_text(boxes, op)][0]) == "done"
    start = svg_boxes(s.frame_svg(0))
    assert all(state_of(start[box_with_text(start, label)][0]) is None for label in LABELS)
    end = svg_boxes(s.frame_svg(s.last))
    assert state_of(end[box_with_text(end, "0 Linear(4, 16)")][0]) == "current"
    assert all(state_of(end[box_with_text(end, label)][0]) == "done" for label in LABELS[1:])


def test_frame_svg_marks_a_layer_opened_op_by_op():
    model, _, _, loss = mlp()
    s = stepper(loss, model)
    s.goto(4)
    s.step_into()  # "2"
    chunk = trace.chunks(s.steps, module_layers([loss.grad_fn]))[3]  # after the loss, 4 and 3
    assert chunk.layer.key == "2"
    assert [step.name for step in chunk.steps][:2] == ["AddmmBackward0", "TBackward0"]
    before = svg_boxes(s.frame_svg(0, layer="2"))
    addmm = box_with_text(before, "addmm")
    transpose = box_with_text(before, "t")
    assert state_of(before[addmm][0]) == "waiting"  # its gradient has arrived, it has not run
    # frame 0 is the layer view at `enter`: the layer run just before is current there, the rest done
    assert state_of(before[box_with_text(before, "4 Linear(16, 3)")][0]) == "done"
    assert state_of(before[box_with_text(before, "3 ReLU()")][0]) == "current"
    top = svg_boxes(s.frame_svg(s.details["2"]["enter"]))
    assert state_of(top[box_with_text(top, "3 ReLU()")][0]) == "current"
    assert state_of(before[box_with_text(before, "0 Linear(4, 16)")][0]) is None
    first = svg_boxes(s.frame_svg(1, layer="2"))
    assert state_of(first[addmm][0]) == "current"
    assert state_of(first[transpose][0]) == "waiting"
    assert state_of(first[box_with_text(first, "1 ReLU()")][0]) == "waiting"
    second = svg_boxes(s.frame_svg(2, layer="2"))
    assert state_of(second[addmm][0]) == "done" and state_of(second[transpose][0]) == "current"
    weight = svg_boxes(s.frame_svg(3, layer="2"))
    assert state_of(weight[box_with_text(weight, "2.weight")][0]) == "current"
    last = len(s.details["2"]["frames"]) - 1
    end = svg_boxes(s.frame_svg(last, layer="2"))
    assert all(state_of(end[box][0]) == "done" for box in (addmm, transpose))
    # the default picture is the open layer's, at its position
    s.detail_position = 1
    assert s.frame_svg() == s.frame_svg(1, layer="2")
    with pytest.raises(IndexError):
        s.frame_svg(last + 1, layer="2")


# -- the timeline reproduces the per-frame replay ------------------------------------------------


def abd():
    a = agv.tensor(2.0, requires_grad=True)
    b = agv.tensor(5.0, requires_grad=True)
    d = agv.tensor(4.0, requires_grad=True)
    c = a * b
    e = c * d
    return e, {"a": a, "b": b, "c": c, "d": d, "e": e}


def paths_meeting():
    a = agv.tensor([1.0, -2.0], requires_grad=True)
    b = agv.tensor([3.0, 0.5], requires_grad=True)
    c = a * b
    e = (c + a).sin() * c
    y = e.sum()
    return y, {"a": a, "b": b, "c": c, "e": e, "y": y}


@pytest.mark.parametrize("graph", [abd, paths_meeting])
def test_timeline_marks_reproduce_state_at_for_every_position(graph):
    root, names = graph()
    s = agv.BackwardStepper(root, names=names)
    assert not s.modules and not s.details  # a toy graph steps op by op
    view = agv.draw(root, names=names, fit_width_px=FIT_WIDTH_PX, min_text_px=READABLE_PX)
    assert view.source == agv.draw(root, names=names, fit_width_px=590, min_text_px=10).source
    node_of = {}
    for svg_id, box in view.boxes:
        ref = box.ref
        node = AUTOGRADVIZ.node(ref) if AUTOGRADVIZ.is_tensor(ref) else ref
        if node is not None:
            node_of[svg_id] = node
    seed = np.ones(())
    for p in range(s.last + 1):
        now = trace.state_at(s.steps, p, root.grad_fn, seed)
        expected = {}
        for svg_id, node in node_of.items():  # the old frames' rule: current over waiting over done
            if node is now.current:
                expected[svg_id] = "current"
            elif node in now.waiting:
                expected[svg_id] = "waiting"
            elif node in now.done:
                expected[svg_id] = "done"
        from_timeline = {
            svg_id: state
            for svg_id, marks in s.timeline.items()
            if (state := trace.state_class(marks, p)) is not None
        }
        assert from_timeline == expected, p
        painted = {
            box_id: state
            for box_id, (classes, _) in svg_boxes(s.frame_svg(p)).items()
            if (state := state_of(classes)) is not None
        }
        assert painted == expected, p


# -- size: linear in the graph ------------------------------------------------------------------------


def chain(n_ops: int):
    """benchmarks/bench_stepper.build_graph: n_ops elementwise ops with fan-out, one backward node each."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from bench_stepper import build_graph

    return build_graph(n_ops)


def test_the_synced_state_grows_linearly_with_the_graph():
    sizes, biggest = {}, {}
    for n in (200, 800):
        s = agv.BackwardStepper(chain(n), names=False, max_nodes=10_000)
        assert s.last >= n  # every node is a step
        sizes[n] = len(json.dumps(s.frames)) + len(json.dumps(s.timeline))
        biggest[n] = max(len(json.dumps(frame)) for frame in s.frames)
        assert len(s.timeline) > 2 * (n - 1)  # every box has its marks: nothing elided
        s.close()
    assert sizes[800] / sizes[200] < 5  # 4x the ops: about 4x the state, not 16x
    assert biggest[800] < 2 * biggest[200]  # a frame holds no entry per box


# -- the PyTorch bridge -------------------------------------------------------------------------------


def test_torch_model_steps_like_the_agv_model_and_apply_writes_torch_gradients():
    torch = pytest.importorskip("torch")
    model, x, y, loss = mlp()
    tm = torch_copy(model)
    tx, ty = torch.from_numpy(np.array(x.numpy())), torch.from_numpy(np.array(y.numpy()).astype(np.int64))
    with agv.torch.trace(tm):
        tloss = torch.nn.functional.cross_entropy(tm(tx), ty)
    ts = agv.BackwardStepper(tloss, model=tm, names={"loss": tloss}, language="en")
    s = stepper(loss, model)
    assert ts.last == s.last == 6
    assert [f["title"] for f in ts.frames] == [f["title"] for f in s.frames]
    assert [f["into"] for f in ts.frames] == [f["into"] for f in s.frames]
    assert sorted(ts.details) == sorted(s.details)
    for key in s.details:
        assert len(ts.details[key]["frames"]) == len(s.details[key]["frames"]), key
    # the same formulas with the same shapes
    math = re.compile(r'<div class="agv-layer-math">.*?</div>')
    for mine, theirs in zip(s.frames, ts.frames):
        assert math.findall(mine["panel"]) == math.findall(theirs["panel"])
    # the torch panel's numbers are torch's gradients too
    _, dy = torch_grads(model, x, y)
    assert printed_close(panel_number(ts.frames[4]["panel"], "dY:"), norm(dy[2]))
    # stepping wrote nothing; apply() runs torch's backward once
    assert all(p.grad is None for p in tm.parameters())
    ts.apply()
    plain = torch_copy(model)
    torch.nn.functional.cross_entropy(plain(tx), ty).backward()
    for (name, p), (_, q) in zip(tm.named_parameters(), plain.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-6, atol=1e-7, err_msg=name)


# -- quiz ------------------------------------------------------------------------------------------------


def test_quiz_asks_only_for_gradients_of_at_most_64_values():
    assert QUIZ_MAX_VALUES == 64
    big = agv.tensor(np.linspace(-1.0, 1.0, 65), requires_grad=True)  # 65 values
    small = agv.tensor(np.arange(64.0).reshape(8, 8), requires_grad=True)  # exactly 64
    y = (big * 2.0).sum() + (small * 3.0).sum()
    s = agv.BackwardStepper(y, names={"big": big, "small": small, "y": y})
    seen = set()
    for p in range(s.last):
        step = s.steps[p]  # the step frame p asks about
        if step.name != "MulBackward0":
            continue
        quiz = s.frames[p]["quiz"]
        target = step.node.edges[0]
        s.goto(p)
        if target is AUTOGRADVIZ.node(big):
            seen.add("big")
            assert quiz["targets"] == [] and quiz["expected"] == []
            assert s.check(np.zeros(65))[0]  # nothing to predict: any answer passes
        else:
            assert target is AUTOGRADVIZ.node(small)
            seen.add("small")
            assert len(quiz["targets"]) == 1
            assert quiz["expected"] == [[3.0] * 64]  # d(3·small)/d small, times an upstream of ones
            assert s.check(np.full((8, 8), 3.0))[0]
            assert not s.check(np.full((8, 8), 2.0))[0]
    assert seen == {"big", "small"}


def test_layer_details_quiz_small_gradients_with_torchs_values():
    model, x, y, loss = mlp()
    tm, _ = torch_grads(model, x, y)
    s = stepper(loss, model)
    frames = s.details["4"]["frames"]
    assert "AddmmBackward0" in frames[1]["title"] and "TBackward0" in frames[2]["title"]
    # before addmm: it sends (8, 16) = 128 values to the layer's input, too many to type
    assert frames[0]["quiz"]["targets"] == []
    # before t: it sends Wᵀ's gradient, (3, 16) = 48 values, to 4.weight: asked for
    quiz = frames[1]["quiz"]
    assert len(quiz["targets"]) == 1 and "4.weight" in quiz["targets"][0]
    np.testing.assert_allclose(
        quiz["expected"][0], tm[4].weight.grad.numpy().reshape(-1), rtol=1e-5, atol=1e-7
    )


# -- escaping ---------------------------------------------------------------------------------------------


def test_hostile_module_names_stay_text_in_every_view(tmp_path):
    Script = type("<script>x", (nn.Module,), {"forward": lambda self, x: x.tanh() * 2})
    agv.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 4), Script(), nn.Linear(4, 2))
    loss = model(agv.randn(8, 4)).pow(2).mean()
    s = agv.BackwardStepper(loss, model=model, names={"loss": loss}, language="en")
    assert "1" in s.details
    for key in s.details:
        s.frame_svg(0, layer=key)  # lays out every layer's own picture
    html_parts = [s.svg, *(f["panel"] + f["table"] for f in s.frames)]
    for detail in s.details.values():
        html_parts.append(detail["svg"])
        html_parts.extend(f["panel"] + f["table"] for f in detail["frames"])
    assert all("<script" not in part.lower() for part in html_parts)
    assert any("&lt;script&gt;x()" in part for part in html_parts)
    page = s.to_html(tmp_path / "page.html").read_text(encoding="utf-8")
    assert page.lower().count("<script") == 2  # the page's own two scripts: the state and the module


# -- close() --------------------------------------------------------------------------------------------


def test_close_frees_the_graph_of_a_layered_stepper():
    model, _, _, loss = mlp()
    s = stepper(loss, model)
    s.goto(4)
    s.step_into()  # a laid-out layer view, and others not laid out yet
    refs = {
        "root": weakref.ref(loss),
        "root node": weakref.ref(loss.grad_fn),
        "inner node": weakref.ref(s.steps[6].node),
        "gradient": weakref.ref(s.steps[6].upstream),
    }
    del loss
    gc.collect()
    assert refs["root node"]() is not None  # the stepper still holds the graph
    s.close()
    gc.collect()
    assert {name: ref() is None for name, ref in refs.items()} == dict.fromkeys(refs, True)
    assert s.frames == [] and s.details == {} and s.modules == {} and s.timeline == {}
    assert model[0].weight.grad is None  # close writes nothing


# -- an unrolled RNN ------------------------------------------------------------------------------------------


class UnrolledRNN(nn.Module):
    """One Linear cell called 5 times: h = tanh(cell(h) + x_t)."""

    def __init__(self):
        super().__init__()
        self.cell = nn.Linear(3, 3)

    def forward(self, xs):
        h = agv.zeros(2, 3)
        for x in xs:
            h = (self.cell(h) + x).tanh()
        return h


def test_unrolled_rnn_steps_call_by_call_backwards_each_node_once():
    agv.manual_seed(0)
    rnn = UnrolledRNN()
    loss = rnn([agv.randn(2, 3) for _ in range(5)]).sum()
    s = agv.BackwardStepper(loss, model=rnn, names={"loss": loss}, language="en")
    assert sorted(s.details) == [f"cell[{k}]" for k in range(1, 6)]  # one view per call, no repeats
    cells = [f["title"].split(": ", 1)[1] for f in s.frames[1:] if "cell[" in f["title"]]
    assert cells == [f"cell[{k}] Linear(3, 3)" for k in range(5, 0, -1)]  # backward: the last call first
    walk = [step.node for step in trace.record(loss)]
    chunks = trace.chunks(s.steps, module_layers([loss.grad_fn]))
    grouped = [step.node for chunk in chunks for step in chunk.steps]
    assert len(chunks) == s.last and len(grouped) == len(set(grouped)) == len(walk)
    assert set(grouped) == set(walk)
    # the shared weight and bias are written once each, after their last use (the first call)
    shared = [step for step in s.steps if step.leaf is not None]
    assert {id(step.leaf) for step in shared} == {id(rnn.cell.weight), id(rnn.cell.bias)}
    assert len(shared) == 2
