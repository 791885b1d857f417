"""agv.nn modules and agv.models: registration, names, modes, state_dict, repr
and initialisation like PyTorch's; each layer's values and gradients against
PyTorch with the same weights; the seed's VGG-11 step; a small MLP that learns."""

from __future__ import annotations

import re
from collections import OrderedDict

import numpy as np
import pytest

import autogradviz as agv
import autogradviz.nn.functional as F
from autogradviz import nn

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning:autogradviz")

TOL = {np.float64: {"rtol": 1e-9, "atol": 1e-10}, np.float32: {"rtol": 2e-4, "atol": 2e-5}}
DTYPES = [pytest.param(np.float64, id="float64"), pytest.param(np.float32, id="float32")]


@pytest.fixture(name="torch")
def torch_module():
    return pytest.importorskip("torch")


def torch_copy(torch, ours: nn.Module, theirs, dtype=np.float32):
    """Give the torch module our weights (and buffers), in `dtype`."""
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in ours.state_dict().items()})
    return theirs.to(torch.float64 if dtype is np.float64 else torch.float32)


def assert_close(ours, theirs, dtype, what=""):
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), err_msg=what, **TOL[dtype])


def compare_layer(torch, ours: nn.Module, theirs, x: np.ndarray, dtype, grad_input: bool = True):
    """Same output, input gradient and parameter gradients for a random upstream gradient."""
    if dtype is np.float64:
        ours.double()
    theirs = torch_copy(torch, ours, theirs, dtype)
    xa = agv.tensor(x.astype(dtype), requires_grad=grad_input)
    xt = torch.tensor(x.astype(dtype), requires_grad=grad_input)
    out, expected = ours(xa), theirs(xt)
    assert_close(out, expected, dtype, "output")
    upstream = np.random.default_rng(7).standard_normal(out.shape).astype(dtype)
    out.backward(agv.tensor(upstream))
    expected.backward(torch.tensor(upstream))
    if grad_input:
        assert_close(xa.grad, xt.grad, dtype, "input grad")
    for (name, p), (torch_name, tp) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert name == torch_name
        assert_close(p.grad, tp.grad, dtype, name)


def randn(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


# Parameter ----------------------------------------------------------------------------------------
def test_parameter_is_a_subclass_of_tensor_that_isinstance_recognises():
    # issue 25, item 4: Parameter is a real subclass, so type(p) is nn.Parameter as in PyTorch
    # (this test asserted `type(p) is agv.Tensor` while a parameter was a marked plain tensor)
    p = nn.Parameter(agv.tensor([1.0, 2.0]))
    assert type(p) is nn.Parameter and issubclass(nn.Parameter, agv.Tensor)
    assert isinstance(p, nn.Parameter) and isinstance(p, agv.Tensor)
    assert not isinstance(agv.tensor([1.0]), nn.Parameter)
    assert not isinstance(np.ones(2), nn.Parameter)
    assert p.is_leaf and p.requires_grad and p.grad_fn is None
    assert not nn.Parameter(agv.ones(2), requires_grad=False).requires_grad


def test_parameter_shares_a_tensors_storage_and_copies_other_data():
    t = agv.zeros(3)
    p = nn.Parameter(t)
    t[0] = 5.0
    assert p[0].item() == 5.0
    q = nn.Parameter([1, 2, 3])
    assert q.dtype == agv.float32 and q.requires_grad
    assert nn.Parameter().shape == (0,)


def test_parameter_repr_like_torch(torch):
    ours = repr(nn.Parameter(agv.tensor([[1.0, 2.5], [3.0, -4.0]])))
    theirs = repr(torch.nn.Parameter(torch.tensor([[1.0, 2.5], [3.0, -4.0]])))
    assert ours == theirs
    assert ours.startswith("Parameter containing:\ntensor(")
    assert repr(nn.Parameter(agv.ones(2), requires_grad=False)) == repr(
        torch.nn.Parameter(torch.ones(2), requires_grad=False)
    )


def test_lazy_parameters_are_uninitialized_parameters_until_the_first_call_as_in_torch(torch):
    ours, theirs = nn.LazyLinear(2), torch.nn.LazyLinear(2)

    def described(p, parameter_class):
        return type(p).__name__, isinstance(p, parameter_class), repr(p)

    expected = [described(p, torch.nn.Parameter) for p in (theirs.weight, theirs.bias)]
    assert expected == [("UninitializedParameter", True, "<UninitializedParameter>")] * 2
    assert [described(p, nn.Parameter) for p in (ours.weight, ours.bias)] == expected
    assert isinstance(ours.weight, nn.Parameter) and isinstance(ours.weight, nn.UninitializedParameter)
    weight = ours.weight
    ours(agv.ones(1, 3))
    theirs(torch.ones(1, 3))
    # the same object, now a plain Parameter (PyTorch's cls_to_become)
    assert (
        ours.weight is weight and type(weight) is nn.Parameter and type(theirs.weight) is torch.nn.Parameter
    )
    assert (
        weight.shape == (2, 3) and weight.requires_grad and repr(weight).startswith("Parameter containing:\n")
    )
    assert not isinstance(weight, nn.UninitializedParameter)


def test_a_plain_result_carries_no_extras_and_a_view_names_its_base():
    # the hot paths (record, operand, grad_fn) test `_extras is not None` once: a result
    # of an op gets extras only when it needs one of their fields
    a = agv.tensor([1.0, 2.0], requires_grad=True)
    b = agv.tensor([3.0, 4.0], requires_grad=True)
    y = a * b
    assert y._extras is None and y.grad_fn.name() == "MulBackward0"
    assert a._extras is not None and a._extras.accumulator() is y.grad_fn.next_functions[0][0]
    v = y[0]
    assert v._extras.view.base is y and v._extras.view.version == y.version == 0
    y.retain_grad()
    y.name = "y"
    assert (y._extras.retains_grad, y._extras.name, y._extras.view) == (True, "y", None)


# Module: registration, names, walking -----------------------------------------------------------------
class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 4)
        self.scale = nn.Parameter(agv.ones(4))
        self.act = nn.ReLU()
        self.not_registered = agv.zeros(2)  # a plain tensor is just an attribute, as in PyTorch

    def forward(self, x):
        return self.act(self.fc(x)) * self.scale


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.first = Block()
        self.second = Block()
        self.second.fc.weight = self.first.fc.weight  # tied
        self.head = nn.Sequential(nn.Linear(4, 2), nn.Sigmoid())

    def forward(self, x):
        return self.head(self.second(self.first(x)[..., :3]))


def test_named_parameters_order_dedupe_and_qualified_tensor_names():
    net = Net()
    names = [name for name, _ in net.named_parameters()]
    assert names == [  # a module's own parameters first, then its children's
        "first.scale",
        "first.fc.weight",
        "first.fc.bias",
        "second.scale",
        "second.fc.bias",
        "head.0.weight",
        "head.0.bias",
    ]
    for name, p in net.named_parameters():
        assert p.name == name  # drawings show the qualified name
    assert net.second.fc.weight is net.first.fc.weight
    assert net.second.fc.weight.name == "first.fc.weight"  # a shared parameter keeps its first name
    assert len(list(net.parameters())) == 7
    assert "not_registered" not in dict(net.named_parameters())


def test_children_modules_and_named_modules():
    net = Net()
    assert [name for name, _ in net.named_children()] == ["first", "second", "head"]
    assert list(net.children()) == [net.first, net.second, net.head]
    assert [name for name, _ in net.named_modules()] == [
        "",
        "first",
        "first.fc",
        "first.act",
        "second",
        "second.fc",
        "second.act",
        "head",
        "head.0",
        "head.1",
    ]
    assert len(list(net.modules())) == 10


def test_named_parameters_match_torch_for_the_same_structure(torch):
    class TorchBlock(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(3, 4)
            self.scale = torch.nn.Parameter(torch.ones(4))
            self.act = torch.nn.ReLU()

    class TorchNet(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.first = TorchBlock()
            self.second = TorchBlock()
            self.second.fc.weight = self.first.fc.weight
            self.head = torch.nn.Sequential(torch.nn.Linear(4, 2), torch.nn.Sigmoid())

    ours, theirs = Net(), TorchNet()
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert [n for n, _ in ours.named_modules()] == [n for n, _ in theirs.named_modules()]
    assert list(ours.state_dict()) == list(theirs.state_dict())


def test_assignment_rules():
    block = Block()
    block.fc = None  # a registered module may be set to None ...
    assert block.fc is None and "fc" not in dict(block.named_children())
    with pytest.raises(
        TypeError, match=r"cannot assign 'int' as parameter 'scale' \(nn.Parameter or None expected\)"
    ):
        block.scale = 3
    block.scale = nn.Parameter(agv.zeros(4))
    assert block.scale.name == "scale"
    del block.scale
    with pytest.raises(AttributeError, match="'Block' object has no attribute 'scale'"):
        _ = block.scale

    class Forgetful(nn.Module):
        def __init__(self):
            self.fc = nn.Linear(2, 2)

    with pytest.raises(AttributeError, match=r"cannot assign module before Module.__init__\(\) call"):
        Forgetful()
    with pytest.raises(NotImplementedError, match='missing the required "forward" function'):
        nn.Module()(1)


def test_train_eval_apply_and_requires_grad():
    net = Net()
    assert all(m.training for m in net.modules())
    assert net.eval() is net and not any(m.training for m in net.modules())
    net.train()
    assert all(m.training for m in net.modules())
    visited = []
    net.apply(lambda m: visited.append(type(m).__name__))
    assert visited == [
        "Linear",
        "ReLU",
        "Block",
        "Linear",
        "ReLU",
        "Block",
        "Linear",
        "Sigmoid",
        "Sequential",
        "Net",
    ]
    net.requires_grad_(False)
    assert not any(p.requires_grad for p in net.parameters())


def test_zero_grad_and_paddle_clear_gradients():
    net = Net()
    net(agv.randn(5, 3)).sum().backward()
    assert all(p.grad is not None for p in net.parameters())
    net.zero_grad(set_to_none=False)
    assert all(p.grad is not None and not p.grad.numpy().any() for p in net.parameters())
    net(agv.randn(5, 3)).sum().backward()
    net.clear_gradients()  # Paddle's: zeroes
    assert all(not p.grad.numpy().any() for p in net.parameters())
    net.zero_grad()  # PyTorch 2's default: drop them
    assert all(p.grad is None for p in net.parameters())


def test_forward_hooks():
    layer = nn.Linear(2, 2)
    seen = []
    handle = layer.register_forward_hook(lambda m, inputs, out: seen.append((m, inputs[0].shape, out.shape)))
    layer(agv.randn(3, 2))
    assert seen == [(layer, (3, 2), (3, 2))]
    replace = layer.register_forward_hook(lambda m, inputs, out: out * 0)
    assert not layer(agv.randn(3, 2)).detach().numpy().any()
    handle.remove()
    replace.remove()
    layer(agv.randn(3, 2))
    assert len(seen) == 2


def test_to_double_keeps_the_same_parameter_objects():
    layer = nn.Linear(3, 2)
    weight = layer.weight
    layer(agv.randn(1, 3)).sum().backward()
    assert layer.double() is layer and layer.weight is weight
    assert weight.dtype == agv.float64 and weight.grad.dtype == agv.float64
    assert layer.to("cpu") is layer
    assert layer.float().weight.dtype == agv.float32


def test_sequential_container():
    a, b, c = nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1)
    seq = nn.Sequential(a, b, c)
    assert len(seq) == 3 and list(seq) == [a, b, c]
    assert seq[0] is a and seq[-1] is c
    assert list(seq[1:]) == [b, c] and [n for n, _ in seq[1:].named_children()] == ["1", "2"]
    with pytest.raises(IndexError, match="index 3 is out of range for a Sequential of 3 modules"):
        seq[3]
    seq.append(nn.Sigmoid())
    assert len(seq) == 4
    named = nn.Sequential(OrderedDict([("hidden", nn.Linear(2, 3)), ("act", nn.Tanh())]))
    assert [n for n, _ in named.named_parameters()] == ["hidden.weight", "hidden.bias"]
    with pytest.raises(
        TypeError, match=r"is not a Module subclass: wrap a function in a Module, for example nn.ReLU\(\)"
    ):
        nn.Sequential(nn.Linear(2, 2), F.relu)


def test_paddle_spellings():
    assert nn.Layer is nn.Module
    assert nn.Conv2D is nn.Conv2d and nn.MaxPool2D is nn.MaxPool2d and nn.BatchNorm1D is nn.BatchNorm1d
    assert nn.AvgPool2D is nn.AvgPool2d and nn.AdaptiveAvgPool2D is nn.AdaptiveAvgPool2d
    assert nn.Module.set_state_dict is nn.Module.load_state_dict


# state_dict ---------------------------------------------------------------------------------------
def small_cnn() -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(1, 4, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(4 * 4 * 4, 8),
        nn.BatchNorm1d(8),
        nn.Dropout(0.2),
        nn.Linear(8, 3),
    )


def test_state_dict_keys_values_and_detachment():
    model = small_cnn()
    state = model.state_dict()
    assert list(state) == [
        "0.weight",
        "0.bias",
        "4.weight",
        "4.bias",
        "5.weight",
        "5.bias",
        "5.running_mean",
        "5.running_var",
        "5.num_batches_tracked",
        "7.weight",
        "7.bias",
    ]
    assert not state["0.weight"].requires_grad
    assert np.shares_memory(state["0.weight"].numpy(), model[0].weight.detach().numpy())  # like PyTorch
    assert state["5.num_batches_tracked"].dtype == agv.int64


def test_state_dict_round_trip_through_a_file(tmp_path):
    agv.manual_seed(1)
    model = small_cnn()
    model(agv.randn(6, 1, 8, 8))  # training mode: updates BatchNorm's running statistics
    np.savez(tmp_path / "model.npz", **{k: v.numpy() for k, v in model.state_dict().items()})

    agv.manual_seed(2)
    fresh = small_cnn()
    x = agv.randn(5, 1, 8, 8)
    model.eval()
    fresh.eval()
    assert not np.allclose(model(x).detach().numpy(), fresh(x).detach().numpy())
    with np.load(tmp_path / "model.npz") as saved:
        result = fresh.load_state_dict(dict(saved))
    assert repr(result) == "<All keys matched successfully>"
    np.testing.assert_array_equal(model(x).detach().numpy(), fresh(x).detach().numpy())
    assert fresh[5].num_batches_tracked.item() == 1


def torch_message(text: str) -> str:
    """torch.Size([3, 4]) -> (3, 4), and torch.Size([5]) -> (5,): our shapes are tuples."""
    return re.sub(
        r"torch\.Size\(\[([^\]]*)\]\)",
        lambda m: str(tuple(int(n) for n in m.group(1).split(", ") if n)),
        text,
    )


def test_load_state_dict_errors_word_for_word_like_torch(torch):
    ours = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
    theirs = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2))
    state = {k: v.numpy() for k, v in ours.state_dict().items()}
    del state["2.bias"]
    state["2.weight"] = np.zeros((5, 3), np.float32)
    state["extra.weight"] = np.zeros(2, np.float32)
    with pytest.raises(RuntimeError) as ours_error:
        ours.load_state_dict(state)
    with pytest.raises(RuntimeError) as torch_error:
        theirs.load_state_dict({k: torch.tensor(v) for k, v in state.items()})
    assert str(ours_error.value) == torch_message(str(torch_error.value))
    assert str(ours_error.value) == (
        "Error(s) in loading state_dict for Sequential:\n"
        '\tMissing key(s) in state_dict: "2.bias". \n'
        '\tUnexpected key(s) in state_dict: "extra.weight". \n'
        "\tsize mismatch for 2.weight: copying a param with shape (5, 3) from checkpoint, "
        "the shape in current model is (2, 3)."
    )


def test_load_state_dict_non_strict_and_atomic():
    model = nn.Linear(2, 2)
    result = model.load_state_dict({"weight": np.ones((2, 2)), "junk": np.ones(1)}, strict=False)
    assert result.missing_keys == ["bias"] and result.unexpected_keys == ["junk"]
    np.testing.assert_array_equal(model.weight.detach().numpy(), np.ones((2, 2)))
    with pytest.raises(
        RuntimeError, match="size mismatch for bias"
    ):  # shapes are checked even when not strict
        model.load_state_dict({"weight": np.zeros((2, 2)), "bias": np.zeros(3)}, strict=False)
    assert model.weight.detach().numpy().all()  # nothing was copied


# repr ------------------------------------------------------------------------------------------
def test_repr_matches_torch_exactly(torch):
    tnn = torch.nn
    pairs = [
        (nn.Linear(4, 2), tnn.Linear(4, 2)),
        (nn.Linear(4, 2, bias=False), tnn.Linear(4, 2, bias=False)),
        (nn.Conv2d(3, 64, 3, padding=1), tnn.Conv2d(3, 64, 3, padding=1)),
        (
            nn.Conv2d(3, 8, (3, 5), stride=2, dilation=(1, 2), bias=False),
            tnn.Conv2d(3, 8, (3, 5), stride=2, dilation=(1, 2), bias=False),
        ),
        (nn.Conv2d(2, 2, 3, padding="same"), tnn.Conv2d(2, 2, 3, padding="same")),
        (nn.MaxPool2d(2, 2), tnn.MaxPool2d(2, 2)),
        (nn.MaxPool2d((3, 2), padding=1, ceil_mode=True), tnn.MaxPool2d((3, 2), padding=1, ceil_mode=True)),
        (nn.AvgPool2d(3, 1, 1), tnn.AvgPool2d(3, 1, 1)),
        (nn.AdaptiveAvgPool2d((7, 7)), tnn.AdaptiveAvgPool2d((7, 7))),
        (nn.AdaptiveAvgPool2d(1), tnn.AdaptiveAvgPool2d(1)),
        (nn.ReLU(), tnn.ReLU()),
        (nn.ReLU(inplace=True), tnn.ReLU(inplace=True)),
        (nn.Sigmoid(), tnn.Sigmoid()),
        (nn.Tanh(), tnn.Tanh()),
        (nn.Dropout(), tnn.Dropout()),
        (nn.Dropout(0.25, inplace=True), tnn.Dropout(0.25, inplace=True)),
        (nn.Flatten(), tnn.Flatten()),
        (nn.BatchNorm1d(16), tnn.BatchNorm1d(16)),
        (nn.BatchNorm1d(16, bias=False), tnn.BatchNorm1d(16, bias=False)),
        (
            nn.BatchNorm1d(4, eps=1e-3, momentum=None, affine=False),
            tnn.BatchNorm1d(4, eps=1e-3, momentum=None, affine=False),
        ),
        (nn.Embedding(10, 3), tnn.Embedding(10, 3)),
        (nn.Embedding(10, 3, padding_idx=-1), tnn.Embedding(10, 3, padding_idx=-1)),
        (small_cnn(), torch_small_cnn(torch)),
        (nn.Sequential(), tnn.Sequential()),
        (nn.Sequential(nn.Sequential(nn.Linear(1, 1))), tnn.Sequential(tnn.Sequential(tnn.Linear(1, 1)))),
    ]
    for ours, theirs in pairs:
        assert repr(ours) == repr(theirs)


def torch_small_cnn(torch):
    tnn = torch.nn
    return tnn.Sequential(
        tnn.Conv2d(1, 4, 3, padding=1),
        tnn.ReLU(),
        tnn.MaxPool2d(2),
        tnn.Flatten(),
        tnn.Linear(4 * 4 * 4, 8),
        tnn.BatchNorm1d(8),
        tnn.Dropout(0.2),
        tnn.Linear(8, 3),
    )


# layers against torch ------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "make, x_shape",
    [
        (lambda nn: nn.Linear(5, 3), (4, 5)),
        (lambda nn: nn.Linear(5, 3, bias=False), (2, 4, 5)),
        (lambda nn: nn.Conv2d(3, 4, 3), (2, 3, 8, 8)),
        (lambda nn: nn.Conv2d(3, 4, (2, 3), stride=(2, 1), padding=(1, 2), dilation=(1, 2)), (2, 3, 9, 8)),
        (lambda nn: nn.Conv2d(2, 3, 3, padding="same", bias=False), (1, 2, 5, 6)),
        (lambda nn: nn.MaxPool2d(2), (2, 3, 8, 8)),
        (lambda nn: nn.MaxPool2d(3, 2, 1, ceil_mode=True), (2, 3, 9, 8)),
        (lambda nn: nn.AvgPool2d(3, 2, 1), (2, 3, 9, 8)),
        (lambda nn: nn.AdaptiveAvgPool2d((3, 2)), (2, 3, 7, 5)),
        (lambda nn: nn.ReLU(), (3, 4)),
        (lambda nn: nn.Sigmoid(), (3, 4)),
        (lambda nn: nn.Tanh(), (3, 4)),
        (lambda nn: nn.Flatten(), (2, 3, 4)),
        (lambda nn: nn.BatchNorm1d(4), (6, 4)),
        (lambda nn: nn.BatchNorm1d(4, affine=False), (5, 4, 3)),
        (
            lambda nn: nn.Sequential(
                nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(64, 3)
            ),
            (3, 1, 8, 8),
        ),
    ],
    ids=lambda v: "" if callable(v) else str(v),
)
def test_layer_matches_torch(torch, make, x_shape, dtype):
    compare_layer(torch, make(nn), make(torch.nn), randn(*x_shape), dtype)


def test_embedding_layer_matches_torch(torch):
    ours, theirs = nn.Embedding(6, 3, padding_idx=1), torch.nn.Embedding(6, 3, padding_idx=1)
    theirs = torch_copy(torch, ours, theirs)
    indices = [[0, 1, 5], [1, 3, 3]]
    out, expected = ours(agv.tensor(indices)), theirs(torch.tensor(indices))
    assert_close(out, expected, np.float32)
    out.sum().backward()
    expected.sum().backward()
    assert_close(ours.weight.grad, theirs.weight.grad, np.float32)


@pytest.mark.parametrize("momentum", [0.1, None], ids=["momentum", "cumulative"])
def test_batchnorm1d_training_steps_then_eval_match_torch(torch, momentum):
    ours, theirs = nn.BatchNorm1d(3, momentum=momentum), torch.nn.BatchNorm1d(3, momentum=momentum)
    compare_layer(torch, ours, theirs, randn(8, 3) * 2 + 1, np.float64)  # also copies the weights
    theirs.double()
    for step in range(1, 4):
        x = randn(8, 3, seed=step) * (step + 1) + step
        assert_close(ours(agv.tensor(x)), theirs(torch.tensor(x)), np.float64)
    for name in ("running_mean", "running_var", "num_batches_tracked"):
        np.testing.assert_allclose(getattr(ours, name).numpy(), getattr(theirs, name).numpy(), rtol=1e-12)
    ours.eval()
    theirs.eval()
    x = randn(5, 3, seed=9)
    assert_close(ours(agv.tensor(x)), theirs(torch.tensor(x)), np.float64)


def test_dropout_train_and_eval_like_torch(torch):
    ours, theirs = nn.Dropout(0.4), torch.nn.Dropout(0.4)
    x = np.ones((100, 100), np.float32)
    out, expected = ours(agv.tensor(x)).numpy(), theirs(torch.tensor(x)).numpy()
    # different random streams, same law: zeros with probability p, the rest scaled by 1/(1-p)
    assert set(np.unique(out)) == set(np.unique(expected))
    assert abs((out == 0).mean() - 0.4) < 0.03 and abs((expected == 0).mean() - 0.4) < 0.03
    ours.eval()
    theirs.eval()
    np.testing.assert_array_equal(ours(agv.tensor(x)).numpy(), theirs(torch.tensor(x)).numpy())


# initialisation ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "make, fan_in",
    [
        (lambda nn: nn.Linear(400, 300), 400),
        (lambda nn: nn.Conv2d(16, 32, 3), 144),
        (lambda nn: nn.Conv2d(3, 8, (5, 2)), 30),
    ],
    ids=["linear", "conv", "conv-rect"],
)
def test_default_init_has_torchs_bounds_and_spread(torch, make, fan_in):
    ours, theirs = make(nn), make(torch.nn)
    bound = 1 / np.sqrt(fan_in)
    for name in ("weight", "bias"):
        a, t = getattr(ours, name).detach().numpy(), getattr(theirs, name).detach().numpy()
        assert a.dtype == np.float32
        assert np.abs(a).max() <= bound and np.abs(t).max() <= bound
        if a.size > 1000:
            assert np.abs(a).max() > 0.99 * bound
            assert abs(a.std() - t.std()) < 0.05 * t.std()  # uniform: std = bound / √3
            assert abs(a.std() - bound / np.sqrt(3)) < 0.05 * bound
            assert abs(a.mean()) < 0.05 * bound


def test_manual_seed_reproduces_the_initial_weights():
    agv.manual_seed(3)
    a = [p.detach().numpy().copy() for p in small_cnn().parameters()]
    agv.manual_seed(3)
    b = [p.detach().numpy() for p in small_cnn().parameters()]
    agv.manual_seed(4)
    c = [p.detach().numpy() for p in small_cnn().parameters()]
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not np.array_equal(a[0], c[0])


def test_other_layers_init():
    bn = nn.BatchNorm1d(5)
    assert bn.weight.detach().numpy().tolist() == [1.0] * 5
    assert not bn.bias.detach().numpy().any()
    assert bn.running_var.numpy().tolist() == [1.0] * 5 and bn.num_batches_tracked.item() == 0
    emb = nn.Embedding(1000, 20, padding_idx=3)
    w = emb.weight.detach().numpy()
    assert not w[3].any() and abs(w.std() - 1) < 0.05


# models ------------------------------------------------------------------------------------------
def torch_vgg11(torch):
    tnn = torch.nn
    layers, channels = [], 3
    for v in [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"]:
        if v == "M":
            layers.append(tnn.MaxPool2d(kernel_size=2, stride=2))
        else:
            layers += [tnn.Conv2d(channels, v, kernel_size=3, padding=1), tnn.ReLU(inplace=True)]
            channels = v

    class VGG(tnn.Module):  # torchvision's VGG, without torchvision
        def __init__(self):
            super().__init__()
            self.features = tnn.Sequential(*layers)
            self.avgpool = tnn.AdaptiveAvgPool2d((7, 7))
            self.classifier = tnn.Sequential(
                tnn.Linear(512 * 7 * 7, 4096),
                tnn.ReLU(True),
                tnn.Dropout(p=0.5),
                tnn.Linear(4096, 4096),
                tnn.ReLU(True),
                tnn.Dropout(p=0.5),
                tnn.Linear(4096, 1000),
            )

        def forward(self, x):
            return self.classifier(torch.flatten(self.avgpool(self.features(x)), 1))

    return VGG()


def test_vgg11_seed_step_end_to_end_and_against_torch(torch):
    """The tutorial's step: a random image, a random label, cross_entropy, backward.
    Then the same weights in PyTorch (eval mode, so no dropout) give the same
    logits and the same 22 gradients."""
    model = agv.models.vgg11()
    x = agv.rand(1, 3, 224, 224)
    label = agv.randint(0, 1000, (1,))
    loss = F.cross_entropy(model(x), label)
    loss.backward()
    params = list(model.named_parameters())
    assert len(params) == 22
    for _, p in params:
        assert p.grad is not None and p.grad.shape == p.shape and p.grad.dtype == agv.float32
    assert 5 < loss.item() < 9  # about ln(1000) = 6.9 for a random network

    with torch.device("meta"):  # no memory and no initialisation: our weights are loaded next
        theirs = torch_vgg11(torch)
    assert repr(model) == repr(theirs)
    assert list(model.state_dict()) == list(theirs.state_dict())
    # assign=True: torch's parameters share our weights' memory instead of copying 0.5 GB
    theirs.load_state_dict(
        {k: torch.from_numpy(v.numpy()) for k, v in model.state_dict().items()}, assign=True
    )
    model.zero_grad()
    model.eval()
    theirs.eval()
    logits, expected = model(x), theirs(torch.tensor(x.numpy()))
    np.testing.assert_allclose(logits.detach().numpy(), expected.detach().numpy(), rtol=1e-3, atol=1e-5)
    F.cross_entropy(logits, label).backward()
    torch.nn.functional.cross_entropy(expected, torch.tensor(label.numpy())).backward()
    for (name, p), tp in zip(params, theirs.parameters()):
        # loose: against a float64 run, PyTorch's float32 convolution gradients are off by up
        # to 1% of their largest value here (autogradviz's by 0.2%)
        expected = tp.grad.numpy()
        assert np.abs(p.grad.numpy() - expected).max() <= 0.03 * np.abs(expected).max(), name


def test_vgg11_init_like_torchvision():
    agv.manual_seed(0)
    model = agv.models.vgg11(num_classes=10)
    conv = model.features[3].weight.detach().numpy()  # kaiming_normal_, fan_out = 128·3·3
    assert abs(conv.std() - np.sqrt(2 / (128 * 9))) < 0.02 * np.sqrt(2 / (128 * 9))
    fc = model.classifier[3].weight.detach().numpy()
    assert abs(fc.std() - 0.01) < 0.0002
    assert not any(
        m.bias.detach().numpy().any() for m in model.modules() if isinstance(m, (nn.Conv2d, nn.Linear))
    )
    assert model.classifier[6].weight.shape == (10, 4096)


def test_mlp_helper():
    model = agv.models.mlp([2, 16, 8, 3])
    assert [type(m).__name__ for m in model] == ["Linear", "ReLU", "Linear", "ReLU", "Linear"]
    assert model(agv.randn(5, 2)).shape == (5, 3)
    assert isinstance(agv.models.mlp([4, 4, 1], activation="tanh")[1], nn.Tanh)
    assert isinstance(agv.models.mlp([4, 4, 1], activation=nn.Sigmoid)[1], nn.Sigmoid)
    assert len(agv.models.mlp([4, 1])) == 1
    with pytest.raises(ValueError, match="unknown activation 'gelu'"):
        agv.models.mlp([2, 2], activation="gelu")


def test_mlp_learns_a_nonlinear_two_class_problem():
    """XOR-like quadrants, full-batch gradient descent written by hand."""
    agv.manual_seed(0)
    rng = np.random.default_rng(0)
    points = rng.uniform(-1, 1, (200, 2)).astype(np.float32)
    labels = (points[:, 0] * points[:, 1] > 0).astype(np.int64)
    x, y = agv.tensor(points), agv.tensor(labels)
    model = agv.models.mlp([2, 32, 32, 2])
    losses = []
    for _ in range(400):
        loss = F.cross_entropy(model(x), y)
        model.zero_grad()
        loss.backward()
        with agv.no_grad():
            for p in model.parameters():
                p.data -= 0.5 * p.grad
        losses.append(loss.item())
    accuracy = (model(x).argmax(1) == y).float().mean().item()
    assert losses[-1] < 0.3 * losses[0]
    assert accuracy > 0.9


# errors -------------------------------------------------------------------------------------------
def test_layer_errors_name_the_layer_and_shapes():
    with pytest.raises(
        RuntimeError,
        match=re.escape(
            "Linear(in_features=4, out_features=2, bias=True): expected input with last dimension 4, got shape (2, 3)"
        ),
    ):
        nn.Linear(4, 2)(agv.randn(2, 3))
    with pytest.raises(
        RuntimeError,
        match=re.escape(
            "Conv2d(3, 64, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1)): expected input with 3 channels, "
            "shape (N, 3, H, W), got shape (1, 1, 28, 28) (1 channels)"
        ),
    ):
        nn.Conv2d(3, 64, 3, padding=1)(agv.randn(1, 1, 28, 28))
    with pytest.raises(
        RuntimeError,
        match=re.escape(
            "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False): input of shape (1, 1, 1, 1) is too small"
        ),
    ):
        nn.MaxPool2d(2)(agv.randn(1, 1, 1, 1))
    with pytest.raises(NotImplementedError, match="Conv2d: groups=2 is not supported"):
        nn.Conv2d(4, 4, 3, groups=2)
    with pytest.raises(
        RuntimeError,  # PyTorch's class: "running_mean should contain 3 elements not 4"
        match=re.escape(
            "BatchNorm1d(4, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True): "
            "running_mean should contain 3 elements not 4: expected input with 4 features in dim 1, got shape (8, 3)"
        ),
    ):
        nn.BatchNorm1d(4)(agv.randn(8, 3))
    with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
        nn.BatchNorm1d(4)(agv.randn(1, 4))
    with pytest.raises(
        IndexError, match=re.escape("Embedding(5, 2): index 5 is out of range for a table of 5 rows")
    ):
        nn.Embedding(5, 2)(agv.tensor([0, 5]))
    with pytest.raises(RuntimeError, match="input dtype torch.float64 and weight dtype torch.float32 differ"):
        nn.Linear(2, 2)(agv.randn(3, 2, dtype=agv.float64))


def test_seed_step_with_an_out_of_range_label():
    model = agv.models.mlp([4, 10])
    with pytest.raises(IndexError, match=r"Target 10 is out of bounds: the input has 10 classes"):
        F.cross_entropy(model(agv.randn(2, 4)), agv.tensor([3, 10]))
