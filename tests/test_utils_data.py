"""autogradviz.utils.data against torch.utils.data: the same batches (shapes,
dtypes, structure, values in order without shuffling), the same lengths and
errors; random orders are checked for being permutations, reproducible."""

from __future__ import annotations

import collections
import warnings

import numpy as np
import pytest

import autogradviz as agv
from autogradviz.utils.data import (
    BatchSampler,
    DataLoader,
    Dataset,
    IterableDataset,
    RandomSampler,
    SequentialSampler,
    Subset,
    TensorDataset,
    default_collate,
    random_split,
)

torch = pytest.importorskip("torch")
tud = torch.utils.data


def structure(batch):
    """A batch's shape of containers and tensors, comparable across the two libraries."""
    if isinstance(batch, (agv.Tensor, torch.Tensor)):
        return (
            "tensor",
            tuple(batch.shape),
            str(batch.dtype).split(".")[-1],
            np.asarray(batch.tolist()).tolist(),
        )
    if isinstance(batch, dict):
        return {k: structure(v) for k, v in batch.items()}
    if isinstance(batch, (list, tuple)):
        return (type(batch).__name__, [structure(b) for b in batch])
    return ("value", batch)


def both(samples_agv, samples_torch, **kwargs):
    """The batches of a DataLoader over a list of samples, in each library."""
    ours = [structure(b) for b in DataLoader(samples_agv, **kwargs)]
    theirs = [structure(b) for b in tud.DataLoader(samples_torch, **kwargs)]
    return ours, theirs


def test_the_import_paths():
    from autogradviz.utils.data import DataLoader as fromutils

    assert agv.utils.data.DataLoader is fromutils is agv.data.DataLoader  # one DataLoader
    assert agv.utils.data.TensorDataset is agv.data.TensorDataset


def test_tensor_dataset_batches_match_torch():
    X, y = np.arange(20, dtype=np.float32).reshape(10, 2), np.arange(10)
    ours = [structure(b) for b in DataLoader(TensorDataset(agv.tensor(X), agv.tensor(y)), batch_size=4)]
    theirs = [
        structure(b)
        for b in tud.DataLoader(tud.TensorDataset(torch.tensor(X), torch.tensor(y)), batch_size=4)
    ]
    assert ours == theirs
    assert ours[0][0] == "list"  # torch collates (x, y) samples into a list [xb, yb]


@pytest.mark.parametrize(
    "n, batch_size, drop_last", [(10, 4, False), (10, 4, True), (3, 5, True), (7, 1, False)]
)
def test_len_matches_torch(n, batch_size, drop_last):
    ours = DataLoader(list(range(n)), batch_size=batch_size, drop_last=drop_last)
    theirs = tud.DataLoader(list(range(n)), batch_size=batch_size, drop_last=drop_last)
    assert len(ours) == len(theirs) == len(list(ours))


def test_default_collate_of_python_numbers_and_containers():
    samples = [(1, 2.0, "a", True), (3, 4.0, "b", False)]
    ours, theirs = both(samples, samples, batch_size=2)
    assert ours == theirs
    dicts = [{"a": 1, "b": [1.5, 2]}, {"a": 2, "b": [3.5, 4]}, {"a": 3, "b": [5.5, 6]}]
    ours, theirs = both(dicts, dicts, batch_size=2)
    assert ours == theirs


def test_default_collate_of_numpy_and_tensors():
    arrays = [np.arange(3, dtype=np.float32) + i for i in range(5)]
    ints = [np.int32(i) for i in range(5)]
    ours, theirs = both(list(zip(arrays, ints)), list(zip(arrays, ints)), batch_size=2)
    assert ours == theirs
    tensors_agv = [(agv.tensor([float(i), 2.0 * i]), agv.tensor(i)) for i in range(5)]
    tensors_torch = [(torch.tensor([float(i), 2.0 * i]), torch.tensor(i)) for i in range(5)]
    ours, theirs = both(tensors_agv, tensors_torch, batch_size=3)
    assert ours == theirs


def test_default_collate_keeps_a_namedtuple():
    Point = collections.namedtuple("Point", "x y")
    batch = default_collate([Point(1, 2.0), Point(3, 4.0)])
    assert type(batch) is Point and batch.x.tolist() == [1, 3] and batch.y.dtype == agv.float64
    assert structure(batch) == structure(tud.default_collate([Point(1, 2.0), Point(3, 4.0)]))


def test_default_collate_errors_match_torch():
    for bad in ([object(), object()], [[1, 2], [3]]):
        with pytest.raises(Exception) as theirs:
            tud.default_collate(bad)
        with pytest.raises(type(theirs.value)) as ours:
            default_collate(bad)
        first = str(theirs.value).split(";")[0].split(" <")[0]
        assert str(ours.value).startswith(first)


def test_batch_size_none_gives_converted_samples():
    ours, theirs = both(list(range(5)), list(range(5)), batch_size=None)
    assert ours == theirs
    arrays = [np.ones(2), np.zeros(2)]
    ours, theirs = both(arrays, arrays, batch_size=None)
    assert ours == theirs


def test_samplers_and_batch_sampler_match_torch():
    assert list(BatchSampler(SequentialSampler(range(10)), 3, False)) == list(
        tud.BatchSampler(tud.SequentialSampler(range(10)), 3, False)
    )
    assert len(BatchSampler(range(10), 3, True)) == len(tud.BatchSampler(range(10), 3, True)) == 3
    loader = DataLoader(list(range(10)), batch_sampler=BatchSampler(SequentialSampler(range(10)), 4, False))
    assert [b.tolist() for b in loader] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    loader = DataLoader(list(range(6)), batch_size=2, sampler=[5, 4, 3, 2, 1, 0])
    assert [b.tolist() for b in loader] == [[5, 4], [3, 2], [1, 0]]


def test_random_sampler_is_a_permutation_each_epoch_and_follows_manual_seed():
    agv.manual_seed(0)
    sampler = RandomSampler(range(20))
    first, second = list(sampler), list(sampler)
    assert sorted(first) == sorted(second) == list(range(20)) and first != second
    agv.manual_seed(0)
    assert list(RandomSampler(range(20))) == first
    g = agv.Generator().manual_seed(5)
    drawn = list(RandomSampler(range(20), replacement=True, num_samples=30, generator=g))
    assert len(drawn) == 30 and all(0 <= i < 20 for i in drawn)


def test_shuffle_with_a_generator_is_reproducible():
    def epochs(seed):
        loader = DataLoader(
            list(range(12)), batch_size=5, shuffle=True, generator=agv.Generator().manual_seed(seed)
        )
        return [[i for b in loader for i in b.tolist()] for _ in range(2)]

    a, b, c = epochs(1), epochs(1), epochs(2)
    assert a == b != c and sorted(a[0]) == list(range(12)) and a[0] != a[1]


def test_random_split_lengths_match_torch():
    for n, lengths in [
        (10, [3, 7]),
        (10, [0.3, 0.3, 0.4]),
        (11, [0.5, 0.5]),
        (10, [0.33, 0.33, 0.34]),
        (30, [0.8, 0.2]),
    ]:
        ours = random_split(list(range(n)), lengths, generator=agv.Generator().manual_seed(0))
        theirs = tud.random_split(list(range(n)), lengths, generator=torch.Generator().manual_seed(0))
        assert [len(p) for p in ours] == [len(p) for p in theirs]
        assert sorted(i for p in ours for i in p) == list(range(n))  # no sample lost or repeated
        assert all(isinstance(p, Subset) for p in ours)


def test_random_split_errors_and_warning_match_torch():
    for lengths in ([3, 3], [0.5, 0.6]):
        with pytest.raises(
            ValueError, match="Sum of input lengths does not equal the length of the input dataset!"
        ):
            random_split(range(10), lengths)
    with pytest.raises(ValueError, match="Fraction at index 0 is not between 0 and 1"):
        random_split(range(10), [1.5, -0.5])
    with pytest.warns(UserWarning, match="Length of split at index 1 is 0"):
        random_split(range(2), [0.99, 0.01])


def test_subset_and_custom_dataset():
    class Squares(Dataset):
        def __len__(self):
            return 6

        def __getitem__(self, i):
            return agv.tensor([float(i)]), i * i

    sub = Subset(Squares(), [5, 1, 3])
    assert len(sub) == 3 and sub[0][1] == 25
    xb, yb = next(iter(DataLoader(sub, batch_size=3)))
    assert xb.shape == (3, 1) and yb.tolist() == [25, 1, 9] and yb.dtype == agv.int64


def test_iterable_dataset():
    class Stream(IterableDataset):
        def __iter__(self):
            return iter(range(7))

    class TorchStream(tud.IterableDataset):
        def __iter__(self):
            return iter(range(7))

    ours = [structure(b) for b in DataLoader(Stream(), batch_size=3)]
    theirs = [structure(b) for b in tud.DataLoader(TorchStream(), batch_size=3)]
    assert ours == theirs
    assert [b.tolist() for b in DataLoader(Stream(), batch_size=3, drop_last=True)] == [[0, 1, 2], [3, 4, 5]]
    with pytest.raises(TypeError, match="has no len"):
        len(DataLoader(Stream(), batch_size=3))
    with pytest.raises(ValueError, match="expected unspecified shuffle option, but got shuffle=True"):
        DataLoader(Stream(), shuffle=True)


def test_loader_argument_errors_match_torch():
    cases = [
        dict(batch_size=0),
        dict(batch_size=-1),
        dict(shuffle=True, sampler=[0, 1, 2]),
        dict(batch_size=2, batch_sampler=[[0, 1], [2]]),
        dict(batch_size=None, drop_last=True),
        dict(num_workers=-1),
    ]
    for kwargs in cases:
        with pytest.raises(ValueError) as theirs:
            tud.DataLoader(list(range(3)), **kwargs)
        with pytest.raises(ValueError) as ours:
            DataLoader(list(range(3)), **kwargs)
        assert str(ours.value).startswith(str(theirs.value)), kwargs


def test_workers_and_pin_memory_are_accepted_and_run_in_process():
    loader = DataLoader(list(range(6)), batch_size=4, num_workers=2, pin_memory=True, persistent_workers=True)
    assert [b.tolist() for b in loader] == [[0, 1, 2, 3], [4, 5]]


def test_a_failed_loader_call_changes_nothing():
    agv.manual_seed(3)
    before = agv.default_generator.get_state()
    with pytest.raises(ValueError):
        DataLoader(list(range(3)), shuffle=True, sampler=[0])
    assert agv.default_generator.get_state() == before


def test_tutorial_loop_runs_unchanged():
    """The PyTorch tutorial's shape: a Dataset subclass, a shuffled loader, a training step."""
    import autogradviz as torch_like

    class Points(torch_like.utils.data.Dataset):
        def __init__(self):
            self.x = torch_like.linspace(-1, 1, 16).reshape(16, 1)
            self.y = 3 * self.x + 1

        def __len__(self):
            return len(self.x)

        def __getitem__(self, idx):
            return self.x[idx], self.y[idx]

    torch_like.manual_seed(0)
    model = torch_like.nn.Linear(1, 1)
    opt = torch_like.optim.SGD(model.parameters(), lr=0.1)
    loader = torch_like.utils.data.DataLoader(Points(), batch_size=4, shuffle=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(60):
            for xb, yb in loader:
                opt.zero_grad()
                loss = ((model(xb) - yb) ** 2).mean()
                loss.backward()
                opt.step()
    assert abs(model.weight.item() - 3) < 1e-2 and abs(model.bias.item() - 1) < 1e-2


def test_d2l_load_array_runs_unchanged():
    """d2l's `load_array`, with `from torch.utils import data` spelled for autogradviz."""
    from autogradviz.utils import data

    def load_array(data_arrays, batch_size, is_train=True):
        dataset = data.TensorDataset(*data_arrays)
        return data.DataLoader(dataset, batch_size, shuffle=is_train)

    features, labels = agv.randn(10, 2), agv.randn(10, 1)
    loader = load_array((features, labels), 4)
    X, y = next(iter(loader))
    assert X.shape == (4, 2) and y.shape == (4, 1) and len(loader) == 3 and len(loader.dataset) == 10
    ordered = load_array((features, labels), 4, is_train=False)
    assert np.array_equal(np.concatenate([b[0].numpy() for b in ordered]), features.numpy())


def test_concat_dataset_matches_torch():
    from autogradviz.utils.data import ConcatDataset

    ours, theirs = ConcatDataset([range(3), range(10, 12)]), tud.ConcatDataset([range(3), range(10, 12)])
    assert len(ours) == len(theirs) == 5 and ours.cumulative_sizes == theirs.cumulative_sizes
    assert [ours[i] for i in range(-5, 5)] == [theirs[i] for i in range(-5, 5)]
    with pytest.raises(ValueError, match="absolute value of index should not exceed dataset length"):
        ours[-6]
    with pytest.raises(IndexError):
        ours[5]
    with pytest.raises(ValueError, match="datasets should not be an empty iterable"):
        ConcatDataset([])
    joined = TensorDataset(agv.ones(2)) + TensorDataset(agv.zeros(3))
    assert type(joined).__name__ == "ConcatDataset" and len(joined) == 5


def test_weighted_random_sampler():
    from autogradviz.utils.data import WeightedRandomSampler

    g = agv.Generator().manual_seed(0)
    drawn = list(WeightedRandomSampler([0.1, 0.0, 0.9], 200, generator=g))
    assert len(drawn) == len(tud.WeightedRandomSampler([0.1, 0.0, 0.9], 200)) == 200
    assert 1 not in drawn and drawn.count(2) > drawn.count(0)  # a zero weight is never drawn
    assert sorted(WeightedRandomSampler([1.0, 2.0, 3.0], 3, replacement=False)) == [0, 1, 2]
    for kwargs in (dict(weights=[0.1], num_samples=0), dict(weights=[[0.1]], num_samples=3)):
        with pytest.raises(ValueError) as theirs:
            tud.WeightedRandomSampler(**kwargs)
        with pytest.raises(ValueError) as ours:
            WeightedRandomSampler(**kwargs)
        assert str(ours.value) == str(theirs.value)
    with pytest.raises(RuntimeError, match="cannot sample n_sample > prob_dist.size"):
        list(WeightedRandomSampler([0.1, 0.2], 5, replacement=False))


def test_get_worker_info_is_none_in_the_main_process():
    assert agv.utils.data.get_worker_info() is tud.get_worker_info() is None
