"""`paddle.optimizer`: SGD, Momentum, Adam, AdamW and RMSProp with Paddle 2.0's arguments.

    optim = paddle.optimizer.Adam(learning_rate=0.001, parameters=model.parameters())
    loss.backward()
    optim.step()
    optim.clear_grad()

SGD, Momentum, Adam and AdamW are autogradviz's own optimizers (agv.optim),
whose update rules are PyTorch's; Paddle 2.0's are the same arithmetic:

- Momentum: v ← μ·v + g, p ← p − lr·v (Nesterov: p ← p − lr·(g + μ·v)), with v
  starting at 0, so the first step is lr·g, as PyTorch's is.
- Adam: Paddle's kernel (paddle/fluid/operators/optimizers/adam_op.h) folds the
  bias corrections into the step size, lr·√(1−β₂ᵗ)/(1−β₁ᵗ), and divides by
  √v + ε·√(1−β₂ᵗ): that is PyTorch's m̂/(√v̂ + ε), rearranged. (Paddle's
  docstring writes plain ε there; the kernel is what runs.)
- AdamW: p ← p·(1 − lr·coeff) first, then Adam's step (Paddle's
  `_append_decoupled_weight_decay`), as PyTorch's AdamW.
- A float weight_decay is an L2 penalty added to the gradient (Paddle's
  L2Decay), in SGD, Momentum, Adam and RMSProp alike.

RMSProp is not PyTorch's RMSprop: Paddle puts ε inside the root, √(r + ε),
its defaults are rho=0.95 and epsilon=1e-6 (PyTorch: alpha=0.99, eps=1e-8
outside the root), and its momentum term carries the learning rate. It has
its own update here (`RMSProp._update`).
"""

from __future__ import annotations

import numbers

import numpy as np

from .. import optim as _optim

__all__ = ["Optimizer", "SGD", "Momentum", "Adam", "AdamW", "RMSProp"]


def _parameters(name: str, parameters):
    if parameters is None:
        raise AttributeError(
            f"parameters argument given to the Optimizer should not be None in dygraph mode "
            f"({name}: pass parameters=model.parameters())"
        )
    return parameters


def _learning_rate(learning_rate):
    """Paddle's check of the learning rate's type, in its words (a number here:
    Paddle's LRScheduler objects are not supported)."""
    if not isinstance(learning_rate, numbers.Real):
        raise TypeError(f"learning rate should be float or LRScheduler, got {type(learning_rate)} here")
    return learning_rate


def _decay(name: str, weight_decay, default: float = 0.0) -> float:
    """Paddle's weight_decay: None, or a float (an L2 penalty's coefficient)."""
    if weight_decay is None:
        return default
    if isinstance(weight_decay, (int, float)) and not isinstance(weight_decay, bool):
        return float(weight_decay)
    raise NotImplementedError(f"{name}: weight_decay must be a float here, not {type(weight_decay).__name__}")


def _no_grad_clip(name: str, grad_clip) -> None:
    if grad_clip is not None:
        raise NotImplementedError(
            f"{name}: grad_clip is not supported; clip before step() with "
            "autogradviz.nn.utils.clip_grad_norm_(parameters, max_norm)"
        )


class Optimizer:
    """What Paddle's optimizers add to agv's: clear_grad() sets every gradient
    to zeros (a parameter's .grad reads as a numpy copy here, so it is zeroed
    where it is kept), and minimize(loss) is step() (loss.backward() first)."""

    def clear_grad(self, set_to_zero: bool = True) -> None:
        for group in self.param_groups:
            for p in group["params"]:
                if p._grad is None:
                    continue
                if set_to_zero:
                    p._grad._data[...] = 0
                else:
                    p._grad = None

    clear_gradients = clear_grad

    def zero_grad(self, set_to_none: bool = True) -> None:
        self.clear_grad(set_to_zero=not set_to_none)

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """In Paddle's dynamic graph, minimize applies the gradients backward() computed."""
        self.step()
        return None, None


class SGD(Optimizer, _optim.SGD):
    def __init__(
        self, learning_rate: float = 0.001, parameters=None, weight_decay=None, grad_clip=None, name=None
    ):
        _no_grad_clip("SGD", grad_clip)
        super().__init__(
            parameters=_parameters("SGD", parameters),
            learning_rate=_learning_rate(learning_rate),
            weight_decay=_decay("SGD", weight_decay),
        )


class Momentum(Optimizer, _optim.SGD):
    """SGD with momentum (0.9 by default): v ← μ·v + g, p ← p − lr·v."""

    def __init__(
        self,
        learning_rate: float = 0.001,
        momentum: float = 0.9,
        parameters=None,
        use_nesterov: bool = False,
        weight_decay=None,
        grad_clip=None,
        name=None,
    ):
        _no_grad_clip("Momentum", grad_clip)
        super().__init__(
            parameters=_parameters("Momentum", parameters),
            learning_rate=_learning_rate(learning_rate),
            momentum=momentum,
            nesterov=use_nesterov,
            weight_decay=_decay("Momentum", weight_decay),
        )


def _adam_arguments(
    name: str, learning_rate, beta1, beta2, epsilon, parameters, weight_decay, grad_clip, default_decay
) -> dict:
    """The arguments of agv.optim.Adam (and AdamW) for Paddle's Adam (and AdamW)."""
    _no_grad_clip(name, grad_clip)
    return dict(
        parameters=_parameters(name, parameters),
        learning_rate=_learning_rate(learning_rate),
        betas=(beta1, beta2),
        eps=epsilon,
        weight_decay=_decay(name, weight_decay, default_decay),
    )


class Adam(Optimizer, _optim.Adam):
    def __init__(
        self,
        learning_rate: float = 0.001,
        beta1: float = 0.9,
        beta2: float = 0.999,
        epsilon: float = 1e-8,
        parameters=None,
        weight_decay=None,
        grad_clip=None,
        name=None,
        lazy_mode: bool = False,
    ):
        super().__init__(
            **_adam_arguments(
                "Adam", learning_rate, beta1, beta2, epsilon, parameters, weight_decay, grad_clip, 0.0
            )
        )


class AdamW(Optimizer, _optim.AdamW):
    """Adam with decoupled weight decay (0.01 by default): p ← p − lr·wd·p, then Adam's step."""

    def __init__(
        self,
        learning_rate: float = 0.001,
        beta1: float = 0.9,
        beta2: float = 0.999,
        epsilon: float = 1e-8,
        parameters=None,
        weight_decay: float = 0.01,
        apply_decay_param_fun=None,
        grad_clip=None,
        lazy_mode: bool = False,
        name=None,
    ):
        if apply_decay_param_fun is not None:
            raise NotImplementedError("AdamW: apply_decay_param_fun is not supported")
        super().__init__(
            **_adam_arguments(
                "AdamW", learning_rate, beta1, beta2, epsilon, parameters, weight_decay, grad_clip, 0.01
            )
        )


class RMSProp(Optimizer, _optim.Optimizer):
    """Paddle's RMSProp, as its docstring gives it (python/paddle/optimizer/rmsprop.py;
    the RMSProp page of Paddle's 2.x API docs), for each weight w with gradient g:

        r ← ρ·r + (1 − ρ)·g²                the running mean of g²
        v ← β·v + lr·g / √(r + ε)           (centered: √(r − ḡ² + ε), ḡ ← ρ·ḡ + (1 − ρ)·g)
        w ← w − v

    r, ḡ and v start at 0; with momentum β = 0 (the default) v is just this
    step. ε sits inside the root, unlike PyTorch's RMSprop."""

    def __init__(
        self,
        learning_rate: float,
        rho: float = 0.95,
        epsilon: float = 1e-6,
        momentum: float = 0.0,
        centered: bool = False,
        parameters=None,
        weight_decay=None,
        grad_clip=None,
        name=None,
    ):
        _no_grad_clip("RMSProp", grad_clip)
        # the checks of Paddle's python/paddle/optimizer/rmsprop.py, in its words
        # (the ranges in _check_hyperparameters, which step() also runs on every group)
        if learning_rate is None:
            raise ValueError("learning_rate is not set.")
        for value, what in ((rho, "rho"), (epsilon, "epsilon"), (momentum, "momentum")):
            if value is None:
                raise ValueError(f"{what} is not set.")
        defaults = dict(
            lr=_learning_rate(learning_rate),
            rho=rho,
            epsilon=epsilon,
            momentum=momentum,
            centered=centered,
            weight_decay=_decay("RMSProp", weight_decay),
        )
        super().__init__(_parameters("RMSProp", parameters), defaults)

    def _check_hyperparameters(self, check):
        check.number("lr")  # Paddle does not check its sign
        for key in ("epsilon", "momentum", "rho"):  # Paddle's order
            value = check.number(key)
            check.require(0.0 <= value, f"Invalid value of {key}, expect {key} >= 0.", key)
        check.flag("centered")
        check.number("weight_decay")

    def _update(self, theta, g, state, group):
        lr, rho, eps, beta, wd = (group[k] for k in ("lr", "rho", "epsilon", "momentum", "weight_decay"))
        if wd != 0:
            g = g + wd * theta  # Paddle's float weight_decay: an L2 penalty on the gradient
        r = _optim._zeros_state(state, "mean_square", theta)  # Paddle's accumulator names
        r *= rho
        r += (1 - rho) * g * g
        spread = r
        if group["centered"]:
            g_mean = _optim._zeros_state(state, "mean_grad", theta)
            g_mean *= rho
            g_mean += (1 - rho) * g
            spread = r - g_mean * g_mean  # E[g²] − E[g]²: the gradient's variance
        v = _optim._zeros_state(state, "momentum", theta)
        v *= beta
        v += lr * g / np.sqrt(spread + eps)
        theta -= v
