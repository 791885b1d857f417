// The BackwardStepper's view. Every frame was computed in Python; stepping
// only swaps CSS classes on the SVG nodes (found once, by id) and the panel's
// HTML, so no kernel round trip and no new layout is needed. The same code
// runs in Jupyter (anywidget) and in the standalone page of to_html().

const STATES = ["done", "current", "waiting"];

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

function render({ model, el }) {
  const frames = model.get("frames");
  const last = frames.length - 1;
  const root = document.createElement("div");
  root.className = "agv-stepper";

  const title = document.createElement("div");
  title.className = "agv-title";

  const bar = document.createElement("div");
  bar.className = "agv-controls";
  const reset = button("⇤ Reset", "back to the start", "agv-reset");
  const back = button("◀ Back", "one step back", "agv-back");
  const next = button("Next ▶", "run the next node", "agv-next");
  const play = button("▶ Play", "play / pause", "agv-play");
  const end = button("Run to end ⇥", "run every remaining node", "agv-end");
  const slider = document.createElement("input");
  slider.type = "range";
  slider.min = "0";
  slider.max = String(last);
  slider.className = "agv-slider";
  slider.title = "position";
  const speed = document.createElement("select");
  speed.className = "agv-speed";
  speed.title = "steps per second";
  for (const s of ["0.5", "1", "2", "4"]) {
    const o = document.createElement("option");
    o.value = s;
    o.textContent = s + " step/s";
    if (s === "1") o.selected = true;
    speed.append(o);
  }
  // what the marks on the graph mean
  const legend = document.createElement("span");
  legend.className = "agv-legend";
  legend.innerHTML = [...STATES, "untouched"]
    .map((s) => `<span class="agv-key agv-key-${s}"></span>${s}`).join(" ");
  bar.append(reset, back, next, play, end, slider, speed, legend);

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
  root.append(title, bar, body);
  el.append(root);

  // the SVG's node groups, looked up once
  const nodes = new Map();
  for (const g of picture.querySelectorAll("g[id^='agv-']")) nodes.set(g.id, g);

  // A wide graph is shrunk to fit, but to no less than 70% of its size: smaller,
  // its labels are unreadable, so the picture scrolls instead (see follow()).
  const svg = picture.querySelector("svg");
  const width = svg ? svg.getAttribute("width") || "" : "";
  const natural = parseFloat(width) * (width.endsWith("pt") ? 4 / 3 : 1);
  function fit() {
    if (natural && picture.clientWidth) {
      svg.style.width = Math.max(Math.min(natural, picture.clientWidth), 0.7 * natural) + "px";
    }
  }
  const resizing = typeof ResizeObserver === "undefined" ? null : new ResizeObserver(fit);
  if (resizing) resizing.observe(picture);

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
    head.textContent = "Your turn: what will the next node send?";
    quiz.append(head);
    const inputs = frame.quiz.targets.map((target) => {
      const row = document.createElement("label");
      row.textContent = "to " + target + ": ";
      const input = document.createElement("input");
      input.type = "text";
      input.className = "agv-answer";
      row.append(input);
      quiz.append(row);
      return input;
    });
    const check = button("Check", "compare with what backward computes", "agv-check");
    const verdict = document.createElement("p");
    verdict.className = "agv-verdict";
    check.addEventListener("click", () => {
      const right = inputs.every((input, i) => close(numbers(input.value), frame.quiz.expected[i]));
      verdict.className = "agv-verdict " + (right ? "agv-right" : "agv-wrong");
      verdict.textContent = right ? "Right! Press Next to see it." : "Not quite. Hint: " + frame.quiz.hint;
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
    play.textContent = "▶ Play";
  }
  play.addEventListener("click", () => {
    if (timer !== null) return stop();
    if (model.get("position") === last) go(0);
    play.textContent = "❚❚ Pause";
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

  model.on("change:position", show);
  show();
  return () => {
    stop();
    model.off("change:position", show);
    if (resizing) resizing.disconnect();
  };
}

export default { render };
