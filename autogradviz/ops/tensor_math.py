"""The math a create_graph=True backward uses: autogradviz's own ops, so that
computing a gradient records a graph that can be differentiated again.

It mirrors `numpy_math` name for name.
"""

from .broadcast import sum_to  # noqa: F401
from .pointwise import cos, exp, log, sign, sin, to, where  # noqa: F401
from .reductions import mean, sum  # noqa: F401
from .shape import expand, getitem, index_into_zeros, permute, reshape, transpose  # noqa: F401


def relu_mask(out):
    """sign(out) is the 0/1 mask for out >= 0, and unlike a comparison it stays
    in the graph (with gradient 0), as PyTorch's threshold_backward does."""
    return sign(out)


def step(a):
    """1 where a > 0, else 0: sign(relu(a)) stays in the graph (with gradient 0),
    so a second derivative through it is 0, not missing (as in PyTorch)."""
    from .pointwise import relu

    return sign(relu(a))
