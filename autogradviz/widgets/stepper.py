"""BackwardStepper: watch `backward()` run, one node at a time.

The walk is recorded once (trace.py: the engine's own steps, writing no
`.grad`), the graph is laid out once (`agv.draw`), and every position is
turned into a frame: which nodes are done, current or waiting, the panel
text and the gradient table. The browser only restyles the SVG by node id,
so stepping needs no kernel round trip and no new layout.

Stepping never writes `.grad`. `apply()` runs the real `backward()` once, so
the learner's tensors end up exactly as if they had called it.

A stepper holds the whole graph (the root, every node, copies of every
gradient): `close()` lets it go. In plain Python, dropping the stepper is
enough (lifetime.py says why a kernel is different).
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping
from pathlib import Path

import anywidget
import numpy as np
import traitlets

from .. import engine
from ..core.creation import tensor
from ..core.protocol import AUTOGRADVIZ, GraphNode
from ..viz.labels import preview
from ..viz.model import Namer
from ..viz.view import draw
from . import trace
from .lifetime import forget_without_kernel, widget_tree

_HERE = Path(__file__).parent
STATES = ("done", "current", "waiting")


class BackwardStepper(anywidget.AnyWidget):
    """Step through `root.backward(gradient)` node by node.

    Shows the graph (as `agv.draw(root, kind=kind, names=names, ...)` would),
    marks each node done, current, waiting (some gradient has arrived, not
    all) or untouched, and explains the current step: upstream × local
    derivative = what each input receives, paths adding up, broadcasting
    summed away. With quiz=True the learner predicts each step first.
    """

    # the code itself, not the files' paths: for a path, anywidget connects each new widget to the
    # file's change signal (hot reload) through a closure holding the widget, and the class keeps
    # that signal, so no stepper could ever be freed
    _esm = (_HERE / "stepper.js").read_text(encoding="utf-8")
    _css = (_HERE / "stepper.css").read_text(encoding="utf-8")

    svg = traitlets.Unicode("").tag(sync=True)
    frames = traitlets.List().tag(sync=True)
    position = traitlets.Int(0).tag(sync=True)
    quiz = traitlets.Bool(False).tag(sync=True)

    @traitlets.validate("position")
    def _valid_position(self, proposal):
        # the browser indexes frames[position]: a bad value set from Python would break the view
        if not 0 <= proposal["value"] < len(self.frames or [None]):
            raise traitlets.TraitError(f"position {proposal['value']} is outside 0..{self.last}")
        return proposal["value"]

    def __init__(
        self,
        root,
        gradient=None,
        names: Mapping | None = None,
        kind: str = "forward",
        quiz: bool = False,
        **draw_options,
    ):
        # first: close() (also run by the base class's __del__ if this __init__ fails) reads them
        self._closed, self._made = False, []
        self._root, self._gradient = root, gradient
        self._tensors_reader = AUTOGRADVIZ
        self._steps = trace.record(root, gradient, names)
        self._namer = Namer([root], names, self._tensors_reader)
        self._root_node = self._tensors_reader.node(root)
        (seed,) = engine.root_gradients(
            [root], [] if gradient is None else [gradient], False, "BackwardStepper"
        )
        self._seed = np.array(self._tensors_reader.value(seed), copy=True)
        self._view = draw(root, kind=kind, names=names, **draw_options)
        self._ids = _svg_ids(self._view.boxes, self._tensors_reader)
        self._applied = False
        super().__init__(
            svg=_strip_xml_prolog(self._view.svg()), frames=self._frames(), position=0, quiz=quiz
        )
        # the widgets made with this one (its layout): close() closes them too, and only them
        self._made = [w for w in widget_tree(self) if w is not self]
        forget_without_kernel([self, *self._made])

    def __repr__(self) -> str:
        # short and with no memory address: a notebook shows it as text/plain, and nbval compares it
        if self._closed:
            return "<autogradviz BackwardStepper: closed>"
        return f"<autogradviz BackwardStepper: {self.last} steps, at position {self.position}>"

    def close(self) -> None:
        """Let go of the graph (the root, every node, the gradients recorded) and
        close the widget: in Jupyter its view disappears. The `.grad` that
        `apply()` wrote stays on the tensors. Calling it again does nothing."""
        self._closed = True
        # every reference to the graph: the tensors, the nodes (they hold their saved tensors and
        # edges, so one node keeps the whole graph alive), the drawing's boxes, the names' tensors
        self._root = self._gradient = self._root_node = self._seed = None
        self._steps, self._namer, self._view, self._ids = [], None, None, {}
        super().close()  # first the widget: its view must not see the emptied frames below
        for widget in self._made:
            widget.close()
        self._made = []
        # the synced state is text and numbers, no graph, but it can be megabytes for a big graph
        self.svg, self.frames = "", []

    def _check_open(self, what: str) -> None:
        if self._closed:
            raise RuntimeError(
                f"BackwardStepper: this stepper was closed; {what} needs the graph, which close() freed. "
                "Make a new BackwardStepper(root) to step through it again."
            )

    # -- the headless API ---------------------------------------------------------

    @property
    def steps(self) -> list[trace.Step]:
        """The recorded walk, one Step per node, in the order the engine ran them."""
        self._check_open("steps")
        return self._steps

    @property
    def last(self) -> int:
        """The last position: every step has run."""
        self._check_open("last")
        return len(self._steps)

    def next(self) -> int:
        self._check_open("next()")
        self.position = min(self.position + 1, self.last)
        return self.position

    def back(self) -> int:
        self._check_open("back()")
        self.position = max(self.position - 1, 0)
        return self.position

    def reset(self) -> int:
        self._check_open("reset()")
        self.position = 0
        return self.position

    def goto(self, position: int) -> int:
        self._check_open("goto()")
        if not 0 <= position <= self.last:
            raise IndexError(f"goto: position {position} is outside 0..{self.last}")
        self.position = position
        return self.position

    def run_to_end(self) -> int:
        self._check_open("run_to_end()")
        return self.goto(self.last)

    @property
    def current(self) -> trace.Step | None:
        """The step that has just run, or None at the start."""
        self._check_open("current")
        return self.steps[self.position - 1] if self.position else None

    def state(self) -> dict:
        """Each tensor of the graph that autogradviz can see (leaves, the root,
        tensors named in `names=`) mapped to its gradient so far: for a leaf,
        what its `.grad` will hold once written; for others, what has arrived."""
        self._check_open("state()")
        now = trace.state_at(self.steps, self.position, self._root_node, self._seed)
        result = {}
        for t, node in self._tensors():
            if node.variable is not None:
                value = now.leaf_grads.get(t)
            else:
                value = now.waiting.get(node, self._final_grad(node) if node in now.done else None)
            result[t] = None if value is None else tensor(np.asarray(value))
        return result

    def frame_svg(self, position: int | None = None) -> str:
        """The picture at `position` (default: the current one), as SVG text
        that styles itself: the same restyling the widget does in the browser."""
        self._check_open("frame_svg()")
        frame = self.frames[self.position if position is None else position]
        return styled_svg(self.svg, frame["classes"])

    def apply(self) -> None:
        """Write the gradients into `.grad`, by running backward() itself once."""
        self._check_open("apply()")
        if self._applied:
            raise RuntimeError("apply() already wrote these gradients; calling it again would add them twice")
        engine.backward([self._root], None if self._gradient is None else [self._gradient], retain_graph=True)
        self._applied = True

    def check(self, answers) -> tuple[bool, str]:
        """Quiz mode, without a browser: `answers` are the gradients you predict
        the next step sends, one per input it sends to (numbers or nested lists).
        Returns (right?, a hint with the rule and the upstream gradient)."""
        self._check_open("check()")
        if self.position >= self.last:
            raise RuntimeError("check: the walk is over, there is no next step to predict")
        step = self.steps[self.position]
        quiz = _quiz(step, self._label)
        if not quiz["targets"]:
            return True, quiz["hint"]
        answers = (
            list(answers) if isinstance(answers, (list, tuple)) and len(quiz["targets"]) > 1 else [answers]
        )
        right = len(answers) == len(quiz["targets"]) and all(
            np.size(a) == len(e)
            and np.allclose(np.asarray(a, dtype=float).reshape(-1), e, rtol=1e-3, atol=1e-4)
            for a, e in zip(answers, quiz["expected"])
        )
        return right, quiz["hint"]

    def to_html(self, path: str | Path, title: str = "autogradviz: backward, step by step") -> Path:
        """A standalone page that steps through every frame: no kernel, no network."""
        self._check_open("to_html()")
        script = (_HERE / "stepper.js").read_text(encoding="utf-8")
        css = (_HERE / "stepper.css").read_text(encoding="utf-8")
        state = {"svg": self.svg, "frames": self.frames, "position": 0, "quiz": self.quiz}
        page = _PAGE.format(
            title=html.escape(title),
            css=css,
            # no "<" at all inside the <script>: "</script" would end it early, and "<!--"
            # followed by "<script" (a name can hold anything) would make the parser miss its end
            state=json.dumps(state).replace("<", "\\u003c"),
            module=script.replace("</script", "<\\/script"),
        )
        path = Path(path)
        path.write_text(page, encoding="utf-8")
        return path

    # -- frames -----------------------------------------------------------------

    def _tensors(self) -> list[tuple[object, GraphNode]]:
        """(tensor, the node whose gradient is that tensor's), leaves first."""
        seen, out = set(), []
        for step in self.steps:
            if step.leaf is not None and id(step.leaf) not in seen:
                seen.add(id(step.leaf))
                out.append((step.leaf, step.node))
        # names=locals() brings every tensor of the notebook: keep only this graph's
        stepped = {step.node for step in self.steps}
        for t in self._namer.tensors:
            grad_fn = self._tensors_reader.grad_fn(t)
            if grad_fn in stepped and id(t) not in seen:
                seen.add(id(t))
                out.append((t, grad_fn))
        return out

    def _final_grad(self, node: GraphNode):
        for step in self.steps:
            if step.node is node:
                return step.upstream
        return None

    def _label(self, tensor_or_node) -> str:
        if self._tensors_reader.is_tensor(tensor_or_node):
            return self._namer.name(tensor_or_node) or "(unnamed)"
        node = tensor_or_node
        if node.variable is not None:
            return self._namer.name(node.variable) or "leaf"
        return self._namer.name(self._namer.tensor_of(node), node) or f"output of {node.op}"

    def _frames(self) -> list[dict]:
        frames = []
        for position in range(self.last + 1):
            now = trace.state_at(self.steps, position, self._root_node, self._seed)
            classes = {}
            for node in now.done:
                for svg_id in self._ids.get(node, ()):
                    classes[svg_id] = "done"
            for node in now.waiting:
                for svg_id in self._ids.get(node, ()):
                    classes[svg_id] = "waiting"
            if now.current is not None:
                for svg_id in self._ids.get(now.current, ()):
                    classes[svg_id] = "current"
            step = self.steps[position - 1] if position else None
            next_step = self.steps[position] if position < self.last else None
            frames.append(
                {
                    "classes": classes,
                    "title": self._title(position, step),
                    "panel": self._panel(position, step),
                    "table": self._table(now),
                    "quiz": _quiz(next_step, self._label) if next_step is not None else None,
                }
            )
        return frames

    def _title(self, position: int, step: trace.Step | None) -> str:
        if step is None:
            return f"Start: {self.last} steps to go"
        return f"Step {position} of {self.last}: {step.name}"

    def _panel(self, position: int, step: trace.Step | None) -> str:
        e = html.escape
        if step is None:
            names = [s.name for s in self.steps]
            if len(names) > 12:  # a long walk would fill the panel: its ends say enough
                names = [*names[:6], f"… {len(names) - 10} more …", *names[-4:]]
            order = " → ".join(e(name) for name in names)
            return (
                f"<p>Backward starts at <b>{e(self._label(self._root))}</b> with the gradient "
                f"<code>{e(preview(self._seed))}</code> (d output / d output).</p>"
                f"<p>The engine will run the nodes in this (topological) order, each only after every "
                f"node that sends it gradient: {order}.</p>"
            )
        parts = [
            f'<p class="agv-node-name"><b>{e(step.name)}</b> reverses <code>{e(step.op)}</code></p>',
            f"<p>gradient arriving (upstream): <code>{e(preview(step.upstream))}</code></p>",
        ]
        if step.leaf is not None:
            name = e(self._label(step.leaf))
            if step.leaf_before is None:
                parts.append(
                    f"<p><b>{name}.grad</b> was None, and becomes <code>{e(preview(step.leaf_after))}</code></p>"
                )
            else:
                parts.append(
                    f"<p><b>{name}.grad</b> accumulates: <code>{e(preview(step.leaf_before))}</code> + "
                    f"<code>{e(preview(step.upstream))}</code> = <code>{e(preview(step.leaf_after))}</code></p>"
                )
            return "".join(parts)
        rules = "".join(f"<li><code>{e(rule)}</code></li>" for rule in step.rules)
        if step.code is not None:
            # a custom Function: its backward is the user's code, not a formula of the library
            parts.append(
                f"<p>its backward is your code, <code>{e(step.op)}.backward</code>:</p>"
                f'<pre class="agv-code"><code>{e(step.code)}</code></pre>'
            )
        elif rules:
            parts.append(f"<p>local derivatives:</p><ul>{rules}</ul>")
        for sent in step.sent:
            target = e(sent.target_name)
            if sent.local is not None:
                line = (
                    f"<code>{e(preview(step.upstream))}</code> × <code>{e(preview(sent.local))}</code> = "
                    f"<code>{e(preview(sent.product))}</code>"
                )
            else:
                line = f"<code>{e(preview(sent.product))}</code>"
            parts.append(f"<p>to <b>{target}</b> (input {sent.input + 1}): upstream × local = {line}</p>")
            if sent.reduced_axes is not None:
                parts.append(
                    f'<p class="agv-reduce">broadcasting undone: summed over axes {e(str(sent.reduced_axes))}, '
                    f"shape {e(str(sent.shape_before))} → {e(str(tuple(np.shape(sent.value))))}: "
                    f"<code>{e(preview(sent.value))}</code></p>"
                )
            if sent.before is not None:
                parts.append(
                    f'<p class="agv-merge">paths meet at <b>{target}</b>: <code>{e(preview(sent.before))}</code> + '
                    f"<code>{e(preview(sent.value))}</code> = <code>{e(preview(sent.after))}</code></p>"
                )
        return "".join(parts)

    def _table(self, now: trace.State) -> str:
        e = html.escape
        rows = []
        for t, node in self._tensors():
            if node.variable is not None:
                value = now.leaf_grads.get(t)
                status = "written" if value is not None else ("arriving" if node in now.waiting else "")
                if value is None and node in now.waiting:
                    value = now.waiting[node]
            elif node in now.done:
                value, status = self._final_grad(node), "complete"
            else:
                value = now.waiting.get(node)
                status = "so far" if value is not None else ""
            shown = "—" if value is None else preview(value)
            rows.append(
                f"<tr><td>{e(self._label(t))}</td><td><code>{e(shown)}</code></td><td>{e(status)}</td></tr>"
            )
        return f"<table><tr><th>tensor</th><th>gradient</th><th></th></tr>{''.join(rows)}</table>"


def _quiz(step: trace.Step | None, label) -> dict:
    """What the next step will send, for the learner to predict."""
    if step is None:
        return {"targets": [], "expected": [], "hint": ""}
    rules = "; ".join(step.rules)
    hint = f"{step.name}: {rules}. The upstream gradient is {preview(step.upstream)}."
    if step.leaf is not None:
        return {"targets": [], "expected": [], "hint": hint + " This step only writes .grad."}
    return {
        "targets": [f"{s.target_name} (input {s.input + 1})" for s in step.sent],
        "expected": [np.asarray(s.value, dtype=float).reshape(-1).tolist() for s in step.sent],
        "hint": hint,
    }


def _svg_ids(boxes, tensors) -> dict[GraphNode, list[str]]:
    """Which drawn boxes stand for each backward node."""
    ids: dict[GraphNode, list[str]] = {}
    for svg_id, box in boxes:
        ref = box.ref
        node = tensors.node(ref) if tensors.is_tensor(ref) else ref
        if node is not None:
            ids.setdefault(node, []).append(svg_id)
    return ids


def _strip_xml_prolog(svg: str) -> str:
    return svg[svg.index("<svg") :]


_STATE_CLASS = re.compile(r'(<g id="(agv-[^"]+)" class=")')


def styled_svg(svg: str, classes: Mapping[str, str]) -> str:
    """Add each node's state class (agv-s-done, ...) and the stylesheet for them."""

    def mark(match: re.Match) -> str:
        state = classes.get(match.group(2))
        return match.group(1) + (f"agv-s-{state} " if state else "")

    marked = _STATE_CLASS.sub(mark, svg).replace("<svg ", '<svg class="agv-stepping" ', 1)
    style = (_HERE / "stepper.css").read_text(encoding="utf-8")
    return re.sub(r"(<svg[^>]*>)", lambda m: m.group(1) + f"<style>{style}</style>", marked, count=1)


_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>{css}</style></head>
<body><div id="agv-stepper"></div>
<script type="application/json" id="agv-state">{state}</script>
<script type="module">
{module}
const state = JSON.parse(document.getElementById("agv-state").textContent);
const listeners = {{}};
// a stand-in for the widget model: the same render() runs with no kernel
const model = {{
  get: (key) => state[key],
  set: (key, value) => {{ state[key] = value; (listeners["change:" + key] || []).forEach((f) => f()); }},
  on: (event, f) => {{ (listeners[event] = listeners[event] || []).push(f); }},
  off: () => {{}},
  save_changes: () => {{}},
}};
render({{ model, el: document.getElementById("agv-stepper") }});
</script></body></html>
"""
