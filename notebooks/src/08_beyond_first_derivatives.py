"""Lesson 08: beyond first derivatives. create_graph and second derivatives (with a plot and
Newton's method), gradient hooks, and gradcheck on functions the learner writes.

    cd notebooks/src && ../../.venv/bin/python 08_beyond_first_derivatives.py
"""

from lesson import build, code, exercise, md, setup

cells = [
    md(
        """
# 08 Beyond first derivatives

So far `backward()` has given first derivatives, and you have taken them on trust. This lesson adds three tools:

- **`create_graph=True`**: differentiate a derivative again, for second (and third...) derivatives;
- **hooks**: run your own function on a gradient while backward passes through, to watch it or to change it;
- **`agv.gradcheck`**: test a gradient against finite differences, to catch a function whose backward is wrong.
""",
        """
# 08 一阶导数之外

到目前为止，`backward()` 给出的都是一阶导数，而且你一直默认它是对的。本课介绍三个新工具：

- **`create_graph=True`**：对导数再求导，得到二阶（乃至三阶……）导数；
- **钩子（hook）**：在反向传播经过时对梯度执行你自己的函数，用来观察梯度或修改梯度；
- **`agv.gradcheck`**：用有限差分检验梯度，揪出反向传播算错的函数。
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
""",
        """
## 导数本身也是一次计算

每个反向节点计算的是 *上游梯度 × 局部导数*，这只是普通的算术。平常引擎用纯 numpy 做这些运算，什么也不记录：
得到的梯度只是一个光秃秃的数。加上 `create_graph=True` 后，引擎改用 autogradviz 的运算来做同样的算术，
于是梯度也像其他计算结果一样被记录下来，带有自己的 `grad_fn`，可以再次求导。

`agv.grad(outputs, inputs)` 以元组形式返回梯度（每个输入一个），并且不会改动 `.grad`。
以 `x = 2` 处的 `y = x³` 为例：按公式，`y' = 3x² = 12`，`y'' = 6x = 12`，`y''' = 6`。
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

Watching is handy for an intermediate tensor, whose gradient backward does not keep in `.grad`
(lesson 06 used `retain_grad()` for that):
""",
        """
## 钩子：在梯度经过时看一眼

`t.register_hook(fn)` 让反向传播在算出 `t` 的梯度时调用 `fn(grad)`。如果 `fn` 什么也不返回，它只是旁观；
如果返回一个张量，这个张量就取代原来的梯度，继续往下传。PyTorch 和 Paddle 都有含义相同的 `register_hook`。

对中间张量来说，旁观尤其有用：反向传播不会把中间张量的梯度保存在 `.grad` 里（第 06 课为此用过 `retain_grad()`）：
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
`True`, or raises `GradcheckError` naming the worst mismatch.

Write a function of your own, for example swish, `x · sigmoid(x)`, and check it:
""",
        """
按张量裁剪梯度、记录梯度，以及许多调试工具，都是用钩子做出来的。不过，修改梯度的钩子会让反向传播的结果
偏离函数真正的导数，而这正是下一个工具能发现的问题。

## gradcheck：这个梯度对吗？

反向传播的梯度来自公式。**有限差分**则只用函数值来估计同一个导数：取一个很小的 ε，计算
`(f(x + ε) − f(x − ε)) / 2ε`。`agv.gradcheck(fn, inputs)` 在 float64 精度下（此时 ε = 1e-6 足够准确），
对每个需要梯度的输入的每个元素比较这两者：一致就返回 `True`，否则抛出 `GradcheckError`，并指出相差最大的元素。

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
not track (lesson 03): backward treats `sigmoid(x)` as a constant and misses the term `x · σ'(x)`. Nothing
complains, the values are right, and the gradient is silently wrong. gradcheck catches it:
""",
        """
再看一个有问题的版本。它算出的值完全一样，但它通过 `.data` 读取 sigmoid，而 autograd 不跟踪 `.data`（见第 03 课）：
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
**Exercise 1.** The second derivative of `tanh`: with `agv.grad` twice, compute `d2`, the second derivative of
`tanh(x)` at x = 0.5. (The formula, to compare with: `tanh'' = −2·tanh·(1 − tanh²)`.)
""",
        """
**练习 1.** `tanh` 的二阶导数：调用两次 `agv.grad`，算出 `tanh(x)` 在 x = 0.5 处的二阶导数，存为 `d2`。
（可以用公式 `tanh'' = −2·tanh·(1 − tanh²)` 来对照。）
""",
    ),
    *exercise(
        "08.1",
        answers=("d2",),
        solution="""
x = agv.tensor(0.5, dtype=agv.float64, requires_grad=True)
(d1,) = agv.grad(x.tanh(), x, create_graph=True)
(d2,) = agv.grad(d1, x)
print(d2)
""",
        check="""
import math

expected = -2 * math.tanh(0.5) * (1 - math.tanh(0.5) ** 2)
assert abs(float(d2) - expected) < 1e-5, (
    f"d2 = {float(d2):.6f}, expected {expected:.6f}: did the first agv.grad use create_graph=True?"
)
print("Correct:", round(expected, 6))
""",
    ),
    md(
        """
**Exercise 2.** A clipping hook. Make `w = agv.tensor([0.5, -3.0, 2.0], requires_grad=True)` and register a hook
on it that clamps its gradient to [−1, 1] (`grad.clamp(-1, 1)`). Call `(w**2).sum().backward()` and store
`w.grad.tolist()` as `clipped`. Then remove the hook, reset `w.grad = None`, run the same backward again and store
`w.grad.tolist()` as `after_removal`.
""",
        """
**练习 2.** 裁剪梯度的钩子。创建 `w = agv.tensor([0.5, -3.0, 2.0], requires_grad=True)`，在它上面注册一个钩子，
把梯度限制在 [−1, 1] 之内（`grad.clamp(-1, 1)`）。调用 `(w**2).sum().backward()`，把 `w.grad.tolist()` 存为
`clipped`。然后摘掉钩子，令 `w.grad = None`，再做一次同样的反向传播，把 `w.grad.tolist()` 存为 `after_removal`。
""",
    ),
    *exercise(
        "08.2",
        answers=("clipped", "after_removal"),
        solution="""
w = agv.tensor([0.5, -3.0, 2.0], requires_grad=True)
handle = w.register_hook(lambda grad: grad.clamp(-1, 1))
(w**2).sum().backward()
clipped = w.grad.tolist()
handle.remove()
w.grad = None
(w**2).sum().backward()
after_removal = w.grad.tolist()
print(clipped, after_removal)
""",
        check="""
assert clipped == [1.0, -1.0, 1.0], f"the gradient 2w = [1, -6, 4] clamped to [-1, 1] is [1, -1, 1], got {clipped}"
assert after_removal == [1.0, -6.0, 4.0], (
    f"after handle.remove() (and w.grad = None) backward should give 2w = [1, -6, 4], got {after_removal}"
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
