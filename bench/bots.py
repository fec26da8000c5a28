"""Strength and speed of the native expert policy.

    python bench/bots.py [--deals 5000] [--seed 1] [--speed-deals 4000] [--vs greedy,random]

(1) Speed: decisions/s of four expert seats in the native loop on one core
    (``simulate(..., workers=1)``; the summary's decisions_per_s, wall clock,
    median of --runs runs; CPU-time rate too, as the host is shared).
(2) Strength, duplicate play: for each opponent X, ``simulate(N,
    policies=("expert", X, "expert", X), seed=s)`` and ``simulate(N,
    policies=(X, "expert", X, "expert"), seed=s)``. The same seed deals the
    same cards whoever plays (the deal RNG is separate from the policies';
    checked here on whole games through Game records), so each deal is played
    from both sides. A deal is won by the team of the first player out (the
    row field ``banker_team``); the fraction of deals won by the expert's team
    is pooled over both halves, with a 95% Wilson interval, and the level
    points per deal are the levels the expert's team gained minus those the
    opponents gained.
    Two protocols: "fresh" deals (``Rules(max_rounds=1)``: every deal is a
    game's first round - same cards, same first leader, no tribute - a strict
    duplicate) and "in-game" deals (default rules: the deals of whole games,
    tribute and return included, levels moving; the deal at (game, round) has
    the same cards in both halves, but which rounds are reached depends on
    the play).

The last line is a JSON object with every figure.
"""

import argparse
import json
import math
import statistics
import time

import numpy as np

from guandan import Game, Rules, simulate


def wilson(k, n, z=1.96):
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, c - h), min(1.0, c + h))


def speed(deals, runs):
    wall, cpu = [], []
    for r in range(runs):
        c0 = time.process_time()
        res = simulate(deals, policies=("expert",) * 4, seed=100 + r, workers=1, keep_rows=False)
        c1 = time.process_time()
        s = res.summary()
        wall.append(s["decisions_per_s"])
        cpu.append(s["decisions_per_deal"] * deals / (c1 - c0))
    return {"decisions_per_s": round(statistics.median(wall)),
            "decisions_per_s_cpu": round(statistics.median(cpu)),
            "decisions_per_deal": round(s["decisions_per_deal"], 1), "deals": deals, "runs": runs}


def duplicate(opp, n, seed, rules):
    a = simulate(n, policies=("expert", opp, "expert", opp), seed=seed, rules=rules, workers=1)
    b = simulate(n, policies=(opp, "expert", opp, "expert"), seed=seed, rules=rules, workers=1)
    won = int((a.rows["banker_team"] == 0).sum() + (b.rows["banker_team"] == 1).sum())
    pts = (np.where(a.rows["banker_team"] == 0, a.rows["delta"], -a.rows["delta"]).sum()
           + np.where(b.rows["banker_team"] == 1, b.rows["delta"], -b.rows["delta"]).sum())
    # strict pairs: the same (game, round) reached in both halves
    ka = {(g, r): bt == 0 for g, r, bt in zip(a.rows["game"], a.rows["round"], a.rows["banker_team"])}
    both = [(ka[(g, r)], bt == 1) for g, r, bt in zip(b.rows["game"], b.rows["round"],
                                                       b.rows["banker_team"]) if (g, r) in ka]
    lo, hi = wilson(won, 2 * n)
    return {"opponent": opp, "deals": 2 * n, "win_rate": won / (2 * n), "ci95": [lo, hi],
            "points_per_deal": float(pts) / (2 * n),
            "paired_deals": len(both),
            "paired_both_sides_won": sum(x and y for x, y in both) / len(both) if both else None,
            "seconds": round(a.elapsed + b.elapsed, 2)}


def deals_independent_of_policies(seeds=(1, 2, 3), rounds=3):
    """The cards dealt at each round are the same whoever plays (Game records)."""
    for seed in seeds:
        g1, g2 = Game(seed=seed), Game(seed=seed)
        for _ in range(rounds):
            if not g1.is_over:
                g1.play_out(("expert", "greedy", "expert", "greedy"), until="round")
            if not g2.is_over:
                g2.play_out(("greedy", "expert", "greedy", "expert"), until="round")
        d1, d2 = g1.record()["deals"], g2.record()["deals"]
        k = min(len(d1), len(d2))
        if [[sorted(h.split()) for h in d] for d in d1[:k]] != \
                [[sorted(h.split()) for h in d] for d in d2[:k]]:
            return False
    return True


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--deals", type=int, default=5000, help="deals per half (per side)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--speed-deals", type=int, default=4000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--vs", default="greedy,random")
    args = ap.parse_args(argv)

    sp = speed(args.speed_deals, args.runs)
    print(f"speed, four expert seats, one core: {sp['decisions_per_s']:,} decisions/s "
          f"(wall clock; {sp['decisions_per_s_cpu']:,} per CPU second), "
          f"{sp['decisions_per_deal']} decisions/deal")
    indep = deals_independent_of_policies()
    print(f"deal RNG independent of the policies (whole games, Game records): {indep}")
    res = {"speed": sp, "deal_rng_independent": indep, "duplicate": {}}
    print(f"\n{'protocol':<10}{'opponent':<10}{'deals':>8}{'expert wins':>13}{'95% CI':>18}"
          f"{'points/deal':>13}{'s':>7}")
    for proto, rules in (("fresh", Rules(max_rounds=1)), ("in-game", Rules())):
        res["duplicate"][proto] = []
        for opp in args.vs.split(","):
            d = duplicate(opp, args.deals, args.seed, rules)
            res["duplicate"][proto].append(d)
            lo, hi = d["ci95"]
            print(f"{proto:<10}{opp:<10}{d['deals']:>8,}{d['win_rate']:>12.2%}"
                  f"{f'[{lo:.2%}, {hi:.2%}]':>19}{d['points_per_deal']:>+13.2f}{d['seconds']:>7.1f}")
    print(json.dumps(res))


if __name__ == "__main__":
    main()
