"""`agv.cuda`: PyTorch's torch.cuda, for a library that has no GPU.

Tutorials ask before they use a GPU (`torch.cuda.is_available()`), and seed
it as well as the CPU (`torch.cuda.manual_seed_all(seed)`). Here the answers
are those of a PyTorch built without CUDA: nothing is available, there are no
devices, and seeding or emptying the cache does nothing (the CPU's draws depend
only on `agv.manual_seed`, as in PyTorch). What would need a GPU to answer
(`current_device()`, `synchronize()`, ...) raises PyTorch's error.
"""

from __future__ import annotations

from ..core import device as _device


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def is_initialized() -> bool:
    return False


def manual_seed(seed: int) -> None:
    """Seed the GPU's generators: there are none, so nothing happens, as in a
    PyTorch without CUDA. `agv.manual_seed(seed)` seeds what autogradviz draws."""


def manual_seed_all(seed: int) -> None:
    """See manual_seed: nothing to seed."""


def seed() -> None:
    """Nothing to seed (no GPU)."""


def seed_all() -> None:
    """Nothing to seed (no GPU)."""


def empty_cache() -> None:
    """There is no GPU memory to release."""


def memory_allocated(device=None) -> int:
    return 0


def max_memory_allocated(device=None) -> int:
    return 0


def _no_cuda(*args, **kwargs):
    _device.check("cuda", "this call")


current_device = _no_cuda
get_device_name = _no_cuda
synchronize = _no_cuda
set_device = _no_cuda
initial_seed = _no_cuda
