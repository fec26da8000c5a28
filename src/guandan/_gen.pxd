# cython: language_level=3
"""The move generator's scratch state (private to _core.pyx: other modules
see only the opaque ``Gen`` of _core.pxd)."""

from libc.stdint cimport uint8_t, uint32_t, uint64_t
from guandan._movebuf cimport MoveBuf

cdef enum:
    OPTMAX = 32           # slot options per (k, rank): at most 16 + 10 + 4 for triples
    SLACK = 4             # moves of slack the chunked emitter may read / write past a list (bits.h)

ctypedef struct GenImpl:
    uint64_t hone, htwo          # the whole hand, wilds included
    uint8_t nat[16]              # natural state per rank (level hearts removed); 13..15 zero
    uint8_t ncnt[16]             # natural card count per rank; 13..15 zero
    int L, w, nsb, nhr
    int maxbomb                  # largest bomb size the hand can make
    uint32_t bombable            # ranks with at least 4 cards counting the wilds
    int pattern, wild_sf
    uint32_t types               # bit t set: generate type t
    int minkey                   # non-bombs: key strength must exceed this
    int bombmin                  # bombs: bomb value must exceed this
    int bombsize                 # 0, or the only bomb size wanted (classify)
    uint64_t wone[3]
    uint64_t wtwo[3]
    uint32_t natpos              # bit q: a natural card at natural position q (0..13)
    uint32_t suitpos[4]          # bit q: the natural card of that suit at position q
    # per (k, rank) slot options: k = 1 single card, 2 pair, 3 triple
    uint8_t optdone[4][13]
    uint8_t optn[4][13]
    uint8_t optseg[4][13][4]             # options with j wilds: optseg[j] .. optseg[j + 1] - 1
    uint64_t optw[4][13][2 * OPTMAX]     # natural cards of each option, interleaved (one, two)
    uint64_t optpad[2 * SLACK]           # the emitter's read slack past the last row
    uint8_t optnw[4][13][OPTMAX]
    MoveBuf* out
