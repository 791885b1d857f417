"""Names without asking: label a drawing's tensors with the caller's variable names.

`agv.draw(y)`, `BackwardStepper(y)` and the PyTorch bridge's stepper call
`resolve_names` with their `names=` and `model=`. With no `names=`, the names
come from the variables of the code that called them: the first frame on the
call stack outside autogradviz (and outside traitlets, anywidget, ipywidgets
and comm, which may sit between a widget and its caller). In a notebook that
frame is the cell's, whose globals are IPython's user namespace.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Mapping
from types import ModuleType

from ..core.protocol import AUTOGRADVIZ, GraphTensors, reader_for

# frames of these packages never supply names: the caller is the first frame outside them
SKIPPED_PACKAGES = ("autogradviz", "traitlets", "anywidget", "ipywidgets", "comm")


def resolve_names(
    names: Mapping | Iterable | bool | None,
    model: object | None = None,
    *,
    reader: GraphTensors | None = None,
    roots: Iterable | None = None,
) -> Mapping | None:
    """`names=` as a mapping {name: tensor} for the drawing's `Namer`.

    - names: a mapping (such as `locals()`) or (name, tensor) pairs (such as
      `model.named_parameters()`): used as given, after `model`'s parameter
      names; nothing is looked up.
    - names=False: no automatic names; only `model=`'s parameter paths (and a
      tensor's own `.name`, which the drawing reads itself).
    - names=None (the default): the caller's variables name the tensors they
      hold. In a function the caller's locals come first, then its module's
      globals; in a notebook cell, IPython's user namespace. Any nn module
      among those variables (anything with a callable `named_parameters`: an
      `agv.nn.Module`, a `torch.nn.Module`), and `model=`, name their
      parameters by their path, as `named_parameters()` prints it: `0.weight`,
      not prefixed by the model's variable name.

    The rule, when several names could name one tensor (deterministic):
    1. a variable beats a parameter path;
    2. among variables, a function's local beats a global; then the shortest
       name, then the first alphabetically (`a` beats `b`, `w` beats `w1`);
       names starting with "_" are skipped (IPython's `_`, `_1`, `Out`'s kin).
       A variable's name also beats the tensor's own `.name`, as `names=locals()` does;
    3. among models, `model=` first, then the model variables in the same
       order: shortest name, then alphabetical.
    Two different tensors never share a name: a variable keeps its name; a
    parameter path already taken by another model's parameter goes to the one
    in the drawn graph (`roots`); if both are in it (or a variable has that
    name), the later model's parameter is named `variable.path`, or with no
    variable (`model=`) left unnamed.

    reader: the library of the tensors to name (default: that of `roots[0]`,
    else autogradviz); roots: the tensors to be drawn, read only to settle
    such a clash. Only the one caller frame's variables are read (plus its
    globals), never the inside of lists or other objects.

    With names None or False the result is a dict (possibly empty), never
    None: passed on as `names=` to another drawing (the stepper's picture),
    it is used as given, and the variables are not looked up a second time.
    """
    if names is not None and names is not False:
        return named(names, model)
    roots = list(roots or ())
    if reader is None:
        reader = (reader_for(roots[0]) if roots else None) or AUTOGRADVIZ
    variables = () if names is False else caller_variables()
    return _from_variables(variables, model, reader, roots)


def named(names, model=None) -> dict | None:
    """`names=` as a mapping: a mapping, or (name, tensor) pairs such as
    `model.named_parameters()`; a model's own parameter names come first."""
    if model is None and (names is None or isinstance(names, Mapping)):
        return names
    found = dict(model.named_parameters()) if model is not None else {}
    found.update(names.items() if isinstance(names, Mapping) else names or ())
    return found


def caller_variables() -> list[tuple[int, str, object]]:
    """(scope, name, value) of the caller's variables: scope 0 for a function's
    locals, 1 for the globals (a module's or a notebook's, where the two are one)."""
    frame = inspect.currentframe()
    try:
        while frame is not None and _skipped(frame.f_globals.get("__name__", "")):
            frame = frame.f_back
        if frame is None:
            return []
        local, shared = frame.f_locals, frame.f_globals
        found = [(0, key, value) for key, value in local.items()] if local is not shared else []
        found += [(1, key, value) for key, value in shared.items() if local is shared or key not in local]
        if local is not shared:
            # before Python 3.13, a function frame's f_locals is a snapshot the frame keeps: it would
            # hold every object the caller had, even after the caller deletes its variables
            local.clear()
        return found
    finally:
        del frame  # a frame refers to its locals: drop it now, not at the next garbage collection


def _skipped(module: str) -> bool:
    return any(module == package or module.startswith(package + ".") for package in SKIPPED_PACKAGES)


def _from_variables(variables, model, reader: GraphTensors, roots: list) -> dict:
    by_tensor: dict[int, tuple[str, object]] = {}  # id(tensor) -> (its name, the tensor)
    holder: dict[str, int] = {}  # name -> id of the tensor it names
    models = []
    variable_names = set()
    for _, key, value in sorted(variables, key=lambda v: (v[0], len(str(v[1])), str(v[1]))):
        # "_", "_1", "__name__"...; and not a Python name at all: pytest's "@py_assert1"
        if not isinstance(key, str) or key.startswith("_") or not key.isidentifier():
            continue
        if reader.is_tensor(value):
            if id(value) not in by_tensor and key not in holder:
                by_tensor[id(value)] = (key, value)
                holder[key] = id(value)
                variable_names.add(key)
        elif _is_model(value) and all(value is not m for _, m in models) and value is not model:
            models.append((key, value))
    if model is not None:
        models.insert(0, (None, model))

    in_graph = _LeavesOf(roots, reader)
    for prefix, found in models:
        for path, param in _parameters(found, reader):
            if id(param) in by_tensor:
                continue  # a variable, or an earlier model, named it already
            if path in holder:
                other = by_tensor[holder[path]][1]
                if path not in variable_names and in_graph(param) and not in_graph(other):
                    del by_tensor[holder[path]]  # the name goes to the tensor that is drawn
                elif in_graph(param) and prefix is not None:
                    path = f"{prefix}.{path}"
                    if path in holder:
                        continue
                else:
                    continue
            by_tensor[id(param)] = (path, param)
            holder[path] = id(param)
    return {name: tensor for name, tensor in by_tensor.values()}


def _is_model(value) -> bool:
    # not a class (its named_parameters is unbound) and not a module (a lazy module may import on
    # attribute access); any other object's attribute may still be computed, so it may raise
    if isinstance(value, (type, ModuleType)):
        return False
    try:
        return callable(getattr(value, "named_parameters", None))
    except Exception:
        return False


def _parameters(model, reader: GraphTensors) -> list[tuple[str, object]]:
    try:
        return [(p, t) for p, t in model.named_parameters() if isinstance(p, str) and reader.is_tensor(t)]
    except Exception:  # any object in a namespace may have such a method: names must never break a drawing
        return []


class _LeavesOf:
    """in_graph(tensor): is the tensor a leaf of the graph behind `roots`? The
    graph is walked the first time it is asked (only when two models clash)."""

    def __init__(self, roots: list, reader: GraphTensors):
        self._roots, self._reader, self._leaves = roots, reader, None

    def __call__(self, tensor) -> bool:
        if self._leaves is None:
            self._leaves = set()
            stack = [self._reader.node(t) for t in self._roots if self._reader.is_tensor(t)]
            seen: dict[int, object] = {}  # id -> node: holding the node keeps its id from being reused
            while stack:
                node = stack.pop()
                if node is None or id(node) in seen:
                    continue
                seen[id(node)] = node
                if node.variable is not None:
                    self._leaves.add(id(node.variable))
                stack.extend(node.edges)
        return id(tensor) in self._leaves
