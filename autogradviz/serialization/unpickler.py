"""A pickle interpreter that calls only what it is given, and only on a budget.

A pickle is a small program for a stack machine: opcodes push numbers and
strings, build lists and dicts, look up a global by name (GLOBAL) and call it
(REDUCE). Python's own `pickle.load` calls whatever the file names, which is
why loading an untrusted pickle can run any code. This interpreter, like
torch.load's weights_only unpickler, runs the opcodes itself:

- GLOBAL looks the name up in a table of allowed globals; any other name is
  refused before anything is called. An entry says what GLOBAL pushes and, if
  the global may be called at all, the checked function REDUCE calls instead of
  it. That function checks its arguments (types, sizes against the bytes in the
  file) before it builds anything: `set` accepts a list the file spelled out,
  never a `range` whose length is a number in the file.
- BUILD (setting an object's state) applies only to objects a checked function
  made and asked to finish (a numpy array, a numpy dtype), and to an
  OrderedDict's attributes (a state_dict's `_metadata`).
- APPEND goes to lists, SETITEM to dicts, ADDITEMS to sets, and nothing else:
  no method of an object the file made is ever looked up.
- Every size in an opcode is checked against what is left of the file
  (`BoundedReader`), and a dict key or set item is hashed only if hashing it
  is cheap: a tuple made of the same tuple twice, nested a hundred times, has
  2**100 leaves, and Python's hash would visit every one of them.

Anything wrong in the file raises `LoadError`, naming the opcode and its byte.
"""

from __future__ import annotations

import _compat_pickle
import codecs
import pickle
import pickletools
import struct
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from .reading import BoundedReader, Budget, LoadError

# hashing a tuple visits every leaf of it (shared pieces once per path): a dict key or set
# item with more leaves is refused. No tuple may nest deeper than TUPLE_DEPTH: Python hashes
# a tuple by recursion in C, which a tuple nested 100,000 deep would crash.
HASHED_TUPLE_LEAVES = 100_000
TUPLE_DEPTH = 100

_OPCODE_NAMES = {op.code.encode("latin-1")[0]: op.name for op in pickletools.opcodes}


@dataclass(frozen=True)
class Allowed:
    """One global a file may name: `value` is what GLOBAL puts on the stack;
    `call(unpickler, *args)`, if there is one, is what REDUCE and NEWOBJ run when
    the file calls that value. A global without `call` may only be passed around."""

    value: object
    call: Callable[..., object] | None = None


class CallerError(Exception):
    """Carries an exception raised by the caller's own code (a map_location
    function) through the interpreter, which would otherwise report it as a fault of the file."""

    def __init__(self, original: BaseException):
        super().__init__(str(original))
        self.original = original


def python2_name(module: str, name: str) -> tuple[str, str]:
    """Protocols 0-2 spell builtins as Python 2 did (__builtin__.set, __builtin__.xrange);
    pickle's own find_class renames them the same way."""
    if (module, name) in _compat_pickle.NAME_MAPPING:
        return _compat_pickle.NAME_MAPPING[(module, name)]
    if module in _compat_pickle.IMPORT_MAPPING:
        return _compat_pickle.IMPORT_MAPPING[module], name
    return module, name


class RestrictedUnpickler:
    """Reads one pickle from `reader`. `allowed` maps "module.name" to what the
    file may use; `refuse(spelled_name)` makes the error for any other global;
    `persistent_load(pid)`, if given, answers a persistent id (torch.save's storages)."""

    def __init__(
        self,
        reader: BoundedReader,
        budget: Budget,
        allowed: dict[str, Allowed],
        refuse: Callable[[str], LoadError],
        persistent_load: Callable[[object], object] | None = None,
        each_tensor: Callable[[object], object] | None = None,
    ):
        self.reader = reader
        self.budget = budget
        self._allowed = allowed
        self._refuse = refuse
        self._persistent_load = persistent_load
        self._each_tensor = each_tensor  # map_location's function, if the caller gave one
        # what REDUCE may call, by the identity of the value GLOBAL pushed
        self._calls = {id(entry.value): (entry.value, name, entry.call) for name, entry in allowed.items()}
        self._names = {id(entry.value): name for name, entry in allowed.items()}
        self._pending_builds: dict[int, tuple[object, Callable[[object], None]]] = {}
        self._tuples: dict[int, tuple[tuple, int, int]] = {}  # id -> (the tuple, leaves, depth)

    # -- what the checked functions use ------------------------------------------------------------

    def expect_build(self, obj: object, finish: Callable[[object], None]) -> None:
        """`obj` was made unfinished (a numpy array before its data): BUILD will call finish(state)."""
        self._pending_builds[id(obj)] = (obj, finish)

    def note_tuple(self, value: tuple) -> tuple:
        """Record how costly hashing this new tuple would be (its leaves and depth), if it
        holds tuples: a tuple of plain values costs its length, which needs no record."""
        leaves, depth = 1 + len(value), 1
        for item in value:
            if type(item) is tuple:
                item_leaves, item_depth = self._tuple_cost(item)
                leaves = min(leaves + item_leaves, HASHED_TUPLE_LEAVES + 1)
                depth = max(depth, item_depth + 1)
        if depth > TUPLE_DEPTH:
            raise LoadError(
                f"agv.load: this file is hostile or damaged: it nests tuples more than {TUPLE_DEPTH} deep, "
                "which no checkpoint does (and which crashes Python when such a tuple is hashed)"
            )
        if depth > 1:
            self._tuples[id(value)] = (value, leaves, depth)  # the tuple is kept: its id stays its own
        return value

    def _tuple_cost(self, value: tuple) -> tuple[int, int]:
        record = self._tuples.get(id(value))
        if record is not None and record[0] is value:
            return record[1], record[2]
        return 1 + len(value), 1  # made without tuples inside, or not by this file

    def check_hashable(self, key: object, where: str) -> None:
        """Refuse a dict key or set item whose hash would take too long (a tuple of tuples...)."""
        if type(key) is tuple:
            leaves, _ = self._tuple_cost(key)
            if leaves > HASHED_TUPLE_LEAVES:
                raise LoadError(
                    f"agv.load: this file is hostile or damaged: {where} is a tuple of tuples that unfolds "
                    f"to more than {HASHED_TUPLE_LEAVES:,} items (the same tuple used many times): hashing "
                    "it could take hours"
                )

    def each_tensor(self, tensor):
        """Every tensor the file builds passes through here: map_location's function sees it."""
        if self._each_tensor is None:
            return tensor
        try:
            return self._each_tensor(tensor)
        except Exception as error:  # the caller's code failed, not the file
            raise CallerError(error) from error

    def name_of(self, value: object) -> str:
        """The allowed global's name, for messages (or the value's type)."""
        name = self._names.get(id(value))
        return name if name is not None else type(value).__name__

    # -- the machine -------------------------------------------------------------------------------

    def load(self) -> object:
        self.stack: list = []
        self.metastack: list[list] = []
        self.memo: dict[int, object] = {}
        reader = self.reader
        if not reader.peek(1):
            raise LoadError("agv.load: the file is empty")
        while True:
            position = reader.consumed
            code = reader.read_byte()
            if code is None:
                raise LoadError(
                    f"agv.load: the file is truncated: it ends at byte {position:,}, before the end of its pickle"
                )
            handler = _DISPATCH.get(code)
            if handler is None:
                raise self._not_an_opcode(code, position)
            try:
                if handler is _stop:
                    return self._pop()
                handler(self)
            except (LoadError, CallerError):
                raise
            except Exception as error:  # anything else a damaged file causes: one family, one message
                raise LoadError(
                    f"agv.load: this file is damaged or is not one agv.load reads: {_OPCODE_NAMES[code]} "
                    f"at byte {position:,} failed: {type(error).__name__}: {error}"
                ) from error

    def _not_an_opcode(self, code: int, position: int) -> LoadError:
        if position == 0:
            return LoadError(
                f"agv.load: this is not a file agv.save or torch.save writes: it starts with the byte "
                f"{code:#04x}, which does not begin a pickle or a zip archive"
            )
        return LoadError(
            f"agv.load: the file is damaged: the byte {code:#04x} at byte {position:,} is not a pickle opcode"
        )

    def _pop(self) -> object:
        if not self.stack:
            raise LoadError(
                f"agv.load: the file is damaged: at byte {self.reader.consumed - 1:,} an opcode takes a value "
                "from an empty stack"
            )
        return self.stack.pop()

    def _top(self) -> object:
        if not self.stack:
            raise LoadError(
                f"agv.load: the file is damaged: at byte {self.reader.consumed - 1:,} an opcode uses a value "
                "from an empty stack"
            )
        return self.stack[-1]

    def _pop_mark(self) -> list:
        if not self.metastack:
            raise LoadError(
                f"agv.load: the file is damaged: at byte {self.reader.consumed - 1:,} an opcode looks for a "
                "MARK that was never set"
            )
        items = self.stack
        self.stack = self.metastack.pop()
        return items

    def _read_size(self, fmt: str, what: str) -> int:
        size = struct.calcsize(fmt)
        return struct.unpack(fmt, self.reader.read(size, what))[0]

    def _read_counted(self, fmt: str, what: str) -> bytes:
        """A length (struct format `fmt`) and then that many bytes, checked against what is left."""
        return self.reader.read(self._read_size(fmt, f"the length of {what}"), what)

    def _push_global(self, module: str, name: str) -> None:
        key = python2_name(module, name)
        entry = self._allowed.get(f"{key[0]}.{key[1]}")
        if entry is None:
            raise self._refuse(f"{module}.{name}")  # named as the file spells it
        self.stack.append(entry.value)

    def call(self, func: object, args: object, opcode: str) -> object:
        """Call an allowed global through its checked function (REDUCE, NEWOBJ)."""
        known = self._calls.get(id(func))
        if known is None or known[0] is not func or known[2] is None:
            raise LoadError(
                f"agv.load: refused to call {self.name_of(func)} ({opcode}): with weights_only=True (the "
                "default) a file may call only the functions that build the data a checkpoint holds"
            )
        if type(args) is not tuple:
            raise LoadError(
                f"agv.load: the file is damaged: {opcode} got {type(args).__name__} for arguments"
            )
        return known[2](self, *args)

    def _set_items(self, target: object, items: list, opcode: str) -> None:
        if type(target) not in (dict, OrderedDict):
            raise LoadError(f"agv.load: refused {opcode} on a {type(target).__name__}: only dicts take items")
        if len(items) % 2:
            raise LoadError(f"agv.load: the file is damaged: {opcode} got an odd number of keys and values")
        for i in range(0, len(items), 2):
            self.check_hashable(items[i], "a dict key")
            target[items[i]] = items[i + 1]

    def _add_items(self, target: object, items: list) -> None:
        if type(target) is not set:
            raise LoadError(f"agv.load: refused ADDITEMS on a {type(target).__name__}: only sets take items")
        for item in items:
            self.check_hashable(item, "a set item")
        self.budget.charge(16 * len(items), "a set")
        target.update(items)

    def _decode_python2_string(self, data: bytes) -> str:
        # pickle's default for Python 2 str: ASCII (a Python 2 file needs encoding= to say otherwise)
        return data.decode("ascii")


# -- the opcodes, one function each: what pickle.py's _Unpickler does, with the checks above ----------


def _proto(u: RestrictedUnpickler) -> None:
    version = u.reader.read(1, "a protocol number")[0]
    if version > pickle.HIGHEST_PROTOCOL:
        raise LoadError(
            f"agv.load: the file asks for pickle protocol {version}, which this Python can't read"
        )


def _frame(u: RestrictedUnpickler) -> None:
    # protocol 4's frames only group opcodes for faster reading: check the length, read on
    length = u._read_size("<Q", "the length of a frame")
    left = u.reader.left()
    if left is not None and length > left:
        raise u.reader.truncated(length, "a frame")


def _stop(u: RestrictedUnpickler) -> None:  # handled in load(): it returns the top of the stack
    raise AssertionError


def _push(value: object) -> Callable[[RestrictedUnpickler], None]:
    def push(u: RestrictedUnpickler) -> None:
        u.stack.append(value)

    return push


def _empty(kind: type) -> Callable[[RestrictedUnpickler], None]:
    def empty(u: RestrictedUnpickler) -> None:
        u.stack.append(kind())

    return empty


def _int(u: RestrictedUnpickler) -> None:
    line = u.reader.readline("an INT")
    if line == b"00\n":
        u.stack.append(False)
    elif line == b"01\n":
        u.stack.append(True)
    else:
        u.stack.append(int(line, 0))  # Python refuses more than 4300 digits: bounded time


def _long(u: RestrictedUnpickler) -> None:
    digits = u.reader.readline("a LONG")[:-1]
    if digits.endswith(b"L"):
        digits = digits[:-1]
    u.stack.append(int(digits, 0))


def _float(u: RestrictedUnpickler) -> None:
    u.stack.append(float(u.reader.readline("a FLOAT")[:-1]))


def _fixed(fmt: str, what: str) -> Callable[[RestrictedUnpickler], None]:
    def fixed(u: RestrictedUnpickler) -> None:
        u.stack.append(u._read_size(fmt, what))

    return fixed


def _long_bytes(fmt: str) -> Callable[[RestrictedUnpickler], None]:
    def long_bytes(u: RestrictedUnpickler) -> None:
        data = u._read_counted(fmt, "a long integer")
        u.stack.append(int.from_bytes(data, "little", signed=True))

    return long_bytes


def _unicode_counted(fmt: str) -> Callable[[RestrictedUnpickler], None]:
    def unicode_counted(u: RestrictedUnpickler) -> None:
        u.stack.append(str(u._read_counted(fmt, "a string"), "utf-8", "surrogatepass"))

    return unicode_counted


def _unicode_line(u: RestrictedUnpickler) -> None:
    u.stack.append(str(u.reader.readline("a UNICODE string")[:-1], "raw-unicode-escape"))


def _bytes_counted(fmt: str, kind: type = bytes) -> Callable[[RestrictedUnpickler], None]:
    def bytes_counted(u: RestrictedUnpickler) -> None:
        data = u._read_counted(fmt, "a bytes object")
        if kind is bytearray:
            u.budget.charge(len(data), "a bytearray")
            data = bytearray(data)
        u.stack.append(data)

    return bytes_counted


def _string_line(u: RestrictedUnpickler) -> None:
    # protocol 0's Python 2 str: a quoted repr
    data = u.reader.readline("a STRING")[:-1]
    if len(data) < 2 or data[0] != data[-1] or data[:1] not in (b'"', b"'"):
        raise LoadError("agv.load: the file is damaged: a STRING is not quoted")
    u.stack.append(u._decode_python2_string(codecs.escape_decode(data[1:-1])[0]))


def _string_counted(fmt: str) -> Callable[[RestrictedUnpickler], None]:
    def string_counted(u: RestrictedUnpickler) -> None:
        u.stack.append(u._decode_python2_string(u._read_counted(fmt, "a string")))

    return string_counted


def _mark(u: RestrictedUnpickler) -> None:
    u.metastack.append(u.stack)
    u.stack = []


def _pop(u: RestrictedUnpickler) -> None:
    if u.stack:
        u.stack.pop()
    else:
        u._pop_mark()


def _pop_mark(u: RestrictedUnpickler) -> None:
    u._pop_mark()


def _dup(u: RestrictedUnpickler) -> None:
    u.stack.append(u._top())


def _tuple(u: RestrictedUnpickler) -> None:
    items = u._pop_mark()  # first: it changes which list u.stack is
    u.stack.append(u.note_tuple(tuple(items)))


def _tuple_n(n: int) -> Callable[[RestrictedUnpickler], None]:
    def tuple_n(u: RestrictedUnpickler) -> None:
        if len(u.stack) < n:
            raise LoadError(f"agv.load: the file is damaged: TUPLE{n} needs {n} values on the stack")
        items = tuple(u.stack[len(u.stack) - n :])
        del u.stack[len(u.stack) - n :]
        u.stack.append(u.note_tuple(items))

    return tuple_n


def _empty_tuple(u: RestrictedUnpickler) -> None:
    u.stack.append(())


def _list(u: RestrictedUnpickler) -> None:
    items = u._pop_mark()
    u.stack.append(items)


def _dict(u: RestrictedUnpickler) -> None:
    items = u._pop_mark()
    result: dict = {}
    u._set_items(result, items, "DICT")
    u.stack.append(result)


def _append(u: RestrictedUnpickler) -> None:
    item = u._pop()
    target = u._top()
    if type(target) is not list:
        raise LoadError(f"agv.load: refused APPEND to a {type(target).__name__}: only lists take items")
    target.append(item)


def _appends(u: RestrictedUnpickler) -> None:
    items = u._pop_mark()
    target = u._top()
    if type(target) is not list:
        raise LoadError(f"agv.load: refused APPENDS to a {type(target).__name__}: only lists take items")
    target.extend(items)


def _setitem(u: RestrictedUnpickler) -> None:
    value = u._pop()
    key = u._pop()
    u._set_items(u._top(), [key, value], "SETITEM")


def _setitems(u: RestrictedUnpickler) -> None:
    items = u._pop_mark()
    u._set_items(u._top(), items, "SETITEMS")


def _additems(u: RestrictedUnpickler) -> None:
    items = u._pop_mark()
    u._add_items(u._top(), items)


def _frozenset(u: RestrictedUnpickler) -> None:
    items = u._pop_mark()
    for item in items:
        u.check_hashable(item, "a frozenset item")
    u.budget.charge(16 * len(items), "a frozenset")
    u.stack.append(frozenset(items))


def _get(u: RestrictedUnpickler, index: int) -> None:
    if index not in u.memo:
        raise LoadError(
            f"agv.load: the file is damaged: it refers to memo entry {index:,}, which it never stored"
        )
    u.stack.append(u.memo[index])


def _get_line(u: RestrictedUnpickler) -> None:
    _get(u, int(u.reader.readline("a GET index")[:-1]))


def _get_fixed(fmt: str) -> Callable[[RestrictedUnpickler], None]:
    def get_fixed(u: RestrictedUnpickler) -> None:
        _get(u, u._read_size(fmt, "a memo index"))

    return get_fixed


def _put(u: RestrictedUnpickler, index: int) -> None:
    if index < 0:
        raise LoadError("agv.load: the file is damaged: a negative memo index")
    u.memo[index] = u._top()  # a dict: a memo index of 4 billion costs one entry, not 4 billion


def _put_line(u: RestrictedUnpickler) -> None:
    _put(u, int(u.reader.readline("a PUT index")[:-1]))


def _put_fixed(fmt: str) -> Callable[[RestrictedUnpickler], None]:
    def put_fixed(u: RestrictedUnpickler) -> None:
        _put(u, u._read_size(fmt, "a memo index"))

    return put_fixed


def _memoize(u: RestrictedUnpickler) -> None:
    _put(u, len(u.memo))


def _global(u: RestrictedUnpickler) -> None:
    module = u.reader.readline("a GLOBAL's module")[:-1].decode("utf-8")
    name = u.reader.readline("a GLOBAL's name")[:-1].decode("utf-8")
    u._push_global(module, name)


def _stack_global(u: RestrictedUnpickler) -> None:
    name = u._pop()
    module = u._pop()
    if type(name) is not str or type(module) is not str:
        raise LoadError("agv.load: the file is damaged: STACK_GLOBAL needs two strings")
    u._push_global(module, name)


def _reduce(u: RestrictedUnpickler) -> None:
    args = u._pop()
    func = u._pop()
    u.stack.append(u.call(func, args, "REDUCE"))


def _newobj(u: RestrictedUnpickler) -> None:
    args = u._pop()
    cls = u._pop()
    u.stack.append(u.call(cls, args, "NEWOBJ"))


def _newobj_ex(u: RestrictedUnpickler) -> None:
    kwargs = u._pop()
    args = u._pop()
    cls = u._pop()
    if kwargs != {}:
        raise LoadError("agv.load: refused NEWOBJ_EX with keyword arguments")
    u.stack.append(u.call(cls, args, "NEWOBJ_EX"))


def _build(u: RestrictedUnpickler) -> None:
    state = u._pop()
    target = u._top()
    pending = u._pending_builds.pop(id(target), None)
    if pending is not None and pending[0] is target:
        pending[1](state)
    elif type(target) is OrderedDict:
        # a Module's state_dict carries `_metadata` (versions of its layers) as an attribute
        if type(state) is not dict or not all(type(k) is str and not k.startswith("__") for k in state):
            raise LoadError("agv.load: refused BUILD on an OrderedDict: its attributes must be plain names")
        target.__dict__.update(state)
    else:
        raise LoadError(
            f"agv.load: refused BUILD on a {type(target).__name__}: with weights_only=True (the default) only "
            "arrays, dtypes and OrderedDicts get their state from the file"
        )


def _persistent(u: RestrictedUnpickler, pid: object) -> None:
    if u._persistent_load is None:
        raise LoadError(
            "agv.load: this file refers to objects stored outside the pickle (persistent ids), which neither "
            "agv.save nor torch.save's data pickle writes in this form: it is not a file agv.load reads"
        )
    u.stack.append(u._persistent_load(pid))


def _persid(u: RestrictedUnpickler) -> None:
    _persistent(u, u.reader.readline("a PERSID")[:-1].decode("ascii"))


def _binpersid(u: RestrictedUnpickler) -> None:
    _persistent(u, u._pop())


def _refused(why: str) -> Callable[[RestrictedUnpickler], None]:
    def refused(u: RestrictedUnpickler) -> None:
        raise LoadError(f"agv.load: refused {why}")

    return refused


P = pickle
_DISPATCH: dict[int, Callable[[RestrictedUnpickler], None]] = {
    P.PROTO[0]: _proto,
    P.FRAME[0]: _frame,
    P.STOP[0]: _stop,
    P.NONE[0]: _push(None),
    P.NEWTRUE[0]: _push(True),
    P.NEWFALSE[0]: _push(False),
    P.INT[0]: _int,
    P.LONG[0]: _long,
    P.FLOAT[0]: _float,
    P.BININT[0]: _fixed("<i", "an int"),
    P.BININT1[0]: _fixed("<B", "an int"),
    P.BININT2[0]: _fixed("<H", "an int"),
    P.BINFLOAT[0]: _fixed(">d", "a float"),
    P.LONG1[0]: _long_bytes("<B"),
    P.LONG4[0]: _long_bytes("<i"),
    P.UNICODE[0]: _unicode_line,
    P.SHORT_BINUNICODE[0]: _unicode_counted("<B"),
    P.BINUNICODE[0]: _unicode_counted("<I"),
    P.BINUNICODE8[0]: _unicode_counted("<Q"),
    P.SHORT_BINBYTES[0]: _bytes_counted("<B"),
    P.BINBYTES[0]: _bytes_counted("<I"),
    P.BINBYTES8[0]: _bytes_counted("<Q"),
    P.BYTEARRAY8[0]: _bytes_counted("<Q", bytearray),
    P.STRING[0]: _string_line,
    P.BINSTRING[0]: _string_counted("<i"),
    P.SHORT_BINSTRING[0]: _string_counted("<B"),
    P.MARK[0]: _mark,
    P.POP[0]: _pop,
    P.POP_MARK[0]: _pop_mark,
    P.DUP[0]: _dup,
    P.TUPLE[0]: _tuple,
    P.TUPLE1[0]: _tuple_n(1),
    P.TUPLE2[0]: _tuple_n(2),
    P.TUPLE3[0]: _tuple_n(3),
    P.EMPTY_TUPLE[0]: _empty_tuple,
    P.LIST[0]: _list,
    P.EMPTY_LIST[0]: _empty(list),
    P.DICT[0]: _dict,
    P.EMPTY_DICT[0]: _empty(dict),
    P.EMPTY_SET[0]: _empty(set),
    P.APPEND[0]: _append,
    P.APPENDS[0]: _appends,
    P.SETITEM[0]: _setitem,
    P.SETITEMS[0]: _setitems,
    P.ADDITEMS[0]: _additems,
    P.FROZENSET[0]: _frozenset,
    P.GET[0]: _get_line,
    P.BINGET[0]: _get_fixed("<B"),
    P.LONG_BINGET[0]: _get_fixed("<I"),
    P.PUT[0]: _put_line,
    P.BINPUT[0]: _put_fixed("<B"),
    P.LONG_BINPUT[0]: _put_fixed("<I"),
    P.MEMOIZE[0]: _memoize,
    P.GLOBAL[0]: _global,
    P.STACK_GLOBAL[0]: _stack_global,
    P.REDUCE[0]: _reduce,
    P.NEWOBJ[0]: _newobj,
    P.NEWOBJ_EX[0]: _newobj_ex,
    P.BUILD[0]: _build,
    P.PERSID[0]: _persid,
    P.BINPERSID[0]: _binpersid,
    # classes called by name with arguments from the file (Python 2's old-style objects)
    P.INST[0]: _refused("INST: it calls a class the file names"),
    P.OBJ[0]: _refused("OBJ: it calls a class the file names"),
    # the copyreg extension registry maps numbers to any global: nothing a checkpoint uses
    P.EXT1[0]: _refused("EXT1: a global from copyreg's extension registry"),
    P.EXT2[0]: _refused("EXT2: a global from copyreg's extension registry"),
    P.EXT4[0]: _refused("EXT4: a global from copyreg's extension registry"),
    # out-of-band buffers come from the caller's buffers=..., which agv.load never passes
    P.NEXT_BUFFER[0]: _refused("NEXT_BUFFER: an out-of-band buffer, which agv.save never writes"),
    P.READONLY_BUFFER[0]: _refused("READONLY_BUFFER: an out-of-band buffer, which agv.save never writes"),
}
del P
