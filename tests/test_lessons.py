"""The lessons: twenty-four notebooks (twelve in English, the same twelve in Chinese),
checked so that none can silently rot.

- nbval runs every notebook and compares each output with the stored one (SVG
  drawings through notebooks/nbval_sanitize.cfg: geometry blanked, labels kept);
- the English and Chinese notebooks run exactly the same code;
- each notebook holds the cells its script in notebooks/src writes now (so ruff, which
  checks the cells in the notebooks, checks the scripts' cells);
- the stored outputs are complete: every code cell ran, in order, in one go;
- each lesson ends with exercises: a solution cell (tagged) and a check cell;
- the learner's code carries no test markers, the Chinese lessons switch
  autogradviz to Chinese, and the monitor runs on the real clock;
- one house style: titles "# Lesson N · Title" / "# 第 N 课 · 标题", other lessons
  named "lesson 2" / "第 2 课", Chinese quotes “” in Chinese prose, one Chinese term
  per concept (notebooks/glossary.md);
- the README documents scripts/student_copies.py (tests/test_student_copies.py
  runs the copies it writes).
"""

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from autogradviz.ui_text import text

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
LESSONS = sorted(p.name for p in (NOTEBOOKS / "en").glob("[0-9][0-9]_*.ipynb"))


def cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def code_cells(path: Path) -> list[dict]:
    return [c for c in cells(path) if c["cell_type"] == "code"]


TWELVE_LESSONS = [
    "01_computation_graph.ipynb",
    "02_backward_and_gradients.ipynb",
    "03_tensor_attributes.ipynb",
    "04_logistic_regression.ipynb",
    "05_paddle_style_autograd.ipynb",
    "06_inside_the_engine.ipynb",
    "07_training_a_network.ipynb",
    "08_beyond_first_derivatives.ipynb",
    "09_build_micrograd.ipynb",
    "10_matrix_backprop.ipynb",
    "11_debugging_gradients.ipynb",
    "12_forward_and_reverse_mode.ipynb",
]


def test_there_are_twelve_lessons_in_each_language():
    assert LESSONS == TWELVE_LESSONS
    assert sorted(p.name for p in (NOTEBOOKS / "zh").glob("[0-9][0-9]_*.ipynb")) == LESSONS


def markdown_of(path: Path) -> list[str]:
    return ["".join(c["source"]) for c in cells(path) if c["cell_type"] == "markdown"]


@pytest.mark.parametrize("name", LESSONS)
def test_every_lesson_has_one_title_style(name):
    """`# Lesson 5 · Title` and `# 第 5 课 · 标题`: the number without a leading zero,
    a middle dot, and the title on the first line of the first cell."""
    number = int(name[:2])
    for lang, prefix in (("en", f"# Lesson {number} · "), ("zh", f"# 第 {number} 课 · ")):
        first = cells(NOTEBOOKS / lang / name)[0]
        title = "".join(first["source"]).splitlines()[0]
        assert first["cell_type"] == "markdown" and title.startswith(prefix), (lang, title)
        assert len(title) > len(prefix), f"{lang}/{name}: the title is missing after {prefix!r}"


def chinese_prose(markdown: str) -> str:
    """What a reader reads as Chinese text: without code blocks, code spans, maths,
    HTML tags and link targets (which may hold ASCII quotes legitimately)."""
    markdown = re.sub(r"```.*?```", " ", markdown, flags=re.DOTALL)
    markdown = re.sub(r"`[^`]*`", " ", markdown)
    markdown = re.sub(r"\$\$.*?\$\$", " ", markdown, flags=re.DOTALL)
    markdown = re.sub(r"\$[^$]*\$", " ", markdown)
    markdown = re.sub(r"<[^>]*>", " ", markdown)
    return re.sub(r"\]\([^)]*\)", "]", markdown)


def test_chinese_prose_filter_keeps_prose_and_drops_code():
    sample = '他说"好"。`print("x")` $a"b$ <a href="x">链接</a> [术语表](../glossary.md "t")'
    kept = chinese_prose(sample)
    assert '"好"' in kept and "print" not in kept and "href" not in kept and "glossary" not in kept
    assert "链接" in kept and "[术语表]" in kept


@pytest.mark.parametrize("name", LESSONS)
def test_chinese_lessons_use_chinese_quotes_and_one_term_per_concept(name):
    """Chinese prose quotes with “ ”, never ASCII "; in-place is 原地操作 (never 就地) and a
    widget is 小部件 (never 控件), as notebooks/glossary.md fixes them."""
    path = NOTEBOOKS / "zh" / name
    for markdown in markdown_of(path):
        prose = chinese_prose(markdown)
        assert '"' not in prose, (
            f"zh/{name}: ASCII quotes in {prose[max(prose.find(chr(34)) - 40, 0) :][:100]!r}"
        )
    everything = json.dumps(cells(path), ensure_ascii=False)
    for stale, term in (("就地", "原地"), ("控件", "小部件")):
        assert stale not in everything, f"zh/{name}: write {term}, not {stale}"


GLOSSARY = NOTEBOOKS / "glossary.md"

# the terms issue 15 fixes, English and the one Chinese term for each
GLOSSARY_TERMS = [
    ("computation graph", "计算图"),
    ("node", "节点"),
    ("leaf tensor", "叶子张量"),
    ("gradient", "梯度"),
    ("backward pass, backpropagation", "反向传播"),
    ("forward pass", "前向传播"),
    ("chain rule", "链式法则"),
    ("upstream gradient", "上游梯度"),
    ("local derivative", "局部导数"),
    ("accumulate", "累加"),
    ("in-place operation", "原地操作"),
    ("view", "视图"),
    ("saved tensor", "保存的张量"),
    ("grad_fn", "grad_fn"),
    ("AccumulateGrad", "AccumulateGrad"),
    ("detach", "分离"),
    ("widget", "小部件"),
    ("stepper (BackwardStepper)", "逐步演示器"),
    ("Jacobian", "雅可比矩阵"),
    ("vector-Jacobian product (VJP)", "向量-雅可比积"),
    ("Hessian", "海森矩阵"),
    ("topological order", "拓扑排序"),
    ("broadcasting", "广播"),
    ("optimizer", "优化器"),
    ("learning rate", "学习率"),
    ("loss", "损失"),
]


def glossary_rows() -> dict[str, list[str]]:
    """English term -> the row's other cells, for every table row of notebooks/glossary.md."""
    rows = {}
    for line in GLOSSARY.read_text(encoding="utf-8").splitlines():
        cells_of_row = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells_of_row) == 5 and not set(cells_of_row[0]) <= set("-"):
            rows[cells_of_row[0]] = cells_of_row[1:]
    return rows


def test_the_glossary_fixes_one_chinese_term_per_concept():
    rows = glossary_rows()
    for english, chinese in GLOSSARY_TERMS:
        assert english in rows, f"notebooks/glossary.md has no row for {english!r}"
        assert rows[english][0].startswith(chinese), (english, rows[english][0])
    english_terms = [name for name in rows if name != "English"]
    assert len(english_terms) == len(set(english_terms)), "one row per term"
    chinese_terms = [rows[name][0] for name in english_terms]
    assert len(chinese_terms) == len(set(chinese_terms)), "two concepts share a Chinese term"
    text_of_glossary = GLOSSARY.read_text(encoding="utf-8")
    assert "就地" not in text_of_glossary and "控件" not in text_of_glossary


def test_the_glossary_points_at_files_that_exist():
    for target in re.findall(r"\]\((\.\./autogradviz/[^)]*)\)", GLOSSARY.read_text(encoding="utf-8")):
        assert (NOTEBOOKS / target).resolve().exists(), f"notebooks/glossary.md links to missing {target}"


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("name", LESSONS)
def test_every_lesson_links_the_glossary_near_the_top(name, lang):
    link = "[glossary](../glossary.md)" if lang == "en" else "[术语表](../glossary.md)"
    top = "".join(markdown_of(NOTEBOOKS / lang / name)[:2])
    assert link in top, f"{lang}/{name}: link {link} in the first two markdown cells"


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("name", LESSONS)
def test_source_tour_links_point_at_files_that_exist(name, lang):
    for target in re.findall(
        r"\]\((\.\./\.\./autogradviz/[^)]*)\)", "".join(markdown_of(NOTEBOOKS / lang / name))
    ):
        assert (NOTEBOOKS / lang / target).resolve().exists(), f"{lang}/{name} links to missing {target}"


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("name", LESSONS)
def test_lessons_are_named_without_leading_zeros(name, lang):
    """Other lessons are named as the titles name them, "lesson 2" and "第 2 课": never "lesson 02"."""
    prose = "".join(markdown_of(NOTEBOOKS / lang / name))
    stale = re.findall(r"\b[Ll]essons? 0\d|第 ?0\d ?课", prose)
    assert not stale, f"{lang}/{name}: {stale}"


CHINESE_UI = 'agv.set_language("zh")  # 计算图、逐步演示器和监视器里的文字都用中文'


@pytest.mark.parametrize("name", LESSONS)
def test_english_and_chinese_run_the_same_code(name):
    """The same code, except one line: the Chinese lesson's first cell switches
    autogradviz's own text to Chinese (English is the default, so the English lesson
    does not set it)."""
    en = [("".join(c["source"]), c["metadata"].get("tags", [])) for c in code_cells(NOTEBOOKS / "en" / name)]
    zh = [("".join(c["source"]), c["metadata"].get("tags", [])) for c in code_cells(NOTEBOOKS / "zh" / name)]
    assert en[1:] == zh[1:]
    assert "set_language" not in "".join(source for source, _ in en)
    en_first, zh_first = en[0][0].splitlines(), zh[0][0].splitlines()
    assert CHINESE_UI in zh_first and "import autogradviz as agv" in zh_first
    assert zh_first.index(CHINESE_UI) > zh_first.index("import autogradviz as agv")
    assert [line for line in zh_first if line != CHINESE_UI] == en_first
    assert "set_language" not in "".join(source for source, _ in zh[1:]), "set it once, in the first cell"
    prose = [c for c in cells(NOTEBOOKS / "zh" / name) if c["cell_type"] == "markdown"]
    assert any(any("\u4e00" <= ch <= "\u9fff" for ch in "".join(c["source"])) for c in prose), "untranslated"


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("name", LESSONS)
def test_no_test_markers_in_the_code_a_learner_reads(name, lang):
    """nbval's markers live in cell tags: a cell that fails on purpose is tagged
    raises-exception (nbval and nbclient both read the tag), not commented."""
    for cell in code_cells(NOTEBOOKS / lang / name):
        source = "".join(cell["source"])
        assert not re.search(r"#\s*(NBVAL|PYTEST_VALIDATE)_", source, re.IGNORECASE), source
        errors = [out for out in cell["outputs"] if out["output_type"] == "error"]
        if errors:
            assert "raises-exception" in cell["metadata"].get("tags", []), source


def test_the_intended_errors_are_tagged():
    tagged = {
        name: [
            "".join(c["source"])
            for c in code_cells(NOTEBOOKS / "en" / name)
            if "raises-exception" in c["metadata"].get("tags", [])
        ]
        for name in LESSONS
    }
    assert tagged["02_backward_and_gradients.ipynb"] == ["y.backward()"]
    assert tagged["05_paddle_style_autograd.ipynb"] == ["z.backward()"]
    assert tagged["08_beyond_first_derivatives.ipynb"] == ["agv.grad(g, x)"]
    for name, sources in tagged.items():
        for lang in ("en", "zh"):
            errored = [
                "".join(c["source"])
                for c in code_cells(NOTEBOOKS / lang / name)
                if any(out["output_type"] == "error" for out in c["outputs"])
            ]
            assert errored == sources, (lang, name)


STEPPER_BUTTONS = [
    "stepper.reset",
    "stepper.back",
    "stepper.next",
    "stepper.play",
    "stepper.pause",
    "stepper.end",
]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("name", ["02_backward_and_gradients.ipynb", "06_inside_the_engine.ipynb"])
def test_the_prose_names_the_stepper_buttons_that_exist(name, lang):
    prose = "".join(
        "".join(c["source"]) for c in cells(NOTEBOOKS / lang / name) if c["cell_type"] == "markdown"
    )
    bold = set(re.findall(r"\*\*([^*]+)\*\*", prose))
    labels = {text(key, lang) for key in STEPPER_BUTTONS}
    assert labels <= bold, f"{lang}/{name} does not name {sorted(labels - bold)}"
    other_language = {text(key, "zh" if lang == "en" else "en") for key in STEPPER_BUTTONS}
    assert not bold & other_language, f"{lang}/{name} names the other language's buttons"
    for stale in ("**Next**", "**Back**", "**Play**", "**Run to end**"):
        assert stale not in prose


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("name", LESSONS)
def test_prose_reads_shapes_as_shapes(name, lang):
    """A shape is a tuple, `(2,)`: never "shape 2 float32" (drawings label shapes `(2,) float32`)."""
    prose = "".join(
        "".join(c["source"]) for c in cells(NOTEBOOKS / lang / name) if c["cell_type"] == "markdown"
    )
    assert not re.search(r"(shape|形状)\s*`?\d+`?\s*(float|int|bool)", prose)
    assert not re.search(r"(?<![\w(,\[])\d+ (float32|float64|int64)\b", prose)


def sanitize(value: str) -> str:
    """`value` as nbval compares it, through notebooks/nbval_sanitize.cfg."""
    from nbval.plugin import get_sanitize_patterns

    patterns = get_sanitize_patterns((NOTEBOOKS / "nbval_sanitize.cfg").read_text(encoding="utf-8"))
    for regex, replacement in patterns:
        value = re.sub(regex, replacement, value)
    return value


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_sanitize_file_blanks_the_monitors_speed_and_times_only(lang):
    """Two runs of the monitor differ in speed and times, in either language; after
    sanitizing they compare equal, and the step, loss and metrics still count."""

    def status(step, rate_key, rate, time_key, duration):
        parts = [
            text("monitor.step_of", lang, step=step, total=300),
            text("monitor.loss_value", lang, value="0.0063"),
            text(rate_key, lang, **{"rate" if "steps_per" in rate_key else "seconds": rate}),
            text(time_key, lang, duration=duration),
        ]
        return " | ".join(parts)

    for rate_key in ("monitor.steps_per_second", "monitor.seconds_per_step"):
        for time_key in ("monitor.done_in", "monitor.eta", "monitor.elapsed"):
            slow, fast = (
                status(300, rate_key, "2.5", time_key, "1:02:03"),
                status(300, rate_key, "140.7", time_key, "0:07"),
            )
            assert slow != fast and sanitize(slow) == sanitize(fast), (slow, fast, sanitize(slow))
            assert "300/300" in sanitize(slow) and "0.0063" in sanitize(slow)
            assert sanitize(status(299, rate_key, "2.5", time_key, "0:07")) != sanitize(fast)
    unknown = text("monitor.rate_unknown", lang)
    assert sanitize(unknown) == sanitize(text("monitor.steps_per_second", lang, rate="3.0"))


def test_the_monitor_runs_on_the_real_clock():
    for lang in ("en", "zh"):
        source = "".join(
            "".join(c["source"]) for c in code_cells(NOTEBOOKS / lang / "07_training_a_network.ipynb")
        )
        assert "TrainingMonitor(" in source and "clock=" not in source


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("name", LESSONS)
def test_stored_outputs_are_complete(name, lang):
    """Every code cell was run, top to bottom in one session: counts 1, 2, 3, ...
    (nbval below then checks that re-running gives the same outputs)."""
    counts = [c["execution_count"] for c in code_cells(NOTEBOOKS / lang / name)]
    assert counts == list(range(1, len(counts) + 1)), f"{lang}/{name}: re-run it with notebooks/src/"
    text = json.dumps(cells(NOTEBOOKS / lang / name))
    assert " at 0x" not in text, "a memory address in a stored output would change every run"


def script_cells(name: str) -> list[tuple]:
    """The cells of a lesson's build script (notebooks/src/NN_slug.py), read without running it."""
    source = NOTEBOOKS / "src" / name.replace(".ipynb", ".py")
    sys.path.insert(0, str(source.parent))  # the scripts import their helpers as `lesson`
    try:
        spec = importlib.util.spec_from_file_location(f"lesson_script_{name[:2]}", source)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)  # builds nothing: build() runs under __main__ only
    finally:
        sys.path.remove(str(source.parent))
    return module.cells


def as_built(cell: tuple, lang: str) -> tuple[str, str]:
    """A script's cell (lesson.md or lesson.code) as the notebook of `lang` stores it."""
    if cell[0] == "md":  # ("md", en, zh)
        return "markdown", cell[1] if lang == "en" else cell[2]
    return "code", cell[1] if lang == "en" else cell[3]  # ("code", en, tags, zh, metadata)


@pytest.mark.parametrize("name", LESSONS)
def test_the_notebooks_are_built_from_their_scripts(name):
    """Every cell of both notebooks is the one its script says now. ruff checks the code cells
    in the notebooks (in the scripts they are strings), so this is also what makes that check
    cover the scripts' cells."""
    written = script_cells(name)
    for lang in ("en", "zh"):
        built = [(c["cell_type"], "".join(c["source"])) for c in cells(NOTEBOOKS / lang / name)]
        assert built == [as_built(cell, lang) for cell in written], (
            f"{lang}/{name} is stale: rebuild it with notebooks/src/{name.removesuffix('.ipynb')}.py"
        )


@pytest.mark.parametrize("name", LESSONS)
def test_each_lesson_ends_with_exercises_that_check_themselves(name):
    code = code_cells(NOTEBOOKS / "en" / name)
    solutions = [i for i, c in enumerate(code) if "solution" in c["metadata"].get("tags", [])]
    assert len(solutions) >= 2, "two or three exercises per lesson"
    for number, i in enumerate(solutions, start=1):
        check = code[i + 1]
        source = "".join(check["source"])
        assert "solution" not in check["metadata"].get("tags", []) and "assert" in source
        # the check first makes sure every answer is there (a student copy's stub leaves `...`)
        key = f"{name[:2]}.{number}"
        answers = code[i]["metadata"]["autogradviz"]
        assert answers["exercise"] == key
        call = f'answered("{key}", ' + ", ".join(f"{a}={a}" for a in answers["answers"]) + ")"
        assert source.splitlines()[0] == call


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


def test_readme_documents_the_student_copy_script():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert ".venv/bin/python scripts/student_copies.py" in readme
    assert (ROOT / "scripts" / "student_copies.py").is_file()
    assert "student/" in (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert "voila notebooks/en/06_" in readme
