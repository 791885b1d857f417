"""Jupyter widgets: the backward stepper and the training monitor.

Reading order:

1. `trace.py`: one real backward, recorded step by step by the engine's own
   walk (`agv.backward_steps`), writing no `.grad`;
2. `stepper.py`: `BackwardStepper`, every position of that trace as a frame
   (the drawing's node states, the panel, the gradient table, the quiz);
   `stepper.js` and `stepper.css` show the frames in the browser;
3. `monitor.py`: `TrainingMonitor`, a live loss curve and per-layer gradient norms.
4. `lifetime.py`: why a widget outlives its last reference (in a kernel, until
   `close()`), and how both widgets are freed in plain Python.

Like the drawings, the widgets read a graph only through the graph API of
`core/protocol.py`.
"""

import importlib as _importlib

from .stepper import BackwardStepper

__all__ = ["BackwardStepper", "TrainingMonitor"]


def __getattr__(name: str):
    # the monitor loads on first use (PEP 562): it brings matplotlib, which the stepper does
    # not need, and whose first import in the browser (JupyterLite) builds a font cache and
    # says so in the learner's output
    if name == "TrainingMonitor":
        return _importlib.import_module(".monitor", __name__).TrainingMonitor
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
