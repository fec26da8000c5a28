"""guandan.rl.net: the encoding, numpy inference and the registered ``net`` policy."""

from __future__ import annotations

import os

import numpy as np
import pytest

from guandan import Game, VecGame, get_policy, move_features, simulate
from guandan.errors import GuandanError
from guandan.policies import check_policy, policy_names, split_features
from guandan.rl import NetPolicy, encode, save_checkpoint
from guandan.rl.checkpoint import CheckpointError
from guandan.rl.net import NetExplanation, encode_observation, observation_tensor_of, q_values
from guandan.vec import net_code


def _layers(sizes=(309, 16, 8, 1), seed=0):
    rng = np.random.default_rng(seed)
    return [((rng.standard_normal((a, b)) / np.sqrt(a)).astype(np.float32),
             (0.1 * rng.standard_normal(b)).astype(np.float32)) for a, b in zip(sizes, sizes[1:])]


@pytest.fixture()
def net_path(tmp_path):
    p = tmp_path / "net.npz"
    save_checkpoint(p, _layers(), {"info": {"test": True}})
    return str(p)


def _by_hand(layers, game):
    """Q of each legal move, computed here with plain numpy."""
    obs = game.observation_tensor(game.to_act)
    words = np.array([m.words for m in game.legal_moves()], dtype=np.uint64)
    x = np.hstack([np.repeat(obs[None, :], len(words), axis=0), move_features(words), split_features(game)])
    for i, (w, b) in enumerate(layers):
        x = x @ w + b
        if i < len(layers) - 1:
            x = np.maximum(x, 0)
    return x[:, 0]


def _positions(n_games=6):
    for s in range(n_games):
        g = Game(seed=100 + s)
        k = 0
        while not g.is_over and k < 400:
            yield g
            g.play_policy("greedy" if k % 3 else "random")
            k += 1


def test_registered():
    assert "net" in policy_names()


def test_encode_layout():
    g = Game(seed=5)
    x = encode(g)
    moves = g.legal_moves()
    assert x.shape == (len(moves), 309) and x.dtype == np.float32
    assert np.array_equal(x[:, :227], np.repeat(g.observation_tensor(g.to_act)[None], len(moves), 0))
    assert np.array_equal(x[:, 227:295], move_features(moves.to_numpy()))
    assert np.array_equal(x[:, 295:], split_features(g))


def test_decide_is_argmax_by_hand_and_explain_gives_q():
    layers = _layers()
    net = NetPolicy(layers)
    n = 0
    for g in _positions(3):
        q = _by_hand(layers, g)
        moves = g.legal_moves()
        m = net.decide(g)
        assert m == moves[int(np.flatnonzero(q == q.max())[0])]
        e = net.explain(g)
        assert isinstance(e, NetExplanation) and e.move == m and e.seat == g.to_act and e.rule == "net"
        assert [c[0] for c in e.candidates] == list(moves)
        assert np.allclose([c[1] for c in e.candidates], q, rtol=1e-5, atol=1e-5)
        n += 1
    assert n > 100


def test_ties_take_the_first_move():
    zero = [(np.zeros((309, 4), np.float32), np.zeros(4, np.float32)),
            (np.zeros((4, 1), np.float32), np.ones(1, np.float32))]
    net = NetPolicy(zero)
    for g in list(_positions(1))[:50]:
        assert net.decide(g) == g.legal_moves()[0]


def test_whole_games_by_name(net_path):
    spec = f"net:path={net_path}"
    assert check_policy(spec) == spec
    for seed in range(3):
        g = Game(seed=seed)
        g.play_out([spec, "greedy", spec, "greedy"])
        assert g.is_over
        again = Game(seed=seed)
        again.play_out([spec, "greedy", spec, "greedy"])
        assert again.moves_played == g.moves_played          # deterministic


def test_get_policy_object_plays_whole_games(net_path):
    a, b = get_policy(f"net:path={net_path}", seed=1), get_policy(f"net:path={net_path}", seed=2)
    assert isinstance(a, NetPolicy)
    g = Game(seed=9)
    while not g.is_over:
        m = a.decide(g)
        assert m == b.decide(g)                               # no randomness: the seed does not matter
        g.play(m)
    assert g.is_over


def test_call_from_observation_matches_decide():
    net = NetPolicy(_layers(seed=3))
    n = 0
    for g in _positions(2):
        seat = g.to_act
        obs = g.observation(seat)
        assert np.array_equal(observation_tensor_of(obs), g.observation_tensor(seat))
        assert np.array_equal(encode_observation(obs, g.legal_moves()), encode(g))
        assert net(obs, g.legal_moves()) == net.decide(g)
        assert net(obs, list(g.legal_moves())) == net.decide(g)
        n += 1
    assert n > 100
    with pytest.raises(GuandanError, match="no legal move"):
        net(Game(seed=1).observation(0), [])


def test_spec_errors(tmp_path):
    with pytest.raises(GuandanError, match="needs a checkpoint"):
        check_policy("net:path=")
    with pytest.raises(GuandanError, match="takes the option path"):
        check_policy(f"net:path={tmp_path / 'x'},depth=3")
    with pytest.raises(CheckpointError, match="cannot read"):
        check_policy(f"net:path={tmp_path / 'missing.npz'}")
    (tmp_path / "bad.npz").write_bytes(b"nope")
    with pytest.raises(CheckpointError, match="not a readable"):
        check_policy(f"net:path={tmp_path / 'bad.npz'}")
    save_checkpoint(tmp_path / "dz.npz", _layers((555, 4, 1)), {"encoding": "danzero"})
    with pytest.raises(CheckpointError, match="not 'guandan'"):
        NetPolicy(str(tmp_path / "dz.npz"), encoding="guandan")
    with pytest.raises(CheckpointError, match="555"):
        NetPolicy(_layers((309, 4, 1)), encoding="danzero")
    with pytest.raises(CheckpointError, match="inputs"):
        NetPolicy(_layers((100, 4, 1)))
    g = Game(seed=1)
    with pytest.raises(GuandanError):
        g.play_policy(f"net:path={tmp_path / 'missing.npz'}")


def test_layers_are_read_only_copies():
    layers = _layers()
    net = NetPolicy(layers)
    with pytest.raises(ValueError):
        net.layers[0][0][0, 0] = 1.0
    layers[0][0][0, 0] = 7.0                                  # the caller's arrays stay writable and theirs
    assert net.layers[0][0][0, 0] != 7.0


# -- a network of DanZero's encoding ---------------------------------------------------

def test_danzero_net_plays_by_name(tmp_path):
    import danzero_reference as dz

    layers = _layers((555, 16, 1), seed=3)
    p = tmp_path / "dz.npz"
    save_checkpoint(p, layers, {"encoding": "danzero"})
    check_policy(f"net:path={p}")
    net = NetPolicy(str(p))
    assert net.encoding == "danzero" and NetPolicy(layers).encoding == "danzero"
    g = Game(seed=7)
    played = 0
    while not g.is_over and played < 300:
        if g.phase.value == "play":
            moves = g.legal_moves()
            state, actions = dz.encode(g.observation(g.to_act), moves)
            x = np.hstack((state, actions))
            assert np.array_equal(encode(g, "danzero"), x)
            h = x
            for i, (w, b) in enumerate(layers):
                h = h @ w + b
                if i < len(layers) - 1:
                    h = np.maximum(h, 0)
            assert np.allclose(net.q(g), h[:, 0], atol=1e-5)
            m = net.decide(g)
            assert m == net(g.observation(g.to_act), moves) == net.explain(g).move
        else:
            m = net.decide(g)
            assert m == g.choose("greedy") and net.explain(g).rule == "greedy"
        g.play(m)
        played += 1
    g2 = Game(seed=8)
    g2.play_out([f"net:path={p}", "greedy", f"net:path={p}", "greedy"], until="round")
    assert g2.round_index == 1 or g2.is_over
    with pytest.raises(GuandanError):
        encode(g, "nope")


# -- the native form of "guandan" networks --------------------------------------------

def test_native_decisions_are_the_numpy_argmax():
    # the native policy computes the same network in float32 with sums in
    # another order: the same move but on near ties
    layers = _layers((309, 32, 16, 1), seed=4)
    net = NetPolicy(layers)
    assert net.code is not None and net.code == net_code(layers)
    same = total = 0
    for seed in range(4):
        g = Game(seed=seed)
        while not g.is_over:
            q = q_values(layers, encode(g))
            m = net.decide(g)
            same += m == g.legal_moves()[int(np.argmax(q))]
            total += 1
            assert abs(q[g.legal_moves().index(m)] - q.max()) < 1e-4      # a near tie at worst
            g.play(m)
    assert total > 300 and same >= 0.99 * total


def test_net_runs_in_simulate_and_vecgame(net_path):
    spec = f"net:path={net_path}"
    a = simulate(12, policies=[spec, "greedy", spec, "expert"], seed=3, workers=1)
    b = simulate(12, policies=[spec, "greedy", spec, "expert"], seed=3, workers=2)
    assert a.n == 12 and all(np.array_equal(a.rows[k], b.rows[k]) for k in a.rows)
    # VecGame.choose runs the same code as NetPolicy.decide
    v = VecGame(4, seed=2)
    net = NetPolicy(net_path)
    for _ in range(30):
        pick = v.choose(spec)
        for i in range(4):
            g = v.game(i)
            if not g.is_over:
                assert g.legal_moves()[int(pick[i])] == net.decide(g)
        v.step(pick)


def test_danzero_and_bad_networks_have_no_native_form(tmp_path):
    p = tmp_path / "dz.npz"
    save_checkpoint(p, _layers((555, 8, 1)), {"encoding": "danzero"})
    with pytest.raises(GuandanError, match="no native form"):
        simulate(2, policies=[f"net:path={p}", "greedy", "greedy", "greedy"])
    assert NetPolicy(str(p)).code is None
    with pytest.raises(GuandanError, match="native network"):
        net_code(_layers((308, 4, 1)))
    with pytest.raises(GuandanError, match="native network"):
        net_code(_layers((309, 4, 2)))


# -- the shipped network ----------------------------------------------------------------

def test_the_shipped_network_plays_by_name_everywhere():
    from guandan.rl import LEARNED_PATH, load_checkpoint
    assert os.path.getsize(LEARNED_PATH) < 4 << 20
    ck = load_checkpoint(LEARNED_PATH)
    assert ck.encoding == "guandan" and ck.sizes == [309, 256, 256, 256, 1]
    info = ck.meta["info"]
    assert info["name"] == "learned" and info["command"].startswith("guandan train ")
    assert check_policy("learned") == "learned" and "learned" in policy_names()
    p = get_policy("learned")
    assert isinstance(p, NetPolicy) and p.code == net_code(ck.layers)
    g = Game(seed=4)
    g.play_out(["learned", "random", "learned", "random"], until="round")
    assert g.round_index == 1 or g.is_over
    assert p.explain(Game(seed=4)).rule == "net"
    # natively in simulate: a trained network beats random nearly always
    r = simulate(20, policies=["learned", "random", "learned", "random"], seed=2, workers=1)
    assert (np.asarray(r.rows["banker_team"]) == 0).mean() >= 0.9
