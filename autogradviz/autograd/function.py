"""Custom Functions: an op whose backward you write yourself, as in PyTorch.

    class MyExp(agv.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad_output):
            (y,) = ctx.saved_tensors
            return grad_output * y

    y = MyExp.apply(x)   # y.grad_fn is <MyExpBackward>

How it works, in the same terms as every other op (core/record.py):

1. `apply` runs your `forward` with grad mode off: the ops inside it are not
   recorded, since your `backward` replaces their derivative.
2. One backward node is made, of a class named after yours ("MyExp" ->
   "MyExpBackward"). It is also the `ctx` your two methods receive, so what
   forward puts on ctx (`ctx.k = k`) is there in backward, and on `y.grad_fn`.
3. Its edges are the tensor inputs' nodes, as for any op; what
   `save_for_backward` lists is saved like any op's saved values, checked for
   in-place changes (core/graph.py).
4. The engine calls its `vjp` like any node's; `vjp` calls your `backward`
   with tensors, and checks what it returns: one gradient (or None) per
   forward input, each of the input's shape.

With create_graph=True your backward runs in grad mode, so its ops are
recorded and can be differentiated again, unless it is `@once_differentiable`.

One difference from PyTorch: a Function may return several tensors, but only
one of them differentiable (mark the others with `ctx.mark_non_differentiable`,
or return integer tensors). The engine gives each node one output, so two
differentiable outputs raise NotImplementedError instead.
"""

from __future__ import annotations

import functools
import inspect
import textwrap

import numpy as np

from ..core.grad_mode import _state as _grad_mode
from ..core.grad_mode import no_grad, set_grad_enabled
from ..core.graph import OUTPUT, Node, grad_node
from ..core.record import keep_saved, record
from ..core.tensor import Tensor, _make
from ..ops import numpy_math
from ..ops.broadcast import sum_to

__all__ = ["Function", "FunctionCtx", "once_differentiable"]


class FunctionCtx:
    """What `ctx` offers inside `forward` (or `setup_context`) and `backward`.

    In PyTorch, as here, ctx is the backward node itself: `y.grad_fn`."""

    def save_for_backward(self, *tensors) -> None:
        """Keep tensors (or None) for backward; `ctx.saved_tensors` gives them back.
        They are saved when forward returns, with their versions: an in-place
        change to one of them before backward makes backward raise."""
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(
                    f"save_for_backward can only save variables, but argument {i} is of type "
                    f"{type(t).__name__}"
                )
        self._to_save = tensors

    def mark_non_differentiable(self, *tensors) -> None:
        """These outputs get no gradient (indices, masks): they do not require
        grad, and backward receives zeros for them."""
        self._non_differentiable = tensors

    def mark_dirty(self, *tensors) -> None:
        """forward changed these inputs in place and returns them: their history
        then continues through this node, as after any in-place op."""
        self._dirty = tensors

    def set_materialize_grads(self, value: bool) -> None:
        """False: backward receives None, not zeros, for an output that got no gradient."""
        self._materialize_grads = bool(value)


class FunctionBackward(FunctionCtx, Node):
    """The backward node of a custom Function. Each Function subclass gets its
    own subclass of this one, named as PyTorch names it: MyExp -> MyExpBackward.

    No __slots__: ctx takes whatever attributes the user's forward sets."""

    custom_function = True  # the user's formula, not the library's: not on the formula sheet
    _function: type[Function]  # the Function subclass this node runs the backward of

    def __init__(self, edges, constants, input_facts, output):
        super().__init__(edges, constants, input_facts, output)
        self._to_save = ()
        self._non_differentiable = ()
        self._dirty = ()
        self._materialize_grads = True
        self._unpacked_now = None  # the saved values, while backward runs (unpacked once)

    @property
    def saved_tensors(self) -> tuple:
        """What forward passed to `save_for_backward`, as tensors (None stays None).
        Raises if backward freed them, or one was changed in place since."""
        values = self._unpacked_now if self._unpacked_now is not None else self.unpack_saved()
        values = list(values)
        for position, source, _, _ in self._checks:
            if not isinstance(values[position], Tensor):
                values[position] = self._as_tensor(values[position], source)
        return tuple(values)

    def vjp(self, xp, g, *saved):
        function = type(self)._function
        recording = xp is not numpy_math  # create_graph=True: g is a tensor, grad mode is on
        upstream = g if recording else _make(g)
        grad_outputs = []
        for k, (shape, dtype, kind) in enumerate(self._output_facts):
            if k == self._differentiable_output:
                grad_outputs.append(upstream)
            elif kind == "tensor" and self._materialize_grads:
                grad_outputs.append(_make(np.zeros(shape, dtype)))
            else:
                grad_outputs.append(None)
        self._unpacked_now = saved
        try:
            # as in PyTorch: the user's backward records its ops only when create_graph
            with set_grad_enabled(recording):
                result = function.backward(self, *grad_outputs)
        finally:
            self._unpacked_now = None
        return self._checked_gradients(result, xp, recording, g)

    def _checked_gradients(self, result, xp, recording: bool, g) -> tuple:
        """One gradient per tensor input, from what the user's backward returned:
        one entry per forward argument, None where there is no gradient."""
        name = self.name()
        result = result if isinstance(result, tuple) else (result,)
        expected = len(self._arg_is_tensor)
        if len(result) > expected and all(r is None for r in result[expected:]):
            result = result[:expected]  # PyTorch forgives extra Nones
        if len(result) != expected:
            raise RuntimeError(
                f"function {name} returned an incorrect number of gradients "
                f"(expected {expected}, got {len(result)})"
            )
        grads = []
        for position, (r, is_tensor) in enumerate(zip(result, self._arg_is_tensor)):
            if not is_tensor:
                if r is not None:
                    raise RuntimeError(
                        f"function {name} returned a gradient different than None at position "
                        f"{position + 1}, but the corresponding forward input was not a Variable"
                    )
                continue
            if r is not None and not isinstance(r, Tensor):
                raise RuntimeError(f"expected Variable or None (got {type(r).__name__})")
            grads.append(r)
        checked = []
        for index, (r, edge) in enumerate(zip(grads, self._edges)):
            if r is None or edge is None:  # None: no gradient; no edge: none is needed
                checked.append(None)
                continue
            shape, dtype = self._input_shapes[index]
            if r.shape != shape:
                if not _expandable(shape, r.shape):
                    raise RuntimeError(
                        f"Function {name} returned an invalid gradient at index {index} - got "
                        f"{list(r.shape)} but expected shape compatible with {list(shape)}"
                    )
                r = sum_to(xp, r if recording else r._data, shape)  # PyTorch sums it down too
            if recording:
                checked.append(r if r._data.dtype == dtype else xp.to(r, dtype))
                continue
            array = r._data if isinstance(r, Tensor) else r
            if array is not g:
                # a copy: what backward returns may be a saved input's own data, which
                # a leaf's .grad must not share
                array = np.array(array, dtype=dtype, copy=True)
            checked.append(array)
        return tuple(checked)

    @property
    def backward_code(self) -> str:
        """The source of the user's backward, for the stepper to show."""
        return _backward_source(type(self)._function)


class Error(Node):
    """Stands after the gradients a `@once_differentiable` backward computed:
    differentiating them again is an error, raised only if it is tried.
    (PyTorch's DelayedError op records a node of this name.)"""

    __slots__ = ()
    custom_function = True
    op, rules = "once_differentiable backward", ("cannot be differentiated again",)

    def vjp(self, xp, g, *saved):
        raise RuntimeError(
            "trying to differentiate twice a function that was marked with @once_differentiable"
        )


class Function:
    """Subclass this, write `forward` and `backward` as staticmethods, call `apply`."""

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        # the node class, named as PyTorch names it
        cls._backward_cls = type(
            cls.__name__ + "Backward",
            (FunctionBackward,),
            {"_function": cls, "op": cls.__name__, "__module__": cls.__module__},
        )
        cls._backward_cls.rules = (f"{cls.__name__}.backward: written by the user (its code is shown)",)

    @staticmethod
    def forward(ctx, *args):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs: tuple, output) -> None:
        """The torch 2.x style: `forward(*args)` without ctx, then this fills ctx."""
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom autograd.Function "
            "to use it with backward mode AD."
        )

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run forward on `args`, and link its result into the graph."""
        if cls is Function:
            raise RuntimeError("apply: call it on a subclass of Function, which defines forward and backward")
        args = _bind(cls, args, kwargs)
        tensor_inputs = tuple(a for a in args if isinstance(a, Tensor))
        grad_on = _grad_mode.enabled
        edges = tuple(grad_node(t) if grad_on and t.requires_grad else None for t in tensor_inputs)
        # as record() does: the values of the inputs that need no gradient, for drawings
        constants = tuple(None if e is not None else t._data for t, e in zip(tensor_inputs, edges))
        ctx = cls._backward_cls(edges, constants if None in edges else None, None, None)
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        new_style = cls.setup_context is not Function.setup_context
        with no_grad():  # forward's own ops are not recorded: backward replaces them
            if new_style:
                output = cls.forward(*args)
                cls.setup_context(ctx, args, output)
            else:
                output = cls.forward(ctx, *args)
        if not any(edges):
            return output  # nothing needs a gradient: a plain result, as for any op
        return _link(ctx, args, tensor_inputs, output)


def _link(ctx: FunctionBackward, args: tuple, tensor_inputs: tuple, output):
    """Make the differentiable output's grad_fn the node, and save what forward asked."""
    outputs = output if isinstance(output, tuple) else (output,)
    skip = {id(t) for t in ctx._non_differentiable}
    dirty = {id(t) for t in ctx._dirty}
    differentiable = [
        k
        for k, out in enumerate(outputs)
        if isinstance(out, Tensor) and out._data.dtype.kind == "f" and id(out) not in skip
    ]
    if len(differentiable) > 1:
        raise NotImplementedError(
            f"{type(ctx).__name__}: a custom Function with {len(differentiable)} differentiable outputs "
            "is not supported by autogradviz (its engine gives each node one output); return one "
            "differentiable tensor, and mark the others with ctx.mark_non_differentiable"
        )
    for t in tensor_inputs:
        if id(t) in dirty and t._grad_fn is None and t._requires_grad:
            raise RuntimeError("a leaf Variable that requires grad has been used in an in-place operation.")
    for t in tensor_inputs:
        if id(t) in dirty:
            t._bump_version()  # as PyTorch's mark_dirty does, on top of the in-place op's own bump
    facts = []
    for out in outputs:
        if isinstance(out, Tensor):
            facts.append((out._data.shape, out._data.dtype, "tensor"))
        else:
            facts.append((None, None, "other"))
    ctx._output_facts = tuple(facts)
    ctx._arg_is_tensor = tuple(isinstance(a, Tensor) for a in args)
    ctx._input_shapes = tuple((t._data.shape, t._data.dtype) for t in tensor_inputs)
    ctx._differentiable_output = differentiable[0] if differentiable else None
    if not differentiable:
        return output
    k = differentiable[0]
    out = outputs[k]
    if any(out is t for t in tensor_inputs) and id(out) not in dirty:
        # forward returned an input as it is: the result is a new tensor on the same data
        out = _make(out._data)
    out._grad_fn = ctx  # for a dirty input: its history now continues through this node
    out._requires_grad = True
    ctx._output = out._data
    # saved as any op saves (core/record.py); the output as OUTPUT, so that the node
    # does not hold the tensor that holds it
    saved = tuple(OUTPUT if t is out else t for t in ctx._to_save)
    ctx._to_save = ()
    if saved:
        keep_saved(ctx, saved, tensor_inputs, out)
    if isinstance(output, tuple):
        return tuple(out if i == k else o for i, o in enumerate(outputs))
    return out


def _bind(cls: type[Function], args: tuple, kwargs: dict) -> tuple:
    """apply(x, k=2): keyword arguments go to their place in forward's
    signature, as in torch 2.x; forward itself is then called positionally."""
    if not kwargs:
        return args
    signature = inspect.signature(cls.forward)
    parameters = list(signature.parameters.values())
    if cls.setup_context is Function.setup_context:
        parameters = parameters[1:]  # ctx
    bound = inspect.Signature(parameters).bind(*args, **kwargs)
    bound.apply_defaults()
    return tuple(bound.arguments.values())


def _expandable(shape: tuple, grad_shape: tuple) -> bool:
    """Can `shape` broadcast to `grad_shape`? Then a gradient of that shape sums down to it."""
    if len(shape) > len(grad_shape):
        return False
    return all(s == 1 or s == gs for s, gs in zip(reversed(shape), reversed(grad_shape)))


def _backward_source(function: type) -> str:
    # a notebook cell has a source too: IPython keeps each cell in linecache
    try:
        return textwrap.dedent(inspect.getsource(function.backward))
    except (OSError, TypeError):  # defined in exec(), or in a closed interpreter session
        return (
            f"(The source of {function.__name__}.backward is not available: it was defined where "
            "Python keeps no source, such as exec().)"
        )


def once_differentiable(backward):
    """A backward that cannot itself be differentiated: it runs with grad mode
    off, and differentiating its gradients again raises (PyTorch's decorator)."""

    @functools.wraps(backward)
    def wrapper(ctx, *grad_outputs):
        with no_grad():
            result = backward(ctx, *grad_outputs)
        if not _grad_mode.enabled:
            return result
        sources = tuple(g for g in grad_outputs if isinstance(g, Tensor) and g.requires_grad)
        if not sources:
            return result
        # the gradients depend on the upstream ones, but not through anything recorded:
        # an Error node stands in, and raises if a second backward reaches it
        results = result if isinstance(result, tuple) else (result,)
        wrapped = tuple(record(Error, r._data, sources) if isinstance(r, Tensor) else r for r in results)
        return wrapped if isinstance(result, tuple) else wrapped[0]

    return wrapper
