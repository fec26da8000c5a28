"""VecGame.encode (the native batched encodings) against the Python paths:
the "danzero" rows against the plain-Python reference (tests/danzero_reference.py)
and the "guandan" rows against guandan.rl.net.encode, on the same positions of
many played games (random and expert moves, every round of a game: tribute
rounds, wilds, seats gone out, the lead passed to a partner)."""

import numpy as np
import pytest

import danzero_reference as dz
from guandan import Game, VecGame
from guandan.errors import GuandanError
from guandan.rl.net import encode as gd_encode
from guandan.vec import ENCODING_DIMS, danzero_rows

SAMPLE = 40          # moves compared against the reference per decision (all when fewer)


def _reference_rows(g, rng, pick=None):
    """(indices, rows) of the reference encoder for the seat to act of ``g``:
    every legal move, or a sample of them for a decision with many."""
    moves = g.legal_moves()
    n = len(moves)
    idx = np.arange(n) if n <= SAMPLE else np.sort(rng.choice(n, SAMPLE, replace=False))
    state, actions = dz.encode(g.observation(g.to_act), [moves[int(k)] for k in idx])
    return idx, np.hstack((state, actions))


def _words(g):
    return np.asarray(g.legal_moves().to_numpy(), dtype=np.uint64).reshape(-1, 2)


def _play_and_compare(n, seed, steps, expert_share, check_every=1, unit="deal"):
    rng = np.random.default_rng(seed)
    v = VecGame(n, seed=seed, unit=unit)
    mirrors = [v.game(i) for i in range(n)]
    seen = {"decisions": 0, "marker": 0, "one_move": 0, "tribute_rounds": 0, "two_out": 0,
            "skipped": 0, "wild_plays": 0}
    out = np.empty((4096 * n, ENCODING_DIMS["danzero"]), dtype=np.float32)
    offs_buf = np.empty(n + 1, dtype=np.int64)
    for step in range(steps):
        obs = v.observe()
        offs, xd = v.encode("danzero", out=out, offsets=offs_buf)
        assert xd.base is out or xd is out or np.shares_memory(xd, out)
        offs_g, xg = v.encode("guandan")
        assert np.array_equal(offs, obs["legal_offsets"]) and np.array_equal(offs_g, offs)
        assert xd.shape == (offs[-1], 555) and xg.shape == (offs[-1], 309)
        actions = np.zeros(n, dtype=np.int64)
        for i, g in enumerate(mirrors):
            lo, hi = offs[i], offs[i + 1]
            assert np.array_equal(_words(g), obs["legal_words"][lo:hi])
            if step % check_every == 0:
                assert np.array_equal(xg[lo:hi], gd_encode(g))
                if g.phase.value == "play":
                    idx, ref = _reference_rows(g, rng)
                    np.testing.assert_array_equal(xd[lo:hi][idx], ref)
                    # the state part is the same row for every move
                    assert (xd[lo:hi, :501] == xd[lo, :501]).all()
                    seen["decisions"] += 1
                    seen["marker"] += bool((xd[lo, 108:216] == -1).any())
                    seen["one_move"] += hi - lo == 1
                    o = g.observation(g.to_act)
                    seen["two_out"] += len(o["finish_order"]) >= 2
                    if o["finish_order"]:
                        seq = dz.sequence_of(o)
                        markers = sum(e == dz.OUT for _, e in seq.entries)
                        seen["skipped"] += len(seq.entries) - len(o["history"]) - markers > 0
            m = hi - lo
            if g.phase.value == "play" and rng.random() < expert_share:
                mv = g.choose("expert")
                a = next(k for k, x in enumerate(g.legal_moves()) if x.words == mv.words)
            else:
                a = int(rng.integers(m))
            actions[i] = a
        for i, g in enumerate(mirrors):
            mv = g.legal_moves()[int(actions[i])]
            if g.phase.value == "play" and not mv.is_pass:
                cards = mv.to_platform()[2]
                seen["wild_plays"] += len(cards) > 1 and "H" + g.observation(0)["level"] in cards
            g.play(mv)
        rewards, done = v.step(actions)
        for i in range(n):
            if done[i]:
                mirrors[i] = v.game(i)
                seen["tribute_rounds"] += mirrors[i].phase.value in ("tribute", "back")
            else:
                assert mirrors[i].native_state().state_bytes() == v._core.state_bytes(i)
    return seen


def test_danzero_and_guandan_rows_random_play():
    seen = _play_and_compare(8, seed=3, steps=700, expert_share=0.0)
    assert seen["decisions"] > 3000
    assert seen["marker"] > 0 and seen["one_move"] > 0 and seen["tribute_rounds"] > 0
    assert seen["skipped"] > 0 and seen["wild_plays"] > 0


def test_danzero_and_guandan_rows_expert_play():
    seen = _play_and_compare(8, seed=11, steps=500, expert_share=0.9)
    assert seen["decisions"] > 2000
    assert seen["marker"] > 0 and seen["two_out"] > 0 and seen["tribute_rounds"] > 0
    assert seen["skipped"] > 0 and seen["wild_plays"] > 0


def test_rows_across_the_rounds_of_whole_games():
    # unit="game": the rounds follow each other inside one episode (the mirror
    # Game plays them too); the bookkeeping starts afresh with each round
    seen = _play_and_compare(4, seed=17, steps=600, expert_share=0.8, check_every=3, unit="game")
    assert seen["decisions"] > 500 and seen["marker"] > 0


def test_single_observation_path_equals_the_reference():
    # danzero_rows (the native bookkeeping fed from an observation) on games from
    # a deal and on positions cut from the middle of rounds (history from there)
    rng = np.random.default_rng(5)
    v = VecGame(6, seed=21, unit="deal")
    games = [v.game(i) for i in range(6)]
    checked = 0
    for step in range(400):
        for i, g in enumerate(games):
            if g.is_over:
                games[i] = g = Game(seed=1000 + step + i)
            if g.phase.value == "play":
                moves = g.legal_moves()
                state, actions = dz.encode(g.observation(g.to_act), moves)
                np.testing.assert_array_equal(danzero_rows(g.observation(g.to_act), moves),
                                              np.hstack((state, actions)))
                checked += 1
            g.play(g.choose("expert") if rng.random() < 0.7 else g.legal_moves()[0])
        if step % 60 == 30:      # positions: a game started from the middle of a round
            v.step(np.zeros(6, dtype=np.int64))
            games[step % 6] = v.game(step % 6)
    assert checked > 1000


def test_encode_out_buffer_and_errors():
    v = VecGame(3, seed=1)
    with pytest.raises(GuandanError):
        v.encode("nope")
    with pytest.raises(GuandanError):
        v.encode("danzero", out=np.empty((1, 555), np.float32))
    with pytest.raises(GuandanError):
        v.encode("guandan", out=np.empty((v.n_legal, 555), np.float32))
    with pytest.raises(GuandanError):
        v.encode("guandan", out=np.empty((v.n_legal, 309), np.float64))
    with pytest.raises(GuandanError):
        v.encode("guandan", offsets=np.empty(3, np.int64))
    buf = np.full((v.n_legal + 7, 309), 9.0, np.float32)
    offs, x = v.encode("guandan", out=buf)
    assert np.shares_memory(x, buf) and x.shape[0] == v.n_legal == offs[-1]
    assert np.array_equal(x, v.encode("guandan")[1])
    with pytest.raises(GuandanError):
        v.game(3)


def test_game_door_is_a_copy():
    v = VecGame(2, seed=4)
    g = v.game(1)
    before = v._core.state_bytes(1)
    g.play(g.legal_moves()[0])
    assert v._core.state_bytes(1) == before
    assert v.game(1).native_state().state_bytes() == before


@pytest.mark.parametrize("hands, to_act, finished, plays", [
    # the first seat out, everybody passes, its partner leads; then the marker after seat 3
    ([["SA"], ["S3", "S4"], ["S5", "S6", "S7"], ["S8", "S9"]], 0, [], ["SA", "PASS", "PASS", "PASS", "S5", "S8"]),
    # the teammate out: its last play until its marker
    ([["SK"], ["SA", "S3"], ["S5", "S6"], ["S8", "S9"]], 0, [], ["SK", "SA"]),
    # two seats out, the skipped seat, then the two markers after seat 3
    ([["SK"], ["SA"], ["S3", "S4"], ["S5", "S6"]], 0, [], ["SK", "SA", "PASS", "PASS", "S5"]),
    # a seat finished at the position
    ([[], ["S3", "S4"], ["S5", "S6"], ["S8", "S9"]], 3, [0], ["S8"]),
])
def test_hand_made_positions_native_equals_reference(hands, to_act, finished, plays):
    g = Game.from_position(hands, level="2", to_act=to_act, finished=finished)
    for p in plays + [None]:
        if g.is_over:
            break
        moves = g.legal_moves()
        state, actions = dz.encode(g.observation(g.to_act), moves)
        np.testing.assert_array_equal(danzero_rows(g.observation(g.to_act), moves), np.hstack((state, actions)))
        if p is not None:
            g.play(p)
