"""agv.autograd.profiler against torch.autograd.profiler: the same op and node
names and counts, a table of the same shape, and a deterministic view; the
hooks are gone once the profile ends."""

from __future__ import annotations

import re

import numpy as np
import pytest

import autogradviz as agv
from autogradviz import engine
from autogradviz.autograd.profiler import aten_name, profile, record_function
from autogradviz.core import record as record_module

torch = pytest.importorskip("torch")

LABEL = "a_region_label_longer_than_any_op"  # sets the Name column's width in both libraries


def forward(lib, x, w):
    return ((x @ w).exp() * 2).sum()


def leaves(lib):
    x = lib.tensor(np.arange(6.0).reshape(2, 3) / 10, requires_grad=True)
    w = lib.tensor(np.ones((3, 2)) / 3, requires_grad=True)
    return x, w


def counts(prof) -> dict[str, int]:
    return {row.key: row.count for row in prof.key_averages()}


def test_forward_op_names_and_counts_match_torch():
    def run(lib):
        x, w = leaves(lib)
        with lib.autograd.profiler.profile() as prof:
            forward(lib, x, w)
            with lib.no_grad():  # ops that record nothing still ran
                x * 3
        return counts(prof)

    ours, theirs = run(agv), run(torch)
    assert ours == {"aten::mm": 1, "aten::exp": 1, "aten::mul": 2, "aten::sum": 1}
    for name, count in ours.items():
        assert theirs[name] == count, name


def test_backward_node_names_and_counts_match_torch():
    def run(lib):
        x, w = leaves(lib)
        y = forward(lib, x, w)
        with lib.autograd.profiler.profile() as prof:
            y.backward()
        return counts(prof)

    ours, theirs = run(agv), run(torch)
    torch_names = {"AccumulateGrad": "torch::autograd::AccumulateGrad"}
    assert set(ours) == {"SumBackward0", "MulBackward0", "ExpBackward0", "MmBackward0", "AccumulateGrad"}
    for name, count in ours.items():
        assert theirs[torch_names.get(name, name)] == count, name


def test_events_in_order():
    x, w = leaves(agv)
    with profile() as prof:
        with record_function(LABEL):
            y = forward(agv, x, w)
        y.backward()
    assert [e.name for e in prof.events()] == [
        LABEL,
        "aten::mm",
        "aten::exp",
        "aten::mul",
        "aten::sum",
        "SumBackward0",
        "MulBackward0",
        "ExpBackward0",
        "MmBackward0",
        "AccumulateGrad",
        "AccumulateGrad",
    ]


def table_of(lib, **table_options):
    x, w = leaves(lib)
    with lib.profiler.profile() as prof:
        with lib.profiler.record_function(LABEL):
            forward(lib, x, w)
    return prof.key_averages().table(**table_options)


def test_the_table_has_torchs_layout():
    ours = table_of(agv, sort_by="cpu_time_total").splitlines()
    theirs = table_of(torch, sort_by="cpu_time_total").splitlines()
    theirs = [line for line in theirs if not line.startswith("STAGE:")]  # torch's own log lines, if any
    assert ours[:3] == theirs[:3]  # the rule, the header, the rule: same columns, same widths
    assert ours[-2] == theirs[-2]  # the closing rule
    assert re.fullmatch(r"Self CPU time total: \d+\.\d{3}(us|ms|s)", ours[-1])
    assert ours[3].split()[0] == theirs[3].split()[0] == LABEL  # the region covers everything: first
    row = ours[3].split()
    assert row[3] == "100.00%"  # its CPU total % is all of it: every op ran inside it
    cells = re.findall(r"\S+", ours[4])
    assert re.fullmatch(r"\d+\.\d{2}%", cells[1]) and re.fullmatch(r"\d+\.\d{3}(us|ms|s)", cells[2])


def test_self_times_add_up_to_the_total():
    x, w = leaves(agv)
    with profile() as prof:
        forward(agv, x, w).backward()
    rows = prof.key_averages()
    total = sum(r.self_cpu_time_total for r in rows)
    assert total > 0
    assert all(r.cpu_time_total == r.self_cpu_time_total for r in rows)  # ops do not nest
    assert sum(
        float(line.split()[1].rstrip("%")) for line in prof.table().splitlines()[3:-2]
    ) == pytest.approx(100, abs=0.1)


def test_the_deterministic_view():
    expected = (
        "-------------------------------------  ------------  \n"
        "                                 Name    # of Calls  \n"
        "-------------------------------------  ------------  \n"
        "    a_region_label_longer_than_any_op             1  \n"
        "                             aten::mm             1  \n"
        "                            aten::exp             1  \n"
        "                            aten::mul             1  \n"
        "                            aten::sum             1  \n"
        "-------------------------------------  ------------  \n"
    )
    first = table_of(agv, columns=("Name", "# of Calls"))
    assert first == expected == table_of(agv, columns=("Name", "# of Calls"))
    by_count = table_of(agv, sort_by="count", row_limit=2, columns=("Name", "# of Calls"))
    assert [line.split()[0] for line in by_count.splitlines()[3:-1]] == [
        LABEL,
        "aten::mm",
    ]  # ties keep first-call order


def test_table_errors():
    x, w = leaves(agv)
    with profile() as prof:
        forward(agv, x, w)
    with pytest.raises(ValueError, match="unknown column 'Self GPU'"):
        prof.key_averages().table(columns=("Name", "Self GPU"))
    with pytest.raises(ValueError, match="cannot sort by 'speed'"):
        prof.key_averages().table(sort_by="speed")


def test_hooks_are_removed_on_exit_even_after_an_error():
    walk = engine.backward_steps
    with pytest.raises(ZeroDivisionError):
        with profile():
            assert record_module._observer is not None and engine.backward_steps is not walk
            1 / 0
    assert record_module._observer is None and engine.backward_steps is walk
    with profile(enabled=False) as prof:
        agv.ones(2) * 2
    assert prof.events() == [] and record_module._observer is None


def test_nested_profiles_and_a_decorated_function():
    @record_function("step")
    def step(x):
        return (x * 2).sum()

    x = agv.ones(3, requires_grad=True)
    with profile() as outer:
        x + 1
        with profile() as inner:
            step(x).backward()
    assert [e.name for e in inner.events()] == [
        "step",
        "aten::mul",
        "aten::sum",
        "SumBackward0",
        "MulBackward0",
        "AccumulateGrad",
    ]
    assert [e.name for e in outer.events()] == ["aten::add", "step", "aten::mul", "aten::sum"] + [
        "SumBackward0",
        "MulBackward0",
        "AccumulateGrad",
    ]


def test_create_graph_backward_shows_the_ops_it_records():
    x = agv.ones(2, requires_grad=True)
    y = (x * x).sum()
    with profile() as prof:
        agv.autograd.grad(y, x, create_graph=True)
    names = [e.name for e in prof.events()]
    assert "MulBackward0" in names and "aten::mul" in names  # the backward's own ops are recorded


def test_torch_profiler_spellings_are_accepted():
    x = agv.ones(2)
    with agv.profiler.profile(
        activities=[agv.profiler.ProfilerActivity.CPU],
        record_shapes=True,
        profile_memory=True,
        with_stack=True,
    ) as prof:
        x.exp()
        prof.step()
    assert [e.name for e in prof.events()] == ["aten::exp"]
    assert agv.profiler is agv.autograd.profiler


@pytest.mark.parametrize(
    "cls, name",
    [
        ("MulBackward0", "aten::mul"),
        ("LogSoftmaxBackward0", "aten::log_softmax"),
        ("MaxPool2DWithIndicesBackward0", "aten::max_pool2d_with_indices"),
        ("NllLossBackward0", "aten::nll_loss"),
        ("AddmmBackward0", "aten::addmm"),
        ("CopySlices", "aten::copy_"),
    ],
)
def test_aten_names(cls, name):
    assert aten_name(type(cls, (), {})) == name


def test_chrome_trace_has_every_event_on_one_time_line(tmp_path):
    import json

    x, w = leaves(agv)
    with profile() as prof:
        with record_function(LABEL):
            y = forward(agv, x, w)
        y.backward()
    prof.export_chrome_trace(str(tmp_path / "trace.json"))
    events = json.loads((tmp_path / "trace.json").read_text())["traceEvents"]
    assert [e["name"] for e in events] == [e.name for e in prof.events()]
    assert all(e["ph"] == "X" and e["dur"] >= 0 for e in events)
    region, ops = events[0], events[1:5]
    for op in ops:  # the ops inside the region lie within it
        assert region["ts"] <= op["ts"] and op["ts"] + op["dur"] <= region["ts"] + region["dur"] + 1e-6
    starts = [e["ts"] for e in events[1:]]
    assert starts == sorted(starts)


def test_sorting_by_memory_as_the_recipe_does_keeps_the_order():
    # PyTorch's profiler recipe sorts by memory; autogradviz measures none, so the order stays
    table = table_of(agv, sort_by="self_cpu_memory_usage", columns=("Name", "# of Calls"))
    assert table == table_of(agv, columns=("Name", "# of Calls"))
