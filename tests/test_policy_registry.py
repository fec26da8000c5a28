"""The registry of policy names and policies as objects that decide from a
Game: register/unregister, specs with options, native codes, decide(game)
and explain(game) for every built-in policy."""

import pytest

from guandan import Game, GuandanError, Rules, get_policy, search
from guandan.policies import (Explanation, NativePolicy, RandomPolicy, check_policy, explain, native_code,
                              parse_policy, policy_names, register, unregister)


class LowestFirst:
    """A Python policy: the first legal move, from a Game or an observation."""

    def __init__(self, seed=None, **options):
        self.seed, self.options, self.calls = seed, options, 0

    def decide(self, game):
        self.calls += 1
        return game.legal_moves()[0]

    def __call__(self, observation, legal_moves):
        return legal_moves[0]


@pytest.fixture
def lowest():
    register("lowest-first", LowestFirst, options=True)
    yield
    unregister("lowest-first")


def test_builtins_are_registered_in_order():
    names = policy_names()
    assert names[:3] == ("random", "greedy", "expert") and "search" in names


def test_a_registered_policy_works_by_name(lowest):
    g = Game(seed=5)
    assert "lowest-first" in policy_names()
    assert g.choose("lowest-first") == g.legal_moves()[0]
    g.play_policy("lowest-first:depth=2")
    p = get_policy("lowest-first:depth=2", seed=9)
    assert isinstance(p, LowestFirst) and p.seed == 9 and p.options == {"depth": "2"}
    assert check_policy("lowest-first:x=1") == "lowest-first:x=1"
    with pytest.raises(GuandanError, match="no native form"):
        native_code("lowest-first")


def test_register_refuses_bad_names_and_duplicates(lowest):
    with pytest.raises(GuandanError, match="already registered"):
        register("lowest-first", LowestFirst)
    register("lowest-first", LowestFirst, replace=True, options=True)
    for bad in ("", "a:b", "a,b", "a b", 3, None):
        with pytest.raises(GuandanError):
            register(bad, LowestFirst)
    with pytest.raises(GuandanError, match="not callable"):
        register("x", 3)
    with pytest.raises(GuandanError, match="not registered"):
        unregister("never-registered")


def test_specs_are_checked():
    with pytest.raises(GuandanError, match="unknown policy 'nobody'"):
        native_code("nobody")
    with pytest.raises(GuandanError, match="takes no options"):
        native_code("greedy:x=1")
    with pytest.raises(GuandanError, match="key=value"):
        parse_policy("search:ms")
    with pytest.raises(GuandanError, match="unknown search option"):
        check_policy("search:bogus=1")
    with pytest.raises(GuandanError):
        Game(seed=1).choose("greedy:x=1")


def test_a_policy_object_decides_from_the_game():
    g = Game(seed=11)
    p = LowestFirst()
    assert g.choose(p) == g.legal_moves()[0] and p.calls == 1


def test_a_policy_object_answering_an_illegal_move_is_refused():
    class Bad:
        def decide(self, game):
            return "Single 3 S3 S3 S3"

    with pytest.raises(GuandanError):
        Game(seed=2).choose(Bad())


def test_native_decide_is_the_games_native_choice():
    for name in ("random", "greedy", "expert"):
        a, b = Game(seed=21), Game(seed=21)
        for _ in range(60):
            if a.is_over:
                break
            m = get_policy(name).decide(a)
            assert m == b.choose(name)
            a.play(m)
            b.play(m)


def test_explain_names_the_rule_and_leaves_the_game_alone():
    g = Game(seed=4)
    for _ in range(20):
        g.play_policy("greedy")
    before = (g.position, g.choose("random"))
    e = get_policy("expert").explain(g)
    assert isinstance(e, Explanation) and e.seat == g.to_act and e.move in g.legal_moves()
    assert (e.move, e.rule) == explain(g)
    for name in ("greedy", "random"):
        e = get_policy(name, seed=1).explain(g)
        assert e.rule == name and e.move in g.legal_moves()
    assert (g.position, g.choose("random")) == before


def test_search_decides_and_explains_from_the_game_under_its_rules():
    g = Game(rules=Rules.contest(), seed=3)
    for _ in range(25):
        g.play_policy("greedy")
    p = get_policy("search:rollouts=40")
    m = p.decide(g)
    assert m in g.legal_moves()
    assert m == g.choose("search:rollouts=40") == search.choose(g, rollouts=40)
    r = p.explain(g)
    assert r.move == m and p.last is r


def test_policy_objects_still_answer_observations():
    g = Game(seed=8)
    obs, legal = g.observation(g.to_act), g.legal_moves()
    for p in (NativePolicy("expert", seed=1), RandomPolicy(seed=1), get_policy("greedy")):
        assert p(obs, legal) in legal


def test_outer_modules_check_specs_with_the_registry(lowest):
    """The table server's --bots and the arena's participants accept what
    check_policy accepts and refuse the rest with its reason; a registered
    Python policy plays the arena as a Python policy, a native name natively."""
    from guandan.arena import arena
    from guandan.arena.participants import Builtin
    from guandan.server import parse_bots

    assert parse_bots("1=lowest-first,3=expert") == {1: "lowest-first", 3: "expert"}
    with pytest.raises(GuandanError, match="bad bot '1=nobody': unknown policy 'nobody'"):
        parse_bots("1=nobody")
    with pytest.raises(GuandanError, match="unknown search option"):
        Builtin("search:bogus=1")
    with pytest.raises(GuandanError, match="takes no options"):
        Builtin("greedy:x=1")
    assert [Builtin(s).native for s in ("greedy", "search", "search:rollouts=1", "lowest-first")] == [
        "greedy", "search", None, None]
    r = arena(["lowest-first", "greedy"], deals=1, seed=1, executor=None, concurrency=1)
    assert r[0].a.name == "lowest-first" and len(r[0].pairs) == 1


def test_a_registered_python_policy_is_checked_like_a_policy_object():
    """A registered name runs through the same checks as the object it names:
    a plain callable factory is called with the observation, an answer is read
    as a Move (an unreadable one refused), a crash is a PolicyError."""
    from guandan.errors import PolicyError

    class Liar:
        def decide(self, game):
            return "Single 3 S3 S3 S3"

    class Boom:
        def decide(self, game):
            return 1 / 0

    register("plain-first", lambda seed=None: (lambda obs, legal: legal[0]))
    register("liar", lambda seed=None: Liar())
    register("boom", lambda seed=None: Boom())
    try:
        g = Game(seed=1)
        assert g.choose("plain-first") == g.legal_moves()[0]
        with pytest.raises(GuandanError):
            g.choose("liar")
        with pytest.raises(PolicyError, match="'boom' raised ZeroDivisionError"):
            g.choose("boom")
        assert g.decisions == 0
    finally:
        for n in ("plain-first", "liar", "boom"):
            unregister(n)


def test_the_shared_decider_follows_a_replaced_registration():
    """decider() never serves an object of a registration replaced meanwhile,
    also when another thread replaces it while the object is being built."""
    import threading

    from guandan.registry import decider

    built = threading.Event()
    release = threading.Event()

    class Slow:
        def __init__(self, seed=None):
            built.set()
            release.wait(5)

        def decide(self, game):
            return game.legal_moves()[0]

    class Fast:
        def __init__(self, seed=None):
            pass

        def decide(self, game):
            return game.legal_moves()[-1]

    register("slowpoke", Slow)
    try:
        t = threading.Thread(target=decider, args=("slowpoke",))
        t.start()
        assert built.wait(5)
        register("slowpoke", Fast, replace=True)
        release.set()
        t.join(5)
        assert isinstance(decider("slowpoke"), Fast)
    finally:
        release.set()
        unregister("slowpoke")


def test_same_seed_same_moves_for_every_builtin_name_also_from_threads():
    """Game.choose(name) with every built-in name and a search spec: the
    same seed gives the same moves, whether the games run one after the
    other or at once in threads (one shared decider per spec)."""
    import threading

    specs = ["random", "greedy", "expert", "search:rollouts=24,solve=0,k=4"]

    def run(seed, out):
        g = Game(seed=seed, rules=Rules.contest())
        moves = []
        for i in range(70):
            if g.is_over:
                break
            moves.append(str(g.play_policy(specs[i % len(specs)])))
        out.append(moves)

    first = []
    run(12, first)
    outs = [[] for _ in range(3)]
    ts = [threading.Thread(target=run, args=(12, o)) for o in outs]
    for t in ts:
        t.start()
    for t in ts:
        t.join(120)
    assert all(o == first for o in outs)
