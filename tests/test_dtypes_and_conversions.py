"""The dtypes, their promotion, printing and conversions, against torch (issue 12).

Every expected value comes from torch itself: each test runs the same code
with `torch` and with `autogradviz` and compares what they give.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import autogradviz as agv

torch = pytest.importorskip("torch")

NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float32", "float64"]


def both(name: str):
    """The dtype called `name` in agv and in torch."""
    return getattr(agv, name), getattr(torch, name)


# -- the dtypes themselves ----------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_a_dtype_prints_and_describes_itself_as_torch_does(name):
    ours, theirs = both(name)
    assert repr(ours) == repr(theirs) == str(ours) == f"torch.{name}"
    assert ours.is_floating_point == theirs.is_floating_point
    assert ours.is_signed == theirs.is_signed
    assert ours.itemsize == theirs.itemsize
    assert ours.is_complex == theirs.is_complex


@pytest.mark.parametrize(
    "alias", ["float", "double", "long", "int", "short", "bool", "half", "float16", "int8", "uint8"]
)
def test_torch_aliases_name_the_same_dtypes(alias):
    assert repr(getattr(agv, alias)) == repr(getattr(torch, alias))


def test_float16_is_a_name_whose_use_is_a_clear_error():
    """Decision (see core/dtypes.py): autogradviz computes in float32 or float64, so a
    half tensor is refused, with a message that says so, wherever one would be made."""
    x = agv.tensor([1.0, 2.0])
    makers = [
        lambda: agv.tensor([1.0], dtype=agv.half),
        lambda: agv.zeros(2, dtype=agv.float16),
        lambda: x.half(),
        lambda: x.to(agv.float16),
        lambda: agv.tensor(np.ones(2, np.float16)),
        lambda: agv.from_numpy(np.ones(2, np.float16)),
        lambda: agv.HalfTensor([1.0]),
    ]
    for make in makers:
        with pytest.raises(
            TypeError, match="float16 .half. tensors are not supported: autogradviz computes in"
        ):
            make()
    assert x.dtype is agv.float32  # nothing changed


@pytest.mark.parametrize("name", NAMES[1:])  # every dtype but bool
def test_numpy_arrays_keep_their_dtype(name):
    array = np.array([1, 2]).astype(name)
    for make in ("tensor", "from_numpy"):
        ours, theirs = getattr(agv, make)(array.copy()), getattr(torch, make)(array.copy())
        assert repr(ours.dtype) == repr(theirs.dtype)
        assert repr(ours) == repr(theirs)


def test_from_numpy_shares_memory_for_the_new_dtypes():
    array = np.array([1, 2], dtype=np.int16)
    t = agv.from_numpy(array)
    array[0] = 7
    assert t.tolist() == [7, 2] and t.dtype is agv.int16


def test_wide_unsigned_numpy_arrays_are_widened_to_int64_or_refused_by_from_numpy():
    """torch 2.13 has uint16/32/64 with almost no arithmetic; autogradviz copies them to
    int64 (agv.tensor) and from_numpy, which cannot convert, says so."""
    array = np.array([1, 65535], dtype=np.uint16)
    assert torch.tensor(array).dtype == torch.uint16  # torch keeps it (and can't add it to int8)
    t = agv.tensor(array)
    assert t.dtype is agv.int64 and t.tolist() == [1, 65535]
    with pytest.raises(TypeError, match="from_numpy shares the array's memory"):
        agv.from_numpy(array)


# -- promotion: every pair, as torch.result_type ----------------------------------------------


def operands(lib):
    """(label, value) for: a tensor with dimensions and a 0-d tensor of every dtype,
    and a Python bool, int and float."""
    out = []
    for name in NAMES:
        dtype = getattr(lib, name)
        out.append((f"{name}[2]", lib.tensor([3, 1], dtype=dtype)))
        out.append((f"{name}[]", lib.tensor(2, dtype=dtype)))
    out += [("True", True), ("2", 2), ("2.5", 2.5)]
    return out


OPS = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a / b,
    "==": lambda a, b: a == b,
    "<": lambda a, b: a < b,
    ">=": lambda a, b: a >= b,
    "**": lambda a, b: a**b,
    "&": lambda a, b: a & b,
    "|": lambda a, b: a | b,
    "^": lambda a, b: a ^ b,
    "maximum": lambda a, b: a.maximum(b) if hasattr(a, "maximum") else b.maximum(a),
}


def outcome(fn, a, b):
    """The result's dtype name and values, or the exception class (bool - bool raises in both)."""
    try:
        out = fn(a, b)
    except (RuntimeError, TypeError, NotImplementedError) as error:
        return type(error).__name__
    return repr(out.dtype), np.asarray(out.tolist(), dtype=np.float64)


@pytest.mark.parametrize("op", list(OPS))
def test_type_promotion_matches_torch_for_every_pair(op):
    fn = OPS[op]
    ours_all, theirs_all = operands(agv), operands(torch)
    mismatches = []
    for i, j in itertools.product(range(len(ours_all)), repeat=2):
        (label_a, a), (_, ta) = ours_all[i], theirs_all[i]
        (label_b, b), (_, tb) = ours_all[j], theirs_all[j]
        if not (isinstance(a, agv.Tensor) or isinstance(b, agv.Tensor)):
            continue  # two Python numbers: Python's own arithmetic
        if op == "maximum" and not (isinstance(a, agv.Tensor) and isinstance(b, agv.Tensor)):
            continue  # torch.maximum takes two tensors
        ours, theirs = outcome(fn, a, b), outcome(fn, ta, tb)
        same = (
            ours == theirs
            if isinstance(theirs, str) or isinstance(ours, str)
            else ours[0] == theirs[0] and np.allclose(ours[1], theirs[1], rtol=1e-6)
        )
        if not same:
            mismatches.append(f"{label_a} {op} {label_b}: agv {ours}, torch {theirs}")
    assert not mismatches, "\n".join(mismatches)


def test_comparisons_give_bool_and_true_division_gives_float32():
    a, b = agv.tensor([1, 2], dtype=agv.int32), agv.tensor([2, 2], dtype=agv.int32)
    assert (a < b).dtype is agv.bool
    assert repr(a / b) == repr(
        torch.tensor([1, 2], dtype=torch.int32) / torch.tensor([2, 2], dtype=torch.int32)
    )
    assert (a / b).dtype is agv.float32


@pytest.mark.parametrize(
    "code",
    [
        "lib.tensor([127], dtype=lib.int8) + 1",
        "lib.tensor([-128], dtype=lib.int8) - 1",
        "lib.tensor([0], dtype=lib.uint8) - 1",
        "lib.tensor([200], dtype=lib.uint8) * 2",
        "lib.tensor([1], dtype=lib.int8) + 1000",
        "lib.tensor([1], dtype=lib.uint8) + (-1)",
        "lib.tensor([32767], dtype=lib.int16) + lib.tensor(1, dtype=lib.int16)",
        "lib.tensor([2**31 - 1], dtype=lib.int32) + 1",
        "lib.tensor([100], dtype=lib.int8) * lib.tensor(3)",  # a 0-d int64 tensor doesn't widen int8
        "lib.tensor([100], dtype=lib.uint8) + lib.tensor([100], dtype=lib.int8)",  # int16: no wrap
    ],
)
def test_integer_overflow_wraps_around_as_in_torch(code):
    ours, theirs = eval(code, {"lib": agv}), eval(code, {"lib": torch})
    assert repr(ours) == repr(theirs)


def test_in_place_ops_keep_the_tensors_dtype_and_wrap():
    for lib in (agv, torch):
        x = lib.tensor([120, 5], dtype=lib.int8)
        x += 10
        x.mul_(2)
        if lib is agv:
            ours = repr(x)
        else:
            assert ours == repr(x)


# -- values given as Python numbers must fit, as in torch ---------------------------------------


@pytest.mark.parametrize(
    "data, name",
    [
        ([300], "uint8"),
        ([-256], "uint8"),
        ([-1.0], "uint8"),
        ([255.9], "uint8"),
        ([128], "int8"),
        ([-129.0], "int8"),
        ([3e10], "int32"),
        ([2**40], "int32"),
        ([float("nan")], "int16"),
    ],
)
def test_python_numbers_that_dont_fit_the_dtype_raise(data, name):
    with pytest.raises(RuntimeError) as theirs:
        torch.tensor(data, dtype=getattr(torch, name))
    with pytest.raises(RuntimeError) as ours:
        agv.tensor(data, dtype=getattr(agv, name))
    assert str(ours.value).startswith(str(theirs.value))


@pytest.mark.parametrize(
    "code",
    [
        "lib.tensor([-1], dtype=lib.uint8)",  # negative ints wrap for unsigned dtypes
        "lib.tensor([-255, 255], dtype=lib.uint8)",
        "lib.tensor([1.5, -2.7], dtype=lib.int32)",  # floats are truncated toward 0
        "lib.tensor(np.array([300]), dtype=lib.uint8)",  # numpy arrays wrap around
        "lib.tensor([2, 0], dtype=lib.bool)",
    ],
)
def test_python_numbers_that_fit_or_wrap_as_in_torch(code):
    assert repr(eval(code, {"lib": agv, "np": np})) == repr(eval(code, {"lib": torch, "np": np}))


# -- creation and conversion ---------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize(
    "code",
    [
        "lib.zeros(2, dtype=d)",
        "lib.ones(2, 2, dtype=d)",
        "lib.full((2,), 1, dtype=d)",
        "lib.arange(3, dtype=d)",
        "lib.tensor([1, 0], dtype=d)",
        "lib.tensor(1, dtype=d)",
        "lib.tensor([], dtype=d)",
        "lib.zeros(0, 2, dtype=d)",
        "lib.tensor([1, 0]).to(d)",
        "lib.tensor([1.5, -0.5]).type(d)",
    ],
)
def test_making_and_converting_tensors_of_each_dtype_prints_as_torch(name, code):
    if name == "bool" and "arange" in code:
        pytest.skip("torch: arange is not implemented for bool")
    ours = eval(code, {"lib": agv, "d": getattr(agv, name)})
    theirs = eval(code, {"lib": torch, "d": getattr(torch, name)})
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("method", ["int", "short", "char", "byte", "long", "float", "double", "bool"])
def test_conversion_methods(method):
    ours = getattr(agv.tensor([1.7, -2.0, 0.0]), method)()
    theirs = getattr(torch.tensor([1.7, -2.0, 0.0]), method)()
    assert repr(ours) == repr(theirs)
    assert ours.is_floating_point() == theirs.is_floating_point()


@pytest.mark.parametrize("name", NAMES)
def test_type_names_the_legacy_tensor_type(name):
    ours, theirs = agv.zeros(2, dtype=getattr(agv, name)), torch.zeros(2, dtype=getattr(torch, name))
    assert ours.type() == theirs.type()
    legacy = theirs.type()  # "torch.FloatTensor"
    assert repr(agv.tensor([1, 0]).type(legacy)) == repr(torch.tensor([1, 0]).type(legacy))
    cls = legacy.removeprefix("torch.")
    assert repr(agv.tensor([1, 0]).type(getattr(agv, cls))) == repr(
        torch.tensor([1, 0]).type(getattr(torch, cls))
    )


def test_type_to_the_same_dtype_is_the_same_tensor():
    x = agv.ones(2)
    assert x.type(agv.float32) is x and x.type("torch.FloatTensor") is x


def test_a_conversion_keeps_the_gradient_path():
    for lib in (agv, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        (x.type(lib.float64) * 3).sum().backward()
        if lib is agv:
            ours = repr(x.grad)
        else:
            assert ours == repr(x.grad)


# -- the legacy typed tensors: agv.FloatTensor and friends --------------------------------

LEGACY = [
    "FloatTensor",
    "DoubleTensor",
    "LongTensor",
    "IntTensor",
    "ShortTensor",
    "CharTensor",
    "ByteTensor",
    "BoolTensor",
]


@pytest.mark.parametrize("cls", LEGACY)
@pytest.mark.parametrize(
    "args", [([1, 0],), ([[1.7, 2.0], [0.0, 3.0]],), (2, 3), (), (np.array([1.0, 0.0]),), ((2, 3),)]
)
def test_legacy_constructors_make_what_torch_makes(cls, args):
    ours, theirs = getattr(agv, cls)(*args), getattr(torch, cls)(*args)
    assert ours.shape == tuple(theirs.shape)
    assert repr(ours.dtype) == repr(theirs.dtype)
    if not (len(args) == 2 and isinstance(args[0], int)):  # torch's memory is uninitialised: ours is zeros
        assert repr(ours) == repr(theirs)
    assert ours.is_leaf and not ours.requires_grad


def test_a_size_object_is_a_size_and_a_tuple_is_data():
    for lib in (agv, torch):
        sized, data = lib.FloatTensor(lib.ones(2, 3).shape), lib.FloatTensor((2, 3))
        if lib is agv:
            ours = (tuple(sized.shape), data.tolist())
        else:
            assert ours == (tuple(sized.shape), data.tolist())


def test_legacy_sized_tensors_are_zeros():
    assert agv.FloatTensor(2, 3).tolist() == [[0.0] * 3] * 2
    assert agv.Tensor(2).tolist() == [0.0, 0.0]


@pytest.mark.parametrize("cls", LEGACY)
def test_isinstance_checks_the_dtype(cls):
    for name in NAMES:
        ours, theirs = agv.zeros(1, dtype=getattr(agv, name)), torch.zeros(1, dtype=getattr(torch, name))
        assert isinstance(ours, getattr(agv, cls)) == isinstance(theirs, getattr(torch, cls)), (cls, name)
    assert not isinstance([1.0], getattr(agv, cls))
    assert repr(getattr(agv, cls)) == repr(getattr(torch, cls))


def test_agv_tensor_the_class_is_a_legacy_constructor_too():
    for args in [([1, 2],), (2, 3), ()]:
        assert agv.Tensor(*args).shape == tuple(torch.Tensor(*args).shape)
    assert repr(agv.Tensor([1, 2])) == repr(torch.Tensor([1, 2]))


def test_a_legacy_constructor_refuses_a_tensor_of_another_dtype():
    with pytest.raises(TypeError):
        torch.FloatTensor(torch.ones(2, dtype=torch.float64))
    with pytest.raises(TypeError, match=r"expected torch.FloatTensor \(got torch.DoubleTensor\)"):
        agv.FloatTensor(agv.ones(2, dtype=agv.float64))


# -- Variable --------------------------------------------------------------------------------


def run_variable(lib):
    variable = lib.autograd.Variable
    t = lib.ones(2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        v = variable(t, requires_grad=True)
    (v * 3).sum().backward()
    t.add_(1)  # the same memory
    facts = [
        v is t,
        v.is_leaf,
        v.requires_grad,
        t.requires_grad,
        v.tolist(),
        v.grad.tolist(),
        v.data.tolist(),
    ]
    facts += [isinstance(t, variable), len(caught), repr(variable(v * 2))]
    return facts


def test_variable_is_a_new_leaf_sharing_the_data_without_a_warning():
    """torch 2.13 gives no deprecation warning for Variable(t, requires_grad=True): it
    returns a new leaf (not t itself) that shares t's memory."""
    assert run_variable(agv) == run_variable(torch)
    from autogradviz.autograd import Variable  # the import tutorials write

    assert Variable is agv.autograd.Variable


def test_variable_errors_and_the_volatile_warning_are_torchs():
    for lib in (torch, agv):
        with pytest.raises(TypeError, match="Variable data has to be a tensor, but got list"):
            lib.autograd.Variable([1.0, 2.0])
        with pytest.raises(
            RuntimeError, match="Only Tensors of floating point and complex dtype can require gradients"
        ):
            lib.autograd.Variable(lib.tensor([1, 2]), requires_grad=True)
        with pytest.warns(
            UserWarning, match="volatile was removed and now has no effect. Use `with torch.no_grad"
        ):
            lib.autograd.Variable(lib.ones(1), volatile=True)


# -- finfo and iinfo ---------------------------------------------------------------------


@pytest.mark.parametrize("name", ["float32", "float64"])
def test_finfo_matches_torch(name):
    ours, theirs = agv.finfo(getattr(agv, name)), torch.finfo(getattr(torch, name))
    for field in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(ours, field) == getattr(theirs, field), field
    assert repr(ours) == repr(theirs)
    assert repr(agv.finfo()) == repr(torch.finfo())


@pytest.mark.parametrize("name", ["uint8", "int8", "int16", "int32", "int64"])
def test_iinfo_matches_torch(name):
    ours, theirs = agv.iinfo(getattr(agv, name)), torch.iinfo(getattr(torch, name))
    for field in ("bits", "max", "min", "dtype"):
        assert getattr(ours, field) == getattr(theirs, field), field
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("call", ["finfo(lib.int32)", "iinfo(lib.float32)", "iinfo(lib.bool)"])
def test_finfo_and_iinfo_refuse_the_other_kind_with_torchs_message(call):
    with pytest.raises(TypeError) as theirs:
        eval("lib." + call, {"lib": torch})
    with pytest.raises(TypeError) as ours:
        eval("lib." + call, {"lib": agv})
    assert str(ours.value) == str(theirs.value)


# -- printing ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "code",
    [
        "print(lib.ones(2).dtype)",
        "print(lib.tensor([1, 2], dtype=lib.int32))",
        "print(lib.tensor([1.5], dtype=lib.float64, requires_grad=True))",
        "print(lib.tensor([1.5], dtype=lib.float64, requires_grad=True) * 2)",
        "print(lib.tensor([], dtype=lib.int64))",
        "print(lib.tensor([], dtype=lib.bool))",
        "print(lib.tensor([]))",
        "print(lib.tensor([True, False]))",
        "print(lib.tensor([[1, 2], [3, 4]], dtype=lib.uint8))",
        "print(lib.tensor(7, dtype=lib.int16))",
        "print({'dtype': lib.float32})",
    ],
)
def test_printed_output_is_torchs(code, capsys):
    exec(code, {"lib": torch})
    theirs = capsys.readouterr().out
    exec(code, {"lib": agv})
    assert capsys.readouterr().out == theirs
