"""Every differentiable op against PyTorch: forward values and dtypes, the
gradient of every input for a random upstream gradient, and double backward.

The ops themselves are listed once, in _op_cases.py; the expected numbers all
come from torch running the same code.
"""

from __future__ import annotations

import numpy as np
import pytest
from _op_cases import CASES, make_tensors

import autogradviz as agv

torch = pytest.importorskip("torch")

# autogradviz silences numpy's warnings about inf and nan inside its ops, as
# PyTorch does (log(0) is -inf); pytest resets warning filters for each test
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning:autogradviz")

TOLERANCE = {np.float64: {"rtol": 1e-9, "atol": 1e-11}, np.float32: {"rtol": 1e-5, "atol": 1e-5}}


def agv_dtype_name(torch_dtype) -> str:
    return str(torch_dtype)  # autogradviz prints its dtypes as torch does: "torch.float32"


def assert_same(ours, theirs, tol, what="value"):
    """Same shape, dtype, requires_grad and values (nan where torch has nan)."""
    if theirs is None:
        assert ours is None or not np.any(ours.detach().numpy()), f"{what}: torch has None, we have {ours}"
        return
    assert ours is not None, f"{what}: torch has {theirs}, we have None"
    assert tuple(ours.shape) == tuple(theirs.shape), f"{what}: shape"
    assert str(ours.dtype) == agv_dtype_name(theirs.dtype), f"{what}: dtype"
    # force=True: torch may hand back a ZeroTensor (the second derivative of abs)
    np.testing.assert_allclose(
        ours.detach().numpy(), theirs.detach().numpy(force=True), equal_nan=True, err_msg=what, **tol
    )


def run(case, m, arrays):
    fn = case.torch_fn if (m is torch and case.torch_fn is not None) else case.fn
    inputs = make_tensors(m, arrays)
    return inputs, fn(m, *inputs)


def params(selected):
    return [pytest.param(c, id=c.id) for c in selected]


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["float64", "float32"])
@pytest.mark.parametrize("case", params(CASES))
def test_forward_and_backward_match_torch(case, dtype):
    if dtype is np.float32 and not case.float32:
        pytest.skip("float64 only")
    tol = TOLERANCE[dtype]
    arrays = case.arrays(dtype)
    ours_in, ours = run(case, agv, arrays)
    theirs_in, theirs = run(case, torch, arrays)
    assert_same(ours, theirs, tol, "forward")
    assert ours.requires_grad == theirs.requires_grad

    g = np.random.default_rng(1).standard_normal(theirs.shape).astype(ours.detach().numpy().dtype)
    ours.backward(agv.tensor(g))
    theirs.backward(torch.tensor(g))
    for i, (a, t) in enumerate(zip(ours_in, theirs_in)):
        if t.requires_grad:
            assert_same(a.grad, t.grad, tol, f"grad of input {i}")
        else:
            assert a.grad is None


def _grad(m, outputs, inputs, grad_outputs, create_graph=False):
    grad = agv.grad if m is agv else torch.autograd.grad
    return grad(outputs, inputs, grad_outputs, create_graph=create_graph, allow_unused=True)


def _double_backward(case, m, arrays):
    """First-order grads (graph recorded) with a random upstream `g` that is
    itself differentiable; then the grads of sum(first · v) with respect to the
    inputs and to `g`."""
    inputs, y = run(case, m, arrays)
    rng = np.random.default_rng(2)
    g = m.tensor(rng.standard_normal(tuple(y.shape)), requires_grad=True)
    wrt = [x for x in inputs if x.requires_grad]
    first = _grad(m, y, wrt, g, create_graph=True)
    z = 0
    for gx in first:
        if gx is not None:
            z = z + (gx * m.tensor(rng.standard_normal(tuple(gx.shape)))).sum()
    second = _grad(m, z, wrt + [g], None)
    return first, second


DOUBLE = [c for c in CASES if c.double]


@pytest.mark.parametrize("case", params(DOUBLE))
def test_double_backward_matches_torch(case):
    arrays = case.arrays(np.float64)
    ours_first, ours_second = _double_backward(case, agv, arrays)
    theirs_first, theirs_second = _double_backward(case, torch, arrays)
    tol = TOLERANCE[np.float64]
    for i, (a, t) in enumerate(zip(ours_first, theirs_first)):
        assert_same(a, t, tol, f"first-order grad {i}")
        assert a.requires_grad == t.requires_grad
    for i, (a, t) in enumerate(zip(ours_second, theirs_second)):
        assert_same(a, t, tol, f"second-order grad {i}")


def test_every_double_case_is_listed():
    """The brief's representative set for double backward is all there."""
    ids = {c.id.split("-")[0] for c in DOUBLE}
    wanted = """neg abs exp log sqrt sin cos tanh sigmoid relu clamp mul div pow matmul sum mean
        var std softmax log_softmax logsumexp reshape transpose expand index cat stack max where maximum""".split()
    assert set(wanted) <= ids, set(wanted) - ids


# -- max / min along a dim: (values, indices) -----------------------------------------------


@pytest.mark.parametrize("name", ["max", "min"])
@pytest.mark.parametrize("dim", [0, 1, -1, 2])
@pytest.mark.parametrize("keepdim", [False, True])
def test_max_min_along_dim_returns_values_and_indices(name, dim, keepdim):
    x = np.random.default_rng(3).standard_normal((2, 3, 4))
    ours = getattr(agv, name)(agv.tensor(x), dim, keepdim=keepdim)
    theirs = getattr(torch, name)(torch.tensor(x), dim, keepdim=keepdim)
    values, indices = ours
    assert values is ours.values and indices is ours.indices
    assert_same(ours.values, theirs.values, TOLERANCE[np.float64])
    assert str(ours.indices.dtype) == agv_dtype_name(theirs.indices.dtype)
    np.testing.assert_array_equal(ours.indices.numpy(), theirs.indices.numpy())


# -- stability and special values ------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sigmoid_of_large_values_neither_overflows_nor_gives_nan(dtype):
    x = np.array([-1e4, -1000.0, -89.0, -88.0, 0.0, 88.0, 89.0, 1000.0, 1e4], dtype=dtype)
    a = agv.tensor(x, requires_grad=True)
    with np.errstate(over="raise", invalid="raise"):
        y = agv.sigmoid(a)
        y.backward(agv.ones_like(y))
    t = torch.tensor(x, requires_grad=True)
    torch.sigmoid(t).backward(torch.ones(len(x), dtype=t.dtype))
    assert not np.isnan(y.detach().numpy()).any() and not np.isnan(a.grad.numpy()).any()
    assert_same(y, torch.sigmoid(t), TOLERANCE[dtype])
    assert_same(a.grad, t.grad, TOLERANCE[dtype])


@pytest.mark.parametrize("name", ["softmax", "log_softmax", "logsumexp"])
def test_softmax_family_is_stable_for_huge_inputs(name):
    x = np.array([[1e30, 1e30, 0.0], [-1e30, 0.0, 1.0], [88.0, 89.0, 90.0]], dtype=np.float32)
    ours = getattr(agv, name)(agv.tensor(x), 1)
    theirs = getattr(torch, name)(torch.tensor(x), 1)
    assert_same(ours, theirs, TOLERANCE[np.float32])


def test_logsumexp_of_infinities_matches_torch():
    inf = float("inf")
    x = np.array([[-inf, -inf], [inf, 1.0], [-inf, 2.0]])
    assert_same(agv.logsumexp(agv.tensor(x), 1), torch.logsumexp(torch.tensor(x), 1), TOLERANCE[np.float64])


def test_repeated_index_gradients_accumulate():
    x = np.arange(5.0)
    index = [0, 0, 0, 4, 2, 4]
    a = agv.tensor(x, requires_grad=True)
    t = torch.tensor(x, requires_grad=True)
    a[index].sum().backward()
    t[index].sum().backward()
    assert_same(a.grad, t.grad, TOLERANCE[np.float64])


def test_max_ties_share_the_gradient_evenly():
    x = np.array([[2.0, 5.0], [5.0, 5.0]])
    for name in ("max", "min"):
        a = agv.tensor(x, requires_grad=True)
        t = torch.tensor(x, requires_grad=True)
        getattr(a, name)().backward()
        getattr(t, name)().backward()
        assert_same(a.grad, t.grad, TOLERANCE[np.float64])


# -- dtypes: PyTorch's type promotion ----------------------------------------------------------

_INT = np.array([1, 2, 3])
_FLOAT32 = np.array([0.5, 1.5, 2.5], dtype=np.float32)
_FLOAT64 = np.array([0.5, 1.5, 2.5])

PROMOTION = {
    "int*float-scalar": lambda m: m.tensor(_INT) * 2.5,
    "float-scalar*int": lambda m: 2.5 * m.tensor(_INT),
    "int+int-scalar": lambda m: m.tensor(_INT) + 2,
    "int/int": lambda m: m.tensor(_INT) / m.tensor(_INT),
    "int/int-scalar": lambda m: m.tensor(_INT) / 2,
    "int-scalar/int": lambda m: 2 / m.tensor(_INT),
    "int*int": lambda m: m.tensor(_INT) * m.tensor(_INT),
    "int-int": lambda m: m.tensor(_INT) - m.tensor(_INT),
    "exp(int)": lambda m: m.exp(m.tensor(_INT)),
    "log(int)": lambda m: m.tensor(_INT).log(),
    "sqrt(int)": lambda m: m.sqrt(m.tensor(_INT)),
    "sin(int)": lambda m: m.sin(m.tensor(_INT)),
    "tanh(int)": lambda m: m.tanh(m.tensor(_INT)),
    "sigmoid(int)": lambda m: m.sigmoid(m.tensor(_INT)),
    "int+float32": lambda m: m.tensor(_INT) + m.tensor(_FLOAT32),
    "float32+int": lambda m: m.tensor(_FLOAT32) + m.tensor(_INT),
    "int*float64": lambda m: m.tensor(_INT) * m.tensor(_FLOAT64),
    "float32*float64": lambda m: m.tensor(_FLOAT32) * m.tensor(_FLOAT64),
    "float32*float-scalar": lambda m: m.tensor(_FLOAT32) * 2.5,
    "float64*float-scalar": lambda m: m.tensor(_FLOAT64) * 2.5,
    "float32+0d-float64": lambda m: m.tensor(_FLOAT32) + m.tensor(1.5, dtype=m.float64),
    "0d-float64*float32": lambda m: m.tensor(1.5, dtype=m.float64) * m.tensor(_FLOAT32),
    "int+0d-float64": lambda m: m.tensor(_INT) + m.tensor(1.5, dtype=m.float64),
    "int+0d-float32": lambda m: m.tensor(_INT) + m.tensor(1.5),
    "float32+0d-int": lambda m: m.tensor(_FLOAT32) + m.tensor(3),
    "int**int-scalar": lambda m: m.tensor(_INT) ** 2,
    "int**float-scalar": lambda m: m.tensor(_INT) ** 0.5,
    "float-scalar**int": lambda m: 2.5 ** m.tensor(_INT),
    "int-scalar**int": lambda m: 2 ** m.tensor(_INT),
    "maximum(int,float32)": lambda m: m.maximum(m.tensor(_INT), m.tensor(_FLOAT32)),
    "where(int,float-scalar)": lambda m: m.where(m.tensor(_INT) > 1, m.tensor(_INT), 0.5),
    "where(float64,float-scalar)": lambda m: m.where(m.tensor(_INT) > 1, m.tensor(_FLOAT64), 0.5),
    "where(float32,float64)": lambda m: m.where(m.tensor(_INT) > 1, m.tensor(_FLOAT32), m.tensor(_FLOAT64)),
    "bool.sum()": lambda m: m.tensor([True, False, True]).sum(),
    "bool.sum(dim)": lambda m: m.tensor([[True, False], [True, True]]).sum(0),
    "int.sum()": lambda m: m.tensor(_INT).sum(),
    "bool+bool": lambda m: m.tensor([True, False]) + m.tensor([True, True]),
    "bool*float-scalar": lambda m: m.tensor([True, False]) * 1.5,
    "bool+int": lambda m: m.tensor([True, False]) + m.tensor([3, 4]),
    "int@int": lambda m: m.tensor([[1, 2], [3, 4]]) @ m.tensor([5, 6]),
    "int.abs()": lambda m: m.tensor([-1, 2]).abs(),
    "-int": lambda m: -m.tensor([-1, 2]),
    "int.clamp()": lambda m: m.tensor(_INT).clamp(min=2),
    "int.float()": lambda m: m.tensor(_INT).float(),
    "int.double()": lambda m: m.tensor(_INT).double(),
    "float32.to(float64)": lambda m: m.tensor(_FLOAT32).to(m.float64),
    "softmax(float64)": lambda m: m.softmax(m.tensor(_FLOAT64), 0),
    "var(float32)": lambda m: m.tensor(_FLOAT32).var(),
    "relu(int)": lambda m: m.relu(m.tensor([-1, 2])),
    "cat(int)": lambda m: m.cat([m.tensor(_INT), m.tensor(_INT)]),
    "cat(int,float32)": lambda m: m.cat([m.tensor(_INT), m.tensor(_FLOAT32)]),
    "cat(float32,float64)": lambda m: m.cat([m.tensor(_FLOAT32), m.tensor(_FLOAT64)]),
    "stack(int,float32)": lambda m: m.stack([m.tensor(_INT), m.tensor(_FLOAT32)]),
    "stack(float64,int)": lambda m: m.stack([m.tensor(_FLOAT64), m.tensor(_INT)]),
}


@pytest.mark.parametrize("fn", PROMOTION.values(), ids=PROMOTION.keys())
def test_dtype_promotion_follows_torch(fn):
    ours, theirs = fn(agv), fn(torch)
    assert str(ours.dtype) == agv_dtype_name(theirs.dtype)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


def test_mean_of_int_tensor_raises_like_torch():
    with pytest.raises(RuntimeError):
        torch.tensor(_INT).mean()
    with pytest.raises(RuntimeError, match="mean"):
        agv.tensor(_INT).mean()


def test_grad_keeps_the_input_dtype_across_a_dtype_change():
    """x.double() in a float32 graph: the gradient arrives back as float32."""
    a = agv.tensor(_FLOAT32, requires_grad=True)
    t = torch.tensor(_FLOAT32, requires_grad=True)
    (a.double() * agv.tensor(_FLOAT64)).sum().backward()
    (t.double() * torch.tensor(_FLOAT64)).sum().backward()
    assert_same(a.grad, t.grad, TOLERANCE[np.float32])


def test_float32_times_float64_constant_gives_float64_and_float32_grad():
    a = agv.tensor(_FLOAT32, requires_grad=True)
    t = torch.tensor(_FLOAT32, requires_grad=True)
    ya, yt = a * agv.tensor(_FLOAT64), t * torch.tensor(_FLOAT64)
    assert_same(ya, yt, TOLERANCE[np.float32])
    ya.sum().backward()
    yt.sum().backward()
    assert_same(a.grad, t.grad, TOLERANCE[np.float32])


def test_to_dtype_sends_the_gradient_back_in_the_input_dtype():
    """x.double() in a float32 graph: hooks and create_graph see float32 grads."""
    seen = {}
    for m, grad in ((agv, agv.grad), (torch, torch.autograd.grad)):
        x = m.tensor(_FLOAT32, requires_grad=True)
        h = x * 2
        h.register_hook(lambda g, m=m: seen.setdefault(m, g))
        (first,) = grad((h.double() ** 2).sum(), x, create_graph=True)
        seen[m, "first"] = first
    assert_same(seen[agv], seen[torch], TOLERANCE[np.float32], "hook")
    assert_same(seen[agv, "first"], seen[torch, "first"], TOLERANCE[np.float32], "first-order grad")


# -- engine behaviours these tests once caught going wrong -------------------------------------------


def test_mixed_dtype_gradients_arrive_in_the_input_dtype():
    seen = {}
    for m, grad in ((agv, agv.grad), (torch, torch.autograd.grad)):
        x = m.tensor(_FLOAT32, requires_grad=True)
        h = x * 2
        h.register_hook(lambda g, m=m: seen.setdefault(m, g))
        (first,) = grad((h * m.tensor(_FLOAT64)).sum(), x, create_graph=True)
        seen[m, "first"] = first
    assert_same(seen[agv, "first"], seen[torch, "first"], TOLERANCE[np.float32], "first-order grad")
    assert_same(seen[agv], seen[torch], TOLERANCE[np.float32], "hook")


def test_0d_op_results_behave_like_torch():
    ours, theirs = agv.sin(agv.tensor(0.5)), torch.sin(torch.tensor(0.5))
    assert type(ours.numpy()) is type(theirs.numpy()) is np.ndarray
    ours.add_(1)
    theirs.add_(1)
    ours[...] = ours * 2
    theirs[...] = theirs * 2
    assert_same(ours, theirs, TOLERANCE[np.float32])


def test_python_bool_on_the_left_of_a_bitwise_op():
    for op in (lambda a, b: a & b, lambda a, b: a | b, lambda a, b: a ^ b):
        ours, theirs = op(True, agv.tensor([1.0, -1.0]) > 0), op(True, torch.tensor([1.0, -1.0]) > 0)
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
