"""Hand-written scenario tests of the game engine (guandan.Game), one rule per
test, each quoting the line of RULES.md (docs/rules.md) it checks.

Rounds after the first are dealt from the game's seed, so tests that need a
hand property in the next round (a dweller with both big jokers, equal
tributes, ...) build the end of a round with Game.from_position, play the
last cards, and loop over seeds until the new deal has the property.
"""

import json

import pytest

from guandan import Game, GuandanError, IllegalMoveError, MoveType, Rules
from helpers import to_ref
from reference import ref_moves
from helpers import level_value, return_choices, tribute_choices

RANKS = "23456789TJQKA"
RETURN_RANKS = "23456789T"           # "one card of rank 2..10 that is not a level card"


# ---------------------------------------------------------------------------
# helpers (test-side, from RULES.md)
# ---------------------------------------------------------------------------

def pos(hands, level="2", to_act=0, **kw):
    """A play-phase game from hands given as space-separated strings."""
    return Game.from_position([h.split() for h in hands], level=level, to_act=to_act, **kw)


def cards(g, seat):
    return g.hands[seat].cards()


def strs(moves):
    return [str(m) for m in moves]





def top_value(g, seat):
    return max(level_value(c, g.level) for c in cards(g, seat) if c != "H" + g.level)


def finish_round(order, level="2", seed=0, **kw):
    """A position at the end of a round where the seats in ``order`` go out
    in that order, each with one single card (each beats the previous; the
    others pass); plays it out and returns the game (now in the next round,
    or over). ``order`` lists the seats that go out before the round ends."""
    ranks = [r for r in "3456789TJQK" if r != level]
    hands = [["C" + ranks[0]] for _ in range(4)]
    for i, s in enumerate(order):
        hands[s] = ["S" + ranks[i + 1]]
    g = Game.from_position(hands, level=level, to_act=order[0], seed=seed, **kw)
    r0 = g.round_index
    todo = list(order)
    while g.round_index == r0 and not g.is_over:
        s = g.to_act
        if todo and s == todo[0]:
            g.play(hands[s][0])
            todo.pop(0)
        else:
            g.play("PASS")
    assert not todo, "the round ended before every seat of `order` went out"
    return g


def find_next_round(order, pred, tries=3000, **kw):
    """finish_round over seeds 0.. until ``pred(g)`` holds for the new round."""
    for seed in range(tries):
        g = finish_round(order, seed=seed, **kw)
        if pred(g):
            return g
    pytest.fail(f"no seed < {tries} gives the wanted deal")


def a_fails(g):
    """Failed rounds at A per team, the last field of the position string."""
    return tuple(int(x) for x in g.position.split()[9].split(","))


def play_checked(g, move, expected_error):
    """play() must raise IllegalMoveError containing ``expected_error`` and
    leave the state unchanged."""
    before = g.position
    obs = [g.observation(s) for s in range(4)]
    n = len(g.moves_played)
    with pytest.raises(IllegalMoveError) as ei:
        g.play(move)
    assert expected_error in str(ei.value), str(ei.value)
    assert g.position == before
    assert [g.observation(s) for s in range(4)] == obs
    assert len(g.moves_played) == n
    return str(ei.value)


# ---------------------------------------------------------------------------
# Cards, dealing, first leader
# ---------------------------------------------------------------------------

def test_deal_27_cards_each_from_two_decks():
    # RULES.md "Playing a round" 1: "Deal 27 cards to each seat."
    # "Two standard decks with jokers: 108 cards. 54 distinct faces ..., each present twice."
    for seed in range(5):
        g = Game(seed=seed)
        assert g.card_counts == [27, 27, 27, 27]
        allc = sum((cards(g, s) for s in range(4)), [])
        assert len(allc) == 108
        assert len(set(allc)) == 54
        assert all(allc.count(c) == 2 for c in set(allc))


def test_first_round_leader_random_from_seed():
    # "The first round's opening leader is chosen at random"; every random
    # thing comes from the seed.
    leaders = {Game(seed=s).to_act for s in range(60)}
    assert leaders == {0, 1, 2, 3}
    assert Game(seed=17).to_act == Game(seed=17).to_act
    g = Game(seed=3)
    assert g.phase == "play" and g.level == "2" and g.team_levels == ("2", "2")


# ---------------------------------------------------------------------------
# Playing a round
# ---------------------------------------------------------------------------

def test_trick_follow_beat_or_pass():
    # "2. The leader plays any move. Then each next seat that still holds
    # cards either passes or beats the current top play."
    g = pos(["S5 D9", "S3 S7 SK", "S4 S8", "S6 ST"], to_act=0)
    g.play("S5")
    assert g.to_act == 1
    assert strs(g.legal_moves()) == ["PASS", "Single 7 S7", "Single K SK"]
    play_checked(g, "S3", "does not beat")
    g.play("S7")
    assert g.to_act == 2
    assert strs(g.legal_moves()) == ["PASS", "Single 8 S8"]
    g.play("PASS")
    assert g.to_act == 3
    g.play("ST")
    assert g.to_act == 0 and g.trick[-1][0] == 3


def test_seats_out_are_skipped():
    # "each next seat that still holds cards" -- a seat that is out never acts.
    g = pos(["S5 D9", "", "S4 S8", "S6 ST"], to_act=0, finished=[1])
    g.play("S5")
    assert g.to_act == 2
    g.play("PASS")
    g.play("PASS")
    # "every other seat still holding cards has passed": seats 2 and 3 only
    assert g.to_act == 0 and g.trick == []


def test_leader_cannot_pass():
    # RULES.md: "On lead: every move, no pass."
    g = pos(["S5 D9", "S3 S7", "S4 S8", "S6 ST"], to_act=0)
    assert all(not m.is_pass for m in g.legal_moves())
    msg = play_checked(g, "PASS", "cannot pass")
    assert "leader" in msg


def test_trick_ends_last_player_leads():
    # "3. A trick ends when every other seat still holding cards has passed
    # since the last play. The last player to play leads the next trick"
    g = pos(["S5 D9", "S3 S7", "S4 S8", "S6 ST"], to_act=0)
    g.play("S5")
    g.play("S7")            # seat 1 is now the last player to play
    g.play("PASS")          # 2
    g.play("PASS")          # 3
    assert g.to_act == 0 and g.trick != []      # seat 0 has not passed yet
    g.play("PASS")          # 0: every other seat has passed
    assert g.trick == []
    assert g.to_act == 1
    assert g.observation(1)["leading"] is True
    assert all(not m.is_pass for m in g.legal_moves())


def test_jiefeng_partner_leads_after_last_card():
    # "if that player has gone out, their partner leads (接风 / 借风)."
    g = pos(["SK", "S3 S7", "S4 S8", "S6 ST"], to_act=0)
    g.play("SK")                        # seat 0 goes out with the top play
    assert g.finish_order == [0]
    g.play("PASS")                      # 1
    g.play("PASS")                      # 2 (the partner must pass too)
    assert g.to_act == 3
    g.play("PASS")                      # 3
    assert g.trick == [] and g.to_act == 2
    assert all(not m.is_pass for m in g.legal_moves())


def test_jiefeng_only_when_everyone_passed():
    # The partner leads only when the out player's play won the trick: if a
    # later seat beats it, that seat is the last player to play and leads.
    g = pos(["SK", "S3 SA", "S4 S8", "S6 ST"], to_act=0)
    g.play("SK")
    g.play("SA")                        # seat 1 beats the out player's card
    g.play("PASS")                      # 2
    g.play("PASS")                      # 3 (seat 0 is out: not asked)
    assert g.trick == [] and g.to_act == 1


def test_finishing_order_listing_three_out():
    # "first out is the banker (上游), then follower (二游), third (三游), last
    # the dweller (下游). The round ends when three players are out"
    g = pos(["S3", "SA", "S5 SK", "SQ"], to_act=1, seed=1)
    g.play("SA")                        # seat 1 out: banker
    for _ in range(3):
        g.play("PASS")
    assert g.to_act == 3                # 接风 for seat 1
    g.play("SQ")                        # seat 3 out: both of team 1 out -> round over
    assert g.round_index == 1
    assert g.last_round_order == [1, 3, 0, 2]
    g = pos(["S3", "S9", "S5 SK", "SQ"], to_act=0, seed=1)
    g.play("S3")                        # seat 0 out first
    g.play("S9")                        # seat 1 out second
    g.play("SK")                        # seat 2 plays
    g.play("PASS")                      # seat 3 passes; trick over, seat 2 leads
    assert g.to_act == 2
    g.play("S5")                        # seat 2 out third -> round over (three out)
    assert g.round_index == 1
    assert g.last_round_order == [0, 1, 2, 3]
    assert g.team_levels == ("4", "2")  # banker 0, partner 2 third: +2


@pytest.mark.parametrize("order,listed", [
    ([0, 2], [0, 2, 1, 3]), ([2, 0], [2, 0, 1, 3]),
    ([1, 3], [1, 3, 0, 2]), ([3, 1], [3, 1, 0, 2]),
])
def test_double_down_ends_round_at_once(order, listed):
    # "or as soon as both players of one team are out (the other team is then
    # double-down, 双下)" -- PROTOCOL.md: "after a double-down the two
    # unfinished seats follow in seat order".
    g = finish_round(order)
    assert g.round_index == 1
    assert g.last_round_order == listed
    assert g.card_counts == [27, 27, 27, 27]          # next round dealt at once
    assert g.phase == "tribute"


def test_round_ends_immediately_when_partner_goes_out():
    g = pos(["S3", "S4 S6", "SA", "S5 S7"], to_act=0)
    g.play("S3")
    for _ in range(3):
        g.play("PASS")
    assert g.to_act == 2
    g.play("SA")                                      # no other action in between
    assert g.round_index == 1 and g.last_round_order == [0, 2, 1, 3]
    assert g.finish_order == []                       # this (new) round


# ---------------------------------------------------------------------------
# Promotion and winning
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("order,levels", [
    ([0, 2], ("5", "2")),            # partner follower: +3
    ([0, 1, 2], ("4", "2")),         # partner third:   +2
    ([0, 1, 3], ("3", "2")),         # partner dweller: +1
    ([3, 1], ("2", "5")),
    ([1, 0, 3], ("2", "4")),
    ([3, 2, 0], ("2", "3")),
])
def test_promotion(order, levels):
    # "Only the banker's team is promoted: +3 if the partner was follower, +2
    # if third, +1 if dweller."
    g = finish_round(order)
    assert g.team_levels == levels
    # "The round is played at the round level: the level of the team that won
    # the previous round, after its promotion"
    banker_team = order[0] % 2
    assert g.level == levels[banker_team]
    assert not g.is_over


def test_promotion_from_other_levels_and_next_round_level():
    g = finish_round([1, 0, 3], level="7", team_levels=("7", "9"), owner=0)
    assert g.team_levels == ("7", "J")          # team 1: 9 + 2
    assert g.level == "J"
    g = finish_round([2, 3, 0], level="9", team_levels=("6", "9"), owner=1)
    assert g.team_levels == ("8", "9")          # team 0: 6 + 2
    assert g.level == "8"


@pytest.mark.parametrize("start,order,expected", [
    ("Q", [0, 2], "A"),        # Q + 3 -> A (not past)
    ("K", [0, 2], "A"),        # K + 3
    ("K", [0, 1, 2], "A"),     # K + 2
    ("J", [0, 2], "A"),        # J + 3 = A exactly
    ("K", [0, 1, 3], "A"),     # K + 1
    ("T", [0, 1, 2], "Q"),
])
def test_level_cap_at_A(start, order, expected):
    # "Levels do not go past A."
    g = finish_round(order, level=start, team_levels=(start, "5"))
    assert g.team_levels == (expected, "5")
    assert g.level == expected
    assert not g.is_over                         # reaching A is not winning


@pytest.mark.parametrize("order", [[0, 2], [2, 0], [0, 1, 2], [2, 3, 0]])
def test_A_win_with_partner_second_or_third(order):
    # "A must be played: a team at level A wins the game by winning a round
    # played at level A (its own A) as banker with its partner follower or third."
    g = finish_round(order, level="A", team_levels=("A", "5"), owner=0)
    assert g.is_over and g.phase == "over"
    assert g.winner == 0
    assert len(g.legal_moves()) == 0
    assert g.last_round_order[:2] == order[:2]


def test_A_win_by_team_1():
    g = finish_round([3, 1], level="A", team_levels=("9", "A"), owner=1)
    assert g.is_over and g.winner == 1


@pytest.mark.parametrize("order", [[0, 1, 3], [2, 1, 3], [0, 3, 1]])
def test_A_partner_last_stays_at_A(order):
    # "Winning as banker with the partner last leaves the team at A, unchanged."
    g = finish_round(order, level="A", team_levels=("A", "5"), owner=0)
    assert not g.is_over and g.winner is None
    assert g.team_levels == ("A", "5")
    assert g.level == "A"
    # engine semantics: a round at own A that does not end the game is a failed round
    assert a_fails(g) == (1, 0)


def test_A_only_wins_at_own_A():
    # "(its own A)": team 0 is at A but the round is played at team 1's level:
    # winning it (even double-down) does not end the game; the next round is at A.
    g = finish_round([0, 2], level="5", team_levels=("A", "5"), owner=1)
    assert not g.is_over
    assert g.team_levels == ("A", "5") and g.level == "A"
    assert a_fails(g) == (0, 0)              # not a round at its own A: no failure


def test_A_both_teams_at_A_engine_reading():
    # Ambiguous in RULES.md ("a round played at level A (its own A)") when both
    # teams are at A: the engine reads it as "the banker's team is at A and
    # the round is at A", so the non-owner team can win the game in the
    # owner's A round. Pinned here as the engine's documented reading.
    g = finish_round([1, 3], level="A", team_levels=("A", "A"), owner=0)
    assert g.is_over and g.winner == 1
    g = finish_round([1, 0, 3], level="A", team_levels=("A", "A"), owner=0)
    assert g.is_over and g.winner == 1
    g = finish_round([0, 1, 3], level="A", team_levels=("A", "A"), owner=0)
    assert not g.is_over and a_fails(g) == (1, 0)


def test_A_round_lost_by_owner():
    g = finish_round([1, 0, 3], level="A", team_levels=("A", "5"), owner=0)
    assert not g.is_over
    assert g.team_levels == ("A", "7") and g.level == "7"
    assert a_fails(g) == (1, 0)


def test_contest_variant_partner_second_only():
    # Variants: "A-level win needs | partner 2nd or 3rd | partner 2nd only
    # (double-down at own A)"
    second = Rules(a_win_partner="second")
    g = finish_round([0, 1, 2], level="A", team_levels=("A", "5"), owner=0, rules=second)
    assert not g.is_over and g.team_levels == ("A", "5") and g.level == "A"
    g = finish_round([0, 2], level="A", team_levels=("A", "5"), owner=0, rules=second)
    assert g.is_over and g.winner == 0
    # the preset
    contest = Rules.contest()
    assert contest.a_win_partner == "second"
    g = finish_round([2, 3, 0], level="A", team_levels=("A", "5"), owner=0, rules=contest)
    assert not g.is_over
    g = finish_round([2, 0], level="A", team_levels=("A", "5"), owner=0, rules=contest)
    assert g.is_over and g.winner == 0
    # default: third is enough
    g = finish_round([0, 1, 2], level="A", team_levels=("A", "5"), owner=0)
    assert g.is_over and g.winner == 0


def test_a_fail_limit_falls_back_to_2():
    # Variants: "failed rounds at A before the team falls back to 2 |
    # unlimited | N (2 or 3 are common)"
    lim2 = Rules(a_fail_limit=2)
    g = finish_round([1, 0, 3], level="A", team_levels=("A", "5"), owner=0, rules=lim2)
    assert g.team_levels == ("A", "7") and a_fails(g) == (1, 0)        # first failure
    g = finish_round([1, 0, 3], level="A", team_levels=("A", "5"), owner=0,
                     a_fails=(1, 0), rules=lim2)
    assert g.team_levels == ("2", "7")                                  # second: back to 2
    assert g.level == "7"
    assert not g.is_over
    # a win with the partner last at own A is also a failed round (engine semantics)
    g = finish_round([0, 1, 3], level="A", team_levels=("A", "5"), owner=0,
                     a_fails=(1, 0), rules=lim2)
    assert g.team_levels == ("2", "5") and g.level == "2"
    # team 1 too
    g = finish_round([0, 1, 2], level="A", team_levels=("5", "A"), owner=1,
                     a_fails=(0, 2), rules=Rules(a_fail_limit=3))
    assert g.team_levels == ("7", "2")


def test_a_fail_unlimited_by_default():
    g = finish_round([1, 0, 3], level="A", team_levels=("A", "5"), owner=0, a_fails=(7, 0))
    assert g.team_levels == ("A", "7") and a_fails(g) == (8, 0)


def test_contest_preset_three_failures():
    contest = Rules.contest()
    assert contest.a_fail_limit == 3 and contest.wild_straight_flush is False
    g = finish_round([1, 0, 3], level="A", team_levels=("A", "5"), owner=0,
                     a_fails=(1, 0), rules=contest)
    assert g.team_levels == ("A", "7")
    g = finish_round([1, 0, 3], level="A", team_levels=("A", "5"), owner=0,
                     a_fails=(2, 0), rules=contest)
    assert g.team_levels == ("2", "7")


def test_max_rounds_winner_by_level():
    # engine semantics: with rules.max_rounds the game stops after that many
    # rounds (winner = team with the higher level, None if equal)
    g = finish_round([0, 1, 3], rules=Rules(max_rounds=1))
    assert g.is_over and g.winner == 0 and g.team_levels == ("3", "2")
    g = finish_round([0, 1, 3], round_index=3, rules=Rules(max_rounds=5))
    assert not g.is_over and g.round_index == 4
    g = finish_round([3, 0, 1], round_index=4, rules=Rules(max_rounds=5))
    assert g.is_over and g.winner == 1
    # equal levels: team 0 wins at team 1's A with the partner last -> no A
    # win, both still at A when the rounds run out
    g = finish_round([0, 1, 3], level="A", team_levels=("A", "A"), owner=1,
                     rules=Rules(max_rounds=1))
    assert g.is_over and g.winner is None and g.team_levels == ("A", "A")


def test_max_rounds_stops_the_game():
    g = Game(rules=Rules(max_rounds=2), seed=5)
    g.play_out(("random",) * 4)
    assert g.is_over and g.round_index <= 2
    lv = [RANKS.index(x) for x in g.team_levels]
    expected = None if lv[0] == lv[1] else (0 if lv[0] > lv[1] else 1)
    assert g.winner == expected


# ---------------------------------------------------------------------------
# Tribute, return, anti-tribute
# ---------------------------------------------------------------------------

def _no_anti(g):
    return g.phase == "tribute"


def test_single_down_tribute_and_return():
    # "Single-down: the dweller gives the banker their highest card in level
    # order, never a wild (choosing the suit if several faces tie). The banker
    # returns one card of rank 2..10 that is not a level card. The dweller leads."
    g = find_next_round([0, 1, 2], lambda g: _no_anti(g) and g.hands[0].count("SK") > 0)
    assert g.last_round_order == [0, 1, 2, 3]
    assert g.level == "4"
    obs = g.observation(3)
    assert obs["tribute"]["payers"] == [3] and obs["tribute"]["anti"] is False
    assert g.to_act == 3
    moves = g.legal_moves()
    assert all(m.type == MoveType.TRIBUTE for m in moves)
    assert {m.to_platform()[2][0] for m in moves} == tribute_choices(cards(g, 3), g.level)
    assert all(m.to_platform()[:2] == ["tribute", "tribute"] for m in moves)
    h0, h3 = cards(g, 0), cards(g, 3)
    card = sorted(tribute_choices(h3, g.level))[0]
    g.play(["tribute", "tribute", [card]])
    assert sorted(cards(g, 3)) == sorted(_minus(h3, card))
    assert sorted(cards(g, 0)) == sorted(h0 + [card])
    # the banker returns
    assert g.phase == "back" and g.to_act == 0
    backs = g.legal_moves()
    assert all(m.type == MoveType.BACK for m in backs)
    assert {m.to_platform()[2][0] for m in backs} == return_choices(cards(g, 0), g.level)
    # "a return of a K" is illegal
    play_checked(g, ["back", "back", ["SK"]], "rank 2..10")
    h0, h3 = cards(g, 0), cards(g, 3)
    ret = sorted(return_choices(h0, g.level))[0]
    g.play(["back", "back", [ret]])
    assert sorted(cards(g, 0)) == sorted(_minus(h0, ret))
    assert sorted(cards(g, 3)) == sorted(h3 + [ret])
    assert g.phase == "play"
    assert g.to_act == 3                            # "The dweller leads."
    assert g.card_counts == [27, 27, 27, 27]
    t = g.observation(1)["tribute"]
    assert t["tribute"] == [[3, 0, card]] and t["back"] == [[0, 3, ret]]


def _minus(hand, card):
    h = list(hand)
    h.remove(card)
    return h


def test_tribute_must_be_the_highest_card():
    g = find_next_round([0, 1, 2], _no_anti)
    hand = cards(g, 3)
    best = tribute_choices(hand, g.level)
    low = min(hand, key=lambda c: level_value(c, g.level))
    assert low not in best
    play_checked(g, ["tribute", "tribute", [low]], "highest")
    # a card the payer does not hold
    absent = next(c for c in ("HR", "SB", "SA", "HA", "CA", "DA") if c not in hand)
    with pytest.raises(IllegalMoveError):
        g.play(["tribute", "tribute", [absent]])
    # a play instead of the tribute
    play_checked(g, "PASS", "tribute")


def test_tribute_never_a_wild():
    # "never a wild": the dweller holds no joker and holds the wild (a heart of
    # the level rank, here 4): the tribute is a non-heart level card, or an A
    # when the wilds are its only level cards.
    def pred(g):
        h = cards(g, 3)
        return _no_anti(g) and "SB" not in h and "HR" not in h and "H4" in h

    g = find_next_round([0, 1, 2], pred)
    assert g.level == "4"
    choices = {m.to_platform()[2][0] for m in g.legal_moves()}
    assert "H4" not in choices
    assert choices == tribute_choices(cards(g, 3), "4")
    play_checked(g, ["tribute", "tribute", ["H4"]], "wild")


def test_tribute_suit_choice_when_faces_tie():
    # "(choosing the suit if several faces tie)": every tied face is offered
    def pred(g):
        return _no_anti(g) and len(tribute_choices(cards(g, 3), g.level)) >= 2

    g = find_next_round([0, 1, 2], pred)
    choices = [m.to_platform()[2][0] for m in g.legal_moves()]
    assert len(choices) == len(set(choices)) >= 2
    g.play(["tribute", "tribute", [choices[-1]]])
    assert g.observation(0)["tribute"]["tribute"] == [[3, 0, choices[-1]]]


def test_return_not_a_level_card():
    # "The banker returns one card of rank 2..10 that is not a level card."
    # Level 4 after the round (team 0: 2 + 2): the banker must not return a 4.
    g = find_next_round([0, 1, 2], lambda g: _no_anti(g) and any(
        c[1] == "4" for c in cards(g, 0) if c != "H4"))
    g.play(g.legal_moves()[0])
    assert g.phase == "back"
    four = next(c for c in cards(g, 0) if c[1] == "4")
    play_checked(g, ["back", "back", [four]], "not a level card")
    # jokers and J..A are never returned either
    for c in cards(g, 0):
        if c in ("SB", "HR") or c[1] in "JQKA":
            with pytest.raises(IllegalMoveError):
                g.play(["back", "back", [c]])


def test_return_fallback_lowest_non_wild():
    # "If a receiver holds no card that may be returned, they return their
    # lowest card in level order that is not a wild."
    # A dealt 28-card hand without any 2..10 non-level card does not occur in
    # practice (later deals come from the seed, replay checks them), so the
    # rule is checked on guandan.return_choices, the public form of the
    # engine's rule; test_random_games checks that the engine's BACK moves
    # equal return_choices(hand) at every return.
    from guandan import return_choices as native_return_choices
    cases = [
        ("SJ DJ CQ H2 S2 HR", "2", {"SJ", "DJ"}),       # the 2s are level cards
        ("ST CT SJ SQ HT", "T", {"SJ"}),                 # T is the level: J is lowest
        ("SA HA DA SB HR", "K", {"SA", "HA", "DA"}),
        ("H5 H5 S5 SB HR", "5", {"S5"}),                 # wilds never returned
        ("SK HK SB SB HR", "3", {"SK", "HK"}),
        ("S3 DT CJ H5 S5", "5", {"S3", "DT"}),           # normal case
        ("DT SJ", "2", {"DT"}),
        ("H9 SJ", "9", {"SJ"}),                          # H9 is the wild at level 9
    ]
    for hand, level, expected in cases:
        assert return_choices(hand.split(), level) == expected          # the test's model
        assert set(native_return_choices(hand, level)) == expected, (hand, level)


def test_return_and_tribute_choices_random_hands():
    import random
    from guandan import return_choices as native_return_choices
    from guandan import tribute_choices as native_tribute_choices
    rng = random.Random(5)
    high = [s + r for r in "JQKA" for s in "SHCD"] * 2 + ["SB", "SB", "HR", "HR"]
    deck = [s + r for r in RANKS for s in "SHCD"] * 2 + ["SB", "SB", "HR", "HR"]
    for i in range(3000):
        level = rng.choice(RANKS)
        if i % 2:       # J..A, jokers and the level cards only: the fallback case
            extra = [] if level in "JQKA" else [s + level for s in "SHCD"] * 2
            pool = high + extra
        else:
            pool = list(deck)
        rng.shuffle(pool)
        hand = pool[:rng.randint(1, 28)]
        if all(c == "H" + level for c in hand):
            continue
        assert set(native_return_choices(hand, level)) == return_choices(hand, level), (hand, level)
        assert set(native_tribute_choices(hand, level)) == tribute_choices(hand, level), (hand, level)


def test_double_down_banker_gets_higher_tribute_fourth_higher():
    # "Double-down: both losers pay. The banker takes the higher tribute and
    # the follower the other; each receiver returns a card (as above) to the
    # player who paid it. The one who paid the banker leads."
    # Order [0, 2, 1, 3]: payers 1 (third, pays first) and 3; here 3's is higher.
    g = find_next_round([0, 2], lambda g: _no_anti(g) and top_value(g, 3) > top_value(g, 1))
    assert g.observation(0)["tribute"]["payers"] == [1, 3]
    assert g.to_act == 1
    c1 = sorted(tribute_choices(cards(g, 1), g.level))[0]
    g.play(["tribute", "tribute", [c1]])
    assert g.phase == "tribute" and g.to_act == 3
    c3 = sorted(tribute_choices(cards(g, 3), g.level))[0]
    h = [cards(g, s) for s in range(4)]
    g.play(["tribute", "tribute", [c3]])
    # banker 0 takes the higher (from 3), follower 2 the other (from 1)
    assert sorted(cards(g, 0)) == sorted(h[0] + [c3])
    assert sorted(cards(g, 2)) == sorted(h[2] + [c1])
    assert g.phase == "back" and g.to_act == 0          # the banker returns first
    r0 = sorted(return_choices(cards(g, 0), g.level))[0]
    h = [cards(g, s) for s in range(4)]
    g.play(["back", "back", [r0]])
    assert sorted(cards(g, 3)) == sorted(h[3] + [r0])  # back to the one who paid it
    assert g.phase == "back" and g.to_act == 2
    r2 = sorted(return_choices(cards(g, 2), g.level))[-1]
    g.play(["back", "back", [r2]])
    assert sorted(cards(g, 1)) == sorted(h[1] + [r2])
    assert g.phase == "play" and g.to_act == 3          # the payer of the banker leads
    t = g.observation(2)["tribute"]
    assert sorted(map(tuple, t["tribute"])) == sorted([(1, 2, c1), (3, 0, c3)])
    assert sorted(map(tuple, t["back"])) == sorted([(0, 3, r0), (2, 1, r2)])


def test_double_down_banker_gets_higher_tribute_third_higher():
    g = find_next_round([0, 2], lambda g: _no_anti(g) and top_value(g, 1) > top_value(g, 3))
    c1 = sorted(tribute_choices(cards(g, 1), g.level))[0]
    g.play(["tribute", "tribute", [c1]])
    c3 = sorted(tribute_choices(cards(g, 3), g.level))[0]
    h = [cards(g, s) for s in range(4)]
    g.play(["tribute", "tribute", [c3]])
    assert sorted(cards(g, 0)) == sorted(h[0] + [c1])
    assert sorted(cards(g, 2)) == sorted(h[2] + [c3])
    g.play(g.legal_moves()[0])
    g.play(g.legal_moves()[0])
    assert g.phase == "play" and g.to_act == 1


@pytest.mark.parametrize("leader_rule,leader", [("payer", 3), ("banker_left", 1)])
def test_equal_tributes_gong_zuo_huan_you(leader_rule, leader):
    # "Equal tributes in a double-down: each payer gives to the opponent on
    # their left (上家), receivers return to the player on their right (下家) --
    # 贡左还右; the player who paid the banker leads."
    # Variants: "double-down equal-tribute leader | payer to banker | banker's 上家"
    # Order [2, 0, 1, 3]: banker 2, follower 0; payer 1's 上家 is 0 (follower),
    # payer 3's 上家 is 2 (the banker). So 3 pays the banker although 1 pays first.
    rules = Rules(equal_tribute_leader=leader_rule)
    g = find_next_round([2, 0], lambda g: _no_anti(g) and top_value(g, 1) == top_value(g, 3),
                        rules=rules)
    assert g.last_round_order == [2, 0, 1, 3]
    assert g.to_act == 1
    c1 = sorted(tribute_choices(cards(g, 1), g.level))[0]
    g.play(["tribute", "tribute", [c1]])
    c3 = sorted(tribute_choices(cards(g, 3), g.level))[-1]
    h = [cards(g, s) for s in range(4)]
    g.play(["tribute", "tribute", [c3]])
    assert sorted(cards(g, 0)) == sorted(h[0] + [c1])      # 1 -> its 上家 0
    assert sorted(cards(g, 2)) == sorted(h[2] + [c3])      # 3 -> its 上家 2 (banker)
    assert g.phase == "back" and g.to_act == 2            # the banker returns first
    r2 = sorted(return_choices(cards(g, 2), g.level))[0]
    h = [cards(g, s) for s in range(4)]
    g.play(["back", "back", [r2]])
    assert sorted(cards(g, 3)) == sorted(h[3] + [r2])      # 2 -> its 下家 3
    r0 = sorted(return_choices(cards(g, 0), g.level))[0]
    g.play(["back", "back", [r0]])
    assert sorted(cards(g, 1)) == sorted(h[1] + [r0])      # 0 -> its 下家 1
    assert g.phase == "play"
    # payer: the one who paid the banker (3); banker_left: the banker's 上家 (1)
    assert g.to_act == leader


def test_equal_tributes_order_0_2():
    # Order [0, 2, 1, 3]: payer 1's 上家 is 0 (banker), payer 3's is 2.
    for leader_rule, leader in (("payer", 1), ("banker_left", 3)):
        g = find_next_round([0, 2], lambda g: _no_anti(g) and top_value(g, 1) == top_value(g, 3),
                            rules=Rules(equal_tribute_leader=leader_rule))
        c1 = sorted(tribute_choices(cards(g, 1), g.level))[0]
        g.play(["tribute", "tribute", [c1]])
        c3 = sorted(tribute_choices(cards(g, 3), g.level))[0]
        h = [cards(g, s) for s in range(4)]
        g.play(["tribute", "tribute", [c3]])
        assert sorted(cards(g, 0)) == sorted(h[0] + [c1])
        assert sorted(cards(g, 2)) == sorted(h[2] + [c3])
        g.play(g.legal_moves()[0])
        g.play(g.legal_moves()[0])
        assert g.to_act == leader


def test_anti_tribute_single_dweller_both_big_jokers():
    # "Anti-tribute: if the paying side holds both big jokers between them (the
    # single dweller, ...), there is no tribute and no return; the banker leads."
    g = find_next_round([0, 1, 2], lambda g: g.hands[3].count("HR") == 2)
    assert g.phase == "play"
    assert g.to_act == 0
    assert g.card_counts == [27, 27, 27, 27]
    t = g.observation(0)["tribute"]
    assert t["anti"] is True
    assert not t.get("tribute") and not t.get("back")


def test_no_anti_tribute_when_dweller_holds_one_big_joker():
    # ... "(the single dweller ...)": the dweller's partner's big joker does not count.
    g = find_next_round([0, 1, 2], lambda g: g.hands[3].count("HR") == 1 and g.hands[1].count("HR") == 1)
    assert g.phase == "tribute" and g.to_act == 3
    assert strs(g.legal_moves()) == ["tribute tribute HR"]
    g = find_next_round([0, 1, 2], lambda g: g.hands[3].count("HR") == 1)
    assert g.phase == "tribute"


def test_anti_tribute_double_down_one_big_joker_each():
    # "(... or the two double-down losers together)"
    g = find_next_round([0, 2], lambda g: g.hands[1].count("HR") == 1 and g.hands[3].count("HR") == 1)
    assert g.phase == "play" and g.to_act == 0
    assert g.observation(1)["tribute"]["anti"] is True
    g = find_next_round([3, 1], lambda g: g.hands[0].count("HR") == 1 and g.hands[2].count("HR") == 1)
    assert g.phase == "play" and g.to_act == 3


def test_anti_tribute_double_down_both_in_one_hand():
    g = find_next_round([0, 2], lambda g: g.hands[3].count("HR") == 2)
    assert g.phase == "play" and g.to_act == 0


def test_no_anti_tribute_double_down_one_big_joker_on_paying_side():
    g = find_next_round([0, 2], lambda g: g.hands[1].count("HR") + g.hands[3].count("HR") == 1)
    assert g.phase == "tribute"
    assert g.observation(0)["tribute"]["anti"] is False


def test_wild_straight_flush_variant_in_game():
    # Variants: "wild may complete a straight flush | yes | no (the v1006
    # platform omits these moves)" -- the game passes its rules to the generator.
    hands = ["S5 S6 S7 S8 H2 D9", "S3 C4", "D3 C5", "C3 D4"]
    g = pos(hands, rules=Rules())
    sf = [m for m in g.legal_moves() if m.type == MoveType.STRAIGHT_FLUSH]
    assert any("H2" in m.cards for m in sf)
    assert {to_ref(m) for m in g.legal_moves()} == ref_moves(hands[0].split(), "2")
    g = pos(hands, rules=Rules.contest())
    sf = [m for m in g.legal_moves() if m.type == MoveType.STRAIGHT_FLUSH]
    assert sf == []
    assert {to_ref(m) for m in g.legal_moves()} == ref_moves(hands[0].split(), "2", wild_sf=False)


def test_no_tribute_in_first_round():
    # "Tribute ... -- from round 2 on"
    g = Game(seed=9)
    assert g.phase == "play" and g.round_index == 0


# ---------------------------------------------------------------------------
# Illegal actions
# ---------------------------------------------------------------------------

def test_illegal_play_not_in_hand():
    g = pos(["S5 D9", "S3 S7", "S4 S8", "S6 ST"], to_act=0)
    play_checked(g, "SA", "not in seat 0's hand")
    play_checked(g, ["Single", "A", ["SA"]], "not in seat 0's hand")


def test_illegal_play_does_not_beat():
    g = pos(["S5 D9", "S3 S7", "S4 S8", "S6 ST S8"], to_act=0)
    g.play("D9")
    play_checked(g, "S3", "does not beat")
    g.play("PASS")
    play_checked(g, "S4", "does not beat")
    g.play("PASS")
    play_checked(g, "S8", "does not beat")             # equal key does not beat
    play_checked(g, "S6 ST", "")                        # not a play at all


def test_illegal_pass_when_leading():
    g = pos(["S5 D9", "S3 S7", "S4 S8", "S6 ST"], to_act=0)
    play_checked(g, "PASS", "cannot pass")


def test_illegal_after_game_over():
    g = finish_round([0, 2], level="A", team_levels=("A", "5"), owner=0)
    assert g.is_over
    for m in ("C3", "PASS", ["tribute", "tribute", ["HR"]], ["back", "back", ["S3"]]):
        play_checked(g, m, "over")
    with pytest.raises(GuandanError):
        g.play_policy("random")


def test_illegal_action_wrong_phase():
    g = find_next_round([0, 1, 2], _no_anti)
    play_checked(g, "PASS", "tribute")
    c = cards(g, 3)[0]
    play_checked(g, c, "tribute")


# ---------------------------------------------------------------------------
# Undo, copy, record/replay, observation
# ---------------------------------------------------------------------------

def _snapshot(g):
    return (g.position, g.phase, g.to_act if not g.is_over else None, g.round_index,
            [g.observation(s) for s in range(4)], len(g.moves_played))


def test_undo_restores_exactly():
    g = Game(seed=21)
    seen_phases = set()
    while g.round_index < 3 and not g.is_over:
        before = _snapshot(g)
        rec_before = g.record()
        m = g.play_policy("random")
        seen_phases.add(g.phase)
        after = _snapshot(g)
        rec_after = g.record()
        g.undo()
        assert _snapshot(g) == before
        assert g.record() == rec_before
        # redo the same action: identical state again
        g.play(m)
        assert _snapshot(g) == after
        assert g.record() == rec_after
    assert {"tribute", "back", "play"} <= seen_phases or g.is_over


def test_undo_at_start_raises():
    g = Game(seed=1)
    with pytest.raises(GuandanError):
        g.undo()


def test_play_out_until_round():
    g = Game(seed=1)
    g.play_out(("greedy",) * 4, until="round")
    assert g.round_index == 1 and g.phase in ("tribute", "play")
    g.play_out(("random",) * 4, until="round")
    assert g.round_index == 2 or g.is_over


def test_undo_across_round_end():
    g = pos(["S3", "S4 S6", "SA", "S5 S7"], to_act=0, seed=4)
    for m in ("S3", "PASS", "PASS", "PASS"):
        g.play(m)
    before = _snapshot(g)
    g.play("SA")
    assert g.round_index == 1
    g.undo()
    assert _snapshot(g) == before
    assert g.round_index == 0 and cards(g, 2) == ["SA"]


def test_copy_is_independent():
    g = Game(seed=8)
    for _ in range(30):
        g.play_policy("random")
    snap = _snapshot(g)
    c = g.copy()
    assert _snapshot(c) == snap
    c.play_out(("random",) * 4, until="round")
    assert _snapshot(g) == snap
    g.play_policy("greedy")
    assert c.round_index >= 1


def test_record_replay_reproduces_the_game():
    g = Game(seed=12)
    g.play_out(("random", "greedy", "random", "greedy"))
    rec = g.record()
    rec_json = json.loads(json.dumps(rec))
    for r in (rec, rec_json, json.dumps(rec)):
        g2 = Game.replay(r)
        assert g2.position == g.position
        assert g2.record() == rec
        assert g2.is_over == g.is_over and g2.winner == g.winner
        assert g2.team_levels == g.team_levels


def test_record_replay_keeps_rules():
    rules = Rules.contest()
    g = Game(rules=rules, seed=14)
    g.play_out(("random",) * 4)
    g2 = Game.replay(json.dumps(g.record()))
    assert g2.rules == rules
    assert g2.record() == g.record() and g2.position == g.position


def test_record_replay_mid_game_and_from_position():
    g = Game(seed=13)
    for _ in range(500):
        g.play_policy("random")
    g2 = Game.replay(g.record())
    assert _snapshot(g2) == _snapshot(g)
    assert strs(g2.legal_moves()) == strs(g.legal_moves())
    g = finish_round([0, 1, 2], seed=3)
    g.play_out(("greedy",) * 4, until="round")
    g2 = Game.replay(g.record())
    assert g2.position == g.position and g2.record() == g.record()


def test_same_seed_same_record():
    a, b = Game(seed=31), Game(seed=31)
    a.play_out(("random",) * 4)
    b.play_out(("random",) * 4)
    assert a.record() == b.record()
    c = Game(seed=32)
    c.play_out(("random",) * 4)
    assert c.record()["deals"][0] != a.record()["deals"][0]


def _card_lists(x, out):
    """Every list of card strings inside a nested observation."""
    if isinstance(x, dict):
        for v in x.values():
            _card_lists(v, out)
    elif isinstance(x, (list, tuple)):
        if x and all(isinstance(c, str) and len(c) == 2 for c in x):
            out.append(sorted(x))
        for v in x:
            _card_lists(v, out)
    return out


def test_observation_private_and_counts_public():
    # "5. Reporting: the number of cards each player holds is public ...
    # Observations expose every player's count." A seat sees its own hand only.
    g = Game(seed=41)
    phases = set()
    for step in range(3000):
        if g.is_over or g.round_index >= 3:
            break
        phases.add(g.phase)
        if step % 7 == 0 or g.phase != "play":
            for seat in range(4):
                o = g.observation(seat)
                assert sorted(o["hand"]) == sorted(cards(g, seat))
                assert list(o["card_counts"]) == list(g.card_counts)
                lists = _card_lists(o, [])
                for other in range(4):
                    h = sorted(cards(g, other))
                    if other == seat or len(h) < 2:
                        continue
                    assert h not in lists, (seat, other)
                flat = json.dumps(o)
                assert "hands" not in o
                # no other hand's string form either
                for other in range(4):
                    if other != seat and len(g.hands[other]) >= 2:
                        assert str(g.hands[other]) not in flat
        g.play_policy("random")
    assert {"play", "tribute", "back"} <= phases
