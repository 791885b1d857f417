"""Small datasets for lessons, generated on the spot (no downloads), and a
DataLoader that serves them in batches.

    X, y = agv.data.two_moons(n=200, noise=0.1, seed=0)    # X: (200, 2) float32, y: (200,) int64
    loader = agv.data.DataLoader((X, y), batch_size=32, shuffle=True, seed=0)
    for xb, yb in loader:
        ...

Every generator takes `seed=`: the same seed gives the same data on every run.
Without one, they draw from autogradviz's own generator, so `agv.manual_seed(n)`
makes them reproducible too. Classification datasets return int64 labels,
regression returns float32 targets; the samples come shuffled.

`TensorDataset` and `DataLoader` here are those of `autogradviz.utils.data`
(PyTorch's `torch.utils.data`), where they are written: one DataLoader.
"""

from __future__ import annotations

import math

import numpy as np

from .core import random
from .core.tensor import _make
from .utils.data import DataLoader, TensorDataset

__all__ = [
    "two_moons",
    "spirals",
    "xor",
    "linear_regression",
    "digits",
    "TensorDataset",
    "DataLoader",
]


def _rng(seed) -> np.random.Generator:
    """A generator of its own for a seed; otherwise autogradviz's (the one
    `agv.manual_seed` resets, looked up now because manual_seed replaces it)."""
    if seed is not None:
        return np.random.default_rng(seed)
    return random.generator()


def _classification(X: np.ndarray, y: np.ndarray, rng: np.random.Generator):
    """Shuffle the samples (generated class by class) and make the tensors."""
    order = rng.permutation(len(y))
    return _make(X[order].astype(np.float32)), _make(y[order].astype(np.int64))


def _split(n: int, parts: int) -> list[int]:
    """n samples shared out as evenly as possible: 7 in 3 parts is [3, 2, 2]."""
    return [n // parts + (i < n % parts) for i in range(parts)]


# -- 2-D classification ---------------------------------------------------------------


def two_moons(n: int = 200, noise: float = 0.1, seed=None):
    """Two interleaved half circles (labels 0 and 1) that no straight line can
    separate; `noise` is the standard deviation of Gaussian noise added to the points."""
    rng = _rng(seed)
    n_upper, n_lower = _split(n, 2)
    t_upper = np.linspace(0, math.pi, n_upper)
    t_lower = np.linspace(0, math.pi, n_lower)
    upper = np.stack([np.cos(t_upper), np.sin(t_upper)], axis=1)
    lower = np.stack([1 - np.cos(t_lower), 0.5 - np.sin(t_lower)], axis=1)
    X = np.concatenate([upper, lower]) + noise * rng.standard_normal((n, 2))
    y = np.repeat([0, 1], [n_upper, n_lower])
    return _classification(X, y, rng)


def spirals(n: int = 300, classes: int = 2, noise: float = 0.05, seed=None):
    """`classes` spiral arms (2 or 3) winding out from the centre, one per label.
    Each arm is the first one turned by 360°/classes; radius grows from 0 to 1."""
    if classes not in (2, 3):
        raise ValueError(f"spirals: classes must be 2 or 3, not {classes}")
    rng = _rng(seed)
    X, y = [], []
    for label, count in enumerate(_split(n, classes)):
        radius = np.linspace(0.05, 1, count)
        angle = 2 * math.pi * (label / classes + radius)  # one full turn from centre to rim
        points = radius[:, None] * np.stack([np.cos(angle), np.sin(angle)], axis=1)
        X.append(points + noise * rng.standard_normal((count, 2)))
        y.append(np.full(count, label))
    return _classification(np.concatenate(X), np.concatenate(y), rng)


def xor(n: int = 200, noise: float = 0.1, seed=None):
    """Points in the square [-1, 1]², labelled 1 where x and y have different
    signs: the XOR pattern, which needs a hidden layer. The points keep a small
    margin from the axes before `noise` (Gaussian) is added."""
    rng = _rng(seed)
    X = rng.uniform(-1, 1, (n, 2))
    X += 0.1 * np.sign(X)  # the margin: nothing within 0.1 of an axis
    X /= 1.1
    y = (X[:, 0] * X[:, 1] < 0).astype(np.int64)
    X += noise * rng.standard_normal((n, 2))
    return _make(X.astype(np.float32)), _make(y)


# -- regression ---------------------------------------------------------------------------


def linear_regression(n: int = 100, features: int = 1, noise: float = 0.1, seed=None, coef: bool = False):
    """X of shape (n, features), standard normal, and targets y = X @ w + b + noise
    of shape (n, 1), the shape a Linear(features, 1) predicts. The true w (features, 1)
    and b are drawn too; coef=True also returns them, to compare with what was learned."""
    rng = _rng(seed)
    w = rng.uniform(-2, 2, (features, 1))
    b = rng.uniform(-1, 1)
    X = rng.standard_normal((n, features))
    y = X @ w + b + noise * rng.standard_normal((n, 1))
    out = _make(X.astype(np.float32)), _make(y.astype(np.float32))
    if coef:
        return (*out, _make(w.astype(np.float32)), float(b))
    return out


# -- handwritten-looking digits ------------------------------------------------------------------


def _arc(cx, cy, rx, ry, start, stop, points=None):
    """Points along an ellipse, angles in degrees: 0 is right, 90 is down (y grows downward)."""
    points = points or max(3, round(abs(stop - start) / 30) + 1)
    t = np.radians(np.linspace(start, stop, points))
    return np.stack([cx + rx * np.cos(t), cy + ry * np.sin(t)], axis=1)


def _line(*xy):
    return np.array(xy, dtype=float)


# Each digit is a few strokes (polylines) in a unit box: x to the right, y down.
_STROKES = {
    0: [_arc(0.5, 0.5, 0.27, 0.4, 0, 360)],
    1: [_line((0.36, 0.26), (0.54, 0.1), (0.54, 0.9))],
    2: [
        np.concatenate(
            [_arc(0.5, 0.32, 0.26, 0.22, 190, 400), _line((0.22, 0.9), (0.8, 0.9))],
        )
    ],
    3: [_arc(0.48, 0.3, 0.25, 0.2, 200, 450), _arc(0.48, 0.7, 0.28, 0.2, 270, 520)],
    4: [_line((0.62, 0.9), (0.62, 0.1), (0.18, 0.64), (0.82, 0.64))],
    5: [
        np.concatenate(
            [_line((0.76, 0.1), (0.32, 0.1), (0.3, 0.46)), _arc(0.48, 0.66, 0.27, 0.24, 230, 520)],
        )
    ],
    6: [
        _arc(0.72, 0.64, 0.44, 0.52, 250, 180),
        _arc(0.5, 0.68, 0.23, 0.22, 180, 540),
    ],
    7: [_line((0.2, 0.1), (0.8, 0.1), (0.42, 0.9))],
    8: [_arc(0.5, 0.29, 0.21, 0.19, 0, 360), _arc(0.5, 0.7, 0.26, 0.21, 0, 360)],
    9: [_arc(0.5, 0.32, 0.23, 0.22, 0, 360), _line((0.73, 0.34), (0.62, 0.9))],
}


def _segments(strokes):
    """The strokes' points, one array, and each segment as a pair of indices into it."""
    points = np.concatenate(strokes)
    ends = np.cumsum([len(s) for s in strokes])
    starts = np.concatenate([np.arange(end - len(s), end - 1) for s, end in zip(strokes, ends)])
    return points, starts, starts + 1


_SUPERSAMPLE = 4  # draw at 32×32, then average 4×4 blocks into 8×8 pixels (anti-aliasing)


def _render(starts, ends, thickness):
    """Ink in [0, 1] on a 32×32 grid for S samples: 1 within half the stroke's
    thickness of a segment, fading to 0 over a short edge. starts/ends: (S, K, 2)."""
    size = 8 * _SUPERSAMPLE
    centres = (np.arange(size) + 0.5) / size
    px, py = (c.reshape(1, -1) for c in np.meshgrid(centres, centres, indexing="xy"))  # (1, P) each
    squared = np.full((len(starts), size * size), np.inf)
    for k in range(starts.shape[1]):  # one segment at a time, for all samples and pixels at once
        ax, ay = starts[:, k, 0:1], starts[:, k, 1:2]  # (S, 1): broadcast against the pixels
        dx, dy = ends[:, k, 0:1] - ax, ends[:, k, 1:2] - ay
        # the closest point of the segment to each pixel: a + t·(b − a), t clipped to [0, 1]
        t = np.clip(((px - ax) * dx + (py - ay) * dy) / np.maximum(dx * dx + dy * dy, 1e-12), 0, 1)
        np.minimum(squared, (px - ax - t * dx) ** 2 + (py - ay - t * dy) ** 2, out=squared)
    edge = 1 / size
    ink = np.clip((thickness[:, None] / 2 - np.sqrt(squared)) / edge + 0.5, 0, 1)
    return ink.reshape(-1, size, size)


def digits(seed=None, n: int = 1500):
    """Tiny 8×8 grayscale digits, like scikit-learn's (but drawn here): X of shape
    (n, 1, 8, 8), float32 in [0, 1] (1 is ink), and labels y in 0..9, int64.

    Each digit is drawn from a few hand-designed strokes, then varied per sample:
    the stroke points are jittered, the shape is rotated, sheared, scaled and
    shifted a little, the pen thickness varies, and pixel noise is added."""
    rng = _rng(seed)
    images, labels = [], []
    for label, count in enumerate(_split(n, 10)):
        points, starts, ends = _segments(_STROKES[label])
        # jitter each stroke point by ~3% of the box (segments meeting there move together), centred on 0
        points = points + 0.03 * rng.standard_normal((count, *points.shape)) - 0.5
        # a random affine map per sample: rotation, shear, scale (x and y apart), shift
        angle = np.radians(rng.uniform(-15, 15, count))
        shear = rng.uniform(-0.25, 0.25, count)
        scale = rng.uniform(0.8, 1.05, (count, 2, 1))
        cos, sin = np.cos(angle), np.sin(angle)
        matrix = scale * np.stack([np.stack([cos, shear - sin], -1), np.stack([sin, cos], -1)], axis=1)
        shift = rng.uniform(-0.08, 0.08, (count, 1, 2))
        points = points @ matrix.transpose(0, 2, 1) + 0.5 + shift
        thickness = rng.uniform(0.09, 0.18, count)
        ink = _render(points[:, starts], points[:, ends], thickness)
        s = _SUPERSAMPLE
        pixels = ink.reshape(count, 8, s, 8, s).mean(axis=(2, 4))
        pixels = pixels / np.maximum(pixels.max(axis=(1, 2), keepdims=True), 1e-6)  # the darkest pixel is 1
        pixels += 0.05 * rng.standard_normal(pixels.shape)
        images.append(np.clip(pixels, 0, 1))
        labels.append(np.full(count, label))
    return _classification(np.concatenate(images)[:, None], np.concatenate(labels), rng)
