"""The search's inference: the trail of this round's plays, worlds drawn by
the likelihood of the other seats' plays (a statistical test of the
importance-resampling sampler on a hand-made history whose inference is
clear), the habits over finished rounds, threads and determinism, and the
tribute in a native View."""

import random

import numpy as np
import pytest

from guandan import Game, search, simulate
from guandan._engine import NativeView
from guandan._search import InfoSet
from guandan.state import Phase

DECK = [s + r for r in "23456789TJQKA" for s in "SHCD"] * 2 + ["SB", "SB", "HR", "HR"]
RANKS = "23456789TJQKA"


def _play(g, text):
    for m in g.legal_moves():
        if str(m) == text:
            g.play(m)
            return
    raise AssertionError(f"{text} not legal: {[str(m) for m in g.legal_moves()][:10]}")


def _passing_history():
    """Seat 0 leads the singles 3, 4 and 5 in turn; seat 1 (an opponent)
    passes on each, seats 2 and 3 pass; seat 2 is to act after seat 1's
    pass on the last. Seat 1 passing three low singles says it holds few
    loose singles."""
    d = DECK[:]
    random.Random(4).shuffle(d)
    hands = [d[27 * i:27 * i + 27] for i in range(4)]
    g = Game.from_position(hands, level="2", to_act=0)
    for lead in ("Single 3 H3", "Single 4 C4", "Single 5 D5"):
        _play(g, lead)
        if lead != "Single 5 D5":
            for _ in range(3):
                _play(g, "PASS")
        else:
            _play(g, "PASS")
    assert g.to_act == 2
    return g


def _loose_singles_above(one, two, key):
    """Ranks stronger than ``key`` (level 2: rank order, jokers on top) held
    exactly once, in a hand given as its two masks."""
    n = 0
    for r in range(15):
        if r < 13:
            c = bin((int(one) >> (4 * r)) & 15).count("1") + bin((int(two) >> (4 * r)) & 15).count("1")
        else:
            f = 52 + (r - 13)
            c = ((int(one) >> f) & 1) + ((int(two) >> f) & 1)
        strength = r if r < 13 else r + 1
        n += c == 1 and strength > (key if key != 0 else 100)
    return n


def test_the_trail_records_the_round_and_the_passes():
    g = _passing_history()
    valid, ents, opp, hit = g.native_state(history=True).trail_info()
    assert valid
    assert [e[0] for e in ents] == [0, 1, 2, 3, 0, 1, 2, 3, 0, 1]
    passes_of_1 = [e for e in ents if e[0] == 1]
    assert all(e[1] == 0 and e[3] == 0 and e[4] == 1 for e in passes_of_1)   # passes on seat 0's singles
    assert [e[5] for e in passes_of_1] == [1, 2, 3]                          # keys 3, 4, 5
    assert opp == [[0] * 4] * 4                                              # no round finished yet


def test_worlds_by_likelihood_against_importance_weights():
    """The sampler draws each world as the pick of K uniform worlds in
    proportion to their likelihood: the share of worlds in which seat 1
    holds a loose single above 3 is the importance-resampling expectation
    (uniform worlds in batches of K, each batch's likelihood-weighted share),
    estimated here independently of the sampler; and the passes lower it
    clearly against uniform worlds."""
    g = _passing_history()
    core = g.native_state(history=True)
    info = search.info_set(g, 2)
    K, batches, n = 8, 4000, 4000
    uni = info.sample_hands(K * batches, 11)
    ll, ev = info.log_likelihoods(uni, core)
    assert ev.max() >= 1 and ll.min() < 0
    x = np.array([_loose_singles_above(h[1][0], h[1][1], 3) > 0 for h in uni], dtype=float)
    w = np.exp(ll).reshape(batches, K)
    share = (w * x.reshape(batches, K)).sum(axis=1) / w.sum(axis=1)
    expect, se_e = float(share.mean()), float(share.std() / np.sqrt(batches))
    prior = float(x.mean())
    drawn = info.draw_hands(n, 12, core, proposals=K)
    p = float(np.mean([_loose_singles_above(h[1][0], h[1][1], 3) > 0 for h in drawn]))
    se = float(np.sqrt(se_e ** 2 + p * (1 - p) / n))
    assert abs(p - expect) < 4 * se                      # the sampler is importance resampling
    assert prior - p > 10 * se                           # and the passes moved the worlds
    # more proposals move further toward the posterior
    p64 = float(np.mean([_loose_singles_above(h[1][0], h[1][1], 3) > 0
                         for h in info.draw_hands(n, 13, core, proposals=64)]))
    assert p - p64 > 5 * se
    # the seat's own hand is that of every world
    assert all(int(h[2][0]) == int(drawn[0][2][0]) for h in drawn[:50])
    # one proposal is a uniform draw: the same worlds as sample_hands
    assert np.array_equal(info.draw_hands(50, 12, core, proposals=1), info.sample_hands(50, 12))


def test_explain_shows_how_much_the_weighting_moved_the_values():
    g = _passing_history()
    r = search.explain(g, rollouts=400, compare=True, seed=3)
    assert r.weighed == r.worlds and r.evidence >= 1 and 0 < r.ess <= 1
    assert r.uniform is not None and len(r.uniform) == len(r.candidates)
    assert "worlds by likelihood" in str(r) and "(uniform" in str(r)
    plain = search.explain(g, rollouts=400, infer=0, keep=0, seed=3)
    assert plain.weighed == 0 and [round(c.value, 9) for c in plain.candidates] == \
        [round(u, 9) for u in r.uniform]


@pytest.mark.parametrize("threads", [2, 3])
def test_threads_give_the_same_decision_for_a_rollout_budget(threads):
    g = _passing_history()
    one = search.explain(g, rollouts=600, seed=9)
    many = search.explain(g, rollouts=600, seed=9, threads=threads)
    assert many.move == one.move and many.worlds == one.worlds
    assert [(c.value, c.n) for c in many.candidates] == [(c.value, c.n) for c in one.candidates]


def test_threads_in_simulate_give_the_same_games():
    a = simulate(3, policies=["search:rollouts=60", "expert"] * 2, seed=4, workers=1)
    b = simulate(3, policies=["search:rollouts=60,threads=2", "expert"] * 2, seed=4, workers=1)
    assert a.rows.keys() == b.rows.keys()
    for k in a.rows:
        assert np.array_equal(a.rows[k], b.rows[k]), k


def test_habits_over_finished_rounds_pick_a_rollout_style():
    g = Game(seed=3)
    while g.round_index < 3 and not g.is_over:
        g.play(g.choose("bomber" if g.to_act % 2 else "expert"))
    valid, ents, opp, hit = g.native_state(history=True).trail_info()
    assert sum(opp[1]) > 0 and hit[1][2] > hit[0][2]          # the bomber bombs more
    while g.phase is not Phase.PLAY or g.to_act % 2 or len(g.legal_moves()) < 2:
        g.play(g.choose("bomber" if g.to_act % 2 else "expert"))
    r = search.explain(g, rollouts=50)
    assert r.rollout_policies[1] == "fam-bomb-early" and r.rollout_policies[3] == "fam-bomb-early"
    assert r.rollout_policies[g.to_act] == "expert"
    assert search.explain(g, rollouts=50, model=0).rollout_policies == ("expert",) * 4


def test_the_trail_is_the_same_kept_up_and_rebuilt_after_undo():
    g = Game(seed=8)
    for _ in range(150):
        g.play(g.choose("expert"))
    kept = g.native_state(history=True)
    kept.trail_info()
    g.undo()
    g.play(g.choose("expert"))
    assert g.native_state(history=True).trail_info() == kept.trail_info()


def test_a_native_view_knows_this_rounds_tribute():
    g = Game(seed=5)
    while g.round_index < 1:
        g.play(g.choose("expert"))
    while g.phase is not Phase.PLAY:
        g.play(g.choose("expert"))
    assert g.tribute.payers
    v = NativeView.of(g.native_state(), g.to_act)
    assert v.tribute_known
    native = InfoSet.from_view(v)
    from_game = search.info_set(g, g.to_act)
    assert native.total_weight == from_game.total_weight
    assert native.split_weights() == from_game.split_weights()


def test_an_observation_gives_the_same_trail_as_the_game():
    """The trail rebuilt from an observation's history (who was on top at
    each action inferred from the plays) is the game's own, over whole
    games: tricks ended by passes, players going out, the partner's lead."""
    from guandan.policies import observation_view
    checked = 0
    for seed in range(4):
        g = Game(seed=seed)
        while not g.is_over and g.round_index < 3:
            if g.phase is Phase.PLAY and g.decisions % 7 == 0:
                valid, ents, _, _ = g.native_state(history=True).trail_info()
                v = observation_view(g.observation(g.to_act), g.rules, record=True)
                if valid:
                    assert v.trail_entries() == ents
                    checked += 1
            g.play(g.choose("expert"))
    assert checked > 50


def test_hostile_inputs_to_the_inference_are_refused_or_harmless():
    g = _passing_history()
    core = g.native_state(history=True)
    info = search.info_set(g, 2)
    rng = np.random.default_rng(5)
    junk = rng.integers(0, 2 ** 63, size=(200, 4, 2), dtype=np.uint64) * np.uint64(2)
    ll, ev = info.log_likelihoods(junk, core)
    assert np.isfinite(ll).all() and (ev >= 0).all()
    for bad in (np.zeros((3, 4)), np.zeros((3, 3, 2)), [[1, 2]], "x"):
        with pytest.raises(Exception) as e:
            info.log_likelihoods(bad, core)
        assert e.type.__name__ in ("GuandanError", "ValueError", "TypeError")
    with pytest.raises(Exception):
        info.draw_hands(10, 1, core, proposals=0)
    with pytest.raises(Exception):
        info.draw_hands(-1, 1, core)
    started = Game.from_position(g.hands, level="2", to_act=2, trick=[(0, g.top.move), (1, "PASS")])
    with pytest.raises(Exception, match="trail"):
        info.draw_hands(5, 1, started.native_state(history=True))
    from guandan import GuandanError
    for opts in ("threads=0", "threads=65", "infer=3", "model=-1", "proposals=0", "proposals=257"):
        with pytest.raises(GuandanError):
            search.SearchConfig.from_spec("search:" + opts)


def test_a_view_with_hostile_play_words_gives_no_evidence_and_no_crash():
    """Play words given to NativeView from outside whose keys are not rank
    keys (31) reach the trail; the likelihood reads them as no evidence."""
    from guandan._engine import NativeView as NV
    from guandan.policies import observation_fields
    g = _passing_history()
    f = observation_fields(g.observation(2), g.rules)
    f["plays"] = [(s, lo, hi | (31 << 56)) if lo else (s, lo, hi) for s, lo, hi in f["plays"]]
    v = NV(**f)
    assert any(e[2] == 31 for e in v.trail_entries())
    info = InfoSet.from_view(v)
    raw = info.search(search.SearchConfig(rollouts=200).native, 3, None, v)
    assert raw["evidence"] == 0 and raw["weighed"] > 0 and raw["ess"] == 1.0


def test_expert_play_function_picks_the_expert_move():
    """The play function of the expert and of its styles (all but the
    deviating one; asked by simulate's loop and the rollouts before the
    legal list) gives the move the policy picks from the whole list at
    every play of seeded expert and pool games - leads (hands of 10 cards
    or fewer look for a play of the whole hand first) and follows (from the pattern list, or
    the whole list when the split holds straight flushes) - and nothing
    outside the play phase."""
    from guandan import Game, policies
    from guandan.state import Phase
    from guandan._engine import NATIVE_POLICY_CODES
    from guandan._expert import STYLE_CODES
    codes = [NATIVE_POLICY_CODES["expert"]] + [c for name, c in STYLE_CODES.items() if name != "wobbly"]
    n = {"lead": 0, "lead_small": 0, "lead_declined": 0, "follow": 0, "follow_declined": 0, "pass": 0, "other": 0}
    for seed in range(40):
        g = Game(seed=seed)
        seats = ["expert", "bomber", "expert", policies.POOL[seed % len(policies.POOL)]]
        while not g.is_over and g.round_index < 2:
            core = g.native_state()
            code = codes[(seed + len(g.moves_played)) % len(codes)]
            got = core.pick_play(code)
            if g.phase is not Phase.PLAY:
                assert got is None
                n["other"] += 1
            elif g.top is None:
                n["lead" if got is not None else "lead_declined"] += 1
                n["lead_small"] += got is not None and core.hand_size(g.to_act) <= 10
            else:
                n["follow" if got is not None else "follow_declined"] += 1
                n["pass"] += got == (0, 0)
            if got is not None:
                assert got == core.pick(code), (seed, g.to_act, str(g.top))
            g.play(g.choose(seats[g.to_act]))
    assert n["lead"] > 300 and n["lead_small"] > 50, n
    assert n["follow"] > 1000 and n["pass"] > 300 and n["other"] > 20, n


def test_expert_play_function_on_random_follows():
    """The play function's follow (from the pattern list) is the pick of
    the expert and of each of its styles from the whole list on random deals: random hands of 6 to 27 cards
    at random levels (wild cards, straight flushes, big bomb lists), a
    random play to follow."""
    import random
    from guandan import Game
    from guandan._engine import NATIVE_POLICY_CODES
    from guandan._expert import STYLE_CODES
    codes = [NATIVE_POLICY_CODES["expert"]] + [c for name, c in STYLE_CODES.items() if name != "wobbly"]
    deck = [s + r for r in "23456789TJQKA" for s in "SHCD"] * 2 + ["SB", "SB", "HR", "HR"]
    rng = random.Random(11)
    asked = 0
    for _ in range(600):
        d = deck[:]
        rng.shuffle(d)
        k = rng.randint(6, 27)
        hands = [d[i * k:(i + 1) * k] for i in range(4)]
        g = Game.from_position(hands, level=rng.choice("23456789TJQKA"), to_act=rng.randrange(4))
        for _ in range(rng.randint(1, 3)):
            if g.phase != "play":
                break
            g.play(rng.choice(list(g.legal_moves())))
            if g.phase != "play" or g.top is None:
                break
            core = g.native_state()
            for code in codes:
                got = core.pick_play(code)
                if got is not None:
                    asked += 1
                    assert got == core.pick(code), (code, hands, str(g.top))
    assert asked > 3000


def test_expert_play_function_on_random_small_leads():
    """The play function's lead of a hand of 1 to 12 cards (a play of the
    whole hand looked for among the types of its size, then the split's
    groups) is the pick of the expert and of each of its styles from the
    whole list: random hands, and hands rich in one rank, the level's cards
    and the jokers (bombs, wild straights, joker bombs)."""
    import random
    from guandan import Game
    from guandan._engine import NATIVE_POLICY_CODES
    from guandan._expert import STYLE_CODES
    codes = [NATIVE_POLICY_CODES["expert"]] + [c for name, c in STYLE_CODES.items() if name != "wobbly"]
    deck = [s + r for r in "23456789TJQKA" for s in "SHCD"] * 2 + ["SB", "SB", "HR", "HR"]
    rng = random.Random(5)
    asked = went_out = 0
    for it in range(1500):
        d = deck[:]
        rng.shuffle(d)
        level = rng.choice("23456789TJQKA")
        if it % 3 == 0:
            r = rng.choice("23456789TJQKA")
            pool = [c for c in deck if c[1] in (r, level)] + ["SB", "HR", "SB", "HR"]
            rng.shuffle(pool)
            mine = pool[:rng.randint(1, 10)]
            rest = d[:]
            for c in mine:
                rest.remove(c)
            hands = [mine] + [rest[i * 8:(i + 1) * 8] for i in range(3)]
        else:
            sizes = [rng.randint(1, 12) for _ in range(4)]
            hands = [d[sum(sizes[:i]):sum(sizes[:i + 1])] for i in range(4)]
        g = Game.from_position(hands, level=level, to_act=0)
        core = g.native_state()
        for code in codes:
            got = core.pick_play(code)
            assert got is not None
            asked += 1
            went_out += sum(bin(w & ((1 << 54) - 1)).count("1") for w in got) == len(hands[0])
            assert got == core.pick(code), (code, hands[0], level)
    assert asked == 1500 * len(codes) and went_out > 1000


def _same_picks_either_way(switch, seed, count, hand_size, lead_ok, follow_ok):
    """On ``count`` random positions where someone has just led (four hands
    of ``hand_size(rng)`` cards, a random level and seat; the lead drawn
    from the plays ``lead_ok`` takes, the follow kept when ``follow_ok``
    takes its legal moves), the expert and each of its styles but wobbly
    pick the same move with ``switch(True)`` and ``switch(False)``."""
    import random
    from guandan import Game
    from guandan._engine import NATIVE_POLICY_CODES
    from guandan._expert import STYLE_CODES
    codes = [NATIVE_POLICY_CODES["expert"]] + [c for name, c in STYLE_CODES.items() if name != "wobbly"]
    deck = [s + r for r in "23456789TJQKA" for s in "SHCD"] * 2 + ["SB", "SB", "HR", "HR"]
    rng = random.Random(seed)
    seen = 0
    try:
        while seen < count:
            d = deck[:]
            rng.shuffle(d)
            k = hand_size(rng)
            hands = [d[i * k:(i + 1) * k] for i in range(4)]
            g = Game.from_position(hands, level=rng.choice("23456789TJQKA"), to_act=rng.randrange(4))
            leads = [m for m in g.legal_moves() if lead_ok(m)]
            if not leads:
                continue
            g.play(rng.choice(leads))
            if g.phase != "play" or g.top is None or not follow_ok(list(g.legal_moves())):
                continue
            seen += 1
            core = g.native_state()
            for code in codes:
                switch(True)
                on = core.pick(code)
                switch(False)
                assert core.pick(code) == on, (code, hands, str(g.top))
    finally:
        switch(True)


def test_expert_follow_memo_changes_nothing():
    """Following from a whole list longer than the dedup's reach (hands of
    14 to 27 cards answering plays of five cards or more), the expert and
    each of its styles pick the same move with the rest-value memo and
    without it."""
    from guandan._expert import set_follow_memo
    _same_picks_either_way(set_follow_memo, 1, 60, lambda rng: rng.randint(14, 27),
                           lambda m: len(m.cards) >= 5, lambda moves: len(moves) > 128)


def test_expert_shortcuts_change_no_choice():
    """The work the expert skips because it cannot change a choice (bombs'
    values a follow does not need, sets of straight flushes leaving the
    same rest) changes no choice: on random positions answering plays
    that bombs may beat (hands of 4 to 27 cards, most of them small enough
    for a bomb to go out with; random levels), the expert and each of its
    styles pick the same move with and without."""
    from guandan._expert import set_shortcuts
    _same_picks_either_way(
        set_shortcuts, 2, 600,
        lambda rng: rng.randint(4, 12) if rng.random() < 0.7 else rng.randint(13, 27),
        lambda m: not m.is_pass, lambda moves: any(m.is_bomb for m in moves))


def test_expert_set_params_all_or_nothing():
    """set_params with an unknown name or a value out of range changes
    nothing (neither the parameters nor the expert's picks); a good call
    changes the picks, reset_params brings them back."""
    import pytest
    from guandan import Game
    from guandan.errors import GuandanError
    from guandan._engine import NATIVE_POLICY_CODES
    from guandan._expert import get_params, set_params, reset_params
    code = NATIVE_POLICY_CODES["expert"]
    games = []
    for seed in range(30):
        g = Game(seed=seed)
        for _ in range(seed % 7):
            g.play(g.choose("expert"))
        games.append(g)

    def picks():
        out = []
        for g in games:
            core = g.native_state()
            out.append((core.pick(code), core.pick_play(code)))
        return out

    reset_params()
    before, params = picks(), get_params()
    try:
        with pytest.raises(GuandanError):
            set_params(stop=0, bomb_opp=0, follow_min=10000, tempo=0, bogus=1)
        with pytest.raises(OverflowError):
            set_params(follow_min=10000, stop=1 << 40)
        assert get_params() == params and picks() == before
        set_params(stop=0, bomb_opp=0, follow_min=10000, tempo=0)
        assert picks() != before
    finally:
        reset_params()
    assert picks() == before
