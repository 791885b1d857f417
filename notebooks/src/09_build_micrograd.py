"""Lesson 09: build micrograd (issue 15). Builds notebooks/en/09_build_micrograd.ipynb and
notebooks/zh/09_build_micrograd.ipynb:

    cd /work/main && .venv/bin/python notebooks/src/09_build_micrograd.py

The engine the learner writes here follows the ideas of Andrej Karpathy's micrograd
(github.com/karpathy/micrograd, MIT licence), in our own words and code.
"""

from lesson import build, code, exercise, md, setup

cells = [
    md(
        """
# Lesson 9 · Build micrograd

Lessons 1 to 8 used autograd. In this lesson you **build one**: a scalar engine of about fifty
lines, in the spirit of Andrej Karpathy's [micrograd](https://github.com/karpathy/micrograd)
(MIT licence; the code here is our own). You will write

- a `Value`: one number that remembers the values it was made from and how to send a gradient
  back to them (a `_backward` closure);
- a **topological sort**, so that every value has all of its gradient before it passes it on;
- the gradients 20, 8, 4 and 10 of lesson 6's chain `e = (a · b) · d`, checked against
  autogradviz;
- the **`a + a` bug**: why a gradient must be added with `+=`, never set with `=`;
- a tour of autogradviz's own multiplication node, `MulBackward0`, beside yours.

Terms are explained in the [glossary](../glossary.md).
""",
        """
# 第 9 课 · 动手实现 micrograd

第 1 到第 8 课都是在**使用** autograd。这一课我们**亲手实现**一个：一个大约五十行的标量引擎，
思路来自 Andrej Karpathy 的 [micrograd](https://github.com/karpathy/micrograd)
（MIT 许可证；这里的代码是我们自己写的）。你将写出：

- `Value`：一个数，它记得自己是由哪些值算出来的，也知道怎样把梯度送回给它们（一个 `_backward` 闭包）；
- 一个**拓扑排序**，保证每个值在把梯度传下去之前，已经收齐了自己的全部梯度；
- 第 6 课那条链 `e = (a · b) · d` 的梯度 20、8、4、10，并与 autogradviz 的结果对照；
- **`a + a` 的 bug**：为什么梯度必须用 `+=` 累加，而不能用 `=` 直接赋值；
- 对照阅读 autogradviz 自己的乘法节点 `MulBackward0` 和你写的代码。

术语的解释见[术语表](../glossary.md)。
""",
    ),
    setup(
        """
import inspect
import math

import numpy as np

import autogradviz as agv
import autogradviz.ops.arithmetic as arithmetic  # autogradviz's + - * /, read in the source tour
from autogradviz.exercises import answered  # used by the exercises' check cells

agv.manual_seed(0)
"""
    ),
    md(
        """
## A number that remembers where it came from

A `Value` holds

- `data`: the number itself;
- `grad`: $\\partial(\\text{output})/\\partial(\\text{this value})$, zero until backward fills it in;
- `_prev`: the values it was made from (its children in the graph), and `_op`, the operation;
- `_backward`: a function, written by the operation that made the value, that sends
  `self.grad` on to the children. A leaf's `_backward` does nothing.

Each operation needs only its **local derivatives**:

$$\\frac{\\partial (a+b)}{\\partial a} = 1,\\quad \\frac{\\partial (a+b)}{\\partial b} = 1,\\qquad
\\frac{\\partial (a\\,b)}{\\partial a} = b,\\quad \\frac{\\partial (a\\,b)}{\\partial b} = a.$$

The **chain rule** turns them into gradients of the final output $L$: what reaches `a` from
`out = a * b` is upstream × local, $\\frac{\\partial L}{\\partial a} = \\frac{\\partial L}{\\partial
\\text{out}} \\cdot b$. That product is one line in `_backward`. Why `+=`, and not `=`, is the
subject of the section "the `a + a` bug" below.
""",
        """
## 一个记得自己来历的数

一个 `Value` 包含：

- `data`：这个数本身；
- `grad`：$\\partial(\\text{输出})/\\partial(\\text{这个值})$，在反向传播填入之前为零；
- `_prev`：算出它的那些值（它在计算图中的子节点），以及 `_op`：所用的运算；
- `_backward`：一个函数，由产生这个值的运算写好，负责把 `self.grad` 送给子节点。叶子的 `_backward` 什么也不做。

每个运算只需要知道自己的**局部导数**：

$$\\frac{\\partial (a+b)}{\\partial a} = 1,\\quad \\frac{\\partial (a+b)}{\\partial b} = 1,\\qquad
\\frac{\\partial (a\\,b)}{\\partial a} = b,\\quad \\frac{\\partial (a\\,b)}{\\partial b} = a.$$

**链式法则**把它们变成最终输出 $L$ 的梯度：从 `out = a * b` 送到 `a` 的是“上游梯度 × 局部导数”，
即 $\\frac{\\partial L}{\\partial a} = \\frac{\\partial L}{\\partial \\text{out}} \\cdot b$。
这个乘积就是 `_backward` 里的一行代码。为什么用 `+=` 而不用 `=`，留到下文“`a + a` 的 bug”一节再讲。
""",
    ),
    code(
        """
class Value:
    \"\"\"One number that remembers how it was made, so that backward can run through it.\"\"\"

    def __init__(self, data, children=(), op="", label=""):
        self.data = float(data)
        self.grad = 0.0  # ∂(output)/∂(this value): filled in by backward
        self._backward = lambda: None  # a leaf has nothing to send its gradient to
        self._prev = tuple(children)
        self._op = op
        self.label = label

    def __repr__(self):
        return f"Value({self.label or self._op}: data={self.data:g}, grad={self.grad:g})"

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), "+")

        def _backward():
            # local derivatives 1 and 1: the upstream gradient goes on unchanged
            self.grad += 1.0 * out.grad
            other.grad += 1.0 * out.grad

        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), "*")

        def _backward():
            # local derivatives: ∂(a·b)/∂a = b and ∂(a·b)/∂b = a
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = _backward
        return out
"""
    ),
    md(
        """
The forward pass is ordinary arithmetic, and each result keeps its children:
""",
        """
前向计算就是普通的算术，每个结果都记住了自己的子节点：
""",
    ),
    code(
        """
a = Value(2.0, label="a")
b = Value(5.0, label="b")
c = a * b
c.label = "c"
d = Value(4.0, label="d")
e = c * d
e.label = "e"
print(e)
print("e was made by", repr(e._op), "from", e._prev)
print("c was made by", repr(c._op), "from", c._prev)
"""
    ),
    md(
        """
## Backward by hand

Before writing `backward()`, run the closures ourselves. $\\partial e/\\partial e = 1$ starts it;
then `e`'s closure sends gradient to `c` and `d`, and `c`'s closure sends it on to `a` and `b`:
""",
        """
## 手动反向传播

在写 `backward()` 之前，先亲手调用这些闭包。从 $\\partial e/\\partial e = 1$ 开始；
然后 `e` 的闭包把梯度送给 `c` 和 `d`，`c` 的闭包再把梯度送给 `a` 和 `b`：
""",
    ),
    code(
        """
e.grad = 1.0
e._backward()
c._backward()
for v in (a, b, c, d, e):
    print(v)
"""
    ),
    md(
        """
These are the numbers of the Paddle tutorial's example, which lesson 6 found with autogradviz: $\\partial e/\\partial a = 20$, $\\partial e/\\partial b = 8$,
$\\partial e/\\partial c = 4$ and $\\partial e/\\partial d = 10$. Written with the chain rule:

$$\\frac{\\partial e}{\\partial a} = \\frac{\\partial e}{\\partial c}\\,\\frac{\\partial c}{\\partial a} = d\\cdot b = 20,\\qquad
\\frac{\\partial e}{\\partial b} = d\\cdot a = 8,\\qquad
\\frac{\\partial e}{\\partial c} = d = 4,\\qquad
\\frac{\\partial e}{\\partial d} = c = a\\,b = 10.$$

The **order** matters. Run `c`'s closure first, and it sends `c.grad` while that is still 0:
""",
        """
这正是 Paddle 教程里那个例子的数字，第 6 课用 autogradviz 也求出了它们：$\\partial e/\\partial a = 20$、$\\partial e/\\partial b = 8$、
$\\partial e/\\partial c = 4$、$\\partial e/\\partial d = 10$。用链式法则写出来就是：

$$\\frac{\\partial e}{\\partial a} = \\frac{\\partial e}{\\partial c}\\,\\frac{\\partial c}{\\partial a} = d\\cdot b = 20,\\qquad
\\frac{\\partial e}{\\partial b} = d\\cdot a = 8,\\qquad
\\frac{\\partial e}{\\partial c} = d = 4,\\qquad
\\frac{\\partial e}{\\partial d} = c = a\\,b = 10.$$

**顺序**很重要。如果先调用 `c` 的闭包，它送出去的 `c.grad` 还是 0：
""",
    ),
    code(
        """
a2, b2, d2 = Value(2.0, label="a2"), Value(5.0, label="b2"), Value(4.0, label="d2")
c2 = a2 * b2
e2 = c2 * d2
e2.grad = 1.0
c2._backward()  # too early: nothing has reached c2 yet
e2._backward()
print("a2.grad:", a2.grad, "  b2.grad:", b2.grad, "  c2.grad:", c2.grad, "(it arrived too late)")
"""
    ),
    md(
        """
## A topological sort

A value may pass its gradient on only after **every** value made from it has run its closure.
An order with that property is a **topological order**. A depth-first search gives one: visit
all the children of a value first, and only then append the value itself (a *post-order*). In
that list every value comes after its children, so the reversed list starts at the output and
puts each value after everything that uses it.
""",
        """
## 拓扑排序

一个值只有在所有**用到它**的值都运行完自己的闭包之后，才能把梯度传下去。满足这一条件的顺序就是**拓扑顺序**。
深度优先搜索可以给出这样一个顺序：先访问一个值的所有子节点，最后才把这个值本身加入列表（即“后序”）。
在这个列表里，每个值都排在它的子节点之后；把列表倒过来，就从输出开始，并且每个值都排在所有用到它的值之后。
""",
    ),
    code(
        """
def topological_order(root):
    \"\"\"Every Value that root depends on, each one after all the Values it was made from.\"\"\"
    order, visited = [], set()

    def visit(v):
        if v not in visited:
            visited.add(v)
            for child in v._prev:
                visit(child)
            order.append(v)  # after all of its children: a post-order

    visit(root)
    return order


def backward(self):
    \"\"\"Fill in .grad of every Value that self depends on: ∂self/∂v.\"\"\"
    self.grad = 1.0  # ∂self/∂self
    for v in reversed(topological_order(self)):  # the output first, the leaves last
        v._backward()


Value.backward = backward  # a method of the class defined above

print([v.label for v in topological_order(e)])
"""
    ),
    md(
        """
## 20, 8, 4, 10: your engine against autogradviz

Now the same chain on fresh values with `backward()`, and on autogradviz tensors. autogradviz,
like PyTorch, keeps the gradient of the intermediate `c` only after `c.retain_grad()`; our
`Value`, like Paddle (lesson 5), keeps every gradient.
""",
        """
## 20、8、4、10：你的引擎与 autogradviz 对照

现在用全新的值调用 `backward()`，同时在 autogradviz 的张量上做同样的计算。autogradviz 和 PyTorch 一样，
只有调用了 `c.retain_grad()` 才保留中间值 `c` 的梯度；而我们的 `Value` 和 Paddle（第 5 课）一样，保留所有梯度。
""",
    ),
    code(
        """
a, b, d = Value(2.0, label="a"), Value(5.0, label="b"), Value(4.0, label="d")
c = a * b
e = c * d
c.label, e.label = "c", "e"
e.backward()

a_t = agv.tensor(2.0, requires_grad=True)
b_t = agv.tensor(5.0, requires_grad=True)
d_t = agv.tensor(4.0, requires_grad=True)
c_t = a_t * b_t
c_t.retain_grad()
e_t = c_t * d_t
e_t.backward()

print("         Value   autogradviz")
for name, mine, theirs in [("a", a, a_t), ("b", b, b_t), ("c", c, c_t), ("d", d, d_t)]:
    print(f"{name}.grad  {mine.grad:6g}  {theirs.grad.item():12g}")
assert [v.grad for v in (a, b, c, d)] == [t.grad.item() for t in (a_t, b_t, c_t, d_t)]
"""
    ),
    md(
        """
The chain-rule formulas above, computed from the data alone, give the same four numbers:
""",
        """
只用数据、按上面的链式法则公式计算，得到的也是同样的四个数：
""",
    ),
    code(
        """
by_formula = [d.data * b.data, d.data * a.data, d.data, a.data * b.data]
print("d·b, d·a, d, a·b =", by_formula)
assert np.allclose(by_formula, [t.grad.item() for t in (a_t, b_t, c_t, d_t)])
"""
    ),
    md(
        """
autogradviz draws the same expression: the gradients it found are printed under each value.
""",
        """
autogradviz 画出同一个表达式：它求出的梯度写在每个值的下方。
""",
    ),
    code(
        """
agv.draw(e_t, names={"a": a_t, "b": b_t, "c": c_t, "d": d_t, "e": e_t})
"""
    ),
    md(
        """
## Source tour: autogradviz's `MulBackward0`

Here is your multiplication, and then autogradviz's. `arithmetic.mul` computes the product and
records a backward node; the node's class, `MulBackward0`, is what `e_t.grad_fn` is an
instance of. Its `vjp` ("vector-Jacobian product") is the counterpart of your `_backward`. See
[autogradviz/ops/arithmetic.py](../../autogradviz/ops/arithmetic.py), function `mul` and class
`MulBackward0`.
""",
        """
## 源码导读：autogradviz 的 `MulBackward0`

下面先是你写的乘法，然后是 autogradviz 的乘法。`arithmetic.mul` 计算乘积并记录一个反向节点；
这个节点的类 `MulBackward0` 正是 `e_t.grad_fn` 的类型。它的 `vjp`（“向量-雅可比矩阵乘积”）
对应你写的 `_backward`。见 [autogradviz/ops/arithmetic.py](../../autogradviz/ops/arithmetic.py)
中的函数 `mul` 和类 `MulBackward0`。
""",
    ),
    code(
        """
print("# yours")
print(inspect.getsource(Value.__mul__))
print("# autogradviz:", type(e_t.grad_fn).__name__, "is the class of e_t.grad_fn:", type(e_t.grad_fn) is arithmetic.MulBackward0)
print(inspect.getsource(arithmetic.mul))
print(inspect.getsource(arithmetic.MulBackward0))
"""
    ),
    md(
        """
The same rule, $\\partial(a b)/\\partial a = b$ and $\\partial(a b)/\\partial b = a$, organised
differently:

| | your `Value` | autogradviz |
|---|---|---|
| what the forward op leaves behind | the closure `_backward`, which sees `self`, `other` and `out` | a node object, `e_t.grad_fn`, holding only what its formula needs (`saved_tensors`) |
| the local rule | `self.grad += other.data * out.grad` | `vjp(xp, g, a, b)` returns `g * b, g * a` |
| who adds where paths meet | each closure, with `+=` | the engine: `vjp` only returns, and [autogradviz/engine.py](../../autogradviz/engine.py), function `_send`, adds what arrives at a node that already holds some |
| the order | a recursive depth-first search | `_dependencies` counts the edges into every node, with an explicit stack, and `walk` runs a node once all of them have delivered |
| the numbers | Python floats | numpy arrays, any shape; broadcasting is undone by summing (lesson 6) |
| which `.grad` is kept | every value's | the leaves' only, unless `retain_grad()` |

Both engines find the same order here, in two different ways: ours by a depth-first search,
autogradviz's by counting edges. On other graphs the two can differ, and any topological order
gives the same gradients. In autogradviz, a leaf's place in the order is its `AccumulateGrad`
node (lesson 6).
""",
        """
同一条规则 $\\partial(a b)/\\partial a = b$、$\\partial(a b)/\\partial b = a$，组织方式却不同：

| | 你的 `Value` | autogradviz |
|---|---|---|
| 前向运算留下了什么 | 闭包 `_backward`，它能看到 `self`、`other` 和 `out` | 一个节点对象 `e_t.grad_fn`，只保存公式需要的值（`saved_tensors`） |
| 局部规则 | `self.grad += other.data * out.grad` | `vjp(xp, g, a, b)` 返回 `g * b, g * a` |
| 路径汇合时由谁相加 | 每个闭包自己用 `+=` | 引擎：`vjp` 只负责返回，[autogradviz/engine.py](../../autogradviz/engine.py) 中的函数 `_send` 把到达的梯度加到节点已有的梯度上 |
| 顺序 | 递归的深度优先搜索 | `_dependencies` 用显式的栈数出每个节点有几条入边，`walk` 等这些边都送到之后才运行该节点 |
| 数值 | Python 浮点数 | 任意形状的 numpy 数组；广播通过求和来撤销（第 6 课） |
| 保留哪些 `.grad` | 所有值的 | 只保留叶子张量的，除非调用 `retain_grad()` |

这里两个引擎得到的顺序相同，但求法不同：我们用深度优先搜索，autogradviz 则数入边。在别的计算图上两者可能不同，
而任何一个拓扑顺序算出的梯度都一样。在 autogradviz 里，叶子张量在顺序中的位置就是它的 `AccumulateGrad` 节点（第 6 课）。
""",
    ),
    code(
        """
tensors = {"a": a_t, "b": b_t, "c": c_t, "d": d_t, "e": e_t}


def owner(node):
    \"\"\"The name of the tensor a backward node belongs to: its grad_fn, or the leaf it accumulates into.\"\"\"
    return next(name for name, t in tensors.items() if node is t.grad_fn or node.variable is t)


print("yours, reversed:", [v.label for v in reversed(topological_order(e))])
print("autogradviz:    ", [owner(node) for node in agv.topological_order([e_t.grad_fn])])
print("autogradviz's nodes:", [node.name() for node in agv.topological_order([e_t.grad_fn])])
"""
    ),
    md(
        """
### Why autogradviz avoids recursion

Each level of `visit` is one Python call, and Python stops at a fixed depth (the recursion
limit, `sys.getrecursionlimit()`, 1000 by default). A chain of 5000 additions is nothing for
autogradviz's explicit stack, but too deep for our recursive sort:
""",
        """
### autogradviz 为什么不用递归

`visit` 每深入一层就是一次 Python 函数调用，而 Python 的调用深度有上限（递归深度限制 `sys.getrecursionlimit()`，默认是 1000）。
一条由 5000 次加法组成的链，对 autogradviz 的显式栈来说不算什么，对我们的递归排序来说却太深了：
""",
    ),
    code(
        """
x = Value(1.0, label="x")
y = x
for _ in range(5000):
    y = y + 1.0
try:
    y.backward()
except RecursionError:
    print("your engine: RecursionError")

x_t = agv.tensor(1.0, requires_grad=True)
y_t = x_t
for _ in range(5000):
    y_t = y_t + 1.0
y_t.backward()
print("autogradviz: x.grad =", x_t.grad.item())
"""
    ),
    md(
        """
## The `a + a` bug

Why `+=`? Suppose the `+` closure **set** the gradients with `=`. For `b = a + a`, `self` and
`other` are the same object, and the second assignment overwrites the first:
""",
        """
## `a + a` 的 bug

为什么要用 `+=`？假设 `+` 的闭包用 `=` 来**设置**梯度。对 `b = a + a`，`self` 和 `other` 是同一个对象，
第二次赋值就把第一次的结果覆盖掉了：
""",
    ),
    code(
        """
class OverwritingValue(Value):
    \"\"\"A Value with one bug: its + sets the children's gradients with = instead of adding.\"\"\"

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = OverwritingValue(self.data + other.data, (self, other), "+")

        def _backward():
            self.grad = out.grad  # the bug: = throws away what was already there
            other.grad = out.grad

        out._backward = _backward
        return out


buggy = OverwritingValue(3.0, label="a")
(buggy + buggy).backward()
right = Value(3.0, label="a")
(right + right).backward()
a_t = agv.tensor(3.0, requires_grad=True)
(a_t + a_t).backward()
print("with =  :", buggy.grad)
print("with += :", right.grad)
print("autogradviz:", a_t.grad.item())
"""
    ),
    md(
        """
`a` reaches `b` along two edges, and the **multivariable chain rule** sums over every use
$y_k$ of a variable:

$$\\frac{\\partial L}{\\partial x} = \\sum_k \\frac{\\partial L}{\\partial y_k}\\,\\frac{\\partial y_k}{\\partial x},
\\qquad \\frac{d(a+a)}{da} = 1 + 1 = 2.$$

A central finite difference, which knows nothing about graphs, agrees with `+=`:
""",
        """
`a` 沿两条边到达 `b`，而**多元函数的链式法则**要对变量的每一次使用 $y_k$ 求和：

$$\\frac{\\partial L}{\\partial x} = \\sum_k \\frac{\\partial L}{\\partial y_k}\\,\\frac{\\partial y_k}{\\partial x},
\\qquad \\frac{d(a+a)}{da} = 1 + 1 = 2.$$

中心差分对计算图一无所知，它的结果与 `+=` 一致：
""",
    ),
    code(
        """
def double(value):
    return value + value


h = 1e-6
slope = (double(3.0 + h) - double(3.0 - h)) / (2 * h)
print("finite difference:", round(slope, 6))
assert np.isclose(slope, right.grad) and np.isclose(slope, a_t.grad.item())
assert not np.isclose(slope, buggy.grad)
"""
    ),
    md(
        """
The same `+=` is why gradients **accumulate** over calls: call `backward()` twice and every
`.grad` holds the sum of both passes, as in PyTorch (lesson 2). Before a second pass, set them
back to zero.

## Exercises
""",
        """
同样是因为 `+=`，梯度会在多次调用之间**累加**：调用两次 `backward()`，每个 `.grad` 里就是两次反向传播之和，
和 PyTorch 一样（第 2 课）。要再做一次反向传播，先把它们清零。

## 练习
""",
    ),
    md(
        """
### Exercise 1: predict a gradient for a reused value

Let `a = -2`, `b = 3`, `d = a * b`, `e = a + b` and `f = d * e`. Both `a` and `b` are used
twice. **Without running anything**, use the chain rule to derive $\\partial f/\\partial a$ and
$\\partial f/\\partial b$, and set `a_grad` and `b_grad` to those numbers. The check runs your
`Value` and autogradviz.
""",
        """
### 练习 1：预测一个被重复使用的值的梯度

设 `a = -2`、`b = 3`、`d = a * b`、`e = a + b`、`f = d * e`。`a` 和 `b` 都被用了两次。
**先不要运行任何代码**，用链式法则推导出 $\\partial f/\\partial a$ 和 $\\partial f/\\partial b$，
把这两个数分别赋给 `a_grad` 和 `b_grad`。检查单元会用你的 `Value` 和 autogradviz 来验证。
""",
    ),
    *exercise(
        "09.1",
        answers=("a_grad", "b_grad"),
        solution="""
# d = ab = -6 and e = a + b = 1. a reaches f through d (∂f/∂d · ∂d/∂a = e · b)
# and through e (∂f/∂e · ∂e/∂a = d · 1): the two paths add up
a_grad = 1 * 3 + (-6) * 1
b_grad = 1 * (-2) + (-6) * 1
print(a_grad, b_grad)
""",
        check="""
a, b = Value(-2.0, label="a"), Value(3.0, label="b")
f = (a * b) * (a + b)
f.backward()
a_t, b_t = agv.tensor(-2.0, requires_grad=True), agv.tensor(3.0, requires_grad=True)
f_t = (a_t * b_t) * (a_t + b_t)
f_t.backward()
assert a.grad == a_t.grad.item() and b.grad == b_t.grad.item()
assert a_grad != 3 and a_grad != -6, "a reaches f along two paths, through d and through e: add both"
assert np.isclose(a_grad, a.grad), "∂f/∂a = ∂f/∂d · ∂d/∂a + ∂f/∂e · ∂e/∂a = e·b + d·1, with d = -6, e = 1"
assert np.isclose(b_grad, b.grad), "∂f/∂b = e·a + d·1, with d = -6, e = 1"
print("Right: ∂f/∂a =", a.grad, "and ∂f/∂b =", b.grad, "(your Value and autogradviz agree).")
""",
    ),
    md(
        """
### Exercise 2: bug hunt

`OverwritingValue` has the `=` bug in its `+` only. Yet for `x + x * y` it gives the right
answer. For `f = (x + y) * x` at `x = 3`, `y = 2`, predict:

- `buggy_x_grad`: what `OverwritingValue` writes into `x.grad`;
- `true_x_grad`: the right $\\partial f/\\partial x$.

Hint: in which order do the two closures run, and which one writes last?
""",
        """
### 练习 2：找 bug

`OverwritingValue` 只在 `+` 里有 `=` 的 bug。可是对 `x + x * y`，它给出的答案却是对的。
对 `x = 3`、`y = 2` 处的 `f = (x + y) * x`，请预测：

- `buggy_x_grad`：`OverwritingValue` 写进 `x.grad` 的值；
- `true_x_grad`：正确的 $\\partial f/\\partial x$。

提示：两个闭包按什么顺序运行？最后写入的是哪一个？
""",
    ),
    *exercise(
        "09.2",
        answers=("buggy_x_grad", "true_x_grad"),
        solution="""
# reversed topological order: the * runs first and adds (x + y) · 1 = 5 to x.grad;
# then the + runs and sets x.grad to its own upstream gradient, ∂f/∂(x + y) = x = 3
buggy_x_grad = 3.0
# right: both paths add up, (x + y) + x = 2x + y
true_x_grad = 2 * 3.0 + 2.0
print(buggy_x_grad, true_x_grad)
""",
        check="""
x, y = OverwritingValue(3.0, label="x"), OverwritingValue(2.0, label="y")
((x + y) * x).backward()
x_t, y_t = agv.tensor(3.0, requires_grad=True), agv.tensor(2.0, requires_grad=True)
((x_t + y_t) * x_t).backward()
assert np.isclose(true_x_grad, x_t.grad.item()), "∂f/∂x sums two paths: through the + (upstream x) and the * (x + y)"
assert buggy_x_grad != true_x_grad, "the bug does change the answer here: the + closure runs last"
assert np.isclose(buggy_x_grad, x.grad), (
    "the * closure runs first and adds x + y to x.grad; then the + closure sets x.grad to its upstream gradient"
)
print("Right: with = the + closure overwrites", true_x_grad - buggy_x_grad, "that the * had sent.")
""",
    ),
    md(
        """
### Exercise 3: add tanh

Write a function `tanh(v)` that takes a `Value` and returns a new `Value` holding
$t = \\tanh(v)$, made from `v`, with a `_backward` closure. The local derivative is

$$\\frac{d}{dv}\\tanh v = 1 - \\tanh^2 v = 1 - t^2.$$

The check builds Karpathy's neuron, $o = \\tanh(x_1 w_1 + x_2 w_2 + b)$, and compares every
gradient with `agv.tanh`; then it tries `tanh(x) * x`, where `x` is used twice.
""",
        """
### 练习 3：加上 tanh

写一个函数 `tanh(v)`：它接收一个 `Value`，返回一个由 `v` 算出的新 `Value`，其值为 $t = \\tanh(v)$，
并带有一个 `_backward` 闭包。局部导数是

$$\\frac{d}{dv}\\tanh v = 1 - \\tanh^2 v = 1 - t^2.$$

检查单元会搭出 Karpathy 的那个神经元 $o = \\tanh(x_1 w_1 + x_2 w_2 + b)$，
把每个梯度都与 `agv.tanh` 的结果比较；然后再试一试 `tanh(x) * x`，其中 `x` 被用了两次。
""",
    ),
    *exercise(
        "09.3",
        answers=("tanh",),
        solution="""
def tanh(v):
    t = math.tanh(v.data)
    out = Value(t, (v,), "tanh")

    def _backward():
        v.grad += (1 - t**2) * out.grad

    out._backward = _backward
    return out


print(tanh(Value(0.5)))
""",
        check="""
inputs = {"x1": 2.0, "x2": 0.0, "w1": -3.0, "w2": 1.0, "b": 6.881373587019543}
mine = {name: Value(value, label=name) for name, value in inputs.items()}
o = tanh(mine["x1"] * mine["w1"] + mine["x2"] * mine["w2"] + mine["b"])
assert isinstance(o, Value), "tanh(v) should return a new Value"
assert np.isclose(o.data, math.tanh(2.0 * -3.0 + 0.0 * 1.0 + 6.881373587019543)), "o.data should be math.tanh(v.data)"
assert o._prev and o._prev[0]._op == "+", "the new Value is made from v: pass (v,) as its children"
o.backward()
theirs = {name: agv.tensor(value, requires_grad=True) for name, value in inputs.items()}
o_t = agv.tanh(theirs["x1"] * theirs["w1"] + theirs["x2"] * theirs["w2"] + theirs["b"])
o_t.backward()
assert np.isclose(o.data, o_t.item())
for name in inputs:
    assert np.isclose(mine[name].grad, theirs[name].grad.item()), (
        f"{name}.grad is {mine[name].grad}, autogradviz says {theirs[name].grad.item()}: "
        "v.grad gets (1 - t**2) * out.grad"
    )
x, x_t = Value(0.5, label="x"), agv.tensor(0.5, requires_grad=True)
(tanh(x) * x).backward()
(agv.tanh(x_t) * x_t).backward()
assert np.isclose(x.grad, x_t.grad.item()), "x is used twice here: add to v.grad with +=, do not set it with ="
print("Right: every gradient agrees with autogradviz, e.g. w1.grad =", round(mine["w1"].grad, 6))
""",
    ),
    md(
        """
### Exercise 4: a topological sort without recursion

Write `topological_order_iterative(root)`: the same contract as `topological_order` (every
`Value` that `root` depends on, once each, each after all of its children), but with an
explicit stack instead of recursion, like autogradviz's engine. The check runs it on `e` and on
a chain of 5000 additions.

Hint: push `(value, False)` to mean "visit its children", and `(value, True)` to mean "its
children are done: append it".
""",
        """
### 练习 4：不用递归的拓扑排序

写一个 `topological_order_iterative(root)`：约定与 `topological_order` 相同（`root` 依赖的每个 `Value`
各出现一次，每个都排在它所有子节点之后），但要像 autogradviz 的引擎那样，用显式的栈代替递归。
检查单元会在 `e` 上、以及在一条由 5000 次加法组成的链上运行它。

提示：压入 `(value, False)` 表示“去访问它的子节点”，压入 `(value, True)` 表示“它的子节点都处理完了，把它加入列表”。
""",
    ),
    *exercise(
        "09.4",
        answers=("topological_order_iterative",),
        solution="""
def topological_order_iterative(root):
    order, visited = [], set()
    stack = [(root, False)]
    while stack:
        v, children_done = stack.pop()
        if children_done:
            order.append(v)  # every child is already in order
        elif v not in visited:
            visited.add(v)
            stack.append((v, True))  # come back to v once its children are done
            for child in v._prev:
                stack.append((child, False))
    return order


print([v.label for v in topological_order_iterative(e)])
""",
        check="""


def check_order(order, root, size):
    assert len(order) == size, f"there are {size} Values behind this root, the order has {len(order)}"
    assert len({*order}) == size, "each Value once: skip the ones already visited"
    assert order[-1] is root, "the root depends on everything, so it comes last"
    seen = set()
    for v in order:
        assert all(child in seen for child in v._prev), f"{v} comes before one of its children"
        seen.add(v)


a, b, d = Value(2.0, label="a"), Value(5.0, label="b"), Value(4.0, label="d")
c = a * b
e = c * d
check_order(topological_order_iterative(e), e, 5)
f = (a * b) * (a + b)  # a and b are used twice: each must still appear once
check_order(topological_order_iterative(f), f, 5)
x = Value(3.0, label="x")
g = (x + 1.0) * x  # x is a child of g and of x + 1.0: it must come before both
check_order(topological_order_iterative(g), g, 4)
x = Value(1.0, label="x")
y = x
for _ in range(5000):
    y = y + 1.0  # each step makes two Values: the constant 1.0 and the sum
try:
    deep_order = topological_order_iterative(y)
except RecursionError:
    raise AssertionError("RecursionError on a chain of 5000: use a list as the stack, and no function that calls itself") from None
check_order(deep_order, y, 1 + 2 * 5000)
y.grad = 1.0
for v in reversed(topological_order_iterative(y)):
    v._backward()
assert x.grad == 1.0
print("Right: a valid order for e and for a chain of 5000 additions, with no recursion.")
""",
    ),
]

if __name__ == "__main__":
    build(9, "build_micrograd", cells)
