"""The math a create_graph=True backward uses: autogradviz's own ops, so that
computing a gradient records a graph that can be differentiated again.

It mirrors `numpy_math` name for name.
"""

from ..core.creation import zeros_like  # noqa: F401 - a constant: its own gradient is none
from .arithmetic import div
from .arithmetic import pow as power  # noqa: F401 - x ** p, with PyTorch's rsqrt for p = -0.5
from .broadcast import sum_to  # noqa: F401
from .pointwise import cos, exp, log, relu, sign, sin, to, where  # noqa: F401
from .reductions import mean, sum  # noqa: F401
from .shape import expand, flip, getitem, index_into_zeros, permute, reshape, transpose  # noqa: F401


def step(x):
    """1 where x > 0, else 0. sign(relu(x)) stays in the graph (with gradient 0),
    unlike a comparison, so a second derivative through it is 0, not missing, as
    in PyTorch."""
    return sign(relu(x))


# the rounded quotients that remainder's and fmod's gradients use: a.div(b, rounding_mode=...),
# whose derivative is 0 (a step function, flat between its jumps), as in PyTorch
def floor_divide(a, b):
    return div(a, b, rounding_mode="floor")


def trunc_divide(a, b):
    return div(a, b, rounding_mode="trunc")
