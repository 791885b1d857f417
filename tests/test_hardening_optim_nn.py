"""Hardening, second pass (issue 26): a failed optimizer step changes nothing,
and nn's argument errors come in PyTorch's classes and words.

Each case runs PyTorch 2.13 beside autogradviz and pins:
- the exception class, which is PyTorch's when PyTorch raises;
- the message, which starts with PyTorch's sentence where PyTorch has a real
  one; where PyTorch's is an accident of its internals ("bad operand type for
  unary -: 'str'") ours is pinned whole, and the case says why;
- that nothing changed: every parameter, .grad, version counter and optimizer
  state compared byte for byte before and after.
"""

from __future__ import annotations

import numpy as np
import pytest

import autogradviz as agv
import autogradviz.paddle as paddle

torch = pytest.importorskip("torch")


# -- snapshots -------------------------------------------------------------------------------------


def _value(value):
    """A copy that compares by dtype, shape and bytes (tensors, arrays), by repr otherwise
    (so NaN equals NaN, and 0.1 differs from "0.1")."""
    if isinstance(value, agv.Tensor):
        value = value._data
    if isinstance(value, np.ndarray):
        return ("array", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [_value(v) for v in value])
    return ("value", type(value).__name__, repr(value))


def snapshot(params, optimizer) -> dict:
    """Every parameter's numbers and version, its .grad, the optimizer's state and its groups."""
    position = {id(p): i for i, p in enumerate(params)}
    return {
        "params": [(_value(p), p._version) for p in params],
        "grads": [None if p._grad is None else (_value(p._grad), p._grad._version) for p in params],
        "state": {
            position[id(p)]: {key: _value(v) for key, v in state.items()}
            for p, state in optimizer.state.items()
        },
        "groups": [
            {
                key: [position.get(id(p), repr(p)) for p in v] if key == "params" else _value(v)
                for key, v in group.items()
            }
            for group in optimizer.param_groups
        ],
    }


def assert_unchanged(before: dict, params, optimizer) -> None:
    after = snapshot(params, optimizer)
    changed = [key for key in before if before[key] != after[key]]
    assert not changed, f"a failed step changed {changed}"


# == 1. optimizer.step() checks every group before it changes any ==================================

# autogradviz's optimizers (PyTorch's spelling, then Paddle's), and PyTorch's counterparts
OURS = {
    "SGD": lambda groups: agv.optim.SGD(groups, lr=0.1),
    "SGD momentum": lambda groups: agv.optim.SGD(groups, lr=0.1, momentum=0.9, nesterov=True),
    "Adam": lambda groups: agv.optim.Adam(groups, lr=0.1, amsgrad=True),
    "AdamW": lambda groups: agv.optim.AdamW(groups, lr=0.1),
    "RMSprop": lambda groups: agv.optim.RMSprop(groups, lr=0.1, centered=True, momentum=0.5),
    "paddle SGD": lambda groups: paddle.optimizer.SGD(learning_rate=0.1, parameters=groups),
    "paddle Momentum": lambda groups: paddle.optimizer.Momentum(learning_rate=0.1, parameters=groups),
    "paddle Adam": lambda groups: paddle.optimizer.Adam(learning_rate=0.1, parameters=groups),
    "paddle AdamW": lambda groups: paddle.optimizer.AdamW(learning_rate=0.1, parameters=groups),
    "paddle RMSProp": lambda groups: paddle.optimizer.RMSProp(
        learning_rate=0.1, parameters=groups, centered=True, momentum=0.5
    ),
}
THEIRS = {  # (torch.optim's class, its arguments), as in OURS
    "SGD": ("SGD", dict(lr=0.1)),
    "SGD momentum": ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True)),
    "Adam": ("Adam", dict(lr=0.1, amsgrad=True)),
    "AdamW": ("AdamW", dict(lr=0.1)),
    "RMSprop": ("RMSprop", dict(lr=0.1, centered=True, momentum=0.5)),
}


def stepped(kind: str):
    """Two parameters in two groups, an optimizer that has stepped twice (so it has state
    and step counts), and fresh gradients for the next step."""
    rng = np.random.default_rng(0)
    a = agv.nn.Parameter(agv.tensor(rng.standard_normal((3, 2)).astype(np.float32)))
    b = agv.nn.Parameter(agv.tensor(rng.standard_normal(2).astype(np.float32)))
    opt = OURS[kind]([{"params": [a]}, {"params": [b]}])
    for scale in (1.0, -0.5, 0.25):
        a.grad = agv.full((3, 2), scale)
        b.grad = agv.full((2,), scale)
        if scale != 0.25:
            opt.step()
    return [a, b], opt


def torch_stepped(kind: str):
    a = torch.nn.Parameter(torch.ones(3, 2))
    b = torch.nn.Parameter(torch.ones(2))
    name, kwargs = THEIRS[kind]
    opt = getattr(torch.optim, name)([{"params": [a]}, {"params": [b]}], **kwargs)
    for scale in (1.0, -0.5, 0.25):
        a.grad, b.grad = torch.full((3, 2), scale), torch.full((2,), scale)
        if scale != 0.25:
            opt.step()
    return [a, b], opt


def _for_torch(value):
    return torch.tensor(value.numpy()) if isinstance(value, agv.Tensor) else value


def torch_step_error(kind: str, key: str, value) -> BaseException | None:
    """What torch.optim's step() raises with `value` in its second group, if anything."""
    params, opt = torch_stepped(kind)
    opt.param_groups[1][key] = _for_torch(value)
    try:
        opt.step()
    except Exception as error:  # noqa: BLE001 - the class is what the test compares
        return error
    return None


def torch_constructor_sentence(kind: str, key: str, value) -> str | None:
    """PyTorch's message when its constructor gets `value` for `key` and refuses it with a
    ValueError: the sentence our step() message must start with."""
    name, kwargs = THEIRS[kind]
    try:
        getattr(torch.optim, name)([torch.nn.Parameter(torch.ones(2))], **{**kwargs, key: _for_torch(value)})
    except Exception as error:  # noqa: BLE001 - a TypeError or IndexError is an accident, not a sentence
        return str(error) if type(error) is ValueError else None
    return None


NAN = float("nan")
# (key, bad value, our class, PyTorch's accident or None). An accident: torch raises at step,
# but only because the value breaks its arithmetic or bookkeeping halfway, after it stepped the
# first group; the class of such an error is not a choice torch made. amsgrad="no" is truthy:
# torch's KeyError is for a max_exp_avg_sq state that the earlier, falsy steps never made.
BAD = [
    ("lr", "0.1", TypeError, None),
    ("lr", None, TypeError, None),
    ("lr", [0.1], TypeError, None),
    ("lr", -0.1, ValueError, None),
    ("lr", NAN, ValueError, None),
    # torch's step: "add_(): argument 'alpha' must be Number, not Tensor"; its constructor's own
    # check is the ValueError "Tensor lr must be 1-element", whose class and words ours keep
    ("lr", agv.tensor([0.1, 0.2]), ValueError, "TypeError inside torch's arithmetic"),
    ("momentum", "0.9", TypeError, None),
    ("momentum", -0.5, ValueError, None),
    ("dampening", "x", TypeError, None),
    ("dampening", 0.1, ValueError, None),  # in the group with nesterov=True
    ("nesterov", "yes", TypeError, None),
    ("weight_decay", "0", TypeError, None),
    ("weight_decay", -1.0, ValueError, None),
    ("betas", (0.9,), ValueError, None),
    ("betas", (1.5, 0.999), ValueError, None),
    ("betas", (0.9, -1.0), ValueError, None),
    ("betas", ("0.9", 0.999), TypeError, None),
    ("betas", None, TypeError, None),
    ("eps", "1e-8", TypeError, None),
    ("eps", -1.0, ValueError, None),
    ("amsgrad", "no", TypeError, "KeyError: max_exp_avg_sq was never made (see above)"),
    ("alpha", -1.0, ValueError, None),
    ("alpha", "0.99", TypeError, None),
    ("centered", "x", TypeError, "KeyError: grad_avg was never made, as for amsgrad"),
    ("maximize", "x", TypeError, None),
    # Paddle's RMSProp (its own keys and words)
    ("rho", -1.0, ValueError, None),
    ("rho", "0.95", TypeError, None),
    ("epsilon", -1.0, ValueError, None),
]
PADDLE_SENTENCES = {  # python/paddle/optimizer/rmsprop.py
    "rho": "Invalid value of rho, expect rho >= 0.",
    "epsilon": "Invalid value of epsilon, expect epsilon >= 0.",
    "momentum": "Invalid value of momentum, expect momentum >= 0.",
}


def _applies(kind: str, key: str, value) -> bool:
    defaults = OURS[kind]([agv.nn.Parameter(agv.ones(1))]).defaults
    if key not in defaults:
        return False
    if key == "dampening":  # a dampening is only wrong beside Nesterov momentum
        return not isinstance(value, float) or defaults["nesterov"]
    # Paddle's RMSProp does not check the sign of its learning rate or weight decay, nor does Paddle
    return not (kind == "paddle RMSProp" and key in ("lr", "weight_decay") and isinstance(value, float))


STEP_CASES = [
    pytest.param(kind, key, value, error, accident, id=f"{kind}-{key}={value!r}")
    for kind in OURS
    for key, value, error, accident in BAD
    if _applies(kind, key, value)
]


@pytest.mark.parametrize(("kind", "key", "value", "error", "accident"), STEP_CASES)
def test_step_with_one_bad_group_changes_nothing(kind, key, value, error, accident):
    params, opt = stepped(kind)
    good = opt.param_groups[1][key]
    opt.param_groups[1][key] = value
    before = snapshot(params, opt)
    with pytest.raises(error) as raised:
        opt.step()
    message = str(raised.value)
    assert_unchanged(before, params, opt)

    owner = type(opt).__name__
    where = f"{owner}.step: param_groups[1][{key!r}]"
    if error is TypeError:  # our sentence: PyTorch's, if it raises at all, is about its own arithmetic
        assert message.startswith(where)
        assert message.endswith("; no parameter was changed")
    else:
        assert message.endswith("; no parameter was changed)")
        assert where in message
    if kind in THEIRS:
        theirs = torch_step_error(kind, key, value)
        if theirs is not None and accident is None:
            assert type(theirs) is error, f"torch raises {type(theirs).__name__}: {theirs}"
        sentence = torch_constructor_sentence(kind, key, value)
        if sentence is not None and error is ValueError:  # PyTorch's words for the same value
            assert message.startswith(sentence + " (")
    elif kind == "paddle RMSProp" and key in PADDLE_SENTENCES and error is ValueError:
        assert message.startswith(PADDLE_SENTENCES[key] + " (")

    # with the value mended, the same step goes through and moves both groups
    opt.param_groups[1][key] = good
    opt.step()
    after = snapshot(params, opt)
    assert [before["params"][i] != after["params"][i] for i in range(2)] == [True, True]


@pytest.mark.parametrize("kind", OURS)
def test_the_issues_reproducer_names_optimizer_group_and_key(kind):
    params, opt = stepped(kind)
    opt.param_groups[1]["lr"] = "0.1"
    before = snapshot(params, opt)
    with pytest.raises(TypeError) as raised:
        opt.step()
    owner = type(opt).__name__
    assert str(raised.value) == (
        f"{owner}.step: param_groups[1]['lr'] must be a number (a float or an int), not str ('0.1'); "
        "no parameter was changed"
    )
    assert_unchanged(before, params, opt)


def test_torch_steps_the_first_group_before_it_fails_on_the_second():
    """Why the check comes first: PyTorch's own step is not atomic (this pins its behaviour
    in 2.13, the reason for ours): it raises a TypeError about its arithmetic, too late."""
    (a, b), opt = torch_stepped("SGD")
    before = a.detach().clone()
    opt.param_groups[1]["lr"] = "0.1"
    with pytest.raises(TypeError, match="^bad operand type for unary -: 'str'$"):
        opt.step()
    assert not torch.equal(before, a.detach())


@pytest.mark.parametrize(
    ("spoil", "error", "message"),
    [
        pytest.param(
            lambda opt: opt.param_groups[1].pop("lr"),
            KeyError,
            "SGD.step: param_groups[1]['lr'] is missing; no parameter was changed",
            id="a key deleted",  # torch: KeyError 'lr', after stepping the first group
        ),
        pytest.param(
            lambda opt: opt.param_groups[1]["params"].append(3.0),
            TypeError,
            "SGD.step: param_groups[1]['params'][1] is float, not a Tensor; no parameter was changed",
            id="a number among the params",  # torch: AttributeError 'float' object has no attribute 'grad'
        ),
    ],
)
def test_step_with_a_broken_group_changes_nothing(spoil, error, message):
    params, opt = stepped("SGD momentum")
    spoil(opt)
    before = snapshot(params, opt)
    with pytest.raises(error) as raised:
        opt.step()
    assert raised.value.args[0] == message
    assert_unchanged(before, params, opt)


@pytest.mark.parametrize(
    "kind", ["paddle SGD", "paddle Momentum", "paddle Adam", "paddle AdamW", "paddle RMSProp"]
)
def test_paddle_step_checks_every_gradient_before_updating_any(kind):
    (a, b), opt = stepped(kind)
    b.grad.data = np.ones(1, np.float32)  # (1,) would broadcast over the (2,) parameter
    before = snapshot([a, b], opt)
    with pytest.raises(RuntimeError) as raised:
        opt.step()
    owner = type(opt).__name__
    assert str(raised.value) == (
        f"{owner}.step: the gradient of the parameter at index 0 (shape (2,)) has shape (1,), not the "
        "parameter's shape"
    )
    assert_unchanged(before, [a, b], opt)


# -- the constructors and add_param_group, against torch's -------------------------------------------


@pytest.mark.parametrize(
    ("kind", "kwargs", "message"),
    [
        # torch: "'<' not supported between instances of 'str' and 'float'" (its range check's comparison)
        ("SGD", dict(lr="0.1"), "SGD: lr must be a number (a float or an int), not str ('0.1')"),
        ("SGD", dict(lr=0.1, weight_decay=None), None),  # None is Paddle's "no decay": accepted
        ("Adam", dict(eps=None), "Adam: eps must be a number (a float or an int), not NoneType (None)"),
        ("Adam", dict(betas=None), "Adam: betas must be a pair (beta1, beta2), not NoneType (None)"),
        (
            "Adam",
            dict(betas=("0.9", 0.9)),
            "Adam: betas[0] must be a number (a float or an int), not str ('0.9')",
        ),
        ("RMSprop", dict(alpha="x"), "RMSprop: alpha must be a number (a float or an int), not str ('x')"),
        (
            "AdamW",
            dict(weight_decay="0"),
            "AdamW: weight_decay must be a number (a float or an int), not str ('0')",
        ),
    ],
)
def test_constructor_type_errors_are_torchs_class_in_our_words(kind, kwargs, message):
    p = [agv.nn.Parameter(agv.ones(2))]
    tp = [torch.nn.Parameter(torch.ones(2))]
    if message is None:
        getattr(agv.optim, kind)(p, **kwargs)
        return
    with pytest.raises(TypeError) as theirs:
        getattr(torch.optim, kind)(tp, **kwargs)
    with pytest.raises(TypeError) as ours:
        getattr(agv.optim, kind)(p, **kwargs)
    assert str(ours.value) == message, f"torch: {theirs.value}"


@pytest.mark.parametrize(
    ("kind", "kwargs"),
    [
        ("SGD", dict(lr=-1)),
        ("SGD", dict(lr=0.1, momentum=-0.5)),
        ("SGD", dict(lr=0.1, nesterov=True)),
        ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.1, nesterov=True)),
        ("Adam", dict(betas=(1.0, 0.9))),
        ("Adam", dict(betas=(NAN, 0.9))),
        ("Adam", dict(eps=NAN)),
        ("AdamW", dict(weight_decay=-1)),
        ("RMSprop", dict(alpha=-1)),
        ("RMSprop", dict(eps=-1)),
    ],
)
def test_constructor_value_errors_are_torchs_exactly(kind, kwargs):
    with pytest.raises(ValueError) as theirs:
        getattr(torch.optim, kind)([torch.nn.Parameter(torch.ones(2))], **kwargs)
    with pytest.raises(ValueError) as ours:
        getattr(agv.optim, kind)([agv.nn.Parameter(agv.ones(2))], **kwargs)
    assert str(ours.value) == str(theirs.value)


def test_a_one_element_tensor_lr_steps_as_in_torch_and_a_longer_one_is_refused():
    ours = agv.nn.Parameter(agv.tensor([1.0, -2.0]))
    theirs = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
    opt = agv.optim.Adam([ours], lr=agv.tensor(0.5))
    topt = torch.optim.Adam([theirs], lr=torch.tensor(0.5))
    for _ in range(3):
        ours.grad, theirs.grad = agv.tensor([0.3, -0.1]), torch.tensor([0.3, -0.1])
        opt.step()
        topt.step()
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-6)
    with pytest.raises(ValueError) as raised:
        torch.optim.SGD([theirs], lr=torch.tensor([0.1, 0.2]))
    with pytest.raises(ValueError, match=f"^{raised.value}$"):
        agv.optim.SGD([ours], lr=agv.tensor([0.1, 0.2]))


def test_add_param_group_refuses_a_bad_group_and_keeps_the_others():
    """PyTorch takes a group's hyperparameters unchecked (its step then climbs the loss with
    lr=-1): ours refuses the group with the constructor's sentence, and adds nothing."""
    a, b = agv.nn.Parameter(agv.ones(2)), agv.nn.Parameter(agv.ones(2))
    opt = agv.optim.SGD([a], lr=0.1)
    torch_opt = torch.optim.SGD([torch.nn.Parameter(torch.ones(2))], lr=0.1)
    torch_opt.add_param_group({"params": [torch.nn.Parameter(torch.ones(2))], "lr": -1})  # accepted
    with pytest.raises(ValueError) as sentence:
        torch.optim.SGD([torch.nn.Parameter(torch.ones(2))], lr=-1)
    with pytest.raises(ValueError) as raised:
        opt.add_param_group({"params": [b], "lr": -1})
    assert str(raised.value) == (
        f"{sentence.value} (SGD.add_param_group: param_groups[1]['lr']; the group was not added)"
    )
    assert len(opt.param_groups) == 1
    with pytest.raises(
        ValueError, match=r"^Invalid learning rate: -1 \(SGD.add_param_group: param_groups\[0\]"
    ):
        agv.optim.SGD([{"params": [a], "lr": -1}], lr=0.1)


def test_paddle_learning_rate_and_set_lr_type_errors_are_paddles():
    w = agv.nn.Parameter(agv.ones(2))
    # python/paddle/optimizer/optimizer.py, Optimizer.__init__ and set_lr
    for make in (paddle.optimizer.SGD, paddle.optimizer.Adam, paddle.optimizer.RMSProp):
        with pytest.raises(
            TypeError, match=r"^learning rate should be float or LRScheduler, got <class 'str'> here$"
        ):
            make(learning_rate="0.1", parameters=[w])
    opt = paddle.optimizer.Adam(learning_rate=0.1, parameters=[w])
    with pytest.raises(
        TypeError,
        match=r"^The type of 'value' in optimizer.set_lr must be float, but received <class 'str'>\.$",
    ):
        opt.set_lr("0.2")
    assert opt.get_lr() == 0.1
    opt.set_lr(0.2)
    assert opt.get_lr() == 0.2


@pytest.mark.parametrize("kind", ["Adam", "RMSprop"])
def test_a_state_with_torchs_tensor_step_count_continues_as_torch(kind):
    """PyTorch keeps state["step"] as a float tensor, tensor(1.): a state dict of torch's,
    its tensors turned into ours, must step on as torch does (it used to fail halfway
    through the step, with numpy's "operand 'Tensor' does not support ufuncs")."""
    theirs = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
    topt = getattr(torch.optim, kind)([theirs], lr=0.1)
    theirs.grad = torch.tensor([0.3, -0.1])
    topt.step()
    saved = topt.state_dict()
    assert saved["state"][0]["step"].dtype == torch.float32
    ours = agv.nn.Parameter(agv.tensor(theirs.detach().numpy()))
    opt = getattr(agv.optim, kind)([ours], lr=0.1)
    opt.load_state_dict(
        {
            "state": {0: {k: agv.tensor(v.numpy()) for k, v in saved["state"][0].items()}},
            "param_groups": opt.state_dict()["param_groups"],
        }
    )
    for _ in range(2):
        ours.grad, theirs.grad = agv.tensor([0.3, -0.1]), torch.tensor([0.3, -0.1])
        opt.step()
        topt.step()
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-6)
    assert opt.state[ours]["step"] == 3


@pytest.mark.parametrize("step", ["x", -1, 1.5, agv.tensor([1.0, 2.0])])
def test_a_state_whose_step_count_is_no_count_changes_nothing(step):
    params, opt = stepped("Adam")
    opt.state[params[1]]["step"] = step
    before = snapshot(params, opt)
    with pytest.raises(RuntimeError) as raised:
        opt.step()
    assert str(raised.value).startswith(
        "Adam.step: state['step'] of the parameter at index 0 (shape (2,)) is "
    )
    assert str(raised.value).endswith(", not a number of steps taken")
    assert_unchanged(before, params, opt)
