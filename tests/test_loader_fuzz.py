"""agv.load's safe loader against a corpus (tests/_loader_fuzz.py, a fixed seed):
the real checkpoints it reads (agv.save, plain pickles of protocols 0-5,
torch.save's zip and legacy files, agv.save(format="torch")), about 300
mutations of them, and hand-made hostile files. Every case raises LoadError
naming the file's problem, or gives the right result; nothing the files name
runs; and no load allocates more than a generous bound. No timing is asserted:
benchmarks/bench_loader_fuzz.py prints the largest allocation and the longest run.

The corpus runs in a process of its own, under an audit hook (sys.addaudithook),
which sees every import, exec, open, os.system and subprocess a load would cause."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
MEMORY_BOUND = 32 * 2**20  # bytes; the corpus's largest allocation is about 2 MB (a 1 MB file)


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    marker = tmp_path_factory.mktemp("fuzz") / "marker"
    done = subprocess.run(
        [sys.executable, str(TESTS / "_loader_fuzz.py"), str(marker)],
        cwd=TESTS.parent,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    return rows, marker


def test_the_corpus_is_a_few_hundred_cases_of_each_kind(outcomes):
    rows, _ = outcomes
    kinds = [row["kind"] for row in rows]
    assert len(rows) >= 350
    assert kinds.count("mutant") >= 280 and kinds.count("hostile") >= 50
    # the real files include both torch.save formats when torch is installed (it is, in CI)
    assert kinds.count("real") == (8 if _has_torch() else 6)
    assert len({row["name"] for row in rows}) == len(rows)


def test_every_case_raises_load_error_or_gives_the_right_result(outcomes):
    rows, _ = outcomes
    wrong = [
        f"{row['name']}: {row['result']}: {row['message']}"
        for row in rows
        if row["result"] not in ("loaded", "LoadError")
    ]
    assert not wrong, "exceptions other than LoadError:\n" + "\n".join(wrong)
    unclear = [
        row["name"]
        for row in rows
        if row["result"] == "LoadError" and not row["message"].startswith("agv.load: ")
    ]
    assert not unclear, unclear
    for row in rows:
        if row["kind"] == "real":
            assert row["result"] == "loaded" and row["check_failed"] == "", row
        if row["kind"] == "hostile":
            assert row["result"] == "LoadError", row


def test_some_mutants_still_load_and_most_are_refused(outcomes):
    # a mutation that keeps a valid file (a flipped bit in a float) loads; the rest are refused
    rows, _ = outcomes
    mutants = [row for row in rows if row["kind"] == "mutant"]
    loaded = sum(row["result"] == "loaded" for row in mutants)
    assert 0 < loaded < len(mutants) // 2


def test_nothing_a_file_names_ever_runs(outcomes):
    rows, marker = outcomes
    assert not marker.exists()  # write_marker, os.system, exec: none of them ran
    audited = {row["name"]: row["events"] for row in rows if row["events"]}
    assert not audited, f"audit events while loading: {audited}"


def test_no_load_allocates_more_than_a_generous_bound(outcomes):
    rows, _ = outcomes
    largest = max(rows, key=lambda row: row["peak"])
    assert largest["peak"] < MEMORY_BOUND, largest
    # the reproducer: a 70-byte file that used to build a set of 200 million ints
    reproducer = next(row for row in rows if row["name"] == "set(range(2e8))")
    assert reproducer["size"] < 80 and reproducer["peak"] < 2**20


def _has_torch() -> bool:
    try:
        import torch  # noqa: F401
    except ImportError:
        return False
    return True
