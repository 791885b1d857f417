"""agv.nn.functional against PyTorch: forward values and the gradients of every
input, in float64 and float32, for many configurations of each op; gradcheck
of the new backward nodes; and the errors for bad input."""

from __future__ import annotations

import numpy as np
import pytest

import autogradviz as agv
import autogradviz.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional

pytestmark = [
    pytest.mark.filterwarnings("ignore::RuntimeWarning:autogradviz"),
    pytest.mark.filterwarnings("ignore:Using padding='same':UserWarning"),
]

TOL = {np.float64: {"rtol": 1e-9, "atol": 1e-10}, np.float32: {"rtol": 2e-4, "atol": 2e-5}}
DTYPES = [pytest.param(np.float64, id="float64"), pytest.param(np.float32, id="float32")]


def both(arrays: dict, grad: set):
    """The same arrays as autogradviz and torch tensors; those named in `grad` require grad."""
    ours = {k: agv.tensor(v, requires_grad=k in grad) if v is not None else None for k, v in arrays.items()}
    theirs = {
        k: torch.tensor(v, requires_grad=k in grad) if v is not None else None for k, v in arrays.items()
    }
    return ours, theirs


def check(fn_ours, fn_torch, arrays: dict, grad: set, dtype, seed: int = 0, tol=None):
    """Same output and same gradient of every input in `grad`, for a random upstream gradient."""
    tol = tol or TOL[dtype]
    ours, theirs = both(arrays, grad)
    out, expected = fn_ours(*ours.values()), fn_torch(*theirs.values())
    assert out.shape == tuple(expected.shape)
    assert out.dtype.name == str(expected.dtype).replace("torch.", "")
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy(), **tol)
    upstream = np.random.default_rng(seed).standard_normal(out.shape).astype(dtype)
    out.backward(agv.tensor(upstream))
    expected.backward(torch.tensor(upstream))
    for name in grad:
        assert ours[name].grad is not None, name
        np.testing.assert_allclose(ours[name].grad.numpy(), theirs[name].grad.numpy(), err_msg=name, **tol)


def randn(*shape, dtype=np.float64, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


# conv2d ---------------------------------------------------------------------------------------------
CONV_CASES = [
    # (N, C, H, W), (O, kh, kw), stride, padding, dilation, bias
    ((1, 1, 5, 5), (1, 3, 3), 1, 0, 1, True),
    ((2, 3, 8, 8), (4, 3, 3), 1, 1, 1, True),
    ((2, 3, 8, 7), (4, 3, 3), 2, 1, 1, True),
    ((3, 2, 9, 9), (5, 3, 3), 1, 0, 2, False),
    ((2, 3, 10, 9), (2, 2, 4), (2, 1), (1, 2), (2, 1), True),
    ((1, 4, 6, 11), (3, 1, 5), (1, 3), (0, 2), 1, True),
    ((2, 2, 7, 7), (3, 1, 1), 1, 0, 1, True),
    ((2, 2, 7, 7), (3, 7, 7), 1, 0, 1, True),
    ((1, 3, 12, 12), (2, 5, 3), 3, 2, (1, 3), False),
    ((4, 1, 6, 6), (2, 2, 2), 2, 0, 1, True),
    ((2, 3, 5, 6), (4, 3, 3), 1, "same", 1, True),
    ((2, 3, 6, 5), (4, 4, 2), 1, "same", (2, 1), True),
    ((2, 3, 6, 5), (4, 3, 3), 1, "valid", 1, True),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", CONV_CASES, ids=lambda c: f"{c[0]}-{c[1]}-s{c[2]}-p{c[3]}-d{c[4]}-b{c[5]}")
def test_conv2d_matches_torch(case, dtype):
    x_shape, (o, kh, kw), stride, padding, dilation, bias = case
    arrays = {
        "x": randn(*x_shape, dtype=dtype),
        "w": randn(o, x_shape[1], kh, kw, dtype=dtype, seed=1),
        "b": randn(o, dtype=dtype, seed=2) if bias else None,
    }
    grad = {"x", "w", "b"} if bias else {"x", "w"}
    check(
        lambda x, w, b: F.conv2d(x, w, b, stride, padding, dilation),
        lambda x, w, b: TF.conv2d(x, w, b, stride, padding, dilation),
        arrays,
        grad,
        dtype,
    )


def test_conv2d_unbatched_input_and_partial_gradients():
    x, w = randn(3, 6, 6), randn(2, 3, 3, 3, seed=1)
    # only the weight needs a gradient (the first layer of a network): x's is skipped
    check(
        lambda x, w: F.conv2d(x, w, padding=1),
        lambda x, w: TF.conv2d(x, w, padding=1),
        {"x": x, "w": w},
        {"w"},
        np.float64,
    )
    check(
        lambda x, w: F.conv2d(x, w, stride=2),
        lambda x, w: TF.conv2d(x, w, stride=2),
        {"x": x, "w": w},
        {"x"},
        np.float64,
    )


def test_conv2d_node_names_and_rules():
    x = agv.randn(1, 2, 5, 5, requires_grad=True)
    y = F.conv2d(x, agv.randn(3, 2, 3, 3, requires_grad=True), agv.zeros(3, requires_grad=True))
    assert y.grad_fn.name() == "ConvolutionBackward0"
    assert len(y.grad_fn.rules) == 3 and y.grad_fn.op == "conv2d"
    assert y.dtype == agv.float32
    assert F.max_pool2d(y, 2).grad_fn.name() == "MaxPool2DWithIndicesBackward0"
    assert F.avg_pool2d(y, 2).grad_fn.name() == "AvgPool2DBackward0"
    assert F.adaptive_avg_pool2d(y, 1).grad_fn.name() == "AdaptiveAvgPool2DBackward0"


def test_conv2d_double_backward_is_refused_clearly():
    x = agv.randn(1, 1, 4, 4, dtype=agv.float64, requires_grad=True)
    w = agv.randn(1, 1, 2, 2, dtype=agv.float64, requires_grad=True)
    y = F.conv2d(x, w).sum()
    with pytest.raises(NotImplementedError, match="double backward through conv2d is not supported"):
        agv.grad(y, x, create_graph=True)


# pooling --------------------------------------------------------------------------------------------
MAX_POOL_CASES = [
    # kernel, stride, padding, dilation, ceil_mode
    (2, None, 0, 1, False),
    (3, 1, 1, 1, False),
    (3, 2, 1, 1, True),
    ((3, 2), (2, 1), (1, 0), (1, 2), False),
    (3, 2, 1, 2, True),
    ((2, 4), (3, 2), (1, 2), 1, True),
    (4, 4, 0, 1, True),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", MAX_POOL_CASES, ids=str)
def test_max_pool2d_matches_torch(case, dtype):
    k, s, p, d, ceil = case
    check(
        lambda x: F.max_pool2d(x, k, s, p, d, ceil),
        lambda x: TF.max_pool2d(x, k, s, p, d, ceil),
        {"x": randn(2, 3, 11, 10, dtype=dtype)},
        {"x"},
        dtype,
    )
    ours = F.max_pool2d(agv.tensor(randn(2, 3, 11, 10)), k, s, p, d, ceil, return_indices=True)
    theirs = TF.max_pool2d(torch.tensor(randn(2, 3, 11, 10)), k, s, p, d, ceil, return_indices=True)
    np.testing.assert_array_equal(ours[1].numpy(), theirs[1].numpy())


def test_max_pool2d_ties_and_nan_like_torch():
    x = np.ones((1, 1, 4, 4))
    x[0, 0, 2, 3] = np.nan
    check(
        lambda x: F.max_pool2d(x, 2),
        lambda x: TF.max_pool2d(x, 2),
        {"x": x},
        {"x"},
        np.float64,
        tol={"rtol": 0, "atol": 0},
    )
    check(
        lambda x: F.max_pool2d(x, 3, 1),
        lambda x: TF.max_pool2d(x, 3, 1),
        {"x": np.zeros((1, 2, 5, 5))},
        {"x"},
        np.float64,
    )


AVG_POOL_CASES = [
    # kernel, stride, padding, ceil_mode, count_include_pad, divisor_override
    (2, None, 0, False, True, None),
    (3, 1, 1, False, True, None),
    (3, 2, 1, True, True, None),
    (3, 2, 1, True, False, None),
    ((3, 2), (2, 1), (1, 0), False, False, None),
    ((2, 4), (3, 2), (1, 2), True, False, None),
    (3, 2, 1, False, True, 5),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", AVG_POOL_CASES, ids=str)
def test_avg_pool2d_matches_torch(case, dtype):
    k, s, p, ceil, include, divisor = case
    check(
        lambda x: F.avg_pool2d(x, k, s, p, ceil, include, divisor),
        lambda x: TF.avg_pool2d(x, k, s, p, ceil, include, divisor),
        {"x": randn(2, 3, 11, 10, dtype=dtype)},
        {"x"},
        dtype,
    )


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "shape, size",
    [
        ((2, 3, 7, 7), (7, 7)),
        ((2, 3, 7, 9), 5),
        ((1, 2, 7, 9), (3, None)),
        ((1, 2, 4, 6), (10, 4)),
        ((2, 3, 14, 15), 1),
        ((3, 4, 6), 2),
    ],
    ids=str,
)
def test_adaptive_avg_pool2d_matches_torch(shape, size, dtype):
    check(
        lambda x: F.adaptive_avg_pool2d(x, size),
        lambda x: TF.adaptive_avg_pool2d(x, size),
        {"x": randn(*shape, dtype=dtype)},
        {"x"},
        dtype,
    )


# linear, activations, dropout, embedding, batch_norm ----------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("x_shape", [(4,), (3, 4), (2, 3, 4), (2, 1, 3, 4)], ids=str)
@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no-bias"])
def test_linear_matches_torch(x_shape, bias, dtype):
    arrays = {
        "x": randn(*x_shape, dtype=dtype),
        "w": randn(5, 4, dtype=dtype, seed=1),
        "b": randn(5, dtype=dtype, seed=2) if bias else None,
    }
    check(
        lambda x, w, b: F.linear(x, w, b),
        lambda x, w, b: TF.linear(x, w, b),
        arrays,
        {"x", "w", "b"} - ({"b"} if not bias else set()),
        dtype,
    )


@pytest.mark.parametrize("dtype", DTYPES)
def test_activations_match_torch(dtype):
    x = {"x": randn(3, 5, dtype=dtype)}
    for ours, theirs in [
        (F.relu, TF.relu),
        (F.sigmoid, torch.sigmoid),
        (F.tanh, torch.tanh),
        (lambda x: F.softmax(x, dim=1), lambda x: TF.softmax(x, dim=1)),
        (lambda x: F.log_softmax(x, dim=0), lambda x: TF.log_softmax(x, dim=0)),
    ]:
        check(ours, theirs, x, {"x"}, dtype)


def test_softmax_without_dim_warns_and_picks_torchs_dim():
    x = randn(2, 3)
    with pytest.warns(UserWarning, match="Implicit dimension choice"):
        ours = F.softmax(agv.tensor(x))
    with pytest.warns(UserWarning):
        theirs = TF.softmax(torch.tensor(x))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy())


def test_relu_inplace_overwrites_the_input_like_torch():
    x = randn(2, 3)
    a = agv.tensor(x, requires_grad=True)
    t = torch.tensor(x, requires_grad=True)
    h, th = a * 2, t * 2
    out, tout = F.relu(h, inplace=True), TF.relu(th, inplace=True)
    assert out is h and h.grad_fn.name() == "ReluBackward0" and h.version == 1
    np.testing.assert_array_equal(h.detach().numpy(), th.detach().numpy())
    out.sum().backward()
    tout.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), t.grad.numpy())


def test_dropout_training_masks_and_scales():
    agv.manual_seed(0)
    x = agv.ones(200, 100, requires_grad=True)
    y = F.dropout(x, p=0.3)
    values = np.unique(y.detach().numpy())
    np.testing.assert_allclose(values, [0, 1 / 0.7], rtol=1e-6)
    assert abs((y.detach().numpy() == 0).mean() - 0.3) < 0.02
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), y.detach().numpy())  # the gradient is the mask
    # reproducible, and seeded by agv.manual_seed
    agv.manual_seed(0)
    np.testing.assert_array_equal(F.dropout(agv.ones(200, 100), p=0.3).numpy(), y.detach().numpy())


def test_dropout_edge_cases():
    x = agv.randn(4, 5)
    assert F.dropout(x, 0.5, training=False) is x
    assert F.dropout(x, 0.0) is x
    assert not F.dropout(x, 1.0).numpy().any()
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        F.dropout(x, 1.5)


@pytest.mark.parametrize("padding_idx", [None, 2])
def test_embedding_matches_torch(padding_idx):
    table = randn(6, 3)
    indices = np.array([[0, 2, 5], [2, 2, 1]])
    ours, theirs = agv.tensor(table, requires_grad=True), torch.tensor(table, requires_grad=True)
    out = F.embedding(agv.tensor(indices), ours, padding_idx)
    expected = TF.embedding(torch.tensor(indices), theirs, padding_idx)
    np.testing.assert_array_equal(out.detach().numpy(), expected.detach().numpy())
    upstream = randn(2, 3, 3, seed=3)
    out.backward(agv.tensor(upstream))
    expected.backward(torch.tensor(upstream))
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-12)
    assert out.grad_fn.name() == "EmbeddingBackward0"


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(6, 4), (5, 4, 3)], ids=str)
@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
def test_batch_norm_matches_torch(shape, training, dtype):
    stats = [randn(4, dtype=dtype, seed=5), np.abs(randn(4, dtype=dtype, seed=6)) + 0.5]
    ours_stats = [agv.tensor(s) for s in stats]
    torch_stats = [torch.tensor(s) for s in stats]
    arrays = {
        "x": randn(*shape, dtype=dtype) * 3 + 1,
        "w": randn(4, dtype=dtype, seed=1),
        "b": randn(4, dtype=dtype, seed=2),
    }
    check(
        lambda x, w, b: F.batch_norm(x, *ours_stats, w, b, training, 0.2, 1e-3),
        lambda x, w, b: TF.batch_norm(x, *torch_stats, w, b, training, 0.2, 1e-3),
        arrays,
        {"x", "w", "b"},
        dtype,
    )
    for ours, theirs in zip(ours_stats, torch_stats):
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), **TOL[dtype])


def test_one_hot_matches_torch():
    labels = np.array([0, 3, 1])
    np.testing.assert_array_equal(
        F.one_hot(agv.tensor(labels)).numpy(), TF.one_hot(torch.tensor(labels)).numpy()
    )
    np.testing.assert_array_equal(
        F.one_hot(agv.tensor(labels), 5).numpy(), TF.one_hot(torch.tensor(labels), 5).numpy()
    )


# losses ---------------------------------------------------------------------------------------------
REDUCTIONS = ["mean", "sum", "none"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True], ids=["", "weighted"])
@pytest.mark.parametrize("ignore", [False, True], ids=["", "ignore_index"])
def test_cross_entropy_with_labels_matches_torch(reduction, weighted, ignore, dtype):
    labels = np.array([0, 3, 1, 4, 3, 2])
    if ignore:
        labels[[1, 4]] = -100
    arrays = {
        "x": randn(6, 5, dtype=dtype) * 2,
        "w": np.abs(randn(5, dtype=dtype, seed=1)) if weighted else None,
    }
    check(
        lambda x, w: F.cross_entropy(x, agv.tensor(labels), w, reduction=reduction),
        lambda x, w: TF.cross_entropy(x, torch.tensor(labels), w, reduction=reduction),
        arrays,
        {"x"},
        dtype,
    )


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_spatial_and_unbatched_match_torch(reduction):
    labels = np.random.default_rng(1).integers(0, 4, (2, 3, 5))
    check(
        lambda x: F.cross_entropy(x, agv.tensor(labels), reduction=reduction, ignore_index=2),
        lambda x: TF.cross_entropy(x, torch.tensor(labels), reduction=reduction, ignore_index=2),
        {"x": randn(2, 4, 3, 5)},
        {"x"},
        np.float64,
    )
    check(
        lambda x: F.cross_entropy(x, agv.tensor(3), reduction=reduction),
        lambda x: TF.cross_entropy(x, torch.tensor(3), reduction=reduction),
        {"x": randn(5)},
        {"x"},
        np.float64,
    )


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True], ids=["", "weighted"])
def test_cross_entropy_with_probabilities_matches_torch(reduction, weighted, dtype):
    probs = np.random.default_rng(2).dirichlet(np.ones(5), size=4).astype(dtype)
    arrays = {
        "x": randn(4, 5, dtype=dtype),
        "p": probs,
        "w": np.abs(randn(5, dtype=dtype, seed=1)) if weighted else None,
    }
    check(
        lambda x, p, w: F.cross_entropy(x, p, w, reduction=reduction),
        lambda x, p, w: TF.cross_entropy(x, p, w, reduction=reduction),
        arrays,
        {"x", "p"},
        dtype,
    )


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_nll_loss_matches_torch(reduction):
    labels = np.array([1, 0, 2, 2])
    check(
        lambda x, w: F.nll_loss(x, agv.tensor(labels), w, reduction=reduction),
        lambda x, w: TF.nll_loss(x, torch.tensor(labels), w, reduction=reduction),
        {"x": randn(4, 3), "w": np.array([0.2, 1.0, 3.0])},
        {"x"},
        np.float64,
    )


def test_cross_entropy_records_torchs_nodes():
    loss = F.cross_entropy(agv.randn(2, 3, requires_grad=True), agv.tensor([0, 2]))
    assert loss.grad_fn.name() == "NllLossBackward0"
    assert loss.grad_fn.next_functions[0][0].name() == "LogSoftmaxBackward0"


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True], ids=["", "weighted"])
def test_binary_cross_entropy_matches_torch(reduction, weighted, dtype):
    rng = np.random.default_rng(3)
    arrays = {
        "p": rng.uniform(0.05, 0.95, (4, 3)).astype(dtype),
        "y": rng.uniform(0, 1, (4, 3)).astype(dtype),
        "w": rng.uniform(0.5, 2, (3,)).astype(dtype) if weighted else None,
    }
    check(
        lambda p, y, w: F.binary_cross_entropy(p, y, w, reduction=reduction),
        lambda p, y, w: TF.binary_cross_entropy(p, y, w, reduction=reduction),
        arrays,
        {"p", "y"},
        dtype,
    )


def test_binary_cross_entropy_at_0_and_1_is_finite_like_torch():
    p, y = np.array([0.0, 1.0, 0.0, 1.0]), np.array([0.0, 1.0, 1.0, 0.0])
    ours = F.binary_cross_entropy(agv.tensor(p), agv.tensor(y), reduction="none")
    np.testing.assert_allclose(
        ours.numpy(), TF.binary_cross_entropy(torch.tensor(p), torch.tensor(y), reduction="none").numpy()
    )


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("pos_weight", [False, True], ids=["", "pos_weight"])
@pytest.mark.parametrize("weighted", [False, True], ids=["", "weighted"])
def test_binary_cross_entropy_with_logits_matches_torch(reduction, pos_weight, weighted, dtype):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((4, 3)).astype(dtype) * 4
    x[0, 0] = 0.0  # where relu/abs formulations get the gradient wrong
    arrays = {
        "x": x,
        "y": rng.uniform(0, 1, (4, 3)).astype(dtype),
        "w": rng.uniform(0.5, 2, (4, 1)).astype(dtype) if weighted else None,
        "pw": rng.uniform(0.5, 3, (3,)).astype(dtype) if pos_weight else None,
    }
    check(
        lambda x, y, w, pw: F.binary_cross_entropy_with_logits(x, y, w, reduction=reduction, pos_weight=pw),
        lambda x, y, w, pw: TF.binary_cross_entropy_with_logits(x, y, w, reduction=reduction, pos_weight=pw),
        arrays,
        {"x", "y"},
        dtype,
    )


def test_binary_cross_entropy_with_logits_is_stable_for_huge_logits():
    x, y = np.array([-1000.0, 1000.0, 80.0, -80.0]), np.array([1.0, 0.0, 1.0, 0.0])
    check(
        lambda x, y: F.binary_cross_entropy_with_logits(x, y, reduction="none"),
        lambda x, y: TF.binary_cross_entropy_with_logits(x, y, reduction="none"),
        {"x": x, "y": y},
        {"x"},
        np.float64,
    )


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_mse_loss_matches_torch(reduction, dtype):
    check(
        lambda a, b: F.mse_loss(a, b, reduction=reduction),
        lambda a, b: TF.mse_loss(a, b, reduction=reduction),
        {"a": randn(3, 4, dtype=dtype), "b": randn(3, 4, dtype=dtype, seed=1)},
        {"a", "b"},
        dtype,
    )


# gradcheck of the new nodes (float64, finite differences) ------------------------------------------------
def leaf(*shape, seed=0, low=None, high=None):
    rng = np.random.default_rng(seed)
    values = rng.standard_normal(shape) if low is None else rng.uniform(low, high, shape)
    return agv.tensor(values, dtype=agv.float64, requires_grad=True)


@pytest.mark.parametrize(
    "name, fn, inputs",
    [
        (
            "conv2d",
            lambda x, w, b: F.conv2d(x, w, b, stride=(2, 1), padding=1, dilation=(1, 2)),
            lambda: (leaf(2, 2, 5, 6), leaf(3, 2, 2, 3, seed=1), leaf(3, seed=2)),
        ),
        ("max_pool2d", lambda x: F.max_pool2d(x, 3, 2, 1, ceil_mode=True), lambda: (leaf(2, 2, 6, 7),)),
        (
            "avg_pool2d",
            lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
            lambda: (leaf(1, 2, 6, 7),),
        ),
        ("adaptive_avg_pool2d", lambda x: F.adaptive_avg_pool2d(x, (3, 4)), lambda: (leaf(1, 2, 5, 7),)),
        ("linear", F.linear, lambda: (leaf(2, 3, 4), leaf(5, 4, seed=1), leaf(5, seed=2))),
        ("embedding", lambda w: F.embedding(agv.tensor([[1, 0], [3, 1]]), w), lambda: (leaf(4, 3),)),
        ("cross_entropy", lambda x: F.cross_entropy(x, agv.tensor([2, 0, -100, 1])), lambda: (leaf(4, 3),)),
        (
            "cross_entropy_probs",
            lambda x, p: F.cross_entropy(x, p),
            lambda: (leaf(4, 3), leaf(4, 3, seed=1, low=0, high=1)),
        ),
        (
            "nll_loss_none",
            lambda x: F.nll_loss(x, agv.tensor([2, 0, 1]), reduction="none"),
            lambda: (leaf(3, 3),),
        ),
        (
            "binary_cross_entropy",
            F.binary_cross_entropy,
            lambda: (leaf(3, 2, low=0.1, high=0.9), leaf(3, 2, seed=1, low=0, high=1)),
        ),
        (
            "bce_with_logits",
            lambda x, y: F.binary_cross_entropy_with_logits(
                x, y, pos_weight=agv.tensor([2.0, 0.5], dtype=agv.float64)
            ),
            lambda: (leaf(3, 2), leaf(3, 2, seed=1, low=0, high=1)),
        ),
        (
            "batch_norm",
            lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True),
            lambda: (leaf(5, 3), leaf(3, seed=1), leaf(3, seed=2)),
        ),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_gradcheck(name, fn, inputs):
    assert agv.gradcheck(fn, inputs())


@pytest.mark.parametrize(
    "ours, theirs, arrays",
    [
        (
            lambda x: F.adaptive_avg_pool2d(x, 2),
            lambda x: TF.adaptive_avg_pool2d(x, 2),
            lambda: [randn(1, 1, 3, 5)],
        ),
        (F.linear, TF.linear, lambda: [randn(2, 3), randn(2, 3, seed=1), randn(2, seed=2)]),
        (
            lambda x: F.cross_entropy(x, agv.tensor([2, 0])),
            lambda x: TF.cross_entropy(x, torch.tensor([2, 0])),
            lambda: [randn(2, 3)],
        ),
        (
            lambda x, p: F.cross_entropy(x, p, reduction="sum"),
            lambda x, p: TF.cross_entropy(x, p, reduction="sum"),
            lambda: [randn(2, 3), np.random.default_rng(1).uniform(0, 1, (2, 3))],
        ),
        (
            F.binary_cross_entropy_with_logits,
            TF.binary_cross_entropy_with_logits,
            lambda: [randn(3), np.random.default_rng(1).uniform(0, 1, 3)],
        ),
        (
            lambda x, y: F.binary_cross_entropy_with_logits(
                x, y, pos_weight=agv.tensor([2.0, 0.5, 1.0], dtype=agv.float64)
            ),
            lambda x, y: TF.binary_cross_entropy_with_logits(
                x, y, pos_weight=torch.tensor([2.0, 0.5, 1.0], dtype=torch.float64)
            ),
            lambda: [randn(3), np.random.default_rng(1).uniform(0, 1, 3)],
        ),
        (
            F.binary_cross_entropy,
            TF.binary_cross_entropy,
            lambda: [
                np.random.default_rng(2).uniform(0.1, 0.9, 3),
                np.random.default_rng(1).uniform(0, 1, 3),
            ],
        ),
    ],
    ids=[
        "adaptive_avg_pool2d",
        "linear",
        "cross_entropy",
        "cross_entropy_probs",
        "bce_logits",
        "bce_logits_pos_weight",
        "bce",
    ],
)
def test_double_backward_matches_torch(ours, theirs, arrays):
    """The nodes whose formulas are written with `m` support create_graph: the
    gradient is itself differentiable."""
    values = arrays()
    xs = [agv.tensor(v, requires_grad=True) for v in values]
    ts = [torch.tensor(v, requires_grad=True) for v in values]
    # cubed, so that even a linear op's gradient depends on its inputs
    grads = agv.grad((ours(*xs) ** 3).sum(), xs, create_graph=True)
    torch_grads = torch.autograd.grad((theirs(*ts) ** 3).sum(), ts, create_graph=True)
    sum(((g * g).sum() for g in grads), agv.tensor(0.0, dtype=agv.float64)).backward()
    sum((g * g).sum() for g in torch_grads).backward()
    for x, t in zip(xs, ts):
        np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-8, atol=1e-12)


# errors ---------------------------------------------------------------------------------------------
def test_cross_entropy_label_out_of_range_names_label_and_classes():
    with pytest.raises(
        IndexError,
        match=r"Target 1000 is out of bounds: the input has 1000 classes, so class labels must be in \[0, 999\]",
    ):
        F.cross_entropy(agv.randn(2, 1000), agv.tensor([3, 1000]))
    with pytest.raises(IndexError, match="Target -1 is out of bounds"):
        F.cross_entropy(agv.randn(2, 5), agv.tensor([-1, 0]))


def test_cross_entropy_wrong_target_shape():
    with pytest.raises(  # PyTorch: RuntimeError for a target with too many dims
        RuntimeError,
        match=r"input of shape \(4, 3\), expected class-index target of shape \(4,\), got \(4, 1\); a column of labels can be flattened with target.reshape\(-1\)",
    ):
        F.cross_entropy(agv.randn(4, 3), agv.tensor([[0], [1], [2], [0]]))
    with pytest.raises(ValueError, match=r"expected class-index target of shape \(4,\), got \(3,\)"):
        F.cross_entropy(agv.randn(4, 3), agv.tensor([0, 1, 2]))
    with pytest.raises(
        RuntimeError,
        match=r"expected target dtype to be Long .* for class probabilities, pass a float target of the input's shape \(4, 3\)",
    ):
        F.cross_entropy(agv.randn(4, 3), agv.tensor([0.0, 1.0, 2.0, 0.0]))


def test_binary_losses_refuse_mismatched_shapes_and_bad_values():
    with pytest.raises(
        ValueError,
        match=r"binary_cross_entropy: target of shape \(4,\) must have the same shape as the input \(4, 1\)",
    ):
        F.binary_cross_entropy(agv.rand(4, 1), agv.rand(4))
    with pytest.raises(
        ValueError, match=r"binary_cross_entropy_with_logits: target of shape \(4, 1\) .* \(4,\)"
    ):
        F.binary_cross_entropy_with_logits(agv.randn(4), agv.rand(4, 1))
    with pytest.raises(ValueError, match=r"mse_loss: target of shape \(3, 1\)"):
        F.mse_loss(agv.randn(3), agv.randn(3, 1))
    with pytest.raises(RuntimeError, match="all elements of input should be between 0 and 1"):
        F.binary_cross_entropy(agv.tensor([0.5, 1.5]), agv.tensor([0.0, 1.0]))
    with pytest.raises(RuntimeError, match=r"target must be a float tensor .* target.float\(\)"):
        F.binary_cross_entropy(agv.tensor([0.5, 0.5]), agv.tensor([0, 1]))
    with pytest.raises(ValueError, match="banana is not a valid value for reduction"):
        F.mse_loss(agv.randn(3), agv.randn(3), reduction="banana")


def test_conv_and_pool_errors_name_the_shapes():
    with pytest.raises(
        RuntimeError,
        match=r"conv2d: expected input with 3 channels, shape \(N, 3, H, W\), got shape \(1, 4, 8, 8\)",
    ):
        F.conv2d(agv.randn(1, 4, 8, 8), agv.randn(2, 3, 3, 3))
    with pytest.raises(RuntimeError, match=r"conv2d: expected a 4-D input .* got shape \(8, 8\)"):
        F.conv2d(agv.randn(8, 8), agv.randn(2, 3, 3, 3))
    with pytest.raises(
        RuntimeError, match=r"input of shape \(1, 3, 2, 2\) is too small for kernel_size \(3, 3\)"
    ):
        F.conv2d(agv.randn(1, 3, 2, 2), agv.randn(2, 3, 3, 3))
    with pytest.raises(RuntimeError, match="input dtype torch.float64 and weight dtype torch.float32 differ"):
        F.conv2d(agv.randn(1, 3, 5, 5, dtype=agv.float64), agv.randn(2, 3, 3, 3))
    with pytest.raises(NotImplementedError, match="groups=2 is not supported"):
        F.conv2d(agv.randn(1, 4, 5, 5), agv.randn(2, 2, 3, 3), groups=2)
    with pytest.raises(
        RuntimeError,
        match="pad should be at most half of effective kernel size, but got pad=2, kernel_size=2",
    ):
        F.max_pool2d(agv.randn(1, 1, 5, 5), 2, padding=2)
    with pytest.raises(
        RuntimeError,
        match=r"linear: expected input with last dimension 4 \(weight has shape \(2, 4\)\), got shape \(2, 3\)",
    ):
        F.linear(agv.randn(2, 3), agv.randn(2, 4))
    with pytest.raises(IndexError, match=r"embedding: index 7 is out of range for a table of 5 rows"):
        F.embedding(agv.tensor([1, 7]), agv.randn(5, 2))
