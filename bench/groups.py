"""The groups (bombs, triples, pairs) the search's worlds give the hidden
hands, against the real hands; and the fit of the ``keep`` tilt.

    python bench/groups.py [--opponents expert,bomber,hoarder,partner,wobbly,rusher]
                           [--games 30] [--worlds 100] [--keep 0,1]
    python bench/groups.py --fit [--games 60]

Seats 0 and 2 play ``expert``, seats 1 and 3 the opponent, over first-round
deals (seeds 5000, 5001, ...). At each decision of seat 0 whose index in
the game is a multiple of three, once the round has more than eight plays,
``--worlds`` worlds are drawn for seat 0 (``InfoSet.sample_hands(keep=K)``
for each ``--keep``; 0 is uniform). The figures: the bombs (4 or more
copies of a rank 2..A), triples and pairs of the three other hands
together, real and in the worlds, averaged over the positions.

``--fit`` refits the tilt of ``search:keep``: expert games (seeds 3000,
3001, ...), at every other decision of seat 0 after four plays, 200
uniform worlds; for each other seat, by the cards it has played this
round (0-4, 5-9, 10-14, 15-19, 20 or more), the weights (theta) of its
bombs, triples and pairs that make the real hands most likely under
worlds weighed by exp(theta . groups) - maximum likelihood of an
exponential tilt of the uniform sampler, by Newton's method. The table it
prints is ``TILT`` in ``src/guandan/_search.pyx``.
"""

import argparse

import numpy as np

from guandan import Game, search

SHIFTS = np.array([4 * r for r in range(13)], dtype=np.uint64)


def groups(masks: np.ndarray) -> np.ndarray:
    """(..., 2) uint64 hand masks -> (..., 3): bombs, triples, pairs."""
    one = masks[..., 0][..., None] >> SHIFTS
    two = masks[..., 1][..., None] >> SHIFTS
    nib = np.uint64(15)
    c = np.zeros(one.shape, dtype=np.int64)
    for k in range(4):
        bit = np.uint64(1 << k)
        c += ((one & nib & bit) > 0).astype(np.int64) + ((two & nib & bit) > 0).astype(np.int64)
    return np.stack([(c >= 4).sum(-1), (c == 3).sum(-1), (c == 2).sum(-1)], axis=-1)


def positions(opp: str, games: int, seed0: int, every: int, after: int):
    """(game, core, sizes) at seat 0's decisions in first rounds."""
    for gi in range(games):
        g = Game(seed=seed0 + gi)
        pol = ["expert", opp, "expert", opp]
        n = 0
        while not g.is_over and g.round_index == 0:
            s = g.to_act
            if s == 0 and g.phase == "play" and n % every == 0 and len(g.round_plays()) > after:
                yield gi, n, g
            g.play_policy(pol[s])
            n += 1


def compare(opp: str, games: int, worlds: int, keeps):
    real, drawn = [], {k: [] for k in keeps}
    for gi, n, g in positions(opp, games, 5000, 3, 8):
        core = g.native_state(history=True)
        info = search.info_set(g, 0)
        true = np.array([core.hand(x).masks for x in (1, 2, 3)], dtype=np.uint64)
        real.append(groups(true).sum(0))
        for k in keeps:
            h = info.sample_hands(worlds, 7 + n + 1000 * gi, keep=k)
            drawn[k].append(groups(h[:, 1:, :]).sum(1).mean(0))
    return np.mean(real, 0), {k: np.mean(v, 0) for k, v in drawn.items()}, len(real)


def fit(games: int):
    bins = [[] for _ in range(5)]
    for gi, n, g in positions("expert", games, 3000, 2, 4):
        core = g.native_state(history=True)
        info = search.info_set(g, 0)
        h = info.sample_hands(200, 7 + n + 1000 * gi)
        for x in (1, 2, 3):
            played = 27 - core.hand_size(x)
            b = min(max(played, 0) // 5, 4)
            bins[b].append((groups(h[:, x, :]).astype(float),
                            groups(np.array(core.hand(x).masks, dtype=np.uint64)).astype(float)))
    out = []
    for b, rows in enumerate(bins):
        th = np.zeros(3)
        for _ in range(100):
            grad, hess = np.zeros(3), np.zeros((3, 3))
            for W, t in rows:
                lw = W @ th
                w = np.exp(lw - lw.max())
                w /= w.sum()
                m = w @ W
                grad += t - m
                hess -= (W * w[:, None]).T @ W - np.outer(m, m)
            step = np.linalg.solve(hess - 1e-6 * np.eye(3), -grad)
            th += np.clip(step, -0.5, 0.5)
            if np.abs(step).max() < 1e-7:
                break
        real = np.mean([t[0] for _, t in rows])
        uni = np.mean([W[:, 0].mean() for W, _ in rows])
        out.append((b, len(rows), real, uni, th))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--opponents", default="expert,bomber,hoarder,partner,wobbly,rusher")
    ap.add_argument("--games", type=int, default=None)
    ap.add_argument("--worlds", type=int, default=100)
    ap.add_argument("--keep", default="0,1")
    ap.add_argument("--fit", action="store_true")
    a = ap.parse_args(argv)
    if a.fit:
        names = ["0-4", "5-9", "10-14", "15-19", "20+"]
        print("| cards played | seat positions | bombs held | bombs in uniform worlds "
              "| weight of a bomb | of a triple | of a pair |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
        for b, n, real, uni, th in fit(a.games or 60):
            print(f"| {names[b]} | {n} | {real:.2f} | {uni:.2f} | {th[0]:.2f} | {th[1]:.2f} | {th[2]:.2f} |",
                  flush=True)
        return
    keeps = [float(k) for k in a.keep.split(",")]
    head = " | ".join(f"keep={k:g}" if k else "uniform" for k in keeps)
    print(f"| opponent | positions | real: bombs, triples, pairs | {head} |")
    print("| --- | ---: | --- | " + " | ".join("---" for _ in keeps) + " |")
    for opp in a.opponents.split(","):
        real, drawn, n = compare(opp, a.games or 30, a.worlds, keeps)
        fmt = lambda v: ", ".join(f"{x:.2f}" for x in v)   # noqa: E731
        print(f"| {opp} | {n} | {fmt(real)} | " + " | ".join(fmt(drawn[k]) for k in keeps) + " |",
              flush=True)


if __name__ == "__main__":
    main()
