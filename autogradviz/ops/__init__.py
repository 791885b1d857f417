"""The differentiable ops: the formula sheet. Each forward function sits next
to the backward node that differentiates it, whose `vjp` returns "upstream
gradient × local derivative" for each input; every forward ends with
`record()` (core/record.py). docs/formula_sheet.md lists them all.

Reading order:

1. `arithmetic.py`: + - * / ** @: the first formulas to read;
2. `broadcast.py`: `sum_to`, the one helper that undoes broadcasting;
3. `pointwise.py`: exp, log, sin, tanh, sigmoid, relu, clamp, where, ...;
4. `reductions.py`: sum, mean, var, max, softmax, log_softmax, ...;
5. `shape.py`: reshape, transpose, expand, indexing, cat, stack;
6. `inplace.py`: add_, mul_, x[i] = v, and how they rebase a tensor's history;
7. `linalg.py`: mm, mv, dot, bmm, outer, einsum, and the norms;
8. `compare.py`: comparisons, whose results carry no gradient;
9. `numpy_math.py` and `tensor_math.py`: the two array namespaces (`xp`) a
   `vjp` computes with: numpy for a plain backward, autogradviz's own ops
   when create_graph=True records the backward pass too;
10. `_operands.py`: turning arguments into arrays, with PyTorch's type promotion.
"""

from .arithmetic import add, div, matmul, mul, neg, pow, rsub, sub
from .compare import (
    all,
    allclose,
    any,
    argmax,
    argmin,
    bitwise_and,
    bitwise_not,
    bitwise_or,
    bitwise_xor,
    eq,
    equal,
    ge,
    gt,
    isnan,
    le,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    lt,
    ne,
)
from .inplace import (
    abs_,
    acos_,
    add_,
    asin_,
    atan_,
    ceil_,
    clamp_,
    clamp_max_,
    clamp_min_,
    copy_,
    cos_,
    cosh_,
    div_,
    exp2_,
    exp_,
    expm1_,
    fill_,
    floor_,
    log1p_,
    log2_,
    log10_,
    log_,
    mul_,
    neg_,
    normal_,
    pow_,
    reciprocal_,
    relu_,
    round_,
    rsqrt_,
    setitem,
    sigmoid_,
    sin_,
    sinh_,
    sqrt_,
    square_,
    sub_,
    tan_,
    tanh_,
    trunc_,
    uniform_,
    zero_,
)
from .linalg import bmm, cumsum, det, dot, einsum, ger, inverse, mm, mv, norm, outer, prod
from .pointwise import (
    abs,
    acos,
    arctan2,
    asin,
    atan,
    atan2,
    ceil,
    clamp,
    clip,
    clone,
    cos,
    cosh,
    erf,
    exp,
    exp2,
    expm1,
    floor,
    leaky_relu,
    log,
    log1p,
    log2,
    log10,
    maximum,
    minimum,
    reciprocal,
    relu,
    round,
    rsqrt,
    sigmoid,
    sign,
    sin,
    sinh,
    sqrt,
    square,
    tan,
    tanh,
    to,
    trunc,
    where,
)
from .reductions import log_softmax, logsumexp, max, mean, min, softmax, std, sum, var
from .shape import (
    add_n,
    broadcast_to,
    cat,
    concat,
    expand,
    flatten,
    getitem,
    meshgrid,
    permute,
    reshape,
    squeeze,
    stack,
    swapaxes,
    t,
    transpose,
    unsqueeze,
    view,
)

# the op functions, not the modules that hold them: `from autogradviz.ops import *`
# must not bring `shape` or `pointwise` into agv's namespace
__all__ = [name for name, value in dict(globals()).items() if not name.startswith("_") and callable(value)]
