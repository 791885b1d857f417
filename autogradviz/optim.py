"""Optimizers: SGD, Adam, AdamW and RMSprop, with PyTorch's update rules.

    opt = agv.optim.Adam(model.parameters(), lr=1e-3)                  # PyTorch
    opt = agv.optim.Adam(learning_rate=1e-3, parameters=model.parameters())  # Paddle
    for x, y in loader:
        opt.zero_grad()          # Paddle: opt.clear_grad()
        loss_fn(model(x), y).backward()
        opt.step()

An optimizer only ever reads `p.grad` and writes `p`'s numbers. Each one's
`_update` below is the algorithm box of PyTorch's documentation, written with
numpy on the parameter's own array, so it changes the tensor in place (as
PyTorch does) and keeps its dtype. The numbers an optimizer remembers between
steps (momentum, running averages) live in `opt.state[p]`, one dict per
parameter, as tensors.

Parameters come in groups (`opt.param_groups`), each a dict with its own
hyperparameters, so one model can train its layers at different rates:

    agv.optim.SGD([{"params": body}, {"params": head, "lr": 0.1}], lr=0.01)
"""

from __future__ import annotations

import copy
import math
import numbers
import reprlib
import warnings
from collections import defaultdict
from typing import NoReturn

import numpy as np

from .core.grad_mode import enable_grad, no_grad
from .core.tensor import Tensor, _make

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop"]


class _Default(float):
    """A default learning rate that remembers it was not passed, so that `lr=`
    and Paddle's `learning_rate=` given together can be refused. It prints as
    the plain number, so help() shows `lr=0.001`."""

    __repr__ = float.__repr__


class Optimizer:
    """The base class: parameter groups, per-parameter state, `step()`,
    `zero_grad()` and `state_dict()`. A subclass defines `_update`, the rule
    for one parameter."""

    def __init__(self, params, defaults: dict):
        # the arguments first, in PyTorch's words and order: "Invalid learning rate: -1"
        self._check_hyperparameters(_Hyperparameters(type(self).__name__, defaults))
        self.defaults = defaults
        self.state: defaultdict[Tensor, dict] = defaultdict(dict)
        self.param_groups: list[dict] = []
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or dicts, "
                "but got autogradviz.Tensor (wrap a single tensor in a list: [w])"
            )
        groups = list(params)  # model.parameters() is a generator: read it once, here
        if not groups:
            raise ValueError(
                "optimizer got an empty parameter list (a model with no parameters, or a "
                "generator such as model.parameters() that was already used up?)"
            )
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, param_group: dict) -> None:
        """Add a group of parameters, with hyperparameters of its own; the ones
        it does not give come from the optimizer's defaults."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        group = dict(param_group)
        params = group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, (set, frozenset)):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the ordering "
                "of tensors in sets will change between runs. Please use a list instead."
            )
        params = list(params)
        # model.named_parameters() gives (name, tensor) pairs: keep the names, as PyTorch does
        named = [isinstance(p, tuple) for p in params]
        if any(named):
            if not all(named):
                raise ValueError(
                    "all optimizer params should be with/without names. Some param names are missing"
                )
            group["param_names"] = [name for name, _ in params]
            params = [p for _, p in params]
        group["params"] = params
        for index, p in enumerate(params):
            names = group.get("param_names")
            _check_param(p, names[index] if names else None, index)
        for key, default in self.defaults.items():
            group.setdefault(key, default)
        # PyTorch takes a group's own hyperparameters unchecked, and its step() then
        # fails halfway or steps with garbage (a negative lr climbs the loss): refuse them here
        self._check_hyperparameters(
            _Hyperparameters(type(self).__name__, group, len(self.param_groups), "add_param_group")
        )
        if len(set(params)) != len(params):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; each step would "
                "update them more than once",
                stacklevel=3,
            )
        for other in self.param_groups:
            if not set(other["params"]).isdisjoint(params):
                raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    # -- one training step ----------------------------------------------------------

    def step(self, closure=None):
        """Update every parameter that has a gradient. `closure`, if given, is
        called first (with grad enabled) to recompute the loss, which is returned."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        # every group and parameter is checked before any is updated: a bad learning
        # rate in the last group, or a bad gradient on the third layer, must not leave
        # the first layers stepped (and their state moved)
        todo = self._checked_updates()
        with no_grad():
            for settings, p in todo:
                g = np.asarray(p._grad._data, dtype=p._data.dtype)
                state = self.state.get(p, {})
                self._update(p._data, g, state, settings)
                if state:  # plain SGD keeps nothing: no entry, as in PyTorch
                    self.state[p] = state
                # the values changed in place: a graph that saved the old ones must notice
                p._bump_version()
        return loss

    def _checked_updates(self) -> list[tuple[dict, Tensor]]:
        """(settings, parameter) for each parameter with a gradient, once all of them
        were found fit to update: every group's hyperparameters usable (the settings
        are the group with each one as a plain number), a gradient and a state
        shaped like the parameter, a gradient of real numbers."""
        owner = type(self).__name__
        todo = []
        for group_index, group in enumerate(self.param_groups):
            # param_groups is a list of plain dicts that a learner (or a scheduler) edits
            # between steps: a "0.1" typed as a string is found here, not halfway through
            check = _Hyperparameters(owner, group, group_index, "step")
            self._check_hyperparameters(check)
            settings = {**group, **check.values}
            names = group.get("param_names")
            for index, p in enumerate(group["params"]):
                if not isinstance(p, Tensor):
                    raise TypeError(
                        f"{owner}.step: param_groups[{group_index}]['params'][{index}] is "
                        f"{type(p).__name__}, not a Tensor; no parameter was changed"
                    )
                grad = p._grad
                if grad is None:
                    continue  # no gradient reached it (or it was zeroed to None): skip, as PyTorch does
                which = _which(p, names[index] if names else None, index)
                # p.grad.data = ... and p.data = ... can change shapes behind the grad setter's back;
                # numpy would broadcast a (1,) gradient over the whole parameter without a word
                if grad._data.shape != p._data.shape:
                    raise RuntimeError(
                        f"{type(self).__name__}.step: the gradient of {which} has shape "
                        f"{tuple(grad._data.shape)}, not the parameter's shape"
                    )
                # complex would drop its imaginary part when cast to the parameter's dtype
                if grad._data.dtype.kind not in "biuf":
                    raise RuntimeError(
                        f"{type(self).__name__}.step: the gradient of {which} has dtype "
                        f"{grad._data.dtype}, which cannot be cast to the parameter's {p._data.dtype}"
                    )
                for key, value in self.state.get(p, {}).items():
                    if isinstance(value, Tensor) and key != "step" and value._data.shape != p._data.shape:
                        raise RuntimeError(
                            f"{type(self).__name__}.step: state[{key!r}] of {which} has shape "
                            f"{tuple(value._data.shape)}, not the parameter's shape"
                        )
                state = self.state.get(p, {})
                if "step" in state and _step_count(state["step"]) is None:
                    raise RuntimeError(
                        f"{owner}.step: state['step'] of {which} is {reprlib.repr(state['step'])}, "
                        "not a number of steps taken"
                    )
                todo.append((settings, p))
        return todo

    def _update(self, theta: np.ndarray, g: np.ndarray, state: dict, group: dict) -> None:
        """Change `theta` (the parameter's array) in place, given its gradient `g`
        (read only), its `state` dict and its group's hyperparameters."""
        raise NotImplementedError

    def _check_hyperparameters(self, check: _Hyperparameters) -> None:
        """Read each hyperparameter `_update` uses through `check`, which raises
        for one it cannot use. One method serves the constructor (its arguments),
        add_param_group and step() (each group, before anything changes)."""

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget the gradients before the next backward (which would add to them).
        With set_to_none=True (the default) `.grad` becomes None; otherwise zeros."""
        for group in self.param_groups:
            for p in group["params"]:
                grad = p.grad
                if grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    if grad.grad_fn is not None:  # made by backward(create_graph=True)
                        grad.detach_()
                    else:
                        grad.requires_grad_(False)
                    with no_grad():
                        grad.zero_()

    def clear_grad(self, set_to_zero: bool = True) -> None:
        """Paddle's spelling. Paddle's default sets the gradients to zeros."""
        self.zero_grad(set_to_none=not set_to_zero)

    clear_gradients = clear_grad

    def get_lr(self) -> float:
        """Paddle's spelling: the learning rate (of the first group)."""
        return self.param_groups[0]["lr"]

    def set_lr(self, value: float) -> None:
        """Paddle's spelling: set the learning rate of every group."""
        if not isinstance(value, numbers.Real):  # Paddle's check, in its words
            raise TypeError(
                f"The type of 'value' in optimizer.set_lr must be float, but received {type(value)}."
            )
        for group in self.param_groups:
            group["lr"] = value

    # -- saving and loading -------------------------------------------------------------

    def state_dict(self) -> dict:
        """{"state": {index: {...}}, "param_groups": [{..., "params": [index, ...]}]}:
        the parameters are replaced by their positions, as in PyTorch. Unlike
        PyTorch, the state's tensors are copies, so training on does not change
        a dict saved earlier."""
        positions: dict[int, int] = {}
        groups = []
        for group in self.param_groups:
            packed = copy.deepcopy({k: v for k, v in group.items() if k != "params"})
            packed["params"] = [positions.setdefault(id(p), len(positions)) for p in group["params"]]
            groups.append(packed)
        state = {
            positions[id(p)]: {key: _copy_value(value) for key, value in s.items()}
            for p, s in self.state.items()
        }
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict) -> None:
        """Take over the hyperparameters and the state saved by `state_dict()`.
        Parameters are matched by position, so the optimizer must have been
        made with the same parameters in the same order."""
        # everything is checked and built aside first, and the optimizer takes it
        # over at the end: a bad entry leaves the hyperparameters and state as they were
        if not isinstance(state_dict, dict) or not {"state", "param_groups"} <= state_dict.keys():
            raise ValueError(
                "an optimizer state dict is a dict with keys 'state' and 'param_groups' (from "
                f"optimizer.state_dict()), got {type(state_dict).__name__}"
                + (f" with keys {sorted(map(str, state_dict))}" if isinstance(state_dict, dict) else "")
            )
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(saved_groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        for group, saved in zip(self.param_groups, saved_groups):
            if len(group["params"]) != len(saved["params"]):
                raise ValueError(
                    "loaded state dict contains a parameter group that doesn't match the size of "
                    f"optimizer's group ({len(saved['params'])} saved parameters, {len(group['params'])} here)"
                )
        by_position = {
            position: p
            for group, saved in zip(self.param_groups, saved_groups)
            for position, p in zip(saved["params"], group["params"])
        }
        state = defaultdict(dict)
        for position, s in state_dict["state"].items():
            if position not in by_position:
                raise ValueError(
                    f"loaded state dict has state for parameter {position!r}, which none of its "
                    f"param_groups lists (they list {sorted(by_position, key=str)})"
                )
            p = by_position[position]
            for key, value in s.items():
                array = value._data if isinstance(value, Tensor) else value
                # a state shaped unlike its parameter would only fail in a later step()
                if isinstance(array, np.ndarray) and key != "step" and array.shape != p._data.shape:
                    raise ValueError(
                        f"loaded state dict has state[{position!r}][{key!r}] of shape {array.shape}, "
                        f"but that parameter has shape {tuple(p._data.shape)}"
                    )
            state[p] = {key: _copy_value(value, like=p) for key, value in s.items()}
        for group, saved in zip(self.param_groups, saved_groups):
            saved["params"] = group["params"]
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
        self.state = state
        self.param_groups = saved_groups

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__} ("]
        for index, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {index}")
            lines += [f"    {key}: {group[key]}" for key in sorted(group) if key != "params"]
        return "\n".join(lines) + "\n)"


class SGD(Optimizer):
    """Stochastic gradient descent, with optional momentum (heavy ball or
    Nesterov) and weight decay (an L2 penalty added to the gradient)."""

    def __init__(
        self,
        params=None,
        lr: float = _Default(1e-3),
        momentum: float = 0,
        dampening: float = 0,
        weight_decay: float = 0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
        parameters=None,
        learning_rate=None,
    ):
        params, lr = _spellings(type(self).__name__, params, parameters, lr, learning_rate)
        defaults = dict(
            lr=lr,
            momentum=momentum,
            dampening=dampening,
            weight_decay=_weight_decay(weight_decay),
            nesterov=nesterov,
            maximize=maximize,
        )
        super().__init__(params, defaults)

    def _check_hyperparameters(self, check):
        # PyTorch's checks and words, in its order
        check.at_least_zero("lr", "Invalid learning rate")
        momentum = check.at_least_zero("momentum", "Invalid momentum value")
        dampening = check.number("dampening")
        check.at_least_zero("weight_decay", "Invalid weight_decay value")
        nesterov = check.flag("nesterov")
        check.require(
            not nesterov or (momentum > 0 and dampening == 0),
            "Nesterov momentum requires a momentum and zero dampening",
            "momentum" if not momentum > 0 else "dampening",  # the value to mend
        )
        check.flag("maximize")

    def _update(self, theta, g, state, group):
        lr, mu, wd = group["lr"], group["momentum"], group["weight_decay"]
        if group["maximize"]:
            g = -g
        if wd != 0:
            g = g + wd * theta  # the gradient of the L2 penalty wd/2·‖θ‖² (p.grad itself is untouched)
        if mu != 0:
            if "momentum_buffer" not in state:
                # the velocity starts at the first gradient, not at 0
                b = _keep(state, "momentum_buffer", g.copy())
            else:
                b = state["momentum_buffer"]._data
                b *= mu  # b ← μ·b + (1 − dampening)·g: a running sum of past gradients
                b += (1 - group["dampening"]) * g
            # Nesterov looks ahead: the step uses g plus where the velocity is heading
            g = g + mu * b if group["nesterov"] else b
        theta -= lr * g  # θ ← θ − lr·g


class Adam(Optimizer):
    """Adam: each weight's step is a running mean of its gradients (m), divided
    by the root of a running mean of their squares (v), so every weight moves
    at about the same rate, whatever the scale of its gradient.

    `weight_decay` adds wd·θ to the gradient (an L2 penalty, as in PyTorch's
    Adam and Paddle's float weight_decay); AdamW decays the weights directly."""

    def __init__(
        self,
        params=None,
        lr: float = _Default(1e-3),
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
        decoupled_weight_decay: bool = False,
        parameters=None,
        learning_rate=None,
    ):
        params, lr = _spellings(type(self).__name__, params, parameters, lr, learning_rate)
        defaults = dict(
            lr=lr,
            betas=tuple(betas) if isinstance(betas, list) else betas,
            eps=eps,
            weight_decay=_weight_decay(weight_decay),
            amsgrad=amsgrad,
            maximize=maximize,
            decoupled_weight_decay=decoupled_weight_decay,
        )
        super().__init__(params, defaults)

    def _check_hyperparameters(self, check):
        check.at_least_zero("lr", "Invalid learning rate")
        check.at_least_zero("eps", "Invalid epsilon value")
        check.betas()
        check.at_least_zero("weight_decay", "Invalid weight_decay value")
        for key in ("amsgrad", "maximize", "decoupled_weight_decay"):
            check.flag(key)

    def _update(self, theta, g, state, group):
        lr, (beta1, beta2), eps, wd = group["lr"], group["betas"], group["eps"], group["weight_decay"]
        if group["maximize"]:
            g = -g
        t = state["step"] = _step_count(state.get("step", 0)) + 1
        if wd != 0:
            if group["decoupled_weight_decay"]:
                theta *= 1 - lr * wd  # AdamW: shrink θ itself, apart from the gradient
            else:
                g = g + wd * theta  # Adam: an L2 penalty, which v then rescales like any gradient

        m = _zeros_state(state, "exp_avg", theta)
        v = _zeros_state(state, "exp_avg_sq", theta)
        # every term below is computed in place, in one scratch array: a layer's
        # weights can be large (VGG's first fully connected layer is 400 MB), and
        # each temporary array would cost a pass over memory and an allocation
        scratch = np.empty_like(theta)
        m *= beta1  # m ← β1·m + (1 − β1)·g: the mean of recent gradients
        m += np.multiply(g, 1 - beta1, out=scratch)
        v *= beta2  # v ← β2·v + (1 − β2)·g²: the mean of their squares
        v += np.multiply(np.multiply(g, 1 - beta2, out=scratch), g, out=scratch)

        # m and v start at 0, so early on they are too small by a factor 1 − β^t
        bias_correction1 = 1 - beta1**t
        bias_correction2 = 1 - beta2**t
        if group["amsgrad"]:
            # AMSGrad divides by the largest v seen so far: the denominator never shrinks
            v_max = _zeros_state(state, "max_exp_avg_sq", theta)
            np.maximum(v_max, v, out=v_max)
            v = v_max
        # θ ← θ − lr · m̂ / (√v̂ + ε), with m̂ = m / (1 − β1^t) and v̂ = v / (1 − β2^t)
        denom = np.sqrt(v, out=scratch)
        denom /= math.sqrt(bias_correction2)
        denom += eps
        step = np.divide(m, denom, out=scratch)  # m / denom first, then the step size: PyTorch's order
        step *= lr / bias_correction1
        theta -= step


class AdamW(Adam):
    """Adam with decoupled weight decay: θ ← θ·(1 − lr·wd) before each step,
    instead of adding wd·θ to the gradient. The decay is then the same for
    every weight, not rescaled by Adam's per-weight step size."""

    def __init__(
        self,
        params=None,
        lr: float = _Default(1e-3),
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
        parameters=None,
        learning_rate=None,
    ):
        super().__init__(
            params,
            lr,
            betas,
            eps,
            weight_decay,
            amsgrad,
            maximize=maximize,
            decoupled_weight_decay=True,
            parameters=parameters,
            learning_rate=learning_rate,
        )


class RMSprop(Optimizer):
    """RMSprop: divide each gradient by the root of a running mean of its squares.
    `centered` subtracts the squared running mean of the gradient first (so it
    divides by an estimate of the gradient's standard deviation); `momentum`
    keeps a velocity of those scaled steps."""

    def __init__(
        self,
        params=None,
        lr: float = _Default(1e-2),
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum: float = 0,
        centered: bool = False,
        *,
        maximize: bool = False,
        parameters=None,
        learning_rate=None,
    ):
        params, lr = _spellings(type(self).__name__, params, parameters, lr, learning_rate)
        defaults = dict(
            lr=lr,
            momentum=momentum,
            alpha=alpha,
            eps=eps,
            centered=centered,
            weight_decay=_weight_decay(weight_decay),
            maximize=maximize,
        )
        super().__init__(params, defaults)

    def _check_hyperparameters(self, check):
        check.at_least_zero("lr", "Invalid learning rate")
        check.at_least_zero("eps", "Invalid epsilon value")
        check.at_least_zero("momentum", "Invalid momentum value")
        check.at_least_zero("weight_decay", "Invalid weight_decay value")
        check.at_least_zero("alpha", "Invalid alpha value")
        check.flag("centered")
        check.flag("maximize")

    def _update(self, theta, g, state, group):
        lr, alpha, eps, wd, mu = (group[k] for k in ("lr", "alpha", "eps", "weight_decay", "momentum"))
        if group["maximize"]:
            g = -g
        state["step"] = _step_count(state.get("step", 0)) + 1
        if wd != 0:
            g = g + wd * theta  # L2 penalty, added to the gradient

        v = _zeros_state(state, "square_avg", theta)
        v *= alpha  # v ← α·v + (1 − α)·g²
        v += (1 - alpha) * g * g
        if group["centered"]:
            g_avg = _zeros_state(state, "grad_avg", theta)
            g_avg *= alpha  # ḡ ← α·ḡ + (1 − α)·g
            g_avg += (1 - alpha) * g
            avg = np.sqrt(v - g_avg * g_avg) + eps  # √(E[g²] − E[g]²): the gradient's spread
        else:
            avg = np.sqrt(v) + eps

        if mu > 0:
            b = _zeros_state(state, "momentum_buffer", theta)
            b *= mu  # b ← μ·b + g / avg
            b += g / avg
            theta -= lr * b
        else:
            theta -= lr * g / avg  # θ ← θ − lr · g / (√v + ε)


# -- helpers ------------------------------------------------------------------------------


def _spellings(owner: str, params, parameters, lr, learning_rate):
    """PyTorch's `(params, lr=)` or Paddle's `(parameters=, learning_rate=)`, not both."""
    if isinstance(params, numbers.Number):
        raise TypeError(
            f"params should be an iterable of tensors, not the number {params!r}; in Paddle's "
            f"spelling pass it by name: learning_rate={params!r}, parameters=model.parameters()"
        )
    if parameters is not None:
        if params is not None:
            raise TypeError(
                "got the parameters twice: as params (PyTorch's spelling) and as parameters= "
                "(Paddle's). Pass one of them"
            )
        params = parameters
    if params is None:
        raise TypeError(
            f"the optimizer needs the tensors to optimize: {owner}(model.parameters(), lr=...) "
            f"(PyTorch) or {owner}(learning_rate=..., parameters=model.parameters()) (Paddle)"
        )
    if learning_rate is not None:
        if not isinstance(lr, _Default):
            raise TypeError(
                "got the learning rate twice: as lr= (PyTorch's spelling) and as learning_rate= "
                "(Paddle's). Pass one of them"
            )
        lr = learning_rate
    if isinstance(lr, _Default):
        lr = float(lr)
    return params, lr


def _weight_decay(value):
    """Paddle's weight_decay=None means none. A float is an L2 coefficient in
    both libraries; Paddle's regularizer objects (L2Decay...) are not supported."""
    return 0 if value is None else value


class _Hyperparameters:
    """One parameter group's hyperparameters (or a constructor's defaults), read
    for a check by an optimizer's `_check_hyperparameters`.

    Each reader returns the value as a plain Python number, and keeps it in
    `values` for `_update` (a one-element tensor, which PyTorch accepts for lr,
    becomes its number). It raises if the value cannot be used: ValueError in
    PyTorch's words ("Invalid learning rate: -1") for a number out of range,
    TypeError for a value that is no number at all (PyTorch then fails inside
    its arithmetic: "bad operand type for unary -: 'str'").

    A constructor's errors are PyTorch's sentences. A group's (in add_param_group
    or step) also say which optimizer, group and key hold the bad value, and that
    the call changed nothing."""

    _AFTERWARDS = {"add_param_group": "the group was not added", "step": "no parameter was changed"}

    def __init__(self, owner: str, group: dict, index: int | None = None, call: str | None = None):
        self.owner, self.group, self.index, self.call = owner, group, index, call
        self.values: dict = {}

    def _where(self, key: str) -> str:
        """Where the value is, "SGD.step: param_groups[1]['lr']"; for a constructor's argument, "SGD"."""
        if self.call is None:
            return self.owner
        name, bracket, item = key.partition("[")  # betas[0] is param_groups[i]['betas'][0]
        return f"{self.owner}.{self.call}: param_groups[{self.index}][{name!r}]{bracket}{item}"

    def fail(self, error: type[Exception], sentence: str, key: str) -> NoReturn:
        """Raise PyTorch's `sentence`, followed (for a group) by where the value is."""
        if self.call is None:
            raise error(sentence)
        raise error(f"{sentence} ({self._where(key)}; {self._AFTERWARDS[self.call]})")

    def _wrong_type(self, key: str, expected: str, value) -> NoReturn:
        got = f"must be {expected}, not {type(value).__name__} ({reprlib.repr(value)})"
        if self.call is None:
            raise TypeError(f"{self.owner}: {key} {got}")
        raise TypeError(f"{self._where(key)} {got}; {self._AFTERWARDS[self.call]}")

    def _get(self, key: str):
        if key not in self.group:  # deleted from a param group by hand
            raise KeyError(f"{self._where(key)} is missing; {self._AFTERWARDS[self.call]}")
        return self.group[key]

    def number(self, key: str) -> float:
        """A real number: a bool, an int, a float, a numpy scalar or a one-element tensor."""
        self.values[key] = value = self._number(key, self._get(key))
        return value

    def _number(self, key: str, value) -> float:
        if isinstance(value, Tensor):
            if value.numel() != 1:
                self.fail(ValueError, f"Tensor {key} must be 1-element", key)
            value = value.item()
        if not isinstance(value, numbers.Real):
            self._wrong_type(key, "a number (a float or an int)", value)
        return value

    def require(self, ok: bool, sentence: str, key: str) -> None:
        if not ok:
            self.fail(ValueError, sentence, key)

    def at_least_zero(self, key: str, sentence: str) -> float:
        """A number >= 0 (NaN is not), else PyTorch's "<sentence>: <value>"."""
        value = self.number(key)
        self.require(value >= 0, f"{sentence}: {value}", key)
        return value

    def flag(self, key: str) -> bool:
        """True or False (1 and 0 too), not any value: the string "no" would count as True."""
        value = self._get(key)
        is_flag = isinstance(value, (bool, np.bool_)) or (
            isinstance(value, numbers.Integral) and value in (0, 1)
        )
        if not is_flag:
            self._wrong_type(key, "True or False", value)
        self.values[key] = bool(value)
        return bool(value)

    def betas(self) -> tuple[float, float]:
        """Adam's (beta1, beta2), each in [0, 1)."""
        betas = self._get("betas")
        if not isinstance(betas, (tuple, list)):
            self._wrong_type("betas", "a pair (beta1, beta2)", betas)
        # PyTorch reads betas[0] and betas[1] only: (0.9,) fails with an IndexError, (0.9, 0.99, 0.5) passes
        self.require(len(betas) == 2, f"betas must be a pair (beta1, beta2), not {betas!r}", "betas")
        pair = tuple(self._number(f"betas[{i}]", beta) for i, beta in enumerate(betas))
        for i, beta in enumerate(pair):
            self.require(0 <= beta < 1, f"Invalid beta parameter at index {i}: {beta}", f"betas[{i}]")
        self.values["betas"] = pair
        return pair


def _check_param(p, name: str | None, index: int) -> None:
    """Only leaf tensors can be optimized. A frozen one (requires_grad=False) is
    accepted, as in PyTorch: it never gets a .grad, so step() skips it."""
    if not isinstance(p, Tensor):
        raise TypeError(f"optimizer can only optimize Tensors, but one of the params is {type(p).__name__}")
    which = _which(p, name, index)
    if not p.is_leaf:
        raise ValueError(
            f"can't optimize a non-leaf Tensor: {which} was computed by an op "
            f"(grad_fn=<{p.grad_fn.name()}>). Optimize the leaf tensors it was computed from"
        )


def _which(p: Tensor, name: str | None, index: int) -> str:
    """How an error names a parameter: its name if it has one, else its place in its group."""
    name = name or p.name
    which = f"{name!r}" if name else f"the parameter at index {index}"
    return which + f" (shape {tuple(p.shape)})"


def _step_count(value) -> int | None:
    """state["step"] as an int, or None if it is no count. PyTorch keeps it as a
    float tensor (tensor(3.)), which is what a state dict of torch's holds."""
    if isinstance(value, Tensor):
        value = value._data
    if isinstance(value, np.ndarray) and value.size == 1 and value.dtype.kind in "iuf":
        value = value.item()
    is_count = isinstance(value, numbers.Real) and not isinstance(value, bool)
    if is_count and math.isfinite(value) and value >= 0 and value == int(value):
        return int(value)
    return None


def _keep(state: dict, key: str, array: np.ndarray) -> np.ndarray:
    """Store `array` in the state as a tensor, and return the array to update."""
    state[key] = _make(array)
    return array


def _zeros_state(state: dict, key: str, theta: np.ndarray) -> np.ndarray:
    """The array of state[key], a tensor of zeros shaped like θ on the first step."""
    if key not in state:
        return _keep(state, key, np.zeros_like(theta))
    return state[key]._data


def _copy_value(value, like: Tensor | None = None):
    """A copy of a state value: tensors (and arrays) become new tensors, in the
    parameter's dtype when loading; numbers stay as they are."""
    if isinstance(value, Tensor):
        value = value._data
    if isinstance(value, np.ndarray):
        if like is not None and value.dtype.kind == "f":
            return _make(value.astype(like._data.dtype, copy=True))
        return _make(value.copy())
    return copy.deepcopy(value)
