"""PyTorch's `grad_fn` graph, read through autogradviz's graph API.

`TorchNode` wraps one torch backward node as a `GraphNode` (reader.py reads
the tensors).

What PyTorch keeps, and so what a drawing can show:

- the edges (`next_functions`) and, for a leaf, `AccumulateGrad.variable`;
- the values a node saved for backward (`_saved_self`, `_saved_result`, ...);
- no local-derivative formulas: the rules come from `RULES`, autogradviz's own
  formula text for every node that has the same name in PyTorch. A node that
  is not in it says so, rather than getting an invented rule;
- no intermediate values and no module boundaries: `trace(model)` (modules.py)
  notes them while the forward runs.

A torch node's Python object is the same one each time it is read (while the
graph is alive), so each gets one wrapper, found again in `_WRAPPERS`: the
drawings and the stepper compare nodes by identity.
"""

from __future__ import annotations

import weakref

import numpy as np

from .. import nn  # noqa: F401 - defines the nn nodes (linear, conv, losses), whose rules RULES reuses
from ..autograd.saved_names import TORCH_NAMES
from ..core.graph_api import SavedValue, node_classes
from ..ui_text import text
from ._pytorch import torch

# the key under which trace(model) leaves its notes in a torch node's `metadata` dict
NOTE_KEY = "autogradviz"


def _same_name_in_pytorch(cls) -> bool:
    """Does PyTorch record a node of this class's name (for the common case)?"""
    return cls.torch_name is None or cls.torch_name.split(";")[0].split(" ")[0] == cls.__name__


# PyTorch node name -> (op, rules, elementwise), from autogradviz's own node
# classes (the formula sheet's table) wherever PyTorch's node has the same name
RULES: dict[str, tuple[str, tuple[str, ...], bool]] = {
    cls.__name__: (cls.op, cls.rules, cls.elementwise) for cls in node_classes() if _same_name_in_pytorch(cls)
}


def _numpy(value) -> np.ndarray | None:
    """A saved value as a numpy array: tensors only (sizes, flags and dims are not values to draw)."""
    if isinstance(value, torch.Tensor):
        return value.detach().cpu().resolve_conj().resolve_neg().numpy()
    return None


class TorchNode:
    """One PyTorch backward node, as the drawings and the stepper read it."""

    def __init__(self, fn, leaf=None):
        self.fn = fn  # the torch node (None for a leaf first met through its tensor)
        self.leaf = leaf  # for an AccumulateGrad node: its leaf tensor
        torch_name = "AccumulateGrad" if leaf is not None else type(fn).__name__
        self._torch_name = torch_name
        known = RULES.get(torch_name)
        if known is not None:
            self.op, self.rules, self.elementwise = known
        else:
            # PyTorch exposes no formula: say so, and show the op by its name
            self.op = torch_name.removesuffix("0").removesuffix("Backward") or torch_name
            self.rules = (text("torch.no_formula", name=torch_name),)
            self.elementwise = False
        self._edges: tuple | None = None
        self._constants: tuple | None = None
        self._saved: tuple | None = None

    def name(self) -> str:
        return self._torch_name

    def __repr__(self) -> str:
        # no memory address: drawings and notebooks must print the same every run
        return f"<{self._torch_name}>"

    @property
    def next_functions(self) -> tuple:
        """The torch node's own edges: (node, output index) pairs."""
        return () if self.fn is None or self.leaf is not None else self.fn.next_functions

    @property
    def edges(self) -> tuple[TorchNode | None, ...]:
        if self._edges is None:
            self._edges = tuple(None if child is None else wrap(child) for child, _ in self.next_functions)
        return self._edges

    def _input_names(self) -> tuple[str, ...]:
        """The names of the node's inputs, in `next_functions` order: they say
        which input a saved value (`_saved_<name>`) is (autograd/saved_names.py)."""
        row = TORCH_NAMES.get(self._torch_name)
        names = row.inputs if row is not None else None
        if names is None and len(self.next_functions) == 1:
            names = ("self",)
        return names or ()

    @property
    def constants(self) -> tuple:
        """An input with no edge (it needs no gradient): its value, where the node saved it."""
        if self._constants is None:
            names = self._input_names()
            values = []
            for i, edge in enumerate(self.edges):
                value = None
                if edge is None and i < len(names):
                    value = _numpy(getattr(self.fn, f"_saved_{names[i]}", None))
                values.append(value)
            self._constants = tuple(values)
        return self._constants

    @property
    def label(self) -> str:
        return self.op

    @property
    def saved_values(self) -> tuple[SavedValue, ...]:
        """Every tensor the node saved (`_saved_*`), in name order, with the input it is."""
        if self._saved is None:
            if self.fn is None or self.leaf is not None:
                self._saved = ()
                return self._saved
            names = self._input_names()
            found = []
            for attribute in sorted(a for a in dir(self.fn) if a.startswith("_saved_")):
                try:
                    value = _numpy(getattr(self.fn, attribute))
                except RuntimeError:  # freed by a backward without retain_graph
                    continue
                if value is None:
                    continue
                argument = attribute.removeprefix("_saved_")
                source = None  # not one of the inputs: an index, a total weight...
                if argument == "result":
                    source = "output"
                elif argument in names and names.index(argument) < len(self.edges):
                    source = names.index(argument)
                found.append(SavedValue(value, source))
            self._saved = tuple(found)
        return self._saved

    def _note(self) -> dict:
        if self.fn is None or self.leaf is not None:
            return {}
        return self.fn.metadata.get(NOTE_KEY, {})

    @property
    def output(self) -> np.ndarray | None:
        """The forward result: noted by trace(), or saved by the node itself (`_saved_result`)."""
        value = self._note().get("value")
        if value is not None:
            return value
        for value, source in self.saved_values:
            if source == "output":
                return value
        return None

    @property
    def output_name(self) -> str | None:
        return None

    @property
    def variable(self):
        return self.leaf

    @property
    def module_calls(self) -> tuple:
        """(module, the nodes its inputs came from), as trace(model) noted them."""
        return tuple(self._note().get("modules", ()))


# torch node (or ("leaf", id(leaf)) for an AccumulateGrad) -> its wrapper, while the wrapper lives.
# A wrapper holds its torch node or leaf, so the key stays valid as long as the entry exists.
_WRAPPERS: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


def wrap(fn) -> TorchNode:
    """The one wrapper of a torch backward node."""
    leaf = getattr(fn, "variable", None)
    if leaf is not None:
        return leaf_node(leaf)
    found = _WRAPPERS.get(fn)
    if found is None:
        found = _WRAPPERS[fn] = TorchNode(fn)
    return found


def leaf_node(leaf) -> TorchNode:
    """The AccumulateGrad node of a leaf that requires grad."""
    key = ("leaf", id(leaf))
    found = _WRAPPERS.get(key)
    if found is None or found.leaf is not leaf:
        found = _WRAPPERS[key] = TorchNode(None, leaf)
    return found
