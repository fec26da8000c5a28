"""Fuzzing every public entry point with hostile input (hypothesis, bounded).

Each input must give a correct result or raise a :class:`guandan.GuandanError`
subclass: never another exception type, never a crash. Inputs that are
accepted are then exercised (moves played, positions and records read back)
because some corruption only shows later.

Size: ``GUANDAN_FUZZ_EXAMPLES`` examples per test of weight 1 (default 200);
CI runs this file with a larger count on the AddressSanitizer build
(``GUANDAN_SANITIZE=1``, run through ``.ci/sanitize-python``). The number of
inputs tried per kind is printed in the terminal summary ("fuzz inputs").
"""

from __future__ import annotations

import copy
import json
import pickle
import random
import subprocess
import sys
import threading
from collections import Counter

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from guandan import (
    Game,
    GuandanError,
    Hand,
    Move,
    MoveType,
    Rules,
    VecGame,
    classify,
    legal_moves,
    legal_moves_batch,
    parse_move,
    perft,
    return_choices,
    simulate,
    tribute_choices,
)
from guandan.positions import check_level
from guandan.policies import SPLIT_FEATURES_DIM, get_policy, split_features, split_features_of
from guandan.cli import main as cli_main

from fuzz_helpers import (
    ACCEPTED,
    DECK108,
    EXAMPLES,
    FACE_MASK,
    TAG,
    TRIED,
    U64,
    any_int,
    attempt,
    big_ints,
    count,
    card_lists,
    card_multisets,
    check_game,
    deck_overflow,
    exercise,
    floats,
    fuzz_settings,
    is_int,
    junk,
    level_values,
    make_move,
    move_args,
    must_reject,
    one_hostile,
    near_cards,
    raw_words,
    real_moves,
    rules_values,
    scalar_junk,
    seat_values,
    short,
    FuzzReport,
    triples,
    tribute_tag,
    valid_words,
)
from helpers import FACES, RANKS


# ---------------------------------------------------------------------------
# the report: inputs tried per kind, in pytest's terminal summary
# ---------------------------------------------------------------------------

@pytest.fixture(scope="module", autouse=True)
def _fuzz_report(request):
    pm = request.config.pluginmanager
    if not pm.has_plugin("guandan-fuzz-report"):
        pm.register(FuzzReport(), "guandan-fuzz-report")
    yield


def level_ok(level):
    """The level as a rank index, or None if `level` is not a valid level
    (the letters 2..9 T J Q K A, "10", ints 2..14; lowercase letters too)."""
    ok, lv = attempt("check_level", check_level, level, "level")
    return lv if ok else None


# ---------------------------------------------------------------------------
# Hand
# ---------------------------------------------------------------------------

@fuzz_settings()
@given(x=st.one_of(junk, card_lists, card_multisets(), st.text(max_size=60),
                   card_multisets().map(" ".join), card_lists.map(" ".join),
                   card_multisets().map(tuple), card_multisets().map(iter)))
def test_hand_from_anything(x):
    as_list = list(x) if isinstance(x, (list, tuple)) else (x.split() if isinstance(x, str) else None)
    ok, h = attempt("Hand(x)", Hand, x)
    if not ok:
        if as_list is not None and all(c in FACES for c in as_list) and \
                max(Counter(as_list).values(), default=0) <= 2:
            raise AssertionError(f"Hand() refused a valid multiset {as_list}: {h}")
        return
    if as_list is not None:
        # card strings are accepted in either case: 's2' is S2
        assert Counter(c.upper() for c in as_list) == Counter(h), (x, h)
    assert Hand(str(h)) == h and eval(repr(h), {"Hand": Hand}) == h
    assert Hand.from_counts(h.counts()) == h and Hand.from_masks(*h.masks) == h
    assert pickle.loads(pickle.dumps(h)) == h
    assert len(h) == len(list(h)) == int(h.counts().sum())
    for lv in ("2", "A"):
        assert sorted(h.cards(lv)) == sorted(h)


@fuzz_settings()
@given(h=card_multisets(), other=st.one_of(junk, card_lists, card_multisets()),
       level=level_values, card=st.one_of(near_cards, scalar_junk),
       masks=st.one_of(st.tuples(st.integers(0, FACE_MASK), st.integers(0, FACE_MASK)), st.tuples(any_int, any_int),
                       st.tuples(scalar_junk, st.just(0)), st.sampled_from([(1 << 54, 0), (0, 1 << 60), (1, 3)])))
def test_hand_methods(h, other, level, card, masks):
    h = Hand(h)
    for name, fn in (("Hand + x", lambda: h + other), ("Hand - x", lambda: h - other)):
        ok, r = attempt(name, fn)
        if ok:
            assert isinstance(r, Hand) and r.counts().max(initial=0) <= 2
    attempt("Hand.cards(level)", h.cards, level)
    ok, w = attempt("Hand.wilds(level)", h.wilds, level)
    if ok:
        assert w == h.count("H" + RANKS[level_ok(level)])
    ok, n = attempt("Hand.count(card)", h.count, card)
    if ok:
        assert card.upper() in FACES and n == Counter(h)[card.upper()]   # either case
    attempt("x in Hand", lambda: card in h)
    assert Hand.from_masks(*h.masks) == h
    ok, r = attempt("Hand.from_masks", Hand.from_masks, *masks)
    if ok:
        assert all(isinstance(x, (int, np.integer)) for x in masks)
        one, two = (int(x) for x in masks)
        assert 0 <= one and 0 <= two
        assert r.masks == (one, two) and two & ~one == 0 and (one | two) & ~FACE_MASK == 0


count_values = st.one_of(st.integers(0, 2), st.integers(0, 2), st.integers(-3, 4), big_ints, floats,
                         st.sampled_from([True, False, None, "1", "0", b"1", 1.0, 2.0, 0.0, 1.5, np.int8(1),
                                          np.uint8(2), np.int64(3), np.float64(1.0), np.bool_(True),
                                          np.int64(-1), [1], object()]))


@fuzz_settings()
@given(data=st.data(), n=st.one_of(st.just(54), st.just(54), st.sampled_from([0, 1, 53, 55, 108])),
       form=st.sampled_from(["list", "tuple", "array", "array-int", "gen", "junk"]))
def test_hand_from_counts(data, n, form):
    if form == "junk":
        x = data.draw(junk, label="counts")
        vals = None
    elif form == "array-int":
        dtype = data.draw(st.sampled_from([np.int8, np.uint8, np.int64, np.uint64, np.int16, np.float64,
                                           np.float32, np.bool_]))
        x = data.draw(hnp.arrays(dtype, n), label="counts")
        vals = list(x)
    else:
        all_valid = data.draw(st.booleans())
        vals = data.draw(st.lists(st.integers(0, 2) if all_valid else count_values, min_size=n, max_size=n),
                         label="counts")
        x = {"list": vals, "tuple": tuple(vals), "gen": (v for v in vals)}.get(form)
        if form == "array":
            try:
                x = np.array(vals)
                vals = list(x)          # what from_counts sees (numpy converts, e.g. True -> 1)
            except Exception:
                x = vals
    ok, h = attempt("Hand.from_counts", Hand.from_counts, x)
    if not ok:
        if vals is not None and len(vals) == 54 and all(is_int(v) and 0 <= v <= 2 for v in vals):
            raise AssertionError(f"from_counts refused valid counts {vals}: {h}")
        return
    # accepted: exactly 54 integer counts 0..2 (no floats like 1.5, no strings, no bools)
    assert vals is not None and len(vals) == 54, f"from_counts accepted {short(x)}"
    bad = [v for v in vals if not (is_int(v) and 0 <= v <= 2)]
    assert not bad, f"from_counts accepted non-integer or out-of-range counts {short(bad)} -> {h!r}"
    assert [int(v) for v in vals] == h.counts().tolist()


# ---------------------------------------------------------------------------
# moves: Move words, from_platform / from_cards / parse_move, classify, beats
# ---------------------------------------------------------------------------

@fuzz_settings(1.5)
@given(args=move_args(), other_args=move_args(), triple=triples, level=level_values)
def test_move_methods_on_arbitrary_words(args, other_args, triple, level):
    m = make_move(args)
    if m is None:
        lo, hi, _ = args
        return
    lo, hi, lv = args
    kind = "Move methods"
    for name in ("to_platform", "__str__", "__repr__", "hand", "__len__", "__hash__"):
        attempt(f"Move.{name}", getattr(m, name))
    for name in ("type", "rank", "cards", "level", "words", "is_pass", "is_bomb"):
        attempt(f"Move.{name}", getattr, m, name)
    ok, blob = attempt("pickle.dumps(Move)", pickle.dumps, m)
    if ok:
        ok2, m2 = attempt("pickle.loads(Move)", pickle.loads, blob)
        assert ok2 and m2 == m and m2.words == m.words
    if tribute_tag(lo):
        ok, t = attempt(kind, m.to_platform)
        assert ok and t[0] in ("tribute", "back") and len(t[2]) == 1
    elif valid_words(lo, hi, lv) and lo != 0:
        # a genuine move: every method works and the notation round-trips
        t = m.to_platform()
        assert Move.from_platform(t, int(lv) + 2) == m
        assert parse_move(str(m), int(lv) + 2) == m
        assert sorted(m.cards) == sorted(m.hand())
        assert not m.beats(m)
    other = make_move(other_args)
    for o in (other, None, triple, Move.pass_move()):
        if o is None and other is None:
            continue
        ok, b = attempt("Move.beats(other)", m.beats, o)
        if ok:
            assert isinstance(b, bool)
    if other is not None and valid_words(lo, hi, lv) and valid_words(*other_args) and lo and other_args[0] \
            and int(lv) == int(other_args[2]):
        assert not (m.beats(other) and other.beats(m)), f"{m} and {other} beat each other"


def test_move_known_bad_tags():
    # hostile words: type tags 13 and 15 (no such type), keys >= 16, a level >= 13
    for lo, hi, lv in ((13 << TAG, 0, 0), (15 << TAG, 0, 0), ((15 << TAG) | 1, 0, 0), ((13 << TAG) | 0xF, 0, 5),
                       ((1 << TAG) | 1, 16 << TAG, 0), ((1 << TAG) | 1, 31 << TAG, 0), ((1 << TAG) | 1, 0, 13),
                       ((1 << TAG) | 1, 0, 14), ((1 << TAG) | 1, 0, -1)):
        m = make_move((lo, hi, lv))
        if m is not None:
            for fn in (m.to_platform, m.__repr__, m.__str__, lambda: pickle.dumps(m),
                       lambda: m.beats(Move.pass_move())):
                attempt("Move(bad words) methods", fn)
            must_reject("legal_moves(last=bad words)", "last is not a move",
                        legal_moves, "S3 S4 S5", "2", last=m)


@fuzz_settings()
@given(triple=st.one_of(triples, real_moves().map(lambda m: m.to_platform()),
                        real_moves().map(lambda m: json.dumps(m.to_platform())), st.text(max_size=40)),
       level=level_values, rules=rules_values,
       cards=st.one_of(card_multisets(1, 10), card_multisets(1, 10).map(" ".join), card_lists, junk))
def test_from_platform_and_parse_move(triple, level, rules, cards):
    ok, m = attempt("Move.from_platform", Move.from_platform, triple, level, rules=rules)
    if ok:
        lv = level_ok(level)
        assert lv is not None, f"from_platform accepted the level {short(level)}"
        if not m.is_pass:
            assert Move.from_platform(m.to_platform(), lv + 2) == m
    attempt("parse_move", parse_move, triple, level, rules=rules)
    ok, m = attempt("Move.from_cards", Move.from_cards, cards, level, rules=rules)
    if ok:
        assert m.type not in (MoveType.PASS, MoveType.TRIBUTE, MoveType.BACK)


@fuzz_settings()
@given(cards=st.one_of(card_multisets(0, 12), card_lists, junk, card_multisets(0, 12).map(" ".join)),
       level=level_values, rules=rules_values)
def test_classify(cards, level, rules):
    ok, readings = attempt("classify", classify, cards, level, rules=rules)
    if not ok:
        return
    lv = level_ok(level)
    assert lv is not None, f"classify accepted the level {short(level)}"
    as_list = cards.split() if isinstance(cards, str) else list(cards) if isinstance(cards, (list, tuple)) else None
    for m in readings:
        if as_list is not None:
            assert Counter(m.cards) == Counter(c.upper() for c in as_list)   # either case
        assert Move.from_platform(m.to_platform(), lv + 2, rules=rules) == m
    if readings:
        assert Move.from_cards(cards, level, rules=rules) == readings[0]


# ---------------------------------------------------------------------------
# legal_moves and MoveList
# ---------------------------------------------------------------------------

@fuzz_settings(2)
@given(args=one_hostile(
    dict(hand=card_multisets(), level=st.sampled_from(list(RANKS) + list(range(2, 15))),
         last_kind=st.sampled_from(["none", "move", "move", "pass"]), mode=st.sampled_from(["full", "pattern"]),
         rules=st.sampled_from([None, Rules.default(), Rules.contest()])),
    dict(hand=st.one_of(card_lists, junk), level=level_values,
         last_kind=st.sampled_from(["words", "words", "triple", "junk"]),
         mode=scalar_junk, rules=rules_values)),
       data=st.data())
def test_legal_moves(args, data):
    hand, level, last_kind, mode, rules = (args[k] for k in ("hand", "level", "last_kind", "mode", "rules"))
    lv = level_ok(level)
    last = None
    last_move = None
    if last_kind == "move" and lv is not None:
        last_move = last = data.draw(real_moves(lv), label="last")          # a real play at this level
    elif last_kind == "words":
        last_move = last = make_move(data.draw(move_args(), label="last words"))
    elif last_kind == "triple":
        last = data.draw(triples, label="last triple")
    elif last_kind == "junk":
        last = data.draw(junk, label="last junk")
    elif last_kind == "pass":
        last = data.draw(st.sampled_from([Move.pass_move(), ["PASS", "PASS", "PASS"]]))
    ok, ms = attempt("legal_moves", legal_moves, hand, level, last, mode=mode, rules=rules)
    if isinstance(last_move, Move) and tribute_tag(last_move._lo):
        assert not ok, f"legal_moves(last={last_move!r}) (a tribute/back action) answered {short(ms)}"
    if isinstance(last, list) and last and isinstance(last[0], str) and last[0] in ("tribute", "back"):
        assert not ok, f"legal_moves(last={last!r}) (a tribute/back action) answered {short(ms)}"
    valid_hand = isinstance(hand, list) and all(isinstance(c, str) and c in FACES for c in hand) and \
        max(Counter(hand).values(), default=0) <= 2
    valid_call = lv is not None and isinstance(mode, str) and mode in ("full", "pattern") \
        and (rules is None or isinstance(rules, Rules))
    if not ok:
        if valid_hand and valid_call and (last_kind in ("none", "pass") or (last_kind == "move" and rules is None)):
            raise AssertionError(f"legal_moves refused a valid call: {hand} {level!r} last={last!r}: {ms}")
        return
    assert lv is not None, f"legal_moves accepted the level {short(level)}"
    assert valid_call, f"legal_moves accepted mode {short(mode)} rules {short(rules)}"
    ok, h = attempt("Hand(x)", Hand, hand)
    assert ok, f"legal_moves accepted a hand that Hand() refuses: {short(hand)}"
    n = len(ms)
    words = ms.to_numpy()
    assert words.shape == (n, 2) and len(ms.to_platform()) == n
    lm = last_move if isinstance(last_move, Move) and not last_move.is_pass else None
    if lm is not None:
        assert valid_words(*lm.words, lm._level), f"accepted last words {lm.words} at level {lm._level}"
    following = n > 0 and ms[0].is_pass
    if last_kind in ("none", "pass"):
        assert not following
    if lm is not None:
        assert following
    rnd = random.Random(n)
    idx = range(n) if n <= 40 else rnd.sample(range(n), 40)
    for i in idx:
        m = ms[i]
        assert m.words == tuple(int(x) for x in words[i])
        if m.is_pass:
            assert i == 0
            continue
        h - m.hand()                            # the cards are in the hand
        if lm is not None and lm._level == lv:
            assert m.beats(lm)
    if lm is not None:
        # the same as with the platform triple (re-read at this level when it is another one's move)
        assert list(ms) == list(legal_moves(h, lv + 2, lm.to_platform(), mode=mode, rules=rules))


@fuzz_settings()
@given(hand=card_multisets(1, 15), level=st.sampled_from(list(RANKS)), key=st.one_of(junk, big_ints),
       margs=move_args(), start=st.one_of(st.none(), any_int, scalar_junk), stop=st.one_of(st.none(), any_int))
def test_movelist_methods(hand, level, key, margs, start, stop):
    ms = legal_moves(hand, level)
    n = len(ms)
    # the sequence protocol may raise IndexError / TypeError for a bad index, as a list does
    for name, fn in (("MoveList[i]", lambda: ms[key]), ("MoveList.raw(i)", lambda: ms.raw(key))):
        ok, r = attempt(name, fn, allow=(IndexError, TypeError))
        if ok:
            # (bools index like 0 and 1, as in a list)
            assert isinstance(key, (int, np.integer)) and -n <= key < n, f"{name} accepted index {short(key)} of {n}"
    m = make_move(margs)
    target = m if m is not None else margs
    ok, r = attempt("MoveList.find", ms.find, *margs[:2]) if all(is_int(x) and 0 <= x <= U64 for x in margs[:2]) \
        else (False, None)
    if ok and m is not None:
        assert r == -1 or ms[r] == m
    for name, fn in (("MoveList.index_of", ms.index_of), ("MoveList.count", ms.count),
                     ("x in MoveList", lambda t: t in ms)):
        ok, r = attempt(name, fn, target)
        assert ok, f"{name} refused {short(target)}: {r}"
        if name == "MoveList.count":
            assert r in (0, 1)
    # list.index semantics: ValueError when absent, TypeError for non-integer bounds
    ok, i = attempt("MoveList.index", ms.index, target, 0 if start is None else start, stop,
                    allow=(ValueError, TypeError))
    if ok:
        assert m is not None and ms[i] == m
        if is_int(start):
            assert i >= (start if start >= 0 else max(0, n + start))
    ok, r = attempt("MoveList[slice]", lambda: ms[start:stop], allow=(TypeError,))
    if ok:
        assert r == list(ms)[start:stop]
    real = ms[len(hand) % n]
    assert ms.index(real) == list(ms).index(real) and ms.count(real) == 1 and real in ms


# ---------------------------------------------------------------------------
# legal_moves_batch
# ---------------------------------------------------------------------------

@st.composite
def count_arrays(draw):
    dtype = draw(st.sampled_from([np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint64,
                                  np.bool_, np.float32, np.float64, np.complex64, object, "U2"]))
    n = draw(st.integers(0, 4))
    shape = (n, 54) if draw(st.integers(0, 4)) else draw(st.sampled_from(
        [(n,), (n, 53), (n, 55), (2, 54, 1), (54,), (), (0, 0), (1, 0)]))
    if dtype is object:
        return np.array([[draw(st.sampled_from([0, 1, 2, None, "1", 1.5]))] * 54] * n, dtype=object)
    if dtype == "U2":
        return np.full((n, 54), draw(st.sampled_from(["0", "1", "x"])))
    if np.dtype(dtype).kind in "iub":
        info = np.iinfo(dtype) if np.dtype(dtype).kind != "b" else None
        if info is None:
            elements = st.booleans()
        elif draw(st.booleans()):
            elements = st.sampled_from([0, 0, 0, 0, 1, 1, 2])     # hands of ~20 cards, like real ones
        else:
            elements = st.integers(max(int(info.min), -300), min(int(info.max), 300))
    else:
        elements = st.sampled_from([0.0, 1.0, 2.0, 0.5, 1.5, -1.0, float("nan"), float("inf")])
    return draw(hnp.arrays(dtype, shape, elements=elements))


@fuzz_settings()
@given(arr=st.one_of(count_arrays(), count_arrays(), junk, st.lists(card_multisets(0, 27), max_size=3)),
       levels=st.one_of(level_values, st.lists(level_values, max_size=5),
                        hnp.arrays(np.int64, st.integers(0, 5), elements=st.integers(-2, 16))),
       last_kind=st.sampled_from(["none", "zeros", "real", "raw", "junk", "signed", "tribute"]),
       data=st.data(), mode=st.one_of(st.sampled_from(["full", "pattern"]), scalar_junk))
def test_legal_moves_batch(arr, levels, last_kind, data, mode):
    n = arr.shape[0] if isinstance(arr, np.ndarray) and arr.ndim >= 1 else \
        (len(arr) if isinstance(arr, (list, tuple)) else 0)
    last = None
    if last_kind == "zeros":
        last = np.zeros((n, 2), dtype=np.uint64)
    elif last_kind == "real":
        lvs = [data.draw(st.integers(0, 12)) for _ in range(n)]
        last = np.array([data.draw(real_moves(lv)).words for lv in lvs], dtype=np.uint64).reshape(n, 2)
    elif last_kind == "raw":
        last = np.array([data.draw(raw_words()) for _ in range(n)], dtype=np.uint64).reshape(n, 2)
    elif last_kind == "signed":
        last = data.draw(hnp.arrays(np.int64, (n, 2), elements=st.integers(-2 ** 63, 2 ** 63 - 1)))
    elif last_kind == "tribute":
        last = np.array([[(1 << data.draw(st.integers(0, 53))) | (11 << TAG), 0] for _ in range(n)],
                        dtype=np.uint64).reshape(n, 2)
    elif last_kind == "junk":
        last = data.draw(junk)
    ok, b = attempt("legal_moves_batch", legal_moves_batch, arr, levels, last, mode=mode)
    if last_kind == "tribute" and n:
        assert not ok, "legal_moves_batch accepted tribute actions as `last`"
    if not ok:
        return
    assert mode in ("full", "pattern")
    if isinstance(arr, np.ndarray):
        assert arr.ndim == 2 and arr.shape[1] == 54, f"accepted hands of shape {arr.shape}"
        assert arr.size == 0 or (arr.min() >= 0 and arr.max() <= 2)
        assert arr.dtype.kind in "iub", f"accepted hands of dtype {arr.dtype}"
        hands = [Hand.from_counts([int(c) for c in row]) for row in arr]
    else:
        hands = [Hand(h) for h in arr]      # a sequence of anything Hand() takes
    n = len(hands)
    assert len(b) == n and b.offsets.shape == (n + 1,) and b.words.shape == (int(b.offsets[-1]), 2)
    lvs = list(b.levels)
    assert all(0 <= int(x) <= 12 for x in lvs)
    for i in range(n):
        lw = (0, 0) if last is None else tuple(int(x) for x in np.asarray(last)[i])
        if lw != (0, 0):
            assert valid_words(*lw, int(lvs[i])), f"batch accepted last row {i} = {lw}"
            ref = legal_moves(hands[i], int(lvs[i]) + 2, Move(*lw, int(lvs[i])), mode=mode)
        else:
            ref = legal_moves(hands[i], int(lvs[i]) + 2, mode=mode)
        assert b.moves(i) == list(ref)


# ---------------------------------------------------------------------------
# Game.from_position (arguments)
# ---------------------------------------------------------------------------

BAD_SEATS = [-128, -1, 4, 7, 1000, 2 ** 31, 2 ** 63, -2 ** 63, 1.0, 0.5, "0", None, True]
BAD_PASSES = [300, 1000, -1, 4, 128, 2 ** 31, 1.5, "1", True]
BAD_ROUND = [70000, -1, 32768, 65536, 2 ** 31, 2 ** 63, 1.0, "3", None, True]
BAD_AFAILS = [(), (0,), (0, 0, 0), (0, -1), (-1, 0), (128, 0), (0, 300), (1.5, 0), ("0", 0), (None, 0), 0, "00",
              (True, 0), (2 ** 63, 0)]
BAD_OWNER = [2, -2, 7, 128, -129, "0", 1.5, True]
BAD_TO_ACT = [-1, 4, 7, 1000, -128, 2 ** 63, "0", 1.5, None, True]


PERTURBATIONS = ["seat", "afails", "round", "passes", "owner", "to_act", "fin_extra", "fin_over", "overfull",
                 "beats", "tribute", "entry", "hands", "level", "team_levels", "lead_pass", "passes_no_trick",
                 "rules", "seed", "swap", "junk_kw"]


# the argument each perturbation changes
FIELDS = {"seat": "trick", "afails": "a_fails", "round": "round_index", "passes": "passes", "owner": "owner",
          "to_act": "to_act", "fin_extra": "finished", "fin_over": "finished", "overfull": "position",
          "beats": "trick", "tribute": "trick", "entry": "trick", "hands": "position", "level": "level",
          "team_levels": "team_levels", "lead_pass": "trick", "passes_no_trick": "passes", "rules": "rules",
          "seed": "seed", "swap": "trick"}


def _active(hands):
    return [s for s in range(4) if len(hands[s]) > 0]


def _next_active(hands, s):
    for k in range(1, 5):
        t = (s + k) % 4
        if len(hands[t]) > 0:
            return t
    return s


@st.composite
def position_cases(draw):
    """A play-phase position as from_position arguments, built valid (a
    trick played from the hands), then 0..3 perturbations; ``invalid`` lists
    the perturbations that make it certainly invalid."""
    rnd = random.Random(draw(st.integers(0, 2 ** 32 - 1), label="position seed"))
    L = rnd.randrange(13)
    rules = rnd.choice([None, Rules.default(), Rules.contest()])
    deck = DECK108[:]
    rnd.shuffle(deck)
    nfin = rnd.choice([0, 0, 0, 1, 2])
    fin = []
    if nfin >= 1:
        fin.append(rnd.randrange(4))
    if nfin == 2:
        fin.append(rnd.choice([s for s in range(4) if (s & 1) != (fin[0] & 1)]))
    hands, p = [], 0
    for s in range(4):
        k = 0 if s in fin else rnd.choice([1, 2, 3, 5, 8, 13, 20, 27])
        hands.append(deck[p:p + k])
        p += k
    active = _active(hands)
    trick = []
    to_act = rnd.choice(active)
    passes = None
    if rnd.random() < 0.6:
        leaders = [s for s in active if len(hands[s]) >= 2]
        if leaders:
            leader = rnd.choice(leaders)
            lead = [m for m in legal_moves(hands[leader], L + 2, rules=rules) if len(m) < len(hands[leader])]
            top = rnd.choice(lead)
            hands[leader] = list(Hand(hands[leader]) - top.hand())
            trick = [(leader, top)]
            top_seat, np_, s = leader, 0, leader
            others = len([x for x in _active(hands) if x != leader])
            for _ in range(rnd.randrange(0, 6)):
                s = _next_active(hands, s)
                if s == top_seat:
                    break
                beat = [m for m in legal_moves(hands[s], L + 2, top, rules=rules)[1:] if len(m) < len(hands[s])]
                if beat and rnd.random() < 0.5:
                    top = rnd.choice(beat)
                    hands[s] = list(Hand(hands[s]) - top.hand())
                    trick.append((s, top))
                    top_seat, np_ = s, 0
                    others = len([x for x in _active(hands) if x != s])
                else:
                    if np_ + 1 >= others:
                        break          # that pass would close the trick
                    trick.append((s, Move.pass_move()))
                    np_ += 1
            s = trick[-1][0]
            to_act = _next_active(hands, s)
            while to_act == top_seat and np_ + 1 < others:
                to_act = _next_active(hands, to_act)
            if to_act == top_seat:
                to_act = _next_active(hands, to_act)
            passes = np_ if rnd.random() < 0.3 else None
    tl0 = RANKS[L]
    tl1 = RANKS[rnd.randrange(13)]
    kw = dict(position=[list(h) for h in hands], level=rnd.choice([RANKS[L], L + 2, np.int64(L + 2)]),
              to_act=to_act, team_levels=[tl0, tl1] if rnd.random() < 0.7 else None,
              owner=None, trick=[(s, rnd.choice([m, m.to_platform(), str(m)])) for s, m in trick],
              passes=passes, finished=rnd.sample(fin, len(fin)), round_index=rnd.choice([0, 1, 7, 100]),
              a_fails=tuple(rnd.choice([0, 0, 1, 2]) for _ in range(2)),
              rules=rules, seed=rnd.randrange(2 ** 64))
    if kw["team_levels"] is None:
        kw["owner"] = rnd.choice([None, None, 0, 1]) if False else None
    flags = {}          # argument -> "invalid" (certainly) or "maybe"

    def mark(p, kind, field=None):
        field = field or FIELDS[p]
        if kind == "maybe" and flags.get(field) == "invalid" and field == "trick" and p != "swap":
            return          # an invalid trick entry stays invalid whatever else is added
        flags[field] = kind

    n_pert = draw(st.sampled_from([0, 0, 1, 1, 1, 2, 3]), label="perturbations")
    perts = [draw(st.sampled_from(PERTURBATIONS), label="perturbation") for _ in range(n_pert)]
    # the ones that replace a whole argument by junk go last, once
    perts = [p for p in perts if p not in ("hands", "junk_kw")] + \
        [p for p in ("hands", "junk_kw") if p in perts]
    for p in perts:
        if p == "seat":
            pairs = [i for i, e in enumerate(kw["trick"]) if isinstance(e, tuple) and len(e) == 2]
            if pairs:
                i = rnd.choice(pairs)
                kw["trick"][i] = (draw(st.sampled_from(BAD_SEATS)), kw["trick"][i][1])
                mark(p, "invalid")
        elif p == "afails":
            kw["a_fails"] = draw(st.sampled_from(BAD_AFAILS))
            mark(p, "invalid")
        elif p == "round":
            kw["round_index"] = draw(st.sampled_from(BAD_ROUND))
            mark(p, "invalid")
        elif p == "passes":
            kw["passes"] = draw(st.sampled_from(BAD_PASSES))
            mark(p, "invalid")
        elif p == "owner":
            kw["owner"] = draw(st.sampled_from(BAD_OWNER))
            mark(p, "invalid")
        elif p == "to_act":
            kw["to_act"] = draw(st.sampled_from(BAD_TO_ACT))
            mark(p, "invalid")
        elif p in ("fin_extra", "fin_over", "overfull") and not (
                isinstance(kw["position"], list) and len(kw["position"]) == 4
                and all(isinstance(h, list) for h in kw["position"])):
            continue
        elif p == "fin_extra":
            with_cards = [s for s in range(4) if kw["position"][s]]
            if with_cards:
                kw["finished"] = list(kw["finished"]) + [rnd.choice(with_cards)]
                mark(p, "invalid")
        elif p == "fin_over":
            a = rnd.randrange(4)
            over = rnd.choice([[a, a ^ 2], [a, (a + 1) % 4, (a + 2) % 4], [0, 1, 2, 3]])
            for s in over:
                kw["position"][s] = []
            kw["finished"] = over
            mark(p, "invalid")
        elif p == "overfull":
            # cards of the trick (or of another hand) added to a hand: more than two decks
            pool = [c for _, m in trick for c in m.cards] or [c for h in kw["position"] for c in h]
            if pool:
                c = rnd.choice(pool)
                s = rnd.randrange(4)
                kw["position"][s] = list(kw["position"][s]) + [c] * (2 - kw["position"][s].count(c))
                mark(p, "maybe")
        elif p == "beats" and len(trick) >= 1:
            s0 = trick[0][0]
            weak = [m for m in legal_moves(DECK108[:54], L + 2)[:400]]
            kw["trick"] = list(kw["trick"]) + [(s0, rnd.choice(weak))]
            mark(p, "maybe")
        elif p == "tribute":
            f = rnd.randrange(54)
            mv = rnd.choice([Move((1 << f) | (11 << TAG), 0, L), ["tribute", "tribute", [FACES[f]]],
                             ["back", "back", [FACES[f]]]])
            kw["trick"] = list(kw["trick"]) + [(to_act, mv)]
            mark(p, "invalid")
        elif p == "entry":
            bad = draw(st.sampled_from([(0,), (0, "PASS", 1), "0", 0, None, [Move.pass_move()], {"seat": 0}]))
            kw["trick"] = list(kw["trick"]) + [bad]
            mark(p, "invalid")
        elif p == "hands":
            kw["position"] = draw(st.sampled_from([kw["position"][:3], kw["position"] + [[]], None, 5, "S3",
                                                   [None] * 4, [["S3"], 5, [], []]]))
            mark(p, "invalid")
        elif p == "level":
            v = draw(level_values)
            kw["level"] = v
            if v is not None and level_ok(v) is None:       # None: the default level 2
                mark(p, "invalid")
            else:
                mark(p, "maybe")
        elif p == "team_levels":
            v = draw(st.one_of(st.lists(level_values, max_size=3), junk))
            kw["team_levels"] = v
            mark(p, "maybe")
        elif p == "lead_pass":
            kw["trick"] = [(to_act, Move.pass_move())] + list(kw["trick"])
            mark(p, "invalid")
        elif p == "passes_no_trick" and not kw["trick"]:
            kw["passes"] = rnd.choice([1, 2, 3])
            mark(p, "invalid")
        elif p == "rules":
            kw["rules"] = draw(st.sampled_from(["contest", 1, {}, Rules, object()]))
            mark(p, "invalid")
        elif p == "seed":
            kw["seed"] = draw(st.sampled_from([-1, 2 ** 64, 2 ** 70, 1.5, "1", None]))
            mark(p, "invalid")
        elif p == "swap" and len(kw["trick"]) >= 2:
            t = list(kw["trick"])
            i, j = rnd.sample(range(len(t)), 2)
            t[i], t[j] = t[j], t[i]
            kw["trick"] = t
            mark(p, "maybe")
        elif p == "junk_kw":
            k = rnd.choice(["trick", "finished", "a_fails", "passes", "round_index", "to_act", "owner"])
            kw[k] = draw(junk)
            flags[k] = "maybe"
    invalid = sorted(f for f, k in flags.items() if k == "invalid")
    maybe = sorted(f for f, k in flags.items() if k == "maybe")
    return kw, invalid, maybe, rnd.randrange(2 ** 32)


def _trick_moves(kw, lv):
    """The trick's plays as Moves at lv (None if an entry cannot be read)."""
    out = []
    for entry in kw["trick"] or ():
        try:
            s, mv = entry
            m = mv if isinstance(mv, Move) else parse_move(mv, lv + 2)
        except Exception:
            return None
        out.append((s, m))
    return out


@fuzz_settings(2)
@given(case=position_cases())
def test_from_position_arguments(case):
    kw, invalid, maybe, seed = case
    kw = dict(kw)
    position = kw.pop("position")
    ok, g = attempt("Game.from_position(args)", Game.from_position, position, **kw)
    if not ok:
        assert invalid or maybe, f"a valid position was refused: {g}\n{short(kw, 2000)}"
        return
    assert not invalid, f"from_position accepted an invalid position ({', '.join(invalid)}): " \
                        f"{short(position, 600)} {short(kw, 1500)} -> {g.position}"
    # what was accepted is what the game holds: nothing wrapped or dropped
    lv = g.level_index
    assert level_ok("2" if kw["level"] is None else kw["level"]) == lv
    assert g.to_act == kw["to_act"] and g.round_index == kw["round_index"]
    assert tuple(g.a_fails) == tuple(kw["a_fails"])
    assert sorted(g.finish_order) == sorted(kw["finished"])
    hands = [Hand(h) for h in position]
    assert g.hands == hands
    tm = _trick_moves(kw, lv)
    assert tm is not None
    plays = [m for _, m in tm if not m.is_pass]
    assert not deck_overflow([list(h) for h in hands], plays), "hands and trick exceed two decks"
    for a, b in zip(plays, plays[1:]):
        assert b.beats(a), f"accepted a trick where {b} does not beat {a}"
    for s, m in tm:
        assert is_int(s) and 0 <= s <= 3
    top = g.top
    seat, (lo, hi), passes = (-1, (0, 0), g.passes) if top is None else (top.seat, top.move.words, g.passes)
    if plays:
        assert (lo, hi) == plays[-1].words and seat == [s for s, m in tm if not m.is_pass][-1]
    else:
        assert seat == -1 and lo == 0 and passes == 0
    if kw["passes"] is not None:
        assert passes == kw["passes"]
    exercise(g, random.Random(seed), steps=10)


def test_from_position_known_bad_arguments():
    base = ([["S3", "S4"], ["HA"], ["D5"], ["C9"]],)
    cases = [dict(trick=[(s, ["Single", "5", ["D5"]])]) for s in (-128, -1, 7, 1000)]
    cases += [dict(a_fails=a) for a in ((), (0,), (0, 0, 0))]
    cases += [dict(round_index=70000), dict(passes=300, trick=[(1, "HA")], to_act=2),
              dict(passes=1000), dict(passes=-1), dict(owner=5), dict(to_act=4),
              dict(finished=[1, 3])]
    for kw in cases:
        kw.setdefault("level", "2")
        kw.setdefault("to_act", 0)
        must_reject("Game.from_position(known bad)", str(kw), Game.from_position, *base, **kw)
    # over-full with the trick's cards, and plays that do not beat each other
    must_reject("Game.from_position(known bad)", "trick cards beyond two decks", Game.from_position,
                [["S3", "S4"], ["HA", "HA"], ["D5"], ["C9"]], level="2", to_act=2, trick=[(1, ["Single", "A", ["HA"]])])
    must_reject("Game.from_position(known bad)", "trick plays that do not beat", Game.from_position,
                [["S3", "S4"], ["HA"], ["D5"], ["C9"]], level="2", to_act=3,
                trick=[(1, ["Single", "K", ["HK"]]), (2, ["Single", "3", ["D3"]])])


# ---------------------------------------------------------------------------
# position strings
# ---------------------------------------------------------------------------

def _played_position(seed, steps):
    """A play-phase position string reached by random play from Game(seed)."""
    g = Game(seed=seed, policy_seed=seed)
    for _ in range(steps):
        if g.is_over:
            break
        g.play_policy("random")
    while not g.is_over and g.phase != "play":
        g.play_policy("random")
    return g


NUMBER_SUBS = ["-1", "4", "7", "128", "300", "1000", "32767", "32768", "70000", "2147483648",
               "18446744073709551616", "99999999999999999999", "01", "+1", "1_0", "\u0663", "1.0", "", "-",
               "0x1", "1e3", "-0", "nan"]


@fuzz_settings(2)
@given(seed=st.integers(0, 2 ** 64 - 1), steps=st.integers(0, 120), data=st.data(),
       n_mut=st.sampled_from([0, 1, 1, 1, 2, 3]))
def test_position_strings(seed, steps, data, n_mut):
    g0 = _played_position(seed, steps)
    if g0.is_over:
        return
    s = g0.position
    muts = []
    for _ in range(n_mut):
        fields = s.split(" ")
        kind = data.draw(st.sampled_from(["swap", "truncate", "delete", "insert", "replace_char", "number",
                                          "field_junk", "dup_hand", "extra_field", "drop_field",
                                          "sep", "top_seat", "hand_card"]), label="mutation")
        muts.append(kind)
        if kind == "swap" and len(fields) >= 2:
            i, j = data.draw(st.lists(st.integers(0, len(fields) - 1), min_size=2, max_size=2, unique=True))
            fields[i], fields[j] = fields[j], fields[i]
            s = " ".join(fields)
        elif kind == "truncate":
            s = s[:data.draw(st.integers(0, max(0, len(s) - 1)))]
        elif kind == "delete" and s:
            i = data.draw(st.integers(0, len(s) - 1))
            s = s[:i] + s[i + 1:]
        elif kind == "insert":
            i = data.draw(st.integers(0, len(s)))
            s = s[:i] + data.draw(st.sampled_from(list("0123456789-/:,SHCDTJQKABR xyz") + ["\x00", "\u00e9",
                                                                                        "\n", "\t"])) + s[i:]
        elif kind == "replace_char" and s:
            i = data.draw(st.integers(0, len(s) - 1))
            s = s[:i] + data.draw(st.sampled_from(list("0123456789-/:,SHCD9AR "))) + s[i + 1:]
        elif kind == "number" and len(fields) >= 10:
            i = data.draw(st.sampled_from([3, 4, 6, 8, 9, 9]))
            v = data.draw(st.sampled_from(NUMBER_SUBS))
            fields[i] = f"{v},{v}" if i == 9 and data.draw(st.booleans()) else \
                (f"0,{v}" if i == 9 else v)
            s = " ".join(fields)
        elif kind == "field_junk" and fields:
            i = data.draw(st.integers(0, len(fields) - 1))
            fields[i] = data.draw(st.text(alphabet="0123456789-/:,SHCDTJQKABRx", min_size=0, max_size=12))
            s = " ".join(fields)
        elif kind == "dup_hand" and fields:
            hs = fields[0].split("/")
            if len(hs) == 4:
                i, j = data.draw(st.integers(0, 3)), data.draw(st.integers(0, 3))
                hs[i] = hs[j] if hs[j] != "-" else hs[i]
                fields[0] = "/".join(hs)
                s = " ".join(fields)
        elif kind == "extra_field":
            s = s + " " + data.draw(st.sampled_from(["0", "-", "over:0", "tribute:0123:-:-", "play"]))
        elif kind == "drop_field" and fields:
            del fields[data.draw(st.integers(0, len(fields) - 1))]
            s = " ".join(fields)
        elif kind == "sep":
            s = s.replace(data.draw(st.sampled_from(["/", ",", ":", " "])),
                          data.draw(st.sampled_from(["//", ";", "", "  ", ",", ":"])), 1)
        elif kind == "top_seat" and len(fields) >= 6 and fields[5] != "-":
            parts = fields[5].split(":")
            parts[0] = data.draw(st.sampled_from(["-1", "-128", "4", "7", "1000", "x", ""]))
            fields[5] = ":".join(parts)
            s = " ".join(fields)
        elif kind == "hand_card" and fields:
            fields[0] = fields[0] + data.draw(st.sampled_from(["S3", "HR", "SB", "S1", "X", "S3S3S3", "/S3"]))
            s = " ".join(fields)
    ok, g = attempt("Game.from_position(str)", Game.from_position, s)
    if s == g0.position:
        assert ok, f"a position the engine produced was refused: {s!r}: {g}"
        assert g.position == s
    if not ok:
        return
    p = g.position
    f_in, f_out = s.split(), p.split()
    assert len(f_in) == 10 and len(f_out) == 10, (s, p)
    # numbers are taken as written: nothing wrapped into int8/int16
    for i in (4, 6, 8):
        try:
            v = int(f_in[i])
        except ValueError:
            continue
        assert v == int(f_out[i]), f"field {i} {f_in[i]!r} became {f_out[i]!r}: {s!r} -> {p!r}"
    try:
        assert tuple(int(x) for x in f_in[9].split(",")) == tuple(int(x) for x in f_out[9].split(","))
    except ValueError:
        pass
    for a, b in zip(f_in[0].split("/"), f_out[0].split("/")):
        if a != "-" and len(a) % 2 == 0:
            assert Counter(a[i:i + 2] for i in range(0, len(a), 2)) == \
                Counter(b[i:i + 2] for i in range(0, len(b), 2)) or b == "-", (s, p)
    exercise(g, random.Random(seed), steps=8)


# ---------------------------------------------------------------------------
# records: Game.replay and `guandan replay FILE`
# ---------------------------------------------------------------------------

_RECORDS = {}


def base_record(k):
    """A few genuine records (cached): one round or a bit more, some from a
    position, one of a whole game."""
    k %= 6
    if k not in _RECORDS:
        pols = [("random", "greedy", "random", "greedy"), ("greedy",) * 4, ("random",) * 4][k % 3]
        if k == 5:
            g = Game.from_position([["S3", "S4", "S5"], ["HA", "H9"], ["D5", "DK"], ["C9", "CJ"]], level="7",
                                   to_act=0, team_levels=["7", "9"], seed=5, policy_seed=5)
            g.play_out(pols, until="round")
        else:
            g = Game(seed=1000 + k, rules=Rules.contest() if k == 2 else None, policy_seed=k)
            if k == 4:
                g.play_out(pols)
            else:
                g.play_out(pols, until="round")
            for _ in range(6):          # into the next round: tribute / return actions
                if not g.is_over:
                    g.play_policy(pols[g.to_act])
        _RECORDS[k] = (g.record(), g.position)
    rec, pos = _RECORDS[k]
    return copy.deepcopy(rec), pos


RECORD_MUTATIONS = ["seat", "action", "tribute_in_play", "delete_action", "swap_actions", "truncate",
                    "delete_field", "field_type", "rules", "start", "deals", "json", "deep", "format", "result"]


def mutate_record(rec, data):
    """(record or JSON text, list of mutations applied)."""
    applied = []
    text = None
    for _ in range(data.draw(st.sampled_from([0, 1, 1, 1, 2, 3]), label="record mutations")):
        kind = data.draw(st.sampled_from(RECORD_MUTATIONS), label="record mutation")
        acts = rec.get("actions") if isinstance(rec, dict) else None
        applied.append(kind)
        if kind == "seat" and isinstance(acts, list) and acts:
            i = data.draw(st.integers(0, len(acts) - 1))
            if isinstance(acts[i], list) and acts[i]:
                acts[i][0] = data.draw(seat_values)
        elif kind == "action" and isinstance(acts, list) and acts:
            i = data.draw(st.integers(0, len(acts) - 1))
            if isinstance(acts[i], list) and len(acts[i]) == 2:
                acts[i][1] = data.draw(st.one_of(triples, st.sampled_from(
                    ["PASS", "S3", ["Single", "3", ["S3"]], ["PASS", "PASS", "PASS"], None, 5, []])))
            else:
                acts[i] = data.draw(junk)
        elif kind == "tribute_in_play" and isinstance(acts, list) and acts:
            i = data.draw(st.integers(0, len(acts) - 1))
            acts[i] = [acts[i][0] if isinstance(acts[i], list) and acts[i] else 0,
                       [data.draw(st.sampled_from(["tribute", "back"]))] * 2 + [[data.draw(st.sampled_from(FACES))]]]
        elif kind == "delete_action" and isinstance(acts, list) and acts:
            del acts[data.draw(st.integers(0, len(acts) - 1))]
        elif kind == "swap_actions" and isinstance(acts, list) and len(acts) >= 2:
            i = data.draw(st.integers(0, len(acts) - 2))
            acts[i], acts[i + 1] = acts[i + 1], acts[i]
        elif kind == "truncate" and isinstance(acts, list):
            del acts[data.draw(st.integers(0, len(acts))):]
        elif kind == "delete_field" and isinstance(rec, dict) and rec:
            del rec[data.draw(st.sampled_from(sorted(rec)))]
        elif kind == "field_type" and isinstance(rec, dict) and rec:
            k = data.draw(st.sampled_from(sorted(rec)))
            rec[k] = data.draw(st.one_of(junk, st.sampled_from([None, "", 0, -1, 2 ** 64, 1.5, [], {}, "x",
                                                                 [[0]], [[0, None]], [None]])))
        elif kind == "rules" and isinstance(rec, dict):
            r = rec.get("rules")
            r = dict(r) if isinstance(r, dict) else {}
            k = data.draw(st.sampled_from(["name", "a_win_partner", "a_fail_limit", "equal_tribute_leader",
                                           "wild_straight_flush", "max_rounds", "bogus"]))
            r[k] = data.draw(st.one_of(junk, st.sampled_from([0, -1, 70000, 2 ** 31, 1.5, "3", None, True,
                                                               "second", "payer", 101, 10001])))
            rec["rules"] = r
        elif kind == "start" and isinstance(rec, dict):
            st_ = rec.get("start")
            if isinstance(st_, str) and st_:
                i = data.draw(st.integers(0, len(st_) - 1))
                rec["start"] = st_[:i] + data.draw(st.sampled_from(["", "9", "-", " 70000", "x"])) + st_[i + 1:]
            else:
                rec["start"] = data.draw(st.sampled_from(["S3/S4/S5/S6 2 2,2 - 0 - 0 - 70000 0,0",
                                                          "S3/S4/S5/S6 2 2,2 - 7 - 0 - 0 0,0",
                                                          "S3/S4/S5/S6 2 2,2 - 0 - 300 - 0 0,0",
                                                          "S3/S4/S5/S6 2 2,2 - 0 - 0 - 0 0", "x", 5]))
        elif kind == "deals" and isinstance(rec, dict):
            d = rec.get("deals")
            if isinstance(d, list) and d and isinstance(d[0], list) and d[0]:
                d[0][0] = data.draw(st.one_of(st.sampled_from(["", "S3", "S3 S3 S3", None, 5]), junk))
            else:
                rec["deals"] = data.draw(junk)
        elif kind == "format" and isinstance(rec, dict):
            rec["format"] = data.draw(st.sampled_from(["guandan-record/2", "", None, 1, "guandan-record/1 "]))
        elif kind == "result" and isinstance(rec, dict):
            rec["result"] = data.draw(junk)
        elif kind == "json":
            t = json.dumps(rec, default=repr)
            op = data.draw(st.sampled_from(["truncate", "char", "nan", "dup_key"]))
            if op == "truncate":
                t = t[:data.draw(st.integers(0, len(t)))]
            elif op == "char":
                i = data.draw(st.integers(0, max(0, len(t) - 1)))
                t = t[:i] + data.draw(st.sampled_from(list("[]{},:\"0x\\") + ["\x00", "\ud800"])) + t[i + 1:]
            elif op == "nan":
                t = t.replace('"seed": ', '"seed": NaN, "x": ', 1)
            else:
                t = t[:-1] + ', "seed": -5}' if t.endswith("}") else t
            text = t
            break
        elif kind == "deep":
            n = data.draw(st.sampled_from([100, 5000, 100000]))
            text = data.draw(st.sampled_from(["[" * n + "]" * n, '{"format": "guandan-record/1", "actions": '
                                              + "[" * n + "]" * n + "}", "[" * n]))
            break
    return (text if text is not None else rec), applied


@fuzz_settings()
@given(k=st.integers(0, 5), data=st.data())
def test_replay_mutated_records(k, data):
    rec, pos = base_record(k)
    rec, applied = mutate_record(rec, data)
    ok, g = attempt("Game.replay(record)", Game.replay, rec)
    if not applied:
        assert ok, f"a genuine record was refused: {g}"
        assert g.position == pos
    if not ok:
        return
    r = rec if isinstance(rec, dict) else json.loads(rec)
    assert isinstance(r, dict) and isinstance(r.get("actions"), list)
    assert [a[0] for a in g.record()["actions"]] == [a[0] for a in r["actions"]]
    assert is_int(g.seed) and 0 <= g.seed < 2 ** 64
    exercise(g, random.Random(k), steps=4, deep_every=2)


def _one_line_error(err):
    lines = [x for x in err.splitlines() if x.strip()]
    return len(lines) == 1 and lines[0].startswith("guandan: error:") and "Traceback" not in err


@fuzz_settings(0.5)
@given(k=st.integers(0, 5), data=st.data())
def test_cli_replay_in_process(k, data, tmp_path_factory):
    rec, pos = base_record(k)
    rec, applied = mutate_record(rec, data)
    path = tmp_path_factory.mktemp("rec") / "r.json"
    text = rec if isinstance(rec, str) else json.dumps(rec, default=repr)
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    import contextlib
    import io
    out, err = io.StringIO(), io.StringIO()
    TRIED["guandan replay FILE (in process)"] += 1
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = cli_main(["replay", str(path)])
    except SystemExit as e:          # argparse
        rc = e.code
    except Exception as e:
        raise AssertionError(f"`guandan replay` raised {type(e).__name__}: {e!s:.200} on a record "
                             f"mutated by {applied}") from e
    if rc == 0:
        ACCEPTED["guandan replay FILE (in process)"] += 1
    else:
        assert rc == 2 and _one_line_error(err.getvalue()), (rc, err.getvalue()[-500:])
    if not applied:
        assert rc == 0, err.getvalue()


CLI_BAD_ARGS = [
    ["moves", "--level", "99", "S2"], ["moves", "--last", "[[[[", "S2"], ["moves", "S2", "S2", "S2"],
    ["moves", "--last", "tribute tribute S2", "S3"], ["moves", "--rules", "nope", "S2"],
    ["simulate", "--deals", "-5", "--quiet"], ["simulate", "--deals", "3", "--workers", "0", "--quiet"],
    ["simulate", "--deals", "3", "--seed", "-1", "--quiet"], ["simulate", "--deals", "3", "--policy", "x", "--quiet"],
    ["simulate", "--deals", "3", "--out", "/nonexistent-dir/x.npz", "--quiet"],
    ["replay", "/nonexistent.json"], ["replay", "/"], ["replay", "/dev/null"],
    ["play", "--bots", "nope", "--seed", "1"], ["play", "--seed", "-1"],
    ["bot", "nomodule:Nope"], ["bot", "os:path"], ["bot", "guandan.bots:Bot", "--url", "nonsense"],
    ["bot", "guandan.bots:Bot", "--url", "ws://127.0.0.1:1/game/x"],
    ["serve", "--port", "99999"], ["serve", "--port", "-1"], ["serve", "--games", "0"],
    ["serve", "--bots", "9=greedy"],
]


@pytest.mark.parametrize("argv", CLI_BAD_ARGS, ids=[" ".join(a)[:50] for a in CLI_BAD_ARGS])
def test_cli_bad_arguments_fail_cleanly(argv):
    """Each command refuses bad arguments (and failures of files, sockets and
    imports) with one `guandan: error: ...` line and exit code 2, no traceback."""
    import contextlib
    import io
    out, err = io.StringIO(), io.StringIO()
    TRIED["guandan CLI (bad arguments)"] += 1
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = cli_main(argv)
    except SystemExit as e:          # argparse's own usage errors
        rc = e.code
        assert rc == 2, (argv, rc)
        return
    except Exception as e:
        raise AssertionError(f"`guandan {' '.join(argv)}` raised {type(e).__name__}: {e}") from e
    assert rc == 2 and _one_line_error(err.getvalue()), (argv, rc, err.getvalue()[-500:])


@fuzz_settings(0.03)
@given(k=st.integers(0, 5), data=st.data())
def test_cli_replay_subprocess(k, data, tmp_path_factory):
    rec, pos = base_record(k)
    rec, applied = mutate_record(rec, data)
    path = tmp_path_factory.mktemp("rec") / "r.json"
    text = rec if isinstance(rec, str) else json.dumps(rec, default=repr)
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    TRIED["guandan replay FILE (subprocess)"] += 1
    r = subprocess.run([sys.executable, "-m", "guandan", "replay", str(path)], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode >= 0, f"`guandan replay` died of signal {-r.returncode}: {r.stderr[-3000:]}"
    if r.returncode == 0:
        ACCEPTED["guandan replay FILE (subprocess)"] += 1
    else:
        assert _one_line_error(r.stderr), f"exit {r.returncode} after {applied}: {r.stderr[-2000:]}"


# ---------------------------------------------------------------------------
# Game: construction, play, observation, perft, policies
# ---------------------------------------------------------------------------

def _game_at(seed, steps):
    g = Game(seed=seed, policy_seed=seed)
    for _ in range(steps):
        if g.is_over:
            break
        g.play_policy("random")
    return g


@fuzz_settings()
@given(args=one_hostile(dict(rules=st.sampled_from([None, Rules.default(), Rules.contest()]),
                             seed=st.one_of(st.none(), st.integers(0, 2 ** 64 - 1))),
                        dict(rules=rules_values, seed=st.one_of(any_int, scalar_junk))))
def test_game_constructor(args):
    rules, seed = args["rules"], args["seed"]
    ok, g = attempt("Game(rules, seed)", Game, rules, seed)
    if ok:
        assert rules is None or isinstance(rules, Rules)
        assert seed is None or (is_int(seed) and 0 <= seed < 2 ** 64), f"Game accepted seed {short(seed)}"
        check_game(g)


@fuzz_settings(1.5)
@given(seed=st.integers(0, 2 ** 32), steps=st.sampled_from([0, 0, 1, 5, 30, 120, 200]), data=st.data())
def test_game_play_garbage(seed, steps, data):
    g = _game_at(seed, steps)
    if g.is_over:
        return
    legal = g.legal_moves()
    kind = data.draw(st.sampled_from(["legal", "legal_platform", "legal_text", "junk", "triple", "words",
                                      "other_hand", "text"]))
    if kind == "legal":
        x = legal[data.draw(st.integers(0, len(legal) - 1))]
    elif kind == "legal_platform":
        x = legal[data.draw(st.integers(0, len(legal) - 1))].to_platform()
    elif kind == "legal_text":
        x = str(legal[data.draw(st.integers(0, len(legal) - 1))])
    elif kind == "junk":
        x = data.draw(junk)
    elif kind == "triple":
        x = data.draw(triples)
    elif kind == "words":
        x = make_move(data.draw(move_args()))
    elif kind == "other_hand":
        x = data.draw(real_moves(g.level_index))
    else:
        x = data.draw(st.one_of(st.text(max_size=30), card_lists.map(" ".join)))
    before, n_actions = g.position, len(g.record()["actions"])
    legal_words = {m.words for m in legal}
    ok, _ = attempt("Game.play(x)", g.play, x)
    if not ok:
        assert g.position == before and len(g.record()["actions"]) == n_actions, "a refused play changed the state"
        assert kind not in ("legal", "legal_platform", "legal_text"), f"a legal action was refused: {x!r}"
        return
    played = g.moves_played[-1][1]
    assert played.words in legal_words, f"Game.play accepted {x!r} ({played}) which was not legal"
    g.undo()
    assert g.position == before
    g.play(played)
    exercise(g, random.Random(seed), steps=4)


@fuzz_settings()
@given(seed=st.integers(0, 2 ** 32), steps=st.sampled_from([0, 3, 60]), seat=seat_values,
       kind=st.integers(0, 9), junk_policy=scalar_junk, ret=st.one_of(junk, triples))
def test_game_observation_and_policies(seed, steps, seat, kind, junk_policy, ret):
    # (a kind drawn first: hypothesis would otherwise draw the junk branch nearly always)
    policy = (["random", "greedy", "random", "greedy", "expert", "nope", "first_callable", "junk_callable",
               "raise_callable"] + [junk_policy])[kind]
    g = _game_at(seed, steps)
    ok, obs = attempt("Game.observation(seat)", g.observation, seat)
    if ok:
        assert is_int(seat) and 0 <= seat <= 3, f"observation accepted seat {short(seat)}"
        assert obs["seat"] == seat
        json.dumps(obs)
    if g.is_over:
        return
    if policy == "junk_callable":
        policy = lambda o, ms: ret
    elif policy == "first_callable":
        policy = lambda o, ms: ms[0]
    elif policy == "raise_callable":
        def policy(o, ms):
            raise GuandanError("my bot gave up")
    before = g.position
    ok, m = attempt("Game.play_policy(policy)", g.play_policy, policy)
    if not ok:
        assert g.position == before
        return
    assert isinstance(m, Move)
    check_game(g, deep=False)
    attempt("Game.play_out(policies)", g.play_out, [policy] * 4, until="round")


OBS_KEYS = ["hand", "level", "history", "card_counts", "phase", "top", "seat", "team_levels", "finish_order",
            "passes", "tribute"]


@fuzz_settings()
@given(seed=st.integers(0, 2 ** 32), steps=st.sampled_from([0, 3, 60]), key=st.sampled_from(OBS_KEYS),
       bad=junk)
def test_split_features_and_networks_from_observations(seed, steps, key, bad):
    # what a network client sends reaches the native split features and the
    # native network only through the observation's one validator
    g = _game_at(seed, steps)
    if g.is_over:
        return
    obs, moves = g.observation(g.to_act), g.legal_moves()
    f = split_features(g)
    assert f.shape == (len(moves), SPLIT_FEATURES_DIM)
    np.testing.assert_array_equal(split_features_of(obs, moves), f)
    learned = get_policy("learned")
    assert learned(obs, moves) == g.choose("learned")
    hostile = dict(obs)
    hostile[key] = bad
    ok, out = attempt("split_features_of(hostile observation)", split_features_of, hostile, moves)
    if ok:
        assert out.shape == (len(moves), SPLIT_FEATURES_DIM) and (np.abs(out) <= 127).all()
    ok, m = attempt("learned(hostile observation)", learned, hostile, moves)
    if ok:
        assert m in moves


SMALL_POSITIONS = [
    ([["S3", "S4"], ["HA"], ["D5"], ["C9"]], "2", 0),
    ([["S3", "S3", "H2"], ["HA", "SB"], ["D5", "D6", "D7"], ["C9", "HR"]], "2", 1),
    ([["S3", "S4", "S5", "S6", "S7"], [], ["D5", "DK"], ["C9", "CT"]], "5", 0),
]


@fuzz_settings()
@given(which=st.integers(0, 2),
       depth=st.one_of(st.integers(0, 2), st.sampled_from([-1, -2, -2 ** 31, 2 ** 31, 2 ** 32, 2 ** 63, 2 ** 64,
                                                           10 ** 30, -10 ** 30, 1.0, 1.5, "1", None, True,
                                                           np.int64(1), np.int8(-1), np.uint64(2 ** 63)]),
                       scalar_junk.filter(lambda x: not (is_int(x) and 3 <= x < 2 ** 31))),
       divide=st.one_of(st.booleans(), scalar_junk))
def test_perft(which, depth, divide):
    hands, lv, to_act = SMALL_POSITIONS[which]
    fin = [s for s in range(4) if not hands[s]]
    g = Game.from_position(hands, level=lv, to_act=to_act, finished=fin)
    before = g.position
    if divide not in (True, False):
        divide = False
    ok, n = attempt("perft(game, depth)", perft, g, depth, divide=divide)
    assert g.position == before
    if ok:
        assert is_int(depth) and 0 <= depth <= 2, f"perft accepted depth {short(depth)}"
        if divide:
            assert isinstance(n, dict) and sum(n.values()) == perft(g, depth)
        else:
            assert is_int(n) and n >= 0


@fuzz_settings()
@given(hand=st.one_of(card_multisets(0, 27), card_lists, junk), level=level_values)
def test_tribute_and_return_choices(hand, level):
    for name, fn in (("tribute_choices", tribute_choices), ("return_choices", return_choices)):
        ok, out = attempt(name, fn, hand, level)
        if ok:
            lv = level_ok(level)
            assert lv is not None, f"{name} accepted level {short(level)}"
            h = Hand(hand)
            assert isinstance(out, list) and all(c in h for c in out)
            if len(h) and name == "tribute_choices" and any(c != "H" + RANKS[lv] for c in h):
                assert out


# ---------------------------------------------------------------------------
# VecGame and simulate
# ---------------------------------------------------------------------------

@fuzz_settings()
@given(args=one_hostile(
    dict(n=st.integers(1, 4), seed=st.integers(0, 2 ** 64 - 1), unit=st.sampled_from(["deal", "game"]),
         rules=st.sampled_from([None, Rules.contest()]), max_actions=st.one_of(st.none(), st.integers(1, 40))),
    dict(n=st.sampled_from([0, -1, 2 ** 63, 2 ** 64, 10 ** 30, 1.5, "2", None, True, np.int64(2), np.uint8(3), 2.0]),
         seed=st.sampled_from([-1, 2 ** 64, 2 ** 70, 1.5, "1", None, np.uint64(5)]),
         unit=st.sampled_from(["round", None, 0, "Deal"]), rules=rules_values,
         max_actions=st.sampled_from([0, -1, 2 ** 63, 1.5, "3", True]))),
       data=st.data())
def test_vecgame(args, data):
    n, seed, unit, rules, max_actions = (args[k] for k in ("n", "seed", "unit", "rules", "max_actions"))
    ok, v = attempt("VecGame(...)", VecGame, n, seed=seed, unit=unit, rules=rules, max_actions=max_actions)
    if not ok:
        return
    assert is_int(n) and 1 <= n <= 4, f"VecGame accepted n {short(n)}"
    assert is_int(seed) and 0 <= seed < 2 ** 64, f"VecGame accepted seed {short(seed)}"
    assert unit in ("deal", "game") and (rules is None or isinstance(rules, Rules))
    n = int(n)
    for step in range(data.draw(st.integers(1, 12), label="steps")):
        obs = v.observe()
        counts = np.diff(obs["legal_offsets"])
        assert (counts > 0).all()
        kind = data.draw(st.sampled_from(["valid", "valid", "float", "str", "range", "negative", "length",
                                          "junk", "bool", "uint", "nested", "list"]), label="action kind")
        if kind in ("valid", "list"):
            a = np.array([data.draw(st.integers(0, int(c) - 1)) for c in counts], dtype=np.int64)
            if kind == "list":
                a = [int(x) for x in a]
        elif kind == "float":
            a = np.array([data.draw(st.sampled_from([0.9, 0.0, 1.0, 0.5, float("nan"), float("inf")]))
                          for _ in range(n)])
        elif kind == "str":
            a = data.draw(st.sampled_from([["0"] * n, "0", np.array(["0"] * n), "0" * n]))
        elif kind == "range":
            a = np.array([int(c) + data.draw(st.integers(0, 3)) for c in counts], dtype=np.int64)
        elif kind == "negative":
            a = np.array([data.draw(st.sampled_from([-1, -2, -2 ** 63, -int(c)])) for c in counts], dtype=np.int64)
        elif kind == "length":
            a = np.zeros(data.draw(st.sampled_from([0, n + 1, 2 * n + 1])), dtype=np.int64)
        elif kind == "bool":
            a = np.zeros(n, dtype=bool)
        elif kind == "uint":
            a = np.full(n, 2 ** 64 - 1, dtype=np.uint64)
        elif kind == "nested":
            a = np.zeros((n, 1), dtype=np.int64)
        else:
            a = data.draw(junk)
        before = obs["obs"].copy(), obs["legal_words"].copy()
        ok, out = attempt("VecGame.step(actions)", v.step, a)
        if not ok:
            after = v.observe()
            assert np.array_equal(after["obs"], before[0]) and np.array_equal(after["legal_words"], before[1]), \
                "a refused step changed the games"
            assert kind not in ("valid", "list"), f"a valid step was refused: {a!r}: {out}"
            continue
        # accepted: n integer indices (not floats, strings or bools), each in its game's legal range
        arr = np.asarray(a)
        assert arr.dtype.kind in "iu" and arr.shape == (n,) and (arr >= 0).all() and (arr < counts).all(), \
            f"VecGame.step accepted {kind} actions {short(a)} (legal counts {counts.tolist()})"
        rewards, done = out
        assert rewards.shape == (n, 4) and done.shape == (n,)
        offs, feats = v.legal_features()
        assert feats.shape[0] == offs[-1]
        # the network rows (split features included) and the shipped network, natively
        offs, x = v.encode("guandan")
        assert x.shape == (offs[-1], 309) and np.isfinite(x).all() and (np.abs(x) <= 127).all()
        pick = v.choose("learned")
        assert (pick >= 0).all() and (pick < np.diff(offs)).all()


@fuzz_settings(0.25)
@given(args=one_hostile(
    dict(n=st.integers(0, 12), unit=st.sampled_from(["deal", "game"]),
         policies=st.sampled_from([("greedy", "random", "greedy", "random"), ("random",) * 4, ("greedy",) * 4]),
         seed=st.integers(0, 2 ** 63 - 1), workers=st.sampled_from([None, 1, 2])),
    dict(n=st.sampled_from([-1, 1.5, "10", None, True, np.int64(3), 2.0]),
         unit=st.sampled_from(["x", None, "Deal", 0]),
         policies=st.sampled_from([("greedy",), ("greedy", "random"), ("x",) * 4, (), "greedy", None, 5,
                                   ("expert", "greedy", "expert", "random"), ("random", None, "random", 1)]),
         seed=st.sampled_from([-1, 2 ** 64, 2 ** 70, 1.5, "1", None]),
         workers=st.sampled_from([0, -1, 1.5, "2", 10 ** 6, True]))))
def test_simulate(args):
    n, unit, policies, seed, workers = (args[k] for k in ("n", "unit", "policies", "seed", "workers"))
    if unit == "game" and is_int(n):
        n = min(n, 2)           # whole games are long (on the sanitizer build especially)
    kw = dict(unit=unit, policies=policies, seed=seed, workers=workers)
    ok, r = attempt("simulate(...)", simulate, n, **kw)
    if ok:
        assert is_int(n) and n >= 0 and unit in ("deal", "game"), f"simulate accepted {short((n, kw))}"
        assert len(r) == n
        r.summary()


@fuzz_settings(0.3)
@given(seed=st.one_of(st.none(), st.integers(0, 2 ** 64 - 1), any_int, scalar_junk),
       unit=st.sampled_from(["deal", "game"]), data=st.data())
def test_pettingzoo_env_step(seed, unit, data):
    pytest.importorskip("pettingzoo")
    from guandan.env import env as make_env
    e = make_env(unit=unit)
    ok, _ = attempt("env.reset(seed)", e.reset, seed=seed)
    if not ok:
        return
    if seed is None:
        e.reset(seed=12345)         # (seed None deals at random: hypothesis needs repeatable games)
    for _ in range(data.draw(st.integers(1, 30), label="steps")):
        if not e.agents:
            break
        obs, reward, term, trunc, info = e.last()
        mask = obs["action_mask"]
        n = int(mask.sum())
        if term or trunc:
            e.step(None)
            continue
        a = data.draw(st.one_of(st.integers(0, max(0, n - 1)), st.integers(0, max(0, n - 1)),
                                st.sampled_from([-1, n, n + 5, 2 ** 63, 2 ** 64, 1.5, 0.0, "0", None, [0],
                                                 np.int64(0), np.float32(0.0)]), scalar_junk), label="action")
        before = e.game.position
        ok, _ = attempt("env.step(action)", e.step, a)
        if ok:
            assert isinstance(a, (int, np.integer)) and 0 <= a < n, f"env.step accepted action {short(a)} of {n}"
        else:
            assert e.game.position == before, "a refused env step changed the game"


# ---------------------------------------------------------------------------
# threads
# ---------------------------------------------------------------------------

def _big_position_game():
    g = Game(seed=3)
    return g                # the first lead of a full deal: ~1,000 legal moves


def test_threads_one_shared_game():
    """Four threads reading one Game (legal_moves, copy, position) while they
    play and undo on their copies: every read is correct, nothing crashes."""
    g = _big_position_game()
    expect = g.legal_moves().to_numpy()
    pos = g.position
    first = g.legal_moves()[5]
    after = g.copy()
    after.play(first)
    expect_after_pos = after.position
    errors = []
    iters = max(50, min(EXAMPLES, 400))
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)

    def reader(k):
        try:
            for i in range(iters):
                ms = g.legal_moves()
                w = ms.to_numpy()
                if not np.array_equal(w, expect):
                    errors.append(f"thread {k} iteration {i}: legal_moves differ ({len(w)} vs {len(expect)})")
                    return
                c = g.copy()
                if c.position != pos:
                    errors.append(f"thread {k}: copy has position {c.position}")
                    return
                m = ms[(i * 7 + k) % len(ms)]
                c.play(m)
                c.undo()
                if c.position != pos:
                    errors.append(f"thread {k}: play/undo on a copy gave {c.position}")
                    return
                c.play(first)
                if c.position != expect_after_pos:
                    errors.append(f"thread {k}: play on a copy gave {c.position}")
                    return
        except Exception as e:       # pragma: no cover - reported below
            errors.append(f"thread {k}: {type(e).__name__}: {e}")

    try:
        ts = [threading.Thread(target=reader, args=(k,)) for k in range(4)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
    finally:
        sys.setswitchinterval(old)
    count("threads: shared Game reads", 4 * iters)
    assert not errors, errors[:5]
    assert g.position == pos and np.array_equal(g.legal_moves().to_numpy(), expect)


def test_threads_shared_game_with_a_writer():
    """One thread plays and undoes on the shared Game while three read it:
    each read sees the state before or after that play, never a mix."""
    g = _big_position_game()
    m = g.legal_moves()[3]
    s0, l0 = g.position, g.legal_moves().to_numpy()
    g.play(m)
    s1, l1 = g.position, g.legal_moves().to_numpy()
    g.undo()
    iters = max(50, min(EXAMPLES, 400))
    errors = []
    stop = threading.Event()
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)

    def writer():
        try:
            while not stop.is_set():
                g.play(m)
                g.undo()
        except Exception as e:
            errors.append(f"writer: {type(e).__name__}: {e}")

    def reader(k):
        try:
            for _ in range(iters):
                w = g.legal_moves().to_numpy()
                if not (np.array_equal(w, l0) or np.array_equal(w, l1)):
                    errors.append(f"reader {k}: legal moves of neither state ({len(w)} moves)")
                    return
                p = g.position
                if p not in (s0, s1):
                    errors.append(f"reader {k}: position of neither state: {p}")
                    return
                c = g.copy()
                if c.position not in (s0, s1):
                    errors.append(f"reader {k}: copy of neither state")
                    return
        except Exception as e:
            errors.append(f"reader {k}: {type(e).__name__}: {e}")

    w = threading.Thread(target=writer)
    try:
        ts = [threading.Thread(target=reader, args=(k,)) for k in range(3)]
        w.start()
        for t in ts:
            t.start()
        for t in ts:
            t.join()
    finally:
        stop.set()
        w.join()
        sys.setswitchinterval(old)
    count("threads: shared Game with a writer", 3 * iters)
    assert not errors, errors[:5]
    assert g.position == s0


def _play_game(seed, out, k):
    g = Game(seed=seed, policy_seed=seed)
    trace = []
    n = 0
    while not g.is_over and n < 400:
        ms = g.legal_moves()
        trace.append((len(ms), ms.to_numpy().sum(dtype=np.uint64).item()))
        g.play_policy("greedy" if n % 3 else "random")
        n += 1
    out[k] = (trace, g.position, json.dumps(g.record()))


def test_threads_separate_games_match_sequential():
    seeds = [11, 12, 13, 14]
    seq = {}
    for k, s in enumerate(seeds):
        _play_game(s, seq, k)
    par = {}
    ts = [threading.Thread(target=_play_game, args=(s, par, k)) for k, s in enumerate(seeds)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    count("threads: separate games", len(seeds))
    assert par == seq


# -- the web table's message entry point (guandan.web) ----------------------------------

def _web_messages():
    from guandan.web.messages import KINDS
    fields = sorted({f for spec in KINDS.values() for f, _, _ in spec} | {"extra"})
    value = st.one_of(junk, card_lists, st.integers(-3, 70), st.sampled_from(
        ["greedy", "expert", "random", "t1", "t2", "x.json", "../x.json", "upload-0"]))
    structured = st.builds(
        lambda kind, extra: json.dumps(dict(extra, type=kind), default=repr),
        st.sampled_from(sorted(KINDS) + ["bogus"]),
        st.dictionaries(st.sampled_from(fields), value, max_size=4))
    raw = st.one_of(st.text(max_size=40), st.binary(max_size=20),
                    junk.map(lambda v: json.dumps(v, default=repr)))
    from_hand = st.sampled_from(["select", "play", "play-choice"])    # cards of the page's own hand
    return st.lists(st.one_of(structured, structured, raw, from_hand), min_size=1, max_size=8)


@fuzz_settings(0.5)
@given(msgs=_web_messages(), seed=st.integers(0, 3), data=st.data())
def test_web_messages(msgs, seed, data):
    """Every frame a page may send gets an answer (an error for bad ones),
    never an exception, never an internal error; the session stays usable."""
    pytest.importorskip("websockets")
    from guandan.web.server import WebApp, _Client

    async def main():
        app = WebApp("127.0.0.1", 0, bot_delay=0, bots=("greedy", "random"))
        c = _Client(None)
        out = []
        frames = [json.dumps({"type": "new_game", "bots": "greedy", "seed": seed})] + msgs
        for raw in frames:
            if raw in ("select", "play", "play-choice"):
                hand = c.play.game.hands[c.play.seat].cards() if c.play is not None else ["S3"]
                cards = data.draw(st.lists(st.sampled_from(hand), max_size=8), label="cards")
                msg = {"type": "select" if raw == "select" else "play", "cards": cards}
                if raw == "play-choice":
                    msg["choice"] = data.draw(st.integers(0, 3), label="choice")
                raw = json.dumps(msg)
            TRIED["web message"] += 1
            await app.handle(c, raw)
            if c.bots_task is not None:
                await asyncio.wait_for(asyncio.shield(c.bots_task), 30)
            while not c.queue.empty():           # the page reads what it is sent
                text = c.queue.get_nowait()
                c.queued -= len(text)
                out.append(json.loads(text))
            assert not c.gone
        last = [m for m in out if m["type"] == "play"]
        if c.play is not None and last:          # the page was told the game's state
            g, st_ = c.play.game, last[-1]["state"]
            assert st_["actions"] == len(g.moves_played)
            assert [x["c"] for x in st_["seats"][c.play.seat]["hand"]] == g.hands[c.play.seat].cards(g.level)
        app._end_play(c)
        app._pool.shutdown(wait=True)
        app._work.shutdown(wait=True)
        return out
    import asyncio
    out = asyncio.run(main())
    assert all(isinstance(m, dict) and "type" in m for m in out)
    bugs = [m for m in out if m["type"] == "error" and m.get("kind") == "internal"]
    assert not bugs, bugs
    ACCEPTED["web message"] += sum(1 for m in out if m["type"] != "error")


# -- the search tools (sample_worlds, rollouts, solve, search) and native state bytes

@fuzz_settings(0.3)
@given(seed=st.integers(0, 2 ** 32), steps=st.sampled_from([0, 10, 60, 150]), data=st.data(),
       args=one_hostile(
           dict(seat=st.integers(0, 3), n=st.integers(0, 5), wseed=st.integers(0, 2 ** 64 - 1),
                policy=st.sampled_from(["greedy", "expert", "random"]), nodes=st.integers(1, 3000),
                tt=st.one_of(st.none(), st.integers(4, 16)), threads=st.one_of(st.none(), st.integers(1, 8)),
                spec=st.sampled_from(
                    ["search:rollouts=8,nodes=2000", "search:rollouts=8,solve=0",
                     "search:rollouts=4,k=2,nodes=500"])),
           # (counts past the limits, not merely large: 70,000 worlds would be a valid, slow call)
           dict(seat=seat_values, n=st.one_of(st.integers(-5, 8), st.sampled_from(
                    [-1, -2 ** 63, 10 ** 8 + 1, 2 ** 31, 2 ** 63, 2 ** 64, 10 ** 30, 1.0, True, None, "3"])),
                wseed=st.one_of(any_int, scalar_junk),
                policy=st.one_of(st.text(max_size=20), scalar_junk, st.sampled_from(["search", "greedy:x"])),
                nodes=st.one_of(any_int, scalar_junk), tt=st.one_of(any_int, scalar_junk),
                threads=st.one_of(any_int, scalar_junk),
                spec=st.one_of(st.text(max_size=30), st.sampled_from(
                    ["search:rollouts=-1", "search:ms=0", "search:k=0", "search:tt=99", "search:margin=nan",
                     "search:rollout=search", "search:nodes=1e99"])))))
def test_search_tools(seed, steps, data, args):
    """World sampling, rollouts, the solver and the search player from real
    positions (tribute rounds among them) with hostile arguments."""
    from guandan import search
    g = Game(seed=seed)
    for _ in range(steps):
        if g.is_over:
            break
        g.play_policy("greedy")
    before = g.position
    ok, worlds = attempt("search.sample_worlds(game, seat, n, seed)", search.sample_worlds, g, args["seat"],
                         args["n"], args["wseed"])
    if ok:
        for w in worlds:
            assert w.card_counts == g.card_counts and w.hands[args["seat"]] == g.hands[args["seat"]]
    attempt("search.rollouts(game, policy, n, seed)", search.rollouts, g, args["policy"], args["n"],
            args["wseed"])
    # (a time limit too: a hostile max_nodes may mean "no limit" on a full deal)
    attempt("search.solve(game, max_nodes, tt_bits, threads)", search.solve, g, args["nodes"], 0.05,
            tt_bits=args["tt"], threads=args["threads"])
    if g.phase == "play" and sum(g.card_counts) <= 40:
        ok, res = attempt("search.choose(game, SearchConfig.from_spec(spec))",
                          lambda: search.choose(g, search.SearchConfig.from_spec(args["spec"])))
        if ok:
            assert res in list(g.legal_moves())
    assert g.position == before
