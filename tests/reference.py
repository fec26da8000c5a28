"""Reference move enumerator for Guandan: a slow, plain test oracle.

Pure Python 3.11, standard library only. It is written from
RULES.md (docs/rules.md) (and PROTOCOL.md for notation) only, and shares no code
with the fast engine. Clarity comes before speed.

Moves are tuples ``(type, rank, cards)``:
  * ``type``  -- platform type name: Single, Pair, Trips, ThreePair,
    ThreeWithTwo, TwoTrips, Straight, StraightFlush, Bomb, PASS;
  * ``rank``  -- platform key rank letter (RULES.md "Key rank in the platform
    notation"): singles/pairs/trips/full houses (the triple)/bombs use the rank
    letter, "B"/"R" for jokers; Straight/StraightFlush/ThreePair/TwoTrips use
    their LOWEST card, "A" meaning ace-low; joker bomb is "JOKER"; pass is
    ("PASS", "PASS", ());
  * ``cards`` -- tuple of card strings sorted with plain ``sorted()``.

Public functions:
  ref_moves(hand, level, last=None, wild_sf=True) -> set[tuple]
  ref_classify(cards, level, wild_sf=True)        -> set[tuple[str, str]]
  ref_beats(a, b, level)                          -> bool
  ref_pattern(move, level)                        -> tuple

Two independent methods are used on purpose, so the file can check itself:
  * ``ref_moves`` fills "slots" (a straight keyed 5 needs one card each of
    5,6,7,8,9; a full house of K needs three K slots and a pair of another
    rank ...) from the hand; each slot takes a natural card of that rank or a
    wild.
  * ``ref_classify`` takes a fixed set of cards, tries every rank for each
    wild, and recognises the resulting rank multiset.
``python reference.py --full`` checks that both agree on every sub-multiset of
small random hands and that the anchor hands give the total in ANCHORS.md.
"""

from collections import Counter
from itertools import combinations, product

RANKS = "23456789TJQKA"          # natural order, A high
SUITS = "SHCD"
JOKER_RANKS = "BR"               # small joker "SB" -> "B", big joker "HR" -> "R"
FACES = frozenset([s + r for r in RANKS for s in SUITS] + ["SB", "HR"])
# Natural order for sequences, A may be low (index 0) or high (index 13);
# RULES.md: "A may be low (below 2) or high (above K), never both; no
# wrap-around". A window SEQ[i:i+n] is one sequence; its key is SEQ[i].
SEQ = "A23456789TJQKA"
SEQ_TYPES = ("Straight", "StraightFlush", "ThreePair", "TwoTrips")
PASS = ("PASS", "PASS", ())


# --------------------------------------------------------------------------
# small helpers
# --------------------------------------------------------------------------

def _rank_of(card):
    """Rank letter of a card; jokers give 'B' (SB) and 'R' (HR)."""
    return card[1]


def _check_level(level):
    if not (isinstance(level, str) and len(level) == 1 and level in RANKS):
        raise ValueError(f"bad level {level!r}")


def _check_cards(cards):
    """RULES.md: 54 faces, each present twice -> at most 2 copies a face."""
    cnt = Counter(cards)
    for face, k in cnt.items():
        if face not in FACES:
            raise ValueError(f"bad card {face!r}")
        if k > 2:
            raise ValueError(f"more than two copies of {face}")
    return cnt


def _level_value(rank, level):
    """RULES.md level order: 2..A, level card, small joker, big joker
    (the level rank is lifted out of its natural place)."""
    if rank == "B":
        return 14
    if rank == "R":
        return 15
    if rank == level:
        return 13
    return RANKS.index(rank)


def _seq_value(key):
    """Natural order of a sequence key (its lowest card). A key 'A' always
    means ace-low (an ace-high run starts at T, Q or K), the lowest."""
    return SEQ.index(key)


def _norm_move(m):
    t, r, cards = m
    return (t, r, tuple(sorted(cards)) if t != "PASS" else ())


# --------------------------------------------------------------------------
# comparison
# --------------------------------------------------------------------------

def _is_bomb(m):
    # RULES.md: "Any bomb (straight flushes included) beats any non-bomb play."
    return m[0] in ("Bomb", "StraightFlush")


def _bomb_strength(m, level):
    """RULES.md: "Bomb order, low to high: 4-card bombs < 5-card bombs <
    straight flushes < 6-card < 7 < 8 < 9 < 10-card bombs < joker bomb".
    Same size: rank in level order; straight flushes: natural order of the
    top (equivalently lowest) card, suits equal."""
    t, r, cards = m
    if t == "StraightFlush":
        return (2, _seq_value(r))
    if r == "JOKER":
        return (8, 0)
    n = len(cards)
    cls = {4: 0, 5: 1, 6: 3, 7: 4, 8: 5, 9: 6, 10: 7}[n]
    return (cls, _level_value(r, level))


def ref_beats(a, b, level):
    """Does move ``a`` beat move ``b`` at this level?

    A pass never beats anything. ``b`` must be a play (not a pass)."""
    _check_level(level)
    if a[0] == "PASS":
        return False
    if b[0] == "PASS":
        raise ValueError("nothing to beat: b is a pass")
    a_bomb, b_bomb = _is_bomb(a), _is_bomb(b)
    if a_bomb != b_bomb:
        return a_bomb          # any bomb beats any non-bomb, never the reverse
    if a_bomb:
        return _bomb_strength(a, level) > _bomb_strength(b, level)
    # RULES.md: "Non-bomb plays beat only a play of the same type with a
    # strictly higher key."
    if a[0] != b[0]:
        return False
    if a[0] in SEQ_TYPES:      # straights, tubes, plates: natural order
        return _seq_value(a[1]) > _seq_value(b[1])
    return _level_value(a[1], level) > _level_value(b[1], level)


# --------------------------------------------------------------------------
# move enumeration by slot filling
# --------------------------------------------------------------------------

def _leading_moves(hand, level, wild_sf):
    cnt = _check_cards(hand)
    wild = "H" + level                      # RULES.md: wilds = hearts of the level rank
    w = cnt.pop(wild, 0)                    # wilds are never "natural" cards: a wild
    #                                         in its own natural slot is still a wild
    by_rank = {r: [] for r in RANKS + JOKER_RANKS}
    for face, k in cnt.items():
        by_rank[_rank_of(face)].extend([face] * k)
    for r in by_rank:
        by_rank[r].sort()

    subs_cache = {}

    def subs(rank, k):
        """Distinct sub-multisets of k natural cards of this rank (sorted
        tuples). Two copies of a face are one card choice (RULES.md)."""
        key = (rank, k)
        if key not in subs_cache:
            subs_cache[key] = sorted(set(combinations(by_rank[rank], k)))
        return subs_cache[key]

    def fill(groups):
        """Every way to fill the groups [(rank, n), ...]: each group needs n
        cards of `rank`, each a natural of that rank (any suit) or a wild;
        at most `w` wilds in total. Wilds never stand for jokers (RULES.md
        "never stands for a joker"). Returns unsorted card tuples."""
        out = []

        def rec(i, acc, wleft):
            if i == len(groups):
                out.append(acc)
                return
            rank, n = groups[i]
            maxj = 0 if rank in JOKER_RANKS else min(n, wleft)
            for j in range(maxj + 1):
                tail = (wild,) * j
                for s in subs(rank, n - j):
                    rec(i + 1, acc + s + tail, wleft - j)

        rec(0, (), w)
        return out

    moves = set()

    def add(t, r, cards):
        moves.add((t, r, tuple(sorted(cards))))

    # single: "any one card"; pair: "two of a rank; two small jokers; two big
    # jokers (never one of each)"; triple: "three of a rank (no jokers)".
    # "Played alone, or as the pair of the two wilds, it is only a level card":
    # an all-wild single/pair is keyed only as the level rank.
    for r in RANKS + JOKER_RANKS:
        for t, n in (("Single", 1), ("Pair", 2), ("Trips", 3)):
            if t == "Trips" and r in JOKER_RANKS:
                continue
            for c in fill([(r, n)]):
                if c.count(wild) == n and r != level:
                    continue
                add(t, r, c)

    # bomb: "4 to 10 cards of one rank (8 natural + 2 wild at most)"
    for r in RANKS:
        for n in range(4, 11):
            for c in fill([(r, n)]):
                add("Bomb", r, c)
    # joker bomb: "both small and both big jokers"
    if len(by_rank["B"]) == 2 and len(by_rank["R"]) == 2:
        add("Bomb", "JOKER", ("SB", "SB", "HR", "HR"))

    # full house: "a triple plus a pair of another rank; the pair may be two
    # equal jokers", keyed by the triple. The pair rank p != t, so five
    # naturals of one rank never form a full house ("Five cards of one rank
    # are a bomb, never a full house"), while AAA + two wilds does (the wilds
    # are a pair of another rank: "SA DA DA + HA HA at level A is a bomb of
    # five A's and also AAA + any pair"). The wild pair reached via several p
    # is the same multiset: the set keeps it once.
    for t in RANKS:
        for p in RANKS + JOKER_RANKS:
            if p == t:
                continue
            for c in fill([(t, 3), (p, 2)]):
                add("ThreeWithTwo", t, c)

    # straight: "exactly 5 consecutive ranks, any suits, A2345 .. TJQKA";
    # straight flush: "a straight whose five cards are one suit".
    # "Five natural (wild-free) same-suit consecutive cards are only a
    # straight flush. A same-suit run completed by a wild is both a straight
    # flush and a plain straight". Variant wild_sf=False ("wild may complete a
    # straight flush: no"): a run using a wild is then only a plain straight.
    # A level heart in its own slot of a heart run (H3 H4 H5 H6 H7 at level 5)
    # stands for itself: the run is natural, a straight flush under both
    # settings (docs/rules.md); read as another suit it is also a straight.
    for i in range(len(SEQ) - 4):                 # keys A(low), 2, ..., T
        key = SEQ[i]
        for c in fill([(r, 1) for r in SEQ[i:i + 5]]):
            nw = c.count(wild)
            suits = {x[0] for x in c if x != wild}
            if len(suits) == 1:
                if nw == 0:
                    add("StraightFlush", key, c)
                else:
                    own = nw == 1 and suits == {"H"} and level in SEQ[i:i + 5]
                    if wild_sf or own:
                        add("StraightFlush", key, c)
                    add("Straight", key, c)
            else:
                add("Straight", key, c)

    # tube: "exactly 3 consecutive pairs, AA2233 .. QQKKAA" (two wilds may
    # fill one whole pair); plate: "exactly 2 consecutive triples,
    # AAA222 .. KKKAAA".
    for i in range(len(SEQ) - 2):                 # keys A(low), 2, ..., Q
        for c in fill([(r, 2) for r in SEQ[i:i + 3]]):
            add("ThreePair", SEQ[i], c)
    for i in range(len(SEQ) - 1):                 # keys A(low), 2, ..., K
        for c in fill([(r, 3) for r in SEQ[i:i + 2]]):
            add("TwoTrips", SEQ[i], c)

    return moves


def ref_moves(hand, level, last=None, wild_sf=True):
    """Every distinct legal move (type, key rank, sorted card tuple).

    last=None: leading, every legal play and no pass. Otherwise ``last`` is
    the play to beat (cards in any order): the pass plus every move that beats
    it. wild_sf=False: a wild may not complete a straight flush."""
    _check_level(level)
    moves = _leading_moves(list(hand), level, wild_sf)
    if last is None:
        return moves
    last = _norm_move(tuple(last))
    if last[0] == "PASS":
        raise ValueError("last must be a play, not a pass (use last=None to lead)")
    # RULES.md: "Following: pass, plus every move that beats the current top play."
    out = {m for m in moves if ref_beats(m, last, level)}
    out.add(PASS)
    return out


# --------------------------------------------------------------------------
# classification of a fixed card set (independent method: try every rank
# for each wild)
# --------------------------------------------------------------------------

def _readings_of_ranks(rc, n, nw, suits, wild_sf, own_slot=False):
    """Readings of a rank multiset rc (Counter, no jokers) of n cards, nw of
    them wilds, the natural cards having the suit set `suits`; own_slot: the
    one wild is read as its own rank (the level rank)."""
    out = set()
    counts = sorted(rc.values())
    if len(rc) == 1:
        (r,) = rc
        if n == 1:
            out.add(("Single", r))
        elif n == 2:
            out.add(("Pair", r))
        elif n == 3:
            out.add(("Trips", r))
        elif 4 <= n <= 10:
            out.add(("Bomb", r))            # five of a rank: a bomb, never a full house
        return out
    if n == 5 and counts == [2, 3]:
        t = next(r for r, k in rc.items() if k == 3)
        out.add(("ThreeWithTwo", t))
    if n == 5 and counts == [1] * 5:
        for i in range(len(SEQ) - 4):
            if set(SEQ[i:i + 5]) == set(rc):
                key = SEQ[i]
                if len(suits) == 1 and nw == 0:
                    out.add(("StraightFlush", key))      # only a straight flush
                elif len(suits) == 1:
                    # a single wild whose own face fills its slot (a heart run
                    # through the level rank) is natural: a straight flush anyway
                    own = nw == 1 and suits == {"H"} and own_slot
                    if wild_sf or own:
                        out.add(("StraightFlush", key))
                    out.add(("Straight", key))
                else:
                    out.add(("Straight", key))
    if n == 6 and counts == [2, 2, 2]:
        for i in range(len(SEQ) - 2):
            if set(SEQ[i:i + 3]) == set(rc):
                out.add(("ThreePair", SEQ[i]))
    if n == 6 and counts == [3, 3]:
        for i in range(len(SEQ) - 1):
            if set(SEQ[i:i + 2]) == set(rc):
                out.add(("TwoTrips", SEQ[i]))
    return out


def ref_classify(cards, level, wild_sf=True):
    """Every (type, rank) reading of exactly these cards as one play."""
    _check_level(level)
    cards = list(cards)
    _check_cards(cards)
    wild = "H" + level
    n = len(cards)
    nw = cards.count(wild)
    nat = [c for c in cards if c != wild]
    out = set()
    if n == 0:
        return out
    if not nat:
        # "Played alone, or as the pair of the two wilds, it is only a level card."
        if n == 1:
            out.add(("Single", level))
        elif n == 2:
            out.add(("Pair", level))
        return out
    jokers = [c for c in nat if c in ("SB", "HR")]
    if jokers:
        # a wild never stands for a joker; jokers appear only as joker
        # singles, equal-joker pairs, the pair of a full house, the joker bomb
        if sorted(cards) == ["HR", "HR", "SB", "SB"]:
            out.add(("Bomb", "JOKER"))
        elif n == 1:
            out.add(("Single", _rank_of(cards[0])))
        elif n == 2 and cards[0] == cards[1]:
            out.add(("Pair", _rank_of(cards[0])))
        elif n == 5 and len(jokers) == 2 and jokers[0] == jokers[1]:
            rest = [c for c in nat if c not in ("SB", "HR")]   # + the wilds = 3 cards
            ranks = {_rank_of(c) for c in rest}
            if len(ranks) == 1:           # rest non-empty: at most 2 wilds
                out.add(("ThreeWithTwo", ranks.pop()))
        return out
    base = Counter(_rank_of(c) for c in nat)
    suits = {c[0] for c in nat}
    for assign in product(RANKS, repeat=nw):
        rc = base.copy()
        rc.update(assign)
        out |= _readings_of_ranks(rc, n, nw, suits, wild_sf, own_slot=assign == (level,))
    return out


# --------------------------------------------------------------------------
# suit-merged pattern
# --------------------------------------------------------------------------

def ref_pattern(move, level):
    """(type, rank, 15 natural-card counts for ranks 2..A + SB + HR,
    number of wilds (hearts of the level rank anywhere in the move),
    suit of a straight flush else None)."""
    _check_level(level)
    t, r, cards = move
    wild = "H" + level
    counts = [0] * 15
    nw = 0
    nat_suits = set()
    for c in ([] if t == "PASS" else cards):
        if c == wild:
            nw += 1
            continue
        if c == "SB":
            counts[13] += 1
        elif c == "HR":
            counts[14] += 1
        else:
            counts[RANKS.index(c[1])] += 1
            nat_suits.add(c[0])
    suit = None
    if t == "StraightFlush":
        if len(nat_suits) != 1:
            raise ValueError(f"not a straight flush: {move!r}")
        suit = nat_suits.pop()
    return (t, r, tuple(counts), nw, suit)


# --------------------------------------------------------------------------
# self-check
# --------------------------------------------------------------------------

def _all_submultisets(hand):
    cnt = Counter(hand)
    faces = sorted(cnt)
    for ks in product(*[range(cnt[f] + 1) for f in faces]):
        sub = []
        for f, k in zip(faces, ks):
            sub.extend([f] * k)
        if sub:
            yield tuple(sub)


def _brute_moves(hand, level, wild_sf=True):
    """All moves by classifying every sub-multiset (small hands only)."""
    out = set()
    for sub in _all_submultisets(hand):
        if len(sub) > 10:
            continue
        for t, r in ref_classify(sub, level, wild_sf):
            out.add((t, r, tuple(sorted(sub))))
    return out


def _deck():
    return [s + r for r in RANKS for s in SUITS] * 2 + ["SB", "HR"] * 2


def _self_check(full=False):
    import random
    import time

    def C(cards, level, wild_sf=True):
        return ref_classify(cards, level, wild_sf)

    # RULES.md worked examples ------------------------------------------------
    # K K wild 2 2 at level 5: full house of K and of 2
    assert C(["SK", "DK", "H5", "S2", "D2"], "5") == {
        ("ThreeWithTwo", "K"), ("ThreeWithTwo", "2")}
    # wild 6 7 8 9 at level 2: straights 5 and 6; the naturals are one suit,
    # so the run completed by the wild is also a straight flush 5 and 6
    assert C(["H2", "S6", "S7", "S8", "S9"], "2") == {
        ("Straight", "5"), ("Straight", "6"),
        ("StraightFlush", "5"), ("StraightFlush", "6")}
    assert C(["H2", "S6", "S7", "S8", "S9"], "2", wild_sf=False) == {
        ("Straight", "5"), ("Straight", "6")}
    assert C(["H2", "S6", "D7", "S8", "S9"], "2") == {
        ("Straight", "5"), ("Straight", "6")}
    # C7 C8 wild CT CJ at level 5: straight flush (and straight) 7-J
    assert C(["C7", "C8", "H5", "CT", "CJ"], "5") == {
        ("StraightFlush", "7"), ("Straight", "7")}
    # wild-free same-suit run: only a straight flush
    assert C(["C7", "C8", "C9", "CT", "CJ"], "5") == {("StraightFlush", "7")}
    # a wild at its own natural place is still a wild
    assert C(["H3", "H4", "H5", "H6", "H7"], "5") == {
        ("StraightFlush", "3"), ("Straight", "3")}
    assert C(["H3", "H4", "H5", "H6", "H7"], "5", wild_sf=False) == {
        ("Straight", "3")}
    # wild wild 3 3 4 4 at level 7: tubes 223344 and 334455, and (two wilds
    # completing one triple each) the plate 333444
    assert C(["H7", "H7", "S3", "D3", "S4", "D4"], "7") == {
        ("ThreePair", "2"), ("ThreePair", "3"), ("TwoTrips", "3")}
    # SA DA DA + HA HA at level A: bomb of five A's and AAA + any pair
    assert C(["SA", "DA", "DA", "HA", "HA"], "A") == {
        ("Bomb", "A"), ("ThreeWithTwo", "A")}
    # five naturals of a rank: bomb only
    assert C(["SK", "SK", "DK", "CK", "HK"], "2") == {("Bomb", "K")}
    # wilds alone: level card only
    assert C(["H5"], "5") == {("Single", "5")}
    assert C(["H5", "H5"], "5") == {("Pair", "5")}
    assert C(["H5", "S9"], "5") == {("Pair", "9")}
    assert C(["SB", "HR"], "5") == set()
    assert C(["SB", "H5"], "5") == set()
    assert C(["SB", "SB", "S9", "D9", "H5"], "5") == {("ThreeWithTwo", "9")}
    assert C(["SB", "SB", "HR", "HR"], "5") == {("Bomb", "JOKER")}
    # ace low / high, no wrap-around
    assert C(["SA", "S2", "D3", "S4", "S5"], "9") == {("Straight", "A")}
    assert C(["ST", "SJ", "DQ", "SK", "SA"], "9") == {("Straight", "T")}
    assert C(["SJ", "SQ", "DK", "SA", "S2"], "9") == set()
    assert C(["SQ", "DQ", "SK", "DK", "SA", "DA"], "9") == {("ThreePair", "Q")}
    assert C(["SK", "DK", "CK", "SA", "DA", "CA"], "9") == {("TwoTrips", "K")}
    assert C(["SA", "DA", "CA", "S2", "D2", "C2"], "9") == {("TwoTrips", "A")}

    # move lists ---------------------------------------------------------------
    # distinct suit choices are distinct moves; copies of a face are not
    m = ref_moves(["S3", "C3", "D3", "CA", "CA"], "9")
    assert ("Pair", "3", ("C3", "S3")) in m and ("Pair", "3", ("D3", "S3")) in m
    assert sum(1 for x in m if x[0] == "Single") == 4
    # using a wild where a natural exists is a different move
    m = ref_moves(["S6", "H6", "D6", "H2", "S9"], "2")
    assert ("Trips", "6", ("D6", "H6", "S6")) in m
    assert ("Trips", "6", ("H2", "H6", "S6")) in m
    assert ("Pair", "2", ("H2",) * 2) not in m
    m = ref_moves(["H2", "H2", "S9"], "2")
    assert ("Pair", "2", ("H2", "H2")) in m and ("Pair", "9", ("H2", "S9")) in m
    assert not any(x[0] == "Pair" and x[1] != "2" and x[2] == ("H2", "H2") for x in m)
    assert ("Trips", "9", ("H2", "H2", "S9")) in m

    # comparison ---------------------------------------------------------------
    B = ref_beats
    assert B(("Single", "5", ("S5",)), ("Single", "A", ("SA",)), "5")
    assert not B(("Single", "A", ("SA",)), ("Single", "5", ("S5",)), "5")
    assert B(("Single", "B", ("SB",)), ("Single", "5", ("S5",)), "5")
    assert not B(("Single", "K", ("SK",)), ("Single", "K", ("DK",)), "5")
    assert not B(("Pair", "A", ("SA", "DA")), ("Single", "3", ("S3",)), "5")
    assert B(("Straight", "2", ()), ("Straight", "A", ()), "5")
    assert B(("Straight", "T", ()), ("Straight", "9", ()), "5")
    sf = ("StraightFlush", "A", ("SA", "S2", "S3", "S4", "S5"))
    b5 = ("Bomb", "3", ("S3",) * 2 + ("D3",) * 2 + ("C3",))
    b6 = ("Bomb", "2", ("S2",) * 2 + ("D2",) * 2 + ("C2",) * 2)
    assert B(sf, b5, "7") and not B(b5, sf, "7") and B(b6, sf, "7")
    assert B(b5, ("Straight", "T", ()), "7")
    assert not B(("StraightFlush", "9", ("H9",)), ("StraightFlush", "9", ("S9",)), "7")
    assert B(("Bomb", "7", ("S7",) * 4), ("Bomb", "A", ("SA",) * 4), "7")
    assert B(("Bomb", "JOKER", ("SB", "SB", "HR", "HR")), ("Bomb", "7", ("S7",) * 10), "7")
    f = ref_moves(["S4", "S4", "D4", "D4", "S9", "CA"], "7", last=("Single", "A", ["DA"]))
    assert f == {PASS, ("Bomb", "4", ("D4", "D4", "S4", "S4"))}, f

    # pattern
    assert ref_pattern(("StraightFlush", "5", ("H2", "S6", "S7", "S8", "S9")), "2") == (
        "StraightFlush", "5", (0,) * 4 + (1,) * 4 + (0,) * 7, 1, "S")
    assert ref_pattern(("Single", "2", ("H2",)), "2") == ("Single", "2", (0,) * 15, 1, None)
    print("worked examples: ok")

    # two independent methods agree on small hands -----------------------------
    if full:
        rng = random.Random(7)
        deck = _deck()
        t0 = time.perf_counter()
        nhands = 0
        for trial in range(40):
            level = rng.choice(RANKS)
            wild = "H" + level
            pool = [c for c in deck if c != wild]
            # bias towards dense runs: draw from a few adjacent ranks
            lo = rng.randrange(0, 10)
            window = set(SEQ[lo:lo + rng.choice((3, 4, 5, 6))])
            if trial % 5 == 0:
                pool_w = pool
            else:
                pool_w = [c for c in pool if c[1] in window or rng.random() < 0.05]
            k = rng.choice((9, 10, 11, 12))
            hand = rng.sample(pool_w, min(k, len(pool_w)))
            hand += [wild] * rng.choice((0, 1, 2, 2))
            for wsf in (True, False):
                a = ref_moves(hand, level, wild_sf=wsf)
                b = _brute_moves(hand, level, wild_sf=wsf)
                assert a == b, (hand, level, wsf, a ^ b)
            nhands += 1
        print(f"slot enumerator == brute-force classifier on {nhands} small hands "
              f"(both wild_sf settings): ok ({time.perf_counter() - t0:.1f} s)")

        import json
        import os
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                            "data", "anchor_hands_1000.jsonl")
        if os.path.exists(path):
            total = 0
            t0 = time.perf_counter()
            with open(path) as fh:
                for line in fh:
                    d = json.loads(line)
                    total += len(ref_moves(d["hand"], d["level"]))
            dt = time.perf_counter() - t0
            print(f"anchor hands: {total} moves in total "
                  f"(ANCHORS.md says 751,863), {dt / 1000 * 1e3:.1f} ms per hand")
            assert total == 751863, total

    # timing on 27-card hands holding both wilds -------------------------------
    rng = random.Random(1)
    deck = _deck()
    times, sizes = [], []
    while len(times) < 20:
        rng.shuffle(deck)
        for seat in range(4):
            hand = deck[seat * 27:(seat + 1) * 27]
            for level in RANKS:
                if hand.count("H" + level) == 2 and len(times) < 20:
                    t0 = time.perf_counter()
                    m = ref_moves(hand, level)
                    times.append(time.perf_counter() - t0)
                    sizes.append(len(m))
    times.sort()
    print(f"ref_moves, {len(times)} 27-card hands with two wilds: "
          f"mean {sum(times) / len(times) * 1e3:.1f} ms, "
          f"median {times[len(times) // 2] * 1e3:.1f} ms, max {times[-1] * 1e3:.1f} ms; "
          f"moves mean {sum(sizes) / len(sizes):.0f}, max {max(sizes)}")


if __name__ == "__main__":
    import sys
    _self_check(full="--full" in sys.argv)
