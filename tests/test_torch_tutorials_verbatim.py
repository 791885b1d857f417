"""The two PyTorch tutorials this project teaches from (../shared/tutorial-notes.md,
parts A and C), in their own torch spelling, run with `torch` bound to autogradviz.

tests/test_tutorials.py has the same sessions spelled with agv; these run the
tutorials' code itself (`import torch`), once with PyTorch and once with
autogradviz (tests/tutorials/harness.py), and assert the printed lines: the same
as PyTorch's, and the ones the tutorials show.
Edits: where a tutorial shows a traceback, the line runs in try/except and prints
the error; part C's parameters come from torch.randn (the harness gives both runs
the same numbers).
"""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

from tutorials import harness  # noqa: E402


def session_a():
    """Part A: the computation graph, leaves, requires_grad, non-scalar backward,
    accumulation 1/2/3 and zero_()."""
    import torch

    x = torch.ones(2, 2)
    w = torch.rand(2, 2, requires_grad=True)
    b = torch.rand(2, 2, requires_grad=True)
    y = w * x + b

    print(x.is_leaf, w.is_leaf, b.is_leaf)
    print(y.is_leaf)
    print(x.requires_grad, b.requires_grad, w.requires_grad)
    print(y.requires_grad)

    try:
        y.backward()
    except RuntimeError as error:
        print(f"RuntimeError: {error}")

    weights = torch.ones(2, 2)
    y.backward(weights, retain_graph=True)
    print(w.grad)
    y.backward(weights, retain_graph=True)
    print(w.grad)
    y.backward(weights, retain_graph=True)
    print(w.grad)
    print(w.grad.zero_())
    return {"w.grad": w.grad, "b.grad": b.grad, "y": y}


def session_c():
    """Part C: tensor attributes, then logistic regression by hand for 10,000 epochs."""
    import numpy as np
    import torch

    # 1. attributes
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    print(a.requires_grad)
    with torch.no_grad():
        c = a * 2
    print(c.requires_grad)
    print(a.grad)
    out = (a * a).sum()
    print(out.grad_fn)
    print(a.is_leaf, out.is_leaf)

    # detach() shares storage: changing it in place before backward is an error
    s = a.sigmoid()
    d = s.detach()
    d.zero_()
    try:
        s.sum().backward()
    except RuntimeError as error:
        # the sentence before the details (which name the tensor differently in each library)
        print(f"RuntimeError: {str(error).split(':')[0]}")

    # .data also shares storage but is not tracked: no error, a silently wrong gradient
    s = a.sigmoid()
    s.data.zero_()
    s.sum().backward()
    print(a.grad)

    print(out.item())
    print(a.tolist())

    # 2. logistic regression by hand
    x_t = torch.tensor(np.array([[1, 1], [1, 0], [0, 1], [0, 0]]), dtype=torch.float)
    y_t = torch.tensor([[0], [1], [0], [1]], dtype=torch.float)
    print(x_t.size())
    print(y_t.size())

    w = torch.randn([2, 1], requires_grad=True)
    b = torch.zeros(1, requires_grad=True)

    def forward(x):
        return torch.sigmoid(torch.matmul(x, w) + b)

    def loss_fn(y_p, y):
        return -torch.mean(y * torch.log(y_p) + (1 - y) * torch.log(1 - y_p))

    loss = loss_fn(forward(x_t), y_t)
    loss.backward()
    w.data = w.data - 1e-2 * w.grad.data
    b.data = b.data - 1e-2 * b.grad.data

    losses = []
    for epoch in range(10000):
        loss = loss_fn(forward(x_t), y_t)
        w.grad.zero_()
        b.grad.zero_()
        loss.backward()
        w.data = w.data - 1e-2 * w.grad.data
        b.data = b.data - 1e-2 * b.grad.data
        if epoch % 500 == 0:
            print("epoch: {}, loss: {}".format(epoch, loss.item()))  # noqa: UP032 - the tutorial's spelling
            losses.append(loss.item())
    return {"w": w, "b": b, "losses": losses}


def test_session_a_computation_graph():
    expected, actual = harness.check(session_a)
    lines = actual.stdout.splitlines()
    assert lines[:4] == ["True True True", "False", "False True True", "True"]
    # PyTorch's sentence, then (autogradviz) a hint
    assert lines[4].startswith("RuntimeError: grad can be implicitly created only for scalar outputs")
    assert "\n".join(lines[5:]) == "\n".join(
        [
            "tensor([[1., 1.],",
            "        [1., 1.]])",
            "tensor([[2., 2.],",
            "        [2., 2.]])",
            "tensor([[3., 3.],",
            "        [3., 3.]])",
            "tensor([[0., 0.],",
            "        [0., 0.]])",
        ]
    )


def test_session_c_attributes_and_logistic_regression():
    # 10,000 float32 epochs: the losses agree to a few units in the 6th digit
    expected, actual = harness.check(session_c, rtol=1e-4, atol=1e-6)
    lines = actual.stdout.splitlines()
    assert lines[:4] == ["True", "False", "None", "<SumBackward0>"]
    assert lines[4] == "True False"
    assert lines[5].startswith(
        "RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation"
    )
    assert lines[6] == "tensor([0., 0., 0.])"  # .data: the sigmoid's saved output was zeroed
    assert lines[9:11] == ["torch.Size([4, 2])", "torch.Size([4, 1])"]
    losses = actual.values["losses"]
    assert len(losses) == 20 and all(later < earlier for earlier, later in zip(losses, losses[1:]))
