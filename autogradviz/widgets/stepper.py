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

from .. import ui_text
from ..core.creation import tensor
from ..core.protocol import AUTOGRADVIZ, GraphNode, Namer, reader_for
from ..viz.labels import brief_number, l2_norm, preview, remembered_rows
from ..viz.modules import Layer
from ..viz.names import resolve_names
from ..viz.user_text import displayable, payload, shortened
from ..viz.view import draw, fitted_picture_html
from . import trace
from .layer_text import explain_layer
from .lifetime import forget_without_kernel, widget_tree

_HERE = Path(__file__).parent
# a stepper's picture shrinks to fit, but its smallest text stays at least this (px): the same
# limit as READABLE_PX in stepper.js, where the panel moves below a picture that would go smaller
READABLE_PX = 10
# a stepper cannot scroll sideways (its buttons and panel would leave the picture), so it is laid
# out for the narrowest classroom output: JupyterLab at 1024 px with its file browser open
FIT_WIDTH_PX = 590
# quiz mode asks for the gradients a step sends only when each has at most this many numbers
QUIZ_MAX_VALUES = 64
# the strings the browser shows that no frame holds: buttons, tooltips, legend, quiz (stepper.js)
_LABEL_KEYS = (
    "reset", "reset_tip", "back", "back_tip", "next", "next_tip", "play", "pause", "play_tip",
    "end", "end_tip", "slider_tip", "speed_tip", "speed", "keys_tip",
    "legend.done", "legend.current", "legend.waiting", "legend.untouched",
    "quiz.head", "quiz.check", "quiz.check_tip", "quiz.right", "quiz.wrong",
    "into", "into_tip", "out", "out_tip", "zoom_in", "zoom_out", "zoom_fit", "zoom_tip", "inside",
)  # fmt: skip


class BackwardStepper(anywidget.AnyWidget):
    """Step through `root.backward(gradient)` node by node.

    Shows the graph (as `agv.draw(root, kind=kind, names=names, ...)` would),
    marks each node done, current, waiting (some gradient has arrived, not
    all) or untouched, and explains the current step: upstream × local
    derivative = what each input receives, paths adding up, broadcasting
    summed away. With quiz=True the learner predicts each step first.

    names: by default the caller's variables name the tensors they hold, and
    a model among them (or `model=`) names its parameters by path (`0.weight`),
    as in `agv.draw`; names= a mapping or (name, tensor) pairs instead;
    names=False turns that off. The rule: `agv.viz.names.resolve_names`.

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
    # every box's marks, {svg id: [arrives, runs, done]}: its state at each position (trace.state_class)
    timeline = traitlets.Dict().tag(sync=True)
    # a network stepped layer by layer: the layer boxes ({svg id: layer key}) a click opens, and
    # each layer's own view, its ops step by step ({key: {svg, frames, timeline, enter, leave, title}})
    modules = traitlets.Dict().tag(sync=True)
    details = traitlets.Dict().tag(sync=True)
    detail = traitlets.Unicode("").tag(sync=True)  # the open layer's key; "" for the layer view
    detail_position = traitlets.Int(0).tag(sync=True)

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
        names = resolve_names(names, draw_options.get("model"), roots=[root])
        self._tensors_reader = reader_for(root) or AUTOGRADVIZ
        # autogradviz's walk (widgets/trace.py), or another library's adapter recording one real backward
        self._steps, self._seed = self._tensors_reader.record_backward(root, gradient, names)
        self._namer = Namer([root], names, self._tensors_reader)
        self._root_node = self._tensors_reader.node(root)
        # "auto" lays it out to fit FIT_WIDTH_PX with 10 px text
        draw_options.setdefault("fit_width_px", FIT_WIDTH_PX)
        draw_options.setdefault("min_text_px", READABLE_PX)
        draw_options.setdefault("language", self._language)  # the picture's legend speaks as the panel
        self._draw = {"kind": kind, "names": names, **draw_options}
        self._final = {}  # node -> the gradient its step received (all paths summed)
        for step in self._steps:
            self._final.setdefault(step.node, step.upstream)
        self._rows = None  # the table's tensors, found once (_tensors)
        self._unlaid = {}  # the layers whose own picture is not laid out yet (_lay_out)
        self._applied = False
        self._last = len(self._steps)  # the last position: every step (or, by layers, every layer) has run
        # the walk in the order the positions run it (by layers: layer by layer), and how many of
        # its steps have run at each position
        self._ordered, self._ran = self._steps, list(range(len(self._steps) + 1))
        with remembered_rows():  # by layers, the graph is drawn once per layer: each heatmap made once
            self._view = draw(root, **self._draw)
            if self._view.layered:
                frames, timeline, modules, details = self._layer_views()
            else:
                frames, timeline = self._op_frames()
                modules, details = {}, {}
        # the widget's state goes to the browser as UTF-8: every string in it displayable()
        super().__init__(
            svg=_strip_xml_prolog(self._view.svg()),
            frames=payload(frames),
            timeline=timeline,
            modules=modules,
            details=payload(details),
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
            f'<div class="agv-stepper-static">{self._titled_picture(self.position)}'
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
        self._steps, self._namer, self._view, self._final, self._rows = [], None, None, {}, None
        self._unlaid = {}
        self._draw = {}  # its names= hold tensors
        self._ordered = []
        super().close()  # first the widget: its view must not see the emptied frames below
        for widget in self._made:
            widget.close()
        self._made = []
        # the synced state is text and numbers, no graph, but it can be megabytes for a big graph
        self.svg, self.frames, self.timeline, self.details, self.modules = "", [], {}, {}, {}

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
        """The last position: every step has run (by layers: every layer)."""
        self._check_open("last")
        return self._last

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
        ran = self._ran[self.position]  # steps run by this position (by layers: the layers' steps)
        return self._ordered[ran - 1] if ran else None

    def state(self) -> dict:
        """Each tensor of the graph that autogradviz can see (leaves, the root,
        tensors named in `names=`) mapped to its gradient so far: for a leaf,
        what its `.grad` will hold once written; for others, what has arrived."""
        self._check_open("state()")
        now = trace.state_at(self._ordered, self._ran[self.position], self._root_node, self._seed)
        result = {}
        for t, node in self._tensors():
            if node.variable is not None:
                value = now.leaf_grads.get(t)
            else:
                value = now.waiting.get(node, self._final_grad(node) if node in now.done else None)
            result[t] = None if value is None else tensor(np.asarray(value))
        return result

    def frame_svg(self, position: int | None = None, layer: str | None = None) -> str:
        """The picture at `position` (default: the current one), as SVG text
        that styles itself: the same restyling the widget does in the browser.
        layer: a layer's own view (a key of `details`), position counted in it."""
        if layer is None and position is None and self.detail:
            layer, position = self.detail, self.detail_position
        if layer is not None:
            layer = self._detail_key(layer, "frame_svg()")
            self._lay_out(layer)
            view = self.details[layer]
            position = self.detail_position if position is None else position
            if not isinstance(position, int) or not 0 <= position < len(view["frames"]):
                raise IndexError(f"frame_svg: position {position!r} is outside 0..{len(view['frames']) - 1}")
            return styled_svg(view["svg"], _classes(view["timeline"], position))
        position = self._frame_position(position, "frame_svg()")
        return styled_svg(self.svg, _classes(self.timeline, position))

    def step_into(self, layer: str | None = None) -> str:
        """Open a layer's own view, its ops step by step (default: the layer the
        current position offers, the one just run). Returns the layer's key."""
        self._check_open("step_into()")
        key = self.frames[self.position].get("into") if layer is None else layer
        key = self._detail_key(key, "step_into()")
        self.detail_position = 0
        self.detail = key
        return key

    def step_out(self) -> int:
        """Back to the layer view, at the position after the open layer's step."""
        self._check_open("step_out()")
        if not self.detail:
            raise RuntimeError("step_out: no layer is open; step_into() opens one")
        self.position = self.details[self.detail]["leave"]
        self.detail = ""
        return self.position

    def _detail_key(self, key, caller: str) -> str:
        """`key` as a key of `details` (which are displayable(), _layer_views), checked."""
        key = displayable(key) if isinstance(key, str) else key
        if key not in self.details:
            known = ", ".join(repr(k) for k in self.details) or "none: this stepper steps op by op"
            raise KeyError(f"{caller[:-2]}: {key!r} is not a layer of this stepper; its layers are {known}")
        return key

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
        self._lay_out(*self.details)  # the page has no kernel to lay out a layer when it is opened
        script = (_HERE / "stepper.js").read_text(encoding="utf-8")
        css = (_HERE / "stepper.css").read_text(encoding="utf-8")
        state = {
            "svg": self.svg,
            "frames": self.frames,
            "position": 0,
            "quiz": self.quiz,
            "labels": self.labels,
            "timeline": self.timeline,
            "modules": self.modules,
            "details": self.details,
            "detail": "",
            "detail_position": 0,
        }
        page = _PAGE.format(
            lang="zh-CN" if self._language == "zh" else "en",
            title=html.escape(displayable(self._text("stepper.page_title") if title is None else title)),
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
        """(tensor, the node whose gradient is that tensor's), leaves first: found
        once, as every frame's table lists them."""
        if self._rows is not None:
            return self._rows
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
        self._rows = out
        return out

    def _final_grad(self, node: GraphNode):
        return self._final.get(node)

    def _label(self, tensor_or_node) -> str:
        """A tensor's (or a node's tensor's) name in the panel and the table: cut to
        LABEL_COLUMNS, as in the picture (viz/user_text.py)."""
        if self._tensors_reader.is_tensor(tensor_or_node):
            return shortened(self._namer.name(tensor_or_node) or self._text("stepper.unnamed"))
        node = tensor_or_node
        if node.variable is not None:
            return shortened(self._namer.name(node.variable) or self._text("stepper.leaf"))
        return shortened(
            self._namer.name(self._namer.tensor_of(node), node) or self._text("stepper.output_of", op=node.op)
        )

    def _target_label(self, sent: trace.Sent) -> str:
        """The name of the input a step sends to, as the trace recorded it (the
        unnamed leaf's fallback "leaf" in the stepper's language), cut as _label's."""
        target = sent.target
        if target.variable is not None and not self._namer.name(target.variable):
            return self._text("stepper.leaf")
        return shortened(sent.target_name)

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

    def _op_frames(self) -> tuple[list[dict], dict]:
        """One frame per position of the walk, and the boxes' timeline: built in
        one pass, each position's state made from the one before."""
        marks = trace.timeline([[step] for step in self._steps], self._root_node)
        timeline = _box_marks(_svg_ids(self._view.boxes, self._tensors_reader), marks)
        frames = []
        states = trace.states(self._steps, self._root_node, self._seed)
        for position, now in enumerate(states):
            step = self._steps[position - 1] if position else None
            next_step = self._steps[position] if position < self.last else None
            frames.append(
                self._frame(self._title(position, step), self._panel(position, step), now, next_step)
            )
        return frames, timeline

    def _frame(self, title: str, panel: str, now: trace.State, next_step) -> dict:
        return {
            "title": title,
            "panel": panel,
            "table": self._table(now),
            "quiz": self._quiz(next_step) if next_step is not None else None,
        }

    def _layer_views(self) -> tuple[list[dict], dict, dict, dict]:
        """A network, layer by layer: the layer view's frames (one step per layer,
        trace.chunks), its timeline, the layer boxes a click opens, and for each
        layer its own view (the picture with that layer open, one frame per op).
        The steps are the engine's walk, grouped: no second backward."""
        layer_of = self._view.layer_of
        chunks = trace.chunks(self._steps, layer_of)
        self._last = len(chunks)
        ordered = [step for chunk in chunks for step in chunk.steps]  # the walk, layer by layer
        self._ordered = ordered
        self._ran = [0]
        for chunk in chunks:
            self._ran.append(self._ran[-1] + len(chunk.steps))
        top_marks = trace.timeline([chunk.steps for chunk in chunks], self._root_node)
        op_marks = trace.timeline([[step] for step in ordered], self._root_node)
        top_ids = _svg_ids(self._view.boxes, self._tensors_reader)
        timeline = _box_marks(top_ids, top_marks)
        # a layer's key is a module's path, the learner's text: the browser gets it displayable()
        modules = {svg_id: displayable(layer.key) for svg_id, layer in self._view.layers.items()}

        starts, position = [], 0  # where each chunk's steps begin in `ordered`
        for chunk in chunks:
            starts.append(position)
            position += len(chunk.steps)
        keys = {}  # chunk index -> its detail's key (a layer whose steps split in two gets "key~2")
        taken = set()
        for index, chunk in enumerate(chunks):
            if chunk.layer is not None:
                key, n = displayable(chunk.layer.key), 1
                while key in taken:
                    n += 1
                    key = f"{displayable(chunk.layer.key)}~{n}"
                keys[index] = key
                taken.add(key)
        begins = {start: index for index, start in enumerate(starts)}
        ends = {start + len(chunk.steps): index for index, (start, chunk) in enumerate(zip(starts, chunks))}
        frames: list[dict] = []
        details: dict[str, dict] = {}
        states = trace.states(ordered, self._root_node, self._seed)
        running = None  # the chunk whose steps are running at q
        for q, now in enumerate(states):
            if q in ends and ends[q] in keys:  # a layer's last frame: all its steps have run
                index = ends[q]
                self._detail_frame(details, chunks[index], keys[index], q - starts[index], now, None)
            if q in begins or q == len(ordered):
                j = begins.get(q, len(chunks))  # the layer view's position: j chunks have run
                into = keys.get(j - 1) if j else keys.get(0)
                frames.append(self._layer_frame(j, chunks, now, into))
            running = begins.get(q, running)
            if q < len(ordered) and running in keys:
                chunk, key = chunks[running], keys[running]
                if key not in details:
                    details[key] = self._detail(chunk, key, op_marks, starts[running], running)
                self._detail_frame(
                    details, chunk, key, q - starts[running], now, chunk.steps[q - starts[running]]
                )
        return frames, timeline, modules, details

    def _layer_frame(self, j: int, chunks: list, now: trace.State, into: str | None) -> dict:
        """The layer view after j layer steps: the title, the panel (what the layer
        just run received, sent and wrote), the table; no quiz (a layer's gradients
        are too big to type: its own view quizzes op by op)."""
        names = [self._chunk_name(chunk) for chunk in chunks]
        if j == 0:
            order = (
                names
                if len(names) <= 12
                else [*names[:6], self._text("stepper.panel.more", count=len(names) - 10), *names[-4:]]
            )
            title = self._text("stepper.title.layer_start", steps=len(chunks), ops=len(self._steps))
            start = self._text(
                "stepper.panel.start",
                root=html.escape(self._label(self._root)),
                seed=html.escape(preview(self._seed)),
            )
            order = " → ".join(html.escape(name) for name in order)
            panel = f"<p>{start}</p><p>{self._text('stepper.layer.order', order=order)}</p>"
        else:
            title = self._text("stepper.title.layer_step", position=j, last=len(chunks), name=names[j - 1])
            panel = self._layer_panel(chunks[j - 1], now)
        frame = self._frame(title, panel, now, None)
        frame["into"] = into
        return frame

    def _chunk_name(self, chunk: trace.Chunk) -> str:
        if chunk.layer is not None:
            return shortened(chunk.layer.label)
        ops = [step.op or step.name for step in chunk.steps if step.leaf is None]
        return ", ".join(reversed(dict.fromkeys(ops))) or chunk.steps[0].name  # in forward order

    def _layer_panel(self, chunk: trace.Chunk, now: trace.State) -> str:
        """One layer's backward step, as a whole: the gradient that arrived at its
        output, what it sent to its input, each parameter's gradient, and the
        layer's formulas in matrix form with the real shapes (layer_text.py)."""
        e = html.escape
        layer = chunk.layer
        ops = [step for step in chunk.steps if step.leaf is None]
        own = set(layer.nodes) if layer is not None else {step.node for step in chunk.steps}
        parts = [f'<p class="agv-node-name">{e(self._chunk_name(chunk))}</p>']
        output = next(
            (s for s in ops if layer is not None and s.node is layer.output), ops[0] if ops else None
        )
        y_shape = x_shape = None
        if output is not None:
            y_shape = tuple(np.shape(output.upstream))
            parts.append(
                f"<p>{self._text('stepper.layer.arrives', value=self._value_html(output.upstream))}</p>"
            )
        # a parameter is named by its place in the layer (`4.bias`), whatever variable holds it: a
        # notebook's `for name, p in net.named_parameters()` leaves `p` bound to the last one
        attribute = {id(p): name for name, p in layer.module.named_parameters()} if layer is not None else {}

        def parameter_name(leaf) -> str:
            if id(leaf) not in attribute:
                return self._label(leaf)
            return shortened(f"{layer.key}.{attribute[id(leaf)]}" if layer.key else attribute[id(leaf)])

        params = {}
        for step in ops:
            for sent in step.sent:
                if sent.target in own:
                    continue
                leaf = sent.target.variable
                if leaf is not None and id(leaf) in attribute:
                    # a parameter the module's calls share (an RNN's cell): this call's part of its gradient
                    name = parameter_name(leaf)
                    params[attribute[id(leaf)]] = tuple(np.shape(sent.value))
                    line = self._text(
                        "stepper.layer.param_share", name=e(name), value=self._value_html(sent.value)
                    )
                    parts.append(f"<p>{line}</p>")
                    continue
                x_shape = tuple(np.shape(sent.value))
                before = self._view.layer_of.get(sent.target)  # the layer that made this input
                target = e(
                    self._text("stepper.layer.output_of", layer=shortened(before.label))
                    if before is not None and sent.target is before.output
                    else self._target_label(sent)
                )
                parts.append(
                    f"<p>{self._text('stepper.layer.sends', target=target, value=self._value_html(sent.value))}</p>"
                )
        if layer is not None and x_shape is None:  # the first layer: its input is data
            parts.append(f"<p>{self._text('stepper.layer.no_input_grad')}</p>")
        for step in chunk.steps:
            if step.leaf is None:
                continue
            name = parameter_name(step.leaf)
            params[attribute.get(id(step.leaf), name)] = tuple(np.shape(step.leaf_after))
            parts.append(
                f"<p>{self._text('stepper.layer.param', name=e(name), value=self._value_html(step.upstream))}</p>"
            )
        module = layer.module if layer is not None else _loss_name(ops)
        if module is not None and y_shape is not None:
            lines = explain_layer(module, x_shape, y_shape, params, self._language)
            if lines:
                parts.append(
                    '<div class="agv-layer-math">' + "".join(f"<p>{line}</p>" for line in lines) + "</div>"
                )
        if layer is not None and len(ops) > 1:
            parts.append(
                f'<p class="agv-hint">{self._text("stepper.layer.into_hint", count=len(chunk.steps))}</p>'
            )
        return "".join(parts)

    def _value_html(self, array) -> str:
        """A gradient in a panel line: its numbers when small, else its shape and norm."""
        array = np.asarray(array)
        if array.size <= 6:
            return f"<code>{html.escape(preview(array))}</code>"
        return html.escape(self._value_text(array))

    def _value_text(self, array) -> str:
        """A gradient as plain text: its numbers (preview) when small, else its shape and norm."""
        array = np.asarray(array)
        if array.size <= 6:
            return preview(array)
        return self._text(
            "stepper.layer.big_value", shape=str(array.shape), norm=brief_number(l2_norm(array))
        )

    def _detail_frame(self, details: dict, chunk, key: str, k: int, now: trace.State, next_step) -> None:
        """Frame k of a layer's own view: k of its steps have run."""
        step = chunk.steps[k - 1] if k else None
        if step is None:
            title = self._text(
                "stepper.title.inside_start", layer=self._chunk_name(chunk), steps=len(chunk.steps)
            )
        else:
            title = self._text(
                "stepper.title.inside",
                layer=self._chunk_name(chunk),
                position=k,
                last=len(chunk.steps),
                name=shortened(step.name),
            )
        panel = self._panel(k, step) if step is not None else self._layer_panel(chunk, now)
        details[key]["frames"].append(self._frame(title, panel, now, next_step))

    def _detail(self, chunk: trace.Chunk, key: str, op_marks: dict, start: int, index: int) -> dict:
        """One layer's own view, its picture not yet laid out: a layout per layer
        would cost a VGG-11 stepper seconds, and a class opens a few layers. The
        picture is made when the layer is first opened (_lay_out), or for every
        layer by to_html(), whose page has no kernel to ask."""
        self._unlaid[key] = (chunk.layer.key, op_marks, start)
        return {
            "svg": "",
            "frames": [],
            "timeline": {},
            "enter": index,
            "leave": index + 1,
            "title": self._chunk_name(chunk),
        }

    def _lay_out(self, *keys: str) -> None:
        """Lay out the pictures of these layers' own views, where not done yet:
        the picture with that layer open, its marks counted from the layer's first op."""
        keys = [key for key in keys if key in self._unlaid]
        if not keys:
            return
        details = dict(self.details)
        with remembered_rows():
            for key in keys:
                layer, op_marks, start = self._unlaid.pop(key)
                view = draw(self._root, **{**self._draw, "layers": True, "expand": [layer]})
                marks = _box_marks(_svg_ids(view.boxes, self._tensors_reader), op_marks, shift=start)
                details[key] = {**details[key], "svg": _strip_xml_prolog(view.svg()), "timeline": marks}
        self.details = payload(details)  # a new dict: the browser hears of it

    @traitlets.observe("detail")
    def _opened(self, change) -> None:
        # the browser opened a layer (Step into, or a click on its box): its picture, if not made yet
        if change["new"] and not self._closed:
            self._lay_out(change["new"])

    def _title(self, position: int, step: trace.Step | None) -> str:
        if step is None:
            return self._text("stepper.title.start", steps=self.last)
        return self._text("stepper.title.step", position=position, last=self.last, name=shortened(step.name))

    def _panel(self, position: int, step: trace.Step | None) -> str:
        e = html.escape
        if step is None:
            names = [shortened(s.name) for s in self.steps]
            if len(names) > 12:  # a long walk would fill the panel: its ends say enough
                names = [*names[:6], self._text("stepper.panel.more", count=len(names) - 10), *names[-4:]]
            order = " → ".join(e(name) for name in names)
            start = self._text(
                "stepper.panel.start", root=e(self._label(self._root)), seed=e(preview(self._seed))
            )
            return f"<p>{start}</p><p>{self._text('stepper.panel.order', order=order)}</p>"
        parts = [
            f'<p class="agv-node-name">{self._text("stepper.panel.reverses", name=e(shortened(step.name)), op=e(step.op))}</p>',
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
            shown = "—" if value is None else self._value_text(value)
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
        hint = self._text(
            "stepper.quiz.hint", name=shortened(step.name), rules=rules, upstream=preview(step.upstream)
        )
        if step.leaf is not None:
            hint += self._text("stepper.quiz.hint_leaf")
            return {"targets": [], "prompts": [], "expected": [], "hint": hint}
        if any(np.size(s.value) > QUIZ_MAX_VALUES for s in step.sent):
            # a layer's gradient is too many numbers to type: the hint still says the rule
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


def _svg_ids(boxes, tensors) -> dict[str, list[GraphNode]]:
    """The backward nodes each drawn box stands for: its own node, or a layer's nodes."""
    ids: dict[str, list[GraphNode]] = {}
    for svg_id, box in boxes:
        ref = box.ref
        if isinstance(ref, Layer):
            ids[svg_id] = list(ref.nodes)
            continue
        node = tensors.node(ref) if tensors.is_tensor(ref) else ref
        if node is not None:
            ids.setdefault(svg_id, []).append(node)
    return ids


def _box_marks(ids: dict[str, list[GraphNode]], marks: dict, shift: int = 0) -> dict[str, list]:
    """Each box's [arrives, runs, done] positions (trace.state_class reads them) from its
    nodes' [arrives, runs]: the first arrival, the first run, one past the last run.
    `shift` counts positions from a layer's first step (a layer's own view)."""
    found = {}
    for svg_id, nodes in ids.items():
        known = [marks[node] for node in nodes if node in marks]
        if not known:
            continue
        ran = [runs for _, runs in known if runs is not None]
        arrives = min(arrives for arrives, _ in known) - shift
        runs = (min(ran) - shift) if ran else None
        done = (max(ran) + 1 - shift) if ran else None
        found[svg_id] = [arrives, runs, done]
    return found


def _loss_name(ops: list) -> str | None:
    """The loss a chunk of ops outside any module computes, for layer_text: log_softmax
    then nll_loss is cross-entropy."""
    names = {step.op for step in ops}
    if {"log_softmax", "nll_loss"} <= names:
        return "cross_entropy"
    for loss in ("mse_loss", "nll_loss", "cross_entropy"):
        if loss in names:
            return loss
    return None


def _strip_xml_prolog(svg: str) -> str:
    return svg[svg.index("<svg") :]


def _classes(timeline: Mapping[str, list[int]], position: int) -> dict[str, str]:
    """Each box's state at `position`, from its timeline marks (stepper.js does the same)."""
    found = {svg_id: trace.state_class(marks, position) for svg_id, marks in timeline.items()}
    return {svg_id: state for svg_id, state in found.items() if state}


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
