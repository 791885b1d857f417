"""What backward nodes save, as PyTorch shows it: `grad_fn._saved_self`, ...,
`_raw_saved_*` with `register_hooks`, and `agv.autograd.graph.saved_tensors_hooks`
(PyTorch's "Hooks for saved tensors" tutorial), each checked against torch."""

from __future__ import annotations

import contextlib
import io

import numpy as np
import pytest
import torch

import autogradviz as agv
from autogradviz.autograd.graph import Packed  # moved out of the kernel (core/graph.py)

LIBS = {"torch": torch, "agv": agv}


def inputs(lib):
    g = np.random.default_rng(0)
    x = lib.tensor(g.random((2, 3)) + 0.5, requires_grad=True)
    w = lib.tensor(g.random((2, 3)) + 0.5, requires_grad=True)
    m = lib.tensor(g.random((3, 4)), requires_grad=True)
    return x, w, m


# an op, as both libraries write it
CASES = {
    "mul": lambda lib, x, w, m: x * w,
    "mul by a number": lambda lib, x, w, m: x * 2.0,
    "div": lambda lib, x, w, m: x / w,
    "div by a number": lambda lib, x, w, m: x / 2.0,
    "pow by a number": lambda lib, x, w, m: x**2,
    "pow by a tensor": lambda lib, x, w, m: x**w,
    "exp": lambda lib, x, w, m: x.exp(),
    "log": lambda lib, x, w, m: x.log(),
    "sin": lambda lib, x, w, m: x.sin(),
    "cos": lambda lib, x, w, m: x.cos(),
    "sqrt": lambda lib, x, w, m: x.sqrt(),
    "abs": lambda lib, x, w, m: x.abs(),
    "sigmoid": lambda lib, x, w, m: x.sigmoid(),
    "tanh": lambda lib, x, w, m: x.tanh(),
    "relu": lambda lib, x, w, m: x.relu(),
    "sum": lambda lib, x, w, m: x.sum(),
    "sum over a dim": lambda lib, x, w, m: x.sum(1),
    "sum keepdim": lambda lib, x, w, m: x.sum(1, keepdim=True),
    "mean": lambda lib, x, w, m: x.mean(),
    "mean over a dim": lambda lib, x, w, m: x.mean(0),
    "mm": lambda lib, x, w, m: x @ m,
    "view": lambda lib, x, w, m: x.view(3, 2),
    "transpose": lambda lib, x, w, m: x.transpose(0, 1),
    "softmax": lambda lib, x, w, m: x.softmax(1),
    "log_softmax": lambda lib, x, w, m: x.log_softmax(1),
    "max": lambda lib, x, w, m: x.max(),
    "clamp": lambda lib, x, w, m: x.clamp(0.6, 1.2),
    "leaky_relu": lambda lib, x, w, m: lib.nn.functional.leaky_relu(x, 0.1),
    "add": lambda lib, x, w, m: x + w,
    "neg": lambda lib, x, w, m: -x,
    "cat": lambda lib, x, w, m: lib.cat([x, w]),
    "cat along dim 1": lambda lib, x, w, m: lib.cat([x, w], dim=1),
    "where": lambda lib, x, w, m: lib.where(x > 1, x, w),
}

# PyTorch's saved attributes that autogradviz does not give (its node keeps
# something else, or nothing, for them): every other one must be there, equal
NOT_GIVEN = {
    ("add", "_saved_alpha"),
    ("mm", "_saved_mat2_sym_sizes"),
    ("mm", "_saved_mat2_sym_strides"),
    ("mm", "_saved_self_sym_sizes"),
    ("mm", "_saved_self_sym_strides"),
}


def torch_saved_names(fn) -> list[str]:
    return sorted(a for a in dir(fn) if a.startswith("_saved_"))


def describe(value, x, w, m, y):
    """A saved value, comparable across the two libraries."""
    if value is None:
        return None
    if isinstance(value, (torch.Tensor, agv.Tensor)):
        for name, t in (("x", x), ("w", w), ("m", m)):
            if value is t:
                return f"is {name}"
        array = value.detach().numpy()
        return ("tensor", str(array.dtype), np.round(array.astype(float), 6).tolist(), value is y)
    if isinstance(value, (tuple, list)):
        return tuple(int(v) for v in value)
    return value


@pytest.mark.parametrize("case", list(CASES))
def test_saved_attributes_match_torch(case):
    tx, tw, tm = inputs(torch)
    ax, aw, am = inputs(agv)
    ty, ay = CASES[case](torch, tx, tw, tm), CASES[case](agv, ax, aw, am)
    assert ay.grad_fn.name() == type(ty.grad_fn).__name__
    for name in torch_saved_names(ty.grad_fn):
        if (case, name) in NOT_GIVEN:
            continue
        theirs = describe(getattr(ty.grad_fn, name), tx, tw, tm, ty)
        ours = describe(getattr(ay.grad_fn, name), ax, aw, am, ay)
        assert ours == theirs, name
    # and nothing PyTorch does not have
    for name in ("self", "other", "result", "exponent", "dim", "keepdim", "mat2"):
        if not hasattr(ty.grad_fn, f"_saved_{name}"):
            assert not hasattr(ay.grad_fn, f"_saved_{name}"), name


def test_the_torch_tutorial_examples():
    for lib in LIBS.values():
        x = lib.randn(5, requires_grad=True)
        y = x.pow(2)
        assert y.grad_fn._saved_self is x
        assert x.equal(y.grad_fn._saved_self)
        y = x.exp()
        assert y.equal(y.grad_fn._saved_result)
        assert y.grad_fn._saved_result is not y
        assert y.grad_fn._saved_result.grad_fn is y.grad_fn


def test_a_saved_non_leaf_input_keeps_its_history():
    x = agv.tensor([1.0, 2.0], requires_grad=True)
    h = x * 3
    y = h.sin()
    saved = y.grad_fn._saved_self
    assert saved.grad_fn is h.grad_fn and saved.tolist() == h.tolist()


def test_saved_values_after_backward_are_torchs_error_but_arguments_stay():
    messages = {}
    for name, lib in LIBS.items():
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x.pow(2)
        y.sum().backward()
        with pytest.raises(RuntimeError) as info:
            y.grad_fn._saved_self
        messages[name] = str(info.value)
        assert y.grad_fn._saved_exponent == 2
    assert messages["agv"] == messages["torch"]
    assert messages["agv"].startswith("Trying to backward through the graph a second time")


def test_an_unknown_saved_name_is_an_attribute_error():
    for lib in LIBS.values():
        y = lib.ones(2, requires_grad=True).exp()
        with pytest.raises(AttributeError, match="ExpBackward0' object has no attribute '_saved_foo'"):
            y.grad_fn._saved_foo
        assert not hasattr(y.grad_fn, "_saved_self")


# -- hooks ---------------------------------------------------------------------------------------------


def printed(lib, program) -> str:
    """What `program(lib, pack_hook, unpack_hook)` prints, with the tutorial's hooks."""

    def pack_hook(x):
        print("Packing", x)
        return x

    def unpack_hook(x):
        print("Unpacking", x)
        return x

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        program(lib, pack_hook, unpack_hook)
    return out.getvalue()


def tutorial_mul(lib, pack_hook, unpack_hook):
    a = lib.ones(5, requires_grad=True)
    b = lib.ones(5, requires_grad=True) * 2
    with lib.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
        y = a * b
    y.sum().backward()


def tutorial_pow(lib, pack_hook, unpack_hook):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
        y = x.pow(2)
    print(y.grad_fn._saved_self)
    y.sum().backward()
    print(x.grad)


def chain(lib, pack_hook, unpack_hook):
    # float64: float32 sums may differ in their last digit between the libraries
    x = lib.tensor([0.5, -1.0], dtype=lib.float64, requires_grad=True)
    w = lib.tensor([[1.0, 2.0], [3.0, -4.0]], dtype=lib.float64, requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
        h = (w @ x).tanh()
        y = (h.exp() / (x + 3)).sigmoid().sum()
    y.backward()
    print(x.grad, w.grad)


def raw_hooks(lib, pack_hook, unpack_hook):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x.pow(2)
    y.grad_fn._raw_saved_self.register_hooks(pack_hook, unpack_hook)
    print(y.grad_fn._saved_self)
    y.sum().backward()
    print(x.grad)


def custom_function(lib, pack_hook, unpack_hook):
    class MyExp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(x, y)
            return y

        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return g * y

    x = lib.tensor([1.0, 2.0], requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
        y = MyExp.apply(x)
    y.sum().backward()


@pytest.mark.parametrize("program", [tutorial_mul, tutorial_pow, chain, raw_hooks, custom_function])
def test_hooks_print_what_torch_prints_in_its_order(program):
    ours, theirs = printed(agv, program), printed(torch, program)
    assert ours == theirs
    assert "Packing" in ours and "Unpacking" in ours


def order_of_calls(lib, make) -> list:
    calls = []

    def pack(t):
        calls.append(("pack", tuple(t.shape), round(float(t.sum()), 4)))
        return t

    def unpack(t):
        calls.append(("unpack", tuple(t.shape), round(float(t.sum()), 4)))
        return t

    a = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    b = lib.tensor([[5.0, 6.0], [7.0, 8.5]], requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = make(lib, a, b)
    y.sum().backward()
    return calls


ORDER_CASES = {
    "mul": lambda lib, a, b: a * b,
    "div": lambda lib, a, b: a / b,
    "pow": lambda lib, a, b: a**b,
    "mm": lambda lib, a, b: a @ b,
    "mv": lambda lib, a, b: a @ b[0],
    "max": lambda lib, a, b: a.max(),
    "where": lambda lib, a, b: lib.where(a > 2, a, b),
    "sigmoid": lambda lib, a, b: a.sigmoid(),
    "softmax": lambda lib, a, b: a.softmax(1),
    "clamp": lambda lib, a, b: a.clamp(0, 2),
}


@pytest.mark.parametrize("case", list(ORDER_CASES))
def test_pack_and_unpack_run_in_torchs_order(case):
    assert order_of_calls(agv, ORDER_CASES[case]) == order_of_calls(torch, ORDER_CASES[case])


def test_what_pack_returns_is_kept_and_unpack_gives_the_tensor_back():
    grads = {}
    for name, lib in LIBS.items():
        storage: dict = {}

        def pack(t, storage=storage):
            key = len(storage)
            storage[key] = t.detach().clone()
            return key

        def unpack(key, storage=storage):
            return storage.pop(key)

        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = (x * x).sin().sum()
        y.backward()
        grads[name] = (x.grad.numpy(), storage)
    np.testing.assert_allclose(grads["agv"][0], grads["torch"][0], rtol=1e-6)
    assert grads["agv"][1] == grads["torch"][1] == {}  # every packed tensor was unpacked


def test_an_unpack_hook_must_return_a_tensor():
    messages = {}
    for name, lib in LIBS.items():
        x = lib.ones(2, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: 3, lambda p: p):
            y = x.pow(2)
        with pytest.raises(TypeError) as info:
            y.sum().backward()
        messages[name] = str(info.value)
    assert messages["agv"] == messages["torch"]


def test_register_hooks_twice_or_after_backward_is_torchs_error():
    messages = {}
    for name, lib in LIBS.items():
        x = lib.ones(2, requires_grad=True)
        y = x.pow(2)
        y.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t)
        with pytest.raises(RuntimeError) as twice:
            y.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t)
        z = x.exp()
        z.sum().backward()
        with pytest.raises(RuntimeError) as freed:
            z.grad_fn._raw_saved_result.register_hooks(lambda t: t, lambda t: t)
        messages[name] = (str(twice.value), str(freed.value))
    assert messages["agv"] == messages["torch"]


def test_blocks_nest_and_end():
    seen = []
    outer = agv.autograd.graph.saved_tensors_hooks(lambda t: seen.append("outer") or t, lambda t: t)
    inner = agv.autograd.graph.saved_tensors_hooks(lambda t: seen.append("inner") or t, lambda t: t)
    x = agv.ones(2, requires_grad=True)
    with outer:
        x.exp()
        with inner:
            x.exp()
        x.exp()
    y = x.exp()
    assert seen == ["outer", "inner", "outer"]
    assert type(y.grad_fn._saved[0]) is np.ndarray  # no hook: the node keeps the array, as always


def test_a_failing_pack_hook_leaves_the_hooks_stack_clean():
    def pack(t):
        raise ValueError("no room")

    x = agv.ones(2, requires_grad=True)
    with pytest.raises(ValueError, match="no room"):
        with agv.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            x.exp()
    assert type(x.exp().grad_fn._saved[0]) is not Packed


def test_in_place_checks_still_hold_with_hooks():
    x = agv.ones(2, requires_grad=True)
    h = x * 1
    with agv.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        y = h.sin()
    h.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_double_backward_with_hooks_matches_torch():
    grads = {}
    for name, lib in LIBS.items():
        x = lib.tensor([0.5, 1.5], dtype=lib.float64, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            y = (x**3).sin().sum()
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), x)
        grads[name] = (g.detach().numpy(), gg.numpy())
    np.testing.assert_allclose(grads["agv"][0], grads["torch"][0], rtol=1e-12)
    np.testing.assert_allclose(grads["agv"][1], grads["torch"][1], rtol=1e-12)


def test_save_on_cpu_changes_nothing():
    grads = {}
    for name, lib in LIBS.items():
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with lib.autograd.graph.save_on_cpu(pin_memory=False):
            y = (x.exp() * x).sum()
        y.backward()
        grads[name] = x.grad.numpy()
    np.testing.assert_allclose(grads["agv"], grads["torch"], rtol=1e-6)


def test_the_stepper_and_drawings_work_on_a_graph_saved_through_hooks():
    pytest.importorskip("anywidget")
    x = agv.tensor([1.0, 2.0], requires_grad=True)
    with agv.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        y = (x.exp() * x).sum()
    stepper = agv.BackwardStepper(y)
    stepper.run_to_end()
    stepper.apply()
    np.testing.assert_allclose(x.grad.numpy(), np.exp([1.0, 2.0]) * (1 + np.array([1.0, 2.0])), rtol=1e-6)
    stepper.close()


def test_disable_saved_tensors_hooks_as_torch():
    for lib in LIBS.values():
        graph = lib.autograd.graph
        with graph.disable_saved_tensors_hooks("no hooks here"):
            with pytest.raises(RuntimeError, match="^no hooks here$"):
                with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                    pass
            y = lib.ones(2, requires_grad=True).exp()  # ops still save, without hooks
        with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            with pytest.raises(RuntimeError, match="^no hooks here$"):
                with graph.disable_saved_tensors_hooks("no hooks here"):
                    pass
        with graph.saved_tensors_hooks(lambda t: t, lambda t: t):  # both blocks ended cleanly
            y = lib.ones(2, requires_grad=True).exp()
        y.sum().backward()
