"""autogradviz: a small numpy autograd engine, with PyTorch's names and rules,
for learning how backpropagation works.

    import autogradviz as agv
    w = agv.tensor([2.0], requires_grad=True)
    y = w * 3 + 1
    y.backward()
    w.grad  # tensor([3.])
"""

import warnings as _warnings

from . import (  # numpy only: layers, models, optimizers, datasets and a DataLoader
    autograd,
    data,
    models,
    nn,
    optim,
)
from . import tensor_methods as _tensor_methods  # noqa: F401 - attaches ops as methods
from .creation import (
    arange,
    empty,
    eye,
    from_numpy,
    full,
    full_like,
    linspace,
    manual_seed,
    ones,
    ones_like,
    rand,
    rand_like,
    randint,
    randn,
    randn_like,
    seed,
    tensor,
    to_tensor,
    zeros,
    zeros_like,
)
from .dtypes import DType, float32, float64, int64
from .dtypes import bool_ as bool  # noqa: A001 - PyTorch's name
from .engine import BackwardStep, backward_steps, grad, topological_order
from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .gradcheck import GradcheckError, gradcheck
from .node import AccumulateGrad, Node
from .ops import *  # noqa: F403
from .ops.reductions import ValuesIndices
from .printing import set_printoptions
from .serialization import load, save
from .tensor import Tensor

float = float32  # noqa: A001
double = float64
long = int64

# numpy warns on log(0), 0/0 and the like; PyTorch returns -inf or nan silently,
# and so do autogradviz's own ops (a user's own numpy code still warns)
_warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"autogradviz\.")

__version__ = "0.1.0"


def __getattr__(name: str):
    # drawing and plotting load on first use: `import autogradviz` stays numpy-only
    import importlib

    if name in ("draw", "GraphView"):
        return getattr(importlib.import_module(".viz", __name__), name)
    if name == "BackwardStepper":
        return importlib.import_module(".viz.stepper", __name__).BackwardStepper
    if name == "viz":
        return importlib.import_module(".viz", __name__)
    if name == "plot":
        return importlib.import_module(".viz.plot", __name__)
    raise AttributeError(f"module 'autogradviz' has no attribute {name!r}")
