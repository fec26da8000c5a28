"""Contest-exact action lists: the platform's actionList order
(inferred from a v1006 server message, docs/protocol.md "actionList order"),
the server sending it, and the natural heart straight flush under the
contest rules (a level heart standing for itself)."""

import random

import pytest

from guandan import (Game, MoveType, Rules, classify, contest_order,
                     legal_moves)
from guandan.moves import ORDERS

from reference import ref_classify, ref_moves

LEVEL = "2"


def _cards(moves, t):
    return [" ".join(m.cards) for m in moves if m.type == t]


def _lead(hand, level=LEVEL, rules=None):
    return legal_moves(hand, level, rules=rules, order="contest")


# -- the examples, exactly ------------------------------------------------

def test_pairs_of_six_with_the_wild_in_platform_order():
    moves = _lead("S6 H6 C6 D6 H2")
    assert [c for c in _cards(moves, MoveType.PAIR) if "6" in c] == [
        "S6 H2", "S6 D6", "S6 C6", "S6 H6", "H6 H2", "H6 D6", "H6 C6", "C6 H2", "C6 D6", "D6 H2"]


def test_triples_of_six_with_the_wild_in_platform_order():
    moves = _lead("S6 H6 C6 D6 H2")
    assert _cards(moves, MoveType.TRIPS) == [
        "S6 H6 H2", "S6 H6 D6", "S6 H6 C6", "S6 C6 H2", "S6 C6 D6", "S6 D6 H2", "H6 C6 H2",
        "H6 C6 D6", "H6 D6 H2", "C6 D6 H2"]


def test_pairs_of_four_with_the_wild_in_platform_order():
    moves = _lead("H4 C4 H2")
    assert _cards(moves, MoveType.PAIR) == ["H4 H2", "H4 C4", "C4 H2"]


def test_singles_by_game_value_level_rank_after_ace():
    # "singles 4 5 6 ... K A 2" at level 2; a rank's singles in handCards order
    hand = "H4 C4 S5 S6 S7 S8 S9 ST SJ SQ SK SA H2 S2 SB HR"
    ranks = [m.rank for m in _lead(hand) if m.type == MoveType.SINGLE]
    assert ranks == ["4", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A", "2", "2", "B", "R"]
    assert [m.cards[0] for m in _lead(hand) if m.type == MoveType.SINGLE][:2] == ["H4", "C4"]
    # the protocol's example message: the first entry of a lead holding H4 C4
    assert _lead(hand)[0].to_platform() == ["Single", "4", ["H4"]]


def test_non_sequence_keys_by_game_value_at_other_levels():
    hand = "S3 D3 S7 D7 SK DK SA DA"
    pairs = [m.rank for m in _lead(hand, "7") if m.type == MoveType.PAIR]
    assert pairs == ["3", "K", "A", "7"]
    triples_hand = "S3 D3 C3 S7 D7 C7 SA DA CA"
    assert [m.rank for m in _lead(triples_hand, "7") if m.type == MoveType.TRIPS] == ["3", "A", "7"]
    fh = [m.rank for m in _lead(triples_hand, "7") if m.type == MoveType.THREE_WITH_TWO]
    assert fh == sorted(fh, key=["3", "A", "7"].index)


def test_bombs_by_game_value_within_each_size():
    hand = "S2 H2 C2 D2 S5 H5 C5 D5 SA HA CA DA S9 H9 C9 D9 C9"
    bombs = [(len(m), m.rank) for m in _lead(hand, "5") if m.type == MoveType.BOMB]
    game_value = "234678910JQKA5".replace("10", "T").index
    assert bombs == sorted(bombs, key=lambda b: (b[0], game_value(b[1])))
    assert list(dict.fromkeys(b for b in bombs if b[0] == 4)) == [(4, "2"), (4, "9"), (4, "A"), (4, "5")]


def test_sequences_by_natural_position_ace_low_first():
    # plates A (AAA222), 9, T at level 2: sequences keep the natural order
    hand = "SA HA CA S2 C2 D2 S9 H9 C9 ST HT CT SJ DJ CJ"
    plates = [m.rank for m in _lead(hand, "K") if m.type == MoveType.TWO_TRIPS]
    assert plates == ["A", "9", "T"]
    straights = [m.rank for m in _lead("SA S2 D3 S4 C5 D6 ST SJ CQ DK HA", "8")
                 if m.type == MoveType.STRAIGHT]
    assert straights == sorted(straights, key="A23456789T".index) and straights[0] == "A"


# -- properties of the order -------------------------------------------------------

def _random_hand(rng, n=27):
    deck = [s + r for r in "23456789TJQKA" for s in "SHCD"] * 2 + ["SB", "SB", "HR", "HR"]
    return rng.sample(deck, n)


def _group(m):
    """PROTOCOL's type groups: ..., Straight, 4-card bombs, 5-card bombs,
    StraightFlush, 6..10-card bombs, joker bomb."""
    if m.type == MoveType.BOMB:
        return 20 + len(m)
    if m.type == MoveType.STRAIGHT_FLUSH:
        return 25.5
    if m.type == MoveType.JOKER_BOMB:
        return 99
    return int(m.type)


@pytest.mark.parametrize("seed", range(4))
def test_contest_order_is_a_permutation_grouped_as_the_platform(seed):
    rng = random.Random(seed)
    for _ in range(25):
        hand = _random_hand(rng)
        level = rng.choice("23456789TJQKA")
        gen = legal_moves(hand, level)
        con = legal_moves(hand, level, order="contest")
        assert sorted(m.words for m in gen) == sorted(m.words for m in con)
        # the type groups of PROTOCOL's actionList order are kept
        gs = [_group(m) for m in con]
        assert gs == sorted(gs)
        # following: the pass stays first
        last = gen[rng.randrange(len(gen))]
        follow = legal_moves(hand, level, last, order="contest")
        assert follow[0].is_pass
        assert sorted(m.words for m in follow) == sorted(m.words for m in legal_moves(hand, level, last))


def test_contest_order_refuses_foreign_hands_and_bad_orders():
    moves = legal_moves("S3 S4", "2")
    with pytest.raises(ValueError):
        contest_order(moves, "S3")
    with pytest.raises(ValueError, match="order must be"):
        legal_moves("S3", "2", order="platform")
    assert ORDERS == ("generator", "contest")


def test_game_legal_moves_contest_order_matches_the_function():
    g = Game(seed=3)
    hand = g.hands[g.to_act]
    assert [m.words for m in g.legal_moves(order="contest")] == [
        m.words for m in contest_order(g.legal_moves(), hand)]


def test_server_action_list_is_in_contest_order():
    """The act messages of a served game list the actions in contest order
    (the first acts of seat 0 against three greedy bots)."""
    pytest.importorskip("websockets")
    import asyncio
    import json

    from websockets.asyncio.client import connect

    from test_server import Server

    async def main():
        with Server(games=1, seed=5, bots={1: "greedy", 2: "greedy", 3: "greedy"},
                    rules="contest") as srv:
            checked = 0
            async with connect(f"ws://127.0.0.1:{srv.port}/game/c0", ping_interval=None,
                               max_size=2 ** 22) as ws:
                while checked < 6:
                    msg = json.loads(await asyncio.wait_for(ws.recv(), 30))
                    if msg["type"] != "act":
                        continue
                    if msg["stage"] == "play":
                        last = None if msg["greaterPos"] < 0 else msg["greaterAction"]
                        want = legal_moves(msg["handCards"], msg["curRank"], last,
                                           rules=Rules.contest(), order="contest").to_platform()
                        assert msg["actionList"] == want
                        checked += 1
                    await ws.send(json.dumps({"actIndex": msg["indexRange"]}))
            srv.kill()
            srv.check_no_traceback()

    asyncio.run(asyncio.wait_for(main(), 60))


# -- the natural heart straight flush under the contest rules --------------------

def test_contest_rules_list_the_heart_straight_flush_whose_level_heart_stands_for_itself():
    contest = Rules.contest()
    cards = "H3 H4 H5 H6 H7"
    sf = ["StraightFlush", "3", ["H3", "H4", "H5", "H6", "H7"]]
    lead = legal_moves(cards, "5", rules=contest)
    assert sf in lead.to_platform()
    assert [m.to_platform() for m in classify(cards, "5", rules=contest)][0] == sf
    # accepted as the play to beat
    follow = legal_moves("S8 S8 H8 H8 C8 C8", "5", last=sf, rules=contest)
    assert [m.type for m in follow][:1] == [MoveType.PASS]
    assert all(m.is_pass or len(m) >= 6 for m in follow)
    assert len(follow) > 1
    # and still refused when the wild stands for another card
    assert ["StraightFlush", "3", ["H3", "H4", "H2", "H6", "H7"]] not in legal_moves(
        "H3 H4 H2 H6 H7", "5", rules=contest).to_platform()
    # the ace-level heart in A2345 and TJQKA
    for run in ("HA H2 H3 H4 H5", "HT HJ HQ HK HA"):
        assert MoveType.STRAIGHT_FLUSH in [m.type for m in classify(run, "A", rules=contest)]


def test_reference_agrees_on_the_natural_heart_straight_flush():
    for cards, level in (("H3 H4 H5 H6 H7", "5"), ("HA H2 H3 H4 H5", "A"), ("H9 HT HJ HQ HK", "K"),
                         ("H3 H4 H5 H6 H7 S5 C8", "5")):
        got = {(m.type.platform, m.rank, tuple(sorted(m.cards)))
               for m in legal_moves(cards, level, rules=Rules.contest())}
        assert got == ref_moves(cards.split(), level, wild_sf=False)
        assert {(m.type.platform, m.rank) for m in classify(cards.split()[:5], level, rules=Rules.contest())} \
            == ref_classify(cards.split()[:5], level, wild_sf=False)


def test_game_accepts_the_natural_heart_straight_flush_under_contest_rules():
    hands = [["H3", "H4", "H5", "H6", "H7", "S9"], ["SA"], ["D5"], ["C9"]]
    g = Game.from_position(hands, level="5", to_act=0, rules=Rules.contest())
    g.play("StraightFlush 3 H3 H4 H5 H6 H7")
    assert g.top.move.type == MoveType.STRAIGHT_FLUSH
