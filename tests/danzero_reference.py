"""A plain-Python reference of DanZero's encoding (docs/rl-encoding.md),
computed from this engine's ``Game.observation(seat)`` dict.

``encode(observation, legal_moves)`` returns ``(state, actions)``:
``state`` is ``(len(legal_moves), STATE_DIM)`` float32 (the same row
repeated), ``actions`` ``(len(legal_moves), ACTION_DIM)`` float32; a
DanZero network reads ``np.hstack((state, actions))`` (555 columns).
Written for clarity, not speed: the native encoder is checked against it.
"""

from typing import Any, Dict, List, Sequence, Tuple, Union

import numpy as np

RANKS = "23456789TJQKA"
SUITS = "HSCD"                      # DanZero's suit order inside a rank
ACTION_DIM = 54
CARDS_LEFT_DIM = 28                 # one-hot of a count 0..27
LEVEL_DIM = 13                      # one-hot of a rank 2..A

# (name, offset, length) of the state fields, in order.
FIELDS: Tuple[Tuple[str, int, int], ...] = ()
_off = 0
for _name, _len in (("hand", 54), ("others_cards", 54), ("last_entry", 54), ("mate_last_entry", 54),
                    ("down_played", 54), ("mate_played", 54), ("up_played", 54),
                    ("down_left", CARDS_LEFT_DIM), ("mate_left", CARDS_LEFT_DIM),
                    ("up_left", CARDS_LEFT_DIM), ("own_level", LEVEL_DIM),
                    ("opp_level", LEVEL_DIM), ("round_level", LEVEL_DIM)):
    FIELDS += ((_name, _off, _len),)
    _off += _len
STATE_DIM = _off                    # 501
OFFSET = {name: (off, off + n) for name, off, n in FIELDS}

OUT = "out"                         # placeholder entry for a seat that has gone out
Entry = Union[str, List[str]]       # OUT, or a list of card strings ([] = pass / skipped)


def card_index(card: str) -> int:
    """Position of a card string (``"H2"``, ``"SB"``, ``"HR"``) in DanZero's
    54-card vector: ``4 * rank + suit`` with ranks 2..A and suits H, S, C, D;
    52 the small joker, 53 the big joker.

    >>> [card_index(c) for c in ("H2", "S2", "D2", "H3", "DA", "SB", "HR")]
    [0, 1, 3, 4, 51, 52, 53]
    """
    if card == "SB":
        return 52
    if card == "HR":
        return 53
    if len(card) != 2 or card[0] not in SUITS or card[1] not in RANKS:
        raise ValueError(f"not a card: {card!r}")
    return 4 * RANKS.index(card[1]) + SUITS.index(card[0])


def counts(cards: Sequence[str]) -> np.ndarray:
    """The 54-entry count vector of a list of card strings."""
    v = np.zeros(54, dtype=np.int8)
    for c in cards:
        v[card_index(c)] += 1
    return v


def entry_vector(entry: Entry) -> np.ndarray:
    """An entry of the action sequence as DanZero encodes it: all -1 for the
    placeholder of a seat that is out, else the count vector."""
    if entry == OUT:
        return np.full(54, -1, dtype=np.int8)
    return counts(entry)


def _cards_of(action: Any) -> List[str]:
    """Card strings of a Move or platform triple (``[]`` for the pass)."""
    triple = action.to_platform() if hasattr(action, "to_platform") else action
    cards = triple[2]
    return [] if isinstance(cards, str) or cards is None else list(cards)


class ActionSequence:
    """DanZero's per-round bookkeeping of plays: one sequence of entries in
    turn order (and one list per seat), with placeholders for the turns of
    seats that have gone out and empty entries for seats skipped when the
    lead passes to the partner of a seat that went out.

    ``stage``: 0 before the observing seat's first turn, 1 while the first
    responses after the first seat out are not settled (or nobody is out),
    2 once they are, 3 once the first responses after the second seat out
    are settled (docs/rl-encoding.md, "The action sequence")."""

    def __init__(self, seat: int, cards_left: Sequence[int], finished: Sequence[int] = ()):
        self.seat = seat
        self.left = list(cards_left)
        self.out: List[int] = list(finished)
        self.stage = {0: 0, 1: 2}.get(len(self.out), 3)
        self.entries: List[Tuple[int, Entry]] = []
        self.by_seat: Dict[int, List[Entry]] = {s: [] for s in range(4)}

    def _add(self, s: int, entry: Entry) -> None:
        self.entries.append((s, entry))
        self.by_seat[s].append(entry)

    def feed(self, s: int, cards: List[str]) -> None:
        """Record seat ``s`` playing ``cards`` (``[]``: a pass)."""
        if s == self.seat and self.stage == 0:
            self.stage = 1                   # the seat's first decision precedes its play
        played = len(cards) > 0
        out = self.out
        if not out:
            self._add(s, cards)
        elif len(out) == 1:
            first = out[0]
            before_first = (first + 3) % 4
            if self.stage == 1 and played:
                self.stage = 2
                self._add(s, cards)
                if s == before_first:
                    self._add(first, OUT)
            elif self.stage == 1 and s == before_first:
                # everybody passed on the last play of the seat that went out:
                # its partner leads, the seat after it is skipped
                self.stage = 2
                self._add(s, cards)
                self._add(first, OUT)
                self._add((s + 2) % 4, [])
            elif self.stage == 2 and s == before_first:
                self._add(s, cards)
                self._add(first, OUT)
            else:
                self._add(s, cards)
        elif len(out) == 2:
            nxt, nxt2 = (s + 1) % 4, (s + 2) % 4
            if self.stage <= 2 and played:
                self.stage = 3
                self._add(s, cards)
                if nxt in out:
                    self._add(nxt, OUT)
                    self._add(nxt2, OUT)
            elif self.stage <= 2 and nxt in out:
                # both seats left passed on the second seat's last play
                self.stage = 3
                self._add(s, cards)
                self._add(nxt, OUT)
                self._add(nxt2, OUT)
                if s == (out[-1] + 2) % 4:
                    self._add((s + 3) % 4, [])
            elif self.stage == 3 and nxt in out:
                self._add(s, cards)
                self._add(nxt, OUT)
                self._add(nxt2, OUT)
            else:
                self._add(s, cards)
        # with three seats out the round is over: nothing is recorded
        self.left[s] -= len(cards)
        if self.left[s] == 0:
            out.append(s)


def plays_seen(observation: Dict[str, Any]) -> List[Tuple[int, List[str]]]:
    """The plays of the round the seat has seen, oldest first: the entries of
    a position's initial trick that ``history`` does not hold, then
    ``history``; each as ``(seat, cards)``."""
    history = observation["history"]
    trick = observation["trick"]
    older = trick[:len(trick) - len(history)] if len(trick) > len(history) else []
    return [(s, _cards_of(t)) for s, t in list(older) + list(history)]


def sequence_of(observation: Dict[str, Any]) -> ActionSequence:
    """Replay the observation's plays through DanZero's bookkeeping."""
    seen = plays_seen(observation)
    left = list(observation["card_counts"])
    for s, cards in seen:
        left[s] += len(cards)
    already = [s for s in observation["finish_order"] if left[s] == 0]
    seq = ActionSequence(observation["seat"], left, already)
    for s, cards in seen:
        seq.feed(s, cards)
    return seq


def _one_hot(n: int, index: int) -> np.ndarray:
    v = np.zeros(n, dtype=np.int8)
    v[index] = 1
    return v


def state_vector(observation: Dict[str, Any]) -> np.ndarray:
    """The 501-entry state vector of the observing seat (int8)."""
    seat = observation["seat"]
    down, mate, up = (seat + 1) % 4, (seat + 2) % 4, (seat + 3) % 4
    seq = sequence_of(observation)
    hand = counts(observation["hand"])
    played = {s: counts([c for e in seq.by_seat[s] if e != OUT for c in e]) for s in range(4)}
    all_played = sum(played.values())
    others = 2 - hand - all_played
    last = entry_vector(seq.entries[-1][1]) if seq.entries else np.zeros(54, np.int8)
    mate_list = seq.by_seat[mate]
    mate_last = entry_vector(mate_list[-1]) if mate_list else np.zeros(54, np.int8)
    left = observation["card_counts"]
    team = observation["my_team"]
    levels = observation["team_levels"]
    parts = [hand, others, last, mate_last, played[down], played[mate], played[up],
             _one_hot(CARDS_LEFT_DIM, left[down]), _one_hot(CARDS_LEFT_DIM, left[mate]),
             _one_hot(CARDS_LEFT_DIM, left[up]),
             _one_hot(LEVEL_DIM, RANKS.index(levels[team])),
             _one_hot(LEVEL_DIM, RANKS.index(levels[1 - team])),
             _one_hot(LEVEL_DIM, RANKS.index(observation["level"]))]
    v = np.concatenate(parts)
    assert v.shape == (STATE_DIM,)
    return v


def encode(observation: Dict[str, Any], legal_moves: Sequence[Any]) -> Tuple[np.ndarray, np.ndarray]:
    """DanZero's inputs for the seat of a play-phase ``observation``: the
    state row repeated once per legal move, and each move's 54-card count
    vector (rows in the order of ``legal_moves``; Moves or platform triples)."""
    if observation.get("phase") not in (None, "play"):
        raise ValueError("DanZero's encoding covers the play phase only")
    n = len(legal_moves)
    state = np.repeat(state_vector(observation)[np.newaxis, :].astype(np.float32), n, axis=0)
    actions = np.zeros((n, ACTION_DIM), dtype=np.float32)
    for i, m in enumerate(legal_moves):
        actions[i] = counts(_cards_of(m))
    return state, actions
