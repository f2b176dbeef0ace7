/*
 * The C ABI's per-call cost and producer throughput through it (the handle
 * lifetime registry sits on every call's path):
 *
 *   cc -O2 -Iinclude scripts/bench/gregor_ffi_perf.c target/release/libgregor.a \
 *      -lpthread -ldl -lm -o target/bench/gregor_ffi_perf
 *   target/bench/gregor_ffi_perf [brokers] [topic] [count] [size]
 *
 * Prints ns per gregor_producer_len call on 1 and 4 threads (no broker
 * needed), then, if a topic is given, msgs/s for `count` sends of `size`
 * bytes (gregor_producer_send, poll every 1000, flush at the end).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gregor.h"

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static gregor_producer *p;
#define CALLS 2000000

static void *len_loop(void *arg) {
    (void)arg;
    size_t sum = 0;
    for (int i = 0; i < CALLS; i++)
        sum += gregor_producer_len(p);
    return (void *)sum;
}

int main(int argc, char **argv) {
    const char *brokers = argc > 1 ? argv[1] : "127.0.0.1:9092";
    const char *topic = argc > 2 ? argv[2] : NULL;
    long count = argc > 3 ? atol(argv[3]) : 1000000;
    int size = argc > 4 ? atoi(argv[4]) : 100;
    char errstr[512];
    gregor_config *conf = gregor_config_new();
    gregor_config_set(conf, "bootstrap.servers", brokers, errstr, sizeof errstr);
    p = gregor_producer_new(conf, errstr, sizeof errstr);
    gregor_config_free(conf);
    if (!p) {
        fprintf(stderr, "%s\n", errstr);
        return 1;
    }
    for (int threads = 1; threads <= 4; threads *= 4) {
        pthread_t t[4];
        double t0 = now();
        for (int i = 0; i < threads; i++)
            pthread_create(&t[i], NULL, len_loop, NULL);
        for (int i = 0; i < threads; i++)
            pthread_join(t[i], NULL);
        double dt = now() - t0;
        printf("gregor_producer_len: %d thread(s), %.1f ns per call (wall / calls per thread)\n",
               threads, dt * 1e9 / CALLS);
    }
    if (topic) {
        char *payload = malloc((size_t)size);
        memset(payload, 'x', (size_t)size);
        double t0 = now();
        for (long i = 0; i < count; i++) {
            int rc;
            while ((rc = gregor_producer_send(p, topic, -1, NULL, 0, (const uint8_t *)payload,
                                              (size_t)size, NULL, 0, NULL, 1000, errstr,
                                              sizeof errstr)) != 0) {
                fprintf(stderr, "send: %s\n", errstr);
                gregor_producer_poll(p, 100);
            }
            if (i % 1000 == 0)
                gregor_producer_poll(p, 0);
        }
        int rc = gregor_producer_flush(p, 60000);
        double dt = now() - t0;
        printf("produce: %ld x %d B in %.2f s: %.0f msgs/s, %.1f MB/s (flush rc %d)\n", count,
               size, dt, count / dt, count * (double)size / dt / 1e6, rc);
        free(payload);
    }
    gregor_producer_free(p);
    return 0;
}
