"""Views: tensors that share their base's memory (h[0], h.t(), h.view(...)).

A view shares its base's version counter, so an in-place change through either
one is seen by backward. It also remembers how it was made ("replay": an op
and its arguments, such that op(base, *args) makes the same view again).

That matters after an in-place change. For `v = h[0]; h.mul_(3); v.sum().backward()`,
v's gradient must go through the mul_. The op that changed h cannot know v,
so when v is next used (by an op, or by reading `v.grad_fn`), `refresh_view`
makes it again from the base's new history, as PyTorch does. The in-place op
itself, and the `CopySlices` node it gives the base, are in ops/inplace.py.
"""

from __future__ import annotations

from .grad_mode import _state as _grad_mode


def make_view(out, base, replay: tuple):
    """Mark `out` as a view of `base`: it shares base's version counter, and
    `replay` makes it again from base. "version" is the counter's value when
    the view's grad_fn was made: a different value later means it is stale."""
    counter = out._counter = base.version_counter()
    if out._meta is None:
        out._meta = {}
    out._meta.update(base=base, replay=replay, version=counter.value)
    return out


def view_chain(t) -> list:
    """[t, the tensor it is a view of, that tensor's base, ..., the root]: the
    root owns the memory and is not a view of anything."""
    chain = [t]
    base = t._extra("base")
    while base is not None:
        chain.append(base)
        base = base._extra("base")
    return chain


def memory_owner(t) -> tuple:
    """(the tensor that owns t's memory, the view ops that make t from it). Usually
    the root of t's view chain; but a detach()-ed view shares its view's memory
    without being a view in the graph, so it carries that path itself ("memory_of",
    set by Tensor.detach for a read-only, expand()-ed view)."""
    chain = view_chain(t)
    root = chain.pop()
    chain.reverse()
    replays = [view._extra("replay") for view in chain]
    detached_from = root._extra("memory_of")
    if detached_from is None:
        return root, replays
    owner, owner_replays = detached_from
    return owner, owner_replays + replays


def replay(tensor, replays):
    """Apply the view ops again, from the root down to the view."""
    for op, *args in replays:
        tensor = op(tensor, *args)
    return tensor


def rebase(t, grad_fn) -> None:
    """Give `t` a new history. If the learner asked to retain t's grad, that is
    now the new value's gradient: the request moves to the new node, as in
    PyTorch. (Hooks stay on the old node: they were registered on the old value.)"""
    if grad_fn is None:  # nothing needed a gradient after all: no history to record
        return
    old_fn = t._grad_fn
    t._grad_fn = grad_fn
    t._requires_grad = True
    if t._extra("retains_grad"):
        if old_fn is not None and old_fn._extras is not None:
            old_fn._extras.retained = None
        grad_fn.retain_output(t)


def remake_views(root, chain: list, replays: list) -> None:
    """Make each view of `chain` (root's first view down to the last) again
    from the root's current history."""
    view = root
    for tensor, view_replay in zip(chain, replays):
        view = replay(view, (view_replay,))
        if view._grad_fn is not None:
            rebase(tensor, view._grad_fn)
        tensor._meta["version"] = tensor.version_counter().value


def is_stale(t) -> bool:
    """Is `t` a view whose base changed in place since its grad_fn was made?"""
    meta = t._meta
    return meta is not None and "base" in meta and meta["version"] != t._counter.value


def refresh_if_stale(t) -> None:
    """Bring a view's grad_fn up to date, if its base changed in place since it
    was made (through the base itself, or through another view of it)."""
    if not is_stale(t):
        return
    chain = view_chain(t)
    root = chain.pop()
    chain.reverse()
    if root._requires_grad and _grad_mode.enabled:
        remake_views(root, chain, [view._extra("replay") for view in chain])
