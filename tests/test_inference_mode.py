"""agv.inference_mode against torch.inference_mode: the modes it sets, as a
context manager and a decorator, what it marks as an inference tensor, and
PyTorch's errors when such a tensor is used with autograd outside the mode."""

from __future__ import annotations

import threading

import pytest

import autogradviz as agv

torch = pytest.importorskip("torch")


def modes(lib):
    return lib.is_grad_enabled(), lib.is_inference_mode_enabled()


@pytest.mark.parametrize("lib", [agv, torch], ids=["agv", "torch"])
def test_modes_inside_and_after(lib):
    seen = []
    with lib.inference_mode():
        seen.append(modes(lib))
        with lib.inference_mode(False):
            seen.append(modes(lib))
        seen.append(modes(lib))
    seen.append(modes(lib))
    with lib.no_grad():
        with lib.inference_mode(False):  # switches grad mode back on, as torch's does
            seen.append(modes(lib))
        seen.append(modes(lib))
    assert seen == [(False, True), (True, False), (False, True), (True, False), (True, False), (False, False)]


@pytest.mark.parametrize("lib", [agv, torch], ids=["agv", "torch"])
def test_as_a_decorator(lib):
    @lib.inference_mode
    def bare():
        return modes(lib)

    @lib.inference_mode()
    def called():
        return modes(lib)

    @lib.inference_mode(False)
    def off():
        return modes(lib)

    assert bare() == called() == (False, True)
    assert off() == (True, False)
    assert modes(lib) == (True, False)


def test_the_mode_is_restored_after_an_exception():
    with pytest.raises(ValueError):
        with agv.inference_mode():
            raise ValueError("inside")
    assert modes(agv) == (True, False)


def test_the_mode_is_per_thread():
    seen = []
    with agv.inference_mode():
        worker = threading.Thread(target=lambda: seen.append(modes(agv)))
        worker.start()
        worker.join()
    assert seen == [(True, False)]


@pytest.mark.parametrize("lib", [agv, torch], ids=["agv", "torch"])
def test_results_are_inference_tensors_without_history(lib):
    w = lib.ones(2, requires_grad=True)
    x = lib.ones(2)
    with lib.inference_mode():
        y = w * 2 + x
        z = (w * 3).sum()
    assert y.is_inference() and z.is_inference()
    assert not y.requires_grad and y.grad_fn is None
    assert not x.is_inference() and not w.is_inference()
    assert not y.clone().is_inference()  # a clone outside the mode is a normal tensor
    assert y.detach().is_inference()
    with lib.no_grad():
        assert not (x * 2).is_inference()  # no_grad alone makes normal tensors


def test_model_evaluation_as_in_tutorials():
    agv.manual_seed(0)
    model = agv.nn.Linear(3, 2)
    with agv.inference_mode():
        out = model(agv.ones(4, 3))
    assert out.is_inference() and not out.requires_grad and out.shape == (4, 2)


def error_of(fn):
    try:
        fn()
    except RuntimeError as error:
        return str(error)
    return None


def test_saving_an_inference_tensor_for_backward_raises_torchs_error():
    def use(lib):
        with lib.inference_mode():
            y = lib.ones(2) * 2
        w = lib.ones(2, requires_grad=True)
        return lambda: w * y  # mul saves y for w's gradient

    expected = error_of(use(torch))
    assert expected is not None and expected.startswith("Inference tensors cannot be saved for backward.")
    assert error_of(use(agv)) == expected


def test_an_inference_tensor_that_is_not_saved_can_be_used():
    with agv.inference_mode():
        y = agv.ones(2) * 2
    w = agv.ones(2, requires_grad=True)
    (w + y).sum().backward()  # add saves nothing: allowed, as in torch
    assert w.grad.tolist() == [1.0, 1.0]
    w2 = agv.ones(2, requires_grad=True)
    (w2 * y.clone()).sum().backward()  # the workaround torch's message gives
    assert w2.grad.tolist() == [2.0, 2.0]


def test_a_failed_save_leaves_the_graph_alone():
    with agv.inference_mode():
        y = agv.ones(2) * 2
    w = agv.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError):
        w * y
    assert w.grad is None and w.is_leaf and y.grad_fn is None


def test_requires_grad_on_an_inference_tensor_raises_torchs_error():
    def use(lib):
        with lib.inference_mode():
            y = lib.ones(2) * 2
        return lambda: y.requires_grad_()

    expected = error_of(use(torch))
    assert expected == "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."
    assert error_of(use(agv)) == expected
    with agv.inference_mode():
        y = agv.ones(2) * 2
        y.requires_grad_()  # inside the mode it is allowed, as in torch
    assert y.requires_grad


def test_inplace_error_text_is_torchs():
    from autogradviz.core.grad_mode import INFERENCE_INPLACE_ERROR

    with torch.inference_mode():
        y = torch.ones(2) * 2
    with pytest.raises(RuntimeError) as theirs:
        y.add_(1)
    assert str(theirs.value) == INFERENCE_INPLACE_ERROR


def test_repr_is_deterministic():
    assert repr(agv.inference_mode()) == "agv.inference_mode(True)"
    assert repr(agv.inference_mode(False)) == "agv.inference_mode(False)"


def test_inplace_update_of_an_inference_tensor_outside_the_mode_raises_torchs_error():
    import torch

    with torch.inference_mode():
        tt = torch.ones(3) * 2
    with pytest.raises(RuntimeError) as torch_error:
        tt.add_(1)
    with agv.inference_mode():
        t = agv.ones(3) * 2
    for update in (lambda: t.add_(1), lambda: t.mul_(2), lambda: t.__setitem__(0, 5.0), lambda: t.sin_()):
        with pytest.raises(RuntimeError) as ours:
            update()
        assert str(ours.value) == str(torch_error.value)
    assert t.tolist() == [2.0, 2.0, 2.0]  # nothing was written
    with agv.inference_mode():
        t.add_(1)  # inside the mode it is allowed, as in torch
    assert t.tolist() == [3.0, 3.0, 3.0]


# -- factory functions, and enable_grad() inside the mode (issue 12) ----------------------

FACTORIES = {
    "zeros": lambda lib: lib.zeros(2),
    "ones": lambda lib: lib.ones(2, 3),
    "full": lambda lib: lib.full((2,), 3.0),
    "empty": lambda lib: lib.empty(2),
    "eye": lambda lib: lib.eye(2),
    "arange": lambda lib: lib.arange(3),
    "linspace": lambda lib: lib.linspace(0, 1, 3),
    "rand": lambda lib: lib.rand(2),
    "randn": lambda lib: lib.randn(2),
    "randint": lambda lib: lib.randint(0, 3, (2,)),
    "randperm": lambda lib: lib.randperm(3),
    "tensor": lambda lib: lib.tensor([1.0, 2.0]),
    "zeros_like": lambda lib: lib.zeros_like(lib.ones(2)),
    "randn_like": lambda lib: lib.randn_like(lib.ones(2)),
    "from_numpy": lambda lib: lib.from_numpy(__import__("numpy").ones(2, "float32")),
    "requires_grad": lambda lib: lib.zeros(2, requires_grad=True),
}


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_factory_tensors_made_inside_are_inference_tensors_as_in_torch(name):
    make = FACTORIES[name]
    with torch.inference_mode():
        theirs = make(torch)
    with agv.inference_mode():
        ours = make(agv)
    assert theirs.is_inference() is True  # the oracle says so: the test means something
    assert (ours.is_inference(), ours.requires_grad) == (theirs.is_inference(), theirs.requires_grad)
    # made outside the mode, the same call gives a normal tensor in both
    assert make(agv).is_inference() is make(torch).is_inference() is False


@pytest.mark.parametrize("name", ["zeros", "tensor", "randn"])
def test_factory_tensors_made_inside_keep_torchs_rules_outside(name):
    with agv.inference_mode():
        t = FACTORIES[name](agv)
    with pytest.raises(RuntimeError, match="Setting requires_grad=True on inference tensor outside"):
        t.requires_grad_()
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor outside InferenceMode"):
        t.add_(1)


def enable_grad_inside_inference(lib):
    """What torch 2.13 does with enable_grad() inside inference_mode(): grad mode is
    on, a new tensor may require grad, but no op records (and all are inference)."""
    w_outside = lib.ones(2, requires_grad=True)
    with lib.inference_mode():
        with lib.enable_grad():
            facts = [lib.is_grad_enabled(), lib.is_inference_mode_enabled()]
            w = lib.ones(2, requires_grad=True)
            y = (w * 2).sum()
            z = w_outside * 3
            facts += [w.is_inference(), w.requires_grad, w.is_leaf]
            facts += [y.requires_grad, y.grad_fn is None, y.is_inference()]
            facts += [z.requires_grad, z.grad_fn is None, z.is_inference()]
        facts.append(lib.is_grad_enabled())  # back to the mode's own: off
    facts.append(modes(lib))
    return facts, y


def test_enable_grad_inside_inference_mode_records_nothing_as_in_torch():
    ours, y_ours = enable_grad_inside_inference(agv)
    theirs, y_theirs = enable_grad_inside_inference(torch)
    assert ours == theirs
    assert theirs[:2] == [True, True] and theirs[5:8] == [False, True, True]  # torch's facts, read
    with pytest.raises(RuntimeError) as ours_error:
        y_ours.backward()
    with pytest.raises(RuntimeError) as theirs_error:
        y_theirs.backward()
    assert str(ours_error.value).startswith(str(theirs_error.value))
