"""What drawings and the stepper read of a backward node: the graph API.

`GraphAPI` is a mixin that `Node` (graph.py) inherits. It holds the node's
read-only view for the drawings and the stepper (the `GraphNode` protocol of
protocol.py): the op and its rules as text, the constants and numbers the op
used, what it saved and where each value came from, the output's name, the
module calls that made it. Nothing here is needed to compute a gradient: the
backward pass itself is graph.py, record.py and the engine's walk.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .printing import short_number
from .tensor import Tensor


class SavedValue(NamedTuple):
    """One value a node saved for backward, and where it came from: the index
    of the input it is, "output" for the op's result, or None (an index, a mask)."""

    value: object
    source: int | str | None


class GraphAPI:
    """What drawings and the stepper read of a backward node: the graph protocol
    of core/protocol.py (`GraphNode`). Node inherits it; it reads Node's slots."""

    __slots__ = ()  # no state of its own: a node keeps one set of slots

    # one rule per input, written as a formula; the stepper and drawings show them
    rules: tuple[str, ...] = ()
    # the forward op this node reverses, as a learner would write it
    op: str = ""
    # None means PyTorch records a node of the same name for this op; otherwise, text saying
    # what PyTorch records instead (or in which cases), or "— (autogradviz only: why)".
    # docs/formula_sheet.md shows it; a subclass of a class that sets it must set its own
    torch_name: str | None = None
    # True when each output element depends only on the same element of each
    # input: then "upstream × local derivative" is an elementwise product, and
    # the stepper can show the local derivative's values
    elementwise: bool = False

    def __repr__(self) -> str:
        """`<AddmmBackward0>`: PyTorch's repr without its memory address, the one deliberate
        difference from PyTorch's `<AddmmBackward0 object at 0x7f...>`. An address changes on
        every run, and the lessons' outputs must be the same every time (nbval checks them)."""
        return f"<{type(self).__name__}>"

    @property
    def next_functions(self) -> tuple[tuple[GraphAPI | None, int], ...]:
        """PyTorch's spelling of the edges: (node, 0) pairs."""
        return tuple((node, 0) for node in self._edges)

    @property
    def constants(self) -> tuple:
        """For each input: None where it has an edge, else the value the op used
        (a number, or an array that needs no gradient)."""
        return self._constants if self._constants is not None else (None,) * len(self._edges)

    @property
    def saved_values(self) -> tuple[SavedValue, ...]:
        """What the node saved for backward, with where each value came from;
        empty once backward has freed them."""
        if not self._saved:
            return ()
        sources = [None] * len(self._saved)
        for position, source, _, _ in self._checks:
            # an input's index, None (not an input), or the OUTPUT mark (graph.py): "output"
            sources[position] = source if source is None or isinstance(source, int) else "output"
        return tuple(SavedValue(value, source) for value, source in zip(self._saved, sources))

    @property
    def saved_tensors(self) -> tuple:
        """The saved tensors, as PyTorch's `ctx.saved_tensors` gives them."""
        return tuple(x for x in self.unpack_saved(as_tensors=True) if isinstance(x, Tensor))

    @property
    def output(self) -> np.ndarray | None:
        """The value the forward op computed; None once backward freed it."""
        return self._output

    @property
    def output_meta(self) -> tuple | None:
        """(shape, dtype) of the forward result, also after backward freed its value."""
        if self._output is not None:
            return self._output.shape, self._output.dtype
        return None if self._extras is None else self._extras.freed

    @property
    def output_name(self) -> str | None:
        """The name given to the output tensor (`t.name = "h"`), if any."""
        return None if self._extras is None else self._extras.name

    @property
    def label(self) -> str:
        """The op with the numbers it used, as drawn: `* 0.9`, `** 2`, `2 -`."""
        before, after = self.numbers_used()
        return " ".join([*map(short_number, before), self.op, *map(short_number, after)])

    def numbers_used(self) -> tuple[list, list]:
        """The plain numbers the op used, to show on either side of its symbol.
        A number on the left of an operator is shown on the left (`2 /` for
        2 / x), so that it does not read as x / 2. Ops that keep a number in
        `args` (x ** 2) say so by overriding this."""
        before, after = [], []
        for i, value in enumerate(self.constants):
            if value is not None and not isinstance(value, np.ndarray):
                on_the_left = i == 0 and not self.op[:1].isalpha()
                (before if on_the_left else after).append(value)
        return before, after

    @property
    def variable(self):
        """The leaf tensor, for an AccumulateGrad node; None for every other node."""
        return None

    @property
    def module_calls(self) -> tuple:
        """(module, the nodes its inputs came from), for each nn module call
        whose output this node made: `draw(group="module")` boxes them."""
        modules = None if self._extras is None else self._extras.modules
        return tuple(modules or ())


def node_classes() -> list[type]:
    """Every class of backward node defined so far: every subclass of Node, at
    any depth (the formula sheet lists them; import autogradviz.nn first to
    include its layers' nodes). The nodes of custom Functions
    (autograd/function.py) are left out: their formulas are the user's, not
    the library's."""
    found, todo = [], GraphAPI.__subclasses__()  # [Node]: the class that takes this mixin
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub not in found and not getattr(sub, "custom_function", False):
                found.append(sub)
                todo.append(sub)
    return found
