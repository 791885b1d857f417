"""agv.draw: golden DOT, well-formed SVG, safe labels, renderers, and what the
drawings say about the graph (issue 3).

Golden files live in tests/golden/; regenerate them with AGV_UPDATE_GOLDEN=1
(see tests/golden/README.md).
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import graphviz
import pytest

import autogradviz as agv
from autogradviz.viz import model as vizmodel
from autogradviz.viz import render

GOLDEN = Path(__file__).parent / "golden"
UPDATE_GOLDEN = os.environ.get("AGV_UPDATE_GOLDEN") == "1"
SVG = "{http://www.w3.org/2000/svg}"
HAS_DOT = shutil.which("dot") is not None
RENDERERS = [
    "graphviz-pure",
    pytest.param("dot", marks=pytest.mark.skipif(not HAS_DOT, reason="no system Graphviz `dot`")),
]


@pytest.fixture(autouse=True)
def default_renderer(monkeypatch):
    """Each test starts from the default renderer, whatever the shell set."""
    monkeypatch.delenv("AUTOGRADVIZ_RENDERER", raising=False)


@pytest.fixture(params=RENDERERS)
def renderer_name(request, monkeypatch) -> str:
    monkeypatch.setenv("AUTOGRADVIZ_RENDERER", request.param)
    return request.param


# -- graphs ------------------------------------------------------------------------------


def tutorial():
    """Issue 2's session 1, `y = w*x + b`, with fixed leaves instead of rand."""
    x = agv.ones(2, 2)
    w = agv.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
    b = agv.tensor([[0.1, 0.2], [0.3, 0.4]], requires_grad=True)
    y = w * x + b
    return {"x": x, "w": w, "b": b, "y": y}


def abd():
    """`e = (a*b)*d`, named by a locals()-like dict that also holds IPython's `_` names."""
    a = agv.tensor(2.0, requires_grad=True)
    b = agv.tensor(5.0, requires_grad=True)
    d = agv.tensor(4.0, requires_grad=True)
    e = (a * b) * d
    return {"_": e, "_1": a, "a": a, "b": b, "d": d, "e": e}


def broadcasting():
    W = agv.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    x = agv.tensor([1.0, 0.5, -1.0])
    b = agv.tensor([[0.5], [-0.5]], requires_grad=True)
    z = W * x + b  # (2,3) * (3,) + (2,1)
    loss = z.sum()
    return {"W": W, "x": x, "b": b, "z": z, "loss": loss}


def scalars_and_constant():
    """Python numbers in ops (`x * 0.9`, `** 2`, `2 / x`) and a constant tensor input."""
    x = agv.tensor([1.0, 2.0, 3.0], requires_grad=True)
    c = agv.tensor([10.0, 20.0, 30.0])
    y = ((x * 0.9 + c) ** 2).sum()
    r = 2 / x
    return {"x": x, "c": c, "y": y, "r": r}


def chain(n: int):
    x = agv.tensor(1.0, requires_grad=True)
    h = x
    for _ in range(n):
        h = h * 1.0001
    return x, h


# file stem: (graph, its roots, draw options, call backward first?). rankdir="LR" where the
# default, "auto", would turn a picture wider than a notebook top to bottom (test_draw_fit.py)
GOLDEN_CASES = {
    "tutorial_forward": (tutorial, ["y"], {}, False),
    "tutorial_backward": (tutorial, ["y"], {"kind": "backward"}, False),
    "tutorial_backward_saved": (tutorial, ["y"], {"kind": "backward", "show_saved": True}, False),
    "tutorial_both": (tutorial, ["y"], {"kind": "both", "rankdir": "LR"}, False),
    "tutorial_forward_after_backward": (tutorial, ["y"], {}, True),
    "tutorial_backward_after_backward": (tutorial, ["y"], {"kind": "backward"}, True),
    "abd_forward": (abd, ["e"], {}, False),
    "abd_backward_saved": (abd, ["e"], {"kind": "backward", "show_saved": True}, False),
    "broadcast_forward": (broadcasting, ["loss"], {}, False),
    "broadcast_backward_after_backward": (broadcasting, ["loss"], {"kind": "backward"}, True),
    "scalars_and_constant_forward": (scalars_and_constant, ["y", "r"], {"rankdir": "LR"}, False),
}


def golden_view(name: str):
    graph, roots, options, backward_first = GOLDEN_CASES[name]
    g = graph()
    if backward_first:
        g[roots[0]].backward(agv.ones_like(g[roots[0]]))
    return agv.draw(*[g[r] for r in roots], names=g, **options)


# -- helpers -------------------------------------------------------------------------------


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def texts(element: ET.Element) -> list[str]:
    return [t.text or "" for t in element.iter(SVG + "text")]


def boxes(root: ET.Element) -> dict[str, ET.Element]:
    """The drawn nodes by their id (`agv-...`, from the model)."""
    return {g.get("id"): g for g in root.iter(SVG + "g") if (g.get("id") or "").startswith("agv-")}


def box_texts(svg: str) -> dict[str, list[str]]:
    return {box_id: texts(g) for box_id, g in boxes(parse(svg)).items()}


def highlighted(view) -> set[str]:
    return {
        box_id.removeprefix("agv-")
        for box_id, g in boxes(parse(view.svg())).items()
        if "agv-highlight" in g.get("class", "").split()
    }


def by_title(model: vizmodel.Model) -> dict[str, vizmodel.Box]:
    return {box.title: box for box in model.boxes if box.title}


# -- 1. golden DOT and stable ids ---------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(GOLDEN_CASES))
def test_golden_dot(name):
    source = golden_view(name).source
    path = GOLDEN / f"{name}.dot"
    if UPDATE_GOLDEN:
        path.parent.mkdir(exist_ok=True)
        path.write_text(source, encoding="utf-8", newline="\n")
    assert path.exists(), f"{path} is missing: run AGV_UPDATE_GOLDEN=1 pytest tests/test_draw.py"
    assert source == path.read_text(encoding="utf-8"), (
        f"DOT differs from {path}; if the change is intended, regenerate with AGV_UPDATE_GOLDEN=1"
    )
    assert "0x" not in source


def test_golden_files_are_all_used():
    on_disk = {p.stem for p in GOLDEN.glob("*.dot")}
    assert on_disk == set(GOLDEN_CASES)


def test_same_graph_drawn_twice_gives_same_dot_and_svg():
    g = tutorial()
    first = agv.draw(g["y"], names=g, kind="both", show_saved=True)
    second = agv.draw(g["y"], names=g, kind="both", show_saved=True)
    assert first.source == second.source
    assert first.svg() == second.svg()


def test_same_graph_built_twice_gives_same_dot():
    g, g2 = tutorial(), tutorial()
    first = agv.draw(g["y"], names=g, kind="both", show_saved=True).source
    second = agv.draw(g2["y"], names=g2, kind="both", show_saved=True).source
    assert {id(t) for t in g.values()}.isdisjoint(id(t) for t in g2.values())  # other addresses
    assert first == second
    assert agv.draw(chain(30)[1]).source == agv.draw(chain(30)[1]).source


# -- 2. SVG ------------------------------------------------------------------------------------


def test_svg_is_well_formed_with_model_ids_and_no_banner(renderer_name):
    g = tutorial()
    view = agv.draw(g["y"], names=g, kind="both", show_saved=True)
    svg = view.svg()
    root = parse(svg)
    assert root.tag == SVG + "svg"
    expected_ids = set(re.findall(r'\bid="(agv-[^"]+)"', view.source))
    assert len(expected_ids) == view.nodes == 15  # 7 forward + 8 backward (1 saved: x, what w needs)
    assert set(boxes(root)) == expected_ids
    assert "Generated by" not in svg
    for comment in re.findall(r"<!--(.*?)-->", svg, re.S):
        assert "version" not in comment.lower() and "graphviz" not in comment.lower()


# -- 3. escaping -------------------------------------------------------------------------------

# (name, the text a reader sees): a newline breaks the line; characters XML cannot
# hold show as U+FFFD; a tab as a space
NASTY = [
    ('say "hi"', 'say "hi"'),
    ("<script>alert(1)</script>", "<script>alert(1)</script>"),
    ("{brace}", "{brace}"),
    ("a|b", "a|b"),
    ("back\\slash\\", "back\\slash\\"),
    ("\\N\\G\\L\\E\\T\\H\\n", "\\N\\G\\L\\E\\T\\H\\n"),  # Graphviz's own escapes stay text
    ("two\nlines", "twolines"),
    ("tab\there", "tab here"),
    ("&amp;", "&amp;"),
    ("&#60;b&#62;", "&#60;b&#62;"),
    ("<B>bold</B><BR/>", "<B>bold</B><BR/>"),
    ("]]>", "]]>"),
    ("nul\x00bell\x07cr\r", "nul\ufffdbell\ufffdcr\ufffd"),
    ("lone\ud800surrogate", "lone\ufffdsurrogate"),
    ("non\uffffchar", "non\ufffdchar"),
    ("emoji 😀🎉", "emoji 😀🎉"),
    ("中文名字：梯度", "中文名字：梯度"),
]


def _no_script(svg: str, source: str) -> None:
    assert "<script" not in source.lower()
    assert "<script" not in svg.lower()
    root = parse(svg)
    for element in root.iter():
        assert element.tag.rsplit("}", 1)[-1].lower() not in ("script", "foreignobject")
        assert not [k for k in element.attrib if k.lower().startswith("on")]


@pytest.mark.parametrize("name, visible", NASTY, ids=[repr(n)[1:-1][:24] for n, _ in NASTY])
def test_label_escaping(name, visible, renderer_name):
    leaf = agv.tensor([1.0, 2.0], requires_grad=True)
    mid = leaf * 2
    mid.name = "mid " + name  # through Tensor.name (kept on the node)
    out = mid.sum()
    for kind in ("forward", "backward"):
        view = agv.draw(out, names={name: leaf, "out": out}, kind=kind, show_saved=True)
        svg = view.svg()
        _no_script(svg, view.source)
        seen = {box_id: "".join(t) for box_id, t in box_texts(svg).items()}
        assert any(s.startswith(visible) for s in seen.values()), seen
        if kind == "forward":
            assert any(s.startswith("mid " + visible) for s in seen.values()), seen


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.data: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)

    handle_startendtag = handle_starttag

    def handle_data(self, data):
        self.data.append(data)


def test_all_nasty_names_in_one_picture_and_in_an_html_page():
    leaf = agv.tensor(1.0, requires_grad=True)
    names, h = {}, leaf
    for name, _ in NASTY:
        h = h * 2
        names[name] = h
    names["leaf <script>"] = leaf
    view = agv.draw(h, names=names, kind="both", show_saved=True)
    svg = view.svg()
    _no_script(svg, view.source)
    shown = "".join(texts(parse(svg)))
    for _, visible in NASTY:
        assert visible in shown

    page = f"<!DOCTYPE html><html><body><div>{svg}</div></body></html>"
    parser = _Tags()
    parser.feed(page)
    parser.close()
    assert "svg" in parser.tags and "text" in parser.tags
    assert "script" not in parser.tags
    assert "<script>alert(1)</script>" in "".join(parser.data)  # as text, not markup


# -- 4. renderers ------------------------------------------------------------------------------


def test_default_renderer_is_graphviz_pure():
    assert agv.viz.renderer() == "graphviz-pure"


@pytest.mark.skipif(not HAS_DOT, reason="no system Graphviz `dot`")
def test_forced_system_dot(monkeypatch):
    monkeypatch.setenv("AUTOGRADVIZ_RENDERER", "dot")
    assert agv.viz.renderer() == "dot"
    assert render._choose()[1] == shutil.which("dot")
    parse(agv.draw((g := tutorial())["y"], names=g).svg())


def test_graphviz_pure_found_with_empty_path(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    assert agv.viz.renderer() == "graphviz-pure"
    g = tutorial()
    svg = agv.draw(g["y"], names=g).svg()
    assert "w" in texts(parse(svg))
    monkeypatch.setenv("AUTOGRADVIZ_RENDERER", "dot")  # forced, but not there
    with pytest.raises(agv.viz.RendererError, match="pip install graphviz-pure"):
        agv.viz.renderer()


def test_invalid_renderer_names_the_choices(monkeypatch):
    monkeypatch.setenv("AUTOGRADVIZ_RENDERER", "cairo")
    with pytest.raises(agv.viz.RendererError) as error:
        agv.viz.renderer()
    assert "'cairo'" in str(error.value)
    assert "graphviz-pure" in str(error.value) and "dot" in str(error.value)


def test_no_renderer_error_says_how_to_fix(monkeypatch):
    for name in render.RENDERERS:
        monkeypatch.setitem(render._FINDERS, name, lambda: None)
    with pytest.raises(agv.viz.RendererError) as error:
        agv.viz.renderer()
    message = str(error.value)
    assert "pip install graphviz-pure" in message
    assert "conda" in message and "apt" in message
    view = agv.draw(tutorial()["y"])
    assert view.source.startswith("digraph")  # the DOT needs no renderer
    with pytest.raises(agv.viz.RendererError, match="pip install graphviz-pure"):
        view.svg()


@pytest.mark.skipif(sys.platform == "win32", reason="a shell script stands in for a broken dot")
def test_renderer_that_fails_reports_its_message(monkeypatch, tmp_path):
    fake = tmp_path / "dot"
    fake.write_text("#!/bin/sh\necho 'Error: syntax error in line 1' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("AUTOGRADVIZ_RENDERER", "dot")
    with pytest.raises(agv.viz.RendererError, match="dot could not render this graph: Error: syntax"):
        agv.draw(tutorial()["y"]).svg()


def test_every_renderer_shows_the_same_labels(renderer_name, monkeypatch):
    g = tutorial()
    g["y"].backward(agv.ones(2, 2), retain_graph=True)
    svg = agv.draw(g["y"], names=g, kind="both", show_saved=True).svg()
    assert renderer_name == agv.viz.renderer()
    monkeypatch.delenv("AUTOGRADVIZ_RENDERER")
    reference = agv.draw(g["y"], names=g, kind="both", show_saved=True).svg()
    assert box_texts(svg) == box_texts(reference)
    assert Counter(texts(parse(svg))) == Counter(texts(parse(reference)))
    assert "grad [[1., 1.]," in texts(parse(svg))


# -- 5. the notebook display ---------------------------------------------------------------------


def test_mimebundle():
    g = tutorial()
    # 3 leaves (w, x, b) + 2 ops (*, +) + 1 intermediate (w*x) + 1 root (y); 2 + 2 + 2 arrows
    view = agv.draw(g["y"], names=g)
    bundle = view._repr_mimebundle_()
    assert set(bundle) == {"text/html", "image/svg+xml", "text/plain"}  # text/html: tests/test_draw_fit.py
    assert bundle["text/plain"] == "<autogradviz graph: 7 nodes, 6 edges (forward)>"
    assert bundle["image/svg+xml"] == view.svg()
    parse(bundle["image/svg+xml"])
    # backward: root y, AddBackward0, MulBackward0, 2 AccumulateGrad and their leaves w, b
    backward = agv.draw(g["y"], kind="backward")
    assert repr(backward) == "<autogradviz graph: 7 nodes, 6 edges (backward)>"
    both = agv.draw(g["y"], kind="both", show_saved=True)
    assert both.summary() == "<autogradviz graph: 15 nodes, 13 edges (both)>"  # + 1 saved (x), 1 dashed
    for v in (view, backward, both):
        assert "0x" not in v._repr_mimebundle_()["text/plain"] and "0x" not in repr(v)


# -- 6. what the model says -----------------------------------------------------------------------


def test_forward_box_kinds_and_arrows():
    g = tutorial()
    m = vizmodel.forward_model([g["y"]], g)
    kinds = Counter(box.kind for box in m.boxes)
    assert kinds == {"param": 2, "input": 1, "tensor": 1, "root": 1, "op": 2}
    named = by_title(m)
    assert (named["w"].kind, named["b"].kind, named["x"].kind, named["y"].kind) == (
        "param",
        "param",
        "input",
        "root",
    )
    assert (named["*"].kind, named["+"].kind) == ("op", "op")
    arrows = {(a.tail, a.head) for a in m.arrows}
    mul, add, y = named["*"].id, named["+"].id, named["y"].id
    (mid,) = [b.id for b in m.boxes if b.kind == "tensor"]
    assert arrows == {
        (named["w"].id, mul),
        (named["x"].id, mul),
        (mul, mid),
        (mid, add),
        (named["b"].id, add),
        (add, y),
    }
    assert named["y"].ref is g["y"] and named["w"].ref is g["w"]


def test_names_skip_underscore_names_and_keep_the_first():
    g = abd()
    assert vizmodel.collect_names(g) == {id(g["e"]): "e", id(g["a"]): "a", id(g["b"]): "b", id(g["d"]): "d"}
    only_ipython = {"_": g["e"], "_3": g["e"], "Out": {1: g["e"]}}
    m = vizmodel.forward_model([g["e"]], only_ipython)
    assert not [box.title for box in m.boxes if box.kind != "op" and box.title]
    assert vizmodel.collect_names({"first": g["a"], "second": g["a"]}) == {id(g["a"]): "first"}
    # a name given by names= wins over Tensor.name
    g["a"].name = "from .name"
    assert by_title(vizmodel.forward_model([g["e"]], {"e": g["e"]}))["from .name"].ref is g["a"]
    assert "from .name" not in by_title(vizmodel.forward_model([g["e"]], g))


def test_backward_view_follows_next_functions():
    g = abd()
    m = vizmodel.backward_model([g["e"]], g)
    by_id = {box.id: box for box in m.boxes}
    children: dict[str, list[str]] = {}
    for arrow in m.arrows:
        children.setdefault(arrow.tail, []).append(arrow.head)

    def check(node, box_id):
        box = by_id[box_id]
        assert box.ref is node and box.title == node.name()
        expected = [fn for fn, _ in node.next_functions if fn is not None]
        got = [by_id[c] for c in children.get(box_id, []) if by_id[c].kind != "param"]
        assert [b.title for b in got] == [fn.name() for fn in expected]
        for fn, child in zip(expected, got):
            check(fn, child.id)
        if type(node).__name__ == "AccumulateGrad":
            (leaf,) = [by_id[c] for c in children[box_id]]
            assert leaf.kind == "param" and leaf.ref is node.variable

    (root,) = [b for b in m.boxes if b.kind == "root"]
    assert root.ref is g["e"] and root.title == "e"
    (start,) = children[root.id]
    check(g["e"].grad_fn, start)
    titles = Counter(b.title for b in m.boxes if b.kind in ("grad_fn", "accumulate"))
    assert titles == {"MulBackward0": 2, "AccumulateGrad": 3}
    assert by_title(vizmodel.backward_model([tutorial()["y"]], None)).keys() >= {
        "AddBackward0",
        "MulBackward0",
        "AccumulateGrad",
    }


def test_show_saved_adds_saved_boxes():
    g = abd()
    plain = vizmodel.backward_model([g["e"]], g)
    saved = vizmodel.backward_model([g["e"]], g, show_saved=True)
    extra = [b for b in saved.boxes if b.kind == "saved"]
    # the inner * saved a and b; the outer * saved (a*b), which has no name, and d
    assert sorted(b.title for b in extra) == ["saved a", "saved b", "saved d", "saved self"]
    assert len(saved.boxes) == len(plain.boxes) + 4
    by_id = {b.id: b for b in saved.boxes}
    target = {by_id[a.tail].title: by_id[a.head] for a in saved.arrows if a.style == "saved"}
    assert len(target) == 4 and {box.title for box in target.values()} == {"MulBackward0"}
    inner, outer = g["e"].grad_fn.next_functions[0][0], g["e"].grad_fn
    assert target["saved a"].ref is target["saved b"].ref is inner
    assert target["saved self"].ref is target["saved d"].ref is outer
    assert by_title(saved)["saved self"].data == "10"  # a*b
    assert 'class="agv-node agv-saved"' in agv.draw(g["e"], kind="backward", show_saved=True).source
    assert 'class="agv-node agv-saved"' not in agv.draw(g["e"], kind="backward").source


def test_highlight():
    g = tutorial()
    y, w, b = g["y"], g["w"], g["b"]
    add = y.grad_fn
    mul = add.next_functions[0][0]
    acc_w = mul.next_functions[0][0]
    assert type(acc_w).__name__ == "AccumulateGrad" and acc_w.variable is w
    fwd = by_title(vizmodel.forward_model([y], g))
    bwd = vizmodel.backward_model([y], g)
    bwd_of = {(b_.kind, id(b_.ref)): b_.id for b_ in bwd.boxes}

    assert highlighted(agv.draw(y, names=g, highlight=[y])) == {fwd["y"].id}
    assert highlighted(agv.draw(y, names=g, highlight=[add])) == {fwd["+"].id}
    assert highlighted(agv.draw(y, names=g, highlight=[acc_w])) == {fwd["w"].id}
    assert highlighted(agv.draw(y, names=g, highlight=[b, mul])) == {fwd["b"].id, fwd["*"].id}
    # an intermediate the learner holds but did not pass: the drawing finds it through its grad_fn
    u = w * g["x"]
    v = u + b
    (mid,) = [box.id for box in vizmodel.forward_model([v], None).boxes if box.kind == "tensor"]
    assert highlighted(agv.draw(v, highlight=[u])) == {mid}

    assert highlighted(agv.draw(y, names=g, kind="backward", highlight=[add])) == {bwd_of["grad_fn", id(add)]}
    assert highlighted(agv.draw(y, names=g, kind="backward", highlight=[acc_w])) == {
        bwd_of["accumulate", id(acc_w)],
        bwd_of["param", id(w)],
    }
    assert highlighted(agv.draw(y, names=g, kind="backward", highlight=[y])) == {bwd_of["root", id(y)]}
    both = highlighted(agv.draw(y, names=g, kind="both", highlight=[acc_w]))
    assert both == {"f_" + fwd["w"].id, "b_" + bwd_of["accumulate", id(acc_w)], "b_" + bwd_of["param", id(w)]}
    assert highlighted(agv.draw(y, names=g)) == set()
    # one tensor or node needs no list (a tensor would otherwise iterate over its rows)
    assert highlighted(agv.draw(y, names=g, highlight=w)) == {fwd["w"].id}
    assert highlighted(agv.draw(y, names=g, highlight=add)) == {fwd["+"].id}


def test_max_nodes_elides_the_middle():
    _, h = chain(2000)
    view = agv.draw(h, max_nodes=50)
    total = 1 + 2 * 2000  # the leaf, then an op and its output per step
    assert view.nodes <= 51
    assert view.hidden == total - 50
    svg = view.svg()
    (placeholder,) = [g for g in boxes(parse(svg)).values() if "agv-hidden" in g.get("class", "")]
    label = "".join(texts(placeholder))
    assert f"{total - 50:,}" in label and "hidden" in label
    assert (
        view.summary()
        == f"<autogradviz graph: 51 nodes, {view.edges} edges (forward), {total - 50:,} hidden>"
    )
    # the placeholder is joined by arrows to both kept ends
    assert re.search(r"\s\w+ -> hidden\n", view.source) and re.search(r"\shidden -> \w+\n", view.source)

    backward = agv.draw(h, kind="backward", max_nodes=50)
    assert backward.nodes <= 51 and backward.hidden == (2000 + 3) - 50  # + root, AccumulateGrad, leaf
    assert agv.draw(h, max_nodes=10_000).hidden == 0


def _layer(node) -> str | None:
    return {"*": "layer 1", "exp": "layer 1", "+": "layer 2", "sum": "layer 2"}.get(node.op)


def _grouped():
    w = agv.tensor([1.0, 2.0], requires_grad=True)
    a = (w * 2).exp()
    loss = (a + 1).sum()
    return {"w": w, "a": a, "loss": loss}


def test_group_puts_ops_in_clusters():
    g = _grouped()
    view = agv.draw(g["loss"], names=g, group=_layer)
    clusters = re.findall(
        r"subgraph (cluster_\w+) \{\n\t\tcolor=\S+ fontsize=11 label=<([^>]*)>", view.source
    )
    assert [label for _, label in clusters] == ["layer 1", "layer 2"]
    first = view.source.split("subgraph cluster_0")[1].split("}")[0]
    assert "label=<<TABLE" in first and "<B>* 2</B>" in first and "<B>exp</B>" in first
    assert "<B>sum</B>" not in first
    parse(view.svg())


def test_collapse_gives_one_box_per_group():
    g = _grouped()
    m = vizmodel.collapse(vizmodel.forward_model([g["loss"]], g, _layer))
    # the output (root) is never hidden inside a group: it stays its own box, after layer 2
    assert [b.title for b in m.boxes] == ["w", "layer 1", "layer 2", "loss"]
    assert [(a.tail, a.head) for a in m.arrows] == [("t0", "g0"), ("g0", "g1"), ("g1", "t4")]
    view = agv.draw(g["loss"], names=g, group=_layer, collapse=True)
    assert view.nodes == 4 and view.edges == 3
    assert "cluster_" not in view.source
    shown = box_texts(view.svg())
    assert shown["agv-g0"][0] == "layer 1" and shown["agv-g1"][0] == "layer 2"


def test_show_data_grad_shape_and_legend_switches():
    g = tutorial()
    g["y"].backward(agv.ones(2, 2), retain_graph=True)

    def rows(**kw):
        return [t for ts in box_texts(agv.draw(g["y"], names=g, **kw).svg()).values() for t in ts]

    full = rows()
    assert any(t.startswith("data ") for t in full)
    assert any(t.startswith("grad ") for t in full)
    assert "(2, 2) float32" in full
    assert not any(t.startswith("data ") for t in rows(show_data=False))
    assert not any(t.startswith("grad ") for t in rows(show_grad=False))
    assert "(2, 2) float32" not in rows(show_shape=False)
    assert any(t.startswith("grad ") for t in rows(show_data=False, show_shape=False))

    legend_words = "parameter (leaf, requires grad)"
    with_legend = agv.draw(g["y"], names=g)
    assert legend_words in texts(parse(with_legend.svg()))
    without = agv.draw(g["y"], names=g, legend=False)
    assert legend_words not in without.source and legend_words not in texts(parse(without.svg()))
    assert "AccumulateGrad: writes .grad" in agv.draw(g["y"], kind="backward").source


def test_backward_frees_intermediate_values_but_not_held_tensors():
    kept = tutorial()
    kept["y"].backward(agv.ones(2, 2), retain_graph=True)
    freed = tutorial()
    freed["y"].backward(agv.ones(2, 2))

    def rows(g):
        return {b.kind: (b.shape, b.data, b.grad) for b in vizmodel.forward_model([g["y"]], g).boxes}

    assert rows(kept)["tensor"] == ("(2, 2) float32", "[[ 0.50, -1.00],\n [ 2.00,  0.25]]", None)
    # the node still knows the freed value's shape and dtype: w * x of two (2, 2) float32 tensors
    assert rows(freed)["tensor"] == ("(2, 2) float32", "(value not kept)", None)
    # y itself still holds its values: only the node's copy was freed
    assert rows(freed)["root"] == rows(kept)["root"]
    assert rows(freed)["root"][1] == "[[ 0.60, -0.80],\n [ 2.30,  0.65]]"
    assert "data (value not kept)" in texts(parse(agv.draw(freed["y"], names=freed).svg()))
    # the saved values are gone too: the backward view still draws, without them
    view = agv.draw(freed["y"], names=freed, kind="both", show_saved=True)
    assert "agv-saved" not in view.source and view.nodes == 14
    parse(view.svg())


def test_scalar_operands_are_shown_on_their_side():
    x = agv.tensor([1.0, 2.0], requires_grad=True)
    ops = {
        "x * 0.9": x * 0.9,
        "2 / x": 2 / x,
        "x / 2": x / 2,
        "x - 2": x - 2,
        "x ** 2": x**2,
        "3 + x": 3 + x,
    }
    titles = {
        k: [b.title for b in vizmodel.forward_model([v], None).boxes if b.kind == "op"]
        for k, v in ops.items()
    }
    assert titles == {
        "x * 0.9": ["* 0.9"],
        "2 / x": ["reciprocal", "2 *"],  # PyTorch computes 2 / x as x.reciprocal() * 2
        "x / 2": ["/ 2"],
        "x - 2": ["- 2"],
        "x ** 2": ["** 2"],
        "3 + x": ["3 +"],
    }
    c = agv.tensor([5.0, 6.0])
    m = vizmodel.forward_model([c / x], {"c": c})
    assert by_title(m)["c"].kind == "input" and by_title(m)["/"].kind == "op"


def test_both_has_two_clusters_side_by_side():
    g = tutorial()
    view = agv.draw(g["y"], names=g, kind="both")
    assert "subgraph cluster_forward {" in view.source and "subgraph cluster_backward {" in view.source
    assert re.search(r"f_t\d+ -> b_r0 \[style=invis weight=10\]", view.source)
    ids = set(boxes(parse(view.svg())))
    assert {i[:6] for i in ids} == {"agv-f_", "agv-b_"}
    assert view.kind == "both" and view.nodes == 14


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda y: agv.draw(), TypeError, "at least one tensor"),
        (lambda y: agv.draw([]), TypeError, "at least one tensor"),
        (lambda y: agv.draw(3.0), TypeError, "got float"),
        (lambda y: agv.draw(y, y.detach().numpy()), TypeError, "got ndarray"),
        (lambda y: agv.draw(y, kind="sideways"), ValueError, "kind must be one of forward, backward, both"),
        (lambda y: agv.draw(y, rankdir="XY"), ValueError, "rankdir must be auto, LR, RL, TB or BT"),
    ],
)
def test_draw_errors(call, error, match):
    with pytest.raises(error, match=match):
        call(tutorial()["y"])


def test_draws_several_roots_and_lone_tensors():
    g = scalars_and_constant()
    view = agv.draw([g["y"], g["r"]], names=g)
    assert [b.title for b in vizmodel.forward_model([g["y"], g["r"]], g).boxes if b.kind == "root"] == [
        "y",
        "r",
    ]
    assert view.source == agv.draw(g["y"], g["r"], names=g).source
    lone = agv.draw(agv.tensor([1.0, 2.0]), names=None)
    assert lone.nodes == 1 and lone.edges == 0
    parse(lone.svg())


# -- 7. saving ---------------------------------------------------------------------------------


def test_save(tmp_path):
    g = tutorial()
    view = agv.draw(g["y"], names=g)
    assert isinstance(view.digraph, graphviz.Digraph)
    svg_path = view.save(tmp_path / "graph.svg")
    assert svg_path == tmp_path / "graph.svg"
    assert svg_path.read_text(encoding="utf-8") == view.svg()
    png = view.save(str(tmp_path / "graph.PNG")).read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 1000
    assert view.save(tmp_path / "graph.dot").read_text(encoding="utf-8") == view.source
    assert view.save(tmp_path / "graph.gv").read_text(encoding="utf-8") == view.source
    with pytest.raises(ValueError, match="unknown file type '.pdf'"):
        view.save(tmp_path / "graph.pdf")
    with pytest.raises(ValueError, match="unknown file type ''"):
        view.save(tmp_path / "graph")


# -- 8. wide characters ------------------------------------------------------------------------


def _width(shape: ET.Element) -> float:
    """Width of a node's outline, from its path data or polygon points."""
    coords = shape.get("d") or shape.get("points")
    xs = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", coords)][0::2]
    return max(xs) - min(xs)


def test_chinese_labels_get_wide_enough_boxes(renderer_name):
    name = "这是一个很长的中文张量名字用来检查方框宽度"
    x = agv.tensor(1.0, requires_grad=True)
    y = x * 2
    view = agv.draw(y, names={name: x, "结果": y})
    root = parse(view.svg())
    (box,) = [g for g in boxes(root).values() if name in texts(g)]
    outline = box.find(SVG + "path")
    if outline is None:
        outline = box.find(SVG + "polygon")
    assert _width(outline) >= len(name) * 12 * 0.95
    assert texts(box)[0] == name


def test_a_leaf_used_many_times_gets_small_copies_instead_of_long_arrows():
    w = agv.tensor([0.5, 2.0])
    y = agv.tensor([1.0, 1.0], requires_grad=True)
    for _ in range(10):
        y = (y * w).sin()
    source = agv.draw(y, names={"w": w}, max_nodes=1000).source
    assert source.count("used 10 times") == 1  # the original box says how often it is used
    assert source.count("(the same tensor)") == 9  # one small copy per further use
    tails = [line.split("->")[0].strip() for line in source.splitlines() if "->" in line]
    assert max(tails.count(t) for t in set(tails)) <= 6  # no box sends more than max_uses arrows


def test_show_saved_draws_saved_values_that_are_not_inputs():
    # conv2d keeps its im2col columns and where its condition: neither is an input,
    # and drawing them once crashed
    conv = agv.nn.Conv2d(1, 2, 3)
    x = agv.randn(1, 1, 5, 5)
    cond = agv.tensor([True, False])
    w = agv.ones(2, requires_grad=True)
    loss = conv(x).sum() + agv.where(cond, w, 0.0).sum()
    view = agv.draw(loss, kind="backward", show_saved=True)
    assert "saved value" in view.source
    assert "ConvolutionBackward0" in view.source and "WhereBackward0" in view.source
