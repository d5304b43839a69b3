/* Helpers shared by the host benchmarks (shoal-bench, shoal-bench-init):
 * sizes on the command line and in the report. */
#ifndef SHOAL_BENCH_HOST_H
#define SHOAL_BENCH_HOST_H

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#define BENCH_MIB ((size_t)1 << 20)

/* "64m" -> 67108864 (suffixes k, m, g, either case); 0 on a malformed or
 * overflowing value. */
static inline size_t bench_parse_size(const char *s)
{
    char *end = NULL;
    unsigned long long v;
    int shift = 0;

    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno != 0 || end == s) return 0;
    if (*end == 'k' || *end == 'K') shift = 10;
    if (*end == 'm' || *end == 'M') shift = 20;
    if (*end == 'g' || *end == 'G') shift = 30;
    if (shift != 0) end++;
    if (*end != '\0' || v > (~0ULL >> shift)) return 0;
    return (size_t)(v << shift);
}

/* "1 GiB", "64 MiB", "4 KiB", "100 B": the largest unit that divides n. */
static inline void bench_size_str(size_t n, char *buf, size_t len)
{
    if (n >= ((size_t)1 << 30) && n % ((size_t)1 << 30) == 0)
        snprintf(buf, len, "%zu GiB", n >> 30);
    else if (n >= BENCH_MIB && n % BENCH_MIB == 0)
        snprintf(buf, len, "%zu MiB", n / BENCH_MIB);
    else if (n >= 1024 && n % 1024 == 0)
        snprintf(buf, len, "%zu KiB", n / 1024);
    else
        snprintf(buf, len, "%zu B", n);
}

#endif /* SHOAL_BENCH_HOST_H */
