"""Lesson 05: Paddle-style autograd. Builds notebooks/en/05_paddle_style_autograd.ipynb and
notebooks/zh/05_paddle_style_autograd.ipynb (run from notebooks/src):

    ../../.venv/bin/python 05_paddle_style_autograd.py
"""

from lesson import build, code, exercise, md, setup

cells = [
    md(
        """
# 05 Paddle-style autograd

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
""",
        """
# 05 Paddle 风格的自动求导

飞桨（PaddlePaddle）的动态图与 PyTorch 的工作方式相同：前向计算记录一张图，`backward()` 沿着这张图回溯并填好
`.grad`。两者的名字不同，而且有两处行为也不同。autogradviz 遵循 PyTorch 的规则，同时接受 Paddle 的写法，
所以这一课用 Paddle 的方式来写，并逐一指出差别：

- `stop_gradient`：Paddle 用来表示“这里不要梯度”的开关；
- 对非标量输出调用 backward：Paddle 默认梯度为全 1，PyTorch 和 autogradviz 则要求传入 `gradient=`；
- `retain_graph`，以及为什么反向传播之后要释放计算图；
- 梯度会累加；`add_n` 与 `clear_grad`；
- 一张名称对照表：Paddle、PyTorch、autogradviz。
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
`stop_gradient=False` to ask for its gradient.
""",
        """
## stop_gradient：同一个开关，方向相反

PyTorch 问的是“这个张量需要梯度吗？”（`requires_grad`）；Paddle 问的是“梯度要在这里停下吗？”
（`stop_gradient`）。它们是同一个标志，只是取反：`x.stop_gradient == (not x.requires_grad)`。

自己创建的张量被当作数据，所以默认会截断梯度：`stop_gradient` 为 True。传入 `stop_gradient=False`
即表示需要它的梯度。
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
Pass the vector yourself. Ones reproduce Paddle's default: `x.grad = 2x = [2, 4, 6]` and
`y.grad = 4 = [4, 4, 4]`.
""",
        """
那就自己传入这个向量。传入全 1 就得到和 Paddle 默认行为相同的结果：`x.grad = 2x = [2, 4, 6]`，
`y.grad = 4 = [4, 4, 4]`。
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
Drawn, the leaves now carry their gradients. The two intermediate results are marked *freed*:
backward dropped the values it had kept for itself. The next section is about that.
""",
        """
画出来看，叶子上已经带着各自的梯度了。两个中间结果被标记为 *freed*（已释放）：
反向传播把它为自己保留的值丢掉了。下一节就讲这件事。
""",
    ),
    code(
        """
agv.draw(z, names=locals())
"""
    ),
    md(
        """
## retain_graph

To compute a derivative, a backward node often needs values from the forward pass: the node of
`x * x` must remember `x`. Those saved values can be large, so after `backward()` the engine frees
them. `retain_graph=True` keeps them, and then you can run backward through the same graph again.

Paddle's example, `y = x + 3`, with `retain_graph=True`:
""",
        """
## retain_graph

为了计算导数，反向节点往往需要前向计算时的值：`x * x` 的节点必须记住 `x`。这些保存下来的值可能很大，
所以 `backward()` 之后引擎会把它们释放掉。`retain_graph=True` 会保留它们，这样就可以沿同一张图再做一次反向传播。

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

`clear_grad()` 就地把梯度置为零，与 Paddle 的做法一致：
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
autogradviz has both spellings, each with its own framework's default:
""",
        """
PyTorch 有两种做法：`x.grad.zero_()`（就地置零，和 `clear_grad()` 一样）和 `x.grad = None`
（直接丢掉，下一次反向传播会重新创建）。优化器也有同样的区别：Paddle 的 `opt.clear_grad()` 置零，
PyTorch 的 `opt.zero_grad()` 默认设为 `None`。autogradviz 两种写法都支持，各自沿用原框架的默认行为：
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

### Exercise 1: which tensors get a gradient?

Using Paddle's spelling only (`to_tensor` and `stop_gradient`), make `m = [2., 3.]`, which asks
for a gradient, and `k = [5., 7.]`, which keeps the default. Compute `loss = (m * k).sum()` and
call `loss.backward()`.
""",
        """
## 练习

### 练习 1：哪些张量会得到梯度？

只用 Paddle 的写法（`to_tensor` 和 `stop_gradient`），创建需要梯度的 `m = [2., 3.]`，
以及保持默认设置的 `k = [5., 7.]`。计算 `loss = (m * k).sum()`，然后调用 `loss.backward()`。
""",
    ),
    *exercise(
        "05.1",
        answers=("m", "k"),
        solution="""
m = agv.to_tensor([2.0, 3.0], stop_gradient=False)
k = agv.to_tensor([5.0, 7.0])
loss = (m * k).sum()
loss.backward()
print(m.grad, k.grad)
""",
        check="""
assert m.stop_gradient is False, "m must ask for a gradient: stop_gradient=False"
assert k.stop_gradient is True, "k should keep the default, stop_gradient=True"
assert m.grad is not None and m.grad.tolist() == [5.0, 7.0], "d(m·k)/dm = k, so m.grad should be [5., 7.]"
assert k.grad is None, "k stops the gradient, so it gets none"
print("Right: m.grad =", m.grad.tolist(), " k.grad =", k.grad)
""",
    ),
    md(
        """
### Exercise 2: ones, or a sum

Paddle's default for a non-scalar output is a gradient of ones. Show that this is the same as
calling backward on the sum. For `x = [1., 2., 3.]` (requiring gradient) and `z = x**3`, set
`grad_ones` to `x`'s gradient (as numpy, with `gradient()`) after `z.backward(agv.ones_like(z))`,
and `grad_sum` to it after `z.sum().backward()` on a fresh graph. Mind the accumulation!
""",
        """
### 练习 2：全 1 梯度，还是求和

对于非标量输出，Paddle 的默认做法是使用全 1 梯度。请说明这和对求和结果调用 backward 是一回事。
对 `x = [1., 2., 3.]`（需要梯度）和 `z = x**3`：先执行 `z.backward(agv.ones_like(z))`，
把此时 `x` 的梯度（用 `gradient()` 取得的 numpy 数组）存为 `grad_ones`；再在一张新的计算图上执行
`z.sum().backward()`，把得到的梯度存为 `grad_sum`。注意梯度会累加！
""",
    ),
    *exercise(
        "05.2",
        answers=("grad_ones", "grad_sum"),
        solution="""
x = agv.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
z = x**3
z.backward(agv.ones_like(z))
grad_ones = x.gradient().copy()  # a copy: clear_grad() below zeros the array in place
x.clear_grad()  # otherwise the second backward would add to the first
z = x**3
z.sum().backward()
grad_sum = x.gradient().copy()
print(grad_ones, grad_sum)
""",
        check="""
expected = 3 * np.array([1.0, 2.0, 3.0]) ** 2
assert np.allclose(grad_ones, expected), (
    f"d(x³)/dx = 3x² = {expected}; got {grad_ones} (all zeros? gradient() returns the gradient's own "
    "array, which clear_grad() zeros in place: keep a .copy())"
)
assert np.allclose(grad_sum, expected), (
    f"got {grad_sum}: if it is twice the answer, the gradient from the first backward was not cleared"
)
print("Right: both give", grad_sum)
""",
    ),
    md(
        """
### Exercise 3: accumulate, then clear

For `w = [1., -2.]` (requiring gradient) and `y = (w * w).sum()`, call backward **three times**
on the same graph. Set `after_three` to `w`'s gradient as a list (`tolist()`), then clear it with
`clear_grad()` and set `after_clear` to it as a list.
""",
        """
### 练习 3：先累加，再清除

对 `w = [1., -2.]`（需要梯度）和 `y = (w * w).sum()`，在同一张图上调用**三次** backward。
把此时 `w` 的梯度以列表形式（`tolist()`）存为 `after_three`；再用 `clear_grad()` 清除它，
把清除后的梯度以列表形式存为 `after_clear`。
""",
    ),
    *exercise(
        "05.3",
        answers=("after_three", "after_clear"),
        solution="""
w = agv.to_tensor([1.0, -2.0], stop_gradient=False)
y = (w * w).sum()
y.backward(retain_graph=True)  # the multiplication saved w: keep it for the next calls
y.backward(retain_graph=True)
y.backward()
after_three = w.grad.tolist()
w.clear_grad()
after_clear = w.grad.tolist()
print(after_three, after_clear)
""",
        check="""
assert after_three == [6.0, -12.0], (
    f"got {after_three}: each backward adds 2w = [2, -4] (the graph needs retain_graph=True to be reused)"
)
assert after_clear == [0.0, 0.0], "clear_grad() sets the gradient to zeros, in place"
print("Right: three backwards gave", after_three, "and clear_grad() gave", after_clear)
""",
    ),
]

if __name__ == "__main__":
    build(5, "paddle_style_autograd", cells)
