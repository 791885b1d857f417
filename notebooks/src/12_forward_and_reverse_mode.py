"""Lesson 12: forward and reverse mode (issue 15). The chain rule as a sum over paths (colah),
forward mode with dual numbers, a Jacobian column by column against row by row, counting the
passes each mode needs, and a Hessian-vector product through create_graph.

    cd notebooks/src && ../../.venv/bin/python 12_forward_and_reverse_mode.py
"""

from lesson import build, code, exercise, md, setup

cells = [
    md(
        """
# Lesson 12 · Forward and reverse mode

Every gradient so far came from `backward()`: autograd records the forward computation, then walks the graph
**backwards**, from the output to the inputs. That is *reverse mode*. The same chain rule can just as well be
applied **forwards**, from the inputs to the output: *forward mode*. This lesson builds forward mode in twenty
lines and compares the two:

- the chain rule on a graph is a **sum over paths** of products of edge derivatives;
- forward mode with **dual numbers**, checked against autogradviz's gradient;
- a **Jacobian** built column by column (forward mode) and row by row (reverse mode);
- **counting passes**: why one loss with many parameters wants reverse mode;
- a **Hessian-vector product** through `create_graph=True`, without ever building the Hessian.

Terms used here are in the [glossary](../glossary.md).
""",
        """
# 第 12 课 · 前向模式与反向模式

到目前为止，所有梯度都来自 `backward()`：autograd 先记录前向计算，再从输出到输入**反向**遍历计算图。
这叫*反向模式*。同一条链式法则也完全可以**正向**使用，从输入推到输出：这叫*前向模式*。
本课用二十行代码实现前向模式，并把两种模式放在一起比较：

- 计算图上的链式法则是一个**对路径求和**：每条路径上各边导数之积，再把所有路径加起来；
- 用**对偶数**实现前向模式，并与 autogradviz 给出的梯度对照；
- 逐列（前向模式）和逐行（反向模式）构造**雅可比矩阵**；
- **数一数遍数**：为什么“一个损失、许多参数”的情形要用反向模式；
- 借助 `create_graph=True` 计算**海森矩阵与向量的乘积**，而无需构造整个海森矩阵。

本课用到的术语见[术语表](../glossary.md)。
""",
    ),
    setup(
        """
import itertools
import math

import numpy as np

import autogradviz as agv
from autogradviz.exercises import answered  # used by the exercises' check cells

# numpy arrays print with 4 decimals, like tensors
np.set_printoptions(precision=4, suppress=True, floatmode="fixed")
agv.manual_seed(0)
"""
    ),
    md(
        """
## One chain, two orders

Take a chain of three functions, $y = f_3(f_2(f_1(x)))$, with intermediate values $v_1 = f_1(x)$ and
$v_2 = f_2(v_1)$. The chain rule says

$$\\frac{dy}{dx} = f_3'(v_2)\\cdot f_2'(v_1)\\cdot f_1'(x).$$

A product does not care about its order, but a program must pick one:

- **forward mode** multiplies from the input side. It carries the *tangent* $\\dot v = dv/dx$ along with each
  value, starting from $\\dot x = 1$: $\\dot v_1 = f_1'(x)\\,\\dot x$, then $\\dot v_2 = f_2'(v_1)\\,\\dot v_1$, then
  $\\dot y = f_3'(v_2)\\,\\dot v_2$;
- **reverse mode** multiplies from the output side. It carries the *adjoint* $\\bar v = dy/dv$ (what this course
  has called the gradient arriving at a node), starting from $\\bar y = 1$: $\\bar v_2 = \\bar y\\,f_3'(v_2)$, then
  $\\bar v_1 = \\bar v_2\\,f_2'(v_1)$, then $\\bar x = \\bar v_1\\,f_1'(x)$.

For $y = (e^{\\sin x})^2$ at $x = 0.5$, both orders give the number that `agv.grad` gives:
""",
        """
## 一条链，两种顺序

取三个函数组成的链 $y = f_3(f_2(f_1(x)))$，中间值为 $v_1 = f_1(x)$ 和 $v_2 = f_2(v_1)$。链式法则给出

$$\\frac{dy}{dx} = f_3'(v_2)\\cdot f_2'(v_1)\\cdot f_1'(x)。$$

乘积与相乘的顺序无关，但程序必须选定一种顺序：

- **前向模式**从输入一侧乘起。它让每个值都带上*切向量*（tangent）$\\dot v = dv/dx$，从 $\\dot x = 1$ 出发：
  $\\dot v_1 = f_1'(x)\\,\\dot x$，然后 $\\dot v_2 = f_2'(v_1)\\,\\dot v_1$，最后 $\\dot y = f_3'(v_2)\\,\\dot v_2$；
- **反向模式**从输出一侧乘起。它传递*伴随值*（adjoint）$\\bar v = dy/dv$（也就是本课程一直说的“到达某个节点的梯度”），
  从 $\\bar y = 1$ 出发：$\\bar v_2 = \\bar y\\,f_3'(v_2)$，然后 $\\bar v_1 = \\bar v_2\\,f_2'(v_1)$，最后 $\\bar x = \\bar v_1\\,f_1'(x)$。

对 $x = 0.5$ 处的 $y = (e^{\\sin x})^2$，两种顺序得到的数都和 `agv.grad` 给出的一样：
""",
    ),
    code(
        """
x0 = 0.5
v1 = math.sin(x0)  # f1 = sin
v2 = math.exp(v1)  # f2 = exp
local = [math.cos(x0), math.exp(v1), 2 * v2]  # f1'(x), f2'(v1), f3'(v2); f3(v) = v**2

tangent = 1.0  # forward mode: dx/dx = 1, then multiply in f1', f2', f3'
for derivative in local:
    tangent = derivative * tangent

adjoint = 1.0  # reverse mode: dy/dy = 1, then multiply in f3', f2', f1'
for derivative in reversed(local):
    adjoint = adjoint * derivative

x = agv.tensor(x0, dtype=agv.float64, requires_grad=True)
(autograd,) = agv.grad(x.sin().exp() ** 2, x)
print(f"forward mode: {tangent:.6f}")
print(f"reverse mode: {adjoint:.6f}")
print(f"agv.grad:     {autograd.item():.6f}")
"""
    ),
    md(
        """
## A graph: the sum over paths

A real computation is a graph, not a chain: a value can feed several others, so there can be several paths from
an input to the output. Here is the diamond from colah's *Calculus on Computational Graphs*:
$c = a + b$, $d = b + 1$, $e = c \\cdot d$, at $a = 2$, $b = 1$. `b` reaches `e` along two paths, through `c` and
through `d`:
""",
        """
## 计算图：对路径求和

真实的计算是一张图而不是一条链：一个值可以流向好几个地方，所以从某个输入到输出可能有好几条路径。
下面是 colah 的文章 *Calculus on Computational Graphs* 里的菱形图：$c = a + b$，$d = b + 1$，$e = c \\cdot d$，
取 $a = 2$，$b = 1$。`b` 沿两条路径到达 `e`：一条经过 `c`，一条经过 `d`：
""",
    ),
    code(
        """
a = agv.tensor(2.0, requires_grad=True)
b = agv.tensor(1.0, requires_grad=True)
c = a + b
d = b + 1
e = c * d
agv.draw(e, names={"a": a, "b": b, "c": c, "d": d, "e": e})
"""
    ),
    md(
        """
Write the local derivative on each edge: $\\partial c/\\partial a = \\partial c/\\partial b = \\partial d/\\partial b = 1$,
$\\partial e/\\partial c = d = 2$ and $\\partial e/\\partial d = c = 3$. The derivative of `e` with respect to an input
is the **sum over all paths** from that input to `e` of the **product** of the edge derivatives along the path:

$$\\frac{\\partial e}{\\partial b} = \\underbrace{\\frac{\\partial c}{\\partial b}\\frac{\\partial e}{\\partial c}}_{\\text{via } c}
+ \\underbrace{\\frac{\\partial d}{\\partial b}\\frac{\\partial e}{\\partial d}}_{\\text{via } d} = 1\\cdot 2 + 1\\cdot 3 = 5,
\\qquad \\frac{\\partial e}{\\partial a} = 1\\cdot 2 = 2.$$

The cell below lists every path, multiplies along it and adds up, then asks autogradviz:
""",
        """
在每条边上写出局部导数：$\\partial c/\\partial a = \\partial c/\\partial b = \\partial d/\\partial b = 1$，
$\\partial e/\\partial c = d = 2$，$\\partial e/\\partial d = c = 3$。`e` 对某个输入的导数，等于从这个输入到 `e` 的
**所有路径之和**，每条路径贡献沿途各边导数的**乘积**：

$$\\frac{\\partial e}{\\partial b} = \\underbrace{\\frac{\\partial c}{\\partial b}\\frac{\\partial e}{\\partial c}}_{\\text{经过 } c}
+ \\underbrace{\\frac{\\partial d}{\\partial b}\\frac{\\partial e}{\\partial d}}_{\\text{经过 } d} = 1\\cdot 2 + 1\\cdot 3 = 5，
\\qquad \\frac{\\partial e}{\\partial a} = 1\\cdot 2 = 2。$$

下面的单元格列出每一条路径，沿路径相乘再相加，然后和 autogradviz 的结果对照：
""",
    ),
    code(
        """
# the local derivative on each edge (from, to), read off the formulas above
edges = {
    ("a", "c"): 1.0,
    ("b", "c"): 1.0,
    ("b", "d"): 1.0,
    ("c", "e"): d.item(),  # e = c * d: the derivative by c is d
    ("d", "e"): c.item(),
}


def paths(start, end):
    \"\"\"Every path from start to end, each a list of edges.\"\"\"
    if start == end:
        return [[]]
    found = []
    for before, after in edges:
        if before == start:
            found += [[(start, after)] + rest for rest in paths(after, end)]
    return found


c.retain_grad()  # keep the gradients of c and d too (lesson 3), to draw them below
d.retain_grad()
e.backward()
for leaf, tensor in (("a", a), ("b", b)):
    products = [math.prod(edges[edge] for edge in path) for path in paths(leaf, "e")]
    routes = [" -> ".join([leaf] + [to for _, to in path]) for path in paths(leaf, "e")]
    print(f"de/d{leaf}: paths {routes}, products {products}")
    print(f"       sum {sum(products)}, autograd {tensor.grad.item()}")
"""
    ),
    md(
        """
Drawn after `e.backward()`, the graph shows reverse mode's bookkeeping. The gradient at `c` is
$\\partial e/\\partial c = 2$, at `d` it is $\\partial e/\\partial d = 3$: each node's gradient is already the sum over
all paths from that node to `e`. `b` feeds both, so it receives $1\\cdot 2 + 1\\cdot 3 = 5$:
""",
        """
在 `e.backward()` 之后再画一次，图上就能看到反向模式是怎样记账的。`c` 处的梯度是 $\\partial e/\\partial c = 2$，
`d` 处是 $\\partial e/\\partial d = 3$：每个节点的梯度已经是从该节点到 `e` 的所有路径之和。`b` 同时流向两者，
所以它得到 $1\\cdot 2 + 1\\cdot 3 = 5$：
""",
    ),
    code(
        """
agv.draw(e, names={"a": a, "b": b, "c": c, "d": d, "e": e})
"""
    ),
    md(
        """
Listing paths does not scale: stack $k$ diamonds and there are $2^k$ paths. Neither mode lists them. Both
**factor** the sum: at every node where paths meet, they add first and multiply afterwards. Reverse mode does it
at each node whose value fed several others: the engine adds the gradients arriving from all of them before the
node runs (the "merges" of lesson 6; see [autogradviz/engine.py](../../autogradviz/engine.py), function
`walk`, which runs each node only once all its gradient has arrived).

Take $k = 10$ stacked diamonds, $y_{i+1} = \\sin y_i \\cdot \\cos y_i$. Stage $i$ has two paths, through the sine
(product $\\cos y_i\\cdot\\cos y_i$) and through the cosine (product $-\\sin y_i\\cdot\\sin y_i$). The sum over all
$2^{10}$ paths equals the product of the ten per-stage sums:
""",
        """
列出所有路径的做法无法扩展：把 $k$ 个菱形叠起来，就有 $2^k$ 条路径。两种模式都不会去列举路径，而是把这个和
**因式分解**：在路径汇合的节点，先相加，再往下乘。反向模式在每个“值流向了好几个地方”的节点上这样做：
引擎先把从各处传回来的梯度加起来，再运行这个节点（即第 6 课讲过的“合并”；见
[autogradviz/engine.py](../../autogradviz/engine.py) 中的函数 `walk`：每个节点要等它的梯度全部到齐才运行，而且只运行一次）。

取 $k = 10$ 个叠起来的菱形：$y_{i+1} = \\sin y_i \\cdot \\cos y_i$。第 $i$ 级有两条路径：经过正弦（乘积为
$\\cos y_i\\cdot\\cos y_i$）和经过余弦（乘积为 $-\\sin y_i\\cdot\\sin y_i$）。对全部 $2^{10}$ 条路径求和，
等于十个“每级之和”的乘积：
""",
    ),
    code(
        """
values = [0.3]
for _ in range(10):
    values.append(math.sin(values[-1]) * math.cos(values[-1]))
# per stage: (path through the sine, path through the cosine), each of two edges
stages = [(math.cos(y) * math.cos(y), -math.sin(y) * math.sin(y)) for y in values[:-1]]

# a path picks one of the two routes at every stage: 2**10 paths
every_path = [math.prod(choice) for choice in itertools.product(*stages)]
factored = math.prod(via_sin + via_cos for via_sin, via_cos in stages)

t = agv.tensor(values[0], dtype=agv.float64, requires_grad=True)
y = t
for _ in range(10):
    y = y.sin() * y.cos()
(dy_dt,) = agv.grad(y, t)
print(f"{len(every_path)} paths summed: {sum(every_path):.10f}")
print(f"10 stage sums multiplied: {factored:.10f}")
print(f"agv.grad: {dy_dt.item():.10f}")
"""
    ),
    md(
        """
## Forward mode with dual numbers

Forward mode needs each value to carry its tangent. A **dual number** $a + \\dot a\\,\\varepsilon$ does exactly that,
with one rule: $\\varepsilon^2 = 0$. Multiplying two of them,

$$(a + \\dot a\\,\\varepsilon)(b + \\dot b\\,\\varepsilon) = ab + (\\dot a\\,b + a\\,\\dot b)\\,\\varepsilon,$$

gives the product rule for free, and for a function, Taylor's formula stops after one term:
$f(a + \\dot a\\,\\varepsilon) = f(a) + f'(a)\\,\\dot a\\,\\varepsilon$, so
$\\sin(a + \\dot a\\,\\varepsilon) = \\sin a + \\cos a\\,\\dot a\\,\\varepsilon$ and
$e^{a + \\dot a\\,\\varepsilon} = e^a + e^a\\,\\dot a\\,\\varepsilon$.

Here is forward mode for `+`, `*`, `sin` and `exp`, in one small class:
""",
        """
## 用对偶数实现前向模式

前向模式要求每个值都带着自己的切向量。**对偶数** $a + \\dot a\\,\\varepsilon$ 恰好做到这一点，规则只有一条：
$\\varepsilon^2 = 0$。两个对偶数相乘，

$$(a + \\dot a\\,\\varepsilon)(b + \\dot b\\,\\varepsilon) = ab + (\\dot a\\,b + a\\,\\dot b)\\,\\varepsilon，$$

乘积法则就自动出现了。对一个函数，泰勒公式在一次项之后就截止：
$f(a + \\dot a\\,\\varepsilon) = f(a) + f'(a)\\,\\dot a\\,\\varepsilon$，所以
$\\sin(a + \\dot a\\,\\varepsilon) = \\sin a + \\cos a\\,\\dot a\\,\\varepsilon$，
$e^{a + \\dot a\\,\\varepsilon} = e^a + e^a\\,\\dot a\\,\\varepsilon$。

下面用一个小类实现 `+`、`*`、`sin` 和 `exp` 的前向模式：
""",
    ),
    code(
        """
class Dual:
    \"\"\"value + tangent·ε with ε² = 0: the tangent carries d(value)/dx forward.\"\"\"

    def __init__(self, value, tangent=0.0):
        self.value = float(value)
        self.tangent = float(tangent)  # a constant's tangent is 0: it does not vary

    def __add__(self, other):
        other = other if isinstance(other, Dual) else Dual(other)
        return Dual(self.value + other.value, self.tangent + other.tangent)

    def __mul__(self, other):
        other = other if isinstance(other, Dual) else Dual(other)
        # the product rule
        tangent = self.tangent * other.value + self.value * other.tangent
        return Dual(self.value * other.value, tangent)

    __radd__ = __add__  # 1 + x: Python asks x; the order does not matter
    __rmul__ = __mul__

    def sin(self):
        return Dual(math.sin(self.value), math.cos(self.value) * self.tangent)

    def exp(self):
        return Dual(math.exp(self.value), math.exp(self.value) * self.tangent)

    def __repr__(self):
        return f"Dual(value={self.value:.6f}, tangent={self.tangent:.6f})"
"""
    ),
    md(
        """
`Dual` has the method names of a tensor (`x.sin()`, `x.exp()`), so one Python function runs on both. Take
$f(x) = x\\sin x + e^{x^2}$, with $f'(x) = \\sin x + x\\cos x + 2x\\,e^{x^2}$. Seeding the tangent with 1 says
"differentiate with respect to this input"; one forward pass then carries the value and the derivative together:
""",
        """
`Dual` 的方法名和张量的一样（`x.sin()`、`x.exp()`），所以同一个 Python 函数在两者上都能运行。取
$f(x) = x\\sin x + e^{x^2}$，其导数为 $f'(x) = \\sin x + x\\cos x + 2x\\,e^{x^2}$。把切向量设为 1，意思是“对这个输入求导”；
这样只需一次前向计算，函数值和导数就一起得出：
""",
    ),
    code(
        """
def f(x):
    return x * x.sin() + (x * x).exp()


print("forward mode:", f(Dual(0.7, tangent=1.0)))

x = agv.tensor(0.7, dtype=agv.float64, requires_grad=True)
(grad_x,) = agv.grad(f(x), x)
print(f"reverse mode (agv.grad): {grad_x.item():.6f}")
formula = math.sin(0.7) + 0.7 * math.cos(0.7) + 2 * 0.7 * math.exp(0.7**2)
print(f"formula:                 {formula:.6f}")
"""
    ),
    md(
        """
Forward mode needs no graph: nothing is recorded, each operation does its derivative on the spot, and the
tangent is ready the moment the value is. PyTorch has this too, as `torch.autograd.forward_ad` (dual tensors
with exactly these rules). The diamond agrees: seeding `b` gives $\\partial e/\\partial b = 5$, both paths summed in
one pass, because the tangent of `b` flows into both `c` and `d`:
""",
        """
前向模式不需要计算图：什么都不记录，每个运算当场算出自己的导数，函数值一算出来，切向量也就有了。
PyTorch 也有前向模式，即 `torch.autograd.forward_ad`（对偶张量，规则和这里完全相同）。菱形图的结果也一致：
给 `b` 设定切向量，一次就得到 $\\partial e/\\partial b = 5$，两条路径都已加上，因为 `b` 的切向量同时流进了 `c` 和 `d`：
""",
    ),
    code(
        """
def diamond(a, b):
    c = a + b
    d = b + 1
    return c * d


print("seed b:", diamond(Dual(2.0, 0.0), Dual(1.0, 1.0)))
print("seed a:", diamond(Dual(2.0, 1.0), Dual(1.0, 0.0)))
"""
    ),
    md(
        """
Note the two passes. One forward pass gives the derivative of **every** value with respect to **one** input
(the seeded one). One backward pass gives the derivative of **one** output with respect to **every** input:
`e.backward()` above filled `a.grad` and `b.grad` at once.

## A Jacobian, column by column or row by row

For a function $F:\\mathbb{R}^n\\to\\mathbb{R}^m$, the Jacobian $J_{ij} = \\partial F_i/\\partial x_j$ has $m$ rows and
$n$ columns. Seeding input $j$ with tangent 1 (the others 0) gives $J e_j$, **column** $j$. A backward pass from
output $i$ (seed 1 at output $i$) gives $e_i^\\top J$, **row** $i$: the $v^\\top J$ of lesson 2 with $v = e_i$. Take
$n = 3$, $m = 2$:

$$F(x) = \\begin{pmatrix} x_0 x_1 + e^{x_2} \\\\ \\sin(x_0 + x_2)\\,x_1 \\end{pmatrix},$$

$$J = \\begin{pmatrix} x_1 & x_0 & e^{x_2} \\\\ x_1\\cos(x_0 + x_2) & \\sin(x_0 + x_2) & x_1\\cos(x_0 + x_2) \\end{pmatrix}.$$

`F` takes its inputs one number at a time (a `Dual` or a one-element tensor) and returns a list of outputs:
""",
        """
请注意这两遍计算的区别。一次前向计算给出**所有**值对**一个**输入（被设定切向量的那个）的导数；一次反向传播给出
**一个**输出对**所有**输入的导数：上面的 `e.backward()` 一次就填好了 `a.grad` 和 `b.grad`。

## 雅可比矩阵：逐列还是逐行

对函数 $F:\\mathbb{R}^n\\to\\mathbb{R}^m$，雅可比矩阵 $J_{ij} = \\partial F_i/\\partial x_j$ 有 $m$ 行、$n$ 列。
把输入 $j$ 的切向量设为 1（其余为 0），得到 $J e_j$，即第 $j$ **列**。从输出 $i$ 做一次反向传播（在输出 $i$ 处种下 1），
得到 $e_i^\\top J$，即第 $i$ **行**：也就是第 2 课里 $v = e_i$ 时的 $v^\\top J$。取 $n = 3$，$m = 2$：

$$F(x) = \\begin{pmatrix} x_0 x_1 + e^{x_2} \\\\ \\sin(x_0 + x_2)\\,x_1 \\end{pmatrix}，$$

$$J = \\begin{pmatrix} x_1 & x_0 & e^{x_2} \\\\ x_1\\cos(x_0 + x_2) & \\sin(x_0 + x_2) & x_1\\cos(x_0 + x_2) \\end{pmatrix}。$$

`F` 一次接收一个数作为输入（`Dual` 或者只有一个元素的张量），返回由各个输出组成的列表：
""",
    ),
    code(
        """
def F(x0, x1, x2):
    return [x0 * x1 + x2.exp(), (x0 + x2).sin() * x1]


def jacobian_forward(F, point):
    \"\"\"Forward mode: one pass per input. Seeding input j with tangent 1 (the others 0)
    makes the outputs' tangents column j of the Jacobian.\"\"\"
    columns = []
    for j in range(len(point)):
        inputs = [Dual(value, 1.0 if k == j else 0.0) for k, value in enumerate(point)]
        columns.append([out.tangent for out in F(*inputs)])
    return np.array(columns).T  # the columns, side by side


def jacobian_reverse(F, x):
    \"\"\"Reverse mode: record F once, then one backward pass per output.
    The pass from output i brings d out_i / d x for every input at once: row i.\"\"\"
    outputs = F(*x)  # x's elements, each a one-element tensor in the graph
    return np.array([agv.grad(out, x, retain_graph=True)[0].numpy() for out in outputs])


point = [0.5, 1.0, 2.0]
x = agv.tensor(point, dtype=agv.float64, requires_grad=True)
J_forward = jacobian_forward(F, point)
J_reverse = jacobian_reverse(F, x)
J_library = agv.autograd.functional.jacobian(lambda x: agv.stack(F(*x)), x)
x0, x1, x2 = point
J_formula = np.array(
    [
        [x1, x0, math.exp(x2)],
        [x1 * math.cos(x0 + x2), math.sin(x0 + x2), x1 * math.cos(x0 + x2)],
    ]
)
print("column by column (forward mode):\\n", J_forward)
print("row by row (reverse mode):\\n", J_reverse)
print("agv.autograd.functional.jacobian:\\n", J_library)
agree = all(np.allclose(J, J_formula) for J in (J_forward, J_reverse, J_library))
print("all equal the formula:", agree)
"""
    ),
    md(
        """
`agv.autograd.functional` has both products too: `vjp(f, x, v)` gives $v^\\top J$ (one backward pass) and
`jvp(f, x, v)` gives $J v$. Autogradviz's engine only runs backwards, so its `jvp` does not use forward mode: it
uses the *double-backward trick* ($u \\mapsto u^\\top J$ is linear in $u$, so the gradient of $u^\\top J\\,v$ with
respect to $u$ is $J v$), two backward passes per column. And `jacobian` builds its rows one backward pass each.
Read both in [autogradviz/autograd/functional.py](../../autogradviz/autograd/functional.py), functions `jvp` and
`jacobian`. The values are the same as ours:
""",
        """
`agv.autograd.functional` 里也有这两种乘积：`vjp(f, x, v)` 给出 $v^\\top J$（一次反向传播），`jvp(f, x, v)` 给出
$J v$。autogradviz 的引擎只会反向运行，所以它的 `jvp` 并不使用前向模式，而是用“两次反向”的技巧
（$u \\mapsto u^\\top J$ 对 $u$ 是线性的，所以 $u^\\top J\\,v$ 对 $u$ 的梯度就是 $J v$），每一列要两次反向传播。
`jacobian` 则每一行用一次反向传播来构造。两者都可以在 [autogradviz/autograd/functional.py](../../autogradviz/autograd/functional.py)
中的函数 `jvp` 和 `jacobian` 里读到。它们的结果和我们的相同：
""",
    ),
    code(
        """
e0_in = agv.tensor([1.0, 0.0, 0.0], dtype=agv.float64)
e0_out = agv.tensor([1.0, 0.0], dtype=agv.float64)
_, column0 = agv.autograd.functional.jvp(lambda x: agv.stack(F(*x)), x, e0_in)
_, row0 = agv.autograd.functional.vjp(lambda x: agv.stack(F(*x)), x, e0_out)
print("jvp with e0:", column0)
print("column 0 of J_forward:", J_forward[:, 0])
print("vjp with e0:", row0)
print("row 0 of J_reverse:", J_reverse[0])
"""
    ),
    md(
        """
## Counting passes: why training uses reverse mode

For the whole Jacobian of $F:\\mathbb{R}^n\\to\\mathbb{R}^m$, forward mode needs **$n$ passes** (one per input) and
reverse mode **$m$ backward passes** (one per output, after one recorded forward pass). Each pass costs a small
multiple of evaluating $F$ once, so the cheaper mode is the one with fewer passes.

Training is the extreme case: one loss ($m = 1$) and many parameters ($n$ large). Reverse mode gets the whole
gradient in one backward pass; forward mode would need one pass per parameter. Rather than timing it (timings
change on every run), count. `count_passes` counts the calls of `F` that forward mode makes, and the backward
passes that reach `x` in reverse mode, with a hook on `x` (lesson 8):
""",
        """
## 数一数遍数：为什么训练用反向模式

要得到 $F:\\mathbb{R}^n\\to\\mathbb{R}^m$ 的完整雅可比矩阵，前向模式需要 **$n$ 遍**（每个输入一遍），反向模式需要
**$m$ 遍反向传播**（每个输出一遍，之前先做一次记录下来的前向计算）。每一遍的代价都只是计算一次 $F$ 的几倍，
所以遍数少的那种模式更省。

训练是最极端的情形：一个损失（$m = 1$），许多参数（$n$ 很大）。反向模式一次反向传播就得到整个梯度；
前向模式则每个参数都要算一遍。我们不计时（每次运行的时间都不同），而是计数。`count_passes` 数的是：前向模式调用了
多少次 `F`，以及反向模式中有多少遍反向传播到达了 `x`（用第 8 课讲过的、挂在 `x` 上的钩子来数）：
""",
    ),
    code(
        """
def count_passes(F, point):
    \"\"\"(forward-mode passes, reverse-mode backward passes) for F's whole Jacobian.\"\"\"
    calls = []

    def counted_F(*inputs):
        calls.append(inputs)
        return F(*inputs)

    jacobian_forward(counted_F, point)
    x = agv.tensor(point, dtype=agv.float64, requires_grad=True)
    backward_passes = []
    x.register_hook(backward_passes.append)  # called by each backward pass reaching x
    jacobian_reverse(F, x)
    return len(calls), len(backward_passes)


def loss_of_8_weights(*w):  # n = 8 inputs, m = 1 output: like a training loss
    return [sum((k + 1) * wk * wk for k, wk in enumerate(w))]


def curve_in_8_dims(t):  # n = 1 input, m = 8 outputs
    return [(t * (k + 1)).sin() for k in range(8)]


print("function           n  m  forward passes  backward passes")
for F_, point_ in [(F, point), (loss_of_8_weights, [0.1] * 8), (curve_in_8_dims, [0.3])]:
    forward_passes, backward_passes = count_passes(F_, point_)
    m = len(F_(*[Dual(value) for value in point_]))  # how many outputs
    name, n = F_.__name__, len(point_)
    print(f"{name:18} {n}  {m}  {forward_passes:14}  {backward_passes:15}")
"""
    ),
    md(
        """
A real network makes the point stronger. The small classifier below has a few hundred parameters; its gradient
is one backward pass, where forward mode would take one pass per parameter. (A model with a billion parameters:
one backward pass against a billion forward passes.)
""",
        """
真实的网络让这一点更加明显。下面这个小分类器有几百个参数：它的梯度只要一次反向传播，而前向模式需要每个参数一遍。
（对一个有十亿参数的模型：一次反向传播，对比十亿遍前向计算。）
""",
    ),
    code(
        """
model = agv.nn.Sequential(
    agv.nn.Linear(2, 16),
    agv.nn.ReLU(),
    agv.nn.Linear(16, 16),
    agv.nn.ReLU(),
    agv.nn.Linear(16, 2),
)
n_parameters = sum(p.numel() for p in model.parameters())
print(f"parameters: {n_parameters}, outputs of the loss: 1")
print(f"forward mode: {n_parameters} passes; reverse mode: 1 backward pass")
"""
    ),
    md(
        """
Forward mode wins in the other shape, few inputs and many outputs (the curve above): the sensitivity of a whole
simulation to one parameter, say. And reverse mode has a price forward mode does not: it must keep the recorded
graph and its saved tensors until the backward pass has used them (the memory that `retain_graph` is about).

## A Hessian-vector product through `create_graph`

For a scalar $f:\\mathbb{R}^n\\to\\mathbb{R}$, the Hessian $H_{ij} = \\partial^2 f/\\partial x_i\\partial x_j$ has $n^2$
entries: far too many for a big model. But many methods (Newton-type optimizers, curvature estimates) need only
$H v$ for a vector $v$. Since $v$ does not depend on $x$,

$$H v = \\nabla_x\\big(\\nabla_x f(x)\\cdot v\\big):$$

the gradient of one scalar, the gradient dotted with $v$. (Strictly, this gives $H^\\top v$, which is the same
because $H$ is symmetric.) That is two backward passes, the first with `create_graph=True` so that $\\nabla_x f$ is itself recorded
(lesson 8). Take $f(x) = x_0^2 x_1 + \\sin(x_1)\\,x_2$, whose Hessian is

$$H = \\begin{pmatrix} 2x_1 & 2x_0 & 0 \\\\ 2x_0 & -\\sin(x_1)\\,x_2 & \\cos x_1 \\\\ 0 & \\cos x_1 & 0 \\end{pmatrix}.$$
""",
        """
在另一种形状下，前向模式胜出：输入少、输出多（比如上面那条曲线），例如考察整个仿真对某一个参数的敏感度。
而且反向模式还有一个前向模式没有的代价：它必须保留记录下来的计算图和保存的张量，直到反向传播用完它们
（`retain_graph` 所关心的正是这部分内存）。

## 借助 `create_graph` 计算海森矩阵与向量的乘积

对标量函数 $f:\\mathbb{R}^n\\to\\mathbb{R}$，海森矩阵 $H_{ij} = \\partial^2 f/\\partial x_i\\partial x_j$ 有 $n^2$ 个元素：
对大模型来说实在太多了。但很多方法（牛顿类优化器、曲率估计）只需要某个向量 $v$ 与它的乘积 $H v$。因为 $v$ 不依赖于 $x$，

$$H v = \\nabla_x\\big(\\nabla_x f(x)\\cdot v\\big)：$$

即一个标量（梯度与 $v$ 的点积）的梯度。（严格地说，这样得到的是 $H^\\top v$，但 $H$ 是对称的，所以两者相同。）
这只需要两次反向传播，
第一次要带上 `create_graph=True`，让 $\\nabla_x f$ 本身也被记录下来（第 8 课）。取 $f(x) = x_0^2 x_1 + \\sin(x_1)\\,x_2$，
它的海森矩阵是

$$H = \\begin{pmatrix} 2x_1 & 2x_0 & 0 \\\\ 2x_0 & -\\sin(x_1)\\,x_2 & \\cos x_1 \\\\ 0 & \\cos x_1 & 0 \\end{pmatrix}。$$
""",
    ),
    code(
        """
def f(x):
    return x[0] ** 2 * x[1] + x[1].sin() * x[2]


x = agv.tensor([1.0, 2.0, 3.0], dtype=agv.float64, requires_grad=True)
v = agv.tensor([1.0, -1.0, 0.5], dtype=agv.float64)

(g,) = agv.grad(f(x), x, create_graph=True)  # the gradient, recorded: differentiable
(hv,) = agv.grad((g * v).sum(), x)  # the gradient of (gradient · v) is H v

_, hv_library = agv.autograd.functional.hvp(f, x, v)
H = agv.autograd.functional.hessian(f, x)
x0, x1, x2 = x.tolist()
H_formula = np.array(
    [
        [2 * x1, 2 * x0, 0.0],
        [2 * x0, -math.sin(x1) * x2, math.cos(x1)],
        [0.0, math.cos(x1), 0.0],
    ]
)
print("by hand, two agv.grad calls:", hv)
print("agv.autograd.functional.hvp:", hv_library)
print("full Hessian times v:       ", H @ v)
print("formula's Hessian times v:  ", H_formula @ v.numpy())
"""
    ),
    md(
        """
The two `agv.grad` calls never built the 3×3 matrix: for $n$ parameters, the Hessian costs $n$ such products
(one per column), while $H v$ costs two backward passes whatever $n$ is.

## Exercises
""",
        """
两次 `agv.grad` 调用从头到尾都没有构造这个 3×3 矩阵：对 $n$ 个参数，整个海森矩阵需要 $n$ 次这样的乘积（每列一次），
而 $H v$ 无论 $n$ 多大都只要两次反向传播。

## 练习
""",
    ),
    md(
        """
**Exercise 1.** Teach `Dual` to divide. Derive the tangent of a quotient from the rule $\\varepsilon^2 = 0$
(hint: $\\frac{1}{c + \\dot c\\,\\varepsilon} = \\frac{1}{c} - \\frac{\\dot c}{c^2}\\,\\varepsilon$, check it by multiplying
back). Write `dual_div(p, q)` that returns the `Dual` of `p / q` (let `q` also be a plain number), and attach it
with `Dual.__truediv__ = dual_div`, so that `p / q` works. The check compares the tangent of
`x.sin() / (x * x + 1)` with autogradviz's gradient.
""",
        """
**练习 1.** 让 `Dual` 学会除法。从规则 $\\varepsilon^2 = 0$ 推导商的切向量（提示：
$\\frac{1}{c + \\dot c\\,\\varepsilon} = \\frac{1}{c} - \\frac{\\dot c}{c^2}\\,\\varepsilon$，乘回去验证一下）。写出 `dual_div(p, q)`，
返回 `p / q` 对应的 `Dual`（`q` 也可以是普通的数），再用 `Dual.__truediv__ = dual_div` 把它挂到类上，这样 `p / q` 就能用了。
检查单元格会把 `x.sin() / (x * x + 1)` 的切向量与 autogradviz 给出的梯度对照。
""",
    ),
    *exercise(
        "12.1",
        answers=("dual_div",),
        solution="""
def dual_div(p, q):
    q = q if isinstance(q, Dual) else Dual(q)
    # (p + p'ε)(1/q - q'/q² ε) = p/q + (p'q - pq')/q² ε: the quotient rule
    tangent = (p.tangent * q.value - p.value * q.tangent) / q.value**2
    return Dual(p.value / q.value, tangent)


Dual.__truediv__ = dual_div  # from now on, p / q calls dual_div(p, q)
print(dual_div(Dual(1.0, 1.0), Dual(2.0, 0.0)))
""",
        check="""
z = agv.tensor(1.3, dtype=agv.float64, requires_grad=True)
(expected,) = agv.grad(z.sin() / (z * z + 1), z)
assert getattr(Dual, "__truediv__", None) is dual_div, "attach it: Dual.__truediv__ = dual_div"
result = Dual(1.3, 1.0).sin() / (Dual(1.3, 1.0) * Dual(1.3, 1.0) + 1)
assert abs(result.value - math.sin(1.3) / (1.3**2 + 1)) < 1e-12, (
    f"the value part of p / q is p.value / q.value; got {result.value}"
)
assert abs(result.tangent - expected.item()) < 1e-9, (
    f"tangent {result.tangent:.6f}, autograd says {expected.item():.6f}: "
    "the quotient rule is (p'q - pq')/q²"
)
try:
    constant = dual_div(Dual(3.0, 1.0), 2.0)
except AttributeError as error:
    hint = f"dual_div(Dual(3, 1), 2) failed ({error}): make a plain number q a Dual(q) first"
    raise AssertionError(hint) from None
assert abs(constant.value - 1.5) < 1e-12 and abs(constant.tangent - 0.5) < 1e-12, (
    f"dual_div(Dual(3, 1), 2) should be Dual(1.5, 0.5) (a number has tangent 0): {constant}"
)
print("Correct:", result)
""",
    ),
    md(
        """
**Exercise 2.** Predict, then measure. For each function below, how many passes does forward mode need for the
whole Jacobian, and how many backward passes does reverse mode need? Set `predictions` to a dict
`{"A": (forward, backward), "B": (...), "C": (...)}` without running `count_passes`; the check runs it.
""",
        """
**练习 2.** 先预测，再测量。对下面每个函数，求完整的雅可比矩阵时，前向模式需要几遍？反向模式需要几遍反向传播？
不要运行 `count_passes`，把 `predictions` 设为字典 `{"A": (前向遍数, 反向遍数), "B": (...), "C": (...)}`；
检查单元格会运行它来核对。
""",
    ),
    code(
        """
def shape_a(*w):
    return [sum(wk * wk for wk in w) * w[0]]


def shape_b(p, q, r):
    return [u * v for u in (p, q, r) for v in (p, q, r)]


def shape_c(s, t):
    return [s.sin() + t, s * t, (s * t).exp(), t.sin() * s, s + 1]


points = {"A": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6], "B": [0.1, 0.2, 0.3], "C": [0.1, 0.2]}
functions = {"A": shape_a, "B": shape_b, "C": shape_c}
"""
    ),
    *exercise(
        "12.2",
        answers=("predictions",),
        solution="""
# forward mode: one pass per input; reverse mode: one backward pass per output
predictions = {"A": (6, 1), "B": (3, 9), "C": (2, 5)}
""",
        check="""
assert isinstance(predictions, dict) and sorted(predictions) == ["A", "B", "C"], (
    'predictions should be a dict with the keys "A", "B" and "C"'
)
for name in "ABC":
    measured = count_passes(functions[name], points[name])
    forward, backward = predictions[name]
    assert forward == measured[0], (
        f"{name}: forward mode made {measured[0]} passes, not {forward}: one per input"
    )
    assert backward == measured[1], (
        f"{name}: reverse mode made {measured[1]} backward passes, not {backward}: one per output"
    )
print("Correct: forward mode pays per input, reverse mode per output.")
""",
    ),
    md(
        """
**Exercise 3.** A Hessian-vector product by hand. For
$f(x) = e^{x_0 x_1} + x_2^3\\,x_0$ at $x = (0.2, 0.4, -1)$ and $v = (0.5, -1, 2)$, compute $H v$ with two calls of
`agv.grad` (no `hvp`, no `hessian`): store the gradient from the first call as `g` and the product as `hv`.
The cell below defines `energy`, `x` and `v`.
""",
        """
**练习 3.** 手算海森矩阵与向量的乘积。对 $f(x) = e^{x_0 x_1} + x_2^3\\,x_0$，取 $x = (0.2, 0.4, -1)$、
$v = (0.5, -1, 2)$，调用两次 `agv.grad` 求出 $H v$（不要用 `hvp`，也不要用 `hessian`）：把第一次得到的梯度存为 `g`，
把乘积存为 `hv`。下面的单元格定义了 `energy`、`x` 和 `v`。
""",
    ),
    code(
        """
def energy(x):
    return (x[0] * x[1]).exp() + x[2] ** 3 * x[0]


x = agv.tensor([0.2, 0.4, -1.0], dtype=agv.float64, requires_grad=True)
v = agv.tensor([0.5, -1.0, 2.0], dtype=agv.float64)
"""
    ),
    *exercise(
        "12.3",
        answers=("g", "hv"),
        solution="""
(g,) = agv.grad(energy(x), x, create_graph=True)
(hv,) = agv.grad((g * v).sum(), x)
print(hv)
""",
        check="""
def energy_check(x):
    return (x[0] * x[1]).exp() + x[2] ** 3 * x[0]


at = agv.tensor([0.2, 0.4, -1.0], dtype=agv.float64)
direction = agv.tensor([0.5, -1.0, 2.0], dtype=agv.float64)
expected = (agv.autograd.functional.hessian(energy_check, at) @ direction).numpy()
gradient = agv.autograd.functional.jacobian(energy_check, at).numpy()
assert g.grad_fn is not None, "g has no graph: the first agv.grad needs create_graph=True"
assert np.allclose(g.detach().numpy(), gradient), f"g should be the gradient at x: {gradient}"
answer = np.asarray(hv.detach().numpy() if hasattr(hv, "detach") else hv, dtype=float)
assert answer.shape == (3,), f"hv should have 3 elements, like x; its shape is {answer.shape}"
assert not np.allclose(answer, gradient * direction.numpy()), (
    "that is g * v, element by element: H v is the gradient of the scalar (g * v).sum()"
)
assert np.allclose(answer, expected), (
    f"hv = {answer}, expected H v = {expected}: differentiate (g * v).sum() by x"
)
print("Correct: H v =", expected)
""",
    ),
]

if __name__ == "__main__":
    build(12, "forward_and_reverse_mode", cells)
