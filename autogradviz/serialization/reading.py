"""Reading a file that may be hostile, on a budget.

A checkpoint declares sizes: "a string of 4,000,000,000 bytes follows", "this
array has shape (100000, 100000)", "storage 7 holds 10**12 floats". A loader
that believes them can be made to allocate gigabytes by a 70-byte file. Here no
declared size is believed before it is checked against what is really there:

- `BoundedReader.read(n)` refuses an `n` larger than the bytes left in the file
  (when the file can tell) and never reads more than a chunk at a time, so even a
  pipe that can't tell its size costs no more memory than the bytes it really sends;
- `Budget` caps what the load builds from those bytes (an array copied out of a
  string, a set made from a list, a storage converted to float32) at a few bytes
  per byte of the file, so a small file can't build something big by reusing
  one piece of itself many times.
"""

from __future__ import annotations

import io
import pickle
from collections.abc import Callable
from typing import IO


class LoadError(pickle.UnpicklingError):
    """A file `agv.load` will not read: truncated, damaged, or asking for
    something that weights_only=True does not build. Every such problem raises
    this one class (a `pickle.UnpicklingError`, as torch.load raises), with a
    message that starts with "agv.load:" and says what is wrong with the file."""


CHUNK = 1 << 20  # read at most this much at once: memory follows the bytes that really arrive

# A load may build this many bytes for every byte of the file, plus the floor.
# Real files need at most two: an array pickled under protocols 0-2 is a string,
# then bytes, then the array; a float16 storage becomes a float32 one.
BUDGET_PER_FILE_BYTE = 4
BUDGET_FLOOR = 1 << 20


def _bytes_left(file: IO[bytes]) -> int | None:
    """How many bytes follow the file's position, or None if it can't tell (a pipe, a socket)."""
    try:
        if not file.seekable():
            return None
        here = file.tell()
        end = file.seek(0, io.SEEK_END)
        file.seek(here)
    except (AttributeError, OSError, ValueError):
        return None
    return max(end - here, 0)


def _size(n: int) -> str:
    return f"{n:,} byte" + ("" if n == 1 else "s")


class BoundedReader:
    """The bytes of a file, read for a parser that checks every size it is told."""

    def __init__(self, file: IO[bytes]):
        self._file = file
        self._head = b""  # bytes looked at by peek() and not consumed yet
        self._left_at_start = _bytes_left(file)
        self.consumed = 0  # bytes handed to the parser so far

    def left(self) -> int | None:
        """The bytes not read yet, or None if the file can't tell."""
        if self._left_at_start is None:
            return None
        return self._left_at_start - self.consumed

    def total(self) -> int | None:
        """The size of the file from where reading started, or None if it can't tell."""
        return self._left_at_start

    def truncated(self, n: int, what: str) -> LoadError:
        left = self.left()
        there = f"only {_size(left)} are left" if left is not None else "the file ends before that"
        return LoadError(
            f"agv.load: the file is truncated or damaged: at byte {self.consumed:,} it declares "
            f"{what} of {_size(n)}, but {there}"
        )

    def peek(self, n: int) -> bytes:
        """Up to n bytes from the current position, left to be read again."""
        while len(self._head) < n:
            more = self._file.read(n - len(self._head))
            if not more:
                break
            self._head += more
        return self._head[:n]

    def rewound(self) -> IO[bytes] | None:
        """The file, moved back over the bytes peek() looked at; None if it can't seek."""
        if not self._head:
            return self._file
        if self._left_at_start is None:
            return None
        self._file.seek(-len(self._head), io.SEEK_CUR)
        self._head = b""
        return self._file

    def give_back(self) -> None:
        """At the end of a load: bytes peek() looked at but no one read belong to the next
        object in the file (two pickles one after another); move back over them if the file can."""
        if self._head and self._left_at_start is not None:
            self._file.seek(-len(self._head), io.SEEK_CUR)
            self._head = b""

    def take_head(self) -> bytes:
        """The bytes peek() looked at, handed over (for a file that can't seek back)."""
        head, self._head = self._head, b""
        return head

    def read(self, n: int, what: str = "a field") -> bytes:
        """Exactly n bytes, or LoadError: never more memory than the bytes really there."""
        if n < 0:
            raise LoadError(
                f"agv.load: the file is damaged: at byte {self.consumed:,} it declares a negative size"
            )
        left = self.left()
        if left is not None and n > left:
            raise self.truncated(n, what)
        parts = []
        got = 0
        if self._head:
            taken, self._head = self._head[:n], self._head[n:]
            parts.append(taken)
            got = len(taken)
        while got < n:
            part = self._file.read(min(n - got, CHUNK))
            if not part:
                raise self.truncated(n, what)
            parts.append(part)
            got += len(part)
        self.consumed += n
        return parts[0] if len(parts) == 1 else b"".join(parts)

    def read_byte(self) -> int | None:
        """The next byte (an opcode), or None at the end of the file."""
        if self._head:
            byte, self._head = self._head[0], self._head[1:]
        else:
            data = self._file.read(1)
            if not data:
                return None
            byte = data[0]
        self.consumed += 1
        return byte

    def readline(self, what: str = "a line") -> bytes:
        """The bytes up to and including the next newline (protocol 0's text fields)."""
        parts = []
        while True:
            if self._head:
                cut = self._head.find(b"\n")
                if cut >= 0:
                    parts.append(self._head[: cut + 1])
                    self._head = self._head[cut + 1 :]
                    break
                parts.append(self._head)
                self._head = b""
            part = self._file.readline(CHUNK)
            if not part:
                raise LoadError(
                    f"agv.load: the file is truncated or damaged: at byte {self.consumed:,} it starts "
                    f"{what} that never ends (no newline before the end of the file)"
                )
            if part.endswith(b"\n"):
                parts.append(part)
                break
            parts.append(part)
        line = b"".join(parts)
        self.consumed += len(line)
        return line

    def read_rest(self) -> bytes:
        """Everything left (a pipe is read to its end in chunks; the caller then knows the size)."""
        parts = [self._head]
        self._head = b""
        while True:
            part = self._file.read(CHUNK)
            if not part:
                break
            parts.append(part)
        rest = b"".join(parts)
        self.consumed += len(rest)
        return rest


class Budget:
    """What one load may build: BUDGET_PER_FILE_BYTE bytes per byte of the file,
    plus BUDGET_FLOOR. `file_bytes` says how big the file is (or, for a pipe, how
    much of it has arrived so far)."""

    def __init__(self, file_bytes: Callable[[], int]):
        self._file_bytes = file_bytes
        self.spent = 0

    def charge(self, nbytes: int, what: str) -> None:
        """Call before building `nbytes` bytes of `what`: refuses what the file can't pay for."""
        allowed = BUDGET_PER_FILE_BYTE * self._file_bytes() + BUDGET_FLOOR
        if self.spent + nbytes > allowed:
            raise LoadError(
                f"agv.load: this file asks for more memory than its size accounts for: building {what} "
                f"({_size(nbytes)}) would bring this load to {_size(self.spent + nbytes)}, more than "
                f"{BUDGET_PER_FILE_BYTE} bytes per byte of the file (plus {_size(BUDGET_FLOOR)}). "
                "A file made by agv.save or torch.save never does; this one is damaged or hostile"
            )
        self.spent += nbytes


def budget_for(reader: BoundedReader) -> Budget:
    """A budget on the file's whole size when it can tell, else on the bytes read so far."""
    total = reader.total()
    if total is not None:
        return Budget(lambda: total)
    return Budget(lambda: reader.consumed)
