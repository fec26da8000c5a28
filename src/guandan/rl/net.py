"""A Q(s, a) network as a policy: numpy inference, the project's encoding.

The encoding (``"guandan"``): one row per legal move of the seat to act,
``OBS_DIM + MOVE_FEATURES_DIM`` = 227 + 68 = 295 float32 values, the seat's
observation tensor (:meth:`guandan.Game.observation_tensor`, layout in
:mod:`guandan.vec`) followed by the move's features
(:func:`guandan.move_features`: 54 card counts, 13 type one-hot, 1 key).

The network (:mod:`guandan.rl.checkpoint`) maps each row to one Q value:
``relu(x @ w + b)`` for every layer but the last, linear at the end.
:class:`NetPolicy` plays the legal move of highest Q (the first one in
legal-move order on ties): a deterministic function of the position.

>>> import numpy as np
>>> from guandan import Game
>>> rng = np.random.default_rng(0)
>>> net = NetPolicy([(rng.standard_normal((295, 8)).astype(np.float32), np.zeros(8, np.float32)),
...                  (rng.standard_normal((8, 1)).astype(np.float32), np.zeros(1, np.float32))])
>>> g = Game(seed=1)
>>> encode(g).shape == (len(g.legal_moves()), 295)
True
>>> net.decide(g) in g.legal_moves()
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from ..errors import GuandanError
from ..moves import Move
from ..policies import Explanation, observation_fields
from ..rules import rules_of
from ..vec import MOVE_FEATURES_DIM, OBS_DIM, move_features
from .checkpoint import Checkpoint, CheckpointError, load_checkpoint, validate_layers

if TYPE_CHECKING:
    from ..game import Game

__all__ = ["NetPolicy", "NetExplanation", "encode", "encode_observation", "observation_tensor_of",
           "q_values", "INPUT_DIM"]

INPUT_DIM = OBS_DIM + MOVE_FEATURES_DIM

Layers = List[Tuple[np.ndarray, np.ndarray]]


def _words(legal_moves: Any) -> np.ndarray:
    to_numpy = getattr(legal_moves, "to_numpy", None)
    if to_numpy is not None:
        return np.asarray(to_numpy(), dtype=np.uint64).reshape(-1, 2)
    return np.array([m.words for m in legal_moves], dtype=np.uint64).reshape(-1, 2)


def _rows(obs: np.ndarray, words: np.ndarray) -> np.ndarray:
    x = np.empty((len(words), INPUT_DIM), dtype=np.float32)
    x[:, :OBS_DIM] = obs
    x[:, OBS_DIM:] = move_features(words)
    return x


def encode(game: "Game") -> np.ndarray:
    """``(n_legal, 295)`` float32: the observation tensor of the seat to act
    beside each legal move's features, in legal-move order."""
    if game.is_over:
        raise GuandanError("the game is over")
    return _rows(game.observation_tensor(game.to_act), _words(game.legal_moves()))


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


def encode_observation(observation: Dict[str, Any], legal_moves: Any, rules: Any = None) -> np.ndarray:
    """:func:`encode` from an observation and its legal moves (see
    :func:`observation_tensor_of` for what the observation must hold)."""
    return _rows(observation_tensor_of(observation, rules), _words(legal_moves))


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
    (:func:`guandan.rl.checkpoint.load_checkpoint`, encoding ``"guandan"``)
    or ``(w, b)`` float32 pairs. ``seed`` is accepted for the policy
    protocol; the policy has no randomness.

    ``decide(game)``: the legal move of highest Q, the first on ties.
    Called as ``(observation, legal_moves) -> move`` (SDK bots), the rows
    are built from the observation alone (:func:`observation_tensor_of`):
    the same decision as ``decide`` when the observation carries the
    round's complete history."""

    def __init__(self, path_or_layers: Union[str, Any], seed: Optional[int] = None) -> None:
        if isinstance(path_or_layers, (list, tuple)):
            layers = [(np.array(w, dtype=np.float32, order="C"), np.array(b, dtype=np.float32, order="C"))
                      for w, b in path_or_layers]     # copies: the caller's arrays stay theirs
            validate_layers(layers, "guandan")
            self.checkpoint: Optional[Checkpoint] = None
            self.layers: Layers = layers
        else:
            ck = load_checkpoint(path_or_layers)
            if ck.encoding != "guandan":
                raise CheckpointError(f"the net policy plays encoding 'guandan', this checkpoint is "
                                      f"{ck.encoding!r}")
            self.checkpoint = ck
            self.layers = ck.layers
        for w, b in self.layers:
            w.setflags(write=False)
            b.setflags(write=False)
        self.seed = seed

    def q(self, game: "Game") -> np.ndarray:
        """Q of each legal move of ``game``'s seat to act, in legal-move order."""
        return q_values(self.layers, encode(game))

    def decide(self, game: "Game") -> Move:
        """The legal move of highest Q (the first on ties)."""
        moves = game.legal_moves()
        return moves[int(np.argmax(q_values(self.layers, _rows(game.observation_tensor(game.to_act),
                                                                _words(moves)))))]

    def explain(self, game: "Game") -> NetExplanation:
        """The decision and every candidate's Q value; ``game`` is not changed."""
        if game.is_over:
            raise GuandanError("the game is over")
        moves = game.legal_moves()
        q = q_values(self.layers, _rows(game.observation_tensor(game.to_act), _words(moves)))
        i = int(np.argmax(q))
        return NetExplanation(game.to_act, moves[i], "net",
                              tuple((moves[k], float(q[k])) for k in range(len(moves))))

    def __call__(self, observation: Dict[str, Any], legal_moves: Any) -> Any:
        if len(legal_moves) == 0:
            raise GuandanError("no legal move to choose from")
        q = q_values(self.layers, encode_observation(observation, legal_moves))
        return legal_moves[int(np.argmax(q))]


def net_policy(seed: Optional[int] = None, **options: str) -> NetPolicy:
    """The factory of the registered ``net`` policy: ``net:path=FILE``."""
    extra = sorted(set(options) - {"path"})
    if extra:
        raise GuandanError(f"policy 'net' takes the option path=FILE, got {', '.join(extra)}")
    path = options.get("path")
    if not path:
        raise GuandanError("policy 'net' needs a checkpoint: net:path=FILE")
    return NetPolicy(path, seed)
