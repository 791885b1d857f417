"""The dtypes, named and printed as in PyTorch.

A dtype is a thin label around a numpy dtype: tensors store numpy arrays, and
`agv.float32` prints as `torch.float32` (PyTorch's spelling, so that a
tutorial run with `import autogradviz as torch` prints what PyTorch prints)
rather than numpy's `dtype('float32')`.

The dtypes are PyTorch's real ones: float32 and float64; int64, int32,
int16, int8 and uint8; bool. Two of PyTorch's are left out, on purpose:

- float16 (`agv.half`) exists as a name, but making a tensor of it raises:
  autogradviz computes in float32 or float64, and half precision rounds so
  much that a lesson's gradient checks would fail.
- uint16, uint32 and uint64 have little support in PyTorch itself (no
  arithmetic, no promotion): numpy arrays of them are widened to int64 when
  they are copied into a tensor.

Also here: the legacy type names (`x.type()` gives "torch.FloatTensor"), and
`finfo`/`iinfo`, numpy's limits under PyTorch's names.
"""

from __future__ import annotations

import numpy as np


class DType:
    __slots__ = ("name", "numpy", "is_floating_point", "is_signed", "itemsize", "legacy_name")

    def __init__(self, name: str, legacy_name: str):
        self.name = name
        self.numpy = np.dtype(name)
        self.is_floating_point = self.numpy.kind == "f"
        self.is_signed = self.numpy.kind in "fi"  # as in PyTorch: bool and uint8 are unsigned
        self.itemsize = self.numpy.itemsize  # bytes per element
        self.legacy_name = legacy_name  # "FloatTensor": what x.type() says, after "torch."

    @property
    def is_complex(self) -> bool:
        return False  # autogradviz has no complex numbers

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self):
        return (to_dtype, (self.name,))


float32 = DType("float32", "FloatTensor")
float64 = DType("float64", "DoubleTensor")
float16 = DType("float16", "HalfTensor")  # a name only: see the module docstring
int64 = DType("int64", "LongTensor")
int32 = DType("int32", "IntTensor")
int16 = DType("int16", "ShortTensor")
int8 = DType("int8", "CharTensor")
uint8 = DType("uint8", "ByteTensor")
bool_ = DType("bool", "BoolTensor")

SUPPORTED = (float32, float64, int64, int32, int16, int8, uint8, bool_)
_BY_NUMPY = {d.numpy: d for d in SUPPORTED}
_BY_NAME = {d.name: d for d in (*SUPPORTED, float16)}
_BY_LEGACY_NAME = {f"torch.{d.legacy_name}": d for d in (*SUPPORTED, float16)}
# numpy's unsigned ints wider than a byte have no dtype here: widened, as the module docstring says
_WIDEN = {np.dtype("uint16"): int64, np.dtype("uint32"): int64, np.dtype("uint64"): int64}


def _refuse_half() -> TypeError:
    return TypeError(
        "float16 (half) tensors are not supported: autogradviz computes in float32 or float64. "
        "Use agv.float32 instead (for a numpy array: array.astype(np.float32))"
    )


def to_dtype(value) -> DType:
    """Accept dtypes, numpy dtypes, Python types, names like "float32", PyTorch's
    legacy type names like "torch.FloatTensor", and the classes agv.FloatTensor and
    friends (anything with a `dtype` attribute that is a DType)."""
    if isinstance(value, DType):
        # a subclass (a dtype printed another library's way, VarType.FP32) means the dtype of its name
        found = value if type(value) is DType else _BY_NAME[value.name]
    elif value is float:  # a Python float is a double: PyTorch maps the type to float64 too
        found = float64
    elif value is int:
        found = int64
    elif value is bool:
        found = bool_
    elif isinstance(value, str) and value in _BY_LEGACY_NAME:
        found = _BY_LEGACY_NAME[value]
    elif isinstance(value, str) and value.removeprefix("torch.") in _BY_NAME:
        found = _BY_NAME[value.removeprefix("torch.")]
    elif isinstance(value, type) and isinstance(getattr(value, "dtype", None), DType):  # agv.FloatTensor
        found = value.dtype
    else:
        try:
            np_dtype = np.dtype(value)
        except TypeError:
            raise TypeError(
                f"unknown dtype {value!r}; use one of " + ", ".join(map(repr, SUPPORTED))
            ) from None
        return from_numpy_dtype(np_dtype)
    if found is float16:
        raise _refuse_half()
    return found


def from_numpy_dtype(np_dtype: np.dtype) -> DType:
    found = _BY_NUMPY.get(np_dtype)
    if found is not None:
        return found
    if np_dtype == np.float16:
        raise _refuse_half()
    widened = _WIDEN.get(np_dtype)
    if widened is None:
        raise TypeError(f"autogradviz has no dtype for numpy {np_dtype}")
    return widened


def type_name(dtype: DType) -> str:
    """PyTorch's legacy name of a CPU tensor type: "torch.FloatTensor" for float32."""
    return f"torch.{dtype.legacy_name}"


# -- finfo and iinfo: numpy's limits, with PyTorch's fields and repr -------------------------


class finfo:  # noqa: N801 - PyTorch's name
    """The limits of a float dtype: `agv.finfo(agv.float32).eps` is 2⁻²³, the gap
    between 1 and the next float32. `agv.finfo()` describes the default, float32."""

    def __init__(self, dtype: DType | None = None):
        dtype = float32 if dtype is None else to_dtype(dtype)
        if not dtype.is_floating_point:
            raise TypeError(
                "torch.finfo() requires a floating point input type. Use torch.iinfo to handle 'torch.finfo'"
            )
        info = np.finfo(dtype.numpy)
        self.dtype = dtype.name
        self.bits = int(info.bits)
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0 ** -int(info.precision)  # 1e-06 exactly, as torch (numpy rounds it to float32)

    def __repr__(self) -> str:
        fields = ("resolution", "min", "max", "eps", "smallest_normal", "tiny")
        return "finfo(" + ", ".join(f"{f}={getattr(self, f):.6g}" for f in fields) + f", dtype={self.dtype})"


class iinfo:  # noqa: N801 - PyTorch's name
    """The limits of an integer dtype: `agv.iinfo(agv.int8).max` is 127."""

    def __init__(self, dtype: DType):
        dtype = to_dtype(dtype)
        if dtype.is_floating_point:
            raise TypeError(
                "torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'"
            )
        if dtype is bool_:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        info = np.iinfo(dtype.numpy)
        self.dtype = dtype.name
        self.bits = int(info.bits)
        self.max = int(info.max)
        self.min = int(info.min)

    def __repr__(self) -> str:
        return f"iinfo(min={self.min:.6g}, max={self.max:.6g}, dtype={self.dtype})"


def overflows(array: np.ndarray, dtype: DType) -> np.ndarray:
    """Which values of `array` don't fit the integer `dtype`, by PyTorch's rule for
    values given as Python numbers: a float must lie in the dtype's range (nan
    never does); so must an integer, except that an unsigned dtype also accepts
    negative integers down to -max, which wrap around (-1 becomes 255 as uint8)."""
    info = np.iinfo(dtype.numpy)
    if array.dtype.kind == "f":
        if dtype is int64:  # 2**63 - 1 is not a float64: the float just below 2**63 is the last one
            return ~((array >= -(2.0**63)) & (array < 2.0**63))
        return ~((array >= info.min) & (array <= info.max))
    if array.dtype.kind in "iu":
        lowest = -int(info.max) if info.min == 0 else int(info.min)
        return (array < lowest) | (array > info.max)
    return np.zeros(array.shape, dtype=bool)  # bools fit every dtype


# PyTorch's two other names of each dtype, which some of its messages use: the C++
# type ("attempting to assign a gradient with dtype 'double'") and the ScalarType
# ("... to a tensor with grad_dtype 'Float'", "expected ... Long or Byte, but got Float")
_CPP_NAMES = {
    "float32": "float",
    "float64": "double",
    "float16": "c10::Half",
    "int64": "long int",
    "int32": "int",
    "int16": "short int",
    "int8": "signed char",
    "uint8": "unsigned char",
    "bool": "bool",
}
_SCALAR_TYPE_NAMES = {
    "float32": "Float",
    "float64": "Double",
    "float16": "Half",
    "int64": "Long",
    "int32": "Int",
    "int16": "Short",
    "int8": "Char",
    "uint8": "Byte",
    "bool": "Bool",
}


def cpp_name(dtype: DType) -> str:
    return _CPP_NAMES[dtype.name]


def scalar_type_name(dtype: DType) -> str:
    return _SCALAR_TYPE_NAMES[dtype.name]
