"""The search's styles read from this round's plays (``model=2``): each other
seat is rolled out in the member of the rollout family that would have
played the fewest of its actions otherwise, in worlds drawn by the pass
model. Checked: the family fits the pool's styles (with the real hands,
each pool bot's actions are explained best by the member built for its
kind of play), the search reads a hoarder as a keeper and a rusher as an
eager follower within one round, mostly leaves an expert alone, decides
the same on any number of threads. Untrusted trails reach the reading in
the hypothesis test of test_search_policy_inference.py (model=1 and 2),
which the sanitizer build runs."""

from collections import Counter

import pytest

from guandan import Game, GuandanError, search
from guandan._engine import NativeView, choose_from_view
from guandan._expert import STYLE_CODES
from guandan.policies import native_code, observation_fields
from guandan.state import Phase

FAMILY = {"expert": native_code("expert"),
          **{k: v for k, v in STYLE_CODES.items() if k.startswith("fam-")}}


def _first_rounds(opp, games, seed0):
    """First-round positions of ``expert`` (seats 0, 2) against ``opp``
    (seats 1, 3): (game, the move the seat to act plays)."""
    for gi in range(games):
        g = Game(seed=seed0 + gi)
        while not g.is_over and g.round_index == 0:
            s = g.to_act
            mv = g.choose("expert" if s % 2 == 0 else opp)
            yield g, mv
            g.play(mv)


@pytest.mark.parametrize("opp,member", [("hoarder", "fam-keep"), ("rusher", "fam-eager"),
                                        ("bomber", "fam-bomb-early"), ("expert", "expert")])
def test_the_family_member_built_for_a_style_explains_it_best(opp, member):
    """With the real hands, the share of a pool bot's choices (positions with
    more than one legal move) each family member would have made: the member
    built for that kind of play has the highest."""
    hits, n = Counter(), 0
    for g, mv in _first_rounds(opp, 8, 5000):
        s = g.to_act
        if s % 2 == 1 and g.phase is Phase.PLAY:
            legal = g.legal_moves()
            if len(legal) > 1:
                v = NativeView(**observation_fields(g.observation(s), g.rules))
                n += 1
                for name, code in FAMILY.items():
                    hits[name] += legal[choose_from_view(code, legal, v, 1)] == mv
    assert n > 150
    assert max(hits, key=lambda k: hits[k]) == member, hits
    if member != "expert":
        assert hits[member] > hits["expert"] + 0.05 * n, hits


def _styles_read(opp, games, seed0):
    """At seat 0's decisions after 20 plays of the first round: the rollout
    styles model=2 gives the two opponent seats."""
    opp_styles = Counter()
    for g, _ in _first_rounds(opp, games, seed0):
        if (g.to_act == 0 and g.phase is Phase.PLAY and len(g.round_plays()) >= 20
                and g.decisions % 3 == 0 and len(g.legal_moves()) > 1):
            r = search.explain(g, rollouts=40, seed=3, model=2)
            opp_styles.update([r.rollout_policies[1], r.rollout_policies[3]])
    return opp_styles


def test_a_hoarder_is_read_as_a_keeper_within_the_round():
    opp = _styles_read("hoarder", 6, 7000)
    n = sum(opp.values())
    assert n >= 20
    assert opp["fam-keep"] > 0.5 * n, opp


def test_a_rusher_is_read_as_an_eager_follower_within_the_round():
    opp = _styles_read("rusher", 6, 7000)
    n = sum(opp.values())
    assert n >= 20
    assert opp["fam-eager"] > 0.3 * n and opp["fam-eager"] > opp["fam-keep"], opp


def test_an_expert_is_mostly_left_alone():
    """Against the expert, model=2 changes a seat's style from the one its
    habits gave in a minority of decisions."""
    changed = total = 0
    for g, _ in _first_rounds("expert", 6, 7000):
        if (g.to_act == 0 and g.phase is Phase.PLAY and len(g.round_plays()) >= 20
                and g.decisions % 3 == 0 and len(g.legal_moves()) > 1):
            two = search.explain(g, rollouts=40, seed=3, model=2).rollout_policies
            one = search.explain(g, rollouts=40, seed=3, model=1).rollout_policies
            changed += sum(a != b for a, b in zip(one, two))
            total += 3
    assert total >= 30 and changed <= 0.25 * total


@pytest.mark.parametrize("threads", [2, 3])
def test_threads_give_the_same_decision_with_styles_read(threads):
    for g, _ in _first_rounds("hoarder", 2, 7003):
        if g.to_act == 0 and g.phase is Phase.PLAY and len(g.round_plays()) >= 24 \
                and len(g.legal_moves()) > 1:
            one = search.explain(g, rollouts=300, seed=9, model=2)
            if len(one.candidates) > 1 and one.worlds > 0 and one.rollout_policies[1] != "expert":
                break
    many = search.explain(g, rollouts=300, seed=9, threads=threads, model=2)
    assert many.rollout_policies == one.rollout_policies
    assert many.move == one.move and many.worlds == one.worlds
    assert [(c.value, c.n) for c in many.candidates] == [(c.value, c.n) for c in one.candidates]


def test_model_options_are_checked_and_pickle():
    for opts in ("model=3", "model=-1"):
        with pytest.raises(GuandanError):
            search.SearchConfig.from_spec("search:" + opts)
    c = search.SearchConfig.from_spec("search:model=2,rollouts=50")
    assert c.model == 2
    import pickle
    assert pickle.loads(pickle.dumps(c.native)).__reduce__() == c.native.__reduce__()


def test_dice_give_the_same_player_other_random_choices():
    """``dice=0`` is the default stream; other dice draw other worlds (so
    other values) and are as deterministic; the option is range-checked and
    survives pickling (the arena's workers)."""
    g = Game(seed=21)
    while len(g.legal_moves()) < 3 or g.phase is not Phase.PLAY or len(g.round_plays()) < 12:
        g.play(g.choose("expert"))
    base = search.explain(g, rollouts=200, seed=5)
    assert [(c.value, c.n) for c in search.explain(g, rollouts=200, seed=5, dice=0).candidates] == \
        [(c.value, c.n) for c in base.candidates]
    one = search.explain(g, rollouts=200, seed=5, dice=1)
    assert [(c.value, c.n) for c in search.explain(g, rollouts=200, seed=5, dice=1).candidates] == \
        [(c.value, c.n) for c in one.candidates]
    assert [c.value for c in one.candidates] != [c.value for c in base.candidates]
    for opts in ("dice=-1", "dice=1000001", "dice=x"):
        with pytest.raises(GuandanError):
            search.SearchConfig.from_spec("search:" + opts)
    import pickle
    c = search.SearchConfig.from_spec("search:dice=7,rollouts=50")
    assert c.dice == 7
    assert pickle.loads(pickle.dumps(c.native)).__reduce__() == c.native.__reduce__()
