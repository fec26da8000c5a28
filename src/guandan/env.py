"""A PettingZoo AEC environment for Guandan: :func:`env` (wrapped) and
:class:`raw_env` (= :class:`GuandanEnv`). Needs ``pettingzoo`` and
``gymnasium`` (not dependencies of the engine itself).

>>> import numpy as np
>>> from guandan.env import env
>>> e = env(unit="deal")
>>> e.reset(seed=0)
>>> e.agents, e.agent_selection
(['player_0', 'player_1', 'player_2', 'player_3'], 'player_1')
>>> obs, reward, terminated, truncated, info = e.last()
>>> obs["observation"].shape, obs["action_mask"].shape, int(obs["action_mask"].sum()) == len(info["legal_moves"])
((227,), (32768,), True)
>>> info["action_features"].shape[1]
68
>>> e.step(int(np.flatnonzero(obs["action_mask"])[-1]))      # the last legal move
>>> rng = np.random.default_rng(0)
>>> for agent in e.agent_iter():                              # random masked play to the round's end
...     obs, reward, terminated, truncated, info = e.last()
...     e.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
>>> g = e.unwrapped.game
>>> g.round_index, len(g.last_round_order)
(1, 4)
>>> e.reset()                        # unit="deal": the next round of the same game (tribute first)
>>> e.unwrapped.game.round_index
1

Agents ``player_0`` .. ``player_3`` are seats 0..3; team 0 = seats 0 & 2,
team 1 = seats 1 & 3. Play is turn based; :attr:`agent_selection` is the seat
to act (:attr:`guandan.Game.to_act`).

**Options** (keyword arguments of :func:`env` / :class:`raw_env`):

- ``unit``: ``"deal"`` (default; an episode is one round) or ``"game"`` (an
  episode is a whole game, level 2 until a team passes A).
- ``rules``: a :class:`guandan.Rules` (or a preset name); default rules if
  ``None``.
- ``max_actions``: size of the discrete action space (default 32768).
- ``render_mode``: ``None``, ``"ansi"`` or ``"human"``.

**Episodes and seeds.** ``reset(seed=s)`` starts a new :class:`guandan.Game`
whose deal seed is ``guandan.seeds.game_seed(s, 0)``; later new games of the
same environment use ``game_seed(s, 1)``, ``game_seed(s, 2)`` ... — exactly
the games of ``VecGame(1, seed=s, unit=...)``, so the environment and the
batched :class:`guandan.VecGame` produce identical trajectories from the same
seed and actions. ``reset()`` without a seed continues that sequence (with an
internal random base seed on the first reset). With ``unit="deal"``, a
``reset()`` without a seed after a round ended normally **continues the same
game with its next round** (levels carried, tribute and return phases
included), as ``VecGame`` does; otherwise (a seed given, the game over, the
previous episode cut short, or ``options={"new_game": True}``) a new game
starts at level 2. Same seed + same actions -> same observations.

**Actions.** ``Discrete(max_actions)``: action ``i`` is ``legal_moves()[i]``
of the game, i.e. the *full* legal list of the seat to act, in the move
generator's order (the contest platform's type order, the pass first when
following; ``Game.legal_moves(order="contest")`` is the platform's exact
``actionList`` order, see docs/protocol.md; in the tribute and return
phases, the tribute / return-card choices). The list is
exact: every distinct (type, key rank, card multiset) is one action, suit
choices and readings of the wild cards included, the same as the contest
server's ``actionList``, so no move is ever out of reach of a policy. Typical
lists are hundreds of moves (mean ~750 leading; ~2,300 with both wilds); the
largest observed in the project's searches is about 17,000 (both wilds plus
all four suits of 4..9: 17,070 moves), so the default ``max_actions = 32768``
(2**15, about twice that) is never exceeded in practice; a longer list raises
:class:`GuandanError` rather than silently truncating the action set.
An action that is masked out (``>= len(legal_moves)``, negative, not an
integer, or ``None`` for a live agent) raises :class:`GuandanError` and
leaves the state unchanged. That is why :func:`env` does *not* use
PettingZoo's ``TerminateIllegalWrapper``: it would end the episode with a -1
for the offender and 0 for everyone else, breaking the team-shared, zero-sum
rewards, and hide a learner's masking bug; nor ``AssertOutOfBoundsWrapper``,
whose check the environment's own (stricter) check subsumes with a clear
error. Only ``OrderEnforcingWrapper`` is applied.

**Observations** (``observe(agent)``): a dict

- ``"observation"``: ``Box(0, 108, (227,), float32)`` from ``agent``'s point
  of view, the layout of :class:`guandan.VecGame` (for the agent to act it
  equals ``VecGame.observe()["obs"]`` of the same state):

  =========  ================================================================
  0..53      own hand: count of each face (face = rank*4 + suit, 52 SB, 53 HR)
  54..57     card counts of the seats, starting with the agent, in turn order
  58..111    the play to beat: its cards (zeros when leading / not in play)
  112..124   its type (one-hot over MoveType values), 125: its key
  126..129   who played it, relative to the agent (one-hot)
  130..142   round level (one-hot, 2..A); 143..155 own team level; 156..168
             opponents' level
  169..172   phase (tribute, back, play, over)
  173..226   cards played so far this round (public; tribute and return cards
             are not plays and are not counted)
  =========  ================================================================

- ``"action_mask"``: ``Box(0, 1, (max_actions,), int8)``, 1 on the first
  ``len(legal_moves)`` entries for the agent to act, all zeros for the others
  (and once the episode is over).

``infos[agent]`` of the agent to act carries ``"legal_moves"`` (a
:class:`LegalMoves`: the engine's :class:`guandan.MoveList`, indexable like
it, with value equality so that PettingZoo's determinism checks can compare
infos; the list itself is ``.moves``) and ``"action_features"``
(:func:`guandan.move_features` of the legal moves, ``(m, 68)`` float32, for
DouZero / DanZero-style agents that score each candidate move). Other agents'
infos are empty; when an episode ends every agent's info holds
``"round_order"`` (the finishing order) and ``"team_levels"``. The final
observations of a ``unit="deal"`` episode show the engine's state after the
round, which is already the next round's deal (as in ``VecGame``); use the
rewards and infos, not that observation, for the round's outcome.

**Rewards** (team rewards: partners share, teams zero-sum): when a round
ends, the banker's team gets the number of levels it went up (1..3; 4 when
the round wins the game; 0 when a team at A stays at A), the other team the
negative — the rewards of :class:`guandan.VecGame`. With ``unit="game"``
every round's reward is paid as the round ends (the return of an episode is
the sum). If ``rules.max_rounds`` stops a game, the last round pays 4 to the
banker's team if that team is ahead on levels (it wins), 0 if the levels are
equal (no winner), else its level gain. Rewards use the standard AEC
``rewards`` / ``_cumulative_rewards`` mechanics.

**Termination and truncation.** ``unit="deal"``: all agents terminate when
the round ends. ``unit="game"``: all agents terminate when the game is won.
There is no truncation (no step limit: a round always ends, and a game ends
when a team wins at A) except that a game stopped by ``rules.max_rounds`` (in ``unit="game"``)
truncates all agents instead of terminating them.
"""

from __future__ import annotations

import operator
import random as _random
from collections.abc import Sequence as _SequenceABC
from typing import Any, Dict, List, Optional, Union

import numpy as np

try:
    from gymnasium import spaces
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
except ImportError as _e:          # an optional extra
    from .errors import GuandanError as _GE
    raise _GE(f"guandan.env needs PettingZoo and Gymnasium: pip install '.[rl]' in the guandan "
              f"folder (a clone of the repository; {_e})") from None

from .errors import GuandanError
from .game import Game
from .rules import Rules, resolve_rules
from .seeds import game_seed
from .vec import OBS_DIM, move_features

__all__ = ["env", "raw_env", "GuandanEnv", "LegalMoves", "DEFAULT_MAX_ACTIONS"]

DEFAULT_MAX_ACTIONS = 32768
_TAG = 56
_PLAY = 2
_A = 12                      # level index of A
_U64 = (1 << 64) - 1


class LegalMoves:
    """The legal moves of the agent to act: a read-only view of the engine's
    :class:`guandan.MoveList` (``.moves``) — ``len``, indexing, iteration,
    ``to_numpy``, ``raw``, ``find``, ``index_of``, ``to_platform``, ``level``
    — that compares by value (level and move words)."""

    __slots__ = ("moves", "words")

    def __init__(self, moves: Any) -> None:
        self.moves = moves
        self.words = moves.to_numpy()

    def __len__(self) -> int:
        return len(self.moves)

    def __getitem__(self, i: Any) -> Any:
        return self.moves[i]

    def __iter__(self) -> Any:
        return iter(self.moves)

    def __reversed__(self) -> Any:
        return reversed(self.moves)

    def __contains__(self, move: Any) -> bool:
        return self.moves.index_of(move) >= 0

    def index(self, move: Any, *args: Any) -> int:
        return self.moves.index(move, *args)

    def count(self, move: Any) -> int:
        return self.moves.count(move)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.moves, name)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LegalMoves):
            return NotImplemented
        return self.moves.level == other.moves.level and np.array_equal(self.words, other.words)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<LegalMoves {len(self)} at level {self.moves.level}>"


_SequenceABC.register(LegalMoves)


def env(**kwargs: Any) -> AECEnv:
    """The Guandan AEC environment with PettingZoo's ``OrderEnforcingWrapper``
    (see the module docstring for why no illegal-action wrapper)."""
    e: AECEnv = raw_env(**kwargs)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


class GuandanEnv(AECEnv):
    """Guandan as a PettingZoo AEC environment (see :mod:`guandan.env`)."""

    metadata: Dict[str, Any] = {"name": "guandan_v0", "render_modes": ["human", "ansi"], "is_parallelizable": False}

    def __init__(self, unit: str = "deal", rules: Union[Rules, str, None] = None,
                 max_actions: int = DEFAULT_MAX_ACTIONS, render_mode: Optional[str] = None) -> None:
        super().__init__()
        if unit not in ("deal", "game"):
            raise GuandanError(f"unit must be 'deal' or 'game', got {unit!r}")
        if isinstance(rules, str):
            rules = Rules.named(rules)
        if isinstance(max_actions, bool) or not isinstance(max_actions, (int, np.integer)) or max_actions < 1:
            raise GuandanError(f"max_actions must be a positive int, got {max_actions!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise GuandanError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.unit = unit
        self.rules = resolve_rules(rules)
        self.max_actions = int(max_actions)
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(4)]
        self.agents: List[str] = []
        self.observation_spaces = {
            a: spaces.Dict({
                "observation": spaces.Box(0.0, 108.0, (OBS_DIM,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (self.max_actions,), dtype=np.int8),
            }) for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.max_actions) for a in self.possible_agents}
        self.game: Optional[Game] = None
        self._seed_base: Optional[int] = None
        self._games_started = 0
        self._round_done = False          # the last episode ended with a finished round
        self._legal: Optional[LegalMoves] = None

    # -- spaces -----------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # -- episodes ---------------------------------------------------------------
    def _new_game(self) -> None:
        if self._seed_base is None:
            self._seed_base = _random.SystemRandom().getrandbits(64)
        seed = game_seed(self._seed_base, self._games_started)
        self._games_started += 1
        self.game = Game(rules=self.rules, seed=seed)

    def reset(self, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None) -> None:
        options = options or {}
        if seed is not None:
            try:
                s = operator.index(seed)
            except TypeError:
                raise GuandanError(f"seed must be an int, got {seed!r}") from None
            self._seed_base = s & _U64
            self._games_started = 0
            self._new_game()
        elif (self.unit == "deal" and not options.get("new_game") and self.game is not None
              and self._round_done and not self.game.is_over):
            pass                            # the next round of the same game
        else:
            self._new_game()
        self._round_done = False
        self.agents = self.possible_agents[:]
        self.rewards: Dict[str, float] = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self._skip_agent_selection = None
        self._refresh()

    def _refresh(self) -> None:
        """The legal moves, infos and agent selection of the state to act."""
        g = self.game
        assert g is not None
        moves = g.legal_moves()
        if len(moves) > self.max_actions:
            raise GuandanError(f"{len(moves)} legal moves exceed max_actions={self.max_actions}")
        self._legal = LegalMoves(moves)
        self.infos: Dict[str, Dict[str, Any]] = {a: {} for a in self.agents}
        agent = self.possible_agents[g.to_act]
        self.infos[agent] = {"legal_moves": self._legal,
                             "action_features": move_features(self._legal.words)}
        self.agent_selection = agent

    # -- acting -----------------------------------------------------------------
    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        legal = self._legal
        g = self.game
        assert legal is not None and g is not None
        if action is None:
            raise GuandanError(f"{agent} is to act: None is only valid for a finished agent")
        try:
            a = operator.index(action)
        except TypeError:
            raise GuandanError(f"an action is an int index into the legal moves, got {action!r}") from None
        if not 0 <= a < len(legal):
            raise GuandanError(f"action {a} is masked out: {agent} has {len(legal)} legal moves")
        round0 = g.round_index
        g.play(legal[a])
        self._cumulative_rewards[agent] = 0
        self._clear_rewards()
        done = False
        if g.round_index != round0 or g.is_over:
            res = g.last_round
            assert res is not None
            order = res.order
            for i, a_ in enumerate(self.possible_agents):
                self.rewards[a_] = float(res.reward if (i & 1) == res.banker_team else -res.reward)
            over = g.is_over
            if self.unit == "deal" or over:
                done = True
                self._round_done = True
                if self.unit == "game" and not res.won_at_a:
                    self.truncations = {a_: True for a_ in self.agents}    # stopped by max_rounds
                else:
                    self.terminations = {a_: True for a_ in self.agents}
        self._accumulate_rewards()
        if done:
            self._legal = None
            end = {"round_order": list(order), "team_levels": list(g.team_levels)}
            self.infos = {a_: dict(end) for a_ in self.agents}
            self.agent_selection = self.possible_agents[(self.possible_agents.index(agent) + 1) % 4]
        else:
            self._refresh()
        if self.render_mode == "human":
            self.render()

    # -- observing --------------------------------------------------------------
    def observe(self, agent: str) -> Dict[str, np.ndarray]:
        seat = self.possible_agents.index(agent)
        g = self.game
        assert g is not None
        o = g.observation_tensor(seat)
        mask = np.zeros(self.max_actions, dtype=np.int8)
        if (self._legal is not None and agent == self.agent_selection and agent in self.terminations
                and not (self.terminations[agent] or self.truncations[agent])):
            mask[:len(self._legal)] = 1
        return {"observation": o, "action_mask": mask}

    def render(self) -> Optional[str]:
        if self.render_mode is None:
            import gymnasium
            gymnasium.logger.warn("render() called without a render_mode; use render_mode='ansi' or 'human'")
            return None
        text = self._text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def _text(self) -> str:
        g = self.game
        if g is None:
            return "guandan: not reset"
        lv = g.level
        tl = g.team_levels
        live = bool(self.agents) and not any(self.terminations.values()) and not any(self.truncations.values())
        lines = [f"guandan round {g.round_index + 1}  level {g.level}  team levels {tl[0]} (0&2) {tl[1]} (1&3)"
                 f"  phase {g.phase}" + (f"  to act: {self.agent_selection}" if live else "  (episode over)")]
        for s in range(4):
            mark = "*" if live and s == g.to_act else " "
            hand = g.hands[s]
            lines.append(f"{mark} player_{s} team {s & 1}  {len(hand):2d} | {' '.join(hand.cards(lv)) or '-'}")
        top = g.top
        if top is not None:
            lines.append(f"  to beat: {top.move} by player_{top.seat} ({g.passes} passes since)")
        trick = g.trick
        if trick:
            lines.append("  trick: " + ", ".join(f"{s}:{m}" for s, m in trick))
        if g.finish_order:
            lines.append("  out: " + " ".join(f"player_{s}" for s in g.finish_order))
        if self._legal is not None and live:
            lines.append(f"  legal moves: {len(self._legal)}")
        return "\n".join(lines)

    def close(self) -> None:
        self._legal = None


raw_env = GuandanEnv
