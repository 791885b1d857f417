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
How: core/record.py packs at the moment an op saves, and `Node.unpack_saved`
(core/graph.py) unpacks. A single saved tensor can get hooks after the op
ran too: `y.grad_fn._raw_saved_self.register_hooks(pack_hook, unpack_hook)`.
"""

from __future__ import annotations

from collections.abc import Callable

from ..core.graph import Node, SavedTensor, saved_tensor_hook_stack
from ..core.tensor import Tensor

__all__ = ["Node", "SavedTensor", "disable_saved_tensors_hooks", "save_on_cpu", "saved_tensors_hooks"]

# the messages of the active disable_saved_tensors_hooks blocks, innermost last
_disabled: list[str] = []


class saved_tensors_hooks:  # noqa: N801 - PyTorch's spelling
    """While active, every tensor an op saves for backward goes through
    `pack_hook(tensor)`, and `unpack_hook(what pack returned)` gives it back.
    Blocks nest: the innermost pair is used."""

    def __init__(self, pack_hook: Callable[[Tensor], object], unpack_hook: Callable[[object], Tensor]):
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError("saved_tensors_hooks: pack_hook and unpack_hook must be callables")
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self) -> saved_tensors_hooks:
        if _disabled:
            raise RuntimeError(_disabled[-1])
        saved_tensor_hook_stack.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc) -> None:
        saved_tensor_hook_stack.pop()


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
        if saved_tensor_hook_stack:
            raise RuntimeError(self.error_message)
        _disabled.append(self.error_message)

    def __exit__(self, *exc) -> None:
        _disabled.pop()
