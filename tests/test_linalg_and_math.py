"""Issue 12's linear algebra and math, against PyTorch: the nodes recorded, the
errors for bad shapes and dtypes, norms at zero, meshgrid's warning.

Values, gradients and double gradients of these ops are checked in
test_ops_vs_torch.py and test_ops_gradcheck.py (their cases are in
_op_cases.py); this file checks what a table of cases can't.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import autogradviz as agv

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning:autogradviz")


def tensors(L, *shapes, dtype="float64", requires_grad=True, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for shape in shapes:
        array = rng.standard_normal(shape).astype(dtype)
        out.append(L.tensor(array, requires_grad=requires_grad and array.dtype.kind == "f"))
    return out


def check_same(ours, theirs, rtol=1e-10):
    np.testing.assert_allclose(
        np.asarray(ours.detach().numpy()), theirs.detach().numpy(), rtol=rtol, atol=1e-12
    )
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]


# -- the node each op records: PyTorch's name, or a torch_name saying what PyTorch records -----------

NODES = {
    "mm": lambda L: L.mm(*tensors(L, (2, 3), (3, 4))),
    "mv": lambda L: L.mv(*tensors(L, (2, 3), (3,))),
    "dot": lambda L: L.dot(*tensors(L, (3,), (3,))),
    "bmm": lambda L: L.bmm(*tensors(L, (2, 2, 3), (2, 3, 4))),
    "outer": lambda L: L.outer(*tensors(L, (2,), (3,))),
    "ger": lambda L: L.ger(*tensors(L, (2,), (3,))),
    "einsum": lambda L: L.einsum("ij,jk->ik", *tensors(L, (2, 3), (3, 4))),
    "einsum, a sum": lambda L: L.einsum("ij->", *tensors(L, (2, 3))),
    "x.norm()": lambda L: tensors(L, (2, 3))[0].norm(),
    "x.norm(1, dim)": lambda L: tensors(L, (2, 3))[0].norm(1, dim=1),
    "linalg.vector_norm(inf)": lambda L: L.linalg.vector_norm(tensors(L, (2, 3))[0], float("inf")),
    "linalg.norm": lambda L: L.linalg.norm(tensors(L, (2, 3))[0]),
    "matrix_norm 'fro'": lambda L: L.linalg.matrix_norm(tensors(L, (2, 3))[0]),
    "matrix_norm 'nuc'": lambda L: L.linalg.matrix_norm(tensors(L, (2, 3))[0], "nuc"),
    "svdvals": lambda L: L.linalg.svdvals(tensors(L, (2, 3))[0]),
    "log10": lambda L: L.log10(tensors(L, (3,))[0].abs()),
    "log2": lambda L: L.log2(tensors(L, (3,))[0].abs()),
    "sinh": lambda L: L.sinh(tensors(L, (3,))[0]),
    "cosh": lambda L: tensors(L, (3,))[0].cosh(),
    "tan": lambda L: L.tan(tensors(L, (3,))[0]),
    "asin": lambda L: L.asin(tensors(L, (3,))[0] * 0.1),
    "acos": lambda L: L.acos(tensors(L, (3,))[0] * 0.1),
    "atan": lambda L: L.atan(tensors(L, (3,))[0]),
    "atan2": lambda L: L.atan2(*tensors(L, (3,), (3,))),
    "log1p": lambda L: L.log1p(tensors(L, (3,))[0].abs()),
    "expm1": lambda L: L.expm1(tensors(L, (3,))[0]),
    "exp2": lambda L: L.exp2(tensors(L, (3,))[0]),
    "square": lambda L: L.square(tensors(L, (3,))[0]),
    "rsqrt": lambda L: L.rsqrt(tensors(L, (3,))[0].abs()),
    "reciprocal": lambda L: L.reciprocal(tensors(L, (3,))[0]),
    "floor": lambda L: L.floor(tensors(L, (3,))[0]),
    "ceil": lambda L: L.ceil(tensors(L, (3,))[0]),
    "round": lambda L: L.round(tensors(L, (3,))[0]),
    "round(decimals)": lambda L: L.round(tensors(L, (3,))[0], decimals=1),
    "trunc": lambda L: L.trunc(tensors(L, (3,))[0]),
    "erf": lambda L: L.erf(tensors(L, (3,))[0]),
    "meshgrid": lambda L: L.meshgrid(*tensors(L, (2,), (3,)), indexing="ij")[0],
    "prod": lambda L: tensors(L, (2, 3))[0].prod(),
    "linalg.inv": lambda L: L.linalg.inv(tensors(L, (3, 3))[0]),
    "x.inverse()": lambda L: tensors(L, (3, 3))[0].inverse(),
    "linalg.det": lambda L: L.linalg.det(tensors(L, (3, 3))[0]),
    "x.det()": lambda L: tensors(L, (3, 3))[0].det(),
    "linalg.solve": lambda L: L.linalg.solve(*tensors(L, (3, 3), (3,))),
    "prod(dim)": lambda L: L.prod(tensors(L, (2, 3))[0], 1),
    "cumsum": lambda L: L.cumsum(tensors(L, (2, 3))[0], 1),
    "meshgrid xy": lambda L: L.meshgrid(*tensors(L, (2,), (3,)), indexing="xy")[1],
}


@pytest.mark.parametrize("op", sorted(NODES))
def test_each_op_records_pytorchs_node(op):
    ours, theirs = NODES[op](agv).grad_fn, NODES[op](torch).grad_fn
    recorded = type(theirs).__name__
    if ours.torch_name is None:
        assert ours.name() == recorded
    else:
        assert recorded in ours.torch_name, f"{ours.name()}.torch_name should mention {recorded}"
    assert ours.op and ours.rules  # the formula sheet and the stepper show them


def test_outer_and_meshgrid_record_the_same_graph_as_pytorch():
    def names(node, depth=2):
        if node is None or depth == 0:
            return []
        return [type(node).__name__] + [
            n for child, _ in node.next_functions for n in names(child, depth - 1)
        ]

    for build in (NODES["outer"], NODES["meshgrid"], NODES["meshgrid xy"]):
        assert names(build(agv).grad_fn) == names(build(torch).grad_fn)


# -- errors: PyTorch's sentence first --------------------------------------------------------------

ERRORS = {
    "mm, a vector first": lambda L: L.mm(L.ones(3), L.ones(3, 2)),
    "mm, a vector second": lambda L: L.mm(L.ones(2, 3), L.ones(3)),
    "mm, sizes": lambda L: L.mm(L.ones(2, 3), L.ones(4, 5)),
    "mm, dtypes": lambda L: L.mm(L.ones(2, 3), L.ones(3, 2, dtype=L.float64)),
    "mm, bool": lambda L: L.mm(L.ones(2, 3) > 0, L.ones(3, 2) > 0),
    "dot, matrices": lambda L: L.dot(L.ones(2, 3), L.ones(2, 3)),
    "dot, vector and matrix": lambda L: L.dot(L.ones(3), L.ones(2, 3)),
    "dot, sizes": lambda L: L.dot(L.ones(3), L.ones(4)),
    "dot, dtypes": lambda L: L.dot(L.ones(3), L.ones(3, dtype=L.float64)),
    "bmm, 2-D": lambda L: L.bmm(L.ones(2, 3), L.ones(3, 2)),
    "bmm, batch": lambda L: L.bmm(L.ones(2, 2, 3), L.ones(3, 3, 3)),
    "bmm, sizes": lambda L: L.bmm(L.ones(2, 2, 3), L.ones(2, 4, 3)),
    "bmm, dtypes": lambda L: L.bmm(L.ones(2, 2, 3), L.ones(2, 3, 3, dtype=L.float64)),
    "mv, sizes": lambda L: L.mv(L.ones(2, 3), L.ones(4)),
    "mv, two vectors": lambda L: L.mv(L.ones(3), L.ones(3)),
    "mv, two matrices": lambda L: L.mv(L.ones(2, 3), L.ones(2, 3)),
    "outer, a matrix": lambda L: L.outer(L.ones(2, 3), L.ones(3)),
    "einsum, sizes": lambda L: L.einsum("ij,jk->ik", L.ones(2, 3), L.ones(2, 3)),
    "einsum, too many operands": lambda L: L.einsum("ij", L.ones(2, 3), L.ones(2, 3)),
    "einsum, unknown output": lambda L: L.einsum("ij->ik", L.ones(2, 3)),
    "einsum, output twice": lambda L: L.einsum("ij->jj", L.ones(2, 3)),
    "einsum, diagonal sizes": lambda L: L.einsum("ii", L.ones(2, 3)),
    "einsum, dtypes": lambda L: L.einsum("i,i->", L.ones(3), L.ones(3, dtype=L.float64)),
    "norm of ints": lambda L: L.arange(3).norm(),
    "vector_norm of ints": lambda L: L.linalg.vector_norm(L.arange(3)),
    "vector_norm, a dim twice": lambda L: L.linalg.vector_norm(L.ones(2, 3), dim=(0, 0)),
    "vector_norm, inf of empty": lambda L: L.linalg.vector_norm(L.zeros(0), float("inf")),
    "vector_norm, -inf of empty": lambda L: L.linalg.vector_norm(L.zeros(0), float("-inf")),
    "matrix_norm of a vector": lambda L: L.linalg.matrix_norm(L.ones(3)),
    "matrix_norm, order 3": lambda L: L.linalg.matrix_norm(L.ones(2, 3), 3),
    "matrix_norm, dims": lambda L: L.linalg.matrix_norm(L.ones(2, 3), dim=(0, 1, 1)),
    "matrix_norm, same dims": lambda L: L.linalg.matrix_norm(L.ones(2, 3), dim=(0, 0)),
    "linalg.norm, ord of 3-D": lambda L: L.linalg.norm(L.ones(2, 2, 2), ord=2),
    "linalg.norm, 3 dims": lambda L: L.linalg.norm(L.ones(2, 2, 2), dim=(0, 1, 2)),
    "linalg.norm, 'fro' on one dim": lambda L: L.linalg.norm(L.ones(2, 3), "fro", dim=1),
    "meshgrid, a matrix": lambda L: L.meshgrid(L.ones(2), L.ones(2, 2), indexing="ij"),
    "meshgrid, dtypes": lambda L: L.meshgrid(L.ones(2), L.ones(2, dtype=L.float64), indexing="ij"),
    "meshgrid, indexing": lambda L: L.meshgrid(L.ones(2), L.ones(3), indexing="xx"),
    "meshgrid, nothing": lambda L: L.meshgrid(indexing="xy"),
    "prod, a tuple of dims": lambda L: L.ones(2, 3).prod((0, 1)),
    "inv of a vector": lambda L: L.linalg.inv(L.ones(3)),
    "inv, not square": lambda L: L.linalg.inv(L.ones(2, 3)),
    "inv of ints": lambda L: L.linalg.inv(L.ones(2, 2, dtype=L.int64)),
    "det, not square": lambda L: L.linalg.det(L.ones(2, 3)),
    "solve, shapes": lambda L: L.linalg.solve(L.eye(2), L.ones(3)),
    "solve, matrix shapes": lambda L: L.linalg.solve(L.eye(2), L.ones(3, 1)),
    "cumsum, dim out of range": lambda L: L.ones(2, 3).cumsum(2),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_bad_input_raises_pytorchs_error(case):
    with pytest.raises(Exception) as theirs:
        ERRORS[case](torch)
    with pytest.raises(Exception) as ours:
        ERRORS[case](agv)
    assert type(ours.value) is type(theirs.value)
    expected = str(theirs.value).split("\n")[0]
    if case == "meshgrid, a matrix":  # torch prints the tensor itself; we print its shape
        expected = expected.split("got:")[0] + "got"
    assert str(ours.value).startswith(expected), f"{ours.value!r} does not start with {expected!r}"


def test_a_failed_product_changes_nothing():
    a = agv.ones(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError):
        agv.mm(a, agv.ones(4, 5))
    assert a.grad is None and a._version == 0


# -- dtypes, as PyTorch gives them ---------------------------------------------------------------

DTYPES = {
    "mm of ints": lambda L: L.mm(L.tensor([[1, 2]]), L.tensor([[3], [4]])),
    "dot of ints": lambda L: L.dot(L.tensor([1, 2]), L.tensor([3, 4])),
    "outer of int and float": lambda L: L.outer(L.tensor([1, 2]), L.tensor([0.5, 1.5, 2.5])),
    "outer, float32 and float64": lambda L: L.outer(L.ones(2), L.ones(3, dtype=L.float64)),
    "einsum of float32": lambda L: L.einsum("ij,j", L.ones(2, 3), L.ones(3)),
    "floor of ints": lambda L: L.floor(L.tensor([1, -2])),
    "round of ints": lambda L: L.tensor([1, -2]).round(),
    "log10 of ints": lambda L: L.log10(L.tensor([1, 10, 100])),
    "atan2 of ints": lambda L: L.atan2(L.tensor([1, 2]), L.tensor([2, 1])),
    "sinh of float64": lambda L: L.sinh(L.ones(2, dtype=L.float64)),
    "norm of float32": lambda L: L.ones(2, 2).norm(),
    "nuc of float32": lambda L: L.ones(2, 2).norm("nuc"),
    "square of ints": lambda L: L.square(L.tensor([2, -3])),
    "rsqrt of ints": lambda L: L.rsqrt(L.tensor([4, 16])),
    "prod of bools": lambda L: L.tensor([True, True]).prod(),
    "prod of ints along a dim": lambda L: L.tensor([[2, 3], [4, 5]]).prod(0),
    "prod, dtype": lambda L: L.ones(2, 3).prod(1, dtype=L.float64),
    "cumsum of ints": lambda L: L.tensor([2, 3, 4]).cumsum(0),
    "cumsum of bools": lambda L: L.tensor([True, False, True]).cumsum(0),
    "cumsum, dtype": lambda L: L.tensor([1.5, 2.5]).cumsum(0, dtype=L.float64),
}


@pytest.mark.parametrize("case", sorted(DTYPES))
def test_dtypes_and_values_match_torch(case):
    check_same(DTYPES[case](agv), DTYPES[case](torch), rtol=1e-6)


def test_round_goes_to_even_and_keeps_decimals_like_torch():
    x = [0.5, 1.5, 2.5, -0.5, -2.5, 1.2345, -7.891]
    check_same(agv.round(agv.tensor(x)), torch.round(torch.tensor(x)))
    check_same(agv.round(agv.tensor(x), decimals=2), torch.round(torch.tensor(x), decimals=2), rtol=1e-6)


def test_printed_results_match_torch():
    for build in (
        lambda L: L.mm(L.tensor([[1.0, 2.0]], requires_grad=True), L.tensor([[3.0], [4.0]])),
        lambda L: L.tensor([3.0, 4.0], requires_grad=True).norm(),
        lambda L: L.einsum("i,i->", L.tensor([1.0, 2.0], requires_grad=True), L.tensor([3.0, 4.0])),
        # float32 math computed in float64 and rounded, as PyTorch's is: log10(100) prints as 2.
        lambda L: L.log10(L.tensor([10.0, 100.0, 1000.0])),
        lambda L: L.log2(L.tensor([2.0, 8.0, 1024.0])),
        lambda L: L.exp2(L.tensor([1.0, 3.0, 10.0])),
        lambda L: L.sinh(L.tensor([0.0, 1.0])) + L.cosh(L.tensor([0.0, 1.0])) + L.tan(L.tensor([0.0, 0.5])),
    ):
        ours, theirs = repr(build(agv)), repr(build(torch))
        assert ours.split("grad_fn")[0] == theirs.split("grad_fn")[0]


# -- norms where they have a kink: PyTorch's subgradient --------------------------------------------


@pytest.mark.parametrize("p", [2, 1, 3, 0.5, 1.5, float("inf"), float("-inf"), -1, 0])
@pytest.mark.parametrize(
    "values", [[0.0, 0.0, 0.0], [0.0, 0.0, 3.0], [[0.0, 0.0], [3.0, -4.0]], [2.0, -2.0, 1.0]]
)
def test_norm_gradient_at_zero_and_at_ties_is_pytorchs(p, values):
    a, t = agv.tensor(values, requires_grad=True), torch.tensor(values, requires_grad=True)
    dim = -1 if np.ndim(values) == 2 else None
    ours, theirs = agv.linalg.vector_norm(a, p, dim=dim), torch.linalg.vector_norm(t, p, dim=dim)
    check_same(ours, theirs, rtol=1e-6)  # float32
    ours.sum().backward()
    theirs.sum().backward()
    if p == 0:  # counting nonzeros: PyTorch sends no gradient at all, and neither do we
        assert t.grad is None and a.grad is None
        return
    check_same(a.grad, t.grad, rtol=1e-6)
    assert not np.isnan(a.grad.numpy()).any()


def test_norm_of_order_0_sends_no_gradient_as_in_torch():
    results = {}
    for L in (agv, torch):
        x = L.tensor([0.0, 2.0, 0.0, 3.0], requires_grad=True)
        n = L.linalg.vector_norm(x, ord=0)
        assert n.item() == 2.0 and n.requires_grad and type(n.grad_fn).__name__ == "LinalgVectorNormBackward0"
        (g,) = L.autograd.grad(L.linalg.vector_norm(x, ord=0), x, allow_unused=True)
        # with another path to x, x.grad is that path's gradient alone: ord=0 adds nothing
        (L.linalg.vector_norm(x, ord=0) + x.sum()).backward()
        results[L.__name__] = (g, x.grad.tolist())
    assert results["autogradviz"] == results["torch"] == (None, [1.0, 1.0, 1.0, 1.0])


def test_norm_of_a_zero_vector_has_gradient_zero_in_double_backward_too():
    for L in (agv, torch):
        x = L.zeros(3, requires_grad=True)
        (g,) = L.autograd.grad(x.norm(), x, create_graph=True)
        assert not g.detach().numpy().any()


def test_nuclear_norm_gradient_matches_torch_and_create_graph_says_why_not():
    (a,), (t,) = tensors(agv, (3, 4)), tensors(torch, (3, 4))
    agv.linalg.matrix_norm(a, "nuc").backward()
    torch.linalg.matrix_norm(t, "nuc").backward()
    check_same(a.grad, t.grad, rtol=1e-8)
    with pytest.raises(RuntimeError, match="create_graph=True"):
        agv.autograd.grad(agv.linalg.matrix_norm(a, "nuc"), a, create_graph=True)


# -- einsum: the gradient is an einsum with the subscripts swapped ------------------------------------


def test_einsum_gradient_of_a_repeated_operand_adds_both_uses():
    (a,), (t,) = tensors(agv, (3, 3)), tensors(torch, (3, 3))
    agv.einsum("ij,jk,ii->k", a, a, a).sum().backward()
    torch.einsum("ij,jk,ii->k", t, t, t).sum().backward()
    check_same(a.grad, t.grad)


def test_einsum_of_a_constant_records_only_the_other_operand():
    (a,) = tensors(agv, (2, 3))
    y = agv.einsum("ij,j->i", a, agv.ones(3, dtype=agv.float64))
    assert y.grad_fn.name() == "EinsumBackward0" and y.grad_fn.edges[1] is None


# -- meshgrid ---------------------------------------------------------------------------------------


def test_meshgrid_without_indexing_warns_as_torch_and_uses_ij():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        X, Y = torch.meshgrid(torch.ones(2), torch.ones(3))
    # PyTorch warns once per process (TORCH_WARN_ONCE): its text, from torch 2.13, if it already did
    known = "torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument."
    expected = str(caught[0].message).split(" (Triggered")[0] if caught else known
    assert expected == known
    with pytest.warns(UserWarning) as ours:
        A, B = agv.meshgrid(agv.ones(2), agv.ones(3))
    assert str(ours[0].message) == expected
    assert ours[0].filename == __file__  # points at the caller's line
    assert A.shape == X.shape and B.shape == Y.shape


def test_meshgrid_with_indexing_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        agv.meshgrid(agv.ones(2), agv.ones(3), indexing="ij")
        agv.meshgrid([agv.ones(2), agv.ones(3)], indexing="xy")


def test_meshgrid_xy_is_the_plotting_layout():
    x, y = agv.tensor([1.0, 2.0, 3.0]), agv.tensor([10.0, 20.0])
    X, Y = agv.meshgrid(x, y, indexing="xy")
    T = torch.meshgrid(torch.tensor([1.0, 2.0, 3.0]), torch.tensor([10.0, 20.0]), indexing="xy")
    check_same(X, T[0])
    check_same(Y, T[1])
    assert X.shape == (2, 3)


# -- inv, det, solve ---------------------------------------------------------------------------------


def test_a_singular_matrix_raises_linalg_error_a_runtime_error_as_in_torch():
    singular = [[1.0, 2.0], [2.0, 4.0]]
    with pytest.raises(RuntimeError) as theirs:
        torch.linalg.solve(torch.tensor(singular), torch.ones(2))
    with pytest.raises(agv.linalg.LinAlgError) as ours:
        agv.linalg.solve(agv.tensor(singular), agv.ones(2))
    assert str(ours.value) == str(theirs.value)
    with pytest.raises(agv.linalg.LinAlgError, match="singular"):
        agv.linalg.inv(agv.tensor(singular))
    assert issubclass(agv.linalg.LinAlgError, RuntimeError)


def test_solve_agrees_with_the_inverse_and_det_with_numpy():
    (a, b) = tensors(agv, (3, 3), (3, 2))
    x = agv.linalg.solve(a, b)
    np.testing.assert_allclose((agv.linalg.inv(a) @ b).detach().numpy(), x.detach().numpy(), rtol=1e-9)
    np.testing.assert_allclose(agv.linalg.det(a).item(), np.linalg.det(a.detach().numpy()), rtol=1e-12)


# -- det's gradient at a singular matrix: the cofactors, where PyTorch gives zeros ------------------


def central_differences_of_det(a: np.ndarray, h: float = 1e-6) -> np.ndarray:
    grad = np.zeros_like(a)
    for index in np.ndindex(a.shape):
        up, down = a.copy(), a.copy()
        up[index] += h
        down[index] -= h
        grad[index] = (np.linalg.det(up) - np.linalg.det(down)) / (2 * h)
    return grad


SINGULAR = {
    "rank 1 of 2": [[1.0, 2.0], [2.0, 4.0]],
    "rank 2 of 3": [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]],
    "diagonal, rank 2 of 3": [[1.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 0.0]],
    "rank 1 of 3": [[1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
}


@pytest.mark.parametrize("name", sorted(SINGULAR))
def test_det_gradient_at_a_singular_matrix_is_the_cofactor_matrix(name):
    """A deliberate difference from PyTorch (documented in LinalgDetBackward0): torch
    2.13 gives zeros at an exactly singular matrix; we give the cofactors, what finite
    differences measure, and what torch itself gives just next to the matrix."""
    values = np.array(SINGULAR[name])
    a = agv.tensor(values, requires_grad=True)
    agv.linalg.det(a).backward()
    np.testing.assert_allclose(a.grad.numpy(), central_differences_of_det(values), atol=1e-6)
    t = torch.tensor(values, requires_grad=True)
    torch.linalg.det(t).backward()
    assert not t.grad.numpy().any()  # the difference, pinned: if torch changes, this tells us
    near = torch.tensor(values + np.diag([0.0] * (len(values) - 1) + [1e-9]), requires_grad=True)
    torch.linalg.det(near).backward()
    np.testing.assert_allclose(a.grad.numpy(), near.grad.numpy(), atol=1e-6)


def test_det_gradient_of_a_batch_with_one_singular_matrix():
    values = np.stack([np.array(SINGULAR["rank 1 of 2"]), np.array([[2.0, 1.0], [1.0, 3.0]])])
    a = agv.tensor(values, requires_grad=True)
    agv.linalg.det(a).sum().backward()
    for i in range(2):
        np.testing.assert_allclose(a.grad.numpy()[i], central_differences_of_det(values[i]), atol=1e-6)
    # the invertible one is exactly torch's det(A)·A⁻ᵀ
    t = torch.tensor(values[1], requires_grad=True)
    torch.linalg.det(t).backward()
    np.testing.assert_allclose(a.grad.numpy()[1], t.grad.numpy(), rtol=1e-12)


def test_det_double_backward_at_a_singular_matrix_says_it_is_not_supported():
    a = agv.tensor(SINGULAR["rank 1 of 2"], requires_grad=True)
    with pytest.raises(agv.linalg.LinAlgError, match="double backward .create_graph=True. at a singular"):
        agv.autograd.grad(agv.linalg.det(a), a, create_graph=True)
