"""Batched stepping for learners: :class:`VecGame` steps many games at once,
with numpy observations, legal-move lists (flat, with offsets), per-move
feature vectors and masks, network input rows (:meth:`VecGame.encode`: the
project's encoding or DanZero's, built natively), and integer actions in —
the Python cost is paid once per batch, not per game.

>>> from guandan import VecGame
>>> v = VecGame(8, seed=1)
>>> obs = v.observe()
>>> obs["obs"].shape, obs["legal_offsets"].shape
((8, 227), (9,))
>>> import numpy as np
>>> rewards, done = v.step(np.zeros(8, dtype=np.int64))   # first legal action everywhere
>>> rewards.shape, done.shape
((8, 4), (8,))
>>> offsets, x = v.encode("danzero")       # one 555-float row per legal move of every game
>>> x.shape == (offsets[-1], 555)
True

Observation layout (``obs[i]``, float32, from the seat to act in game i):

=========  =====================================================================
0..53      own hand: count of each face (face = rank*4 + suit, 52 SB, 53 HR)
54..57     card counts of the seats, starting with the seat to act, in turn order
58..111    the play to beat: its cards (zeros when leading)
112..124   its type (one-hot over MoveType values), 125: its key
126..129   who played it, relative to the seat to act (one-hot)
130..142   round level (one-hot, 2..A); 143..155 own team level; 156..168 opponents'
169..172   phase (tribute, back, play, over)
173..226   cards played so far this round (public)
=========  =====================================================================

Rewards: :meth:`VecGame.step` returns an ``(n, 4)`` float array, one reward
per *seat* (partners share theirs, teams are zero-sum). They are non-zero
only where an episode ended; with ``unit="game"`` every round pays as it
ends. The banker's team gets the number of levels it went up (1..3; 4 when
the round wins the game), the other team the negative. A reward can be 0
even when a round ended: a banker's team already at A that does not win
there (its partner last) stays at A, and a ``max_rounds`` stop with equal
levels pays nothing.
"""

from __future__ import annotations

import hashlib
import threading
from typing import TYPE_CHECKING, Any, Dict, Optional, Tuple

import numpy as np

from . import _vec
from ._checks import check_int
from .errors import GuandanError
from .registry import check_policy, native_code
from .moves import Hand, Move
from .policies import SPLIT_FEATURES_DIM
from .positions import check_level
from .rules import Rules, resolve_rules, rules_of

if TYPE_CHECKING:
    from .game import Game

__all__ = ["VecGame", "move_features", "danzero_rows", "net_code", "OBS_DIM", "MOVE_FEATURES_DIM", "SPLIT_FEATURES_DIM",
           "ENCODING_DIMS", "DANZERO_STATE_DIM", "DANZERO_ACTION_DIM"]

OBS_DIM = 227
MOVE_FEATURES_DIM = 54 + 13 + 1
DANZERO_STATE_DIM = 501
DANZERO_ACTION_DIM = 54
# the row width of each encoding of VecGame.encode (docs/rl.md, docs/rl-encoding.md)
# "guandan": the observation, the move's features, the move's split features
ENCODING_DIMS: Dict[str, int] = {"guandan": OBS_DIM + MOVE_FEATURES_DIM + SPLIT_FEATURES_DIM,
                                 "danzero": DANZERO_STATE_DIM + DANZERO_ACTION_DIM}
assert {k: d for k, (_, d) in _vec.ENCODINGS.items()} == ENCODING_DIMS
_SHIFTS = np.arange(54, dtype=np.uint64)


def move_features(words: np.ndarray) -> np.ndarray:
    """Per-move feature vectors from ``(m, 2)`` move words: 54 card counts,
    13 type one-hot, 1 key (float32, ``(m, 68)``).

    >>> from guandan import legal_moves
    >>> f = move_features(legal_moves("S3 S3", "2").to_numpy())
    >>> f.shape, float(f[1, 4]), float(f[1, 54 + 2])    # the pair: two S3, type PAIR
    ((2, 68), 2.0, 1.0)
    """
    w = np.asarray(words, dtype=np.uint64).reshape(-1, 2)
    out = np.zeros((len(w), MOVE_FEATURES_DIM), dtype=np.float32)
    one = (w[:, :1] >> _SHIFTS) & np.uint64(1)
    two = (w[:, 1:2] >> _SHIFTS) & np.uint64(1)
    out[:, :54] = one + two
    t = ((w[:, 0] >> np.uint64(56)) & np.uint64(15)).astype(np.int64)
    out[np.arange(len(w)), 54 + t] = 1.0
    out[:, 67] = ((w[:, 1] >> np.uint64(56)) & np.uint64(31)).astype(np.float32)
    return out


_NET_LOCK = threading.Lock()
_NET_CODES: Dict[bytes, int] = {}


def net_code(layers: Any) -> int:
    """The native policy code of a Q network over ``"guandan"`` rows:
    ``(w, b)`` float32 pairs, the first taking :data:`ENCODING_DIMS`
    ``["guandan"]`` inputs, the last giving one output (validated by the
    caller: :func:`guandan.rl.checkpoint.validate_layers`). The native
    policy builds the rows of :meth:`VecGame.encode` for the seat to act and
    plays the move of highest Q, the first on ties; ``simulate``,
    :meth:`VecGame.choose` and :meth:`guandan.Game.native_choice` run it.
    The same weights give the same code; a network, once registered, stays
    in memory for the life of the process (at most 4,095 native policies).

    >>> from guandan.rl.model import init_layers
    >>> layers = init_layers([ENCODING_DIMS["guandan"], 8, 1], seed=0)
    >>> net_code(layers) == net_code([(w.copy(), b.copy()) for w, b in layers])
    True
    """
    h = hashlib.sha256()
    arrays = []
    for w, b in layers:
        w = np.ascontiguousarray(w, dtype=np.float32)
        b = np.ascontiguousarray(b, dtype=np.float32)
        arrays.append((w, b))
        h.update(repr((w.shape, b.shape)).encode())
        h.update(w.tobytes())
        h.update(b.tobytes())
    key = h.digest()
    with _NET_LOCK:
        code = _NET_CODES.get(key)
        if code is None:
            try:
                code = int(_vec.NativeNet(arrays).register())
            except ValueError as e:
                raise GuandanError(f"native network: {e}") from None
            _NET_CODES[key] = code
        return code


def _words_of(legal_moves: Any) -> np.ndarray:
    to_numpy = getattr(legal_moves, "to_numpy", None)
    if to_numpy is not None:
        return np.ascontiguousarray(to_numpy(), dtype=np.uint64).reshape(-1, 2)
    return np.array([m.words for m in legal_moves], dtype=np.uint64).reshape(-1, 2)


def danzero_rows(observation: Dict[str, Any], legal_moves: Any, rules: Any = None) -> np.ndarray:
    """DanZero's rows of one play-phase decision: ``(len(legal_moves), 555)``
    float32, the 501-float state of the observing seat then each move's
    54-float action vector (docs/rl-encoding.md), built from
    ``observation`` (:meth:`guandan.Game.observation`; its ``history`` must
    be the round's complete history for the state DanZero's client would
    see) by the native bookkeeping :meth:`VecGame.encode` uses. ``rules``:
    for an observation without its rules.

    >>> from guandan import Game
    >>> g = Game(seed=1)
    >>> while g.phase.value != "play":
    ...     g.play(g.legal_moves()[0])
    >>> danzero_rows(g.observation(g.to_act), g.legal_moves()).shape == (len(g.legal_moves()), 555)
    True
    """
    if not isinstance(observation, dict):
        raise GuandanError(f"an observation is a dict, got {type(observation).__name__}")
    if observation.get("phase") != "play":
        raise GuandanError("DanZero's encoding covers the play phase only")
    try:
        return _danzero_rows(observation, legal_moves, rules_of(observation, rules))
    except (KeyError, TypeError, IndexError, ValueError) as e:
        if isinstance(e, GuandanError):
            raise
        raise GuandanError(f"not an observation DanZero's encoding reads: {type(e).__name__}: {e}"[:200]) from None


def _danzero_rows(observation: Dict[str, Any], legal_moves: Any, r: Rules) -> np.ndarray:
    level = observation["level"]
    seat = check_int(observation["seat"], "seat", 0, 3)
    history = list(observation.get("history", ()))
    trick = list(observation.get("trick", ()))
    # a position's initial trick: its plays older than the history come first
    older = trick[:len(trick) - len(history)] if len(trick) > len(history) else []
    plays = []
    for s, triple in older + history:
        lo, hi = Move.from_platform(triple, level, rules=r).words
        plays.append((check_int(s, "a play's seat", 0, 3), lo, hi))
    counts = [check_int(c, "a card count", 0, 27) for c in observation["card_counts"]]
    if len(counts) != 4:
        raise GuandanError("an observation's card_counts hold 4 seats")
    left = list(counts)                 # cards held when the plays began
    for s, lo, hi in plays:
        left[s] += _size(lo, hi)
    if max(left) > 27:
        raise GuandanError("the observation's plays exceed the cards dealt")
    finished = [s for s in observation.get("finish_order", ()) if s in range(4) and left[s] == 0][:3]
    one, two = Hand(observation["hand"]).masks
    team = check_int(observation.get("my_team", seat & 1), "my_team", 0, 1)
    levels = observation["team_levels"]
    return _vec.danzero_rows(seat, one, two, plays, left, finished, counts,
                             check_level(levels[team], "a team level"),
                             check_level(levels[1 - team], "a team level"),
                             check_level(level, "level"), _words_of(legal_moves))


_FACES = (1 << 54) - 1


def _size(lo: int, hi: int) -> int:
    return bin(lo & _FACES).count("1") + bin(hi & _FACES).count("1")


class VecGame:
    """``n`` games stepped together in the native engine.

    Args:
        n: number of games.
        seed: game ``k`` started by this object is dealt from a seed derived
            from ``(seed, k)``; restarts continue the sequence.
        unit: ``"deal"`` (an episode is one round; the game continues) or
            ``"game"``.
        rules: a :class:`Rules`.
        max_actions: if given, :meth:`observe` also returns an
            ``(n, max_actions)`` boolean ``action_mask`` over the first
            ``max_actions`` legal moves of each game.
    """

    def __init__(self, n: int, *, seed: int = 0, unit: str = "deal", rules: Optional[Rules] = None,
                 max_actions: Optional[int] = None) -> None:
        if unit not in ("deal", "game"):
            raise GuandanError(f"unit must be 'deal' or 'game', got {unit!r}")
        n = check_int(n, "n", 1, MAX_GAMES)
        seed = check_int(seed, "seed", 0, (1 << 64) - 1)
        if max_actions is not None:
            max_actions = check_int(max_actions, "max_actions", 1, 1 << 20)
        rules = resolve_rules(rules)
        self._lock = threading.Lock()       # step/observe share native buffers
        self.n = n
        self.unit = unit
        self.rules = rules
        self.max_actions = max_actions
        self._core = _vec.VecCore(n, seed, 0 if unit == "deal" else 1, rules.native)

    def observe(self) -> Dict[str, np.ndarray]:
        """``seat`` (to act), ``obs`` (n, 227), ``level``, ``legal_offsets``
        (n+1) and ``legal_words`` (m, 2): game i's legal actions are rows
        ``legal_offsets[i]:legal_offsets[i+1]``; ``action_mask`` with
        ``max_actions``."""
        with self._lock:
            seat, obs, level = self._core.observe()
            offs, words = self._core.legal()
        out: Dict[str, np.ndarray] = {"seat": seat, "obs": obs, "level": level, "legal_offsets": offs,
               "legal_words": words}
        if self.max_actions:
            counts = np.diff(offs)
            out["action_mask"] = np.arange(self.max_actions)[None, :] < counts[:, None]
        return out

    def legal_features(self) -> Tuple[np.ndarray, np.ndarray]:
        """``(offsets, features)``: :func:`move_features` of every legal action."""
        with self._lock:
            offs, words = self._core.legal()
        return offs, move_features(words)

    @property
    def n_legal(self) -> int:
        """The number of legal actions of all games: the rows :meth:`encode` writes."""
        with self._lock:
            return int(self._core.rows())

    def encode(self, encoding: str = "guandan", *, out: Optional[np.ndarray] = None,
               offsets: Optional[np.ndarray] = None) -> Tuple[np.ndarray, np.ndarray]:
        """``(offsets, x)``: one float32 row per legal action of every game
        (game i's rows ``offsets[i]:offsets[i+1]``, in legal-move order, the
        order :meth:`step` indexes), computed natively.

        ``encoding="guandan"``: 309 columns, the observation of the seat to
        act (:meth:`observe`'s ``obs``), :func:`move_features` of the move,
        then its :data:`guandan.policies.SPLIT_FEATURES` (the hand's split
        before and after the move). ``"danzero"``: 555 columns, DanZero's state (501) then its
        action vector (54) (docs/rl-encoding.md); in the tribute and return
        phases its rows hold the hand, the cards left, the levels and the
        tribute or return card (a DanZero network never sees those
        decisions). Every decision is encoded, one with a single legal move
        too.

        ``out``: a writeable C-contiguous float32 buffer of shape
        ``(rows, dim)`` with ``rows >=`` :attr:`n_legal`, written in place
        (``x`` is then ``out[:n_legal]``); ``offsets``: an int64 buffer of
        ``n + 1`` entries, likewise."""
        if encoding not in ENCODING_DIMS:
            raise GuandanError(f"encoding must be one of {', '.join(ENCODING_DIMS)}, got {encoding!r:.40}")
        code, dim = _vec.ENCODINGS[encoding]
        with self._lock:
            total = int(self._core.rows())
            if out is None:
                out = np.empty((total, dim), dtype=np.float32)
            elif (not isinstance(out, np.ndarray) or out.dtype != np.float32 or out.ndim != 2
                  or out.shape[1] != dim or out.shape[0] < total or not out.flags.c_contiguous
                  or not out.flags.writeable):
                raise GuandanError(f"out must be a writeable C-contiguous float32 array of shape "
                                   f"(at least {total}, {dim})")
            if offsets is None:
                offsets = np.empty(self.n + 1, dtype=np.int64)
            elif (not isinstance(offsets, np.ndarray) or offsets.dtype != np.int64
                  or offsets.shape != (self.n + 1,) or not offsets.flags.c_contiguous
                  or not offsets.flags.writeable):
                raise GuandanError(f"offsets must be a writeable C-contiguous int64 array of shape ({self.n + 1},)")
            self._core.encode(code, out, offsets)
        return offsets, out[:total]

    def game(self, i: int) -> "Game":
        """Game ``i`` as a :class:`guandan.Game` at its current state
        (:meth:`guandan.Game.from_native_state`: no history before it; its
        policy stream seeded from the game's deal seed). The copy is
        independent: playing it does not change this VecGame."""
        from .game import Game

        i = check_int(i, "game index", 0, self.n - 1)
        with self._lock:
            data = self._core.state_bytes(i)
            seed = int(self._core.deal_seed(i))
        return Game.from_native_state(data, seed, rules=self.rules)

    def step(self, actions: Any) -> Tuple[np.ndarray, np.ndarray]:
        """Play ``actions[i]`` (index into game i's legal list) in every game.
        Returns ``(rewards, done)``: ``rewards`` is ``(n, 4)`` float32, one
        per seat (see the module docstring: non-zero only where an episode
        ended, and it can be 0 even then), ``done`` is ``(n,)`` int8 (1 where an
        episode ended);
        finished episodes restart."""
        a = _check_actions(actions, self.n)
        with self._lock:
            try:
                return self._core.step(a)
            except IndexError as e:
                raise GuandanError(str(e)) from None

    step_many = step

    def choose(self, policy: str = "expert") -> np.ndarray:
        """``int64[n]``: the action a native policy (``"random"``,
        ``"greedy"``, ``"expert"``, or a search spec's rollout-free native
        form) picks in every game, from the view of the seat to act — the
        labels of imitation learning, or the moves of fixed opponents. Draws
        from this object's policy stream: the same seed and the same calls
        give the same choices.

        >>> v = VecGame(4, seed=3)
        >>> a = v.choose("expert")
        >>> a.shape, bool((a >= 0).all())
        ((4,), True)
        """
        code = native_code(check_policy(policy))
        with self._lock:
            try:
                return self._core.choose(code)
            except ValueError as e:
                raise GuandanError(f"policy {policy!r}: {e}") from None


MAX_GAMES = 1 << 22


def _check_actions(actions: Any, n: int) -> np.ndarray:
    """The validator of a batch of action indices: ``n`` integers (no floats,
    bools or strings), as a contiguous int64 array."""
    try:
        a = np.asarray(actions)
    except (ValueError, TypeError):
        raise GuandanError(f"actions must be {n} integer indices") from None
    if a.dtype.kind not in "iu":
        raise GuandanError(f"actions must be integer indices, got dtype {a.dtype}")
    if a.shape != (n,):
        raise GuandanError(f"expected {n} actions, got shape {a.shape}")
    if a.dtype.kind == "u" and a.size and a.max() > (1 << 62):
        raise GuandanError("action index out of range")
    return np.ascontiguousarray(a, dtype=np.int64)
