"""Search tools speed and strength.

    python bench/search.py [--quick] [--deals 300] [--rollouts 200] [--sizes 2,3,4,5,6]
                           [--solve-n 30] [--workers 1] [--skip-duplicate]

1. Rollouts/s on one core from typical mid-round positions (first-round
   deals played by greedy until 60 cards are left in the four hands), with
   the greedy policy at every seat: from the position as it is and from a
   new sampled world for the seat to act each time (the search's use).
2. solve() by hand size: random deals of k cards to each of the four seats
   (random level and leader), CPU time and nodes (median, 90th percentile,
   max; a cap of 6M nodes) and how many are exact within 1 s of CPU. Plus real
   endgames: greedy first-round games stopped when at most k cards are left
   in every hand (--real).
3. Search vs greedy, duplicate: the same first-round deals (Rules(max_rounds=1))
   played twice with the native search (``search:rollouts=N``) at seats 0 and
   2 then at seats 1 and 3, greedy at the others; the search team's mean level
   points per deal and its banker rate, with 95% intervals.

The last line is a JSON object with every figure. Times are CPU seconds of
this process (the host is shared, so wall time is noisier).
"""

import argparse
import json
import math
import random
import statistics
import time

import numpy as np

from guandan import Game, Rules, simulate
from guandan import search

DECK = [s + r for r in "23456789TJQKA" for s in "SHCD"] * 2 + ["SB", "SB", "HR", "HR"]


def mid_round_positions(n, seed, cards_left=60):
    out = []
    k = 0
    while len(out) < n:
        g = Game(seed=seed * 1000 + k)
        k += 1
        while g.phase == "play" and g.round_index == 0 and sum(g.card_counts) > cards_left:
            g.play_policy("greedy")
        if g.phase == "play" and g.round_index == 0:
            out.append(g)
    return out


def bench_rollouts(n_pos=10, n=2000):
    pos = mid_round_positions(n_pos, 1)
    rates_true, rates_worlds = [], []
    for g in pos:
        t = time.process_time()
        g.rollouts("greedy", n, seed=1)
        rates_true.append(n / (time.process_time() - t))
        t = time.process_time()
        g.rollouts("greedy", n, seed=1, seat=g.to_act)
        rates_worlds.append(n / (time.process_time() - t))
    return {"positions": n_pos, "rollouts_each": n, "cards_left": 60,
            "greedy_per_s_position": round(statistics.median(rates_true)),
            "greedy_per_s_sampled_worlds": round(statistics.median(rates_worlds))}


def random_positions(k, n, seed):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        d = DECK[:]
        rng.shuffle(d)
        out.append(Game.from_position([d[i * k:(i + 1) * k] for i in range(4)],
                                      level=rng.choice("23456789TJQKA"), to_act=rng.randrange(4)))
    return out


def real_endgames(n, seed, per_hand=6):
    out = []
    k = 0
    while len(out) < n:
        g = Game(seed=seed * 7919 + k)
        k += 1
        while g.phase == "play" and g.round_index == 0 and max(g.card_counts) > per_hand:
            g.play_policy("greedy")
        if g.phase == "play" and g.round_index == 0:
            out.append(g)
    return out


def solve_stats(games, limit=1.0, node_cap=6_000_000):
    """CPU time per solve (no time limit: a node cap of ~2-3 s instead, as the
    shared host makes wall time noisy); exact_within_limit counts the solves
    exact in at most ``limit`` CPU seconds."""
    cpu, nodes, exact = [], [], 0
    for g in games:
        t = time.process_time()
        r = search.solve(g, max_nodes=node_cap)
        c = time.process_time() - t
        cpu.append(c)
        nodes.append(r.nodes)
        exact += r.exact and c <= limit
    cpu.sort()
    nodes.sort()
    q = lambda xs, p: xs[min(len(xs) - 1, int(p * len(xs)))]
    return {"n": len(games), "exact_within_limit": exact, "limit_s": limit, "node_cap": node_cap,
            "cpu_ms_median": round(q(cpu, 0.5) * 1e3, 2), "cpu_ms_p90": round(q(cpu, 0.9) * 1e3, 2),
            "cpu_ms_max": round(cpu[-1] * 1e3, 2), "nodes_median": q(nodes, 0.5),
            "nodes_max": nodes[-1],
            "ns_per_node": round(sum(cpu) / max(1, sum(nodes)) * 1e9)}


def bench_solve(sizes, n, real=(6, 8, 10)):
    out = {}
    for k in sizes:
        out[f"random_{k}_per_hand"] = solve_stats(random_positions(k, n, 100 + k))
    for k in real:
        out[f"real_endgames_at_most_{k}_per_hand"] = solve_stats(real_endgames(n, 5, k))
    return out


def bench_duplicate(deals, rollouts, seed=2024, workers=1):
    spec = f"search:rollouts={rollouts}"
    rules = Rules(max_rounds=1)
    t = time.process_time()
    w = time.perf_counter()
    a = simulate(deals, policies=(spec, "greedy", spec, "greedy"), rules=rules, seed=seed, workers=workers)
    b = simulate(deals, policies=("greedy", spec, "greedy", spec), rules=rules, seed=seed, workers=workers)
    cpu = time.process_time() - t
    wall = time.perf_counter() - w

    def team_points(rows, team):
        bt = rows["banker_team"].astype(int)
        d = rows["delta"].astype(int)
        return np.where(bt == team, d, -d)

    pa = team_points(a.rows, 0)            # search at seats 0, 2
    pb = team_points(b.rows, 1)            # search at seats 1, 3
    per_deal = (pa + pb) / 2.0             # the same deal from both sides
    wins = int((a.rows["banker_team"] == 0).sum() + (b.rows["banker_team"] == 1).sum())
    n = 2 * deals
    p = wins / n
    se = math.sqrt(p * (1 - p) / n)
    m = float(per_deal.mean())
    sd = float(per_deal.std(ddof=1)) / math.sqrt(deals) if deals > 1 else float("nan")
    return {"deals": deals, "spec": spec, "vs": "greedy",
            "search_banker_rate": round(p, 4), "banker_rate_ci95": [round(p - 1.96 * se, 4), round(p + 1.96 * se, 4)],
            "search_points_per_deal": round(m, 3),
            "points_ci95": [round(m - 1.96 * sd, 3), round(m + 1.96 * sd, 3)],
            "cpu_s": round(cpu, 1), "wall_s": round(wall, 1), "workers": workers}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    ap.add_argument("--deals", type=int, default=300)
    ap.add_argument("--rollouts", type=int, default=200)
    ap.add_argument("--sizes", default="2,3,4,5,6,7")
    ap.add_argument("--real", default="6,8,10", help="real endgames: at most this many cards per hand")
    ap.add_argument("--solve-n", type=int, default=30)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--skip-duplicate", action="store_true")
    args = ap.parse_args(argv)
    if args.quick:
        args.deals, args.rollouts, args.solve_n, args.sizes, args.real = 6, 30, 4, "2,3,4", "6"
    res = {"rollouts": bench_rollouts(3 if args.quick else 10, 300 if args.quick else 2000)}
    r = res["rollouts"]
    print(f"rollouts (greedy, one core, {r['cards_left']} cards left): {r['greedy_per_s_position']:,}/s "
          f"from the position, {r['greedy_per_s_sampled_worlds']:,}/s from sampled worlds")
    res["solve"] = bench_solve([int(x) for x in args.sizes.split(",")], args.solve_n,
                               [int(x) for x in args.real.split(",")])
    for name, s in res["solve"].items():
        print(f"solve {name}: median {s['cpu_ms_median']} ms, p90 {s['cpu_ms_p90']} ms, max "
              f"{s['cpu_ms_max']} ms, {s['exact_within_limit']}/{s['n']} exact within {s['limit_s']} s CPU, "
              f"nodes median {s['nodes_median']:,} max {s['nodes_max']:,}, {s['ns_per_node']} ns/node")
    if not args.skip_duplicate:
        d = bench_duplicate(args.deals, args.rollouts, workers=args.workers)
        res["duplicate"] = d
        print(f"search ({d['spec']}) vs greedy, {d['deals']} duplicate deals: banker {d['search_banker_rate']:.1%} "
              f"{d['banker_rate_ci95']}, {d['search_points_per_deal']:+.3f} level points per deal "
              f"{d['points_ci95']} ({d['cpu_s']} s CPU, {d['wall_s']} s wall)")
    print(json.dumps(res))


if __name__ == "__main__":
    main()
