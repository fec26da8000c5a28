"""Tools for search bots, and a search player.

Everything hot runs natively (``_search.pyx``, ``_solve.pyx``) with the GIL
released; the functions here take a :class:`guandan.Game` and go through its
public methods.

* :func:`sample_worlds` - full positions consistent with what one seat
  knows (its hand, the card counts, the cards played this round and by whom,
  this round's tribute and return cards), every consistent physical deal of
  the unseen cards equally likely.
* :func:`rollouts` - the round played to its end many times with a native
  policy, from the position or from sampled worlds.
* :func:`solve` - the exact value of the round with all four hands known
  (minimax over the two teams, alpha-beta, transposition table).
* :func:`explain` / :class:`SearchPolicy` / the policy name ``"search"`` -
  determinized Monte-Carlo search: sample worlds, evaluate candidate moves
  by rollouts (or exactly by the solver when few cards are left), choose the
  best expected level points of the round for the seat's team.

Values are level points of the round: the banker's team gains +3 / +2 / +1
when the banker's partner finishes 2nd / 3rd / last. :func:`solve` and
:class:`RolloutResult` report them from team 0's view (+ when team 0 is the
banker's team, - otherwise, never 0); a search reports them from the
deciding seat's team's view.

>>> from guandan import Game
>>> g = Game.from_position([["S3", "S4"], ["HA"], ["D5"], ["C9"]], level="2", to_act=0)
>>> r = solve(g)
>>> r.exact, r.value                # seat 1 goes out, then (接风) seat 3: team 1 double-down
(True, -3)
>>> g = Game(seed=4)
>>> for _ in range(40): _ = g.play_policy("greedy")
>>> e = explain(g, rollouts=200, seed=1)
>>> e.move in g.legal_moves(), e.worlds >= 1
(True, True)
"""

from __future__ import annotations

import contextlib
import math
import os
import random
import threading
import time
from dataclasses import dataclass, fields, replace as _dc_replace
from functools import cached_property
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from . import _core, _search, _solve
from ._checks import check_int
from .errors import GuandanError
from .game import Game
from .moves import Move
from .policies import NativePolicy, native_policy_name, observation_view, parse_policy, register, rollout_code
from .positions import check_seed
from .rules import resolve_rules, rules_of
from .seeds import game_seed
from .state import Phase

__all__ = ["SearchConfig", "SearchResult", "Candidate", "SolveResult", "RolloutResult",
           "SearchPolicy", "sample_worlds", "rollouts", "solve", "explain", "choose", "info_set",
           "native_search_code", "DEFAULT_ROLLOUTS", "DEFAULT_SOLVE_CARDS"]

DEFAULT_ROLLOUTS = 500        # evaluations per decision when no budget is given
DEFAULT_SOLVE_CARDS = 12      # exact solves when the four hands hold at most this many cards
DEFAULT_SOLVE_NODES = 20_000  # node limit of one solve inside a search (then a rollout)
DEFAULT_MARGIN = 1.0          # standard errors a candidate must gain over the policy's choice


# -- configuration ---------------------------------------------------------------

@dataclass(frozen=True)
class SearchConfig:
    """How the search decides (the options of ``"search:key=value,..."``).

    Attributes:
        rollouts: evaluations per decision (candidates x worlds; rounded up to
            whole worlds). Deterministic for a seed. Default 500 when no
            budget is given.
        ms: time per decision in milliseconds instead (wall time; at least
            one world); not deterministic.
        cpu_ms: a budget in milliseconds of the deciding thread's CPU time
            instead: "so much of one core", whatever else runs on the host
            (what the benchmarks use); not deterministic.
        k: candidate moves (all when there are at most ``k``): the rollout
            policy's choice, moves that go out, the pass, then round robin
            over the move types (bombs one type), suit variants dropped,
            each type's moves in the order ``cands`` gives.
        cands: 1 (default) takes each type's moves by the expert's gain
            (the value of the hand left by the move against the hand's, as
            the expert splits hands: ``guandan.policies.split_features``),
            best first; 0 its lowest, highest, second lowest, ... move.
        rollout: the native policy of the rollouts and of the first
            candidate (default ``"expert"``).
        solve: evaluate exactly by :func:`solve` when the four hands hold at
            most this many cards (0: never).
        nodes: node limit of one such solve (over it: a rollout instead).
        tt: the solver's transposition table has ``2**tt`` entries.
        margin: the search leaves the rollout policy's own choice only for a
            candidate whose mean beats it by more than ``margin`` standard
            errors of their paired difference (same worlds); 0 takes the best
            mean. With ten candidates and a few dozen worlds the best mean is
            mostly luck, which this guards against.
        seed: the decisions' seed (``None``: derived from the game, see
            :func:`explain`).
        threads: threads of one decision. World ``j`` is drawn and played
            from its own seed, so with a ``rollouts`` budget the decision is
            the same for any number of threads; with a time budget each
            thread spends it (``threads=2`` evaluates about twice the worlds).
        infer: 1 (default) draws each world as the pick of ``proposals``
            uniformly sampled worlds in proportion to the likelihood of this
            round's plays of the other seats under their models (a pass on
            an opponent's single, pair or triple while holding a loose
            stronger one, a follow that broke a bigger group: docs/search.md);
            2 by the policy likelihood: every action of the others this
            round, taken back in the world, weighs 1 if the seat's model
            would have played it there, else ``peps`` (about three times the
            cost of a world's rollouts); 0 samples uniformly. Needs the
            game's trail: the native loops (``simulate``, built-in seats)
            and :func:`explain` over a :class:`guandan.Game` keep it; a
            decision from an observation rebuilds this round's from the
            observation's plays (no habits over finished rounds).
        proposals: worlds sampled per world drawn when inferring.
        peps: ``infer=2``: the weight of an action the seat's model would
            not have played (0 < peps <= 1; default 0.2).
        pdepth: ``infer=2``: only the others' latest ``pdepth`` actions are
            asked about (0: all, the default).
        model: 2 (default) rolls out each other seat in the style its
            plays this round show, or else its habits over the finished
            rounds of the game (an expert that bombs early, keeps its groups
            or follows eagerly), when the rollout policy is the expert: in
            eight worlds drawn by the pass model each style is asked at each
            of the seat's actions this round, and the seat is rolled out in
            the one that would have played the fewest of them otherwise, when
            that is at least one action a world fewer than the style its
            habits gave (about 1.3 ms a decision in mid-round); 1 reads the
            habits (they need finished rounds: a single deal has none) and
            this round's early bombs and overtakes only; 0 rolls out
            everyone alike.
        dice: another stream of the search's random choices (worlds,
            rollouts), 1..1000000; 0 (default) the usual one. The same
            player with other dice: two arena runs of one configuration
            with ``dice=0`` and ``dice=1`` show how much a run's result
            owes to its dice (docs/arena.md).
        keep: tilt the worlds toward the groups players keep: every deal of
            the unseen cards weighs exp(keep * the bombs, triples and pairs
            of each other hand, each by how many cards that seat has
            played this round), fitted on expert players' hands so that
            ``keep=1`` worlds hold as many groups as theirs (uniform worlds
            hold about half their bombs once a seat has played ten cards);
            1 (default); 0 deals every consistent deal alike; 0..4. Exact,
            not resampled (docs/search.md).
    """

    rollouts: Optional[int] = None
    ms: Optional[float] = None
    cpu_ms: Optional[float] = None
    k: int = 10
    rollout: str = "expert"
    solve: int = DEFAULT_SOLVE_CARDS
    nodes: int = DEFAULT_SOLVE_NODES
    tt: int = 16
    margin: float = DEFAULT_MARGIN
    seed: Optional[int] = None
    threads: int = 1
    infer: int = 1
    proposals: int = 8
    model: int = 2
    peps: float = 0.2
    pdepth: int = 0
    dice: int = 0
    keep: float = 1.0
    cands: int = 1

    def __post_init__(self) -> None:
        if sum(x is not None for x in (self.rollouts, self.ms, self.cpu_ms)) > 1:
            raise GuandanError("give one budget: rollouts, ms or cpu_ms")
        if self.rollouts is None and self.ms is None and self.cpu_ms is None:
            object.__setattr__(self, "rollouts", DEFAULT_ROLLOUTS)
        if self.rollouts is not None and (not isinstance(self.rollouts, int)
                                          or not 1 <= self.rollouts <= 100_000_000):
            raise GuandanError(f"rollouts must be 1..100,000,000, got {self.rollouts!r}")
        if self.ms is not None and (not isinstance(self.ms, (int, float)) or not 0 < self.ms <= 3.6e6):
            raise GuandanError(f"ms must be a positive number of milliseconds, got {self.ms!r}")
        if self.cpu_ms is not None and (not isinstance(self.cpu_ms, (int, float))
                                        or not 0 < self.cpu_ms <= 3.6e6):
            raise GuandanError(f"cpu_ms must be a positive number of milliseconds, got {self.cpu_ms!r}")
        if not isinstance(self.k, int) or not 1 <= self.k <= 64:
            raise GuandanError(f"k (candidate moves) must be 1..64, got {self.k!r}")
        if not isinstance(self.solve, int) or not 0 <= self.solve <= 108:
            raise GuandanError(f"solve (cards) must be 0..108, got {self.solve!r}")
        if not isinstance(self.nodes, int) or not 1 <= self.nodes <= 1 << 40:
            raise GuandanError(f"nodes must be 1..2**40, got {self.nodes!r}")
        if not isinstance(self.tt, int) or not 4 <= self.tt <= 26:
            raise GuandanError(f"tt must be 4..26, got {self.tt!r}")
        if self.seed is not None and (not isinstance(self.seed, int) or not 0 <= self.seed < 1 << 64):
            raise GuandanError(f"seed must be a 64-bit unsigned int, got {self.seed!r}")
        if not isinstance(self.margin, (int, float)) or not 0 <= self.margin <= 100:
            raise GuandanError(f"margin must be 0..100 standard errors, got {self.margin!r}")
        if not isinstance(self.threads, int) or not 1 <= self.threads <= 64:
            raise GuandanError(f"threads must be 1..64, got {self.threads!r}")
        if self.infer not in (0, 1, 2) or self.model not in (0, 1, 2):
            raise GuandanError(f"infer is 0, 1 or 2 and model 0, 1 or 2, got {self.infer!r} and {self.model!r}")
        if not isinstance(self.peps, (int, float)) or not 0 < self.peps <= 1:
            raise GuandanError(f"peps must be in (0, 1], got {self.peps!r}")
        if not isinstance(self.pdepth, int) or not 0 <= self.pdepth <= 480:
            raise GuandanError(f"pdepth must be 0..480, got {self.pdepth!r}")
        if not isinstance(self.dice, int) or not 0 <= self.dice <= 1000000:
            raise GuandanError(f"dice must be 0..1000000, got {self.dice!r}")
        if isinstance(self.keep, bool) or not isinstance(self.keep, (int, float)) or not 0 <= self.keep <= 4:
            raise GuandanError(f"keep must be 0..4, got {self.keep!r}")
        if self.cands not in (0, 1) or isinstance(self.cands, bool):
            raise GuandanError(f"cands is 0 or 1, got {self.cands!r}")
        if not isinstance(self.proposals, int) or not 1 <= self.proposals <= 256:
            raise GuandanError(f"proposals must be 1..256, got {self.proposals!r}")
        self.rollout_code()          # a native policy that is not a search (else GuandanError)

    _INT = ("rollouts", "k", "solve", "nodes", "tt", "seed", "threads", "infer", "proposals", "model", "pdepth",
            "dice", "cands")
    _FLOAT = ("ms", "cpu_ms", "margin", "peps", "keep")

    @classmethod
    def from_options(cls, opts: Dict[str, str]) -> "SearchConfig":
        """From ``"search:..."`` options (strings)."""
        kw: Dict[str, Any] = {}
        names = {f.name for f in fields(cls)}
        for k, v in opts.items():
            if k not in names:
                raise GuandanError(f"unknown search option {k!r}; options: {', '.join(sorted(names))}")
            try:
                kw[k] = int(v) if k in cls._INT else (float(v) if k in cls._FLOAT else v)
            except ValueError:
                raise GuandanError(f"search option {k}={v!r}: not a number") from None
        return cls(**kw)

    @classmethod
    def from_spec(cls, spec: str) -> "SearchConfig":
        name, opts = parse_policy(spec)
        if name != "search":
            raise GuandanError(f"not a search policy: {spec!r}")
        return cls.from_options(opts)

    def replace(self, **changes: Any) -> "SearchConfig":
        return _dc_replace(self, **changes)

    def rollout_code(self) -> int:
        return rollout_code(self.rollout)

    @cached_property
    def native(self) -> Any:
        """This configuration as the native ``NativeSearchConfig`` (built once
        per config, as :attr:`guandan.Rules.native`): the one conversion of
        its fields to native values. The ``seed`` is not part of it."""
        ms = self.cpu_ms if self.cpu_ms is not None else self.ms
        return _search.NativeSearchConfig(
            rollout_code=self.rollout_code(), rollouts=self.rollouts or 0, ms=float(ms or 0.0),
            topk=self.k, solve_cards=self.solve, solve_nodes=self.nodes, tt_bits=self.tt,
            margin=float(self.margin), cpu_clock=self.cpu_ms is not None, threads=self.threads,
            infer=int(self.infer), proposals=self.proposals, model=int(self.model),
            peps=float(self.peps), pdepth=self.pdepth, dice=self.dice, keep=float(self.keep),
            cands=int(self.cands))


# -- results ---------------------------------------------------------------------

@dataclass(frozen=True)
class SolveResult:
    """What :func:`solve` proved. ``lo <= value <= hi`` (team 0's view);
    ``exact`` when they are equal. ``best_move`` reaches the exact value
    (when exact), else it is the best move found. ``moves`` (with
    ``per_move``): ``(move, lo, hi)`` for every legal move."""

    lo: int
    hi: int
    best_move: Optional[Move]
    nodes: int
    seconds: float
    aborted: bool
    moves: Optional[List[Tuple[Move, int, int]]] = None

    @property
    def exact(self) -> bool:
        return self.lo == self.hi

    @property
    def value(self) -> Optional[int]:
        """The exact team-0 value, or None when only bounds are proven."""
        return self.lo if self.lo == self.hi else None

    def __str__(self) -> str:
        v = f"value {self.lo:+d}" if self.exact else f"bounds [{self.lo:+d}, {self.hi:+d}]"
        return (f"{v} (team 0's view), best {self.best_move}; {self.nodes:,} nodes in "
                f"{self.seconds * 1e3:.1f} ms{' (stopped at a limit)' if self.aborted else ''}")


class RolloutResult:
    """Rounds played to the end: ``orders`` (n, 4) finishing orders,
    ``values`` (n,) team-0 level points, ``points`` (n, 2) levels gained by
    each team."""

    def __init__(self, orders: np.ndarray, values: np.ndarray, seconds: float, policy: str) -> None:
        self.orders = orders
        self.values = values
        self.seconds = seconds
        self.policy = policy

    def __len__(self) -> int:
        return len(self.values)

    @property
    def points(self) -> np.ndarray:
        v = self.values.astype(np.int8)
        return np.stack([np.maximum(v, 0), np.maximum(-v, 0)], axis=1).astype(np.int8)

    @property
    def banker_team(self) -> np.ndarray:
        return (self.orders[:, 0] & 1).astype(np.int8)

    @property
    def mean_value(self) -> float:
        return float(self.values.mean()) if len(self.values) else float("nan")

    @property
    def per_second(self) -> float:
        return len(self.values) / self.seconds if self.seconds > 0 else float("inf")

    def __repr__(self) -> str:
        return (f"<RolloutResult n={len(self)} policy={self.policy} mean team-0 value "
                f"{self.mean_value:+.3f} ({self.per_second:,.0f}/s)>")


@dataclass(frozen=True)
class Candidate:
    """One candidate move of a search decision: ``value`` is the mean level
    points of the deciding seat's team over ``n`` evaluations (one per
    sampled world), ``stderr`` its standard error."""

    move: Move
    value: float
    n: int
    stderr: float
    chosen: bool = False


@dataclass(frozen=True)
class SearchResult:
    """A search decision and why: the candidates with their estimated values
    (in the order they were chosen as candidates), the worlds sampled, the
    evaluations by rollout and by the exact solver."""

    seat: int
    move: Move
    candidates: List[Candidate]
    legal: int
    worlds: int
    rollouts: int
    solved: int
    solve_fail: int
    seconds: float
    config: Optional[SearchConfig] = None
    note: str = ""          # why nothing was searched (one legal move, tribute or return)
    weighed: int = 0        # worlds drawn by the likelihood of this round's plays
    ess: float = 1.0        # their mean effective share of the proposals (1: the plays told nothing)
    evidence: int = 0       # this round's plays of the other seats that bore on the first world
    rollout_policies: Tuple[str, ...] = ()   # each seat's rollout policy
    uniform: Optional[List[float]] = None    # each candidate's value with uniform worlds (explain(compare=True))

    @classmethod
    def forced(cls, move: Move, seat: int, note: str = "") -> "SearchResult":
        return cls(seat, move, [Candidate(move, float("nan"), 0, float("nan"), True)], 1, 0, 0, 0, 0, 0.0,
                   note=note)

    @classmethod
    def from_native(cls, raw: Dict[str, Any], seat: int, level: int,
                    cfg: Optional[SearchConfig]) -> "SearchResult":
        moves = raw["moves"]
        cands = []
        for c, i in enumerate(raw["cand"]):
            n = raw["cnt"][c]
            mean = raw["sum"][c] / n if n else float("nan")
            var = raw["sumsq"][c] / n - mean * mean if n else float("nan")
            se = math.sqrt(max(var, 0.0) / (n - 1)) if n > 1 else float("nan")
            cands.append(Candidate(Move._from_native(moves[i][0], moves[i][1], level), mean, n, se,
                                   i == raw["choice"]))
        ch = raw["choice"]
        move = Move._from_native(moves[ch][0], moves[ch][1], level)
        return cls(seat, move, cands, len(moves), raw["worlds"], raw["rollouts"], raw["solved"],
                   raw["solve_fail"], raw["seconds"], cfg,
                   note="the only legal move: nothing to search" if len(moves) == 1 else "",
                   weighed=raw.get("weighed", 0), ess=raw.get("ess", 1.0), evidence=raw.get("evidence", 0),
                   rollout_policies=tuple(native_policy_name(c) for c in raw.get("codes", ())))

    def __str__(self) -> str:
        if self.note:
            return f"seat {self.seat}: {self.move}  ({self.note})"
        head = (f"seat {self.seat}: {self.move}  ({self.legal} legal, {len(self.candidates)} candidates, "
                f"{self.worlds} worlds, {self.rollouts} rollouts, {self.solved} exact solves"
                f"{f', {self.solve_fail} over the node limit' if self.solve_fail else ''}; "
                f"{self.seconds * 1e3:.1f} ms)")
        rows = [head]
        if self.weighed:
            rows.append(f"   worlds by likelihood: {self.weighed}, {self.evidence} plays of the others as "
                        f"evidence, effective share {self.ess:.2f} of {self.config.proposals if self.config else '?'}"
                        f" proposals; rollouts: {', '.join(self.rollout_policies)}")
        order = sorted(range(len(self.candidates)),
                       key=lambda i: -self.candidates[i].value if self.candidates[i].n else 1e9)
        for i in order:
            c = self.candidates[i]
            mark = "*" if c.chosen else " "
            u = f"  (uniform {self.uniform[i]:+.3f})" if self.uniform is not None else ""
            rows.append(f" {mark} {c.value:+.3f} ±{c.stderr:.3f}  n={c.n:<5d} {c.move}{u}")
        return "\n".join(rows)

    def to_dict(self) -> Dict[str, Any]:
        return {"seat": self.seat, "move": self.move.to_platform(),
                "candidates": [{"move": c.move.to_platform(), "value": c.value, "n": c.n,
                                "stderr": c.stderr, "chosen": c.chosen} for c in self.candidates],
                "legal": self.legal, "worlds": self.worlds, "rollouts": self.rollouts,
                "solved": self.solved, "solve_fail": self.solve_fail, "seconds": self.seconds,
                "weighed": self.weighed, "ess": self.ess, "evidence": self.evidence,
                "rollout_policies": list(self.rollout_policies), "uniform": self.uniform}


# -- functions over a Game ---------------------------------------------------------

def _solve_threads(cards: int, max_nodes: int) -> int:
    """The solver's default thread count: the processors this process may
    use (at most 4) for a position of more than 16 cards without a node
    limit, else 1. Answers are the same for any count; a node-limited solve
    stays on one thread so its bounds are reproducible, and a small one is
    done before threads would pay for themselves."""
    if max_nodes or cards <= 16:
        return 1
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        n = os.cpu_count() or 1
    return max(1, min(4, n))


_NO_LOCK = contextlib.nullcontext()     # for a non-Game argument, refused by _check_game


def _check_game(game: Any, what: str) -> Game:
    if not isinstance(game, Game):
        raise GuandanError(f"{what} takes a guandan.Game, got {type(game).__name__}")
    if game.phase is not Phase.PLAY:
        raise GuandanError(f"{what} works in the play phase, not the {game.phase} phase")
    return game


def info_set(game: Game, seat: int) -> Any:
    """The native information set of what ``seat`` knows in ``game`` (play
    phase): its own hand, every seat's card count, this round's plays and
    who made them, this round's tribute and return cards. Worlds are
    sampled from it; see :mod:`guandan._search` for the constraints."""
    seat = check_int(seat, "seat", 0, 3)
    with game.lock if isinstance(game, Game) else _NO_LOCK:
        _check_game(game, "an information set")
        return _search.InfoSet.from_state(game.native_state(), seat, game.round_plays())


def sample_worlds(game: Game, seat: int, n: int, seed: int = 0) -> List[Game]:
    """``n`` full positions (play phase) consistent with what ``seat``
    knows: its own hand, every seat's card count, the cards played this
    round (and by whom) and this round's tribute and return cards. The
    other hands are dealt from the unseen cards, every physical deal (the
    two copies of a card told apart) that meets the constraints equally
    likely; see :mod:`guandan._search` for the constraints and the
    weighting. Deterministic for ``seed``.

    Each world is a game started at that position, as
    :meth:`guandan.Game.from_position` builds it (no history before it; its
    trick is this game's trick).

    >>> g = Game(seed=1)
    >>> for _ in range(30): _ = g.play_policy("greedy")
    >>> w = sample_worlds(g, g.to_act, 2, seed=5)
    >>> [x.card_counts == g.card_counts for x in w], w[0].hands[g.to_act] == g.hands[g.to_act]
    ([True, True], True)
    """
    seat = check_int(seat, "seat", 0, 3)
    n = check_int(n, "n", 0, 1_000_000)
    seed = check_seed(seed)
    with game.lock if isinstance(game, Game) else _NO_LOCK:   # one snapshot of the game
        _check_game(game, "sample_worlds")
        hands = info_set(game, seat).sample_hands(n, seed)
        base = game.native_state()
        trick = tuple(game.trick)
    out = []
    for i in range(n):
        wseed = game_seed(seed, i)
        st = _search.position_state(base, [(int(hands[i, s, 0]), int(hands[i, s, 1])) for s in range(4)],
                                    wseed)
        out.append(Game.from_native_state(st, wseed, rules=game.rules, trick=trick))
    return out


def rollouts(game: Game, policy: str = "greedy", n: int = 100, seed: int = 0, *,
             seat: Optional[int] = None) -> RolloutResult:
    """Play the current round to its end ``n`` times with the native policy
    ``policy`` at every seat (GIL released) and return the results as a
    :class:`RolloutResult` (finishing orders, level points per team, team-0
    values). With ``seat``, every rollout starts from a new world sampled
    for that seat (:func:`sample_worlds`), else from this position as it
    is. The policies' random stream is seeded with ``seed``."""
    code = rollout_code(policy)
    n = check_int(n, "n", 0, 100_000_000)
    seed = check_seed(seed)
    t = time.perf_counter()
    if seat is None:
        with game.lock if isinstance(game, Game) else _NO_LOCK:
            _check_game(game, "rollouts")
            state = game.native_state()
        orders, values = _search.rollouts_from_state(state, code, n, seed)
    else:
        orders, values = info_set(game, seat).rollouts(code, n, seed)
    return RolloutResult(orders, values, time.perf_counter() - t, policy)


def solve(game: Game, max_nodes: Optional[int] = None, time_limit: Optional[float] = None, *,
          per_move: bool = False, tt_bits: Optional[int] = None,
          threads: Optional[int] = None) -> SolveResult:
    """The exact value of the current round with all four hands known.

    Minimax over the two teams: seats 0 and 2 maximize the team-0 value,
    seats 1 and 3 minimize it. The value of a finished round is the level
    points of the banker's team - +3 when the banker's partner finished
    second, +2 third, +1 last - as +v when the banker is in team 0 and -v
    otherwise (never 0). Once a team's first player is out the rest of the
    order still matters (the partner's place). The level cap at A and the
    game win at A are not part of the value. The rules are the engine's own
    (``st_legal`` / ``st_apply``: passes, the end of a trick, 接风 when a
    player goes out and the others pass).

    ``max_nodes`` / ``time_limit`` (seconds) stop the search; the result
    then holds the bounds proven so far (``exact`` False). No limit by
    default: positions with at most 5 cards per hand take milliseconds, 6
    per hand typically well under a second (see ``docs/search.md``).
    ``per_move`` also solves every legal move (the limits cover the whole
    call). ``tt_bits``: the transposition table holds ``2**tt_bits`` 16-byte
    entries (default: 2**12 .. 2**21 by the number of cards).

    ``threads`` (1..8): threads that search the root's moves together, on
    one table (they split the tree of one root move at a time). The value,
    the bounds and the best move of a solve that finishes are the same for
    any number (the best move is the first in the solver's fixed order that
    reaches the value); only the nodes searched differ, and with a limit the
    bounds reached in time. Default: the processors this process may use
    (at most 4) for more than 16 cards without ``max_nodes``, else 1.
    """
    mn = 0 if max_nodes is None else check_int(max_nodes, "max_nodes", 1, 1 << 62)
    if time_limit is not None and not (isinstance(time_limit, (int, float)) and time_limit > 0):
        raise GuandanError(f"time_limit must be a positive number of seconds, got {time_limit!r}")
    with game.lock if isinstance(game, Game) else _NO_LOCK:   # one snapshot of the game
        _check_game(game, "solve")
        state, cards, lv = game.native_state(), sum(game.card_counts), game.level_index
    if tt_bits is None:
        # a table to the size of the problem (a big one costs its
        # allocation); from 6 cards a hand the hardest positions take
        # millions of nodes, and 2**21 entries spare them about 10%
        tt_bits = 21 if cards >= 24 else min(20, max(12, 8 + cards // 2))
    tt_bits = check_int(tt_bits, "tt_bits", 4, 30)
    if threads is None:
        threads = _solve_threads(cards, mn)
    threads = check_int(threads, "threads", 1, 8)
    r = _solve.solve(state, _solve.SolveOptions(
        max_nodes=mn, time_limit=float(time_limit or 0.0), tt_bits=tt_bits, per_move=per_move,
        threads=threads))
    best = None if r["best"] is None else Move._from_native(r["best"][0], r["best"][1], lv)
    moves = None
    if per_move:
        moves = [(Move._from_native(lo, hi, lv), vlo, vhi) for lo, hi, vlo, vhi in r["moves"]]
    return SolveResult(r["lo"], r["hi"], best, r["nodes"], r["seconds"], r["aborted"], moves)


def explain(game: Game, config: Optional[SearchConfig] = None, *, compare: bool = False,
            **options: Any) -> SearchResult:
    """One decision of the determinized Monte-Carlo search for the seat to
    act, from what that seat knows, with every candidate's estimated value
    (mean level points of the seat's team) and number of samples.
    ``config``: a :class:`SearchConfig` (or give its fields as keywords:
    ``rollouts``, ``ms``, ``k``, ``rollout``, ``solve``, ``nodes``, ``tt``,
    ``seed``). Without a ``seed`` the decision's seed comes from the game's
    seed and the number of actions so far, so a replayed game makes the
    same decisions. Tribute and return: the rollout policy's choice.
    ``compare``: also search the same worlds' seeds with uniform worlds
    (``keep=0, infer=0``) and keep each candidate's value so (``uniform``):
    how much the tilt and the inference moved the values."""
    cfg = config if config is not None else SearchConfig(**options)
    if config is not None and options:
        cfg = cfg.replace(**options)
    if not isinstance(cfg, SearchConfig):
        raise GuandanError("config must be a guandan.search.SearchConfig")
    if not isinstance(game, Game):
        raise GuandanError(f"the search takes a guandan.Game, got {type(game).__name__}")
    with game.lock:                                   # one snapshot of the game
        if game.is_over:
            raise GuandanError("the game is over")
        if game.phase is not Phase.PLAY:
            # tribute and return: the rollout policy's choice
            return SearchResult.forced(game.native_choice(cfg.rollout_code()), game.to_act,
                                       f"{'tribute' if game.phase is Phase.TRIBUTE else 'return'}: "
                                       f"the rollout policy's ({cfg.rollout}) choice")
        seat = game.to_act
        seed = cfg.seed if cfg.seed is not None else game_seed(game.seed, game.decisions)
        info = info_set(game, seat)
        level = game.level_index
        core = game.native_state(history=True)
    raw = info.search(cfg.native, seed, core)
    res = SearchResult.from_native(raw, seat, level, cfg)
    if compare and res.candidates and res.candidates[0].n:
        plain = info.search(cfg.replace(infer=0, keep=0.0).native, seed, core)
        by_index = {i: (plain["sum"][c] / plain["cnt"][c] if plain["cnt"][c] else float("nan"))
                    for c, i in enumerate(plain["cand"])}
        moves = raw["moves"]
        idx = [next(j for j, w in enumerate(moves) if w == (c.move.words)) for c in res.candidates]
        res = _dc_replace(res, uniform=[by_index.get(i, float("nan")) for i in idx])
    return res


def choose(game: Game, config: Optional[SearchConfig] = None, **options: Any) -> Move:
    """The search's move for the seat to act (see :func:`explain`)."""
    return explain(game, config, **options).move


# -- the search as a policy over observations -------------------------------------

def info_from_observation(obs: Dict[str, Any], rules: Any = None) -> Any:
    """The native information set of an observation (play phase): what
    :class:`SearchPolicy` samples worlds from. The observation's history
    must be this round's complete history (not so in a game started from a
    position after some plays: use :func:`guandan.search.sample_worlds`).
    The rules are the observation's (:func:`guandan.rules.rules_of`; for an
    observation without them, ``rules``, else the default rules)."""
    return _info_of_observation(obs, rules)[0]


def _info_of_observation(obs: Dict[str, Any], rules: Any) -> Tuple[Any, Any]:
    """The information set of an observation and the native view it was read
    from (with this round's record: its plays, tribute and trail)."""
    r = rules_of(obs, rules)
    if obs.get("phase") != "play":
        raise GuandanError("worlds are sampled in the play phase")
    try:
        view = observation_view(obs, r, record=True)
        return _search.InfoSet.from_view(view), view
    except GuandanError as e:
        raise GuandanError(f"{e} (is the observation's history this round's complete history?)") from None


class SearchPolicy:
    """The search as a policy callable ``(observation, legal_moves) -> move``
    (for :class:`guandan.bots.Bot`, the network client, Python loops). It
    decides from the observation alone, tribute knowledge included; its own
    seeded stream gives every decision's seed, so the same seed and the same
    observations give the same moves. It samples and rolls out under the
    observation's rules (``rules`` for observations without them, else the
    default rules). Tribute and return: the rollout policy's choice."""

    name = "search"

    def __init__(self, seed: Optional[int] = None, config: Optional[SearchConfig] = None,
                 rules: Any = None, **options: Any) -> None:
        self.config = config if config is not None else SearchConfig(**options)
        if config is not None and options:
            self.config = self.config.replace(**options)
        self.rules = None if rules is None else resolve_rules(rules)
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self.last: Optional[SearchResult] = None

    def decide(self, game: Game) -> Move:
        """The search's move for the seat to act in ``game``, from
        everything that seat knows (the tribute of the round included) and
        under the game's rules (:func:`choose`; the decision's seed from the
        config, else from the game)."""
        return self.explain(game).move

    def explain(self, game_or_observation: Any, legal_moves: Any = None) -> SearchResult:
        """The decision with its candidates' values (also kept as
        ``last``): for a :class:`guandan.Game`, :func:`explain` with this
        policy's config; for an observation, from the observation alone,
        seeded from this policy's stream."""
        if isinstance(game_or_observation, Game):
            res = explain(game_or_observation, self.config)
            self.last = res
            return res
        observation = game_or_observation
        with self._lock:
            seed = self._rng.getrandbits(64) if self.config.seed is None else self.config.seed
        info, view = _info_of_observation(observation, self.rules)
        raw = info.search(self.config.native, seed, None, view)
        res = SearchResult.from_native(raw, int(observation["seat"]),
                                       _core.level_index(observation["level"]), self.config)
        self.last = res
        return res

    def __call__(self, observation: Dict[str, Any], legal_moves: Any) -> Any:
        if len(legal_moves) == 0:
            raise GuandanError("no legal move to choose from")
        if len(legal_moves) == 1:
            return legal_moves[0]
        if observation.get("phase") != "play":     # tribute / return: the rollout policy's choice
            with self._lock:
                seed = self._rng.getrandbits(64)
            return NativePolicy(self.config.rollout, seed, rules=self.rules)(observation, legal_moves)
        res = self.explain(observation, legal_moves)
        want = res.move.words
        for m in legal_moves:
            if m.words == want:
                return m
        raise GuandanError(f"the search chose {res.move}, which is not among the legal moves given")


# -- native registration (simulate, VecGame, GameCore.pick) -----------------------

_CODES: Dict["SearchConfig", int] = {}
_CODES_LOCK = threading.Lock()


def native_search_code(spec: str) -> int:
    """The native policy code of a ``"search:..."`` spec, registering the
    search with that configuration as a native policy (its context the
    configuration) the first time; equal configurations share one code.
    Native callers (:func:`guandan.simulate`) decide from the
    policy View - own hand, counts, cards played, trick, levels, the game's
    rules, this round's tribute and who played what (recorded by the native
    state for a round it saw whole). A
    ``seed`` option is ignored there: the simulator's policy stream seeds
    every decision."""
    name, opts = parse_policy(spec)
    if name != "search":
        raise GuandanError(f"not a search policy: {spec!r}")
    cfg = SearchConfig.from_options(dict(opts)).replace(seed=None)
    with _CODES_LOCK:
        code = _CODES.get(cfg)
        if code is None:
            code = _CODES[cfg] = cfg.native.register()
        return code


def _search_policy(seed: Optional[int] = None, **options: str) -> SearchPolicy:
    return SearchPolicy(seed, SearchConfig.from_options(options))


def _search_native(options: Dict[str, str]) -> int:
    return native_search_code(":".join(["search", ",".join(f"{k}={v}" for k, v in options.items())]))


register("search", _search_policy, native=_search_native, options=True,
         usage="search:rollouts=N|ms=MS|cpu_ms=MS[,k=N,rollout=POLICY,...]")
