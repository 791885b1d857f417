"""Grad mode: whether ops record the graph.

`no_grad`, `enable_grad` and `set_grad_enabled` work as context managers and as
decorators, like PyTorch's. The flag is thread-local, so a no_grad block in one
thread does not switch recording off in another.
"""

from __future__ import annotations

import functools
import threading


class _State(threading.local):
    enabled = True


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
