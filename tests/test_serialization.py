"""agv.save / agv.load: round trips of what a lesson saves, and weights_only=True
(the default, as in torch.load since 2.6) refusing files that would run code."""

from __future__ import annotations

import builtins
import collections
import io
import os
import pickle
import shlex

import numpy as np
import pytest

import autogradviz as agv


def refused(name: str) -> str:
    # written out here rather than imported, so that a change to the wording fails a test
    return (
        f"agv.load: refused to load the global '{name}' from this file: with weights_only=True (the default) "
        "a file may hold only tensors, arrays, numbers, strings and dicts/lists/tuples of them. "
        "If you trust the file, load it with weights_only=False."
    )


def round_trip(obj, tmp_path, how: str = "path", **load_kwargs):
    """Save and load `obj` through a str path, a pathlib.Path, an open file or a BytesIO."""
    path = tmp_path / "saved.agv"
    if how == "path":
        agv.save(obj, str(path))
        return agv.load(str(path), **load_kwargs)
    if how == "pathlib":
        agv.save(obj, path)
        return agv.load(path, **load_kwargs)
    if how == "file":
        with open(path, "wb") as f:
            agv.save(obj, f)
        with open(path, "rb") as f:
            return agv.load(f, **load_kwargs)
    buffer = io.BytesIO()
    agv.save(obj, buffer)
    buffer.seek(0)
    return agv.load(buffer, **load_kwargs)


HOWS = ["path", "pathlib", "file", "bytesio"]


# round trips --------------------------------------------------------------------------------------


@pytest.mark.parametrize("how", HOWS)
def test_a_tensor_keeps_values_dtype_requires_grad_grad_and_name(tmp_path, how):
    w = agv.tensor([[1.5, -2.0], [3.25, 0.0]], requires_grad=True)
    w.name = "w"
    (w * agv.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    loaded = round_trip(w, tmp_path, how)
    assert type(loaded) is agv.Tensor
    np.testing.assert_array_equal(
        loaded.detach().numpy(), np.array([[1.5, -2.0], [3.25, 0.0]], dtype=np.float32)
    )
    assert loaded.dtype is agv.float32
    assert loaded.detach().numpy().dtype == np.float32
    assert loaded.requires_grad is True
    assert loaded.is_leaf
    assert loaded.name == "w"
    np.testing.assert_array_equal(
        loaded.grad.detach().numpy(), np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32)
    )
    assert loaded is not w and not np.shares_memory(loaded.detach().numpy(), w.detach().numpy())


def test_a_tensor_without_grad_or_name_and_a_parameter(tmp_path):
    plain = round_trip(agv.tensor([1.0, 2.0]), tmp_path)
    assert plain.requires_grad is False and plain.grad is None and plain.name is None
    np.testing.assert_array_equal(plain.detach().numpy(), np.array([1.0, 2.0], dtype=np.float32))
    p = agv.nn.Parameter(agv.tensor([0.5, -0.5]))
    loaded = round_trip(p, tmp_path)
    assert isinstance(loaded, agv.nn.Parameter)
    assert loaded.requires_grad is True
    np.testing.assert_array_equal(loaded.detach().numpy(), np.array([0.5, -0.5], dtype=np.float32))


def test_the_saved_format_is_a_call_of_core_tensor_rebuild_with_a_dict_of_labels():
    # files name autogradviz.core.tensor._rebuild(data, requires_grad, grad, meta), and meta
    # holds only "parameter" and "name": hooks, retain_grad and view links stay with the object
    from autogradviz.core.tensor import _rebuild

    p = agv.nn.Parameter(agv.tensor([0.5, -0.5]))
    p.name = "w"
    p.register_hook(lambda g: g)
    (p * 2).sum().backward()
    function, (data, requires_grad, grad, meta) = p.__reduce_ex__(4)
    assert (function.__module__, function.__name__, function) == (
        "autogradviz.core.tensor",
        "_rebuild",
        _rebuild,
    )
    assert data is p.detach().numpy() and requires_grad is True and grad.tolist() == [2.0, 2.0]
    assert meta == {"parameter": True, "name": "w"}
    v = agv.tensor([1.0, 2.0], requires_grad=True) * 1
    v.retain_grad()
    assert v[0].__reduce_ex__(4)[1][3] is None and v.__reduce_ex__(4)[1][1:] == (False, None, None)
    # a file written by hand in that format loads as a named Parameter, weights_only or not
    crafted = _crafted(_rebuild, np.array([1.0, 2.0], dtype=np.float32), True, None, meta)
    for weights_only in (True, False):
        loaded = agv.load(io.BytesIO(crafted), weights_only=weights_only)
        assert type(loaded) is agv.nn.Parameter and loaded.name == "w" and loaded.requires_grad
        assert loaded._meta == {"parameter": True, "name": "w"}


@pytest.mark.parametrize(
    "values, dtype, numpy_dtype",
    [
        ([[1, -2], [3, 2**40]], agv.int64, np.int64),
        ([True, False, True], agv.bool, np.bool_),
        ([0.1, -1e300, 3.0], agv.float64, np.float64),
    ],
)
def test_int64_bool_and_float64_tensors(tmp_path, values, dtype, numpy_dtype):
    t = agv.tensor(values, dtype=dtype)
    loaded = round_trip(t, tmp_path)
    assert loaded.dtype is dtype
    assert loaded.detach().numpy().dtype == numpy_dtype
    np.testing.assert_array_equal(loaded.detach().numpy(), np.array(values, dtype=numpy_dtype))


def test_a_zero_dim_tensor(tmp_path):
    loaded = round_trip(agv.tensor(2.5), tmp_path)
    assert loaded.shape == () and loaded.item() == 2.5


def _model():
    return agv.nn.Sequential(agv.nn.Linear(3, 2), agv.nn.ReLU())


@pytest.mark.parametrize("how", HOWS)
def test_a_model_state_dict(tmp_path, how):
    agv.manual_seed(0)
    model = _model()
    state = model.state_dict()
    loaded = round_trip(state, tmp_path, how)
    assert type(loaded) is collections.OrderedDict
    assert list(loaded) == ["0.weight", "0.bias"]
    for key, value in state.items():
        assert type(loaded[key]) is agv.Tensor
        assert loaded[key].shape == value.shape
        assert loaded[key].dtype is value.dtype is agv.float32
        assert loaded[key].requires_grad is False  # state_dict() detaches, as in torch
        np.testing.assert_array_equal(loaded[key].detach().numpy(), value.detach().numpy())
    agv.manual_seed(1)
    fresh = _model()
    assert not np.array_equal(fresh[0].weight.detach().numpy(), model[0].weight.detach().numpy())
    fresh.load_state_dict(loaded)
    x = agv.randn(4, 3)
    np.testing.assert_array_equal(fresh(x).detach().numpy(), model(x).detach().numpy())


def _adam_after_one_step(seed: int):
    agv.manual_seed(seed)
    model = _model()
    opt = agv.optim.Adam(model.parameters(), lr=0.01, betas=(0.8, 0.99))
    x = agv.tensor([[1.0, -2.0, 0.5], [0.3, 0.2, -1.0]])
    model(x).pow(2).sum().backward()
    opt.step()
    return model, opt, x


def test_an_adam_state_dict_after_one_step(tmp_path):
    model, opt, x = _adam_after_one_step(0)
    saved = opt.state_dict()
    loaded = round_trip(saved, tmp_path)
    assert loaded["param_groups"] == saved["param_groups"]
    assert loaded["param_groups"][0]["betas"] == (0.8, 0.99)
    assert loaded["param_groups"][0]["lr"] == 0.01
    assert loaded["param_groups"][0]["params"] == [0, 1]
    assert sorted(loaded["state"]) == [0, 1]
    for index, entry in saved["state"].items():
        assert sorted(loaded["state"][index]) == sorted(entry) == ["exp_avg", "exp_avg_sq", "step"]
        assert loaded["state"][index]["step"] == entry["step"]
        for key in ("exp_avg", "exp_avg_sq"):
            assert loaded["state"][index][key].dtype is entry[key].dtype
            np.testing.assert_array_equal(
                loaded["state"][index][key].detach().numpy(), entry[key].detach().numpy()
            )
    # the loaded state trains on exactly as the original does
    other_model, other_opt, _ = _adam_after_one_step(5)
    other_model.load_state_dict(round_trip(model.state_dict(), tmp_path))
    other_opt.load_state_dict(loaded)
    for m, o in ((model, opt), (other_model, other_opt)):
        o.zero_grad()
        m(x).pow(2).sum().backward()
        o.step()
    for ours, theirs in zip(model.parameters(), other_model.parameters()):
        np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())


def test_a_checkpoint_of_nested_dicts_lists_and_plain_values(tmp_path):
    model = _model()
    checkpoint = {
        "epoch": 3,
        "loss": 0.25,
        "history": [1.5, 0.75, [0.5, {"deep": (1, 2, None)}]],
        "flags": {"done": True, "skipped": False},
        "note": "résumé",
        "raw": b"\x00\xff",
        "buffer": bytearray(b"ab"),
        "complex": 1 + 2j,
        "big": 2**100,
        "seen": {1, 2, 3},
        "frozen": frozenset({"a"}),
        "window": slice(1, 10, 2),
        "steps": range(0, 6, 3),
        "dtype": agv.float64,
        "best": np.float64(0.125),
        "array": np.arange(6, dtype=np.int32).reshape(2, 3),
        "model": model.state_dict(),
        "tensors": [agv.tensor([1, 2]), (agv.tensor([True]),)],
    }
    loaded = round_trip(checkpoint, tmp_path)
    assert list(loaded) == list(checkpoint)
    for key in ("epoch", "loss", "history", "flags", "note", "raw", "buffer", "complex", "big", "seen"):
        assert loaded[key] == checkpoint[key]
        assert type(loaded[key]) is type(checkpoint[key])
    assert loaded["frozen"] == frozenset({"a"}) and type(loaded["frozen"]) is frozenset
    assert loaded["window"] == slice(1, 10, 2)
    assert loaded["steps"] == range(0, 6, 3)
    assert loaded["dtype"] is agv.float64
    assert loaded["best"] == 0.125 and type(loaded["best"]) is np.float64
    np.testing.assert_array_equal(loaded["array"], checkpoint["array"])
    assert loaded["array"].dtype == np.int32
    for key, value in checkpoint["model"].items():
        np.testing.assert_array_equal(loaded["model"][key].detach().numpy(), value.detach().numpy())
    np.testing.assert_array_equal(loaded["tensors"][0].detach().numpy(), np.array([1, 2]))
    assert loaded["tensors"][0].dtype is agv.int64
    assert type(loaded["tensors"][1]) is tuple
    assert loaded["tensors"][1][0].dtype is agv.bool and loaded["tensors"][1][0].tolist() == [True]


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_every_pickle_protocol_loads(protocol):
    # protocols 0-2 spell bytes as _codecs.encode(..., "latin1") and builtins as __builtin__.*
    w = agv.tensor([[0.5, 1.5]], requires_grad=True)
    w.sum().backward()
    obj = {"w": w, "state": _model().state_dict(), "seen": {1}, "frozen": frozenset({2}), "r": range(3)}
    loaded = agv.load(io.BytesIO(pickle.dumps(obj, protocol=protocol)))
    np.testing.assert_array_equal(loaded["w"].detach().numpy(), np.array([[0.5, 1.5]], dtype=np.float32))
    np.testing.assert_array_equal(loaded["w"].grad.detach().numpy(), np.ones((1, 2), dtype=np.float32))
    for key, value in obj["state"].items():
        np.testing.assert_array_equal(loaded["state"][key].detach().numpy(), value.detach().numpy())
    assert loaded["seen"] == {1} and loaded["frozen"] == frozenset({2}) and loaded["r"] == range(3)


@pytest.mark.parametrize("protocol", [2, pickle.DEFAULT_PROTOCOL, pickle.HIGHEST_PROTOCOL])
def test_a_numpy_array_from_plain_pickle_dump_loads(tmp_path, protocol):
    array = np.array([[1.0, 2.5], [-3.0, 4.0]])
    path = tmp_path / "array.pkl"
    with open(path, "wb") as f:
        pickle.dump({"a": array, "i": np.arange(3), "b": np.array([True, False])}, f, protocol=protocol)
    loaded = agv.load(path)
    np.testing.assert_array_equal(loaded["a"], array)
    assert loaded["a"].dtype == np.float64
    np.testing.assert_array_equal(loaded["i"], np.arange(3))
    np.testing.assert_array_equal(loaded["b"], np.array([True, False]))


def test_a_numpy_1_pickle_loads_under_numpy_2_names():
    # numpy 1.x writes numpy.core.*, numpy 2 writes numpy._core.*: both are accepted
    data = pickle.dumps(np.array([1.0, 2.0]), protocol=2)
    for package in (b"numpy._core", b"numpy.core"):
        spelled = data.replace(b"cnumpy._core.multiarray\n", b"c" + package + b".multiarray\n")
        assert b"c" + package + b".multiarray\n_reconstruct\n" in spelled
        np.testing.assert_array_equal(agv.load(io.BytesIO(spelled)), np.array([1.0, 2.0]))


def test_dtype_classes_load():
    assert agv.load(io.BytesIO(pickle.dumps(type(np.dtype("float32"))))) is type(np.dtype("float32"))


# refusing code ------------------------------------------------------------------------------------


class _Exec:
    """Unpickling this calls exec, which writes the marker: a stand-in for real harm."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (builtins.exec, (f"with open({self.marker!r}, 'w') as f: f.write('pwned')",))


def _malicious_file(tmp_path, payload=None):
    marker = tmp_path / "marker"
    path = tmp_path / "evil.agv"
    with open(path, "wb") as f:  # plain pickle: an attacker need not use agv.save
        pickle.dump({"0.weight": agv.tensor([1.0]), "x": payload or _Exec(marker)}, f)
    return path, marker


@pytest.mark.parametrize("how", ["str path", "pathlib", "file", "explicit weights_only=True", "None"])
def test_weights_only_refuses_a_file_that_would_run_code(tmp_path, how):
    path, marker = _malicious_file(tmp_path)
    with pytest.raises(pickle.UnpicklingError) as info:
        if how == "str path":
            agv.load(str(path))
        elif how == "pathlib":
            agv.load(path)
        elif how == "file":
            with open(path, "rb") as f:
                agv.load(f)
        elif how == "None":  # None means the default, as in torch.load
            agv.load(path, weights_only=None)
        else:
            agv.load(path, weights_only=True)
    assert str(info.value) == refused("builtins.exec")
    assert not marker.exists()


def test_weights_only_false_runs_the_file(tmp_path):
    path, marker = _malicious_file(tmp_path)
    loaded = agv.load(path, weights_only=False)
    assert marker.read_text() == "pwned"
    assert loaded["x"] is None  # exec's return value
    np.testing.assert_array_equal(loaded["0.weight"].detach().numpy(), np.array([1.0], dtype=np.float32))


class _System:
    def __init__(self, marker):
        self.command = f"echo pwned > {shlex.quote(str(marker))}"

    def __reduce__(self):
        return (os.system, (self.command,))


@pytest.mark.skipif(os.name != "posix", reason="the shell command quotes for a POSIX shell")
def test_os_system_is_refused_and_named(tmp_path):
    marker = tmp_path / "marker"
    path, _ = _malicious_file(tmp_path, _System(marker))
    name = f"{os.system.__module__}.system"  # pickle names the module that defines it: posix, not os
    with open(path, "rb") as f:
        with pytest.raises(pickle.UnpicklingError) as info:
            agv.load(f)
    assert str(info.value) == refused(name)
    assert not marker.exists()
    agv.load(path, weights_only=False)
    assert marker.read_text().strip() == "pwned"


@pytest.mark.parametrize("protocol", [0, 2, 4, 5])
def test_eval_is_refused_under_every_protocol(tmp_path, protocol):
    marker = tmp_path / "marker"

    class Eval:
        def __reduce__(self):
            return (builtins.eval, (f"__import__('pathlib').Path({str(marker)!r}).write_text('pwned')",))

    data = pickle.dumps([Eval()], protocol=protocol)
    with pytest.raises(pickle.UnpicklingError) as info:
        agv.load(io.BytesIO(data))
    # protocols 0-2 write Python 2's module name; the message names the global as the file spells it
    assert str(info.value) == refused("__builtin__.eval" if protocol < 3 else "builtins.eval")
    assert not marker.exists()
    agv.load(io.BytesIO(data), weights_only=False)  # the payload is real: unrestricted, it runs
    assert marker.read_text() == "pwned"


def test_a_whole_model_needs_weights_only_false(tmp_path):
    agv.manual_seed(0)
    model = _model()
    path = tmp_path / "whole.agv"
    agv.save(model, path)
    with pytest.raises(pickle.UnpicklingError) as info:
        agv.load(path)
    assert str(info.value) == refused(f"{type(model).__module__}.{type(model).__qualname__}")
    again = agv.load(path, weights_only=False)
    x = agv.randn(2, 3)
    np.testing.assert_array_equal(again(x).detach().numpy(), model(x).detach().numpy())


def _crafted(func, *args):
    class Crafted:
        def __reduce__(self):
            return (func, args)

    return pickle.dumps(Crafted())


def test_a_crafted_tensor_of_python_objects_is_refused():
    from autogradviz.core.tensor import _rebuild

    data = _crafted(_rebuild, np.array([1, "x"], dtype=object), False, None, None)
    with pytest.raises(pickle.UnpicklingError) as info:
        agv.load(io.BytesIO(data))
    assert str(info.value) == (
        "agv.load: refused a tensor in this file: its data is not an array of numbers. agv.save never "
        "writes such a tensor, and with weights_only=True (the default) it is not built. If you trust "
        "the file, load it with weights_only=False."
    )
    hooked = _crafted(_rebuild, np.zeros(2), True, None, {"hooks": [print]})
    with pytest.raises(pickle.UnpicklingError, match="refused to load the global 'builtins.print'"):
        agv.load(io.BytesIO(hooked))  # print itself is refused first
    extras = _crafted(_rebuild, np.zeros(2), True, None, {"hooks": []})
    with pytest.raises(pickle.UnpicklingError, match="extras other than a name and the Parameter mark"):
        agv.load(io.BytesIO(extras))
    assert agv.load(io.BytesIO(extras), weights_only=False)._meta == {"hooks": []}


def test_codecs_other_than_latin1_are_refused():
    data = _crafted(__import__("_codecs").encode, "x", "rot13")
    with pytest.raises(pickle.UnpicklingError, match="refused to decode with the codec 'rot13'"):
        agv.load(io.BytesIO(data))
    assert agv.load(io.BytesIO(data), weights_only=False) == "k"


# arguments ----------------------------------------------------------------------------------------


def test_weights_only_must_be_a_bool():
    with pytest.raises(TypeError, match=r"weights_only must be True or False, not 'cpu'"):
        agv.load(io.BytesIO(pickle.dumps(1)), weights_only="cpu")
    # the second positional argument is torch.load's map_location, as in torch
    assert agv.load(io.BytesIO(pickle.dumps(1)), "cpu") == 1


def test_text_mode_files_are_refused_with_a_hint(tmp_path):
    path = tmp_path / "t.agv"
    with open(path, "w") as f:
        with pytest.raises(
            TypeError, match=r"agv.save needs a path or a file opened in binary mode \('wb'\)"
        ):
            agv.save({"a": 1}, f)
    agv.save({"a": 1}, path)
    with open(path) as f:
        with pytest.raises(
            TypeError, match=r"agv.load needs a path or a file opened in binary mode \('rb'\)"
        ):
            agv.load(f)
    assert agv.load(path) == {"a": 1}


def test_save_writes_a_plain_pickle(tmp_path):
    # agv.save is unchanged: any pickle reader (and agv.load(..., weights_only=False)) reads the file
    path = tmp_path / "plain.agv"
    agv.save({"w": agv.tensor([1.0, 2.0]), "n": 7}, path)
    with open(path, "rb") as f:
        plain = pickle.load(f)
    assert plain["n"] == 7
    np.testing.assert_array_equal(plain["w"].detach().numpy(), np.array([1.0, 2.0], dtype=np.float32))


# -- map_location, as tutorials pass it to torch.load ---------------------------------------


def saved_state(tmp_path):
    model = agv.nn.Linear(2, 1)
    path = tmp_path / "model.pt"
    agv.save(model.state_dict(), path)
    return model, path


CPU_MAP_LOCATIONS = {
    "string": "cpu",
    "device": agv.device("cpu"),
    "dict from cuda": {"cuda:0": "cpu"},
    "dict from cpu": {"cpu": "cpu"},
    "dict of devices": {"cuda:1": agv.device("cpu")},
    "identity function": lambda storage, location: storage,
    "function returning None": lambda storage, location: None,
}


@pytest.mark.parametrize("name", sorted(CPU_MAP_LOCATIONS))
@pytest.mark.parametrize("weights_only", [True, False])
def test_load_accepts_torchs_map_location_forms_for_the_cpu(tmp_path, name, weights_only):
    torch = pytest.importorskip("torch")
    # the same forms are accepted by torch.load for a CPU checkpoint (the oracle)
    theirs_path = tmp_path / "theirs.pt"
    torch.save(torch.nn.Linear(2, 1).state_dict(), theirs_path)
    theirs = torch.load(
        theirs_path, map_location=_torch_form(torch, CPU_MAP_LOCATIONS[name]), weights_only=True
    )
    assert set(theirs) == {"weight", "bias"}

    model, path = saved_state(tmp_path)
    loaded = agv.load(path, map_location=CPU_MAP_LOCATIONS[name], weights_only=weights_only)
    assert set(loaded) == {"weight", "bias"}
    for key in ("weight", "bias"):
        assert loaded[key].device == agv.device("cpu")
        np.testing.assert_array_equal(loaded[key].numpy(), model.state_dict()[key].numpy())


def _torch_form(torch, location):
    if isinstance(location, agv.device):
        return torch.device(str(location))
    if isinstance(location, dict):
        return {k: torch.device(str(v)) if isinstance(v, agv.device) else v for k, v in location.items()}
    return location


def test_load_map_location_function_sees_each_tensor_and_its_result_is_used(tmp_path):
    model, path = saved_state(tmp_path)
    seen = []

    def to_double(t, location):
        seen.append((tuple(t.shape), location))
        return t.double()

    loaded = agv.load(path, map_location=to_double)
    assert sorted(seen) == [((1,), "cpu"), ((1, 2), "cpu")]
    assert loaded["weight"].dtype == agv.float64
    np.testing.assert_allclose(loaded["weight"].numpy(), model.weight.detach().numpy())
    with pytest.raises(TypeError, match="map_location function must return a tensor .or None., not str"):
        agv.load(path, map_location=lambda t, location: "cpu")


CUDA_MAP_LOCATIONS = {
    "string": "cuda",
    "indexed string": "cuda:0",
    "device": agv.device("cuda"),
    "dict from cpu": {"cpu": "cuda:0"},
    "mps": "mps",
}


@pytest.mark.parametrize("name", sorted(CUDA_MAP_LOCATIONS))
def test_load_to_cuda_raises_the_devices_cpu_only_error_before_reading(tmp_path, name):
    _, path = saved_state(tmp_path)
    # the error agv raises when a tensor is put on that device, written out for this test
    device = str(
        agv.device(CUDA_MAP_LOCATIONS[name]["cpu"] if name == "dict from cpu" else CUDA_MAP_LOCATIONS[name])
    )
    first = (
        "PyTorch is not linked with support for mps devices"
        if device == "mps"
        else "Torch not compiled with CUDA enabled"
    )
    expected = (
        f"{first}. autogradviz computes with numpy on the CPU, so there is no device {device!r} for "
        'the loaded tensors: use "cpu".'
    )
    with open(path, "rb") as f:
        with pytest.raises(agv.core.device.DeviceError) as error:
            agv.load(f, map_location=CUDA_MAP_LOCATIONS[name])
        assert str(error.value).startswith(expected)
        assert isinstance(error.value, RuntimeError) and isinstance(error.value, AssertionError)
        assert f.tell() == 0  # refused before anything was read: the file is still whole
    # the same device for a tensor raises the same sentence
    with pytest.raises(agv.core.device.DeviceError, match=first):
        agv.ones(1).to(device)


def test_load_refuses_bad_map_location_and_keeps_weights_only_safety(tmp_path):
    _, path = saved_state(tmp_path)
    with pytest.raises(
        TypeError, match="map_location should be a string, a device, a dict or a function, not float"
    ):
        agv.load(path, map_location=1.5)
    with pytest.raises(TypeError, match="maps location strings to location strings"):
        agv.load(path, map_location={"cpu": 0.5})
    with pytest.raises(TypeError, match="pickle_module must be the pickle module"):
        agv.load(path, pickle_module=io)
    assert set(agv.load(path, pickle_module=pickle, mmap=False)) == {"weight", "bias"}
    # map_location does not open a way around weights_only=True
    data = pickle.dumps(collections.Counter("ab"))
    with pytest.raises(pickle.UnpicklingError, match="refused to load the global 'collections.Counter'"):
        agv.load(io.BytesIO(data), map_location="cpu")
    with pytest.raises(pickle.UnpicklingError, match="refused to load the global 'collections.Counter'"):
        agv.load(io.BytesIO(data), map_location=lambda t, location: t)
