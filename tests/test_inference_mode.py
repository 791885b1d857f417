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
