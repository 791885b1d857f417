"""benchmarks/bench_draw.py builds graphs of the size it claims. Nothing here is
timed and nothing is rendered."""

import importlib.util
import sys
from pathlib import Path

import pytest

import autogradviz as agv

_PATH = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_draw.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_draw", _PATH)
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_draw"] = module
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop("bench_draw", None)


@pytest.mark.parametrize(("n_boxes", "branches"), [(4, 1), (10, 1), (12, 1), (30, 1), (60, 3), (120, 5)])
def test_graph_has_the_expected_number_of_boxes(bench, n_boxes, branches):
    view = agv.draw(bench.build_graph(n_boxes, branches), max_nodes=10_000)
    copies = view.source.count("(the same tensor)")  # a leaf used many times gets small copies
    assert view.nodes - copies == n_boxes
    assert view.hidden == 0
    assert view.source.count('class="agv-node') - copies == n_boxes


def test_graph_has_fan_out_and_one_root(bench):
    root = bench.build_graph(30)
    source = agv.draw(root, max_nodes=10_000).source
    assert source.count("agv-root") == 1
    copies = source.count("(the same tensor)")
    assert (
        source.count("agv-param") == 1 and source.count("agv-input") == 1 + copies
    )  # x, and w with its copies
    assert "<B>sin</B>" in source and "<B>tanh</B>" in source
    # the output of each `* w` feeds both sin and tanh
    tails = [line.split("->")[0].strip() for line in source.splitlines() if "->" in line]
    assert max(tails.count(t) for t in set(tails) if t.startswith("t")) >= 2


def test_benchmark_cases_draw_every_box(bench):
    # the sizes the script measures: max_nodes there is the graph's size, so nothing is elided
    for n_boxes, branches in bench.CASES:
        view = agv.draw(bench.build_graph(n_boxes, branches), max_nodes=n_boxes)
        copies = view.source.count("(the same tensor)")
        assert (view.nodes - copies, view.hidden) == (n_boxes, 0)


def test_odd_or_too_small_sizes_are_refused(bench):
    with pytest.raises(ValueError):
        bench.build_graph(301)
    with pytest.raises(ValueError):
        bench.build_graph(10, branches=5)
