"""Self-play actors: many games stepped at once through :class:`guandan.VecGame`,
one batched network pass per step, Monte-Carlo returns per seat.

An actor task is a pure function of the network's weights and an
:class:`ActorTask` (seed, games, exploration): the same inputs give the same
samples on any worker, process or machine. Needs numpy only (no training
framework), so tasks run anywhere ``guandan`` is installed.

>>> from guandan.rl.actor import ActorTask, play_chunk
>>> from guandan.rl.model import init_layers
>>> res = play_chunk(init_layers([309, 16, 1], seed=1), ActorTask(seed=7, games=4, epsilon=0.1))
>>> res.x.shape[1], res.x.dtype.name, len(res.x) == len(res.g), res.deals
(309, 'int8', True, 4)
>>> res2 = play_chunk(init_layers([309, 16, 1], seed=1), ActorTask(seed=7, games=4, epsilon=0.1))
>>> bool((res.x == res2.x).all()) and bool((res.g == res2.g).all())
True
"""

from __future__ import annotations

import multiprocessing.context as mpc
import os
import time
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

import numpy as np

from ..errors import GuandanError
from ..registry import check_policy
from ..rules import Rules
from ..policies import SPLIT_FEATURES, SPLIT_FEATURES_DIM
from ..vec import ENCODING_DIMS, OBS_DIM, VecGame
from .net import q_values

__all__ = ["ActorTask", "ChunkResult", "play_chunk", "actor_context", "ROW_DIM", "MAX_IMITATION_MOVES"]

ROW_DIM = ENCODING_DIMS["guandan"]             # 309: encoding "guandan"
MOVE_COLS = ROW_DIM - OBS_DIM                   # a row's move columns (features and split features)
MAX_IMITATION_MOVES = 16                        # legal moves kept per imitation decision (the label among them)
WHOLE_GROUP_COL = ROW_DIM - SPLIT_FEATURES_DIM + SPLIT_FEATURES.index("whole_group")

Layers = Sequence[Tuple[np.ndarray, np.ndarray]]

# the thread counts of numpy's BLAS (OpenBLAS, OpenMP, MKL), read once when
# a process loads it
BLAS_THREAD_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


class _OneBlasThreadProcess(mpc.SpawnProcess):
    """A spawned process whose BLAS runs one thread: the variables that the
    environment does not set are set to 1 while the process starts (it
    copies the environment then) and removed again at once."""

    def start(self) -> None:
        added = [k for k in BLAS_THREAD_VARS if k not in os.environ]
        for k in added:
            os.environ[k] = "1"
        try:
            super().start()
        finally:
            for k in added:
                os.environ.pop(k, None)


class _ActorContext(mpc.SpawnContext):
    Process = _OneBlasThreadProcess


def actor_context() -> mpc.BaseContext:
    """The multiprocessing context of actor processes (``guandan train``'s
    pool, ``bench/selfplay.py``): spawned, and each started with one BLAS
    thread unless the environment says otherwise. The actors run one per
    core, and numpy's BLAS starts a thread per core in every process: two
    actors on two cores then spin four threads on the network's small
    products, and the actors ran 1.3 to 2.5 times slower. The parent
    process is not changed.

    >>> import concurrent.futures as cf, os
    >>> with cf.ProcessPoolExecutor(1, mp_context=actor_context()) as ex:
    ...     ex.submit(os.getenv, "OPENBLAS_NUM_THREADS", "unset").result()
    '1'
    """
    return _ActorContext()


@dataclass(frozen=True)
class ActorTask:
    """One actor task: ``games`` deals played to their end from
    ``VecGame(games, seed=seed)``.

    * ``epsilon``: the share of the network's decisions replaced by a
      uniformly random legal move (exploration);
    * ``behaviour``: ``"net"`` (the network plays every seat, ε-greedy) or a
      native policy name (``"expert"``) that plays every seat, for imitation:
      then the task also returns each decision's legal moves and the
      policy's choice;
    * ``rules``: the rules of the games (default: the default rules);
    * ``opponent``: a native policy spec (``"expert"``) that plays one team
      in every game (the odd seats of even-numbered games, the even seats of
      odd ones) while the network plays the other; only the network's
      decisions are samples. ``None``: self-play (the network plays every
      seat). Ignored with a native ``behaviour``;
    * ``score_net``: with a native behaviour, also count the decisions where
      the network's highest Q over *all* legal moves is the policy's move
      (:attr:`ChunkResult.agree`; :attr:`ChunkResult.agree_choice` of the
      :attr:`ChunkResult.choices` decisions with more than one legal move).
    """

    seed: int
    games: int = 256
    epsilon: float = 0.05
    behaviour: str = "net"
    rules: Optional[Rules] = None
    score_net: bool = False
    opponent: Optional[str] = None


@dataclass
class ChunkResult:
    """What one task produced.

    * ``x`` (N, 309) int8: the row (state and chosen move) of every decision
      taken, ``g`` (N,) float32: its Monte-Carlo return, the level points
      the deciding seat's team won (negative: lost) at the end of the deal;
    * imitation tasks only, for the M decisions with more than one legal
      move: ``obs`` (M, 227) int8, ``moves`` (M, K, 82) int8 (up to
      :data:`MAX_IMITATION_MOVES` legal moves, the chosen one among them:
      the moves that play whole groups of the hand's split first, then
      others, drawn at random), ``mask`` (M, K) bool, ``label`` (M,) int64
      (the chosen move's column), ``im_x`` (M, 309) int8 and ``im_g`` (M,)
      float32: the chosen row and its return;
    * ``deals``, ``decisions``; ``engine_s`` and ``net_s``: seconds spent in
      the engine (stepping, legal moves, observations, encodings) and in the
      network.
    """

    x: np.ndarray
    g: np.ndarray
    deals: int
    decisions: int
    engine_s: float
    net_s: float
    obs: Optional[np.ndarray] = None
    moves: Optional[np.ndarray] = None
    mask: Optional[np.ndarray] = None
    label: Optional[np.ndarray] = None
    im_x: Optional[np.ndarray] = None
    im_g: Optional[np.ndarray] = None
    agree: int = 0
    agree_choice: int = 0
    choices: int = 0


def _segment_argmax(q: np.ndarray, starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Index (within each segment) of each segment's first maximum."""
    mx = np.maximum.reduceat(q, starts)
    idx = np.arange(len(q))
    first = np.where(q == np.repeat(mx, counts), idx, len(q))
    return np.minimum.reduceat(first, starts) - starts


def _int8(a: np.ndarray) -> np.ndarray:
    return a.astype(np.int8)


def play_chunk(layers: Layers, task: ActorTask) -> ChunkResult:
    """Play ``task``'s deals with the network ``layers`` ((w, b) float32
    pairs, input 309, one output) or the task's native behaviour policy, and
    return every decision's row and return (see :class:`ChunkResult`)."""
    imitate = task.behaviour != "net"
    if not 0.0 <= task.epsilon <= 1.0:
        raise GuandanError(f"epsilon must be in [0, 1], got {task.epsilon}")
    n = task.games
    t0 = time.perf_counter()
    engine = 0.0
    net = 0.0
    v = VecGame(n, seed=task.seed, rules=task.rules)
    rng = np.random.default_rng([task.seed, 0x5EED])
    active = np.ones(n, dtype=bool)
    final = np.zeros((n, 4), dtype=np.float32)
    xs: List[np.ndarray] = []
    slots: List[np.ndarray] = []
    seats: List[np.ndarray] = []
    im_obs: List[np.ndarray] = []
    im_moves: List[np.ndarray] = []
    im_mask: List[np.ndarray] = []
    im_label: List[np.ndarray] = []
    im_x: List[np.ndarray] = []
    im_slot: List[np.ndarray] = []
    im_seat: List[np.ndarray] = []
    K = MAX_IMITATION_MOVES
    agree = 0
    agree_choice = 0
    choices = 0
    buf = np.empty((64 * n, ROW_DIM), dtype=np.float32)     # the rows of a step, grown when short
    slot_ids = np.arange(n)
    if task.opponent is not None and not imitate:
        check_policy(task.opponent)

    def _step(res: Tuple[np.ndarray, np.ndarray]) -> None:
        r, d = res
        ended = np.flatnonzero((d != 0) & active)
        final[ended] = r[ended]
        active[ended] = False

    engine -= t0
    while active.any():
        seat_to_act = v.observe()["seat"]
        if buf.shape[0] < v.n_legal:
            buf = np.empty((2 * v.n_legal, ROW_DIM), dtype=np.float32)
        offs, allrows = v.encode("guandan", out=buf)
        counts = np.diff(offs)
        a = np.zeros(n, dtype=np.int64)
        if imitate:
            a = v.choose(task.behaviour)
            act = np.flatnonzero(active)
        elif task.opponent is not None:
            # the opponent's seats: the odd seats in even games, the even seats in odd ones
            a = v.choose(task.opponent)
            act = np.flatnonzero(active & (((seat_to_act + slot_ids) & 1) == 0))
            if len(act) == 0:
                _step(v.step(a))
                continue
        else:
            act = np.flatnonzero(active)
        # the rows of the active games' legal moves (state, then the move)
        c = counts[act]
        starts = np.concatenate(([0], np.cumsum(c)[:-1]))
        src = np.arange(int(c.sum())) + np.repeat(offs[act] - starts, c)
        rows = allrows[src]
        t1 = time.perf_counter()
        engine += t1
        if not imitate:
            net -= t1
            q = q_values(layers, rows)
            choice = _segment_argmax(q, starts, c)
            t2 = time.perf_counter()
            net += t2
            engine -= t2
            explore = rng.random(len(act)) < task.epsilon
            if explore.any():
                choice[explore] = (rng.random(int(explore.sum())) * c[explore]).astype(np.int64)
            a[act] = choice
        else:
            engine -= t1
            choice = a[act]
            if task.score_net:
                net -= t1
                q = q_values(layers, rows)
                same = _segment_argmax(q, starts, c) == choice
                agree += int(same.sum())
                agree_choice += int(same[c > 1].sum())
                choices += int((c > 1).sum())
                t2 = time.perf_counter()
                net += t2
                engine -= t2
            # the label and up to K-1 other legal moves, in random columns: the
            # moves that play whole groups of the hand's split first (the
            # plausible alternatives), then others, each drawn at random
            seg = np.repeat(np.arange(len(act)), c)
            key = rng.random(len(src)) - rows[:, WHOLE_GROUP_COL]
            key[starts + choice] = -2.0                      # the label sorts first: always kept
            order = np.lexsort((key, seg))
            pos = np.arange(len(src)) - starts[seg[order]]
            keep = order[pos < K]
            kc = np.minimum(c, K)
            kept = keep[np.lexsort((rng.random(len(keep)), seg[keep]))]
            kstarts = np.concatenate(([0], np.cumsum(kc)[:-1]))
            col = np.arange(len(kept)) - np.repeat(kstarts, kc)
            ks = seg[kept]
            mv = np.zeros((len(act), K, MOVE_COLS), dtype=np.int8)
            mv[ks, col] = _int8(rows[kept, OBS_DIM:])
            mk = np.zeros((len(act), K), dtype=bool)
            mk[ks, col] = True
            lab = np.zeros(len(act), dtype=np.int64)
            is_lab = kept == (starts + choice)[ks]
            lab[ks[is_lab]] = col[is_lab]
            many = c > 1                                     # a decision with one legal move teaches nothing
            im_moves.append(mv[many])
            im_mask.append(mk[many])
            im_label.append(lab[many])
            im_obs.append(_int8(rows[starts[many], :OBS_DIM]))
            im_x.append(_int8(rows[(starts + choice)[many]]))
            im_slot.append(act[many])
            im_seat.append(seat_to_act[act][many].astype(np.int64))
        xs.append(_int8(rows[starts + choice]))
        slots.append(act)
        seats.append(seat_to_act[act].astype(np.int64))
        _step(v.step(a))
    engine += time.perf_counter()
    x = np.concatenate(xs) if xs else np.zeros((0, ROW_DIM), dtype=np.int8)
    slot = np.concatenate(slots) if slots else np.zeros(0, dtype=np.int64)
    seat = np.concatenate(seats) if seats else np.zeros(0, dtype=np.int64)
    g = final[slot, seat].astype(np.float32)
    res = ChunkResult(x=x, g=g, deals=n, decisions=len(x), engine_s=engine, net_s=net, agree=agree,
                      agree_choice=agree_choice, choices=choices)
    if imitate:
        res.obs = np.concatenate(im_obs)
        res.moves = np.concatenate(im_moves)
        res.mask = np.concatenate(im_mask)
        res.label = np.concatenate(im_label)
        res.im_x = np.concatenate(im_x)
        res.im_g = final[np.concatenate(im_slot), np.concatenate(im_seat)].astype(np.float32)
    return res
