"""Products of vectors and matrices, and norms.

`a @ b` (arithmetic.py) takes any shapes; PyTorch's older names each take one:
`mm` two matrices, `mv` a matrix and a vector, `dot` two vectors, `bmm` two
batches of matrices, `outer` two vectors. Their gradients are matmul's
(∂(A·B)/∂A = g·Bᵀ, ∂(A·B)/∂B = Aᵀ·g). `einsum` writes any such product as an
equation over subscripts; its gradient is an einsum too, with the subscripts
swapped. Last, the norms: ‖x‖ₚ = (Σ|xᵢ|ᵖ)^(1/p), and `agv.linalg`'s
vector_norm and matrix_norm built on it.
"""

from __future__ import annotations

import string

import numpy as np

from ..core.graph import OUTPUT, Node
from ..core.record import record
from ..core.tensor import Tensor
from . import numpy_math
from ._operands import QUIET_NUMPY, data, factors_to_save, operand
from .arithmetic import DotBackward0, MatmulBackward0, MmBackward0, MvBackward0, mul
from .broadcast import sum_to
from .pointwise import abs as _abs
from .reductions import _axes, max, min, sum
from .shape import reshape

_TORCH_TYPE = {"float32": "Float", "float64": "Double", "int64": "Long", "bool": "Bool"}


def _type_name(x: np.ndarray) -> str:
    return _TORCH_TYPE.get(x.dtype.name, x.dtype.name)


def _refuse_bool(op: str, *arrays: np.ndarray) -> None:
    if any(x.dtype.kind == "b" for x in arrays):
        raise NotImplementedError(
            f"\"addmm_impl_cpu_\" not implemented for 'Bool': {op} of bool tensors; convert them "
            "first, for example a.long()"
        )


def _product(node: type[Node], a: Tensor, b: Tensor, x: np.ndarray, y: np.ndarray) -> Tensor:
    return record(node, np.matmul(x, y), (a, b), saved=factors_to_save(a, b), args=(x.ndim, y.ndim))


# mm: matrix · matrix -------------------------------------------------------------------------
def mm(input, mat2) -> Tensor:
    """Two matrices only (use `@` or matmul for anything else)."""
    a, b = operand(input), operand(mat2)
    x, y = data(a), data(b)
    if x.ndim != 2:
        raise RuntimeError(f"self must be a matrix (mm: got a tensor of shape {x.shape})")
    if y.ndim != 2:
        raise RuntimeError(f"mat2 must be a matrix (mm: got a tensor of shape {y.shape})")
    if x.shape[1] != y.shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({x.shape[0]}x{x.shape[1]} and "
            f"{y.shape[0]}x{y.shape[1]})"
        )
    if x.dtype != y.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_c(x)} != {_c(y)}")
    _refuse_bool("mm", x, y)
    return _product(MmBackward0, a, b, x, y)


def _c(x: np.ndarray) -> str:
    """PyTorch's C++ name of a dtype, as its mm error prints it: float, double, long int."""
    return {"float32": "float", "float64": "double", "int64": "long int"}.get(x.dtype.name, x.dtype.name)


# mv: matrix · vector ---------------------------------------------------------------------------
def mv(input, vec) -> Tensor:
    a, b = operand(input), operand(vec)
    x, y = data(a), data(b)
    if x.ndim != 2 or y.ndim != 1:
        raise RuntimeError(
            f"vector + matrix @ vector expected, got 1, {x.ndim}, {y.ndim} "
            f"(mv: shapes {x.shape} and {y.shape}; it takes a matrix and a vector)"
        )
    if x.shape[1] != y.shape[0]:
        raise RuntimeError(
            f"size mismatch, got input ({x.shape[0]}), mat ({x.shape[0]}x{x.shape[1]}), vec ({y.shape[0]})"
        )
    if x.dtype != y.dtype:
        raise RuntimeError(
            f"addmv input tensors must have the same dtype, but got {_type_name(y)}, {_type_name(x)}, "
            f"and {_type_name(y)} (mv: the matrix is {_type_name(x)}, the vector {_type_name(y)})"
        )
    _refuse_bool("mv", x, y)
    return _product(MvBackward0, a, b, x, y)


# dot: vector · vector ------------------------------------------------------------------------
def dot(input, other) -> Tensor:
    a, b = operand(input), operand(other)
    x, y = data(a), data(b)
    if x.ndim != 1 or y.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {x.ndim}D and {y.ndim}D tensors")
    if x.shape != y.shape:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{x.shape[0]}] and src [{y.shape[0]}] to have the "
            f"same number of elements, but got {x.shape[0]} and {y.shape[0]} elements respectively"
        )
    if x.dtype != y.dtype:
        raise RuntimeError(
            f"dot : expected both vectors to have same dtype, but found {_type_name(x)} and {_type_name(y)}"
        )
    _refuse_bool("dot", x, y)
    return _product(DotBackward0, a, b, x, y)


# bmm: a batch of matrix products ----------------------------------------------------------------
class BmmBackward0(MatmulBackward0):
    """bmm(A, B)[n] = A[n] @ B[n], for each n of the batch: matmul's rules, matrix by matrix."""

    __slots__ = ()
    op = "bmm"
    torch_name = None  # PyTorch's own name (MatmulBackward0's note is not about bmm)


def bmm(input, mat2) -> Tensor:
    a, b = operand(input), operand(mat2)
    x, y = data(a), data(b)
    if x.ndim != 3:
        raise RuntimeError(f"batch1 must be a 3D tensor (bmm: got a tensor of shape {x.shape})")
    if y.ndim != 3:
        raise RuntimeError(f"batch2 must be a 3D tensor (bmm: got a tensor of shape {y.shape})")
    if y.shape[:2] != (x.shape[0], x.shape[2]):
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{x.shape[0]}, {x.shape[2]}] "
            f"but got: [{y.shape[0]}, {y.shape[1]}]."
        )
    if x.dtype != y.dtype:
        raise RuntimeError(f"expected scalar type {_type_name(x)} but found {_type_name(y)}")
    _refuse_bool("bmm", x, y)
    return _product(BmmBackward0, a, b, x, y)


# outer: every product aᵢ·bⱼ ------------------------------------------------------------------
def outer(input, vec2) -> Tensor:
    """a as a column times b as a row, which broadcasting makes a matrix. PyTorch
    computes it exactly so, and records MulBackward0 over a ViewBackward0."""
    a, b = operand(input), operand(vec2)
    for name, t in (("self", a), ("vec2", b)):
        if data(t).ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {data(t).ndim}-D")
    return mul(reshape(a, (-1, 1)), b)


ger = outer


# einsum --------------------------------------------------------------------------------------
#
# "ij,jk->ik" names each axis of each operand by a letter. Each output element is
# the sum, over every letter missing from the output, of the product of the
# operands. So the gradient for operand k is again an einsum: g (subscripted as
# the output) times the other operands, summed to operand k's subscripts.
#
# Two cases need more. A letter repeated in one operand ("ii->i", the diagonal)
# is rewritten with a fresh letter and an identity matrix: A_ii = Σ_z A_iz·δ_iz,
# so every subscript of an operand is distinct again. A letter that only operand
# k has, summed away ("ij->i"), does not appear in the gradient einsum: its
# gradient is the same along that axis, so it is broadcast back.


class EinsumBackward0(Node):
    __slots__ = ()
    op = "einsum"
    rules = (
        "∂/∂operandₖ = einsum of g and the other operands, with operand k's and the output's subscripts swapped",
    )
    torch_name = (
        "— (autogradviz only: PyTorch's einsum records the ops it is made of: ViewBackward0, "
        "PermuteBackward0, SumBackward1, BmmBackward0, ...)"
    )

    def vjp(self, xp, g, *operands):
        inputs, output, sizes, shapes = self.args
        run = np.einsum if xp is numpy_math else einsum
        grads = []
        for k, subscripts in enumerate(inputs):
            if not self.needs(k):
                grads.append(None)
                continue
            grads.append(_einsum_grad(xp, run, g, operands, inputs, output, sizes, shapes[k], k, subscripts))
        return tuple(grads)


def _einsum_grad(xp, run, g, operands, inputs, output, sizes, shape, k, subscripts):
    fresh = iter(c for c in string.ascii_letters if c not in sizes)
    renamed, deltas = [], []
    for letter in subscripts:
        if letter in renamed:  # a repeated letter: a fresh one, tied to it by an identity matrix
            new = next(fresh)
            deltas.append(letter + new)
            renamed.append(new)
        else:
            renamed.append(letter)
    terms = [output] + [s for i, s in enumerate(inputs) if i != k] + deltas
    values = [g] + [v for i, v in enumerate(operands) if i != k]
    dtype = data(g).dtype
    values += [np.eye(sizes[d[0]], dtype=dtype) for d in deltas]
    known = set("".join(terms))
    target = "".join(c for c in renamed if c in known)
    grad = run(",".join(terms) + "->" + target, *values)
    if len(target) < len(renamed):  # letters only this operand had: broadcast back along them
        grad = xp.reshape(grad, tuple(grad.shape[target.index(c)] if c in known else 1 for c in renamed))
        grad = xp.expand(
            grad, tuple(grad.shape[i] if c in known else shape[i] for i, c in enumerate(renamed))
        )
    return sum_to(xp, grad, shape)  # a size-1 axis that einsum broadcast: summed back to 1


def einsum(equation: str, *operands) -> Tensor:
    """einsum("ij,jk->ik", a, b) is a @ b; "ii" is the trace, "i,j->ij" the outer
    product, "...ij,...jk" a batched product. Without "->", the output has the
    letters that appear once, in alphabetical order (after "..." if any)."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])  # einsum("ij,jk", [a, b]), as PyTorch also allows
    tensors = [operand(t) if isinstance(t, Tensor) else operand(np.asarray(t)) for t in operands]
    arrays = [t._data for t in tensors]
    inputs, output = _parse(equation.replace(" ", ""), arrays)
    sizes = _letter_sizes(inputs, output, arrays)
    dtypes = {x.dtype for x in arrays}
    if len(dtypes) > 1:
        first = arrays[0]
        other = next(x for x in arrays if x.dtype != first.dtype)
        raise RuntimeError(
            f"expected scalar type {_type_name(first)} but found {_type_name(other)} "
            f"(einsum: every operand must have the same dtype)"
        )
    out = np.einsum(",".join(inputs) + "->" + output, *arrays)
    out = np.asarray(out)
    shapes = tuple(x.shape for x in arrays)
    return record(
        EinsumBackward0,
        out,
        tuple(tensors),
        saved=_einsum_saved(tensors),
        args=(tuple(inputs), output, sizes, shapes),
    )


def _einsum_saved(tensors: list) -> tuple:
    """What einsum's backward needs. Operand k's gradient uses only the other operands
    (and operand k's shape), so operand k is saved only if another operand needs a
    gradient: one operand (a sum, a transpose, a diagonal) saves nothing, and of two,
    each is saved only if the other needs a gradient, as for a @ b. PyTorch, which
    contracts three or more operands pairwise, saves the intermediate products instead
    of some operands; autogradviz does not make those, so it keeps the operands."""
    return tuple(
        t if any(other._requires_grad for j, other in enumerate(tensors) if j != k) else None
        for k, t in enumerate(tensors)
    )


def _parse(equation: str, arrays: list) -> tuple[list[str], str]:
    """The subscripts of each operand and of the output, "..." spelled out as letters."""
    lhs, arrow, rhs = equation.partition("->")
    terms = lhs.split(",")
    if len(terms) < len(arrays):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    if len(terms) > len(arrays):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    used = set(c for c in equation if c.isalpha())
    for c in equation:
        if not (c.isalpha() or c in ",.->"):
            raise RuntimeError(
                f"einsum(): invalid subscript given at index {equation.index(c)} in the equation string, subscripts must be in [a-zA-Z]"
            )
    spare = [c for c in string.ascii_letters if c not in used]
    most = 0
    for term, x in zip(terms, arrays):
        letters = term.replace("...", "")
        if "..." in term:
            most = _larger(most, x.ndim - len(letters))
        if len(letters) > x.ndim or ("..." not in term and len(letters) != x.ndim):
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({len(letters)}) does not match the number "
                f"of dimensions ({x.ndim}) for operand {terms.index(term)}{' and no ellipsis was given' if '...' not in term else ''}"
            )
    ellipsis = "".join(spare[:most])  # the broadcast dims, right-aligned as in broadcasting
    inputs = []
    for term, x in zip(terms, arrays):
        n = x.ndim - len(term.replace("...", ""))
        inputs.append(term.replace("...", ellipsis[most - n :] if n else ""))
    if arrow:
        output = rhs.replace("...", ellipsis)
        for c in rhs.replace("...", ""):
            if rhs.count(c) > 1:
                raise RuntimeError(f"einsum(): output subscript {c} appears more than once in the output")
            if c not in lhs:
                raise RuntimeError(
                    f"einsum(): output subscript {c} does not appear in the equation for any input operand"
                )
    else:  # implicit: the letters used once, in alphabetical order
        counts = "".join(terms).replace("...", "")
        output = ellipsis + "".join(sorted(c for c in set(counts) if counts.count(c) == 1))
    return inputs, output


def _larger(a: int, b: int) -> int:
    return a if a >= b else b  # Python's max: in this module, `max` is the tensor op


def _letter_sizes(inputs: list[str], output: str, arrays: list) -> dict[str, int]:
    """Each letter's size; size 1 broadcasts against any other, as in PyTorch."""
    sizes: dict[str, int] = {}
    for k, (term, x) in enumerate(zip(inputs, arrays)):
        seen: dict[str, int] = {}
        for letter, n in zip(term, x.shape):
            if letter in seen and seen[letter] != n:
                raise RuntimeError(
                    f"einsum(): subscript {letter} is repeated for operand {k} but the sizes don't match, "
                    f"{n} != {seen[letter]}"
                )
            seen[letter] = n
            known = sizes.get(letter)
            if known is None or known == 1:
                sizes[letter] = n
            elif n != 1 and n != known:
                raise RuntimeError(
                    f"einsum(): subscript {letter} has size {n} for operand {k} which does not broadcast with "
                    f"previously seen size {known}"
                )
    return sizes


# norms ‖x‖ₚ ------------------------------------------------------------------------------------
class LinalgVectorNormBackward0(Node):
    """‖x‖ₚ over some dims. Where the norm is 0, the slope is taken as 0 (the
    subgradient PyTorch picks), so a zero vector gets gradient 0, not nan."""

    __slots__ = ()
    op = "norm"
    rules = (
        "∂‖a‖ₚ/∂a = sign(a)·|a|ᵖ⁻¹ / ‖a‖ₚᵖ⁻¹ (0 where ‖a‖ₚ = 0); p = 2: a/‖a‖; p = 1: sign(a); "
        "p = ∞: sign(a) shared among the entries where |a| = ‖a‖; p = 0: no gradient (None)",
    )

    def vjp(self, xp, g, a, norm):
        p, axes, keepdim = self.args
        if p == 0:
            # counting nonzeros is flat everywhere: as PyTorch does, send no gradient at
            # all, so x.grad stays None (not zeros) after backward
            return (None,)
        if not keepdim and axes:  # give g and the norm their reduced axes back, as size 1
            shape = tuple(1 if i in axes else n for i, n in enumerate(data(a).shape))
            g, norm = xp.reshape(g, shape), xp.reshape(norm, shape)
        sign = xp.sign(a)
        if p == 1:
            return (g * sign,)
        if p == 2:
            return (g * xp.where(norm == 0, 0.0, a / norm),)
        size = a * sign  # |a|
        if p in (np.inf, -np.inf):
            # the entries that reach the max (or min): they share the gradient equally
            hit = xp.where(size == norm, 1.0, 0.0)
            count = xp.sum(hit, axes or tuple(range(len(data(a).shape))), True)
            return (sign * hit * g / count,)
        if p < 1:  # |a|ᵖ⁻¹ is inf at a = 0, where sign(a) = 0: PyTorch takes 0 there
            scaled = xp.where(a == 0, 0.0, sign * size ** (p - 1))
            return (scaled * g * norm ** (1 - p),)
        scale = xp.where(norm == 0, 0.0, g / norm ** (p - 1))
        return (sign * size ** (p - 1) * scale,)


def vector_norm(x, ord: float = 2, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:  # noqa: A002
    """‖x‖ₚ = (Σ|xᵢ|ᵖ)^(1/p) over `dim` (all dims by default), as if x were flat:
    p = 2 is the length, 1 the sum of |xᵢ|, inf the largest |xᵢ|, -inf the
    smallest, 0 the number of nonzeros."""
    x = operand(x)
    if isinstance(ord, str):
        raise TypeError("linalg_vector_norm(): argument 'ord' (position 2) must be Number, not str")
    if dtype is not None:
        x = x.to(dtype)
    a = x._data
    if a.dtype.kind != "f":
        raise RuntimeError(
            f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got {_type_name(a)}"
        )
    axes = _axes(dim, a.ndim)
    p = float(ord)
    if (
        p in (np.inf, -np.inf)
        and a.size == 0
        or (p in (np.inf, -np.inf) and any(a.shape[i] == 0 for i in axes))
    ):
        which = "inf" if p > 0 else "-inf"
        empty = [i for i in axes if a.shape[i] == 0]
        if dim is None or not empty:
            raise RuntimeError(
                f"linalg.vector_norm cannot compute the {which} norm on an empty tensor because the "
                "operation does not have an identity"
            )
        raise RuntimeError(
            f"linalg.vector_norm cannot compute the {which} norm on the dimension {empty[0]}because this "
            "dimension is empty and the operation does not have an identity"
        )
    size = np.abs(a)
    axis = axes if a.ndim else None
    if p == 2:
        with np.errstate(**QUIET_NUMPY):  # a square above float32's range is inf, silently
            out = np.sqrt(np.sum(size * size, axis=axis, keepdims=keepdim))
    elif p == 1:
        out = np.sum(size, axis=axis, keepdims=keepdim)
    elif p == np.inf:
        out = np.max(size, axis=axis, keepdims=keepdim)
    elif p == -np.inf:
        out = np.min(size, axis=axis, keepdims=keepdim)
    elif p == 0:
        out = np.sum(size != 0, axis=axis, keepdims=keepdim).astype(a.dtype)
    else:
        with np.errstate(**QUIET_NUMPY):  # 0 ** -1 is inf, silently, as in PyTorch
            out = np.sum(size**p, axis=axis, keepdims=keepdim) ** (1 / p)
    out = np.asarray(out, dtype=a.dtype)
    return record(LinalgVectorNormBackward0, out, (x,), saved=(x, OUTPUT), args=(p, axes, keepdim))


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim: bool = False, *, dtype=None) -> Tensor:  # noqa: A002
    """A norm of the matrices in the last two dims (or `dim`): 'fro' is the
    vector 2-norm of all their entries; 1 and inf the largest column and row
    sums of |aᵢⱼ| (-1 and -inf the smallest); 'nuc' the sum of singular values."""
    A = operand(A)
    if dtype is not None:
        A = A.to(dtype)
    if A.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    if not isinstance(dim, (tuple, list)) or len(dim) != 2:
        shown = " ".join(map(str, dim)) if isinstance(dim, (tuple, list)) else dim
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {shown}")
    rows, cols = (_axes(d, A.ndim)[0] for d in dim)  # PyTorch's IndexError for a dim out of range
    if rows == cols:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, {dim[1]})")
    if ord == "fro":
        return vector_norm(A, 2, (rows, cols), keepdim)
    if ord in ("nuc", 2, -2):
        return _singular_value_norm(A, ord, rows, cols, keepdim)
    if ord in (1, -1, np.inf, -np.inf):
        # 1: the largest column sum (over rows); inf: the largest row sum (over columns)
        summed, across = (rows, cols) if ord in (1, -1) else (cols, rows)
        sums = sum(_abs(A), summed, keepdim=True)
        pick = max if ord > 0 else min
        out = pick(sums, across, keepdim=True).values
        if not keepdim:
            out = out.squeeze((rows, cols))
        return out
    raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")


class LinalgSvdBackward0(Node):
    """The singular values of A = U·diag(s)·Vᵀ: ∂sᵢ/∂A = uᵢ·vᵢᵀ (distinct values)."""

    __slots__ = ()
    op = "svdvals"
    rules = ("∂sᵢ/∂A = uᵢ·vᵢᵀ, so A's gradient is U·diag(g)·Vᵀ",)
    torch_name = "LinalgSvdBackward0 (torch.linalg.svdvals; matrix_norm 'nuc' is its SumBackward1)"

    def vjp(self, xp, g, u, vt):
        # A's gradient is U·diag(g)·Vᵀ; only for a plain backward (no second derivative)
        if xp is not numpy_math:
            raise RuntimeError("svdvals: create_graph=True (a second derivative) is not supported here")
        return (np.matmul(u * g[..., None, :], vt),)


def svdvals(A) -> Tensor:
    A = operand(A)
    if A._data.dtype.kind != "f":
        raise RuntimeError(
            f"linalg.svd: Expected a floating point or complex tensor as input. Got {_type_name(A._data)}"
        )
    if A.ndim < 2:
        raise RuntimeError("linalg.svd: The input tensor A must have at least 2 dimensions.")
    u, s, vt = np.linalg.svd(A._data, full_matrices=False)
    return record(LinalgSvdBackward0, s.astype(A._data.dtype, copy=False), (A,), saved=(u, vt))


def _singular_value_norm(A: Tensor, ord, rows: int, cols: int, keepdim: bool) -> Tensor:  # noqa: A002
    """'nuc': the sum of the singular values; 2: the largest; -2: the smallest."""
    others = [i for i in range(A.ndim) if i not in (rows, cols)]
    values = svdvals(A.permute(*others, rows, cols))
    if ord == "nuc":
        out = sum(values, -1)
    else:
        out = (max if ord == 2 else min)(values, -1).values
    if keepdim:
        for d in sorted((rows, cols)):
            out = out.unsqueeze(d)
    return out


def norm(input, p="fro", dim=None, keepdim: bool = False, dtype=None) -> Tensor:
    """torch.norm and Tensor.norm: p = 'fro' (the default) or a number is a
    vector norm over `dim` (all dims by default), 'nuc' a matrix norm."""
    x = operand(input)
    if p == "nuc":
        return matrix_norm(x, "nuc", (-2, -1) if dim is None else dim, keepdim, dtype=dtype)
    if p == "fro" or p is None:
        p = 2
    if isinstance(dim, int):
        dim = (dim,)
    return vector_norm(x, p, dim, keepdim, dtype=dtype)


# products and running sums of a tensor's entries: prod, cumsum -------------------------------------
#
# prod(x) = x₀·x₁·…: its slope for xᵢ is the product of all the others. Not out/xᵢ,
# which is 0/0 where xᵢ = 0: the product of the entries before i times the
# product of those after it (two running products) is exact even with zeros.


class ProdBackward0(Node):
    __slots__ = ()
    op = "prod"
    rules = ("∂(Πⱼ aⱼ)/∂aᵢ = Πⱼ≠ᵢ aⱼ (the product of the others; exact when some aⱼ = 0)",)

    def vjp(self, xp, g, a, out):
        axis, keepdim = self.args
        shape = data(a).shape
        if axis is None:  # the product of all entries: as one row
            flat = xp.reshape(a, (-1,))
            others = _product_of_others(xp, flat, 0, xp.reshape(out, (1,)))
            return (xp.reshape(g * others, shape),)
        if not keepdim and len(shape):
            g = xp.reshape(g, tuple(1 if i == axis else n for i, n in enumerate(shape)))
            out = xp.reshape(out, tuple(1 if i == axis else n for i, n in enumerate(shape)))
        return (g * _product_of_others(xp, a, axis, out),)


class ProdBackward1(ProdBackward0):
    """prod(x, dim): PyTorch's name when a dim is given."""

    __slots__ = ()


def _product_of_others(xp, a, axis: int, out):
    """For each entry, the product of the other entries along `axis`."""
    if xp is numpy_math:
        if np.all(a != 0):
            return out / a  # the quick way, when no entry is 0
        ones = np.ones_like(np.take(a, [0], axis=axis))
        before = np.cumprod(
            np.concatenate([ones, np.take(a, range(a.shape[axis] - 1), axis=axis)], axis), axis
        )
        flipped = np.flip(a, axis)
        after = np.cumprod(
            np.concatenate([ones, np.take(flipped, range(a.shape[axis] - 1), axis=axis)], axis), axis
        )
        return before * np.flip(after, axis)
    # create_graph: with no zero, out / a is recorded as it stands; with zeros, the
    # product of the others is written with recorded ops: a copy of the entries
    # along a new axis, 1 on the diagonal, and the product over the copies
    if not np.any(data(a) == 0):
        return out / a
    n = data(a).shape[axis]
    moved = xp.transpose(a, axis, -1) if axis != len(data(a).shape) - 1 else a
    copies = xp.expand(xp.reshape(moved, tuple(moved.shape) + (1,)), tuple(moved.shape) + (n,))
    leave_one_out = xp.where(np.eye(n, dtype=bool), 1.0, copies)
    others = prod(leave_one_out, -2)
    return xp.transpose(others, axis, -1) if axis != len(data(a).shape) - 1 else others


def prod(input, dim: int | None = None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """The product of all entries, or along one dim (an int: PyTorch takes one only)."""
    a = operand(input)
    if dtype is not None:
        a = a.to(dtype)
    if dim is not None and not isinstance(dim, (int, np.integer)):
        raise TypeError(
            f"prod() received an invalid combination of arguments - got ({type(dim).__name__}), but "
            "expected one of: (*, dtype) or (int dim, bool keepdim = False, *, dtype) (prod takes one dim)"
        )
    x = a._data
    if x.dtype.kind == "b":
        x = x.astype(np.int64)  # PyTorch: the product of bools is an int64
    if dim is None:
        with np.errstate(**QUIET_NUMPY):  # inf · 0 is nan, silently, as in PyTorch
            out = np.asarray(np.prod(x))
        return record(ProdBackward0, out, (a,), saved=(a, OUTPUT), args=(None, False))
    axis = _axes(dim, x.ndim)
    axis = axis[0] if axis else 0
    with np.errstate(**QUIET_NUMPY):
        out = np.prod(x, axis=axis, keepdims=keepdim) if x.ndim else x.copy()
    return record(
        ProdBackward1, np.asarray(out), (a,), saved=(a, OUTPUT), args=(axis if x.ndim else None, keepdim)
    )


class CumsumBackward0(Node):
    """cumsum(a)ᵢ = a₀ + … + aᵢ: entry aᵢ is in every running sum from i on."""

    __slots__ = ()
    op = "cumsum"
    rules = ("∂(cumsum(a)ⱼ)/∂aᵢ = 1 for j ≥ i: the gradient is g summed from the end (reversed cumsum)",)

    def vjp(self, xp, g):
        axis = self.args
        if len(g.shape) == 0:
            return (g,)
        # reverse along the axis (with a list of positions: PyTorch has no negative step), take the
        # running sums, and reverse back: entry i gets g[i] + g[i + 1] + ... + g[-1]
        reverse = (slice(None),) * axis + (np.arange(g.shape[axis] - 1, -1, -1),)
        running = np.cumsum if xp is numpy_math else cumsum
        return (xp.getitem(running(xp.getitem(g, reverse), axis), reverse),)


def cumsum(input, dim: int, *, dtype=None) -> Tensor:
    a = operand(input)
    if dtype is not None:
        a = a.to(dtype)
    x = a._data
    if x.dtype.kind == "b":
        x = x.astype(np.int64)  # PyTorch: running counts of bools are int64
    axis = _axes(dim, x.ndim)
    with np.errstate(**QUIET_NUMPY):  # inf + -inf is nan, silently, as in PyTorch
        out = np.cumsum(x, axis=axis[0]) if axis else x.copy()
    return record(CumsumBackward0, out, (a,), args=axis[0] if axis else 0)


# inverse, determinant, solve: torch.linalg.inv, det, solve ------------------------------------------


class LinAlgError(RuntimeError):
    """torch.linalg.LinAlgError: the matrix is singular (a RuntimeError, as in PyTorch)."""


def _square_float(op: str, A: Tensor) -> np.ndarray:
    x = A._data
    if x.ndim < 2:
        raise RuntimeError(f"linalg.{op}: The input tensor A must have at least 2 dimensions.")
    if x.shape[-1] != x.shape[-2]:
        raise RuntimeError(
            f"linalg.{op}: A must be batches of square matrices, but they are {x.shape[-2]} by {x.shape[-1]} matrices"
        )
    if x.dtype.kind != "f":
        raise RuntimeError(
            f"linalg.{op}: Expected a floating point or complex tensor as input. Got {_type_name(x)}"
        )
    return x


def _mT(xp, x):
    return xp.transpose(x, -1, -2)


class LinalgInvExBackward0(Node):
    __slots__ = ()
    op = "inv"
    rules = ("∂(A⁻¹)/∂A: g ↦ -A⁻ᵀ·g·A⁻ᵀ",)
    torch_name = None

    def vjp(self, xp, g, inverse):
        inverse_t = _mT(xp, inverse)
        return (-(inverse_t @ g @ inverse_t),)


def inv(A) -> Tensor:
    """A⁻¹, the matrix with A·A⁻¹ = I (for each matrix of a batch)."""
    A = operand(A)
    x = _square_float("inv", A)
    try:
        out = np.linalg.inv(x)
    except np.linalg.LinAlgError:
        raise LinAlgError(
            "linalg.inv: the inversion could not be completed because the input matrix is singular "
            f"(a matrix of shape {x.shape[-2:]} whose rows are linearly dependent has no inverse)"
        ) from None
    return record(LinalgInvExBackward0, out.astype(x.dtype, copy=False), (A,), saved=(OUTPUT,))


inverse = inv


class LinalgDetBackward0(Node):
    """∂det(A)/∂A is the cofactor matrix of A: det(A)·A⁻ᵀ when A is invertible.

    At a singular A that formula has no inverse to use, but the cofactors still
    exist: they are what finite differences measure (for A = [[1, 2], [2, 4]],
    [[4, -2], [-2, 1]]). They come from the SVD A = U·diag(s)·Vᵀ as
    det(U)·det(V)·U·diag(∏ⱼ≠ᵢ sⱼ)·Vᵀ, which is zero only where A has rank n − 2 or
    less. This differs from PyTorch 2.13 on purpose: its det backward gives
    zeros at an exactly singular A, and the cofactors at matrices as close to it
    as one likes (torch.linalg.det of [[1, 2], [2, 4.000001]]).
    Double backward (create_graph=True) at a singular A is not supported."""

    __slots__ = ()
    op = "det"
    rules = ("∂det(A)/∂A = det(A)·A⁻ᵀ, the cofactor matrix (from the SVD where A is singular)",)
    torch_name = None

    def vjp(self, xp, g, a, out):
        scale = xp.reshape(g * out, tuple(g.shape) + (1, 1))
        if xp is not numpy_math:
            try:
                inverse = inv(a)
            except LinAlgError:
                raise LinAlgError(
                    "linalg.det: double backward (create_graph=True) at a singular matrix is not "
                    "supported: its first derivative (the cofactor matrix) is computed from an SVD"
                ) from None
            return (scale * _mT(xp, inverse),)
        try:
            return (scale * _mT(xp, np.linalg.inv(a)),)
        except np.linalg.LinAlgError:  # some matrix of the batch is singular
            return (xp.reshape(g, tuple(g.shape) + (1, 1)) * _cofactors(a),)


def _cofactors(a: np.ndarray) -> np.ndarray:
    """The cofactor matrix of each matrix of `a` (any rank), from its SVD."""
    u, s, vt = np.linalg.svd(a.astype(np.float64))
    n = s.shape[-1]
    # ∏ⱼ≠ᵢ sⱼ for each i, without dividing by an sᵢ that may be 0
    others = np.stack([np.prod(np.delete(s, i, axis=-1), axis=-1) for i in range(n)], axis=-1)
    sign = np.linalg.det(u) * np.linalg.det(vt)  # ±1: U and V are orthogonal
    cofactors = sign[..., None, None] * (u * others[..., None, :]) @ vt
    return cofactors.astype(a.dtype)


def det(A) -> Tensor:
    """The determinant: the factor by which A scales volumes. Its gradient at a
    singular matrix is the cofactor matrix, where PyTorch gives zeros (see
    LinalgDetBackward0)."""
    A = operand(A)
    x = _square_float("det", A)
    out = np.asarray(np.linalg.det(x)).astype(x.dtype, copy=False)
    return record(LinalgDetBackward0, out, (A,), saved=(A, OUTPUT))


class LinalgSolveExBackward0(Node):
    """X = solve(A, B), so A·X = B: B's gradient solves Aᵀ·G = g, and A's is -G·Xᵀ."""

    __slots__ = ()
    op = "solve"
    rules = ("∂/∂A: g ↦ -G·Xᵀ, with Aᵀ·G = g", "∂/∂B: g ↦ G, with Aᵀ·G = g")
    torch_name = None

    def vjp(self, xp, g, a, out):
        vector = self.args
        if vector:  # B was a vector: as a one-column matrix
            g, out = xp.reshape(g, tuple(g.shape) + (1,)), xp.reshape(out, tuple(out.shape) + (1,))
        gb = (np.linalg.solve if xp is numpy_math else solve)(_mT(xp, a), g)
        ga = -(gb @ _mT(xp, out)) if self.needs(0) else None
        if vector:
            gb = xp.reshape(gb, tuple(gb.shape)[:-1])
        return ga, gb


def solve(A, B) -> Tensor:
    """X with A·X = B, without forming A⁻¹ (a vector B gives a vector X)."""
    A, B = operand(A), operand(B)
    x = _square_float("solve", A)
    b = B._data
    vector = b.ndim == 1 or (b.ndim == x.ndim - 1 and b.shape == x.shape[:-1])
    rows = b.shape[-1] if vector else (b.shape[-2] if b.ndim >= 2 else None)
    if rows != x.shape[-1]:
        shown = f"{b.shape[-1]}x1" if b.ndim == 1 else "x".join(map(str, b.shape[-2:]))
        raise RuntimeError(
            f"linalg.solve: Incompatible shapes of A and B for the equation AX = B "
            f"({x.shape[-2]}x{x.shape[-1]} and {shown})"
        )
    if b.dtype != x.dtype:
        raise RuntimeError(
            f"linalg.solve: Expected A and B to have the same dtype, but found A of type {_type_name(x)} and B of type {_type_name(b)} instead"
        )
    try:
        out = np.linalg.solve(x, b[..., None] if vector else b)
    except np.linalg.LinAlgError:
        raise LinAlgError(
            "torch.linalg.solve: The solver failed because the input matrix is singular."
        ) from None
    if vector:
        out = out[..., 0]
    return record(
        LinalgSolveExBackward0, out.astype(x.dtype, copy=False), (A, B), saved=(A, OUTPUT), args=vector
    )
