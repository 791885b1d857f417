"""The stepper's steps, recorded from one real PyTorch backward.

PyTorch runs the walk, not autogradviz: hooks on every node note what really
happened, in the order the engine really ran it.

- `node.register_prehook`: the gradient arriving at a node (all paths summed);
- `node.register_hook`: the gradient it sent on each edge;
- a hook on each leaf tensor: the gradient reaching the leaf, at the moment
  the engine reaches the leaf's AccumulateGrad.

The order among nodes that are ready at the same time (two leaves, say) is an
engine detail, so it is recorded, never predicted. Where a gradient arrives at
a node that already holds one, the two add up: that is a merge of paths.

The walk runs as `torch.autograd.grad(root, leaves, retain_graph=True)`, which
returns the leaves' gradients instead of writing `.grad`: recording changes no
`.grad` of a leaf. (A non-leaf tensor on which `retain_grad()` was called gets
its `.grad` from any walk in PyTorch; for the root and the tensors in `names=`
the old `.grad` is put back.)
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..core.protocol import Namer, Sent, Step, reader_for
from ._pytorch import torch
from .graph import TorchNode, leaf_node, wrap


def _array(value) -> np.ndarray:
    return value.detach().cpu().numpy().copy()


def seed_for(root, gradient=None):
    """The gradient backward starts from: given, or 1 for a scalar (PyTorch's rules)."""
    if not isinstance(root, torch.Tensor):
        raise TypeError(f"BackwardStepper: expected a torch tensor, got {type(root).__name__}")
    if not root.requires_grad:
        raise RuntimeError(
            "BackwardStepper: this tensor does not require grad and has no grad_fn: nothing it was "
            "computed from has requires_grad=True (or it was computed under torch.no_grad())"
        )
    if gradient is None:
        if root.numel() != 1:
            raise RuntimeError(
                f"BackwardStepper: grad can be implicitly created only for scalar outputs: this output has "
                f"shape {tuple(root.shape)}. Pass a gradient of that shape, or reduce it to a scalar first."
            )
        return torch.ones_like(root)
    seed = torch.as_tensor(gradient, dtype=root.dtype, device=root.device)
    if seed.shape != root.shape:
        raise RuntimeError(
            f"BackwardStepper: the gradient has shape {tuple(seed.shape)}, but the output has shape "
            f"{tuple(root.shape)}"
        )
    return seed


def graph_nodes(root_fn) -> tuple[list, list]:
    """(every torch node except the leaves' AccumulateGrads, the leaves), in a
    fixed walk order; an explicit stack, so a 100,000-op chain is no problem."""
    nodes, leaves, seen, stack = [], [], set(), [root_fn]
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        leaf = getattr(fn, "variable", None)
        if leaf is not None:
            leaves.append(leaf)
            continue
        nodes.append(fn)
        stack.extend(child for child, _ in reversed(fn.next_functions))
    return nodes, leaves


def record(root, gradient=None, names: Mapping | None = None, tensors=None) -> tuple[list[Step], np.ndarray]:
    """Run one real backward from `root` with hooks, and return its steps (the
    same `Step`s autogradviz's own walk gives the stepper) and the seed."""
    seed = seed_for(root, gradient)
    tensors = tensors or reader_for(root)
    namer = Namer([root], names, tensors)
    if root.grad_fn is None:  # the root is a leaf: its only step writes its own .grad
        step = Step(0, leaf_node(root), _array(seed), leaf=root)
        step.leaf_before = None if root.grad is None else _array(root.grad)
        step.leaf_after = step.upstream if step.leaf_before is None else step.leaf_before + step.upstream
        return [step], _array(seed)

    nodes, leaves = graph_nodes(root.grad_fn)
    events: list[tuple] = []
    handles = []
    for fn in nodes:
        handles.append(fn.register_prehook(lambda grads, fn=fn: events.append(("arrive", fn, grads))))
        handles.append(fn.register_hook(lambda sent, grads, fn=fn: events.append(("send", fn, sent))))
    for leaf in leaves:
        handles.append(leaf.register_hook(lambda grad, leaf=leaf: events.append(("leaf", leaf, grad))))
    # a tensor that retains its grad gets .grad from any walk: keep the old one, to put it back
    kept = [(t, t.grad) for t in namer.tensors if tensors.is_tensor(t) and not t.is_leaf and t.retains_grad]
    try:
        torch.autograd.grad([root], leaves, [seed], retain_graph=True, allow_unused=True)
    finally:
        for handle in handles:
            handle.remove()
        for t, grad in kept:
            t.grad = grad
    steps = _steps(events, namer)
    _add_local_derivatives(steps)
    return steps, _array(seed)


def _steps(events: list[tuple], namer: Namer) -> list[Step]:
    steps: list[Step] = []
    waiting: dict[TorchNode, np.ndarray] = {}  # gradient arrived so far at each node not yet run
    for kind, who, grads in events:
        if kind == "arrive":
            node = wrap(who)
            arrived = [g for g in grads if g is not None]
            upstream = _array(arrived[0]) if arrived else waiting.get(node)
            waiting.pop(node, None)
            steps.append(Step(len(steps), node, upstream))
        elif kind == "send":
            step = steps[-1]
            if step.node.fn is not who:
                raise RuntimeError(f"BackwardStepper: PyTorch ran {who.name()} out of the recorded order")
            for i, (child, _) in enumerate(who.next_functions):
                if child is None or i >= len(grads) or grads[i] is None:
                    continue
                target, value = wrap(child), _array(grads[i])
                sent = Sent(i, target, _target_name(target, namer), value, None, value=value)
                if target in waiting:  # paths meet: PyTorch adds what arrives to what is waiting
                    sent.before, sent.after = waiting[target], waiting[target] + value
                    waiting[target] = sent.after
                else:
                    waiting[target] = value
                step.sent.append(sent)
        else:  # a leaf's AccumulateGrad: what its .grad gets
            node = leaf_node(who)
            waiting.pop(node, None)
            step = Step(len(steps), node, _array(grads), leaf=who)
            step.leaf_before = None if who.grad is None else _array(who.grad)
            step.leaf_after = step.upstream if step.leaf_before is None else step.leaf_before + step.upstream
            steps.append(step)
    return steps


def _add_local_derivatives(steps: list[Step]) -> None:
    """For an elementwise node, the local derivative of each input is what the
    node itself sends for an upstream of ones: PyTorch's own formula, run once
    more. Where an input was broadcast, the node has already summed its gradient
    down, so there is no elementwise local derivative to show."""
    for step in steps:
        if not step.node.elementwise or step.node.fn is None or not step.sent or step.upstream is None:
            continue
        with torch.no_grad():
            locals_ = step.node.fn(
                torch.ones(step.upstream.shape, dtype=torch.from_numpy(step.upstream).dtype)
            )
        locals_ = locals_ if isinstance(locals_, tuple) else (locals_,)
        for sent in step.sent:
            local = locals_[sent.input] if sent.input < len(locals_) else None
            if local is not None and tuple(local.shape) == step.upstream.shape:
                sent.local = _array(local)


def _target_name(target: TorchNode, namer: Namer) -> str:
    if target.variable is not None:
        return namer.name(target.variable) or "leaf"
    return namer.name(namer.tensor_of(target), target) or target.name()
