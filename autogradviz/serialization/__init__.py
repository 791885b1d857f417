"""`agv.save` and `agv.load`: PyTorch's spellings for keeping a model between sessions.

    agv.save(model.state_dict(), "model.agv")
    model.load_state_dict(agv.load("model.agv"))

`agv.save` writes Python's pickle, as torch.save does underneath. A plain pickle
can run any code the file names while it is read, so `agv.load` reads it, as
`torch.load` does since PyTorch 2.6, with `weights_only=True`: its own pickle
interpreter (unpickler.py), which builds only tensors, numpy arrays, numbers,
strings and containers of them, refuses any other global the file names before
it can be called, and checks every size the file declares against the bytes
really in it (reading.py). `agv.load(f, weights_only=False)` is the full
pickle, for files you trust (a whole saved model needs it).

Checkpoints move both ways with PyTorch (torch_files.py), without torch:

    agv.load("resnet.pt")                                  # a torch.save file, either format
    agv.save(model.state_dict(), "model.pt", format="torch")   # for torch.load(weights_only=True)

Reading order:

1. this file: `save` and `load`, and how `load` tells an agv file from a torch one;
2. `reading.py`: `BoundedReader` (no declared size believed unchecked), `Budget`, `LoadError`;
3. `unpickler.py`: the pickle interpreter, one small function per opcode;
4. `allowed.py`: what a file may name, and the checks each allowed function makes;
5. `torch_files.py`: PyTorch's two file layouts, read, and its zip layout, written.
"""

from __future__ import annotations

import io
import os
import pickle
from typing import IO, Any, Literal

from ..core import device as _device
from ..core import tensor as _tensor
from . import torch_files
from .allowed import AGV_FILE_MARK, AGV_GLOBALS, refuse
from .reading import BoundedReader, LoadError, budget_for
from .unpickler import CallerError, RestrictedUnpickler

__all__ = ["save", "load", "LoadError"]

FileLike = str | os.PathLike | IO[bytes]  # what torch.save and torch.load accept

# The first bytes of every agv.save file: a global, named by a sentence, that pickle
# looks up and drops (GLOBAL, POP) before the object itself. pickle.load and agv.load
# pass over it; torch.load, which refuses any global it does not know, names it in its
# error: "Unsupported global: GLOBAL autogradviz.serialization.this_is_an_agv_save_file__
# torch_load_reads_files_from_agv_save_with_format_torch", where it used to say
# "Unsupported operand 149". (A default file can't be one torch.load reads: it must stay
# a plain pickle, which a torch file is not.)
this_is_an_agv_save_file__torch_load_reads_files_from_agv_save_with_format_torch = (
    "This file was written by agv.save: read it with agv.load. torch.load reads files written with "
    "agv.save(obj, f, format='torch')."
)
_AGV_FILE_START = (
    b"\x80\x02c" + f"{__name__}\n{AGV_FILE_MARK}\n".encode("ascii") + b"0"
)  # PROTO 2, GLOBAL, POP


def _check_binary(f: object, function: str, mode: str) -> None:
    # pickle's own error for a text file ("a bytes-like object is required") does not say what to change
    if isinstance(f, io.TextIOBase):
        raise TypeError(
            f"agv.{function} needs a path or a file opened in binary mode ({mode!r}), not a text file"
        )


def save(obj: object, f: FileLike, *, format: Literal["agv", "torch"] = "agv") -> None:
    """Write `obj` (a state_dict, a tensor, a whole model, an optimizer's
    state_dict...) to `f`: a path (str or os.PathLike), or a file opened for
    writing in binary ("wb"), like torch.save. `agv.load(f)` reads back
    everything but a whole model, which needs `agv.load(f, weights_only=False)`.

    `format="agv"` (the default) is a plain pickle of autogradviz's objects: it
    keeps everything (a tensor's .grad and name too), and any pickle reader with
    autogradviz installed reads it. torch.load does not.

    `format="torch"` writes PyTorch's own zip format, which
    `torch.load(f, weights_only=True)` reads into torch tensors, with their
    dtypes, shapes, strides and shared storages: a state_dict from it loads into
    the same model written in PyTorch. It holds what torch's safe loader reads
    (tensors, Parameters, torch.Size, dtypes, numbers, strings, None, bytes, and
    dicts, OrderedDicts, lists, tuples and sets of them); a tensor's .grad and
    name are not kept, as torch.save does not keep them; numpy numbers become
    Python numbers. Anything else raises TypeError, naming where it is, before
    the file is touched.
    """
    if format not in ("agv", "torch"):
        raise ValueError(f"agv.save: format must be 'agv' or 'torch', not {format!r}")
    if not isinstance(f, (str, os.PathLike)):
        _check_binary(f, "save", "wb")
    data = torch_files.write_zip(obj) if format == "torch" else None  # fails before a file is opened
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as file:
            _write(obj, file, data)
    else:
        _write(obj, f, data)


def _write(obj: object, file: IO[bytes], torch_zip: bytes | None) -> None:
    if torch_zip is not None:
        file.write(torch_zip)
        return
    file.write(_AGV_FILE_START)
    pickle.dump(obj, file, protocol=pickle.HIGHEST_PROTOCOL)


def load(
    f: FileLike,
    map_location=None,
    pickle_module=None,
    *,
    weights_only: bool | None = True,
    mmap: bool | None = None,
) -> Any:
    """Read back what `save` wrote, from a path (str or os.PathLike) or a file
    opened for reading in binary ("rb").

    With `weights_only=True`, the default (None means the default, as in
    torch.load), the file may hold only tensors (Parameters too), numpy arrays
    and scalars, agv dtypes, Python numbers, strings, bytes, None, and
    dicts/OrderedDicts/lists/tuples/sets of them: what a state_dict, an
    optimizer's state_dict or a checkpoint dict is made of. Any other global the
    file names (a class, or a function such as os.system) raises
    `agv.serialization.LoadError` (a `pickle.UnpicklingError`) naming it, before
    it is called. So does a file that is truncated or damaged, or that declares
    sizes its bytes don't hold: the loader believes no size it has not checked,
    and builds at most a few bytes per byte of the file.

    A file from `torch.save` is read too, in either of its formats (zip, and
    the legacy one of `_use_new_zipfile_serialization=False`), without torch:
    its tensors become agv tensors with the same values, dtypes, shapes and
    strides, and tensors that share a storage share memory. float16 and
    bfloat16 tensors load as float32 (and uint16/uint32 as int64), with the
    same values and a warning; complex and quantized ones raise. Tensors saved
    from a GPU load on the CPU, as with map_location="cpu". A torch file is
    always read this safe way, whatever `weights_only` says (a whole model saved
    with torch.save(model) needs torch.load).

    `weights_only=False` reads the file as a full pickle. WARNING: that runs any
    code the file contains, with your permissions; use it only for files you
    made yourself or otherwise trust. A whole model saved with `agv.save(model,
    f)` needs it (its classes are globals); saving `model.state_dict()` does not.

    `map_location` is torch.load's, for code written to move a checkpoint
    between devices. Every tensor here was saved on the CPU and is loaded there,
    so it may say "cpu" in any of torch's forms: "cpu", `agv.device("cpu")`,
    a dict of saved location -> new location (`{"cuda:0": "cpu"}`; only the
    entry for "cpu" applies), or a function `f(tensor, "cpu")` called for each
    tensor (torch passes a storage; here it gets the tensor), which returns the
    tensor to use, or None to keep it. Asking for another device ("cuda")
    raises the CPU-only error of `agv.device`, before the file is read.
    `pickle_module` (only `pickle`) and `mmap` (only None or False) are accepted
    for the same reason.
    """
    if weights_only not in (True, False, None):
        raise TypeError(f"agv.load: weights_only must be True or False, not {weights_only!r}")
    if pickle_module not in (None, pickle):
        raise TypeError(f"agv.load: pickle_module must be the pickle module (or None), not {pickle_module!r}")
    if mmap:
        raise RuntimeError("agv.load: mmap=True is not supported; the file is read into memory")
    mapper = _tensor_mapper(map_location)  # checked first: a refused device costs no reading
    restricted = weights_only is None or bool(weights_only)
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as file:
            return _load(file, restricted, mapper)
    _check_binary(f, "load", "rb")
    return _load(f, restricted, mapper)


def _tensor_mapper(map_location):
    """What `map_location` asks to do with each loaded tensor: None (nothing),
    or a function of the tensor. Devices other than the CPU raise here."""
    if map_location is None:
        return None
    if callable(map_location) and not isinstance(map_location, _device.device):
        return _call_for_each_tensor(map_location)
    if isinstance(map_location, dict):
        for saved, target in map_location.items():
            if not isinstance(saved, (str, _device.device)) or not isinstance(target, (str, _device.device)):
                raise TypeError(
                    "agv.load: a map_location dict maps location strings to location strings, "
                    f"as {{'cuda:0': 'cpu'}}; got {saved!r}: {target!r}"
                )
        # every tensor in the file was saved from the CPU: only the "cpu" entry moves anything
        target = map_location.get("cpu")
        if target is not None:
            _device.check(target, "the loaded tensors")
        return None
    if isinstance(map_location, (str, _device.device, int)) and not isinstance(map_location, bool):
        _device.check(map_location, "the loaded tensors")
        return None
    raise TypeError(
        "agv.load: map_location should be a string, a device, a dict or a function, "
        f"not {type(map_location).__name__}"
    )


def _call_for_each_tensor(function):
    """torch.load's map_location function, called as `function(tensor, "cpu")`."""

    def mapped(t: _tensor.Tensor) -> _tensor.Tensor:
        result = function(t, "cpu")
        if result is None:
            return t
        if not isinstance(result, _tensor.Tensor):
            raise TypeError(
                "agv.load: the map_location function must return a tensor (or None), not "
                f"{type(result).__name__}"
            )
        return result

    return mapped


class _MappingUnpickler(pickle.Unpickler):
    """The full pickle (weights_only=False), with map_location's function applied
    to each tensor as it is built."""

    def __init__(self, file, mapper):
        super().__init__(file)
        self._mapper = mapper

    def find_class(self, module: str, name: str) -> Any:
        found = super().find_class(module, name)
        if found is _tensor._rebuild:
            return _mapped_rebuild(found, self._mapper)
        return found


def _mapped_rebuild(rebuild, mapper):
    def rebuild_and_map(*args):
        return mapper(rebuild(*args))

    return rebuild_and_map


def _load(file: IO[bytes], restricted: bool, mapper=None) -> Any:
    reader = BoundedReader(file)
    try:
        if reader.peek(4) == torch_files.ZIP_MAGIC:
            return torch_files.read_zip(reader, mapper)
        if restricted:
            first = RestrictedUnpickler(
                reader, budget_for(reader), AGV_GLOBALS, refuse, each_tensor=mapper
            ).load()
        else:
            file = reader.rewound() or _Rewound(reader.take_head(), file)
            first = pickle.load(file) if mapper is None else _MappingUnpickler(file, mapper).load()
            reader = BoundedReader(file)
        if type(first) is int and first == torch_files.MAGIC_NUMBER:  # a legacy torch.save file
            return torch_files.read_legacy(reader, mapper)
        reader.give_back()
        return first
    except CallerError as error:  # map_location's function raised: its own exception
        raise error.original from None


class _Rewound:
    """The file from where reading started, for the full pickle: the bytes looked at
    to tell the file's format first, then the rest of the file."""

    def __init__(self, head: bytes, file: IO[bytes]):
        self._head = head
        self._file = file

    def seekable(self) -> bool:
        return False

    def read(self, size: int = -1) -> bytes:
        head, self._head = (self._head, b"") if size < 0 else (self._head[:size], self._head[size:])
        if size < 0:
            return head + self._file.read()
        return head + (self._file.read(size - len(head)) if size > len(head) else b"")

    def readline(self, size: int = -1) -> bytes:
        cut = self._head.find(b"\n")
        if cut >= 0:
            line, self._head = self._head[: cut + 1], self._head[cut + 1 :]
            return line
        line, self._head = self._head, b""
        return line + self._file.readline()
