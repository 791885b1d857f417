"""Re-run the notebooks that nbval checks and store their outputs, as graphviz-pure draws them.

    .venv/bin/python tests/notebooks/refresh_outputs.py [NOTEBOOK ...]

With no argument it refreshes every .ipynb next to this script. The stored outputs are the
reference that `pytest --nbval` compares with (see tests/test_notebooks_nbval.py), so refresh
them only after a deliberate change to the notebooks or to what the drawings show, and read the
diff. The kernel is this Python, as with `--nbval-current-env`: no installed kernelspec is used.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import nbformat
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient
from nbval.kernel import CURRENT_ENV_KERNEL_NAME, NbvalKernelspecManager

HERE = Path(__file__).resolve().parent


def refresh(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    km = KernelManager(kernel_name=CURRENT_ENV_KERNEL_NAME, kernel_spec_manager=NbvalKernelspecManager())
    NotebookClient(nb, km=km, timeout=120, resources={"metadata": {"path": str(path.parent)}}).execute()
    # the notebook opens with an ordinary Python 3 kernel in Jupyter
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)
    print(f"refreshed {path}")


def main(args: list[str]) -> None:
    # the stored SVGs are graphviz-pure's: the same bytes on every machine
    os.environ["AUTOGRADVIZ_RENDERER"] = "graphviz-pure"
    for path in [Path(a).resolve() for a in args] or sorted(HERE.glob("*.ipynb")):
        refresh(path)


if __name__ == "__main__":
    main(sys.argv[1:])
