"""What the browser tests share: Debian's chromium, the flags that keep it off
the network, free ports, and a Jupyter data dir whose python3 kernel is this
very Python (whatever python3 kernelspec the machine has elsewhere)."""

import contextlib
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = Path(__file__).parent / "artifacts"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def jupyter_data_dir(tmp: Path) -> Path:
    """tmp/data, holding a python3 kernelspec that runs sys.executable."""
    kernel = tmp / "data" / "kernels" / "python3"
    kernel.mkdir(parents=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (kernel / "kernel.json").write_text(
        json.dumps({"argv": argv, "display_name": "Python 3", "language": "python"})
    )
    return tmp / "data"


@contextlib.contextmanager
def jupyter_lab(
    root: Path,
    tmp: Path,
    settings: dict[str, dict] | None = None,
    hide_dot: bool = False,
    app: str = "jupyterlab",
) -> Iterator[tuple[str, str]]:
    """`jupyter lab` from this Python on a free port, serving `root`, with settings, kernels
    and workspaces of its own under `tmp`. Yields (base URL, token); stops the server and
    its kernels on exit.

    settings: extra user settings, {"@jupyterlab/notebook-extension/tracker": {...}, ...}.
    hide_dot: take a system Graphviz `dot` off PATH, as on a learner's machine.
    app: "jupyterlab", or "notebook" for Notebook 7 (notebooks open at /notebooks/<path>).
    """
    app_class = {"jupyterlab": "LabApp", "notebook": "JupyterNotebookApp"}[app]
    data_dir = jupyter_data_dir(tmp)
    # no news or update toasts: they can cover what a test clicks or measures
    all_settings = {
        "@jupyterlab/apputils-extension/notification": {"fetchNews": "false", "checkForUpdates": False}
    }
    all_settings.update(settings or {})
    for name, values in all_settings.items():
        package, plugin = name.rsplit("/", 1)
        folder = tmp / "settings" / package
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{plugin}.jupyterlab-settings").write_text(json.dumps(values))
    env = {k: v for k, v in os.environ.items() if k != "AUTOGRADVIZ_RENDERER"}
    env.update(
        JUPYTER_CONFIG_DIR=str(tmp / "config"),
        JUPYTER_DATA_DIR=str(data_dir),
        JUPYTER_RUNTIME_DIR=str(tmp / "runtime"),
        JUPYTERLAB_SETTINGS_DIR=str(tmp / "settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(tmp / "workspaces"),
        IPYTHONDIR=str(tmp / "ipython"),
        PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    )
    if hide_dot:  # only this Python's own bin, and no folder that holds a `dot`
        env["PATH"] = os.pathsep.join(
            [str(Path(sys.executable).parent)]
            + [d for d in os.environ["PATH"].split(os.pathsep) if d and not (Path(d) / "dot").exists()]
        )
    port, token = free_port(), secrets.token_hex(16)
    command = [
        sys.executable,
        "-m",
        app,
        "--no-browser",
        "--ip=127.0.0.1",
        f"--port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root}",
        # window.jupyterapp: run cells, see the kernel's status
        f"--{app_class}.expose_app_in_browser=True",
        *(
            ["--LabApp.news_url=None", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
            if app == "jupyterlab"
            else []
        ),
        *(["--allow-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []),
    ]
    log = tmp / "server.log"
    with open(log, "w") as out:
        server = subprocess.Popen(
            command, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status?token={token}", timeout=2)
                break
            except Exception:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("jupyter lab did not start:\n" + log.read_text()) from None
                time.sleep(0.25)
        yield f"http://127.0.0.1:{port}", token
    finally:
        os.killpg(server.pid, signal.SIGTERM)  # the server and its kernels: our own process group
        try:
            server.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(5)
