"""A call that fails changes nothing.

Each test takes a snapshot (deep copies of every parameter's numbers, its
.grad, its version counter, and the optimizer's state and hyperparameters),
makes one call fail, checks the exact error, and asserts the snapshot taken
after is byte-identical to the one before. A learner who fixes the mistake
and runs the cell again must start from the model they had, not from a
half-loaded or half-stepped one.
"""

from __future__ import annotations

import copy
import re

import numpy as np
import pytest

import autogradviz as agv
from autogradviz import nn


@pytest.fixture(name="torch")
def torch_module():
    return pytest.importorskip("torch")


# -- snapshots ---------------------------------------------------------------------------------


def _array(value):
    """A copy that compares by bytes, dtype and shape (so -0.0 vs 0.0 or a NaN payload count)."""
    if isinstance(value, agv.Tensor):
        value = value._data
    if isinstance(value, np.ndarray):
        return ("array", value.dtype.str, value.shape, value.tobytes())
    return ("value", copy.deepcopy(value))


def snapshot(params, optimizer=None) -> dict:
    shot = {}
    for index, p in enumerate(params):
        shot[f"param {index}"] = _array(p)
        shot[f"grad {index}"] = None if p._grad is None else _array(p._grad)
        shot[f"version {index}"] = p._version
    if optimizer is not None:
        position = {id(p): i for i, p in enumerate(params)}
        shot["state"] = {
            position[id(p)]: {key: _array(value) for key, value in s.items()}
            for p, s in optimizer.state.items()
        }
        shot["groups"] = [
            (
                {k: copy.deepcopy(v) for k, v in g.items() if k != "params"},
                [position[id(p)] for p in g["params"]],
            )
            for g in optimizer.param_groups
        ]
    return shot


def assert_unchanged(before: dict, params, optimizer=None) -> None:
    after = snapshot(params, optimizer)
    changed = [key for key in before if before[key] != after[key]]
    assert not changed, f"a failed call changed {changed}"


def two_layers(seed: int = 0) -> nn.Sequential:
    agv.manual_seed(seed)
    return nn.Sequential(nn.Linear(3, 2), nn.Tanh(), nn.Linear(2, 2))


def with_grads(model) -> list:
    """The model's parameters, each with a .grad from one backward."""
    model(agv.ones(4, 3)).pow(2).sum().backward()
    return list(model.parameters())


def torch_words(text: str) -> str:
    """PyTorch's message in autogradviz's words: torch.Size([2, 3]) is printed (2, 3)."""
    text = re.sub(
        r"torch\.Size\(\[([^\]]*)\]\)",
        lambda m: str(tuple(int(n) for n in m.group(1).split(", ") if n)),
        text,
    )
    return text.replace("torch.Tensor or Tensor-like object", "autogradviz.Tensor or a numpy array")


# -- Module.load_state_dict: one bad entry among good ones ------------------------------------------

HEADER = "Error(s) in loading state_dict for Sequential:\n\t"
NOT_AN_ARRAY = (
    'While copying the parameter named "2.bias", expected autogradviz.Tensor or a numpy array '
    "from checkpoint but received {}"
)
BAD_BIASES = [
    pytest.param(None, NOT_AN_ARRAY.format("<class 'NoneType'>"), id="None"),
    pytest.param("0.5", NOT_AN_ARRAY.format("<class 'str'>"), id="str"),
    pytest.param(object(), NOT_AN_ARRAY.format("<class 'object'>"), id="object"),
    pytest.param([0.5, 0.5], NOT_AN_ARRAY.format("<class 'list'>"), id="list"),  # refused by torch too
    pytest.param(
        np.zeros(3, np.float32),
        "size mismatch for 2.bias: copying a param with shape (3,) from checkpoint, "
        "the shape in current model is (2,).",
        id="shape",
    ),
]


def _good_state(model) -> dict:
    # different values from the model's, so that a copy that happened would show
    return {key: np.full(t.shape, 7.0, np.float32) for key, t in model.state_dict().items()}


@pytest.mark.parametrize("strict", [True, False])
@pytest.mark.parametrize(("bad", "message"), BAD_BIASES)
def test_load_state_dict_refuses_a_bad_entry_and_copies_nothing_like_torch(torch, bad, message, strict):
    model = two_layers()
    params = with_grads(model)
    state = _good_state(model)
    state["2.bias"] = (
        bad  # the last entry: the three good ones before it are checked (and would be copied) first
    )
    before = snapshot(params)
    with pytest.raises(RuntimeError) as error:
        model.load_state_dict(state, strict=strict)
    assert str(error.value) == HEADER + message
    assert_unchanged(before, params)

    theirs = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.Tanh(), torch.nn.Linear(2, 2))
    state = {k: torch.tensor(v) if isinstance(v, np.ndarray) else v for k, v in state.items()}
    with pytest.raises(RuntimeError) as torch_error:
        theirs.load_state_dict(state, strict=strict)
    assert torch_words(str(torch_error.value)) == str(error.value)


@pytest.mark.parametrize(
    ("bad", "dtype"),
    [
        pytest.param(np.array([1 + 2j, 3j]), "complex128", id="complex"),  # torch drops the imaginary part
        pytest.param(np.array(["0.5", "1"]), "<U3", id="strings"),
        pytest.param(np.array([None, None]), "object", id="objects"),
    ],
)
def test_load_state_dict_refuses_values_that_do_not_convert_to_the_parameter_dtype(bad, dtype):
    model = two_layers()
    params = with_grads(model)
    state = _good_state(model)
    state["2.bias"] = bad
    before = snapshot(params)
    with pytest.raises(RuntimeError) as error:
        model.load_state_dict(state)
    assert str(error.value) == HEADER + (
        'While copying the parameter named "2.bias", whose dtype in the current model is float32 and '
        f"whose dtype in the checkpoint is {dtype}: {dtype} values cannot be converted to float32."
    )
    assert_unchanged(before, params)


def test_load_state_dict_lists_every_bad_entry_with_missing_and_unexpected_keys_first():
    model = two_layers()
    params = with_grads(model)
    state = _good_state(model)
    state["0.weight"] = None
    state["2.weight"] = np.zeros((2, 3), np.float32)
    del state["2.bias"]
    state["head.weight"] = np.zeros(1, np.float32)
    before = snapshot(params)
    with pytest.raises(RuntimeError) as error:
        model.load_state_dict(state)
    assert str(error.value) == (
        HEADER + 'Missing key(s) in state_dict: "2.bias". \n'
        '\tUnexpected key(s) in state_dict: "head.weight". \n'
        '\tWhile copying the parameter named "0.weight", expected autogradviz.Tensor or a numpy array '
        "from checkpoint but received <class 'NoneType'>\n"
        "\tsize mismatch for 2.weight: copying a param with shape (2, 3) from checkpoint, "
        "the shape in current model is (2, 2)."
    )
    assert_unchanged(before, params)


def test_load_state_dict_converts_bool_int_and_float64_like_torch(torch):
    # what does convert is converted as torch's copy_ does, num_batches_tracked's float included
    ours, theirs = nn.BatchNorm1d(2), torch.nn.BatchNorm1d(2)
    state = {
        "weight": np.array([True, False]),
        "bias": np.array([3, -4], np.int64),
        "running_mean": np.array([0.1, 0.2], np.float64),
        "running_var": np.array([2.0, 3.0], np.float32),
        "num_batches_tracked": np.array(2.7),
    }
    ours.load_state_dict(state)
    theirs.load_state_dict({k: torch.tensor(v) for k, v in state.items()})
    for key, value in theirs.state_dict().items():
        mine = ours.state_dict()[key].numpy()
        assert mine.dtype == value.numpy().dtype, key
        np.testing.assert_array_equal(mine, value.numpy(), err_msg=key)
    assert int(ours.num_batches_tracked.item()) == 2


def test_load_state_dict_takes_tensors_of_both_libraries_and_numpy_scalars(torch):
    # torch tensors convert themselves (__array__); a 0-d numpy scalar fits a 0-d buffer
    model = nn.BatchNorm1d(1)
    model.load_state_dict(
        {
            "weight": torch.tensor([2.5]),
            "bias": agv.tensor([-1.5]),
            "running_mean": np.array([0.25]),
            "running_var": np.array([4.0]),
            "num_batches_tracked": np.int64(9),
        }
    )
    assert model.weight.detach().numpy().tolist() == [2.5]
    assert model.bias.detach().numpy().tolist() == [-1.5]
    assert model.running_mean.numpy().tolist() == [0.25]
    assert model.num_batches_tracked.item() == 9


# -- optimizer.step(): a bad gradient or state on the last parameter --------------------------------

OPTIMIZERS = {
    "SGD": lambda ps: agv.optim.SGD(ps, lr=0.1, momentum=0.9),
    "Adam": lambda ps: agv.optim.Adam(ps, lr=0.1, amsgrad=True),
    "AdamW": lambda ps: agv.optim.AdamW(ps, lr=0.1),
    "RMSprop": lambda ps: agv.optim.RMSprop(ps, lr=0.1, centered=True, momentum=0.5),
}


def stepped_once(kind: str):
    """A model, its parameters (with fresh grads) and an optimizer that has state from one step."""
    model = two_layers()
    params = with_grads(model)
    opt = OPTIMIZERS[kind](params)
    opt.step()
    opt.zero_grad()
    params = with_grads(model)
    return model, params, opt


@pytest.mark.parametrize("kind", OPTIMIZERS)
@pytest.mark.parametrize(
    ("spoil", "message"),
    [
        pytest.param(
            # (1,) would broadcast over the (2,) bias without a word
            lambda p: setattr(p.grad, "data", np.ones(1, np.float32)),
            "step: the gradient of '2.bias' (shape (2,)) has shape (1,), not the parameter's shape",
            id="grad-shape",
        ),
        pytest.param(
            lambda p: setattr(p.grad, "data", np.array([1j, 2j])),
            "step: the gradient of '2.bias' (shape (2,)) has dtype complex128, which cannot be cast "
            "to the parameter's float32",
            id="grad-dtype",
        ),
    ],
)
def test_step_checks_every_gradient_before_updating_any(kind, spoil, message):
    model, params, opt = stepped_once(kind)
    spoil(model[2].bias)  # the last parameter: the three before it would be updated first
    before = snapshot(params, opt)
    with pytest.raises(RuntimeError) as error:
        opt.step()
    assert str(error.value) == kind + "." + message
    assert_unchanged(before, params, opt)
    # fixed, the same step goes through and changes every parameter
    model[2].bias.grad.data = np.ones(2, np.float32)
    opt.step()
    after = snapshot(params, opt)
    assert [before[f"param {i}"] != after[f"param {i}"] for i in range(4)] == [True] * 4


@pytest.mark.parametrize("kind", OPTIMIZERS)
def test_step_checks_every_state_before_updating_any(kind):
    _, params, opt = stepped_once(kind)
    key = next(k for k in opt.state[params[3]] if k != "step")
    opt.state[params[3]][key] = agv.zeros(3)
    before = snapshot(params, opt)
    with pytest.raises(RuntimeError) as error:
        opt.step()
    assert str(error.value) == (
        f"{kind}.step: state[{key!r}] of '2.bias' (shape (2,)) has shape (3,), not the parameter's shape"
    )
    assert_unchanged(before, params, opt)


def test_step_whose_closure_raises_changes_nothing():
    _, params, opt = stepped_once("Adam")
    before = snapshot(params, opt)

    def closure():
        raise ValueError("closure failed")

    with pytest.raises(ValueError, match="^closure failed$"):
        opt.step(closure)
    assert_unchanged(before, params, opt)


# -- optimizer.load_state_dict with a bad state ----------------------------------------------------


def _bad_state(saved: dict, how: str) -> dict:
    saved = copy.deepcopy(saved)
    saved["param_groups"][0]["lr"] = 123.0  # a bad dict must not bring in its hyperparameters either
    if how == "shape":
        saved["state"][3]["exp_avg"] = agv.zeros(5)
    elif how == "position":
        saved["state"][7] = saved["state"][3]
    elif how == "groups":
        saved["param_groups"].append(dict(saved["param_groups"][0], params=[]))
    elif how == "size":
        saved["param_groups"][0]["params"] = saved["param_groups"][0]["params"][:3]
    elif how == "keys":
        del saved["state"]
    return saved


@pytest.mark.parametrize(
    ("how", "error", "message"),
    [
        (
            "shape",
            ValueError,
            "loaded state dict has state[3]['exp_avg'] of shape (5,), but that parameter has shape (2,)",
        ),
        (
            "position",
            ValueError,
            "loaded state dict has state for parameter 7, which none of its param_groups lists "
            "(they list [0, 1, 2, 3])",
        ),
        (
            "groups",
            ValueError,
            "loaded state dict has a different number of parameter groups",
        ),  # torch's words
        (
            "size",
            ValueError,
            "loaded state dict contains a parameter group that doesn't match the size of optimizer's group "
            "(3 saved parameters, 4 here)",
        ),
        (
            "keys",
            ValueError,
            "an optimizer state dict is a dict with keys 'state' and 'param_groups' (from "
            "optimizer.state_dict()), got dict with keys ['param_groups']",
        ),
    ],
)
def test_optimizer_load_state_dict_refuses_a_bad_state_and_keeps_its_own(how, error, message):
    _, params, opt = stepped_once("Adam")
    bad = _bad_state(opt.state_dict(), how)
    opt.step()  # the optimizer moved on since it was saved
    before = snapshot(params, opt)
    with pytest.raises(error) as raised:
        opt.load_state_dict(bad)
    assert str(raised.value) == message
    assert_unchanged(before, params, opt)
    assert opt.param_groups[0]["lr"] == 0.1


# -- backward that fails -------------------------------------------------------------------------------

VERSION_ERROR = (
    "one of the variables needed for gradient computation has been modified by an inplace operation: "
    "the tensor of shape (2,) saved by SinBackward0 is at version 1; expected version 0 instead."
)


def test_backward_after_an_in_place_change_raises_and_keeps_the_grad(torch):
    a = agv.tensor([1.0, 2.0], requires_grad=True)
    a.grad = agv.tensor([5.0, 6.0])
    b = a * 2
    c = b.sin()
    b.add_(1)
    before = snapshot([a])
    with pytest.raises(RuntimeError) as error:
        c.sum().backward()
    assert str(error.value).startswith(VERSION_ERROR)
    assert_unchanged(before, [a])
    np.testing.assert_array_equal(a.grad.numpy(), [5.0, 6.0])

    ta = torch.tensor([1.0, 2.0], requires_grad=True)
    ta.grad = torch.tensor([5.0, 6.0])
    tb = ta * 2
    tc = tb.sin()
    tb.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        tc.sum().backward()
    np.testing.assert_array_equal(ta.grad.numpy(), [5.0, 6.0])


def test_backward_that_fails_on_one_branch_adds_nothing_to_the_other(torch):
    # stricter than torch: torch has already added 3 to w.grad when the other branch fails
    def run(lib, tensor):
        a = tensor([1.0, 2.0], requires_grad=True)
        w = tensor([1.0, 2.0], requires_grad=True)
        a.grad, w.grad = tensor([5.0, 6.0]), tensor([1.0, 1.0])
        b = a * 2
        c = b.sin()
        b.add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            ((w * 3).sum() + c.sum()).backward()
        return w.grad.detach().numpy()

    np.testing.assert_array_equal(run(agv, agv.tensor), [1.0, 1.0])
    np.testing.assert_array_equal(run(torch, torch.tensor), [4.0, 4.0])


def test_backward_whose_tensor_hook_raises_keeps_every_grad():
    model = two_layers()
    params = with_grads(model)
    before = snapshot(params)
    hidden = model[0](agv.ones(4, 3))

    def hook(grad):
        raise ValueError("hook failed")

    hidden.register_hook(hook)
    loss = model[2](model[1](hidden)).sum()
    with pytest.raises(ValueError, match="^hook failed$"):
        loss.backward()
    assert_unchanged(before, params)  # model[2]'s grads were not added before the hook ran either


# -- a forward hook that raises, a forward that raises, ops with bad shapes ------------------------


def test_forward_hook_that_raises_changes_nothing_and_stays_registered():
    model = two_layers()
    params = with_grads(model)
    calls = []

    def hook(module, inputs, output):
        calls.append(output.shape)
        raise ValueError("forward hook failed")

    model[2].register_forward_hook(hook)
    before = snapshot(params)
    with pytest.raises(ValueError, match="^forward hook failed$"):
        model(agv.ones(4, 3))
    assert_unchanged(before, params)
    with pytest.raises(ValueError):
        model(agv.ones(1, 3))
    assert calls == [(4, 2), (1, 2)]


def test_forward_with_a_bad_input_shape_changes_nothing():
    model = two_layers()
    params = with_grads(model)
    before = snapshot(params)
    with pytest.raises(RuntimeError) as error:
        model(agv.ones(4, 5))
    assert str(error.value) == (
        "Linear(in_features=3, out_features=2, bias=True): expected input with last dimension 3, got shape (4, 5)"
    )
    assert_unchanged(before, params)


def test_ops_with_bad_shapes_change_no_operand():
    x = agv.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x.grad = agv.tensor([0.5, 0.5, 0.5])
    with agv.no_grad():
        y = agv.tensor([1.0, 2.0, 3.0])
    z = agv.ones(2)
    before = snapshot([x, y, z])
    with pytest.raises(RuntimeError) as error:
        y.add_(z)
    assert str(error.value) == (  # PyTorch's sentence first (issue 12), then the op and shapes
        "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0 "
        "(add: shapes (3,) and (2,) cannot be broadcast together)"
    )
    with pytest.raises(RuntimeError, match=r"^The size of tensor a .* \(add: shapes"):
        x + z
    with pytest.raises(RuntimeError):
        agv.ones(2, 3) @ agv.ones(2, 3)
    assert_unchanged(before, [x, y, z])
