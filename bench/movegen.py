"""Move generation speed on the 1,000 anchor hands (tests/data), the hands
the peer engines of docs/benchmarks.md were timed on.

    python bench/movegen.py [--reps 5] [--runs 5]

Prints a table, then, as its last line, a JSON object:
  lead_full_us     mean µs per hand, every legal lead (full mode), native loop
  lead_pattern_us  the same in pattern (suit-merged) mode
  follow_us        mean µs per call following a random play, native loop
  moves_per_hand   mean number of full-mode leads per hand
  api_full_us / api_pattern_us   through guandan.legal_moves() with a pre-built Hand
  batch_full_us    through guandan.legal_moves_batch() (numpy out, GIL released)
Each figure is the median of --runs runs; every generated move is consumed
(checksummed) outside the timed region.
"""

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time

import numpy as np

from guandan import Hand, _bench, _core, legal_moves, legal_moves_batch
from guandan.simulate import progress_bar

HERE = os.path.dirname(os.path.abspath(__file__))
CANDIDATES = [
    os.path.join(HERE, "..", "..", "shared", "data", "anchor_hands_1000.jsonl"),
    os.path.join(HERE, "..", "tests", "data", "anchor_hands_1000.jsonl"),
]


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


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=5, help="passes over the hands per run")
    ap.add_argument("--runs", type=int, default=5, help="runs; the median is reported")
    args = ap.parse_args(argv)

    hands = load_hands()
    hand_objs = [Hand(h["hand"]) for h in hands]
    counts = np.stack([h.counts() for h in hand_objs])
    levels = np.array([_core.level_index(h["level"]) for h in hands], dtype=np.int64)
    no_last = np.zeros((0, 2), dtype=np.uint64)
    last = follow_plays(hands, hand_objs, levels)
    n = len(hands)
    bar = progress_bar(6 * args.runs + 1, "run", desc="movegen")    # on a terminal only, between runs

    def native(lastw, pattern):
        out = []
        for _ in range(args.runs):
            bar.update(1)
            total, cs, secs = _bench.bench_loop(counts, levels, lastw, pattern, args.reps)
            out.append(secs / (n * args.reps) * 1e6)
        return statistics.median(out), total / args.reps

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
        # a streaming user: each batch is consumed (checksummed) and dropped
        # before the next, so its output memory is reused (a batch kept alive
        # makes the next one touch fresh pages: +1-4 µs per hand here)
        out = []
        for _ in range(args.runs + 1):
            bar.update(1)
            t = time.perf_counter()
            b = legal_moves_batch(counts, levels + 2)
            int(b.words[:, 0].sum())
            out.append((time.perf_counter() - t) / n * 1e6)
            del b
        return statistics.median(out[1:])

    lead_full, total_full = native(no_last, False)
    lead_pat, total_pat = native(no_last, True)
    follow, total_follow = native(last, False)
    res = {
        "lead_full_us": round(lead_full, 3),
        "lead_pattern_us": round(lead_pat, 3),
        "follow_us": round(follow, 3),
        "moves_per_hand": round(total_full / n, 2),
        "pattern_moves_per_hand": round(total_pat / n, 2),
        "follow_moves_per_call": round(total_follow / n, 2),
        "api_full_us": round(api("full"), 3),
        "api_pattern_us": round(api("pattern"), 3),
        "batch_full_us": round(batch(), 3),
        "moves_per_s_full": round(total_full / n / lead_full * 1e6),
    }
    bar.close()
    print(f"machine: {platform.machine()} {platform.processor() or ''} python {platform.python_version()}"
          f", {os.cpu_count()} cpus; {n} anchor hands x {args.reps} reps, median of {args.runs} runs")
    print(f"{'what':<34}{'µs':>10}")
    for k, label in [("lead_full_us", "lead, full (native loop)"),
                     ("lead_pattern_us", "lead, pattern (native loop)"),
                     ("follow_us", "follow a random play (native)"),
                     ("api_full_us", "legal_moves(), full"),
                     ("api_pattern_us", "legal_moves(), pattern"),
                     ("batch_full_us", "legal_moves_batch(), full")]:
        print(f"{label:<34}{res[k]:>10.2f}")
    print(f"moves per hand {res['moves_per_hand']}, {res['moves_per_s_full'] / 1e6:.0f}M moves/s (full lead)")
    print(json.dumps(res))


if __name__ == "__main__":
    main()
