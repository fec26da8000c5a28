"""Speed of the native batched encodings (VecGame.encode).

    python bench/encode.py [--games 256] [--steps 300] [--runs 3]

``--games`` games step together with uniformly random actions (drawn in
numpy); at every step each encoding writes the rows of every legal action
into a preallocated buffer (``out=``). Reported per encoding: rows per
second, and the share of the time spent in ``step`` (the engine: applying
the actions and generating the next legal moves) and in ``encode``, from
the run of median rows/s among ``--runs``. The last line is a JSON object
with the same figures.
"""

import argparse
import json
import time

import numpy as np

from guandan import VecGame
from guandan.vec import ENCODING_DIMS


def run(games, steps, encoding, seed=1):
    v = VecGame(games, seed=seed)
    rng = np.random.default_rng(seed)
    dim = ENCODING_DIMS[encoding]
    out = np.empty((max(v.n_legal, 1), dim), dtype=np.float32)
    offs = np.empty(games + 1, dtype=np.int64)
    t_step = t_enc = 0.0
    rows = 0
    for _ in range(steps):
        if v.n_legal > out.shape[0]:       # grow the buffer (rarely: leads with many moves)
            out = np.empty((2 * v.n_legal, dim), dtype=np.float32)
        t = time.perf_counter()
        o, x = v.encode(encoding, out=out, offsets=offs)
        t_enc += time.perf_counter() - t
        rows += x.shape[0]
        a = (rng.random(games) * np.diff(o)).astype(np.int64)
        t = time.perf_counter()
        v.step(a)
        t_step += time.perf_counter() - t
    total = t_step + t_enc
    return {"rows": rows, "rows_per_s": round(rows / t_enc), "rows_per_step": round(rows / steps, 1),
            "step_s": round(t_step, 3), "encode_s": round(t_enc, 3),
            "step_share": round(t_step / total, 3), "encode_share": round(t_enc / total, 3)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=256)
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    res = {}
    print(f"{args.games} games, {args.steps} random steps, median of {args.runs} runs")
    print(f"{'encoding':10} {'rows/s':>12} {'rows/step':>10} {'step s':>8} {'encode s':>9} {'step':>6} {'encode':>7}")
    for enc in ENCODING_DIMS:
        runs = sorted((run(args.games, args.steps, enc) for _ in range(max(args.runs, 1))),
                      key=lambda x: x["rows_per_s"])
        r = runs[len(runs) // 2]
        res[enc] = r
        print(f"{enc:10} {r['rows_per_s']:>12,} {r['rows_per_step']:>10} {r['step_s']:>8} {r['encode_s']:>9} "
              f"{r['step_share']:>6.1%} {r['encode_share']:>7.1%}")
    print(json.dumps(res))


if __name__ == "__main__":
    main()
