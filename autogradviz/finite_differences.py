"""gradcheck: compare backward's gradients with finite differences.

The analytic Jacobian comes from the engine (one backward per output element);
the numerical one from central differences, (f(x + eps) - f(x - eps)) / 2eps,
one input element at a time. The check needs float64 inputs, where eps = 1e-6
is accurate. As PyTorch does, a float32 input is checked as it is, after a
warning: in float32, x + 1e-6 rounds to a step of about 1e-7 * |x|, so the
difference quotient is off by several percent and the check usually fails.
"""

from __future__ import annotations

import warnings

import numpy as np

from . import engine
from .core.grad_mode import enable_grad, no_grad
from .core.tensor import Tensor, _make


class GradcheckError(RuntimeError):
    """Backward's gradient and the finite-difference estimate disagree."""


def _as_tuple(x) -> tuple:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _copy(x):
    """A tensor input as a new leaf of the same dtype: the check nudges its
    elements in place, and the learner's tensor must stay as it was."""
    if not isinstance(x, Tensor) or x._data.dtype.kind not in "fc":
        return x
    copy = _make(x._data.copy())
    copy._requires_grad = x._requires_grad
    if x.name is not None:
        copy.name = x.name
    return copy


def _warn_if_not_double(inputs: tuple, stacklevel: int) -> None:
    """PyTorch's warning (its UserWarning, its words) for each input that requires
    grad and is not float64 (or complex128): the check will then likely fail."""
    for index, x in enumerate(inputs):
        if isinstance(x, Tensor) and x._requires_grad and x._data.dtype not in (np.float64, np.complex128):
            warnings.warn(
                f"Input #{index} requires gradient and is not a double precision floating point or "
                "complex. This check will likely fail if all the inputs are not of double precision "
                "floating point or complex. ",
                UserWarning,
                stacklevel=stacklevel + 1,
            )


def _outputs(fn, inputs) -> list[Tensor]:
    return [o for o in _as_tuple(fn(*inputs)) if isinstance(o, Tensor) and o._data.dtype.kind == "f"]


def gradcheck(
    fn, inputs, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3, raise_exception: bool = True
) -> bool:
    """True if the gradients of `fn` at `inputs` match finite differences;
    otherwise raise GradcheckError naming the worst element (or return False
    with raise_exception=False). Give float64 inputs: as in PyTorch, an input
    of another dtype that requires grad gets a UserWarning, and is checked in
    its own dtype, where the check will likely fail."""
    return _gradcheck(fn, inputs, eps, atol, rtol, raise_exception)


def _gradcheck(fn, inputs, eps, atol, rtol, raise_exception) -> bool:
    """gradcheck(), called by gradcheck() or gradgradcheck(): its warnings point at their caller."""
    inputs = _as_tuple(inputs)
    _warn_if_not_double(inputs, stacklevel=3)
    inputs = tuple(_copy(x) for x in inputs)
    wrt = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x._requires_grad]
    if not wrt:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, "
            "but none of them have requires_grad=True."
        )
    outputs = _outputs(fn, inputs)

    worst = None  # (excess over tolerance, description)
    for o_index, out in enumerate(outputs):
        analytic = _analytic_jacobian(out, [inputs[i] for i in wrt])
        for column, i in enumerate(wrt):
            numerical = _numerical_jacobian(fn, inputs, i, o_index, eps)
            a, n = analytic[column], numerical
            excess = np.abs(a - n) - (atol + rtol * np.abs(n))
            if excess.size and np.nanmax(np.where(np.isnan(excess), np.inf, excess)) > 0:
                flat = int(np.argmax(np.where(np.isnan(excess), np.inf, excess)))
                out_el, in_el = np.unravel_index(flat, excess.shape)
                where = _position(in_el, inputs[i].shape)
                where_out = _position(out_el, out.shape)
                name = f" ({inputs[i].name})" if inputs[i].name else ""
                message = (
                    f"Jacobian mismatch for output {o_index} with respect to input {i}{name}: "
                    f"the worst element is d output{where_out} / d input{where}: "
                    f"analytic {a.flat[flat]:.8g}, numerical {n.flat[flat]:.8g} "
                    f"(|difference| {abs(a.flat[flat] - n.flat[flat]):.3g} exceeds atol + rtol*|numerical| "
                    f"= {atol + rtol * abs(n.flat[flat]):.3g})"
                )
                if worst is None or excess.flat[flat] > worst[0]:
                    worst = (excess.flat[flat], message)
    if worst is not None:
        if raise_exception:
            raise GradcheckError(worst[1])
        return False
    return True


def _position(flat: int, shape: tuple) -> list[int]:
    """A flat index as plain ints, [1, 2]: numpy 2 would print [np.int64(1), ...]."""
    return [int(k) for k in np.unravel_index(flat, shape)] if shape else []


def _analytic_jacobian(out: Tensor, wrt: list[Tensor]) -> list[np.ndarray]:
    """One (out.numel, input.numel) matrix per input, from one backward per row."""
    jac = [np.zeros((out._data.size, x._data.size)) for x in wrt]
    for row in range(out._data.size):
        seed = np.zeros(out._data.size)
        seed[row] = 1.0
        if not out._requires_grad:
            continue
        grads = engine.grad(out, wrt, _make(seed.reshape(out.shape)), retain_graph=True, allow_unused=True)
        for column, g in enumerate(grads):
            if g is not None:
                jac[column][row] = g._data.reshape(-1)
    return jac


def _numerical_jacobian(fn, inputs: tuple, i: int, o_index: int, eps: float) -> np.ndarray:
    """One (out.numel, input.numel) matrix, like the analytic one: a size-0 input
    gives (out.numel, 0), so the two still compare (there is nothing to check)."""
    x = inputs[i]._data
    columns = []
    with no_grad():
        for k in range(x.size):
            original = x.flat[k]
            x.flat[k] = original + eps
            plus = _outputs(fn, inputs)[o_index]._data.astype(np.float64).reshape(-1)
            x.flat[k] = original - eps
            minus = _outputs(fn, inputs)[o_index]._data.astype(np.float64).reshape(-1)
            x.flat[k] = original
            columns.append((plus - minus) / (2 * eps))
    if not columns:  # no element to nudge: run fn once just to learn the output's size
        with no_grad():
            return np.zeros((_outputs(fn, inputs)[o_index]._data.size, 0))
    return np.stack(columns, axis=1)


def gradgradcheck(
    func,
    inputs,
    grad_outputs=None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    gen_non_contig_grad_outputs: bool = False,
    raise_exception: bool = True,
    fast_mode: bool = False,
) -> bool:
    """Check second derivatives, as PyTorch's gradgradcheck: True if the
    gradients of the *backward pass* match finite differences; otherwise raise
    GradcheckError (or return False with raise_exception=False).

    The first derivatives, as a function of the inputs and of the output
    gradients v, are g(x, v) = vᵀ·J(x): what `agv.grad(func(x), x, v,
    create_graph=True)` returns. gradgradcheck runs gradcheck on g. So it tests
    what create_graph=True recorded during backward (each vjp written with `xp`
    ops), which a plain gradcheck never runs: a vjp can give the right gradient
    and still record the wrong graph, or none.

    `grad_outputs` defaults to random values of each output's dtype that
    require grad (from a fixed seed, so a failure repeats), and the second
    derivatives with respect to them are checked too; given grad_outputs are
    checked with respect to only if they require grad, as in PyTorch. As
    gradcheck, it warns for each input (grad_outputs counted after the
    inputs) that requires grad and is not float64.
    gen_non_contig_grad_outputs and fast_mode are accepted for
    PyTorch's signature and change nothing here (numpy memory layout is not
    checked, and the check is always the full one).
    """
    inputs = tuple(_copy(x) for x in _as_tuple(inputs))
    n = len(inputs)
    differentiable = [o for o in _outputs(func, inputs) if o._requires_grad]
    if grad_outputs is None:
        rng = np.random.default_rng(0)  # not agv's generator: checking must not move the user's stream
        grad_outputs = tuple(
            _make(rng.standard_normal(o.shape).astype(o._data.dtype)) for o in differentiable
        )
        for g in grad_outputs:
            g._requires_grad = True
    grad_outputs = _as_tuple(grad_outputs)
    if len(grad_outputs) != len(differentiable):
        raise RuntimeError(
            f"gradgradcheck: got {len(grad_outputs)} grad_outputs for {len(differentiable)} differentiable outputs"
        )

    def first_derivatives(*args):
        xs, vs = args[:n], args[n:]
        with enable_grad():  # gradcheck runs fn under no_grad to nudge it: the backward must still record
            outs = [o for o in _outputs(func, xs) if o._requires_grad]
            wrt = [x for x in xs if isinstance(x, Tensor) and x._requires_grad]
            if not outs:
                return ()
            grads = engine.grad(outs, wrt, list(vs), create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    try:
        return _gradcheck(first_derivatives, inputs + grad_outputs, eps, atol, rtol, True)
    except GradcheckError as error:
        if not raise_exception:
            return False
        raise GradcheckError(
            f"{error} [gradgradcheck: the outputs checked are the gradients backward computes (with "
            f"create_graph=True) for the inputs that require grad, and inputs {n} and above are grad_outputs]"
        ) from None
