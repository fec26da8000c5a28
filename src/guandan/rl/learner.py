"""The learner: a Q(s, a) network trained with JAX (CPU) and Adam.

Two losses:

* Deep Monte-Carlo (DouZero, DanZero): the mean squared error between
  Q(row) and the Monte-Carlo return of the decision (:meth:`Learner.dmc_step`);
* imitation (the warm start): softmax cross-entropy over each decision's
  legal moves, with Q as the logits, so the teacher's move gets the highest
  Q, plus the same squared error on the teacher's move so the values stay
  returns (:meth:`Learner.imitation_step`).

JAX is the optional extra ``rl`` (``pip install '.[rl]'``); playing a
trained network needs numpy only (:mod:`guandan.rl.net`).
"""

from __future__ import annotations

from typing import Any, Dict, List, Sequence, Tuple

import numpy as np

from ..errors import GuandanError
from ..vec import OBS_DIM
from .model import fold_scale, row_scale

__all__ = ["Learner", "require_jax"]


def require_jax() -> Any:
    """The ``jax`` module, or a GuandanError saying how to install it."""
    try:
        import jax
    except ImportError:
        raise GuandanError("training needs JAX: pip install '.[rl]' from the guandan folder") from None
    return jax


class Learner:
    """The network's parameters and Adam's state, updated by jitted steps.

    Args:
        layers: initial ``(w, b)`` float32 pairs (:func:`guandan.rl.model.init_layers`).
        lr: Adam's learning rate (the attribute ``lr`` can be changed between
            steps); ``b1``, ``b2``, ``eps``: its constants.
        clip: gradients are scaled down to this global norm (0: no clipping).
    """

    def __init__(self, layers: Sequence[Tuple[np.ndarray, np.ndarray]], *, lr: float = 3e-4,
                 b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8, clip: float = 10.0,
                 value_weight: float = 0.5) -> None:
        jax = require_jax()
        import jax.numpy as jnp
        self._jnp = jnp
        self.lr, self.b1, self.b2, self.eps, self.clip = float(lr), float(b1), float(b2), float(eps), float(clip)
        self.value_weight = float(value_weight)
        self.params = [(jnp.asarray(w), jnp.asarray(b)) for w, b in layers]
        # the network reads scaled rows (guandan.rl.model.row_scale); layers() folds the scale back
        self.scale = row_scale(int(self.params[0][0].shape[0]))
        scale = jnp.asarray(self.scale)
        self.m = [(jnp.zeros_like(w), jnp.zeros_like(b)) for w, b in self.params]
        self.v = [(jnp.zeros_like(w), jnp.zeros_like(b)) for w, b in self.params]
        self.t = 0

        def forward(params: Any, x: Any) -> Any:
            h = x * scale
            for i, (w, b) in enumerate(params):
                h = h @ w + b
                if i < len(params) - 1:
                    h = jax.nn.relu(h)
            return h[:, 0]

        def mse(params: Any, x: Any, g: Any) -> Any:
            return jnp.mean((forward(params, x) - g) ** 2)

        def imitation(params: Any, obs: Any, moves: Any, mask: Any, label: Any, x: Any, g: Any) -> Any:
            B, K, F = moves.shape
            state = jnp.broadcast_to(obs[:, None, :], (B, K, obs.shape[1]))
            rows = jnp.concatenate([state, moves], axis=2).reshape(B * K, obs.shape[1] + F)
            q = forward(params, rows).reshape(B, K)
            q = jnp.where(mask, q, -1e9)
            logp = jax.nn.log_softmax(q, axis=1)
            ce = -jnp.mean(jnp.take_along_axis(logp, label[:, None], axis=1))
            acc = jnp.mean(jnp.argmax(q, axis=1) == label)
            return ce + self.value_weight * mse(params, x, g), (ce, acc)

        def adam(params: Any, m: Any, v: Any, t: Any, grads: Any, lr: Any) -> Any:
            leaves = jax.tree_util.tree_leaves(grads)
            norm = jnp.sqrt(sum(jnp.sum(g * g) for g in leaves))
            scale = jnp.minimum(1.0, self.clip / (norm + 1e-12)) if self.clip > 0 else 1.0
            grads = jax.tree_util.tree_map(lambda g: g * scale, grads)
            m = jax.tree_util.tree_map(lambda a, g: self.b1 * a + (1 - self.b1) * g, m, grads)
            v = jax.tree_util.tree_map(lambda a, g: self.b2 * a + (1 - self.b2) * g * g, v, grads)
            c1 = 1 - self.b1 ** t
            c2 = 1 - self.b2 ** t
            params = jax.tree_util.tree_map(
                lambda p, a, b: p - lr * (a / c1) / (jnp.sqrt(b / c2) + self.eps), params, m, v)
            return params, m, v, norm

        def dmc_step(params: Any, m: Any, v: Any, t: Any, lr: Any, x: Any, g: Any) -> Any:
            loss, grads = jax.value_and_grad(mse)(params, x, g)
            params, m, v, _ = adam(params, m, v, t, grads, lr)
            return params, m, v, loss

        def im_step(params: Any, m: Any, v: Any, t: Any, lr: Any, obs: Any, moves: Any, mask: Any,
                    label: Any, x: Any, g: Any) -> Any:
            (loss, (ce, acc)), grads = jax.value_and_grad(imitation, has_aux=True)(
                params, obs, moves, mask, label, x, g)
            params, m, v, _ = adam(params, m, v, t, grads, lr)
            return params, m, v, loss, ce, acc

        self._forward = jax.jit(forward)
        self._dmc = jax.jit(dmc_step)
        self._im = jax.jit(im_step)

    # -- steps -------------------------------------------------------------
    def dmc_step(self, x: np.ndarray, g: np.ndarray) -> float:
        """One Adam step on a batch of rows ``x`` (B, D) and returns ``g``
        (B,); the batch's loss before the step."""
        jnp = self._jnp
        self.t += 1
        self.params, self.m, self.v, loss = self._dmc(
            self.params, self.m, self.v, jnp.float32(self.t), jnp.float32(self.lr), jnp.asarray(x, dtype=jnp.float32),
            jnp.asarray(g, dtype=jnp.float32))
        return float(loss)

    def imitation_step(self, obs: np.ndarray, moves: np.ndarray, mask: np.ndarray, label: np.ndarray,
                       x: np.ndarray, g: np.ndarray) -> Tuple[float, float, float]:
        """One Adam step of the imitation loss; ``(loss, cross-entropy,
        agreement)`` of the batch before the step."""
        jnp = self._jnp
        self.t += 1
        f = jnp.float32
        self.params, self.m, self.v, loss, ce, acc = self._im(
            self.params, self.m, self.v, f(self.t), f(self.lr), jnp.asarray(obs, dtype=f), jnp.asarray(moves, dtype=f),
            jnp.asarray(mask), jnp.asarray(label, dtype=jnp.int32), jnp.asarray(x, dtype=f),
            jnp.asarray(g, dtype=f))
        return float(loss), float(ce), float(acc)

    def agreement(self, obs: np.ndarray, moves: np.ndarray, mask: np.ndarray, label: np.ndarray) -> float:
        """The share of decisions where the network's highest Q is the label."""
        jnp = self._jnp
        B, K, F = moves.shape
        rows = np.concatenate([np.broadcast_to(obs[:, None, :], (B, K, OBS_DIM)), moves], axis=2)
        q = np.asarray(self._forward(self.params, jnp.asarray(rows.reshape(B * K, -1), dtype=jnp.float32)))
        q = np.where(mask, q.reshape(B, K), -np.inf)
        return float(np.mean(np.argmax(q, axis=1) == label))

    # -- state -------------------------------------------------------------
    def layers(self) -> List[Tuple[np.ndarray, np.ndarray]]:
        """The network as numpy float32 ``(w, b)`` pairs reading raw rows
        (for the actors and checkpoints: the input scale folded in)."""
        return fold_scale([(np.asarray(w), np.asarray(b)) for w, b in self.params], self.scale)

    def state_arrays(self) -> Dict[str, np.ndarray]:
        """Everything needed to resume exactly: parameters and Adam's moments."""
        out: Dict[str, np.ndarray] = {}
        for name, tree in (("p", self.params), ("m", self.m), ("v", self.v)):
            for i, (w, b) in enumerate(tree):
                out[f"{name}w{i}"] = np.asarray(w)
                out[f"{name}b{i}"] = np.asarray(b)
        return out

    def load_state_arrays(self, arrays: Any, t: int) -> None:
        """Restore :meth:`state_arrays` (shapes checked against this learner's)."""
        jnp = self._jnp
        n = len(self.params)
        trees = []
        for name in ("p", "m", "v"):
            tree = []
            for i in range(n):
                w, b = arrays[f"{name}w{i}"], arrays[f"{name}b{i}"]
                if w.shape != self.params[i][0].shape or b.shape != self.params[i][1].shape:
                    raise GuandanError(f"training state: layer {i} has shape {w.shape}, the network "
                                       f"{tuple(self.params[i][0].shape)}")
                tree.append((jnp.asarray(w, dtype=jnp.float32), jnp.asarray(b, dtype=jnp.float32)))
            trees.append(tree)
        self.params, self.m, self.v = trees
        self.t = int(t)
