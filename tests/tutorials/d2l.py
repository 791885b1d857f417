"""Dive into Deep Learning (d2l-ai/d2l-en), the PyTorch tab of four sections.

autograd:      chapter_preliminaries/autograd.md (2.5). Edit: a notebook cell's
               displayed value is printed.
linreg_scratch: chapter_linear-regression/linear-regression-scratch.md (3.4).
linreg_concise: chapter_linear-regression/linear-regression-concise.md (3.5).
mlp_scratch:   chapter_multilayer-perceptrons/mlp-implementation.md (5.2), the
               from-scratch MLP. Edits: generated 28x28 images instead of
               Fashion-MNIST (a download), 2 epochs instead of 10.
d2l's library is d2l_lib.build() (its plotting records the points instead).
"""

from . import d2l_lib


def autograd():
    import torch

    x = torch.arange(4.0)
    print(x)

    # Can also create x = torch.arange(4.0, requires_grad=True)
    x.requires_grad_(True)
    print(x.grad)  # The gradient is None by default

    y = 2 * torch.dot(x, x)
    print(y)

    y.backward()
    print(x.grad)

    print(x.grad == 4 * x)

    x.grad.zero_()  # Reset the gradient
    y = x.sum()
    y.backward()
    print(x.grad)

    x.grad.zero_()
    y = x * x
    y.backward(gradient=torch.ones(len(y)))  # Faster: y.sum().backward()
    print(x.grad)

    x.grad.zero_()
    y = x * x
    u = y.detach()
    z = u * x

    z.sum().backward()
    print(x.grad == u)

    x.grad.zero_()
    y.sum().backward()
    print(x.grad == 2 * x)

    def f(a):
        b = a * 2
        while b.norm() < 1000:
            b = b * 2
        if b.sum() > 0:
            c = b
        else:
            c = 100 * b
        return c

    a = torch.randn(size=(), requires_grad=True)
    d = f(a)
    d.backward()

    print(a.grad == d / a)
    return {"a": a, "a.grad": a.grad, "x.grad": x.grad}


def linreg_scratch():
    import torch

    d2l = d2l_lib.build()

    class LinearRegressionScratch(d2l.Module):
        """The linear regression model implemented from scratch."""

        def __init__(self, num_inputs, lr, sigma=0.01):
            super().__init__()
            self.save_hyperparameters()
            self.w = d2l.normal(0, sigma, (num_inputs, 1), requires_grad=True)
            self.b = d2l.zeros(1, requires_grad=True)

    @d2l.add_to_class(LinearRegressionScratch)
    def forward(self, X):
        return d2l.matmul(X, self.w) + self.b

    @d2l.add_to_class(LinearRegressionScratch)
    def loss(self, y_hat, y):
        l = (y_hat - y) ** 2 / 2  # noqa: E741 - d2l's name
        return d2l.reduce_mean(l)

    @d2l.add_to_class(LinearRegressionScratch)
    def configure_optimizers(self):
        return d2l.SGD([self.w, self.b], self.lr)

    model = LinearRegressionScratch(2, lr=0.03)
    data = d2l.SyntheticRegressionData(w=torch.tensor([2, -3.4]), b=4.2)
    trainer = d2l.Trainer(max_epochs=3)
    trainer.fit(model, data)

    with torch.no_grad():
        print(f"error in estimating w: {data.w - d2l.reshape(model.w, data.w.shape)}")
        print(f"error in estimating b: {data.b - model.b}")
    return {"w": model.w, "b": model.b, "board": [p[2] for p in model.board.points]}


def linreg_concise():
    import torch
    from torch import nn

    d2l = d2l_lib.build()

    class LinearRegression(d2l.Module):
        """The linear regression model implemented with high-level APIs."""

        def __init__(self, lr):
            super().__init__()
            self.save_hyperparameters()
            self.net = nn.LazyLinear(1)
            self.net.weight.data.normal_(0, 0.01)
            self.net.bias.data.fill_(0)

    @d2l.add_to_class(LinearRegression)
    def forward(self, X):
        return self.net(X)

    @d2l.add_to_class(LinearRegression)
    def loss(self, y_hat, y):
        fn = nn.MSELoss()
        return fn(y_hat, y)

    @d2l.add_to_class(LinearRegression)
    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), self.lr)

    model = LinearRegression(lr=0.03)
    data = d2l.SyntheticRegressionData(w=torch.tensor([2, -3.4]), b=4.2)
    trainer = d2l.Trainer(max_epochs=3)
    trainer.fit(model, data)

    @d2l.add_to_class(LinearRegression)
    def get_w_b(self):
        return (self.net.weight.data, self.net.bias.data)

    w, b = model.get_w_b()

    print(f"error in estimating w: {data.w - d2l.reshape(w, data.w.shape)}")
    print(f"error in estimating b: {data.b - b}")
    return {"w": w, "b": b, "board": [p[2] for p in model.board.points]}


def mlp_scratch():
    import torch
    from torch import nn

    d2l = d2l_lib.build()

    class MLPScratch(d2l.Classifier):
        def __init__(self, num_inputs, num_outputs, num_hiddens, lr, sigma=0.01):
            super().__init__()
            self.save_hyperparameters()
            self.W1 = nn.Parameter(torch.randn(num_inputs, num_hiddens) * sigma)
            self.b1 = nn.Parameter(torch.zeros(num_hiddens))
            self.W2 = nn.Parameter(torch.randn(num_hiddens, num_outputs) * sigma)
            self.b2 = nn.Parameter(torch.zeros(num_outputs))

    def relu(X):
        a = torch.zeros_like(X)
        return torch.max(X, a)

    @d2l.add_to_class(MLPScratch)
    def forward(self, X):
        X = X.reshape((-1, self.num_inputs))
        H = relu(torch.matmul(X, self.W1) + self.b1)
        return torch.matmul(H, self.W2) + self.b2

    model = MLPScratch(num_inputs=784, num_outputs=10, num_hiddens=256, lr=0.1)
    data = d2l.FashionMNIST(batch_size=256)
    trainer = d2l.Trainer(max_epochs=2)  # the book: 10
    trainer.fit(model, data)
    return {"W2": model.W2, "b2": model.b2, "board": [p[2] for p in model.board.points]}
