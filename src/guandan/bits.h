/* Bit helpers shared by the native modules (cimported through _core.pxd). */
#ifndef GUANDAN_BITS_H
#define GUANDAN_BITS_H
#include <stdint.h>
#include <stddef.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
static inline int gd_ctz64(unsigned long long x) { return __builtin_ctzll(x); }
/* The number of set bits. With the popcnt instruction (setup.py builds with
   -mpopcnt where the build host has it) or on other processors the
   compiler's builtin; on x86-64 without popcnt the builtin would be a
   library call, so a few shifts and adds instead. */
#if (defined(__x86_64__) || defined(__i386__)) && !defined(__POPCNT__)
static inline int gd_popcount64(unsigned long long x) {
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
}
#else
static inline int gd_popcount64(unsigned long long x) { return __builtin_popcountll(x); }
#endif
/* The solver's squeeze of the absent ranks: each of the four words v[s]
   keeps its nibbles at the nibbles where m has its low bit set (m: a bit
   at 4k for each nibble k kept; every v[s] is 0 in the other nibbles),
   packed together in order. Where the build defines GUANDAN_FAST_PEXT
   (setup.py: BMI2 and a processor that runs pext in one step, not AMD
   before Zen 3) one pext a word; else a compress of the nibbles as in
   Hacker's Delight 7-4, by 1, 2, 4 and 8 places, its masks shared by the
   four words. The same result either way. */
#if defined(GUANDAN_FAST_PEXT) && defined(__BMI2__)
#include <immintrin.h>
static inline void gd_squeeze4(uint64_t* v, uint64_t m) {
    int s;
    for (s = 0; s < 4; s++)
        v[s] = _pext_u64(v[s], m * 15);
}
#else
static inline void gd_squeeze4(uint64_t* v, uint64_t m) {
    uint64_t mk = (~m & 0x1111111111111ULL) << 4, mp, mv, x;
    int i, s;
    for (i = 0; i < 4; i++) {
        mp = mk ^ (mk << 4);
        mp = mp ^ (mp << 8);
        mp = mp ^ (mp << 16);
        mp = mp ^ (mp << 32);
        mv = mp & m;
        m = (m ^ mv) | (mv >> (4 << i));
        mv = mv * 15;
        for (s = 0; s < 4; s++) {
            x = v[s] & mv;
            v[s] = (v[s] ^ x) | (x >> (4 << i));
        }
        mk = mk & ~mp;
    }
}
#endif
/* Nibble i of the low 32 bits of x into byte i (counts per rank, 4 bits
   each, to bytes: the generator's and the expert's hand tables); one pdep
   where pext is fast (GUANDAN_FAST_PEXT), the same result either way. */
#if defined(GUANDAN_FAST_PEXT) && defined(__BMI2__)
static inline uint64_t gd_nibble_bytes(uint64_t x) {
    return _pdep_u64(x & 0xFFFFFFFFULL, 0x0F0F0F0F0F0F0F0FULL);
}
#else
static inline uint64_t gd_nibble_bytes(uint64_t x) {
    x &= 0xFFFFFFFFULL;
    x = (x | (x << 16)) & 0x0000FFFF0000FFFFULL;
    x = (x | (x << 8)) & 0x00FF00FF00FF00FFULL;
    return (x | (x << 4)) & 0x0F0F0F0F0F0F0F0FULL;
}
#endif
/* Bits 0, 4, 8, ..., 60 of x as bits 0..15 (a suit's cards by rank, or a
   count test's nibbles, as a rank mask): one pext where it is fast. */
#if defined(GUANDAN_FAST_PEXT) && defined(__BMI2__)
static inline uint32_t gd_nibble_bit0s(uint64_t x) {
    return (uint32_t)_pext_u64(x, 0x1111111111111111ULL);
}
#else
static inline uint32_t gd_nibble_bit0s(uint64_t x) {
    x &= 0x1111111111111111ULL;
    x = (x | (x >> 3)) & 0x0303030303030303ULL;
    x = (x | (x >> 6)) & 0x000F000F000F000FULL;
    x = (x | (x >> 12)) & 0x000000FF000000FFULL;
    return (uint32_t)((x | (x >> 24)) & 0xFFFF);
}
#endif
/* A hint that *p will be read soon (the solver's table probes miss the cache). */
#if defined(__GNUC__) || defined(__clang__)
#define gd_prefetch(p) __builtin_prefetch((const void*)(p))
#else
#define gd_prefetch(p) ((void)(p))
#endif
/* A compiler barrier: memory just written is read back from memory after it
   (a table lookup by the bytes of a word stored a moment ago: one byte load
   each instead of a shift and a mask of the register). */
#if defined(__GNUC__)
#define gd_compiler_barrier() __asm__ __volatile__("" ::: "memory")
#else
#define gd_compiler_barrier() ((void)0)
#endif
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
/* The move emitter of the generator's inner loops: moves p[i] = src[i] | (lo, hi)
   for i < n, 16 bytes each (src interleaved lo, hi); returns p + 2n.
   It works in whole chunks of GD_EMIT_CHUNK moves, so it reads up to
   GD_EMIT_CHUNK - 1 moves past the end of src (and always at least one
   chunk, even for n = 0) and writes as far past p + 2n: callers keep
   GD_EMIT_CHUNK moves of slack in both. Short lists (most of them) are then
   one pass of straight-line code, with no data-dependent loop exit to
   mispredict; the extra stores land in the slack or under later moves. */
#define GD_EMIT_CHUNK 4
static inline uint64_t* gd_emit_or(uint64_t* p, const uint64_t* src, ptrdiff_t n,
                                   uint64_t lo, uint64_t hi) {
    ptrdiff_t i = 0;
#if defined(__SSE2__)
    __m128i c = _mm_set_epi64x((long long)hi, (long long)lo);
    do {
        _mm_storeu_si128((__m128i*)(p + 2 * i),
                         _mm_or_si128(_mm_loadu_si128((const __m128i*)(src + 2 * i)), c));
        _mm_storeu_si128((__m128i*)(p + 2 * i + 2),
                         _mm_or_si128(_mm_loadu_si128((const __m128i*)(src + 2 * i + 2)), c));
        _mm_storeu_si128((__m128i*)(p + 2 * i + 4),
                         _mm_or_si128(_mm_loadu_si128((const __m128i*)(src + 2 * i + 4)), c));
        _mm_storeu_si128((__m128i*)(p + 2 * i + 6),
                         _mm_or_si128(_mm_loadu_si128((const __m128i*)(src + 2 * i + 6)), c));
        i += GD_EMIT_CHUNK;
    } while (i < n);
#else
    do {
        ptrdiff_t j;
        for (j = 0; j < 2 * GD_EMIT_CHUNK; j += 2) {
            p[2 * i + j] = src[2 * i + j] | lo;
            p[2 * i + j + 1] = src[2 * i + j + 1] | hi;
        }
        i += GD_EMIT_CHUNK;
    } while (i < n);
#endif
    return p + 2 * n;
}
#endif
