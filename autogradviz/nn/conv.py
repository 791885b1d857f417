"""Convolution and pooling: the ops that slide a window over an image.

Each one reads its window at kh·kw offsets ("taps"). Tap (i, j) of every
window at once is one strided slice of the padded input,
`padded[..., i·dh :: sh, j·dw :: sw]`, so no Python loop ever runs over pixels:

- conv2d copies the windows into columns (im2col), and one matrix product
  with the weights computes every output pixel; its backward adds the
  columns' gradients back onto the pixels they were read from (col2im);
- conv1d is conv2d over an image one row high (the same arithmetic and the
  same node, as in PyTorch);
- max and average pooling combine the kh·kw tap slices directly.

They compute in the input's dtype (float32 by default, as in PyTorch). Their
backward formulas use numpy slicing that has no counterpart among
autogradviz's own ops, so create_graph=True (double backward) is not supported
through them, except for adaptive_avg_pool2d, which is two matrix products.
"""

from __future__ import annotations

from itertools import product

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..core.graph import Node
from ..core.record import record
from ..core.tensor import Tensor, _make
from ..ops import numpy_math
from ..ops._operands import operand
from ._arguments import int_pair, is_int, tensor_argument, typename

Size = int | tuple[int, int]


def _pair(value, name: str = "value") -> tuple[int, int]:
    pair = (value, value) if isinstance(value, (int, np.integer)) else tuple(value)
    if len(pair) != 2:
        raise ValueError(f"{name} must be an int or a pair of ints, got {value!r}")
    return int(pair[0]), int(pair[1])


def _out_size(size: int, k: int, s: int, p: int, d: int, ceil_mode: bool = False) -> int:
    """Output length along one axis (PyTorch's formula, with its ceil_mode rule
    that the last window must start inside the input or its left padding)."""
    span = size + 2 * p - d * (k - 1) - 1
    n = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (n - 1) * s >= size + p:
        n -= 1
    return n


def _tap(i: int, j: int, stride, dilation, out_hw) -> tuple:
    """The index of tap (i, j) of every window: a strided slice, shape (..., OH, OW)."""
    (sh, sw), (dh, dw), (oh, ow) = stride, dilation, out_hw
    return (..., slice(i * dh, i * dh + sh * (oh - 1) + 1, sh), slice(j * dw, j * dw + sw * (ow - 1) + 1, sw))


def _pad(x: np.ndarray, pads: tuple, value: float = 0.0) -> np.ndarray:
    top, bottom, left, right = pads
    if not any(pads):
        return x
    # np.pad does the same, with much more Python around it: this runs every step
    n, c, h, w = x.shape
    out = np.full((n, c, h + top + bottom, w + left + right), value, dtype=x.dtype)
    out[:, :, top : top + h, left : left + w] = x
    return out


def _unpad(x: np.ndarray, pads: tuple) -> np.ndarray:
    top, bottom, left, right = pads
    return x[:, :, top : x.shape[2] - bottom, left : x.shape[3] - right]


def _who(layer, op: str) -> str:
    """The name an error gives: the calling layer's repr, or the function's name."""
    return op if layer is None else repr(layer)


def _as_batch(x, op: str, layer=None):
    """Check a (N, C, H, W) input; an unbatched (C, H, W) one gets N = 1."""
    who = _who(layer, op)
    if x.ndim not in (3, 4):
        raise RuntimeError(
            f"{who}: expected a 4-D input (N, C, H, W) or an unbatched 3-D one (C, H, W), got shape {x.shape}"
        )
    if x._data.dtype.kind != "f":
        raise RuntimeError(
            f"{who}: expected a floating-point input, got {x.dtype!r}; convert it with x.float()"
        )
    return x if x.ndim == 4 else x.unsqueeze(0)


def _unbatch(out, was_unbatched: bool):
    return out.squeeze(0) if was_unbatched else out


def _check_output_size(who: str, shape: tuple, out_hw: tuple, kernel: tuple) -> None:
    if min(out_hw) <= 0:
        raise RuntimeError(
            f"{who}: input of shape {shape} is too small for kernel_size {kernel}: the output would be "
            f"{out_hw[0]}x{out_hw[1]}"
        )


def _check_conv_arguments(who: str, shape: tuple, w, bias, stride, padding, dilation) -> None:
    """PyTorch's checks, in its order, before numpy sees a bad value: a zero
    stride divides by zero, a negative padding or a zero dilation makes numpy
    fail with a message about its own internals, and a wrong bias or an empty
    kernel would even give a result. `shape` is the input's, already 3-D or 4-D."""
    shapes = f"for input of shape {shape} and weight of shape {w.shape}"
    if not isinstance(padding, str) and min(padding) < 0:
        raise RuntimeError(f"{who}: negative padding is not supported, but got padding={padding} {shapes}")
    if min(stride) <= 0:
        raise RuntimeError(f"{who}: non-positive stride is not supported, but got stride={stride} {shapes}")
    if min(dilation) <= 0:
        raise RuntimeError(
            f"{who}: non-positive dilation is not supported, but got dilation={dilation} {shapes}"
        )
    if w.shape[0] < 1:
        raise RuntimeError(
            f"{who}: Given groups=1, expected weight to be at least 1 at dimension 0 (out_channels), "
            f"but got weight of shape {w.shape} instead (input of shape {shape})"
        )
    channels = w.shape[1]
    if shape[-3] != channels:
        raise RuntimeError(
            f"{who}: expected input with {channels} channels, shape (N, {channels}, H, W), got shape "
            f"{shape} ({shape[-3]} channels): the weight of shape {w.shape} is "
            "(out_channels, in_channels, kH, kW)"
        )
    if bias is not None and bias.shape != w.shape[:1]:
        raise RuntimeError(
            f"{who}: Given weight of shape {w.shape}, expected bias to be 1-dimensional with {w.shape[0]} "
            f"elements (one per output channel), but got bias of shape {bias.shape} instead"
        )
    if min(w.shape[2:]) <= 0:
        # PyTorch fails inside its oneDNN backend here, with a message about that
        raise RuntimeError(
            f"{who}: kernel size should be greater than zero, but got a {w.shape[2]}x{w.shape[3]} kernel: "
            f"weight of shape {w.shape} for input of shape {shape}"
        )


def _check_groups(who: str, shape: tuple, w, groups: int) -> None:
    """PyTorch's checks of groups against the weight and the input, in its words:
    a mistake in the shapes is the learner's to mend, whether or not the grouped
    convolution it asks for is implemented here."""
    if w.shape[0] % groups:
        raise RuntimeError(
            f"{who}: Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but got "
            f"weight of shape {w.shape} instead"
        )
    if shape[-3] != w.shape[1] * groups:
        raise RuntimeError(
            f"{who}: Given groups={groups}, weight of shape {w.shape}, expected input of shape {shape} to have "
            f"{w.shape[1] * groups} channels, but got {shape[-3]} channels instead"
        )


def _check_conv_size(who: str, shape: tuple, padded: tuple, kernel, pads, dilation) -> None:
    """PyTorch's check that the (dilated) kernel fits in the padded input, its
    words after the shapes this call gave."""
    span = [d * (k - 1) + 1 for k, d in zip(kernel, dilation)]
    if padded[0] < span[0] or padded[1] < span[1]:
        given = f"input of shape {shape} is too small for kernel_size {tuple(kernel)}"
        if any(pads):
            given += f" with padding {pads[0::2] if pads[0::2] == pads[1::2] else pads}"
        if dilation != (1, 1):
            given += f" and dilation {dilation}"
        raise RuntimeError(
            f"{who}: {given}: Calculated padded input size per channel: ({padded[0]} x {padded[1]}). "
            f"Kernel size: ({span[0]} x {span[1]}). Kernel size can't be greater than actual input size"
        )


# conv2d: y[n, o] = Σ_c,i,j W[o, c, i, j] · x[n, c, h·s + i·d, w·s + j·d] + b[o] ---------------------
def _im2col(padded: np.ndarray, kernel, stride, dilation, out_hw) -> np.ndarray:
    """Padded (N, C, Hp, Wp) -> columns (N, C·kh·kw, OH·OW): column p holds the
    window that output pixel p sees."""
    (kh, kw), (sh, sw), (dh, dw), (oh, ow) = kernel, stride, dilation, out_hw
    span = ((kh - 1) * dh + 1, (kw - 1) * dw + 1)
    windows = sliding_window_view(padded, span, axis=(2, 3))  # (N, C, H', W', span_h, span_w), no copy
    windows = windows[:, :, : sh * (oh - 1) + 1 : sh, : sw * (ow - 1) + 1 : sw, ::dh, ::dw]
    n, c = padded.shape[:2]
    # the one copy: (N, C, kh, kw, OH, OW), contiguous, ready for the matrix product
    return windows.transpose(0, 1, 4, 5, 2, 3).reshape(n, c * kh * kw, oh * ow)


def _col2im_product(weight: np.ndarray, g: np.ndarray, padded_shape: tuple, stride, dilation, out_hw):
    """col2im(Wᵀ @ g), the reverse of im2col: every window's gradient goes back
    onto the pixels it read (pixels read by several windows add up).

    Tap by tap: tap (i, j) of every window sends W[:, :, i, j]ᵀ @ g to the pixels
    it read. The same arithmetic as Wᵀ @ g into whole (N, C·kh·kw, OH·OW) columns,
    but each tap's (N, C, OH·OW) share is kh·kw times smaller: it stays in cache,
    and the allocator reuses it instead of mapping fresh pages every step."""
    _, c, kh, kw = weight.shape
    out = np.zeros(padded_shape, dtype=g.dtype)
    per_tap = np.empty((g.shape[0], c, g.shape[2]), dtype=g.dtype)
    for i, j in product(range(kh), range(kw)):
        np.matmul(weight[:, :, i, j].T, g, out=per_tap)
        out[_tap(i, j, stride, dilation, out_hw)] += per_tap.reshape(-1, c, *out_hw)
    return out


class _ConvolutionName:
    """ConvolutionBackward0's `op`, the name the drawings print. PyTorch records this one
    node for conv1d and conv2d alike, so each node says which call made it (its args end
    with the number of spatial dimensions); the class itself, in the formula sheet, says
    conv2d, the common case."""

    def __get__(self, node, cls=None) -> str:
        if node is None or node.args is None or len(node.args) < 5:
            return "conv2d"
        return f"conv{node.args[4]}d"


class ConvolutionBackward0(Node):
    """conv2d's node, and conv1d's: conv1d is conv2d over an image one row high, so its
    backward adds that row of height 1 to x, W and g, runs the same formulas, and drops it."""

    __slots__ = ()
    op = _ConvolutionName()
    rules = (
        "∂/∂x = col2im(Wᵀ @ g): each output's gradient flows back to the pixels of its window",
        "∂/∂W = g @ colsᵀ: each weight's gradient sums input pixel × output gradient",
        "∂/∂b = Σ g over the batch and the pixels",
    )

    def vjp(self, xp, g, x, weight, cols):
        if xp is not numpy_math:
            raise NotImplementedError("double backward through conv2d is not supported")
        pads, stride, dilation, out_hw, spatial_dims = self.args
        if spatial_dims == 1:  # (N, C, L) -> (N, C, 1, L): one row
            x, weight, g = x[:, :, None, :], weight[:, :, None, :], g[:, :, None, :]
        n, o = g.shape[:2]
        g = g.reshape(n, o, -1)
        gx = gw = gb = None
        if self.needs(1):
            # Σₙ colsₙ @ gₙᵀ, a product per sample then a sum: much faster than
            # tensordot, which first copies cols and g into (…, N·OH·OW) matrices.
            # Its (N, C·kh·kw, O) temporary outgrows that copy of cols only when
            # O > OH·OW (deep layers): then tensordot takes less memory.
            if o <= g.shape[2]:
                gw = np.matmul(cols, g.transpose(0, 2, 1)).sum(axis=0).T
            else:
                gw = np.tensordot(g, cols, axes=([0, 2], [0, 2]))
            gw = gw.reshape(weight.shape)
        if self.needs(0):
            padded_shape = (n, x.shape[1], x.shape[2] + pads[0] + pads[1], x.shape[3] + pads[2] + pads[3])
            gx = _unpad(_col2im_product(weight, g, padded_shape, stride, dilation, out_hw), pads)
        if self.needs(2):
            gb = g.sum(axis=(0, 2))
        if spatial_dims == 1:  # back to (N, C, L) and (O, C, k)
            gx = None if gx is None else gx[:, :, 0, :]
            gw = None if gw is None else gw[:, :, 0, :]
        return gx, gw, gb


def _conv_padding(padding, kernel, stride, dilation) -> tuple[int, int, int, int]:
    """(top, bottom, left, right). "same" pads so the output keeps the input's
    size (any odd extra goes at the bottom/right, as in PyTorch)."""
    if padding == "valid":
        return (0, 0, 0, 0)
    if padding == "same":
        if stride != (1, 1):
            raise ValueError("padding='same' is not supported for strided convolutions")
        total = [d * (k - 1) for k, d in zip(kernel, dilation)]
        return (total[0] // 2, total[0] - total[0] // 2, total[1] // 2, total[1] - total[1] // 2)
    if isinstance(padding, str):
        raise ValueError(f"Invalid padding string {padding!r}, should be one of {{'valid', 'same'}}")
    ph, pw = _pair(padding, "padding")
    return (ph, ph, pw, pw)


def conv2d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Size = 1,
    padding: Size | str = 0,
    dilation: Size = 1,
    groups: int = 1,
    _layer=None,
) -> Tensor:
    """2-D convolution of (N, C, H, W) input with (O, C, kh, kw) weights. Like
    PyTorch's, it is a cross-correlation: the kernel is not flipped."""
    x, w = tensor_argument(input, "conv2d"), tensor_argument(weight, "conv2d", "weight", 2)
    if not is_int(groups):
        raise TypeError(f"conv2d(): argument 'groups' (position 7) must be int, not {typename(groups)}")
    who = _who(_layer, "conv2d")
    if groups <= 0:
        raise RuntimeError(f"{who}: non-positive groups is not supported, but got groups={groups}")
    shape = x.shape  # as given: an unbatched input is named as the learner wrote it
    unbatched = x.ndim == 3
    x = _as_batch(x, "conv2d", _layer)
    if w.ndim != 4:
        raise RuntimeError(
            f"{who}: weight should have 4 dimensions (out_channels, in_channels, kH, kW), but got weight "
            f"of shape {w.shape} (input of shape {shape})"
        )
    if groups != 1:
        _check_groups(who, shape, w, groups)
        raise NotImplementedError(f"{who}: groups={groups} is not supported; autogradviz implements groups=1")
    if bias is not None:
        bias = operand(bias)
        if not isinstance(bias, Tensor):  # a Python number: PyTorch's TypeError, not a broadcast
            raise TypeError(
                f"conv2d(): argument 'bias' (position 3) must be Tensor, not {type(bias).__name__}"
            )
    if x._data.dtype != w._data.dtype:
        raise RuntimeError(
            f"conv2d: input dtype {x.dtype!r} and weight dtype {w.dtype!r} differ; convert one of them "
            "(x.float(), or model.double())"
        )
    stride, dilation = _pair(stride, "stride"), _pair(dilation, "dilation")
    padding = padding if isinstance(padding, str) else _pair(padding, "padding")
    _check_conv_arguments(who, shape, w, bias, stride, padding, dilation)
    kernel = w.shape[2:]
    try:
        pads = _conv_padding(padding, kernel, stride, dilation)
    except ValueError as error:  # F.conv2d says RuntimeError where the Conv2d constructor says ValueError
        raise RuntimeError(str(error)) from None
    n, _, h, wd = x.shape
    padded = (h + pads[0] + pads[1], wd + pads[2] + pads[3])
    _check_conv_size(who, shape, padded, kernel, pads, dilation)
    out_hw = (
        _out_size(padded[0], kernel[0], stride[0], 0, dilation[0]),
        _out_size(padded[1], kernel[1], stride[1], 0, dilation[1]),
    )
    out, cols = _convolve(x._data, w._data, bias, pads, stride, dilation, out_hw)
    args = (pads, stride, dilation, out_hw, 2)
    # the columns are kept for the weight's gradient: building them is the costly part
    node_saved = (x, w, cols)
    return _unbatch(record(ConvolutionBackward0, out, (x, w, bias), saved=node_saved, args=args), unbatched)


def _convolve(x: np.ndarray, w: np.ndarray, bias, pads, stride, dilation, out_hw) -> tuple:
    """The output (N, O, OH, OW) and the im2col columns of a checked 2-D convolution."""
    cols = _im2col(_pad(x, pads), w.shape[2:], stride, dilation, out_hw)
    out = np.matmul(w.reshape(w.shape[0], -1), cols)  # (N, O, OH·OW)
    if bias is not None:
        out += bias._data[:, None]
    return out.reshape(x.shape[0], w.shape[0], *out_hw), cols


# conv1d: y[n, o, l] = Σ_c,i W[o, c, i] · x[n, c, l·s + i·d] + b[o], conv2d one row high --------------
def _single(value, name: str) -> int:
    """A conv1d window argument: an int, or a tuple or list of one int (PyTorch's message)."""
    if is_int(value):
        return int(value)
    if isinstance(value, (tuple, list)) and len(value) == 1 and is_int(value[0]):
        return int(value[0])
    if isinstance(value, (tuple, list)) and all(is_int(v) for v in value):
        raise RuntimeError(
            f"expected {name} to be a single integer value or a list of 1 values to match the convolution "
            f"dimensions, but got {name}={list(value)}"
        )
    raise TypeError(f"conv1d(): argument '{name}' must be tuple of ints, not {typename(value)}")


def conv1d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: int | tuple[int] = 1,
    padding: int | tuple[int] | str = 0,
    dilation: int | tuple[int] = 1,
    groups: int = 1,
    _layer=None,
) -> Tensor:
    """1-D convolution of (N, C, L) input (a batch of C-channel sequences) with (O, C, k)
    weights: each output position is a dot product of the weights with k neighbouring
    positions. Computed as conv2d over an image one row high; recorded, as in PyTorch,
    as one ConvolutionBackward0 node of x, W and b."""
    x, w = tensor_argument(input, "conv1d"), tensor_argument(weight, "conv1d", "weight", 2)
    if not is_int(groups):
        raise TypeError(f"conv1d(): argument 'groups' (position 7) must be int, not {typename(groups)}")
    who = _who(_layer, "conv1d")
    if groups <= 0:
        raise RuntimeError(f"{who}: non-positive groups is not supported, but got groups={groups}")
    size = list(x.shape)
    if x.ndim not in (2, 3):
        raise RuntimeError(
            f"Expected 2D (unbatched) or 3D (batched) input to conv1d, but got input of size: {size}"
        )
    if w.ndim != 3:
        raise RuntimeError(
            f"Expected {w.ndim}-dimensional input for {w.ndim}-dimensional weight {list(w.shape)}, but got "
            f"{x.ndim}-dimensional input of size {size} instead (conv1d's weight is (out_channels, "
            "in_channels, kernel_size))"
        )
    if x._data.dtype.kind != "f":
        raise RuntimeError(
            f"{who}: expected a floating-point input, got {x.dtype!r}; convert it with x.float()"
        )
    if x._data.dtype != w._data.dtype:
        raise RuntimeError(
            f"conv1d: input dtype {x.dtype!r} and weight dtype {w.dtype!r} differ; convert one of them "
            "(x.float(), or model.double())"
        )
    batched = x if x.ndim == 3 else x.unsqueeze(0)
    if groups != 1:
        _check_groups(who, (1, *batched.shape[1:2], 1, batched.shape[2]), w, groups)
        raise NotImplementedError(f"{who}: groups={groups} is not supported; autogradviz implements groups=1")
    if batched.shape[1] != w.shape[1]:
        raise RuntimeError(
            f"Given groups=1, weight of size {list(w.shape)}, expected input{list(batched.shape)} to have "
            f"{w.shape[1]} channels, but got {batched.shape[1]} channels instead"
        )
    if bias is not None:
        bias = operand(bias)
        if not isinstance(bias, Tensor):
            raise TypeError(
                f"conv1d(): argument 'bias' (position 3) must be Tensor, not {type(bias).__name__}"
            )
    step, spread = _single(stride, "stride"), _single(dilation, "dilation")
    pad = padding if isinstance(padding, str) else _single(padding, "padding")
    # as a 2-D convolution one row high: height 1, kernel height 1, nothing added above or below
    stride2, dilation2 = (1, step), (1, spread)
    padding2 = pad if isinstance(pad, str) else (0, pad)
    x4 = batched._data[:, :, None, :]
    w4 = w._data[:, :, None, :]
    _check_conv_arguments(who, x4.shape, w4, bias, stride2, padding2, dilation2)
    try:
        pads = _conv_padding(padding2, w4.shape[2:], stride2, dilation2)
    except ValueError as error:  # F.conv1d says RuntimeError where the Conv1d constructor says ValueError
        raise RuntimeError(str(error)) from None
    padded_length = x4.shape[3] + pads[2] + pads[3]
    span = spread * (w.shape[2] - 1) + 1
    if padded_length < span:
        raise RuntimeError(
            f"Calculated padded input size per channel: ({padded_length}). Kernel size: ({span}). "
            "Kernel size can't be greater than actual input size"
        )
    out_hw = (1, _out_size(padded_length, w.shape[2], step, 0, spread))
    out, cols = _convolve(x4, w4, bias, pads, stride2, dilation2, out_hw)
    out = out[:, :, 0, :]  # (N, O, 1, L_out) -> (N, O, L_out)
    args = (pads, stride2, dilation2, out_hw, 1)
    # an unbatched input is recorded as PyTorch records it: a batch of one, then a squeeze
    result = record(ConvolutionBackward0, out, (batched, w, bias), saved=(batched, w, cols), args=args)
    return result if x.ndim == 3 else result.squeeze(0)


# pooling: the window options, checked once ----------------------------------------------------------
def _pool_windows(name: str, kernel_size, stride, padding, dilation) -> tuple:
    """kernel, stride, padding and dilation as pairs of ints, read as PyTorch's
    parser reads them: a float or a string is its TypeError, a wrong length its
    RuntimeError, in its words. `name` is the function's: max_pool2d, avg_pool2d."""
    kernel = int_pair(
        kernel_size, name, "kernel_size", 2, "kernel_size must either be a single int, or a tuple of two ints"
    )
    if stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0):
        stride = kernel  # omitted: the windows do not overlap
    else:
        stride = int_pair(
            stride, name, "stride", 3, "stride must either be omitted, a single int, or a tuple of two ints"
        )
    pad = int_pair(padding, name, "padding", 4, "padding must either be a single int, or a tuple of two ints")
    dilation = int_pair(
        dilation, name, "dilation", 5, "dilation must be either a single int, or a tuple of two ints"
    )
    return kernel, stride, pad, dilation


def _pool_geometry(x, op: str, kernel, stride, pad, dilation, ceil_mode: bool):
    """Check the window (from _pool_windows) against the input, and give kernel,
    stride, dilation, output size, and the (top, bottom, left, right) padding,
    where ceil_mode may add some at the bottom and right for the last window."""
    # Before numpy sees them: a zero stride divides by zero, a negative padding
    # fails inside numpy, a zero kernel or dilation silently gives a wrong result.
    # The kernel comes first, although PyTorch checks the stride first: its
    # "stride should not be zero" for kernel_size=0 blames the stride the
    # learner never passed (it defaults to the kernel size).
    given = f"for input of shape {x.shape}"
    if min(kernel) <= 0:
        raise RuntimeError(
            f"{op}: kernel size should be greater than zero, but got kernel_size={kernel} {given}"
        )
    if min(stride) <= 0:
        raise RuntimeError(f"{op}: stride should be greater than zero, but got stride={stride} {given}")
    if min(dilation) <= 0:
        raise RuntimeError(f"{op}: dilation should be greater than zero, but got dilation={dilation} {given}")
    if min(pad) < 0:
        raise RuntimeError(f"{op}: pad must be non-negative, but got padding={pad} {given}")
    for p, k, d in zip(pad, kernel, dilation):
        if p > ((k - 1) * d + 1) // 2:
            raise RuntimeError(
                f"{op}: pad should be at most half of effective kernel size, but got pad={p}, "
                f"kernel_size={k} and dilation={d} {given}"
            )
    # PyTorch then checks again against the undilated kernel, which is stricter
    # when dilation > 1: pad=2 passes the check above for k=3, d=2, not this one
    if any(p > k // 2 for p, k in zip(pad, kernel)):
        raise RuntimeError(
            f"{op}: pad should be smaller than or equal to half of kernel size, but got padding={pad} "
            f"and kernel_size={kernel} {given}"
        )
    size = x.shape[2:]
    out_hw = tuple(
        _out_size(n, k, s, p, d, ceil_mode) for n, k, s, p, d in zip(size, kernel, stride, pad, dilation)
    )
    _check_output_size(op, x.shape, out_hw, kernel)
    extra = [
        max(0, (o - 1) * s + (k - 1) * d + 1 - (n + 2 * p))
        for o, s, k, d, n, p in zip(out_hw, stride, kernel, dilation, size, pad)
    ]
    pads = (pad[0], pad[0] + extra[0], pad[1], pad[1] + extra[1])
    return kernel, stride, dilation, out_hw, pads


# max_pool2d: the largest value of each window ------------------------------------------------------
class MaxPool2DWithIndicesBackward0(Node):
    __slots__ = ()
    op = "max_pool2d"
    rules = ("g goes to the input pixel that was the window's max; 0 to the others",)

    def vjp(self, xp, g, winner):
        if xp is not numpy_math:
            raise NotImplementedError("double backward through max_pool2d is not supported")
        padded_shape, pads, kernel, stride, dilation = self.args
        out_hw = g.shape[2:]
        gxp = np.zeros(padded_shape, dtype=g.dtype)
        # g · (winner == k) picks g where tap k won: arithmetic, several times faster
        # than np.where, whose branch per element on a random mask mispredicts. But
        # 0 · inf is NaN, so a non-finite g takes np.where.
        finite = bool(np.isfinite(g).all())
        # windows that do not overlap (the usual kernel_size == stride) reach each
        # pixel once, so the product can be written straight into place
        overlap = any(s < (k - 1) * d + 1 for s, k, d in zip(stride, kernel, dilation))
        for k, (i, j) in enumerate(product(range(kernel[0]), range(kernel[1]))):
            tap = gxp[_tap(i, j, stride, dilation, out_hw)]  # a view: writing to it writes gxp
            won = winner == k
            if not finite:
                tap += np.where(won, g, 0)
            elif overlap:
                tap += g * won
            else:
                np.multiply(g, won, out=tap)
        return (_unpad(gxp, pads),)


def max_pool2d(
    input: Tensor,
    kernel_size: Size,
    stride: Size | None = None,
    padding: Size = 0,
    dilation: Size = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
    _layer=None,
):
    """The largest value of each window (stride defaults to the kernel size)."""
    x = tensor_argument(input, "max_pool2d")
    windows = _pool_windows("max_pool2d", kernel_size, stride, padding, dilation)
    unbatched = x.ndim == 3
    x = _as_batch(x, "max_pool2d", layer=_layer)
    kernel, stride, dilation, out_hw, pads = _pool_geometry(
        x, _who(_layer, "max_pool2d"), *windows, ceil_mode
    )
    padded = _pad(x._data, pads, -np.inf)
    # scan the taps, keeping the largest value so far and which tap it came from
    out = padded[_tap(0, 0, stride, dilation, out_hw)].copy()
    winner = np.zeros(out.shape, dtype=np.min_scalar_type(kernel[0] * kernel[1]))
    has_nan = bool(np.isnan(padded).any())  # checked once: NaN propagates, as in PyTorch
    for k, (i, j) in enumerate(product(range(kernel[0]), range(kernel[1]))):
        if k == 0:
            continue
        tap = padded[_tap(i, j, stride, dilation, out_hw)]
        better = tap > out  # strictly: the first maximum wins
        if has_nan:
            better |= np.isnan(tap)
        np.maximum(out, tap, out=out)  # np.maximum propagates NaN too
        # k grows from tap to tap, so max(winner, k·better) is k where better, and
        # winner elsewhere: arithmetic, several times faster than
        # np.copyto(winner, k, where=better), whose branch per element mispredicts
        np.maximum(winner, better * winner.dtype.type(k), out=winner)
    args = (padded.shape, pads, kernel, stride, dilation)
    result = _unbatch(record(MaxPool2DWithIndicesBackward0, out, (x,), saved=(winner,), args=args), unbatched)
    if not return_indices:
        return result
    # PyTorch's indices: the flat position h·W + w of each max in its input plane
    i, j = np.divmod(winner.astype(np.int64), kernel[1])
    rows = np.arange(out_hw[0])[:, None] * stride[0] + i * dilation[0] - pads[0]
    cols = np.arange(out_hw[1]) * stride[1] + j * dilation[1] - pads[2]
    return result, _unbatch(_make(rows * x.shape[3] + cols), unbatched)


# avg_pool2d: the mean of each window ---------------------------------------------------------------
def _window_counts(size: int, k: int, s: int, p: int, n_out: int, include_pad: bool) -> np.ndarray:
    """How many positions each window covers along one axis: inside the padded
    input (count_include_pad), or inside the input itself."""
    start = np.arange(n_out) * s - p
    end = np.minimum(start + k, size + p)
    if not include_pad:
        start, end = np.maximum(start, 0), np.minimum(end, size)
    return end - start


class AvgPool2DBackward0(Node):
    __slots__ = ()
    op = "avg_pool2d"
    rules = ("each input pixel gets g / (window size) from every window it is in",)

    def vjp(self, xp, g):
        if xp is not numpy_math:
            raise NotImplementedError("double backward through avg_pool2d is not supported")
        padded_shape, pads, kernel, stride, divisor = self.args
        share = g / divisor
        gxp = np.zeros(padded_shape, dtype=g.dtype)
        for i, j in product(range(kernel[0]), range(kernel[1])):
            gxp[_tap(i, j, stride, (1, 1), g.shape[2:])] += share
        return (_unpad(gxp, pads),)


def avg_pool2d(
    input: Tensor,
    kernel_size: Size,
    stride: Size | None = None,
    padding: Size = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
    _layer=None,
) -> Tensor:
    """The mean of each window (stride defaults to the kernel size)."""
    x = tensor_argument(input, "avg_pool2d")
    windows = _pool_windows("avg_pool2d", kernel_size, stride, padding, 1)
    unbatched = x.ndim == 3
    x = _as_batch(x, "avg_pool2d", layer=_layer)
    kernel, stride, _, out_hw, pads = _pool_geometry(x, _who(_layer, "avg_pool2d"), *windows, ceil_mode)
    padded = _pad(x._data, pads)
    total = sum(
        padded[_tap(i, j, stride, (1, 1), out_hw)] for i, j in product(range(kernel[0]), range(kernel[1]))
    )
    if divisor_override:
        divisor = np.asarray(divisor_override, dtype=padded.dtype)
    else:
        counts = [
            _window_counts(n, k, s, p, o, count_include_pad)
            for n, k, s, p, o in zip(x.shape[2:], kernel, stride, pads[::2], out_hw)
        ]
        divisor = np.outer(*counts).astype(padded.dtype)
    args = (padded.shape, pads, kernel, stride, divisor)
    return _unbatch(record(AvgPool2DBackward0, total / divisor, (x,), args=args), unbatched)


# adaptive_avg_pool2d: average into a fixed output size ----------------------------------------------
def _averaging_matrix(size: int, n_out: int, dtype) -> np.ndarray:
    """(n_out, size): row i averages positions floor(i·size/n_out) to
    ceil((i+1)·size/n_out) - 1. Pooling a plane is A_h @ plane @ A_wᵀ."""
    i = np.arange(n_out)
    start = (i * size) // n_out
    end = -((-(i + 1) * size) // n_out)
    inside = (np.arange(size) >= start[:, None]) & (np.arange(size) < end[:, None])
    return (inside / (end - start)[:, None]).astype(dtype)


class AdaptiveAvgPool2DBackward0(Node):
    __slots__ = ()
    op = "adaptive_avg_pool2d"
    rules = ("y = A_h x A_wᵀ, so ∂/∂x = A_hᵀ g A_w: each pixel gets g / (bin size) from its bins",)
    torch_name = "AdaptiveAvgPool2DBackward0; for output size 1×1: MeanBackward1"

    def vjp(self, xp, g):
        rows, cols = self.args
        return (rows.T @ g @ cols,)


def _adaptive_size(output_size, plane: tuple) -> tuple[int, int]:
    """output_size as (height, width), checked as PyTorch checks it: None keeps
    the input's size on that side; a negative size is an error, not an empty output."""
    op = "adaptive_avg_pool2d"

    if is_int(output_size):
        size = (int(output_size), int(output_size))
    elif isinstance(output_size, (tuple, list)):
        for index, item in enumerate(output_size):
            if item is not None and not is_int(item):
                raise TypeError(
                    f"{op}(): argument 'output_size' (position 2) must be tuple of ints, but found element of "
                    f"type {typename(item)} at pos {index} (output_size={output_size!r})"
                )
        if len(output_size) != 2:
            raise RuntimeError(f"{op}: output_size must be 2, but got output_size={tuple(output_size)!r}")
        size = tuple(n if o is None else int(o) for n, o in zip(plane, output_size))
    else:
        raise TypeError(
            f"{op}(): argument 'output_size' (position 2) must be tuple of ints, not {typename(output_size)} "
            f"(output_size={output_size!r})"
        )
    if min(size) < 0:
        raise RuntimeError(
            f"{op}: elements of output_size must be greater than or equal to 0 but received "
            f"{{{size[0]}, {size[1]}}}"
        )
    return size


def adaptive_avg_pool2d(input: Tensor, output_size: int | tuple, _layer=None) -> Tensor:
    """Average each plane into an output_size grid of (nearly) equal bins."""
    x = tensor_argument(input, "adaptive_avg_pool2d")
    unbatched = x.ndim == 3
    x = _as_batch(x, "adaptive_avg_pool2d", layer=_layer)
    size = _adaptive_size(output_size, x.shape[2:])
    rows = _averaging_matrix(x.shape[2], size[0], x._data.dtype)
    cols = _averaging_matrix(x.shape[3], size[1], x._data.dtype)
    out = rows @ x._data @ cols.T
    return _unbatch(record(AdaptiveAvgPool2DBackward0, out, (x,), args=(rows, cols)), unbatched)
