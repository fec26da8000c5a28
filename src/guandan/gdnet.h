/* The inner loop of the native Q networks (_vec.pyx net_policy): y += a * x
   over n floats. On x86-64 with GCC or Clang the compiler builds an AVX2
   copy beside the baseline one and the loader picks the CPU's (function
   multi-versioning). Both compute each y[j] with one multiply and one add
   (no fused multiply-add: the build passes -ffp-contract=off), so a
   network gives the same float32 values, and the same moves, on every
   machine. */
#ifndef GD_NET_H
#define GD_NET_H

#include <stdlib.h>     /* __GLIBC__ (ifunc, which target_clones needs) */

#if defined(__x86_64__) && defined(__GNUC__) && defined(__linux__) && defined(__GLIBC__) \
    && !defined(__SANITIZE_ADDRESS__) \
    && !defined(GUANDAN_NO_CLONES)
__attribute__((target_clones("avx2", "default")))
#endif
static void gd_axpy(float* __restrict y, float a, const float* __restrict x, int n) {
    int j;
    for (j = 0; j < n; j++)
        y[j] += a * x[j];
}

#endif
