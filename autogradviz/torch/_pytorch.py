"""The installed PyTorch, or a clear ImportError.

The tutorial tests bind `sys.modules["torch"]` to autogradviz itself (to run
PyTorch tutorials on it): that module is not PyTorch, and this package must
not mistake it for PyTorch.
"""

from __future__ import annotations

import importlib
import sys

INSTALL_HINT = "autogradviz.torch needs PyTorch: pip install torch"


def real_torch():
    try:
        module = importlib.import_module("torch")
    except ImportError as error:
        raise ImportError(INSTALL_HINT) from error
    if (
        module is sys.modules.get("autogradviz")
        or not hasattr(module, "autograd")
        or not hasattr(module, "_C")
    ):
        raise ImportError(
            f"{INSTALL_HINT} (here the name 'torch' is bound to {module.__name__!r}, not PyTorch)"
        )
    return module


torch = real_torch()
