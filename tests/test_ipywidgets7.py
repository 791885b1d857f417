"""The widgets under Google Colab's ipywidgets 7.7.1 (issue 16, item 4).

Colab ships anywidget 0.9, ipywidgets 7.7.1 and a system `dot`; a package that
requires ipywidgets 8 makes pip upgrade Colab's, a known source of broken
widgets there. So autogradviz accepts ipywidgets 7.7, and this file checks it:

- a second environment: ipywidgets 7.7.1 with the packages made for it
  (widgetsnbextension 3.6, jupyterlab_widgets 1.1), installed from PyPI once
  into build/ipywidgets7/ and put ahead of .venv's ipywidgets 8 on PYTHONPATH;
  the widget test files run there in a subprocess, and all pass;
- pip, asked to install autogradviz where ipywidgets 7.7.1 is, keeps it;
- the README says how to install on Colab, VS Code and Kaggle, and names the
  fallback pages, whose code runs as written.
"""

from __future__ import annotations

import base64
import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from xml.etree import ElementTree

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
COLAB_IPYWIDGETS = "7.7.1"
# ipywidgets 7.7.1 and what it needs that .venv does not have, or has only in versions made for
# ipywidgets 8 (widgetsnbextension 4, jupyterlab_widgets 3); everything else (ipykernel, comm,
# traitlets, IPython, anywidget) is .venv's own
PINS = (
    f"ipywidgets=={COLAB_IPYWIDGETS}",
    "widgetsnbextension==3.6.10",
    "jupyterlab_widgets==1.1.11",
    "ipython_genutils==0.2.0",
)
OVERLAY = ROOT / "build" / "ipywidgets7"
STAMP = OVERLAY / ".stamp"  # holds PINS once the install finished: a different list installs anew
WIDGET_TESTS = ("tests/test_widget_resources.py", "tests/test_stepper.py", "tests/test_monitor.py")


def install_failed(what: str, result: subprocess.CompletedProcess) -> None:
    """Skip (no network here) or, in CI, which reaches PyPI, fail, with pip's own last words."""
    errors = [line for line in result.stderr.splitlines() if line.startswith("ERROR")]
    reason = f"{what}: pip exited {result.returncode}: {(errors or result.stderr.splitlines() or ['?'])[-1]}"
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason + " (no network to PyPI?)")


@pytest.fixture(scope="module")
def overlay() -> Path:
    """build/ipywidgets7/, holding Colab's ipywidgets; installed once, kept while PINS stay."""
    wanted = "\n".join(PINS)
    if STAMP.is_file() and STAMP.read_text(encoding="utf-8") == wanted:
        return OVERLAY
    shutil.rmtree(OVERLAY, ignore_errors=True)
    # --no-deps: the rest must stay .venv's; widgetsnbextension's `notebook` is for the classic
    # notebook's front end only, and ipywidgets' other needs are all in .venv already
    result = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps"]
        + ["--target", str(OVERLAY), *PINS],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if result.returncode != 0:
        install_failed(f"installing {', '.join(PINS)}", result)
    STAMP.write_text(wanted, encoding="utf-8")  # last: a broken install is done again next time
    return OVERLAY


def environment_with(overlay: Path) -> dict[str, str]:
    """This process's environment, with the overlay ahead of .venv on the import path."""
    paths = [str(overlay), *filter(None, [os.environ.get("PYTHONPATH")])]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}


PROBE = """
import importlib.metadata, json
import anywidget, ipywidgets
from ipywidgets.widgets import widget
print(json.dumps({
    "version": ipywidgets.__version__,
    "metadata": importlib.metadata.version("ipywidgets"),
    "file": ipywidgets.__file__,
    "comm": widget.Comm.__module__ + "." + widget.Comm.__qualname__,
    "anywidget": anywidget.__file__,
}))
"""


def test_the_second_environment_imports_colabs_ipywidgets(overlay):
    result = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, env=environment_with(overlay), cwd=ROOT
    )
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout)
    assert (seen["version"], seen["metadata"]) == (COLAB_IPYWIDGETS, COLAB_IPYWIDGETS)
    assert Path(seen["file"]).is_relative_to(overlay)
    # the 7.x way, which lifetime.py handles: every widget's comm is made by ipykernel's class
    assert seen["comm"] == "ipykernel.comm.comm.Comm"
    assert not Path(seen["anywidget"]).is_relative_to(overlay)  # the rest is .venv's


# runs pytest in the very process whose ipywidgets was just checked
CHILD_PYTEST = """
import sys
import ipywidgets, pytest
if ipywidgets.__version__ != sys.argv[1]:
    sys.exit(f"expected ipywidgets {sys.argv[1]}, imported {ipywidgets.__version__} from {ipywidgets.__file__}")
sys.exit(pytest.main(sys.argv[2:]))
"""


def test_the_widget_tests_pass_under_ipywidgets_7(overlay, tmp_path):
    report = tmp_path / "junit.xml"
    options = ["-q", "-p", "no:randomly", "-p", "no:cacheprovider", f"--junitxml={report}"]
    result = subprocess.run(
        [sys.executable, "-c", CHILD_PYTEST, COLAB_IPYWIDGETS, *options, *WIDGET_TESTS],
        capture_output=True,
        text=True,
        env=environment_with(overlay),
        cwd=ROOT,
        timeout=600,
    )
    summary = "\n".join(result.stdout.splitlines()[-30:])
    assert result.returncode == 0, summary + result.stderr[-2000:]
    cases = ElementTree.parse(report).getroot().iter("testcase")
    outcomes: dict[str, list[str]] = {}
    skip_reasons = []
    for case in cases:
        verdicts = [child for child in case if child.tag in ("failure", "error", "skipped")]
        outcome = verdicts[0].tag if verdicts else "passed"
        outcomes.setdefault(outcome, []).append(f"{case.get('classname')}::{case.get('name')}")
        if outcome == "skipped":
            skip_reasons.append(verdicts[0].get("message", ""))
    assert set(outcomes) <= {"passed", "skipped"}, outcomes
    # every file ran: none was left out by a collection problem
    ran_files = {name.split("::")[0].rsplit(".", 1)[-1] for name in outcomes["passed"]}
    assert ran_files == {Path(path).stem for path in WIDGET_TESTS}
    # a skip is only one that skips in .venv too: torch or a CJK font missing from this machine
    for reason in skip_reasons:
        assert "no CJK font" in reason or "torch" in reason, reason
    skipped = len(outcomes.get("skipped", []))
    print(f"under ipywidgets {COLAB_IPYWIDGETS}: {len(outcomes['passed'])} passed, {skipped} skipped")


KERNEL_CELL = """
import json, warnings
import ipywidgets
import autogradviz as agv
from autogradviz.widgets.lifetime import has_kernel

a = agv.tensor(2.0, requires_grad=True)
stepper = agv.BackwardStepper(a * a, names={"a": a})
model_id = stepper.model_id
with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)  # reading Widget.widgets, in 8.x
    table = ipywidgets.Widget.widgets
    kept, in_kernel = model_id in table, has_kernel(stepper)
    stepper.close()
    print(json.dumps({"ipywidgets": ipywidgets.__version__, "model_id": model_id,
                      "has_kernel": in_kernel, "kept": kept, "kept_after_close": model_id in table}))
"""


@pytest.mark.parametrize("colab", [True, False], ids=["ipywidgets-7.7.1", "ipywidgets-8"])
def test_in_a_real_kernel_the_stepper_is_kept_until_close(colab, request, tmp_path):
    """The other side of forgetting: in an ipykernel kernel the browser may need a widget, so
    it stays in ipywidgets' table, its comm_open sent, until close()."""
    from _browser import jupyter_data_dir
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import KernelManager

    env = environment_with(request.getfixturevalue("overlay")) if colab else dict(os.environ)
    specs = KernelSpecManager(kernel_dirs=[str(jupyter_data_dir(tmp_path) / "kernels")])
    manager = KernelManager(kernel_name="python3", kernel_spec_manager=specs)
    manager.start_kernel(env=env, cwd=str(tmp_path))
    messages = []
    try:
        client = manager.client()
        client.start_channels()
        client.wait_for_ready(timeout=60)
        reply = client.execute_interactive(KERNEL_CELL, timeout=120, output_hook=messages.append)
        client.stop_channels()
    finally:
        manager.shutdown_kernel(now=True)
    printed = "".join(m["content"]["text"] for m in messages if m["msg_type"] == "stream")
    assert reply["content"]["status"] == "ok", reply["content"]
    seen = json.loads(printed)
    assert seen["ipywidgets"].startswith("7.7.1" if colab else "8.")
    assert (seen["has_kernel"], seen["kept"], seen["kept_after_close"]) == (True, True, False)
    sent = [(m["msg_type"], m["content"].get("comm_id")) for m in messages]
    assert ("comm_open", seen["model_id"]) in sent and ("comm_close", seen["model_id"]) in sent


# -- the dependency -----------------------------------------------------------------------


def ipywidgets_requirement(pyproject: str) -> Requirement:
    (line,) = re.findall(r'"(ipywidgets[^"]*)"', pyproject)
    return Requirement(line)


def test_anywidget_and_autogradviz_both_accept_colabs_ipywidgets():
    """anywidget, which both widgets are built on, accepts ipywidgets from 7.6; autogradviz
    from 7.7, the series tested here."""
    anywidget_needs = [
        Requirement(line)
        for line in importlib.metadata.requires("anywidget")
        if line.startswith("ipywidgets")
    ]
    assert [COLAB_IPYWIDGETS in need.specifier for need in anywidget_needs] == [True]
    ours = ipywidgets_requirement((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert COLAB_IPYWIDGETS in ours.specifier and "8.1.9" in ours.specifier
    assert "7.6.0" not in ours.specifier  # not tested here: not promised


def would_install(pyproject: str, overlay: Path, folder: Path) -> list[str]:
    """What `pip install` of a project with this pyproject.toml would install where Colab's
    ipywidgets is (pip's dry run; the metadata is built with .venv's setuptools)."""
    folder.mkdir()
    (folder / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    shutil.copy(ROOT / "README.md", folder / "README.md")  # pyproject.toml names it as the readme
    report = folder / "report.json"
    result = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--quiet", "--disable-pip-version-check"]
        + ["--no-build-isolation", "--report", str(report), str(folder)],
        capture_output=True,
        text=True,
        env=environment_with(overlay),
        timeout=300,
    )
    if result.returncode != 0:
        install_failed("pip's dry run of installing autogradviz", result)
    return sorted(item["metadata"]["name"].lower() for item in json.loads(report.read_text())["install"])


def test_installing_autogradviz_keeps_colabs_ipywidgets(overlay, tmp_path):
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    planned = would_install(pyproject, overlay, tmp_path / "as-is")
    assert "autogradviz" in planned
    assert {"ipywidgets", "widgetsnbextension", "jupyterlab_widgets", "jupyterlab-widgets"}.isdisjoint(
        planned
    )
    # the control: with the old requirement, the same dry run upgrades Colab's ipywidgets
    old = pyproject.replace(f'"{ipywidgets_requirement(pyproject)}"', '"ipywidgets>=8"')
    assert "ipywidgets" in would_install(old, overlay, tmp_path / "ipywidgets-8")


def test_the_wheel_the_readme_builds_has_the_widgets_and_accepts_ipywidgets_7(tmp_path):
    """`python -m pip wheel --no-deps . -w dist`, as the README says (with .venv's setuptools)."""
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--quiet"]
        + ["--disable-pip-version-check", str(ROOT), "-w", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    (wheel,) = tmp_path.glob("*.whl")
    assert wheel.name == "autogradviz-0.1.0-py3-none-any.whl"  # the name the README's install lines use
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = archive.read("autogradviz-0.1.0.dist-info/METADATA").decode()
    assert {"autogradviz/widgets/stepper.js", "autogradviz/widgets/stepper.css"} <= names
    (needs,) = [Requirement(line) for line in re.findall(r"^Requires-Dist: (ipywidgets.*)$", metadata, re.M)]
    assert COLAB_IPYWIDGETS in needs.specifier


# -- the README ------------------------------------------------------------------------------


def readme_section(heading: str) -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index(heading)
    following = re.search(r"^#{1,3} ", readme[start + len(heading) :], re.M)
    return readme[start : start + len(heading) + (following.start() if following else len(readme))]


def test_the_readme_says_how_to_install_on_each_platform():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    heading = "### Colab, VS Code and Kaggle"
    assert readme.index("### Run the lessons in your browser") < readme.index(heading)
    section = readme_section(heading)
    for platform in ("**Google Colab**", "**VS Code**", "**Kaggle**"):
        bullet = section[section.index(platform) :].split("\n- ")[0]
        assert "pip install" in bullet, platform
    assert "python -m pip wheel --no-deps . -w dist" in section  # what the wheel test runs
    for fact in ("anywidget 0.9", f"ipywidgets {COLAB_IPYWIDGETS}", "CDN", "Restart the kernel"):
        assert fact in section, fact


def test_the_readmes_fallback_pages_are_written_by_its_code_as_it_stands(tmp_path, monkeypatch):
    """The section's code block, run as written after a stepper cell: both pages exist."""
    import autogradviz as agv

    section = readme_section("### Colab, VS Code and Kaggle")
    (code,) = re.findall(r"```python\n(.*?)```", section, re.S)
    assert "stepper.to_html(" in code and hasattr(agv.BackwardStepper, "to_html")
    monkeypatch.chdir(tmp_path)
    a = agv.tensor(2.0, requires_grad=True)
    b = agv.tensor(5.0, requires_grad=True)
    e = a * b
    stepper = agv.BackwardStepper(e, names={"a": a, "b": b, "e": e})
    exec(code, {"agv": agv, "a": a, "b": b, "e": e, "stepper": stepper})
    pages = {path.name: path.read_text(encoding="utf-8") for path in tmp_path.iterdir()}
    assert sorted(pages) == ["backward.html", "graph.html"]
    assert pages["backward.html"].startswith("<!DOCTYPE html>") and "<script" in pages["backward.html"]
    assert json.dumps(stepper.frames)[:200].replace("<", "\\u003c") in pages["backward.html"]
    assert pages["graph.html"].startswith("<!DOCTYPE html>")
    (picture,) = re.findall(r'src="data:image/svg\+xml;base64,([^"]+)"', pages["graph.html"])
    # the drawing of e, with the names locals() gave (without them it would differ)
    named = agv.draw(e, names={"a": a, "b": b, "e": e}).svg()
    assert base64.b64decode(picture).decode("utf-8") == named != agv.draw(e, names=False).svg()
