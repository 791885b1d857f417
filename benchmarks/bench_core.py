"""Core speed benchmark: autogradviz against PyTorch (CPU) and hand-written numpy.

Run from the repository root:

    .venv/bin/python benchmarks/bench_core.py          # full run (about a minute)
    .venv/bin/python benchmarks/bench_core.py --quick  # smoke run (a few seconds)

Every case is run by all three implementations in the same process, interleaved
round by round, single-threaded, with the garbage collector enabled. See
benchmarks/README.md for what each case measures and how to read the table.

This is a script, not a test: tests/test_benchmarks_smoke.py only checks that it
runs and that the numpy baselines compute the same numbers as autogradviz.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the shared benchmark helpers

from common import (  # noqa: E402
    ROOT,
    fmt,
    git_revision,
    load_average,
    machine_report,
    prepare_process_environment,
    summarize,
)

if __name__ == "__main__":
    ENV_NOTES = prepare_process_environment("--keep-openblas-env" in sys.argv)
    # measure the working tree this script sits in, whatever is installed
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
else:
    ENV_NOTES = []

import numpy as np  # noqa: E402

import autogradviz as agv  # noqa: E402

try:
    import torch
except ImportError:  # the torch columns then read n/a
    torch = None


# -- (a) and (c): a long chain of cheap elementwise ops --------------------------------
#
# One cycle is five ops: y*0.9, y+0.1, sin, tanh, y*w (w a constant shape-(4,)
# tensor that does not require grad). The values stay in (-1.5, 1.5) however long
# the chain; the gradient shrinks geometrically (to 0 within a few hundred ops), which
# changes nothing for speed here: per-op cost is Python overhead, not arithmetic.

CHAIN_SCALE = 0.9
CHAIN_SHIFT = 0.1
CHAIN_W = (0.9, 1.1, 1.3, 1.5)
OPS_PER_CYCLE = 5


def chain_inputs(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The starting values (shape (4,), float32) and the constant w."""
    x0 = np.random.default_rng(seed).standard_normal(4).astype(np.float32)
    return x0, np.array(CHAIN_W, dtype=np.float32)


def _cycles(n_ops: int) -> int:
    if n_ops % OPS_PER_CYCLE:
        raise ValueError(f"n_ops must be a multiple of {OPS_PER_CYCLE}, got {n_ops}")
    return n_ops // OPS_PER_CYCLE


def chain(x, w, n_ops: int, marks: list | None = None):
    """Forward n_ops ops from the leaf x, then y.sum().backward(); returns x.grad.
    The same code runs autogradviz and PyTorch: x and w are either library's.
    The graph is dropped when this function returns (inside any timing of it).
    `marks`, if given, gets the perf_counter() after forward and after backward."""
    x.grad = None
    y = x
    for _ in range(_cycles(n_ops)):
        y = y * CHAIN_SCALE
        y = y + CHAIN_SHIFT
        y = y.sin()
        y = y.tanh()
        y = y * w
    if marks is not None:
        marks.append(time.perf_counter())
    y.sum().backward()
    if marks is not None:
        marks.append(time.perf_counter())
    return x.grad


def numpy_chain(x0: np.ndarray, w: np.ndarray, n_ops: int, marks: list | None = None) -> np.ndarray:
    """The same forward in numpy, saving what backward needs in a list (the input
    of sin, the output of tanh), then a hand-written backward walking it in reverse.
    Returns d(sum(y))/dx0."""
    saved = []
    save = saved.append
    y = x0
    for _ in range(_cycles(n_ops)):
        y = y * CHAIN_SCALE
        y = y + CHAIN_SHIFT
        save(y)
        y = np.sin(y)
        y = np.tanh(y)
        save(y)
        y = y * w
    loss = y.sum()  # noqa: F841 - computed, as the other two compute it
    if marks is not None:
        marks.append(time.perf_counter())
    g = np.ones_like(y)
    cos, scale = np.cos, CHAIN_SCALE
    for i in range(len(saved) - 1, 0, -2):
        g = g * w  # y * w
        t = saved[i]
        g = g * (1 - t * t)  # tanh: 1 - out^2
        g = g * cos(saved[i - 1])  # sin: cos(in)
        # y + 0.1 passes g through unchanged
        g = g * scale  # y * 0.9
    if marks is not None:
        marks.append(time.perf_counter())
    return g


def chain_runners(n_ops: int, seed: int = 0) -> dict:
    """One zero-argument callable per implementation, each running the whole chain
    (forward, backward, dropping the graph) once and returning the gradient."""
    x0, w0 = chain_inputs(seed)
    runners = {}
    x_agv, w_agv = agv.tensor(x0, requires_grad=True), agv.tensor(w0)
    runners["autogradviz"] = lambda marks=None: chain(x_agv, w_agv, n_ops, marks)
    if torch is not None:
        x_t, w_t = torch.tensor(x0, requires_grad=True), torch.tensor(w0)
        runners["pytorch"] = lambda marks=None: chain(x_t, w_t, n_ops, marks)
    runners["numpy"] = lambda marks=None: numpy_chain(x0, w0, n_ops, marks)
    return runners


# -- (b) an MLP training step ----------------------------------------------------------
#
# 784-256-128-10, ReLU, softmax cross-entropy written as log_softmax, then picking
# each row's label entry with logp[arange(B), labels], then -mean (the same ops in
# autogradviz and PyTorch; not F.cross_entropy). Then plain SGD, p -= lr * p.grad
# under no_grad, and p.grad = None.

MLP_SIZES = (784, 256, 128, 10)
MLP_BATCH = 128
MLP_LR = 0.01


def mlp_data(sizes=MLP_SIZES, batch: int = MLP_BATCH, seed: int = 0):
    """Inputs (batch, sizes[0]) float32, labels (batch,) int64, and the initial
    parameters [W1, b1, W2, b2, ...] as float32 numpy arrays (W: fan_in x fan_out)."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((batch, sizes[0])).astype(np.float32)
    labels = rng.integers(0, sizes[-1], size=batch).astype(np.int64)
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        params.append((rng.standard_normal((fan_in, fan_out)) * np.sqrt(2.0 / fan_in)).astype(np.float32))
        params.append((rng.standard_normal(fan_out) * 0.1).astype(np.float32))
    return X, labels, params


def mlp_step(m, X, labels, params, lr: float = MLP_LR):
    """One SGD step; updates params in place, returns the loss. `m` is the
    library, autogradviz or torch: the same code, with the same ops, runs both."""
    n_layers = len(params) // 2
    h = X
    for i in range(n_layers):
        h = h @ params[2 * i] + params[2 * i + 1]
        if i < n_layers - 1:
            h = h.relu()
    logp = m.log_softmax(h, 1)
    loss = -logp[m.arange(X.shape[0]), labels].mean()
    loss.backward()
    with m.no_grad():
        for p in params:
            p -= lr * p.grad
            p.grad = None
    return loss


def numpy_mlp_step(X: np.ndarray, labels: np.ndarray, params: list, lr: float = MLP_LR):
    """The same step as an expert would write it by hand in numpy: fused softmax
    cross-entropy gradient (softmax - onehot) / B, ReLU masks from the saved
    activations, in-place updates, no gradient for X. Returns the loss."""
    batch = X.shape[0]
    rows = np.arange(batch)
    n_layers = len(params) // 2
    acts = [X]  # the input of each linear layer
    h = X
    for i in range(n_layers):
        z = h @ params[2 * i]
        z += params[2 * i + 1]
        if i < n_layers - 1:
            np.maximum(z, 0, out=z)
            acts.append(z)
        h = z
    # softmax cross-entropy: loss = mean(log sum exp(z) - z[label]), with z shifted by its max
    z = h
    z -= z.max(axis=1, keepdims=True)
    e = np.exp(z)
    s = e.sum(axis=1, keepdims=True)
    loss = np.log(s).mean() - z[rows, labels].mean()
    # backward: dz = (softmax - onehot) / B
    e /= s
    e[rows, labels] -= 1
    e *= 1.0 / batch
    dz = e
    grads = [None] * len(params)
    for i in range(n_layers - 1, -1, -1):
        a = acts[i]
        grads[2 * i] = a.T @ dz
        grads[2 * i + 1] = dz.sum(axis=0)
        if i > 0:
            dz = dz @ params[2 * i].T
            dz *= a > 0  # ReLU: a is the layer's output after ReLU
    for p, g in zip(params, grads):
        g *= lr
        p -= g
    return loss


def mlp_runners(sizes=MLP_SIZES, batch: int = MLP_BATCH, lr: float = MLP_LR, seed: int = 0) -> dict:
    """One zero-argument callable per implementation, each doing one training step
    on its own copy of the same initial parameters. Also returns those copies."""
    X, labels, params = mlp_data(sizes, batch, seed)
    runners, state = {}, {}
    p_agv = [agv.tensor(p.copy(), requires_grad=True) for p in params]
    X_agv, y_agv = agv.tensor(X), agv.tensor(labels)
    runners["autogradviz"] = lambda: mlp_step(agv, X_agv, y_agv, p_agv, lr)
    state["autogradviz"] = p_agv
    if torch is not None:
        p_t = [torch.tensor(p.copy(), requires_grad=True) for p in params]
        X_t, y_t = torch.from_numpy(X.copy()), torch.from_numpy(labels.copy())
        runners["pytorch"] = lambda: mlp_step(torch, X_t, y_t, p_t, lr)
        state["pytorch"] = p_t
    p_np = [p.copy() for p in params]
    runners["numpy"] = lambda: numpy_mlp_step(X, labels, p_np, lr)
    state["numpy"] = p_np
    return runners, state


# -- timing --------------------------------------------------------------------------------


def measure(runners: dict, rounds: int, inner: int = 1, warmup: int = 1, marks: bool = False) -> dict:
    """Time each runner `rounds` times, `inner` calls per sample, seconds per call.

    The implementations are interleaved: each round runs every one of them once,
    in an order that rotates from round to round, so that drift (frequency, the
    other core's load) spreads over all of them. The garbage collector stays on
    inside the timed region; gc.collect() runs between samples, outside it, so
    that every sample starts from the same state. With `marks`, also returns the
    forward / backward / drop-the-graph split of each sample (inner must be 1).
    """
    names = list(runners)
    for name in names:
        for _ in range(warmup):
            runners[name]()
    samples = {name: [] for name in names}
    splits = {name: [] for name in names}
    for r in range(rounds):
        k = r % len(names)
        for name in names[k:] + names[:k]:
            fn = runners[name]
            gc.collect()
            if marks:
                m: list = []
                t0 = time.perf_counter()
                fn(m)
                t1 = time.perf_counter()
                splits[name].append((m[0] - t0, m[1] - m[0], t1 - m[1]))
            else:
                t0 = time.perf_counter()
                for _ in range(inner):
                    fn()
                t1 = time.perf_counter()
            samples[name].append((t1 - t0) / inner)
    return (samples, splits) if marks else samples


def time_without_gc(runners: dict) -> dict:
    """One run of each runner with the garbage collector off: the difference to
    the timed runs is what its collections cost (for (c), most of it is the
    full collections that walk every tracked object, the graph's included)."""
    times = {}
    for name, fn in runners.items():
        gc.collect()
        gc.disable()
        try:
            t0 = time.perf_counter()
            fn()
            times[name] = time.perf_counter() - t0
        finally:
            gc.enable()
    return times


# -- report ----------------------------------------------------------------------------------


def _ratio(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a / b


def format_table(rows: list[dict]) -> str:
    header = ["case", "unit", "autogradviz", "pytorch", "numpy", "agv/torch", "agv/numpy", "target", "status"]
    body = []
    for row in rows:
        t = row["times"]
        vs_torch = _ratio(t.get("autogradviz"), t.get("pytorch"))
        vs_numpy = _ratio(t.get("autogradviz"), t.get("numpy"))
        target_ratio = vs_torch if row["target_vs"] == "pytorch" else vs_numpy
        against = "torch" if row["target_vs"] == "pytorch" else "numpy"
        if target_ratio is None:
            status = "n/a"
        else:
            status = "MET" if target_ratio <= row["target"] else "NOT MET"
        body.append(
            [
                row["case"],
                row["unit"],
                fmt(t.get("autogradviz")),
                fmt(t.get("pytorch")),
                fmt(t.get("numpy")),
                "n/a" if vs_torch is None else f"{vs_torch:.2f}x",
                "n/a" if vs_numpy is None else f"{vs_numpy:.2f}x",
                f"<= {row['target']:.2f}x {against}",
                status,
            ]
        )
    widths = [max(len(h), *(len(r[i]) for r in body)) for i, h in enumerate(header)]
    align = ["<", "<", ">", ">", ">", ">", ">", "<", "<"]

    def line(cells):
        return "  ".join(f"{c:{a}{w}}" for c, a, w in zip(cells, align, widths)).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(header), rule, *(line(r) for r in body)])


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="smoke run: few repeats, no full-size warm-up")
    p.add_argument("--cases", default="abc", help="which cases to run, e.g. 'ab' (default: abc)")
    p.add_argument("--stat", choices=("median", "min"), default="median", help="statistic over repeats")
    p.add_argument("--chain-ops", type=int, default=1000, help="ops in case (a) (default 1000)")
    p.add_argument("--long-chain-ops", type=int, default=200_000, help="ops in case (c) (default 200000)")
    p.add_argument("--mlp-sizes", default=",".join(map(str, MLP_SIZES)), help="layer sizes for case (b)")
    p.add_argument("--batch", type=int, default=MLP_BATCH, help="batch size for case (b)")
    p.add_argument("--keep-openblas-env", action="store_true", help="keep OPENBLAS_CORETYPE/OPENBLAS_L2_SIZE")
    return p.parse_args(argv)


def main(argv=None, out=None) -> list[dict]:
    """Run the cases, print the report to `out` (stdout), return the table rows."""
    args = parse_args(argv)
    out = out or sys.stdout

    def say(text: str = "") -> None:
        print(text, file=out, flush=True)

    cases = args.cases.lower()
    sizes = tuple(int(s) for s in args.mlp_sizes.split(","))
    if args.quick:
        chain_rounds, mlp_rounds, mlp_inner, long_rounds, long_warmup = 5, 3, 2, 1, 0
    else:
        chain_rounds, mlp_rounds, mlp_inner, long_rounds, long_warmup = 41, 21, 5, 3, 1

    say(f"autogradviz core benchmark ({'quick' if args.quick else 'full'} run), git {git_revision()}")
    say(f"load average at start: {load_average()} (other processes on these cores skew the times)")
    for note in ENV_NOTES:
        say(f"env: {note}")
    for line in machine_report(np, agv, torch):
        say(line)
    say(
        f"statistic: {args.stat} over interleaved repeats, after warm-up; gc enabled inside the "
        "timed region (gc.collect() between samples, outside it)"
    )
    say()

    rows = []
    if "a" in cases:
        n = args.chain_ops
        samples = measure(chain_runners(n), rounds=chain_rounds, warmup=3)
        say(
            f"(a) chain of {n} elementwise ops on a (4,) float32 leaf, forward + backward: {chain_rounds} repeats"
        )
        rows.append(
            {
                "case": f"(a) {n}-op chain",
                "unit": "us/op",
                "times": {k: summarize(v, args.stat) / n * 1e6 for k, v in samples.items()},
                "target": 1.0,
                "target_vs": "pytorch",
            }
        )
    if "b" in cases:
        runners, _ = mlp_runners(sizes, args.batch)
        samples = measure(runners, rounds=mlp_rounds, inner=mlp_inner, warmup=5)
        say(
            f"(b) MLP {'-'.join(map(str, sizes))} training step, batch {args.batch}: "
            f"{mlp_rounds} repeats of {mlp_inner} steps"
        )
        rows.append(
            {
                "case": f"(b) MLP step {'-'.join(map(str, sizes))}",
                "unit": "ms/step",
                "times": {k: summarize(v, args.stat) * 1e3 for k, v in samples.items()},
                "target": 1.25,
                "target_vs": "numpy",
            }
        )
    splits = None
    if "c" in cases:
        n = args.long_chain_ops
        runners = chain_runners(n)
        if long_warmup:
            measure(chain_runners(args.chain_ops), rounds=0, warmup=2)
        samples, splits = measure(runners, rounds=long_rounds, warmup=long_warmup, marks=True)
        without_gc = time_without_gc(runners)
        say(f"(c) chain of {n} ops, forward + backward + dropping the graph: {long_rounds} repeats")
        rows.append(
            {
                "case": f"(c) {n}-op chain",
                "unit": "s total",
                "times": {k: summarize(v, args.stat) for k, v in samples.items()},
                "target": 1.0,
                "target_vs": "pytorch",
            }
        )
    say()
    say(format_table(rows))
    if splits:
        say()
        say("(c) split of the total, in seconds (from the same runs; sample with the median total):")
        for name, parts in splits.items():
            fwd, bwd, drop = sorted(parts, key=sum)[len(parts) // 2]
            say(f"    {name:<12} forward {fwd:7.3f}   backward {bwd:7.3f}   drop graph/return {drop:7.3f}")
        say(
            "(c) diagnostic, not the timed result: one more run of each with the garbage collector off, in seconds:"
        )
        say("    " + "   ".join(f"{name} {t:.3f}" for name, t in without_gc.items()))
    say()
    say("numpy = a hand-written numpy version of the same computation (see benchmarks/README.md).")
    if "b" in cases:
        say(
            "(b): log_softmax, logp[arange(B), labels], -mean in autogradviz and PyTorch (not F.cross_entropy)."
        )
    say("Every timed call includes freeing its graph; for (c) the split above shows that part.")
    say(f"load average at end: {load_average()}")
    return rows


def pin_torch_threads() -> None:
    if torch is None:
        return
    torch.set_num_threads(1)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:  # only allowed before any parallel work
        pass


if __name__ == "__main__":
    pin_torch_threads()
    main()
