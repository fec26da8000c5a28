"""The search tools: world sampling (consistency, exact weighting), native
rollouts, the exact endgame solver against an independent brute-force
minimax, and the search player (determinism, policy names)."""

import itertools
import random
from collections import Counter

import numpy as np
import pytest

from guandan import Game, GuandanError, Hand, Move, Rules, get_policy, simulate
from guandan import _engine, search
from guandan._core import face_index
from guandan.policies import native_code, policy_names
from brute_minimax import minimax, move_values, round_value
from helpers import DECK, chi2_pvalue

RANKS = "23456789TJQKA"


def level_value(card, level):
    """Level order (RULES.md): 2..A, level card, small joker, big joker."""
    if card == "HR":
        return 15
    if card == "SB":
        return 14
    if card[1] == level:
        return 13
    return RANKS.index(card[1])


def deal(cards, sizes):
    """Hands of the given sizes, dealt in order from ``cards``."""
    hands, k = [], 0
    for n in sizes:
        hands.append(list(cards[k:k + n]))
        k += n
    return hands


def hands_of(w):
    return [Counter(h.cards()) for h in w.hands]


def played_game(seed, actions, policy="greedy"):
    g = Game(seed=seed)
    for _ in range(actions):
        if g.is_over:
            break
        g.play_policy(policy)
    return g


def games_in_play(n, seed=0, min_round=0):
    """Games stopped at random points of the play phase (rounds with tribute
    among them when min_round > 0)."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        g = Game(seed=rng.getrandbits(32))
        stop_round = rng.randint(min_round, min_round + 2)
        stop = rng.randint(0, 90)
        k = 0
        while not g.is_over:
            if g.round_index >= stop_round and g.phase == "play":
                if k >= stop:
                    break
                k += 1
            g.play_policy("greedy" if rng.random() < 0.8 else "random")
        if g.is_over or g.phase != "play":
            continue
        out.append(g)
    return out


# -- sample_worlds ---------------------------------------------------------------

def check_world(g, w, seat):
    """Everything ``seat`` knows holds in world ``w``."""
    assert w.phase == "play"
    assert w.card_counts == g.card_counts
    assert w.to_act == g.to_act and w.level == g.level and w.team_levels == g.team_levels
    assert w.finish_order == g.finish_order
    assert [(s, str(m)) for s, m in w.trick] == [(s, str(m)) for s, m in g.trick]
    assert w.hands[seat] == g.hands[seat]
    # the other hands hold exactly the cards unseen by the seat
    total_w, total_g = Counter(), Counter()
    for s in range(4):
        total_w.update(w.hands[s].cards())
        total_g.update(g.hands[s].cards())
    assert total_w == total_g
    assert w.legal_moves().to_platform() == g.legal_moves().to_platform() or w.to_act != seat


def tribute_facts(g):
    """(payer, receiver, tribute card, returned card) of this round, from the observation."""
    obs = g.observation(0)["tribute"]
    if obs["anti"] or not obs["payers"]:
        return obs["anti"], obs["payers"], []
    out = []
    for payer, receiver, card in obs["tribute"]:
        back = [c for r, p, c in obs["back"] if p == payer][0]
        out.append((payer, receiver, card, back))
    return obs["anti"], obs["payers"], out


def plays_by(g, seat):
    c = Counter()
    for s, m in g.observation(seat)["history"]:
        if s == seat and m[0] != "PASS":
            c.update(m[2])
    return c


def check_tribute_world(g, w, seat):
    """The tribute of the round holds in world ``w`` (RULES.md)."""
    anti, payers, facts = tribute_facts(g)
    lv = g.level
    wild = "H" + lv
    hw = hands_of(w)
    if anti:
        # the paying side held both big jokers at the deal
        held = sum(hw[p]["HR"] + plays_by(g, p)["HR"] for p in payers)
        assert held == 2
        return
    for payer, receiver, card, back in facts:
        # the receiver holds the tribute card unless it played it (or returned it)
        if back != card:
            assert hw[receiver][card] + plays_by(g, receiver)[card] >= 1
        # the payer holds the returned card unless it played it
        assert hw[payer][back] + plays_by(g, payer)[back] >= 1
        # the payer held nothing stronger than its tribute but wilds
        deal = hw[payer] + plays_by(g, payer)
        deal[back] -= 1
        for c, k in deal.items():
            if k > 0 and c != wild:
                assert level_value(c, lv) <= level_value(card, lv), (c, card)
    # the payers did not hold both big jokers at the deal
    dealt_hr = 0
    for payer, receiver, card, back in facts:
        dealt_hr += hw[payer]["HR"] + plays_by(g, payer)["HR"] + (card == "HR") - (back == "HR")
    assert dealt_hr <= 1


def test_sample_worlds_consistent_first_round():
    for g in games_in_play(8, seed=1):
        for seat in range(4):
            for w in search.sample_worlds(g, seat, 20, seed=seat):
                check_world(g, w, seat)


def test_sample_worlds_consistent_with_tribute():
    seen = 0
    for g in games_in_play(25, seed=2, min_round=1):
        anti, payers, facts = tribute_facts(g)
        seen += bool(payers)
        for seat in range(4):
            for w in search.sample_worlds(g, seat, 10, seed=seat + 10):
                check_world(g, w, seat)
                check_tribute_world(g, w, seat)
    assert seen >= 10


def test_native_view_carries_the_tribute():
    """The search player inside simulate / VecGame builds its information set
    from the native View: with this round's tribute and who played what, it
    is the same as search.sample_worlds' (same samples for the same seed)."""
    from guandan._engine import NativeView
    from guandan._search import InfoSet
    differ = 0
    for g in games_in_play(25, seed=2, min_round=1):
        st = g.native_state()
        anti, payers, facts = tribute_facts(g)
        for seat in range(4):
            a = InfoSet.from_view(NativeView.of(st, seat)).sample_hands(12, seed=seat + 3)
            b = search.info_set(g, seat).sample_hands(12, seed=seat + 3)
            assert np.array_equal(a, b), (g.position, seat)
            c = InfoSet.from_state(st, seat, use_tribute=False).sample_hands(12, seed=seat + 3)
            differ += payers != [] and not np.array_equal(a, c)
    assert differ > 0                   # the tribute constraints do take effect
    # a state started from a position has no record of the round: no constraints
    g = Game.from_position(["S2 S3", "H4", "C5 C6", "D7"], level="2", to_act=0)
    assert InfoSet.from_view(NativeView.of(g.native_state(), 1)).sample_hands(3, seed=1).shape[0] == 3


def test_truth_is_always_a_consistent_world():
    """The real hands always meet the constraints (the sampler never rules
    out the truth): every face's true split has a positive weight."""
    for g in games_in_play(30, seed=3, min_round=1):
        for seat in range(4):
            info = search.info_set(g, seat)
            others = info.others
            splits = info.split_weights()
            true = hands_of(g)
            from guandan._core import FACE_STR
            for f, opts in enumerate(splits):
                x = tuple(true[s][FACE_STR[f]] for s in others)
                ws = [o[3] for o in opts if o[:3] == x]
                assert ws and ws[0] > 0, (g.position, seat, FACE_STR[f], x, opts)


def test_sample_worlds_deterministic_and_positions_round_trip():
    g = games_in_play(1, seed=4)[0]
    a = [w.position for w in search.sample_worlds(g, 1, 5, seed=9)]
    b = [w.position for w in search.sample_worlds(g, 1, 5, seed=9)]
    c = [w.position for w in search.sample_worlds(g, 1, 5, seed=10)]
    assert a == b and a != c
    for w in search.sample_worlds(g, 2, 3, seed=1):
        g2 = Game.from_position(w.position, seed=w.seed)
        assert g2.native_state().state_bytes() == w.native_state().state_bytes()
        assert w.record()["start"] == w.position
        w.play_out(until="round")                   # a world plays on like any game


def test_sample_worlds_errors():
    g = Game(seed=5)
    with pytest.raises(GuandanError):
        search.sample_worlds(g, 4, 1)
    with pytest.raises(GuandanError):
        search.sample_worlds(g, 0, -1)
    g2 = played_game(6, 0)
    while g2.phase == "play":
        g2.play_policy("greedy")
    if g2.phase in ("tribute", "back"):
        with pytest.raises(GuandanError):
            search.sample_worlds(g2, 0, 1)


def test_unseen_cards_spread_uniformly():
    """Without constraints every physical deal of the unseen cards is equally
    likely: a face's copies split over the other seats hypergeometrically."""
    g = played_game(11, 37)
    assert g.phase == "play" and g.round_index == 0
    seat = g.to_act
    others = [s for s in range(4) if s != seat]
    n = [g.card_counts[s] for s in others]
    N = sum(n)
    W = 6000
    worlds = search.info_set(g, seat).sample_hands(W, 123)
    from guandan._core import FACE_STR
    mine = Counter(g.hands[seat].cards())
    played = Counter(DECK) - mine - sum((Counter(h.cards()) for s, h in enumerate(g.hands) if s != seat), Counter())
    chi, dof = 0.0, 0
    for f, face in enumerate(FACE_STR):
        u = 2 - mine[face] - played[face]
        if u == 0:
            continue
        # count each split (x0, x1, x2) over the samples
        bit = np.uint64(f)
        xs = [(((worlds[:, s, 0] >> bit) & np.uint64(1)) + ((worlds[:, s, 1] >> bit) & np.uint64(1)))
              .astype(np.int64) for s in others]
        codes = np.bincount(xs[0] * 9 + xs[1] * 3 + xs[2], minlength=27)
        cnt = Counter({(c // 9, c // 3 % 3, c % 3): int(k) for c, k in enumerate(codes) if k})
        if u == 1:
            exp = {tuple(int(j == k) for j in range(3)): n[k] / N for k in range(3)}
        else:
            exp = {}
            for a, b in itertools.combinations_with_replacement(range(3), 2):
                x = tuple((j == a) + (j == b) for j in range(3))
                exp[x] = (n[a] * (n[a] - 1) if a == b else 2 * n[a] * n[b]) / (N * (N - 1))
        assert set(cnt) <= set(exp)
        for x, p in exp.items():
            if p * W < 5:
                continue
            chi += (cnt[x] - p * W) ** 2 / (p * W)
            dof += 1
        dof -= 1
    assert chi2_pvalue(chi, dof) > 1e-4, (chi, dof)


def test_expected_counts_match_samples():
    g = games_in_play(1, seed=7, min_round=1)[0]
    info = search.info_set(g, g.to_act)
    ec = info.expected_counts()
    hs = info.sample_hands(4000, 5)
    freq = np.zeros((4, 54))
    for s in range(4):
        for f in range(54):
            freq[s, f] = (((hs[:, s, 0] >> np.uint64(f)) & np.uint64(1)).astype(float)
                          + ((hs[:, s, 1] >> np.uint64(f)) & np.uint64(1)).astype(float)).mean()
    assert np.allclose(ec.sum(axis=1), g.card_counts)
    assert np.abs(freq - ec).max() < 0.06


def _tiny_tribute_case(rng):
    """A play-phase observation after a single-down tribute where only a few
    cards are unseen by the observer, with the facts to check worlds against."""
    from guandan import tribute_choices, return_choices
    level = rng.choice(RANKS)
    deck = DECK[:]
    rng.shuffle(deck)
    deal = [deck[27 * i:27 * (i + 1)] for i in range(4)]
    banker, payer = 0, rng.choice([1, 3])
    if sum(c == "HR" for c in deal[payer]) == 2:
        return None                               # anti-tribute
    t = tribute_choices(deal[payer], level)[0]
    hands = [Counter(h) for h in deal]
    hands[payer][t] -= 1
    hands[banker][t] += 1
    b = return_choices(list(hands[banker].elements()), level)[0]
    hands[banker][b] -= 1
    hands[payer][b] += 1
    observer = rng.choice([s for s in range(4)])
    # everyone but the observer has played all but 2 or 3 cards (as singles)
    plays = []
    for s in range(4):
        cards = list(hands[s].elements())
        rng.shuffle(cards)
        # often keep the cards the rules say something about: the tribute with
        # the receiver, the return with the payer, cards above the tribute
        # elsewhere
        first = [c for c in cards if (s == banker and c == t) or (s == payer and c == b)
                 or (s != payer and level_value(c, level) > level_value(t, level))]
        if first and rng.random() < 0.7:
            cards.remove(first[0])
            cards.insert(0, first[0])
        keep = 2 if s != observer else 4
        for c in cards[keep:]:
            plays.append((s, c))
        hands[s] = Counter(cards[:keep])
    return level, banker, payer, t, b, observer, hands, plays


def _consistent(level, banker, payer, t, b, plays, current):
    """RULES.md, written out: the deal-time hands implied by ``current``."""
    wild = "H" + level
    played = [Counter() for _ in range(4)]
    for s, c in plays:
        played[s][c] += 1
    deal = [current[s] + played[s] for s in range(4)]
    deal[payer][t] += 1
    deal[payer][b] -= 1
    deal[banker][t] -= 1
    deal[banker][b] += 1
    for s in range(4):
        if any(v < 0 for v in deal[s].values()) or any(v > 2 for v in deal[s].values()):
            return False
    after = deal[banker] + Counter({t: 1})            # the banker's hand before returning
    if after[b] < 1:
        return False
    if any(k > 0 and c != wild and level_value(c, level) > level_value(t, level)
           for c, k in deal[payer].items()):
        return False
    if deal[payer]["HR"] >= 2:
        return False
    returnable = lambda c: c[1] in "23456789T" and c[1] != level
    if not returnable(b):
        if any(k > 0 and (returnable(c) or (c != wild and level_value(c, level) < level_value(b, level)))
               for c, k in after.items() if c != b or k > 1):
            return False
    return True


def test_sampler_exact_against_enumeration_with_tribute():
    """On tiny unseen pools, the sample frequencies of every hand assignment
    match an enumeration of all physical deals meeting the tribute rules."""
    rng = random.Random(8)
    cases = binding = 0
    while cases < 12:
        case = _tiny_tribute_case(rng)
        if case is None:
            continue
        level, banker, payer, t, b, observer, hands, plays = case
        others = [s for s in range(4) if s != observer]
        pool = [c for s in others for c in hands[s].elements()]
        counts = [sum(hands[s].values()) for s in range(4)]
        # exact distribution: every physical arrangement of the pool
        exact = Counter()
        everything = set()
        for perm in set(itertools.permutations(range(len(pool)))):
            cur = [Counter() for _ in range(4)]
            cur[observer] = hands[observer]
            k = 0
            for s in others:
                for _ in range(counts[s]):
                    cur[s][pool[perm[k]]] += 1
                    k += 1
            key = tuple(tuple(sorted(cur[s].elements())) for s in others)
            everything.add(key)
            if _consistent(level, banker, payer, t, b, plays, cur):
                exact[key] += 1
        assert exact, "the truth must be consistent"
        binding += len(exact) < len(everything)
        lv = RANKS.index(level)
        from guandan import _search
        played = Hand([c for _, c in plays])
        info = _search.InfoSet.from_view(_engine.NativeView(
            hand=Hand(list(hands[observer].elements())), played=played, seat=observer, phase=2,
            rlevel=lv, levels=(lv, lv), top_lo=0, top_hi=0, top_seat=-1, passes=0, counts=counts,
            fin=[], rules=Rules().native,
            plays=[(s, *Move.from_cards([c], level).words) for s, c in plays],
            tribute=([payer], [face_index(t)], [banker], [face_index(b)], False)))
        W = 4000
        hs = info.sample_hands(W, cases)
        got = Counter()
        for i in range(W):
            got[tuple(tuple(sorted(Hand.from_masks(int(hs[i, s, 0]), int(hs[i, s, 1])).cards()))
                      for s in others)] += 1
        assert set(got) <= set(exact), set(got) - set(exact)
        total = sum(exact.values())
        chi, dof = 0.0, -1
        for k, e in exact.items():
            p = e / total
            chi += (got[k] - p * W) ** 2 / (p * W)
            dof += 1
        assert chi2_pvalue(chi, dof) > 1e-4, (chi, dof, case)
        cases += 1
    assert binding >= 3                    # the tribute rules did rule deals out


# -- rollouts ----------------------------------------------------------------------

def test_rollouts_results_and_determinism():
    g = played_game(21, 30)
    r = search.rollouts(g, "greedy", 50, seed=1)
    assert len(r) == 50 and r.orders.shape == (50, 4)
    assert all(sorted(o) == [0, 1, 2, 3] for o in r.orders.tolist())
    assert [round_value(list(o)) for o in r.orders.tolist()] == r.values.tolist()
    assert len(set(r.values.tolist())) == 1                  # greedy is deterministic
    assert (r.points.sum(axis=1) == np.abs(r.values)).all()
    w = search.rollouts(g, "random", 200, seed=3, seat=g.to_act)
    w2 = search.rollouts(g, "random", 200, seed=3, seat=g.to_act)
    assert (w.orders == w2.orders).all() and len(set(w.values.tolist())) > 1
    # the same finishing order as playing the round out through Game
    g2 = g.copy()
    g2.play_out(("greedy",) * 4, until="round")
    assert g2.last_round_order == r.orders[0].tolist()
    with pytest.raises(GuandanError):
        search.rollouts(g, "search", 1)


# -- solve -------------------------------------------------------------------------

def random_endgame(rng, max_cards=3):
    level = rng.choice(RANKS)
    deck = DECK[:]
    rng.shuffle(deck)
    if rng.random() < 0.3:                       # wilds often
        deck.remove("H" + level)
        deck.insert(0, "H" + level)
    fin = []
    r = rng.random()
    if r < 0.25:
        fin = [rng.randrange(4)]
    elif r < 0.35:
        a = rng.randrange(4)
        fin = [a, (a + rng.choice([1, 3])) % 4]
    hands, k = [], 0
    for s in range(4):
        if s in fin:
            hands.append([])
            continue
        n = rng.randint(1, max_cards)
        hands.append(deck[k:k + n])
        k += n
    to_act = rng.choice([s for s in range(4) if s not in fin])
    g = Game.from_position(hands, level=level, to_act=to_act, finished=fin)
    for _ in range(rng.randrange(3)):            # some trick states
        m = rng.choice(list(g.legal_moves()))
        r0 = g.round_index
        g.play(m)
        if g.round_index != r0:
            g.undo()
            break
    return g


@pytest.mark.slow
def test_solve_matches_brute_force():
    rng = random.Random(31)
    for i in range(300):
        g = random_endgame(rng)
        want = minimax(g)
        r = search.solve(g)
        assert r.exact and r.value == want, (i, g.position, r, want)
        # the best move reaches the value
        vals = move_values(g)
        assert vals[str(r.best_move)] == want, (g.position, r.best_move, vals)


def test_solve_per_move_matches_brute_force():
    rng = random.Random(32)
    for _ in range(60):
        g = random_endgame(rng)
        r = search.solve(g, per_move=True)
        vals = move_values(g)
        assert {str(m): lo for m, lo, hi in r.moves} == vals
        assert all(lo == hi for _, lo, hi in r.moves)


def test_solve_limits_give_proven_bounds():
    rng = random.Random(33)
    n_bounds = 0
    for _ in range(40):
        g = random_endgame(rng, max_cards=4)
        want = search.solve(g).value
        r = search.solve(g, max_nodes=30)
        assert r.lo <= want <= r.hi
        n_bounds += not r.exact
        assert r.aborted or r.exact
    assert n_bounds > 0
    with pytest.raises(GuandanError):
        search.solve(g, time_limit=-1)


def test_solve_straight_flush_positions():
    """Positions where suits matter (straight flushes), against brute force."""
    rng = random.Random(34)
    for i in range(30):
        level = rng.choice(RANKS)
        suit = rng.choice("SHCD")
        start = rng.randrange(0, 8)
        run = [suit + RANKS[(start + j) % 13] for j in range(5)]
        deck = [c for c in DECK if c not in run]
        rng.shuffle(deck)
        hands = [run, deck[0:2], deck[2:3], deck[3:5]]
        rng.shuffle(hands)
        g = Game.from_position(hands, level=level, to_act=rng.randrange(4))
        assert search.solve(g).value == minimax(g), g.position


def level_heavy_endgame(rng, max_cards):
    """Hands drawn mostly from the cards whose rank is special: the level
    cards, the wilds among them, the jokers."""
    level = rng.choice(RANKS)
    special = [c for c in DECK if c[1] == level or c in ("SB", "HR")]
    rest = [c for c in DECK if c not in special]
    rng.shuffle(special)
    rng.shuffle(rest)
    deck = special[:rng.randrange(2, 8)] + rest
    sizes = [rng.randint(1, max_cards) for _ in range(4)]
    deck = deck[:sum(sizes)]
    rng.shuffle(deck)
    hands, k = [], 0
    for n in sizes:
        hands.append(deck[k:k + n])
        k += n
    return Game.from_position(hands, level=level, to_act=rng.randrange(4))


def test_solve_level_cards_and_wilds_against_brute_force():
    """Where no sequence can be made the solver keys positions on the ranks
    in play squeezed together; the level rank (a lone wild plays as a level
    card) must keep its place. Against brute force."""
    rng = random.Random(35)
    for _ in range(120):
        g = level_heavy_endgame(rng, 3)
        assert search.solve(g).value == minimax(g), g.position


@pytest.mark.slow
def test_solve_with_transposition_cutoffs_against_brute_force():
    """From 10 cards left in the four hands the solver makes every child and
    probes its table entry before searching any (transposition cutoffs):
    endgames of 3 cards to every seat (12 cards, so those nodes are the
    top of the tree), some heavy in level cards and wilds,
    some in a trick, against brute force, on one thread and on two."""
    rng = random.Random(37)
    for i in range(16):
        level = rng.choice(RANKS)
        deck = DECK[:]
        rng.shuffle(deck)
        if i % 3 == 0:
            special = [c for c in deck if c[1] == level or c in ("SB", "HR")]
            deck = special[:rng.randrange(2, 7)] + [c for c in deck if c not in special]
        sizes = [3, 3, 3, 3]
        hands, k = [], 0
        for n in sizes:
            hands.append(deck[k:k + n])
            k += n
        g = Game.from_position(hands, level=level, to_act=rng.randrange(4))
        if i % 2:
            g.play(rng.choice(list(g.legal_moves())))     # a lead to follow
        want = minimax(g)
        for th in (1, 2):
            r = search.solve(g, threads=th)
            assert r.exact and r.value == want, (th, g.position, r, want)


def test_solve_threads_give_the_same_answers():
    """Threads search the root's moves together: the value, the best move and the
    per-move values do not depend on their number; limited solves with
    threads still give proven bounds."""
    rng = random.Random(36)
    for i in range(40):
        g = random_endgame(rng) if i % 2 else level_heavy_endgame(rng, 3)
        want = minimax(g)
        one = search.solve(g, threads=1)
        assert one.exact and one.value == want, g.position
        for th in (2, 3, 4):
            r = search.solve(g, threads=th)
            assert (r.lo, r.hi, str(r.best_move)) == (one.lo, one.hi, str(one.best_move)), (th, g.position)
        pm1 = search.solve(g, per_move=True, threads=1).moves
        pm2 = search.solve(g, per_move=True, threads=2).moves
        assert [(str(m), lo, hi) for m, lo, hi in pm1] == [(str(m), lo, hi) for m, lo, hi in pm2]
        r = search.solve(g, max_nodes=20, threads=2)
        assert r.lo <= want <= r.hi
    for bad in (0, 9, -1):
        with pytest.raises(GuandanError):
            search.solve(g, threads=bad)


def test_solve_threads_on_six_card_deals():
    """Deals of six cards to each seat (the solver's stress size), where the
    threads split the moves of one root child among them (each puts off
    the moves another is searching): two and four threads reach the
    one-thread value and best move."""
    rng = random.Random(37)
    deck = DECK[:]
    for _ in range(5):
        rng.shuffle(deck)
        g = Game.from_position([deck[6 * s:6 * s + 6] for s in range(4)],
                               level=rng.choice("23456789TJQKA"), to_act=rng.randrange(4))
        one = search.solve(g, threads=1)
        assert one.exact
        for th in (2, 4):
            r = search.solve(g, threads=th)
            assert r.exact
            assert (r.value, str(r.best_move)) == (one.value, str(one.best_move)), (th, g.position)


def test_solve_move_list_cache_reset_leaves_the_search_unchanged():
    """The solver keeps every move list it generates, with its base move
    order, in a cache that is emptied when full. A cache small enough to be
    emptied thousands of times in one solve must leave the search exactly
    the same - nodes, bounds, best move - in positions where suits matter
    (straight flushes), where only ranks do, and in the rank-free endgame."""
    from guandan import _solve
    rng = random.Random(38)
    deck = DECK[:]
    games = []
    for k in (5, 5, 6):
        rng.shuffle(deck)
        games.append(Game.from_position([deck[k * s:k * s + k] for s in range(4)],
                                        level=rng.choice("23456789TJQKA"), to_act=rng.randrange(4)))
    games.append(Game.from_position(["S3 S4 S5 S6 H7 D9", "S8 S9 ST C2 C4 HK",
                                     "D3 D4 D5 D6 CQ SA", "H3 H5 H6 C8 CJ HA"],
                                    level="7", to_act=1))      # straight flushes in two hands
    resets = 0
    for g in games:
        b = g.native_state()
        full = _solve.solve(b)
        assert full["cache_resets"] == 0 and full["lo"] == full["hi"]
        for bits in (4, 6, 9):
            small = _solve.solve(b, _solve.SolveOptions(cache_bits=bits))
            resets += small["cache_resets"]
            assert {k: small[k] for k in ("lo", "hi", "best", "nodes")} == \
                {k: full[k] for k in ("lo", "hi", "best", "nodes")}, (bits, g.position)
        two = _solve.solve(b, _solve.SolveOptions(threads=2, cache_bits=4))
        assert (two["lo"], two["hi"], two["best"]) == (full["lo"], full["hi"], full["best"])
    assert resets > 1000
    with pytest.raises(GuandanError):
        _solve.SolveOptions(cache_bits=3)


def test_solve_kept_solver_searches_as_a_new_one():
    """A solver is kept between solves (its table emptied, its move-list
    cache kept): solving positions one after another - other sizes, other
    thread counts, node-limited solves between - gives every position the
    nodes, bounds and best move it gets first."""
    from guandan import _solve
    rng = random.Random(39)
    deck = DECK[:]
    games = []
    for k in (4, 5, 3, 5, 6):
        rng.shuffle(deck)
        games.append(Game.from_position([deck[k * s:k * s + k] for s in range(4)],
                                        level=rng.choice("23456789TJQKA"), to_act=rng.randrange(4)))
    first = {}
    for rnd in range(3):
        for g in rng.sample(games, len(games)):
            b = g.native_state()
            r = _solve.solve(b, _solve.SolveOptions(tt_bits=16))
            got = (r["lo"], r["hi"], r["best"], r["nodes"])
            assert first.setdefault(g.position, got) == got, (rnd, g.position)
            _solve.solve(b, _solve.SolveOptions(max_nodes=50, tt_bits=14 + rnd,   # another size, a limit
                                                 threads=1 + rnd % 2))


def test_rank_free_keys_only_join_positions_of_equal_value():
    """Every position of a brute-forced tree that has a rank-free key: the
    positions sharing a key have one value."""
    from guandan._solve import _rank_free_key
    rng = random.Random(36)
    joined = 0
    for _ in range(40):
        g = level_heavy_endgame(rng, 3)
        groups = {}

        def visit(game, v):
            rk = _rank_free_key(game.native_state())
            if rk is not None:
                groups.setdefault(rk, set()).add((v, game.position))

        minimax(g, visit=visit)
        for members in groups.values():
            assert len({v for v, _ in members}) == 1, sorted(members)
            joined += len(members) - 1
    assert joined > 100


def test_rank_free_keys_join_plays_to_beat_by_the_players_who_can_beat_them():
    """A rank-free key places the play to beat by the ranks the other three
    players hold at or below it: two plays beaten by the same cards are one
    (a single 9 or 10 of a hand holding both, no one else holding either,
    leave the same position). Brute-forced trees of endgames in a few
    neighbouring ranks (so such plays are common), some with wilds and
    tricks under way: the positions sharing a key have one value, and many
    of the keys join positions whose plays to beat differ in rank (a key
    names one value in any position, so the groups span the deals)."""
    from guandan._solve import _rank_free_key
    rng = random.Random(38)
    groups = {}                 # over all the deals: a key names one value wherever it is met
    for i in range(60):
        level = rng.choice(RANKS)
        lo = rng.randrange(0, 9)
        ranks = RANKS[lo:lo + rng.randrange(3, 6)]
        pool = [c for c in DECK if c[1] in ranks]
        if i % 3 == 0:
            pool += ["H" + level, "SB", "HR"]
        rng.shuffle(pool)
        hands = deal(pool, [rng.randint(1, 3) for _ in range(4)])
        g = Game.from_position(hands, level=level, to_act=rng.randrange(4))

        def visit(game, v):
            rk = _rank_free_key(game.native_state())
            if rk is not None:
                top = game.top
                groups.setdefault(rk, set()).add((v, game.position, None if top is None else str(top.move)))

        minimax(g, visit=visit)
    joined = 0
    for members in groups.values():
        assert len({v for v, _, _ in members}) == 1, sorted(members)
        if len({t for _, _, t in members}) > 1:
            joined += 1
    assert joined > 50


def test_rank_free_keys_of_singles_to_beat_join_exactly_when_the_same_cards_beat_them():
    """Same hands, the same player's single to beat, its rank varied: the
    rank-free keys are equal exactly when the other three players hold the
    same cards above it (level order: a wild is a level card, the jokers
    above), and positions with equal keys have one value (brute force)."""
    from guandan._solve import _rank_free_key
    rng = random.Random(39)
    joins = splits = 0
    for _ in range(150):
        level = rng.choice(RANKS)
        lo = rng.randrange(0, 10)
        pool = [c for c in DECK if c[1] in RANKS[lo:lo + 4]] + ["H" + level, "SB", "HR"]
        rng.shuffle(pool)
        hands = deal(pool, [rng.randint(1, 3) for _ in range(4)])
        t = rng.randrange(4)
        held = Counter(c for h in hands for c in h)
        tops = [c for c in sorted(set(DECK)) if held[c] < 2]
        memo = {}                       # one brute-force memo for the deal: the tricks' ends meet
        groups = {}
        for c in rng.sample(tops, 8):
            g = Game.from_position(hands, level=level, to_act=(t + 1) % 4,
                                   trick=[(t, ["Single", c[1], [c]])])
            key = _rank_free_key(g.native_state())
            assert key is not None
            v = level_value(c, level)
            beaten_by = tuple(sorted((s, x) for s in range(4) if s != t
                                     for x in hands[s] if level_value(x, level) > v))
            groups.setdefault(key, []).append((beaten_by, g))
        for key, members in groups.items():
            assert len({b for b, _ in members}) == 1, [g.position for _, g in members]
            if len(members) > 1:
                joins += len(members) - 1
                values = {minimax(g, memo) for _, g in members}
                assert len(values) == 1, [g.position for _, g in members]
        split = [members[0][0] for members in groups.values()]
        assert len(set(split)) == len(split)
        splits += len(split) - 1
    assert joins > 100 and splits > 100


# -- the search player -----------------------------------------------------------

def test_search_decisions_deterministic():
    g = played_game(41, 25)
    a, b = g.copy(), g.copy()
    ma = [str(a.play_policy("search:rollouts=60")) for _ in range(6)]
    mb = [str(b.play_policy("search:rollouts=60")) for _ in range(6)]
    assert ma == mb
    e1 = search.explain(g, rollouts=100, seed=5)
    e2 = search.explain(g, rollouts=100, seed=5)
    assert e1.to_dict()["candidates"] == e2.to_dict()["candidates"]


def test_search_policy_callable_deterministic():
    g = played_game(42, 20)
    p1 = get_policy("search:rollouts=80", seed=3)
    p2 = get_policy("search:rollouts=80", seed=3)
    a, b = g.copy(), g.copy()
    for _ in range(5):
        ma = a.play_policy(p1)
        mb = b.play_policy(p2)
        assert ma == mb


def test_explain_reports_candidates():
    g = played_game(43, 44)
    while len(g.legal_moves()) < 8:
        g.play_policy("greedy")
    e = search.explain(g, rollouts=200, k=6, seed=2, margin=0)
    assert e.seat == g.to_act and e.move in g.legal_moves()
    assert 1 <= len(e.candidates) <= 6 and sum(c.chosen for c in e.candidates) == 1
    best = max((c for c in e.candidates if c.n), key=lambda c: c.value)
    assert best.chosen and len(e.candidates) == 6
    assert all(c.n == e.worlds for c in e.candidates) and e.worlds * 6 >= 200
    assert e.rollouts + e.solved <= sum(c.n for c in e.candidates)
    assert str(e).startswith(f"seat {g.to_act}")


def test_margin_keeps_the_rollout_policys_choice_unless_clearly_better():
    """Candidate 0 is the rollout policy's (the expert's) own choice; the
    search leaves it only for a candidate whose mean beats it by more than
    ``margin`` paired standard errors."""
    from guandan.policies import explain as expert_explain
    moved = kept = 0
    for seed in range(60, 72):
        g = played_game(seed, 30)
        if len(g.legal_moves()) < 3:
            continue
        expert_move, _ = expert_explain(g)
        e0 = search.explain(g, rollouts=120, k=8, seed=1, margin=0)
        assert e0.candidates[0].move == expert_move
        best = max((c for c in e0.candidates if c.n), key=lambda c: c.value)
        assert e0.move == best.move
        e_inf = search.explain(g, rollouts=120, k=8, seed=1, margin=100)
        assert e_inf.move == expert_move
        e1 = search.explain(g, rollouts=120, k=8, seed=1)        # default margin 1
        assert e1.move in (expert_move, best.move)
        moved += e1.move != expert_move
        kept += e0.move != expert_move and e1.move == expert_move
    assert kept > 0                  # the guard did hold some noisy best means back
    with pytest.raises(GuandanError):
        search.SearchConfig(margin=-1)


def test_cpu_time_budget():
    g = played_game(43, 44)
    while len(g.legal_moves()) < 4:
        g.play_policy("greedy")
    e = search.explain(g, cpu_ms=30, seed=1)
    assert e.worlds >= 1 and e.move in g.legal_moves()
    assert g.copy().play_policy("search:cpu_ms=5") in g.legal_moves()
    for bad in ({"cpu_ms": 0}, {"cpu_ms": 5, "ms": 5}, {"cpu_ms": 5, "rollouts": 9}):
        with pytest.raises(GuandanError):
            search.SearchConfig(**bad)


def test_search_tribute_and_return_are_the_experts():
    g = Game(seed=8)
    while g.round_index == 0:
        g.play_policy("greedy")
    steps = 0
    while g.phase != "play":
        steps += 1
        from guandan.policies import explain as expert_explain
        want, _ = expert_explain(g)
        got = g.copy().play_policy("search:rollouts=50")
        assert got == want
        obs = g.observation(g.to_act)
        assert get_policy("search:rollouts=50", seed=1)(obs, g.legal_moves()) == want
        g.play(want)
    assert steps >= 2                # a tribute and a return at least


def test_search_uses_solver_in_endgames():
    rng = random.Random(44)
    g = random_endgame(rng, max_cards=3)
    while len(g.legal_moves()) < 2:
        g = random_endgame(rng, max_cards=3)
    e = search.explain(g, rollouts=40, seed=1, solve=24)
    assert e.rollouts == 0 and e.worlds >= 1


def test_search_values_are_exact_in_a_known_world():
    """When the unseen cards can only be split one way, the search's values
    with the solver are the exact values of the candidates."""
    # seats 1..3 hold one card each: {DA, DA, C9}, so three worlds (C9 with
    # seat 1, 2 or 3), equally likely (two physical deals each)
    worlds = []
    for s in (1, 2, 3):
        hands = [["S3", "S4", "H9"], ["DA"], ["DA"], ["DA"]]
        hands[s] = ["C9"]
        worlds.append(Game.from_position(hands, level="2", to_act=0))
    exact = {}
    for w in worlds:
        for m, lo, hi in search.solve(w, per_move=True).moves:
            exact.setdefault(str(m), []).append(lo)
    e = search.explain(worlds[0], rollouts=400, seed=0, solve=24, k=10)
    assert e.solved > 0
    for c in e.candidates:
        mean = sum(exact[str(c.move)]) / 3
        assert abs(c.value - mean) <= 4 * (c.stderr if c.stderr == c.stderr else 0) + 0.25


def test_search_policy_names():
    assert "search" in policy_names()
    c1 = native_code("search:rollouts=30")
    assert c1 == native_code("search:rollouts=30")
    assert c1 >= 4                      # after the built-in policies' codes
    with pytest.raises(GuandanError):
        native_code("search:bogus=1")
    with pytest.raises(GuandanError):
        search.SearchConfig(rollouts=10, ms=5)
    with pytest.raises(GuandanError):
        search.SearchConfig(rollout="search").native


def test_many_search_configurations_at_once():
    """Every distinct search configuration is a native policy of its own (a
    context per entry, no fixed slots): more than four at once, each
    deciding with its own budget, the same code for the same configuration."""
    specs = [f"search:rollouts={n},k=3" for n in range(11, 19)]
    codes = [native_code(s) for s in specs]
    assert len(set(codes)) == len(specs) and codes == [native_code(s) for s in specs]
    g = Game(seed=7)
    for _ in range(12):
        g.play_policy("greedy")
    for c in codes:
        assert g._core.pick(c) in [m.words for m in g.legal_moves()]
    rows = simulate(2, policies=tuple(specs[:4]), rules=Rules(max_rounds=1), seed=1, workers=1)
    assert len(rows) == 2
    # hundreds at once: codes past the int8 range run in the simulator too
    many = [native_code(f"search:rollouts={n},k=2") for n in range(100, 400)]
    assert len(set(many)) == 300 and max(many) > 127
    rows = simulate(1, policies=("search:rollouts=399,k=2", "greedy", "greedy", "greedy"),
                    rules=Rules(max_rounds=1), seed=2, workers=1)
    assert len(rows) == 1


def test_native_search_in_simulate_is_deterministic():
    rules = Rules(max_rounds=1)
    pol = ("search:rollouts=30", "greedy", "search:rollouts=30", "greedy")
    a = simulate(6, policies=pol, rules=rules, seed=3, workers=1)
    b = simulate(6, policies=pol, rules=rules, seed=3, workers=1)
    assert (a.rows["order"] == b.rows["order"]).all()
    assert len(a) == 6


def test_nothing_hidden_is_used():
    """Two positions that differ only in the other seats' hands give the
    seat the same worlds and the same search decisions."""
    rng = random.Random(51)
    for _ in range(5):
        deck = DECK[:]
        rng.shuffle(deck)
        sizes = [rng.randint(4, 12) for _ in range(4)]
        hands = deal(deck, sizes)
        seat = rng.randrange(4)
        others = [c for s in range(4) if s != seat for c in hands[s]]
        rng.shuffle(others)
        hands2, k = [], 0
        for s in range(4):
            if s == seat:
                hands2.append(hands[s])
            else:
                hands2.append(others[k:k + sizes[s]])
                k += sizes[s]
        g1 = Game.from_position(hands, level="7", to_act=seat, seed=1)
        g2 = Game.from_position(hands2, level="7", to_act=seat, seed=1)
        assert [w.position for w in search.sample_worlds(g1, seat, 10, 3)] == \
            [w.position for w in search.sample_worlds(g2, seat, 10, 3)]
        e1 = search.explain(g1, rollouts=60, seed=4)
        e2 = search.explain(g2, rollouts=60, seed=4)
        assert e1.to_dict()["candidates"] == e2.to_dict()["candidates"]
        assert search.rollouts(g1, "random", 30, 5, seat=seat).orders.tolist() == \
            search.rollouts(g2, "random", 30, 5, seat=seat).orders.tolist()


def test_state_bytes_from_outside_are_range_checked():
    """The one loader of native state bytes (GameCore.load_state_bytes)
    checks the fields native code indexes or shifts by: bytes out of range
    raise GuandanError, and random corruptions never crash the loader or
    the native tools that take the loaded core (the solver, the sampler)."""
    from guandan import _search, _solve
    g = Game(seed=3)
    for _ in range(30):
        g.play_policy("greedy")
    st = g.native_state().state_bytes()

    def core_of(b):
        core = Game()._core
        core.load_state_bytes(b)
        return core

    loaders = [lambda b: _solve.solve(core_of(b), _solve.SolveOptions(max_nodes=500)),
               lambda b: _solve._rank_free_key(core_of(b)),
               lambda b: _search.InfoSet.from_state(core_of(b), 0),
               lambda b: _search.InfoSet.from_view(_engine.NativeView.of(core_of(b), 1)), core_of,
               lambda b: Game.from_native_state(b, 1)]
    for load in loaders:
        with pytest.raises(GuandanError):
            load(b"\xff" * len(st))
        with pytest.raises(GuandanError):
            load(st[:-1])
        load(st)
    rng = random.Random(5)
    refused = 0
    for _ in range(300):
        b = bytearray(st)
        for _ in range(rng.randint(1, 4)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        for load in loaders:
            try:
                load(bytes(b))
            except GuandanError:
                refused += 1
    assert refused > 0


def test_cands_1_takes_each_types_moves_by_the_experts_gain():
    """``cands=1``: after the rollout policy's choice, the moves that go out
    and the pass, each move type (bombs one type) gives its moves by the
    expert's gain (split feature 0), best first: no move of a type left out
    has a higher gain than one taken after candidate 0. ``cands=0`` takes
    the lowest first, so the two differ on some of these positions; a bad
    value is refused."""
    from guandan.policies import SPLIT_FEATURES, split_features
    gi = SPLIT_FEATURES.index("gain")
    differ = checked = 0
    for seed in range(20):
        g = played_game(300 + seed, 4 * (seed % 5), "expert")
        moves = g.legal_moves()
        if len(moves) <= 12:
            continue
        f = split_features(g, moves)
        gain = {str(m): f[i, gi] for i, m in enumerate(moves)}
        group = {str(m): ("bomb" if m.is_bomb else m.type) for m in moves}
        kind = {str(m): (m.type, m.rank, len(m.cards)) for m in moves}   # suit variants alike
        e = search.explain(g, rollouts=40, seed=1, k=10, cands=1)
        cands = [str(c.move) for c in e.candidates]
        special = {cands[0]} | {str(m) for m in moves if m.is_pass or len(m.cards) == len(g.hands[g.to_act])}
        for c in cands[1:]:
            if c in special:
                continue
            seen = {kind[x] for x in cands}
            left = [str(m) for m in moves if group[str(m)] == group[c] and kind[str(m)] not in seen]
            assert all(gain[x] <= gain[c] for x in left), (c, gain[c], max(gain[x] for x in left))
            checked += 1
        e0 = search.explain(g, rollouts=40, seed=1, k=10, cands=0)
        differ += [str(c.move) for c in e0.candidates] != cands
    assert checked >= 30 and differ >= 3
    with pytest.raises(GuandanError, match="cands"):
        search.SearchConfig(cands=2)
    assert search.SearchConfig.from_spec("search:cands=0").cands == 0
    assert search.SearchConfig().cands == 1 == search.SearchConfig.from_spec("search").cands   # the default
