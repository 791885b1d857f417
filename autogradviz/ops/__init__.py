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
8. `compare.py`: comparisons, whose results carry no gradient; `counting.py`:
   histogram, whose results have no derivative;
9. `numpy_math.py` and `tensor_math.py`: the two array namespaces (`xp`) a
   `vjp` computes with: numpy for a plain backward, autogradviz's own ops
   when create_graph=True records the backward pass too;
10. `_operands.py`: turning arguments into arrays, with PyTorch's type promotion.

Adding an op, say `agv.cbrt`, touches these places. Only two of them are checked
(tests/test_formula_sheet.py fails while the sheet is stale, tests/test_rules_match_vjp.py
while an elementwise node has no case), so this list reminds of the others:

1. The node class, in the file of its kind, just above its function: `op` (the op as
   a learner writes it), `rules` (one formula per input, in the notation that
   tests/test_rules_match_vjp.py reads) and `vjp`; `elementwise = True` or
   `broadcasts = True` where they hold; `torch_name` only where PyTorch records a
   node of another name. The formula sheet, the stepper and the PyTorch bridge's
   rules all read these attributes, so they are written nowhere else.
2. The function, ending in `record()`. If `vjp` calls an `xp` function that does not
   exist yet, add it under the same name to both numpy_math.py and tensor_math.py:
   the second is what create_graph=True differentiates again.
3. Its import in this file: `__all__`, and so `agv.cbrt`, follow from the import.
4. The method `x.cbrt()`: its name in `_SAME_NAME` in methods.py, or an entry in
   `_METHODS` there when the method is called differently from the function.
5. docs/formula_sheet.md: regenerate it with `.venv/bin/python scripts/formula_sheet.py`
   (a node in a new file also needs that file in the script's FILES, in reading order).
6. Tests: a case in tests/_op_cases.py, which tests/test_ops_vs_torch.py (values,
   gradients, and double backward with `double=True`) and tests/test_ops_gradcheck.py
   both walk; for an elementwise node, a case in CASES of tests/test_rules_match_vjp.py,
   which evaluates the rules' text and compares it with what `vjp` returns.
7. Only where it applies:
   - a `torch_name`: a claim in CLAIMS of tests/test_formula_sheet.py, which checks it
     against PyTorch;
   - PyTorch's names, in the node's row of `TORCH_NAMES` in autograd/saved_names.py:
     `saved=`, the names of its saved values when they are not `self`, `other` and
     `result` (they give our nodes their `_saved_<name>` attributes); `inputs=`, for
     a node with two inputs or more, their names, through which the PyTorch bridge
     (torch/graph.py) reads an input that needs no gradient;
   - Paddle's spelling, when Paddle 2.0 has the op with other names or arguments: a
     function in paddle/__init__.py and its `__all__`;
   - the fuzzer's op lists (UNARY, BINARY in tests/_fuzz.py), for an op common enough
     to draw into random programs.

ui_text.py needs nothing: rules are formulas, shown the same in every language.
"""

from .arithmetic import add, div, floor_divide, fmod, matmul, mul, neg, pow, remainder, rsub, sub
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
    isfinite,
    isinf,
    isnan,
    le,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    lt,
    ne,
)
from .counting import histogram
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
    chunk,
    concat,
    expand,
    flatten,
    flip,
    getitem,
    meshgrid,
    narrow,
    permute,
    reshape,
    select,
    split,
    squeeze,
    stack,
    swapaxes,
    t,
    transpose,
    unbind,
    unsqueeze,
    view,
)

# the op functions, not the modules that hold them: `from autogradviz.ops import *`
# must not bring `shape` or `pointwise` into agv's namespace
__all__ = [name for name, value in dict(globals()).items() if not name.startswith("_") and callable(value)]
