"""Error messages start with PyTorch's own sentence (issue 12, item 14).

Tutorials and course notebooks catch errors by their text,
`pytest.raises(match=...)` or `if "..." in str(e)`. So each case below is run
with torch and with autogradviz: both must raise the same exception class, and
torch's message must begin ours. autogradviz may add a hint after it.

How much of torch's message must begin ours:
- "whole": all of it (ours adds nothing, or adds after it);
- "sentence": its first sentence (torch goes on about things autogradviz
  does not have, such as grad_dtype);
- "contained": its first sentence, anywhere in ours.
"""

from __future__ import annotations

import numpy as np
import pytest

import autogradviz as agv

torch = pytest.importorskip("torch")

CASES = [
    # in-place ops on leaves
    ("leaf add_", "x = lib.ones(2, requires_grad=True); x.add_(1)", "whole"),
    ("leaf +=", "x = lib.ones(2, requires_grad=True); x += 1", "whole"),
    ("leaf zero_", "x = lib.ones(2, requires_grad=True); x.zero_()", "whole"),
    ("leaf mul_", "x = lib.ones(2, requires_grad=True); x.mul_(2)", "whole"),
    ("leaf masked write", "x = lib.ones(2, requires_grad=True); x[lib.tensor([True, False])] = 0.0", "whole"),
    ("x[0] = v on a leaf", "x = lib.ones(2, requires_grad=True); x[0] = 1.0", "whole"),  # "a view of"
    ("x[1:, 0] = v on a leaf", "x = lib.ones(2, 2, requires_grad=True); x[1:, 0] = 1.0", "whole"),
    ("x[...] = v on a leaf", "x = lib.ones(2, requires_grad=True); x[...] = 1.0", "whole"),
    ("x[[0]] = v on a leaf", "x = lib.ones(2, requires_grad=True); x[[0]] = 1.0", "whole"),
    ("view of a leaf", "x = lib.ones(2, 2, requires_grad=True); v = x.view(4); v.add_(1)", "whole"),
    # assigning .grad
    ("grad = float", "x = lib.ones(2, requires_grad=True); x.grad = 0.", "whole"),
    ("grad = ndarray", "x = lib.ones(2, requires_grad=True); x.grad = np.zeros(2)", "whole"),
    ("grad of another size", "x = lib.ones(2, requires_grad=True); x.grad = lib.zeros(3)", "whole"),
    (
        "grad of another dtype",
        "x = lib.ones(2, requires_grad=True); x.grad = lib.zeros(2, dtype=lib.float64)",
        "sentence",
    ),
    # requires_grad
    ("requires_grad = True on ints", "x = lib.tensor([1, 2]); x.requires_grad = True", "whole"),
    ("requires_grad_() on ints", "x = lib.tensor([1, 2]); x.requires_grad_()", "whole"),
    ("tensor(ints, requires_grad=True)", "lib.tensor([1, 2], requires_grad=True)", "whole"),
    ("zeros(int dtype, requires_grad=True)", "lib.zeros(2, dtype=lib.int64, requires_grad=True)", "whole"),
    (
        "requires_grad on a non-leaf",
        "x = lib.ones(2, requires_grad=True); y = x * 2; y.requires_grad = False",
        "whole",
    ),
    ("data = ints", "x = lib.ones(2, requires_grad=True); x.data = lib.tensor([1, 2])", "whole"),
    # backward
    (
        "backward twice",
        "x = lib.ones(2, requires_grad=True); y = (x * x).sum(); y.backward(); y.backward()",
        "whole",
    ),
    (
        "grad twice",
        "x = lib.ones(2, requires_grad=True); y = (x * x).sum(); lib.autograd.grad(y, x); lib.autograd.grad(y, x)",
        "whole",
    ),
    ("non-scalar backward", "x = lib.ones(2, requires_grad=True); (x * 2).backward()", "whole"),
    ("backward without grad", "lib.ones(2).sum().backward()", "whole"),
    ("backward of a computed tensor without grad", "x = lib.ones(2); (x * 2).sum().backward()", "whole"),
    ("retain_grad without grad", "lib.ones(2).retain_grad()", "whole"),
    # hooks (engine.py, _run_hooks)
    (
        "hook changes the size",
        "x = lib.ones(2, requires_grad=True); y = x * 1; y.register_hook(lambda g: lib.ones(3)); y.sum().backward()",
        "whole",
    ),
    ("hook without grad", "lib.ones(2).register_hook(lambda g: g)", "whole"),
    ("grad.zero_() before backward", "x = lib.ones(2, requires_grad=True); x.grad.zero_()", "whole"),
    # leaving the tensor
    ("item of many", "lib.ones(3).item()", "whole"),
    ("numpy with grad", "x = lib.ones(2, requires_grad=True); x.numpy()", "whole"),
    ("bool of many", "bool(lib.ones(2))", "whole"),
    ("bool of none", "bool(lib.ones(0))", "whole"),
    ("float of many", "float(lib.ones(2))", "whole"),
    ("int of many", "int(lib.ones(2))", "whole"),
    ("len of 0-d", "len(lib.tensor(1.0))", "whole"),
    # shapes
    ("add shapes", "lib.ones(2, 3) + lib.ones(2, 4)", "whole"),
    ("mul shapes", "lib.ones(2, 3) * lib.ones(3, 2)", "whole"),
    ("sub 1-d shapes", "lib.ones(3) - lib.ones(4)", "whole"),
    ("add_ shapes", "x = lib.ones(3); x.add_(lib.ones(2))", "whole"),
    ("view of a non-contiguous tensor", "lib.ones(2, 3).t().view(6)", "whole"),
    ("sum over a missing dim", "lib.ones(2, 3).sum(dim=2)", "whole"),
    ("transpose a missing dim", "lib.ones(2, 3).transpose(0, 2)", "whole"),
    ("bool subtraction", "lib.tensor([1, 2]) - lib.tensor([True, False])", "whole"),
    # dtypes
    ("iinfo of a float", "lib.iinfo(lib.float32)", "whole"),
    ("finfo of an int", "lib.finfo(lib.int32)", "whole"),
    ("uint8 overflow", "lib.tensor([300], dtype=lib.uint8)", "whole"),
    ("int32 overflow", "lib.tensor([3e10], dtype=lib.int32)", "whole"),
    # nn: float tensors where class indices belong (the hints name dtypes as tensors print them)
    ("one_hot of floats", "lib.nn.functional.one_hot(lib.tensor([1.0, 2.0]))", "whole"),
    ("embedding of float indices", "lib.nn.functional.embedding(lib.tensor([1.0]), lib.ones(3, 2))", "whole"),
    ("Embedding layer of float indices", "lib.nn.Embedding(3, 2)(lib.tensor([1.0]))", "whole"),
    (
        "cross_entropy of float labels",
        "lib.nn.functional.cross_entropy(lib.ones(2, 3), lib.tensor([0.0, 1.0]))",
        "whole",
    ),
    (
        "nll_loss of float labels",
        "lib.nn.functional.nll_loss(lib.ones(2, 3), lib.tensor([0.0, 1.0]))",
        "whole",
    ),
]

# Where autogradviz's words still differ from torch's: in other modules' files,
# listed so that the table shows them (strict: fixing one makes its case pass, and
# then it should move up into CASES).
DIFFERENT = [
    ("matmul shapes", "lib.ones(2, 3) @ lib.ones(4, 5)", "whole"),  # ops/arithmetic.py
    ("Linear input size", "lib.nn.Linear(3, 2)(lib.ones(2, 4))", "whole"),  # nn/layers.py
    ("reshape to a wrong size", "lib.ones(2, 3).view(4)", "whole"),  # ops/shape.py
    ("index out of range", "lib.ones(2, 3)[2]", "whole"),  # ops/shape.py
    ("cat shapes", "lib.cat([lib.ones(2, 3), lib.ones(2, 4)])", "whole"),  # ops/shape.py
    ("unsqueeze a missing dim", "lib.ones(2, 3).unsqueeze(5)", "whole"),  # ops/shape.py
    (
        "backward gradient shape",
        "x = lib.ones(2, requires_grad=True); (x * 2).backward(lib.ones(3))",
        "whole",
    ),
    (
        "saved tensor changed in place",  # engine.py: torch names "[torch.FloatTensor [2]], which is output 0 of Exp"
        "x = lib.ones(2, requires_grad=True); y = x.exp(); y.add_(1); y.sum().backward()",
        "sentence",
    ),
    ("mean of ints", "lib.tensor([1, 2]).mean()", "whole"),  # ops/reductions.py
    (  # engine.py, _run_hooks: torch adds "(was torch.FloatTensor got torch.DoubleTensor)"
        "hook changes the dtype",
        "x = lib.ones(2, requires_grad=True); y = x * 1; y.register_hook(lambda g: g.double()); y.sum().backward()",
        "whole",
    ),
    (  # engine.py, _run_hooks: torch says "expected Variable, but hook returned 'int'"
        "hook returns a number",
        "x = lib.ones(2, requires_grad=True); y = x * 1; y.register_hook(lambda g: 3); y.sum().backward()",
        "whole",
    ),
]


def first_sentence(message: str) -> str:
    end = message.find(". ")
    return message if end < 0 else message[: end + 1]


def error_of(lib, code: str) -> BaseException:
    with pytest.raises(Exception) as caught:
        exec(code, {"lib": lib, "np": np})
    return caught.value


def agree(code: str, how: str) -> tuple[bool, str]:
    theirs, ours = error_of(torch, code), error_of(agv, code)
    expected = str(theirs) if how == "whole" else first_sentence(str(theirs))
    if how == "contained":
        same_text = expected in str(ours)
    else:
        same_text = str(ours).startswith(expected)
    report = f"torch: {type(theirs).__name__}: {theirs}\nagv:   {type(ours).__name__}: {ours}"
    return type(theirs) is type(ours) and same_text, report


@pytest.mark.parametrize("code, how", [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_our_message_starts_with_torchs(code, how):
    ok, report = agree(code, how)
    assert ok, report


@pytest.mark.parametrize("code, how", [case[1:] for case in DIFFERENT], ids=[case[0] for case in DIFFERENT])
@pytest.mark.xfail(
    strict=True, reason="autogradviz's own wording, in another module: see the comment on DIFFERENT"
)
def test_messages_that_still_differ(code, how):
    ok, report = agree(code, how)
    assert ok, report


def test_a_tutorials_except_clause_finds_torchs_words():
    """The idiom the issue quotes: catching by text."""
    x = agv.ones(2, requires_grad=True)
    try:
        x.add_(1)
    except RuntimeError as e:
        assert "a leaf Variable that requires grad is being used in an in-place operation" in str(e)
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        (x * 2).backward()


def test_a_failed_grad_assignment_changes_nothing():
    x = agv.ones(2, requires_grad=True)
    (x * 3).sum().backward()
    for bad in (0.0, np.zeros(2), agv.zeros(3), agv.zeros(2, dtype=agv.float64)):
        with pytest.raises((TypeError, RuntimeError)):
            x.grad = bad
    assert x.grad.tolist() == [3.0, 3.0]


@pytest.mark.parametrize(
    "code",
    [
        "lib.nn.functional.one_hot(lib.tensor([1.0, 2.0]))",
        "lib.nn.functional.embedding(lib.tensor([1.0]), lib.ones(3, 2))",
        "lib.nn.functional.cross_entropy(lib.ones(2, 3), lib.tensor([0.0, 1.0]))",
    ],
)
def test_nn_hints_name_dtypes_as_tensors_print_them(code):
    """The hint after PyTorch's sentence names the dtypes the way the learner's
    tensors print them (str(agv.int64) is "torch.int64"), never as "agv.int64"."""
    with pytest.raises(RuntimeError) as error:
        exec(code, {"lib": agv})
    message = str(error.value)
    assert "agv." not in message
    assert str(agv.int64) in message and str(agv.tensor([1.0]).dtype) in message
    assert str(agv.int64) == str(torch.int64) and str(agv.float32) == str(torch.float32)


def test_backward_of_a_non_scalar_names_no_variable_of_the_learner():
    """Issue 15: the hint said `y.backward(agv.ones_like(y))` whatever the output was called,
    and lesson 5's output is `z` while its `y` is an input. It says "output" now."""
    x = agv.ones(3, requires_grad=True)
    z = x * 2
    with pytest.raises(RuntimeError) as raised:
        z.backward()
    assert str(raised.value) == (
        "grad can be implicitly created only for scalar outputs: this output has shape "
        "(3,). Pass a gradient of that shape, for example "
        "output.backward(agv.ones_like(output)), or reduce the output to a scalar first (output.sum())."
    )
    assert x.grad is None
