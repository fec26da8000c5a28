"""Plays, refusals and reasons in words (guandan.words), both languages."""

import re

import pytest

from guandan import Game, GuandanError, Move, classify
from guandan.errors import IllegalMoveError
from guandan.game import Refusal
from guandan.moves import MoveType
from guandan.words import (LANGS, REASONS, REFUSALS, card_name, describe, place_name, reason, refusal,
                           refusal_of, trick_won, type_name, wilds_in)

CJK = re.compile(r"[\u4e00-\u9fff]")
NOTATION = re.compile(r"\b(ThreeWithTwo|ThreePair|TwoTrips|StraightFlush|Trips|PASS)\b|[a-z]+-[a-z]+-")


def read(cards, level="2", kind=None):
    ms = classify(cards, level)
    return next(m for m in ms if kind is None or m.type == kind)


@pytest.mark.parametrize("cards, level, kind, en, zh", [
    ("S7", "2", None, "a single 7", "单张7"),
    ("SB", "2", None, "the small joker", "小王"),
    ("HR", "2", None, "the big joker", "大王"),
    ("SB SB", "2", None, "a pair of small jokers", "一对小王"),
    ("HR HR", "2", None, "a pair of big jokers", "一对大王"),
    ("S7 D7", "2", None, "a pair of 7s", "一对7"),
    ("SA DA", "2", None, "a pair of aces", "一对A"),
    ("ST DT", "2", None, "a pair of 10s", "一对10"),
    ("S9 H2", "2", None, "a pair of 9s (one wild)", "一对9（含一张逢人配）"),
    ("H2 H2", "2", None, "a pair of 2s", "一对2"),
    ("SK DK CK", "2", None, "three kings", "三张K"),
    ("SK DK CK S5 D5", "2", None, "a full house: three kings and a pair of 5s", "三带二（三张K带一对5）"),
    ("S3 H4 C5 D6 S7", "2", None, "a straight 3 to 7", "顺子3到7"),
    ("ST HJ CQ DK SA", "2", None, "a straight 10 to A", "顺子10到A"),
    ("SA H2 C3 D4 S5", "9", None, "a straight A to 5", "顺子A到5"),
    ("SA HA S2 D2 C3 D3", "9", None, "a tube from A to 3", "三连对A到3"),
    ("S5 D5 C5 S6 D6 C6", "2", None, "a plate from 5 to 6", "钢板5到6"),
    ("S7 H7 C7 D7", "2", None, "a bomb of four 7s", "四张7的炸弹"),
    ("S7 H7 C7 D7 S7 H7 C7 D7", "2", None, "a bomb of eight 7s", "八张7的炸弹"),
    ("S8 H2 H2 D8 C8", "2", MoveType.BOMB, "a bomb of five 8s (two wilds)", "五张8的炸弹（含两张逢人配）"),
    ("H3 H4 H5 H6 H7", "2", MoveType.STRAIGHT_FLUSH, "a straight flush in hearts, 3 to 7", "同花顺红桃3到7"),
    ("S3 S4 S5 S6 H2", "2", MoveType.STRAIGHT_FLUSH, "a straight flush in spades, 3 to 7 (one wild)",
     "同花顺黑桃3到7（含一张逢人配）"),
    ("SB SB HR HR", "2", None, "the joker bomb (all four jokers)", "四王（天王炸）"),
])
def test_every_type_in_both_languages(cards, level, kind, en, zh):
    m = read(cards, level, kind)
    assert describe(m) == en and describe(m, "en") == en
    assert describe(m, "zh") == zh


def test_pass_tribute_and_return():
    assert describe(Move.pass_move()) == "pass" and describe(Move.pass_move(), "zh") == "不出"
    g = Game(seed=1)
    tr = Move.from_platform(["tribute", "tribute", ["HA"]], "2")
    bk = Move.from_platform(["back", "back", ["C3"]], "2")
    assert describe(tr) == "♥A as tribute" and describe(tr, "zh") == "进贡红桃A"
    assert describe(bk) == "♣3 as the return card" and describe(bk, "zh") == "还贡梅花3"
    assert g is not None


def test_wilds_are_counted_only_where_they_stand_for_another_card():
    assert wilds_in(read("S9 H2")) == 1
    assert wilds_in(read("H2 H2")) == 0                                  # a pair of level cards
    assert wilds_in(read("H2")) == 0
    assert wilds_in(read("S2 H3 C4 D5 H6", "2")) == 0
    assert wilds_in(read("H2 S3 H4 C5 D6", "2", MoveType.STRAIGHT)) in (0, 1)
    sf = [m for m in classify("H2 S3 S4 S5 S6", "2") if m.type == MoveType.STRAIGHT_FLUSH]
    assert {m.rank: wilds_in(m) for m in sf} == {"3": 1, "2": 1}           # a spade flush: H2 stands in
    hf = [m for m in classify("H2 H3 H4 H5 H6", "2") if m.type == MoveType.STRAIGHT_FLUSH]
    assert {m.rank: wilds_in(m) for m in hf} == {"3": 1, "2": 0}           # hearts: H2 is itself at 2
    fh = read("S8 C8 D8 H2 H2", "2", MoveType.THREE_WITH_TWO)
    assert wilds_in(fh) == 0 and describe(fh) == "a full house: three 8s and a pair of 2s"
    assert describe(read("S8 C8 H2 S5 D5", "2", MoveType.THREE_WITH_TWO)).endswith("(one wild)")
    # at level 7 the heart 2 is an ordinary card and the heart 7 the wild
    assert wilds_in(read("S9 H7", "7")) == 1 and wilds_in(read("H2 S2", "7")) == 0


def test_cards_follow_when_asked():
    m = read("S7 D7")
    assert describe(m, cards=True) == "a pair of 7s: ♠7 ♦7"
    assert describe(m, "zh", cards=True) == "一对7：黑桃7、方块7"
    assert describe(m, cards=True, card=lambda c: f"<{c}>") == "a pair of 7s: <S7> <D7>"
    assert card_name("ST") == "♠10" and card_name("HR", "zh") == "大王"


def test_no_engine_notation_in_any_description():
    from guandan import legal_moves
    hand = "SB HR SB HR S3 S4 S5 S6 S7 H2 H2 D9 D9 C9 S9 SK DK CK SQ DQ CQ ST DT SJ DJ"
    for m in legal_moves(hand, "2"):
        for lang in LANGS:
            s = describe(m, lang)
            assert s and not NOTATION.search(s), s
            assert bool(CJK.search(s)) == (lang == "zh"), s


def test_every_refusal_and_every_rule_has_a_sentence_in_both_languages():
    from guandan.policies import EXPERT_RULES
    for r in Refusal:
        assert r.name in REFUSALS, r
        for lang in LANGS:
            assert REFUSALS[r.name][lang].strip()
    for rule in EXPERT_RULES:
        assert rule in REASONS, rule
        for lang in LANGS:
            s = reason(rule, lang)
            assert s and s != rule and "-" not in s.replace("10", "")
            assert bool(CJK.search(s)) == (lang == "zh")
    for key, by in list(REFUSALS.items()) + list(REASONS.items()):
        assert set(by) == set(LANGS), key
        assert not CJK.search(by["en"]) and CJK.search(by["zh"]), key
    assert reason("greedy") == "the greedy bot's choice"


def test_refusal_sentences_name_the_cards():
    j = read("SB")
    st = read("S3 H4 C5 D6 S7")
    assert refusal(Refusal.DOES_NOT_BEAT, move=j, top=st) == "the small joker does not beat a straight 3 to 7"
    assert refusal("DOES_NOT_BEAT", "zh", move=j, top=st) == "小王管不上顺子3到7"
    assert "your highest card" in refusal(Refusal.TRIBUTE_CARD, choices=["HA", "SA"])
    assert "♥A, ♠A" in refusal(Refusal.TRIBUTE_CARD, choices=["HA", "SA"])
    assert refusal("INVALID").startswith("that is not a valid play")
    assert refusal("NOT_IN_HAND", "zh", cards=["S3", "S3"]) == "你手里没有黑桃3、黑桃3"
    for r in Refusal:
        for lang in LANGS:
            s = refusal(r, lang, move=j, top=st, cards=["S3"], choices=["HA"], readings=[j, st])
            assert "{" not in s and s
    with pytest.raises(GuandanError):
        refusal("NOPE")
    with pytest.raises(GuandanError):
        describe(j, "fr")


def _refused(g, action):
    with pytest.raises(IllegalMoveError) as e:
        g.play(action)
    return e.value


def test_the_games_refusals_carry_their_fields():
    g = Game.from_position([["S3", "S4", "S9", "SB"], ["S5", "S6"], ["D5"], ["C9"]], level="2")
    e = _refused(g, "PASS")
    assert e.refusal == "LEADER_PASS"
    assert refusal_of(e) == "you lead this trick: you cannot pass"
    e = _refused(g, "S7")
    assert e.refusal == "NOT_IN_HAND" and e.missing == ("S7",)
    assert refusal_of(e) == "you do not hold ♠7" and refusal_of(e, "zh") == "你手里没有黑桃7"
    e = _refused(g, "S3 S4")
    assert e.refusal == "INVALID" and e.cards == ("S3", "S4")
    assert refusal_of(e) == "that is not a valid play: ♠3 ♠4 form no play"
    assert refusal_of(e, "zh") == "这不是合法的出牌：黑桃3、黑桃4组不成任何牌型"
    g.play("S9")
    e = _refused(g, "S5")
    assert e.refusal == "DOES_NOT_BEAT" and e.top == read("S9") and e.move == read("S5")
    assert refusal_of(e) == "a single 5 does not beat a single 9"
    assert refusal_of(e, "zh") == "单张5管不上单张9"
    assert refusal_of(GuandanError("plain")) == "plain"


def test_tribute_refusal_names_the_choices():
    for seed in range(40):
        g = Game(seed=seed)
        while not g.is_over and g.phase.value == "play":
            g.play(g.choose("greedy"))
        if g.phase.value == "tribute":
            hand = g.hands[g.to_act]
            legal = {m.cards[0] for m in g.legal_moves()}
            wrong = next(c for c in hand.cards() if c not in legal)
            e = _refused(g, ["tribute", "tribute", [wrong]])
            assert e.refusal == "TRIBUTE_CARD" and set(e.choices) == legal
            s = refusal_of(e)
            assert "highest card" in s and all(card_name(c) in s for c in legal)
            assert "进贡" in refusal_of(e, "zh")
            e = _refused(g, "PASS")
            assert refusal_of(e) == "you must pay tribute now: pass is not allowed"
            return
    pytest.fail("no seed reached a tribute")


def test_places_tricks_and_type_names():
    assert [place_name(i, "zh") for i in range(4)] == ["头游", "二游", "三游", "末游"]
    assert place_name(0) == "first out"
    m = read("S9 D9")
    assert trick_won("East", m) == "East wins the trick with a pair of 9s"
    assert trick_won("you", m).startswith("you win the trick")
    assert trick_won("东", m, "zh") == "东赢得这一轮（一对9）"
    assert type_name(MoveType.THREE_PAIR) == "tube" and type_name(MoveType.THREE_PAIR, "zh") == "三连对"
    assert type_name(MoveType.TWO_TRIPS, plural=True) == "plates"
    assert type_name(MoveType.THREE_WITH_TWO, "zh") == "三带二"


def test_terms():
    from guandan.words import TERMS, term
    assert term("anti-tribute", "zh") == "抗贡" and term("jiefeng", "zh") == "接风"
    assert term("level card", "zh") == "级牌" and term("wild", "zh") == "逢人配"
    assert all(set(v) == set(LANGS) for v in TERMS.values())
    with pytest.raises(GuandanError):
        term("nope")


def test_the_web_tables_own_refusals_come_in_both_languages():
    from guandan.words import MESSAGES, message, refusal_of
    from guandan.web.session import _said
    from guandan.errors import IllegalMoveError
    for name, t in MESSAGES.items():
        assert set(t) == {"en", "zh"} and all(t.values())
    e = _said(IllegalMoveError, "NOT_YOUR_TURN", who="West")
    assert str(e) == "it is not your turn: West acts"
    assert refusal_of(e, "zh") == message("NOT_YOUR_TURN", "zh", who="West") and "West" in refusal_of(e, "zh")
