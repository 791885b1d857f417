"""The rules the stepper shows learners, checked against the maths they describe.

Each elementwise node's `rules` are text ("∂(aᵖ)/∂a = p·aᵖ⁻¹"), and its `vjp` is
code that PyTorch verifies elsewhere. Nothing else ties the two: a rule could say
one thing while backward does another. So a small translator below reads a
rule's right-hand side as a numpy expression, and every elementwise node is
built through its real op, at a few points, to compare the rule's values with
`vjp(numpy_math, ones, *saved)`, which is what the stepper shows as the local
derivative.

The notation the translator reads (a new rule must keep to it, or this fails):

- the formula after " = " (a rule without "∂... =" is all formula);
- · × / + -, implicit products (2√a, p(1 - p), (w - 1)y), ½;
- superscripts as powers (b², aᵖ⁻¹, eᵃ, kᵇ), tanh²(a) for tanh(a)²;
- √a, |a|, ln a, log(a), exp, sin, cos, tanh, sign, σ(x), softplus(x);
- "X if C else Y"; "V where C, W where D" (0 elsewhere, or ", else U");
- conditions with < > ≤ ≥ = ≠, chained (min ≤ a ≤ max), and "not C";
- "F; with pos_weight w: G": G when the op was given pos_weight (bound to w);
- ", back in a's dtype": the gradient also comes back in input a's dtype.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import pytest

import autogradviz as agv
import autogradviz.nn.functional as F
from autogradviz.core.graph import Node
from autogradviz.core.graph_api import node_classes
from autogradviz.ops import numpy_math

# -- the translator: rule text -> numpy expression -------------------------------------------------

SUPERSCRIPTS = str.maketrans("ᵃᵇᵖᵏˣʸⁿⁱ⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺⁽⁾", "abpkxyni0123456789-+()")
# the rules' function names, and the numpy function each one means
FUNCTIONS = {
    "sin": "np.sin",
    "cos": "np.cos",
    "tanh": "np.tanh",
    "sinh": "np.sinh",
    "cosh": "np.cosh",
    "tan": "np.tan",
    "exp": "np.exp",
    "log": "np.log",
    "ln": "np.log",
    "sign": "np.sign",
    "σ": "sigmoid",
    "softplus": "softplus",
}
# the names a rule may use: the inputs, the op's parameters, the upstream g, Euler's e, π
VARIABLES = {"a", "b", "p", "k", "x", "y", "w", "g", "cond", "min", "max", "negative_slope", "e", "π"}
COMPARISONS = {"<": "<", ">": ">", "≤": "<=", "≥": ">=", "=": "==", "≠": "!="}
TOKEN = re.compile(
    r"\s*(?:(?P<sup>[ᵃᵇᵖᵏˣʸⁿⁱ⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺⁽⁾]+)|(?P<num>\d+(?:\.\d+)?|½)"
    r"|(?P<name>[A-Za-z_σπ][A-Za-z_0-9]*)|(?P<cmp>[<>≤≥=≠])|(?P<op>[-+*/()·×√|]))"
)


class RuleSyntaxError(ValueError):
    pass


def tokenize(text: str) -> list[tuple[str, str]]:
    tokens, position = [], 0
    text = text.rstrip()
    while position < len(text):
        match = TOKEN.match(text, position)
        if match is None or match.end() == position:
            raise RuleSyntaxError(f"can't read {text[position:]!r} in {text!r}")
        tokens.append((match.lastgroup, match[match.lastgroup]))
        position = match.end()
    return tokens


class Reader:
    """Recursive descent over one formula or condition: returns Python source."""

    def __init__(self, text: str):
        self.text, self.tokens, self.i = text, tokenize(text), 0

    def peek(self) -> tuple[str | None, str | None]:
        return self.tokens[self.i] if self.i < len(self.tokens) else (None, None)

    def take(self, expected: str | None = None) -> tuple[str, str]:
        kind, text = self.peek()
        if kind is None or (expected is not None and text != expected):
            raise RuleSyntaxError(f"expected {expected or 'more'} in {self.text!r}, got {text!r}")
        self.i += 1
        return kind, text

    def whole(self, read) -> str:
        out = read()
        if self.peek()[0] is not None:
            raise RuleSyntaxError(f"unexpected {self.peek()[1]!r} in {self.text!r}")
        return out

    def condition(self) -> str:
        if self.peek() == ("name", "not"):
            self.take()
            return f"np.logical_not({self.condition()})"
        parts, ops = [self.expr()], []
        while self.peek()[0] == "cmp":
            ops.append(COMPARISONS[self.take()[1]])
            parts.append(self.expr())
        if not ops:
            return parts[0]
        # a chain such as min ≤ a ≤ max means each comparison holds (Python's `and` fails on arrays)
        return "(" + " & ".join(f"({x} {op} {y})" for x, op, y in zip(parts, ops, parts[1:])) + ")"

    def expr(self) -> str:
        out = self.term()
        while self.peek()[1] in ("+", "-"):
            out += f" {self.take()[1]} {self.term()}"
        return out

    def term(self) -> str:
        out = self.unary()
        while True:
            kind, text = self.peek()
            if text in ("*", "/", "·", "×"):
                self.take()
                out += f" {'/' if text == '/' else '*'} {self.unary()}"
            elif kind == "num" or (kind == "name" and text != "not") or text in ("(", "√"):
                out += f" * {self.unary()}"  # an implicit product: 2√a, p(1 - p), (w - 1)y
            else:
                return out

    def unary(self) -> str:
        if self.peek()[1] == "-":
            self.take()
            return f"-{self.unary()}"
        return self.power()

    def power(self) -> str:
        base = self.atom()
        if self.peek()[0] == "sup":
            return f"({base})**({exponent(self.take()[1])})"
        return base

    def atom(self) -> str:
        kind, text = self.take()
        if kind == "num":
            return "0.5" if text == "½" else text
        if text == "(":
            inner = self.expr()
            self.take(")")
            return f"({inner})"
        if text == "√":
            return f"np.sqrt({self.power()})"
        if text == "|":
            inner = self.expr()
            self.take("|")
            return f"np.abs({inner})"
        if kind == "name" and text in FUNCTIONS:
            power = exponent(self.take()[1]) if self.peek()[0] == "sup" else None  # tanh²(a)
            argument = self.atom() if self.peek()[1] == "(" else self.power()  # ln(a), or ln a
            call = f"{FUNCTIONS[text]}({argument})"
            return call if power is None else f"({call})**({power})"
        if kind == "name" and text in VARIABLES:
            return text
        raise RuleSyntaxError(f"unexpected {text!r} in {self.text!r}")


def exponent(superscripts: str) -> str:
    return formula(superscripts.translate(SUPERSCRIPTS))


def formula(text: str) -> str:
    reader = Reader(text)
    return reader.whole(reader.expr)


def condition(text: str) -> str:
    reader = Reader(text)
    return reader.whole(reader.condition)


def split_top_level(text: str, separator: str) -> list[str]:
    """Split at `separator` outside parentheses."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(text):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0 and text.startswith(separator, i):
            parts.append(text[start:i])
            i = start = i + len(separator)
            continue
        i += 1
    return parts + [text[start:]]


def value(text: str) -> str:
    """A right-hand side without options: a formula, "X if C else Y", or pieces."""
    text = text.strip()
    match = re.fullmatch(r"(.+) if (.+) else (.+)", text)
    if match:
        return f"np.where({condition(match[2])}, {formula(match[1])}, {formula(match[3])})"
    if " where " not in text:
        return formula(text)
    pieces, otherwise = [], "0"
    for piece in split_top_level(text, ", "):
        if piece.startswith("else "):
            otherwise = piece[len("else ") :]
        elif piece.endswith(" elsewhere"):
            otherwise = piece[: -len(" elsewhere")]
        else:
            result, found, when = piece.partition(" where ")
            if not found:
                raise RuleSyntaxError(f"a piece without 'where' in {text!r}: {piece!r}")
            pieces.append((formula(result), condition(when)))
    code = formula(otherwise)
    for result, when in reversed(pieces):  # the first piece whose condition holds wins
        code = f"np.where({when}, {result}, {code})"
    return code


@dataclass
class Rule:
    text: str
    input_name: str | None  # the input the left-hand side names (∂/∂a: "a"), if it names one
    code: str  # the formula, as numpy source
    variants: dict[str, tuple[str, str]] = field(default_factory=dict)  # option: (its variable, code)
    dtype_of: str | None = None  # "back in a's dtype": "a"

    def evaluate(self, env: dict, options: frozenset) -> np.ndarray:
        code, env = self.code, dict(env)
        for option in options & self.variants.keys():
            variable, code = self.variants[option]
            env[variable] = env[option]
        return eval(code, dict(NAMESPACE), env)  # our own rule text, translated above


def compile_rule(text: str) -> Rule:
    input_name, rhs = None, text
    if text.startswith("∂"):
        lhs, found, rhs = text.partition(" = ")
        if not found:
            raise RuleSyntaxError(f"a rule starting with ∂ needs ' = ': {text!r}")
        named = re.search(r"/∂([A-Za-z_]+)[ᵢⱼ]*\)?$", lhs)
        input_name = named[1] if named else None
    dtype_of = None
    dtype = re.fullmatch(r"(.+), back in (\w+)'s dtype", rhs)
    if dtype:
        rhs, dtype_of = dtype[1], dtype[2]
    base, *options = rhs.split("; with ")
    variants = {}
    for option in options:
        match = re.fullmatch(r"(\w+) (\w+): (.+)", option)
        if match is None:
            raise RuleSyntaxError(f"an option reads '; with <option> <variable>: <formula>': {text!r}")
        variants[match[1]] = (match[2], value(match[3]))
    return Rule(text, input_name, value(base), variants, dtype_of)


NAMESPACE = {
    "np": np,
    "e": np.e,
    "π": np.pi,
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "softplus": lambda x: np.logaddexp(0, x),
    "__builtins__": {},
}


def test_the_translator_reads_the_notation():
    a, b, p = np.array([0.5, 2.0]), np.array([1.5, -3.0]), 2.5
    env = {"a": a, "b": b, "p": p, "x": b, "y": a, "min": 0.6, "max": 2.0, "g": 1.0, "cond": a > 1}
    cases = {
        "∂(aᵖ)/∂a = p·aᵖ⁻¹": p * a ** (p - 1),
        "-a/b²": -a / b**2,
        "1/(2√a)": 1 / (2 * np.sqrt(a)),
        "∂tanh(a)/∂a = 1 - tanh²(a)": 1 - np.tanh(a) ** 2,
        "aᵇ·ln a": a**b * np.log(a),
        "eᵃ": np.exp(a),
        "(p - y) / (p(1 - p))": (p - a) / (p * (1 - p)),
        "(1 + (b - 1)y)·|x|": (1 + (b - 1) * a) * np.abs(b),
        "½ where a = a, 1 where a > b": np.full(2, 0.5),
        "1 if min ≤ a ≤ max else 0": np.array([0.0, 1.0]),
        "g where not cond, else 3": np.array([1.0, 3.0]),
        "2 where a > 1, 1 where a < 1": np.array([1.0, 2.0]),
    }
    for text, expected in cases.items():
        np.testing.assert_allclose(compile_rule(text).evaluate(env, frozenset()), expected, err_msg=text)
    rule = compile_rule("∂ℓ/∂x = x; with pos_weight w: w·x, back in x's dtype")
    assert (rule.input_name, rule.dtype_of) == ("x", "x")
    np.testing.assert_allclose(rule.evaluate({"x": b, "pos_weight": 2.0}, frozenset({"pos_weight"})), 2 * b)
    for unreadable in ("the same gradient, back in the input's dtype", "a ≈ b", "1 where", "2 ln"):
        with pytest.raises(RuleSyntaxError):
            compile_rule(unreadable)


# -- the elementwise nodes, built through their ops -------------------------------------------------


@dataclass
class Probe:
    node: Node
    names: tuple[str, ...]  # each input's name in the rules: a, b, p, x, y ...
    env: dict  # the names' values: the inputs, and the op's parameters (p, k, negative_slope ...)
    options: frozenset = frozenset()  # the options the op was given, for "; with <option>" rules


def leaf(*values, dtype=agv.float64):
    return agv.tensor(list(values), dtype=dtype, requires_grad=True)


def node_of(y, name: str) -> Node:
    """The node called `name` in y's graph: y's own, or one further down (after a reduction)."""
    todo, seen = [y.grad_fn], set()
    while todo:
        node = todo.pop(0)
        if node is None or id(node) in seen:
            continue
        if type(node).__name__ == name:
            return node
        seen.add(id(node))
        todo.extend(n for n, _ in node.next_functions)
    raise LookupError(f"no {name} in the graph")


def probe(y, names, inputs, name=None, options=(), **params) -> Probe:
    """`inputs`: tensors or numbers, in the op's input order."""
    values = [t.detach().numpy() if isinstance(t, agv.Tensor) else np.float64(t) for t in inputs]
    node = y.grad_fn if name is None else node_of(y, name)
    return Probe(node, tuple(names), {**dict(zip(names, values)), **params}, frozenset(options))


def unary(op, *points, **params):
    """Probes of a one-input op at `points`, the input called a."""
    return lambda: [probe(op(x := leaf(*points)), "a", [x], **params)]


# away from the points where a derivative is undefined (a = 0 for log, or ties), unless the
# rule says what happens there (relu at 0, clamp at its bounds, ties of maximum)
MIXED = (-2.5, -1.0, -0.3, 0.4, 1.0, 3.2)
POSITIVE = (0.2, 0.5, 1.0, 1.7, 2.5, 4.0)


def pairs(op, a_points, b_points, names="ab"):
    a, b = leaf(*a_points), leaf(*b_points)
    return probe(op(a, b), names, [a, b])


def broadcast(op):
    """A broadcasting op on a (2, 3) and a (3,) input: backward returns both gradients in the
    output's shape (the engine sums them down), and the rule, evaluated on the inputs, broadcasts."""
    a = agv.tensor([[-1.0, 0.5, 2.0], [3.0, -0.5, 1.0]], dtype=agv.float64, requires_grad=True)
    b = leaf(2.0, 0.5, -1.5)
    return probe(op(a, b), "ab", [a, b])


def pow_cases():
    out = []
    for p, points in ((2.5, POSITIVE), (3, MIXED), (2, MIXED), (0, MIXED), (1, MIXED), (-1.5, POSITIVE)):
        out.append(probe((a := leaf(*points)) ** p, "a", [a], p=p))
    return out


def pow2_cases():
    return [probe(k ** (b := leaf(*MIXED)), "b", [b], k=k) for k in (2.0, 0.5, 3.7)]


def clamp_cases():
    points = (-2.0, -0.5, -0.2, 0.0, 0.5, 0.9)  # with both bounds among them: the rule says ≤
    out = []
    for low, high in ((-0.5, 0.5), (0.0, None), (None, -0.2)):
        a = leaf(*points)
        env = {"min": -np.inf if low is None else low, "max": np.inf if high is None else high}
        out.append(probe(a.clamp(low, high), "a", [a], **env))
    return out


def clamp_tensor_cases():
    """clamp with tensor bounds, which get gradients too: ties with a, a place where
    min > max (the result is max there), and bounds that broadcast, one at a time."""
    a = leaf(-2.0, -0.5, -0.2, 0.0, 0.5, 0.9)
    low, high = leaf(-0.5, -0.5, 0.0, 0.5, 1.0, -1.0), leaf(0.5, 1.0, -0.2, 0.4, 2.0, 0.0)
    out = [probe(a.clamp(low, high), ("a", "min", "max"), [a, low, high])]
    column = agv.tensor([[-0.3], [0.5]], dtype=agv.float64, requires_grad=True)
    out.append(probe(a.clamp(min=column), ("a", "min", "max"), [a, column, np.inf]))
    out.append(probe(a.clamp(max=column), ("a", "min", "max"), [a, -np.inf, column]))
    return out


def extremes(op):
    def cases():
        a_points, b_points = (-1.0, 0.5, 2.0, 2.0, -3.0, 0.0), (1.0, 0.5, -1.0, 2.0, -3.5, 0.0)  # ties too
        return [pairs(op, a_points, b_points), pairs(op, b_points, a_points), broadcast(op)]

    return cases


def where_cases():
    cond = np.array([True, False, True, False, False, True])
    a, b = leaf(*MIXED), leaf(*POSITIVE)
    out = [probe(agv.where(agv.tensor(cond), a, b), "ab", [a, b], cond=cond)]
    x = leaf(*MIXED)  # a condition made from a tensor, and a number for b
    out.append(probe(agv.where(x > 0, x, 0.0), "ab", [x, 0.0], cond=x.detach().numpy() > 0))
    return out


def leaky_relu_cases():
    out = []
    for slope in (0.01, 0.2):
        a = leaf(*MIXED, 0.0)
        out.append(probe(F.leaky_relu(a, slope), "a", [a], negative_slope=slope))
    return out


def leaky_relu_inplace_cases():
    a = leaf(*MIXED, 0.0)
    y = F.leaky_relu(a * 1, 0.3, inplace=True)  # the node's input is a * 1, equal to a
    return [probe(y, "a", [a], negative_slope=0.3)]


def to_cases():
    a64, a32 = leaf(*MIXED), leaf(*MIXED, dtype=agv.float32)
    return [probe(a64.to(agv.float32), "a", [a64]), probe(a32.double(), "a", [a32])]


def add_n_cases():
    a, b, c = leaf(*MIXED), leaf(*MIXED), leaf(*MIXED)
    return [probe(agv.add_n([a, b, c]), "aaa", [a, b, c]), probe(agv.add_n([a]), "a", [a])]


CASES = {
    "AddBackward0": lambda: [
        pairs(lambda a, b: a + b, MIXED, POSITIVE),
        probe((a := leaf(*MIXED)) + 2.5, "ab", [a, 2.5]),
        probe(2.5 + (a := leaf(*MIXED)), "ab", [a, 2.5]),  # recorded as a + 2.5, as in PyTorch
        broadcast(lambda a, b: a + b),
    ],
    "SubBackward0": lambda: [pairs(lambda a, b: a - b, MIXED, POSITIVE)],
    "MulBackward0": lambda: [
        pairs(lambda a, b: a * b, MIXED, (0.5, -2.0, 1.0, 3.0, -0.1, 0.0)),
        probe((a := leaf(*MIXED)) * 2.5, "ab", [a, 2.5]),
        probe(2.5 * (a := leaf(*MIXED)), "ab", [a, 2.5]),  # recorded as a * 2.5, as in PyTorch
        broadcast(lambda a, b: a * b),
    ],
    "DivBackward0": lambda: [
        pairs(lambda a, b: a / b, MIXED, (-2.0, -0.5, 0.3, 1.0, 2.5, 7.0)),
        probe((a := leaf(*MIXED)) / 2.0, "ab", [a, 2.0]),  # (2 / x is reciprocal(x) * 2, as in PyTorch)
    ],
    "NegBackward0": unary(lambda a: -a, *MIXED),
    "PowBackward0": pow_cases,
    "PowBackward1": lambda: [pairs(lambda a, b: a**b, POSITIVE, (-1.5, 0.0, 0.5, 1.0, 2.0, 3.0))],
    "PowBackward2": pow2_cases,
    "RsubBackward1": lambda: [probe(2.0 - (b := leaf(*MIXED)), "b", [b], k=2.0)],
    "SignBackward0": unary(agv.sign, *MIXED, 0.0),
    "AbsBackward0": unary(agv.abs, *MIXED, 0.0),  # the rule, sign(a), says 0 at 0, as backward does
    "ExpBackward0": unary(agv.exp, *MIXED),
    "LogBackward0": unary(agv.log, *POSITIVE),
    "SqrtBackward0": unary(agv.sqrt, *POSITIVE),
    "SinBackward0": unary(agv.sin, *MIXED),
    "CosBackward0": unary(agv.cos, *MIXED),
    "TanhBackward0": unary(agv.tanh, *MIXED),
    "SigmoidBackward0": unary(agv.sigmoid, *MIXED),
    "ReluBackward0": unary(agv.relu, *MIXED, 0.0),  # "1 if a > 0 else 0": 0 at 0
    "LeakyReluBackward0": leaky_relu_cases,
    "LeakyReluBackward1": leaky_relu_inplace_cases,
    "ClampBackward1": clamp_cases,
    "ClampBackward0": clamp_tensor_cases,
    "MaximumBackward0": extremes(agv.maximum),
    "MinimumBackward0": extremes(agv.minimum),
    "WhereBackward0": where_cases,
    "CloneBackward0": unary(lambda a: a.clone(), *MIXED),
    "ToCopyBackward0": to_cases,
    "AddNBackward0": add_n_cases,
    "DivBackward1": lambda: [  # the mean of cross_entropy with class probabilities: ÷ the batch size
        probe(
            F.cross_entropy(leaf(*MIXED).reshape(2, 3), agv.full((2, 3), 1 / 3, dtype=agv.float64)),
            "a",
            [0.0],  # the rule, 1/k, does not read its input
            k=2,
        )
    ],
    # issue 12's math (ops/pointwise.py)
    "Log10Backward0": unary(agv.log10, *POSITIVE),
    "Log2Backward0": unary(agv.log2, *POSITIVE),
    "Log1PBackward0": unary(agv.log1p, *POSITIVE, -0.5),
    "Expm1Backward0": unary(agv.expm1, *MIXED),
    "Exp2Backward0": unary(agv.exp2, *MIXED),
    "SinhBackward0": unary(agv.sinh, *MIXED),
    "CoshBackward0": unary(agv.cosh, *MIXED),
    "TanBackward0": unary(agv.tan, *MIXED),
    "AsinBackward0": unary(agv.asin, -0.9, -0.3, 0.0, 0.4, 0.8),
    "AcosBackward0": unary(agv.acos, -0.9, -0.3, 0.0, 0.4, 0.8),
    "AtanBackward0": unary(agv.atan, *MIXED),
    "Atan2Backward0": lambda: [pairs(agv.atan2, MIXED, POSITIVE), broadcast(agv.atan2)],
    "ReciprocalBackward0": unary(agv.reciprocal, *MIXED),
    "RsqrtBackward0": unary(agv.rsqrt, *POSITIVE),
    "FloorBackward0": unary(agv.floor, *MIXED),
    "CeilBackward0": unary(agv.ceil, *MIXED),
    "RoundBackward0": unary(agv.round, *MIXED),
    "RoundBackward1": unary(lambda a: agv.round(a, decimals=1), *MIXED),
    "TruncBackward0": unary(agv.trunc, *MIXED),
    "ErfBackward0": unary(agv.erf, *MIXED),
}


ELEMENTWISE = sorted(cls.__name__ for cls in node_classes() if cls.elementwise)


def test_every_elementwise_node_has_a_case():
    # a new elementwise op must show here that its rules match its vjp
    missing = sorted(set(ELEMENTWISE) - CASES.keys())
    assert not missing, f"add a case to CASES in {__file__} for: {', '.join(missing)}"
    stale = sorted(CASES.keys() - set(ELEMENTWISE))
    assert not stale, f"CASES names nodes that are not elementwise (any more): {', '.join(stale)}"


def check(probe: Probe, rules: tuple[str, ...]) -> None:
    node = probe.node
    ones = np.ones_like(node.output)  # the stepper's upstream for "the local derivative"
    grads = node.vjp(numpy_math, ones, *node.unpack_saved())
    # one rule per input; a variadic op (add_n) has one rule for all its inputs
    assert len(rules) == len(grads) or len(rules) == 1, (
        f"{node.name()}: {len(rules)} rules, {len(grads)} inputs"
    )
    assert len(probe.names) == len(grads)
    env = {**probe.env, "g": ones}
    for i, grad in enumerate(grads):
        if grad is None:  # no gradient asked for this input (a number, say)
            assert node.edges[i] is None
            continue
        rule = compile_rule(rules[i] if len(rules) == len(grads) else rules[0])
        if rule.input_name is not None:
            assert rule.input_name == probe.names[i], f"{rule.text!r} is the rule of input {i}"
        expected = np.broadcast_to(rule.evaluate(env, probe.options), np.shape(grad))
        np.testing.assert_allclose(
            grad, expected, rtol=1e-10, atol=1e-12, equal_nan=False, err_msg=f"{node.name()}: {rule.text!r}"
        )
        if rule.dtype_of is not None:
            assert grad.dtype == probe.env[rule.dtype_of].dtype, f"{node.name()}: {rule.text!r}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_rules_match_vjp(name):
    probes = CASES[name]()
    assert probes
    for p in probes:
        assert type(p.node).__name__ == name, "the case built another node"
        check(p, type(p.node).rules)


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_variant_of_a_rule_is_checked(name):
    # a rule's "; with <option>" formula is checked only by a case that gives the option
    probes = CASES[name]()
    rules = [compile_rule(text) for text in type(probes[0].node).rules]
    options = {option for rule in rules for option in rule.variants}
    given = {option for p in probes for option in p.options}
    assert options <= given, f"{name}: no case gives {sorted(options - given)}"
    assert any(not (p.options & options) for p in probes), f"{name}: no case checks the plain rule"


def test_a_wrong_rule_fails_the_check():
    # the check is worth something only if it can fail
    (sin,) = unary(agv.sin, *MIXED)()
    with pytest.raises(AssertionError):
        check(sin, ("∂sin(a)/∂a = -cos(a)",))
    mul = CASES["MulBackward0"]()[0]
    with pytest.raises(AssertionError):
        check(mul, ("∂(a·b)/∂a = a", "∂(a·b)/∂b = b"))
    with pytest.raises(AssertionError):
        check(mul, ("∂(a·b)/∂b = a", "∂(a·b)/∂a = b"))  # right formulas, given to the wrong inputs
