"""PyTorch's checkpoint files, read and written without importing torch.

torch.save writes one of two layouts; both keep the tensors' bytes outside the
pickle, which names each tensor's bytes by a *persistent id*:
`("storage", torch.FloatStorage, "0", "cpu", 6)` is "6 float32 numbers, kept
under the key '0'".

- The zip format (the default since PyTorch 1.6): a zip archive (stored, not
  compressed) of `archive/data.pkl` (the pickle), `archive/data/0`,
  `archive/data/1`... (each storage's raw bytes, little-endian) and a few small
  records (`version`, `byteorder`...).
- The legacy format (`_use_new_zipfile_serialization=False`): five pickles one
  after another (a magic number, a protocol version, the writer's byte order,
  the object, the list of storage keys), then for each key the storage: its
  element count as 8 bytes, then its bytes.

A tensor in the pickle is `torch._utils._rebuild_tensor_v2(storage, offset,
size, stride, requires_grad, hooks)`: a view of `size` elements, `stride` apart,
starting at `offset` in the storage. Here a storage becomes one 1-d numpy array,
and each tensor a numpy view of it with the same offset and strides: views and
tensors that share a storage in PyTorch share memory here too.

Everything is read through the restricted unpickler, with torch.load's
weights_only allowlist (tensors, storages, dtypes, torch.Size, OrderedDict, set,
complex, bytearray, bytes) and with every size checked against the file.

`write_zip` writes the zip format, with only the opcodes and globals that
`torch.load(weights_only=True)` accepts.
"""

from __future__ import annotations

import collections
import hashlib
import io
import math
import struct
import sys
import warnings
import zipfile
from dataclasses import dataclass

import numpy as np

from ..compat.pickling import _rebuild  # autogradviz.core.tensor._rebuild, as files name it
from ..core import dtypes as _dtypes
from ..core.size import Size
from ..core.tensor import Tensor
from .allowed import PYTHON_GLOBALS
from .reading import BoundedReader, Budget, LoadError
from .unpickler import Allowed, RestrictedUnpickler

ZIP_MAGIC = b"PK\x03\x04"
MAGIC_NUMBER = 0x1950A86A20F9469CFC6C  # the first pickle of a legacy torch.save file
LEGACY_PROTOCOL_VERSION = 1001

TORCH_REFUSED = (
    "agv.load: refused to load the global {name!r} from this PyTorch file: agv.load reads what "
    "torch.load(weights_only=True) reads (tensors, state_dicts, optimizer state_dicts, numbers, strings "
    "and containers of them), without torch. A file that needs more, such as a whole model saved with "
    "torch.save(model), needs torch.load."
)


def _refuse(name: str) -> LoadError:
    return LoadError(TORCH_REFUSED.format(name=name))


# -- dtypes ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TorchDtype:
    """How a torch dtype's elements sit in a file, and what they load as here."""

    name: str  # torch's name: "float32"
    stored: str | None  # numpy's name of the bytes in the file ("f4"), or None if numpy has none
    loads_as: str | None  # numpy's name of the loaded tensor's dtype, or None: not loaded
    why_not: str = ""  # for loads_as None: why


TORCH_DTYPES = {
    d.name: d
    for d in [
        TorchDtype("float32", "f4", "f4"),
        TorchDtype("float64", "f8", "f8"),
        TorchDtype("int64", "i8", "i8"),
        TorchDtype("int32", "i4", "i4"),
        TorchDtype("int16", "i2", "i2"),
        TorchDtype("int8", "i1", "i1"),
        TorchDtype("uint8", "u1", "u1"),
        TorchDtype("bool", "b1", "b1"),
        # autogradviz computes in float32 or float64 and has no unsigned ints wider than a
        # byte: these load widened, with the same values (a warning says so)
        TorchDtype("float16", "f2", "f4"),
        TorchDtype("bfloat16", None, "f4"),  # the top 16 bits of a float32
        TorchDtype("uint16", "u2", "i8"),
        TorchDtype("uint32", "u4", "i8"),
        TorchDtype("uint64", "u8", None, "its values may not fit in int64, the widest integer here"),
        TorchDtype("complex64", "c8", None, "autogradviz has no complex numbers"),
        TorchDtype("complex128", "c16", None, "autogradviz has no complex numbers"),
        TorchDtype("complex32", None, None, "autogradviz has no complex numbers"),
        *(
            TorchDtype(q, None, None, "autogradviz has no quantized tensors")
            for q in ("qint8", "quint8", "qint32", "quint4x2", "quint2x4")
        ),
        *(
            TorchDtype(f, None, None, "autogradviz has no 8-bit floats")
            for f in ("float8_e5m2", "float8_e4m3fn", "float8_e5m2fnuz", "float8_e4m3fnuz")
        ),
    ]
}
_ITEMSIZE = {
    "bfloat16": 2,
    "complex32": 4,
    "qint8": 1,
    "quint8": 1,
    "qint32": 4,
    "quint4x2": 1,
    "quint2x4": 1,
}


def _itemsize(name: str) -> int:
    stored = TORCH_DTYPES[name].stored
    return np.dtype(stored).itemsize if stored else _ITEMSIZE.get(name, 1)


# the legacy storage classes, as the pickle names them: torch.FloatStorage holds float32
_STORAGE_DTYPES = {
    "FloatStorage": "float32",
    "DoubleStorage": "float64",
    "HalfStorage": "float16",
    "BFloat16Storage": "bfloat16",
    "LongStorage": "int64",
    "IntStorage": "int32",
    "ShortStorage": "int16",
    "CharStorage": "int8",
    "ByteStorage": "uint8",
    "BoolStorage": "bool",
    "ComplexFloatStorage": "complex64",
    "ComplexDoubleStorage": "complex128",
    "QInt8Storage": "qint8",
    "QUInt8Storage": "quint8",
    "QInt32Storage": "qint32",
    "QUInt4x2Storage": "quint4x2",
    "QUInt2x4Storage": "quint2x4",
}


@dataclass(frozen=True)
class StorageType:
    """What GLOBAL torch.FloatStorage stands for: the dtype of a storage's elements
    (None for torch.UntypedStorage: bytes, whose dtype the tensor names)."""

    dtype: str | None


@dataclass(frozen=True)
class TorchOnlyDtype:
    """A torch dtype autogradviz has no name for (torch.bfloat16): a value in a file."""

    name: str

    def __repr__(self) -> str:
        return f"torch.{self.name}"


@dataclass(frozen=True)
class TorchName:
    """What a torch class or function stands for when a file names it (torch is not imported)."""

    name: str

    def __repr__(self) -> str:
        return self.name


def _dtype_value(name: str):
    """torch.float32 in a file is agv.float32; torch.bfloat16 has no agv name."""
    found = _dtypes._BY_NAME.get(name)
    return found if found is not None else TorchOnlyDtype(name)


def _dtype_name(value: object) -> str:
    if isinstance(value, _dtypes.DType):
        return value.name
    if isinstance(value, TorchOnlyDtype):
        return value.name
    raise LoadError(f"agv.load: the file is damaged: a tensor's dtype is a {type(value).__name__}")


# -- storages -------------------------------------------------------------------------------------


class Storage:
    """One storage of a torch file: its raw bytes, and a 1-d array of its elements
    for each dtype a tensor reads it as. An array of the stored dtype is a view of
    the bytes (no copy); a widened one (float16 -> float32) is a converted copy,
    made once, so tensors viewing it still share it."""

    def __init__(self, key: str, dtype: str | None, nbytes: int, budget: Budget, byteorder: str, data=None):
        budget.charge(nbytes, f"storage {key!r}")
        self.key = key
        self.dtype = dtype  # None: untyped (the tensor says)
        self.raw = bytearray(nbytes) if data is None else bytearray(data)
        self.filled = False
        self._budget = budget
        self._byteorder = byteorder
        self._elements: dict[str, np.ndarray] = {}
        self._widened: list[tuple[str, np.ndarray]] = []
        if data is not None:
            self.filled = True  # (a bool storage's bytes are checked when a tensor reads them)

    def fill(self, data: bytes) -> None:
        if len(data) != len(self.raw):
            raise LoadError(
                f"agv.load: the file is damaged: storage {self.key!r} needs {len(self.raw):,} bytes, "
                f"but the file holds {len(data):,}"
            )
        memoryview(self.raw)[:] = data  # in place: arrays made before the bytes arrived see them
        self.filled = True
        for name, array in self._widened:
            self._widen_into(name, array)
        for name, array in self._elements.items():
            if name == "bool" and array.size and array.view(np.uint8).max() > 1:
                raise LoadError(
                    f"agv.load: the file is damaged: storage {self.key!r} holds bools other than 0 and 1"
                )

    def elements(self, name: str) -> np.ndarray:
        """The storage's elements as the dtype `name` loads as (a 1-d array)."""
        if name in self._elements:
            return self._elements[name]
        itemsize = _itemsize(name)
        if len(self.raw) % itemsize:
            raise LoadError(
                f"agv.load: the file is damaged: storage {self.key!r} holds {len(self.raw):,} bytes, "
                f"not a whole number of {name} elements"
            )
        info = TORCH_DTYPES[name]
        order = "<" if self._byteorder == "little" else ">"
        stored = np.dtype(info.stored or "u2").newbyteorder(order)  # bfloat16: 16 bits, read as uint16
        if info.stored == info.loads_as and stored.isnative:
            array = np.frombuffer(self.raw, dtype=stored)  # a writable view of the bytes
        else:
            count = len(self.raw) // itemsize
            self._budget.charge(count * np.dtype(info.loads_as).itemsize, f"storage {self.key!r} as {name}")
            array = np.zeros(count, dtype=info.loads_as)
            self._widened.append((name, array))
            if self.filled:
                self._widen_into(name, array)
        self._elements[name] = array
        if self.filled and name == "bool" and array.size and array.view(np.uint8).max() > 1:
            raise LoadError(
                f"agv.load: the file is damaged: storage {self.key!r} holds bools other than 0 and 1"
            )
        return array

    def _widen_into(self, name: str, array: np.ndarray) -> None:
        order = "<" if self._byteorder == "little" else ">"
        if name == "bfloat16":
            # a bfloat16 is the top half of a float32: shift its 16 bits up and read them as one
            top = np.frombuffer(self.raw, dtype=np.dtype("u2").newbyteorder(order)).astype(np.uint32)
            np.copyto(array, (top << 16).view(np.float32))
        else:
            stored = np.frombuffer(self.raw, dtype=np.dtype(TORCH_DTYPES[name].stored).newbyteorder(order))
            np.copyto(array, stored, casting="unsafe")


def _ascii(value: object) -> object:
    return value.decode("ascii") if type(value) is bytes else value


def _short_str(value: object, what: str) -> str:
    value = _ascii(value)
    if type(value) is not str or not 0 < len(value) <= 200:
        raise LoadError(f"agv.load: the file is damaged: a storage's {what} is {value!r}")
    return value


class TorchReader:
    """What one torch file's tensors are made from: its storages, by key."""

    def __init__(self, budget: Budget, byteorder: str):
        self.budget = budget
        self.byteorder = byteorder
        self.storages: dict[str, Storage] = {}
        self.widened: set[str] = set()  # dtypes that loaded widened: one warning at the end

    def storage(self, pid: tuple, bytes_of) -> Storage:
        """The storage a persistent id (storage type, key, location, element count) names.
        A new one asks `bytes_of(key, nbytes)` for its bytes, which checks the declared
        size against the file before anything is allocated (None: they come later)."""
        storage_type, key, location, numel = pid
        if not isinstance(storage_type, StorageType):
            raise LoadError(f"agv.load: the file is damaged: a storage's type is {storage_type!r}")
        key = _short_str(key, "key")
        _short_str(location, "location")  # "cpu", "cuda:0": every tensor loads on the CPU here
        if type(numel) is not int or numel < 0:
            raise LoadError(f"agv.load: the file is damaged: storage {key!r} has {numel!r} elements")
        if key in self.storages:
            known = self.storages[key]
            if known.dtype != storage_type.dtype:
                raise LoadError(f"agv.load: the file is damaged: storage {key!r} is named with two dtypes")
            return known
        nbytes = numel * (_itemsize(storage_type.dtype) if storage_type.dtype else 1)
        data = bytes_of(key, nbytes)
        storage = Storage(key, storage_type.dtype, nbytes, self.budget, self.byteorder, data)
        self.storages[key] = storage
        return storage

    def warn_widened(self) -> None:
        if self.widened:
            names = ", ".join(f"torch.{n}" for n in sorted(self.widened))
            targets = sorted({f"torch.{np.dtype(TORCH_DTYPES[n].loads_as).name}" for n in self.widened})
            warnings.warn(
                f"agv.load: this PyTorch file holds tensors of {names}, which autogradviz does not compute "
                f"in; they load as {' and '.join(targets)}, with the same values",
                UserWarning,
                stacklevel=4,
            )

    # -- the rebuild functions torch's pickle calls ----------------------------------------------

    def tensor(
        self, u, storage, offset, size, stride, requires_grad, hooks, dtype_name: str | None
    ) -> Tensor:
        if not isinstance(storage, Storage):
            raise LoadError(
                f"agv.load: the file is damaged: a tensor's storage is a {type(storage).__name__}"
            )
        name = dtype_name or storage.dtype
        if name is None:
            raise LoadError("agv.load: the file is damaged: a tensor of an untyped storage names no dtype")
        if name != (storage.dtype or name):
            raise LoadError(f"agv.load: the file is damaged: a {name} tensor views a {storage.dtype} storage")
        info = TORCH_DTYPES[name]
        if info.loads_as is None:
            raise LoadError(
                f"agv.load: this PyTorch file holds a tensor of dtype torch.{name}: {info.why_not}"
            )
        if type(offset) is not int or offset < 0:
            raise LoadError(f"agv.load: the file is damaged: a tensor's storage offset is {offset!r}")
        if isinstance(size, Size):
            size = tuple(size)
        if (
            type(size) is not tuple
            or type(stride) is not tuple
            or len(size) != len(stride)
            or len(size) > 32
            or not all(type(n) is int and n >= 0 for n in size + stride)
        ):
            raise LoadError(
                f"agv.load: the file is damaged: a tensor has the size {size!r} and strides {stride!r}"
            )
        if type(requires_grad) is not bool:
            raise LoadError("agv.load: the file is damaged: a tensor's requires_grad is not True or False")
        if hooks is not None and (not isinstance(hooks, dict) or hooks):
            raise LoadError("agv.load: refused a tensor with backward hooks: hooks are code, not data")
        elements = storage.elements(name)
        if info.stored != info.loads_as:
            self.widened.add(name)
        count = math.prod(size)
        if count == 0:
            array = np.zeros(size, dtype=elements.dtype)
        else:
            last = offset + sum((n - 1) * s for n, s in zip(size, stride))
            if last >= elements.size:
                raise LoadError(
                    f"agv.load: the file is damaged: a tensor of size {size} and strides {stride} at offset "
                    f"{offset:,} reaches element {last:,} of storage {storage.key!r}, which has "
                    f"{elements.size:,}"
                )
            if count > elements.size:
                # an expand()-ed view: a few stored numbers repeated many times. torch.save keeps
                # it; loading it here would let a small file claim a huge tensor
                raise LoadError(
                    f"agv.load: refused a tensor of size {size} over storage {storage.key!r}, which holds "
                    f"only {elements.size:,} elements (an expand()-ed view). Save t.contiguous() instead"
                )
            itemsize = elements.dtype.itemsize
            array = np.ndarray(
                size,
                dtype=elements.dtype,
                buffer=elements,
                offset=offset * itemsize,
                strides=tuple(s * itemsize for s in stride),
            )
        if requires_grad and array.dtype.kind != "f":
            raise LoadError("agv.load: the file is damaged: an integer tensor requires grad")
        return u.each_tensor(_rebuild(array, requires_grad, None, None))


def _no_state(state: object, what: str) -> None:
    if state is not None and not (isinstance(state, dict) and not state):
        raise LoadError(
            f"agv.load: refused {what} that carries Python attributes: agv.load reads plain tensors"
        )


def _torch_globals(reader: TorchReader) -> dict[str, Allowed]:
    """torch.load(weights_only=True)'s allowlist, as far as plain tensors go."""

    def rebuild_tensor_v2(u, storage, offset, size, stride, requires_grad, hooks, metadata=None):
        _no_state(metadata, "a tensor")
        return reader.tensor(u, storage, offset, size, stride, requires_grad, hooks, None)

    def rebuild_tensor_v3(u, storage, offset, size, stride, requires_grad, hooks, dtype, metadata=None):
        _no_state(metadata, "a tensor")
        return reader.tensor(u, storage, offset, size, stride, requires_grad, hooks, _dtype_name(dtype))

    def rebuild_tensor(u, storage, offset, size, stride):  # before PyTorch 1.0
        return reader.tensor(u, storage, offset, size, stride, False, None, None)

    def rebuild_parameter(u, data, requires_grad, hooks, state=None):
        if not isinstance(data, Tensor) or type(requires_grad) is not bool:
            raise LoadError("agv.load: the file is damaged: a Parameter is not made of a tensor")
        if hooks is not None and (not isinstance(hooks, dict) or hooks):
            raise LoadError("agv.load: refused a Parameter with backward hooks: hooks are code, not data")
        _no_state(state, "a Parameter")
        if requires_grad and not data.dtype.is_floating_point:
            raise LoadError("agv.load: the file is damaged: an integer Parameter requires grad")
        return _rebuild(data.detach().numpy(), requires_grad, None, {"parameter": True})

    def rebuild_from_type_v2(u, func, new_type, args, state):
        # how torch pickles a tensor whose class or attributes are not plain
        if (new_type is not tensor_class and new_type is not parameter_class) or type(args) is not tuple:
            raise LoadError(
                f"agv.load: refused a tensor of the class {new_type!r}: agv.load reads plain tensors"
            )
        _no_state(state, "a tensor")
        result = u.call(func, args, "torch._tensor._rebuild_from_type_v2")
        if not isinstance(result, Tensor):
            raise LoadError("agv.load: the file is damaged: _rebuild_from_type_v2 did not make a tensor")
        if new_type is parameter_class:
            return _rebuild(result.detach().numpy(), result.requires_grad, None, {"parameter": True})
        return result

    def size(u, *args):
        if len(args) != 1 or type(args[0]) not in (tuple, list) or not all(type(n) is int for n in args[0]):
            raise LoadError("agv.load: the file is damaged: torch.Size of something other than ints")
        return Size(args[0])

    tensor_class = TorchName("torch.Tensor")
    parameter_class = TorchName("torch.nn.parameter.Parameter")
    table = dict(PYTHON_GLOBALS)
    functions = {
        "torch._utils._rebuild_tensor_v2": rebuild_tensor_v2,
        "torch._utils._rebuild_tensor_v3": rebuild_tensor_v3,
        "torch._utils._rebuild_tensor": rebuild_tensor,
        "torch._utils._rebuild_parameter": rebuild_parameter,
        "torch._utils._rebuild_parameter_with_state": rebuild_parameter,
        "torch._tensor._rebuild_from_type_v2": rebuild_from_type_v2,
        "torch.Size": size,
    }
    for name, function in functions.items():
        table[name] = Allowed(TorchName(name), function)
    table["torch.Tensor"] = Allowed(tensor_class)
    table["torch.nn.parameter.Parameter"] = Allowed(parameter_class)
    for storage, dtype in _STORAGE_DTYPES.items():
        for module in ("torch", "torch.cuda"):  # files saved from a GPU by old versions say torch.cuda
            table[f"{module}.{storage}"] = Allowed(StorageType(dtype))
    table["torch.storage.UntypedStorage"] = Allowed(StorageType(None))
    table["torch.UntypedStorage"] = Allowed(StorageType(None))
    for dtype in TORCH_DTYPES:
        table[f"torch.{dtype}"] = Allowed(_dtype_value(dtype))
    return table


# -- the zip format -------------------------------------------------------------------------------


def _zip_member(archive: zipfile.ZipFile, name: str, archive_size: int) -> bytes:
    """One record's bytes. Its declared size is checked first; what it costs to keep
    is charged when it becomes a storage (a record read twice is charged twice)."""
    try:
        info = archive.getinfo(name)
    except KeyError:
        raise LoadError(f"agv.load: this PyTorch file is damaged: it has no record {name!r}") from None
    if info.compress_type != zipfile.ZIP_STORED or info.compress_size != info.file_size:
        raise LoadError(
            f"agv.load: refused the record {name!r}: it is compressed, and torch.save stores its records "
            "uncompressed (a compressed record could unpack to any size)"
        )
    if info.file_size > archive_size:
        raise LoadError(
            f"agv.load: this PyTorch file is damaged: the record {name!r} declares {info.file_size:,} bytes, "
            f"more than the whole file ({archive_size:,})"
        )
    try:
        with archive.open(info) as member:
            return member.read()
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as error:
        raise LoadError(f"agv.load: this PyTorch file is damaged: reading {name!r}: {error}") from error


def read_zip(reader: BoundedReader, each_tensor) -> object:
    """A torch.save file in the zip format (the file starts with "PK")."""
    data = reader.read_rest()  # in memory: what the file really holds, no more
    budget = Budget(lambda: len(data))
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        names = archive.namelist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError, struct.error) as error:
        raise LoadError(f"agv.load: this file starts like a zip archive but is damaged: {error}") from error
    prefix = names[0].split("/", 1)[0] if names and "/" in names[0] else None
    if prefix is None or f"{prefix}/data.pkl" not in names:
        raise LoadError(
            "agv.load: this zip archive is not a torch.save file (it has no data.pkl). "
            "(A numpy .npz file is read with np.load.)"
        )
    byteorder = "little"
    if f"{prefix}/byteorder" in names:
        byteorder = _zip_member(archive, f"{prefix}/byteorder", len(data)).decode("ascii", "replace")
        if byteorder not in ("little", "big"):
            raise LoadError(f"agv.load: this PyTorch file is damaged: its byte order is {byteorder!r}")
    torch_reader = TorchReader(budget, byteorder)

    def persistent_load(pid: object) -> Storage:
        if type(pid) is not tuple or len(pid) != 5 or _ascii(pid[0]) != "storage":
            raise LoadError(f"agv.load: the file is damaged: a persistent id is {pid!r}")
        return torch_reader.storage(pid[1:], record)

    def record(key: str, nbytes: int) -> bytes:
        name = f"{prefix}/data/{key}"
        info = archive.NameToInfo.get(name)
        if info is not None and info.file_size != nbytes:
            raise LoadError(
                f"agv.load: this PyTorch file is damaged: storage {key!r} declares {nbytes:,} bytes, but its "
                f"record holds {info.file_size:,}"
            )
        return _zip_member(archive, name, len(data))

    pickle_bytes = _zip_member(archive, f"{prefix}/data.pkl", len(data))
    result = RestrictedUnpickler(
        BoundedReader(io.BytesIO(pickle_bytes)),
        budget,
        _torch_globals(torch_reader),
        _refuse,
        persistent_load=persistent_load,
        each_tensor=each_tensor,
    ).load()
    torch_reader.warn_widened()
    return result


# -- the legacy format ----------------------------------------------------------------------------


def read_legacy(reader: BoundedReader, each_tensor) -> object:
    """The rest of a legacy torch.save file, whose first pickle (the magic number) was just read."""
    if reader.left() is None:  # a pipe: read it all, so every declared size can be checked
        reader = BoundedReader(io.BytesIO(reader.read_rest()))
    total = reader.consumed + reader.left()
    budget = Budget(lambda: total)

    def small_pickle(what: str) -> object:
        return RestrictedUnpickler(reader, budget, dict(PYTHON_GLOBALS), _refuse).load()

    version = small_pickle("the protocol version")
    if version != LEGACY_PROTOCOL_VERSION:
        raise LoadError(
            f"agv.load: this PyTorch file is damaged: its protocol version is {version!r}, not 1001"
        )
    system = small_pickle("the writer's system")
    if type(system) is not dict or type(system.get("little_endian", True)) is not bool:
        raise LoadError("agv.load: this PyTorch file is damaged: it does not say its byte order")
    byteorder = "little" if system.get("little_endian", True) else "big"
    torch_reader = TorchReader(budget, byteorder)
    declared = [0]  # bytes of all storages so far: they all come after the pickle

    def persistent_load(pid: object) -> object:
        if type(pid) is tuple and pid and _ascii(pid[0]) == "module":
            raise LoadError(
                "agv.load: this PyTorch file holds a whole model (torch.save(model)), which needs torch.load "
                "and the model's code; save model.state_dict() instead"
            )
        if type(pid) is not tuple or len(pid) != 6 or _ascii(pid[0]) != "storage":
            raise LoadError(f"agv.load: the file is damaged: a persistent id is {pid!r}")
        if pid[5] is not None:
            raise LoadError("agv.load: refused a storage view from PyTorch before 1.0: resave the file")
        storage_type = pid[1]
        if isinstance(storage_type, StorageType) and storage_type.dtype is None:
            raise LoadError("agv.load: the file is damaged: a legacy file names an untyped storage")
        return torch_reader.storage(pid[1:5], room)

    def room(key: str, nbytes: int) -> None:
        # a storage's bytes come after the pickle: all of them must fit in what is left
        declared[0] += nbytes
        if declared[0] > reader.left():
            raise reader.truncated(declared[0], f"storages (up to {key!r})")
        return None

    result = RestrictedUnpickler(
        reader,
        budget,
        _torch_globals(torch_reader),
        _refuse,
        persistent_load=persistent_load,
        each_tensor=each_tensor,
    ).load()
    keys = small_pickle("the storage keys")
    if type(keys) is not list or not all(type(k) is str for k in keys):
        raise LoadError("agv.load: this PyTorch file is damaged: its list of storages is not a list of keys")
    count_format = "<q" if byteorder == "little" else ">q"
    for key in keys:
        storage = torch_reader.storages.get(key)
        if storage is None:
            raise LoadError(
                f"agv.load: this PyTorch file is damaged: it gives the bytes of an unknown storage {key!r}"
            )
        count = struct.unpack(count_format, reader.read(8, f"the size of storage {key!r}"))[0]
        nbytes = count * _itemsize(storage.dtype) if count >= 0 else -1
        if nbytes != len(storage.raw):
            raise LoadError(
                f"agv.load: this PyTorch file is damaged: storage {key!r} has {len(storage.raw):,} bytes in the "
                f"pickle but {max(nbytes, 0):,} in its data"
            )
        storage.fill(reader.read(nbytes, f"the bytes of storage {key!r}"))
    missing = [k for k, s in torch_reader.storages.items() if not s.filled]
    if missing:
        raise LoadError(
            f"agv.load: this PyTorch file is damaged: it never gives the bytes of storage {missing[0]!r}"
        )
    torch_reader.warn_widened()
    return result


# -- writing --------------------------------------------------------------------------------------

_STORAGE_OF = {
    np.dtype("float32"): "FloatStorage",
    np.dtype("float64"): "DoubleStorage",
    np.dtype("int64"): "LongStorage",
    np.dtype("int32"): "IntStorage",
    np.dtype("int16"): "ShortStorage",
    np.dtype("int8"): "CharStorage",
    np.dtype("uint8"): "ByteStorage",
    np.dtype("bool"): "BoolStorage",
}

_LITTLE_ENDIAN = sys.byteorder == "little"


def _address(array: np.ndarray) -> int:
    return array.__array_interface__["data"][0]


def _memory_block(root: np.ndarray) -> np.ndarray | None:
    """The root array's memory as a 1-d array in memory order, if it is one block."""
    if root.flags.c_contiguous:
        return root.reshape(-1)
    if root.flags.f_contiguous:
        return root.T.reshape(-1)
    return None


def _contiguous_strides(shape: tuple) -> tuple:
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


class TorchPickler:
    """Writes data.pkl as torch.save does: pickle protocol 2, using only the opcodes
    and globals torch.load(weights_only=True) accepts (its own list), and collects
    the storages to write beside it."""

    def __init__(self):
        self.out = bytearray()
        self.storages: list[tuple[str, np.ndarray]] = []  # key -> the 1-d array of its elements
        self._storage_keys: dict[tuple[int, str], tuple[str, np.ndarray]] = {}
        self._memo: dict[int, tuple[int, object]] = {}  # id -> (memo index, the object, kept alive)
        self._globals: dict[str, int] = {}
        self._open_tuples: set[int] = set()

    def dump(self, obj: object) -> bytes:
        self.out += b"\x80\x02"  # PROTO 2, as torch.save writes
        self._save(obj, "the object")
        self.out += b"."  # STOP
        return bytes(self.out)

    # -- opcodes --

    def _memoize(self, obj: object) -> None:
        index = len(self._memo)
        self._memo[id(obj)] = (index, obj)
        self.out += b"q" + bytes([index]) if index < 256 else b"r" + struct.pack("<I", index)

    def _get(self, obj: object) -> bool:
        found = self._memo.get(id(obj))
        if found is None:
            return False
        index = found[0]
        self.out += b"h" + bytes([index]) if index < 256 else b"j" + struct.pack("<I", index)
        return True

    def _global(self, module: str, name: str) -> None:
        key = f"{module}\n{name}\n"
        if key in self._globals:
            index = self._globals[key]
            self.out += b"h" + bytes([index]) if index < 256 else b"j" + struct.pack("<I", index)
            return
        self.out += b"c" + key.encode("ascii")
        sentinel = object()
        self._memoize(sentinel)
        self._globals[key] = self._memo[id(sentinel)][0]

    def _int(self, value: int) -> None:
        if 0 <= value < 256:
            self.out += b"K" + bytes([value])
        elif 0 <= value < 65536:
            self.out += b"M" + struct.pack("<H", value)
        elif -(2**31) <= value < 2**31:
            self.out += b"J" + struct.pack("<i", value)
        else:
            data = value.to_bytes((value.bit_length() + 8) // 8, "little", signed=True)
            if len(data) > 255:
                raise ValueError("agv.save(..., format='torch'): an int too large for torch.load's reader")
            self.out += b"\x8a" + bytes([len(data)]) + data

    def _str(self, value: str) -> None:
        data = value.encode("utf-8", "surrogatepass")
        self.out += b"X" + struct.pack("<I", len(data)) + data

    def _empty_ordered_dict(self) -> None:
        self._global("collections", "OrderedDict")
        self.out += b")R"  # EMPTY_TUPLE REDUCE

    def _items(self, pairs: list, path: str, container: object) -> None:
        for start in range(0, len(pairs), 1000):  # as pickle batches them
            self.out += b"("  # MARK
            for key, value in pairs[start : start + 1000]:
                self._save(key, f"a key of {path}")
                self._save(value, f"{path}[{key!r}]")
            self.out += b"u"  # SETITEMS

    # -- values --

    def _save(self, obj: object, path: str) -> None:
        if obj is None:
            self.out += b"N"
        elif type(obj) is bool or isinstance(obj, np.bool_):
            self.out += b"\x88" if obj else b"\x89"
        elif isinstance(obj, (int, np.integer)):
            self._int(int(obj))
        elif isinstance(obj, (float, np.floating)):
            self.out += b"G" + struct.pack(">d", float(obj))
        elif isinstance(obj, str):
            self._str(str(obj))
        elif self._get(obj):
            pass
        elif isinstance(obj, Tensor):
            self._tensor(obj, path)
        elif isinstance(obj, Size):
            self._global("torch", "Size")
            self._save(tuple(obj), path)
            self.out += b"\x85R"  # TUPLE1 REDUCE
        elif isinstance(obj, _dtypes.DType):
            self._global("torch", obj.name)
        elif type(obj) is collections.OrderedDict:
            self._empty_ordered_dict()
            self._memoize(obj)
            self._items(list(obj.items()), path, obj)
            if vars(obj):  # a state_dict's _metadata
                self._save(dict(vars(obj)), f"{path}'s attributes")
                self.out += b"b"  # BUILD
        elif type(obj) is dict:
            self.out += b"}"
            self._memoize(obj)
            self._items(list(obj.items()), path, obj)
        elif type(obj) is list:
            self.out += b"]"
            self._memoize(obj)
            for start in range(0, len(obj), 1000):
                self.out += b"("
                for i, item in enumerate(obj[start : start + 1000], start):
                    self._save(item, f"{path}[{i}]")
                self.out += b"e"  # APPENDS
        elif type(obj) is tuple:
            self._tuple(obj, path)
        elif type(obj) is set:
            self._global("builtins", "set")
            self._save(sorted(obj, key=repr), path)
            self.out += b"\x85R"
        elif type(obj) is complex:
            self._global("builtins", "complex")
            self._save((obj.real, obj.imag), path)
            self.out += b"R"
        elif type(obj) is bytes:
            self._global("_codecs", "encode")
            self._save((obj.decode("latin-1"), "latin1"), path)
            self.out += b"R"
        elif type(obj) is bytearray:
            self._global("builtins", "bytearray")
            self._save((bytes(obj),), path)
            self.out += b"R"
        else:
            raise TypeError(_cannot_write(obj, path))

    def _tuple(self, obj: tuple, path: str) -> None:
        if id(obj) in self._open_tuples:
            raise ValueError(f"agv.save(..., format='torch'): {path} is a tuple that contains itself")
        self._open_tuples.add(id(obj))
        if not obj:
            self.out += b")"
        else:
            if len(obj) > 3:
                self.out += b"("
            for i, item in enumerate(obj):
                self._save(item, f"{path}[{i}]")
            self.out += {1: b"\x85", 2: b"\x86", 3: b"\x87"}.get(len(obj), b"t")
        self._open_tuples.discard(id(obj))

    def _tensor(self, t: Tensor, path: str) -> None:
        # what pickling the tensor gives (the agv file format): its array, whether it is a leaf
        # that requires grad, and its marks; its .grad and name are not torch's to keep
        _, (array, requires_grad, _, marks) = t.__reduce_ex__(2)
        storage_class = _STORAGE_OF.get(array.dtype.newbyteorder("="))
        if storage_class is None:
            raise TypeError(
                f"agv.save(..., format='torch'): {path} has the dtype {array.dtype}, which torch can't read"
            )
        key, numel, offset, stride = self._storage_for(array)
        is_parameter = bool(marks and marks.get("parameter"))
        requires_grad = bool(requires_grad)
        if is_parameter:  # torch._utils._rebuild_parameter(data, requires_grad, hooks)
            self._global("torch._utils", "_rebuild_parameter")
            self.out += b"("
        self._global("torch._utils", "_rebuild_tensor_v2")
        self.out += b"("  # (storage, offset, size, stride, requires_grad, backward hooks)
        self.out += b"("
        self._str("storage")
        self._global("torch", storage_class)
        self._str(key)
        self._str("cpu")
        self._int(numel)
        self.out += b"tQ"  # TUPLE BINPERSID
        self._int(offset)
        self._save(tuple(array.shape), path)
        self._save(stride, path)
        self.out += b"\x88" if requires_grad and not is_parameter else b"\x89"
        self._empty_ordered_dict()
        self.out += b"tR"  # TUPLE REDUCE
        if is_parameter:
            self.out += b"\x88" if requires_grad else b"\x89"
            self._empty_ordered_dict()
            self.out += b"tR"
        self._memoize(t)

    def _storage_for(self, array: np.ndarray) -> tuple[str, int, int, tuple]:
        """The storage a tensor views, its size, and the tensor's offset and strides in it.
        Tensors that view one numpy array (x and x.T, a state_dict entry and the
        parameter it detaches) share one storage, as in torch."""
        root = array
        while isinstance(root.base, np.ndarray):
            root = root.base
        block = _memory_block(root)
        itemsize = array.dtype.itemsize
        if (
            block is not None
            and array.size
            and root.dtype == array.dtype
            and array.dtype.isnative
            and _LITTLE_ENDIAN
        ):
            start = _address(array) - _address(block)
            if start % itemsize == 0 and all(s % itemsize == 0 for s in array.strides):
                offset = start // itemsize
                stride = tuple(
                    s // itemsize if n > 1 else c
                    for s, n, c in zip(array.strides, array.shape, _contiguous_strides(array.shape))
                )
                last = offset + sum((n - 1) * s for n, s in zip(array.shape, stride))
                if offset >= 0 and all(s >= 0 for s in stride) and last < block.size:
                    return self._key(root, block), block.size, offset, stride
        own = np.ascontiguousarray(array).astype(array.dtype.newbyteorder("<"), copy=False).reshape(-1)
        return self._key(own, own), own.size, 0, _contiguous_strides(array.shape)

    def _key(self, root: np.ndarray, block: np.ndarray) -> str:
        found = self._storage_keys.get((id(root), block.dtype.str))
        if found is None:
            key = str(len(self.storages))
            found = (key, root)
            self._storage_keys[(id(root), block.dtype.str)] = found
            self.storages.append((key, block))
        return found[0]


def _cannot_write(obj: object, path: str) -> str:
    kind = type(obj).__name__
    hint = ""
    if isinstance(obj, np.ndarray):
        hint = " (torch.load refuses numpy arrays: make it a tensor with agv.tensor(array))"
    elif hasattr(obj, "state_dict") and hasattr(obj, "parameters"):
        hint = " (a whole model: save model.state_dict(), and load it into the model with load_state_dict)"
    return (
        f"agv.save(..., format='torch') writes tensors, numbers, strings, None, and dicts, OrderedDicts, "
        f"lists, tuples and sets of them, as torch.load(weights_only=True) reads them back; {path} is a {kind}{hint}"
    )


def _padded_info(name: str, offset: int, alignment: int = 64) -> zipfile.ZipInfo:
    """A record whose data starts at a multiple of `alignment` in the file, as torch.save
    aligns storages (torch.load(mmap=True) maps them in place). The padding is an extra
    field of the local header, id "FB", as torch's writer makes it."""
    info = zipfile.ZipInfo(name)  # date 1980-01-01: the same checkpoint gives the same bytes
    info.compress_type = zipfile.ZIP_STORED
    header = 30 + len(name.encode("utf-8"))
    pad = -(offset + header + 4) % alignment
    info.extra = b"FB" + struct.pack("<H", pad) + b"Z" * pad
    return info


def write_zip(obj: object) -> bytes:
    """The bytes of a torch.save zip file holding `obj`."""
    pickler = TorchPickler()
    data_pkl = pickler.dump(obj)
    buffer = io.BytesIO()
    records = [
        ("data.pkl", data_pkl),
        (".format_version", b"1"),
        (".storage_alignment", b"64"),
        ("byteorder", b"little"),
    ]
    records += [(f"data/{key}", block.tobytes()) for key, block in pickler.storages]
    records += [("version", b"3\n")]
    digest = hashlib.sha1(b"".join(content for _, content in records)).digest()[:16]
    records += [(".data/serialization_id", f"{int.from_bytes(digest, 'big'):040d}".encode("ascii"))]
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_STORED) as archive:
        for name, content in records:
            archive.writestr(_padded_info(f"archive/{name}", buffer.tell()), content)
    return buffer.getvalue()
