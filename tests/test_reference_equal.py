"""The native generator equals the independent slow reference (tests/reference.py,
written from RULES.md) on thousands of seeded random hands: full mode, pattern
mode, leading and following, at all 13 levels, and in the no-wild-straight-flush
variant."""

import random

import pytest

from guandan import Rules, legal_moves
from helpers import LEVELS, anchor_hands, random_hand, to_ref
from reference import ref_moves, ref_pattern

N_CHUNKS = 50
PER_CHUNK = 100        # 5,000 random hands in all


def _check_lead(hand, level, rules=None):
    wild_sf = rules is None or rules.wild_straight_flush
    ref = ref_moves(hand, level, wild_sf=wild_sf)
    full = legal_moves(hand, level, rules=rules)
    mine = [to_ref(m) for m in full]
    assert len(mine) == len(set(mine)), f"duplicates for {hand} @ {level}"
    missing = ref - set(mine)
    extra = set(mine) - ref
    assert not missing and not extra, (
        f"hand {' '.join(hand)} level {level}: missing {sorted(missing)[:5]}, extra {sorted(extra)[:5]}")
    # pattern mode: one legal representative per pattern, every pattern present
    pat = [to_ref(m) for m in legal_moves(hand, level, mode="pattern", rules=rules)]
    pats = [ref_pattern(m, level) for m in pat]
    assert len(pats) == len(set(pats)), f"two representatives of one pattern: {hand} @ {level}"
    assert set(pat) <= ref, f"pattern representative not legal: {set(pat) - ref}"
    assert set(pats) == {ref_pattern(m, level) for m in ref}, f"pattern sets differ: {hand} @ {level}"
    return ref


def _check_follow(hand, level, last, rules=None):
    wild_sf = rules is None or rules.wild_straight_flush
    ref = ref_moves(hand, level, last=last, wild_sf=wild_sf)
    native_last = [last[0], last[1], list(last[2])]
    mine = [to_ref(m) for m in legal_moves(hand, level, native_last, rules=rules)]
    assert mine[0] == ("PASS", "PASS", ()), "following: the pass comes first"
    assert len(mine) == len(set(mine))
    assert set(mine) == ref, (
        f"hand {' '.join(hand)} level {level} last {last}: missing {sorted(ref - set(mine))[:5]}, "
        f"extra {sorted(set(mine) - ref)[:5]}")
    pat = [to_ref(m) for m in legal_moves(hand, level, native_last, mode="pattern", rules=rules)]
    assert set(pat) <= ref
    assert {ref_pattern(m, level) for m in pat} == {ref_pattern(m, level) for m in ref}


@pytest.mark.parametrize("chunk", range(N_CHUNKS))
def test_random_hands_equal_reference(chunk):
    rng = random.Random(1000 + chunk)
    pool = {}          # level -> plays of earlier hands at that level, to follow
    for i in range(PER_CHUNK):
        level = LEVELS[(chunk * PER_CHUNK + i) % 13]
        hand = random_hand(rng, level=level)
        ref = _check_lead(hand, level)
        if pool.get(level):
            _check_follow(hand, level, rng.choice(pool[level]))
        plays = sorted(ref)
        if plays:
            pool.setdefault(level, []).append(rng.choice(plays))
        if i % 4 == 0:
            # also follow a play drawn from a fresh 27-card hand
            other = random_hand(rng, n=27, level=level)
            other_plays = sorted(ref_moves(other, level))
            if other_plays:
                _check_follow(hand, level, rng.choice(other_plays))


@pytest.mark.parametrize("chunk", range(5))
def test_variant_no_wild_straight_flush(chunk):
    rules = Rules.contest()
    rng = random.Random(77 + chunk)
    for i in range(60):
        level = LEVELS[i % 13]
        hand = random_hand(rng, wild_bias=0.8, level=level)
        _check_lead(hand, level, rules)


def test_anchor_hands_total():
    """The anchor hands give the published total (ANCHORS.md: 751,863 moves)."""
    from guandan import legal_moves_batch
    hands = anchor_hands()
    batch = legal_moves_batch([h["hand"] for h in hands], [h["level"] for h in hands])
    assert int(batch.offsets[-1]) == 751_863
    for i in (0, 17, 999):
        assert len(legal_moves(hands[i]["hand"], hands[i]["level"])) == batch.counts[i]


@pytest.mark.parametrize("chunk", range(4))
def test_anchor_hands_equal_reference(chunk):
    hands = anchor_hands()[chunk * 250:(chunk + 1) * 250]
    for h in hands:
        ref = ref_moves(h["hand"], h["level"])
        mine = [to_ref(m) for m in legal_moves(h["hand"], h["level"])]
        assert len(mine) == len(ref) and set(mine) == ref
