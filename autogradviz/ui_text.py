"""Every string that autogradviz shows a learner, in English and Simplified Chinese.

One table, so a translation is a table edit, and a test (tests/test_ui_text.py)
checks that every key has both languages and the same `{fields}` in each.

    agv.set_language("zh")     # every drawing, stepper and monitor made after this
    text("stepper.next")       # "前进 ▶"

English is the default. Objects that show text take `language=` too, so one
cell can show Chinese while the rest of the notebook is English.
"""

from __future__ import annotations

import string

LANGUAGES = ("en", "zh")
_ALIASES = {"zh-cn": "zh", "zh_cn": "zh", "zh-hans": "zh", "cn": "zh", "en-us": "en", "en_us": "en"}

_current = {"language": "en"}


def _normalise(language: str) -> str:
    if not isinstance(language, str):
        raise TypeError(f"set_language(): language must be a string such as 'en' or 'zh', got {language!r}")
    key = language.strip().lower()
    key = _ALIASES.get(key, key)
    if key not in LANGUAGES:
        raise ValueError(f"set_language(): unknown language {language!r}; autogradviz speaks 'en' and 'zh'")
    return key


def set_language(language: str) -> None:
    """Choose the language of everything autogradviz shows from now on: 'en' or 'zh'."""
    _current["language"] = _normalise(language)


def get_language() -> str:
    """The language set by `set_language` ('en' unless changed)."""
    return _current["language"]


def resolve_language(language: str | None) -> str:
    """`language` if given (checked), else the current one."""
    return get_language() if language is None else _normalise(language)


def text(key: str, language: str | None = None, **fields) -> str:
    """The string `key` in `language` (default: the current one), with `{fields}` filled in."""
    entry = TABLE[key]
    template = entry[resolve_language(language)]
    return template.format(**fields) if fields else template


def fields_of(template: str) -> set[str]:
    """The `{names}` a template expects (used by the table's test)."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


# key: {"en": ..., "zh": ...}. Keep the sections; each belongs to one part of the UI.
TABLE: dict[str, dict[str, str]] = {
    # --- drawings (viz/) ---
    "draw.summary": {
        "en": "<autogradviz graph: {nodes} nodes, {edges} edges ({kind}){hidden}>",
        "zh": "<autogradviz 计算图：{nodes} 个节点，{edges} 条边（{kind}）{hidden}>",
    },
    "draw.summary_hidden": {"en": ", {count} hidden", "zh": "，隐藏了 {count} 个"},
    "draw.kind.forward": {"en": "forward", "zh": "前向"},
    "draw.kind.backward": {"en": "backward", "zh": "反向"},
    "draw.kind.both": {"en": "both", "zh": "前向和反向"},
    "draw.forward_title": {"en": "forward: values flow {arrow}", "zh": "前向：数值沿箭头流动 {arrow}"},
    "draw.backward_title": {"en": "backward: gradients flow {arrow}", "zh": "反向：梯度沿箭头流动 {arrow}"},
    "draw.hidden_nodes": {"en": "… {count} nodes hidden …", "zh": "…… 隐藏了 {count} 个节点 ……"},
    # an intermediate no variable holds: PyTorch never kept its value (autogradviz keeps a copy for
    # drawings until backward, or a PyTorch graph noted none); backward frees the SAVED tensors
    "draw.freed_value": {"en": "(value not kept)", "zh": "（数值未保留）"},
    "draw.freed_shape": {"en": "(intermediate)", "zh": "（中间结果）"},
    "draw.same_tensor": {"en": "(the same tensor)", "zh": "（同一个张量）"},
    "draw.used_times": {"en": "{shape}, used {count} times", "zh": "{shape}，用了 {count} 次"},
    "draw.scalar": {"en": "scalar", "zh": "标量"},
    # a big tensor's one-line summary (viz/labels.summary) and its heatmap's tooltip
    "draw.stats": {
        "en": "min {min} · mean {mean} · max {max}",
        "zh": "最小 {min} · 平均 {mean} · 最大 {max}",
    },
    "draw.stats_norm": {"en": "norm {norm}", "zh": "范数 {norm}"},
    "draw.stats_count": {"en": "{count} {what}", "zh": "{count} 个 {what}"},
    "draw.glyph_tip": {
        "en": "{rows} × {columns} squares, each the mean of a block of values: "
        "blue < 0, white 0, red > 0 (magenta NaN, black inf)",
        "zh": "{rows} × {columns} 个方格，每格是一块数值的平均值：蓝色 < 0，白色 0，红色 > 0（品红 NaN，黑色 inf）",
    },
    "draw.saved": {"en": "saved {name}", "zh": "保存的 {name}"},
    "draw.saved_result": {"en": "result", "zh": "结果"},
    "draw.saved_value": {"en": "value", "zh": "值"},
    "draw.saved_input": {"en": "input {index}", "zh": "输入 {index}"},
    "draw.legend.param": {"en": "parameter (leaf, requires grad)", "zh": "参数（叶子张量，需要梯度）"},
    "draw.legend.input": {"en": "input or constant (leaf)", "zh": "输入或常量（叶子张量）"},
    "draw.legend.tensor": {"en": "intermediate tensor", "zh": "中间张量"},
    "draw.legend.root": {"en": "output (root)", "zh": "输出（根节点）"},
    "draw.legend.op": {"en": "operation", "zh": "运算"},
    "draw.legend.layer": {"en": "layer (nn module): its ops inside", "zh": "层（nn 模块）：运算在其中"},
    "draw.layer_output": {"en": "out {shape}", "zh": "输出 {shape}"},
    "stepper.title.layer_start": {
        "en": "Start: backward will run {steps} layer steps ({ops} ops)",
        "zh": "开始：反向传播将分 {steps} 个层步骤运行（共 {ops} 个运算）",
    },
    "stepper.title.layer_step": {
        "en": "Layer step {position} of {last}: {name}",
        "zh": "第 {position}/{last} 层步骤：{name}",
    },
    "stepper.title.inside": {
        "en": "Inside {layer}: step {position} of {last} {name}",
        "zh": "{layer} 内部：第 {position}/{last} 步 {name}",
    },
    "stepper.title.inside_start": {
        "en": "Inside {layer}: {steps} steps to go",
        "zh": "{layer} 内部：还有 {steps} 步",
    },
    "stepper.layer.output_of": {"en": "the output of {layer}", "zh": "{layer} 的输出"},
    "stepper.layer.order": {
        "en": "Layer by layer, backward runs: {order}",
        "zh": "反向传播逐层运行：{order}",
    },
    "stepper.layer.arrives": {
        "en": "Gradient arriving at its output, dY: {value}",
        "zh": "到达其输出的梯度 dY：{value}",
    },
    "stepper.layer.sends": {
        "en": "Sent to its input ({target}), dX: {value}",
        "zh": "发给其输入（{target}）的梯度 dX：{value}",
    },
    "stepper.layer.param": {"en": "Gradient of {name}: {value}", "zh": "{name} 的梯度：{value}"},
    "stepper.layer.param_share": {
        "en": "This call's part of the gradient of {name} (shared by every call): {value}",
        "zh": "这次调用对 {name} 梯度的贡献（各次调用共享该参数）：{value}",
    },
    "stepper.layer.no_input_grad": {
        "en": "Its input needs no gradient (it is data): backward skips dX here; the formula below says what it would be.",
        "zh": "它的输入不需要梯度（是数据）：反向传播在这里不计算 dX；下面的公式说明它本来是什么。",
    },
    "stepper.layer.big_value": {"en": "shape {shape}, norm {norm}", "zh": "形状 {shape}，范数 {norm}"},
    "stepper.layer.into_hint": {
        "en": "“⤓ Step into” walks its {count} steps one by one.",
        "zh": "点“⤓ 步入”可逐个查看它的 {count} 个步骤。",
    },
    "draw.layer_grad_norm": {"en": "norm {norm} ({of})", "zh": "范数 {norm}（{of}）"},
    "draw.legend.backward_root": {"en": "output: backward starts here", "zh": "输出：反向传播从这里开始"},
    "draw.legend.grad_fn": {"en": "backward node (grad_fn)", "zh": "反向节点（grad_fn）"},
    "draw.legend.accumulate": {"en": "AccumulateGrad: writes .grad", "zh": "AccumulateGrad：写入 .grad"},
    "draw.legend.leaf": {"en": "leaf tensor", "zh": "叶子张量"},
    "draw.legend.saved": {"en": "saved for backward", "zh": "为反向传播保存的值"},
    "draw.zoom_actual": {"en": "Actual size", "zh": "原始大小"},
    "draw.zoom_fit": {"en": "Fit to width", "zh": "适应宽度"},
    "draw.zoom_whole": {"en": "Show the whole drawing", "zh": "显示整张图"},
    "draw.zoom_readable": {"en": "Readable size", "zh": "可读大小"},
    "draw.png_missing_glyphs": {
        "en": "PNG export: no font {renderer} can use has the characters {characters}; "
        "they will come out as empty boxes. The SVG (.svg, or the notebook's drawing) shows them "
        "if the viewer has a CJK font. For the PNG, install one and render with the system Graphviz: "
        "on Debian/Ubuntu `apt-get install fonts-noto-cjk graphviz`.",
        "zh": "PNG 导出：{renderer} 能用的字体里没有这些字符：{characters}；它们会显示成空方框。"
        "SVG（.svg 文件或笔记本中的图）在装有中文字体的浏览器里可以正常显示。要导出 PNG，"
        "请安装中文字体并使用系统的 Graphviz：在 Debian/Ubuntu 上运行 `apt-get install fonts-noto-cjk graphviz`。",
    },
    "draw.browser_loading": {
        "en": "autogradviz: the drawing engine (Graphviz in wasm) is still loading in this browser tab. "
        "Run the cell again in a moment.",
        "zh": "autogradviz：绘图引擎（wasm 版 Graphviz）还在这个浏览器标签页里加载。请稍后再运行一次这个单元格。",
    },
    "draw.browser_failed": {
        "en": "autogradviz: the browser's Graphviz failed to load: {error}",
        "zh": "autogradviz：浏览器里的 Graphviz 没能加载：{error}",
    },
    "draw.browser_svg_only": {
        "en": "autogradviz: in the browser, drawings render as SVG only, not {fmt}: "
        "save the drawing as .svg (GraphView.save('graph.svg')).",
        "zh": "autogradviz：在浏览器里只能把图画成 SVG，不能画成 {fmt}：请保存为 .svg（GraphView.save('graph.svg')）。",
    },
    # --- the BackwardStepper (widgets/stepper.*) ---
    "torch.no_formula": {
        "en": "no formula for {name}: PyTorch does not expose its local derivative, "
        "and autogradviz has no node of that name",
        "zh": "没有 {name} 的公式：PyTorch 不公开它的局部导数，autogradviz 也没有同名的节点。",
    },
    "stepper.reset": {"en": "⇤ Reset", "zh": "⇤ 重置"},
    "stepper.reset_tip": {"en": "back to the start", "zh": "回到开头"},
    "stepper.back": {"en": "◀ Back", "zh": "◀ 后退"},
    "stepper.back_tip": {"en": "one step back", "zh": "后退一步"},
    "stepper.next": {"en": "Next ▶", "zh": "前进 ▶"},
    "stepper.next_tip": {"en": "run the next node", "zh": "运行下一个节点"},
    "stepper.play": {"en": "▶ Play", "zh": "▶ 播放"},
    "stepper.pause": {"en": "❚❚ Pause", "zh": "❚❚ 暂停"},
    "stepper.play_tip": {"en": "play / pause", "zh": "播放 / 暂停"},
    "stepper.end": {"en": "Run to end ⇥", "zh": "运行到底 ⇥"},
    "stepper.end_tip": {"en": "run every remaining node", "zh": "运行剩下的所有节点"},
    # the layer view (stepper.js): step into a module's ops and back out, zoom the picture
    "stepper.into": {"en": "⤓ Step into", "zh": "⤓ 步入"},
    "stepper.into_tip": {
        "en": "open this layer and walk its ops one by one (Enter; or click a layer's box)",
        "zh": "打开这一层，逐个运算地走（Enter；也可以点击某一层的方框）",
    },
    "stepper.out": {"en": "⤒ Step out", "zh": "⤒ 步出"},
    "stepper.out_tip": {"en": "back to the layer view (Esc)", "zh": "回到按层显示的视图（Esc）"},
    "stepper.inside": {"en": "inside {name}:", "zh": "{name} 内部："},
    "stepper.zoom_in": {"en": "+", "zh": "+"},
    "stepper.zoom_out": {"en": "−", "zh": "−"},
    "stepper.zoom_fit": {"en": "Fit", "zh": "适应"},
    "stepper.zoom_tip": {
        "en": "zoom the picture: these buttons, Ctrl + wheel or a pinch; move it: drag it or scroll",
        "zh": "缩放图片：用这些按钮、Ctrl + 滚轮或双指捏合；移动图片：拖动或滚动",
    },
    "stepper.slider_tip": {"en": "position", "zh": "位置"},
    "stepper.speed_tip": {"en": "steps per second", "zh": "每秒步数"},
    "stepper.speed": {"en": "{rate} step/s", "zh": "{rate} 步/秒"},
    "stepper.keys_tip": {
        "en": "keys: ← → step, Space plays and pauses, Home and End; Enter steps into a layer, Esc steps out",
        "zh": "按键：← → 逐步，空格键播放或暂停，Home 和 End 跳到开头和结尾；Enter 步入一层，Esc 步出",
    },
    "stepper.legend.done": {"en": "done", "zh": "已完成"},
    "stepper.legend.current": {"en": "current", "zh": "当前"},
    "stepper.legend.waiting": {"en": "waiting", "zh": "等待中"},
    "stepper.legend.untouched": {"en": "untouched", "zh": "未触及"},
    "stepper.title.start": {"en": "Start: {steps} steps to go", "zh": "开始：共 {steps} 步"},
    "stepper.title.step": {
        "en": "Step {position} of {last}: {name}",
        "zh": "第 {position} 步（共 {last} 步）：{name}",
    },
    "stepper.panel.start": {
        "en": "Backward starts at <b>{root}</b> with the gradient <code>{seed}</code> (d output / d output).",
        "zh": "反向传播从 <b>{root}</b> 开始，初始梯度为 <code>{seed}</code>（输出对自身的导数 d 输出 / d 输出）。",
    },
    "stepper.panel.order": {
        "en": "The engine will run the nodes in this (topological) order, "
        "each only after every node that sends it gradient: {order}.",
        "zh": "引擎将按以下（拓扑）顺序运行各节点，每个节点都在所有向它传梯度的节点之后运行：{order}。",
    },
    "stepper.panel.more": {"en": "… {count} more …", "zh": "……另外 {count} 个……"},
    "stepper.panel.reverses": {
        "en": "<b>{name}</b> reverses <code>{op}</code>",
        "zh": "<b>{name}</b> 是 <code>{op}</code> 的反向",
    },
    "stepper.panel.upstream": {
        "en": "gradient arriving (upstream): <code>{upstream}</code>",
        "zh": "到达的梯度（上游）：<code>{upstream}</code>",
    },
    "stepper.panel.leaf_new": {
        "en": "<b>{name}.grad</b> was None, and becomes <code>{value}</code>",
        "zh": "<b>{name}.grad</b> 原为 None，现在变为 <code>{value}</code>",
    },
    "stepper.panel.leaf_add": {
        "en": "<b>{name}.grad</b> accumulates: <code>{before}</code> + <code>{upstream}</code> = <code>{after}</code>",
        "zh": "<b>{name}.grad</b> 累加：<code>{before}</code> + <code>{upstream}</code> = <code>{after}</code>",
    },
    "stepper.panel.code": {
        "en": "its backward is your code, <code>{op}.backward</code>:",
        "zh": "它的反向传播是你写的代码 <code>{op}.backward</code>：",
    },
    "stepper.panel.rules": {"en": "local derivatives:", "zh": "局部导数："},
    "stepper.panel.sent": {
        "en": "to <b>{target}</b> (input {number}): upstream × local = {line}",
        "zh": "传给 <b>{target}</b>（第 {number} 个输入）：上游 × 局部 = {line}",
    },
    "stepper.panel.reduce": {
        "en": "broadcasting undone: summed over axes {axes}, shape {before} → {after}: <code>{value}</code>",
        "zh": "撤销广播：沿轴 {axes} 求和，形状 {before} → {after}：<code>{value}</code>",
    },
    "stepper.panel.merge": {
        "en": "paths meet at <b>{target}</b>: <code>{before}</code> + <code>{value}</code> = <code>{after}</code>",
        "zh": "多条路径在 <b>{target}</b> 汇合：<code>{before}</code> + <code>{value}</code> = <code>{after}</code>",
    },
    "stepper.table.tensor": {"en": "tensor", "zh": "张量"},
    "stepper.table.gradient": {"en": "gradient", "zh": "梯度"},
    "stepper.table.written": {"en": "written", "zh": "已写入"},
    "stepper.table.arriving": {"en": "arriving", "zh": "已到达"},
    "stepper.table.complete": {"en": "complete", "zh": "已完整"},
    "stepper.table.so_far": {"en": "so far", "zh": "目前累计"},
    "stepper.unnamed": {"en": "(unnamed)", "zh": "（未命名）"},
    "stepper.leaf": {"en": "leaf", "zh": "叶子张量"},
    "stepper.output_of": {"en": "output of {op}", "zh": "{op} 的输出"},
    "stepper.target": {"en": "{target} (input {number})", "zh": "{target}（第 {number} 个输入）"},
    "stepper.quiz.head": {
        "en": "Your turn: what will the next node send?",
        "zh": "轮到你了：下一个节点会传出什么？",
    },
    "stepper.quiz.to": {"en": "to {target}: ", "zh": "传给 {target}："},
    "stepper.quiz.check": {"en": "Check", "zh": "检查"},
    "stepper.quiz.check_tip": {
        "en": "compare with what backward computes",
        "zh": "与 backward 的计算结果比较",
    },
    "stepper.quiz.right": {"en": "Right! Press Next to see it.", "zh": "答对了！按“前进 ▶”看看。"},
    "stepper.quiz.wrong": {"en": "Not quite. Hint: {hint}", "zh": "不太对。提示：{hint}"},
    "stepper.quiz.hint": {
        "en": "{name}: {rules}. The upstream gradient is {upstream}.",
        "zh": "{name}：{rules}。上游梯度是 {upstream}。",
    },
    "stepper.quiz.hint_leaf": {"en": " This step only writes .grad.", "zh": "这一步只写入 .grad。"},
    "stepper.quiz.rule_separator": {"en": "; ", "zh": "；"},
    "stepper.page_title": {
        "en": "autogradviz: backward, step by step",
        "zh": "autogradviz：逐步演示反向传播",
    },
    "stepper.static_note": {
        "en": "A still picture of the first frame: run the cell to step through backward.",
        "zh": "这是第一帧的静态图：运行该单元格，即可用逐步演示器逐步查看反向传播。",
    },
    "stepper.summary": {
        "en": "<autogradviz BackwardStepper: {steps} steps, at position {position}>",
        "zh": "<autogradviz 逐步演示器：共 {steps} 步，当前位置 {position}>",
    },
    # --- the TrainingMonitor (widgets/monitor.py) ---
    "monitor.repr": {
        "en": "<autogradviz TrainingMonitor: step {step}>",
        "zh": "<autogradviz 训练监视器：第 {step} 步>",
    },
    "monitor.default_title": {"en": "Training", "zh": "训练"},
    "monitor.step": {"en": "step {step}", "zh": "步数 {step}"},
    "monitor.step_of": {"en": "step {step}/{total}", "zh": "步数 {step}/{total}"},
    "monitor.loss_value": {"en": "loss {value}", "zh": "损失 {value}"},
    "monitor.steps_per_second": {"en": "{rate} it/s", "zh": "{rate} 步/秒"},
    "monitor.seconds_per_step": {"en": "{seconds} s/it", "zh": "{seconds} 秒/步"},
    "monitor.rate_unknown": {"en": "? it/s", "zh": "? 步/秒"},
    "monitor.done_in": {"en": "done in {duration}", "zh": "已完成，用时 {duration}"},
    "monitor.eta": {"en": "ETA {duration}", "zh": "预计剩余 {duration}"},
    "monitor.elapsed": {"en": "elapsed {duration}", "zh": "已用 {duration}"},
    "monitor.loss_title": {"en": "loss", "zh": "损失"},
    "monitor.step_axis": {"en": "step", "zh": "步数"},
    "monitor.metrics_title": {"en": "metrics", "zh": "指标"},
    "monitor.grad_title": {"en": "gradient norm per layer", "zh": "每层的梯度范数"},
    "monitor.grad_axis": {"en": "L2 norm of the gradient (log scale)", "zh": "梯度的 L2 范数（对数刻度）"},
    "monitor.vanishing": {"en": "vanishing", "zh": "梯度消失"},
    "monitor.exploding": {"en": "exploding", "zh": "梯度爆炸"},
    "monitor.no_grad": {"en": "no .grad", "zh": "没有 .grad"},
    "monitor.no_cjk_font": {
        "en": "The TrainingMonitor's picture has Chinese text, but matplotlib finds no CJK font "
        "(Noto Sans CJK SC, Source Han Sans SC, WenQuanYi Micro Hei, PingFang SC or Microsoft YaHei): "
        "the Chinese will show as empty boxes. On Debian or Ubuntu: `sudo apt-get install fonts-noto-cjk`, "
        "then restart the kernel.",
        "zh": "训练监视器的图里有中文，但 matplotlib 找不到中文字体"
        "（Noto Sans CJK SC、Source Han Sans SC、WenQuanYi Micro Hei、PingFang SC 或 Microsoft YaHei）："
        "中文会显示成空方框。Debian 或 Ubuntu 上请运行 `sudo apt-get install fonts-noto-cjk`，"
        "然后重启内核。",
    },
    # --- lessons and exercises (checks, hints) ---
    "exercises.not_answered": {
        "en": "Exercise {number} is not answered yet: write {names} in the cell above (in place of `...`), run it, then run this check again.",
        "zh": "练习 {number} 还没有作答：请在上面的单元格里写出 {names}（替换 `...`），运行它，再运行这个检查。",
    },
    "exercises.hint": {"en": "Hint: {task}", "zh": "提示：{task}"},
    "exercises.name_separator": {"en": ", ", "zh": "、"},
    "exercises.stub_heading": {"en": "Exercise {number}: {task}", "zh": "练习 {number}：{task}"},
    "exercises.stub_replace": {
        "en": "Replace each ... with your code, run this cell, then run the check below.",
        "zh": "把每个 ... 换成你的代码，运行这个单元格，再运行下面的检查。",
    },
    "exercises.01.1": {
        "en": "create p, q, r and s as shown, then a dict `answers` mapping each name to the pair (is_leaf, requires_grad) you expect.",
        "zh": "按题目创建 p、q、r、s，再写一个字典 `answers`，把每个名字映射到你预期的 (is_leaf, requires_grad)。",
    },
    "exercises.01.2": {
        "en": "make scalar leaves u and v that require grad, and z = a formula whose grad_fn is MulBackward0, fed by (u + v) and by v.",
        "zh": "创建需要梯度的标量叶子 u 和 v，再写出 z：它的 grad_fn 是 MulBackward0，两个输入分别来自 (u + v) 和 v。",
    },
    "exercises.01.3": {
        "en": "define backward_nodes(t): walk next_functions from t.grad_fn and return each node once (remember the ones you have seen).",
        "zh": "定义 backward_nodes(t)：从 t.grad_fn 出发沿 next_functions 遍历，每个节点只返回一次（记下已经见过的节点）。",
    },
    "exercises.01.4": {
        "en": "without running f, set multiplications (an int) to the number of MulBackward0 nodes in the graph of f(-0.5), and grad_at_minus_half (a float) to a.grad.",
        "zh": "不运行 f，把 multiplications（整数）设为 f(-0.5) 的计算图中 MulBackward0 节点的个数，把 grad_at_minus_half（浮点数）设为 a.grad。",
    },
    "exercises.02.1": {
        "en": "set w_grad_by_hand and b_grad_by_hand to nested lists: the gradients of (v * y).sum() with respect to w and b.",
        "zh": "把 w_grad_by_hand 和 b_grad_by_hand 设为嵌套列表：(v * y).sum() 对 w 和对 b 的梯度。",
    },
    "exercises.02.2": {
        "en": "set at_a and at_b to lists: c.grad at (A) and at (B). Each backward adds 2c; zero_() clears.",
        "zh": "把 at_a 和 at_b 设为列表：(A) 处和 (B) 处的 c.grad。每次 backward 都加上 2c，zero_() 清零。",
    },
    "exercises.02.3": {
        "en": "set predictions to a dict: node name -> what that node sends, as nested lists (the mean gives each element 1/4).",
        "zh": "把 predictions 设为字典：节点名 -> 该节点发出的梯度，用嵌套列表表示（求平均时每个元素得到 1/4）。",
    },
    "exercises.02.4": {
        "en": "set p_grad, q_grad and r_grad to floats, predicted from the gate patterns alone (add distributes, mul swaps, max routes); p has two paths.",
        "zh": "只用门模式（加法分发、乘法交换、最大值路由）预测，把 p_grad、q_grad、r_grad 设为浮点数；p 有两条路径。",
    },
    "exercises.03.1": {
        "en": 'set predictions to a dict mapping "p" ... "t" to (requires_grad, is_leaf). detach() and no_grad() both give leaves.',
        "zh": '把 predictions 设为字典，把 "p" 到 "t" 映射到 (requires_grad, is_leaf)。detach() 和 no_grad() 都会得到叶子。',
    },
    "exercises.03.2": {
        "en": "make a2, out2 = a2.sigmoid(), and a snapshot of out2 that does not share its storage; zero the snapshot, then backward.",
        "zh": "创建 a2 和 out2 = a2.sigmoid()，再做一个不与 out2 共享存储的 snapshot；把 snapshot 清零，然后调用 backward。",
    },
    "exercises.03.3": {
        "en": "run 5 steps of gradient descent on (x - 3) ** 2 and append each loss to history as a Python float (f.item()).",
        "zh": "对 (x - 3) ** 2 做 5 步梯度下降，把每一步的损失以 Python 浮点数（f.item()）追加到 history。",
    },
    "exercises.04.1": {
        "en": "set accuracy to a Python float: the fraction of the four points whose predicted class matches y_t (under agv.no_grad()).",
        "zh": "把 accuracy 设为 Python 浮点数：四个点中预测类别与 y_t 相同的比例（在 agv.no_grad() 下计算）。",
    },
    "exercises.04.2": {
        "en": "set x2_on_boundary to a Python float: solve w1*0.5 + w2*x2 + b = 0 for x2, with the trained w and b.",
        "zh": "把 x2_on_boundary 设为 Python 浮点数：用训练好的 w 和 b，解 w1*0.5 + w2*x2 + b = 0 求 x2。",
    },
    "exercises.04.3": {
        "en": "make w_new from w0 and b_new = zeros(1) as in the lesson, train 10,000 epochs without the extra first step, and set final_loss to a float.",
        "zh": "像课上那样用 w0 创建 w_new、用 zeros(1) 创建 b_new，不做额外的第一步就训练 10,000 轮，再把 final_loss 设为浮点数。",
    },
    "exercises.04.4": {
        "en": "derive the squared error's gradients by hand and define mse_grad_w(X, y, w, b) (2x1, like w) and mse_grad_b(X, y, w, b) (one element), with tensor arithmetic only.",
        "zh": "亲手推导平方误差的梯度，定义 mse_grad_w(X, y, w, b)（2×1，与 w 相同）和 mse_grad_b(X, y, w, b)（一个元素），只用张量运算。",
    },
    "exercises.05.1": {
        "en": "without running the code, set m_grad to the list you expect in m.grad, and k_gets_grad to True or False: will k.grad hold a gradient?",
        "zh": "先不运行代码，把你预计 m.grad 中会有的列表存为 m_grad，再把 k_gets_grad 设为 True 或 False：k.grad 里会有梯度吗？",
    },
    "exercises.05.2": {
        "en": "derive x.grad after z.backward(v) for z = x**3, v = [1, 0, -1]: set predicted to it as a list, and same_loss(z) to a scalar with the same gradient.",
        "zh": "推导 z = x**3、v = [1, 0, -1] 时 z.backward(v) 之后的 x.grad：把它以列表存为 predicted，再让 same_loss(z) 返回一个梯度相同的标量。",
    },
    "exercises.05.3": {
        "en": "fix the loop so that grads holds three equal gradients [2.0, -4.0], and set bugs to the set of the two problems you found.",
        "zh": "修好这个循环，使 grads 中是三个相同的梯度 [2.0, -4.0]，再把 bugs 设为你找到的两个问题组成的集合。",
    },
    "exercises.06.1": {
        "en": "without running backward, set via_product and via_sum to the gradients q gets along each path (upstream × local), and total to q's gradient.",
        "zh": "不运行反向传播，把 q 沿两条路径各自得到的梯度（上游梯度 × 局部导数）存为 via_product 和 via_sum，再把 q 的梯度存为 total。",
    },
    "exercises.06.2": {
        "en": "set t_axes to the tuple of axes summed to bring the gradient back to t's shape, and t_grad to t's gradient as a nested list.",
        "zh": "把 t_axes 设为把梯度变回 t 的形状时求和的轴（元组），把 t_grad 设为 t 的梯度（嵌套列表）。",
    },
    "exercises.06.3": {
        "en": "set first_answer to what the first step sends, [to u * v, to w], and u_grad and v_grad to the gradients of u and v.",
        "zh": "把 first_answer 设为第一步发出的梯度 [给 u * v, 给 w]，再把 u_grad 和 v_grad 设为 u 和 v 的梯度。",
    },
    "exercises.07.1": {
        "en": "set n_params to the number of elements in model.parameters(), and classifier_share to classifier.0.weight's share of them.",
        "zh": "把 n_params 设为 model.parameters() 中元素的总数，把 classifier_share 设为 classifier.0.weight 所占的比例。",
    },
    "exercises.07.2": {
        "en": "set predicted_ratio to what you expect second / first to be; then, after net.zero_grad(), call backward twice on a fresh loss each time, with first a .clone() of net[0].weight.grad after the first and second after the second.",
        "zh": "先把 predicted_ratio 设为你预计的 second / first；再调用 net.zero_grad()，每次新建损失、调用两次 backward；第一次后把 net[0].weight.grad 的 .clone() 存为 first，第二次后存为 second。",
    },
    "exercises.07.3": {
        "en": "set misplaced to the line of the loop that is in the wrong place (as a string), fix the loop, and set small_accuracy to small's test accuracy as a float.",
        "zh": "把循环中位置放错的那一行（字符串）存为 misplaced，修好循环，再把 small 在测试集上的准确率以浮点数存为 small_accuracy。",
    },
    "exercises.08.1": {
        "en": "derive tanh'' and write tanh_second(t) as a function of t = tanh(x); then set d2 to the second derivative at 0.5 from agv.grad twice (the first with create_graph=True).",
        "zh": "推导 tanh''，把它写成只含 t = tanh(x) 的函数 tanh_second(t)；再调用两次 agv.grad（第一次带 create_graph=True），把 0.5 处的二阶导数存为 d2。",
    },
    "exercises.08.2": {
        "en": "without running the code, set clipped and after_removal to the two lists it prints (the hook clamps to [-1, 1]; w.grad is not reset in between).",
        "zh": "先不运行代码，把它打印的两个列表分别存为 clipped 和 after_removal（钩子把梯度截断到 [-1, 1]；两次之间没有重置 w.grad）。",
    },
    "exercises.08.3": {
        "en": "define normalize_fixed(x): the same values as normalize_broken, but the length stays a tensor in the graph (no .item()).",
        "zh": "定义 normalize_fixed(x)：值与 normalize_broken 相同，但长度要作为张量留在计算图中（不要用 .item()）。",
    },
    # --- exercises of lesson 09 (build micrograd) ---
    "exercises.09.1": {
        "en": "for f = (a * b) * (a + b) at a = -2, b = 3, derive ∂f/∂a and ∂f/∂b by hand and set a_grad and b_grad to them.",
        "zh": "对 a = -2、b = 3 处的 f = (a * b) * (a + b)，手工推导 ∂f/∂a 和 ∂f/∂b，分别赋给 a_grad 和 b_grad。",
    },
    "exercises.09.2": {
        "en": "for f = (x + y) * x at x = 3, y = 2, set buggy_x_grad to what OverwritingValue writes into x.grad, and true_x_grad to the right ∂f/∂x.",
        "zh": "对 x = 3、y = 2 处的 f = (x + y) * x，把 buggy_x_grad 设为 OverwritingValue 写进 x.grad 的值，把 true_x_grad 设为正确的 ∂f/∂x。",
    },
    "exercises.09.3": {
        "en": "define tanh(v): a new Value holding math.tanh(v.data), made from (v,), whose _backward adds (1 - t**2) * out.grad to v.grad.",
        "zh": "定义 tanh(v)：返回一个由 (v,) 算出的新 Value，其 _backward 把 (1 - t**2) * out.grad 累加到 v.grad 上，值为 math.tanh(v.data)。",
    },
    "exercises.09.4": {
        "en": "define topological_order_iterative(root): every Value root depends on, once each and after its children, using a stack instead of recursion.",
        "zh": "定义 topological_order_iterative(root)：root 依赖的每个 Value 各出现一次、排在其子节点之后，用栈代替递归。",
    },
    # --- exercises of lesson 10 (matrix backprop) ---
    "exercises.10.1": {
        "en": "define left_grads(dZ, W, X) returning (dW, dX) for Z = W @ X, W of shape (M, D), X of shape (D, N): find the products whose shapes fit.",
        "zh": "定义 left_grads(dZ, W, X)，对 Z = W @ X（W 的形状为 (M, D)，X 的形状为 (D, N)）返回 (dW, dX)：找出形状对得上的乘积。",
    },
    "exercises.10.2": {
        "en": "write class MyLinear(LinearFunction) with a staticmethod backward(ctx, grad_output) returning (dx, dweight, dbias), each of its input's shape.",
        "zh": "写出 class MyLinear(LinearFunction)，它的静态方法 backward(ctx, grad_output) 返回 (dx, dweight, dbias)，每个都与对应输入同形状。",
    },
    "exercises.10.3": {
        "en": "set s_grad and c_grad to tensors computed from A and dZ: the gradients of (dZ * (A * s + c)).sum() for s (1, 3) and c (4, 1), with keepdim=True.",
        "zh": "用 A 和 dZ 算出张量 s_grad 和 c_grad：(dZ * (A * s + c)).sum() 对 s (1, 3) 和 c (4, 1) 的梯度，求和时用 keepdim=True。",
    },
    "exercises.10.4": {
        "en": "from the forward tensors only, compute dlogits = (softmax - onehot) / N, then dW2, db2, dh, dh_pre (ReLU: dh where h_pre > 0), dW1 and db1.",
        "zh": "只用前向计算中的张量，先算 dlogits = (softmax - onehot) / N，再算 dW2、db2、dh、dh_pre（ReLU：h_pre > 0 处取 dh）、dW1 和 db1。",
    },
    # --- exercises of lesson 11 (debugging gradients) ---
    "exercises.11.1": {
        "en": "set dead_units to the sorted list of suspect's dead units in its second hidden layer (the outputs of suspect[2]): count the rows of zero gradient.",
        "zh": "把 dead_units 设为 suspect 第二个隐藏层（suspect[2] 的输出）中“死掉”的神经元的编号，按从小到大排成列表：数一数哪些行的梯度全为零。",
    },
    "exercises.11.2": {
        "en": "predict, then check with scan(): set inf_node and nan_node to the names of the backward nodes that first send an inf and first send a NaN.",
        "zh": "先预测，再用 scan() 验证：把 inf_node 和 nan_node 分别设为最先送出 inf 和最先送出 NaN 的反向节点的名字。",
    },
    "exercises.11.3": {
        "en": "define FixedHypot, an agv.autograd.Function like Hypot but with a correct backward, so that gradcheck passes.",
        "zh": "定义 FixedHypot：一个和 Hypot 一样的 agv.autograd.Function，但反向传播要写对，使 gradcheck 通过。",
    },
    "exercises.11.4": {
        "en": 'set prediction to "converges", "oscillates" or "diverges" before running; then set losses_without to the 30 losses of the loop without zero_grad().',
        "zh": "运行之前，先把 prediction 设为字符串 converges、oscillates 或 diverges 之一；然后把 losses_without 设为去掉 zero_grad() 的循环中 30 步的损失。",
    },
    # --- exercises of lesson 12 (forward and reverse mode) ---
    "exercises.12.1": {
        "en": "define dual_div(p, q) returning the Dual of p / q (tangent by the quotient rule; q may be a plain number), then set Dual.__truediv__ = dual_div.",
        "zh": "定义 dual_div(p, q)，返回 p / q 对应的 Dual（切向量按商的求导法则；q 也可以是普通的数），再令 Dual.__truediv__ = dual_div。",
    },
    "exercises.12.2": {
        "en": 'set predictions to a dict {"A": (forward passes, backward passes), "B": ..., "C": ...}: forward mode needs one pass per input, reverse mode one backward pass per output.',
        "zh": '把 predictions 设为字典 {"A": (前向遍数, 反向遍数), "B": ..., "C": ...}：前向模式每个输入一遍，反向模式每个输出一遍反向传播。',
    },
    "exercises.12.3": {
        "en": "set g to the gradient of energy(x) with respect to x, kept in the graph (create_graph=True), and hv to H v: the gradient of the scalar g · v with respect to x.",
        "zh": "把 g 设为 energy(x) 对 x 的梯度，并让它留在计算图中（create_graph=True）；再把 hv 设为 H v：标量 g · v 对 x 的梯度。",
    },
    # --- the layer stepper's panel: one layer's backward step in matrix form (widgets/layer_text.py);
    # {formula}-like fields are symbols (the same in both languages), shapes are tuples like (8, 16)
    "layer.dy": {
        "en": "<code>dY</code> {shape}: the gradient arriving at the layer's output Y, <code>∂loss/∂Y</code>, one number per entry of Y.",
        "zh": "<code>dY</code> {shape}：到达本层输出 Y 的梯度 <code>∂loss/∂Y</code>，Y 的每个元素对应一个数。",
    },
    "layer.scalar": {"en": "(), a scalar", "zh": "()，即标量"},
    "layer.x_shape": {"en": "X's shape", "zh": "X 的形状"},
    "layer.linear.forward": {
        "en": "{name} forward: {formula}, X {x} → Y {y}; the weight W {w} is stored as (out_features, in_features).",
        "zh": "{name} 前向：{formula}，X {x} → Y {y}；权重 W {w} 按 (out_features, in_features) 存放。",
    },
    "layer.linear.forward_nobias": {
        "en": "{name} forward: {formula} (no bias), X {x} → Y {y}; the weight W {w} is stored as (out_features, in_features).",
        "zh": "{name} 前向：{formula}（没有偏置），X {x} → Y {y}；权重 W {w} 按 (out_features, in_features) 存放。",
    },
    "layer.linear.rows": {
        "en": "X {x} has more than two dims: its leading dims are flattened into {rows} rows, so X is used as {x2} and dY as {dy2}; dX is reshaped back to {x}.",
        "zh": "X {x} 不止两维：前面几维展平成 {rows} 行，所以 X 按 {x2}、dY 按 {dy2} 参与计算；dX 最后再变回 {x}。",
    },
    "layer.linear.one_row": {
        "en": "X {x} is a single sample: it is used as one row {x2}, and dY as {dy2}.",
        "zh": "X {x} 只是一个样本：把它当作一行 {x2}，dY 当作 {dy2}。",
    },
    "layer.linear.dx": {
        "en": "Sent to the input: {formula}: {dy}·{w} → {dx}",
        "zh": "发给输入的梯度：{formula}：{dy}·{w} → {dx}",
    },
    "layer.linear.dw": {
        "en": "Weight gradient: {formula}: {dyt}·{x} → {dw}",
        "zh": "权重的梯度：{formula}：{dyt}·{x} → {dw}",
    },
    "layer.linear.db": {
        "en": "Bias gradient: {formula}, summed over the batch ({rows} rows) → {db}",
        "zh": "偏置的梯度：{formula}，对批次求和（{rows} 行）→ {db}",
    },
    "layer.linear.textbook": {
        "en": "Textbook form, {forward} with W′ = Wᵀ of shape {wt}: {dx}, {dw}; the same numbers, since {same}.",
        "zh": "教科书的写法是 {forward}，其中 W′ = Wᵀ，形状为 {wt}：{dx}，{dw}；数值完全相同，因为 {same}。",
    },
    "layer.conv.forward": {
        "en": "{name} forward: {cout} kernels of shape {k} (C_in, kH, kW) slide over X {x} (N, C_in, H, W) → Y {y} (N, C_out, H_out, W_out).",
        "zh": "{name} 前向：{cout} 个形状为 {k}（C_in, kH, kW）的卷积核在 X {x}（N, C_in, H, W）上滑动 → Y {y}（N, C_out, H_out, W_out）。",
    },
    "layer.conv.dx": {
        "en": "Sent to the input: {formula}, the full correlation of dY with each kernel flipped 180° (a “transposed convolution”), summed over the {cout} output channels: {y} → {x}",
        "zh": "发给输入的梯度：{formula}，即 dY 与旋转 180° 的卷积核做完全相关（“转置卷积”），再对 {cout} 个输出通道求和：{y} → {x}",
    },
    "layer.conv.stride": {
        "en": "Stride {stride}: dY is first dilated by the stride (stride − 1 zeros between neighbouring entries); input rows and columns that no window reached get 0.",
        "zh": "步长 {stride}：先按步长把 dY 扩张（相邻元素之间插入（步长 − 1）个零）；没有被任何窗口覆盖的输入行和列得到 0。",
    },
    "layer.conv.padding": {
        "en": "Padding {padding}: the border of the result that falls on the zero padding is cropped, which leaves X's shape.",
        "zh": "填充 {padding}：结果中落在零填充上的边框被裁掉，剩下的正好是 X 的形状。",
    },
    "layer.conv.dilation": {
        "en": "Dilation {dilation}: the flipped kernel is spread out the same way, with gaps between its taps.",
        "zh": "空洞 {dilation}：翻转后的卷积核也同样张开，各个抽头之间留有间隔。",
    },
    "layer.conv.dw": {
        "en": "Weight gradient: {formula}, the correlation of the input with dY, summed over the batch: X {x} and dY {y} → {w}",
        "zh": "权重的梯度：{formula}，即输入与 dY 做相关，再对批次求和：X {x} 和 dY {y} → {w}",
    },
    "layer.conv.db": {
        "en": "Bias gradient: {formula}, summed over N, H_out and W_out: {y} → {b}",
        "zh": "偏置的梯度：{formula}，对 N、H_out 和 W_out 求和：{y} → {b}",
    },
    "layer.act.forward": {
        "en": "{name} forward: {formula}, element by element: X {x} → Y {y}.",
        "zh": "{name} 前向：{formula}，逐元素计算：X {x} → Y {y}。",
    },
    "layer.act.forward_slice": {
        "en": "{name} forward: {formula}, each slice along the dim as a whole: X {x} → Y {y}.",
        "zh": "{name} 前向：{formula}，沿该维的每个切片整体计算：X {x} → Y {y}。",
    },
    "layer.act.dx": {
        "en": "Sent to the input: {formula}: {y} → {x}",
        "zh": "发给输入的梯度：{formula}：{y} → {x}",
    },
    "layer.relu.mask": {
        "en": "The mask {mask} is 1 where the input was positive and 0 elsewhere: the gradient passes where the input was positive and stops everywhere else.",
        "zh": "掩码 {mask} 在输入为正的位置是 1，其他位置是 0：梯度只在输入为正的地方通过，其余地方被挡住。",
    },
    "layer.leaky_relu.note": {
        "en": "The gradient passes unchanged where the input was positive and is scaled by the slope {slope} elsewhere, so it never stops completely.",
        "zh": "输入为正的地方梯度原样通过，其他地方乘以斜率 {slope}，所以梯度不会被完全挡住。",
    },
    "layer.tanh.note": {
        "en": "The factor {factor} is computed from the output: it is 1 where Y = 0 and close to 0 where tanh saturates (|Y| near 1), so there the gradient fades.",
        "zh": "因子 {factor} 由输出算出：Y = 0 时为 1，tanh 饱和（|Y| 接近 1）时接近 0，梯度在那里逐渐消失。",
    },
    "layer.sigmoid.note": {
        "en": "The factor {factor} is computed from the output: at most 1/4 (where X = 0) and close to 0 where σ saturates, so there the gradient fades.",
        "zh": "因子 {factor} 由输出算出：最大为 1/4（X = 0 时），σ 饱和时接近 0，梯度在那里逐渐消失。",
    },
    "layer.softmax.note": {
        "en": "The sum runs along dim {dim}: every output depends on every input of its slice, so each entry of dX mixes all of the slice's dY.",
        "zh": "求和沿 dim {dim} 进行：每个输出都依赖同一切片中的所有输入，所以 dX 的每个元素都混合了该切片的全部 dY。",
    },
    "layer.log_softmax.note": {
        "en": "The sum runs along dim {dim}, and e^Y = softmax(X): each entry of dX takes its own dY minus its probability times the slice's total dY.",
        "zh": "求和沿 dim {dim} 进行，且 e^Y = softmax(X)：dX 的每个元素等于自己的 dY 减去它的概率乘以该切片 dY 的总和。",
    },
    "layer.bn.over_batch": {"en": "over the batch (N = {n})", "zh": "在批次上（N = {n}）"},
    "layer.bn.over_dims": {"en": "over {dims} (M = {m})", "zh": "在 {dims} 上（M = {m}）"},
    "layer.bn.forward": {
        "en": "{name} forward (training): each of the {c} features is normalised {over}: {xhat}, {formula}, ε = {eps}; X {x} → Y {y}.",
        "zh": "{name} 前向（训练模式）：{c} 个特征各自{over}做归一化：{xhat}，{formula}，ε = {eps}；X {x} → Y {y}。",
    },
    "layer.bn.dgamma": {
        "en": "Weight gradient: {formula}, summed {over} → {c}",
        "zh": "权重 γ 的梯度：{formula}，{over}求和 → {c}",
    },
    "layer.bn.dbeta": {
        "en": "Bias gradient: {formula}, summed {over} → {c}",
        "zh": "偏置 β 的梯度：{formula}，{over}求和 → {c}",
    },
    "layer.bn.dx": {
        "en": "Sent to the input: {formula}, with {symbol} = {m} and the sums per feature: {y} → {x}",
        "zh": "发给输入的梯度：{formula}，其中 {symbol} = {m}，各个求和都按特征分别进行：{y} → {x}",
    },
    "layer.bn.why": {
        "en": "The two subtracted terms are there because μ and σ² come from the whole batch: moving one sample moves the mean and variance that every other sample is normalised with.",
        "zh": "减去的两项来自 μ 和 σ² 由整个批次算出：改变一个样本，会改变所有其他样本归一化时用到的均值和方差。",
    },
    "layer.bn.eval_forward": {
        "en": "{name} forward (eval): the running statistics are constants: {xhat}, {formula}, ε = {eps}; X {x} → Y {y}.",
        "zh": "{name} 前向（评估模式）：滑动统计量是常数：{xhat}，{formula}，ε = {eps}；X {x} → Y {y}。",
    },
    "layer.bn.eval_dgamma": {
        "en": "Weight gradient: {formula}, summed over the batch → {c}",
        "zh": "权重 γ 的梯度：{formula}，对批次求和 → {c}",
    },
    "layer.bn.eval_dbeta": {
        "en": "Bias gradient: {formula}, summed over the batch → {c}",
        "zh": "偏置 β 的梯度：{formula}，对批次求和 → {c}",
    },
    "layer.bn.eval_dx": {
        "en": "Sent to the input: {formula}, a fixed scale per feature (the batch does not enter): {y} → {x}",
        "zh": "发给输入的梯度：{formula}，每个特征乘一个固定的系数（与批次中其他样本无关）：{y} → {x}",
    },
    "layer.ln.forward": {
        "en": "{name} forward: each sample is normalised over its last dims {norm} ({d} values): {xhat}, {formula}, ε = {eps}; X {x} → Y {y}.",
        "zh": "{name} 前向：每个样本在最后几维 {norm}（{d} 个数）上归一化：{xhat}，{formula}，ε = {eps}；X {x} → Y {y}。",
    },
    "layer.ln.dgamma": {
        "en": "Weight gradient: {formula}, summed over the {rows} samples → {norm}",
        "zh": "权重 γ 的梯度：{formula}，对 {rows} 个样本求和 → {norm}",
    },
    "layer.ln.dbeta": {
        "en": "Bias gradient: {formula}, summed over the {rows} samples → {norm}",
        "zh": "偏置 β 的梯度：{formula}，对 {rows} 个样本求和 → {norm}",
    },
    "layer.ln.dx": {
        "en": "Sent to the input: with {g}, {formula}, D = {d}, the sums over each sample's normalised values: {y} → {x}",
        "zh": "发给输入的梯度：记 {g}，则 {formula}，D = {d}，求和在每个样本被归一化的那些数上进行：{y} → {x}",
    },
    "layer.ln.why": {
        "en": "Like BatchNorm, but the statistics belong to one sample: samples do not affect each other's gradients.",
        "zh": "和 BatchNorm 类似，但统计量只属于单个样本：样本之间的梯度互不影响。",
    },
    "layer.loss.dy": {
        "en": "<code>dY</code> {shape}: the gradient arriving at the loss; it is 1 when backward starts at the loss.",
        "zh": "<code>dY</code> {shape}：到达损失的梯度；从损失开始反向传播时它就是 1。",
    },
    "layer.loss.dy_none": {
        "en": "<code>dY</code> {shape}: the gradient arriving at the loss, one number per sample.",
        "zh": "<code>dY</code> {shape}：到达损失的梯度，每个样本一个数。",
    },
    "layer.reduction.mean": {"en": "averaged over the N = {n} samples", "zh": "再对 N = {n} 个样本取平均"},
    "layer.reduction.sum": {"en": "summed over the N = {n} samples", "zh": "再对 N = {n} 个样本求和"},
    "layer.reduction.none": {"en": "one loss per sample (N = {n})", "zh": "每个样本一个损失（N = {n}）"},
    "layer.ce.forward": {
        "en": "{name} forward: softmax of each row of logits, then −log of the target class's probability, {reduction}: logits {x} (N, C) → loss {y}.",
        "zh": "{name} 前向：对 logits 的每一行做 softmax，再取目标类别概率的 −log，{reduction}：logits {x}（N, C）→ 损失 {y}。",
    },
    "layer.nll.forward": {
        "en": "{name} forward: minus the input's entry at the target class (the input holds log-probabilities), {reduction}: X {x} (N, C) → loss {y}.",
        "zh": "{name} 前向：取输入在目标类别处的值的相反数（输入是对数概率），{reduction}：X {x}（N, C）→ 损失 {y}。",
    },
    "layer.loss.dx_logits": {
        "en": "Sent to the logits: {formula} → {x}",
        "zh": "发给 logits 的梯度：{formula} → {x}",
    },
    "layer.loss.dx_input": {
        "en": "Sent to the input: {formula} → {x}",
        "zh": "发给输入的梯度：{formula} → {x}",
    },
    "layer.ce.note": {
        "en": "Each row of softmax(logits) − onehot(target) sums to 0: the target class's score is pushed up by 1 − p, every other class's pushed down by its probability p.",
        "zh": "softmax(logits) − onehot(target) 的每一行之和为 0：目标类别的分数被往上推 1 − p，其他每个类别按它的概率 p 被往下推。",
    },
    "layer.nll.note": {
        "en": "Only the target class's entry of each row gets a gradient; the log-softmax before this loss turns it into softmax − onehot.",
        "zh": "每一行只有目标类别的位置得到梯度；前面的 log-softmax 再把它变成 softmax − onehot。",
    },
    "layer.loss.weights": {
        "en": "With class weights w, row n is scaled by w[targetₙ], and the mean divides by Σ w[target] instead of N.",
        "zh": "有类别权重 w 时，第 n 行乘以 w[targetₙ]，取平均时除以 Σ w[target] 而不是 N。",
    },
    "layer.loss.mean_sum_mean": {
        "en": "The / N (N = {n}) comes from reduction='mean'; with reduction='sum' it is not there.",
        "zh": "除以 N（N = {n}）来自 reduction='mean'；若用 reduction='sum' 就没有这一步。",
    },
    "layer.loss.mean_sum_sum": {
        "en": "reduction='sum': no / N; with reduction='mean' every entry would be divided by N = {n}.",
        "zh": "reduction='sum'：不除以 N；若用 reduction='mean'，每个元素都要再除以 N = {n}。",
    },
    "layer.loss.mean_sum_none": {
        "en": "reduction='none': dY holds one gradient per sample, and each scales its own row (N = {n}).",
        "zh": "reduction='none'：dY 每个样本一个梯度，各自乘到自己那一行上（N = {n}）。",
    },
    "layer.mse.reduction.mean": {
        "en": "averaged over all n = {n} elements",
        "zh": "对全部 n = {n} 个元素取平均",
    },
    "layer.mse.reduction.sum": {"en": "summed over all n = {n} elements", "zh": "对全部 n = {n} 个元素求和"},
    "layer.mse.reduction.none": {"en": "one loss per element (n = {n})", "zh": "每个元素一个损失（n = {n}）"},
    "layer.mse.forward": {
        "en": "{name} forward: the squared differences (Ŷ − Y)² between the prediction Ŷ {x} and the target Y, {reduction} → loss {y}.",
        "zh": "{name} 前向：预测 Ŷ {x} 与目标 Y 之差的平方 (Ŷ − Y)²，{reduction} → 损失 {y}。",
    },
    "layer.mse.dx": {
        "en": "Sent to the prediction: {formula} → {x}",
        "zh": "发给预测值的梯度：{formula} → {x}",
    },
    "layer.mse.note_mean": {
        "en": "n = {n} counts every element, not only the samples of the batch; the target, if it needs a gradient, gets {target}.",
        "zh": "n = {n} 数的是全部元素，不只是批次中的样本数；如果目标也需要梯度，它得到 {target}。",
    },
    "layer.mse.note_sum": {
        "en": "reduction='sum': no / n (n = {n}); the target, if it needs a gradient, gets {target}.",
        "zh": "reduction='sum'：不除以 n（n = {n}）；如果目标也需要梯度，它得到 {target}。",
    },
    "layer.mse.note_none": {
        "en": "reduction='none': dY holds one gradient per element (n = {n}); the target, if it needs a gradient, gets {target}.",
        "zh": "reduction='none'：dY 每个元素一个梯度（n = {n}）；如果目标也需要梯度，它得到 {target}。",
    },
    "layer.dropout.forward": {
        "en": "{name} forward (training, p = {p}): each element is zeroed with probability p, the others are scaled by 1/(1 − p) = {scale}: X {x} → Y {y}.",
        "zh": "{name} 前向（训练模式，p = {p}）：每个元素以概率 p 置零，其余乘以 1/(1 − p) = {scale}：X {x} → Y {y}。",
    },
    "layer.dropout.note": {
        "en": "The mask is the one drawn in the forward pass: zeroed elements get no gradient, the others get dY times {scale}.",
        "zh": "掩码就是前向传播时抽到的那一个：被置零的元素得不到梯度，其余元素得到 dY 乘以 {scale}。",
    },
    "layer.dropout.eval_forward": {
        "en": "{name} (p = {p}) does nothing here (eval mode, or p = 0): Y = X.",
        "zh": "{name}（p = {p}）在这里什么也不做（评估模式，或 p = 0）：Y = X。",
    },
    "layer.reshape.forward": {
        "en": "{name} forward: only a reshape, X {x} → Y {y}; no number changes.",
        "zh": "{name} 前向：只改变形状，X {x} → Y {y}；数值一个也不变。",
    },
    "layer.reshape.dx": {
        "en": "Sent to the input: {formula}, dY reshaped back to X's shape: {y} → {x}",
        "zh": "发给输入的梯度：{formula}，即把 dY 变回 X 的形状：{y} → {x}",
    },
    "layer.maxpool.forward": {
        "en": "{name} forward: each {k} window (stride {s}) of X {x} keeps its maximum → Y {y}.",
        "zh": "{name} 前向：X {x} 的每个 {k} 窗口（步长 {s}）只保留最大值 → Y {y}。",
    },
    "layer.maxpool.dx": {
        "en": "Sent to the input: each entry of dY goes to the position of its window's maximum; every other position gets 0: {y} → {x}",
        "zh": "发给输入的梯度：dY 的每个元素都送到它所在窗口最大值的位置，其他位置得到 0：{y} → {x}",
    },
    "layer.pool.overlap": {
        "en": "The windows overlap (stride {s} &lt; kernel {k}): a position that several windows send to adds their gradients up.",
        "zh": "窗口之间有重叠（步长 {s} &lt; 窗口 {k}）：被多个窗口送到的位置，把这些梯度加起来。",
    },
    "layer.avgpool.forward": {
        "en": "{name} forward: each {k} window (stride {s}) of X {x} is averaged over its {kk} values → Y {y}.",
        "zh": "{name} 前向：X {x} 的每个 {k} 窗口（步长 {s}）对其中 {kk} 个数取平均 → Y {y}。",
    },
    "layer.avgpool.dx": {
        "en": "Sent to the input: each entry of dY is spread evenly over its window, every position getting {formula}: {y} → {x}",
        "zh": "发给输入的梯度：dY 的每个元素平均分到它的窗口里，每个位置得到 {formula}：{y} → {x}",
    },
    "layer.adaptive.forward": {
        "en": "{name} forward: each output averages one window of X {x}, the windows chosen to give Y {y}.",
        "zh": "{name} 前向：每个输出是 X {x} 中一个窗口的平均，窗口的划分使输出恰好为 Y {y}。",
    },
    "layer.adaptive.dx_global": {
        "en": "Sent to the input: the window is the whole H×W plane, so every position gets {formula}: {y} → {x}",
        "zh": "发给输入的梯度：窗口就是整个 H×W 平面，所以每个位置得到 {formula}：{y} → {x}",
    },
    "layer.adaptive.dx": {
        "en": "Sent to the input: each entry of dY is spread evenly over its window (divided by the window's size); where windows overlap the shares add up: {y} → {x}",
        "zh": "发给输入的梯度：dY 的每个元素平均分到它的窗口里（除以窗口大小）；窗口重叠处各份相加：{y} → {x}",
    },
    "layer.embedding.forward": {
        "en": "{name} forward: the indices X {x} pick rows of the table W {w} → Y {y}.",
        "zh": "{name} 前向：索引 X {x} 从表 W {w} 中取出对应的行 → Y {y}。",
    },
    "layer.embedding.dw": {
        "en": "Weight gradient: {zero}, then {formula} for every position (a scatter-add): a row picked k times gets the sum of its k gradients, rows never picked get 0: {y} → {w}",
        "zh": "权重的梯度：先令 {zero}，再对每个位置做 {formula}（分散累加）：被取了 k 次的行得到这 k 个梯度之和，从未被取的行得到 0：{y} → {w}",
    },
    "layer.embedding.dx": {
        "en": "The indices are integers: nothing is sent to the input.",
        "zh": "索引是整数：不向输入发送梯度。",
    },
    "layer.embedding.padding": {
        "en": "Row {pad} (padding_idx) always gets 0.",
        "zh": "第 {pad} 行（padding_idx）的梯度总是 0。",
    },
}
