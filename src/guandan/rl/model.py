"""The Q(s, a) network's shape and initial weights, shared by the actors
(numpy inference) and the learner (JAX).

>>> from guandan.rl.model import init_layers
>>> [w.shape for w, b in init_layers([309, 64, 64, 1], seed=0)]
[(309, 64), (64, 64), (64, 1)]
"""

from __future__ import annotations

from typing import List, Sequence, Tuple

import numpy as np

from ..errors import GuandanError

__all__ = ["init_layers", "parse_hidden", "row_scale", "fold_scale", "unfold_scale"]


def row_scale(dim: int = 309) -> np.ndarray:
    """The learner's input scale of encoding ``"guandan"`` rows: the seats'
    card counts (0..27), the two keys (0..15) and the split features brought
    to about [-1, 1]; every other column is a count of 0..2 or a one-hot and
    stays. The
    exported network takes raw rows: :func:`fold_scale` moves the scale into
    its first layer."""
    s = np.ones(dim, dtype=np.float32)
    if dim == 309:
        s[54:58] = 1 / 27
        s[125] = 1 / 16
        s[294] = 1 / 16
        # the split features (guandan.policies.SPLIT_FEATURES), from column 295
        s[295:309] = (1 / 16, 1 / 32, 1 / 32, 1 / 8, 1 / 8, 1 / 4, 1 / 4, 1 / 2, 1 / 2, 1, 1 / 16, 1, 1 / 27, 1)
    return s


def fold_scale(layers: Sequence[Tuple[np.ndarray, np.ndarray]], scale: np.ndarray
               ) -> List[Tuple[np.ndarray, np.ndarray]]:
    """The layers of a network that reads ``x * scale`` rewritten to read
    ``x``: ``(x * s) @ w == x @ (s[:, None] * w)``."""
    out = [(np.asarray(w, dtype=np.float32), np.asarray(b, dtype=np.float32)) for w, b in layers]
    w0, b0 = out[0]
    out[0] = ((scale[:, None] * w0).astype(np.float32), b0)
    return out


def unfold_scale(layers: Sequence[Tuple[np.ndarray, np.ndarray]], scale: np.ndarray
                 ) -> List[Tuple[np.ndarray, np.ndarray]]:
    """The inverse of :func:`fold_scale`: the layers of a network that reads
    ``x`` rewritten to read ``x * scale`` (every scale entry non-zero)."""
    out = [(np.asarray(w, dtype=np.float32), np.asarray(b, dtype=np.float32)) for w, b in layers]
    w0, b0 = out[0]
    out[0] = ((w0 / scale[:, None]).astype(np.float32), b0)
    return out


def init_layers(sizes: Sequence[int], seed: int) -> List[Tuple[np.ndarray, np.ndarray]]:
    """He-initialised float32 ``(w, b)`` pairs for layer sizes ``sizes``
    (input first, one output last), from ``seed``."""
    if len(sizes) < 2 or any(int(s) < 1 for s in sizes):
        raise GuandanError(f"layer sizes must be at least two positive ints, got {list(sizes)}")
    rng = np.random.default_rng([seed, 0x1A7E])
    out = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        scale = np.sqrt(2.0 / a) if i < len(sizes) - 2 else np.sqrt(1.0 / a)
        out.append(((rng.standard_normal((a, b)) * scale).astype(np.float32), np.zeros(b, dtype=np.float32)))
    return out


def parse_hidden(text: str) -> List[int]:
    """``"512x4"`` or ``"256,256,128"`` -> hidden layer sizes."""
    t = str(text).strip().lower()
    try:
        if "x" in t:
            width, depth = t.split("x")
            sizes = [int(width)] * int(depth)
        else:
            sizes = [int(p) for p in t.split(",") if p.strip()]
    except ValueError:
        raise GuandanError(f"hidden layers: WIDTHxDEPTH (512x4) or a list (256,128), got {text!r}") from None
    if not sizes or any(s < 1 or s > 4096 for s in sizes) or len(sizes) > 15:
        raise GuandanError(f"hidden layers: 1..15 layers of 1..4096 units, got {text!r}")
    return sizes
