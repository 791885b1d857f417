"""Lesson 04: logistic regression by hand (model, loss, hand-written SGD, loss
curve, decision boundary, and why w.grad.zero_() fails before the first backward).

    cd notebooks/src && ../../.venv/bin/python 04_logistic_regression.py
"""

from lesson import build, code, exercise, md, setup

cells = [
    md(
        """
# Lesson 4: Logistic regression by hand

In this lesson we train a model with nothing but tensors and autograd: no layers, no optimizer, no loss function
from a library. We write each piece ourselves: the model, the loss, the gradient step and the training loop.
It is the loop that `torch.optim` and `nn.Module` later hide, so it is worth seeing once in full.

Along the way we answer a question that hand-written loops run into: why does `w.grad.zero_()` fail if you call it
before the first `backward()`?
""",
        """
# 第 4 课：手写逻辑回归

本课只用张量和自动求导来训练一个模型：不用网络层，不用优化器，也不用库里现成的损失函数。
模型、损失、梯度下降的一步以及训练循环，全都由我们自己来写。以后 `torch.optim` 和 `nn.Module`
会把这个循环藏起来，所以值得完整地看一遍。

途中我们还会回答手写训练循环时常遇到的一个问题：为什么在第一次 `backward()` 之前调用
`w.grad.zero_()` 会出错？
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
## The data

Four points with two features each, and a label for each point. Look closely: the label is 1 exactly when the
second feature is 0, so a straight line can separate the two classes. Labels are floats, because the loss
below does arithmetic with them.
""",
        """
## 数据

四个样本，每个有两个特征，外加一个标签。仔细看：当且仅当第二个特征为 0 时，标签为 1，
所以一条直线就能把两类分开。标签用浮点数表示，因为下面的损失要用它们做算术运算。
""",
    ),
    code(
        """
x_t = agv.tensor([[1.0, 1.0], [1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
y_t = agv.tensor([[0.0], [1.0], [0.0], [1.0]])
print(x_t.shape, x_t.dtype, "|", y_t.shape, y_t.dtype)
"""
    ),
    md(
        """
## The parameters

A weight per feature and one bias. They are leaves that require gradients: `w` starts random, `b` at zero.
""",
        """
## 参数

每个特征一个权重，再加一个偏置。它们都是需要梯度的叶子节点：`w` 随机初始化，`b` 从零开始。
""",
    ),
    code(
        """
w = agv.randn([2, 1], requires_grad=True)
b = agv.zeros(1, requires_grad=True)
print(w)
print(b)
"""
    ),
    md(
        """
## The model and the loss

The model computes a score `x @ w + b` for each point and squashes it with the sigmoid into a number between
0 and 1: the predicted probability that the label is 1.

The loss is the **binary cross-entropy**, `-mean(y*log(p) + (1-y)*log(1-p))`. For a point with label 1 only
`-log(p)` counts, which is small when `p` is near 1; for label 0 only `-log(1-p)` counts. So the loss is low when
the model gives the right class a high probability.
""",
        """
## 模型和损失

模型先为每个样本算出一个分数 `x @ w + b`，再用 sigmoid 把它压缩到 0 和 1 之间：
这就是模型预测的"标签为 1 的概率"。

损失是**二元交叉熵**：`-mean(y*log(p) + (1-y)*log(1-p))`。标签为 1 的样本只有 `-log(p)` 这一项起作用，
`p` 越接近 1 它越小；标签为 0 的样本只有 `-log(1-p)` 起作用。所以当模型给正确类别的概率越高，损失就越低。
""",
    ),
    code(
        """
def model(x):
    return agv.sigmoid(agv.matmul(x, w) + b)


def bce(y_p, y):
    return -agv.mean(y * agv.log(y_p) + (1 - y) * agv.log(1 - y_p))


y_p = model(x_t)
loss = bce(y_p, y_t)
print(y_p)
print(loss)
"""
    ),
    md(
        """
With a random `w` every probability is close to 0.5: the model has learned nothing yet. Here is the graph that
`backward()` will walk back through, from `loss` to the two parameters:
""",
        """
由于 `w` 是随机的，每个概率都接近 0.5：模型还什么都没学到。下面是 `backward()` 将要反向遍历的计算图，
从 `loss` 一直回到两个参数：
""",
    ),
    code(
        """
agv.draw(loss, names=locals())
"""
    ),
    md(
        """
## Zeroing gradients first? Not yet

Gradients accumulate, so every training step must clear the old ones (lesson 2). A natural first attempt puts
`w.grad.zero_()` at the top of the loop. Try it on our fresh parameters:
""",
        """
## 先把梯度清零？现在还不行

梯度会累加，所以每个训练步都要先清掉旧的梯度（见第 2 课）。很自然的第一个写法是把
`w.grad.zero_()` 放在循环的开头。在刚创建的参数上试一试：
""",
    ),
    code(
        """
print("w.grad:", w.grad)
try:
    w.grad.zero_()
except AttributeError as error:
    print("AttributeError:", error)
"""
    ),
    md(
        """
This is the tutorial's open question, and the answer is lesson 3's: **`grad` is `None` until the first
`backward()`**. There is no gradient tensor yet to fill with zeros, and `None` has no `zero_()` method.
The first `backward()` creates `w.grad`; later calls add into it.

The tutorial avoided the error by doing one full step (backward and update) before the loop, so that the
gradients exist by the time the loop zeroes them. We do the same here; cleaner ways follow after training.
""",
        """
这正是教程中遗留的那个问题，答案就在第 3 课：**在第一次 `backward()` 之前，`grad` 是 `None`**。
此时还没有可以填零的梯度张量，而 `None` 没有 `zero_()` 方法。第一次 `backward()` 会创建 `w.grad`，
之后的调用再往里累加。

教程的做法是在循环开始前先完整地走一步（反向传播并更新），这样等循环去清零时，梯度已经存在了。
我们这里也这样做；训练结束后再介绍更干净的写法。
""",
    ),
    code(
        """
loss.backward()
print("w.grad:", w.grad)
print("b.grad:", b.grad)

w.data = w.data - 1e-2 * w.grad.data
b.data = b.data - 1e-2 * b.grad.data
print("w after one step:", w)
"""
    ),
    md(
        """
## Why the update goes through `.data`

The update must change the numbers inside `w` without being recorded in the graph, and `w` must stay the same
leaf tensor. Writing `w = w - 1e-2 * w.grad` would fail on both counts: it builds a new tensor with a `grad_fn`,
a non-leaf whose `.grad` the next `backward()` would not fill. Assigning to `w.data` replaces the values behind
`w` and leaves everything else alone.

`.data` is safe here because no graph still needs the old values of `w` (lesson 3 showed where it is dangerous).
The modern spelling, which you will also see, is an in-place update with recording switched off:

```python
with agv.no_grad():
    w -= 1e-2 * w.grad
```
""",
        """
## 为什么通过 `.data` 来更新

更新必须改变 `w` 里面的数值，但不能被记录进计算图，而且 `w` 必须仍然是同一个叶子张量。
如果写成 `w = w - 1e-2 * w.grad`，这两点都做不到：它会生成一个带 `grad_fn` 的新张量，
这是一个非叶子节点，下一次 `backward()` 不会填写它的 `.grad`。给 `w.data` 赋值则只替换 `w` 背后的数值，
其他一切保持不变。

这里用 `.data` 是安全的，因为已经没有哪个计算图还需要 `w` 的旧值（第 3 课展示了它危险的场合）。
更现代的写法是在关闭记录的情况下原地更新，你也会经常见到：

```python
with agv.no_grad():
    w -= 1e-2 * w.grad
```
""",
    ),
    md(
        """
## Training: 10,000 epochs

Each epoch: zero both gradients, compute the loss, `backward()`, update. We keep every loss as a plain float
with `loss.item()` for the plot, and print it every 500 epochs.
""",
        """
## 训练：10,000 轮

每一轮：把两个梯度清零，计算损失，调用 `backward()`，更新参数。我们用 `loss.item()` 把每一轮的损失
存成普通的浮点数，用于之后画图，并且每 500 轮打印一次。
""",
    ),
    code(
        """
history = []
for epoch in range(10_000):
    w.grad.zero_()
    b.grad.zero_()
    loss = bce(model(x_t), y_t)
    loss.backward()
    w.data = w.data - 1e-2 * w.grad.data
    b.data = b.data - 1e-2 * b.grad.data
    history.append(loss.item())
    if epoch % 500 == 0:
        print(f"epoch {epoch:5d}  loss {loss.item():.4f}")
print(f"final loss {history[-1]:.4f}")
"""
    ),
    md(
        """
The loss falls smoothly, fast at first and then more and more slowly. (The tutorial's run went from about 0.94 to
about 0.059; it started from a different random `w`, so its first numbers differ from ours.)
""",
        """
损失平稳下降：一开始降得快，之后越来越慢。（教程中的那次运行从约 0.94 降到约 0.059；
它的 `w` 随机初始值与我们不同，所以开头的数字也不一样。）
""",
    ),
    code(
        """
agv.plot.loss_curve(history, xlabel="epoch", title="Logistic regression: training loss")
"""
    ),
    md(
        """
## What the model learned

After training, the predicted probabilities are close to the labels: near 1 for the two points whose second
feature is 0, near 0 for the other two. We evaluate inside `agv.no_grad()`, since no gradient is needed.
""",
        """
## 模型学到了什么

训练之后，预测概率已经接近标签：第二个特征为 0 的两个点接近 1，另外两个点接近 0。
我们在 `agv.no_grad()` 中求值，因为这里不需要梯度。
""",
    ),
    code(
        """
with agv.no_grad():
    probs = model(x_t)
for point, p, y in zip(x_t.tolist(), probs.tolist(), y_t.tolist()):
    print(f"x = {point}  P(y=1) = {p[0]:.3f}  label = {y[0]:.0f}")
print("w =", [round(v, 3) for v in w.detach().flatten().tolist()], " b =", round(b.item(), 3))
"""
    ),
    md(
        """
## The decision boundary

The model predicts class 1 when `P(y=1) > 0.5`, that is when the score `w1*x1 + w2*x2 + b` is positive. The points
where the score is exactly 0 form a straight line, the **decision boundary**. The picture colours the plane by the
predicted probability and draws the line where it equals 0.5. The large negative `w2` makes the boundary almost
horizontal: the model has found that the second feature decides the label.
""",
        """
## 决策边界

当 `P(y=1) > 0.5`，也就是分数 `w1*x1 + w2*x2 + b` 为正时，模型预测为类别 1。分数恰好为 0 的点构成一条直线，
这就是**决策边界**。下图按预测概率给平面着色，并画出概率等于 0.5 的那条线。
由于 `w2` 是一个很大的负数，边界几乎是水平的：模型发现了决定标签的是第二个特征。
""",
    ),
    code(
        """
import numpy as np


def plot_boundary(w, b, x, y):
    # probabilities on a grid over the plane, computed without a graph
    g1, g2 = np.meshgrid(np.linspace(-0.5, 1.5, 201), np.linspace(-0.5, 1.5, 201))
    grid = agv.tensor(np.stack([g1.ravel(), g2.ravel()], axis=1), dtype=agv.float32)
    with agv.no_grad():
        p = agv.sigmoid(agv.matmul(grid, w) + b).numpy().reshape(g1.shape)

    # agv.plot.InlineFigure: a matplotlib Figure that the notebook shows, no pyplot needed
    fig = agv.plot.InlineFigure(figsize=(5.5, 4.5), layout="constrained")
    ax = fig.add_subplot()
    filled = ax.contourf(g1, g2, p, levels=np.linspace(0, 1, 11), cmap="RdBu_r", alpha=0.75)
    fig.colorbar(filled, ax=ax, label="P(y=1)")
    ax.contour(g1, g2, p, levels=[0.5], colors="black", linewidths=2)
    points, labels = x.numpy(), y.numpy().ravel()
    for label, marker in ((0, "o"), (1, "s")):
        chosen = points[labels == label]
        ax.scatter(chosen[:, 0], chosen[:, 1], marker=marker, s=120, edgecolors="black", label=f"label {label}")
    ax.set_xlabel("x1")
    ax.set_ylabel("x2")
    ax.set_title("Decision boundary: P(y=1) = 0.5")
    ax.legend(loc="upper right")
    return fig


plot_boundary(w.detach(), b.detach(), x_t, y_t)
"""
    ),
    md(
        """
## The open question, answered

Why did `w.grad.zero_()` fail before the first `backward()`? Because `w.grad` is `None` until a backward pass has
created it. Three ways to write a loop that never trips over it:

1. **Backward once first**, as the tutorial and our training above did: one step before the loop.
2. **Check first**: `if w.grad is not None: w.grad.zero_()`. PyTorch's `optimizer.zero_grad()` does exactly this,
   skipping parameters that have no gradient yet.
3. **Reset to `None` instead of zeroing**: after each update write `w.grad = None`. The next `backward()` then
   creates a fresh gradient instead of adding to an old one. Since PyTorch 2.0 this is what
   `optimizer.zero_grad()` does by default (`set_to_none=True`), because it skips writing zeros.

A fourth ordering also works: zero the gradient **after** the update, at the end of each step, rather than
before the backward.
""",
        """
## 遗留问题的解答

为什么在第一次 `backward()` 之前 `w.grad.zero_()` 会失败？因为在反向传播创建梯度之前，`w.grad` 一直是 `None`。
有三种写法可以让训练循环永远不会踩到这个坑：

1. **先反向传播一次**：就像教程和我们上面的训练那样，在循环之前先走一步。
2. **先检查再清零**：`if w.grad is not None: w.grad.zero_()`。PyTorch 的 `optimizer.zero_grad()`
   正是这样做的，会跳过还没有梯度的参数。
3. **重置为 `None` 而不是清零**：每次更新后写 `w.grad = None`。下一次 `backward()` 会新建一个梯度，
   而不是累加到旧梯度上。从 PyTorch 2.0 起，`optimizer.zero_grad()` 默认就是这样做的（`set_to_none=True`），
   因为这样可以省去写零的开销。

还有第四种顺序也可以：不在反向传播之前清零，而是在每一步的最后、更新之后再清零。
""",
    ),
    md(
        """
## Exercises

### Exercise 1: accuracy

Compute the model's accuracy on the four points as a Python float `accuracy`: the fraction of points where the
predicted class (1 if `P(y=1) > 0.5`, else 0) equals the label. Compute it inside `agv.no_grad()`.
""",
        """
## 练习

### 练习 1：准确率

计算模型在这四个样本上的准确率，结果存为 Python 浮点数 `accuracy`：即预测类别（`P(y=1) > 0.5` 时为 1，
否则为 0）与标签相同的样本所占的比例。请在 `agv.no_grad()` 中计算。
""",
    ),
    *exercise(
        "04.1",
        answers=("accuracy",),
        solution="""
with agv.no_grad():
    predicted = (model(x_t) > 0.5).float()
    accuracy = (predicted == y_t).float().mean().item()
""",
        check="""
assert type(accuracy) is float, f"accuracy should be a Python float (use .item()), not {type(accuracy).__name__}"
assert 0.0 <= accuracy <= 1.0, "accuracy is a fraction between 0 and 1"
assert accuracy == 1.0, f"the trained model classifies all four points correctly, but accuracy = {accuracy}"
print("accuracy:", accuracy)
""",
    ),
    md(
        """
### Exercise 2: a point on the boundary

On the decision boundary the score `w1*x1 + w2*x2 + b` is 0. Using the trained `w` and `b`, find the value
`x2_on_boundary` (a Python float) where the boundary crosses the vertical line `x1 = 0.5`.
""",
        """
### 练习 2：边界上的一个点

在决策边界上，分数 `w1*x1 + w2*x2 + b` 等于 0。利用训练好的 `w` 和 `b`，求出决策边界与竖直线 `x1 = 0.5`
交点处的 `x2_on_boundary`（一个 Python 浮点数）。
""",
    ),
    *exercise(
        "04.2",
        answers=("x2_on_boundary",),
        solution="""
w1, w2 = w.detach().flatten().tolist()
x2_on_boundary = -(w1 * 0.5 + b.item()) / w2  # solve w1*0.5 + w2*x2 + b = 0 for x2
""",
        check="""
assert isinstance(x2_on_boundary, float), "x2_on_boundary should be a Python float"
with agv.no_grad():
    p_there = model(agv.tensor([[0.5, x2_on_boundary]])).item()
assert abs(p_there - 0.5) < 1e-3, f"at (0.5, {x2_on_boundary:.3f}) the model says P(y=1) = {p_there:.3f}, not 0.5"
print(f"the boundary crosses x1 = 0.5 at x2 = {x2_on_boundary:.3f}")
""",
    ),
    md(
        """
### Exercise 3: a loop with no extra first step

Train new parameters `w_new` and `b_new` from scratch: call `agv.manual_seed(0)`, then make them exactly as in the lesson
(`randn([2, 1])` and `zeros(1)`, both requiring gradients), so `w_new` starts where `w` did. Train for 10,000 epochs
**without** the extra first step: start each epoch straight away with the loss and `backward()`, update inside
`agv.no_grad()`, and then reset both gradients to `None`. Store the last epoch's loss as a Python float `final_loss`.
(Inside the loop, compute the model as `agv.sigmoid(agv.matmul(x_t, w_new) + b_new)`: `model()` uses `w` and `b`.)
""",
        """
### 练习 3：不需要额外第一步的训练循环

从头训练新的参数 `w_new` 和 `b_new`：先调用 `agv.manual_seed(0)`，然后按照本课完全相同的方式创建它们
（`randn([2, 1])` 和 `zeros(1)`，都需要梯度），这样 `w_new` 的起点与 `w` 相同。训练 10,000 轮，
**不要**额外的第一步：每一轮直接计算损失并调用 `backward()`，在 `agv.no_grad()` 中更新参数，
然后把两个梯度都重置为 `None`。把最后一轮的损失存为 Python 浮点数 `final_loss`。
（在循环中请用 `agv.sigmoid(agv.matmul(x_t, w_new) + b_new)` 计算模型输出：`model()` 用的是 `w` 和 `b`。）
""",
    ),
    *exercise(
        "04.3",
        answers=("w_new", "b_new", "final_loss"),
        solution="""
agv.manual_seed(0)
w_new = agv.randn([2, 1], requires_grad=True)
b_new = agv.zeros(1, requires_grad=True)
for epoch in range(10_000):
    loss_new = bce(agv.sigmoid(agv.matmul(x_t, w_new) + b_new), y_t)
    loss_new.backward()
    with agv.no_grad():
        w_new -= 1e-2 * w_new.grad
        b_new -= 1e-2 * b_new.grad
    w_new.grad = None  # the next backward() creates a fresh gradient
    b_new.grad = None
final_loss = loss_new.item()
""",
        check="""
assert w_new.is_leaf and w_new.requires_grad and b_new.is_leaf and b_new.requires_grad, (
    "w_new and b_new must stay leaves that require grad: update them in place under agv.no_grad()"
)
assert type(final_loss) is float, "final_loss should be a Python float (use .item())"
with agv.no_grad():
    p_new = agv.sigmoid(agv.matmul(x_t, w_new) + b_new)
    loss_now = (-agv.mean(y_t * agv.log(p_new) + (1 - y_t) * agv.log(1 - p_new))).item()
assert abs(loss_now - final_loss) < 1e-3, f"final_loss = {final_loss:.4f}, but w_new and b_new give {loss_now:.4f}"
assert final_loss < 0.06, f"after 10,000 epochs at lr 1e-2 the loss should be below 0.06, not {final_loss:.4f}"
print(f"final loss {final_loss:.4f}")
""",
    ),
]

if __name__ == "__main__":
    for path in build(4, "logistic_regression", cells):
        print("wrote", path)
