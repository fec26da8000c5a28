"""Reference play-phase engine for ONE round of Guandan: a slow, plain oracle.

Written from RULES.md (docs/rules.md) ("Playing a round") only; it shares no
code with the native engine (src/ is not used). Moves come from the
independent reference enumerator ``reference.ref_moves``. No tribute, no
dealing, no promotion: only the play phase of the current round.

State (:class:`RefState`, immutable; ``step`` returns a new state):
  * ``hands``    -- 4 ``Counter`` card-count dicts (card string -> copies);
  * ``level``    -- round level rank letter;
  * ``to_act``   -- seat to act;
  * ``top``      -- the play to beat ``(type, rank, sorted cards)`` or None
    when the seat to act leads;
  * ``top_seat`` -- the seat that made ``top`` (None when leading);
  * ``passes``   -- passes since ``top``;
  * ``finished`` -- seats out this round, in order.

Rules implemented (RULES.md, "Playing a round"):
  2. "The leader plays any move. Then each next seat that still holds cards
     either passes or beats the current top play."  -> ``legal``: leading =
     ``ref_moves(hand, level)`` (no pass), following =
     ``ref_moves(hand, level, last=top)`` (pass + every beating play).
  3. "A trick ends when every other seat still holding cards has passed since
     the last play. The last player to play leads the next trick; if that
     player has gone out, their partner leads (接风 / 借风)."
  4. "first out is the banker ... The round ends when three players are out,
     or as soon as both players of one team are out."

perft convention: ``ref_perft(state, depth)`` counts action sequences of
length exactly ``depth``; a round end is TERMINAL (no further actions). The
native ``guandan.perft`` instead continues into the next round (tribute /
new deal), so the two agree only when no sequence ends the round strictly
before ``depth`` plies (a round ending exactly at ply ``depth`` is fine: both
count that sequence once). ``ref_perft(..., strict=True)`` (the default)
raises :class:`RoundEndsEarly` if such a sequence exists, so a stored count
can never silently rely on the convention difference.
"""

from collections import Counter

from reference import ref_moves, PASS

TEAM = (0, 1, 0, 1)


def partner(seat):
    return (seat + 2) % 4


class RoundEndsEarly(Exception):
    """A sequence ends the round before the requested perft depth."""


class RefState:
    __slots__ = ("hands", "level", "to_act", "top", "top_seat", "passes", "finished")

    def __init__(self, hands, level, to_act, top=None, top_seat=None, passes=0, finished=()):
        self.hands = tuple(Counter({c: k for c, k in Counter(h).items() if k}) for h in hands)
        self.level = level
        self.to_act = to_act
        self.top = None if top is None else _norm(top)
        self.top_seat = top_seat if top is not None else None
        self.passes = passes if top is not None else 0
        self.finished = tuple(finished)
        assert len(self.hands) == 4
        for s in self.finished:
            assert sum(self.hands[s].values()) == 0, "a finished seat holds cards"

    # ------------------------------------------------------------------
    def cards_left(self, seat):
        return sum(self.hands[seat].values())

    def active(self):
        """Seats still holding cards."""
        return [s for s in range(4) if self.cards_left(s) > 0]

    def round_over(self):
        # RULES.md: "The round ends when three players are out, or as soon as
        # both players of one team are out".
        out = set(self.finished)
        if len(out) >= 3:
            return True
        return any({s, partner(s)} <= out for s in (0, 1))

    def key(self):
        return (tuple(tuple(sorted(h.items())) for h in self.hands), self.level,
                self.to_act, self.top, self.top_seat, self.passes, self.finished)

    def __repr__(self):
        hs = ["".join(sorted(h.elements())) or "-" for h in self.hands]
        return (f"RefState(hands={hs}, level={self.level!r}, to_act={self.to_act}, "
                f"top={self.top}, top_seat={self.top_seat}, passes={self.passes}, "
                f"finished={self.finished})")


def _norm(m):
    t, r, cards = m
    if t == "PASS":
        return PASS
    return (t, r, tuple(sorted(cards)))


def legal(state):
    """The legal actions of the seat to act (a set of reference moves)."""
    if state.round_over():
        return set()
    hand = list(state.hands[state.to_act].elements())
    assert hand, "the seat to act holds no cards"
    if state.top is None:
        return ref_moves(hand, state.level)            # leading: no pass
    return ref_moves(hand, state.level, last=state.top)


def _next_holding(state, hands, seat):
    """The next seat after ``seat`` (play passes s -> s+1) that holds cards."""
    for k in range(1, 5):
        s = (seat + k) % 4
        if sum(hands[s].values()) > 0:
            return s
    raise AssertionError("nobody holds cards")


def step(state, move):
    """The state after the seat to act plays ``move`` (must be legal)."""
    move = _norm(move)
    seat = state.to_act
    if move not in legal(state):
        raise ValueError(f"illegal move {move} in {state}")
    hands = [Counter(h) for h in state.hands]
    finished = list(state.finished)
    new = RefState.__new__(RefState)
    new.level = state.level
    if move == PASS:
        # a pass: the top play stays; check whether the trick has ended
        passes = state.passes + 1
        top, top_seat = state.top, state.top_seat
        others = [s for s in range(4) if s != top_seat and sum(hands[s].values()) > 0]
        if passes >= len(others):
            # "A trick ends when every other seat still holding cards has
            # passed since the last play. The last player to play leads the
            # next trick; if that player has gone out, their partner leads."
            leader = top_seat if sum(hands[top_seat].values()) > 0 else partner(top_seat)
            assert sum(hands[leader].values()) > 0
            new.hands, new.finished = tuple(hands), tuple(finished)
            new.top, new.top_seat, new.passes, new.to_act = None, None, 0, leader
            return new
        new.hands, new.finished = tuple(hands), tuple(finished)
        new.top, new.top_seat, new.passes = top, top_seat, passes
        new.to_act = _next_holding(new, hands, seat)
        return new
    # a play: remove the cards, it becomes the top play
    for c in move[2]:
        hands[seat][c] -= 1
        assert hands[seat][c] >= 0
        if hands[seat][c] == 0:
            del hands[seat][c]
    if sum(hands[seat].values()) == 0:
        finished.append(seat)          # "first out is the banker, then follower ..."
    new.hands, new.finished = tuple(hands), tuple(finished)
    new.top, new.top_seat, new.passes = move, seat, 0
    if new.round_over():
        new.to_act = None
        return new
    others = [s for s in range(4) if s != seat and sum(hands[s].values()) > 0]
    assert others
    new.to_act = _next_holding(new, hands, seat)
    return new


def ref_perft(state, depth, strict=True):
    """Number of action sequences of length ``depth``; a round end is
    terminal. With ``strict``, raise RoundEndsEarly when some sequence ends
    the round before ``depth`` plies (where the native perft, which goes on
    into the next round, would count differently)."""
    memo = {}

    def rec(st, d):
        if d == 0:
            return 1
        if st.round_over():
            if strict:
                raise RoundEndsEarly(f"round ends {d} plies before the depth: {st}")
            return 0
        k = (st.key(), d)
        if k not in memo:
            memo[k] = sum(rec(step(st, m), d - 1) for m in legal(st))
        return memo[k]

    return rec(state, depth)


def ref_divide(state, depth, strict=True):
    """{move: count} for each first action (depth >= 1)."""
    return {m: ref_perft(step(state, m), depth - 1, strict) for m in legal(state)}


# ----------------------------------------------------------------------
# position strings (the format documented on guandan.Game.position):
# "hands(/-separated, cards run together, '-' empty) level teamlevels owner
#  to_act top(seat:Type:Rank:cards or '-') passes finished(seat digits run
#  together, or '-')
#  round_index a_fails"
# ----------------------------------------------------------------------

def _split_cards(s):
    if s == "-":
        return []
    assert len(s) % 2 == 0, s
    return [s[i:i + 2] for i in range(0, len(s), 2)]


def parse_position(pos):
    """A RefState from a native position string (only the play-phase fields)."""
    f = pos.split()
    hands = [_split_cards(h) for h in f[0].split("/")]
    level = f[1]
    to_act = int(f[4])
    top = top_seat = None
    if f[5] != "-":
        seat, t, r, cards = f[5].split(":")
        top_seat = int(seat)
        top = (t, r, tuple(_split_cards(cards)))
    passes = int(f[6])
    finished = () if f[7] == "-" else tuple(int(x) for x in f[7].replace(",", ""))
    return RefState(hands, level, to_act, top, top_seat, passes, finished)
