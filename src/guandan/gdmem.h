/* Large zeroed tables (the solver's transposition table): 64-byte aligned;
   on Linux, tables of 2 MiB or more are 2 MiB aligned and asked to live on
   transparent huge pages (madvise), since their probes are random and a
   4 KiB-page table misses the TLB on nearly every probe. Free the pointer
   returned in *raw with free(). */
#ifndef GD_MEM_H
#define GD_MEM_H
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif
static void* gd_table_alloc(size_t bytes, void** raw) {
#if defined(__linux__)
    void* p = NULL;
    size_t huge = (size_t)2 << 20;
    size_t align = bytes >= huge ? huge : 64;
    *raw = NULL;
    if (posix_memalign(&p, align, bytes) != 0)
        return NULL;
#ifdef MADV_HUGEPAGE
    if (align == huge)
        (void)madvise(p, bytes, MADV_HUGEPAGE);
#endif
    memset(p, 0, bytes);
    *raw = p;
    return p;
#else
    void* r = calloc(bytes + 64, 1);
    *raw = r;
    if (r == NULL)
        return NULL;
    return (void*)(((size_t)r + 63) & ~(size_t)63);
#endif
}
#endif
