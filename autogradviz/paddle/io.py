"""`paddle.io`: Dataset, TensorDataset, BatchSampler and DataLoader, as Paddle 2.0 spells them.

    class MyData(paddle.io.Dataset):
        def __getitem__(self, i): ...
        def __len__(self): ...
    loader = paddle.io.DataLoader(MyData(), batch_size=32, shuffle=True)
    for x, y in loader:
        ...

The loader is autogradviz's own (`autogradviz.utils.data`, PyTorch's design:
a sampler picks the indices, `collate_fn` stacks the samples into a batch).
Paddle's arguments that mean nothing here (feed_list, places, return_list,
use_buffer_reader, use_shared_memory) are accepted: there is one process and
one device. Batches are lists of tensors, as Paddle's return_list=True gives.
"""

from __future__ import annotations

from ..core.tensor import Tensor
from ..utils import data as _data
from .framework import PaddleTensor, mark

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "BatchSampler", "DataLoader", "random_split"]

Dataset = _data.Dataset
IterableDataset = _data.IterableDataset
BatchSampler = _data.BatchSampler
random_split = _data.random_split


class TensorDataset(_data.TensorDataset):
    """Paddle's TensorDataset takes one list of tensors: TensorDataset([x, y])."""

    def __init__(self, tensors):
        super().__init__(*tensors)


class DataLoader(_data.DataLoader):
    """autogradviz's DataLoader with Paddle's arguments. Iterate it, or call it
    first as Paddle code often does: `for X, y in train_iter():`."""

    tensor_flavour: type = PaddleTensor  # the release of its batches (v2_0.io: PaddleTensor20)

    def __init__(
        self,
        dataset,
        feed_list=None,
        places=None,
        return_list: bool = True,
        batch_sampler=None,
        batch_size: int = 1,
        shuffle: bool = False,
        drop_last: bool = False,
        collate_fn=None,
        num_workers: int = 0,
        use_buffer_reader: bool = True,
        use_shared_memory: bool = True,
        timeout: int = 0,
        worker_init_fn=None,
    ):
        if batch_sampler is not None:  # it decides batch size, order and the last batch itself
            super().__init__(dataset, batch_size=1, batch_sampler=batch_sampler, collate_fn=collate_fn)
        else:
            super().__init__(
                dataset, batch_size=batch_size, shuffle=shuffle, drop_last=drop_last, collate_fn=collate_fn
            )

    def __iter__(self):
        """Each batch as a list of Paddle tensors (return_list=True): a dataset whose
        samples are single arrays gives one-element lists, as Paddle's loader does."""
        flavour = self.tensor_flavour
        for batch in super().__iter__():
            if isinstance(batch, Tensor):
                yield [mark(batch, flavour)]
            elif isinstance(batch, (list, tuple)):
                yield type(batch)(mark(t, flavour) if isinstance(t, Tensor) else t for t in batch)
            else:
                yield batch

    def __call__(self):
        """Paddle's DataLoader is callable: `loader()` is an iterator over the batches
        (python/paddle/io/reader.py, DataLoader.__call__ returns self.__iter__())."""
        return self.__iter__()
