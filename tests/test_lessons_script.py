"""scripts/lessons.sh, the README's main command, and scripts/venv.sh, which it sources.

- With a fake .venv (its python and jupyter log how they are called): what runs on
  a fresh machine, on a second start (no pip at all), after pyproject.toml
  changes, after a failed install, and that test.sh's "test" extras keep their own stamp.
- With the real .venv, once: JupyterLab serves notebooks/ (both en/ and zh/),
  the lessons are trusted, it starts with the package index unreachable, and
  the script prints nothing before JupyterLab's own log.
"""

import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests._browser import free_port, jupyter_data_dir

ROOT = Path(__file__).resolve().parents[1]
AS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0

# the fake .venv's programs: each logs one line, "<name> <cwd> <arguments>"
FAKE_PYTHON = """#!/usr/bin/env bash
if [ "$1" = "-m" ] && [ "$2" = "pip" ]; then
  echo "pip $PWD ${*:3}" >>"$CALLS"
  exit "${PIP_EXIT:-0}"
fi
exec REAL_PYTHON "$@"
"""
FAKE_JUPYTER = """#!/usr/bin/env bash
echo "jupyter $PWD $*" >>"$CALLS"
"""
# the "system Python" of a fresh machine: `-m venv DIR` makes a fake .venv
FAKE_SYSTEM_PYTHON = """#!/usr/bin/env bash
if [ "$1" = "-m" ] && [ "$2" = "venv" ]; then
  echo "venv $PWD $3" >>"$CALLS"
  mkdir -p "$3/bin" && cp "$FAKES/python" "$FAKES/jupyter" "$3/bin/"
  exit 0
fi
exit 97
"""


def fingerprint(pyproject: Path, extras: str) -> str:
    """The stamp venv.sh writes: sha256 of pyproject.toml, a newline and the extras' name."""
    return hashlib.sha256(pyproject.read_bytes() + b"\n" + extras.encode()).hexdigest()


@pytest.fixture
def project(tmp_path):
    """A copy of the checkout's scripts and pyproject.toml, with two tiny lessons,
    and fakes for a system Python that makes a fake .venv."""
    root = tmp_path / "checkout"
    (root / "scripts").mkdir(parents=True)
    for name in ("lessons.sh", "venv.sh"):
        shutil.copy(ROOT / "scripts" / name, root / "scripts" / name)
    shutil.copy(ROOT / "pyproject.toml", root / "pyproject.toml")
    for language in ("en", "zh"):
        (root / "notebooks" / language).mkdir(parents=True)
        for lesson in ("01_computation_graph.ipynb", "02_backward_and_gradients.ipynb"):
            (root / "notebooks" / language / lesson).write_text("{}")
    fakes = tmp_path / "fakes"
    fakes.mkdir()
    for name, script in (
        ("python", FAKE_PYTHON),
        ("jupyter", FAKE_JUPYTER),
        ("system-python", FAKE_SYSTEM_PYTHON),
    ):
        (fakes / name).write_text(script.replace("REAL_PYTHON", sys.executable))
        (fakes / name).chmod(0o755)
    return root, fakes


def run(root: Path, fakes: Path, command: str, **env) -> tuple[subprocess.CompletedProcess, list[str]]:
    """Run `command` in bash at `root`; the calls the fakes logged, as lines."""
    calls = root.parent / "calls.log"
    calls.unlink(missing_ok=True)
    environment = {
        "PATH": os.environ["PATH"],
        "HOME": str(root.parent),
        "CALLS": str(calls),
        "FAKES": str(fakes),
        "PYTHON": str(fakes / "system-python"),
        **env,
    }
    done = subprocess.run(["bash", "-c", command], cwd=root, env=environment, capture_output=True, text=True)
    return done, calls.read_text().splitlines() if calls.exists() else []


def test_fresh_machine_second_start_changed_dependencies_and_failed_install(project):
    root, fakes = project
    notebooks = root / "notebooks"
    allow_root = " --allow-root" if AS_ROOT else ""
    trust = f"jupyter {root} trust --log-level=WARN " + " ".join(
        f"notebooks/{language}/{lesson}"
        for language in ("en", "zh")
        for lesson in ("01_computation_graph.ipynb", "02_backward_and_gradients.ipynb")
    )
    lab = (
        f"jupyter {notebooks} lab{allow_root} --ServerApp.root_dir={notebooks} "
        "en/01_computation_graph.ipynb --no-browser --port 8899"
    )
    install = [f"pip {root} install --quiet --upgrade pip", f"pip {root} install --quiet -e .[lessons]"]
    start = "bash scripts/lessons.sh --no-browser --port 8899"

    # a fresh machine: .venv is made, the project installed, the lessons trusted, then JupyterLab
    done, calls = run(root, fakes, start)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert calls == [f"venv {root} .venv", *install, trust, lab]
    stamp = root / ".venv" / ".lessons-stamp"
    assert stamp.read_text().strip() == fingerprint(root / "pyproject.toml", "lessons")

    # the second start: no pip at all
    done, calls = run(root, fakes, start)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert calls == [trust, lab]

    # the dependencies changed: installed again, then quiet again
    with open(root / "pyproject.toml", "a") as pyproject:
        pyproject.write("# a change\n")
    assert run(root, fakes, start)[1] == [*install, trust, lab]
    assert stamp.read_text().strip() == fingerprint(root / "pyproject.toml", "lessons")
    assert run(root, fakes, start)[1] == [trust, lab]

    # an install that fails stops the script, and is tried again at the next start
    (root / "pyproject.toml").write_text((root / "pyproject.toml").read_text() + "# another\n")
    done, calls = run(root, fakes, start, PIP_EXIT="1")
    assert done.returncode == 1 and calls == install[:1]  # set -e: nothing after the failed pip
    assert stamp.read_text().strip() != fingerprint(root / "pyproject.toml", "lessons")
    assert run(root, fakes, start)[1] == [*install, trust, lab]


def test_the_test_extras_keep_their_own_stamp(project):
    root, fakes = project
    assert run(root, fakes, "bash scripts/lessons.sh")[0].returncode == 0
    lessons_stamp = (root / ".venv" / ".lessons-stamp").read_text()
    source = "set -euo pipefail; source scripts/venv.sh test"
    done, calls = run(root, fakes, source)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert calls == [f"pip {root} install --quiet --upgrade pip", f"pip {root} install --quiet -e .[test]"]
    assert (root / ".venv" / ".test-stamp").read_text().strip() == fingerprint(
        root / "pyproject.toml", "test"
    )
    assert (root / ".venv" / ".lessons-stamp").read_text() == lessons_stamp
    assert run(root, fakes, source)[1] == []
    # pip's notices about root and about newer pips stay off, in test.sh's torch install too
    done, _ = run(root, fakes, source + '; echo "$PIP_ROOT_USER_ACTION $PIP_DISABLE_PIP_VERSION_CHECK"')
    assert done.stdout == "ignore 1\n"


# -- the real .venv, once -------------------------------------------------------------

JUPYTER_LOG_LINE = re.compile(r"^\[[DIWEC] \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ [A-Za-z]+\]")


@pytest.mark.skipif(not (ROOT / ".venv" / "bin" / "jupyter").exists(), reason="no .venv with jupyter")
def test_real_start_serves_both_languages_trusted_offline_and_quiet(tmp_path):
    """lessons.sh against a checkout whose .venv/bin holds the real python and
    jupyter, installed once (its stamp is current), with no package index."""
    nbformat = pytest.importorskip("nbformat")
    from nbformat.sign import NotebookNotary

    root = tmp_path / "checkout"
    (root / "scripts").mkdir(parents=True)
    (root / ".venv" / "bin").mkdir(parents=True)
    for name in ("lessons.sh", "venv.sh"):
        shutil.copy(ROOT / "scripts" / name, root / "scripts" / name)
    shutil.copy(ROOT / "pyproject.toml", root / "pyproject.toml")
    shutil.copytree(
        ROOT / "notebooks", root / "notebooks", ignore=shutil.ignore_patterns(".ipynb_checkpoints")
    )
    for name in ("python", "jupyter"):
        (root / ".venv" / "bin" / name).symlink_to(ROOT / ".venv" / "bin" / name)
    (root / ".venv" / ".lessons-stamp").write_text(fingerprint(root / "pyproject.toml", "lessons") + "\n")

    data = jupyter_data_dir(tmp_path)
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path / "home"),
        "JUPYTER_DATA_DIR": str(data),
        "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
        "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
        "JUPYTER_PATH": str(data),
        "PIP_NO_INDEX": "1",  # no network for pip: were it called, it could not install anything
        "PIP_INDEX_URL": "http://127.0.0.1:9/",
    }
    port, token = free_port(), "lessons-script-test"
    args = [
        "--no-browser",
        f"--port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
    ]
    stdout, stderr = tmp_path / "stdout.log", tmp_path / "stderr.log"
    with open(stdout, "w") as out, open(stderr, "w") as err:
        server = subprocess.Popen(
            ["bash", str(root / "scripts" / "lessons.sh"), *args],
            env=env,
            stdout=out,
            stderr=err,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                with urllib.request.urlopen(
                    f"http://127.0.0.1:{port}/api/contents?token={token}", timeout=2
                ) as r:
                    contents = json.load(r)
                break
            except Exception:
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"JupyterLab did not answer:\n{stdout.read_text()}\n{stderr.read_text()}")
                time.sleep(0.25)
        assert {item["name"] for item in contents["content"] if item["type"] == "directory"} >= {"en", "zh"}
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/contents/zh?token={token}", timeout=5) as r:
            chinese = {item["name"] for item in json.load(r)["content"]}
        assert "01_computation_graph.ipynb" in chinese
        # the file it opens, relative to that root (JupyterLab keeps it for the browser it would open)
        pages = [p.read_text() for p in (tmp_path / "runtime").glob("jpserver-*-open.html")]
        links = [re.search(r'href="([^"?]+)', page).group(1) for page in pages]
        assert any(link.endswith("/lab/tree/en/01_computation_graph.ipynb") for link in links), links
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(5)

    # every lesson, in both languages, is trusted in this Jupyter data dir
    notary = NotebookNotary(data_dir=str(data))
    lessons = sorted((root / "notebooks").glob("*/*.ipynb"))
    assert len(lessons) >= 2 and {p.parent.name for p in lessons} == {"en", "zh"}
    untrusted = [p.name for p in lessons if not notary.check_signature(nbformat.read(p, as_version=4))]
    assert untrusted == []

    # nothing of the script's own: the first line of each stream is JupyterLab's log
    for stream in (stdout, stderr):
        lines = stream.read_text().splitlines()
        assert not lines or JUPYTER_LOG_LINE.match(lines[0]), lines[:3]
        assert not any(
            word in line for line in lines for word in ("Signing notebook", "Requirement", "pip")
        ), lines
