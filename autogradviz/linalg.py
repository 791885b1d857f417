"""`agv.linalg`, PyTorch's `torch.linalg`: norms, inverse, determinant, solve.

    agv.linalg.norm(x)                  # the length of x, as if it were flat
    agv.linalg.vector_norm(x, ord=1)    # Σ|xᵢ|
    agv.linalg.matrix_norm(A, "nuc")    # the sum of A's singular values
    agv.linalg.solve(A, b)              # x with A·x = b; also inv(A) and det(A)

The formulas, and the backward nodes, are in ops/linalg.py.
"""

from __future__ import annotations

from .core.tensor import Tensor
from .ops.linalg import LinAlgError, det, inv, matrix_norm, solve, svdvals, vector_norm

__all__ = ["LinAlgError", "det", "inv", "matrix_norm", "norm", "solve", "svdvals", "vector_norm"]


def norm(A, ord=None, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:  # noqa: A002
    """A vector norm or a matrix norm, as `dim` and `ord` say: with neither, the
    2-norm of all entries; with an int dim (or a 1-D input), a vector norm; with
    a 2-tuple dim (or a 2-D input and an ord), a matrix norm."""
    if dim is None:
        if ord is None:
            return vector_norm(A, 2, None, keepdim, dtype=dtype)
        if A.ndim not in (1, 2):
            raise RuntimeError(
                f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got {A.ndim}D."
            )
        dim = tuple(range(A.ndim))
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if len(dims) == 1:
        if isinstance(ord, str):
            raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {dims[0]}")
        return vector_norm(A, 2 if ord is None else ord, dims, keepdim, dtype=dtype)
    if len(dims) == 2:
        return matrix_norm(A, "fro" if ord is None else ord, dims, keepdim, dtype=dtype)
    raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {list(dims)}")
