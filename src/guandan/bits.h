/* Bit helpers shared by the native modules (cimported through _core.pxd). */
#ifndef GUANDAN_BITS_H
#define GUANDAN_BITS_H
static inline int gd_ctz64(unsigned long long x) { return __builtin_ctzll(x); }
static inline int gd_popcount64(unsigned long long x) { return __builtin_popcountll(x); }
/* The move word (see _core.pyx): lo = faces | type << 56, hi = faces twice | key << 56. */
#define GD_FACE_MASK ((1ULL << 54) - 1)
/* The deal seed of game b of a series seeded a (splitmix64): the simulator,
   VecGame and the env all derive per-game seeds with it. */
static inline unsigned long long gd_mix_seed(unsigned long long a, unsigned long long b) {
    unsigned long long z = a + (b + 1) * 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
#endif
