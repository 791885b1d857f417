"""Lesson 3: tensor attributes (requires_grad, no_grad, grad, grad_fn, is_leaf,
detach() versus .data, item() and tolist()).

    cd notebooks/src && ../../.venv/bin/python 03_tensor_attributes.py
"""

from lesson import build, code, exercise, md, setup

cells = [
    md(
        """
# Lesson 3 · Tensor attributes

A tensor is more than an array of numbers. It also carries the bookkeeping that autograd needs:
whether it wants a gradient, where its gradient is stored, which operation produced it, and a counter
of in-place changes. This lesson goes through these attributes one at a time:

| attribute | question it answers |
|---|---|
| `requires_grad` | should autograd track operations on this tensor? |
| `agv.no_grad()` | a block where nothing is tracked at all |
| `grad` | the gradient, once `backward()` has run |
| `grad_fn` | which operation made this tensor (and how to differentiate it) |
| `is_leaf` | did the user create it, or did an operation compute it? |
| `detach()` / `.data` | the same numbers, outside the graph: one safe, one not |
| `item()` / `tolist()` | plain Python numbers, for printing and logging |

As always, we fix the random seed so every number printed below is the same on every run. Terms such as
**leaf** and **in-place** are explained in the [glossary](../glossary.md).
""",
        """
# 第 3 课 · 张量的属性

张量不只是一组数字，它还带着自动求导所需的“账本”：它要不要梯度、梯度存在哪里、它是由哪个运算产生的，
以及一个记录原地修改次数的计数器。本课逐一讲解这些属性：

| 属性 | 它回答的问题 |
|---|---|
| `requires_grad` | 自动求导要不要追踪对这个张量的运算？ |
| `agv.no_grad()` | 一个完全不追踪任何运算的代码块 |
| `grad` | 梯度，调用 `backward()` 之后才有 |
| `grad_fn` | 这个张量由哪个运算产生（以及如何对它求导） |
| `is_leaf` | 它是用户直接创建的，还是运算算出来的？ |
| `detach()` / `.data` | 同样的数值，但脱离计算图：一个安全，一个不安全 |
| `item()` / `tolist()` | 普通的 Python 数字，方便打印和记录 |

和以往一样，我们先固定随机种子，这样下面打印的每个数字每次运行都完全相同。**叶子张量**、**原地操作**等术语
在[术语表](../glossary.md)中都有解释。
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
## `requires_grad`: opting in to gradients

Tensors you create yourself do **not** require gradients unless you ask, either when you create them
(`requires_grad=True`) or afterwards with `requires_grad_()`. Data such as `x` usually stays `False`;
parameters such as `w` are set to `True`.

The flag spreads forward: the result of an operation requires a gradient as soon as **any** of its inputs does.
""",
        """
## `requires_grad`：主动申请梯度

自己创建的张量默认**不**需要梯度，除非你明确要求：要么在创建时传入 `requires_grad=True`，
要么之后调用 `requires_grad_()`。像 `x` 这样的数据通常保持 `False`；像 `w` 这样的参数则设为 `True`。

这个标志会沿着运算向前传播：只要输入中**有任何一个**需要梯度，运算结果就需要梯度。
""",
    ),
    code(
        """
x = agv.tensor([1.0, 2.0, 3.0])
w = agv.tensor([0.5, -1.0, 2.0], requires_grad=True)
print("x:", x.requires_grad, " w:", w.requires_grad)

y = (w * x).sum()
print("y:", y.requires_grad, " (because w requires grad)")
print("x * 2:", (x * 2).requires_grad, " (no input requires grad)")
"""
    ),
    md(
        """
Only floating-point tensors can have gradients: a derivative is a rate of change, and integers cannot change
by a small amount. `agv.tensor([1, 2])` holds integers (int64), so asking it for gradients is an error:
""",
        """
只有浮点张量才能有梯度：导数描述的是微小变化带来的变化率，而整数无法做微小的变化。
`agv.tensor([1, 2])` 存的是整数（int64），所以给它申请梯度会报错：
""",
    ),
    code(
        """
try:
    agv.tensor([1, 2], requires_grad=True)
except RuntimeError as error:
    print("RuntimeError:", error)
"""
    ),
    md(
        """
## `grad`: empty until `backward()`

`w.grad` starts as `None`: no gradient has been computed yet. After `y.backward()` it holds
dy/dw. Since `y = w[0]*x[0] + w[1]*x[1] + w[2]*x[2]`, that derivative is just `x`.
(Calling `backward()` again would **add** to `w.grad`: lesson 2 shows this accumulation.)
""",
        """
## `grad`：在 `backward()` 之前是空的

`w.grad` 一开始是 `None`：还没有计算过任何梯度。调用 `y.backward()` 之后，它保存的是 dy/dw。
因为 `y = w[0]*x[0] + w[1]*x[1] + w[2]*x[2]`，这个导数正好就是 `x`。
（再次调用 `backward()` 会把新梯度**累加**到 `w.grad` 上，第 2 课专门讲了这种累加。）
""",
    ),
    code(
        """
print("before backward:", w.grad)
y.backward()
print("after backward: ", w.grad)
print("x has no gradient, it did not ask for one:", x.grad)
"""
    ),
    md(
        """
## `grad_fn` and `is_leaf`: where a tensor came from

Every tensor computed from something that requires grad remembers the operation that made it, in `grad_fn`.
That node knows the operation's derivative, and its `next_functions` point to the nodes of the inputs: together
they form the backward graph that `backward()` walks. A tensor made by the user has no `grad_fn`: it is a **leaf**.

Note that `x`, which does not require grad, is a leaf too. And only leaves that require grad get their `.grad`
filled in by `backward()`.
""",
        """
## `grad_fn` 和 `is_leaf`：张量从哪里来

凡是由需要梯度的张量计算出来的张量，都会在 `grad_fn` 中记住产生它的运算。这个节点知道该运算的导数，
它的 `next_functions` 指向各个输入对应的节点：这些节点连起来，就是 `backward()` 要遍历的反向图。
用户直接创建的张量没有 `grad_fn`，它是**叶子节点**。

注意，不需要梯度的 `x` 也是叶子节点。而且只有需要梯度的叶子节点，`backward()` 才会填写它的 `.grad`。
""",
    ),
    code(
        """
z = w * x
s = z.sum()
print("grad_fn: w", w.grad_fn, " z", z.grad_fn, " s", s.grad_fn)
print("is_leaf: w", w.is_leaf, " x", x.is_leaf, " z", z.is_leaf, " s", s.is_leaf)
print("s.grad_fn.next_functions:", s.grad_fn.next_functions)
print("z.grad_fn.next_functions:", z.grad_fn.next_functions)
"""
    ),
    md(
        """
`SumBackward0` leads to `MulBackward0`, which leads to `AccumulateGrad` (the node that writes `w.grad`) and to
`None` for `x`, which needs no gradient.

An intermediate tensor such as `z` does not keep its gradient: after backward, reading `z.grad` gives `None`
and a warning. Call `z.retain_grad()` before backward if you want to see it.
""",
        """
`SumBackward0` 指向 `MulBackward0`，后者再指向 `AccumulateGrad`（负责写入 `w.grad` 的节点），
而对应 `x` 的位置是 `None`，因为 `x` 不需要梯度。

像 `z` 这样的中间张量不会保留自己的梯度：反向传播之后读取 `z.grad` 只会得到 `None` 和一条警告。
如果想看到它，要在反向传播之前调用 `z.retain_grad()`。
""",
    ),
    code(
        """
import warnings

w.grad = None  # start from an empty gradient again (setting it to None is allowed)
z = w * x
s = z.sum()
s.backward()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print("z.grad:", z.grad)
print("warning:", str(caught[0].message).split(". ")[0])

z = w * x
z.retain_grad()
z.sum().backward()
print("with retain_grad, z.grad:", z.grad)
"""
    ),
    md(
        """
## `agv.no_grad()`: evaluating without building a graph

Recording the graph costs memory: each operation keeps a backward node and the values its derivative will need.
When you only want a result (evaluating a model, printing a prediction, updating parameters), switch recording
off with `with agv.no_grad():`. Inside the block, results have `requires_grad=False` and no `grad_fn`, even when
their inputs require gradients.
""",
        """
## `agv.no_grad()`：求值时不构建计算图

记录计算图是要占内存的：每个运算都要保存一个反向节点，以及求导时要用到的数值。
如果你只想得到结果（评估模型、打印预测值、更新参数），就用 `with agv.no_grad():` 关闭记录。
在这个代码块里，即使输入需要梯度，运算结果也是 `requires_grad=False`，并且没有 `grad_fn`。
""",
    ),
    code(
        """
with agv.no_grad():
    prediction = (w * x).sum()
    print("inside no_grad, recording is on?", agv.is_grad_enabled())
print("prediction:", prediction, " requires_grad:", prediction.requires_grad, " grad_fn:", prediction.grad_fn)
print("outside no_grad, recording is on?", agv.is_grad_enabled())
"""
    ),
    md(
        """
`no_grad` also works as a decorator, which suits an evaluation function:
""",
        """
`no_grad` 也可以当作装饰器使用，很适合用在评估函数上：
""",
    ),
    code(
        """
@agv.no_grad()
def evaluate(weights, inputs):
    return (weights * inputs).sum()


print(evaluate(w, x).requires_grad)
"""
    ),
    md(
        """
## `detach()` versus `.data`

Both give you a tensor that holds **the same storage** as the original, outside the graph: no `grad_fn`,
`requires_grad=False`, and no copy of the numbers. The difference is what happens when you change that tensor in place.

Our example is a sigmoid. Its derivative is `sigmoid(a) * (1 - sigmoid(a))`, so its backward node saves its own
**output** `out` to use later. First, the right answer, computed before anything goes wrong:
""",
        """
## `detach()` 与 `.data` 的区别

两者都会返回一个与原张量**共享同一块存储**、但脱离计算图的张量：没有 `grad_fn`，`requires_grad=False`，
也不会复制数据。区别在于：当你原地修改这个张量时会发生什么。

我们用 sigmoid 做例子。它的导数是 `sigmoid(a) * (1 - sigmoid(a))`，所以它的反向节点会把自己的**输出** `out`
保存下来留待求导时使用。先在一切正常时算出正确答案：
""",
    ),
    code(
        """
a = agv.tensor([1.0, 2.0, 3.0], requires_grad=True)
out = a.sigmoid()
right = (out * (1 - out)).detach()  # d sigmoid(a) / da
print("out:       ", out)
print("right grad:", right)
"""
    ),
    md(
        """
### `detach()`: shares the storage *and* the version counter

Every tensor has a version counter (`.version`) that in-place operations increase. A tensor from `detach()`
shares it with the original. Zeroing the detached tensor in place therefore zeroes `out` too (same storage),
and both counters now read 1:
""",
        """
### `detach()`：共享存储，也共享版本计数器

每个张量都有一个版本计数器（`.version`），原地操作会让它加一。`detach()` 得到的张量与原张量共享这个计数器。
所以把 detach 出来的张量原地清零，`out` 也会跟着变成零（因为存储是同一块），并且两个计数器都变成了 1：
""",
    ),
    code(
        """
c = out.detach()
print("detached:", c.requires_grad, c.grad_fn)
print("versions before:", out.version, c.version)
c.zero_()
print("versions after: ", out.version, c.version)
print("out is now:", out)
"""
    ),
    md(
        """
When the sigmoid node saved `out`, it also noted its version: 0. Now backward finds version 1, knows the saved
value has been overwritten, and refuses to compute with it. The error is the same as PyTorch's:
`one of the variables needed for gradient computation has been modified by an inplace operation`,
with the expected and the found version.
""",
        """
sigmoid 节点保存 `out` 时，也记下了它当时的版本号：0。现在反向传播发现版本号变成了 1，
于是知道保存的值已被改写，拒绝用它计算。报错信息与 PyTorch 的一致：
`one of the variables needed for gradient computation has been modified by an inplace operation`，
并给出期望的版本号和实际的版本号。
""",
    ),
    code(
        """
out.sum().backward()
""",
        "raises-exception",
    ),
    md(
        """
The error is a good outcome: nothing was computed with a corrupted value, and `a.grad` is still empty.

Source tour: `Tensor.detach` in [autogradviz/core/tensor.py](../../autogradviz/core/tensor.py) hands the new tensor
the original's version counter (`version_counter()`); the check that raised is `Node.unpack_saved` in
[autogradviz/core/graph.py](../../autogradviz/core/graph.py), which compares each saved value's counter with the
version it noted when saving.
""",
        """
报错其实是好结果：没有任何计算用到被破坏的值，`a.grad` 仍然是空的。

源码导览：[autogradviz/core/tensor.py](../../autogradviz/core/tensor.py) 中的 `Tensor.detach` 把原张量的版本计数器
（`version_counter()`）交给新张量；抛出这个错误的检查是 [autogradviz/core/graph.py](../../autogradviz/core/graph.py)
中的 `Node.unpack_saved`，它把每个保存值的计数器与保存时记下的版本号进行比较。
""",
    ),
    code(
        """
print(a.grad)
"""
    ),
    md(
        """
### `.data`: shares the storage, but not the counter

Now the same steps with `.data`. It also shares the storage, but it has a version counter of its own (see the
property `Tensor.data` in the same file), so autograd never hears about the change:
""",
        """
### `.data`：共享存储，但不共享计数器

现在用 `.data` 重复同样的步骤。它同样共享存储，但拥有自己独立的版本计数器（见同一文件中的属性 `Tensor.data`），
所以自动求导根本察觉不到这次修改：
""",
    ),
    code(
        """
a = agv.tensor([1.0, 2.0, 3.0], requires_grad=True)
out = a.sigmoid()
c = out.data
c.zero_()
print("versions:", out.version, c.version, " (out still says 0)")

out.sum().backward()  # no error...
print("wrong grad:", a.grad)
print("right grad:", right)
"""
    ),
    md(
        """
No error, and a **silently wrong** gradient. Backward computed `out * (1 - out)` from the saved `out`,
which `.data` had overwritten with zeros, so every gradient came out as 0 instead of about 0.197, 0.105 and 0.045.
In a real model this does not crash: the model just trains badly, and the cause is very hard to find.

**Prefer `detach()`.** If you need a copy you are free to change, use `detach().clone()`: new storage,
so the graph is not affected at all. You will still meet `.data` in older code, for example in the
hand-written parameter updates of lesson 4.
""",
        """
没有报错，却得到了一个**悄无声息的错误**梯度。反向传播用保存的 `out` 计算 `out * (1 - out)`，
而 `out` 已经被 `.data` 改写成了零，所以梯度全部变成 0，而不是大约 0.197、0.105 和 0.045。
在真实的模型里，这种错误不会让程序崩溃：模型只是训练得很差，而且原因极难排查。

**优先使用 `detach()`。** 如果你需要一个可以随意修改的副本，请用 `detach().clone()`：它有新的存储，
完全不会影响计算图。在较老的代码中你仍会见到 `.data`，例如第 4 课里手写的参数更新。
""",
    ),
    md(
        """
## `item()` and `tolist()`: back to plain Python

`item()` turns a tensor with exactly one element into a Python number. Use it whenever you log a loss:
`loss.item()` is a plain `float`, which prints cleanly and does not keep the loss's graph alive in your history list.
`tolist()` does the same for a tensor of any shape, giving nested lists.
""",
        """
## `item()` 和 `tolist()`：回到普通的 Python 数值

`item()` 把只含一个元素的张量变成 Python 数字。记录损失时应当用它：`loss.item()` 是普通的 `float`，
打印起来干净，而且放进历史记录列表时不会让损失的计算图一直占着内存。
`tolist()` 对任意形状的张量做同样的事，返回嵌套的列表。
""",
    ),
    code(
        """
loss = ((w * x).sum() - 1.0) ** 2
print(loss)
print(loss.item(), type(loss.item()).__name__)
print(w.tolist(), type(w.tolist()).__name__)
print(agv.tensor([[1, 2], [3, 4]]).tolist())
"""
    ),
    md(
        """
`item()` on a tensor with more than one element is an error: there is no single number to return.
""",
        """
对含有多个元素的张量调用 `item()` 会报错：没有唯一的数字可以返回。
""",
    ),
    code(
        """
try:
    w.item()
except RuntimeError as error:
    print("RuntimeError:", error)
"""
    ),
    md(
        """
## A note on `Variable`

Tutorials written for PyTorch before version 0.4 (2018) wrap every tensor in a `Variable`:

```python
from torch.autograd import Variable
w = Variable(torch.randn(2, 1), requires_grad=True)   # old style
```

In 0.4 `Variable` was merged into `Tensor`: a tensor has `requires_grad`, `grad` and `grad_fn` itself, and
`Variable(t)` simply returns a tensor. Write `torch.randn(2, 1, requires_grad=True)` instead. autogradviz has no
`Variable` at all. The old name survives only in a few error messages, such as this one, which you get when
you change a parameter in place while its operations are being recorded:
""",
        """
## 关于 `Variable`

为 PyTorch 0.4 版本（2018 年）之前写的教程，会把每个张量都包进 `Variable`：

```python
from torch.autograd import Variable
w = Variable(torch.randn(2, 1), requires_grad=True)   # 旧写法
```

在 0.4 版本中，`Variable` 已经并入 `Tensor`：张量自己就有 `requires_grad`、`grad` 和 `grad_fn`，
`Variable(t)` 只是原样返回一个张量。现在应直接写 `torch.randn(2, 1, requires_grad=True)`。
autogradviz 根本没有 `Variable`。这个旧名字只残留在少数报错信息里，比如下面这条：
在记录运算的状态下原地修改参数时就会遇到它。
""",
    ),
    code(
        """
try:
    w -= 0.1 * w.grad
except RuntimeError as error:
    print("RuntimeError:", error)
"""
    ),
    md(
        """
The message also names the two ways out, which lesson 4 uses: do the update inside `agv.no_grad()`, or through `.data`.

## Summary

- `requires_grad` marks what autograd tracks; it spreads from inputs to results.
- `agv.no_grad()` turns tracking off: for evaluation and for updates.
- `grad` is `None` until the first `backward()`; only leaves that require grad receive one.
- `grad_fn` is the node that made a tensor; leaves have none (`is_leaf` is `True`).
- `detach()` and `.data` share storage; only `detach()` shares the version counter, so only it makes a bad
  in-place change fail loudly. Prefer `detach()`, and `detach().clone()` for a copy you will modify.
- `item()` and `tolist()` give plain Python values, e.g. `loss.item()` for logging.
""",
        """
这条信息也指出了两条出路，第 4 课都会用到：在 `agv.no_grad()` 里做更新，或者通过 `.data` 更新。

## 小结

- `requires_grad` 标记自动求导要追踪的张量；它会从输入传播到结果。
- `agv.no_grad()` 关闭追踪：用于评估和参数更新。
- 在第一次 `backward()` 之前，`grad` 是 `None`；只有需要梯度的叶子节点才会得到梯度。
- `grad_fn` 是产生该张量的节点；叶子节点没有 `grad_fn`（`is_leaf` 为 `True`）。
- `detach()` 和 `.data` 都共享存储；只有 `detach()` 共享版本计数器，因此只有它能让错误的原地修改明确报错。
  优先使用 `detach()`；需要一个可修改的副本时用 `detach().clone()`。
- `item()` 和 `tolist()` 返回普通的 Python 值，例如记录日志时用 `loss.item()`。
""",
    ),
    md(
        """
## Exercises

### Exercise 1: predict the attributes

Without running it first, predict `requires_grad` and `is_leaf` for each tensor below:

```python
p = agv.ones(3, requires_grad=True)
q = p * 2
r = q.detach()
with agv.no_grad():
    s = p * 3
t = r * p
```

Write your answer as a dict `predictions` that maps each name to a pair `(requires_grad, is_leaf)`,
for example `"p": (True, True)`. The check cell runs the code and compares.
""",
        """
## 练习

### 练习 1：预测属性

先不要运行，预测下面每个张量的 `requires_grad` 和 `is_leaf`：

```python
p = agv.ones(3, requires_grad=True)
q = p * 2
r = q.detach()
with agv.no_grad():
    s = p * 3
t = r * p
```

把答案写成一个字典 `predictions`，把每个名字映射到一个二元组 `(requires_grad, is_leaf)`，
例如 `"p": (True, True)`。检查单元格会运行这段代码并与你的答案比较。
""",
    ),
    *exercise(
        "03.1",
        answers=("predictions",),
        solution="""
predictions = {
    "p": (True, True),  # created by the user, with requires_grad=True
    "q": (True, False),  # computed from p
    "r": (False, True),  # detach() leaves the graph: a new leaf
    "s": (False, True),  # made under no_grad: nothing was recorded
    "t": (True, False),  # p requires grad, so t does too
}
""",
        check="""
p = agv.ones(3, requires_grad=True)
q = p * 2
r = q.detach()
with agv.no_grad():
    s = p * 3
t = r * p
actual = {name: (v.requires_grad, v.is_leaf) for name, v in dict(p=p, q=q, r=r, s=s, t=t).items()}
for name, pair in actual.items():
    assert predictions.get(name) == pair, f"{name}: you said {predictions.get(name)}, it is {pair} (requires_grad, is_leaf)"
print("all five right")
""",
    ),
    md(
        """
### Exercise 2: a copy you may change

Make `a2 = agv.tensor([0.0, 1.0, -1.0], requires_grad=True)` and `out2 = a2.sigmoid()`.
Then make a tensor `snapshot` with the values of `out2`, zero it in place with `snapshot.zero_()`,
and call `out2.sum().backward()`. Choose `snapshot` so that backward neither fails nor gives a wrong `a2.grad`.
""",
        """
### 练习 2：一个可以修改的副本

创建 `a2 = agv.tensor([0.0, 1.0, -1.0], requires_grad=True)` 和 `out2 = a2.sigmoid()`。
然后创建一个与 `out2` 数值相同的张量 `snapshot`，用 `snapshot.zero_()` 把它原地清零，
再调用 `out2.sum().backward()`。请选择合适的方式创建 `snapshot`，使反向传播既不报错，`a2.grad` 也不出错。
""",
    ),
    *exercise(
        "03.2",
        answers=("a2", "out2", "snapshot"),
        solution="""
a2 = agv.tensor([0.0, 1.0, -1.0], requires_grad=True)
out2 = a2.sigmoid()
snapshot = out2.detach().clone()  # new storage: changing it cannot touch out2
snapshot.zero_()
out2.sum().backward()
""",
        check="""
import math

assert snapshot.tolist() == [0.0, 0.0, 0.0], "snapshot should hold zeros after snapshot.zero_()"
sig = [1 / (1 + math.exp(-v)) for v in a2.tolist()]
assert all(abs(o - e) < 1e-6 for o, e in zip(out2.tolist(), sig)), (
    "out2 changed: snapshot shares out2's storage (detach() and .data do); copy it with .clone()"
)
assert a2.grad is not None, "call out2.sum().backward()"
assert all(abs(g - e * (1 - e)) < 1e-6 for g, e in zip(a2.grad.tolist(), sig)), (
    f"a2.grad is wrong: {a2.grad.tolist()}"
)
print("a2.grad =", [round(g, 4) for g in a2.grad.tolist()])
""",
    ),
    md(
        """
### Exercise 3: a loss history of plain floats

Minimise `f = (x - 3) ** 2` by gradient descent, starting from `x = agv.tensor(0.0, requires_grad=True)`,
with learning rate 0.25 and 5 steps. In each step: compute `f`, append its value **as a Python float** to a list
`history`, call `backward()`, update `x` inside `agv.no_grad()`, and zero (or reset) `x.grad`.
""",
        """
### 练习 3：由普通浮点数组成的损失记录

用梯度下降最小化 `f = (x - 3) ** 2`，初始值为 `x = agv.tensor(0.0, requires_grad=True)`，学习率 0.25，共 5 步。
每一步：计算 `f`，把它的值**以 Python 浮点数的形式**追加到列表 `history` 中，调用 `backward()`，
在 `agv.no_grad()` 里更新 `x`，然后把 `x.grad` 清零（或重置）。
""",
    ),
    *exercise(
        "03.3",
        answers=("history",),
        solution="""
x = agv.tensor(0.0, requires_grad=True)
history = []
for step in range(5):
    f = (x - 3) ** 2
    history.append(f.item())
    f.backward()
    with agv.no_grad():
        x -= 0.25 * x.grad
    x.grad = None
""",
        check="""
assert len(history) == 5, f"5 steps, 5 values: history has {len(history)}"
assert all(type(v) is float for v in history), "store f.item(), a float, not the tensor f"
# each step moves x halfway to 3 (x - 0.25 * 2 * (x - 3)), so each loss is a quarter of the one before
expected = [9.0 / 4**k for k in range(5)]
assert all(abs(v - e) < 1e-6 for v, e in zip(history, expected)), (
    f"expected {expected}, got {history}: record f before the update, and clear x.grad after it"
)
print(history)
""",
    ),
]

if __name__ == "__main__":
    for path in build(3, "tensor_attributes", cells):
        print("wrote", path)
