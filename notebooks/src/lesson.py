"""Build one lesson in English and Chinese from a single list of cells, run it,
and store its outputs.

A lesson script (notebooks/src/NN_*.py) calls `build(...)` with cells made by
`md(en, zh)`, `code(source, *tags)`, `setup(source)` (the first code cell) and
`exercise(...)` (an answer cell and its check cell). The code is the same in both
languages, except one line: the Chinese lesson's first cell also calls
`agv.set_language("zh")`, so drawings, steppers and the monitor speak Chinese.
Running the notebooks here stores their outputs, which nbval then checks in CI
(see tests/test_lessons.py).

    .venv/bin/python notebooks/src/01_computation_graph.py
"""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from autogradviz.exercises import task

NOTEBOOKS = Path(__file__).resolve().parents[1]


def md(en: str, zh: str) -> tuple:
    """A markdown cell: English and Simplified Chinese."""
    return ("md", en.strip(), zh.strip())


def code(source: str, *tags: str, zh: str | None = None, metadata: dict | None = None) -> tuple:
    """A code cell, the same in both languages unless `zh` gives the Chinese
    lesson its own version. Tags: "solution" for an exercise's answer (a stub in
    student copies, see `exercise`), "raises-exception" for a cell that shows an
    error on purpose (nbval and nbclient both read this tag, so the learner's code
    carries no test marker)."""
    return ("code", source.strip(), tags, (zh or source).strip(), metadata or {})


CHINESE_UI = 'agv.set_language("zh")  # 计算图、逐步演示器和监视器里的文字都用中文'


def setup(source: str) -> tuple:
    """The lesson's first code cell. The Chinese version switches autogradviz's own
    text (legends, buttons, the monitor) to Chinese, on the first line after the imports."""
    lines = source.strip().splitlines()
    if "import autogradviz as agv" not in lines:
        raise ValueError("setup(): the first cell must contain the line `import autogradviz as agv`")
    first_statement = next(
        i for i, line in enumerate(lines) if line.strip() and not line.startswith(("import ", "from "))
    )
    chinese = lines[:first_statement] + [CHINESE_UI] + lines[first_statement:]
    return code(source, zh="\n".join(chinese))


def exercise(key: str, answers: tuple[str, ...], solution: str, check: str) -> list[tuple]:
    """An exercise: the cell with its solution (tag "solution") and the cell that checks it.

    `key` ("01.2": lesson 01, exercise 2) names the task text in autogradviz/ui_text.py
    ("exercises.01.2", both languages). `answers` are the names the check reads. The check
    cell starts with `answered(key, name=name, ...)`, which stops with "not answered yet"
    while a name is still the `...` of a student copy's stub (scripts/student_copies.py
    writes the stubs from the key and the names stored in the solution cell's metadata).
    Use it as `*exercise(...)` in a lesson's list of cells.
    """
    task(key)  # fails now, not in a student's notebook, if the task text is missing
    call = f'answered("{key}", ' + ", ".join(f"{name}={name}" for name in answers) + ")"
    stub_info = {"autogradviz": {"exercise": key, "answers": list(answers)}}
    return [code(solution, "solution", metadata=stub_info), code(call + "\n" + check.strip())]


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
                new = nbformat.v4.new_code_cell(cell[1] if lang == "en" else cell[3])
                if cell[2]:
                    new.metadata["tags"] = list(cell[2])
                new.metadata.update(cell[4])
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
