"""Errors of nn's functions a learner can read (issue "Hardening", items 2 and 4).

A bad argument to conv2d, the pools, linear or a loss used to reach numpy,
which failed with a message about its own internals (ZeroDivisionError, "slice
step cannot be zero", "operands could not be broadcast") or, worse, returned a
result. Each case runs on both libraries and pins:
- our exact message, which names the op, the argument and the shapes;
- our class, which must be the one torch raises;
- torch's own words, where ours copy them (None where torch's are not clear).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import autogradviz as agv

torch = pytest.importorskip("torch")

# torch's own warning when it constructs a layer with a 0-sized weight (the cases below do, on purpose)
pytestmark = pytest.mark.filterwarnings("ignore:Initializing zero-element tensors is a no-op")


def F(m):  # noqa: N802 - the conventional name of nn.functional
    return m.nn.functional


X = (2, 3, 5, 5)  # the input of the conv and pool cases
W = (4, 3, 3, 3)  # the conv weight
SHAPES = "for input of shape (2, 3, 5, 5) and weight of shape (4, 3, 3, 3)"
BCE_INPUT_HINT = "; for raw scores (logits) use binary_cross_entropy_with_logits"
BCE_TARGET_HINT = "; a target is a probability, usually the label 0 or 1"

# (id, call on m = agv or torch, torch's words that ours contain or None, our exact message)
CASES = [
    # conv2d -----------------------------------------------------------------------------------------
    (
        "conv2d stride 0",
        lambda m: F(m).conv2d(m.ones(*X), m.ones(*W), stride=0),
        "non-positive stride is not supported",
        f"conv2d: non-positive stride is not supported, but got stride=(0, 0) {SHAPES}",
    ),
    (
        "conv2d stride (1, 0)",
        lambda m: F(m).conv2d(m.ones(*X), m.ones(*W), stride=(1, 0)),
        "non-positive stride is not supported",
        f"conv2d: non-positive stride is not supported, but got stride=(1, 0) {SHAPES}",
    ),
    (
        "conv2d padding -1",
        lambda m: F(m).conv2d(m.ones(*X), m.ones(*W), padding=-1),
        "negative padding is not supported",
        f"conv2d: negative padding is not supported, but got padding=(-1, -1) {SHAPES}",
    ),
    (
        "conv2d dilation 0",
        lambda m: F(m).conv2d(m.ones(*X), m.ones(*W), dilation=0),
        "non-positive dilation is not supported",
        f"conv2d: non-positive dilation is not supported, but got dilation=(0, 0) {SHAPES}",
    ),
    (
        # torch: "weight should have at least three dimensions" (a 3-D one then fails as a conv1d)
        "conv2d 2-D weight",
        lambda m: F(m).conv2d(m.ones(*X), m.ones(4, 3)),
        None,
        "conv2d: weight should have 4 dimensions (out_channels, in_channels, kH, kW), but got weight "
        "of shape (4, 3) (input of shape (2, 3, 5, 5))",
    ),
    (
        "conv2d bias of the wrong length",
        lambda m: F(m).conv2d(m.ones(*X), m.ones(*W), m.ones(5)),
        "expected bias to be 1-dimensional with 4 elements",
        "conv2d: Given weight of shape (4, 3, 3, 3), expected bias to be 1-dimensional with 4 elements "
        "(one per output channel), but got bias of shape (5,) instead",
    ),
    (
        "conv2d bias of shape (4, 1)",
        lambda m: F(m).conv2d(m.ones(*X), m.ones(*W), m.ones(4, 1)),
        "expected bias to be 1-dimensional with 4 elements",
        "conv2d: Given weight of shape (4, 3, 3, 3), expected bias to be 1-dimensional with 4 elements "
        "(one per output channel), but got bias of shape (4, 1) instead",
    ),
    (
        # torch 2.13 raises here, it does not return an empty (N, 0, H, W) output
        "conv2d 0 output channels",
        lambda m: F(m).conv2d(m.ones(*X), m.ones(0, 3, 3, 3)),
        "Given groups=1, expected weight to be at least 1 at dimension 0",
        "conv2d: Given groups=1, expected weight to be at least 1 at dimension 0 (out_channels), but got "
        "weight of shape (0, 3, 3, 3) instead (input of shape (2, 3, 5, 5))",
    ),
    (
        # torch fails inside oneDNN ("could not create a primitive descriptor ..."): its class, our words
        "conv2d 0x0 kernel",
        lambda m: F(m).conv2d(m.ones(*X), m.ones(4, 3, 0, 0)),
        None,
        "conv2d: kernel size should be greater than zero, but got a 0x0 kernel: weight of shape "
        "(4, 3, 0, 0) for input of shape (2, 3, 5, 5)",
    ),
    (
        "conv2d input channels not matching the weight's",
        lambda m: F(m).conv2d(m.ones(*X), m.ones(4, 2, 3, 3)),
        None,  # torch: "Given groups=1, weight of size [4, 2, 3, 3], expected input[2, 3, 5, 5] to have 2 channels, ..."
        "conv2d: expected input with 2 channels, shape (N, 2, H, W), got shape (2, 3, 5, 5) (3 channels): "
        "the weight of shape (4, 2, 3, 3) is (out_channels, in_channels, kH, kW)",
    ),
    (
        "conv2d input smaller than the kernel",
        lambda m: F(m).conv2d(m.ones(2, 3, 2, 2), m.ones(*W)),
        "Calculated padded input size per channel: (2 x 2). Kernel size: (3 x 3). "
        "Kernel size can't be greater than actual input size",
        "conv2d: input of shape (2, 3, 2, 2) is too small for kernel_size (3, 3): Calculated padded input "
        "size per channel: (2 x 2). Kernel size: (3 x 3). Kernel size can't be greater than actual input size",
    ),
    (
        "conv2d input smaller than the dilated kernel",
        lambda m: F(m).conv2d(m.ones(*X), m.ones(*W), dilation=3),
        "Kernel size: (7 x 7)",
        "conv2d: input of shape (2, 3, 5, 5) is too small for kernel_size (3, 3) and dilation (3, 3): "
        "Calculated padded input size per channel: (5 x 5). Kernel size: (7 x 7). Kernel size can't be "
        "greater than actual input size",
    ),
    (
        "nn.Conv2d stride 0, at the call (both libraries construct it)",
        lambda m: m.nn.Conv2d(3, 4, 3, stride=0)(m.ones(*X)),
        "non-positive stride is not supported",
        f"Conv2d(3, 4, kernel_size=(3, 3), stride=(0, 0)): non-positive stride is not supported, but got "
        f"stride=(0, 0) {SHAPES}",
    ),
    (
        "nn.Conv2d padding -1, at the call",
        lambda m: m.nn.Conv2d(3, 4, 3, padding=-1)(m.ones(*X)),
        "negative padding is not supported",
        f"Conv2d(3, 4, kernel_size=(3, 3), stride=(1, 1), padding=(-1, -1)): negative padding is not "
        f"supported, but got padding=(-1, -1) {SHAPES}",
    ),
    (
        "nn.Conv2d 0 output channels, at the call",
        lambda m: m.nn.Conv2d(3, 0, 3)(m.ones(*X)),
        "expected weight to be at least 1 at dimension 0",
        "Conv2d(3, 0, kernel_size=(3, 3), stride=(1, 1)): Given groups=1, expected weight to be at least 1 "
        "at dimension 0 (out_channels), but got weight of shape (0, 3, 3, 3) instead (input of shape "
        "(2, 3, 5, 5))",
    ),
    # max_pool2d (avg_pool2d shares the checks) ------------------------------------------------------
    (
        # torch says "stride should not be zero" here: the stride defaults to the kernel size, which
        # blames an argument the learner never passed; ours names the kernel
        "max_pool2d kernel 0",
        lambda m: F(m).max_pool2d(m.ones(*X), 0),
        None,
        "max_pool2d: kernel size should be greater than zero, but got kernel_size=(0, 0) for input of "
        "shape (2, 3, 5, 5)",
    ),
    (
        "max_pool2d kernel 0, stride 1",
        lambda m: F(m).max_pool2d(m.ones(*X), 0, stride=1),
        "kernel size should be greater than zero",
        "max_pool2d: kernel size should be greater than zero, but got kernel_size=(0, 0) for input of "
        "shape (2, 3, 5, 5)",
    ),
    (
        "max_pool2d stride 0",
        lambda m: F(m).max_pool2d(m.ones(*X), 2, stride=0),
        None,  # torch: "stride should not be zero"; for a negative stride "stride should be greater than zero"
        "max_pool2d: stride should be greater than zero, but got stride=(0, 0) for input of shape (2, 3, 5, 5)",
    ),
    (
        "max_pool2d padding larger than half the kernel",
        lambda m: F(m).max_pool2d(m.ones(*X), 2, padding=2),
        "pad should be at most half of effective kernel size, but got pad=2, kernel_size=2 and dilation=1",
        "max_pool2d: pad should be at most half of effective kernel size, but got pad=2, kernel_size=2 "
        "and dilation=1 for input of shape (2, 3, 5, 5)",
    ),
    (
        # within half the dilated kernel (5 // 2), not within half the kernel (3 // 2): torch checks both
        "max_pool2d padding larger than half the undilated kernel",
        lambda m: F(m).max_pool2d(m.ones(1, 1, 9, 9), 3, dilation=2, padding=2),
        "pad should be smaller than or equal to half of kernel size",
        "max_pool2d: pad should be smaller than or equal to half of kernel size, but got padding=(2, 2) "
        "and kernel_size=(3, 3) for input of shape (1, 1, 9, 9)",
    ),
    (
        "max_pool2d padding -1",
        lambda m: F(m).max_pool2d(m.ones(*X), 2, padding=-1),
        "pad must be non-negative",
        "max_pool2d: pad must be non-negative, but got padding=(-1, -1) for input of shape (2, 3, 5, 5)",
    ),
    (
        "max_pool2d dilation 0",  # used to return a wrong result silently
        lambda m: F(m).max_pool2d(m.ones(*X), 2, dilation=0),
        "dilation should be greater than zero",
        "max_pool2d: dilation should be greater than zero, but got dilation=(0, 0) for input of shape "
        "(2, 3, 5, 5)",
    ),
    (
        "avg_pool2d stride 0",
        lambda m: F(m).avg_pool2d(m.ones(*X), 2, stride=0),
        None,
        "avg_pool2d: stride should be greater than zero, but got stride=(0, 0) for input of shape (2, 3, 5, 5)",
    ),
    (
        "nn.MaxPool2d kernel 0, at the call (both libraries construct it)",
        lambda m: m.nn.MaxPool2d(0)(m.ones(*X)),
        None,
        "MaxPool2d(kernel_size=0, stride=0, padding=0, dilation=1, ceil_mode=False): kernel size should be "
        "greater than zero, but got kernel_size=(0, 0) for input of shape (2, 3, 5, 5)",
    ),
    # linear -----------------------------------------------------------------------------------------
    (
        # torch: "The expanded size of the tensor (4) must match the existing size (5) at non-singleton
        # dimension 1.  Target sizes: [2, 4].  Tensor sizes: [5]"
        "linear bias of the wrong length",
        lambda m: F(m).linear(m.ones(2, 3), m.ones(4, 3), m.ones(5)),
        None,
        "linear: expected bias of shape (4,), one per output feature (weight of shape (4, 3)), got bias of "
        "shape (5,), which does not broadcast to the output's shape (2, 4) (input of shape (2, 3))",
    ),
    (
        "linear bias that would broadcast the output larger",
        lambda m: F(m).linear(m.ones(3), m.ones(4, 3), m.ones(2, 4)),
        None,
        "linear: expected bias of shape (4,), one per output feature (weight of shape (4, 3)), got bias of "
        "shape (2, 4), which does not broadcast to the output's shape (4,) (input of shape (3,))",
    ),
    # losses -----------------------------------------------------------------------------------------
    (
        "cross_entropy weight too short",
        lambda m: F(m).cross_entropy(m.ones(2, 3), m.tensor([0, 2]), weight=m.ones(2)),
        "weight tensor should be defined either for all 3 classes or no classes",
        "cross_entropy: weight tensor should be defined either for all 3 classes or no classes but got "
        "weight tensor of shape: (2,) (input of shape (2, 3), classes in dim 1)",
    ),
    (
        "cross_entropy weight too long",  # used to be read in part, silently
        lambda m: F(m).cross_entropy(m.ones(2, 3), m.tensor([0, 2]), weight=m.ones(4)),
        "weight tensor should be defined either for all 3 classes or no classes",
        "cross_entropy: weight tensor should be defined either for all 3 classes or no classes but got "
        "weight tensor of shape: (4,) (input of shape (2, 3), classes in dim 1)",
    ),
    (
        "cross_entropy weight too short, probability targets",
        lambda m: F(m).cross_entropy(m.ones(2, 3), m.ones(2, 3) / 3, weight=m.ones(2)),
        "cross_entropy: weight tensor should be defined either for all 3 classes or no classes",
        "cross_entropy: weight tensor should be defined either for all 3 classes or no classes but got "
        "weight tensor of shape: (2,) (input of shape (2, 3), classes in dim 1)",
    ),
    (
        "cross_entropy weight checked before the targets, as in torch",
        lambda m: F(m).cross_entropy(m.ones(2, 3), m.tensor([0, 7]), weight=m.ones(2)),
        "weight tensor should be defined either for all 3 classes or no classes",
        "cross_entropy: weight tensor should be defined either for all 3 classes or no classes but got "
        "weight tensor of shape: (2,) (input of shape (2, 3), classes in dim 1)",
    ),
    (
        "nll_loss weight too short",
        lambda m: F(m).nll_loss(m.ones(2, 3), m.tensor([0, 2]), weight=m.ones(2)),
        "weight tensor should be defined either for all 3 classes or no classes",
        "nll_loss: weight tensor should be defined either for all 3 classes or no classes but got "
        "weight tensor of shape: (2,) (input of shape (2, 3), classes in dim 1)",
    ),
    (
        "nll_loss weight too short, unbatched",
        lambda m: F(m).nll_loss(m.ones(3), m.tensor(0), weight=m.ones(2)),
        "weight tensor should be defined either for all 3 classes or no classes",
        "nll_loss: weight tensor should be defined either for all 3 classes or no classes but got "
        "weight tensor of shape: (2,) (input of shape (3,), classes in dim 0)",
    ),
    (
        "binary_cross_entropy target above 1",  # torch 2.13 checks the target too
        lambda m: F(m).binary_cross_entropy(m.tensor([0.25, 0.75]), m.tensor([0.0, 1.5])),
        "all elements of target should be between 0 and 1",
        "binary_cross_entropy: all elements of target should be between 0 and 1, but target of shape (2,) "
        f"has 1.5 at index (1,){BCE_TARGET_HINT}",
    ),
    (
        "binary_cross_entropy target below 0",
        lambda m: F(m).binary_cross_entropy(m.tensor([[0.25, 0.75]]), m.tensor([[-1.0, 0.0]])),
        "all elements of target should be between 0 and 1",
        "binary_cross_entropy: all elements of target should be between 0 and 1, but target of shape (1, 2) "
        f"has -1 at index (0, 0){BCE_TARGET_HINT}",
    ),
    (
        "binary_cross_entropy NaN target",
        lambda m: F(m).binary_cross_entropy(m.tensor([0.25, 0.75]), m.tensor([float("nan"), 1.0])),
        "all elements of target should be between 0 and 1",
        "binary_cross_entropy: all elements of target should be between 0 and 1, but target of shape (2,) "
        f"has nan at index (0,){BCE_TARGET_HINT}",
    ),
    (
        "binary_cross_entropy NaN input",  # NaN fails every comparison: it used to pass the range check
        lambda m: F(m).binary_cross_entropy(m.tensor([0.25, float("nan")]), m.tensor([0.0, 1.0])),
        "all elements of input should be between 0 and 1",
        "binary_cross_entropy: all elements of input should be between 0 and 1, but input of shape (2,) "
        f"has nan at index (1,){BCE_INPUT_HINT}",
    ),
    (
        "binary_cross_entropy input checked before the target, as in torch",
        lambda m: F(m).binary_cross_entropy(m.tensor([1.5]), m.tensor([2.0])),
        "all elements of input should be between 0 and 1",
        "binary_cross_entropy: all elements of input should be between 0 and 1, but input of shape (1,) "
        f"has 1.5 at index (0,){BCE_INPUT_HINT}",
    ),
    (
        "nn.BCELoss NaN input",
        lambda m: m.nn.BCELoss()(m.tensor([float("nan")]), m.tensor([1.0])),
        "all elements of input should be between 0 and 1",
        "binary_cross_entropy: all elements of input should be between 0 and 1, but input of shape (1,) "
        f"has nan at index (0,){BCE_INPUT_HINT}",
    ),
]


def _raised(fn, m) -> BaseException:
    with pytest.raises(Exception) as info:  # noqa: PT011 - the class is compared with torch's below
        fn(m)
    return info.value


@pytest.mark.parametrize(("fn", "torch_words", "message"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_error_names_op_argument_and_shapes_with_torchs_class(fn, torch_words, message):
    theirs, ours = _raised(fn, torch), _raised(fn, agv)
    assert type(ours) is type(theirs), f"torch raises {type(theirs).__name__}: {theirs}"
    assert str(ours) == message
    if torch_words is not None:
        assert torch_words in str(theirs), f"torch's words changed: {theirs}"
        assert torch_words in str(ours)


def test_the_messages_leak_no_numpy():
    words = re.compile(r"numpy|ndarray|broadcast input array|slice step|window_shape|division by zero")
    for name, fn, _, _ in CASES:
        assert not words.search(str(_raised(fn, agv))), name


# what must keep working: what torch accepts ---------------------------------------------------------
ACCEPTED = {
    "linear bias of shape (1,), broadcast": lambda m: F(m).linear(m.ones(2, 3), m.ones(4, 3), m.ones(1)),
    "linear bias of the output's shape": lambda m: F(m).linear(m.ones(2, 3), m.ones(4, 3), m.ones(2, 4)),
    "linear 0-d bias": lambda m: F(m).linear(m.ones(2, 3), m.ones(4, 3), m.tensor(1.0)),
    "conv2d empty batch": lambda m: F(m).conv2d(m.ones(0, 3, 5, 5), m.ones(*W), m.ones(4)),
    "conv2d padding makes it fit": lambda m: F(m).conv2d(m.ones(2, 3, 2, 2), m.ones(*W), padding=1),
    "max_pool2d pad within both halves": lambda m: F(m).max_pool2d(
        m.ones(1, 1, 9, 9), 3, dilation=2, padding=1
    ),
    "binary_cross_entropy at 0 and 1": lambda m: F(m).binary_cross_entropy(
        m.tensor([0.0, 1.0, 0.0]), m.tensor([0.0, 1.0, 1.0])
    ),
    "cross_entropy weight per class": lambda m: F(m).cross_entropy(
        m.ones(2, 3), m.tensor([0, 2]), weight=m.ones(3)
    ),
    "cross_entropy weight per class, (N, C, d)": lambda m: F(m).cross_entropy(
        m.ones(2, 3, 4), m.zeros(2, 4, dtype=m.int64), weight=m.ones(3)
    ),
}


@pytest.mark.filterwarnings("error")  # and quietly: no numpy RuntimeWarning at p = 0 or 1 either
@pytest.mark.parametrize("fn", ACCEPTED.values(), ids=ACCEPTED.keys())
def test_what_torch_accepts_still_works(fn):
    ours, theirs = fn(agv), fn(torch)
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-6)


@pytest.mark.parametrize(
    "make",
    [
        lambda m: m.nn.Conv2d(3, 4, 3, stride=0),
        lambda m: m.nn.Conv2d(3, 4, 3, padding=-1),
        lambda m: m.nn.Conv2d(3, 4, 3, dilation=0),
        lambda m: m.nn.Conv2d(3, 0, 3),
        lambda m: m.nn.MaxPool2d(0),
    ],
)
def test_layers_with_bad_settings_construct_and_fail_at_the_call_as_in_torch(make):
    make(torch), make(agv)


def test_conv2d_layer_with_a_zero_kernel_constructs_then_names_the_kernel():
    # PyTorch warns and constructs the layer; the call then fails on the 0x0 kernel
    with pytest.warns(UserWarning, match="^Initializing zero-element tensors is a no-op$"):
        torch.nn.Conv2d(3, 4, 0)
    with pytest.warns(UserWarning, match="^Initializing zero-element tensors is a no-op$"):
        layer = agv.nn.Conv2d(3, 4, 0)
    assert layer.weight.shape == (4, 3, 0, 0)
    with pytest.raises(RuntimeError, match="kernel size should be greater than zero, but got a 0x0 kernel"):
        layer(agv.ones(1, 3, 5, 5))


@pytest.mark.parametrize("bias_shape", [(4,), (1,), (), (5, 4), (2, 5, 4)])
def test_linear_gradients_with_a_broadcast_bias_match_torch(bias_shape):
    """A bias that broadcasts ((1,), 0-d, the output's shape) gets its gradient in its own shape."""
    rng = np.random.default_rng(0)
    arrays = rng.standard_normal((2, 5, 3)), rng.standard_normal((4, 3)), rng.standard_normal(bias_shape)
    grads = []
    for lib, functional in ((torch, torch.nn.functional), (agv, agv.nn.functional)):
        x, w, b = (lib.tensor(a, requires_grad=True) for a in arrays)
        functional.linear(x, w, b).pow(2).sum().backward()
        grads.append([t.grad.numpy() for t in (x, w, b)])
    for ours, theirs in zip(*grads):
        assert ours.shape == theirs.shape
        np.testing.assert_allclose(ours, theirs, rtol=1e-10)
