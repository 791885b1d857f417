"""A differential fuzzer: random programs, run on autogradviz and on PyTorch.

A program is data: a list of `Op` records (leaves, ops, in-place statements,
and at the end one backward). `Program.source` renders it as Python that runs
unchanged against either library (`lib` is `agv` or `torch`), so a failing,
shrunk example reads as a script:

    v0 = lib.tensor([1.0, -2.0], dtype=lib.float64, requires_grad=True)
    v1 = v0.sin()
    v1.sum().backward()

`first_discrepancy(program)` interprets it on both libraries in lockstep and
returns the first difference (or None): after every statement the state of
every live slot is compared (shape, dtype, requires_grad, is_leaf, values with
NaN/inf positions), an op that raises must raise in both libraries with the
same builtin exception class, and after backward the `.grad` of every leaf is
compared the same way.

`programs()` is the hypothesis strategy. It draws each op knowing the shapes
and dtypes of what came before, by running the program on torch while drawing
(torch is only the oracle that tells shapes; the test reruns everything from
scratch on both libraries). Most ops are drawn valid (dims in range, operands
that broadcast, matmul partners that fit); a few are drawn to raise.
"""

from __future__ import annotations

import math
import operator
import warnings
from dataclasses import dataclass

import numpy as np
import torch
from hypothesis import strategies as st

import autogradviz as agv

# -- tolerances -------------------------------------------------------------------------
TOLERANCES = {  # dtype name -> (rtol, atol)
    "float64": (1e-6, 1e-8),
    "float32": (1e-4, 1e-5),
}

# -- limits of the generator ------------------------------------------------------------
MIN_OPS, MAX_OPS = 3, 15
NICE_FLOATS = [0.0, 1.0, -1.0, 2.0, 0.5, -2.0, -0.5, 3.0, 0.25, 1.5]
SPECIAL_FLOATS = [math.inf, -math.inf, math.nan]
NICE_SCALARS = [2.0, 1.0, 0.5, -1.0, 0.0, 3, 2, -2, True]


# =======================================================================================
# Programs as data
# =======================================================================================
@dataclass(frozen=True)
class Op:
    """One statement. `kind` names an entry of KINDS; `refs` are the slots it reads
    (for predicates and display); `params` are its literal arguments; `out` is
    the slot it defines, or None for an in-place statement or the backward."""

    kind: str
    refs: tuple = ()
    params: tuple = ()
    out: int | None = None

    def source(self) -> str:
        text = KINDS[self.kind].render(self)
        return text if self.out is None else f"v{self.out} = {text}"


@dataclass(frozen=True)
class SlotInfo:
    """What torch made of a slot while the program was drawn (for predicates)."""

    shape: tuple
    dtype: str
    requires_grad: bool
    is_leaf: bool


class Program:
    """The ops, and what torch made of each slot while drawing (`slots`, for predicates)."""

    def __init__(self, ops=(), slots=None):
        self.ops = list(ops)
        self.slots = dict(slots or {})  # slot -> SlotInfo

    def dtype(self, slot: int) -> str | None:
        info = self.slots.get(slot)
        return None if info is None else info.dtype

    @property
    def source(self) -> str:
        return "\n".join(op.source() for op in self.ops)

    def __repr__(self) -> str:
        return "Program('''\n" + self.source + "\n''')"

    # -- helpers for KNOWN_DIVERGENCES predicates --
    def kinds(self) -> set:
        return {op.kind for op in self.ops}

    def has(self, kind: str) -> bool:
        return any(op.kind == kind for op in self.ops)

    def find(self, kind: str) -> list:
        return [op for op in self.ops if op.kind == kind]

    def op_defining(self, slot: int) -> Op | None:
        for op in self.ops:
            if op.out == slot:
                return op
        return None

    def ancestry(self, slot: int) -> list:
        """The ops that `slot`'s value was computed from (its own op first)."""
        seen, todo, found = set(), [slot], []
        while todo:
            s = todo.pop()
            if s in seen:
                continue
            seen.add(s)
            op = self.op_defining(s)
            if op is not None:
                found.append(op)
                todo.extend(op.refs)
        return found


class Kind:
    def __init__(self, render, apply, inplace=False):
        self.render = render  # Op -> str (without "vK = ")
        self.apply = apply  # (lib, env, Op) -> result
        self.inplace = inplace


def v(i) -> str:
    return f"v{i}"


def lit(x) -> str:
    """A literal as source: floats keep a dot, nan/inf by name."""
    if isinstance(x, bool) or x is None:
        return repr(x)
    if isinstance(x, float):
        if math.isnan(x):
            return "nan"
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
        return repr(x)
    if isinstance(x, (list, tuple)):
        inner = ", ".join(lit(y) for y in x)
        if isinstance(x, tuple):
            return "(" + inner + ("," if len(x) == 1 else "") + ")"
        return "[" + inner + "]"
    return repr(x)


def dtype_of(lib, name: str):
    return getattr(lib, name)


def dtype_name(t) -> str:
    return str(t.dtype).split(".")[-1]


# -- constants and leaves ---------------------------------------------------------------
def _nested(values, shape):
    return np.array(values, dtype=object).reshape(shape).tolist()


def const_source(shape, dtype, values, requires_grad=False) -> str:
    rg = ", requires_grad=True" if requires_grad else ""
    if 0 in shape:
        return f"lib.zeros({lit(tuple(shape))}, dtype=lib.{dtype}{rg})"
    data = values[0] if shape == () else _nested(values, shape)
    return f"lib.tensor({lit(data)}, dtype=lib.{dtype}{rg})"


def make_const(lib, shape, dtype, values, requires_grad=False):
    if 0 in shape:
        return lib.zeros(tuple(shape), dtype=dtype_of(lib, dtype), requires_grad=requires_grad)
    data = values[0] if shape == () else _nested(values, shape)
    return lib.tensor(data, dtype=dtype_of(lib, dtype), requires_grad=requires_grad)


# -- indices: a tuple of items, each ("int", k) ("slice", a, b, c) ("list", [..])
#    ("none",) ("ellipsis",) ("mask", slot, inline_gt0) ------------------------------
def index_source(items) -> str:
    parts = []
    for item in items:
        tag = item[0]
        if tag == "int":
            parts.append(str(item[1]))
        elif tag == "slice":
            a, b, c = item[1:]
            s = ("" if a is None else str(a)) + ":" + ("" if b is None else str(b))
            if c is not None:
                s += f":{c}"
            parts.append(s)
        elif tag == "list":
            parts.append(lit(list(item[1])))
        elif tag == "none":
            parts.append("None")
        elif tag == "ellipsis":
            parts.append("...")
        elif tag == "mask":
            parts.append(v(item[1]) + (" > 0" if item[2] else ""))
    return ", ".join(parts) if parts else "()"


def index_value(env, items):
    out = []
    for item in items:
        tag = item[0]
        if tag == "int":
            out.append(item[1])
        elif tag == "slice":
            out.append(slice(*item[1:]))
        elif tag == "list":
            out.append(list(item[1]))
        elif tag == "none":
            out.append(None)
        elif tag == "ellipsis":
            out.append(Ellipsis)
        elif tag == "mask":
            m = env[item[1]]
            out.append(m > 0 if item[2] else m)
    return out[0] if len(out) == 1 else tuple(out)


# -- the op table -------------------------------------------------------------------------
KINDS: dict[str, Kind] = {}

KINDS["leaf"] = Kind(
    lambda op: const_source(*op.params),
    lambda lib, env, op: make_const(lib, *op.params),
)

UNARY = ["neg", "exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid", "relu", "abs"]
CASTS = ["float", "double", "long", "bool"]
for _name in UNARY + CASTS + ["clone", "detach", "t"]:
    KINDS[_name] = Kind(
        (lambda n: lambda op: f"{v(op.refs[0])}.{n}()")(_name),
        (lambda n: lambda lib, env, op: getattr(env[op.refs[0]], n)())(_name),
    )

KINDS["clamp"] = Kind(
    lambda op: f"{v(op.refs[0])}.clamp(min={lit(op.params[0])}, max={lit(op.params[1])})",
    lambda lib, env, op: env[op.refs[0]].clamp(min=op.params[0], max=op.params[1]),
)

BINARY = {"add": "+", "sub": "-", "mul": "*", "div": "/", "pow": "**", "gt": ">", "eq": "=="}
_PY = {
    "add": operator.add,
    "sub": operator.sub,
    "mul": operator.mul,
    "div": operator.truediv,
    "pow": operator.pow,
    "gt": operator.gt,
    "eq": operator.eq,
}


def _binary_render(name):
    sym = BINARY[name]

    def render(op):
        form = op.params[0]
        if form == "tt":
            return f"{v(op.refs[0])} {sym} {v(op.refs[1])}"
        if form == "ts":
            return f"{v(op.refs[0])} {sym} {lit(op.params[1])}"
        return f"{lit(op.params[1])} {sym} {v(op.refs[0])}"

    return render


def _binary_apply(name):
    fn = _PY[name]

    def apply(lib, env, op):
        form = op.params[0]
        if form == "tt":
            return fn(env[op.refs[0]], env[op.refs[1]])
        if form == "ts":
            return fn(env[op.refs[0]], op.params[1])
        return fn(op.params[1], env[op.refs[0]])

    return apply


for _name in BINARY:
    KINDS[_name] = Kind(_binary_render(_name), _binary_apply(_name))

for _name in ["maximum", "minimum"]:
    KINDS[_name] = Kind(
        (lambda n: lambda op: f"lib.{n}({v(op.refs[0])}, {v(op.refs[1])})")(_name),
        (lambda n: lambda lib, env, op: getattr(lib, n)(env[op.refs[0]], env[op.refs[1]]))(_name),
    )


def _where_render(op):
    c = v(op.refs[0]) + ("" if op.params[0] else " > 0")
    other = v(op.refs[2]) if len(op.refs) == 3 else lit(op.params[1])
    return f"lib.where({c}, {v(op.refs[1])}, {other})"


def _where_apply(lib, env, op):
    c = env[op.refs[0]] if op.params[0] else env[op.refs[0]] > 0
    other = env[op.refs[2]] if len(op.refs) == 3 else op.params[1]
    return lib.where(c, env[op.refs[1]], other)


KINDS["where"] = Kind(_where_render, _where_apply)


# reductions: params (dim, keepdim, pick); dim None = over everything
def _reduce_kind(name):
    def render(op):
        dim, keepdim, pick = op.params
        if dim is None:
            return f"{v(op.refs[0])}.{name}()"
        text = f"{v(op.refs[0])}.{name}(dim={lit(dim)}, keepdim={keepdim})"
        return text + (f".{pick}" if pick else "")

    def apply(lib, env, op):
        dim, keepdim, pick = op.params
        x = env[op.refs[0]]
        if dim is None:
            return getattr(x, name)()
        r = getattr(x, name)(dim=dim, keepdim=keepdim)
        return getattr(r, pick) if pick else r

    return Kind(render, apply)


for _name in ["sum", "mean", "max", "min"]:
    KINDS[_name] = _reduce_kind(_name)

for _name in ["softmax", "log_softmax"]:
    KINDS[_name] = Kind(
        (lambda n: lambda op: f"{v(op.refs[0])}.{n}(dim={op.params[0]})")(_name),
        (lambda n: lambda lib, env, op: getattr(env[op.refs[0]], n)(dim=op.params[0]))(_name),
    )

KINDS["matmul"] = Kind(
    lambda op: f"{v(op.refs[0])} @ {v(op.refs[1])}" + (".mT" if op.params[0] else ""),
    lambda lib, env, op: env[op.refs[0]] @ (env[op.refs[1]].mT if op.params[0] else env[op.refs[1]]),
)

# views and shape ops; params are the call's arguments
for _name in ["transpose", "permute", "reshape", "view", "unsqueeze", "squeeze", "expand"]:
    KINDS[_name] = Kind(
        (lambda n: lambda op: f"{v(op.refs[0])}.{n}({', '.join(lit(p) for p in op.params)})")(_name),
        (lambda n: lambda lib, env, op: getattr(env[op.refs[0]], n)(*op.params))(_name),
    )

KINDS["index"] = Kind(
    lambda op: f"{v(op.refs[0])}[{index_source(op.params[0])}]",
    lambda lib, env, op: env[op.refs[0]][index_value(env, op.params[0])],
)


# in-place: params (scalar,) when the operand is a number, else refs[1] is the operand
def _inplace_kind(name):
    def render(op):
        other = v(op.refs[1]) if len(op.refs) > 1 else lit(op.params[0])
        return f"{v(op.refs[0])}.{name}({other})"

    def apply(lib, env, op):
        other = env[op.refs[1]] if len(op.refs) > 1 else op.params[0]
        getattr(env[op.refs[0]], name)(other)

    return Kind(render, apply, inplace=True)


for _name in ["add_", "sub_", "mul_", "div_", "copy_"]:
    KINDS[_name] = _inplace_kind(_name)


def _zero_apply(lib, env, op):
    env[op.refs[0]].zero_()


KINDS["zero_"] = Kind(lambda op: f"{v(op.refs[0])}.zero_()", _zero_apply, inplace=True)


# x[index] = value: params (index items, scalar); refs (x, value?) (+ mask slots, for display)
def _setitem_render(op):
    value = v(op.params[2]) if op.params[2] is not None else lit(op.params[1])
    return f"{v(op.refs[0])}[{index_source(op.params[0])}] = {value}"


def _setitem_apply(lib, env, op):
    value = env[op.params[2]] if op.params[2] is not None else op.params[1]
    env[op.refs[0]][index_value(env, op.params[0])] = value


KINDS["setitem"] = Kind(_setitem_render, _setitem_apply, inplace=True)


# backward: params (mode, gradient), refs the targets. Modes:
#   "sum":  (t0.sum() + t1.sum() + ...).backward()
#   "grad": t0.backward(G), G a constant of t0's shape and dtype
#   "twice": t0.sum().backward(); t0.sum().backward() (the second must raise alike,
#            or accumulate alike)
def _backward_render(op):
    mode, gradient = op.params
    if mode == "grad":
        t = op.refs[0]
        return f"{v(t)}.backward({const_source(*gradient)})"
    loss = " + ".join(f"{v(t)}.sum()" for t in op.refs)
    if len(op.refs) > 1:
        loss = f"({loss})"
    if mode == "twice":
        return f"{loss}.backward(); {loss}.backward()"
    return f"{loss}.backward()"


def _backward_apply(lib, env, op):
    mode, gradient = op.params
    if mode == "grad":
        env[op.refs[0]].backward(make_const(lib, *gradient))
        return
    loss = None
    for t in op.refs:
        loss = env[t].sum() if loss is None else loss + env[t].sum()
    loss.backward()
    if mode == "twice":
        loss2 = None
        for t in op.refs:
            loss2 = env[t].sum() if loss2 is None else loss2 + env[t].sum()
        loss2.backward()


KINDS["backward"] = Kind(_backward_render, _backward_apply)


# =======================================================================================
# Running and comparing
# =======================================================================================
@dataclass
class Discrepancy:
    program: Program
    step: int  # index of the op after which the states differ
    message: str

    def __str__(self) -> str:
        lines = self.program.source.splitlines()
        marked = "\n".join(("--> " if i == self.step else "    ") + line for i, line in enumerate(lines))
        return f"step {self.step}: {self.message}\n{marked}"


def builtin_class(error: BaseException) -> type:
    """The first builtin exception class in the error's MRO: torch's and numpy's
    subclasses (torch.OutOfMemoryError, numpy's AxisError, ...) compare as the
    builtin class they derive from, NotImplementedError as RuntimeError."""
    for cls in type(error).__mro__:
        if cls.__module__ == "builtins":
            # torch picks NotImplementedError (a RuntimeError) or RuntimeError by which
            # kernel happens to refuse a dtype: compare them as one
            return RuntimeError if cls is NotImplementedError else cls
    return Exception


def _to_numpy(t) -> np.ndarray:
    return np.asarray(t.detach().numpy())


def compare_tensors(ours, theirs, what: str) -> str | None:
    """None if `ours` (agv) and `theirs` (torch) agree, else a description."""
    if theirs is None or ours is None:
        if (theirs is None) != (ours is None):
            return f"{what}: agv {_short(ours)} vs torch {_short(theirs)}"
        return None
    if not isinstance(theirs, torch.Tensor):
        if isinstance(ours, agv.Tensor) or ours != theirs:
            return f"{what}: agv {ours!r} vs torch {theirs!r}"
        return None
    if not isinstance(ours, agv.Tensor):
        return f"{what}: agv gave {type(ours).__name__} {ours!r}, torch a tensor"
    if tuple(ours.shape) != tuple(theirs.shape):
        return f"{what}: shape agv {tuple(ours.shape)} vs torch {tuple(theirs.shape)}"
    if dtype_name(ours) != dtype_name(theirs):
        return f"{what}: dtype agv {dtype_name(ours)} vs torch {dtype_name(theirs)}"
    if ours.requires_grad != theirs.requires_grad:
        return f"{what}: requires_grad agv {ours.requires_grad} vs torch {theirs.requires_grad}"
    if ours.is_leaf != theirs.is_leaf:
        return f"{what}: is_leaf agv {ours.is_leaf} vs torch {theirs.is_leaf}"
    a, b = _to_numpy(ours), _to_numpy(theirs)
    detail = compare_arrays(a, b, dtype_name(theirs))
    return (
        None
        if detail is None
        else f"{what}: values differ\n  agv:   {_fmt(a)}\n  torch: {_fmt(b)}\n  {detail}"
    )


def compare_arrays(a: np.ndarray, b: np.ndarray, dtype: str) -> str | None:
    if dtype not in TOLERANCES:
        return None if np.array_equal(a, b) else "not equal"
    if not np.array_equal(np.isnan(a), np.isnan(b)):
        return "NaN positions differ"
    if not np.array_equal(np.isposinf(a), np.isposinf(b)) or not np.array_equal(
        np.isneginf(a), np.isneginf(b)
    ):
        return "inf positions differ"
    rtol, atol = TOLERANCES[dtype]
    try:
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True)
    except AssertionError as error:
        return str(error).strip().splitlines()[-1]
    return None


def _fmt(a: np.ndarray) -> str:
    return np.array2string(a, precision=8, separator=", ").replace("\n", " ")


def _short(x) -> str:
    return "None" if x is None else type(x).__name__


def _run_one(lib, env, op):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return KINDS[op.kind].apply(lib, env, op), None
    except Exception as error:  # noqa: BLE001 - the class is what is compared
        return None, error


def _grads(env, leaves):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {s: env[s].grad for s in leaves if env.get(s) is not None}


def first_discrepancy(program: Program) -> Discrepancy | None:
    """Interpret `program` on both libraries in lockstep; the first difference, or None."""
    envs = {agv: {}, torch: {}}
    leaves = []
    for step, op in enumerate(program.ops):
        (r_agv, e_agv), (r_torch, e_torch) = (_run_one(m, envs[m], op) for m in (agv, torch))
        if (e_agv is None) != (e_torch is None):
            ours = "returned" if e_agv is None else f"raised {type(e_agv).__name__}: {e_agv}"
            theirs = "returned" if e_torch is None else f"raised {type(e_torch).__name__}: {e_torch}"
            return Discrepancy(program, step, f"agv {ours}\n  torch {theirs}")
        if e_agv is not None and builtin_class(e_agv) is not builtin_class(e_torch):
            return Discrepancy(
                program,
                step,
                f"exception classes differ\n  agv:   {type(e_agv).__name__}: {e_agv}"
                f"\n  torch: {type(e_torch).__name__}: {e_torch}",
            )
        if op.out is not None and e_agv is None:
            envs[agv][op.out], envs[torch][op.out] = r_agv, r_torch
            if op.kind == "leaf" and op.params[3]:
                leaves.append(op.out)
        # every live slot, since an in-place op changes the views that share its data
        for slot in envs[torch]:
            problem = compare_tensors(envs[agv][slot], envs[torch][slot], v(slot))
            if problem:
                return Discrepancy(program, step, problem)
        if op.kind == "backward" and e_agv is None:
            ga, gt = _grads(envs[agv], leaves), _grads(envs[torch], leaves)
            for slot in leaves:
                problem = compare_tensors(ga.get(slot), gt.get(slot), f"{v(slot)}.grad")
                if problem:
                    return Discrepancy(program, step, problem)
    return None


# =======================================================================================
# The generator
# =======================================================================================
def _broadcast(s1, s2):
    try:
        return tuple(torch.broadcast_shapes(tuple(s1), tuple(s2)))
    except RuntimeError:
        return None


@st.composite
def leaf_shape(draw, base):
    if draw(st.integers(0, 9)) == 0:  # an unrelated shape, size-0 dims allowed
        return tuple(draw(st.lists(st.integers(0, 3), max_size=3)))
    shape = list(base[draw(st.integers(0, len(base))) :])  # drop some leading dims
    for i in range(len(shape)):
        if draw(st.integers(0, 3)) == 0:
            shape[i] = 1
    return tuple(shape)


@st.composite
def values_for(draw, shape, dtype, finite=False):
    n = int(np.prod(shape, dtype=np.int64))
    if dtype == "bool":
        return draw(st.lists(st.booleans(), min_size=n, max_size=n))
    if dtype == "int64":
        return draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n))
    nice = st.sampled_from(NICE_FLOATS)
    anyf = st.floats(-3, 3, allow_nan=False, width=32 if dtype == "float32" else 64)
    elem = (
        st.one_of(nice, nice, anyf)
        if finite
        else st.one_of(nice, nice, anyf, st.sampled_from(SPECIAL_FLOATS))
    )
    return draw(st.lists(elem, min_size=n, max_size=n))


class _Gen:
    """What the generator knows while drawing: the ops so far and a torch env."""

    def __init__(self, draw):
        self.draw = draw
        self.ops = []
        self.env = {}  # slot -> torch tensor, for the slots that exist
        self.slots = {}  # slot -> SlotInfo
        self.next_slot = 0

    def add(self, kind, refs=(), params=(), out=True):
        op = Op(kind, tuple(refs), tuple(params), self.next_slot if out else None)
        result, error = _run_one(torch, self.env, op)
        self.ops.append(op)
        if out:
            if error is None and isinstance(result, torch.Tensor):
                self.env[op.out] = result
                self.slots[op.out] = SlotInfo(
                    tuple(result.shape), dtype_name(result), result.requires_grad, result.is_leaf
                )
            self.next_slot += 1
        return error

    def pick(self, slots=None):
        slots = sorted(self.env) if slots is None else slots
        return self.draw(st.sampled_from(slots))

    def t(self, slot):
        return self.env[slot]

    def dim(self, n, extra=0):
        """A dim for an ndim-n tensor (n + extra positions), now and then one out of range."""
        size = max(n + extra, 1)
        if self.draw(st.integers(0, 19)) == 0:
            return self.draw(st.sampled_from([size, -size - 1]))
        return self.draw(st.integers(-size, size - 1))

    def partner(self, slot, want=lambda t: True):
        """Another slot to combine with: one that broadcasts with `slot`, mostly."""
        s = self.t(slot).shape
        fits = [k for k in sorted(self.env) if _broadcast(s, self.t(k).shape) is not None and want(self.t(k))]
        if fits and self.draw(st.integers(0, 9)) > 0:
            return self.pick(fits)
        return self.pick()

    def floats(self):
        return [k for k in sorted(self.env) if self.t(k).is_floating_point()]


@st.composite
def index_items(draw, gen, slot, for_write=False):
    t = gen.t(slot)
    shape = t.shape
    n = len(shape)
    form = draw(st.sampled_from(["slice", "int", "list", "mask", "mixed"]))
    if n == 0:
        form = draw(st.sampled_from(["ellipsis", "none", "mask", "int"]))
    if form == "ellipsis":
        return (("ellipsis",),)
    if form == "none":
        return (("none",),)
    d = draw(st.integers(0, max(n - 1, 0)))
    size = shape[d] if n else 1
    lead = (("slice", None, None, None),) * d
    if form == "int":
        k = draw(st.integers(-size, size - 1)) if size and draw(st.integers(0, 9)) else size
        return (*lead, ("int", k))
    if form == "slice":
        start = draw(st.sampled_from([None, 0, 1, -1, -2]))
        stop = draw(st.sampled_from([None, -1, 2, 1]))
        step = draw(
            st.sampled_from([None, 2, 1, 3, -1] if draw(st.integers(0, 19)) == 0 else [None, 2, 1, 3])
        )
        return (*lead, ("slice", start, stop, step))
    if form == "list":
        if size == 0:
            return (*lead, ("list", []))
        k = draw(st.lists(st.integers(-size, size - 1), min_size=1, max_size=4))
        if draw(st.integers(0, 19)) == 0:
            k = [*k, size]  # out of range
        return (*lead, ("list", k))
    if form == "mask":
        # a bool slot (or `slot > 0` inline) whose shape is a prefix of this shape
        masks = [
            k
            for k in sorted(gen.env)
            if gen.t(k).ndim <= n
            and tuple(gen.t(k).shape) == tuple(shape[: gen.t(k).ndim])
            and gen.t(k).ndim > 0
        ]
        if n == 0 or not masks:
            return (("mask", slot, True),)
        m = draw(st.sampled_from(masks))
        return (("mask", m, gen.t(m).dtype != torch.bool),)
    # mixed: a slice on one dim, an int or list on another
    items = [("slice", draw(st.sampled_from([None, 1])), None, draw(st.sampled_from([None, 2])))]
    if n >= 2 and shape[1]:
        items.append(draw(st.sampled_from([("int", 0), ("int", -1), ("list", [0, -1, 0])])))
    return tuple(items)


def _factor_shapes(numel):
    opts = [(-1,), (numel,)]
    for a in range(1, numel + 1):
        if numel % a == 0:
            opts.append((a, numel // a))
            opts.append((a, -1))
            for b in range(1, numel // a + 1):
                if (numel // a) % b == 0:
                    opts.append((a, b, numel // a // b))
    if numel == 0:
        opts += [(0, 2), (2, 0, 3), (0, -1)]
    if numel == 1:
        opts += [(), (1, 1)]
    return opts


OP_WEIGHTS = {
    "unary": 8,
    "clamp": 1,
    "cast": 2,
    "binary": 10,
    "maxmin": 2,
    "compare": 2,
    "where": 2,
    "reduce": 5,
    "softmax": 2,
    "matmul": 2,
    "view": 10,
    "index": 4,
    "inplace": 6,
    "setitem": 4,
    "copy_": 1,
    "clone": 1,
}
CATEGORIES = [c for c, w in OP_WEIGHTS.items() for _ in range(w)]


def draw_op(draw, gen: _Gen):
    cat = draw(st.sampled_from(CATEGORIES))
    a = gen.pick()
    ta = gen.t(a)
    n = ta.ndim
    if cat == "unary":
        gen.add(draw(st.sampled_from(UNARY)), [a])
    elif cat == "clamp":
        lo = draw(st.sampled_from([-1.0, None, 0.0, 0.5]))
        hi = draw(st.sampled_from([1.0, None, 2.0]))
        gen.add("clamp", [a], [lo, hi])
    elif cat == "cast":
        gen.add(draw(st.sampled_from(CASTS)), [a])
    elif cat == "clone":
        gen.add(draw(st.sampled_from(["clone", "detach"])), [a])
    elif cat in ("binary", "compare"):
        name = draw(st.sampled_from(["add", "sub", "mul", "div", "pow"] if cat == "binary" else ["gt", "eq"]))
        form = draw(st.sampled_from(["tt", "tt", "ts", "st"] if cat == "binary" else ["tt", "ts"]))
        if form == "tt":
            gen.add(name, [a, gen.partner(a)], ["tt"])
        else:
            gen.add(name, [a], [form, draw(st.sampled_from(NICE_SCALARS))])
    elif cat == "maxmin":
        gen.add(draw(st.sampled_from(["maximum", "minimum"])), [a, gen.partner(a)])
    elif cat == "where":
        c = gen.partner(a)
        b = gen.partner(a) if draw(st.booleans()) else None
        is_bool = gen.t(c).dtype == torch.bool
        if b is None:
            gen.add("where", [c, a], [is_bool, draw(st.sampled_from([0.0, 1.0, -1.0]))])
        else:
            gen.add("where", [c, a, b], [is_bool, None])
    elif cat == "reduce":
        name = draw(st.sampled_from(["sum", "mean", "max", "min"]))
        if draw(st.integers(0, 2)) == 0:
            gen.add(name, [a], [None, False, None])
        else:
            dim = gen.dim(n)
            if name in ("sum", "mean") and n >= 2 and draw(st.integers(0, 4)) == 0:
                dim = (0, -1)
            pick = draw(st.sampled_from(["values", "indices"])) if name in ("max", "min") else None
            gen.add(name, [a], [dim, draw(st.booleans()), pick])
    elif cat == "softmax":
        gen.add(draw(st.sampled_from(["softmax", "log_softmax"])), [a], [gen.dim(n)])
    elif cat == "matmul":
        fits = []
        for k in sorted(gen.env):
            try:
                torch.matmul(ta, gen.t(k))
                fits.append(k)
            except RuntimeError:
                pass
        if fits and draw(st.integers(0, 4)):
            gen.add("matmul", [a, gen.pick(fits)], [False])
        elif n >= 2 and draw(st.booleans()):
            gen.add("matmul", [a, a], [True])
        else:
            gen.add("matmul", [a, gen.pick()], [False])
    elif cat == "view":
        form = draw(
            st.sampled_from(
                ["transpose", "permute", "t", "reshape", "view", "unsqueeze", "squeeze", "expand"]
            )
        )
        if form == "transpose":
            gen.add("transpose", [a], [gen.dim(n), gen.dim(n)])
        elif form == "permute":
            perm = list(draw(st.permutations(list(range(n)))))
            gen.add("permute", [a], [tuple(perm)])
        elif form == "t":
            gen.add("t", [a])
        elif form in ("reshape", "view"):
            gen.add(form, [a], [draw(st.sampled_from(_factor_shapes(ta.numel())))])
        elif form == "unsqueeze":
            gen.add("unsqueeze", [a], [gen.dim(n, extra=1)])
        elif form == "squeeze":
            gen.add("squeeze", [a], [gen.dim(n)] if draw(st.booleans()) else [])
        else:
            sizes = [
                draw(st.sampled_from([1, 2, 3, -1])) if s == 1 else draw(st.sampled_from([s, -1]))
                for s in ta.shape
            ]
            if draw(st.integers(0, 3)) == 0:
                sizes = [2, *sizes]
            gen.add("expand", [a], [tuple(sizes)])
    elif cat == "index":
        items = draw(index_items(gen, a))
        masks = [it[1] for it in items if it[0] == "mask"]
        gen.add("index", [a, *masks], [items])
    elif cat == "inplace":
        name = draw(st.sampled_from(["add_", "mul_", "sub_", "div_", "zero_"]))
        if name == "zero_":
            gen.add("zero_", [a], [], out=False)
        elif draw(st.booleans()):
            gen.add(name, [a], [draw(st.sampled_from(NICE_SCALARS))], out=False)
        else:
            gen.add(name, [a, _writable_partner(draw, gen, ta.shape)], [None], out=False)
    elif cat == "copy_":
        gen.add("copy_", [a, _writable_partner(draw, gen, ta.shape)], [], out=False)
    elif cat == "setitem":
        items = draw(index_items(gen, a, for_write=True))
        masks = [it[1] for it in items if it[0] == "mask"]
        try:
            target = tuple(ta[index_value(gen.env, items)].shape)
        except Exception:  # noqa: BLE001 - a bad index: the statement will raise
            target = ()
        if draw(st.booleans()):
            gen.add(
                "setitem", [a, *masks], [items, draw(st.sampled_from([0.0, 1.0, -1.0, 2])), None], out=False
            )
        else:
            b = _writable_partner(draw, gen, target)
            gen.add("setitem", [a, *masks, b], [items, None, b], out=False)


def _writable_partner(draw, gen, shape):
    """A slot whose shape broadcasts *to* `shape` (what an in-place op needs), mostly."""
    fits = [k for k in sorted(gen.env) if _broadcast(gen.t(k).shape, shape) == tuple(shape)]
    if fits and draw(st.integers(0, 9)) > 0:
        return gen.pick(fits)
    return gen.pick()


@st.composite
def programs(draw, min_ops=MIN_OPS, max_ops=MAX_OPS):
    gen = _Gen(draw)
    base = tuple(draw(st.lists(st.integers(1, 3), max_size=3)))
    for _ in range(draw(st.integers(1, 3))):
        shape = draw(leaf_shape(base))
        dtype = draw(st.sampled_from(["float64"] * 7 + ["float32", "int64", "bool"]))
        values = draw(values_for(shape, dtype))
        rg = dtype.startswith("float") and draw(st.integers(0, 4)) > 0
        gen.add("leaf", [], [shape, dtype, values, rg])
    for _ in range(draw(st.integers(min_ops, max_ops))):
        if not gen.env:
            break
        draw_op(draw, gen)
    # the backward: of the last tensor(s) that require grad, or of anything (to raise alike)
    wanted = [k for k in sorted(gen.env) if gen.t(k).requires_grad]
    if not wanted:
        wanted = sorted(gen.env)
    if wanted:
        mode = draw(st.sampled_from(["sum", "sum", "grad", "twice"]))
        target = wanted[-1] if draw(st.integers(0, 2)) else gen.pick(wanted)
        if mode == "grad":
            t = gen.t(target)
            dt = dtype_name(t) if t.is_floating_point() else "float64"
            g = (tuple(t.shape), dt, draw(values_for(tuple(t.shape), dt, finite=True)))
            gen.add("backward", [target], ["grad", g], out=False)
        else:
            refs = [target]
            if len(wanted) > 1 and draw(st.integers(0, 3)) == 0:
                other = gen.pick(wanted)
                if other != target:
                    refs.append(other)
            gen.add("backward", refs, [mode, None], out=False)
    return Program(gen.ops, gen.slots)
