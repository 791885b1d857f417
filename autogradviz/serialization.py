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


def load(f: FileLike, weights_only: bool | None = True) -> Any:
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
    """
    if weights_only not in (True, False, None):
        raise TypeError(f"agv.load: weights_only must be True or False, not {weights_only!r}")
    restricted = weights_only is None or bool(weights_only)
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as file:
            return _load(file, restricted)
    _check_binary(f, "load", "rb")
    return _load(f, restricted)


def _load(file: IO[bytes], restricted: bool) -> Any:
    if restricted:
        return _WeightsUnpickler(file).load()
    return pickle.load(file)
