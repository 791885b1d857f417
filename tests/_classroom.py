"""The classroom instrument (issue 13): open every lesson in JupyterLab as a teacher
would, run it, and measure what the class sees.

For every drawing (a Graphviz SVG that agv.draw or a stepper frame put in an output)
and every stepper (the `.agv-stepper` anywidget view) it records

- whether it overflows its output area horizontally (cut off, or only reachable by
  scrolling sideways), and whether a zoom/fit button sits next to it;
- the smallest rendered font size in CSS px: an SVG <text>'s computed font-size in
  user units times the scale its screen CTM applies (viewBox, Graphviz's own
  `transform=scale(...)`, CSS sizing); an HTML element's computed font-size.

Used by tests/test_classroom_browser.py, and runnable by hand to measure another copy
of the lessons (for "before" and "after" figures):

    .venv/bin/python tests/_classroom.py --notebooks /tmp/notebooks_before --out /tmp/before
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, ROOT, jupyter_lab  # noqa: E402

OUTPUT_DIR = ARTIFACTS / "classroom"
# what the issue asks of a lesson: the teacher's laptop with the file browser open, and a smaller one
WIDE = (1280, 800)
NARROW = (1024, 768)
MIN_DRAWING_PX = 8.0
MIN_STEPPER_PX = 10.0

# the notebook renders every cell (no windowing), so that off-screen outputs are in the DOM
# and have a layout to measure; windowing changes nothing about widths
LAB_SETTINGS = {"@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"}}

# JavaScript run in the page --------------------------------------------------------------

OPEN_FILE_BROWSER = """async () => {
  const app = window.jupyterapp;
  app.shell.activateById('filebrowser');
  await new Promise((r) => setTimeout(r, 300));
  const panel = document.querySelector('#filebrowser');
  return panel ? Math.round(panel.getBoundingClientRect().width) : 0;
}"""

KERNEL_IDLE = """() => {
  const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
  return !!k && k.status === 'idle';
}"""

# what is still missing after Run All: the kernel's status, code cells with no execution
# count yet, widget views that have not been drawn (an empty list each when all is done)
PENDING = """() => {
  const panel = window.jupyterapp.shell.currentWidget;
  const k = panel.sessionContext.session && panel.sessionContext.session.kernel;
  const cells = [];
  panel.content.widgets.forEach((c, index) => {
    if (c.model.type === 'code' && c.model.sharedModel.getSource().trim() !== '' && c.model.executionCount === null)
      cells.push(index);
  });
  const views = [];
  panel.node.querySelectorAll(
      ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.widget-view+json']").forEach((out) => {
    if (out.getBoundingClientRect().height < 2) views.push([...panel.node.querySelectorAll('.jp-Cell')].indexOf(out.closest('.jp-Cell')));
  });
  return {kernel: k ? k.status : 'no kernel', cells, views};
}"""
ALL_CELLS_RUN = (
    "() => { const p = ("
    + PENDING
    + ")(); return p.kernel === 'idle' && p.cells.length === 0 && p.views.length === 0; }"
)

# tracebacks in outputs of cells that are not tagged raises-exception
UNEXPECTED_ERRORS = """() => {
  const panel = window.jupyterapp.shell.currentWidget;
  const errors = [];
  panel.content.widgets.forEach((cell, index) => {
    if (cell.model.type !== 'code') return;
    const tags = cell.model.getMetadata('tags') || [];
    if (tags.includes('raises-exception')) return;
    for (let i = 0; i < cell.model.outputs.length; i++) {
      const out = cell.model.outputs.get(i).toJSON();
      if (out.output_type === 'error') errors.push(`cell ${index}: ${out.ename}: ${out.evalue}`);
    }
  });
  return errors;
}"""

SHUTDOWN_KERNEL = """() => window.jupyterapp.shell.currentWidget.sessionContext.shutdown()"""

# how big text is on screen; shared by MEASURE and the test that checks the formula
TEXT_PX = r"""
  const visible = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';

  // the scale an element's screen CTM applies to its user units (uniform for these drawings)
  const ctmScale = (el) => { const m = el.getScreenCTM(); return Math.sqrt(Math.abs(m.a * m.d - m.b * m.c)); };
  const textPx = (t) => parseFloat(getComputedStyle(t).fontSize) * ctmScale(t);

  // smallest rendered <text> of an inline SVG: computed font-size (user units) x CTM scale
  const smallestSvgText = (svg) => {
    let best = null;
    for (const t of svg.querySelectorAll('text')) {
      const label = t.textContent.trim();
      if (!label || !visible(t)) continue;
      const px = textPx(t);
      if (!best || px < best.px) best = {px, label};
    }
    return best;
  };

  // the SVG text of an <img src="data:image/svg+xml[;base64],...">
  const svgSource = (img) => {
    const comma = img.src.indexOf(',');
    const body = img.src.slice(comma + 1);
    if (!img.src.slice(0, comma).endsWith(';base64')) return decodeURIComponent(body);
    return new TextDecoder().decode(Uint8Array.from(atob(body), (c) => c.charCodeAt(0)));
  };

  // an <img> SVG has no DOM to measure: lay its source out inline, hidden, at the img's size
  const smallestImgText = (img) => {
    const source = svgSource(img);
    const doc = new DOMParser().parseFromString(source, 'image/svg+xml');
    const svg = document.importNode(doc.documentElement, true);
    const rect = img.getBoundingClientRect();
    const host = document.createElement('div');
    host.style.cssText = 'position:fixed;left:0;top:0;visibility:hidden;pointer-events:none';
    svg.setAttribute('width', rect.width + 'px');
    svg.setAttribute('height', rect.height + 'px');
    host.appendChild(svg);
    document.body.appendChild(host);
    // visibility:hidden on the host would hide the texts from visible(): measure them directly
    let best = null;
    for (const t of svg.querySelectorAll('text')) {
      const label = t.textContent.trim();
      if (!label) continue;
      const px = textPx(t);
      if (!best || px < best.px) best = {px, label};
    }
    host.remove();
    return best;
  };
"""

# measure(scope): scope = {root, area} CSS selectors, both optional: the page part to look in
# (default: JupyterLab's or Notebook 7's current notebook) and what counts as a drawing's
# output area (default: a Jupyter output; a standalone page or Voila passes its own)
MEASURE = (
    r"""(scope) => {
  const rootSelector = scope && scope.root, areaSelector = (scope && scope.area) || '.jp-OutputArea-output';
  const panel = {node: rootSelector ? document.querySelector(rootSelector) : window.jupyterapp.shell.currentWidget.node};
  const cells = [...panel.node.querySelectorAll('.jp-Cell')];
  const where = (el) => cells.indexOf(el.closest('.jp-Cell'));
"""
    + TEXT_PX
    + r"""

  // does el reach past its output area's content box, or scroll inside it?
  const overflow = (el, area) => {
    const a = area.getBoundingClientRect();
    const right = a.left + area.clientLeft + area.clientWidth;
    let worst = el.getBoundingClientRect().right - right;
    for (let n = el; n && n !== area.parentElement; n = n.parentElement) {
      if (n.nodeType !== 1) continue;
      const ox = getComputedStyle(n).overflowX;
      if (ox !== 'visible' && n.scrollWidth > n.clientWidth + 1)
        worst = Math.max(worst, n.scrollWidth - n.clientWidth);
    }
    return Math.max(0, Math.round(worst));
  };
  const hasZoomControl = (area) =>
    [...area.querySelectorAll('button, [role=button]')].some(visible);

  const drawings = [];
  const isDrawingSvg = (svg) => svg.querySelector('g.graph') !== null;
  for (const area of panel.node.querySelectorAll(areaSelector)) {
    if (area.closest('.agv-stepper') || area.querySelector('.agv-stepper')) continue;
    for (const svg of area.querySelectorAll('svg')) {
      if (!isDrawingSvg(svg) || !visible(svg) || svg.closest('.agv-stepper')) continue;
      const r = svg.getBoundingClientRect();
      drawings.push({cell: where(svg), form: 'inline svg', width: Math.round(r.width),
        area: area.clientWidth, overflow: overflow(svg, area), zoom: hasZoomControl(area),
        smallest: smallestSvgText(svg)});
    }
    for (const img of area.querySelectorAll("img[src^='data:image/svg+xml']")) {
      if (!visible(img)) continue;
      if (!svgSource(img).includes('class="graph"')) continue;  // Graphviz's; not a plot
      const r = img.getBoundingClientRect();
      drawings.push({cell: where(img), form: 'img', width: Math.round(r.width),
        area: area.clientWidth, overflow: overflow(img, area), zoom: hasZoomControl(area),
        smallest: smallestImgText(img)});
    }
  }

  const steppers = [];
  for (const stepper of panel.node.querySelectorAll('.agv-stepper')) {
    if (!visible(stepper)) continue;
    const area = stepper.closest(areaSelector) || stepper.parentElement;
    let picture = null, panelText = null;
    for (const t of stepper.querySelectorAll('svg text')) {
      const label = t.textContent.trim();
      if (!label || !visible(t)) continue;
      const px = textPx(t);
      if (!picture || px < picture.px) picture = {px, label};
    }
    for (const el of stepper.querySelectorAll('*')) {
      if (el instanceof SVGElement || !visible(el)) continue;
      const own = [...el.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent).join('').trim();
      const isControl = ['BUTTON', 'INPUT', 'SELECT'].includes(el.tagName);
      if (!own && !isControl) continue;
      const px = parseFloat(getComputedStyle(el).fontSize);
      const label = own || el.value || el.tagName.toLowerCase();
      if (!panelText || px < panelText.px) panelText = {px, label};
    }
    const r = stepper.getBoundingClientRect();
    const svg = stepper.querySelector('svg');
    // inside the stepper too: a clipped or sideways-scrolling part (the legend, the controls) is
    // cut off. The picture itself pans, with its zoom and fit buttons (issue 24): it may scroll,
    // so long as those are there
    const pans = [...stepper.querySelectorAll('.agv-zoom-fit')].some(visible);
    let inner = 0;
    for (const el of [stepper, ...stepper.querySelectorAll('*')]) {
      if (el instanceof SVGElement || !visible(el)) continue;
      if (pans && el.classList.contains('agv-picture')) continue;
      if (getComputedStyle(el).overflowX !== 'visible' && el.scrollWidth > el.clientWidth + 1)
        inner = Math.max(inner, el.scrollWidth - el.clientWidth);
    }
    if (svg && !pans) inner = Math.max(inner, svg.getBoundingClientRect().right - r.right);
    steppers.push({cell: where(stepper), width: Math.round(r.width), area: area.clientWidth,
      picture_width: svg ? Math.round(svg.getBoundingClientRect().width) : 0,
      overflow: Math.max(overflow(stepper, area), Math.round(inner)), picture, html: panelText});
  }
  return {drawings, steppers};
}"""
)

# Is Chinese text drawn with real glyphs? Render two different CJK characters and the
# tofu code point U+FFFF in the family the page asks for; boxes look all the same.
CJK_GLYPHS = (
    r"""() => {
  const panel = window.jupyterapp.shell.currentWidget;
"""
    + TEXT_PX
    + r"""
  const cjk = /[\u3400-\u9fff]/;
  const samples = [];
  const add = (text, family) => { if (cjk.test(text)) samples.push({text: text.trim(), family}); };
  for (const t of panel.node.querySelectorAll('.agv-stepper svg text, .agv-stepper .agv-panel *, .agv-stepper button'))
    add(t.textContent, getComputedStyle(t).fontFamily);
  for (const img of panel.node.querySelectorAll(".jp-OutputArea-output img[src^='data:image/svg+xml']")) {
    const doc = new DOMParser().parseFromString(svgSource(img), 'image/svg+xml');
    for (const t of doc.querySelectorAll('text'))
      add(t.textContent, t.getAttribute('font-family') || (t.closest('[font-family]') || {getAttribute: () => 'serif'}).getAttribute('font-family'));
  }
  for (const t of panel.node.querySelectorAll('.jp-OutputArea-output svg text'))
    add(t.textContent, getComputedStyle(t).fontFamily);
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = 48;
  const ctx = canvas.getContext('2d', {willReadFrequently: true});
  const glyph = (ch, family) => {
    ctx.clearRect(0, 0, 48, 48);
    ctx.font = `32px ${family}`;
    ctx.fillStyle = '#000';
    ctx.fillText(ch, 4, 38);
    return ctx.getImageData(0, 0, 48, 48).data.join(',');
  };
  const tofu = [];
  const families = [...new Set(samples.map((s) => s.family))];
  for (const family of families) {
    const chars = [...new Set(samples.filter((s) => s.family === family)
      .flatMap((s) => [...s.text].filter((c) => cjk.test(c))))].slice(0, 2);
    const a = glyph(chars[0], family), b = chars[1] ? glyph(chars[1], family) : null;
    const box = glyph('\uffff', family);
    if (a === box || (b !== null && a === b)) tofu.push({family, chars: chars.join('')});
  }
  return {samples: samples.length, examples: samples.slice(0, 5).map((s) => s.text),
          families, tofu};
}"""
)


# Results ---------------------------------------------------------------------------------


@dataclass
class Measurement:
    lesson: str  # "en/01_computation_graph"
    width: int
    drawings: list[dict] = field(default_factory=list)
    steppers: list[dict] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    file_browser_px: int = 0
    screenshots: list[str] = field(default_factory=list)
    cjk: dict | None = None

    def cut_off_drawings(self) -> list[dict]:
        """Drawings past their output's edge with no zoom/fit control to bring them back."""
        return [d for d in self.drawings if d["overflow"] > 0 and not d["zoom"]]

    def overflowing(self) -> list[dict]:
        return [d for d in self.drawings if d["overflow"] > 0] + [
            s for s in self.steppers if s["overflow"] > 0
        ]

    def smallest_drawing(self) -> dict | None:
        texts = [d["smallest"] | {"cell": d["cell"]} for d in self.drawings if d["smallest"]]
        return min(texts, key=lambda t: t["px"], default=None)

    def smallest_stepper(self) -> dict | None:
        texts = [
            s[part] | {"cell": s["cell"]} for s in self.steppers for part in ("picture", "html") if s[part]
        ]
        return min(texts, key=lambda t: t["px"], default=None)


def problems(found: dict) -> list[str]:
    """What a class could not read: cut-off drawings, small text, overflowing steppers."""
    out = []
    for d in found["drawings"]:
        if d["overflow"] > 0 and not d["zoom"]:
            out.append(f"drawing in cell {d['cell']}: {d['overflow']} px past its edge, no zoom button")
        if d["smallest"] and d["smallest"]["px"] < MIN_DRAWING_PX:
            out.append(f"drawing in cell {d['cell']}: text {d['smallest']['px']:.2f} px")
    for s in found["steppers"]:
        if s["overflow"] > 0:
            out.append(f"stepper in cell {s['cell']}: overflows by {s['overflow']} px")
        for part in ("picture", "html"):
            if s[part] and s[part]["px"] < MIN_STEPPER_PX:
                out.append(f"stepper in cell {s['cell']}: {part} text {s[part]['px']:.2f} px")
    return out


def _px(text: dict | None) -> str:
    return "-" if text is None else f"{text['px']:.1f}"


def table(measurements: Iterable[Measurement], title: str = "") -> str:
    header = [
        "lesson",
        "width",
        "drawings",
        "steppers",
        "overflowing",
        "smallest drawing px",
        "smallest stepper px",
    ]
    rows = []
    for m in measurements:
        over = m.overflowing()
        with_zoom = sum(1 for d in over if d.get("zoom"))
        cells = ",".join(str(o["cell"]) for o in over)
        overflowing = (
            f"{len(over)}"
            + (f" (cells {cells})" if over else "")
            + (f", {with_zoom} with zoom" if with_zoom else "")
        )
        rows.append(
            [m.lesson, str(m.width), str(len(m.drawings)), str(len(m.steppers)), overflowing,
             _px(m.smallest_drawing()), _px(m.smallest_stepper())]
        )  # fmt: skip
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = [title] if title else []
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in [header, *rows]]
    return "\n".join(lines)


def details(measurements: Iterable[Measurement]) -> str:
    """Every drawing and stepper, one line each: which cell, how wide, which label is smallest."""
    lines = []
    for m in measurements:
        lines.append(f"{m.lesson} @ {m.width} (file browser {m.file_browser_px} px)")
        for d in m.drawings:
            s = d["smallest"]
            lines.append(
                f"  drawing  cell {d['cell']:>2} {d['form']:<10} {d['width']:>6} px in {d['area']} px, "
                f"overflow {d['overflow']} px{' (zoom control)' if d['zoom'] else ''}, "
                f"smallest {_px(s)} px {s['label'][:30]!r}"
                if s
                else "no text"
            )
        for st in m.steppers:
            p, h = st["picture"], st["html"]
            lines.append(
                f"  stepper  cell {st['cell']:>2} {st['width']:>6} px in {st['area']} px, picture {st['picture_width']} px, "
                f"overflow {st['overflow']} px, picture text {_px(p)} px {p['label'][:20] if p else ''!r}, "
                f"panel text {_px(h)} px {h['label'][:20] if h else ''!r}"
            )
        for e in m.errors:
            lines.append(f"  ERROR    {e}")
        if m.cjk is not None:
            lines.append(f"  CJK      {m.cjk}")
    return "\n".join(lines)


# Driving JupyterLab ----------------------------------------------------------------------


def lessons(notebooks: Path, languages: Iterable[str] = ("en", "zh")) -> list[str]:
    """'en/01_computation_graph', ... for every lesson under notebooks/<language>/."""
    return [f"{lang}/{p.stem}" for lang in languages for p in sorted((notebooks / lang).glob("[0-9]*.ipynb"))]


def _settle(page) -> None:
    """Fonts loaded, resize observers run, two frames painted."""
    page.evaluate("() => document.fonts.ready.then(() => null)")
    page.wait_for_timeout(800)
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")


def measure_lesson(
    browser,
    base_url: str,
    token: str,
    lesson: str,
    out_dir: Path,
    widths: Iterable[tuple[int, int]],
    run_timeout: int = 240,
    app: str = "jupyterlab",
) -> list[Measurement]:
    """Open one lesson, Run All, and measure it at each viewport size in turn (run once).
    app: "jupyterlab" (with its file browser open) or "notebook" (Notebook 7, which has none)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    widths = list(widths)
    page = browser.new_page(viewport={"width": widths[0][0], "height": widths[0][1]})
    page.on("dialog", lambda dialog: dialog.dismiss())
    try:
        where = "lab/tree" if app == "jupyterlab" else "notebooks"
        page.goto(f"{base_url}/{where}/{lesson}.ipynb?reset&token={token}", timeout=90_000)
        page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=90_000)
        page.wait_for_function(KERNEL_IDLE, timeout=90_000)
        # stored execution counts would make every cell look finished before it ran
        page.evaluate("window.jupyterapp.commands.execute('notebook:clear-all-cell-outputs')")
        page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
        page.wait_for_timeout(1000)
        try:
            page.wait_for_function(ALL_CELLS_RUN, timeout=run_timeout * 1000, polling=500)
            errors = []
        except PlaywrightTimeout:
            # measure what is there, and say what never finished
            errors = [f"after {run_timeout} s: not finished {page.evaluate(PENDING)}"]
        errors += page.evaluate(UNEXPECTED_ERRORS)
        results = []
        for width, height in widths:
            page.set_viewport_size({"width": width, "height": height})
            browser_px = page.evaluate(OPEN_FILE_BROWSER) if app == "jupyterlab" else 0
            _settle(page)
            found = page.evaluate(MEASURE)
            m = Measurement(lesson, width, found["drawings"], found["steppers"], errors, browser_px)
            if lesson.startswith("zh/") and width == widths[0][0]:
                m.cjk = page.evaluate(CJK_GLYPHS)
            stem = lesson.replace("/", "_")
            outputs = page.locator(
                ".jp-OutputArea-output:has(.agv-stepper), .jp-OutputArea-output:has(svg g.graph), "
                ".jp-OutputArea-output:has(img[src^='data:image/svg+xml'])"
            )
            # the whole window as the class sees it, scrolled to the first picture
            if outputs.count():
                outputs.first.evaluate("(el) => el.scrollIntoView({block: 'center'})")
                _settle(page)
            shot = out_dir / f"{stem}_{width}.png"
            page.screenshot(path=str(shot))
            m.screenshots.append(shot.name)
            # then each drawing and stepper on its own, clipped by its output area as on screen
            for k in range(outputs.count()):
                shot = out_dir / f"{stem}_{width}_out{k:02d}.png"
                outputs.nth(k).screenshot(path=str(shot))
                m.screenshots.append(shot.name)
            results.append(m)
        page.evaluate(SHUTDOWN_KERNEL)
        return results
    finally:
        page.close()


def measure(
    notebooks: Path,
    out_dir: Path = OUTPUT_DIR,
    plan: Iterable[tuple[str, list[tuple[int, int]]]] | None = None,
) -> list[Measurement]:
    """Measure the lessons under `notebooks` (a copy is served: autosave never touches them).

    plan: (lesson, viewport sizes) pairs; by default every en and zh lesson at WIDE then NARROW.
    """
    from playwright.sync_api import sync_playwright

    out_dir.mkdir(parents=True, exist_ok=True)
    if plan is None:
        plan = [(lesson, [WIDE, NARROW]) for lesson in lessons(notebooks)]
    with tempfile.TemporaryDirectory(prefix="agv-classroom-") as tmp_name:
        tmp = Path(tmp_name)
        shutil.copytree(notebooks, tmp / "root", ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
        with jupyter_lab(tmp / "root", tmp, LAB_SETTINGS) as (base_url, token), sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
            results = []
            try:
                for lesson, sizes in plan:
                    results.extend(measure_lesson(browser, base_url, token, lesson, out_dir, sizes))
            finally:
                browser.close()
    return results


def write_report(results: list[Measurement], out_dir: Path, title: str) -> str:
    report = table(results, title) + "\n\n" + details(results) + "\n"
    (out_dir / "report.txt").write_text(report, encoding="utf-8")
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notebooks", type=Path, default=ROOT / "notebooks")
    parser.add_argument("--out", type=Path, default=OUTPUT_DIR)
    parser.add_argument("--lessons", nargs="*", help="e.g. en/01_computation_graph (default: all)")
    args = parser.parse_args()
    chosen = args.lessons or lessons(args.notebooks)
    results = measure(args.notebooks, args.out, [(lesson, [WIDE, NARROW]) for lesson in chosen])
    print(write_report(results, args.out, f"classroom measurements of {args.notebooks}"))


if __name__ == "__main__":
    main()
