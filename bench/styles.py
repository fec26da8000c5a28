"""How well the search's rollout family fits each style, and how the search
reads it from a round's plays.

    python bench/styles.py [--opponents expert,bomber,hoarder,partner,wobbly,rusher]
                           [--games 40] [--read-games 0]

Seats 0 and 2 play ``expert``, seats 1 and 3 the opponent, over first-round
deals (seeds 5000, 5001, ...).

1. Fit: at each play-phase choice of seats 1 and 3 with more than one legal
   move, which members of the rollout family (``expert``, ``fam-bomb-early``,
   ``fam-keep``, ``fam-eager``) would have made the same choice from the same
   observation (the real hand): the share per member. The member with the
   highest share is the one the search should roll that opponent out in.
2. Reading (``--read-games N``, seeds 7000, ...): at every third decision of
   seat 0 once the round has 20 plays, the rollout style ``search:model=2``
   gives each opponent seat (``search.explain``, 40 evaluations), and how
   often it differs from the style ``model=1`` gives (any of the three other
   seats).

The last line is a JSON object with every figure.
"""

import argparse
import json
from collections import Counter

from guandan import Game, search
from guandan._engine import NativeView, choose_from_view
from guandan._expert import STYLE_CODES
from guandan.policies import native_code, observation_fields
from guandan.state import Phase

MEMBERS = ("expert", "fam-bomb-early", "fam-keep", "fam-eager")


def first_round(opp, seed):
    """(game, the move the seat to act plays) over a first round of expert
    (seats 0, 2) against ``opp`` (seats 1, 3)."""
    g = Game(seed=seed)
    while not g.is_over and g.round_index == 0:
        mv = g.choose("expert" if g.to_act % 2 == 0 else opp)
        yield g, mv
        g.play(mv)


def fit(opp, games):
    codes = {m: native_code("expert") if m == "expert" else STYLE_CODES[m] for m in MEMBERS}
    hits, n = Counter(), 0
    for gi in range(games):
        for g, mv in first_round(opp, 5000 + gi):
            s = g.to_act
            if s % 2 == 0 or g.phase is not Phase.PLAY:
                continue
            legal = g.legal_moves()
            if len(legal) < 2:
                continue
            v = NativeView(**observation_fields(g.observation(s), g.rules))
            n += 1
            for m, c in codes.items():
                hits[m] += legal[choose_from_view(c, legal, v, 1)] == mv
    return n, {m: hits[m] / n if n else 0.0 for m in MEMBERS}


def read(opp, games):
    styles, changed, seats = Counter(), 0, 0
    for gi in range(games):
        for g, _ in first_round(opp, 7000 + gi):
            if not (g.to_act == 0 and g.phase is Phase.PLAY and len(g.round_plays()) >= 20
                    and g.decisions % 3 == 0 and len(g.legal_moves()) > 1):
                continue
            two = search.explain(g, rollouts=40, seed=3, model=2).rollout_policies
            one = search.explain(g, rollouts=40, seed=3, model=1).rollout_policies
            styles.update([two[1], two[3]])
            changed += sum(a != b for a, b in zip(one, two))
            seats += 3
    n = sum(styles.values())
    return {"opponent_seats": n, "share": {m: styles[m] / n if n else 0.0 for m in MEMBERS},
            "changed_from_model1": changed / seats if seats else 0.0}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--opponents", default="expert,bomber,hoarder,partner,wobbly,rusher")
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--read-games", type=int, default=0)
    a = ap.parse_args(argv)
    if a.games < 1 or a.read_games < 0:
        raise SystemExit("--games must be at least 1 and --read-games at least 0")
    res = {}
    print("| the seat plays | choices | " + " | ".join(f"`{m}`" for m in MEMBERS) + " |")
    print("| --- | ---: | " + " | ".join("---:" for _ in MEMBERS) + " |")
    for opp in a.opponents.split(","):
        n, share = fit(opp, a.games)
        res[opp] = {"choices": n, "fit": share}
        print(f"| `{opp}` | {n} | " + " | ".join(f"{100 * share[m]:.1f}%" for m in MEMBERS) + " |",
              flush=True)
    if a.read_games:
        print()
        print("| opponent | opponent seats read | " + " | ".join(f"`{m}`" for m in MEMBERS)
              + " | seats changed from `model=1` |")
        print("| --- | ---: | " + " | ".join("---:" for _ in MEMBERS) + " | ---: |")
        for opp in a.opponents.split(","):
            r = read(opp, a.read_games)
            res[opp]["read"] = r
            print(f"| `{opp}` | {r['opponent_seats']} | "
                  + " | ".join(f"{100 * r['share'][m]:.0f}%" for m in MEMBERS)
                  + f" | {100 * r['changed_from_model1']:.0f}% |", flush=True)
    print(json.dumps(res))


if __name__ == "__main__":
    main()
