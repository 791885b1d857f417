"""`agv.autograd.graph`: hooks on the tensors that backward nodes save.

    def pack_hook(x):
        print("Packing", x)
        return x

    def unpack_hook(x):
        print("Unpacking", x)
        return x

    with agv.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
        y = a * b          # prints "Packing" for each tensor MulBackward0 saves
    y.sum().backward()     # prints "Unpacking" for each, as backward needs them

What the pack hook returns is what the node keeps (PyTorch uses this to move
saved tensors to disk or to the CPU); the unpack hook must turn it back into
a tensor. Outside a `with` block, nothing is called and nothing is paid.

How, through the kernel's two extension points for "who packs saved values":
while a block is active, `core.record.set_saver` makes every op (and custom
Function) that saves call `_pack`, which keeps a `Packed` stand-in for each
saved tensor; the node's `unpack` extra, `unpack_packed`, gives the tensors
back when `Node.unpack_saved` (core/graph.py) is asked for them. A single
saved tensor can get hooks after the op ran too:
`y.grad_fn._raw_saved_self.register_hooks(pack_hook, unpack_hook)`
(`SavedTensor`; the `_saved_*` names are autograd/saved_names.py's).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import numpy as np

from ..core import record
from ..core.graph import OUTPUT, Node
from ..core.tensor import Tensor, _make

__all__ = ["Node", "SavedTensor", "disable_saved_tensors_hooks", "save_on_cpu", "saved_tensors_hooks"]

# Hooks belong to the thread that opened the block, as in PyTorch (its default
# hooks are thread-local state): another thread's ops are not packed by them.
_this_thread = threading.local()
# how many blocks are active in all threads: the saver is attached only while some
# are, so plain code pays one `is not None` per op
_active_blocks = 0
_active_blocks_lock = threading.Lock()


def hook_stack() -> list[tuple[Callable, Callable]]:
    """This thread's (pack_hook, unpack_hook) pairs, one per active block, innermost last."""
    if not hasattr(_this_thread, "hooks"):
        _this_thread.hooks = []
    return _this_thread.hooks


def disabled_messages() -> list[str]:
    """The messages of this thread's active disable_saved_tensors_hooks blocks."""
    if not hasattr(_this_thread, "disabled"):
        _this_thread.disabled = []
    return _this_thread.disabled


# the nodes whose pack hooks PyTorch calls for the second input before the first
# (tests/test_saved_tensors.py compares the order of the calls with torch's)
_SAVES_SECOND_INPUT_FIRST = frozenset({"MulBackward0", "DivBackward0", "PowBackward1", "MmBackward0"})


class Packed:
    """A saved tensor as a pack hook returned it: the node keeps this instead of
    the array, and the unpack hook gives the tensor back when backward needs it."""

    __slots__ = ("packed", "unpack_hook", "shape")

    def __init__(self, packed, unpack_hook: Callable[[object], Tensor], shape: tuple):
        # shape: the kernel's in-place error names the saved tensor's shape (Node.unpack_saved)
        self.packed, self.unpack_hook, self.shape = packed, unpack_hook, shape

    def unpack(self) -> np.ndarray:
        t = self.unpack_hook(self.packed)
        if not isinstance(t, Tensor):
            raise TypeError(
                "Output of saved tensor unpack_hook expected to be a Tensor but got result of type "
                f"{type(t).__name__}"
            )
        return t._data

    def __repr__(self) -> str:
        return "<packed saved tensor>"


def pack_order(node: Node) -> list[int]:
    """The positions of a node's saved tensors, in the order PyTorch saves (and
    unpacks) them, which saved-tensor hooks make visible: as listed, except that
    some binary ops save their second input first (a * b saves b, then a). A
    custom Function's are in the order its forward listed them."""
    listed = [position for position, _, _, _ in node._checks]
    if getattr(type(node), "custom_function", False) or type(node).__name__ not in _SAVES_SECOND_INPUT_FIRST:
        return listed
    inputs = sorted((c for c in node._checks if isinstance(c[1], int)), key=lambda c: -c[1])
    return [c[0] for c in inputs] + [c[0] for c in node._checks if not isinstance(c[1], int)]


def _pack(node: Node, saved: tuple, out: Tensor) -> None:
    """The saver (core.record.set_saver) while a saved_tensors_hooks block is active:
    each saved tensor goes through the innermost pack hook, in PyTorch's order, and
    the node keeps what it returns; its unpack hook gives the tensor back at backward."""
    stack = hook_stack()
    if not stack:  # the block that attached the saver is another thread's
        return
    pack_hook, unpack_hook = stack[-1]
    values = list(node._saved)
    for position in pack_order(node):
        tensor = out if saved[position] is OUTPUT else saved[position]
        values[position] = Packed(pack_hook(tensor), unpack_hook, values[position].shape)
    node._saved = tuple(values)  # only once every hook returned: a failing one leaves the arrays
    node._ensure_extras().unpack = unpack_packed


def unpack_packed(node: Node, saved: tuple) -> tuple:
    """A node's `unpack` extra (core/graph.py, Node.unpack_saved): the saved values,
    each packed one through its unpack hook, in PyTorch's order."""
    values = list(saved)
    for position in pack_order(node):
        if isinstance(values[position], Packed):
            values[position] = values[position].unpack()
    return tuple(values)


def _count_block(change: int) -> None:
    """The saver is attached while a block is active in any thread; outside, record()
    calls nothing."""
    global _active_blocks
    with _active_blocks_lock:
        _active_blocks += change
        record.set_saver(_pack if _active_blocks else None)


class saved_tensors_hooks:  # noqa: N801 - PyTorch's spelling
    """While active, every tensor an op saves for backward goes through
    `pack_hook(tensor)`, and `unpack_hook(what pack returned)` gives it back.
    Blocks nest: the innermost pair is used."""

    def __init__(self, pack_hook: Callable[[Tensor], object], unpack_hook: Callable[[object], Tensor]):
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError("saved_tensors_hooks: pack_hook and unpack_hook must be callables")
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self) -> saved_tensors_hooks:
        if disabled_messages():
            raise RuntimeError(disabled_messages()[-1])
        hook_stack().append((self.pack_hook, self.unpack_hook))
        _count_block(+1)
        return self

    def __exit__(self, *exc) -> None:
        hook_stack().pop()
        _count_block(-1)


class save_on_cpu(saved_tensors_hooks):  # noqa: N801
    """PyTorch's hooks that move saved tensors from the GPU to the CPU. An
    autogradviz tensor always lives in the CPU's memory, so here both hooks
    give the tensor back as it is: code written for a GPU runs unchanged."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda"):
        super().__init__(_same, _same)


def _same(tensor):
    return tensor


class disable_saved_tensors_hooks:  # noqa: N801
    """A block where saved-tensor hooks are not allowed: entering one, or being
    inside one already, raises RuntimeError(error_message). For code that
    cannot work with hooks, to say so clearly."""

    def __init__(self, error_message: str):
        self.error_message = error_message

    def __enter__(self) -> None:
        if hook_stack():
            raise RuntimeError(self.error_message)
        disabled_messages().append(self.error_message)

    def __exit__(self, *exc) -> None:
        disabled_messages().pop()


class SavedTensor:
    """PyTorch's `y.grad_fn._raw_saved_self`: a handle on one saved tensor, to
    give it a pack and an unpack hook (`register_hooks`) after the op ran."""

    __slots__ = ("_node", "_position")

    def __init__(self, node: Node, position: int):
        self._node, self._position = node, position

    def register_hooks(
        self, pack_hook: Callable[[Tensor], object], unpack_hook: Callable[[object], Tensor]
    ) -> None:
        """Call pack_hook(the saved tensor) now and keep what it returns; backward
        (and `_saved_*`) then get the tensor back from unpack_hook(that)."""
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError("register_hooks: pack_hook and unpack_hook must be callables")
        node = self._node
        if node._saved is None:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor after it has been freed. Saved intermediate "
                "values of the graph are freed when you call .backward() or autograd.grad(). Specify "
                "retain_graph=True if you need to backward through the graph a second time or if you "
                "need to access saved variables after calling backward."
            )
        value = node._saved[self._position]
        if isinstance(value, Packed):
            raise RuntimeError(
                "Calling register_hooks on a saved tensor whose hooks have already been set. "
                "Hint: only one pair of hooks is allowed at a time."
            )
        tensor = _make(value)  # PyTorch's hook sees the data alone, without its history
        saved = list(node._saved)
        saved[self._position] = Packed(pack_hook(tensor), unpack_hook, value.shape)
        node._saved = tuple(saved)
        node._ensure_extras().unpack = unpack_packed

    def __repr__(self) -> str:
        return "<SavedTensor>"
