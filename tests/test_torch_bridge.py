"""The PyTorch bridge (autogradviz.torch): the same drawings and stepper on a
real PyTorch graph. Every expected gradient comes from PyTorch itself."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

torch = pytest.importorskip("torch")
if not hasattr(torch, "_C"):  # a tutorial test bound the name "torch" to autogradviz
    pytest.skip("the name torch is not PyTorch here", allow_module_level=True)

import autogradviz as agv  # noqa: E402
import autogradviz.torch as agv_torch  # noqa: E402
from autogradviz.core.protocol import READERS, reader_for  # noqa: E402
from autogradviz.torch.graph import RULES  # noqa: E402

F = torch.nn.functional


def seed_example():
    """Example 2 of the Paddle notes: a=2, b=5, c=a*b, d=4, e=c*d."""
    a = torch.tensor([2.0], requires_grad=True)
    b = torch.tensor([5.0], requires_grad=True)
    d = torch.tensor([4.0], requires_grad=True)
    c = a * b
    c.retain_grad()
    e = c * d
    return a, b, c, d, e


def leaf_grads_of(stepper, leaves) -> list[np.ndarray]:
    state = {id(t): g for t, g in stepper.state().items()}
    return [state[id(leaf)].numpy() for leaf in leaves]


def test_the_reader_is_registered_and_found_for_torch_tensors():
    assert agv_torch.READER in READERS
    assert reader_for(torch.zeros(1)) is agv_torch.READER
    assert reader_for(torch.nn.Parameter(torch.zeros(1))) is agv_torch.READER
    assert reader_for(agv.zeros(1)) is not agv_torch.READER
    assert agv.torch is agv_torch  # the lazy attribute


def test_seed_example_steps_to_20_8_4_10_as_torch_computes():
    a, b, c, d, e = seed_example()
    stepper = agv.BackwardStepper(e, names={"a": a, "b": b, "c": c, "d": d, "e": e})
    # what PyTorch's own backward gives, on a second copy of the same graph
    a2, b2, c2, d2, e2 = seed_example()
    e2.backward()
    expected = [t.grad.numpy() for t in (a2, b2, c2, d2)]
    assert [float(x[0]) for x in expected] == [20.0, 8.0, 4.0, 10.0]

    stepper.run_to_end()
    state = {id(t): g for t, g in stepper.state().items()}
    for tensor, want in zip((a, b, c, d), expected):
        np.testing.assert_array_equal(state[id(tensor)].numpy(), want)
    # c's gradient is what arrived at c's grad_fn: the step running c's MulBackward0 got it
    (c_step,) = [s for s in stepper.steps if s.node is agv_torch.READER.grad_fn(c)]
    np.testing.assert_array_equal(c_step.upstream, expected[2])
    # the first step: d(e)/d(c) = d and d(e)/d(d) = c, as upstream × local
    first = stepper.steps[0]
    assert first.name == "MulBackward0" and first.rules == ("∂(a·b)/∂a = b", "∂(a·b)/∂b = a")
    assert [(s.target_name, float(s.local[0]), float(s.value[0])) for s in first.sent] == [
        ("c", 4.0, 4.0),
        ("d", 10.0, 10.0),
    ]


def test_stepping_writes_no_grad_and_apply_runs_the_real_backward_once():
    a, b, c, d, e = seed_example()
    stepper = agv.BackwardStepper(e, names={"a": a, "b": b, "c": c, "d": d})
    for _ in range(stepper.last):
        stepper.next()
    stepper.back()
    stepper.run_to_end()
    assert a.grad is None and b.grad is None and d.grad is None
    assert c.grad is None  # c retains its grad: the recording walk's .grad was taken back
    stepper.apply()
    assert [float(t.grad[0]) for t in (a, b, c, d)] == [20.0, 8.0, 4.0, 10.0]
    with pytest.raises(RuntimeError, match="apply\\(\\) already wrote these gradients"):
        stepper.apply()
    assert float(a.grad[0]) == 20.0  # not added twice


def test_the_recorded_order_is_pytorchs_own_execution_order():
    """The steps are in the order a real loss.backward() runs the nodes,
    AccumulateGrads included (prehooks on every node of a second backward)."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    loss = F.cross_entropy(model(torch.randn(5, 3)), torch.tensor([0, 1, 1, 0, 1]))
    stepper = agv.BackwardStepper(loss, model=model)
    ran, stack, seen = [], [loss.grad_fn], set()
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        fn.register_prehook(lambda grads, fn=fn: ran.append(fn))
        stack.extend(child for child, _ in fn.next_functions)
    loss.backward(retain_graph=True)
    assert [agv_torch.graph.wrap(fn) for fn in ran] == [step.node for step in stepper.steps]


def test_a_diamond_shows_paths_meeting():
    x = torch.tensor([0.5, -1.0], requires_grad=True)
    h = x * 3
    out = (h * h.sin()).sum()  # h feeds two ops: their gradients meet at h's node
    stepper = agv.BackwardStepper(out, names={"x": x, "h": h, "out": out})
    merges = [s for step in stepper.steps for s in step.sent if s.before is not None]
    assert [m.target_name for m in merges] == ["h"]
    (merge,) = merges
    (dh,) = torch.autograd.grad(out, h, retain_graph=True)
    np.testing.assert_allclose(merge.after, dh.numpy(), rtol=1e-6)
    np.testing.assert_allclose(merge.before + merge.value, merge.after)
    assert "paths meet at <b>h</b>" in "".join(frame["panel"] for frame in stepper.frames)
    stepper.run_to_end()
    (dx,) = torch.autograd.grad(out, x)
    np.testing.assert_allclose(leaf_grads_of(stepper, [x])[0], dx.numpy(), rtol=1e-6)


def mlp_parts(seed: int = 0):
    torch.manual_seed(seed)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
    return model, torch.randn(6, 4), torch.tensor([0, 2, 1, 1, 0, 2])


def mlp_loss(seed: int = 0):
    model, x, y = mlp_parts(seed)
    with agv.torch.trace(model):
        loss = F.cross_entropy(model(x), y)
    return model, loss


def cnn_loss(seed: int = 0):
    torch.manual_seed(seed)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(1, 3, 3),
        torch.nn.ReLU(),
        torch.nn.MaxPool2d(2),
        torch.nn.Flatten(),
        torch.nn.Linear(3 * 3 * 3, 4),
    )
    x, y = torch.randn(2, 1, 8, 8), torch.tensor([3, 1])
    with agv.torch.trace(model):
        loss = F.cross_entropy(model(x), y)
    return model, loss


@pytest.mark.parametrize("make", [mlp_loss, cnn_loss], ids=["mlp", "cnn"])
def test_a_network_steps_to_torchs_own_grad(make):
    model, loss = make()
    params = list(model.parameters())
    stepper = agv.BackwardStepper(loss, model=model, kind="backward")
    stepper.run_to_end()
    stepped = leaf_grads_of(stepper, params)
    assert all(p.grad is None for p in params)
    stepper.apply()
    for got, p in zip(stepped, params):
        np.testing.assert_allclose(got, p.grad.numpy(), rtol=1e-5, atol=1e-7)
    labels = [stepper._label(p) for p in params]
    assert labels == [name for name, _ in model.named_parameters()]


@pytest.mark.parametrize("make", [mlp_loss, cnn_loss], ids=["mlp", "cnn"])
@pytest.mark.parametrize("kind", ["forward", "backward", "both"])
def test_network_drawings_render_and_are_the_same_every_time(make, kind):
    svgs = []
    for _ in range(2):  # two separate graphs, built alike
        model, loss = make()
        view = agv.draw(loss, kind=kind, model=model, show_saved=True)
        svgs.append(view.svg())
        assert "0x" not in view.source and "object at" not in view.svg()
        assert "0x" not in repr(view)
    assert svgs[0] == svgs[1]
    assert svgs[0].lstrip().startswith("<?xml") or svgs[0].lstrip().startswith("<svg")


def test_drawing_shows_values_grads_and_parameter_names():
    model, loss = mlp_loss()
    loss.backward(retain_graph=True)
    # the pairs themselves work too; layers=False: the ops, where the parameters are boxes of their own
    # values="full": the numbers themselves, not the summary a tensor of more than 6 values gets
    view = agv.draw(loss, names=model.named_parameters(), layers=False, values="full")
    source = view.source
    for name, p in model.named_parameters():
        assert f"<B>{name}</B>" in source
    w = model[0].weight
    # the values the drawing shows are PyTorch's: its first weight's first number, and its grad's
    assert agv.viz.labels.preview(w.detach().numpy()).split(",")[0].replace("[", "") in source
    assert agv.viz.labels.preview(w.grad.numpy()).split(",")[0].replace("[", "") in source
    # trace() noted the forward values: the hidden layer's output is drawn with PyTorch's numbers
    _, x, _ = mlp_parts()
    with torch.no_grad():
        relu_out = model[1](model[0](x))
    assert agv.viz.labels.preview(relu_out.numpy()).split("\n")[0] in source
    saved = agv.draw(loss, kind="backward", show_saved=True)
    assert "saved result" in saved.source  # ReluBackward0 and LogSoftmaxBackward0 keep their result


def test_group_by_module_and_collapse():
    model, loss = mlp_loss()
    view = agv.draw(loss, group="module", collapse=True, model=model)
    groups = [box.title for _, box in view.boxes if box.kind == "group"]
    assert sorted(groups) == ["0 Linear(4, 8)", "1 ReLU()", "2 Linear(8, 3)"]
    boxed = agv.draw(loss, group="module", model=model).source
    assert boxed.count("subgraph cluster") >= 3


def test_a_node_with_no_formula_says_so():
    x = torch.tensor([0.25], requires_grad=True)
    y = torch.special.erfinv(x)
    name = y.grad_fn.name()
    assert name not in RULES
    node = agv_torch.READER.grad_fn(y)
    assert node.rules == (
        f"no formula for {name}: PyTorch does not expose its local derivative, "
        "and autogradviz has no node of that name",
    )
    stepper = agv.BackwardStepper(y.sum())
    assert f"no formula for {name}" in "".join(frame["panel"] for frame in stepper.frames)
    # its gradient is still PyTorch's: the stepper shows what the node really sent
    stepper.run_to_end()
    (dx,) = torch.autograd.grad(y.sum(), x)
    np.testing.assert_allclose(leaf_grads_of(stepper, [x])[0], dx.numpy())


def test_a_known_node_reuses_autogradvizs_formula_text():
    from autogradviz.ops.arithmetic import AddmmBackward0

    model, loss = mlp_loss()
    names = {step.name for step in agv.BackwardStepper(loss).steps}
    assert "AddmmBackward0" in names
    assert RULES["AddmmBackward0"] == (AddmmBackward0.op, AddmmBackward0.rules, AddmmBackward0.elementwise)


def test_a_100k_op_chain_draws_elided_without_recursion_error():
    """Run in a thread with a big C stack, in a subprocess: PyTorch 2.13 itself
    overflows the default 8 MB stack when it frees a chain of more than about
    30,000 nodes whose Python node objects were ever read (plain torch: walk
    `next_functions` once, then `del y`). The drawing's own walk is iterative."""
    result = run_python(
        """
        import sys, threading, time
        import torch, autogradviz as agv

        def main():
            x = torch.tensor([1.0], requires_grad=True)
            y = x
            for _ in range(100_000):
                y = y * 1.0
            limit = sys.getrecursionlimit()
            start = time.perf_counter()
            backward = agv.draw(y, kind="backward", max_nodes=60)
            seconds = time.perf_counter() - start
            forward = agv.draw(y, max_nodes=60)
            print(backward.hidden, forward.hidden, "nodes hidden" in backward.source, sys.getrecursionlimit() == limit)
            print(f"{seconds:.1f}", file=sys.stderr)

        threading.stack_size(512 * 1024 * 1024)
        thread = threading.Thread(target=main)
        thread.start()
        thread.join()
        """
    )
    assert result.returncode == 0, result.stderr
    # backward: the root, 100,000 MulBackward0, the AccumulateGrad and the leaf, less the 60 kept;
    # forward: the leaf, then per multiplication its op, the 1.0 it saved and its result, less the 60 kept
    assert result.stdout.split() == [str(100_003 - 60), str(1 + 3 * 100_000 - 60), "True", "True"]


def test_bad_input_gets_a_clear_error():
    with pytest.raises(RuntimeError, match="does not require grad"):
        agv.BackwardStepper(torch.ones(2).sum())
    y = torch.ones(2, requires_grad=True) * 2
    with pytest.raises(RuntimeError, match=r"only for scalar outputs: this output has shape \(2,\)"):
        agv.BackwardStepper(y)
    with pytest.raises(TypeError, match="expected a torch.nn.Module, got int"):
        with agv.torch.trace(3):
            pass


def run_python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120
    )


def test_without_torch_autogradviz_works_and_the_bridge_says_what_it_needs():
    result = run_python(
        """
        import sys
        sys.modules["torch"] = None  # as if PyTorch were not installed
        import autogradviz as agv
        x = agv.tensor([2.0], requires_grad=True)
        print(agv.draw(x * 3).summary())
        try:
            import autogradviz.torch
        except ImportError as error:
            print("ImportError:", error)
        """
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "ImportError: autogradviz.torch needs PyTorch: pip install torch"


def test_import_autogradviz_never_imports_torch():
    result = run_python("import sys, autogradviz; print('torch' in sys.modules)")
    assert result.stdout.strip() == "False", result.stderr


def test_a_name_torch_bound_to_autogradviz_is_not_taken_for_pytorch():
    result = run_python(
        """
        import sys, autogradviz
        sys.modules["torch"] = autogradviz  # what the tutorial tests do
        try:
            import autogradviz.torch
        except ImportError as error:
            print("ImportError:", error)
        """
    )
    assert result.stdout.strip() == (
        "ImportError: autogradviz.torch needs PyTorch: pip install torch "
        "(here the name 'torch' is bound to 'autogradviz', not PyTorch)"
    ), result.stderr
