"""Statistics of paired (duplicate) results: score, Elo, LOS, SPRT, ratings.

Every deal (or game) is played twice with the teams' seats swapped, so the
unit of evidence is the *pair*: its outcome is the sum of the two halves'
scores (each half 0, 1/2 or 1 for the first participant), one of the five
values 0, 1/2, 1, 3/2, 2 -- the pentanomial model of fastchess / fishtest
for game pairs. Means and variances are taken over pair outcomes, never over
halves as if they were independent. Formulas and references: docs/arena.md.

>>> s = score_stats([10, 20, 40, 20, 10])
>>> s["score"], round(s["elo"], 6), s["los"]
(0.5, 0.0, 0.5)
>>> SPRT(0, 10).status([0, 0, 0, 0, 0])
'continue'
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Sequence, Tuple

import numpy as np

__all__ = ["Z95", "PAIR_SCORES", "pentanomial", "score_to_elo", "elo_to_score", "score_stats",
           "points_stats", "SPRT", "fit_ratings", "normal_cdf"]

Z95 = 1.959963984540054
PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)      # pair outcome / 2: the mean score of the pair
_LN10 = math.log(10.0)
_NELO = 800.0 / _LN10


def normal_cdf(z: float) -> float:
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


def pentanomial(pair_sums: Sequence[float]) -> List[int]:
    """Counts of the pair outcomes 0, 1/2, 1, 3/2, 2 (each pair: the sum of
    its two halves' scores)."""
    c = [0] * 5
    for x in pair_sums:
        k = int(round(float(x) * 2))
        if not 0 <= k <= 4 or abs(k - 2 * float(x)) > 1e-9:
            raise ValueError(f"a pair outcome is 0, 0.5, 1, 1.5 or 2, got {x!r}")
        c[k] += 1
    return c


def score_to_elo(s: float) -> float:
    """Logistic Elo difference of a mean score: -400 log10(1/s - 1)."""
    if not s > 0.0:
        return -math.inf
    if not s < 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / s - 1.0) + 0.0      # + 0.0: never -0.0


def elo_to_score(elo: float) -> float:
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def score_stats(counts: Sequence[float], z: float = Z95) -> Dict[str, Any]:
    """Score, Elo, intervals and LOS from pentanomial counts.

    score = mean pair outcome / 2; variance per pair sigma^2 = sum_k p_k (x_k -
    score)^2 with x_k in {0, 1/4, 1/2, 3/4, 1}; standard error
    sqrt(sigma^2 / N); 95% interval score +- z se (clipped to [0, 1]); Elo and its interval by
    the logistic transform of the score and of the interval's ends; LOS =
    Phi((score - 1/2) / se); normalized Elo (nElo) = (score - 1/2) /
    sqrt(2 sigma^2) * 800 / ln 10 (fastchess's pentanomial nElo).
    """
    n = float(sum(counts))
    out: Dict[str, Any] = {"pairs": int(n), "pentanomial": [int(c) for c in counts]}
    if n == 0:
        nan = float("nan")
        out.update(score=nan, score_ci=(nan, nan), se=nan, var_pair=nan, elo=nan,
                   elo_ci=(nan, nan), elo_err=nan, los=nan, nelo=nan, nelo_err=nan)
        return out
    p = [c / n for c in counts]
    mu = sum(pk * x for pk, x in zip(p, PAIR_SCORES))
    var = sum(pk * (x - mu) ** 2 for pk, x in zip(p, PAIR_SCORES))
    se = math.sqrt(var / n)
    lo, hi = max(0.0, mu - z * se), min(1.0, mu + z * se)      # clipped to [0, 1]
    elo_lo, elo_hi = score_to_elo(lo), score_to_elo(hi)
    if se > 0:
        los = normal_cdf((mu - 0.5) / se)
    else:
        los = 1.0 if mu > 0.5 else (0.0 if mu < 0.5 else 0.5)
    if var > 0:
        nelo = (mu - 0.5) / math.sqrt(2 * var) * _NELO
        nelo_err = z * se / math.sqrt(2 * var) * _NELO
    else:
        nelo = nelo_err = float("nan")
    out.update(score=mu, score_ci=(lo, hi), se=se, var_pair=var, elo=score_to_elo(mu),
               elo_ci=(elo_lo, elo_hi), elo_err=(elo_hi - elo_lo) / 2, los=los, nelo=nelo,
               nelo_err=nelo_err)
    return out


def points_stats(pair_points: Sequence[float], z: float = Z95) -> Dict[str, Any]:
    """Mean level points per deal (half) with its interval, from the pair
    sums of the signed points (+1..+3 when the participant's team is
    banker, -1..-3 when the opponents are): mean = mean(P)/2,
    se = sd(P) / (2 sqrt(N)) over the N pair sums P."""
    a = np.asarray(pair_points, dtype=float)
    n = len(a)
    if n == 0:
        nan = float("nan")
        return {"mean": nan, "ci": (nan, nan), "se": nan}
    m = float(a.mean()) / 2
    se = float(a.std()) / (2 * math.sqrt(n))
    return {"mean": m, "ci": (m - z * se, m + z * se), "se": se}


def _mle_with_mean(p: Sequence[float], s: float) -> List[float]:
    """The distribution on PAIR_SCORES closest to ``p`` in likelihood
    (maximising sum p_k log q_k) with mean ``s``: q_k = p_k / (1 + lam (x_k -
    s)), lam the root of sum p_k (x_k - s) / (1 + lam (x_k - s)) = 0
    (decreasing in lam; bisection inside the bounds that keep every q_k > 0)."""
    xs = [x - s for x in PAIR_SCORES]
    lo = -1.0 / max(xs) if max(xs) > 0 else -1e12
    hi = -1.0 / min(xs) if min(xs) < 0 else 1e12
    eps = 1e-12
    a, b = lo + eps * (1 + abs(lo)), hi - eps * (1 + abs(hi))

    def f(lam: float) -> float:
        return sum(pk * d / (1 + lam * d) for pk, d in zip(p, xs))

    for _ in range(64):
        mid = (a + b) / 2
        if f(mid) > 0:
            a = mid
        else:
            b = mid
    lam = (a + b) / 2
    q = [pk / (1 + lam * d) for pk, d in zip(p, xs)]
    t = sum(q)
    return [x / t for x in q]


class SPRT:
    """Generalized SPRT on the pentanomial model, logistic Elo (as fastchess
    ``--sprt model=logistic``, after M. Van den Bergh's pentanomial GSPRT).

    H0: elo = elo0, H1: elo = elo1 (logistic Elo, score s_i = 1 / (1 +
    10^(-elo_i / 400))). LLR = N sum_k p_k log(q1_k / q0_k), where p is the
    observed pentanomial frequency (zero counts replaced by 1e-3, as
    fastchess regularizes) and q_i the maximum-likelihood distribution with
    mean s_i. Stop with H1 when LLR >= log((1 - beta) / alpha), with H0 when
    LLR <= log(beta / (1 - alpha)).
    """

    def __init__(self, elo0: float = 0.0, elo1: float = 10.0, alpha: float = 0.05,
                 beta: float = 0.05) -> None:
        if not (0 < alpha < 1 and 0 < beta < 1):
            raise ValueError("alpha and beta are probabilities in (0, 1)")
        if not elo1 > elo0:
            raise ValueError(f"elo1 must be above elo0, got elo0={elo0}, elo1={elo1}")
        self.elo0, self.elo1, self.alpha, self.beta = float(elo0), float(elo1), float(alpha), float(beta)
        self.lower = math.log(beta / (1 - alpha))
        self.upper = math.log((1 - beta) / alpha)

    def llr(self, counts: Sequence[float]) -> float:
        n = float(sum(counts))
        if n == 0:
            return 0.0
        reg = [c if c > 0 else 1e-3 for c in counts]
        t = sum(reg)
        p = [c / t for c in reg]
        q0 = _mle_with_mean(p, elo_to_score(self.elo0))
        q1 = _mle_with_mean(p, elo_to_score(self.elo1))
        return n * sum(pk * math.log(b / a) for pk, a, b in zip(p, q0, q1))

    def status(self, counts: Sequence[float]) -> str:
        """``"H1"``, ``"H0"`` or ``"continue"``."""
        v = self.llr(counts)
        if v >= self.upper:
            return "H1"
        if v <= self.lower:
            return "H0"
        return "continue"

    def to_dict(self) -> Dict[str, Any]:
        return {"elo0": self.elo0, "elo1": self.elo1, "alpha": self.alpha, "beta": self.beta,
                "lower": self.lower, "upper": self.upper, "model": "logistic-pentanomial"}

    @classmethod
    def parse(cls, spec: str) -> "SPRT":
        """``"elo0=0 elo1=10 alpha=0.05 beta=0.05"`` (spaces or commas)."""
        kw: Dict[str, float] = {}
        for part in spec.replace(",", " ").split():
            k, eq, v = part.partition("=")
            if not eq or k not in ("elo0", "elo1", "alpha", "beta"):
                raise ValueError(f"--sprt takes elo0= elo1= alpha= beta=, got {part!r}")
            kw[k] = float(v)
        return cls(**kw)


def fit_ratings(n_players: int, pairings: Sequence[Tuple[int, int, Sequence[float]]], *,
                prior: float = 1.0, z: float = Z95, iters: int = 100) -> Dict[str, Any]:
    """Maximum-likelihood Bradley-Terry (logistic Elo) ratings from paired
    results, pool mean 0, with cluster-robust (pair-level) intervals.

    ``pairings``: ``(i, j, pair_sums)`` with ``pair_sums`` the pair outcomes
    (0..2) for ``i`` against ``j``. Model: each half is won by ``i`` with
    p_ij = 1 / (1 + 10^((r_j - r_i) / 400)); the log-likelihood over halves
    sum S_ij log p_ij + (2 P_ij - S_ij) log(1 - p_ij) (S_ij the total score
    over P_ij pairs) is maximised by Newton's method under sum r = 0.
    ``prior`` adds that many virtual drawn halves per pairing (keeps the
    ratings finite when one side wins every pair; 0 for the plain MLE).
    Covariance: the sandwich I^+ B I^+ with I the Fisher information and B
    the sum over *pairs* of the outer products of their score vectors, so
    the intervals come from the pair outcomes, not independent halves.
    """
    c = _LN10 / 400.0
    r = np.zeros(n_players)
    data = []
    for i, j, sums in pairings:
        x = np.asarray(sums, dtype=float)
        data.append((i, j, x, float(x.sum()) + prior / 2.0, 2.0 * len(x) + prior))
    ones = np.ones((n_players, n_players)) / n_players
    for _ in range(iters):
        g = np.zeros(n_players)
        info = np.zeros((n_players, n_players))
        for i, j, _x, s, m in data:
            p = 1.0 / (1.0 + math.exp(-c * (r[i] - r[j])))
            d = c * (s - m * p)
            g[i] += d
            g[j] -= d
            w = c * c * m * p * (1 - p)
            info[i, i] += w
            info[j, j] += w
            info[i, j] -= w
            info[j, i] -= w
        step = np.linalg.solve(info + ones, g)
        step -= step.mean()
        r = r + np.clip(step, -400, 400)
        if np.max(np.abs(step)) < 1e-9:
            break
    # information and the pair-level "meat" at the optimum
    info = np.zeros((n_players, n_players))
    meat = np.zeros((n_players, n_players))
    for i, j, x, s, m in data:
        p = 1.0 / (1.0 + math.exp(-c * (r[i] - r[j])))
        w = c * c * m * p * (1 - p)
        e = np.zeros(n_players)
        e[i], e[j] = 1.0, -1.0
        info += w * np.outer(e, e)
        meat += c * c * float(((x - 2 * p) ** 2).sum()) * np.outer(e, e)
    inv = np.linalg.pinv(info)
    cov = inv @ meat @ inv
    err = z * np.sqrt(np.maximum(np.diag(cov), 0.0))
    return {"ratings": r.tolist(), "err": err.tolist(), "cov": cov.tolist(), "prior": prior}
