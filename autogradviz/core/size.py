"""Size: a tensor's shape, as PyTorch gives it.

    x = agv.zeros(4, 2)
    x.shape          # torch.Size([4, 2])
    x.size()         # the same
    x.shape == (4, 2), x.shape[0], x.shape.numel()   # True, 4, 8

A Size is a tuple of ints (it compares, hashes, unpacks and indexes as one), that
prints as PyTorch prints its own. It says "torch.Size", not "agv.Size", on purpose:
tutorial code run with `import autogradviz as torch` then prints exactly what the
tutorial printed, and what a learner reads in PyTorch's documentation.

Inside the engine, shapes are mostly numpy's plain tuples (`t._data.shape`): the ops
read them on every call. autogradviz's own error messages print shapes as (2, 3)
(see __format__); PyTorch's own print them in several ways: [2, 3], 2x3, torch.Size.
"""

from __future__ import annotations

import operator
import sys


class Size(tuple):
    """The sizes of a tensor's dimensions: a tuple of ints."""

    __slots__ = ()

    def __new__(cls, sizes=()) -> Size:
        sizes = tuple(sizes)  # a list, a tuple, a generator, or a 1-D integer tensor
        for i, n in enumerate(sizes):
            try:
                sizes_i = operator.index(n)  # an int, a numpy integer, or a one-element int tensor
            except TypeError:
                raise TypeError(
                    f"torch.Size() takes an iterable of 'int' (item {i} is '{type(n).__name__}')"
                ) from None
            if sizes_i is not n:
                sizes = sizes[:i] + (sizes_i,) + sizes[i + 1 :]
        return tuple.__new__(cls, sizes)

    @classmethod
    def of(cls, shape: tuple) -> Size:
        """A numpy shape (already a tuple of ints) as a Size, without checking it again:
        `x.shape` is read often."""
        return tuple.__new__(cls, shape)

    # print(x.shape), repr, str and f"{x.shape}" all give torch.Size([2, 3]). Except in
    # autogradviz's own error messages, written to print shapes as (2, 3), which still
    # do: the caller one frame up is then code in a module of this package.
    def __repr__(self) -> str:
        if _called_from_autogradviz():
            return tuple.__repr__(self)
        return f"torch.Size([{', '.join(map(str, self))}])"

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        if spec:
            raise TypeError("unsupported format string passed to torch.Size.__format__")
        if _called_from_autogradviz():
            return tuple.__repr__(self)
        return f"torch.Size([{', '.join(map(str, self))}])"

    def numel(self) -> int:
        """The number of elements a tensor of this size holds: the product of the sizes."""
        count = 1
        for n in self:
            count *= n
        return count

    # slicing, +, * give a Size, as in PyTorch; an index gives an int
    def __getitem__(self, index):
        item = tuple.__getitem__(self, index)
        return Size(item) if isinstance(index, slice) else item

    def __add__(self, other) -> Size:
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(self) + tuple(other))

    def __radd__(self, other) -> Size:
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(other) + tuple(self))

    def __mul__(self, times) -> Size:
        if not isinstance(times, int):
            return NotImplemented
        return Size(tuple(self) * times)

    __rmul__ = __mul__

    def __reduce__(self):
        # pickled as a plain tuple, so that agv.load, which builds only tensors, numbers,
        # strings and containers of them, can read a saved shape back
        return (tuple, (tuple(self),))


def _called_from_autogradviz() -> bool:
    """Is the code that asked for this text (two frames up: past the method) in autogradviz?"""
    return sys._getframe(2).f_globals.get("__name__", "").startswith("autogradviz.")
