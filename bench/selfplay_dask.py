"""Self-play throughput of the training actors on a local process pool and on a local Dask cluster.

    python bench/selfplay_dask.py [--hidden 256x3] [--games 128] [--workers 2] [--rounds 4] [--runs 3]

The same actor tasks (:func:`guandan.rl.actor.play_chunk`, ε = 0.05, every
seat the network, random weights) run on (a) a ``concurrent.futures``
process pool of ``--workers`` processes, as ``guandan train`` makes by
default, and (b) a ``distributed.LocalCluster`` of ``--workers``
single-threaded worker processes through a ``distributed.Client``, as
``guandan train --dask`` uses. A run is ``--rounds`` rounds submitted the
way the trainer submits an iteration: ``--workers`` tasks of ``--games``
deals, the network passed with every task, all results awaited before the
next round. Reported: samples (decisions) per second of each executor, from
its run of median samples/s among ``--runs`` (the runs alternate between the
two executors, after one untimed warm-up round on each), and the ratio Dask
/ pool (the target: at least 0.85, Dask within 15% of the pool). Both
executors play the same seeds, so their sample counts must agree. The last
line is a JSON object with the same figures.
"""

import argparse
import concurrent.futures as cf
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

from guandan.arena.runner import worker_init  # noqa: E402
from guandan.rl.actor import ROW_DIM, ActorTask, actor_context, play_chunk  # noqa: E402
from guandan.rl.model import init_layers, parse_hidden  # noqa: E402


def rounds(submit, layers, games, workers, n_rounds, seed):
    """Play ``n_rounds`` rounds of ``workers`` tasks; returns (decisions, wall seconds)."""
    t = time.perf_counter()
    dec = 0
    for r in range(n_rounds):
        tasks = [ActorTask(seed=seed + 1000 * r + k, games=games, epsilon=0.05) for k in range(workers)]
        futs = [submit(play_chunk, layers, task) for task in tasks]
        dec += sum(f.result().decisions for f in futs)
    return dec, time.perf_counter() - t


def median_run(runs):
    runs = sorted(runs, key=lambda r: r["samples_per_s"])
    return runs[len(runs) // 2]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hidden", default="256x3")
    ap.add_argument("--games", type=int, default=128)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    try:
        import distributed
    except ImportError:
        sys.exit("this benchmark needs dask.distributed: pip install 'dask[distributed]'")
    layers = init_layers([ROW_DIM] + parse_hidden(a.hidden) + [1], seed=1)
    results = {"pool": [], "dask": []}
    pool = cf.ProcessPoolExecutor(a.workers, mp_context=actor_context(), initializer=worker_init,
                                  initargs=(os.getpid(),))
    try:
        with distributed.LocalCluster(n_workers=a.workers, threads_per_worker=1, processes=True,
                                      dashboard_address=None) as cluster, distributed.Client(cluster) as client:
            client.wait_for_workers(a.workers)
            executors = {"pool": pool.submit, "dask": client.submit}
            for submit in executors.values():          # untimed: worker start-up and imports
                rounds(submit, layers, a.games, a.workers, 1, 1)
            for k in range(a.runs):
                seed = 10 + 100_000 * k
                for name, submit in executors.items():
                    dec, wall = rounds(submit, layers, a.games, a.workers, a.rounds, seed)
                    results[name].append({"samples": dec, "wall": wall, "samples_per_s": dec / wall})
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    for k in range(a.runs):
        if results["pool"][k]["samples"] != results["dask"][k]["samples"]:
            sys.exit(f"run {k}: the pool and Dask played different samples (the tasks are not deterministic?)")
    pool_m, dask_m = median_run(results["pool"]), median_run(results["dask"])
    ratio = dask_m["samples_per_s"] / pool_m["samples_per_s"]
    print(f"{'executor':>8} {'workers':>7} {'samples':>9} {'samples/s':>10}")
    for name, m in (("pool", pool_m), ("dask", dask_m)):
        print(f"{name:>8} {a.workers:>7} {m['samples']:>9,} {m['samples_per_s']:>10,.0f}")
    print(f"dask / pool: {ratio:.3f} ({'within' if ratio >= 0.85 else 'NOT within'} 15%)")
    print(json.dumps({"hidden": a.hidden, "games": a.games, "workers": a.workers, "rounds": a.rounds,
                      "runs": a.runs, "pool_samples_per_s": pool_m["samples_per_s"],
                      "dask_samples_per_s": dask_m["samples_per_s"], "samples": pool_m["samples"],
                      "ratio": ratio, "within_15_percent": ratio >= 0.85}))


if __name__ == "__main__":
    main()
