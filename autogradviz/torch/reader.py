"""`TorchTensors`: torch tensors read as a `GraphTensors` (core/protocol.py).

`READER` is appended to `protocol.READERS` when this package is imported, so
`agv.draw(torch_tensor)` and `agv.BackwardStepper(torch_loss)` find it. The
stepper asks it for its steps (`record_backward`) and for the real backward
(`backward`), so widgets/ never imports PyTorch.
"""

from __future__ import annotations

import weakref

import numpy as np

from ..core.protocol import READERS
from . import steps
from ._pytorch import torch
from .graph import TorchNode, leaf_node, wrap


class TorchTensors:
    """`GraphTensors` for PyTorch tensors."""

    def __init__(self):
        # id(tensor) -> (weak reference, its numpy view): `value` gives the same array each time
        self._arrays: dict[int, tuple] = {}

    def is_tensor(self, value: object) -> bool:
        return isinstance(value, torch.Tensor)

    def node(self, tensor) -> TorchNode | None:
        if tensor.grad_fn is not None:
            return wrap(tensor.grad_fn)
        return leaf_node(tensor) if tensor.requires_grad else None

    def grad_fn(self, tensor) -> TorchNode | None:
        return None if tensor.grad_fn is None else wrap(tensor.grad_fn)

    def requires_grad(self, tensor) -> bool:
        return tensor.requires_grad

    def value(self, tensor) -> np.ndarray:
        key = id(tensor)
        entry = self._arrays.get(key)
        if entry is None or entry[0]() is not tensor:
            array = tensor.detach().cpu().resolve_conj().resolve_neg().numpy()
            entry = self._arrays[key] = (
                weakref.ref(tensor, lambda _, key=key: self._arrays.pop(key, None)),
                array,
            )
        return entry[1]

    def grad(self, tensor) -> np.ndarray | None:
        # .grad of a non-leaf that does not retain it warns in PyTorch: ask only where it is kept
        if not (tensor.is_leaf or tensor.retains_grad) or tensor.grad is None:
            return None
        return tensor.grad.detach().cpu().numpy()

    def name(self, tensor) -> str | None:
        return None  # a torch tensor has no name (`names` are a named tensor's dimension names)

    # -- for the stepper: steps.py records one real backward --------------------

    def record_backward(self, root, gradient=None, names=None):
        """(the stepper's steps, the seed gradient as an array): see steps.py."""
        return steps.record(root, gradient, names)

    def backward(self, root, gradient=None) -> None:
        """The real `loss.backward()`, once (the stepper's apply())."""
        root.backward(gradient, retain_graph=True)


READER = TorchTensors()
if not any(isinstance(reader, TorchTensors) for reader in READERS):
    READERS.append(READER)
