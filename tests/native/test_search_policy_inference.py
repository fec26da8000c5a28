"""The search's policy inference (``infer=2``): each world weighed by how many
of the other seats' actions this round their models would not have played
in it. Checked: the rebuilt positions are right (the real hands of an
expert game explain every expert action), the sampler draws what
importance resampling over those likelihoods gives, the worlds move toward
the real hands, threads change nothing, and a trail from outside cannot
mislead the native code."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

from fuzz_helpers import fuzz_settings
from guandan import Game, search
from guandan._search import InfoSet
from guandan.state import Phase


def _expert_positions(n_games, stride=37, first=20):
    """Play-phase positions of four-expert games, across rounds (tribute
    rounds, players gone out, the partner's lead)."""
    for seed in range(n_games):
        g = Game(seed=seed)
        k = 0
        while not g.is_over and g.round_index < 4:
            if g.phase is Phase.PLAY and k >= first and k % stride == 0:
                yield g
            g.play(g.choose("expert"))
            k += 1


def _true_hands(g):
    return np.array([[g.hands[s].masks for s in range(4)]], dtype=np.uint64)


def test_the_real_hands_explain_every_expert_action():
    """Rebuilt backwards from the real hands, every position of this round
    before an action of another seat gives the expert's own move: zero
    mismatches, over thousands of actions. Random worlds do not."""
    asked = positions = random_explained = 0
    for g in _expert_positions(12):
        core = g.native_state(history=True)
        info = search.info_set(g, g.to_act)
        ll, ev = info.log_likelihoods(_true_hands(g), core, infer=2, peps=0.5)
        assert ll[0] == 0.0, (g.seed, g.decisions)
        asked += int(ev[0])
        positions += 1
        uni = info.sample_hands(20, 5)
        ll_u, ev_u = info.log_likelihoods(uni, core, infer=2, peps=0.5)
        random_explained += int((ll_u == 0).sum())
    assert positions >= 40 and asked >= 1000
    assert random_explained < 0.2 * 20 * positions


def _position(seed=11, steps=40):
    g = Game(seed=seed)
    while g.phase is not Phase.PLAY:
        g.play(g.choose("expert"))
    for _ in range(steps):
        g.play(g.choose("expert"))
    assert g.phase is Phase.PLAY and g.round_index == 0
    return g


def test_worlds_by_policy_likelihood_against_importance_weights():
    """The share of drawn worlds in which seat 1 holds a given card is the
    importance-resampling expectation over uniform worlds in batches of K
    with the likelihoods ``log_likelihoods(infer=2)`` gives (computed here
    from those weights, independently of the sampler; the sampler's cut of
    worlds far behind the best moves a weight by at most peps**4 of the
    best's), and differs clearly from the uniform share."""
    g = _position()
    core = g.native_state(history=True)
    seat = g.to_act
    info = search.info_set(g, seat)
    others = [s for s in range(4) if s != seat]
    truth = [g.hands[s].masks for s in range(4)]
    K, batches, n = 8, 1500, 1500
    uni = info.sample_hands(K * batches, 21)
    ll, ev = info.log_likelihoods(uni, core, infer=2, peps=0.2)
    assert ev.max() >= 8
    # the feature: how many of the other seats' real cards a world gives them
    def right(h):
        return np.array([sum(bin(int(x[s][c]) & truth[s][c]).count("1") for s in others for c in (0, 1))
                         for x in h], dtype=float)
    x = right(uni).reshape(batches, K)
    w = np.exp(ll).reshape(batches, K)
    share = (w * x).sum(axis=1) / w.sum(axis=1)
    expect, se_e = float(share.mean()), float(share.std() / np.sqrt(batches))
    hands = info.draw_hands(n, 22, core, proposals=K, infer=2, peps=0.2)
    drawn = right(hands)
    got, se_d = float(drawn.mean()), float(drawn.std() / np.sqrt(n))
    assert abs(got - expect) < 4 * np.hypot(se_e, se_d) + 0.05
    # the drawn worlds explain the plays far better than uniform ones
    mis_uniform = ll / np.log(0.2)
    mis_drawn = info.log_likelihoods(hands, core, infer=2, peps=0.2)[0] / np.log(0.2)
    assert mis_drawn.mean() < mis_uniform.mean() - 1.0
    assert mis_drawn.mean() < float(np.mean(np.min(mis_uniform.reshape(batches, K), axis=1))) + 0.5


def test_policy_worlds_place_the_hidden_cards_better_than_uniform_and_the_pass_model():
    gains_policy, gains_pass = [], []
    for g in _expert_positions(6, stride=29):
        if len(g.round_plays()) <= 8:
            continue
        core = g.native_state(history=True)
        seat = g.to_act
        info = search.info_set(g, seat)
        true = _true_hands(g)[0]
        others = [s for s in range(4) if s != seat]
        hidden = sum(len(g.hands[s]) for s in others)

        def placed(h):
            return sum(bin(int(x[s][c]) & int(true[s][c])).count("1")
                       for x in h for s in others for c in (0, 1)) / (len(h) * hidden)
        u = placed(info.draw_hands(60, 3, core, proposals=1))
        gains_pass.append(placed(info.draw_hands(60, 3, core, proposals=8)) - u)
        gains_policy.append(placed(info.draw_hands(60, 3, core, proposals=8, infer=2)) - u)
    assert len(gains_policy) >= 15
    assert np.mean(gains_policy) > 0.01
    assert np.mean(gains_policy) > np.mean(gains_pass)


@pytest.mark.parametrize("threads", [2, 3])
def test_threads_give_the_same_decision_with_policy_inference(threads):
    g = _position(seed=5, steps=30)
    one = search.explain(g, rollouts=300, seed=9, infer=2)
    many = search.explain(g, rollouts=300, seed=9, threads=threads, infer=2)
    assert one.weighed == one.worlds > 0
    assert many.move == one.move and many.worlds == one.worlds
    assert [(c.value, c.n) for c in many.candidates] == [(c.value, c.n) for c in one.candidates]


def test_options_are_checked():
    from guandan import GuandanError
    for opts in ("infer=3", "peps=0", "peps=1.5", "pdepth=-1", "pdepth=481"):
        with pytest.raises(GuandanError):
            search.SearchConfig.from_spec("search:" + opts)
    c = search.SearchConfig.from_spec("search:infer=2,peps=0.3,pdepth=12,rollouts=50")
    assert (c.infer, c.peps, c.pdepth) == (2, 0.3, 12)
    import pickle
    assert pickle.loads(pickle.dumps(c.native)).__reduce__() == c.native.__reduce__()


def test_a_trail_from_outside_cannot_reach_the_expert_malformed():
    """Play words from an observation (NativeView) whose keys are out of
    range, cards no hand could hold, or plays of more cards than a hand: the
    policy likelihood skips or stops there and the search decides."""
    from guandan._engine import NativeView as NV
    from guandan.policies import observation_fields
    g = _position(seed=7, steps=30)
    seat = g.to_act
    base = observation_fields(g.observation(seat), g.rules)
    cfg = search.SearchConfig(rollouts=100, infer=2).native
    variants = [
        [(s, lo, hi | (31 << 56)) if lo else (s, lo, hi) for s, lo, hi in base["plays"]],
        [(s, lo | (9 << 56) if lo else lo, hi) for s, lo, hi in base["plays"]],
    ]
    for plays in variants:
        f = dict(base)
        f["plays"] = plays
        try:
            v = NV(**f)
        except Exception as e:
            assert type(e).__name__ == "GuandanError"
            continue
        info = InfoSet.from_view(v)
        raw = info.search(cfg, 3, None, v)
        assert 0 <= raw["choice"]
    # hands from outside that are not hands: no evidence, no crash
    core = g.native_state(history=True)
    info = search.info_set(g, seat)
    rng = np.random.default_rng(5)
    junk = rng.integers(0, 2 ** 63, size=(100, 4, 2), dtype=np.uint64) * np.uint64(2)
    ll, ev = info.log_likelihoods(junk, core, infer=2)
    assert np.isfinite(ll).all() and (ev >= 0).all()


_WORD = st.one_of(st.integers(0, 2 ** 64 - 1), st.integers(0, 2 ** 54 - 1))


@fuzz_settings(0.5)
@given(seed=st.integers(0, 50), steps=st.integers(5, 60), data=st.data())
def test_hostile_trails_reach_the_policy_likelihood_harmlessly(seed, steps, data):
    """An observation's plays mutated at random (seats, cards, types and
    keys, entries dropped or repeated): the view is refused with a
    GuandanError, or the search with policy inference (and the styles read
    from the plays, model=2) decides a legal index (the sanitizer build runs
    this)."""
    from guandan import GuandanError
    from guandan._engine import NativeView as NV
    from guandan.policies import observation_fields
    g = Game(seed=seed)
    for _ in range(steps):
        if g.is_over:
            break
        g.play(g.choose("expert"))
    if g.phase is not Phase.PLAY:
        return
    seat = g.to_act
    f = observation_fields(g.observation(seat), g.rules)
    plays = list(f["plays"])
    for _ in range(data.draw(st.integers(0, 4))):
        if not plays:
            break
        i = data.draw(st.integers(0, len(plays) - 1))
        s, lo, hi = plays[i]
        kind = data.draw(st.integers(0, 4))
        if kind == 0:
            plays[i] = (data.draw(st.integers(-1, 5)), lo, hi)
        elif kind == 1:
            plays[i] = (s, data.draw(_WORD), hi)
        elif kind == 2:
            plays[i] = (s, lo, data.draw(_WORD))
        elif kind == 3:
            del plays[i]
        else:
            plays.insert(i, plays[i])
    f["plays"] = plays
    try:
        v = NV(**f)
    except (GuandanError, ValueError, TypeError, OverflowError):
        return
    try:
        info = InfoSet.from_view(v)
    except GuandanError:
        return
    cfg = search.SearchConfig(rollouts=40, infer=2, k=4, model=data.draw(st.sampled_from([1, 2]))).native
    raw = info.search(cfg, data.draw(st.integers(0, 2 ** 32)), None, v)
    assert raw["choice"] >= 0
