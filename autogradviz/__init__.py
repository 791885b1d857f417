"""autogradviz: a small numpy autograd engine, with PyTorch's names and rules,
for learning how backpropagation works.

    import autogradviz as agv
    w = agv.tensor([2.0], requires_grad=True)
    y = w * 3 + 1
    y.backward()
    w.grad  # tensor([3.])

Reading order of the source (each package's docstring has its own): `ops/`,
the formula sheet, starting at ops/arithmetic.py; `core/`, the tensor, the
graph and `record()`; `engine.py`, the backward walk, and `backward_and_grad.py`,
`backward()` and `grad()` over it; then `nn/`, `optim.py` and `data.py` for
training, `viz/` for drawings and `widgets/` for the stepper. See the README's
"Reading the source".
"""

import importlib as _importlib
import sys as _sys
import warnings as _warnings

from . import (  # numpy only: layers, models, optimizers, datasets and a DataLoader
    autograd,
    data,
    linalg,
    models,
    nn,
    optim,
    utils,  # utils.data: torch.utils.data's datasets, samplers and DataLoader
)
from . import compat as _compat  # noqa: F401 - attaches PyTorch's Python surface and Paddle's spellings to Tensor
from . import methods as _methods  # noqa: F401 - attaches the ops to Tensor as methods
from .autograd import profiler  # torch.profiler: the same module as agv.autograd.profiler
from .autograd.variable import (  # the typed tensor classes of PyTorch < 0.4
    BoolTensor,
    ByteTensor,
    CharTensor,
    DoubleTensor,
    FloatTensor,
    HalfTensor,
    IntTensor,
    LongTensor,
    ShortTensor,
)
from .backward_and_grad import grad
from .compat import accelerator, backends, cuda  # the CPU only, as tutorials' checks find
from .compat.paddle_spellings import to_tensor  # agv.tensor under Paddle's name
from .core.creation import (
    arange,
    as_tensor,
    empty,
    empty_like,
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
    randint_like,
    randn,
    randn_like,
    randperm,
    tensor,
    zeros,
    zeros_like,
)
from .core.device import device, get_default_device, set_default_device
from .core.dtypes import DType, finfo, float16, float32, float64, iinfo, int8, int16, int32, int64, uint8
from .core.dtypes import bool_ as bool  # noqa: A001 - PyTorch's name
from .core.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .core.graph import AccumulateGrad, Node
from .core.printing import set_printoptions
from .core.random import Generator, default_generator, initial_seed, manual_seed, seed
from .core.size import Size
from .core.tensor import Tensor
from .engine import BackwardStep, backward_steps, topological_order
from .finite_differences import GradcheckError, gradcheck, gradgradcheck
from .ops import *  # noqa: F403
from .ops.arithmetic import addmm
from .ops.reductions import ValuesIndices, amax, amin
from .ops.sampling import bernoulli, multinomial, normal
from .serialization import load, save
from .ui_text import get_language, set_language

float = float32  # noqa: A001
double = float64
long = int64
int = int32  # noqa: A001 - PyTorch's names
short = int16
half = float16  # a name only: autogradviz computes in float32 or float64 (see core/dtypes.py)

# numpy warns on log(0), 0/0 and the like; PyTorch returns -inf or nan silently,
# and so do autogradviz's own ops (a user's own numpy code still warns)
_warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"autogradviz\.")

# PyTorch's GPU namespaces live in compat/, away from the teaching path, but tutorials
# import them by PyTorch's paths (`import torch.cuda`, `from torch.backends import mps`).
# Registering each module under its old name keeps `import autogradviz.cuda` and
# `import autogradviz.backends.cudnn` working, and gives the same module object as
# `autogradviz.compat.cuda`: a shim file would be a second place to read, and an import
# through `backends.__path__` alone would load cudnn.py a second time as a different module.
_sys.modules.update(
    {
        "autogradviz.accelerator": accelerator,
        "autogradviz.cuda": cuda,
        "autogradviz.backends": backends,
        "autogradviz.backends.cudnn": backends.cudnn,
        "autogradviz.backends.mps": backends.mps,
    }
)

__version__ = "0.1.0"


if _sys.platform == "emscripten":
    # in the browser (JupyterLite), start loading the wasm Graphviz now, so it is ready
    # by the time a later cell draws (see viz/render_browser.py)
    _importlib.import_module(".viz.render_browser", __name__).start_loading()


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
    if name == "torch":  # the PyTorch bridge: needs PyTorch, so only on use (`agv.torch.trace(model)`)
        return _importlib.import_module(".torch", __name__)
    if name == "paddle":  # Paddle 2.0's dynamic graph: `import autogradviz.paddle as paddle`
        return _importlib.import_module(".paddle", __name__)
    raise AttributeError(f"module 'autogradviz' has no attribute {name!r}")
