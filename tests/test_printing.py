"""format_tensor must print exactly what PyTorch prints for the same data."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from autogradviz.core import printing
from autogradviz.core.printing import format_tensor, get_printoptions, set_printoptions

torch = pytest.importorskip("torch")

nan, inf = float("nan"), float("inf")


@pytest.fixture(autouse=True)
def restore_print_options():
    """Every test may change options in both libraries; put them back after."""
    saved_torch = torch._tensor_str.get_printoptions()
    saved_ours = get_printoptions()
    yield
    torch.set_printoptions(**saved_torch)
    set_printoptions(**saved_ours)


def extras_for(t: torch.Tensor) -> list[str]:
    """The suffixes the autogradviz Tensor is expected to pass for `t`."""
    extras = []
    if t.dtype not in (torch.float32, torch.int64, torch.bool):
        extras.append(f"dtype={t.dtype}")  # "dtype=torch.float64": autogradviz prints torch's names
    if t.grad_fn is not None:
        extras.append(f"grad_fn=<{type(t.grad_fn).__name__}>")
    elif t.requires_grad:
        extras.append("requires_grad=True")
    return extras


def assert_prints_like_torch(t: torch.Tensor) -> None:
    assert format_tensor(t.detach().numpy(), extras_for(t)) == repr(t)


# --- hand-picked cases -------------------------------------------------------

f64 = torch.float64


def _grad_leaf(*shape: int, dtype=torch.float32) -> torch.Tensor:
    return torch.linspace(-2, 3, int(np.prod(shape)), dtype=dtype).reshape(shape).requires_grad_()


CASES: dict[str, Callable[[], torch.Tensor]] = {
    # 0-d
    "scalar_int_valued": lambda: torch.tensor(2.0),
    "scalar_half": lambda: torch.tensor(0.5),
    "scalar_negative": lambda: torch.tensor(-3.0),
    "scalar_tiny": lambda: torch.tensor(1e-5),
    "scalar_huge": lambda: torch.tensor(1e9),
    "scalar_zero": lambda: torch.tensor(0.0),
    "scalar_neg_zero": lambda: torch.tensor(-0.0),
    "scalar_nan": lambda: torch.tensor(nan),
    "scalar_neg_inf": lambda: torch.tensor(-inf),
    "scalar_int": lambda: torch.tensor(7),
    "scalar_bool": lambda: torch.tensor(True),
    "scalar_f64": lambda: torch.tensor(0.1, dtype=f64),
    "scalar_int32": lambda: torch.tensor(-12, dtype=torch.int32),
    # small float32
    "ones_2x2": lambda: torch.ones(2, 2),
    "arange_3": lambda: torch.arange(3.0),
    "fixed_mode": lambda: torch.tensor([0.5, -1.25, 3.0]),
    "negatives_pad": lambda: torch.tensor([[-1.0, 2.0], [300.0, -4.0]]),
    "tiny_and_one": lambda: torch.tensor([1e-5, 1.0]),
    "huge_and_one": lambda: torch.tensor([1e9, 1.0]),
    "huge_int_valued": lambda: torch.tensor([1e10, 2.0, -3.0]),
    "ratio_1000": lambda: torch.tensor([1.0, 1000.0]),
    "ratio_1001": lambda: torch.tensor([1.0, 1001.0]),
    "ratio_fixed": lambda: torch.tensor([0.5, 400.25]),
    "max_1e8": lambda: torch.tensor([1e8, 3e7]),
    "min_1e-4": lambda: torch.tensor([1e-4, 2e-4]),
    "zeros": lambda: torch.zeros(3),
    "neg_zero_and_zero": lambda: torch.tensor([-0.0, 0.0]),
    "neg_zero_and_one": lambda: torch.tensor([-0.0, 1.0]),
    "neg_zero_fixed": lambda: torch.tensor([-0.0, 0.5]),
    "nan_inf_only": lambda: torch.tensor([nan, inf, -inf]),
    "nan_inf_int_mode": lambda: torch.tensor([nan, 1.0, -inf, 20.0]),
    "nan_inf_fixed": lambda: torch.tensor([nan, 1.5, inf, -2.0]),
    "nan_inf_sci": lambda: torch.tensor([1e-5, nan, inf, 1e5]),
    "nan_2d": lambda: torch.tensor([[nan, 0.1], [123.456, -inf]]),
    "rounds_up": lambda: torch.tensor([0.99999, 9.99995]),
    # other dtypes
    "int_arange": lambda: torch.arange(10),
    "int_negative": lambda: torch.tensor([-5, 100, 3]),
    "int_2d": lambda: torch.tensor([[1, -20], [300, 4]]),
    "int32": lambda: torch.tensor([1, 2, 3], dtype=torch.int32),
    "bool_2x3": lambda: torch.tensor([[True, False, True], [False, False, True]]),
    "bool_all_true": lambda: torch.ones(4, dtype=torch.bool),
    "f64_vector": lambda: torch.tensor([0.1, 0.2, -0.3], dtype=f64),
    "f64_int_valued": lambda: torch.ones(2, 2, dtype=f64),
    "f64_sci": lambda: torch.tensor([1e-300, 1e300], dtype=f64),
    # empty
    "empty_1d": lambda: torch.zeros(0),
    "empty_0x3": lambda: torch.zeros(0, 3),
    "empty_2x0x4": lambda: torch.zeros(2, 0, 4),
    "empty_int": lambda: torch.zeros(0, dtype=torch.int64),
    "empty_bool_2d": lambda: torch.zeros(0, 2, dtype=torch.bool),
    "empty_f64": lambda: torch.zeros(0, dtype=f64),
    "empty_f64_2d_grad": lambda: torch.zeros(3, 0, dtype=f64, requires_grad=True),
    "empty_grad": lambda: torch.zeros(0, 3, requires_grad=True),
    # nesting and line wrapping
    "blocks_3d": lambda: torch.arange(24.0).reshape(2, 3, 4),
    "blocks_4d": lambda: torch.arange(16.0).reshape(2, 2, 2, 2) / 3,
    "unit_dims": lambda: torch.ones(1, 1, 3),
    "long_row": lambda: torch.arange(100.0) / 7,
    "long_int_row": lambda: torch.arange(-60, 60),
    "long_bool_row": lambda: torch.arange(40) % 3 == 0,
    "wrapped_2d": lambda: torch.arange(300.0).reshape(10, 30) / 9,
    "wrapped_3d": lambda: torch.arange(360.0).reshape(3, 4, 30) - 100,
    "wrapped_sci": lambda: torch.full((20,), 1e9),
    "exactly_threshold": lambda: torch.arange(1000.0),
    # summarization
    "summarized_1001": lambda: torch.arange(1001.0),
    "summarized_int_2000": lambda: torch.arange(2000),
    "summarized_50x50": lambda: torch.arange(2500.0).reshape(50, 50) / 11,
    "summarized_rows_only": lambda: torch.arange(1500.0).reshape(500, 3),
    "summarized_cols_only": lambda: torch.arange(1500.0).reshape(3, 500),
    "summarized_3d": lambda: torch.arange(3000.0).reshape(10, 10, 30) - 1500,
    # the hidden middle must not affect the style: only 0..3 and 1997..1999 show
    "summarized_hides_tiny": lambda: torch.cat([torch.ones(3), torch.full((1994,), 1e-9), torch.ones(3)]),
    # autograd suffixes
    "requires_grad": lambda: _grad_leaf(3),
    "requires_grad_2d": lambda: _grad_leaf(2, 2),
    "grad_fn_mul": lambda: _grad_leaf(2, 2) * 2,
    "grad_fn_sum": lambda: _grad_leaf(2, 3).sum(),
    "grad_fn_f64": lambda: _grad_leaf(4, dtype=f64) / 3,
    "suffix_wraps_exp": lambda: _grad_leaf(3, dtype=f64).exp(),
    "suffix_wraps": lambda: torch.tensor([-1.5] * 8, dtype=f64, requires_grad=True) * 2,
    "suffix_wraps_2d": lambda: torch.full((2, 8), -1.5, dtype=f64, requires_grad=True) + 0,
    "suffix_after_long_2d": lambda: (torch.arange(300.0).reshape(10, 30) / 9).requires_grad_(),
    "suffix_summarized": lambda: torch.arange(2000.0, dtype=f64).requires_grad_() * 3,
}


@pytest.mark.parametrize("make", CASES.values(), ids=CASES.keys())
def test_matches_torch(make: Callable[[], torch.Tensor]) -> None:
    assert_prints_like_torch(make())


def test_suffixes_wrap_by_their_own_length() -> None:
    # torch wraps "dtype=torch.float64, grad_fn=<ExpBackward0>)" here; the agv
    # spelling is 2 characters shorter and still fits on the line.
    values = np.array([0.1353, 1.6487, 20.0855])
    extras = ["dtype=agv.float64", "grad_fn=<ExpBackward0>"]
    assert format_tensor(values, extras) == (
        "tensor([ 0.1353,  1.6487, 20.0855], dtype=agv.float64, grad_fn=<ExpBackward0>)"
    )
    extras = ["dtype=agv.float64", "grad_fn=<ExpBackward0>" + "x" * 3]
    assert format_tensor(values, extras) == (
        "tensor([ 0.1353,  1.6487, 20.0855], dtype=agv.float64,\n       grad_fn=<ExpBackward0>xxx)"
    )


def test_examples_from_the_docstring() -> None:
    assert format_tensor(np.ones((2, 2), np.float32)) == "tensor([[1., 1.],\n        [1., 1.]])"
    assert format_tensor(np.array(2.0, np.float32)) == "tensor(2.)"
    assert format_tensor(np.array(0.5, np.float32)) == "tensor(0.5000)"
    assert format_tensor(np.zeros((0, 3), np.float32)) == "tensor([], size=(0, 3))"
    assert (
        format_tensor(np.array([1.0, 2.0]), ["dtype=torch.float64", "requires_grad=True"])
        == "tensor([1., 2.], dtype=torch.float64, requires_grad=True)"
    )


# --- random arrays -------------------------------------------------------------

SHAPES = [
    (),
    (1,),
    (3,),
    (2, 2),
    (5, 7),
    (2, 3, 4),
    (2, 1, 3, 2),
    (1000,),
    (1001,),
    (2000,),
    (50, 50),
    (3, 400),
    (7, 3, 50),
]
SCALES = [1e-6, 1e-3, 1.0, 1e3, 1e5, 1e9]
RANDOM_FLOAT_CASES = [
    (shape, dtype, scale) for shape in SHAPES for dtype in ("float32", "float64") for scale in SCALES
]


def _case_id(shape, dtype, scale) -> str:
    return f"{'x'.join(map(str, shape)) or 'scalar'}-{dtype}-{scale:g}"


def _rng(*key) -> np.random.Generator:
    """A generator seeded by the test case (hash() of strings varies between runs)."""
    return np.random.default_rng(sum((i + 1) * ord(c) for i, c in enumerate(repr(key))))


@pytest.mark.parametrize(
    "shape, dtype, scale",
    RANDOM_FLOAT_CASES,
    ids=[_case_id(*c) for c in RANDOM_FLOAT_CASES],
)
def test_random_floats(shape, dtype, scale) -> None:
    values = (_rng(shape, dtype, scale).standard_normal(shape) * scale).astype(dtype)
    assert_prints_like_torch(torch.from_numpy(np.asarray(values)))


@pytest.mark.parametrize(
    "shape, dtype, scale",
    RANDOM_FLOAT_CASES,
    ids=[_case_id(*c) for c in RANDOM_FLOAT_CASES],
)
def test_random_integer_valued_floats_with_nan_inf(shape, dtype, scale) -> None:
    rng = _rng("special", shape, dtype, scale)
    values = np.round(rng.standard_normal(shape) * scale * 10)
    specials = np.array([nan, inf, -inf, 0.0, -0.0])
    mask = rng.random(shape) < 0.2
    values = np.where(mask, rng.choice(specials, size=shape), values).astype(dtype)
    assert_prints_like_torch(torch.from_numpy(np.asarray(values)))


@pytest.mark.parametrize("shape", SHAPES, ids=[_case_id(s, "int", 0) for s in SHAPES])
@pytest.mark.parametrize("high", [2, 100, 10**6, 10**15])
def test_random_ints(shape, high) -> None:
    values = _rng("int", shape, high).integers(-high, high, size=shape, dtype=np.int64)
    assert_prints_like_torch(torch.from_numpy(np.asarray(values)))


@pytest.mark.parametrize("shape", SHAPES, ids=[_case_id(s, "bool", 0) for s in SHAPES])
def test_random_bools(shape) -> None:
    values = _rng("bool", shape).random(shape) < 0.5
    assert_prints_like_torch(torch.from_numpy(np.asarray(values)))


@pytest.mark.parametrize("seed", range(10))
def test_random_with_grad_fn(seed: int) -> None:
    rng = _rng("grad", seed)
    shape = tuple(rng.integers(1, 6, size=rng.integers(1, 4)))
    dtype = torch.float64 if seed % 2 else torch.float32
    leaf = torch.tensor(rng.standard_normal(shape), dtype=dtype, requires_grad=True)
    assert_prints_like_torch(leaf)
    assert_prints_like_torch(leaf * 3)
    assert_prints_like_torch(leaf.tanh())


# --- print options ---------------------------------------------------------------

OPTION_PROBES = [
    "scalar_half",
    "fixed_mode",
    "tiny_and_one",
    "huge_int_valued",
    "nan_inf_fixed",
    "neg_zero_fixed",
    "int_arange",
    "bool_2x3",
    "f64_vector",
    "empty_0x3",
    "blocks_3d",
    "long_row",
    "wrapped_2d",
    "summarized_1001",
    "summarized_50x50",
    "summarized_3d",
    "summarized_hides_tiny",
    "grad_fn_mul",
    "suffix_wraps",
    "suffix_summarized",
]

OPTION_SETTINGS = {
    "precision_2": {"precision": 2},
    "precision_6": {"precision": 6},
    "precision_0": {"precision": 0},
    "linewidth_40": {"linewidth": 40},
    "linewidth_200": {"linewidth": 200},
    "threshold_10": {"threshold": 10},
    "threshold_10_edgeitems_1": {"threshold": 10, "edgeitems": 1},
    "edgeitems_5": {"edgeitems": 5},
    "edgeitems_0": {"edgeitems": 0},
    "threshold_10_edgeitems_0": {"threshold": 10, "edgeitems": 0},
    "sci_on": {"sci_mode": True},
    "sci_off": {"sci_mode": False},
    "profile_short": {"profile": "short"},
    "profile_full": {"profile": "full"},
}


@pytest.mark.parametrize("settings", OPTION_SETTINGS.values(), ids=OPTION_SETTINGS.keys())
def test_print_options_match_torch(settings: dict) -> None:
    torch.set_printoptions(**settings)
    set_printoptions(**settings)
    for name in OPTION_PROBES:
        assert_prints_like_torch(CASES[name]())


def test_precision_2() -> None:
    set_printoptions(precision=2)
    assert format_tensor(np.array([1.12345], np.float32)) == "tensor([1.12])"
    assert format_tensor(np.array([1e-5, 1.0], np.float32)) == "tensor([1.00e-05, 1.00e+00])"


def test_set_printoptions_keeps_unset_values_and_resets_sci_mode() -> None:
    for set_options in (set_printoptions, torch.set_printoptions):
        set_options(precision=2, linewidth=50, sci_mode=True)
        set_options(threshold=5)
    expected = {
        "precision": 2,
        "threshold": 5,
        "edgeitems": 3,
        "linewidth": 50,
        "sci_mode": None,
    }
    assert get_printoptions() == torch._tensor_str.get_printoptions() == expected


def test_options_are_restored() -> None:
    # runs after tests that changed the options: the fixture must have undone them
    assert get_printoptions() == {
        "precision": 4,
        "threshold": 1000,
        "edgeitems": 3,
        "linewidth": 80,
        "sci_mode": None,
    }
    assert printing.options == printing.PrintOptions()
