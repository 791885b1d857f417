"""Lesson 11: debugging gradients (issue 15). Vanishing and exploding gradients in the
TrainingMonitor's per-layer norms, a dead ReLU, where NaN and inf come from and how to find
them, gradcheck catching a wrong custom backward, freezing a layer, and what zero_grad is for.

    cd /work/main && .venv/bin/python notebooks/src/11_debugging_gradients.py
"""

from lesson import build, code, exercise, md, setup

cells = [
    md(
        """
# Lesson 11 · Debugging gradients

When training goes wrong, the gradients usually know why. This lesson is a field guide to the
usual suspects, each one made to happen on purpose so that you can recognise it:

- gradients that **vanish** or **explode** on their way through a deep network, seen in the
  `TrainingMonitor`'s per-layer gradient norms (a deep sigmoid network against a ReLU one);
- a **dead ReLU**: a unit that never gets a gradient again;
- **NaN and inf**: which operations make them, and how to find the one that did;
- `gradcheck` catching a custom `backward` with a bug in it;
- **freezing** a layer with `requires_grad_(False)`;
- what happens to the loss curve when `zero_grad()` is forgotten.

Terms are explained in the [glossary](../glossary.md).
""",
        """
# 第 11 课 · 调试梯度

训练出问题时，梯度往往知道原因。这一课是一份“嫌疑人”手册：每种常见问题都故意制造一次，
让你以后一眼就能认出来：

- 梯度在深层网络中传播时**消失**或**爆炸**，从 `TrainingMonitor` 的逐层梯度范数里就能看出来
  （一个深层 sigmoid 网络对比一个 ReLU 网络）；
- **死亡 ReLU**：一个再也得不到梯度的神经元；
- **NaN 和 inf**：哪些运算会产生它们，以及怎样找出是哪一个运算产生的；
- `gradcheck` 抓出自定义 `backward` 里的错误；
- 用 `requires_grad_(False)` **冻结**一层；
- 忘了调用 `zero_grad()` 时，损失曲线会变成什么样。

术语的解释见[术语表](../glossary.md)。
""",
    ),
    setup(
        """
import matplotlib.pyplot as plt
import numpy as np

import autogradviz as agv
from autogradviz.exercises import answered  # used by the exercises' check cells
from autogradviz.widgets.monitor import layer_grad_norms  # the numbers the monitor draws

agv.manual_seed(0)
F = agv.nn.functional
X, y = agv.data.two_moons(200, noise=0.2, seed=0)  # the data of lesson 7, for every network here
"""
    ),
    md(
        r"""
## 1. Vanishing and exploding gradients

Take a stack of layers $z_k = W_k h_{k-1} + b_k$, $h_k = \sigma(z_k)$, and write
$\delta_k = \partial L / \partial h_k$ for the gradient that arrives at layer $k$'s output. The chain rule,
one layer back, is

$$\delta_{k-1} = W_k^\top\big(\sigma'(z_k) \odot \delta_k\big), \qquad
\frac{\partial L}{\partial W_k} = \big(\sigma'(z_k) \odot \delta_k\big)\, h_{k-1}^\top .$$

So on its way from the loss down to the first layer, the gradient is multiplied by $\sigma'$ once per layer.
For the sigmoid, $\sigma'(z) = \sigma(z)\,(1 - \sigma(z))$, which is at most $\tfrac14$ (at $z = 0$): over nine
sigmoid layers, the factors $\sigma'$ alone shrink the gradient by at least $4^9 \approx 2.6 \cdot 10^5$; only large
weights can make up for it. For ReLU, $\sigma'(z)$ is 1 where the unit is on and 0 where it is off: the gradient passes unchanged
through the units that are on. First, both derivatives, checked against autograd:
""",
        r"""
## 1. 梯度消失与梯度爆炸

设有一叠层 $z_k = W_k h_{k-1} + b_k$，$h_k = \sigma(z_k)$，记 $\delta_k = \partial L / \partial h_k$
为到达第 $k$ 层输出的梯度。往回走一层，链式法则给出

$$\delta_{k-1} = W_k^\top\big(\sigma'(z_k) \odot \delta_k\big), \qquad
\frac{\partial L}{\partial W_k} = \big(\sigma'(z_k) \odot \delta_k\big)\, h_{k-1}^\top 。$$

所以梯度从损失一路传到第一层，每经过一层就要乘一次 $\sigma'$。对 sigmoid 来说，
$\sigma'(z) = \sigma(z)\,(1 - \sigma(z))$，最大也只有 $\tfrac14$（在 $z = 0$ 处取到）：经过九个 sigmoid 层，仅 $\sigma'$ 这些因子就至少把梯度缩小
$4^9 \approx 2.6 \cdot 10^5$ 倍；只有足够大的权重才能把它补回来。对 ReLU 来说，神经元打开时 $\sigma'(z) = 1$，关闭时为 0：
梯度穿过打开的神经元时大小不变。先用 autograd 验证这两个导数：
""",
    ),
    code(
        """
z = agv.linspace(-6.0, 6.0, 13, requires_grad=True)
agv.sigmoid(z).sum().backward()  # each z[i] affects only its own output: z.grad[i] = sigmoid'(z[i])
s = agv.sigmoid(z).detach().numpy()
print("sigmoid' by autograd :", np.round(z.grad.numpy(), 4))
print("sigma * (1 - sigma)  :", np.round(s * (1 - s), 4))
print("same:", np.allclose(z.grad.numpy(), s * (1 - s)), "  largest:", z.grad.max().item(), "at z =", z[6].item())

r = agv.tensor([-2.0, -0.5, 0.5, 2.0], requires_grad=True)
agv.relu(r).sum().backward()
print("relu' at", r.tolist(), "is", r.grad.tolist())
print("4 ** 9 =", 4**9)
"""
    ),
    md(
        """
### Two deep networks, one difference

Both networks below have ten `Linear` layers of width 16 (`agv.models.mlp`), the same seed, the same
initialisation (`agv.nn.init.kaiming_normal_`, made for ReLU: its standard deviation
$\\sqrt{2 / n_{\\mathrm{in}}}$ (for $n_{\\mathrm{in}}$ inputs)
makes up for the half of the units that are off; biases zero) and the same data; only the
activation differs. Each one trains for 100 full-batch SGD steps under a `TrainingMonitor` given the model:
its right-hand panel shows the norm $\\lVert \\partial L / \\partial W_k \\rVert$ of each layer (weight and bias
together), on a log scale, with the first layer at the top. Below $10^{-7}$ the monitor colours a layer
orange (vanishing), above $10^{3}$ red (exploding): the thresholds are `VANISHING` and `EXPLODING` in
[autogradviz/widgets/monitor.py](../../autogradviz/widgets/monitor.py), function `grad_state`; the norms come
from `layer_grad_norms` in the same file, which the loop below also calls to print them.
The monitor redraws at most every 0.2 s, and less often when drawing is slow, so its bars show whichever step
it drew last (on a fast machine, one of the first); the table printed after the two runs gives the norms of
step 1 and step 100 exactly.
""",
        """
### 两个深层网络，只差一处

下面两个网络都有十个宽度为 16 的 `Linear` 层（`agv.models.mlp`），随机种子相同，初始化方式相同
（`agv.nn.init.kaiming_normal_`，这是为 ReLU 设计的初始化：它的标准差 $\\sqrt{2 / n_{\\mathrm{in}}}$（$n_{\\mathrm{in}}$ 为输入个数）
正好补偿了那一半关闭的神经元；偏置为零），数据也相同；唯一的区别是激活函数。
每个网络都在一个拿到了模型的 `TrainingMonitor` 下做 100 步全批量 SGD：监视器右侧的面板用对数坐标画出每一层的范数
$\\lVert \\partial L / \\partial W_k \\rVert$（权重和偏置合在一起），第一层在最上面。低于 $10^{-7}$ 的层被涂成橙色（梯度消失），
高于 $10^{3}$ 的涂成红色（梯度爆炸）：这两个阈值是
[autogradviz/widgets/monitor.py](../../autogradviz/widgets/monitor.py) 里的 `VANISHING` 和 `EXPLODING`，见函数 `grad_state`；
范数由同一文件里的 `layer_grad_norms` 计算，下面的循环也调用它来打印这些数。
监视器最多每 0.2 秒重画一次，画图慢时还会更少，所以条形显示的是它最后画的那一步（在快的机器上是最初的某一步）；
两次训练之后打印的表格则精确给出第 1 步和第 100 步的范数。
""",
    ),
    code(
        """
def deep_net(activation, scale=1.0):
    \"\"\"Ten Linear layers of width 16 with He (Kaiming) initialisation, every weight times `scale`.\"\"\"
    agv.manual_seed(0)  # the same weights for every activation
    net = agv.models.mlp([2] + [16] * 9 + [2], activation=activation)
    for layer in net:
        if isinstance(layer, agv.nn.Linear):
            agv.nn.init.kaiming_normal_(layer.weight, nonlinearity="relu")
            agv.nn.init.zeros_(layer.bias)
            with agv.no_grad():
                layer.weight.mul_(scale)
    return net


def train(net, steps, lr, title):
    \"\"\"Full-batch SGD on the moons under a monitor. Returns the losses and each step's layer norms.\"\"\"
    opt = agv.optim.SGD(net.parameters(), lr=lr)
    monitor = agv.viz.TrainingMonitor(steps, model=net, mode="widget", title=title)
    norms = []
    for _ in range(steps):
        opt.zero_grad()
        loss = F.cross_entropy(net(X), y)
        loss.backward()
        monitor.update(loss)
        norms.append(layer_grad_norms(net))  # read now: the next zero_grad() forgets the gradients
        opt.step()
    monitor.finish()
    return monitor.losses, norms


sigmoid_losses, sigmoid_norms = train(deep_net("sigmoid"), steps=100, lr=0.1, title="sigmoid")
"""
    ),
    code(
        """
relu_losses, relu_norms = train(deep_net("relu"), steps=100, lr=0.1, title="ReLU")
"""
    ),
    code(
        """
print("         sigmoid             ReLU")
print("layer    step 1   step 100   step 1   step 100")
for layer in sigmoid_norms[0]:
    sigmoid_row = f"{sigmoid_norms[0][layer]:.1e}  {sigmoid_norms[-1][layer]:.1e}"
    relu_row = f"{relu_norms[0][layer]:.1e}  {relu_norms[-1][layer]:.1e}"
    print(f"{layer:>5}   {sigmoid_row}    {relu_row}")
shrink = (sigmoid_norms[0]["18"] / sigmoid_norms[0]["0"]) ** (1 / 9)
print(f"sigmoid, step 1: each layer down divides the gradient by about {shrink:.1f} (sigmoid' alone: by 4 or more)")
print(f"loss after 100 steps: sigmoid {sigmoid_losses[-1]:.4f}, ReLU {relu_losses[-1]:.4f}  (ln 2 = {np.log(2):.4f})")
"""
    ),
    md(
        r"""
The network's own drawing shows the same thing. `agv.draw` draws a network layers first, one box per
module, and once `backward()` has run, each box with parameters adds the norm of their gradient (weight
and bias together: the number the monitor plots). Here is the sigmoid network at step 1, a fresh
`deep_net("sigmoid")` after one forward and one backward pass. Read the boxes from the loss at the bottom
upwards: each `Linear` layer's norm is about a third of the one below it, and by the first two layers it is
below $10^{-4}$ (the boxes print it in scientific notation, as the table above does).
""",
        r"""
网络自己的图也能说明同样的事。`agv.draw` 画网络时先按层画，每个模块一个方框；`backward()` 运行之后，
带参数的方框还会标出这些参数梯度的范数（权重和偏置合在一起，正是监视器画的那个数）。下面是第 1 步时的 sigmoid 网络：
一个新建的 `deep_net("sigmoid")`，做了一次前向传播和一次反向传播。从底部的损失往上读：每个 `Linear`
层的范数大约只有它下面那一层的三分之一，到最前面两层，已经小于 $10^{-4}$
（方框和上面的表格一样，用科学计数法写出它）。
""",
    ),
    code(
        """
sigmoid_net = deep_net("sigmoid")
sigmoid_loss = F.cross_entropy(sigmoid_net(X), y)
sigmoid_loss.backward()
agv.draw(sigmoid_loss)
"""
    ),
    md(
        r"""
At step 1 the sigmoid network's first layer gets a gradient about 90 000 times smaller than its last layer:
each layer down divides it by about 3.5, as $\sigma' \le \tfrac14$ predicts (the weights give a little back).
Only the last layers learn. Within 20 steps they have matched the 50/50 balance of the two classes, the loss
sits at ln 2 (a coin toss), and from then on every layer's gradient is about $10^{-5}$, four powers of ten
below the ReLU network's. The ReLU network, with the same weights, passes the gradient down at about the same
size in every layer, and learns. (The cure for sigmoid networks was not a
better optimizer but other activations, initialisations made for them, normalisation layers and residual
connections.)

### Exploding

The same ReLU network with every weight three times too large: each layer now multiplies what passes through
it by about 3, forwards and backwards. Ten layers make the logits, and the gradients, thousands of times too
big. The first SGD step throws the weights so far that the loss jumps from about $10^3$ to $10^{16}$; after
the second, the forward pass overflows and the loss is NaN (section 3 shows where NaN comes from). In the monitor,
the loss curve stops where the NaN begins, and the gradient bars are red.
""",
        r"""
在第 1 步，sigmoid 网络第一层得到的梯度比最后一层小约 90 000 倍：每往下一层，梯度就被除以大约 3.5，
正如 $\sigma' \le \tfrac14$ 所预言的（权重又补回来一点）。只有最后几层在学习。不到 20 步，它们就学会了两个类别五五开的比例，
损失停在 ln 2（相当于抛硬币），此后每一层的梯度都只有大约 $10^{-5}$，比 ReLU 网络的小四个数量级。
权重相同的 ReLU 网络在每一层都把梯度以差不多的大小传了下去，于是学得起来。（解决 sigmoid 网络的问题靠的不是更好的优化器，
而是换用别的激活函数、为它们设计的初始化、归一化层和残差连接。）

### 梯度爆炸

还是这个 ReLU 网络，只是每个权重都大了三倍：现在每一层都会把经过它的数放大大约 3 倍，前向传播和反向传播都是如此。
十层下来，logit 和梯度都大了几千倍。第一步 SGD 就把权重甩得太远，损失从大约 $10^3$ 跳到 $10^{16}$；
第二步之后，前向传播溢出，损失变成 NaN（第 3 节会讲 NaN 从哪里来）。在监视器里，损失曲线在 NaN 出现的地方断掉，梯度条形是红色的。
""",
    ),
    code(
        """
exploding_losses, exploding_norms = train(deep_net("relu", scale=3.0), steps=20, lr=0.1, title="ReLU, weights x3")
"""
    ),
    code(
        """
print("first losses:", [f"{value:.4g}" for value in exploding_losses[:4]])
print("gradient norms at step 1:", {layer: f"{norm:.2g}" for layer, norm in exploding_norms[0].items()})
print("gradient norms at step 3:", {layer: f"{norm:.2g}" for layer, norm in exploding_norms[2].items()})
"""
    ),
    md(
        r"""
## 2. A dead ReLU

A ReLU unit $h_j = \max(0, z_j)$ with $z_j = w_j^\top x + b_j$ passes gradient only for the inputs where it
is on:

$$\frac{\partial L}{\partial w_j} = \sum_n \frac{\partial L}{\partial h_{nj}}\, \mathbb{1}[z_{nj} > 0]\, x_n ,
\qquad \frac{\partial L}{\partial b_j} = \sum_n \frac{\partial L}{\partial h_{nj}}\, \mathbb{1}[z_{nj} > 0] .$$

If $z_{nj} \le 0$ for **every** input $x_n$, both sums are exactly zero: the optimizer never moves $w_j$ or
$b_j$, so the unit stays off for ever. It is **dead**. A too-large step can push a unit there; here we push
one by hand, setting the bias of unit 3 to −10, and look for it the way you would in a real network: by
counting the rows of the weight gradient that are all zero.
""",
        r"""
## 2. 死亡 ReLU

一个 ReLU 神经元 $h_j = \max(0, z_j)$，其中 $z_j = w_j^\top x + b_j$，只在它打开的那些输入上传递梯度：

$$\frac{\partial L}{\partial w_j} = \sum_n \frac{\partial L}{\partial h_{nj}}\, \mathbb{1}[z_{nj} > 0]\, x_n ，
\qquad \frac{\partial L}{\partial b_j} = \sum_n \frac{\partial L}{\partial h_{nj}}\, \mathbb{1}[z_{nj} > 0] 。$$

如果对**每一个**输入 $x_n$ 都有 $z_{nj} \le 0$，这两个和就恰好为零：优化器永远不会改变 $w_j$ 和 $b_j$，
这个神经元就永远关着。它“死”了。步子太大就可能把一个神经元推到这种境地；这里我们亲手推一个：
把 3 号神经元的偏置设为 −10，然后像在真实网络里那样找出它：数一数权重梯度里哪些行全为零。
""",
    ),
    code(
        """
agv.manual_seed(0)
small = agv.models.mlp([2, 8, 2])
with agv.no_grad():
    small[0].bias[3] = -10.0  # as if one bad step had pushed unit 3 far below zero

F.cross_entropy(small(X), y).backward()
zero_rows = (small[0].weight.grad == 0).all(dim=1)  # one row of the weight gradient per unit
print("all-zero gradient rows:", np.flatnonzero(zero_rows.numpy()).tolist())
with agv.no_grad():
    pre_activation = small[0](X)  # z for every input (rows) and unit (columns)
print("largest z of each unit over all 200 inputs:", np.round(pre_activation.max(dim=0).values.numpy(), 2))
"""
    ),
    md(
        """
The formula says more than "zero now": zero for ever. Train for 200 Adam steps and compare each unit's
incoming weights before and after. Adam rescales gradients, but zero stays zero.
""",
        """
公式说的不只是“现在为零”，而是“永远为零”。用 Adam 训练 200 步，比较每个神经元的输入权重在训练前后的变化。
Adam 会对梯度做缩放，但零缩放后还是零。
""",
    ),
    code(
        """
before = small[0].weight.detach().clone()
opt = agv.optim.Adam(small.parameters(), lr=0.05)
for _ in range(200):
    opt.zero_grad()
    F.cross_entropy(small(X), y).backward()
    opt.step()
change = (small[0].weight.detach() - before).abs().max(dim=1).values
print("largest change of each unit's weights:", np.round(change.numpy(), 3))
"""
    ),
    md(
        """
In real training nobody sets a bias to −10; a learning rate that is too large does it for you. The
network `suspect` below (two hidden layers of 12 ReLU units) was trained with SGD at `lr=2.0`, far too
much for it. Exercise 1 asks you to find its dead units.
""",
        """
真实训练中没人会把偏置设成 −10，学习率太大就会替你做这件事。下面的网络 `suspect`（两个各有 12 个 ReLU
神经元的隐藏层）用 `lr=2.0` 的 SGD 训练过，这个学习率对它来说太大了。练习 1 要你找出它的死亡神经元。
""",
    ),
    code(
        """
agv.manual_seed(0)
suspect = agv.models.mlp([2, 12, 12, 2])
opt = agv.optim.SGD(suspect.parameters(), lr=2.0)
for _ in range(20):
    opt.zero_grad()
    suspect_loss = F.cross_entropy(suspect(X), y)
    suspect_loss.backward()
    opt.step()
print(f"loss after 20 steps at lr=2.0: {suspect_loss.item():.4f}")
"""
    ),
    md(
        r"""
## 3. NaN and inf

Floating-point numbers have two special values. `inf` is what a result too large to represent becomes;
`nan` (not a number) is the answer to a question without one, such as $0/0$, $\infty - \infty$ or
$0 \cdot \infty$. Once one appears, every operation that touches it passes it on. The usual sources in a
network:

- $\ln 0 = -\infty$, and its derivative $\frac{d}{dx}\ln x = \frac1x$ is $\infty$ at 0;
- $\frac{d}{dx}\sqrt{x} = \frac{1}{2\sqrt{x}}$ is $\infty$ at 0, although $\sqrt 0 = 0$ is harmless;
- $e^x$ is larger than float32's largest number, $3.4 \cdot 10^{38}$, as soon as $x > \ln(3.4\cdot 10^{38}) \approx 88.7$;
- the backward pass multiplies: $\frac{d}{dx}\sqrt{x^2} = \frac{1}{2\sqrt{x^2}} \cdot 2x$ is $\infty \cdot 0 =$ NaN
  at 0, although $\sqrt{x^2} = |x|$ has a perfectly good value there. The same happens to
  `where(x > 0, log(x), 0)`: the branch that is not chosen still sends $0 \cdot \infty$ to $x$.

Each one, measured:
""",
        r"""
## 3. NaN 与 inf

浮点数有两个特殊值。`inf` 是大到无法表示的结果变成的样子；`nan`（not a number，“不是数”）则是没有答案的问题的答案，
比如 $0/0$、$\infty - \infty$ 或 $0 \cdot \infty$。一旦出现，任何碰到它的运算都会把它传下去。网络里常见的来源有：

- $\ln 0 = -\infty$，而它的导数 $\frac{d}{dx}\ln x = \frac1x$ 在 0 处是 $\infty$；
- $\frac{d}{dx}\sqrt{x} = \frac{1}{2\sqrt{x}}$ 在 0 处是 $\infty$，尽管 $\sqrt 0 = 0$ 本身没有问题；
- 只要 $x > \ln(3.4\cdot 10^{38}) \approx 88.7$，$e^x$ 就超过了 float32 能表示的最大数 $3.4 \cdot 10^{38}$；
- 反向传播要做乘法：$\frac{d}{dx}\sqrt{x^2} = \frac{1}{2\sqrt{x^2}} \cdot 2x$ 在 0 处是 $\infty \cdot 0 =$ NaN，
  尽管 $\sqrt{x^2} = |x|$ 在那里的值完全正常。`where(x > 0, log(x), 0)` 也是如此：没被选中的那个分支仍然会把
  $0 \cdot \infty$ 送给 $x$。

逐个测一下：
""",
    ),
    code(
        """
def value_and_grad(f, at):
    \"\"\"f(x) and df/dx at one point.\"\"\"
    x = agv.tensor(at, requires_grad=True)
    out = f(x)
    out.backward()
    return out.item(), x.grad.item()


cases = {
    "log(x) at 0": (agv.log, 0.0),
    "sqrt(x) at 0": (agv.sqrt, 0.0),
    "exp(x) at 89": (agv.exp, 89.0),
    "x / x at 0": (lambda x: x / x, 0.0),
    "exp(x) - exp(x) at 89": (lambda x: agv.exp(x) - agv.exp(x), 89.0),
    "sqrt(x ** 2) at 0": (lambda x: agv.sqrt(x**2), 0.0),
    "where(x > 0, log(x), 0) at 0": (lambda x: agv.where(x > 0, agv.log(x), agv.zeros_like(x)), 0.0),
}
for name, (f, at) in cases.items():
    value, grad = value_and_grad(f, at)
    print(f"{name:30s} value {value:<6}  gradient {grad}")
largest = np.finfo(np.float32).max
print(f"float32's largest number {largest:.4g}, ln of it {np.log(largest):.4f}:", agv.exp(agv.tensor([88.0, 89.0])))
"""
    ),
    md(
        """
### Finding the op that made it

In the forward pass, `agv.isnan(t).any()` on each intermediate tensor tells you where a NaN first appears.
In the backward pass the values are gone by the time you see `x.grad`. PyTorch has a switch for this,
`torch.autograd.detect_anomaly()`, which names the first backward function that returns NaN; autogradviz
has no such switch, but it has the two pieces it is made of.

**Hooks** (lesson 8). `t.register_hook(fn)` calls `fn` with the gradient that arrives at `t` during backward. A hook
on each suspect tensor shows where the gradient turns bad:
""",
        """
### 找出是哪个运算干的

在前向传播中，对每个中间张量调用 `agv.isnan(t).any()`，就能知道 NaN 最早出现在哪里。而在反向传播中，
等你看到 `x.grad` 的时候，中间的值早已不在了。PyTorch 为此提供了一个开关 `torch.autograd.detect_anomaly()`，
它会指出第一个返回 NaN 的反向函数；autogradviz 没有这个开关，但有构成它的两样东西。

**钩子**（第 8 课）。`t.register_hook(fn)` 会在反向传播时用到达 `t` 的梯度调用 `fn`。在每个可疑的张量上挂一个钩子，
就能看出梯度是在哪里变坏的：
""",
    ),
    code(
        """
def report(name):
    \"\"\"A hook that prints the gradient arriving at `name`, and whether it holds a NaN.\"\"\"

    def hook(grad):
        print(f"gradient at {name:5s}: {grad.tolist()}   NaN: {agv.isnan(grad).any().item()}")

    return hook


x = agv.tensor([0.0, 1.0, 2.0], requires_grad=True)
logs = agv.log(x)
safe = agv.where(x > 0, logs, agv.zeros_like(x))
total = safe.sum()
for name, t in {"safe": safe, "logs": logs, "x": x}.items():
    t.register_hook(report(name))
total.backward()
"""
    ),
    md(
        """
The gradient at `logs` is finite, the one at `x` is not: the node between them, `log`'s backward, made the
NaN ($0 \\cdot \\frac10$). The drawing shows where it hides: `logs` holds $-\\infty$ at 0, which `where` keeps out
of the value but not out of the gradient, and `x.grad` starts with NaN:
""",
        """
到达 `logs` 的梯度是有限的，到达 `x` 的却不是：两者之间的节点，也就是 `log` 的反向节点，产生了 NaN
（$0 \\cdot \\frac10$）。下面的图显示了它藏在哪里：`logs` 在 0 处存着 $-\\infty$，`where` 把它挡在了值的外面，
却没有挡在梯度的外面，于是 `x.grad` 的第一个元素是 NaN：
""",
    ),
    code(
        """
agv.draw(total, names={"x": x, "logs": logs, "safe": safe, "total": total}, rankdir="TB")
"""
    ),
    md(
        """
**The engine's own walk.** `agv.backward_steps` replays backward one node at a time (lesson 6; the code is
[autogradviz/engine.py](../../autogradviz/engine.py), function `backward_steps`): each step has the node, the
gradient it received and the gradients it sends. `scan` below flags each node that sends something worse
than it received (ok < inf < nan): that is what `detect_anomaly` looks for, without needing hooks
on every tensor.
""",
        """
**引擎自己的遍历。** `agv.backward_steps` 一次一个节点地重放反向传播（第 6 课；代码见
[autogradviz/engine.py](../../autogradviz/engine.py) 中的函数 `backward_steps`）：每一步都给出节点、它收到的梯度，
以及它送出的梯度。下面的 `scan` 会标出每一个“送出的比收到的更糟”（ok < inf < nan）的节点：这正是
`detect_anomaly` 要找的东西，而且不必在每个张量上都挂钩子。
""",
    ),
    code(
        """
BADNESS = {"ok": 0, "inf": 1, "nan": 2}


def kind(values):
    \"\"\"'nan', 'inf' or 'ok': the worst value in an array of gradients.\"\"\"
    values = np.asarray(values, dtype=float)
    if np.isnan(values).any():
        return "nan"
    return "inf" if np.isinf(values).any() else "ok"


def scan(loss):
    \"\"\"Replay backward node by node; print what each node receives and sends, and flag the culprits.\"\"\"
    for step in agv.backward_steps([loss], [agv.ones_like(loss)], retain_graph=True, accumulate=False):
        received = kind(step.grad)
        sent = [kind(g) for g in step.sent if g is not None]  # None: an input that needs no gradient
        worse = any(BADNESS[s] > BADNESS[received] for s in sent)
        flag = f"   <-- makes {max(sent, key=BADNESS.get)}" if worse else ""
        print(f"{step.index}: {step.node.name():16s} receives {received:3s}  sends {sent}{flag}")


x = agv.tensor([0.0, 1.0, 2.0], requires_grad=True)  # the same graph again, without the hooks
scan(agv.where(x > 0, agv.log(x), agv.zeros_like(x)).sum())
"""
    ),
    md(
        """
The fix is to keep the bad value out of the op, not to throw its result away afterwards: take the log of
`where(x > 0, x, 1)`, which is never 0. Now the unchosen branch sends $0 \\cdot \\frac11 = 0$, and the
gradient is $\\frac1x$ where $x > 0$ and 0 elsewhere:
""",
        """
修正的办法是不让坏值进入运算，而不是事后把运算结果扔掉：对 `where(x > 0, x, 1)` 取对数，它永远不会是 0。
这样，没被选中的分支送出的是 $0 \\cdot \\frac11 = 0$，梯度在 $x > 0$ 处是 $\\frac1x$，其他地方是 0：
""",
    ),
    code(
        """
x = agv.tensor([0.0, 1.0, 2.0], requires_grad=True)
fixed = agv.where(x > 0, agv.log(agv.where(x > 0, x, agv.ones_like(x))), agv.zeros_like(x))
fixed.sum().backward()
expected = np.array([0.0, 1 / 1.0, 1 / 2.0])
print("x.grad:", x.grad.tolist(), "  as derived:", np.allclose(x.grad.numpy(), expected))
"""
    ),
    md(
        r"""
## 4. gradcheck catches a wrong backward

With `agv.autograd.Function` you write an op's backward yourself (lesson 10), and nothing stops you from
writing it wrong: training still runs, only worse. `agv.autograd.gradcheck(fn, inputs)` compares the
gradients that backward computes with **central differences**, for every input element:

$$\frac{f(x + \varepsilon) - f(x - \varepsilon)}{2\varepsilon} = f'(x) + \frac{\varepsilon^2}{6} f'''(x) + \dots$$

The error shrinks like $\varepsilon^2$, so with $\varepsilon = 10^{-6}$ in float64 (gradcheck copies the inputs
to float64) the estimate is good to many digits. The code is in
[autogradviz/finite_differences.py](../../autogradviz/finite_differences.py), function `gradcheck`. The formula
by hand, for the sigmoid at 0.3:
""",
        r"""
## 4. gradcheck 抓出写错的反向传播

用 `agv.autograd.Function` 可以亲手写一个运算的反向传播（第 10 课），但没有什么能阻止你写错：训练照样能跑，
只是效果更差。`agv.autograd.gradcheck(fn, inputs)` 对每一个输入元素，把反向传播算出的梯度和**中心差分**作比较：

$$\frac{f(x + \varepsilon) - f(x - \varepsilon)}{2\varepsilon} = f'(x) + \frac{\varepsilon^2}{6} f'''(x) + \dots$$

误差随 $\varepsilon^2$ 缩小，所以在 float64 下取 $\varepsilon = 10^{-6}$（gradcheck 会把输入复制成 float64），
估计值能准确到很多位。代码在 [autogradviz/finite_differences.py](../../autogradviz/finite_differences.py)
的函数 `gradcheck` 里。先在 0.3 处对 sigmoid 手算一遍这个公式：
""",
    ),
    code(
        """
eps = 1e-6
at = agv.tensor(0.3, dtype=agv.float64, requires_grad=True)
central = (agv.sigmoid(at + eps) - agv.sigmoid(at - eps)).item() / (2 * eps)
agv.sigmoid(at).backward()
print(f"central difference {central:.10f}, autograd {at.grad.item():.10f}, equal: {np.isclose(central, at.grad.item())}")
"""
    ),
    md(
        """
Now a sigmoid written as a custom `Function`, with a typical bug: its backward multiplies by
$\\sigma(x)$ and forgets the factor $1 - \\sigma(x)$. Nothing fails when you use it; gradcheck does:
""",
        """
下面把 sigmoid 写成一个自定义 `Function`，并带上一个典型的错误：它的反向传播乘上了 $\\sigma(x)$，
却忘了因子 $1 - \\sigma(x)$。使用它时什么都不会报错；gradcheck 却会：
""",
    ),
    code(
        """
class BadSigmoid(agv.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        s = 1 / (1 + agv.exp(-x))
        ctx.save_for_backward(s)
        return s

    @staticmethod
    def backward(ctx, grad_output):
        (s,) = ctx.saved_tensors
        return grad_output * s  # wrong: the derivative is s * (1 - s)


points = agv.tensor([-1.0, 0.0, 2.0], dtype=agv.float64, requires_grad=True)
print("forward is right:", np.allclose(BadSigmoid.apply(points).detach().numpy(), agv.sigmoid(points).detach().numpy()))
"""
    ),
    code(
        """
agv.autograd.gradcheck(BadSigmoid.apply, (points,))
""",
        "raises-exception",
    ),
    md(
        """
The message names the worst element and both numbers. At $x = 2$, $\\sigma = 0.881$ and
$\\sigma(1-\\sigma) = 0.105$: the analytic value is $\\sigma$ itself, the numerical one the true derivative. With
the factor put back, gradcheck returns True:
""",
        """
报错信息指出了差得最多的元素和两个数。在 $x = 2$ 处，$\\sigma = 0.881$，$\\sigma(1-\\sigma) = 0.105$：
解析值正是 $\\sigma$ 本身，数值估计则是真正的导数。把缺的因子补回去，gradcheck 就返回 True：
""",
    ),
    code(
        """
class GoodSigmoid(BadSigmoid):
    @staticmethod
    def backward(ctx, grad_output):
        (s,) = ctx.saved_tensors
        return grad_output * s * (1 - s)


s2 = agv.sigmoid(agv.tensor(2.0)).item()
print(f"sigma(2) = {s2:.3f}, sigma(2) * (1 - sigma(2)) = {s2 * (1 - s2):.3f}")
print("gradcheck:", agv.autograd.gradcheck(GoodSigmoid.apply, (points,)))
"""
    ),
    md(
        """
## 5. Freezing a layer

`module.requires_grad_(False)` makes a module's parameters stop asking for gradients, for example to keep
a pretrained layer as it is while the others train. Three things follow:

- backward writes no `.grad` for them: it stays `None`;
- the optimizer skips a parameter whose `.grad` is `None`, as PyTorch does
  ([autogradviz/optim.py](../../autogradviz/optim.py), method `Optimizer._checked_updates`), so it never moves;
- the gradient still flows **through** the frozen layer to the layers before it: $\\delta_{k-1} = W_k^\\top(\\dots)$
  needs the value of $W_k$, not its gradient.
""",
        """
## 5. 冻结一层

`module.requires_grad_(False)` 让一个模块的参数不再需要梯度，比如在训练其他层时保持一个预训练好的层不变。
这会带来三个结果：

- 反向传播不会为它们写入 `.grad`：它一直是 `None`；
- 优化器会跳过 `.grad` 为 `None` 的参数，和 PyTorch 一样
  （[autogradviz/optim.py](../../autogradviz/optim.py) 中的方法 `Optimizer._checked_updates`），所以它永远不动；
- 梯度仍然会**穿过**被冻结的层，流到它前面的层：$\\delta_{k-1} = W_k^\\top(\\dots)$ 需要的是 $W_k$ 的值，而不是它的梯度。
""",
    ),
    code(
        """
agv.manual_seed(0)
partly_frozen = agv.models.mlp([2, 8, 8, 2])
partly_frozen[2].requires_grad_(False)  # freeze the middle Linear layer
before = {name: p.detach().clone() for name, p in partly_frozen.named_parameters()}
opt = agv.optim.Adam(partly_frozen.parameters(), lr=0.01)
for _ in range(50):
    opt.zero_grad()
    F.cross_entropy(partly_frozen(X), y).backward()
    opt.step()
for name, p in partly_frozen.named_parameters():
    moved = (p.detach() - before[name]).abs().max().item()
    print(f"{name:9s} requires_grad={str(p.requires_grad):5s}  grad is None: {str(p.grad is None):5s}  largest change {moved:.4f}")
"""
    ),
    md(
        r"""
## 6. What zero_grad is for

`backward()` **adds** to `.grad` (lessons 2 and 7), which is why every training step starts with
`zero_grad()`. To see what it protects, take one parameter and the loss $L(w) = (w - 3)^2$, from $w_0 = 0$,
with SGD at $\eta = 0.1$. Write $e = w - 3$. With `zero_grad()`, each step uses this step's gradient $2e_k$:

$$e_{k+1} = e_k - 2\eta\, e_k = 0.8\, e_k, \qquad L_k = e_k^2 = 9 \cdot 0.64^k .$$
""",
        r"""
## 6. zero_grad 是干什么的

`backward()` 会把梯度**累加**到 `.grad` 上（第 2 课和第 7 课），所以每一步训练都要先调用 `zero_grad()`。
为了看清它防的是什么，取一个参数和损失 $L(w) = (w - 3)^2$，从 $w_0 = 0$ 出发，用 $\eta = 0.1$ 的 SGD。
记 $e = w - 3$。调用 `zero_grad()` 时，每一步用的都是这一步的梯度 $2e_k$：

$$e_{k+1} = e_k - 2\eta\, e_k = 0.8\, e_k, \qquad L_k = e_k^2 = 9 \cdot 0.64^k 。$$
""",
    ),
    code(
        """
w = agv.tensor(0.0, requires_grad=True)
opt = agv.optim.SGD([w], lr=0.1)
losses_with = []
for _ in range(30):
    opt.zero_grad()
    loss = (w - 3) ** 2
    loss.backward()
    opt.step()
    losses_with.append(loss.item())
print("first losses:", [round(value, 4) for value in losses_with[:6]])
print("9 * 0.64**k :", [round(9 * 0.64**k, 4) for k in range(6)])
print("same for all 30 steps:", np.allclose(losses_with, 9 * 0.64 ** np.arange(30), atol=1e-6))
"""
    ),
    md(
        """
Exercise 4 asks what the curve looks like when the `opt.zero_grad()` line is removed. Predict before you run it.

## Exercises

**Exercise 1: find the dead units.** After one `backward()` of `F.cross_entropy(suspect(X), y)`, look at
the gradient of `suspect[2].weight` (one row per unit of the second hidden layer) and set `dead_units` to
the sorted list of the units whose row is all zero.
""",
        """
练习 4 会问：去掉 `opt.zero_grad()` 这一行之后，曲线会是什么样子。运行之前先预测一下。

## 练习

**练习 1：找出死亡神经元。** 对 `F.cross_entropy(suspect(X), y)` 做一次 `backward()`，然后看 `suspect[2].weight`
的梯度（第二个隐藏层的每个神经元对应一行），把整行都为零的那些神经元的编号按从小到大排成列表，存为 `dead_units`。
""",
    ),
    *exercise(
        "11.1",
        answers=("dead_units",),
        solution="""
suspect.zero_grad()
F.cross_entropy(suspect(X), y).backward()
all_zero = (suspect[2].weight.grad == 0).all(dim=1)
dead_units = np.flatnonzero(all_zero.numpy()).tolist()
print("dead units of the second hidden layer:", dead_units)
""",
        check="""
with agv.no_grad():
    z2 = suspect[2](suspect[1](suspect[0](X)))  # the second layer's pre-activations, for every input
never_on = np.flatnonzero((z2.numpy() <= 0).all(axis=0)).tolist()
assert list(dead_units) == never_on, (
    "a dead unit's row of suspect[2].weight.grad is all zero: (suspect[2].weight.grad == 0).all(dim=1) "
    "marks them; list their indices in increasing order"
)
print(f"Right: units {never_on} are off for all {len(X)} inputs, so no gradient will ever reach them.")
""",
    ),
    md(
        """
**Exercise 2: which op makes the NaN?** The distance between two points that happen to coincide, plus a
small penalty. **Predict first** from section 3: which backward node will be the first to send an inf, and
which the first to send a NaN? Then confirm with `scan(dist_loss)`, and set `inf_node` and `nan_node` to
those nodes' names (such as `"MulBackward0"`).
""",
        """
**练习 2：是哪个运算产生了 NaN？** 两个恰好重合的点之间的距离，再加上一个小的惩罚项。**先根据第 3 节预测**：
哪个反向节点会最先送出 inf，哪个会最先送出 NaN？然后用 `scan(dist_loss)` 验证，把 `inf_node` 和 `nan_node`
设为这两个节点的名字（形如 `"MulBackward0"`）。
""",
    ),
    code(
        """
p = agv.tensor([1.0, 2.0], requires_grad=True)
q = agv.tensor([1.0, 2.0], requires_grad=True)
dist_loss = ((p - q) ** 2).sum().sqrt() + 0.1 * (p**2).sum()
print("loss:", dist_loss.item())
"""
    ),
    *exercise(
        "11.2",
        answers=("inf_node", "nan_node"),
        solution="""
scan(dist_loss)
inf_node = "SqrtBackward0"  # 1 / (2 * sqrt(0)) = inf
nan_node = "PowBackward0"  # inf times the square's local derivative 2 * (p - q) = 0
""",
        check="""
first_sender = {}
for step in agv.backward_steps([dist_loss], [agv.ones_like(dist_loss)], retain_graph=True, accumulate=False):
    for g in step.sent:
        if g is not None:
            first_sender.setdefault(kind(g), step.node.name())
assert inf_node == first_sender["inf"], (
    "the first inf: which op has an infinite derivative where its input is 0? (see section 3)"
)
assert nan_node == first_sender["nan"], (
    "the first NaN: which node receives inf and multiplies it by a local derivative that is 0 here?"
)
dist_loss.backward()
print("Right: sqrt sends inf, the square turns inf × 0 into NaN; p.grad is", p.grad.tolist())
""",
    ),
    md(
        r"""
**Exercise 3: fix the backward.** `Hypot` computes $r = \sqrt{a^2 + b^2}$ elementwise, and its backward has a
bug that gradcheck finds below. Derive $\partial r / \partial a$ and $\partial r / \partial b$, find the bug,
and define `FixedHypot`, the same `agv.autograd.Function` with a correct backward.
""",
        r"""
**练习 3：修好反向传播。** `Hypot` 逐元素计算 $r = \sqrt{a^2 + b^2}$，它的反向传播有一个错误，下面的 gradcheck
会把它找出来。推导 $\partial r / \partial a$ 和 $\partial r / \partial b$，找出错误，然后定义 `FixedHypot`：
同样的 `agv.autograd.Function`，但反向传播是对的。
""",
    ),
    code(
        """
class Hypot(agv.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        r = agv.sqrt(a * a + b * b)
        ctx.save_for_backward(a, b, r)
        return r

    @staticmethod
    def backward(ctx, grad_r):
        a, b, r = ctx.saved_tensors
        return grad_r * b / r, grad_r * a / r


a = agv.tensor([3.0, 1.0], dtype=agv.float64, requires_grad=True)
b = agv.tensor([4.0, 2.0], dtype=agv.float64, requires_grad=True)
print("r =", Hypot.apply(a, b).tolist())
try:
    agv.autograd.gradcheck(Hypot.apply, (a, b))
except agv.autograd.GradcheckError as error:
    print("GradcheckError:", error)
"""
    ),
    *exercise(
        "11.3",
        answers=("FixedHypot",),
        solution="""
class FixedHypot(agv.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        r = agv.sqrt(a * a + b * b)
        ctx.save_for_backward(a, b, r)
        return r

    @staticmethod
    def backward(ctx, grad_r):
        a, b, r = ctx.saved_tensors
        return grad_r * a / r, grad_r * b / r  # dr/da = a / r, dr/db = b / r


print("gradcheck:", agv.autograd.gradcheck(FixedHypot.apply, (a, b)))
""",
        check="""
assert isinstance(FixedHypot, type) and issubclass(FixedHypot, agv.autograd.Function), (
    "FixedHypot should be a class derived from agv.autograd.Function, like Hypot"
)
agv.manual_seed(1)
a_check = agv.randn(5, dtype=agv.float64, requires_grad=True)
b_check = agv.randn(5, dtype=agv.float64, requires_grad=True)
assert agv.autograd.gradcheck(FixedHypot.apply, (a_check, b_check), raise_exception=False), (
    "gradcheck still fails: r = sqrt(a² + b²), so dr/da = a / r and dr/db = b / r. Which one goes where?"
)
r_check = FixedHypot.apply(a_check, b_check)
r_check.sum().backward()
assert np.allclose(a_check.grad.numpy(), a_check.detach().numpy() / np.hypot(a_check.detach().numpy(), b_check.detach().numpy()))
print("Right: the bug was a swap. Each input's gradient is its own value over r.")
""",
    ),
    md(
        r"""
**Exercise 4: forget zero_grad.** Take the loop of section 6 and delete `opt.zero_grad()`. Now `.grad`
holds the sum of all gradients so far. Before running it, set `prediction` to `"converges"`, `"oscillates"`
or `"diverges"`: what does the loss do over 30 steps? (To derive it: subtract two consecutive updates of
$e_k$.) Then run the loop without `zero_grad()` and set `losses_without` to its 30 losses.
""",
        r"""
**练习 4：忘了 zero_grad。** 拿第 6 节的循环，删掉 `opt.zero_grad()`。这样 `.grad` 里存的就是到目前为止所有梯度之和。
运行之前，先把 `prediction` 设为 `"converges"`（收敛）、`"oscillates"`（振荡）或 `"diverges"`（发散）：
30 步里损失会怎样变化？（推导方法：把 $e_k$ 相邻两次的更新式相减。）然后运行去掉 `zero_grad()` 的循环，
把它的 30 个损失存为 `losses_without`。
""",
    ),
    *exercise(
        "11.4",
        answers=("prediction", "losses_without"),
        solution="""
# e_{k+1} = e_k - 0.2 (e_0 + ... + e_k); minus e_k = e_{k-1} - 0.2 (e_0 + ... + e_{k-1}) gives
# e_{k+1} = 1.8 e_k - e_{k-1}: the roots of r² - 1.8 r + 1 = 0 have |r| = 1, so e swings without shrinking
prediction = "oscillates"
w = agv.tensor(0.0, requires_grad=True)
opt = agv.optim.SGD([w], lr=0.1)
losses_without = []
for _ in range(30):
    loss = (w - 3) ** 2  # no opt.zero_grad(): backward adds this gradient to all the earlier ones
    loss.backward()
    opt.step()
    losses_without.append(loss.item())
print([round(value, 2) for value in losses_without])
""",
        check="""
assert prediction in ("converges", "oscillates", "diverges"), 'prediction: one of "converges", "oscillates", "diverges"'
w_by_hand, gradient_sum, expected = 0.0, 0.0, []
for _ in range(30):  # the same loop in plain numbers: .grad is the running sum of 2 (w - 3)
    expected.append((w_by_hand - 3) ** 2)
    gradient_sum += 2 * (w_by_hand - 3)
    w_by_hand -= 0.1 * gradient_sum
assert len(losses_without) == 30 and np.allclose(losses_without, expected, atol=1e-3), (
    "losses_without should be the 30 losses of section 6's loop with the opt.zero_grad() line removed"
)
assert prediction == "oscillates", (
    f"the run disagrees with {prediction!r}: the loss goes back up to {max(losses_without[5:]):.2f}. Subtract "
    "e_k = e_(k-1) - 0.2 (e_0 + ... + e_(k-1)) from e_(k+1) = e_k - 0.2 (e_0 + ... + e_k)"
)
fig, ax = plt.subplots(figsize=(6, 3))
ax.plot(losses_with, marker=".", label="with zero_grad()")
ax.plot(losses_without, marker=".", label="without zero_grad()")
ax.set_xlabel("step")
ax.set_ylabel("loss")
ax.set_ylim(-0.3, 12.5)  # room for the legend above the curves
ax.legend(loc="upper center", ncol=2)
plt.show()
print("Right: the summed gradient acts like momentum that never decays: w swings around 3 for ever.")
""",
    ),
]

if __name__ == "__main__":
    build(11, "debugging_gradients", cells)
