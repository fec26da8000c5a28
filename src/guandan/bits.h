/* Bit helpers shared by the native modules (cimported through _core.pxd). */
#ifndef GUANDAN_BITS_H
#define GUANDAN_BITS_H
static inline int gd_ctz64(unsigned long long x) { return __builtin_ctzll(x); }
static inline int gd_popcount64(unsigned long long x) { return __builtin_popcountll(x); }
/* The move word (see _core.pyx): lo = faces | type << 56, hi = faces twice | key << 56. */
#define GD_FACE_MASK ((1ULL << 54) - 1)
#endif
