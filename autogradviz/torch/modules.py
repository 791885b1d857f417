"""`trace(model)`: what PyTorch's graph forgets, noted while the forward runs.

    with agv.torch.trace(model):
        loss = loss_fn(model(x), y)
    agv.draw(loss, group="module", collapse=True)

PyTorch's graph has no module boundaries (`nn.Linear` is an AddmmBackward0
and a TBackward0) and keeps no intermediate values. Inside the block:

- forward hooks on every submodule note, on its output's `grad_fn`, the module
  and the nodes its inputs came from: the same note autogradviz's own
  `Module.__call__` leaves, which `group="module"` reads (viz/modules.py);
- a `TorchFunctionMode` notes every op's result, so the forward view shows
  values instead of "(freed)".

The notes live in the torch node's own `metadata` dict, so they go when the
graph goes.
"""

from __future__ import annotations

from contextlib import contextmanager

from ._pytorch import torch
from .graph import NOTE_KEY, leaf_node, wrap


def _tensors_in(value) -> list:
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for item in value for t in _tensors_in(item)]
    if isinstance(value, dict):
        return [t for item in value.values() for t in _tensors_in(item)]
    return []


def _note(fn) -> dict:
    return fn.metadata.setdefault(NOTE_KEY, {})


def _start(tensor):
    """The node a module's input gradient goes to, as the drawings see it."""
    if tensor.grad_fn is not None:
        return wrap(tensor.grad_fn)
    return leaf_node(tensor) if tensor.requires_grad else None


class _NoteValues(torch.overrides.TorchFunctionMode):
    """Notes each op's result on its grad_fn (the first result made by that node)."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        result = func(*args, **(kwargs or {}))
        for t in _tensors_in(result):
            if t.grad_fn is not None and "value" not in _note(t.grad_fn):
                _note(t.grad_fn)["value"] = t.detach().cpu().numpy().copy()
        return result


@contextmanager
def trace(model, values: bool = True):
    """Note module boundaries (and, with values=True, every op's result) on the
    graph that the forward passes inside the block build."""
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"agv.torch.trace: expected a torch.nn.Module, got {type(model).__name__}")
    inputs: dict[int, list] = {}  # id(module) -> a stack of its calls' input nodes (a module may recurse)

    def before(module, args, kwargs):
        starts = [_start(t) for t in _tensors_in((args, kwargs))]
        inputs.setdefault(id(module), []).append(tuple(s for s in starts if s is not None))

    def after(module, args, kwargs, output):
        starts = inputs[id(module)].pop()
        for t in _tensors_in(output):
            if t.grad_fn is not None:
                _note(t.grad_fn).setdefault("modules", []).append((module, starts))

    handles = []
    for module in model.modules():
        handles.append(module.register_forward_pre_hook(before, with_kwargs=True))
        handles.append(module.register_forward_hook(after, with_kwargs=True))
    mode = _NoteValues() if values else None
    try:
        if mode is not None:
            with mode:
                yield model
        else:
            yield model
    finally:
        for handle in handles:
            handle.remove()
