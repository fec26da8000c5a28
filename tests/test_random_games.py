"""Invariants over many seeded random games played through guandan.Game with
the built-in policies (and a Python callable policy), checked by an
independent shadow model written from RULES.md (docs/rules.md)."""

import functools
import random
from collections import Counter

import pytest

from guandan import Game, Rules
from guandan import return_choices as native_return_choices
from helpers import DECK, to_ref
from reference import ref_beats
from helpers import level_value, return_choices, tribute_choices

RANKS = "23456789TJQKA"
FULL_DECK = Counter(DECK)
assert sum(FULL_DECK.values()) == 108





def partner(s):
    return (s + 2) % 4


def python_random_policy(seed):
    rng = random.Random(seed)

    def policy(obs, legal):
        return legal[rng.randrange(len(legal))]
    return policy


class Shadow:
    """Independent bookkeeping of one game; every engine transition is checked."""

    def __init__(self, g, rules):
        self.g = g
        self.rules = rules
        self.owner = None                     # round 0: no owner ("-")
        self.a_fails = [0, 0]
        self.stats = Counter()
        self.start_round()

    # -- round start -------------------------------------------------------
    def start_round(self):
        g = self.g
        self.played = Counter()               # cards played this round
        self.finish = []
        self.tribute_paid = {}                # payer -> card
        self.tribute_to = {}                  # payer -> receiver
        self.returns = {}
        assert g.card_counts == [27, 27, 27, 27]
        self.check_cards()
        if g.round_index == 0:
            assert g.phase == "play"
            self.payers = []
            return
        order = g.last_round_order
        banker = order[0]
        # position string: owner field = the banker team of the last round
        assert g.position.split()[3] == str(banker % 2)
        if order[1] == partner(banker):
            payers = [order[2], order[3]]     # double-down: third first
        else:
            payers = [order[3]]               # single-down: the dweller
        self.payers = payers
        self.order = order
        hr = sum(self.g.hands[p].count("HR") for p in payers)
        obs = g.observation(0)["tribute"]
        if hr == 2:
            # anti-tribute: no tribute, no return, the banker leads
            assert g.phase == "play", (order, payers)
            assert g.to_act == banker
            assert obs["anti"] is True
            self.stats["anti"] += 1
        else:
            assert g.phase == "tribute"
            assert obs["anti"] is False and list(obs["payers"]) == payers
            assert g.to_act == payers[0]
            self.stats["tribute_rounds"] += 1

    def check_cards(self):
        g = self.g
        total = Counter()
        for s in range(4):
            total.update(g.hands[s].cards())
        assert list(g.card_counts) == [len(g.hands[s]) for s in range(4)]
        if g.is_over:
            return
        total.update(self.played)
        # a tribute chosen first stays in its payer's hand until every payer
        # has chosen (who receives it depends on both): 108 cards in hands
        assert total == FULL_DECK

    # -- one action ----------------------------------------------------------
    def act(self, policy):
        g = self.g
        seat, phase, level = g.to_act, g.phase, g.level
        legal = list(g.legal_moves())
        legal_set = {str(m) for m in legal}
        assert len(legal_set) == len(legal)             # each move once
        hands_before = [g.hands[s].cards() for s in range(4)]
        obs = g.observation(seat)
        r0, levels0 = g.round_index, g.team_levels
        pos0 = g.position
        m = g.play_policy(policy)
        assert str(m) in legal_set                      # every action was legal at the time
        if phase == "tribute":
            self.on_tribute(seat, m, legal, hands_before, level)
        elif phase == "back":
            self.on_back(seat, m, legal, hands_before, level)
        else:
            self.on_play(seat, m, legal, hands_before, obs, level, r0, levels0, pos0)

    def on_tribute(self, seat, m, legal, hands, level):
        g = self.g
        assert seat in self.payers and seat not in self.tribute_paid
        assert seat == [p for p in self.payers if p not in self.tribute_paid][0]  # third first
        choices = tribute_choices(hands[seat], level)
        assert {mv.to_platform()[2][0] for mv in legal} == choices
        card = m.to_platform()[2][0]
        assert card in choices
        self.tribute_paid[seat] = card
        self.stats["tributes"] += 1
        if len(self.tribute_paid) == len(self.payers):
            # every payer has chosen: the cards leave the payers' hands now
            for p in self.payers:
                assert Counter(g.hands[p].cards()) == Counter(hands[p]) - Counter([self.tribute_paid[p]])
            self.resolve_tribute(hands, level)
        else:
            assert Counter(g.hands[seat].cards()) == Counter(hands[seat])
        self.check_cards()

    def resolve_tribute(self, hands_before_last, level):
        g = self.g
        order = self.order
        banker = order[0]
        if len(self.payers) == 1:
            (p,) = self.payers
            self.tribute_to = {p: banker}
        else:
            p1, p2 = self.payers
            v1 = level_value(self.tribute_paid[p1], level)
            v2 = level_value(self.tribute_paid[p2], level)
            follower = order[1]
            if v1 == v2:
                # 贡左还右: each payer gives to their 上家 (seat - 1)
                self.tribute_to = {p1: (p1 - 1) % 4, p2: (p2 - 1) % 4}
                self.equal = True
                self.stats["equal"] += 1
            else:
                hi, lo = (p1, p2) if v1 > v2 else (p2, p1)
                self.tribute_to = {hi: banker, lo: follower}
                self.equal = False
            assert sorted(self.tribute_to.values()) == sorted([banker, follower])
        for p in self.payers:       # each receiver holds the card paid to it
            r = self.tribute_to[p]
            assert self.tribute_paid[p] in g.hands[r].cards()
        t = g.observation(0)["tribute"]["tribute"]
        assert sorted(map(tuple, t)) == sorted((p, r, c) for p, r, c in
                                              ((p, self.tribute_to[p], self.tribute_paid[p])
                                               for p in self.payers))
        assert g.phase == "back"
        assert g.to_act == banker                         # the banker returns first

    def on_back(self, seat, m, legal, hands, level):
        g = self.g
        receivers = {r: p for p, r in self.tribute_to.items()}
        assert seat in receivers and seat not in self.returns
        choices = return_choices(hands[seat], level)
        assert {mv.to_platform()[2][0] for mv in legal} == choices
        # the public rule function (which covers the fallback) agrees with the game
        assert set(native_return_choices(hands[seat], level)) == choices
        card = m.to_platform()[2][0]
        assert card in choices
        self.returns[seat] = card
        self.stats["returns"] += 1
        # the card went to the player who paid this receiver
        payer = receivers[seat]
        after = Counter(g.hands[payer].cards())
        assert after == Counter(hands[payer]) + Counter([card])
        if len(self.returns) == len(self.payers):
            assert g.phase == "play"
            banker = self.order[0]
            if len(self.payers) == 1:
                leader = self.payers[0]                  # "The dweller leads."
            elif self.equal and self.rules.equal_tribute_leader == "banker_left":
                leader = (banker - 1) % 4
            else:
                leader = next(p for p, r in self.tribute_to.items() if r == banker)
            assert g.to_act == leader
        self.check_cards()

    def on_play(self, seat, m, legal, hands, obs, level, r0, levels0, pos0):
        g = self.g
        assert seat not in self.finish and len(hands[seat]) > 0   # nobody acts after going out
        leading = obs["top"] is None
        assert obs["leading"] == leading
        has_pass = any(mv.is_pass for mv in legal)
        assert has_pass == (not leading)                # "On lead: ... no pass. Following: pass, ..."
        if not m.is_pass:
            cards = m.to_platform()[2]
            if not leading:
                top = obs["top"]["move"]
                assert ref_beats(to_ref(m), (top[0], top[1], tuple(sorted(top[2]))), level)
                self.stats["beats"] += 1
            self.played.update(cards)
            assert Counter(hands[seat]) - Counter(cards) == Counter(
                g.hands[seat].cards()) or g.round_index != r0 or g.is_over
            if len(hands[seat]) == len(cards):
                self.finish.append(seat)
        else:
            self.stats["passes"] += 1
        if g.round_index != r0 or g.is_over:
            self.end_round(levels0, pos0, level)
            if not g.is_over:
                self.start_round()
        else:
            assert list(g.finish_order) == self.finish
            self.check_cards()

    # -- round end: finishing order, promotion, A rule ---------------------------
    def end_round(self, levels0, pos0, level):
        g = self.g
        fin = self.finish
        # "The round ends when three players are out, or as soon as both
        # players of one team are out"
        assert len(fin) == 3 or (len(fin) == 2 and fin[1] == partner(fin[0]))
        if len(fin) == 2:
            rest = sorted(s for s in range(4) if s not in fin)
            self.stats["double_down"] += 1
        else:
            rest = [s for s in range(4) if s not in fin]
        order = fin + rest
        assert g.last_round_order == order
        banker = order[0]
        team = banker % 2
        delta = {1: 3, 2: 2, 3: 1}[order.index(partner(banker))]
        levels = [RANKS.index(x) for x in levels0]
        new = list(levels)
        new[team] = min(12, levels[team] + delta)        # "Levels do not go past A."
        over, winner = False, None
        owner = self.owner
        assert pos0.split()[3] == ("-" if owner is None else str(owner))
        # "a team at level A wins the game by winning a round played at level A
        # (its own A) as banker with its partner follower or third" -- read
        # as the engine specifies it: the banker's team is at A and the round
        # is at A (when both teams are at A, either may win the owner's A round).
        allowed = (1,) if self.rules.a_win_partner == "second" else (1, 2)
        if level == "A" and levels0[team] == "A" and order.index(partner(banker)) in allowed:
            over, winner = True, team
            self.stats["a_win"] += 1
            if team != owner:
                self.stats["a_win_at_opponents_A"] += 1
        elif owner is not None and level == "A" and levels0[owner] == "A":
            # a round at the owner's A that does not end the game: a failure
            self.a_fails[owner] += 1
            self.stats["a_fail"] += 1
            lim = self.rules.a_fail_limit
            if lim is not None and self.a_fails[owner] >= lim:
                new[owner] = 0                            # "falls back to 2"
                self.a_fails[owner] = 0
                self.stats["a_fallback"] += 1
        rounds = g.round_index
        if not over and self.rules.max_rounds is not None and rounds >= self.rules.max_rounds:
            over = True
            winner = None if new[0] == new[1] else (0 if new[0] > new[1] else 1)
        assert g.is_over == over, (order, levels0, level, owner)
        assert g.winner == winner
        assert g.team_levels == tuple(RANKS[x] for x in new)
        self.stats["rounds"] += 1
        if not over:
            self.owner = team
            assert g.level == RANKS[new[team]]
            pos = g.position.split()
            assert tuple(int(x) for x in pos[9].split(",")) == tuple(self.a_fails)


def run_game(seed, rules=None, policies=("random",) * 4):
    rules = rules or Rules()
    g = Game(rules=rules, seed=seed)
    sh = Shadow(g, rules)
    steps = 0
    while not g.is_over:
        sh.act(policies[g.to_act])
        steps += 1
        assert g.round_index < 200, "game does not end"
        assert steps < 200 * 600
    assert g.phase == "over" and len(g.legal_moves()) == 0
    return g, sh.stats


# Each game is played once per process (cached), so the coverage test below
# can sum them without depending on the other tests having run first.
SETS = {
    "default": (range(12), lambda seed: run_game(seed)),
    "mixed": (range(100, 106), lambda seed: run_game(
        seed, policies=("greedy", "random", python_random_policy(seed), "greedy"))),
    "contest": (range(200, 206), lambda seed: run_game(seed, rules=Rules.contest())),
    "variants": (range(300, 306), lambda seed: run_game(
        seed, rules=Rules(a_fail_limit=2, equal_tribute_leader="banker_left", a_win_partner="second"))),
    "max_rounds": (range(400, 404), lambda seed: run_game(seed, rules=Rules(max_rounds=3))),
}


@functools.lru_cache(maxsize=None)
def played(kind, seed):
    return SETS[kind][1](seed)


@pytest.mark.parametrize("seed", SETS["default"][0])
def test_random_games_default_rules(seed):
    g, stats = played("default", seed)
    assert g.winner in (0, 1)
    assert "A" in g.team_levels


@pytest.mark.parametrize("seed", SETS["mixed"][0])
def test_random_games_mixed_policies(seed):
    played("mixed", seed)


@pytest.mark.parametrize("seed", SETS["contest"][0])
def test_random_games_contest_rules(seed):
    played("contest", seed)


@pytest.mark.parametrize("seed", SETS["variants"][0])
def test_random_games_variants(seed):
    played("variants", seed)


@pytest.mark.parametrize("seed", SETS["max_rounds"][0])
def test_random_games_max_rounds(seed):
    g, stats = played("max_rounds", seed)
    assert g.round_index <= 3


def test_coverage_of_the_random_games():
    # the random games must actually exercise the interesting rules (runs
    # them itself when alone, e.g. under xdist)
    total = Counter()
    for kind in ("default", "mixed", "contest", "variants"):
        for seed in SETS[kind][0]:
            total.update(played(kind, seed)[1])
    for key in ("anti", "tributes", "returns", "double_down", "a_win", "a_fail", "a_fallback",
                "equal", "beats"):
        assert total[key] > 0, (key, dict(total))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_same_seed_same_record(seed):
    a = Game(seed=seed)
    b = Game(seed=seed)
    a.play_out(("random", "greedy", "random", "greedy"))
    b.play_out(("random", "greedy", "random", "greedy"))
    assert a.record() == b.record()
    r = Game.replay(a.record())
    assert r.record() == a.record() and r.position == a.position


def test_games_end_in_bounded_rounds():
    for seed in range(500, 530):
        g = Game(seed=seed)
        g.play_out(("random",) * 4)
        assert g.is_over and g.round_index < 200
