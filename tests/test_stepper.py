"""BackwardStepper without a browser (issue 4): the recorded steps, the headless
API, the quiz, the SVG frames, and the widget's Python side.

Expected numbers are worked out by hand from the chain rule, then checked
against a fresh `backward()` on an identical graph (and torch for the MLP).
"""

from __future__ import annotations

import json
import random
import re
import xml.etree.ElementTree as ET

import ipywidgets
import numpy as np
import pytest
import traitlets

import autogradviz as agv
from autogradviz.viz.labels import preview

SVG = "{http://www.w3.org/2000/svg}"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


# -- graphs ------------------------------------------------------------------------------


def seed_graph():
    """The issue's seed example: e = (a*b)*d with a=2, b=5, d=4, so c = 10, e = 40."""
    a = agv.tensor(2.0, requires_grad=True)
    b = agv.tensor(5.0, requires_grad=True)
    d = agv.tensor(4.0, requires_grad=True)
    c = a * b
    e = c * d
    return {"a": a, "b": b, "c": c, "d": d, "e": e}


def seed_stepper(**options):
    g = seed_graph()
    return g, agv.BackwardStepper(g["e"], names=g, **options)


def fresh_backward(build, root="e", retain=()):
    """The gradients a plain backward() gives on a new, identical graph."""
    g = build()
    for name in retain:
        g[name].retain_grad()
    g[root].backward()
    return g


def value(tensor):
    return None if tensor is None else tensor.numpy()


def chain(n=1000):
    """A chain of n ops on one leaf: y = ((x*1.001)+1)*1.001 ... (no fan-out)."""
    x = agv.tensor([0.5, -1.0], requires_grad=True)
    y = x
    for i in range(n - 1):
        y = y * 1.001 if i % 2 else y + 1.0
    return {"x": x, "y": y.sum()}


MLP_SEED = 0


def mlp(lib="agv"):
    """A two-layer MLP loss on fixed numbers: relu, log_softmax, pick the labels, mean."""
    rng = np.random.default_rng(MLP_SEED)
    arrays = {
        "x": rng.normal(size=(4, 3)),
        "W1": rng.normal(size=(3, 5)),
        "b1": rng.normal(size=5),
        "W2": rng.normal(size=(5, 2)),
        "b2": rng.normal(size=2),
    }
    labels = [0, 1, 1, 0]
    if lib == "torch":
        torch = pytest.importorskip("torch")
        t = {k: torch.tensor(v, dtype=torch.float32, requires_grad=k != "x") for k, v in arrays.items()}
        rows, picked = torch.arange(4), torch.tensor(labels)
    else:
        t = {k: agv.tensor(v.astype(np.float32), requires_grad=k != "x") for k, v in arrays.items()}
        rows, picked = agv.arange(4), agv.tensor(labels)
    h = (t["x"] @ t["W1"] + t["b1"]).relu()
    logp = (h @ t["W2"] + t["b2"]).log_softmax(dim=1)
    loss = -logp[rows, picked].mean()
    return {**t, "h": h, "logp": logp, "loss": loss}


# -- e = (a*b)*d -------------------------------------------------------------------------


def test_seed_steps_in_order_with_hand_computed_values():
    g, s = seed_stepper()
    assert [step.name for step in s.steps] == [
        "MulBackward0",  # e = c*d
        "AccumulateGrad",  # d
        "MulBackward0",  # c = a*b
        "AccumulateGrad",  # b
        "AccumulateGrad",  # a
    ]
    assert [step.index for step in s.steps] == [0, 1, 2, 3, 4]
    assert [step.leaf for step in s.steps if step.leaf is not None] == [g["d"], g["b"], g["a"]]
    mul_e, acc_d, mul_c, acc_b, acc_a = s.steps

    # de/de = 1 arrives; ∂(c·d)/∂c = d = 4, ∂(c·d)/∂d = c = 10
    assert mul_e.upstream == 1
    assert mul_e.op == "*" and "∂(a·b)/∂a = b" in mul_e.rules
    assert [(x.input, x.target_name) for x in mul_e.sent] == [(0, "c"), (1, "d")]
    assert [float(x.local) for x in mul_e.sent] == [4, 10]
    assert [float(x.product) for x in mul_e.sent] == [4, 10]
    assert [float(x.value) for x in mul_e.sent] == [4, 10]
    assert all(x.before is None and x.reduced_axes is None for x in mul_e.sent)
    assert mul_e.sent[0].target is g["c"].grad_fn

    assert acc_d.upstream == 10 and acc_d.leaf_before is None and acc_d.leaf_after == 10 and acc_d.sent == []

    # 4 arrives at c; ∂(a·b)/∂a = b = 5, ∂(a·b)/∂b = a = 2
    assert mul_c.upstream == 4
    assert [(x.target_name, float(x.local), float(x.value)) for x in mul_c.sent] == [
        ("a", 5, 20),
        ("b", 2, 8),
    ]
    assert (acc_b.upstream, acc_b.leaf_after) == (8, 8)
    assert (acc_a.upstream, acc_a.leaf_after) == (20, 20)


def test_seed_steps_are_the_engines_own_walk():
    g, s = seed_stepper()
    seed = agv.ones_like(g["e"])
    walk = list(agv.backward_steps([g["e"]], [seed], retain_graph=True, accumulate=False))
    assert [w.node for w in walk] == [step.node for step in s.steps]
    assert all(t.grad is None for t in (g["a"], g["b"], g["d"]))


def test_seed_state_at_the_end_equals_backward():
    g, s = seed_stepper()
    assert s.run_to_end() == s.last == 5
    state = s.state()
    got = {name: float(value(state[g[name]])) for name in "abcde"}
    assert got == {"a": 20, "b": 8, "c": 4, "d": 10, "e": 1}

    ref = fresh_backward(seed_graph, retain="c")
    for name in "abcd":
        np.testing.assert_array_equal(value(state[g[name]]), value(ref[name].grad))
    assert isinstance(state[g["a"]], agv.Tensor)


def test_seed_state_position_by_position():
    g, s = seed_stepper()
    # leaves: None until their AccumulateGrad has run; c, e: what has arrived
    expected = [
        {"a": None, "b": None, "c": None, "d": None, "e": 1},
        {"a": None, "b": None, "c": 4, "d": None, "e": 1},
        {"a": None, "b": None, "c": 4, "d": 10, "e": 1},
        {"a": None, "b": None, "c": 4, "d": 10, "e": 1},
        {"a": None, "b": 8, "c": 4, "d": 10, "e": 1},
        {"a": 20, "b": 8, "c": 4, "d": 10, "e": 1},
    ]
    for position, want in enumerate(expected):
        s.goto(position)
        state = s.state()
        got = {k: None if state[g[k]] is None else float(value(state[g[k]])) for k in "abcde"}
        assert got == want, position


def test_seed_agrees_with_torch():
    torch = pytest.importorskip("torch")
    g, s = seed_stepper()
    s.run_to_end()
    t = {k: torch.tensor(v, requires_grad=True) for k, v in {"a": 2.0, "b": 5.0, "d": 4.0}.items()}
    ((t["a"] * t["b"]) * t["d"]).backward()
    state = s.state()
    for k in "abd":
        assert float(value(state[g[k]])) == t[k].grad.item()


def test_seed_panel_and_table_say_the_numbers():
    g, s = seed_stepper()
    s.goto(3)  # the MulBackward0 of c = a*b has just run
    frame = s.frames[3]
    assert frame["title"] == "Step 3 of 5: MulBackward0"
    assert "gradient arriving (upstream): <code>4</code>" in frame["panel"]
    assert (
        "to <b>a</b> (input 1): upstream × local = <code>4</code> × <code>5</code> = <code>20</code>"
        in (frame["panel"])
    )
    assert (
        "to <b>b</b> (input 2): upstream × local = <code>4</code> × <code>2</code> = <code>8</code>"
        in (frame["panel"])
    )
    table = frame["table"]
    assert "<td>d</td><td><code>10</code></td><td>written</td>" in table
    assert "<td>a</td><td><code>20</code></td><td>arriving</td>" in table
    assert "<td>c</td><td><code>4</code></td><td>complete</td>" in table
    assert (
        "AccumulateGrad" in s.frames[2]["panel"]
        and "<b>d.grad</b> was None, and becomes <code>10</code>" in (s.frames[2]["panel"])
    )
    start = s.frames[0]["panel"]
    assert "Backward starts at <b>e</b>" in start and "MulBackward0 → AccumulateGrad → MulBackward0" in start


def test_table_lists_only_tensors_of_this_graph():
    """names=locals() in a notebook brings every tensor there is."""
    g = seed_graph()
    other = agv.tensor(3.0, requires_grad=True) * 2  # another graph's tensor, with a grad_fn
    s = agv.BackwardStepper(g["e"], names={**g, "other": other})
    assert "<td>other</td>" not in s.frames[-1]["table"]
    assert other not in s.state()
    assert "<td>c</td>" in s.frames[-1]["table"]


# -- fan-out -----------------------------------------------------------------------------


def fan_out_graph():
    x = agv.tensor(3.0, requires_grad=True)
    y = x * x + x  # x used three times: dy/dx = 2x + 1 = 7
    return {"x": x, "y": y}


def test_fan_out_three_uses_add_up():
    g = fan_out_graph()
    s = agv.BackwardStepper(g["y"], names=g)
    assert [step.name for step in s.steps] == ["AddBackward0", "MulBackward0", "AccumulateGrad"]
    add, mul, acc = s.steps
    # AddBackward0 sends 1 to x*x and 1 straight to x
    assert [(x.target_name, float(x.value), x.before) for x in add.sent] == [
        ("MulBackward0", 1, None),
        ("x", 1, None),
    ]
    # x*x sends 1·x = 3 twice; each time it meets what x already holds
    assert [(float(x.before), float(x.value), float(x.after)) for x in mul.sent] == [(1, 3, 4), (4, 3, 7)]
    for sent in mul.sent:
        assert sent.before + sent.value == sent.after
    assert acc.upstream == 7 and acc.leaf_after == 7

    panel = s.frames[2]["panel"]
    assert "paths meet at <b>x</b>: <code>1</code> + <code>3</code> = <code>4</code>" in panel
    assert "paths meet at <b>x</b>: <code>4</code> + <code>3</code> = <code>7</code>" in panel
    assert "paths meet" not in s.frames[1]["panel"]

    s.run_to_end()
    assert float(value(s.state()[g["x"]])) == 7 == float(value(fresh_backward(fan_out_graph, "y")["x"].grad))


def test_fan_out_across_nodes():
    def build():
        a = agv.tensor([2.0, -1.0], requires_grad=True)
        b = agv.tensor([3.0, 0.5], requires_grad=True)
        z = (a * b + a).sum()  # dz/da = b + 1, dz/db = a
        return {"a": a, "b": b, "z": z}

    g = build()
    s = agv.BackwardStepper(g["z"], names=g)
    merges = [(step.name, x) for step in s.steps for x in step.sent if x.before is not None]
    assert len(merges) == 1
    name, merge = merges[0]
    assert name == "MulBackward0" and merge.target_name == "a"
    np.testing.assert_array_equal(merge.before, [1, 1])  # from the + path
    np.testing.assert_array_equal(merge.value, [3, 0.5])  # upstream 1 × b
    np.testing.assert_array_equal(merge.after, merge.before + merge.value)
    k = next(i for i, step in enumerate(s.steps) if step.name == "MulBackward0") + 1
    assert (
        "paths meet at <b>a</b>: <code>[1., 1.]</code> + <code>[3.0, 0.5]</code> = <code>[4.0, 1.5]</code>"
        in (s.frames[k]["panel"])
    )
    s.run_to_end()
    ref = fresh_backward(build, "z")
    for name in "ab":
        np.testing.assert_array_equal(value(s.state()[g[name]]), value(ref[name].grad))


# -- broadcasting ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "w_shape, axes, expected",
    [((3,), (0,), [2.0, 2.0, 2.0]), ((2, 1), (1,), [[3.0], [3.0]]), ((1, 3), (0,), [[2.0, 2.0, 2.0]])],
)
def test_broadcast_reduction_is_recorded_and_shown(w_shape, axes, expected):
    def build():
        x = agv.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
        w = agv.tensor(np.ones(w_shape), requires_grad=True)
        return {"x": x, "w": w, "z": (x + w).sum()}

    g = build()
    s = agv.BackwardStepper(g["z"], names=g)
    k, add = next((i, step) for i, step in enumerate(s.steps) if step.name == "AddBackward0")
    to_x, to_w = add.sent
    assert to_x.reduced_axes is None and to_x.value.shape == (2, 3)
    assert to_w.target_name == "w"
    assert to_w.reduced_axes == axes and to_w.shape_before == (2, 3)
    assert to_w.product.shape == (2, 3) and to_w.value.shape == w_shape
    np.testing.assert_array_equal(to_w.value, expected)
    panel = s.frames[k + 1]["panel"]
    assert f"summed over axes {axes}, shape (2, 3) → {w_shape}" in panel
    assert preview(np.asarray(expected, dtype=np.float32)) in panel
    s.run_to_end()
    ref = fresh_backward(build, "z")
    np.testing.assert_array_equal(value(s.state()[g["w"]]), value(ref["w"].grad))


# -- a 1,000-node chain ------------------------------------------------------------------


@pytest.fixture(scope="module")
def long_chain():
    g = chain(1000)
    return g, agv.BackwardStepper(g["y"], names=g)


def test_chain_stepping_to_the_end_matches_backward(long_chain):
    g, s = long_chain
    assert len(s.steps) == 1001  # 999 ops, sum, and x's AccumulateGrad
    assert len(s.frames) == len(s.steps) + 1
    s.reset()
    while s.position < s.last:
        s.next()
    ref = fresh_backward(chain, "y")
    np.testing.assert_allclose(value(s.state()[g["x"]]), value(ref["x"].grad), rtol=0, atol=0)
    assert g["x"].grad is None


def test_chain_bounds(long_chain):
    _, s = long_chain
    assert s.reset() == 0 and s.current is None
    assert s.back() == 0
    assert s.next() == 1 and s.current is s.steps[0]
    assert s.goto(s.last) == 1001 and s.next() == 1001
    assert s.back() == 1000
    for bad in (-1, s.last + 1):
        with pytest.raises(IndexError, match="outside 0..1001"):
            s.goto(bad)
    assert s.position == 1000
    with pytest.raises(traitlets.TraitError):
        s.position = s.last + 1
    assert s.position == 1000


def test_back_and_forth_never_writes_grad_until_apply():
    g = chain(1000)
    s = agv.BackwardStepper(g["y"], names=g)
    rng = random.Random(4)
    for _ in range(300):
        move = rng.choice(["next", "back", "goto", "reset", "end"])
        if move == "goto":
            s.goto(rng.randrange(s.last + 1))
        elif move == "end":
            s.run_to_end()
        else:
            getattr(s, move)()
        s.state()
        assert g["x"].grad is None
    s.goto(17)  # apply() writes the whole backward, wherever the stepper stands
    s.apply()
    ref = fresh_backward(chain, "y")
    np.testing.assert_array_equal(g["x"].grad.numpy(), ref["x"].grad.numpy())
    s.run_to_end()
    np.testing.assert_array_equal(value(s.state()[g["x"]]), g["x"].grad.numpy())
    with pytest.raises(RuntimeError, match="already"):
        s.apply()
    np.testing.assert_array_equal(g["x"].grad.numpy(), ref["x"].grad.numpy())


def test_apply_writes_what_backward_writes_on_the_seed():
    g, s = seed_stepper()
    g["c"].retain_grad()
    for k in (5, 0, 3, 5, 1):
        s.goto(k)
    assert all(g[k].grad is None for k in "abcd")
    s.apply()
    ref = fresh_backward(seed_graph, retain="c")
    for k in "abcd":
        np.testing.assert_array_equal(g[k].grad.numpy(), ref[k].grad.numpy())


# -- quiz --------------------------------------------------------------------------------


def test_quiz_frames_expect_what_the_next_step_sends():
    _, s = seed_stepper(quiz=True)
    assert s.quiz is True
    assert s.frames[0]["quiz"]["targets"] == ["c (input 1)", "d (input 2)"]
    assert s.frames[0]["quiz"]["expected"] == [[4.0], [10.0]]
    assert s.frames[1]["quiz"]["targets"] == []  # the next step only writes d.grad
    assert "only writes .grad" in s.frames[1]["quiz"]["hint"]
    assert s.frames[2]["quiz"]["expected"] == [[20.0], [8.0]]
    assert s.frames[-1]["quiz"] is None


def test_quiz_check_right_and_wrong():
    _, s = seed_stepper(quiz=True)
    assert s.check([4, 10]) == (True, s.frames[0]["quiz"]["hint"])
    right, hint = s.check([4, 11])
    assert not right
    # the learner's names, and the other input's value: d = 4, c = a·b = 10
    assert hint == "MulBackward0: ∂(c·d)/∂c = d = 4; ∂(c·d)/∂d = c = 10. The upstream gradient is 1."
    assert s.check([10, 4])[0] is False
    assert s.check(4)[0] is False  # one answer for two inputs
    assert s.check([4.0001, 9.9999])[0] is True  # typed-in rounding is fine
    s.goto(2)
    right, hint = s.check([20, 8])
    assert right and "The upstream gradient is 4." in hint
    right, hint = s.check([8, 20])
    assert not right and "∂(a·b)/∂b = a" in hint
    assert s.position == 2  # checking never moves
    s.run_to_end()
    with pytest.raises(RuntimeError, match="walk is over"):
        s.check([1])


def test_quiz_check_vectors():
    w = agv.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x = agv.tensor(np.ones((2, 3)), requires_grad=True)
    s = agv.BackwardStepper((x * w).sum(), names={"x": x, "w": w})
    s.next()  # SumBackward0 has run: MulBackward0 is next
    assert s.check([[[1, 2, 3], [1, 2, 3]], [2, 2, 2]])[0]
    assert not s.check([[[1, 2, 3], [1, 2, 3]], [1, 1, 1]])[0]
    assert not s.check([[1, 2, 3], [2, 2, 2]])[0]  # wrong size for x's gradient


# -- frames as SVG -----------------------------------------------------------------------


def boxes(svg: str) -> list[tuple[str, str, str]]:
    """(SVG id, kind, bold title) of each drawn node: kind is param, tensor, root, op, grad_fn..."""
    found = []
    for g in ET.fromstring(svg).iter(f"{SVG}g"):
        if not g.get("id", "").startswith("agv-"):
            continue
        kind = next(
            c[4:]
            for c in g.get("class").split()
            if c.startswith("agv-") and c != "agv-node" and not c.startswith("agv-s-")
        )
        bold = [t.text for t in g.findall(f"{SVG}text") if t.get("font-weight") == "bold"]
        found.append((g.get("id"), kind, bold[0] if bold else ""))
    return found


def states(svg: str) -> dict[str, str | None]:
    """SVG id -> the state class it carries (done, current, waiting), or None."""
    out = {}
    for g in ET.fromstring(svg).iter(f"{SVG}g"):
        if g.get("id", "").startswith("agv-"):
            marks = [c[len("agv-s-") :] for c in g.get("class", "").split() if c.startswith("agv-s-")]
            assert len(marks) <= 1, g.get("class")
            out[g.get("id")] = marks[0] if marks else None
    return out


def test_frame_svg_marks_current_done_waiting_and_untouched():
    g, s = seed_stepper()
    drawn = boxes(s.svg)
    tensors = {title: svg_id for svg_id, kind, title in drawn if kind != "op"}
    ops = [svg_id for svg_id, kind, _ in drawn if kind == "op"]
    assert set(tensors) == set("abcde") and len(ops) == 2
    # forward picture: a backward node marks its output tensor (AccumulateGrad: its leaf) and the op
    expected = {
        0: {"e": "waiting"},
        1: {"e": "current", "c": "waiting", "d": "waiting"},
        2: {"e": "done", "d": "current", "c": "waiting"},
        3: {"e": "done", "d": "done", "c": "current", "a": "waiting", "b": "waiting"},
        4: {"e": "done", "d": "done", "c": "done", "b": "current", "a": "waiting"},
        5: {"e": "done", "d": "done", "c": "done", "b": "done", "a": "current"},
    }
    expected_ops = {
        0: ["-", "waiting"],
        1: ["current", "waiting"],
        2: ["done", "waiting"],
        3: ["current", "done"],
    }
    expected_ops.update({4: ["done", "done"], 5: ["done", "done"]})
    for position in range(s.last + 1):
        s.goto(position)
        svg = s.frame_svg()
        assert svg == s.frame_svg(position)
        ET.fromstring(svg)  # well-formed XML, with the stylesheet inside
        assert "<style>" in svg and 'class="agv-stepping"' in svg
        marks = states(svg)
        got = {name: marks[svg_id] for name, svg_id in tensors.items() if marks[svg_id] is not None}
        assert got == expected[position], position
        assert sorted(marks[i] or "-" for i in ops) == expected_ops[position], position
        untouched = set("abcde") - set(expected[position])
        for name in untouched:
            assert f'<g id="{tensors[name]}" class="node agv-node' in svg  # no state class at all
    assert s.frame_svg(0) != s.frame_svg(1)


def test_frame_svg_of_the_backward_kind():
    g = seed_graph()
    s = agv.BackwardStepper(g["e"], names=g, kind="backward")
    drawn = boxes(s.svg)
    assert [kind for _, kind, _ in drawn].count("grad_fn") == 2
    s.goto(3)  # MulBackward0 of c = a*b is current; d's AccumulateGrad done; a's and b's waiting
    marks = states(s.frame_svg())
    by_kind = {}
    for svg_id, kind, title in drawn:
        by_kind.setdefault(kind, []).append((title, marks[svg_id]))
    assert sorted(by_kind["grad_fn"], key=str) == [("MulBackward0", "current"), ("MulBackward0", "done")]
    assert sorted(by_kind["param"]) == [("a", "waiting"), ("b", "waiting"), ("d", "done")]
    assert by_kind["root"] == [("e", "done")]
    assert sorted(m for _, m in by_kind["accumulate"]) == ["done", "waiting", "waiting"]


# -- a two-layer MLP ---------------------------------------------------------------------


def test_mlp_stepping_first_to_last_matches_torch():
    torch_graph = mlp("torch")
    torch_graph["loss"].backward()
    g = mlp()
    s = agv.BackwardStepper(g["loss"], names=g)
    assert s.position == 0
    while s.next() < s.last:
        pass
    state = s.state()
    assert np.isclose(g["loss"].item(), torch_graph["loss"].item(), rtol=1e-5)
    for name in ("W1", "b1", "W2", "b2"):
        np.testing.assert_allclose(
            value(state[g[name]]), torch_graph[name].grad.numpy(), rtol=1e-5, atol=1e-6, err_msg=name
        )
    for name in ("h", "logp"):  # what arrived at the intermediate tensors: their retain_grad() value
        torch_graph = mlp("torch")
        torch_graph[name].retain_grad()
        torch_graph["loss"].backward()
        np.testing.assert_allclose(
            value(state[g[name]]), torch_graph[name].grad.numpy(), rtol=1e-5, atol=1e-6
        )
    assert g["x"] not in state  # a constant input has no gradient to show
    names = [step.name for step in s.steps]
    assert names[0] == "NegBackward0" and names.count("AccumulateGrad") == 4 and "ReluBackward0" in names


# -- the widget's Python side ------------------------------------------------------------


def test_widget_is_an_ipywidget_with_synced_state():
    _, s = seed_stepper()
    assert isinstance(s, ipywidgets.DOMWidget)
    assert len(s.frames) == len(s.steps) + 1
    state = s.get_state()
    assert state["position"] == 0 and state["svg"].startswith("<svg") and len(state["frames"]) == 6
    bundle = s._repr_mimebundle_()
    bundle = bundle[0] if isinstance(bundle, tuple) else bundle
    assert WIDGET_VIEW in bundle and bundle[WIDGET_VIEW]["model_id"] == s.model_id
    assert "export default" in s._esm and ".agv-stepper" in s._css


def test_widget_position_traitlet_follows_the_buttons():
    _, s = seed_stepper()
    seen = []
    s.observe(lambda change: seen.append(change["new"]), names="position")
    s.next()
    s.next()
    s.next()
    s.back()
    s.goto(5)
    s.next()  # at the end: no change
    s.reset()
    assert seen == [1, 2, 3, 2, 5, 0]
    assert s.get_state()["position"] == 0


def test_widget_follows_a_position_sent_by_the_browser():
    """The browser's buttons set `position` and save it: the kernel sees it as a state update."""
    g, s = seed_stepper()
    s.set_state({"position": 3})
    assert s.position == 3 and s.current.name == "MulBackward0"
    assert float(value(s.state()[g["d"]])) == 10 and s.state()[g["a"]] is None


# -- the standalone page -----------------------------------------------------------------

HOSTILE = ("<!--<script>", "</script><b>x", 'a"b{c|d}')


def hostile_graph():
    a = agv.tensor(2.0, requires_grad=True)
    b = agv.tensor(5.0, requires_grad=True)
    return {HOSTILE[0]: a, HOSTILE[1]: b, HOSTILE[2]: a * b}


def test_to_html_is_one_self_contained_page(tmp_path):
    g = hostile_graph()
    s = agv.BackwardStepper(g[HOSTILE[2]], names=g, quiz=True)
    s.goto(2)
    page = s.to_html(tmp_path / "page.html").read_text(encoding="utf-8")
    assert page.count("<script") == 2 and page.count("</script>") == 2
    assert "<link" not in page and 'src="' not in page and "import " not in page  # nothing to fetch
    start = page.index('<script type="application/json" id="agv-state">') + len(
        '<script type="application/json" id="agv-state">'
    )
    block = page[start : page.index("</script>", start)]
    assert "<" not in block  # no name can end or confuse the <script> element
    state = json.loads(block)
    assert state["position"] == 0 and state["quiz"] is True  # the page starts at the start
    assert state["frames"] == json.loads(json.dumps(s.frames)) and state["svg"] == s.svg
    assert any(HOSTILE[0] in t for t in state["frames"][0]["quiz"]["targets"])
    assert "&lt;!--&lt;script&gt;" in state["frames"][-1]["table"]


# -- the learner's names in the rules (issue 13) -------------------------------------------


def test_hint_and_panel_use_the_learners_names_with_values():
    g, s = seed_stepper(quiz=True)
    # the first step reverses e = c*d: ∂e/∂c is d's value, ∂e/∂d is c's (c = a·b)
    d_value, c_value = preview(g["d"].item()), preview(g["a"].item() * g["b"].item())
    rules = [f"∂(c·d)/∂c = d = {d_value}", f"∂(c·d)/∂d = c = {c_value}"]
    hint = s.frames[0]["quiz"]["hint"]
    assert hint == f"MulBackward0: {rules[0]}; {rules[1]}. The upstream gradient is 1."
    panel = s.frames[1]["panel"]
    assert f"<li><code>{rules[0]}</code></li><li><code>{rules[1]}</code></li>" in panel
    assert "∂(a·b)" not in hint + panel  # the generic letters clash with the learner's a and b
    # the step for c = a*b: its inputs are the learner's a and b, in that order
    assert s.frames[2]["quiz"]["hint"].startswith(
        f"MulBackward0: ∂(a·b)/∂a = b = {preview(g['b'].item())}; ∂(a·b)/∂b = a = {preview(g['a'].item())}."
    )


def test_unnamed_inputs_keep_the_generic_letters():
    x, y = agv.tensor(3.0, requires_grad=True), agv.tensor(-2.0, requires_grad=True)
    s = agv.BackwardStepper(x * y, quiz=True, names=False)  # not the variables' names: unnamed
    assert (
        s.frames[0]["quiz"]["hint"]
        == "MulBackward0: ∂(a·b)/∂a = b = -2; ∂(a·b)/∂b = a = 3. The upstream gradient is 1."
    )
    assert s.steps[0].named_rules == s.steps[0].rules == ("∂(a·b)/∂a = b", "∂(a·b)/∂b = a")
    # one named, one not: only the named letter changes
    s = agv.BackwardStepper(x * y, names={"x": x})
    assert s.steps[0].named_rules == ("∂(x·b)/∂x = b", "∂(x·b)/∂b = x")


def test_names_from_dot_name_swaps_powers_and_constants():
    u, v = agv.tensor(3.0, requires_grad=True), agv.tensor(2.0, requires_grad=True)
    u.name, v.name = "u", "v"
    swapped = agv.BackwardStepper(v * u)  # v is input a, u is input b: the letters swap at once
    assert swapped.steps[0].named_rules == ("∂(v·u)/∂v = u", "∂(v·u)/∂u = v")
    power = agv.BackwardStepper(u**v)  # a superscript cannot hold a name: written with ^
    assert power.steps[0].named_rules == ("∂(u^v)/∂u = v·u^(v-1)", "∂(u^v)/∂v = u^v·ln u")
    assert agv.BackwardStepper(u.exp()).steps[0].named_rules == ("∂e^u/∂u = e^u",)
    assert agv.BackwardStepper(u**2).steps[0].named_rules == ("∂(uᵖ)/∂u = p·uᵖ⁻¹",)  # p is the constant
    # an input that needs no gradient (no edge) is named through names=
    X, W = agv.tensor([[1.0, 2.0]]), agv.ones(2, 1, requires_grad=True)
    mm = agv.BackwardStepper((X @ W).sum(), names={"X": X, "W": W})
    (matmul,) = [step for step in mm.steps if step.op == "@"]
    assert matmul.named_rules == ("∂(X@W)/∂X = g @ Wᵀ", "∂(X@W)/∂W = Xᵀ @ g")
    # prose is left alone: "a sample" is not an input called a
    bern = agv.tensor(0.3, requires_grad=True)
    assert agv.widgets.trace._input_symbols(("∂/∂mean = 0: PyTorch does not differentiate a sample",), 1) == [
        None
    ]
    assert bern.name is None


# -- language (issue 13) -------------------------------------------------------------------

ENGLISH_LABELS = {  # today's English, byte for byte: the lessons and tests name these
    "reset": "⇤ Reset",
    "back": "◀ Back",
    "next": "Next ▶",
    "play": "▶ Play",
    "pause": "❚❚ Pause",
    "end": "Run to end ⇥",
}
CHINESE_LABELS = {
    "reset": "⇤ 重置",
    "back": "◀ 后退",
    "next": "前进 ▶",
    "play": "▶ 播放",
    "pause": "❚❚ 暂停",
    "end": "运行到底 ⇥",
}


def test_every_label_comes_from_the_table():
    from autogradviz import ui_text
    from autogradviz.widgets import stepper as stepper_module

    for language, buttons in (("en", ENGLISH_LABELS), ("zh", CHINESE_LABELS)):
        _, s = seed_stepper(language=language)
        assert s.labels == {
            key: ui_text.text("stepper." + key, language) for key in stepper_module._LABEL_KEYS
        }
        assert {key: s.labels[key] for key in buttons} == buttons
    # the JS holds no English of its own: every phrase it shows is a synced label (one-word
    # labels such as "position" or "current" are also the names of traitlets and states)
    js = (stepper_module._HERE / "stepper.js").read_text(encoding="utf-8")
    for key, entry in ui_text.TABLE.items():
        for phrase in re.split(r"\{\w+\}", entry["en"]) if key.startswith("stepper.") else ():
            if " " in phrase.strip():
                assert phrase.strip() not in js, key


def test_language_argument_and_set_language():
    from autogradviz import ui_text

    g, zh = seed_stepper(language="zh", quiz=True)
    assert zh.frames[0]["title"] == "开始：共 5 步"
    assert zh.frames[1]["title"] == "第 1 步（共 5 步）：MulBackward0"
    assert zh.frames[0]["quiz"]["prompts"] == ["传给 c（第 1 个输入）：", "传给 d（第 2 个输入）："]
    assert (
        zh.frames[0]["quiz"]["hint"] == "MulBackward0：∂(c·d)/∂c = d = 4；∂(c·d)/∂d = c = 10。上游梯度是 1。"
    )
    assert "<th>张量</th><th>梯度</th>" in zh.frames[0]["table"]
    assert "<b>d.grad</b> 原为 None，现在变为 <code>10</code>" in zh.frames[2]["panel"]
    assert repr(zh) == "<autogradviz 逐步演示器：共 5 步，当前位置 0>"
    _, en = seed_stepper(quiz=True)
    assert (
        en.frames[0]["title"] == "Start: 5 steps to go"
        and repr(en) == "<autogradviz BackwardStepper: 5 steps, at position 0>"
    )
    assert en.frames[0]["quiz"]["prompts"] == ["to c (input 1): ", "to d (input 2): "]
    try:
        agv.set_language("zh")
        _, default = seed_stepper(quiz=True)
        _, english = seed_stepper(language="en")  # language= wins over the global choice
    finally:
        agv.set_language("en")
    assert default.frames == zh.frames and default.labels == zh.labels
    assert english.frames[0]["title"] == "Start: 5 steps to go"
    # the picture's legend speaks the stepper's language too, whatever set_language says
    assert ui_text.text("draw.legend.param", "zh") in zh.svg
    assert ui_text.text("draw.legend.param", "en") not in zh.svg
    assert ui_text.text("draw.legend.param", "en") in english.svg and "参数" not in english.svg
    assert "d output" not in zh.frames[0]["panel"]
    with pytest.raises(ValueError, match=r"unknown language 'fr'; autogradviz speaks 'en' and 'zh'"):
        seed_stepper(language="fr")


def test_standalone_page_in_chinese(tmp_path):
    _, s = seed_stepper(language="zh")
    page = s.to_html(tmp_path / "zh.html").read_text(encoding="utf-8")
    assert '<html lang="zh-CN">' in page and "<title>autogradviz：逐步演示反向传播</title>" in page
    assert json.dumps("前进 ▶").replace("<", "\\u003c") in page or "\\u524d\\u8fdb \\u25b6" in page
    _, s = seed_stepper()
    page = s.to_html(tmp_path / "en.html").read_text(encoding="utf-8")
    assert '<html lang="en">' in page and "<title>autogradviz: backward, step by step</title>" in page


# -- the static first frame (issue 13) -----------------------------------------------------


def test_stored_output_has_a_static_first_frame():
    import base64

    _, s = seed_stepper()
    data, _ = s._repr_mimebundle_()
    assert set(data) == {WIDGET_VIEW, "text/plain", "text/html"}
    static = data["text/html"]
    assert "<script" not in static and "<style" not in static  # sanitizers strip both
    (encoded,) = re.findall(r'src="data:image/svg\+xml;base64,([^"]+)"', static)
    assert base64.b64decode(encoded).decode("utf-8") == s.frame_svg(0)
    assert "Start: 5 steps to go" in static and "run the cell to step" in static
    s.goto(3)  # shown after goto(3) (in the same cell): the stored picture is that frame
    moved = s._repr_mimebundle_()[0]["text/html"]
    (encoded,) = re.findall(r'src="data:image/svg\+xml;base64,([^"]+)"', moved)
    assert base64.b64decode(encoded).decode("utf-8") == s.frame_svg(3)
    assert "Step 3 of 5" in moved and "Start: 5 steps to go" not in moved
    s.goto(0)
    assert s._repr_mimebundle_()[0]["text/html"] == static
    _, again = seed_stepper()  # deterministic, for nbval
    assert again._repr_mimebundle_()[0]["text/html"] == static
    _, zh = seed_stepper(language="zh")
    assert "运行该单元格" in zh._repr_mimebundle_()[0]["text/html"]


def test_static_frame_escapes_names():
    a = agv.tensor(2.0, requires_grad=True)
    s = agv.BackwardStepper(a * 3, names={'<img src=x onerror="alert(1)">': a})
    static = s.static_html()
    assert "<img src=x" not in static.replace('<img src="data:', "")


# -- one frame without the widget, fitted (issue 13: lesson 2 showed it 1177 px wide) ----------


def lesson02_stepper() -> agv.BackwardStepper:
    agv.manual_seed(0)
    x = agv.tensor([[1.0, 2.0], [3.0, 4.0]])
    w = agv.rand(2, 2, requires_grad=True)
    b = agv.rand(2, 2, requires_grad=True)
    y = w * x + b
    return agv.BackwardStepper(y.sum(), names={"x": x, "w": w, "b": b, "y": y})


def test_a_stepper_is_laid_out_so_its_text_stays_10_px_in_a_notebook_output():
    from autogradviz.viz.view import OUTPUT_WIDTH_PX, DrawingSize
    from autogradviz.widgets.stepper import FIT_WIDTH_PX

    # a stepper does not scroll: it fits JupyterLab's output at 1024 px with the file browser open
    assert FIT_WIDTH_PX == 590 < OUTPUT_WIDTH_PX
    s = lesson02_stepper()
    picture = DrawingSize.of(s.svg)
    across = DrawingSize.of(agv.draw(s._root, names=None, rankdir="LR").svg())
    # left to right, five ranks of 2x2 boxes need 883 px even with 10 px text: too wide
    assert across.narrowest_px(10) > OUTPUT_WIDTH_PX
    assert s._view.rankdir == "TB" and picture.narrowest_px(10) <= FIT_WIDTH_PX
    # a small graph stays left to right, as code reads
    a = agv.tensor(2.0, requires_grad=True)
    assert agv.BackwardStepper(a * 3)._view.rankdir == "LR"
    # a drawing of the same graph may go down to 8 px text, so it stays left to right
    assert agv.draw(s._root).rankdir == "LR"
    # an explicit direction is the teacher's choice
    assert agv.BackwardStepper(s._root, rankdir="LR")._view.rankdir == "LR"


def test_frame_html_fits_the_picture_and_shows_the_panel():
    import base64

    s = lesson02_stepper()
    s.goto(4)
    fragment = s.frame_html()
    assert "<script" not in fragment
    (encoded,) = re.findall(r'src="data:image/svg\+xml;base64,([^"]+)"', fragment)
    assert base64.b64decode(encoded).decode("utf-8") == s.frame_svg(4)
    assert s.frames[4]["title"] in fragment and s.frames[4]["panel"] in fragment
    # shrinks with max-width:100%, but its min-width keeps the smallest text at 10 px or more
    natural = float(re.search(r"width:(\d+)px;max-width:100%", fragment).group(1))
    min_width = float(re.search(r"min-width:(\d+)px", fragment).group(1))
    smallest_px = min(float(f) for f in re.findall(r'font-size="([\d.]+)"', s.svg)) * 4 / 3
    assert smallest_px * min_width / natural >= 10
    assert smallest_px * (min_width - 3) / natural < 10  # and not much more than that
    assert s.frame_html(0) != fragment and s.frame_html(4) == fragment
    with pytest.raises(IndexError, match=r"^frame_html: position 6 is outside 0\.\.5$"):
        s.frame_html(6)
    with pytest.raises(IndexError, match=r"^frame_svg: position -1 is outside 0\.\.5$"):
        s.frame_svg(-1)
