"""Write student copies of the lessons: no outputs, and a stub in place of every solution.

    .venv/bin/python scripts/student_copies.py            # -> student/en/*.ipynb, student/zh/*.ipynb
    .venv/bin/python scripts/student_copies.py --out DIR  # somewhere else

Each solution cell (tag "solution") becomes a stub in the notebook's language: the
exercise's task as a comment, then each answer name bound to `...`:

    # Exercise 1: set accuracy to a Python float: ...
    # Replace each ... with your code, run this cell, then run the check below.
    accuracy = ...

The check cell after it starts with `answered("04.1", accuracy=accuracy)`, so until
the learner replaces the `...` it stops with "not answered yet" and the task as a
hint, rather than a NameError. The exercise key and the answer names come from the
solution cell's metadata, written by notebooks/src/lesson.py's `exercise(...)`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat

from autogradviz.exercises import stub

ROOT = Path(__file__).resolve().parents[1]
LANGUAGES = ("en", "zh")


def student_copy(notebook: nbformat.NotebookNode, language: str) -> nbformat.NotebookNode:
    """The same notebook with outputs cleared and every solution replaced by its stub."""
    copy = nbformat.from_dict(notebook)
    copy.metadata.pop("widgets", None)  # the stored widgets' state: outputs of the solved notebook
    for cell in copy.cells:
        if cell.cell_type != "code":
            continue
        cell.outputs = []
        cell.execution_count = None
        tags = cell.metadata.get("tags", [])
        if "solution" not in tags:
            continue
        info = cell.metadata.get("autogradviz", {})
        if "exercise" not in info or "answers" not in info:
            raise ValueError(
                f"solution cell {cell.get('id', '?')} has no metadata.autogradviz.exercise/answers: "
                "build the lesson with notebooks/src/lesson.py's exercise(...)"
            )
        cell.source = stub(info["exercise"], info["answers"], language)
        cell.metadata["tags"] = [tag for tag in tags if tag != "solution"]
        if not cell.metadata["tags"]:
            del cell.metadata["tags"]
    return copy


def write_student_copies(out: Path, notebooks: Path = ROOT / "notebooks") -> list[Path]:
    """Write out/en/*.ipynb and out/zh/*.ipynb from notebooks/en and notebooks/zh."""
    written = []
    for language in LANGUAGES:
        lessons = sorted((notebooks / language).glob("[0-9][0-9]_*.ipynb"))
        if not lessons:
            raise FileNotFoundError(f"no lessons in {notebooks / language}")
        folder = out / language
        folder.mkdir(parents=True, exist_ok=True)
        for lesson in lessons:
            notebook = nbformat.read(lesson, as_version=4)
            path = folder / lesson.name
            nbformat.write(student_copy(notebook, language), path)
            written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out", type=Path, default=ROOT / "student", help="where to write (default: student/)"
    )
    args = parser.parse_args(argv)
    for path in write_student_copies(args.out):
        print("wrote", path.relative_to(args.out.parent) if path.is_relative_to(args.out.parent) else path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
