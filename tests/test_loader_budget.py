"""agv.load's safe loader has a budget (issue 26, item 3): under weights_only=True it
calls only what torch.load's weights_only unpickler would (with checked arguments),
believes no size a file declares before checking it against the bytes really
there, and builds at most a few bytes per byte of the file. Each pin below is a
hostile file and the exact error it gets; tests/test_loader_fuzz.py runs the
whole corpus. The messages are written out here, so that a change of wording fails."""

from __future__ import annotations

import io
import pickle
import struct
import tracemalloc

import numpy as np
import pytest
from _loader_fuzz import (
    copied_many_times,
    legacy_file,
    reduce_to,
    storage_tensor,
    torch_zip,
    tuple_bomb,
)

import autogradviz as agv
from autogradviz.serialization import LoadError


def load(data: bytes):
    return agv.load(io.BytesIO(data))


def refused_call(what: str, kinds: str) -> str:
    return f"agv.load: refused {what} called with ({kinds}): a file made by pickle never does that"


def test_load_error_is_one_family_and_an_unpickling_error():
    assert issubclass(LoadError, pickle.UnpicklingError)
    assert agv.serialization.LoadError is LoadError
    with pytest.raises(LoadError, match="^agv.load: the file is empty$"):
        load(b"")


def test_the_issues_reproducer_raises_quickly_without_allocating():
    class C:
        def __reduce__(self):
            return (set, (range(2 * 10**8),))

    data = pickle.dumps(C(), 2)
    assert len(data) < 80
    tracemalloc.start()
    try:
        with pytest.raises(LoadError) as error:
            agv.load(io.BytesIO(data))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert str(error.value) == refused_call("set", "range")
    assert peak < 256 * 1024  # a set of 200 million ints would be gigabytes


@pytest.mark.parametrize("protocol", [0, 2, 4])
def test_set_frozenset_and_tuple_take_only_a_list_the_file_spells_out(protocol):
    # what pickle writes for them loads (protocols 0-3 call set([...]); 4+ have opcodes)
    assert load(pickle.dumps({"s": {1, 2}, "f": frozenset({3}), "t": agv.Size([2, 3])}, protocol)) == {
        "s": {1, 2},
        "f": frozenset({3}),
        "t": (2, 3),
    }
    for kind in (set, frozenset, tuple):
        with pytest.raises(LoadError) as error:
            load(pickle.dumps(reduce_to(kind, range(10**12)), protocol))
        assert str(error.value) == refused_call(kind.__name__, "range")


@pytest.mark.parametrize(
    "func, args, message",
    [
        (bytes, (10**10,), refused_call("bytes", "int")),
        (bytearray, (10**10,), refused_call("bytearray", "int")),
        (range, ("1", "2"), refused_call("range", "str, str")),
        (slice, ([1], 2), refused_call("slice", "list, int")),
        (complex, ("1e999",), refused_call("complex", "str")),
        (
            np.ndarray,
            ((10**6, 10**6),),
            "agv.load: refused to call numpy.ndarray (REDUCE): with weights_only=True (the default) a file "
            "may call only the functions that build the data a checkpoint holds",
        ),
        (np.dtype, ("(1000000000,)f8",), refused_call("numpy.dtype", "str")),
    ],
)
def test_allowed_functions_check_their_arguments_before_building(func, args, message):
    with pytest.raises(LoadError) as error:
        load(pickle.dumps(reduce_to(func, *args), 4))
    assert str(error.value) == message


@pytest.mark.parametrize("name", ["list", "dict", "getattr", "eval", "print"])
def test_builtins_that_torch_refuses_are_refused(name):
    # torch's weights_only unpickler allows set, complex and bytearray of the builtins; so do
    # we (with frozenset, tuple, range, slice and bytes() of nothing, which old files hold)
    args = {"list": ((1,),), "dict": (), "getattr": (agv.Tensor, "numpy"), "eval": ("1",), "print": ()}[name]
    with pytest.raises(LoadError) as error:
        load(pickle.dumps(reduce_to(getattr(__builtins__, name, None) or eval(name), *args), 4))
    assert str(error.value).startswith(
        f"agv.load: refused to load the global 'builtins.{name}' from this file"
    )


class _Pipe(io.RawIOBase):
    """A stream that can't tell its size or seek (a socket, a pipe)."""

    def __init__(self, data: bytes):
        self._data = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        chunk = self._data.read(len(buffer))
        buffer[: len(chunk)] = chunk
        return len(chunk)


@pytest.mark.parametrize(
    "data, what",
    [
        (b"\x80\x02X\xff\xff\xff\xffabc.", "a string of 4,294,967,295 bytes"),
        (
            b"\x80\x04\x8e" + struct.pack("<Q", 2**63) + b"abc.",
            "a bytes object of 9,223,372,036,854,775,808 bytes",
        ),
        (b"\x80\x05\x96" + struct.pack("<Q", 2**40) + b"abc.", "a bytes object of 1,099,511,627,776 bytes"),
        (b"\x80\x02\x8b\xff\xff\xff\x7fabc.", "a long integer of 2,147,483,647 bytes"),
        (b"\x80\x04\x95" + struct.pack("<Q", 2**60) + b"N.", "a frame of 1,152,921,504,606,846,976 bytes"),
    ],
)
def test_declared_lengths_are_checked_against_the_bytes_left(data, what):
    start = 11 if data[2] in (0x8E, 0x96, 0x95) else 7  # where the length field ends
    left = len(data) - start
    with pytest.raises(LoadError) as error:
        load(data)
    assert str(error.value) == (
        f"agv.load: the file is truncated or damaged: at byte {start} it declares {what}, "
        f"but only {left} bytes are left"
    )
    if what.startswith("a frame"):
        return  # a frame only groups opcodes: on a stream that can't tell its size, nothing is read for it
    # a stream that can't say what is left is read a chunk at a time: the same file costs
    # no more memory than it holds
    tracemalloc.start()
    try:
        with pytest.raises(LoadError) as error:
            agv.load(io.BufferedReader(_Pipe(data)))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert str(error.value) == (
        f"agv.load: the file is truncated or damaged: at byte {start} it declares {what}, "
        "but the file ends before that"
    )
    assert peak < 4 * 2**20


def test_a_pipe_loads_a_real_file():
    saved = {"w": agv.tensor([1.0, 2.0]), "n": [1, 2]}
    buffer = io.BytesIO()
    agv.save(saved, buffer)
    loaded = agv.load(io.BufferedReader(_Pipe(buffer.getvalue())))
    assert loaded["n"] == [1, 2] and loaded["w"].tolist() == [1.0, 2.0]


def test_an_arrays_shape_must_match_its_bytes():
    data = pickle.dumps(np.zeros(1), 2)
    # (1,) -> (100000, 100000): 80 GB declared by an 8-byte buffer
    huge = data.replace(b"K\x01\x85", b"J\xa0\x86\x01\x00J\xa0\x86\x01\x00\x86", 1)
    with pytest.raises(LoadError) as error:
        load(huge)
    assert str(error.value) == (
        "agv.load: the file is damaged: an array of shape (100000, 100000) and dtype float64 needs "
        "80,000,000,000 bytes, but the file holds 8"
    )


def test_memo_indices_are_keys_not_sizes():
    # LONG_BINPUT 4,294,967,295: one dict entry, not a table of 4 billion
    assert load(b"\x80\x02Nr\xff\xff\xff\xff0j\xff\xff\xff\xff.") is None
    with pytest.raises(LoadError) as error:
        load(b"\x80\x02j\xff\xff\xff\xff.")
    assert str(error.value) == (
        "agv.load: the file is damaged: it refers to memo entry 4,294,967,295, which it never stored"
    )


def test_hashing_a_tuple_of_tuples_is_refused_before_it_takes_hours():
    # t = (t_prev, t_prev), 60 times: 240 bytes, 2**60 leaves for hash() to visit
    for container, insert, where in ((b"}", b"Ns", "a dict key"), (b"(", b"\x91", "a frozenset item")):
        with pytest.raises(LoadError) as error:
            load(tuple_bomb(container, insert, proto=4))
        assert str(error.value) == (
            f"agv.load: this file is hostile or damaged: {where} is a tuple of tuples that unfolds to more "
            "than 100,000 items (the same tuple used many times): hashing it could take hours"
        )
    with pytest.raises(LoadError) as error:
        load(b"\x80\x02}" + b")" + b"\x85" * 100_000 + b"Ns.")
    assert str(error.value) == (
        "agv.load: this file is hostile or damaged: it nests tuples more than 100 deep, which no checkpoint "
        "does (and which crashes Python when such a tuple is hashed)"
    )


def test_the_budget_stops_a_file_that_builds_one_piece_many_times():
    data = copied_many_times()  # one 100 KB bytes object, copied into 2,000 bytearrays
    with pytest.raises(LoadError) as error:
        load(data)
    message = str(error.value)
    assert message.startswith(
        "agv.load: this file asks for more memory than its size accounts for: building a bytearray "
        "(100,000 bytes) would bring this load to "
    )
    assert message.endswith(
        "more than 4 bytes per byte of the file (plus 1,048,576 bytes). A file made by agv.save or "
        "torch.save never does; this one is damaged or hostile"
    )
    spent = int(message.split("would bring this load to ")[1].split(" bytes")[0].replace(",", ""))
    assert 4 * len(data) + 2**20 < spent <= 4 * len(data) + 2**20 + 100_000


def test_two_pickles_in_one_file_load_one_after_the_other():
    buffer = io.BytesIO(b"N." + b"N." + pickle.dumps([1], 0))  # the first two are shorter than a peek
    assert agv.load(buffer) is None and agv.load(buffer) is None and agv.load(buffer) == [1]


# -- torch files, made by hand (no torch needed) ----------------------------------------------------


def test_a_torch_storage_must_be_the_size_of_its_record():
    with pytest.raises(LoadError) as error:
        load(torch_zip(storage_tensor(10**12, 0, (2,), (1,)), {"data/0": b"\0" * 8}))
    assert str(error.value) == (
        "agv.load: this PyTorch file is damaged: storage '0' declares 4,000,000,000,000 bytes, but its "
        "record holds 8"
    )
    loaded = load(torch_zip(storage_tensor(2, 0, (2,), (1,)), {"data/0": struct.pack("<2f", 1.5, -2.0)}))
    assert loaded.dtype is agv.float32 and loaded.tolist() == [1.5, -2.0]


def test_a_torch_tensor_must_stay_inside_its_storage():
    with pytest.raises(LoadError) as error:
        load(torch_zip(storage_tensor(2, 1, (2,), (1,)), {"data/0": b"\0" * 8}))
    assert str(error.value) == (
        "agv.load: the file is damaged: a tensor of size (2,) and strides (1,) at offset 1 reaches "
        "element 2 of storage '0', which has 2"
    )
    with pytest.raises(LoadError) as error:
        load(torch_zip(storage_tensor(2, 0, (10**9,), (0,)), {"data/0": b"\0" * 8}))
    assert str(error.value) == (
        "agv.load: refused a tensor of size (1000000000,) over storage '0', which holds only 2 elements "
        "(an expand()-ed view). Save t.contiguous() instead"
    )


def test_a_compressed_torch_record_is_refused_unread():
    data = torch_zip(storage_tensor(5_000_000, 0, (2,), (1,)), {"data/0": b"\0" * 20_000_000}, compress=True)
    assert len(data) < 100_000
    tracemalloc.start()
    try:
        with pytest.raises(LoadError) as error:
            load(data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert str(error.value) == (
        "agv.load: refused the record 'archive/data/0': it is compressed, and torch.save stores its "
        "records uncompressed (a compressed record could unpack to any size)"
    )
    assert peak < 2**20


def test_a_legacy_torch_file_cannot_declare_storages_it_does_not_hold():
    with pytest.raises(LoadError) as error:
        load(legacy_file(storage_tensor(10**12, 0, (2,), (1,), legacy=True)))
    message = str(error.value)
    assert message.startswith("agv.load: the file is truncated or damaged: at byte ")
    assert message.endswith(
        " it declares storages (up to '0') of 4,000,000,000,000 bytes, but only 81 bytes are left"
    )
    loaded = load(
        legacy_file(storage_tensor(2, 0, (2,), (1,), legacy=True), struct.pack("<q2f", 2, 0.5, 4.0))
    )
    assert loaded.tolist() == [0.5, 4.0]


# -- the allowlist ----------------------------------------------------------------------------------

# what agv files may call beyond torch's list, each for files that exist: frozenset, tuple
# (agv.Size), range and slice (of plain ints), bytes() (b"" under protocols 0-2), numpy's
# array, scalar and dtype rebuilders, and autogradviz's tensor and dtype
AGV_EXTRAS = [
    "autogradviz.core.dtypes.to_dtype",
    "autogradviz.core.tensor._rebuild",
    "builtins.bytes",
    "builtins.frozenset",
    "builtins.range",
    "builtins.slice",
    "builtins.tuple",
    "numpy._core.multiarray._reconstruct",
    "numpy._core.multiarray.scalar",
    "numpy._core.numeric._frombuffer",
    "numpy.core.multiarray._reconstruct",
    "numpy.core.multiarray.scalar",
    "numpy.core.numeric._frombuffer",
    "numpy.dtype",
]
PYTHON_CALLS = [
    "_codecs.encode",
    "builtins.bytearray",
    "builtins.complex",
    "builtins.set",
    "collections.OrderedDict",
]
TORCH_CALLS = [
    "torch.Size",
    "torch._tensor._rebuild_from_type_v2",
    "torch._utils._rebuild_parameter",
    "torch._utils._rebuild_parameter_with_state",
    "torch._utils._rebuild_tensor",
    "torch._utils._rebuild_tensor_v2",
    "torch._utils._rebuild_tensor_v3",
]


def test_what_a_file_may_call_is_this_list():
    from autogradviz.serialization.allowed import AGV_GLOBALS
    from autogradviz.serialization.torch_files import TorchReader, _torch_globals

    callable_in = lambda table: sorted(name for name, entry in table.items() if entry.call is not None)  # noqa: E731
    assert callable_in(AGV_GLOBALS) == sorted(PYTHON_CALLS + AGV_EXTRAS)
    assert callable_in(_torch_globals(TorchReader(None, "little"))) == sorted(PYTHON_CALLS + TORCH_CALLS)


def test_a_torch_file_may_call_only_what_torchs_weights_only_unpickler_allows():
    pytest.importorskip("torch")
    from torch._weights_only_unpickler import _get_allowed_globals

    assert set(PYTHON_CALLS + TORCH_CALLS) <= set(_get_allowed_globals())
