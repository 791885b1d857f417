"""`torch.utils.data` for autogradviz: datasets, samplers and the DataLoader.

    from autogradviz.utils.data import DataLoader, TensorDataset

    loader = DataLoader(TensorDataset(X, y), batch_size=32, shuffle=True)
    for xb, yb in loader:      # each batch is [X[indices], y[indices]]
        ...

The pieces, as in PyTorch:

- a **dataset** answers `len(dataset)` and `dataset[i]` (one sample, often a
  tuple (x, label)); an `IterableDataset` is only iterated;
- a **sampler** says in which order to visit the indices (`SequentialSampler`,
  `RandomSampler`), and a `BatchSampler` groups them into lists of batch_size
  (they live in `sampler.py`, torch's `torch.utils.data.sampler`);
- `collate_fn` turns a list of samples into one batch: `default_collate` stacks
  tensors, turns numbers into tensors and recurses into tuples, lists and dicts;
- the `DataLoader` ties them together: for each list of indices from the batch
  sampler, fetch the samples and collate them.

Random orders (shuffle=True, RandomSampler, random_split) draw from the
`generator=` given (an `agv.Generator`), or else from autogradviz's default
stream, so `agv.manual_seed(n)` makes them reproducible. The numbers are
numpy's, so the orders differ from PyTorch's for the same seed.

There are no worker processes: `num_workers > 0` is accepted and the batches
are loaded in this process, one after the other (the same batches, in the same
order; `pin_memory` means nothing without a GPU and is accepted too).

Reading order: this file's datasets, then `sampler.py` (the orders of the
indices), then back here for collating and the DataLoader.
"""

from __future__ import annotations

import bisect
import itertools
import math
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

import numpy as np

from ...core import creation
from ...core.creation import tensor
from ...core.dtypes import float64
from ...core.random import Generator
from ...core.tensor import Tensor, _make
from ...ops import stack

# importing from the submodule also makes it `autogradviz.utils.data.sampler`, as torch's
from .sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)

__all__ = [
    "BatchSampler",
    "ConcatDataset",
    "DataLoader",
    "Dataset",
    "IterableDataset",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "Subset",
    "SubsetRandomSampler",
    "TensorDataset",
    "WeightedRandomSampler",
    "default_collate",
    "default_convert",
    "get_worker_info",
    "random_split",
]


# -- datasets ---------------------------------------------------------------------------


class Dataset:
    """A map-style dataset: subclass it and define `__getitem__` (one sample)
    and `__len__` (how many). The DataLoader asks for `dataset[i]`."""

    def __getitem__(self, index):
        raise NotImplementedError(
            f"Subclasses of Dataset should implement __getitem__ ({type(self).__name__})"
        )

    def __add__(self, other: Dataset) -> ConcatDataset:
        """`train + extra`: one dataset with the samples of both, in that order."""
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """A dataset read as a stream: subclass it and define `__iter__`. The
    DataLoader groups what it yields into batches; it cannot shuffle it."""

    def __iter__(self):
        raise NotImplementedError(
            f"Subclasses of IterableDataset should implement __iter__ ({type(self).__name__})"
        )


class TensorDataset(Dataset):
    """Tensors that share their first dimension, read sample by sample:
    dataset[i] is (X[i], y[i], ...)."""

    def __init__(self, *tensors: Tensor):
        if not tensors:
            raise ValueError("TensorDataset needs at least one tensor")
        for t in tensors:
            if not isinstance(t, Tensor):
                raise TypeError(f"TensorDataset takes tensors, not {type(t).__name__}")
            if t.ndim == 0:
                raise ValueError("TensorDataset: a 0-d tensor has no samples to index")
        sizes = [len(t) for t in tensors]
        if len(set(sizes)) != 1:  # PyTorch's words (an AssertionError there)
            raise ValueError(
                f"Size mismatch between tensors: TensorDataset needs the same first dimension, got {sizes}"
            )
        self.tensors = tuple(tensors)

    def __getitem__(self, index) -> tuple:
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return len(self.tensors[0])


class ConcatDataset(Dataset):
    """Several datasets one after the other: with lengths 3 and 2, indices 0-2
    read the first and 3-4 the second (`cumulative_sizes` is [3, 5])."""

    def __init__(self, datasets: Iterable) -> None:
        self.datasets = list(datasets)
        if not self.datasets:  # PyTorch's words (an AssertionError there)
            raise ValueError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise ValueError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = list(itertools.accumulate(len(d) for d in self.datasets))

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, index: int):
        if index < 0:
            if -index > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            index += len(self)
        which = bisect.bisect_right(self.cumulative_sizes, index)  # the first dataset that reaches past index
        if which == len(self.datasets):
            raise IndexError(f"index {index} is out of range for a ConcatDataset of length {len(self)}")
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][index - start]


class Subset(Dataset):
    """The samples of `dataset` at `indices`, in that order: subset[k] is
    dataset[indices[k]]. random_split returns these."""

    def __init__(self, dataset, indices: Sequence[int]):
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, index):
        if isinstance(index, list):
            return self.dataset[[self.indices[i] for i in index]]
        return self.dataset[self.indices[index]]

    def __len__(self) -> int:
        return len(self.indices)


def random_split(dataset, lengths: Sequence[int | float], generator: Generator | None = None) -> list[Subset]:
    """Split `dataset` at random into non-overlapping Subsets of the given
    lengths, e.g. `train, test = random_split(ds, [800, 200])`.

    Fractions that sum to 1 work too (`[0.8, 0.2]`), with PyTorch's rounding:
    each part gets floor(fraction × len(dataset)) samples, then the samples
    left over go one each to the parts in turn, from the first."""
    n = len(dataset)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        sizes = []
        for i, fraction in enumerate(lengths):
            if fraction < 0 or fraction > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            sizes.append(math.floor(n * fraction))
        for i in range(n - sum(sizes)):  # the remainder, round-robin
            sizes[i % len(sizes)] += 1
        lengths = sizes
        for i, length in enumerate(lengths):
            if length == 0:
                warnings.warn(
                    f"Length of split at index {i} is 0. This might result in an empty dataset.", stacklevel=2
                )
    if sum(lengths) != n:
        raise ValueError(
            "Sum of input lengths does not equal the length of the input dataset! "
            f"(lengths {list(lengths)} sum to {sum(lengths)}; the dataset has {n} samples)"
        )
    order = creation.randperm(n, generator=generator).tolist()  # as torch: one randperm of the indices
    pieces, start = [], 0
    for length in lengths:
        pieces.append(Subset(dataset, order[start : start + length]))
        start += length
    return pieces


# -- collating: a list of samples becomes one batch -------------------------------------------


_COLLATE_ERROR = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
)


def default_collate(batch: list):
    """Merge a list of samples into a batch, the way PyTorch's default_collate does:

    - tensors are stacked along a new first dimension;
    - numpy arrays too, as tensors of their dtype; numpy scalars become a 1-D tensor;
    - Python floats become a float64 tensor, ints an int64 one, bools a bool one;
    - strings stay as they are (a tuple of them);
    - a dict gives a dict of batches, key by key; a namedtuple the same namedtuple;
    - a tuple or list of fields gives a *list* with one batch per field (PyTorch
      turns tuples into lists here too): [(x0, y0), (x1, y1)] -> [stack(x), tensor(y)].
    """
    elem = batch[0]
    if isinstance(elem, Tensor):
        return stack(list(batch))
    if isinstance(elem, np.ndarray):
        if elem.dtype.kind in "OUSV":
            raise TypeError(_COLLATE_ERROR.format(elem.dtype))
        return stack([_make(np.asarray(b)) for b in batch])
    if isinstance(elem, np.generic) and not isinstance(elem, (np.str_, np.bytes_)):
        return _make(np.array(batch, dtype=elem.dtype))
    if isinstance(elem, float):
        return tensor(batch, dtype=float64)
    if isinstance(elem, int):  # bool too: a bool tensor, as PyTorch's
        return tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, Mapping):
        collated = {key: default_collate([sample[key] for sample in batch]) for key in elem}
        try:
            return type(elem)(collated)
        except TypeError:  # a mapping type that can't be built from a dict
            return collated
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # a namedtuple
        return type(elem)(*(default_collate(list(field)) for field in zip(*batch)))
    if isinstance(elem, Sequence):
        if any(len(sample) != len(elem) for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        return [default_collate(field) for field in zip(*batch)]
    raise TypeError(_COLLATE_ERROR.format(type(elem)))


def default_convert(data):
    """What the DataLoader applies to each sample when batching is off
    (batch_size=None): numpy arrays become tensors, containers are converted
    item by item, anything else stays as it is."""
    if isinstance(data, np.ndarray) and data.dtype.kind not in "OUSV":
        return _make(np.asarray(data))
    if isinstance(data, Mapping):
        return {key: default_convert(value) for key, value in data.items()}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, list):
        return [default_convert(d) for d in data]
    return data


# -- the DataLoader -----------------------------------------------------------------------------


class DataLoader:
    """Batches of a dataset: `for xb, yb in DataLoader(dataset, batch_size=32, shuffle=True)`.

    PyTorch's arguments, with PyTorch's meaning and errors:

    - `batch_size` samples per batch (None: no batching, one converted sample at a time);
    - `shuffle=True` visits the samples in a new random order at every pass
      (a RandomSampler), drawn from `generator` or else the default stream;
    - `sampler` (an order of indices) or `batch_sampler` (lists of indices) instead;
    - `collate_fn(list of samples) -> batch`, default `default_collate`;
    - `drop_last=True` skips a last batch smaller than batch_size;
    - `num_workers`, `pin_memory`, `timeout`, `worker_init_fn`, `prefetch_factor`
      and `persistent_workers` are accepted; everything runs in this process.

    Two autogradviz extras, kept from its first DataLoader (`agv.data.DataLoader`
    is this same class): a *tuple* of tensors such as (X, y) is read as
    TensorDataset(X, y) (a list stays a list of samples, as in PyTorch), and
    `seed=n` gives the loader a generator of its own, Generator().manual_seed(n).

    `len(loader)` is the number of batches in one pass.
    """

    def __init__(
        self,
        dataset,
        batch_size: int | None = 1,
        shuffle: bool | None = None,
        sampler: Sampler | Iterable | None = None,
        batch_sampler: Sampler | Iterable | None = None,
        num_workers: int = 0,
        collate_fn: Callable | None = None,
        pin_memory: bool = False,
        drop_last: bool = False,
        timeout: float = 0,
        worker_init_fn: Callable | None = None,
        multiprocessing_context=None,
        generator: Generator | None = None,
        *,
        prefetch_factor: int | None = None,
        persistent_workers: bool = False,
        pin_memory_device: str = "",
        in_order: bool = True,
        seed: int | None = None,
    ):
        if isinstance(dataset, tuple) and dataset and all(isinstance(t, Tensor) for t in dataset):
            dataset = TensorDataset(*dataset)
        if isinstance(num_workers, bool) or not isinstance(num_workers, int) or num_workers < 0:
            raise ValueError(
                "num_workers option should be non-negative; use num_workers=0 to disable multiprocessing."
            )
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if seed is not None:
            if generator is not None:
                raise ValueError("DataLoader: give seed= or generator=, not both")
            generator = Generator().manual_seed(seed)

        if isinstance(dataset, IterableDataset):
            if shuffle not in (None, False):
                raise ValueError(
                    f"DataLoader with IterableDataset: expected unspecified shuffle option, but got shuffle={shuffle}"
                )
            if sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified sampler option")
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified batch_sampler option")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last"
                )
            batch_size, drop_last = None, False
        elif batch_size is None:
            if drop_last:
                raise ValueError(
                    "batch_size=None option disables auto-batching and is mutually exclusive with drop_last"
                )
        elif isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
            raise ValueError(
                f"batch_size should be a positive integer value, but got batch_size={batch_size}"
            )

        if sampler is None and not isinstance(dataset, IterableDataset):
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None and sampler is not None:
            batch_sampler = BatchSampler(sampler, int(batch_size), drop_last)

        self.dataset = dataset
        self.batch_size = None if batch_size is None else int(batch_size)
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.num_workers = num_workers
        self.collate_fn = collate_fn
        self.pin_memory = pin_memory
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.generator = generator
        self.prefetch_factor = prefetch_factor
        self.persistent_workers = persistent_workers
        self.seed = seed

    def __len__(self) -> int:
        if isinstance(self.dataset, IterableDataset):  # only if the dataset knows its own length
            n = len(self.dataset)
            if self.batch_size is None:
                return n
            return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
        return len(self.batch_sampler if self.batch_sampler is not None else self.sampler)

    def __iter__(self) -> Iterator:
        if isinstance(self.dataset, IterableDataset):
            yield from self._iterable_batches()
        elif self.batch_sampler is None:  # batch_size=None: one sample at a time
            convert = self.collate_fn or default_convert
            for index in self.sampler:
                yield convert(self.dataset[index])
        else:
            for indices in self.batch_sampler:
                yield self._batch(indices)

    def _batch(self, indices: list[int]):
        """Fetch the samples at `indices` and collate them into one batch."""
        if self.collate_fn is None and _is_plain_tensor_dataset(self.dataset):
            # the same values as collating dataset[i] one by one, in one indexing per tensor
            rows = np.asarray(indices, dtype=np.int64)
            return [t[rows] for t in self.dataset.tensors]
        if hasattr(self.dataset, "__getitems__"):
            samples = self.dataset.__getitems__(indices)
        else:
            samples = [self.dataset[i] for i in indices]
        return (self.collate_fn or default_collate)(samples)

    def _iterable_batches(self) -> Iterator:
        collate = self.collate_fn or (default_convert if self.batch_size is None else default_collate)
        if self.batch_size is None:
            for sample in self.dataset:
                yield collate(sample)
            return
        batch = []
        for sample in self.dataset:
            batch.append(sample)
            if len(batch) == self.batch_size:
                yield collate(batch)
                batch = []
        if batch and not self.drop_last:
            yield collate(batch)


def get_worker_info() -> None:
    """PyTorch's information about the worker process loading this batch: None in
    the main process, which is where autogradviz always loads (see num_workers)."""
    return None


def _is_plain_tensor_dataset(dataset) -> bool:
    """A TensorDataset (not a subclass, which may change __getitem__) whose
    tensors need no gradient: its batch can be indexed out in one go."""
    return type(dataset) is TensorDataset and not any(t._requires_grad for t in dataset.tensors)
