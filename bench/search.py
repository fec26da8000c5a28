"""Search tools speed and strength.

    python bench/search.py [--quick] [--spec search:ms=200] [--deals 100] [--vs expert]
                           [--sizes 2,3,4,5,6,7] [--real 6,8,10] [--solve-n 40]
                           [--concurrency 1] [--skip-duplicate] [--stress 200] [--stress-seeds 7,11]
                           [--threads 2]
    python bench/search.py --rates [--rate-deals 4000] [--rate-rollouts 2000]
    python bench/search.py --budget search:cpu_ms=200 [--budget-positions 40]

--rates: only the two per-core figures of the expert, then exit: expert
   decisions/s in whole games (``simulate(N, policies=["expert"] * 4,
   workers=1)``, four expert seats, CPU time of this process) and expert
   rollouts/s from the mid-round positions of section 1 (from the position
   and from sampled worlds), each over the whole run (the process's CPU time
   for the figure's work, not the median of per-position rates).

--budget SPEC: only what one decision of the search player SPEC gets, then
   exit: the rollouts and worlds of its decision (``search.explain``) at
   each mid-round position of section 1 where it has a choice (median and
   10th-90th percentile; with a time budget, on this host as it is).

1. Rollouts/s on one core from typical mid-round positions (first-round
   deals played by greedy until 60 cards are left in the four hands), with
   the greedy and the expert policy at every seat: from the position as it
   is and from a new sampled world for the seat to act each time (the
   search's use).
2. solve() by hand size: random deals of k cards to each of the four seats
   (random level and leader), CPU time and nodes (median, 90th percentile,
   max; a cap of 6M nodes) and how many are exact within 1 s of CPU. Plus real
   endgames: greedy first-round games stopped when at most k cards are left
   in every hand (--real). --stress N adds a second, larger sample of the
   stress case (N random deals of 6 cards to each seat, seed 7) and N more
   where the leader held a seventh card and has led a random play (seed 11:
   the next seat follows; no hand above 6 cards); --stress-seeds A,B draws
   those two samples from other seeds. --threads N
   solves with N threads; times are then wall seconds (N threads' CPU adds
   up), and the same positions get the same answers.
3. The search against each --vs opponent in the arena (`guandan.arena`):
   duplicate deals - each deal twice, same cards, the teams' seats swapped -
   from seeded starts (random levels, tribute from a seeded previous order),
   --concurrency tables at once (1: one core for the search). Deals won with
   the 95% interval of the pair scores (pentanomial), Elo, level points per
   deal. The same figures as `guandan arena SPEC OPPONENT --deals N
   --concurrency 1`.

The last line is a JSON object with every figure. Times are CPU seconds of
this process (the host is shared, so wall time is noisier); the search's
``ms`` budget is wall time, so a loaded host gives it fewer rollouts.
"""

import os

# numpy's BLAS threads would otherwise spin on the other core and count as
# this process's CPU time
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402


from guandan import Game, GuandanError, search  # noqa: E402
from guandan.arena import arena  # noqa: E402

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


def bench_rollouts(n_pos=10, n=2000, policies=("greedy", "expert")):
    pos = mid_round_positions(n_pos, 1)
    out = {"positions": n_pos, "rollouts_each": n, "cards_left": 60}
    for pol in policies:
        rates_true, rates_worlds = [], []
        for g in pos:
            t = time.process_time()
            search.rollouts(g, pol, n, seed=1)
            rates_true.append(n / (time.process_time() - t))
            t = time.process_time()
            search.rollouts(g, pol, n, seed=1, seat=g.to_act)
            rates_worlds.append(n / (time.process_time() - t))
        out[f"{pol}_per_s_position"] = round(statistics.median(rates_true))
        out[f"{pol}_per_s_sampled_worlds"] = round(statistics.median(rates_worlds))
    return out


def bench_rates(deals=4000, n=2000, n_pos=10):
    """Expert decisions/s (whole games, four expert seats, one core) and
    expert rollouts/s from the mid-round positions, CPU time."""
    from guandan import simulate
    t = time.process_time()
    res = simulate(deals, policies=("expert",) * 4, seed=100, workers=1, keep_rows=False)
    dt = time.process_time() - t
    s = res.summary()
    decisions = round(s["decisions_per_deal"] * deals)
    out = {"deals": deals, "decisions": decisions, "expert_decisions_per_s": round(decisions / dt)}
    pos = mid_round_positions(n_pos, 1)
    for key, seat in (("position", False), ("sampled_worlds", True)):
        t = time.process_time()
        for g in pos:
            search.rollouts(g, "expert", n, seed=1, **({"seat": g.to_act} if seat else {}))
        out[f"expert_rollouts_per_s_{key}"] = round(n * n_pos / (time.process_time() - t))
    out.update(positions=n_pos, rollouts_each=n, cards_left=60)
    return out


def bench_budget(spec, n_pos=40):
    """The rollouts and worlds one decision of the search player ``spec``
    gets at each mid-round position where it has a choice."""
    try:
        cfg = search.SearchConfig.from_spec(spec)
    except GuandanError as e:
        raise SystemExit(f"--budget takes a search player (search:...): {e}") from None
    if n_pos < 1:
        raise SystemExit(f"--budget-positions must be at least 1, got {n_pos}")
    rows = []
    for g in mid_round_positions(n_pos, 1):
        e = search.explain(g, cfg)
        if e.rollouts:
            rows.append((e.rollouts, e.worlds))
    if not rows:
        raise SystemExit(f"no decision with a choice among the {n_pos} positions: give more (--budget-positions)")

    def spread(xs):
        xs = sorted(xs)
        return {"median": statistics.median(xs), "p10": xs[len(xs) // 10], "p90": xs[(9 * len(xs)) // 10]}

    return {"spec": spec, "decisions": len(rows), "rollouts": spread([r for r, _ in rows]),
            "worlds": spread([w for _, w in rows]), "cards_left": 60}


def random_positions(k, n, seed):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        d = DECK[:]
        rng.shuffle(d)
        out.append(Game.from_position([d[i * k:(i + 1) * k] for i in range(4)],
                                      level=rng.choice("23456789TJQKA"), to_act=rng.randrange(4)))
    return out


def following_positions(n, seed):
    """Random deals of 6 cards to three seats and 7 to a random leader, who
    has led a random play: the next seat follows, no hand above 6 cards."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        d = DECK[:]
        rng.shuffle(d)
        hands = [d[i * 6:(i + 1) * 6] for i in range(4)]
        lead = rng.randrange(4)
        hands[lead] = hands[lead] + [d[24]]
        g = Game.from_position(hands, level=rng.choice("23456789TJQKA"), to_act=lead)
        g.play(rng.choice(list(g.legal_moves())))
        out.append(g)
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


def solve_stats(games, limit=1.0, node_cap=6_000_000, threads=1):
    """Time per solve (no time limit: a node cap of ~2-3 s instead).
    exact_within_limit counts the solves exact within ``limit`` seconds: of
    this process's CPU with one thread (the shared host makes wall time
    noisy), of wall time with more (their CPU adds up)."""
    cpu, wall, nodes, exact = [], [], [], 0
    for g in games:
        t, w = time.process_time(), time.perf_counter()
        r = search.solve(g, max_nodes=node_cap, threads=threads)
        c, w = time.process_time() - t, time.perf_counter() - w
        cpu.append(c)
        wall.append(w)
        nodes.append(r.nodes)
        exact += r.exact and (c if threads == 1 else w) <= limit
    cpu.sort()
    wall.sort()
    nodes.sort()
    q = lambda xs, p: xs[min(len(xs) - 1, int(p * len(xs)))]
    return {"n": len(games), "threads": threads, "exact_within_limit": exact, "limit_s": limit,
            "clock": "cpu" if threads == 1 else "wall", "node_cap": node_cap,
            "cpu_ms_median": round(q(cpu, 0.5) * 1e3, 2), "cpu_ms_p90": round(q(cpu, 0.9) * 1e3, 2),
            "cpu_ms_p99": round(q(cpu, 0.99) * 1e3, 2),
            "cpu_ms_max": round(cpu[-1] * 1e3, 2),
            "wall_ms_median": round(q(wall, 0.5) * 1e3, 2), "wall_ms_p99": round(q(wall, 0.99) * 1e3, 2),
            "wall_ms_max": round(wall[-1] * 1e3, 2), "nodes_median": q(nodes, 0.5),
            "nodes_max": nodes[-1],
            "ns_per_node": round(sum(cpu) / max(1, sum(nodes)) * 1e9)}


def bench_solve(sizes, n, real=(6, 8, 10), stress=0, threads=1, stress_seeds=(7, 11)):
    out = {}
    for k in sizes:
        out[f"random_{k}_per_hand"] = solve_stats(random_positions(k, n, 100 + k), threads=threads)
    if stress:
        out["random_6_per_hand_stress"] = solve_stats(random_positions(6, stress, stress_seeds[0]),
                                                      threads=threads)
        out["random_6_per_hand_following_stress"] = solve_stats(following_positions(stress, stress_seeds[1]),
                                                                threads=threads)
    for k in real:
        out[f"real_endgames_at_most_{k}_per_hand"] = solve_stats(real_endgames(n, 5, k), threads=threads)
    return out


def bench_arena(spec, opponents, deals, concurrency=1, seed=0):
    out = []
    for opp in opponents:
        r = arena([spec, opp], deals=deals, concurrency=concurrency, seed=seed)
        st = r[0].stats()
        out.append({"spec": spec, "vs": opp, "deals": deals, "pairs": st["pairs"],
                    "deals_won": round(st["score"], 4),
                    "deals_won_ci95": [round(x, 4) for x in st["score_ci"]],
                    "elo": round(st["elo"], 1), "elo_ci95": [round(x, 1) for x in st["elo_ci"]],
                    "points_per_deal": round(st["points"]["mean"], 3),
                    "points_ci95": [round(x, 3) for x in st["points"]["ci"]],
                    "pentanomial": st["pentanomial"], "concurrency": concurrency,
                    "wall_s": round(r.elapsed, 1)})
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    ap.add_argument("--spec", default="search:ms=200", help="the search player to rate")
    ap.add_argument("--vs", default="expert", help="opponents, comma-separated")
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--concurrency", type=int, default=1)
    ap.add_argument("--sizes", default="2,3,4,5,6,7")
    ap.add_argument("--real", default="6,8,10", help="real endgames: at most this many cards per hand")
    ap.add_argument("--solve-n", type=int, default=40)
    ap.add_argument("--skip-duplicate", action="store_true")
    ap.add_argument("--threads", type=int, default=1,
                    help="solver threads (1: times are CPU seconds; more: wall seconds)")
    ap.add_argument("--stress", type=int, default=0,
                    help="also solve this many random deals of 6 cards per hand (seed 7)")
    ap.add_argument("--stress-seeds", default="7,11",
                    help="seeds of the two stress samples (leading, following)")
    ap.add_argument("--rates", action="store_true",
                    help="only expert decisions/s and expert rollouts/s per core, then exit")
    ap.add_argument("--rate-deals", type=int, default=4000, help="--rates: deals of four expert seats")
    ap.add_argument("--rate-rollouts", type=int, default=2000, help="--rates: rollouts per position")
    ap.add_argument("--budget", metavar="SPEC",
                    help="only the rollouts and worlds one decision of this search player gets, then exit")
    ap.add_argument("--budget-positions", type=int, default=40, help="--budget: mid-round positions")
    args = ap.parse_args(argv)
    if args.budget:
        r = bench_budget(args.budget, args.budget_positions)
        print(f"{r['spec']}, {r['decisions']} mid-round decisions ({r['cards_left']} cards left): "
              f"{r['rollouts']['median']:,.0f} rollouts (10th-90th percentile "
              f"{r['rollouts']['p10']:,}-{r['rollouts']['p90']:,}), {r['worlds']['median']:,.0f} worlds")
        print(json.dumps({"budget": r}))
        return
    if args.rates:
        r = bench_rates(args.rate_deals, args.rate_rollouts)
        print(f"expert, one core: {r['expert_decisions_per_s']:,} decisions/s (whole games, "
              f"{r['deals']:,} deals); {r['expert_rollouts_per_s_position']:,} rollouts/s from the "
              f"position, {r['expert_rollouts_per_s_sampled_worlds']:,}/s from sampled worlds "
              f"({r['positions']} positions, {r['cards_left']} cards left)")
        print(json.dumps({"rates": r}))
        return
    try:
        seeds = tuple(int(x) for x in args.stress_seeds.split(","))
    except ValueError:
        seeds = ()
    if len(seeds) != 2:
        ap.error("--stress-seeds takes two integer seeds, A,B")
    if args.quick:
        args.deals, args.spec, args.solve_n, args.sizes, args.real = 4, "search:rollouts=30", 4, "2,3,4", "6"
    res = {"rollouts": bench_rollouts(3 if args.quick else 10, 300 if args.quick else 2000)}
    r = res["rollouts"]
    for pol in ("greedy", "expert"):
        print(f"rollouts ({pol}, one core, {r['cards_left']} cards left): {r[pol + '_per_s_position']:,}/s "
              f"from the position, {r[pol + '_per_s_sampled_worlds']:,}/s from sampled worlds")
    res["solve"] = bench_solve([int(x) for x in args.sizes.split(",")], args.solve_n,
                               [int(x) for x in args.real.split(",")], args.stress, args.threads, seeds)
    for name, s in res["solve"].items():
        c = "cpu" if args.threads == 1 else "wall"
        print(f"solve {name} ({args.threads} thread{'s' if args.threads > 1 else ''}): "
              f"{c} median {s[c + '_ms_median']} ms, p99 {s[c + '_ms_p99']} ms, max "
              f"{s[c + '_ms_max']} ms, {s['exact_within_limit']}/{s['n']} exact within {s['limit_s']} s "
              f"{c.upper() if c == 'cpu' else c}, "
              f"nodes median {s['nodes_median']:,} max {s['nodes_max']:,}, {s['ns_per_node']} ns/node (CPU)")
    if not args.skip_duplicate:
        res["arena"] = bench_arena(args.spec, args.vs.split(","), args.deals, args.concurrency)
        for d in res["arena"]:
            print(f"{d['spec']} vs {d['vs']}, {d['pairs']} duplicate pairs: deals won {d['deals_won']:.1%} "
                  f"[{d['deals_won_ci95'][0]:.1%}, {d['deals_won_ci95'][1]:.1%}], Elo {d['elo']:+.0f} "
                  f"{d['elo_ci95']}, {d['points_per_deal']:+.3f} level points per deal {d['points_ci95']} "
                  f"({d['wall_s']} s wall)")
    print(json.dumps(res))


if __name__ == "__main__":
    main()
