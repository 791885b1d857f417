"""The layer stepper's panel: one layer's backward step in matrix form, with the real shapes.

    explain_layer(nn.Linear(4, 16), (8, 4), (8, 16), {"weight": (16, 4), "bias": (16,)}, "en")

gives HTML lines such as `Sent to the input: <code>dX = dY · W</code>: (8, 16)·(16, 4) → (8, 4)`.
The stepper (stepper.py) shows them beside the numbers of the layer's step.

The prose is in ui_text.py ("layer.*" keys, English and Chinese); the formulas are written
here, in symbols that read the same in both languages (·, ᵀ, ⊙, Σ, √). Every value that
comes from the module or the caller (a class name, a shape, stride, eps, ...) is escaped
before it reaches the HTML. The conventions are PyTorch's: a Linear layer stores its weight
as (out_features, in_features) and computes Y = X · Wᵀ + b. tests/test_layer_text.py checks
each formula against the gradients autogradviz and PyTorch compute.
"""

from __future__ import annotations

import html
import math

from ..ui_text import resolve_language, text

# a layer's kind, from its class name (or a string for a functional loss) folded to lower case
# without underscores; a subclass takes its nearest known ancestor's text
_KINDS = {
    "linear": "linear",
    "conv2d": "conv2d",
    "relu": "relu",
    "leakyrelu": "leaky_relu",
    "tanh": "tanh",
    "sigmoid": "sigmoid",
    "identity": "identity",
    "softmax": "softmax",
    "logsoftmax": "log_softmax",
    "batchnorm1d": "batch_norm",
    "batchnorm2d": "batch_norm",
    "layernorm": "layer_norm",
    "crossentropyloss": "cross_entropy",
    "crossentropy": "cross_entropy",
    "nllloss": "nll_loss",
    "nll": "nll_loss",
    "mseloss": "mse_loss",
    "mse": "mse_loss",
    "dropout": "dropout",
    "flatten": "reshape",
    "unflatten": "reshape",
    "view": "reshape",
    "reshape": "reshape",
    "maxpool2d": "max_pool",
    "avgpool2d": "avg_pool",
    "adaptiveavgpool2d": "adaptive_avg_pool",
    "embedding": "embedding",
}


class _Safe(str):
    """A field that is already HTML (built here from escaped parts): not escaped again."""


def _esc(value) -> str:
    return value if isinstance(value, _Safe) else html.escape(str(value))


def _shape(shape) -> str:
    """(8, 16), (16,) or () as Python prints a tuple; None (unknown) as (…)."""
    if shape is None:
        return "(…)"
    dims = [str(int(d)) if _is_int(d) else str(d) for d in shape]
    return "(" + ", ".join(dims) + ("," if len(dims) == 1 else "") + ")"


def _is_int(d) -> bool:
    try:
        return int(d) == d
    except (TypeError, ValueError):
        return False


def _tuple(shape):
    return None if shape is None else tuple(int(d) for d in shape)


def _pair(value, default):
    if value is None:
        return (default, default)
    if isinstance(value, str):
        return value
    if isinstance(value, (tuple, list)):
        return tuple(value) if len(value) == 2 else (value[0], value[0])
    return (value, value)


def _num(value) -> str:
    """A setting as a learner reads it: 0.01, 1e-05, 0.5 (not 0.50000001)."""
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _setting(value) -> str:
    """A stride, padding or kernel size: 2 for (2, 2), (2, 1) for (2, 1)."""
    if isinstance(value, tuple) and len(set(value)) == 1:
        return _num(value[0])
    return _num(value)


def _product(dims) -> str:
    """'8' for one size, '2·5 = 10' for several."""
    dims = [int(d) for d in dims]
    if len(dims) == 1:
        return str(dims[0])
    return "·".join(map(str, dims)) + f" = {math.prod(dims)}"


def _code(formula: str) -> _Safe:
    """A formula made of escaped parts, wrapped in <code>."""
    return _Safe(f"<code>{formula}</code>")


def _kind_of(module):
    """(kind, the name to show) or (None, None) for a module with no text."""
    if module is None:
        return None, None
    if isinstance(module, str):
        key = module.replace("_", "").replace(" ", "").lower()
        return _KINDS.get(key), module
    for cls in type(module).__mro__:
        kind = _KINDS.get(cls.__name__.replace("_", "").lower())
        if kind is not None:
            return kind, type(module).__name__
    return None, None


def explain_layer(
    module, x_shape: tuple | None, y_shape: tuple, params: dict[str, tuple], language: str
) -> list[str]:
    """HTML lines (already escaped; use html.escape on every user string) explaining the layer's
    backward step: what dY is, and the formulas for what is sent to the input and to each parameter,
    with the real shapes. module: the nn module (autogradviz.nn or a torch.nn module via the bridge -
    read only public attributes such as in_features, kernel_size, stride, padding, eps, num_features,
    type(module).__name__). x_shape: the layer's input shape (None if unknown); y_shape: its output's;
    params: parameter name -> shape (e.g. {"weight": (16, 4), "bias": (16,)}). Returns [] for a module
    it has no text for (the stepper then shows only the numbers)."""
    language = resolve_language(language)
    kind, name = _kind_of(module)
    if kind is None:
        return []
    try:
        layer = _Layer(module, name, x_shape, y_shape, params or {}, language)
        getattr(layer, kind)()
    except (TypeError, ValueError, AttributeError, IndexError, KeyError, ZeroDivisionError, OverflowError):
        return []  # an odd module or shape (a setting of an unexpected type): the stepper shows only the numbers
    return layer.lines


class _Layer:
    """Collects one layer's lines; one method per kind of layer."""

    def __init__(self, module, name, x_shape, y_shape, params, language):
        self.module, self.language = (None if isinstance(module, str) else module), language
        self.name = _Safe(f"<b>{html.escape(str(name))}</b>")
        self.x, self.y = _tuple(x_shape), _tuple(y_shape) if y_shape is not None else None
        self.params = {str(k): _tuple(v) for k, v in params.items() if v is not None}
        self.lines: list[str] = []

    # -- helpers ----------------------------------------------------------------------------

    def add(self, key: str, **fields) -> None:
        self.lines.append(text("layer." + key, self.language, **{k: _esc(v) for k, v in fields.items()}))

    def phrase(self, key: str, **fields) -> _Safe:
        """A piece of prose for another line (its fields escaped, the piece kept as is)."""
        return _Safe(text("layer." + key, self.language, **{k: _esc(v) for k, v in fields.items()}))

    def attr(self, name, default=None):
        return default if self.module is None else getattr(self.module, name, default)

    def training(self) -> bool:
        return bool(self.attr("training", True))

    def dy(self) -> None:
        self.add("dy", shape=_shape(self.y))

    def same_shape(self):
        """X's shape for a layer that keeps it (an activation, a norm, dropout)."""
        return self.x if self.x is not None else self.y

    # -- Linear -----------------------------------------------------------------------------

    def linear(self) -> None:
        w = self.params.get("weight")
        b = self.params.get("bias")
        out_f, in_f = w if w is not None else (self.attr("out_features"), self.attr("in_features"))
        if not (_is_int(out_f) and _is_int(in_f)):
            raise ValueError("a Linear layer of unknown size")  # no text rather than "(None, None)"
        y = self.y
        x = self.x if self.x is not None else (y[:-1] + (in_f,) if y else None)
        rows = math.prod(x[:-1]) if x and len(x) >= 2 else 1
        x2, dy2 = (rows, in_f), (rows, out_f)
        forward = "Y = X · Wᵀ + b" if b is not None else "Y = X · Wᵀ"
        self.add(
            "linear.forward" if b is not None else "linear.forward_nobias",
            name=self.name, formula=_code(forward), x=_shape(x), y=_shape(y), w=_shape((out_f, in_f)),
        )  # fmt: skip
        self.dy()
        if x is not None and len(x) == 1:
            self.add("linear.one_row", x=_shape(x), x2=_shape(x2), dy2=_shape(dy2))
        elif x is not None and len(x) != 2:
            self.add("linear.rows", x=_shape(x), rows=_product(x[:-1]) if len(x) > 1 else "1",
                     x2=_shape(x2), dy2=_shape(dy2))  # fmt: skip
        self.add(
            "linear.dx", formula=_code("dX = dY · W"), dy=_shape(dy2), w=_shape((out_f, in_f)), dx=_shape(x2)
        )
        self.add("linear.dw", formula=_code("dW = dYᵀ · X"), dyt=_shape((out_f, rows)), x=_shape(x2),
                 dw=_shape((out_f, in_f)))  # fmt: skip
        if b is not None:
            self.add("linear.db", formula=_code("db = Σ dY"), rows=rows, db=_shape(b))
        self.add(
            "linear.textbook",
            forward=_code("Y = X · W′ + b" if b is not None else "Y = X · W′"), wt=_shape((in_f, out_f)),
            dx=_code("dX = dY · W′ᵀ"), dw=_code("dW′ = Xᵀ · dY"), same=_code("dW′ = dWᵀ"),
        )  # fmt: skip

    # -- Conv2d -----------------------------------------------------------------------------

    def conv2d(self) -> None:
        w = self.params.get("weight")
        b = self.params.get("bias")
        c_out = w[0] if w else self.attr("out_channels")
        x = self.x
        if x is None and self.y is not None and w is not None:
            x = _Safe(f"({int(self.y[0])}, {int(w[1])}, H, W)")
        xs = x if isinstance(x, _Safe) else _shape(x)
        self.add(
            "conv.forward", name=self.name, cout=c_out, k=_shape(w[1:] if w else None), x=xs, y=_shape(self.y)
        )
        self.dy()
        self.add("conv.dx", formula=_code("dX = dY ⋆ rot180(W)"), cout=c_out, y=_shape(self.y), x=xs)
        stride = _pair(self.attr("stride", 1), 1)
        padding = _pair(self.attr("padding", 0), 0)
        dilation = _pair(self.attr("dilation", 1), 1)
        if stride != (1, 1):
            self.add("conv.stride", stride=_setting(stride))
        if isinstance(padding, str):
            if padding != "valid":
                self.add("conv.padding", padding=padding)
        elif padding != (0, 0):
            self.add("conv.padding", padding=_setting(padding))
        if dilation != (1, 1):
            self.add("conv.dilation", dilation=_setting(dilation))
        self.add(
            "conv.dw", formula=_code("dW[c_out, c_in] = Σ<sub>n</sub> X[n, c_in] ⋆ dY[n, c_out]"),
            x=xs, y=_shape(self.y), w=_shape(w),
        )  # fmt: skip
        if b is not None:
            self.add("conv.db", formula=_code("db = Σ dY"), y=_shape(self.y), b=_shape(b))

    # -- activations ------------------------------------------------------------------------

    def _elementwise(self, forward: str, dx: str, note: str | None, along: bool = False, **fields) -> None:
        x = self.same_shape()
        self.add(
            "act.forward_slice" if along else "act.forward",
            name=self.name,
            formula=_code(forward),
            x=_shape(x),
            y=_shape(self.y),
        )
        self.dy()
        self.add("act.dx", formula=_code(dx), y=_shape(self.y), x=_shape(x))
        if note:
            self.add(note, **fields)

    def relu(self) -> None:
        self._elementwise("Y = max(X, 0)", "dX = dY ⊙ 1[X &gt; 0]", "relu.mask", mask=_code("1[X &gt; 0]"))

    def leaky_relu(self) -> None:
        s = _esc(_num(self.attr("negative_slope", 0.01)))
        self._elementwise(
            f"Y = X ⊙ 1[X &gt; 0] + {s}·X ⊙ 1[X ≤ 0]",
            f"dX = dY ⊙ (1[X &gt; 0] + {s}·1[X ≤ 0])",
            "leaky_relu.note",
            slope=_Safe(s),
        )

    def tanh(self) -> None:
        self._elementwise("Y = tanh(X)", "dX = dY ⊙ (1 − Y²)", "tanh.note", factor=_code("1 − Y²"))

    def sigmoid(self) -> None:
        self._elementwise("Y = σ(X) = 1 / (1 + e<sup>−X</sup>)", "dX = dY ⊙ Y ⊙ (1 − Y)", "sigmoid.note",
                          factor=_code("Y(1 − Y)"))  # fmt: skip

    def identity(self) -> None:
        self._elementwise("Y = X", "dX = dY", None)

    def softmax(self) -> None:
        dim = _esc(self.attr("dim", -1))
        self._elementwise(
            f"Y = softmax(X, dim={dim})", "dX = Y ⊙ (dY − Σ(dY ⊙ Y))", "softmax.note", True, dim=_Safe(dim)
        )

    def log_softmax(self) -> None:
        dim = _esc(self.attr("dim", -1))
        self._elementwise(f"Y = log_softmax(X, dim={dim})", "dX = dY − e<sup>Y</sup> ⊙ Σ dY", "log_softmax.note",
                          True, dim=_Safe(dim))  # fmt: skip

    # -- normalisation ----------------------------------------------------------------------

    def batch_norm(self) -> None:
        x = self.same_shape()
        eps = _num(self.attr("eps", 1e-5))
        gamma = self.params.get("weight")
        beta = self.params.get("bias")
        c = (gamma or beta or (self.attr("num_features"),))[0] if x is None else x[1]
        c_shape = _shape((c,))
        g = "γ" if gamma is not None else "1"
        if not self.training() and self.attr("running_var") is not None:  # eval: the running statistics
            self.add("bn.eval_forward", name=self.name, eps=eps, x=_shape(x), y=_shape(self.y),
                     formula=_code("Y = γ ⊙ x̂ + β"), xhat=_code("x̂ = (X − running_mean) / √(running_var + ε)"))  # fmt: skip
            self.dy()
            if gamma is not None:
                self.add("bn.eval_dgamma", formula=_code("dγ = Σ dY ⊙ x̂"), c=c_shape)
            if beta is not None:
                self.add("bn.eval_dbeta", formula=_code("dβ = Σ dY"), c=c_shape)
            self.add(
                "bn.eval_dx",
                formula=_code(f"dX = dY · {g} / √(running_var + ε)"),
                y=_shape(self.y),
                x=_shape(x),
            )
            return
        # training: per feature over the batch (and the length, or the height and width)
        dims = [x[0]] + list(x[2:]) if x is not None else None
        symbol = "N" if x is None or len(x) == 2 else "M"
        over = (
            self.phrase("bn.over_batch", n=x[0]) if x is not None and len(x) == 2
            else self.phrase("bn.over_dims", dims=("N, L" if len(x) == 3 else "N, H, W"), m=_product(dims))
            if x is not None
            else self.phrase("bn.over_batch", n="N")
        )  # fmt: skip
        self.add("bn.forward", name=self.name, c=c, over=over, eps=eps, x=_shape(x), y=_shape(self.y),
                 xhat=_code("x̂ = (X − μ) / √(σ² + ε)"),
                 formula=_code("Y = γ ⊙ x̂ + β" if gamma is not None else "Y = x̂"))  # fmt: skip
        self.dy()
        if gamma is not None:
            self.add("bn.dgamma", formula=_code("dγ = Σ dY ⊙ x̂"), over=over, c=c_shape)
        if beta is not None:
            self.add("bn.dbeta", formula=_code("dβ = Σ dY"), over=over, c=c_shape)
        m = str(math.prod(dims)) if dims else "N"
        self.add(
            "bn.dx",
            formula=_code(f"dX = {g} / ({symbol} √(σ² + ε)) · ({symbol}·dY − Σ dY − x̂ ⊙ Σ(dY ⊙ x̂))"),
            symbol=symbol, m=m, y=_shape(self.y), x=_shape(x),
        )  # fmt: skip
        self.add("bn.why")

    def layer_norm(self) -> None:
        x = self.same_shape()
        norm = self.attr("normalized_shape")
        gamma = self.params.get("weight")
        beta = self.params.get("bias")
        if norm is None:
            norm = gamma or beta or (x[-1:] if x else None)
        norm = tuple(int(d) for d in (norm if isinstance(norm, (tuple, list)) else (norm,)))
        d = math.prod(norm)
        rows = math.prod(x[: len(x) - len(norm)]) if x is not None else "…"
        eps = _num(self.attr("eps", 1e-5))
        self.add("ln.forward", name=self.name, norm=_shape(norm), d=d, eps=eps, x=_shape(x), y=_shape(self.y),
                 xhat=_code("x̂ = (X − μ) / √(σ² + ε)"),
                 formula=_code("Y = γ ⊙ x̂ + β" if gamma is not None else "Y = x̂"))  # fmt: skip
        self.dy()
        if gamma is not None:
            self.add("ln.dgamma", formula=_code("dγ = Σ dY ⊙ x̂"), rows=rows, norm=_shape(norm))
        if beta is not None:
            self.add("ln.dbeta", formula=_code("dβ = Σ dY"), rows=rows, norm=_shape(norm))
        g = "g = dY ⊙ γ" if gamma is not None else "g = dY"
        self.add("ln.dx", g=_code(g), formula=_code("dX = 1 / (D √(σ² + ε)) · (D·g − Σ g − x̂ ⊙ Σ(g ⊙ x̂))"),
                 d=d, y=_shape(self.y), x=_shape(x))  # fmt: skip
        self.add("ln.why")

    # -- losses -----------------------------------------------------------------------------

    def _reduction(self) -> str:
        reduction = self.attr("reduction", "mean")
        return reduction if reduction in ("mean", "sum", "none") else "mean"

    def _loss_dy(self) -> None:
        if self._reduction() == "none":
            self.add("loss.dy_none", shape=_shape(self.y))
        else:
            self.add("loss.dy", shape=_shape(self.y) if self.y else self.phrase("scalar"))

    def cross_entropy(self) -> None:
        smoothing = self.attr("label_smoothing", 0.0) or 0.0
        if smoothing:  # the target distribution PyTorch uses: (1 − ε)·onehot + ε/C
            target = f"((1 − {_esc(_num(smoothing))})·onehot(target) + {_esc(_num(smoothing))}/C)"
        else:
            target = "onehot(target)"
        self._classification(
            "ce.forward",
            f"softmax(logits) − {target}",
            "ce.note",
            weights=self.attr("weight") is not None,
        )

    def nll_loss(self) -> None:
        self._classification(
            "nll.forward", "−onehot(target)", "nll.note", weights=self.attr("weight") is not None
        )

    def _classification(self, forward_key, core, note, weights) -> None:
        x = self.x
        reduction = self._reduction()
        if x is not None and len(x) >= 2:
            n = _product([x[0], *x[2:]])
            count = str(math.prod([x[0], *x[2:]]))
        elif x is not None:  # one sample of C scores
            n = count = "1"
        else:
            n = count = "N"
        name = "dlogits" if forward_key == "ce.forward" else "dX"
        if reduction == "mean":
            formula = (
                f"{name} = dY · ({core}) / N"
                if not weights
                else f"{name} = dY · w[target] ⊙ ({core}) / Σ w[target]"
            )
        elif reduction == "sum":
            formula = f"{name} = dY · ({core})" if not weights else f"{name} = dY · w[target] ⊙ ({core})"
        else:
            formula = (
                f"{name} = dY[:, None] ⊙ ({core})"
                if not weights
                else f"{name} = dY[:, None] ⊙ w[target] ⊙ ({core})"
            )
        self.add(forward_key, name=self.name, x=_shape(x), y=_shape(self.y) if self.y else self.phrase("scalar"),
                 reduction=self.phrase("reduction." + reduction, n=n))  # fmt: skip
        self._loss_dy()
        self.add(
            "loss.dx_" + ("logits" if forward_key == "ce.forward" else "input"),
            formula=_code(formula),
            x=_shape(x),
        )
        self.add(note)
        if weights:
            self.add("loss.weights")
        self.add("loss.mean_sum_" + reduction, n=count)

    def mse_loss(self) -> None:
        x = self.x if self.x is not None else self.y
        reduction = self._reduction()
        count = str(math.prod(x)) if x is not None else "n"
        n = _product(x) if x else "n"
        formula = {
            "mean": "dŶ = dY · 2(Ŷ − Y) / n",
            "sum": "dŶ = dY · 2(Ŷ − Y)",
            "none": "dŶ = dY ⊙ 2(Ŷ − Y)",
        }[reduction]
        self.add("mse.forward", name=self.name, x=_shape(x), y=_shape(self.y) if self.y else self.phrase("scalar"),
                 reduction=self.phrase("mse.reduction." + reduction, n=n))  # fmt: skip
        self._loss_dy()
        self.add("mse.dx", formula=_code(formula), x=_shape(x))
        self.add("mse.note_" + reduction, n=count, target=_code("dY<sub>target</sub> = −dŶ"))

    # -- reshaping, dropout, pooling, embedding ---------------------------------------------

    def dropout(self) -> None:
        x = self.same_shape()
        p = self.attr("p", 0.5)
        if not self.training() or p == 0:
            self.add("dropout.eval_forward", name=self.name, p=_num(p))
            self.dy()
            self.add("act.dx", formula=_code("dX = dY"), y=_shape(self.y), x=_shape(x))
            return
        scale = "∞" if p >= 1 else _num(1 / (1 - p))
        self.add("dropout.forward", name=self.name, p=_num(p), scale=scale, x=_shape(x), y=_shape(self.y))
        self.dy()
        formula = "dX = 0" if p >= 1 else "dX = dY ⊙ mask / (1 − p)"
        self.add("act.dx", formula=_code(formula), y=_shape(self.y), x=_shape(x))
        self.add("dropout.note", scale=scale)

    def reshape(self) -> None:
        x = _shape(self.x) if self.x is not None else self.phrase("x_shape")
        self.add("reshape.forward", name=self.name, x=x, y=_shape(self.y))
        self.dy()
        self.add("reshape.dx", formula=_code("dX = dY.reshape(X.shape)"), y=_shape(self.y), x=x)

    def _window(self):
        k = _pair(self.attr("kernel_size", 2), 2)
        s = _pair(self.attr("stride") or self.attr("kernel_size", 2), 2)
        return k, s

    def max_pool(self) -> None:
        k, s = self._window()
        x = _shape(self.x)
        self.add(
            "maxpool.forward", name=self.name, k="×".join(map(_num, k)), s=_setting(s), x=x, y=_shape(self.y)
        )
        self.dy()
        self.add("maxpool.dx", y=_shape(self.y), x=x)
        if s[0] < k[0] or s[1] < k[1]:
            self.add("pool.overlap", s=_setting(s), k=_setting(k))

    def avg_pool(self) -> None:
        k, s = self._window()
        divisor = self.attr("divisor_override") or k[0] * k[1]
        x = _shape(self.x)
        self.add("avgpool.forward", name=self.name, k="×".join(map(_num, k)), s=_setting(s), kk=divisor,
                 x=x, y=_shape(self.y))  # fmt: skip
        self.dy()
        self.add("avgpool.dx", formula=_code(f"dY / {_esc(divisor)}"), y=_shape(self.y), x=x)
        if s[0] < k[0] or s[1] < k[1]:
            self.add("pool.overlap", s=_setting(s), k=_setting(k))

    def adaptive_avg_pool(self) -> None:
        x, y = self.x, self.y
        self.add("adaptive.forward", name=self.name, x=_shape(x), y=_shape(y))
        self.dy()
        if x is not None and y is not None and len(x) >= 2 and y[-2:] == (1, 1):
            self.add("adaptive.dx_global", formula=_code(f"dX = dY / (H·W) = dY / {x[-2] * x[-1]}"), y=_shape(y),
                     x=_shape(x))  # fmt: skip
        else:
            self.add("adaptive.dx", y=_shape(y), x=_shape(x))

    def embedding(self) -> None:
        w = self.params.get("weight")
        x = self.x if self.x is not None else (self.y[:-1] if self.y else None)
        self.add("embedding.forward", name=self.name, x=_shape(x), w=_shape(w), y=_shape(self.y))
        self.dy()
        self.add("embedding.dw", zero=_code("dW = 0"), formula=_code("dW[index] += dY[position]"),
                 y=_shape(self.y), w=_shape(w))  # fmt: skip
        self.add("embedding.dx")
        pad = self.attr("padding_idx")
        if pad is not None:
            self.add("embedding.padding", pad=pad)
