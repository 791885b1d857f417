// The BackwardStepper's view. Every frame was computed in Python; stepping
// only swaps CSS classes on the SVG nodes (found once per view, by id) and the
// panel's HTML, so no kernel round trip and no new layout is needed. The same
// code runs in Jupyter (anywidget) and in the standalone page of to_html().
//
// Two levels (the state protocol of widgets/stepper.py): the top view (svg,
// frames, position) and, for a network, one detail view per module (details[key]:
// its own svg and frames, detail_position). detail = "" shows the top view.
//
// What the stepper explains stays in view: the body (picture and panel) has a
// height that fits the window, the picture scrolls and zooms inside it, the
// current node is scrolled into the picture's view at every step, and the panel
// sits beside the picture when there is room, else in a strip below it.

const STATES = ["done", "current", "waiting"];
// the picture's smallest text may not shrink below this (px) in the default view
const READABLE_PX = 10;
// beside the panel, the picture gets at least this much width (px), else the panel goes below
const MIN_PICTURE_PX = 250;
// the body's height: at most this (px) and this share of the window's height
const BODY_MAX_PX = 560;
const BODY_MAX_VH = 0.66;
// the panel's strip below the picture: at least this share of the body's height, and this (px)
const STRIP_SHARE = 0.38;
const STRIP_MIN_PX = 160;
const ZOOM_STEP = 1.25;
const ZOOM_MAX = 4; // times the fitted scale (or the natural size, whichever is larger)
const DRAG_PX = 4; // a press that moves less than this is a click, not a drag

function button(label, title, cls) {
  const b = document.createElement("button");
  b.textContent = label;
  b.title = title;
  b.className = "agv-btn " + cls;
  return b;
}

function numbers(text) {
  return (text.match(/-?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?/gi) || []).map(Number);
}

function close(got, want) {
  return got.length === want.length &&
    got.every((g, i) => Math.abs(g - want[i]) <= 1e-4 + 1e-3 * Math.abs(want[i]));
}

// "{name}" fields of a label (the table's templates, ui_text.py), filled in
function fill(template, fields) {
  return template.replace(/\{(\w+)\}/g, (whole, name) => (name in fields ? fields[name] : whole));
}

// a box's state at `position` from its [arrives, runs, done] marks (trace.state_class in Python)
function stateAt(marks, position) {
  const [arrives, runs, done] = marks;
  const ran = runs !== null && runs !== undefined; // null: the node never runs
  if (ran && position >= done) return "done";
  if (ran && position >= runs) return "current";
  if (position >= arrives) return "waiting";
  return null;
}

function clamp(value, low, high) {
  return Math.max(low, Math.min(high, value));
}

// The SVG's size in CSS px at its natural size, and its smallest text at that size (px).
// Read from attributes only, so it works before the picture is laid out or while it is hidden.
function naturalSize(svg) {
  const px = (attribute) => {
    const text = svg.getAttribute(attribute) || "";
    return parseFloat(text) * (text.endsWith("pt") ? 4 / 3 : 1);
  };
  const width = px("width"), height = px("height");
  const box = svg.viewBox && svg.viewBox.baseVal;
  const perUnit = box && box.width ? width / box.width : 1; // CSS px per user unit
  let smallest = Infinity;
  for (const t of svg.querySelectorAll("text")) {
    const size = parseFloat(t.getAttribute("font-size"));
    if (t.textContent.trim() && size) smallest = Math.min(smallest, size * perUnit);
  }
  return { width, height, smallest };
}

function render({ model, el }) {
  const labels = model.get("labels") || {};
  const label = (key) => labels[key] || key;
  const root = document.createElement("div");
  root.className = "agv-stepper";
  // focusable, so that its keys work once it is clicked, and only then (see keys() below)
  root.tabIndex = 0;
  root.title = label("keys_tip");

  const bar = document.createElement("div");
  bar.className = "agv-controls";
  const reset = button(label("reset"), label("reset_tip"), "agv-reset");
  const back = button(label("back"), label("back_tip"), "agv-back");
  const next = button(label("next"), label("next_tip"), "agv-next");
  const play = button(label("play"), label("play_tip"), "agv-play");
  // the button is as wide as its wider label, whichever it shows (stepper.css): nothing moves
  play.dataset.play = label("play");
  play.dataset.pause = label("pause");
  const end = button(label("end"), label("end_tip"), "agv-end");
  const slider = document.createElement("input");
  slider.type = "range";
  slider.min = "0";
  slider.className = "agv-slider";
  slider.title = label("slider_tip");
  const speed = document.createElement("select");
  speed.className = "agv-speed";
  speed.title = label("speed_tip");
  for (const s of ["0.5", "1", "2", "4"]) {
    const o = document.createElement("option");
    o.value = s;
    o.textContent = fill(label("speed"), { rate: s });
    if (s === "1") o.selected = true;
    speed.append(o);
  }
  const into = button(label("into"), label("into_tip"), "agv-into");
  const out = button(label("out"), label("out_tip"), "agv-out");
  const levels = document.createElement("span");
  levels.className = "agv-levels";
  levels.append(into, out);
  bar.append(reset, back, next, play, end, slider, speed, levels);

  // under the controls, so that a title that wraps never moves a button under the mouse
  const head = document.createElement("div");
  head.className = "agv-head";
  const inside = document.createElement("span");
  inside.className = "agv-inside";
  const title = document.createElement("div");
  title.className = "agv-title";
  head.append(inside, title);

  // what the marks on the graph mean: one unbreakable item per state, wrapping between items
  const legendRow = document.createElement("div");
  legendRow.className = "agv-legend-row";
  const legend = document.createElement("div");
  legend.className = "agv-legend";
  for (const s of [...STATES, "untouched"]) {
    const item = document.createElement("span");
    item.className = "agv-legend-item";
    const key = document.createElement("span");
    key.className = "agv-key agv-key-" + s;
    item.append(key, label("legend." + s));
    legend.append(item);
  }
  const zoomBar = document.createElement("span");
  zoomBar.className = "agv-zoombar";
  zoomBar.title = label("zoom_tip");
  const zoomOut = button(label("zoom_out"), label("zoom_tip"), "agv-zoom agv-zoom-out");
  const zoomIn = button(label("zoom_in"), label("zoom_tip"), "agv-zoom agv-zoom-in");
  const zoomFit = button(label("zoom_fit"), label("zoom_tip"), "agv-zoom agv-zoom-fit");
  zoomBar.append(zoomOut, zoomIn, zoomFit);
  legendRow.append(legend, zoomBar);

  const body = document.createElement("div");
  body.className = "agv-body";
  const picture = document.createElement("div");
  picture.className = "agv-picture agv-stepping";
  const side = document.createElement("div");
  side.className = "agv-side";
  const panel = document.createElement("div");
  panel.className = "agv-panel";
  const quiz = document.createElement("div");
  quiz.className = "agv-quiz";
  const table = document.createElement("div");
  table.className = "agv-table";
  side.append(panel, quiz, table);
  body.append(picture, side);
  root.append(bar, head, legendRow, body);
  el.append(root);

  // -- the views: the top one ("") and one per module; each parsed once, on first use ------

  let views = new Map();
  function details() {
    return model.get("details") || {};
  }
  function viewFor(key) {
    if (views.has(key)) return views.get(key);
    const source = key
      ? details()[key]
      : { svg: model.get("svg"), frames: model.get("frames"), timeline: model.get("timeline") };
    const holder = document.createElement("div");
    holder.innerHTML = source.svg || "";
    const svg = holder.querySelector("svg");
    const nodes = new Map(); // svg id -> the node's group, looked up once
    if (svg) for (const g of svg.querySelectorAll("g[id^='agv-']")) nodes.set(g.id, g);
    // the top view's module boxes open their module on a click
    const modules = key ? {} : model.get("modules") || {};
    for (const id of Object.keys(modules)) {
      const g = svg && svg.querySelector(`g[id="${CSS.escape(id)}"]`);
      if (g) {
        g.classList.add("agv-module");
        nodes.set(id, g);
      }
    }
    const view = {
      key, svg, nodes, modules,
      frames: source.frames || [],
      timeline: source.timeline || {}, // {svg id: [arrives, runs, done]}, when frames hold no classes
      natural: svg ? naturalSize(svg) : null,
      scale: null, // the user's zoom; null: the fitted scale
      fitted: 1,
    };
    views.set(key, view);
    return view;
  }
  // a module's picture is laid out by the kernel when it is first opened: until it arrives
  // (change:details), the layer view stays on screen
  function openKey() {
    const key = model.get("detail") || "";
    return key && details()[key] && details()[key].svg ? key : "";
  }
  function shown() {
    const key = openKey();
    const view = viewFor(key);
    const last = Math.max(0, view.frames.length - 1);
    const position = clamp(Number(model.get(key ? "detail_position" : "position")) || 0, 0, last);
    return { key, view, last, position, frame: view.frames[position] };
  }

  // -- layout: the panel beside or below, the picture's default scale --------------------

  const cssPx = (element, property, fallback) => {
    const value = parseFloat(getComputedStyle(element).getPropertyValue(property));
    return Number.isFinite(value) ? value : fallback;
  };
  function bodyHeight() {
    return Math.round(Math.min(cssPx(root, "--agv-body-max", BODY_MAX_PX), BODY_MAX_VH * window.innerHeight));
  }
  function scaleOf(view) {
    return view.scale === null ? view.fitted : view.scale;
  }
  function applyScale(view) {
    const s = scaleOf(view);
    view.svg.style.width = view.natural.width * s + "px";
    view.svg.style.height = view.natural.height * s + "px";
    root.dataset.zoom = (s / view.fitted).toFixed(3);
  }
  // The panel goes beside the picture when the picture keeps MIN_PICTURE_PX there and either
  // fits that room with READABLE_PX text, or would not fit even the whole width (it pans
  // anyway, and the panel is then read without scrolling). Else it is a strip below. The top
  // view decides, for the modules' views too: the panel stays where it is when one opens. The
  // default scale fits the picture's width, but never makes its smallest text smaller than
  // READABLE_PX (then the picture scrolls) nor larger than its natural size.
  let laidOut = "";
  function layout(force = false) {
    const { view } = shown();
    const width = root.clientWidth;
    if (!view.svg || !view.natural.width || !width) return false;
    const height = bodyHeight();
    const signature = [view.key, width, height].join(" ");
    if (signature === laidOut && !force) return false;
    laidOut = signature;
    const sideWidth = cssPx(root, "--agv-side-width", 360);
    const gap = cssPx(body, "column-gap", 8);
    // the least scale keeping a view's text readable
    const shrinkable = (v) => Math.min(1, READABLE_PX / (Number.isFinite(v.natural.smallest) ? v.natural.smallest : READABLE_PX));
    const top = viewFor("");
    const deciding = top.svg && top.natural.width ? top : view;
    const fits = (room) => Math.min(1, room / deciding.natural.width) >= shrinkable(deciding);
    const besideRoom = width - sideWidth - gap;
    const beside = besideRoom >= MIN_PICTURE_PX && (fits(besideRoom) || !fits(width));
    body.classList.toggle("agv-beside", beside);
    body.classList.toggle("agv-below", !beside);
    const pictureMax = beside ? height : height - Math.max(STRIP_MIN_PX, STRIP_SHARE * height) - gap;
    picture.style.maxHeight = Math.round(pictureMax) + "px";
    const room = picture.clientWidth || (beside ? besideRoom : width);
    view.fitted = Math.max(Math.min(1, room / view.natural.width), shrinkable(view));
    applyScale(view);
    sideHeight();
    return true;
  }
  function currentGroups() {
    return [...shown().view.nodes.values()].filter((g) => g.classList.contains("agv-s-current"));
  }
  function sideHeight() {
    const height = bodyHeight();
    if (body.classList.contains("agv-beside")) side.style.maxHeight = height + "px";
    else side.style.maxHeight = Math.max(STRIP_MIN_PX, height - picture.offsetHeight - cssPx(body, "row-gap", 8)) + "px";
  }
  // a new width or window height: lay out again, and bring the current node back in view
  function relayout() {
    if (layout()) follow(currentGroups());
  }
  const resizing = typeof ResizeObserver === "undefined" ? null : new ResizeObserver(relayout);
  if (resizing) resizing.observe(root);
  const onWindowResize = relayout;
  window.addEventListener("resize", onWindowResize);

  // -- keep the current node in sight inside the picture, without scrolling the page -------

  function follow(groups) {
    if (!groups.length) return;
    const view = picture.getBoundingClientRect();
    const left = view.left + picture.clientLeft, top = view.top + picture.clientTop;
    const width = picture.clientWidth, height = picture.clientHeight;
    const margin = 8;
    const union = (gs) => {
      const boxes = gs.map((g) => g.getBoundingClientRect());
      return {
        left: Math.min(...boxes.map((b) => b.left)), right: Math.max(...boxes.map((b) => b.right)),
        top: Math.min(...boxes.map((b) => b.top)), bottom: Math.max(...boxes.map((b) => b.bottom)),
      };
    };
    // all the current boxes if they fit the view, else as many as fit, in the drawing's order
    const fits = (b) => b.right - b.left <= width - 2 * margin && b.bottom - b.top <= height - 2 * margin;
    let count = groups.length;
    while (count > 1 && !fits(union(groups.slice(0, count)))) count -= 1;
    const box = union(groups.slice(0, count));
    const along = (low, high, start, size) => {
      if (low >= start + margin && high <= start + size - margin) return 0; // already in view
      if (high - low > size - 2 * margin) return low - start - margin; // too big: its start
      return (low + high) / 2 - (start + size / 2); // centred
    };
    picture.scrollLeft += along(box.left, box.right, left, width);
    picture.scrollTop += along(box.top, box.bottom, top, height);
  }

  // -- showing a frame ------------------------------------------------------------------

  let shownKey = null, shownPosition = null;
  function show() {
    const { key, view, last, position, frame } = shown();
    if (!frame) return; // closed: no frames left
    if (picture.firstElementChild !== view.svg) {
      picture.replaceChildren(...(view.svg ? [view.svg] : []));
      layout(true);
    }
    const current = [];
    for (const [id, g] of view.nodes) {
      const marks = view.timeline[id];
      const state = frame.classes ? frame.classes[id] : marks ? stateAt(marks, position) : null;
      for (const s of STATES) g.classList.toggle("agv-s-" + s, s === state);
      if (state === "current") current.push(g);
    }
    title.textContent = frame.title;
    const name = key ? details()[key].title || key : "";
    inside.textContent = key ? fill(label("inside"), { name }) : "";
    inside.hidden = !key || frame.title.includes(name); // not twice, when the title names it
    panel.innerHTML = frame.panel;
    table.innerHTML = frame.table;
    slider.max = String(last);
    slider.value = String(position);
    root.dataset.position = String(model.get("position"));
    root.dataset.detail = key;
    root.dataset.detailPosition = key ? String(position) : "";
    reset.disabled = position === 0;
    back.disabled = position === 0 && !key; // inside a module, Back at its start steps out
    next.disabled = position === last && !key; // and Next at its end
    end.disabled = position === last;
    const layered = Object.keys(details()).length > 0;
    levels.hidden = !layered;
    into.disabled = Boolean(key) || !frame.into || !details()[frame.into];
    out.disabled = !key;
    if (key !== shownKey || position !== shownPosition) side.scrollTop = 0; // the explanation's start
    shownKey = key;
    shownPosition = position;
    showQuiz(frame);
    sideHeight();
    follow(current);
  }

  function showQuiz(frame) {
    quiz.replaceChildren();
    if (!model.get("quiz") || !frame.quiz || frame.quiz.targets.length === 0) return;
    const head = document.createElement("p");
    head.textContent = label("quiz.head");
    quiz.append(head);
    const inputs = frame.quiz.prompts.map((prompt) => {
      const row = document.createElement("label");
      row.textContent = prompt;
      const input = document.createElement("input");
      input.type = "text";
      input.className = "agv-answer";
      row.append(input);
      quiz.append(row);
      return input;
    });
    const check = button(label("quiz.check"), label("quiz.check_tip"), "agv-check");
    const verdict = document.createElement("p");
    verdict.className = "agv-verdict";
    check.addEventListener("click", () => {
      const right = inputs.every((input, i) => close(numbers(input.value), frame.quiz.expected[i]));
      verdict.className = "agv-verdict " + (right ? "agv-right" : "agv-wrong");
      verdict.textContent = right ? label("quiz.right") : fill(label("quiz.wrong"), { hint: frame.quiz.hint });
    });
    quiz.append(check, verdict);
  }

  // -- moving: every change goes to the model, which calls show() once --------------------

  let changing = false;
  function update(changes) {
    changing = true;
    try {
      for (const [name, value] of changes) model.set(name, value);
    } finally {
      changing = false;
    }
    model.save_changes();
    show();
  }
  function topLast() {
    return Math.max(0, (model.get("frames") || []).length - 1);
  }
  // position in the view shown; past a module's ends, out to the layer view
  function go(position) {
    const { key, last } = shown();
    if (!key) return update([["position", clamp(position, 0, last)]]);
    const detail = details()[key];
    if (position > last) return stepOut(detail.leave);
    if (position < 0) return stepOut(detail.enter);
    update([["detail_position", position]]);
  }
  function stepInto(key) {
    if (!key || !details()[key]) return;
    stop();
    // detail_position first: no frame of the new module is ever read with the old one's position
    update([["detail_position", 0], ["detail", key]]);
  }
  function stepOut(position) {
    const { key } = shown();
    if (!key) return;
    const to = position === undefined ? details()[key].leave : position;
    update([["position", clamp(Number(to) || 0, 0, topLast())], ["detail", ""]]);
  }

  let timer = null;
  function stop() {
    if (timer !== null) clearInterval(timer);
    timer = null;
    play.textContent = label("play");
  }
  play.addEventListener("click", () => {
    if (timer !== null) return stop();
    if (shown().position === shown().last) go(0);
    play.textContent = label("pause");
    // plays to the end of the view shown: a module's last op, or the layer view's last step
    timer = setInterval(() => {
      const { position, last } = shown();
      if (position >= last) return stop();
      go(position + 1);
    }, 1000 / Number(speed.value));
  });
  speed.addEventListener("change", () => {
    if (timer !== null) {
      stop();
      play.click();
    }
  });
  reset.addEventListener("click", () => { stop(); go(0); });
  back.addEventListener("click", () => { stop(); go(shown().position - 1); });
  next.addEventListener("click", () => go(shown().position + 1));
  end.addEventListener("click", () => { stop(); go(shown().last); });
  slider.addEventListener("input", () => { stop(); go(Number(slider.value)); });
  into.addEventListener("click", () => { const { frame } = shown(); if (frame) stepInto(frame.into); });
  out.addEventListener("click", () => { stop(); stepOut(); });

  // -- zoom and pan -----------------------------------------------------------------------

  // scale the view shown by `factor`, keeping the picture's point under (x, y) (client px) in place
  function zoom(factor, x, y) {
    const { view } = shown();
    if (!view.svg || !view.natural.width) return;
    const rect = picture.getBoundingClientRect();
    if (x === undefined) {
      x = rect.left + picture.clientLeft + picture.clientWidth / 2;
      y = rect.top + picture.clientTop + picture.clientHeight / 2;
    }
    const before = view.svg.getBoundingClientRect();
    const old = scaleOf(view);
    // as small as the whole picture in view (an overview), as large as ZOOM_MAX times
    const whole = Math.min(picture.clientWidth / view.natural.width, picture.clientHeight / view.natural.height);
    const low = Math.min(view.fitted, whole), high = ZOOM_MAX * Math.max(view.fitted, 1);
    const s = clamp(old * factor, low, high);
    if (s === old) return;
    const u = (x - before.left) / old, v = (y - before.top) / old; // the point, at scale 1
    view.scale = s;
    applyScale(view);
    sideHeight();
    const after = view.svg.getBoundingClientRect();
    picture.scrollLeft += after.left + u * s - x;
    picture.scrollTop += after.top + v * s - y;
  }
  function fit() {
    const { view } = shown();
    view.scale = null;
    layout(true);
    follow(currentGroups());
  }
  zoomIn.addEventListener("click", () => zoom(ZOOM_STEP));
  zoomOut.addEventListener("click", () => zoom(1 / ZOOM_STEP));
  zoomFit.addEventListener("click", fit);
  // the wheel scrolls the picture; with Ctrl (or ⌘), and a touchpad's pinch (Chromium sends it
  // as a wheel with ctrlKey), it zooms around the pointer
  function wheel(event) {
    if (!(event.ctrlKey || event.metaKey)) return;
    event.preventDefault();
    const pixels = event.deltaY * (event.deltaMode === 1 ? 16 : event.deltaMode === 2 ? 400 : 1);
    zoom(Math.exp(-clamp(pixels, -300, 300) * 0.002), event.clientX, event.clientY);
  }
  picture.addEventListener("wheel", wheel, { passive: false });
  // drag with the mouse to pan; a press that does not move is a click (on a module box: open it)
  let drag = null, dragged = false;
  picture.addEventListener("pointerdown", (event) => {
    if (event.button !== 0 || event.pointerType === "touch") return; // touch pans natively
    drag = { id: event.pointerId, x: event.clientX, y: event.clientY, left: picture.scrollLeft, top: picture.scrollTop };
    dragged = false;
  });
  picture.addEventListener("pointermove", (event) => {
    if (!drag || event.pointerId !== drag.id) return;
    const dx = event.clientX - drag.x, dy = event.clientY - drag.y;
    if (!dragged && Math.hypot(dx, dy) < DRAG_PX) return;
    if (!dragged) {
      dragged = true;
      picture.setPointerCapture(event.pointerId);
      picture.classList.add("agv-dragging");
    }
    picture.scrollLeft = drag.left - dx;
    picture.scrollTop = drag.top - dy;
    event.preventDefault();
  });
  const endDrag = (event) => {
    if (!drag || event.pointerId !== drag.id) return;
    drag = null;
    picture.classList.remove("agv-dragging");
  };
  picture.addEventListener("pointerup", endDrag);
  picture.addEventListener("pointercancel", endDrag);
  picture.addEventListener("click", (event) => {
    if (dragged) {
      dragged = false;
      return;
    }
    const { key, view } = shown();
    if (key) return;
    for (let n = event.target; n && n !== picture; n = n.parentNode) {
      if (n.id && view.modules[n.id]) return stepInto(view.modules[n.id]);
    }
  });

  // Keys act only while the stepper (or one of its buttons) has the focus: a click on
  // it gives it. Handled here, they stop: the notebook's own shortcuts (arrows move
  // between cells, Space scrolls) must not run as well. Typing in a quiz answer or the
  // speed menu keeps its keys. Enter, Esc and Backspace act only when there is a module
  // to open or to leave; else they stay the notebook's (or the focused button's).
  const actions = {
    ArrowLeft: () => back.click(),
    ArrowRight: () => next.click(),
    " ": () => play.click(),
    Home: () => reset.click(),
    End: () => end.click(),
    Enter: () => (into.disabled || levels.hidden ? false : into.click()),
    Escape: () => (out.disabled ? false : out.click()),
    Backspace: () => (out.disabled ? false : out.click()),
  };
  function keys(event) {
    const action = actions[event.key];
    const typing = event.target.closest && event.target.closest("input[type='text'], select, textarea");
    if (!action || typing || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    if (action() === false) return;
    event.preventDefault();
    event.stopPropagation();
  }
  root.addEventListener("keydown", keys);

  // -- the model's changes (from Python, or from another view of the same widget) ------------

  const onChange = () => { if (!changing) show(); };
  const onViews = () => {
    views = new Map();
    laidOut = "";
    picture.replaceChildren();
    if (!changing) show();
  };
  const events = ["change:position", "change:detail", "change:detail_position"];
  const viewEvents = ["change:svg", "change:frames", "change:timeline", "change:modules", "change:details"];
  for (const e of events) model.on(e, onChange);
  for (const e of viewEvents) model.on(e, onViews);
  show();
  return () => {
    stop();
    for (const e of events) model.off(e, onChange);
    for (const e of viewEvents) model.off(e, onViews);
    if (resizing) resizing.disconnect();
    window.removeEventListener("resize", onWindowResize);
    root.removeEventListener("keydown", keys);
  };
}

export default { render };
