"""PyTorch's and Paddle's surface, attached to the kernel's Tensor from outside it.

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
"""

from . import legacy, paddle_spellings, pickling, python_protocol  # noqa: F401 - each attaches to Tensor on import
