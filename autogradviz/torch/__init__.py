"""autogradviz.torch: draw and step through a real PyTorch graph.

    import torch, autogradviz as agv
    loss = model(x).logsumexp(1).mean()
    agv.draw(loss, kind="backward", model=model)   # PyTorch's own grad_fn graph
    agv.BackwardStepper(loss)                      # PyTorch's own backward, one node at a time

This package is the adapter of core/protocol.py: it reads a torch tensor's
`grad_fn` graph as `GraphNode`s (graph.py), so the drawings and the stepper
that show autogradviz graphs show PyTorch's without a line of their own. The
stepper's frames come from one real torch backward, recorded with hooks
(steps.py); `trace(model)` notes module boundaries and forward values
(modules.py), which PyTorch's graph does not keep.

Reading order: graph.py (a torch node as a `GraphNode`, and the rules table),
reader.py (torch tensors as a `GraphTensors`), steps.py (the stepper's steps
from one real backward), modules.py (`trace`).

autogradviz itself never needs PyTorch; this package does.
"""

from __future__ import annotations

from ._pytorch import torch  # first: a clear ImportError when PyTorch is missing
from .graph import TorchNode
from .modules import trace
from .reader import READER, TorchTensors
from .steps import record

__all__ = ["READER", "TorchNode", "TorchTensors", "record", "torch", "trace"]
