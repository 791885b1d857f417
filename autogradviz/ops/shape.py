"""Shape ops and indexing: they move values around without changing them, so
each backward moves the gradient back to where the value came from."""

from __future__ import annotations

import warnings

import numpy as np

from ..core import views
from ..core.graph import Node
from ..core.record import record
from ..core.tensor import Tensor
from ..core.views import make_view, view_of
from ._operands import binary, operand, torch_float


def _shape_args(shape, op: str = "reshape") -> tuple[int, ...]:
    """reshape(2, 3), reshape((2, 3)) and reshape([2, 3]) all mean the same.
    Sizes must be ints (or 0-d integer tensors), as in PyTorch: int(2.5)
    would quietly give a shape nobody asked for."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = shape[0]
    for position, n in enumerate(shape):
        if isinstance(n, bool) or not isinstance(n, (int, np.integer, Tensor)):
            raise TypeError(
                f"{op}(): argument 'shape' must be a tuple of ints, but found element of type "
                f"{type(n).__name__} at pos {position}"
            )
    return tuple(map(int, shape))  # map: twice as fast as a generator, on a hot path


def _shares_memory(out: np.ndarray, source: np.ndarray) -> bool:
    """Did numpy return a view of `source` (rather than a copy)? A copy is a
    fresh array: it shares no memory with anything, and must not be linked to
    `source` as a view. The `.base` tests answer the common cases quickly."""
    base = out.base
    if base is None:
        return False
    return base is source or base is source.base or np.may_share_memory(out, source)


def _dim(dim: int, ndim: int, op: str | None = None) -> int:
    """A dim in range(ndim), with negative dims counted from the end; PyTorch's
    IndexError otherwise (after "op: " when `op` is given). A 0-d tensor accepts
    dims 0 and -1, as in PyTorch."""
    if -ndim <= dim < ndim:
        return dim % ndim
    ndim = max(ndim, 1)
    if not -ndim <= dim < ndim:
        prefix = f"{op}: " if op else ""
        raise IndexError(
            f"{prefix}Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {dim})"
        )
    return dim % ndim


# reshape / view / flatten / squeeze / unsqueeze ------------------------------------------
class ViewBackward0(Node):
    __slots__ = ()
    op, rules = "reshape", ("same values, original shape: g.reshape(a.shape)",)
    torch_name = "ViewBackward0; for t() of a 0-D or 1-D tensor: TBackward0"

    def vjp(self, xp, g):
        return (xp.reshape(g, self.args),)


class SqueezeBackward0(ViewBackward0):
    """squeeze(): PyTorch's name; the gradient is reshaped back like any view."""

    __slots__ = ()
    op = "squeeze"
    torch_name = None  # PyTorch's own name (ViewBackward0's note is not about squeeze)


class SqueezeBackward1(SqueezeBackward0):
    __slots__ = ()
    torch_name = "SqueezeBackward1; for a tuple of dims: SqueezeBackward2"


class UnsqueezeBackward0(ViewBackward0):
    __slots__ = ()
    op = "unsqueeze"
    torch_name = None


class UnsafeViewBackward0(ViewBackward0):
    """reshape() that had to copy (after a transpose, say): PyTorch's name."""

    __slots__ = ()
    torch_name = None


def reshape(a, *shape):
    """The same values in a new shape: a view of `a` when numpy can lay the new
    shape over the same memory, else a copy (as in PyTorch)."""
    a = operand(a)
    return _reshape(a, _shape_args(shape), ViewBackward0)


def _reshape(a: Tensor, shape: tuple, node: type[Node]) -> Tensor:
    try:
        out = a._data.reshape(shape)
    except ValueError:
        raise RuntimeError(
            f"reshape: shape {shape} is invalid for input of shape {a.shape} ({a._data.size} elements)"
        ) from None
    if out.base is a._data or _shares_memory(out, a._data):
        return make_view(record(node, out, (a,), args=a.shape), a, (_reshape, out.shape, node))
    # a copy: independent of `a`, with a version counter of its own
    return record(UnsafeViewBackward0 if node is ViewBackward0 else node, out, (a,), args=a.shape)


def view(a, *shape):
    """Like reshape, but never copies: PyTorch refuses a view() that the
    memory layout can't give (after a transpose, say), so we do too."""
    a = operand(a)
    shape = _shape_args(shape, "view")
    out = _reshape(a, shape, ViewBackward0)
    if view_of(out) is None and out._data.size:  # reshape had to copy
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
        )
    return out


def flatten(a, start_dim: int = 0, end_dim: int = -1):
    a = operand(a)
    start, end = _dim(start_dim, a.ndim), _dim(end_dim, a.ndim)  # PyTorch's IndexError when out of range
    if a.ndim == 0:
        return reshape(a, 1)
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    # the merged size is the product of the merged dims, not -1: with a size-0 dim
    # elsewhere, -1 can't be inferred (flatten(1, 1) of shape (0, 3) is (0, 3), as in PyTorch)
    merged = int(np.prod(a.shape[start : end + 1], dtype=np.int64))
    return reshape(a, a.shape[:start] + (merged,) + a.shape[end + 1 :])


def squeeze(a, dim=None):
    a = operand(a)
    if dim is None:
        shape = tuple(n for n in a.shape if n != 1)
        return _reshape(a, shape, SqueezeBackward0)
    dims = [_dim(d, a.ndim) for d in ((dim,) if isinstance(dim, int) else dim)]
    for d in dims:
        if dims.count(d) > 1:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    shape = tuple(n for i, n in enumerate(a.shape) if not (i in dims and n == 1))
    return _reshape(a, shape, SqueezeBackward1)


def unsqueeze(a, dim: int):
    a = operand(a)
    if not -a.ndim - 1 <= dim <= a.ndim:
        raise IndexError(
            f"unsqueeze: dimension out of range (expected to be in range of [{-a.ndim - 1}, {a.ndim}], but got {dim})"
        )
    dim = dim % (a.ndim + 1)
    return _reshape(a, a.shape[:dim] + (1,) + a.shape[dim:], UnsqueezeBackward0)


# transpose / permute ------------------------------------------------------------------------
class PermuteBackward0(Node):
    __slots__ = ()
    op, rules = "permute", ("put the axes back: g.permute(inverse order)",)

    def vjp(self, xp, g):
        return (xp.permute(g, tuple(np.argsort(self.args))),)


def permute(a, *dims):
    a = operand(a)
    dims = _shape_args(dims, "permute")
    if sorted(d % max(a.ndim, 1) for d in dims) != list(range(a.ndim)):
        raise RuntimeError(
            f"permute: dims {dims} are not a permutation of the {a.ndim} dims of shape {a.shape}"
        )
    dims = tuple(d % a.ndim for d in dims)
    return make_view(record(PermuteBackward0, a._data.transpose(dims), (a,), args=dims), a, (permute, dims))


class TransposeBackward0(Node):
    __slots__ = ()
    op, rules = "transpose", ("swap the same two axes back: g.transpose(d0, d1)",)

    def vjp(self, xp, g):
        return (xp.transpose(g, *self.args),)


class TBackward0(TransposeBackward0):
    """t(): PyTorch's name for the transpose of a matrix."""

    __slots__ = ()
    op = "t"


def transpose(a, dim0: int, dim1: int, node=TransposeBackward0):
    a = operand(a)
    if a.ndim == 0:  # dims 0 and -1 only, as in PyTorch; the transpose is the tensor itself
        _dim(dim0, 0), _dim(dim1, 0)
        return make_view(record(node, a._data, (a,), args=(0, 0)), a, (transpose, 0, 0, node))
    dim0, dim1 = _dim(dim0, a.ndim), _dim(dim1, a.ndim)
    out = np.swapaxes(a._data, dim0, dim1)
    return make_view(record(node, out, (a,), args=(dim0, dim1)), a, (transpose, dim0, dim1, node))


swapaxes = transpose


def t(a):
    """Transpose a matrix (a 0-D or 1-D tensor is returned as it is)."""
    a = operand(a)
    if a.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {a.ndim}D")
    return transpose(a, 0, 1, node=TBackward0) if a.ndim == 2 else _reshape(a, a.shape, ViewBackward0)


# expand -----------------------------------------------------------------------------------
class ExpandBackward0(Node):
    __slots__ = ()
    op, broadcasts = "expand", True
    rules = ("sum g over the expanded axes",)

    def vjp(self, xp, g):
        return (g,)  # the engine's sum_to does the summing


def expand(a, *sizes):
    a = operand(a)
    sizes = _shape_args(sizes, "expand")
    lead = len(sizes) - a.ndim
    if lead < 0:
        raise RuntimeError(
            f"expand: the number of sizes provided ({len(sizes)}) must be greater or equal to the "
            f"number of dimensions in the tensor ({a.ndim})"
        )
    target = tuple(a.shape[i - lead] if n == -1 and i >= lead else n for i, n in enumerate(sizes))
    try:
        out = np.broadcast_to(a._data, target)
    except ValueError:
        for i, n in enumerate(a.shape):
            if n != 1 and n != target[i + lead]:
                raise RuntimeError(
                    f"expand: the expanded size of the tensor ({target[i + lead]}) must match the "
                    f"existing size ({n}) at non-singleton dimension {i + lead}. "
                    f"Target sizes: {target}. Tensor sizes: {a.shape}"
                ) from None
        raise
    # numpy makes the expanded view read-only: many elements share one memory
    # location, so writing into it has no single meaning
    return make_view(record(ExpandBackward0, out, (a,)), a, (expand, target))


broadcast_to = expand


# indexing ----------------------------------------------------------------------------------
def to_index(index):
    """Tensors and lists inside an index become numpy arrays; a 0-d integer
    tensor counts as an int, as in PyTorch."""
    if isinstance(index, tuple):
        return tuple(to_index(i) for i in index)
    if isinstance(index, Tensor):
        array = index._data
        return int(array) if array.ndim == 0 and array.dtype.kind in "iu" else array
    if isinstance(index, list):
        array = np.asarray([i._data if isinstance(i, Tensor) else i for i in index])
        # numpy makes [] a float array, which it refuses as an index; PyTorch reads it as
        # an empty list of positions: x[[]] picks nothing
        return array.astype(np.int64) if array.size == 0 and array.dtype.kind == "f" else array
    if isinstance(index, slice) and index.step is not None and index.step < 0:
        # numpy would reverse; PyTorch refuses, since its views can't have negative strides
        raise ValueError(
            f"index: step must be greater than zero, but got {index.step} in {_slice_text(index)}. "
            "To reverse, index with a list of positions: x[agv.arange(n - 1, -1, -1)]"
        )
    return index


def _slice_text(s: slice) -> str:
    """The slice as the learner wrote it: slice(None, None, -1) is ::-1."""
    return ":".join("" if v is None else str(v) for v in (s.start, s.stop, s.step))


def index_steps(index) -> tuple:
    """The index as one or two steps that numpy takes PyTorch's way.

    PyTorch applies the ints of an index first, each picking one position and
    dropping its axis, and only then the lists and tensors. numpy counts such
    ints as arrays too, which can move axes: for x of shape (2, 3, 4),
    x[1, :, [0, 2]] has shape (3, 2) in PyTorch but (2, 3) in numpy. So an index
    with both is split into (the ints, the rest)."""
    parts = index if isinstance(index, tuple) else (index,)
    is_int = [isinstance(p, (int, np.integer)) and not isinstance(p, bool) for p in parts]
    if not (any(is_int) and any(isinstance(p, np.ndarray) for p in parts)):
        return (index,)
    ints, rest = [], []
    for p, integer in zip(parts, is_int):
        if integer:
            ints.append(p)
        elif p is None:
            rest.append(p)
        else:  # Ellipsis, a slice or an array: it keeps its axes for the second step
            n_axes = p.ndim if isinstance(p, np.ndarray) and p.dtype == bool else 1
            ints.extend([p] if p is Ellipsis else [slice(None)] * n_axes)
            rest.append(p)
    return tuple(ints), tuple(rest)


def _is_basic(index) -> bool:
    parts = index if isinstance(index, tuple) else (index,)
    return all(p is None or p is Ellipsis or isinstance(p, (int, slice, np.integer)) for p in parts)


class SliceBackward0(Node):
    """x[a:b]: a view. Its backward puts g back where the values were read."""

    __slots__ = ()
    op, rules = "[ ]", ("g goes back to the positions read",)

    def vjp(self, xp, g):
        shape, index = self.args
        return (xp.index_into_zeros(g, shape, index),)


class SelectBackward0(SliceBackward0):
    """x[i]: PyTorch's name when an int picks one position."""

    __slots__ = ()


class AliasBackward0(SliceBackward0):
    """x[...], x[None]: a view that picks every value."""

    __slots__ = ()
    torch_name = (
        "AliasBackward0 for x[...]; for an index ending in None (x[None], x[:, None]): UnsqueezeBackward0"
    )


class IndexBackward0(Node):
    """x[idx] with a list, an array, a mask or an index tensor: a copy, not a view.

    The index is a saved value, not a parameter: backward frees it (so a second
    backward raises, as in PyTorch). An index tensor is saved too (it is not an
    input: it gets no gradient), so its version counter is checked: changing it
    in place before backward raises instead of sending the gradient to the
    wrong positions."""

    __slots__ = ()
    op, rules = "[ ]", ("g goes back to the positions read; repeated positions add up",)

    def vjp(self, xp, g, index, *index_tensors):
        return (xp.index_into_zeros(g, self.args, index),)


def getitem(a, index):
    a = operand(a)
    steps = index_steps(to_index(index))
    if len(steps) == 2:  # x[1, :, [0, 2]] is x[1][:, [0, 2]]
        return _index(getitem(a, steps[0]), steps[1], index)
    return _index(a, steps[0], index)


def _index(a: Tensor, index, given):
    """a[index], `index` converted by to_index; `given` is the index as the
    learner wrote it, to find the tensors in it."""
    try:
        out = a._data[index]
    except IndexError as error:
        # a tensor with no elements: PyTorch checks list positions only as it reads them,
        # and reads none, so zeros((0, 2))[:, [5]] is an empty (0, 1). Positions clipped
        # into range give that shape (and a backward that reads nothing either)
        if a._data.size != 0:
            raise IndexError(f"index: {error} (the tensor has shape {a.shape})") from None
        index = _clipped(index, a.shape)
        try:
            out = a._data[index]
        except IndexError:
            raise IndexError(f"index: {error} (the tensor has shape {a.shape})") from None
    basic = _is_basic(index)
    if type(out) is not np.ndarray:  # numpy returns a copy as a scalar for x[0] of a vector
        out = _zero_d_view(a._data, index) if basic else np.asarray(out)
    elif not basic and not out.flags.c_contiguous:
        # numpy may lay a copy out in another order (x[:, [1, 0]] comes back column-major);
        # PyTorch's copies are contiguous, so view() of them works: lay ours out the same
        out = np.ascontiguousarray(out)
    if basic:  # ints and slices: numpy returns a view, as PyTorch does
        node = _basic_index_node(index)
        return make_view(record(node, out, (a,), args=(a.shape, index)), a, (getitem, index))
    if not a._requires_grad:
        return record(IndexBackward0, out, (a,))
    index, tensors = frozen_index(index, given)
    return record(IndexBackward0, out, (a,), saved=(index, *tensors), args=a.shape)


def _clipped(index, shape: tuple):
    """The index with each array of positions clipped into its dim's range. A dim of
    size 0 is left as it is, so that indexing it still raises, as in PyTorch."""
    parts = index if isinstance(index, tuple) else (index,)

    def n_axes(p) -> int:  # how many of the tensor's dims an index part uses
        if isinstance(p, np.ndarray):
            return p.ndim if p.dtype == bool else 1
        return 0 if p is None or p is Ellipsis else 1

    dim, out = 0, []
    for i, p in enumerate(parts):
        if p is Ellipsis:  # it covers the dims the parts after it leave
            dim = len(shape) - sum(n_axes(q) for q in parts[i + 1 :])
        elif isinstance(p, np.ndarray) and p.dtype.kind in "iu" and dim < len(shape) and shape[dim]:
            p = np.clip(p, -shape[dim], shape[dim] - 1)
        out.append(p)
        dim += n_axes(p)
    return tuple(out) if isinstance(index, tuple) else out[0]


def _zero_d_view(array: np.ndarray, index) -> np.ndarray:
    """x[0] of a vector as a 0-d view, not a copy, so that x[0].add_(1) changes x:
    numpy returns a view when the index ends with an Ellipsis (which here
    covers no axis, so it may move to the end)."""
    parts = index if isinstance(index, tuple) else (index,)
    return array[tuple(p for p in parts if p is not Ellipsis) + (Ellipsis,)]


def frozen_index(index, given) -> tuple:
    """The index as backward will use it, and the index tensors to watch.

    An array that came from an index tensor is kept as it is: the tensor is
    returned, to be saved, so that changing it in place is caught. A numpy
    array the learner passed is copied: they may change it after the forward
    pass, and backward must still use the positions read then. (An array made
    here from a list belongs to nobody else: it is kept as it is.)"""
    if not isinstance(index, tuple):  # one int, slice or array: the common case
        if type(index) is not np.ndarray:
            return index, ()
        if isinstance(given, Tensor):
            return index, (given,)
        return (index.copy() if index is given else index), ()
    given_parts = given if isinstance(given, tuple) else (given,)
    kept, watched = [], []
    for p in index:
        if isinstance(p, np.ndarray):
            source = next((t for t in given_parts if isinstance(t, Tensor) and t._data is p), None)
            if source is not None:
                watched.append(source)
            elif any(p is q for q in given_parts):
                p = p.copy()
        kept.append(p)
    return tuple(kept), tuple(watched)


def _basic_index_node(index) -> type[SliceBackward0]:
    parts = [p for p in (index if isinstance(index, tuple) else (index,)) if p is not Ellipsis]
    if parts and isinstance(parts[-1], (int, np.integer)):
        return SelectBackward0
    if parts and isinstance(parts[-1], slice):
        return SliceBackward0
    return AliasBackward0


class IndexIntoZerosBackward0(Node):
    """Only recorded by create_graph: the backward of indexing, differentiated again."""

    __slots__ = ()
    op, rules = "index_into_zeros", ("read g back at the same positions",)
    torch_name = (
        "— (autogradviz only: the create_graph backward of indexing, embedding and nll_loss, where "
        "PyTorch records e.g. SliceBackwardBackward0, IndexPutImplBackward0)"
    )

    def vjp(self, xp, g):
        _, index = self.args
        return (xp.getitem(g, index),)


def index_into_zeros(g, shape, index):
    g = operand(g)
    out = np.zeros(shape, dtype=g._data.dtype)
    np.add.at(out, index, g._data)
    return record(IndexIntoZerosBackward0, out, (g,), args=(shape, index))


# cat, stack, add_n ----------------------------------------------------------------------
class CatBackward0(Node):
    __slots__ = ()
    op, rules = "cat", ("each input gets its own slice of g",)

    def vjp(self, xp, g):
        axis, bounds = self.args
        before = (slice(None),) * axis
        return tuple(xp.getitem(g, before + (slice(lo, hi),)) for lo, hi in bounds)


def cat(tensors, dim: int = 0):
    tensors = [operand(t) for t in tensors]
    if not tensors:
        raise RuntimeError("cat: expected a non-empty list of tensors")
    ndim = tensors[0].ndim
    if ndim == 0:
        raise RuntimeError("cat: zero-dimensional tensor cannot be concatenated")
    axis = _dim(dim, ndim, "cat")  # dim % ndim would quietly wrap an out-of-range dim
    try:
        out = torch_float(np.concatenate([t._data for t in tensors], axis=axis), *tensors)
    except ValueError:
        shapes = ", ".join(str(t.shape) for t in tensors)
        raise RuntimeError(
            f"cat: expected tensors to have the same shape except in dimension {axis}, but got {shapes}"
        ) from None
    ends = np.cumsum([t.shape[axis] for t in tensors]).tolist()
    bounds = tuple(zip([0] + ends[:-1], ends))
    return record(CatBackward0, out, tensors, args=(axis, bounds))


concat = cat


class StackBackward0(Node):
    __slots__ = ()
    op, rules = "stack", ("input i gets g[i] along the new axis",)

    def vjp(self, xp, g):
        axis, n = self.args
        before = (slice(None),) * axis
        return tuple(xp.getitem(g, before + (i,)) for i in range(n))


def stack(tensors, dim: int = 0):
    tensors = [operand(t) for t in tensors]
    if not tensors:
        raise RuntimeError("stack: expected a non-empty list of tensors")
    # the new dim may go after the last one: range(ndim + 1), as in PyTorch
    axis = _dim(dim, tensors[0].ndim + 1, "stack")
    try:
        out = torch_float(np.stack([t._data for t in tensors], axis=axis), *tensors)
    except ValueError:
        shapes = ", ".join(str(t.shape) for t in tensors)
        raise RuntimeError(f"stack: expected each tensor to be of equal size, but got {shapes}") from None
    return record(StackBackward0, out, tensors, args=(axis, len(tensors)))


class AddNBackward0(Node):
    __slots__ = ()
    elementwise = True
    op, broadcasts = "add_n", True
    rules = ("∂(a₁+…+aₙ)/∂aᵢ = 1",)
    torch_name = "— (autogradviz only: Paddle's add_n; PyTorch has none, and a + b + c records AddBackward0s)"

    def vjp(self, xp, g):
        return (g,) * self.args


def add_n(inputs):
    """Paddle's sum of a list of tensors."""
    if isinstance(inputs, Tensor):
        inputs = [inputs]
    inputs = [operand(t) for t in inputs]
    if not inputs:
        raise RuntimeError("add_n: expected a non-empty list of tensors")
    out = inputs[0]._data
    for t in inputs[1:]:
        out = binary("add_n", np.add, out, t)
    if len(inputs) == 1:
        out = out.copy()
    return record(AddNBackward0, out, inputs, args=len(inputs))


# meshgrid ---------------------------------------------------------------------------------
def meshgrid(*tensors, indexing: str | None = None) -> tuple[Tensor, ...]:
    """Grids of coordinates: for vectors x (n values) and y (m values), two (n, m)
    tensors X[i, j] = x[i] and Y[i, j] = y[j] (indexing="ij"); "xy" gives (m, n)
    grids instead, the layout of a plot's x and y axes. Each grid is a view of its
    vector, reshaped and expanded (a ViewBackward0 under an ExpandBackward0, as in
    PyTorch), so its gradient sums back into the vector."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn(
            "torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
            UserWarning,
            stacklevel=2,
        )
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    tensors = [operand(t) for t in tensors]
    for t in tensors:
        if t.ndim > 1:
            raise RuntimeError(
                f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got a tensor of shape {t.shape}"
            )
    if len({t._data.dtype for t in tensors}) > 1:
        raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    sizes = [t._data.size for t in tensors]
    axes = list(range(len(tensors)))
    if indexing == "xy" and len(tensors) >= 2:  # the first two swap places: x runs along the columns
        axes[0], axes[1] = 1, 0
    shape = [0] * len(tensors)
    for axis, n in zip(axes, sizes):
        shape[axis] = n
    grids = []
    for t, axis in zip(tensors, axes):
        column = [1] * len(tensors)
        column[axis] = -1
        grids.append(expand(reshape(t, tuple(column)), tuple(shape)))
    return tuple(grids)


# narrow, select, split, chunk, unbind: views of one part of a tensor ------------------------
# Each result is x[index] for an index of ints and slices, so it shares x's memory and its
# backward is indexing's: g goes back to the positions read. Only the node's name differs,
# as in PyTorch. (PyTorch gives all the pieces of one split a single node with one output
# per piece; here each piece has a node of its own, of the same class: the gradients add up
# the same way.)
class SplitBackward0(SliceBackward0):
    """A piece of split(x, n) or chunk(x, k)."""

    __slots__ = ()
    op = "split"


class SplitWithSizesBackward0(SliceBackward0):
    """A piece of split(x, [sizes])."""

    __slots__ = ()
    op = "split"


class UnbindBackward0(SliceBackward0):
    """One of the slices unbind(x, dim) returns: x.select(dim, i) for each i."""

    __slots__ = ()
    op = "unbind"


def _view_at(a: Tensor, index: tuple, node: type[SliceBackward0], output: int = 0) -> Tensor:
    """a[index] for an index of ints and slices, as a view recorded as `node`; `output`
    is the piece's position among the pieces one split or unbind returned."""
    out = a._data[index]
    if type(out) is not np.ndarray:  # an int picked the last dim's only axis: numpy gave a scalar
        out = _zero_d_view(a._data, index)
    return make_view(record(node, out, (a,), args=(a.shape, index)), a, (_view_at, index, node, output))


MULTI_OUTPUT_VIEWS = (SplitBackward0, SplitWithSizesBackward0, UnbindBackward0)


def refuse_multi_output_view(t: Tensor) -> None:
    """PyTorch's error for an in-place change, recorded by autograd, of a piece of split(),
    chunk() or unbind(), or of a view of such a piece: PyTorch computes the gradients of all
    the pieces in one node, which an in-place change of one of them cannot rebase."""
    for view in views.view_chain(t)[:-1]:
        op, *args = view_of(view).replay
        if op is _view_at and args[1] in MULTI_OUTPUT_VIEWS:
            replay = view_of(t).replay
            output = replay[3] if replay[0] is _view_at else 0
            name = type(t.grad_fn).__name__ if t.grad_fn is not None else args[1].__name__
            raise RuntimeError(
                f"Output {output} of {name.split('Backward')[0]} is a view and is being modified inplace. "
                "This view is the output of a function that returns multiple views. Such functions do not "
                "allow the output views to be modified inplace. You should replace the inplace operation "
                "by an out-of-place one."
            )


def _int_argument(value, op: str, name: str, position: int) -> int:
    """An int argument, or a 0-d integer tensor; PyTorch's TypeError for anything else."""
    if isinstance(value, Tensor) and value.ndim == 0 and value._data.dtype.kind in "iu":
        return int(value._data)
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(
            f"{op}(): argument '{name}' (position {position}) must be int, not {type(value).__name__}"
        )
    return int(value)


def _along(dim: int, part) -> tuple:
    """The index that applies `part` (an int or a slice) to axis `dim` only."""
    return (slice(None),) * dim + (part,)


def narrow(a, dim: int, start: int, length: int) -> Tensor:
    """The `length` entries from `start` along `dim`: x[:, start:start + length] for dim=1.
    A view, recorded as the slice it is (SliceBackward0, as in PyTorch)."""
    a = operand(a)
    arguments = (dim, start, length)
    if any(isinstance(v, bool) or not isinstance(v, (int, np.integer, Tensor)) for v in arguments):
        got = ", ".join(type(v).__name__ for v in arguments)
        raise TypeError(
            f"narrow() received an invalid combination of arguments - got ({got}), but expected "
            "(int dim, int start, int length)"
        )
    dim, start, length = (
        _int_argument(v, "narrow", n, i)
        for i, (v, n) in enumerate(zip(arguments, "dim start length".split()))
    )
    if a.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    dim = _dim(dim, a.ndim)
    size = a.shape[dim]
    if not -size <= start <= size:
        raise IndexError(
            f"start out of range (expected to be in range of [{-size}, {size}], but got {start})"
        )
    start = start + size if start < 0 else start
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return _view_at(a, _along(dim, slice(start, start + length)), SliceBackward0)


def select(a, dim: int, index: int) -> Tensor:
    """The entries at position `index` along `dim`, that dim removed: x[:, index] for dim=1."""
    a = operand(a)
    dim, index = _int_argument(dim, "select", "dim", 1), _int_argument(index, "select", "index", 2)
    if a.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    dim = _dim(dim, a.ndim)
    size = a.shape[dim]
    if not -size <= index < size:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size {list(a.shape)} at dimension {dim}"
        )
    return _view_at(a, _along(dim, index % size), SelectBackward0)


def split(a, split_size_or_sections, dim: int = 0) -> tuple[Tensor, ...]:
    """Cut `a` along `dim` into pieces: of `split_size` entries each (the last one may be
    shorter), or of the sizes a list gives. Each piece is a view of `a`."""
    a = operand(a)
    if isinstance(split_size_or_sections, (list, tuple)):
        return _split_with_sizes(a, split_size_or_sections, dim)
    if isinstance(split_size_or_sections, Tensor) and split_size_or_sections.ndim == 1:
        return _split_with_sizes(a, split_size_or_sections.tolist(), dim)
    if isinstance(split_size_or_sections, bool) or not isinstance(
        split_size_or_sections, (int, np.integer, Tensor)
    ):
        raise TypeError(
            "split_with_sizes(): argument 'split_sizes' (position 2) must be tuple of ints, not "
            f"{type(split_size_or_sections).__name__}"
        )
    split_size = _int_argument(split_size_or_sections, "split", "split_size", 1)
    dim = _int_argument(dim, "split", "dim", 2)
    if a.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    if split_size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={split_size}")
    dim = _dim(dim, a.ndim)
    size = a.shape[dim]
    if split_size == 0 and size != 0:
        raise RuntimeError(
            f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}"
        )
    if size == 0:  # one empty piece, as in PyTorch
        return (_view_at(a, _along(dim, slice(0, 0)), SplitBackward0),)
    return tuple(
        _view_at(a, _along(dim, slice(start, min(start + split_size, size))), SplitBackward0, output)
        for output, start in enumerate(range(0, size, split_size))
    )


def _split_with_sizes(a: Tensor, sizes, dim, node: type[SliceBackward0] = SplitWithSizesBackward0):
    for position, n in enumerate(sizes):
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
            raise TypeError(
                "split_with_sizes(): argument 'split_sizes' (position 2) must be tuple of ints, but found "
                f"element of type {type(n).__name__} at pos {position}"
            )
    sizes = [int(n) for n in sizes]
    given_dim = dim = _int_argument(dim, "split", "dim", 2)
    if a.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    dim = _dim(dim, a.ndim)
    if any(n < 0 for n in sizes):
        raise RuntimeError(
            f"split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes={sizes}"
        )
    if sum(sizes) != a.shape[dim]:
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {a.shape[dim]} (input tensor's size at "
            f"dimension {given_dim}), but got split_sizes={sizes}"
        )
    ends = np.cumsum(sizes).tolist()
    starts = [0] + ends[:-1]
    return tuple(
        _view_at(a, _along(dim, slice(lo, hi)), node, output)
        for output, (lo, hi) in enumerate(zip(starts, ends))
    )


def chunk(a, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    """Cut `a` along `dim` into at most `chunks` pieces of equal size, ceil(size / chunks)
    (the last may be smaller, and there may be fewer pieces): split with that size."""
    a = operand(a)
    chunks = _int_argument(chunks, "chunk", "chunks", 1)
    dim = _int_argument(dim, "chunk", "dim", 2)
    if a.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    size = a.shape[_dim(dim, a.ndim)]
    if size == 0:  # `chunks` empty pieces, as in PyTorch
        return _split_with_sizes(a, [0] * chunks, dim)
    return split(a, -(-size // chunks), dim)


def unbind(a, dim: int = 0) -> tuple[Tensor, ...]:
    """The slices of `a` along `dim`, that dim removed: (x[0], x[1], ...) for dim=0."""
    a = operand(a)
    dim = _int_argument(dim, "unbind", "dim", 1)
    if a.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    dim = _dim(dim, a.ndim)
    return tuple(_view_at(a, _along(dim, i), UnbindBackward0, i) for i in range(a.shape[dim]))


# flip ----------------------------------------------------------------------------------------
class FlipBackward0(Node):
    __slots__ = ()
    op, rules = "flip", ("flip g back along the same dims",)

    def vjp(self, xp, g):
        return (xp.flip(g, self.args),)


def flip(a, dims) -> Tensor:
    """The entries in reverse order along each of `dims`: a copy, as in PyTorch (whose
    tensors cannot have the negative strides a numpy view would need)."""
    a = operand(a)
    if not isinstance(dims, (list, tuple)):
        raise TypeError(
            f"flip(): argument 'dims' (position 2) must be tuple of ints, not {type(dims).__name__}"
        )
    for position, d in enumerate(dims):
        if isinstance(d, bool) or not isinstance(d, (int, np.integer)):
            raise TypeError(
                "flip(): argument 'dims' (position 1) must be tuple of ints, but found element of type "
                f"{type(d).__name__} at pos {position}"
            )
    axes = tuple(_dim(int(d), a.ndim) for d in dims)
    for d in axes:
        if axes.count(d) > 1:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    reverse = tuple(slice(None, None, -1) if i in axes else slice(None) for i in range(a.ndim))
    # a 0-d tensor accepts dim 0 (or -1), and has nothing to reverse
    return record(FlipBackward0, a._data[reverse].copy(), (a,), args=axes if a.ndim else ())


def flip_method(a, *dims) -> Tensor:
    """x.flip(0, 1) and x.flip([0, 1]) both work on the method, as in PyTorch."""
    if len(dims) == 1 and isinstance(dims[0], (list, tuple)):
        dims = dims[0]
    return flip(a, tuple(dims))
