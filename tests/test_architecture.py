"""The source is read by learners: these tests keep its layers honest.

- no import circle among autogradviz's modules (read with `ast`, so an import
  inside a function or through importlib counts as much as one at the top);
- no module-level import placed below code, and no import inside a function
  except of an optional dependency;
- the drawings (viz/) and the widgets (widgets/) read a graph only through
  the graph API (core/protocol.py): never a private attribute of another
  object, never a node's class name;
- no name in a package hides one of its modules (`autogradviz.tensor` is the
  function; the module is `autogradviz.core.tensor`);
- the kernel (core/ and engine.py) names neither the surface attached around
  it (saved-tensor hooks, the `_saved_*` names, the profiler) nor another
  library's rules: Paddle's are attached around it, and importing
  autogradviz.paddle changes nothing on Tensor.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

import autogradviz

PACKAGE = Path(autogradviz.__file__).parent
# dependencies that autogradviz works without: a function may import them when it needs them
OPTIONAL = {
    "IPython",
    "torch",
    "threadpoolctl",
    "js",
    "pyodide",
    "autogradviz_vizjs",
}  # js, pyodide: only in the browser


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


SOURCES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def is_package(name: str) -> bool:
    return SOURCES[name].name == "__init__.py"


def resolve(importer: str, module: str | None, level: int) -> str:
    """The absolute name of `from <level dots><module> import ...` inside `importer`."""
    if level == 0:
        return module or ""
    base = importer.split(".") if is_package(importer) else importer.split(".")[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def imports_of(name: str) -> list[tuple[str, ast.AST, bool]]:
    """(imported module, the statement, is it inside a function or class?) for every
    import statement and every importlib.import_module("...") call in a module."""
    tree = ast.parse(SOURCES[name].read_text(encoding="utf-8"))
    found = []

    def visit(node: ast.AST, nested: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = nested or isinstance(
                child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
            )
            if isinstance(child, ast.Import):
                found.extend((alias.name, child, nested) for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                target = resolve(name, child.module, child.level)
                for alias in child.names:
                    sub = f"{target}.{alias.name}"
                    # `from pkg import mod` imports the module pkg.mod; `from mod import f` imports mod
                    found.append((sub if sub in SOURCES else target, child, nested))
            elif (
                isinstance(child, ast.Call)
                and isinstance(child.func, ast.Attribute)
                and child.func.attr == "import_module"
                and child.args
                and isinstance(child.args[0], ast.Constant)
            ):
                target = child.args[0].value
                if target.startswith("."):
                    level = len(target) - len(target.lstrip("."))
                    target = resolve(name, target.lstrip(".") or None, level)
                found.append((target, child, nested))
            visit(child, inner)

    visit(tree, False)
    return found


def internal_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {name: set() for name in SOURCES}
    for name in SOURCES:
        for target, _, _ in imports_of(name):
            if target in SOURCES and target != name:
                graph[name].add(target)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle, as a list of modules, or None; an explicit stack, no recursion."""
    state: dict[str, int] = {}  # 1: on the current path, 2: finished
    for start in sorted(graph):
        if start in state:
            continue
        path, stack = [start], [iter(sorted(graph[start]))]
        state[start] = 1
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            elif nxt not in state:
                state[nxt] = 1
                path.append(nxt)
                stack.append(iter(sorted(graph[nxt])))
    return None


def test_the_cycle_finder_finds_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_circle():
    cycle = find_cycle(internal_graph())
    assert cycle is None, "import circle: " + " -> ".join(cycle)


LAYER_OF = {
    "core": 0,
    "ui_text": 0,  # the one bilingual table of UI strings: imports nothing
    "ops": 1,
    "engine": 2,
    "linalg": 2,
    "backward_and_grad": 3,  # backward() and grad(): argument checks and seeds, above the walk
    "methods": 3,
    "compat": 3,  # other libraries' spellings, attached to Tensor from outside the core, and
    # PyTorch's GPU namespaces (compat/cuda.py, accelerator.py, backends/), answered by core/device.py
    "finite_differences": 3,
    "autograd": 4,
    "serialization": 3,
    "nn": 4,
    "optim": 4,
    "data": 4,
    "utils": 4,
    "models": 5,
    "paddle": 6,  # Paddle 2.0's names over nn, optim, utils.data and models
    "viz": 6,
    "widgets": 7,
    "torch": 7,  # the PyTorch bridge: a reader for the drawings, steps for the stepper
    "exercises": 8,  # the lessons' check-cell helper: reads ui_text only
}


def layer(name: str) -> tuple[str, int] | None:
    parts = name.split(".")
    if len(parts) < 2:
        return None  # the package's own __init__ gathers everything
    return parts[1], LAYER_OF[parts[1]]


def test_layers_only_import_downwards():
    """core <- ops <- engine <- nn, optim, data <- models <- viz <- widgets; one
    exception, documented in viz/__init__: `agv.viz.TrainingMonitor` (a public
    path) loads the monitor from widgets/ on first use."""
    upward = []
    for name, targets in internal_graph().items():
        mine = layer(name)
        for target in targets:
            theirs = layer(target)
            if mine is None or theirs is None or theirs[0] == mine[0]:
                continue
            if theirs[1] > mine[1] and (name, target) != ("autogradviz.viz", "autogradviz.widgets.monitor"):
                upward.append(f"{name} -> {target}")
    assert not upward, "imports that go up a layer:\n" + "\n".join(sorted(upward))


def test_core_imports_nothing_above_it():
    for name, targets in internal_graph().items():
        if name.startswith("autogradviz.core"):
            assert all(t.startswith("autogradviz.core") for t in targets), (name, targets)


# the kernel a learner reads in one sitting (README, "Reading the source")
KERNEL = [*sorted((PACKAGE / "core").glob("*.py")), PACKAGE / "engine.py"]
# words of the surface that is attached to the kernel from outside, through its extension
# points: saved-tensor hooks (autograd/graph.py, through record.set_saver and a node's
# "unpack" extra), PyTorch's `_saved_*` names (autograd/saved_names.py, Node.__getattr__) and
# the profiler (autograd/profiler.py, through record.set_observer). "profiler", not "profile":
# set_printoptions(profile=...) is PyTorch's own printing option.
OUTSIDE_THE_KERNEL = re.compile(
    r"saved_tensors?_hooks?|pack_hook|unpack_hook|Packed|_raw_saved_|_TORCH_SAVED|(?i:profiler)"
)


def kernel_lines(pattern: re.Pattern) -> list[str]:
    """Every line of the kernel that matches, comments and docstrings included: a learner reads them all."""
    return [
        f"{path.relative_to(PACKAGE)}:{number}: {line.strip()}"
        for path in KERNEL
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]


def test_the_kernel_does_not_name_saved_tensor_hooks_pytorchs_saved_names_or_the_profiler():
    """A learner reading the kernel meets none of these words, and learns of the
    extension points only by their neutral names."""
    found = kernel_lines(OUTSIDE_THE_KERNEL)
    assert not found, "the kernel names what is attached from outside it:\n" + "\n".join(found)


def test_no_import_below_code_and_none_inside_functions_but_optional_ones():
    problems = []
    for name, path in SOURCES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        code_seen = False
        for statement in tree.body:
            is_docstring = isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)
            if isinstance(statement, (ast.Import, ast.ImportFrom)):
                if code_seen:
                    problems.append(f"{name}:{statement.lineno}: module-level import below code")
            elif not is_docstring:
                code_seen = True
        for target, statement, nested in imports_of(name):
            if not nested:
                continue
            is_lazy_attribute = isinstance(statement, ast.Call) and is_package(name)
            if target.split(".")[0] in OPTIONAL or is_lazy_attribute:
                continue
            problems.append(f"{name}:{statement.lineno}: imports {target} inside a function")
    assert not problems, "\n".join(problems)


def test_the_import_checks_see_function_level_and_importlib_imports(tmp_path):
    # the checks read real source: make sure a hidden circle would be caught
    graph = internal_graph()
    assert "autogradviz.viz.view" in graph["autogradviz.widgets.stepper"]
    assert "autogradviz.widgets.stepper" in graph["autogradviz"]  # through importlib, lazily
    assert "autogradviz.core.views" in graph["autogradviz.core.tensor"]


# -- viz/ and widgets/ read the graph API only ------------------------------------------


def private_reads(path: Path) -> list[str]:
    """`x._something` where x is not self or cls: another object's private state."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            owner = node.value
            if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
                continue
            found.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: .{node.attr}")
    return found


READERS = sorted((PACKAGE / "viz").glob("*.py")) + sorted((PACKAGE / "widgets").glob("*.py"))


def test_the_private_read_check_catches_one(tmp_path):
    sample = PACKAGE / "viz" / "_probe_for_test.py"
    try:
        sample.write_text("def f(node, self):\n    return node._saved, self._mine\n", encoding="utf-8")
        assert [line.split(": ")[-1] for line in private_reads(sample)] == ["._saved"]
    finally:
        sample.unlink()


@pytest.mark.parametrize("path", READERS, ids=lambda p: p.name)
def test_drawings_and_widgets_read_no_private_state(path):
    assert private_reads(path) == []


@pytest.mark.parametrize("path", READERS, ids=lambda p: p.name)
def test_drawings_and_widgets_do_not_test_class_names(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            assert not re.fullmatch(r"\w+Backward\d*|AccumulateGrad|CopySlices", node.value), (
                f"{path.name}:{node.lineno} tests a node class by name: {node.value!r}"
            )


def test_drawings_and_widgets_import_nothing_private_from_the_core():
    for path in READERS:
        name = module_name(path)
        for target, statement, _ in imports_of(name):
            if not target.startswith(("autogradviz.core", "autogradviz.engine", "autogradviz.ops")):
                continue
            if isinstance(statement, ast.ImportFrom):
                private = [a.name for a in statement.names if a.name.startswith("_")]
                assert not private, f"{name} imports {private} from {target}"


def test_autogradviz_nodes_implement_the_graph_protocol():
    from autogradviz.core.graph import AccumulateGrad
    from autogradviz.core.protocol import AUTOGRADVIZ, GraphNode

    x = autogradviz.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 3).exp()
    assert isinstance(y.grad_fn, GraphNode)
    leaf_node = AUTOGRADVIZ.node(x)
    assert isinstance(leaf_node, AccumulateGrad) and isinstance(leaf_node, GraphNode)
    assert leaf_node.variable is x and y.grad_fn.variable is None
    mul = y.grad_fn.edges[0]
    assert mul.name() == "MulBackward0" and mul.edges == (leaf_node, None)
    assert mul.constants == (None, 3) and mul.label == "* 3"
    assert [s.source for s in y.grad_fn.saved_values] == ["output"]


def test_both_readers_implement_the_whole_graph_protocol():
    """The stepper asks every reader for its steps and its backward: no reader is a special case."""
    import autogradviz.widgets  # noqa: F401 - attaches autogradviz's record_backward and backward
    from autogradviz.core.protocol import AUTOGRADVIZ, GraphTensors

    wanted = [name for name in vars(GraphTensors) if not name.startswith("_")]
    assert {"record_backward", "backward", "node", "value", "grad"} <= set(wanted)
    readers = [AUTOGRADVIZ]
    try:
        from autogradviz.torch import READER

        readers.append(READER)
    except ImportError:  # no torch here: autogradviz's own reader is still checked
        pass
    for reader in readers:
        missing = [name for name in wanted if not callable(getattr(reader, name, None))]
        assert not missing, (type(reader).__name__, missing)
    stepper = (PACKAGE / "widgets" / "stepper.py").read_text(encoding="utf-8")
    assert "is AUTOGRADVIZ" not in stepper and "is not AUTOGRADVIZ" not in stepper


def test_the_pytorch_adapter_needs_nothing_from_drawings_or_widgets():
    """Step, Sent and Namer are the protocol's (core/protocol.py), so both adapters import them from there."""
    for name in SOURCES:
        if name.startswith("autogradviz.torch"):
            reached = [
                t for t, _, _ in imports_of(name) if t.startswith(("autogradviz.viz", "autogradviz.widgets"))
            ]
            assert not reached, (name, reached)


def test_autogradviz_records_a_backward_through_the_protocol():
    import autogradviz.widgets  # noqa: F401
    from autogradviz.core.protocol import AUTOGRADVIZ, Step

    x = autogradviz.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    steps, seed = AUTOGRADVIZ.record_backward(y, names={"x": x, "y": y})
    assert [step.name for step in steps] == ["SumBackward0", "MulBackward0", "AccumulateGrad"]
    assert all(isinstance(step, Step) for step in steps) and seed.tolist() == 1.0
    assert steps[-1].upstream.tolist() == [2.0, 4.0] and x.grad is None  # 2x, and nothing written
    AUTOGRADVIZ.backward(y)
    AUTOGRADVIZ.backward(y)  # the graph is kept: a second call adds again
    assert x.grad.tolist() == [4.0, 8.0]


# -- names ----------------------------------------------------------------------------------


def all_packages():
    names = ["autogradviz"]
    for info in pkgutil.walk_packages(autogradviz.__path__, "autogradviz."):
        if info.ispkg:
            names.append(info.name)
    return names


@pytest.mark.parametrize("package", all_packages())
def test_no_name_hides_a_module(package):
    pkg = importlib.import_module(package)
    for info in pkgutil.iter_modules(pkg.__path__):
        module = importlib.import_module(f"{package}.{info.name}")
        assert getattr(pkg, info.name) is module, (
            f"{package}.{info.name} is {getattr(pkg, info.name)!r}, not the module {module.__name__}"
        )


def test_the_tensor_function_and_the_tensor_module_are_apart():
    import autogradviz.core.tensor as tensor_module

    assert callable(autogradviz.tensor) and autogradviz.tensor.__module__ == "autogradviz.core.creation"
    assert tensor_module.Tensor is autogradviz.Tensor


@pytest.mark.parametrize("package", all_packages())
def test_each_package_docstring_gives_a_reading_order(package):
    doc = importlib.import_module(package).__doc__ or ""
    if package == "autogradviz":
        assert doc.strip(), package
        return
    assert "Reading order" in doc or "reading order" in doc, f"{package}'s docstring has no reading order"


def test_public_import_paths_keep_working():
    import autogradviz as agv

    assert agv.draw is importlib.import_module("autogradviz.viz.view").draw
    assert agv.BackwardStepper is importlib.import_module("autogradviz.widgets.stepper").BackwardStepper
    assert agv.viz.TrainingMonitor is importlib.import_module("autogradviz.widgets.monitor").TrainingMonitor
    assert agv.nn.Linear and agv.nn.functional.relu and agv.optim.SGD and agv.plot.loss_curve
    assert agv.GraphView and agv.viz.renderer and agv.widgets.BackwardStepper is agv.BackwardStepper


# -- the kernel: core/ and engine.py, what backpropagation needs -------------------------------


def test_the_kernel_does_not_mention_paddle():
    """Paddle's rules live in autogradviz/paddle/ (the PaddleTensor subclass and
    record()'s result hook) and its spellings in autogradviz/compat/."""
    found = kernel_lines(re.compile("paddle", re.IGNORECASE))
    assert not found, "the kernel mentions Paddle:\n" + "\n".join(found)


# run in a fresh interpreter: in this one, another test may have imported autogradviz.paddle already
_TENSOR_BEFORE_AND_AFTER_PADDLE = """
import sys
import autogradviz as agv
assert "autogradviz.paddle" not in sys.modules
before = dict(vars(agv.Tensor))
import autogradviz.paddle
after = dict(vars(agv.Tensor))
changed = sorted(name for name in before.keys() & after.keys() if after[name] is not before[name])
print("changed:", changed)
print("added:", sorted(after.keys() - before.keys()))
print("removed:", sorted(before.keys() - after.keys()))
print("sum is ops.sum:", agv.Tensor.sum is agv.ops.sum)
"""


def test_importing_paddle_leaves_the_tensor_class_unchanged():
    """Paddle's tensors are a subclass: importing autogradviz.paddle patches no
    method of Tensor (sum, mean, max, min, argmax, backward, ...) for every tensor."""
    out = subprocess.run(
        [sys.executable, "-c", _TENSOR_BEFORE_AND_AFTER_PADDLE],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=PACKAGE.parent,  # the autogradviz under test, not another installed copy
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["changed: []", "added: []", "removed: []", "sum is ops.sum: True"]


def test_the_readme_gives_the_kernels_real_line_count():
    """README, "Reading the source": the count a learner is told is `wc -l` of the
    four kernel files as they are, file by file and in total."""
    readme = (PACKAGE.parent / "README.md").read_text(encoding="utf-8")
    match = re.search(
        r"is (\d+) lines \(`wc -l`: `core/tensor.py` (\d+),\s+`core/graph.py` (\d+), "
        r"`core/record.py` (\d+), `engine.py` (\d+)\)",
        readme,
    )
    assert match, "README's reading path no longer states the kernel's line count"
    files = ["core/tensor.py", "core/graph.py", "core/record.py", "engine.py"]
    counts = [len((PACKAGE / f).read_text(encoding="utf-8").splitlines()) for f in files]
    assert [int(n) for n in match.groups()] == [sum(counts), *counts]


# PyTorch's GPU namespaces moved into compat/; autogradviz/__init__ registers each under
# its old public path. (old path, a statement a tutorial writes, the name it binds)
OLD_PATHS = [
    ("autogradviz.cuda", "import autogradviz.cuda", "autogradviz.cuda"),
    ("autogradviz.accelerator", "import autogradviz.accelerator", "autogradviz.accelerator"),
    ("autogradviz.backends", "import autogradviz.backends", "autogradviz.backends"),
    ("autogradviz.backends.cudnn", "import autogradviz.backends.cudnn", "autogradviz.backends.cudnn"),
    ("autogradviz.backends.mps", "import autogradviz.backends.mps", "autogradviz.backends.mps"),
    ("autogradviz.backends.mps", "from autogradviz.backends import mps", "mps"),
    ("autogradviz.backends.cudnn", "from autogradviz.backends import cudnn", "cudnn"),
    ("autogradviz.cuda", "from autogradviz import cuda", "cuda"),
]


@pytest.mark.parametrize(("old", "statement", "bound"), OLD_PATHS, ids=[s for _, s, _ in OLD_PATHS])
def test_an_old_import_path_is_the_moved_module(old, statement, bound):
    """In a fresh interpreter, so that the old path is the first import of autogradviz:
    the statement works and binds the module compat/ holds, not a second copy of it."""
    new = old.replace("autogradviz.", "autogradviz.compat.", 1)
    program = (
        f"{statement}\n"
        "import importlib, sys\n"
        f"new = importlib.import_module({new!r})\n"
        f"print({bound} is new, sys.modules[{old!r}] is new, new.__file__)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", program],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=PACKAGE.parent,  # the autogradviz under test, not another installed copy
    )
    assert out.returncode == 0, out.stderr
    same, registered, path = out.stdout.split()
    assert (same, registered) == ("True", "True")
    assert Path(path).relative_to(PACKAGE / "compat")  # the file that runs is the one in compat/
