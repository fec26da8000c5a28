"""Training learned bots (guandan.rl.actor, .learner, .train, ``guandan train``):
the actors' samples, the learner's losses, a short run whose loss falls,
checkpoints that resume exactly, the same network on every executor, and
the command line's Ctrl-C."""

from __future__ import annotations

import concurrent.futures as cf
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from guandan import GuandanError, Game
from guandan.rl import NetPolicy, load_checkpoint, save_checkpoint
from guandan.rl.actor import BLAS_THREAD_VARS, MAX_IMITATION_MOVES, ROW_DIM, ActorTask, actor_context, play_chunk
from guandan.rl.model import init_layers, parse_hidden
from guandan.vec import ENCODING_DIMS, OBS_DIM
from helpers import default_sigint

jax = pytest.importorskip("jax", reason="training needs JAX (pip install '.[rl]')")

from guandan.rl.learner import Learner  # noqa: E402
import guandan.rl.train as train_module  # noqa: E402
from guandan.rl.train import Replay, TrainConfig, read_log, train  # noqa: E402

TINY = dict(hidden="32x2", games=8, actors=2, eval_deals=4, eval_minutes=0, batch=256,
            eval_opponents=("greedy",))


def _net(seed=1):
    return init_layers([ENCODING_DIMS["guandan"], 16, 1], seed=seed)


def test_actor_samples_are_the_chosen_rows_with_the_deal_returns():
    res = play_chunk(_net(), ActorTask(seed=3, games=6, epsilon=0.2))
    assert res.deals == 6 and res.decisions == len(res.x) == len(res.g) > 6 * 20
    # a return is the level points of the deciding seat's team: 1..3 won, -1..-3 lost (4: a game won)
    assert set(np.unique(res.g)) <= {-4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, 4.0}
    assert res.x.dtype == np.int8 and res.x[:, :OBS_DIM + 68].min() >= 0     # the split features may be negative
    # the move part of each row is a legal move's features: its cards are cards of the own hand
    hand, cards = res.x[:, :54].astype(int), res.x[:, OBS_DIM:OBS_DIM + 54].astype(int)
    assert (cards <= hand).all()


def test_actor_tasks_are_pure_functions_of_weights_and_task():
    a = play_chunk(_net(), ActorTask(seed=5, games=4, epsilon=0.3))
    b = play_chunk(_net(), ActorTask(seed=5, games=4, epsilon=0.3))
    c = play_chunk(_net(), ActorTask(seed=6, games=4, epsilon=0.3))
    assert (a.x == b.x).all() and (a.g == b.g).all()
    assert a.x.shape != c.x.shape or not (a.x == c.x).all()


def test_imitation_samples_hold_the_experts_move_among_legal_moves():
    res = play_chunk(_net(), ActorTask(seed=2, games=4, behaviour="expert"))
    n = len(res.label)
    assert 0 < n < res.decisions       # the decisions with one legal move are left out
    assert res.obs.shape == (n, OBS_DIM) and res.moves.shape == (n, MAX_IMITATION_MOVES, ROW_DIM - OBS_DIM)
    assert res.mask[np.arange(n), res.label].all()
    assert (res.mask.sum(1) > 1).all()
    # the label's move columns are the chosen row's move part
    assert (res.moves[np.arange(n), res.label] == res.im_x[:, OBS_DIM:]).all()
    assert (res.obs == res.im_x[:, :OBS_DIM]).all()
    # the chosen rows are decisions of the task, with their returns
    rows = {r.tobytes(): g for r, g in zip(res.x, res.g)}
    assert all(rows[r.tobytes()] == g for r, g in zip(res.im_x, res.im_g))



def test_score_net_counts_agreement_over_all_legal_moves():
    r = play_chunk(_net(), ActorTask(seed=2, games=4, behaviour="expert", score_net=True))
    assert 0 <= r.agree <= r.decisions
    assert 0 <= r.agree_choice <= r.choices < r.decisions
    assert r.agree - r.agree_choice == r.decisions - r.choices     # one legal move: always agreed


def test_bad_tasks_and_sizes_are_refused():
    with pytest.raises(GuandanError):
        play_chunk(_net(), ActorTask(seed=1, games=2, epsilon=1.5))
    with pytest.raises(GuandanError):
        play_chunk(_net(), ActorTask(seed=1, games=2, behaviour="search"))
    with pytest.raises(GuandanError):
        parse_hidden("0x3")
    assert parse_hidden("64x2") == [64, 64] and parse_hidden("64,32") == [64, 32]
    with pytest.raises(GuandanError):
        TrainConfig(hidden="16").check()            # no limit
    with pytest.raises(GuandanError):
        TrainConfig(iterations=1, eval_opponents=("nosuchbot",)).check()


def test_learner_loss_falls_on_a_fixed_batch():
    res = play_chunk(_net(), ActorTask(seed=4, games=8))
    ln = Learner(init_layers([ROW_DIM, 32, 1], seed=0), lr=1e-3)
    x, g = res.x[:512], res.g[:512]
    first = ln.dmc_step(x, g)
    for _ in range(200):
        last = ln.dmc_step(x, g)
    assert last < 0.5 * first


def test_imitation_agreement_rises_on_a_fixed_batch():
    r = play_chunk(_net(), ActorTask(seed=4, games=8, behaviour="expert"))
    ln = Learner(init_layers([ROW_DIM, 64, 1], seed=0), lr=1e-3)
    sl = slice(0, 400)
    before = ln.agreement(r.obs[sl], r.moves[sl], r.mask[sl], r.label[sl])
    for _ in range(300):
        ln.imitation_step(r.obs[sl], r.moves[sl], r.mask[sl], r.label[sl], r.x[sl], r.g[sl])
    after = ln.agreement(r.obs[sl], r.moves[sl], r.mask[sl], r.label[sl])
    assert after > before + 0.2


def test_replay_keeps_the_newest_and_round_trips():
    rp = Replay(5, {"a": ((), np.int64)})
    rp.add({"a": np.arange(3)})
    rp.add({"a": np.arange(3, 8)})
    assert rp.size == 5 and list(rp.arrays("")["a"]) == [3, 4, 5, 6, 7]
    r2 = Replay(5, {"a": ((), np.int64)})
    r2.load(rp.arrays("p_"), "p_")
    assert list(r2.arrays("")["a"]) == [3, 4, 5, 6, 7]


def test_opponent_tasks_sample_the_networks_team_only():
    self_play = play_chunk(_net(), ActorTask(seed=4, games=6))
    vs = play_chunk(_net(), ActorTask(seed=4, games=6, opponent="expert"))
    again = play_chunk(_net(), ActorTask(seed=4, games=6, opponent="expert"))
    assert (vs.x == again.x).all() and (vs.g == again.g).all()
    # about half the decisions: the network's team only (the expert's seats are not samples)
    assert 0.3 * self_play.decisions < vs.decisions < 0.7 * self_play.decisions
    # an untrained network against the expert loses nearly every deal
    assert vs.g.mean() < -1.0
    with pytest.raises(GuandanError):
        play_chunk(_net(), ActorTask(seed=4, games=2, opponent="nobody"))


def test_init_starts_from_a_checkpoint(tmp_path):
    first = str(tmp_path / "first")
    train(first, TrainConfig(**dict(TINY, imitation=1, iterations=2)))
    # one iteration from the first run's network: no samples to learn from yet, so
    # the model written is that network (its input scale unfolded and folded back)
    second = str(tmp_path / "second")
    train(second, TrainConfig(**dict(TINY, hidden="8x1", iterations=1, opponent="expert",
                                     init=os.path.join(first, "model.npz"))))
    for a, b in zip(_weights(first), _weights(second)):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
    with pytest.raises(GuandanError, match="danzero"):
        dz = tmp_path / "dz.npz"
        save_checkpoint(dz, init_layers([555, 4, 1], seed=0), {"encoding": "danzero"})
        train(str(tmp_path / "third"), TrainConfig(**dict(TINY, iterations=1, init=str(dz))))


def _weights(folder):
    return [w for w, b in load_checkpoint(os.path.join(folder, "model.npz")).layers]


def test_a_short_run_learns_writes_a_playable_model_and_resumes_exactly(tmp_path):
    straight, split = str(tmp_path / "straight"), str(tmp_path / "split")
    cfg = dict(TINY, imitation=2, iterations=5)
    r = train(straight, TrainConfig(**cfg))
    assert r["iterations"] == 5 and r["samples"] > 0 and not r["stopped"]
    log = read_log(os.path.join(straight, "log.jsonl"))
    its = [e for e in log if e["kind"] == "iteration"]
    assert [e["phase"] for e in its] == ["imitation"] * 2 + ["dmc"] * 3
    assert any(e["kind"] == "imitation_eval" for e in log)
    ev = [e for e in log if e["kind"] == "eval"]
    assert ev and ev[-1]["opponent"] == "greedy" and 0 <= ev[-1]["score"] <= 1
    # the model plays by name
    g = Game(seed=3)
    g.play_out([NetPolicy(os.path.join(straight, "model.npz"))] * 4)
    assert g.is_over or g.round_index > 0
    # 3 iterations, then 2 more from the saved state: the same network as 5 at once
    train(split, TrainConfig(**dict(cfg, iterations=3)))
    r2 = train(split, TrainConfig(iterations=5), resume=True)
    assert r2["iterations"] == 5
    for a, b in zip(_weights(straight), _weights(split)):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(GuandanError, match="resume"):
        train(split, TrainConfig(**cfg))


def test_the_same_network_on_every_executor(tmp_path):
    cfg = dict(TINY, imitation=1, iterations=3)
    train(str(tmp_path / "pool"), TrainConfig(**cfg))
    with cf.ThreadPoolExecutor(2) as ex:
        train(str(tmp_path / "threads"), TrainConfig(**cfg), executor=ex)
    for a, b in zip(_weights(tmp_path / "pool"), _weights(tmp_path / "threads")):
        np.testing.assert_array_equal(a, b)
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cl, distributed.Client(cl) as client:
        train(str(tmp_path / "dask"), TrainConfig(**cfg), executor=client)
    for a, b in zip(_weights(tmp_path / "pool"), _weights(tmp_path / "dask")):
        np.testing.assert_array_equal(a, b)


def test_actor_processes_run_one_blas_thread_and_the_parent_is_unchanged(monkeypatch):
    # numpy's BLAS starts a thread per core in every process: the actors
    # (one per core) start with one, unless the environment says otherwise
    for k in BLAS_THREAD_VARS:
        monkeypatch.delenv(k, raising=False)
    with cf.ProcessPoolExecutor(2, mp_context=actor_context()) as ex:
        assert list(ex.map(os.getenv, BLAS_THREAD_VARS)) == ["1"] * len(BLAS_THREAD_VARS)
    assert not any(k in os.environ for k in BLAS_THREAD_VARS)
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "3")
    with cf.ProcessPoolExecutor(1, mp_context=actor_context()) as ex:
        assert ex.submit(os.getenv, "OPENBLAS_NUM_THREADS").result() == "3"
    assert os.environ["OPENBLAS_NUM_THREADS"] == "3"


def test_train_runs_its_own_actors_in_actor_processes(tmp_path, monkeypatch):
    made = []

    def counted():
        made.append(1)
        return actor_context()

    monkeypatch.setattr(train_module, "actor_context", counted)
    train(str(tmp_path / "run"), TrainConfig(**dict(TINY, imitation=1, iterations=1)))
    assert made == [1]


def test_cli_ctrl_c_leaves_a_resumable_state(tmp_path):
    out = str(tmp_path / "run")
    cmd = [sys.executable, "-m", "guandan", "train", out, "--hidden", "32x2", "--games", "8", "--actors", "1",
           "--imitation", "1", "--minutes", "30", "--eval-minutes", "0", "--eval-deals", "2",
           "--eval-against", "greedy"]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=default_sigint)
    log = os.path.join(out, "log.jsonl")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not (os.path.exists(log) and len(read_log(log)) >= 2):
        time.sleep(0.2)
    p.send_signal(signal.SIGINT)
    outs, errs = p.communicate(timeout=120)
    assert p.returncode == 130, errs
    assert "interrupted: state saved at iteration" in outs and "Traceback" not in errs
    assert os.path.exists(os.path.join(out, "state.npz"))
    r = subprocess.run([sys.executable, "-m", "guandan", "train", out, "--resume", "--iterations", "4",
                        "--quiet"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "done: 4 iterations" in r.stdout


def test_cli_errors_are_one_line(tmp_path):
    r = subprocess.run([sys.executable, "-m", "guandan", "train", str(tmp_path / "x"), "--hidden", "abc",
                        "--iterations", "1"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "hidden layers" in r.stderr
    r = subprocess.run([sys.executable, "-m", "guandan", "train", str(tmp_path / "y")],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "give a limit" in r.stderr
    r = subprocess.run([sys.executable, "-m", "guandan", "train", str(tmp_path / "z"), "--resume",
                        "--iterations", "1"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "nothing to resume" in r.stderr


def test_learning_curve_of_consecutive_runs(tmp_path):
    pytest.importorskip("matplotlib")
    from guandan.rl.train import plot_curve
    logs = []
    for k in range(2):
        p = tmp_path / f"log{k}.jsonl"
        p.write_text("\n".join(json.dumps(e) for e in [
            {"kind": "iteration", "iteration": 1, "samples": 100, "wall": 10.0, "loss": 2.0 - k},
            {"kind": "eval", "iteration": 1, "samples": 100, "wall": 10.0, "opponent": "greedy",
             "deals": 4, "score": 0.5, "score_ci": [0.2, 0.8], "points": 0.0}]) + "\n")
        logs.append(str(p))
    out = plot_curve(logs, str(tmp_path / "curve.png"))
    assert open(out, "rb").read(8) == b"\x89PNG\r\n\x1a\n"


def test_an_opponent_the_actors_cannot_run_is_refused_before_training(tmp_path):
    for spec in ("search", "nobody"):
        with pytest.raises(GuandanError):
            TrainConfig(**dict(TINY, iterations=1, imitation=1, opponent=spec)).check()
    assert TrainConfig(**dict(TINY, iterations=1, opponent="expert")).check().opponent == "expert"
