"""agv.autograd.functional and gradgradcheck against torch's: the same values
(in float64), the same output structure (tensor vs tuple vs tuple of tuples),
the same errors; and gradgradcheck catches a backward that is right but not
differentiable."""

from __future__ import annotations

import numpy as np
import pytest

import autogradviz as agv
from autogradviz.autograd import functional as AF
from autogradviz.core.graph import Node
from autogradviz.core.record import record

torch = pytest.importorskip("torch")
TF = torch.autograd.functional

RNG = np.random.default_rng(0)
X = RNG.random((2, 2)) + 0.5
Y = RNG.random((2, 2)) + 0.5


def lib_inputs(lib, *arrays):
    return tuple(lib.tensor(a.copy()) for a in arrays)


def same(ours, theirs):
    """Same nesting of tuples, same shapes and values."""
    if isinstance(theirs, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            same(o, t)
        return
    assert isinstance(ours, agv.Tensor), type(ours)
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-10, atol=1e-12)


# the functions of PyTorch's documentation of torch.autograd.functional
def exp_reducer(x):
    return x.exp().sum(dim=1)


def exp_adder(x, y):
    return 2 * x.exp() + 3 * y


def pow_reducer(x):
    return x.pow(3).sum()


def pow_adder_reducer(x, y):
    return (2 * x.pow(2) + 3 * y.pow(2)).sum()


def two_outputs(x, y):
    return (x * y).tanh(), (x.exp() * y).sum()


def adder(x, y):
    return 2 * x + 3 * y


# -- values and structure ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fn, arrays, as_tuple",
    [
        (exp_reducer, (X,), False),
        (exp_reducer, (X,), True),
        (exp_adder, (X, Y), True),
        (two_outputs, (X, Y), True),
        (lambda x: x.sin() * x, (X,), False),
    ],
)
def test_jacobian_matches_torch(fn, arrays, as_tuple):
    def call(lib, module):
        inputs = lib_inputs(lib, *arrays)
        return module.jacobian(fn, inputs if as_tuple or len(inputs) > 1 else inputs[0])

    same(call(agv, AF), call(torch, TF))


@pytest.mark.parametrize(
    "fn, arrays",
    [(pow_reducer, (X,)), (pow_adder_reducer, (X, Y)), (lambda x, y: (x.exp() * y.sin()).sum(), (X, Y))],
)
def test_hessian_matches_torch(fn, arrays):
    def call(lib, module):
        inputs = lib_inputs(lib, *arrays)
        return module.hessian(fn, inputs if len(inputs) > 1 else inputs[0])

    same(call(agv, AF), call(torch, TF))


@pytest.mark.parametrize("name", ["vjp", "jvp"])
@pytest.mark.parametrize(
    "fn, arrays", [(exp_reducer, (X,)), (adder, (X, Y)), (two_outputs, (X, Y)), (lambda x: x.exp(), (X,))]
)
def test_vjp_and_jvp_match_torch(name, fn, arrays):
    def call(lib, module):
        inputs = lib_inputs(lib, *arrays)
        outputs = fn(*inputs)
        like = (outputs if isinstance(outputs, tuple) else (outputs,)) if name == "vjp" else inputs
        v = tuple(
            lib.tensor(np.linspace(0.5, 1.5, int(np.prod(t.shape))).reshape(tuple(t.shape))) for t in like
        )
        v = v if len(v) > 1 or isinstance(outputs, tuple) and name == "vjp" else v[0]
        single = inputs if len(inputs) > 1 else inputs[0]
        return getattr(module, name)(fn, single, v)

    same(call(agv, AF), call(torch, TF))


@pytest.mark.parametrize("name", ["vhp", "hvp"])
@pytest.mark.parametrize("fn, arrays", [(pow_reducer, (X,)), (pow_adder_reducer, (X, Y))])
def test_vhp_and_hvp_match_torch(name, fn, arrays):
    def call(lib, module):
        inputs = lib_inputs(lib, *arrays)
        v = tuple(lib.ones(2, 2, dtype=lib.float64) * (i + 1) for i in range(len(inputs)))
        return getattr(module, name)(fn, *((inputs, v) if len(inputs) > 1 else (inputs[0], v[0])))

    same(call(agv, AF), call(torch, TF))


def test_v_may_be_omitted_for_one_element():
    x_agv, x_torch = agv.tensor([0.7], dtype=agv.float64), torch.tensor([0.7], dtype=torch.float64)
    same(AF.vjp(lambda x: x.sin().sum(), x_agv), TF.vjp(lambda x: x.sin().sum(), x_torch))
    same(AF.jvp(lambda x: x.exp(), x_agv), TF.jvp(lambda x: x.exp(), x_torch))
    same(AF.hvp(lambda x: x.pow(3).sum(), x_agv), TF.hvp(lambda x: x.pow(3).sum(), x_torch))


def test_no_history_and_inputs_untouched_without_create_graph():
    x = agv.tensor(X.copy(), requires_grad=True)
    jac = AF.jacobian(exp_reducer, x)
    out, vjp = AF.vjp(exp_reducer, x, agv.ones(2, dtype=agv.float64))
    assert jac.grad_fn is None and not jac.requires_grad
    assert out.grad_fn is None and vjp.grad_fn is None
    assert x.grad is None  # agv.grad, never backward: no .grad written


def test_create_graph_results_can_be_differentiated_again():
    def second(lib, module):
        x = lib.tensor(X.copy(), requires_grad=True)
        jac = module.jacobian(exp_reducer, x, create_graph=True)
        (g,) = lib.autograd.grad((jac * jac).sum(), x)
        return jac, g

    ours, theirs = second(agv, AF), second(torch, TF)
    assert ours[0].grad_fn is not None
    same(ours, theirs)


def test_non_strict_independent_input_gets_zeros():
    def call(module, lib):
        x, y = lib_inputs(lib, X, Y)
        return module.jacobian(lambda a, b: a * 2, (x, y)), module.vjp(lambda a, b: a.sum(), (x, y))

    same(call(AF, agv), call(TF, torch))


# -- errors ---------------------------------------------------------------------------------------


def torch_message(fn) -> tuple[type, str]:
    with pytest.raises(Exception) as info:
        fn(torch, TF)
    return type(info.value), str(info.value)


def check_same_error(fn, upto: str | None = None):
    """Our error has torch's class and begins with torch's sentence (up to `upto`)."""
    kind, message = torch_message(fn)
    with pytest.raises(Exception) as ours:
        fn(agv, AF)
    assert type(ours.value) is kind or issubclass(type(ours.value), kind), (type(ours.value), kind)
    expected = message if upto is None else message[: message.index(upto) + len(upto)]
    assert str(ours.value).startswith(expected), (str(ours.value), expected)


@pytest.mark.parametrize(
    "fn, upto",
    [
        (lambda lib, m: m.jacobian(lambda a, b: a * 2, lib_inputs(lib, X, Y), strict=True), None),
        (
            lambda lib, m: m.jacobian(
                lambda a: lib.ones(2, dtype=lib.float64), lib_inputs(lib, X), strict=True
            ),
            None,
        ),
        (lambda lib, m: m.vjp(lambda a, b: a.sum(), lib_inputs(lib, X, Y), strict=True), None),
        (
            lambda lib, m: m.jvp(
                lambda a, b: a * 2, lib_inputs(lib, X, Y), lib_inputs(lib, X, Y), strict=True
            ),
            None,
        ),
        (lambda lib, m: m.hessian(lambda a: (a * 2).sum(), lib_inputs(lib, X)[0], strict=True), None),
        (
            lambda lib, m: m.vhp(
                lambda a: (a * 2).sum(), lib_inputs(lib, X)[0], lib_inputs(lib, X)[0], strict=True
            ),
            None,
        ),
        (lambda lib, m: m.vjp(exp_reducer, lib_inputs(lib, X)[0]), None),
        (lambda lib, m: m.jvp(exp_reducer, lib_inputs(lib, X)[0]), None),
        (
            lambda lib, m: m.vjp(exp_reducer, lib_inputs(lib, X)[0], lib.ones(3, dtype=lib.float64)),
            "should be",
        ),
        (lambda lib, m: m.jvp(adder, lib_inputs(lib, X, Y), lib_inputs(lib, X)), None),
        (lambda lib, m: m.jvp(exp_reducer, lib_inputs(lib, X)[0], lib_inputs(lib, X, Y)), None),
        (
            lambda lib, m: m.jvp(adder, lib_inputs(lib, X, Y), (lib.ones(2, dtype=lib.float64),) * 2),
            "should be",
        ),
        (lambda lib, m: m.hessian(exp_reducer, lib_inputs(lib, X)[0]), None),
        (lambda lib, m: m.hessian(two_outputs, lib_inputs(lib, X, Y)), None),
        (lambda lib, m: m.hvp(exp_reducer, lib_inputs(lib, X)[0], lib_inputs(lib, X)[0]), None),
        (lambda lib, m: m.jacobian(exp_reducer, lib_inputs(lib, X)[0], strategy="sideways"), None),
        (lambda lib, m: m.jacobian(exp_reducer, [1.0, 2.0]), "has type"),
        (lambda lib, m: m.jacobian(adder, (lib_inputs(lib, X)[0], 3.0)), "has type"),
        (lambda lib, m: m.jacobian(exp_reducer, lib_inputs(lib, X)[0], vectorize=True, strict=True), None),
    ],
)
def test_errors_match_torch(fn, upto):
    check_same_error(fn, upto)


def test_bad_v_shape_names_both_shapes():
    x = lib_inputs(agv, X)[0]
    with pytest.raises(RuntimeError) as info:
        AF.vjp(exp_reducer, x, agv.ones(3, dtype=agv.float64))
    # torch's sentence, with the shapes as autogradviz's messages print them (or as torch.Size)
    assert str(info.value) in (
        "v has invalid size: should be (2,) but got (3,).",
        "v has invalid size: should be torch.Size([2]) but got torch.Size([3]).",
    )


def test_forward_mode_says_why():
    with pytest.raises(NotImplementedError, match="forward-mode AD"):
        AF.jacobian(exp_reducer, lib_inputs(agv, X)[0], strategy="forward-mode")


# -- gradgradcheck ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fn, arrays",
    [
        (lambda x: (x**3).sin(), (X,)),
        (lambda x, y: (x * y).tanh(), (X, Y)),
        (lambda x: x.exp().sum(dim=1), (X,)),
        (lambda x, y: x @ y, (X, Y)),
        (lambda x: x.sigmoid() * x.log(), (X,)),
    ],
)
def test_gradgradcheck_passes_where_torchs_does(fn, arrays):
    assert torch.autograd.gradgradcheck(fn, tuple(torch.tensor(a, requires_grad=True) for a in arrays))
    assert agv.autograd.gradgradcheck(fn, tuple(agv.tensor(a, requires_grad=True) for a in arrays)) is True


def test_gradgradcheck_with_given_grad_outputs():
    x = agv.tensor(X.copy(), requires_grad=True)
    assert agv.gradgradcheck(lambda t: t.exp() * t, (x,), (agv.ones(2, 2, dtype=agv.float64),))
    with pytest.raises(RuntimeError, match="got 2 grad_outputs for 1 differentiable outputs"):
        agv.gradgradcheck(lambda t: t.exp(), (x,), (agv.ones(2, 2), agv.ones(2, 2)))


class CubeBackward0(Node):
    """The derivative of x³, right in value, but its formula detaches x: under
    create_graph=True it records g·3x² as if x were a constant, so the second
    derivative (6x·g) is lost."""

    __slots__ = ()
    op = "cube"

    def vjp(self, xp, g, x):
        x = x.detach() if isinstance(x, agv.Tensor) else x
        return (g * 3 * x**2,)


def cube(x):
    return record(CubeBackward0, x._data**3, (x,), saved=(x,))


def test_gradgradcheck_catches_a_backward_that_is_not_differentiable():
    x = agv.tensor(X.copy(), requires_grad=True)
    assert agv.gradcheck(cube, (x,))  # first derivatives are right
    assert agv.gradgradcheck(cube, (x,), raise_exception=False) is False
    with pytest.raises(
        agv.GradcheckError, match=r"Jacobian mismatch for output 0 with respect to input 0.*gradgradcheck"
    ):
        agv.gradgradcheck(cube, (x,))
    assert agv.gradgradcheck(lambda t: t**3, (x,))  # pow's backward is written with xp: differentiable


def test_gradgradcheck_leaves_the_inputs_and_the_random_stream_alone():
    x = agv.tensor(X.copy(), requires_grad=True)
    agv.manual_seed(1)
    state = agv.default_generator.get_state()
    agv.gradgradcheck(lambda t: t.sin(), (x,))
    assert agv.default_generator.get_state() == state
    assert x.grad is None and np.array_equal(x.detach().numpy(), X)


@pytest.mark.parametrize("name", ["hessian", "vjp", "jvp", "vhp", "hvp"])
def test_create_graph_for_every_function_matches_torch(name):
    """With create_graph=True the results keep their history: differentiating
    them again (a third derivative for hessian) gives torch's values."""

    def run(lib, module):
        x = lib.tensor(X.copy(), requires_grad=True)
        v = lib.tensor(Y.copy())
        f = {"vjp": exp_reducer, "jvp": exp_reducer}.get(name, pow_reducer)
        if name == "hessian":
            result = module.hessian(f, x, create_graph=True)
        elif name == "vjp":
            result = module.vjp(f, x, lib.ones(2, dtype=lib.float64), create_graph=True)[1]
        else:
            result = getattr(module, name)(f, x, v, create_graph=True)[1]
        (g,) = lib.autograd.grad((result * result).sum(), x)
        return result, g

    same(run(agv, AF), run(torch, TF))
