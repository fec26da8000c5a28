/* Threads and the few atomics the solver's threads need: POSIX threads,
   or Windows threads, with GCC/Clang or MSVC atomics. */
#ifndef GD_THREAD_H
#define GD_THREAD_H
#include <stdint.h>
#ifdef _WIN32
#include <windows.h>
#include <process.h>
#include <stdlib.h>
typedef HANDLE gd_thread;
typedef struct { void* (*fn)(void*); void* arg; } gd_thread_start_arg;
static unsigned __stdcall gd_thread_tramp(void* p) {
    gd_thread_start_arg a = *(gd_thread_start_arg*)p;
    free(p);
    a.fn(a.arg);
    return 0;
}
/* 0 on success */
static int gd_thread_start(gd_thread* t, void* (*fn)(void*), void* arg) {
    gd_thread_start_arg* a = (gd_thread_start_arg*)malloc(sizeof(gd_thread_start_arg));
    if (a == NULL) return -1;
    a->fn = fn;
    a->arg = arg;
    *t = (HANDLE)_beginthreadex(NULL, 0, gd_thread_tramp, a, 0, NULL);
    if (*t == 0) { free(a); return -1; }
    return 0;
}
static void gd_thread_join(gd_thread* t) {
    WaitForSingleObject(*t, INFINITE);
    CloseHandle(*t);
}
static int gd_atomic_get(volatile long* p) { return (int)InterlockedCompareExchange(p, 0, 0); }
static void gd_atomic_set(volatile long* p, long v) { InterlockedExchange(p, v); }
static void gd_atomic_min(volatile long* p, int v) {
    long old = *p;
    while (v < old) {
        long seen = InterlockedCompareExchange(p, v, old);
        if (seen == old) break;
        old = seen;
    }
}
static int64_t gd_atomic_add64(volatile int64_t* p, int64_t v) {
    return (int64_t)InterlockedExchangeAdd64((volatile LONG64*)p, v) + v;
}
/* whole-word loads and stores of table entries other threads may write */
static uint64_t gd_load64(const uint64_t* p) { return *(const volatile uint64_t*)p; }
static void gd_store64(uint64_t* p, uint64_t v) { *(volatile uint64_t*)p = v; }
/* a pointer slot: swap in v and return the old value; put v if it holds NULL (1: done) */
static void* gd_swap_ptr(void* volatile* p, void* v) { return InterlockedExchangePointer(p, v); }
static int gd_put_ptr(void* volatile* p, void* v) { return InterlockedCompareExchangePointer(p, v, NULL) == NULL; }
#else
#include <pthread.h>
typedef pthread_t gd_thread;
static int gd_thread_start(gd_thread* t, void* (*fn)(void*), void* arg) {
    return pthread_create(t, NULL, fn, arg);
}
static void gd_thread_join(gd_thread* t) { pthread_join(*t, NULL); }
static int gd_atomic_get(volatile long* p) { return (int)__atomic_load_n(p, __ATOMIC_SEQ_CST); }
static void gd_atomic_set(volatile long* p, long v) { __atomic_store_n(p, v, __ATOMIC_SEQ_CST); }
static void gd_atomic_min(volatile long* p, int v) {
    long old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
    while (v < old && !__atomic_compare_exchange_n(p, &old, (long)v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
    }
}
/* the new value */
static int64_t gd_atomic_add64(volatile int64_t* p, int64_t v) {
    return __atomic_add_fetch(p, v, __ATOMIC_SEQ_CST);
}
/* whole-word loads and stores of table entries other threads may write */
static uint64_t gd_load64(const uint64_t* p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
static void gd_store64(uint64_t* p, uint64_t v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
/* a pointer slot: swap in v and return the old value; put v if it holds NULL (1: done) */
static void* gd_swap_ptr(void* volatile* p, void* v) { return __atomic_exchange_n(p, v, __ATOMIC_ACQ_REL); }
static int gd_put_ptr(void* volatile* p, void* v) {
    void* expected = NULL;
    return __atomic_compare_exchange_n(p, &expected, v, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}
#endif
#endif
