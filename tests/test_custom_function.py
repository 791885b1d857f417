"""agv.autograd.Function: custom ops with a backward written by the user,
checked against torch.autograd.Function running the very same code.

Each test builds its Function classes with a `lib` argument (torch or
autogradviz), so the code under test is written once, as a tutorial would."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from torch.autograd.function import once_differentiable as torch_once_differentiable

import autogradviz as agv
from autogradviz.autograd.function import once_differentiable as agv_once_differentiable
from autogradviz.core.graph_api import node_classes

LIBS = {"torch": torch, "agv": agv}

pytestmark = pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True:UserWarning")


def error_of(fn) -> tuple[type, str]:
    with pytest.raises(Exception) as info:
        fn()
    return info.type, str(info.value)


def same_error(make):
    """make(lib) runs the failing code; both libraries raise the same class and message."""
    theirs = error_of(lambda: make(torch))
    ours = error_of(lambda: make(agv))
    assert ours == theirs
    return ours


def my_exp(lib):
    class MyExp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            y = x.exp() * k
            ctx.save_for_backward(y)
            ctx.k = k
            return y

        @staticmethod
        def backward(ctx, grad_output):
            (y,) = ctx.saved_tensors
            ctx.seen_needs = ctx.needs_input_grad
            return grad_output * y, None

    return MyExp


# -- the basics ---------------------------------------------------------------------------------------


def test_forward_backward_and_the_node_match_torch():
    results = {}
    for name, lib in LIBS.items():
        x = lib.tensor([1.0, 2.0, -0.5], requires_grad=True)
        y = my_exp(lib).apply(x, 2.0)
        fn = y.grad_fn
        (y * lib.tensor([1.0, 3.0, -2.0])).sum().backward()
        results[name] = dict(
            y=y.detach().numpy(),
            grad=x.grad.numpy(),
            node=type(fn).__name__,
            name=fn.name(),
            printed=str(y).replace(".detach()", ""),
            next=[(type(n).__name__, i) for n, i in fn.next_functions],
            k=fn.k,
            needs=fn.seen_needs,
        )
    ours, theirs = results["agv"], results["torch"]
    np.testing.assert_allclose(ours.pop("y"), theirs.pop("y"), rtol=1e-6)
    np.testing.assert_allclose(ours.pop("grad"), theirs.pop("grad"), rtol=1e-6)
    assert ours == theirs
    assert ours["node"] == "MyExpBackward"
    assert ours["next"] == [("AccumulateGrad", 0)]  # only tensor inputs have an edge


def test_the_node_repr_has_no_address():
    x = agv.tensor([1.0], requires_grad=True)
    y = my_exp(agv).apply(x, 1.0)
    assert repr(y.grad_fn) == "<MyExpBackward>"
    assert repr(y) == "tensor([2.7183], grad_fn=<MyExpBackward>)"
    assert isinstance(y.grad_fn, agv.autograd.graph.Node)


def test_needs_input_grad_as_torch_with_and_without_grad_mode():
    seen = {}
    for name, lib in LIBS.items():

        class Add(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, y, k):
                seen.setdefault(name, []).append(ctx.needs_input_grad)
                return x + y * k

            @staticmethod
            def backward(ctx, g):
                return g, g, None

        a = lib.ones(2, requires_grad=True)
        Add.apply(a, lib.ones(2), 3.0)
        Add.apply(lib.ones(2), a, 3.0)
        with lib.no_grad():
            out = Add.apply(a, lib.ones(2), 3.0)
            assert out.grad_fn is None and not out.requires_grad
    assert seen["agv"] == seen["torch"] == [(True, False, False), (False, True, False), (True, False, False)]


def test_no_input_requires_grad_gives_a_plain_result():
    for lib in LIBS.values():
        y = my_exp(lib).apply(lib.ones(2), 2.0)
        assert y.grad_fn is None and not y.requires_grad


def test_apply_binds_keyword_arguments_as_torch():
    values = {}
    for name, lib in LIBS.items():

        class Scale(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, k=2.0):
                ctx.k = k
                return x * k

            @staticmethod
            def backward(ctx, g):
                return g * ctx.k, None

        x = lib.tensor([1.0, 2.0], requires_grad=True)
        Scale.apply(x, k=5.0).sum().backward()
        Scale.apply(x=x).sum().backward()
        values[name] = x.grad.numpy().tolist()
    assert values["agv"] == values["torch"] == [7.0, 7.0]


def test_forward_runs_without_recording_and_backward_without_grad_mode():
    modes = {}
    for name, lib in LIBS.items():

        class Probe(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                inner = x * 2
                modes.setdefault(name, []).append(("forward", lib.is_grad_enabled(), inner.requires_grad))
                return inner

            @staticmethod
            def backward(ctx, g):
                modes[name].append(("backward", lib.is_grad_enabled(), g.requires_grad))
                return g * 2

        x = lib.tensor([1.0], requires_grad=True)
        Probe.apply(x).sum().backward()
    assert modes["agv"] == modes["torch"] == [("forward", False, False), ("backward", False, False)]


def test_returning_an_input_as_it_is_gives_a_new_tensor():
    for lib in LIBS.values():

        class Identity(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, g):
                return g * 3

        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = Identity.apply(x)
        assert y is not x and x.grad_fn is None
        y.sum().backward()
        assert x.grad.tolist() == [3.0, 3.0]


def test_save_for_backward_accepts_none_and_gives_back_leaves_themselves():
    seen = {}
    for name, lib in LIBS.items():

        class Keep(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(None, x)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                none, x = ctx.saved_tensors
                seen[name] = (none, x is leaf)
                return g * 2

        leaf = lib.tensor([1.0], requires_grad=True)
        Keep.apply(leaf).sum().backward()
    assert seen["agv"] == seen["torch"] == (None, True)


def test_a_saved_intermediate_and_a_saved_output():
    grads = {}
    for name, lib in LIBS.items():

        class Softplus(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                e = x.exp()  # neither an input nor the output
                out = (1 + e).log()
                ctx.save_for_backward(e, out)
                return out

            @staticmethod
            def backward(ctx, g):
                e, out = ctx.saved_tensors
                return g * e / (1 + e)

        x = lib.tensor([-1.0, 0.5, 2.0], requires_grad=True)
        Softplus.apply(x).sum().backward()
        grads[name] = x.grad.numpy()
    np.testing.assert_allclose(grads["agv"], grads["torch"], rtol=1e-6)


# -- what backward may return ------------------------------------------------------------------------


def test_wrong_number_of_gradients_is_torchs_error():
    def make(lib):
        class Bad(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, w):
                return x * w

            @staticmethod
            def backward(ctx, g):
                return g

        a, b = lib.ones(2, requires_grad=True), lib.ones(2, requires_grad=True)
        Bad.apply(a, b).sum().backward()

    kind, message = same_error(make)
    assert message == "function BadBackward returned an incorrect number of gradients (expected 2, got 1)"


def test_too_many_gradients_is_an_error_unless_the_extra_ones_are_none():
    def make(lib, extra):
        class Many(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2, extra(g)

        a = lib.ones(2, requires_grad=True)
        Many.apply(a).sum().backward()
        return a.grad.tolist()

    assert same_error(lambda lib: make(lib, lambda g: g))[1] == (
        "function ManyBackward returned an incorrect number of gradients (expected 1, got 2)"
    )
    assert make(agv, lambda g: None) == make(torch, lambda g: None) == [2.0, 2.0]


def test_wrong_shape_is_torchs_error_and_a_broadcast_shape_is_summed():
    def make(lib, shape):
        class Shaped(lib.autograd.Function):
            @staticmethod
            def forward(ctx, k, x):
                return x * k

            @staticmethod
            def backward(ctx, g):
                return None, lib.ones(*shape)

        a = lib.ones(2, requires_grad=True)
        Shaped.apply(2.0, a).sum().backward()
        return a.grad.tolist()

    kind, message = same_error(lambda lib: make(lib, (3,)))
    assert message == (
        "Function ShapedBackward returned an invalid gradient at index 0 - got [3] but expected shape "
        "compatible with [2]"
    )
    assert make(agv, (4, 2)) == make(torch, (4, 2)) == [4.0, 4.0]


def test_a_gradient_for_a_non_tensor_input_and_a_non_tensor_gradient_are_torchs_errors():
    def for_a_number(lib):
        class G(lib.autograd.Function):
            @staticmethod
            def forward(ctx, k, x):
                return x * k

            @staticmethod
            def backward(ctx, g):
                return g, g

        G.apply(2.0, lib.ones(2, requires_grad=True)).sum().backward()

    def a_number(lib):
        class N(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return 3.0

        N.apply(lib.ones(2, requires_grad=True)).sum().backward()

    assert same_error(for_a_number)[1] == (
        "function GBackward returned a gradient different than None at position 1, but the "
        "corresponding forward input was not a Variable"
    )
    assert same_error(a_number) == (RuntimeError, "expected Variable or None (got float)")


def test_none_means_no_gradient_for_that_input():
    grads = {}
    for name, lib in LIBS.items():

        class OnlyFirst(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, w):
                return x * w

            @staticmethod
            def backward(ctx, g):
                return g * 10, None

        x, w = lib.ones(2, requires_grad=True), lib.ones(2, requires_grad=True)
        (OnlyFirst.apply(x, w) + w).sum().backward()
        grads[name] = (x.grad.tolist(), w.grad.tolist())
    assert grads["agv"] == grads["torch"] == ([10.0, 10.0], [1.0, 1.0])


def test_a_gradient_of_another_dtype_is_cast_to_the_inputs():
    for lib in LIBS.values():

        class Double(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g.double() * 2

        x = lib.ones(2, requires_grad=True)
        Double.apply(x).sum().backward()
        assert x.grad.dtype == lib.float32 and x.grad.tolist() == [2.0, 2.0]


def test_the_gradient_written_to_a_leaf_is_not_the_leafs_own_data():
    x = agv.tensor([1.0, 2.0], requires_grad=True)

    class GiveBack(agv.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 1

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return x  # the leaf itself: its .grad must not become the same memory

    GiveBack.apply(x).sum().backward()
    x.grad.mul_(10)
    assert x.tolist() == [1.0, 2.0]


def test_missing_forward_or_backward_are_torchs_errors():
    def no_backward(lib):
        class NoBack(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

        NoBack.apply(lib.ones(2, requires_grad=True)).sum().backward()

    def no_forward(lib):
        class NoForward(lib.autograd.Function):
            pass

        NoForward.apply(lib.ones(2, requires_grad=True))

    assert same_error(no_backward)[0] is NotImplementedError
    assert same_error(no_forward)[0] is NotImplementedError


def test_save_for_backward_of_a_number_is_torchs_error():
    def make(lib):
        class SaveNumber(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(3)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g

        SaveNumber.apply(lib.ones(2, requires_grad=True))

    assert same_error(make) == (
        TypeError,
        "save_for_backward can only save variables, but argument 0 is of type int",
    )


# -- saved tensors: freed, and changed in place ------------------------------------------------------


def test_a_second_backward_is_torchs_error():
    def make(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = my_exp(lib).apply(x, 2.0).sum()
        y.backward()
        y.backward()

    kind, message = same_error(make)
    assert message.startswith("Trying to backward through the graph a second time")


def test_retain_graph_keeps_saved_tensors_for_a_second_backward():
    for lib in LIBS.values():
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = my_exp(lib).apply(x, 1.0).sum()
        y.backward(retain_graph=True)
        y.backward()
        np.testing.assert_allclose(x.grad.numpy(), 2 * np.exp([1.0, 2.0]), rtol=1e-6)


def test_changing_a_saved_tensor_in_place_raises_at_backward():
    def make(lib):
        class Square(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return 2 * x * g

        leaf = lib.ones(2, requires_grad=True)
        m = leaf * 1
        y = Square.apply(m)
        m.add_(1)
        y.sum().backward()

    errors = {name: error_of(lambda lib=lib: make(lib)) for name, lib in LIBS.items()}
    start = "one of the variables needed for gradient computation has been modified by an inplace operation"
    assert errors["agv"][0] is errors["torch"][0] is RuntimeError
    assert errors["agv"][1].startswith(start) and errors["torch"][1].startswith(start)
    assert "SquareBackward" in errors["agv"][1] and "is at version 1; expected version 0" in errors["agv"][1]


# -- double backward ---------------------------------------------------------------------------------


def cube(lib, decorate=lambda f: f):
    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        @decorate
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * x**2 * g

    return Cube


def test_second_derivative_through_a_custom_function_matches_torch():
    results = {}
    for name, lib in LIBS.items():
        x = lib.tensor([2.0, -1.5, 0.25], dtype=lib.float64, requires_grad=True)
        y = cube(lib).apply(x)
        (first,) = lib.autograd.grad(y.sum(), x, create_graph=True)
        (second,) = lib.autograd.grad(first.sum(), x)
        results[name] = (first.detach().numpy(), second.numpy(), type(first.grad_fn).__name__)
    np.testing.assert_allclose(results["agv"][0], results["torch"][0], rtol=1e-12)
    np.testing.assert_allclose(results["agv"][1], results["torch"][1], rtol=1e-12)
    np.testing.assert_allclose(results["agv"][1], 6 * np.array([2.0, -1.5, 0.25]))
    assert results["agv"][2] == results["torch"][2] == "MulBackward0"


def test_backward_with_create_graph_through_a_custom_function():
    for lib in LIBS.values():
        x = lib.tensor([2.0, 3.0], dtype=lib.float64, requires_grad=True)
        cube(lib).apply(x * 1).sum().backward(create_graph=True)
        assert x.grad.requires_grad
        np.testing.assert_allclose(x.grad.detach().numpy(), [12.0, 27.0])
        x.grad = None


def test_once_differentiable_runs_without_grad_and_refuses_a_second_derivative():
    results = {}
    for name, lib, decorate in (
        ("torch", torch, torch_once_differentiable),
        ("agv", agv, agv_once_differentiable),
    ):
        c = lib.tensor([2.0], requires_grad=True)
        (plain,) = lib.autograd.grad(cube(lib, decorate).apply(c), c, create_graph=True)
        # the gradient arriving at Cube depends on c here, so a second derivative is asked of it
        y = cube(lib, decorate).apply(c) * c
        (g,) = lib.autograd.grad(y, c, create_graph=True)
        kind, message = error_of(lambda g=g: g.backward())
        results[name] = (
            plain.tolist(),
            plain.requires_grad,
            g.tolist(),
            [type(n).__name__ for n, _ in g.grad_fn.next_functions],
            kind,
            message,
        )
    assert results["agv"] == results["torch"]
    assert (
        results["agv"][-1]
        == "trying to differentiate twice a function that was marked with @once_differentiable"
    )


def test_once_differentiable_keeps_the_source_for_the_stepper():
    node = cube(agv, agv_once_differentiable).apply(agv.ones(1, requires_grad=True)).grad_fn
    assert "return 3 * x**2 * g" in node.backward_code


# -- torch 2.x style, marks, and outputs --------------------------------------------------------------


def test_setup_context_style_matches_torch():
    results = {}
    for name, lib in LIBS.items():

        class Scale(lib.autograd.Function):
            @staticmethod
            def forward(x, k):
                return x * k

            @staticmethod
            def setup_context(ctx, inputs, output):
                x, k = inputs
                ctx.k = k
                ctx.save_for_backward(output)

            @staticmethod
            def backward(ctx, g):
                (out,) = ctx.saved_tensors
                return g * ctx.k + out * 0, None

        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = Scale.apply(x, 3.0)
        y.sum().backward()
        results[name] = (y.tolist(), type(y.grad_fn).__name__, x.grad.tolist())
    assert results["agv"] == results["torch"] == ([3.0, 6.0], "ScaleBackward", [3.0, 3.0])


@pytest.mark.parametrize("materialize", [True, False])
def test_mark_non_differentiable_outputs(materialize):
    results = {}
    for name, lib in LIBS.items():
        received = []

        class Gather(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(materialize)
                index = lib.tensor([1, 2, 0])
                doubled = x * 2
                ctx.mark_non_differentiable(index, doubled)
                ctx.save_for_backward(index)
                return x[index], index, doubled

            @staticmethod
            def backward(ctx, g, g_index, g_doubled):
                received.append(
                    (
                        g_index if g_index is None else g_index.tolist(),
                        g_doubled if g_doubled is None else g_doubled.tolist(),
                    )
                )
                (index,) = ctx.saved_tensors
                out = lib.zeros_like(g)
                out[index] = g
                return out

        x = lib.tensor([3.0, 1.0, 2.0], requires_grad=True)
        values, index, doubled = Gather.apply(x)
        (values * lib.tensor([1.0, 2.0, 3.0])).sum().backward()
        results[name] = (
            values.tolist(),
            index.requires_grad,
            doubled.requires_grad,
            doubled.grad_fn,
            x.grad.tolist(),
            received,
        )
    assert results["agv"] == results["torch"]


def test_mark_dirty_rebases_the_input_as_torch():
    results = {}
    for name, lib in LIBS.items():

        class Double_(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.mul_(2)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, g):
                return g * 2

        leaf = lib.ones(2, requires_grad=True)
        m = leaf * 1
        out = Double_.apply(m)
        version = m._version
        m.sum().backward()
        leaf_error = error_of(lambda: Double_.apply(lib.ones(2, requires_grad=True)))
        results[name] = (out is m, type(m.grad_fn).__name__, version, leaf.grad.tolist(), leaf_error)
    assert results["agv"] == results["torch"]


def test_two_differentiable_outputs_are_refused_clearly():
    class Two(agv.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 * 2 + g2 * 3

    x = agv.ones(2, requires_grad=True)
    with pytest.raises(
        NotImplementedError, match="TwoBackward: a custom Function with 2 differentiable outputs"
    ):
        Two.apply(x)
    assert x.grad_fn is None and x._version == 0
    with agv.no_grad():  # nothing to differentiate: both come back as plain tensors
        a, b = Two.apply(x)
    assert a.tolist() == [2.0, 2.0] and b.tolist() == [3.0, 3.0]


def test_function_nodes_are_not_on_the_formula_sheet():
    my_exp(agv)  # defines a Function, and so its node class
    assert not any(cls.__name__.endswith("Backward") and "MyExp" in cls.__name__ for cls in node_classes())
    assert all(not getattr(cls, "custom_function", False) for cls in node_classes())


def test_the_tutorials_my_relu_trains_as_in_torch():
    """ "Learning PyTorch with examples", the first version: MyReLU, whose backward
    clones the gradient and writes zeros into it."""
    results = {}
    for name, lib in LIBS.items():

        class MyReLU(lib.autograd.Function):
            @staticmethod
            def forward(ctx, input):
                ctx.save_for_backward(input)
                return input.clamp(min=0)

            @staticmethod
            def backward(ctx, grad_output):
                (input,) = ctx.saved_tensors
                grad_input = grad_output.clone()
                grad_input[input < 0] = 0
                return grad_input

        x = lib.tensor([[1.0, -2.0], [3.0, -0.5], [0.2, 0.3]])
        y = lib.tensor([[1.0], [0.0], [2.0]])
        w1 = lib.tensor([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]], requires_grad=True)
        w2 = lib.tensor([[0.7], [-0.8], [0.9]], requires_grad=True)
        losses = []
        for _ in range(5):
            y_pred = MyReLU.apply(x.mm(w1)).mm(w2)
            loss = (y_pred - y).pow(2).sum()
            losses.append(loss.item())
            loss.backward()
            with lib.no_grad():
                w1 -= 1e-2 * w1.grad
                w2 -= 1e-2 * w2.grad
                w1.grad.zero_()
                w2.grad.zero_()
        results[name] = (losses, w1.detach().numpy(), w2.detach().numpy())
    for ours, theirs in zip(results["agv"], results["torch"]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-6)


# -- PyTorch's "Extending PyTorch" example: LinearFunction in a Module ----------------------------------


def linear_function(lib):
    class LinearFunction(lib.autograd.Function):
        @staticmethod
        def forward(ctx, input, weight, bias=None):
            ctx.save_for_backward(input, weight, bias)
            output = input.mm(weight.t())
            if bias is not None:
                output += bias.unsqueeze(0).expand_as(output)
            return output

        @staticmethod
        def backward(ctx, grad_output):
            input, weight, bias = ctx.saved_tensors
            grad_input = grad_weight = grad_bias = None
            if ctx.needs_input_grad[0]:
                grad_input = grad_output.mm(weight)
            if ctx.needs_input_grad[1]:
                grad_weight = grad_output.t().mm(input)
            if bias is not None and ctx.needs_input_grad[2]:
                grad_bias = grad_output.sum(0)
            return grad_input, grad_weight, grad_bias

    return LinearFunction


def test_the_extending_pytorch_linear_function_matches_torch():
    results = {}
    for name, lib in LIBS.items():
        LinearFunction = linear_function(lib)

        class Linear(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.weight = lib.nn.Parameter(lib.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.0]]))
                self.bias = lib.nn.Parameter(lib.tensor([0.1, -0.2]))

            def forward(self, input):
                return LinearFunction.apply(input, self.weight, self.bias)

        m = Linear()
        x = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        y = m(x)
        y.pow(2).sum().backward()
        results[name] = [t.detach().numpy() for t in (y, m.weight.grad, m.bias.grad, x.grad)]
        results[name].append(str(y.grad_fn))
        # no bias: its gradient slot is None
        (LinearFunction.apply(x, m.weight) * 1).sum().backward()
        results[name].append(x.grad.numpy())
    for ours, theirs in zip(results["agv"], results["torch"]):
        if isinstance(ours, str):
            assert ours.startswith("<LinearFunctionBackward") and theirs.startswith(
                "<torch.autograd.function.LinearFunctionBackward"
            )
        else:
            np.testing.assert_allclose(ours, theirs, rtol=1e-6)


def test_gradcheck_passes_on_a_custom_function():
    rng = np.random.default_rng(1)
    inputs = (
        agv.tensor(rng.standard_normal((5, 4)), requires_grad=True),
        agv.tensor(rng.standard_normal((3, 4)), requires_grad=True),
    )
    assert agv.autograd.gradcheck(linear_function(agv).apply, inputs, eps=1e-6, atol=1e-4)


# -- PyTorch's tutorial: LegendrePolynomial3 -----------------------------------------------------------


def legendre_training(lib, steps: int = 60) -> tuple[list, list]:
    """ "Learning PyTorch with examples": y = a + b·P3(c + d·x), P3 a custom Function."""

    class LegendrePolynomial3(lib.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            ctx.save_for_backward(input)
            return 0.5 * (5 * input**3 - 3 * input)

        @staticmethod
        def backward(ctx, grad_output):
            (input,) = ctx.saved_tensors
            return grad_output * 1.5 * (5 * input**2 - 1)

    dtype = lib.float
    x = lib.linspace(-math.pi, math.pi, 2000, dtype=dtype)
    y = lib.sin(x)
    # the tutorial draws them with torch.full(..., 0.0) and -1.0, 0.0, 0.3: the same here
    a = lib.full((), 0.0, dtype=dtype, requires_grad=True)
    b = lib.full((), -1.0, dtype=dtype, requires_grad=True)
    c = lib.full((), 0.0, dtype=dtype, requires_grad=True)
    d = lib.full((), 0.3, dtype=dtype, requires_grad=True)
    learning_rate = 5e-6
    losses = []
    for _ in range(steps):
        P3 = LegendrePolynomial3.apply
        y_pred = a + b * P3(c + d * x)
        loss = (y_pred - y).pow(2).sum()
        losses.append(loss.item())
        loss.backward()
        with lib.no_grad():
            for p in (a, b, c, d):
                p -= learning_rate * p.grad
                p.grad = None
    return losses, [p.item() for p in (a, b, c, d)]


def test_legendre_polynomial_trains_as_in_torch():
    ours, theirs = legendre_training(agv), legendre_training(torch)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-4)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-4, atol=1e-6)
    assert ours[0][-1] < 0.6 * ours[0][0]  # it learned


# -- drawings and the stepper ---------------------------------------------------------------------------


def small_graph():
    x = agv.tensor([1.0, 2.0], requires_grad=True)
    w = agv.tensor([3.0, 4.0], requires_grad=True)
    out = (my_exp(agv).apply(x * w, 1.0) * 2).sum()
    return x, w, out


def test_drawings_show_the_function_under_its_name():
    pytest.importorskip("graphviz")
    x, w, out = small_graph()
    assert "MyExpBackward" in agv.draw(out, kind="backward").source
    assert "MyExp" in agv.draw(out, names={"x": x, "w": w}).source


def test_the_stepper_explains_a_function_by_the_users_backward():
    pytest.importorskip("anywidget")
    x, w, out = small_graph()
    stepper = agv.BackwardStepper(out, names={"x": x, "w": w})
    names = [step.name for step in stepper.steps]
    assert "MyExpBackward" in names
    position = names.index("MyExpBackward") + 1
    panel = stepper.frames[position]["panel"]
    assert "def backward(ctx, grad_output):" in panel
    assert "(y,) = ctx.saved_tensors" in panel
    assert "local derivatives" not in panel
    # what it sends is the user's backward's result: upstream (2) · 1 · e^(x·w)
    step = stepper.steps[position - 1]
    np.testing.assert_allclose(step.sent[0].value, 2 * np.exp([3.0, 8.0]), rtol=1e-5)
    stepper.run_to_end()
    stepper.apply()
    xt = torch.tensor([1.0, 2.0], requires_grad=True)
    wt = torch.tensor([3.0, 4.0], requires_grad=True)
    (my_exp(torch).apply(xt * wt, 1.0) * 2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-6)
    np.testing.assert_allclose(w.grad.numpy(), wt.grad.numpy(), rtol=1e-6)
    stepper.close()


def test_the_users_code_is_escaped_and_a_missing_source_is_a_sentence():
    pytest.importorskip("anywidget")
    namespace: dict = {}
    exec(  # noqa: S102 - a Function whose source Python cannot find
        "import autogradviz as agv\n"
        "class Tag(agv.autograd.Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, x):\n"
        "        return x * 2\n"
        "    @staticmethod\n"
        "    def backward(ctx, g):\n"
        "        return g * 2\n",
        namespace,
    )
    stepper = agv.BackwardStepper(namespace["Tag"].apply(agv.ones(2, requires_grad=True)).sum())
    panel = stepper.frames[2]["panel"]
    assert "TagBackward" in panel and "The source of Tag.backward is not available" in panel
    stepper.close()

    class Html(agv.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2  # <script>alert(1)</script>

    stepper = agv.BackwardStepper(Html.apply(agv.ones(2, requires_grad=True)).sum())
    panel = stepper.frames[2]["panel"]
    assert "<script>" not in panel and "&lt;script&gt;alert(1)&lt;/script&gt;" in panel
    assert stepper.check([2.0, 2.0])[0] is False  # position 0: the next step is SumBackward0's
    stepper.close()
