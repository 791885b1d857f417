"""Lesson 1: the computation graph (issues 6 and 15).

cd notebooks/src && ../../.venv/bin/python 01_computation_graph.py
"""

from lesson import build, code, exercise, md, setup

cells = [
    md(
        """
# Lesson 1 · The computation graph

When you write `y = w*x + b`, autogradviz (like PyTorch) does more than work out the numbers: it also
writes down *how* each result was made. That record is the **computation graph**. In this lesson you will

- meet the **leaves** of a graph and its **root**;
- see how `requires_grad` spreads from inputs to results, and what `is_leaf` tells you;
- draw the graph of `y = w*x + b`, first in the direction you wrote it (forward), then in the direction
  `backward()` walks it;
- follow `grad_fn` and `next_functions` by hand;
- see that the graph is recorded anew on every run, so Python's `while` and `if` can shape it.

Terms in bold are explained in the [glossary](../glossary.md).
""",
        """
# 第 1 课 · 计算图

当你写下 `y = w*x + b` 时，autogradviz（和 PyTorch 一样）不只是把数值算出来，还会记下每个结果是**怎样**
得到的。这份记录就是**计算图**。本课你将：

- 认识图中的**叶子节点**和**根节点**；
- 看到 `requires_grad` 如何从输入传递到结果，以及 `is_leaf` 告诉你什么；
- 画出 `y = w*x + b` 的计算图：先按你书写的方向（前向），再按 `backward()` 遍历的方向（反向）；
- 亲手沿着 `grad_fn` 和 `next_functions` 走一遍；
- 看到计算图在每次运行时都重新记录，所以 Python 的 `while` 和 `if` 能决定它的形状。

加粗的术语在[术语表](../glossary.md)中都有解释。
""",
    ),
    md(
        """
## Why build a graph at all?

Training a model means answering one question for every parameter: *if this number moved a little, how
would the loss change?* Backpropagation answers it with the chain rule, applied again and again through
thousands or millions of operations. To do that mechanically, the framework has to know which operation
produced which value from which inputs. That knowledge is a **directed acyclic graph** (DAG) whose nodes are
the variables and the operators.

The graph gives us two things:

1. **Automatic differentiation.** Each operator only needs to know its own local derivative; the graph tells
   the engine how to chain those derivatives together.
2. **Composition.** A big model is many small, simple functions plugged into one another. Each function adds
   its own small piece of graph, so you can build almost anything out of them and still get every gradient
   without deriving it yourself.
""",
        """
## 为什么要建图？

训练模型，就是要对每一个参数回答同一个问题：*这个数稍微变一点，损失会怎样变化？* 反向传播用链式法则来回答它，
而且要在成千上万、甚至数以百万计的运算上一遍遍地应用。要机械地完成这件事，框架必须清楚：哪个运算、用了哪些输入、
算出了哪个值。这些信息合起来就是一张**有向无环图**（DAG），图中的节点是变量和算子。

这张图带来两大好处：

1. **自动求导。** 每个算子只需知道自己的局部导数，至于怎样把这些导数串起来，由图告诉引擎。
2. **组合。** 大模型不过是许多简单的小函数一层层拼接而成。每个函数都会往图里添上属于自己的一小块，
   所以你几乎可以用它们搭出任何模型，却不必亲手推导任何一个梯度。
""",
    ),
    setup(
        """
import autogradviz as agv
from autogradviz.exercises import answered  # used by the exercises' check cells

agv.manual_seed(0)
"""
    ),
    md(
        """
## Leaves: the tensors you create

Start with three tensors. `x` is plain data. `w` and `b` are created with `requires_grad=True`, which means
*I will want the gradient with respect to this tensor later*. Tensors that you create directly, instead of
computing them from other tensors, are the **leaves** of the graph.
""",
        """
## 叶子节点：你亲手创建的张量

先创建三个张量。`x` 只是普通数据；`w` 和 `b` 创建时带上了 `requires_grad=True`，意思是*之后我需要关于这个张量的梯度*。
由你直接创建、而不是由其他张量计算得到的张量，就是图的**叶子节点**。
""",
    ),
    code(
        """
x = agv.ones(2, 2)
w = agv.rand(2, 2, requires_grad=True)
b = agv.rand(2, 2, requires_grad=True)
print(x)
print(w)
print(b)
"""
    ),
    md(
        """
Now combine them. `y` depends on all three leaves, and nothing depends on `y`: it is the **root** of the
graph. Its printout ends with `grad_fn=<AddBackward0>`, a first hint that `y` remembers the last operation
that produced it, an addition.
""",
        """
现在把它们组合起来。`y` 依赖全部三个叶子，而没有任何张量依赖 `y`，所以它是图的**根节点**。
打印结果末尾的 `grad_fn=<AddBackward0>` 是第一个线索：`y` 记得产生它的最后一个运算——一次加法。
""",
    ),
    code(
        """
y = w * x + b
y
"""
    ),
    md(
        """
## `is_leaf`

Every tensor can tell you whether it is a leaf. The three tensors you created are; `y` is not.
""",
        """
## `is_leaf`

每个张量都能告诉你它是不是叶子。你创建的三个张量都是，`y` 不是。
""",
    ),
    code(
        """
print((x.is_leaf, w.is_leaf, b.is_leaf))
print(y.is_leaf)
"""
    ),
    md(
        """
## How `requires_grad` spreads

The rule is short: the result of an operation requires grad if **any** of its inputs does. Nobody marked
`x`, so it stays `False`. `y` is `True` without you asking, because it was computed from `w` (and `b`), and
a gradient with respect to `w` has to pass through `y`.
""",
        """
## `requires_grad` 如何传递

规则很简单：只要一个运算的输入中有**任何一个**需要梯度，它的结果就需要梯度。没有人标记过 `x`，所以它仍是 `False`。
`y` 则不用你要求就是 `True`：它由 `w`（和 `b`）算出，而关于 `w` 的梯度必须经过 `y` 才能传回去。
""",
    ),
    code(
        """
print((x.requires_grad, w.requires_grad, b.requires_grad))
print(y.requires_grad)
"""
    ),
    md(
        """
The other half of the rule matters too. If **none** of an operation's inputs requires grad, nothing is
recorded: the result has no `grad_fn`, and so it counts as a leaf even though you computed it. `is_leaf`
really means *no recorded operation produced this tensor*.
""",
        """
规则的另一半同样重要：如果一个运算的输入**都不**需要梯度，那么什么也不会被记录。结果没有 `grad_fn`，
因此即便它是算出来的，也算作叶子。`is_leaf` 的真正含义是：*没有任何被记录的运算产生过这个张量*。
""",
    ),
    code(
        """
u = x * 2
print(u.requires_grad, u.grad_fn, u.is_leaf)
"""
    ),
    md(
        """
## `grad_fn`: how a tensor was made

A result that requires grad keeps, in `grad_fn`, the backward node of the operation that produced it.
Leaves have no such node, so theirs is `None`.
""",
        """
## `grad_fn`：张量是怎么来的

需要梯度的计算结果会在 `grad_fn` 中保存产生它的那个运算所对应的反向节点。叶子没有这样的节点，所以它们的 `grad_fn` 是 `None`。
""",
    ),
    code(
        """
print(y.grad_fn)
print(x.grad_fn, w.grad_fn, b.grad_fn)
"""
    ),
    md(
        """
## Drawing the forward graph

`agv.draw` draws the graph behind a tensor and labels every tensor with the variable name you gave it (it
finds them among your variables; `names=` chooses other labels). Read it from left to right, in the order the
computation ran:

- amber boxes are leaves that require grad (parameters such as `w` and `b`);
- the blue box is a leaf that does not (input data such as `x`);
- grey ellipses are operations, and the green box is the root `y`;
- the white box without a name is the product `w*x`: a real tensor in the graph, one you never named.
""",
        """
## 画出前向图

`agv.draw` 会画出某个张量背后的计算图，并给每个张量标上你给它起的变量名（它会在你的变量里找这些名字；
想换别的标注，就传 `names=`）。
按计算执行的顺序，从左往右看：

- 琥珀色方框是需要梯度的叶子（像 `w`、`b` 这样的参数）；
- 蓝色方框是不需要梯度的叶子（像 `x` 这样的输入数据）；
- 灰色椭圆是运算，绿色方框是根节点 `y`；
- 没有名字的白色方框是乘积 `w*x`：它是图中真实存在的张量，只是你从没给它起过名字。
""",
    ),
    code(
        """
agv.draw(y)
"""
    ),
    md(
        """
## Drawing the backward graph

What `backward()` actually walks is a second graph, made of the `grad_fn` nodes; `kind="backward"` draws it.
Read this one from the root on the left, where backward starts, towards the leaves on the right. Each forward operation has a node that reverses it: `AddBackward0` for the `+`, `MulBackward0` for the `*`.
Each leaf that requires grad gets an `AccumulateGrad` node, whose job is to add the gradient that reaches it
into that leaf's `.grad`. `x` has no node of its own: nobody asked for its gradient, so the engine never
goes there.
""",
        """
## 画出反向图

`backward()` 真正遍历的是另一张图，它由各个 `grad_fn` 节点组成；用 `kind="backward"` 就能把它画出来。
这张图要从左边的根节点（反向传播的起点）读向右边的叶子。每个前向运算都有一个把它“倒回去”的节点：`+` 对应 `AddBackward0`，`*` 对应 `MulBackward0`。
每个需要梯度的叶子都有一个 `AccumulateGrad` 节点，它负责把到达的梯度累加进该叶子的 `.grad`。
`x` 没有属于自己的节点：没人要它的梯度，所以引擎根本不会走到那里。
""",
    ),
    code(
        """
agv.draw(y, kind="backward")
"""
    ),
    md(
        """
## `next_functions`: the edges of the backward graph

A backward node keeps, in `next_functions`, where its gradient goes next: one `(node, index)` pair per input
of the forward operation. `y` was made as `(w*x) + b`, so its `AddBackward0` points to two places:
""",
        """
## `next_functions`：反向图的边

反向节点在 `next_functions` 中记录梯度接下来要流向哪里：前向运算的每个输入对应一个 `(node, index)` 二元组。
`y` 是由 `(w*x) + b` 得到的，所以它的 `AddBackward0` 指向两个地方：
""",
    ),
    code(
        """
print(y.grad_fn.next_functions)
"""
    ),
    md(
        """
The first input of the addition was `w*x`, made by a multiplication, hence `MulBackward0`. The second was
the leaf `b`, reached through its `AccumulateGrad`. One step further back:
""",
        """
加法的第一个输入是 `w*x`，由乘法得到，所以是 `MulBackward0`；第二个输入是叶子 `b`，通过它的 `AccumulateGrad` 到达。
再往回走一步：
""",
    ),
    code(
        """
mul = y.grad_fn.next_functions[0][0]
print(mul, mul.next_functions)
"""
    ),
    md(
        """
`w` gets an `AccumulateGrad`; `x` gets `None`, because no gradient has to flow into it. An `AccumulateGrad`
node knows which leaf it writes to through its `.variable`:
""",
        """
`w` 对应一个 `AccumulateGrad`；`x` 对应 `None`，因为没有梯度需要流向它。`AccumulateGrad` 节点通过 `.variable`
知道自己要写入哪个叶子：
""",
    ),
    code(
        """
acc_w = mul.next_functions[0][0]
print(acc_w.variable is w)
print(acc_w.variable)
"""
    ),
    md(
        """
Following `next_functions` again and again, starting from the root, visits the whole backward graph. This
little recursive function prints it as a tree, one level of indentation per step back:
""",
        """
从根节点出发，一遍遍沿着 `next_functions` 走下去，就能访问整张反向图。下面这个小小的递归函数把它打印成一棵树，
每往回走一步就多缩进一层：
""",
    ),
    code(
        """
def show(node, depth=0):
    print("    " * depth + node.name())
    for child, _ in node.next_functions:
        if child is not None:
            show(child, depth + 1)


show(y.grad_fn)
"""
    ),
    md(
        """
## Bigger functions, same pieces

Nothing new happens when the function grows: each extra operation simply adds its own node. Pass `y` through
two more functions and take the mean, as a loss would; the backward graph gets longer, but every node in
it is as simple as before.
""",
        """
## 函数变大，零件不变

函数变复杂时并不会发生什么新鲜事：每多一个运算，就多一个属于它的节点。把 `y` 再送进两个函数，然后像损失函数那样取平均；
反向图变长了，但其中每个节点都和之前一样简单。
""",
    ),
    code(
        """
loss = (y.tanh() ** 2).mean()
print(loss)
agv.draw(loss, kind="backward")
"""
    ),
    md(
        """
## The graph is recorded anew on every run

autogradviz, like PyTorch, does not compile your function ahead of time: it records each operation **as it runs**.
So a graph can depend on the data, through ordinary Python `while` loops and `if` tests. This example comes from
the book *Dive into Deep Learning* (d2l, section 2.5): double `a` until the result is at least 1000 in size, then
multiply by 100 if it is negative.
""",
        """
## 计算图在每次运行时都重新记录

autogradviz 和 PyTorch 一样，不会事先编译你的函数：它在每个运算**执行的那一刻**把它记录下来。
所以计算图可以随数据而变，靠的就是普通的 Python `while` 循环和 `if` 判断。下面的例子来自《动手学深度学习》
（d2l，第 2.5 节）：不断把 `a` 翻倍，直到结果的大小至少为 1000，如果结果是负数，再乘以 100。
""",
    ),
    code(
        """
def f(a):
    b = a * 2
    while b.norm() < 1000:  # how many doublings depends on the value of a
        b = b * 2
    if b.sum() > 0:  # and so does this branch
        c = b
    else:
        c = 100 * b
    return c


a_pos = agv.tensor(300.0, requires_grad=True)
d_pos = f(a_pos)
agv.draw(d_pos, names={"a": a_pos, "d": d_pos})
"""
    ),
    md(
        """
For `a = 300` the loop ran once (600 became 1200) and the `if` took the first branch: two multiplications.
Run the same code on `a = -300` and a different graph comes out: the same doubling, then the `else` branch adds a
third multiplication, by 100.
""",
        """
当 `a = 300` 时，循环只执行了一次（600 变成 1200），`if` 走了第一个分支：一共两次乘法。
用同样的代码计算 `a = -300`，得到的却是另一张图：同样翻倍一次，然后 `else` 分支又添上第三次乘法：乘以 100。
""",
    ),
    code(
        """
a_neg = agv.tensor(-300.0, requires_grad=True)
d_neg = f(a_neg)
agv.draw(d_neg, names={"a": a_neg, "d": d_neg})
"""
    ),
    md(
        """
Each call of `f` records a fresh graph, and backward walks the one that was recorded: the path the code really
took. Whatever that path, `f` only ever multiplies `a` by constants, so $d = f(a) = k \\cdot a$ with a $k$ that
depends on the path, and $\\partial d / \\partial a = k = d / a$. Check it on both inputs:
""",
        """
每次调用 `f` 都会记录一张新图，而 backward 遍历的就是记录下来的那张：代码实际走过的路径。无论走哪条路径，
`f` 对 `a` 做的都只是乘以常数，所以 $d = f(a) = k \\cdot a$，其中 $k$ 取决于路径，于是 $\\partial d / \\partial a = k = d / a$。
在两个输入上验证：
""",
    ),
    code(
        """
for a_k, d_k in ((a_pos, d_pos), (a_neg, d_neg)):
    d_k.backward()
    print(
        f"a = {a_k.item():6.1f}   d = {d_k.item():9.1f}   a.grad = {a_k.grad.item():5.1f}",
        f"  d / a = {(d_k / a_k).item():5.1f}   equal: {agv.allclose(a_k.grad, d_k / a_k)}",
    )
"""
    ),
    md(
        """
Source tour: every operation ends in the function `record` of
[autogradviz/core/record.py](../../autogradviz/core/record.py). It wraps the result in a tensor and, if an input
needs a gradient, makes the new backward node and links it to its inputs' nodes. Nothing else builds the graph,
which is why a `while` loop simply adds one node per turn.
""",
        """
源码导览：每个运算最后都会调用 [autogradviz/core/record.py](../../autogradviz/core/record.py) 中的函数 `record`。
它把结果包装成张量；如果某个输入需要梯度，就新建一个反向节点，并把它连到各输入的节点上。除此之外，没有别的地方构建计算图，
所以 `while` 循环每转一圈就简单地多出一个节点。
""",
    ),
    md(
        """
## What to remember

- Leaves are the tensors you create (or that no recorded operation produced); the root is the final result.
- A result requires grad as soon as one of its inputs does.
- `grad_fn` names the backward node of the operation that made a tensor; `next_functions` are the edges from
  that node back towards the leaves, ending in one `AccumulateGrad` per leaf that requires grad.
- The graph is recorded while the code runs, so each run can record a different one; backward follows the one
  recorded.
""",
        """
## 要点回顾

- 叶子是你创建的张量（或者说，没有被记录的运算产生过的张量）；根是最终结果。
- 只要有一个输入需要梯度，结果就需要梯度。
- `grad_fn` 指向产生该张量的运算所对应的反向节点；`next_functions` 是从这个节点指回叶子方向的边，
  最终到达每个需要梯度的叶子各自的 `AccumulateGrad`。
- 计算图是在代码运行时记录的，所以每次运行都可能记录出不同的图；backward 沿着记录下来的那张图走。
""",
    ),
    md(
        """
## Exercises

Each exercise has a cell for your answer, followed by a cell that checks it. Write your answer, run it,
then run the check. The check's first line, `answered(...)`, tells you if an answer is still missing.

**Exercise 1. Leaf or not?** Create these four tensors:

```python
p = agv.tensor([1.0, 2.0], requires_grad=True)
q = agv.tensor([3.0, 4.0])
r = q * 2
s = p * r
```

Then, *without* printing any attribute, fill in a dict `answers` that maps each name (`"p"`, `"q"`, `"r"`,
`"s"`) to the pair `(is_leaf, requires_grad)` you expect.
""",
        """
## 练习

每道练习都有一个写答案的单元格，后面跟着一个检查答案的单元格。写好答案并运行，再运行检查单元格。
检查单元格的第一行 `answered(...)` 会告诉你是否还有答案没写。

**练习 1：是不是叶子？** 创建下面四个张量：

```python
p = agv.tensor([1.0, 2.0], requires_grad=True)
q = agv.tensor([3.0, 4.0])
r = q * 2
s = p * r
```

然后，在*不*打印任何属性的前提下，写出一个字典 `answers`：把每个名字（`"p"`、`"q"`、`"r"`、`"s"`）
映射到你预期的二元组 `(is_leaf, requires_grad)`。
""",
    ),
    *exercise(
        "01.1",
        answers=("p", "q", "r", "s", "answers"),
        solution="""
p = agv.tensor([1.0, 2.0], requires_grad=True)
q = agv.tensor([3.0, 4.0])
r = q * 2
s = p * r
answers = {
    "p": (True, True),  # created by you, marked
    "q": (True, False),  # created by you, not marked
    "r": (True, False),  # computed, but from tensors that need no grad: nothing recorded
    "s": (False, True),  # computed from p, which requires grad
}
""",
        check="""
for name, tensor in {"p": p, "q": q, "r": r, "s": s}.items():
    actual = (tensor.is_leaf, tensor.requires_grad)
    assert answers[name] == actual, (
        f"{name}: you said {answers[name]}, but (is_leaf, requires_grad) is {actual}"
    )
print("All four right.")
""",
    ),
    md(
        """
**Exercise 2. A graph to order.** Make two scalar leaves `u` and `v` that require grad, then build a tensor
`z` from them whose backward graph looks like this:

- `z.grad_fn` is a `MulBackward0`;
- its first `next_functions` entry is an `AddBackward0` whose two inputs are the leaves `u` and `v`;
- its second entry is the `AccumulateGrad` of `v`.

Hint: read the description from the root back to the leaves, then write the formula.
""",
        """
**练习 2：按图施工。** 创建两个需要梯度的标量叶子 `u` 和 `v`，再用它们构造张量 `z`，使它的反向图满足：

- `z.grad_fn` 是 `MulBackward0`；
- 它的 `next_functions` 第一项是一个 `AddBackward0`，其两个输入是叶子 `u` 和 `v`；
- 第二项是 `v` 的 `AccumulateGrad`。

提示：从根往叶子的方向读这段描述，再写出公式。
""",
    ),
    *exercise(
        "01.2",
        answers=("u", "v", "z"),
        solution="""
u = agv.tensor(2.0, requires_grad=True)
v = agv.tensor(3.0, requires_grad=True)
z = (u + v) * v
""",
        check="""
assert z.grad_fn is not None and z.grad_fn.name() == "MulBackward0", (
    f"z.grad_fn is {z.grad_fn}, not MulBackward0"
)
first, second = [node for node, _ in z.grad_fn.next_functions]
assert first is not None and first.name() == "AddBackward0", (
    f"the product's first input comes from {first}, not AddBackward0"
)
added = [getattr(node, "variable", None) for node, _ in first.next_functions]
assert len(added) == 2 and {id(t) for t in added} == {id(u), id(v)}, (
    "the addition should add the leaves u and v"
)
assert second is not None and getattr(second, "variable", None) is v, (
    f"the product's second input should be v, not {second}"
)
print("Right:", z.grad_fn, z.grad_fn.next_functions)
""",
    ),
    md(
        """
**Exercise 3. Count the backward nodes.** Write a function `backward_nodes(t)` that returns a list of the
*distinct* backward nodes reachable from `t.grad_fn` through `next_functions`, including `t.grad_fn` itself
and the `AccumulateGrad` nodes. A node that can be reached along two paths must appear only once: compare
nodes with `is`, or remember the `id()` of each node you have seen. For `y = w*x + b` it should find 4 nodes.
""",
        """
**练习 3：数一数反向节点。** 写一个函数 `backward_nodes(t)`，返回从 `t.grad_fn` 出发、沿 `next_functions`
能到达的所有*互不相同*的反向节点组成的列表，其中包括 `t.grad_fn` 本身以及各个 `AccumulateGrad` 节点。
能沿两条路径到达的节点只能出现一次：用 `is` 比较节点，或者记下每个已见过节点的 `id()`。
对 `y = w*x + b`，它应该找到 4 个节点。
""",
    ),
    *exercise(
        "01.3",
        answers=("backward_nodes",),
        solution="""
def backward_nodes(t):
    found, seen, todo = [], set(), [t.grad_fn]
    while todo:
        node = todo.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        found.append(node)
        todo.extend(child for child, _ in node.next_functions)
    return found


print(sorted(node.name() for node in backward_nodes(y)))
""",
        check="""
found = sorted(node.name() for node in backward_nodes(y))
assert found == ["AccumulateGrad", "AccumulateGrad", "AddBackward0", "MulBackward0"], (
    f"for y you found {found}"
)
g = agv.tensor(1.0, requires_grad=True)
h = (g * g + g).exp()  # g is used three times, but it has only one AccumulateGrad
found = sorted(node.name() for node in backward_nodes(h))
assert found == ["AccumulateGrad", "AddBackward0", "ExpBackward0", "MulBackward0"], (
    f"for (g*g + g).exp() you found {found}: is a node reached twice counted twice?"
)
print("Right: 4 nodes for y, and 4 for (g*g + g).exp()")
""",
    ),
    md(
        """
**Exercise 4. Predict the graph of `f`.** Without running `f`, work out what happens for `a = -0.5`: how many
times the loop doubles, which branch the `if` takes, and so how many multiplication nodes (`MulBackward0`) the
backward graph of `d = f(a)` contains, and what `a.grad` is after `d.backward()`. Store them as an int
`multiplications` and a float `grad_at_minus_half`.
""",
        """
**练习 4：预测 `f` 的计算图。** 不运行 `f`，推算 `a = -0.5` 时会发生什么：循环翻倍几次，`if` 走哪个分支，
因而 `d = f(a)` 的反向图里有多少个乘法节点（`MulBackward0`），以及 `d.backward()` 之后 `a.grad` 是多少。
把它们分别存为整数 `multiplications` 和浮点数 `grad_at_minus_half`。
""",
    ),
    *exercise(
        "01.4",
        answers=("multiplications", "grad_at_minus_half"),
        solution="""
# b = a * 2 = -1; doubling until |b| >= 1000 takes 10 turns (-1024); the sum is negative,
# so c = 100 * b. Multiplications: 1 + 10 + 1 = 12, and d = 2 * 2**10 * 100 * a
multiplications = 12
grad_at_minus_half = 2.0 * 2**10 * 100
""",
        check="""
a_half = agv.tensor(-0.5, requires_grad=True)
d_half = f(a_half)
nodes, seen, todo = [], set(), [d_half.grad_fn]
while todo:
    node = todo.pop()
    if node is not None and node not in seen:
        seen.add(node)
        nodes.append(node.name())
        todo.extend(child for child, _ in node.next_functions)
actual_count = nodes.count("MulBackward0")
assert multiplications == actual_count, (
    f"the graph has {actual_count} multiplications, you said {multiplications}: "
    "count the first a * 2, each turn of the loop (stop once |b| >= 1000), and the branch"
)
d_half.backward()
assert abs(grad_at_minus_half - a_half.grad.item()) < 1e-3, (
    f"a.grad is {a_half.grad.item()}, you said {grad_at_minus_half}: d is a constant times a, and a.grad is that constant"
)
print(f"Right: {actual_count} multiplications, a.grad = {a_half.grad.item()}")
""",
    ),
]

if __name__ == "__main__":
    for path in build(1, "computation_graph", cells):
        print("wrote", path)
