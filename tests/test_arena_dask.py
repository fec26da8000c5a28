"""The arena on a Dask cluster (``arena(..., executor=client)``, ``guandan
arena ... --dask ADDRESS``) gives the result table of a local run with the
same seed, refuses what the workers cannot run, and survives a killed worker.

A local cluster of two single-threaded worker processes stands in for a
real one: the tasks are pickled, sent to other processes and run there, as
on remote machines."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

distributed = pytest.importorskip("distributed")
cloudpickle = pytest.importorskip("cloudpickle")

import guandan  # noqa: E402
from guandan import GuandanError  # noqa: E402
from guandan.arena import Engine, arena  # noqa: E402
from guandan.cli import main  # noqa: E402
from helpers import killing_the_holder  # noqa: E402

SRC = os.path.dirname(os.path.dirname(os.path.abspath(guandan.__file__)))

# built-in policies of both kinds: bare native names (native loop) and a
# spec with options (through Game, in batches of 4 deals)
POOL = ["expert", "greedy", "random", "search:rollouts=2,k=2"]


def _cluster():
    return distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                    dashboard_address=None)


@pytest.fixture(scope="module")
def cluster():
    """A local cluster of two single-threaded worker processes and a client."""
    cl = _cluster()
    try:
        client = distributed.Client(cl)
        try:
            client.wait_for_workers(2, timeout=60)
            yield cl, client
        finally:
            client.close()
    finally:
        cl.close()


def _table(res):
    """The JSON result without what describes the run rather than its
    results (wall time, tables at once)."""
    d = json.loads(json.dumps(res.to_dict()))
    d.pop("seconds")
    d["settings"].pop("concurrency")
    return d


def _report(text):
    """The printed table without the wall time of its first line."""
    import re
    return re.sub(r", [0-9.]+ s\)", ", - s)", text)


BOTS = """
class Lowest:
    \"\"\"The pass when following, else the last listed move.\"\"\"

    def act(self, observation, legal_moves):
        return 0 if not observation["leading"] else len(legal_moves) - 1
"""


@pytest.fixture
def botmod(tmp_path, monkeypatch):
    """A bot module importable here but not on the workers (started before
    its folder was on the path)."""
    import importlib
    (tmp_path / "arena_dask_bots.py").write_text(BOTS)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield importlib.import_module("arena_dask_bots")
    sys.modules.pop("arena_dask_bots", None)


def test_dask_cluster_gives_the_local_table(cluster, tmp_path):
    _, client = cluster
    kw = dict(deals=6, seed=3)
    local = arena(POOL, concurrency=1, records=str(tmp_path / "local"), **kw)
    remote = arena(POOL, executor=client, records=str(tmp_path / "dask"), **kw)
    assert remote.settings["concurrency"] == 2           # the cluster's worker threads
    assert _table(remote) == _table(local)
    assert json.dumps(remote.to_dict()["pairings"]) == json.dumps(local.to_dict()["pairings"])
    assert _report(remote.format()) == _report(local.format())
    assert all(len(r.pairs) == 6 for r in remote.pairings) and remote.ratings is not None
    # the same game records, byte for byte
    files = sorted(os.path.relpath(os.path.join(d, f), tmp_path / "local")
                   for d, _, fs in os.walk(tmp_path / "local") for f in fs)
    assert len(files) == 6 * 6 * 2
    for f in files:
        assert (tmp_path / "dask" / f).read_bytes() == (tmp_path / "local" / f).read_bytes()


def test_dask_cluster_same_sprt_stop_and_whole_games(cluster):
    _, client = cluster
    for kw in (dict(deals=600, seed=8, sprt="elo0=0 elo1=10"), dict(deals=3, seed=2, unit="game")):
        local = arena(["greedy", "random"], concurrency=2, **kw)
        remote = arena(["greedy", "random"], executor=client, **kw)
        assert _table(remote) == _table(local)
    assert remote[0].pairs and local[0].decision is None


def test_in_process_bots_the_workers_cannot_load_are_refused_or_sent_by_value(cluster, botmod):
    _, client = cluster
    # a module the workers cannot import: refused before the first deal, in one line
    for bot in ("arena_dask_bots:Lowest", botmod.Lowest()):
        with pytest.raises(GuandanError, match="Dask worker") as ei:
            arena([bot, "greedy"], deals=4, seed=1, executor=client)
        assert "\n" not in str(ei.value)
    cloudpickle.register_pickle_by_value(botmod)          # the bot's code goes with the task
    try:
        remote = arena([botmod.Lowest(), "greedy"], deals=8, seed=1, executor=client)
    finally:
        cloudpickle.unregister_pickle_by_value(botmod)
    local = arena([botmod.Lowest(), "greedy"], deals=8, seed=1, concurrency=1)
    assert _table(remote) == _table(local) and not remote[0].forfeits


def test_dask_refuses_external_programs_and_unpicklable_bots(cluster):
    _, client = cluster
    with pytest.raises(GuandanError, match="external program .* cannot play on a Dask cluster"):
        arena([Engine("prog", "python prog.py {url}"), "greedy"], deals=2, executor=client)
    lock = threading.Lock()

    def locked_bot(observation, legal_moves):       # holds a lock: cannot be pickled
        with lock:
            return 0
    with pytest.raises(GuandanError, match="cannot be sent to the Dask workers .*cannot be pickled"):
        arena([locked_bot, "greedy"], deals=2, executor=client)


def test_cli_dask_address_gives_the_local_table(cluster, tmp_path, capsys):
    cl, _ = cluster
    args = ["arena", "expert", "greedy", "search:rollouts=2,k=2", "--deals", "5", "--seed", "4", "--quiet"]
    assert main(args + ["--concurrency", "1", "--out", str(tmp_path / "local.json")]) == 0
    local_out = capsys.readouterr().out
    assert main(args + ["--dask", cl.scheduler_address, "--out", str(tmp_path / "dask.json")]) == 0
    dask_out = capsys.readouterr().out
    assert _report(dask_out).replace("dask.json", "local.json") == _report(local_out)
    d = [json.loads((tmp_path / f).read_text()) for f in ("local.json", "dask.json")]
    for x in d:
        x.pop("seconds")
        x["settings"].pop("concurrency")
    assert d[0] == d[1]
    # an external program with --dask: one line, before connecting anywhere
    assert main(["arena", "--engine", "name=prog", "cmd=python prog.py {url}", "greedy",
                 "--dask", "tcp://127.0.0.1:9", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot play on a Dask cluster" in err


def test_cli_sigterm_on_a_cluster_keeps_the_finished_pairs(cluster, tmp_path):
    """SIGTERM during a run on the cluster: the finished pairs are kept, the
    exit code is 143, the cluster is left as it was (its workers serve the
    next run)."""
    cl, client = cluster
    out = tmp_path / "r.json"
    p = subprocess.Popen([sys.executable, "-m", "guandan", "arena", "search:rollouts=20", "expert",
                          "--deals", "400", "--seed", "1", "--dask", cl.scheduler_address, "--out", str(out),
                          "--progress"], env={**os.environ, "PYTHONPATH": SRC}, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        # the progress line ("\r", no newline) appears once the workers took the run
        assert p.stderr.read(1), "the run ended before it started"
        time.sleep(1.0)
        assert p.poll() is None, "the run ended before SIGTERM"
        p.send_signal(signal.SIGTERM)
        stdout, stderr = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    assert p.returncode == 143, stderr[-2000:]
    d = json.loads(out.read_text())
    assert d["interrupted"]["signal"] == "SIGTERM" and d["interrupted"]["pairs"] < 400
    assert "interrupted by SIGTERM" in stdout
    assert len(client.run(os.getpid)) == 2                      # the workers live on
    assert len(arena(["greedy", "random"], deals=3, executor=client)[0].pairs) == 3


def _hold_first_batch(marker: str, release: str) -> int:
    """Run on each worker (pickled by value): the worker's
    ``play_batch_python`` (what a submitted batch's reference to it resolves
    to there) holds the first batch started on any worker: it writes its
    worker's pid to ``marker`` and waits (until ``release`` exists, at most
    two minutes) before playing. A worker started later (the replacement of
    a killed one) plays normally."""
    import json as _json
    import os as _os
    import time as _time

    import guandan.arena.runner as runner

    real = runner.play_batch_python

    def held(a, b, specs, *args):
        try:
            fd = _os.open(marker + ".lock", _os.O_CREAT | _os.O_EXCL | _os.O_WRONLY)
        except FileExistsError:
            fd = -1                  # another batch is (or was) held
        if fd >= 0:
            _os.close(fd)
            with open(marker + ".tmp", "w", encoding="utf-8") as f:
                _json.dump({"pid": _os.getpid(), "deal": specs[0].index}, f)
            _os.replace(marker + ".tmp", marker)
            deadline = _time.monotonic() + 120
            while not _os.path.exists(release) and _time.monotonic() < deadline:
                _time.sleep(0.05)
        return real(a, b, specs, *args)

    runner.play_batch_python = held
    return _os.getpid()


def test_a_killed_worker_does_not_change_the_table(tmp_path):
    """A worker killed (SIGKILL) in the middle of a batch: Dask runs the
    batch again on another worker, and the table is the local run's."""
    kw = dict(deals=12, seed=6)
    pool = ["search:rollouts=2,k=2", "greedy"]
    marker, release = str(tmp_path / "held.json"), str(tmp_path / "release")
    with _cluster() as cl, distributed.Client(cl) as client:
        client.wait_for_workers(2, timeout=60)
        module = sys.modules[__name__]
        cloudpickle.register_pickle_by_value(module)
        try:
            pids = set(client.run(_hold_first_batch, marker, release).values())
        finally:
            cloudpickle.unregister_pickle_by_value(module)
        assert len(pids) == 2 and os.getpid() not in pids
        with killing_the_holder(marker, release, pids) as killed:
            remote = arena(pool, executor=client, **kw)
        assert killed and killed["pid"] in pids, "no batch was held"
        client.wait_for_workers(2, timeout=60)          # the nanny started a new worker
        assert killed["pid"] not in set(client.run(os.getpid).values())
    local = arena(pool, concurrency=1, **kw)
    assert _table(remote) == _table(local) and len(remote[0].pairs) == 12


EXIT_BOT = """
import os


class Exit:
    # ends its own process a few plays into the deal (no exception to catch)

    def act(self, observation, legal_moves):
        if len(observation["history"]) > 6:
            os._exit(7)
        return 0
"""


def test_a_bot_that_kills_every_worker_is_forfeited_as_locally(tmp_path, monkeypatch):
    """A bot that ends its own process kills each worker its batch runs on;
    once Dask gives up (KilledWorker) the batch is replayed here half by half
    and the bot forfeits, as in a local run."""
    import dask
    import importlib
    (tmp_path / "arena_exit_bot.py").write_text(EXIT_BOT)
    monkeypatch.syspath_prepend(str(tmp_path))
    mod = importlib.import_module("arena_exit_bot")
    try:
        local = arena([mod.Exit(), "greedy"], deals=2, seed=1, concurrency=1)
        assert len(local[0].forfeits) == 4 and "exit code 7" in local[0].forfeits[0]["reason"]
        with dask.config.set({"distributed.scheduler.allowed-failures": 1}):
            with _cluster() as cl, distributed.Client(cl) as client:
                client.wait_for_workers(2, timeout=60)
                cloudpickle.register_pickle_by_value(mod)
                try:
                    remote = arena([mod.Exit(), "greedy"], deals=2, seed=1, executor=client)
                finally:
                    cloudpickle.unregister_pickle_by_value(mod)
        assert _table(remote) == _table(local)
    finally:
        sys.modules.pop("arena_exit_bot", None)
