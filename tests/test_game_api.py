"""The public front of Game added so that nothing outside game.py needs its
internals: named state, observation tensor, played cards, round results."""

import numpy as np
import pytest

from guandan import (Game, GuandanError, Hand, IllegalMoveError, Phase, PolicyError, RoundResult,
                     TributeState, TrickPlay, VecGame)
from guandan.simulation import game_seed


def test_phase_is_an_enum_equal_to_its_name():
    g = Game(seed=1)
    assert g.phase is Phase.PLAY and g.phase == "play" and str(g.phase) == "play"
    assert g.observation(0)["phase"] == "play" and type(g.observation(0)["phase"]) is str


def test_trick_top_and_passes_are_named():
    g = Game(seed=2)
    first = g.legal_moves()[1]
    seat = g.to_act
    g.play(first)
    assert g.trick == [TrickPlay(seat, first)] and g.trick[0].seat == seat
    assert g.top == TrickPlay(seat, first) and g.passes == 0
    g.play("PASS")
    assert g.passes == 1 and len(g.trick) == 2 and g.trick[1].move.is_pass


def test_copy_keeps_the_trick_and_can_undo():
    g = Game(seed=3)
    for _ in range(3):
        g.play(g.legal_moves()[-1])
    c = g.copy()
    assert c.trick == g.trick and c.position == g.position
    c.undo()
    g.undo()
    assert c.position == g.position and c.trick == g.trick


def test_trick_from_a_position_mid_trick():
    g = Game.from_position([["S3", "S4"], ["HA", "H9"], ["D5"], ["C9"]], "2", 1,
                           trick=[(0, "Single 3 S3")])
    assert [t.seat for t in g.trick] == [0]
    g.play("Single A HA")
    assert [t.seat for t in g.trick] == [0, 1]
    g.undo()
    assert [t.seat for t in g.trick] == [0]


def test_round_result_tribute_state_and_rewards_match_vecgame():
    seed = 4
    g = Game(seed=game_seed(seed, 0))
    v = VecGame(1, seed=seed, unit="deal")
    assert g.last_round is None
    while g.round_index == 0:
        i = 0
        assert np.array_equal(g.observation_tensor(), v.observe()["obs"][0])
        g.play(g.legal_moves()[i])
        rew, done = v.step(np.array([i]))
    res = g.last_round
    assert isinstance(res, RoundResult) and sorted(res.order) == [0, 1, 2, 3]
    assert res.banker_team == res.order[0] & 1 and res.reward == res.levels_up
    assert done[0] and rew[0][res.order[0]] == res.reward
    t = g.tribute
    assert isinstance(t, TributeState)
    assert len(t.payers) in (0, 1, 2) and len(t.paid) == len(t.payers)


def test_played_cards_are_public_and_per_seat():
    g = Game(seed=5)
    total = Hand()
    for _ in range(6):
        m = g.legal_moves()[-1]
        g.play(m)
        if not m.is_pass:
            total = total + m.hand()
    assert g.played_cards() == total
    assert sum((g.played_cards(s) for s in range(4)), Hand()) == total
    with pytest.raises(GuandanError):
        g.played_cards(4)


def test_parse_action_and_policy_errors():
    g = Game(seed=6)
    moves = g.legal_moves()
    assert g.parse_action(0) == moves[0] and g.parse_action(str(moves[1])) == moves[1]
    with pytest.raises(IllegalMoveError):
        g.parse_action(len(moves))
    with pytest.raises(PolicyError):
        g.play_policy(lambda obs, legal: 1 / 0)
    with pytest.raises(GuandanError):
        g.play_policy(None)
    g.play_policy(lambda obs, legal: 0)          # an index is an answer


def test_deals_of_a_game_from_a_later_round():
    # undo across a round end keeps the deals right (fuzz finding N1)
    g = Game.from_position([["S3"], ["HA", "H9"], ["D5", "D6"], ["C9", "CT"]], "2", 0,
                           round_index=5)
    g.play("Single 3 S3")
    while g.round_index == 5:
        g.play(g.legal_moves()[-1])
    assert len(g.deals) == 2
    while g.round_index == 6:
        g.undo()
    assert len(g.deals) == 1
    assert Game.replay(g.record()).position == g.position


def test_movelist_index_honours_start_and_stop():
    from guandan import legal_moves
    moves = legal_moves("S3 S4 S5 S6 S7 H2", "2")
    m = moves[3]
    assert moves.index(m) == 3 and moves.index(m, 2) == 3 and moves.index(m, 3, 4) == 3
    with pytest.raises(ValueError):
        moves.index(m, 4)
    with pytest.raises(ValueError):
        moves.index(m, 0, 3)
    assert moves.index(m, -len(moves)) == 3
