"""More of the PyTorch surface that course notebooks use (issue 28, item 1, continued from
tests/test_tutorial_surface.py): the sampler module, cross_entropy's label_smoothing,
conv1d, device=/dtype= on the layers and histogram, each checked against PyTorch itself."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest
import torch
import torch.utils.data as tud

import autogradviz as agv
import autogradviz.utils.data as aud

LIBRARIES = (agv, torch)


def _raised(fn):
    """(exception class name, message) of what fn() raises."""
    with pytest.raises(Exception) as caught:
        fn()
    return type(caught.value).__name__, str(caught.value)


def assert_raises_like_torch(fn, length: int | None = None):
    """fn(library) raises the same class in both, and our message starts with PyTorch's
    (its first `length` characters, when ours adds a hint after PyTorch's sentence)."""
    ours, theirs = _raised(lambda: fn(agv)), _raised(lambda: fn(torch))
    assert ours[0] == theirs[0], f"agv raised {ours}, torch {theirs}"
    expected = theirs[1] if length is None else theirs[1][:length]
    assert ours[1].startswith(expected), f"\nagv:   {ours[1]}\ntorch: {theirs[1]}"


# 1. torch.utils.data.sampler ---------------------------------------------------------------------
DATA = {agv: aud, torch: tud}


def test_the_sampler_module_is_where_torch_has_it():
    from autogradviz.utils.data import sampler

    assert sorted(sampler.__all__) == sorted(tud.sampler.__all__)
    for name in tud.sampler.__all__:
        assert getattr(aud, name) is getattr(sampler, name)
    assert agv.utils.data.SubsetRandomSampler is sampler.SubsetRandomSampler
    assert issubclass(sampler.BatchSampler, sampler.Sampler)


@pytest.mark.parametrize(
    "n, batch_size, drop_last", [(10, 3, False), (10, 3, True), (9, 3, True), (2, 5, False)]
)
def test_sequential_and_batch_samplers_give_torchs_index_lists(n, batch_size, drop_last):
    results = []
    for m in LIBRARIES:
        d = DATA[m]
        sequential = d.SequentialSampler(range(n))
        batches = d.BatchSampler(sequential, batch_size, drop_last)
        loader = d.DataLoader(m.arange(n), sampler=d.SequentialSampler(range(n - 1)), batch_size=batch_size)
        by_batch_sampler = d.DataLoader(m.arange(n) * 2, batch_sampler=batches)
        results.append(
            (
                list(sequential),
                len(sequential),
                list(batches),
                len(batches),
                [b.tolist() for b in loader],
                len(loader),
                [b.tolist() for b in by_batch_sampler],
                len(by_batch_sampler),
            )
        )
    assert results[0] == results[1]


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"replacement": True},
        {"replacement": True, "num_samples": 25},
        {"num_samples": 25},
        {"num_samples": 3},
    ],
)
def test_random_sampler_has_torchs_lengths_and_kind_of_order(kwargs):
    n = 10
    ours, theirs = aud.RandomSampler(range(n), **kwargs), tud.RandomSampler(range(n), **kwargs)
    drawn, drawn_by_torch = list(ours), list(theirs)
    assert len(ours) == len(theirs) == len(drawn) == len(drawn_by_torch)
    assert all(0 <= i < n for i in drawn)
    if not kwargs.get("replacement"):
        # as torch: whole permutations of range(n) one after another, the last one cut short
        for start in range(0, len(drawn), n):
            block = drawn[start : start + n]
            assert len(set(block)) == len(block)
            assert sorted(block) == sorted(drawn_by_torch[start : start + n]) or len(block) < n


def test_random_samplers_follow_their_generator_and_manual_seed():
    def orders(generator):
        return (
            list(aud.RandomSampler(range(12), generator=generator)),
            list(aud.RandomSampler(range(12), replacement=True, num_samples=20, generator=generator)),
            list(aud.SubsetRandomSampler([5, 7, 9, 11], generator=generator)),
            list(aud.WeightedRandomSampler([1.0, 2.0, 3.0], 10, generator=generator)),
        )

    assert orders(agv.Generator().manual_seed(3)) == orders(agv.Generator().manual_seed(3))
    agv.manual_seed(4)
    first = orders(None)
    agv.manual_seed(4)
    assert orders(None) == first
    assert sorted(first[2]) == [5, 7, 9, 11]
    assert len(aud.SubsetRandomSampler([5, 7, 9])) == len(tud.SubsetRandomSampler([5, 7, 9])) == 3


def test_a_loader_with_a_batch_sampler_of_random_indices_sees_each_sample_once():
    agv.manual_seed(0)
    batches = aud.BatchSampler(aud.RandomSampler(range(10)), 4, drop_last=False)
    loader = aud.DataLoader(agv.arange(10), batch_sampler=batches)
    seen = [b.tolist() for b in loader]
    assert [len(b) for b in seen] == [4, 4, 2] and sorted(sum(seen, [])) == list(range(10))
    assert len(loader) == len(
        tud.DataLoader(torch.arange(10), batch_sampler=tud.BatchSampler(range(10), 4, False))
    )


SAMPLER_ERRORS = {
    "random-replacement-not-bool": lambda d: d.RandomSampler(range(3), replacement=1),
    "random-zero-samples": lambda d: d.RandomSampler(range(3), num_samples=0),
    "random-float-samples": lambda d: d.RandomSampler(range(3), num_samples=2.0),
    "batch-size-zero": lambda d: d.BatchSampler(range(3), 0, False),
    "batch-drop-last-not-bool": lambda d: d.BatchSampler(range(3), 2, 1),
    "weighted-zero-samples": lambda d: d.WeightedRandomSampler([1.0, 2.0], 0),
    "weighted-2d": lambda d: d.WeightedRandomSampler([[1.0, 2.0]], 1),
    "weighted-replacement-not-bool": lambda d: d.WeightedRandomSampler([1.0, 2.0], 1, replacement=0),
    "weighted-too-many-without-replacement": lambda d: list(
        d.WeightedRandomSampler([0.0, 2.0], 3, replacement=False)
    ),
    "loader-shuffle-and-sampler": lambda d: d.DataLoader(range(3), shuffle=True, sampler=[0]),
    "loader-batch-sampler-and-batch-size": lambda d: d.DataLoader(
        range(3), batch_size=2, batch_sampler=[[0]]
    ),
    "loader-batch-sampler-and-shuffle": lambda d: d.DataLoader(range(3), shuffle=True, batch_sampler=[[0]]),
    "loader-batch-sampler-and-sampler": lambda d: d.DataLoader(range(3), sampler=[0], batch_sampler=[[0]]),
    "loader-batch-sampler-and-drop-last": lambda d: d.DataLoader(
        range(3), drop_last=True, batch_sampler=[[0]]
    ),
    "loader-no-batching-and-drop-last": lambda d: d.DataLoader(range(3), batch_size=None, drop_last=True),
    "base-sampler": lambda d: iter(d.Sampler()),
}


@pytest.mark.parametrize("name", SAMPLER_ERRORS)
def test_sampler_and_loader_errors_match_torch(name):
    assert_raises_like_torch(lambda m: SAMPLER_ERRORS[name](DATA[m]))


@pytest.mark.parametrize(
    "weights",
    [[1.0, float("inf"), 1.0], [1.0, float("nan"), 1.0], [0.0, 0.0, 0.0], [-1.0, 1.0, 1.0], [-1.0, 2.0]],
)
@pytest.mark.parametrize("replacement", [True, False])
@pytest.mark.parametrize("num_samples", [1, 2])
def test_weighted_random_sampler_rejects_bad_weights_like_torch(weights, replacement, num_samples):
    assert_raises_like_torch(
        lambda m: list(DATA[m].WeightedRandomSampler(weights, num_samples, replacement=replacement))
    )


# 2. cross_entropy(label_smoothing=) ------------------------------------------------------------------
def _logits(m, shape):
    values = np.sin(np.arange(np.prod(shape), dtype=np.float64) * 1.3).reshape(shape) * 2
    return m.tensor(values, requires_grad=True)


def _ce_target_and_options(m, case):
    """The case's target (class indices, or probabilities of the input's shape) and keyword arguments."""
    shape, target_kind, kwargs, _ = case
    classes = shape[0] if len(shape) == 1 else shape[1]
    target_shape = () if len(shape) == 1 else shape[:1] + shape[2:]
    if target_kind == "index":
        labels = np.arange(int(np.prod(target_shape)), dtype=np.int64).reshape(target_shape) % classes
        if "ignore_index" in kwargs and labels.ndim:
            labels.flat[1] = kwargs["ignore_index"]
        target = m.tensor(labels)
    else:
        raw = np.cos(np.arange(int(np.prod(shape)), dtype=np.float64)).reshape(shape) ** 2
        target = m.tensor(raw / raw.sum(axis=0 if len(shape) == 1 else 1, keepdims=True))
    kwargs = dict(kwargs)
    if "weight" in kwargs:
        kwargs["weight"] = m.tensor(kwargs["weight"], dtype=m.float64)
    return target, kwargs


def _ce_loss(m, x, case):
    target, kwargs = _ce_target_and_options(m, case)
    if case[3]:  # as a module
        return m.nn.CrossEntropyLoss(**kwargs)(x, target)
    return m.nn.functional.cross_entropy(x, target, **kwargs)


CE_CASES = {
    "index-mean": ((4, 3), "index", {"label_smoothing": 0.1}, False),
    "index-sum": ((4, 3), "index", {"label_smoothing": 0.2, "reduction": "sum"}, False),
    "index-none": ((4, 3), "index", {"label_smoothing": 0.3, "reduction": "none"}, False),
    "index-weight": ((4, 3), "index", {"label_smoothing": 0.1, "weight": [0.2, 1.0, 3.0]}, False),
    "index-weight-none": (
        (4, 3),
        "index",
        {"label_smoothing": 0.1, "weight": [0.2, 1.0, 3.0], "reduction": "none"},
        False,
    ),
    "index-ignore": ((5, 3), "index", {"label_smoothing": 0.25, "ignore_index": 1}, False),
    "index-ignore-weight": (
        (5, 3),
        "index",
        {"label_smoothing": 0.25, "ignore_index": 2, "weight": [0.5, 2.0, 1.5]},
        False,
    ),
    "index-ignore-none": (
        (5, 3),
        "index",
        {"label_smoothing": 0.25, "ignore_index": 0, "reduction": "none"},
        True,
    ),
    "index-spatial": ((2, 3, 2, 2), "index", {"label_smoothing": 0.15, "weight": [1.0, 2.0, 0.5]}, False),
    "index-1d-input": ((4,), "index", {"label_smoothing": 0.1}, False),
    "index-one": ((3, 4), "index", {"label_smoothing": 1.0}, True),
    "index-negative-is-none": ((3, 4), "index", {"label_smoothing": -0.2}, True),
    "module-mean": ((4, 3), "index", {"label_smoothing": 0.1}, True),
    "module-weight-sum": (
        (4, 3),
        "index",
        {"label_smoothing": 0.1, "weight": [1.0, 2.0, 3.0], "reduction": "sum"},
        True,
    ),
    "probabilities-mean": ((4, 3), "probabilities", {"label_smoothing": 0.1}, False),
    "probabilities-weight-none": (
        (4, 3),
        "probabilities",
        {"label_smoothing": 0.3, "weight": [0.2, 1.0, 3.0], "reduction": "none"},
        True,
    ),
    "probabilities-spatial-sum": (
        (2, 3, 2),
        "probabilities",
        {"label_smoothing": 0.5, "reduction": "sum"},
        False,
    ),
}


@pytest.mark.parametrize("name", CE_CASES)
def test_cross_entropy_with_label_smoothing_matches_torch(name):
    results = []
    for m in LIBRARIES:
        x = _logits(m, CE_CASES[name][0])
        loss = _ce_loss(m, x, CE_CASES[name])
        (loss * m.arange(1, loss.numel() + 1, dtype=m.float64).reshape(loss.shape)).sum().backward()
        results.append((loss.detach().numpy(), x.grad.numpy()))
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["index-weight", "index-ignore-none", "probabilities-mean", "index-spatial"])
def test_cross_entropy_with_label_smoothing_passes_gradcheck(name):
    case = CE_CASES[name]
    assert agv.gradcheck(lambda x: _ce_loss(agv, x, case), (_logits(agv, case[0]),))


@pytest.mark.parametrize(
    "fn",
    [
        lambda m: m.nn.functional.cross_entropy(_logits(m, (2, 3)), m.tensor([0, 1]), label_smoothing=1.5),
        lambda m: m.nn.functional.cross_entropy(_logits(m, (2, 3)), m.ones(2, 3) / 3, label_smoothing=1.01),
        lambda m: m.nn.functional.cross_entropy(_logits(m, (2, 3)), m.tensor([0, 1]), label_smoothing="a"),
        lambda m: m.nn.CrossEntropyLoss(label_smoothing=2.0)(_logits(m, (2, 3)), m.tensor([0, 1])),
    ],
)
def test_label_smoothing_errors_match_torch(fn):
    assert_raises_like_torch(fn)


def test_a_bad_label_smoothing_loses_nothing():
    x = _logits(agv, (2, 3))
    agv.nn.functional.cross_entropy(x, agv.tensor([0, 1]), label_smoothing=0.1).backward()
    before = x.grad.tolist()
    with pytest.raises(RuntimeError):
        agv.nn.functional.cross_entropy(x, agv.tensor([0, 1]), label_smoothing=1.5).backward()
    assert x.grad.tolist() == before


# 3. conv1d and nn.Conv1d -------------------------------------------------------------------------------
def _sequence(m, shape, scale=1.0):
    values = np.cos(np.arange(np.prod(shape), dtype=np.float64) * 0.7).reshape(shape) * scale
    return m.tensor(values, requires_grad=True)


CONV1D_CASES = {
    "plain": ((2, 3, 9), (4, 3, 3), True, {}),
    "no-bias": ((2, 3, 9), (4, 3, 3), False, {}),
    "stride": ((2, 3, 10), (4, 3, 3), True, {"stride": 2}),
    "padding": ((2, 3, 9), (4, 3, 3), True, {"padding": 2}),
    "padding-tuple": ((1, 2, 6), (3, 2, 2), True, {"padding": (1,), "stride": (2,)}),
    "dilation": ((2, 3, 11), (2, 3, 3), True, {"dilation": 3, "padding": 1}),
    "same-even-kernel": ((2, 3, 8), (4, 3, 4), True, {"padding": "same"}),
    "same-dilated": ((2, 3, 8), (4, 3, 3), True, {"padding": "same", "dilation": 2}),
    "valid": ((2, 3, 8), (4, 3, 5), True, {"padding": "valid"}),
    "unbatched": ((3, 9), (4, 3, 3), True, {"stride": 2, "padding": 1}),
    "kernel-as-long-as-input": ((2, 1, 4), (1, 1, 4), True, {}),
}


def _conv1d_call(m, case):
    x_shape, w_shape, with_bias, kwargs = CONV1D_CASES[case]
    x, w = _sequence(m, x_shape), _sequence(m, w_shape, 0.5)
    b = m.tensor(np.linspace(-0.3, 0.4, w_shape[0]), requires_grad=True) if with_bias else None
    with warnings.catch_warnings():  # PyTorch's note that an even kernel with padding="same" copies the input
        warnings.simplefilter("ignore", UserWarning)
        return (x, w, b), m.nn.functional.conv1d(x, w, b, **kwargs)


def _names_down(fn, depth=2):
    """grad_fn names down the first edges: what a drawing shows from the output."""
    names = []
    while fn is not None and depth:
        names.append(type(fn).__name__)
        fn = next((edge[0] for edge in fn.next_functions if edge[0] is not None), None)
        depth -= 1
    return names


@pytest.mark.parametrize("case", CONV1D_CASES)
def test_conv1d_matches_torch_in_values_gradients_and_nodes(case):
    results = []
    for m in LIBRARIES:
        inputs, y = _conv1d_call(m, case)
        (y * m.arange(y.numel(), dtype=m.float64).reshape(y.shape)).sum().backward()
        grads = [None if t is None else t.grad.numpy() for t in inputs]
        results.append((y.detach().numpy(), grads, _names_down(y.grad_fn, 3)))
    (y, grads, names), (ty, tgrads, tnames) = results
    np.testing.assert_allclose(y, ty, rtol=1e-12, atol=1e-12)
    for ours, theirs in zip(grads, tgrads):
        assert (ours is None) == (theirs is None)
        if ours is not None:
            np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)
    if case == "same-even-kernel":
        # PyTorch pads the uneven side first (a ConstantPadNdBackward0 under the convolution);
        # autogradviz pads inside the one node, as its conv2d does
        assert names[0] == tnames[0] == "ConvolutionBackward0"
    else:
        assert names == tnames


@pytest.mark.parametrize("case", ["plain", "stride", "same-even-kernel", "dilation", "unbatched"])
def test_conv1d_passes_gradcheck(case):
    (x, w, b), _ = _conv1d_call(agv, case)
    kwargs = CONV1D_CASES[case][3]
    inputs = (x, w) if b is None else (x, w, b)
    assert agv.gradcheck(lambda *t: agv.nn.functional.conv1d(*t, **kwargs), inputs)


def test_conv1d_node_is_drawn_as_conv1d_and_conv2d_keeps_its_name():
    (x, w, b), y = _conv1d_call(agv, "plain")
    assert y.grad_fn.name() == "ConvolutionBackward0" and y.grad_fn.op == "conv1d"
    image = agv.nn.functional.conv2d(agv.randn(1, 2, 4, 4), agv.randn(3, 2, 2, 2, requires_grad=True))
    assert image.grad_fn.op == "conv2d" and type(image.grad_fn).op == "conv2d"
    source = agv.draw(y, names={"x": x, "w": w, "b": b, "y": y}).source
    assert "conv1d" in source and "conv2d" not in source


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"stride": 2, "padding": 1, "dilation": 2, "bias": False},
        {"padding": "same"},
        {"padding": "valid", "kernel_size": (2,)},
    ],
)
def test_conv1d_layer_matches_torch(kwargs):
    kwargs = {"kernel_size": 3, **kwargs}
    ours, theirs = agv.nn.Conv1d(3, 4, **kwargs), torch.nn.Conv1d(3, 4, **kwargs)
    assert repr(ours) == repr(theirs)
    assert [(n, tuple(p.shape)) for n, p in ours.named_parameters()] == [
        (n, tuple(p.shape)) for n, p in theirs.named_parameters()
    ]
    for name, p in theirs.named_parameters():
        dict(ours.named_parameters())[name].data = agv.tensor(p.detach().numpy())
    x, tx = _sequence(agv, (2, 3, 8)).float(), _sequence(torch, (2, 3, 8)).float()
    y, ty = ours(x), theirs(tx)
    assert y.dtype == agv.float32
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-5, atol=1e-6)
    y.sum().backward()
    ty.sum().backward()
    np.testing.assert_allclose(ours.weight.grad.numpy(), theirs.weight.grad.numpy(), rtol=1e-5, atol=1e-5)


def test_conv1d_initialisation_has_torchs_bounds():
    layer = agv.nn.Conv1d(2, 5, 4)
    bound = 1 / np.sqrt(2 * 4)  # U(-1/sqrt(fan_in), 1/sqrt(fan_in)), fan_in = in_channels * kernel_size
    assert np.abs(layer.weight.detach().numpy()).max() <= bound
    assert np.abs(layer.bias.detach().numpy()).max() <= bound


def _w(m):
    return m.ones(4, 3, 3, dtype=m.float64)


@pytest.mark.parametrize(
    "fn",
    [
        lambda m: m.nn.functional.conv1d(m.ones(2, 3, 7, 2, dtype=m.float64), _w(m)),
        lambda m: m.nn.functional.conv1d(m.ones(2, 2, 7, dtype=m.float64), _w(m)),
        lambda m: m.nn.functional.conv1d(m.ones(2, 3, 2, dtype=m.float64), _w(m)),
        lambda m: m.nn.functional.conv1d(m.ones(2, 3, 4, dtype=m.float64), _w(m), dilation=2),
        lambda m: m.nn.functional.conv1d(
            m.ones(2, 3, 7, dtype=m.float64), m.ones(4, 3, 3, 1, dtype=m.float64)
        ),
        lambda m: m.nn.functional.conv1d(m.ones(2, 3, 7, dtype=m.float64), _w(m), stride=(1, 2)),
        lambda m: m.nn.functional.conv1d(m.ones(2, 3, 7, dtype=m.float64), _w(m), padding="same", stride=2),
        lambda m: m.nn.Conv1d(3, 4, 3, padding="same", stride=2),
        lambda m: m.nn.Conv1d(3, 4, 3, groups=2),
        lambda m: m.nn.Conv1d(3, 4, 3)(m.ones(2, 3, 7, 2)),
    ],
)
def test_conv1d_errors_match_torch(fn):
    assert_raises_like_torch(fn)


def test_a_failed_conv1d_loses_nothing():
    layer = agv.nn.Conv1d(3, 4, 3)
    layer(agv.ones(2, 3, 7)).sum().backward()
    before = [p.grad.tolist() for p in layer.parameters()]
    with pytest.raises(RuntimeError):
        layer(agv.ones(2, 2, 7)).sum().backward()
    assert [p.grad.tolist() for p in layer.parameters()] == before


# 4. device= and dtype= on the layer constructors ----------------------------------------------------
# the arguments each layer needs, for every layer whose PyTorch constructor takes device= and dtype=
LAYER_ARGUMENTS = {
    "Linear": (2, 3),
    "LazyLinear": (3,),
    "Conv1d": (2, 3, 3),
    "Conv2d": (2, 3, 3),
    "BatchNorm1d": (3,),
    "Embedding": (5, 2),
}


def _layers_with_device_and_dtype_in_torch() -> list[str]:
    """autogradviz's nn classes whose namesake in torch.nn takes device= and dtype=."""
    names = []
    for name in dir(agv.nn):
        ours, theirs = getattr(agv.nn, name), getattr(torch.nn, name, None)
        if not (isinstance(ours, type) and isinstance(theirs, type) and issubclass(ours, agv.nn.Module)):
            continue
        parameters = inspect.signature(theirs.__init__).parameters
        if "device" in parameters and "dtype" in parameters:
            names.append(name)
    return sorted(names)


def test_every_layer_that_takes_device_and_dtype_in_torch_is_checked_here():
    assert _layers_with_device_and_dtype_in_torch() == sorted(LAYER_ARGUMENTS)


@pytest.mark.parametrize("name", sorted(LAYER_ARGUMENTS))
def test_layers_take_device_and_dtype_like_torch(name):
    ours = inspect.signature(getattr(agv.nn, name).__init__).parameters
    theirs = inspect.signature(getattr(torch.nn, name).__init__).parameters
    assert "device" in ours and "dtype" in ours
    # the same order as PyTorch's: device just before dtype
    assert list(ours).index("dtype") - list(ours).index("device") == 1
    assert list(theirs).index("dtype") - list(theirs).index("device") == 1

    def tensors(module):
        return [
            (n, str(t.dtype).split(".")[-1]) for n, t in [*module.named_parameters(), *module.named_buffers()]
        ]

    args = LAYER_ARGUMENTS[name]
    for device in ("cpu", "cpu:0", None, "device-object"):
        layer, reference = (
            getattr(m.nn, name)(
                *args, device=m.device("cpu") if device == "device-object" else device, dtype=m.float64
            )
            for m in LIBRARIES
        )
        assert tensors(layer) == tensors(reference)
        assert all(t.device == agv.device("cpu") for t in layer.parameters())
    default = getattr(agv.nn, name)(*args, device=agv.device("cpu"))
    assert tensors(default) == tensors(getattr(torch.nn, name)(*args, device=torch.device("cpu")))


@pytest.mark.parametrize("name", sorted(LAYER_ARGUMENTS))
def test_layers_refuse_a_device_they_cannot_use_like_torch(name):
    args = LAYER_ARGUMENTS[name]
    ours, theirs = (
        _raised(lambda: getattr(agv.nn, name)(*args, device="cuda")),
        _raised(lambda: getattr(torch.nn, name)(*args, device="cuda")),
    )
    assert theirs[0] == "AssertionError"
    with pytest.raises(AssertionError, match="^Torch not compiled with CUDA enabled"):
        getattr(agv.nn, name)(*args, device="cuda")
    assert ours[1].startswith(theirs[1])
    assert_raises_like_torch(lambda m: getattr(m.nn, name)(*args, device="banana"))


@pytest.mark.parametrize("name", ["Linear", "Conv1d", "Conv2d", "BatchNorm1d", "Embedding"])
def test_layers_with_an_integer_dtype_fail_like_torch(name):
    assert_raises_like_torch(lambda m: getattr(m.nn, name)(*LAYER_ARGUMENTS[name], dtype=m.int64))


def test_float64_layers_compute_in_float64_like_torch():
    results = []
    for m in LIBRARIES:
        m.manual_seed(0)
        model = m.nn.Sequential(
            m.nn.Conv1d(2, 3, 3, dtype=m.float64),
            m.nn.BatchNorm1d(3, dtype=m.float64),
            m.nn.Flatten(),
            m.nn.LazyLinear(4, dtype=m.float64),
        )
        y = model(m.ones(2, 2, 6, dtype=m.float64))
        results.append((str(y.dtype), tuple(y.shape), [str(p.dtype) for p in model.parameters()]))
    assert results[0] == results[1]


# 5. histogram ------------------------------------------------------------------------------------------
def _values(m, dtype="float32"):
    raw = np.array([1.0, 2.0, 1.0, 4.0, 2.5, 3.0, 3.25, 1.75, 0.5, 4.0])
    return m.tensor(raw, dtype=getattr(m, dtype))


def _wavy(m, dtype, n=1000):
    """Many values, none on an inner edge of equal-width bins: PyTorch's vectorised linspace
    and autogradviz's can differ in an inner edge's last bit (the end edges are exact in both)."""
    raw = np.sin(np.arange(n) * 0.37) * 7.3
    return m.tensor(raw, dtype=getattr(m, dtype))


HISTOGRAMS = {
    "bins-int": lambda m, d: m.histogram(_values(m, d), 4),
    "default-100-bins": lambda m, d: m.histogram(_wavy(m, d)),
    "many-bins": lambda m, d: m.histogram(_wavy(m, d), 37),
    "many-bins-range": lambda m, d: m.histogram(_wavy(m, d), 23, range=(-5.1, 6.7)),
    "range": lambda m, d: m.histogram(_values(m, d), 3, range=(0.0, 5.0)),
    "range-int-list": lambda m, d: m.histogram(_values(m, d), 2, range=[0, 3]),
    "range-cuts-values": lambda m, d: m.histogram(_values(m, d), 2, range=(1.5, 3.0)),
    "bin-edges": lambda m, d: m.histogram(_values(m, d), m.tensor([0.0, 1.5, 2.0, 5.0], dtype=getattr(m, d))),
    "bin-edges-method": lambda m, d: _values(m, d).histogram(m.tensor([1.0, 2.0, 3.0], dtype=getattr(m, d))),
    "weight": lambda m, d: m.histogram(_values(m, d), 3, weight=m.arange(10, dtype=getattr(m, d)) / 4),
    "weight-other-shape": lambda m, d: m.histogram(
        _values(m, d).reshape(2, 5), 3, weight=m.arange(10, dtype=getattr(m, d)).reshape(5, 2)
    ),
    "density": lambda m, d: m.histogram(_values(m, d), 4, density=True),
    "density-edges-weight": lambda m, d: m.histogram(
        _values(m, d),
        m.tensor([0.0, 1.5, 2.0, 5.0], dtype=getattr(m, d)),
        weight=m.arange(10, dtype=getattr(m, d)),
        density=True,
    ),
    "density-nothing-counted": lambda m, d: m.histogram(_values(m, d), 2, range=(10.0, 11.0), density=True),
    "all-equal": lambda m, d: m.histogram(m.ones(3, dtype=getattr(m, d)), 2),
    "range-of-one-point": lambda m, d: m.histogram(_values(m, d), 2, range=(1.0, 1.0)),
    "empty": lambda m, d: m.histogram(m.ones(0, dtype=getattr(m, d)), 3),
    "zero-d": lambda m, d: m.histogram(m.tensor(2.0, dtype=getattr(m, d)), 2),
    "two-d": lambda m, d: _values(m, d).reshape(2, 5).histogram(3),
    "inf-outside-range": lambda m, d: m.histogram(
        m.tensor([1.0, float("inf")], dtype=getattr(m, d)), 2, range=(0, 2)
    ),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", HISTOGRAMS)
def test_histogram_matches_torch(name, dtype):
    ours, theirs = (HISTOGRAMS[name](m, dtype) for m in LIBRARIES)
    assert type(ours).__name__ == type(theirs).__name__ == "histogram"
    for a, b in ((ours.hist, theirs.hist), (ours.bin_edges, theirs.bin_edges)):
        assert str(a.dtype) == str(b.dtype) and tuple(a.shape) == tuple(b.shape)
    # the edges to the last bit or two (see _wavy), the ends exactly; then the counts
    edges, their_edges = ours.bin_edges.numpy(), theirs.bin_edges.numpy()
    spread = np.abs(their_edges).max(initial=1.0)
    np.testing.assert_allclose(edges, their_edges, rtol=0, atol=4 * np.finfo(edges.dtype).eps * spread)
    assert edges[0] == their_edges[0] and edges[-1] == their_edges[-1]
    np.testing.assert_allclose(ours.hist.numpy(), theirs.hist.numpy(), rtol=1e-6, equal_nan=True)
    assert ours.hist is ours[0] and ours.bin_edges is ours[1]


def test_histogram_counts_each_value_once_and_the_right_edge_in_the_last_bin():
    x = agv.tensor([0.0, 1.0, 2.0, 3.0, 4.0, -1.0, 5.0])
    hist, edges = agv.histogram(x, agv.tensor([0.0, 1.0, 2.0, 4.0]))
    assert hist.tolist() == [1.0, 1.0, 3.0]  # 4.0 is the right edge: in the last bin; -1 and 5 are outside
    assert edges.tolist() == [0.0, 1.0, 2.0, 4.0]


def test_histogram_has_no_derivative_like_torch():
    for m in LIBRARIES:
        x = m.tensor([1.0, 2.0, 2.5], requires_grad=True)
        x.grad = m.ones(3)
        hist, edges = m.histogram(x, 2)
        assert hist.requires_grad and edges.requires_grad and type(hist.grad_fn).__name__ == "NotImplemented"
        with pytest.raises(RuntimeError, match="^derivative for aten::histogram is not implemented"):
            (hist.sum() + x.sum()).backward()
        assert x.grad.tolist() == [1.0, 1.0, 1.0]
        weighted = m.histogram(m.ones(3), 2, weight=m.ones(3, requires_grad=True))
        assert weighted.hist.requires_grad == weighted.bin_edges.requires_grad is True
    assert agv.histogram(agv.ones(2, requires_grad=True), 2).hist.grad_fn.op == "histogram"
    assert agv.tensor([7.0], requires_grad=True).__floordiv__(2).grad_fn.op == "//"


@pytest.mark.parametrize(
    "fn",
    [
        lambda m: m.histogram(m.tensor([1, 2]), 2),
        lambda m: m.histogram(_values(m), 0),
        lambda m: m.histogram(_values(m), -1),
        lambda m: m.histogram(_values(m), m.tensor([2.0])),
        lambda m: m.histogram(_values(m), 2, range=(3.25, 1.1)),
        lambda m: m.histogram(_values(m), 2, range=(0.0, 5.0, 1.0)),
        lambda m: m.histogram(_values(m), 2, range=(0.0, float("inf"))),
        lambda m: m.histogram(m.tensor([1.0, float("nan")]), 2),
        lambda m: m.histogram(m.tensor([1.0, float("inf")]), 2),
        lambda m: m.histogram(_values(m), 2, weight=m.ones(5)),
        lambda m: m.histogram(_values(m), 2, weight=m.ones(10, dtype=m.float64)),
        lambda m: m.histogram(_values(m), 2, weight=m.ones(10, dtype=m.int64)),
        lambda m: m.histogram(_values(m), m.tensor([0.0, 1.0], dtype=m.float64)),
        lambda m: m.histogram(_values(m), m.tensor([0, 1, 2])),
        lambda m: m.histogram(_values(m), m.ones(2, 2)),
    ],
)
def test_histogram_errors_match_torch(fn):
    assert_raises_like_torch(fn)


@pytest.mark.parametrize("bins", [2.5, True])
def test_histogram_with_bins_neither_int_nor_tensor_fails_like_torch(bins):
    assert_raises_like_torch(lambda m: m.histogram(_values(m), bins), length=60)
