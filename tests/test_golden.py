"""Golden playthroughs: the same seeded games traced through Game, VecGame
and the PettingZoo env must equal the checked-in traces (tests/golden.py
says how they are made)."""

import pytest

import golden  # tests/golden.py (on sys.path through conftest.py)


@pytest.fixture(scope="module", params=golden.SEEDS)
def expected(request):
    with open(golden.path(request.param)) as f:
        return request.param, f.read().splitlines()


@pytest.mark.parametrize("interface", ["game", "vec", "env"])
def test_playthrough_matches_golden(expected, interface):
    seed, want = expected
    got = getattr(golden, f"trace_{interface}")(seed)
    for i, (a, b) in enumerate(zip(got, want)):
        assert a == b, f"{interface}, seed {seed}, line {i}"
    assert len(got) == len(want)


def test_server_playthrough_matches_golden():
    """The contest server sends the same game, action lists in the contest
    order, as Game does: both equal the checked-in trace."""
    with open(golden.SERVER_PATH) as f:
        want = f.read().splitlines()
    assert golden.server_reference() == want
    got = golden.trace_server()
    for i, (a, b) in enumerate(zip(got, want)):
        assert a == b, f"server, line {i}"
    assert len(got) == len(want)
