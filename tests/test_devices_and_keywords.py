"""Devices and numpy-style keywords (issue 12, items 1 and 2), each checked against torch.

Tutorial code picks a device and moves everything to it; autogradviz has only
the CPU, so that code must run unchanged with device "cpu", print what PyTorch
prints, and fail clearly (PyTorch's sentence, then a hint) when a GPU is asked for.
PyTorch also accepts numpy's names `axis=` and `keepdims=` on its reductions,
and `size=` on its creation functions.
"""

from __future__ import annotations

import pickle
import re

import numpy as np
import pytest

import autogradviz as agv

torch = pytest.importorskip("torch")

BOTH = pytest.mark.parametrize("m", [agv, torch], ids=["agv", "torch"])


def message_of(fn) -> tuple[type, str]:
    try:
        fn()
    except Exception as error:  # noqa: BLE001 - the class and message are what is compared
        return type(error), str(error)
    raise AssertionError("no error raised")


# -- device objects ---------------------------------------------------------------------------

DEVICE_SPECS = [("cpu",), ("cpu", 0), ("cpu:0",), ("cuda",), ("cuda:1",), ("cuda", 1), ("mps",), ("meta",)]


@pytest.mark.parametrize("spec", DEVICE_SPECS, ids=str)
def test_device_objects_print_and_compare_as_torch(spec):
    ours, theirs = agv.device(*spec), torch.device(*spec)
    assert repr(ours) == repr(theirs) and str(ours) == str(theirs)
    assert (ours.type, ours.index) == (theirs.type, theirs.index)
    assert agv.device(ours) == ours and hash(agv.device(ours)) == hash(ours)  # a device from a device
    assert pickle.loads(pickle.dumps(ours)) == ours
    # as in torch, a device never equals a string, even its own name
    assert (ours == str(ours)) == (theirs == str(theirs)) == False  # noqa: E712


def test_device_equality_follows_type_and_index():
    pairs = [(("cpu",), ("cpu",)), (("cpu",), ("cpu", 0)), (("cpu:0",), ("cpu", 0)), (("cuda",), ("cpu",))]
    for a, b in pairs:
        assert (agv.device(*a) == agv.device(*b)) == (torch.device(*a) == torch.device(*b)), (a, b)


@pytest.mark.parametrize(
    "spec",
    [("gpu",), ("cpu", -1), ("cuda:0", 1), (0,)],
    ids=["unknown type", "negative", "two indices", "int"],
)
def test_bad_device_specs_raise_torchs_error(spec):
    ours, theirs = message_of(lambda: agv.device(*spec)), message_of(lambda: torch.device(*spec))
    assert issubclass(ours[0], RuntimeError) and theirs[0] is RuntimeError
    assert ours[1] == theirs[1]


# -- every tensor is on the CPU, and every creation function takes device= ------------------------

CREATIONS = {
    "tensor": lambda m, **kw: m.tensor([1.0, 2.0], **kw),
    "as_tensor": lambda m, **kw: m.as_tensor([1.0, 2.0], **kw),
    "zeros": lambda m, **kw: m.zeros(2, 3, **kw),
    "ones": lambda m, **kw: m.ones((2,), **kw),
    "full": lambda m, **kw: m.full((2,), 1.5, **kw),
    "empty": lambda m, **kw: m.empty(2, **kw),
    "rand": lambda m, **kw: m.rand(2, **kw),
    "randn": lambda m, **kw: m.randn(2, 2, **kw),
    "randint": lambda m, **kw: m.randint(0, 5, (3,), **kw),
    "randperm": lambda m, **kw: m.randperm(4, **kw),
    "arange": lambda m, **kw: m.arange(5, **kw),
    "linspace": lambda m, **kw: m.linspace(0, 1, 5, **kw),
    "eye": lambda m, **kw: m.eye(3, **kw),
    "normal": lambda m, **kw: m.normal(0.0, 1.0, (2,), **kw),
    "zeros_like": lambda m, **kw: m.zeros_like(m.ones(2), **kw),
    "ones_like": lambda m, **kw: m.ones_like(m.ones(2), **kw),
    "empty_like": lambda m, **kw: m.empty_like(m.ones(2), **kw),
    "full_like": lambda m, **kw: m.full_like(m.ones(2), 7.0, **kw),
    "rand_like": lambda m, **kw: m.rand_like(m.ones(2), **kw),
    "randn_like": lambda m, **kw: m.randn_like(m.ones(2), **kw),
    "randint_like": lambda m, **kw: m.randint_like(m.ones(2), 0, 9, **kw),
}


@pytest.mark.parametrize("name", CREATIONS)
def test_creation_functions_take_device_cpu_like_torch(name):
    make = CREATIONS[name]
    for where in ("cpu", "cpu:0", ("cpu",), ("cpu", 0)):
        dev = (lambda m: m.device(*where)) if isinstance(where, tuple) else (lambda m: where)
        ours, theirs = make(agv, device=dev(agv)), make(torch, device=dev(torch))
        assert repr(ours.device) == repr(theirs.device) == "device(type='cpu')"
        assert ours.device == agv.device("cpu") and ours.device.type == "cpu"
        assert str(ours.dtype) == str(theirs.dtype) and tuple(ours.shape) == tuple(theirs.shape)


@pytest.mark.parametrize("name", CREATIONS)
@pytest.mark.parametrize("where", ["cuda", "cuda:0", "mps"])
def test_creation_on_a_gpu_raises_torchs_sentence_and_a_hint(name, where):
    make = CREATIONS[name]
    kind, text = message_of(lambda: make(agv, device=where))
    _, torch_text = message_of(lambda: make(torch, device=where))
    # torch raises AssertionError for CUDA and RuntimeError for mps: ours is both
    assert issubclass(kind, RuntimeError) and issubclass(kind, AssertionError)
    if where.startswith("cuda"):
        assert text.startswith(torch_text.rstrip("."))
    else:  # torch's words depend on the op ("Could not run 'aten::empty...' with ... the 'MPS' backend")
        assert "mps" in torch_text.lower() and text.startswith(
            "PyTorch is not linked with support for mps devices"
        )
    assert "numpy on the CPU" in text and 'use "cpu"' in text
    assert agv.device(where).type == where.split(":")[0]  # the device object itself is fine


def test_a_failed_creation_leaves_the_random_stream_alone():
    agv.manual_seed(3)
    expected = agv.rand(4).tolist()
    agv.manual_seed(3)
    for call in (
        lambda: agv.rand(4, device="cuda"),
        lambda: agv.randn(4, device=agv.device("cuda")),
        lambda: agv.randint(0, 3, (4,), requires_grad=True),  # ints can't require grad
        lambda: agv.randperm(4, requires_grad=True),
        lambda: agv.rand(4, dtype=agv.int64),
        lambda: agv.rand(4, pin_memory=True),
    ):
        with pytest.raises((RuntimeError, NotImplementedError)):
            call()
    assert agv.rand(4).tolist() == expected


def test_pin_memory_false_is_accepted_and_true_raises_torchs_error():
    for m in (agv, torch):
        assert m.zeros(2, pin_memory=False).shape == (2,)
        assert m.tensor([1.0], pin_memory=False).shape == (1,)
    for make in (lambda m: m.zeros(2, pin_memory=True), lambda m: m.tensor([1.0], pin_memory=True)):
        ours, theirs = message_of(lambda: make(agv)), message_of(lambda: make(torch))
        assert ours[0] is theirs[0] is RuntimeError and ours[1].startswith(theirs[1])


# -- moving tensors and modules -------------------------------------------------------------------


@BOTH
def test_to_device_forms_like_torch(m):
    x = m.tensor([[1.0, 2.0]])
    d = m.device("cuda" if m.cuda.is_available() else "cpu")  # the tutorial idiom
    assert x.to(d) is x and x.to("cpu") is x and x.to(device="cpu") is x and x.cpu() is x
    assert x.to("cpu", non_blocking=True) is x
    assert str(x.to(d, m.float64).dtype) == "torch.float64"
    assert str(x.to(device=d, dtype=m.float64).dtype) == "torch.float64"
    assert str(x.to(m.zeros(1, dtype=m.float64)).dtype) == "torch.float64"
    assert x.to(m.zeros(1)) is x
    assert x.to("cpu", copy=True) is not x
    assert x.is_cuda is False and x.is_cpu is True and x.get_device() == -1
    assert repr(x.device) == "device(type='cpu')"


def test_to_a_gpu_raises_and_changes_nothing():
    x = agv.tensor([1.0, 2.0], requires_grad=True)
    for call in (
        lambda: x.to("cuda"),
        lambda: x.to(agv.device("cuda", 0)),
        lambda: x.cuda(),
        lambda: x.to("mps"),
    ):
        kind, text = message_of(call)
        assert issubclass(kind, RuntimeError) and "numpy on the CPU" in text
    assert x.device == agv.device("cpu") and x.tolist() == [1.0, 2.0]
    with pytest.raises(RuntimeError, match=re.escape("Torch not compiled with CUDA enabled")):
        x.to("cuda:0", agv.float64)


def test_model_to_device_as_tutorials_write_it():
    device = "cuda" if agv.cuda.is_available() else "cpu"
    model = agv.nn.Sequential(agv.nn.Linear(3, 4), agv.nn.ReLU(), agv.nn.Linear(4, 1))
    assert model.to(device) is model and model.to(agv.device(device)) is model
    assert model.cpu() is model
    x = agv.randn(2, 3).to(device)
    assert model(x).shape == (2, 1)
    model.to(device, agv.float64)
    assert all(p.dtype is agv.float64 for p in model.parameters())
    model.to(dtype=agv.float32, device=device, non_blocking=True)
    assert all(p.dtype is agv.float32 for p in model.parameters())
    weights = [p.tolist() for p in model.parameters()]
    for call in (
        lambda: model.to("cuda"),
        lambda: model.cuda(),
        lambda: model.to(agv.device("cuda"), agv.float64),
    ):
        with pytest.raises(RuntimeError, match="Torch not compiled with CUDA enabled"):
            call()
    assert [p.tolist() for p in model.parameters()] == weights
    assert all(p.dtype is agv.float32 for p in model.parameters())  # the failed move changed nothing


# -- torch.cuda, torch.accelerator, torch.backends, default device -----------------------------


def test_cuda_accelerator_and_backends_answer_as_a_cpu_only_torch():
    assert agv.cuda.is_available() is torch.cuda.is_available() is False
    assert agv.cuda.device_count() == torch.cuda.device_count() == 0
    assert agv.cuda.is_initialized() is False
    assert agv.accelerator.is_available() is torch.accelerator.is_available() is False
    assert agv.accelerator.current_accelerator() is torch.accelerator.current_accelerator() is None
    assert agv.accelerator.device_count() == torch.accelerator.device_count() == 0
    assert agv.backends.mps.is_available() is torch.backends.mps.is_available() is False
    assert agv.backends.mps.is_built() is torch.backends.mps.is_built() is False
    assert agv.backends.cudnn.is_available() is torch.backends.cudnn.is_available() is False
    assert agv.cuda.memory_allocated() == torch.cuda.memory_allocated() == 0
    agv.cuda.empty_cache()  # a no-op, as in torch without CUDA
    for name in ("current_device", "get_device_name", "synchronize"):
        ours, theirs = message_of(getattr(agv.cuda, name)), message_of(getattr(torch.cuda, name))
        assert issubclass(ours[0], theirs[0]) and ours[1].startswith(theirs[1])
    for name in ("current_device_index", "synchronize", "empty_cache"):
        ours, theirs = (
            message_of(getattr(agv.accelerator, name)),
            message_of(getattr(torch.accelerator, name)),
        )
        assert issubclass(ours[0], theirs[0]) and ours[1] == theirs[1]


def test_cudnn_flags_can_be_set_as_tutorials_do():
    for m in (agv, torch):
        before = (m.backends.cudnn.deterministic, m.backends.cudnn.benchmark)
        m.backends.cudnn.deterministic, m.backends.cudnn.benchmark = True, False
        assert m.backends.cudnn.deterministic is True
        m.backends.cudnn.deterministic, m.backends.cudnn.benchmark = before
    assert (agv.backends.cudnn.deterministic, agv.backends.cudnn.benchmark) == (
        torch.backends.cudnn.deterministic,
        torch.backends.cudnn.benchmark,
    )


def test_cuda_seeding_is_a_no_op_that_leaves_the_cpu_stream_alone():
    """torch.cuda.manual_seed_all(seed) in a CPU-only torch seeds nothing; the CPU's
    draws depend on torch.manual_seed alone. Same here."""
    for m in (agv, torch):
        m.manual_seed(7)
        first = m.rand(3).tolist()
        m.manual_seed(7)
        assert m.cuda.manual_seed(123) is None and m.cuda.manual_seed_all(123) is None
        m.cuda.seed()
        m.cuda.seed_all()
        assert m.rand(3).tolist() == first


def test_default_device():
    assert repr(agv.get_default_device()) == repr(torch.get_default_device()) == "device(type='cpu')"
    agv.set_default_device("cpu")
    agv.set_default_device(agv.device("cpu"))
    agv.set_default_device(None)
    assert agv.get_default_device() == agv.device("cpu")
    with pytest.raises(RuntimeError, match="Torch not compiled with CUDA enabled"):
        agv.set_default_device("cuda")
    assert agv.get_default_device() == agv.device("cpu")  # unchanged by the failed call


def test_generator_device_like_torch():
    assert repr(agv.Generator().device) == repr(torch.Generator().device) == "device(type='cpu')"
    assert agv.Generator("cpu").device == agv.Generator(agv.device("cpu")).device
    with pytest.raises(RuntimeError, match="Torch not compiled with CUDA enabled"):
        agv.Generator("cuda")


def test_as_tensor_shares_what_torch_shares():
    for m in (agv, torch):
        array = np.zeros(3, dtype=np.float32)
        t = m.as_tensor(array)
        array[0] = 5.0
        assert t.tolist() == [5.0, 0.0, 0.0]  # shared memory
        assert m.as_tensor(t) is t and m.as_tensor(t, dtype=m.float32) is t
        assert m.as_tensor(t, dtype=m.float64) is not t
        copied = m.as_tensor(array, dtype=m.float64)
        array[1] = 1.0
        assert copied.tolist() == [5.0, 0.0, 0.0]
        assert str(m.as_tensor([1, 2]).dtype) == "torch.int64"


# -- size= on creation functions -----------------------------------------------------------------

SIZED = {
    "zeros": lambda m, **kw: m.zeros(**kw),
    "ones": lambda m, **kw: m.ones(**kw),
    "empty": lambda m, **kw: m.empty(**kw),
    "rand": lambda m, **kw: m.rand(**kw),
    "randn": lambda m, **kw: m.randn(**kw),
}


@pytest.mark.parametrize("name", SIZED)
@pytest.mark.parametrize("size", [(2, 3), [4], (), (0, 2)], ids=str)
def test_size_keyword_like_torch(name, size):
    ours, theirs = SIZED[name](agv, size=size), SIZED[name](torch, size=size)
    assert tuple(ours.shape) == tuple(theirs.shape) and str(ours.dtype) == str(theirs.dtype)
    if name in ("zeros", "ones"):
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_size_keyword_on_full_and_randint_like_torch():
    for m in (agv, torch):
        assert m.full(size=(2,), fill_value=3.0).tolist() == [3.0, 3.0]
        assert str(m.full(size=(2,), fill_value=3).dtype) == "torch.int64"
        for draw in (
            m.randint(0, 5, size=(20,)),
            m.randint(5, size=(20,)),
            m.randint(low=2, high=5, size=(20,)),
        ):
            assert tuple(draw.shape) == (20,) and str(draw.dtype) == "torch.int64"
        assert m.randint(high=3, size=(50,)).max().item() <= 2
        assert m.randint(low=2, high=5, size=(50,)).min().item() >= 2


def test_size_given_twice_is_torchs_type_error():
    for make in (lambda m: m.zeros((2,), size=(2,)), lambda m: m.ones(2, size=(2,))):
        ours, theirs = message_of(lambda: make(agv)), message_of(lambda: make(torch))
        assert ours == theirs
    with pytest.raises(TypeError, match="multiple values for argument 'size'"):
        agv.rand(2, size=(2,))


def test_randint_empty_range_is_torchs_error():
    ours, theirs = message_of(lambda: agv.randint(3, 2, (2,))), message_of(lambda: torch.randint(3, 2, (2,)))
    assert ours == theirs


# -- axis= and keepdims= on reductions -----------------------------------------------------------

REDUCTIONS = {
    "sum": lambda m, x, **kw: m.sum(x, **kw),
    "mean": lambda m, x, **kw: m.mean(x, **kw),
    "std": lambda m, x, **kw: m.std(x, **kw),
    "var": lambda m, x, **kw: m.var(x, **kw),
    "logsumexp": lambda m, x, **kw: m.logsumexp(x, **kw),
    "max": lambda m, x, **kw: m.max(x, **kw)[0],
    "min": lambda m, x, **kw: m.min(x, **kw)[0],
    "max_indices": lambda m, x, **kw: m.max(x, **kw)[1],
    "amax": lambda m, x, **kw: m.amax(x, **kw),
    "amin": lambda m, x, **kw: x.amin(**kw),
    "argmax": lambda m, x, **kw: m.argmax(x, **kw),
    "argmin": lambda m, x, **kw: m.argmin(x, **kw),
    "any": lambda m, x, **kw: m.any(x > 2, **kw),
    "all": lambda m, x, **kw: m.all(x > 2, **kw),
    "method_sum": lambda m, x, **kw: x.sum(**kw),
    "method_mean": lambda m, x, **kw: x.mean(**kw),
    "method_max": lambda m, x, **kw: x.max(**kw).values,
    "method_argmax": lambda m, x, **kw: x.argmax(**kw),
}
VALUES = [[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]]
TUPLE_DIMS = ("sum", "mean", "std", "var", "logsumexp", "amax", "amin", "method_sum", "method_mean")


@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize(
    "kw",
    [{"axis": 1}, {"axis": 0, "keepdims": True}, {"dim": 1, "keepdims": True}, {"axis": -1, "keepdim": True}],
    ids=str,
)
def test_numpy_keywords_on_reductions_like_torch(name, kw):
    reduce = REDUCTIONS[name]
    x, t = agv.tensor(VALUES, requires_grad=True), torch.tensor(VALUES, requires_grad=True)
    ours, theirs = reduce(agv, x, **kw), reduce(torch, t, **kw)
    assert tuple(ours.shape) == tuple(theirs.shape) and str(ours.dtype) == str(theirs.dtype)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-6)
    if theirs.requires_grad:
        weights = np.arange(1.0, 1.0 + theirs.numel()).reshape(tuple(theirs.shape)).astype(np.float32)
        (ours * agv.tensor(weights)).sum().backward()
        (theirs * torch.tensor(weights)).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-5)


@pytest.mark.parametrize("name", TUPLE_DIMS)
def test_axis_takes_a_tuple_where_dim_does(name):
    reduce = REDUCTIONS[name]
    ours = reduce(agv, agv.tensor(VALUES), axis=(0, 1), keepdims=True)
    theirs = reduce(torch, torch.tensor(VALUES), axis=(0, 1), keepdims=True)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


@BOTH
def test_softmax_takes_axis(m):
    x = m.tensor(VALUES)
    np.testing.assert_allclose(
        np.asarray(m.softmax(x, axis=0).tolist()), np.asarray(m.softmax(x, dim=0).tolist()), rtol=1e-6
    )
    np.testing.assert_allclose(
        np.asarray(m.log_softmax(x, axis=1).tolist()), np.asarray(m.log_softmax(x, 1).tolist()), rtol=1e-6
    )


@pytest.mark.parametrize(
    "call",
    [
        lambda m, x: x.sum(dim=1, axis=1),
        lambda m, x: m.mean(x, 1, axis=1),
        lambda m, x: x.sum(dim=1, keepdim=True, keepdims=True),
        lambda m, x: x.argmax(dim=1, axis=1),
    ],
    ids=["sum dim+axis", "mean dim+axis", "keepdim+keepdims", "argmax dim+axis"],
)
def test_both_names_at_once_is_torchs_type_error(call):
    ours = message_of(lambda: call(agv, agv.tensor(VALUES)))
    theirs = message_of(lambda: call(torch, torch.tensor(VALUES)))
    assert ours[0] is theirs[0] is TypeError
    if (
        "unexpected keyword argument" in theirs[1]
    ):  # torch's other wording: "invalid combination of arguments"
        assert ours[1].startswith(theirs[1])
    assert re.search("unexpected keyword argument '(axis|keepdims)'", ours[1])


def test_logsumexp_needs_a_dim_like_torch():
    ours = message_of(lambda: agv.logsumexp(agv.tensor(VALUES)))
    theirs = message_of(lambda: torch.logsumexp(torch.tensor(VALUES)))
    assert ours == theirs


# -- amax, amin (new: the values of max/min, over several dims at once) ---------------------------

TIES = [[[1.0, 3.0, 3.0], [2.0, float("nan"), 0.0]], [[5.0, 5.0, 5.0], [-1.0, 4.0, 4.0]]]


@pytest.mark.parametrize("op", ["amax", "amin"])
@pytest.mark.parametrize(
    "kw", [{}, {"dim": 1}, {"dim": (0, 2)}, {"dim": -1, "keepdim": True}, {"dim": ()}], ids=str
)
def test_amax_amin_values_and_tied_gradients_like_torch(op, kw):
    x, t = agv.tensor(TIES, requires_grad=True), torch.tensor(TIES, requires_grad=True)
    ours, theirs = getattr(agv, op)(x, **kw), getattr(torch, op)(t, **kw)
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy())
    weights = np.arange(1.0, 1.0 + theirs.numel(), dtype=np.float32).reshape(tuple(theirs.shape))
    (ours * agv.tensor(weights)).sum().backward()
    (theirs * torch.tensor(weights)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy())  # ties share; a NaN row gets NaN


@pytest.mark.parametrize("op", ["amax", "amin"])
def test_amax_amin_second_derivative_like_torch(op):
    values = [[0.5, 2.0, 2.0], [1.0, -3.0, 0.25]]
    x, t = agv.tensor(values, requires_grad=True), torch.tensor(values, requires_grad=True)
    results = []
    for m, v in ((agv, x), (torch, t)):
        y = (getattr(m, op)(v * v, dim=1) ** 2).sum()
        (g,) = m.autograd.grad(y, v, create_graph=True)
        (gg,) = m.autograd.grad(g.sum(), v)
        results.append((g.detach().numpy().copy(), gg.numpy().copy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-6)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-6)


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.amax(m.zeros(0, 3)),
        lambda m: m.amax(m.zeros(0, 3), 0),
        lambda m: m.amin(m.ones(2, 3), 2),
    ],
    ids=["empty, no dim", "empty dim", "dim out of range"],
)
def test_amax_amin_errors_like_torch(call):
    assert message_of(lambda: call(agv)) == message_of(lambda: call(torch))


def test_amax_amin_other_dtypes_and_shapes_like_torch():
    for make in (
        lambda m: m.amax(m.tensor([1, 5, 2])),
        lambda m: m.amin(m.tensor([True, False])),
        lambda m: m.amax(m.zeros(0, 3), 1),
        lambda m: m.amax(m.tensor(3.0), 0),
    ):
        ours, theirs = make(agv), make(torch)
        assert str(ours.dtype) == str(theirs.dtype) and ours.tolist() == theirs.tolist()
