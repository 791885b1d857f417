"""The layers: Modules that hold parameters (or settings) and call the
functions of `functional.py`. Initialisation follows PyTorch's defaults, drawn
from autogradviz's generator (`agv.manual_seed`)."""

from __future__ import annotations

import math

from .. import ops
from ..core import creation
from ..core.tensor import Tensor
from ..ops._operands import operand
from . import functional as F  # noqa: N812 - the conventional name
from . import init
from ._arguments import is_int, tensor_argument, typename
from .conv import _conv_padding, _pair, _single
from .module import Module
from .parameter import Parameter, UninitializedParameter

# PyTorch's, printed in a fixed order (PyTorch prints a set, in an order that changes between runs)
_PADDING_MODES = "{'zeros', 'reflect', 'replicate', 'circular'}"


def _new_parameter(*shape: int, device=None, dtype=None) -> Parameter:
    # zeros are cheap (the memory is only touched when the initialiser writes it);
    # device= is checked there: "cpu" is accepted, a device autogradviz lacks raises
    return Parameter(creation.zeros(*shape, device=device, dtype=dtype))


def _default_init(weight, bias) -> None:
    """PyTorch's default for Linear and Conv2d: U(-1/√fan_in, 1/√fan_in) for
    the weight (that is kaiming_uniform_ with a=√5) and for the bias."""
    init.kaiming_uniform_(weight, a=math.sqrt(5))
    if bias is not None:
        fan_in, _ = init._calculate_fan_in_and_fan_out(weight)
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
        init.uniform_(bias, -bound, bound)


class Linear(Module):
    """y = x Wᵀ + b: every output feature is a weighted sum of all input features."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device=None, dtype=None):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        self.weight = _new_parameter(out_features, in_features, device=device, dtype=dtype)
        self.register_parameter(
            "bias", _new_parameter(out_features, device=device, dtype=dtype) if bias else None
        )
        self.reset_parameters()

    def reset_parameters(self) -> None:
        _default_init(self.weight, self.bias)

    def forward(self, input: Tensor) -> Tensor:
        x = tensor_argument(input, "linear")  # None is PyTorch's TypeError, not numpy's "dtype object"
        if x.shape[-1:] != (self.in_features,):
            raise RuntimeError(
                f"{self!r}: expected input with last dimension {self.in_features}, got shape {x.shape}"
            )
        return F.linear(x, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"
        )


class LazyLinear(Linear):
    """A Linear layer whose in_features is read from its first input.

        model = nn.Sequential(nn.LazyLinear(256), nn.ReLU(), nn.LazyLinear(10))
        model(x)          # now each layer knows its in_features: they become nn.Linear

    Until that first call, weight and bias are placeholders (printed `<UninitializedParameter>`,
    with no values), and the layer prints in_features=0, as in PyTorch. The first call gives
    the same parameter objects their shape and PyTorch's default initial values, so an
    optimizer made before it (`SGD(model.parameters(), ...)`) trains them all the same;
    then the layer turns into a plain nn.Linear.
    """

    def __init__(self, out_features: int, bias: bool = True, device=None, dtype=None):
        Module.__init__(self)
        self.in_features, self.out_features = 0, out_features
        self.weight = _uninitialized_parameter(device, dtype)
        self.register_parameter("bias", _uninitialized_parameter(device, dtype) if bias else None)

    def has_uninitialized_params(self) -> bool:
        return any(isinstance(p, UninitializedParameter) for p in self.parameters())

    def forward(self, input: Tensor) -> Tensor:
        x = tensor_argument(input, "linear")
        if x._data.ndim == 0:
            raise IndexError(
                f"{self!r}: a 0-d input has no last dimension to read in_features from; "
                "pass a batch of shape (..., in_features)"
            )
        self.in_features = x._data.shape[-1]
        for p, shape in (
            (self.weight, (self.out_features, self.in_features)),
            (self.bias, (self.out_features,)),
        ):
            if p is not None:  # the same tensor object, now with values: optimizers keep working
                p._data = creation.zeros(*shape, dtype=p._data.dtype)._data
                p.__class__ = Parameter
        self.reset_parameters()
        self.__class__ = Linear  # as PyTorch does: from now on it is an ordinary Linear
        return Linear.forward(self, x)


def _uninitialized_parameter(device, dtype) -> UninitializedParameter:
    """A parameter without a shape yet (LazyLinear's), kept as an empty float tensor."""
    return UninitializedParameter(creation.zeros(0, device=device, dtype=dtype))


def _check_conv_arguments(layer: str, in_channels, out_channels, groups, padding_mode) -> None:
    """Conv1d's and Conv2d's constructor checks: PyTorch's checks and words first (a
    mistake is the learner's to mend), then what autogradviz does not implement.
    (PyTorch's constructor takes a float or True for groups, and fails later: in
    torch.empty, or at the call.)"""
    if not is_int(groups):
        raise TypeError(f"{layer}: groups must be an int, not {typename(groups)} ({groups!r})")
    if groups <= 0:
        raise ValueError("groups must be a positive integer")
    if in_channels % groups != 0:
        raise ValueError(
            f"in_channels must be divisible by groups (in_channels={in_channels}, groups={groups})"
        )
    if out_channels % groups != 0:
        raise ValueError(
            f"out_channels must be divisible by groups (out_channels={out_channels}, groups={groups})"
        )
    if padding_mode not in _PADDING_MODES:
        raise ValueError(
            f"padding_mode must be one of {_PADDING_MODES}, but got padding_mode='{padding_mode}'"
        )
    if groups != 1:
        raise NotImplementedError(
            f"{layer}: groups={groups} is not supported; autogradviz implements groups=1"
        )
    if padding_mode != "zeros":
        raise NotImplementedError(f"{layer}: padding_mode={padding_mode!r} is not supported, only 'zeros'")


class Conv2d(Module):
    """Slides out_channels learned kernels of shape (in_channels, kh, kw) over the image."""

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size,
        stride=1,
        padding=0,
        dilation=1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device=None,
        dtype=None,
    ):
        super().__init__()
        _check_conv_arguments("Conv2d", in_channels, out_channels, groups, padding_mode)
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = _pair(kernel_size, "kernel_size")
        self.stride, self.dilation = _pair(stride, "stride"), _pair(dilation, "dilation")
        self.padding = padding if isinstance(padding, str) else _pair(padding, "padding")
        _conv_padding(
            self.padding, self.kernel_size, self.stride, self.dilation
        )  # a bad padding fails here, as in PyTorch
        self.groups, self.padding_mode = groups, padding_mode
        self.weight = _new_parameter(out_channels, in_channels, *self.kernel_size, device=device, dtype=dtype)
        self.register_parameter(
            "bias", _new_parameter(out_channels, device=device, dtype=dtype) if bias else None
        )
        self.reset_parameters()

    def reset_parameters(self) -> None:
        _default_init(self.weight, self.bias)

    def forward(self, input: Tensor) -> Tensor:
        return F.conv2d(input, self.weight, self.bias, self.stride, self.padding, self.dilation, _layer=self)

    def extra_repr(self) -> str:
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0, 0):
            s += f", padding={self.padding}"
        if self.dilation != (1, 1):
            s += f", dilation={self.dilation}"
        if self.bias is None:
            s += ", bias=False"
        return s


class Conv1d(Module):
    """Slides out_channels learned kernels of shape (in_channels, k) along a sequence:
    input (N, in_channels, L), output (N, out_channels, L_out)."""

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: int | tuple[int],
        stride: int | tuple[int] = 1,
        padding: int | tuple[int] | str = 0,
        dilation: int | tuple[int] = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device=None,
        dtype=None,
    ):
        super().__init__()
        _check_conv_arguments("Conv1d", in_channels, out_channels, groups, padding_mode)
        self.in_channels, self.out_channels = in_channels, out_channels
        # one number each, kept as 1-tuples as PyTorch keeps them: kernel_size=(3,)
        self.kernel_size = (_single(kernel_size, "kernel_size"),)
        self.stride, self.dilation = (_single(stride, "stride"),), (_single(dilation, "dilation"),)
        self.padding = padding if isinstance(padding, str) else (_single(padding, "padding"),)
        # a bad padding fails here, as in PyTorch (checked as the 2-D convolution one row high it is)
        _conv_padding(
            self.padding if isinstance(self.padding, str) else (0, *self.padding),
            (1, *self.kernel_size),
            (1, *self.stride),
            (1, *self.dilation),
        )
        self.groups, self.padding_mode = groups, padding_mode
        self.weight = _new_parameter(out_channels, in_channels, *self.kernel_size, device=device, dtype=dtype)
        self.register_parameter(
            "bias", _new_parameter(out_channels, device=device, dtype=dtype) if bias else None
        )
        self.reset_parameters()

    def reset_parameters(self) -> None:
        _default_init(self.weight, self.bias)

    def forward(self, input: Tensor) -> Tensor:
        return F.conv1d(input, self.weight, self.bias, self.stride, self.padding, self.dilation, _layer=self)

    def extra_repr(self) -> str:
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,):
            s += f", padding={self.padding}"
        if self.dilation != (1,):
            s += f", dilation={self.dilation}"
        if self.bias is None:
            s += ", bias=False"
        return s


class MaxPool2d(Module):
    def __init__(
        self,
        kernel_size,
        stride=None,
        padding=0,
        dilation=1,
        return_indices: bool = False,
        ceil_mode: bool = False,
    ):
        super().__init__()
        self.kernel_size, self.stride = kernel_size, stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input: Tensor) -> Tensor:
        return F.max_pool2d(
            input, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode,
            self.return_indices, _layer=self,
        )  # fmt: skip

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
            f"dilation={self.dilation}, ceil_mode={self.ceil_mode}"
        )


class AvgPool2d(Module):
    def __init__(
        self,
        kernel_size,
        stride=None,
        padding=0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override: int | None = None,
    ):
        super().__init__()
        self.kernel_size, self.stride = kernel_size, stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool2d(
            input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad,
            self.divisor_override, _layer=self,
        )  # fmt: skip

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool2d(Module):
    """Averages each channel down to `output_size`, whatever the input's size."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool2d(input, self.output_size, _layer=self)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class ReLU(Module):
    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Identity(Module):
    """Passes its input through unchanged: a placeholder, e.g. for a removed layer."""

    def __init__(self, *args, **kwargs):  # PyTorch ignores any arguments too
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:
        return input


class Softmax(Module):
    def __init__(self, dim: int | None = None):
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.softmax(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSoftmax(Softmax):
    def forward(self, input: Tensor) -> Tensor:
        return F.log_softmax(input, self.dim)


class LeakyReLU(Module):
    def __init__(self, negative_slope: float = 0.01, inplace: bool = False):
        super().__init__()
        self.negative_slope, self.inplace = negative_slope, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class Sigmoid(Module):
    def forward(self, input: Tensor) -> Tensor:
        return ops.sigmoid(input)


class Tanh(Module):
    def forward(self, input: Tensor) -> Tensor:
        return ops.tanh(input)


class Dropout(Module):
    """Zeroes each element with probability p while training (scaling the rest
    by 1/(1 - p)); does nothing in eval mode."""

    def __init__(self, p: float = 0.5, inplace: bool = False):
        super().__init__()
        if not 0 <= p <= 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Flatten(Module):
    def __init__(self, start_dim: int = 1, end_dim: int = -1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input: Tensor) -> Tensor:
        return ops.flatten(input, self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class BatchNorm1d(Module):
    """Normalises each feature (dim 1) of a (N, C) or (N, C, L) input over the batch."""

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        device=None,
        dtype=None,
        *,
        bias: bool = True,
    ):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        self.register_parameter(
            "weight", Parameter(creation.ones(num_features, device=device, dtype=dtype)) if affine else None
        )
        self.register_parameter(
            "bias", _new_parameter(num_features, device=device, dtype=dtype) if affine and bias else None
        )
        if track_running_stats:
            self.register_buffer("running_mean", creation.zeros(num_features, device=device, dtype=dtype))
            self.register_buffer("running_var", creation.ones(num_features, device=device, dtype=dtype))
            self.register_buffer("num_batches_tracked", creation.tensor(0))
        else:
            for name in ("running_mean", "running_var", "num_batches_tracked"):
                self.register_buffer(name, None)

    def forward(self, input: Tensor) -> Tensor:
        x = operand(input)
        if x.ndim not in (2, 3):
            raise ValueError(f"{self!r}: expected 2D or 3D input (got {x.ndim}D input of shape {x.shape})")
        if x.shape[1] != self.num_features:
            raise RuntimeError(
                f"{self!r}: running_mean should contain {x.shape[1]} elements not {self.num_features}: "
                f"expected input with {self.num_features} features in dim 1, got shape {x.shape}"
            )
        if self.weight is not None and x._data.dtype != self.weight._data.dtype:
            raise RuntimeError(
                f"{self!r}: mixed dtype: the input is {x.dtype!r}, the layer's parameters "
                f"{self.weight.dtype!r}; convert one of them (x.float(), or model.double())"
            )
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:  # a plain average over all batches so far
                factor = 1.0 / self.num_batches_tracked.item()
        use_batch_stats = self.training or self.running_mean is None
        return F.batch_norm(
            x, self.running_mean, self.running_var, self.weight, self.bias, use_batch_stats, factor, self.eps
        )

    def extra_repr(self) -> str:
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
            f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}"
        )


class Embedding(Module):
    """A table of num_embeddings learned vectors; indices pick rows."""

    def __init__(
        self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None, device=None, dtype=None
    ):
        super().__init__()
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx %= num_embeddings
        self.num_embeddings, self.embedding_dim, self.padding_idx = num_embeddings, embedding_dim, padding_idx
        self.weight = _new_parameter(num_embeddings, embedding_dim, device=device, dtype=dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.normal_(self.weight)
        if self.padding_idx is not None:
            self.weight._data[self.padding_idx] = 0

    def forward(self, input: Tensor) -> Tensor:
        return F.embedding(input, self.weight, self.padding_idx, _layer=self)

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        return s


# Paddle's spellings
Conv2D, MaxPool2D, AvgPool2D, AdaptiveAvgPool2D, BatchNorm1D = (
    Conv2d,
    MaxPool2d,
    AvgPool2d,
    AdaptiveAvgPool2d,
    BatchNorm1d,
)
