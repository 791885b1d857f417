"""benchmarks/bench_nn.py runs: its MLP and CNN cases train at tiny sizes and give
finite losses, the same in autogradviz and PyTorch (same weights, same data).
Nothing here is timed."""

import importlib.util
import io
import math
import mmap
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("autogradviz.nn", reason="autogradviz.nn is not importable yet")
pytest.importorskip("autogradviz.models", reason="autogradviz.models is not importable yet")

_PATH = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_nn.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_nn", _PATH)
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_nn"] = module
    try:
        spec.loader.exec_module(module)
        if module.NN_IMPORT_ERROR:
            pytest.skip(f"autogradviz's nn layer is not usable yet: {module.NN_IMPORT_ERROR}")
        yield module
    finally:
        sys.modules.pop("bench_nn", None)


def test_mlp_case_runs(bench):
    runners = bench.mlp_runners(sizes=(64, 8, 10), batch=16, n=100, seed=1)
    assert "autogradviz" in runners
    losses = {name: [fn(), fn()] for name, fn in runners.items()}  # two epochs
    for name, values in losses.items():
        assert all(math.isfinite(v) and v > 0 for v in values), (name, values)
    if "pytorch" in losses:
        # the same initial weights, the same shuffled batches (both loaders draw the order
        # from default_rng(seed)): the same losses, epoch after epoch
        np.testing.assert_allclose(losses["autogradviz"], losses["pytorch"], rtol=1e-4)


def test_cnn_case_runs(bench):
    runners = bench.cnn_runners(batch=3, image=8, seed=2)
    losses = {name: [fn() for _ in range(3)] for name, fn in runners.items()}
    for name, values in losses.items():
        assert all(math.isfinite(v) and v > 0 for v in values), (name, values)
    if "pytorch" in losses:
        np.testing.assert_allclose(losses["autogradviz"], losses["pytorch"], rtol=1e-4)


def _touch_fresh_pages(n_bytes: int) -> None:
    # an anonymous mmap gets pages the process has never had: np.ones could be
    # served from freed heap memory that is still resident after earlier tests
    with mmap.mmap(-1, n_bytes) as region:
        np.frombuffer(region, dtype=np.uint8)[:] = 1


def test_peak_growth_sees_an_allocation(bench):
    result = bench.peak_growth(lambda: _touch_fresh_pages(40 * 2**20))  # 40 MB
    assert result["growth_mb"] >= 0 and result["method"]
    if "clear_refs" in result["method"]:
        assert result["growth_mb"] > 30


def test_main_quick_prints_the_table(bench):
    out = io.StringIO()
    rows = bench.main(["--quick", "--cases", "bc"], out=out)
    text = out.getvalue()
    assert [row["case"] for row in rows] == ["(b) MLP digits epoch", "(c) CNN step"]
    assert "agv/torch" in text and "load average at end" in text
    for row in rows:
        assert all(v > 0 for v in row["times"].values())
