// The BackwardStepper's view. Every frame was computed in Python; stepping
// only swaps CSS classes on the SVG nodes (found once, by id) and the panel's
// HTML, so no kernel round trip and no new layout is needed. The same code
// runs in Jupyter (anywidget) and in the standalone page of to_html().

const STATES = ["done", "current", "waiting"];
// the picture's smallest text may not shrink below this (px): else the panel goes below it
const READABLE_PX = 10;

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

// The SVG's width in CSS px at its natural size, and its smallest text at that size (px).
// Read from attributes only, so it works before the picture is laid out or while it is hidden.
function naturalSize(svg) {
  const width = svg.getAttribute("width") || "";
  const px = parseFloat(width) * (width.endsWith("pt") ? 4 / 3 : 1);
  const box = svg.viewBox && svg.viewBox.baseVal;
  const perUnit = box && box.width ? px / box.width : 1; // CSS px per user unit
  let smallest = Infinity;
  for (const t of svg.querySelectorAll("text")) {
    const size = parseFloat(t.getAttribute("font-size"));
    if (t.textContent.trim() && size) smallest = Math.min(smallest, size * perUnit);
  }
  return { width: px, smallest };
}

function render({ model, el }) {
  const frames = model.get("frames");
  const labels = model.get("labels") || {};
  const label = (key) => labels[key] || key;
  const last = frames.length - 1;
  const root = document.createElement("div");
  root.className = "agv-stepper";
  // focusable, so that its keys work once it is clicked, and only then (see keys() below)
  root.tabIndex = 0;
  root.title = label("keys_tip");

  const title = document.createElement("div");
  title.className = "agv-title";

  const bar = document.createElement("div");
  bar.className = "agv-controls";
  const reset = button(label("reset"), label("reset_tip"), "agv-reset");
  const back = button(label("back"), label("back_tip"), "agv-back");
  const next = button(label("next"), label("next_tip"), "agv-next");
  const play = button(label("play"), label("play_tip"), "agv-play");
  const end = button(label("end"), label("end_tip"), "agv-end");
  const slider = document.createElement("input");
  slider.type = "range";
  slider.min = "0";
  slider.max = String(last);
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
  // what the marks on the graph mean: one unbreakable item per state, wrapping between items
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
  bar.append(reset, back, next, play, end, slider, speed);

  const body = document.createElement("div");
  body.className = "agv-body";
  const picture = document.createElement("div");
  picture.className = "agv-picture agv-stepping";
  picture.innerHTML = model.get("svg");
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
  root.append(title, bar, legend, body);
  el.append(root);

  // the SVG's node groups, looked up once
  const nodes = new Map();
  for (const g of picture.querySelectorAll("g[id^='agv-']")) nodes.set(g.id, g);

  // The panel sits beside the picture only if the picture, shrunk to the room left
  // beside it, keeps its smallest text at READABLE_PX or more; else it goes below
  // (the stylesheet's default). A picture too wide even for the whole width shrinks
  // to READABLE_PX text and no further: it scrolls instead (see follow()).
  const svg = picture.querySelector("svg");
  const natural = svg ? naturalSize(svg) : null;
  function fit() {
    const width = root.clientWidth;
    if (!natural || !natural.width || !width) return;
    const style = getComputedStyle(root);
    const side = parseFloat(style.getPropertyValue("--agv-side-width")) || 360;
    const gap = parseFloat(getComputedStyle(body).columnGap) || 0;
    const smallest = Number.isFinite(natural.smallest) ? natural.smallest : READABLE_PX;
    const shrinkable = Math.min(1, READABLE_PX / smallest); // the least scale keeping text readable
    const besideRoom = width - side - gap;
    const beside = besideRoom > 0 && Math.min(1, besideRoom / natural.width) >= shrinkable;
    body.classList.toggle("agv-beside", beside);
    const room = beside ? besideRoom : width;
    svg.style.width = natural.width * Math.max(Math.min(1, room / natural.width), shrinkable) + "px";
  }
  const resizing = typeof ResizeObserver === "undefined" ? null : new ResizeObserver(fit);
  if (resizing) resizing.observe(root);
  fit();

  // keep the current node in sight inside a scrolled picture, without scrolling the page
  function follow(g) {
    if (picture.scrollWidth <= picture.clientWidth && picture.scrollHeight <= picture.clientHeight) return;
    const box = g.getBoundingClientRect();
    const view = picture.getBoundingClientRect();
    if (box.left < view.left || box.right > view.right) {
      picture.scrollLeft += box.left - view.left - (view.width - box.width) / 2;
    }
    if (box.top < view.top || box.bottom > view.bottom) {
      picture.scrollTop += box.top - view.top - (view.height - box.height) / 2;
    }
  }

  function show() {
    const position = model.get("position");
    const frame = frames[position];
    let current = null;
    for (const [id, g] of nodes) {
      const state = frame.classes[id];
      for (const s of STATES) g.classList.toggle("agv-s-" + s, s === state);
      if (state === "current" && current === null) current = g;
    }
    if (current !== null) follow(current);
    title.textContent = frame.title;
    panel.innerHTML = frame.panel;
    table.innerHTML = frame.table;
    slider.value = String(position);
    root.dataset.position = String(position);
    back.disabled = reset.disabled = position === 0;
    next.disabled = end.disabled = position === last;
    showQuiz(frame);
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

  function go(position) {
    model.set("position", Math.max(0, Math.min(last, position)));
    model.save_changes();
  }

  let timer = null;
  function stop() {
    if (timer !== null) clearInterval(timer);
    timer = null;
    play.textContent = label("play");
  }
  play.addEventListener("click", () => {
    if (timer !== null) return stop();
    if (model.get("position") === last) go(0);
    play.textContent = label("pause");
    timer = setInterval(() => {
      if (model.get("position") >= last) return stop();
      go(model.get("position") + 1);
    }, 1000 / Number(speed.value));
  });
  speed.addEventListener("change", () => {
    if (timer !== null) {
      stop();
      play.click();
    }
  });
  reset.addEventListener("click", () => { stop(); go(0); });
  back.addEventListener("click", () => { stop(); go(model.get("position") - 1); });
  next.addEventListener("click", () => go(model.get("position") + 1));
  end.addEventListener("click", () => { stop(); go(last); });
  slider.addEventListener("input", () => { stop(); go(Number(slider.value)); });

  // Keys act only while the stepper (or one of its buttons) has the focus: a click on
  // it gives it. Handled here, they stop: the notebook's own shortcuts (arrows move
  // between cells, Space scrolls) must not run as well. Typing in a quiz answer or the
  // speed menu keeps its keys.
  const actions = {
    ArrowLeft: () => back.click(),
    ArrowRight: () => next.click(),
    " ": () => play.click(),
    Home: () => reset.click(),
    End: () => end.click(),
  };
  function keys(event) {
    const action = actions[event.key];
    const typing = event.target.closest && event.target.closest("input[type='text'], select, textarea");
    if (!action || typing || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    event.preventDefault();
    event.stopPropagation();
    action();
  }
  root.addEventListener("keydown", keys);

  model.on("change:position", show);
  show();
  return () => {
    stop();
    model.off("change:position", show);
    if (resizing) resizing.disconnect();
    root.removeEventListener("keydown", keys);
  };
}

export default { render };
