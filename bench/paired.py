"""The paired difference of two arena runs over the same deals.

    python bench/paired.py NEW.json OLD.json [NEW2.json OLD2.json ...]
    python bench/paired.py NEW.json OLD.json,OLD_DICE1.json      # a baseline run twice

Each NEW/OLD pair of files is ``guandan arena ... --out FILE`` results of
two bots against the same opponents with the same ``--seed`` and
``--deals`` (so the same deals, pair by pair); several pairs of files (runs
with other seeds) are pooled. For each opponent: deals won by each bot, and
the difference of their pair scores deal by deal (percentage points of
deals won, and level points per deal) with a 95% normal interval.

A comma-separated list in place of one file is several runs of one bot on
the same deals - typically one configuration with other dice
(``search:...,dice=1``) - averaged deal by deal: a baseline measured twice
is less likely to owe its figure to its dice.
"""

import json
import math
import sys


def pairs_by_opponent(path):
    try:
        with open(path) as f:
            d = json.load(f)
        out = {}
        for p in d["pairings"]:
            out[p["b"]] = ({q["deal"]: q for q in p["pairs"]}, p["a"])
    except (OSError, ValueError, KeyError, TypeError) as e:
        sys.exit(f"{path}: not a readable arena result (guandan arena ... --out FILE): {e}")
    return out


def runs_by_opponent(arg):
    """pairs_by_opponent() of one file, or of several runs on the same deals
    (comma-separated) averaged deal by deal (the deals all of them played)."""
    paths = [p for p in arg.split(",") if p]
    if not paths:
        sys.exit(f"{arg!r}: no arena result named (guandan arena ... --out FILE)")
    if len(paths) == 1:
        return pairs_by_opponent(paths[0])
    runs = [pairs_by_opponent(p) for p in paths]
    out = {}
    for opp in runs[0]:
        if not all(opp in r for r in runs):
            continue
        deals = set.intersection(*(set(r[opp][0]) for r in runs))
        avg = {k: {key: sum(r[opp][0][k][key] for r in runs) / len(runs) for key in ("pair", "pair_points")}
               for k in deals}
        names = list(dict.fromkeys(r[opp][1] for r in runs))
        out[opp] = (avg, " + ".join(names) if len(names) > 1 else f"{names[0]} (x{len(runs)})")
    return out


def interval(xs):
    n = len(xs)
    m = sum(xs) / n
    v = sum((x - m) ** 2 for x in xs) / (n - 1) if n > 1 else 0.0
    h = 1.96 * math.sqrt(v / n)
    return m, m - h, m + h


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) < 2 or len(argv) % 2:
        sys.exit("usage: python bench/paired.py NEW.json OLD.json [NEW2.json OLD2.json ...]")
    runs = []             # (opponent, the new bot's pairs by deal, the old bot's)
    names = None
    for j in range(0, len(argv), 2):
        new, old = runs_by_opponent(argv[j]), runs_by_opponent(argv[j + 1])
        common = [opp for opp in new if opp in old]
        if not common:
            sys.exit(f"{argv[j]} and {argv[j + 1]}: no opponent in common")
        for opp in common:
            if names is None:
                names = (new[opp][1], old[opp][1])
            elif (new[opp][1], old[opp][1]) != names:
                sys.exit(f"{argv[j]} / {argv[j + 1]}: {new[opp][1]} against {old[opp][1]}, "
                         f"not {names[0]} against {names[1]} as in the first pair of runs")
            runs.append((opp, new[opp][0], old[opp][0]))
    rows = []
    for opp in dict.fromkeys(r[0] for r in runs):
        ds, dp, pa, pb = [], [], [], []
        for o, a, b in runs:
            if o != opp:
                continue
            for k in sorted(set(a) & set(b)):
                ds.append((a[k]["pair"] - b[k]["pair"]) / 2 * 100)        # points of deals won
                dp.append((a[k]["pair_points"] - b[k]["pair_points"]) / 2)  # level points per deal
                pa.append(a[k]["pair"])
                pb.append(b[k]["pair"])
        if len(ds) < 2:
            print(f"{opp}: {len(ds)} deal(s) in both runs, too few to compare", file=sys.stderr)
            continue
        m, lo, hi = interval(ds)
        pm, plo, phi = interval(dp)
        rows.append((opp, len(ds), sum(pa) / (2 * len(pa)) * 100, sum(pb) / (2 * len(pb)) * 100,
                     m, lo, hi, pm, plo, phi))
    files = " + ".join(argv[0::2]), " + ".join(argv[1::2])
    print(f"{files[0]} ({names[0]}) against {files[1]} ({names[1]}), same deals")
    print("| opponent | pairs | new: deals won | old: deals won | difference (points, 95%) | level points per deal |")
    print("| --- | ---: | ---: | ---: | --- | --- |")
    for opp, n, wa, wb, m, lo, hi, pm, plo, phi in rows:
        print(f"| {opp} | {n} | {wa:.1f}% | {wb:.1f}% | {m:+.1f} [{lo:+.1f}, {hi:+.1f}] | "
              f"{pm:+.2f} [{plo:+.2f}, {phi:+.2f}] |")


if __name__ == "__main__":
    main()
