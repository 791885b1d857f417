"""Notebooks that show drawings pass `pytest --nbval` with either renderer (issue 3).

Each test runs nbval in a subprocess, with this Python, from the repository root:

    python -m pytest --nbval tests/notebooks/draw_graphs.ipynb
        --nbval-sanitize-with notebooks/nbval_sanitize.cfg --nbval-current-env -p no:cacheprovider

The outputs stored in the notebook were drawn by graphviz-pure
(`python tests/notebooks/refresh_outputs.py` stores new ones). The sanitize file blanks the
pictures' geometry, so a system `dot` may lay them out differently, but every label, id and
colour must still match; the negative control below proves that it does not blank too much.

The kernel: `--nbval-current-env` makes nbval start `sys.executable -m ipykernel_launcher`, so the
notebook runs in the same environment as these tests (ipykernel comes with the `test` extra) and
no kernelspec has to be installed. A `python3` kernelspec elsewhere on the machine (for example
in ~/.local/share/jupyter, which Jupyter searches before the venv) cannot take its place.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "tests" / "notebooks" / "draw_graphs.ipynb"
SANITIZE = ROOT / "notebooks" / "nbval_sanitize.cfg"

SUMMARY = re.compile(r"<autogradviz graph: \d+ nodes, \d+ edges \((forward|backward|both)\)>")
SVG = "image/svg+xml"

RENDERERS = [
    "graphviz-pure",
    pytest.param(
        "dot",
        marks=pytest.mark.skipif(
            shutil.which("dot") is None, reason="no system Graphviz: `dot` is not on PATH"
        ),
    ),
]


def code_cells(nb) -> list:
    return [cell for cell in nb.cells if cell.cell_type == "code"]


def run_nbval(notebook: Path, renderer: str) -> tuple[subprocess.CompletedProcess, dict[str, int], set[int]]:
    """Run nbval on `notebook`; return the process, the summary's counts, and the failed cells."""
    target = notebook.relative_to(ROOT) if notebook.is_relative_to(ROOT) else notebook
    command = [
        sys.executable,
        "-m",
        "pytest",
        "--nbval",
        str(target),
        "--nbval-sanitize-with",
        str(SANITIZE.relative_to(ROOT)),
        "--nbval-current-env",
        "-p",
        "no:cacheprovider",
        "--color=no",
        "-ra",
    ]
    env = {key: value for key, value in os.environ.items() if key != "PYTEST_ADDOPTS"}
    env.update(AUTOGRADVIZ_RENDERER=renderer, PYTHONIOENCODING="utf-8")
    result = subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, encoding="utf-8", timeout=600
    )
    lines = result.stdout.strip().splitlines()
    summary = lines[-1] if lines else ""
    counts = {
        word: int(number) for number, word in re.findall(r"(\d+) (passed|failed|errors?|skipped)", summary)
    }
    failed = {int(cell) for cell in re.findall(r"^FAILED \S*::Cell (\d+)", result.stdout, re.MULTILINE)}
    return result, counts, failed


def report(result: subprocess.CompletedProcess) -> str:
    return f"nbval exited with {result.returncode}\n{result.stdout[-6000:]}\n{result.stderr[-3000:]}"


def test_stored_outputs_are_graph_views():
    """What nbval compares: every cell ran, every drawing is an SVG plus its short summary, and no
    output depends on the machine (the renderer's name, a memory address, a path)."""
    cells = code_cells(nbformat.read(NOTEBOOK, as_version=4))
    assert all(cell.execution_count is not None for cell in cells), "nbval skips the outputs of unrun cells"
    drawings = [output for cell in cells for output in cell.outputs if SVG in output.get("data", {})]
    assert len(drawings) == 5
    for output in drawings:
        assert output.output_type == "execute_result"
        assert SUMMARY.fullmatch(output.data["text/plain"]), output.data["text/plain"]
        assert output.data[SVG].startswith("<?xml") and re.search(r'id="agv(-|&#45;)\w+"', output.data[SVG])
    for cell in cells:
        for output in cell.outputs:
            text = output.get("text", "") + output.get("data", {}).get("text/plain", "")
            assert not re.search(r"graphviz-pure|\bdot\b|0x[0-9a-f]{6,}|/work/|/home/", text), text


@pytest.mark.parametrize("renderer", RENDERERS)
def test_notebook_passes_nbval(renderer):
    expected = len(code_cells(nbformat.read(NOTEBOOK, as_version=4)))
    result, counts, failed = run_nbval(NOTEBOOK, renderer)
    assert result.returncode == 0, report(result)
    assert not failed, report(result)
    # every code cell ran in the kernel and had its outputs compared
    assert counts == {"passed": expected}, report(result)
    assert counts["passed"] > 0


def _blur_geometry(svg: str) -> str:
    """What another renderer might write: other coordinates and sizes, Graphviz 2.4x's spellings."""
    svg = re.sub(
        r'(?<![\w:-])(width|height|viewBox|points|d|x|y|cx|cy|rx|ry|transform)="([^"]*)"',
        lambda m: f'{m.group(1)}="{re.sub(r"[0-9]", "7", m.group(2))}"',
        svg,
    )
    svg = svg.replace(' xml:space="preserve"', "").replace('stroke="none"', 'stroke="transparent"')
    return svg


def _replace(output, old: str, new: str) -> None:
    assert old in output.data[SVG], f"the stored drawing has no {old!r}"
    output.data[SVG] = output.data[SVG].replace(old, new)


def test_nbval_compares_labels_and_colours_but_not_geometry(tmp_path):
    """Negative control: change the stored outputs of a copy of the notebook. A changed label or
    fill colour must fail its cell; changed geometry and renderer spellings must not."""
    nb = nbformat.read(NOTEBOOK, as_version=4)
    cells = code_cells(nb)

    def drawing(index: int):
        (output,) = [o for o in cells[index].outputs if SVG in o.get("data", {})]
        return output

    # cell 1, y = w*x + b: the tensor `w` is called `v`
    _replace(drawing(1), ">w</text>", ">v</text>")
    # cell 4: a Chinese name changes (甲 -> 申)
    _replace(drawing(4), ">甲</text>", ">申</text>")
    # cell 5: the "saved for backward" boxes change colour
    _replace(drawing(5), 'fill="#fff3e0"', 'fill="#ffffff"')
    # cells 2 and 3: every coordinate and size moves; the labels stay
    for index in (2, 3):
        output = drawing(index)
        blurred = _blur_geometry(output.data[SVG])
        assert blurred != output.data[SVG]
        output.data[SVG] = blurred
    copy = tmp_path / NOTEBOOK.name
    nbformat.write(nb, copy)

    result, counts, failed = run_nbval(copy, "graphviz-pure")
    assert result.returncode == 1, report(result)
    assert failed == {1, 4, 5}, report(result)
    assert counts == {"failed": 3, "passed": len(cells) - 3}, report(result)
    # the cells failed on their stored picture, not because they could not run
    assert result.stdout.count("Cell outputs differ") >= 3, report(result)
    assert "caused an exception" not in result.stdout, report(result)
