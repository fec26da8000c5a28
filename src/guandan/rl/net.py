"""A Q(s, a) network as a policy: numpy inference over one of two encodings.

``"guandan"`` (the project's): one row per legal move of the seat to act,
``OBS_DIM + MOVE_FEATURES_DIM + SPLIT_FEATURES_DIM`` = 227 + 68 + 14 = 309
float32 values, the seat's observation tensor
(:meth:`guandan.Game.observation_tensor`, layout in :mod:`guandan.vec`),
the move's features (:func:`guandan.move_features`: 54 card counts, 13 type
one-hot, 1 key) and the move's split features
(:func:`guandan.policies.split_features`: the hand's split into plays
before and after the move).

``"danzero"`` (DanZero's, docs/rl-encoding.md): 501 + 54 = 555 values, the
seat's state vector followed by the move's card counts
(:func:`guandan.vec.danzero_rows`); it covers the play phase, so a
``danzero`` network's tribute and return are the ``greedy`` policy's (DanZero
decides them by fixed rules, not by its network).

:meth:`guandan.VecGame.encode` builds the same rows natively for a batch of
games.

The network (:mod:`guandan.rl.checkpoint`) maps each row to one Q value:
``relu(x @ w + b)`` for every layer but the last, linear at the end.
:class:`NetPolicy` plays the legal move of highest Q (the first one in
legal-move order on ties): a deterministic function of the position.

>>> import numpy as np
>>> from guandan import Game
>>> rng = np.random.default_rng(0)
>>> net = NetPolicy([(rng.standard_normal((309, 8)).astype(np.float32), np.zeros(8, np.float32)),
...                  (rng.standard_normal((8, 1)).astype(np.float32), np.zeros(1, np.float32))])
>>> g = Game(seed=1)
>>> encode(g).shape == (len(g.legal_moves()), 309)
True
>>> net.decide(g) in g.legal_moves()
True
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from ..errors import GuandanError
from ..moves import Move
from ..policies import (SPLIT_FEATURES_DIM, Explanation, GreedyPolicy, observation_fields, split_features,
                        split_features_of)
from ..rules import rules_of
from ..policies import NativePolicy
from ..vec import ENCODING_DIMS, MOVE_FEATURES_DIM, OBS_DIM, danzero_rows, move_features, net_code
from .checkpoint import ENCODINGS, Checkpoint, CheckpointError, load_checkpoint, validate_layers

if TYPE_CHECKING:
    from ..game import Game

__all__ = ["NetPolicy", "NetExplanation", "encode", "encode_observation", "observation_tensor_of",
           "q_values", "INPUT_DIM"]

INPUT_DIM = OBS_DIM + MOVE_FEATURES_DIM + SPLIT_FEATURES_DIM

Layers = List[Tuple[np.ndarray, np.ndarray]]


def _words(legal_moves: Any) -> np.ndarray:
    to_numpy = getattr(legal_moves, "to_numpy", None)
    if to_numpy is not None:
        return np.asarray(to_numpy(), dtype=np.uint64).reshape(-1, 2)
    return np.array([m.words for m in legal_moves], dtype=np.uint64).reshape(-1, 2)


def _rows(obs: np.ndarray, words: np.ndarray, split: np.ndarray) -> np.ndarray:
    x = np.empty((len(words), INPUT_DIM), dtype=np.float32)
    x[:, :OBS_DIM] = obs
    x[:, OBS_DIM:OBS_DIM + MOVE_FEATURES_DIM] = move_features(words)
    x[:, OBS_DIM + MOVE_FEATURES_DIM:] = split
    return x


def _check_encoding(encoding: str) -> str:
    if encoding not in ENCODING_DIMS:
        raise GuandanError(f"encoding must be one of {', '.join(ENCODING_DIMS)}, got {encoding!r:.40}")
    return encoding


def encode(game: "Game", encoding: str = "guandan") -> np.ndarray:
    """The rows of the seat to act, one per legal move in legal-move order:
    ``(n_legal, 309)`` float32 for ``"guandan"`` (the observation tensor
    beside each move's features and split features), ``(n_legal, 555)`` for ``"danzero"``
    (play phase only; from ``game.observation(seat)``, whose history is the
    round's)."""
    if game.is_over:
        raise GuandanError("the game is over")
    if _check_encoding(encoding) == "danzero":
        return danzero_rows(game.observation(game.to_act), game.legal_moves(), game.rules)
    moves = game.legal_moves()
    return _rows(game.observation_tensor(game.to_act), _words(moves), split_features(game, moves))


def observation_tensor_of(observation: Dict[str, Any], rules: Any = None) -> np.ndarray:
    """The 227-float observation tensor built from an observation
    (:meth:`guandan.Game.observation`) alone: the same values as
    :meth:`guandan.Game.observation_tensor` when the observation's
    ``history`` is the round's complete history (the cards played this
    round are read from it; an observation with a truncated history gives
    fewer played cards). ``rules``: for an observation without its rules."""
    f = observation_fields(observation, rules_of(observation, rules))
    out = np.zeros(OBS_DIM, dtype=np.float32)
    seat = f["seat"]
    team = seat & 1
    h = f["hand"]
    feats = move_features(np.array([list(h.masks), list(f["played"].masks)], dtype=np.uint64))
    out[0:54] = feats[0, :54]
    out[173:227] = feats[1, :54]
    counts = f["counts"]
    for k in range(4):
        out[54 + k] = counts[(seat + k) & 3]
    if f["top_seat"] >= 0:
        t = move_features(np.array([[f["top_lo"], f["top_hi"]]], dtype=np.uint64))[0]
        out[58:112] = t[:54]
        out[112:125] = t[54:67]
        out[125] = t[67]
        out[126 + ((f["top_seat"] - seat) & 3)] = 1.0
    out[130 + f["rlevel"]] = 1.0
    out[143 + f["levels"][team]] = 1.0
    out[156 + f["levels"][1 - team]] = 1.0
    out[169 + f["phase"]] = 1.0
    return out


def encode_observation(observation: Dict[str, Any], legal_moves: Any, rules: Any = None,
                       encoding: str = "guandan") -> np.ndarray:
    """:func:`encode` from an observation and its legal moves (see
    :func:`observation_tensor_of` and :func:`guandan.vec.danzero_rows` for
    what the observation must hold)."""
    if _check_encoding(encoding) == "danzero":
        return danzero_rows(observation, legal_moves, rules)
    return _rows(observation_tensor_of(observation, rules), _words(legal_moves),
                 split_features_of(observation, legal_moves, rules))


def q_values(layers: Sequence[Tuple[np.ndarray, np.ndarray]], x: np.ndarray) -> np.ndarray:
    """The network's Q value of each row of ``x`` (``(n, D)`` -> ``(n,)``)."""
    h = np.asarray(x, dtype=np.float32)
    last = len(layers) - 1
    for i, (w, b) in enumerate(layers):
        h = h @ w + b
        if i < last:
            np.maximum(h, 0.0, out=h)
    return h[:, 0]


@dataclass(frozen=True)
class NetExplanation(Explanation):
    """The network's decision (``rule`` is ``"net"``) and every candidate's
    Q value, ``(move, q)`` in legal-move order."""

    candidates: Tuple[Tuple[Move, float], ...] = ()


class NetPolicy:
    """A Q(s, a) network as a policy. ``path_or_layers``: a checkpoint path
    (:func:`guandan.rl.checkpoint.load_checkpoint`; it names its encoding)
    or ``(w, b)`` float32 pairs, whose encoding is ``encoding`` (default:
    the one whose input size the first layer takes, 309 ``"guandan"``, 555
    ``"danzero"``). ``seed`` is accepted for the policy protocol; the
    policy has no randomness.

    ``decide(game)``: the legal move of highest Q, the first on ties (a
    ``"danzero"`` network in the tribute and return phases: the ``greedy``
    policy's choice). A ``"guandan"`` network decides natively
    (:func:`guandan.vec.net_code`: :attr:`code`, what ``simulate`` and
    ``VecGame.choose`` run); its Q values are the numpy ones of :meth:`q`
    up to float32 rounding (the sums run in another order), so on a near
    tie the two may pick different moves. Called as ``(observation,
    legal_moves) -> move`` (SDK bots), the rows are built from the
    observation alone (:func:`encode_observation`): the same decision as
    ``decide`` when the observation carries the round's complete history."""

    def __init__(self, path_or_layers: Union[str, Any], seed: Optional[int] = None,
                 encoding: Optional[str] = None) -> None:
        if isinstance(path_or_layers, (list, tuple)):
            layers = [(np.array(w, dtype=np.float32, order="C"), np.array(b, dtype=np.float32, order="C"))
                      for w, b in path_or_layers]     # copies: the caller's arrays stay theirs
            if encoding is None:
                n_in = layers[0][0].shape[0] if layers and layers[0][0].ndim == 2 else -1
                encoding = next((e for e, d in ENCODINGS.items() if d == n_in), "guandan")
            validate_layers(layers, encoding)
            self.checkpoint: Optional[Checkpoint] = None
            self.layers: Layers = layers
        else:
            ck = load_checkpoint(path_or_layers)
            if encoding is not None and ck.encoding != encoding:
                raise CheckpointError(f"the checkpoint's encoding is {ck.encoding!r}, not {encoding!r:.40}")
            encoding = ck.encoding
            self.checkpoint = ck
            self.layers = ck.layers
        for w, b in self.layers:
            w.setflags(write=False)
            b.setflags(write=False)
        self.encoding: str = encoding
        self.seed = seed
        self._rule: Optional[GreedyPolicy] = GreedyPolicy(seed) if encoding == "danzero" else None
        # a "guandan" network decides natively (the same code simulate runs)
        self.code: Optional[int] = net_code(self.layers) if encoding == "guandan" else None
        self._native: Optional[NativePolicy] = (NativePolicy("net", seed, code=self.code)
                                                if self.code is not None else None)

    def _by_rule(self, phase: Any) -> Optional[GreedyPolicy]:
        # DanZero's network scores plays only: its tribute and return are a rule's
        return self._rule if phase != "play" else None

    def q(self, game: "Game") -> np.ndarray:
        """Q of each legal move of ``game``'s seat to act, in legal-move order."""
        return q_values(self.layers, encode(game, self.encoding))

    def decide(self, game: "Game") -> Move:
        """The legal move of highest Q (the first on ties)."""
        if self.code is not None:
            return game.native_choice(self.code)
        rule = self._by_rule(game.phase.value)
        if rule is not None:
            return rule.decide(game)
        moves = game.legal_moves()
        return moves[int(np.argmax(q_values(self.layers, self._rows(game, moves))))]

    def _rows(self, game: "Game", moves: Any) -> np.ndarray:
        if self.encoding == "danzero":
            return danzero_rows(game.observation(game.to_act), moves, game.rules)
        return _rows(game.observation_tensor(game.to_act), _words(moves), split_features(game, moves))

    def explain(self, game: "Game") -> NetExplanation:
        """The decision and every candidate's Q value; ``game`` is not changed
        (a ``"danzero"`` network's tribute or return: the rule's move, no
        candidates)."""
        if game.is_over:
            raise GuandanError("the game is over")
        rule = self._by_rule(game.phase.value)
        if rule is not None:
            return NetExplanation(game.to_act, rule.decide(game), "greedy", ())
        moves = game.legal_moves()
        q = q_values(self.layers, self._rows(game, moves))
        move = moves[int(np.argmax(q))] if self.code is None else game.native_choice(self.code)
        return NetExplanation(game.to_act, move, "net",
                              tuple((moves[k], float(q[k])) for k in range(len(moves))))

    def __call__(self, observation: Dict[str, Any], legal_moves: Any) -> Any:
        if len(legal_moves) == 0:
            raise GuandanError("no legal move to choose from")
        if self._native is not None:
            return self._native(observation, legal_moves)
        rule = self._by_rule(observation.get("phase"))
        if rule is not None:
            return rule(observation, legal_moves)
        q = q_values(self.layers, encode_observation(observation, legal_moves, encoding=self.encoding))
        return legal_moves[int(np.argmax(q))]


def _path_option(options: Dict[str, str]) -> str:
    extra = sorted(set(options) - {"path"})
    if extra:
        raise GuandanError(f"policy 'net' takes the option path=FILE, got {', '.join(extra)}")
    path = options.get("path")
    if not path:
        raise GuandanError("policy 'net' needs a checkpoint: net:path=FILE")
    return path


def net_policy(seed: Optional[int] = None, **options: str) -> NetPolicy:
    """The factory of the registered ``net`` policy: ``net:path=FILE``."""
    return NetPolicy(_path_option(options), seed)


def net_native_code(options: Dict[str, str]) -> int:
    """The native code of ``net:path=FILE`` (a ``"guandan"`` network; a
    ``"danzero"`` one has no native form)."""
    ck = load_checkpoint(_path_option(options))
    if ck.encoding != "guandan":
        raise GuandanError(f"a {ck.encoding!r} network has no native form (simulate and VecGame "
                           f"run \"guandan\" networks); play it with Game, the arena or the servers")
    return net_code(ck.layers)


#: The network shipped in the package, played by the name ``learned``
#: (docs/rl.md, "The shipped network").
LEARNED_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models", "learned.npz")


@functools.lru_cache(maxsize=1)
def _learned() -> Checkpoint:
    if not os.path.exists(LEARNED_PATH):
        raise GuandanError(f"the shipped network is missing from this installation ({LEARNED_PATH})")
    return load_checkpoint(LEARNED_PATH)


def learned_policy(seed: Optional[int] = None) -> NetPolicy:
    """The factory of the registered ``learned`` policy: the network shipped
    in the package (:data:`LEARNED_PATH`)."""
    return NetPolicy(_learned().layers, seed, encoding=_learned().encoding)


def learned_native_code(options: Dict[str, str]) -> int:
    """The native code of ``learned``."""
    return net_code(_learned().layers)
