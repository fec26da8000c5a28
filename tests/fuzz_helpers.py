"""Shared pieces of the fuzz suite (tests/test_fuzz.py): input counters,
``attempt`` (a call that must succeed or raise a GuandanError), hostile-value
strategies, and the invariants a game must keep after it accepted an input.

The suite's size is scaled by ``GUANDAN_FUZZ_EXAMPLES`` (examples of a test of
weight 1; default 200), so CI can spend minutes on the sanitizer build while
the everyday suite stays quick.
"""

from __future__ import annotations

import json
import math
import os
import random
from collections import Counter
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st

from guandan import Game, GuandanError, Hand, Move, MoveType, Rules, legal_moves
from guandan import _core

from helpers import FACES, RANKS

EXAMPLES = int(os.environ.get("GUANDAN_FUZZ_EXAMPLES", "200"))
# GUANDAN_FUZZ_ALL_BUGS=1: report every distinct failure of a test, not only the first (slower)
ALL_BUGS = os.environ.get("GUANDAN_FUZZ_ALL_BUGS", "") not in ("", "0")
FACE_MASK = (1 << 54) - 1
TAG = 56
DECK108 = FACES * 2
U64 = (1 << 64) - 1


def fuzz_settings(weight: float = 1.0, **kw: Any) -> settings:
    """Bounded hypothesis settings: ``weight * GUANDAN_FUZZ_EXAMPLES`` examples,
    no deadline, no example database (each run fuzzes afresh), no explain
    phase (it re-runs failing examples many times)."""
    n = max(1, int(round(EXAMPLES * weight)))
    return settings(max_examples=n, deadline=None, database=None, report_multiple_bugs=ALL_BUGS,
                    suppress_health_check=list(HealthCheck),
                    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink], **kw)


# ---------------------------------------------------------------------------
# counters: how many inputs of each kind the suite tried (printed at the end)
# ---------------------------------------------------------------------------

TRIED: Counter = Counter()      # inputs tried, per kind
ACCEPTED: Counter = Counter()   # ... of which were accepted (the rest raised a GuandanError)


def short(x: Any, n: int = 300) -> str:
    try:
        s = repr(x)
    except Exception as e:                       # a repr that fails is itself reported elsewhere
        s = f"<unrepresentable {type(x).__name__}: {type(e).__name__}>"
    return s if len(s) <= n else s[:n] + "..."


class Rejected(Exception):
    """Internal marker: never raised to the tests."""


def attempt(kind: str, fn: Callable[..., Any], *args: Any, allow: Tuple[type, ...] = (),
            **kwargs: Any) -> Tuple[bool, Any]:
    """Call ``fn``: returns ``(True, result)``, or ``(False, error)`` when it
    raised a :class:`GuandanError` (or one of ``allow``: the sequence protocol's
    IndexError / TypeError). Any other exception fails the test, naming the
    input kind and the arguments."""
    TRIED[kind] += 1
    try:
        out = fn(*args, **kwargs)
    except (GuandanError,) + tuple(allow) as e:
        return False, e
    except Exception as e:
        raise AssertionError(f"[{kind}] raised {type(e).__name__} (not a GuandanError): {e!s:.200} "
                             f"-- args {short(args)} kwargs {short(kwargs)}") from e
    ACCEPTED[kind] += 1
    return True, out


def count(kind: str, n: int, accepted: Optional[int] = None) -> None:
    """Count inputs that a test tried without :func:`attempt` (all accepted by default)."""
    TRIED[kind] += n
    ACCEPTED[kind] += n if accepted is None else accepted


def must_reject(kind: str, why: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
    ok, out = attempt(kind, fn, *args, **kwargs)
    assert not ok, (f"[{kind}] accepted an invalid input ({why}): "
                    f"args {short(args)} kwargs {short(kwargs)} -> {short(out)}")


def summary_lines() -> List[str]:
    width = max((len(k) for k in TRIED), default=10)
    lines = [f"{k:<{width}}  {TRIED[k]:>7} tried  {ACCEPTED[k]:>7} accepted  {TRIED[k] - ACCEPTED[k]:>7} rejected"
             for k in sorted(TRIED)]
    lines.append(f"{'total':<{width}}  {sum(TRIED.values()):>7} tried  {sum(ACCEPTED.values()):>7} accepted")
    return lines


class FuzzReport:
    """The report plugin: inputs tried per kind, in pytest's terminal summary
    (with pytest-xdist, the workers' counts added up: conftest.py)."""

    def pytest_terminal_summary(self, terminalreporter):
        if not TRIED:
            return
        terminalreporter.section(f"fuzz inputs (GUANDAN_FUZZ_EXAMPLES={EXAMPLES})")
        for line in summary_lines():
            terminalreporter.write_line(line)
        path = os.environ.get("GUANDAN_FUZZ_REPORT")
        if path:
            with open(path, "w") as f:
                json.dump({"examples": EXAMPLES, "tried": dict(TRIED), "accepted": dict(ACCEPTED)}, f,
                          indent=1, sort_keys=True)


# ---------------------------------------------------------------------------
# hostile values
# ---------------------------------------------------------------------------

class Weird:
    """An object that refuses every numeric conversion (as an unsupported type does)."""

    def __index__(self):
        raise TypeError("no index")

    def __int__(self):
        raise TypeError("no int")

    def __float__(self):
        raise TypeError("no float")

    def __repr__(self):
        return "Weird()"


big_ints = st.sampled_from([-1, -2, -128, -129, 127, 128, 255, 256, 300, 1000, 32767, 32768, 65535,
                            65536, 70000, 2 ** 31 - 1, 2 ** 31, 2 ** 32, 2 ** 63 - 1, 2 ** 63, 2 ** 64 - 1,
                            2 ** 64, 2 ** 65, -2 ** 63, -2 ** 64, 10 ** 30, -10 ** 30])
any_int = st.one_of(st.integers(-5, 20), big_ints, st.integers())
floats = st.one_of(st.sampled_from([0.0, 0.9, 1.0, 1.5, 2.0, -0.5, 3.0, 1e300, float("nan"), float("inf"),
                                    -float("inf")]), st.floats(allow_nan=True, allow_infinity=True))
np_scalars = st.one_of(
    st.builds(np.int8, st.integers(-128, 127)), st.builds(np.int64, st.integers(-10, 20)),
    st.builds(np.uint64, st.integers(0, 20)), st.builds(np.float32, st.sampled_from([0.0, 1.0, 1.5, 2.5])),
    st.just(np.bool_(True)), st.just(np.int64(2 ** 62)), st.just(np.uint64(2 ** 64 - 1)))
scalar_junk = st.one_of(st.none(), st.booleans(), any_int, floats, np_scalars,
                        st.text(max_size=12), st.binary(max_size=8),
                        st.sampled_from(["", " ", "2", "10", "A", "PASS", "S2", "HR", "SB", "-1", "0x10", "1e3",
                                         "\x00", "\u00e9", "NaN", "None", "[]", "{}"]),
                        st.builds(object), st.builds(Weird), st.just(Ellipsis), st.just(float))
junk = st.recursive(scalar_junk,
                    lambda kids: st.one_of(st.lists(kids, max_size=5), st.tuples(kids, kids),
                                           st.dictionaries(st.text(max_size=4), kids, max_size=3),
                                           st.frozensets(st.integers(0, 3), max_size=3)),
                    max_leaves=8)

card_strings = st.sampled_from(FACES)
near_cards = st.one_of(card_strings, st.sampled_from(["S1", "s2", "h2", "SX", "S10", "HB", "SR", "BJ", "RJ",
                                                      "S 2", " S2", "S2 ", "SS", "22", "", "HRR", "JOKER",
                                                      "ＳＡ", "S\x00"]))
card_lists = st.lists(st.one_of(card_strings, near_cards), max_size=30)

level_values = st.one_of(st.sampled_from(list(RANKS)), st.integers(2, 14),
                         st.sampled_from(["10", "t", "a", "1", "0", "B", "R", "AA", "", "15", "2 ", "JOKER",
                                          1, 0, 15, -1, 16, 2.0, 14.0, 2.5, True, False, None,
                                          np.int64(5), np.int8(14), np.float64(5.0), 2 ** 64, b"2", ["2"]]))
seat_values = st.one_of(st.integers(0, 3), st.sampled_from([-128, -1, 4, 7, 1000, 2 ** 31, 2 ** 63, -2 ** 63,
                                                            1.0, 0.5, "0", "1", None, True, False,
                                                            np.int64(2), np.int8(-1), np.uint8(3)]))

rules_values = st.one_of(st.sampled_from([None, Rules.default(), Rules.contest()]),
                         st.sampled_from(["contest", "default", 1, {}, Rules]), scalar_junk)


@st.composite
def one_hostile(draw, valid: Dict[str, Any], hostile: Dict[str, Any]) -> Dict[str, Any]:
    """Arguments that are all valid but (usually) one: junk everywhere at once
    would stop at the first check and never reach the deeper ones."""
    # an integer, not sampled_from: hypothesis then spreads the choice evenly (with a few-valued
    # sampled_from it drifts to the branch with the most to explore, the junk)
    names = ["none", "none"] + list(valid) + ["all"]
    which = names[draw(st.integers(0, len(names) - 1), label="hostile argument")]
    return {k: draw(hostile[k] if which in (k, "all") else valid[k], label=k) for k in valid}


@st.composite
def card_multisets(draw, min_size: int = 0, max_size: int = 27) -> List[str]:
    """A valid multiset (a sub-multiset of the 108-card deck)."""
    n = draw(st.integers(min_size, max_size))
    idx = draw(st.lists(st.integers(0, 107), unique=True, min_size=n, max_size=n))
    return [DECK108[i] for i in idx]


# ---------------------------------------------------------------------------
# move words
# ---------------------------------------------------------------------------

def valid_words(lo: Any, hi: Any, level: Any, wild_sf: bool = True) -> bool:
    """Whether (lo, hi) at ``level`` (a rank index) is one reading of its cards
    (or the pass (0, 0)): the only play words a Move may carry into native code."""
    if not (is_int(lo) and is_int(hi) and is_int(level)):
        return False
    lo, hi, level = int(lo), int(hi), int(level)
    if not (0 <= lo <= U64 and 0 <= hi <= U64 and 0 <= level <= 12):
        return False
    if lo == 0 and hi == 0:
        return True
    return (lo, hi) in _core.classify_masks(lo & FACE_MASK, hi & FACE_MASK, level, wild_sf)


def tribute_tag(lo: Any) -> bool:
    """The words carry the TRIBUTE or BACK type tag (an action, not a play)."""
    return is_int(lo) and 0 <= int(lo) <= U64 and (int(lo) >> TAG) & 15 in (MoveType.TRIBUTE, MoveType.BACK)


def valid_tribute_words(lo: Any, hi: Any, level: Any) -> bool:
    """A well-formed tribute / back action: one card, nothing else."""
    if not (tribute_tag(lo) and is_int(hi) and is_int(level) and 0 <= int(level) <= 12):
        return False
    faces = int(lo) & ~(15 << TAG)
    return int(hi) == 0 and 0 < faces <= FACE_MASK and faces & (faces - 1) == 0


@st.composite
def raw_words(draw) -> Tuple[int, int]:
    """Arbitrary 64-bit word pairs, biased to be almost moves: real faces, any
    type tag 0..15 (13..15 do not exist), keys 0..31 (>= 16 never valid),
    stray bits 54..55 / 60..63."""
    kind = draw(st.integers(0, 3))
    if kind == 0:
        return draw(st.integers(0, U64)), draw(st.integers(0, U64))
    one = draw(st.integers(0, FACE_MASK))
    if draw(st.booleans()):
        one &= draw(st.sampled_from([0xF, 0xFF, 0xFFFF, 1 << 52, 3 << 52, 0x1111111111111, FACE_MASK]))
    two = one & draw(st.integers(0, FACE_MASK)) if draw(st.booleans()) else draw(st.integers(0, FACE_MASK))
    tag = draw(st.one_of(st.integers(0, 15), st.sampled_from([11, 12, 13, 14, 15])))
    key = draw(st.one_of(st.integers(0, 15), st.integers(16, 31)))
    lo = one | (tag << TAG)
    hi = two | (key << TAG)
    if kind == 3:
        lo |= draw(st.sampled_from([1 << 54, 1 << 55, 1 << 60, 1 << 63, 0]))
        hi |= draw(st.sampled_from([1 << 54, 1 << 61, 1 << 63, 0]))
    return lo, hi


@st.composite
def real_moves(draw, level: Optional[int] = None) -> Move:
    """A move taken from legal_moves of a random hand (a valid Move)."""
    lv = draw(st.integers(0, 12)) if level is None else level
    cards = draw(card_multisets(1, 27))
    ms = legal_moves(cards, lv + 2)
    return ms[draw(st.integers(0, len(ms) - 1))]


@st.composite
def move_args(draw) -> Tuple[Any, Any, Any]:
    """Arguments ``(lo, hi, level)`` for ``Move(lo, hi, level)`` from anything:
    real moves, tribute/back actions, raw words (invalid type tags, keys >= 16,
    stray bits), out-of-range levels, non-int words."""
    k = draw(st.integers(0, 9))
    if k <= 2:
        m = draw(real_moves())
        return m._lo, m._hi, m._level
    if k == 3:       # a tribute / back action
        f = draw(st.integers(0, 53))
        t = draw(st.sampled_from([MoveType.TRIBUTE, MoveType.BACK]))
        return (1 << f) | (int(t) << TAG), 0, draw(st.integers(0, 12))
    if k == 4:       # a real move at another level, or a level out of range
        m = draw(real_moves())
        return m._lo, m._hi, draw(st.one_of(st.integers(0, 12), st.sampled_from(
            [-1, 13, 14, 15, 100, -128, 2 ** 31, 2 ** 63, 2 ** 64, 1.0, "2", None, True, np.int64(3)])))
    if k == 5:       # garbage types in the slots
        return (draw(st.one_of(any_int, floats, scalar_junk)), draw(st.one_of(any_int, scalar_junk)),
                draw(st.one_of(st.integers(-3, 16), scalar_junk)))
    if k == 6:       # the known bad type tags, on real cards
        m = draw(real_moves())
        tag = draw(st.sampled_from([13, 14, 15]))
        return (m._lo & ~(15 << TAG)) | (tag << TAG), m._hi, m._level
    lo, hi = draw(raw_words())
    return lo, hi, draw(st.one_of(st.integers(0, 12), st.integers(-3, 20)))


def make_move(args: Tuple[Any, Any, Any]) -> Optional[Move]:
    """``Move(*args)``, or None when the constructor rejects the words with a
    GuandanError (words that are not a move must not make a Move)."""
    lo, hi, lv = args
    ok, m = attempt("Move(lo, hi, level)", Move, lo, hi, lv)
    if ok:
        assert valid_words(lo, hi, lv) or valid_tribute_words(lo, hi, lv) or (is_int(lo) and lo == 0), \
            f"Move() accepted words that are not a move: ({short(lo)}, {short(hi)}, level {short(lv)})"
        return m
    return None


triples = st.one_of(
    st.tuples(st.sampled_from(["Single", "Pair", "Trips", "ThreePair", "ThreeWithTwo", "TwoTrips", "Straight",
                               "StraightFlush", "Bomb", "PASS", "tribute", "back", "bomb", "", "Joker"]),
              st.sampled_from(list("23456789TJQKABR") + ["JOKER", "PASS", "tribute", "back", "10", "1", ""]),
              st.one_of(card_lists, st.just("PASS"), scalar_junk)).map(list),
    junk)


# ---------------------------------------------------------------------------
# games: the invariants that must hold once an input was accepted
# ---------------------------------------------------------------------------

def check_game(g: Game, *, deep: bool = True) -> None:
    """Invariants of any reachable state (a violation is an AssertionError; a
    GuandanError raised by a read of a state the engine accepted is one too)."""
    try:
        _check_game(g, deep)
    except GuandanError as e:
        raise AssertionError(f"reading an accepted game raised {type(e).__name__}: {e} "
                             f"(position {short(_safe_position(g))})") from e


def _safe_position(g: Game) -> str:
    try:
        return g.position
    except Exception as e:
        return f"<position raised {type(e).__name__}>"


def _check_game(g: Game, deep: bool) -> None:
    phase = g.phase
    assert phase in ("tribute", "back", "play", "over")
    pos = g.position
    repr(g)
    hands = g.hands
    counts = np.zeros(54, dtype=np.int64)
    for h in hands:
        counts += h.counts()
    assert counts.max(initial=0) <= 2, f"more than two copies of a face in the hands: {pos}"
    assert g.card_counts == [len(h) for h in hands]
    lv = g.level
    assert lv in RANKS and all(x in RANKS for x in g.team_levels)
    assert g.round_index >= 0, pos
    if phase != "over":
        assert g.to_act in range(4), f"to_act {g.to_act}: {pos}"
    if phase == "play":
        assert len(hands[g.to_act]) > 0, f"seat {g.to_act} to act has no cards: {pos}"
        seat, lo, hi, passes = g._core.top
        assert -1 <= seat <= 3, f"top seat {seat}: {pos}"
        assert 0 <= passes <= 3, f"passes {passes}: {pos}"
        if seat < 0:
            assert lo == 0 and hi == 0, f"leading with a top play ({lo:#x}, {hi:#x}): {pos}"
        else:
            assert valid_words(lo, hi, g._core.rlevel), f"top play words invalid ({lo:#x}, {hi:#x}): {pos}"
            # trick cards are out of the hands: together at most two decks
            top = Hand.from_masks(lo & FACE_MASK, hi & FACE_MASK).counts().astype(np.int64)
            assert (counts + top).max() <= 2, f"the top play's cards are also in the hands: {pos}"
        for s, m in g.trick:
            assert s in range(4), f"trick seat {s}: {pos}"
        fin = g.finish_order
        assert len(set(fin)) == len(fin) and all(s in range(4) for s in fin), f"finish order {fin}: {pos}"
        for s in range(4):
            assert (len(hands[s]) == 0) == (s in fin), f"seat {s} finished/has cards mismatch: {pos}"
        if deep:
            g2 = Game.from_position(pos, rules=g.rules)
            assert g2.position == pos, f"position does not round-trip: {pos} -> {g2.position}"
    obs = g.observation(g.to_act if phase != "over" else 0)
    assert obs["seat"] in range(4)
    ms = g.legal_moves()
    if phase == "over":
        assert len(ms) == 0
    else:
        assert len(ms) > 0, f"no legal action in phase {phase}: {pos}"
        ms.to_platform()
    rec = g.record()
    json.dumps(rec)
    if deep:
        g3 = Game.replay(json.dumps(rec))
        assert g3.position == pos, f"replay differs: {pos} -> {g3.position}"


def exercise(g: Game, rnd: random.Random, steps: int = 8, *, deep_every: int = 4) -> None:
    """Play a few random legal actions (passes often), undo some, and check
    the invariants along the way: corruption from a bad input often shows
    only a few moves later."""
    check_game(g)
    for k in range(steps):
        if g.is_over:
            break
        ms = g.legal_moves()
        if len(ms) == 0:
            raise AssertionError(f"no legal action: {g.position}")
        i = 0 if (rnd.random() < 0.4) else rnd.randrange(len(ms))
        m = ms[i]
        before = g.position
        try:
            g.play(m)
        except GuandanError as e:
            raise AssertionError(f"a listed legal action was refused: {m} ({e}) at {before}") from e
        if rnd.random() < 0.2:
            g.undo()
            assert g.position == before, "undo did not restore the position"
            g.play(m)
        if rnd.random() < 0.1:
            # a copy is independent: playing on it leaves the original as it was
            c = g.copy()
            here = g.position
            if not c.is_over:
                c.play(c.legal_moves()[0])
                c.undo()
                assert c.position == here
                c.play(c.legal_moves()[-1])
            assert g.position == here, "playing on a copy changed the original"
        check_game(g, deep=(k % deep_every == deep_every - 1))
    check_game(g)


def deck_overflow(hands: List[Any], extra: List[Move]) -> bool:
    counts = Counter()
    for h in hands:
        for c in h:
            counts[c] += 1
    for m in extra:
        for c in m.cards:
            counts[c] += 1
    return any(v > 2 for v in counts.values())


def is_int(x: Any) -> bool:
    """An int in the strict sense of the validators: int or numpy integer, not a bool."""
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def finite_float(x: Any) -> bool:
    return isinstance(x, float) and math.isfinite(x)
