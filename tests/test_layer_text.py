"""The layer stepper's panel text (widgets/layer_text.py): one layer's backward step in matrix form.

Each test builds the layer with autogradviz on random inputs, runs backward with a random
upstream gradient dY, and checks that
- the formula the text states (matched verbatim in the text) is, implemented independently
  here in numpy, the gradient autogradviz computes, and PyTorch's for the same layer;
- the shapes the text prints are the real shapes of dY, the parameters and the gradients.
Then: both languages say the same formulas and shapes in as many lines, every user string is
escaped, and a module without a text gives [].
"""

from __future__ import annotations

import html
import re

import numpy as np
import pytest

import autogradviz as agv
from autogradviz.widgets.layer_text import explain_layer

try:
    import torch
except ImportError:  # pragma: no cover - the suite's environment has torch
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
nn = agv.nn
TOL = {"rtol": 1e-9, "atol": 1e-12}
SHAPE = r"\((?:\d+(?:, \d+)*,?)?\)"
CJK = re.compile(r"[\u4e00-\u9fff]")


# -- helpers -----------------------------------------------------------------------------


def rng(seed=0):
    return np.random.default_rng(seed)


def shapes_of(module) -> dict:
    return {name: tuple(p.shape) for name, p in module.named_parameters()}


def run(module, x: np.ndarray, dy_seed=1, **call):
    """(Y, dY, dX, {param: grad}) from autogradviz, with a random upstream gradient dY."""
    xt = agv.tensor(x, requires_grad=x.dtype.kind == "f")
    y = module(xt, **call)
    dy = rng(dy_seed).standard_normal(y.shape)
    y.backward(agv.tensor(dy))
    grads = {name: p.grad.numpy() for name, p in module.named_parameters()}
    return y.detach().numpy(), dy, (xt.grad.numpy() if xt.grad is not None else None), grads


def run_torch(module, x: np.ndarray, dy: np.ndarray, **call):
    xt = torch.tensor(x, requires_grad=x.dtype.kind == "f")
    y = module(xt, **call)
    y.backward(torch.tensor(dy))
    grads = {name: p.grad.numpy() for name, p in module.named_parameters()}
    return y.detach().numpy(), (xt.grad.numpy() if xt.grad is not None else None), grads


def copy_to_torch(agv_module, torch_module):
    torch_module = torch_module.double()  # before the copy: a float32 copy would round the values
    with torch.no_grad():
        for name, p in torch_module.named_parameters():
            p.copy_(torch.tensor(dict(agv_module.named_parameters())[name].detach().numpy()))
    return torch_module


def line_with(lines, needle):
    found = [line for line in lines if needle in line]
    assert len(found) == 1, (needle, lines)
    return found[0]


def parse(shape_text: str) -> tuple:
    return tuple(int(d) for d in re.findall(r"\d+", shape_text))


def arrow(line) -> tuple:
    """The shape after the line's last →."""
    tail = line.rsplit("→", 1)[1]
    return parse(re.search(SHAPE, tail).group(0))


def product(line) -> tuple:
    """(a, b, c) from 'a·b → c'."""
    m = re.search(rf"({SHAPE})·({SHAPE}) → ({SHAPE})", line)
    assert m, line
    return tuple(parse(g) for g in m.groups())


def both(module, x_shape, y_shape, params):
    en = explain_layer(module, x_shape, y_shape, params, "en")
    zh = explain_layer(module, x_shape, y_shape, params, "zh")
    check_languages(en, zh)
    return en


def check_languages(en, zh):
    """The same lines in both languages: same count, same formulas, same shapes, real Chinese."""
    assert en and len(en) == len(zh)
    for e, z in zip(en, zh, strict=True):
        assert re.findall("<code>.*?</code>", e) == re.findall("<code>.*?</code>", z), (e, z)
        assert re.findall(SHAPE, e) == re.findall(SHAPE, z), (e, z)
        assert not CJK.search(e), e
        assert len(CJK.findall(z)) >= 2, z
        check_html(e)
        check_html(z)


def check_html(line):
    """Only the panel's own tags, balanced; no stray < or >."""
    tags = re.findall(r"</?([a-z]+)>", line)
    assert set(tags) <= {"code", "b", "sub", "sup"}, line
    for tag in set(tags):
        assert line.count(f"<{tag}>") == line.count(f"</{tag}>"), line
    assert "<" not in re.sub(r"</?(code|b|sub|sup)>", "", line), line
    assert ">" not in re.sub(r"</?(code|b|sub|sup)>", "", line), line


def np_softmax(z, axis=-1):
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


# -- Linear ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "x_shape, bias", [((8, 4), True), ((2, 5, 4), True), ((8, 4), False), ((3, 2, 5, 4), False), ((4,), True)]
)
def test_linear(x_shape, bias):
    agv.manual_seed(0)
    m = nn.Linear(4, 16, bias=bias).double()
    x = rng().standard_normal(x_shape)
    y, dy, dx, g = run(m, x)
    lines = both(m, x.shape, y.shape, shapes_of(m))
    W, X2, dY2 = m.weight.detach().numpy(), x.reshape(-1, 4), dy.reshape(-1, 16)
    rows = X2.shape[0]

    # the formulas stated, in PyTorch's convention (W is (out, in))
    line = line_with(lines, "<code>dX = dY · W</code>")
    assert product(line) == (dY2.shape, W.shape, (rows, 4))
    np.testing.assert_allclose((dY2 @ W).reshape(x.shape), dx, **TOL)
    line = line_with(lines, "<code>dW = dYᵀ · X</code>")
    assert product(line) == (dY2.T.shape, X2.shape, g["weight"].shape)
    np.testing.assert_allclose(dY2.T @ X2, g["weight"], **TOL)
    if bias:
        line = line_with(lines, "<code>db = Σ dY</code>")
        assert arrow(line) == g["bias"].shape == (16,)
        assert f"({rows} rows)" in line
        np.testing.assert_allclose(dY2.sum(axis=0), g["bias"], **TOL)
    else:
        assert not any("db" in line for line in lines)

    # the textbook form, with W' = Wᵀ of shape (in, out): the same numbers
    line = line_with(lines, "Textbook form")
    assert "<code>dX = dY · W′ᵀ</code>" in line and "<code>dW′ = Xᵀ · dY</code>" in line
    assert "W′ = Wᵀ of shape (4, 16)" in line
    Wp = W.T
    np.testing.assert_allclose((dY2 @ Wp.T).reshape(x.shape), dx, **TOL)
    np.testing.assert_allclose(X2.T @ dY2, g["weight"].T, **TOL)

    # the leading dims flattened, and the real shapes named
    if len(x_shape) == 1:
        assert "is a single sample: it is used as one row (1, 4), and dY as (1, 16)" in lines[2]
    if len(x_shape) > 2:
        line = line_with(lines, "leading dims are flattened")
        assert f"into {'·'.join(map(str, x_shape[:-1]))} = {rows} rows" in line
        assert f"X is used as {(rows, 4)} and dY as {(rows, 16)}" in line
    assert f"<code>dY</code> {y.shape}" in lines[1]

    if torch is not None:
        tm = copy_to_torch(m, torch.nn.Linear(4, 16, bias=bias))
        ty, tdx, tg = run_torch(tm, x, dy)
        np.testing.assert_allclose((dY2 @ W).reshape(x.shape), tdx, **TOL)
        np.testing.assert_allclose(dY2.T @ X2, tg["weight"], **TOL)
        assert explain_layer(tm, x.shape, ty.shape, shapes_of(tm), "en") == lines


def test_linear_without_an_input_shape_reads_it_from_the_weight():
    m = nn.Linear(4, 16)
    lines = explain_layer(m, None, (8, 16), {"weight": (16, 4), "bias": (16,)}, "en")
    assert product(line_with(lines, "<code>dX = dY · W</code>")) == ((8, 16), (16, 4), (8, 4))
    assert product(line_with(lines, "<code>dW = dYᵀ · X</code>")) == ((16, 8), (8, 4), (16, 4))


# -- Conv2d ------------------------------------------------------------------------------


def correlate(a, k):
    """Valid 2-D correlation of a (..., H, W) with k (kh, kw)."""
    win = np.lib.stride_tricks.sliding_window_view(a, k.shape, axis=(-2, -1))
    return np.einsum("...ijpq,pq->...ij", win, k)


def dilate(a, step):
    """step − 1 zeros between neighbouring entries of the last two axes."""
    (sh, sw) = step
    out = np.zeros(a.shape[:-2] + ((a.shape[-2] - 1) * sh + 1, (a.shape[-1] - 1) * sw + 1))
    out[..., ::sh, ::sw] = a
    return out


def conv_dx(dy, w, x_shape, stride, padding, dilation):
    """The text's dX: dY dilated by the stride, fully correlated with each kernel flipped 180°,
    summed over the output channels; then the padding cropped."""
    n, c_in, h, wd = x_shape
    ph, pw = padding
    kernel = dilate(w, dilation)  # the kernel's taps spread by the dilation
    flipped = kernel[..., ::-1, ::-1]
    kh, kw = flipped.shape[-2:]
    d = dilate(dy, stride)
    full = np.pad(d, ((0, 0), (0, 0), (kh - 1, kh - 1), (kw - 1, kw - 1)))
    grad_padded = np.zeros((n, c_in, h + 2 * ph, wd + 2 * pw))
    for co in range(w.shape[0]):
        for ci in range(c_in):
            r = correlate(full[:, co], flipped[co, ci])
            grad_padded[:, ci, : r.shape[-2], : r.shape[-1]] += r  # rows no window reached stay 0
    return grad_padded[:, :, ph : ph + h, pw : pw + wd]


def conv_dw(x, dy, w_shape, stride, padding, dilation):
    """The text's dW[c_out, c_in]: the correlation of the input with dY, summed over the batch."""
    ph, pw = padding
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    d = dilate(dy, stride)
    out = np.zeros(w_shape)
    kh, kw = w_shape[-2:]
    for co in range(w_shape[0]):
        for ci in range(w_shape[1]):
            r = sum(correlate(xp[b, ci], d[b, co]) for b in range(x.shape[0]))
            out[co, ci] = r[:: dilation[0], :: dilation[1]][:kh, :kw]
    return out


@pytest.mark.parametrize(
    "stride, padding, dilation, size",
    [
        ((1, 1), (0, 0), (1, 1), 7),
        ((2, 2), (1, 1), (1, 1), 9),
        ((2, 2), (0, 0), (1, 1), 8),
        ((1, 2), (2, 1), (2, 1), 8),
    ],
)
def test_conv2d(stride, padding, dilation, size):
    agv.manual_seed(1)
    m = nn.Conv2d(3, 5, 3, stride=stride, padding=padding, dilation=dilation).double()
    x = rng(2).standard_normal((2, 3, size, size + 1))
    y, dy, dx, g = run(m, x)
    lines = both(m, x.shape, y.shape, shapes_of(m))
    w = m.weight.detach().numpy()

    line = line_with(lines, "<code>dX = dY ⋆ rot180(W)</code>")
    assert "flipped 180°" in line and "transposed convolution" in line
    assert re.search(rf"({SHAPE}) → ({SHAPE})$", line).groups() == (str(y.shape), str(x.shape))
    np.testing.assert_allclose(conv_dx(dy, w, x.shape, stride, padding, dilation), dx, **TOL)

    line = line_with(lines, "dW[c_out, c_in]")
    assert f"X {x.shape} and dY {y.shape} → {g['weight'].shape}" in line
    np.testing.assert_allclose(conv_dw(x, dy, w.shape, stride, padding, dilation), g["weight"], **TOL)

    line = line_with(lines, "<code>db = Σ dY</code>")
    assert "N, H_out and W_out" in line and arrow(line) == g["bias"].shape
    np.testing.assert_allclose(dy.sum(axis=(0, 2, 3)), g["bias"], **TOL)

    # stride, padding and dilation are named only when they are not 1, 0 and 1
    assert any(line.startswith("Stride") for line in lines) == (stride != (1, 1))
    assert any(line.startswith("Padding") for line in lines) == (padding != (0, 0))
    assert any(line.startswith("Dilation") for line in lines) == (dilation != (1, 1))
    if stride == (2, 2):
        assert line_with(lines, "Stride").startswith("Stride 2:")
    if stride == (1, 2):
        assert line_with(lines, "Stride").startswith("Stride (1, 2):")
    assert f"5 kernels of shape {w.shape[1:]}" in lines[0]

    if torch is not None:
        tm = copy_to_torch(m, torch.nn.Conv2d(3, 5, 3, stride=stride, padding=padding, dilation=dilation))
        ty, tdx, tg = run_torch(tm, x, dy)
        np.testing.assert_allclose(conv_dx(dy, w, x.shape, stride, padding, dilation), tdx, **TOL)
        np.testing.assert_allclose(conv_dw(x, dy, w.shape, stride, padding, dilation), tg["weight"], **TOL)
        assert explain_layer(tm, x.shape, ty.shape, shapes_of(tm), "en") == lines


# -- activations -------------------------------------------------------------------------


ACTIVATIONS = [
    (lambda: nn.ReLU(), "ReLU", "<code>dX = dY ⊙ 1[X &gt; 0]</code>", lambda x, y, dy: dy * (x > 0)),
    (
        lambda: nn.LeakyReLU(0.1),
        "LeakyReLU",
        "<code>dX = dY ⊙ (1[X &gt; 0] + 0.1·1[X ≤ 0])</code>",
        lambda x, y, dy: dy * np.where(x > 0, 1.0, 0.1),
    ),
    (lambda: nn.Tanh(), "Tanh", "<code>dX = dY ⊙ (1 − Y²)</code>", lambda x, y, dy: dy * (1 - y**2)),
    (
        lambda: nn.Sigmoid(),
        "Sigmoid",
        "<code>dX = dY ⊙ Y ⊙ (1 − Y)</code>",
        lambda x, y, dy: dy * y * (1 - y),
    ),
    (lambda: nn.Identity(), "Identity", "<code>dX = dY</code>", lambda x, y, dy: dy),
    (
        lambda: nn.Softmax(dim=1),
        "Softmax",
        "<code>dX = Y ⊙ (dY − Σ(dY ⊙ Y))</code>",
        lambda x, y, dy: y * (dy - (dy * y).sum(axis=1, keepdims=True)),
    ),
    (
        lambda: nn.LogSoftmax(dim=1),
        "LogSoftmax",
        "<code>dX = dY − e<sup>Y</sup> ⊙ Σ dY</code>",
        lambda x, y, dy: dy - np.exp(y) * dy.sum(axis=1, keepdims=True),
    ),
]


@pytest.mark.parametrize("make, torch_name, formula, expected", ACTIVATIONS, ids=[a[1] for a in ACTIVATIONS])
def test_activations(make, torch_name, formula, expected):
    m = make()
    x = rng(3).standard_normal((8, 10)) * 2
    y, dy, dx, _ = run(m, x)
    lines = both(m, x.shape, y.shape, {})
    line = line_with(lines, formula)
    assert line.endswith(f"{y.shape} → {x.shape}")
    np.testing.assert_allclose(expected(x, y, dy), dx, **TOL)
    if torch is not None:
        tm = getattr(torch.nn, torch_name)(*([0.1] if torch_name == "LeakyReLU" else [])) if torch_name not in (
            "Softmax", "LogSoftmax") else getattr(torch.nn, torch_name)(dim=1)  # fmt: skip
        ty, tdx, _ = run_torch(tm, x, dy)
        np.testing.assert_allclose(expected(x, ty, dy), tdx, **TOL)
        assert explain_layer(tm, x.shape, ty.shape, {}, "en") == lines


def test_relu_says_the_mask_is_where_the_input_was_positive():
    lines = explain_layer(nn.ReLU(), (4, 3), (4, 3), {}, "en")
    assert "1 where the input was positive and 0 elsewhere" in line_with(lines, "The mask")
    zh = explain_layer(nn.ReLU(), (4, 3), (4, 3), {}, "zh")
    assert "输入为正" in zh[-1]


# -- normalisation -----------------------------------------------------------------------


def bn_dx(x, dy, gamma, eps, axes):
    """The text's dX = γ / (M √(σ² + ε)) · (M·dY − Σ dY − x̂ ⊙ Σ(dY ⊙ x̂)), the sums over `axes`."""
    m = np.prod([x.shape[a] for a in axes])
    mu = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    xhat = (x - mu) / np.sqrt(var + eps)
    s1 = dy.sum(axis=axes, keepdims=True)
    s2 = (dy * xhat).sum(axis=axes, keepdims=True)
    return gamma / (m * np.sqrt(var + eps)) * (m * dy - s1 - xhat * s2), xhat


@pytest.mark.parametrize("x_shape", [(8, 6), (4, 6, 5)])
def test_batchnorm1d_training(x_shape):
    m = nn.BatchNorm1d(6).double()
    with agv.no_grad():
        m.weight.copy_(agv.tensor(rng(4).uniform(0.5, 2, 6)))
        m.bias.copy_(agv.tensor(rng(5).standard_normal(6)))
    x = rng(6).standard_normal(x_shape) * 3 + 1
    y, dy, dx, g = run(m, x)
    lines = both(m, x.shape, y.shape, shapes_of(m))
    axes = (0,) if len(x_shape) == 2 else (0, 2)
    shape = (1, 6) if len(x_shape) == 2 else (1, 6, 1)
    gamma = m.weight.detach().numpy().reshape(shape)
    want, xhat = bn_dx(x, dy, gamma, 1e-5, axes)

    symbol = "N" if len(x_shape) == 2 else "M"
    formula = f"<code>dX = γ / ({symbol} √(σ² + ε)) · ({symbol}·dY − Σ dY − x̂ ⊙ Σ(dY ⊙ x̂))</code>"
    line = line_with(lines, formula)
    count = np.prod([x.shape[a] for a in axes])
    assert f"with {symbol} = {count} " in line and line.endswith(f"{y.shape} → {x.shape}")
    np.testing.assert_allclose(want, dx, rtol=1e-8, atol=1e-10)
    line = line_with(lines, "<code>dγ = Σ dY ⊙ x̂</code>")
    assert arrow(line) == g["weight"].shape
    np.testing.assert_allclose((dy * xhat).sum(axis=axes), g["weight"], **TOL)
    line = line_with(lines, "<code>dβ = Σ dY</code>")
    assert arrow(line) == g["bias"].shape
    np.testing.assert_allclose(dy.sum(axis=axes), g["bias"], **TOL)
    if len(x_shape) == 2:
        assert "over the batch (N = 8)" in lines[0]
    else:
        assert "over N, L (M = 4·5 = 20)" in lines[0]
    assert "<code>x̂ = (X − μ) / √(σ² + ε)</code>" in lines[0] and "ε = 1e-05" in lines[0]

    if torch is not None:
        tm = copy_to_torch(m, torch.nn.BatchNorm1d(6))
        ty, tdx, tg = run_torch(tm, x, dy)
        np.testing.assert_allclose(want, tdx, rtol=1e-8, atol=1e-10)
        assert explain_layer(tm, x.shape, ty.shape, shapes_of(tm), "en") == lines


def test_batchnorm1d_eval_is_a_fixed_scale():
    m = nn.BatchNorm1d(6).double()
    with agv.no_grad():
        m.weight.copy_(agv.tensor(rng(7).uniform(0.5, 2, 6)))
    m(agv.tensor(rng(8).standard_normal((16, 6)) * 2 + 1))  # running statistics that are not 0 and 1
    m.eval()
    x = rng(9).standard_normal((8, 6))
    y, dy, dx, g = run(m, x)
    lines = both(m, x.shape, y.shape, shapes_of(m))
    line = line_with(lines, "<code>dX = dY · γ / √(running_var + ε)</code>")
    assert line.endswith(f"{y.shape} → {x.shape}")
    rv, rm = m.running_var.numpy(), m.running_mean.numpy()
    np.testing.assert_allclose(dy * m.weight.detach().numpy() / np.sqrt(rv + 1e-5), dx, **TOL)
    xhat = (x - rm) / np.sqrt(rv + 1e-5)
    np.testing.assert_allclose((dy * xhat).sum(axis=0), g["weight"], **TOL)
    assert "(eval)" in lines[0]


@needs_torch
@pytest.mark.parametrize("affine", [True, False])
def test_batchnorm2d_through_torch(affine):
    tm = torch.nn.BatchNorm2d(3, affine=affine).double()
    if affine:
        with torch.no_grad():
            tm.weight.copy_(torch.tensor(rng(10).uniform(0.5, 2, 3)))
    x = rng(11).standard_normal((2, 3, 4, 5))
    dy = rng(12).standard_normal(x.shape)
    ty, tdx, tg = run_torch(tm, x, dy)
    lines = both(tm, x.shape, ty.shape, shapes_of(tm))
    gamma = tm.weight.detach().numpy().reshape(1, 3, 1, 1) if affine else 1.0
    want, xhat = bn_dx(x, dy, gamma, tm.eps, (0, 2, 3))
    g = "γ" if affine else "1"
    line = line_with(lines, f"<code>dX = {g} / (M √(σ² + ε)) · (M·dY − Σ dY − x̂ ⊙ Σ(dY ⊙ x̂))</code>")
    assert "with M = 40 " in line
    assert "over N, H, W (M = 2·4·5 = 40)" in lines[0]
    np.testing.assert_allclose(want, tdx, rtol=1e-8, atol=1e-10)
    if affine:
        np.testing.assert_allclose((dy * xhat).sum(axis=(0, 2, 3)), tg["weight"], **TOL)
        assert arrow(line_with(lines, "dγ")) == (3,)
    else:
        assert not any("dγ" in line or "dβ" in line for line in lines)


@needs_torch
@pytest.mark.parametrize("affine", [True, False])
def test_layernorm_through_torch(affine):
    tm = torch.nn.LayerNorm(6, elementwise_affine=affine).double()
    if affine:
        with torch.no_grad():
            tm.weight.copy_(torch.tensor(rng(13).uniform(0.5, 2, 6)))
    x = rng(14).standard_normal((4, 5, 6)) * 2
    dy = rng(15).standard_normal(x.shape)
    ty, tdx, tg = run_torch(tm, x, dy)
    lines = both(tm, x.shape, ty.shape, shapes_of(tm))
    gamma = tm.weight.detach().numpy() if affine else 1.0
    # the text: g = dY ⊙ γ, dX = 1 / (D √(σ² + ε)) · (D·g − Σ g − x̂ ⊙ Σ(g ⊙ x̂)), sums over the last dim
    gg = dy * gamma
    mu, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    xhat = (x - mu) / np.sqrt(var + tm.eps)
    want = (6 * gg - gg.sum(-1, keepdims=True) - xhat * (gg * xhat).sum(-1, keepdims=True)) / (
        6 * np.sqrt(var + tm.eps)
    )
    line = line_with(lines, "<code>dX = 1 / (D √(σ² + ε)) · (D·g − Σ g − x̂ ⊙ Σ(g ⊙ x̂))</code>")
    assert ("<code>g = dY ⊙ γ</code>" if affine else "<code>g = dY</code>") in line
    assert "D = 6" in line and line.endswith(f"{ty.shape} → {x.shape}")
    np.testing.assert_allclose(want, tdx, rtol=1e-8, atol=1e-10)
    if affine:
        line = line_with(lines, "dγ = Σ dY ⊙ x̂")
        assert "the 20 samples" in line and arrow(line) == (6,)
        np.testing.assert_allclose((dy * xhat).sum(axis=(0, 1)), tg["weight"], **TOL)


# -- losses ------------------------------------------------------------------------------


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy(reduction, weighted):
    n, c = 8, 5
    logits = rng(16).standard_normal((n, c))
    target = rng(17).integers(0, c, n)
    w = rng(18).uniform(0.5, 2, c) if weighted else None
    m = nn.CrossEntropyLoss(weight=agv.tensor(w) if weighted else None, reduction=reduction)
    y, dy, dx, _ = run(m, logits, target=agv.tensor(target))
    lines = both(m, logits.shape, y.shape, {})
    p, onehot = np_softmax(logits), np.eye(c)[target]
    wt = w[target][:, None] if weighted else np.ones((n, 1))
    if reduction == "mean":
        want = dy * wt * (p - onehot) / wt.sum()
        formula = (
            "dlogits = dY · w[target] ⊙ (softmax(logits) − onehot(target)) / Σ w[target]"
            if weighted else "dlogits = dY · (softmax(logits) − onehot(target)) / N"
        )  # fmt: skip
    elif reduction == "sum":
        want = dy * wt * (p - onehot)
        formula = (
            "dlogits = dY · " + ("w[target] ⊙ " if weighted else "") + "(softmax(logits) − onehot(target))"
        )
    else:
        want = dy[:, None] * wt * (p - onehot)
        formula = (
            "dlogits = dY[:, None] ⊙ "
            + ("w[target] ⊙ " if weighted else "")
            + "(softmax(logits) − onehot(target))"
        )
    line = line_with(lines, f"<code>{formula}</code>")
    assert arrow(line) == dx.shape == (n, c)
    np.testing.assert_allclose(want, dx, **TOL)
    assert f"logits {logits.shape} (N, C)" in lines[0]
    assert f"N = {n}" in line_with(lines, "reduction=")
    assert any("class weights" in line for line in lines) == weighted
    if torch is not None:
        tm = torch.nn.CrossEntropyLoss(weight=torch.tensor(w) if weighted else None, reduction=reduction)
        ty, tdx, _ = run_torch(tm, logits, dy, target=torch.tensor(target))
        np.testing.assert_allclose(want, tdx, **TOL)
        assert explain_layer(tm, logits.shape, ty.shape, {}, "en") == lines


def test_cross_entropy_as_a_function_name():
    module_lines = explain_layer(nn.CrossEntropyLoss(), (8, 10), (), {}, "en")
    for name in ("cross_entropy", "CrossEntropyLoss"):
        lines = explain_layer(name, (8, 10), (), {}, "en")
        assert lines[1:] == module_lines[1:]
        assert lines[0].startswith(f"<b>{name}</b>")
    assert "<code>dY</code> (), a scalar" in module_lines[1]
    assert "it is 1 when backward starts at the loss" in module_lines[1]


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_nll_loss(reduction):
    logp = np.log(np_softmax(rng(19).standard_normal((6, 4))))
    target = rng(20).integers(0, 4, 6)
    m = nn.NLLLoss(reduction=reduction)
    y, dy, dx, _ = run(m, logp, target=agv.tensor(target))
    lines = both(m, logp.shape, y.shape, {})
    onehot = np.eye(4)[target]
    want = dy * -onehot / (6 if reduction == "mean" else 1)
    formula = "dX = dY · (−onehot(target))" + (" / N" if reduction == "mean" else "")
    assert arrow(line_with(lines, f"<code>{formula}</code>")) == (6, 4)
    np.testing.assert_allclose(want, dx, **TOL)
    if reduction == "mean":  # F.nll_loss's default, as a function name
        assert explain_layer("nll_loss", logp.shape, y.shape, {}, "en")[1:] == lines[1:]


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_mse_loss_divides_by_the_number_of_elements(reduction):
    pred = rng(21).standard_normal((8, 3))
    target = rng(22).standard_normal((8, 3))
    m = nn.MSELoss(reduction=reduction)
    tt = agv.tensor(target, requires_grad=True)
    y, dy, dx, _ = run(m, pred, target=tt)
    lines = both(m, pred.shape, y.shape, {})
    want = dy * 2 * (pred - target) / (pred.size if reduction == "mean" else 1)
    formula = "dŶ = dY · 2(Ŷ − Y)" + (" / n" if reduction == "mean" else "")
    assert arrow(line_with(lines, f"<code>{formula}</code>")) == (8, 3)
    np.testing.assert_allclose(want, dx, **TOL)
    np.testing.assert_allclose(-want, tt.grad.numpy(), **TOL)  # the target's gradient, as the text says
    assert "<code>dY<sub>target</sub> = −dŶ</code>" in lines[-1]
    if reduction == "mean":
        assert "n = 8·3 = 24 elements" in lines[0] and "n = 24 counts every element" in lines[-1]
        assert explain_layer("mse_loss", pred.shape, y.shape, {}, "en")[1:] == lines[1:]


# -- reshapes, dropout, pooling, embedding -----------------------------------------------


def test_dropout_training_and_eval():
    m = nn.Dropout(0.25)
    x = rng(23).standard_normal((8, 16))
    y, dy, dx, _ = run(m, x)
    lines = both(m, x.shape, y.shape, {})
    mask = y != 0
    line = line_with(lines, "<code>dX = dY ⊙ mask / (1 − p)</code>")
    assert line.endswith(f"{y.shape} → {x.shape}")
    np.testing.assert_allclose(dy * mask / (1 - 0.25), dx, **TOL)
    assert "1/(1 − p) = 1.33333" in lines[0]
    m.eval()
    y, dy, dx, _ = run(m, x)
    lines = both(m, x.shape, y.shape, {})
    line_with(lines, "<code>dX = dY</code>")
    np.testing.assert_allclose(dy, dx, **TOL)


def test_flatten_is_a_reshape_back():
    m = nn.Flatten()
    x = rng(24).standard_normal((8, 4, 2, 2))
    y, dy, dx, _ = run(m, x)
    lines = both(m, x.shape, y.shape, {})
    line = line_with(lines, "<code>dX = dY.reshape(X.shape)</code>")
    assert line.endswith("(8, 16) → (8, 4, 2, 2)")
    np.testing.assert_array_equal(dy.reshape(x.shape), dx)


def windows(size, out, k, s):
    return [(i * s, i * s + k) for i in range(out)]


@pytest.mark.parametrize("k, s", [(2, 2), (3, 2)])
def test_max_pool_sends_each_gradient_to_its_window_max(k, s):
    m = nn.MaxPool2d(k, s)
    x = rng(25).standard_normal((2, 3, 9, 9))
    y, dy, dx, _ = run(m, x)
    lines = both(m, x.shape, y.shape, {})
    want = np.zeros_like(x)
    for i, (r0, r1) in enumerate(windows(9, y.shape[2], k, s)):
        for j, (c0, c1) in enumerate(windows(9, y.shape[3], k, s)):
            win = x[:, :, r0:r1, c0:c1].reshape(2, 3, -1)
            arg = win.argmax(-1)
            for b in range(2):
                for c in range(3):
                    r, q = divmod(arg[b, c], c1 - c0)
                    want[b, c, r0 + r, c0 + q] += dy[b, c, i, j]
    np.testing.assert_allclose(want, dx, **TOL)
    assert line_with(lines, "window's maximum").endswith(f"{y.shape} → {x.shape}")
    assert any("overlap" in line for line in lines) == (s < k)


@pytest.mark.parametrize("k, s", [(2, 2), (3, 1)])
def test_avg_pool_spreads_evenly(k, s):
    m = nn.AvgPool2d(k, s)
    x = rng(26).standard_normal((2, 3, 8, 8))
    y, dy, dx, _ = run(m, x)
    lines = both(m, x.shape, y.shape, {})
    want = np.zeros_like(x)
    for i, (r0, r1) in enumerate(windows(8, y.shape[2], k, s)):
        for j, (c0, c1) in enumerate(windows(8, y.shape[3], k, s)):
            want[:, :, r0:r1, c0:c1] += dy[:, :, i : i + 1, j : j + 1] / (k * k)
    np.testing.assert_allclose(want, dx, **TOL)
    line = line_with(lines, f"<code>dY / {k * k}</code>")
    assert line.endswith(f"{y.shape} → {x.shape}")


@pytest.mark.parametrize("out", [1, 3])
def test_adaptive_avg_pool(out):
    m = nn.AdaptiveAvgPool2d(out)
    x = rng(27).standard_normal((2, 3, 7, 7))
    y, dy, dx, _ = run(m, x)
    lines = both(m, x.shape, y.shape, {})
    want = np.zeros_like(x)
    bounds = [(i * 7 // out, -(-(i + 1) * 7 // out)) for i in range(out)]  # PyTorch's windows
    for i, (r0, r1) in enumerate(bounds):
        for j, (c0, c1) in enumerate(bounds):
            want[:, :, r0:r1, c0:c1] += dy[:, :, i : i + 1, j : j + 1] / ((r1 - r0) * (c1 - c0))
    np.testing.assert_allclose(want, dx, **TOL)
    if out == 1:
        assert "<code>dX = dY / (H·W) = dY / 49</code>" in lines[2]
    assert lines[2].endswith(f"{y.shape} → {x.shape}")


def test_embedding_scatter_adds_rows():
    m = nn.Embedding(10, 4, padding_idx=0).double()
    idx = np.array([[1, 2, 1, 0, 5], [5, 5, 9, 0, 1]])
    y, dy, dx, g = run(m, idx)
    lines = both(m, idx.shape, y.shape, shapes_of(m))
    want = np.zeros((10, 4))
    np.add.at(want, idx.reshape(-1), dy.reshape(-1, 4))
    want[0] = 0  # padding_idx
    np.testing.assert_allclose(want, g["weight"], **TOL)
    line = line_with(lines, "<code>dW[index] += dY[position]</code>")
    assert line.endswith(f"{y.shape} → {g['weight'].shape}")
    assert "Row 0 (padding_idx) always gets 0." in lines[-1]
    assert dx is None


# -- every layer: torch modules, languages, escaping, unknown modules --------------------


def test_language_none_is_the_current_language():
    try:
        agv.set_language("zh")
        assert explain_layer(nn.ReLU(), (2, 3), (2, 3), {}, None) == explain_layer(
            nn.ReLU(), (2, 3), (2, 3), {}, "zh"
        )
    finally:
        agv.set_language("en")


def test_a_subclass_gets_its_ancestors_text_under_its_own_escaped_name():
    hostile = type(
        "<img src=x onerror=alert(1)>", (nn.Linear,), {"extra_repr": lambda self: "<script>alert(2)</script>"}
    )
    m = hostile(4, 3)
    for language in ("en", "zh"):
        lines = explain_layer(m, (2, 4), (2, 3), shapes_of(m), language)
        text = "\n".join(lines)
        assert lines and "<img" not in text and "<script" not in text
        assert f"<b>{html.escape(type(m).__name__)}</b>" in lines[0]
        for line in lines:
            check_html(line)
    if torch is not None:  # PyTorch's own subclass, used in MultiheadAttention
        tm = torch.nn.MultiheadAttention(8, 2).out_proj
        assert "<code>dX = dY · W</code>" in "\n".join(explain_layer(tm, (3, 8), (3, 8), shapes_of(tm), "en"))


def test_hostile_settings_are_escaped():
    bad = '<img src=x onerror="alert(1)">&'
    leaky = nn.LeakyReLU()
    leaky.negative_slope = bad
    bn = nn.BatchNorm1d(3)
    bn.eps = bad
    conv = nn.Conv2d(2, 3, 3)
    conv.stride, conv.padding, conv.dilation = bad, bad, bad
    drop = nn.Dropout()
    drop.p = bad
    emb = nn.Embedding(5, 2)
    emb.padding_idx = bad
    soft = nn.Softmax(dim=1)
    soft.dim = bad
    cases = [
        (leaky, (2, 3), (2, 3), {}),
        (bn, (2, 3), (2, 3), {"weight": (3,), "bias": (3,)}),
        (conv, (1, 2, 5, 5), (1, 3, 3, 3), {"weight": (3, 2, 3, 3), "bias": (3,)}),
        (drop, (2, 3), (2, 3), {}),
        (emb, (2,), (2, 2), {"weight": (5, 2)}),
        (soft, (2, 3), (2, 3), {}),
        (nn.Linear(2, 3), (2, 2), (2, 3), {"weight": (bad, 2)}),
    ]
    for module, x, y, params in cases:
        for language in ("en", "zh"):
            lines = explain_layer(module, x, y, params, language)
            text = "\n".join(lines)
            assert "<img" not in text and 'onerror="' not in text, (module, text)
            for line in lines:
                check_html(line)
    shown = "\n".join(explain_layer(leaky, (2, 3), (2, 3), {}, "en"))
    assert html.escape(bad) in shown


def test_unknown_modules_and_containers_give_no_text():
    class Net(nn.Module):
        def forward(self, x):
            return x

    unknown = [
        nn.Sequential(nn.Linear(2, 2), nn.ReLU()),
        nn.ModuleList([nn.ReLU()]),
        Net(),
        nn.BCELoss(),
        None,
        "",
        "some_op",
        "<script>alert(1)</script>",
        object(),
    ]
    if torch is not None:
        unknown += [torch.nn.Sequential(torch.nn.ReLU()), torch.nn.GRU(3, 4), torch.nn.ModuleDict()]
    for module in unknown:
        for language in ("en", "zh"):
            assert explain_layer(module, (2, 2), (2, 2), {}, language) == [], module


def test_every_layer_kind_has_lines_in_both_languages_with_real_shapes():
    """A table of one instance per layer kind: lines, the same in both languages, and the
    output shape printed in the dY line is the one passed."""
    cases = [
        (nn.Linear(4, 16), (8, 4), (8, 16), {"weight": (16, 4), "bias": (16,)}),
        (nn.Conv2d(3, 8, 3), (2, 3, 10, 10), (2, 8, 8, 8), {"weight": (8, 3, 3, 3), "bias": (8,)}),
        (nn.ReLU(), (8, 16), (8, 16), {}),
        (nn.BatchNorm1d(16), (8, 16), (8, 16), {"weight": (16,), "bias": (16,)}),
        (nn.CrossEntropyLoss(), (8, 10), (), {}),
        ("mse_loss", (8, 1), (), {}),
        (nn.Dropout(), (8, 16), (8, 16), {}),
        (nn.MaxPool2d(2), (2, 3, 8, 8), (2, 3, 4, 4), {}),
        (nn.Embedding(10, 4), (2, 5), (2, 5, 4), {"weight": (10, 4)}),
    ]
    for module, x, y, params in cases:
        lines = both(module, x, y, params)
        dy_line = next(line for line in lines if line.startswith("<code>dY</code>"))
        assert dy_line.startswith(f"<code>dY</code> {y}" if y else "<code>dY</code> (), a scalar")


@needs_torch
def test_cross_entropy_with_label_smoothing_through_torch():
    logits = rng(28).standard_normal((6, 4))
    target = rng(29).integers(0, 4, 6)
    tm = torch.nn.CrossEntropyLoss(label_smoothing=0.1)
    dy = np.array(1.5)
    ty, tdx, _ = run_torch(tm, logits, dy, target=torch.tensor(target))
    lines = both(tm, logits.shape, ty.shape, {})
    formula = "dlogits = dY · (softmax(logits) − ((1 − 0.1)·onehot(target) + 0.1/C)) / N"
    assert arrow(line_with(lines, f"<code>{formula}</code>")) == (6, 4)
    want = dy * (np_softmax(logits) - (0.9 * np.eye(4)[target] + 0.1 / 4)) / 6
    np.testing.assert_allclose(want, tdx, **TOL)


def test_shapes_not_known():
    """No input shape: read from the weight (Linear), the output (activations, norms), or shown
    as letters (Conv2d); a Linear of unknown size gives no text."""
    lines = explain_layer(
        nn.Conv2d(3, 8, 3), None, (2, 8, 5, 5), {"weight": (8, 3, 3, 3), "bias": (8,)}, "en"
    )
    assert line_with(lines, "rot180").endswith("(2, 8, 5, 5) → (2, 3, H, W)")
    assert explain_layer(nn.Tanh(), None, (4, 3), {}, "en")[2].endswith("(4, 3) → (4, 3)")
    assert explain_layer("linear", (2, 4), (2, 3), {}, "en") == []
    assert explain_layer(nn.Flatten(), None, (8, 16), {}, "en")[-1].endswith("(8, 16) → X's shape")
    lines = explain_layer(
        nn.Conv2d(3, 8, 3, padding="same"), (1, 3, 5, 5), (1, 8, 5, 5), {"weight": (8, 3, 3, 3)}, "en"
    )
    assert "Padding same:" in line_with(lines, "Padding")
    assert not any("db" in line for line in lines)
