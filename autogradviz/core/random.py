"""Random numbers: one seeded generator for everything autogradviz draws.

`rand`, `randn`, `randint`, dropout masks, `normal_`, layer initialisation and
DataLoader shuffling all draw from `generator()`. It starts from a fixed seed,
so a notebook run twice prints the same numbers (which nbval needs), and
`manual_seed(n)` starts it again from `n`.

`Generator` is PyTorch's object for a stream of its own: a function given
`generator=g` draws from `g` instead (`generator(g)` picks the stream).
The numbers are numpy's (PCG64), so they differ from PyTorch's for the same seed.
"""

from __future__ import annotations

import numpy as np

from . import device as _device

DEFAULT_SEED = 0


class Generator:
    """A random stream with its own seed: `g = agv.Generator().manual_seed(42)`."""

    __slots__ = ("_seed", "_numpy")

    def __init__(self, device="cpu") -> None:
        _device.check(device, "a Generator")
        self.manual_seed(DEFAULT_SEED)

    def manual_seed(self, seed: int) -> Generator:
        """Start the stream again from `seed`; returns the generator, as PyTorch's does."""
        self._seed = int(seed)
        self._numpy = np.random.default_rng(self._seed)
        return self

    def seed(self) -> int:
        """Seed the stream from the operating system's entropy; returns the seed used."""
        new_seed = int(np.random.SeedSequence().entropy % 2**63)
        self.manual_seed(new_seed)
        return new_seed

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self) -> dict:
        """A snapshot that set_state() restores (numpy's bit-generator state)."""
        return self._numpy.bit_generator.state

    def set_state(self, state: dict) -> Generator:
        self._numpy.bit_generator.state = state
        return self

    @property
    def device(self) -> _device.device:
        return _device.CPU

    def __repr__(self) -> str:  # no memory address, so that a printed generator is deterministic
        return f"<autogradviz Generator: seed {self._seed}>"


default_generator = Generator()


def generator(source: Generator | None = None) -> np.random.Generator:
    """The numpy stream to draw from now: that of `source` when one is given
    (a function's `generator=` argument), else the default one."""
    if source is None:
        return default_generator._numpy
    if not isinstance(source, Generator):
        raise TypeError(f"generator must be an agv.Generator, not {type(source).__name__}")
    return source._numpy


def manual_seed(seed: int) -> Generator:
    """Make every random number autogradviz draws from now on reproducible.
    Returns the default generator, as PyTorch's torch.manual_seed does."""
    return default_generator.manual_seed(seed)


def seed(value: int | None = None) -> int:
    """PyTorch's torch.seed(): seed the default generator from the operating
    system, and return the seed. With a value, seed(n) is manual_seed(n)."""
    if value is not None:
        manual_seed(value)
        return int(value)
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()
