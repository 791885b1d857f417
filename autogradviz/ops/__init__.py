"""The differentiable ops, grouped as a formula sheet: each forward function
sits next to the backward node that differentiates it."""

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
from .inplace import add_, clamp_, copy_, div_, fill_, mul_, normal_, pow_, setitem, sub_, uniform_, zero_
from .pointwise import (
    abs,
    clamp,
    clip,
    clone,
    cos,
    exp,
    leaky_relu,
    log,
    maximum,
    minimum,
    relu,
    sigmoid,
    sign,
    sin,
    sqrt,
    tanh,
    to,
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
