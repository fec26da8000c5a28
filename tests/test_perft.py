"""Perft: the native engine's count of action sequences from stored positions,
checked against the stored counts and (live, for the smaller ones) against the
independent play-phase reference tests/reference_engine.py."""

import os
import random

import pytest

from guandan import Game, perft
from helpers import to_ref
from reference_engine import legal, parse_position, ref_divide, ref_perft, RoundEndsEarly, step

DATA = os.path.join(os.path.dirname(__file__), "data", "positions.perft")


def _load():
    out = []
    desc = None
    with open(DATA) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            if line.startswith("#"):
                desc = line[1:].strip()
                continue
            pos, counts = line.split(";")
            out.append((desc, pos.strip(), [int(x) for x in counts.split()]))
            desc = None
    return out


POSITIONS = _load()
IDS = [f"p{i}" for i in range(len(POSITIONS))]


def test_file_shape():
    assert len(POSITIONS) >= 8
    for _desc, pos, counts in POSITIONS:
        assert len(counts) >= 3
        assert all(c > 0 for c in counts)


@pytest.mark.parametrize("desc,pos,counts", POSITIONS, ids=IDS)
def test_native_perft_matches_stored(desc, pos, counts):
    g = Game.from_position(pos)
    assert perft(g, 0) == 1
    for d, expected in enumerate(counts, start=1):
        assert perft(g, d) == expected, (desc, d)
    # perft leaves the game untouched
    assert g.position == pos


@pytest.mark.parametrize("desc,pos,counts", POSITIONS, ids=IDS)
def test_perft_divide_sums_to_total(desc, pos, counts):
    g = Game.from_position(pos)
    for d, expected in enumerate(counts, start=1):
        div = perft(g, d, divide=True)
        assert sum(div.values()) == expected
        # one entry per legal first action
        assert sorted(div) == sorted(str(m) for m in g.legal_moves())
        if d == 1:
            assert all(v == 1 for v in div.values())


@pytest.mark.parametrize("desc,pos,counts", POSITIONS, ids=IDS)
def test_position_round_trips(desc, pos, counts):
    g = Game.from_position(pos)
    assert g.position == pos
    g2 = Game.from_position(g.position)
    assert g2.position == pos
    assert [str(m) for m in g2.legal_moves()] == [str(m) for m in g.legal_moves()]


@pytest.mark.parametrize("desc,pos,counts", POSITIONS, ids=IDS)
def test_reference_agrees_to_depth_2(desc, pos, counts):
    st = parse_position(pos)
    g = Game.from_position(pos)
    assert {to_ref(m) for m in g.legal_moves()} == legal(st)
    assert ref_perft(st, 1) == counts[0]
    assert ref_perft(st, 2) == counts[1]


@pytest.mark.parametrize("desc,pos,counts", POSITIONS, ids=IDS)
def test_reference_agrees_full_depth(desc, pos, counts):
    # every stored count, at every depth, is the independent reference's too:
    # the file holds proof, not the engine's own regression values
    st = parse_position(pos)
    for d, expected in enumerate(counts, start=1):
        assert ref_perft(st, d) == expected, (desc, d)


def test_divide_matches_reference_divide():
    # the 接风 position: per first move, native and reference agree
    desc, pos, counts = next(p for p in POSITIONS if "接风" in (p[0] or ""))
    g = Game.from_position(pos)
    native = perft(g, 3, divide=True)
    ref = ref_divide(parse_position(pos), 3)
    by_ref = {}
    for m in g.legal_moves():
        by_ref[str(m)] = ref[to_ref(m)]
    assert native == by_ref


def test_reference_engine_jiefeng_rule():
    # RULES.md: "if that player has gone out, their partner leads (接风 / 借风)"
    st = parse_position("-/D5H9SQS3/C4C4S8DK/S5C7DJDA 3 3,3 0 3 0:Pair:T:CTDT 2 0 0 0,0")
    nxt = step(st, ("PASS", "PASS", ()))
    assert nxt.top is None and nxt.to_act == 2


def test_reference_strict_mode_detects_early_round_end():
    # seat 2 can go out at once with its last card; seat 0 (partner) is out:
    # the round ends at ply 1, so a depth-2 count is refused in strict mode
    st = parse_position("-/S3S4/D5/S6S7 2 2,2 0 2 - 0 0 0 0,0")
    assert ref_perft(st, 1) == 1
    with pytest.raises(RoundEndsEarly):
        ref_perft(st, 2)
    assert ref_perft(st, 2, strict=False) == 0


def test_position_round_trips_in_random_games():
    # positions taken along seeded random games (play phase only) round-trip,
    # and the rebuilt game has the same legal moves and perft
    rng = random.Random(7)
    checked = 0
    for seed in range(6):
        g = Game(seed=seed)
        for _ in range(400):
            if g.is_over:
                break
            if g.phase == "play" and rng.random() < 0.1:
                pos = g.position
                g2 = Game.from_position(pos)
                assert g2.position == pos
                assert g2.to_act == g.to_act and g2.level == g.level
                assert g2.team_levels == g.team_levels
                assert [h.cards() for h in g2.hands] == [h.cards() for h in g.hands]
                assert list(g2.finish_order) == list(g.finish_order)
                assert [str(m) for m in g2.legal_moves()] == [str(m) for m in g.legal_moves()]
                assert perft(g2, 1) == perft(g, 1)
                # deeper only while nobody can go out (a move has at most 10
                # cards): after the round ends the next deal comes from the
                # position game's own seed, so counts may differ
                if min(c for c in g.card_counts if c) > 10:
                    assert perft(g2, 2) == perft(g, 2)
                checked += 1
            g.play_policy("random")
    assert checked > 20


def test_position_outside_play_phase_is_not_lossy():
    # g.position documents the play phase; in the tribute / back phases it must
    # either refuse (GuandanError) or round-trip the phase -- silently turning a
    # pending tribute into a play phase (seat to pay now "leads", with 27/28
    # cards, the tribute skipped) would make a saved position wrong.
    from guandan import GuandanError
    g = Game.from_position([["S3"], ["S5"], ["S4"], ["S6"]], level="2", to_act=0, seed=0)
    for m in ("S3", "S5", "PASS", "S6"):   # order 0, 1, 3 (2 last): round over
        g.play(m)
    assert g.round_index == 1 and g.last_round_order == [0, 1, 3, 2]
    seen = []
    while g.phase in ("tribute", "back"):
        p = g.position
        # the phase and its state are part of the string ...
        assert p.split()[10].startswith(g.phase + ":")
        assert p not in seen
        seen.append(p)
        # ... and loading it refuses instead of silently skipping the tribute
        try:
            Game.from_position(p)
        except GuandanError as e:
            assert g.phase in str(e)
        else:
            raise AssertionError(f"{g.phase} position {p!r} was loaded as a play-phase game")
        g.play(g.legal_moves()[0])
    assert g.phase == "play"


def test_from_position_keywords_give_the_same_position_string():
    pos = POSITIONS[1][1]     # following a pair with one pass pending
    g = Game.from_position([["S6", "D6", "H9", "C9", "SK"], ["S3", "H3", "D8", "D8", "CA"],
                            ["ST", "CT", "HJ", "DJ", "S2"], ["S7", "C7", "S7", "DQ", "HQ"]],
                           level="4", to_act=2, trick=[(0, "Pair 6 S6 D6"), (1, "PASS")])
    assert g.position == pos


def _python_perft(g, d):
    """perft through the Python API (legal_moves / play / undo)."""
    if d == 0:
        return 1
    n = 0
    for m in list(g.legal_moves()):
        before = g.position
        g.play(m)
        n += _python_perft(g, d - 1)
        g.undo()
        assert g.position == before
    return n


@pytest.mark.parametrize("pos,seed", [
    # the round ends at ply 1 (seat 2 goes out after its partner): the native
    # perft goes on into the next round's tribute and return
    ("-/S3S4/D5/S6S7 2 2,2 0 2 - 0 0 0 0,0", 3),
    ("H7/H6D9/-/S6 2 2,2 - 0 3:Single:4:S4 0 2 0 0,0", 5),
])
def test_native_perft_matches_python_api_across_round_end(pos, seed):
    g = Game.from_position(pos, seed=seed)
    for d in range(1, 5):
        assert perft(g, d) == _python_perft(g, d)


def test_native_perft_matches_python_api_midgame():
    g = Game(seed=2)
    assert perft(g, 1) == _python_perft(g, 1) == len(g.legal_moves())
    for _ in range(120):
        g.play_policy("random")
    assert perft(g, 2) == _python_perft(g, 2)
