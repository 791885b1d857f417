"""Lesson 5: Paddle-style autograd. Builds notebooks/en/05_paddle_style_autograd.ipynb and
notebooks/zh/05_paddle_style_autograd.ipynb (run from notebooks/src):

    ../../.venv/bin/python 05_paddle_style_autograd.py
"""

from lesson import build, code, exercise, md, setup

cells = [
    md(
        """
# Lesson 5 · Paddle-style autograd

PaddlePaddle's dynamic graph works like PyTorch's: the forward pass records a graph, and
`backward()` walks it to fill in `.grad`. The names differ, and in two places so does the
behaviour. autogradviz follows PyTorch's rules but accepts Paddle's spellings, so this lesson
writes the Paddle way and points out each difference:

- `stop_gradient`, Paddle's switch for "no gradient here";
- backward on a non-scalar output: Paddle assumes a gradient of ones, PyTorch and autogradviz
  want `gradient=`;
- `retain_graph`, and why the graph is freed after backward;
- gradients accumulate; `add_n` and `clear_grad`;
- a table of names: Paddle, PyTorch, autogradviz.

If your course uses PyTorch only, this lesson is optional: lesson 6 does not depend on it. Terms
are in the [glossary](../glossary.md).
""",
        """
# 第 5 课 · Paddle 风格的自动求导

飞桨（PaddlePaddle）的动态图与 PyTorch 的工作方式相同：前向计算记录一张图，`backward()` 沿着这张图回溯并填好
`.grad`。两者的名字不同，而且有两处行为也不同。autogradviz 遵循 PyTorch 的规则，同时接受 Paddle 的写法，
所以这一课用 Paddle 的方式来写，并逐一指出差别：

- `stop_gradient`：Paddle 用来表示“这里不要梯度”的开关；
- 对非标量输出调用 backward：Paddle 默认梯度为全 1，PyTorch 和 autogradviz 则要求传入 `gradient=`；
- `retain_graph`，以及为什么反向传播之后要释放计算图；
- 梯度会累加；`add_n` 与 `clear_grad`；
- 一张名称对照表：Paddle、PyTorch、autogradviz。

如果课程只用 PyTorch，这一课可以跳过：第 6 课并不依赖它。术语见[术语表](../glossary.md)。
""",
    ),
    setup(
        """
import numpy as np

import autogradviz as agv
from autogradviz.exercises import answered  # used by the exercises' check cells

agv.manual_seed(0)
"""
    ),
    md(
        """
## stop_gradient: the same switch, the other way round

PyTorch asks "does this tensor need a gradient?" (`requires_grad`); Paddle asks "should the
gradient stop here?" (`stop_gradient`). They are the same flag, negated:
`x.stop_gradient == (not x.requires_grad)`.

A tensor you create is data, so by default it stops gradient: `stop_gradient` is True. Pass
`stop_gradient=False` to ask for its gradient. (Source tour: the property `Tensor.stop_gradient` in
[autogradviz/compat/paddle_spellings.py](../../autogradviz/compat/paddle_spellings.py) reads and writes
`requires_grad`.)
""",
        """
## stop_gradient：同一个开关，方向相反

PyTorch 问的是“这个张量需要梯度吗？”（`requires_grad`）；Paddle 问的是“梯度要在这里停下吗？”
（`stop_gradient`）。它们是同一个标志，只是取反：`x.stop_gradient == (not x.requires_grad)`。

自己创建的张量被当作数据，所以默认会截断梯度：`stop_gradient` 为 True。传入 `stop_gradient=False`
即表示需要它的梯度。（源码导览：[autogradviz/compat/paddle_spellings.py](../../autogradviz/compat/paddle_spellings.py)
中的属性 `Tensor.stop_gradient` 读写的就是 `requires_grad`。）
""",
    ),
    code(
        """
a = agv.to_tensor([1.0, 2.0, 3.0])
b = agv.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
print("a.stop_gradient:", a.stop_gradient, "  a.requires_grad:", a.requires_grad)
print("b.stop_gradient:", b.stop_gradient, "  b.requires_grad:", b.requires_grad)
"""
    ),
    md(
        """
The flag of a tensor you already have can be changed by assigning to it:
""",
        """
对已有的张量，直接给这个属性赋值就能改变它：
""",
    ),
    code(
        """
a.stop_gradient = False
print("a.stop_gradient:", a.stop_gradient, "  a.requires_grad:", a.requires_grad)
a
"""
    ),
    md(
        """
A model's parameters are the opposite case: they exist to be trained, so their `stop_gradient`
starts as False.
""",
        """
模型的参数则相反：它们本来就是要被训练的，所以 `stop_gradient` 一开始就是 False。
""",
    ),
    code(
        """
layer = agv.nn.Linear(3, 1)
print("weight.stop_gradient:", layer.weight.stop_gradient, "  bias.stop_gradient:", layer.bias.stop_gradient)
"""
    ),
    md(
        """
In autogradviz, as in PyTorch, the flag belongs to leaves: a computed tensor's flag follows from
its inputs and cannot be assigned. To cut the graph at a computed tensor, take `detach()` of it.
""",
        """
在 autogradviz 中（与 PyTorch 一样），这个标志只属于叶子张量：计算得到的张量的标志由它的输入决定，
不能直接赋值。想在某个计算结果处切断计算图，就对它调用 `detach()`。
""",
    ),
    code(
        """
s = b * 2
print("s.stop_gradient:", s.stop_gradient, " (it depends on b)")
try:
    s.stop_gradient = True
except RuntimeError as error:
    print("RuntimeError:", str(error).split(". ")[0])
print("s.detach().stop_gradient:", s.detach().stop_gradient)
"""
    ),
    md(
        """
## A polynomial, and the one real difference

Take `x = [1, 2, 3]` and `y = [4, 5, 6]`, both with `stop_gradient=False`, and
`z = x**2 + 4*y`. Then `z` has three elements, not one.
""",
        """
## 一个多项式，以及真正的差别

取 `x = [1, 2, 3]`、`y = [4, 5, 6]`，都设 `stop_gradient=False`，令 `z = x**2 + 4*y`。
这时 `z` 有三个元素，而不是一个。
""",
    ),
    code(
        """
x = agv.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
y = agv.to_tensor([4.0, 5.0, 6.0], stop_gradient=False)
z = x**2 + 4 * y
z
"""
    ),
    md(
        """
In Paddle, `z.backward()` just works: when the output is not a scalar, Paddle starts backward from
a gradient of ones, which gives the gradient of `z.sum()`.

PyTorch refuses, and so does autogradviz. The derivative of a vector with respect to a vector is a
whole matrix (the Jacobian), and backward never builds it: it computes `vᵀ · J`, the gradient of
`(v * z).sum()`, for a vector `v` of your choosing. PyTorch only fills `v` in for you when `z` is a
scalar (then `v = 1` is the only sensible choice); for anything else it raises an error rather than
guess:
""",
        """
在 Paddle 里，`z.backward()` 可以直接运行：输出不是标量时，Paddle 从一个全 1 的梯度开始反向传播，
得到的是 `z.sum()` 的梯度。

PyTorch 会拒绝，autogradviz 也一样。向量对向量的导数是一整个矩阵（雅可比矩阵），而反向传播从不把它构造出来：
它计算的是 `vᵀ · J`，也就是 `(v * z).sum()` 的梯度，其中向量 `v` 由你来选。只有当 `z` 是标量时，
PyTorch 才会替你填上 `v`（此时 `v = 1` 是唯一合理的选择）；其他情况下它宁可报错，也不去猜：
""",
    ),
    code(
        """
z.backward()
""",
        "raises-exception",
    ),
    md(
        """
The hint's `output` is the tensor backward was called on, here `z` (not our input `y = [4, 5, 6]`).
So the fix for this cell is `z.backward(agv.ones_like(z))`.

Ones reproduce Paddle's default: `x.grad = 2x = [2, 4, 6]` and `y.grad = 4 = [4, 4, 4]`.
""",
        """
提示里的 `output` 指调用 backward 的那个张量，这里是 `z`（不是我们的输入 `y = [4, 5, 6]`）。
所以这个单元正确的改法是 `z.backward(agv.ones_like(z))`。

传入全 1 就得到和 Paddle 默认行为相同的结果：`x.grad = 2x = [2, 4, 6]`，`y.grad = 4 = [4, 4, 4]`。
""",
    ),
    code(
        """
z.backward(agv.ones_like(z))
print("x.grad:", x.grad)
print("y.grad:", y.grad)
"""
    ),
    md(
        """
Drawn, the leaves now carry their gradients. The two intermediate results, `x**2` and `4 * y`,
show *(value not kept)*: no Python variable holds them, and PyTorch never keeps such a value
once the next op has used it. (autogradviz keeps a copy only so that a drawing made before
backward can show it, and drops that copy at backward.) `z` is held by a variable, so its value
is still there.
""",
        """
画出来看，叶子上已经带着各自的梯度了。两个中间结果 `x**2` 和 `4 * y` 显示为 *（数值未保留）*：
没有哪个 Python 变量引用它们，而 PyTorch 在下一个运算用过这样的值之后就不再保留它。
（autogradviz 只是为了让反向传播之前画的图能显示它，才留了一份副本，反向传播时就丢掉了。）
`z` 有变量引用着，所以它的值还在。
""",
    ),
    code(
        """
agv.draw(z, names=locals())
"""
    ),
    md(
        """
## retain_graph: what backward frees

What backward does free is something else: the **saved tensors**. To compute a derivative, a
backward node often needs values from the forward pass: the node of `x**2` must remember `x`
(its derivative is `2x`), while `4 * y` needs only the number 4. The backward drawing with
`show_saved=True` shows what each node saved; draw it on a fresh graph, before backward:
""",
        """
## retain_graph：反向传播释放的是什么

反向传播真正释放的是另一样东西：**保存的张量**。为了计算导数，反向节点往往需要前向计算时的值：
`x**2` 的节点必须记住 `x`（它的导数是 `2x`），而 `4 * y` 只需要记住数字 4。
带 `show_saved=True` 的反向图会画出每个节点保存了什么；在一张新的计算图上、反向传播之前画出来：
""",
    ),
    code(
        """
x = agv.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
y = agv.to_tensor([4.0, 5.0, 6.0], stop_gradient=False)
z = x**2 + 4 * y
saved_before = [len(node.saved_values) for node in agv.topological_order([z.grad_fn])]
agv.draw(z, names=locals(), kind="backward", show_saved=True)
"""
    ),
    code(
        """
z.backward(agv.ones_like(z))
saved_after = [len(node.saved_values) for node in agv.topological_order([z.grad_fn])]
print("values saved by each node, before backward:", saved_before)
print("values saved by each node, after backward: ", saved_after)
"""
    ),
    md(
        """
After a backward without `retain_graph`, the saved `x` is gone from the node, and a second
backward through it would raise. Saved tensors can be large (a network saves every layer's
input), which is why the engine frees them; `retain_graph=True` keeps them, and then you can run
backward through the same graph again.

**Source tour.** [autogradviz/core/graph.py](../../autogradviz/core/graph.py), method `Node.free`
drops what a node saved (and its drawing copy); [autogradviz/engine.py](../../autogradviz/engine.py),
function `backward_steps`, calls it on each node it ran unless `retain_graph=True`.

Paddle's example, `y = x + 3`, with `retain_graph=True`:
""",
        """
不带 `retain_graph` 做一次反向传播之后，节点里保存的 `x` 就没有了，再沿它做第二次反向传播就会报错。
保存的张量可能很大（一个网络会保存每一层的输入），所以引擎要释放它们；`retain_graph=True` 会保留它们，
这样就可以沿同一张图再做一次反向传播。

**源码导览。** [autogradviz/core/graph.py](../../autogradviz/core/graph.py) 中的方法 `Node.free`
丢掉节点保存的值（以及供画图用的副本）；[autogradviz/engine.py](../../autogradviz/engine.py) 中的函数
`backward_steps` 对运行过的每个节点调用它，除非传了 `retain_graph=True`。

Paddle 的例子 `y = x + 3`，加上 `retain_graph=True`：
""",
    ),
    code(
        """
x = agv.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
y = x + 3
y.backward(agv.ones_like(y), retain_graph=True)
print("x.grad after one backward:", x.grad)
y.backward(agv.ones_like(y))
print("x.grad after two:         ", x.grad)
"""
    ),
    md(
        """
The second call added another `[1, 1, 1]`: gradients accumulate, more on that below.

An addition is a poor test of `retain_graph`, though: its derivative is 1 whatever the inputs
are, so its node saves nothing and there is nothing to free. In autogradviz, as in PyTorch, a
second backward through it even works without `retain_graph`. A multiplication saves its inputs,
and shows the rule:
""",
        """
第二次调用又加上了一个 `[1, 1, 1]`：梯度会累加，下文还会讲到。

不过，用加法来检验 `retain_graph` 并不理想：加法的导数不管输入是什么都是 1，所以它的节点什么都不保存，
也就没有什么可释放的。在 autogradviz 里（和 PyTorch 一样），即使不加 `retain_graph`，
对它做第二次反向传播也能成功。乘法会保存它的输入，正好能说明这条规则：
""",
    ),
    code(
        """
w = agv.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
p = w * w
p.backward(agv.ones_like(p))  # no retain_graph: the saved values of w are freed
print("w.grad:", w.grad)
try:
    p.backward(agv.ones_like(p))
except RuntimeError as error:
    print("RuntimeError:", str(error).split(" (")[0])
print("w.grad is unchanged:", w.grad)
"""
    ),
    code(
        """
w.grad = None  # start again from no gradient
p = w * w
p.backward(agv.ones_like(p), retain_graph=True)  # keep the saved values
p.backward(agv.ones_like(p))  # so this works, and adds 2w again
print("w.grad:", w.grad)
"""
    ),
    md(
        """
## Clearing gradients: add_n and clear_grad

Each backward **adds** into `.grad`, so a training loop must clear the gradients before the next
backward. Paddle's tutorial shows it with ten 2×2 tensors of ones, summed with `add_n` (Paddle's
sum of a list of tensors), then reduced to a scalar with `sum`.

A user tensor stops gradient by default, so each one is switched on after it is made.
""",
        """
## 清除梯度：add_n 与 clear_grad

每次反向传播都会把梯度**加**进 `.grad`，所以训练循环在下一次反向传播之前必须先清除梯度。
Paddle 的教程用十个 2×2 的全 1 张量来演示：先用 `add_n`（Paddle 用来把一组张量相加的函数）求和，
再用 `sum` 归约成一个标量。

用户创建的张量默认截断梯度，所以每个张量创建之后都要把开关打开。
""",
    ),
    code(
        """
tensors = []
for _ in range(10):
    t = agv.ones(2, 2)
    t.stop_gradient = False
    tensors.append(t)
total = agv.add_n(tensors)
loss = total.sum()
loss.retain_grad()  # Paddle keeps an intermediate's grad by itself; here we ask for it
loss.backward()
print("loss:", loss.item())
print("loss.gradient():", loss.gradient())
print("tensors[0].grad:", tensors[0].grad)
"""
    ),
    md(
        """
The gradient of the output with respect to itself is 1. (Paddle printed it as `[1.]`, because
its scalars then had shape [1]; here `loss` has shape ().) Each input tensor gets ones: changing
any of its elements by ε changes the total by ε.

`clear_grad()` sets a gradient to zeros, in place, as Paddle does:
""",
        """
输出对自身的梯度是 1。（Paddle 打印的是 `[1.]`，因为当时它的标量形状是 [1]；这里 `loss` 的形状是 ()。）
每个输入张量得到的都是全 1：它的任何一个元素变化 ε，总和就变化 ε。

`clear_grad()` 原地把梯度置为零，与 Paddle 的做法一致：
""",
    ),
    code(
        """
loss.clear_grad()
for t in tensors:
    t.clear_grad()
print("loss.gradient():", loss.gradient())
print("tensors[0].grad:", tensors[0].grad)
"""
    ),
    md(
        """
PyTorch has two ways to do this: `x.grad.zero_()` (zeros in place, like `clear_grad()`), and
`x.grad = None` (drop it; the next backward makes a fresh one). Optimizers differ in the same way:
Paddle's `opt.clear_grad()` zeros, PyTorch's `opt.zero_grad()` sets `None` by default.
autogradviz has both spellings, each with its own framework's default (source tour: methods
`Optimizer.zero_grad` and `Optimizer.clear_grad` in [autogradviz/optim.py](../../autogradviz/optim.py);
`add_n` is a function in [autogradviz/ops/shape.py](../../autogradviz/ops/shape.py)):
""",
        """
PyTorch 有两种做法：`x.grad.zero_()`（原地置零，和 `clear_grad()` 一样）和 `x.grad = None`
（直接丢掉，下一次反向传播会重新创建）。优化器也有同样的区别：Paddle 的 `opt.clear_grad()` 置零，
PyTorch 的 `opt.zero_grad()` 默认设为 `None`。autogradviz 两种写法都支持，各自沿用原框架的默认行为（源码导览：[autogradviz/optim.py](../../autogradviz/optim.py)
中的方法 `Optimizer.zero_grad` 和 `Optimizer.clear_grad`；`add_n` 是 [autogradviz/ops/shape.py](../../autogradviz/ops/shape.py)
中的一个函数）：
""",
    ),
    code(
        """
layer = agv.nn.Linear(2, 1)
opt = agv.optim.SGD(parameters=layer.parameters(), learning_rate=0.1)  # Paddle's keywords

layer(agv.ones(4, 2)).sum().backward()
print("after backward:   ", layer.weight.grad)
opt.clear_grad()
print("opt.clear_grad(): ", layer.weight.grad)

layer(agv.ones(4, 2)).sum().backward()
opt.zero_grad()
print("opt.zero_grad():  ", layer.weight.grad)
"""
    ),
    md(
        """
## Paddle, PyTorch and autogradviz, side by side

| what | Paddle | PyTorch | autogradviz |
|---|---|---|---|
| make a tensor | `paddle.to_tensor(data)` | `torch.tensor(data)` | `agv.to_tensor(data)`, the same function as `agv.tensor(data)` |
| ask for a gradient | `stop_gradient=False` (default True) | `requires_grad=True` (default False) | both; `x.stop_gradient` is `not x.requires_grad` |
| backward on a non-scalar | a gradient of ones is assumed | `gradient=` is required | `gradient=` is required |
| backward twice | `backward(retain_graph=True)` | the same | the same |
| an intermediate's gradient | kept | call `y.retain_grad()` first | call `y.retain_grad()` first |
| the gradient as numpy | `x.gradient()` | `x.grad.numpy()` | both |
| clear one tensor's gradient | `x.clear_grad()` (zeros) | `x.grad.zero_()` or `x.grad = None` | all three |
| sum a list of tensors | `paddle.add_n(xs)` | `torch.stack(xs).sum(0)` or `sum(xs)` | all three: `agv.add_n`, `agv.stack`, `sum` |
| model base class | `paddle.nn.Layer` | `torch.nn.Module` | `agv.nn.Layer` is `agv.nn.Module` |
| a model's gradients | `layer.clear_gradients()` (zeros) | `module.zero_grad()` (None) | both |
| optimizer arguments | `parameters=`, `learning_rate=` | `params`, `lr=` | either spelling, not both at once |
| clear an optimizer's gradients | `opt.clear_grad()` (zeros) | `opt.zero_grad()` (None) | both |
| gradients without `.grad` | `paddle.grad` | `torch.autograd.grad` | `agv.grad` |
| no graph | `paddle.no_grad()` | `torch.no_grad()` | `agv.no_grad()` |
| seed | `paddle.seed(n)` | `torch.manual_seed(n)` | `agv.seed(n)`, `agv.manual_seed(n)` |
| 2-D convolution | `nn.Conv2D` | `nn.Conv2d` | both |

The next cell checks the autogradviz column:
""",
        """
## Paddle、PyTorch 与 autogradviz 对照

| 用途 | Paddle | PyTorch | autogradviz |
|---|---|---|---|
| 创建张量 | `paddle.to_tensor(data)` | `torch.tensor(data)` | `agv.to_tensor(data)`，与 `agv.tensor(data)` 是同一个函数 |
| 需要梯度 | `stop_gradient=False`（默认 True） | `requires_grad=True`（默认 False） | 两者都支持；`x.stop_gradient` 即 `not x.requires_grad` |
| 对非标量调用 backward | 默认梯度为全 1 | 必须传 `gradient=` | 必须传 `gradient=` |
| 反向传播两次 | `backward(retain_graph=True)` | 相同 | 相同 |
| 中间张量的梯度 | 自动保留 | 先调用 `y.retain_grad()` | 先调用 `y.retain_grad()` |
| 以 numpy 取梯度 | `x.gradient()` | `x.grad.numpy()` | 两者都支持 |
| 清除单个张量的梯度 | `x.clear_grad()`（置零） | `x.grad.zero_()` 或 `x.grad = None` | 三种都支持 |
| 对一组张量求和 | `paddle.add_n(xs)` | `torch.stack(xs).sum(0)` 或 `sum(xs)` | 三种都支持：`agv.add_n`、`agv.stack`、`sum` |
| 模型基类 | `paddle.nn.Layer` | `torch.nn.Module` | `agv.nn.Layer` 就是 `agv.nn.Module` |
| 模型的梯度 | `layer.clear_gradients()`（置零） | `module.zero_grad()`（设为 None） | 两者都支持 |
| 优化器参数 | `parameters=`、`learning_rate=` | `params`、`lr=` | 任选一种写法，但不能同时用两种 |
| 清除优化器的梯度 | `opt.clear_grad()`（置零） | `opt.zero_grad()`（设为 None） | 两者都支持 |
| 不经 `.grad` 求梯度 | `paddle.grad` | `torch.autograd.grad` | `agv.grad` |
| 不建计算图 | `paddle.no_grad()` | `torch.no_grad()` | `agv.no_grad()` |
| 随机种子 | `paddle.seed(n)` | `torch.manual_seed(n)` | `agv.seed(n)`、`agv.manual_seed(n)` |
| 二维卷积 | `nn.Conv2D` | `nn.Conv2d` | 两者都支持 |

下一个单元检查表中 autogradviz 一列：
""",
    ),
    code(
        """
print("to_tensor is tensor:   ", agv.to_tensor is agv.tensor)
print("nn.Layer is nn.Module: ", agv.nn.Layer is agv.nn.Module)
print("nn.Conv2D is nn.Conv2d: ", agv.nn.Conv2D is agv.nn.Conv2d)
print("seed and manual_seed:  ", callable(agv.seed), callable(agv.manual_seed))

xs = [agv.ones(2, 2, requires_grad=True) for _ in range(3)]
same = agv.add_n(xs).tolist() == agv.stack(xs).sum(0).tolist() == sum(xs).tolist()
print("add_n, stack().sum(0), sum() agree:", same)

m = agv.nn.Layer()
print("Layer has clear_gradients and zero_grad:", hasattr(m, "clear_gradients"), hasattr(m, "zero_grad"))
opt = agv.optim.Adam(parameters=layer.parameters(), learning_rate=1e-3)
print("Adam(parameters=, learning_rate=) lr:", opt.get_lr())
try:
    agv.optim.Adam(layer.parameters(), lr=1e-3, learning_rate=1e-3)
except TypeError as error:
    print("TypeError:", str(error).split(":")[0])

g = agv.to_tensor([3.0], stop_gradient=False)
(g * g).sum().backward()
print("gradient() and grad.numpy():", g.gradient(), g.grad.numpy())
(dg,) = agv.grad((g * g).sum(), g)
print("agv.grad:", dg)
"""
    ),
    md(
        """
## Exercises

### Exercise 1: predict the gradients

Before you run anything, predict. With Paddle's defaults:

```python
m = agv.to_tensor([2.0, 3.0], stop_gradient=False)
k = agv.to_tensor([5.0, 7.0])
loss = (m * k + m**2).sum()
loss.backward()
```

Set `m_grad` to the list you expect in `m.grad`, and `k_gets_grad` to `True` if you expect
`k.grad` to hold a gradient, `False` if you expect it to stay `None`. Work it out by hand: the
check cell runs the code.
""",
        """
## 练习

### 练习 1：预测梯度

先别运行，先预测。按 Paddle 的默认设置：

```python
m = agv.to_tensor([2.0, 3.0], stop_gradient=False)
k = agv.to_tensor([5.0, 7.0])
loss = (m * k + m**2).sum()
loss.backward()
```

把你认为 `m.grad` 中会有的列表存为 `m_grad`；如果你认为 `k.grad` 里会有梯度，就把 `k_gets_grad` 设为
`True`，如果你认为它仍是 `None`，就设为 `False`。请手算：检查单元会替你运行这段代码。
""",
    ),
    *exercise(
        "05.1",
        answers=("m_grad", "k_gets_grad"),
        solution="""
# d/dm of m·k + m² is k + 2m = [5 + 4, 7 + 6]; k keeps stop_gradient=True, so it gets no gradient
m_grad = [9.0, 13.0]
k_gets_grad = False
""",
        check="""
m = agv.to_tensor([2.0, 3.0], stop_gradient=False)
k = agv.to_tensor([5.0, 7.0])
(m * k + m**2).sum().backward()
assert k_gets_grad is (k.grad is not None), (
    "k was made with the default stop_gradient=True: backward gives it no gradient, so k.grad is None"
)
assert m_grad is not None and np.allclose(m_grad, m.grad.tolist()), (
    f"you predicted {m_grad}; differentiate each term: d(m·k)/dm = k and d(m²)/dm = 2m, then add them"
)
print("Right: m.grad =", m.grad.tolist(), " k.grad =", k.grad)
""",
    ),
    md(
        """
### Exercise 2: derive vᵀJ

For a non-scalar output, `z.backward(v)` computes $v^\\top J$, the gradient of $\\sum_i v_i z_i$.
Take `x = [1., 2., 3.]` and `z = x**3`. Each $z_i$ depends only on $x_i$, so the Jacobian $J$ is
diagonal, with $J_{ii} = 3x_i^2$. Derive, by hand, what `x.grad` will be after
`z.backward(agv.to_tensor([1.0, 0.0, -1.0]))`, and set `predicted` to it as a list of three
floats. Then set `same_loss` to a function of `z` that returns a **scalar** whose plain
`.backward()` gives the same gradient.
""",
        """
### 练习 2：推导 vᵀJ

对于非标量输出，`z.backward(v)` 计算的是 $v^\\top J$，也就是 $\\sum_i v_i z_i$ 的梯度。取
`x = [1., 2., 3.]`，`z = x**3`。每个 $z_i$ 只依赖 $x_i$，所以雅可比矩阵 $J$ 是对角矩阵，
$J_{ii} = 3x_i^2$。请手算 `z.backward(agv.to_tensor([1.0, 0.0, -1.0]))` 之后 `x.grad` 是多少，
把它以三个浮点数的列表存为 `predicted`。再把 `same_loss` 设为一个以 `z` 为参数的函数，它返回一个**标量**，
对这个标量直接调用 `.backward()` 能得到同样的梯度。
""",
    ),
    *exercise(
        "05.2",
        answers=("predicted", "same_loss"),
        solution="""
# vᵀJ with J = diag(3x²): v_i · 3x_i² = [1 · 3, 0 · 12, -1 · 27]
predicted = [3.0, 0.0, -27.0]


def same_loss(z):
    return (agv.to_tensor([1.0, 0.0, -1.0]) * z).sum()
""",
        check="""
x = agv.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
v = agv.to_tensor([1.0, 0.0, -1.0])
(x**3).backward(v)
assert np.allclose(predicted, x.grad.tolist()), (
    f"you predicted {predicted}: multiply each v_i by the diagonal entry J_ii = 3·x_i² (here 3, 12, 27)"
)
x.clear_grad()
scalar = same_loss(x**3)
assert scalar.shape == (), f"same_loss must return a scalar, so that .backward() needs no gradient; got shape {scalar.shape}"
scalar.backward()
assert np.allclose(x.grad.tolist(), predicted), (
    f"same_loss gives x.grad = {x.grad.tolist()}: weight each z_i by v_i before summing, (v * z).sum()"
)
print("Right: vᵀJ =", predicted, "= the gradient of (v * z).sum()")
""",
    ),
    md(
        """
### Exercise 3: bug hunt

This loop is meant to print the gradient of `y = (w * w).sum()` three times, the same each time,
`[2., -4.]`. It has two bugs: run it in your head (or in a scratch cell) to find them.

```python
w = agv.to_tensor([1.0, -2.0], stop_gradient=False)
y = (w * w).sum()
grads = []
for step in range(3):
    y.backward()
    grads.append(w.grad.tolist())
```

Write the fixed loop, keeping `grads` as the list of three gradients, and set `bugs` to the
set of the two problems, chosen from `"graph freed"`, `"gradients accumulate"`, `"wrong formula"`,
`"no gradient for w"`.
""",
        """
### 练习 3：找 bug

下面这个循环本想把 `y = (w * w).sum()` 的梯度打印三次，每次都一样，都是 `[2., -4.]`。
它有两个 bug：在脑子里（或者在一个草稿单元里）运行一遍，把它们找出来。

```python
w = agv.to_tensor([1.0, -2.0], stop_gradient=False)
y = (w * w).sum()
grads = []
for step in range(3):
    y.backward()
    grads.append(w.grad.tolist())
```

写出修好的循环，`grads` 仍然是三次梯度组成的列表；再把 `bugs` 设为这两个问题组成的集合，从
`"graph freed"`（计算图已释放）、`"gradients accumulate"`（梯度累加）、`"wrong formula"`（公式错误）、
`"no gradient for w"`（w 没有梯度）中选择。
""",
    ),
    *exercise(
        "05.3",
        answers=("grads", "bugs"),
        solution="""
w = agv.to_tensor([1.0, -2.0], stop_gradient=False)
grads = []
for step in range(3):
    y = (w * w).sum()  # a fresh graph each time: the last backward freed the saved w
    y.backward()
    grads.append(w.grad.tolist())
    w.clear_grad()  # otherwise the next backward adds to this gradient
bugs = {"graph freed", "gradients accumulate"}
print(grads)
""",
        check="""
assert len(grads) == 3, f"grads should hold one gradient per round, three in all; it has {len(grads)}"
if grads[1] == [4.0, -8.0]:
    raise AssertionError("the gradients add up round after round: clear w's gradient (w.clear_grad()) in each round")
assert grads == [[2.0, -4.0]] * 3, f"got {grads}; each round should give 2w = [2.0, -4.0]"
assert isinstance(bugs, set) and len(bugs) == 2, "bugs should be a set of two of the four names"
assert bugs == {"graph freed", "gradients accumulate"}, (
    f"{sorted(bugs)}: the formula is right and w asks for a gradient; what breaks is that the first backward "
    "freed the multiplication's saved w (the second call raises), and that .grad adds up across calls"
)
print("Right: both bugs found, and every round gives", grads[0])
""",
    ),
]

if __name__ == "__main__":
    build(5, "paddle_style_autograd", cells)
