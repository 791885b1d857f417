"""`autogradviz.paddle`: Paddle 2.0's dynamic graph, on autogradviz's engine.

    import autogradviz.paddle as paddle
    import autogradviz.paddle.nn.functional as F
    from autogradviz.paddle.vision.models import vgg11

    x = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    z = x ** 2
    z.backward()             # a non-scalar output: Paddle starts from ones
    print(x.grad)            # [2. 4. 6.]: Paddle 2.0's .grad is a numpy array

Code from Paddle 2.0's tutorials runs here unchanged, printing what Paddle
2.0.1 prints. The tensors are autogradviz's own, computed by the same ops
and differentiated by the same backward walk (engine.py) as PyTorch-style
code; drawings (`agv.draw`) and the stepper work on them. What differs is
Paddle's rules, which a Paddle tensor's class, `PaddleTensor`, brings
(framework.py explains the class and the two hooks of the kernel it uses):

- tensors you make have `stop_gradient=True`; parameters have False; setting
  it to True on a computed tensor cuts the graph there;
- `backward()` on a non-scalar output seeds a gradient of ones;
- every tensor keeps its gradient, intermediate ones too (`c.grad` after
  `e.backward()`, where PyTorch needs `c.retain_grad()`);
- `.grad` is a numpy array (Paddle 2.0.x; 2.1 made it a Tensor);
- no 0-d tensors: `to_tensor(2.0)`, `paddle.sum(x)` and a mean loss have shape [1];
- Paddle's repr: `Tensor(shape=[3], dtype=float32, place=CPUPlace, stop_gradient=False, ...)`.

Reading order: framework.py (the Paddle tensor class, its methods and its
repr), this file (making tensors, and the math functions with Paddle's
argument names), nn/ (layers and `nn.functional`), optimizer.py,
vision/models.py, io.py.

Paddle's spellings of the facts about a tensor: `x.dtype` (and `paddle.float32`)
prints `VarType.FP32`, as Paddle 2.0's enum does, and equals `agv.float32`;
`x.shape` is a list, `[2, 3]` (it also equals the tuple `(2, 3)`: see
framework.Shape).
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence

import numpy as np

from .. import engine, ops, serialization
from ..core import creation, dtypes
from ..core import random as _random
from ..core import record as _record
from ..core.creation import as_array
from ..core.grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from ..core.tensor import Tensor
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
    "tanh", "sin", "cos", "concat", "stack", "transpose", "flatten", "squeeze", "unsqueeze", "argmax",
    "clip", "save", "load", "is_tensor", "set_device", "get_device", "disable_static", "in_dynamic_mode",
    "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool", "nn", "optimizer", "vision", "io",
    "framework",
]  # fmt: skip

# the release whose rules and printed output this module follows (the tutorial prints it)
__version__ = "2.0.1"

# Paddle's dtypes print as Paddle 2.0's enum, VarType.FP32, and equal agv's (framework.VarType)
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
    default) means no gradient is computed for it. A number gives shape [1]:
    Paddle 2.0 has no 0-d tensors. `place` is accepted and ignored (CPU only)."""
    if place is not None and "cpu" not in str(place).lower():
        raise RuntimeError(f"paddle.to_tensor: autogradviz computes on the CPU only, not on {place}")
    array = as_array(data, _dtype(dtype))
    if array.ndim == 0:
        array = array.reshape(1)
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
        grad_outputs = [ops.ones_like(o) if g is None else g for o, g in zip(outs, given)]
    # Paddle's paddle.grad only returns gradients: no tensor's .grad changes, not
    # even an intermediate one's (Paddle 2.0 docs of paddle.grad: "the gradients of
    # inputs" are the result). Here a Paddle tensor keeps its grad through
    # retain_grad(), which agv.grad fills as PyTorch's does, so put those back after.
    kept = _retained_grads(outs)
    try:
        result = engine.grad(outs, inputs, grad_outputs, retain_graph, create_graph, allow_unused)
    finally:
        for t, before in kept:
            t._grad = before
    return [None if g is None else mark(g) for g in result]


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
    """Sum over `axis` (all axes by default: shape [1], as in Paddle 2.0)."""
    out = ops.sum(x, dim=_axis(axis), keepdim=keepdim, dtype=_dtype(dtype))
    return as_one_element(out) if axis is None and not keepdim else out


def mean(x: Tensor, axis=None, keepdim: bool = False) -> Tensor:
    out = ops.mean(x, dim=_axis(axis), keepdim=keepdim)
    return as_one_element(out) if axis is None and not keepdim else out


def max(x: Tensor, axis=None, keepdim: bool = False) -> Tensor:  # noqa: A001
    """The largest value (over one `axis`): Paddle returns the values only, no indices."""
    if axis is None:
        return as_one_element(ops.max(x))
    return ops.max(x, axis, keepdim).values


def min(x: Tensor, axis=None, keepdim: bool = False) -> Tensor:  # noqa: A001
    if axis is None:
        return as_one_element(ops.min(x))
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
    return as_one_element(out) if axis is None else mark(out)
