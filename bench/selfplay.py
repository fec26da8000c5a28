"""Self-play throughput of the training actors (guandan.rl.actor).

    python bench/selfplay.py [--hidden 512x4,256x3] [--games 128] [--runs 3] [--workers 1]

For each network size (DanZero's size, about 512x4, and the default of
``guandan train``), ``--workers`` processes each play one actor task of
``--games`` deals (ε = 0.05, every seat the network, random weights) at the
same time, after an untimed warm-up task each (the workers' start-up);
reported: samples (decisions) per second over all workers and
the engine's share of the actors' time (stepping, legal moves and the
native encoding, against the network's forward passes), from the run of
median samples/s among ``--runs``. The last line is a JSON object with the
same figures.
"""

import argparse
import concurrent.futures as cf
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

from guandan.rl.actor import ROW_DIM, ActorTask, actor_context, play_chunk  # noqa: E402
from guandan.rl.model import init_layers, parse_hidden  # noqa: E402


def one(hidden, games, seed):
    layers = init_layers([ROW_DIM] + parse_hidden(hidden) + [1], seed=1)
    r = play_chunk(layers, ActorTask(seed=seed, games=games, epsilon=0.05))
    return r.decisions, r.engine_s, r.net_s


def run(hidden, games, workers, seed):
    if workers == 1:
        one(hidden, 2, seed + 1000)                  # warm-up: the first encodings and matmuls
        t = time.perf_counter()
        res = [one(hidden, games, seed)]
        wall = time.perf_counter() - t
    else:
        # the processes guandan train's actors run in (one BLAS thread each)
        with cf.ProcessPoolExecutor(workers, mp_context=actor_context()) as ex:
            # warm-up, untimed: the workers' start-up and imports
            list(ex.map(one, [hidden] * workers, [2] * workers, [seed + 1000 + k for k in range(workers)]))
            t = time.perf_counter()
            res = list(ex.map(one, [hidden] * workers, [games] * workers, [seed + k for k in range(workers)]))
            wall = time.perf_counter() - t
    dec = sum(r[0] for r in res)
    eng = sum(r[1] for r in res)
    net = sum(r[2] for r in res)
    return {"hidden": hidden, "workers": workers, "games": games, "samples": dec,
            "samples_per_s": dec / wall, "engine_share": eng / (eng + net)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hidden", default="512x4,256x3")
    ap.add_argument("--games", type=int, default=128)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--workers", type=int, default=1)
    a = ap.parse_args()
    out = []
    print(f"{'network':>10} {'workers':>7} {'samples/s':>10} {'engine share':>12}")
    for h in a.hidden.split(","):
        runs = sorted((run(h, a.games, a.workers, 10 + k) for k in range(a.runs)), key=lambda r: r["samples_per_s"])
        m = runs[len(runs) // 2]
        out.append(m)
        print(f"{h:>10} {m['workers']:>7} {m['samples_per_s']:>10,.0f} {100 * m['engine_share']:>11.1f}%")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
