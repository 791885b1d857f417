"""Checkpoints both ways with PyTorch (issue 26, item 6): agv.load reads torch.save's
files (the zip format and the legacy one) into the same tensors, without torch; and
agv.save(obj, f, format="torch") writes files that torch.load(weights_only=True)
reads into the same tensors. Each direction runs against real torch."""

from __future__ import annotations

import collections
import io
import pickle
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest

import autogradviz as agv
from autogradviz.serialization import LoadError

torch = pytest.importorskip("torch")

FORMATS = {"zip": True, "legacy": False}


def torch_file(obj, fmt: str) -> io.BytesIO:
    buffer = io.BytesIO()
    torch.save(obj, buffer, _use_new_zipfile_serialization=FORMATS[fmt])
    buffer.seek(0)
    return buffer


def agv_file_for_torch(obj) -> io.BytesIO:
    buffer = io.BytesIO()
    agv.save(obj, buffer, format="torch")
    buffer.seek(0)
    return buffer


def strides(t: agv.Tensor) -> tuple:
    array = t.detach().numpy()
    return tuple(s // array.itemsize for s in array.strides)


def assert_same_tensor(ours: agv.Tensor, theirs: torch.Tensor) -> None:
    assert repr(ours.dtype) == str(theirs.dtype)  # "torch.float32" on both sides
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())


def torch_model():
    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Conv2d(1, 2, 3),
        torch.nn.ReLU(),
        torch.nn.Flatten(),
        torch.nn.Linear(8, 3),
        torch.nn.BatchNorm1d(3),
    )


def agv_model():
    return agv.nn.Sequential(
        agv.nn.Conv2d(1, 2, 3), agv.nn.ReLU(), agv.nn.Flatten(), agv.nn.Linear(8, 3), agv.nn.BatchNorm1d(3)
    )


def trained_torch_model():
    model = torch_model()
    model.train()
    model(torch.randn(5, 1, 4, 4))  # BatchNorm's running statistics move off their start
    return model.eval()


# -- torch.save -> agv.load -------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_torch_state_dict_loads_into_the_same_model_in_autogradviz(fmt):
    theirs = trained_torch_model()
    state = agv.load(torch_file(theirs.state_dict(), fmt))
    assert type(state) is collections.OrderedDict
    assert list(state) == list(theirs.state_dict())
    for key, value in theirs.state_dict().items():
        assert type(state[key]) is agv.Tensor and state[key].requires_grad is False
        assert_same_tensor(state[key], value)
    assert state._metadata == theirs.state_dict()._metadata  # the layers' versions, as torch keeps them
    ours = agv_model()
    ours.load_state_dict(state)
    ours.eval()
    x = np.random.default_rng(0).standard_normal((4, 1, 4, 4)).astype(np.float32)
    np.testing.assert_allclose(
        ours(agv.tensor(x)).detach().numpy(),
        theirs(torch.from_numpy(x)).detach().numpy(),
        rtol=1e-5,
        atol=1e-6,
    )


@pytest.mark.parametrize("fmt", FORMATS)
def test_views_keep_their_strides_and_share_their_storage(fmt):
    base = torch.arange(24.0).reshape(4, 6)
    views = {
        "base": base,
        "transposed": base.t(),
        "strided": base[1:, ::2],
        "narrowed": base.narrow(1, 2, 3),
        "row": base[2],
        "unsqueezed": base[1].unsqueeze(0),
    }
    loaded = agv.load(torch_file(views, fmt))
    for key, theirs in views.items():
        assert_same_tensor(loaded[key], theirs)
        assert strides(loaded[key]) == theirs.stride(), key
    arrays = [loaded[key].numpy() for key in views]
    assert all(np.shares_memory(arrays[0], other) for other in arrays[1:])
    # a write through one view shows through the others, as in torch
    loaded["strided"][0, 1] = -1.0
    base[1:, ::2][0, 1] = -1.0
    for key, theirs in views.items():
        np.testing.assert_array_equal(loaded[key].numpy(), theirs.numpy())


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "int16", "int8", "uint8", "bool"])
def test_every_dtype_autogradviz_has_loads_as_itself(fmt, dtype):
    theirs = (
        torch.tensor([0, 1, 5, 100], dtype=getattr(torch, dtype))
        if dtype != "bool"
        else torch.tensor([True, False])
    )
    loaded = agv.load(torch_file({"t": theirs}, fmt))["t"]
    assert loaded.dtype is getattr(agv, dtype if dtype != "bool" else "bool")
    assert_same_tensor(loaded, theirs)


@pytest.mark.parametrize("fmt", FORMATS)
def test_half_precision_loads_as_float32_with_the_same_values_and_a_warning(fmt):
    half = torch.tensor([1.5, -2.25, 65504.0, 6e-8], dtype=torch.float16)
    brain = torch.tensor([1.5, -3.0, 3.0e38, 1e-30], dtype=torch.bfloat16)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        loaded = agv.load(torch_file({"half": half, "brain": brain, "view": half[1:]}, fmt))
    assert [str(w.message) for w in caught] == [
        "agv.load: this PyTorch file holds tensors of torch.bfloat16, torch.float16, which autogradviz does "
        "not compute in; they load as torch.float32, with the same values"
    ]
    for key, theirs in (("half", half), ("brain", brain), ("view", half[1:])):
        assert loaded[key].dtype is agv.float32
        np.testing.assert_array_equal(loaded[key].numpy(), theirs.float().numpy())
    assert np.shares_memory(loaded["half"].numpy(), loaded["view"].numpy())  # still one storage


def test_complex_tensors_raise_a_clear_error():
    with pytest.raises(LoadError) as error:
        agv.load(torch_file({"z": torch.tensor([1 + 2j])}, "zip"))
    assert str(error.value) == (
        "agv.load: this PyTorch file holds a tensor of dtype torch.complex64: autogradviz has no complex numbers"
    )


@pytest.mark.parametrize("fmt", FORMATS)
def test_nested_containers_numbers_sizes_and_parameters(fmt):
    checkpoint = {
        "epoch": 7,
        "loss": 0.125,
        "name": "run 1",
        "nothing": None,
        "shape": torch.Size([2, 3]),
        "dtype": torch.float64,
        "nested": {"list": [torch.ones(2), (torch.zeros(1, dtype=torch.int64), 3)], "seen": {1, 2}},
        "param": torch.nn.Parameter(torch.tensor([0.5, -0.5])),
        "frozen": torch.nn.Parameter(torch.tensor([1.0]), requires_grad=False),
    }
    loaded = agv.load(torch_file(checkpoint, fmt))
    assert list(loaded) == list(checkpoint)
    assert (loaded["epoch"], loaded["loss"], loaded["name"], loaded["nothing"]) == (7, 0.125, "run 1", None)
    assert type(loaded["shape"]) is agv.Size and loaded["shape"] == (2, 3)
    assert loaded["dtype"] is agv.float64
    assert_same_tensor(loaded["nested"]["list"][0], checkpoint["nested"]["list"][0])
    assert type(loaded["nested"]["list"][1]) is tuple and loaded["nested"]["list"][1][1] == 3
    assert_same_tensor(loaded["nested"]["list"][1][0], checkpoint["nested"]["list"][1][0])
    assert loaded["nested"]["seen"] == {1, 2}
    assert isinstance(loaded["param"], agv.nn.Parameter) and loaded["param"].requires_grad is True
    assert isinstance(loaded["frozen"], agv.nn.Parameter) and loaded["frozen"].requires_grad is False
    assert_same_tensor(loaded["param"], checkpoint["param"])


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_torch_optimizer_state_dict_loads(fmt):
    model = torch_model()
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    model(torch.randn(2, 1, 4, 4)).sum().backward()
    opt.step()
    theirs = opt.state_dict()
    loaded = agv.load(torch_file(theirs, fmt))
    assert loaded["param_groups"] == theirs["param_groups"]
    assert sorted(loaded["state"]) == sorted(theirs["state"])
    for index, entry in theirs["state"].items():
        for key, value in entry.items():
            assert_same_tensor(loaded["state"][index][key], value)


def test_a_whole_torch_model_is_refused_with_a_pointer_to_state_dict():
    with pytest.raises(LoadError) as error:
        agv.load(torch_file(torch.nn.Linear(2, 1), "zip"), weights_only=False)
    assert str(error.value) == (
        "agv.load: refused to load the global 'torch.nn.modules.linear.Linear' from this PyTorch file: "
        "agv.load reads what torch.load(weights_only=True) reads (tensors, state_dicts, optimizer "
        "state_dicts, numbers, strings and containers of them), without torch. A file that needs more, "
        "such as a whole model saved with torch.save(model), needs torch.load."
    )


@pytest.mark.parametrize("fmt", FORMATS)
def test_paths_map_location_and_weights_only_false_read_torch_files_too(tmp_path, fmt):
    path = tmp_path / "model.pt"
    theirs = torch.nn.Linear(2, 1).state_dict()
    torch.save(theirs, path, _use_new_zipfile_serialization=FORMATS[fmt])
    seen = []
    loaded = agv.load(str(path), map_location=lambda t, location: seen.append(tuple(t.shape)) or t.double())
    assert sorted(seen) == [(1,), (1, 2)]
    assert loaded["weight"].dtype is agv.float64
    for weights_only in (True, False):
        again = agv.load(path, map_location="cpu", weights_only=weights_only)
        for key, value in theirs.items():
            assert_same_tensor(again[key], value)


# -- agv.save(format="torch") -> torch.load ---------------------------------------------------------


def test_an_agv_state_dict_loads_strictly_into_the_same_torch_model(tmp_path):
    agv.manual_seed(3)
    ours = agv_model()
    ours.train()
    ours(agv.randn(5, 1, 4, 4))  # running statistics move
    ours.eval()
    path = tmp_path / "model.pt"
    agv.save(ours.state_dict(), path, format="torch")
    state = torch.load(path, weights_only=True)
    assert type(state) is collections.OrderedDict and list(state) == list(ours.state_dict())
    for key, value in ours.state_dict().items():
        assert repr(value.dtype) == str(state[key].dtype)
        np.testing.assert_array_equal(state[key].numpy(), value.numpy())
    theirs = torch_model()
    assert str(theirs.load_state_dict(state, strict=True)) == "<All keys matched successfully>"
    theirs.eval()
    x = np.random.default_rng(1).standard_normal((4, 1, 4, 4)).astype(np.float32)
    np.testing.assert_allclose(
        theirs(torch.from_numpy(x)).detach().numpy(),
        ours(agv.tensor(x)).detach().numpy(),
        rtol=1e-5,
        atol=1e-6,
    )
    # torch.load(mmap=True) maps storages in place: they are aligned as torch.save aligns them
    mapped = torch.load(path, weights_only=True, mmap=True)
    for key in state:
        np.testing.assert_array_equal(mapped[key].numpy(), state[key].numpy())


def test_views_written_for_torch_keep_strides_offsets_and_one_storage():
    base = agv.arange(24.0).reshape(4, 6)
    views = {
        "base": base,
        "transposed": base.T,
        "strided": base[1:, ::2],
        "row": base[2],
        "detached": base.detach(),
    }
    loaded = torch.load(agv_file_for_torch(views), weights_only=True)
    pointers = {key: t.untyped_storage().data_ptr() for key, t in loaded.items()}
    assert len(set(pointers.values())) == 1  # one storage, as the numpy arrays share one buffer
    for key, ours in views.items():
        np.testing.assert_array_equal(loaded[key].numpy(), ours.numpy())
        assert loaded[key].stride() == strides(ours), key
    assert (loaded["strided"].storage_offset(), loaded["row"].storage_offset()) == (6, 12)
    loaded["base"][1, 2] = -7.0  # the same element, seen through the others
    assert loaded["strided"][0, 1].item() == -7.0 and loaded["transposed"][2, 1].item() == -7.0


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "int16", "int8", "uint8", "bool"])
def test_every_agv_dtype_is_written_as_itself(dtype):
    ours = agv.tensor([1, 0, 1, 1], dtype=getattr(agv, dtype))
    theirs = torch.load(agv_file_for_torch({"t": ours}), weights_only=True)["t"]
    assert str(theirs.dtype) == f"torch.{dtype}"
    np.testing.assert_array_equal(theirs.numpy(), ours.numpy())


def test_containers_numbers_and_parameters_written_for_torch():
    leaf = agv.tensor([1.0, 2.0], requires_grad=True)
    checkpoint = {
        "epoch": 7,
        "big": 2**70,
        "negative": -40000,
        "loss": 0.125,
        "numpy numbers": [np.float32(0.5), np.int64(3), np.bool_(True)],
        "name": "run ✓",
        "nothing": None,
        "shape": agv.Size([2, 3]),
        "dtype": agv.int32,
        "nested": {"list": [agv.ones(2), (agv.zeros(1, dtype=agv.int64), 3, "x", None)], "seen": {1, 2}},
        "complex": 1 + 2j,
        "bytes": b"\x00\xff",
        "param": agv.nn.Parameter(agv.tensor([0.5, -0.5])),
        "leaf": leaf,
        "twice": [leaf, leaf],
    }
    loaded = torch.load(agv_file_for_torch(checkpoint), weights_only=True)
    assert list(loaded) == list(checkpoint)
    assert (loaded["epoch"], loaded["big"], loaded["negative"], loaded["loss"]) == (7, 2**70, -40000, 0.125)
    assert loaded["numpy numbers"] == [0.5, 3, True] and [type(v) for v in loaded["numpy numbers"]] == [
        float,
        int,
        bool,
    ]
    assert (loaded["name"], loaded["nothing"], loaded["complex"], loaded["bytes"]) == (
        "run ✓",
        None,
        1 + 2j,
        b"\x00\xff",
    )
    assert type(loaded["shape"]) is torch.Size and loaded["shape"] == (2, 3)
    assert loaded["dtype"] is torch.int32
    assert loaded["nested"]["list"][1][1:] == (3, "x", None) and loaded["nested"]["seen"] == {1, 2}
    assert loaded["nested"]["list"][1][0].dtype is torch.int64
    assert type(loaded["param"]) is torch.nn.Parameter and loaded["param"].requires_grad is True
    assert loaded["leaf"].requires_grad is True and type(loaded["leaf"]) is torch.Tensor
    assert loaded["twice"][0] is loaded["twice"][1] is loaded["leaf"]  # one object, written once
    np.testing.assert_array_equal(loaded["param"].detach().numpy(), [0.5, -0.5])


def test_an_agv_optimizer_state_dict_written_for_torch_loads_into_torch_adam():
    agv.manual_seed(0)
    ours = agv.nn.Linear(3, 2)
    opt = agv.optim.Adam(ours.parameters(), lr=0.01)
    ours(agv.ones(1, 3)).sum().backward()
    opt.step()
    state = torch.load(agv_file_for_torch(opt.state_dict()), weights_only=True)
    theirs = torch.nn.Linear(3, 2)
    torch_opt = torch.optim.Adam(theirs.parameters(), lr=0.01)
    torch_opt.load_state_dict(state)
    for index, entry in opt.state_dict()["state"].items():
        for key in ("exp_avg", "exp_avg_sq"):
            np.testing.assert_array_equal(
                torch_opt.state_dict()["state"][index][key].numpy(), entry[key].numpy()
            )


def test_what_torch_cannot_read_is_refused_before_the_file_is_touched(tmp_path):
    path = tmp_path / "model.pt"
    for value, where, hint in (
        (
            np.zeros(2),
            "the object['x']",
            " (torch.load refuses numpy arrays: make it a tensor with agv.tensor(array))",
        ),
        (
            agv.nn.Linear(2, 1),
            "the object['x']",
            " (a whole model: save model.state_dict(), and load it into the model with load_state_dict)",
        ),
        (print, "the object['x']", ""),
    ):
        with pytest.raises(TypeError) as error:
            agv.save({"x": value}, path, format="torch")
        assert str(error.value) == (
            "agv.save(..., format='torch') writes tensors, numbers, strings, None, and dicts, OrderedDicts, "
            "lists, tuples and sets of them, as torch.load(weights_only=True) reads them back; "
            f"{where} is a {type(value).__name__}{hint}"
        )
        assert not path.exists()
    with pytest.raises(ValueError, match="^agv.save: format must be 'agv' or 'torch', not 'pt'$"):
        agv.save({}, path, format="pt")


def test_agv_reads_back_what_it_wrote_for_torch():
    base = agv.arange(6.0).reshape(2, 3)
    saved = {
        "sd": agv.nn.Linear(3, 2).state_dict(),
        "t": base.T,
        "b": base,
        "p": agv.nn.Parameter(agv.ones(2)),
    }
    loaded = agv.load(agv_file_for_torch(saved))
    for key in ("t", "b"):
        np.testing.assert_array_equal(loaded[key].numpy(), saved[key].numpy())
        assert strides(loaded[key]) == strides(saved[key])
    assert np.shares_memory(loaded["t"].numpy(), loaded["b"].numpy())
    assert isinstance(loaded["p"], agv.nn.Parameter)
    for key, value in saved["sd"].items():
        np.testing.assert_array_equal(loaded["sd"][key].numpy(), value.numpy())


# -- the default format and torch.load --------------------------------------------------------------


def test_torch_load_of_a_default_agv_file_names_the_file_and_the_way_out(tmp_path):
    path = tmp_path / "model.agv"
    agv.save(agv.nn.Linear(2, 1).state_dict(), path)
    with pytest.raises(pickle.UnpicklingError) as error:
        torch.load(path, weights_only=True)
    # torch's own message, which used to end in "Unsupported operand 149", now names the file's kind
    assert (
        "Unsupported global: GLOBAL autogradviz.serialization."
        "this_is_an_agv_save_file__torch_load_reads_files_from_agv_save_with_format_torch"
    ) in str(error.value)
    with open(path, "rb") as f:  # and the file is still a plain pickle
        assert set(pickle.load(f)) == {"weight", "bias"}


# -- no torch needed --------------------------------------------------------------------------------


def test_reading_and_writing_torch_files_needs_no_torch(tmp_path):
    theirs = trained_torch_model().state_dict()
    for fmt, zipped in FORMATS.items():
        torch.save(theirs, tmp_path / f"{fmt}.pt", _use_new_zipfile_serialization=zipped)
    script = textwrap.dedent(
        f"""
        import sys
        sys.modules["torch"] = None  # `import torch` raises ImportError from here on
        import numpy as np
        import autogradviz as agv
        for fmt in ("zip", "legacy"):
            state = agv.load({str(tmp_path)!r} + f"/{{fmt}}.pt")
            print(fmt, ";".join(f"{{k}}:{{v.dtype}}:{{tuple(v.shape)}}:{{float(v.double().sum().item())!r}}" for k, v in state.items()))
        agv.save(state, {str(tmp_path / "ours.pt")!r}, format="torch")
        assert "torch" not in [m.split(".")[0] for m in sys.modules if sys.modules[m] is not None]
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    expected = ";".join(
        f"{k}:{v.dtype}:{tuple(v.shape)}:{float(v.double().sum().item())!r}" for k, v in theirs.items()
    )
    assert done.stdout.splitlines() == [f"zip {expected}", f"legacy {expected}"]
    written = torch.load(tmp_path / "ours.pt", weights_only=True)
    for key, value in theirs.items():
        assert_same_tensor(agv.tensor(written[key].numpy()), value)
        assert written[key].dtype == value.dtype


def test_the_readmes_snippet_runs_as_written(tmp_path, monkeypatch):
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Moving weights to PyTorch and back", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)
    model, net = namespace["model"], namespace["net"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.pt", "net.pt"]
    assert list(model.state_dict()) == list(net.state_dict()) == ["0.weight", "0.bias", "2.weight", "2.bias"]
    for key, value in net.state_dict().items():
        np.testing.assert_array_equal(model.state_dict()[key].numpy(), value.numpy())
