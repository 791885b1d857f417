"""Random numbers: one seeded generator for everything autogradviz draws.

`rand`, `randn`, `randint`, dropout masks, `normal_`, layer initialisation and
DataLoader shuffling all draw from `generator()`. It starts from a fixed seed,
so a notebook run twice prints the same numbers (which nbval needs), and
`manual_seed(n)` starts it again from `n`.
"""

from __future__ import annotations

import numpy as np

DEFAULT_SEED = 0
_current = [np.random.default_rng(DEFAULT_SEED)]  # a list, so manual_seed can swap the generator


def generator() -> np.random.Generator:
    """The generator to draw from now."""
    return _current[0]


def manual_seed(seed: int) -> None:
    """Make every random number autogradviz draws from now on reproducible."""
    _current[0] = np.random.default_rng(int(seed))


seed = manual_seed
