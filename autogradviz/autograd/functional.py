"""`agv.autograd.functional`: Jacobians, Hessians and their products with a vector,
as PyTorch's `torch.autograd.functional`, all built on `agv.grad` (backward_and_grad.py).

    def exp_reducer(x):
        return x.exp().sum(dim=1)

    jacobian(exp_reducer, agv.rand(2, 2))      # (2, 2, 2): d out[i] / d x[j, k]

- `vjp(f, x, v)`: vᵀ·J, one backward pass seeded with v (what `backward` does);
- `jacobian(f, x)`: J itself, one backward pass per output element (one row each);
- `jvp(f, x, v)`: J·v. The engine only runs backward (reverse mode), so this uses
  the *double-backward trick*: g(u) = uᵀ·J is linear in u, so the gradient of
  g(u)·v with respect to u is J·v. That is two backward passes, the first with
  create_graph=True, instead of one forward-mode pass;
- `hessian(f, x)`: the Jacobian of the gradient, for a scalar f;
- `vhp(f, x, v)`: vᵀ·H, the gradient of (∇f · v): two backward passes;
- `hvp(f, x, v)`: H·v, the double-backward trick on the gradient (three passes;
  H is symmetric, so for a twice-differentiable f this equals vhp).

Inputs and outputs follow PyTorch's structure: a single tensor in gives a single
tensor out, a tuple in gives a tuple out; a Jacobian for several outputs and
inputs is a tuple (one per output) of tuples (one per input). Each entry of a
Jacobian has shape output.shape + input.shape.

The function sees fresh leaves (detached copies of the inputs, requiring grad),
so the results have no history unless create_graph=True, and a function that
also captures the original tensors is differentiated only through its arguments.
With strict=False, an output that does not depend on an input gets zeros (the
true derivative); strict=True raises PyTorch's error instead.
"""

from __future__ import annotations

from collections.abc import Callable

from ..backward_and_grad import grad
from ..core.creation import zeros, zeros_like
from ..core.grad_mode import enable_grad, is_grad_enabled, set_grad_enabled
from ..core.tensor import Tensor
from ..ops import stack

__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]


# -- helpers, as in PyTorch's implementation ------------------------------------------------


def _as_tuple(x, arg_name: str, fn_name: str) -> tuple[bool, tuple]:
    """(was it a tuple?, as a tuple of tensors); PyTorch's TypeError otherwise."""
    is_tuple = isinstance(x, tuple)
    items = x if is_tuple else (x,)
    for i, item in enumerate(items):
        if not isinstance(item, Tensor):
            where = f"the value at index {i}" if is_tuple else f"the given {arg_name}"
            raise TypeError(
                f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but "
                f"{where} has type {type(item)}."
            )
    return is_tuple, items


def _unpack(result: tuple, was_tuple):
    """Undo _as_tuple: a single tensor back for a single tensor given. For a
    Jacobian, `was_tuple` is (outputs were a tuple, inputs were a tuple)."""
    if isinstance(was_tuple, tuple):
        outputs_tuple, inputs_tuple = was_tuple
        if not inputs_tuple:
            result = tuple(row[0] for row in result)
        return result if outputs_tuple else result[0]
    return result if was_tuple else result[0]


def _fresh(inputs: tuple, create_graph: bool, need_graph: bool) -> tuple:
    """New tensor objects for the function to see. With create_graph, an input
    that requires grad keeps its link to the caller's graph (through a view), so
    that the result can be differentiated again with respect to the caller's
    tensors; otherwise a detached leaf, requiring grad if we need to differentiate."""
    fresh = []
    for t in inputs:
        if create_graph and t.requires_grad:
            fresh.append(t.view_as(t))
        else:
            fresh.append(t.detach().requires_grad_(need_graph))
    return tuple(fresh)


def _detached(results: tuple, create_graph: bool) -> tuple:
    """No history on what is returned, unless create_graph asked for it."""
    if create_graph:
        return results
    return tuple(_detached(r, False) if isinstance(r, tuple) else r.detach() for r in results)


def _check_v(v: tuple, reference: tuple, reference_is_tuple: bool) -> None:
    if len(v) != len(reference):
        if reference_is_tuple:
            raise RuntimeError(
                f"v is a tuple of invalid length: should be {len(reference)} but got {len(v)}."
            )
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (vi, ri) in enumerate(zip(v, reference)):
        if vi.shape != ri.shape:
            entry = f"Entry {i} in " if reference_is_tuple else ""
            # torch prints the sizes as torch.Size([2]); autogradviz's messages print shapes as (2,)
            raise RuntimeError(f"{entry}v has invalid size: should be {ri.shape} but got {vi.shape}.")


def _check_requires_grad(tensors: tuple, kind: str, strict: bool) -> None:
    """strict=True: PyTorch's errors when something does not depend on the inputs."""
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:  # only gradients can be None
            raise RuntimeError(
                f"The output of the user-provided function is independent of input {i}. "
                "This is not allowed in strict mode."
            )
        if t.requires_grad:
            continue
        if kind == "hessian":
            raise RuntimeError(
                f"The hessian of the user-provided function with respect to input {i} is independent of "
                "the input. This is not allowed in strict mode. You should ensure that your function is "
                "thrice differentiable and that the hessian depends on the inputs."
            )
        if kind == "jacobian":
            raise RuntimeError(
                "While computing the hessian, found that the jacobian of the user-provided function with "
                f"respect to input {i} is independent of the input. This is not allowed in strict mode. You "
                "should ensure that your function is twice differentiable and that the jacobian depends on "
                "the inputs (this would be violated by a linear function for example)."
            )
        if kind == "grad_inputs":
            raise RuntimeError(
                f"The gradient with respect to input {i} is independent of the inputs of the user-provided "
                "function. This is not allowed in strict mode."
            )
        raise RuntimeError(
            f"Output {i} of the user-provided function does not require gradients. The outputs must be "
            "computed in a differentiable manner from the input when running in strict mode."
        )


def _grad(outputs: tuple, inputs: tuple, grad_outputs=None, create_graph: bool = False, retain_graph=None):
    """agv.grad, skipping outputs that need no gradient (and None for every input
    if none does): an input that nothing depends on gets None."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return grad(
        [o for o, _ in pairs],
        list(inputs),
        [g for _, g in pairs],
        retain_graph=retain_graph,
        create_graph=create_graph,
        allow_unused=True,
    )


_NONE_MESSAGES = {
    "back": "The output of the user-provided function is independent of input {i}. This is not allowed in "
    "strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the grad_outputs when "
    "using the double backward trick to compute forward mode gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. This is not "
    "allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} in the "
    "grad_jacobian. This is not allowed in strict mode as it prevents from using the double backward trick "
    "to replace forward mode AD.",
}


def _zeros_for_none(grads: tuple, refs: tuple, strict: bool, create_graph: bool, stage: str) -> tuple:
    """Replace a None gradient (no dependence) by zeros, or raise in strict mode."""
    filled = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_NONE_MESSAGES[stage].format(i=i))
            g = zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(
                f"The {what} of the user-provided function is independent of input {i}. This is not allowed "
                "in strict mode when create_graph=True."
            )
        filled.append(g)
    return tuple(filled)


def _no_v_error(fn_name: str, about_output: bool) -> RuntimeError:
    if about_output:
        return RuntimeError(
            "The vector v can only be None if the user-provided function returns a single Tensor with a "
            "single element."
        )
    return RuntimeError(
        "The vector v can only be None if the input to the user-provided function is a single Tensor with a "
        "single element."
    )


# -- the public functions ---------------------------------------------------------------------


def _outputs_and_product(outputs, outputs_tuple, roots, inputs, inputs_tuple, v, create_graph, strict, stage):
    """(outputs, vᵀ·∂roots/∂inputs), each unpacked as the user passed them: the last
    backward pass that vjp (roots = the outputs) and vhp (roots = the gradient) share."""
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        result = _zeros_for_none(_grad(roots, inputs, v, create_graph), inputs, strict, create_graph, stage)
    return _unpack(_detached(outputs, create_graph), outputs_tuple), _unpack(
        _detached(result, create_graph), inputs_tuple
    )


def vjp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """(func(inputs), vᵀ·J): the vector-Jacobian product, one backward pass seeded
    with v. v has the output's shape; it may be omitted for a one-element output."""
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _fresh(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "vjp")
        _check_requires_grad(outputs, "outputs", strict)
        if v is not None:
            _, v = _as_tuple(v, "v", "vjp")
            v = _fresh(v, create_graph, need_graph=False)
            _check_v(v, outputs, outputs_tuple)
        elif len(outputs) != 1 or outputs[0].numel() != 1:
            raise _no_v_error("vjp", about_output=True)
    return _outputs_and_product(
        outputs, outputs_tuple, outputs, inputs, inputs_tuple, v, create_graph, strict, "back"
    )


def jvp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """(func(inputs), J·v): the Jacobian-vector product, v of the inputs' shapes.

    PyTorch computes this in forward mode; autogradviz's engine is reverse mode
    only, so it uses the double-backward trick (as torch.autograd.functional.jvp
    does too): u ↦ uᵀ·J is linear in u, so its gradient, dotted with v, is J·v.
    The first backward runs with create_graph=True, the second differentiates it."""
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _fresh(inputs, create_graph, need_graph=True)
        if v is not None:
            _, v = _as_tuple(v, "v", "jvp")
            v = _fresh(v, create_graph, need_graph=False)
            _check_v(v, inputs, inputs_tuple)
        elif len(inputs) != 1 or inputs[0].numel() != 1:
            raise _no_v_error("jvp", about_output=False)
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jvp")
        _check_requires_grad(outputs, "outputs", strict)
        # u: any value works, since uᵀ·J is linear in u (zeros: no inf or nan can appear)
        u = tuple(zeros_like(out, requires_grad=True) for out in outputs)
        u_times_j = _grad(outputs, inputs, u, create_graph=True)
        _check_requires_grad(u_times_j, "grad_inputs", strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        result = _grad(u_times_j, u, v, create_graph)
        result = _zeros_for_none(result, outputs, strict, create_graph, "back_trick")
    return _unpack(_detached(outputs, create_graph), outputs_tuple), _unpack(
        _detached(result, create_graph), outputs_tuple
    )


def jacobian(
    func: Callable,
    inputs,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    strategy: str = "reverse-mode",
):
    """The Jacobian of `func` at `inputs`: entry [i][j] has shape
    outputs[i].shape + inputs[j].shape, and holds d outputs[i] / d inputs[j].

    It is built row by row: one backward pass (an agv.grad) per output element,
    seeded with 1 at that element. `vectorize=True` (PyTorch batches the rows
    with vmap) is accepted and computes the same rows one by one;
    strategy="forward-mode" needs forward-mode AD, which autogradviz does not have."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(  # PyTorch's class for this error
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your function has more '
            'outputs than inputs, "forward-mode" tends to be more performant. Otherwise, prefer to use '
            '"reverse-mode".'
        )
    if strategy == "forward-mode":
        raise NotImplementedError(
            'jacobian: strategy="forward-mode" needs forward-mode AD, which autogradviz does not have (its '
            'engine runs backward only). Use strategy="reverse-mode", which gives the same Jacobian.'
        )
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _fresh(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jacobian")
        _check_requires_grad(outputs, "outputs", strict)
        if vectorize and strict:
            raise RuntimeError(
                "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not supported "
                "together. Please either set `strict=False` or `vectorize=False`."
            )
        jacobian_rows = []
        for i, out in enumerate(outputs):
            rows = [[] for _ in inputs]  # for each input: one gradient per element of out
            flat = out.reshape(-1)
            for k in range(out.numel()):
                grads = _grad((flat[k],), inputs, retain_graph=True, create_graph=create_graph)
                for j, (g, x) in enumerate(zip(grads, inputs)):
                    if g is None:
                        if strict:
                            raise RuntimeError(
                                f"Output {i} of the user-provided function is independent of input {j}. This "
                                "is not allowed in strict mode."
                            )
                        g = zeros_like(x)
                    elif strict and create_graph and not g.requires_grad:
                        raise RuntimeError(
                            f"The jacobian of the user-provided function is independent of input {i}. This is "
                            "not allowed in strict mode when create_graph=True."
                        )
                    rows[j].append(g)
            jacobian_rows.append(
                tuple(_stacked(rows[j], out.shape + x.shape, x) for j, x in enumerate(inputs))
            )
        jacobian_rows = _detached(tuple(jacobian_rows), create_graph)
        return _unpack(jacobian_rows, (outputs_tuple, inputs_tuple))


def _stacked(rows: list, shape: tuple, x: Tensor) -> Tensor:
    """One Jacobian entry from its rows; an output with no element gives an empty one."""
    if not rows:
        return zeros(shape, dtype=x.dtype)
    return stack(rows, dim=0).reshape(shape)


def hessian(
    func: Callable,
    inputs,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    outer_jacobian_strategy: str = "reverse-mode",
):
    """The Hessian of a scalar `func`: the Jacobian of its gradient. For one input
    of shape S, a tensor of shape S + S; for several inputs, a tuple of tuples,
    [i][j] holding d² f / d inputs[i] d inputs[j]."""
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def single_output(*xs):
        out = func(*xs)
        out_tuple, outs = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(outs, "outputs", strict)
        if out_tuple:
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.numel() != 1:
            raise RuntimeError(
                "The Tensor returned by the function given to hessian should contain a single element"
            )
        return out.squeeze()

    def gradient(*xs):
        jac = jacobian(single_output, xs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        return jac

    result = jacobian(
        gradient, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize,
        strategy=outer_jacobian_strategy,
    )  # fmt: skip
    return _unpack(result, (inputs_tuple, inputs_tuple))


def _scalar_function_and_gradient(func, inputs, v, create_graph: bool, strict: bool, fn_name: str):
    """What vhp and hvp share: fresh inputs, the checked v, the one-element
    output and its gradient (recorded, to be differentiated again)."""
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", fn_name)
    inputs = _fresh(inputs, create_graph, need_graph=True)
    if v is not None:
        _, v = _as_tuple(v, "v", fn_name)
        v = _fresh(v, create_graph, need_graph=False)
        _check_v(v, inputs, inputs_tuple)
    elif len(inputs) != 1 or inputs[0].numel() != 1:
        raise _no_v_error(fn_name, about_output=False)
    outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", fn_name)
    _check_requires_grad(outputs, "outputs", strict)
    if outputs_tuple:
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].numel() != 1:
        raise RuntimeError(
            f"The Tensor returned by the function given to {fn_name} should contain a single element"
        )
    jac = _grad(outputs, inputs, create_graph=True)
    _check_requires_grad(jac, "jacobian", strict)
    return inputs_tuple, inputs, v, outputs, outputs_tuple, jac


def vhp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """(func(inputs), vᵀ·H) for a scalar func: the gradient of ∇f·v, by two
    backward passes (the first recorded with create_graph=True)."""
    with enable_grad():
        inputs_tuple, inputs, v, outputs, outputs_tuple, jac = _scalar_function_and_gradient(
            func, inputs, v, create_graph, strict, "vhp"
        )
    return _outputs_and_product(
        outputs, outputs_tuple, jac, inputs, inputs_tuple, v, create_graph, strict, "double_back"
    )


def hvp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """(func(inputs), H·v) for a scalar func, by the double-backward trick on the
    gradient: u ↦ uᵀ·H is linear in u, so its gradient dotted with v is H·v
    (three backward passes). For a twice-differentiable func H is symmetric and
    this equals vhp, which needs one pass fewer."""
    with enable_grad():
        inputs_tuple, inputs, v, outputs, outputs_tuple, jac = _scalar_function_and_gradient(
            func, inputs, v, create_graph, strict, "hvp"
        )
        u = tuple(zeros_like(x, requires_grad=True) for x in inputs)
        u_times_h = _grad(jac, inputs, u, create_graph=True)
        _check_requires_grad(jac, "hessian", strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        result = _grad(u_times_h, u, v, create_graph)
        result = _zeros_for_none(result, inputs, strict, create_graph, "double_back_trick")
    return _unpack(_detached(outputs, create_graph), outputs_tuple), _unpack(
        _detached(result, create_graph), inputs_tuple
    )
