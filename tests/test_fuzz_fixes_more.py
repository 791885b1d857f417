"""More divergences the fuzzer found (issue 11, KNOWN_DIVERGENCES), fixed: each
checked against torch, whose answer is computed here at test time."""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest

import autogradviz as agv

torch = pytest.importorskip("torch")

INT64_MIN = -(2**63)
TORCH_OVERLAP = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
    "single memory location. Please clone() the tensor before performing the operation."
)
TORCH_INTERNAL_OVERLAP = (
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation."
)


def run(source: str, lib):
    """Run `source` with `lib` (agv or torch); its `out`, or (class, message) if it raised."""
    env = {"lib": lib, "inf": math.inf, "nan": math.nan}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch's "index_put_ on expanded tensors is deprecated"
            exec(source, env)  # noqa: S102 - the scripts below
    except Exception as error:  # noqa: BLE001 - which class is the point
        return type(error), str(error)
    return env["out"]


def as_numpy(x):
    if isinstance(x, tuple):
        return tuple(as_numpy(y) for y in x)
    return x.detach().numpy() if hasattr(x, "detach") else x


def assert_same(ours, theirs):
    """Equal values (NaN where torch has NaN), shapes and dtype names."""
    if isinstance(theirs, tuple) and isinstance(theirs[0], type):  # torch raised
        assert isinstance(ours, tuple) and ours[0] is theirs[0], (ours, theirs)
        return
    if isinstance(theirs, tuple):
        for a, b in zip(ours, theirs, strict=True):
            assert_same(a, b)
        return
    assert not isinstance(ours, tuple), ours
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_array_equal(as_numpy(ours), as_numpy(theirs))


# -- int ** int tensor with the exponent INT64_MIN ---------------------------------------------
@pytest.mark.parametrize("base", [[2, -1, 1, 0, 3, -2], [-1]])
def test_an_int64_min_exponent_is_computed_as_torch_does(base):
    exponents = [INT64_MIN, INT64_MIN + 1, -3, -2, 0, 2]
    for exponent in exponents:
        ours = agv.tensor(base) ** agv.tensor(exponent)
        theirs = torch.tensor(base) ** torch.tensor(exponent)
        assert ours.tolist() == theirs.tolist(), exponent
    # a number base too, and what the fuzzer made: a float inf copied into an int64 tensor
    assert_same(
        run("out = 3 ** lib.tensor([-2**63, -1])", agv), run("out = 3 ** lib.tensor([-2**63, -1])", torch)
    )
    source = (
        "x = lib.tensor([0, 1, -1])\nx.copy_(lib.tensor([-inf, -inf, -inf], dtype=lib.float64))\nout = x ** x"
    )
    assert_same(run(source, agv), run(source, torch))


# -- x ** -0.5 and the gradient of x ** 0.5: PyTorch's rsqrt ----------------------------------
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("p", [0.5, -0.5, 1.5, -1.5, 2, -1])
def test_powers_at_signed_zeros_and_infinities_match_torch(p, dtype):
    values = [-math.inf, -0.0, 0.0, math.inf, -4.0, 4.0, math.nan]
    results = []
    for lib in (agv, torch):
        x = lib.tensor(values, dtype=getattr(lib, dtype), requires_grad=True)
        y = x**p
        y.sum().backward()
        results.append((as_numpy(y), as_numpy(x.grad)))
    (y_ours, g_ours), (y_theirs, g_theirs) = results
    for ours, theirs in ((y_ours, y_theirs), (g_ours, g_theirs)):
        np.testing.assert_array_equal(ours, theirs)  # NaN where torch has NaN, and the same infs
        finite = np.isfinite(theirs) & (theirs == 0)
        assert np.array_equal(np.signbit(ours[finite]), np.signbit(theirs[finite]))  # -0.0 stays -0.0


def test_the_gradient_of_a_square_root_at_minus_inf_is_nan_with_create_graph_too():
    grads = []
    for lib in (agv, torch):
        x = lib.tensor([-math.inf, -0.0, 4.0], dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad((x**0.5).sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), x)
        grads.append((as_numpy(g), as_numpy(gg)))
    np.testing.assert_array_equal(grads[0][0], grads[1][0])
    np.testing.assert_array_equal(grads[0][1], grads[1][1])
    assert math.isnan(grads[0][0][0])


# -- x[i] = v on a leaf that requires grad, i out of range ---------------------------------------
@pytest.mark.parametrize(
    "source",
    [
        "x = lib.tensor([[1.0]], requires_grad=True)\nx[5] = 2.0",
        "x = lib.tensor([[1.0]], requires_grad=True)\nx[0, 3] = 2.0",
        "x = lib.tensor([[1.0]], requires_grad=True)\nx[5, [0]] = 2.0",
        "x = lib.tensor([[1.0]], requires_grad=True)\nv = x[0:1]\nv[3] = 2.0",
        # a list out of range: PyTorch's index_put_ refuses the leaf before it reads the list
        "x = lib.tensor([[1.0]], requires_grad=True)\nx[[5]] = 2.0",
        "x = lib.tensor([[1.0]], requires_grad=True)\nv = x[0:1]\nv[[3]] = 2.0",
    ],
)
def test_a_bad_index_on_a_leaf_raises_what_torch_raises_first(source):
    ours, theirs = run(source, agv), run(source, torch)
    assert ours[0] is theirs[0], (ours, theirs)
    if theirs[0] is IndexError:
        assert ours[1].startswith("x[index] = value: index ") and "for dimension" in ours[1]
        assert theirs[1].split(" with size")[0] in ours[1]


# -- in-place writes into expand()-ed views ------------------------------------------------------
@pytest.mark.parametrize(
    "source",
    [
        "x = lib.tensor([1.0, 2.0]).expand(2)\nx.mul_(2.0)\nout = x",
        "b = lib.tensor([1.0, 2.0])\nx = b.expand(1, 2)\nx.add_(lib.tensor([10.0, 20.0]))\nout = (x, b)",
        "b = lib.tensor([1.0, 2.0])\nx = b.expand(1, 2)\nx.zero_()\nout = b",
        "b = lib.tensor([1.0, 2.0])\nx = b.expand(1, 2)\nx.copy_(lib.tensor([3.0, 4.0]))\nout = b",
        "b = lib.tensor([1.0, 2.0])\ne = b.expand(3, 2)\ne[0].mul_(2)\nout = (e, b)",
        "b = lib.tensor([[1.0], [2.0]])\ne = b.expand(2, 2)\ne.t()[0].mul_(3.0)\nout = b",
        "b = lib.tensor([1.0])\ne = b.expand(3)\ne[0] = 5.0\nout = (e, b)",
        "b = lib.tensor([1.0, 2.0])\ne = b.expand(3, 2)\ne[1] = lib.tensor([[7.0, 8.0]])\nout = b",
        # two written elements share one memory location: refused by both
        "x = lib.tensor([1.0]).expand(3)\nx.mul_(2.0)\nout = x",
        "x = lib.tensor([1.0]).expand(3)\nx[0:2] = 5.0\nout = x",
        # ... except by fill_ and zero_, which give every copy the same value
        "b = lib.tensor([1.0, 2.0])\nx = b.expand(3, 2)\nx[:, 0].zero_()\nout = (x, b)",
        "b = lib.tensor([1.0, 2.0])\nx = b.expand(3, 2)\nx.fill_(4.0)\nout = (x, b)",
    ],
)
def test_writing_into_an_expanded_view_is_refused_only_where_torch_refuses(source):
    ours, theirs = run(source, agv), run(source, torch)
    assert_same(ours, theirs)
    if isinstance(theirs, tuple) and isinstance(theirs[0], type):
        assert (
            ours[1].split(": ", 1)[1].startswith(TORCH_INTERNAL_OVERLAP)
            and theirs[1] == TORCH_INTERNAL_OVERLAP
        )


def test_gradients_through_a_write_into_an_expanded_view_match_torch():
    results = []
    for lib in (agv, torch):
        w = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        v = lib.tensor([5.0, 6.0], dtype=lib.float64, requires_grad=True)
        e = (w * 1.0).expand(3, 2)
        e[0] = v
        e[1].mul_(3.0)
        (e * lib.tensor([[1.0], [2.0], [3.0]], dtype=lib.float64)).sum().backward()
        results.append((as_numpy(e), as_numpy(w.grad), as_numpy(v.grad)))
    for ours, theirs in zip(*results):
        np.testing.assert_array_equal(ours, theirs)


# -- an operand that shares memory with the tensor written into -----------------------------------
@pytest.mark.parametrize(
    "source",
    [
        "x = lib.tensor([1.0, 2.0])\nx[[1, 0]] = x\nout = x",
        "x = lib.tensor([1.0, 2.0])\nx.view(1, 2).mul_(x)\nout = x",
        "x = lib.tensor([1.0, 2.0, 3.0])\nx[1:].add_(x[:-1])\nout = x",
        "x = lib.tensor([1.0, 2.0, 3.0])\nx[1:] = x[:-1]\nout = x",
        "x = lib.tensor([[1.0, 2.0], [3.0, 4.0]])\nx.copy_(x.t())\nout = x",
        "x = lib.tensor([1.0, 2.0])\nx.mul_(x[0])\nout = x",
        "x = lib.tensor([1.0, 2.0])\nx.mul_(x.expand(1, 2))\nout = x",
        "x = lib.tensor([1.0, 2.0])\nx[[0]] = x[1]\nout = x",
        "x = lib.tensor([1.0, 2.0])\nx[x > 0] = x\nout = x",
        "x = lib.tensor([True, True])\nx[x] = lib.tensor([False, False])\nout = x",
        "x = lib.tensor([[1.0, 2.0], [3.0, 4.0]])\nx[0, [1, 0]] = x[0]\nout = x",
        # allowed by both: the same elements in the same layout, no overlap, or a masked fill
        "x = lib.tensor([1.0, 2.0])\nx.mul_(x)\nout = x",
        "x = lib.tensor([1.0, 2.0])\nx.unsqueeze(1).mul_(x.view(2, 1))\nout = x",
        "x = lib.tensor([1.0, 2.0, 3.0])\nx[:] = x\nout = x",
        "x = lib.tensor([1.0, 2.0, 3.0])\nx[...] = x\nout = x",
        "x = lib.tensor([1.0, 2.0, 3.0])\nx[::2].add_(x[:2])\nout = x",
        "x = lib.tensor([1.0, 2.0])\nx.mul_(x.expand(2, 2)[0])\nout = x",
        "x = lib.tensor([1.0, 2.0])\nx[x > 0] = x[0]\nout = x",
        "x = lib.tensor([True, False])\nx[x] = False\nout = x",
        "x = lib.tensor([True, False])\nx[x] = lib.tensor([False])\nout = x",
        "x = lib.tensor([[1.0, 2.0], [3.0, 4.0]])\nx[0, [1, 0]] = x[1]\nout = x",
        # found by the long fuzzer run: a 0-d mask, a 0-d value, dims of size 1
        "x = lib.tensor(0)\nx[x > 0] = x\nout = x",
        "x = lib.tensor(0.0)\nx[None] = x\nout = x",
        "x = lib.tensor([0])\nv = x.squeeze()\nv[...] = x\nout = x",
        "x = lib.tensor([1.0, 2.0])\nx.view(1, 2)[...] = x\nout = x",
        "x = lib.tensor([1.0, 2.0, 3.0])\nx[1:] = x[:-1].view(1, 2)\nout = x",
    ],
)
def test_an_operand_sharing_memory_with_the_written_tensor_is_refused_as_in_torch(source):
    ours, theirs = run(source, agv), run(source, torch)
    assert_same(ours, theirs)
    if isinstance(theirs, tuple) and isinstance(theirs[0], type):
        assert theirs[1] == TORCH_OVERLAP and ours[1].startswith(TORCH_OVERLAP + " (")


def test_a_refused_overlapping_write_changes_nothing():
    x = agv.tensor([1.0, 2.0, 3.0])
    with pytest.raises(RuntimeError):
        x[1:] = x[:-1]
    assert x.tolist() == [1.0, 2.0, 3.0] and x.version == 0


# -- bool @ bool ----------------------------------------------------------------------------------
SHAPES = [(0,), (2,), (2, 0), (0, 2), (2, 2), (0, 3), (3, 0), (1, 2, 0), (0, 2, 2), (2, 2, 0)]


@pytest.mark.parametrize("a_shape", SHAPES)
@pytest.mark.parametrize("b_shape", SHAPES)
def test_bool_matmul_works_where_torch_has_nothing_to_add_up(a_shape, b_shape):
    source = f"out = lib.zeros({a_shape}, dtype=lib.bool) @ lib.ones({b_shape}, dtype=lib.bool)"
    ours, theirs = run(source, agv), run(source, torch)
    if isinstance(theirs, tuple):
        # torch's NotImplementedError ("addmm_impl_cpu_" or "dot" not implemented for 'Bool')
        # or RuntimeError for shapes that do not fit
        assert isinstance(ours, tuple) and issubclass(ours[0], theirs[0].__mro__[-3]), (ours, theirs)
        if theirs[0] is NotImplementedError:
            assert ours[0] is NotImplementedError and "not implemented for 'Bool'" in ours[1]
            if "bmm" not in theirs[1]:  # (agv names no batched kernel of its own)
                assert theirs[1].split(" not")[0] in ours[1]
        return
    assert_same(ours, theirs)


# -- x ** b with a bool tensor exponent ------------------------------------------------------------
@pytest.mark.parametrize("exponent", ["lib.tensor([True])", "lib.tensor(False)", "lib.tensor([True, False])"])
def test_backward_through_a_bool_tensor_exponent_raises_as_in_torch(exponent):
    source = (
        "x = lib.tensor([0.5, 2.0], dtype=lib.float64, requires_grad=True)\n"
        f"y = x ** {exponent}\nout = y\ny.sum().backward()"
    )
    ours, theirs = run(source, agv), run(source, torch)
    assert ours[0] is theirs[0] is RuntimeError
    assert ours[1].startswith(theirs[1] + " (The backward of a ** b")
    # the forward works in both, and a Python bool exponent or a bool base has a gradient
    forward = f"x = lib.tensor([0.5, 2.0], dtype=lib.float64, requires_grad=True)\nout = x ** {exponent}"
    assert_same(run(forward, agv), run(forward, torch))
    for source in (
        "x = lib.tensor([0.5], dtype=lib.float64, requires_grad=True)\n(x ** True).sum().backward()\nout = x.grad",
        "x = lib.tensor([0.5], dtype=lib.float64, requires_grad=True)\n"
        "(lib.tensor([True]) ** x).sum().backward()\nout = x.grad",
    ):
        assert_same(run(source, agv), run(source, torch))


# -- numpy's warnings stay inside autogradviz -------------------------------------------------------
def test_overflow_and_nan_make_no_numpy_warning_even_under_pytest():
    # under pytest the import-time warnings filter of autogradviz/__init__.py is gone
    # (pytest imports inside warnings.catch_warnings()): the ops must be quiet by themselves
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        big = agv.tensor([3e38, -3e38, 1.0], requires_grad=True)
        y = big * 10.0 + big * big - agv.tensor([math.inf, math.inf, 0.0])
        (y / agv.tensor([0.0, 0.0, 0.0])).sum().backward()
        z = agv.tensor([1e308])  # float32: inf
    expected = (torch.tensor([3e38, -3e38, 1.0]) * 10.0).tolist()
    assert (big * 10.0).tolist() == expected and z.tolist() == torch.tensor([1e308]).tolist()
    assert big.grad is not None


# -- True ** x, False ** x: a Python bool base ------------------------------------------------------
@pytest.mark.parametrize("base, float_base", [("True", "1.0"), ("False", "0.0")])
def test_bool_base_pow_gradient_is_torchs_for_the_float_base(base, float_base):
    # torch's own backward fails here with an INTERNAL ASSERT (a PyTorch bug, kept in
    # KNOWN_DIVERGENCES); a bool is the number 1 or 0, so agv gives torch's gradient of
    # 1.0 ** x or 0.0 ** x, and the same forward values and dtype as torch
    template = (
        "x = lib.tensor([-1.5, 0.0, 2.0], dtype=lib.float64, requires_grad=True)\n"
        "y = {} ** x\ny.sum().backward()\nout = (y, x.grad)"
    )
    theirs = run(template.format(base), torch)
    assert theirs[0] is RuntimeError and "INTERNAL ASSERT" in theirs[1]  # still torch's bug
    assert_same(run(template.format(base), agv), run(template.format(float_base), torch))


# -- writing into a detach()-ed copy of an expand()-ed view ------------------------------------------
@pytest.mark.parametrize(
    "source",
    [
        "x = lib.tensor(0.0, dtype=lib.float64)\nd = x.expand(()).detach()\nd.add_(2.0)\nout = (x, d)",
        "x = lib.tensor([1.0, 2.0])\nd = x.expand(1, 2).detach()\nd.mul_(3.0)\nout = (x, d)",
        "x = lib.tensor([1.0, 2.0])\nd = x.expand(1, 2).t().detach()\nd.copy_(lib.tensor([[5.0], [6.0]]))\nout = (x, d)",
        "x = lib.tensor([1.0, 2.0])\nd = x.expand(3, 2).detach()\nd[0] = 5.0\nout = (x, d)",
        "x = lib.tensor([1.0, 2.0])\nd = x.expand(3, 2).detach()\nd.zero_()\nout = (x, d)",
        "x = lib.tensor([1.0, 2.0])\nd = x.expand(3, 2)[1].detach().detach()\nd.sub_(1.0)\nout = (x, d)",
        "x = lib.tensor([1.0, 2.0])\nd = x.expand(1, 2).detach().reshape(2).unsqueeze(1)\nd.add_(1.0)\nout = (x, d)",
        # the elements share memory: refused, by both, before anything is written
        "x = lib.tensor([1.0, 2.0])\nd = x.expand(3, 2).detach()\nd.add_(2.0)\nout = x",
        "x = lib.tensor([1.0, 2.0])\nd = x.expand(3, 2).detach()\ntry:\n    d.add_(2.0)\n"
        "except RuntimeError:\n    pass\nout = (x, d)",
    ],
)
def test_a_detached_expanded_view_is_written_as_torch_writes_it(source):
    # found by the long fuzzer run: agv's detach() of an expand()-ed view kept numpy's
    # read-only flag and refused every write ("this tensor's memory is read-only")
    assert_same(run(source, agv), run(source, torch))


def test_a_write_into_a_detached_expanded_view_is_seen_by_backward_as_in_torch():
    source = (
        "x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)\ny = x * 1.0\n"
        "z = (y * y).sum()\ny.expand(1, 2).detach().mul_(2.0)\nz.backward()\nout = x.grad"
    )
    ours, theirs = run(source, agv), run(source, torch)
    assert theirs[0] is RuntimeError and "modified by an inplace operation" in theirs[1]
    assert ours[0] is RuntimeError and "modified by an inplace operation" in ours[1]


def test_a_detached_expanded_view_keeps_no_graph_alive():
    import gc
    import weakref

    x = agv.tensor([1.0, 2.0], requires_grad=True)
    view = (x * 2).expand(3, 2)
    node = weakref.ref(view.grad_fn)
    detached = view.detach()
    del view
    gc.collect()
    assert node() is None  # the detached copy holds the memory, not the history
    detached[0] = 7.0
    assert detached.tolist() == [[7.0, 7.0]] * 3


# -- no numpy warning from a forward or backward formula, and torch's values -----------------------
# Each case: the input values, then the op on the leaf x (and y, a second leaf, where given).
SILENT_CASES = {
    "log(0)": ("[0.0, -1.0, 2.0]", "lib.log(x)"),
    "sqrt(-1)": ("[-1.0, 0.0, 4.0]", "lib.sqrt(x)"),
    "0/0": ("[0.0, 1.0, -1.0]", "x / (x * 0.0)"),
    "exp(1000)": ("[1000.0, -1000.0, 0.5]", "lib.exp(x)"),
    "log2(0), log10(0), log1p(-1)": ("[0.0, -1.0, 3.0]", "lib.log2(x) + lib.log10(x) + lib.log1p(x - 1.0)"),
    "sin, cos, tan at inf": ("[inf, -inf, 1.0]", "lib.sin(x) + lib.cos(x) + lib.tan(x)"),
    "asin(2), acos(2)": ("[2.0, -3.0, 0.5]", "lib.asin(x) + lib.acos(x)"),
    "sinh, cosh, expm1, exp2 at 1000": (
        "[1000.0, -1000.0, 0.5]",
        "x.sinh() + x.cosh() + x.expm1() + x.exp2()",
    ),
    "1/0, rsqrt(0), 0 ** -1": ("[0.0, -1.0, 4.0]", "x.reciprocal() + x.rsqrt() + x ** -1.0"),
    "softmax, log_softmax at inf": ("[inf, 1.0, -inf]", "x.softmax(0) + x.log_softmax(0) + x.logsumexp(0)"),
    "sum, cumsum of inf and -inf": ("[inf, -inf, 0.0]", "(x * x).sum() + (x * x).cumsum(0)"),
    "norm and std of zeros, mean of nothing": ("[0.0, 0.0, 0.0]", "x.norm() + x[:0].mean() + x.std(0)"),
    "nan to int": ("[nan, 1.5, -2.5]", "x * x + x.long()"),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", SILENT_CASES, ids=list(SILENT_CASES))
def test_floating_point_edge_cases_are_silent_and_equal_torchs(case, dtype):
    values, op = SILENT_CASES[case]
    source = (
        f"x = lib.tensor({values}, dtype=lib.{dtype}, requires_grad=True)\nout = {op}\n"
        # the first derivative recorded (create_graph), then the second through it
        "(g,) = lib.autograd.grad(out.sum(), x, create_graph=True)\ng.sum().backward()\n"
        "out = (out, g, x.grad)"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning, numpy's RuntimeWarning included, fails
        ours = run_strict(source, agv)
    theirs = run(source, torch)
    for a, b in zip(ours, theirs, strict=True):
        assert str(a.dtype) == str(b.dtype) and tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(as_numpy(a), as_numpy(b), rtol=1e-6 if dtype == "float64" else 1e-5)


def run_strict(source: str, lib):
    """Run `source`, letting every exception and warning through (unlike run)."""
    env = {"lib": lib, "inf": math.inf, "nan": math.nan}
    exec(source, env)  # noqa: S102 - the scripts above
    return env["out"]


def test_var_of_too_few_values_warns_torchs_warning_not_numpys():
    for op in ("var", "std"):
        with warnings.catch_warnings(record=True) as ours:
            warnings.simplefilter("always")
            value = getattr(agv.tensor([1.0]), op)()
        with warnings.catch_warnings(record=True) as theirs:
            warnings.simplefilter("always")
            expected = getattr(torch.tensor([1.0]), op)()
        assert math.isnan(value.item()) and math.isnan(expected.item())
        assert [w.category for w in ours] == [w.category for w in theirs] == [UserWarning]
        assert str(theirs[0].message).startswith(
            str(ours[0].message)
        )  # torch adds "(Triggered internally ...)"
        assert ours[0].filename == __file__  # it points at the learner's line


# -- same memory, other strides: PyTorch compares strides, those of dims of size 1 too -----------
@pytest.mark.parametrize(
    "source",
    [
        # refused by torch: the written view and the operand are one element, with other strides
        "x = lib.tensor([0.0], dtype=lib.float64)\nx[::2] = x\nout = x",
        "x = lib.tensor([0.0])\nx[::2].add_(x)\nout = x",
        "x = lib.tensor([0.0])\nx.copy_(x[::3])\nout = x",
        "x = lib.tensor([[1.0, 2.0]])\nx[::2, :] = x\nout = x",
        "x = lib.tensor([[1.0], [2.0]])\nx[:, ::2].mul_(x)\nout = x",
        "x = lib.tensor([[1.0]])\nx[0] = x\nout = x",
        "x = lib.tensor([0.0])\nx.unsqueeze(0)[:, ::2] = x\nout = x",
        # allowed by torch: the same layout, or a value that x[index] = v copies as x itself
        "x = lib.tensor([0.0])\nx[:] = x\nout = x",
        "x = lib.tensor([1.0, 2.0, 3.0])\nx[::2] = x[::2]\nout = x",
        "x = lib.tensor(1.0)\nx[...] = x.view(1)\nout = x",
        "x = lib.tensor([[1.0, 2.0]])\nx.view(1, 2)[...] = x\nout = x",
        "x = lib.tensor([1.0, 2.0])\nx[None].add_(x.view(1, 2))\nout = x",
        "x = lib.tensor([1.0, 2.0])\nx[:, None][...] = x.view(2, 1)\nout = x",
        "x = lib.tensor([1.0, 2.0])\nx.view(1, 2).mul_(x.view(1, 2).expand(1, 2))\nout = x",
        "x = lib.tensor([[1.0], [2.0]])\nx[:, 0] = x[:1, :1]\nout = x",
        "x = lib.tensor([0.0])\nx[::2] = x[0]\nout = x",
    ],
)
def test_an_operand_with_the_same_memory_and_other_strides_is_refused_as_in_torch(source):
    # found by the long fuzzer run: agv compared strides without the dims of size 1
    # and allowed x[::2] = x for a one-element x, which torch refuses
    ours, theirs = run(source, agv), run(source, torch)
    assert_same(ours, theirs)
    if isinstance(theirs, tuple):
        assert TORCH_OVERLAP in ours[1]


# -- x.copy_(x): PyTorch copies nothing, and so checks nothing --------------------------------------
@pytest.mark.parametrize(
    "source",
    [
        "x = lib.tensor([0])\nv = x.expand(2, 1)\nv.copy_(v)\nout = (x, v, lib.tensor(v._version))",
        "x = lib.tensor([1.0, 2.0])\nv = x.expand(3, 2)\nv.copy_(v)\nout = (v, lib.tensor(x._version))",
        "x = lib.tensor([1.0, 2.0], requires_grad=True)\ny = x * 1.0\ny.copy_(y)\n(y * y).sum().backward()\n"
        "out = (x.grad, lib.tensor(y._version))",
    ],
)
def test_copying_a_tensor_into_itself_is_a_no_op_as_in_torch(source):
    # found by the long fuzzer run: agv refused x.expand(2, 1).copy_(itself) as a write
    # into elements that share memory, where torch skips the copy
    assert_same(run(source, agv), run(source, torch))


# -- the divisor's gradient, -a/b², computed as PyTorch does: (a/b)/b ---------------------------------
@pytest.mark.parametrize(
    "a, b, dtype",
    [
        (0.0, 5e-324, "float64"),  # b·b underflows to 0: -0/0 would be nan, torch's is -0
        (2.0, 1e-160, "float64"),
        (1e300, 1e-10, "float64"),
        (0.0, 1e-45, "float32"),
        (0.7, 0.3, "float32"),
        (-1.0, 3.0, "float64"),
    ],
)
def test_the_divisors_gradient_is_computed_as_torch_computes_it(a, b, dtype):
    # found by the long fuzzer run: agv's -g·a/(b·b) was nan for a = 0, b = 5e-324
    source = (
        f"a = lib.tensor({a!r}, dtype=lib.{dtype}, requires_grad=True)\n"
        f"b = lib.tensor({b!r}, dtype=lib.{dtype}, requires_grad=True)\n"
        "(a / b).backward()\nout = (a.grad, b.grad)"
    )
    assert_same(run(source, agv), run(source, torch))


# -- x[[]] = x on an empty x: PyTorch compares the tensors before their memory ---------------------
@pytest.mark.parametrize(
    "source",
    [
        "x = lib.zeros((0,), dtype=lib.float64)\nx[[]] = x\nout = x",
        "x = lib.zeros((0, 2))\nx[[]] = x\nout = x",
        "x = lib.zeros((2, 0))\nx[:, []] = x\nout = x",
        # another tensor object over the same (empty) memory is no overlap in torch
        "x = lib.zeros((0,))\nx[[]] = x.view(0)\nout = x",
        "x = lib.zeros((0,))\nx[[]] = x[:]\nout = x",
        "x = lib.zeros((0,))\nx[:] = x\nout = x",
    ],
)
def test_an_empty_tensor_written_into_itself_by_index_is_refused_as_in_torch(source):
    # found by the long fuzzer run: agv allowed x[[]] = x for an empty x
    ours, theirs = run(source, agv), run(source, torch)
    assert_same(ours, theirs)
    if isinstance(theirs, tuple):
        assert TORCH_OVERLAP in ours[1]


# -- a number too big for an integer tensor (fuzzer, seed 2222) --------------------------------


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "int8", "uint8", "bool"])
@pytest.mark.parametrize("value", [float("inf"), float("nan"), 1e10, 300.0, -1.0, 5.0])
@pytest.mark.parametrize(
    "form", ["mask, 0-d tensor", "mask, [value]", "int, number", "mask, number", "slice, number"]
)
def test_writing_a_number_into_an_int_tensor_checks_it_fits_as_torch(dtype, value, form):
    """v[v > 0] = tensor(inf) on an int64 v wrote -2**63 (or, with an all-False mask, nothing)
    where PyTorch raises: it converts the number to the dtype first (masked_fill_, fill_)."""

    def write(lib, v):
        if form == "mask, 0-d tensor":
            v[v > 0] = lib.tensor(value)
        elif form == "mask, [value]":
            v[v > 0] = lib.tensor([value])
        elif form == "int, number":
            v[0] = value
        elif form == "mask, number":
            v[v > 0] = value
        else:
            v[0:1] = value

    results = []
    for lib in (torch, agv):
        v = lib.tensor([1, 0, 2], dtype=getattr(lib, dtype))
        try:
            write(lib, v)
            results.append(v.tolist())
        except RuntimeError as error:
            # torch: "value cannot be converted to type int64_t without overflow"
            results.append(
                re.search(r"value cannot be converted to type \S+( \S+)? without overflow", str(error)).group(
                    0
                )
            )
    assert results[1] == results[0]
