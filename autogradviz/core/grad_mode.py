"""Grad mode: whether ops record the graph.

`no_grad`, `enable_grad`, `set_grad_enabled` and `inference_mode` work as
context managers and as decorators, like PyTorch's. The flags are thread-local,
so a no_grad block in one thread does not switch recording off in another.
"""

from __future__ import annotations

import functools
import threading


class _State(threading.local):
    enabled = True  # grad mode: do ops record the graph?
    inference = False  # inference mode (it also switches grad mode off)


_state = _State()


def is_grad_enabled() -> bool:
    return _state.enabled


class _GradMode:
    """Set the mode on entry and restore the previous one on exit."""

    mode: bool

    def __enter__(self) -> None:
        self._previous = _state.enabled
        _state.enabled = self.mode

    def __exit__(self, *exc) -> None:
        _state.enabled = self._previous

    def __call__(self, fn):
        mode = self.mode

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            previous = _state.enabled
            _state.enabled = mode
            try:
                return fn(*args, **kwargs)
            finally:
                _state.enabled = previous

        return wrapper


class _BareDecorator(_GradMode):
    """Also usable without parentheses, `@agv.no_grad`, as PyTorch 2 allows."""

    def __new__(cls, fn=None):
        mode = super().__new__(cls)
        return mode if fn is None else mode(fn)


class no_grad(_BareDecorator):  # noqa: N801 - PyTorch's spelling
    """Ops inside do not record the graph: their results have requires_grad=False."""

    mode = False


class enable_grad(_BareDecorator):  # noqa: N801
    """Record the graph again, for example inside a no_grad block."""

    mode = True


class set_grad_enabled(_GradMode):  # noqa: N801
    """`set_grad_enabled(False)` switches recording off at once, like PyTorch's;
    used in a `with` block, it restores the previous mode on exit."""

    def __init__(self, mode: bool):
        self._previous = _state.enabled
        self.mode = bool(mode)
        _state.enabled = self.mode

    def __enter__(self) -> None:
        _state.enabled = self.mode

    def __call__(self, fn):
        # used as a decorator, the call in __init__ must not leak out
        _state.enabled = self._previous
        return super().__call__(fn)


# -- inference mode ---------------------------------------------------------------------


def is_inference_mode_enabled() -> bool:
    return _state.inference


class inference_mode(_GradMode):  # noqa: N801
    """`with agv.inference_mode():` is no_grad for code that will never need a
    gradient (evaluating a model): nothing records, and the results are marked as
    *inference tensors* (`t.is_inference()`). PyTorch then skips even the
    bookkeeping that no_grad keeps (version counters); autogradviz is numpy either
    way, so here the difference is the rules PyTorch enforces on those tensors,
    outside the mode: they cannot be saved for backward by a recorded op, nor
    changed in place, nor made to require grad. Clone one to get a normal tensor.

    `inference_mode(False)` switches it off again inside (and grad mode back on,
    as PyTorch's does). Usable as `@agv.inference_mode`, `@agv.inference_mode()`
    or `@agv.inference_mode(False)`.

    As in PyTorch, every tensor made inside is an inference tensor: the results
    of ops, and the tensors of factory functions (`agv.zeros(3)`, `agv.randn`,
    `agv.tensor(...)`, see creation.py). `enable_grad()` inside the mode turns
    grad mode on (`is_grad_enabled()` is True) but the mode still records
    nothing: `(w * 2).grad_fn` is None even for a `w` that requires grad.

    Where autogradviz still differs: `agv.Tensor([1.0])` (the class called as a
    constructor) made inside the mode is a normal tensor here.
    """

    def __new__(cls, mode=True):
        if callable(mode):  # @agv.inference_mode, without parentheses
            decorator = super().__new__(cls)
            decorator.__init__(True)
            return decorator(mode)
        return super().__new__(cls)

    def __init__(self, mode: bool = True):
        self.inference = bool(mode)
        self.mode = not self.inference  # grad mode follows: off inside, on for inference_mode(False)

    def __enter__(self) -> None:
        self._previous_inference = _state.inference, _state.enabled
        _state.inference = self.inference
        _state.enabled = self.mode

    def __exit__(self, *exc) -> None:
        _state.inference, _state.enabled = self._previous_inference

    def __call__(self, fn):
        inference, mode = self.inference, self.mode

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            previous = _state.inference, _state.enabled
            _state.inference, _state.enabled = inference, mode
            try:
                return fn(*args, **kwargs)
            finally:
                _state.inference, _state.enabled = previous

        return wrapper

    def clone(self) -> inference_mode:
        return type(self)(self.inference)

    def __repr__(self) -> str:
        return f"agv.inference_mode({self.inference})"


INFERENCE_SAVED_ERROR = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference "
    "mode in computation tracked by autograd. To work around this, you can make a clone to get a normal "
    "tensor and use it in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`."
)
INFERENCE_INPLACE_ERROR = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get "
    "a normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more details."
)


def check_inplace_allowed(t) -> None:
    """PyTorch's error for an in-place op on an inference tensor outside the mode
    (to be called before anything is written)."""
    if t._extras is not None and t._extras.inference and not _state.inference:
        raise RuntimeError(INFERENCE_INPLACE_ERROR)


def check_requires_grad_allowed(t) -> None:
    """PyTorch's error for `t.requires_grad = True` on an inference tensor outside the mode."""
    if t._extras is not None and t._extras.inference and not _state.inference:
        raise RuntimeError(
            "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."
        )
