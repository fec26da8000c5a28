"""Shared test helpers: seeded random hands and conversion to the reference's format."""

import contextlib
import json
import math
import os
import signal
import threading
import time

from guandan import Move

RANKS = "23456789TJQKA"
SUITS = "SHCD"
FACES = [s + r for r in RANKS for s in SUITS] + ["SB", "HR"]
DECK = [s + r for r in RANKS for s in SUITS] * 2 + ["SB", "SB", "HR", "HR"]
LEVELS = list(RANKS)

ANCHOR_PATH = os.path.join(os.path.dirname(__file__), "data", "anchor_hands_1000.jsonl")


def default_sigint():
    """``preexec_fn`` of a child stopped with SIGINT in a test: the child
    takes Ctrl-C as a terminal's process does even when this run was started
    in the background of a shell, where SIGINT is ignored and the child
    inherits that (Python then installs no KeyboardInterrupt handler)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def anchor_hands():
    """The 1,000 anchor hands every benchmark shares (tests/data)."""
    with open(ANCHOR_PATH) as f:
        return [json.loads(line) for line in f]


def random_hand(rng, n=None, wild_bias=0.35, level=None):
    """A random hand of n (1..27) cards from two decks; with probability
    wild_bias the level hearts are dealt first, to exercise wild cards."""
    if n is None:
        n = rng.randint(1, 27)
    deck = DECK[:]
    rng.shuffle(deck)
    if level is not None and rng.random() < wild_bias:
        wild = "H" + level
        k = rng.choice((1, 2, 2))
        deck.remove(wild)
        deck.remove(wild)
        deck = [wild] * k + deck
    return deck[:n]


def to_ref(m: Move):
    """A native move in the reference's (type, rank, sorted cards) form."""
    if m.is_pass:
        return ("PASS", "PASS", ())
    t, r, cards = m.to_platform()
    return (t, r, tuple(sorted(cards)))


# -- tribute and return, written from RULES.md (shared by the engine tests) --

def level_value(card, level):
    """RULES.md level order: 2 3 4 5 6 7 8 9 T J Q K A, level card, small
    joker, big joker."""
    if card == "HR":
        return 15
    if card == "SB":
        return 14
    if card[1] == level:
        return 13
    return RANKS.index(card[1])


def tribute_choices(hand, level):
    """"the dweller gives the banker their highest card in level order, never
    a wild" (distinct faces)."""
    nat = [c for c in hand if c != "H" + level]
    best = max(level_value(c, level) for c in nat)
    return {c for c in nat if level_value(c, level) == best}


def return_choices(hand, level):
    """"one card of rank 2..10 that is not a level card"; "If a receiver
    holds no card that may be returned, they return their lowest card in
    level order that is not a wild"."""
    ok = {c for c in hand if c not in ("SB", "HR") and c[1] in "23456789T" and c[1] != level}
    if ok:
        return ok
    nat = [c for c in hand if c != "H" + level]
    low = min(level_value(c, level) for c in nat)
    return {c for c in nat if level_value(c, level) == low}


def pattern_of(m, level):
    """(type, rank, natural-card count per rank (jokers separate), number of wild
    cards, suit of a straight flush) of a Move; wild = heart of the level rank."""
    from collections import Counter
    from guandan import MoveType
    wild = "H" + level
    counts = Counter()
    nw = 0
    suits = set()
    for c in m.cards:
        if c == wild:
            nw += 1
        else:
            counts[c[1] if c not in ("SB", "HR") else c] += 1
            suits.add(c[0])
    suit = None
    if m.type == MoveType.STRAIGHT_FLUSH:
        assert len(suits) == 1
        suit = suits.pop()
    return (m.type, m.rank, tuple(sorted(counts.items())), nw, suit)


@contextlib.contextmanager
def killing_the_holder(marker, release, pids):
    """While the block runs, SIGKILL the worker that holds a task: the one
    of ``pids`` (a Dask cluster's workers, never anything else) whose pid a
    held task wrote to the JSON file ``marker``. Yields the marker's dict,
    with ``at`` (monotonic time) once the worker is killed; on exit
    ``release`` is created, so that a held task that was not killed plays on."""
    killed = {}
    done = threading.Event()

    def kill_the_holder():
        while not os.path.exists(marker):
            if done.wait(0.02):
                return
        with open(marker, encoding="utf-8") as f:
            held = json.load(f)
        if held["pid"] in pids:
            os.kill(held["pid"], signal.SIGKILL)
            killed.update(held, at=time.monotonic())

    killer = threading.Thread(target=kill_the_holder, daemon=True)
    killer.start()
    try:
        yield killed
    finally:
        done.set()
        open(release, "w").close()
        killer.join(10)


def chi2_pvalue(x, k):
    """Upper tail of chi-square with k degrees of freedom (Wilson-Hilferty)."""
    if k <= 0:
        return 1.0
    z = ((x / k) ** (1 / 3) - (1 - 2 / (9 * k))) / math.sqrt(2 / (9 * k))
    return 0.5 * math.erfc(z / math.sqrt(2))


def child_output(f):
    """All that a child process has written so far to the file ``f`` (its
    stdout and stderr). The child's descriptors are duplicates of ``f``'s
    and share its offset: read with ``pread``, which leaves the offset
    alone (a ``seek(0)`` here could land between the child's writes, which
    then overwrite the start of its own output)."""
    fd = f.fileno()
    return os.pread(fd, os.fstat(fd).st_size, 0).decode("utf-8", "replace")
