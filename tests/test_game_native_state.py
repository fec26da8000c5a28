"""Game's native-state door: Game.native_state() / Game.from_native_state()
round-trip, and hostile bytes or a hostile trick are refused with a
GuandanError (never a crash, never a later TypeError/OverflowError)."""

import random

import pytest

from guandan import Game, GuandanError, Rules, search
from guandan.state import TrickPlay

# the native State's int32 action counter (see _engine.pxd); a test of the
# loader's checks, not an interface
_DECISIONS = slice(284, 288)


def _mid_trick(seed=3, rules=None):
    g = Game(seed=seed, rules=rules)
    while not (g.phase.name == "PLAY" and g.top is not None and len(g.trick) >= 2):
        g.play_policy("greedy")
    return g


def test_round_trip_keeps_the_position_and_the_trick():
    g = _mid_trick()
    h = Game.from_native_state(g.native_state(), 5, rules=g.rules, trick=g.trick)
    assert h.position == g.position and h.trick == g.trick and list(h.legal_moves()) == list(g.legal_moves())


def test_a_trick_that_is_not_plays_is_refused():
    g = _mid_trick()
    s = g.native_state()
    for bad in ([1, 2], [(0, "x")], "ab", [(9, g.trick[-1].move)], [(0, g.trick[-1].move, 1)]):
        with pytest.raises(GuandanError):
            Game.from_native_state(s, 0, rules=g.rules, trick=bad)


def test_a_trick_that_does_not_end_in_the_states_top_play_is_refused():
    g = _mid_trick()
    s = g.native_state()
    other = [m for m in g.legal_moves() if not m.is_pass][0]
    with pytest.raises(GuandanError, match="trick"):
        Game.from_native_state(s, 0, rules=g.rules, trick=[TrickPlay(g.to_act, other)])
    with pytest.raises(GuandanError, match="trick"):
        Game.from_native_state(s, 0, rules=g.rules, trick=[(g.top.seat ^ 1, g.top.move)])
    h = Game(seed=4)
    while h.phase.name != "PLAY" or h.top is not None:
        h.play_policy("greedy")
    with pytest.raises(GuandanError, match="trick"):       # nobody has played in this trick
        Game.from_native_state(h.native_state(), 0, trick=g.trick)


def test_a_negative_action_count_is_refused():
    g = _mid_trick()
    b = bytearray(g.native_state().state_bytes())
    b[_DECISIONS] = (-5).to_bytes(4, "little", signed=True)
    with pytest.raises(GuandanError):
        Game.from_native_state(bytes(b), 0, rules=g.rules)


def test_mutated_bytes_are_refused_or_give_a_game_that_plays():
    rng = random.Random(7)
    snaps = [_mid_trick(s, Rules.contest() if s % 2 else None) for s in range(3)]
    for _ in range(300):
        g = rng.choice(snaps)
        b = bytearray(g.native_state().state_bytes())
        k = rng.randrange(3)
        if k == 0:
            b = b[:rng.randrange(len(b))]
        elif k == 1:
            for _ in range(rng.randrange(1, 4)):
                b[240 + rng.randrange(len(b) - 240)] = rng.choice([0, 1, 3, 12, 0x7f, 0x80, 0xff])
        else:
            b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        try:
            h = Game.from_native_state(bytes(b), 0, rules=g.rules)
        except GuandanError:
            continue
        try:
            for _ in range(30):
                if h.is_over:
                    break
                h.observation(h.to_act), h.position, h.trick
                if h.phase.name == "PLAY" and rng.random() < 0.2:
                    search.explain(h, rollouts=8)
                h.play_policy(rng.choice(["random", "greedy", "expert"]))
        except GuandanError:
            pass


def test_the_search_tools_read_one_snapshot_while_another_thread_plays():
    """sample_worlds / rollouts / solve / explain read the state, this
    round's plays and the trick under the game's lock: a play by another
    thread never comes between them (the only refusals are of the phase)."""
    import threading

    torn = []
    for seed in range(6):
        g = Game(seed=seed)
        while g.phase.name != "PLAY":
            g.play_policy("random")
        stop = threading.Event()

        def player():
            while not stop.is_set() and not g.is_over:
                g.play_policy("random")

        t = threading.Thread(target=player)
        t.start()
        try:
            for i in range(150):
                if g.is_over:
                    break
                try:
                    [lambda: search.sample_worlds(g, g.to_act, 1, seed=1),
                     lambda: search.rollouts(g, "greedy", 1, seat=i % 4),
                     lambda: search.explain(g, rollouts=4, k=2, solve=0)][i % 3]()
                except GuandanError as e:
                    if "phase" not in str(e) and "game is over" not in str(e):
                        torn.append(str(e))
        finally:
            stop.set()
            t.join(30)
    assert not torn, torn[:3]


def test_a_state_under_other_rules_is_refused():
    """The state carries its game's rules; a game started from it says the
    rules it is played under, or it is refused."""
    g = Game(rules=Rules.contest(), seed=3)
    for _ in range(30):
        g.play_policy("greedy")
    with pytest.raises(GuandanError, match="other rules"):
        Game.from_native_state(g.native_state(), 5)
    with pytest.raises(GuandanError, match="other rules"):
        Game.from_native_state(g.native_state().state_bytes(), 5)
    w = Game.from_native_state(g.native_state(), 5, rules=g.rules)
    assert w.rules == g.rules and w.observation(0)["rules"] == g.observation(0)["rules"]
