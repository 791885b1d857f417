"""PyTorch's own autograd tutorials.

blitz:    pytorch/tutorials, beginner_source/blitz/autograd_tutorial.py
          ("A Gentle Introduction to torch.autograd"). Edit: torchvision's pretrained
          resnet18 (a download) is replaced by a small model of the same shape of use
          (`TinyResNet`: conv, pool, and a 512 -> 1000 `fc` that the tutorial swaps).
blitz_legacy: the same file before the resnet18 rewrite ("Autograd: automatic
          differentiation", x = torch.ones(2, 2, requires_grad=True) ...), still the
          version most copies on the web follow. No edits.
basics:   pytorch/tutorials, beginner_source/basics/autogradqs_tutorial.py
          ("Automatic Differentiation with torch.autograd"). No edits.
introyt:  pytorch/tutorials, beginner_source/introyt/autogradyt_tutorial.py
          ("The Fundamentals of Autograd"). Edits: the matplotlib plots are left out;
          a notebook cell's displayed value (jacobian, vjp) is printed. The stored
          version calls `optimizer.zero_grad()` and then indexes the gradient, which
          fails on PyTorch >= 2.0 (grads are set to None): the current tutorial's
          `zero_grad(set_to_none=False)` is used.
"""


def blitz():
    import torch

    # -- stand-in for `resnet18(weights=ResNet18_Weights.DEFAULT)` (a download) --
    class TinyResNet(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = torch.nn.Conv2d(3, 8, kernel_size=3, padding=1)
            self.relu = torch.nn.ReLU()
            self.avgpool = torch.nn.AdaptiveAvgPool2d((1, 1))
            self.expand = torch.nn.Linear(8, 512)
            self.fc = torch.nn.Linear(512, 1000)

        def forward(self, x):
            x = self.avgpool(self.relu(self.conv1(x)))
            return self.fc(self.relu(self.expand(torch.flatten(x, 1))))

    def resnet18():
        return TinyResNet()

    # -- the tutorial --
    model = resnet18()
    data = torch.rand(1, 3, 64, 64)
    labels = torch.rand(1, 1000)

    prediction = model(data)  # forward pass
    loss = (prediction - labels).sum()
    loss.backward()  # backward pass
    optim = torch.optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)
    optim.step()  # gradient descent

    a = torch.tensor([2.0, 3.0], requires_grad=True)
    b = torch.tensor([6.0, 4.0], requires_grad=True)
    Q = 3 * a**3 - b**2
    external_grad = torch.tensor([1.0, 1.0])
    Q.backward(gradient=external_grad)
    # check if collected gradients are correct
    print(9 * a**2 == a.grad)
    print(-2 * b == b.grad)

    x = torch.rand(5, 5)
    y = torch.rand(5, 5)
    z = torch.rand((5, 5), requires_grad=True)

    a = x + y
    print(f"Does `a` require gradients?: {a.requires_grad}")
    b = x + z
    print(f"Does `b` require gradients?: {b.requires_grad}")

    from torch import nn, optim

    model_before = model
    model = resnet18()
    # Freeze all the parameters in the network
    for param in model.parameters():
        param.requires_grad = False
    model.fc = nn.Linear(512, 10)
    # Optimize only the classifier
    optimizer = optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)

    # (harness) the values compared with torch's run
    trainable = [name for name, p in model.named_parameters() if p.requires_grad]
    return {
        "loss": loss,
        "fc.weight": model_before.fc.weight,
        "conv1.weight.grad": model_before.conv1.weight.grad,
        "Q": Q,
        "trainable": trainable,
        "optimizer params": len(optimizer.param_groups[0]["params"]),
    }


def blitz_legacy():
    import torch

    x = torch.ones(2, 2, requires_grad=True)
    print(x)

    y = x + 2
    print(y)
    print(y.grad_fn)

    z = y * y * 3
    out = z.mean()

    print(z, out)

    a = torch.randn(2, 2)
    a = (a * 3) / (a - 1)
    print(a.requires_grad)
    a.requires_grad_(True)
    print(a.requires_grad)
    b = (a * a).sum()
    print(b.grad_fn)

    out.backward()
    print(x.grad)

    x = torch.randn(3, requires_grad=True)

    y = x * 2
    while y.data.norm() < 1000:
        y = y * 2

    print(y)

    gradients = torch.tensor([0.1, 1.0, 0.0001], dtype=torch.float)
    y.backward(gradients)

    print(x.grad)

    print(x.requires_grad)
    print((x**2).requires_grad)

    with torch.no_grad():
        print((x**2).requires_grad)
    return {"x.grad": x.grad, "b": b}


def basics():
    import torch

    x = torch.ones(5)  # input tensor
    y = torch.zeros(3)  # expected output
    w = torch.randn(5, 3, requires_grad=True)
    b = torch.randn(3, requires_grad=True)
    z = torch.matmul(x, w) + b
    loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)

    print(f"Gradient function for z = {z.grad_fn}")
    print(f"Gradient function for loss = {loss.grad_fn}")

    loss.backward()
    print(w.grad)
    print(b.grad)

    z = torch.matmul(x, w) + b
    print(z.requires_grad)

    with torch.no_grad():
        z = torch.matmul(x, w) + b
    print(z.requires_grad)

    z = torch.matmul(x, w) + b
    z_det = z.detach()
    print(z_det.requires_grad)

    inp = torch.eye(4, 5, requires_grad=True)
    out = (inp + 1).pow(2).t()
    out.backward(torch.ones_like(out), retain_graph=True)
    print(f"First call\n{inp.grad}")
    out.backward(torch.ones_like(out), retain_graph=True)
    print(f"\nSecond call\n{inp.grad}")
    inp.grad.zero_()
    out.backward(torch.ones_like(out), retain_graph=True)
    print(f"\nCall after zeroing gradients\n{inp.grad}")

    return {"loss": loss, "w.grad": w.grad, "b.grad": b.grad, "inp.grad": inp.grad}


def introyt():
    import math

    import torch

    a = torch.linspace(0.0, 2.0 * math.pi, steps=25, requires_grad=True)
    print(a)

    b = torch.sin(a)
    print(b)

    c = 2 * b
    print(c)

    d = c + 1
    print(d)

    out = d.sum()
    print(out)

    print("d:")
    print(d.grad_fn)
    print(d.grad_fn.next_functions)
    print(d.grad_fn.next_functions[0][0].next_functions)
    print(d.grad_fn.next_functions[0][0].next_functions[0][0].next_functions)
    print(d.grad_fn.next_functions[0][0].next_functions[0][0].next_functions[0][0].next_functions)
    print("\nc:")
    print(c.grad_fn)
    print("\nb:")
    print(b.grad_fn)
    print("\na:")
    print(a.grad_fn)

    out.backward()
    print(a.grad)

    BATCH_SIZE = 16
    DIM_IN = 1000
    HIDDEN_SIZE = 100  # noqa: F841 - the tutorial's constant
    DIM_OUT = 10

    class TinyModel(torch.nn.Module):
        def __init__(self):
            super(TinyModel, self).__init__()  # noqa: UP008 - the tutorial's spelling

            self.layer1 = torch.nn.Linear(1000, 100)
            self.relu = torch.nn.ReLU()
            self.layer2 = torch.nn.Linear(100, 10)

        def forward(self, x):
            x = self.layer1(x)
            x = self.relu(x)
            x = self.layer2(x)
            return x

    some_input = torch.randn(BATCH_SIZE, DIM_IN, requires_grad=False)
    ideal_output = torch.randn(BATCH_SIZE, DIM_OUT, requires_grad=False)

    model = TinyModel()

    print(model.layer2.weight[0][0:10])  # just a small slice
    print(model.layer2.weight.grad)

    optimizer = torch.optim.SGD(model.parameters(), lr=0.001)

    prediction = model(some_input)

    loss = (ideal_output - prediction).pow(2).sum()
    print(loss)

    loss.backward()
    print(model.layer2.weight[0][0:10])
    print(model.layer2.weight.grad[0][0:10])

    optimizer.step()
    print(model.layer2.weight[0][0:10])
    print(model.layer2.weight.grad[0][0:10])

    print(model.layer2.weight.grad[0][0:10])

    for i in range(0, 5):
        prediction = model(some_input)
        loss = (ideal_output - prediction).pow(2).sum()
        loss.backward()

    print(model.layer2.weight.grad[0][0:10])

    optimizer.zero_grad(set_to_none=False)

    print(model.layer2.weight.grad[0][0:10])

    a = torch.ones(2, 3, requires_grad=True)
    print(a)

    b1 = 2 * a
    print(b1)

    a.requires_grad = False
    b2 = 2 * a
    print(b2)

    a = torch.ones(2, 3, requires_grad=True) * 2
    b = torch.ones(2, 3, requires_grad=True) * 3

    c1 = a + b
    print(c1)

    with torch.no_grad():
        c2 = a + b

    print(c2)

    c3 = a * b
    print(c3)

    def add_tensors1(x, y):
        return x + y

    @torch.no_grad()
    def add_tensors2(x, y):
        return x + y

    a = torch.ones(2, 3, requires_grad=True) * 2
    b = torch.ones(2, 3, requires_grad=True) * 3

    c1 = add_tensors1(a, b)
    print(c1)

    c2 = add_tensors2(a, b)
    print(c2)

    x = torch.rand(5, requires_grad=True)
    y = x.detach()

    print(x)
    print(y)

    device = torch.device("cpu")
    run_on_gpu = False
    if torch.cuda.is_available():
        device = torch.device("cuda")  # noqa: F841 - the tutorial's variable
        run_on_gpu = True

    x = torch.randn(2, 3, requires_grad=True)
    y = torch.rand(2, 3, requires_grad=True)
    z = torch.ones(2, 3, requires_grad=True)

    with torch.autograd.profiler.profile(use_cuda=run_on_gpu) as prf:
        for _ in range(1000):
            z = (z / x) * y

    print(prf.key_averages().table(sort_by="self_cpu_time_total"))

    x = torch.randn(3, requires_grad=True)

    y = x * 2
    while y.data.norm() < 1000:
        y = y * 2

    print(y)

    v = torch.tensor([0.1, 1.0, 0.0001], dtype=torch.float)  # stand-in for gradients
    y.backward(v)

    print(x.grad)

    def exp_adder(x, y):
        return 2 * x.exp() + 3 * y

    inputs = (torch.rand(1), torch.rand(1))  # arguments for the function
    print(inputs)
    print(torch.autograd.functional.jacobian(exp_adder, inputs))

    inputs = (torch.rand(3), torch.rand(3))  # arguments for the function
    print(inputs)
    print(torch.autograd.functional.jacobian(exp_adder, inputs))

    def do_some_doubling(x):
        y = x * 2
        while y.data.norm() < 1000:
            y = y * 2
        return y

    inputs = torch.randn(3)
    my_gradients = torch.tensor([0.1, 1.0, 0.0001])
    print(torch.autograd.functional.vjp(do_some_doubling, inputs, v=my_gradients))

    return {"layer2.weight": model.layer2.weight, "x.grad": x.grad, "z": z}
