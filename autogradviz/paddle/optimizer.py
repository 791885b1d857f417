"""`paddle.optimizer`: SGD, Momentum, Adam and AdamW with Paddle 2.0's arguments.

    optim = paddle.optimizer.Adam(learning_rate=0.001, parameters=model.parameters())
    loss.backward()
    optim.step()
    optim.clear_grad()

Each is autogradviz's own optimizer (agv.optim), whose update rules are
PyTorch's; Paddle's are the same algorithms. Adam: Paddle folds the bias
corrections into the step size, lr·√(1-β₂ᵗ)/(1-β₁ᵗ), and its ε into
ε·√(1-β₂ᵗ), which is PyTorch's m̂/(√v̂ + ε) rearranged. Momentum: Paddle's
velocity starts at 0, so its first step is lr·g, as PyTorch's is.
"""

from __future__ import annotations

from .. import optim as _optim

__all__ = ["Optimizer", "SGD", "Momentum", "Adam", "AdamW"]


def _parameters(name: str, parameters):
    if parameters is None:
        raise AttributeError(
            f"parameters argument given to the Optimizer should not be None in dygraph mode "
            f"({name}: pass parameters=model.parameters())"
        )
    return parameters


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
            learning_rate=learning_rate,
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
            learning_rate=learning_rate,
            momentum=momentum,
            nesterov=use_nesterov,
            weight_decay=_decay("Momentum", weight_decay),
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
        _no_grad_clip("Adam", grad_clip)
        super().__init__(
            parameters=_parameters("Adam", parameters),
            learning_rate=learning_rate,
            betas=(beta1, beta2),
            eps=epsilon,
            weight_decay=_decay("Adam", weight_decay),
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
        _no_grad_clip("AdamW", grad_clip)
        if apply_decay_param_fun is not None:
            raise NotImplementedError("AdamW: apply_decay_param_fun is not supported")
        super().__init__(
            parameters=_parameters("AdamW", parameters),
            learning_rate=learning_rate,
            betas=(beta1, beta2),
            eps=epsilon,
            weight_decay=_decay("AdamW", weight_decay, 0.01),
        )
