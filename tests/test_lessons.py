"""The lessons: sixteen notebooks (eight in English, the same eight in Chinese),
checked so that none can silently rot.

- nbval runs every notebook and compares each output with the stored one (SVG
  drawings through notebooks/nbval_sanitize.cfg: geometry blanked, labels kept);
- the English and Chinese notebooks run exactly the same code;
- the stored outputs are complete: every code cell ran, in order, in one go;
- each lesson ends with exercises: a solution cell (tagged) and a check cell;
- the documented command that makes student copies removes the solutions.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
LESSONS = sorted(p.name for p in (NOTEBOOKS / "en").glob("[0-9][0-9]_*.ipynb"))


def cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def code_cells(path: Path) -> list[dict]:
    return [c for c in cells(path) if c["cell_type"] == "code"]


def test_there_are_eight_lessons_in_each_language():
    assert [name[:2] for name in LESSONS] == ["01", "02", "03", "04", "05", "06", "07", "08"]
    assert sorted(p.name for p in (NOTEBOOKS / "zh").glob("[0-9][0-9]_*.ipynb")) == LESSONS


@pytest.mark.parametrize("name", LESSONS)
def test_english_and_chinese_run_the_same_code(name):
    en = [("".join(c["source"]), c["metadata"].get("tags", [])) for c in code_cells(NOTEBOOKS / "en" / name)]
    zh = [("".join(c["source"]), c["metadata"].get("tags", [])) for c in code_cells(NOTEBOOKS / "zh" / name)]
    assert en == zh
    prose = [c for c in cells(NOTEBOOKS / "zh" / name) if c["cell_type"] == "markdown"]
    assert any(any("\u4e00" <= ch <= "\u9fff" for ch in "".join(c["source"])) for c in prose), "untranslated"


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("name", LESSONS)
def test_stored_outputs_are_complete(name, lang):
    """Every code cell was run, top to bottom in one session: counts 1, 2, 3, ...
    (nbval below then checks that re-running gives the same outputs)."""
    counts = [c["execution_count"] for c in code_cells(NOTEBOOKS / lang / name)]
    assert counts == list(range(1, len(counts) + 1)), f"{lang}/{name}: re-run it with notebooks/src/"
    text = json.dumps(cells(NOTEBOOKS / lang / name))
    assert " at 0x" not in text, "a memory address in a stored output would change every run"


@pytest.mark.parametrize("name", LESSONS)
def test_each_lesson_ends_with_exercises_that_check_themselves(name):
    code = code_cells(NOTEBOOKS / "en" / name)
    solutions = [i for i, c in enumerate(code) if "solution" in c["metadata"].get("tags", [])]
    assert len(solutions) >= 2, "two or three exercises per lesson"
    for i in solutions:
        check = code[i + 1]
        assert "solution" not in check["metadata"].get("tags", []) and "assert" in "".join(check["source"])


def nbval(*paths: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--nbval",
            *map(str, paths),
            "--nbval-sanitize-with",
            str(NOTEBOOKS / "nbval_sanitize.cfg"),
            "--nbval-current-env",
            "-p",
            "no:cacheprovider",
            "-q",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.mark.parametrize("name", LESSONS)
def test_lesson_passes_nbval_in_both_languages(name):
    result = nbval(NOTEBOOKS / "en" / name, NOTEBOOKS / "zh" / name)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    cells_run = len(code_cells(NOTEBOOKS / "en" / name)) * 2
    assert f"{cells_run} passed" in result.stdout, result.stdout[-2000:]


def test_student_copies_lose_the_solutions(tmp_path):
    """The README's command for teachers, run as documented."""
    lesson = NOTEBOOKS / "en" / LESSONS[0]
    command = [
        sys.executable,
        "-m",
        "jupyter",
        "nbconvert",
        str(lesson),
        "--to",
        "notebook",
        "--output-dir",
        str(tmp_path),
        "--TagRemovePreprocessor.enabled=True",
        "--TagRemovePreprocessor.remove_cell_tags=solution",
        "--ClearOutputPreprocessor.enabled=True",
    ]
    subprocess.run(command, check=True, capture_output=True, cwd=ROOT)
    copy = tmp_path / lesson.name
    before, after = code_cells(lesson), code_cells(copy)
    removed = [c for c in before if "solution" in c["metadata"].get("tags", [])]
    assert removed and len(after) == len(before) - len(removed)
    assert not [c for c in after if "solution" in c["metadata"].get("tags", [])]
    assert all(not c["outputs"] for c in after)  # and no answers left in the outputs either
    checks = ["".join(c["source"]) for c in after if "assert" in "".join(c["source"])]
    assert len(checks) >= 2  # the check cells stay, for the students to run


def test_readme_documents_the_student_copy_command():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "--TagRemovePreprocessor.remove_cell_tags=solution" in readme
    assert "voila notebooks/en/06_" in readme
