"""agv.optim against torch.optim: the same 2-layer MLP, built from plain ops in
both libraries with the same float64 weights, trained 20 steps; the weights must
agree after every step. Then zero_grad, state_dict, both spellings, and errors."""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest

import autogradviz as agv
from autogradviz import optim

try:
    import torch
except ImportError:  # the parity tests skip; the rest still run
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch (the test oracle) is not installed")

STEPS = 20
TOL = 1e-6


def initial_weights():
    rng = np.random.default_rng(1234)
    return {
        "W1": rng.standard_normal((4, 8)) * 0.5,
        "b1": rng.standard_normal(8) * 0.1,
        "W2": rng.standard_normal((8, 3)) * 0.5,
        "b2": rng.standard_normal(3) * 0.1,
    }


def batch():
    rng = np.random.default_rng(99)
    X = rng.standard_normal((16, 4))
    return X, rng.standard_normal((16, 3)), rng.integers(0, 3, 16)


class AgvModel:
    def __init__(self, dtype=np.float64):
        self.dtype = dtype
        self.params = {
            k: agv.tensor(v.astype(dtype), requires_grad=True) for k, v in initial_weights().items()
        }
        for k, p in self.params.items():
            p.name = k

    def loss(self, kind, X, Y, labels):
        p = self.params
        out = agv.tanh(agv.tensor(X.astype(self.dtype)) @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]
        if kind == "mse":
            return ((out - agv.tensor(Y.astype(self.dtype))) ** 2).mean()
        logp = agv.log_softmax(out, dim=1)
        return -logp[np.arange(len(labels)), labels].mean()


class TorchModel:
    def __init__(self, dtype=torch.float64 if torch else None):
        self.params = {
            k: torch.tensor(v, dtype=dtype, requires_grad=True) for k, v in initial_weights().items()
        }

    def loss(self, kind, X, Y, labels):
        p = self.params
        dtype = p["W1"].dtype
        out = torch.tanh(torch.tensor(X, dtype=dtype) @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]
        if kind == "mse":
            return ((out - torch.tensor(Y, dtype=dtype)) ** 2).mean()
        logp = torch.log_softmax(out, dim=1)
        return -logp[torch.arange(len(labels)), torch.tensor(labels)].mean()


def assert_params_match(ours: AgvModel, theirs: TorchModel, step, tol=TOL):
    for k in ours.params:
        np.testing.assert_allclose(
            ours.params[k].detach().numpy(),
            theirs.params[k].detach().numpy(),
            rtol=tol,
            atol=tol,
            err_msg=f"{k} after step {step}",
        )


def train_both(make_ours, make_theirs, kind, steps=STEPS, ours=None, theirs=None, tol=TOL):
    ours = ours or AgvModel()
    theirs = theirs or TorchModel()
    opt, topt = make_ours(ours), make_theirs(theirs)
    X, Y, labels = batch()
    for step in range(1, steps + 1):
        opt.zero_grad()
        topt.zero_grad()
        ours.loss(kind, X, Y, labels).backward()
        theirs.loss(kind, X, Y, labels).backward()
        opt.step()
        topt.step()
        assert_params_match(ours, theirs, step, tol)
    return ours, theirs, opt, topt


CASES = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.5)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True)),
    ("SGD", dict(lr=0.1, weight_decay=0.1)),
    ("SGD", dict(lr=0.05, momentum=0.8, weight_decay=0.05, nesterov=True)),
    ("SGD", dict(lr=0.01, momentum=0.5, maximize=True)),
    ("Adam", dict()),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, betas=(0.8, 0.99), eps=1e-3)),
    ("Adam", dict(lr=0.01, weight_decay=0.1)),
    ("Adam", dict(lr=0.01, amsgrad=True)),
    ("Adam", dict(lr=0.01, amsgrad=True, weight_decay=0.05)),
    ("Adam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("Adam", dict(lr=0.01, maximize=True)),
    ("AdamW", dict(lr=0.01)),
    ("AdamW", dict(lr=0.01, weight_decay=0.3)),
    ("AdamW", dict(lr=0.01, weight_decay=0.1, amsgrad=True, betas=(0.5, 0.9))),
    ("RMSprop", dict()),
    ("RMSprop", dict(lr=0.001, alpha=0.9)),
    ("RMSprop", dict(lr=0.001, centered=True)),
    ("RMSprop", dict(lr=0.001, momentum=0.9)),
    ("RMSprop", dict(lr=0.001, momentum=0.9, centered=True, weight_decay=0.1)),
    ("RMSprop", dict(lr=0.001, weight_decay=0.2, eps=1e-4)),
]


def case_id(case):
    name, kw = case
    return name + "(" + ",".join(f"{k}={v}" for k, v in kw.items()) + ")"


@needs_torch
@pytest.mark.parametrize("kind", ["mse", "nll"])
@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_matches_torch_every_step(case, kind):
    name, kw = case
    train_both(
        lambda m: getattr(optim, name)(m.params.values(), **kw),
        lambda m: getattr(torch.optim, name)(m.params.values(), **kw),
        kind,
    )


@needs_torch
@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop"])
def test_paddle_spelling_matches_torch(name):
    kw = {"SGD": dict(momentum=0.9), "Adam": dict(weight_decay=0.01), "AdamW": {}, "RMSprop": {}}[name]
    train_both(
        lambda m: getattr(optim, name)(learning_rate=0.01, parameters=m.params.values(), **kw),
        lambda m: getattr(torch.optim, name)(m.params.values(), lr=0.01, **kw),
        "nll",
    )


@needs_torch
def test_paddle_adam_of_the_lesson():
    """The seed tutorial's call: Adam(learning_rate=0.001, parameters=model.parameters())."""
    train_both(
        lambda m: optim.Adam(learning_rate=0.001, parameters=iter(m.params.values())),
        lambda m: torch.optim.Adam(m.params.values(), lr=0.001),
        "mse",
    )


@needs_torch
def test_param_groups_with_their_own_hyperparameters():
    def groups(m):
        p = m.params
        return [{"params": [p["W1"], p["b1"]]}, {"params": [p["W2"], p["b2"]], "lr": 0.1, "momentum": 0.5}]

    _, _, opt, _ = train_both(
        lambda m: optim.SGD(groups(m), lr=0.01, momentum=0.9),
        lambda m: torch.optim.SGD(groups(m), lr=0.01, momentum=0.9),
        "nll",
    )
    assert [g["lr"] for g in opt.param_groups] == [0.01, 0.1]
    assert [g["momentum"] for g in opt.param_groups] == [0.9, 0.5]
    assert opt.param_groups[0]["nesterov"] is False  # filled in from the defaults


@needs_torch
def test_named_parameters_are_accepted():
    _, _, opt, topt = train_both(
        lambda m: optim.Adam(m.params.items(), lr=0.01),
        lambda m: torch.optim.Adam(m.params.items(), lr=0.01),
        "mse",
        steps=3,
    )
    assert (
        opt.param_groups[0]["param_names"] == topt.param_groups[0]["param_names"] == ["W1", "b1", "W2", "b2"]
    )


@needs_torch
@pytest.mark.parametrize("name", ["SGD", "Adam", "RMSprop"])
def test_float32_parameters_keep_their_dtype(name):
    kw = dict(lr=0.01, momentum=0.9) if name != "Adam" else dict(lr=0.01, amsgrad=True)
    ours, theirs = AgvModel(np.float32), TorchModel(torch.float32)
    _, _, opt, _ = train_both(
        lambda m: getattr(optim, name)(m.params.values(), **kw),
        lambda m: getattr(torch.optim, name)(m.params.values(), **kw),
        "nll",
        ours=ours,
        theirs=theirs,
        tol=1e-5,
    )
    for p in ours.params.values():
        assert p.dtype == agv.float32
        assert all(v.dtype == agv.float32 for v in opt.state[p].values() if isinstance(v, agv.Tensor))


@needs_torch
def test_a_parameter_without_grad_is_skipped():
    """A tensor the loss did not use keeps .grad None: no step, no state (as in torch)."""
    unused = agv.ones(3, requires_grad=True)
    tunused = torch.ones(3, requires_grad=True)
    _, _, opt, topt = train_both(
        lambda m: optim.Adam([*m.params.values(), unused], lr=0.1, weight_decay=0.1),
        lambda m: torch.optim.Adam([*m.params.values(), tunused], lr=0.1, weight_decay=0.1),
        "mse",
        steps=3,
    )
    assert unused.grad is None and unused.tolist() == [1.0, 1.0, 1.0]
    assert len(opt.state[unused]) == 0 and len(topt.state[tunused]) == 0


@needs_torch
def test_state_matches_torch_names_and_values():
    _, theirs, opt, topt = train_both(
        lambda m: optim.Adam(m.params.values(), lr=0.01, amsgrad=True),
        lambda m: torch.optim.Adam(m.params.values(), lr=0.01, amsgrad=True),
        "mse",
        steps=5,
    )
    ours_state = list(opt.state.values())[0]
    theirs_state = topt.state[theirs.params["W1"]]
    assert set(ours_state) == set(theirs_state) == {"step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"}
    assert ours_state["step"] == theirs_state["step"].item() == 5
    for key in ("exp_avg", "exp_avg_sq", "max_exp_avg_sq"):
        np.testing.assert_allclose(ours_state[key].numpy(), theirs_state[key].numpy(), rtol=1e-9, atol=1e-12)


def test_generator_params_are_materialized():
    ws = [agv.ones(2, requires_grad=True), agv.ones(3, requires_grad=True)]
    opt = optim.SGD((w for w in ws), lr=0.5)
    params = opt.param_groups[0]["params"]
    assert isinstance(params, list) and len(params) == 2  # a list, readable many times
    assert params[0] is ws[0] and params[1] is ws[1]
    for w in ws:
        (w * w).sum().backward()
    opt.step()  # w ← 1 − 0.5·2 = 0
    opt.step()  # the same parameters again (a generator would have been used up): 0 − 0.5·2
    assert ws[0].tolist() == [-1.0, -1.0] and ws[1].tolist() == [-1.0, -1.0, -1.0]


def test_step_changes_the_tensor_in_place_and_bumps_its_version():
    w = agv.tensor([1.0, 2.0], requires_grad=True)
    array, version = w._data, w.version
    (w * w).sum().backward()
    optim.SGD([w], lr=0.25).step()
    assert w._data is array and w.tolist() == [0.5, 1.0]
    assert w.version == version + 1
    assert w.requires_grad and w.is_leaf and w.grad_fn is None


def test_a_graph_that_saved_the_old_weights_notices_the_step():
    w = agv.tensor([1.0, 2.0], requires_grad=True)
    (w * w).sum().backward()
    loss = (w * w).sum()  # saves w
    optim.SGD([w], lr=0.1).step()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


def test_step_records_no_graph_and_closure_runs_with_grad():
    w = agv.tensor([1.0, 2.0], requires_grad=True)
    opt = optim.Adam([w], lr=0.1)

    def closure():
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss

    with agv.no_grad():
        loss = opt.step(closure)
    assert loss.item() == 5.0
    assert w.grad_fn is None and w.is_leaf


# -- zero_grad and clear_grad ---------------------------------------------------------------


def two_params_with_grads():
    a, b = agv.ones(2, requires_grad=True), agv.ones(3, requires_grad=True)
    ((a * 2).sum() + (b * 3).sum()).backward()
    return a, b


def test_zero_grad_sets_grads_to_none_by_default():
    a, b = two_params_with_grads()
    optim.SGD([a, b], lr=0.1).zero_grad()
    assert a.grad is None and b.grad is None


def test_zero_grad_set_to_none_false_zeros_the_same_tensor():
    a, b = two_params_with_grads()
    grad = a.grad
    optim.SGD([a, b], lr=0.1).zero_grad(set_to_none=False)
    assert a.grad is grad and a.grad.tolist() == [0.0, 0.0] and b.grad.tolist() == [0.0] * 3
    assert not a.grad.requires_grad


def test_zero_grad_detaches_a_grad_with_history():
    w = agv.tensor([1.0, 2.0], requires_grad=True)
    (w**3).sum().backward(create_graph=True)
    assert w.grad.grad_fn is not None
    optim.SGD([w], lr=0.1).zero_grad(set_to_none=False)
    assert w.grad.grad_fn is None and w.grad.tolist() == [0.0, 0.0]


def test_grads_accumulate_without_zero_grad():
    w = agv.tensor([1.0], requires_grad=True)
    opt = optim.SGD([w], lr=0.0)
    for _ in range(3):
        (w * 2).sum().backward()
        opt.step()
    assert w.grad.tolist() == [6.0]


def test_clear_grad_is_paddles_and_zeros_by_default():
    a, b = two_params_with_grads()
    opt = optim.Adam(learning_rate=0.1, parameters=[a, b])
    opt.clear_grad()
    assert a.grad.tolist() == [0.0, 0.0] and b.grad.tolist() == [0.0] * 3
    opt.clear_grad(set_to_zero=False)
    assert a.grad is None and b.grad is None
    a2, b2 = two_params_with_grads()
    optim.SGD([a2, b2]).clear_gradients()
    assert a2.grad.tolist() == [0.0, 0.0]


def test_set_to_none_makes_the_next_step_skip_the_parameter():
    """torch's documented difference: a zero grad still steps (momentum moves it),
    a None grad skips the parameter."""
    w = agv.tensor([1.0], requires_grad=True)
    opt = optim.SGD([w], lr=0.1, momentum=0.9)
    (w * 1).sum().backward()
    opt.step()  # w = 0.9, buffer = 1
    opt.zero_grad(set_to_none=False)
    opt.step()  # grad 0: buffer 0.9 still moves w
    assert w.item() == pytest.approx(0.9 - 0.1 * 0.9)
    opt.zero_grad()
    opt.step()  # grad None: skipped
    assert w.item() == pytest.approx(0.9 - 0.1 * 0.9)


def test_paddle_get_and_set_lr():
    opt = optim.SGD(
        [{"params": [agv.ones(1, requires_grad=True)]}, {"params": [agv.ones(1, requires_grad=True)]}]
    )
    assert opt.get_lr() == 1e-3
    opt.set_lr(0.5)
    assert [g["lr"] for g in opt.param_groups] == [0.5, 0.5]


def test_repr_lists_each_group_like_torch():
    opt = optim.SGD([agv.ones(1, requires_grad=True)], lr=0.1, momentum=0.9)
    text = repr(opt)
    assert text.startswith("SGD (\nParameter Group 0\n    dampening: 0\n")
    assert "    lr: 0.1\n" in text and "    momentum: 0.9\n" in text and text.endswith("\n)")


# -- state_dict ------------------------------------------------------------------------------


@needs_torch
@pytest.mark.parametrize(
    "name, kw",
    [
        ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True)),
        ("Adam", dict(lr=0.01, amsgrad=True)),
        ("AdamW", dict(lr=0.01)),
        ("RMSprop", dict(lr=0.001, momentum=0.5, centered=True)),
    ],
)
def test_state_dict_round_trip_continues_identically(name, kw):
    """Train 10 steps, save, load into a fresh optimizer on a copy of the weights:
    both continue exactly like torch running 20 steps without a break."""
    X, Y, labels = batch()
    ours, theirs = AgvModel(), TorchModel()
    opt = getattr(optim, name)(ours.params.values(), **kw)
    topt = getattr(torch.optim, name)(theirs.params.values(), **kw)

    def one_step(model, optimizer):
        optimizer.zero_grad()
        model.loss("nll", X, Y, labels).backward()
        optimizer.step()

    for _ in range(10):
        one_step(ours, opt)
        one_step(theirs, topt)
    saved = opt.state_dict()
    assert set(saved) == {"state", "param_groups"}
    assert saved["param_groups"][0]["params"] == [0, 1, 2, 3]
    assert set(saved["state"]) == {0, 1, 2, 3}
    assert set(saved["state"][0]) == set(topt.state_dict()["state"][0])

    resumed = AgvModel()
    for k, p in resumed.params.items():
        p.data = ours.params[k].detach().numpy().copy()
    opt2 = getattr(optim, name)(resumed.params.values(), lr=123.0)  # hyperparameters come from the dict
    opt2.load_state_dict(saved)
    assert opt2.param_groups[0]["lr"] == kw["lr"]

    frozen = copy.deepcopy(saved)
    for step in range(11, 21):
        one_step(ours, opt)
        one_step(resumed, opt2)
        one_step(theirs, topt)
        assert_params_match(ours, theirs, step)
        assert_params_match(resumed, theirs, step)
    # the saved dict was a copy: training on did not change it
    for index, state in saved["state"].items():
        for key, value in state.items():
            if isinstance(value, agv.Tensor):
                np.testing.assert_array_equal(value.numpy(), frozen["state"][index][key].numpy())
    # and the loaded state is the new optimizer's own: the two did not share buffers
    first_state = next(iter(opt.state.values()))
    second_state = next(iter(opt2.state.values()))
    for key, value in first_state.items():
        if isinstance(value, agv.Tensor):
            assert value._data is not second_state[key]._data


def test_load_state_dict_casts_state_to_the_parameter_dtype():
    w64 = agv.ones(2, dtype=agv.float64, requires_grad=True)
    (w64 * 2).sum().backward()
    opt = optim.Adam([w64], lr=0.1)
    opt.step()
    w32 = agv.ones(2, requires_grad=True)
    opt32 = optim.Adam([w32], lr=0.1)
    opt32.load_state_dict(opt.state_dict())
    state = opt32.state[w32]
    assert state["exp_avg"].dtype == agv.float32 and state["step"] == 1


def test_load_state_dict_refuses_a_different_layout():
    a, b = agv.ones(1, requires_grad=True), agv.ones(1, requires_grad=True)
    saved = optim.SGD([a, b]).state_dict()
    with pytest.raises(ValueError, match="different number of parameter groups"):
        optim.SGD([{"params": [a]}, {"params": [b]}]).load_state_dict(saved)
    with pytest.raises(ValueError, match="doesn't match the size of optimizer's group"):
        optim.SGD([a]).load_state_dict(saved)


# -- errors ------------------------------------------------------------------------------------

W = agv.ones(2, 3, requires_grad=True)


def error_cases():
    """(what, how agv is called, how torch is called, exception, message regex shared by both)."""
    t = torch
    tw = t.ones(2, 3, requires_grad=True) if t else None

    def both(build):
        return (lambda: build(optim, [W]), (lambda: build(t.optim, [tw])) if t else None)

    cases = [
        (
            "empty list",
            *both(lambda o, p: o.SGD([], lr=0.1)),
            ValueError,
            "optimizer got an empty parameter list",
        ),
        (
            "used-up generator",
            *both(lambda o, p: o.Adam(iter([]))),
            ValueError,
            "optimizer got an empty parameter list",
        ),
        (
            "a tensor, not a list",
            *both(lambda o, p: o.SGD(p[0])),
            TypeError,
            "params argument given to the optimizer",
        ),
        (
            "not a tensor",
            *both(lambda o, p: o.SGD([p[0], 3.0])),
            TypeError,
            "optimizer can only optimize Tensors",
        ),
        ("a set", *both(lambda o, p: o.SGD([{"params": set(p)}])), TypeError, "ordered collections"),
        (
            "negative lr SGD",
            *both(lambda o, p: o.SGD(p, lr=-0.1)),
            ValueError,
            r"Invalid learning rate: -0\.1",
        ),
        (
            "negative lr Adam",
            *both(lambda o, p: o.Adam(p, lr=-1e-3)),
            ValueError,
            r"Invalid learning rate: -0\.001",
        ),
        (
            "negative lr AdamW",
            *both(lambda o, p: o.AdamW(p, lr=-1.0)),
            ValueError,
            r"Invalid learning rate: -1\.0",
        ),
        (
            "negative lr RMSprop",
            *both(lambda o, p: o.RMSprop(p, lr=-1.0)),
            ValueError,
            "Invalid learning rate",
        ),
        (
            "beta1 = 1",
            *both(lambda o, p: o.Adam(p, betas=(1.0, 0.999))),
            ValueError,
            r"Invalid beta parameter at index 0: 1\.0",
        ),
        (
            "beta1 < 0",
            *both(lambda o, p: o.AdamW(p, betas=(-0.1, 0.999))),
            ValueError,
            "Invalid beta parameter at index 0",
        ),
        (
            "beta2 > 1",
            *both(lambda o, p: o.Adam(p, betas=(0.9, 1.5))),
            ValueError,
            r"Invalid beta parameter at index 1: 1\.5",
        ),
        ("negative eps", *both(lambda o, p: o.Adam(p, eps=-1.0)), ValueError, "Invalid epsilon value"),
        (
            "negative weight decay",
            *both(lambda o, p: o.Adam(p, weight_decay=-1.0)),
            ValueError,
            "Invalid weight_decay value",
        ),
        (
            "negative SGD weight decay",
            *both(lambda o, p: o.SGD(p, lr=0.1, weight_decay=-1.0)),
            ValueError,
            "Invalid weight_decay value",
        ),
        (
            "negative momentum",
            *both(lambda o, p: o.SGD(p, lr=0.1, momentum=-0.5)),
            ValueError,
            "Invalid momentum value",
        ),
        (
            "negative RMSprop momentum",
            *both(lambda o, p: o.RMSprop(p, momentum=-0.5)),
            ValueError,
            "Invalid momentum value",
        ),
        ("negative alpha", *both(lambda o, p: o.RMSprop(p, alpha=-0.5)), ValueError, "Invalid alpha value"),
        (
            "nesterov without momentum",
            *both(lambda o, p: o.SGD(p, lr=0.1, nesterov=True)),
            ValueError,
            "Nesterov momentum requires a momentum and zero dampening",
        ),
        (
            "nesterov with dampening",
            *both(lambda o, p: o.SGD(p, lr=0.1, momentum=0.9, dampening=0.1, nesterov=True)),
            ValueError,
            "Nesterov momentum requires",
        ),
        (
            "same parameter in two groups",
            *both(lambda o, p: o.SGD([{"params": p}, {"params": p}], lr=0.1)),
            ValueError,
            "some parameters appear in more than one parameter group",
        ),
        (
            "some names missing",
            *both(lambda o, p: o.SGD([("w", p[0]), p[0] * 1], lr=0.1)),
            ValueError,
            "Some param names are missing",
        ),
    ]
    return cases


@pytest.mark.parametrize(
    "what, ours, theirs, error, message", error_cases(), ids=[c[0] for c in error_cases()]
)
def test_errors_match_torch(what, ours, theirs, error, message):
    with pytest.raises(error, match=message):
        ours()
    if theirs is not None:  # the same exception class, and the message we share with torch
        with pytest.raises(error, match=message):
            theirs()


def test_non_leaf_is_refused_by_name_and_shape():
    h = W * 2
    h.name = "h"
    with pytest.raises(
        ValueError,
        match=r"can't optimize a non-leaf Tensor: 'h' \(shape \(2, 3\)\) was computed by an op \(grad_fn=<MulBackward0>\)",
    ):
        optim.Adam([h])
    with pytest.raises(
        ValueError, match=r"can't optimize a non-leaf Tensor: the parameter at index 1 \(shape \(2, 3\)\)"
    ):
        optim.SGD([W, W + 1], lr=0.1)
    if torch is not None:  # torch raises the same class
        with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
            torch.optim.SGD([torch.ones(2, requires_grad=True) * 2], lr=0.1)


def test_a_frozen_tensor_is_accepted_and_left_alone_as_in_torch():
    frozen = agv.zeros(4)  # requires_grad=False: a frozen layer's weight
    opt = optim.SGD([agv.ones(4, requires_grad=True), frozen], lr=0.1)
    opt.step()  # no .grad anywhere yet: nothing moves
    np.testing.assert_array_equal(frozen.numpy(), np.zeros(4))
    if torch is not None:  # torch accepts it too
        torch.optim.SGD([torch.zeros(4)], lr=0.1).step()


def test_both_spellings_at_once_are_an_error():
    with pytest.raises(TypeError, match="got the parameters twice"):
        optim.Adam([W], parameters=[W])
    with pytest.raises(TypeError, match="got the learning rate twice"):
        optim.Adam([W], lr=0.01, learning_rate=0.01)
    with pytest.raises(TypeError, match="got the learning rate twice"):
        optim.SGD(parameters=[W], lr=1e-3, learning_rate=0.1)  # even when lr equals the default
    with pytest.raises(TypeError, match="needs the tensors to optimize"):
        optim.Adam(learning_rate=0.01)
    with pytest.raises(TypeError, match="learning_rate=0.01, parameters=model.parameters()"):
        optim.Adam(0.01, parameters=[W])  # Paddle's first positional argument is the learning rate
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        optim.SGD(learning_rate=-1, parameters=[W])


def test_paddle_weight_decay_none_and_float():
    assert optim.Adam(parameters=[W], weight_decay=None).param_groups[0]["weight_decay"] == 0
    assert optim.SGD(parameters=[W], weight_decay=0.01).param_groups[0]["weight_decay"] == 0.01
    assert optim.AdamW(parameters=[W]).param_groups[0]["weight_decay"] == 0.01
    with pytest.raises(TypeError, match="weight_decay must be a number"):
        optim.Adam([W], weight_decay="0.1")


def test_default_learning_rates_are_torchs():
    assert optim.SGD([W]).defaults["lr"] == 1e-3
    assert optim.Adam([W]).defaults["lr"] == 1e-3
    assert optim.AdamW([W]).defaults["lr"] == 1e-3
    assert optim.RMSprop([W]).defaults["lr"] == 1e-2
    assert type(optim.SGD([W]).defaults["lr"]) is float  # the default's marker does not leak


def test_duplicate_parameters_in_a_group_warn_like_torch():
    with pytest.warns(UserWarning, match="duplicate parameters"):
        optim.SGD([W, W], lr=0.1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        optim.SGD([W], lr=0.1)
