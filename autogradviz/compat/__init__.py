"""Spellings from other libraries, attached to the kernel's Tensor from outside it.

The core (`autogradviz/core/`) and the engine hold what backpropagation needs and
name no other library; what a tutorial written for another library expects is
attached here, as `autogradviz/methods.py` attaches the ops. Importing
autogradviz imports this package, so these spellings are on every tensor.

Reading order: `paddle_spellings.py` (`stop_gradient`, `gradient()`,
`clear_grad()`, `to_tensor`).
"""

from . import paddle_spellings  # noqa: F401 - attaches to Tensor on import
