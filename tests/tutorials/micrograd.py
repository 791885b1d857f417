"""karpathy/micrograd.

test_engine: test/test_engine.py, the PyTorch half of test_sanity_check and
    test_more_ops (micrograd's own Value half needs no torch). The harness runs it
    with torch and with autogradviz; the asserts against micrograd's numbers are
    in tests/test_tutorial_ports.py, with micrograd's values computed by hand.
lecture_neuron: karpathy/nn-zero-to-hero, lectures/micrograd/
    micrograd_lecture_second_half_roughly.ipynb, the cell that checks the tanh
    neuron with PyTorch. No edits.
demo: demo.ipynb trains micrograd's own MLP (pure Python, no torch). Its torch
    port: the same network (2-16-16-1, ReLU, micrograd's uniform(-1, 1) init from
    Python's random), the same max-margin loss with L2 regularisation and the
    same learning-rate schedule, on the same kind of data. Edits: sklearn's
    make_moons is written out with numpy (seeded), 20 steps instead of 100.
"""

import numpy as np


def test_engine():
    import torch

    # test_sanity_check
    x = torch.Tensor([-4.0]).double()
    x.requires_grad = True
    z = 2 * x + 2 + x
    q = z.relu() + z * x
    h = (z * z).relu()
    y = h + q + q * x
    y.backward()
    xpt, ypt = x, y

    sanity = {"y": ypt.data.item(), "x.grad": xpt.grad.item()}

    # test_more_ops
    a = torch.Tensor([-4.0]).double()
    b = torch.Tensor([2.0]).double()
    a.requires_grad = True
    b.requires_grad = True
    c = a + b
    d = a * b + b**3
    c = c + c + 1
    c = c + 1 + c + (-a)
    d = d + d * 2 + (b + a).relu()
    d = d + 3 * d + (b - a).relu()
    e = c - d
    f = e**2
    g = f / 2.0
    g = g + 10.0 / f
    g.backward()
    apt, bpt, gpt = a, b, g

    more = {"g": gpt.data.item(), "a.grad": apt.grad.item(), "b.grad": bpt.grad.item()}
    return {"sanity": sanity, "more_ops": more, "dtype": str(gpt.dtype)}


def lecture_neuron():
    import torch

    # fmt: off
    x1 = torch.Tensor([2.0]).double()                ; x1.requires_grad = True  # noqa: E702, E703
    x2 = torch.Tensor([0.0]).double()                ; x2.requires_grad = True  # noqa: E702
    w1 = torch.Tensor([-3.0]).double()               ; w1.requires_grad = True  # noqa: E702
    w2 = torch.Tensor([1.0]).double()                ; w2.requires_grad = True  # noqa: E702
    b = torch.Tensor([6.8813735870195432]).double()  ; b.requires_grad = True  # noqa: E702
    # fmt: on
    n = x1 * w1 + x2 * w2 + b
    o = torch.tanh(n)

    print(o.data.item())
    o.backward()

    print("---")
    print("x2", x2.grad.item())
    print("w2", w2.grad.item())
    print("x1", x1.grad.item())
    print("w1", w1.grad.item())
    return {"o": o, "grads": [x1.grad, x2.grad, w1.grad, w2.grad, b.grad]}


def make_moons(n_samples=100, noise=0.1, seed=1):
    """sklearn.datasets.make_moons, written out: two interleaved half circles."""
    rng = np.random.RandomState(seed)
    n_out, n_in = n_samples // 2, n_samples - n_samples // 2
    outer = np.stack([np.cos(np.linspace(0, np.pi, n_out)), np.sin(np.linspace(0, np.pi, n_out))], 1)
    inner = np.stack(
        [1 - np.cos(np.linspace(0, np.pi, n_in)), 1 - np.sin(np.linspace(0, np.pi, n_in)) - 0.5], 1
    )
    X = np.concatenate([outer, inner]) + rng.normal(scale=noise, size=(n_samples, 2))
    y = np.concatenate([np.zeros(n_out, dtype=np.int64), np.ones(n_in, dtype=np.int64)])
    return X, y


def demo():
    import random

    import torch

    random.seed(1337)  # the demo seeds numpy and random with 1337
    X, y = make_moons(n_samples=100, noise=0.1)
    y = y * 2 - 1  # make y be -1 or 1

    # micrograd's MLP(2, [16, 16, 1]): each weight and bias random.uniform(-1, 1)
    sizes = [2, 16, 16, 1]
    layers = []
    for nin, nout in zip(sizes, sizes[1:]):
        w = torch.tensor(
            [[random.uniform(-1, 1) for _ in range(nin)] for _ in range(nout)], requires_grad=True
        )
        b = torch.tensor([random.uniform(-1, 1) for _ in range(nout)], requires_grad=True)
        layers.append((w, b))
    parameters = [p for layer in layers for p in layer]
    print("number of parameters", sum(p.numel() for p in parameters))

    def model(inputs):
        out = inputs
        for i, (w, b) in enumerate(layers):
            out = out @ w.T + b
            if i < len(layers) - 1:
                out = out.relu()
        return out

    def loss():
        inputs = torch.tensor(X, dtype=torch.float32)
        yb = torch.tensor(y, dtype=torch.float32)
        scores = model(inputs).squeeze(1)
        # svm "max-margin" loss
        data_loss = (1 + -yb * scores).relu().mean()
        # L2 regularization
        alpha = 1e-4
        reg_loss = alpha * sum((p * p).sum() for p in parameters)
        total_loss = data_loss + reg_loss
        accuracy = ((yb > 0) == (scores > 0)).float().mean()
        return total_loss, accuracy

    for k in range(20):  # the demo: 100
        total_loss, acc = loss()
        for p in parameters:
            p.grad = None
        total_loss.backward()
        learning_rate = 1.0 - 0.9 * k / 100
        with torch.no_grad():
            for p in parameters:
                p -= learning_rate * p.grad
        if k % 1 == 0:
            print(f"step {k} loss {total_loss.item()}, accuracy {acc.item() * 100}%")

    return {"parameters": parameters, "loss": total_loss}
