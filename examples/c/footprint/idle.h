/* Shared by the footprint programs (scripts/size-report.sh): argument
 * parsing and the resident set size read from /proc/self/status. */
#ifndef FOOTPRINT_IDLE_H
#define FOOTPRINT_IDLE_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* VmRSS in kB, or -1. */
static inline long vm_rss_kb(void) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    if (!f) return -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "VmRSS:", 6) == 0) kb = strtol(line + 6, NULL, 10);
    fclose(f);
    return kb;
}

static inline double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* argv: [brokers [topic [idle seconds]]] */
struct args { const char *brokers, *topic; int idle_s; };
static inline struct args parse_args(int argc, char **argv) {
    struct args a = { "127.0.0.1:9092", "footprint", 2 };
    if (argc > 1) a.brokers = argv[1];
    if (argc > 2) a.topic = argv[2];
    if (argc > 3) a.idle_s = atoi(argv[3]);
    return a;
}
#endif
