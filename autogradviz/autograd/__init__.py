"""`agv.autograd`: PyTorch's `torch.autograd` spellings, for code copied from tutorials.

    (dx,) = agv.autograd.grad(y, x)   # same as agv.grad(y, x)
    agv.autograd.backward(y)           # same as y.backward()

Both are the library's own functions (backward_and_grad.py), which run the engine's
one walk (engine.py), not a second implementation.

Reading order: this file; `function.py`, custom Functions with their own
backward; `functional.py`, jacobian, hessian, vjp and jvp built on `grad`;
`graph.py`, hooks on saved tensors; `saved_names.py`, PyTorch's names for
them (`y.grad_fn._saved_self`); `profiler.py`, which ops ran; `variable.py`,
the old `Variable` (today a tensor).
"""

from ..backward_and_grad import backward, grad
from ..core.grad_mode import enable_grad, inference_mode, no_grad, set_grad_enabled
from ..finite_differences import GradcheckError, gradcheck, gradgradcheck
from . import function, functional, graph, profiler, saved_names  # saved_names attaches Node's `_saved_*`
from .function import Function, FunctionCtx, once_differentiable
from .variable import Variable

__all__ = [
    "Function",
    "FunctionCtx",
    "backward",
    "enable_grad",
    "function",
    "grad",
    "GradcheckError",
    "functional",
    "gradcheck",
    "gradgradcheck",
    "graph",
    "inference_mode",
    "profiler",
    "saved_names",
    "no_grad",
    "once_differentiable",
    "set_grad_enabled",
    "Variable",
]
