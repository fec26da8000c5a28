/* Bit helpers shared by the native modules (cimported through _core.pxd). */
#ifndef GUANDAN_BITS_H
#define GUANDAN_BITS_H
static inline int gd_ctz64(unsigned long long x) { return __builtin_ctzll(x); }
static inline int gd_popcount64(unsigned long long x) { return __builtin_popcountll(x); }
#endif
