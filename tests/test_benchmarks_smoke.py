"""benchmarks/bench_core.py runs, and its numpy baselines compute what autogradviz
computes (so the speed ratios compare like with like). Nothing here is timed."""

import importlib.util
import io
import sys
from pathlib import Path

import numpy as np
import pytest

import autogradviz as agv

_PATH = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_core.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_core", _PATH)
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_core"] = module
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop("bench_core", None)


TINY_SIZES = (12, 8, 6, 5)
TINY_BATCH = 7


def test_chain_numpy_baseline_matches_autogradviz(bench):
    n_ops = 20  # short enough that the gradient is still far from 0
    x0, w0 = bench.chain_inputs(seed=3)
    x = agv.tensor(x0, requires_grad=True)
    g_agv = bench.chain(x, agv.tensor(w0), n_ops).numpy()
    g_np = bench.numpy_chain(x0, w0, n_ops)
    assert g_agv.dtype == g_np.dtype == np.float32
    assert np.abs(g_np).min() > 1e-3
    np.testing.assert_allclose(g_agv, g_np, rtol=1e-5, atol=1e-6)
    # a second run resets the leaf's grad instead of accumulating into it
    np.testing.assert_allclose(bench.chain(x, agv.tensor(w0), n_ops).numpy(), g_np, rtol=1e-5, atol=1e-6)


def test_long_chain_runs(bench):
    runners = bench.chain_runners(5_000)
    marks = []
    g = runners["autogradviz"](marks)
    assert g.shape == (4,) and len(marks) == 2
    assert np.isfinite(g.numpy()).all()


def test_mlp_numpy_baseline_matches_autogradviz(bench):
    runners, state = bench.mlp_runners(TINY_SIZES, TINY_BATCH, lr=0.5, seed=1)
    for _ in range(2):  # the second step starts from the first step's update
        loss_agv = runners["autogradviz"]()
        loss_np = runners["numpy"]()
        np.testing.assert_allclose(loss_agv.item(), loss_np, rtol=1e-5)
    _, _, initial = bench.mlp_data(TINY_SIZES, TINY_BATCH, seed=1)
    for p_agv, p_np, p0 in zip(state["autogradviz"], state["numpy"], initial):
        assert p_agv.grad is None
        assert not np.allclose(p_np, p0)  # the step did change every parameter
        np.testing.assert_allclose(p_agv.detach().numpy(), p_np, rtol=1e-5, atol=1e-5)


def test_torch_versions_match(bench):
    torch = pytest.importorskip("torch")
    assert bench.torch is torch
    x0, w0 = bench.chain_inputs(seed=3)
    g_t = bench.chain(torch.tensor(x0, requires_grad=True), torch.tensor(w0), 20).numpy()
    np.testing.assert_allclose(g_t, bench.numpy_chain(x0, w0, 20), rtol=1e-5, atol=1e-6)
    runners, state = bench.mlp_runners(TINY_SIZES, TINY_BATCH, lr=0.5, seed=1)
    runners["pytorch"]()
    runners["numpy"]()
    for p_t, p_np in zip(state["pytorch"], state["numpy"]):
        np.testing.assert_allclose(p_t.detach().numpy(), p_np, rtol=1e-5, atol=1e-5)


def test_main_prints_the_table(bench):
    out = io.StringIO()
    argv = [
        "--quick",
        "--chain-ops",
        "50",
        "--long-chain-ops",
        "100",
        "--mlp-sizes",
        "12,8,6,5",
        "--batch",
        "7",
    ]
    rows = bench.main(argv, out=out)
    text = out.getvalue()
    assert [r["unit"] for r in rows] == ["us/op", "ms/step", "s total"]
    for r in rows:
        assert r["times"]["autogradviz"] > 0 and r["times"]["numpy"] > 0
    assert (
        "agv/torch" in text and "agv/numpy" in text and "<= 1.25x numpy" in text and "<= 1.00x torch" in text
    )
