"""autogradviz: a small numpy autograd engine, with PyTorch's names and rules,
for learning how backpropagation works.

    import autogradviz as agv
    w = agv.tensor([2.0], requires_grad=True)
    y = w * 3 + 1
    y.backward()
    w.grad  # tensor([3.])

Reading order of the source (each package's docstring has its own): `ops/`,
the formula sheet, starting at ops/arithmetic.py; `core/`, the tensor, the
graph and `record()`; `engine.py`, the backward walk; then `nn/`, `optim.py`
and `data.py` for training, `viz/` for drawings and `widgets/` for the
stepper. See the README's "Reading the source".
"""

import importlib as _importlib
import warnings as _warnings

from . import (  # numpy only: layers, models, optimizers, datasets and a DataLoader
    autograd,
    data,
    models,
    nn,
    optim,
)
from . import methods as _methods  # noqa: F401 - attaches the ops to Tensor as methods
from .core.creation import (
    arange,
    empty,
    eye,
    from_numpy,
    full,
    full_like,
    linspace,
    ones,
    ones_like,
    rand,
    rand_like,
    randint,
    randn,
    randn_like,
    tensor,
    to_tensor,
    zeros,
    zeros_like,
)
from .core.dtypes import DType, float32, float64, int64
from .core.dtypes import bool_ as bool  # noqa: A001 - PyTorch's name
from .core.grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .core.graph import AccumulateGrad, Node
from .core.printing import set_printoptions
from .core.random import Generator, default_generator, initial_seed, manual_seed, seed
from .core.tensor import Tensor
from .engine import BackwardStep, backward_steps, grad, topological_order
from .finite_differences import GradcheckError, gradcheck
from .ops import *  # noqa: F403
from .ops.reductions import ValuesIndices
from .serialization import load, save

float = float32  # noqa: A001
double = float64
long = int64

# numpy warns on log(0), 0/0 and the like; PyTorch returns -inf or nan silently,
# and so do autogradviz's own ops (a user's own numpy code still warns)
_warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"autogradviz\.")

__version__ = "0.1.0"


def __getattr__(name: str):
    # drawing, widgets and plotting load on first use (PEP 562), so that
    # `import autogradviz` stays numpy-only: graphviz, anywidget, ipywidgets and
    # matplotlib are imported only by a program that draws
    if name in ("draw", "GraphView"):
        return getattr(_importlib.import_module(".viz", __name__), name)
    if name == "BackwardStepper":
        return _importlib.import_module(".widgets.stepper", __name__).BackwardStepper
    if name in ("viz", "widgets"):
        return _importlib.import_module("." + name, __name__)
    if name == "plot":
        return _importlib.import_module(".viz.plot", __name__)
    raise AttributeError(f"module 'autogradviz' has no attribute {name!r}")
