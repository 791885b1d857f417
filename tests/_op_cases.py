"""The table of differentiable ops that test_ops_vs_torch.py and
test_ops_gradcheck.py both walk.

Each case is a function `fn(m, *inputs)` written once for both libraries: `m`
is either `autogradviz` or `torch`, which share their names. Inputs are
described by specs that make seeded numpy arrays:

    R(3, 4)        standard normal, requires grad
    P(3, 4)        uniform on [0.5, 2), requires grad (for log, sqrt, /, **)
    F([[1., 2.]])  fixed values, requires grad (ties, large values)
    C([True, ...]) a constant tensor that needs no grad (masks, indices)

Every float input is cast to the dtype under test.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np

# -- input specs ---------------------------------------------------------------------


class R:
    def __init__(self, *shape):
        self.shape = shape

    def make(self, rng, dtype):
        return rng.standard_normal(self.shape).astype(dtype), True


class P(R):
    def make(self, rng, dtype):
        return rng.uniform(0.5, 2.0, self.shape).astype(dtype), True


class F:
    def __init__(self, values):
        self.values = np.asarray(values, dtype=np.float64)

    def make(self, rng, dtype):
        return self.values.astype(dtype), True


class C:
    """A constant: floats take the dtype under test, ints and bools keep theirs."""

    def __init__(self, values):
        self.values = values

    def make(self, rng, dtype):
        if isinstance(self.values, R):
            return self.values.make(rng, dtype)[0], False
        array = np.asarray(self.values)
        return (array.astype(dtype) if array.dtype.kind == "f" else array), False


@dataclass
class Case:
    id: str
    fn: object  # fn(m, *tensors) -> one tensor
    inputs: tuple
    double: bool = False  # also compare double backward with torch
    gradcheck: bool = True  # gradients defined (no ties, no kinks at the inputs)
    float32: bool = True  # also run in float32
    torch_fn: object = None  # when torch needs different code

    def arrays(self, dtype):
        rng = np.random.default_rng(zlib.crc32(self.id.encode()))
        return [spec.make(rng, dtype) for spec in self.inputs]


def make_tensors(m, arrays):
    """Tensors of library `m` (autogradviz or torch) for the numpy arrays."""
    return [m.tensor(a, requires_grad=rg) for a, rg in arrays]


CASES: list[Case] = []


def case(id, fn, *inputs, **options):
    CASES.append(Case(id, fn, inputs, **options))


# -- pointwise, one input ---------------------------------------------------------

UNARY = {
    # name: the input (positive where the op needs it)
    "neg": R(3, 4),
    "abs": R(3, 4),
    "exp": R(3, 4),
    "log": P(3, 4),
    "sqrt": P(3, 4),
    "sin": R(3, 4),
    "cos": R(3, 4),
    "tanh": R(3, 4),
    "sigmoid": R(3, 4),
    "relu": R(3, 4),
}
for _name, _spec in UNARY.items():
    case(f"{_name}-function", lambda m, x, n=_name: getattr(m, n)(x), _spec, double=True)
    case(f"{_name}-method", lambda m, x, n=_name: getattr(x, n)(), _spec)
    case(f"{_name}-0d", lambda m, x, n=_name: getattr(m, n)(x), F(0.7), double=True)

case("neg-operator", lambda m, x: -x, R(2, 3))
case("sign-function", lambda m, x: m.sign(x) * x, R(3, 4), double=True)
case("sign-method", lambda m, x: x.sign(), R(3, 4))
case("abs-builtin", lambda m, x: abs(x), R(2, 3))
_LARGE = [-1000.0, -100.0, -30.0, -1.0, 0.0, 1.0, 30.0, 100.0, 1000.0]
case("sigmoid-large", lambda m, x: m.sigmoid(x), F(_LARGE), double=True)
case("tanh-large", lambda m, x: m.tanh(x), F(_LARGE), double=True)
case("exp-chain", lambda m, x: m.log(m.exp(x) + 1), R(5), double=True)

# at the kinks PyTorch picks: |x|' = 0 and relu' = 0 at 0, clamp' = 1 on the bounds, sqrt' = inf at 0
_KINKS = [-0.5, 0.0, 0.5, 1.0, -1.0]
case("abs-kink", lambda m, x: x.abs(), F(_KINKS), gradcheck=False)
case("relu-kink", lambda m, x: x.relu(), F(_KINKS), gradcheck=False)
case("leaky_relu", lambda m, x: m.nn.functional.leaky_relu(x, 0.1), R(3, 4), double=True)
case("leaky_relu-kink", lambda m, x: m.nn.functional.leaky_relu(x), F(_KINKS), gradcheck=False)
case("clamp-kink", lambda m, x: x.clamp(-0.5, 0.5), F(_KINKS), gradcheck=False)
case("clamp-min-above-max", lambda m, x: x.clamp(0.5, -0.5), F(_KINKS), gradcheck=False)
case("sqrt-kink", lambda m, x: x.abs().sqrt(), F(_KINKS), gradcheck=False)
case("clamp-both", lambda m, x: m.clamp(x, -0.5, 0.5), R(3, 4), double=True)
case("clamp-method", lambda m, x: x.clamp(-0.5, 0.5), R(3, 4))
case("clamp-min-only", lambda m, x: x.clamp(min=-0.2), R(3, 4), double=True)
case("clamp-max-only", lambda m, x: m.clamp(x, max=0.3), R(3, 4), double=True)
case("clip-function", lambda m, x: m.clip(x, -0.5, 0.5), R(3, 4))
case("clip-method", lambda m, x: x.clip(min=0.1), R(3, 4))

case("clone-function", lambda m, x: m.clone(x) * x, R(3, 4), double=True)
case("clone-method", lambda m, x: x.clone(), R(3, 4))
case("to-float64", lambda m, x: x.to(m.float64), R(3, 4))
case("to-float32", lambda m, x: x.to(m.float32) * 2, R(3, 4), gradcheck=False)
case("double", lambda m, x: x.double() * x.double(), R(3, 4))
case("float", lambda m, x: x.float(), R(3, 4), gradcheck=False)

# -- arithmetic ------------------------------------------------------------------------

BROADCAST_SHAPES = [
    ((3, 4), (3, 4)),
    ((3, 1), (4,)),
    ((4,), (3, 1)),
    ((2, 3, 4), (3, 1)),
    ((3, 1), (2, 3, 4)),
    ((), (2, 3)),
    ((2, 3), ()),
    ((1,), (2, 3)),
    ((2, 1, 4), (3, 1)),
]


def _shape_id(shapes):
    return "x".join(str(list(s)).replace(" ", "") for s in shapes)


BINARY = {
    # name: (function form, operator form or None, spec for the right operand)
    "add": (lambda m, a, b: m.add(a, b), lambda m, a, b: a + b, R),
    "sub": (lambda m, a, b: m.sub(a, b), lambda m, a, b: a - b, R),
    "mul": (lambda m, a, b: m.mul(a, b), lambda m, a, b: a * b, R),
    "div": (lambda m, a, b: m.div(a, b), lambda m, a, b: a / b, P),
    "pow": (lambda m, a, b: m.pow(a, b), lambda m, a, b: a**b, R),
    "maximum": (lambda m, a, b: m.maximum(a, b), None, R),
    "minimum": (lambda m, a, b: m.minimum(a, b), None, R),
}
for _name, (_fn, _operator, _right) in BINARY.items():
    _left = P if _name == "pow" else R
    _double = _name in ("mul", "div", "pow", "maximum")
    for _shapes in BROADCAST_SHAPES:
        _sid = _shape_id(_shapes)
        _a, _b = _left(*_shapes[0]), _right(*_shapes[1])
        case(f"{_name}-function-{_sid}", _fn, _a, _b, double=_double)
        if _operator is not None:
            case(f"{_name}-operator-{_sid}", _operator, _a, _b)
    case(f"{_name}-method", lambda m, a, b, n=_name: getattr(a, n)(b), _left(3, 4), _right(4))
    case(f"{_name}-const-right", _fn, _left(3, 4), C(_right(4)))
    case(f"{_name}-const-left", _fn, C(_left(3, 1)), _right(4))

# Python numbers on either side
case("add-scalar", lambda m, x: x + 2.5, R(3, 4))
case("radd-scalar", lambda m, x: 2 + x, R(3, 4))
case("sub-scalar", lambda m, x: x - 1.5, R(3, 4))
case("rsub-scalar", lambda m, x: 1.5 - x, R(3, 4))
case("mul-scalar", lambda m, x: x * 3, R(3, 4))
case("rmul-scalar", lambda m, x: -0.5 * x, R(3, 4))
case("mul-function-scalar", lambda m, x: m.mul(x, 2.0), R(3, 4))
case("div-scalar", lambda m, x: x / 4, R(3, 4))
case("rdiv-scalar", lambda m, x: 2.0 / x, P(3, 4), double=True)
case("div-function-scalar", lambda m, x: m.div(x, 0.5), R(3, 4))
case("iadd-out-of-place", lambda m, x: x + x * x, R(3, 4), double=True)

# tensor ** number, number ** tensor, tensor ** tensor
for _p, _spec in [(2, R), (3, R), (0.5, P), (-1, P), (-1.5, P), (0, R), (1, R), (2.0, R)]:
    # x ** 0: torch's gradient is a constant 0 that it cannot differentiate again
    case(f"pow-scalar-exponent-{_p}", lambda m, x, p=_p: x**p, _spec(3, 4), double=_p != 0)
case("pow-function-scalar-exponent", lambda m, x: m.pow(x, 3), R(3, 4))
case("pow-method-scalar-exponent", lambda m, x: x.pow(2), R(3, 4))
case("rpow-int", lambda m, x: 2**x, R(3, 4), double=True)
case("rpow-float", lambda m, x: 0.5**x, R(3, 4), double=True)
case("pow-function-scalar-base", lambda m, x: m.pow(3.0, x), R(3, 4))
case("pow-const-tensor-exponent", lambda m, x, e: x**e, P(3, 4), C(2.5))
case(
    "pow-zero-base",
    lambda m, x, e: x**e,
    F([0.0, 0.0, 1.0, 2.0]),
    F([2.0, 1.5, 3.0, 0.5]),
    gradcheck=False,  # 0 ** b is not differentiable in the base from the left
)

# matmul
MATMUL_SHAPES = [
    ((4,), (4,)),
    ((4,), (4, 3)),
    ((3, 4), (4,)),
    ((3, 4), (4, 5)),
    ((2, 3, 4), (2, 4, 5)),
    ((2, 3, 4), (4, 5)),
    ((3, 4), (2, 4, 5)),
    ((2, 3, 4), (4,)),
    ((4,), (2, 4, 5)),
    ((2, 1, 3, 4), (5, 4, 2)),
    ((2, 1, 3, 4), (1, 5, 4, 2)),
]
for _shapes in MATMUL_SHAPES:
    _sid = _shape_id(_shapes)
    _a, _b = R(*_shapes[0]), R(*_shapes[1])
    case(f"matmul-function-{_sid}", lambda m, a, b: m.matmul(a, b), _a, _b, double=True)
    case(f"matmul-operator-{_sid}", lambda m, a, b: a @ b, _a, _b)
case("matmul-method", lambda m, a, b: a.matmul(b), R(3, 4), R(4, 2))
case("matmul-const-right", lambda m, a, b: a @ b, R(2, 3, 4), C(R(4, 5)))
case("matmul-const-left", lambda m, a, b: a @ b, C(R(3, 4)), R(2, 4, 5))

# maximum / minimum ties: PyTorch gives each side half of the gradient
_TIE_A = [[1.0, 2.0, 3.0], [0.5, -1.0, 4.0]]
_TIE_B = [[1.0, 0.0, 3.0], [0.5, -1.0, 5.0]]
case("maximum-ties", lambda m, a, b: m.maximum(a, b), F(_TIE_A), F(_TIE_B), double=True, gradcheck=False)
case("minimum-ties", lambda m, a, b: m.minimum(a, b), F(_TIE_A), F(_TIE_B), double=True, gradcheck=False)
case(
    "maximum-ties-broadcast",
    lambda m, a, b: m.maximum(a, b),
    F([[1.0], [2.0], [3.0]]),
    F([2.0, 0.0, 3.0, 1.0]),
    gradcheck=False,
)
case("max-binary", lambda m, a, b: m.max(a, b), R(3, 4), R(4))
case("min-binary", lambda m, a, b: m.min(a, b), R(3, 1), R(3, 4))

# where
_MASK = C(np.array([[True, False, True, False], [False, False, True, True], [True, True, False, False]]))
case("where-function", lambda m, c, a, b: m.where(c, a, b), _MASK, R(3, 4), R(3, 4), double=True)
case("where-method", lambda m, c, a, b: a.where(c, b), _MASK, R(3, 4), R(3, 4))
case("where-scalar-else", lambda m, c, a: m.where(c, a, 0.0), _MASK, R(3, 4), double=True)
case("where-scalar-then", lambda m, c, b: m.where(c, 1.5, b), _MASK, R(3, 4))
case("where-computed-condition", lambda m, a, b: m.where(a > b, a, b * 2), R(3, 4), R(3, 4))
case(
    "where-broadcast",
    lambda m, c, a, b: m.where(c, a, b),
    C(np.array([[True], [False], [True]])),
    R(4),
    R(2, 3, 1),
    double=True,
)

# -- reductions ------------------------------------------------------------------------

DIMS = [
    ({}, "all"),
    ({"dim": 1}, "dim1"),
    ({"dim": -1}, "dim-1"),
    ({"dim": (0, 2)}, "dims02"),
    ({"dim": (0, -1)}, "dims0-1"),
    ({"dim": 1, "keepdim": True}, "dim1-keep"),
    ({"dim": (-1, 0), "keepdim": True}, "dims-10-keep"),
    ({"dim": -2, "keepdim": False}, "dim-2-nokeep"),
    ({"dim": ()}, "empty-dims"),  # PyTorch: all dims, like None
]
for _name in ("sum", "mean", "var", "std"):
    for _kw, _kid in DIMS:
        if _kid == "empty-dims" and _name in ("var", "std"):
            continue  # torch's own backward of var(dim=()) gives inf: no reference
        _double = _kid in ("all", "dims02", "dim1-keep")
        case(
            f"{_name}-function-{_kid}",
            lambda m, x, n=_name, kw=_kw: getattr(m, n)(x, **kw),
            R(2, 3, 4),
            double=_double,
        )
        case(f"{_name}-method-{_kid}", lambda m, x, n=_name, kw=_kw: getattr(x, n)(**kw), R(2, 3, 4))
    case(f"{_name}-positional-dim", lambda m, x, n=_name: getattr(x, n)(1), R(3, 4))
for _name in ("var", "std"):
    case(f"{_name}-unbiased-false", lambda m, x, n=_name: getattr(x, n)(unbiased=False), R(3, 4), double=True)
    case(f"{_name}-dim-unbiased-false", lambda m, x, n=_name: getattr(m, n)(x, 1, unbiased=False), R(3, 4))
    case(
        f"{_name}-unbiased-true-keepdim",
        lambda m, x, n=_name: getattr(x, n)(0, unbiased=True, keepdim=True),
        R(3, 4),
    )
    case(f"{_name}-correction-0", lambda m, x, n=_name: getattr(x, n)(correction=0), R(3, 4))
    case(
        f"{_name}-dim-correction-0",
        lambda m, x, n=_name: getattr(m, n)(x, dim=(0, 1), correction=0, keepdim=True),
        R(2, 3, 4),
        double=True,
    )
    case(f"{_name}-dim-correction-2", lambda m, x, n=_name: getattr(x, n)(dim=-1, correction=2), R(3, 5))
case("sum-0d", lambda m, x: x.sum(), F(1.5))
case("mean-0d", lambda m, x: m.mean(x), F(1.5))

# max / min of the whole tensor: ties share the gradient evenly
_TIES = [[1.0, 3.0, 3.0], [-2.0, 3.0, -2.0]]
for _name in ("max", "min"):
    case(f"{_name}-all-function", lambda m, x, n=_name: getattr(m, n)(x), R(3, 4), double=True)
    case(f"{_name}-all-method", lambda m, x, n=_name: getattr(x, n)(), R(3, 4))
    case(f"{_name}-all-ties", lambda m, x, n=_name: getattr(x, n)(), F(_TIES), gradcheck=False, double=True)
    # along a dim: (values, indices); the indices are compared in test_ops_vs_torch.py
    case(f"{_name}-dim-function", lambda m, x, n=_name: getattr(m, n)(x, 1)[0], R(2, 3, 4), double=True)
    case(
        f"{_name}-dim-method-keepdim",
        lambda m, x, n=_name: getattr(x, n)(dim=-1, keepdim=True).values,
        R(2, 3, 4),
    )
    case(f"{_name}-dim0", lambda m, x, n=_name: getattr(x, n)(0).values, R(3, 4))
    case(f"{_name}-dim-1d", lambda m, x, n=_name: getattr(m, n)(x, 0).values, R(5))

# ties along a dim: the gradient goes to the index returned (the first, on torch's CPU)
_ROW_TIES = [[1.0, 3.0, 3.0, 0.0], [2.0, 2.0, 2.0, 2.0], [5.0, 1.0, 5.0, 1.0]]
case("max-dim-ties", lambda m, x: x.max(1).values, F(_ROW_TIES), gradcheck=False)
case("min-dim-ties", lambda m, x: x.min(0).values, F(_ROW_TIES), gradcheck=False)

# softmax, log_softmax, logsumexp (large values: stability)
_BIG = [[1000.0, 1001.0, 1002.0, 990.0], [-1000.0, -1001.0, -1005.0, -990.0], [0.0, 1e4, -1e4, 50.0]]
for _name in ("softmax", "log_softmax"):
    for _dim in (0, 1, -1):
        case(
            f"{_name}-function-dim{_dim}",
            lambda m, x, n=_name, d=_dim: getattr(m, n)(x, d),
            R(2, 3, 4),
            double=_dim == 1,
        )
        case(f"{_name}-method-dim{_dim}", lambda m, x, n=_name, d=_dim: getattr(x, n)(dim=d), R(2, 3, 4))
    case(f"{_name}-large", lambda m, x, n=_name: getattr(m, n)(x, dim=-1), F(_BIG), double=True)
    case(f"{_name}-large-dim0", lambda m, x, n=_name: getattr(x, n)(0), F(_BIG))
for _kw, _kid in [
    ({"dim": 1}, "dim1"),
    ({"dim": -1, "keepdim": True}, "dim-1-keep"),
    ({"dim": (0, 2)}, "dims02"),
    ({"dim": (0, -1), "keepdim": True}, "dims0-1-keep"),
]:
    case(f"logsumexp-function-{_kid}", lambda m, x, kw=_kw: m.logsumexp(x, **kw), R(2, 3, 4), double=True)
    case(f"logsumexp-method-{_kid}", lambda m, x, kw=_kw: x.logsumexp(**kw), R(2, 3, 4))
case("logsumexp-large", lambda m, x: m.logsumexp(x, 1), F(_BIG), double=True)
case("logsumexp-large-dim0", lambda m, x: x.logsumexp(0, keepdim=True), F(_BIG))

# -- shapes ------------------------------------------------------------------------------

case("reshape-function", lambda m, x: m.reshape(x, (4, 6)), R(2, 3, 4), double=True)
case("reshape-method-minus1", lambda m, x: x.reshape(6, -1), R(2, 3, 4))
case("reshape-method-tuple", lambda m, x: x.reshape((-1, 2, 2)), R(2, 3, 4))
case("reshape-to-0d", lambda m, x: x.reshape(()), R(1, 1))
case("view-flat", lambda m, x: x.view(-1), R(2, 3, 4))
case("view-minus1", lambda m, x: x.view(4, -1) * x.view(4, -1), R(2, 3, 4), double=True)
case("view-as", lambda m, x, y: x.view_as(y), R(2, 6), C(R(3, 4)))
case("reshape-as", lambda m, x, y: x.reshape_as(y), R(2, 6), C(R(4, 3)))
case("flatten-function", lambda m, x: m.flatten(x), R(2, 3, 4))
case("flatten-start", lambda m, x: x.flatten(1), R(2, 3, 4))
case("flatten-start-end", lambda m, x: m.flatten(x, 0, 1), R(2, 3, 4, 2))
case("flatten-negative", lambda m, x: x.flatten(-3, -2), R(2, 3, 4, 2))
case("transpose-function", lambda m, x: m.transpose(x, 0, 2), R(2, 3, 4), double=True)
case("transpose-method-negative", lambda m, x: x.transpose(-1, -2), R(2, 3, 4))
case("swapaxes", lambda m, x: m.swapaxes(x, 0, 1), R(2, 3, 4))
case("t-function", lambda m, x: m.t(x), R(3, 4))
case("t-method", lambda m, x: x.t(), R(3, 4))
case("T", lambda m, x: x.T * 2, R(3, 4), double=True)
case("mT", lambda m, x: x.mT, R(2, 3, 4))
case("permute-function", lambda m, x: m.permute(x, (2, 0, 1)), R(2, 3, 4), double=True)
case("permute-method", lambda m, x: x.permute(1, 2, 0), R(2, 3, 4))
case("permute-negative", lambda m, x: x.permute(-1, 0, 1), R(2, 3, 4))
case("squeeze-all-function", lambda m, x: m.squeeze(x), R(1, 3, 1, 4))
case("squeeze-all-method", lambda m, x: x.squeeze(), R(1, 3, 1, 4))
case("squeeze-dim", lambda m, x: x.squeeze(2), R(1, 3, 1, 4))
case("squeeze-negative-dim", lambda m, x: m.squeeze(x, -2), R(1, 3, 1, 4))
case("squeeze-non-one-dim", lambda m, x: x.squeeze(1), R(1, 3, 1, 4))
case("squeeze-dims-tuple", lambda m, x: x.squeeze((0, -2)), R(1, 3, 1, 4))
case("unsqueeze-function", lambda m, x: m.unsqueeze(x, 0), R(3, 4))
case("unsqueeze-method", lambda m, x: x.unsqueeze(1), R(3, 4))
case("unsqueeze-minus1", lambda m, x: x.unsqueeze(-1), R(3, 4))
case("unsqueeze-minus2", lambda m, x: m.unsqueeze(x, -2), R(3, 4))
case("expand", lambda m, x: x.expand(3, 4), R(3, 1), double=True)
case("expand-minus1", lambda m, x: x.expand(-1, 4), R(3, 1))
case("expand-new-leading", lambda m, x: x.expand(2, 3, 4), R(3, 1), double=True)
case("expand-new-leading-minus1", lambda m, x: x.expand(2, -1, 5), R(3, 1))
case("expand-tuple", lambda m, x: x.expand((2, 4, 3)), R(3))
case("expand-function", lambda m, x: m.broadcast_to(x, (2, 3, 4)), R(1, 4))
case("expand-as", lambda m, x, y: x.expand_as(y) * y, R(4), C(R(3, 4)))

# indexing
_IDX: list = [
    ("int", lambda m, x: x[1]),
    ("negative-int", lambda m, x: x[-1]),
    ("two-ints", lambda m, x: x[1, 2]),
    ("slice", lambda m, x: x[1:3]),
    ("slice-step", lambda m, x: x[::2]),
    ("slices-steps", lambda m, x: x[1::2, ::3]),
    ("none", lambda m, x: x[None]),
    ("none-mixed", lambda m, x: x[:, None, 2]),
    ("ellipsis", lambda m, x: x[..., 1]),
    ("list", lambda m, x: x[[0, 3, 1]]),
    ("list-repeated", lambda m, x: x[[0, 2, 0, 0]]),
    ("tensor-repeated", lambda m, x: x[m.tensor([3, 3, 1])]),
    ("tensor-2d-index", lambda m, x: x[m.tensor([[0, 1], [1, 1]])]),
    ("list-second-dim", lambda m, x: x[:, [1, 1, 4]]),
    ("two-lists", lambda m, x: x[[0, 1, 1], [2, 2, 2]]),
    ("slice-and-list", lambda m, x: x[1:, [0, 0]]),
    ("bool-mask-computed", lambda m, x: x[x > 0]),
    ("bool-mask-rows", lambda m, x: x[m.tensor([True, False, True, True])]),
    ("bool-mask-cols", lambda m, x: x[:, m.tensor([False, True, True, False, True])]),
    ("negative-list", lambda m, x: x[[-1, 0, -1]]),
]
for _iid, _fn in _IDX:
    case(
        f"index-{_iid}",
        _fn,
        R(4, 5),
        double=_iid in ("list-repeated", "slices-steps", "bool-mask-computed", "two-ints"),
    )
case("index-3d-ellipsis-none", lambda m, x: x[0, ..., None], R(2, 3, 4))
case("index-3d-separated-lists", lambda m, x: x[[0, 1], :, [1, 2]], R(2, 3, 4))
case("index-3d-mixed", lambda m, x: x[1, ::2, [3, 0, 3]], R(2, 3, 4), double=True)
# an int next to a list or tensor: PyTorch applies the int first (numpy would move axes)
case("index-int-slice-list", lambda m, x: x[1, :, [0, 2]], R(2, 3, 4), double=True)
case("index-int-list-int", lambda m, x: x[1, [0, 2, 2], 1], R(2, 3, 4))
case("index-0d-tensor-slice-list", lambda m, x: x[m.tensor(1), :, [3, 0]], R(2, 3, 4))
case("index-int-none-list", lambda m, x: x[1, None, [0, 2]], R(2, 3, 4))
case("index-none-int-slice-list", lambda m, x: x[None, 0, :, [1, 1]], R(2, 3, 4))
case("index-int-ellipsis-list", lambda m, x: x[0, ..., [1, 1, 3]], R(2, 3, 4))
case("index-int-slice-mask", lambda m, x: x[1, :, m.tensor([True, False, True, True])], R(2, 3, 4))
case("index-const-bool-mask", lambda m, x, mask: x[mask], R(3, 4), _MASK)
case("index-twice", lambda m, x: x[1] * x[1] + x[[1, 1]].sum(0), R(3, 4), double=True)
case("index-via-loop", lambda m, x: m.stack([row * 2 for row in x]), R(3, 2))

# cat, stack, add_n
case("cat-dim0", lambda m, a, b: m.cat([a, b]), R(2, 3), R(4, 3), double=True)
case("cat-dim1-three", lambda m, a, b, c: m.cat([a, b, c], dim=1), R(2, 3), R(2, 1), R(2, 2), double=True)
case("cat-dim-minus1-tuple", lambda m, a, b: m.cat((a, b), -1), R(2, 2, 3), R(2, 2, 1))
case("cat-same-tensor", lambda m, a: m.cat([a, a * 2, a]), R(2, 3), double=True)
case("cat-with-const", lambda m, a, b: m.concat([a, b], 0), R(2, 3), C(R(1, 3)))
case("stack-dim0", lambda m, a, b: m.stack([a, b]), R(2, 3), R(2, 3), double=True)
case("stack-dim1-three", lambda m, a, b, c: m.stack((a, b, c), dim=1), R(2, 3), R(2, 3), R(2, 3), double=True)
case("stack-dim-minus1", lambda m, a, b: m.stack([a, b], -1), R(2, 3), R(2, 3))

# %, fmod: b's gradient is minus the rounded quotient (inputs away from the jumps)
case("remainder", lambda m, a, b: a % b, R(3, 4), F([[2.1, -1.3, 0.7, -3.3]]), double=True)
case("remainder-number", lambda m, a: m.remainder(a, -1.5), R(3, 4))
case("fmod", lambda m, a, b: m.fmod(a, b), R(3, 4), F([[2.1, -1.3, 0.7, -3.3]]), double=True)
case("fmod-number-method", lambda m, a: a.fmod(1.5), R(3, 4))

case("flip", lambda m, x: m.flip(x, [0, 2]) * m.arange(24.0).reshape(2, 3, 4), R(2, 3, 4), double=True)
case("flip-method", lambda m, x: x.flip(-1).cumsum(0), R(3, 4))

# narrow, select, split, chunk, unbind: views of parts; each piece weighted differently
case("narrow-dim1", lambda m, x: m.narrow(x, 1, 1, 2) * 3, R(3, 4), double=True)
case("narrow-negative-start", lambda m, x: x.narrow(0, -2, 2).exp(), R(3, 4))
case("select-dim1", lambda m, x: m.select(x, 1, -1) ** 2, R(3, 4), double=True)
case("select-last-dim-of-vector", lambda m, x: x.select(0, 2) * x, R(4))
case(
    "split-size",
    lambda m, x: m.cat([p * (i + 1) for i, p in enumerate(m.split(x, 2, 1))], 1),
    R(3, 5),
    double=True,
)
case(
    "split-sizes",
    lambda m, x: m.cat([p.exp() if i else p for i, p in enumerate(x.split([1, 3], 0))]),
    R(4, 2),
)
case(
    "chunk",
    lambda m, x: m.cat([p * (i + 1) for i, p in enumerate(m.chunk(x, 3, -1))], -1),
    R(2, 7),
    double=True,
)
case(
    "unbind", lambda m, x: m.stack([p * (i + 1) for i, p in enumerate(m.unbind(x, 1))]), R(3, 4), double=True
)
case("stack-same-tensor", lambda m, a: m.stack([a, a]), R(3))
case("stack-0d", lambda m, a, b: m.stack([a, b]), F(1.0), F(2.0))


def _add_n_torch(m, a, b, c):
    return a + b + c


case("add_n", lambda m, a, b, c: m.add_n([a, b, c]), R(2, 3), R(2, 3), R(2, 3), torch_fn=_add_n_torch)
case("add_n-single", lambda m, a: m.add_n([a]) * a, R(2, 3), torch_fn=lambda m, a: a * a)


# -- in-place ops on non-leaf tensors (the graph is rebased onto them) ----------------------


def _inplace(op):
    def fn(m, x, v):
        y = x * 2
        op(y, v)
        return y

    return fn


def _setitem(index):
    def op(y, v):
        y[index] = v

    return op


def _iadd(y, v):
    y += v


def _imul(y, v):
    y *= v


_INPLACE = [
    ("add_", lambda y, v: y.add_(v), R(4)),
    ("add_-scalar", lambda y, v: y.add_(2.5), R(4)),
    ("iadd", _iadd, R(3, 4)),
    ("sub_", lambda y, v: y.sub_(v), R(3, 1)),
    ("mul_", lambda y, v: y.mul_(v), R(4)),
    ("imul", _imul, R(3, 4)),
    ("mul_-scalar", lambda y, v: y.mul_(-3), R(4)),
    ("div_", lambda y, v: y.div_(v), P(3, 4)),
    ("div_-scalar", lambda y, v: y.div_(4.0), R(4)),
    ("pow_-scalar", lambda y, v: y.pow_(3), R(4)),
    ("clamp_", lambda y, v: y.clamp_(-0.5, 0.5), R(4)),
    ("clamp_-min", lambda y, v: y.clamp_(min=0.1), R(4)),
    ("zero_", lambda y, v: y.zero_(), R(4)),
    ("fill_", lambda y, v: y.fill_(1.5), R(4)),
    ("copy_", lambda y, v: y.copy_(v), R(4)),
    ("copy_-same-shape", lambda y, v: y.copy_(v), R(3, 4)),
    ("setitem-row", _setitem(1), R(4)),
    ("setitem-scalar", _setitem((slice(None), 0)), C(0.5)),
    ("setitem-list", _setitem([0, 2]), R(2, 4)),
    ("setitem-broadcast", _setitem((slice(0, 2), slice(1, 3))), R(2, 1)),
]
for _iid, _op, _v in _INPLACE:
    case(f"inplace-{_iid}", _inplace(_op), R(3, 4), _v)


def _chain(m, x, v):
    y = x.clone()
    y.mul_(x)
    y.add_(v)
    y[0] = v * 3
    y.clamp_(max=1.0)
    return y * x


def _into_zeros(m, x, v):
    y = m.zeros_like(x)
    y[1:] = v
    return y * x


def _pow_tensor(m, x, v):
    y = x * x + 0.5  # a positive base
    y.pow_(v)
    return y


def _mask_fill(m, x, v):
    y = x + 0
    y[y > 0] = 0.0
    return y


def _setitem_mixed(m, x, v):
    y = x * 1
    y[1, :, [0, 2]] = v  # PyTorch's layout: v has the shape of y[1, :, [0, 2]], (3, 2)
    return y


case("inplace-chain", _chain, R(3, 4), R(4))
case("inplace-setitem-int-and-list", _setitem_mixed, R(2, 3, 4), R(3, 2))
case("inplace-setitem-into-constant", _into_zeros, R(3, 4), R(4))
case("inplace-setitem-bool-mask", _mask_fill, R(3, 4), C(0.0))
case("inplace-pow_-tensor", _pow_tensor, R(3, 4), R(4))


# -- more math (issue 12): log10, sinh, tan, asin, atan2, floor, ... ----------------------------


class U(R):
    """Uniform on (-0.9, 0.9): inside the domain of asin and acos, away from tan's poles."""

    def make(self, rng, dtype):
        return rng.uniform(-0.9, 0.9, self.shape).astype(dtype), True


MORE_UNARY = {
    "log10": P(3, 4),
    "log2": P(3, 4),
    "log1p": P(3, 4),
    "expm1": R(3, 4),
    "exp2": R(3, 4),
    "sinh": R(3, 4),
    "cosh": R(3, 4),
    "tan": U(3, 4),
    "asin": U(3, 4),
    "acos": U(3, 4),
    "atan": R(3, 4),
    "square": R(3, 4),
    "rsqrt": P(3, 4),
    "reciprocal": P(3, 4),
    "erf": R(3, 4),
}
for _name, _spec in MORE_UNARY.items():
    case(f"{_name}-function", lambda m, x, n=_name: getattr(m, n)(x), _spec, double=True)
    case(f"{_name}-method", lambda m, x, n=_name: getattr(x, n)(), _spec)
    case(f"{_name}-0d", lambda m, x, n=_name: getattr(m, n)(x), F(0.7), double=True)
case("sinh-cosh-chain", lambda m, x: m.cosh(m.sinh(x)) * m.log10(x * x + 1), R(5), double=True)
# floor, ceil, round, trunc: gradient 0 (times x, so that x's gradient is not only zeros)
for _name in ("floor", "ceil", "round", "trunc"):
    case(f"{_name}-function", lambda m, x, n=_name: getattr(m, n)(x * 3) + x, R(3, 4))
    case(f"{_name}-method", lambda m, x, n=_name: getattr(x * 3, n)() * x, R(3, 4))
case("round-decimals", lambda m, x: m.round(x, decimals=2) * x, R(3, 4))
for _shapes in [((3, 4), (3, 4)), ((3, 1), (4,)), ((2, 3, 4), (4,))]:
    _sid = _shape_id(_shapes)
    case(f"atan2-function-{_sid}", lambda m, a, b: m.atan2(a, b), R(*_shapes[0]), R(*_shapes[1]), double=True)
case("atan2-method", lambda m, a, b: a.atan2(b), R(3, 4), R(3, 4))
case("arctan2-const-right", lambda m, a, b: m.arctan2(a, b), R(3, 4), C(R(4)))

# -- matrix products (issue 12): mm, mv, dot, bmm, outer, einsum ---------------------------------

case("mm-function", lambda m, a, b: m.mm(a, b), R(3, 4), R(4, 5), double=True)
case("mm-method", lambda m, a, b: a.mm(b), R(3, 4), R(4, 2))
case("mm-const-right", lambda m, a, b: m.mm(a, b), R(3, 4), C(R(4, 2)))
case("mv-function", lambda m, a, b: m.mv(a, b), R(3, 4), R(4), double=True)
case("mv-method", lambda m, a, b: a.mv(b), R(3, 4), R(4))
case("dot-function", lambda m, a, b: m.dot(a, b), R(4), R(4), double=True)
case("dot-method", lambda m, a, b: a.dot(b), R(5), R(5))
case("dot-same-tensor", lambda m, a: m.dot(a, a), R(5), double=True)
case("bmm-function", lambda m, a, b: m.bmm(a, b), R(2, 3, 4), R(2, 4, 5), double=True)
case("bmm-method", lambda m, a, b: a.bmm(b), R(3, 2, 4), R(3, 4, 1))
case("outer-function", lambda m, a, b: m.outer(a, b), R(3), R(4), double=True)
case("outer-method", lambda m, a, b: a.outer(b), R(3), R(2))
case("ger", lambda m, a, b: m.ger(a, b) * 2, R(3), R(4))

_EINSUM = [
    ("matmul", "ij,jk->ik", (R(3, 4), R(4, 5))),
    ("implicit", "ij,jk", (R(3, 4), R(4, 5))),
    ("spaces", "i j , j k -> k i", (R(3, 4), R(4, 5))),
    ("transpose", "ij->ji", (R(3, 4),)),
    ("sum-all", "ij->", (R(3, 4),)),
    ("sum-rows", "ij->i", (R(3, 4),)),  # j is summed, and only this operand has it
    ("trace", "ii", (R(4, 4),)),
    ("diagonal", "ii->i", (R(4, 4),)),
    ("batch-diagonal", "bii->bi", (R(2, 3, 3),)),
    ("outer", "i,j->ij", (R(3), R(4))),
    ("dot", "i,i->", (R(5), R(5))),
    ("hadamard-broadcast", "ij,ij->ij", (R(2, 3), R(1, 3))),
    ("bilinear", "i,ij,j->", (R(3), R(3, 4), R(4))),
    ("chain", "ij,jk,kl->il", (R(2, 3), R(3, 4), R(4, 2))),
    ("batch", "bij,bjk->bik", (R(2, 3, 4), R(2, 4, 5))),
    ("ellipsis", "...ij,...jk->...ik", (R(2, 3, 4), R(2, 4, 5))),
    ("ellipsis-broadcast", "...ij,jk->...ik", (R(2, 2, 3, 4), R(4, 5))),
    ("ellipsis-implicit", "...ij,...jk", (R(2, 3, 4), R(4, 5))),
    ("attention", "bqd,bkd->bqk", (R(2, 3, 4), R(2, 5, 4))),
]
for _eid, _eq, _specs in _EINSUM:
    case(f"einsum-{_eid}", lambda m, *xs, eq=_eq: m.einsum(eq, *xs), *_specs, double=True)
case("einsum-list", lambda m, a, b: m.einsum("ij,jk->ik", [a, b]), R(3, 4), R(4, 2))
case("einsum-same-tensor", lambda m, a: m.einsum("ij,kj->ik", a, a), R(3, 4), double=True)
case("einsum-const", lambda m, a, b: m.einsum("ij,j->i", a, b), R(3, 4), C(R(4)))

# -- norms (issue 12) ------------------------------------------------------------------------------

_INF = float("inf")
_NORMS = [
    ("default", lambda m, x: x.norm()),
    ("p1", lambda m, x: x.norm(1)),
    ("p3", lambda m, x: x.norm(p=3)),
    ("p-half", lambda m, x: x.norm(0.5)),
    ("p1.5", lambda m, x: x.norm(1.5)),
    ("inf", lambda m, x: x.norm(_INF)),
    ("-inf", lambda m, x: x.norm(-_INF)),
    ("p-1", lambda m, x: x.norm(-1)),
    ("fro", lambda m, x: x.norm("fro")),
    ("dim1", lambda m, x: x.norm(dim=1)),
    ("dim-keepdim", lambda m, x: x.norm(2, dim=-1, keepdim=True)),
    ("dims", lambda m, x: m.norm(x, dim=(0, 2))),
    ("p1-dim", lambda m, x: m.norm(x, 1, dim=0)),
    ("inf-dim", lambda m, x: x.norm(_INF, dim=2)),
    ("fro-dims", lambda m, x: x.norm("fro", dim=(1, 2), keepdim=True)),
    ("linalg-norm", lambda m, x: m.linalg.norm(x)),
    ("linalg-norm-dim", lambda m, x: m.linalg.norm(x, dim=1)),
    ("linalg-norm-ord-dim", lambda m, x: m.linalg.norm(x, 3, dim=-1)),
    ("vector_norm", lambda m, x: m.linalg.vector_norm(x)),
    ("vector_norm-ord1-dims", lambda m, x: m.linalg.vector_norm(x, ord=1, dim=(0, 1))),
    ("vector_norm-inf-keepdim", lambda m, x: m.linalg.vector_norm(x, _INF, dim=0, keepdim=True)),
    ("matrix_norm-fro", lambda m, x: m.linalg.matrix_norm(x)),
    ("matrix_norm-1", lambda m, x: m.linalg.matrix_norm(x, 1)),
    ("matrix_norm-inf", lambda m, x: m.linalg.matrix_norm(x, _INF)),
    ("matrix_norm--1-keepdim", lambda m, x: m.linalg.matrix_norm(x, -1, keepdim=True)),
    ("matrix_norm-dims", lambda m, x: m.linalg.matrix_norm(x, "fro", dim=(0, 2))),
]
for _nid, _fn in _NORMS:
    case(
        f"norm-{_nid}",
        _fn,
        R(2, 3, 4),
        double=_nid in ("default", "p3", "p1", "dim1", "inf", "matrix_norm-1"),
    )
case("norm-0", lambda m, x: x.norm(0) * x, R(3, 4))  # counts nonzeros: gradient 0
case("norm-1d", lambda m, x: m.norm(x), R(5), double=True)
case("norm-0d", lambda m, x: m.linalg.vector_norm(x), F(-1.5))
# norms at 0 (PyTorch's subgradient, 0, not nan) are in test_linalg_and_math.py: a kink, no gradcheck
case("matrix_norm-nuc", lambda m, x: m.linalg.matrix_norm(x, "nuc"), R(3, 4))
case("matrix_norm-2", lambda m, x: m.linalg.matrix_norm(x, 2), R(2, 3, 4))
case("matrix_norm--2", lambda m, x: m.linalg.matrix_norm(x, -2), R(4, 3))
case("norm-nuc", lambda m, x: x.norm("nuc"), R(3, 3))
case("linalg-norm-nuc", lambda m, x: m.linalg.norm(x, "nuc"), R(4, 3))
case("svdvals", lambda m, x: m.linalg.svdvals(x), R(2, 4, 3))

# -- in-place math (issue 12): the node after x.sin_() is sin's ------------------------------------


def _inplace_math(name, scale=1.0):
    def fn(m, x):
        y = x * scale
        getattr(y, name)()
        return y

    return fn


_INPLACE_MATH = {
    # name: the input (positive where the op needs it)
    "abs_": R,
    "neg_": R,
    "exp_": R,
    "exp2_": R,
    "expm1_": R,
    "log_": P,
    "log2_": P,
    "log10_": P,
    "log1p_": P,
    "sqrt_": P,
    "rsqrt_": P,
    "square_": R,
    "reciprocal_": P,
    "sin_": R,
    "cos_": R,
    "tan_": U,
    "sinh_": R,
    "cosh_": R,
    "tanh_": R,
    "asin_": U,
    "acos_": U,
    "atan_": R,
    "sigmoid_": R,
    "relu_": R,
    "floor_": R,
    "ceil_": R,
    "round_": R,
    "trunc_": R,
}
for _name, _spec in _INPLACE_MATH.items():
    _double = _name in ("exp_", "sin_", "sigmoid_", "tanh_", "sqrt_", "relu_")
    case(f"inplace-{_name}", _inplace_math(_name), _spec(3, 4), double=_double)
case("inplace-clamp_min_", lambda m, x: (y := x * 1).clamp_min_(0.2) * y, R(3, 4))
case("inplace-clamp_max_", lambda m, x: (y := x * 1).clamp_max_(-0.1) * y, R(3, 4))
case("inplace-math-chain", lambda m, x: (x * 2).sin_().mul_(x).tanh_() * x, R(3, 4), double=True)


def _inplace_on_view(m, x):
    y = x * 1
    y[1].sin_()  # a view: the base gets a CopySlices node
    y[:, 0].exp_()  # exp saves its output, in y: changing y again would raise at backward
    return y * y


case("inplace-math-view", _inplace_on_view, R(3, 4), double=True)
case("inplace-relu_-function", lambda m, x: m.relu_(x * 1) * x, R(3, 4))
case("inplace-sigmoid_-function", lambda m, x: m.sigmoid_(x * 1), R(3, 4))

# -- meshgrid (issue 12) ----------------------------------------------------------------------------


def _grids(indexing):
    def fn(m, *xs):
        grids = m.meshgrid(*xs, indexing=indexing)
        out = grids[0]
        for k, grid in enumerate(grids[1:], start=2):
            out = out * grid + k * grid
        return out

    return fn


case("meshgrid-ij", _grids("ij"), R(3), R(4), double=True)
case("meshgrid-xy", _grids("xy"), R(3), R(4), double=True)
case("meshgrid-three", _grids("ij"), R(2), R(3), R(4))
case("meshgrid-xy-three", _grids("xy"), R(2), R(3), R(4))
case("meshgrid-0d", _grids("ij"), F(1.5), R(3))
case("meshgrid-one", _grids("xy"), R(3))
case("meshgrid-list", lambda m, a, b: m.meshgrid([a, b], indexing="ij")[1] * 2, R(3), R(2))

# -- prod and cumsum (issue 12): the product of the others, exact with zeros -----------------------

case("prod-all", lambda m, x: m.prod(x), R(2, 3), double=True)
case("prod-method", lambda m, x: x.prod(), R(4))
case("prod-dim", lambda m, x: x.prod(1), R(2, 3, 4), double=True)
case("prod-dim-keepdim", lambda m, x: m.prod(x, -1, keepdim=True), R(2, 3))
case("prod-dim0", lambda m, x: x.prod(dim=0), R(3, 2))
case("prod-0d", lambda m, x: x.prod(), F(1.5))
case("prod-one-zero", lambda m, x: x.prod(), F([2.0, 0.0, 3.0, -1.0]), double=True)
case("prod-two-zeros", lambda m, x: x.prod(), F([2.0, 0.0, 3.0, 0.0]), double=True)
case(
    "prod-zeros-dim",
    lambda m, x: x.prod(1),
    F([[1.0, 0.0, 3.0], [0.0, 0.0, 2.0], [1.5, 2.0, -1.0]]),
    double=True,
)
case("cumsum-function", lambda m, x: m.cumsum(x, 1), R(2, 3, 4), double=True)
case("cumsum-method", lambda m, x: x.cumsum(0), R(3, 2))
case("cumsum-negative-dim", lambda m, x: x.cumsum(dim=-1) * x, R(2, 5), double=True)
case("cumsum-0d", lambda m, x: x.cumsum(0), F(1.5))
case("cumsum-dtype", lambda m, x: x.cumsum(0, dtype=m.float64), R(4))

# -- inv, det, solve (issue 12) ----------------------------------------------------------------------


class W(R):
    """A well-conditioned square matrix (or batch): the identity times 3 plus noise."""

    def make(self, rng, dtype):
        return (3 * np.eye(self.shape[-1]) + rng.standard_normal(self.shape)).astype(dtype), True


case("inv", lambda m, a: m.linalg.inv(a), W(3, 3), double=True)
case("inv-batch", lambda m, a: m.linalg.inv(a), W(2, 3, 3))
case("inverse-method", lambda m, a: a.inverse() @ a.inverse(), W(3, 3))
case("det", lambda m, a: m.linalg.det(a), W(3, 3), double=True)
case("det-batch", lambda m, a: m.det(a), W(2, 3, 3))
case("det-method", lambda m, a: a.det() * a.sum(), W(2, 2))
case("solve-vector", lambda m, a, b: m.linalg.solve(a, b), W(3, 3), R(3), double=True)
case("solve-matrix", lambda m, a, b: m.linalg.solve(a, b), W(3, 3), R(3, 2), double=True)
case("solve-batch", lambda m, a, b: m.linalg.solve(a, b), W(2, 3, 3), R(2, 3, 4))
case("solve-batch-vector", lambda m, a, b: m.linalg.solve(a, b), W(2, 3, 3), R(2, 3))
case("solve-const-A", lambda m, a, b: m.linalg.solve(a, b), C(W(3, 3)), R(3, 2))
