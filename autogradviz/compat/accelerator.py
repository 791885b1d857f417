"""`agv.accelerator`: PyTorch's torch.accelerator, device-neutral code's question
"is there a GPU (or other accelerator)?". Here there never is:

    device = agv.accelerator.current_accelerator() if agv.accelerator.is_available() else "cpu"

picks "cpu".
"""

from __future__ import annotations

from ..core import device as _device


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def current_accelerator(check_available: bool = False) -> _device.device | None:
    """The accelerator's device type, or None: there is none."""
    return None


def _none_available(*args, **kwargs):
    """What needs an accelerator raises PyTorch's error (numpy has finished when a call
    returns: there is nothing to synchronize)."""
    raise _device.DeviceError("Cannot access accelerator device when none is available.")


current_device_index = _none_available
current_device_idx = _none_available
set_device_index = _none_available
set_device_idx = _none_available
synchronize = _none_available
empty_cache = _none_available
