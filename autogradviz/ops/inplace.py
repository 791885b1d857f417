"""In-place ops: add_, mul_, x[i] = v, ...

An in-place op overwrites a tensor's data, so autograd must be careful:

- a leaf that requires grad may not be changed in place while recording
  (its `.grad` would no longer describe the value it belongs to);
- every in-place op bumps the version counter, so a node that saved the old
  value notices at backward time instead of computing a wrong gradient;
- when recording, the tensor gets a new `grad_fn` whose input is its own old
  value: the history is "rebased", exactly as in PyTorch.
"""

from __future__ import annotations

import math

import numpy as np

from ..core import dtypes, random, views
from ..core.creation import fill_number, tensor
from ..core.grad_mode import _state as _grad_state
from ..core.grad_mode import check_inplace_allowed, no_grad
from ..core.graph import OUTPUT, Node
from ..core.record import record
from ..core.tensor import Tensor, _make
from . import arithmetic, pointwise
from ._operands import data, operand
from .broadcast import sum_to
from .shape import expand, frozen_index, getitem, index_steps, refuse_multi_output_view, to_index


def _inplace(t: Tensor, name: str, compute, other=None, ufunc=None, check_overlap=None) -> Tensor:
    """Overwrite `t` with `compute(old t)`, recording the op if autograd needs to.
    `other` is the op's operand (a tuple for several: clamp_'s min and max).
    `check_overlap` replaces the default check that a tensor operand `other` does not
    share memory with `t` in a way PyTorch refuses (x[idx] = v checks its own way)."""
    check_inplace_allowed(t)  # an inference tensor stays as it is outside inference_mode
    grad_mode = _grad_state.enabled
    is_view = views.view_of(t) is not None
    operands = [x for x in (other if isinstance(other, tuple) else (other,)) if isinstance(x, Tensor)]
    recording = grad_mode and (
        t._requires_grad
        or any(x._requires_grad for x in operands)
        or (is_view and views.view_chain(t)[-1]._requires_grad)
    )
    # PyTorch's order: first the leaf rules, then the memory checks, then the work
    if grad_mode and t._requires_grad and t._grad_fn is None:
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation. "
            f"({name} would change a leaf that requires grad: wrap the update in `with agv.no_grad():`, "
            "or change `.data`, which autograd does not track.)"
        )
    if recording and is_view:
        root = views.view_chain(t)[-1]
        if root._grad_fn is None and root._requires_grad:
            raise RuntimeError(
                "a view of a leaf Variable that requires grad is being used in an in-place operation. "
                f"({name} would change a view of a leaf that requires grad: wrap the update in "
                "`with agv.no_grad():`, or clone() the leaf first.)"
            )
        refuse_multi_output_view(t)
    if check_overlap is not None:
        check_overlap()
    else:
        for x in operands:
            refuse_shared_memory(name, t._data, x._data)
    if ufunc is not None and not recording and _write_in_place(t, ufunc, other):
        return t
    if recording and is_view:
        return _inplace_on_view(t, name, compute)
    if recording:
        # the old value keeps the old history; `compute` may save it, so it
        # gets its own copy of the data, which is about to be overwritten
        old = _make(t._data.copy(), t._grad_fn)
        old._requires_grad = t._requires_grad
        result = compute(old)
    else:
        with no_grad():
            result = compute(t)
    _write(t, name, result)
    if recording and result._grad_fn is not None:
        _output_now_lives_in(result._grad_fn, t)
        views.rebase(t, result._grad_fn)
    return t


def _output_now_lives_in(node: Node, tensor: Tensor) -> None:
    """The in-place op's result is written into `tensor`: what `node` saved of
    its output is now that tensor's data, checked against that tensor's
    version counter. Changing it again before backward then raises, as in
    PyTorch, instead of going unnoticed (relu_, sigmoid_, ... save their output)."""
    counter = tensor.version_counter()
    saved, checks = list(node._saved), []
    for position, source, watched, version in node._checks:
        if source is OUTPUT:
            saved[position] = tensor._data
            watched, version = counter, counter.value
        checks.append((position, source, watched, version))
    node._saved, node._checks = tuple(saved), tuple(checks)


def _write(t: Tensor, name: str, result: Tensor, recording: bool = False) -> None:
    """Copy the new values into t's memory, and bump its version counter.
    `recording`: the write is recorded in the graph (see _write_through_root)."""
    if result.shape != t.shape:
        raise RuntimeError(  # PyTorch's sentence first, then which op
            f"output with shape {list(t.shape)} doesn't match the broadcast shape {list(result.shape)} "
            f"({name} writes its result, of shape {tuple(result.shape)}, into the tensor, whose shape "
            f"{tuple(t.shape)} cannot change)"
        )
    if not np.can_cast(result._data.dtype, t._data.dtype, casting="same_kind"):
        raise RuntimeError(  # PyTorch's sentence first, then which op
            f"result type {_torch_dtype_name(result._data)} can't be cast to "
            f"the desired output type {_torch_dtype_name(t._data)} ({name}: the "
            f"result is {result.dtype!r}, the tensor {t.dtype!r}; convert the tensor first, e.g. x.float())"
        )
    if t._data.flags.writeable:
        np.copyto(t._data, result._data, casting="same_kind")
    elif _shows_an_expand(t):
        _write_through_root(t, name, result._data, recording)
    else:
        raise RuntimeError(f"{name}: this tensor's memory is read-only; clone() it first")
    t._bump_version()


def _shows_an_expand(t: Tensor) -> bool:
    """Is t an expand()-ed view, or a view (or a detach()-ed copy) of one?"""
    return t._extras is not None and any(op is expand for op, *_ in views.memory_owner(t)[1])


def _positions_in_root(root: Tensor, replays: list) -> np.ndarray:
    """Which position of the root (numbered 0, 1, 2, ... in its shape) each element
    of a view shows: the view ops replayed on that numbering."""
    with no_grad():
        numbering = _make(np.arange(root._data.size).reshape(root.shape))
        return views.replay(numbering, replays)._data.copy()


def _write_through_root(t: Tensor, name: str, values: np.ndarray, recording: bool) -> None:
    """Write into a view of an expand()-ed tensor. numpy marks every expanded array
    read-only, since its elements share memory; PyTorch refuses such a write only
    if two of the written elements are one memory location (x.expand(3).mul_(2)), and
    allows it otherwise (x.expand(1, 2).mul_(2), x.expand(3, 2)[0].mul_(2)). So the
    values go into the root's own memory, at the positions the view shows."""
    root, replays = views.memory_owner(t)
    positions = _positions_in_root(root, replays).ravel()
    # fill_ (and zero_) is the exception: it gives every copy the same value, and PyTorch
    # does not check (x.expand(3).zero_() works), unless autograd records the write: its
    # CopySlices copies the view's values into the base one by one, and refuses
    unchecked = name in ("fill_", "zero_") and not recording
    if not unchecked and np.unique(positions).size < positions.size:  # PyTorch's words
        raise RuntimeError(
            f"{name}: unsupported operation: more than one element of the written-to tensor "
            "refers to a single memory location. Please clone() the tensor before performing "
            "the operation. (It is an expand()-ed view, whose elements share memory.)"
        )
    if not root._data.flags.writeable:
        raise RuntimeError(f"{name}: this tensor's memory is read-only; clone() it first")
    root._data.flat[positions] = values.ravel()


# PyTorch's test of whether an in-place op's operand shares memory with the tensor it
# writes (get_overlap_status in ATen). Writing x.mul_(x) is fine (each element reads
# itself before it is overwritten), but in x[1:].add_(x[:-1]) an element would be read
# after it was overwritten, and the result would depend on the order of the loop: refused.
def _is_dense(array: np.ndarray) -> bool:
    """No gaps and no repeats: the elements fill one block of memory (in some order of
    the dims). PyTorch's is_non_overlapping_and_dense; dims of size 1 do not count."""
    expected = array.itemsize
    for stride, size in sorted((st, n) for st, n in zip(array.strides, array.shape) if n != 1):
        if stride != expected:
            return False
        expected *= size
    return True


def memory_overlap(a: np.ndarray, b: np.ndarray) -> str:
    """How a and b share memory: "no", "full" (the same elements, laid out the same
    way), "partial", or "unknown" (one has gaps or repeats: PyTorch looks no further)."""
    if a.size == 0 or b.size == 0:
        return "no"
    if not (_is_dense(a) and _is_dense(b)):
        return "unknown"
    a_start, b_start = a.ctypes.data, b.ctypes.data
    a_end, b_end = a_start + a.nbytes, b_start + b.nbytes
    if (a_start, a_end) == (b_start, b_end):
        # PyTorch compares the strides as they are, those of dims of size 1 too: for a
        # one-element x, x[::2] = x is refused (strides 2 and 1), x[:] = x is not
        same_layout = a.shape == b.shape and _torch_strides(a) == _torch_strides(b)
        return "full" if same_layout else "partial"
    return "partial" if a_start < b_end and b_start < a_end else "no"


def _torch_strides(array: np.ndarray) -> tuple:
    """The array's strides as PyTorch has them. They agree, except for a dim of size 1
    that numpy gives the stride 0 (x[None], expand): PyTorch gives it the stride
    unsqueeze does, the next dim's size times its stride (one element at the end)."""
    strides = list(array.strides)
    for d in reversed(range(array.ndim)):
        if array.shape[d] == 1 and strides[d] == 0:
            strides[d] = array.itemsize if d == array.ndim - 1 else array.shape[d + 1] * strides[d + 1]
    return tuple(strides)


def refuse_shared_memory(
    name: str, written: np.ndarray, operand: np.ndarray, full_too: bool = False, same_tensor: bool = False
) -> None:
    """PyTorch's error for an operand that overlaps the memory being written: partly
    (for every in-place op), or even fully (for x[list or mask] = v). `same_tensor`:
    the operand is the very tensor written, which PyTorch counts as a full overlap
    before it looks at the memory (so even when it has no elements)."""
    status = "full" if same_tensor else memory_overlap(written, operand)
    if status == "partial" or (full_too and status == "full"):
        raise RuntimeError(
            "unsupported operation: some elements of the input tensor and the written-to tensor "
            "refer to a single memory location. Please clone() the tensor before performing the "
            f"operation. ({name}: the operand shares memory with the tensor written into; "
            "clone() the operand, for example x[1:] = x[:-1].clone().)"
        )


# in-place ops on views ---------------------------------------------------------------------
#
# A view (h[0], h.t(), h.view(...)) shares its base's memory: writing into it
# changes the base too. So, as PyTorch does, the op rebases the BASE's history:
#
#   1. the view's current value is read from the base, and the op computes the
#      new value out of place (a MulBackward0 for mul_, and so on);
#   2. the new value is written into the base's memory, and the base gets a new
#      node, CopySlices: its gradient goes to the old base outside the view, and
#      to the new value (so through the op) inside it;
#   3. the view, and each view between it and the base, is made again from the
#      base (re-indexed, re-transposed...), so that using it later sends its
#      gradient through the base's new history.


class CopySlices(Node):
    """The base of a view that was changed in place: `base[view] = new value`."""

    __slots__ = ()
    op = "view written in place"
    rules = ("g outside the view (the old values there are kept)", "g inside the view")

    def vjp(self, xp, g, written, positions):
        inside = xp.getitem(xp.reshape(g, (-1,)), positions)  # back to the view's shape
        return xp.where(written, 0.0, g), inside


def _inplace_on_view(t: Tensor, name: str, compute) -> Tensor:
    chain = views.view_chain(t)
    root = chain.pop()  # (_inplace has checked that it is not a leaf that requires grad)
    chain.reverse()  # from the root's first view down to t
    replays = views.replays_of(chain)
    # 1. the view's value now, read from the root's current history; `compute`
    #    may save it, so it gets its own copy of the data
    current = views.replay(root, replays)
    old = _make(current._data.copy(), current._grad_fn)
    result = compute(old)
    _write(t, name, result, recording=True)  # into t's memory, which is the root's
    if result._grad_fn is not None:
        _output_now_lives_in(result._grad_fn, t)
    # 2. the root's new history: CopySlices of its old history and the new value.
    #    Which positions of the root the view shows: replay the view ops on the
    #    numbers 0, 1, 2, ... laid out in the root's shape.
    positions = _positions_in_root(root, replays)
    written = np.zeros(root._data.size, dtype=bool)
    written[positions.ravel()] = True
    written = written.reshape(root.shape)
    old_root = _make(root._data, root._grad_fn)
    new_root = record(CopySlices, root._data, (old_root, result), saved=(written, positions))
    views.rebase(root, new_root._grad_fn)
    # 3. each view, down to t, is made again from the root's new history
    views.remake_views(root, chain, replays)
    return t


def _write_in_place(t: Tensor, ufunc, other) -> bool:
    """The fast path outside the graph (an SGD update, `w.grad.zero_()`): numpy
    writes straight into t's memory. On any problem, numpy has written nothing,
    and the general path reports it."""
    try:
        ufunc(t._data, data(operand(other)), out=t._data, casting="same_kind")
    except (TypeError, ValueError):
        return False
    t._bump_version()
    return True


def add_(t, other):
    __tracebackhide__ = True  # IPython: a learner's traceback ends at their own line
    return _inplace(t, "add_", lambda old: arithmetic.add(old, other), other, np.add)


def sub_(t, other):
    __tracebackhide__ = True  # IPython: a learner's traceback ends at their own line
    # PyTorch refuses a bool on either side of -, in place too (after its leaf rule),
    # before anything is written; numpy's fast path below would just subtract
    if not (_grad_state.enabled and t._requires_grad and t._grad_fn is None):
        arithmetic._refuse_bool_subtraction(t, operand(other))
    return _inplace(t, "sub_", lambda old: arithmetic.sub(old, other), other, np.subtract)


def mul_(t, other):
    __tracebackhide__ = True  # IPython: a learner's traceback ends at their own line
    return _inplace(t, "mul_", lambda old: arithmetic.mul(old, other), other, np.multiply)


def div_(t, other):
    __tracebackhide__ = True  # IPython: a learner's traceback ends at their own line
    return _inplace(t, "div_", lambda old: arithmetic.div(old, other), other, np.true_divide)


def pow_(t, other):
    __tracebackhide__ = True  # IPython: a learner's traceback ends at their own line
    return _inplace(t, "pow_", lambda old: arithmetic.pow(old, other), other)


def clamp_(t, min=None, max=None):  # noqa: A002
    __tracebackhide__ = True  # IPython: a learner's traceback ends at their own line
    pointwise.check_bounds("clamp_", {"min": min, "max": max})  # first, as PyTorch's argument parser
    return _inplace(t, "clamp_", lambda old: pointwise.clamp_as("clamp_", old, min, max), (min, max))


# fill_, zero_, copy_: the old value is thrown away, so its gradient is zero ---------------
class FillBackward0(Node):
    __slots__ = ()
    op, rules = "fill_", ("the old value was overwritten: its gradient is 0",)
    torch_name = "FillBackward2 (fill_ with a number), FillBackward3 (with a tensor), ZeroBackward0 (zero_)"

    def vjp(self, xp, g):
        return (xp.zeros_like(g),)  # zeros even under an inf upstream (g * 0 would be nan)


def fill_(t, value):
    __tracebackhide__ = True  # IPython: a learner's traceback ends at their own line
    return _fill(t, value, "fill_")


def _fill(t, value, name: str):
    """fill_, and zero_ under its own name in errors."""
    __tracebackhide__ = True
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise RuntimeError(
                f"fill_ only supports 0-dimension value tensor but got tensor with {value.ndim} dimensions."
            )
        # a tensor is copied as copy_ does, without the number check (PyTorch's rule too)
        with np.errstate(all="ignore"):  # 300 as int8 wraps to 44, as in PyTorch
            value = value._data.reshape(()).astype(t._data.dtype)
    else:
        if not isinstance(value, (bool, int, float, complex, np.bool_, np.number)):
            raise TypeError(
                f"fill_() received an invalid combination of arguments - got ({type(value).__name__}), "
                "but expected one of: (Tensor value), (Number value)"
            )
        value = fill_number(value, t._data.dtype, name, into=t)
    return _inplace(t, name, lambda old: record(FillBackward0, np.full_like(old._data, value), (old,)))


def check_number_fits(t, value, op: str):
    """A number written into a tensor must fit its dtype, as PyTorch checks (the rule
    is creation.fill_number's, shared with full and fill_). Returns the number as the
    tensor will hold it (-1 is 255 in a uint8 tensor)."""
    return fill_number(value, t._data.dtype, op, into=t)


def zero_(t):
    __tracebackhide__ = True  # IPython: a learner's traceback ends at their own line
    return _fill(t, 0, "zero_")


# normal_, uniform_: new random values (the DCGAN idiom `m.weight.data.normal_(0, 0.02)`),
# drawn from autogradviz's seeded generator; the old value's gradient is zero, as for fill_
class NormalBackward0(FillBackward0):
    __slots__ = ()
    op = "normal_"
    torch_name = None  # PyTorch's own name (FillBackward0's note is not about normal_)


class UniformBackward0(FillBackward0):
    __slots__ = ()
    op = "uniform_"
    torch_name = None


def normal_(t, mean: float = 0.0, std: float = 1.0, *, generator=None):
    """`generator=` draws from that agv.Generator instead of the default stream."""
    stream = random.generator(generator)  # checked before anything changes

    def draw(old):
        values = stream.standard_normal(old.shape).astype(old._data.dtype) * std + mean
        return record(NormalBackward0, values.astype(old._data.dtype, copy=False), (old,))

    return _inplace(t, "normal_", draw)


def uniform_(t, from_: float = 0.0, to: float = 1.0, *, generator=None):
    stream = random.generator(generator)

    def draw(old):
        values = stream.random(old.shape).astype(old._data.dtype) * (to - from_) + from_
        return record(UniformBackward0, values.astype(old._data.dtype, copy=False), (old,))

    return _inplace(t, "uniform_", draw)


class CopyBackwards(Node):
    __slots__ = ()
    op, broadcasts = "copy_", True
    rules = ("the old value was overwritten: its gradient is 0", "∂/∂src = 1")

    def vjp(self, xp, g):
        return xp.zeros_like(g), g


def copy_(t, src):
    __tracebackhide__ = True  # IPython: a learner's traceback ends at their own line
    src = operand(src)

    def compute(old):
        try:
            values = np.broadcast_to(data(src), old.shape).astype(old._data.dtype)
        except ValueError:
            raise RuntimeError(
                f"copy_: the source of shape {np.shape(data(src))} can't be broadcast to the "
                f"destination's shape {old.shape}"
            ) from None
        return record(CopyBackwards, values, (old, src))

    if src is t and not (_grad_state.enabled and t._requires_grad):
        # PyTorch's copy_ of a tensor into itself copies nothing, so it checks nothing
        # either: x.expand(2, 1).copy_(itself) works, though its elements share memory.
        # Only the version counter moves, as for any in-place op
        check_inplace_allowed(t)
        t._bump_version()
        return t
    return _inplace(t, "copy_", compute, src)


# x[index] = value ---------------------------------------------------------------------------
class IndexPutBackward0(Node):
    """x[index] = value. The mask of written positions and the index are saved
    values (freed by backward, as in PyTorch); an index tensor is saved too, so
    that changing it in place before backward is caught."""

    __slots__ = ()
    op, broadcasts = "[ ]=", True
    rules = ("0 at the overwritten positions, g elsewhere", "g at the written positions")
    torch_name = (
        "IndexPutBackward0 for an index of tensors, lists or masks only; with an int or a slice in it: "
        "CopySlices; for x[...] = v: CopyBackwards"
    )

    def vjp(self, xp, g, written, index, *index_tensors):
        # the value's gradient is g read back at the written positions, summed to
        # the value's own shape (args): a position written twice, x[[0, 0]] = v,
        # reads g twice, and a broadcast value gets the sum over its copies
        inside = xp.getitem(g, index)
        shape = self.args
        if len(inside.shape) < len(shape):  # the value had leading 1s that x[0] = v dropped
            inside = xp.reshape(inside, (1,) * (len(shape) - len(inside.shape)) + tuple(inside.shape))
        return xp.where(written, 0.0, g), sum_to(xp, inside, shape)


def _without_leading_ones(value, ndim: int):
    """PyTorch lets a value with extra leading 1s fill a smaller target
    (x[0] = tensor([5.]) for a vector x): drop them, as it does."""
    while np.ndim(value) > ndim and np.shape(value)[0] == 1:
        value = value[0]
    return value


def _fitted(value, target_shape: tuple):
    """The value broadcast to the positions written. numpy's mask assignment takes
    only a 0-d or 1-d value (else a TypeError); broadcasting it first gives every
    case one rule, and one error: the shape mismatch below."""
    if np.ndim(value) == 0:
        return value
    return np.broadcast_to(value, target_shape)  # a ValueError when it does not fit


def _torch_dtype_name(array: np.ndarray) -> str:
    """PyTorch's name for an array's dtype in its messages: Float, Double, Long, ..."""
    return dtypes.scalar_type_name(dtypes.from_numpy_dtype(array.dtype))


def _check_index_put_dtypes(t: Tensor, index, value: Tensor) -> None:
    """PyTorch casts the value for x[ints and slices] = v, but an index with a list
    or tensor of positions is an "index put", which wants v in x's own dtype (one
    exception: a single mask filled with a one-element value)."""
    parts = index if isinstance(index, tuple) else (index,)
    arrays = [p for p in parts if isinstance(p, np.ndarray)]
    if not arrays or value._data.dtype == t._data.dtype:
        return
    if len(arrays) == 1 and arrays[0].dtype == bool and arrays[0].ndim > 0 and value._data.size == 1:
        return
    raise RuntimeError(
        "x[index] = value: Index put requires the source and destination dtypes match, got "
        f"{_torch_dtype_name(t._data)} for the destination and "
        f"{_torch_dtype_name(value._data)} for the source. (x is {t.dtype!r} and the value "
        f"{value.dtype!r}: convert the value first, for example value.to(x.dtype).)"
    )


def _indexed_shape(array: np.ndarray, steps: list) -> tuple:
    """The shape of the positions the index steps pick, or an IndexError that
    names the tensor's shape."""
    picked = array
    try:
        for step in steps:
            picked = picked[step]
    except IndexError as error:
        message = str(error).replace(" for axis ", " for dimension ")  # PyTorch's word
        raise IndexError(f"x[index] = value: {message} (the tensor has shape {array.shape})") from None
    return picked.shape


def setitem(t, index, value):
    check_inplace_allowed(t)
    given = index
    index = to_index(index)
    value_is_tensor = isinstance(value, Tensor)
    # a number is converted to the tensor's dtype first, and so is a one-element value
    # written through one mask (PyTorch's masked_fill_), even where the mask is all False
    if isinstance(value, (int, float, np.number)) and not isinstance(value, bool):
        value = check_number_fits(t, value, "x[index] = value")
    elif value_is_tensor and value.numel() == 1 and isinstance(index, np.ndarray) and index.dtype == bool:
        check_number_fits(t, value._data.reshape(()).item(), "x[index] = value")
    value = operand(value)

    steps = index_steps(index)

    def compute(old):
        out = old._data.copy()
        written = np.zeros(old.shape, dtype=bool)
        # with two steps, the first only picks positions (ints): a view, so
        # writing into it writes into `out`
        target_shape = _indexed_shape(out, steps)
        part, seen = (out[steps[0]], written[steps[0]]) if len(steps) == 2 else (out, written)
        try:
            part[steps[-1]] = _fitted(_without_leading_ones(data(value), len(target_shape)), target_shape)
        except ValueError:
            raise RuntimeError(
                f"x[index] = value: shape mismatch: value tensor of shape {np.shape(data(value))} "
                f"cannot be broadcast to indexing result of shape {target_shape}"
            ) from None
        if value_is_tensor:
            _check_index_put_dtypes(old, index, value)
        seen[steps[-1]] = True
        if not _grad_state.enabled:  # under no_grad nothing is recorded: save nothing
            return _make(out)
        kept, tensors = frozen_index(index, given)
        return record(
            IndexPutBackward0, out, (old, value), saved=(written, kept, *tensors), args=np.shape(data(value))
        )

    parts = index if isinstance(index, tuple) else (index,)
    if _grad_state.enabled and t._requires_grad:
        # PyTorch first makes the view that the ints and slices of the index pick, and
        # only then refuses to change a leaf (or a view of one): x[5] = v on a leaf of
        # size 1 is an IndexError (but x[[5]] = v the leaf's RuntimeError)
        _indexed_shape(t._data, [_basic_part(parts)])
    # x[...] = v writes into x itself, as copy_ does
    basic = all(type(i) in (int, slice, type(None), type(Ellipsis)) for i in parts) and parts != (Ellipsis,)
    if basic and _grad_state.enabled and t._requires_grad and t._grad_fn is None:
        # PyTorch writes through a view here (x[0] is one), so its words say "a view of"
        raise RuntimeError(
            "a view of a leaf Variable that requires grad is being used in an in-place operation. "
            "(x[index] = value would change a leaf that requires grad: wrap the update in "
            "`with agv.no_grad():`, or change `.data`, which autograd does not track.)"
        )
    positions = [p for p in parts if isinstance(p, np.ndarray)]  # lists, masks, index tensors
    if not positions and _shows_an_expand(t):
        # PyTorch writes x[0] = v into the view x[0], which for an expand()-ed x may be
        # one element that all the copies share (x.expand(3)[0] = 5 is allowed, and
        # changes all three): do the same, so that only the view's elements are written
        target = getitem(t, given)
        if not value_is_tensor:  # a number is copied (not filled) in PyTorch, and checked as a copy
            value = tensor(value)
        while value.ndim > target.ndim and value.shape[0] == 1:  # x[0] = tensor([5.])
            value = value[0]
        copy_(target, value)
        return

    def check_overlap():
        # PyTorch writes into the view that the ints and slices pick; with lists or masks
        # it refuses an operand that shares any memory with that view (an "index put"),
        # except for one mask and one value, which it does as a masked fill
        region = _written_region(t._data, parts)
        masked_fill = (  # (a 0-d mask is an index put in PyTorch: x[x > 0] = x raises for a 0-d x)
            len(positions) == 1
            and positions[0].dtype == bool
            and positions[0].ndim > 0
            and np.size(data(value)) == 1
        )
        # x[0:2] = v for a 0-d v of another shape is a fill in PyTorch: it reads v first
        fill = not positions and value_is_tensor and value.ndim == 0 and region.shape != ()
        if value_is_tensor and not masked_fill and not fill:
            if positions:  # an index put refuses any shared memory, whatever the strides
                # x[[]] = x too, for an empty x: the full slices and ... of the index keep
                # the tensor itself as PyTorch's target, which it compares with the value first
                keeps_x = all(
                    p is Ellipsis or p == slice(None) for p in parts if not isinstance(p, np.ndarray)
                )
                refuse_shared_memory(
                    "x[index] = value", region, value._data, full_too=True, same_tensor=value is t and keeps_x
                )
            else:
                refuse_shared_memory("x[index] = value", region, _as_copied(value._data, region.shape))
        for array in positions:  # x[x] = ... for a bool x
            refuse_shared_memory("x[index] = value", region, array, full_too=not masked_fill)

    _inplace(t, "x[index] = value", compute, value, check_overlap=check_overlap)


def _as_copied(value: np.ndarray, shape: tuple) -> np.ndarray:
    """The value as PyTorch's x[index] = value copies it into a region of `shape`: as
    it is if the shapes agree; else without its leading dims of size 1, expanded to
    the shape (so x[...] = x.view(1) is x = x). Its memory check sees this array."""
    if value.shape == shape:
        return value
    leading_ones = next((i for i, n in enumerate(value.shape) if n != 1), value.ndim)
    stripped = value.reshape(value.shape[leading_ones:])
    if stripped.ndim == 0 and math.prod(shape) == 1:
        # PyTorch expands a 0-d value with the stride 0 in every dim, so that one
        # element is never laid out as the region is: x[0] = x is refused for an x of
        # shape (1, 1). Compared as it is (another shape), it is never a "full" overlap
        return stripped
    try:
        return np.broadcast_to(stripped, shape)
    except ValueError:  # it does not fit: the write itself says so, with the shapes
        return value


def _written_region(array: np.ndarray, parts: tuple) -> np.ndarray:
    """The view of `array` that the ints and slices of an index pick (its lists and
    masks kept whole): where PyTorch's x[index] = v writes."""
    return array[_basic_part(parts)]


def _basic_part(parts: tuple) -> tuple:
    """The ints, slices, None and ... of an index, with a full slice for each dim
    that a list or mask indexes."""
    basic = []
    for part in parts:
        if isinstance(part, np.ndarray):
            basic.extend([slice(None)] * (part.ndim if part.dtype == bool else 1))
        else:
            basic.append(part)
    if not any(part is Ellipsis for part in basic):
        basic.append(Ellipsis)  # so that numpy returns a view even for x[0] of a vector
    return tuple(basic)


# in-place math: x.sin_(), x.exp_(), x.relu_(), ... ----------------------------------------------
#
# Each computes its out-of-place op on the old value and writes the result back, so
# the tensor's new grad_fn is that op's node (SinBackward0 after sin_, as in
# PyTorch). A node that saved its output (exp, sqrt, tanh, sigmoid, relu, ...) now
# finds it in the tensor itself, checked against its version counter: changing the
# tensor again before backward raises instead of giving a wrong gradient.


def abs_(t):
    return _inplace(t, "abs_", pointwise.abs)


def neg_(t):
    return _inplace(t, "neg_", arithmetic.neg)


def exp_(t):
    return _inplace(t, "exp_", pointwise.exp)


def exp2_(t):
    return _inplace(t, "exp2_", pointwise.exp2)


def expm1_(t):
    return _inplace(t, "expm1_", pointwise.expm1)


def log_(t):
    return _inplace(t, "log_", pointwise.log)


def log2_(t):
    return _inplace(t, "log2_", pointwise.log2)


def log10_(t):
    return _inplace(t, "log10_", pointwise.log10)


def log1p_(t):
    return _inplace(t, "log1p_", pointwise.log1p)


def sqrt_(t):
    return _inplace(t, "sqrt_", pointwise.sqrt)


def rsqrt_(t):
    return _inplace(t, "rsqrt_", pointwise.rsqrt)


def square_(t):
    return _inplace(t, "square_", pointwise.square)


def reciprocal_(t):
    return _inplace(t, "reciprocal_", pointwise.reciprocal)


def sin_(t):
    return _inplace(t, "sin_", pointwise.sin)


def cos_(t):
    return _inplace(t, "cos_", pointwise.cos)


def tan_(t):
    return _inplace(t, "tan_", pointwise.tan)


def sinh_(t):
    return _inplace(t, "sinh_", pointwise.sinh)


def cosh_(t):
    return _inplace(t, "cosh_", pointwise.cosh)


def tanh_(t):
    return _inplace(t, "tanh_", pointwise.tanh)


def asin_(t):
    return _inplace(t, "asin_", pointwise.asin)


def acos_(t):
    return _inplace(t, "acos_", pointwise.acos)


def atan_(t):
    return _inplace(t, "atan_", pointwise.atan)


def sigmoid_(t):
    return _inplace(t, "sigmoid_", pointwise.sigmoid)


def relu_(t):
    return _inplace(t, "relu_", pointwise.relu)


def floor_(t):
    return _inplace(t, "floor_", pointwise.floor)


def ceil_(t):
    return _inplace(t, "ceil_", pointwise.ceil)


def round_(t, *, decimals: int = 0):
    return _inplace(t, "round_", lambda old: pointwise.round(old, decimals=decimals))


def trunc_(t):
    return _inplace(t, "trunc_", pointwise.trunc)


def clamp_min_(t, min):  # noqa: A002 - PyTorch's name
    pointwise.check_bounds("clamp_min_", {"min": min}, required=True)
    return _inplace(t, "clamp_min_", lambda old: pointwise.clamp(old, min=min), min)


def clamp_max_(t, max):  # noqa: A002
    pointwise.check_bounds("clamp_max_", {"max": max}, required=True)
    return _inplace(t, "clamp_max_", lambda old: pointwise.clamp(old, max=max), max)
