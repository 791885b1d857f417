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


class ViewOf:
    """What makes a tensor a view (kept in its extras, `t._extras.view`)."""

    __slots__ = ("base", "replay", "version")

    def __init__(self, base, replay: tuple, version: int) -> None:
        self.base = base  # the tensor whose memory it shows
        self.replay = replay  # (op, *args): op(base, *args) makes the same view again
        # the version counter's value when the view's grad_fn was made: a different
        # value later means the base changed in place since, and the view is stale
        self.version = version


def make_view(out, base, replay: tuple):
    """Mark `out` as a view of `base`: it shares base's version counter, and
    `replay` makes it again from base."""
    counter = out._counter = base.version_counter()
    out._ensure_extras().view = ViewOf(base, replay, counter.value)
    return out


def view_of(t) -> ViewOf | None:
    """What makes `t` a view, or None if it is not one."""
    extras = t._extras
    return None if extras is None else extras.view


def view_chain(t) -> list:
    """[t, the tensor it is a view of, that tensor's base, ..., the root]: the
    root owns the memory and is not a view of anything."""
    chain = [t]
    view = view_of(t)
    while view is not None:
        chain.append(view.base)
        view = view_of(view.base)
    return chain


def replays_of(chain: list) -> list:
    """Each view's replay, for the views of a chain (see replay)."""
    return [view._extras.view.replay for view in chain]


def memory_owner(t) -> tuple:
    """(the tensor that owns t's memory, the view ops that make t from it). Usually
    the root of t's view chain; but a detach()-ed view shares its view's memory
    without being a view in the graph, so it carries that path itself (`memory_of`,
    set by Tensor.detach for a read-only, expand()-ed view)."""
    chain = view_chain(t)
    root = chain.pop()
    chain.reverse()
    replays = replays_of(chain)
    detached_from = None if root._extras is None else root._extras.memory_of
    if detached_from is None:
        return root, replays
    owner, owner_replays = detached_from
    return owner, owner_replays + replays


def alias_of_memory(t) -> tuple:
    """What t.detach() keeps when t is an expand()-ed view, which numpy marks
    read-only: (a plain alias of the memory owner's array, the view ops from it),
    so that a write into the detached tensor goes into the owner's array, as a
    write into the view does (ops/inplace.py). Not the owner itself and its
    graph: a detached tensor keeps no history alive."""
    owner, replays = memory_owner(t)
    alias = owner.data  # the same array, outside the graph
    alias._counter = owner.version_counter()
    return alias, replays


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
    if t.retains_grad:
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
        tensor._extras.view.version = tensor.version_counter().value


def is_stale(t) -> bool:
    """Is `t` a view whose base changed in place since its grad_fn was made?"""
    extras = t._extras
    return extras is not None and extras.view is not None and extras.view.version != t._counter.value


def refresh_if_stale(t) -> None:
    """Bring a view's grad_fn up to date, if its base changed in place since it
    was made (through the base itself, or through another view of it)."""
    if not is_stale(t):
        return
    chain = view_chain(t)
    root = chain.pop()
    chain.reverse()
    if root._requires_grad and _grad_mode.enabled:
        remake_views(root, chain, replays_of(chain))
