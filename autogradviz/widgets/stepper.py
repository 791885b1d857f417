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

from .. import engine, ui_text
from ..core.creation import tensor
from ..core.protocol import AUTOGRADVIZ, GraphNode, reader_for
from ..viz.labels import preview
from ..viz.model import Namer
from ..viz.view import draw, fitted_picture_html, named
from . import trace
from .lifetime import forget_without_kernel, widget_tree

_HERE = Path(__file__).parent
STATES = ("done", "current", "waiting")
# a stepper's picture shrinks to fit, but its smallest text stays at least this (px): the same
# limit as READABLE_PX in stepper.js, where the panel moves below a picture that would go smaller
READABLE_PX = 10
# a stepper cannot scroll sideways (its buttons and panel would leave the picture), so it is laid
# out for the narrowest classroom output: JupyterLab at 1024 px with its file browser open
FIT_WIDTH_PX = 590
# the strings the browser shows that no frame holds: buttons, tooltips, legend, quiz (stepper.js)
_LABEL_KEYS = (
    "reset", "reset_tip", "back", "back_tip", "next", "next_tip", "play", "pause", "play_tip",
    "end", "end_tip", "slider_tip", "speed_tip", "speed", "keys_tip",
    "legend.done", "legend.current", "legend.waiting", "legend.untouched",
    "quiz.head", "quiz.check", "quiz.check_tip", "quiz.right", "quiz.wrong",
)  # fmt: skip


class BackwardStepper(anywidget.AnyWidget):
    """Step through `root.backward(gradient)` node by node.

    Shows the graph (as `agv.draw(root, kind=kind, names=names, ...)` would),
    marks each node done, current, waiting (some gradient has arrived, not
    all) or untouched, and explains the current step: upstream × local
    derivative = what each input receives, paths adding up, broadcasting
    summed away. With quiz=True the learner predicts each step first.

    language: "en" or "zh" for this stepper's text; default: `agv.set_language`'s.
    Keys, with the widget focused (click it): ← → step, Space plays and
    pauses, Home and End go to the start and the end.
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
    labels = traitlets.Dict().tag(sync=True)  # the buttons' text and the rest of _LABEL_KEYS

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
        language: str | None = None,
        **draw_options,
    ):
        # first: close() (also run by the base class's __del__ if this __init__ fails) reads them
        self._closed, self._made = False, []
        self._language = ui_text.resolve_language(language)
        self._root, self._gradient = root, gradient
        names = named(names, draw_options.pop("model", None))
        self._tensors_reader = reader_for(root) or AUTOGRADVIZ
        if self._tensors_reader is AUTOGRADVIZ:
            self._steps = trace.record(root, gradient, names)
            (seed,) = engine.root_gradients(
                [root], [] if gradient is None else [gradient], False, "BackwardStepper"
            )
            self._seed = np.array(self._tensors_reader.value(seed), copy=True)
        else:  # another library's graph (autogradviz.torch): its adapter records one real backward
            self._steps, self._seed = self._tensors_reader.record_backward(root, gradient, names)
        self._namer = Namer([root], names, self._tensors_reader)
        self._root_node = self._tensors_reader.node(root)
        # "auto" lays it out to fit FIT_WIDTH_PX with 10 px text
        draw_options.setdefault("fit_width_px", FIT_WIDTH_PX)
        draw_options.setdefault("min_text_px", READABLE_PX)
        draw_options.setdefault("language", self._language)  # the picture's legend speaks as the panel
        self._view = draw(root, kind=kind, names=names, **draw_options)
        self._ids = _svg_ids(self._view.boxes, self._tensors_reader)
        self._applied = False
        super().__init__(
            svg=_strip_xml_prolog(self._view.svg()),
            frames=self._frames(),
            position=0,
            quiz=quiz,
            labels={key: self._text("stepper." + key) for key in _LABEL_KEYS},
        )
        # the widgets made with this one (its layout): close() closes them too, and only them
        self._made = [w for w in widget_tree(self) if w is not self]
        forget_without_kernel([self, *self._made])

    def _text(self, key: str, **fields) -> str:
        return ui_text.text(key, self._language, **fields)

    def __repr__(self) -> str:
        # short and with no memory address: a notebook shows it as text/plain, and nbval compares it
        if self._closed:
            return "<autogradviz BackwardStepper: closed>"
        return self._text("stepper.summary", steps=self.last, position=self.position)

    def _repr_mimebundle_(self, **kwargs) -> tuple[dict, dict] | None:
        """The widget view, and a static first frame for whatever cannot show it (an
        untrusted notebook, GitHub, a notebook opened with no kernel): with a live
        kernel, Jupyter prefers the widget; the others fall back to text/html."""
        if self._closed:
            return None  # as ipywidgets does for a closed widget: no view to show
        # the two entries anywidget writes (the widget view's format, version 2.1), and the static frame
        view = {"version_major": 2, "version_minor": 1, "model_id": self.model_id}
        data = {
            "text/plain": repr(self),
            "application/vnd.jupyter.widget-view+json": view,
            "text/html": self.static_html(),
        }
        return data, {}

    def static_html(self) -> str:
        """The first frame as plain HTML (no script, no style sheet): the title, the
        picture and a line saying to run the cell. The picture is an SVG in an <img>
        data URL, since notebook sanitizers keep images but drop inline SVG and <style>."""
        self._check_open("static_html()")
        note = html.escape(self._text("stepper.static_note"))
        return (
            f'<div class="agv-stepper-static">{self._titled_picture(0)}'
            f'<p style="font-style: italic; color: #555; margin: 4px 0;">{note}</p></div>'
        )

    def frame_html(self, position: int | None = None) -> str:
        """One frame (default: the current one) without the widget, as an HTML
        fragment: its title, its picture fitted to the output's width (its text
        kept at 10 px or more) and its panel, `upstream × local = sent`. Show it
        with `IPython.display.HTML(stepper.frame_html())`, or save it in a page."""
        position = self._frame_position(position, "frame_html()")
        return (
            f'<div class="agv-stepper-frame">{self._titled_picture(position)}'
            f'<div style="font-size: 14px; margin-top: 6px;">{self.frames[position]["panel"]}</div></div>'
        )

    def _titled_picture(self, position: int) -> str:
        """A frame's title, then its picture fitted to the output (text kept at READABLE_PX)."""
        title = self.frames[position]["title"]
        return (
            f'<p style="font-weight: bold; margin: 4px 0;">{html.escape(title)}</p>'
            f"{fitted_picture_html(self.frame_svg(position), title, READABLE_PX)}"
        )

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
        position = self._frame_position(position, "frame_svg()")
        return styled_svg(self.svg, self.frames[position]["classes"])

    def _frame_position(self, position: int | None, caller: str) -> int:
        self._check_open(caller)
        if position is None:
            return self.position
        if not isinstance(position, int) or not 0 <= position <= self.last:
            raise IndexError(f"{caller[:-2]}: position {position!r} is outside 0..{self.last}")
        return position

    def apply(self) -> None:
        """Write the gradients into `.grad`, by running backward() itself once."""
        self._check_open("apply()")
        if self._applied:
            raise RuntimeError("apply() already wrote these gradients; calling it again would add them twice")
        if self._tensors_reader is AUTOGRADVIZ:
            engine.backward(
                [self._root], None if self._gradient is None else [self._gradient], retain_graph=True
            )
        else:
            self._tensors_reader.backward(self._root, self._gradient)
        self._applied = True

    def check(self, answers) -> tuple[bool, str]:
        """Quiz mode, without a browser: `answers` are the gradients you predict
        the next step sends, one per input it sends to (numbers or nested lists).
        Returns (right?, a hint with the rule and the upstream gradient)."""
        self._check_open("check()")
        if self.position >= self.last:
            raise RuntimeError("check: the walk is over, there is no next step to predict")
        step = self.steps[self.position]
        quiz = self._quiz(step)
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

    def to_html(self, path: str | Path, title: str | None = None) -> Path:
        """A standalone page that steps through every frame: no kernel, no network.
        title: the page's title; default "autogradviz: backward, step by step" (in the stepper's language)."""
        self._check_open("to_html()")
        script = (_HERE / "stepper.js").read_text(encoding="utf-8")
        css = (_HERE / "stepper.css").read_text(encoding="utf-8")
        state = {
            "svg": self.svg,
            "frames": self.frames,
            "position": 0,
            "quiz": self.quiz,
            "labels": self.labels,
        }
        page = _PAGE.format(
            lang="zh-CN" if self._language == "zh" else "en",
            title=html.escape(self._text("stepper.page_title") if title is None else title),
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
            return self._namer.name(tensor_or_node) or self._text("stepper.unnamed")
        node = tensor_or_node
        if node.variable is not None:
            return self._namer.name(node.variable) or self._text("stepper.leaf")
        return self._namer.name(self._namer.tensor_of(node), node) or self._text(
            "stepper.output_of", op=node.op
        )

    def _target_label(self, sent: trace.Sent) -> str:
        """The name of the input a step sends to, as the trace recorded it (the
        unnamed leaf's fallback "leaf" in the stepper's language)."""
        target = sent.target
        if target.variable is not None and not self._namer.name(target.variable):
            return self._text("stepper.leaf")
        return sent.target_name

    def _rule_lines(self, step: trace.Step) -> list[str]:
        """The step's rules in the learner's names, each with its local derivative's
        value where the trace has it: "∂(c·d)/∂c = d = 4"."""
        rules = list(step.named_rules or step.rules)
        if len(rules) != len(step.node.edges):
            return rules
        for sent in step.sent:
            if sent.local is None:
                continue
            rule, value = rules[sent.input], preview(sent.local)
            formula = rule.startswith("∂") and rule.count(" = ") == 1
            plain = not any(word in rule for word in (" if ", " where ", ":"))
            if formula and plain and rule.rsplit(" = ", 1)[1] != value:
                rules[sent.input] = f"{rule} = {value}"
        return rules

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
                    "quiz": self._quiz(next_step) if next_step is not None else None,
                }
            )
        return frames

    def _title(self, position: int, step: trace.Step | None) -> str:
        if step is None:
            return self._text("stepper.title.start", steps=self.last)
        return self._text("stepper.title.step", position=position, last=self.last, name=step.name)

    def _panel(self, position: int, step: trace.Step | None) -> str:
        e = html.escape
        if step is None:
            names = [s.name for s in self.steps]
            if len(names) > 12:  # a long walk would fill the panel: its ends say enough
                names = [*names[:6], self._text("stepper.panel.more", count=len(names) - 10), *names[-4:]]
            order = " → ".join(e(name) for name in names)
            start = self._text(
                "stepper.panel.start", root=e(self._label(self._root)), seed=e(preview(self._seed))
            )
            return f"<p>{start}</p><p>{self._text('stepper.panel.order', order=order)}</p>"
        parts = [
            f'<p class="agv-node-name">{self._text("stepper.panel.reverses", name=e(step.name), op=e(step.op))}</p>',
            f"<p>{self._text('stepper.panel.upstream', upstream=e(preview(step.upstream)))}</p>",
        ]
        if step.leaf is not None:
            name = e(self._label(step.leaf))
            if step.leaf_before is None:
                line = self._text("stepper.panel.leaf_new", name=name, value=e(preview(step.leaf_after)))
            else:
                line = self._text(
                    "stepper.panel.leaf_add",
                    name=name,
                    before=e(preview(step.leaf_before)),
                    upstream=e(preview(step.upstream)),
                    after=e(preview(step.leaf_after)),
                )
            parts.append(f"<p>{line}</p>")
            return "".join(parts)
        rules = "".join(f"<li><code>{e(rule)}</code></li>" for rule in self._rule_lines(step))
        if step.code is not None:
            # a custom Function: its backward is the user's code, not a formula of the library
            parts.append(
                f"<p>{self._text('stepper.panel.code', op=e(step.op))}</p>"
                f'<pre class="agv-code"><code>{e(step.code)}</code></pre>'
            )
        elif rules:
            parts.append(f"<p>{self._text('stepper.panel.rules')}</p><ul>{rules}</ul>")
        for sent in step.sent:
            target = e(self._target_label(sent))
            if sent.local is not None:
                line = (
                    f"<code>{e(preview(step.upstream))}</code> × <code>{e(preview(sent.local))}</code> = "
                    f"<code>{e(preview(sent.product))}</code>"
                )
            else:
                line = f"<code>{e(preview(sent.product))}</code>"
            parts.append(
                f"<p>{self._text('stepper.panel.sent', target=target, number=sent.input + 1, line=line)}</p>"
            )
            if sent.reduced_axes is not None:
                reduced = self._text(
                    "stepper.panel.reduce",
                    axes=e(str(sent.reduced_axes)),
                    before=e(str(sent.shape_before)),
                    after=e(str(tuple(np.shape(sent.value)))),
                    value=e(preview(sent.value)),
                )
                parts.append(f'<p class="agv-reduce">{reduced}</p>')
            if sent.before is not None:
                merged = self._text(
                    "stepper.panel.merge",
                    target=target,
                    before=e(preview(sent.before)),
                    value=e(preview(sent.value)),
                    after=e(preview(sent.after)),
                )
                parts.append(f'<p class="agv-merge">{merged}</p>')
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
                status = "so_far" if value is not None else ""
            shown = "—" if value is None else preview(value)
            status = self._text("stepper.table." + status) if status else ""
            rows.append(
                f"<tr><td>{e(self._label(t))}</td><td><code>{e(shown)}</code></td><td>{e(status)}</td></tr>"
            )
        head = f"<tr><th>{e(self._text('stepper.table.tensor'))}</th><th>{e(self._text('stepper.table.gradient'))}</th><th></th></tr>"
        return f"<table>{head}{''.join(rows)}</table>"

    def _quiz(self, step: trace.Step | None) -> dict:
        """What the next step will send, for the learner to predict."""
        if step is None:
            return {"targets": [], "prompts": [], "expected": [], "hint": ""}
        rules = self._text("stepper.quiz.rule_separator").join(self._rule_lines(step))
        hint = self._text("stepper.quiz.hint", name=step.name, rules=rules, upstream=preview(step.upstream))
        if step.leaf is not None:
            hint += self._text("stepper.quiz.hint_leaf")
            return {"targets": [], "prompts": [], "expected": [], "hint": hint}
        targets = [
            self._text("stepper.target", target=self._target_label(s), number=s.input + 1) for s in step.sent
        ]
        return {
            "targets": targets,
            "prompts": [self._text("stepper.quiz.to", target=target) for target in targets],
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
<html lang="{lang}"><head><meta charset="utf-8"><title>{title}</title>
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
