"""PyTorch's and Paddle's surface, kept apart from the teaching path.

The core (`autogradviz/core/`) and the engine hold what backpropagation needs;
what a tutorial written for PyTorch or Paddle expects besides is attached here,
each group as the body of a small class that `attach.py` copies onto Tensor (as
`autogradviz/methods.py` attaches the ops). Importing autogradviz imports this
package, so all of it is on every tensor.

Reading order:

1. `attach.py`: how a group of methods reaches Tensor;
2. `python_protocol.py`: `len(x)`, `float(x)`, `x.item()`, `x.numpy()`,
   `x.size(dim)`, printing, and `x.grad`'s checks;
3. `legacy.py`: the class as a constructor, `agv.Tensor(2, 3)`;
4. `pickling.py`: `copy.deepcopy(x)`, `pickle`, and `_rebuild`, the function
   saved files name;
5. `paddle_spellings.py`: `stop_gradient`, `gradient()`, `clear_grad()`,
   `to_tensor`.

Beside them, PyTorch's GPU namespaces, answered as by a PyTorch built without
CUDA (the device rules themselves are `core/device.py`); autogradviz/__init__
registers each under its public path, so `agv.cuda`, `import autogradviz.cuda`
and `from autogradviz.backends import mps` are these modules:

6. `cuda.py`: `agv.cuda.is_available()`, `manual_seed_all`, ...;
7. `accelerator.py`: `agv.accelerator`, device-neutral code's question;
8. `backends/`: `agv.backends.mps` and `agv.backends.cudnn`'s flags.
"""

from . import legacy, paddle_spellings, pickling, python_protocol  # noqa: F401 - each attaches to Tensor on import
