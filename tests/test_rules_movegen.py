"""Hand-written tests of the move generator, one or more per rule of
RULES.md (docs/rules.md) (cards, level, wilds, combinations, comparison, "What
counts as one legal move", key-rank notation) and of the move notation in
PROTOCOL.md (docs/protocol.md). Each test quotes the line it checks."""

import random
from collections import Counter

import pytest

from guandan import (
    CardError,
    GuandanError,
    Hand,
    InvalidMoveError,
    LevelError,
    Move,
    MoveList,
    MoveType,
    Rules,
    TooManyCopiesError,
    UnknownCardError,
    classify,
    legal_moves,
    parse_move,
)

from helpers import FACES, RANKS, pattern_of

DECK = FACES * 2   # face by face (helpers.DECK puts the jokers last)


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------

def readings(cards, level, rules=None):
    """(platform type, rank) of every reading of exactly these cards, highest first."""
    return [(m.to_platform()[0], m.rank) for m in classify(cards, level, rules=rules)]


def P(triple, level):
    return Move.from_platform(triple, level)


def C(cards, level):
    """The default (highest) reading of these cards."""
    return Move.from_cards(cards, level)


def plat(moves):
    return [m.to_platform() for m in moves]


def of_type(moves, t):
    return [m for m in moves if m.type == t]


def card_set(m):
    return Counter(m.cards)


def assert_strictly_increasing(moves):
    """Each move beats every earlier one and none beats a later one."""
    for i, a in enumerate(moves):
        for b in moves[i + 1:]:
            assert b.beats(a), f"{b} should beat {a}"
            assert not a.beats(b), f"{a} should not beat {b}"


def wild_of(level):
    return "H" + level


# ===========================================================================
# Cards and notation
# ===========================================================================

def test_cards_108_cards_54_faces_each_twice():
    # "Two standard decks with jokers: 108 cards. 54 distinct faces (13 ranks x 4
    #  suits + small joker + big joker), each present twice."
    h = Hand(DECK)
    assert len(h) == 108
    counts = h.counts()
    assert len(counts) == 54 and list(counts) == [2] * 54
    assert all(h.count(f) == 2 for f in FACES)
    with pytest.raises(TooManyCopiesError):
        Hand(DECK + ["S3"])


def test_cards_two_copies_identical_hand_is_multiset():
    # "The two copies of a face are identical: a hand is a multiset, and two plays
    #  that differ only in which copy of ♠3 is used are the same play."
    assert Hand("S3 D4 S3") == Hand(["S3", "S3", "D4"])
    moves = legal_moves("S3 S3 D3", "5")
    singles = of_type(moves, MoveType.SINGLE)
    assert plat(singles) == [["Single", "3", ["S3"]], ["Single", "3", ["D3"]]]
    pairs = of_type(moves, MoveType.PAIR)
    assert sorted(tuple(m.cards) for m in pairs) == [("S3", "D3"), ("S3", "S3")]
    assert plat(of_type(moves, MoveType.TRIPS)) == [["Trips", "3", ["S3", "S3", "D3"]]]


def test_cards_card_strings_platform_notation():
    # "Card strings ... suit letter then rank letter. Suits S H C D, ranks
    #  2 3 4 5 6 7 8 9 T J Q K A. Small (black) joker SB, big (red) joker HR."
    h = Hand("S2 HT DA SB HR C9 SK")
    assert sorted(h) == sorted(["S2", "HT", "DA", "SB", "HR", "C9", "SK"])
    for f in FACES:
        assert list(Hand([f])) == [f]
        assert classify([f], "2")[0].cards == (f,)
    for bad in ("S10", "S1", "ST1", "BJ", "RJ", "HB", "SR", "T9"):
        with pytest.raises(UnknownCardError):
            Hand([bad])


def test_cards_hand_str_repr_round_trip_and_accessors():
    # Hand: str()/repr() round-trip; len(); iteration; .count(); .counts()
    h = Hand("HR S2 D5 S2 SB C5 HA HA")
    assert Hand(str(h)) == h
    assert eval(repr(h), {"Hand": Hand}) == h
    assert len(h) == 8 and sorted(list(h)) == sorted(["HR", "S2", "D5", "S2", "SB", "C5", "HA", "HA"])
    assert h.count("S2") == 2 and h.count("HA") == 2 and h.count("D2") == 0
    assert sum(h.counts()) == 8
    assert Hand(h.cards()) == h
    # game order at level 5: ranks 2..A, the level rank after A, then SB, HR
    assert h.cards(level="5") == ["S2", "S2", "HA", "HA", "C5", "D5", "SB", "HR"]
    assert Hand("") == Hand([]) and len(Hand()) == 0


# ===========================================================================
# Level, level cards and wild cards
# ===========================================================================

def test_level_level_order_single_level_card_beats_ace():
    # "Level cards ... rank above A and below the jokers in level order:
    #  2 3 4 5 6 7 8 9 T J Q K A, level card, small joker, big joker"
    lv = "7"
    order = [C(c, lv) for c in ["S2", "S6", "S8", "SK", "SA", "S7", "SB", "HR"]]
    assert_strictly_increasing(order)
    # every suit of the level rank is a level card; the wild alone too
    for c in ("S7", "H7", "C7", "D7"):
        assert C(c, lv).beats(C("DA", lv))
        assert C("SB", lv).beats(C(c, lv))
        assert not C("DA", lv).beats(C(c, lv))


def test_level_level_rank_lifted_out_of_natural_place():
    # "(the level rank is lifted out of its natural place)"
    lv = "7"
    assert C("S6", lv).beats(C("S5", lv))
    assert C("S8", lv).beats(C("S6", lv))         # 8 directly above 6
    assert not C("S8", lv).beats(C("S7", lv))
    assert C("S7", lv).beats(C("S8", lv))
    # at level 2, the 2 is above A
    assert C("D2", "2").beats(C("SA", "2"))
    assert not C("D2", "3").beats(C("S3", "3"))   # at level 3 the 2 is lowest


def test_level_pair_and_trips_of_level_cards_beat_aces():
    # "Level cards ... rank above A and below the jokers in level order"
    lv = "7"
    pairs = [C("SK DK", lv), C("SA DA", lv), C("S7 D7", lv), C("SB SB", lv), C("HR HR", lv)]
    assert_strictly_increasing(pairs)
    assert C("S7 C7 D7", lv).beats(C("SA CA DA", lv))
    # full house compared by its triple in level order
    assert C("S7 C7 D7 S2 D2", lv).beats(C("SA CA DA SK DK", lv))
    # following: the pair of level cards is offered against AA, AA is not
    moves = legal_moves("S7 D7 SA DA SK DK", lv, last=["Pair", "A", ["SA", "CA"]])
    assert plat(moves) == [["PASS", "PASS", "PASS"], ["Pair", "7", ["S7", "D7"]]]


def test_level_joker_beats_level_card():
    # "level card, small joker, big joker"
    for lv in RANKS:
        lc = C("S" + lv, lv)
        assert C("SB", lv).beats(lc) and C("HR", lv).beats(lc)
        assert not lc.beats(C("SB", lv))
        assert C("HR", lv).beats(C("SB", lv)) and not C("SB", lv).beats(C("HR", lv))


def test_level_wild_cards_are_hearts_of_level_rank():
    # "Wild cards (逢人配): the hearts of the round-level rank"
    # H5 completes a pair at level 5 ...
    assert readings("S9 H5", "5") == [("Pair", "9")]
    # ... but is an ordinary card at level 2, where H2 is the wild
    assert readings("S9 H5", "2") == []
    assert readings("S9 H2", "2") == [("Pair", "9")]
    # other suits of the level rank are level cards, never wild
    assert readings("S9 S5", "5") == []
    assert readings("S9 D5", "5") == []


def test_level_wild_stands_for_any_rank_and_suit():
    # "Combined with other cards a wild may stand for any card except a joker
    #  (any rank, any suit)."
    lv = "2"
    for r in RANKS:
        if r == lv:
            continue
        assert ("Pair", r) in readings(["S" + r, "H2"], lv)
        assert ("Trips", r) in readings(["S" + r, "D" + r, "H2"], lv)
        assert ("Bomb", r) in readings(["S" + r, "D" + r, "C" + r, "H2"], lv)
    # any suit: completes a spade straight flush (as a spade) and a plain straight
    assert readings("S3 S4 H2 S6 S7", lv) == [("StraightFlush", "3"), ("Straight", "3")]


def test_level_wild_never_stands_for_a_joker():
    # "a wild may stand for any card except a joker"; "A wild may complete any
    #  combination above ... but never stands for a joker."
    lv = "2"
    for cards in ("SB H2", "HR H2", "SB SB H2", "HR HR H2", "SB HR H2",
                  "SB SB HR H2", "SB HR HR H2", "SB HR H2 H2", "S9 D9 C9 SB H2"):
        assert readings(cards, lv) == [], cards
    moves = legal_moves("SB HR HR H2 H2", lv)
    for m in moves:
        assert m.type != MoveType.JOKER_BOMB
        if "SB" in m.cards or "HR" in m.cards:
            assert "H2" not in m.cards, str(m)


def test_level_single_wild_is_only_a_level_card():
    # "Played alone, or as the pair of the two wilds, it is only a level card."
    assert plat(classify("H5", "5")) == [["Single", "5", ["H5"]]]
    moves = legal_moves(Hand("H5"), "5")
    assert plat(moves) == [["Single", "5", ["H5"]]]
    # it ranks as a level card: beats A, loses to the small joker
    assert C("H5", "5").beats(C("SA", "5"))
    assert not C("H5", "5").beats(C("S5", "5")) and not C("S5", "5").beats(C("H5", "5"))


def test_level_two_wilds_alone_are_only_a_level_pair():
    # "Played alone, or as the pair of the two wilds, it is only a level card."
    assert plat(classify("H5 H5", "5")) == [["Pair", "5", ["H5", "H5"]]]
    moves = legal_moves(Hand("H5 H5"), "5")
    assert plat(moves) == [["Single", "5", ["H5"]], ["Pair", "5", ["H5", "H5"]]]
    assert C("H5 H5", "5").beats(C("SA DA", "5"))
    assert not C("H5 H5", "5").beats(C("S5 D5", "5"))


def test_level_sequences_natural_order_ace_low():
    # "In sequences ... cards use their natural order: A may be low (below 2) or
    #  high (above K)"; "straight ... A2345 .. TJQKA"; "Straights ... use their
    #  lowest card, with A meaning ace-low (straight A = A2345, straight T = TJQKA)."
    lv = "7"
    assert readings("SA S2 S3 S4 D5", lv) == [("Straight", "A")]
    assert readings("ST DJ SQ SK SA", lv) == [("Straight", "T")]
    assert_strictly_increasing([C("SA S2 S3 S4 D5", lv), C("S2 S3 S4 D5 S6", lv),
                                C("S9 ST DJ SQ SK", lv), C("ST DJ SQ SK SA", lv)])


def test_level_sequences_tubes_and_plates_ace_low_and_high():
    # "tube [ThreePair] | exactly 3 consecutive pairs, AA2233 .. QQKKAA";
    # "plate [TwoTrips] | exactly 2 consecutive triples, AAA222 .. KKKAAA"
    lv = "7"
    assert readings("SA DA S2 D2 S3 D3", lv) == [("ThreePair", "A")]
    assert readings("SQ DQ SK DK SA DA", lv) == [("ThreePair", "Q")]
    assert readings("SA DA CA S2 D2 C2", lv) == [("TwoTrips", "A")]
    assert readings("SK DK CK SA DA CA", lv) == [("TwoTrips", "K")]
    assert_strictly_increasing([C("SA DA S2 D2 S3 D3", lv), C("S2 D2 S3 D3 S4 D4", lv),
                                C("SQ DQ SK DK SA DA", lv)])
    assert_strictly_increasing([C("SA DA CA S2 D2 C2", lv), C("S2 D2 C2 S3 D3 C3", lv),
                                C("SK DK CK SA DA CA", lv)])


def test_level_sequences_no_wrap_around():
    # "never both; no wrap-around (J Q K A 2 is not a straight)"
    for lv in ("2", "7", "A"):
        assert readings("SJ DQ SK SA S2", lv) == []
        assert readings("SQ DK SA S2 S3", lv) == []
        assert readings("SK DK SA DA S2 D2", lv) == []      # KKAA22 is not a tube
        assert readings("SK DK CK SA DA CA S2", lv) == []
        assert readings("SA DA CA S2 D2 C2", lv) == [("TwoTrips", "A")]
    # nor in a hand
    moves = legal_moves("SJ DQ SK SA S2 D2 DK DA", "7")     # JQKA2 and KKAA22
    assert not of_type(moves, MoveType.STRAIGHT)
    assert not of_type(moves, MoveType.THREE_PAIR)
    moves = legal_moves("SK DK CK SA DA CA S2 D2 C2", "7")  # KKKAAA, AAA222, not KKK..222
    assert sorted(m.rank for m in of_type(moves, MoveType.TWO_TRIPS)) == ["A", "K"]
    # A is low or high, never both: a wild cannot make A2345 + TJQKA wrap
    assert readings("SQ DK SA H7 S3", "7") == []


def test_level_level_cards_take_natural_rank_in_sequences():
    # "Level cards take their natural rank inside sequences."
    assert readings("S5 S6 D7 S8 C9", "7") == [("Straight", "5")]
    assert readings("S6 D6 S7 D7 S8 D8", "7") == [("ThreePair", "6")]
    assert readings("S7 D7 C7 S8 D8 C8", "7") == [("TwoTrips", "7")]
    assert readings("S2 S3 S4 D5 C6", "2") == [("Straight", "2")]
    assert readings("SA S2 S3 S4 D5", "A") == [("Straight", "A")]     # A low at level A
    assert readings("ST DJ SQ SK SA", "A") == [("Straight", "T")]     # A high at level A
    # not above A: a level card cannot extend J Q K A
    assert readings("SJ DQ SK SA S7", "7") == []
    assert readings("SJ DQ SK SA S2", "2") == []
    assert readings("SK DK SA DA S7 D7", "7") == []
    # a natural run through the level rank in one suit is a straight flush
    assert readings("S5 S6 S7 S8 S9", "7") == [("StraightFlush", "5")]
    moves = legal_moves("S5 S6 D7 S8 C9 DA", "7")
    assert ["Straight", "5", ["S5", "S6", "D7", "S8", "C9"]] in plat(moves)


# ===========================================================================
# Combinations
# ===========================================================================

def test_combo_single_any_one_card():
    # "single [Single] | any one card | level order"
    h = Hand(FACES)
    singles = of_type(legal_moves(h, "9"), MoveType.SINGLE)
    assert sorted(m.cards[0] for m in singles) == sorted(FACES)
    assert {m.cards[0]: m.rank for m in singles}["SB"] == "B"
    assert {m.cards[0]: m.rank for m in singles}["HR"] == "R"


def test_combo_pair_two_of_a_rank_or_equal_jokers():
    # "pair [Pair] | two of a rank; two small jokers; two big jokers (never one of each)"
    assert readings("S5 D5", "2") == [("Pair", "5")]
    assert readings("SB SB", "2") == [("Pair", "B")]
    assert readings("HR HR", "2") == [("Pair", "R")]
    assert readings("SB HR", "2") == []
    assert readings("S5 D6", "2") == []
    pairs = of_type(legal_moves("SB HR HR SB", "2"), MoveType.PAIR)
    assert plat(pairs) == [["Pair", "B", ["SB", "SB"]], ["Pair", "R", ["HR", "HR"]]]
    assert C("HR HR", "2").beats(C("SB SB", "2"))


def test_combo_triple_three_of_a_rank_no_jokers():
    # "triple [Trips] | three of a rank (no jokers)"
    assert readings("S5 D5 C5", "2") == [("Trips", "5")]
    assert readings("S5 D5 C6", "2") == []
    assert readings("SB SB H2", "2") == []
    assert readings("HR HR H2", "2") == []
    moves = legal_moves("SB SB HR HR H2", "2")
    assert not of_type(moves, MoveType.TRIPS)


def test_combo_full_house_triple_plus_pair():
    # "full house [ThreeWithTwo] | a triple plus a pair of another rank; the pair
    #  may be two equal jokers | the triple, level order"
    assert readings("S9 H9 D9 S4 D4", "2") == [("ThreeWithTwo", "9")]
    assert readings("S9 H9 D9 SB SB", "2") == [("ThreeWithTwo", "9")]
    assert readings("S9 H9 D9 HR HR", "2") == [("ThreeWithTwo", "9")]
    assert readings("S9 H9 D9 SB HR", "2") == []          # never one of each
    assert readings("S9 H9 D9 S4 D5", "2") == []
    assert P(["ThreeWithTwo", "9", ["S9", "H9", "D9", "SB", "SB"]], "2").cards == (
        "S9", "H9", "D9", "SB", "SB")
    fh = of_type(legal_moves("S9 H9 D9 SB HR", "2"), MoveType.THREE_WITH_TWO)
    assert fh == []


def test_combo_five_of_a_rank_is_a_bomb_never_full_house():
    # "Five cards of one rank are a bomb, never a full house."
    assert readings("S9 S9 H9 D9 C9", "2") == [("Bomb", "9")]
    moves = legal_moves("S9 S9 H9 D9 C9", "2")
    assert not of_type(moves, MoveType.THREE_WITH_TWO)
    # four naturals + one wild: also only a bomb
    assert readings("S9 S9 D9 C9 H2", "2") == [("Bomb", "9")]


def test_combo_full_house_from_two_wilds_with_one_natural_rank():
    # "(SA DA DA + ♥A♥A at level A is a bomb of five A's and also "AAA + any pair")"
    ms = classify("SA DA DA HA HA", "A")
    assert [(m.to_platform()[0], m.rank) for m in ms] == [("Bomb", "A"), ("ThreeWithTwo", "A")]
    assert ms[0] == C("SA DA DA HA HA", "A")        # the default reading: the bomb
    # three naturals + both wilds at level 2
    assert readings("SK DK CK H2 H2", "2") == [("Bomb", "K"), ("ThreeWithTwo", "K")]


def test_combo_straight_exactly_five_consecutive():
    # "straight [Straight] | exactly 5 consecutive ranks, any suits, A2345 .. TJQKA"
    assert readings("S3 D4 C5 S6 H7", "2") == [("Straight", "3")]
    assert readings("S3 D4 C5 S6", "2") == []
    assert readings("S3 D4 C5 S6 H7 D8", "2") == []
    assert readings("S3 D4 C5 S6 H8", "2") == []
    moves = legal_moves("S3 D4 C5 S6 H7 D8", "2")
    assert sorted(m.rank for m in of_type(moves, MoveType.STRAIGHT)) == ["3", "4"]


def test_combo_tube_exactly_three_consecutive_pairs():
    # "tube [ThreePair] | exactly 3 consecutive pairs"
    assert readings("S3 D3 S4 D4 S5 D5", "2") == [("ThreePair", "3")]
    assert readings("S3 D3 S4 D4", "2") == []
    assert readings("S3 D3 S4 D4 S5 D5 S6 D6", "2") == []
    assert readings("S3 D3 S4 D4 S6 D6", "2") == []
    moves = legal_moves("S3 D3 S4 D4 S5 D5 S6 D6", "2")
    assert sorted(m.rank for m in of_type(moves, MoveType.THREE_PAIR)) == ["3", "4"]


def test_combo_plate_exactly_two_consecutive_triples():
    # "plate [TwoTrips] | exactly 2 consecutive triples"
    assert readings("S3 D3 C3 S4 D4 C4", "2") == [("TwoTrips", "3")]
    assert readings("S3 D3 C3 S5 D5 C5", "2") == []
    assert readings("S3 D3 C3 S4 D4 C4 S5 D5 C5", "2") == []


def test_combo_bomb_four_to_ten_cards():
    # "bomb [Bomb] | 4 to 10 cards of one rank (8 natural + 2 wild at most)"
    nines = ["S9", "S9", "H9", "H9", "C9", "C9", "D9", "D9"]
    assert readings(nines + ["H2", "H2"], "2") == [("Bomb", "9")]
    assert len(C(nines + ["H2", "H2"], "2")) == 10
    moves = legal_moves(nines + ["H2", "H2"], "2")
    sizes = sorted({len(m) for m in of_type(moves, MoveType.BOMB)})
    assert sizes == [4, 5, 6, 7, 8, 9, 10]
    assert readings("S9 H9 D9", "2") == [("Trips", "9")]        # 3 is not a bomb
    assert readings("S9 H9 D9 C9", "2") == [("Bomb", "9")]


def test_combo_level_rank_largest_bomb_is_eight_cards():
    # "4 to 10 cards of one rank (8 natural + 2 wild at most)": the wilds are
    # themselves two of the eight level cards, so the level rank stops at 8.
    twos = ["S2", "S2", "H2", "H2", "C2", "C2", "D2", "D2"]
    assert readings(twos, "2") == [("Bomb", "2")]
    moves = legal_moves(twos + ["S3"], "2")
    bombs = of_type(moves, MoveType.BOMB)
    assert max(len(m) for m in bombs) == 8
    assert all(m.rank == "2" for m in bombs)
    # the largest bomb of A at level 2 with both wilds is 10 cards
    aces = ["SA", "SA", "HA", "HA", "CA", "CA", "DA", "DA"]
    assert max(len(m) for m in of_type(legal_moves(aces + ["H2", "H2"], "2"), MoveType.BOMB)) == 10


def test_combo_straight_flush_natural_only_straight_flush():
    # "Five natural (wild-free) same-suit consecutive cards are only a straight flush."
    assert readings("S3 S4 S5 S6 S7", "2") == [("StraightFlush", "3")]
    assert readings("HT HJ HQ HK HA", "2") == [("StraightFlush", "T")]
    assert readings("DA D2 D3 D4 D5", "9") == [("StraightFlush", "A")]
    moves = legal_moves("S3 S4 S5 S6 S7", "2")
    assert [m.type for m in moves if len(m) == 5] == [MoveType.STRAIGHT_FLUSH]


def test_combo_straight_flush_completed_by_wild_is_both():
    # "A same-suit run completed by a wild is both a straight flush and a plain
    #  straight (the wild may be read as another suit): two moves."
    assert readings("C7 C8 H5 CT CJ", "5") == [("StraightFlush", "7"), ("Straight", "7")]
    moves = legal_moves("S3 S4 H2 S6 S7", "2")
    five = [m.to_platform() for m in moves if len(m) == 5]
    assert five == [["Straight", "3", ["S3", "S4", "H2", "S6", "S7"]],
                    ["StraightFlush", "3", ["S3", "S4", "H2", "S6", "S7"]]]
    # two wilds
    assert readings("S3 H2 H2 S6 S7", "2") == [("StraightFlush", "3"), ("Straight", "3")]


def test_combo_contest_rules_no_wild_straight_flush():
    # "| wild may complete a straight flush | yes | no (the v1006 platform omits
    #  these moves) |"
    contest = Rules.contest()
    assert contest.wild_straight_flush is False
    assert readings("C7 C8 H5 CT CJ", "5", rules=contest) == [("Straight", "7")]
    assert readings("S3 S4 S5 S6 S7", "2", rules=contest) == [("StraightFlush", "3")]
    moves = legal_moves("S3 S4 H2 S6 S7 S8", "2", rules=contest)
    assert of_type(moves, MoveType.STRAIGHT_FLUSH) == []       # no natural 5-run here
    assert ["Straight", "4", ["S4", "H2", "S6", "S7", "S8"]] in plat(moves)
    moves = legal_moves("S3 S4 S5 S6 S7 H2", "2", rules=contest)
    assert plat(of_type(moves, MoveType.STRAIGHT_FLUSH)) == [
        ["StraightFlush", "3", ["S3", "S4", "S5", "S6", "S7"]]]
    # default rules: the wild-completed straight flushes are there
    default = of_type(legal_moves("S3 S4 H2 S6 S7 S8", "2"), MoveType.STRAIGHT_FLUSH)
    assert any("H2" in m.cards for m in default)
    with pytest.raises(InvalidMoveError):
        Move.from_platform(["StraightFlush", "7", ["C7", "C8", "H5", "CT", "CJ"]], "5",
                           rules=contest)


def test_combo_joker_bomb():
    # "joker bomb [Bomb, rank JOKER] | both small and both big jokers | beats everything"
    ms = classify("SB HR SB HR", "2")
    assert plat(ms) == [["Bomb", "JOKER", ["SB", "SB", "HR", "HR"]]]
    assert ms[0].type == MoveType.JOKER_BOMB
    assert P(["Bomb", "JOKER", ["SB", "SB", "HR", "HR"]], "2") == ms[0]
    assert readings("SB SB HR", "2") == []
    assert readings("SB HR HR H2", "2") == []
    moves = legal_moves("SB SB HR HR", "2")
    assert plat(moves)[-1] == ["Bomb", "JOKER", ["SB", "SB", "HR", "HR"]]
    assert len(of_type(moves, MoveType.JOKER_BOMB)) == 1


# ===========================================================================
# Comparison
# ===========================================================================

def test_compare_non_bombs_same_type_strictly_higher_key():
    # "Non-bomb plays beat only a play of the same type with a strictly higher key."
    lv = "2"
    assert C("S6", lv).beats(C("S5", lv)) and not C("D5", lv).beats(C("S5", lv))
    assert C("S6 D6", lv).beats(C("S5 D5", lv)) and not C("C5 H5", lv).beats(C("S5 D5", lv))
    # a different type never beats, whatever its key
    assert not C("SA DA", lv).beats(C("S3", lv))
    assert not C("S3", lv).beats(C("S3 D3", lv))
    assert not C("SA DA CA", lv).beats(C("S3 D3", lv))
    assert not C("ST DJ SQ SK SA", lv).beats(C("S3 D3 C3 S4 D4", lv))
    assert not C("S3 D3 C3 S4 D4", lv).beats(C("S3 D4 S5 S6 S7", lv))
    # straight flush is a bomb, a straight does not beat it
    assert not C("ST DJ SQ SK SA", lv).beats(C("S3 S4 S5 S6 S7", lv))


def test_compare_tube_and_plate_never_beat_each_other():
    # "Non-bomb plays beat only a play of the same type"
    lv = "2"
    tube = C("SQ DQ SK DK SA DA", lv)
    plate = C("S3 D3 C3 S4 D4 C4", lv)
    assert tube.type == MoveType.THREE_PAIR and plate.type == MoveType.TWO_TRIPS
    assert not tube.beats(plate) and not plate.beats(tube)
    follow = legal_moves("SQ DQ SK DK SA DA", lv, last=plate)
    assert plat(follow) == [["PASS", "PASS", "PASS"]]
    follow = legal_moves("SK DK CK SA DA CA", lv, last=C("S3 D3 S4 D4 S5 D5", lv))
    assert of_type(follow, MoveType.TWO_TRIPS) == []


def test_compare_full_house_by_triple_only():
    # "full house [ThreeWithTwo] | ... | the triple, level order"
    lv = "5"
    low = C("S3 D3 C3 SA DA", lv)
    high = C("S4 D4 C4 S2 D2", lv)
    assert high.beats(low) and not low.beats(high)
    # equal triples: the pair does not matter
    assert not C("S4 D4 C4 SA DA", lv).beats(high) and not high.beats(C("S4 D4 C4 SA DA", lv))
    follow = legal_moves("S3 D3 C3 SA DA HR HR", lv, last=high)
    assert plat(follow) == [["PASS", "PASS", "PASS"]]
    # level-card triple is highest
    assert C("S5 D5 C5 S2 D2", lv).beats(C("SA DA CA SK DK", lv))


def test_compare_straights_by_top_card_natural_order():
    # "straight ... | top card, natural order (A2345 lowest)"
    lv = "A"
    low = C("SA S2 S3 S4 D5", lv)
    assert C("S2 S3 S4 D5 S6", lv).beats(low) and not low.beats(C("S2 S3 S4 D5 S6", lv))
    top = C("ST DJ SQ SK SA", lv)
    assert top.beats(C("S9 ST DJ SQ SK", lv))
    # the level rank does not lift a straight: at level 5, 23456 < 34567
    assert C("S3 S4 D5 S6 S7", "5").beats(C("S2 S3 S4 D5 S6", "5"))


def test_compare_bomb_order_sizes_and_straight_flush():
    # "Bomb order, low to high: 4-card bombs < 5-card bombs < straight flushes <
    #  6-card < 7 < 8 < 9 < 10-card bombs < joker bomb."
    lv = "2"
    chain = [
        C("S3 H3 C3 D3", lv),                      # 4-card, low rank
        C("SA HA CA DA", lv),                      # 4-card, A
        C("S2 S2 C2 D2", lv),                      # 4-card, level rank (highest 4)
        C("S3 H3 C3 D3 D3", lv),                   # 5-card
        C("S2 S2 C2 D2 D2", lv),                   # 5-card level rank
        C("SA S2 S3 S4 S5", lv),                   # lowest straight flush (A2345)
        C("DT DJ DQ DK DA", lv),                   # highest straight flush
        C("S3 S3 H3 C3 D3 D3", lv),                # 6
        C("S3 S3 H3 H3 C3 D3 D3", lv),             # 7
        C("S3 S3 H3 H3 C3 C3 D3 D3", lv),          # 8 (natural)
        C("S3 S3 H3 H3 C3 C3 D3 D3 H2", lv),       # 9
        C("S3 S3 H3 H3 C3 C3 D3 D3 H2 H2", lv),    # 10
        C("SB SB HR HR", lv),                      # joker bomb
    ]
    assert [len(m) for m in chain] == [4, 4, 4, 5, 5, 5, 5, 6, 7, 8, 9, 10, 4]
    assert chain[5].type == MoveType.STRAIGHT_FLUSH and chain[-1].type == MoveType.JOKER_BOMB
    assert_strictly_increasing(chain)


def test_compare_bomb_order_with_legal_moves_following():
    # "Bomb order, low to high: 4-card bombs < 5-card bombs < straight flushes <
    #  6-card < 7 < 8 < 9 < 10-card bombs < joker bomb."
    lv = "2"
    hand = "S4 H4 C4 D4 D4 S6 S7 S8 S9 ST SB SB HR HR"
    last5 = C("SK HK CK DK DK", lv)                    # a 5-card bomb of K
    follow = legal_moves(hand, lv, last=last5)
    assert plat(follow) == [["PASS", "PASS", "PASS"],
                            ["StraightFlush", "6", ["S6", "S7", "S8", "S9", "ST"]],
                            ["Bomb", "JOKER", ["SB", "SB", "HR", "HR"]]]
    last_sf = C("DT DJ DQ DK DA", lv)
    follow = legal_moves("S4 S4 H4 C4 D4 D4 S6 S7 S8 S9 ST", lv, last=last_sf)
    assert plat(follow) == [["PASS", "PASS", "PASS"], ["Bomb", "4", ["S4", "S4", "H4", "C4", "D4", "D4"]]]
    last6 = C("SA SA HA CA DA DA", lv)
    follow = legal_moves("S4 S4 H4 H4 C4 D4 D4 S6 S7 S8 S9 ST", lv, last=last6)
    assert [len(m) for m in follow[1:]] == [7]
    # a 10-card bomb loses only to the joker bomb
    last10 = C("S3 S3 H3 H3 C3 C3 D3 D3 H2 H2", lv)
    follow = legal_moves("SA SA HA HA CA CA DA DA SB SB HR", lv, last=last10)
    assert plat(follow) == [["PASS", "PASS", "PASS"]]
    follow = legal_moves("SB SB HR HR", lv, last=last10)
    assert len(follow) == 2 and follow[1].type == MoveType.JOKER_BOMB
    follow = legal_moves("SA SA HA HA CA CA DA DA H2 H2", lv, last=C("SB SB HR HR", lv))
    assert plat(follow) == [["PASS", "PASS", "PASS"]]


def test_compare_same_size_bombs_by_level_order():
    # "Bombs of the same size compare by rank in level order (so a bomb of level
    #  cards is the highest of its size)"
    lv = "7"
    fours = [C(f"S{r} D{r} C{r} H{r}", lv) for r in "23456" "89TJQKA"] + [C("S7 S7 D7 C7", lv)]
    assert_strictly_increasing(fours)
    # the level bomb of 4 still loses to any 5-card bomb
    assert C("S2 S2 D2 C2 H2", lv).beats(C("S7 S7 D7 C7", lv))
    # a wild-made level bomb
    assert C("S7 D7 C7 H7", lv).beats(C("SA DA CA HA", lv))
    follow = legal_moves("S7 D7 C7 H7 S3 D3 C3 S3", lv, last=C("SA DA CA HA", lv))
    assert {m.rank for m in follow[1:] if len(m) == 4} == {"7"}
    assert {m.rank for m in follow[1:] if len(m) == 5} == {"3"}   # 3333 + wild


def test_compare_straight_flushes_by_rank_suits_equal():
    # "straight flushes compare by top card in natural order, suits equal."
    lv = "2"
    sfs = [C("SA S2 S3 S4 S5", lv), C("H2 H3 H4 H5 H6", "9"), C("D9 DT DJ DQ DK", lv),
           C("CT CJ CQ CK CA", lv)]
    assert_strictly_increasing(sfs)
    a = C("S5 S6 S7 S8 S9", lv)
    b = C("D5 D6 D7 D8 D9", lv)
    assert not a.beats(b) and not b.beats(a)
    follow = legal_moves("D5 D6 D7 D8 D9 C6 C7 C8 C9 CT", lv, last=a)
    assert plat(follow) == [["PASS", "PASS", "PASS"],
                            ["StraightFlush", "6", ["C6", "C7", "C8", "C9", "CT"]]]


def test_compare_any_bomb_beats_any_non_bomb():
    # "Any bomb (straight flushes included) beats any non-bomb play."
    lv = "2"
    non_bombs = [C("HR", lv), C("HR HR", lv), C("S2 C2 D2", lv), C("SQ DQ SK DK SA DA", lv),
                 C("SA DA CA S2 D2", lv), C("SK DK CK SA DA CA", lv), C("ST DJ SQ SK SA", lv)]
    bombs = [C("S3 D3 C3 H3", lv), C("SA S2 S3 S4 S5", lv), C("SB SB HR HR", lv)]
    for b in bombs:
        for n in non_bombs:
            assert b.beats(n), f"{b} should beat {n}"
            assert not n.beats(b), f"{n} should not beat {b}"
    # following a non-bomb offers every bomb of the hand
    hand = "S3 D3 C3 H3 S6 S7 S8 S9 ST"
    follow = legal_moves(hand, lv, last=C("HR HR", lv))
    assert plat(follow) == [["PASS", "PASS", "PASS"], ["Bomb", "3", ["S3", "H3", "C3", "D3"]],
                            ["StraightFlush", "6", ["S6", "S7", "S8", "S9", "ST"]]]


def test_compare_wild_completes_every_combination():
    # "A wild may complete any combination above (pairs, triples, full houses,
    #  straights, straight flushes, tubes, plates, bombs), but never stands for a joker."
    lv = "2"
    assert readings("S5 H2", lv) == [("Pair", "5")]
    assert readings("S5 D5 H2", lv) == [("Trips", "5")]
    assert ("ThreeWithTwo", "5") in readings("S5 D5 H2 S9 D9", lv)
    assert ("ThreeWithTwo", "9") in readings("S5 D5 H2 S9 D9", lv)
    assert readings("S5 D6 H2 S8 D9", lv) == [("Straight", "5")]
    assert readings("S5 S6 H2 S8 S9", lv) == [("StraightFlush", "5"), ("Straight", "5")]
    assert readings("S5 D5 S6 H2 S7 D7", lv) == [("ThreePair", "5")]
    assert readings("S5 D5 C5 S6 H2 D6", lv) == [("TwoTrips", "5")]
    assert readings("S5 D5 C5 H2", lv) == [("Bomb", "5")]


def test_compare_wild_readings_in_full_houses_and_sequences():
    # "Combined with other cards a wild may stand for any card except a joker";
    # "The same cards can be several moves when the wild can be read several ways"
    # the wild at either end of a same-suit run: two straight flushes, two straights
    assert readings("H2 S3 S4 S5 S6", "2") == [("StraightFlush", "3"), ("StraightFlush", "2"),
                                               ("Straight", "3"), ("Straight", "2")]
    # the wild standing for a level card at its natural place in a run
    assert readings("S5 S6 H7 S8 S9", "7") == [("StraightFlush", "5"), ("Straight", "5")]
    # two wilds: "AAA + KK" and "KKK + AA"
    assert readings("H2 H2 SK DK SA", "2") == [("ThreeWithTwo", "A"), ("ThreeWithTwo", "K")]
    assert readings("S5 H2 H2 S9 D9", "2") == [("ThreeWithTwo", "9"), ("ThreeWithTwo", "5")]
    # a wild with a joker pair
    assert readings("S9 D9 H2 SB SB", "2") == [("ThreeWithTwo", "9")]
    # the level rank with a wild: "222 + 33" and "333 + 22"
    assert readings("S2 D2 H2 S3 D3", "2") == [("ThreeWithTwo", "2"), ("ThreeWithTwo", "3")]
    # 5-card bombs: level rank above A
    assert C("S2 S2 C2 D2 H2", "2").beats(C("SA SA CA DA HA", "2"))
    assert not C("SA SA CA DA HA", "2").beats(C("S2 S2 C2 D2 H2", "2"))


# ===========================================================================
# What counts as one legal move
# ===========================================================================

def test_one_move_different_suits_are_different_moves():
    # "Different suit choices are different moves (♠3♣3 and ♠3♦3 are two pairs)."
    pairs = of_type(legal_moves("S3 C3 D3", "9"), MoveType.PAIR)
    assert sorted(m.cards for m in pairs) == [("C3", "D3"), ("S3", "C3"), ("S3", "D3")]
    assert P(["Pair", "3", ["S3", "C3"]], "9") != P(["Pair", "3", ["S3", "D3"]], "9")


def test_one_move_two_copies_of_a_face_one_move():
    # "Two copies of the same face are not (one CA single, not two)."
    moves = legal_moves("CA CA", "9")
    assert plat(moves) == [["Single", "A", ["CA"]], ["Pair", "A", ["CA", "CA"]]]
    moves = legal_moves("CA CA D3", "9")
    assert sorted(m.cards for m in of_type(moves, MoveType.SINGLE)) == [("CA",), ("D3",)]
    assert len(Hand("CA CA")) == 2 and Hand("CA CA").count("CA") == 2


def test_one_move_wild_where_natural_exists_is_different():
    # "Using a wild where a natural card also exists is a different move
    #  (♠6♥6♦6 and ♠6♥6♥2 at level 2 are two triples)."
    trips = of_type(legal_moves("S6 H6 D6 H2", "2"), MoveType.TRIPS)
    cards = {tuple(sorted(m.cards)) for m in trips}
    assert tuple(sorted(["S6", "H6", "D6"])) in cards
    assert tuple(sorted(["S6", "H6", "H2"])) in cards
    assert len(trips) == 4          # S6H6D6, S6H6+w, S6D6+w, H6D6+w
    assert all(m.rank == "6" for m in trips)
    pairs = of_type(legal_moves("S6 H2", "2"), MoveType.PAIR)
    assert plat(pairs) == [["Pair", "6", ["S6", "H2"]]]


def test_one_move_full_house_k_and_2_from_same_cards():
    # "K K ♥5 2 2 at level 5 is both "full house of K" and "full house of 2"";
    # "The default reading, when a player does not say, is the highest one."
    ms = classify("SK DK H5 S2 D2", "5")
    assert plat(ms) == [["ThreeWithTwo", "K", ["SK", "DK", "H5", "S2", "D2"]],
                        ["ThreeWithTwo", "2", ["S2", "D2", "H5", "SK", "DK"]]]
    assert C("SK DK H5 S2 D2", "5") == ms[0]
    assert parse_move("SK DK H5 S2 D2", "5") == ms[0]
    moves = legal_moves("SK DK H5 S2 D2", "5")
    fh = of_type(moves, MoveType.THREE_WITH_TWO)
    assert set(fh) == set(ms) and len(fh) == 2


def test_one_move_straight_read_two_ways():
    # "♥2 6 7 8 9 at level 2 is both the straight 5–9 (platform rank 5) and the
    #  straight 6–10 (platform rank 6)."
    ms = classify("H2 S6 S7 S8 D9", "2")
    assert [(m.to_platform()[0], m.rank) for m in ms] == [("Straight", "6"), ("Straight", "5")]
    assert ms[0].cards == ("S6", "S7", "S8", "D9", "H2")
    assert ms[1].cards == ("H2", "S6", "S7", "S8", "D9")
    assert C("H2 S6 S7 S8 D9", "2").rank == "6"
    moves = legal_moves("H2 S6 S7 S8 D9", "2")
    assert sorted(m.rank for m in of_type(moves, MoveType.STRAIGHT)) == ["5", "6"]


def test_one_move_seed_worked_example_wild_straight_flush():
    # "C7 C8 H5 CT CJ at level 5" (RULES.md seeds): straight flush 7, also straight 7
    ms = classify("C7 C8 H5 CT CJ", "5")
    assert plat(ms) == [["StraightFlush", "7", ["C7", "C8", "H5", "CT", "CJ"]],
                        ["Straight", "7", ["C7", "C8", "H5", "CT", "CJ"]]]
    assert C("C7 C8 H5 CT CJ", "5").type == MoveType.STRAIGHT_FLUSH


def test_one_move_two_wilds_fill_one_pair_of_a_tube():
    # "Two wilds may together fill one pair of a tube or the pair of a full house
    #  (♥7♥7 S3 D3 S4 D4 at level 7 is both the tube 223344 and the tube 334455)"
    ms = classify("H7 H7 S3 D3 S4 D4", "7")
    got = {(m.to_platform()[0], m.rank) for m in ms}
    assert got == {("ThreePair", "2"), ("ThreePair", "3"), ("TwoTrips", "3")}
    assert len(ms) == 3
    p = {(m.to_platform()[0], m.rank): m.to_platform()[2] for m in ms}
    assert p[("ThreePair", "2")] == ["H7", "H7", "S3", "D3", "S4", "D4"]
    assert p[("ThreePair", "3")] == ["S3", "D3", "S4", "D4", "H7", "H7"]
    moves = legal_moves("H7 H7 S3 D3 S4 D4", "7")
    for m in ms:
        assert m in moves


def test_one_move_two_wilds_as_pair_of_full_house_counted_once():
    # "Two wilds may together fill ... the pair of a full house"
    moves = legal_moves("SK DK CK H2 H2", "2")
    fh = [m for m in of_type(moves, MoveType.THREE_WITH_TWO) if Counter(m.cards) ==
          Counter(["SK", "DK", "CK", "H2", "H2"])]
    assert len(fh) == 1 and fh[0].rank == "K"
    assert fh[0].cards == ("SK", "CK", "DK", "H2", "H2")


def test_one_move_seed_bomb_and_full_house_at_level_A():
    # "SA DA DA + ♥A♥A at level A is a bomb of five A's and also "AAA + any pair""
    moves = legal_moves("SA DA DA HA HA", "A")
    five = [m for m in moves if len(m) == 5]
    assert {(m.to_platform()[0], m.rank) for m in five} == {("Bomb", "A"), ("ThreeWithTwo", "A")}


def test_one_move_no_duplicates():
    # "The move generator lists every distinct legal triple exactly once"
    rng = random.Random(1234)
    hands = ["H7 H7 S3 D3 S4 D4 S5 D5 S6 D6", "SK DK H5 H5 S2 D2 C2 SA DA",
             "S2 S3 S4 S5 S6 S7 S8 S9 ST SJ SQ SK SA H2 H2"]
    for _ in range(40):
        d = DECK[:]
        rng.shuffle(d)
        hands.append(d[:27])
    for h in hands:
        for lv in ("2", "5", "7", "A"):
            moves = legal_moves(h, lv)
            assert len(moves) == len(set(moves))
            trip = [(m.to_platform()[0], m.rank, tuple(sorted(m.cards))) for m in moves]
            assert len(trip) == len(set(trip))


def test_one_move_leading_every_move_no_pass():
    # "On lead: every move, no pass."
    moves = legal_moves("S3 D3 S4 H4 S5", "2")
    assert all(not m.is_pass for m in moves)
    assert moves[0].type == MoveType.SINGLE
    assert legal_moves("S3", "2", last=None)[0] == C("S3", "2")
    # a pass as `last` counts as leading
    assert plat(legal_moves("S3", "2", last=["PASS", "PASS", "PASS"])) == [["Single", "3", ["S3"]]]
    assert len(legal_moves("", "2")) == 0


def test_one_move_following_pass_then_every_beating_move():
    # "Following: pass, plus every move that beats the current top play."
    rng = random.Random(77)
    for _ in range(60):
        d = DECK[:]
        rng.shuffle(d)
        lv = rng.choice(RANKS)
        mine, theirs = d[:20], d[20:40]
        other = legal_moves(theirs, lv)
        if not len(other):
            continue
        last = other[rng.randrange(len(other))]
        lead = legal_moves(mine, lv)
        follow = legal_moves(mine, lv, last=last)
        assert follow[0] == Move.pass_move() and follow[0].to_platform() == ["PASS", "PASS", "PASS"]
        assert all(m.beats(last) for m in follow[1:])
        assert set(follow[1:]) == {m for m in lead if m.beats(last)}
        # the platform triple as `last` gives the same list
        assert list(legal_moves(mine, lv, last=last.to_platform())) == list(follow)


def test_one_move_following_nothing_beats():
    # "Following: pass, plus every move that beats the current top play."
    follow = legal_moves("S3 D4", "2", last=["Single", "R", ["HR"]])
    assert plat(follow) == [["PASS", "PASS", "PASS"]]


def test_one_move_follow_with_invalid_last_raises():
    # "A last that is malformed or whose cards don't form that type & rank raises
    #  InvalidMoveError." (API)
    with pytest.raises(InvalidMoveError):
        legal_moves("S3 D3", "2", last=["Pair", "5", ["S5", "D6"]])
    with pytest.raises(InvalidMoveError):
        legal_moves("S3 D3", "2", last=["Straight", "3", ["S3", "S4", "S5", "S6", "S7"]])
    with pytest.raises(InvalidMoveError):
        legal_moves("S3 D3", "2", last=["Straight", "4", ["S3", "D4", "S5", "S6", "S7"]])


def test_one_move_is_type_rank_multiset():
    # "A move is the triple (type, key rank, card multiset)."
    a = P(["Pair", "5", ["S5", "D5"]], "2")
    b = P(["Pair", "5", ["D5", "S5"]], "2")
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert str(a) == "Pair 5 S5 D5"
    assert a.type == MoveType.PAIR and a.rank == "5" and a.cards == ("S5", "D5")
    assert Move.pass_move().to_platform() == ["PASS", "PASS", "PASS"]
    assert Move.pass_move() == P(["PASS", "PASS", "PASS"], "2")
    # same cards, different key: different moves
    k, two = classify("SK DK H5 S2 D2", "5")
    assert k != two and Counter(k.cards) == Counter(two.cards)
    # same cards, different type: different moves
    sf, st = classify("C7 C8 H5 CT CJ", "5")
    assert sf != st and sf.rank == st.rank
    assert isinstance(legal_moves("S3", "2"), MoveList)


# ===========================================================================
# Key rank in the platform notation
# ===========================================================================

def test_key_rank_letters_and_jokers():
    # "singles, pairs, triples, full houses (the triple) and bombs use the rank
    #  letter (B/R for small/big jokers)."
    assert C("SB", "2").to_platform() == ["Single", "B", ["SB"]]
    assert C("HR", "2").to_platform() == ["Single", "R", ["HR"]]
    assert C("SB SB", "2").to_platform() == ["Pair", "B", ["SB", "SB"]]
    assert C("HR HR", "2").to_platform() == ["Pair", "R", ["HR", "HR"]]
    assert C("ST DT CT", "2").to_platform() == ["Trips", "T", ["ST", "CT", "DT"]]
    assert C("ST DT CT S4 D4", "2").rank == "T"
    assert C("S4 D4 CT ST DT", "2").rank == "T"
    assert C("SQ HQ CQ DQ", "2").rank == "Q"


def test_key_rank_sequences_lowest_card_ace_low():
    # "Straights, straight flushes, tubes and plates use their lowest card, with
    #  A meaning ace-low (straight A = A2345, straight T = TJQKA)."
    assert C("SA D2 S3 S4 S5", "9").to_platform() == ["Straight", "A", ["SA", "D2", "S3", "S4", "S5"]]
    assert C("ST DJ SQ SK SA", "9").to_platform() == ["Straight", "T", ["ST", "DJ", "SQ", "SK", "SA"]]
    assert C("HA H2 H3 H4 H5", "9").rank == "A"
    assert C("HT HJ HQ HK HA", "9").rank == "T"
    assert C("SQ DQ SK DK SA DA", "9").rank == "Q"
    assert C("SA DA S2 D2 S3 D3", "9").rank == "A"
    assert C("SK DK CK SA DA CA", "9").rank == "K"
    assert C("SA DA CA S2 D2 C2", "9").rank == "A"


# ===========================================================================
# PROTOCOL.md: card order in a move and actionList order
# ===========================================================================

PROTOCOL_EXAMPLES = [
    ["Straight", "7", ["H7", "D8", "D9", "ST", "H2"]],
    ["ThreePair", "4", ["H4", "C4", "D5", "H2", "S6", "D6"]],
    ["ThreeWithTwo", "4", ["H4", "C4", "H2", "S6", "D6"]],
    ["Bomb", "A", ["SA", "HA", "CA", "CA", "H2"]],
]


@pytest.mark.parametrize("triple", PROTOCOL_EXAMPLES, ids=[t[0] for t in PROTOCOL_EXAMPLES])
def test_protocol_examples_round_trip_exactly(triple):
    # "Examples from the platform: ... (all at level 2)"; "The cards inside an
    #  action follow the combination's structure, each wild placed where it fills"
    m = Move.from_platform(triple, "2")
    assert m.to_platform() == triple
    assert list(m.cards) == triple[2]
    # the generator emits the move with exactly that card order
    moves = legal_moves(triple[2], "2")
    assert triple in plat(moves)
    # card order in the input does not matter
    shuffled = list(reversed(triple[2]))
    assert Move.from_platform([triple[0], triple[1], shuffled], "2").to_platform() == triple


def test_protocol_card_order_other_types_suit_order_wilds_last():
    # "other types by suit order S, H, C, D with wilds last"; "ThreeWithTwo the
    #  triple then the pair"; "sequences ... from the lowest rank up"
    assert C("D9 S9 C9 H9", "2").cards == ("S9", "H9", "C9", "D9")
    assert C("D9 H2 S9", "2").cards == ("S9", "D9", "H2")
    assert C("D5 S5 C9 S9 H9", "2").cards == ("S9", "H9", "C9", "S5", "D5")
    assert C("S7 S3 D5 C4 H6", "2").cards == ("S3", "C4", "D5", "H6", "S7")
    assert C("D4 S3 D3 S4 S5 D5", "2").cards == ("S3", "D3", "S4", "D4", "S5", "D5")


def test_protocol_action_list_type_order():
    # "actionList lists each legal (type, rank, cards) once, in the order Single,
    #  Pair, Trips, ThreePair, ThreeWithTwo, TwoTrips, Straight, 4-card bombs,
    #  5-card bombs, StraightFlush, bombs of 6+ cards, joker bomb."
    hand = "S3 H3 C3 D3 S4 S4 H4 C4 D4 S5 S5 H5 H5 C5 D5 S6 S7 S8 S9 ST SB SB HR HR"

    def category(m):
        t = m.type
        if t == MoveType.BOMB:
            return {4: 7, 5: 8}.get(len(m), 10)
        return {MoveType.SINGLE: 0, MoveType.PAIR: 1, MoveType.TRIPS: 2,
                MoveType.THREE_PAIR: 3, MoveType.THREE_WITH_TWO: 4, MoveType.TWO_TRIPS: 5,
                MoveType.STRAIGHT: 6, MoveType.STRAIGHT_FLUSH: 9, MoveType.JOKER_BOMB: 11}[t]

    for lv in ("2", "9"):
        moves = legal_moves(hand, lv)
        cats = [category(m) for m in moves]
        assert cats == sorted(cats)
        assert sorted(set(cats)) == list(range(12))
        # following a single: pass first, then singles, then the bombs in the same order
        follow = legal_moves(hand, lv, last=["Single", "3", ["D3"]])
        fc = [category(m) for m in follow[1:]]
        assert fc == sorted(fc) and follow[0].is_pass


# ===========================================================================
# Pattern mode
# ===========================================================================

def _pattern_hands():
    rng = random.Random(20240601)
    out = [("H7 H7 S3 D3 S4 D4 S5 D5", "7"), ("SK DK H5 S2 D2 C2 H5", "5"),
           ("S3 S4 H2 S6 S7 D3 D4 D5 D6 D7 H2", "2")]
    for i in range(120):
        d = DECK[:]
        rng.shuffle(d)
        lv = rng.choice(RANKS)
        if i % 3 == 0:
            w = "H" + lv
            d.remove(w)
            d.remove(w)
            d = [w] * rng.choice((1, 2)) + d
        out.append((d[:rng.randint(1, 27)], lv))
    return out


def test_pattern_mode_subset_of_full():
    # legal_moves(mode="pattern"): one representative per pattern, each a legal move
    for hand, lv in _pattern_hands():
        full = set(legal_moves(hand, lv))
        pat = legal_moves(hand, lv, mode="pattern")
        assert set(pat) <= full
        assert len(pat) == len(set(pat))


def _dedup_by_pattern(full, lv):
    seen = set()
    out = []
    for m in full:
        k = pattern_of(m, lv) if not m.is_pass else "PASS"
        if k not in seen:
            seen.add(k)
            out.append(m)
    return out


def test_pattern_mode_first_representative_of_each_pattern():
    # pattern = (type, rank, natural-card count per rank, number of wilds, suit of a
    # straight flush); one representative per pattern of the full list: the first
    # move of that pattern in full-mode order.
    for rules in (None, Rules.contest()):
        for hand, lv in _pattern_hands():
            for last in (None, ["Pair", "3", ["S3", "C3"]], ["Single", "5", ["S5"]]):
                full = legal_moves(hand, lv, last, rules=rules)
                pat = legal_moves(hand, lv, last, mode="pattern", rules=rules)
                expect = _dedup_by_pattern(full, lv)
                assert len(pat) == len(expect)
                assert set(pat) == set(expect), f"{hand} @ {lv}, last={last}"


def test_pattern_mode_keeps_full_list_order():
    # representative rule: the pattern list equals the full list deduplicated by
    # pattern keeping the first occurrence, in order.
    for rules in (None, Rules.contest()):
        for hand, lv in _pattern_hands():
            for last in (None, ["Pair", "3", ["S3", "C3"]], ["Single", "5", ["S5"]]):
                full = legal_moves(hand, lv, last, rules=rules)
                pat = legal_moves(hand, lv, last, mode="pattern", rules=rules)
                assert list(pat) == _dedup_by_pattern(full, lv), f"{hand} @ {lv}, last={last}"


def test_pattern_mode_order_minimal_case():
    # the same rule on a small hand: a natural spade run (a straight flush, not a
    # straight) next to an off-suit 8 and a wild
    hand, lv = "S5 S6 S7 S8 D8 S9 H2", "2"
    full = legal_moves(hand, lv)
    pat = legal_moves(hand, lv, mode="pattern")
    assert list(pat) == _dedup_by_pattern(full, lv)


# ===========================================================================
# Errors
# ===========================================================================

def test_errors_are_value_errors():
    # GuandanError is a ValueError
    assert issubclass(GuandanError, ValueError)
    for cls in (CardError, UnknownCardError, TooManyCopiesError, LevelError, InvalidMoveError):
        assert issubclass(cls, GuandanError)


@pytest.mark.parametrize("bad", ["S1", "X9", "10S", "", None, 5, "s3 ", "HB", "S"])
def test_errors_unknown_card(bad):
    # "Card strings ... suit letter then rank letter"
    with pytest.raises(UnknownCardError) as ei:
        Hand(["S3", bad])
    assert repr(bad) in str(ei.value)
    with pytest.raises(UnknownCardError):
        classify([bad, "S3"], "2")
    with pytest.raises(UnknownCardError):
        legal_moves(["S3", bad], "2")
    with pytest.raises(UnknownCardError):
        Move.from_platform(["Single", "3", [bad]], "2")


def test_errors_unknown_card_in_string_hand():
    with pytest.raises(UnknownCardError) as ei:
        Hand("S3 S1 D4")
    assert "'S1'" in str(ei.value)
    with pytest.raises(CardError):
        Hand(5)
    with pytest.raises(CardError):
        Hand(None)


def test_errors_too_many_copies():
    # "each present twice": a hand holds at most 2 copies of a face
    with pytest.raises(TooManyCopiesError) as ei:
        Hand("S3 S3 S3")
    assert "S3" in str(ei.value)
    with pytest.raises(TooManyCopiesError):
        legal_moves(["S3", "D4", "S3", "S3"], "2")
    with pytest.raises(TooManyCopiesError):
        classify("HR HR HR", "2")
    with pytest.raises(TooManyCopiesError):
        Hand.from_counts([3] + [0] * 53)


@pytest.mark.parametrize("bad", ["1", "B", 15, None, 1, "", "11", "AA", "R", 2.0, True])
def test_errors_level_outside_2_to_A(bad):
    # "Each team has a level, 2 .. A."
    with pytest.raises(LevelError) as ei:
        legal_moves("S3", bad)
    assert repr(bad) in str(ei.value)
    with pytest.raises(LevelError):
        classify("S3", bad)
    with pytest.raises(LevelError):
        Move.from_platform(["Single", "3", ["S3"]], bad)
    if bad is not None:            # Hand.cards(level=None) means natural order
        with pytest.raises(LevelError):
            Hand("S3").cards(level=bad)


def test_errors_levels_accepted():
    for i, r in enumerate(RANKS):
        assert len(legal_moves("S3", r)) == 1
        assert len(legal_moves("S3", i + 2)) == 1


def test_errors_bad_mode():
    with pytest.raises(GuandanError) as ei:
        legal_moves("S3", "2", mode="bogus")
    assert "bogus" in str(ei.value)


@pytest.mark.parametrize("last,needle", [
    ([1, 2], "[1, 2]"),
    (["Pair", "5"], "['Pair', '5']"),
    (["Nope", "5", ["S5", "D5"]], "Nope"),
    (["Pair", "6", ["S5", "D5"]], "Pair 6"),
    (["Pair", "5", ["S5", "D6"]], "Pair 5"),
    (["Pair", "5", "S5 D5"], "S5 D5"),
    (["Pair", "Z", ["S5", "D5"]], "'Z'"),
    ("not json", "not json"),
    (["PASS", "5", []], "PASS"),
])
def test_errors_malformed_last(last, needle):
    # API: "A last that is malformed or whose cards don't form that type & rank
    # raises InvalidMoveError."
    with pytest.raises(InvalidMoveError) as ei:
        legal_moves("S6 D6 S7", "2", last=last)
    assert needle in str(ei.value)
    with pytest.raises(InvalidMoveError):
        Move.from_platform(last, "2")


def test_errors_from_platform_validated():
    # Move.from_platform(triple, level) (validated; raises InvalidMoveError)
    with pytest.raises(InvalidMoveError):
        Move.from_platform(["Single", "4", ["S3"]], "2")
    with pytest.raises(InvalidMoveError):
        Move.from_platform(["Bomb", "5", ["S5", "D5", "C5"]], "2")
    with pytest.raises(InvalidMoveError):
        Move.from_platform(["ThreeWithTwo", "9", ["S9", "H9", "D9", "SB", "HR"]], "2")
    with pytest.raises(InvalidMoveError):
        Move.from_platform(["Pair", "2", ["H2", "SB"]], "2")
    with pytest.raises(InvalidMoveError):
        Move.from_platform(["Straight", "J", ["SJ", "DQ", "SK", "SA", "S2"]], "2")
    with pytest.raises(InvalidMoveError):
        Move.from_cards("S3 D4", "2")
    with pytest.raises(UnknownCardError):
        Move.from_platform(["Pair", "5", ["S5", "Z5"]], "2")
    with pytest.raises(TooManyCopiesError):
        Move.from_platform(["Trips", "5", ["S5", "S5", "S5"]], "2")


def test_errors_bad_rules():
    with pytest.raises(GuandanError):
        legal_moves("S3", "2", rules="contest")


def test_bombs_may_be_bomb_never_rules_out_a_play_of_every_card():
    """A play of 4 or 7..10 cards is a bomb (of one rank with wilds, or the
    four jokers): the generator's quick test that rules such hands out
    (``may_be_bomb``, used by the expert to skip a go-out search) never rules
    out a hand whose cards are one play, under either rule set."""
    from guandan import _core
    rng = random.Random(29)
    deck = [s + r for r in "23456789TJQKA" for s in "SHCD"] * 2 + ["SB", "SB", "HR", "HR"]
    ruled_out = kept = plays = 0
    for it in range(6000):
        level = rng.randrange(13)
        lv = "23456789TJQKA"[level]
        n = rng.choice((4, 7, 8, 9, 10))
        if it % 2:
            # one rank, the level's cards (the wilds among them) and the jokers
            r = rng.choice("23456789TJQKA")
            pool = [c for c in deck if c[1] in (r, lv)] + ["SB", "HR", "SB", "HR"]
        else:
            pool = deck[:]
        rng.shuffle(pool)
        cards = pool[:n] if it % 7 else ["SB", "SB", "HR", "HR"]
        one, two = Hand(cards).masks
        may = _core._may_be_bomb(one, two, level)
        readings = _core.classify_masks(one, two, level) + _core.classify_masks(one, two, level, False)
        plays += bool(readings)
        if readings:
            assert may, (cards, lv, readings)
        ruled_out += not may
        kept += may
    assert ruled_out > 2000 and kept > 500 and plays > 300, (ruled_out, kept, plays)


def test_cannot_beat_never_rules_out_a_beating_play():
    """The expert's quick test that nothing in a hand beats the play on top
    (``cannot_beat``: a follow then passes without a generated list) is True
    only when the generator finds no play but the pass, under either rule
    set: small and big hands, tops of every type drawn from other hands'
    plays (bombs, straight flushes and the four jokers included)."""
    from guandan import _core
    rng = random.Random(31)
    deck = [s + r for r in "23456789TJQKA" for s in "SHCD"] * 2 + ["SB", "SB", "HR", "HR"]
    said = nothing = 0
    for it in range(4000):
        level = rng.randrange(13)
        pool = deck[:]
        rng.shuffle(pool)
        other = _core.generate_moves(Hand(pool[:27]), level)
        top = other[rng.randrange(len(other))]
        if it % 50 == 0:
            top = Move.from_cards("SB SB HR HR", "23456789TJQKA"[level])
        lo, hi = top.words
        n = rng.choice((1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 27))
        hand = Hand(pool[27:27 + n])
        cb = _core._cannot_beat(hand.masks[0], hand.masks[1], level, lo, hi)
        only_pass = all(len(_core.generate_moves(hand, level, lo, hi, wild_sf=ws)) == 1 for ws in (True, False))
        if cb:
            assert only_pass, (str(hand), str(top), level)
        said += cb
        nothing += only_pass
    assert said > 1000 and said >= 0.8 * nothing - 400, (said, nothing)
