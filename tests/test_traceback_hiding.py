"""A learner's mistake shows their own line and the message, not the engine's
insides: the functions an error passes through set `__tracebackhide__ = True`,
which IPython (and so every Jupyter kernel) leaves out of a traceback.

IPython always keeps the innermost frame, the one whose `raise` made the error
(IPython/core/ultratb.py skips a hidden frame only if it is not the last one),
so a traceback is: the learner's cell, "[... skipping hidden N frame]", the
`raise` statement, the message. These tests run each common mistake in a real
ipykernel, once as a learner sees it and once with hiding switched off, to
count the lines saved.
"""

import re
import sys

import pytest

pytest.importorskip("ipykernel")
jupyter_client = pytest.importorskip("jupyter_client")

import autogradviz as agv  # noqa: E402
import autogradviz.nn as nn  # noqa: E402
from tests._browser import jupyter_data_dir  # noqa: E402

# name: (the cell, whose last line makes the error; words the message must start with)
MISTAKES = {
    "backward twice": (
        "x = agv.tensor([1.0, 2.0], requires_grad=True)\ny = (x * x).sum()\ny.backward()\ny.backward()",
        "Trying to backward through the graph a second time",
    ),
    "backward twice through nn": (
        "model = nn.Linear(3, 1)\nloss = nn.MSELoss()(model(agv.ones(2, 3)), agv.ones(2, 1))\n"
        "loss.backward()\nloss.backward()",
        "Trying to backward through the graph a second time",
    ),
    "backward on a non-scalar": (
        "x = agv.tensor([1.0, 2.0], requires_grad=True)\ny = x * 2\ny.backward()",
        "grad can be implicitly created only for scalar outputs",
    ),
    "a saved tensor changed in place": (
        "x = agv.tensor([1.0, 2.0], requires_grad=True)\nh = x * 1\ny = (h * h).sum()\nh.add_(1)\ny.backward()",
        "one of the variables needed for gradient computation has been modified by an inplace operation",
    ),
    "a leaf changed in place": (
        "w = agv.tensor([1.0, 2.0], requires_grad=True)\nw -= 0.1 * w",
        "a leaf Variable that requires grad is being used in an in-place operation.",
    ),
    "a leaf zeroed in place": (
        "w = agv.tensor([1.0, 2.0], requires_grad=True)\nw.zero_()",
        "a leaf Variable that requires grad is being used in an in-place operation.",
    ),
    "a leaf assigned by index": (
        "w = agv.tensor([1.0, 2.0], requires_grad=True)\nw[0] = 5.0",
        "a view of a leaf Variable that requires grad is being used in an in-place operation.",
    ),
    "matmul shapes": (
        "a = agv.ones(2, 3)\nb = agv.ones(2, 3)\nc = a @ b",
        "matmul: shapes (2, 3) and (2, 3)",
    ),
    "Linear shapes": (
        "layer = nn.Linear(3, 4)\nout = layer(agv.ones(2, 5))",
        "Linear(in_features=3, out_features=4, bias=True): expected input with last dimension 3",
    ),
    "Sequential shapes": (
        "model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(5, 1))\nout = model(agv.ones(2, 3))",
        "Linear(in_features=5, out_features=1, bias=True): expected input with last dimension 5",
    ),
    ".numpy() on a tensor that requires grad": (
        "w = agv.tensor([1.0, 2.0], requires_grad=True)\nw.numpy()",
        "Can't call numpy() on Tensor that requires grad.",
    ),
    ".item() on two elements": (
        "t = agv.tensor([1.0, 2.0])\nt.item()",
        "a Tensor with 2 elements cannot be converted to Scalar",
    ),
}

ANSI = re.compile(r"\x1b\[[0-9;]*m")
FRAME = re.compile(r"^File (\S+):(\d+), in ", re.M)  # a frame in a file; a cell's is "Cell In[3], line 4"


def run_in_kernel(km_client, code: str) -> list[str]:
    """Run `code`; the traceback the kernel sends, without colors, as lines."""
    msg_id = km_client.execute(code)
    traceback = None
    while True:
        msg = km_client.get_iopub_msg(timeout=60)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "error":
            traceback = msg["content"]["traceback"]
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            break
    return [] if traceback is None else ANSI.sub("", "\n".join(traceback)).splitlines()


@pytest.fixture(scope="module")
def tracebacks(tmp_path_factory):
    """{mistake: (as a learner sees it, with hiding switched off)}, from one real kernel."""
    data = jupyter_data_dir(tmp_path_factory.mktemp("jupyter"))
    mp = pytest.MonkeyPatch()
    mp.setenv("JUPYTER_DATA_DIR", str(data))  # its python3 kernel is this Python
    mp.setenv("JUPYTER_PATH", str(data))
    km, kc = jupyter_client.manager.start_new_kernel(kernel_name="python3")
    try:
        assert run_in_kernel(kc, "import autogradviz as agv\nimport autogradviz.nn as nn\nimport sys") == []
        # the same Python, so the same autogradviz: file paths below are this checkout's
        assert run_in_kernel(kc, f"assert sys.executable == {sys.executable!r}, sys.executable") == []
        results = {}
        for name, (code, _) in MISTAKES.items():
            shown = run_in_kernel(kc, code)
            run_in_kernel(kc, "get_ipython().InteractiveTB.skip_hidden = False")
            unhidden = run_in_kernel(kc, code)
            run_in_kernel(kc, "get_ipython().InteractiveTB.skip_hidden = True")
            results[name] = (shown, unhidden)
        yield results
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
        mp.undo()


def exception_of(code: str) -> BaseException:
    """The exception `code` raises here, in this process: its message is what the kernel must show."""
    with pytest.raises(Exception) as caught:
        exec(code, {"agv": agv, "nn": nn})
    return caught.value


@pytest.mark.parametrize("name", list(MISTAKES))
def test_a_mistake_shows_the_learners_line_the_message_and_only_the_raise(name, tracebacks):
    code, start = MISTAKES[name]
    shown, unhidden = tracebacks[name]
    error = exception_of(code)
    assert str(error).startswith(start)  # the cell makes the mistake it is named for

    # the message, whole, as the last line
    assert shown[-1] == f"{type(error).__name__}: {error}"
    # the learner's line, with IPython's arrow: "----> 4 y.backward()"
    lines = code.splitlines()
    assert f"----> {len(lines)} {lines[-1]}" in shown
    assert shown[2].startswith("Cell In[")  # under the header, the first frame is the learner's cell

    # one frame in autogradviz: the innermost, whose `raise` IPython always shows
    frames = FRAME.findall("\n".join(shown))
    assert len(frames) == 1, frames
    path, line = frames[0]
    assert "/autogradviz/" in path
    frame_lines = shown[[i for i, s in enumerate(shown) if s.startswith("File ")][0] :]
    assert any(re.match(rf"^-+> {line} +raise ", s) for s in frame_lines), frame_lines

    # every other autogradviz frame the error passed through was hidden, and IPython says so
    passed = FRAME.findall("\n".join(unhidden))
    assert len(passed) >= 1 and passed[-1] == frames[0]
    if len(passed) > 1:
        assert f"    [... skipping hidden {len(passed) - 1} frame]" in shown
        assert len(shown) < len(unhidden)
    else:
        assert len(shown) == len(unhidden)  # nothing to hide: the same traceback


def test_line_counts_before_and_after(tracebacks, capsys):
    """Prints the table of traceback lengths (pytest -s shows it) and checks the
    three errors through the engine are at most 25 lines, from 35-45."""
    rows = [(name, len(unhidden), len(shown)) for name, (shown, unhidden) in tracebacks.items()]
    with capsys.disabled():
        print(f"\n{'mistake':42} {'frames before':>13} {'after':>5} {'lines before':>12} {'after':>5}")
        for name, before, after in rows:
            shown, unhidden = tracebacks[name]
            frames_before, frames_after = (len(FRAME.findall("\n".join(tb))) + 1 for tb in (unhidden, shown))
            print(f"{name:42} {frames_before:>13} {frames_after:>5} {before:>12} {after:>5}")
    through_engine = {name: after for name, before, after in rows if "backward" in name or "saved" in name}
    assert through_engine and all(after <= 25 for after in through_engine.values()), through_engine
