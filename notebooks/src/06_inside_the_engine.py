"""Lesson 6: inside the engine. Builds notebooks/en/06_inside_the_engine.ipynb and
notebooks/zh/06_inside_the_engine.ipynb (run from notebooks/src):

    ../../.venv/bin/python 06_inside_the_engine.py
"""

from lesson import build, code, exercise, md, setup

cells = [
    md(
        """
# Lesson 6 · Inside the engine

So far we have called `backward()` and read `.grad`. This lesson opens the engine up:

- the **backward graph** that the forward pass records, node by node;
- what a backward node takes in and gives out, and how nodes are linked (`next_functions`,
  which Paddle's documentation calls the "grad pending ops");
- `AccumulateGrad`, the node where a leaf's gradient lands;
- the **order** in which the engine runs the nodes;
- what happens when paths meet (fan-out) and when broadcasting must be undone;
- the `BackwardStepper` widget, which replays the engine's walk one node at a time, and its quiz mode;
- why the order must be topological (a diamond shows what goes wrong otherwise), and what
  backward costs compared with the forward pass.

Terms are in the [glossary](../glossary.md).
""",
        """
# 第 6 课 · 深入引擎内部

到目前为止，我们只是调用 `backward()`，再去读 `.grad`。这一课把引擎拆开来看：

- 前向计算时一个节点一个节点记录下来的**反向图**；
- 一个反向节点接收什么、输出什么，节点之间又是怎样连起来的（`next_functions`，
  Paddle 文档里叫作 “grad pending ops”）；
- `AccumulateGrad`：叶子张量的梯度最终落到这里；
- 引擎运行各个节点的**顺序**；
- 多条路径汇合（扇出）时、以及需要撤销广播时会发生什么；
- `BackwardStepper` 小部件（逐步演示器）：它一步一个节点地重放引擎的遍历过程，还带有测验模式；
- 为什么顺序必须是拓扑顺序（一个菱形计算图会说明不这样会出什么错），以及反向传播与前向传播相比要花多少计算。

术语见[术语表](../glossary.md)。
""",
    ),
    setup(
        """
import warnings

import numpy as np

import autogradviz as agv
from autogradviz.exercises import answered  # used by the exercises' check cells

agv.manual_seed(0)
"""
    ),
    md(
        """
## One multiplication, two graphs

While the forward pass computes `c = a * b`, autograd also writes down how to reverse it: a
**backward node**, stored as `c.grad_fn`. Here `a` asks for a gradient (Paddle's spelling:
`stop_gradient=False`) and `b` does not (the default for a tensor you create yourself).
""",
        """
## 一次乘法，两张图

前向计算 `c = a * b` 的同时，autograd 还记下了如何把这一步“倒回去”：一个**反向节点**，
保存在 `c.grad_fn` 里。这里 `a` 需要梯度（用 Paddle 的写法是 `stop_gradient=False`），
而 `b` 不需要（自己创建的张量默认如此）。
""",
    ),
    code(
        """
a = agv.to_tensor(2.0, stop_gradient=False)
b = agv.to_tensor(5.0)  # stop_gradient=True, the default for tensors you create
c = a * b
print("c.grad_fn:         ", c.grad_fn)
print("next_functions:    ", c.grad_fn.next_functions)
print("saved for backward:", c.grad_fn.saved_tensors)
print("local derivatives: ", c.grad_fn.rules)
"""
    ),
    md(
        """
`next_functions` has one entry per input of the forward op, each a pair `(node, 0)`:

- for `a`, an `AccumulateGrad` node (more on it below): the gradient of `a` must go there;
- for `b`, `None`: no edge at all, because nobody wants `b`'s gradient.

These edges are what Paddle calls the **grad pending ops** of a backward op: the ops that run
after it and are waiting for what it sends. Note what the node **saved**: only `b`. The
derivative with respect to `a` *is* `b`, so `b`'s value is needed; `a`'s value would only be
needed for `b`'s gradient, which nobody asked for, so it is not kept (PyTorch keeps exactly the
same: `c.grad_fn._saved_self` is None there).

`agv.draw(..., kind="backward")` draws the backward nodes; `show_saved=True` adds what each one
saved (dashed, orange). Backward starts at the green output and flows to the right.
""",
        """
`next_functions` 为前向运算的每个输入各给出一项，每项是一个二元组 `(node, 0)`：

- 对 `a`，是一个 `AccumulateGrad` 节点（下文细讲）：`a` 的梯度要送到那里；
- 对 `b`，是 `None`：根本没有这条边，因为没有人需要 `b` 的梯度。

这些边就是 Paddle 所说的反向算子的 **grad pending ops**：在它之后运行、正等着它把梯度传过来的那些算子。
注意这个节点**保存**了什么：只有 `b`。对 `a` 的导数*正是* `b`，所以必须记住 `b` 的值；
而 `a` 的值只有在求 `b` 的梯度时才用得上，可没有人需要 `b` 的梯度，所以不必保存
（PyTorch 也完全一样：在那里 `c.grad_fn._saved_self` 是 None）。

`agv.draw(..., kind="backward")` 画出反向节点；`show_saved=True` 再把每个节点保存的值画出来
（橙色虚线框）。反向传播从绿色的输出开始，向右流动。
""",
    ),
    code(
        """
agv.draw(c, names=locals(), kind="backward", show_saved=True)
"""
    ),
    md(
        """
### What a backward op takes in and gives out

Paddle describes the backward op of a multiplication like a function:

- its **inputs** are the forward inputs that its formulas need (here only `b`, the saved value)
  plus the gradient of the forward output (`∂c/∂c = 1`, since backward starts at `c`);
- its **outputs** are the gradients of the forward inputs: `1 × b = 5` for `a`, and `None` for
  `b`, whose `stop_gradient` is True.

`agv.backward_steps` is the engine's own walk, one node at a time: `backward()` consumes exactly
this sequence. With `accumulate=False` it writes no `.grad`, so we can watch first:
""",
        """
### 反向算子接收什么、输出什么

Paddle 把乘法的反向算子描述成一个函数：

- 它的**输入**是其公式需要的那些前向输入（这里只有 `b`，即保存下来的值），再加上前向输出的梯度
  （`∂c/∂c = 1`，因为反向传播从 `c` 开始）；
- 它的**输出**是前向各输入的梯度：给 `a` 的是 `1 × b = 5`，给 `b` 的是 `None`，
  因为 `b` 的 `stop_gradient` 为 True。

`agv.backward_steps` 就是引擎自己的遍历，一次一个节点：`backward()` 消费的正是这个序列。
加上 `accumulate=False` 它不会写入任何 `.grad`，所以我们可以先观察：
""",
    ),
    code(
        """
for step in agv.backward_steps([c], [agv.ones_like(c)], retain_graph=True, accumulate=False):
    if step.leaf is None:
        edges = [fn for fn, _ in step.node.next_functions]
        # what actually leaves the node: nothing goes down an edge that is not there
        sent = [None if fn is None else float(g) for fn, g in zip(edges, step.sent)]
        saved = [float(t) for t in step.node.saved_tensors]
        print(f"{step.node.name()}: saved {saved}, upstream {float(step.grad)} -> sends {sent}")
    else:
        print(f"{step.node.name()}: receives {float(step.grad)}, the gradient of the leaf a:", step.leaf is a)
"""
    ),
    md(
        """
The real `backward()` runs the same walk and then writes the gradients: `a.grad` is 5, and
`b.grad` stays `None`.
""",
        """
真正的 `backward()` 走的是同一条路线，走完后再写入梯度：`a.grad` 是 5，`b.grad` 仍然是 `None`。
""",
    ),
    code(
        """
c.backward()
print("a.grad:", a.grad, "  b.grad:", b.grad)
"""
    ),
    md(
        """
## AccumulateGrad: where a leaf's gradient lands

`a` is a leaf: no op made it, so `a.grad_fn` is None. The edge that leads to it ends at an
**`AccumulateGrad`** node, which holds the leaf and does one thing: it adds the gradient that
arrives into `leaf.grad` (creating `.grad` the first time). That is why gradients accumulate over
repeated `backward()` calls. It has no `next_functions`: the walk ends there.

**Source tour.** [autogradviz/core/graph.py](../../autogradviz/core/graph.py): class `Node` (its
`edges`; `next_functions`, PyTorch's spelling of them, is in
[autogradviz/core/graph_api.py](../../autogradviz/core/graph_api.py)) and class `AccumulateGrad`; the adding itself is function
`_accumulate` in [autogradviz/engine.py](../../autogradviz/engine.py).
""",
        """
## AccumulateGrad：叶子梯度的落脚点

`a` 是叶子：它不是由任何运算产生的，所以 `a.grad_fn` 是 None。通向它的那条边终止于一个
**`AccumulateGrad`** 节点。这个节点持有该叶子，只做一件事：把到达的梯度累加进 `leaf.grad`
（第一次时创建 `.grad`）。这正是多次调用 `backward()` 时梯度会累加的原因。它没有
`next_functions`：遍历到这里就结束了。

**源码导览。** [autogradviz/core/graph.py](../../autogradviz/core/graph.py)：类 `Node`（它的 `edges`；
PyTorch 的写法 `next_functions` 在 [autogradviz/core/graph_api.py](../../autogradviz/core/graph_api.py) 中）以及类 `AccumulateGrad`；累加本身在 [autogradviz/engine.py](../../autogradviz/engine.py)
的函数 `_accumulate` 中。
""",
    ),
    code(
        """
acc = c.grad_fn.next_functions[0][0]
print(acc, "holds a:", acc.variable is a)
print("rule:", acc.rules, "  next_functions:", acc.next_functions)
print("a.grad_fn:", a.grad_fn, "  a.is_leaf:", a.is_leaf)
"""
    ),
    md(
        """
## A chain: e = (a · b) · d

Now every input asks for a gradient: `a = 2`, `b = 5`, `d = 4`, then `c = a * b` and
`e = c * d`. Starting at `e.grad_fn` and following `next_functions` reaches every node. Paddle
keeps the gradient of an intermediate tensor such as `c` by itself; PyTorch and autogradviz keep
it only if you call `c.retain_grad()` before backward.
""",
        """
## 一条链：e = (a · b) · d

这次每个输入都需要梯度：`a = 2`、`b = 5`、`d = 4`，然后 `c = a * b`、`e = c * d`。
从 `e.grad_fn` 出发，沿着 `next_functions` 就能到达每一个节点。像 `c` 这样的中间张量，
Paddle 会自动保留它的梯度；PyTorch 和 autogradviz 则只有在反向传播之前调用了
`c.retain_grad()` 才会保留。
""",
    ),
    code(
        """
a = agv.to_tensor(2.0, stop_gradient=False)
b = agv.to_tensor(5.0, stop_gradient=False)
d = agv.to_tensor(4.0, stop_gradient=False)
c = a * b
c.retain_grad()  # keep the gradient of this intermediate tensor (Paddle would keep it anyway)
e = c * d
print("e.grad_fn:", e.grad_fn, "->", e.grad_fn.next_functions)
print("c.grad_fn:", c.grad_fn, "->", c.grad_fn.next_functions)
"""
    ),
    code(
        """
agv.draw(e, names=locals(), kind="backward")
"""
    ),
    md(
        """
## Topological order

A node may run only once **all** the gradient it will ever receive has arrived; otherwise it
would pass on a partial sum. An order in which every node comes after all the nodes that send it
gradient is a **topological order** of the graph. `agv.topological_order` returns the one that
`backward()` follows. To read it, we label each node with the tensor it belongs to.
""",
        """
## 拓扑顺序

一个节点只有在它将要收到的**全部**梯度都到齐之后才能运行，否则它传下去的只是部分和。
如果一个顺序能保证每个节点都排在所有给它送梯度的节点之后，它就是这张图的一个**拓扑顺序**。
`agv.topological_order` 返回 `backward()` 实际采用的那个顺序。为了便于阅读，
我们给每个节点标上它所属的张量。
""",
    ),
    code(
        """
owners = {"a": a, "b": b, "c": c, "d": d, "e": e}


def label(node):
    \"\"\"A backward node, named after its tensor: "MulBackward0 (e)" is the node that made e.\"\"\"
    for name, t in owners.items():
        if node is t.grad_fn or (isinstance(node, agv.AccumulateGrad) and node.variable is t):
            return f"{node.name()} ({name})"
    return node.name()


for k, node in enumerate(agv.topological_order([e.grad_fn])):
    print(k, label(node))
"""
    ),
    md(
        """
`AccumulateGrad (d)` could run right after `e`'s node, but `c`'s node had to wait for `e`'s
node, which is the only one sending it gradient. `backward_steps` shows the numbers: what each
node received (upstream) and what it sent to each input (upstream × local derivative). To `c`
goes `1 × d = 4` and to `d` goes `1 × c = 10`; then `c`'s node sends `4 × b = 20` to `a` and
`4 × a = 8` to `b`.
""",
        """
`AccumulateGrad (d)` 在 `e` 的节点之后就可以运行；而 `c` 的节点必须等 `e` 的节点运行完，
因为只有后者给它送梯度。`backward_steps` 给出了具体数字：每个节点收到了什么（上游梯度），
又给每个输入送去了什么（上游梯度 × 局部导数）。送给 `c` 的是 `1 × d = 4`，送给 `d` 的是
`1 × c = 10`；接着 `c` 的节点把 `4 × b = 20` 送给 `a`，把 `4 × a = 8` 送给 `b`。
""",
    ),
    code(
        """
for step in agv.backward_steps([e], [agv.ones_like(e)], retain_graph=True, accumulate=False):
    sent = [float(g) for g in step.sent]
    print(f"{step.index}: {label(step.node):20s} upstream {float(step.grad):5.1f}   sends {sent}")
"""
    ),
    md(
        """
## The stepper

`agv.BackwardStepper` replays that same walk as a widget, with the buttons **⇤ Reset**, **◀ Back**, **Next ▶**,
**▶ Play** (**❚❚ Pause** while playing) and **Run to end ⇥**, and a slider;
the current node is highlighted, finished nodes are marked done, and nodes that have received some
but not all of their gradient are marked waiting. A panel explains the current node
(`upstream × local = sent`) and a table lists every tensor's gradient so far. Stepping never writes
`.grad`, so going back and forth is safe. First, on `c = a * b` alone:
""",
        """
## 逐步演示器（stepper）

`agv.BackwardStepper` 把同样的遍历过程做成一个小部件来重放：有 **⇤ 重置**、**◀ 后退**、**前进 ▶**、
**▶ 播放**（播放时变成 **❚❚ 暂停**）和 **运行到底 ⇥** 这几个按钮，还有一个滑块；
当前节点会高亮，做完的节点标为“已完成”，已收到部分梯度但还没收齐的节点标为“等待中”。
面板解释当前节点在做什么（`上游 × 局部导数 = 送出的梯度`），表格列出每个张量到目前为止的梯度。
逐步演示器从不写入 `.grad`，所以来回前进、后退都很安全。先看只有 `c = a * b` 的情形：
""",
    ),
    code(
        """
small = agv.BackwardStepper(c, names=locals())
small
"""
    ),
    md(
        """
The widget needs a browser, but everything it shows is also available as data: `.steps` (one
per node), `.next()`, `.back()`, `.goto(k)`, and `.state()` (each tensor's gradient at the
current position). This small helper prints the panel of every step as text:
""",
        """
小部件需要浏览器才能显示，但它展示的一切也都能以数据形式拿到：`.steps`（每个节点一步）、
`.next()`、`.back()`、`.goto(k)`，以及 `.state()`（当前位置上每个张量的梯度）。
下面这个小函数把每一步面板上的内容以文字形式打印出来：
""",
    ),
    code(
        """
def fmt(value):
    \"\"\"A gradient as plain, rounded numbers.\"\"\"
    return np.round(np.asarray(value, dtype=float), 4).tolist()


def show_steps(stepper):
    \"\"\"Print what the stepper's panel says at each step.\"\"\"
    leaf_names = {}
    for k, step in enumerate(stepper.steps, start=1):
        if step.leaf is not None:
            before = "None" if step.leaf_before is None else fmt(step.leaf_before)
            name = leaf_names.get(step.node, "leaf")
            print(f"{k}. {step.name}: {name}.grad {before} -> {fmt(step.leaf_after)}")
            continue
        print(f"{k}. {step.name} (reverses {step.op}), upstream {fmt(step.upstream)}")
        for sent in step.sent:
            leaf_names[sent.target] = sent.target_name
            if sent.local is not None:
                line = f"{fmt(step.upstream)} × {fmt(sent.local)} = {fmt(sent.product)}"
            else:
                line = f"{fmt(sent.product)}"
            print(f"     to {sent.target_name}: upstream × local = {line}")
            if sent.reduced_axes is not None:
                print(f"     broadcasting undone: summed over axes {sent.reduced_axes}, "
                      f"shape {sent.shape_before} -> {fmt(sent.value)}")
            if sent.before is not None:
                print(f"     paths meet at {sent.target_name}: "
                      f"{fmt(sent.before)} + {fmt(sent.value)} = {fmt(sent.after)}")


show_steps(small)
"""
    ),
    md(
        """
Now the whole chain `e = (a · b) · d`. The steps follow the topological order above.
""",
        """
现在看整条链 `e = (a · b) · d`。各步的顺序就是上面的拓扑顺序。
""",
    ),
    code(
        """
stepper = agv.BackwardStepper(e, names=locals())
stepper
"""
    ),
    code(
        """
show_steps(stepper)
"""
    ),
    md(
        """
`.state()` shows the gradients at any position. After one step, `c` has received its whole
gradient (4) but its node has not run yet; `d`'s gradient is on its way to `AccumulateGrad`, and
no leaf's `.grad` is written yet.
""",
        """
`.state()` 给出任一位置上的梯度。走完第一步后，`c` 已经收到了它的全部梯度（4），但它的节点还没运行；
`d` 的梯度正在送往 `AccumulateGrad` 的路上，还没有任何叶子的 `.grad` 被写入。
""",
    ),
    code(
        """
def gradients_at(stepper, position):
    stepper.goto(position)
    now = stepper.state()
    return {name: None if now.get(t) is None else fmt(now[t]) for name, t in owners.items()}


for position in (0, 1, 3, stepper.last):
    print(f"position {position}:", gradients_at(stepper, position))
"""
    ),
    md(
        """
Stepping wrote nothing. `stepper.apply()` runs the real `backward()` once: the leaves get
`a.grad = 20`, `b.grad = 8`, `d.grad = 10`, and `c.grad = 4` because we called `c.retain_grad()`.
""",
        """
逐步演示没有写入任何东西。`stepper.apply()` 会真正运行一次 `backward()`：叶子得到
`a.grad = 20`、`b.grad = 8`、`d.grad = 10`；由于调用过 `c.retain_grad()`，还有 `c.grad = 4`。
""",
    ),
    code(
        """
stepper.apply()
print("a.grad", a.grad.item(), "  b.grad", b.grad.item(), "  c.grad", c.grad.item(), "  d.grad", d.grad.item())
"""
    ),
    md(
        """
### Paddle keeps c's gradient; PyTorch does not

In Paddle, `c.grad` would hold 4 without asking. In PyTorch, and here, the gradient of a
non-leaf passes through on its way to the leaves and is then dropped, unless `retain_grad()` was
called before backward. Reading it gives `None` and a warning that says so:
""",
        """
### Paddle 保留 c 的梯度，PyTorch 不保留

在 Paddle 里，不用任何额外操作，`c.grad` 就是 4。而在 PyTorch 和这里，非叶子张量的梯度只是在流向叶子的途中经过一下，
随后就被丢弃，除非在反向传播之前调用了 `retain_grad()`。这时读取它会得到 `None`，并收到一条说明原因的警告：
""",
    ),
    code(
        """
a2 = agv.tensor(2.0, requires_grad=True)
b2 = agv.tensor(5.0, requires_grad=True)
c2 = a2 * b2  # no retain_grad() this time
(c2 * 4.0).backward()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print("c2.grad:", c2.grad)
print(caught[0].category.__name__ + ":", str(caught[0].message).split(". ")[0])
print("a2.grad:", a2.grad)
"""
    ),
    md(
        """
## Fan-out: paths add up

When one tensor feeds two ops, gradient comes back to it along both paths, and the engine **adds**
them before the tensor's node runs: that sum is the multivariable chain rule. Take
`q = x² + 4x` at `x = 3`: the square sends `2x = 6`, the product sends `4`, and
`x.grad = 6 + 4 = 10 = 2x + 4`. The stepper shows the moment the second path arrives as
`before + new = after`.
""",
        """
## 扇出：各条路径相加

当一个张量被两个运算使用时，梯度会沿两条路径流回它，引擎在这个张量的节点运行之前把它们**相加**：
这个求和就是多元函数的链式法则。以 `x = 3` 处的 `q = x² + 4x` 为例：平方送回 `2x = 6`，
乘法送回 `4`，于是 `x.grad = 6 + 4 = 10 = 2x + 4`。第二条路径到达的那一刻，
逐步演示器会显示为 `之前 + 新到 = 之后`。
""",
    ),
    code(
        """
x = agv.tensor(3.0, requires_grad=True)
sq = x**2
lin = 4 * x
q = sq + lin
fan = agv.BackwardStepper(q, names=locals())
fan
"""
    ),
    code(
        """
show_steps(fan)
for step in fan.steps:
    for sent in step.sent:
        if sent.before is not None:
            print(f"merge at {sent.target_name}: before {fmt(sent.before)} + new {fmt(sent.value)} = after {fmt(sent.after)}")
fan.apply()
print("x.grad:", x.grad)
"""
    ),
    md(
        """
## Why the order matters: a diamond

Fan-out is harder when the shared tensor is not a leaf. Let $h = 2x$, then $p = 3h$ and
$q = h^2$, and $out = p + q$. Gradient reaches $h$ along two paths, and $h$'s node must pass
**one** total on to $x$:

$$\\frac{\\partial out}{\\partial h} = \\frac{\\partial p}{\\partial h} + \\frac{\\partial q}{\\partial h} = 3 + 2h,
\\qquad \\frac{\\partial out}{\\partial x} = (3 + 2h) \\cdot 2 .$$

At $x = 1$, $h = 2$ and the gradient is $(3 + 4) \\cdot 2 = 14$:
""",
        """
## 为什么顺序要紧：一个菱形

当被共用的张量不是叶子张量时，扇出就更微妙了。令 $h = 2x$，再令 $p = 3h$、$q = h^2$，$out = p + q$。
梯度沿两条路径到达 $h$，而 $h$ 的节点必须把**一个**总和传给 $x$：

$$\\frac{\\partial out}{\\partial h} = \\frac{\\partial p}{\\partial h} + \\frac{\\partial q}{\\partial h} = 3 + 2h,
\\qquad \\frac{\\partial out}{\\partial x} = (3 + 2h) \\cdot 2 。$$

在 $x = 1$ 处，$h = 2$，梯度是 $(3 + 4) \\cdot 2 = 14$：
""",
    ),
    code(
        """
x = agv.tensor(1.0, requires_grad=True)
h = 2 * x
p = 3 * h
q = h * h
out = p + q
out.backward(retain_graph=True)  # keep the graph: the next cells walk it again
print("x.grad:", x.grad, "  (3 + 2h) · 2 =", (3 + 2 * h.item()) * 2)
assert np.isclose(x.grad.item(), (3 + 2 * h.item()) * 2)
agv.draw(out, names=locals())
"""
    ),
    md(
        """
Now a naive walk: depth first from `out`, running each node the first time it is reached. It goes
`out → p → h → x` before it ever reaches `q`, so `h`'s node sends `3 · 2 = 6` to `x` while `q`'s
share, `2h = 4`, is still on its way. Here are the real nodes of this graph in that depth-first
order, and in the order `agv.topological_order` gives:
""",
        """
再看一种天真的遍历：从 `out` 出发做深度优先搜索，每个节点第一次被访问到时就运行。它先走完
`out → p → h → x`，才轮到 `q`；于是 `h` 的节点把 `3 · 2 = 6` 送给了 `x`，而 `q` 那一份 `2h = 4`
还在路上。下面是这张图的真实节点，先按深度优先的顺序，再按 `agv.topological_order` 给出的顺序：
""",
    ),
    code(
        """
diamond = {"x": x, "h": h, "p": p, "q": q, "out": out}


def tensor_of(node):
    \"\"\"The name of the tensor a node belongs to (an AccumulateGrad node belongs to its leaf).\"\"\"
    for name, t in diamond.items():
        if node is t.grad_fn or (isinstance(node, agv.AccumulateGrad) and node.variable is t):
            return name


def depth_first(node, seen):
    \"\"\"Each node the first time it is reached, children in edge order.\"\"\"
    seen.add(node)
    order = [node]
    for child in node.edges:
        if child is not None and child not in seen:
            order += depth_first(child, seen)
    return order


naive_order = [tensor_of(n) for n in depth_first(out.grad_fn, set())]
engine_order = [tensor_of(n) for n in agv.topological_order([out.grad_fn])]
print("depth first:      ", naive_order)
print("topological order:", engine_order)
assert naive_order.index("h") < naive_order.index("q"), "depth first reaches h before q"
assert engine_order.index("h") > max(engine_order.index("p"), engine_order.index("q"))
"""
    ),
    md(
        """
To see the numbers, run each order with the local derivatives written by hand: every node runs
once, and sends (what it has received so far) × (local derivative) to each input.
""",
        """
为了看到具体数字，用手写的局部导数把两种顺序各跑一遍：每个节点只运行一次，
把（到此刻为止收到的梯度）×（局部导数）送给它的每个输入。
""",
    ),
    code(
        """
h_value = h.item()
local = {"out": {"p": 1.0, "q": 1.0}, "p": {"h": 3.0}, "q": {"h": 2 * h_value}, "h": {"x": 2.0}}


def run(order):
    received = {"out": 1.0}
    for name in order:
        for target, derivative in local.get(name, {}).items():
            received[target] = received.get(target, 0.0) + received.get(name, 0.0) * derivative
    return received["x"]


print("depth first gives x.grad =", run(naive_order))
print("topological order gives  =", run(engine_order), "  autogradviz:", x.grad.item())
assert run(engine_order) == x.grad.item() and run(naive_order) == 3.0 * 2.0
"""
    ),
    md(
        """
A walk that ran a node again each time more gradient arrived would end with 14 too, but it
would run `h`'s node twice, and in a chain of $n$ diamonds the nodes at the bottom would run
$2^n$ times. A topological order runs every node once, with its gradient complete.

**Source tour.** [autogradviz/engine.py](../../autogradviz/engine.py), function `_dependencies`
counts, for every node, how many edges lead into it; function `topological_order` starts from the
nodes with no arrows in and releases a node when its count reaches zero (Kahn's algorithm);
function `walk` runs the nodes in that order and adds the arriving gradients.
""",
        """
如果每次有新梯度到达就让节点再运行一次，最后也能得到 14，但 `h` 的节点要运行两次；
而在 $n$ 个菱形串成的链上，最底部的节点要运行 $2^n$ 次。拓扑顺序让每个节点只运行一次，而且运行时梯度已经完整。

**源码导览。** [autogradviz/engine.py](../../autogradviz/engine.py) 中，函数 `_dependencies`
统计每个节点有几条边指向它；函数 `topological_order` 从没有入边的节点开始，某个节点的计数降到 0 时
就放行它（Kahn 算法）；函数 `walk` 按这个顺序运行各节点，并把到达的梯度累加起来。
""",
    ),
    md(
        """
## Broadcasting, undone

`X + bias` with `X` of shape (2, 3) and `bias` of shape (3,) adds `bias` to each row:
broadcasting used every element of `bias` twice. Each use receives its own gradient, so the
gradient of `bias` is their **sum**: the engine sums the arriving gradient over the broadcast axes
(axis 0 here) to get back to `bias`'s shape (function `sum_to` in
[autogradviz/ops/broadcast.py](../../autogradviz/ops/broadcast.py)). To make the numbers visible, backward starts here from
a gradient of weights `G` instead of ones (the `gradient=` argument of lesson 2), so
`bias.grad` is `G` summed over its rows.
""",
        """
## 撤销广播

`X` 的形状是 (2, 3)，`bias` 的形状是 (3,)，`X + bias` 会把 `bias` 加到每一行上：
广播让 `bias` 的每个元素都被用了两次。每一次使用都会收到自己的那份梯度，所以 `bias` 的梯度是它们的**和**：
引擎沿着被广播的轴（这里是第 0 轴）把到达的梯度加起来，恢复成 `bias` 的形状（[autogradviz/ops/broadcast.py](../../autogradviz/ops/broadcast.py) 中的函数 `sum_to`）。为了让数字更直观，
这里的反向传播不从全 1 开始，而是从一个权重梯度 `G` 开始（即第 2 课的 `gradient=` 参数），
于是 `bias.grad` 就是 `G` 按行相加的结果。
""",
    ),
    code(
        """
X = agv.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])  # data: needs no gradient
bias = agv.tensor([0.5, -0.5, 1.0], requires_grad=True)
out = X + bias
G = agv.tensor([[1.0, 2.0, 3.0], [10.0, 20.0, 30.0]])
broadcast = agv.BackwardStepper(out, gradient=G, names=locals())
broadcast
"""
    ),
    code(
        """
show_steps(broadcast)
sent = broadcast.steps[0].sent[0]
print(f"{sent.target_name}: gradient of shape {sent.shape_before}, summed over axes {sent.reduced_axes},"
      f" arrives with shape {np.shape(sent.value)}")
broadcast.apply()
print("bias.grad:", bias.grad)
"""
    ),
    md(
        """
## What backward costs: about two forward passes

For $Y = XW$ with $X$ of shape $(m, k)$ and $W$ of shape $(k, n)$, the forward product costs
$m \\cdot k \\cdot n$ multiply-adds. Backward receives $G = \\partial L / \\partial Y$, of shape
$(m, n)$, and computes

$$\\frac{\\partial L}{\\partial X} = G\\,W^\\top \\quad (m \\cdot n \\cdot k), \\qquad
\\frac{\\partial L}{\\partial W} = X^\\top G \\quad (k \\cdot m \\cdot n):$$

two products of the same size as the forward one. So backward costs about **twice** the forward
pass, a little less because no gradient is computed for the data $X$ of the first layer (the node
skips an input without an edge: `Node.needs` in
[autogradviz/core/graph.py](../../autogradviz/core/graph.py)). Count it on a chain of four
layers, reading the shapes from the engine's own steps:
""",
        """
## 反向传播的代价：大约两次前向传播

对 $Y = XW$，$X$ 的形状是 $(m, k)$，$W$ 的形状是 $(k, n)$，前向的矩阵乘法要做 $m \\cdot k \\cdot n$ 次乘加。
反向传播收到形状为 $(m, n)$ 的 $G = \\partial L / \\partial Y$，然后计算

$$\\frac{\\partial L}{\\partial X} = G\\,W^\\top \\quad (m \\cdot n \\cdot k), \\qquad
\\frac{\\partial L}{\\partial W} = X^\\top G \\quad (k \\cdot m \\cdot n)：$$

两次与前向同样大小的乘法。所以反向传播的代价大约是前向的**两倍**；实际略少一点，因为第一层的数据 $X$
不需要梯度（节点会跳过没有边的输入：[autogradviz/core/graph.py](../../autogradviz/core/graph.py) 中的
`Node.needs`）。在一条四层的链上数一数，形状直接从引擎自己的步骤里读出来：
""",
    ),
    code(
        """
def multiply_adds(a_shape, b_shape):
    \"\"\"An (m, k) @ (k, n) product: m · k · n multiply-adds.\"\"\"
    (m, k), (k_again, n) = a_shape, b_shape
    assert k == k_again
    return m * k * n


data = agv.randn(32, 20)  # a batch of 32, needs no gradient
weights = [agv.randn(20, 20, requires_grad=True) for _ in range(4)]
forward_cost, hidden = 0, data
for weight in weights:
    forward_cost += multiply_adds(hidden.shape, weight.shape)
    hidden = hidden @ weight
loss = hidden.sum()

backward_cost = 0
for step in agv.backward_steps([loss], [agv.ones_like(loss)], retain_graph=True, accumulate=False):
    if step.node.name() == "MmBackward0":
        g = step.grad  # upstream gradient, shape (m, n)
        to_input, to_weight = step.sent  # None where no gradient is wanted
        if to_input is not None:  # G @ Wᵀ: (m, n) @ (n, k), for the input of shape (m, k)
            backward_cost += multiply_adds(g.shape, (g.shape[1], to_input.shape[1]))
        if to_weight is not None:  # Xᵀ @ G: (k, m) @ (m, n), for the weight of shape (k, n)
            backward_cost += multiply_adds((to_weight.shape[0], g.shape[0]), g.shape)

print("forward multiply-adds: ", forward_cost)
print("backward multiply-adds:", backward_cost, f"= {backward_cost / forward_cost:.2f} × forward")
layers = len(weights)
assert backward_cost == (2 * layers - 1) * forward_cost // layers  # every layer twice, but no gradient for data
"""
    ),
    md(
        """
With four layers the ratio is $(2 \\cdot 4 - 1) / 4 = 1.75$; the deeper the network, the closer to 2.
Backward also needs memory: the saved tensors of every node (here each layer's input $X$, for
$X^\\top G$) stay alive from the forward pass until backward has used them.
""",
        """
四层时比值是 $(2 \\cdot 4 - 1) / 4 = 1.75$；网络越深，越接近 2。反向传播还需要内存：
每个节点保存的张量（这里是每一层的输入 $X$，用来算 $X^\\top G$）从前向传播一直活到反向传播用完它们为止。
""",
    ),
    md(
        """
## Quiz mode

`quiz=True` turns the stepper into an exercise: before each step it asks what the node will send
to each of its inputs, checks the answer, and offers a hint with the rule and the upstream
gradient. In the browser you type numbers; without one, `stepper.check(answers)` answers the
next step and returns `(right?, hint)`. The first step of `e = (a · b) · d` sends `[to c, to d]`:
""",
        """
## 测验模式

`quiz=True` 把逐步演示器变成一道练习：每一步之前，它都会问这个节点将给每个输入送去什么，
检查你的答案，并给出包含求导规则和上游梯度的提示。在浏览器里直接输入数字即可；没有浏览器时，
用 `stepper.check(answers)` 回答下一步，它返回 `(是否正确, 提示)`。
`e = (a · b) · d` 的第一步送出的是 `[给 c 的, 给 d 的]`：
""",
    ),
    code(
        """
a = agv.to_tensor(2.0, stop_gradient=False)
b = agv.to_tensor(5.0, stop_gradient=False)
d = agv.to_tensor(4.0, stop_gradient=False)
c = a * b
e = c * d
quiz = agv.BackwardStepper(e, names=locals(), quiz=True)
quiz
"""
    ),
    code(
        """
print("answer [4, 10]:", quiz.check([4.0, 10.0]))
print("answer [10, 4]:", quiz.check([10.0, 4.0]))
quiz.next()  # move on: the next step is AccumulateGrad (d), which only writes .grad
print("next step:     ", quiz.check(None))
quiz.goto(2)  # two steps done: c's MulBackward0 is next, sending [to a, to b]
print("answer [20, 8]:", quiz.check([20.0, 8.0]))
"""
    ),
    md(
        """
## Exercises

### Exercise 1: where paths meet

Let `p = 1` and `q = 3` (both requiring gradient) and `f = (p + q) * q`. `q` is used twice, so
its gradient arrives along two paths: straight from the multiplication (as its right-hand input),
and through the sum `p + q`. Derive each by hand, upstream × local derivative, without running
backward: set `via_product` to what the multiplication sends to `q` directly, `via_sum` to what
reaches `q` through the sum, and `total` to `q`'s gradient. The check steps through the real
backward and finds the moment the two paths meet.
""",
        """
## 练习

### 练习 1：路径汇合之处

设 `p = 1`、`q = 3`（都需要梯度），`f = (p + q) * q`。`q` 被用了两次，所以它的梯度沿两条路径到达：
一条直接来自乘法（`q` 是乘法的右侧输入），另一条经过加法 `p + q`。不运行反向传播，按“上游梯度 × 局部导数”
手算每一条：把乘法直接送给 `q` 的值存为 `via_product`，经过加法到达 `q` 的值存为 `via_sum`，
`q` 的梯度存为 `total`。检查单元会逐步运行真正的反向传播，找到两条路径汇合的那一刻。
""",
    ),
    *exercise(
        "06.1",
        answers=("via_product", "via_sum", "total"),
        solution="""
# f = s * q with s = p + q = 4: the product sends 1 × s = 4 to q, and 1 × q = 3 to s;
# the sum passes its 3 on unchanged (local derivative 1), so q gets 4 + 3 = 7
via_product = 4.0
via_sum = 3.0
total = via_product + via_sum
""",
        check="""
p = agv.tensor(1.0, requires_grad=True)
q = agv.tensor(3.0, requires_grad=True)
f = (p + q) * q
meeting = [
    sent for step in agv.BackwardStepper(f, names=locals()).steps for sent in step.sent
    if sent.before is not None and sent.target_name == "q"
]
assert len(meeting) == 1, "the two paths meet once, at q"
arrived = sorted([float(meeting[0].before), float(meeting[0].value)])
assert sorted([via_product, via_sum]) == arrived, (
    f"you have {via_product} and {via_sum}; the stepper saw {arrived}: the product sends q the other factor, "
    "p + q, and sends p + q the factor q, which the sum passes on times 1"
)
assert via_product == 4.0, "the multiplication's local derivative for its right input q is its left input, p + q = 4"
assert total == float(meeting[0].after) == 7.0, "q's gradient is the sum of both paths: df/dq = (p + q) + q"
print("Right: the two paths, 4 and 3, add up to df/dq = 7.")
""",
    ),
    md(
        """
### Exercise 2: a broadcast over columns

`X = [[1, 2, 3], [4, 5, 6]]` (shape (2, 3), no gradient) and `t` of shape (2, 1) with values
`[[0], [0]]`, requiring gradient. With `y = X + t` and `loss = (y * X).sum()`, work out **by hand**:

- `t_axes`: the tuple of axes the engine sums over to bring the gradient back to `t`'s shape;
- `t_grad`: the gradient of `t`, as a nested list of shape (2, 1).

Hint: the gradient arriving at `y` is `X`.
""",
        """
### 练习 2：沿列方向的广播

`X = [[1, 2, 3], [4, 5, 6]]`（形状 (2, 3)，不需要梯度），`t` 的形状为 (2, 1)，值为 `[[0], [0]]`，需要梯度。
令 `y = X + t`、`loss = (y * X).sum()`，请**手工**算出：

- `t_axes`：为了把梯度恢复成 `t` 的形状，引擎要沿哪些轴求和（写成元组）；
- `t_grad`：`t` 的梯度，写成形状为 (2, 1) 的嵌套列表。

提示：到达 `y` 的梯度就是 `X`。
""",
    ),
    *exercise(
        "06.2",
        answers=("t_axes", "t_grad"),
        solution="""
# t was copied along axis 1 (three columns), so its gradient is summed over axis 1,
# keeping the (2, 1) shape: the row sums of X
t_axes = (1,)
t_grad = [[1.0 + 2.0 + 3.0], [4.0 + 5.0 + 6.0]]
print(t_axes, t_grad)
""",
        check="""
X_check = agv.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
t_check = agv.zeros(2, 1, requires_grad=True)
y_check = X_check + t_check
loss_check = (y_check * X_check).sum()
steps = agv.BackwardStepper(loss_check).steps
reduced = [s.reduced_axes for step in steps for s in step.sent if s.reduced_axes is not None]
assert tuple(t_axes) == reduced[0], f"the engine summed over axes {reduced[0]}"
loss_check.backward()
assert np.allclose(t_grad, t_check.grad.numpy()), "the gradient at y is X: sum each row of X"
print("Right: t.grad =", t_check.grad.tolist())
""",
    ),
    md(
        """
### Exercise 3: pass the quiz

For `out = (u * v) * w` with `u = 3`, `v = -2`, `w = 0.5` (all requiring gradient), predict:

- `first_answer`: what the first step (the node that made `out`) sends, as `[to u * v, to w]`;
- `u_grad` and `v_grad`: the gradients that land in `u.grad` and `v.grad`.

The check cell runs a quiz stepper on your first answer.
""",
        """
### 练习 3：通过测验

对 `out = (u * v) * w`，其中 `u = 3`、`v = -2`、`w = 0.5`（都需要梯度），预测：

- `first_answer`：第一步（产生 `out` 的节点）送出的梯度，写成 `[给 u * v 的, 给 w 的]`；
- `u_grad` 和 `v_grad`：最终落到 `u.grad` 和 `v.grad` 里的梯度。

检查单元会用测验模式的逐步演示器来检验你的第一个答案。
""",
    ),
    *exercise(
        "06.3",
        answers=("first_answer", "u_grad", "v_grad"),
        solution="""
# out = t * w with t = u * v = -6: to t goes w = 0.5, to w goes t = -6
first_answer = [0.5, -6.0]
# then t's node sends 0.5 × v to u and 0.5 × u to v
u_grad = 0.5 * -2.0
v_grad = 0.5 * 3.0
print(first_answer, u_grad, v_grad)
""",
        check="""
u = agv.tensor(3.0, requires_grad=True)
v = agv.tensor(-2.0, requires_grad=True)
w = agv.tensor(0.5, requires_grad=True)
out = (u * v) * w
checker = agv.BackwardStepper(out, quiz=True)
right, hint = checker.check(first_answer)
assert right, "not yet. " + hint
checker.apply()
assert np.isclose(u_grad, u.grad.item()), f"u.grad is upstream × v; it is {u.grad.item()}"
assert np.isclose(v_grad, v.grad.item()), f"v.grad is upstream × u; it is {v.grad.item()}"
print("Right: all three answers pass.")
""",
    ),
]

if __name__ == "__main__":
    build(6, "inside_the_engine", cells)
