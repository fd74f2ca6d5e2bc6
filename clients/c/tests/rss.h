/* The process's resident size, for the memory checks of the tests and the long-run bench. */
#ifndef LAYOUTD_TEST_RSS_H
#define LAYOUTD_TEST_RSS_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* VmRSS from /proc/self/status, in KiB (-1 when it cannot be read). */
static inline long rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmRSS:", 6)) kib = atol(line + 6);
    if (f) fclose(f);
    return kib;
}
#endif
