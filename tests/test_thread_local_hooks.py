"""Issue 26, item 5: saved-tensor hooks and the profiler belong to the thread that
opened them, as PyTorch's saved_tensors_hooks do (thread-local state in its C++
core). Each test runs a second thread while the first one's block is open, in a
fixed order (barriers), and where torch has the same API, the same program runs
on torch and must call the same hooks."""

from __future__ import annotations

import threading

import pytest

import autogradviz as agv
from autogradviz import engine
from autogradviz.autograd import graph as agv_graph
from autogradviz.autograd.profiler import profile
from autogradviz.core import record as record_module

torch = pytest.importorskip("torch")


def _run_in_two_threads(first, second) -> dict:
    """first(opened, done) opens its block, waits at `opened` while second runs,
    then finishes; both record into the dict returned. Exceptions are re-raised."""
    opened, done = threading.Barrier(2), threading.Barrier(2)
    results: dict = {}
    errors: list = []

    def run(fn, key):
        try:
            results[key] = fn(opened, done)
        except BaseException as error:  # noqa: BLE001 - re-raised in the main thread
            errors.append(error)
            opened.abort()
            done.abort()

    threads = [
        threading.Thread(target=run, args=(first, "first")),
        threading.Thread(target=run, args=(second, "second")),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    if errors:
        raise errors[0]
    return results


def _hooks_program(lib):
    """Thread 1 packs inside saved_tensors_hooks; thread 2 computes a*b while the
    block is open. Returns the shapes thread 1's pack hook saw, and both results."""
    packed = []

    def pack(t):
        packed.append((threading.current_thread().name == "first", tuple(t.shape)))
        return t

    def first(opened, done):
        x = lib.ones(2, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            opened.wait()  # the second thread computes now
            done.wait()
            y = (x * lib.full((2,), 3.0)).sum()
        y.backward()
        return x.grad.tolist()

    def second(opened, done):
        opened.wait()
        a = lib.ones(3, requires_grad=True)
        b = lib.full((3,), 2.0, requires_grad=True)
        (a * b).sum().backward()
        done.wait()
        return a.grad.tolist(), b.grad.tolist()

    results = _run_named(first, second)
    return packed, results


def _run_named(first, second) -> dict:
    def named(fn, name):
        def wrapper(opened, done):
            threading.current_thread().name = name
            return fn(opened, done)

        return wrapper

    return _run_in_two_threads(named(first, "first"), named(second, "second"))


def test_a_pack_hook_sees_only_its_own_threads_tensors_as_in_torch():
    ours = _hooks_program(agv)
    theirs = _hooks_program(torch)
    assert ours == theirs
    packed, results = ours
    # MulBackward0 of x * 3 saves the constant 3 (for x's gradient) only: from the first thread
    assert packed == [(True, (2,))]
    assert results == {"first": [3.0, 3.0], "second": ([2.0, 2.0, 2.0], [1.0, 1.0, 1.0])}
    assert record_module._saver is None  # every block closed: record() calls nothing


def test_disable_saved_tensors_hooks_is_per_thread_as_in_torch():
    def program(lib):
        outcome = {}

        def first(opened, done):
            with lib.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
                opened.wait()
                done.wait()
            return "closed"

        def second(opened, done):
            opened.wait()
            try:
                with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                    outcome["second"] = "opened"
            finally:
                done.wait()
            return outcome["second"]

        return _run_in_two_threads(first, second)

    assert program(agv) == program(torch) == {"first": "closed", "second": "opened"}


def _profiled_mul(x):
    with profile() as prof:
        (x * 2).sum().backward()
    return [e.name for e in prof.events()]


def test_a_profile_records_only_its_own_threads_ops_and_nodes():
    alone = _profiled_mul(agv.ones(2, requires_grad=True))  # the same program, no other thread

    def first(opened, done):
        x = agv.ones(2, requires_grad=True)
        with profile() as prof:
            opened.wait()
            done.wait()
            (x * 2).sum().backward()
        return [e.name for e in prof.events()]

    def second(opened, done):
        opened.wait()
        a = agv.ones(3, requires_grad=True)
        a.sin().exp().sum().backward()  # while the first thread's profile records
        done.wait()
        return a.grad.shape

    results = _run_in_two_threads(first, second)
    assert results["first"] == alone
    assert len(alone) == 5 and not any("sin" in n or "exp" in n for n in alone)
    assert results["second"] == (3,)
    assert record_module._observer is None and not hasattr(engine.backward_steps, "__wrapped__")


def test_profiles_in_two_threads_at_once_each_keep_their_own():
    def make(op_name):
        def run(opened, done):
            x = agv.ones(2, requires_grad=True)
            with profile() as prof:
                opened.wait()
                getattr(x, op_name)()
                done.wait()
            return [e.name for e in prof.events()]

        return run

    results = _run_in_two_threads(make("sin"), make("cos"))
    assert results == {"first": ["aten::sin"], "second": ["aten::cos"]}
    assert record_module._observer is None


def test_the_hook_stack_is_this_threads():
    seen = {}

    def first(opened, done):
        with agv.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            opened.wait()
            seen["first"] = len(agv_graph.hook_stack())
            done.wait()

    def second(opened, done):
        opened.wait()
        seen["second"] = len(agv_graph.hook_stack())
        done.wait()

    _run_in_two_threads(first, second)
    assert seen == {"first": 1, "second": 0}
