"""Readings and conventions: bare cards in
Game.play, perft at the end of a round, Move ordering, Game's repr."""

import pytest

from guandan import Game, IllegalMoveError, Move, MoveType, legal_moves, perft


def _tube_position():
    hands = [["H7", "H7", "C3", "C3", "C4", "C4", "SK"], ["SA"], ["D9"], ["C9", "CT"]]
    trick = [(3, ["ThreePair", "2", ["S2", "S2", "D3", "D3", "D4", "D4"]])]
    return Game.from_position(hands, level="7", to_act=0, trick=trick)


def test_bare_cards_take_the_one_reading_legal_now():
    g = _tube_position()
    legal = [str(m) for m in g.legal_moves()]
    assert "ThreePair 3 C3 C3 C4 C4 H7 H7" in legal
    g.play("H7 H7 C3 C3 C4 C4")           # the default reading (223344) does not beat the table
    assert str(g.top.move) == "ThreePair 3 C3 C3 C4 C4 H7 H7"


def test_bare_cards_with_several_legal_readings_are_refused_with_the_readings():
    hands = [["SK", "DK", "H5", "S2", "D2", "S9"], ["SA"], ["D9"], ["C9"]]
    g = Game.from_position(hands, level="5", to_act=0)
    with pytest.raises(IllegalMoveError) as e:
        g.play("SK DK H5 S2 D2")
    msg = str(e.value)
    assert "ThreeWithTwo K" in msg and "ThreeWithTwo 2" in msg and "\n" not in msg
    g.play("ThreeWithTwo 2 S2 D2 H5 SK DK")   # saying which is accepted
    assert g.top.move.rank == "2"


def test_bare_cards_with_one_reading_and_lower_case():
    hands = [["S3", "D3", "S9"], ["SA"], ["D9"], ["C9"]]
    g = Game.from_position(hands, level="2", to_act=0)
    g.play("s3 d3")
    assert str(g.top.move) == "Pair 3 S3 D3"


def test_bare_cards_not_legal_say_why():
    g = _tube_position()
    with pytest.raises(IllegalMoveError, match="does not beat"):
        g.play("C3 C3")


def _near_round_end():
    # seats 0 and 2 hold one ace each: the round ends within a few actions
    hands = [["SA"], ["S3", "S4"], ["HA"], ["S5", "S6"]]
    return Game.from_position(hands, level="2", to_act=0)


def test_perft_stop_at_round_end():
    g = _near_round_end()
    full = [perft(g, d) for d in range(1, 8)]
    stopped = [perft(g, d, stop_at_round_end=True) for d in range(1, 8)]
    assert stopped[0] == full[0]
    # past the end of the round the default goes on into the next deal, the option does not
    assert all(s <= f for s, f in zip(stopped, full))
    assert stopped[-1] < full[-1]
    # no sequence reaches beyond the round: counting by hand with Game
    def count(game, depth, r0):
        if depth == 0:
            return 1
        if game.is_over or game.round_index != r0:
            return 0
        n = 0
        for m in game.legal_moves():
            c = game.copy()
            c.play(m)
            if c.round_index != r0:
                n += 1 if depth == 1 else 0
            else:
                n += count(c, depth - 1, r0)
        return n
    assert stopped == [count(g, d, g.round_index) for d in range(1, 8)]
    div = perft(g, 4, divide=True, stop_at_round_end=True)
    assert sum(div.values()) == stopped[3]


def test_perft_default_is_unchanged_and_documented():
    g = Game(seed=1)
    assert perft(g, 2) == perft(g, 2, stop_at_round_end=True)     # far from the end of the round
    doc = " ".join(perft.__doc__.split())
    assert "stop_at_round_end" in doc and "continue into the next deal" in doc


def test_moves_sort_by_type_then_strength_then_cards():
    moves = list(legal_moves("S3 D3 S4 SA H2 SB", "2"))
    ordered = sorted(moves)
    types = [m.type for m in ordered]
    assert types == sorted(types)
    assert str(min(moves)) == "Single 3 S3"
    singles = [m.rank for m in ordered if m.type == MoveType.SINGLE]
    assert singles == ["3", "3", "4", "A", "2", "B"]           # level order: the level card after A
    a, b = Move.from_cards("S3 D3", "2"), Move.from_cards("S4 C4", "2")
    assert a < b and b > a and a <= a and max(a, b) == b
    bombs = sorted([Move.from_cards("S5 H5 C5 D5 S5", "2"), Move.from_cards("S9 H9 C9 D9", "2")])
    assert [len(m) for m in bombs] == [4, 5]


def test_game_repr_and_html():
    g = Game(seed=1)
    r = repr(g)
    assert r.startswith("<Game round 1, level 2") and "to act" in r and "27/27/27/27" in r
    html = g._repr_html_()
    assert html.count("<tr>") == 5 and "S" in html
    g.play_out(["greedy"] * 4)
    assert "won" in repr(g)
