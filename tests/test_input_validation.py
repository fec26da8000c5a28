"""Hostile input to positions, move words, counts, actions and rules: refused
with a GuandanError, never wrapped, never a crash or a wrong answer."""

import json
import subprocess
import sys

import numpy as np
import pytest

from guandan import Game, GuandanError, Hand, InvalidMoveError, Move, Rules, VecGame, legal_moves, legal_moves_batch

P = [["S3", "S4"], ["HA"], ["D5"], ["C9"]]

# -- positions ---------------------------------------------------------------------

@pytest.mark.parametrize("seat", [-1, -128, 7, 4, 1000, 2 ** 70, "1", 1.0, None, True])
def test_trick_seat_out_of_range(seat):
    with pytest.raises(GuandanError):
        Game.from_position(P, "2", 1, trick=[(seat, "Single 2 S2")])


def test_trick_seat_minus_one_then_play_does_not_corrupt():
    # used to write st.one[-1] (the object's vtable) and crash a few moves later
    with pytest.raises(GuandanError):
        g = Game.from_position(P, "2", 1, trick=[(-1, "Single 2 S2")])
        for _ in range(4):
            g.play(g.legal_moves()[0])


@pytest.mark.parametrize("a_fails", [(0,), (), (0, 0, 0), (-1, 0), (0, 200), "00", 5, (0.5, 0)])
def test_a_fails_shape_and_range(a_fails):
    with pytest.raises(GuandanError):
        Game.from_position(P, "2", 0, a_fails=a_fails)


def test_a_fails_under_the_limit():
    with pytest.raises(GuandanError):
        Game.from_position(P, "A", 0, a_fails=(3, 0), rules=Rules.contest())
    Game.from_position(P, "A", 0, a_fails=(2, 0), rules=Rules.contest())


@pytest.mark.parametrize("kw", [
    {"round_index": 70000}, {"round_index": -1}, {"round_index": 1.5},
    {"passes": 300}, {"passes": 1000}, {"passes": -1},
    {"to_act": 4}, {"to_act": "0"}, {"owner": 2}, {"owner": 5}, {"seed": -1}, {"seed": 2 ** 64},
    {"finished": [5]}, {"finished": "0"}, {"team_levels": ["2"]}, {"team_levels": [2 ** 70, 2]},
    {"level": 2 ** 70}, {"level": object()},
])
def test_out_of_range_numbers_are_refused_not_wrapped(kw):
    with pytest.raises(GuandanError):
        Game.from_position(P, **{"level": "2", "to_act": 0, **kw})


def test_round_already_over_is_refused():
    with pytest.raises(GuandanError, match="over"):       # three players out
        Game.from_position([[], [], [], ["C9"]], "2", 3, finished=[0, 1, 2])
    with pytest.raises(GuandanError, match="over"):       # both players of team 0 out
        Game.from_position([[], ["HA"], [], ["C9"]], "2", 1, finished=[0, 2])


def test_trick_cards_plus_hands_beyond_two_decks():
    hands = [["S3", "S3"], ["HA"], ["D5"], ["C9"]]
    with pytest.raises(GuandanError, match="two decks"):
        Game.from_position(hands, "2", 1, trick=[(0, "Single 3 S3")])


def test_trick_whose_plays_do_not_beat_each_other():
    with pytest.raises(GuandanError, match="does not beat"):
        Game.from_position(P, "2", 3, trick=[(0, "Single K SK"), (1, "PASS"), (2, "Single 3 D3")])
    with pytest.raises(GuandanError):
        Game.from_position(P, "2", 1, trick=[(0, "PASS")])   # a trick starts with a play


@pytest.mark.parametrize("bad", [
    "S3S4/HA/D5/C9 2 2,2 0 0 - 0 - 0 0",              # a_fails with one number
    "S3S4/HA/D5/C9 2 2,2 0 0 - 0 - 0 0,0,0",
    "S3S4/HA/D5/C9 2 2,2 0 0 -1:Single:2:S2 0 - 0 0,0",
    "S3S4/HA/D5/C9 2 2,2 0 0 7:Single:2:S2 0 - 0 0,0",
    "S3S4/HA/D5/C9 2 2,2 0 0 x:Single:2:S2 0 - 0 0,0",
    "S3S4/HA/D5/C9 2 2,2 0 0 1:Single:2 0 - 0 0,0",
    "S3S4/HA/D5/C9 2 2,2 0 0 - 300 - 0 0,0",
    "S3S4/HA/D5/C9 2 2,2 0 0 - 0 - 70000 0,0",
    "S3S4/HA/D5/C9 2 2,2 0 x - 0 - 0 0,0",
    "S3S4/HA/D5/C9 2 2,2 9 0 - 0 - 0 0,0",
    "S3S4/HA/D5/C9 2 2 0 0 - 0 - 0 0,0",
    "S3S4/HA/D5 2 2,2 0 0 - 0 - 0 0,0",
    "S3S4/HA/D5/C9 2 2,2 0 0 - 0 ab 0 0,0",
    "S3S4/HA/D5/C9 2 2,2 0 0 - 0 - 0 a,0",
    "S3S/HA/D5/C9 2 2,2 0 0 - 0 - 0 0,0",
    "S3S4/HA/D5/C9 Z 2,2 0 0 - 0 - 0 0,0",
    "", "x", "1 2 3 4 5 6 7 8 9 10", "S3S4/HA/D5/C9 2 2,2 0 0 - 0 - ٣ 0,0",
])
def test_malformed_position_strings_raise_guandan_error(bad):
    with pytest.raises(GuandanError):
        Game.from_position(bad)


def test_replay_of_a_crafted_record_is_refused(tmp_path):
    g = Game(seed=3)
    g.play_out(["greedy"] * 4, until="round")
    rec = g.record()
    bad = dict(rec, start="S3S4/HA/D5/C9 2 2,2 0 1 -1:Single:2:S2 0 - 0 0,0", deals=None, actions=[])
    with pytest.raises(GuandanError):
        Game.replay(bad)
    for mutate in [lambda r: r["actions"].__setitem__(0, [-1, r["actions"][0][1]]),
                   lambda r: r["actions"].__setitem__(0, [0]),
                   lambda r: r.__setitem__("seed", "x"),
                   lambda r: r.__setitem__("rules", {"evil": 1}),
                   lambda r: r.__setitem__("rules", {"a_fail_limit": 300}),
                   lambda r: r.__setitem__("rules", {"max_rounds": 70000}),
                   lambda r: r.__setitem__("actions", "x"),
                   lambda r: r.__setitem__("deals", [["x"]]),
                   lambda r: r.__delitem__("actions")]:
        r = json.loads(json.dumps(rec))
        mutate(r)
        with pytest.raises(GuandanError):
            Game.replay(r)
    # the CLI: one line, no traceback, no signal
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    out = subprocess.run([sys.executable, "-m", "guandan", "replay", str(path)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode not in (0,) and out.returncode > 0
    assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1


# -- move words ----------------------------------------------------------------------

@pytest.mark.parametrize("words", [
    (13 << 56, 0, 0), (15 << 56, 0, 0), (14 << 56 | 1, 0, 0),
    ((7 << 56) | 0b11111, (16 << 56), 0),          # a straight with key 16
    ((7 << 56) | 0b11111, (31 << 56), 0),
    ((1 << 56) | 1, 0, 14), ((1 << 56) | 1, 0, 200), ((1 << 56) | 1, 0, -1),
    ((1 << 56) | 1, 5 << 56, 0),                   # a single 2 keyed 7
    ((2 << 56) | 1, 0, 0),                          # a pair of one card
    (0, 1, 0), (1, 0, 0), (-1, 0, 0), (2 ** 64, 0, 0), ("0", 0, 0), (0.0, 0, 0),
])
def test_invalid_move_words_are_refused(words):
    with pytest.raises(GuandanError):
        Move(*words)


def test_valid_move_words_round_trip_and_pickle():
    import pickle
    for m in legal_moves("S3 S4 S5 S6 S7 H2 SB HR", "2"):
        assert Move(*m.words, 0) == m
        assert pickle.loads(pickle.dumps(m)) == m
        repr(m), str(m), m.to_platform()


def test_tribute_or_back_as_last_is_refused():
    t = Move.from_platform(["tribute", "tribute", ["S3"]], "2")
    b = Move.from_platform(["back", "back", ["S3"]], "2")
    for m in (t, b):
        with pytest.raises(InvalidMoveError):
            legal_moves("S4 S5", "2", last=m)
        with pytest.raises(InvalidMoveError):
            legal_moves("S4 S5", "2", last=m.to_platform())
        with pytest.raises(InvalidMoveError):
            legal_moves_batch([Hand("S4")], "2", last=np.array([m.words], dtype=np.uint64))
        with pytest.raises(InvalidMoveError):
            Move.from_cards("S4", "2").beats(m)
        with pytest.raises(InvalidMoveError):
            m.beats(None)


def test_batch_last_rows_must_be_moves():
    with pytest.raises(InvalidMoveError):
        legal_moves_batch([Hand("S4")], "2", last=np.array([[13 << 56, 0]], dtype=np.uint64))


def test_wild_straight_flush_as_last_under_contest_rules():
    sf = Move.from_platform(["StraightFlush", "3", ["S3", "S4", "H2", "S6", "S7"]], "2")
    with pytest.raises(InvalidMoveError):
        legal_moves("S8 S9", "2", last=sf, rules=Rules.contest())


# -- counts, actions, rules ------------------------------------------------------------

@pytest.mark.parametrize("counts", [[1.5] + [0] * 53, ["1"] + [0] * 53, [3] + [0] * 53, [2 ** 70] + [0] * 53,
                                    [-1] + [0] * 53, [None] + [0] * 53, [0] * 53, "0" * 54])
def test_from_counts_refuses_non_counts(counts):
    with pytest.raises(GuandanError):
        Hand.from_counts(counts)


@pytest.mark.parametrize("actions", [[0.9, 0], ["0", "0"], [0], [0, 0, 0], [[0], [0]], [-1, 0],
                                     [2 ** 40, 0], np.array([0, 0], dtype=np.uint64) + 2 ** 63])
def test_vecgame_step_refuses_non_indices(actions):
    v = VecGame(2, seed=1)
    with pytest.raises(GuandanError):
        v.step(actions)


@pytest.mark.parametrize("kw", [{"a_fail_limit": 300}, {"a_fail_limit": True}, {"max_rounds": 70000},
                                {"wild_straight_flush": 1}, {"name": 5}])
def test_rules_values_fit_the_native_fields(kw):
    with pytest.raises(GuandanError):
        Rules(**kw)
