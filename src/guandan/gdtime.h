/* A monotonic clock in seconds (time budgets of the solver and the search player). */
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
#endif
