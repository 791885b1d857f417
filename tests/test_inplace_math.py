"""In-place math (x.sin_(), x.exp_(), x.relu_(), ...) against PyTorch: the node
recorded, the version counter, the leaf rule, saved values changed later, and
views of a tensor changed in place.

Values, gradients and double gradients are also checked by test_ops_vs_torch.py
(the "inplace-..." cases of _op_cases.py).
"""

from __future__ import annotations

import numpy as np
import pytest

import autogradviz as agv

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning:autogradviz")

VALUES = [[0.5, -0.25, 0.75], [0.125, -0.5, 0.375]]  # inside every op's domain once made positive
POSITIVE = {"log_", "log2_", "log10_", "log1p_", "sqrt_", "rsqrt_"}
NAMES = """abs_ neg_ exp_ exp2_ expm1_ log_ log2_ log10_ log1p_ sqrt_ rsqrt_ square_ reciprocal_
    sin_ cos_ tan_ sinh_ cosh_ tanh_ asin_ acos_ atan_ sigmoid_ relu_ floor_ ceil_ round_ trunc_""".split()


def start(L, name):
    x = L.tensor(VALUES, dtype=L.float64, requires_grad=True)
    y = x.abs() + 0.1 if name in POSITIVE else x * 1
    return x, y


@pytest.mark.parametrize("name", NAMES)
def test_inplace_op_records_pytorchs_node_and_bumps_the_version_once(name):
    results = {}
    for L in (agv, torch):
        x, y = start(L, name)
        before = y._version
        out = getattr(y, name)()
        assert out is y  # in-place ops return the tensor itself
        assert y._version == before + 1
        g = np.arange(6.0).reshape(2, 3)
        y.backward(L.tensor(g))
        results[L] = (type(y.grad_fn).__name__, y.detach().numpy(), x.grad.numpy())
    (ours_name, ours_value, ours_grad), (name_t, value_t, grad_t) = results[agv], results[torch]
    assert ours_name == name_t
    np.testing.assert_allclose(ours_value, value_t, rtol=1e-12)
    np.testing.assert_allclose(ours_grad, grad_t, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("name", ["sin_", "exp_", "relu_", "sigmoid_"])
def test_a_leaf_that_requires_grad_refuses_with_pytorchs_message(name):
    with pytest.raises(RuntimeError) as theirs:
        getattr(torch.ones(2, requires_grad=True), name)()
    leaf = agv.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError) as ours:
        getattr(leaf, name)()
    assert str(theirs.value) in str(ours.value)
    assert leaf._version == 0 and leaf.tolist() == [1.0, 1.0]  # nothing changed


def test_under_no_grad_a_leaf_may_change_in_place():
    w = agv.tensor([0.5, 2.0], requires_grad=True)
    with agv.no_grad():
        w.exp_()
    assert w.grad_fn is None and w.is_leaf and w._version == 1
    np.testing.assert_allclose(w.detach().numpy(), np.exp(np.float32([0.5, 2.0])))


def test_an_int_tensor_refuses_a_float_result_and_stays_as_it_was():
    with pytest.raises(RuntimeError) as theirs:
        torch.tensor([1, 2]).sin_()
    x = agv.tensor([1, 2])
    with pytest.raises(RuntimeError) as ours:
        x.sin_()
    assert str(theirs.value) in str(ours.value)
    assert x.tolist() == [1, 2] and x._version == 0


def test_int_tensors_keep_integer_in_place_ops():
    for L in (agv, torch):
        x = L.tensor([-3, 2])
        x.abs_()
        x.neg_()
        x.square_()
        assert x.tolist() == [9, 4]


# -- saved values: what changed later raises at backward, as in PyTorch -------------------------------


def _backward_outcome(L, program):
    x = L.tensor(VALUES, dtype=L.float64, requires_grad=True)
    try:
        program(x).sum().backward()
    except RuntimeError as error:
        return "raises", str(error)
    return "ok", x.grad.numpy()


PROGRAMS = {
    # exp_ saves its output, which add_ then changes
    "exp_ then add_": lambda x: (x * 1).exp_().add_(1),
    # sin_ saves its input (a copy of the old value): changing the result is fine
    "sin_ then add_": lambda x: (x * 1).sin_().add_(1),
    "sigmoid_ then mul_": lambda x: (x * 1).sigmoid_().mul_(2),
    "relu_ then relu_": lambda x: (x * 1).relu_().relu_(),
    "tanh_ then used": lambda x: (y := (x * 1).tanh_()) * y,
    "sqrt_ of a used value": lambda x: (y := x * x) * (y.sqrt_()),
    "log_ of a saved input": lambda x: (y := x.abs() + 1) * y.clone().log_(),
    "mul then sin_ of its input": lambda x: (y := x * 1) * x + y.sin_(),
}


@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_a_saved_value_changed_later_raises_exactly_when_pytorch_does(program):
    ours, theirs = _backward_outcome(agv, PROGRAMS[program]), _backward_outcome(torch, PROGRAMS[program])
    assert ours[0] == theirs[0], (ours, theirs)
    if ours[0] == "ok":
        np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-12)
    else:
        assert ours[1].startswith("one of the variables needed for gradient computation has been modified")


# -- views: the base, and every other view of it, see the change ----------------------------------


def _views_program(L, name):
    x = L.tensor(VALUES, dtype=L.float64, requires_grad=True)
    y = x * 1
    column = y[:, 0]  # made before the change: it must see it
    getattr(y[0], name)()  # a view of y: y's history is rebased (CopySlices)
    out = (y * column[:, None]).sum() + column.sum()
    out.backward()
    return type(y.grad_fn).__name__, y.detach().numpy(), column.detach().numpy(), x.grad.numpy()


@pytest.mark.parametrize("name", ["sin_", "exp_", "tanh_", "sigmoid_", "relu_", "neg_", "square_"])
def test_a_view_changed_in_place_updates_its_base_and_the_other_views(name):
    ours, theirs = _views_program(agv, name), _views_program(torch, name)
    assert ours[0] == theirs[0] == "CopySlices"
    for a, t in zip(ours[1:], theirs[1:]):
        np.testing.assert_allclose(a, t, rtol=1e-12)


def test_functions_relu_and_sigmoid_in_place_exist_as_in_torch():
    for name in ("relu_", "sigmoid_", "sin_", "exp_", "tanh_"):
        x, t = agv.tensor([-1.0, 0.5]), torch.tensor([-1.0, 0.5])
        assert getattr(agv, name)(x) is x
        getattr(torch, name)(t)
        np.testing.assert_allclose(x.numpy(), t.numpy(), rtol=1e-6)


def test_clamp_min_and_max_in_place_match_torch():
    for name, bound in (("clamp_min_", 0.1), ("clamp_max_", -0.1)):
        outcomes = []
        for L in (agv, torch):
            x = L.tensor(VALUES, dtype=L.float64, requires_grad=True)
            y = x * 2
            getattr(y, name)(bound)
            (y * x).sum().backward()
            outcomes.append((y.detach().numpy(), x.grad.numpy(), y._version))
        for a, t in zip(*outcomes):
            np.testing.assert_allclose(a, t)
