"""Hypothesis property tests of the move generator (RULES.md "What counts as one
legal move", comparison, notation) and of input validation (every bad input
raises a GuandanError, never another exception)."""

from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from guandan import (
    GuandanError,
    Hand,
    InvalidMoveError,
    Move,
    MoveType,
    Rules,
    classify,
    legal_moves,
    legal_moves_batch,
    parse_move,
)

from helpers import FACES, RANKS, pattern_of

DECK = FACES * 2   # face by face (helpers.DECK puts the jokers last)
TYPE_NAMES = ["Single", "Pair", "Trips", "ThreePair", "ThreeWithTwo", "TwoTrips", "Straight",
              "StraightFlush", "Bomb", "PASS", "tribute", "back"]

SETTINGS = dict(deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
# garbage tests: no "explain" phase (it re-runs failing examples many times)
JUNK_SETTINGS = dict(SETTINGS, report_multiple_bugs=False,
                     phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink])

# ---------------------------------------------------------------------------
# strategies
# ---------------------------------------------------------------------------

levels = st.sampled_from(list(RANKS))


@st.composite
def hands(draw, level, min_size=0, max_size=27):
    """A multiset over the 54 faces, each at most twice (a sub-multiset of the
    108-card deck), sometimes forced to hold one or both level hearts (wilds)."""
    n = draw(st.one_of(st.integers(min_size, max_size), st.just(max_size),
                       st.integers(max(min_size, max_size - 8), max_size)), label="hand size")
    idx = draw(st.lists(st.integers(0, 107), unique=True, min_size=n, max_size=n))
    cards = [DECK[i] for i in idx]
    if draw(st.integers(0, 2)) == 0:
        wild = "H" + level
        k = draw(st.integers(1, 2))
        rest = [c for c in cards if c != wild]
        cards = [wild] * k + rest[:max_size - k]
    return cards


@st.composite
def hand_and_level(draw, min_size=0, max_size=27):
    lv = draw(levels)
    return draw(hands(lv, min_size, max_size)), lv


def sample(moves, data, k=40):
    """Up to k moves of a MoveList (all of them when short)."""
    n = len(moves)
    if n <= k:
        return list(moves)
    idx = data.draw(st.lists(st.integers(0, n - 1), min_size=k, max_size=k, unique=True),
                    label="sampled move indices")
    return [moves[i] for i in idx]


# ---------------------------------------------------------------------------
# moves of a hand
# ---------------------------------------------------------------------------

@settings(max_examples=120, **SETTINGS)
@given(hl=hand_and_level(), data=st.data())
def test_moves_use_cards_of_hand_and_round_trip(hl, data):
    # "A move is the triple (type, key rank, card multiset)": its cards come from
    # the hand; the move is one reading of its cards; platform triples round-trip.
    cards, lv = hl
    hand = Hand(cards)
    have = Counter(cards)
    moves = legal_moves(hand, lv)
    assert all(not m.is_pass for m in moves)
    for m in moves:
        need = Counter(m.cards)
        assert not need - have, f"{m} uses cards not in {hand}"
        assert len(m) == len(m.cards) == sum(need.values())
    for m in sample(moves, data):
        readings = classify(m.cards, lv)
        assert m in readings, f"{m} not among the readings {readings}"
        assert Move.from_platform(m.to_platform(), lv) == m
        assert parse_move(str(m), lv) == m
        assert Move.from_cards(m.cards, lv) == readings[0]


@settings(max_examples=150, **SETTINGS)
@given(hl=hand_and_level())
def test_hand_str_repr_round_trip(hl):
    cards, lv = hl
    h = Hand(cards)
    assert Hand(str(h)) == h
    assert eval(repr(h), {"Hand": Hand}) == h
    assert Hand(list(h)) == h
    assert Hand(h.cards(level=lv)) == h
    assert len(h) == len(cards) == int(h.counts().sum())
    assert Counter(h) == Counter(cards)
    assert all(h.count(c) == n for c, n in Counter(cards).items())
    assert Hand.from_counts(h.counts()) == h


@settings(max_examples=100, **SETTINGS)
@given(hl=hand_and_level())
def test_no_duplicates(hl):
    # "The move generator lists every distinct legal triple exactly once"
    cards, lv = hl
    for mode in ("full", "pattern"):
        moves = legal_moves(cards, lv, mode=mode)
        assert len(moves) == len(set(moves))
        triples = {(t, r, tuple(sorted(c))) for t, r, c in moves.to_platform()}
        assert len(triples) == len(moves)


@settings(max_examples=100, **SETTINGS)
@given(hl=hand_and_level(), contest=st.booleans())
def test_pattern_list_subset_of_full_list(hl, contest):
    cards, lv = hl
    rules = Rules.contest() if contest else None
    full = legal_moves(cards, lv, rules=rules)
    pat = legal_moves(cards, lv, mode="pattern", rules=rules)
    full_set = set(full)
    assert set(pat) <= full_set
    # one representative per pattern, every pattern present
    pats = [pattern_of(m, lv) for m in pat]
    assert len(pats) == len(set(pats))
    assert set(pats) == {pattern_of(m, lv) for m in full}


@settings(max_examples=100, **SETTINGS)
@given(hl=hand_and_level())
def test_contest_rules_drop_only_wild_straight_flushes(hl):
    # Variants: "wild may complete a straight flush | yes | no"
    cards, lv = hl
    default = set(legal_moves(cards, lv))
    contest = set(legal_moves(cards, lv, rules=Rules.contest()))
    assert contest <= default
    for m in default - contest:
        assert m.type == MoveType.STRAIGHT_FLUSH and ("H" + lv) in m.cards


@settings(max_examples=120, **SETTINGS)
@given(hl=hand_and_level(max_size=10))
def test_classify_readings_use_exactly_the_cards(hl):
    # classify: every reading of exactly these cards, highest first
    cards, lv = hl
    readings = classify(cards, lv)
    assert len(readings) == len(set(readings))
    for r in readings:
        assert Counter(r.cards) == Counter(cards)
    for a, b in zip(readings, readings[1:]):
        assert not b.beats(a) or a.type != b.type, f"{b} is above {a}"
    if readings:
        assert Move.from_cards(cards, lv) == readings[0]
        assert set(readings) <= set(legal_moves(cards, lv))
    else:
        with pytest.raises(InvalidMoveError):
            Move.from_cards(cards, lv)


# ---------------------------------------------------------------------------
# following
# ---------------------------------------------------------------------------

@settings(max_examples=120, **SETTINGS)
@given(lv=levels, data=st.data(), as_triple=st.booleans(), contest=st.booleans())
def test_following_sound_and_complete(lv, data, as_triple, contest):
    # "Following: pass, plus every move that beats the current top play."
    rules = Rules.contest() if contest else None
    mine = data.draw(hands(lv), label="hand")
    theirs = data.draw(hands(lv, min_size=1), label="other hand")
    other = legal_moves(theirs, lv, rules=rules)
    last = other[data.draw(st.integers(0, len(other) - 1), label="last index")]
    follow = legal_moves(mine, lv, last.to_platform() if as_triple else last, rules=rules)
    assert follow[0].is_pass and follow[0].to_platform() == ["PASS", "PASS", "PASS"]
    rest = list(follow)[1:]
    assert not any(m.is_pass for m in rest)
    for m in rest:
        assert m.beats(last), f"{m} does not beat {last}"
    lead = legal_moves(mine, lv, rules=rules)
    beating = [m for m in lead if m.beats(last)]
    assert set(beating) <= set(rest), "a beating move is missing from the follow list"
    assert len(rest) == len(beating) == len(set(rest))
    # pattern mode when following: a subset of the full follow list, pass first
    pat = legal_moves(mine, lv, last, mode="pattern", rules=rules)
    assert pat[0].is_pass and set(pat) <= set(follow)


@settings(max_examples=150, **SETTINGS)
@given(lv=levels, data=st.data())
def test_beats_is_a_strict_order_between_plays(lv, data):
    # "Non-bomb plays beat only a play of the same type with a strictly higher
    #  key"; "Any bomb ... beats any non-bomb play."
    a_cards = data.draw(hands(lv, min_size=1, max_size=14), label="a")
    b_cards = data.draw(hands(lv, min_size=1, max_size=14), label="b")
    la, lb = legal_moves(a_cards, lv), legal_moves(b_cards, lv)
    a = la[data.draw(st.integers(0, len(la) - 1))]
    b = lb[data.draw(st.integers(0, len(lb) - 1))]
    assert not (a.beats(b) and b.beats(a))
    assert not a.beats(a)
    if a.is_bomb and not b.is_bomb:
        assert a.beats(b) and not b.beats(a)
    if not a.is_bomb and not b.is_bomb and a.type != b.type:
        assert not a.beats(b) and not b.beats(a)


# ---------------------------------------------------------------------------
# garbage input never crashes
# ---------------------------------------------------------------------------

atoms = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(max_size=6),
    st.binary(max_size=4), st.sampled_from(FACES), st.sampled_from(list(RANKS) + ["B", "R", "JOKER"]),
    st.sampled_from(TYPE_NAMES), st.just("PASS"), st.just([]), st.just(()),
)
junk = st.recursive(
    atoms,
    lambda kids: st.one_of(st.lists(kids, max_size=5), st.tuples(kids, kids, kids),
                           st.dictionaries(st.text(max_size=3), kids, max_size=3),
                           st.frozensets(st.sampled_from(FACES), max_size=3)),
    max_leaves=12,
)
card_lists = st.lists(st.one_of(st.sampled_from(FACES), atoms), max_size=8)
triples = st.one_of(
    junk,
    st.tuples(st.one_of(st.sampled_from(TYPE_NAMES), junk), st.one_of(st.sampled_from(list(RANKS)), junk),
              st.one_of(card_lists, junk)).map(list),
    st.text(max_size=30),
)
any_level = st.one_of(levels, junk, st.integers(-3, 20))


def tolerant(f, *args, **kwargs):
    """Call f: it may work or raise GuandanError; anything else fails the test."""
    try:
        return f(*args, **kwargs)
    except GuandanError:
        return None


@settings(max_examples=400, **JUNK_SETTINGS)
@given(x=st.one_of(junk, card_lists, st.text(max_size=40)))
def test_garbage_hand(x):
    h = tolerant(Hand, x)
    if h is not None:
        assert Hand(str(h)) == h


@settings(max_examples=300, **JUNK_SETTINGS)
@given(hand=st.one_of(card_lists, junk), level=any_level, last=st.one_of(st.none(), triples),
       mode=st.one_of(st.sampled_from(["full", "pattern"]), junk),
       rules=st.sampled_from([None, Rules.default(), Rules.contest(), "contest", 1]))
def test_garbage_legal_moves(hand, level, last, mode, rules):
    moves = tolerant(legal_moves, hand, level, last, mode=mode, rules=rules)
    if moves is not None:
        list(moves)


@settings(max_examples=400, **JUNK_SETTINGS)
@given(cards=st.one_of(card_lists, junk), level=any_level)
def test_garbage_classify(cards, level):
    tolerant(classify, cards, level)
    tolerant(Move.from_cards, cards, level)


@settings(max_examples=400, **JUNK_SETTINGS)
@given(triple=triples, level=any_level)
def test_garbage_from_platform_and_parse_move(triple, level):
    m = tolerant(Move.from_platform, triple, level)
    if m is not None and not m.is_pass:
        assert Move.from_platform(m.to_platform(), level) == m
    tolerant(parse_move, triple, level)


@pytest.mark.parametrize("triple", [
    [["Pair"], "5", ["S5", "D5"]],
    [{"a": 1}, "5", ["S5", "D5"]],
    [{"Pair"}, "5", ["S5", "D5"]],
    '[["Pair"], "5", ["S5", "D5"]]',
    ["Pair", ["5"], ["S5", "D5"]],
    ["Pair", "5", {"S5": 1, "D5": 2}],
    ["PASS", ["PASS"], "PASS"],
    ["PASS", "PASS", {"x": 1}],
])
def test_garbage_unhashable_parts_of_a_triple(triple):
    # a malformed `last` raises InvalidMoveError (a GuandanError), whatever its parts
    with pytest.raises(GuandanError):
        Move.from_platform(triple, "2")
    with pytest.raises(GuandanError):
        legal_moves("S5 D5 S6 D6", "2", last=triple)
    with pytest.raises(GuandanError):
        parse_move(triple, "2")
    with pytest.raises(GuandanError):
        Move.from_cards("S6 D6", "2").beats(triple)
    assert triple not in legal_moves("S5 D5 S6 D6", "2")


_ONE = np.zeros((1, 54), dtype=np.int64)
_ONE[0, 0] = 1


@pytest.mark.parametrize("args", [
    (None, "2"),
    (5, "2"),
    (_ONE, None),
    (_ONE, 2.5),
    (_ONE, "2", {}),
    (_ONE, "2", "x"),
    (_ONE, "2", [[None, None, []]]),
    (_ONE, "2", [[-1, 0]]),
    (np.array([[None] * 54]), "2"),
    (np.array([["1"] * 54]), "2"),
], ids=["hands=None", "hands=5", "levels=None", "levels=2.5", "last={}", "last='x'",
        "last=[[None,None,[]]]", "last=[[-1,0]]", "hands=object-array", "hands=str-array"])
def test_garbage_legal_moves_batch_known_cases(args):
    # bad input to the batch entry point raises GuandanError, not TypeError etc.
    with pytest.raises(GuandanError):
        legal_moves_batch(*args)


int_dtypes = st.sampled_from([np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint64])


@st.composite
def count_arrays(draw):
    dtype = draw(int_dtypes)
    n = draw(st.integers(0, 4))
    info = np.iinfo(dtype)
    lo = max(int(info.min), -300)
    hi = min(int(info.max), 300)
    elements = st.one_of(st.integers(0, 2), st.integers(lo, hi))
    if draw(st.booleans()):
        elements = st.integers(0, 2)             # mostly valid
    shape = (n, 54) if draw(st.integers(0, 5)) else draw(st.sampled_from([(n,), (n, 53), (n, 55), (2, 54, 1)]))
    return draw(hnp.arrays(dtype, shape, elements=elements))


@settings(max_examples=200, **SETTINGS)
@given(arr=count_arrays(), level=st.one_of(levels, st.lists(levels, min_size=0, max_size=5)),
       last_kind=st.sampled_from(["none", "zeros", "random"]), data=st.data(),
       mode=st.sampled_from(["full", "pattern", "bogus"]))
def test_garbage_legal_moves_batch_count_arrays(arr, level, last_kind, data, mode):
    # random (n, 54) int arrays, out-of-range counts and wrong shapes included:
    # legal_moves_batch works or raises GuandanError
    n = arr.shape[0]
    if last_kind == "none":
        last = None
    elif last_kind == "zeros":
        last = np.zeros((n, 2), dtype=np.uint64)
    else:
        last = data.draw(hnp.arrays(np.uint64, (n, 2)), label="last words")
    b = tolerant(legal_moves_batch, arr, level, last, mode=mode)
    if b is not None:
        assert len(b) == n
        if last_kind in ("none", "zeros") and mode == "full":
            # valid input: the batch equals one call per hand
            lvls = [level] * n if isinstance(level, str) else level
            for i in range(n):
                h = Hand.from_counts(arr[i])
                one = legal_moves(h, lvls[i]).to_numpy()
                assert np.array_equal(b.words[b.offsets[i]:b.offsets[i + 1]], one)


@settings(max_examples=200, **JUNK_SETTINGS)
@given(hands_=st.one_of(count_arrays(), junk, st.lists(card_lists, max_size=3)),
       level=any_level, last=st.one_of(st.none(), junk, hnp.arrays(np.uint64, (1, 2))),
       mode=st.one_of(st.sampled_from(["full", "pattern"]), junk))
def test_garbage_legal_moves_batch_any_input(hands_, level, last, mode):
    # junk hands, levels, `last` and mode: legal_moves_batch works or raises GuandanError
    tolerant(legal_moves_batch, hands_, level, last, mode=mode)


@settings(max_examples=60, **SETTINGS)
@given(data=st.data())
def test_batch_matches_single_calls_following(data):
    n = data.draw(st.integers(1, 4))
    lvs = [data.draw(levels) for _ in range(n)]
    hs = [Hand(data.draw(hands(lv))) for lv in lvs]
    lasts = []
    for lv in lvs:
        other = legal_moves(data.draw(hands(lv, min_size=1, max_size=10)), lv)
        lasts.append(other[data.draw(st.integers(0, len(other) - 1))])
    words = np.array([m.words for m in lasts], dtype=np.uint64)
    b = legal_moves_batch(hs, lvs, words)
    for i in range(n):
        assert b.moves(i) == list(legal_moves(hs[i], lvs[i], lasts[i]))
