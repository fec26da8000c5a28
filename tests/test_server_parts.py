"""The contest server's parts without sockets: the messages as pure
functions of a game, the answer parsing and the seats' fault policy."""

import json

import pytest

from guandan.errors import GuandanError
from guandan.game import Game
from guandan.rules import Rules
from guandan.server import messages
from guandan.server.seats import FaultPolicy, Seat, parse_answer, policy_move


def _game():
    return Game(rules=Rules.contest(), seed=11)


def test_beginning_shows_only_the_own_hand():
    g = _game()
    for s in range(4):
        m = messages.beginning(g, s)
        assert list(m) == ["type", "stage", "handCards", "myPos", "selfRank", "oppoRank", "curRank"]
        assert m["myPos"] == s and m["handCards"] == g.hands[s].cards(g.level)
        assert json.dumps(m)


def test_act_lists_the_legal_moves_and_the_public_state():
    g = _game()
    legal = g.legal_moves(order="contest")
    acts = legal.to_platform()
    m = messages.act(g, g.to_act, "play", acts)
    assert m["actionList"] == acts and m["indexRange"] == len(acts) - 1
    assert m["handCards"] == g.hands[g.to_act].cards(g.level)
    assert [p["rest"] for p in m["publicInfo"]] == g.card_counts
    assert m["curPos"] == -1 and m["greaterAction"] == [None, None, None]


def test_played_names_the_greater_play_before_the_move():
    g = _game()
    lead = g.choose("greedy")
    m = messages.played(g, lead)
    assert m["curPos"] == g.to_act and m["greaterPos"] == g.to_act
    seat = g.to_act
    g.play(lead)
    passes = [x for x in g.legal_moves() if x.is_pass]
    if passes:
        m2 = messages.played(g, passes[0])
        assert m2["greaterPos"] == seat and m2["greaterAction"] == lead.to_platform()


def test_end_messages():
    assert messages.game_over(2, 3) == {"type": "notify", "stage": "gameOver", "curTimes": 2,
                                        "settingTimes": 3}
    assert messages.game_result([1, 0, 1, 0], [0] * 4)["victoryNum"] == [1, 0, 1, 0]
    g = _game()
    rank, rnd = g.level, g.round_index
    while g.round_index == rnd and not g.is_over:
        g.play(g.choose("greedy"))
    m = messages.episode_over(g, rank)
    assert m["order"] == g.last_round_order and m["curRank"] == rank


@pytest.mark.parametrize("raw,want", [('{"actIndex": 3}', 3), ('{"actIndex": "3"}', None),
                                      ("nope", None), (b'{"actIndex": 1}', None),
                                      ("[1]", None), ('{"actIndex": true}', None)])
def test_parse_answer(raw, want):
    assert parse_answer(raw) == want


def test_policy_move_accepts_moves_triples_and_indices_only_when_legal():
    g = _game()
    legal = g.legal_moves()
    m = legal[0]
    assert policy_move(m, legal, g.level) == m
    assert policy_move(0, legal, g.level) == m
    assert policy_move(m.to_platform(), legal, g.level) == m
    for bad in (True, len(legal), -1, "junk"):
        with pytest.raises(GuandanError):
            policy_move(bad, legal, g.level)


def test_fault_policy_options():
    assert not FaultPolicy().forfeits_on_time
    assert FaultPolicy(on_timeout="forfeit").forfeits_on_time
    assert FaultPolicy(game_time=5.0).forfeits_on_time
    for kw in ({"on_disconnect": "x"}, {"on_timeout": "x"}, {"on_invalid": "x"},
               {"max_misses": -1}):
        with pytest.raises(GuandanError):
            FaultPolicy(**kw)


def test_seat_state():
    s = Seat(2, None)
    assert not s.is_client and not s.asked and s.ws is None
