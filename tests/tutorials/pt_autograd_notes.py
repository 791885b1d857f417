"""PyTorch's "Autograd mechanics" note (pytorch/pytorch, docs/source/notes/autograd.rst):
its code snippets that run on the CPU, each in order, with `>>>` lines printed.

requires_grad:  "Setting requires_grad" (x + y, then + z).
saved_tensors:  "Saved tensors" (_saved_self, _saved_result).
threads:        "Multithreaded Autograd" (train_fn in 10 threads).
saved_hooks:    "Hooks for saved tensors" (pack_hook / unpack_hook printing).
"""


def requires_grad():
    import torch

    x = torch.randn(5, 5)  # requires_grad=False by default
    y = torch.randn(5, 5)  # requires_grad=False by default
    z = torch.randn((5, 5), requires_grad=True)
    a = x + y
    print(a.requires_grad)
    b = a + z
    print(b.requires_grad)
    return {"b": b}


def saved_tensors():
    import torch

    x = torch.randn(5, requires_grad=True)
    y = x.pow(2)
    print(x.equal(y.grad_fn._saved_self))  # True
    print(x is y.grad_fn._saved_self)  # True

    x = torch.randn(5, requires_grad=True)
    y = x.exp()
    print(y.equal(y.grad_fn._saved_result))  # True
    print(y is y.grad_fn._saved_result)  # False
    return {"y": y}


def threads():
    import threading

    import torch

    grads = []

    # Define a train function to be used in different threads
    def train_fn():
        x = torch.ones(5, 5, requires_grad=True)
        # forward
        y = (x + 3) * (x + 4) * 0.5
        # backward
        y.sum().backward()
        # potential optimizer update
        grads.append(x.grad)  # (harness) kept, to compare

    # User write their own threading code to drive the train_fn
    threads = []
    for _ in range(10):
        p = threading.Thread(target=train_fn, args=())
        p.start()
        threads.append(p)

    for p in threads:
        p.join()
    return {"grads": grads}


def saved_hooks():
    import torch

    def pack_hook(x):
        print("Packing", x)
        return x

    def unpack_hook(x):
        print("Unpacking", x)
        return x

    a = torch.ones(5, requires_grad=True)
    b = torch.ones(5, requires_grad=True) * 2
    with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
        y = a * b

    y.sum().backward()
    return {"a.grad": a.grad}
