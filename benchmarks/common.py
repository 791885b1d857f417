"""What the benchmark scripts share: the single-threaded process set-up, and the
report's machine facts. Imports nothing heavy: it runs before numpy is imported."""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Set before numpy and torch are imported, and only when run as a script: a test
# that imports a benchmark module must not change its own process's environment.
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
# Some machines here set these so that old OpenBLAS builds pick a safe kernel;
# they slow a current numpy down, so the benchmark process drops them (see
# /work/.library/env/README.md). --keep-openblas-env keeps them.
OPENBLAS_OVERRIDES = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")


def prepare_process_environment(keep_openblas_env: bool) -> list[str]:
    """Pin BLAS/OpenMP to one thread and drop the OpenBLAS kernel overrides.
    Must run before numpy is imported. Returns notes for the report."""
    notes = []
    for var in THREAD_VARS:
        os.environ[var] = "1"
    notes.append(f"{', '.join(THREAD_VARS)} = 1 (set before importing numpy and torch)")
    for var in OPENBLAS_OVERRIDES:
        value = os.environ.get(var)
        if value is None:
            notes.append(f"{var}: not set")
        elif keep_openblas_env:
            notes.append(f"{var}={value!r}: kept (--keep-openblas-env)")
        else:
            del os.environ[var]
            notes.append(f"{var}={value!r}: unset for this process")
    return notes


def summarize(values: list, stat: str) -> float:
    return min(values) if stat == "min" else statistics.median(values)


def load_average() -> str:
    try:
        return " ".join(f"{v:.2f}" for v in os.getloadavg())
    except OSError:
        return "unknown"


def git_revision() -> str:
    try:
        rev = subprocess.run(
            ["git", "-C", str(ROOT), "describe", "--always", "--dirty"],
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return rev.stdout.strip() or "unknown"


def fmt(value: float | None, digits: int = 2) -> str:
    if value is None:
        return "n/a"
    if value >= 100:
        return f"{value:.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.{digits}f}"


def machine_report(np, agv, torch) -> list[str]:
    """The machine, and the versions and thread settings of the libraries
    measured (passed in: the benchmarks import them only after setting their
    thread environment), so that two runs can be compared."""
    cpu = "unknown cpu"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = _meminfo_gb()
    lines = [
        f"machine: {platform.machine()}, {cpu}, {os.cpu_count()} cpus"
        + (f", {mem:.1f} GB RAM" if mem else "")
        + f", {platform.platform()}",
        f"numpy {np.__version__}; autogradviz {getattr(agv, '__version__', '?')}; python {platform.python_version()}",
    ]
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        lines.append("BLAS kernel: unknown (threadpoolctl is not installed)")
    else:
        for lib in threadpool_info():
            kernel = lib.get("architecture")
            lines.append(
                f"threadpoolctl: {lib.get('internal_api')} {lib.get('version') or ''} "
                + (f"kernel={kernel} " if kernel else "")
                + f"threads={lib.get('num_threads')} ({Path(lib.get('filepath', '')).name})"
            )
    if torch is None:
        lines.append("torch: not installed (its columns read n/a)")
    else:
        lines.append(
            f"torch {torch.__version__}: threads={torch.get_num_threads()}, "
            f"interop threads={torch.get_num_interop_threads()}, MKL={torch.backends.mkl.is_available()}, "
            f"oneDNN={torch.backends.mkldnn.is_available()}, "
            f"cpu capability={torch.backends.cpu.get_cpu_capability()}"
        )
    return lines


def _meminfo_gb() -> float | None:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) / 1024**2
    except OSError:
        return None
    return None
