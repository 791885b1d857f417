"""Lesson 4: logistic regression by hand (model, loss, the gradient derived by hand
and stepped through, hand-written SGD from the tutorial's start, loss curve, decision
boundary, and why w.grad.zero_() fails before the first backward).

    cd notebooks/src && ../../.venv/bin/python 04_logistic_regression.py
"""

from lesson import build, code, exercise, md, setup

cells = [
    md(
        """
# Lesson 4 · Logistic regression by hand

In this lesson we train a model with nothing but tensors and autograd: no layers, no optimizer, no loss function
from a library. We write each piece ourselves: the model, the loss, the gradient step and the training loop.
It is the loop that `torch.optim` and `nn.Module` later hide, so it is worth seeing once in full.

Along the way we derive by hand the gradient that autograd computes, watch the stepper produce it, and answer a
question that hand-written loops run into: why does `w.grad.zero_()` fail if you call it before the first
`backward()`? Terms in bold are explained in the [glossary](../glossary.md).
""",
        """
# 第 4 课 · 手写逻辑回归

本课只用张量和自动求导来训练一个模型：不用网络层，不用优化器，也不用库里现成的损失函数。
模型、损失、梯度下降的一步以及训练循环，全都由我们自己来写。以后 `torch.optim` 和 `nn.Module`
会把这个循环藏起来，所以值得完整地看一遍。

途中我们会亲手推导自动求导算出的梯度，用逐步演示器看它是怎样一步步得到的，还会回答手写训练循环时常遇到的一个问题：
为什么在第一次 `backward()` 之前调用 `w.grad.zero_()` 会出错？加粗的术语在[术语表](../glossary.md)中都有解释。
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

A weight per feature and one bias. They are leaves that require gradients. The tutorial drew `w` at random
(`randn([2, 1])`) and `b` started at zero. We start from the tutorial's own random draw, rounded to three
decimals, $w_0 = [[-0.044], [0.840]]$, so that every loss printed below can be compared with the tutorial's.
""",
        """
## 参数

每个特征一个权重，再加一个偏置。它们都是需要梯度的叶子节点。教程里的 `w` 是随机抽取的（`randn([2, 1])`），
`b` 从零开始。我们直接从教程那次随机抽到的值出发（保留三位小数）：$w_0 = [[-0.044], [0.840]]$，
这样下面打印的每个损失都能与教程的结果对照。
""",
    ),
    code(
        """
w0 = [[-0.044], [0.840]]  # the tutorial's randn([2, 1]), rounded
w = agv.tensor(w0, requires_grad=True)
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
这就是模型预测的“标签为 1 的概率”。

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
The model has learned nothing yet: every probability is between 0.48 and 0.70, and the two points with label 0
get the *highest* ones. Here is the graph that `backward()` will walk back through, from `loss` to the two
parameters:
""",
        """
模型还什么都没学到：每个概率都在 0.48 到 0.70 之间，而且两个标签为 0 的点反而得到了*最高*的概率。
下面是 `backward()` 将要反向遍历的计算图，从 `loss` 一直回到两个参数：
""",
    ),
    code(
        """
agv.draw(loss, names=locals())
"""
    ),
    md(
        r"""
## The gradient, derived by hand

For the $N$ points (rows $x_i$ of $X$), the model and the loss are

$$z = Xw + b, \qquad p = \sigma(z), \qquad L = -\frac{1}{N}\sum_{i=1}^{N}\big[y_i \log p_i + (1 - y_i)\log(1 - p_i)\big].$$

Work backwards, one factor of the chain rule at a time (lesson 2):

1. The loss: $\dfrac{\partial L}{\partial p_i} = -\dfrac{1}{N}\Big(\dfrac{y_i}{p_i} - \dfrac{1 - y_i}{1 - p_i}\Big)
   = \dfrac{p_i - y_i}{N\,p_i(1 - p_i)}$.
2. The sigmoid: $\sigma'(z) = \sigma(z)\big(1 - \sigma(z)\big)$, so $\dfrac{\partial p_i}{\partial z_i} = p_i(1 - p_i)$.
3. Multiply: the $p_i(1 - p_i)$ cancels, and what reaches the score is simply
   $\dfrac{\partial L}{\partial z_i} = \dfrac{p_i - y_i}{N}$: the prediction's error.
4. The score: $z_i = x_i w + b$, so $\partial z_i / \partial w = x_i^\top$ and $\partial z_i / \partial b = 1$. Summing
   over the points, the paths through every $z_i$:

$$\frac{\partial L}{\partial w} = \frac{1}{N} X^\top (p - y), \qquad
\frac{\partial L}{\partial b} = \frac{1}{N}\sum_i (p_i - y_i) = \mathrm{mean}(p - y).$$

The shapes agree: $X^\top$ is 2×4 and $p - y$ is 4×1, so $\partial L/\partial w$ is 2×1, like `w`.
Check it against autograd at $w_0$. `agv.grad` returns the gradients without writing `.grad`, so the training
below starts exactly as the tutorial's did:
""",
        r"""
## 亲手推导梯度

对 $N$ 个样本（$X$ 的各行 $x_i$），模型和损失是

$$z = Xw + b, \qquad p = \sigma(z), \qquad L = -\frac{1}{N}\sum_{i=1}^{N}\big[y_i \log p_i + (1 - y_i)\log(1 - p_i)\big]。$$

按链式法则从后往前，一次乘一个因子（第 2 课）：

1. 损失：$\dfrac{\partial L}{\partial p_i} = -\dfrac{1}{N}\Big(\dfrac{y_i}{p_i} - \dfrac{1 - y_i}{1 - p_i}\Big)
   = \dfrac{p_i - y_i}{N\,p_i(1 - p_i)}$。
2. sigmoid：$\sigma'(z) = \sigma(z)\big(1 - \sigma(z)\big)$，所以 $\dfrac{\partial p_i}{\partial z_i} = p_i(1 - p_i)$。
3. 相乘：$p_i(1 - p_i)$ 正好约掉，到达分数的梯度就是
   $\dfrac{\partial L}{\partial z_i} = \dfrac{p_i - y_i}{N}$：预测的误差。
4. 分数：$z_i = x_i w + b$，所以 $\partial z_i / \partial w = x_i^\top$，$\partial z_i / \partial b = 1$。
   对所有样本（也就是经过每个 $z_i$ 的路径）求和：

$$\frac{\partial L}{\partial w} = \frac{1}{N} X^\top (p - y), \qquad
\frac{\partial L}{\partial b} = \frac{1}{N}\sum_i (p_i - y_i) = \mathrm{mean}(p - y)。$$

形状也对得上：$X^\top$ 是 2×4，$p - y$ 是 4×1，所以 $\partial L/\partial w$ 是 2×1，和 `w` 一样。
在 $w_0$ 处用自动求导来验证。`agv.grad` 只返回梯度、不写入 `.grad`，所以下面的训练仍然和教程完全一样地开始：
""",
    ),
    code(
        """
grad_w, grad_b = agv.grad(loss, [w, b], retain_graph=True)
p = y_p.detach()
n_points = x_t.shape[0]
formula_w = x_t.T @ (p - y_t) / n_points
formula_b = (p - y_t).mean()
print("autograd:", grad_w.flatten().tolist(), grad_b.tolist())
print("formula: ", formula_w.flatten().tolist(), formula_b.item())
print(agv.allclose(grad_w, formula_w), agv.allclose(grad_b, formula_b.reshape(1)))
"""
    ),
    md(
        """
## Watching (p − y) appear

Step 3 above is where the algebra collapses. The stepper shows it happening. Take one point with label 1 and a
scalar score `z`, so every value is a single number. The loss is the same formula as `bce`, written as the one op
`agv.nn.functional.binary_cross_entropy`, so that the picture is three boxes long instead of ten (check that both
give the same loss).
""",
        """
## 看着 (p − y) 出现

上面第 3 步就是式子一下子变简单的地方，逐步演示器能让你看着它发生。取一个标签为 1 的样本，分数 `z` 是一个标量，
这样每个值都只是一个数。损失与 `bce` 是同一个公式，只是写成一个运算
`agv.nn.functional.binary_cross_entropy`，这样图只有三个方框长，而不是十个（自己验证两者给出相同的损失）。
""",
    ),
    code(
        """
z = agv.tensor(0.5, requires_grad=True)
label = agv.tensor(1.0)
prob = agv.sigmoid(z)
point_loss = agv.nn.functional.binary_cross_entropy(prob, label)
print(f"bce: {bce(prob, label).item():.6f}   binary_cross_entropy: {point_loss.item():.6f}")
point_stepper = agv.BackwardStepper(point_loss, names={"z": z, "label": label, "prob": prob, "loss": point_loss})
point_stepper
"""
    ),
    md(
        """
Go to the step where `SigmoidBackward0` runs. The gradient arriving from the loss is
$-\frac{y}{p} + \frac{1 - y}{1 - p} = -1/p$ (the $(1 - y)$ term is 0, since the label is 1), the sigmoid's local derivative is $p(1 - p)$, and their product, sent to `z`, is
$p - 1 = p - y$:
""",
        """
跳到 `SigmoidBackward0` 执行的那一步。从损失传来的梯度是 $-\frac{y}{p} + \frac{1 - y}{1 - p} = -1/p$（标签为 1，所以 $(1 - y)$ 那一项是 0），
sigmoid 的局部导数是 $p(1 - p)$，两者相乘、送往 `z` 的正是 $p - 1 = p - y$：
""",
    ),
    code(
        """
from IPython.display import HTML, display

sigmoid_step = next(step for step in point_stepper.steps if step.name == "SigmoidBackward0")
point_stepper.goto(sigmoid_step.index + 1)  # position k: the first k steps have run
display(HTML(point_stepper.frame_html()))
sent_to_z = sigmoid_step.sent[0].value.item()
print(f"sent to z: {sent_to_z:.6f}   p - y: {prob.item() - label.item():.6f}")
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
The loss falls smoothly, fast at first and then more and more slowly. Because we started from the tutorial's
`w`, these are the tutorial's numbers: it printed 0.9427 at epoch 0 and 0.0586 at epoch 9500. Ours differ from
them by less than 1e-4 (its `w` had more than three decimals):
""",
        """
损失平稳下降：一开始降得快，之后越来越慢。因为我们从教程的 `w` 出发，这些就是教程里的数字：
它在第 0 轮打印的是 0.9427，第 9500 轮是 0.0586。我们的结果与它们相差不到 1e-4（教程的 `w` 不止三位小数）：
""",
    ),
    code(
        """
agv.plot.loss_curve(history, xlabel="epoch", title="Logistic regression: training loss")
"""
    ),
    code(
        """
tutorial_losses = {0: 0.9427, 9500: 0.0586}  # printed by the tutorial's run
for epoch, printed in tutorial_losses.items():
    difference = abs(history[epoch] - printed)
    print(f"epoch {epoch:5d}  ours {history[epoch]:.5f}  tutorial {printed}  within 1e-4: {difference < 1e-4}")
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

Train new parameters `w_new` and `b_new` from scratch: make them exactly as in the lesson (`w_new` from `w0`,
`b_new = zeros(1)`, both requiring gradients), so `w_new` starts where `w` did. Train for 10,000 epochs
**without** the extra first step: start each epoch straight away with the loss and `backward()`, update inside
`agv.no_grad()`, and then reset both gradients to `None`. Store the last epoch's loss as a Python float `final_loss`.
(Inside the loop, compute the model as `agv.sigmoid(agv.matmul(x_t, w_new) + b_new)`: `model()` uses `w` and `b`.)
""",
        """
### 练习 3：不需要额外第一步的训练循环

从头训练新的参数 `w_new` 和 `b_new`：按照本课完全相同的方式创建它们（`w_new` 取自 `w0`，`b_new = zeros(1)`，
都需要梯度），这样 `w_new` 的起点与 `w` 相同。训练 10,000 轮，
**不要**额外的第一步：每一轮直接计算损失并调用 `backward()`，在 `agv.no_grad()` 中更新参数，
然后把两个梯度都重置为 `None`。把最后一轮的损失存为 Python 浮点数 `final_loss`。
（在循环中请用 `agv.sigmoid(agv.matmul(x_t, w_new) + b_new)` 计算模型输出：`model()` 用的是 `w` 和 `b`。）
""",
    ),
    *exercise(
        "04.3",
        answers=("w_new", "b_new", "final_loss"),
        solution="""
w_new = agv.tensor(w0, requires_grad=True)
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
    md(
        r"""
### Exercise 4: derive it for another loss

Logistic regression is sometimes fitted with the squared error instead of the cross-entropy:

$$L = \frac{1}{N}\sum_{i=1}^{N} (p_i - y_i)^2, \qquad p = \sigma(Xw + b).$$

Derive $\partial L/\partial w$ and $\partial L/\partial b$ on paper, following steps 1 to 4 of the derivation above.
(Does the $p_i(1 - p_i)$ still cancel?) Then write them as two functions `mse_grad_w(X, y, w, b)` and
`mse_grad_b(X, y, w, b)` that use only tensor arithmetic, no `backward()` and no `agv.grad`. They must return
tensors shaped like `w` (2×1) and like `b` (one element). The check compares them with autograd's `w.grad` and
`b.grad` at $w_0$ and at two other points.
""",
        r"""
### 练习 4：换一个损失再推导一遍

逻辑回归有时不用交叉熵，而用平方误差来拟合：

$$L = \frac{1}{N}\sum_{i=1}^{N} (p_i - y_i)^2, \qquad p = \sigma(Xw + b)。$$

按照上面推导的第 1 到第 4 步，在纸上推出 $\partial L/\partial w$ 和 $\partial L/\partial b$。
（$p_i(1 - p_i)$ 还会约掉吗？）然后把它们写成两个函数 `mse_grad_w(X, y, w, b)` 和 `mse_grad_b(X, y, w, b)`：
只用张量运算，不调用 `backward()`，也不用 `agv.grad`。它们返回的张量要与 `w`（2×1）和 `b`（一个元素）形状相同。
检查单元格会在 $w_0$ 和另外两个点上，把它们与自动求导得到的 `w.grad`、`b.grad` 进行比较。
""",
    ),
    *exercise(
        "04.4",
        answers=("mse_grad_w", "mse_grad_b"),
        solution="""
def mse_grad_w(X, y, w, b):
    p = agv.sigmoid(X @ w + b)
    # dL/dp = 2(p - y)/N, times dp/dz = p(1 - p): this time nothing cancels
    dz = 2 * (p - y) * p * (1 - p) / X.shape[0]
    return X.T @ dz


def mse_grad_b(X, y, w, b):
    p = agv.sigmoid(X @ w + b)
    return (2 * (p - y) * p * (1 - p)).mean().reshape(1)
""",
        check="""
for w_try, b_try in [(w0, [0.0]), ([[1.5], [-2.0]], [0.3]), ([[-0.7], [0.2]], [-1.0])]:
    w_leaf = agv.tensor(w_try, requires_grad=True)
    b_leaf = agv.tensor(b_try, requires_grad=True)
    ((agv.sigmoid(x_t @ w_leaf + b_leaf) - y_t) ** 2).mean().backward()
    with agv.no_grad():
        mine_w = mse_grad_w(x_t, y_t, w_leaf, b_leaf)
        mine_b = mse_grad_b(x_t, y_t, w_leaf, b_leaf)
    assert tuple(mine_w.shape) == (2, 1), f"mse_grad_w should return a 2x1 tensor like w, not shape {tuple(mine_w.shape)}"
    assert mine_b.numel() == 1, f"mse_grad_b should return one number like b, not shape {tuple(mine_b.shape)}"
    assert agv.allclose(mine_w, w_leaf.grad, atol=1e-6), (
        f"at w = {w_try}, b = {b_try}: autograd says {w_leaf.grad.flatten().tolist()}, yours {mine_w.flatten().tolist()}. "
        "Hint: dL/dz_i = 2 (p_i - y_i) p_i (1 - p_i) / N, and dL/dw = X^T times that column"
    )
    assert agv.allclose(mine_b.reshape(1), b_leaf.grad, atol=1e-6), (
        f"at w = {w_try}, b = {b_try}: b.grad is {b_leaf.grad.tolist()}, yours {mine_b.flatten().tolist()}. "
        "Hint: dL/db is the sum over i of dL/dz_i"
    )
print("Right at all three points: for the squared error, p(1 - p) does not cancel")
""",
    ),
]

if __name__ == "__main__":
    for path in build(4, "logistic_regression", cells):
        print("wrote", path)
