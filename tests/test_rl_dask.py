"""Training on a Dask cluster survives a killed worker (guandan.rl.train with
``executor=`` a ``distributed.Client``).

A local cluster of two worker processes runs a tiny training run. One actor
task of the third iteration is held on its worker (the worker's copy of
``play_chunk`` waits before playing and says where it runs); the test then
SIGKILLs that worker's process. The task dies with its worker, so Dask must
run it again elsewhere: the run still completes every iteration, writes a
playable model, and, since a task is a pure function of the network and its
seed, ends with exactly the network of the same configuration trained on a
local thread pool. The kill happens while the run waits for the held task,
so the run cannot finish before it."""

from __future__ import annotations

import concurrent.futures as cf
import os
import sys

import numpy as np
import pytest

pytest.importorskip("jax", reason="training needs JAX (pip install '.[rl]')")
distributed = pytest.importorskip("distributed")
cloudpickle = pytest.importorskip("cloudpickle")

from guandan import Game  # noqa: E402
from guandan.rl import NetPolicy, load_checkpoint  # noqa: E402
from guandan.rl.train import TrainConfig, read_log, train  # noqa: E402
from helpers import killing_the_holder  # noqa: E402

ITERATIONS = 6
HOLD_AFTER = 2          # the first task started once this many iterations are logged is held, then killed
CFG = dict(hidden="32x2", games=4, actors=2, imitation=1, iterations=ITERATIONS, batch=128, eval_deals=2,
           eval_minutes=0, eval_opponents=("greedy",))


def _hold_one_task(log_path: str, marker: str, release: str, after: int) -> int:
    """Run on each worker before training (pickled by value): replaces the
    worker's ``guandan.rl.actor.play_chunk`` (what a submitted task's
    reference to it resolves to there) by a copy that plays normally, except
    for the first task, over all workers, started once ``log_path`` shows
    ``after`` iterations: that one writes its worker's pid to ``marker`` and
    waits (until ``release`` exists, at most two minutes) before playing.
    A worker started later (the replacement of a killed one) plays normally."""
    import json as _json
    import os as _os
    import time as _time

    import guandan.rl.actor as actor

    real = actor.play_chunk

    def logged() -> int:
        try:
            with open(log_path, encoding="utf-8") as f:
                return sum(1 for line in f if line.strip() and _json.loads(line).get("kind") == "iteration")
        except (OSError, ValueError):
            return 0

    def held(layers, task):
        if not _os.path.exists(marker + ".lock") and logged() >= after:
            try:
                fd = _os.open(marker + ".lock", _os.O_CREAT | _os.O_EXCL | _os.O_WRONLY)
            except FileExistsError:
                fd = -1             # another worker holds its task
            if fd >= 0:
                _os.close(fd)
                with open(marker + ".tmp", "w", encoding="utf-8") as f:
                    _json.dump({"pid": _os.getpid(), "seed": task.seed, "logged": logged()}, f)
                _os.replace(marker + ".tmp", marker)
                deadline = _time.monotonic() + 120
                while not _os.path.exists(release) and _time.monotonic() < deadline:
                    _time.sleep(0.05)
        return real(layers, task)

    actor.play_chunk = held
    return _os.getpid()


@pytest.fixture
def cluster():
    """A local cluster of two single-threaded worker processes (with their
    nannies, which start a new worker when one dies), closed afterwards."""
    cl = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    try:
        client = distributed.Client(cl)
        try:
            yield cl, client
        finally:
            client.close()
    finally:
        cl.close()


def _weights(folder):
    return [a for layer in load_checkpoint(os.path.join(folder, "model.npz")).layers for a in layer]


def test_a_killed_worker_does_not_stop_training(tmp_path, cluster):
    cl, client = cluster
    client.wait_for_workers(2, timeout=60)
    out = str(tmp_path / "dask")
    os.makedirs(out)
    marker, release = str(tmp_path / "held.json"), str(tmp_path / "release")
    module = sys.modules[__name__]
    cloudpickle.register_pickle_by_value(module)
    try:
        pids = client.run(_hold_one_task, os.path.join(out, "log.jsonl"), marker, release, HOLD_AFTER)
    finally:
        cloudpickle.unregister_pickle_by_value(module)
    worker_pids = set(pids.values())
    assert len(worker_pids) == 2 and os.getpid() not in worker_pids

    with killing_the_holder(marker, release, worker_pids) as killed:
        r = train(out, TrainConfig(**CFG), executor=client)

    # the held task's worker was killed in the middle of the run ...
    assert killed, "no worker task was held"
    assert killed["pid"] in worker_pids and killed["logged"] == HOLD_AFTER < ITERATIONS
    client.wait_for_workers(2, timeout=60)      # the nanny starts a new worker
    assert killed["pid"] not in set(client.run(os.getpid).values())
    # ... and the run finished every iteration, evaluated and wrote a playable model
    assert r["iterations"] == ITERATIONS and not r["stopped"] and r["samples"] > 0
    log = read_log(os.path.join(out, "log.jsonl"))
    assert [e["iteration"] for e in log if e["kind"] == "iteration"] == list(range(1, ITERATIONS + 1))
    assert [e["opponent"] for e in log if e["kind"] == "eval"] == ["greedy"]
    assert load_checkpoint(os.path.join(out, "model.npz")).meta["info"]["iteration"] == ITERATIONS
    g = Game(seed=3)
    g.play_out([NetPolicy(os.path.join(out, "model.npz"))] * 4, until="round")
    assert g.is_over or g.round_index == 1

    # the task lost with the worker ran again with the same seed: the network of a local run
    with cf.ThreadPoolExecutor(2) as ex:
        r_local = train(str(tmp_path / "local"), TrainConfig(**CFG), executor=ex)
    assert r_local["samples"] == r["samples"]
    for a, b in zip(_weights(out), _weights(tmp_path / "local")):
        np.testing.assert_array_equal(a, b)
