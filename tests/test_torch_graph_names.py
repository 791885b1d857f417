"""The graph a tutorial prints, node by node, as PyTorch prints it (issue 12).

Tutorials show `y.grad_fn`, `y.grad_fn.next_functions`, and walk them. Each
program below runs on both libraries with the same numbers, and the whole
backward graph, (name, [children...]) from the root down, must be PyTorch's:
the names, the order of next_functions, and the None where an input needs no
gradient. Then the composite nodes (nn.Linear's AddmmBackward0 and TBackward0,
the losses' single nodes) are checked for their gradients, first and second,
against PyTorch's.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import autogradviz as agv
import autogradviz.nn.functional as agv_F

torch = pytest.importorskip("torch")
torch_F = torch.nn.functional

LIBS = {"agv": (agv, agv_F), "torch": (torch, torch_F)}


def graph(fn):
    """(name, [children...]) for a grad_fn and everything below it; None for a missing edge."""
    if fn is None:
        return None
    return (type(fn).__name__, [graph(child) for child, _ in fn.next_functions])


def data(seed: int, *shape: int) -> np.ndarray:
    return np.random.default_rng(seed).uniform(-1, 1, shape).astype(np.float32)


def t(lib, array, requires_grad=False):
    return lib.tensor(array, requires_grad=requires_grad)


# -- tutorial programs: each takes (lib, F) and returns the tensor whose graph is compared ---------


def blitz(lib, F):  # PyTorch's 60-minute blitz: y = x + 2; z = y * y * 3; out = z.mean()
    x = lib.ones(2, 2, requires_grad=True)
    y = x + 2
    z = y * y * 3
    return z.mean()


def scalar_program(expression):
    def program(lib, F):
        x = t(lib, np.abs(data(0, 3)) + 0.5, requires_grad=True)
        return expression(x)

    return program


def affine(lib, F):  # y = w * x + b
    x = t(lib, data(1, 3))
    w, b = t(lib, data(2, 3), True), t(lib, data(3, 3), True)
    return w * x + b


def matmul_vector(lib, F):
    return t(lib, data(4, 3), True) @ t(lib, data(5, 3), True)


def matmul_matrix(lib, F):
    return t(lib, data(4, 2, 3)) @ t(lib, data(5, 3, 4), True)


def same_parameters(lib, model, seed: int):
    """Give a model the same parameters in both libraries (their generators differ)."""
    with lib.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(t(lib, data(seed + i, *p.shape)))
    return model


def linear_mse_step(lib, F):  # the Linear + MSE training step of every regression tutorial
    model = same_parameters(lib, lib.nn.Linear(3, 1), 100)
    x, y = t(lib, data(6, 8, 3)), t(lib, data(7, 8, 1))
    return lib.nn.MSELoss()(model(x), y)


def logistic_regression(lib, F):  # sigmoid(x @ w + b), then its binary cross-entropy
    x, y = t(lib, data(8, 8, 2)), t(lib, (data(9, 8) > 0).astype(np.float32))
    w, b = t(lib, data(10, 2), True), t(lib, data(11, 1), True)
    p = lib.sigmoid(x @ w + b)
    return F.binary_cross_entropy(p, y)


def bce_with_logits_module(lib, F):
    x, y = t(lib, data(12, 4, 3), True), t(lib, (data(13, 4, 3) > 0).astype(np.float32))
    return lib.nn.BCEWithLogitsLoss(pos_weight=t(lib, np.array([1.0, 2.0, 0.5], np.float32)))(x, y)


def mlp_cross_entropy(lib, F):  # CrossEntropyLoss on a 2-layer MLP
    model = lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.ReLU(), lib.nn.Linear(8, 3))
    same_parameters(lib, model, 200)
    x, labels = t(lib, data(14, 5, 4)), lib.tensor([0, 2, 1, 1, 0])
    return lib.nn.CrossEntropyLoss()(model(x), labels)


def linear_shapes(shape, bias=True, input_grad=False):
    def program(lib, F):
        x = t(lib, data(15, *shape), input_grad)
        w = t(lib, data(16, 4, 3), True)
        b = t(lib, data(17, 4), True) if bias else None
        return F.linear(x, w, b)

    return program


def linear_weight_no_grad(lib, F):
    return F.linear(t(lib, data(18, 2, 3), True), t(lib, data(16, 4, 3)), t(lib, data(17, 4), True))


def linear_bias_with_batch_dims(lib, F):  # a (5, 4) bias on (2, 5, 3) input: added after the mm
    return F.linear(t(lib, data(19, 2, 5, 3)), t(lib, data(16, 4, 3), True), t(lib, data(20, 5, 4), True))


def mse_reductions(reduction):
    def program(lib, F):
        a, b = t(lib, data(21, 3, 2), True), t(lib, data(22, 3, 2))
        return F.mse_loss(a * 2, b, reduction=reduction)

    return program


def makemore_step(lib, F):  # Karpathy's makemore: embedding rows, tanh layer, cross-entropy
    C = t(lib, data(23, 27, 2), True)
    W1, b1 = t(lib, data(24, 6, 10), True), t(lib, data(25, 10), True)
    X = lib.tensor([[0, 5, 13], [5, 13, 13]])
    emb = C[X]
    h = lib.tanh(emb.view(-1, 6) @ W1 + b1)
    return F.cross_entropy(h, lib.tensor([1, 2]))


PROGRAMS = {
    "blitz": blitz,
    "2 * x": scalar_program(lambda x: 2 * x),
    "x * 2": scalar_program(lambda x: x * 2),
    "2 + x": scalar_program(lambda x: 2 + x),
    "2 - x": scalar_program(lambda x: 2 - x),
    "x - 2": scalar_program(lambda x: x - 2),
    "2 / x": scalar_program(lambda x: 2 / x),
    "x / 2": scalar_program(lambda x: x / 2),
    "2 ** x": scalar_program(lambda x: 2**x),
    "x ** 2": scalar_program(lambda x: x**2),
    "-x": scalar_program(lambda x: -x),
    "x.sum()": scalar_program(lambda x: x.sum()),
    "x.mean()": scalar_program(lambda x: x.mean()),
    "(3 * x ** 2 + 1 / x).sum()": scalar_program(lambda x: (3 * x**2 + 1 / x).sum()),
    "w * x + b": affine,
    "vector @ vector": matmul_vector,
    "matrix @ matrix": matmul_matrix,
    "Linear + MSELoss": linear_mse_step,
    "logistic regression": logistic_regression,
    "BCEWithLogitsLoss(pos_weight)": bce_with_logits_module,
    "MLP + CrossEntropyLoss": mlp_cross_entropy,
    "makemore": makemore_step,
    "linear (2, 3)": linear_shapes((2, 3)),
    "linear (2, 3), input requires grad": linear_shapes((2, 3), input_grad=True),
    "linear (3,)": linear_shapes((3,), input_grad=True),
    "linear (5, 2, 3)": linear_shapes((5, 2, 3), input_grad=True),
    "linear (2, 3), no bias": linear_shapes((2, 3), bias=False, input_grad=True),
    "linear (3,), no bias": linear_shapes((3,), bias=False, input_grad=True),
    "linear (5, 2, 3), no bias": linear_shapes((5, 2, 3), bias=False, input_grad=True),
    "linear, weight without grad": linear_weight_no_grad,
    "linear, bias with batch dims": linear_bias_with_batch_dims,
    "mse_loss mean": mse_reductions("mean"),
    "mse_loss sum": mse_reductions("sum"),
    "mse_loss none": mse_reductions("none"),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_the_whole_graph_is_pytorchs(name):
    program = PROGRAMS[name]
    ours, theirs = (program(*LIBS[lib]) for lib in ("agv", "torch"))
    assert graph(ours.grad_fn) == graph(theirs.grad_fn)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_scalar_operands_are_drawn_where_the_learner_wrote_them():
    # PyTorch records 2 * x as x * 2 (the tensor first); the drawing still reads "2 *"
    x = agv.tensor([1.0, 2.0], requires_grad=True)
    labels = {"2 * x": 2 * x, "2 + x": 2 + x, "x * 2": x * 2, "x + 2": x + 2}
    assert {k: v.grad_fn.label for k, v in labels.items()} == {
        "2 * x": "2 *",
        "2 + x": "2 +",
        "x * 2": "* 2",
        "x + 2": "+ 2",
    }
    r = 2 / x  # reciprocal(x) * 2, as PyTorch computes it
    assert r.grad_fn.label == "2 *" and r.grad_fn.next_functions[0][0].label == "reciprocal"
    # and the numbers are PyTorch's, to the last digit
    xt = torch.tensor([1.0, 2.0, 3.0, 7.0])
    assert np.array_equal((2 / agv.tensor([1.0, 2.0, 3.0, 7.0])).numpy(), (2 / xt).numpy())


def test_reflected_ops_keep_values_and_gradients():
    for op in (lambda x: 2 * x, lambda x: 2.5 + x, lambda x: 3 / x, lambda x: 1 - x):
        x = agv.tensor([0.5, 2.0, -3.0], requires_grad=True)
        xt = torch.tensor([0.5, 2.0, -3.0], requires_grad=True)
        y, yt = op(x), op(xt)
        np.testing.assert_array_equal(y.detach().numpy(), yt.detach().numpy())
        (g,) = agv.grad(y.sum(), x, create_graph=True)
        (gt,) = torch.autograd.grad(yt.sum(), xt, create_graph=True)
        np.testing.assert_allclose(g.detach().numpy(), gt.detach().numpy(), rtol=1e-6)
        if gt.requires_grad:  # 3 / x has a second derivative
            np.testing.assert_allclose(
                agv.grad(g.sum(), x)[0].numpy(), torch.autograd.grad(gt.sum(), xt)[0].numpy(), rtol=1e-6
            )


def test_grad_fn_reprs_have_no_memory_address():
    # the one deliberate difference: PyTorch prints <AddmmBackward0 object at 0x7f...>, which
    # changes on every run; a notebook checked by nbval must print the same thing every time
    layer = agv.nn.Linear(3, 2)
    y = layer(agv.ones(4, 3))
    assert repr(y.grad_fn) == "<AddmmBackward0>"
    assert repr(y.grad_fn.next_functions) == "((<AccumulateGrad>, 0), (None, 0), (<TBackward0>, 0))"
    theirs = repr(torch.nn.Linear(3, 2)(torch.ones(4, 3)).grad_fn)
    assert re.fullmatch(r"<AddmmBackward0 object at 0x[0-9a-f]+>", theirs)
    assert "grad_fn=<AddmmBackward0>" in repr(y)
    assert "memory address" in agv.Node.__repr__.__doc__  # the difference is documented where it is made


# -- gradients through the composite nodes, first and second order -----------------------------------


def grads(lib, make, dtype, create_graph=True):
    """The first and second derivatives of make(...).sum() (or of a loss) w.r.t. each leaf."""
    tensors, out = make(lib, dtype)
    leaves = [x for x in tensors if x.requires_grad]
    first = (agv.grad if lib is agv else torch.autograd.grad)(out.sum(), leaves, create_graph=True)
    total = sum((g * g).sum() for g in first)
    second = (agv.grad if lib is agv else torch.autograd.grad)(total, leaves, allow_unused=True)
    return out, first, second


def compare(make, dtype_name):
    results = []
    for lib in (agv, torch):
        dtype = getattr(lib, dtype_name)
        results.append(grads(lib, make, dtype))
    (out, first, second), (out_t, first_t, second_t) = results
    rtol = 1e-5 if dtype_name == "float32" else 1e-10
    np.testing.assert_allclose(out.detach().numpy(), out_t.detach().numpy(), rtol=rtol, atol=rtol)
    assert out.dtype.__repr__().split(".")[-1] == str(out_t.dtype).split(".")[-1]
    for g, g_t in zip(first, first_t):
        assert g.dtype.__repr__().split(".")[-1] == str(g_t.dtype).split(".")[-1]
        np.testing.assert_allclose(g.detach().numpy(), g_t.detach().numpy(), rtol=rtol, atol=rtol)
    for g, g_t in zip(second, second_t):
        if g_t is None:
            assert g is None or not np.any(g.numpy())
        else:
            np.testing.assert_allclose(g.numpy(), g_t.numpy(), rtol=rtol * 10, atol=rtol)


def leaf(lib, array, dtype, requires_grad=True):
    return lib.tensor(array.astype(np.float64), dtype=dtype, requires_grad=requires_grad)


LINEAR_CASES = {
    "2-D": ((4, 3), (5,)),
    "1-D": ((3,), (5,)),
    "3-D": ((2, 4, 3), (5,)),
    "no bias": ((4, 3), None),
    "1-D, no bias": ((3,), None),
    "3-D, no bias": ((2, 4, 3), None),
    "bias (1,)": ((4, 3), (1,)),
    "bias 0-d": ((4, 3), ()),
    "bias (2, 4, 5)": ((2, 4, 3), (2, 4, 5)),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", sorted(LINEAR_CASES))
def test_linear_gradients_match_torch(case, dtype):
    x_shape, b_shape = LINEAR_CASES[case]

    def make(lib, dt):
        F = LIBS["agv" if lib is agv else "torch"][1]
        x = leaf(lib, data(30, *x_shape), dt)
        w = leaf(lib, data(31, 5, 3), dt)
        b = None if b_shape is None else leaf(lib, data(32, *b_shape), dt)
        out = F.linear(x, w, b)
        return [x, w] + ([] if b is None else [b]), out * out  # squared: a second derivative to check

    compare(make, dtype)


def test_addmm_matches_torch():
    def make(lib, dt):
        bias, m1, m2 = (
            leaf(lib, data(33, 4), dt),
            leaf(lib, data(34, 2, 3), dt),
            leaf(lib, data(35, 3, 4), dt),
        )
        out = lib.addmm(bias, m1, m2, beta=0.5, alpha=2.0)
        return [bias, m1, m2], out * out

    compare(make, "float64")
    assert type(
        agv.addmm(agv.ones(4), agv.ones(2, 3), agv.ones(3, 4, requires_grad=True)).grad_fn
    ).__name__ == ("AddmmBackward0")
    for args in (
        (agv.ones(4), agv.ones(2, 3), agv.ones(4, 5)),
        (agv.ones(4), agv.ones(3), agv.ones(3, 4)),
        (agv.ones(3), agv.ones(2, 3), agv.ones(3, 4)),
    ):
        torch_args = [torch.ones(*a.shape) for a in args]
        with pytest.raises(RuntimeError) as theirs:
            torch.addmm(*torch_args)
        with pytest.raises(RuntimeError) as ours:
            agv.addmm(*args)
        assert str(ours.value).startswith(str(theirs.value).split(".")[0])


def test_linear_saved_weight_is_checked_for_in_place_changes():
    # Wᵀ is a view of W (TBackward0): an optimizer step between forward and backward is
    # caught, as in PyTorch, instead of silently using the new weights
    for lib in (agv, torch):
        layer = lib.nn.Linear(3, 2)
        h = lib.ones(4, 3, requires_grad=True)
        y = layer(h)
        with lib.no_grad():
            layer.weight.add_(1.0)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()


LOSS_CASES = {
    "mse mean": lambda lib, F, a, y: F.mse_loss(a, y),
    "mse sum": lambda lib, F, a, y: F.mse_loss(a, y, reduction="sum"),
    "mse none": lambda lib, F, a, y: F.mse_loss(a, y, reduction="none"),
    "bce mean": lambda lib, F, a, y: F.binary_cross_entropy(lib.sigmoid(a), y),
    "bce sum": lambda lib, F, a, y: F.binary_cross_entropy(lib.sigmoid(a), y, reduction="sum"),
    "bce none, weight": lambda lib, F, a, y: F.binary_cross_entropy(
        lib.sigmoid(a), y, weight=lib.tensor([1.0, 2.0, 0.5], dtype=a.dtype), reduction="none"
    ),
    "bce mean, weight": lambda lib, F, a, y: F.binary_cross_entropy(
        lib.sigmoid(a), y, weight=lib.tensor([1.0, 2.0, 0.5], dtype=a.dtype)
    ),
    "bce logits mean": lambda lib, F, a, y: F.binary_cross_entropy_with_logits(a, y),
    "bce logits sum": lambda lib, F, a, y: F.binary_cross_entropy_with_logits(a, y, reduction="sum"),
    "bce logits none": lambda lib, F, a, y: F.binary_cross_entropy_with_logits(a, y, reduction="none"),
    "bce logits weight, pos_weight": lambda lib, F, a, y: F.binary_cross_entropy_with_logits(
        a,
        y,
        weight=lib.tensor([[1.0, 2.0, 0.5]], dtype=a.dtype),
        pos_weight=lib.tensor([3.0, 0.5, 1.0], dtype=a.dtype),
    ),
}
NODE_OF_LOSS = {
    "mse": "MseLossBackward0",
    "bce": "BinaryCrossEntropyBackward0",
    "bce logits": "BinaryCrossEntropyWithLogitsBackward0",
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", sorted(LOSS_CASES))
@pytest.mark.parametrize("target_grad", [False, True])
def test_loss_nodes_match_torch(case, dtype, target_grad):
    loss = LOSS_CASES[case]

    def make(lib, dt):
        F = LIBS["agv" if lib is agv else "torch"][1]
        a = leaf(lib, data(40, 4, 3), dt)
        y = leaf(lib, np.abs(data(41, 4, 3)), dt, requires_grad=target_grad)
        return [a, y], loss(lib, F, a, y)

    compare(make, dtype)
    _, out = make(agv, getattr(agv, dtype))
    node = out.grad_fn
    kind = "bce logits" if "logits" in case else case.split()[0]
    assert type(node).__name__ == NODE_OF_LOSS[kind]  # one node, reduction included
    assert node.op and len(node.rules) == 2 and not node.elementwise


def test_loss_weights_that_require_grad_are_refused_as_in_torch():
    for lib in (agv, torch):
        F = LIBS["agv" if lib is agv else "torch"][1]
        p, y, w = lib.tensor([0.3, 0.6]), lib.tensor([0.0, 1.0]), lib.tensor([1.0, 2.0], requires_grad=True)
        with pytest.raises(RuntimeError) as error:
            F.binary_cross_entropy(p, y, weight=w)
        assert str(error.value) == (
            "The function 'binary_cross_entropy' is not differentiable with respect to argument 'weight'. "
            "This input cannot have requires_grad True."
        )
        with pytest.raises(RuntimeError, match="with respect to argument 'pos_weight'"):
            F.binary_cross_entropy_with_logits(p, y, pos_weight=w)


def test_cross_entropy_records_nll_loss_over_log_softmax():
    for reduction in ("mean", "sum", "none"):
        graphs = []
        for lib, F in LIBS.values():
            logits = t(lib, data(50, 3, 4), True)
            graphs.append(graph(F.cross_entropy(logits, lib.tensor([0, 3, 1]), reduction=reduction).grad_fn))
        assert (
            graphs[0]
            == graphs[1]
            == ("NllLossBackward0", [("LogSoftmaxBackward0", [("AccumulateGrad", [])])])
        )


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_with_class_probabilities_records_torchs_ops(reduction, weighted):
    results = []
    for lib, F in LIBS.values():
        logits = leaf(lib, data(51, 3, 4), lib.float64)
        target = lib.tensor(np.abs(data(52, 3, 4)).astype(np.float64))
        weight = lib.tensor(np.array([1.0, 2.0, 0.5, 1.5])) if weighted else None
        loss = F.cross_entropy(logits, target, weight=weight, reduction=reduction)
        (g,) = (agv.grad if lib is agv else torch.autograd.grad)(loss.sum(), logits)
        results.append((graph(loss.grad_fn), loss.detach().numpy(), g.numpy()))
    (ours, value, g), (theirs, value_t, g_t) = results
    assert ours == theirs  # DivBackward1(NegBackward0(SumBackward0(MulBackward0(...)))) for the mean
    np.testing.assert_allclose(value, value_t, rtol=1e-12)
    np.testing.assert_allclose(g, g_t, rtol=1e-12)


def test_empty_mse_mean_is_nan_as_in_torch():
    assert np.isnan(agv_F.mse_loss(agv.zeros(0), agv.zeros(0)).item())
    assert np.isnan(torch_F.mse_loss(torch.zeros(0), torch.zeros(0)).item())
    assert agv_F.mse_loss(agv.zeros(0), agv.zeros(0), reduction="sum").item() == 0.0
    with pytest.raises(ValueError, match="bad is not a valid value for reduction"):
        agv_F.mse_loss(agv.zeros(2), agv.zeros(2), reduction="bad")


# -- nn.LazyLinear -------------------------------------------------------------------------------------


def test_lazy_linear_infers_in_features_as_torch():
    outputs = {}
    for name, lib in (("agv", agv), ("torch", torch)):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.LazyLinear(6), lib.nn.ReLU(), lib.nn.LazyLinear(2))
        before = repr(model), [repr(p) for p in model.parameters()]
        opt = lib.optim.SGD(model.parameters(), lr=0.1)  # made before the first call
        x = lib.tensor(data(60, 5, 4))
        lib.manual_seed(1)
        loss = model(x).pow(2).mean()
        after = repr(model)
        loss.backward()
        opt.step()
        outputs[name] = (before, after, [p.detach().numpy().copy() for p in model.parameters()], model)
    assert outputs["agv"][0] == outputs["torch"][0]
    assert outputs["agv"][0][0] == (
        "Sequential(\n  (0): LazyLinear(in_features=0, out_features=6, bias=True)\n  (1): ReLU()\n"
        "  (2): LazyLinear(in_features=0, out_features=2, bias=True)\n)"
    )
    assert outputs["agv"][0][1] == ["<UninitializedParameter>"] * 4
    assert outputs["agv"][1] == outputs["torch"][1]
    assert "Linear(in_features=4, out_features=6, bias=True)" in outputs["agv"][1]
    model = outputs["agv"][3]
    assert type(model[0]) is agv.nn.Linear and type(model[2]) is agv.nn.Linear
    assert [p.shape for p in model.parameters()] == [(6, 4), (6,), (2, 6), (2,)]
    # the optimizer made before the first call moved the parameters it was given
    assert all(p.grad is not None for p in model.parameters())


def test_lazy_linear_initialises_like_linear_from_the_same_seed():
    agv.manual_seed(3)
    lazy = agv.nn.LazyLinear(4, bias=False)
    assert (
        lazy.has_uninitialized_params()
        and repr(lazy) == "LazyLinear(in_features=0, out_features=4, bias=False)"
    )
    lazy(agv.ones(2, 3))
    agv.manual_seed(3)
    plain = agv.nn.Linear(3, 4, bias=False)
    np.testing.assert_array_equal(lazy.weight.detach().numpy(), plain.weight.detach().numpy())
    with pytest.raises(RuntimeError, match="expected input with last dimension 3"):
        lazy(agv.ones(2, 5))  # now an ordinary Linear(3, 4)
    with pytest.raises(IndexError, match="a 0-d input has no last dimension"):
        agv.nn.LazyLinear(2)(agv.tensor(1.0))
