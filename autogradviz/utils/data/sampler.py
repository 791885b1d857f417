"""`torch.utils.data.sampler` for autogradviz: in which order the DataLoader visits a dataset.

    from autogradviz.utils.data import sampler
    list(sampler.BatchSampler(sampler.SequentialSampler(range(7)), 3, drop_last=False))
    # [[0, 1, 2], [3, 4, 5], [6]]

A sampler yields dataset indices (one pass = one epoch); a `BatchSampler` groups
another sampler's indices into lists, one list per batch. The random ones draw from
the `generator=` given (an `agv.Generator`), or else from autogradviz's default
stream at the moment a pass starts, so `agv.manual_seed(n)` makes them repeat.
The numbers are numpy's: the orders differ from PyTorch's for the same seed, but
the lengths, the kinds of order and the errors are PyTorch's.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

import numpy as np

from ...core import random
from ...core.tensor import Tensor, _make

__all__ = [
    "BatchSampler",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "SubsetRandomSampler",
    "WeightedRandomSampler",
]


class Sampler:
    """Yields dataset indices; subclasses define `__iter__` (and `__len__`)."""

    def __iter__(self) -> Iterator[int]:
        raise NotImplementedError


class SequentialSampler(Sampler):
    """0, 1, 2, ... len(data_source) - 1: the order of shuffle=False."""

    def __init__(self, data_source) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """The indices in a random order, a new one at each pass (epoch): the
    order of shuffle=True. With replacement=True, `num_samples` indices drawn
    independently (some twice, some never)."""

    def __init__(
        self, data_source, replacement: bool = False, num_samples: int | None = None, generator=None
    ) -> None:
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={replacement}")
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if (
            not isinstance(self.num_samples, int)
            or isinstance(self.num_samples, bool)
            or self.num_samples <= 0
        ):
            raise ValueError(
                f"num_samples should be a positive integer value, but got num_samples={self.num_samples}"
            )

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        rng = random.generator(self.generator)  # looked up now: agv.manual_seed may have reset it
        n = len(self.data_source)
        if self.replacement:
            return iter(rng.integers(0, n, self.num_samples).tolist())
        # without replacement, more samples than n means whole permutations one after another
        order = [rng.permutation(n) for _ in range(-(-self.num_samples // n))]
        return iter(np.concatenate(order)[: self.num_samples].tolist())

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices, in a random order at each pass."""

    def __init__(self, indices: Sequence[int], generator=None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        order = random.generator(self.generator).permutation(len(self.indices))
        return (self.indices[i] for i in order.tolist())

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """`num_samples` indices drawn with probability proportional to `weights`
    (one weight per sample, not necessarily summing to 1), e.g. to see a rare
    class as often as a common one. Without replacement, each index at most once."""

    def __init__(self, weights: Sequence[float], num_samples: int, replacement: bool = True, generator=None):
        if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples <= 0:
            raise ValueError(
                f"num_samples should be a positive integer value, but got num_samples={num_samples}"
            )
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        array = np.asarray(
            weights.detach().numpy() if isinstance(weights, Tensor) else weights, dtype=np.float64
        )
        if array.ndim != 1:
            raise ValueError(
                f"weights should be a 1d sequence but given weights have shape {tuple(array.shape)}"
            )
        self.weights = _make(array)
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        weights = self.weights.numpy()
        _check_multinomial_weights(weights, self.num_samples, self.replacement)
        if not self.replacement and self.num_samples > np.count_nonzero(weights):
            raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
        rng = random.generator(self.generator)
        drawn = rng.choice(
            len(weights), self.num_samples, replace=self.replacement, p=weights / weights.sum()
        )
        return iter(drawn.tolist())

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler):
    """Groups another sampler's indices into lists of `batch_size`:
    [[0, 1, 2], [3, 4, 5], [6]]; drop_last=True skips a last, smaller list."""

    def __init__(self, sampler: Iterable[int], batch_size: int, drop_last: bool) -> None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) or batch_size <= 0:
            raise ValueError(
                f"batch_size should be a positive integer value, but got batch_size={batch_size}"
            )
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = int(batch_size)
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        batch = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)


def _check_multinomial_weights(weights: np.ndarray, num_samples: int, replacement: bool) -> None:
    """torch.multinomial's errors, which WeightedRandomSampler passes on. PyTorch checks
    in two places: drawing several with replacement, its sampling kernel names the bad
    entry (and reports a NaN as "< 0"); otherwise one check covers inf, nan and negatives."""
    negative_or_nan = bool((np.isnan(weights) | (weights < 0)).any())
    infinite = bool(np.isinf(weights).any())
    if negative_or_nan or infinite:
        if replacement and num_samples > 1:
            which = "< 0" if negative_or_nan else "= infinity or NaN"
            raise RuntimeError(f"invalid multinomial distribution (encountering probability entry {which})")
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if weights.sum() <= 0:
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
