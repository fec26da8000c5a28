"""Perft speed: count action sequences natively from fixed positions.

    python bench/perft.py [--depth 3]

Prints nodes and nodes per second per position; the last line is JSON
``{"nodes": ..., "seconds": ..., "nodes_per_s": ...}``.
"""

import argparse
import json
import time

from guandan import Game, perft
from guandan.simulation import progress_bar


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--depth", type=int, default=3)
    args = ap.parse_args(argv)
    total = 0
    secs = 0.0
    bar = progress_bar(4, "position", desc=f"perft({args.depth})")   # on a terminal only
    for seed in (1, 2, 3, 4):
        g = Game(seed=seed)
        t = time.perf_counter()
        n = perft(g, args.depth)
        dt = time.perf_counter() - t
        total += n
        secs += dt
        bar.update(1)
        bar.write(f"seed {seed} (round 1, {g.card_counts} cards): perft({args.depth}) = {n:,} "
                  f"in {dt:.3f} s, {n / dt:,.0f} nodes/s")
    bar.close()
    print(json.dumps({"nodes": total, "seconds": round(secs, 3), "nodes_per_s": round(total / secs)}))


if __name__ == "__main__":
    main()
