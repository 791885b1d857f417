"""Loss modules, ModuleList, Identity, Softmax and LogSoftmax: the same code on
autogradviz and torch gives the same values, gradients, reprs and state_dicts."""

from __future__ import annotations

import numpy as np
import pytest

import autogradviz as agv

torch = pytest.importorskip("torch")

from _parity import same  # noqa: E402

LOGITS = np.array([[1.0, -0.5, 2.0], [0.3, 0.1, -1.0], [0.0, 2.5, 0.5], [-1.0, 0.2, 0.4]], dtype=np.float32)
LABELS = np.array([2, 0, 1, 1])
PROBS = np.array([[0.9, 0.2, 0.6], [0.1, 0.7, 0.5], [0.3, 0.4, 0.8], [0.6, 0.5, 0.2]], dtype=np.float32)
TARGETS = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 1.0, 0.0]], dtype=np.float32)
CLASS_WEIGHT = np.array([0.5, 2.0, 1.0], dtype=np.float32)


def _loss_case(name):
    def fn(m):
        x = m.tensor(LOGITS, requires_grad=True)
        if name == "CrossEntropyLoss":
            criterion = m.nn.CrossEntropyLoss(weight=m.tensor(CLASS_WEIGHT), ignore_index=0)
            loss = criterion(x, m.tensor(LABELS))
        elif name == "NLLLoss":
            criterion = m.nn.NLLLoss(reduction="sum")
            loss = criterion(m.log_softmax(x, 1), m.tensor(LABELS))
        elif name == "BCELoss":
            criterion = m.nn.BCELoss(weight=m.tensor(CLASS_WEIGHT))
            loss = criterion(m.sigmoid(x), m.tensor(TARGETS))
        elif name == "BCEWithLogitsLoss":
            criterion = m.nn.BCEWithLogitsLoss(pos_weight=m.tensor(CLASS_WEIGHT), reduction="none")
            loss = criterion(x, m.tensor(TARGETS)).sum()
        else:
            criterion = m.nn.MSELoss()
            loss = criterion(x, m.tensor(PROBS))
        loss.backward()
        return repr(criterion), sorted(criterion.state_dict()), loss, x.grad

    return fn


@pytest.mark.parametrize("name", ["CrossEntropyLoss", "NLLLoss", "BCELoss", "BCEWithLogitsLoss", "MSELoss"])
def test_loss_modules_match_torch(name):
    same(_loss_case(name))


def test_module_list_behaves_like_torchs():
    def fn(m):
        layers = m.nn.ModuleList([m.nn.Linear(2, 2) for _ in range(2)])
        layers.append(m.nn.ReLU())
        layers.extend([m.nn.Linear(2, 3)])
        layers.insert(1, m.nn.Tanh())
        layers[0] = m.nn.Linear(2, 2, bias=False)

        class Net(m.nn.Module):
            def __init__(self):
                super().__init__()
                self.layers = layers

            def forward(self, x):
                for layer in self.layers:
                    x = layer(x)
                return x

        net = Net()
        names = [name for name, _ in net.named_parameters()]
        return repr(net), len(layers), [type(x).__name__ for x in layers], repr(layers[1:3]), names

    same(fn)


def test_module_list_has_no_forward():
    with pytest.raises(NotImplementedError, match="ModuleList has no forward"):
        agv.nn.ModuleList([agv.nn.ReLU()])(agv.ones(2))


def test_identity_softmax_and_log_softmax_match_torch():
    def fn(m):
        x = m.tensor(LOGITS, requires_grad=True)
        outputs = [m.nn.Identity(7, unused=True)(x), m.nn.Softmax(dim=1)(x), m.nn.LogSoftmax(dim=0)(x)]
        sum(o.sum() * (i + 1) for i, o in enumerate(outputs)).backward()
        return (
            [repr(m.nn.Identity()), repr(m.nn.Softmax(dim=1)), repr(m.nn.LogSoftmax(dim=0))],
            outputs,
            x.grad,
        )

    same(fn)


def test_save_and_load_a_state_dict_and_a_model(tmp_path):
    agv.manual_seed(0)
    model = agv.nn.Sequential(agv.nn.Linear(3, 4), agv.nn.ReLU(), agv.nn.Linear(4, 2))
    path = tmp_path / "model.agv"
    agv.save(model.state_dict(), path)
    agv.manual_seed(1)
    other = agv.nn.Sequential(agv.nn.Linear(3, 4), agv.nn.ReLU(), agv.nn.Linear(4, 2))
    x = agv.randn(5, 3)
    assert not np.allclose(other(x).detach().numpy(), model(x).detach().numpy())
    other.load_state_dict(agv.load(path))
    np.testing.assert_array_equal(other(x).detach().numpy(), model(x).detach().numpy())
    with open(tmp_path / "whole.agv", "wb") as f:  # an open file works too, and so does a whole model
        agv.save(model, f)
    again = agv.load(tmp_path / "whole.agv", weights_only=False)
    np.testing.assert_array_equal(again(x).detach().numpy(), model(x).detach().numpy())
    assert [n for n, _ in again.named_parameters()] == [n for n, _ in model.named_parameters()]


def test_in_place_random_draws_like_torch():
    # the DCGAN idiom: m.weight.data.normal_(0, 0.02); on a leaf that requires grad
    # (outside no_grad) both libraries refuse; on a non-leaf the old value gets 0
    agv.manual_seed(0)
    layer = agv.nn.Linear(200, 100)
    layer.weight.data.normal_(0.0, 0.02)
    layer.bias.data.uniform_(-3.0, -1.0)
    assert abs(float(layer.weight.mean())) < 0.002 and 0.018 < float(layer.weight.std()) < 0.022
    assert float(layer.bias.min()) >= -3.0 and float(layer.bias.max()) < -1.0
    assert layer.weight.dtype == agv.float32 and layer.weight.version == 1

    def fn(m):
        w = m.ones(3, requires_grad=True)
        h = w * 2
        h.uniform_()
        (h * 3).sum().backward()
        return w.grad, h.grad_fn.name(), h.requires_grad

    same(fn)
    for lib in (agv, torch):
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
            lib.ones(2, requires_grad=True).normal_()


@pytest.mark.parametrize("norm_type", [2.0, 1.0, float("inf")])
@pytest.mark.parametrize("max_norm", [0.5, 100.0])
def test_clip_grad_norm_matches_torch(norm_type, max_norm):
    rng = np.random.default_rng(0)
    grads = [rng.standard_normal((3, 4)).astype(np.float32) * 3, rng.standard_normal(5).astype(np.float32)]

    def fn(m):
        params = [m.zeros(*g.shape, requires_grad=True) for g in grads]
        for p, g in zip(params, grads):
            p.grad = m.tensor(g.copy())
        utils = agv.nn.utils if m is agv else torch.nn.utils
        total = utils.clip_grad_norm_(
            (p for p in params), max_norm, norm_type
        )  # a generator, as model.parameters()
        return total, [p.grad for p in params]

    same(fn)


def test_clip_grad_value_and_the_edge_cases_match_torch():
    def fn(m):
        utils = agv.nn.utils if m is agv else torch.nn.utils
        w = m.tensor([1.0, -2.0, 3.0], requires_grad=True)
        w.grad = m.tensor([0.5, -4.0, 9.0])
        utils.clip_grad_value_([w], 1.0)
        nothing = utils.clip_grad_norm_([m.ones(2, requires_grad=True)], 1.0)  # no grads at all
        v = m.ones(2, requires_grad=True)
        v.grad = m.tensor([float("inf"), 1.0])
        try:
            utils.clip_grad_norm_(v, 1.0, error_if_nonfinite=True)
            error = None
        except RuntimeError as e:
            error = "non-finite" in str(e)
        return w.grad, nothing, error

    same(fn)


def test_leaky_relu_module_and_inplace_match_torch():
    def fn(m):
        x = m.tensor(LOGITS, requires_grad=True)
        layer = m.nn.LeakyReLU(0.2)
        h = x * 1
        m.nn.functional.leaky_relu(h, 0.05, inplace=True)
        y = layer(x).sum() + h.sum() + m.nn.LeakyReLU()(x).sum()
        y.backward()
        return repr(layer), repr(m.nn.LeakyReLU(0.1, inplace=True)), y, x.grad, h.grad_fn.name()

    same(fn)
