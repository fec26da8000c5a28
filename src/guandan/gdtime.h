/* Clocks in seconds for the time budgets of the solver and the search player:
   monotonic wall time, and the calling thread's CPU time. */
#ifndef GD_TIME_H
#define GD_TIME_H
#ifdef _WIN32
#include <windows.h>
static double gd_now(void) {
    LARGE_INTEGER f, c;
    QueryPerformanceFrequency(&f);
    QueryPerformanceCounter(&c);
    return (double)c.QuadPart / (double)f.QuadPart;
}
#else
#include <time.h>
static double gd_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
#endif

/* Monotonic nanoseconds (the benchmark loops). */
static long long gd_now_ns(void) {
    return (long long)(gd_now() * 1e9);
}

/* CPU seconds of the calling thread (a search's budget "of one core",
   independent of how loaded the host is). */
#ifdef _WIN32
static double gd_thread_cpu(void) {
    FILETIME c, e, k, u;
    ULARGE_INTEGER kk, uu;
    GetThreadTimes(GetCurrentThread(), &c, &e, &k, &u);
    kk.LowPart = k.dwLowDateTime; kk.HighPart = k.dwHighDateTime;
    uu.LowPart = u.dwLowDateTime; uu.HighPart = u.dwHighDateTime;
    return (double)(kk.QuadPart + uu.QuadPart) * 1e-7;
}
#else
static double gd_thread_cpu(void) {
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return gd_now();
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
#endif
#endif
