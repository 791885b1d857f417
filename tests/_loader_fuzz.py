"""A corpus of files for agv.load's safe loader: real checkpoints, mutations of
them drawn with a fixed seed, and hand-made hostile pickles and zip archives.

Used by tests/test_loader_fuzz.py (every case gives a LoadError or the right
result, runs nothing, and stays under a memory bound) and by
benchmarks/bench_loader_fuzz.py (the largest allocation and the longest run).

A case is `Case(name, data, check, must_fail)`: `check(result)` asserts the
result of a file that must load (an unmutated checkpoint); a hostile case must
raise LoadError; a mutant may give either (a mutation may still be a valid file).
Hostile cases that would run code call `write_marker(path)` or `os.system`: the
test asserts the marker never appears, and that no audit event (an import, an
exec, an open, os.system...) happens while a file loads.

Run as a script, it prints one JSON line per case (what tests/test_loader_fuzz.py
reads, in a fresh process, so that its audit hook stays there):

    python tests/_loader_fuzz.py MARKER_PATH
"""

from __future__ import annotations

import collections
import io
import json
import os
import pickle
import random
import struct
import sys
import time
import tracemalloc
import warnings
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import autogradviz as agv

SEED = 26
MUTANTS_PER_FILE = 36  # about 300 mutants from the real files


@dataclass
class Case:
    name: str
    data: bytes
    check: Callable[[object], None] | None = None  # for a file that must load: checks the result
    must_fail: bool = False  # a hostile file: must raise LoadError


def write_marker(path: str) -> None:
    """What a hostile file asks the loader to call: proof, if it ever exists, that code ran."""
    Path(path).write_text("pwned")


# -- comparing results ----------------------------------------------------------------------------


def assert_same(ours: object, expected: object, where: str = "result") -> None:
    """`ours` (what agv.load gave) holds the same values, types and dtypes as `expected`."""
    if isinstance(expected, agv.Tensor):
        assert isinstance(ours, agv.Tensor), where
        assert type(ours) is type(expected) and ours.dtype is expected.dtype, where
        np.testing.assert_array_equal(ours.detach().numpy(), expected.detach().numpy(), err_msg=where)
        return
    if isinstance(expected, np.ndarray):
        assert type(ours) is np.ndarray and ours.dtype == expected.dtype, where
        np.testing.assert_array_equal(ours, expected, err_msg=where)
        return
    assert type(ours) is type(expected), (where, type(ours), type(expected))
    if isinstance(expected, dict):
        assert list(ours) == list(expected), where
        for key in expected:
            assert_same(ours[key], expected[key], f"{where}[{key!r}]")
    elif isinstance(expected, (list, tuple)):
        assert len(ours) == len(expected), where
        for i, (a, b) in enumerate(zip(ours, expected)):
            assert_same(a, b, f"{where}[{i}]")
    else:
        assert ours == expected, where


def _checker(expected: object) -> Callable[[object], None]:
    return lambda result: assert_same(result, expected)


# -- the real files -------------------------------------------------------------------------------


def checkpoint() -> dict:
    """What a lesson saves: a model's state_dict, an optimizer's, and plain values."""
    agv.manual_seed(0)
    model = agv.nn.Sequential(agv.nn.Linear(3, 4), agv.nn.ReLU(), agv.nn.Linear(4, 2))
    opt = agv.optim.Adam(model.parameters(), lr=0.01)
    model(agv.ones(2, 3)).sum().backward()
    opt.step()
    w = agv.tensor([[1.5, -2.0]], requires_grad=True)
    w.sum().backward()
    return {
        "model": model.state_dict(),
        "optimizer": opt.state_dict(),
        "w": w,
        "epoch": 3,
        "history": [0.5, 0.25, None, "done", (1, 2)],
        "ints": agv.tensor([1, -2, 3]),
        "flags": agv.tensor([True, False]),
        "array": np.arange(6, dtype=np.int32).reshape(2, 3),
    }


def _state_dict_for_torch() -> collections.OrderedDict:
    agv.manual_seed(1)
    model = agv.nn.Sequential(agv.nn.Linear(3, 4), agv.nn.ReLU(), agv.nn.Linear(4, 2))
    state = model.state_dict()
    base = agv.arange(12.0).reshape(3, 4)
    state["base"], state["transposed"], state["sliced"] = base, base.T, base[1:, ::2]
    return state


def _torch_files() -> list[Case]:
    """torch.save files of a state_dict, in both formats (if torch is installed)."""
    try:
        import torch
    except ImportError:
        return []
    expected = _state_dict_for_torch()
    theirs = collections.OrderedDict(
        (k, torch.from_numpy(v.detach().numpy().copy())) for k, v in expected.items()
    )
    theirs["transposed"], theirs["sliced"] = theirs["base"].t(), theirs["base"][1:, ::2]
    cases = []
    for zipped in (True, False):
        buffer = io.BytesIO()
        torch.save(theirs, buffer, _use_new_zipfile_serialization=zipped)
        cases.append(
            Case(f"torch.save {'zip' if zipped else 'legacy'}", buffer.getvalue(), _checker(expected))
        )
    return cases


def real_files() -> list[Case]:
    cases = []
    saved = checkpoint()
    buffer = io.BytesIO()
    agv.save(saved, buffer)
    cases.append(Case("agv.save", buffer.getvalue(), _checker(saved)))
    for protocol in (0, 2, 4, 5):
        cases.append(
            Case(f"pickle protocol {protocol}", pickle.dumps(saved, protocol=protocol), _checker(saved))
        )
    state = _state_dict_for_torch()
    buffer = io.BytesIO()
    agv.save(state, buffer, format="torch")
    cases.append(Case("agv.save format=torch", buffer.getvalue(), _checker(state)))
    return cases + _torch_files()


# -- mutations ------------------------------------------------------------------------------------

_BIG_FIELDS = [
    b"\xff",
    b"\xff\xff",
    b"\xff\xff\xff\x7f",
    b"\xff\xff\xff\xff",
    b"\xff" * 7 + b"\x7f",
    b"\x00" * 4,
]


def _mutate_bytes(data: bytes, rng: random.Random) -> tuple[str, bytes]:
    kind = rng.choice(["truncate", "flip", "big field", "duplicate", "delete", "insert"])
    at = rng.randrange(len(data))
    if kind == "truncate":
        return f"truncated at {at}", data[:at]
    if kind == "flip":
        return f"byte {at} flipped", data[:at] + bytes([data[at] ^ (1 << rng.randrange(8))]) + data[at + 1 :]
    if kind == "big field":
        field = rng.choice(_BIG_FIELDS)
        return f"{len(field)} bytes at {at} made big", data[:at] + field + data[at + len(field) :]
    if kind == "duplicate":
        end = min(len(data), at + rng.randrange(1, 64))
        return f"bytes {at}:{end} doubled", data[:end] + data[at:end] + data[end:]
    if kind == "delete":
        end = min(len(data), at + rng.randrange(1, 16))
        return f"bytes {at}:{end} deleted", data[:at] + data[end:]
    noise = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 9)))
    return f"{len(noise)} random bytes inserted at {at}", data[:at] + noise + data[at:]


def _rezip(data: bytes, change: Callable[[str, bytes], bytes]) -> bytes:
    """A torch zip file with its records changed, written back as a valid zip (so
    that a mutation reaches the pickle and the storages, past the zip's checksums)."""
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as target:
        for info in source.infolist():
            target.writestr(info.filename, change(info.filename, source.read(info)))
    return out.getvalue()


def mutants(files: list[Case], per_file: int = MUTANTS_PER_FILE, seed: int = SEED) -> list[Case]:
    rng = random.Random(seed)
    cases = []
    for case in files:
        zipped = case.data.startswith(b"PK\x03\x04")
        for _ in range(per_file):
            if zipped and rng.random() < 0.6:
                # mutate one record inside the archive: the pickle or a storage
                names = zipfile.ZipFile(io.BytesIO(case.data)).namelist()
                target = rng.choice([n for n in names if n.endswith("data.pkl") or "/data/" in n])
                what = []

                def change(name: str, content: bytes, target=target, what=what) -> bytes:
                    if name != target or not content:
                        return content
                    how, changed = _mutate_bytes(content, rng)
                    what.append(how)
                    return changed

                data = _rezip(case.data, change)
                cases.append(Case(f"{case.name}: {target} {' '.join(what)}", data))
            else:
                how, data = _mutate_bytes(case.data, rng)
                cases.append(Case(f"{case.name}: {how}", data))
    return cases


# -- hand-made hostile files ----------------------------------------------------------------------


def reduce_to(func, *args) -> object:
    class Call:
        def __reduce__(self):
            return (func, args)

    return Call()


def _global(module: str, name: str) -> bytes:
    return b"c" + module.encode() + b"\n" + name.encode() + b"\n"


def torch_zip(pickle_bytes: bytes, records: dict[str, bytes] | None = None, compress: bool = False) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("archive/data.pkl", pickle_bytes)
        for name, content in (records or {}).items():
            archive.writestr(
                f"archive/{name}", content, zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
            )
        archive.writestr("archive/version", b"3\n")
    return out.getvalue()


def storage_tensor(
    numel: int, offset: int, size: tuple, stride: tuple, storage: str = "FloatStorage", legacy: bool = False
) -> bytes:
    """A protocol-2 pickle of one tensor, as torch.save writes it, with the given numbers
    (a legacy file's persistent id has a sixth field, None)."""

    def tup(values):
        return b"(" + b"".join(b"J" + struct.pack("<i", v) for v in values) + b"t"

    return (
        b"\x80\x02"
        + _global("torch._utils", "_rebuild_tensor_v2")
        + b"((X\x07\x00\x00\x00storage"
        + _global("torch", storage)
        + b"X\x01\x00\x00\x000X\x03\x00\x00\x00cpu"
        + b"\x8a\x08"
        + struct.pack("<q", numel)
        + (b"N" if legacy else b"")
        + b"tQ"
        + b"J"
        + struct.pack("<i", offset)
        + tup(size)
        + tup(stride)
        + b"\x89"
        + _global("collections", "OrderedDict")
        + b")RtR."
    )


def hostile(marker: str) -> list[Case]:
    """Files made to hurt: each must raise LoadError quickly, run nothing and allocate little."""
    mark = reduce_to(write_marker, marker)
    cases = [
        # the reproducer: a 70-byte file, 200 million items
        Case("set(range(2e8))", pickle.dumps(reduce_to(set, range(2 * 10**8)), 2)),
        Case("frozenset(range(2e8))", pickle.dumps(reduce_to(frozenset, range(2 * 10**8)), 4)),
        Case("tuple(range(2e8))", pickle.dumps(reduce_to(tuple, range(2 * 10**8)), 4)),
        Case("list(range(2e8))", pickle.dumps(reduce_to(list, range(2 * 10**8)), 2)),
        Case("bytes(10**10)", pickle.dumps(reduce_to(bytes, 10**10), 4)),
        Case("bytearray(10**10)", pickle.dumps(reduce_to(bytearray, 10**10), 4)),
        Case("dict.fromkeys(range)", pickle.dumps(reduce_to(dict.fromkeys, range(10**9)), 4)),
        Case("a marker function", pickle.dumps({"w": agv.ones(1), "x": mark}, 4)),
        Case("a marker function, protocol 0", pickle.dumps([mark], 0)),
        Case("os.system", pickle.dumps(reduce_to(os.system, f"echo pwned > {marker}"), 2)),
        Case("exec", pickle.dumps(reduce_to(exec, f"open({marker!r}, 'w').write('pwned')"), 4)),
        Case("getattr", pickle.dumps(reduce_to(getattr, agv.Tensor, "numpy"), 4)),
        Case("numpy.load", pickle.dumps(reduce_to(np.load, marker), 4)),
        Case("codecs zlib bomb", pickle.dumps(reduce_to(__import__("_codecs").encode, "x", "zlib_codec"), 4)),
        Case(
            "a marker inside an allowed call",
            b"\x80\x02"
            + _global("builtins", "set")
            + b"("
            + _global("_loader_fuzz", "write_marker")
            + b"X\x01\x00\x00\x00x\x85Rt\x85R.",
        ),
        # numpy: sizes in the shape or the dtype
        Case("numpy.ndarray((10**6, 10**6)) called", pickle.dumps(reduce_to(np.ndarray, (10**6, 10**6)), 4)),
        Case("dtype with a huge sub-array", pickle.dumps(reduce_to(np.dtype, "(1000000000,)f8"), 4)),
        Case("_reconstruct of a huge shape", _reconstruct_huge()),
        Case("an array whose shape its bytes don't fill", _array_with_shape((100_000, 100_000))),
        Case("_frombuffer of a huge shape", _frombuffer_huge()),
        Case(
            "a dtype whose state is hostile",
            _dtype_state(
                b"(K\x03X\x01\x00\x00\x00<(X\x01\x00\x00\x00aNtNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK\x00t"
            ),
        ),
        # opcodes that declare sizes
        Case("BINUNICODE of 4 GB", b"\x80\x02X\xff\xff\xff\xffabc."),
        Case("BINUNICODE8 of 2**62", b"\x80\x04\x8d" + struct.pack("<Q", 2**62) + b"abc."),
        Case("BINBYTES8 of 2**63", b"\x80\x04\x8e" + struct.pack("<Q", 2**63) + b"abc."),
        Case("BYTEARRAY8 of 2**40", b"\x80\x05\x96" + struct.pack("<Q", 2**40) + b"abc."),
        Case("LONG4 of 2 GB", b"\x80\x02\x8b\xff\xff\xff\x7fabc."),
        Case("FRAME of 2**60", b"\x80\x04\x95" + struct.pack("<Q", 2**60) + b"N."),
        Case("LONG_BINPUT 4 billion", b"\x80\x02Nr\xff\xff\xff\xff0j\xff\xff\xff\xff."),
        Case("LONG_BINGET never stored", b"\x80\x02j\xff\xff\xff\xff."),
        Case("an INT of a million digits", b"I" + b"9" * 1_000_000 + b"\n."),
        Case("EXT4", b"\x80\x02\x84\x01\x00\x00\x00."),
        Case("INST", b"(ios\nsystem\nS'echo pwned'\n."),
        Case("OBJ", b"(" + _global("posix", "system") + b"S'echo pwned'\no."),
        Case("NEXT_BUFFER", b"\x80\x05\x97."),
        Case("a persistent id in an agv file", b"\x80\x02X\x01\x00\x00\x000Q."),
        Case("STOP on an empty stack", b"\x80\x02."),
        Case("no STOP", b"\x80\x02N"),
        Case("an empty file", b""),
        Case("APPEND to a dict", b"\x80\x02}Na."),
        Case("SETITEM on a list", b"\x80\x02]NNs."),
        Case("BUILD on a tensor", _build_on_a_tensor()),
        # time: hashing a tuple of tuples, 2**60 leaves, as a dict key and a set item; a C stack overflow
        Case("a 2**60 tuple as a dict key", tuple_bomb(b"}", b"Ns")),
        Case("a 2**60 tuple in a frozenset", tuple_bomb(b"(", b"\x91", proto=4)),
        Case("a tuple nested 100,000 deep as a key", b"\x80\x02}" + b")" + b"\x85" * 100_000 + b"Ns."),
        # the budget: one piece of the file built into something many times
        Case("one string copied 2,000 times", copied_many_times()),
        Case("one array's bytes built 2,000 times", array_built_many_times()),
        # torch files
        Case(
            "torch zip: 10**12 floats declared",
            torch_zip(storage_tensor(10**12, 0, (2,), (1,)), {"data/0": b"\0" * 8}),
        ),
        Case("torch zip: no storage record", torch_zip(storage_tensor(2, 0, (2,), (1,)))),
        Case(
            "torch zip: a view past its storage",
            torch_zip(storage_tensor(2, 1, (2,), (1,)), {"data/0": b"\0" * 8}),
        ),
        Case(
            "torch zip: an expand() view of 10**9",
            torch_zip(storage_tensor(2, 0, (10**9,), (0,)), {"data/0": b"\0" * 8}),
        ),
        Case(
            "torch zip: a huge stride",
            torch_zip(storage_tensor(2, 0, (2, 2), (2**31 - 1, 1)), {"data/0": b"\0" * 8}),
        ),
        Case(
            "torch zip: a compressed 20 MB record",
            torch_zip(
                storage_tensor(5_000_000, 0, (2,), (1,)), {"data/0": b"\0" * 20_000_000}, compress=True
            ),
        ),
        Case(
            "torch zip: bools that are not 0 or 1",
            torch_zip(storage_tensor(2, 0, (2,), (1,), "BoolStorage"), {"data/0": b"\x02\x07"}),
        ),
        Case(
            "torch zip: a complex tensor",
            torch_zip(storage_tensor(1, 0, (1,), (1,), "ComplexFloatStorage"), {"data/0": b"\0" * 8}),
        ),
        Case(
            "torch zip: a whole module",
            torch_zip(b"\x80\x02" + _global("torch.nn.modules.linear", "Linear") + b")\x81."),
        ),
        Case("torch zip: no data.pkl", _zip_without_pickle()),
        Case("torch zip: a damaged directory", torch_zip(b"\x80\x02N.")[:-10]),
        Case(
            "torch legacy: 10**12 floats declared",
            legacy_file(storage_tensor(10**12, 0, (2,), (1,), legacy=True)),
        ),
        Case(
            "torch legacy: the storage bytes missing",
            legacy_file(storage_tensor(2, 0, (2,), (1,), legacy=True), data=b""),
        ),
    ]
    for case in cases:
        case.must_fail = case.name != "LONG_BINPUT 4 billion"  # a valid file: a memo key, not a size
    return cases


def _reconstruct_huge() -> bytes:
    from numpy._core import multiarray

    return pickle.dumps(reduce_to(multiarray._reconstruct, np.ndarray, (10**9,), b"b"), 4)


def _array_with_shape(shape: tuple) -> bytes:
    data = pickle.dumps(np.zeros(1), 2)
    # the array's state is (1, (1,), dtype, False, bytes): give it another shape
    return data.replace(
        b"K\x01\x85", b"J" + struct.pack("<i", shape[0]) + b"J" + struct.pack("<i", shape[1]) + b"\x86", 1
    )


def _frombuffer_huge() -> bytes:
    from numpy._core import numeric

    return pickle.dumps(reduce_to(numeric._frombuffer, b"\0" * 8, np.dtype("f8"), (10**9,), "C"), 4)


def _dtype_state(state: bytes) -> bytes:
    return b"\x80\x02" + _global("numpy", "dtype") + b"X\x02\x00\x00\x00f8\x89\x88\x87R" + state + b"b."


def _build_on_a_tensor() -> bytes:
    data = pickle.dumps(agv.ones(1), 2)
    return data[:-1] + b"}X\x05\x00\x00\x00_dataNsb."


def tuple_bomb(container: bytes, insert: bytes, proto: int = 2) -> bytes:
    """t0 = (); t(n+1) = (tn, tn): memoized, so 60 levels cost 240 bytes and have 2**60 leaves."""
    body = b")"
    for _ in range(60):
        body += b"q\x00h\x00\x86"  # BINPUT 0, BINGET 0, TUPLE2
    return bytes([0x80, proto]) + container + body + insert + b"."


def copied_many_times() -> bytes:
    """One 100 KB bytes object, copied into a bytearray 2,000 times: 200 MB from a 100 KB file."""
    big = (
        b"\x80\x02]" + b"B" + struct.pack("<I", 100_000) + b"\0" * 100_000 + b"q\x000("
    )  # BINPUT 0, POP, MARK
    call = _global("builtins", "bytearray") + b"h\x00\x85R"
    return big + call * 2000 + b"e."


def array_built_many_times() -> bytes:
    """One array's bytes (100 KB) given to 2,000 arrays: each copies them."""
    head = (
        b"\x80\x02]B"
        + struct.pack("<I", 100_000)
        + b"\0" * 100_000
        + b"q\x000"  # BINPUT 0, POP
        + _global("numpy", "dtype")
        + b"X\x02\x00\x00\x00f8\x89\x88\x87Rq\x010("  # BINPUT 1, POP, MARK
    )
    one = (
        _global("numpy._core.multiarray", "_reconstruct")
        + _global("numpy", "ndarray")
        + b"K\x00\x85C\x01b\x87R"
        + b"(K\x01J"
        + struct.pack("<i", 12_500)
        + b"\x85h\x01\x89h\x00tb"
    )
    return head + one * 2000 + b"e."


def _zip_without_pickle() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("weights/arr_0.npy", b"\0" * 16)
    return out.getvalue()


def legacy_file(main: bytes, data: bytes | None = None) -> bytes:
    """A legacy torch.save file around `main`, whose storage '0' holds `data` (8 bytes by default)."""
    magic = pickle.dumps(0x1950A86A20F9469CFC6C, 2)
    version = pickle.dumps(1001, 2)
    system = pickle.dumps({"protocol_version": 1001, "little_endian": True, "type_sizes": {}}, 2)
    keys = pickle.dumps(["0"], 2)
    storage = struct.pack("<q", 2) + b"\0" * 8 if data is None else data
    return magic + version + system + main + keys + storage


def corpus(marker: str, per_file: int = MUTANTS_PER_FILE, seed: int = SEED) -> list[Case]:
    files = real_files()
    return files + mutants(files, per_file, seed) + hostile(marker)


# -- running it -----------------------------------------------------------------------------------


@dataclass
class Outcome:
    name: str
    size: int  # bytes of the file
    result: str  # "loaded", "LoadError", or the class of any other exception
    message: str
    peak: int  # the largest allocation during the load (tracemalloc's peak), in bytes
    seconds: float
    events: list[str]  # audit events raised while it loaded
    check_failed: str = ""  # for a file that must load: why its result is wrong


_recording: list[str] | None = None


def _audit(event: str, args: tuple) -> None:
    if _recording is not None and event != "builtins.id":  # id() is how the loader keys its memo
        _recording.append(event)


def run_case(case: Case, trace_memory: bool = True) -> Outcome:
    global _recording
    events: list[str] = []
    if trace_memory:
        tracemalloc.start()
    _recording = events
    started = time.perf_counter()
    result, message, loaded = "loaded", "", None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # float16 storages load widened, with a warning
            loaded = agv.load(io.BytesIO(case.data))
    except agv.serialization.LoadError as error:
        result, message = "LoadError", str(error)
    except Exception as error:  # anything else is a failure of the loader
        result, message = type(error).__name__, str(error)
    seconds = time.perf_counter() - started
    _recording = None
    peak = 0
    if trace_memory:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    outcome = Outcome(case.name, len(case.data), result, message[:300], peak, seconds, sorted(set(events)))
    if case.check is not None and result == "loaded":
        try:
            case.check(loaded)
        except AssertionError as error:
            outcome.check_failed = f"{error}"[:300] or "wrong result"
    return outcome


def run(cases: list[Case], trace_memory: bool = True, audit: bool = False) -> list[Outcome]:
    if audit:
        sys.addaudithook(_audit)  # for the life of the process: run this in a process of its own
    for case in cases:  # once first, unrecorded: the first load imports what loading needs
        if case.check is not None:
            run_case(case, trace_memory=False)
    return [run_case(case, trace_memory) for case in cases]


def kind(case: Case) -> str:
    return "real" if case.check else "hostile" if case.must_fail else "mutant"


def main(marker_path: str) -> None:
    all_cases = corpus(marker_path)
    kinds = {case.name: kind(case) for case in all_cases}
    for outcome in run(all_cases, audit=True):
        print(json.dumps({**outcome.__dict__, "kind": kinds[outcome.name]}))


if __name__ == "__main__":
    import _loader_fuzz  # this file as a module, so that write_marker is _loader_fuzz.write_marker

    _loader_fuzz.main(sys.argv[1])
