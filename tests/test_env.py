"""The PettingZoo AEC environment (guandan.env): PettingZoo's API and seed
tests, masked random episodes, team zero-sum rewards, illegal actions, and
agreement with the batched VecGame."""

import doctest

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
from pettingzoo.test import api_test, seed_test  # noqa: E402

import guandan.env as genv  # noqa: E402
from guandan import Game, GuandanError, Rules, VecGame, move_features  # noqa: E402
from guandan.simulation import game_seed  # noqa: E402
from guandan.env import env, raw_env  # noqa: E402

AGENTS = [f"player_{i}" for i in range(4)]


def _random_action(obs, rng):
    return int(rng.choice(np.flatnonzero(obs["action_mask"])))


def _play_episode(e, rng, max_steps=100_000):
    """Random masked play to the end of the episode; returns (per-agent
    returns, list of per-step reward dicts with a nonzero entry, steps)."""
    returns = {a: 0.0 for a in AGENTS}
    paid = []
    steps = 0
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        returns[agent] += reward
        if terminated or truncated:
            e.step(None)
            continue
        assert steps < max_steps
        e.step(_random_action(obs, rng))
        steps += 1
        if any(e.rewards.values()):
            paid.append(dict(e.rewards))
    return returns, paid, steps


def _check_team_zero_sum(rewards):
    assert rewards["player_0"] == rewards["player_2"]
    assert rewards["player_1"] == rewards["player_3"]
    assert rewards["player_0"] == -rewards["player_1"]


def test_doctests():
    res = doctest.testmod(genv, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert res.failed == 0 and res.attempted > 0


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("unit", ["deal", "game"])
def test_pettingzoo_api(unit):
    api_test(env(unit=unit), num_cycles=400)


@pytest.mark.parametrize("unit", ["deal", "game"])
def test_pettingzoo_seed(unit):
    seed_test(lambda: env(unit=unit), num_cycles=300)


def test_spaces_and_metadata():
    e = env()
    e.reset(seed=3)
    assert raw_env.metadata["name"] == "guandan_v0"
    assert e.metadata["is_parallelizable"] is False
    for a in AGENTS:
        assert e.observation_space(a) is e.observation_space(a)
        assert e.action_space(a).n == 32768
        assert e.observation_space(a)["observation"].shape == (227,)
        assert e.observation_space(a)["action_mask"].dtype == np.int8
    obs, _, _, _, info = e.last()
    assert e.observation_space(e.agent_selection).contains(obs)
    legal = info["legal_moves"]
    g = e.unwrapped.game
    assert np.array_equal(legal.to_numpy(), g.legal_moves().to_numpy())
    assert obs["action_mask"].sum() == len(legal) and obs["action_mask"][:len(legal)].all()
    assert np.array_equal(info["action_features"], move_features(legal.to_numpy()))
    assert legal[0] == g.legal_moves()[0] and legal[0] in legal
    # the other agents see their own hands and no legal actions
    for a in AGENTS:
        if a != e.agent_selection:
            o = e.observe(a)
            assert o["action_mask"].sum() == 0 and e.infos[a] == {}
            seat = AGENTS.index(a)
            assert np.array_equal(o["observation"][:54], g.hands[seat].counts())
            assert o["observation"][54] == 27


def test_deal_episode_rewards_and_continuation():
    rng = np.random.default_rng(5)
    e = env(unit="deal")
    e.reset(seed=11)
    returns, paid, steps = _play_episode(e, rng)
    assert e.agents == []
    g = e.unwrapped.game
    assert g.round_index == 1 and len(paid) == 1
    _check_team_zero_sum(paid[0])
    _check_team_zero_sum(returns)
    banker_team = g.last_round_order[0] & 1
    assert 1 <= returns[AGENTS[banker_team]] <= 3
    assert returns[AGENTS[banker_team]] == g.last_round.levels_up
    # reset() without a seed continues the game: round 2 starts with the tribute
    e.reset()
    assert e.unwrapped.game is g and g.round_index == 1
    assert g.phase in ("tribute", "play")          # "play" only after an anti-tribute
    obs = e.last()[0]
    assert obs["observation"][169 + ("tribute", "back", "play").index(g.phase)] == 1
    returns2, paid2, _ = _play_episode(e, rng)
    assert len(paid2) == 1 and g.round_index == 2
    _check_team_zero_sum(returns2)
    # a seed, or new_game, restarts at round 0
    e.reset(options={"new_game": True})
    assert e.unwrapped.game is not g and e.unwrapped.game.round_index == 0
    e.reset(seed=11)
    assert e.unwrapped.game.seed == game_seed(11, 0)


def test_game_episode():
    rng = np.random.default_rng(7)
    e = env(unit="game")
    e.reset(seed=4)
    returns, paid, steps = _play_episode(e, rng, max_steps=20_000)
    g = e.unwrapped.game
    assert g.is_over and g.winner is not None
    # one payment per round, except rounds a team at A wins without moving (pays 0)
    assert 1 <= len(paid) <= g.round_index
    for r in paid:
        _check_team_zero_sum(r)
    assert paid[-1][AGENTS[g.winner]] == 4     # the round that wins the game pays 4
    _check_team_zero_sum(returns)
    assert returns[AGENTS[0]] == sum(r["player_0"] for r in paid)
    assert returns[AGENTS[g.winner]] > 0


def test_max_rounds_truncates_game():
    rng = np.random.default_rng(1)
    e = env(unit="game", rules=Rules(max_rounds=2))
    e.reset(seed=2)
    _play_episode(e, rng)
    g = e.unwrapped.game
    assert g.is_over and g.round_index == 2
    # deal unit with max_rounds: rounds still terminate
    e = raw_env(unit="deal", rules=Rules(max_rounds=1))
    e.reset(seed=2)
    while not any(e.terminations.values()):
        assert not any(e.truncations.values())
        e.step(_random_action(e.observe(e.agent_selection), rng))
    assert all(e.terminations.values()) and not any(e.truncations.values())


def test_truncation_flags_with_max_rounds():
    rng = np.random.default_rng(3)
    e = raw_env(unit="game", rules=Rules(max_rounds=1))
    e.reset(seed=9)
    while not (any(e.terminations.values()) or any(e.truncations.values())):
        e.step(_random_action(e.observe(e.agent_selection), rng))
    assert all(e.truncations.values()) and not any(e.terminations.values())
    _check_team_zero_sum(e.rewards)


def test_illegal_actions_raise():
    e = env()
    e.reset(seed=1)
    obs, _, _, _, info = e.last()
    n = len(info["legal_moves"])
    before = e.unwrapped.game.position
    agent = e.agent_selection
    for bad in (n, -1, 32768, 10 ** 9, None, 1.5, "0"):
        with pytest.raises(GuandanError):
            e.step(bad)
    assert e.unwrapped.game.position == before and e.agent_selection == agent
    e.step(np.int64(n - 1))                       # numpy integers are fine
    assert e.agent_selection != agent or e.unwrapped.game.position != before
    with pytest.raises(GuandanError):
        raw_env(unit="round")
    with pytest.raises(GuandanError):
        raw_env(max_actions=0)


def test_max_actions_too_small_raises():
    e = raw_env(max_actions=8)
    assert e.action_space("player_0").n == 8
    with pytest.raises(GuandanError, match="max_actions"):
        e.reset(seed=0)                           # an opening hand has far more than 8 moves


@pytest.mark.parametrize("unit", ["deal", "game"])
def test_matches_vecgame(unit):
    """Same seed, same actions: the env's observation of the agent to act,
    its legal list and its rewards equal VecGame's, across round boundaries
    (tribute and return phases included)."""
    seed = 21
    v = VecGame(1, seed=seed, unit=unit)
    e = raw_env(unit=unit)
    e.reset(seed=seed)
    assert e.game.seed == game_seed(seed, 0)
    rng = np.random.default_rng(0)
    phases = set()
    episodes = 0
    for step in range(20_000):
        if step >= 1500 and episodes >= 1:
            break
        o = v.observe()
        agent = e.agent_selection
        obs = e.observe(agent)
        assert int(o["seat"][0]) == AGENTS.index(agent)
        assert np.array_equal(obs["observation"], o["obs"][0])
        legal = e.infos[agent]["legal_moves"]
        assert np.array_equal(legal.to_numpy(), o["legal_words"])
        phases.add(int(np.argmax(obs["observation"][169:173])))
        a = _random_action(obs, rng)
        r, d = v.step(np.array([a]))
        e.step(a)
        for i, ag in enumerate(AGENTS):
            assert e.rewards[ag] == r[0, i]
        ended = any(e.terminations.values()) or any(e.truncations.values())
        assert ended == bool(d[0])
        if ended:
            episodes += 1
            e.reset()
    assert episodes >= 1
    assert {0, 1, 2} <= phases                    # tribute, return and play states compared


def test_render():
    e = env(render_mode="ansi")
    e.reset(seed=5)
    text = e.render()
    g = e.unwrapped.game
    assert isinstance(text, str) and "level 2" in text
    for s in range(4):
        assert f"player_{s}" in text
        assert " ".join(g.hands[s].cards("2")) in text
    e.close()


def test_render_human(capsys):
    e = env(render_mode="human")
    e.reset(seed=5)
    assert e.render() is None
    e.step(0)
    out = capsys.readouterr().out
    assert "guandan round 1" in out
    e.close()


def test_determinism_without_seed_sequence():
    """reset() without a seed after a seeded reset is deterministic too."""
    def run():
        e = raw_env(unit="game", rules=Rules(max_rounds=1))
        e.reset(seed=8)
        rng = np.random.default_rng(2)
        seen = []
        for _ in range(3):
            seen.append(e.game.seed)
            while not (any(e.terminations.values()) or any(e.truncations.values())):
                e.step(_random_action(e.observe(e.agent_selection), rng))
            e.reset()
        return seen
    assert run() == run() == [game_seed(8, k) for k in range(3)]
    e = raw_env()
    e.reset(seed=8)
    assert e.game.hands == Game(seed=game_seed(8, 0)).hands
