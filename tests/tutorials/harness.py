"""Run a ported tutorial twice, with PyTorch and with autogradviz as `torch`, and compare.

How a program is written
------------------------
Each module in this folder holds tutorials from one source, each as a function
(taking no argument) whose body is the tutorial's code, its own import lines included (`import torch`,
`import torch.nn as nn`, `from torch import optim`, ...). The function returns a
dict of the final values to compare (losses, grads, parameters). The only edits to
a tutorial are listed in the module's docstring: generated data instead of a
download, fewer iterations, and `print(...)` around a notebook cell's displayed
value.

How `torch` is bound (`bound_to_autogradviz`)
---------------------------------------------
While the autogradviz run executes, `sys.modules["torch"]` is autogradviz and
`sys.modules["torch.nn"]` is `autogradviz.nn`, and so on for each submodule that
autogradviz has (`SUBMODULES`). Every other `torch.*` entry is set to None, so
`import torch.something_missing` fails loudly instead of reaching the real PyTorch.
Everything is put back afterwards.

How both runs start from the same random numbers (`torch_random_streams`)
------------------------------------------------------------------------
Everything autogradviz draws comes from `autogradviz.core.random.generator()`, which
returns the numpy Generator of an `agv.Generator` (the default one, or the one
passed as `generator=`). During the autogradviz run:

- `autogradviz.core.random.default_generator` is replaced by a `TorchBackedGenerator`
  (a subclass of agv.Generator) and the name `agv.Generator` by that subclass, so
  `torch.Generator().manual_seed(2147483647)` in a tutorial makes one too;
- its `_numpy` is a `TorchStream`: an object with the numpy Generator methods
  autogradviz calls (`random`, `standard_normal`, `integers`, `permutation`,
  `uniform`, `normal`, `choice`), each answered by the matching PyTorch draw
  (`torch.rand`, `torch.randn`, `torch.randint`, `torch.randperm`) on a
  torch.Generator seeded as the real run's. numpy's `random()` is float64 by default
  while PyTorch draws in the tensor's dtype: a draw without an explicit dtype or
  `out=` is taken as float32, autogradviz's default dtype;
- numpy's `permutation` on the default stream is what autogradviz's DataLoader
  shuffles with: it is answered as torch's RandomSampler draws (an int64 seed from
  the default stream, then randperm on a fresh generator), except while
  `agv.randperm` runs (then it is torch.randperm itself); and iterating over an
  agv DataLoader first draws an int64 from its stream, as torch's DataLoader
  iterator draws its workers' `_base_seed`;
- `multinomial` is not a plain draw (PyTorch walks a cumulative distribution
  with float64 uniforms): `agv.multinomial` and `Tensor.multinomial`, when they
  exist, still run (on a throwaway generator, so their checks and errors are
  autogradviz's) but their samples are replaced by torch.multinomial's.

Both runs also start with Python's `random` and numpy's legacy global state seeded
alike (d2l shuffles with `random.shuffle`).

Deliberate differences, normalised in both outputs (`NORMALISE`)
--------------------------------------------------------------------
- MEMORY_ADDRESS: torch prints `<MulBackward0 object at 0x7f...>`; autogradviz
  prints `<MulBackward0>` (a notebook checked by nbval must print the same on
  every run).
- PROFILER_TABLE: a profiler table's timings differ on every run and machine, and
  its rows are sorted by them: a table (from its first dashed rule to "Self CPU
  time total: ...") is compared by its column titles and, for each row, the op's
  name and number of calls, sorted by name.
- BIT_EXACT: makemore's cmp() prints whether a gradient written by hand equals
  autograd's bit for bit ("| exact: True  |"); which ones do depends on each
  library's float32 summation order, so that column is not compared (its
  "approximate" column and maxdiff are).
- ERROR_HINT: an autogradviz error message starts with PyTorch's sentence and may
  go on with a hint ("...only for scalar outputs: this output has shape ..."): on
  a printed line naming an Error, autogradviz's line agrees when it is torch's
  line followed by such a hint.
and, when numbers are compared:
- SIGN_PADDING: a tensor repr pads its columns for a minus sign, so a value that
  prints as -3.5763e-07 in one library and 5.9605e-08 in the other shifts a space:
  the spaces just before a number are not compared.
- PRINTED_ROUNDING: two printed numbers agree when they are within the tolerance
  or one unit of their last printed digit (0.12345 prints 0.1234 or 0.1235 when
  the two libraries differ in the 7th digit).
"""

from __future__ import annotations

import contextlib
import importlib
import io
import random as py_random
import re
import sys
from dataclasses import dataclass, field

import numpy as np
import torch

import autogradviz as agv
from autogradviz.core import random as agv_random

# PyTorch's intra-op threads only slow these small tensors down (and thrash a loaded
# 2-core machine: polynomial_nn took 40 s with them, not 1 s)
torch.set_num_threads(1)

SEED = 0  # every run starts from it: torch.manual_seed(SEED), random.seed(SEED), np.random.seed(SEED)

# torch.<name> -> autogradviz.<name>, bound when autogradviz has that module
SUBMODULES = (
    "nn",
    "nn.functional",
    "nn.init",
    "nn.utils",
    "optim",
    "autograd",
    "autograd.functional",
    "autograd.profiler",
    "autograd.graph",
    "utils",
    "utils.data",
    "linalg",
)

_TORCH_DTYPES = {np.dtype(np.float32): torch.float32, np.dtype(np.float64): torch.float64}


# -- random numbers from torch -----------------------------------------------------------


def _size(size) -> tuple:
    if size is None:
        return ()
    if isinstance(size, (int, np.integer)):
        return (int(size),)
    return tuple(int(s) for s in size)


class TorchStream:
    """The numpy Generator methods autogradviz calls, each answered by PyTorch's draw
    from one torch.Generator (so the numbers are those the real run draws)."""

    def __init__(self, torch_generator: torch.Generator) -> None:
        self.torch_generator = torch_generator
        self.is_default = False  # set for the default stream (see permutation)
        self.plain_permutation = False  # set while agv.randperm runs

    def _fill(self, draw, size, dtype, out):
        if out is not None:
            out[...] = draw(out.shape, _TORCH_DTYPES[np.dtype(out.dtype)]).numpy()
            return out
        torch_dtype = _TORCH_DTYPES[np.dtype(dtype)] if dtype is not None else torch.float32
        values = draw(_size(size), torch_dtype).numpy()
        return values if size is not None else values.item()

    def random(self, size=None, dtype=None, out=None):
        return self._fill(
            lambda shape, dt: torch.rand(shape, dtype=dt, generator=self.torch_generator), size, dtype, out
        )

    def standard_normal(self, size=None, dtype=None, out=None):
        return self._fill(
            lambda shape, dt: torch.randn(shape, dtype=dt, generator=self.torch_generator), size, dtype, out
        )

    def uniform(self, low=0.0, high=1.0, size=None):
        return self.random(size) * (high - low) + low

    def normal(self, loc=0.0, scale=1.0, size=None):
        return self.standard_normal(size) * scale + loc

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False):
        if high is None:
            low, high = 0, low
        if endpoint:
            high = high + 1
        values = torch.randint(int(low), int(high), _size(size), generator=self.torch_generator).numpy()
        return values.astype(dtype) if size is not None else int(values.item())

    def int64_seed(self) -> int:
        """What torch's DataLoader and RandomSampler draw: `torch.empty((), dtype=torch.int64).random_()`."""
        return int(torch.empty((), dtype=torch.int64).random_(generator=self.torch_generator).item())

    def permutation(self, x):
        n = int(x) if isinstance(x, (int, np.integer)) else len(x)
        source = self.torch_generator
        if self.is_default and not self.plain_permutation:
            # DATALOADER_SHUFFLE: torch's RandomSampler without a generator draws a seed
            # from the default stream and shuffles with a fresh generator from that seed
            source = torch.Generator().manual_seed(self.int64_seed())
        order = torch.randperm(n, generator=source).numpy()
        return order if isinstance(x, (int, np.integer)) else np.asarray(x)[order]

    def choice(self, a, size=None, replace=True, p=None):
        population = np.arange(a) if isinstance(a, (int, np.integer)) else np.asarray(a)
        n = 1 if size is None else int(np.prod(_size(size)))
        weights = (
            torch.ones(len(population), dtype=torch.float64) if p is None else torch.from_numpy(np.asarray(p))
        )
        index = torch.multinomial(weights, n, replacement=replace, generator=self.torch_generator).numpy()
        picked = population[index]
        return picked[0] if size is None else picked.reshape(_size(size))

    def __getattr__(self, name):
        raise AttributeError(
            f"the tutorial harness's TorchStream has no numpy Generator method {name!r}: autogradviz "
            "draws in a way the harness does not mirror yet (add it to tests/tutorials/harness.py)"
        )


class TorchBackedGenerator(agv_random.Generator):
    """An agv.Generator whose numbers come from a torch.Generator seeded the same way."""

    def manual_seed(self, seed: int) -> TorchBackedGenerator:
        self._seed = int(seed)
        is_default = isinstance(getattr(self, "_numpy", None), TorchStream) and self._numpy.is_default
        self._numpy = TorchStream(torch.Generator().manual_seed(self._seed))
        self._numpy.is_default = is_default  # torch.manual_seed(n) in a tutorial keeps it the default
        return self

    def seed(self) -> int:  # pragma: no cover - a tutorial that reseeds from entropy cannot be compared
        raise RuntimeError("the tutorial harness cannot mirror a seed drawn from the operating system")

    def get_state(self):
        return self._numpy.torch_generator.get_state()

    def set_state(self, state) -> TorchBackedGenerator:
        self._numpy.torch_generator.set_state(state)
        return self


def _torch_generator_of(generator) -> torch.Generator:
    source = agv_random.default_generator if generator is None else generator
    return source._numpy.torch_generator


def _with_torch_samples(original):
    """Wrap agv's multinomial: its checks run (on a throwaway generator), its samples are torch's."""

    def multinomial(input, num_samples, replacement=False, *, generator=None, **kwargs):
        checked = original(input, num_samples, replacement, generator=_ORIGINAL_GENERATOR(), **kwargs)
        probabilities = torch.from_numpy(np.array(input.detach().numpy(), dtype=np.float64))
        samples = torch.multinomial(
            probabilities, num_samples, replacement, generator=_torch_generator_of(generator)
        ).numpy()
        return agv.tensor(samples.reshape(checked.shape), dtype=checked.dtype)

    return multinomial


def _plain_permutations(original):
    """Wrap agv.randperm: its permutation is torch.randperm's, never a DataLoader's shuffle."""

    def randperm(*args, generator=None, **kwargs):
        stream = (agv_random.default_generator if generator is None else generator)._numpy
        if not isinstance(stream, TorchStream):
            return original(*args, generator=generator, **kwargs)
        stream.plain_permutation = True
        try:
            return original(*args, generator=generator, **kwargs)
        finally:
            stream.plain_permutation = False

    return randperm


def _drawing_a_base_seed(original_iter):
    """Wrap agv's DataLoader.__iter__: torch's loader iterator first draws a `_base_seed`
    (for its workers) from the loader's generator; this draws it too, then iterates."""

    def __iter__(self):
        stream = (
            agv_random.default_generator if getattr(self, "generator", None) is None else self.generator
        )._numpy
        if isinstance(stream, TorchStream):
            stream.int64_seed()
        yield from original_iter(self)

    return __iter__


_ORIGINAL_GENERATOR = agv_random.Generator


@contextlib.contextmanager
def torch_random_streams(seed: int = SEED):
    """While active, every random number autogradviz draws is PyTorch's (see the docstring)."""
    default = TorchBackedGenerator()
    default.manual_seed(seed)
    default._numpy.is_default = True
    patches = [
        (agv_random, "default_generator", default),
        (agv, "Generator", TorchBackedGenerator),
        (agv, "default_generator", default),
    ]
    loader = getattr(getattr(getattr(agv, "utils", None), "data", None), "DataLoader", None)
    if loader is not None:
        patches.append((loader, "__iter__", _drawing_a_base_seed(loader.__iter__)))
    if hasattr(agv, "randperm"):
        patches.append((agv, "randperm", _plain_permutations(agv.randperm)))
    if hasattr(agv, "multinomial"):
        patches.append((agv, "multinomial", _with_torch_samples(agv.multinomial)))
    if hasattr(agv.Tensor, "multinomial"):
        patches.append((agv.Tensor, "multinomial", _with_torch_samples(agv.Tensor.multinomial)))
    absent = object()  # an attribute found on a base class, not on `owner` itself
    saved = [(owner, name, vars(owner).get(name, absent)) for owner, name, _ in patches]
    try:
        for owner, name, value in patches:
            setattr(owner, name, value)
        yield default
    finally:
        for owner, name, value in reversed(saved):
            if value is absent:
                delattr(owner, name)
            else:
                setattr(owner, name, value)


# -- binding the name torch --------------------------------------------------------------


def _agv_module(name: str):
    try:
        return importlib.import_module("autogradviz." + name)
    except ImportError:
        obj = agv
        for part in name.split("."):
            obj = getattr(obj, part, None)
            if obj is None:
                return None
        return obj


@contextlib.contextmanager
def bound_to_autogradviz():
    """`import torch` (and torch.nn, torch.optim, ...) gives autogradviz while active."""
    saved = {key: mod for key, mod in sys.modules.items() if key == "torch" or key.startswith("torch.")}
    try:
        for key in saved:
            sys.modules[key] = None  # a torch.* module autogradviz has not: ImportError
        sys.modules["torch"] = agv
        for name in SUBMODULES:
            sys.modules["torch." + name] = _agv_module(name)
        assert importlib.import_module("torch") is agv
        yield
    finally:
        for key in [k for k in sys.modules if k == "torch" or k.startswith("torch.")]:
            del sys.modules[key]
        sys.modules.update(saved)


# -- running and comparing ---------------------------------------------------------------


@dataclass
class Run:
    stdout: str
    values: dict = field(default_factory=dict)


def _seed_everything() -> None:
    py_random.seed(SEED)
    np.random.seed(SEED)
    torch.manual_seed(SEED)


def run_with_torch(program) -> Run:
    _seed_everything()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        values = program()
    return Run(out.getvalue(), values or {})


def run_with_autogradviz(program) -> Run:
    _seed_everything()
    out = io.StringIO()
    with torch_random_streams(), bound_to_autogradviz(), contextlib.redirect_stdout(out):
        values = program()
    return Run(out.getvalue(), values or {})


# the deliberate differences (see the module docstring); applied to both outputs
NORMALISE = [
    ("MEMORY_ADDRESS", re.compile(r"<([\w.]+) object at 0x[0-9a-fA-F]+>"), r"<\1>"),
    (
        "PROFILER_TABLE",
        re.compile(r"^-{5,}[ -]*\n.*?^Self CPU time total: [^\n]*$", re.S | re.M),
        lambda match: _profiler_rows(match.group(0)),
    ),
    ("BIT_EXACT", re.compile(r"\| exact: (True |False) \|"), "| exact: <bit-exactness> |"),
]

_NUMBER = re.compile(r"(?<![\w.])[+-]?(?:nan|inf|(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?)(?![\w])")


def _profiler_rows(table: str) -> str:
    """A profiler table without its timings: the column titles, then each row's op
    name and number of calls, sorted by name (the rows are sorted by time)."""
    lines = table.splitlines()
    titles = " ".join(lines[1].split())
    rows = sorted(" ".join([line.split()[0], line.split()[-1]]) for line in lines[3:-2] if line.strip())
    return "\n".join(["<profiler table>", titles, *rows, "</profiler table>"])


def _skeleton(line: str) -> list[str]:
    """The text between the numbers of a line; the spaces just before a number are
    left out (SIGN_PADDING: a column padded for a minus sign in one library only)."""
    pieces = _NUMBER.split(line)
    return [piece.rstrip(" ") for piece in pieces[:-1]] + pieces[-1:]


def normalise(text: str) -> str:
    for _name, pattern, replacement in NORMALISE:
        text = pattern.sub(replacement, text)
    return text


def _resolution(token: str) -> float:
    """One unit of the last printed digit of a number token (0 for an integer)."""
    mantissa, _, exponent = token.lower().partition("e")
    if "." not in mantissa:
        return 0.0
    decimals = len(mantissa.split(".")[1])
    if decimals == 0:
        return 0.0
    return 10.0 ** (int(exponent or 0) - decimals)


def _numbers_agree(a: str, b: str, rtol: float, atol: float) -> bool:
    x, y = float(a), float(b)
    if np.isnan(x) or np.isnan(y):
        return np.isnan(x) and np.isnan(y)
    if np.isinf(x) or np.isinf(y):
        return x == y
    slack = max(atol + rtol * abs(x), 1.01 * max(_resolution(a), _resolution(b)))  # PRINTED_ROUNDING
    return abs(x - y) <= slack


def compare_stdout(expected: str, actual: str, rtol: float, atol: float) -> None:
    """Line by line: the text around numbers equal, the numbers within tolerance."""
    expected, actual = normalise(expected), normalise(actual)
    e_lines, a_lines = expected.splitlines(), actual.splitlines()
    for i, (e, a) in enumerate(zip(e_lines, a_lines), 1):
        if "Error" in e and len(a) > len(e) and a.startswith(e) and a[len(e)] in ":.;( ":
            a = e  # ERROR_HINT
        e_text, a_text = _skeleton(e), _skeleton(a)
        e_nums, a_nums = _NUMBER.findall(e), _NUMBER.findall(a)
        same = e_text == a_text and len(e_nums) == len(a_nums)
        same = same and all(_numbers_agree(x, y, rtol, atol) for x, y in zip(a_nums, e_nums))
        assert same, f"printed line {i} differs:\n  torch:        {e!r}\n  autogradviz:  {a!r}"
    assert len(e_lines) == len(a_lines), (
        f"torch printed {len(e_lines)} lines, autogradviz {len(a_lines)}; first extra line: "
        f"{(e_lines[len(a_lines) :] or a_lines[len(e_lines) :])[0]!r}"
    )


def as_numpy(value):
    """A final value as something np.testing compares: arrays, numbers, strings, lists."""
    if isinstance(value, torch.Tensor) or isinstance(value, agv.Tensor):
        return np.asarray(value.detach().numpy())
    if isinstance(value, (list, tuple)):
        return [as_numpy(v) for v in value]
    if isinstance(value, dict):
        return {k: as_numpy(v) for k, v in value.items()}
    return value


def compare_values(expected: dict, actual: dict, rtol: float, atol: float, path: str = "") -> None:
    assert set(expected) == set(actual), f"returned values differ: {sorted(expected)} vs {sorted(actual)}"
    for key in expected:
        _compare(as_numpy(expected[key]), as_numpy(actual[key]), rtol, atol, f"{path}{key}")


def _compare(e, a, rtol, atol, where) -> None:
    if isinstance(e, dict):
        compare_values(e, a, rtol, atol, where + ".")
    elif isinstance(e, list):
        assert isinstance(a, list) and len(a) == len(e), f"{where}: {len(e)} items in torch's run, not {a!r}"
        for i, (x, y) in enumerate(zip(e, a)):
            _compare(x, y, rtol, atol, f"{where}[{i}]")
    elif isinstance(e, (str, bool, type(None))):
        assert a == e, f"{where}: {a!r}, torch: {e!r}"
    else:
        e_arr, a_arr = np.asarray(e), np.asarray(a)
        assert a_arr.shape == e_arr.shape, f"{where}: shape {a_arr.shape}, torch: {e_arr.shape}"
        np.testing.assert_allclose(a_arr, e_arr, rtol=rtol, atol=atol, err_msg=where)


def check(program, rtol: float = 1e-4, atol: float = 1e-5, stdout: bool = True) -> tuple[Run, Run]:
    """Run `program` with torch and with autogradviz; assert the same prints and values."""
    expected = run_with_torch(program)
    actual = run_with_autogradviz(program)
    if stdout:
        compare_stdout(expected.stdout, actual.stdout, rtol, atol)
    compare_values(expected.values, actual.values, rtol, atol)
    return expected, actual
