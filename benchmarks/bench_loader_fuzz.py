"""agv.load's safe loader over its fuzz corpus: the largest allocation and the longest run.

    .venv/bin/python benchmarks/bench_loader_fuzz.py [--repeat 3] [--top 5]

The corpus is tests/_loader_fuzz.py's (a fixed seed): the real checkpoints
(agv.save, plain pickles of protocols 0-5, torch.save's zip and legacy files,
agv.save(format="torch")), mutations of them, and hand-made hostile files.
Each case is loaded once under tracemalloc (its peak is the largest allocation
during the load, what the test bounds), then --repeat times without it (its
time is the best of those runs: tracemalloc slows Python's allocator several
times over). Prints the corpus's size, the cases with the largest allocations
and the longest runs, and how each kind of case ended.
"""

from __future__ import annotations

import argparse
import collections
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import _loader_fuzz  # noqa: E402
from common import git_revision  # noqa: E402


def _mb(n: int) -> str:
    return f"{n / 2**20:.2f} MB" if n >= 2**20 else f"{n / 2**10:.1f} KB"


def _table(rows: list[tuple], header: tuple) -> str:
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows)]
    lines = ["  ".join(str(cell).ljust(w) for cell, w in zip(header, widths))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(str(cell).ljust(w) for cell, w in zip(row, widths)) for row in rows]
    return "\n".join(lines)


def measure(cases: list, repeat: int) -> list[tuple]:
    """(case, outcome under tracemalloc, best time without it) for each case."""
    _loader_fuzz.run([case for case in cases if case.check], trace_memory=False)  # warm up imports
    rows = []
    for case in cases:
        traced = _loader_fuzz.run_case(case, trace_memory=True)
        best = min(_loader_fuzz.run_case(case, trace_memory=False).seconds for _ in range(repeat))
        rows.append((case, traced, best))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per case (the best is kept)")
    parser.add_argument("--top", type=int, default=5, help="how many cases to list in each table")
    args = parser.parse_args()

    marker = Path(tempfile.mkdtemp()) / "marker"
    started = time.perf_counter()
    cases = _loader_fuzz.corpus(str(marker))
    built = time.perf_counter() - started
    rows = measure(cases, args.repeat)

    kinds = collections.Counter(_loader_fuzz.kind(case) for case in cases)
    print(
        f"agv.load fuzz corpus at {git_revision()}, seed {_loader_fuzz.SEED}: {len(cases)} cases "
        f"({kinds['real']} real files, {kinds['mutant']} mutants, {kinds['hostile']} hostile), "
        f"built in {built:.1f} s; largest file {_mb(max(len(c.data) for c in cases))}"
    )
    print()
    largest = max(rows, key=lambda row: row[1].peak)
    longest = max(rows, key=lambda row: row[2])
    print(
        f"largest allocation: {_mb(largest[1].peak)} ({largest[0].name!r}, a {_mb(len(largest[0].data))} file)"
    )
    print(
        f"longest run:        {longest[2] * 1e3:.1f} ms ({longest[0].name!r}, a {_mb(len(longest[0].data))} file)"
    )
    print(f"all cases:          {sum(row[2] for row in rows):.2f} s in total (best of {args.repeat} each)")
    print()
    header = ("case", "kind", "file", "peak", "best time", "ended")
    by_peak = sorted(rows, key=lambda row: -row[1].peak)[: args.top]
    print(_table([_row(r) for r in by_peak], header))
    print()
    by_time = sorted(rows, key=lambda row: -row[2])[: args.top]
    print(_table([_row(r) for r in by_time], header))
    print()
    ends = collections.Counter((_loader_fuzz.kind(case), traced.result) for case, traced, _ in rows)
    print(_table(sorted((k, r, n) for (k, r), n in ends.items()), ("kind", "ended", "cases")))
    if marker.exists():
        print("\nTHE MARKER EXISTS: a hostile file ran code")
        sys.exit(1)


def _row(row: tuple) -> tuple:
    case, traced, best = row
    name = case.name if len(case.name) <= 60 else case.name[:57] + "..."
    return (
        name,
        _loader_fuzz.kind(case),
        _mb(len(case.data)),
        _mb(traced.peak),
        f"{best * 1e3:.2f} ms",
        traced.result,
    )


if __name__ == "__main__":
    main()
