"""Pointwise and arithmetic ops at the edges, each against torch: NaN and inf
inputs and upstream gradients, mixed float dtypes, bool and integer tensors.

Each test runs the same code on autogradviz and on torch and compares values
(NaN positions included), gradients, dtypes, and for errors the class and text."""

from __future__ import annotations

import numpy as np
import pytest

import autogradviz as agv

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

NAN, INF = float("nan"), float("inf")
# the edges: nan, both signs of zero, both infinities, and ordinary values
EDGES = [NAN, -1.0, 0.0, -0.0, 2.0, INF, -INF]
UPSTREAM = pytest.mark.parametrize("g", [1.0, INF, NAN], ids=["g=1", "g=inf", "g=nan"])


def dtype_name(t) -> str:
    return str(t.dtype).split(".")[-1]


def assert_same(ours, theirs, what="value"):
    """Same dtype and values, NaN where torch has NaN (assert_array_equal treats
    NaNs in the same places as equal)."""
    assert dtype_name(ours) == dtype_name(theirs), f"{what}: {ours.dtype} vs {theirs.dtype}"
    np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy(), err_msg=what)


def value_and_grads(m, fn, inputs, g):
    """fn(*tensors), then backward with an upstream gradient full of g."""
    xs = [m.tensor(x, requires_grad=True) for x in inputs]
    y = fn(m, *xs)
    y.backward(m.ones_like(y) * g)
    return y, [x.grad for x in xs]


def check(fn, inputs, g=1.0):
    (y, grads), (ty, tgrads) = value_and_grads(agv, fn, inputs, g), value_and_grads(torch, fn, inputs, g)
    assert_same(y, ty, "forward")
    for i, (ours, theirs) in enumerate(zip(grads, tgrads)):
        assert_same(ours, theirs, f"gradient {i}")


def raises_like_torch(fn, exact: bool = True):
    """Both raise the same class; with `exact`, the same message too (we copy
    PyTorch's wording); otherwise ours names the op."""
    with pytest.raises(Exception) as theirs:
        fn(torch)
    with pytest.raises(Exception) as ours:
        fn(agv)
    assert type(ours.value) is type(theirs.value), f"{ours.value!r} vs {theirs.value!r}"
    if exact:
        assert str(ours.value) == str(theirs.value)
    return str(ours.value)


# -- 1. NaN and inf ----------------------------------------------------------------------------


@UPSTREAM
@pytest.mark.parametrize("op", ["relu", "abs", "sign"])
def test_unary_at_nan_inf_and_signed_zero(op, g):
    # relu(nan) is nan with slope 1; |a|' and sign(a) are 0 at nan; an inf g is not turned into nan
    check(lambda m, x: getattr(m, op)(x), [EDGES], g)


@UPSTREAM
def test_leaky_relu_under_an_inf_upstream_gradient(g):
    check(lambda m, x: m.nn.functional.leaky_relu(x, 0.1), [EDGES], g)


@UPSTREAM
@pytest.mark.parametrize("op", ["maximum", "minimum"])
def test_maximum_minimum_at_nan_and_ties(op, g):
    # nan on either side: the output is nan and both inputs get g; a tie (0 vs -0 too) halves g
    a = [NAN, 1.0, 2.0, NAN, 3.0, 0.0, -INF]
    b = [1.0, NAN, 2.0, NAN, 1.0, -0.0, -INF]
    check(lambda m, x, y: getattr(m, op)(x, y), [a, b], g)


@UPSTREAM
@pytest.mark.parametrize("op", ["maximum", "minimum"])
def test_maximum_minimum_against_zero_at_the_edges(op, g):
    check(lambda m, x, y: getattr(m, op)(x, y), [EDGES, [0.0] * len(EDGES)], g)


@UPSTREAM
@pytest.mark.parametrize("p", [0, 0.0, -0.0], ids=["0", "0.0", "-0.0"])
def test_power_zero_sends_zeros_even_for_inf_or_nan_g(p, g):
    check(lambda m, x: x**p, [EDGES], g)


@UPSTREAM
def test_power_one_and_two_at_the_edges(g):
    check(lambda m, x: x**2 + x**1, [EDGES], g)


@pytest.mark.parametrize("g", [1.0, INF, NAN, 0.0], ids=["g=1", "g=inf", "g=nan", "g=0"])
def test_tensor_exponent_conventions_at_zero(g):
    # a⁰'s slope in a is exactly 0 (even for an inf g); aᵇ·ln a is taken as 0 at a = 0, b >= 0,
    # then multiplied by g (so an inf g gives nan there, as in PyTorch)
    a = [0.0, 0.0, 0.0, 2.0, 2.0, -1.0, 0.0, NAN, 1.0, INF]
    b = [0.0, 2.0, -1.0, 0.0, 1.5, 0.5, NAN, 0.0, INF, 0.0]
    check(lambda m, x, y: x**y, [a, b], g)


@UPSTREAM
@pytest.mark.parametrize("k", [2.0, 0.0, 0, -2.0])
def test_number_to_tensor_power_at_the_edges(k, g):
    # 0 ** b: the slope in b is 0 where b >= 0, and 0ᵇ·ln 0 = -inf where b < 0, as in PyTorch
    check(lambda m, x: k**x, [[0.0, -1.0, 2.0, INF, -INF, NAN, 0.5]], g)


def test_relu_and_sign_second_derivatives_stay_zero_not_missing():
    """The where() in relu's backward must keep the output in a create_graph graph."""

    def fn(m):
        x = m.tensor([-1.0, 0.0, 2.0, NAN], requires_grad=True)
        grad = agv.grad if m is agv else torch.autograd.grad
        (gx,) = grad((m.relu(x) * 3).sum() + (m.sign(x) * x).sum(), x, create_graph=True)
        (gxx,) = grad(gx.sum(), x, allow_unused=True)
        return gx, gxx

    (gx, gxx), (tgx, tgxx) = fn(agv), fn(torch)
    assert_same(gx, tgx, "first")
    assert gxx is not None and tgxx is not None
    assert_same(gxx, tgxx, "second")


# -- 2. a float32 base with a float64 exponent -----------------------------------------------


@pytest.mark.parametrize("shape", [(), (2,), (2, 2)], ids=["0-d", "1-d", "2-d"])
@pytest.mark.parametrize("base_first", [True, False], ids=["a32**b64", "b64**a32"])
def test_float32_and_float64_powers_match_dtypes_and_precision(shape, base_first):
    def fn(m):
        a = m.tensor(np.array([[1.5, 2.0], [0.5, 3.0]], dtype=np.float32), requires_grad=True)
        b = m.tensor(np.full(shape, 1.7), dtype=m.float64, requires_grad=True)
        y = a**b if base_first else b**a
        y.sum().backward()
        return y, a.grad, b.grad

    for ours, theirs, what in zip(fn(agv), fn(torch), ["result", "grad a", "grad b"]):
        assert dtype_name(ours) == dtype_name(theirs), what
        # a float64 result (b has dimensions) keeps float64's digits in b's gradient too
        rtol = 1e-12 if dtype_name(theirs) == "float64" and (shape or not base_first) else 1e-6
        if what == "grad b" and not shape:  # summed from a float32 result, in float32 in both
            rtol = 1e-6
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=rtol, err_msg=what)


# -- 3. errors as in PyTorch ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "bounds",
    [(0.5, 2.5), (0.5, None), (None, 1.5), (1, 1.5), (0.5, 2), (1, 2)],
    ids=["float-float", "float-min", "float-max", "int-float", "float-int", "int-int"],
)
@pytest.mark.parametrize("values", [[0, 1, 2, 3], [True, False]], ids=["int", "bool"])
def test_clamp_of_int_or_bool_tensors_has_torchs_dtype(values, bounds):
    low, high = bounds
    ours, theirs = agv.clamp(agv.tensor(values), low, high), torch.clamp(torch.tensor(values), low, high)
    assert_same(ours, theirs)


def test_clamp_float_tensor_keeps_its_dtype():
    for dtype in ("float32", "float64"):
        ours = agv.clamp(agv.tensor([0.0, 1.0, NAN], dtype=getattr(agv, dtype)), 0.5, 2)
        theirs = torch.clamp(torch.tensor([0.0, 1.0, NAN], dtype=getattr(torch, dtype)), 0.5, 2)
        assert_same(ours, theirs)


def test_clamp_bound_outside_float32_raises():
    message = raises_like_torch(lambda m: m.clamp(m.tensor([0.0, 1.0]), 1e300), exact=False)
    assert "clamp" in message and "without overflow" in message and "float32" in message


@pytest.mark.parametrize("spell", ["function", "method", "builtin"])
def test_abs_of_bool_raises_not_implemented(spell):
    call = {"function": lambda m, t: m.abs(t), "method": lambda m, t: t.abs(), "builtin": lambda m, t: abs(t)}
    message = raises_like_torch(lambda m: call[spell](m, m.tensor([True, False])), exact=False)
    assert "abs" in message and "not implemented for 'Bool'" in message


@pytest.mark.parametrize("spell", ["function", "method"])
def test_relu_of_bool_raises(spell):
    call = {"function": lambda m, t: m.relu(t), "method": lambda m, t: t.relu()}
    raises_like_torch(lambda m: call[spell](m, m.tensor([True, False])))


def test_sign_and_abs_of_bools_ints_and_signed_zeros():
    for values in ([True, False], [-3, 0, 2], [-0.0, 0.0, NAN, -2.5]):
        assert_same(agv.sign(agv.tensor(values)), torch.sign(torch.tensor(values)))
        ours, theirs = agv.tensor(values), torch.tensor(values)
        if values[0] is not True:  # abs of a bool raises (above)
            assert_same(agv.abs(ours), torch.abs(theirs))
            # sign(-0.0) and |-0.0| are +0.0 in both
            assert np.array_equal(np.signbit(agv.abs(ours).numpy()), np.signbit(torch.abs(theirs).numpy()))
            assert np.array_equal(np.signbit(agv.sign(ours).numpy()), np.signbit(torch.sign(theirs).numpy()))


def test_negation_of_bool_raises():
    raises_like_torch(lambda m: -m.tensor([True, False]))


SHAPES = [
    ((2, 3), (3, 2)),
    ((3,), (3,)),
    ((2, 3), (3,)),
    ((3,), (3, 2)),
    ((4, 2, 3), (4, 3, 2)),
    ((2, 2, 3), (3, 2)),
]


@pytest.mark.parametrize("shapes", SHAPES, ids=[f"{a}@{b}" for a, b in SHAPES])
@pytest.mark.parametrize("dtypes", [("float32", "float64"), ("float64", "float32"), ("int64", "float32")])
def test_matmul_with_mixed_dtypes_raises(shapes, dtypes):
    def fn(m):
        return m.ones(*shapes[0], dtype=getattr(m, dtypes[0])) @ m.ones(
            *shapes[1], dtype=getattr(m, dtypes[1])
        )

    message = raises_like_torch(fn, exact=False)
    assert "matmul" in message and "same dtype" in message
    assert f"{dtypes[0]} and {dtypes[1]}" in message and f"{shapes[0]} and {shapes[1]}" in message


def test_matmul_shapes_are_checked_before_dtypes():
    message = raises_like_torch(lambda m: m.ones(2, 3) @ m.ones(4, 2, dtype=m.float64), exact=False)
    assert "cannot be multiplied" in message


def test_matmul_of_bools_raises_and_of_ints_works():
    message = raises_like_torch(
        lambda m: m.ones(2, 2, dtype=m.bool) @ m.ones(2, 2, dtype=m.bool), exact=False
    )
    assert "matmul" in message and "not implemented for 'Bool'" in message
    ours = agv.ones(2, 3, dtype=agv.int64) @ agv.ones(3, dtype=agv.int64)
    assert_same(ours, torch.ones(2, 3, dtype=torch.int64) @ torch.ones(3, dtype=torch.int64))


SUBTRACTIONS = {
    "bool-bool": lambda m: m.tensor([True, False]) - m.tensor([True, True]),
    "sub(bool, bool)": lambda m: m.sub(m.tensor([True, False]), m.tensor([True, True])),
    "0-d bool-bool": lambda m: m.tensor(True) - m.tensor([True, False]),
    "bool-True": lambda m: m.tensor([True, False]) - True,
    "True-bool": lambda m: True - m.tensor([True, False]),
    "bool-1": lambda m: m.tensor([True, False]) - 1,
    "1.5-bool": lambda m: 1.5 - m.tensor([True, False]),
    "bool-int": lambda m: m.tensor([True, False]) - m.tensor([1, 1]),
    "float-bool": lambda m: m.tensor([1.0, 2.0]) - m.tensor([True, False]),
    "int-True": lambda m: m.tensor([1, 2]) - True,
    "True-int": lambda m: True - m.tensor([1, 2]),
}


@pytest.mark.parametrize("name", list(SUBTRACTIONS))
def test_subtraction_with_bools_raises_as_torch(name):
    raises_like_torch(SUBTRACTIONS[name])


def test_other_bool_arithmetic_still_works():
    for fn in (lambda m, t: t + t, lambda m, t: t * t, lambda m, t: t / t):
        assert_same(fn(agv, agv.tensor([True, False])), fn(torch, torch.tensor([True, False])))


# -- 4. integer powers ------------------------------------------------------------------------------

INT_POWERS = {
    "2**[-1, 2]": lambda m: 2 ** m.tensor([-1, 2]),
    "2**0-d -1": lambda m: 2 ** m.tensor(-1),
    "1**[-1, 2]": lambda m: 1 ** m.tensor([-1, 2]),
    "-1**[-1, -2, 2]": lambda m: (-1) ** m.tensor([-1, -2, 2]),
    "0**[-1, 2, 0]": lambda m: 0 ** m.tensor([-1, 2, 0]),
    "True**[-1, 2]": lambda m: True ** m.tensor([-1, 2]),
    "pow(2, t)": lambda m: m.pow(2, m.tensor([-1, 2])),
    "int**int": lambda m: m.tensor([3, -3, 1, -1, 0, 2]) ** m.tensor([-1, -3, -5, -5, -2, 3]),
    "int**0-d int": lambda m: m.tensor([1, 2]) ** m.tensor(-1),
    "bool**int": lambda m: m.tensor([True, False]) ** m.tensor([-1, 2]),
    "broadcast": lambda m: m.tensor([[2], [-1]]) ** m.tensor([-2, 0, 3]),
    "int**float": lambda m: m.tensor([2, 3]) ** m.tensor([-1.0, 2.0]),
    "2.0**int": lambda m: 2.0 ** m.tensor([-1, 2]),
}


@pytest.mark.parametrize("name", list(INT_POWERS))
def test_integer_tensor_exponents_as_torch(name):
    assert_same(INT_POWERS[name](agv), INT_POWERS[name](torch))


@pytest.mark.parametrize(
    "fn",
    [
        lambda m: m.tensor([1, 2]) ** -1,
        lambda m: m.tensor([1, 2]) ** -2,
        lambda m: m.pow(m.tensor([1, 2]), -1),
    ],
    ids=["int**-1", "int**-2", "pow(int, -1)"],
)
def test_integer_tensor_to_a_negative_number_raises_as_torch(fn):
    raises_like_torch(fn)


def test_integer_power_shapes_that_do_not_broadcast_raise():
    message = raises_like_torch(lambda m: m.tensor([1, 2]) ** m.tensor([-1, 2, 3]), exact=False)
    assert "pow" in message


def test_bool_to_bool_power_raises_not_implemented():
    message = raises_like_torch(lambda m: m.tensor([True, False]) ** m.tensor([True, True]), exact=False)
    assert "pow" in message and "not implemented for 'Bool'" in message


@pytest.mark.parametrize(
    "values", [[1.0, float("nan"), 3.0], [float("nan"), float("nan"), 3.0], [[1.0, float("nan")], [4.0, 2.0]]]
)
@pytest.mark.parametrize("name", ["max", "min"])
def test_max_and_min_of_everything_at_nan_as_torch(values, name):
    grads = []
    for lib in (agv, torch):
        x = lib.tensor(values, dtype=lib.float64, requires_grad=True)
        getattr(x, name)().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(grads[0], grads[1])


def test_max_of_everything_at_nan_twice_differentiable():
    x = agv.tensor([1.0, float("nan"), float("nan")], dtype=agv.float64, requires_grad=True)
    (gx,) = agv.grad(x.max(), x, create_graph=True)
    assert gx.tolist() == [0.0, 0.5, 0.5]
