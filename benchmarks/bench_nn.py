"""Neural-network benchmark: autogradviz's nn layer against PyTorch (CPU).

Run from the repository root:

    .venv/bin/python benchmarks/bench_nn.py          # full run (a few minutes)
    .venv/bin/python benchmarks/bench_nn.py --quick  # smoke run (under a minute)

Cases (issue 5, section 6), each run by autogradviz and PyTorch in the same
process, interleaved round by round, single-threaded:

(a) the seed's VGG-11 step: forward 1x3x224x224, F.cross_entropy, backward, Adam;
(b) an MLP on the 8x8 digits (agv.data.digits()), one epoch, batch 64, Adam;
(c) a small CNN training step, batch 32 on 1x28x28, SGD with momentum;
(d) peak memory of the VGG-11 step, each framework in a fresh subprocess.

See benchmarks/README.md for what each case measures and how to read the table.
This is a script, not a test: tests/test_bench_nn_smoke.py only checks that the
MLP and CNN cases run (at tiny sizes) and give finite losses.
"""

from __future__ import annotations

import argparse
import gc
import json
import resource
import subprocess
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

FRAMEWORKS = ("autogradviz", "pytorch")


def _memory_child(argv: list[str]) -> str | None:
    """The framework named by --memory-child (the subprocesses of case (d)), or None."""
    if "--memory-child" in argv:
        i = argv.index("--memory-child")
        if i + 1 < len(argv) and argv[i + 1] in FRAMEWORKS:
            return argv[i + 1]
    return None


if __name__ == "__main__":
    ENV_NOTES = prepare_process_environment("--keep-openblas-env" in sys.argv)
    # A memory child imports only its own framework, so the two never share a process.
    CHILD = _memory_child(sys.argv)
    # measure the working tree this script sits in, whatever is installed
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
else:
    ENV_NOTES = []
    CHILD = None

import numpy as np  # noqa: E402

agv = agv_nn = F = None
NN_IMPORT_ERROR = None  # why autogradviz's nn layer could not be imported, if it could not
if CHILD != "pytorch":
    import autogradviz as agv

    try:
        import autogradviz.data
        import autogradviz.models
        import autogradviz.nn as agv_nn
        import autogradviz.nn.functional as F
        import autogradviz.optim  # noqa: F401 - used as agv.optim
    except ImportError as exc:  # reported by main(); the smoke test skips
        NN_IMPORT_ERROR = f"{type(exc).__name__}: {exc}"
        agv_nn = F = None

torch = tnn = TF = None
if CHILD != "autogradviz":
    try:
        import torch
        import torch.nn as tnn
        import torch.nn.functional as TF
    except ImportError:  # the torch columns then read n/a
        torch = tnn = TF = None


# -- shared ------------------------------------------------------------------------------


def copy_weights_to_torch(agv_model, torch_model) -> None:
    """Load autogradviz's parameters into a PyTorch model with the same layout
    (the same state_dict keys and shapes), so both start from the same weights."""
    state = {k: torch.from_numpy(np.array(v.numpy(), copy=True)) for k, v in agv_model.state_dict().items()}
    torch_model.load_state_dict(state)


def _agv_snapshot(model) -> dict:
    return {k: np.array(v.numpy(), copy=True) for k, v in model.state_dict().items()}


def _torch_snapshot(model) -> dict:
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


# -- (a) and (d): the seed's VGG-11 step ------------------------------------------------------
#
# The seed (a tutorial): model = vgg11(); x = rand(1, 3, 224, 224); label =
# randint(0, 1000, (1,)); loss = cross_entropy(model(x), label); loss.backward();
# Adam(learning_rate=0.001, parameters=model.parameters()).step(). The model stays
# in training mode, as in the seed (so dropout is on, with each framework's own masks).

VGG11_CONFIG = (64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M")
VGG_LR = 0.001


def torch_vgg11(num_classes: int = 1000, dropout: float = 0.5):
    """VGG-11 in PyTorch with torchvision's layout and state_dict keys
    (torchvision itself is not needed)."""

    class VGG(tnn.Module):
        def __init__(self):
            super().__init__()
            layers, channels = [], 3
            for v in VGG11_CONFIG:
                if v == "M":
                    layers.append(tnn.MaxPool2d(kernel_size=2, stride=2))
                else:
                    layers += [tnn.Conv2d(channels, v, kernel_size=3, padding=1), tnn.ReLU(inplace=True)]
                    channels = v
            self.features = tnn.Sequential(*layers)
            self.avgpool = tnn.AdaptiveAvgPool2d((7, 7))
            self.classifier = tnn.Sequential(
                tnn.Linear(512 * 7 * 7, 4096),
                tnn.ReLU(True),
                tnn.Dropout(p=dropout),
                tnn.Linear(4096, 4096),
                tnn.ReLU(True),
                tnn.Dropout(p=dropout),
                tnn.Linear(4096, num_classes),
            )

        def forward(self, x):
            x = self.avgpool(self.features(x))
            return self.classifier(torch.flatten(x, 1))

    return VGG()


def vgg_inputs(image_size: int = 224, num_classes: int = 1000, seed: int = 0):
    """The image (1, 3, size, size) float32 in [0, 1) and the label (1,) int64."""
    rng = np.random.default_rng(seed)
    x = rng.random((1, 3, image_size, image_size), dtype=np.float32)
    label = rng.integers(0, num_classes, size=1).astype(np.int64)
    return x, label


def vgg_step(F, model, optimizer, x, label, marks: list | None = None) -> float:
    """The seed's step; returns the loss. `F` is the library's functional module
    (autogradviz's or torch's): the same code runs both. The graph is dropped on return."""
    loss = F.cross_entropy(model(x), label)
    if marks is not None:
        marks.append(time.perf_counter())
    loss.backward()
    if marks is not None:
        marks.append(time.perf_counter())
    optimizer.step()
    return loss.item()


class VggCase:
    """One framework's VGG-11 step. `setup()` (outside the timed region) puts the
    initial weights back, drops the gradients and makes a new Adam, so that every
    timed `step()` is the seed's first step from the same weights (a model trained
    on one image for a few steps drives its loss to 0, and its gradients towards
    denormal floats, which would time something else)."""

    def __init__(self, framework: str, model, x, label, make_optimizer, snapshot: bool = True):
        self.framework, self.model, self.x, self.label = framework, model, x, label
        self.make_optimizer = make_optimizer
        self.initial = None
        if snapshot:
            self.initial = _agv_snapshot(model) if framework == "autogradviz" else _torch_snapshot(model)
        self.optimizer = None

    def setup(self) -> None:
        self.optimizer = None
        if self.initial is not None:
            self.model.load_state_dict(self.initial)
        self.model.zero_grad()
        self.optimizer = self.make_optimizer(self.model)

    def step(self, marks: list | None = None) -> float:
        functional = F if self.framework == "autogradviz" else TF
        return vgg_step(functional, self.model, self.optimizer, self.x, self.label, marks)


def make_vgg_case(
    framework: str, image_size: int = 224, num_classes: int = 1000, seed: int = 0, like=None, snapshot=True
):
    """The VGG-11 case for one framework. With `like` (the autogradviz case), the
    PyTorch model starts from its weights. Without `snapshot`, setup() does not
    put the initial weights back (no copy of them is kept)."""
    x, label = vgg_inputs(image_size, num_classes, seed)
    if framework == "autogradviz":
        agv.manual_seed(seed)
        model = agv.models.vgg11(num_classes=num_classes)
        return VggCase(
            framework,
            model,
            agv.tensor(x),
            agv.tensor(label),
            # the seed's spelling (Paddle's)
            lambda m: agv.optim.Adam(learning_rate=VGG_LR, parameters=m.parameters()),
            snapshot,
        )
    torch.manual_seed(seed)
    model = torch_vgg11(num_classes=num_classes)
    if like is not None:
        copy_weights_to_torch(like.model, model)
    return VggCase(
        framework,
        model,
        torch.from_numpy(x),
        torch.from_numpy(label),
        lambda m: torch.optim.Adam(m.parameters(), lr=VGG_LR),
        snapshot,
    )


# -- (b) an MLP on the digits ------------------------------------------------------------------
#
# agv.data.digits(): 1,500 8x8 images, flattened to 64 features; mlp([64, 128, 10]);
# F.cross_entropy; Adam(lr=1e-3); batch 64, shuffled; one epoch per sample.

MLP_SIZES = (64, 128, 10)
MLP_BATCH = 64
MLP_LR = 1e-3


def torch_mlp(sizes) -> object:
    """The same layout as agv.models.mlp: Linear, ReLU, ..., Linear (keys 0.weight, ...)."""
    layers = []
    for i, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        layers.append(tnn.Linear(n_in, n_out))
        if i < len(sizes) - 2:
            layers.append(tnn.ReLU())
    return tnn.Sequential(*layers)


def digits_arrays(n: int = 1500, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """agv.data.digits() as numpy: X (n, 64) float32, y (n,) int64."""
    X, y = agv.data.digits(seed=seed, n=n)
    X = np.asarray(X.numpy(), dtype=np.float32).reshape(len(y), -1)
    return X, np.asarray(y.numpy(), dtype=np.int64)


def agv_mlp_epoch(model, optimizer, loader) -> float:
    """One pass over the loader; returns the mean loss."""
    total, count = 0.0, 0
    for xb, yb in loader:
        loss = F.cross_entropy(model(xb), yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item()
        count += 1
    return total / count


def torch_mlp_epoch(model, optimizer, X, y, batch: int, rng: np.random.Generator) -> float:
    """The same epoch in PyTorch, batches cut from a shuffled index by hand
    (torch's own DataLoader collates sample by sample, which is slower)."""
    order = torch.from_numpy(rng.permutation(len(y)))
    total, count = 0.0, 0
    for start in range(0, len(y), batch):
        idx = order[start : start + batch]
        loss = TF.cross_entropy(model(X[idx]), y[idx])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item()
        count += 1
    return total / count


def mlp_runners(sizes=MLP_SIZES, batch: int = MLP_BATCH, n: int = 1500, seed: int = 0) -> dict:
    """One zero-argument callable per framework, each training one epoch (from
    the same initial weights, on the same data) and returning the mean loss."""
    X, y = digits_arrays(n, seed)
    agv.manual_seed(seed)
    model = agv.models.mlp(list(sizes))
    optimizer = agv.optim.Adam(model.parameters(), lr=MLP_LR)
    loader = agv.data.DataLoader((agv.tensor(X), agv.tensor(y)), batch_size=batch, shuffle=True, seed=seed)
    runners = {"autogradviz": lambda: agv_mlp_epoch(model, optimizer, loader)}
    if torch is not None:
        t_model = torch_mlp(sizes)
        copy_weights_to_torch(model, t_model)
        t_opt = torch.optim.Adam(t_model.parameters(), lr=MLP_LR)
        X_t, y_t = torch.from_numpy(X), torch.from_numpy(y)
        rng = np.random.default_rng(seed)
        runners["pytorch"] = lambda: torch_mlp_epoch(t_model, t_opt, X_t, y_t, batch, rng)
    return runners


# -- (c) a small CNN training step ---------------------------------------------------------------
#
# Conv2d(1,16,3,p=1)-ReLU-MaxPool2d(2)-Conv2d(16,32,3,p=1)-ReLU-MaxPool2d(2)-Flatten-
# Linear(32*7*7,10), F.cross_entropy, SGD(lr=0.01, momentum=0.9); batch 32 of 1x28x28.
# The steps cycle through a few fixed random batches.

CNN_BATCH = 32
CNN_IMAGE = 28
CNN_LR = 0.01
CNN_MOMENTUM = 0.9
CNN_BATCHES = 4


def _cnn_layers(nn, image: int) -> list:
    side = image // 4  # two 2x2 max-pools
    return [
        nn.Conv2d(1, 16, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(32 * side * side, 10),
    ]


def agv_cnn(image: int = CNN_IMAGE):
    return agv_nn.Sequential(*_cnn_layers(agv_nn, image))


def torch_cnn(image: int = CNN_IMAGE):
    return tnn.Sequential(*_cnn_layers(tnn, image))


def cnn_data(batch: int = CNN_BATCH, image: int = CNN_IMAGE, n_batches: int = CNN_BATCHES, seed: int = 0):
    """A few batches: images (batch, 1, image, image) float32 in [0, 1), labels (batch,) int64."""
    rng = np.random.default_rng(seed)
    return [
        (
            rng.random((batch, 1, image, image), dtype=np.float32),
            rng.integers(0, 10, size=batch).astype(np.int64),
        )
        for _ in range(n_batches)
    ]


def cnn_step(F, model, optimizer, x, y) -> float:
    """One training step; `F` is autogradviz's or torch's functional module."""
    optimizer.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()


def _cycler(batches, step):
    state = {"i": 0}

    def run():
        x, y = batches[state["i"] % len(batches)]
        state["i"] += 1
        return step(x, y)

    return run


def cnn_runners(batch: int = CNN_BATCH, image: int = CNN_IMAGE, seed: int = 0) -> dict:
    """One zero-argument callable per framework, each doing one training step
    (the next of a few fixed batches) and returning the loss."""
    data = cnn_data(batch, image, seed=seed)
    agv.manual_seed(seed)
    model = agv_cnn(image)
    optimizer = agv.optim.SGD(model.parameters(), lr=CNN_LR, momentum=CNN_MOMENTUM)
    agv_batches = [(agv.tensor(x), agv.tensor(y)) for x, y in data]
    runners = {"autogradviz": _cycler(agv_batches, lambda x, y: cnn_step(F, model, optimizer, x, y))}
    if torch is not None:
        t_model = torch_cnn(image)
        copy_weights_to_torch(model, t_model)
        t_opt = torch.optim.SGD(t_model.parameters(), lr=CNN_LR, momentum=CNN_MOMENTUM)
        t_batches = [(torch.from_numpy(x), torch.from_numpy(y)) for x, y in data]
        runners["pytorch"] = _cycler(t_batches, lambda x, y: cnn_step(TF, t_model, t_opt, x, y))
    return runners


# -- timing --------------------------------------------------------------------------------


def measure(runners: dict, rounds: int, inner: int = 1, warmup: int = 1) -> dict:
    """Time each runner `rounds` times, `inner` calls per sample; seconds per call.

    Interleaved: each round runs every framework once, in an order that rotates
    from round to round, so drift spreads over both. gc stays on inside the timed
    region; gc.collect() runs between samples, outside it."""
    names = list(runners)
    for name in names:
        for _ in range(warmup):
            runners[name]()
    samples = {name: [] for name in names}
    for r in range(rounds):
        k = r % len(names)
        for name in names[k:] + names[:k]:
            fn = runners[name]
            gc.collect()
            t0 = time.perf_counter()
            for _ in range(inner):
                fn()
            t1 = time.perf_counter()
            samples[name].append((t1 - t0) / inner)
    return samples


def measure_vgg(cases: dict, rounds: int, warmup: int = 1) -> tuple[dict, dict, dict]:
    """Like measure(), for VggCase objects: setup() before each sample, outside the
    timed region. Returns the times, the (forward + loss, backward, Adam step)
    split of each sample, the losses, and the time of a second Adam step taken
    right after each sample (with the same gradients, its state already made)."""
    names = list(cases)
    for name in names:
        for _ in range(warmup):
            cases[name].setup()
            cases[name].step()
    samples = {name: [] for name in names}
    splits = {name: [] for name in names}
    losses = {name: [] for name in names}
    again = {name: [] for name in names}
    for r in range(rounds):
        k = r % len(names)
        for name in names[k:] + names[:k]:
            case = cases[name]
            case.setup()
            gc.collect()
            marks: list = []
            t0 = time.perf_counter()
            loss = case.step(marks)
            t1 = time.perf_counter()
            samples[name].append(t1 - t0)
            splits[name].append((marks[0] - t0, marks[1] - marks[0], t1 - marks[1]))
            losses[name].append(loss)
            t0 = time.perf_counter()
            case.optimizer.step()
            again[name].append(time.perf_counter() - t0)
    for case in cases.values():  # free the gradients and Adam's state
        case.optimizer = None
        case.model.zero_grad()
    gc.collect()
    return samples, splits, losses, again


# -- (d) peak memory, in a fresh subprocess per framework --------------------------------------

CLEAR_REFS = "/proc/self/clear_refs"


def _status_kb(field: str) -> int | None:
    """A field of /proc/self/status in kB (VmRSS, VmHWM), or None where there is none."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def _reset_peak() -> bool:
    """Reset VmHWM (the peak RSS) to the current RSS; False where the kernel can't."""
    try:
        with open(CLEAR_REFS, "w") as f:
            f.write("5")
    except OSError:
        return False
    hwm, rss = _status_kb("VmHWM"), _status_kb("VmRSS")
    return hwm is not None and rss is not None and hwm <= rss + 1024  # within 1 MB: it did reset


def _maxrss_kb() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # kB on Linux


def peak_growth(step) -> dict:
    """Run step() once; return the peak RSS growth over the RSS just before, in MB,
    and the method used."""
    gc.collect()
    if _reset_peak():
        before = _status_kb("VmRSS")
        step()
        peak = _status_kb("VmHWM")
        return {
            "growth_mb": (peak - before) / 1024,
            "baseline_mb": before / 1024,
            "method": "VmHWM after resetting it (echo 5 > /proc/self/clear_refs), minus VmRSS before the step",
        }
    before = _maxrss_kb()
    rss = _status_kb("VmRSS")
    step()
    return {
        "growth_mb": max(0, _maxrss_kb() - before) / 1024,
        "baseline_mb": (rss if rss is not None else before) / 1024,
        "method": "ru_maxrss after minus before (a lower bound: the model build may have peaked higher)",
    }


def memory_child(framework: str, image_size: int, num_classes: int) -> dict:
    """In a fresh process: import one framework, build VGG-11, the input and Adam,
    then measure the peak RSS growth of the seed's step, and of a second step."""
    case = make_vgg_case(framework, image_size, num_classes, snapshot=False)
    case.setup()
    first = peak_growth(case.step)
    case.model.zero_grad()
    second = peak_growth(case.step)
    return {"framework": framework, "first": first, "second": second}


def run_memory_child(framework: str, image_size: int, num_classes: int, keep_openblas_env: bool) -> dict:
    """Run memory_child() in a new interpreter (this script with --memory-child)."""
    cmd = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--memory-child",
        framework,
        "--vgg-size",
        str(image_size),
        "--vgg-classes",
        str(num_classes),
    ]
    if keep_openblas_env:
        cmd.append("--keep-openblas-env")
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        return {"framework": framework, "error": " | ".join(tail) or f"exit code {proc.returncode}"}
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    return {"framework": framework, "error": "no result printed"}


# -- report ----------------------------------------------------------------------------------


def format_table(rows: list[dict]) -> str:
    """rows: case, unit, times {framework: value}, target (ratio or None)."""
    header = ["case", "unit", "autogradviz", "pytorch", "agv/torch", "target", "status"]
    body = []
    for row in rows:
        t = row["times"]
        a, p = t.get("autogradviz"), t.get("pytorch")
        ratio = None if a is None or p is None or p == 0 else a / p
        target = row.get("target")
        if target is None:
            status = "-"
        elif ratio is None:
            status = "n/a"
        else:
            status = "MET" if ratio <= target else "NOT MET"
        body.append(
            [
                row["case"],
                row["unit"],
                fmt(a),
                fmt(p),
                "n/a" if ratio is None else f"{ratio:.2f}x",
                "(none)" if target is None else f"<= {target:.0f}x torch",
                status,
            ]
        )
    widths = [max(len(h), *(len(r[i]) for r in body)) for i, h in enumerate(header)]
    align = ["<", "<", ">", ">", ">", "<", "<"]

    def line(cells):
        return "  ".join(f"{c:{a}{w}}" for c, a, w in zip(cells, align, widths)).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(header), rule, *(line(r) for r in body)])


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="smoke run: 1 repeat, no warm-up, smaller VGG input")
    p.add_argument("--cases", default="abcd", help="which cases to run, e.g. 'bc' (default: abcd)")
    p.add_argument("--stat", choices=("median", "min"), default="median", help="statistic over repeats")
    p.add_argument("--vgg-size", type=int, default=None, help="VGG input side (default 224; --quick: 64)")
    p.add_argument("--vgg-classes", type=int, default=1000, help="VGG num_classes (default 1000)")
    p.add_argument(
        "--vgg-repeats", type=int, default=None, help="timed VGG steps each (default 5; --quick: 1)"
    )
    p.add_argument("--keep-openblas-env", action="store_true", help="keep OPENBLAS_CORETYPE/OPENBLAS_L2_SIZE")
    p.add_argument("--memory-child", choices=FRAMEWORKS, help=argparse.SUPPRESS)
    return p.parse_args(argv)


def main(argv=None, out=None) -> list[dict]:
    """Run the cases, print the report to `out` (stdout), return the table rows."""
    args = parse_args(argv)
    out = out or sys.stdout

    def say(text: str = "") -> None:
        print(text, file=out, flush=True)

    cases = args.cases.lower()
    quick = args.quick
    vgg_size = args.vgg_size or (64 if quick else 224)
    vgg_classes = args.vgg_classes
    vgg_rounds = args.vgg_repeats or (1 if quick else 5)
    warmup = 0 if quick else 1
    mlp_rounds, cnn_rounds, cnn_inner = (1, 1, 1) if quick else (11, 15, 5)

    say(f"autogradviz nn benchmark ({'quick' if quick else 'full'} run), git {git_revision()}")
    for line in machine_report(np, agv, torch):
        say(line)
    say(f"load average at start: {load_average()} (other processes on these cores skew the times)")
    for note in ENV_NOTES:
        say(f"env: {note}")
    say(
        f"statistic: {args.stat} over interleaved repeats, after {warmup} warm-up call(s) each; "
        "gc enabled inside the timed region (gc.collect() between samples, outside it)"
    )
    if NN_IMPORT_ERROR:
        say(f"autogradviz's nn layer could not be imported: {NN_IMPORT_ERROR}")
        say("nothing to measure")
        return []
    say()

    rows, notes = [], []
    vgg_desc = f"1x3x{vgg_size}x{vgg_size}" + (f", {vgg_classes} classes" if vgg_classes != 1000 else "")
    if "a" in cases:
        say(f"(a) VGG-11 step, {vgg_desc}: building the models ...")
        vgg_cases = {"autogradviz": make_vgg_case("autogradviz", vgg_size, vgg_classes)}
        if torch is not None:
            vgg_cases["pytorch"] = make_vgg_case(
                "pytorch", vgg_size, vgg_classes, like=vgg_cases["autogradviz"]
            )
        samples, splits, losses, again = measure_vgg(vgg_cases, rounds=vgg_rounds, warmup=warmup)
        del vgg_cases
        gc.collect()
        say(
            f"(a) VGG-11 step, {vgg_desc}: forward, F.cross_entropy, backward, Adam(lr=0.001) step; "
            f"{vgg_rounds} repeats, each from the same initial weights with a new Adam"
        )
        rows.append(
            {
                "case": "(a) VGG-11 step",
                "unit": "s/step",
                "times": {k: summarize(v, args.stat) for k, v in samples.items()},
                "target": 3,
            }
        )
        rows.append(
            {
                "case": "(a) Adam step again",
                "unit": "s/step",
                "times": {k: summarize(v, args.stat) for k, v in again.items()},
                "target": None,
            }
        )
        notes.append(
            "(a) Adam step again: optimizer.step() once more right after each timed step (same gradients,"
        )
        notes.append(
            "    Adam's state already made): the optimizer's cost on later steps, untimed in the row above."
        )
        notes.append("(a) split of the step in seconds (sample with the median total):")
        for name, parts in splits.items():
            fwd, bwd, opt = sorted(parts, key=sum)[len(parts) // 2]
            notes.append(
                f"    {name:<12} forward+loss {fwd:6.3f}   backward {bwd:6.3f}   Adam step {opt:6.3f}"
                f"   (losses {', '.join(f'{v:.4f}' for v in losses[name])})"
            )
    if "b" in cases:
        runners = mlp_runners()
        samples = measure(runners, rounds=mlp_rounds, warmup=warmup)
        losses = {k: fn() for k, fn in runners.items()}  # one more epoch, untimed
        n_batches = -(-1500 // MLP_BATCH)
        say(
            f"(b) MLP {'-'.join(map(str, MLP_SIZES))} on agv.data.digits() (1500 samples, 8x8 flattened), "
            f"batch {MLP_BATCH}, Adam(lr=1e-3), one epoch = {n_batches} steps: {mlp_rounds} repeats"
        )
        rows.append(
            {
                "case": "(b) MLP digits epoch",
                "unit": "ms/epoch",
                "times": {k: summarize(v, args.stat) * 1e3 for k, v in samples.items()},
                "target": None,
            }
        )
        notes.append(
            "(b) mean loss of the epoch after the timed ones: "
            + ", ".join(f"{k} {v:.4f}" for k, v in losses.items())
        )
    if "c" in cases:
        runners = cnn_runners()
        samples = measure(runners, rounds=cnn_rounds, inner=cnn_inner, warmup=3 * warmup)
        say(
            f"(c) CNN step, batch {CNN_BATCH} of 1x{CNN_IMAGE}x{CNN_IMAGE}, conv16-pool-conv32-pool-linear, "
            f"SGD(lr={CNN_LR}, momentum={CNN_MOMENTUM}): {cnn_rounds} repeats of {cnn_inner} steps"
        )
        rows.append(
            {
                "case": "(c) CNN step",
                "unit": "ms/step",
                "times": {k: summarize(v, args.stat) * 1e3 for k, v in samples.items()},
                "target": 2,
            }
        )
    if "d" in cases:
        frameworks = ["autogradviz"] + (["pytorch"] if torch is not None else [])
        say(f"(d) peak memory of the VGG-11 step, {vgg_desc}: one fresh subprocess per framework ...")
        results = {
            fw: run_memory_child(fw, vgg_size, vgg_classes, args.keep_openblas_env) for fw in frameworks
        }
        for which, label in (("first", "(d) VGG peak, 1st step"), ("second", "(d) VGG peak, 2nd step")):
            rows.append(
                {
                    "case": label,
                    "unit": "MB",
                    "times": {fw: r[which]["growth_mb"] for fw, r in results.items() if "error" not in r},
                    "target": 2,
                }
            )
        notes.append("(d) peak RSS growth during the step over the RSS before it, each framework in its own")
        notes.append(
            "    subprocess, after imports, building the model, the input and Adam (no other step before"
        )
        notes.append(
            "    the 1st; the 2nd follows it, with Adam's state already there, gradients set to None):"
        )
        for fw, r in results.items():
            if "error" in r:
                notes.append(f"    {fw:<12} FAILED: {r['error']}")
            else:
                notes.append(
                    f"    {fw:<12} RSS before the 1st step {r['first']['baseline_mb']:.0f} MB; {r['first']['method']}"
                )
    say()
    say(format_table(rows))
    say()
    for note in notes:
        say(note)
    say("agv/torch: autogradviz's value divided by PyTorch's (below 1: autogradviz is faster or smaller).")
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
    if CHILD is not None:
        _args = parse_args()
        print(json.dumps(memory_child(CHILD, _args.vgg_size or 224, _args.vgg_classes)), flush=True)
    else:
        main()
