/* rss.h - the process's resident memory, read from /proc/self/status, for
   the programs in bench/ that watch it over many calls (header only:
   bench/pocl-context-leak.c is built alone, without the library). */
#ifndef GPGPU_BENCH_RSS_H
#define GPGPU_BENCH_RSS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* VmRSS in KiB, or -1 where /proc cannot tell. */
static inline double rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    double kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmRSS:", 6))
            kib = strtod(line + 6, NULL);
    if (f)
        fclose(f);
    return kib;
}

#endif
