"""Grouping a drawing by nn module: `agv.draw(loss, group="module")`.

`Module.__call__` leaves a note on its output's grad_fn: the module, and the
nodes its inputs came from. Walking back from that output to those inputs
finds the module's own nodes; a node belongs to the innermost module that
contains it. Modules are named by their place in the model (`features.0`),
found with `named_modules()` from the outermost module seen.
"""

from __future__ import annotations

from ..core.protocol import GraphNode
from ..engine import topological_order


def module_groups(root_nodes: list[GraphNode]) -> dict[GraphNode, str]:
    """Each backward node -> "features.0 Conv2d(3, 64, k=3)", for nodes made inside a module."""
    order = topological_order(root_nodes)
    members: dict[int, tuple[object, set[GraphNode]]] = {}
    for node in order:
        for module, starts in node.module_calls:
            nodes = members.setdefault(id(module), (module, set()))[1]
            nodes |= _between(node, set(starts), module)
    names = _qualified_names([module for module, _ in members.values()])
    group: dict[GraphNode, str] = {}
    # innermost first: a smaller module claims its nodes before the one around it
    for module, nodes in sorted(members.values(), key=lambda entry: len(entry[1])):
        label = f"{names.get(id(module), '')} {short_repr(module)}".strip()
        for node in nodes:
            group.setdefault(node, label)
    return group


def _between(output: GraphNode, starts: set[GraphNode], module) -> set[GraphNode]:
    """The nodes from `output` back to (not including) the module's inputs; the
    AccumulateGrad nodes of the module's own parameters count as its own."""
    own = {id(p) for p in module.parameters()}
    found, stack = set(), [output]
    while stack:
        node = stack.pop()
        if node in found or node in starts:
            continue
        if node.variable is not None and id(node.variable) not in own:
            continue
        found.add(node)
        stack.extend(child for child in node.edges if child is not None)
    return found


def _qualified_names(modules: list) -> dict[int, str]:
    """id(module) -> its dotted name inside the outermost module among them."""
    names: dict[int, str] = {}
    inside = {id(sub) for m in modules for _, sub in m.named_modules() if sub is not m}
    for outer in (m for m in modules if id(m) not in inside):
        for name, sub in outer.named_modules():
            names.setdefault(id(sub), name)
    return names


def short_repr(module) -> str:
    """A compact name for a module: Conv2d(3, 64, k=3), Linear(25088, 4096), ReLU()."""
    kind = type(module).__name__
    if hasattr(module, "in_channels") and hasattr(module, "kernel_size"):
        k = module.kernel_size
        k = k[0] if isinstance(k, tuple) and len(set(k)) == 1 else k
        return f"{kind}({module.in_channels}, {module.out_channels}, k={k})"
    if hasattr(module, "in_features") and hasattr(module, "out_features"):
        return f"{kind}({module.in_features}, {module.out_features})"
    if kind == "Sequential" or not hasattr(module, "extra_repr"):
        return kind
    extra = module.extra_repr()
    return f"{kind}({extra if len(extra) <= 30 else extra[:29] + '…'})"
