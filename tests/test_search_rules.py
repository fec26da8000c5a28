"""Policies decide under the rules of the game they play: an observation
carries its game's rules, the search samples and rolls out under them, and
the SDK client puts the server's rules (the contest preset by default) into
the observations it builds."""

from guandan import Game, Rules, get_policy
from guandan.bots import Bot, ProtocolClient
from guandan.rules import rules_of
from guandan.search import SearchPolicy, info_from_observation


def _contest_positions(n, seeds=range(200)):
    """Play-phase positions of contest games (greedy play) where the default
    rules would allow more moves (a wild straight flush): the positions where
    deciding under the wrong rules shows."""
    contest, default = Rules.contest(), Rules.default()
    for s in seeds:
        g = Game(rules=contest, seed=s)
        while g.round_index == 0 and not g.is_over:
            if g.phase == "play":
                wide = Game.from_position(g.position, rules=default).legal_moves()
                if len(wide) != len(g.legal_moves()):
                    yield g.copy()
                    n -= 1
                    if n == 0:
                        return
            g.play_policy("greedy")


def test_observation_carries_the_rules():
    g = Game(rules=Rules.contest(), seed=1)
    obs = g.observation(0)
    assert Rules.from_dict(obs["rules"]) == Rules.contest()
    assert rules_of(obs) == Rules.contest()
    assert rules_of({}) == Rules.default()
    assert rules_of({}, Rules.contest()) == Rules.contest()
    assert rules_of(Game(seed=1).observation(2)) == Rules.default()


def test_search_from_contest_observations_plays_only_legal_moves():
    p = get_policy("search:rollouts=40", seed=1)
    seen = 0
    for g in _contest_positions(40):
        legal = g.legal_moves()
        m = p(g.observation(g.to_act), legal)
        assert m in legal
        seen += 1
    assert seen == 40


def test_search_info_set_is_built_under_the_observation_rules():
    g = next(_contest_positions(1))
    obs = g.observation(g.to_act)
    info = info_from_observation(obs)
    res = SearchPolicy(seed=3, rollouts=40).explain(obs)
    assert res.move in g.legal_moves()
    assert all(c.move in g.legal_moves() for c in res.candidates)
    assert info is not None


def _protocol_messages(g, seat):
    """The contest protocol's messages for ``seat`` up to its next decision
    in ``g`` (enough for the client's observation)."""
    level = g.level
    team = seat & 1
    msgs = [{"type": "notify", "stage": "beginning", "handCards": [], "myPos": seat}]
    for s, m in g.moves_played:
        msgs.append({"type": "notify", "stage": "play", "curPos": s, "curAction": m.to_platform()})
    top = g.top
    legal = g.legal_moves(order="contest")
    msgs.append({
        "type": "act", "stage": "play", "handCards": g.hands[seat].cards(g.level_index + 2),
        "publicInfo": [{"rest": n, "playArea": None} for n in g.card_counts],
        "selfRank": g.team_levels[team], "oppoRank": g.team_levels[1 - team], "curRank": level,
        "curPos": -1, "curAction": [None] * 3,
        "greaterPos": -1 if top is None else top.seat,
        "greaterAction": [None] * 3 if top is None else top.move.to_platform(),
        "actionList": [m.to_platform() for m in legal], "indexRange": len(legal) - 1})
    return msgs, legal


class _SearchBot(Bot):
    def __init__(self):
        self.policy = get_policy("search:rollouts=40", seed=2)
        self.rules = None

    def act(self, observation, legal_moves):
        self.rules = rules_of(observation)
        return self.policy(observation, legal_moves)


def test_sdk_client_learns_the_contest_rules():
    bot = _SearchBot()
    seen = 0
    for g in _contest_positions(10):
        seat = g.to_act
        client = ProtocolClient(bot)
        msgs, legal = _protocol_messages(g, seat)
        answers = [client.handle(m) for m in msgs]
        assert answers[-1] is not None and 0 <= answers[-1]["actIndex"] < len(legal)
        assert bot.rules == Rules.contest()
        seen += 1
    assert seen == 10


def test_sdk_client_rules_option():
    c = ProtocolClient(Bot(), rules=Rules.default())
    msg = {"type": "act", "stage": "play", "handCards": ["S2", "S3"],
           "publicInfo": [{"rest": 2, "playArea": None}] * 4, "selfRank": "2", "oppoRank": "2",
           "curRank": "2", "curPos": -1, "curAction": [None] * 3, "greaterPos": -1,
           "greaterAction": [None] * 3,
           "actionList": [["Single", "2", ["S2"]], ["Single", "3", ["S3"]]], "indexRange": 1}
    assert rules_of(c.observation(msg)) == Rules.default()
    assert rules_of(ProtocolClient(Bot()).observation(msg)) == Rules.contest()
