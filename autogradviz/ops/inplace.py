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

import numpy as np

from ..grad_mode import _state as _grad_state
from ..grad_mode import no_grad
from ..node import Node
from ..tensor import Tensor, _make
from . import arithmetic, pointwise
from ._operands import data, operand
from .shape import index_steps, to_index


def _inplace(t: Tensor, name: str, compute, other=None, ufunc=None) -> Tensor:
    """Overwrite `t` with `compute(old t)`, recording the op if autograd needs to."""
    recording = _grad_state.enabled and (
        t._requires_grad or (isinstance(other, Tensor) and other._requires_grad)
    )
    if ufunc is not None and not recording and _write_in_place(t, ufunc, other):
        return t
    if _grad_state.enabled and t._requires_grad:
        if t._grad_fn is None:
            raise RuntimeError(
                f"{name}: a leaf Variable that requires grad is being used in an in-place operation. "
                "Wrap the update in `with agv.no_grad():`, or change `.data` (untracked)."
            )
    base = t._extra("base") if t._meta is not None else None
    if recording and base is not None:
        raise RuntimeError(
            f"{name}: this tensor is a view of another tensor (from reshape, transpose, indexing...) and "
            "autogradviz does not track in-place changes through views while recording. "
            "Use .clone() first, or an out-of-place op."
        )
    if recording:
        old = _make(t._data.copy(), t._grad_fn)
        old._requires_grad = t._requires_grad
        result = compute(old)
    else:
        with no_grad():
            result = compute(t)
    if result.shape != t.shape:
        raise RuntimeError(
            f"{name}: output with shape {t.shape} doesn't match the broadcast shape {result.shape}"
        )
    try:
        np.copyto(t._data, result._data, casting="same_kind")
    except TypeError:
        raise RuntimeError(
            f"{name}: result type {result.dtype!r} can't be cast to the desired output type {t.dtype!r}"
        ) from None
    except ValueError:
        raise RuntimeError(
            f"{name}: this tensor's memory is read-only (an expand()-ed view); clone() it first"
        ) from None
    t._bump_version()
    if recording:
        t._grad_fn = result._grad_fn
        t._requires_grad = True
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
    return _inplace(t, "add_", lambda old: arithmetic.add(old, other), other, np.add)


def sub_(t, other):
    return _inplace(t, "sub_", lambda old: arithmetic.sub(old, other), other, np.subtract)


def mul_(t, other):
    return _inplace(t, "mul_", lambda old: arithmetic.mul(old, other), other, np.multiply)


def div_(t, other):
    return _inplace(t, "div_", lambda old: arithmetic.div(old, other), other, np.true_divide)


def pow_(t, other):
    return _inplace(t, "pow_", lambda old: arithmetic.pow(old, other), other)


def clamp_(t, min=None, max=None):  # noqa: A002
    return _inplace(t, "clamp_", lambda old: pointwise.clamp(old, min, max))


# fill_, zero_, copy_: the old value is thrown away, so its gradient is zero ---------------
class FillBackward0(Node):
    __slots__ = ()
    op, rules = "fill_", ("the old value was overwritten: its gradient is 0",)

    def vjp(self, m, g):
        return (g * 0,)


def fill_(t, value):
    value = float(value) if t._data.dtype.kind == "f" else value
    return _inplace(t, "fill_", lambda old: FillBackward0.record(np.full_like(old._data, value), (old,)))


def zero_(t):
    return fill_(t, 0)


class CopyBackwards(Node):
    __slots__ = ()
    op, broadcasts = "copy_", True
    rules = ("the old value was overwritten: its gradient is 0", "∂/∂src = 1")

    def vjp(self, m, g):
        return g * 0, g


def copy_(t, src):
    src = operand(src)

    def compute(old):
        try:
            values = np.broadcast_to(data(src), old.shape).astype(old._data.dtype)
        except ValueError:
            raise RuntimeError(
                f"copy_: the source of shape {np.shape(data(src))} can't be broadcast to the "
                f"destination's shape {old.shape}"
            ) from None
        return CopyBackwards.record(values, (old, src))

    return _inplace(t, "copy_", compute, src)


# x[index] = value ---------------------------------------------------------------------------
class IndexPutBackward0(Node):
    __slots__ = ()
    op, broadcasts = "[ ]=", True
    rules = ("0 at the overwritten positions, g elsewhere", "g at the written positions")

    def vjp(self, m, g):
        written, index = self.args
        return m.where(written, 0.0, g), m.getitem(g, index)


def setitem(t, index, value):
    index = to_index(index)
    value = operand(value)

    steps = index_steps(index)

    def compute(old):
        out = old._data.copy()
        written = np.zeros(old.shape, dtype=bool)
        # with two steps, the first only picks positions (ints): a view, so
        # writing into it writes into `out`
        part, seen = (out[steps[0]], written[steps[0]]) if len(steps) == 2 else (out, written)
        try:
            target_shape = part[steps[-1]].shape
        except IndexError as error:
            raise IndexError(f"x[index] = value: {error} (the tensor has shape {old.shape})") from None
        try:
            part[steps[-1]] = data(value)
        except ValueError:
            raise RuntimeError(
                f"x[index] = value: shape mismatch: value tensor of shape {np.shape(data(value))} "
                f"cannot be broadcast to indexing result of shape {target_shape}"
            ) from None
        seen[steps[-1]] = True
        return IndexPutBackward0.record(out, (old, value), args=(written, index))

    _inplace(t, "x[index] = value", compute, value)
