"""Running the same code on autogradviz and on torch, and comparing outcomes:
values (rounded to 5 significant digits), None-ness, dtypes, and for errors the
exception class. Shared by the parity test files; torch must be importable."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch

import autogradviz as agv


def _number(v):
    if isinstance(v, bool) or isinstance(v, int):
        return v
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return v
    return float(f"{v:.5g}")


def norm(v):
    """A comparable form: tensors become (shape, dtype name, rounded values)."""
    if isinstance(v, (agv.Tensor, torch.Tensor)):
        values = np.asarray(v.detach().tolist(), dtype=object)
        flat = [_number(x) for x in values.ravel().tolist()]
        dtype = str(v.dtype).split(".")[-1]
        return ("tensor", tuple(v.shape), dtype, np.array(flat, dtype=object).reshape(values.shape).tolist())
    if isinstance(v, (list, tuple)):
        return [norm(x) for x in v]
    if isinstance(v, float):
        return _number(v)
    if isinstance(v, (agv.DType, torch.dtype)):
        return str(v).split(".")[-1]
    return v


def outcome(fn, m):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return norm(fn(m))
    except Exception as error:  # noqa: BLE001 - the class is what is compared
        return ("raised", type(error).__name__)


def same(fn):
    """Run `fn(m)` on both libraries and assert the outcomes are equal."""
    ours, theirs = outcome(fn, agv), outcome(fn, torch)
    assert ours == theirs, f"\nagv:   {ours}\ntorch: {theirs}"


def raises_alike(fn, exc, phrase):
    """Both raise `exc`, and both messages contain `phrase`."""
    for m in (agv, torch):
        with pytest.raises(exc, match=phrase):
            fn(m)


def grad(m):
    return agv.grad if m is agv else torch.autograd.grad
