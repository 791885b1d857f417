"""`agv.save` and `agv.load`: PyTorch's spellings for keeping a model between sessions.

    agv.save(model.state_dict(), "model.agv")
    model.load_state_dict(agv.load("model.agv"))

Both use Python's pickle, as torch.save does underneath. Like any pickle, only
load files you trust: loading can run code the file names.
"""

from __future__ import annotations

import os
import pickle


def save(obj, f) -> None:
    """Write `obj` (a state_dict, a tensor, a whole model, an optimizer's
    state_dict...) to `f`: a path, or a file opened for writing in binary."""
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as file:
            pickle.dump(obj, file, protocol=pickle.HIGHEST_PROTOCOL)
    else:
        pickle.dump(obj, f, protocol=pickle.HIGHEST_PROTOCOL)


def load(f, weights_only: bool | None = None):
    """Read back what `save` wrote. `weights_only` is accepted for PyTorch's
    spelling; the file is always read as a whole pickle."""
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as file:
            return pickle.load(file)
    return pickle.load(f)
