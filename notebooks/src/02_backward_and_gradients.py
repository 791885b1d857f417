"""Lesson 2: backward and gradients (issues 6 and 15).

cd notebooks/src && ../../.venv/bin/python 02_backward_and_gradients.py
"""

from lesson import build, code, exercise, md, setup

cells = [
    md(
        """
# Lesson 2 · backward and gradients

Lesson 1 built the computation graph. This lesson runs it backwards. You will see

- `backward()` on a scalar, and the **chain rule** it applies, written out as upstream × local;
- three gate patterns that let you read gradients at a glance: add distributes, mul swaps, max routes;
- why an output with several elements needs more: the `gradient=` argument, and the **Jacobian** behind it;
- `retain_graph`, and the error you get when a graph has already been freed;
- how gradients **accumulate** over several backward calls, how that differs from the sum over paths inside
  one backward pass, and how `zero_()` clears them;
- the `BackwardStepper`, which replays `backward()` one node at a time.

Terms in bold are explained in the [glossary](../glossary.md).
""",
        """
# 第 2 课 · backward 与梯度

第 1 课搭好了计算图，这一课让它反向跑起来。你将看到：

- 对标量调用 `backward()`，以及它所用的**链式法则**，写成“上游 × 局部导数”的形式；
- 一眼看出梯度的三种门模式：加法分发、乘法交换、最大值路由；
- 为什么含有多个元素的输出光这样做还不够：`gradient=` 参数，以及它背后的**雅可比矩阵**；
- `retain_graph`，以及计算图已被释放后再反向传播会报什么错；
- 梯度如何在多次 backward 调用之间**累加**，这与一次反向传播内部对多条路径求和有何不同，以及如何用 `zero_()` 清零；
- 逐步演示器 `BackwardStepper`：一个节点一个节点地重放 `backward()`。

加粗的术语在[术语表](../glossary.md)中都有解释。
""",
    ),
    setup(
        """
import textwrap

import autogradviz as agv
from autogradviz.exercises import answered  # used by the exercises' check cells

agv.manual_seed(0)
"""
    ),
    md(
        """
## Backward from a scalar

Start with the simplest case: one number comes out. For $f(a) = a^2 + 2a$ the derivative is $2a + 2$, so
at $a = 3$ it is 8. `f.backward()` computes exactly that and stores it in `a.grad`:
""",
        """
## 从标量出发的反向传播

先看最简单的情形：输出只有一个数。对 $f(a) = a^2 + 2a$，导数是 $2a + 2$，所以在 $a = 3$ 处等于 8。
`f.backward()` 算的正是这个值，并把它存进 `a.grad`：
""",
    ),
    code(
        """
a = agv.tensor(3.0, requires_grad=True)
f = a**2 + 2 * a
f.backward()
print(f)
print(a.grad)
"""
    ),
    md(
        r"""
## The chain rule, written out

Backward never differentiates a whole formula. It applies the **chain rule**, one operation at a time. If $x$
reaches the loss $L$ through the intermediate values $y_1, \dots, y_K$, then

$$\frac{\partial L}{\partial x} = \sum_{k=1}^{K} \frac{\partial L}{\partial y_k} \cdot \frac{\partial y_k}{\partial x}.$$

Each term is **upstream × local**. The upstream gradient $\partial L/\partial y_k$ arrives from above: backward has
already computed it when it reaches the operation that made $y_k$. The local derivative $\partial y_k/\partial x$ is
the one thing that operation has to know about itself. The sum runs over every path from $x$ to $L$.

Take $x = 2$, $y_1 = x^2$, $y_2 = 3x$ and $L = y_1 y_2$ (so $L = 3x^3$ and $dL/dx = 9x^2 = 36$). Upstream:
$\partial L/\partial y_1 = y_2 = 6$ and $\partial L/\partial y_2 = y_1 = 4$. Local: $\partial y_1/\partial x = 2x = 4$
and $\partial y_2/\partial x = 3$. The sum is $6 \cdot 4 + 4 \cdot 3 = 36$. autogradviz agrees, term by term:
""",
        r"""
## 写出链式法则

backward 从不对整个公式求导，它一次只对一个运算应用**链式法则**。如果 $x$ 经过中间值 $y_1, \dots, y_K$ 到达损失 $L$，那么

$$\frac{\partial L}{\partial x} = \sum_{k=1}^{K} \frac{\partial L}{\partial y_k} \cdot \frac{\partial y_k}{\partial x}。$$

每一项都是**上游 × 局部导数**。上游梯度 $\partial L/\partial y_k$ 从上面传来：当 backward 走到产生 $y_k$ 的运算时，
它已经算好了。局部导数 $\partial y_k/\partial x$ 是这个运算唯一需要了解的、关于它自己的事。求和遍历从 $x$ 到 $L$ 的每一条路径。

取 $x = 2$，$y_1 = x^2$，$y_2 = 3x$，$L = y_1 y_2$（于是 $L = 3x^3$，$dL/dx = 9x^2 = 36$）。上游：
$\partial L/\partial y_1 = y_2 = 6$，$\partial L/\partial y_2 = y_1 = 4$。局部：$\partial y_1/\partial x = 2x = 4$，
$\partial y_2/\partial x = 3$。求和得 $6 \cdot 4 + 4 \cdot 3 = 36$。autogradviz 逐项给出同样的结果：
""",
    ),
    code(
        """
x = agv.tensor(2.0, requires_grad=True)
y1 = x**2
y2 = 3 * x
L = y1 * y2
(local1,) = agv.grad(y1, x, retain_graph=True)  # dy1/dx
(local2,) = agv.grad(y2, x, retain_graph=True)  # dy2/dx
# keep the upstream gradients dL/dy1 and dL/dy2 (lesson 3); only now, because, as in
# PyTorch, a retained .grad would also collect what agv.grad sends through y1 and y2
y1.retain_grad()
y2.retain_grad()
L.backward()
print("upstream:", y1.grad.item(), y2.grad.item(), "  local:", local1.item(), local2.item())
by_chain_rule = y1.grad * local1 + y2.grad * local2
print("sum of upstream × local:", by_chain_rule.item(), "  x.grad:", x.grad.item(), "  9x²:", 9 * 2.0**2)
"""
    ),
    md(
        """
Note that one `L.backward()` did the sum: `x` is used twice, and the gradients of both paths were added
together before anything was written to `x.grad`. We come back to this below.

## Three gate patterns

The local derivatives of the most common operations are so simple that you can read a gradient off the graph
(CS231n calls the operations gates). With an upstream gradient $g$ arriving at the output:

- **add distributes**: $\\partial(a + b)/\\partial a = \\partial(a + b)/\\partial b = 1$, so both inputs get $g$ unchanged;
- **mul swaps**: $\\partial(ab)/\\partial a = b$ and $\\partial(ab)/\\partial b = a$, so each input gets $g$ times the
  *other* input;
- **max routes**: $\\partial \\max(a, b)/\\partial a$ is 1 if $a > b$ and 0 if $a < b$, so the whole of $g$ goes to the
  larger input and the other gets nothing (a tie splits it in half).

Each pattern, checked with $a = 3$, $b = -4$ and $g = 2$:
""",
        """
注意，一次 `L.backward()` 就完成了求和：`x` 被用了两次，两条路径的梯度先加在一起，然后才写入 `x.grad`。
下面还会回到这一点。

## 三种门模式

最常见的几种运算，局部导数简单到可以直接从计算图上读出梯度（CS231n 把这些运算称为“门”）。设输出处到达的上游梯度为 $g$：

- **加法分发**：$\\partial(a + b)/\\partial a = \\partial(a + b)/\\partial b = 1$，所以两个输入都原样得到 $g$；
- **乘法交换**：$\\partial(ab)/\\partial a = b$，$\\partial(ab)/\\partial b = a$，所以每个输入得到的是 $g$ 乘以*另一个*输入；
- **最大值路由**：$a > b$ 时 $\\partial \\max(a, b)/\\partial a$ 为 1，$a < b$ 时为 0，所以 $g$ 全部流向较大的输入，
  另一个什么也得不到（相等时各得一半）。

用 $a = 3$、$b = -4$、$g = 2$ 逐一验证：
""",
    ),
    code(
        """
upstream = agv.tensor(2.0)
gates = {"add": lambda a, b: a + b, "mul": lambda a, b: a * b, "max": agv.maximum}
by_pattern = {"add": (2.0, 2.0), "mul": (2.0 * -4.0, 2.0 * 3.0), "max": (2.0, 0.0)}
for name, gate in gates.items():
    a = agv.tensor(3.0, requires_grad=True)
    b = agv.tensor(-4.0, requires_grad=True)
    gate(a, b).backward(upstream)
    grads = (a.grad.item(), b.grad.item())
    print(f"{name}: a.grad = {grads[0]:4.1f}, b.grad = {grads[1]:4.1f}, as the pattern says: {grads == by_pattern[name]}")
"""
    ),
    md(
        """
Source tour: each gate's local rule is the `vjp` method of its backward node, two lines or fewer:
`AddBackward0.vjp` and `MulBackward0.vjp` in [autogradviz/ops/arithmetic.py](../../autogradviz/ops/arithmetic.py),
`MaximumBackward0.vjp` in [autogradviz/ops/pointwise.py](../../autogradviz/ops/pointwise.py).
""",
        """
源码导览：每种门的局部规则就是它的反向节点的 `vjp` 方法，最多两行：
[autogradviz/ops/arithmetic.py](../../autogradviz/ops/arithmetic.py) 中的 `AddBackward0.vjp` 和 `MulBackward0.vjp`，
以及 [autogradviz/ops/pointwise.py](../../autogradviz/ops/pointwise.py) 中的 `MaximumBackward0.vjp`。
""",
    ),
    md(
        """
## Back to `y = w*x + b`

Now the graph from lesson 1, with the same seed and so the same numbers. Note that `w.grad` is `None`,
not zeros: a leaf has no gradient at all until a backward pass reaches it.
""",
        """
## 回到 `y = w*x + b`

现在回到第 1 课的计算图。随机种子相同，所以数值也和那时一样。注意 `w.grad` 是 `None` 而不是零：
在反向传播到达之前，叶子根本没有梯度。
""",
    ),
    code(
        """
x = agv.ones(2, 2)
w = agv.rand(2, 2, requires_grad=True)
b = agv.rand(2, 2, requires_grad=True)
y = w * x + b
print(y)
print(w.grad)
"""
    ),
    md(
        """
## A non-scalar output needs `gradient=`

`y` holds four numbers. "The derivative of `y` with respect to `w`" would be a 4×4 table of partial
derivatives (a Jacobian), and backward never builds such a table. What backward computes is the gradient
of **one scalar** with respect to each leaf. A 2×2 output is not one scalar, so autogradviz, like PyTorch,
refuses to guess:
""",
        """
## 非标量输出需要 `gradient=`

`y` 里有四个数。“`y` 对 `w` 的导数”将是一张 4×4 的偏导数表（雅可比矩阵），而 backward 从不构造这样的表。
backward 计算的是**某一个标量**对每个叶子的梯度。2×2 的输出不是一个标量，所以 autogradviz 和 PyTorch 一样，
拒绝替你猜：
""",
    ),
    code(
        """
y.backward()
""",
        "raises-exception",
    ),
    md(
        """
The fix is to say *which* scalar you mean. `y.backward(gradient=v)` computes the gradients of
`(v * y).sum()`: every element of `y`, weighted by the matching element of `v`. So `v` must have the shape
of `y`, and with weights of ones it is simply `y.sum()`.

We also pass `retain_graph=True`; two sections below show why.
""",
        """
解决办法是明确指出你要的是*哪个*标量。`y.backward(gradient=v)` 计算的是 `(v * y).sum()` 的梯度：
`y` 的每个元素都乘上 `v` 中对应位置的权重。因此 `v` 必须与 `y` 形状相同；权重全为 1 时，它就等于 `y.sum()`。

这里还传入了 `retain_graph=True`，原因在下面第二节揭晓。
""",
    ),
    code(
        """
weights = agv.ones(2, 2)
y.backward(weights, retain_graph=True)
print(w.grad)
print(b.grad)
"""
    ),
    md(
        """
Why ones? Each $y_{ij} = w_{ij} x_{ij} + b_{ij}$, so $\\partial\\,\\mathrm{sum}(y) / \\partial w_{ij} = x_{ij} = 1$ and
$\\partial\\,\\mathrm{sum}(y) / \\partial b_{ij} = 1$.

Other weights give other gradients. To check the claim above without touching `.grad`, use `agv.grad`
(PyTorch's `torch.autograd.grad`): it *returns* the gradients instead of adding them to `.grad`. Weighting
`y` through `grad_outputs=` gives the same result as weighting it by hand and summing:
""",
        """
为什么全是 1？因为 $y_{ij} = w_{ij} x_{ij} + b_{ij}$，所以 $\\partial\\,\\mathrm{sum}(y) / \\partial w_{ij} = x_{ij} = 1$，
$\\partial\\,\\mathrm{sum}(y) / \\partial b_{ij} = 1$。

换一组权重，就会得到另一组梯度。为了在不改动 `.grad` 的前提下验证上面的说法，我们用 `agv.grad`（对应 PyTorch 的
`torch.autograd.grad`）：它把梯度*返回*给你，而不是累加进 `.grad`。通过 `grad_outputs=` 给 `y` 加权，
与手动加权再求和，结果完全相同：
""",
    ),
    code(
        """
v = agv.tensor([[1.0, 0.0], [0.0, 2.0]])
(by_gradient,) = agv.grad(y, w, grad_outputs=v, retain_graph=True)
(by_hand,) = agv.grad((v * y).sum(), w, retain_graph=True)
print(by_gradient)
print(by_hand)
print(w.grad)  # unchanged
"""
    ),
    md(
        r"""
## What `gradient=` computes: $v^\top J$

For a function $f$ from $n$ numbers $u_j$ to $m$ numbers $f_i$, the **Jacobian** is the $m \times n$ table
$J_{ij} = \partial f_i / \partial u_j$. Backward with weights $v$ differentiates the scalar $\sum_i v_i f_i$,
and by the chain rule

$$\frac{\partial}{\partial u_j} \sum_i v_i f_i = \sum_i v_i J_{ij} = (v^\top J)_j.$$

So `backward(v)` computes a vector-Jacobian product, $v^\top J$, without ever building $J$. To see $J$ itself, build
it one row at a time: row $i$ is the gradient of the single number $f_i$, one backward each.
`agv.autograd.functional.jacobian` does exactly that. Take $f(u) = (u_0 u_1,\; u_0 + u_1^2)$ at $u = (2, 3)$:

$$J = \begin{pmatrix} u_1 & u_0 \\ 1 & 2u_1 \end{pmatrix} = \begin{pmatrix} 3 & 2 \\ 1 & 6 \end{pmatrix}.$$
""",
        r"""
## `gradient=` 算的是什么：$v^\top J$

对一个把 $n$ 个数 $u_j$ 映射为 $m$ 个数 $f_i$ 的函数 $f$，**雅可比矩阵**是一张 $m \times n$ 的表
$J_{ij} = \partial f_i / \partial u_j$。带权重 $v$ 的 backward 求的是标量 $\sum_i v_i f_i$ 的导数，由链式法则

$$\frac{\partial}{\partial u_j} \sum_i v_i f_i = \sum_i v_i J_{ij} = (v^\top J)_j。$$

所以 `backward(v)` 计算的是向量-雅可比积 $v^\top J$，却从不构造 $J$ 本身。想看 $J$，就一行一行地构造它：
第 $i$ 行是单个数 $f_i$ 的梯度，每行一次 backward。`agv.autograd.functional.jacobian` 做的正是这件事。
取 $f(u) = (u_0 u_1,\; u_0 + u_1^2)$，$u = (2, 3)$：

$$J = \begin{pmatrix} u_1 & u_0 \\ 1 & 2u_1 \end{pmatrix} = \begin{pmatrix} 3 & 2 \\ 1 & 6 \end{pmatrix}。$$
""",
    ),
    code(
        """
def f_of(u):
    return agv.stack([u[0] * u[1], u[0] + u[1] ** 2])


u = agv.tensor([2.0, 3.0], requires_grad=True)
f_u = f_of(u)
rows = [agv.grad(f_u[i], u, retain_graph=True)[0] for i in range(2)]  # one backward per row
J_by_rows = agv.stack(rows)
J = agv.autograd.functional.jacobian(f_of, u)
print(J_by_rows)
print("the same as jacobian():", agv.allclose(J_by_rows, J))

v_u = agv.tensor([1.0, -2.0])
f_u.backward(v_u)
print("u.grad after f_u.backward(v):", u.grad.tolist(), "  v @ J:", (v_u @ J).tolist())
"""
    ),
    md(
        """
## Gradients accumulate

Call backward again, on the same graph with the same weights. `w.grad` is not replaced: the new gradient
is **added** to it. A third call adds once more.
""",
        """
## 梯度会累加

在同一张图上、用同样的权重再调用一次 backward。`w.grad` 不会被替换，新梯度会**加**到原有的值上。
第三次调用时，又会再加一次。
""",
    ),
    code(
        """
y.backward(weights, retain_graph=True)
print(w.grad)
y.backward(weights, retain_graph=True)
print(w.grad)
"""
    ),
    md(
        """
This is deliberate: it lets you build one gradient out of several backward calls. Two common uses:

- **micro-batches**: a batch too big for memory is split into pieces, each piece's loss gets its own backward,
  and `.grad` ends up holding the gradient of the whole batch;
- **several losses**: `loss_a.backward()` followed by `loss_b.backward()` leaves the gradient of `loss_a + loss_b`.

The cell below checks the first: the mean squared error of four points, as one batch and as two micro-batches
of two. Each micro-batch divides its sum by the full batch size, 4, so that the pieces add up to the mean.
""",
        """
这是有意为之的：它让你可以用多次 backward 调用拼出一个梯度。两个常见的用法：

- **微批次**：一个批次太大、内存放不下时，把它分成几块，每块的损失各调用一次 backward，`.grad` 最后保存的就是整个批次的梯度；
- **多个损失**：先 `loss_a.backward()` 再 `loss_b.backward()`，得到的是 `loss_a + loss_b` 的梯度。

下面的单元格验证第一种：四个点的均方误差，作为一个批次算一次，再分成两个各含两个点的微批次。
每个微批次都把自己的和除以整个批次的大小 4，这样各块加起来正好是平均值。
""",
    ),
    code(
        """
inputs = agv.tensor([1.0, 2.0, 3.0, 4.0])
targets = agv.tensor([2.0, 3.0, 7.0, 9.0])
theta = agv.tensor(1.5, requires_grad=True)

((theta * inputs - targets) ** 2).mean().backward()
whole_batch = theta.grad.item()

theta.grad = None
for piece in (slice(0, 2), slice(2, 4)):
    micro_batch_loss = ((theta * inputs[piece] - targets[piece]) ** 2).sum() / 4
    micro_batch_loss.backward()  # adds this piece's share to theta.grad
print("whole batch:", whole_batch, "  two micro-batches, accumulated:", theta.grad.item())
"""
    ),
    md(
        """
Do not confuse this with the adding that happens **inside one backward pass**. When a tensor is used in
several places, as `x` was in the chain-rule example, the gradients of all its paths are summed: that is the
chain rule's $\\sum_k$, and a single backward call does it, whatever `.grad` held before. Here `c` reaches the
result along three paths (both factors of `c * c`, and `+ c`), so one backward gives $2c + 1$; a second call then
adds across calls:
""",
        """
不要把它和**一次反向传播内部**发生的相加混为一谈。当一个张量在多处被使用时（就像链式法则例子中的 `x`），
它所有路径上的梯度会被加起来：这就是链式法则里的 $\\sum_k$，只需一次 backward 调用就能完成，与 `.grad` 之前存着什么无关。
下面的 `c` 沿三条路径到达结果（`c * c` 的两个因子，以及 `+ c`），所以一次 backward 得到 $2c + 1$；
第二次调用则是在调用之间累加：
""",
    ),
    code(
        """
c = agv.tensor(2.0, requires_grad=True)
(c * c + c).backward()
print("one backward, three paths summed:", c.grad.item(), "  2c + 1 =", 2 * 2.0 + 1)
(c * c + c).backward()
print("a second backward call adds to .grad:", c.grad.item())
"""
    ),
    md(
        """
Source tour: both sums live in [autogradviz/engine.py](../../autogradviz/engine.py). The walk is the function
`walk`; its helper `_send` adds the gradients of paths that meet at a node ("another path got here
first"). Only when the walk is over does `_accumulate` add the result into `.grad`, once for each
`AccumulateGrad` node (class `AccumulateGrad` in [autogradviz/core/graph.py](../../autogradviz/core/graph.py)).

The price of accumulating across calls is that a training loop must clear the gradients before every new
backward pass; otherwise each update uses the sum of *all* the gradients so far.

`zero_()` clears a tensor in place (a trailing underscore marks an in-place method) and returns it:
""",
        """
源码导览：这两种求和都在 [autogradviz/engine.py](../../autogradviz/engine.py) 中。遍历过程是函数 `walk`；
它的辅助函数 `_send` 把在同一个节点相遇的各条路径的梯度相加（注释写着“another path got here first”）。
直到遍历结束，`_accumulate` 才把结果加进 `.grad`，每个 `AccumulateGrad` 节点一次
（见 [autogradviz/core/graph.py](../../autogradviz/core/graph.py) 中的类 `AccumulateGrad`）。

在调用之间累加的代价是：训练循环在每次新的反向传播之前都必须把梯度清零，否则每次更新用到的都是*迄今为止所有*梯度之和。

`zero_()` 原地把张量清零（方法名末尾的下划线表示原地操作），并返回这个张量：
""",
    ),
    code(
        """
w.grad.zero_()
"""
    ),
    md(
        """
Zeroing `w.grad` leaves `b.grad` alone: it still holds three backward calls. Every parameter has to be
cleared.
""",
        """
清零 `w.grad` 并不会影响 `b.grad`：它仍然保存着三次 backward 的累加结果。每个参数都需要分别清零。
""",
    ),
    code(
        """
print(w.grad)
print(b.grad)
"""
    ),
    md(
        """
In real training you rarely call `zero_()` yourself: an optimizer's `zero_grad()` clears every parameter
it manages, and its `step()` applies the update (lesson 7 trains with one). The point here is to see what
happens underneath, which is also why forgetting `zero_grad()` quietly makes training go wrong.
""",
        """
在实际训练中，你很少亲自调用 `zero_()`：优化器的 `zero_grad()` 会清零它管理的所有参数，`step()` 则负责更新参数
（第 7 课会用优化器来训练）。这里的目的是看清底层发生了什么——这也解释了为什么忘记调用 `zero_grad()`
会让训练悄无声息地出错。
""",
    ),
    md(
        """
## `retain_graph`: backward frees the graph

Every call above passed `retain_graph=True`. Without it, backward frees what the graph saved for the
backward pass (here `MulBackward0` saved `x`, which it needs for `w`'s gradient) as soon as it is done with
it. That saves memory, and it is normally what you want: one forward pass, one backward pass. But a
second backward through the same graph then has nothing to work with:
""",
        """
## `retain_graph`：backward 会释放计算图

上面的每次调用都传了 `retain_graph=True`。如果不传，backward 一用完计算图为反向传播保存的数据就会把它们释放掉
（这里 `MulBackward0` 保存了 `x`，计算 `w` 的梯度时要用到它）。这样可以节省内存，而且通常正合你意：
一次前向，一次反向。但此后再沿同一张图做第二次反向传播，就无从下手了：
""",
    ),
    code(
        """
b.grad.zero_()
y.backward(weights)  # no retain_graph: the graph is freed afterwards
print(w.grad)
try:
    y.backward(weights)
except RuntimeError as error:
    print(textwrap.fill(f"RuntimeError: {error}", 100))
"""
    ),
    md(
        """
Two ways out: pass `retain_graph=True` to every backward call except the last one on that graph, or
simply run the forward pass again, which builds a fresh graph. (The fresh backward adds to `w.grad`
again: it was not zeroed.)
""",
        """
有两种办法：对同一张图，除最后一次之外的每次 backward 调用都传入 `retain_graph=True`；或者干脆重新执行一遍前向计算，
它会构建一张新图。（新的一次反向传播又会累加到 `w.grad` 上，因为我们没有清零。）
""",
    ),
    code(
        """
y = w * x + b
y.backward(weights)
print(w.grad)
"""
    ),
    md(
        """
## Watching backward, one node at a time

`agv.BackwardStepper` replays the very walk that `backward()` takes and lets you step through it. Give it
a scalar root, here `y.sum()`, which has the same gradients as `y.backward(agv.ones(2, 2))`. This time
`x` is not all ones, so you can see that the gradient reaching `w` is `x`.

Put the stepper last in a cell to get the widget: the buttons **⇤ Reset**, **◀ Back**, **Next ▶**, **▶ Play**
(it reads **❚❚ Pause** while playing) and **Run to end ⇥**, and a slider.
Each node is marked *done*, *current*, *waiting* (some of its gradient has arrived, not all of it) or not
yet touched, and the panel explains the current node: the gradient arriving, each local derivative, and
`upstream × local` for every input. Stepping never writes `.grad`, so you can go back and forth freely.
The stepper labels the tensors with your own variable names (`x`, `w`, `b`, `y`) by itself: pass `names=`
only to choose other labels, or `names=False` to turn this off.
""",
        """
## 逐个节点地观察 backward

逐步演示器 `agv.BackwardStepper` 会重放 `backward()` 实际走过的路径，让你一步一步地查看。给它一个标量根节点，这里用
`y.sum()`，它的梯度与 `y.backward(agv.ones(2, 2))` 相同。这次 `x` 不再全是 1，你能清楚地看到到达 `w` 的梯度正是 `x`。

把逐步演示器放在单元格的最后一行，就会显示这个小部件：按钮 **⇤ 重置**、**◀ 后退**、**前进 ▶**、**▶ 播放**
（播放时变成 **❚❚ 暂停**）和 **运行到底 ⇥**，还有一个滑块。
每个节点会被标记为*已完成*、*当前*、*等待中*（部分梯度已到达，但尚未到齐）或*未触及*；
面板会解释当前节点：到达的梯度、各个局部导数，以及每个输入得到的“上游 × 局部导数”。
单步执行从不写入 `.grad`，所以你可以随意前进、后退。
逐步演示器会自动用你自己的变量名（`x`、`w`、`b`、`y`）来标注张量：只有想换别的标注时才需要传 `names=`，
传 `names=False` 则关掉这个功能。
""",
    ),
    code(
        """
x = agv.tensor([[1.0, 2.0], [3.0, 4.0]])
w = agv.rand(2, 2, requires_grad=True)
b = agv.rand(2, 2, requires_grad=True)
y = w * x + b
stepper = agv.BackwardStepper(y.sum())
stepper
"""
    ),
    md(
        """
### The same, without a browser

The stepper also works from plain Python. `stepper.steps` lists the nodes in the order the engine runs
them, each with the gradient it receives and where it sends its results (the unnamed product `w*x` is
called after the node that reverses it, `MulBackward0`):
""",
        """
### 不用浏览器也能做

逐步演示器也可以直接在 Python 里使用。`stepper.steps` 按引擎的执行顺序列出各个节点、每个节点收到的梯度，
以及它把结果发往何处（没有名字的乘积 `w*x` 用反转它的节点 `MulBackward0` 来称呼）：
""",
    ),
    code(
        """
leaf_names = {id(w): "w", id(b): "b"}
for step in stepper.steps:
    if step.leaf is not None:
        print(step.index, step.name, "for", leaf_names[id(step.leaf)], "receives", step.upstream.tolist())
    else:
        sends_to = ", ".join(sent.target_name for sent in step.sent)
        print(step.index, step.name, "receives", step.upstream.tolist(), "and sends to", sends_to)
"""
    ),
    md(
        """
`goto(k)` moves to position `k`, meaning that the first `k` steps have run, and `state()` maps each tensor
to its gradient so far. At position 2, `SumBackward0` and `AddBackward0` have run: the gradient for `b` is
on its way, but its `AccumulateGrad` has not run yet, so nothing has been written for `b` or `w`.
""",
        """
`goto(k)` 跳到位置 `k`，表示前 `k` 步已经执行完毕；`state()` 给出每个张量到目前为止的梯度。在位置 2，
`SumBackward0` 和 `AddBackward0` 已经执行：`b` 的梯度正在路上，但它的 `AccumulateGrad` 还没执行，
所以 `b` 和 `w` 都还没有写入任何东西。
""",
    ),
    code(
        """
def show_state(stepper):
    state = stepper.state()
    for name, tensor in [("y", y), ("b", b), ("w", w)]:
        grad = state[tensor]
        print(f"  {name}: {None if grad is None else grad.tolist()}")


stepper.goto(2)
print(stepper.frames[stepper.position]["title"])
show_state(stepper)
"""
    ),
    md(
        """
Two steps later, `MulBackward0` has just run. The frame's picture and panel can be shown without the
widget too: `frame_html()` gives them as one piece of HTML, the picture fitted to the output's width. In the picture, green outlines are done, the red one is current, the dashed orange one is
waiting (here `w`: its gradient has been sent but not yet written) and faded boxes are untouched (`x`, which
needs no gradient). The panel spells out `upstream × local`: the local derivative of `w*x` with respect to
`w` is `x`.
""",
        """
再往后走两步，`MulBackward0` 刚刚执行完。这一帧的图和说明面板也可以不借助小部件直接显示：`frame_html()` 把它们合成一段 HTML，图会缩放到输出区域的宽度。图中绿色边框表示已完成，
红色边框表示当前节点，橙色虚线边框表示等待中（这里是 `w`：梯度已经发出，但还没有写入），颜色变淡的方框表示尚未触及
（即不需要梯度的 `x`）。面板写出了 `upstream × local`：`w*x` 对 `w` 的局部导数正是 `x`。
""",
    ),
    code(
        """
from IPython.display import HTML, display

stepper.goto(4)
display(HTML(stepper.frame_html()))
"""
    ),
    md(
        """
At the end every gradient is known, yet `w.grad` is still `None`: stepping only looks. `apply()` runs the
real `backward()` once and writes the gradients.
""",
        """
走到最后，所有梯度都已确定，但 `w.grad` 仍然是 `None`：单步执行只是“看”。`apply()` 会真正运行一次 `backward()`，
把梯度写进去。
""",
    ),
    code(
        """
stepper.run_to_end()
show_state(stepper)
print("w.grad before apply():", w.grad)
stepper.apply()
print(w.grad)
"""
    ),
    md(
        """
## What to remember

- `backward()` differentiates one scalar. For a non-scalar output, pass `gradient=` (weights of the
  output's shape) or reduce the output first, for example with `.sum()`.
- Gradients accumulate in `.grad` across backward calls; clear them with `zero_()` (or an optimizer's
  `zero_grad()`) before each new pass.
- Backward frees the graph's saved values; pass `retain_graph=True` if you must go through the same graph
  again.
""",
        """
## 要点回顾

- `backward()` 求的是某一个标量的导数。对非标量输出，要么传入 `gradient=`（与输出同形状的权重），
  要么先把输出归约成标量，例如用 `.sum()`。
- 梯度会在多次 backward 调用之间累加到 `.grad` 中；每次新的反向传播之前，要用 `zero_()`（或优化器的 `zero_grad()`）清零。
- backward 会释放计算图保存的数据；如果必须再次沿同一张图反向传播，请传入 `retain_graph=True`。
""",
    ),
    md(
        """
## Exercises

Each exercise has a cell for your answer, followed by a cell that checks it.

**Exercise 1. Weights by hand.** For `y = w * x + b` with `x = [[1., 2.], [3., 4.]]` and the weights
`v = [[1., 0.], [0., 2.]]`, work out on paper what `y.backward(v)` writes into `w.grad` and into `b.grad`.
Store your answers as nested lists `w_grad_by_hand` and `b_grad_by_hand`. (Hint: it is the gradient of
`(v * y).sum()`.)
""",
        """
## 练习

每道练习都有一个写答案的单元格，后面跟着一个检查答案的单元格。

**练习 1：手算加权梯度。** 对 `y = w * x + b`，取 `x = [[1., 2.], [3., 4.]]`、权重 `v = [[1., 0.], [0., 2.]]`，
在纸上算出 `y.backward(v)` 会往 `w.grad` 和 `b.grad` 里写入什么。把答案分别存为嵌套列表 `w_grad_by_hand`
和 `b_grad_by_hand`。（提示：它就是 `(v * y).sum()` 的梯度。）
""",
    ),
    *exercise(
        "02.1",
        answers=("w_grad_by_hand", "b_grad_by_hand"),
        solution="""
# d/dw of sum(v * (w*x + b)) is v * x, elementwise; d/db is v
w_grad_by_hand = [[1.0, 0.0], [0.0, 8.0]]
b_grad_by_hand = [[1.0, 0.0], [0.0, 2.0]]
""",
        check="""
x1 = agv.tensor([[1.0, 2.0], [3.0, 4.0]])
w1 = agv.rand(2, 2, requires_grad=True)
b1 = agv.rand(2, 2, requires_grad=True)
(w1 * x1 + b1).backward(agv.tensor([[1.0, 0.0], [0.0, 2.0]]))
assert agv.allclose(w1.grad, agv.tensor(w_grad_by_hand)), (
    f"w.grad is {w1.grad.tolist()}, you said {w_grad_by_hand}"
)
assert agv.allclose(b1.grad, agv.tensor(b_grad_by_hand)), (
    f"b.grad is {b1.grad.tolist()}, you said {b_grad_by_hand}"
)
print("Right: w.grad =", w1.grad.tolist(), " b.grad =", b1.grad.tolist())
""",
    ),
    md(
        """
**Exercise 2. Predict the accumulation.** Without running it, predict what `c.grad` holds at the two
marked points:

```python
c = agv.tensor([1.0, 2.0], requires_grad=True)
f = (c * c).sum()
f.backward(retain_graph=True)
f.backward(retain_graph=True)
# (A) c.grad here?
c.grad.zero_()
f.backward()
# (B) c.grad here?
```

Store your predictions as lists: `at_a` for (A) and `at_b` for (B).
""",
        """
**练习 2：预测累加结果。** 不要运行下面的代码，预测 `c.grad` 在两个标记处的值：

```python
c = agv.tensor([1.0, 2.0], requires_grad=True)
f = (c * c).sum()
f.backward(retain_graph=True)
f.backward(retain_graph=True)
# (A) 此处 c.grad 是多少？
c.grad.zero_()
f.backward()
# (B) 此处 c.grad 是多少？
```

把预测结果存为列表：(A) 处存为 `at_a`，(B) 处存为 `at_b`。
""",
    ),
    *exercise(
        "02.2",
        answers=("at_a", "at_b"),
        solution="""
# each backward adds d(sum(c*c))/dc = 2c = [2, 4]
at_a = [4.0, 8.0]  # two backward calls
at_b = [2.0, 4.0]  # zeroed, then one more
""",
        check="""
c = agv.tensor([1.0, 2.0], requires_grad=True)
f = (c * c).sum()
f.backward(retain_graph=True)
f.backward(retain_graph=True)
assert agv.allclose(c.grad, agv.tensor(at_a)), f"at (A) c.grad is {c.grad.tolist()}, you predicted {at_a}"
c.grad.zero_()
f.backward()
assert agv.allclose(c.grad, agv.tensor(at_b)), f"at (B) c.grad is {c.grad.tolist()}, you predicted {at_b}"
print("Right: (A)", at_a, " (B)", at_b)
""",
    ),
    md(
        """
**Exercise 3. Beat the stepper's quiz.** The stepper can grade predictions: `stepper.check(answer)` says
whether `answer` is what the *next* step sends to its inputs. Take

```python
x3 = agv.tensor([[1.0, 2.0], [3.0, 4.0]])
w3 = agv.rand(2, 2, requires_grad=True)
b3 = agv.rand(2, 2, requires_grad=True)
out = (w3 * x3 - b3).mean()
```

Its walk runs `MeanBackward0`, `SubBackward0`, `MulBackward0` (and two `AccumulateGrad` nodes, which send
nothing). Fill in a dict `predictions` mapping each of those three names to what that node sends, as nested
lists:

- `MeanBackward0` sends one 2×2 gradient, to the subtraction;
- `SubBackward0` sends two: a list of [what goes to `w3 * x3`, what goes to `b3`];
- `MulBackward0` sends one, to `w3` (`x3` needs no gradient).

The check cell builds the stepper and asks it to grade your predictions at every step.
""",
        """
**练习 3：挑战逐步演示器的小测验。** 逐步演示器可以给预测打分：`stepper.check(answer)` 会告诉你，`answer`
是否正是*下一步*要发送给各个输入的梯度。考虑

```python
x3 = agv.tensor([[1.0, 2.0], [3.0, 4.0]])
w3 = agv.rand(2, 2, requires_grad=True)
b3 = agv.rand(2, 2, requires_grad=True)
out = (w3 * x3 - b3).mean()
```

它的反向遍历依次执行 `MeanBackward0`、`SubBackward0`、`MulBackward0`（另有两个 `AccumulateGrad` 节点，它们不向外发送梯度）。
请写出一个字典 `predictions`，把这三个节点名分别映射到该节点发出的梯度（用嵌套列表表示）：

- `MeanBackward0` 发出一个 2×2 梯度，送往减法；
- `SubBackward0` 发出两个：一个列表 [送往 `w3 * x3` 的梯度, 送往 `b3` 的梯度]；
- `MulBackward0` 发出一个，送往 `w3`（`x3` 不需要梯度）。

检查单元格会构建逐步演示器，并让它在每一步给你的预测打分。
""",
    ),
    *exercise(
        "02.3",
        answers=("predictions",),
        solution="""
quarter = [[0.25, 0.25], [0.25, 0.25]]  # mean over 4 elements: each gets 1/4
predictions = {
    "MeanBackward0": quarter,
    "SubBackward0": [quarter, [[-0.25, -0.25], [-0.25, -0.25]]],  # d(a-b)/db = -1
    "MulBackward0": [[0.25, 0.5], [0.75, 1.0]],  # upstream * x3
}
""",
        check="""
x3 = agv.tensor([[1.0, 2.0], [3.0, 4.0]])
w3 = agv.rand(2, 2, requires_grad=True)
b3 = agv.rand(2, 2, requires_grad=True)
quiz = agv.BackwardStepper((w3 * x3 - b3).mean(), names={"x3": x3, "w3": w3, "b3": b3})
for step in quiz.steps:
    if step.name != "AccumulateGrad":
        right, hint = quiz.check(predictions[step.name])
        assert right, f"{step.name}: not quite. {hint}"
    quiz.next()
print("Right at every step:", [step.name for step in quiz.steps])
""",
    ),
    md(
        """
**Exercise 4. Read it off the gates.** Without running anything, predict the three gradients after

```python
p = agv.tensor(4.0, requires_grad=True)
q = agv.tensor(-1.0, requires_grad=True)
r = agv.tensor(3.0, requires_grad=True)
out = p * q + agv.maximum(p, r)
out.backward()
```

Use only the gate patterns (add distributes, mul swaps, max routes) and the sum over paths: `p` reaches `out`
along two paths. Store your predictions as floats `p_grad`, `q_grad` and `r_grad`. One of them may surprise you.
""",
        """
**练习 4：从门上直接读出梯度。** 不运行任何代码，预测下面代码执行后的三个梯度：

```python
p = agv.tensor(4.0, requires_grad=True)
q = agv.tensor(-1.0, requires_grad=True)
r = agv.tensor(3.0, requires_grad=True)
out = p * q + agv.maximum(p, r)
out.backward()
```

只用门模式（加法分发、乘法交换、最大值路由）和对路径求和：`p` 沿两条路径到达 `out`。
把预测结果存为浮点数 `p_grad`、`q_grad` 和 `r_grad`。其中一个结果可能会让你意外。
""",
    ),
    *exercise(
        "02.4",
        answers=("p_grad", "q_grad", "r_grad"),
        solution="""
# the add gives both branches 1; mul swaps: p gets q = -1 and q gets p = 4;
# max routes the whole 1 to the larger input, p (4 > 3), and 0 to r
p_grad = -1.0 + 1.0  # two paths, summed: 0
q_grad = 4.0
r_grad = 0.0
""",
        check="""
p = agv.tensor(4.0, requires_grad=True)
q = agv.tensor(-1.0, requires_grad=True)
r = agv.tensor(3.0, requires_grad=True)
(p * q + agv.maximum(p, r)).backward()
hints = {
    "q": "mul swaps: q gets the upstream gradient times the other factor, p",
    "r": "max routes: the whole gradient goes to the larger of p and r",
    "p": "p has two paths, one through the product (times q) and one through the max: add them",
}
for name, tensor, predicted in (("q", q, q_grad), ("r", r, r_grad), ("p", p, p_grad)):
    actual = tensor.grad.item()
    assert abs(predicted - actual) < 1e-6, f"{name}.grad is {actual}, you predicted {predicted}. Hint: {hints[name]}"
print(f"Right: p.grad = {p.grad.item()}, q.grad = {q.grad.item()}, r.grad = {r.grad.item()}")
""",
    ),
]

if __name__ == "__main__":
    for path in build(2, "backward_and_gradients", cells):
        print("wrote", path)
