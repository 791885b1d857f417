"""Lesson 8: beyond first derivatives. create_graph and second derivatives (with a plot and
Newton's method), gradient hooks, and gradcheck on functions the learner writes.

    cd notebooks/src && ../../.venv/bin/python 08_beyond_first_derivatives.py
"""

from lesson import build, code, exercise, md, setup

cells = [
    md(
        """
# Lesson 8 · Beyond first derivatives

So far `backward()` has given first derivatives, and you have taken them on trust. This lesson adds three tools:

- **`create_graph=True`**: differentiate a derivative again, for second (and third...) derivatives;
- **hooks**: run your own function on a gradient while backward passes through, to watch it or to change it;
- **`agv.gradcheck`**: test a gradient against finite differences, to catch a function whose backward is wrong.

Terms are in the [glossary](../glossary.md).
""",
        """
# 第 8 课 · 一阶导数之外

到目前为止，`backward()` 给出的都是一阶导数，而且你一直默认它是对的。本课介绍三个新工具：

- **`create_graph=True`**：对导数再求导，得到二阶（乃至三阶……）导数；
- **钩子（hook）**：在反向传播经过时对梯度执行你自己的函数，用来观察梯度或修改梯度；
- **`agv.gradcheck`**：用有限差分检验梯度，揪出反向传播算错的函数。

术语见[术语表](../glossary.md)。
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
## A derivative is a computation too

Each backward node computes *upstream × local derivative*, and that is ordinary arithmetic. Normally the
engine does it with plain numpy and records nothing: the gradient comes out as a bare number. With
`create_graph=True` it does the same arithmetic with autogradviz ops, so the gradient is recorded like any
other result, with its own `grad_fn`, and can be differentiated again.

`agv.grad(outputs, inputs)` returns the gradients as a tuple, one per input, and leaves `.grad` alone.
Take `y = x³` at `x = 2`: the formulas say `y' = 3x² = 12`, `y'' = 6x = 12` and `y''' = 6`.

**Source tour.** [autogradviz/engine.py](../../autogradviz/engine.py), function `walk`, picks the
array namespace each node computes with: `numpy_math` normally, `tensor_math` (autogradviz's own recorded
ops) when `create_graph=True`; each node's formula is its `vjp(xp, g, ...)` method, for example
`MulBackward0.vjp` in [autogradviz/ops/arithmetic.py](../../autogradviz/ops/arithmetic.py).
""",
        """
## 导数本身也是一次计算

每个反向节点计算的是 *上游梯度 × 局部导数*，这只是普通的算术。平常引擎用纯 numpy 做这些运算，什么也不记录：
得到的梯度只是一个光秃秃的数。加上 `create_graph=True` 后，引擎改用 autogradviz 的运算来做同样的算术，
于是梯度也像其他计算结果一样被记录下来，带有自己的 `grad_fn`，可以再次求导。

`agv.grad(outputs, inputs)` 以元组形式返回梯度（每个输入一个），并且不会改动 `.grad`。
以 `x = 2` 处的 `y = x³` 为例：按公式，`y' = 3x² = 12`，`y'' = 6x = 12`，`y''' = 6`。

**源码导览。** [autogradviz/engine.py](../../autogradviz/engine.py) 中的函数 `walk` 为每个节点选择计算所用的
数组命名空间：平常用 `numpy_math`，`create_graph=True` 时用 `tensor_math`（autogradviz 自己的、会被记录的运算）；
每个节点的公式就是它的 `vjp(xp, g, ...)` 方法，例如 [autogradviz/ops/arithmetic.py](../../autogradviz/ops/arithmetic.py)
中的 `MulBackward0.vjp`。
""",
    ),
    code(
        """
x = agv.tensor(2.0, requires_grad=True)
y = x**3
(dy,) = agv.grad(y, x, create_graph=True)
print("y   =", y)
print("y'  =", dy, "  formula 3x^2 =", 3 * 2.0**2)
"""
    ),
    md(
        """
`dy` has a `grad_fn`: it is the root of a new graph. Drawn, it is exactly the formula `3 · x²`, built from
the saved `x` by `PowBackward0` when it ran with `create_graph=True`:
""",
        """
`dy` 带有 `grad_fn`：它是一张新计算图的根。把它画出来，正好就是公式 `3 · x²`，
由 `PowBackward0` 在 `create_graph=True` 下运行时，用保存下来的 `x` 搭建而成：
""",
    ),
    code(
        """
agv.draw(dy, names={"x": x, "dy": dy})
"""
    ),
    md(
        """
So `dy` can be differentiated like any other result. Keep `create_graph=True` for as long as you want to go on:
""",
        """
所以 `dy` 可以像其他计算结果一样继续求导。只要还想往下求，就一直带上 `create_graph=True`：
""",
    ),
    code(
        """
(d2y,) = agv.grad(dy, x, create_graph=True)
(d3y,) = agv.grad(d2y, x)
print("y'' =", d2y, "  formula 6x =", 6 * 2.0)
print("y'''=", d3y, "  formula 6")
"""
    ),
    md(
        """
Without `create_graph`, the gradient is a plain tensor with no history, so asking for its derivative fails,
with PyTorch's error message:
""",
        """
如果不加 `create_graph`，得到的梯度就是一个没有历史记录的普通张量，再对它求导就会失败，
报错信息和 PyTorch 的相同：
""",
    ),
    code(
        """
(g,) = agv.grad(x**3, x)
print(g, "requires_grad:", g.requires_grad, " grad_fn:", g.grad_fn)
"""
    ),
    code(
        """
agv.grad(g, x)
""",
        "raises-exception",
    ),
    md(
        """
`loss.backward(create_graph=True)` works the same way, writing the recordable gradient into `.grad`.

## Plotting derivatives

`agv.plot.function_and_grad(f, (lo, hi), second=True)` draws `f`, `f'` and `f''` on one plot. It evaluates `f`
at 200 points in one tensor, gets `f'` with `agv.grad(..., create_graph=True)` and then `f''` from `f'`:
the two steps above, for every point at once. `f` must be written with autogradviz ops (`x.sin()`, not
`np.sin(x)`). For `sin`, the curves should be `cos` and `-sin`:
""",
        """
`loss.backward(create_graph=True)` 也是同样的道理，只是把可以继续求导的梯度写进 `.grad`。

## 画出导数

`agv.plot.function_and_grad(f, (lo, hi), second=True)` 把 `f`、`f'` 和 `f''` 画在同一张图上。
它把 200 个点放进一个张量来计算 `f`，用 `agv.grad(..., create_graph=True)` 求出 `f'`，再由 `f'` 求出 `f''`：
正是上面那两步，只不过所有点一起算。`f` 必须用 autogradviz 的运算来写（用 `x.sin()`，不要用 `np.sin(x)`）。
对 `sin` 来说，两条导数曲线应该是 `cos` 和 `-sin`：
""",
    ),
    code(
        """
agv.plot.function_and_grad(lambda t: t.sin(), (-3.2, 3.2), second=True, title="sin and its derivatives")
"""
    ),
    md(
        """
The picture agrees; the numbers do too. Here are the derivatives at a few points next to the formulas:
""",
        """
图像吻合，数值也吻合。下面把几个点上的导数和公式的结果并排列出：
""",
    ),
    code(
        """
t = agv.linspace(-3, 3, 7, dtype=agv.float64, requires_grad=True)
(d1,) = agv.grad(t.sin().sum(), t, create_graph=True)  # sum(): each point's derivative lands in its own slot
(d2,) = agv.grad(d1.sum(), t)
print("   x     f'(x)   cos x    f''(x)  -sin x")
for row in zip(t.tolist(), d1.tolist(), t.cos().tolist(), d2.tolist(), (-t.sin()).tolist()):
    print("  ".join(f"{v + 0.0:6.3f}" for v in row))  # + 0.0 prints -0.0 as 0.000
"""
    ),
    md(
        """
What does a second derivative tell you? For `f(x) = x³ − 3x`, `f'` is zero at x = −1 and x = 1, where `f` is
flat; `f''` says which flat point is a valley (`f'' > 0`, at x = 1) and which a hilltop (`f'' < 0`, at x = −1).
""",
        """
二阶导数能告诉我们什么？对 `f(x) = x³ − 3x`，`f'` 在 x = −1 和 x = 1 处为零，`f` 在那里是平的；
`f''` 则说明哪个平点是谷底（`f'' > 0`，在 x = 1），哪个是山顶（`f'' < 0`，在 x = −1）。
""",
    ),
    code(
        """
def f(x):
    return x**3 - 3 * x


agv.plot.function_and_grad(f, (-2.2, 2.2), second=True, title="x^3 - 3x and its derivatives")
"""
    ),
    md(
        """
Newton's method uses both derivatives to find such a point: it jumps to where the tangent of `f'` crosses zero,
`x ← x − f'(x) / f''(x)`. From x = 2 it reaches the valley at x = 1 in a few steps, far faster than
gradient descent. The update itself runs under `no_grad()`, like an optimizer's step.
""",
        """
牛顿法同时利用这两个导数来找这样的点：它直接跳到 `f'` 的切线与零相交的位置，即 `x ← x − f'(x) / f''(x)`。
从 x = 2 出发，几步就到达 x = 1 处的谷底，比梯度下降快得多。更新这一步本身在 `no_grad()` 下进行，
就像优化器的 `step()` 一样。
""",
    ),
    code(
        """
x = agv.tensor(2.0, dtype=agv.float64, requires_grad=True)
for i in range(5):
    (d1,) = agv.grad(f(x), x, create_graph=True)
    (d2,) = agv.grad(d1, x)
    with agv.no_grad():
        x -= d1 / d2
    print(f"step {i}: f'={d1.item():9.6f}  f''={d2.item():9.6f}  ->  x = {x.item():.8f}")
"""
    ),
    md(
        """
## Hooks: a look at a gradient in passing

`t.register_hook(fn)` asks backward to call `fn(grad)` when it has computed the gradient of `t`. If `fn`
returns nothing, it only watches; if it returns a tensor, that tensor replaces the gradient and is what flows
on. PyTorch and Paddle both have `register_hook` with this meaning.

**Source tour.** [autogradviz/core/tensor.py](../../autogradviz/core/tensor.py), method
`Tensor.register_hook`, stores the hook on the tensor's node (on the tensor itself for a leaf); [autogradviz/engine.py](../../autogradviz/engine.py),
function `_run_hooks`, calls the hooks in order and passes on what they return.

Watching is handy for an intermediate tensor, whose gradient backward does not keep in `.grad`
(lesson 6 used `retain_grad()` for that):
""",
        """
## 钩子：在梯度经过时看一眼

`t.register_hook(fn)` 让反向传播在算出 `t` 的梯度时调用 `fn(grad)`。如果 `fn` 什么也不返回，它只是旁观；
如果返回一个张量，这个张量就取代原来的梯度，继续往下传。PyTorch 和 Paddle 都有含义相同的 `register_hook`。

**源码导览。** [autogradviz/core/tensor.py](../../autogradviz/core/tensor.py) 中的方法 `Tensor.register_hook`
把钩子存到张量的节点上（叶子张量则存在它自己身上）；[autogradviz/engine.py](../../autogradviz/engine.py) 中的函数 `_run_hooks`
依次调用这些钩子，并把它们返回的结果传下去。

对中间张量来说，旁观尤其有用：反向传播不会把中间张量的梯度保存在 `.grad` 里（第 6 课为此用过 `retain_grad()`）：
""",
    ),
    code(
        """
a = agv.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = a * 2
b.register_hook(lambda grad: print("gradient reaching b:", grad))
loss = (b**2).sum()
loss.backward()
print("a.grad:", a.grad)
"""
    ),
    md(
        """
The gradient of `loss = Σ b²` with respect to `b` is `2b = [4, 8, 12]`, and `a` gets twice that through `b = 2a`.

Now a hook that **changes** the gradient: it doubles whatever arrives at the leaf `a`. `register_hook` returns a
handle; `handle.remove()` takes the hook off again. A hook stays on the tensor for every later backward until
it is removed.
""",
        """
`loss = Σ b²` 对 `b` 的梯度是 `2b = [4, 8, 12]`，再经过 `b = 2a`，`a` 得到的是它的两倍。

下面的钩子会**修改**梯度：把到达叶子 `a` 的梯度加倍。`register_hook` 会返回一个句柄（handle），
调用 `handle.remove()` 就能把钩子摘掉。钩子在被摘掉之前，会一直留在张量上，对之后的每次反向传播都起作用。
""",
    ),
    code(
        """
handle = a.register_hook(lambda grad: grad * 2)
a.grad = None  # start from no gradient
((a * 2) ** 2).sum().backward()
print("with the doubling hook:", a.grad)

handle.remove()
a.grad = None
((a * 2) ** 2).sum().backward()
print("hook removed:          ", a.grad)
"""
    ),
    md(
        """
Hooks are how gradient clipping per tensor, gradient logging and many debugging tools are built. But a hook that
changes a gradient makes backward disagree with the true derivative of your function, which is exactly what the
next tool detects.

## gradcheck: is this gradient right?

Backward's gradient comes from formulas. A **finite difference** estimates the same derivative from the
function's values alone: `(f(x + ε) − f(x − ε)) / 2ε` for a tiny ε. `agv.gradcheck(fn, inputs)` compares the two
for every element of every input that requires grad, in float64 (where ε = 1e-6 is accurate), and returns
`True`, or raises `GradcheckError` naming the worst mismatch. (Source tour:
[autogradviz/finite_differences.py](../../autogradviz/finite_differences.py), function `gradcheck`.)

Write a function of your own, for example swish, `x · sigmoid(x)`, and check it:
""",
        """
按张量裁剪梯度、记录梯度，以及许多调试工具，都是用钩子做出来的。不过，修改梯度的钩子会让反向传播的结果
偏离函数真正的导数，而这正是下一个工具能发现的问题。

## gradcheck：这个梯度对吗？

反向传播的梯度来自公式。**有限差分**则只用函数值来估计同一个导数：取一个很小的 ε，计算
`(f(x + ε) − f(x − ε)) / 2ε`。`agv.gradcheck(fn, inputs)` 在 float64 精度下（此时 ε = 1e-6 足够准确），
对每个需要梯度的输入的每个元素比较这两者：一致就返回 `True`，否则抛出 `GradcheckError`，并指出相差最大的元素。
（源码导览：[autogradviz/finite_differences.py](../../autogradviz/finite_differences.py) 中的函数 `gradcheck`。）

自己写一个函数试试，比如 swish，即 `x · sigmoid(x)`，然后检查它：
""",
    ),
    code(
        """
def swish(x):
    return x * x.sigmoid()


x = agv.randn(5, dtype=agv.float64, requires_grad=True)
agv.gradcheck(swish, x)
"""
    ),
    md(
        """
Several inputs go in a tuple; gradcheck checks the gradient with respect to each one that requires grad:
""",
        """
有多个输入时，把它们放进一个元组；gradcheck 会对其中每个需要梯度的输入分别检查：
""",
    ),
    code(
        """
def weighted_swish(x, w):
    return (swish(x) * w).sum()


w = agv.randn(5, dtype=agv.float64, requires_grad=True)
agv.gradcheck(weighted_swish, (x, w))
"""
    ),
    md(
        """
Now a broken version. It computes the same values, but it reads the sigmoid through `.data`, which autograd does
not track (lesson 3): backward treats `sigmoid(x)` as a constant and misses the term `x · σ'(x)`. Nothing
complains, the values are right, and the gradient is silently wrong. gradcheck catches it:
""",
        """
再看一个有问题的版本。它算出的值完全一样，但它通过 `.data` 读取 sigmoid，而 autograd 不跟踪 `.data`（见第 3 课）：
反向传播把 `sigmoid(x)` 当成常数，漏掉了 `x · σ'(x)` 这一项。没有任何报错，函数值也对，梯度却悄无声息地错了。
gradcheck 能把它揪出来：
""",
    ),
    code(
        """
def swish_broken(x):
    return x * x.sigmoid().data  # .data: autograd does not see the sigmoid


print("same values:", agv.allclose(swish(x), swish_broken(x)))
try:
    agv.gradcheck(swish_broken, x)
except agv.GradcheckError as error:
    print("GradcheckError:", error)
"""
    ),
    md(
        """
The message names the element that disagrees most: backward's ("analytic") derivative there is `σ(x)` alone,
while the finite difference finds `σ(x) + x·σ(x)(1 − σ(x))`. Run gradcheck on small float64 inputs whenever you
write a function whose gradient you are not sure of.

## Exercises
""",
        """
报错信息指出了相差最大的元素：那里反向传播给出的（“analytic”）导数只有 `σ(x)`，
而有限差分得到的是 `σ(x) + x·σ(x)(1 − σ(x))`。每当你写了一个拿不准梯度的函数，就用小的 float64 输入跑一遍 gradcheck。

## 练习
""",
    ),
    md(
        """
**Exercise 1.** Derive the second derivative of `tanh`. Starting from $\tanh' = 1 - \tanh^2$, differentiate
once more with the chain rule and write the result as `tanh_second(t)`, a function of $t = \tanh(x)$ only.
Then compute `d2`, the second derivative of `tanh(x)` at x = 0.5, with `agv.grad` twice; the check compares
the two.
""",
        """
**练习 1.** 推导 `tanh` 的二阶导数。从 $\tanh' = 1 - \tanh^2$ 出发，用链式法则再求一次导，
把结果写成只含 $t = \tanh(x)$ 的函数 `tanh_second(t)`。然后调用两次 `agv.grad`，算出 `tanh(x)` 在 x = 0.5
处的二阶导数，存为 `d2`；检查单元会比较这两者。
""",
    ),
    *exercise(
        "08.1",
        answers=("tanh_second", "d2"),
        solution="""
def tanh_second(t):
    # d/dx (1 - t²) = -2t · dt/dx = -2t · (1 - t²)
    return -2 * t * (1 - t**2)


x = agv.tensor(0.5, dtype=agv.float64, requires_grad=True)
(d1,) = agv.grad(x.tanh(), x, create_graph=True)
(d2,) = agv.grad(d1, x)
print(d2)
""",
        check="""
import math

t = math.tanh(0.5)
h = 1e-4  # a central difference of tanh' = 1 - tanh², independent of both answers
numeric = ((1 - math.tanh(0.5 + h) ** 2) - (1 - math.tanh(0.5 - h) ** 2)) / (2 * h)
assert abs(float(tanh_second(t)) - numeric) < 1e-6, (
    f"tanh_second(tanh(0.5)) = {float(tanh_second(t)):.6f}, but tanh'' at 0.5 is about {numeric:.6f}: "
    "differentiate 1 - t² with the chain rule, d(t²)/dx = 2t · dt/dx, and dt/dx = 1 - t²"
)
assert abs(float(d2) - numeric) < 1e-6, (
    f"d2 = {float(d2):.6f}, expected about {numeric:.6f}: did the first agv.grad use create_graph=True?"
)
print("Correct: tanh'' = -2t(1 - t²) =", round(float(tanh_second(t)), 6))
""",
    ),
    md(
        """
**Exercise 2.** Predict what a clipping hook does. Without running it, work out the two lists this code
prints, and set `clipped` and `after_removal` to them (lists of floats); the check cell runs it.

```python
w = agv.tensor([0.5, -3.0, 2.0], requires_grad=True)
handle = w.register_hook(lambda grad: grad.clamp(-1, 1))
(w**2).sum().backward()
print(w.grad.tolist())   # clipped
handle.remove()
(w**2).sum().backward()  # note: w.grad is not reset
print(w.grad.tolist())   # after_removal
```
""",
        """
**练习 2.** 预测裁剪梯度的钩子会做什么。先别运行，推算出下面这段代码打印的两个列表，分别存为 `clipped` 和
`after_removal`（浮点数列表）；检查单元会运行它。

```python
w = agv.tensor([0.5, -3.0, 2.0], requires_grad=True)
handle = w.register_hook(lambda grad: grad.clamp(-1, 1))
(w**2).sum().backward()
print(w.grad.tolist())   # clipped
handle.remove()
(w**2).sum().backward()  # 注意：没有重置 w.grad
print(w.grad.tolist())   # after_removal
```
""",
    ),
    *exercise(
        "08.2",
        answers=("clipped", "after_removal"),
        solution="""
# 2w = [1, -6, 4], clamped to [-1, 1]: [1, -1, 1]
clipped = [1.0, -1.0, 1.0]
# without the hook the next backward sends 2w = [1, -6, 4] unclipped, and .grad adds it to [1, -1, 1]
after_removal = [2.0, -7.0, 5.0]
""",
        check="""
w = agv.tensor([0.5, -3.0, 2.0], requires_grad=True)
handle = w.register_hook(lambda grad: grad.clamp(-1, 1))
(w**2).sum().backward()
actual_clipped = w.grad.tolist()
handle.remove()
(w**2).sum().backward()
assert clipped == actual_clipped, (
    f"you predicted {clipped}: the gradient of (w**2).sum() is 2w = [1, -6, 4], and the hook clamps it to [-1, 1]"
)
assert after_removal == w.grad.tolist(), (
    f"you predicted {after_removal}: the hook is gone, so 2w arrives unclipped, and .grad adds it to what was there"
)
print("Correct: the hook changed the gradient only while it was registered.")
""",
    ),
    md(
        """
**Exercise 3.** Find the bug. This function scales a vector to length 1, and its values are right:

```python
def normalize_broken(x):
    return x / (x * x).sum().sqrt().item()
```

But gradcheck rejects it (try it). Write `normalize_fixed(x)`, with the same values and a correct gradient.
""",
        """
**练习 3.** 找出错误。下面这个函数把向量缩放到长度为 1，它算出的值是对的：

```python
def normalize_broken(x):
    return x / (x * x).sum().sqrt().item()
```

但 gradcheck 不让它通过（可以试一试）。写出 `normalize_fixed(x)`：函数值相同，梯度正确。
""",
    ),
    *exercise(
        "08.3",
        answers=("normalize_fixed",),
        solution="""
def normalize_fixed(x):
    # .item() turned the length into a plain number, a constant to autograd; keep it a tensor
    return x / (x * x).sum().sqrt()


print(agv.gradcheck(normalize_fixed, agv.randn(4, dtype=agv.float64, requires_grad=True)))
""",
        check="""
v = agv.randn(4, dtype=agv.float64, requires_grad=True)
length = (normalize_fixed(v) ** 2).sum().item()
assert abs(length - 1) < 1e-9, f"normalize_fixed(v) should have length 1, its squared length is {length}"
assert agv.gradcheck(normalize_fixed, v, raise_exception=False), (
    "normalize_fixed's gradient disagrees with finite differences: is the length still a tensor in the graph?"
)
print("Correct: the length must stay in the graph, because it depends on x too.")
""",
    ),
]

if __name__ == "__main__":
    build(8, "beyond_first_derivatives", cells)
