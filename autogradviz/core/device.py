"""Devices: autogradviz computes with numpy, on the CPU, and only there.

Tutorials written for PyTorch pick a device first and move everything to it:

    device = "cuda" if torch.cuda.is_available() else "cpu"
    model.to(device); x = x.to(device)

so `agv.device`, `x.device`, `device=` and `.to(device)` exist here as they do in
PyTorch, and that code runs unchanged: `agv.cuda.is_available()` is False, the
device is "cpu", and every move to it changes nothing. A device object for
"cuda" can be made (PyTorch's `torch.device("cuda")` is only a name too); it is
putting a tensor there that raises, with PyTorch's sentence and a hint.
"""

from __future__ import annotations

from .tensor import Tensor

# the device types PyTorch knows, in the order its error message lists them
KNOWN_TYPES = (
    "cpu cuda ipu xpu mkldnn opengl opencl ideep hip ve fpga maia xla lazy vulkan mps meta hpu mtia "
    "privateuseone"
).split()


class DeviceError(RuntimeError, AssertionError):
    """Asking for a device autogradviz does not have. PyTorch raises an
    AssertionError for CUDA ("Torch not compiled with CUDA enabled") and a
    RuntimeError for the others; this is both, so either `except` catches it."""


class device:  # noqa: N801 - PyTorch's name: torch.device
    """Where a tensor lives: `agv.device("cpu")`, `agv.device("cpu", 0)`, `agv.device("cpu:0")`.

    Prints as PyTorch prints it, `device(type='cpu')`. Two devices are equal when
    type and index are; as in PyTorch, a device is never equal to a string
    (`agv.device("cpu") == "cpu"` is False: compare `d.type == "cpu"`).
    """

    __slots__ = ("_type", "_index")

    def __init__(self, type: str | device | int, index: int | None = None) -> None:  # noqa: A002
        if isinstance(type, device):
            if index is not None:
                raise TypeError("device(): an index can't be given with a device object")
            self._type, self._index = type._type, type._index
            return
        if isinstance(type, int) and not isinstance(type, bool):
            # torch.device(0) means "accelerator 0", and there is none
            raise DeviceError("Cannot access accelerator device when none is available.")
        if not isinstance(type, str):
            raise TypeError(f"device() received an invalid combination of arguments - got ({type!r})")
        name, _, number = type.partition(":")
        if number:
            if index is not None:
                raise RuntimeError(
                    f"type (string) must not include an index because index was passed explicitly: {type}"
                )
            if not number.isdigit():
                raise RuntimeError(f"Invalid device string: '{type}'")
            index = int(number)
        if name not in KNOWN_TYPES:
            raise RuntimeError(
                f"Expected one of {', '.join(KNOWN_TYPES)} device type at start of device string: {type}"
            )
        if index is not None and (not isinstance(index, int) or isinstance(index, bool)):
            raise TypeError(f"device(): argument 'index' must be int, not {index.__class__.__name__}")
        if index is not None and index < 0:
            raise RuntimeError("Device index must not be negative")
        self._type, self._index = name, index

    @property
    def type(self) -> str:  # noqa: A003
        return self._type

    @property
    def index(self) -> int | None:
        return self._index

    def __repr__(self) -> str:
        if self._index is None:
            return f"device(type='{self._type}')"
        return f"device(type='{self._type}', index={self._index})"

    def __str__(self) -> str:
        return self._type if self._index is None else f"{self._type}:{self._index}"

    def __eq__(self, other) -> bool:
        return isinstance(other, device) and (self._type, self._index) == (other._type, other._index)

    def __hash__(self) -> int:
        return hash((self._type, self._index))

    def __reduce__(self):
        return (device, (self._type, self._index))


CPU = device("cpu")  # the device of every tensor: x.device


def check(where, what: str = "a tensor") -> device:
    """`where` (None, a string, a device or an int) as a device, if it is the CPU;
    otherwise raise: PyTorch's sentence, then what to write instead.

    `what` names what was to be put there, for the message ("a tensor", "a Generator")."""
    if where is None:
        return CPU
    d = where if isinstance(where, device) else device(where)
    if d.type == "cpu":
        return d
    first = {
        "cuda": "Torch not compiled with CUDA enabled",
        "mps": "PyTorch is not linked with support for mps devices",
    }.get(d.type, f"Could not run on device '{d.type}': no backend for it")
    raise DeviceError(
        f"{first}. autogradviz computes with numpy on the CPU, so there is no device {str(d)!r} for "
        f'{what}: use "cpu". Tutorial code runs unchanged if it picks the device with '
        '`device = "cuda" if agv.cuda.is_available() else "cpu"`'
    )


_default = CPU


def set_default_device(where) -> None:
    """PyTorch's torch.set_default_device. Only the CPU exists, so "cpu" (or None,
    back to the default) is all it accepts; anything else raises now, rather than
    at the next tensor made."""
    global _default
    _default = check(where, "the default device")


def get_default_device() -> device:
    return _default


def to_arguments(args: tuple, dtype=None, where=None):
    """What `x.to(...)` asks for, as its dtype (None: keep it), after checking the
    device. PyTorch's forms: x.to(dtype), x.to(device), x.to(device, dtype),
    x.to(other_tensor) (other's dtype and device), and the keywords device= and dtype=.
    autogradviz also takes a dtype's name, x.to("float64"), where PyTorch wants agv.float64."""
    from_args = []
    for arg in args:
        if isinstance(arg, device) or (isinstance(arg, str) and arg.partition(":")[0] in KNOWN_TYPES):
            where = arg
        elif isinstance(arg, int) and not isinstance(arg, bool):
            where = arg  # x.to(0) means accelerator 0: device() refuses it
        elif isinstance(arg, Tensor):
            dtype = arg.dtype  # and its device, which is the CPU
        else:
            from_args.append(arg)
    if len(from_args) > 1:
        raise TypeError(
            f"to() received an invalid combination of arguments - got {len(args)} positional arguments"
        )
    if from_args:
        dtype = from_args[0]
    check(where)
    return dtype
