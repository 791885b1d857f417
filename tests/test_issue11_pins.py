"""Pins for the items of issue 11 ("Hardening") that no other test pinned: the
warning in `agv.load`'s docstring, and the differential fuzzer's own promises
(its bounded budget and fixed seed in CI, and what its programs draw on).
/tmp/issue11_list.md maps every item of the issue to its tests."""

from __future__ import annotations

import inspect
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

import autogradviz as agv

pytest.importorskip("torch")

import _fuzz  # noqa: E402
from hypothesis import HealthCheck, Phase, find, settings  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


# -- 6. safe loading: weights_only=True by default, weights_only=False with a warning --------------
def test_load_defaults_to_weights_only_and_its_docstring_warns_about_weights_only_false():
    assert inspect.signature(agv.load).parameters["weights_only"].default is True
    doc = " ".join(agv.load.__doc__.split())
    assert "`weights_only=False` reads the file as a full pickle. WARNING: that runs any code" in doc
    assert "only for files you made yourself or otherwise trust" in doc


# -- 8. the fuzzer: a bounded budget and a fixed seed in CI -----------------------------------------
def test_the_fuzzer_runs_in_ci_with_a_bounded_budget_and_a_fixed_seed():
    # in a fresh interpreter without AGV_FUZZ_* set, as CI runs it (scripts/test.sh
    # runs the whole suite, tests/test_fuzz_vs_torch.py included)
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGV_FUZZ")}
    code = (
        "import sys; sys.path.insert(0, 'tests'); import test_fuzz_vs_torch as t; "
        "s = t.FUZZ_SETTINGS; print(s.max_examples, s.derandomize, s.database)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == ["1200", "True", "None"]  # 1200 programs, the same ones on every run
    assert "pytest" in (ROOT / "scripts" / "test.sh").read_text()
    assert "scripts/test.sh" in (ROOT / ".ci" / "run").read_text()


# -- 8. the fuzzer: what its programs draw on --------------------------------------------------------
def _leaves(p: _fuzz.Program):
    return [op for op in p.ops if op.kind == "leaf"]


def _shapes(p: _fuzz.Program):
    return [info.shape for info in p.slots.values()]


def _index_items(p: _fuzz.Program):
    return [item for op in p.ops if op.kind in ("index", "setitem") for item in op.params[0]]


def _in_place_on_a_view(p: _fuzz.Program) -> bool:
    for op in p.ops:
        if op.kind in ("add_", "sub_", "mul_", "div_", "copy_", "zero_", "setitem"):
            made_by = p.op_defining(op.refs[0])
            if made_by is not None and made_by.kind in ("transpose", "t", "index", "view", "expand"):
                return True
    return False


def _mixes_dtypes(p: _fuzz.Program) -> bool:
    for op in p.ops:
        if op.kind in _fuzz.BINARY and op.params[0] == "tt":
            kinds = {p.dtype(slot) for slot in op.refs[:2]}
            if kinds & {"int64", "bool"} and kinds & {"float32", "float64"}:
                return True
    return False


def _broadcasts(p: _fuzz.Program) -> bool:
    return any(
        op.kind in _fuzz.BINARY
        and op.params[0] == "tt"
        and p.slots[op.refs[0]].shape != p.slots[op.refs[1]].shape
        for op in p.ops
        if op.out is not None and all(r in p.slots for r in op.refs[:2]) and op.out in p.slots
    )


FEATURES = {
    "a 0-d tensor": lambda p: () in _shapes(p),
    "a size-0 dim": lambda p: any(0 in shape for shape in _shapes(p)),
    "broadcasting": _broadcasts,
    "a transpose": lambda p: p.has("transpose") or p.has("t"),
    "a slice with a step": lambda p: any(
        it[0] == "slice" and it[3] not in (None, 1) for it in _index_items(p)
    ),
    "indexing with a list": lambda p: any(it[0] == "list" for it in _index_items(p)),
    "indexing with a mask": lambda p: any(it[0] == "mask" for it in _index_items(p)),
    "an in-place op on a view": _in_place_on_a_view,
    "int or bool mixed with float": _mixes_dtypes,
    "float64": lambda p: any(op.params[1] == "float64" for op in _leaves(p)),
    "inf": lambda p: any(isinstance(x, float) and math.isinf(x) for op in _leaves(p) for x in op.params[2]),
    "NaN": lambda p: any(isinstance(x, float) and math.isnan(x) for op in _leaves(p) for x in op.params[2]),
    "3 to 15 ops and a backward": lambda p: (
        3 <= len(p.ops) - len(_leaves(p)) and p.ops[-1].kind == "backward"
    ),
}


def test_the_fuzzers_programs_draw_on_every_feature_the_issue_lists():
    # the programs the fuzzer draws (with its fixed seed, no shrinking), until each
    # feature has been seen in at least one of them
    seen: set[str] = set()

    def every_feature_seen(program) -> bool:
        seen.update(name for name, has in FEATURES.items() if name not in seen and has(program))
        return len(seen) == len(FEATURES)

    find(
        _fuzz.programs(),
        every_feature_seen,
        settings=settings(
            max_examples=3000,
            phases=[Phase.generate],
            deadline=None,
            derandomize=True,
            database=None,
            suppress_health_check=list(HealthCheck),
        ),
    )
    assert seen == set(FEATURES)


def test_the_fuzzers_programs_have_3_to_15_ops():
    assert (_fuzz.MIN_OPS, _fuzz.MAX_OPS) == (3, 15)
