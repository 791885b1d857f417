"""Reading nn's arguments the way PyTorch's argument parser does, in its words.

PyTorch's functions check the type of each argument before they compute:
`max_pool2d(x, '2')` is a TypeError, "max_pool2d(): argument 'kernel_size'
(position 2) must be tuple of ints, not str". Without these checks numpy
meets the value first and fails with a message about itself ("'float' object
is not iterable", "numpy dtype object"), or silently computes with it.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..core.tensor import Tensor
from ..ops._operands import operand


def typename(value) -> str:
    """A value's type as PyTorch's messages print it: int, NoneType, Tensor, numpy.ndarray."""
    if isinstance(value, Tensor):
        return "Tensor"
    kind = type(value)
    if kind.__module__.split(".")[0] == "numpy":
        return f"numpy.{kind.__name__}"
    return kind.__name__


def tensor_argument(value, op: str, name: str = "input", position: int = 1):
    """`value` as an op's operand: a tensor, or an array or a list that autogradviz
    turns into one (PyTorch asks for a Tensor; these convert without surprise).
    Anything else (None, a string, a number) is PyTorch's TypeError."""
    if isinstance(value, (Tensor, np.ndarray, list, tuple)):
        return operand(value)
    raise TypeError(f"{op}(): argument '{name}' (position {position}) must be Tensor, not {typename(value)}")


def is_int(value) -> bool:
    """An int for PyTorch's "int" arguments: a bool is refused, a numpy integer taken."""
    return isinstance(value, (numbers.Integral, np.integer)) and not isinstance(value, (bool, np.bool_))


def int_pair(value, op: str, name: str, position: int, blurb: str) -> tuple[int, int]:
    """A window argument (kernel_size, stride, padding, dilation) as two ints:
    an int, or a tuple or list of one or two ints (one is used for both sides).
    `blurb` is PyTorch's sentence for a wrong length: "kernel_size must either
    be a single int, or a tuple of two ints"."""
    if is_int(value):
        return int(value), int(value)
    if not isinstance(value, (tuple, list)):
        raise TypeError(
            f"{op}(): argument '{name}' (position {position}) must be tuple of ints, not {typename(value)} "
            f"({name}={value!r})"
        )
    for index, item in enumerate(value):
        if not is_int(item):
            raise TypeError(
                f"{op}(): argument '{name}' (position {position}) must be tuple of ints, but found element "
                f"of type {typename(item)} at pos {index} ({name}={value!r})"
            )
    if len(value) not in (1, 2):
        raise RuntimeError(f"{op}: {blurb}, but got {name}={tuple(value)!r}")
    return int(value[0]), int(value[-1])


def number_argument(value, op: str, name: str, position: int) -> float:
    """A scalar argument ("Number" in PyTorch's signatures): a bool, an int, a
    float, a numpy scalar or a one-element tensor, as a Python number. A complex
    number is PyTorch's RuntimeError, anything else its TypeError."""
    if isinstance(value, Tensor) and value.numel() == 1:
        value = value.item()
    if isinstance(value, numbers.Complex) and not isinstance(value, numbers.Real):
        raise RuntimeError(
            f"value cannot be converted to type float without overflow ({op}'s {name}={value!r} is complex)"
        )
    if not isinstance(value, numbers.Real):
        raise TypeError(
            f"{op}(): argument '{name}' (position {position}) must be Number, not {typename(value)}"
        )
    return value
