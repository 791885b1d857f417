"""Build one lesson in English and Chinese from a single list of cells, run it,
and store its outputs.

A lesson script (notebooks/src/NN_*.py) calls `build(...)` with cells made by
`md(en, zh)` and `code(source, *tags)`. The code is the same in both languages;
only the prose differs. Running the notebooks here stores their outputs, which
nbval then checks in CI (see tests/test_lessons.py).

    .venv/bin/python notebooks/src/01_computation_graph.py
"""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parents[1]


def md(en: str, zh: str) -> tuple:
    """A markdown cell: English and Simplified Chinese."""
    return ("md", en.strip(), zh.strip())


def code(source: str, *tags: str) -> tuple:
    """A code cell, the same in both languages. Tags: "solution" for an
    exercise's answer (removed from student copies), "raises-exception" for a
    cell that shows an error on purpose."""
    return ("code", source.strip(), tags)


def build(number: int, slug: str, cells: list[tuple], timeout: int = 120) -> list[Path]:
    """Write notebooks/en/NN_slug.ipynb and notebooks/zh/NN_slug.ipynb, executed."""
    paths = []
    for lang in ("en", "zh"):
        nb = nbformat.v4.new_notebook()
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nb.metadata["language_info"] = {"name": "python"}
        for i, cell in enumerate(cells):
            if cell[0] == "md":
                new = nbformat.v4.new_markdown_cell(cell[1] if lang == "en" else cell[2])
            else:
                new = nbformat.v4.new_code_cell(cell[1])
                if cell[2]:
                    new.metadata["tags"] = list(cell[2])
            new.id = f"c{number:02d}-{i:03d}"  # stable ids: rebuilding changes nothing needlessly
            nb.cells.append(new)
        folder = NOTEBOOKS / lang
        folder.mkdir(exist_ok=True)
        path = folder / f"{number:02d}_{slug}.ipynb"
        # the default renderer, so stored SVGs are graphviz-pure's (the same on every machine)
        os.environ.pop("AUTOGRADVIZ_RENDERER", None)
        NotebookClient(
            nb,
            timeout=timeout,
            kernel_name="python3",
            allow_errors=False,
            record_timing=False,  # timestamps would change every notebook on every rebuild
            resources={"metadata": {"path": str(folder)}},
        ).execute()
        _join_streams(nb)
        nbformat.write(nb, path)
        paths.append(path)
    return paths


def _join_streams(nb) -> None:
    """One output per stream of printed text: how a cell's prints are split into
    chunks depends on how fast the machine ran it, and a stored notebook must not."""
    for cell in nb.cells:
        joined = []
        for out in cell.get("outputs", []):
            last = joined[-1] if joined else None
            if (
                out.output_type == "stream"
                and last is not None
                and last.output_type == "stream"
                and last.name == out.name
            ):
                last.text += out.text
            else:
                joined.append(out)
        if "outputs" in cell:
            cell.outputs = joined
