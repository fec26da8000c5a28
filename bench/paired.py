"""The paired difference of two arena runs over the same deals.

    python bench/paired.py NEW.json OLD.json

Both files are ``guandan arena ... --out FILE`` results of two bots against
the same opponents with the same ``--seed`` and ``--deals`` (so the same
deals, pair by pair). For each opponent: deals won by each bot, and the
difference of their pair scores deal by deal (percentage points of deals
won, and level points per deal) with a 95% normal interval.
"""

import json
import math
import sys


def pairs_by_opponent(path):
    d = json.load(open(path))
    out = {}
    for p in d["pairings"]:
        out[p["b"]] = ({q["deal"]: q for q in p["pairs"]}, p["a"])
    return out


def interval(xs):
    n = len(xs)
    m = sum(xs) / n
    v = sum((x - m) ** 2 for x in xs) / (n - 1) if n > 1 else 0.0
    h = 1.96 * math.sqrt(v / n)
    return m, m - h, m + h


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    new, old = pairs_by_opponent(argv[0]), pairs_by_opponent(argv[1])
    rows = []
    for opp in new:
        if opp not in old:
            continue
        a, an = new[opp]
        b, bn = old[opp]
        deals = sorted(set(a) & set(b))
        ds = [(a[k]["pair"] - b[k]["pair"]) / 2 * 100 for k in deals]        # points of deals won
        dp = [(a[k]["pair_points"] - b[k]["pair_points"]) / 2 for k in deals]  # level points per deal
        wa = sum(a[k]["pair"] for k in deals) / (2 * len(deals)) * 100
        wb = sum(b[k]["pair"] for k in deals) / (2 * len(deals)) * 100
        m, lo, hi = interval(ds)
        pm, plo, phi = interval(dp)
        rows.append((opp, len(deals), wa, wb, m, lo, hi, pm, plo, phi))
    print(f"{argv[0]} ({an}) against {argv[1]} ({bn}), same deals")
    print("| opponent | pairs | new: deals won | old: deals won | difference (points, 95%) | level points per deal |")
    print("| --- | ---: | ---: | ---: | --- | --- |")
    for opp, n, wa, wb, m, lo, hi, pm, plo, phi in rows:
        print(f"| {opp} | {n} | {wa:.1f}% | {wb:.1f}% | {m:+.1f} [{lo:+.1f}, {hi:+.1f}] | "
              f"{pm:+.2f} [{plo:+.2f}, {phi:+.2f}] |")


if __name__ == "__main__":
    main()
