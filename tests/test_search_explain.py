"""What search.explain says about a decision it did not have to search."""

from guandan import Game, Phase, search


def test_one_legal_move_says_so():
    g = Game.from_position([["S3"], ["HA"], ["D5"], ["C9"]], level="2", to_act=0)
    r = search.explain(g, rollouts=50)
    assert r.legal == 1 and str(r) == "seat 0: Single 3 S3  (the only legal move: nothing to search)"
    assert "nan" not in str(r)


def test_tribute_says_whose_choice_it_is():
    g = Game(seed=2)
    while g.phase is not Phase.TRIBUTE and not g.is_over:
        g.play_policy("greedy")
    assert g.phase is Phase.TRIBUTE
    r = search.explain(g, rollouts=50)
    assert str(r).endswith("(tribute: the rollout policy's (expert) choice)") and "nan" not in str(r)
    assert r.move in g.legal_moves()


def test_a_searched_decision_lists_its_candidates():
    g = Game(seed=4)
    for _ in range(40):
        g.play_policy("greedy")
    r = search.explain(g, rollouts=100)
    if r.legal > 1:
        lines = str(r).splitlines()
        assert "candidates" in lines[0] and len(lines) == len(r.candidates) + 1 + (r.weighed > 0)
