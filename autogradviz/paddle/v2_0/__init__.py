"""`autogradviz.paddle.v2_0`: Paddle 2.0.1, as the seed tutorial prints it.

    import autogradviz.paddle.v2_0 as paddle
    x = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    (x ** 2).backward()
    print(x.grad)            # [2. 4. 6.]: Paddle 2.0's .grad is a numpy array

The same functions as `autogradviz.paddle` (Paddle 2.x), whose tensors are of
release 2.0.1 (framework.PaddleTensor20): `.grad` is a numpy array, the repr
says `place=CPUPlace`, dtypes print `VarType.FP32`, and there are no 0-d
tensors (`to_tensor(2.0)`, `paddle.sum(x)`, a mean loss have shape [1]).
Only the functions that make tensors from nothing need a 2.0 version here;
every other function computes from its inputs, and a result has the release
of its inputs (framework.paddle_result).

Reading order: this file, then nn/ (layers whose parameters are 2.0.1
tensors), io.py and vision/; framework.py (PaddleTensor20) says what differs.

The choice is per import, not a global switch: a notebook that imports this
module and one that imports `autogradviz.paddle` run side by side, each
printing what its own Paddle printed (the README's Paddle section says why).
"""

from __future__ import annotations

import functools

from ... import paddle as _paddle_2x
from ...core import dtypes
from ...core.tensor import Tensor
from .. import framework
from ..framework import PaddleTensor20, as_one_element, mark
from . import io, nn, optimizer, vision  # noqa: F401 - this package's own: their tensors are 2.0.1's

# Paddle 2.x's API as it is: a function that computes from its inputs gives a
# result of its inputs' release (framework.paddle_result). What makes tensors
# from nothing is rebound below.
globals().update({name: getattr(_paddle_2x, name) for name in _paddle_2x.__all__ if name not in globals()})

__version__ = "2.0.1"
__all__ = list(_paddle_2x.__all__)  # the 2.x names, rebound below where 2.0 differs


def _in_2_0(make):
    """`make` (a function making tensors from nothing), returning 2.0.1 tensors:
    of class PaddleTensor20, and shape [1] where 2.x gives 0-d."""

    @functools.wraps(make)
    def made_in_2_0(*args, **kwargs):
        return _as_2_0(make(*args, **kwargs))

    return made_in_2_0


def _as_2_0(obj):
    """Make every tensor in `obj` (a tensor, or a container of them: meshgrid's
    list, load's state dict) a 2.0.1 tensor, in place; return `obj`."""
    if isinstance(obj, Tensor):
        return as_one_element(mark(obj, PaddleTensor20))
    for item in obj.values() if isinstance(obj, dict) else obj if isinstance(obj, (list, tuple)) else ():
        _as_2_0(item)
    return obj


to_tensor = _in_2_0(_paddle_2x.to_tensor)
rand = _in_2_0(_paddle_2x.rand)
randn = _in_2_0(_paddle_2x.randn)
randint = _in_2_0(_paddle_2x.randint)
zeros = _in_2_0(_paddle_2x.zeros)
ones = _in_2_0(_paddle_2x.ones)
full = _in_2_0(_paddle_2x.full)
zeros_like = _in_2_0(_paddle_2x.zeros_like)
ones_like = _in_2_0(_paddle_2x.ones_like)
full_like = _in_2_0(_paddle_2x.full_like)
arange = _in_2_0(_paddle_2x.arange)
eye = _in_2_0(_paddle_2x.eye)
normal = _in_2_0(_paddle_2x.normal)
uniform = _in_2_0(_paddle_2x.uniform)
linspace = _in_2_0(_paddle_2x.linspace)
meshgrid = _in_2_0(_paddle_2x.meshgrid)
load = _in_2_0(_paddle_2x.load)

# Paddle 2.0's dtypes print as its enum, VarType.FP32
float32 = framework.paddle_dtype(dtypes.float32, "2.0")
float64 = framework.paddle_dtype(dtypes.float64, "2.0")
int8 = framework.paddle_dtype(dtypes.int8, "2.0")
int16 = framework.paddle_dtype(dtypes.int16, "2.0")
int32 = framework.paddle_dtype(dtypes.int32, "2.0")
int64 = framework.paddle_dtype(dtypes.int64, "2.0")
uint8 = framework.paddle_dtype(dtypes.uint8, "2.0")
bool = framework.paddle_dtype(dtypes.bool_, "2.0")  # noqa: A001 - Paddle's name
