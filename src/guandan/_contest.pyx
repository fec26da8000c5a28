# cython: language_level=3
"""The contest platform's ``actionList`` order (docs/protocol.md, "actionList
order"): a :class:`~guandan.MoveList` of a hand's legal actions reordered
as the platform lists them (``contest_order``)."""

from guandan._gen cimport (
    MoveBuf, buf_reserve, move_type, move_key, move_size, rank_strength, gd_ctz64, gd_popcount64,
    FACE_MASK, T_PASS, T_SINGLE, T_THREE_PAIR, T_THREE_WITH_TWO, T_TWO_TRIPS, T_STRAIGHT,
    T_STRAIGHT_FLUSH, T_BOMB, T_JOKER_BOMB, T_TRIBUTE,
)
from guandan._core cimport Hand, MoveList
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy
from libc.stdint cimport uint64_t

from .errors import CardError

# The generator lists moves by type in the platform's order and, within a
# type, by key in natural order. The v1006 platform orders the keys of
# non-sequence types by game value (the level rank after A, then the jokers)
# and the card choices of one key as combinations of the hand's cards of that
# rank, taken in handCards order (suits S H C D; wild hearts of the level rank
# after the naturals of another rank, in their heart place for the level rank
# itself): index tuples ascending in every place but the last, the last
# descending (pairs of 6 from S6 H6 C6 D6 + wild H2: S6H2, S6D6, S6C6, S6H6,
# H6H2, ...). Singles are in handCards order. Sequences keep the generator's
# order within a key. contest_sort_key is that order as one integer per move
# (ties keep the generator's order: the sort is stable).

cdef struct _Keyed:
    uint64_t key
    Py_ssize_t idx


cdef void _merge_sort(_Keyed* a, _Keyed* tmp, Py_ssize_t n) noexcept nogil:
    """Stable bottom-up merge sort by key (runs of the generator's order are
    long, so many merges are a plain copy)."""
    cdef Py_ssize_t width = 1, lo, mid, hi, i, j, k
    cdef _Keyed* src = a
    cdef _Keyed* dst = tmp
    cdef _Keyed* t
    while width < n:
        lo = 0
        while lo < n:
            mid = lo + width if lo + width < n else n
            hi = lo + 2 * width if lo + 2 * width < n else n
            if mid >= hi or src[mid - 1].key <= src[mid].key:
                memcpy(&dst[lo], &src[lo], (hi - lo) * sizeof(_Keyed))     # already in order
            else:
                i = lo
                j = mid
                k = lo
                while i < mid and j < hi:
                    if src[j].key < src[i].key:
                        dst[k] = src[j]
                        j += 1
                    else:
                        dst[k] = src[i]
                        i += 1
                    k += 1
                while i < mid:
                    dst[k] = src[i]
                    i += 1
                    k += 1
                while j < hi:
                    dst[k] = src[j]
                    j += 1
                    k += 1
            lo = hi
        t = src
        src = dst
        dst = t
        width *= 2
    if src != a:
        memcpy(a, src, n * sizeof(_Keyed))


cdef inline int _contest_group(int t, int size) noexcept nogil:
    """The type groups of the actionList, in order (bombs by size, the
    straight flush between 5- and 6-card bombs)."""
    if t == T_PASS:
        return 0
    if t <= T_STRAIGHT:
        return t                       # Single 1 .. Straight 7
    if t == T_BOMB:
        return 8 if size == 4 else (9 if size == 5 else 5 + size)   # 6..10 cards: 11..15
    if t == T_STRAIGHT_FLUSH:
        return 10
    if t == T_JOKER_BOMB:
        return 16
    return 17 + t                      # tribute / back (never mixed with plays)


cdef uint64_t _combo_key(uint64_t hone, uint64_t htwo, int L, int r, int m_one, int m_two,
                         int nwild) noexcept nogil:
    """Rank of one card choice of rank ``r`` among the combinations of the
    hand's cards of that rank (see above), as nibbles, first card first:
    ``m_one``/``m_two`` the choice's natural nibbles (the level rank's heart
    nibble excluded), ``nwild`` the wild hearts it uses."""
    cdef int c[5]
    cdef int m[5]
    cdef int start[5]
    cdef int s, j, nslots, k = 0, total = 0, last = -1, pos
    cdef int hb = 4 * L + 1
    cdef int hw = <int>((hone >> hb) & 1) + <int>((htwo >> hb) & 1)
    cdef uint64_t key = 0
    cdef int o = <int>((hone >> (4 * r)) & 15), t = <int>((htwo >> (4 * r)) & 15)
    for s in range(4):
        c[s] = ((o >> s) & 1) + ((t >> s) & 1)
        m[s] = ((m_one >> s) & 1) + ((m_two >> s) & 1)
    if r == L:
        c[1] = hw                      # the level rank's hearts are the wilds, in their place
        m[1] = nwild
        nslots = 4
    else:
        c[4] = hw                      # wilds after the naturals of another rank
        m[4] = nwild
        nslots = 5
    for s in range(nslots):
        start[s] = total
        total += c[s]
        k += m[s]
        if m[s]:
            last = s
    if k == 0:
        return 0
    j = 0
    for s in range(nslots):
        for pos in range(m[s]):
            j += 1
            if j < k:
                key = (key << 4) | <uint64_t>((start[s] + pos) & 15)
    # the last card: the later copy when one of two copies is taken
    pos = start[last] + m[last] - 1
    if m[last] == 1 and c[last] == 2:
        pos = start[last] + 1
    return (key << 4) | <uint64_t>((15 - pos) & 15)


cdef uint64_t contest_sort_key(uint64_t lo, uint64_t hi, uint64_t hone, uint64_t htwo,
                               int L) noexcept nogil:
    cdef int t = move_type(lo), k = move_key(hi)
    cdef int size = move_size(lo, hi)
    cdef int hb = 4 * L + 1
    cdef uint64_t one = lo & FACE_MASK, two = hi & FACE_MASK
    cdef uint64_t hbit = (<uint64_t>1) << hb
    cdef int nw = <int>((one >> hb) & 1) + <int>((two >> hb) & 1)
    cdef int g = _contest_group(t, size)
    cdef uint64_t sub = 0
    cdef int strength, p, nt, tw, pw, o, tw_
    cdef uint64_t n1, n2
    if t == T_PASS or t >= T_TRIBUTE:
        return <uint64_t>g << 59
    if t == T_STRAIGHT or t == T_STRAIGHT_FLUSH or t == T_THREE_PAIR or t == T_TWO_TRIPS:
        return (<uint64_t>g << 59) | (<uint64_t>k << 54)
    strength = rank_strength(k, L)
    if t == T_SINGLE:
        sub = <uint64_t>(gd_ctz64(one) & 3) if k < 13 else 0
    elif t == T_JOKER_BOMB or k >= 13:
        sub = 0
    elif t == T_THREE_WITH_TWO:
        # split the cards into the triple (rank k) and the pair (another rank,
        # a joker pair, or two wilds: a pair of level cards)
        n1 = one & ~hbit
        n2 = two & ~hbit
        o = <int>((n1 >> (4 * k)) & 15)
        tw_ = <int>((n2 >> (4 * k)) & 15)
        nt = gd_popcount64(<uint64_t>o) + gd_popcount64(<uint64_t>tw_)
        tw = 3 - nt
        pw = nw - tw
        n1 &= ~((<uint64_t>15) << (4 * k))
        n2 &= ~((<uint64_t>15) << (4 * k))
        sub = _combo_key(hone, htwo, L, k, o, tw_, tw) << 13
        if n1 == 0:
            p = L                      # the pair is the two wilds
            sub |= (<uint64_t>rank_strength(p, L) << 8) | _combo_key(hone, htwo, L, p, 0, 0, pw)
        elif n1 >> 52:
            p = 13 if (n1 >> 52) & 1 else 14
            sub |= <uint64_t>rank_strength(p, L) << 8
        else:
            p = gd_ctz64(n1) >> 2
            sub |= (<uint64_t>rank_strength(p, L) << 8) | _combo_key(
                hone, htwo, L, p, <int>((n1 >> (4 * p)) & 15), <int>((n2 >> (4 * p)) & 15), pw)
    else:
        # pairs, triples, bombs: one rank; the level rank's own hearts are wilds
        n1 = one & ~hbit
        n2 = two & ~hbit
        sub = _combo_key(hone, htwo, L, k, <int>((n1 >> (4 * k)) & 15),
                         <int>((n2 >> (4 * k)) & 15), nw)
    return (<uint64_t>g << 59) | (<uint64_t>strength << 54) | (sub & ((<uint64_t>1 << 54) - 1))


cdef int contest_order_buf(MoveBuf* b, uint64_t hone, uint64_t htwo, int L) noexcept nogil:
    """Reorder the moves of ``b`` (plays of the hand (hone, htwo) at level
    index L) into the platform's actionList order; -1 out of memory."""
    cdef Py_ssize_t i, n = b.n
    cdef _Keyed* ks
    cdef uint64_t* tmp
    if n < 2:
        return 0
    ks = <_Keyed*>malloc(2 * n * sizeof(_Keyed))
    tmp = <uint64_t*>malloc(2 * n * sizeof(uint64_t))
    if ks == NULL or tmp == NULL:
        free(ks)
        free(tmp)
        return -1
    for i in range(n):
        ks[i].key = contest_sort_key(b.data[2 * i], b.data[2 * i + 1], hone, htwo, L)
        ks[i].idx = i
    _merge_sort(ks, ks + n, n)
    for i in range(n):
        tmp[2 * i] = b.data[2 * ks[i].idx]
        tmp[2 * i + 1] = b.data[2 * ks[i].idx + 1]
    memcpy(b.data, tmp, 2 * n * sizeof(uint64_t))
    free(ks)
    free(tmp)
    return 0


def contest_order(MoveList moves not None, Hand hand not None):
    """A new :class:`MoveList` with the moves of ``moves`` (the legal actions
    of ``hand``) in the contest platform's ``actionList`` order."""
    cdef MoveList out = MoveList.__new__(MoveList)
    cdef Py_ssize_t i, n = moves.buf.n
    cdef uint64_t hone = hand.one, htwo = hand.two
    cdef int rc
    for i in range(n):
        if (moves.buf.data[2 * i] & FACE_MASK & ~hone) or (moves.buf.data[2 * i + 1] & FACE_MASK & ~htwo):
            raise CardError(f"move {i} uses cards that are not in the hand")
    out._level = moves._level
    if n:
        if buf_reserve(&out.buf, n) < 0:
            raise MemoryError()
        memcpy(out.buf.data, moves.buf.data, n * 16)
        out.buf.n = n
    with nogil:
        rc = contest_order_buf(&out.buf, hone, htwo, out._level)
    if rc < 0:
        raise MemoryError()
    return out
