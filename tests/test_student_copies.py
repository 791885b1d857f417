"""Student copies (scripts/student_copies.py): every lesson in both languages, with no
outputs, and a stub where each solution was. Run end to end, a copy's cells all run,
and each check cell stops with "not answered yet" and the exercise's task as a hint,
never with a NameError.

The expected messages are built here from the templates in autogradviz/ui_text.py,
not by calling autogradviz.exercises, whose output is what is under test.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from autogradviz.ui_text import TABLE

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
LESSONS = sorted(p.name for p in (NOTEBOOKS / "en").glob("[0-9][0-9]_*.ipynb"))
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def load_script():
    spec = importlib.util.spec_from_file_location("student_copies", ROOT / "scripts" / "student_copies.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def copies(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("student")
    written = load_script().write_student_copies(out)
    assert sorted(p.relative_to(out).as_posix() for p in written) == sorted(
        f"{lang}/{name}" for lang in ("en", "zh") for name in LESSONS
    )
    return out


def solution_cells(notebook) -> list[int]:
    return [i for i, c in enumerate(notebook.cells) if "solution" in c.metadata.get("tags", [])]


def expected_stub(exercise: str, answers: list[str], lang: str) -> tuple[str, list[str]]:
    """The task the stub's comment must say (unwrapped), and its `name = ...` lines."""
    task = TABLE[f"exercises.{exercise}"][lang]
    heading = TABLE["exercises.stub_heading"][lang].format(number=exercise.split(".")[1], task=task)
    return heading, [f"{name} = ..." for name in answers]


def expected_message(exercise: str, missing: list[str], lang: str) -> str:
    names = TABLE["exercises.name_separator"][lang].join(f"`{name}`" for name in missing)
    message = TABLE["exercises.not_answered"][lang].format(number=exercise.split(".")[1], names=names)
    hint = TABLE["exercises.hint"][lang].format(task=TABLE[f"exercises.{exercise}"][lang])
    return f"{message}\n{hint}"


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("name", LESSONS)
def test_a_copy_has_no_outputs_and_a_stub_for_each_solution(copies, name, lang):
    lesson = nbformat.read(NOTEBOOKS / lang / name, as_version=4)
    copy = nbformat.read(copies / lang / name, as_version=4)
    assert len(copy.cells) == len(lesson.cells)
    assert "widgets" not in copy.metadata  # no stored widget state from the solved run
    solved = solution_cells(lesson)
    assert len(solved) >= 2 and solution_cells(copy) == []
    for i, (before, after) in enumerate(zip(lesson.cells, copy.cells)):
        assert after.cell_type == before.cell_type
        if after.cell_type != "code":
            assert after.source == before.source
            continue
        assert after.outputs == [] and after.execution_count is None
        if i not in solved:
            assert after.source == before.source
            continue
        info = before.metadata["autogradviz"]
        heading, assignments = expected_stub(info["exercise"], info["answers"], lang)
        lines = after.source.splitlines()
        comment = [line[2:] for line in lines if line.startswith("# ")]
        # wrapped at 100 columns: compare without the line breaks (and the spaces around them)
        assert re.sub(r"\s", "", "".join(comment)).startswith(re.sub(r"\s", "", heading)), after.source
        assert [line for line in lines if not line.startswith("#")] == assignments
        assert all(len(line) <= 100 for line in lines if lang == "en")
        # nothing of the solution is left but the names
        code = [line for line in before.source.splitlines() if line.strip() and not line.startswith("#")]
        assert not set(code) & set(lines)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_stubs_speak_the_copys_language(copies, lang):
    copy = nbformat.read(copies / lang / LESSONS[0], as_version=4)
    first = copy.cells[solution_cells(nbformat.read(NOTEBOOKS / lang / LESSONS[0], as_version=4))[0]].source
    if lang == "zh":
        assert first.startswith("# 练习 1：按题目创建 p、q、r、s")
        assert "# 把每个 ... 换成你的代码" in first
    else:
        assert first.startswith("# Exercise 1: create p, q, r and s as shown")
        assert "# Replace each ... with your code" in first
    assert first.endswith("s = ...\nanswers = ...")


def run(path: Path) -> nbformat.NotebookNode:
    notebook = nbformat.read(path, as_version=4)
    NotebookClient(
        notebook,
        timeout=600,
        kernel_name="python3",
        allow_errors=True,  # the check cells fail: that is what is tested
        resources={"metadata": {"path": str(path.parent)}},
    ).execute()
    return notebook


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("name", LESSONS)
def test_a_student_copy_runs_and_every_check_says_not_answered(copies, name, lang):
    lesson = nbformat.read(NOTEBOOKS / lang / name, as_version=4)
    stubs = {i: lesson.cells[i].metadata["autogradviz"] for i in solution_cells(lesson)}
    checks = {}
    for i, info in stubs.items():
        check = next(j for j in range(i + 1, len(lesson.cells)) if lesson.cells[j].cell_type == "code")
        checks[check] = info
    ran = run(copies / lang / name)
    for i, cell in enumerate(ran.cells):
        if cell.cell_type != "code":
            continue
        errors = [out for out in cell.outputs if out.output_type == "error"]
        if i in checks:
            info = checks[i]
            assert len(errors) == 1, f"cell {i} should stop at answered(): {cell.source[:80]}"
            error = errors[0]
            assert error.ename == "NotAnsweredError", (error.ename, error.evalue)
            assert error.evalue == expected_message(info["exercise"], info["answers"], lang)
            assert ("not answered yet" if lang == "en" else "还没有作答") in error.evalue
            # the message is all the learner sees: no frames of the helper (or of anything else)
            traceback = ANSI.sub("", "\n".join(error.traceback))
            assert traceback == f"NotAnsweredError: {error.evalue}", traceback
        elif "raises-exception" in cell.metadata.get("tags", []):
            assert len(errors) == 1, cell.source
        else:
            assert not errors, f"cell {i} failed: {cell.source[:200]}\n{errors and errors[0].evalue}"


def test_answered_passes_real_answers_and_stops_on_placeholders():
    from autogradviz.exercises import NotAnsweredError, answered

    assert answered("01.1", answers={"p": (True, True)}, p=0) is None  # 0 and {} are answers
    for placeholder in (..., None):
        with pytest.raises(NotAnsweredError) as caught:
            answered("02.2", at_a=[4.0, 8.0], at_b=placeholder)
        assert str(caught.value) == expected_message("02.2", ["at_b"], "en")
        assert isinstance(caught.value, AssertionError)
    with pytest.raises(TypeError, match=r"answered\('01.1'\): name at least one answer"):
        answered("01.1")
    with pytest.raises(KeyError, match="unknown exercise '09.9'"):
        answered("09.9", x=...)


def test_answered_speaks_the_current_language():
    import autogradviz as agv
    from autogradviz.exercises import NotAnsweredError, answered

    agv.set_language("zh")
    try:
        with pytest.raises(NotAnsweredError) as caught:
            answered("06.3", first_answer=..., u_grad=..., v_grad=1.0)
    finally:
        agv.set_language("en")
    assert str(caught.value) == expected_message("06.3", ["first_answer", "u_grad"], "zh")
    assert "`first_answer`、`u_grad`" in str(caught.value)


def test_chinese_stubs_wrap_by_display_width():
    import unicodedata

    from autogradviz.exercises import stub

    for key in [k[len("exercises.") :] for k in TABLE if re.fullmatch(r"exercises\.\d\d\.\d", k)]:
        for line in stub(key, ["x"], "zh").splitlines():
            columns = sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in line)
            # 100 columns, plus the closing marks at the end, which may not start the next line
            closing = len(line) - len(line.rstrip("，。、；：！？）"))
            assert columns <= 100 + 2 * closing, line
            assert line[2:3] not in "，。、；：！？）", f"a line starts with closing punctuation: {line}"
