"""Lesson 10: matrix backprop and shapes (issue 15), in the style of Karpathy's
"backprop ninja" (makemore part 4) and CS231n's vectorized gradients.

cd /work/main && .venv/bin/python notebooks/src/10_matrix_backprop.py
"""

from lesson import build, code, exercise, md, setup

cells = [
    md(
        r"""
# Lesson 10 · Matrix backprop and shapes

Until now autograd did the calculus and we read `.grad`. In this lesson you do it yourself, for whole
matrices at once, and check every result against autogradviz, as Andrej Karpathy's "backprop ninja"
exercise does. You will see

- $Y = XW$: why $dX = dY\,W^\top$ and $dW = X^\top dY$, and how the **shapes** alone tell you so;
- `nn.Linear`'s transposed form $y = xW^\top + b$, and its three gradients;
- a `cmp()` helper that compares a hand-made gradient with autograd's;
- the softmax cross-entropy shortcut $(p - \text{onehot})/N$;
- the sums that undo broadcasting;
- a custom `agv.autograd.Function` with a backward you write, checked by `gradcheck`;
- (optional) the gradient of a convolution, which is again a convolution.

Notation: for a scalar loss $L$ and any tensor $T$, $dT$ means $\partial L / \partial T$, a tensor of
$T$'s shape, which is what `T.grad` holds. Words used here are in the [glossary](../glossary.md).
""",
        r"""
# 第 10 课 · 矩阵的反向传播与形状

到目前为止，都是 autograd 替我们做微积分，我们只读 `.grad`。这一课由你亲手来做，而且一次处理整个矩阵，
每个结果都用 autogradviz 核对，就像 Andrej Karpathy 的“backprop ninja”练习那样。你将看到：

- $Y = XW$：为什么 $dX = dY\,W^\top$、$dW = X^\top dY$，以及为什么单看**形状**就能得出它们；
- `nn.Linear` 的转置形式 $y = xW^\top + b$ 及其三个梯度；
- 一个 `cmp()` 辅助函数，用来比较手算的梯度和 autograd 的梯度；
- softmax 交叉熵的捷径 $(p - \text{onehot})/N$；
- 撤销广播的那些求和；
- 一个自定义的 `agv.autograd.Function`，它的 backward 由你来写，并用 `gradcheck` 检查；
- （选学）卷积的梯度，它还是一个卷积。

记号：对标量损失 $L$ 和任意张量 $T$，$dT$ 表示 $\partial L / \partial T$，它与 $T$ 形状相同，也就是 `T.grad`
里存的东西。本课用到的术语见[术语表](../glossary.md)。
""",
    ),
    setup(
        """
import textwrap

import autogradviz as agv
from autogradviz.exercises import answered  # used by the exercises' check cells

F = agv.nn.functional
agv.manual_seed(0)
"""
    ),
    md(
        r"""
## 1. $Y = XW$: let the shapes do the work

Take $X$ of shape $(N, D)$ and $W$ of shape $(D, M)$, so $Y = XW$ has shape $(N, M)$. Somewhere after $Y$
a scalar loss $L$ is computed; the backward pass brings us $dY$, of shape $(N, M)$. We want $dX$ and $dW$.

Element by element, $Y_{ij} = \sum_k X_{ik} W_{kj}$. The element $X_{ik}$ appears in every $Y_{ij}$ of row
$i$, with the factor $W_{kj}$, so the chain rule sums over $j$:

$$\frac{\partial L}{\partial X_{ik}} = \sum_j \frac{\partial L}{\partial Y_{ij}}\,\frac{\partial Y_{ij}}{\partial X_{ik}}
= \sum_j dY_{ij}\, W_{kj} = \left(dY\, W^\top\right)_{ik},$$

and in the same way, since $W_{kj}$ appears in every $Y_{ij}$ of column $j$, with the factor $X_{ik}$,

$$\frac{\partial L}{\partial W_{kj}} = \sum_i X_{ik}\, dY_{ij} = \left(X^\top dY\right)_{kj}.$$

Small integers keep every product exact, so you can check the numbers by hand. To get a chosen $dY$, use
the loss $L = \sum_{ij} dY_{ij} Y_{ij}$, whose gradient with respect to $Y$ is exactly `dY`:
""",
        r"""
## 1. $Y = XW$：让形状替你干活

取形状为 $(N, D)$ 的 $X$ 和形状为 $(D, M)$ 的 $W$，于是 $Y = XW$ 的形状是 $(N, M)$。$Y$ 之后的某处算出了标量损失
$L$；反向传播给我们送来形状为 $(N, M)$ 的 $dY$。我们要求的是 $dX$ 和 $dW$。

逐个元素地看，$Y_{ij} = \sum_k X_{ik} W_{kj}$。元素 $X_{ik}$ 出现在第 $i$ 行的每个 $Y_{ij}$ 中，系数是 $W_{kj}$，
所以链式法则要对 $j$ 求和：

$$\frac{\partial L}{\partial X_{ik}} = \sum_j \frac{\partial L}{\partial Y_{ij}}\,\frac{\partial Y_{ij}}{\partial X_{ik}}
= \sum_j dY_{ij}\, W_{kj} = \left(dY\, W^\top\right)_{ik},$$

同理，$W_{kj}$ 出现在第 $j$ 列的每个 $Y_{ij}$ 中，系数是 $X_{ik}$，所以

$$\frac{\partial L}{\partial W_{kj}} = \sum_i X_{ik}\, dY_{ij} = \left(X^\top dY\right)_{kj}.$$

用小整数可以让每次乘法都精确无误，你也能亲手核对这些数。为了得到指定的 $dY$，取损失
$L = \sum_{ij} dY_{ij} Y_{ij}$，它对 $Y$ 的梯度恰好就是 `dY`：
""",
    ),
    code(
        """
X = agv.tensor([[1.0, 2.0, 0.0], [-1.0, 3.0, 1.0]], requires_grad=True)  # (N, D) = (2, 3)
W = agv.tensor([[1.0, -1.0], [2.0, 0.0], [0.0, 3.0]], requires_grad=True)  # (D, M) = (3, 2)
dY = agv.tensor([[1.0, 2.0], [-1.0, 1.0]])  # the upstream gradient we choose, shape (N, M)
Y = X @ W
L = (dY * Y).sum()
L.backward()

with agv.no_grad():  # hand-made gradients need no graph of their own
    print("dY @ W.T =", (dY @ W.T).tolist())
    print("X.grad   =", X.grad.tolist())
    print("X.T @ dY =", (X.T @ dY).tolist())
    print("W.grad   =", W.grad.tolist())
"""
    ),
    md(
        r"""
### The shape argument

You rarely need the indices. $dX$ must have $X$'s shape $(N, D)$, and it can only be made of $dY$, shape
$(N, M)$, and $W$, shape $(D, M)$. There is one way to multiply those two into an $(N, D)$ matrix:
$(N, M) \cdot (M, D)$, that is $dY\,W^\top$. Likewise $dW$ has shape $(D, M)$ and is made of $X$ and $dY$:
$(D, N) \cdot (N, M)$, that is $X^\top dY$. Get a transpose wrong and, as long as the sizes differ, the
product does not even run:
""",
        r"""
### 形状论证

其实很少需要写下标。$dX$ 必须与 $X$ 同形状 $(N, D)$，而它只能由形状为 $(N, M)$ 的 $dY$ 和形状为 $(D, M)$ 的 $W$
构成。把这两者乘成 $(N, D)$ 矩阵的办法只有一种：$(N, M) \cdot (M, D)$，也就是 $dY\,W^\top$。同样，$dW$ 的形状是
$(D, M)$，由 $X$ 和 $dY$ 构成：$(D, N) \cdot (N, M)$，也就是 $X^\top dY$。转置放错了，只要各维大小不同，
乘法根本就跑不起来：
""",
    ),
    code(
        """
try:
    dY @ W  # (2, 2) @ (3, 2): the wrong transpose
except RuntimeError as error:
    print(textwrap.fill(f"RuntimeError: {error}", 100))
"""
    ),
    md(
        r"""
That is also why this lesson uses $D \ne M$: with square matrices every wrong transpose would run and
quietly give wrong numbers (section 5 shows one such bug, and the tool that catches it).

The backward node of `@` is `MmBackward0`. Drawn with `show_saved=True`, it shows what it keeps for
backward: $X$, because $dW$ needs it, and $W$, because $dX$ needs it; the leaves on the right show the
shapes the two gradients must have. Its rules, printed first, are the formulas above (`a` and `b` are
the two factors, `g` the upstream gradient); they are computed in
[autogradviz/ops/arithmetic.py](../../autogradviz/ops/arithmetic.py), class `MatmulBackward0`, method `vjp`.
""",
        r"""
这也是本课取 $D \ne M$ 的原因：如果是方阵，每个错误的转置都能运行，却悄悄地给出错误的数值
（第 5 节会展示一个这样的错误，以及能抓住它的工具）。

`@` 的反向节点是 `MmBackward0`。用 `show_saved=True` 画出来，可以看到它为反向传播保存了什么：$X$，因为求 $dW$
要用它；$W$，因为求 $dX$ 要用它。右边的叶子标出了这两个梯度必须具有的形状。先打印出来的是它的规则，正是上面的公式（`a` 和 `b` 是两个因子，
`g` 是上游梯度）；计算它们的代码在 [autogradviz/ops/arithmetic.py](../../autogradviz/ops/arithmetic.py)
中的类 `MatmulBackward0` 的方法 `vjp`。
""",
    ),
    code(
        """
Y = X @ W
print(Y.grad_fn.rules)
agv.draw(Y, names={"X": X, "W": W, "Y": Y}, kind="backward", show_saved=True)
"""
    ),
    md(
        r"""
## 2. `nn.Linear`: $y = xW^\top + b$

`nn.Linear(in_features, out_features)` stores its weight the other way round, with shape `(out, in)`,
and computes $y = xW^\top + b$ for a batch $x$ of shape $(N, \text{in})$. Put $W^\top$ in place of the $W$
of section 1 and the same shape argument gives

$$\begin{aligned}
dx &= dy\,W & &(N, \text{in}),\\
dW &= dy^\top x & &(\text{out}, \text{in}),\\
db &= \textstyle\sum_{n} dy_{n,:} & &(\text{out},).
\end{aligned}$$

The bias is added to every row, so its gradient is the sum of $dy$ over the rows (section 4 says more).

To compare a gradient made by hand with autograd's, we use a small helper, `cmp()`, after the one in
Karpathy's makemore part 4. It prints whether the two are equal bit for bit (**exact**), whether they are equal up to
rounding (**approximate**, `agv.allclose`), and the largest difference. A difference below $10^{-6}$ is
float32 rounding; its digits depend on the machine, so `cmp` prints only `< 1e-6` for it.
""",
        r"""
## 2. `nn.Linear`：$y = xW^\top + b$

`nn.Linear(in_features, out_features)` 把权重反过来存放，形状是 `(out, in)`，对形状为 $(N, \text{in})$ 的一批
$x$ 计算 $y = xW^\top + b$。把第 1 节里的 $W$ 换成 $W^\top$，同样的形状论证给出

$$\begin{aligned}
dx &= dy\,W & &(N, \text{in}),\\
dW &= dy^\top x & &(\text{out}, \text{in}),\\
db &= \textstyle\sum_{n} dy_{n,:} & &(\text{out},).
\end{aligned}$$

偏置被加到每一行上，所以它的梯度是 $dy$ 按行求和（第 4 节细讲）。

为了比较手算的梯度和 autograd 的梯度，我们仿照 Karpathy 的 makemore 第 4 部分，写一个小辅助函数 `cmp()`。
它打印两者是否**完全相等**（exact），是否在舍入误差内相等（approximate，即 `agv.allclose`），以及最大差值。
小于 $10^{-6}$ 的差值是 float32 的舍入误差，具体数字因机器而异，所以 `cmp` 只把它打印成 `< 1e-6`。
""",
    ),
    code(
        """
def cmp(name: str, mine: agv.Tensor, tensor: agv.Tensor) -> None:
    \"\"\"Compare a gradient worked out by hand (`mine`) with the one autograd left in `tensor.grad`.\"\"\"
    theirs = tensor.grad
    if mine.shape != theirs.shape:
        shapes = f"yours has shape {tuple(mine.shape)}, autograd's {tuple(theirs.shape)}"
        raise ValueError(f"cmp({name!r}): {shapes}")
    exact = bool((mine == theirs).all())
    approximate = agv.allclose(mine, theirs)
    max_diff = (mine - theirs).abs().max().item()
    shown = "0" if max_diff == 0 else "< 1e-6" if max_diff < 1e-6 else f"{max_diff:.2e}"
    print(f"{name:8} | exact: {exact!s:5} | approximate: {approximate!s:5} | maxdiff: {shown}")


layer = agv.nn.Linear(3, 2)  # weight (out, in) = (2, 3), bias (2,)
x = agv.randn(4, 3, requires_grad=True)  # a batch of N = 4 rows
y = layer(x)
dy = agv.randn(4, 2)  # an upstream gradient of y's shape
(dy * y).sum().backward()

with agv.no_grad():
    cmp("x", dy @ layer.weight, x)
    cmp("weight", dy.T @ x, layer.weight)
    cmp("bias", dy.sum(0), layer.bias)
"""
    ),
    md(
        r"""
Exact, not just close: autogradviz computes these with the very same products (`AddmmBackward0` in
[autogradviz/ops/arithmetic.py](../../autogradviz/ops/arithmetic.py); `F.linear` in
[autogradviz/nn/functional.py](../../autogradviz/nn/functional.py) records it). Change one transpose and
`cmp` tells you at once, either with a shape error or with `approximate: False`.
""",
        r"""
结果是完全相等，而不只是接近：autogradviz 正是用同样的乘法算出它们的（见
[autogradviz/ops/arithmetic.py](../../autogradviz/ops/arithmetic.py) 中的 `AddmmBackward0`；
[autogradviz/nn/functional.py](../../autogradviz/nn/functional.py) 中的 `F.linear` 记录的就是它）。
改错一个转置，`cmp` 立刻就会告诉你：要么是形状错误，要么是 `approximate: False`。
""",
    ),
    md(
        r"""
### Where the transpose goes

`nn.Linear` records $W^\top$ as a node of its own, `TBackward0` (from `weight.t()`), and then one
`AddmmBackward0` for $b + x\,W^\top$. Step through `layer(x).sum()`, so that $dy$ is all ones, with a
small integer batch: `AddmmBackward0` sends the bias the sum of $dy$ over the $N = 2$ rows, `[2, 2]`,
and sends $x^\top dy$, of shape $(3, 2)$, to `TBackward0`, which transposes it into the weight's shape
$(2, 3)$: that is $dW = dy^\top x$. Put the stepper last in a cell to get the widget (lesson 2 shows
its buttons); the loop below prints the same walk.
""",
        r"""
### 转置去了哪里

`nn.Linear` 把 $W^\top$ 记录成一个单独的节点 `TBackward0`（来自 `weight.t()`），再用一个 `AddmmBackward0`
计算 $b + x\,W^\top$。用一小批整数输入逐步查看 `layer(x).sum()`（这样 $dy$ 全是 1）：`AddmmBackward0`
发给偏置的是 $dy$ 在 $N = 2$ 行上的和 `[2, 2]`；发给 `TBackward0` 的是形状为 $(3, 2)$ 的 $x^\top dy$，
`TBackward0` 再把它转置成权重的形状 $(2, 3)$：这正是 $dW = dy^\top x$。把逐步演示器放在单元格的最后一行，
就会显示这个小部件（第 2 课介绍了它的按钮）；下面的循环打印出同样的遍历过程。
""",
    ),
    code(
        """
layer.zero_grad()  # drop the gradients of the cell above: the drawing would show them
x_small = agv.tensor([[1.0, 2.0, 0.0], [-1.0, 3.0, 1.0]])  # N = 2 rows, in = 3
y_small = layer(x_small)
stepper = agv.BackwardStepper(
    y_small.sum(), names={"x": x_small, "y": y_small, "weight": layer.weight, "bias": layer.bias}
)
for step in stepper.steps:
    for sent in step.sent:
        print(f"{step.name:15} -> {sent.target_name:11} shape {sent.value.shape}: {sent.value.tolist()}")
stepper
"""
    ),
    md(
        r"""
## 3. Softmax cross-entropy: the shortcut $(p - \text{onehot})/N$

For logits $z$ of shape $(N, C)$ and class labels $y_n$, `F.cross_entropy` computes
$p = \mathrm{softmax}(z)$ row by row and
$$L = -\frac{1}{N} \sum_{n} \log p_{n, y_n}, \qquad
\log p_{n,y_n} = z_{n,y_n} - \log \sum_{c} e^{z_{n,c}}.$$
Differentiate one term with respect to $z_{n,j}$: the first part gives $1$ if $j = y_n$ and $0$
otherwise; the second gives $e^{z_{n,j}} / \sum_c e^{z_{n,c}} = p_{n,j}$. With the minus sign and the
mean,
$$\frac{\partial L}{\partial z_{n,j}} = \frac{p_{n,j} - [\,j = y_n\,]}{N},
\qquad\text{that is}\qquad dz = \frac{p - \mathrm{onehot}(y)}{N}.$$
Every class is pushed down by its probability, and the right class is pulled up by 1. Each row of $dz$
sums to zero.
""",
        r"""
## 3. softmax 交叉熵：捷径 $(p - \text{onehot})/N$

对形状为 $(N, C)$ 的 logits $z$ 和类别标签 $y_n$，`F.cross_entropy` 逐行计算 $p = \mathrm{softmax}(z)$，以及
$$L = -\frac{1}{N} \sum_{n} \log p_{n, y_n}, \qquad
\log p_{n,y_n} = z_{n,y_n} - \log \sum_{c} e^{z_{n,c}}.$$
把其中一项对 $z_{n,j}$ 求导：第一部分在 $j = y_n$ 时给出 $1$，否则给出 $0$；第二部分给出
$e^{z_{n,j}} / \sum_c e^{z_{n,c}} = p_{n,j}$。再加上负号和求平均，得到
$$\frac{\partial L}{\partial z_{n,j}} = \frac{p_{n,j} - [\,j = y_n\,]}{N},
\qquad\text{即}\qquad dz = \frac{p - \mathrm{onehot}(y)}{N}.$$
每个类别都按它的概率被往下压，正确的类别再被往上拉 1。$dz$ 的每一行之和都是零。
""",
    ),
    code(
        """
logits = agv.randn(4, 3, requires_grad=True)  # N = 4 samples, C = 3 classes
labels = agv.tensor([0, 2, 1, 2])
loss = F.cross_entropy(logits, labels)
loss.backward()

with agv.no_grad():
    p = F.softmax(logits, dim=1)
    dlogits = (p - F.one_hot(labels, 3)) / 4
    cmp("logits", dlogits, logits)
    print("each row sums to 0:", agv.allclose(dlogits.sum(1), agv.zeros(4), atol=1e-7))
    print("p[0]       =", [round(v, 4) for v in p[0].tolist()], " label", labels[0].item())
    print("dlogits[0] =", [round(v, 4) for v in dlogits[0].tolist()])
"""
    ),
    md(
        r"""
Approximate, not exact: autograd does not know the shortcut. It goes backward through the two ops that
`cross_entropy` is made of, `NllLossBackward0` and then `LogSoftmaxBackward0`
([autogradviz/nn/losses.py](../../autogradviz/nn/losses.py), function `cross_entropy`, and
[autogradviz/ops/reductions.py](../../autogradviz/ops/reductions.py), class `LogSoftmaxBackward0`),
which rounds differently from our one-line formula. The shortcut is shorter and cheaper, which is why
some frameworks also offer the two ops as one (Paddle's `softmax_with_cross_entropy`, TensorFlow's
`softmax_cross_entropy_with_logits`).
""",
        r"""
是近似相等，而不是完全相等：autograd 并不知道这条捷径。它沿着组成 `cross_entropy` 的两个运算反向传播，先是
`NllLossBackward0`，再是 `LogSoftmaxBackward0`（见 [autogradviz/nn/losses.py](../../autogradviz/nn/losses.py)
中的函数 `cross_entropy`，以及 [autogradviz/ops/reductions.py](../../autogradviz/ops/reductions.py) 中的类
`LogSoftmaxBackward0`），舍入方式与我们的一行公式不同。捷径更短，算起来也更省，所以有些框架还把这两个运算合并成一个来提供
（Paddle 的 `softmax_with_cross_entropy`、TensorFlow 的 `softmax_cross_entropy_with_logits`）。
""",
    ),
    md(
        r"""
### Both at once, in a network: the layer stepper

A network's stepper walks backward one layer at a time, and at a `Linear` layer its panel writes the step
in the matrix form of section 2, with the real shapes. Below, a small network on a batch of $N = 5$ rows,
`Linear(3, 4)`, `Tanh()`, `Linear(4, 2)`, then cross-entropy; `layers=True` asks for the layer view (a
network too big to show op by op gets it anyway). The stepper stops after layer step 2, the last layer,
`2 Linear(4, 2)`. Its panel reads $dX = dY \cdot W$: (5, 2)·(2, 4) → (5, 4), $dW = dY^\top \cdot X$:
(2, 5)·(5, 4) → (2, 4), and $db = \sum dY$ over the 5 rows, where $dY$ is this section's
$(p - \text{onehot})/N$. **⤓ Step into** opens the layer's ops one node at a time.
""",
        r"""
### 两者合在一起，放进网络里：按层的逐步演示器

网络的逐步演示器一次反向走一层；走到 `Linear` 层时，面板用第 2 节的矩阵形式写出这一步，并带上真实的形状。
下面是一个小网络，输入一批 $N = 5$ 行：`Linear(3, 4)`、`Tanh()`、`Linear(4, 2)`，最后是交叉熵；`layers=True`
要求按层显示（网络大到无法逐个运算画出时，本来就会按层显示）。逐步演示器停在第 2 个按层步骤之后，也就是最后一层
`2 Linear(4, 2)`。它的面板写着 $dX = dY \cdot W$：(5, 2)·(2, 4) → (5, 4)，$dW = dY^\top \cdot X$：
(2, 5)·(5, 4) → (2, 4)，以及 $db = \sum dY$（对 5 行求和），其中 $dY$ 正是本节的 $(p - \text{onehot})/N$。
**⤓ 步入**会打开这一层的运算，一次走一个节点。
""",
    ),
    code(
        """
import numpy as np

agv.manual_seed(0)
net = agv.nn.Sequential(agv.nn.Linear(3, 4), agv.nn.Tanh(), agv.nn.Linear(4, 2))
xb = agv.randn(5, 3)  # N = 5 rows, 3 features
targets = agv.tensor([0, 1, 1, 0, 1])
net_loss = F.cross_entropy(net(xb), targets)
net_stepper = agv.BackwardStepper(net_loss, model=net, layers=True)
net_stepper.goto(2)  # after the loss and the last Linear layer, "2"
net_stepper
"""
    ),
    md(
        r"""
Now check the panel against sections 2 and 3, in plain numpy. `step_into()` opens the layer that the
current step offers, here `2`: its ops are `AddmmBackward0` ($b + X W^\top$), `TBackward0` (the
transpose) and one `AccumulateGrad` for each parameter. The numbers come from the stepper's recorded walk:
backward meets the last layer first, so its `AddmmBackward0` is the first one in `net_stepper.steps`; it
receives $dY$ and sends to its three inputs $b$, $X$ and $W^\top$; `TBackward0` turns the last into $dW$.
The hand side recomputes the layer's input $X = \tanh(x W_0^\top + b_0)$ and
$dY = (p - \text{onehot})/N$ from the weights alone.
""",
        r"""
现在用纯 numpy 把面板和第 2、3 节核对一下。`step_into()` 打开当前步骤所指的那一层，这里是 `2`：它的运算是
`AddmmBackward0`（$b + X W^\top$）、`TBackward0`（转置），以及每个参数各一个 `AccumulateGrad`。数字取自逐步演示器记录下来的遍历：
反向传播最先遇到最后一层，所以它的 `AddmmBackward0` 是 `net_stepper.steps` 里的第一个；它收到 $dY$，
再发给它的三个输入 $b$、$X$ 和 $W^\top$；`TBackward0` 把最后那个转成 $dW$。
手算的一边只用权重，重新算出这一层的输入 $X = \tanh(x W_0^\top + b_0)$ 和 $dY = (p - \text{onehot})/N$。
""",
    ),
    code(
        """
print("step into", net_stepper.step_into())
for frame in net_stepper.details["2"]["frames"]:
    print("  ", frame["title"])

# the stepper's numbers
addmm = next(step for step in net_stepper.steps if step.name == "AddmmBackward0")
sent = {s.input: s.value for s in addmm.sent}  # addmm(b, X, Wᵀ): inputs 0, 1 and 2
transpose = next(step for step in net_stepper.steps if step.name == "TBackward0")
dY_net, dX_net, db_net = addmm.upstream, sent[1], sent[0]
dW_net = transpose.sent[0].value

# the hand side, from the weights alone
W0, b0 = net[0].weight.detach().numpy(), net[0].bias.detach().numpy()
W_net, b_net = net[2].weight.detach().numpy(), net[2].bias.detach().numpy()
X_net = np.tanh(xb.numpy() @ W0.T + b0)  # the layer's input: Tanh's output, (5, 4)
z = X_net @ W_net.T + b_net  # the logits, (5, 2)
p_net = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
assert np.allclose(dY_net, (p_net - np.eye(2)[targets.numpy()]) / 5, atol=1e-6)  # (p − onehot)/N
assert np.allclose(dX_net, dY_net @ W_net, atol=1e-6)  # dX = dY·W:  (5, 2)·(2, 4) → (5, 4)
assert np.allclose(dW_net, dY_net.T @ X_net, atol=1e-6)  # dW = dYᵀ·X: (2, 5)·(5, 4) → (2, 4)
assert np.allclose(db_net, dY_net.sum(axis=0), atol=1e-6)  # db = Σ dY over the rows → (2,)
print("dY", dY_net.shape, "dX", dX_net.shape, "dW", dW_net.shape, "db", db_net.shape, ": all four agree")
print("step out, back to layer step", net_stepper.step_out())
"""
    ),
    md(
        r"""
## 4. The sums that undo broadcasting

Broadcasting repeats a tensor. If `b` of shape `(3,)` is added to a matrix of shape `(4, 3)`, each $b_j$ is
used in all 4 rows, and a value used in several places receives the **sum** of the gradients from each
place (the chain rule adds over paths). So
$$\begin{aligned}
db_j &= \textstyle\sum_{n} dZ_{n,j}, & &\text{i.e. } db = dZ\text{.sum(0)},\\
dc_{n} &= \textstyle\sum_{j} dZ_{n,j}, & &\text{i.e. } dc = dZ\text{.sum(1, keepdim=True)}
\end{aligned}$$
for a column `c` of shape `(4, 1)`, repeated along the columns. `keepdim=True` keeps the shape `(4, 1)`:
a gradient always has the shape of its tensor.
""",
        r"""
## 4. 撤销广播的求和

广播会把张量重复使用。把形状为 `(3,)` 的 `b` 加到形状为 `(4, 3)` 的矩阵上，每个 $b_j$ 都被 4 行用到；
而一个在多处被使用的值，得到的是来自各处梯度的**总和**（链式法则对各条路径求和）。所以
$$\begin{aligned}
db_j &= \textstyle\sum_{n} dZ_{n,j}, & &\text{即 } db = dZ\text{.sum(0)}，\\
dc_{n} &= \textstyle\sum_{j} dZ_{n,j}, & &\text{即 } dc = dZ\text{.sum(1, keepdim=True)}
\end{aligned}$$
其中 `c` 是形状为 `(4, 1)` 的列，沿列方向重复。`keepdim=True` 保留形状 `(4, 1)`：梯度的形状永远与它的张量相同。
""",
    ),
    code(
        """
A = agv.tensor([[1.0, 0.0, 2.0], [0.0, 1.0, 1.0], [3.0, 1.0, 0.0], [1.0, 1.0, 1.0]])  # (4, 3)
b = agv.tensor([1.0, 2.0, 3.0], requires_grad=True)  # (3,): repeated down the rows
c = agv.tensor([[1.0], [0.0], [-1.0], [2.0]], requires_grad=True)  # (4, 1): repeated across the columns
dZ = agv.tensor([[1.0, 2.0, 0.0], [0.0, 1.0, -1.0], [2.0, 0.0, 1.0], [1.0, 1.0, 1.0]])
Z = A + b + c  # (4, 3)
(dZ * Z).sum().backward()

print("dZ.sum(0)               =", dZ.sum(0).tolist())
print("b.grad                  =", b.grad.tolist())
print("dZ.sum(1, keepdim=True) =", dZ.sum(1, keepdim=True).tolist())
print("c.grad                  =", c.grad.tolist())
"""
    ),
    md(
        r"""
Every op in autogradviz that broadcasts calls one helper for this, `sum_to`: it sums the gradient over
the leading axes that broadcasting added, and over the size-1 axes that it stretched, keeping those as
size 1 ([autogradviz/ops/broadcast.py](../../autogradviz/ops/broadcast.py), functions `sum_to` and
`reduced_axes`).

## 5. A custom Function with a backward you write

`agv.autograd.Function` (as `torch.autograd.Function`) lets you write an op's backward yourself:
`forward(ctx, ...)` computes the result and saves what backward will need with `ctx.save_for_backward`;
`backward(ctx, grad_output)` receives $dY$ and returns one gradient per input of forward. Here is
section 1's $Y = XW$ as a Function:
""",
        r"""
autogradviz 中每个会广播的运算，都调用同一个辅助函数来做这件事：`sum_to`。它对广播时在前面新增的轴求和，
也对被拉伸的、大小为 1 的轴求和，并让后者保持大小 1（见 [autogradviz/ops/broadcast.py](../../autogradviz/ops/broadcast.py)
中的函数 `sum_to` 和 `reduced_axes`）。

## 5. 自己写 backward 的自定义 Function

`agv.autograd.Function`（对应 `torch.autograd.Function`）让你亲手写一个运算的 backward：
`forward(ctx, ...)` 计算结果，并用 `ctx.save_for_backward` 保存 backward 要用的东西；
`backward(ctx, grad_output)` 收到 $dY$，为 forward 的每个输入各返回一个梯度。下面把第 1 节的 $Y = XW$ 写成一个 Function：
""",
    ),
    code(
        """
class MatMul(agv.autograd.Function):
    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        return x @ w

    @staticmethod
    def backward(ctx, grad_output):
        x, w = ctx.saved_tensors
        return grad_output @ w.T, x.T @ grad_output  # dX = dY Wᵀ, dW = Xᵀ dY


Y = MatMul.apply(X, W)
print(Y.grad_fn)
X.grad = W.grad = None
(dY * Y).sum().backward()
print("X.grad =", X.grad.tolist())
print("W.grad =", W.grad.tolist())
"""
    ),
    md(
        r"""
`Y.grad_fn` is a `MatMulBackward` node, named after the class; that node is also the `ctx` your two methods
receive (exercise 2 uses this). The gradients are those of section 1. For random inputs, `agv.autograd.gradcheck` compares your backward with
finite differences $\big(f(x + \varepsilon) - f(x - \varepsilon)\big) / 2\varepsilon$, element by element.
This only works in float64: in float32 the rounding of $f$ swamps a difference taken over
$\varepsilon = 10^{-6}$. So pass float64 inputs, as PyTorch's `gradcheck` expects (autogradviz's also
copies float32 inputs to float64 for you).

Square matrices are where a wrong transpose hides: below, `BuggyMatMul` returns $dY^\top X$ for $dW$
instead of $X^\top dY$. With $2 \times 2$ inputs every shape fits and backward runs without a complaint,
but `gradcheck` catches it:
""",
        r"""
`Y.grad_fn` 是一个以这个类命名的 `MatMulBackward` 节点；这个节点也就是你的两个方法收到的 `ctx`（练习 2 会用到这一点）。
梯度与第 1 节相同。对随机输入，`agv.autograd.gradcheck` 会把你的 backward 与有限差分
$\big(f(x + \varepsilon) - f(x - \varepsilon)\big) / 2\varepsilon$ 逐个元素地比较。这只有在 float64 下才行得通：
在 float32 下，$f$ 的舍入误差会淹没步长 $\varepsilon = 10^{-6}$ 的差分。所以要像 PyTorch 的 `gradcheck`
所要求的那样传入 float64 的输入（autogradviz 的 `gradcheck` 也会替你把 float32 输入复制成 float64）。

方阵正是错误转置的藏身之处：下面的 `BuggyMatMul` 对 $dW$ 返回的是 $dY^\top X$，而不是 $X^\top dY$。
输入是 $2 \times 2$ 时所有形状都对得上，backward 一声不吭地运行，但 `gradcheck` 能抓住它：
""",
    ),
    code(
        """
class BuggyMatMul(MatMul):
    @staticmethod
    def backward(ctx, grad_output):
        x, w = ctx.saved_tensors
        return grad_output @ w.T, grad_output.T @ x  # the bug: dW should be x.T @ grad_output


x64 = agv.randn(2, 2, dtype=agv.float64, requires_grad=True)
w64 = agv.randn(2, 2, dtype=agv.float64, requires_grad=True)
print("MatMul:     ", agv.autograd.gradcheck(MatMul.apply, (x64, w64)))
try:
    agv.autograd.gradcheck(BuggyMatMul.apply, (x64, w64))
except agv.GradcheckError as error:
    print(textwrap.fill(f"BuggyMatMul: GradcheckError: {error}", 100))
"""
    ),
    md(
        r"""
The node that runs your backward is made in
[autogradviz/autograd/function.py](../../autogradviz/autograd/function.py) (class `FunctionBackward`,
method `vjp`); it checks that you return one gradient per input, each of its input's shape (a bigger one
that broadcasts to it is summed down, as in PyTorch), and `gradcheck` is in [autogradviz/finite_differences.py](../../autogradviz/finite_differences.py).

## 6. Optional: a convolution's gradient is a convolution

A 1-D convolution (really a cross-correlation, as in PyTorch and most deep-learning frameworks) with a kernel $w$ of
size $K$:
$$y_i = \sum_{k=0}^{K-1} x_{i+k}\, w_k .$$
Each $x_j$ meets $w_k$ in the output $y_{j-k}$, so
$$dx_j = \sum_{k} dy_{j-k}\, w_k, \qquad dw_k = \sum_i dy_i\, x_{i+k}.$$
$dw$ is the correlation of $x$ with $dy$; $dx$ is the correlation of $dy$, padded with $K - 1$ zeros on
each side, with the **flipped** kernel $(w_{K-1}, \dots, w_0)$. `F.conv2d` on a $1 \times 5$ image checks
both, using `F.conv2d` itself for the hand-made side:
""",
        r"""
运行你的 backward 的节点在 [autogradviz/autograd/function.py](../../autogradviz/autograd/function.py)
中创建（类 `FunctionBackward` 的方法 `vjp`）；它会检查你是否为每个输入返回了一个梯度，且形状与该输入相同（能广播成该形状的更大梯度会像 PyTorch 那样被求和缩小）。
`gradcheck` 在 [autogradviz/finite_differences.py](../../autogradviz/finite_differences.py) 中。

## 6. 选学：卷积的梯度还是卷积

用大小为 $K$ 的卷积核 $w$ 做一维卷积（和 PyTorch 以及大多数深度学习框架一样，其实是互相关）：
$$y_i = \sum_{k=0}^{K-1} x_{i+k}\, w_k .$$
每个 $x_j$ 在输出 $y_{j-k}$ 中与 $w_k$ 相遇，所以
$$dx_j = \sum_{k} dy_{j-k}\, w_k, \qquad dw_k = \sum_i dy_i\, x_{i+k}.$$
$dw$ 是 $x$ 与 $dy$ 的互相关；$dx$ 是两侧各补 $K - 1$ 个零的 $dy$ 与**翻转后**的卷积核 $(w_{K-1}, \dots, w_0)$
的互相关。在 $1 \times 5$ 的图像上用 `F.conv2d` 检验这两点，手算的一侧也用 `F.conv2d` 本身来算：
""",
    ),
    code(
        """
signal = agv.tensor([[[[1.0, 2.0, 0.0, -1.0, 3.0]]]], requires_grad=True)  # (batch, channels, 1, 5)
kernel = agv.tensor([[[[1.0, 0.0, -2.0]]]], requires_grad=True)  # (out, in, 1, K) with K = 3
out = F.conv2d(signal, kernel)  # (1, 1, 1, 3)
dout = agv.tensor([[[[1.0, -1.0, 2.0]]]])
(dout * out).sum().backward()

with agv.no_grad():
    flipped = kernel[..., agv.tensor([2, 1, 0])]
    dsignal = F.conv2d(dout, flipped, padding=(0, 2))  # K - 1 = 2 zeros on each side
    dkernel = F.conv2d(signal, dout)
print("out        =", out.flatten().tolist())
cmp("signal", dsignal, signal)
cmp("kernel", dkernel, kernel)
"""
    ),
    md(
        r"""
In 2-D it is the same with both axes flipped. autogradviz computes it differently, by unfolding the
image into columns ([autogradviz/nn/conv.py](../../autogradviz/nn/conv.py), class
`ConvolutionBackward0`), and gets the same numbers.

## What to remember

- Shapes decide most matrix gradients: $dT$ has $T$'s shape, and there is usually one product of the
  available matrices that has it. For $Y = XW$: $dX = dY\,W^\top$, $dW = X^\top dY$.
- `nn.Linear` ($y = xW^\top + b$): $dx = dy\,W$, $dW = dy^\top x$, $db =$ `dy.sum(0)`.
- Softmax followed by cross-entropy: $dz = (p - \mathrm{onehot})/N$.
- Broadcasting in forward is a sum in backward, over the repeated axes (`keepdim=True` for size-1 axes).
- Check hand-made gradients: `cmp()` against autograd, and `gradcheck` in float64 for a custom backward.
""",
        r"""
二维情形也一样，只是两个轴都要翻转。autogradviz 用另一种方式计算它：把图像展开成列
（见 [autogradviz/nn/conv.py](../../autogradviz/nn/conv.py) 中的类 `ConvolutionBackward0`），得到的数完全相同。

## 要点回顾

- 大多数矩阵梯度由形状决定：$dT$ 与 $T$ 同形状，而用现有矩阵凑出这个形状的乘积通常只有一种。
  对 $Y = XW$：$dX = dY\,W^\top$，$dW = X^\top dY$。
- `nn.Linear`（$y = xW^\top + b$）：$dx = dy\,W$，$dW = dy^\top x$，$db =$ `dy.sum(0)`。
- softmax 后接交叉熵：$dz = (p - \mathrm{onehot})/N$。
- 前向传播中的广播，在反向传播中就是对被重复的轴求和（大小为 1 的轴用 `keepdim=True`）。
- 手算的梯度要检查：用 `cmp()` 与 autograd 比较；自定义 backward 用 float64 的 `gradcheck` 检查。
""",
    ),
    md(
        r"""
## Exercises

Each exercise has a cell for your answer, followed by a cell that checks it.

**Exercise 1. Weights on the left.** Many books write a layer as $Z = WX$, with $W$ of shape
$(M, D)$ and the samples as the **columns** of $X$, shape $(D, N)$. Derive $dW$ and $dX$ from $dZ$
(shape $(M, N)$) by the shape argument, then write a function `left_grads(dZ, W, X)` that returns the
pair `(dW, dX)`. The check compares it with autograd on random matrices of two sets of sizes,
none of them square.
""",
        r"""
## 练习

每道练习都有一个写答案的单元格，后面跟着一个检查答案的单元格。

**练习 1：权重在左边。** 很多书把一层写成 $Z = WX$，其中 $W$ 的形状是 $(M, D)$，样本是 $X$ 的**列**，
$X$ 的形状是 $(D, N)$。用形状论证，从 $dZ$（形状 $(M, N)$）推导出 $dW$ 和 $dX$，然后写一个函数
`left_grads(dZ, W, X)`，返回二元组 `(dW, dX)`。检查单元格会在两组大小的随机矩阵（都不是方阵）上把它与 autograd 比较。
""",
    ),
    *exercise(
        "10.1",
        answers=("left_grads",),
        solution="""
def left_grads(dZ, W, X):
    # dW: (M, D) from dZ (M, N) and X (D, N): (M, N) @ (N, D)
    # dX: (D, N) from W (M, D) and dZ (M, N): (D, M) @ (M, N)
    return dZ @ X.T, W.T @ dZ
""",
        check="""
for M, D, N in [(2, 3, 4), (5, 2, 3)]:
    W1 = agv.randn(M, D, requires_grad=True)
    X1 = agv.randn(D, N, requires_grad=True)
    dZ1 = agv.randn(M, N)
    (dZ1 * (W1 @ X1)).sum().backward()
    with agv.no_grad():
        dW1, dX1 = left_grads(dZ1, W1, X1)
    assert dW1.shape == W1.shape, f"dW needs W's shape {tuple(W1.shape)}, yours is {tuple(dW1.shape)}"
    assert dX1.shape == X1.shape, f"dX needs X's shape {tuple(X1.shape)}, yours is {tuple(dX1.shape)}"
    assert agv.allclose(dW1, W1.grad), "dW has the right shape but wrong values: dZ and X, nothing else"
    assert agv.allclose(dX1, X1.grad), "dX has the right shape but wrong values: W and dZ, nothing else"
print("Right: dW = dZ Xᵀ and dX = Wᵀ dZ")
""",
    ),
    md(
        r"""
**Exercise 2. Fill in a Function's backward.** `LinearFunction` below computes `nn.Linear`'s
$y = xW^\top + b$ and saves `x` and `weight`, but its backward is missing. Write `class MyLinear(LinearFunction)`
with a `backward(ctx, grad_output)` that returns the three gradients `(dx, dweight, dbias)`, each of its
input's shape. The check runs `gradcheck` in float64, compares with `F.linear` through `cmp`, and calls your
backward directly to see the shapes you return (the node would quietly sum a too-big bias gradient down,
as PyTorch does).
""",
        r"""
**练习 2：补全 Function 的 backward。** 下面的 `LinearFunction` 计算 `nn.Linear` 的 $y = xW^\top + b$，
并保存了 `x` 和 `weight`，但缺少 backward。请写出 `class MyLinear(LinearFunction)`，它的
`backward(ctx, grad_output)` 返回三个梯度 `(dx, dweight, dbias)`，每个都与对应输入同形状。检查单元格会用 float64
运行 `gradcheck`，通过 `cmp` 与 `F.linear` 比较，还会直接调用你的 backward 来查看你返回的形状
（否则节点会像 PyTorch 一样，悄悄地把过大的偏置梯度求和缩小）。
""",
    ),
    code(
        """
class LinearFunction(agv.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias):
        ctx.save_for_backward(x, weight)
        return x @ weight.T + bias

    @staticmethod
    def backward(ctx, grad_output):
        raise NotImplementedError("LinearFunction.backward: write it in MyLinear (exercise 2)")
"""
    ),
    *exercise(
        "10.2",
        answers=("MyLinear",),
        solution="""
class MyLinear(LinearFunction):
    @staticmethod
    def backward(ctx, grad_output):
        x, weight = ctx.saved_tensors
        dx = grad_output @ weight  # (N, out) @ (out, in) = (N, in)
        dweight = grad_output.T @ x  # (out, N) @ (N, in) = (out, in)
        dbias = grad_output.sum(0)  # the bias was added to every row
        return dx, dweight, dbias
""",
        check="""
x2 = agv.randn(5, 3, dtype=agv.float64, requires_grad=True)
w2 = agv.randn(2, 3, dtype=agv.float64, requires_grad=True)
b2 = agv.randn(2, dtype=agv.float64, requires_grad=True)
out2 = MyLinear.apply(x2, w2, b2)
with agv.no_grad():
    returned = MyLinear.backward(out2.grad_fn, agv.ones(5, 2, dtype=agv.float64))
assert isinstance(returned, tuple) and len(returned) == 3, "return three gradients: (dx, dweight, dbias)"
for name, grad, tensor in zip(["dx", "dweight", "dbias"], returned, [x2, w2, b2]):
    assert grad.shape == tensor.shape, f"{name}: shape {tuple(grad.shape)}, its input's {tuple(tensor.shape)}"
assert agv.autograd.gradcheck(MyLinear.apply, (x2, w2, b2), raise_exception=False), (
    "gradcheck disagrees: compare each formula with the shape argument of section 2"
)
upstream = agv.randn(5, 2, dtype=agv.float64)
(upstream * out2).sum().backward()
mine = [t.grad for t in (x2, w2, b2)]
for t in (x2, w2, b2):
    t.grad = None
(upstream * F.linear(x2, w2, b2)).sum().backward()
for name, grad, tensor in zip(["x", "weight", "bias"], mine, [x2, w2, b2]):
    cmp(name, grad, tensor)
    assert agv.allclose(grad, tensor.grad), f"the gradient for {name} differs from F.linear's"
print("Right: MyLinear's backward passes gradcheck and matches F.linear")
""",
    ),
    md(
        r"""
**Exercise 3. A scale and a column.** Now the broadcast tensor is multiplied, not added:
`Z = A * s + c`, with `A` of shape `(4, 3)`, a scale `s` of shape `(1, 3)` and a column `c` of shape
`(4, 1)`, and the loss `(dZ * Z).sum()`. Work out `s.grad` and `c.grad` as expressions of `A` and `dZ`
(the tensors of section 4) and store them as tensors `s_grad` and `c_grad`, each of its tensor's shape.
Remember what a product sends to each of its inputs.
""",
        r"""
**练习 3：一个缩放和一列。** 现在被广播的张量不是相加，而是相乘：`Z = A * s + c`，其中 `A` 的形状是 `(4, 3)`，
缩放 `s` 的形状是 `(1, 3)`，列 `c` 的形状是 `(4, 1)`，损失是 `(dZ * Z).sum()`。请用 `A` 和 `dZ`
（第 4 节的张量）的表达式写出 `s.grad` 和 `c.grad`，分别存为张量 `s_grad` 和 `c_grad`，形状与各自的张量相同。
回想一下乘法给它的每个输入发送什么。
""",
    ),
    *exercise(
        "10.3",
        answers=("s_grad", "c_grad"),
        solution="""
s_grad = (dZ * A).sum(0, keepdim=True)  # the product sends dZ * A to s; s was repeated down the rows
c_grad = dZ.sum(1, keepdim=True)  # c was repeated across the columns
""",
        check="""
s3 = agv.tensor([[2.0, -1.0, 0.5]], requires_grad=True)
c3 = agv.tensor([[1.0], [0.0], [-1.0], [2.0]], requires_grad=True)
(dZ * (A * s3 + c3)).sum().backward()
assert tuple(s_grad.shape) == (1, 3), f"s_grad must have s's shape (1, 3), yours is {tuple(s_grad.shape)}"
assert tuple(c_grad.shape) == (4, 1), f"c_grad must have c's shape (4, 1), yours is {tuple(c_grad.shape)}"
assert agv.allclose(c_grad, c3.grad), f"c.grad is {c3.grad.tolist()}, yours {c_grad.tolist()}"
assert agv.allclose(s_grad, s3.grad), (
    f"s.grad is {s3.grad.tolist()}, yours {s_grad.tolist()}: the product sends dZ * A, then sum the repeats"
)
print("Right: s.grad =", s3.grad.tolist(), " c.grad =", c3.grad.tolist())
""",
    ),
    md(
        r"""
**Exercise 4 (backprop ninja). A whole MLP by hand.** The cell below runs a small two-layer network
forward, then lets autograd go backward, keeping the gradients of the intermediate tensors with
`retain_grad()`. Work backwards from the loss, using only the tensors of the forward pass (no `.grad`,
no `backward()`), and compute `dlogits`, `dW2`, `db2`, `dh`, `dh_pre`, `dW1` and `db1`. ReLU passes its
gradient where its input was positive and blocks it elsewhere. The check compares each one with `cmp`.
""",
        r"""
**练习 4（backprop ninja）：手算整个 MLP。** 下面的单元格先让一个小型两层网络做前向计算，再让 autograd 做反向传播，
并用 `retain_grad()` 保留中间张量的梯度。请从损失出发往回推，只使用前向计算中的张量（不用 `.grad`，也不调用
`backward()`），算出 `dlogits`、`dW2`、`db2`、`dh`、`dh_pre`、`dW1` 和 `db1`。ReLU 在输入为正的地方让梯度通过，
其他地方则把它挡住。检查单元格会用 `cmp` 逐一比较。
""",
    ),
    code(
        """
agv.manual_seed(10)
xs = agv.randn(6, 4)  # a batch of 6 samples with 4 features
ys = agv.tensor([0, 2, 1, 1, 0, 2])  # their classes
W1 = agv.randn(4, 5, requires_grad=True)
b1 = agv.randn(5, requires_grad=True)
W2 = agv.randn(5, 3, requires_grad=True)
b2 = agv.randn(3, requires_grad=True)

h_pre = xs @ W1 + b1  # (6, 5)
h = F.relu(h_pre)  # (6, 5)
logits = h @ W2 + b2  # (6, 3)
loss = F.cross_entropy(logits, ys)
for t in (h_pre, h, logits):
    t.retain_grad()
loss.backward()
print("loss =", round(loss.item(), 4))
"""
    ),
    *exercise(
        "10.4",
        answers=("dlogits", "dW2", "db2", "dh", "dh_pre", "dW1", "db1"),
        solution="""
with agv.no_grad():
    dlogits = (F.softmax(logits, dim=1) - F.one_hot(ys, 3)) / 6
    dW2 = h.T @ dlogits
    db2 = dlogits.sum(0)
    dh = dlogits @ W2.T
    dh_pre = dh * (h_pre > 0)
    dW1 = xs.T @ dh_pre
    db1 = dh_pre.sum(0)
""",
        check="""
ninja = [
    ("dlogits", dlogits, logits),
    ("dW2", dW2, W2),
    ("db2", db2, b2),
    ("dh", dh, h),
    ("dh_pre", dh_pre, h_pre),
    ("dW1", dW1, W1),
    ("db1", db1, b1),
]
for name, mine, tensor in ninja:
    cmp(name, mine, tensor)
for name, mine, tensor in ninja:
    assert agv.allclose(mine, tensor.grad, atol=1e-6), (
        f"{name} differs from autograd's: everything before it in the list is right, so look at its formula"
    )
print("Right: you backpropagated through the whole network by hand")
""",
    ),
]

if __name__ == "__main__":
    for path in build(10, "matrix_backprop", cells):
        print("wrote", path)
