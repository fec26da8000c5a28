"""One search decision on several threads: rollouts in a wall-time budget
and the wall time of a fixed rollout budget, threads=1 against threads=N.

    python bench/search_threads.py [--threads 2] [--positions 20] [--ms 200] [--rollouts 4000]

Positions: first-round deals played by the expert until 60 cards are left
in the four hands, the seat to act having a choice. For each position the
search decides with ``ms`` of wall time on 1 and on N threads (rollouts
counted), and with a budget of ``rollouts`` evaluations on 1 and N threads
(wall seconds; the decision and every value must be the same). Prints the
medians and the ratios, then one JSON line. The host must have N free
cores for the ratio to mean anything.
"""

import argparse
import json
import statistics
import time

from guandan import Game, search
from guandan.state import Phase


def positions(n, seed=0, cards_left=60):
    out, k = [], 0
    while len(out) < n:
        g = Game(seed=seed * 1000 + k)
        k += 1
        while not g.is_over and (g.phase is not Phase.PLAY or sum(g.card_counts) > cards_left
                                 or len(g.legal_moves()) < 3):
            if g.round_index > 0:
                break
            g.play(g.choose("expert"))
        if not g.is_over and g.round_index == 0 and g.phase is Phase.PLAY and len(g.legal_moves()) >= 3:
            out.append(g)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--positions", type=int, default=20)
    ap.add_argument("--ms", type=float, default=200.0)
    ap.add_argument("--rollouts", type=int, default=4000)
    a = ap.parse_args(argv)
    games = positions(a.positions)
    ratio_roll, ratio_time, r1s, rns = [], [], [], []
    for g in games:
        one = search.explain(g, ms=a.ms, seed=1)
        many = search.explain(g, ms=a.ms, seed=1, threads=a.threads)
        r1s.append(one.rollouts / one.seconds)
        rns.append(many.rollouts / many.seconds)
        ratio_roll.append(many.rollouts / max(one.rollouts, 1))
        t = time.perf_counter()
        x = search.explain(g, rollouts=a.rollouts, seed=2)
        t1 = time.perf_counter() - t
        t = time.perf_counter()
        y = search.explain(g, rollouts=a.rollouts, seed=2, threads=a.threads)
        tn = time.perf_counter() - t
        assert x.move == y.move and [c.value for c in x.candidates] == [c.value for c in y.candidates]
        ratio_time.append(t1 / tn)
    out = {
        "threads": a.threads, "positions": len(games), "ms": a.ms, "rollouts": a.rollouts,
        "rollouts_per_s_1": statistics.median(r1s), f"rollouts_per_s_{a.threads}": statistics.median(rns),
        "rollouts_ratio_median": statistics.median(ratio_roll),
        "speedup_fixed_budget_median": statistics.median(ratio_time),
    }
    print(f"{len(games)} positions, {a.ms:g} ms wall: rollouts x{out['rollouts_ratio_median']:.2f} with "
          f"{a.threads} threads (median; {out['rollouts_per_s_1']:,.0f}/s on one)")
    print(f"{a.rollouts} rollouts: {out['speedup_fixed_budget_median']:.2f}x faster with {a.threads} threads "
          f"(median), the same decisions and values")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
