"""`autogradviz.paddle`: Paddle 2.x's dynamic graph, on autogradviz's engine.

    import autogradviz.paddle as paddle
    import autogradviz.paddle.nn.functional as F
    from autogradviz.paddle.vision.models import vgg11

    x = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    z = x ** 2
    z.backward()             # a non-scalar output: Paddle starts from ones
    print(x.grad.numpy())    # [2. 4. 6.]: from Paddle 2.1 on, .grad is a Tensor

Code written for Paddle 2.x (what Paddle's documentation and current
tutorials use: 2.6, the last 2.x release) runs here unchanged. Code written
for Paddle 2.0.1, where `.grad` was a numpy array, imports the version
namespace instead, one line, and prints what 2.0.1 printed:

    import autogradviz.paddle.v2_0 as paddle      # print(x.grad) -> [2. 4. 6.]

(Why a namespace and not a switch: the README's Paddle section.) The two
differ only in what their tensors print and in 0-d results (framework.py's
table); each tensor carries its release in its class.

The tensors are autogradviz's own, computed by the same ops
and differentiated by the same backward walk (engine.py) as PyTorch-style
code; drawings (`agv.draw`) and the stepper work on them. What differs is
Paddle's rules, which a Paddle tensor's class, `PaddleTensor`, brings
(framework.py explains the class and the two hooks of the kernel it uses):

- tensors you make have `stop_gradient=True`; parameters have False; setting
  it to True on a computed tensor cuts the graph there;
- `backward()` on a non-scalar output seeds a gradient of ones;
- every tensor keeps its gradient, intermediate ones too (`c.grad` after
  `e.backward()`, where PyTorch needs `c.retain_grad()`);
- `.grad` is a Tensor (2.0.x: a numpy array);
- `to_tensor(2.0)`, `paddle.sum(x)` and a mean loss are 0-d (2.0.x: shape [1]);
- Paddle's repr: `Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=False, ...)`
  (2.0.x: `place=CPUPlace`).

Reading order: framework.py (the Paddle tensor class, its methods and its
repr), this file (making tensors, and the math functions with Paddle's
argument names), nn/ (layers and `nn.functional`), optimizer.py,
vision/models.py, io.py.

Paddle's spellings of the facts about a tensor: `x.dtype` (and `paddle.float32`)
prints `paddle.float32` (2.0: `VarType.FP32`, its enum) and equals `agv.float32`;
`x.shape` is a list, `[2, 3]` (it also equals the tuple `(2, 3)`: see
framework.Shape).
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence

import numpy as np

from .. import backward_and_grad, engine, ops, serialization
from ..core import creation, dtypes
from ..core import random as _random
from ..core import record as _record
from ..core.creation import as_array
from ..core.grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from ..core.random import Generator
from ..core.tensor import Tensor
from ..ops import sampling as _sampling
from . import framework, io, nn, optimizer, vision
from .framework import as_one_element, mark

# results of ops on Paddle tensors are Paddle tensors that keep their grad; a
# result of plain tensors comes back unchanged (framework.paddle_result)
_record.set_result_hook(framework.paddle_result)

__all__ = [
    "Tensor", "to_tensor", "rand", "randn", "randint", "zeros", "ones", "full", "arange",
    "zeros_like", "ones_like", "full_like", "eye", "seed", "grad", "no_grad", "enable_grad",
    "set_grad_enabled", "is_grad_enabled", "add_n", "sum", "mean", "max", "min", "matmul",
    "reshape", "add", "subtract", "multiply", "divide", "pow", "exp", "log", "sqrt", "abs",
    "tanh", "sin", "cos", "sinh", "cosh", "maximum", "dot", "mm", "normal", "uniform", "linspace",
    "meshgrid", "concat", "stack", "transpose", "flatten", "squeeze", "unsqueeze", "argmax",
    "clip", "save", "load", "is_tensor", "set_device", "get_device", "disable_static", "in_dynamic_mode",
    "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool", "nn", "optimizer", "vision", "io",
    "framework",
]  # fmt: skip

# the release whose rules and printed output this module follows (v2_0: "2.0.1")
__version__ = "2.6.0"

# Paddle's dtypes print paddle.float32 and equal agv's (framework.VarType)
float32 = framework.paddle_dtype(dtypes.float32)
float64 = framework.paddle_dtype(dtypes.float64)
int8 = framework.paddle_dtype(dtypes.int8)
int16 = framework.paddle_dtype(dtypes.int16)
int32 = framework.paddle_dtype(dtypes.int32)
int64 = framework.paddle_dtype(dtypes.int64)
uint8 = framework.paddle_dtype(dtypes.uint8)
bool = framework.paddle_dtype(dtypes.bool_)  # noqa: A001 - Paddle's name


def _dtype(dtype, default=None) -> dtypes.DType | None:
    """Paddle names dtypes by strings ('float32') as often as by paddle.float32."""
    if dtype is None:
        return default
    return dtypes.to_dtype(dtype)


def _shape(shape, op: str) -> tuple[int, ...]:
    """Paddle passes a shape as one list, tuple or 1-d int Tensor: rand([2, 3])."""
    if isinstance(shape, Tensor):
        shape = shape.tolist()
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, (builtins.bool, np.bool_)):
        shape = [shape]
    if not isinstance(shape, (list, tuple)):
        raise TypeError(
            f"paddle.{op}: shape must be a list, tuple or Tensor of ints, not {type(shape).__name__}"
        )
    return creation._size((tuple(shape),), op)


# -- making tensors ------------------------------------------------------------------


def to_tensor(data, dtype=None, place=None, stop_gradient: bool = True) -> Tensor:
    """A new Paddle tensor holding a copy of `data`; `stop_gradient=True` (the
    default) means no gradient is computed for it. A number gives a 0-d tensor
    (Paddle 2.5 on; 2.0 gave shape [1]). `place` is accepted and ignored (CPU only)."""
    if place is not None and "cpu" not in str(place).lower():
        raise RuntimeError(f"paddle.to_tensor: autogradviz computes on the CPU only, not on {place}")
    array = as_array(data, _dtype(dtype))
    t = creation._finish(array, False)
    t.stop_gradient = stop_gradient  # the setter refuses a gradient for integers, naming the dtype
    return mark(t)


def rand(shape, dtype=None) -> Tensor:
    """Uniform on [0, 1), from autogradviz's seeded generator (see paddle.seed)."""
    return mark(creation.rand(_shape(shape, "rand"), dtype=_dtype(dtype)))


def randn(shape, dtype=None) -> Tensor:
    """Standard normal."""
    return mark(creation.randn(_shape(shape, "randn"), dtype=_dtype(dtype)))


def randint(low: int = 0, high: int | None = None, shape=(1,), dtype=None) -> Tensor:
    """Integers in [low, high), int64; `randint(high)` starts at 0. The default
    shape is [1], so `paddle.randint(0, 1000)` is one label."""
    if high is None:
        low, high = 0, low
    if low >= high:
        raise ValueError(f"paddle.randint: high ({high}) must be greater than low ({low})")
    return mark(creation.randint(low, high, _shape(shape, "randint"), dtype=_dtype(dtype)))


def zeros(shape, dtype=None) -> Tensor:
    return mark(creation.zeros(_shape(shape, "zeros"), dtype=_dtype(dtype)))


def ones(shape, dtype=None) -> Tensor:
    return mark(creation.ones(_shape(shape, "ones"), dtype=_dtype(dtype)))


def full(shape, fill_value, dtype=None) -> Tensor:
    """Paddle's full is float32 unless told otherwise, even for an int fill value."""
    return mark(creation.full(_shape(shape, "full"), fill_value, dtype=_dtype(dtype, dtypes.float32)))


def zeros_like(x: Tensor, dtype=None) -> Tensor:
    return mark(creation.zeros_like(x, dtype=_dtype(dtype)))


def ones_like(x: Tensor, dtype=None) -> Tensor:
    return mark(creation.ones_like(x, dtype=_dtype(dtype)))


def full_like(x: Tensor, fill_value, dtype=None) -> Tensor:
    return mark(creation.full_like(x, fill_value, dtype=_dtype(dtype)))


def arange(start=0, end=None, step=1, dtype=None) -> Tensor:
    return mark(creation.arange(start, end, step, dtype=_dtype(dtype)))


def eye(num_rows: int, num_columns: int | None = None, dtype=None) -> Tensor:
    return mark(creation.eye(num_rows, num_columns, dtype=_dtype(dtype)))


def normal(mean=0.0, std=1.0, shape=None, name=None) -> Tensor:
    """Normal samples (Paddle 2.x's paddle.normal): with numbers, a float32 tensor
    of `shape`; with a Tensor mean or std, one draw per element, of its shape
    (`shape` is then ignored, as Paddle's docs say)."""
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        return mark(_sampling.normal(mean, std))
    size = _shape(shape if shape is not None else [1], "normal")
    return mark(_sampling.normal(float(mean), float(std), size))


def uniform(shape, dtype=None, min=-1.0, max=1.0, seed: int = 0, name=None) -> Tensor:  # noqa: A002
    """Uniform on [min, max), float32 by default, on [-1, 1) unless told (Paddle's
    defaults). `seed=0` draws from the generator paddle.seed seeds; another seed
    draws from a generator of its own, the same numbers each time."""
    if not min < max:
        raise ValueError(f"paddle.uniform: min ({min}) must be less than max ({max})")
    generator = Generator().manual_seed(seed) if seed else None
    unit = creation.rand(_shape(shape, "uniform"), generator=generator, dtype=_dtype(dtype, dtypes.float32))
    with no_grad():
        return mark(unit * (max - min) + min)


def linspace(start, stop, num, dtype=None, name=None) -> Tensor:
    """`num` evenly spaced numbers from start to stop, both included; float32 by default."""
    as_number = lambda v: v.item() if isinstance(v, Tensor) else v  # noqa: E731 - Paddle takes 1-element Tensors too
    return mark(creation.linspace(as_number(start), as_number(stop), int(as_number(num)),
                                  dtype=_dtype(dtype, dtypes.float32)))  # fmt: skip


def meshgrid(*args, name=None) -> list:
    """Coordinate grids of 1-d tensors, 'ij' indexing (Paddle has no other); a list.
    Paddle takes the tensors one by one or as one list: meshgrid(x, y), meshgrid([x, y])."""
    tensors = list(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) else list(args)
    return [mark(t) for t in ops.meshgrid(*tensors, indexing="ij")]


def seed(seed: int):
    """Seed the generator that rand, randn, randint and the layers' initial weights use."""
    return _random.manual_seed(seed)


def save(obj, path) -> None:
    """paddle.save(model.state_dict(), "model.pdparams"): pickled, like agv.save."""
    serialization.save(obj, path)


def load(path):
    """Read back what paddle.save wrote (tensors, arrays, numbers, containers of them
    only: see agv.load); its tensors are Paddle tensors again."""
    return _marked(serialization.load(path))


def _marked(obj):
    if isinstance(obj, Tensor):
        return mark(obj)
    if isinstance(obj, dict):
        for value in obj.values():
            _marked(value)
    elif isinstance(obj, (list, tuple)):
        for value in obj:
            _marked(value)
    return obj


def is_tensor(x) -> bool:
    return isinstance(x, Tensor)


# the device and mode switches of Paddle 2.0: there is one device, and the graph is always dynamic
def set_device(device: str) -> str:
    if str(device).split(":")[0] != "cpu":
        raise RuntimeError(f"paddle.set_device: autogradviz computes on the CPU only, not on {device!r}")
    return "cpu"


def get_device() -> str:
    return "cpu"


def disable_static(place=None) -> None:
    """Dynamic graph mode is the only mode here: nothing to switch."""


def in_dynamic_mode() -> bool:
    return True


# -- autograd ------------------------------------------------------------------------


def grad(
    outputs,
    inputs,
    grad_outputs=None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused: bool = False,
    no_grad_vars=None,
) -> list:
    """The gradients of `outputs` with respect to `inputs`, as a list (Paddle's
    type). Outputs without a grad_outputs entry start from ones, whatever their
    shape. `only_inputs=False` and `no_grad_vars` are not supported."""
    if not only_inputs:
        raise NotImplementedError(
            "paddle.grad: only_inputs=False is not supported; pass the tensors as inputs"
        )
    if no_grad_vars is not None:
        raise NotImplementedError(
            "paddle.grad: no_grad_vars is not supported; detach() those tensors instead"
        )
    outs = [outputs] if isinstance(outputs, Tensor) else list(outputs)
    if grad_outputs is not None:
        given = [grad_outputs] if isinstance(grad_outputs, Tensor) else list(grad_outputs)
        # Paddle: a None entry means ones for that output
        grad_outputs = [creation.ones_like(o) if g is None else g for o, g in zip(outs, given)]
    # Paddle's paddle.grad only returns gradients: no tensor's .grad changes, not
    # even an intermediate one's (Paddle 2.0 docs of paddle.grad: "the gradients of
    # inputs" are the result). Here a Paddle tensor keeps its grad through
    # retain_grad(), which agv.grad fills as PyTorch's does, so put those back after.
    kept = _retained_grads(outs)
    try:
        result = backward_and_grad.grad(outs, inputs, grad_outputs, retain_graph, create_graph, allow_unused)
    finally:
        for t, before in kept:
            t._grad = before
    ins = [inputs] if isinstance(inputs, Tensor) else list(inputs)
    return [None if g is None else mark(g, _flavour_of(x)) for g, x in zip(result, ins)]


def _flavour_of(t) -> type:
    """The Paddle release of `t` (its tensor class), 2.x for a plain tensor."""
    return type(t).tensor_class() if isinstance(t, framework.PaddleTensor) else framework.PaddleTensor


def _retained_grads(outputs: list) -> list[tuple[Tensor, object]]:
    """Every tensor below `outputs` that retains its grad, with that grad now."""
    roots = [t.grad_fn for t in outputs if isinstance(t, Tensor) and t.grad_fn is not None]
    kept = []
    for node in engine.topological_order(roots):
        owner = None if node._extras is None else node._extras.retained
        t = owner() if owner is not None else None
        if t is not None:
            kept.append((t, t._grad))
    return kept


# -- math, with Paddle's names and arguments (axis=, keepdim=) -----------------------


def add_n(inputs) -> Tensor:
    """The sum of a list of tensors of one shape."""
    return ops.add_n(inputs)


def sum(x: Tensor, axis=None, dtype=None, keepdim: bool = False) -> Tensor:  # noqa: A001
    """Sum over `axis` (all axes by default: 0-d; shape [1] in Paddle 2.0)."""
    out = ops.sum(x, dim=_axis(axis), keepdim=keepdim, dtype=_dtype(dtype))
    return as_one_element(out, _flavour_of(x)) if axis is None and not keepdim else out


def mean(x: Tensor, axis=None, keepdim: bool = False) -> Tensor:
    out = ops.mean(x, dim=_axis(axis), keepdim=keepdim)
    return as_one_element(out, _flavour_of(x)) if axis is None and not keepdim else out


def max(x: Tensor, axis=None, keepdim: bool = False) -> Tensor:  # noqa: A001
    """The largest value (over one `axis`): Paddle returns the values only, no indices."""
    if axis is None:
        return as_one_element(ops.max(x), _flavour_of(x))
    return ops.max(x, axis, keepdim).values


def min(x: Tensor, axis=None, keepdim: bool = False) -> Tensor:  # noqa: A001
    if axis is None:
        return as_one_element(ops.min(x), _flavour_of(x))
    return ops.min(x, axis, keepdim).values


def _axis(axis):
    return tuple(axis) if isinstance(axis, list) else axis


def matmul(x: Tensor, y: Tensor, transpose_x: bool = False, transpose_y: bool = False) -> Tensor:
    if transpose_x:
        x = ops.transpose(x, -2, -1)
    if transpose_y:
        y = ops.transpose(y, -2, -1)
    return ops.matmul(x, y)


def reshape(x: Tensor, shape: Sequence[int]) -> Tensor:
    """Paddle's 0 in a shape keeps that dimension of x: reshape(x, [0, -1])."""
    shape = [x.shape[i] if n == 0 else n for i, n in enumerate(_shape_list(shape))]
    return ops.reshape(x, tuple(shape))


def _shape_list(shape) -> list[int]:
    return shape.tolist() if isinstance(shape, Tensor) else list(shape)


def add(x, y) -> Tensor:
    return ops.add(x, y)


def subtract(x, y) -> Tensor:
    return ops.sub(x, y)


def multiply(x, y) -> Tensor:
    return ops.mul(x, y)


def divide(x, y) -> Tensor:
    return ops.div(x, y)


def pow(x, y) -> Tensor:  # noqa: A001
    return ops.pow(x, y)


def exp(x: Tensor) -> Tensor:
    return ops.exp(x)


def log(x: Tensor) -> Tensor:
    return ops.log(x)


def sqrt(x: Tensor) -> Tensor:
    return ops.sqrt(x)


def abs(x: Tensor) -> Tensor:  # noqa: A001
    return ops.abs(x)


def tanh(x: Tensor) -> Tensor:
    return ops.tanh(x)


def sin(x: Tensor) -> Tensor:
    return ops.sin(x)


def cos(x: Tensor) -> Tensor:
    return ops.cos(x)


def sinh(x: Tensor) -> Tensor:
    return ops.sinh(x)


def cosh(x: Tensor) -> Tensor:
    return ops.cosh(x)


def maximum(x: Tensor, y: Tensor) -> Tensor:
    """The larger of x and y, elementwise, broadcast. Where they tie, the whole
    gradient goes to y, as in Paddle's kernel (paddle/phi/kernels/funcs/
    elementwise_functor.h: MaxGradDx is dout * (x > y), MaxGradDy dout * (x <= y));
    PyTorch splits it equally. So it is drawn as the where() it is."""
    return ops.where(ops.gt(x, y), x, y)


def dot(x: Tensor, y: Tensor) -> Tensor:
    """The inner product of two 1-d tensors (0-d; Paddle 2.0: shape [1]), or of
    each row of two 2-d tensors [N, M]: shape [N]."""
    if x.ndim == 2 and y.ndim == 2:
        return ops.sum(ops.mul(x, y), dim=-1)
    if x.ndim != 1 or y.ndim != 1:
        raise ValueError(
            f"paddle.dot: x and y must be 1-d or 2-d of the same shape, not {list(x.shape)} and {list(y.shape)}"
        )
    return as_one_element(ops.dot(x, y), _flavour_of(x))


def mm(input: Tensor, mat2: Tensor) -> Tensor:  # noqa: A002 - Paddle's name
    """The matrix product, as paddle.matmul (Paddle's mm broadcasts like matmul)."""
    return ops.matmul(input, mat2)


def clip(x: Tensor, min=None, max=None) -> Tensor:  # noqa: A002
    return ops.clamp(x, min, max)


def concat(x, axis: int = 0) -> Tensor:
    return ops.cat(list(x), axis)


def stack(x, axis: int = 0) -> Tensor:
    return ops.stack(list(x), axis)


def transpose(x: Tensor, perm: Sequence[int]) -> Tensor:
    """Paddle's transpose takes the whole permutation, like PyTorch's permute."""
    return ops.permute(x, tuple(perm))


def flatten(x: Tensor, start_axis: int = 0, stop_axis: int = -1) -> Tensor:
    return ops.flatten(x, start_axis, stop_axis)


def squeeze(x: Tensor, axis=None) -> Tensor:
    return ops.squeeze(x, axis)


def unsqueeze(x: Tensor, axis: int) -> Tensor:
    return ops.unsqueeze(x, axis)


def argmax(x: Tensor, axis=None, keepdim: bool = False, dtype="int64") -> Tensor:
    """The index of the largest value (of the flattened x, by default: shape [1])."""
    out = ops.argmax(x, axis, keepdim)
    if dtypes.to_dtype(dtype) is not dtypes.int64:
        out = ops.to(out, dtypes.to_dtype(dtype))
    return as_one_element(out, _flavour_of(x)) if axis is None else mark(out, _flavour_of(x))
