"""`agv.autograd`: PyTorch's `torch.autograd` spellings, for code copied from tutorials.

    (dx,) = agv.autograd.grad(y, x)   # same as agv.grad(y, x)
    agv.autograd.backward(y)           # same as y.backward()

Both are the engine's own functions (see engine.py), not a second implementation.

Reading order: this file; `function.py`, custom Functions with their own
backward; `functional.py`, jacobian, hessian, vjp and jvp built on `grad`;
`graph.py`, hooks on saved tensors; `profiler.py`, which ops ran.
"""

from ..core.grad_mode import enable_grad, no_grad, set_grad_enabled
from ..engine import backward, grad
from ..finite_differences import gradcheck

__all__ = ["backward", "enable_grad", "grad", "gradcheck", "no_grad", "set_grad_enabled"]
