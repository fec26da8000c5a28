"""Whole-game simulation speed in the native loop.

    python bench/simulate.py [--deals 40000] [--runs 3] [--million]

One core (one thread), uniform random policy at every seat (over the full
legal list generated at each decision), then the greedy policy. With
--million, also times 1,000,000 deals of greedy vs random on all cores
(``guandan simulate --deals 1000000``). The last line is a JSON object:
``{"decisions_per_s", "deals_per_s", "decisions_per_deal"}`` for random play,
with the same three figures for greedy under "greedy".
"""

import argparse
import json
import os
import statistics
import time

import numpy as np

from guandan import Rules, _sim, simulate
from guandan.simulation import chunk_seeds, progress_bar


def one_core(codes, deals, runs, label):
    rates = []
    bar = progress_bar(runs * deals, "deal", desc=label)       # on a terminal only; outside the timing
    for r in range(runs):
        gs, ps = chunk_seeds(r, 0)
        t = time.perf_counter()
        out, _ = _sim.run_chunk(gs, ps, deals, 0, np.array(codes, dtype=np.int16), Rules().native)
        dt = time.perf_counter() - t
        dec = int(out["decisions"].sum())
        rates.append((dec / dt, deals / dt, dec / deals))
        bar.update(deals)
    bar.close()
    med = lambda i: statistics.median(x[i] for x in rates)
    return {"decisions_per_s": round(med(0)), "deals_per_s": round(med(1), 1),
            "decisions_per_deal": round(med(2), 2)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--deals", type=int, default=40000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--million", action="store_true")
    args = ap.parse_args(argv)
    rnd = one_core([1, 1, 1, 1], args.deals, args.runs, "random")
    gre = one_core([2, 2, 2, 2], args.deals, args.runs, "greedy")
    print(f"one core, random policy: {rnd['decisions_per_s']:,} decisions/s, "
          f"{rnd['deals_per_s']:,.0f} deals/s, {rnd['decisions_per_deal']} decisions/deal")
    print(f"one core, greedy policy: {gre['decisions_per_s']:,} decisions/s, "
          f"{gre['deals_per_s']:,.0f} deals/s, {gre['decisions_per_deal']} decisions/deal")
    res = dict(rnd, greedy=gre)
    if args.million:
        t = time.perf_counter()
        simulate(1_000_000, policies=("greedy", "random", "greedy", "random"), seed=1,
                     workers=os.cpu_count(), keep_rows=False, progress=None)   # a bar on a terminal
        dt = time.perf_counter() - t
        print(f"1,000,000 deals greedy vs random on {os.cpu_count()} cores: {dt:.1f} s")
        res["million_deals_s"] = round(dt, 1)
    print(json.dumps(res))


if __name__ == "__main__":
    main()
