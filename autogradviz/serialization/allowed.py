"""The globals an agv.save file (or a plain pickle of arrays and numbers) may name
under weights_only=True, and the checked function each one is called through.

torch.load's weights_only unpickler allows OrderedDict, set, complex, bytearray
and `_codecs.encode`, with tensors, storages and dtypes. The same are allowed
here, with what agv.save's files and plain pickles of numpy arrays need
(tensors, dtypes, numpy arrays and scalars), plus four values that existing
files hold and that cost nothing to build: frozenset and tuple (of a list the
file spelled out), slice and range (of plain ints: a range of 10**18 is three
numbers until something walks it, and nothing here walks one). No allowed
function is ever called with anything but checked arguments, and none of
`list`, `dict`, `bytes(n)`, `int`, `str`, `getattr`... is on the list.
"""

from __future__ import annotations

import codecs
import collections
import math

import numpy as np

from ..compat.pickling import _rebuild  # autogradviz.core.tensor._rebuild, as files name it
from ..core import dtypes as _dtypes
from .reading import LoadError
from .unpickler import Allowed, RestrictedUnpickler

try:  # numpy 2 moved numpy.core to numpy._core; pickles name whichever wrote them
    from numpy._core import multiarray as _multiarray
    from numpy._core import numeric as _numeric
except ImportError:  # numpy 1.x
    from numpy.core import multiarray as _multiarray
    from numpy.core import numeric as _numeric

REFUSED = (
    "agv.load: refused to load the global {name!r} from this file: with weights_only=True (the default) "
    "a file may hold only tensors, arrays, numbers, strings and dicts/lists/tuples of them. "
    "If you trust the file, load it with weights_only=False."
)

# agv.save starts its files with this name (see save()): torch.load, which refuses it,
# then says whose file it is and what to do, where it used to say "Unsupported operand 149"
AGV_FILE_MARK = "this_is_an_agv_save_file__torch_load_reads_files_from_agv_save_with_format_torch"


def refuse(name: str) -> LoadError:
    return LoadError(REFUSED.format(name=name))


def _refuse_tensor(why: str) -> LoadError:
    return LoadError(
        f"agv.load: refused a tensor in this file: {why}. agv.save never writes such a tensor, and with "
        "weights_only=True (the default) it is not built. If you trust the file, load it with "
        "weights_only=False."
    )


def _bad_arguments(what: str, args: tuple) -> LoadError:
    kinds = ", ".join(type(a).__name__ for a in args) or "nothing"
    return LoadError(f"agv.load: refused {what} called with ({kinds}): a file made by pickle never does that")


# -- Python's own types ---------------------------------------------------------------------------


def _spelled_out(u: RestrictedUnpickler, what: str, args: tuple) -> list | tuple:
    """The one argument of set/frozenset/tuple: a list or tuple the file spelled out item by
    item (so its length is paid for in bytes), never a range or another lazy iterable."""
    if len(args) != 1 or type(args[0]) not in (list, tuple):
        raise _bad_arguments(what, args)
    return args[0]


def _set(u: RestrictedUnpickler, *args) -> set:
    items = _spelled_out(u, "set", args) if args else ()
    for item in items:
        u.check_hashable(item, "a set item")
    u.budget.charge(16 * len(items), "a set")
    return set(items)


def _frozenset(u: RestrictedUnpickler, *args) -> frozenset:
    items = _spelled_out(u, "frozenset", args) if args else ()
    for item in items:
        u.check_hashable(item, "a frozenset item")
    u.budget.charge(16 * len(items), "a frozenset")
    return frozenset(items)


def _tuple(u: RestrictedUnpickler, *args) -> tuple:
    # agv.Size pickles as tuple((2, 3))
    items = _spelled_out(u, "tuple", args) if args else ()
    u.budget.charge(8 * len(items), "a tuple")
    return u.note_tuple(tuple(items))


def _plain_ints(what: str, args: tuple, allow_none: bool = False) -> None:
    ok = 1 <= len(args) <= 3 and all(type(a) is int or (allow_none and a is None) for a in args)
    if not ok:
        raise _bad_arguments(what, args)


def _range(u: RestrictedUnpickler, *args) -> range:
    _plain_ints("range", args)
    return range(*args)


def _slice(u: RestrictedUnpickler, *args) -> slice:
    _plain_ints("slice", args, allow_none=True)
    return slice(*args)


def _complex(u: RestrictedUnpickler, *args) -> complex:
    if len(args) > 2 or not all(type(a) in (int, float) for a in args):
        raise _bad_arguments("complex", args)
    return complex(*args)


def _bytes(u: RestrictedUnpickler, *args) -> bytes:
    # protocols 0-2 write b"" as bytes(); any other bytes are _codecs.encode(text, "latin1")
    if args:
        raise _bad_arguments("bytes", args)
    return b""


def _bytearray(u: RestrictedUnpickler, *args) -> bytearray:
    if not args:
        return bytearray()
    if len(args) != 1 or type(args[0]) not in (bytes, bytearray):
        raise _bad_arguments("bytearray", args)
    u.budget.charge(len(args[0]), "a bytearray")
    return bytearray(args[0])


def _encode(u: RestrictedUnpickler, text=None, encoding: str = "utf-8", errors: str = "strict") -> bytes:
    """Pickle protocols 0-2 write bytes (and so numpy arrays' buffers) as
    `_codecs.encode(text, "latin1")`. Only that codec is let through: the others
    (zlib, bz2, base64...) are not something a data file needs to call."""
    if encoding not in ("latin1", "latin-1") or not isinstance(text, str) or errors != "strict":
        raise LoadError(
            f"agv.load: refused to decode with the codec {encoding!r}: with weights_only=True (the default) "
            "a file may use only 'latin1', the codec pickle itself writes. If you trust the file, load it "
            "with weights_only=False."
        )
    u.budget.charge(len(text), "bytes")
    return codecs.encode(text, "latin1")


def _ordered_dict(u: RestrictedUnpickler, *args) -> collections.OrderedDict:
    # OrderedDict pickles as OrderedDict() and then its items (SETITEMS), under every protocol
    if args:
        raise _bad_arguments("collections.OrderedDict", args)
    return collections.OrderedDict()


# -- numpy ----------------------------------------------------------------------------------------

# the dtypes an array in a file may have: numbers and bools (what agv tensors hold, and
# complex for plain arrays), and Python objects (an object array only holds what the file
# already built; a tensor refuses it). No strings, records or sub-arrays: their sizes are
# part of the dtype's name, "(100000000,)f8"
_NUMPY_KINDS = {"b1", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "f8", "c8", "c16", "O8"}


def _simple_dtype(dtype: object, what: str) -> np.dtype:
    if (
        not isinstance(dtype, np.dtype)
        or dtype.kind not in "biufcO"
        or dtype.names is not None
        or dtype.subdtype
    ):
        raise LoadError(f"agv.load: refused {what} of dtype {dtype!r}: only numbers, bools and objects")
    return dtype


def _numpy_dtype(u: RestrictedUnpickler, *args) -> np.dtype:
    """numpy.dtype("f4", False, True), then BUILD with its byte order."""
    if not 1 <= len(args) <= 3 or type(args[0]) is not str or args[0] not in _NUMPY_KINDS:
        raise _bad_arguments("numpy.dtype", args)
    if not all(type(a) is bool for a in args[1:]):
        raise _bad_arguments("numpy.dtype", args)
    if len(args) >= 2 and args[1]:
        raise _bad_arguments("numpy.dtype (aligned)", args)
    dtype = np.dtype(args[0], False, True)  # always a fresh copy: BUILD must never change numpy's own float64
    expected = dtype.__reduce__()[2]  # the state numpy writes for it, but for the byte order

    def finish(state: object) -> None:
        orders = "<>=" if dtype.itemsize > 1 and dtype.kind != "O" else "|"
        if type(state) is not tuple or len(state) != len(expected) or state[0] != expected[0]:
            raise LoadError(f"agv.load: refused the state of a numpy dtype {args[0]!r}: {state!r}")
        if state[1] not in orders or state[2:] != expected[2:]:
            raise LoadError(f"agv.load: refused the state of a numpy dtype {args[0]!r}: {state!r}")
        dtype.__setstate__(state)

    u.expect_build(dtype, finish)
    return dtype


def _element_count(shape: object, what: str) -> int:
    if type(shape) is not tuple or len(shape) > 32 or not all(type(n) is int and n >= 0 for n in shape):
        raise LoadError(f"agv.load: the file is damaged: {what} has the shape {shape!r}")
    return math.prod(shape)


def _check_buffer(data: object, shape: tuple, dtype: np.dtype, what: str) -> None:
    """An array's bytes must be exactly shape x itemsize: a shape is never believed on its own."""
    if type(data) not in (bytes, bytearray):
        raise LoadError(f"agv.load: the file is damaged: {what} holds a {type(data).__name__}, not bytes")
    expected = _element_count(shape, what) * dtype.itemsize
    if expected != len(data):
        raise LoadError(
            f"agv.load: the file is damaged: {what} of shape {shape} and dtype {dtype} needs "
            f"{expected:,} bytes, but the file holds {len(data):,}"
        )


def _reconstruct(u: RestrictedUnpickler, *args) -> np.ndarray:
    """numpy.core.multiarray._reconstruct(ndarray, (0,), b"b"): an empty array that
    BUILD then fills with (version, shape, dtype, is_fortran, bytes)."""
    if (
        len(args) != 3
        or args[0] is not np.ndarray
        or type(args[1]) is not tuple
        or type(args[2]) is not bytes
    ):
        raise _bad_arguments("numpy's _reconstruct", args)
    if args[1] != (0,) or args[2] != b"b":
        raise _bad_arguments("numpy's _reconstruct", args)
    array = _multiarray._reconstruct(np.ndarray, (0,), b"b")

    def finish(state: object) -> None:
        if type(state) is not tuple or len(state) != 5 or state[0] != 1 or type(state[3]) is not bool:
            raise LoadError("agv.load: the file is damaged: a numpy array's state is not what numpy writes")
        _, shape, dtype, _, data = state
        dtype = _simple_dtype(dtype, "an array")
        if dtype.kind == "O":  # an object array's state is the list of its items
            count = _element_count(shape, "an array")
            if type(data) is not list or len(data) != count:
                raise LoadError("agv.load: the file is damaged: an object array's items do not fit its shape")
            u.budget.charge(8 * count, "an array")
        else:
            _check_buffer(data, shape, dtype, "an array")
            u.budget.charge(len(data), "an array")
        array.__setstate__(state)

    u.expect_build(array, finish)
    return array


def _frombuffer(u: RestrictedUnpickler, *args) -> np.ndarray:
    """numpy.core.numeric._frombuffer(buffer, dtype, shape, order): protocol 5's arrays."""
    if len(args) != 4 or args[3] not in ("C", "F"):
        raise _bad_arguments("numpy's _frombuffer", args)
    data, dtype, shape, order = args
    dtype = _simple_dtype(dtype, "an array")
    if dtype.kind == "O":
        raise _bad_arguments("numpy's _frombuffer", args)
    _check_buffer(data, shape, dtype, "an array")
    return _numeric._frombuffer(data, dtype, shape, order)  # a view of the file's bytes: no copy


def _scalar(u: RestrictedUnpickler, *args) -> np.generic:
    """numpy.core.multiarray.scalar(dtype, bytes): np.float64(0.5) and friends."""
    if len(args) != 2:
        raise _bad_arguments("numpy's scalar", args)
    dtype = _simple_dtype(args[0], "a numpy scalar")
    if dtype.kind == "O":
        raise _bad_arguments("numpy's scalar", args)
    _check_buffer(args[1], (), dtype, "a numpy scalar")
    return _multiarray.scalar(dtype, args[1])


# -- autogradviz ----------------------------------------------------------------------------------


def _is_number_array(value: object) -> bool:
    # object arrays are refused: their items would be whatever the file put there, not numbers
    return isinstance(value, np.ndarray) and value.dtype.kind in "biuf"


def _rebuild_tensor(u: RestrictedUnpickler, data=None, requires_grad=None, grad=None, meta=None, *rest):
    """What the allowlist calls for `autogradviz.core.tensor._rebuild`, the function
    `Tensor.__reduce_ex__` names. It checks the arguments first, so that a crafted
    file can only make the kind of tensor `agv.save` writes: numbers, a bool flag,
    a grad of numbers, and no extras but a name and the Parameter mark (hooks and
    graph links are never saved, so a file that carries them was not made by us)."""
    if rest:
        raise _bad_arguments("autogradviz.core.tensor._rebuild", (data, requires_grad, grad, meta, *rest))
    if not _is_number_array(data):
        raise _refuse_tensor("its data is not an array of numbers")
    if grad is not None and not _is_number_array(grad):
        raise _refuse_tensor("its .grad is not an array of numbers")
    if grad is not None and grad.shape != data.shape:
        raise _refuse_tensor("its .grad has another shape than its data")
    if not isinstance(requires_grad, (bool, np.bool_)):
        raise _refuse_tensor("its requires_grad is not True or False")
    if meta is not None:
        if type(meta) is not dict or not set(meta) <= {"name", "parameter"}:
            raise _refuse_tensor("it carries extras other than a name and the Parameter mark")
        if (
            not isinstance(meta.get("name"), (str, type(None)))
            or type(meta.get("parameter", True)) is not bool
        ):
            raise _refuse_tensor("its name or Parameter mark is not a string or a bool")
    return u.each_tensor(_rebuild(data, requires_grad, grad, meta))


def _to_dtype(u: RestrictedUnpickler, *args):
    if len(args) != 1 or type(args[0]) is not str:
        raise _bad_arguments("autogradviz.core.dtypes.to_dtype", args)
    return _dtypes.to_dtype(args[0])


# -- the table ------------------------------------------------------------------------------------

# shared with torch files, which torch.load's own allowlist lets use the same globals
PYTHON_GLOBALS = {
    "collections.OrderedDict": Allowed(collections.OrderedDict, _ordered_dict),  # Module.state_dict()
    "builtins.set": Allowed(set, _set),
    "builtins.complex": Allowed(complex, _complex),
    "builtins.bytearray": Allowed(bytearray, _bytearray),
    "_codecs.encode": Allowed(codecs.encode, _encode),  # bytes under protocols 0-2
}


def _agv_globals() -> dict[str, Allowed]:
    """Every global an agv.save file may name. Found by listing the globals in the
    pickles of tensors, state_dicts and optimizer state_dicts under protocols 0 to
    5 and numpy 1.x and 2.x."""
    table = dict(PYTHON_GLOBALS)
    table.update(
        {
            "builtins.frozenset": Allowed(frozenset, _frozenset),
            "builtins.tuple": Allowed(tuple, _tuple),  # agv.Size
            "builtins.range": Allowed(range, _range),
            "builtins.slice": Allowed(slice, _slice),
            "builtins.bytes": Allowed(bytes, _bytes),  # b"" under protocols 0-2
            "autogradviz.core.tensor._rebuild": Allowed(_rebuild, _rebuild_tensor),  # tensors, Parameters too
            "autogradviz.core.dtypes.to_dtype": Allowed(_dtypes.to_dtype, _to_dtype),  # agv.float32...
            f"autogradviz.serialization.{AGV_FILE_MARK}": Allowed(AGV_FILE_MARK),
            "numpy.ndarray": Allowed(np.ndarray),  # only passed to _reconstruct
            "numpy.dtype": Allowed(np.dtype, _numpy_dtype),
        }
    )
    # both spellings map to the installed numpy, so a file written under numpy 1.x
    # loads under 2.x and the other way round
    for package in ("numpy.core", "numpy._core"):
        table[f"{package}.multiarray._reconstruct"] = Allowed(_multiarray._reconstruct, _reconstruct)
        table[f"{package}.numeric._frombuffer"] = Allowed(_numeric._frombuffer, _frombuffer)
        table[f"{package}.multiarray.scalar"] = Allowed(_multiarray.scalar, _scalar)
    # a pickled dtype class (type(array.dtype)) names numpy.dtypes.Float32DType and so on
    for attr, value in vars(getattr(np, "dtypes", object())).items():
        if isinstance(value, type) and issubclass(value, np.dtype) and value is not np.dtype:
            try:
                kind = value().kind
            except (TypeError, ValueError):  # StrDType and the like need arguments: not numbers anyway
                continue
            if kind in "biufc":
                table[f"numpy.dtypes.{attr}"] = Allowed(value)
    return table


AGV_GLOBALS = _agv_globals()
