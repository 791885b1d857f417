"""agv.data: the generated datasets (shapes, dtypes, labels, seeding), the
DataLoader, and that the datasets can be learned with agv.optim."""

from __future__ import annotations

import time

import numpy as np
import pytest

import autogradviz as agv
from autogradviz import data, optim

CLASSIFICATION = {
    "two_moons": (lambda **kw: data.two_moons(**kw), 2),
    "spirals2": (lambda **kw: data.spirals(classes=2, **kw), 2),
    "spirals3": (lambda **kw: data.spirals(classes=3, **kw), 3),
    "xor": (lambda **kw: data.xor(**kw), 2),
}


@pytest.mark.parametrize("name", CLASSIFICATION)
def test_classification_shapes_dtypes_and_labels(name):
    make, classes = CLASSIFICATION[name]
    X, y = make(n=151, seed=0)
    assert X.shape == (151, 2) and X.dtype == agv.float32
    assert y.shape == (151,) and y.dtype == agv.int64
    counts = np.bincount(y.numpy(), minlength=classes)
    assert len(counts) == classes and counts.min() > 0
    if name != "xor":  # xor's points are uniform in the square, so its classes are only roughly even
        assert counts.max() - counts.min() <= 1
    assert not X.requires_grad and X.is_leaf and np.isfinite(X.numpy()).all()
    assert y.numpy()[:20].tolist() != sorted(y.numpy()[:20].tolist())  # shuffled, not class by class


def test_default_sizes():
    assert data.two_moons()[0].shape == (200, 2)
    assert data.spirals()[0].shape == (300, 2)
    assert data.xor()[0].shape == (200, 2)
    assert data.linear_regression()[0].shape == (100, 1)


def make_all(seed):
    return {
        "two_moons": data.two_moons(n=50, seed=seed),
        "spirals": data.spirals(n=50, classes=3, seed=seed),
        "xor": data.xor(n=50, seed=seed),
        "linear_regression": data.linear_regression(n=50, features=3, seed=seed),
        "digits": data.digits(seed=seed, n=100),
    }


def test_same_seed_same_data_different_seed_different_data():
    first, again, other = make_all(0), make_all(0), make_all(1)
    for name in first:
        for a, b, c in zip(first[name], again[name], other[name]):
            np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=name)
        assert not np.array_equal(first[name][0].numpy(), other[name][0].numpy()), name


def test_without_a_seed_agv_manual_seed_makes_data_reproducible():
    agv.manual_seed(5)
    first = [t.numpy() for t in data.two_moons(n=40) + data.xor(n=40) + data.digits(n=50)]
    agv.manual_seed(5)
    again = [t.numpy() for t in data.two_moons(n=40) + data.xor(n=40) + data.digits(n=50)]
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)
    # and a seed= of its own leaves agv's generator alone
    agv.manual_seed(5)
    data.two_moons(n=40, seed=123)
    np.testing.assert_array_equal(data.two_moons(n=40)[0].numpy(), first[0])


def test_noise_moves_points_off_the_curves():
    clean, _ = data.two_moons(n=100, noise=0.0, seed=0)
    noisy, _ = data.two_moons(n=100, noise=0.1, seed=0)
    radius = np.linalg.norm(clean.numpy(), axis=1)
    lower = np.linalg.norm(clean.numpy() - [1.0, 0.5], axis=1)
    assert np.allclose(np.minimum(np.abs(radius - 1), np.abs(lower - 1)), 0, atol=1e-6)
    assert not np.allclose(clean.numpy(), noisy.numpy())


def test_xor_labels_are_the_xor_of_the_signs_before_noise():
    X, y = data.xor(n=300, noise=0.0, seed=0)
    x = X.numpy()
    np.testing.assert_array_equal(y.numpy(), (x[:, 0] > 0) ^ (x[:, 1] > 0))
    assert np.abs(x).min() > 0.05  # the margin from the axes


def test_spirals_refuses_other_class_counts():
    with pytest.raises(ValueError, match="classes must be 2 or 3, not 4"):
        data.spirals(classes=4)


def test_linear_regression_targets_and_true_coefficients():
    X, y, w, b = data.linear_regression(n=500, features=3, noise=0.01, seed=0, coef=True)
    assert X.shape == (500, 3) and y.shape == (500, 1) and w.shape == (3, 1)
    assert X.dtype == y.dtype == agv.float32 and isinstance(b, float)
    design = np.hstack([X.numpy(), np.ones((500, 1))])
    fit = np.linalg.lstsq(design, y.numpy(), rcond=None)[0]
    np.testing.assert_allclose(fit[:3], w.numpy(), atol=0.01)
    assert fit[3, 0] == pytest.approx(b, abs=0.01)


def test_digits_shapes_values_and_labels():
    start = time.perf_counter()
    X, y = data.digits(seed=0)
    elapsed = time.perf_counter() - start
    assert X.shape == (1500, 1, 8, 8) and X.dtype == agv.float32
    assert y.shape == (1500,) and y.dtype == agv.int64
    assert X.numpy().min() >= 0 and X.numpy().max() <= 1
    assert np.bincount(y.numpy()).tolist() == [150] * 10
    # each image has ink, and its darkest pixel is (nearly) full ink: 1 before the pixel noise
    per_image = X.numpy().reshape(1500, 64)
    assert (per_image.max(axis=1) > 0.75).all() and (per_image.mean(axis=1) > 0.05).all()
    # samples of one digit differ from each other
    ones = per_image[y.numpy() == 1]
    assert np.abs(ones[0] - ones[1]).sum() > 1
    assert elapsed < 5, f"digits() took {elapsed:.1f}s"


def test_digits_classes_look_different_on_average():
    X, y = data.digits(seed=0)
    means = np.stack([X.numpy()[y.numpy() == c].mean(axis=0).ravel() for c in range(10)])
    distances = np.linalg.norm(means[:, None] - means[None], axis=-1)
    assert distances[~np.eye(10, dtype=bool)].min() > 0.5


# -- DataLoader ----------------------------------------------------------------------------------


def numbered(n=10):
    X = agv.arange(n * 2, dtype=agv.float32).reshape(n, 2)
    y = agv.arange(n)
    return X, y


def test_batches_in_order_without_shuffle():
    X, y = numbered(10)
    loader = data.DataLoader(data.TensorDataset(X, y), batch_size=4)
    batches = list(loader)
    assert len(loader) == 3 and len(batches) == 3
    assert [b[0].shape for b in batches] == [(4, 2), (4, 2), (2, 2)]
    assert all(
        isinstance(b, list) and len(b) == 2 for b in batches
    )  # a list, as torch's default_collate gives
    assert np.concatenate([b[1].numpy() for b in batches]).tolist() == list(range(10))
    assert batches[0][0].dtype == agv.float32 and batches[0][1].dtype == agv.int64


@pytest.mark.parametrize(
    "n, batch_size, drop_last, expected",
    [
        (10, 4, False, 3),
        (10, 4, True, 2),
        (12, 4, False, 3),
        (12, 4, True, 3),
        (3, 5, False, 1),
        (3, 5, True, 0),
        (7, 1, False, 7),
    ],
)
def test_number_of_batches(n, batch_size, drop_last, expected):
    loader = data.DataLoader(numbered(n), batch_size=batch_size, drop_last=drop_last)
    assert len(loader) == expected == len(list(loader))
    if drop_last:
        assert all(len(b[0]) == batch_size for b in loader)


def test_a_tuple_of_tensors_is_a_dataset():
    X, y = numbered(6)
    from_tuple = [b[1].tolist() for b in data.DataLoader((X, y), batch_size=4)]
    from_dataset = [b[1].tolist() for b in data.DataLoader(data.TensorDataset(X, y), batch_size=4)]
    assert from_tuple == from_dataset == [[0, 1, 2, 3], [4, 5]]
    (only,) = next(iter(data.DataLoader((X,), batch_size=2)))
    assert only.shape == (2, 2)


def epoch_orders(loader, epochs=3):
    return [np.concatenate([b[1].numpy() for b in loader]).tolist() for _ in range(epochs)]


def test_shuffle_visits_every_sample_in_a_new_order_each_epoch():
    loader = data.DataLoader(numbered(20), batch_size=6, shuffle=True, seed=0)
    orders = epoch_orders(loader)
    for order in orders:
        assert sorted(order) == list(range(20))
    assert orders[0] != list(range(20))
    assert orders[0] != orders[1] != orders[2]


def test_a_seeded_loader_gives_the_same_epochs_on_every_run():
    first = epoch_orders(data.DataLoader(numbered(20), batch_size=6, shuffle=True, seed=7))
    agv.manual_seed(123)  # agv's generator does not matter when seed= is given
    again = epoch_orders(data.DataLoader(numbered(20), batch_size=6, shuffle=True, seed=7))
    other = epoch_orders(data.DataLoader(numbered(20), batch_size=6, shuffle=True, seed=8))
    assert first == again and first != other


def test_an_unseeded_loader_follows_agv_manual_seed():
    agv.manual_seed(3)
    first = epoch_orders(data.DataLoader(numbered(20), batch_size=6, shuffle=True))
    agv.manual_seed(3)
    again = epoch_orders(data.DataLoader(numbered(20), batch_size=6, shuffle=True))
    assert first == again and first[0] != first[1]


def test_shuffle_with_drop_last():
    loader = data.DataLoader(numbered(10), batch_size=3, shuffle=True, seed=0, drop_last=True)
    batches = list(loader)
    assert len(loader) == len(batches) == 3 and all(len(b[1]) == 3 for b in batches)
    assert len(set(np.concatenate([b[1].numpy() for b in batches]).tolist())) == 9


def test_any_indexable_dataset_is_stacked_into_batches():
    class Squares:
        def __len__(self):
            return 5

        def __getitem__(self, i):
            return agv.tensor([float(i)]), i * i

    batches = list(data.DataLoader(Squares(), batch_size=2))
    assert len(batches) == 3
    xb, yb = batches[0]
    assert xb.shape == (2, 1) and xb.tolist() == [[0.0], [1.0]]
    assert yb.tolist() == [0, 1] and yb.dtype == agv.int64
    assert batches[2][1].tolist() == [16]


def test_dataset_and_loader_errors():
    X, y = numbered(5)
    with pytest.raises(ValueError, match=r"Size mismatch between tensors.*\[5, 4\]"):
        data.TensorDataset(X, y[:4])
    with pytest.raises(TypeError, match="TensorDataset takes tensors, not ndarray"):
        data.TensorDataset(np.zeros(3))
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="batch_size should be a positive integer"):
            data.DataLoader((X, y), batch_size=bad)


def test_tensor_dataset_indexing():
    X, y = numbered(5)
    ds = data.TensorDataset(X, y)
    assert len(ds) == 5
    x3, y3 = ds[3]
    assert x3.tolist() == [6.0, 7.0] and y3.item() == 3


# -- learnable --------------------------------------------------------------------------------


def mlp(sizes):
    """Plain agv ops, not agv.nn: weights scaled by 1/sqrt(fan_in), tanh between layers."""
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        params.append((agv.randn(fan_in, fan_out) / np.sqrt(fan_in)).requires_grad_())
        params.append(agv.zeros(fan_out, requires_grad=True))

    def forward(x):
        for i in range(0, len(params), 2):
            x = x @ params[i] + params[i + 1]
            if i < len(params) - 2:
                x = agv.tanh(x)
        return x

    return params, forward


def cross_entropy(logits, y):
    return -agv.log_softmax(logits, dim=1)[np.arange(len(y)), y.numpy()].mean()


def accuracy(forward, X, y):
    with agv.no_grad():
        return (forward(X).argmax(dim=1) == y).float().mean().item()


def test_mlp_with_adam_learns_two_moons():
    """The issue's check: ≥ 97% training accuracy within a fixed, seeded number of steps."""
    X, y = data.two_moons(n=200, noise=0.1, seed=0)
    agv.manual_seed(0)
    params, forward = mlp([2, 16, 16, 2])
    opt = optim.Adam(params, lr=0.05)
    loader = data.DataLoader((X, y), batch_size=50, shuffle=True, seed=0)
    start = time.perf_counter()
    for _epoch in range(40):  # 160 steps
        for xb, yb in loader:
            opt.zero_grad()
            cross_entropy(forward(xb), yb).backward()
            opt.step()
    elapsed = time.perf_counter() - start
    assert accuracy(forward, X, y) >= 0.97
    assert elapsed < 5, f"training took {elapsed:.1f}s"


def test_softmax_regression_learns_digits():
    """The digits are distinct enough for a linear classifier, and held-out
    samples are recognized too (they are not copies of one image per class)."""
    X, y = data.digits(seed=0)
    X = X.reshape(len(X), 64)
    train, test = slice(0, 1000), slice(1000, None)
    W = agv.zeros(64, 10, requires_grad=True)
    b = agv.zeros(10, requires_grad=True)

    def forward(x):
        return x @ W + b

    opt = optim.Adam([W, b], lr=0.1)
    for _ in range(100):
        opt.zero_grad()
        cross_entropy(forward(X[train]), y[train]).backward()
        opt.step()
    assert accuracy(forward, X[train], y[train]) >= 0.95
    assert accuracy(forward, X[test], y[test]) >= 0.9
