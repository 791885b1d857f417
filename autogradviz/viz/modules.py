"""Grouping a graph by nn module: the layers of a network.

`Module.__call__` leaves a note on its output's grad_fn: the module, and the
nodes its inputs came from (`GraphNode.module_calls`). Walking back from that
output to those inputs finds the call's own nodes; a node belongs to the
innermost call that contains it. Modules are named by their place in the
model (`features.0`), found with `named_modules()` from the outermost module
seen. A module called several times (a recurrent cell unrolled over five
steps) gives one layer per call, keyed `cell[1]` ... `cell[5]` in forward
order; the parameters those calls share belong to none of them, so a drawing
shows them once, feeding every call.

A module that calls other modules (a Sequential, the model, an attention block
around its q, k and v layers) is not a layer itself: the ops it runs between
its layers stay ops. Used by `agv.draw(loss)` (one box per layer when the ops
would not fit) and by the BackwardStepper (one step per layer).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.protocol import GraphNode
from ..engine import topological_order


@dataclass(frozen=True, eq=False)
class Layer:
    """One call of one nn module, and the backward nodes it made."""

    key: str  # "features.3"; "cell[2]" for a module's second call
    label: str  # "features.3 Conv2d(64, 128, k=3)"
    module: object
    output: GraphNode  # the node that made the call's output
    inputs: tuple  # the nodes the call's inputs came from (outside it)
    nodes: frozenset  # its own nodes, parameters' AccumulateGrad included

    @property
    def kind(self) -> str:
        """The module's type: "Linear", "Conv2d"."""
        return type(self.module).__name__

    def parameters(self) -> list[tuple[str, object]]:
        """(name, tensor) of this call's own parameters: `weight`, `bias`."""
        mine = {id(node.variable) for node in self.nodes if node.variable is not None}
        return [(name, p) for name, p in self.module.named_parameters() if id(p) in mine]


def module_layers(root_nodes: list[GraphNode], models: tuple = ()) -> dict[GraphNode, Layer]:
    """Each backward node made inside a module -> the innermost Layer (module call) holding it.
    models: the learner's model(s), which name their submodules even when the graph called
    those one by one (`net[1](net[0](x))`) and never the model itself."""
    order = topological_order(root_nodes)
    forward = {node: i for i, node in enumerate(reversed(order))}  # inputs before the ops using them
    # where each node's output is first used: calls that need nothing of each other (an RNN's input
    # projections, one per step) are numbered by the step that uses them, not by chance
    first_use: dict[GraphNode, int] = {}
    for node in order:
        for child in node.edges:
            if child is not None:
                first_use[child] = min(first_use.get(child, forward[node]), forward[node])
    calls = []  # (module, output node, starts), in forward order
    for node in reversed(order):
        for module, starts in node.module_calls:
            calls.append((module, node, tuple(starts)))
    calls.sort(key=lambda call: (first_use.get(call[1], forward[call[1]]), forward[call[1]]))
    calls_per_module: dict[int, int] = {}
    for module, _, _ in calls:
        calls_per_module[id(module)] = calls_per_module.get(id(module), 0) + 1
    names = _qualified_names([*models, *(module for module, _, _ in calls)])

    # the parameters of a module called more than once are shared by its calls: no call owns them
    shared = {
        id(p) for module, _, _ in calls if calls_per_module[id(module)] > 1 for p in module.parameters()
    }
    found = []
    seen: dict[int, int] = {}
    for module, output, starts in calls:
        own = {id(p) for p in module.parameters()} - shared
        nodes = _between(output, set(starts), own)
        path = names.get(id(module), "")
        if calls_per_module[id(module)] > 1:
            seen[id(module)] = seen.get(id(module), 0) + 1
            path = f"{path}[{seen[id(module)]}]"
        label = f"{path} {short_repr(module)}".strip()
        found.append(Layer(path, label, module, output, starts, frozenset(nodes)))
    # A module that calls other modules (the model itself, an attention block around its q, k, v
    # layers, an RNN around its cell) is not a layer: the ops it runs between its layers (the
    # additions, the tanh, the softmax) are drawn as ops, between the layers' boxes. Boxed, they
    # would make one box that every step of an unrolled RNN passes through.
    called = {id(module) for module, _, _ in calls}
    layers = [
        layer
        for layer in found
        if not any(id(sub) in called for _, sub in layer.module.named_modules() if sub is not layer.module)
    ]
    layer_of: dict[GraphNode, Layer] = {}
    # innermost first: a smaller call claims its nodes before the one around it
    for layer in sorted(layers, key=lambda layer: len(layer.nodes)):
        for node in layer.nodes:
            layer_of.setdefault(node, layer)
    return layer_of


def module_groups(root_nodes: list[GraphNode]) -> dict[GraphNode, str]:
    """Each backward node -> "features.0 Conv2d(3, 64, k=3)", for nodes made inside a module."""
    return {node: layer.label for node, layer in module_layers(root_nodes).items()}


def _between(output: GraphNode, starts: set[GraphNode], own: set[int]) -> set[GraphNode]:
    """The nodes from `output` back to (not including) the call's inputs; the
    AccumulateGrad nodes of the parameters in `own` (ids) count as the call's."""
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
    if hasattr(module, "kernel_size") and hasattr(module, "stride"):  # a pool: its window and step
        k, stride = module.kernel_size, module.stride
        return f"{kind}({k}, stride={stride})" if stride not in (None, k) else f"{kind}({k})"
    if kind == "Sequential" or not hasattr(module, "extra_repr"):
        return kind
    extra = module.extra_repr()
    return f"{kind}({extra if len(extra) <= 30 else extra[:29] + '…'})"
