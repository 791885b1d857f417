"""Paddle 2.0's autograd tutorial ("自动微分机制介绍"), every code block run as printed.

Source: PaddlePaddle/docs, branch release/2.0,
doc/paddle/guides/01_paddle2.0_introduction/basic_concept/autograd_cn.rst.
Nothing is reconstructed: each block below is the tutorial's code, character
for character, and each expected output is the tutorial's printed output.

The blocks say `import paddle`: each test puts autogradviz.paddle (and its
submodules) in sys.modules under Paddle's names for the duration of the test
only, so `import paddle`, `import paddle.nn.functional as F` and
`from paddle.vision.models import vgg11` bind autogradviz's modules.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import sys
import textwrap
import time

import numpy as np
import pytest

import autogradviz as agv
import autogradviz.paddle.v2_0

PADDLE_MODULES = ["", ".nn", ".nn.functional", ".optimizer", ".vision", ".vision.models", ".io"]


@pytest.fixture
def as_paddle(monkeypatch):
    """`import paddle` gives autogradviz.paddle, during this test only."""
    for suffix in PADDLE_MODULES:
        module = importlib.import_module("autogradviz.paddle.v2_0" + suffix)
        monkeypatch.setitem(sys.modules, "paddle" + suffix, module)
    agv.manual_seed(0)


def run(code: str, namespace: dict | None = None) -> str:
    """Run one of the tutorial's blocks; return what it printed."""
    namespace = {} if namespace is None else namespace
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(textwrap.dedent(code), namespace)
    return out.getvalue()


def expected(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


# -- 二、如何使用飞桨的自动微分机制: the whole loop, VGG-11 with Adam -------------------------

BLOCK_IMPORTS = """
    #加载飞桨和相关类库
    import paddle
    from paddle.vision.models import vgg11
    import paddle.nn.functional as F
    import numpy as np

    print(paddle.__version__)
"""
BLOCK_MODEL = """
    model = vgg11()

    x = paddle.rand([1,3,224,224])
    label = paddle.randint(0,1000)
"""
BLOCK_FORWARD = """
    # 前向传播
    predicts = model(x)
"""
BLOCK_LOSS = """
    # 计算损失
    loss = F.cross_entropy(predicts, label)
"""
BLOCK_BACKWARD = """
    # 开始进行反向传播
    loss.backward()
"""
BLOCK_OPTIMIZER = """
    # 设置优化器
    optim = paddle.optimizer.Adam(learning_rate=0.001, parameters=model.parameters())
"""
BLOCK_STEP = """
    # 更新参数
    optim.step()
"""


def test_section_2_vgg11_forward_backward_adam_step(as_paddle):
    """The tutorial's own input, [1, 3, 224, 224], and its own VGG-11 (132 million
    weights). About 15 s on a quiet 2-core machine, most of it making the weights and
    Adam's pass over them; the input size barely matters, so it was not reduced."""
    ns: dict = {}
    start = time.perf_counter()
    assert run(BLOCK_IMPORTS, ns) == "2.0.1\n"
    for block in (BLOCK_MODEL, BLOCK_FORWARD, BLOCK_LOSS, BLOCK_BACKWARD, BLOCK_OPTIMIZER):
        assert run(block, ns) == ""
    model, predicts, label, loss = ns["model"], ns["predicts"], ns["label"], ns["loss"]
    first = model.features[0].weight
    before = first.numpy().copy()
    grad = first.grad  # Paddle 2.0: a numpy array
    assert run(BLOCK_STEP, ns) == ""
    elapsed = time.perf_counter() - start

    assert isinstance(model, autogradviz.paddle.v2_0.vision.models.VGG)
    assert label.shape == (1,) and label.dtype == agv.int64 and 0 <= label.item() < 1000
    assert predicts.shape == (1, 1000)
    # the loss: shape [1] (Paddle 2.0 has no 0-d tensors), -log softmax(predicts)[label]
    assert loss.shape == (1,)
    scores = predicts.numpy().astype(np.float64)[0]
    log_softmax = scores - scores.max() - np.log(np.exp(scores - scores.max()).sum())
    np.testing.assert_allclose(loss.numpy(), [-log_softmax[label.item()]], rtol=1e-5)
    # parameters: stop_gradient False, a numpy .grad of their shape
    assert first.stop_gradient is False and ns["x"].stop_gradient is True
    assert isinstance(grad, np.ndarray) and grad.shape == (64, 3, 3, 3) and np.abs(grad).sum() > 0
    # Adam's first step: m̂ = g and v̂ = g², so every weight moves by lr·g/(|g| + ε)
    np.testing.assert_allclose(first.numpy(), before - 0.001 * grad / (np.abs(grad) + 1e-8), atol=1e-7)
    assert elapsed < 60, f"the VGG-11 step took {elapsed:.0f} s"


# -- 三、1: stop_gradient -------------------------------------------------------------------


def test_section_3_1_stop_gradient(as_paddle):
    ns: dict = {}
    out = run(
        """
        import paddle

        a = paddle.to_tensor([1.0, 2.0, 3.0])
        b = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False) # 将b设置为需要计算梯度的属性
        print(a.stop_gradient)
        print(b.stop_gradient)
        """,
        ns,
    )
    assert out == expected(
        """
        True
        False
        """
    )
    out = run(
        """
        a.stop_gradient = False
        print(a.stop_gradient)
        """,
        ns,
    )
    assert out == "False\n"


# -- 三、2: backward() on a non-scalar output, and retain_graph ------------------------------


def test_section_3_2_backward_of_a_polynomial(as_paddle):
    ns: dict = {}
    assert (
        run(
            """
            import paddle

            x = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
            y = paddle.to_tensor([4.0, 5.0, 6.0], stop_gradient=False)
            z = x ** 2 + 4 * y
            """,
            ns,
        )
        == ""
    )
    out = run(
        """
        z.backward()
        print("Tensor x's grad is: {}".format(x.grad))
        print("Tensor y's grad is: {}".format(y.grad))
        """,
        ns,
    )
    assert out == expected(
        """
        Tensor x's grad is: [2. 4. 6.]
        Tensor y's grad is: [4. 4. 4.]
        """
    )


def test_section_3_2_retain_graph(as_paddle):
    out = run(
        """
        import paddle

        x = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
        y = x + 3
        y.backward(retain_graph=True) # 设置retain_graph为True，保留反向计算图
        print("Tensor x's grad is: {}".format(x.grad))
        """
    )
    assert out == "Tensor x's grad is: [1. 1. 1.]\n"


# -- 三、3: clear_grad() ----------------------------------------------------------------------


def test_section_3_3_clear_grad_of_the_output(as_paddle):
    """The tutorial prints the gradient of loss2, the output itself: the [1.] that
    backward starts from, kept because Paddle keeps every tensor's gradient."""
    ns: dict = {}
    out = run(
        """
        import paddle
        import numpy as np

        x = np.ones([2, 2], np.float32)
        inputs2 = []

        for _ in range(10):
            tmp = paddle.to_tensor(x)
            tmp.stop_gradient = False
            inputs2.append(tmp)

        ret2 = paddle.add_n(inputs2)
        loss2 = paddle.sum(ret2)

        loss2.backward()
        print("Before clear {}".format(loss2.gradient()))

        loss2.clear_grad()
        print("After clear {}".format(loss2.gradient()))
        """,
        ns,
    )
    assert out == expected(
        """
        Before clear [1.]
        After clear [0.]
        """
    )
    # and each of the ten inputs got ones, untouched by loss2's clear_grad
    for t in ns["inputs2"]:
        assert t.gradient().tolist() == [[1.0, 1.0], [1.0, 1.0]]


# -- 四: the engine, example 1 and example 2 -------------------------------------------------


def test_section_4_example_1_stop_gradient_input_gets_none(as_paddle):
    out = run(
        """
        import paddle

        a = paddle.to_tensor(2.0, stop_gradient=False)
        b = paddle.to_tensor(5.0, stop_gradient=True)
        c = a * b
        c.backward()
        print("Tensor a's grad is: {}".format(a.grad))
        print("Tensor b's grad is: {}".format(b.grad))
        """
    )
    assert out == expected(
        """
        Tensor a's grad is: [5.]
        Tensor b's grad is: None
        """
    )


def test_section_4_example_2_intermediate_keeps_its_grad(as_paddle):
    ns: dict = {}
    out = run(
        """
        import paddle

        a = paddle.to_tensor(2.0, stop_gradient=False)
        b = paddle.to_tensor(5.0, stop_gradient=False)
        c = a * b
        d = paddle.to_tensor(4.0, stop_gradient=False)
        e = c * d
        e.backward()
        print("Tensor a's grad is: {}".format(a.grad))
        print("Tensor b's grad is: {}".format(b.grad))
        print("Tensor c's grad is: {}".format(c.grad))
        print("Tensor d's grad is: {}".format(d.grad))
        """,
        ns,
    )
    assert out == expected(
        """
        Tensor a's grad is: [20.]
        Tensor b's grad is: [8.]
        Tensor c's grad is: [4.]
        Tensor d's grad is: [10.]
        """
    )
    # the graph the tutorial draws: e = c * d, c = a * b, MulBackward0 twice
    e = ns["e"]
    assert e.grad_fn.name() == "MulBackward0"
    assert [n.name() for n, _ in e.grad_fn.next_functions] == ["MulBackward0", "AccumulateGrad"]
