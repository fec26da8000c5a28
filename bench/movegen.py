"""Move generation speed on the 1,000 anchor hands (tests/data), the hands
the peer engines of docs/benchmarks.md were timed on.

    python bench/movegen.py [--reps 5] [--runs 5] [--deals 20000]
    python bench/movegen.py --vs OTHER/src [--pairs 7]     # A/B against another tree
    python bench/movegen.py --phases                       # where the time goes (docs/profile.md)

Prints the speed table of the README (each figure with its target), the
ideal emitter's time on the same hands and the ratio to it, the worst
hands, and whole random / expert games per second; then, as its last line,
a JSON object:
  lead_full_us     mean µs per hand, every legal lead (full mode), native loop
  lead_pattern_us  the same in pattern (suit-merged) mode
  follow_us        mean µs per call following a random play, native loop
  ideal_us         the ideal emitter (one OR + two 8-byte stores per move in a
                   tight loop) writing as many moves per hand as the full lead
  moves_per_hand   mean number of full-mode leads per hand
  api_full_us / api_pattern_us   through guandan.legal_moves() with a pre-built Hand
  batch_full_us    through guandan.legal_moves_batch() (numpy out, GIL released)
  worst_us / worst_ns_per_move / worst_moves   the 17,070-move hands (both wilds)
  random_decisions_per_s / expert_decisions_per_s   whole games, one core
Each figure is the median of --runs runs; every generated move is consumed
(checksummed) outside the timed region.

With --vs, each pair runs this script once (--basic: the generator figures
only) on OTHER/src and once on this tree's src, alternately, and prints
each figure's median and the median of the pairwise ratios new/other, so a
before/after claim holds while the shared machine's speed drifts.
"""

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time

import numpy as np

from guandan import Hand, Rules, _bench, _core, legal_moves, legal_moves_batch
from guandan.simulation import progress_bar

HERE = os.path.dirname(os.path.abspath(__file__))
CANDIDATES = [
    os.path.join(HERE, "..", "tests", "data", "anchor_hands_1000.jsonl"),
]

# The worst hands found (17,070 leads each): both wilds and all four suits of
# 4..9, at level A.
WORST = [
    ("S4 H4 C4 D4 S5 H5 C5 D5 S6 H6 C6 D6 S7 H7 C7 D7 S8 H8 C8 D8 S9 H9 C9 D9 DT HA HA", "A"),
    ("D3 S4 H4 C4 D4 S5 H5 C5 D5 S6 H6 C6 D6 S7 H7 C7 D7 S8 H8 C8 D8 S9 H9 C9 D9 HA HA", "A"),
]

# the speed targets (µs; batch: at most 15% over the native loop; api:
# within 1.5 µs of it; decisions per second)
TARGETS = {"lead_full_us": 2.5, "lead_pattern_us": 1.2, "follow_us": 0.6}

BASIC = ["lead_full_us", "lead_pattern_us", "follow_us", "api_full_us", "api_pattern_us",
         "batch_full_us"]


def load_hands():
    for path in CANDIDATES:
        if os.path.exists(path):
            with open(path) as f:
                return [json.loads(line) for line in f]
    sys.exit("anchor_hands_1000.jsonl not found")


def follow_plays(hands, hand_objs, levels, seed=20240601):
    """For hand i: a random legal lead of hand i+1 at hand i's level (seeded)."""
    rng = random.Random(seed)
    last = np.zeros((len(hands), 2), dtype=np.uint64)
    for i in range(len(hands)):
        other = hand_objs[(i + 1) % len(hands)]
        moves = legal_moves(other, int(levels[i]) + 2)
        lo, hi = moves[rng.randrange(len(moves))].words
        last[i] = (lo, hi)
    return last


def games_per_s(code, deals, runs):
    """Decisions per second of whole games on one core, all four seats
    playing policy ``code`` (1 random, 3 expert); median of ``runs``."""
    from guandan import _sim
    from guandan.simulation import chunk_seeds
    rates = []
    for r in range(runs):
        gs, ps = chunk_seeds(r, 0)
        t = time.perf_counter()
        out, _ = _sim.run_chunk(gs, ps, deals, 0, np.array([code] * 4, dtype=np.int16), Rules().native)
        dt = time.perf_counter() - t
        rates.append(int(out["decisions"].sum()) / dt)
    return statistics.median(rates)


def measure(args, basic=False):
    hands = load_hands()
    hand_objs = [Hand(h["hand"]) for h in hands]
    counts = np.stack([h.counts() for h in hand_objs])
    levels = np.array([_core.level_index(h["level"]) for h in hands], dtype=np.int64)
    no_last = np.zeros((0, 2), dtype=np.uint64)
    last = follow_plays(hands, hand_objs, levels)
    n = len(hands)
    steps = 6 * args.runs + (0 if basic else 2 * args.runs + 2)
    bar = progress_bar(steps, "run", desc="movegen")    # on a terminal only, between runs

    def native(c, lv, lastw, pattern, reps):
        out = []
        for _ in range(args.runs):
            bar.update(1)
            total, cs, secs = _bench.bench_loop(c, lv, lastw, pattern, reps)
            out.append(secs / (len(c) * reps) * 1e6)
        return statistics.median(out), total / reps

    def api(mode):
        out = []
        lv = [h["level"] for h in hands]
        for _ in range(args.runs):
            bar.update(1)
            t = time.perf_counter()
            acc = 0
            for _ in range(args.reps):
                for h, l in zip(hand_objs, lv):
                    acc += len(legal_moves(h, l, mode=mode))
            out.append((time.perf_counter() - t) / (n * args.reps) * 1e6)
        return statistics.median(out)

    def batch():
        # a streaming user: each batch is consumed (checksummed, outside the
        # timed region, as the native loop's moves are) and dropped before
        # the next, so its buffer goes back to the pool and the next batch
        # writes into pages already mapped (a batch kept alive makes the
        # next one take fresh memory from the kernel: +1-4 µs per hand)
        out = []
        for _ in range(args.runs + 1):
            bar.update(1)
            t = time.perf_counter()
            b = legal_moves_batch(counts, levels + 2)
            out.append((time.perf_counter() - t) / n * 1e6)
            int(np.bitwise_xor.reduce(b.words, axis=None))
            del b
        return statistics.median(out[1:])

    res = {}
    res["lead_full_us"], total_full = native(counts, levels, no_last, False, args.reps)
    res["lead_pattern_us"], total_pat = native(counts, levels, no_last, True, args.reps)
    res["follow_us"], total_follow = native(counts, levels, last, False, args.reps)
    res["api_full_us"] = api("full")
    res["api_pattern_us"] = api("pattern")
    res["batch_full_us"] = batch()
    res["moves_per_hand"] = total_full / n
    res["pattern_moves_per_hand"] = total_pat / n
    res["follow_moves_per_call"] = total_follow / n
    if not basic:
        nm = _bench.move_counts(counts, levels, no_last)
        ideal = []
        for _ in range(args.runs):
            bar.update(1)
            _, _, secs = _bench.ideal_loop(nm, args.reps)
            ideal.append(secs / (n * args.reps) * 1e6)
        res["ideal_us"] = statistics.median(ideal)
        wc = np.stack([Hand(h).counts() for h, _ in WORST])
        wl = np.array([_core.level_index(lv) for _, lv in WORST], dtype=np.int64)
        res["worst_us"], wtot = native(wc, wl, no_last, False, 20 * args.reps)
        res["worst_moves"] = wtot / len(WORST)
        res["worst_ns_per_move"] = res["worst_us"] * 1000 / res["worst_moves"]
        wi = []
        for _ in range(args.runs):
            _, _, secs = _bench.ideal_loop(_bench.move_counts(wc, wl, no_last), 20 * args.reps)
            wi.append(secs / (len(WORST) * 20 * args.reps) * 1e6)
        res["worst_ideal_us"] = statistics.median(wi)
        bar.update(1)
        res["random_decisions_per_s"] = games_per_s(1, args.deals, 3)
        bar.update(1)
        res["expert_decisions_per_s"] = games_per_s(3, max(1, args.deals // 10), 3)
    bar.close()
    return res


PHASES = [(0, "set-up only"), (1, "singles"), (2, "pairs"), (3, "triples"), (4, "tubes"),
          (5, "full houses"), (6, "plates"), (7, "straights"), (8, "straight flushes"),
          (9, "bombs"), (10, "joker bomb")]


def run_phases(args):
    """Generation restricted to one type at a time (on top of the set-up),
    leading (full, pattern) and following; then all types on the first k
    hands repeated (the branch predictor learns a few hands, not 1,000)."""
    hands = load_hands()
    objs = [Hand(h["hand"]) for h in hands]
    one = np.array([h.masks[0] for h in objs], dtype=np.uint64)
    two = np.array([h.masks[1] for h in objs], dtype=np.uint64)
    lv = np.array([_core.level_index(h["level"]) for h in hands], dtype=np.int64)
    last = follow_plays(hands, objs, lv)
    n, reps = len(hands), 4 * args.reps

    def t(mask, pattern, lastw, idx=slice(None), r=reps):
        o, w, l = one[idx].copy(), two[idx].copy(), lv[idx].copy()
        lw = None if lastw is None else lastw[idx].copy()
        out = [_bench.phase_times(o, w, l, mask, pattern, r, lw) for _ in range(args.runs)]
        m = len(o)
        return statistics.median(x[0] for x in out) / (m * r) * 1e6, out[0][1] / (m * r)

    res = {}
    base = [(0.0, 0.0)] * 3            # the bit-0 row (no phase switched off), set first
    print(f"{'phase (us per hand, moves)':<26}{'lead full':>18}{'lead pattern':>18}{'follow':>18}")
    for bit, name in PHASES:
        mask = 0 if bit == 0 else (1 << bit)
        row = [t(mask, False, None), t(mask, True, None), t(mask, False, last)]
        if bit:
            row = [(us - base[i][0], mv - base[i][1]) for i, (us, mv) in enumerate(row)]
        else:
            base = row
        res[name] = row
        print(f"{name:<26}" + "".join(f"{us:>10.3f} {mv:>7.1f}" for us, mv in row))
    row = [t(0xFFFFFFFF, False, None), t(0xFFFFFFFF, True, None), t(0xFFFFFFFF, False, last)]
    res["all"] = row
    print(f"{'all types':<26}" + "".join(f"{us:>10.3f} {mv:>7.1f}" for us, mv in row))
    print("all types, full lead, on the first k hands repeated (same total work):")
    learn = {}
    for k in (10, 100, 300, n):
        us, mv = t(0xFFFFFFFF, False, None, slice(0, k), max(1, reps * n // k))
        learn[k] = us
        print(f"  k = {k:>5}: {us:.3f} us per hand, {mv:.0f} moves per hand")
    print(json.dumps({"phases": res, "first_k_hands": learn}))


def run_vs(args):
    """A/B: this script in --basic mode on another tree and on this one,
    alternately, --pairs times."""
    mine = os.path.join(HERE, "..", "src")
    rows = []
    for _ in range(args.pairs):
        pair = []
        for src in (args.vs, mine):
            env = dict(os.environ, PYTHONPATH=os.path.abspath(src))
            out = subprocess.run([sys.executable, os.path.abspath(__file__), "--basic", "--runs", "1",
                                  "--reps", str(args.reps)], env=env, capture_output=True, text=True,
                                 check=True).stdout
            pair.append(json.loads(out.strip().splitlines()[-1]))
        rows.append(pair)
    print(f"A/B, {args.pairs} pairs alternated (A = {args.vs}, B = this tree), "
          f"{args.reps} reps per run; medians")
    print(f"{'what':<34}{'A µs':>10}{'B µs':>10}{'B/A':>8}")
    res = {}
    for k in BASIC:
        a = statistics.median(r[0][k] for r in rows)
        b = statistics.median(r[1][k] for r in rows)
        ratio = statistics.median(r[1][k] / r[0][k] for r in rows)
        res[k] = {"a": round(a, 3), "b": round(b, 3), "ratio": round(ratio, 3)}
        print(f"{k:<34}{a:>10.2f}{b:>10.2f}{ratio:>8.3f}")
    print(json.dumps(res))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=5, help="passes over the hands per run")
    ap.add_argument("--runs", type=int, default=5, help="runs; the median is reported")
    ap.add_argument("--deals", type=int, default=20000,
                    help="deals per whole-game run (random; the expert plays a tenth)")
    ap.add_argument("--basic", action="store_true", help="the generator figures only (JSON line)")
    ap.add_argument("--vs", metavar="OTHER_SRC", help="A/B against the package in OTHER_SRC")
    ap.add_argument("--pairs", type=int, default=7, help="A/B pairs (with --vs)")
    ap.add_argument("--phases", action="store_true", help="time each move type apart (docs/profile.md)")
    args = ap.parse_args(argv)
    if args.vs:
        return run_vs(args)
    if args.phases:
        return run_phases(args)
    res = measure(args, basic=args.basic)
    res = {k: (round(v, 3) if isinstance(v, float) else v) for k, v in res.items()}
    if args.basic:
        print(json.dumps(res))
        return
    nat = res["lead_full_us"]
    print(f"machine: {platform.machine()} {platform.processor() or ''} python {platform.python_version()}"
          f", {os.cpu_count()} cpus; {len(load_hands())} anchor hands x {args.reps} reps, "
          f"median of {args.runs} runs")
    print(f"{'what':<40}{'µs':>9}  target")
    rows = [
        ("lead_full_us", "lead, full (native loop)", f"<= {TARGETS['lead_full_us']}"),
        ("ideal_us", "  ideal emitter, same moves per hand", "the floor"),
        ("lead_pattern_us", "lead, pattern (native loop)", f"<= {TARGETS['lead_pattern_us']}"),
        ("follow_us", "follow a random play (native loop)", f"<= {TARGETS['follow_us']}"),
        ("api_full_us", "legal_moves(), full", f"<= {nat + 1.5:.2f} (native + 1.5)"),
        ("api_pattern_us", "legal_moves(), pattern", f"<= {res['lead_pattern_us'] + 1.5:.2f} (native + 1.5)"),
        ("batch_full_us", "legal_moves_batch(), full", f"<= {nat * 1.15:.2f} (native + 15%)"),
    ]
    for k, label, target in rows:
        print(f"{label:<40}{res[k]:>9.2f}  {target}")
    res["ratio_to_ideal"] = round(nat / res["ideal_us"], 2)
    res["batch_over_native"] = round(res["batch_full_us"] / nat - 1, 3)
    res["moves_per_s_full"] = round(res["moves_per_hand"] / nat * 1e6)
    print(f"full lead / ideal emitter: {res['ratio_to_ideal']:.2f}x; "
          f"batch over native: {100 * res['batch_over_native']:+.0f}%")
    print(f"moves per hand {res['moves_per_hand']}, {res['moves_per_s_full'] / 1e6:.0f}M moves/s (full lead)")
    print(f"worst hands ({res['worst_moves']:.0f} moves): {res['worst_us']:.1f} µs, "
          f"{res['worst_ns_per_move']:.2f} ns per move (ideal emitter {res['worst_ideal_us']:.1f} µs)")
    print(f"whole games, one core: random {res['random_decisions_per_s'] / 1e6:.2f} M decisions/s "
          f"(target >= 5 M), expert {res['expert_decisions_per_s'] / 1e3:.0f} k decisions/s")
    print(json.dumps(res))


if __name__ == "__main__":
    main()
