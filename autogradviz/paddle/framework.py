"""What makes a tensor a Paddle tensor: a flag, and the object behind it.

autogradviz.paddle runs Paddle 2.0's dynamic graph on autogradviz's own
engine: the same Tensor class, the same nodes, the same backward walk. A
tensor made by `paddle.to_tensor`, `paddle.rand`, a Paddle layer's parameter
(and every result computed from one) carries one extra, `_meta["paddle"]`,
holding `PADDLE` below. The core consults it in these places, and nowhere
else, so plain autogradviz code in the same process keeps PyTorch's rules:

- `record()` (core/record.py) passes the flag on to results, and makes each
  result keep its gradient: Paddle 2.0 fills `.grad` of intermediate tensors
  too, without PyTorch's `retain_grad()`;
- `backward()` (engine.py, `root_gradients`) starts from ones when the output
  is not a scalar, where PyTorch raises;
- `t.grad` (core/tensor.py) is, as in Paddle 2.0.x, the alias of
  `t.gradient()`: a numpy copy, so `print(x.grad)` shows `[2. 4. 6.]`;
- `t.shape` is Paddle's list, `[3]` (a `Shape` below), and `t.dtype` Paddle's
  dtype, printed `VarType.FP32` (a `VarType` below);
- `repr(t)` is Paddle's: `Tensor(shape=[3], dtype=float32, place=CPUPlace,
  stop_gradient=False,` and the numbers below;
- `t.numpy()` works on a tensor that needs a gradient (PyTorch asks for detach());
- `t.stop_gradient = True` on a computed tensor cuts the graph (detach_()),
  where PyTorch allows requires_grad to change only on a leaf.

tensor_methods.py adds Paddle's own methods (astype, set_value, ...).

Paddle 2.0 has no 0-d tensors: `paddle.to_tensor(2.0)` and `paddle.sum(x)`
have shape [1]. The functions of autogradviz.paddle follow that.
"""

from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core import record as _record
from ..core.tensor import Tensor

# Paddle 2.0's print options: 8 digits, at most 1000 numbers, 3 at each edge of a summary
PRECISION = 8
THRESHOLD = 1000
EDGEITEMS = 3


class Shape(list):
    """A Paddle tensor's shape: as in Paddle 2.0, a new Python list each time it is
    read (`x.shape.append(1)` works, and changes only that copy).

    Two leniencies keep autogradviz's own code (which compares and extends shapes
    as tuples) working on Paddle tensors: it equals the tuple with the same sizes
    (`x.shape == (2, 3)`, where Paddle's list would not), it can be hashed (by its
    sizes: each read is a new copy, so nothing changes under a dict), and adding a
    tuple gives a tuple (a slice is a Shape too, so `x.shape[:1] + (3,)` works)."""

    __slots__ = ()

    def __eq__(self, other) -> bool:
        if isinstance(other, tuple):
            return tuple(self) == other
        return list.__eq__(self, other)

    def __ne__(self, other) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __getitem__(self, index):
        item = list.__getitem__(self, index)
        return Shape(item) if isinstance(index, slice) else item

    def __add__(self, other):
        if isinstance(other, tuple):
            return tuple(self) + other
        return list.__add__(self, other)

    def __radd__(self, other):
        if isinstance(other, tuple):
            return other + tuple(self)
        return list(other) + list(self)


class VarType(dtypes.DType):
    """A Paddle dtype, `paddle.float32`: the same dtype as `agv.float32`, printed as
    Paddle 2.0 prints it, `VarType.FP32`. In Paddle 2.0 `paddle.float32` is
    `core.VarDesc.VarType.FP32`, a pybind11 enum member (python/paddle/framework/
    dtype.py: `float32 = VarDesc.VarType.FP32`), and `x.dtype` of a Paddle tensor
    is one. It equals its autogradviz dtype (`paddle.float32 == agv.float32`), hashes
    as it, and `dtypes.to_dtype` turns it back into it, so every function that takes
    a dtype takes this one."""

    __slots__ = ("plain", "enum_name")

    def __init__(self, plain: dtypes.DType, enum_name: str):
        super().__init__(plain.name, plain.legacy_name)
        self.plain = plain  # the autogradviz dtype: agv.float32
        self.enum_name = enum_name  # Paddle's name in the VarType enum: FP32

    def __repr__(self) -> str:
        return f"VarType.{self.enum_name}"

    __str__ = __repr__

    def __eq__(self, other) -> bool:
        if isinstance(other, VarType):
            return other.plain is self.plain
        return other is self.plain

    def __ne__(self, other) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(self.plain)

    def __reduce__(self):
        # pickled as the dtype it names (agv.load's weights_only list has that one)
        return (dtypes.to_dtype, (self.name,))


# Paddle 2.0's enum names (framework.proto's VarType.Type) for the dtypes autogradviz has
_ENUM_NAMES = {
    "float32": "FP32",
    "float64": "FP64",
    "int64": "INT64",
    "int32": "INT32",
    "int16": "INT16",
    "int8": "INT8",
    "uint8": "UINT8",
    "bool": "BOOL",
}
_PADDLE_DTYPES = {d.name: VarType(d, _ENUM_NAMES[d.name]) for d in dtypes.SUPPORTED}


def paddle_dtype(dtype: dtypes.DType) -> VarType:
    """The Paddle spelling of an autogradviz dtype: paddle_dtype(agv.float32) prints VarType.FP32."""
    return _PADDLE_DTYPES[dtype.name]


class PaddleStyle:
    """The value of a Paddle tensor's flag. It knows how Paddle prints a tensor
    and its shape."""

    shape = Shape
    dtype = staticmethod(paddle_dtype)

    def repr(self, t: Tensor) -> str:
        return format_paddle(t)

    def __repr__(self) -> str:
        return "<Paddle 2.0 semantics>"


PADDLE = PaddleStyle()


def mark(t: Tensor) -> Tensor:
    """Make `t` a Paddle tensor (in place) and return it."""
    _record.paddle_in_use = True  # from now on, record() passes the flag on
    t._set_extra("paddle", PADDLE)
    return t


def is_paddle(t) -> bool:
    return isinstance(t, Tensor) and t._extra("paddle") is not None


def as_one_element(t: Tensor) -> Tensor:
    """Paddle 2.0 gives a full reduction (a sum, a mean loss) shape [1], not 0-d.
    The tensor's array takes that shape in place; its node is the one the op
    made (a gradient of shape [1] spreads back just as a 0-d one does)."""
    if t._data.ndim == 0:
        t._data = t._data.reshape(1)
    return mark(t)


# -- Paddle's tensor repr ------------------------------------------------------------


def format_paddle(t: Tensor) -> str:
    """Tensor(shape=[2, 2], dtype=float32, place=CPUPlace, stop_gradient=True,
           [[1., 2.],
            [3., 4.]])

    Each float is printed with 8 decimals, or as `2.` when it is a whole number,
    all padded to the widest; a parameter is prefixed with "Parameter containing:".
    """
    data = t._data
    prefix = "Tensor"
    indent = len(prefix) + 1
    summarize = data.size > THRESHOLD
    width, signed = _widest(_edges_of(data) if summarize else data)
    body = _format_array(data, summarize, indent, width, signed)
    text = (
        f"{prefix}(shape={list(data.shape)}, dtype={data.dtype.name}, place=CPUPlace, "
        f"stop_gradient={not t._requires_grad},\n{' ' * indent}{body})"
    )
    if t._extra("parameter"):
        return "Parameter containing:\n" + text
    return text


def _format_number(x, width: int = 0, signed: bool = False) -> str:
    if isinstance(x, (float, np.floating)):
        # a whole number prints as "2.", anything else with PRECISION decimals
        text = f"{x:.0f}." if np.ceil(x) == x else f"{x:.{PRECISION}f}"
    else:
        text = str(x)
    if width <= len(text):
        return text
    if signed and not x < 0:  # leave room for the minus sign of other numbers
        return " " + text.ljust(width - 1)
    return text.ljust(width)


def _widest(data: np.ndarray) -> tuple[int, bool]:
    """The width of the widest number, and whether any number is negative."""
    flat = np.asarray(data).reshape(-1)
    width = max((len(_format_number(x)) for x in flat), default=0)
    signed = bool(flat.size) and data.dtype.kind in "fi" and bool((flat < 0).any())
    return width, signed


def _edges_of(data: np.ndarray) -> np.ndarray:
    """The numbers a summary shows: EDGEITEMS at each end of every dimension."""
    if data.ndim == 0:
        return data
    keep = [np.r_[0:EDGEITEMS, n - EDGEITEMS : n] if n > 2 * EDGEITEMS else np.arange(n) for n in data.shape]
    return data[np.ix_(*keep)]


def _format_array(data: np.ndarray, summarize: bool, indent: int, width: int, signed: bool) -> str:
    if data.ndim == 0:
        return _format_number(data.item(), width, signed)
    n = data.shape[0]
    if summarize and n > 2 * EDGEITEMS:
        rows = [*range(EDGEITEMS), None, *range(n - EDGEITEMS, n)]  # None: the "..." in between
    else:
        rows = range(n)
    if data.ndim == 1:
        items = ["..." if i is None else _format_number(data[i].item(), width, signed) for i in rows]
        return "[" + ", ".join(items) + "]"
    parts = [
        "..." if i is None else _format_array(data[i], summarize, indent + 1, width, signed) for i in rows
    ]
    separator = "," + "\n" * (data.ndim - 1) + " " * (indent + 1)
    return "[" + separator.join(parts) + "]"
