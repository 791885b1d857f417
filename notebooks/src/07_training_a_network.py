"""Lesson 7: training a network. Model, loss and optimizer take over what lessons 2–4 did
by hand: an MLP on two moons under a TrainingMonitor, then the Paddle tutorial's VGG-11 step.

    cd notebooks/src && ../../.venv/bin/python 07_training_a_network.py
"""

from lesson import build, code, exercise, md, setup

cells = [
    md(
        """
# Lesson 7 · Training a network

In lessons 2–4 you did every part of training yourself: you built the graph, called `backward()`,
read `.grad`, updated the weights with `w.data -= lr * w.grad`, and zeroed the gradients before the next
round. Real training code hands these chores to three objects:

- the **model** (an `agv.nn.Module`) owns the parameters and runs the **forward** pass: input → prediction;
- the **loss function** (here `agv.nn.functional.cross_entropy`) turns the predictions into one number
  that says how wrong they are;
- the **optimizer** (here `agv.optim.Adam`) **updates** the parameters from their gradients
  (`step()`) and **clears** the gradients (`zero_grad()`).

`loss.backward()` in the middle is the very same engine walk as before: it fills every parameter's `.grad`.
This lesson trains a small network on a toy dataset, then runs the Paddle tutorial's single training step
on VGG-11, a network with 133 million parameters. On the way, it checks autogradviz's gradients
against real PyTorch. Terms are in the [glossary](../glossary.md).
""",
        """
# 第 7 课 · 训练一个网络

在第 2–4 课里，训练的每一步都是你亲手完成的：搭建计算图，调用 `backward()`，读取 `.grad`，
用 `w.data -= lr * w.grad` 更新权重，并在下一轮之前把梯度清零。真正的训练代码把这些杂事交给三个对象：

- **模型**（一个 `agv.nn.Module`）持有参数，负责**前向传播**：输入 → 预测；
- **损失函数**（这里是 `agv.nn.functional.cross_entropy`）把预测变成一个数，衡量预测错得有多离谱；
- **优化器**（这里是 `agv.optim.Adam`）根据梯度**更新**参数（`step()`），并**清空**梯度（`zero_grad()`）。

夹在中间的 `loss.backward()` 和之前完全一样，还是那次引擎遍历：它把每个参数的 `.grad` 填好。
本课先在一个玩具数据集上训练一个小网络，再照着 Paddle 教程，在拥有 1.33 亿个参数的 VGG-11 上走完一步训练。中途还会拿真正的 PyTorch
来核对 autogradviz 算出的梯度。术语见[术语表](../glossary.md)。
""",
    ),
    setup(
        """
import autogradviz as agv
from autogradviz.exercises import answered  # used by the exercises' check cells

agv.manual_seed(0)
F = agv.nn.functional  # the usual short name, as in PyTorch's `import torch.nn.functional as F`
"""
    ),
    md(
        """
## The data: two moons

`agv.data.two_moons(n, noise, seed)` returns `n` points `X` of shape `(n, 2)` (float32) and their labels `y`
(0 or 1, int64): two interleaved half circles. No straight line separates them, so the logistic regression
of lesson 4 cannot; a network with a hidden layer can. A second set drawn with another seed is the
**test set**: points the network never trains on, to check that it learned the shape and not just the points.
""",
        """
## 数据：两个月牙

`agv.data.two_moons(n, noise, seed)` 返回 `n` 个点 `X`（形状 `(n, 2)`，float32）以及它们的标签 `y`
（0 或 1，int64）：两个互相交错的半圆。没有哪条直线能把它们分开，所以第 4 课的逻辑回归做不到，
而带隐藏层的网络可以。用另一个种子再生成一组数据作为**测试集**：网络训练时从没见过这些点，
用它来检验网络学到的是月牙的形状，而不是死记住了训练点。
""",
    ),
    code(
        """
X, y = agv.data.two_moons(200, noise=0.2, seed=0)
X_test, y_test = agv.data.two_moons(200, noise=0.2, seed=1)
print(X.shape, X.dtype, y.shape, y.dtype)
print(X[:3])
print(y[:10])
"""
    ),
    md(
        """
A small helper draws the points and, once we have a network, the class it predicts at every place in the plane
(it runs the network under `no_grad()`: drawing needs no gradients).
""",
        """
下面这个小函数把数据点画出来；有了网络之后，它还会给平面上每个位置涂上网络预测的类别
（它在 `no_grad()` 下运行网络：画图不需要梯度）。
""",
    ),
    code(
        """
import matplotlib.pyplot as plt
import numpy as np


def show_moons(net=None, title="two moons"):
    \"\"\"Scatter the training points; with a network, shade the class it predicts.\"\"\"
    fig, ax = plt.subplots(figsize=(5, 3.6))
    if net is not None:
        gx, gy = np.meshgrid(np.linspace(-1.8, 2.8, 150), np.linspace(-1.5, 1.8, 150))
        grid = agv.from_numpy(np.stack([gx.ravel(), gy.ravel()], axis=1).astype(np.float32))
        with agv.no_grad():
            predicted = net(grid).argmax(1).numpy().reshape(gx.shape)
        ax.contourf(gx, gy, predicted, levels=[-0.5, 0.5, 1.5], colors=["tab:blue", "tab:orange"], alpha=0.2)
    points, labels = X.numpy(), y.numpy()
    for label, color in enumerate(["tab:blue", "tab:orange"]):
        ax.scatter(*points[labels == label].T, s=12, color=color, label=f"class {label}")
    ax.set_title(title)
    ax.legend(loc="lower left")
    plt.show()


show_moons()
"""
    ),
    md(
        """
## The model

`agv.models.mlp([2, 16, 16, 2])` stacks `Linear(2, 16)`, `ReLU()`, `Linear(16, 16)`, `ReLU()`,
`Linear(16, 2)` in an `nn.Sequential`. Its two outputs are one score (a *logit*) per class: the bigger score
is the predicted class. The module keeps track of its parameters, named by their place in the model;
each one is a leaf with `requires_grad=True`, like the `w` and `b` you made by hand.
""",
        """
## 模型

`agv.models.mlp([2, 16, 16, 2])` 把 `Linear(2, 16)`、`ReLU()`、`Linear(16, 16)`、`ReLU()`、`Linear(16, 2)`
依次装进一个 `nn.Sequential`。它的两个输出是每个类别各一个分数（称为 *logit*），分数大的就是预测的类别。
模块会记住自己的全部参数，并按它们在模型中的位置命名；每个参数都是 `requires_grad=True` 的叶子节点，
和你之前亲手创建的 `w`、`b` 一样。
""",
    ),
    code(
        """
net = agv.models.mlp([2, 16, 16, 2])
print(net)
for name, p in net.named_parameters():
    print(f"{name:9s} shape {str(p.shape):20s} is_leaf={p.is_leaf} requires_grad={p.requires_grad}")
print("numbers to learn:", sum(p.numel() for p in net.parameters()))
"""
    ),
    md(
        """
## One training step, piece by piece

Before the loop, one step slowly. The optimizer is given the parameters it will update. `Adam(params, lr=...)`
is PyTorch's spelling; `Adam(learning_rate=..., parameters=...)`, Paddle's, works too (the VGG-11 part uses it).

As in lesson 4, a parameter's `.grad` is `None` until the first `backward()`.
""",
        """
## 一步训练，拆开来看

进入循环之前，先慢慢走一步。创建优化器时要告诉它更新哪些参数。`Adam(params, lr=...)` 是 PyTorch 的写法；
Paddle 的写法 `Adam(learning_rate=..., parameters=...)` 也能用（后面 VGG-11 部分就用它）。

和第 4 课一样，在第一次 `backward()` 之前，参数的 `.grad` 是 `None`。
""",
    ),
    code(
        """
opt = agv.optim.Adam(net.parameters(), lr=0.01)
first = net[0]  # the first Linear layer
print("grad before any backward:", first.bias.grad)
"""
    ),
    md(
        """
**Forward.** `net(X)` runs all 200 points at once: one row of two logits per point. `cross_entropy` applies
`log_softmax` to each row and averages minus the log-probability of the right class. With random weights the
network is guessing between two classes, so the loss starts near ln 2 ≈ 0.693.
""",
        """
**前向传播。** `net(X)` 一次处理全部 200 个点：每个点得到一行、两个 logit。`cross_entropy` 对每一行做
`log_softmax`，再对“正确类别的对数概率的相反数”求平均。权重是随机的，网络相当于在两个类别之间瞎猜，
所以损失一开始接近 ln 2 ≈ 0.693。
""",
    ),
    code(
        """
logits = net(X)
loss = F.cross_entropy(logits, y)
print(logits.shape)
print(loss)
"""
    ),
    md(
        """
**Backward, layer by layer.** Before running it, watch it. A network's graph has too many ops to read one
by one, so `agv.draw` draws it **layers first**: one box per module, named by its place in the model
(`0` to `4`), with the shape of its output. (`expand=["4"]` opens one layer's ops in place;
`layers=False` draws every op.)
""",
        """
**反向传播，一层一层地看。** 运行它之前，先看看它要走的路。网络的计算图里运算太多，逐个看不过来，所以 `agv.draw`
**先按层画**：每个模块一个方框，按它在模型中的位置命名（`0` 到 `4`），并标出它输出的形状。
（`expand=["4"]` 会在原处展开某一层的运算；`layers=False` 则画出每一个运算。）
""",
    ),
    code(
        """
agv.draw(loss)
"""
    ),
    md(
        """
`agv.BackwardStepper(loss, model=net)` walks the same backward one layer at a time: 6 steps instead of
16 ops. At each step its panel shows the gradient `dY` arriving at the layer's output, the gradient `dX`
it sends down to the layer's input, and the gradients of the layer's parameters, each with its norm.
At a `Linear` layer the panel writes the step in matrix form. The layer computes `Y = X·Wᵀ + b`, with
`W` stored as (out, in), so it sends down `dX = dY·W` and keeps `dW = dYᵀ·X` and `db = Σ dY` (summed
over the batch) for its parameters; lesson 10 derives all three. **⤓ Step into** opens the layer's own
ops (`addmm`, the transpose `t`, one `AccumulateGrad` per parameter) one node at a time, and
**⤒ Step out** returns to the layers.
""",
        """
`agv.BackwardStepper(loss, model=net)` 把同一次反向传播按层走一遍：只要 6 步，而不是 16 个运算。每一步的面板都列出
到达这一层输出的梯度 `dY`、这一层往下发给输入的梯度 `dX`，以及这一层各个参数的梯度，每个都带着它的范数。
走到 `Linear` 层时，面板用矩阵形式写出这一步。这一层计算 `Y = X·Wᵀ + b`，其中 `W` 按 (out, in) 存放，
所以它往下发送 `dX = dY·W`，留给自己参数的是 `dW = dYᵀ·X` 和 `db = Σ dY`（对整批求和）；第 10 课会推导这三个公式。
**⤓ 步入**会打开这一层自己的运算（`addmm`、转置 `t`、每个参数一个 `AccumulateGrad`），一次走一个节点；
**⤒ 步出**则回到按层画的那张图。
""",
    ),
    code(
        """
stepper = agv.BackwardStepper(loss, model=net)
stepper
"""
    ),
    md(
        """
The same from Python: `goto(2)` runs the first two layer steps (the loss, then the last `Linear`,
called `4`), `step_into()` opens that layer, and its recorded numbers confirm `dX = dY·W`. Backward meets
the last layer first, so its `addmm` is the first in `stepper.steps`; what it sends to its input 1 (the
`X` of `addmm(b, X, Wᵀ)`) is `dX`.
""",
        """
在 Python 里也一样：`goto(2)` 走完前两个按层的步骤（先是损失，再是最后一个 `Linear`，名叫 `4`），
`step_into()` 打开这一层，它记录下来的数字证实了 `dX = dY·W`。反向传播最先遇到的是最后一层，
所以它的 `addmm` 是 `stepper.steps` 里的第一个；它发给输入 1（`addmm(b, X, Wᵀ)` 中的 `X`）的就是 `dX`。
""",
    ),
    code(
        """
stepper.goto(2)
print(stepper.frames[2]["title"])
print("step into", stepper.step_into())
for frame in stepper.details["4"]["frames"]:
    print("  ", frame["title"])
stepper.step_out()

addmm = next(step for step in stepper.steps if step.name == "AddmmBackward0")
dY = addmm.upstream
dX = next(sent.value for sent in addmm.sent if sent.input == 1)
W = net[4].weight.detach().numpy()
print(f"dY {dY.shape} · W {W.shape} = dX {dX.shape}:", np.allclose(dX, dY @ W))
"""
    ),
    md(
        """
**Backward** fills the `.grad` of every parameter, whatever its depth in the network. A gradient has its
parameter's shape.
""",
        """
**反向传播**把每个参数的 `.grad` 都填好，无论它在网络的哪一层。梯度的形状和对应参数的形状相同。
""",
    ),
    code(
        """
loss.backward()
for name, p in net.named_parameters():
    print(f"{name:9s} grad shape {p.grad.shape}")
print(first.bias.grad[:4])
"""
    ),
    md(
        """
**The optimizer** now does what you wrote by hand before. `opt.step()` changes every parameter in place, using
its `.grad`; `opt.zero_grad()` forgets the gradients, so the next `backward()` does not add to them (it sets
them to `None`, as PyTorch does). Adam divides each gradient by a running average of its size, so on its
very first step every weight moves by about `lr` = 0.01, up or down according to the sign of its gradient;
only a weight whose gradient is exactly zero stays put (above, the third unit's ReLU is off for every point).

**Source tour.** [autogradviz/nn/module.py](../../autogradviz/nn/module.py), class `Module`, method
`named_parameters`, finds the parameters; [autogradviz/nn/losses.py](../../autogradviz/nn/losses.py), function
`cross_entropy`; [autogradviz/optim.py](../../autogradviz/optim.py), method `Optimizer.step`, which calls
`Adam._update` for each parameter, and method `Optimizer.zero_grad`.
""",
        """
**优化器**现在接手你以前手写的工作。`opt.step()` 利用每个参数的 `.grad` 原地修改参数；`opt.zero_grad()`
丢掉这些梯度，这样下一次 `backward()` 就不会在旧梯度上累加（和 PyTorch 一样，它把梯度设为 `None`）。
Adam 会用梯度大小的滑动平均去除每个梯度，所以在第一步里，每个权重都移动大约 `lr` = 0.01，
方向由梯度的符号决定；只有梯度恰好为零的权重不动（上面第三个神经元的 ReLU 对所有点都处于关闭状态）。

**源码导览。** [autogradviz/nn/module.py](../../autogradviz/nn/module.py) 中类 `Module` 的方法 `named_parameters`
负责找出参数；[autogradviz/nn/losses.py](../../autogradviz/nn/losses.py) 中的函数 `cross_entropy`；
[autogradviz/optim.py](../../autogradviz/optim.py) 中的方法 `Optimizer.step`（它对每个参数调用
`Adam._update`）和方法 `Optimizer.zero_grad`。
""",
    ),
    code(
        """
before = first.bias.detach().clone()
opt.step()
print("bias change:", (first.bias.detach() - before)[:4])
opt.zero_grad()
print("grad after zero_grad:", first.bias.grad)
"""
    ),
    md(
        """
## Check against PyTorch

autogradviz follows PyTorch's rules, so the same model with the same weights on the same data must
get the same gradients from real PyTorch. Below, a tiny network `mlp([2, 3, 2])` on four points,
built twice: once in autogradviz, once in PyTorch with the weights copied over. The drawings and
the stepper read PyTorch's own graph too (the bridge in
[autogradviz/torch/graph.py](../../autogradviz/torch/graph.py), class `TorchNode`, reads a torch
`grad_fn` as the same kind of node the drawings know). PyTorch is optional: without it, the cell
says so and the lesson goes on.
""",
        """
## 与 PyTorch 核对

autogradviz 遵循 PyTorch 的规则，所以同样的模型、同样的权重、同样的数据，在真正的 PyTorch 里必须得到同样的梯度。
下面把一个很小的网络 `mlp([2, 3, 2])` 在四个点上搭两遍：一遍用 autogradviz，一遍用 PyTorch，并把权重复制过去。
画图和逐步演示器也能读取 PyTorch 自己的计算图（桥接代码在
[autogradviz/torch/graph.py](../../autogradviz/torch/graph.py) 的类 `TorchNode` 中：它把 torch 的
`grad_fn` 读成画图所认识的那种节点）。PyTorch 不是必需的：没有安装时，这个单元会说明这一点，课程照常继续。
""",
    ),
    code(
        """
import numpy as np

try:
    import torch
except ImportError:
    torch = None
    print("PyTorch is not installed: skipping the comparison (pip install torch to run it).")

agv.manual_seed(0)
tiny = agv.models.mlp([2, 3, 2])
few_points, few_labels = X[:4], y[:4]
tiny_loss = F.cross_entropy(tiny(few_points), few_labels)
tiny_loss.backward()

if torch is not None:
    torch_tiny = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2))
    torch_tiny.load_state_dict({name: torch.tensor(p.detach().numpy()) for name, p in tiny.named_parameters()})
    torch_loss = torch.nn.functional.cross_entropy(
        torch_tiny(torch.tensor(few_points.numpy())), torch.tensor(few_labels.numpy())
    )
    torch_loss.backward(retain_graph=True)  # keep the graph: the stepper below walks it again
    # float32 sums may differ in the last digit between the two libraries: compare, do not print both
    print(f"loss {tiny_loss.item():.4f}; PyTorch agrees: {np.isclose(tiny_loss.item(), torch_loss.item())}")
    for (name, p), (_, tp) in zip(tiny.named_parameters(), torch_tiny.named_parameters()):
        same = np.allclose(p.grad.numpy(), tp.grad.numpy(), atol=1e-6)
        print(f"{name:8s} gradients agree: {same}")
        assert same, name
"""
    ),
    md(
        """
PyTorch's backward graph, drawn by autogradviz (`model=` names the parameters by their place in
the network; PyTorch's node names, like `AddmmBackward0`, are its own):
""",
        """
由 autogradviz 画出的 PyTorch 反向图（`model=` 按参数在网络中的位置给它们命名；`AddmmBackward0`
这样的节点名是 PyTorch 自己的）：
""",
    ),
    code(
        """
agv.draw(torch_loss, kind="backward", model=torch_tiny) if torch is not None else None
"""
    ),
    md(
        """
And PyTorch's backward, one node at a time, on the same backward graph: the stepper records one real
torch backward with hooks and replays it, so every number in its panel is PyTorch's.
""",
        """
再把 PyTorch 的反向传播一个节点一个节点地走一遍：逐步演示器用钩子记录一次真正的 torch 反向传播再重放，
所以面板里的每个数字都是 PyTorch 算出来的。
""",
    ),
    code(
        """
agv.BackwardStepper(torch_loss, model=torch_tiny, kind="backward") if torch is not None else None
"""
    ),
    md(
        """
## The training loop, under a monitor

Training repeats that step over **mini-batches**: `agv.data.DataLoader((X, y), batch_size=20, shuffle=True)`
deals out the 200 points in 10 batches, in a new order on every pass (epoch); `seed=0` makes the orders the
same on every run. Each step is the same four lines: `zero_grad`, forward and loss, `backward`, `step`.

`agv.viz.TrainingMonitor(total, model=..., mode=...)` watches the loop: a progress bar, the loss curve, the
metrics you pass to `update()`, and the size of each layer's gradient. Call `monitor.update(loss, accuracy=...)`
after `backward()` and before the next `zero_grad()`, while the gradients are there, and `monitor.finish()` at
the end. `mode="widget"` shows it in Jupyter; `mode="text"` prints one progress line in a terminal.
The speed (steps per second) and the time left are measured on your machine, so they differ from run to run.
""",
        """
## 训练循环，配上监视器

训练就是在**小批量**数据上重复这一步：`agv.data.DataLoader((X, y), batch_size=20, shuffle=True)`
把 200 个点分成 10 批，每过一遍数据（一个 epoch）都换一种顺序；`seed=0` 让每次运行的顺序都相同。
每一步都是同样的四行：`zero_grad`、前向与损失、`backward`、`step`。

`agv.viz.TrainingMonitor(total, model=..., mode=...)` 负责监视训练循环：进度条、损失曲线、你传给 `update()`
的各项指标，以及每一层梯度的大小。在 `backward()` 之后、下一次 `zero_grad()` 之前（梯度还在的时候）调用
`monitor.update(loss, accuracy=...)`，最后调用 `monitor.finish()`。`mode="widget"` 在 Jupyter 里显示成小部件；
`mode="text"` 则在终端里打印一行进度。
速度（每秒步数）和剩余时间是在你的机器上实际测得的，所以每次运行都会不同。
""",
    ),
    code(
        """
loader = agv.data.DataLoader((X, y), batch_size=20, shuffle=True, seed=0)
EPOCHS = 30
monitor = agv.viz.TrainingMonitor(EPOCHS * len(loader), model=net, mode="widget")
for epoch in range(EPOCHS):
    for xb, yb in loader:
        opt.zero_grad()  # forget the last step's gradients
        logits = net(xb)  # forward
        loss = F.cross_entropy(logits, yb)
        loss.backward()  # backward: fills p.grad
        opt.step()  # update the parameters
        accuracy = (logits.argmax(1) == yb).float().mean()  # of this batch
        monitor.update(loss, accuracy=accuracy)
monitor.finish()
"""
    ),
    md(
        """
The final numbers, measured on all training points and on the test set (under `no_grad()`: evaluation
builds no graph):
""",
        """
最终结果：分别在全部训练点和测试集上测量（在 `no_grad()` 下进行：评估时不需要建图）：
""",
    ),
    code(
        """
with agv.no_grad():
    train_accuracy = (net(X).argmax(1) == y).float().mean().item()
    test_accuracy = (net(X_test).argmax(1) == y_test).float().mean().item()
print(f"steps {monitor.step}, last batch loss {monitor.losses[-1]:.4f}")
print(f"train accuracy {train_accuracy:.3f}, test accuracy {test_accuracy:.3f}")
"""
    ),
    code(
        """
show_moons(net, "what the trained network predicts")
"""
    ),
    md(
        """
## The tutorial's VGG-11 step

The Paddle tutorial shows the whole cycle on a real image classifier, VGG-11: a random 224×224 colour image,
a random label among 1000 classes, forward, loss, backward, and one Adam step. `agv.models.vgg11()` has
torchvision's layout and initialisation; seeding again makes this part print the same numbers whatever ran
above. Building it and taking the step take a few seconds here: numpy is doing real work on 133 million weights.
""",
        """
## 教程里的 VGG-11 一步训练

Paddle 教程在一个真正的图像分类网络 VGG-11 上演示了完整的一轮：一张随机的 224×224 彩色图片、
1000 个类别中随机选的一个标签，然后是前向传播、损失、反向传播和一步 Adam 更新。`agv.models.vgg11()`
采用 torchvision 的结构和初始化方式；这里重新设置随机种子，使这一部分无论前面运行过什么都打印相同的数字。
在这台机器上，构建模型再走一步要花几秒钟：numpy 真的要处理 1.33 亿个权重。
""",
    ),
    code(
        """
agv.manual_seed(0)
model = agv.models.vgg11()
x = agv.rand(1, 3, 224, 224)
label = agv.randint(0, 1000, (1,))
predicts = model(x)
loss = agv.nn.functional.cross_entropy(predicts, label)
print("parameters:", sum(p.numel() for p in model.parameters()))
print(predicts.shape, label)
print(loss)
"""
    ),
    md(
        """
The loss is close to ln 1000 ≈ 6.91: an untrained network spreads its probability almost evenly over the
1000 classes. Here is the forward graph, drawn layers first as the small network's was: one box per
module, named by its place in the model (`features.0`, ..., `classifier.6`), with the shape of what it passes
on: the image shrinks from 224×224 to 7×7 while the channels grow from 3 to 512. Between the layers, the ops
that are no module's own are drawn as ops: `reshape` is the one op that `VGG.forward` does itself, flattening
512×7×7 into 25088 numbers, and `log_softmax` and `nll_loss` are the two halves of `cross_entropy`.
""",
        """
损失接近 ln 1000 ≈ 6.91：未经训练的网络把概率几乎平均地分给了 1000 个类别。下面是前向计算图，
和前面的小网络一样先按层画，每个模块一个方框，按它在模型中的位置命名（`features.0`、……、
`classifier.6`），并标出它向下传递的张量形状：图片从 224×224 缩小到 7×7，通道数则从 3 增加到 512。
不属于任何一层的运算画在层与层之间：`reshape` 是 `VGG.forward` 自己做的唯一一步运算，把 512×7×7 展平成
25088 个数；`log_softmax` 和 `nll_loss` 则是 `cross_entropy` 的前后两半。
""",
    ),
    code(
        """
agv.draw(loss, rankdir="TB")
"""
    ),
    md(
        """
`backward()` walks that graph from `loss` back to every weight. Each gradient has its parameter's shape.
""",
        """
`backward()` 沿着这张图从 `loss` 一路走回每个权重。每个梯度的形状都与对应参数相同。
""",
    ),
    code(
        """
loss.backward()
params = dict(model.named_parameters())
for name in ["features.0.weight", "features.0.bias", "classifier.0.weight", "classifier.6.weight"]:
    print(f"{name:20s} grad shape {params[name].grad.shape}")
"""
    ),
    md(
        """
Now the optimizer, in Paddle's spelling, and one step. As with the small network, Adam's first step moves
each weight by `learning_rate` = 0.001, except the weights whose gradient is exactly zero: in the last layer,
those fed by an input that ReLU or dropout set to zero.
""",
        """
接着创建优化器（用 Paddle 的写法），走一步。和前面的小网络一样，Adam 的第一步让每个权重移动
`learning_rate` = 0.001，只有梯度恰好为零的权重不动：在最后一层，就是那些输入被 ReLU 或 dropout 置零的权重。
""",
    ),
    code(
        """
opt = agv.optim.Adam(learning_rate=0.001, parameters=model.parameters())
w = model.classifier[6].weight
before = w.detach().clone()
opt.step()
change = (w.detach() - before).abs()
print(f"largest change {change.max().item():.4f}, share of weights that moved {(change > 0).float().mean().item():.3f}")
"""
    ),
    md(
        """
In a real training loop this would repeat, with `opt.clear_grad()` (Paddle) or `opt.zero_grad()` (PyTorch)
before each backward, over batches of real images. That is all a framework's training loop is: the forward
pass builds the graph, `backward()` walks it to fill `.grad`, and the optimizer reads `.grad`, updates the
weights and clears the gradients. Lessons 2–4 showed each of those pieces by hand.

## Exercises
""",
        """
在真正的训练循环里，这一步会在一批批真实图片上反复进行，每次反向传播之前调用 `opt.clear_grad()`（Paddle）
或 `opt.zero_grad()`（PyTorch）。框架的训练循环说到底就是这些：前向传播搭建计算图，`backward()`
遍历它、填好 `.grad`，优化器读取 `.grad`、更新权重、再清空梯度。第 2–4 课已经把每一块都手工演示过了。

## 练习
""",
    ),
    md(
        """
**Exercise 1.** How many numbers does one Adam step on VGG-11 update? Compute `n_params`, the total number
of elements in `model.parameters()`, and `classifier_share`, the fraction of them that sits in the single
weight matrix `classifier.0.weight` (25088 × 4096).
""",
        """
**练习 1.** 在 VGG-11 上走一步 Adam，要更新多少个数？算出 `n_params`，即 `model.parameters()` 中元素的总数；
再算出 `classifier_share`，即其中位于 `classifier.0.weight`（25088 × 4096）这一个权重矩阵里的比例。
""",
    ),
    *exercise(
        "07.1",
        answers=("n_params", "classifier_share"),
        solution="""
n_params = sum(p.numel() for p in model.parameters())
classifier_share = model.classifier[0].weight.numel() / n_params
print(n_params, f"{classifier_share:.3f}")
""",
        check="""
assert n_params == 132_863_336, f"n_params should count every element of every parameter, got {n_params}"
assert abs(classifier_share - 25088 * 4096 / 132_863_336) < 1e-9, (
    f"classifier_share should be classifier.0.weight's elements / n_params, got {classifier_share}"
)
print("Correct: more than three quarters of VGG-11's weights are in its first fully connected layer.")
""",
    ),
    md(
        """
**Exercise 2.** What goes wrong without `zero_grad()`? First **predict**: if you clear the trained `net`'s
gradients with `net.zero_grad()`, then compute `F.cross_entropy(net(X), y)` and call `backward()` on it
**twice** (building the loss afresh each time), what is the ratio of `net[0].weight.grad` after the second
backward to the gradient after the first? Set `predicted_ratio` to that number. Then do it: store a copy of
the gradient after the first backward as `first` (use `.clone()`), and the gradient after the second as
`second`.
""",
        """
**练习 2.** 不调用 `zero_grad()` 会出什么问题？先**预测**：对训练好的 `net`，先用 `net.zero_grad()` 清空梯度，
再计算 `F.cross_entropy(net(X), y)` 并调用 `backward()`，**重复两次**（每次都重新计算损失），那么第二次反向传播后
`net[0].weight.grad` 与第一次之后的梯度之比是多少？把这个数存为 `predicted_ratio`。然后动手验证：
把第一次反向传播后梯度的副本（用 `.clone()`）存为 `first`，第二次之后的梯度存为 `second`。
""",
    ),
    *exercise(
        "07.2",
        answers=("predicted_ratio", "first", "second"),
        solution="""
predicted_ratio = 2.0  # the same loss twice: backward adds the same gradient to .grad a second time
net.zero_grad()
F.cross_entropy(net(X), y).backward()
first = net[0].weight.grad.clone()
F.cross_entropy(net(X), y).backward()
second = net[0].weight.grad
print(first[:2])
print(second[:2])
""",
        check="""
assert predicted_ratio == 2, (
    f"you predicted {predicted_ratio}: the second backward computes the same gradient, and .grad adds it to what is there"
)
assert first is not second, "first must be a copy (.clone()): the same tensor changes during the second backward"
assert (second - 2 * first).abs().max().item() < 1e-5 * (1 + first.abs().max().item()), (
    "the second gradient should be twice the first: backward adds to .grad until it is zeroed"
)
print("Correct: gradients accumulate, which is why every training step starts with zero_grad().")
""",
    ),
    md(
        """
**Exercise 3.** Bug hunt. This loop, in Paddle's spellings, trains for 200 steps, yet the network learns
nothing: its test accuracy stays at chance level. Find the misplaced line, set `misplaced` to it (the
line's code, as a string), and fix the loop, so that `small_accuracy`, the accuracy of `small` on the test
set `X_test, y_test` as a float, reaches at least 0.9.

```python
small = agv.models.mlp([2, 8, 2], activation="tanh")
small_opt = agv.optim.Adam(learning_rate=0.05, parameters=small.parameters())
for _ in range(200):
    small_loss = F.cross_entropy(small(X), y)
    small_loss.backward()
    small_opt.clear_grad()
    small_opt.step()
```
""",
        """
**练习 3.** 找 bug。下面这个用 Paddle 写法写的循环训练了 200 步，网络却什么也没学到：它在测试集上的准确率一直停留在瞎猜的水平。
找出位置放错的那一行，把它（这一行的代码，作为字符串）存为 `misplaced`，再修好循环，使 `small` 在测试集
`X_test, y_test` 上的准确率（浮点数，存为 `small_accuracy`）至少达到 0.9。

```python
small = agv.models.mlp([2, 8, 2], activation="tanh")
small_opt = agv.optim.Adam(learning_rate=0.05, parameters=small.parameters())
for _ in range(200):
    small_loss = F.cross_entropy(small(X), y)
    small_loss.backward()
    small_opt.clear_grad()
    small_opt.step()
```
""",
    ),
    *exercise(
        "07.3",
        answers=("misplaced", "small_accuracy"),
        solution="""
misplaced = "small_opt.clear_grad()"  # it zeroed the gradients between backward() and step()
small = agv.models.mlp([2, 8, 2], activation="tanh")
small_opt = agv.optim.Adam(learning_rate=0.05, parameters=small.parameters())
for _ in range(200):
    small_opt.clear_grad()  # first clear, then backward, then step
    small_loss = F.cross_entropy(small(X), y)
    small_loss.backward()
    small_opt.step()
with agv.no_grad():
    small_accuracy = (small(X_test).argmax(1) == y_test).float().mean().item()
print(f"loss {small_loss.item():.4f}, test accuracy {small_accuracy:.3f}")
""",
        check="""
assert misplaced.strip() == "small_opt.clear_grad()", (
    f"{misplaced!r} is where it should be; look for the line that runs between backward() and step(): "
    "what gradient does step() then see?"
)
assert isinstance(small_accuracy, float), "small_accuracy should be a Python float: use .item()"
assert small_accuracy >= 0.9, (
    f"test accuracy {small_accuracy:.3f} is below 0.9: each step should clear, then backward(), then step()"
)
print("Correct: a hidden layer of 8 tanh units is enough to bend the boundary around the moons.")
""",
    ),
]

if __name__ == "__main__":
    build(7, "training_a_network", cells)
