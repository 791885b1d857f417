"""The demo notebook that the README's lessons command opens must run."""

import contextlib
import io
import json
from pathlib import Path

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "00_quick_tour.ipynb"


def test_quick_tour_runs_top_to_bottom():
    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    namespace: dict = {}
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        for cell in cells:
            if cell["cell_type"] == "code":
                exec("".join(cell["source"]), namespace)
    text = printed.getvalue()
    assert "RuntimeError: grad can be implicitly created only for scalar outputs" in text
    assert "a.grad tensor(20.)  b.grad tensor(8.)  c.grad tensor(4.)  d.grad tensor(10.)" in text
