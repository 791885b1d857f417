"""`agv.save` and `agv.load`: PyTorch's spellings for keeping a model between sessions.

    agv.save(model.state_dict(), "model.agv")
    model.load_state_dict(agv.load("model.agv"))

Both use Python's pickle, as torch.save does underneath. A plain pickle can run
any code the file names while it is read, so `agv.load` reads it, as
`torch.load` does since PyTorch 2.6, with `weights_only=True`: a restricted
unpickler that builds only tensors, numpy arrays, numbers, strings and
containers of them, and refuses any other global the file names before it can
be called. `agv.load(f, weights_only=False)` is the full pickle, for files you
trust (a whole saved model needs it).
"""

from __future__ import annotations

import _compat_pickle
import codecs
import collections
import io
import os
import pickle
from typing import IO, Any

import numpy as np

from .core import device as _device
from .core import dtypes as _dtypes
from .core import tensor as _tensor

try:  # numpy 2 moved numpy.core to numpy._core; pickles name whichever wrote them
    from numpy._core import multiarray as _multiarray
    from numpy._core import numeric as _numeric
except ImportError:  # numpy 1.x
    from numpy.core import multiarray as _multiarray
    from numpy.core import numeric as _numeric

__all__ = ["save", "load"]

FileLike = str | os.PathLike | IO[bytes]  # what torch.save and torch.load accept

_REFUSED = (
    "agv.load: refused to load the global {name!r} from this file: with weights_only=True (the default) "
    "a file may hold only tensors, arrays, numbers, strings and dicts/lists/tuples of them. "
    "If you trust the file, load it with weights_only=False."
)


def _refuse_tensor(why: str) -> pickle.UnpicklingError:
    return pickle.UnpicklingError(
        f"agv.load: refused a tensor in this file: {why}. agv.save never writes such a tensor, and with "
        "weights_only=True (the default) it is not built. If you trust the file, load it with "
        "weights_only=False."
    )


def _is_number_array(value: object) -> bool:
    # object arrays are refused: their items would be whatever the file put there, not numbers
    return isinstance(value, np.ndarray) and value.dtype.kind in "biuf"


def _rebuild_tensor(data, requires_grad, grad, meta) -> _tensor.Tensor:
    """What the allowlist calls for `autogradviz.core.tensor._rebuild`, the function
    `Tensor.__reduce_ex__` names. It checks the arguments first, so that a crafted
    file can only make the kind of tensor `agv.save` writes: numbers, a bool flag,
    a grad of numbers, and no extras but a name and the Parameter mark (hooks and
    graph links are never saved, so a file that carries them was not made by us)."""
    if not _is_number_array(data):
        raise _refuse_tensor("its data is not an array of numbers")
    if grad is not None and not _is_number_array(grad):
        raise _refuse_tensor("its .grad is not an array of numbers")
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
    return _tensor._rebuild(data, requires_grad, grad, meta)


def _encode_latin1(text, encoding: str = "utf-8", errors: str = "strict") -> bytes:
    """Pickle protocols 0-2 write bytes (and so numpy arrays' buffers) as
    `_codecs.encode(text, "latin1")`. Only that codec is let through: the others
    (zlib, bz2, base64...) are not something a data file needs to call."""
    if encoding not in ("latin1", "latin-1") or not isinstance(text, str):
        raise pickle.UnpicklingError(
            f"agv.load: refused to decode with the codec {encoding!r}: with weights_only=True (the default) "
            "a file may use only 'latin1', the codec pickle itself writes. If you trust the file, load it "
            "with weights_only=False."
        )
    return codecs.encode(text, encoding, errors)


def _allowed_globals() -> dict[str, object]:
    """Every global a weights_only file may name, as "module.name" -> the object to
    use. Found by listing the globals in the pickles of tensors, state_dicts and
    optimizer state_dicts under protocols 0 to 5 and numpy 1.x and 2.x. Each entry
    either builds plain data or checks what it builds; none of them can reach
    another callable, so a file can't climb from here to os.system or exec."""
    allowed: dict[str, object] = {
        f"builtins.{t.__name__}": t
        for t in (
            dict,
            list,
            tuple,
            set,
            frozenset,
            int,
            float,
            complex,
            bool,
            str,
            bytes,
            bytearray,
            slice,
            range,
        )
    }
    allowed["collections.OrderedDict"] = collections.OrderedDict  # Module.state_dict() returns one
    allowed["_codecs.encode"] = _encode_latin1  # bytes under protocols 0-2
    allowed["autogradviz.core.tensor._rebuild"] = _rebuild_tensor  # tensors, Parameters included
    allowed["autogradviz.core.dtypes.to_dtype"] = _dtypes.to_dtype  # agv.float32 and friends
    allowed["numpy.ndarray"] = np.ndarray
    allowed["numpy.dtype"] = np.dtype
    # both spellings map to the installed numpy, so a file written under numpy 1.x
    # loads under 2.x and the other way round
    for package in ("numpy.core", "numpy._core"):
        allowed[f"{package}.multiarray._reconstruct"] = _multiarray._reconstruct  # protocols 0-4
        allowed[f"{package}.numeric._frombuffer"] = _numeric._frombuffer  # protocol 5
        allowed[f"{package}.multiarray.scalar"] = _multiarray.scalar  # numpy scalars such as np.float64(0.5)
    # a pickled dtype class (type(array.dtype)) names numpy.dtypes.Float32DType and so on
    for attr, value in vars(getattr(np, "dtypes", object())).items():
        if isinstance(value, type) and issubclass(value, np.dtype) and value is not np.dtype:
            try:
                kind = value().kind
            except (TypeError, ValueError):  # StrDType and the like need arguments: not numbers anyway
                continue
            if kind in "biufc":
                allowed[f"numpy.dtypes.{attr}"] = value
    return allowed


_ALLOWED = _allowed_globals()


class _WeightsUnpickler(pickle.Unpickler):
    """Pickle's own way to restrict a file (the "Restricting Globals" recipe of the
    pickle docs): every global the file names, under any opcode, goes through
    find_class, so refusing there means a refused function is never called."""

    _mapper = None  # map_location's function of each tensor, if there is one

    def find_class(self, module: str, name: str) -> Any:
        # files written with protocol 0-2 use Python 2's names (__builtin__.set, __builtin__.xrange);
        # pickle's find_class renames them the same way. The result must still be on the list.
        key = (module, name)
        if key in _compat_pickle.NAME_MAPPING:
            key = _compat_pickle.NAME_MAPPING[key]
        elif module in _compat_pickle.IMPORT_MAPPING:
            key = (_compat_pickle.IMPORT_MAPPING[module], name)
        found = _ALLOWED.get(f"{key[0]}.{key[1]}")
        if found is None:
            raise pickle.UnpicklingError(_REFUSED.format(name=f"{module}.{name}"))
        if found is _rebuild_tensor and self._mapper is not None:
            return _mapped_rebuild(found, self._mapper)  # agv.load's map_location function
        return found

    def persistent_load(self, pid: Any) -> Any:
        # agv.save writes no persistent ids; torch.save's legacy format does
        raise pickle.UnpicklingError(
            "agv.load: this file refers to objects stored outside the pickle (persistent ids), which "
            "agv.save never writes. A file from torch.save is read with torch.load."
        )


def _check_binary(f: object, function: str, mode: str) -> None:
    # pickle's own error for a text file ("a bytes-like object is required") does not say what to change
    if isinstance(f, io.TextIOBase):
        raise TypeError(
            f"agv.{function} needs a path or a file opened in binary mode ({mode!r}), not a text file"
        )


def save(obj: object, f: FileLike) -> None:
    """Write `obj` (a state_dict, a tensor, a whole model, an optimizer's
    state_dict...) to `f`: a path (str or os.PathLike), or a file opened for
    writing in binary ("wb"), like torch.save. `agv.load(f)` reads back
    everything but a whole model, which needs `agv.load(f, weights_only=False)`."""
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as file:
            pickle.dump(obj, file, protocol=pickle.HIGHEST_PROTOCOL)
    else:
        _check_binary(f, "save", "wb")
        pickle.dump(obj, f, protocol=pickle.HIGHEST_PROTOCOL)


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
    `pickle.UnpicklingError` naming it, before it is called.

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
    if restricted:
        unpickler = _WeightsUnpickler(file)
        unpickler._mapper = mapper
        return unpickler.load()
    if mapper is None:
        return pickle.load(file)
    return _MappingUnpickler(file, mapper).load()
