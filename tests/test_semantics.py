"""Tensor and engine semantics: creation, dtypes, attributes, methods, the engine's
rules, grad modes, in-place versions and repr, checked against PyTorch where the
same thing can be done there, and otherwise against math stated in the test."""

from __future__ import annotations

import gc
import subprocess
import sys
import threading
import warnings
import weakref

import numpy as np
import pytest

import autogradviz as agv
from autogradviz import engine
from autogradviz.core.graph import Node


def torch_or_skip():
    return pytest.importorskip("torch")


def dtype_name(dtype) -> str:
    """'float32' for agv.float32 and for torch.float32."""
    return repr(dtype).split(".")[-1] if isinstance(dtype, agv.DType) else str(dtype).split(".")[-1]


@pytest.fixture
def gc_disabled():
    """Only reference counting frees objects: a cycle would keep them alive."""
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    yield
    if was_enabled:
        gc.enable()


# -- creation ---------------------------------------------------------------------------


@pytest.mark.parametrize("make", [agv.zeros, agv.ones, agv.rand, agv.randn, agv.empty])
def test_sizes_as_ints_tuple_or_list(make):
    assert make(2, 3).shape == (2, 3)
    assert make((2, 3)).shape == (2, 3)
    assert make([2, 3]).shape == (2, 3)
    assert make(4).shape == (4,)


CREATORS = {
    "tensor": lambda **kw: agv.tensor([1.0, 2.0], **kw),
    "zeros": lambda **kw: agv.zeros(2, 3, **kw),
    "ones": lambda **kw: agv.ones((2, 3), **kw),
    "full": lambda **kw: agv.full((2, 3), 1.5, **kw),
    "rand": lambda **kw: agv.rand([2, 3], **kw),
    "randn": lambda **kw: agv.randn(2, 3, **kw),
    "randint": lambda **kw: agv.randint(0, 5, (2, 3), **kw),
    "arange": lambda **kw: agv.arange(0, 3, **kw),
    "linspace": lambda **kw: agv.linspace(0, 1, 5, **kw),
    "eye": lambda **kw: agv.eye(3, **kw),
    "zeros_like": lambda **kw: agv.zeros_like(agv.ones(2), **kw),
    "ones_like": lambda **kw: agv.ones_like(agv.ones(2), **kw),
    "full_like": lambda **kw: agv.full_like(agv.ones(2), 7.0, **kw),
    "rand_like": lambda **kw: agv.rand_like(agv.ones(2), **kw),
    "randn_like": lambda **kw: agv.randn_like(agv.ones(2), **kw),
}


@pytest.mark.parametrize("name", CREATORS)
def test_every_creation_function_takes_dtype_and_requires_grad(name):
    t = CREATORS[name](dtype=agv.float64, requires_grad=True)
    assert t.dtype is agv.float64
    assert t.detach().numpy().dtype == np.float64
    assert t.requires_grad and t.is_leaf and t.grad_fn is None
    plain = CREATORS[name]()
    assert not plain.requires_grad and plain.is_leaf


CREATION_VS_TORCH = {
    "zeros": lambda lib: lib.zeros(2, 3),
    "ones": lambda lib: lib.ones([2]),
    "full_float": lambda lib: lib.full((2, 2), 1.5),
    "full_int": lambda lib: lib.full((3,), 7),
    "full_bool": lambda lib: lib.full((2,), True),
    "arange_int": lambda lib: lib.arange(5),
    "arange_start_end_step": lambda lib: lib.arange(1, 10, 3),
    "arange_float": lambda lib: lib.arange(0.0, 1.0, 0.25),
    "linspace": lambda lib: lib.linspace(0, 1, 5),
    "eye": lambda lib: lib.eye(3),
    "eye_rect": lambda lib: lib.eye(2, 3),
    "zeros_like_int": lambda lib: lib.zeros_like(lib.tensor([1, 2, 3])),
    "ones_like_f64": lambda lib: lib.ones_like(lib.tensor([1.0], dtype=lib.float64)),
    "full_like": lambda lib: lib.full_like(lib.zeros(2, 2), 3.0),
    "zeros_long": lambda lib: lib.zeros(2, dtype=lib.long),
    "ones_double": lambda lib: lib.ones(2, dtype=lib.double),
}


@pytest.mark.parametrize("name", CREATION_VS_TORCH)
def test_creation_values_and_dtypes_match_torch(name):
    torch = torch_or_skip()
    ours, theirs = CREATION_VS_TORCH[name](agv), CREATION_VS_TORCH[name](torch)
    assert ours.shape == tuple(theirs.shape)
    assert dtype_name(ours.dtype) == dtype_name(theirs.dtype)
    np.testing.assert_allclose(ours.tolist(), theirs.tolist(), rtol=1e-6)


def test_random_values_lie_in_their_ranges():
    agv.manual_seed(0)
    u = agv.rand(10_000)
    assert u.dtype is agv.float32
    assert 0.0 <= u.min().item() and u.max().item() < 1.0
    n = agv.randn(100_000)
    assert n.dtype is agv.float32
    assert abs(n.mean().item()) < 0.02 and abs(n.std().item() - 1.0) < 0.02
    r = agv.randint(3, 7, (1000,))
    assert r.dtype is agv.int64
    assert set(r.tolist()) == {3, 4, 5, 6}


def test_randint_forms():
    """randint(low, high, size) and PyTorch's randint(high, size); Paddle's randint(0, 1000)."""
    assert set(agv.randint(0, 2, (200,)).tolist()) == {0, 1}
    short = agv.randint(3, (500,))
    assert short.shape == (500,) and set(short.tolist()) == {0, 1, 2}
    assert agv.randint(3, [2, 2]).shape == (2, 2)
    assert agv.randint(0, 1000).shape == (1,)


def test_like_functions_keep_shape_and_dtype():
    base = agv.tensor([[1.0, 2.0, 3.0]], dtype=agv.float64)
    for make in (agv.zeros_like, agv.ones_like, agv.rand_like, agv.randn_like):
        t = make(base)
        assert t.shape == (1, 3) and t.dtype is agv.float64 and not t.requires_grad
    assert agv.zeros_like(base).tolist() == [[0.0, 0.0, 0.0]]
    assert agv.ones_like(base).tolist() == [[1.0, 1.0, 1.0]]
    assert agv.zeros_like(agv.tensor([1, 2])).dtype is agv.int64


def test_random_floats_refuse_integer_dtypes_like_torch():
    torch = torch_or_skip()
    for lib in (agv, torch):
        with pytest.raises(NotImplementedError):
            lib.rand(2, dtype=lib.int64)
        with pytest.raises(NotImplementedError):
            lib.randn_like(lib.tensor([1, 2]))


def test_from_numpy_shares_memory_both_ways():
    array = np.zeros(3)
    t = agv.from_numpy(array)
    assert t.dtype is agv.float64
    array[0] = 5.0
    assert t.tolist() == [5.0, 0.0, 0.0]
    t.add_(1.0)
    assert array.tolist() == [6.0, 1.0, 1.0]
    assert np.shares_memory(t.numpy(), array)


def test_from_numpy_refuses_a_dtype_it_cannot_share():
    # int32 is a dtype of its own now (issue 12), as in torch; uint16 is not
    with pytest.raises(TypeError, match="uint16"):
        agv.from_numpy(np.zeros(2, dtype=np.uint16))
    assert agv.tensor(np.zeros(2, dtype=np.uint16)).dtype is agv.int64  # a copy may widen
    assert agv.from_numpy(np.zeros(2, dtype=np.int32)).dtype is agv.int32


def test_tensor_copies_its_data():
    array = np.ones(3, dtype=np.float32)
    t = agv.tensor(array)
    array[0] = 9.0
    assert t.tolist() == [1.0, 1.0, 1.0]
    source = agv.tensor([1.0, 2.0])
    copy = agv.tensor(source)
    source.add_(1.0)
    assert copy.tolist() == [1.0, 2.0]


def test_manual_seed_makes_random_numbers_reproducible():
    def draw():
        return (
            agv.rand(3).tolist(),
            agv.randn(2, 2).tolist(),
            agv.randint(0, 100, (4,)).tolist(),
            agv.rand_like(agv.zeros(2)).tolist(),
            agv.randn_like(agv.zeros(2)).tolist(),
        )

    agv.manual_seed(42)
    first = draw()
    agv.manual_seed(42)
    assert draw() == first
    agv.manual_seed(43)
    assert draw() != first


# -- dtypes -------------------------------------------------------------------------------

INFERENCE = {
    "python_float": 1.5,
    "python_int": 3,
    "python_bool": True,
    "mixed_list": [1, 2.5],
    "int_list": [[1, 2], [3, 4]],
    "bool_list": [True, False],
    "empty_list": [],
    "np_float64": np.array([1.0, 2.0]),
    "np_float32": np.array([1.0], dtype=np.float32),
    "np_int64": np.array([1, 2], dtype=np.int64),
    "np_bool": np.array([True]),
    "np_scalar_float64": np.float64(2.5),
}


@pytest.mark.parametrize("name", INFERENCE)
def test_dtype_inference_follows_torch(name):
    torch = torch_or_skip()
    data = INFERENCE[name]
    assert dtype_name(agv.tensor(data).dtype) == dtype_name(torch.tensor(data).dtype)


def test_dtype_inference_rules():
    assert agv.tensor(1.5).dtype is agv.float32
    assert agv.tensor([1, 2]).dtype is agv.int64
    assert agv.tensor(True).dtype is agv.bool
    assert agv.tensor(np.array([1.0])).dtype is agv.float64
    assert agv.tensor([1, 2], dtype=agv.float).dtype is agv.float32
    assert agv.tensor([1.7], dtype=agv.long).tolist() == [1]


def test_float16_is_refused_with_a_clear_error():
    for make in (agv.tensor, agv.from_numpy):
        with pytest.raises(TypeError, match="float16") as info:
            make(np.zeros(2, dtype=np.float16))
        assert "float32" in str(info.value)  # it says what to use instead


def test_dtype_aliases():
    assert agv.float is agv.float32
    assert agv.double is agv.float64
    assert agv.long is agv.int64
    assert isinstance(agv.bool, agv.DType)
    assert [repr(d) for d in (agv.float, agv.double, agv.long, agv.bool)] == [
        "torch.float32",
        "torch.float64",
        "torch.int64",
        "torch.bool",
    ]
    assert agv.tensor([1, 0]).to(agv.bool).tolist() == [True, False]


# -- attributes ---------------------------------------------------------------------------


def test_data_shares_storage_and_is_untracked():
    torch = torch_or_skip()
    for lib in (agv, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        d = x.data
        assert not d.requires_grad and d.is_leaf and d.grad_fn is None
        d.mul_(10)  # no error: .data is outside autograd
        assert x.tolist() == [10.0, 20.0]
        assert x._version == 0  # and invisible to the version counter
        assert x.requires_grad


def test_data_is_assignable():
    x = agv.tensor([1.0, 2.0], requires_grad=True)
    x.data = agv.tensor([5.0, 6.0])
    assert x.tolist() == [5.0, 6.0]
    assert x.requires_grad and x.is_leaf
    (x * x).sum().backward()
    assert x.grad.tolist() == [10.0, 12.0]  # d(x²)/dx = 2x, with the new values


def test_grad_is_settable_to_none_or_a_same_shape_tensor():
    x = agv.tensor([1.0, 2.0], requires_grad=True)
    x.grad = agv.tensor([0.5, 0.5])
    (x * 3).sum().backward()
    assert x.grad.tolist() == [3.5, 3.5]  # backward adds into the grad that was set
    x.grad = None
    assert x.grad is None
    (x * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


def test_requires_grad_is_settable_on_leaves():
    x = agv.tensor([1.0])
    assert not x.requires_grad
    x.requires_grad = True
    assert x.requires_grad and (x * 2).requires_grad
    x.requires_grad = False
    assert not (x * 2).requires_grad


def test_grad_fn_is_leaf_shape_dtype_ndim():
    x = agv.ones(2, 3, requires_grad=True)
    y = x * 2
    assert x.grad_fn is None and x.is_leaf
    assert y.grad_fn.name() == "MulBackward0" and not y.is_leaf
    assert agv.ones(2).is_leaf  # a tensor that needs no grad is a leaf too
    with agv.no_grad():
        assert (x * 2).is_leaf
    assert y.shape == (2, 3) and isinstance(y.shape, tuple)
    assert y.dtype is agv.float32 and y.ndim == 2


def test_T_transposes_like_torch():
    torch = torch_or_skip()
    data = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    ours, theirs = agv.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    assert ours.T.tolist() == theirs.T.tolist()
    assert ours.T.shape == (3, 2)
    weights = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
    (ours.T * agv.tensor(weights)).sum().backward()
    (theirs.T * torch.tensor(weights)).sum().backward()
    assert ours.grad.tolist() == theirs.grad.tolist()


def test_name_is_an_optional_label():
    x = agv.tensor([1.0])
    assert x.name is None
    x.name = "weight"
    assert x.name == "weight"
    x.name = None
    assert x.name is None


def test_stop_gradient_is_paddle_alias():
    a = agv.tensor([1.0, 2.0])
    assert a.stop_gradient is True
    a.stop_gradient = False
    assert a.requires_grad is True and a.stop_gradient is False
    a.stop_gradient = True
    assert a.requires_grad is False
    b = agv.tensor([1.0], stop_gradient=False)
    assert b.requires_grad and not b.stop_gradient
    assert agv.tensor([1.0], stop_gradient=True).requires_grad is False
    assert (b * 2).stop_gradient is False


INPLACE = {
    "add_": lambda t: t.add_(1.0),
    "sub_": lambda t: t.sub_(agv.ones(3)),
    "mul_": lambda t: t.mul_(2.0),
    "div_": lambda t: t.div_(2.0),
    "zero_": lambda t: t.zero_(),
    "fill_": lambda t: t.fill_(4.0),
    "copy_": lambda t: t.copy_(agv.tensor([7.0, 8.0, 9.0])),
    "clamp_": lambda t: t.clamp_(0.0, 0.5),
    "setitem": lambda t: t.__setitem__(0, 5.0),
    "setitem_slice": lambda t: t.__setitem__(slice(0, 2), agv.tensor([1.0, 1.0])),
    "iadd": lambda t: t.__iadd__(1.0),
}


@pytest.mark.parametrize("name", INPLACE)
def test_inplace_ops_bump_the_version(name):
    t = agv.tensor([1.0, 2.0, 3.0])
    assert t.version == 0
    INPLACE[name](t)
    assert t.version == 1
    INPLACE[name](t)
    assert t.version == 2


INPLACE_VALUES = {
    "add_": (lambda t: t.add_(2.0), [3.0, 4.0, 5.0]),
    "sub_": (lambda t: t.sub_(1.0), [0.0, 1.0, 2.0]),
    "mul_": (lambda t: t.mul_(2.0), [2.0, 4.0, 6.0]),
    "div_": (lambda t: t.div_(2.0), [0.5, 1.0, 1.5]),
    "zero_": (lambda t: t.zero_(), [0.0, 0.0, 0.0]),
    "fill_": (lambda t: t.fill_(4.0), [4.0, 4.0, 4.0]),
    "copy_": (lambda t: t.copy_(agv.tensor([7.0, 8.0, 9.0])), [7.0, 8.0, 9.0]),
    "clamp_": (lambda t: t.clamp_(1.5, 2.5), [1.5, 2.0, 2.5]),
    "setitem": (lambda t: t.__setitem__(1, -1.0), [1.0, -1.0, 3.0]),
}


@pytest.mark.parametrize("name", INPLACE_VALUES)
def test_inplace_ops_change_values_and_return_self(name):
    op, expected = INPLACE_VALUES[name]
    t = agv.tensor([1.0, 2.0, 3.0])
    result = op(t)
    assert t.tolist() == expected
    if name != "setitem":
        assert result is t


def test_inplace_on_non_leaf_is_recorded_like_torch():
    torch = torch_or_skip()
    grads = []
    for lib in (agv, torch):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 2
        y.mul_(x)  # y = 2x · x: d/dx = 4x
        y.add_(1.0)
        y[0] = 0.0  # no gradient flows to x[0] any more
        y.sum().backward()
        assert y._version == 3
        grads.append(x.grad.tolist())
    assert grads[0] == grads[1] == [0.0, 8.0, 12.0]


def test_inplace_on_leaf_inside_no_grad_is_allowed():
    w = agv.tensor([1.0, 2.0], requires_grad=True)
    with agv.no_grad():
        w.sub_(0.5)
        w[0] = 3.0
    assert w.tolist() == [3.0, 1.5]
    assert w.is_leaf and w.requires_grad and w.grad_fn is None
    assert w.version == 2


# -- methods ------------------------------------------------------------------------------


def test_requires_grad_returns_self():
    x = agv.tensor([1.0])
    assert x.requires_grad_() is x and x.requires_grad
    assert x.requires_grad_(False) is x and not x.requires_grad


def test_detach_shares_storage_and_version():
    x = agv.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    d = y.detach()
    assert not d.requires_grad and d.is_leaf and d.grad_fn is None
    d[0] = 10.0
    assert y.tolist() == [10.0, 4.0]
    assert y.version == d.version == 1
    y.detach().add_(1.0)
    assert y.version == 2


def test_detach_inplace_cuts_the_graph():
    torch = torch_or_skip()
    for lib in (agv, torch):
        x = lib.tensor([1.0], requires_grad=True)
        y = x * 2
        assert y.detach_() is y
        assert y.grad_fn is None and not y.requires_grad and y.is_leaf


def test_retain_grad_keeps_a_non_leaf_grad():
    x = agv.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    y.retain_grad()
    assert y.retains_grad
    (y * 3).sum().backward()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert y.grad.tolist() == [3.0, 3.0]
    assert x.grad.tolist() == [6.0, 12.0]  # 3 · 2x


def test_hook_sees_and_can_replace_the_gradient_like_torch():
    torch = torch_or_skip()
    results = []
    for lib in (agv, torch):
        seen = []
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        y.register_hook(lambda g: seen.append(g.tolist()))
        handle = y.register_hook(lambda g: g * 10)  # every gradient through y is scaled
        (y * y).sum().backward(retain_graph=True)  # d/dy = 2y = [6, 12]
        first = x.grad.tolist()
        handle.remove()
        x.grad = None
        (y * y).sum().backward()
        results.append((seen, first, x.grad.tolist()))
    assert results[0] == results[1]
    assert results[0][1] == [180.0, 360.0]  # 2y · 10 · 3
    assert results[0][2] == [18.0, 36.0]  # the hook was removed: 2y · 3


def test_leaf_hook_modifies_what_is_accumulated():
    x = agv.tensor([1.0, 2.0], requires_grad=True)
    handle = x.register_hook(lambda g: g + 1)
    (x * 2).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    handle.remove()
    (x * 2).sum().backward()
    assert x.grad.tolist() == [5.0, 5.0]


def test_gradient_kept_by_a_hook_is_not_changed_by_later_accumulation():
    # .grad may take over ("steal") a gradient array only if nothing else holds
    # it; a hook that keeps the tensor it was shown holds it
    torch = torch_or_skip()
    results = []
    for lib in (agv, torch):
        kept = []
        x = lib.ones(3, requires_grad=True)
        x.register_hook(lambda g: kept.append(g))
        (x * 2).sum().backward()
        (x * 2).sum().backward()
        results.append(([g.tolist() for g in kept], x.grad.tolist()))
    assert results[0] == results[1] == ([[2.0] * 3, [2.0] * 3], [4.0] * 3)


def test_constant_factor_gets_no_gradient_computed():
    # MulBackward0 skips the product for an input that needs no grad
    x = agv.tensor([1.0, 2.0], requires_grad=True)
    w = agv.tensor([3.0, 4.0])
    y = x * w
    sent = [step.sent for step in engine.backward_steps([y], [agv.ones(2)])]
    assert sent[0][0].tolist() == [3.0, 4.0] and sent[0][1] is None


@pytest.mark.parametrize("op", ["mul", "div", "dot", "mm"])
def test_only_needed_factors_are_saved_like_torch(op):
    # h * c with c constant: the gradient of h needs c, not h, so neither library
    # keeps h, and changing h in place afterwards is no error; changing c is
    torch = torch_or_skip()
    outcomes = []
    for lib in (agv, torch):
        results = []
        for changed in ("h", "c"):
            x = lib.tensor([1.0, 2.0], requires_grad=True)
            c = lib.tensor([3.0, 4.0])
            h = x * 2
            if op == "mm":
                y = h.reshape(1, 2) @ c.reshape(2, 1)
            else:
                y = {"mul": lambda: h * c, "div": lambda: h / c, "dot": lambda: h @ c}[op]()
            (h if changed == "h" else c).add_(1)
            try:
                y.sum().backward()
                results.append(("ok", [round(v, 6) for v in x.grad.tolist()]))
            except RuntimeError as error:
                results.append(("error", "modified by an inplace operation" in str(error)))
        outcomes.append(results)
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][0][0] == "ok" and outcomes[0][1] == ("error", True)


def test_zero_item_tolist_numpy():
    x = agv.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert x.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert isinstance(agv.tensor([2.5]).item(), float) and agv.tensor([2.5]).item() == 2.5
    assert isinstance(agv.tensor(3).item(), int) and agv.tensor([[3]]).item() == 3
    array = x.numpy()
    assert isinstance(array, np.ndarray) and array.dtype == np.float32
    array[0, 0] = 9.0  # numpy() shares memory, as in PyTorch
    assert x.tolist()[0][0] == 9.0
    assert x.zero_() is x and x.tolist() == [[0.0, 0.0], [0.0, 0.0]]


def test_clone_copies_and_passes_gradient():
    x = agv.tensor([1.0, 2.0], requires_grad=True)
    c = x.clone()
    assert c.grad_fn.name() == "CloneBackward0"
    assert not np.shares_memory(c.detach().numpy(), x.detach().numpy())
    (c * agv.tensor([3.0, 4.0])).sum().backward()
    assert x.grad.tolist() == [3.0, 4.0]
    plain = agv.tensor([1.0])
    copy = plain.clone()
    copy.add_(1.0)
    assert plain.tolist() == [1.0]


def test_size_dim_numel():
    x = agv.zeros(2, 3, 4)
    assert x.size() == (2, 3, 4) and x.size(1) == 3 and x.size(-1) == 4
    assert x.dim() == 3 and x.numel() == 24
    assert agv.tensor(5.0).dim() == 0 and agv.tensor(5.0).numel() == 1


def test_float_double_to_like_torch():
    torch = torch_or_skip()
    for lib in (agv, torch):
        i = lib.tensor([1, 2])
        assert dtype_name(i.float().dtype) == "float32"
        assert dtype_name(i.double().dtype) == "float64"
        assert dtype_name(i.to(lib.float64).dtype) == "float64"
        x = lib.tensor([1.5, 2.5], requires_grad=True)
        assert x.to(lib.float32) is x  # already that dtype: the same tensor
        y = x.double()
        assert dtype_name(y.dtype) == "float64" and y.requires_grad and not y.is_leaf
        (y * 2).sum().backward()
        assert dtype_name(x.grad.dtype) == "float32"  # the grad comes back in x's dtype
        assert x.grad.tolist() == [2.0, 2.0]
        assert x.detach().to(lib.int64).tolist() == [1, 2]


def test_paddle_clear_grad_and_gradient():
    x = agv.tensor([1.0, 2.0], requires_grad=True)
    assert x.gradient() is None
    (x * 3).sum().backward()
    g = x.gradient()
    assert isinstance(g, np.ndarray) and g.tolist() == [3.0, 3.0]
    x.clear_grad()
    assert x.gradient().tolist() == [0.0, 0.0]
    (x * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


# -- engine -------------------------------------------------------------------------------


def test_leaf_grads_accumulate_across_backward_calls():
    torch = torch_or_skip()
    for lib in (agv, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        for expected in ([2.0, 4.0], [4.0, 8.0], [6.0, 12.0]):
            (x * x).sum().backward()  # d(x²)/dx = 2x each time
            assert x.grad.tolist() == expected


def test_a_leaf_used_twice_gets_the_sum_of_both_paths():
    x = agv.tensor([3.0], requires_grad=True)
    y = x * x + x * 2 + x  # dy/dx = 2x + 3
    y.backward()
    assert x.grad.tolist() == [9.0]


def test_non_leaf_grad_is_none_and_warns():
    x = agv.tensor([1.0], requires_grad=True)
    y = x * 2
    (y * 3).sum().backward()
    with pytest.warns(UserWarning, match="retain_grad"):
        assert y.grad is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert x.grad.tolist() == [6.0]  # reading a leaf's grad does not warn


def test_non_leaf_grad_warning_matches_torch_category():
    torch = torch_or_skip()
    for lib in (agv, torch):
        x = lib.tensor([1.0], requires_grad=True)
        with pytest.warns(UserWarning):
            _ = (x * 2).grad


def test_second_backward_raises_unless_retained():
    torch = torch_or_skip()
    for lib in (agv, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = (x * x).sum()
        y.backward(retain_graph=True)
        y.backward()
        assert x.grad.tolist() == [4.0, 8.0]
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            y.backward()


def test_retain_graph_defaults_to_create_graph():
    x = agv.tensor([2.0], requires_grad=True)
    y = x**3
    y.backward(create_graph=True)  # retains the graph
    y.backward(create_graph=True)
    assert x.grad.tolist() == [24.0]  # 3x² twice
    z = x**3
    agv.grad(z, x, create_graph=True)
    agv.grad(z, x)  # the first call retained the graph; this one frees it
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        agv.grad(z, x)


def test_create_graph_gives_second_derivatives_by_math():
    x = agv.tensor([2.0], requires_grad=True, dtype=agv.float64)
    (dy,) = agv.grad(x**3, x, create_graph=True)
    assert dy.tolist() == [12.0]  # 3x²
    assert dy.requires_grad
    (d2y,) = agv.grad(dy, x, create_graph=True)
    assert d2y.tolist() == [12.0]  # 6x
    (d3y,) = agv.grad(d2y, x)
    assert d3y.tolist() == [6.0]
    t = agv.tensor([0.5], requires_grad=True, dtype=agv.float64)
    agv.sin(t).backward(create_graph=True)
    assert t.grad.item() == pytest.approx(np.cos(0.5))
    first = t.grad
    t.grad = None
    first.backward()
    assert t.grad.item() == pytest.approx(-np.sin(0.5))  # d²sin/dx² = -sin


HIGHER_ORDER = {
    "cube": lambda lib, x: x**3,
    "sin": lambda lib, x: lib.sin(x),
    "cos": lambda lib, x: lib.cos(x),
    "exp": lambda lib, x: lib.exp(x),
    "log": lambda lib, x: lib.log(x),
    "tanh": lambda lib, x: lib.tanh(x),
    "sigmoid": lambda lib, x: lib.sigmoid(x),
    "sqrt": lambda lib, x: lib.sqrt(x),
    "reciprocal": lambda lib, x: 1 / x,
    "product": lambda lib, x: x * x * x * x,
    "mixed": lambda lib, x: lib.exp(x) * lib.sin(x) / (x + 1),
}


@pytest.mark.parametrize("name", HIGHER_ORDER)
def test_higher_order_derivatives_match_torch(name):
    torch = torch_or_skip()
    values = [0.5, 1.2, 2.0]
    results = []
    for lib, grad in ((agv, agv.grad), (torch, torch.autograd.grad)):
        x = lib.tensor(values, dtype=lib.float64, requires_grad=True)
        (g1,) = grad(HIGHER_ORDER[name](lib, x).sum(), x, create_graph=True)
        (g2,) = grad(g1.sum(), x, create_graph=True)
        (g3,) = grad(g2.sum(), x)
        results.append([g.detach().numpy() for g in (g1, g2, g3)])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10)


def test_mixed_second_derivative():
    x = agv.tensor(3.0, requires_grad=True)
    y = agv.tensor(2.0, requires_grad=True)
    f = x * y**2  # ∂f/∂y = 2xy, ∂²f/∂x∂y = 2y
    (dfdy,) = agv.grad(f, y, create_graph=True)
    assert dfdy.item() == 12.0
    (d2,) = agv.grad(dfdy, x)
    assert d2.item() == 4.0


def test_grad_returns_a_tuple_and_leaves_dot_grad_untouched():
    x = agv.tensor([1.0, 2.0], requires_grad=True)
    w = agv.tensor([3.0, 4.0], requires_grad=True)
    x.grad = agv.tensor([100.0, 100.0])
    y = (x * w).sum()
    result = agv.grad(y, [x, w], retain_graph=True)
    assert isinstance(result, tuple) and len(result) == 2
    assert result[0].tolist() == [3.0, 4.0] and result[1].tolist() == [1.0, 2.0]
    assert x.grad.tolist() == [100.0, 100.0] and w.grad is None
    single = agv.grad([y], x)  # a sequence of outputs, a single input
    assert isinstance(single, tuple) and single[0].tolist() == [3.0, 4.0]
    assert not single[0].requires_grad


def test_grad_with_grad_outputs_matches_torch():
    torch = torch_or_skip()
    results = []
    for lib, grad in ((agv, agv.grad), (torch, torch.autograd.grad)):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * x
        z = x * 3
        results.append(
            [g.tolist() for g in grad([y, z], (x,), grad_outputs=[lib.tensor([1.0, 0.5, 0.0]), lib.ones(3)])]
        )
    assert results[0] == results[1] == [[5.0, 5.0, 3.0]]  # 2x · v + 3


def test_grad_allow_unused():
    x = agv.tensor([1.0], requires_grad=True)
    unused = agv.tensor([1.0], requires_grad=True)
    gx, gu = agv.grad((x * 2).sum(), [x, unused], allow_unused=True)
    assert gx.tolist() == [2.0] and gu is None


def test_grad_create_graph_records_the_result():
    x = agv.tensor([3.0], requires_grad=True)
    (g,) = agv.grad(x * x, x, create_graph=True)
    assert g.requires_grad and g.grad_fn is not None
    g.backward()
    assert x.grad.tolist() == [2.0]


def node_names(root, name_of) -> list:
    """The graph under `root`, depth first, as (depth, name or None)."""
    out = []
    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        out.append((depth, None if node is None else name_of(node)))
        if node is not None:
            stack.extend((child, depth + 1) for child, _ in reversed(node.next_functions))
    return out


def test_node_names_and_next_functions():
    x = agv.ones(2, 2)
    w = agv.rand(2, 2, requires_grad=True)
    b = agv.rand(2, 2, requires_grad=True)
    y = w * x + b
    assert y.grad_fn.name() == "AddBackward0"
    (mul, _), (acc_b, _) = y.grad_fn.next_functions
    assert mul.name() == "MulBackward0" and acc_b.name() == "AccumulateGrad"
    assert acc_b.variable is b
    (acc_w, _), (none, _) = mul.next_functions
    assert acc_w.variable is w and none is None  # x needs no grad: no edge
    assert acc_w.next_functions == ()
    assert (w @ w).grad_fn.name() in ("MmBackward0", "MatmulBackward0")
    assert w.sum().grad_fn.name() == "SumBackward0"


STRUCTURES = {
    "affine": lambda lib, a, b: a * lib.ones(2, 2) + b,
    "mm_sum": lambda lib, a, b: (a @ b).sum(),
    "chain": lambda lib, a, b: a.exp().log().mean(),
    "poly": lambda lib, a, b: (a**2 - b / 3).sum(),
    "activations": lambda lib, a, b: lib.sigmoid(a).tanh().relu().sum(),
    "reshape": lambda lib, a, b: a.reshape(4) * 2,
    "permute": lambda lib, a, b: a.T + b,
    "transpose": lambda lib, a, b: a.transpose(0, 1) * b,
    "cat": lambda lib, a, b: lib.cat([a, b]),
    "stack": lambda lib, a, b: lib.stack([a, b]).sum(),
    "max": lambda lib, a, b: a.max() * b.abs(),
    "clamp_div": lambda lib, a, b: a.clamp(0.2, 0.8) / b,
    "softmax": lambda lib, a, b: lib.softmax(a, 1) * lib.log_softmax(b, 0),
    "pow_tensor": lambda lib, a, b: a**b,
    "shared": lambda lib, a, b: (a * a + a).sum(),
}


def compare_structures(expression):
    torch = torch_or_skip()
    inputs = [np.random.default_rng(0).random((2, 2)) + 0.1 for _ in range(2)]
    ours = [agv.tensor(v, requires_grad=True) for v in inputs]
    theirs = [torch.tensor(v, requires_grad=True) for v in inputs]
    got = node_names(expression(agv, *ours).grad_fn, lambda node: node.name())
    expected = node_names(expression(torch, *theirs).grad_fn, lambda node: type(node).__name__)
    assert got == expected


@pytest.mark.parametrize("name", STRUCTURES)
def test_graph_structure_matches_torch(name):
    compare_structures(STRUCTURES[name])


SPECIAL_NAMES = {
    "sum_dim": lambda lib, a, b: a.sum(0),  # torch: SumBackward1
    "mean_dim": lambda lib, a, b: a.mean(0),  # torch: MeanBackward1
    "select": lambda lib, a, b: a[0],  # torch: SelectBackward0
    "unsqueeze": lambda lib, a, b: a.unsqueeze(0),  # torch: UnsqueezeBackward0
    "t": lambda lib, a, b: a.t(),  # torch: TBackward0
    "rsub": lambda lib, a, b: 2 - a,  # torch: RsubBackward1, with one edge
    "where": lambda lib, a, b: lib.where(a > 0.5, a, b),  # torch: no edge for the condition
}


@pytest.mark.parametrize("name", SPECIAL_NAMES)
def test_graph_structure_matches_torch_special_names(name):
    compare_structures(SPECIAL_NAMES[name])


def test_backward_steps_show_every_node_and_merge():
    a = agv.tensor([1.0, 2.0], requires_grad=True)
    loss = (a * a + a).sum()
    steps = list(agv.backward_steps([loss], [agv.tensor(1.0)]))
    names = [step.node.name() for step in steps]
    assert names == ["SumBackward0", "AddBackward0", "MulBackward0", "AccumulateGrad"]
    by_name = {step.node.name(): step for step in steps}
    np.testing.assert_array_equal(by_name["AddBackward0"].grad, [1.0, 1.0])
    mul = by_name["MulBackward0"]
    assert [np.asarray(s).tolist() for s in mul.sent] == [[1.0, 2.0], [1.0, 2.0]]  # g·a for each side
    # a gets gradient from three places: both sides of a*a, and the + a
    merges = [m for step in steps for m in (step.merges or [])]
    assert merges, "the paths meeting at a must be shown as merges"
    for _, before, new, after in merges:
        np.testing.assert_array_equal(np.asarray(before) + np.asarray(new), after)
    final = by_name["AccumulateGrad"]
    np.testing.assert_array_equal(final.grad, [3.0, 5.0])  # 2a + 1
    assert a.grad.tolist() == [3.0, 5.0]  # consuming the steps wrote .grad


def test_backward_consumes_backward_steps(monkeypatch):
    seen = []
    original = engine.backward_steps

    def recording(*args, **kwargs):
        for step in original(*args, **kwargs):
            # backward() asks for details=False: each step is then the bare node
            seen.append((step if isinstance(step, Node) else step.node).name())
            yield step

    monkeypatch.setattr(engine, "backward_steps", recording)
    x = agv.tensor([1.0, 2.0], requires_grad=True)
    (x * 2).sum().backward()
    assert seen == ["SumBackward0", "MulBackward0", "AccumulateGrad"]
    assert x.grad.tolist() == [2.0, 2.0]


def test_tensors_hash_by_identity_and_support_weakref():
    a, b = agv.tensor([1.0]), agv.tensor([1.0])
    table = {a: "a", b: "b"}
    assert table[a] == "a" and table[b] == "b" and len({a, b, a}) == 2
    assert (a == b).tolist() == [True]  # == stays elementwise
    ref = weakref.ref(a)
    assert ref() is a
    del table, a
    assert ref() is None
    cache = weakref.WeakKeyDictionary({b: 1})
    assert cache[b] == 1


def test_no_cycles_intermediate_freed_when_graph_dropped(gc_disabled):
    x = agv.tensor([1.0, 2.0], requires_grad=True)
    h = x * 2
    # the tensor, its node, and its values (which h * h saves for backward)
    refs = weakref.ref(h), weakref.ref(h.grad_fn), weakref.ref(h.detach().numpy())
    y = (h * h).sum()
    del h
    assert refs[1]() is not None and refs[2]() is not None  # y's graph still needs them
    del y
    assert [r() for r in refs] == [None, None, None]


def test_no_cycles_outputs_saved_by_their_own_node(gc_disabled):
    """exp, sigmoid, tanh save their output: that must not tie output and node in a loop."""
    x = agv.tensor([1.0, 2.0], requires_grad=True)
    for make in (agv.exp, agv.sigmoid, agv.tanh, agv.sqrt, agv.relu):
        out = make(x)
        out.retain_grad()
        refs = weakref.ref(out), weakref.ref(out.grad_fn), weakref.ref(out.detach().numpy())
        del out
        assert [r() for r in refs] == [None, None, None]


def test_no_cycles_intermediate_freed_by_backward(gc_disabled):
    x = agv.tensor([1.0, 2.0], requires_grad=True)
    h = x * 2
    refs = weakref.ref(h), weakref.ref(h.detach().numpy())
    y = (h * h).sum()
    del h
    assert refs[1]() is not None  # saved by the MulBackward0 of h * h
    y.backward()
    assert [r() for r in refs] == [None, None]  # backward freed what it saved; y is still alive
    assert x.grad.tolist() == [8.0, 16.0]  # d(4x²)/dx


def test_no_cycles_leaf_does_not_keep_its_graph(gc_disabled):
    x = agv.tensor([1.0], requires_grad=True)
    y = x * 3
    nodes = [weakref.ref(y.grad_fn), weakref.ref(y.grad_fn.next_functions[0][0])]
    del y
    assert [n() for n in nodes] == [None, None]
    (x * 3).backward()
    assert x.grad.tolist() == [3.0]


CHAIN = 200_000


def test_long_chain_backward_at_default_recursion_limit():
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)  # Python's default
    try:
        x = agv.tensor([1.0], requires_grad=True)
        y = x
        for _ in range(CHAIN):
            y = y * 1.0
        y.backward()
        assert x.grad.tolist() == [1.0]
        del y
    finally:
        sys.setrecursionlimit(old)


def test_long_chain_can_be_deleted_in_a_fresh_process():
    """Deleting a deep graph must not crash the interpreter (a crash would kill pytest)."""
    script = f"""
import sys
import autogradviz as agv
assert sys.getrecursionlimit() == 1000
x = agv.tensor([2.0], requires_grad=True)
y = x
for _ in range({CHAIN}):
    y = y * 1.0
del y  # never backpropagated: every node still holds what it saved
y = x
for _ in range({CHAIN}):
    y = agv.tanh(y)
y.backward()
del y
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "ok"


# -- grad modes ----------------------------------------------------------------------------


def test_grad_mode_context_managers():
    x = agv.tensor([1.0], requires_grad=True)
    assert agv.is_grad_enabled()
    with agv.no_grad():
        assert not agv.is_grad_enabled()
        y = x * 2
        assert not y.requires_grad and y.grad_fn is None
        with agv.enable_grad():
            assert agv.is_grad_enabled() and (x * 2).requires_grad
        assert not agv.is_grad_enabled()
        with agv.set_grad_enabled(True):
            assert (x * 2).requires_grad
    assert agv.is_grad_enabled()
    with agv.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert agv.is_grad_enabled()


def test_grad_mode_restored_after_an_exception():
    with pytest.raises(ZeroDivisionError):
        with agv.no_grad():
            1 / 0
    assert agv.is_grad_enabled()


def test_set_grad_enabled_as_a_function():
    try:
        agv.set_grad_enabled(False)
        assert not agv.is_grad_enabled()
        agv.set_grad_enabled(True)
        assert agv.is_grad_enabled()
    finally:
        agv.set_grad_enabled(True)


def test_grad_modes_as_decorators():
    x = agv.tensor([1.0], requires_grad=True)

    @agv.no_grad()
    def frozen():
        return x * 2, agv.is_grad_enabled()

    @agv.no_grad
    def frozen_bare():  # PyTorch 2 allows the bare decorator too
        return agv.is_grad_enabled()

    @agv.enable_grad()
    def tracked():
        return x * 2

    @agv.set_grad_enabled(False)
    def off():
        return agv.is_grad_enabled()

    assert agv.is_grad_enabled()  # defining `off` did not switch grad off
    y, enabled = frozen()
    assert not y.requires_grad and not enabled
    assert frozen_bare() is False
    assert frozen.__name__ == "frozen"
    with agv.no_grad():
        assert tracked().requires_grad
    assert off() is False
    assert agv.is_grad_enabled()


def test_grad_mode_decorators_match_torch():
    torch = torch_or_skip()
    for lib in (agv, torch):

        @lib.no_grad
        def bare():
            return lib.is_grad_enabled()

        @lib.enable_grad()
        def inner():
            return lib.is_grad_enabled()

        assert bare() is False
        with lib.no_grad():
            assert inner() is True
        assert lib.is_grad_enabled()


def test_grad_mode_is_thread_local():
    x = agv.tensor([1.0], requires_grad=True)
    entered, release = threading.Event(), threading.Event()
    seen = {}

    def worker():
        with agv.no_grad():
            entered.set()
            release.wait(10)
            seen["worker"] = agv.is_grad_enabled()

    thread = threading.Thread(target=worker)
    thread.start()
    try:
        assert entered.wait(10)
        seen["main"] = agv.is_grad_enabled()
        seen["main_records"] = (x * 2).requires_grad
    finally:
        release.set()
        thread.join()
    assert seen == {"worker": False, "main": True, "main_records": True}

    def fresh():
        seen["fresh"] = agv.is_grad_enabled()

    with agv.no_grad():
        thread = threading.Thread(target=fresh)
        thread.start()
        thread.join()
    assert seen["fresh"] is True  # a new thread starts with grad enabled


# -- .data: untracked, so a silently wrong gradient ----------------------------------------


def test_data_change_gives_the_same_silent_gradient_as_torch():
    torch = torch_or_skip()
    results = []
    for lib in (agv, torch):
        x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
        s = x.sigmoid()  # saves its output
        s.data.mul_(3)  # no error: .data is untracked
        s.sum().backward()
        first = x.grad.tolist()
        x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
        a = x * 1
        b = a * a  # saves a
        a.data.add_(1)
        b.sum().backward()
        results.append((first, x.grad.tolist()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-6)
    assert results[0][1] == results[1][1]
    assert results[0][1] == [3.0, 0.0, 6.0]  # 2(x+1), not the true 2x


def test_detach_change_is_caught_but_data_change_is_not():
    x = agv.tensor([1.0, 2.0], requires_grad=True)
    s = x.sigmoid()
    s.data.zero_()
    s.sum().backward()  # silently uses the zeroed output: gradient 0·(1-0) = 0
    assert x.grad.tolist() == [0.0, 0.0]
    s = x.sigmoid()
    s.detach().zero_()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        s.sum().backward()


# -- repr ------------------------------------------------------------------------------------


def test_repr_format():
    assert repr(agv.ones(2, 2)) == "tensor([[1., 1.],\n        [1., 1.]])"
    x = agv.tensor([1.0, 2.0], requires_grad=True)
    assert repr(x) == "tensor([1., 2.], requires_grad=True)"
    assert repr(x * 2) == "tensor([2., 4.], grad_fn=<MulBackward0>)"
    assert repr(agv.tensor([1.5], dtype=agv.float64)) == "tensor([1.5000], dtype=torch.float64)"
    assert repr(agv.tensor([1 / 3])) == "tensor([0.3333])"
    d = agv.tensor([1.0], dtype=agv.float64, requires_grad=True)
    assert repr(d) == "tensor([1.], dtype=torch.float64, requires_grad=True)"
    assert repr(d + 1) == "tensor([2.], dtype=torch.float64, grad_fn=<AddBackward0>)"


REPRS = {
    "ones": lambda lib: lib.ones(2, 2),
    "leaf": lambda lib: lib.tensor([1.0, 2.0], requires_grad=True),
    "mul": lambda lib: lib.tensor([1.0, 2.0], requires_grad=True) * 2,
    "sum": lambda lib: lib.tensor([1.0, 2.0], requires_grad=True).sum(),
    "float64": lambda lib: lib.tensor([1.5, 2.0], dtype=lib.float64),
    "float64_grad_fn": lambda lib: lib.tensor([1.0], dtype=lib.float64, requires_grad=True).exp(),
    "int": lambda lib: lib.tensor([1, 2, 3]),
    "bool": lambda lib: lib.tensor([True, False]),
    "scalar": lambda lib: lib.tensor(2.5),
    "decimals": lambda lib: lib.tensor([1 / 3, 2 / 3, 12.345678]),
    "no_grad": lambda lib: lib.tensor([1.0], requires_grad=True).detach(),
}


@pytest.mark.parametrize("name", REPRS)
def test_repr_matches_torch(name):
    torch = torch_or_skip()
    assert repr(REPRS[name](agv)) == repr(REPRS[name](torch))


def test_pickle_and_deepcopy_keep_values_grad_and_name_but_no_graph_links():
    import copy
    import pickle

    w = agv.tensor([1.0, 2.0], requires_grad=True)
    w.name = "w"
    (w * 2).sum().backward()  # w now has an AccumulateGrad node, held weakly
    for clone in (pickle.loads(pickle.dumps(w)), copy.deepcopy(w)):
        assert clone is not w and clone.name == "w" and clone.requires_grad and clone.is_leaf
        np.testing.assert_array_equal(clone.detach().numpy(), [1.0, 2.0])
        np.testing.assert_array_equal(clone.grad.numpy(), [2.0, 2.0])

    # a copy made while the original's graph is alive gets gradients of its own
    v = agv.tensor([1.0], requires_grad=True)
    graph = v * 2  # noqa: F841 - keeps v's AccumulateGrad alive
    c = copy.deepcopy(v)
    (c * 3).sum().backward()
    assert v.grad is None
    np.testing.assert_array_equal(c.grad.numpy(), [3.0])

    with pytest.raises(RuntimeError, match="graph leaves"):
        copy.deepcopy(v * 2)


def test_tutorial_spellings_for_device_and_layout_like_torch():
    torch = torch_or_skip()
    for lib in (agv, torch):
        x = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        assert x.to("cpu") is x and x.cpu() is x and x.contiguous() is x and x.to(x) is x
        assert str(x.to("cpu", lib.float64).dtype).endswith("float64")
        t = x.t()
        assert not t.is_contiguous()
        c = t.contiguous()
        assert c.is_contiguous() and c.tolist() == t.tolist()
    with pytest.raises(RuntimeError, match="no device 'cuda'"):
        agv.ones(2).to("cuda")
    with pytest.raises(RuntimeError, match="no device 'cuda'"):
        agv.ones(2).cuda()


def test_autograd_namespace_is_the_engine():
    x = agv.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    (dx,) = agv.autograd.grad(y, x, retain_graph=True)
    assert dx.tolist() == [2.0, 4.0] and x.grad is None
    agv.autograd.backward(y)
    assert x.grad.tolist() == [2.0, 4.0]
    assert agv.autograd.grad is agv.grad and agv.autograd.no_grad is agv.no_grad
