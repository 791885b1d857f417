"""Names without asking (issue 24, item 1): with no `names=`, the drawings and
the stepper name tensors by the caller's variables, and a model's parameters by
their path; `names=` overrides, `names=False` turns it off, and autogradviz's
own frames never supply a name. Every expected name is the variable the test
itself wrote, or the path PyTorch's / autogradviz's `named_parameters()` prints."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

import autogradviz as agv
from autogradviz.ui_text import text as ui_text
from autogradviz.viz.names import caller_variables, resolve_names


def title_of(view, tensor) -> str | None:
    """The title of the box the drawing drew for `tensor` (None: no box)."""
    titles = [box.title for _, box in view.boxes if box.ref is tensor]
    return titles[0] if titles else None


def names_of(mapping) -> dict[int, str]:
    return {id(t): name for name, t in (mapping or {}).items()}


# -- draw ------------------------------------------------------------------------------------


def test_draw_names_the_callers_variables():
    x = agv.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    v = agv.draw(y)
    assert title_of(v, x) == "x"
    assert title_of(v, y) == "y"
    titles = [box.title for _, box in v.boxes]
    assert "x" in titles and "y" in titles


def test_the_same_drawing_with_names_false_has_no_variable_names():
    x = agv.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    v = agv.draw(y, names=False)
    assert title_of(v, x) == "" and title_of(v, y) == ""
    assert resolve_names(False) == {}  # a dict: passed on as names=, it is not looked up again


def test_names_given_override_fully():
    x = agv.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    v = agv.draw(y, names={"input": x})
    assert title_of(v, x) == "input"
    assert title_of(v, y) == ""  # not "y": the caller's variables are not read at all
    v = agv.draw(y, names=[("pairs", x)])
    assert title_of(v, x) == "pairs"


def test_a_tensors_own_name_is_kept_with_names_false_and_replaced_by_a_variable():
    x = agv.tensor([1.0, 2.0], requires_grad=True)
    x.name = "input"
    y = (x * 3).sum()
    assert title_of(agv.draw(y, names=False), x) == "input"
    assert title_of(agv.draw(y), x) == "x"  # as names=locals() always did


def test_several_variables_on_one_tensor_shortest_then_alphabetical():
    value = agv.tensor([1.0, 2.0], requires_grad=True)
    zz = bb = ab = value  # three names of length 2, and one of 5
    out = (value * 2).sum()
    v = agv.draw(out)
    assert title_of(v, value) == "ab"
    q = agv.tensor([3.0], requires_grad=True)
    _ = _q = q  # IPython-style names are skipped, though shorter
    qq = q  # noqa: F841
    v = agv.draw((q * q).sum())
    assert title_of(v, q) == "q"
    del zz, bb, ab


def test_a_model_in_a_local_variable_names_its_parameters_by_path():
    net = agv.nn.Sequential(agv.nn.Linear(2, 3), agv.nn.Tanh(), agv.nn.Linear(3, 1))
    found = names_of(resolve_names(None))
    expected = dict(net.named_parameters())  # autogradviz's own paths
    assert set(expected) == {"0.weight", "0.bias", "2.weight", "2.bias"}
    for path, param in expected.items():
        assert found[id(param)] == path  # not "net.0.weight"


def test_a_variable_beats_a_parameter_path():
    net = agv.nn.Sequential(agv.nn.Linear(2, 3))
    w = net[0].weight
    found = names_of(resolve_names(None))
    assert found[id(w)] == "w" and found[id(net[0].bias)] == "0.bias"


def test_among_models_holding_one_parameter_the_first_name_wins():
    shared = agv.nn.Linear(2, 2)
    b = agv.nn.Sequential(agv.nn.Linear(2, 2), shared)  # shared is "1.weight" here
    a = agv.nn.Sequential(shared)  # and "0.weight" here
    found = names_of(resolve_names(None))
    # models by name: "a", "b", "shared" (shortest, then alphabetical): a's path wins
    assert found[id(shared.weight)] == "0.weight" and found[id(shared.bias)] == "0.bias"
    # b's own first layer would also be "0.weight": a name never names two tensors
    assert id(b[0].weight) not in found
    # drawn, both are in the graph: the later model's clashing path is prefixed by its variable
    loss = b(agv.ones(1, 2)).sum()
    found = names_of(resolve_names(None, roots=[loss]))
    assert found[id(shared.weight)] == "0.weight" and found[id(b[0].weight)] == "b.0.weight"
    del a


def test_a_clashing_path_goes_to_the_model_in_the_drawn_graph():
    m = agv.nn.Sequential(agv.nn.Linear(2, 2))
    other = agv.nn.Sequential(agv.nn.Linear(2, 2))
    assert names_of(resolve_names(None))[id(m[0].weight)] == "0.weight"  # "m" sorts first
    loss = other(agv.ones(1, 2)).sum()
    found = names_of(resolve_names(None, roots=[loss]))
    assert found[id(other[0].weight)] == "0.weight" and found[id(other[0].bias)] == "0.bias"
    assert id(m[0].weight) not in found  # not drawn: it gives its name up


def test_a_variable_keeps_its_name_when_a_parameter_path_is_the_same():
    weight = agv.tensor([1.0])  # a variable called like the parameter path of `lin`
    lin = agv.nn.Linear(2, 1)
    loss = lin(agv.ones(1, 2)).sum()
    found = names_of(resolve_names(None, roots=[loss]))
    assert found[id(weight)] == "weight"
    assert found[id(lin.weight)] == "lin.weight" and found[id(lin.bias)] == "bias"


def test_model_given_names_its_parameters_even_when_no_variable_holds_it():
    def make():
        return agv.nn.Sequential(agv.nn.Linear(2, 2))

    x = agv.ones(1, 2)
    found = names_of(resolve_names(None, make(), roots=[x]))
    assert sorted(found.values()) == ["0.bias", "0.weight", "x"]
    assert sorted(names_of(resolve_names(False, make())).values()) == ["0.bias", "0.weight"]


def test_odd_objects_among_the_variables_do_not_break_a_drawing():
    class Explodes:
        def __getattr__(self, name):
            raise RuntimeError("no attributes here")

    class NotAModel:
        def named_parameters(self):
            raise ValueError("not a model after all")

    boom, odd, a_class = Explodes(), NotAModel(), agv.nn.Linear  # noqa: F841
    x = agv.tensor([1.0, 2.0], requires_grad=True)
    v = agv.draw((x * x).sum())
    assert title_of(v, x) == "x"


GLOBAL_TENSOR = None
x = None  # a global that a function's local of the same name hides


def test_a_functions_local_beats_a_global():
    global GLOBAL_TENSOR, x
    t = agv.tensor([1.0, -1.0], requires_grad=True)
    GLOBAL_TENSOR = t  # a global naming the same tensor
    x = agv.tensor([5.0], requires_grad=True)  # the global x: another tensor

    def inner():
        long_local_name = GLOBAL_TENSOR
        x = agv.tensor([2.0], requires_grad=True)
        out = (long_local_name * x).sum()
        return agv.draw(out), x

    try:
        v, local_x = inner()
        assert title_of(v, t) == "long_local_name"  # the local, not the global "GLOBAL_TENSOR"
        assert title_of(v, local_x) == "x"

        # a global hidden by a local of the same name is not offered that name
        def shadowing():
            x = agv.tensor([1.0])  # noqa: F841
            return names_of(resolve_names(None))

        assert id(globals()["x"]) not in shadowing()
        # here too: this test's local "t" beats the global "GLOBAL_TENSOR"
        assert names_of(resolve_names(None))[id(t)] == "t"
    finally:
        GLOBAL_TENSOR = x = None


def test_autogradviz_frames_never_supply_names():
    # a helper that lives in autogradviz: its module name is all the walk looks at
    source = textwrap.dedent(
        """
        import autogradviz as agv

        def helper(root, leaf):
            secret_leaf = leaf
            hidden_product = root * 2
            return agv.draw(hidden_product.sum()), hidden_product, secret_leaf
        """
    )
    space = {"__name__": "autogradviz._helper_for_test"}
    exec(compile(source, "<autogradviz helper>", "exec"), space)
    x = agv.tensor([1.0, 2.0], requires_grad=True)
    v, product, _ = space["helper"](x * 1, x)
    assert title_of(v, x) == "x"  # the caller's name, not "secret_leaf"
    titles = {box.title for _, box in v.boxes}
    assert "hidden_product" not in titles and "secret_leaf" not in titles and "root" not in titles
    assert title_of(v, product) in ("", None)
    # the walk also skips the frames of the widget machinery
    for package in ("traitlets", "anywidget", "ipywidgets", "comm"):
        space = {"__name__": f"{package}.helper"}
        exec("import autogradviz.viz.names as n\ndef helper(hidden):\n    return n.caller_variables()", space)
        names = {name for _, name, _ in space["helper"](x)}
        assert "hidden" not in names and "x" in names


def test_caller_variables_stops_at_the_first_outside_frame():
    marker = object()
    variables = {name: (scope, value) for scope, name, value in caller_variables()}
    assert variables["marker"] == (0, marker)  # this function's local
    assert variables["GLOBAL_TENSOR"][0] == 1  # this module's global


# -- the stepper -----------------------------------------------------------------------------


def test_the_stepper_says_the_names_never_unnamed():
    x = agv.tensor([1.0, 2.0], requires_grad=True)
    w = agv.tensor([3.0, -1.0], requires_grad=True)
    y = (x * w).sum()
    s = agv.BackwardStepper(y)
    unnamed = ui_text("stepper.unnamed", "en")
    for frame in s.frames:
        assert unnamed not in frame["panel"] and unnamed not in frame["table"]
    tables = "".join(frame["table"] for frame in s.frames)
    for name in ("x", "w", "y"):
        assert f"<td>{name}</td>" in tables
    assert title_of(s._view, x) == "x"
    # the multiplication's rules and panel say the variables' names: ∂(x·w)/∂x = w
    mul = next(k for k, step in enumerate(s.steps) if step.node.op == "*")
    assert s.steps[mul].named_rules == ("∂(x·w)/∂x = w", "∂(x·w)/∂w = x")
    assert "to <b>x</b>" in s.frames[mul + 1]["panel"] and "to <b>w</b>" in s.frames[mul + 1]["panel"]
    s.close()


def test_the_stepper_with_names_false_and_with_names_given():
    x = agv.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    s = agv.BackwardStepper(y, names=False)
    assert "<td>x</td>" not in "".join(f["table"] for f in s.frames)
    assert title_of(s._view, x) == "" and title_of(s._view, y) == ""  # the picture too
    s.close()
    s = agv.BackwardStepper(y, names={"the_input": x})
    tables = "".join(f["table"] for f in s.frames)
    assert "<td>the_input</td>" in tables and "<td>x</td>" not in tables
    s.close()


def test_the_stepper_names_a_models_parameters():
    net = agv.nn.Sequential(agv.nn.Linear(2, 1))
    loss = net(agv.tensor([[1.0, 2.0]])).sum()
    s = agv.BackwardStepper(loss)
    tables = "".join(f["table"] for f in s.frames)
    for path, _ in net.named_parameters():
        assert f"<td>{path}</td>" in tables
    assert "<td>loss</td>" in tables
    s.close()


# -- the PyTorch bridge ------------------------------------------------------------------------


@pytest.fixture
def torch():
    torch = pytest.importorskip("torch")
    if not hasattr(torch, "_C"):
        pytest.skip("the name torch is not PyTorch here")
    import autogradviz.torch  # noqa: F401  (the reader)

    return torch


def test_the_torch_bridge_names_a_torch_models_parameters(torch):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 2))
    inputs = torch.randn(2, 3)
    loss = model(inputs).sum()
    v = agv.draw(loss)
    for path, param in model.named_parameters():  # PyTorch's own paths
        assert title_of(v, param) == path, path
    assert title_of(v, loss) == "loss"
    v = agv.draw(loss, names=False)
    assert all(title_of(v, p) in ("", None) for p in model.parameters())
    v = agv.draw(loss, names=False, model=model)  # model= alone
    assert title_of(v, model[0].weight) == "0.weight"


def test_the_torch_stepper_names_parameters_and_variables(torch):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 2))
    inputs = torch.randn(2, 3)
    hidden = model(inputs)
    loss = (hidden * hidden).sum()
    s = agv.BackwardStepper(loss)
    unnamed = ui_text("stepper.unnamed", "en")
    tables = "".join(f["table"] for f in s.frames)
    for name in ("0.weight", "0.bias", "loss", "hidden"):
        assert f"<td>{name}</td>" in tables, name
    assert all(unnamed not in f["table"] and unnamed not in f["panel"] for f in s.frames)
    s.close()


def test_a_torch_model_given_as_model_names_parameters_with_no_variable(torch):
    def run():
        torch.manual_seed(0)
        net = torch.nn.Sequential(torch.nn.Linear(3, 2))
        return net, net(torch.randn(2, 3)).sum()

    net, out = run()
    s = agv.BackwardStepper(out, model=net, names=False)
    tables = "".join(f["table"] for f in s.frames)
    assert "<td>0.weight</td>" in tables and "<td>out</td>" not in tables
    s.close()


# -- a notebook: IPython's user namespace ----------------------------------------------------


def test_ipython_user_namespace_names():
    pytest.importorskip("IPython")
    script = textwrap.dedent(
        """
        import json
        from IPython.core.interactiveshell import InteractiveShell

        shell = InteractiveShell.instance()
        cells = [
            "import autogradviz as agv",
            "x = agv.tensor([1.0, 2.0], requires_grad=True)",
            "x",  # Out[3] and _, _3 now hold x too: names starting with '_' never count
            "y = (x * x).sum()",
            "net = agv.nn.Sequential(agv.nn.Linear(2, 1))",
            "v = agv.draw(y)",
            "s = agv.BackwardStepper(y)",
            "def f():\\n    local = x * 3\\n    return agv.draw(local.sum())",
            "v2 = f()",
        ]
        for cell in cells:
            result = shell.run_cell(cell)
            assert result.success, (cell, result.error_in_exec)
        ns = shell.user_ns
        title = lambda view, t: [b.title for _, b in view.boxes if b.ref is t]
        print(json.dumps({
            "x": title(ns["v"], ns["x"]),
            "y": title(ns["v"], ns["y"]),
            "under": ns["_"] is ns["x"],
            "tables": "".join(f["table"] for f in ns["s"].frames),
            "v2_x": title(ns["v2"], ns["x"]),
            "v2_titles": sorted(b.title for _, b in ns["v2"].boxes),
        }))
        """
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    found = json.loads(out.stdout.strip().splitlines()[-1])
    assert found["under"]  # `_` did hold x: the shorter name was there, and skipped
    assert found["x"] == ["x"] and found["y"] == ["y"]
    assert "<td>x</td>" in found["tables"] and "<td>y</td>" in found["tables"]
    assert found["v2_x"] == ["x"]  # from the notebook's globals, under a function's locals
    assert "local" in found["v2_titles"]
