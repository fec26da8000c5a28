"""The native rule-based expert: hand-made positions with a clear right play,
independence from hidden cards, determinism, and the explain API."""

import random

import numpy as np
import pytest

from guandan import Game, Hand, Rules, simulate
from guandan import _core, _engine, _expert
from guandan.positions import parse_position_string as _parse_position_string
from guandan.policies import explain, get_policy, policy_names
import server_harness

# filler hands: many cards, so that nobody is "close to out" unless a test says so
FILL1 = "S2 C3 D5 C8 DT CJ SQ CK CA D2 D3 C4"
FILL2 = "H3 S5 H5 S8 H8 HT HJ HQ SK HK"
FILL3 = "C2 D7 H7 D6 C7 D8 C9 D9 DJ DQ DK DA"


def decide(hands, to_act, trick=None, level="2", finished=()):
    g = Game.from_position(hands, level, to_act, trick=trick, finished=finished)
    m, rule = explain(g)
    assert m in g.legal_moves()
    return m, rule, g


def test_expert_is_a_builtin_policy():
    assert "expert" in policy_names()
    g = Game(seed=1)
    g.play_out(("expert", "greedy", "expert", "random"), until="round")
    assert g.round_index == 1
    r = simulate(20, policies=("expert", "greedy", "expert", "greedy"), seed=2, workers=1)
    assert len(r.rows["decisions"]) == 20


def test_keeps_a_bomb_whole():
    # following a single 8: the lone K, not a 9 out of the four 9s
    hands = ["S9 H9 C9 D9 DK S3 S4 C6 D7", FILL1, FILL2, FILL3]
    m, rule, _ = decide(hands, 0, trick=[(3, "Single 8 D8")], level="2")
    assert m.cards == ("DK",), (m, rule)
    assert rule == "follow-without-breaking"
    d = _expert.decompose_hand(Hand(hands[0]), 0)
    assert ("Bomb", 7, 4) in [p[:3] for p in d["plays"]]


def test_does_not_break_a_straight_for_a_single():
    hands = ["S3 H4 C5 D6 S7 DQ SJ", FILL1, FILL2, FILL3]
    m, rule, _ = decide(hands, 0, trick=[(3, "Single 4 C4")], level="9")
    assert m.cards[0][1] in "JQ", (m, rule)
    d = _expert.decompose_hand(Hand(hands[0]), 7)
    assert ("Straight", 2, 5) in [p[:3] for p in d["plays"]]


def test_stops_an_opponent_with_one_card_with_a_bomb():
    # seat 1 plays a pair and holds one card: seat 2 has no pair above 5, only a bomb
    hands = [FILL2, "SK", "S4 H4 C4 D4 S3 S9 DJ CQ", FILL3]
    m, rule, _ = decide(hands, 2, trick=[(1, "Pair 5 S5 D5")], level="2")
    assert m.type.is_bomb, (m, rule)
    assert rule == "stop-opponent-with-bomb"


def test_leads_what_a_one_card_opponent_cannot_follow():
    hands = ["S3 D3 S8 CT DK", "SA", FILL2, FILL3]
    m, rule, _ = decide(hands, 0, level="2")
    assert len(m.cards) >= 2, (m, rule)
    assert rule == "lead-unfollowable"


def test_lets_the_partner_go_out():
    # the partner (seat 2) leads a single and has one card left; seat 3 passed
    hands = [FILL1, FILL2, "HJ", FILL3]
    hands[0] = "S9 CA DK S3 S4 C6"
    m, rule, _ = decide(hands, 0, trick=[(2, "Single 5 D5"), (3, "PASS")], level="2")
    assert m.is_pass, (m, rule)
    assert rule == "let-partner-go-out"


def test_goes_out_when_it_can():
    hands = ["S9 H9", FILL1, FILL2, FILL3]
    m, rule, _ = decide(hands, 0, trick=[(3, "Pair 5 S5 D5")], level="2")
    assert m.cards == ("S9", "H9") and rule == "go-out"


def _back_moves(hand, level):
    faces = [_core.FACE_STR.index(c) for c in _engine.return_options(hand, level)]
    words = np.array([[(1 << f) | (12 << 56), 0] for f in faces], dtype=np.uint64)
    return _core.make_movelist(words, level), faces


def test_returns_the_cheapest_card():
    # the 3 is the low end of a straight; the lone 9 costs nothing
    hand = Hand("S3 D4 C5 S6 H7 S9 SJ DJ SQ HQ SK HK SA HR")
    ml, faces = _back_moves(hand, 0)
    i, rule = _expert.explain_view(ml, _engine.NativeView(
        hand=hand, played=Hand(), seat=0, phase=1, rlevel=0, levels=(0, 0), top_lo=0, top_hi=0,
        top_seat=-1, passes=0, counts=[14, 26, 27, 27], fin=[], rules=Rules().native))
    assert rule == "return-cheapest"
    assert _core.FACE_STR[faces[i]] == "S9"
    # with only lone cards to give, the lowest
    hand = Hand("S3 D5 S9 SJ DJ SQ HQ SK HK SA HR")
    ml, faces = _back_moves(hand, 0)
    i, rule = _expert.explain_view(ml, _engine.NativeView(
        hand=hand, played=Hand(), seat=0, phase=1, rlevel=0, levels=(0, 0), top_lo=0, top_hi=0,
        top_seat=-1, passes=0, counts=[11, 26, 27, 27], fin=[], rules=Rules().native))
    assert _core.FACE_STR[faces[i]] == "S3"


def _positions(seed, steps):
    """Play-phase positions reached by expert play from a seeded game."""
    g = Game(seed=seed)
    out = []
    for k in range(steps):
        if g.is_over:
            break
        if g.phase == "play" and k % 7 == 3:
            out.append(g.position)
        g.play_policy("expert")
    return out


def test_decision_does_not_depend_on_hidden_cards():
    rng = random.Random(5)
    checked = 0
    for seed in (1, 2, 3):
        for pos in _positions(seed, 160):
            kw = _parse_position_string(pos)
            hands = kw.pop("hands")
            me = kw["to_act"]
            m0, r0 = explain(Game.from_position(hands, **kw))
            others = [s for s in range(4) if s != me]
            pool = [c for s in others for c in hands[s]]
            for _ in range(3):
                rng.shuffle(pool)
                new = list(hands)
                k = 0
                for s in others:
                    n = len(hands[s])
                    new[s] = Hand(pool[k:k + n])
                    k += n
                try:
                    g = Game.from_position(new, **kw)
                except Exception:
                    continue        # a shuffle that makes the trick impossible (cards of its plays)
                m1, r1 = explain(g)
                assert (m1, r1) == (m0, r0), pos
                checked += 1
    assert checked > 30


def test_native_and_observation_views_agree():
    g = Game(seed=11)
    pol = get_policy("expert")
    for _ in range(150):
        if g.is_over:
            break
        m1 = pol(g.observation(g.to_act), g.legal_moves())
        m2, rule = explain(g)
        assert m1 == m2
        assert rule in _expert.RULE_NAMES
        g.play(m2)


def test_seeded_determinism():
    a = simulate(300, policies=("expert", "greedy", "expert", "greedy"), seed=9, workers=1)
    b = simulate(300, policies=("expert", "greedy", "expert", "greedy"), seed=9, workers=2,
                 chunk=100)
    c = simulate(300, policies=("expert", "greedy", "expert", "greedy"), seed=9, workers=1,
                 chunk=100)
    for k in a.rows:
        assert np.array_equal(b.rows[k], c.rows[k]), k
    assert np.array_equal(a.rows["order"][:100], c.rows["order"][:100])
    g1, g2 = Game(seed=4), Game(seed=4)
    g1.play_out(("expert",) * 4, until="round")
    g2.play_out(("expert",) * 4, until="round")
    assert g1.record() == g2.record()


def test_deals_do_not_depend_on_the_policies():
    # the duplicate protocol: the same seed deals the same cards whoever plays
    for seed in (1, 2):
        g1, g2 = Game(seed=seed), Game(seed=seed)
        for _ in range(3):
            if not g1.is_over:
                g1.play_out(("expert", "greedy", "expert", "greedy"), until="round")
            if not g2.is_over:
                g2.play_out(("greedy", "expert", "greedy", "expert"), until="round")
        d1, d2 = g1.record()["deals"], g2.record()["deals"]
        n = min(len(d1), len(d2))
        assert n >= 2
        # the same cards (listed in the order of each round's level)
        same = [[sorted(h.split()) for h in d] for d in d1[:n]]
        assert same == [[sorted(h.split()) for h in d] for d in d2[:n]]


def test_beats_greedy_in_duplicate_play():
    n = 400
    a = simulate(n, policies=("expert", "greedy", "expert", "greedy"), seed=21, workers=1)
    b = simulate(n, policies=("greedy", "expert", "greedy", "expert"), seed=21, workers=1)
    won = int((a.rows["banker_team"] == 0).sum() + (b.rows["banker_team"] == 1).sum())
    assert won / (2 * n) > 0.9


def test_explain_rejects_other_policies():
    from guandan import GuandanError
    with pytest.raises(GuandanError):
        explain(Game(seed=1), "greedy")


def test_split_covers_the_hand_and_leads_map_to_legal_plays():
    from helpers import DECK, LEVELS, random_hand
    rng = random.Random(3)
    for _ in range(300):
        lv = rng.choice(LEVELS)
        cards = random_hand(rng, level=lv)
        d = _expert.decompose_hand(Hand(cards), LEVELS.index(lv))
        assert sum(p[2] for p in d["plays"]) == len(cards), (lv, cards, d)
        rest = list((Hand(DECK) - Hand(cards)).cards())
        rng.shuffle(rest)
        g = Game.from_position([cards, rest[:12], rest[12:24], rest[24:36]], lv, 0)
        m, rule = explain(g)
        assert rule != "fallback", (lv, cards)
        assert m in g.legal_moves()


def test_full_games_use_named_rules_only():
    from guandan import Rules
    for rules in (Rules.default(), Rules.contest()):
        g = Game(rules=rules, seed=8)
        seen = set()
        for _ in range(400):
            if g.is_over:
                break
            m, rule = explain(g)
            seen.add(rule)
            g.play(m)
        assert seen <= set(_expert.RULE_NAMES) - {"none"}
        assert {"lead-weakest-group", "follow-without-breaking", "let-partner-lead"} <= seen


def test_expert_bots_at_the_table_server(tmp_path):
    import asyncio
    from guandan.bots import Bot, _run
    from guandan.server import TableServer, parse_bots
    assert parse_bots("1=expert,3=expert") == {1: "expert", 3: "expert"}

    async def main():
        srv = TableServer("127.0.0.1", 0, games=1, bots=parse_bots("1=expert,2=expert,3=expert"),
                          seed=6, record_dir=str(tmp_path), start_delay=0.05)
        srv, task = await server_harness.start(srv)
        await asyncio.wait_for(_run(Bot(), server_harness.url(srv, "sdk")), 120)
        return await asyncio.wait_for(task, 10)

    records = asyncio.run(main())
    assert len(records) == 1 and Game.replay(records[0]).is_over


def test_word_wide_forms_agree_with_the_rules_as_written():
    # the split search reads its candidate windows, the straight-flush test
    # and a move's rank deficit word-wide; on random hand counts (wilds
    # 0..2) they agree with the loops over windows and ranks they replace
    assert _expert._word_wide_mismatches(100_000, 12345) == 0
    assert _expert._word_wide_mismatches(100_000, 2**63 + 99) == 0


@pytest.mark.parametrize("policies,seed,digest", [
    (("expert",) * 4, 5, "16fe43a68125c71a"),
    (("bomber", "hoarder", "partner", "rusher"), 6, "6d82c138776ba539"),
    (("wobbly", "expert", "rusher", "greedy"), 7, "780cee12f56b2354"),
])
def test_expert_games_are_golden(policies, seed, digest):
    # 300 whole games' rows, bit for bit: the expert and its styles decide
    # as they did before every rewrite for speed (a change of play is a
    # deliberate one, and updates these digests)
    import hashlib
    r = simulate(300, policies=policies, seed=seed, workers=1, keep_rows=True)
    h = hashlib.sha256()
    for k in sorted(r.rows):
        h.update(k.encode())
        h.update(np.ascontiguousarray(r.rows[k]).astype("<i8").tobytes())
    assert h.hexdigest()[:16] == digest


def test_rest_group_floor_never_exceeds_the_rest_split():
    # following, a bomb that cannot leave few enough groups to go out is
    # not evaluated when only such a bomb could be played: its floor on the
    # rest's groups must never exceed the groups of the split the
    # evaluation would find (random hands of 8..27 cards, random levels,
    # random cards already played; every play of each hand)
    rng = random.Random(20261206)
    deck = list(range(54)) * 2
    checked = 0
    for _ in range(3000):
        cards = rng.sample(deck, rng.choice([8, 12, 16, 20, 24, 27]) + 20)
        counts, played = [0] * 54, [0] * 54
        for i, c in enumerate(cards):
            (played if i < 20 else counts)[c] += 1
        hand = Hand.from_counts(counts)
        level = rng.randrange(13)
        n, above, failed = _expert._rest_floor_check(
            hand, level, _core.generate_moves(hand, level),
            Hand.from_counts(played) if rng.random() < 0.7 else None)
        assert (above, failed) == (0, 0)
        checked += n
    assert checked > 500_000
