"""Random functions and generator= (issue 12, item 3; makemore's sampling, item 4).

The numbers are numpy's PCG64, not PyTorch's, so these tests check what does
not depend on the bit generator: shapes, dtypes, ranges, graph nodes and
errors (against torch), distributions (against their known moments), and the
bookkeeping of streams: the same seed gives the same draws, two generators are
independent, and a function given generator= leaves the default stream alone.
"""

from __future__ import annotations

import collections

import numpy as np
import pytest

import autogradviz as agv

torch = pytest.importorskip("torch")


def message_of(fn) -> tuple[type, str]:
    try:
        fn()
    except Exception as error:  # noqa: BLE001 - the class and message are what is compared
        return type(error), str(error)
    raise AssertionError("no error raised")


def same_error(call) -> None:
    """call(m) fails alike on both: the same class, and our message starts with torch's."""
    ours, theirs = message_of(lambda: call(agv)), message_of(lambda: call(torch))
    assert ours[0] is theirs[0], (ours, theirs)
    assert ours[1].startswith(theirs[1].split("  (Could this")[0].rstrip(".")), (ours, theirs)


# every random function, drawing from `g` (None: the default stream); each returns a list
DRAWS = {
    "rand": lambda m, g: m.rand(5, generator=g),
    "randn": lambda m, g: m.randn((2, 3), generator=g),
    "randint": lambda m, g: m.randint(0, 10, (6,), generator=g),
    "randperm": lambda m, g: m.randperm(8, generator=g),
    "rand_like": lambda m, g: m.rand_like(m.zeros(4), generator=g),
    "randn_like": lambda m, g: m.randn_like(m.zeros(4), generator=g),
    "randint_like": lambda m, g: m.randint_like(m.zeros(4), 0, 9, generator=g),
    "normal numbers": lambda m, g: m.normal(0.0, 1.0, (4,), generator=g),
    "normal tensors": lambda m, g: m.normal(m.zeros(4), m.ones(4), generator=g),
    "normal mean": lambda m, g: m.normal(m.zeros(4), 2.0, generator=g),
    "bernoulli": lambda m, g: m.bernoulli(m.full((8,), 0.5), generator=g),
    "bernoulli p": lambda m, g: m.bernoulli(m.zeros(8), 0.5, generator=g),
    "Tensor.bernoulli": lambda m, g: m.full((8,), 0.5).bernoulli(generator=g),
    "multinomial": lambda m, g: m.multinomial(m.ones(6), 3, generator=g),
    "multinomial replacement": lambda m, g: m.multinomial(m.ones(2, 6), 4, replacement=True, generator=g),
    "Tensor.multinomial": lambda m, g: m.ones(6).multinomial(2, generator=g),
    "Tensor.normal_": lambda m, g: m.zeros(5).normal_(0.0, 1.0, generator=g),
    "Tensor.uniform_": lambda m, g: m.zeros(5).uniform_(-1.0, 1.0, generator=g),
    "init.normal_": lambda m, g: m.nn.init.normal_(m.zeros(5), generator=g),
    "init.uniform_": lambda m, g: m.nn.init.uniform_(m.zeros(5), generator=g),
    "init.kaiming_uniform_": lambda m, g: m.nn.init.kaiming_uniform_(m.zeros(3, 4), generator=g),
    "init.kaiming_normal_": lambda m, g: m.nn.init.kaiming_normal_(m.zeros(3, 4), generator=g),
    "init.xavier_uniform_": lambda m, g: m.nn.init.xavier_uniform_(m.zeros(3, 4), generator=g),
    "init.xavier_normal_": lambda m, g: m.nn.init.xavier_normal_(m.zeros(3, 4), generator=g),
}


def drawn(name: str, m, g) -> list:
    return DRAWS[name](m, g).tolist()


@pytest.mark.parametrize("name", DRAWS)
def test_generator_keyword_exists_in_torch_too(name):
    """Every call above is valid PyTorch: the keyword is the same, and so are shape and dtype."""
    ours, theirs = DRAWS[name](agv, agv.Generator()), DRAWS[name](torch, torch.Generator())
    assert tuple(ours.shape) == tuple(theirs.shape) and str(ours.dtype) == str(theirs.dtype)


@pytest.mark.parametrize("name", DRAWS)
def test_same_seed_same_draws(name):
    a = drawn(name, agv, agv.Generator().manual_seed(11))
    b = drawn(name, agv, agv.Generator().manual_seed(11))
    assert a == b
    agv.manual_seed(11)
    c = drawn(name, agv, None)
    agv.manual_seed(11)
    assert drawn(name, agv, None) == c


@pytest.mark.parametrize("name", DRAWS)
def test_generator_leaves_the_default_stream_alone(name):
    agv.manual_seed(5)
    expected = agv.rand(6).tolist()
    agv.manual_seed(5)
    drawn(name, agv, agv.Generator().manual_seed(1))
    assert agv.rand(6).tolist() == expected


@pytest.mark.parametrize("name", DRAWS)
def test_two_generators_are_independent(name):
    alone = [drawn(name, agv, g) for g in [agv.Generator().manual_seed(3)] * 2]
    g, other = agv.Generator().manual_seed(3), agv.Generator().manual_seed(3)
    interleaved = []
    for _ in range(2):
        interleaved.append(drawn(name, agv, g))
        drawn(name, agv, other)  # draws from another stream in between change nothing for g
        agv.rand(3)  # nor do draws from the default stream
    assert interleaved == alone


@pytest.mark.parametrize("name", ["rand", "randn", "randperm", "normal numbers", "multinomial"])
def test_different_seeds_give_different_draws(name):
    assert drawn(name, agv, agv.Generator().manual_seed(1)) != drawn(
        name, agv, agv.Generator().manual_seed(2)
    )


def test_existing_draws_are_unchanged():
    """Lesson outputs depend on these: after manual_seed(n), rand, randn and randint are
    numpy's default_rng(n) draws, exactly as before generator= and device= existed."""
    rng = np.random.default_rng(0)
    agv.manual_seed(0)
    np.testing.assert_array_equal(agv.rand(3).numpy(), rng.random((3,)).astype(np.float32))
    np.testing.assert_array_equal(agv.randn(2, 2).numpy(), rng.standard_normal((2, 2)).astype(np.float32))
    np.testing.assert_array_equal(agv.randint(0, 10, (4,)).numpy(), rng.integers(0, 10, (4,)))
    np.testing.assert_array_equal(agv.rand_like(agv.zeros(2)).numpy(), rng.random((2,)).astype(np.float32))
    np.testing.assert_array_equal(agv.randn(size=(3,)).numpy(), rng.standard_normal((3,)).astype(np.float32))


def test_a_generator_is_not_a_seed():
    with pytest.raises(TypeError, match="generator must be an agv.Generator"):
        agv.rand(2, generator=0)


# -- randperm --------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [0, 1, 7, 100])
def test_randperm_is_a_permutation(n):
    for m in (agv, torch):
        p = m.randperm(n)
        assert str(p.dtype) == "torch.int64" and tuple(p.shape) == (n,)
        assert sorted(p.tolist()) == list(range(n))
        assert p.requires_grad is False


def test_randperm_dtype_and_errors_like_torch():
    for m in (agv, torch):
        p = m.randperm(5, dtype=m.float32)
        assert str(p.dtype) == "torch.float32" and sorted(p.tolist()) == [0.0, 1.0, 2.0, 3.0, 4.0]
    same_error(lambda m: m.randperm(-1))
    same_error(lambda m: m.randperm(3.0))
    ours = message_of(lambda: agv.randperm(4, requires_grad=True))
    theirs = message_of(lambda: torch.randperm(4, requires_grad=True))
    assert ours[0] is theirs[0] is RuntimeError and ours[1].startswith("Only Tensors of floating point")


def test_randperm_shuffles_evenly():
    agv.manual_seed(0)
    firsts = collections.Counter(agv.randperm(4)[0].item() for _ in range(4000))
    assert set(firsts) == {0, 1, 2, 3} and all(abs(c - 1000) < 150 for c in firsts.values())


# -- normal ----------------------------------------------------------------------------------------

NORMAL_FORMS = {
    "tensor, tensor": lambda m, mean, std: m.normal(mean, std),
    "tensor, float": lambda m, mean, std: m.normal(mean, 2.0),
    "float, tensor": lambda m, mean, std: m.normal(0.5, std),
    "tensor only": lambda m, mean, std: m.normal(mean),
    "keywords": lambda m, mean, std: m.normal(mean=mean, std=std),
}


@pytest.mark.parametrize("form", NORMAL_FORMS)
def test_normal_of_tensors_shape_dtype_and_node_like_torch(form):
    call = NORMAL_FORMS[form]
    results = []
    for m in (agv, torch):
        mean = m.zeros(2, 3, dtype=m.float64, requires_grad=True)
        std = m.ones(3, dtype=m.float64, requires_grad=True)
        out = call(m, mean, std)
        out.sum().backward()
        grads = [None if t.grad is None else t.grad.tolist() for t in (mean, std)]
        results.append((tuple(out.shape), str(out.dtype), type(out.grad_fn).__name__, grads))
    assert results[0] == results[1]  # PyTorch's NormalBackward1/2/3 send back zero gradients


def test_normal_of_numbers_like_torch():
    for m in (agv, torch):
        out = m.normal(2.0, 3.0, size=(4,))
        assert str(out.dtype) == "torch.float32" and tuple(out.shape) == (4,) and out.grad_fn is None
        assert str(m.normal(2, 3, (2, 2), dtype=m.float64).dtype) == "torch.float64"
        leaf = m.normal(0.0, 1.0, (3,), requires_grad=True)
        assert leaf.requires_grad and leaf.is_leaf
        assert m.normal(1.5, 0.0, (3,)).tolist() == [1.5, 1.5, 1.5]


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.normal(0.0, -1.0, (2,)),
        lambda m: m.normal(m.zeros(2), -m.ones(2)),
        lambda m: m.normal(m.zeros(2, 3), m.ones(4)),
        lambda m: m.normal(m.tensor([1, 2]), m.ones(2)),
    ],
    ids=["negative std", "negative std tensor", "shapes", "int mean"],
)
def test_normal_errors_like_torch(call):
    ours, theirs = message_of(lambda: call(agv)), message_of(lambda: call(torch))
    assert ours[0] is theirs[0]
    if "size of tensor" not in theirs[1]:  # our broadcasting error names the two shapes instead
        assert ours[1].startswith(theirs[1])


def test_normal_of_two_numbers_needs_a_size():
    assert message_of(lambda: agv.normal(0.0, 1.0))[0] is message_of(lambda: torch.normal(0.0, 1.0))[0]


def test_normal_moments():
    g = agv.Generator().manual_seed(0)
    x = agv.normal(agv.full((200_000,), 3.0), 2.0, generator=g).numpy()
    assert abs(x.mean() - 3.0) < 0.02 and abs(x.std() - 2.0) < 0.02
    y = agv.normal(-1.0, 0.5, size=(200_000,), generator=g).numpy()
    assert abs(y.mean() + 1.0) < 0.01 and abs(y.std() - 0.5) < 0.01


# -- bernoulli -------------------------------------------------------------------------------------


def test_bernoulli_keeps_dtype_and_records_like_torch():
    results = []
    for m in (agv, torch):
        p = m.tensor([0.0, 1.0, 0.3], dtype=m.float64, requires_grad=True)
        out = m.bernoulli(p)
        out.sum().backward()
        results.append((str(out.dtype), type(out.grad_fn).__name__, p.grad.tolist(), out.tolist()[:2]))
        assert str(p.bernoulli().dtype) == "torch.float64"
    assert results[0] == results[1] == ("torch.float64", "BernoulliBackward0", [0.0, 0.0, 0.0], [0.0, 1.0])


def test_bernoulli_frequencies():
    g = agv.Generator().manual_seed(0)
    flips = agv.bernoulli(agv.full((100_000,), 0.3), generator=g)
    assert set(np.unique(flips.numpy()).tolist()) <= {0.0, 1.0}
    assert abs(flips.mean().item() - 0.3) < 0.01
    assert abs(agv.bernoulli(agv.zeros(100_000), 0.8, generator=g).mean().item() - 0.8) < 0.01


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.bernoulli(m.tensor([1.5])),
        lambda m: m.bernoulli(m.tensor([float("nan")])),
        lambda m: m.bernoulli(m.zeros(2), 1.5),
        lambda m: m.bernoulli(m.tensor([1, 0])),
    ],
    ids=["p > 1", "nan", "float p > 1", "int"],
)
def test_bernoulli_errors_like_torch(call):
    same_error(call)


# -- multinomial -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.multinomial(m.tensor([0.1, 0.2, 0.7]), 4),
        lambda m: m.multinomial(m.ones(2, 2, 3), 2),
        lambda m: m.multinomial(m.tensor(1.0), 1),
        lambda m: m.multinomial(m.tensor([1.0, -1.0]), 1),
        lambda m: m.multinomial(m.tensor([1.0, float("inf")]), 1),
        lambda m: m.multinomial(m.tensor([1.0, float("nan")]), 1),
        lambda m: m.multinomial(m.tensor([0.0, 0.0]), 1),
        lambda m: m.multinomial(m.tensor([[1.0, 1.0], [0.0, 0.0]]), 1),
        lambda m: m.multinomial(m.tensor([1, 2]), 1),
        lambda m: m.multinomial(m.ones(3), 0),
        lambda m: m.multinomial(m.ones(3), -1, replacement=True),
        lambda m: m.multinomial(m.ones(3), 1.5),
        lambda m: m.multinomial(m.zeros(0), 1),
    ],
    ids=[
        "too many without replacement",
        "3-D",
        "0-D",
        "negative",
        "inf",
        "nan",
        "all zero",
        "a zero row",
        "int",
        "zero samples",
        "negative samples",
        "float samples",
        "empty",
    ],
)
def test_multinomial_errors_like_torch(call):
    same_error(call)


def test_multinomial_shapes_and_dtype_like_torch():
    for m in (agv, torch):
        for probs, n, replacement, shape in [
            (m.ones(5), 3, False, (3,)),
            (m.ones(5), 9, True, (9,)),
            (m.ones(4, 5), 5, False, (4, 5)),
            (m.ones(4, 5, dtype=m.float64), 2, True, (4, 2)),
            (m.zeros(0, 3), 1, False, (0, 1)),
        ]:
            out = m.multinomial(probs, n, replacement=replacement)
            assert tuple(out.shape) == shape and str(out.dtype) == "torch.int64"
            assert out.requires_grad is False


def test_multinomial_without_replacement_draws_each_index_once():
    g = agv.Generator().manual_seed(0)
    for _ in range(50):
        rows = agv.multinomial(agv.rand(3, 6, generator=g) + 0.01, 6, generator=g).tolist()
        assert all(sorted(row) == list(range(6)) for row in rows)
    # zero weights come last, as in torch: [1, 1, 0] taking 3 ends with index 2
    for m in (agv, torch):
        assert m.multinomial(m.tensor([1.0, 1.0, 0.0]), 3).tolist()[-1] == 2
        assert m.multinomial(m.tensor([0.0, 1.0, 0.0]), 1).tolist() == [1]


def test_multinomial_frequencies_follow_the_weights():
    g = agv.Generator().manual_seed(0)
    weights = [1.0, 2.0, 0.0, 7.0]  # unnormalised, with a zero
    counts = collections.Counter(agv.multinomial(agv.tensor(weights), 50_000, True, generator=g).tolist())
    assert counts[2] == 0
    for i, w in enumerate(weights):
        assert abs(counts[i] / 50_000 - w / 10) < 0.01
    # without replacement, the first pick of each row follows the weights too
    firsts = agv.multinomial(agv.tensor([weights] * 50_000), 2, generator=g)[:, 0].tolist()
    first_counts = collections.Counter(firsts)
    assert first_counts[2] == 0 and abs(first_counts[3] / 50_000 - 0.7) < 0.01


# -- makemore --------------------------------------------------------------------------------------


def test_makemore_sampling_runs_unchanged():
    torch_like = agv  # the notebook's `import autogradviz as torch`
    g = torch_like.Generator().manual_seed(2147483647)
    W = torch_like.randn((27, 27), generator=g, requires_grad=True)
    assert W.requires_grad and W.is_leaf and W.dtype is agv.float32
    X = torch_like.randint(0, 27, (228146,), generator=g)
    ix = torch_like.randint(0, X.shape[0], (32,), generator=g)
    assert ix.dtype is agv.int64 and ix.shape == (32,) and 0 <= ix.min().item() and ix.max().item() < 228146

    def sample(seed: int) -> str:
        g = torch_like.Generator().manual_seed(seed)
        out, i = [], 0
        while True:
            logits = W[i] if i else W[0]
            p = logits.exp() / logits.exp().sum()
            i = torch_like.multinomial(p, num_samples=1, replacement=True, generator=g).item()
            if i == 0 or len(out) > 20:
                return "".join(out)
            out.append(chr(ord("a") + i - 1))

    assert isinstance(torch_like.multinomial(W[0].softmax(0), 1, True).item(), int)
    assert sample(2147483647) == sample(2147483647)  # the same seed, the same names
