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


def test_label_smoothing_is_refused_clearly():
    with pytest.raises(NotImplementedError, match="label_smoothing is not supported"):
        agv.nn.CrossEntropyLoss(label_smoothing=0.1)


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
