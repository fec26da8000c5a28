"""How well the search's worlds place the hidden cards, against each style.

    python bench/inference.py [--opponents expert,bomber,hoarder,partner,wobbly,rusher]
                              [--games 60] [--worlds 200] [--proposals 1,8,32,p8]

Seats 0 and 2 play ``expert``, seats 1 and 3 the opponent, over first-round
deals (seeds 1000, 1001, ...). At each decision of seat 0 whose index in
the game is a multiple of three, once the round has more than eight plays
(passes included), the search's sampler draws ``--worlds``
worlds for seat 0 from the game's own information set and trail
(``InfoSet.draw_hands``) with each number of ``--proposals`` (1: uniform
sampling; K: each world the pick of K uniform samples in proportion to the
likelihood of this round's plays, as ``search:infer=1,proposals=K`` draws
them; pK: by the policy likelihood, as ``search:infer=2,proposals=K`` draws
them). The figure: the share of the other three hands' cards that a world
places in the right hand, averaged over the worlds and the positions, and
the paired gain of each K over uniform sampling at the same positions
(95% normal interval). A gain means the likelihood model points the worlds
toward the real hands against that opponent; a loss would mean the model is
wrong for it.

The last line is a JSON object with every figure.
"""

import argparse
import json

import numpy as np

from guandan import Game, search
from paired import interval     # bench/paired.py: a mean and its 95% normal interval


def popcount(a: np.ndarray) -> np.ndarray:
    """Bits set in each uint64 of ``a``."""
    b = a.view(np.uint8).reshape(a.shape + (8,))
    return np.unpackbits(b, axis=-1).sum(axis=-1)


def placed_right(opp: str, games: int, worlds: int, ks):
    """Per K, the share of hidden cards placed right at each position."""
    out = {k: [] for k in ks}
    for gi in range(games):
        g = Game(seed=1000 + gi)
        pol = ["expert", opp, "expert", opp]
        n = 0
        while not g.is_over and g.round_index == 0:
            s = g.to_act
            if s == 0 and g.phase == "play" and n % 3 == 0 and len(g.round_plays()) > 8:
                core = g.native_state(history=True)
                info = search.info_set(g, 0)
                true = np.array([core.hand(x).masks for x in range(4)], dtype=np.uint64)
                hidden = sum(core.hand_size(x) for x in (1, 2, 3))
                for k in ks:
                    h = info.draw_hands(worlds, 7 + n + 1000 * gi, core, proposals=int(k.lstrip("p")),
                                        infer=2 if k.startswith("p") else 1)
                    right = popcount(h[:, 1:, :] & true[None, 1:, :]).sum(axis=(1, 2))
                    out[k].append(float(right.mean()) / hidden)
            g.play_policy(pol[s])
            n += 1
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--opponents", default="expert,bomber,hoarder,partner,wobbly,rusher")
    ap.add_argument("--games", type=int, default=60)
    ap.add_argument("--worlds", type=int, default=200)
    ap.add_argument("--proposals", default="1,8,32,p8",
                    help="K (infer=1) or pK (infer=2, the policy likelihood) per sampler")
    a = ap.parse_args(argv)
    ks = [x.strip() for x in a.proposals.split(",")]
    if any(not k.lstrip("p").isdigit() or int(k.lstrip("p")) < 1 for k in ks):
        raise SystemExit("--proposals: K or pK, K >= 1")
    if ks[0] != "1":
        ks = ["1"] + ks
    res = {}
    def label(k):
        return f"policy K={k[1:]}" if k.startswith("p") else f"K={k}"
    print("| opponent | positions | " + " | ".join(label(k) for k in ks)
          + " | " + " | ".join(f"gain {label(k)} (points, 95%)" for k in ks[1:]) + " |")
    print("| --- | ---: | " + " | ".join("---:" for _ in ks) + " | " + " | ".join("---" for _ in ks[1:]) + " |")
    for opp in a.opponents.split(","):
        r = placed_right(opp, a.games, a.worlds, ks)
        n = len(r["1"])
        gains = {k: interval([100 * (x - y) for x, y in zip(r[k], r["1"])]) for k in ks[1:]}
        res[opp] = {"positions": n, "share": {k: float(np.mean(r[k])) for k in ks},
                    "gain": {k: list(gains[k]) for k in ks[1:]}}
        print(f"| {opp} | {n} | " + " | ".join(f"{100 * np.mean(r[k]):.1f}%" for k in ks) + " | "
              + " | ".join(f"{m:+.2f} [{lo:+.2f}, {hi:+.2f}]" for m, lo, hi in gains.values()) + " |",
              flush=True)
    print(json.dumps(res))


if __name__ == "__main__":
    main()
