"""What makes a tensor a Paddle tensor: its class, `PaddleTensor` (Paddle 2.x),
or `PaddleTensor20` (Paddle 2.0.1, for `autogradviz.paddle.v2_0`).

Two releases differ in what a tutorial prints, and each tensor carries its
release in its class, so two notebooks (or two cells) that imported different
versions never change each other's tensors:

==========================  =============================  ===============================
                            Paddle 2.x (`PaddleTensor`)    Paddle 2.0.1 (`PaddleTensor20`)
==========================  =============================  ===============================
`x.grad`                    a Tensor (2.1 on)              a numpy array
repr's place                `place=Place(cpu)`             `place=CPUPlace`
`x.dtype`, `paddle.float32` `paddle.float32`               `VarType.FP32`
`to_tensor(2.0)`, `sum(x)`  0-d, shape [] (2.5 on)         shape [1]
==========================  =============================  ===============================

autogradviz.paddle runs Paddle's dynamic graph on autogradviz's own
engine: the same nodes, the same backward walk. A tensor made by
`paddle.to_tensor`, `paddle.rand`, a Paddle layer's parameter (and every
result computed from one) is a `PaddleTensor`, a subclass of autogradviz's
Tensor with Paddle's rules (a parameter is a `PaddleParameter`). `mark(t)`
makes a tensor one, in place, by changing its class. The core knows nothing of
Paddle: the subclass overrides what differs, and two named extension points
of the kernel do the rest, so plain autogradviz code in the same process keeps
PyTorch's rules:

- a result made from a Paddle tensor is one too, and keeps its gradient:
  Paddle 2.0 fills `.grad` of intermediate tensors too, without PyTorch's
  `retain_grad()` (`paddle_result`, installed as record()'s result hook by
  autogradviz.paddle: core/record.py, `set_result_hook`);
- `backward()` starts from ones when the output is not a scalar, where
  PyTorch raises (`implicit_grad_any_shape`, which backward_and_grad.py's
  `root_gradients` asks of the output);
- `t.grad` is a Paddle tensor (2.x; it prints `stop_gradient=False`, as
  Paddle's grad tensors do) or, in 2.0.x, the alias of `t.gradient()`: a numpy
  copy, so `print(x.grad)` shows `[2. 4. 6.]`;
- `t.shape` is Paddle's list, `[3]` (a `Shape` below), and `t.dtype` Paddle's
  dtype, printed `paddle.float32` (2.0: `VarType.FP32`; a `VarType` below);
- `repr(t)` is Paddle's: `Tensor(shape=[3], dtype=float32, place=Place(cpu),
  stop_gradient=False,` and the numbers below (`format_paddle`);
- `t.numpy()` works on a tensor that needs a gradient (PyTorch asks for detach());
- `t.stop_gradient = True` on a computed tensor cuts the graph (detach_()),
  where PyTorch allows requires_grad to change only on a leaf;
- `t.backward(grad_tensor=g)`, Paddle's name for the seed gradient;
- `t.sum()`, `t.mean()`, `t.max()`, `t.min()`, `t.argmax()`: a full reduction
  has shape [1] (see below); and Paddle's own methods `astype`, `cast`,
  `set_value`, `clear_gradient`.

`stop_gradient`, `gradient()` and `clear_grad()` are on every tensor
(autogradviz/compat/paddle_spellings.py).

Paddle 2.0 to 2.4 had no 0-d tensors: `paddle.to_tensor(2.0)` and
`paddle.sum(x)` have shape [1] on a PaddleTensor20 (`as_one_element`); Paddle
2.5 made them 0-d, as PyTorch's are.
"""

from __future__ import annotations

import numpy as np

from .. import ops
from ..core import dtypes
from ..core.creation import as_array
from ..core.grad_mode import no_grad
from ..core.tensor import Tensor
from ..nn.parameter import Parameter

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

    __slots__ = ("plain", "enum_name", "printed_as_enum")

    def __init__(self, plain: dtypes.DType, enum_name: str, printed_as_enum: bool = True):
        super().__init__(plain.name, plain.legacy_name)
        self.plain = plain  # the autogradviz dtype: agv.float32
        self.enum_name = enum_name  # Paddle's name in the VarType enum: FP32
        # Paddle 2.0 prints the enum, VarType.FP32; later 2.x prints paddle.float32
        # (PaddlePaddle/docs, docs/guides/beginner/tensor_cn.md: "Data Type of every element: paddle.float32")
        self.printed_as_enum = printed_as_enum

    def __repr__(self) -> str:
        return f"VarType.{self.enum_name}" if self.printed_as_enum else f"paddle.{self.name}"

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
_PADDLE_DTYPES = {d.name: VarType(d, _ENUM_NAMES[d.name], False) for d in dtypes.SUPPORTED}
_PADDLE_2_0_DTYPES = {d.name: VarType(d, _ENUM_NAMES[d.name], True) for d in dtypes.SUPPORTED}


def paddle_dtype(dtype: dtypes.DType, version: str = "2.x") -> VarType:
    """The Paddle spelling of an autogradviz dtype: paddle_dtype(agv.float32) prints
    paddle.float32, paddle_dtype(agv.float32, "2.0") prints VarType.FP32."""
    return (_PADDLE_2_0_DTYPES if version == "2.0" else _PADDLE_DTYPES)[dtype.name]


# -- the Paddle tensor ------------------------------------------------------------------


class PaddleTensor(Tensor):
    """A tensor with Paddle 2.x's rules (see the module's docstring). Its slots
    are Tensor's (`__slots__ = ()`), so `mark()` can turn a tensor into one in place."""

    __slots__ = ()

    implicit_grad_any_shape = True  # backward() of a non-scalar starts from ones
    paddle_version = "2.x"  # which release's printing and shapes (PaddleTensor20: "2.0")
    place_text = "Place(cpu)"  # in the repr; Paddle 2.0 printed CPUPlace

    @property
    def shape(self) -> Shape:
        return Shape(self._data.shape)

    @property
    def dtype(self) -> VarType:
        return paddle_dtype(dtypes.from_numpy_dtype(self._data.dtype), self.paddle_version)

    # Paddle 2.1 on: .grad is a Tensor of this tensor's release, which prints
    # stop_gradient=False as Paddle's does. Tensor's setter and deleter are kept.
    @Tensor.grad.getter
    def grad(self):
        g = self._grad
        if g is None:
            return None
        if type(g) is not PaddleGrad:
            g.__class__ = PaddleGrad  # same slots: the .grad itself, printed as Paddle prints a grad
        return g

    @property
    def stop_gradient(self) -> bool:
        return not self._requires_grad

    @stop_gradient.setter
    def stop_gradient(self, flag: bool) -> None:
        if self._grad_fn is not None:
            # Paddle sets it on a computed tensor too: True cuts the graph there, as
            # detach_() does; False is what a computed tensor already is
            if flag:
                self.detach_()
            return
        self.requires_grad = not flag

    def numpy(self) -> np.ndarray:
        return self._data  # Paddle allows it on a tensor that needs a gradient

    def __repr__(self) -> str:
        return format_paddle(self)

    def backward(self, gradient=None, retain_graph=None, create_graph: bool = False, *, grad_tensor=None):
        """Tensor.backward, also taking Paddle's name for the seed gradient:
        `y.backward(grad_tensor=g, retain_graph=True)` (paddle.Tensor.backward(
        grad_tensor=None, retain_graph=False), Paddle 2.1's docs; 2.0 had no seed
        argument)."""
        __tracebackhide__ = True  # IPython: a learner's traceback ends at their own line
        if grad_tensor is not None:
            if gradient is not None:
                raise TypeError("backward() got the seed gradient twice: as gradient and as grad_tensor")
            gradient = grad_tensor
        super().backward(gradient, retain_graph, create_graph)

    # a full reduction has shape [1], not 0-d (the node is the one the op made)
    def sum(self, *args, **kwargs):
        """Tensor.sum; over all elements, shape [1] as in Paddle 2.0."""
        return _one_element(super().sum(*args, **kwargs), self)

    def mean(self, *args, **kwargs):
        """Tensor.mean; over all elements, shape [1] as in Paddle 2.0."""
        return _one_element(super().mean(*args, **kwargs), self)

    def max(self, *args, **kwargs):
        """Tensor.max; over all elements, shape [1] as in Paddle 2.0."""
        return _one_element(super().max(*args, **kwargs), self)

    def min(self, *args, **kwargs):
        """Tensor.min; over all elements, shape [1] as in Paddle 2.0."""
        return _one_element(super().min(*args, **kwargs), self)

    def argmax(self, *args, **kwargs):
        """Tensor.argmax; of the flattened tensor, shape [1] as in Paddle 2.0."""
        return _one_element(super().argmax(*args, **kwargs), self)

    # Paddle's own methods

    def astype(self, dtype) -> Tensor:
        """A copy converted to `dtype`, 'float32' or paddle.float32 (recorded: a
        float result keeps the graph)."""
        return ops.to(self, dtypes.to_dtype(dtype))

    cast = astype

    def set_value(self, value) -> None:
        """Overwrite the values in place, outside the graph (a parameter's new numbers).
        The shape must stay: Paddle's "The shape of the new value must be the same"."""
        array = as_array(value._data if isinstance(value, Tensor) else np.asarray(value), self.dtype)
        if array.shape != self._data.shape:
            raise ValueError(
                f"set_value: the shape of the new value {list(array.shape)} must be the same as the "
                f"tensor's {list(self._data.shape)}"
            )
        with no_grad():
            self._data[...] = array
        self._bump_version()  # a graph that saved the old values must notice

    def clear_gradient(self) -> None:
        """Paddle 2.0's older name for clear_grad(): set the gradient to zeros."""
        self.clear_grad()

    @classmethod
    def tensor_class(cls) -> type:
        """The (non-parameter) tensor class of this release: what results are."""
        return PaddleTensor

    @classmethod
    def parameter_class(cls) -> type:
        return PaddleParameter


class PaddleGrad(PaddleTensor):
    """A `.grad` as Paddle 2.x hands it out: a tensor that prints stop_gradient=False.
    What is computed from it is a plain PaddleTensor (`tensor_class`)."""

    __slots__ = ()


class PaddleTensor20(PaddleTensor):
    """A tensor with Paddle 2.0.1's rules: `.grad` a numpy array, `place=CPUPlace`,
    dtypes printed `VarType.FP32`, and no 0-d tensors (shape [1] instead)."""

    __slots__ = ()

    paddle_version = "2.0"
    place_text = "CPUPlace"

    # Paddle 2.0's .grad: a numpy copy, the alias of gradient()
    @Tensor.grad.getter
    def grad(self):
        return self.gradient()

    @classmethod
    def tensor_class(cls) -> type:
        return PaddleTensor20

    @classmethod
    def parameter_class(cls) -> type:
        return PaddleParameter20


class PaddleParameter(Parameter, PaddleTensor):
    """A Paddle layer's parameter: an nn.Parameter with Paddle's rules. Its repr
    is Paddle's, prefixed with "Parameter containing:" (Parameter.__repr__ comes first
    in the method order, and its super() is PaddleTensor's)."""

    __slots__ = ()


class PaddleParameter20(Parameter, PaddleTensor20):
    """A Paddle 2.0.1 parameter."""

    __slots__ = ()


def mark(t: Tensor, flavour: type = PaddleTensor) -> Tensor:
    """Make `t` a Paddle tensor of `flavour`'s release (PaddleTensor: 2.x,
    PaddleTensor20: 2.0.1), in place (its class changes), and return it. A tensor
    that is already a Paddle tensor keeps its release unless told another."""
    if isinstance(t, PaddleTensor) and (flavour is PaddleTensor or isinstance(t, flavour)):
        return t
    t.__class__ = flavour.parameter_class() if isinstance(t, Parameter) else flavour.tensor_class()
    return t


def is_paddle(t) -> bool:
    return isinstance(t, PaddleTensor)


def paddle_result(out: Tensor, inputs) -> Tensor:
    """record()'s result hook (core/record.py, set_result_hook), installed by
    autogradviz.paddle: a result made from a Paddle tensor is one too, and, as
    Paddle 2.0 keeps the gradient of every tensor, it retains its grad. A result
    of plain tensors comes back unchanged."""
    for t in inputs:
        if isinstance(t, PaddleTensor):
            out.__class__ = t.tensor_class()  # the release of its first Paddle input; same slots
            if out._grad_fn is not None:
                out.retain_grad()
            break
    return out


def as_one_element(t: Tensor, flavour: type | None = None) -> Tensor:
    """Paddle 2.0 to 2.4 give a full reduction (a sum, a mean loss) shape [1], not
    0-d; 2.5 on give 0-d, as PyTorch does. A Paddle 2.0 tensor's array takes shape
    [1] in place; its node is the one the op made (a gradient of shape [1] spreads
    back just as a 0-d one does). `flavour` is the release to mark a plain tensor with."""
    if not isinstance(t, PaddleTensor):  # a result no Paddle input marked (argmax records no node)
        mark(t, flavour or PaddleTensor)
    if t._data.ndim == 0 and t.paddle_version == "2.0":
        t._data = t._data.reshape(1)
    return t


def _one_element(out, source: PaddleTensor):
    """A reduction method's result, of `source`'s release; on a Paddle 2.0 tensor,
    shape [1] if it is 0-d. (max(dim) gives values and indices, left as they are.)"""
    if isinstance(out, Tensor) and out._data.ndim == 0:
        return as_one_element(out, source.tensor_class())
    return out


# -- Paddle's tensor repr ------------------------------------------------------------


def format_paddle(t: Tensor) -> str:
    """Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
           [[1., 2.],
            [3., 4.]])

    Each float is printed with 8 decimals, or as `2.` when it is a whole number,
    all padded to the widest. (Parameter.__repr__ prefixes a parameter's with
    "Parameter containing:".) The place is Paddle 2.x's `Place(cpu)`, or `CPUPlace` on
    a Paddle 2.0 tensor.
    """
    data = t._data
    prefix = "Tensor"
    indent = len(prefix) + 1
    summarize = data.size > THRESHOLD
    width, signed = _widest(_edges_of(data) if summarize else data)
    body = _format_array(data, summarize, indent, width, signed)
    return (
        f"{prefix}(shape={list(data.shape)}, dtype={data.dtype.name}, place={_place_of(t)}, "
        f"stop_gradient={_stop_gradient_shown(t)},\n{' ' * indent}{body})"
    )


def _stop_gradient_shown(t: Tensor) -> bool:
    """A gradient read from `.grad` prints stop_gradient=False in Paddle 2.x (its
    autograd guide: "Tensor x's grad is: Tensor(shape=[3], ..., stop_gradient=False,")."""
    return not t._requires_grad and not isinstance(t, PaddleGrad)


def _place_of(t: Tensor) -> str:
    return t.place_text if isinstance(t, PaddleTensor) else PaddleTensor.place_text


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
