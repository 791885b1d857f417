"""What the browser tests share: Debian's chromium, the flags that keep it off
the network, free ports, and a Jupyter data dir whose python3 kernel is this
very Python (whatever python3 kernelspec the machine has elsewhere)."""

import json
import socket
import sys
from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
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
