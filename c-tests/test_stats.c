/*
 * Statistics through the C callbacks: a producer and a consumer with
 * statistics.interval.ms=100 get JSON snapshots inside their poll/flush
 * calls, on the calling thread, with their handle and opaque; the counts
 * in the JSON match what the test produced and consumed.
 */
#include <pthread.h>

#include "check.h"

#define N 50

typedef struct {
    const void *handle;
    pthread_t thread;
    int calls;
    char *last; /* the latest snapshot, owned here */
} seen_t;

static void keep(seen_t *s, const void *handle, const char *json, size_t len) {
    CHECK(handle == s->handle);
    CHECK(pthread_equal(pthread_self(), s->thread));
    CHECK(json != NULL);
    CHECK_INT(strlen(json), len); /* NUL-terminated, no NUL inside */
    CHECK(len > 2 && json[0] == '{' && json[len - 1] == '}');
    free(s->last);
    s->last = malloc(len + 1);
    CHECK(s->last != NULL);
    memcpy(s->last, json, len + 1);
    s->calls++;
}

static void on_producer_stats(const gregor_producer *p, const char *json, size_t len,
                              void *opaque) {
    keep(opaque, p, json, len);
}

static void on_consumer_stats(const gregor_consumer *c, const char *json, size_t len,
                              void *opaque) {
    keep(opaque, c, json, len);
}

static int has(const seen_t *s, const char *needle) {
    return s->last && strstr(s->last, needle) != NULL;
}

int main(void) {
    char topic[128], errstr[512], want[64];
    unique_topic(topic, sizeof topic, "stats");
    const char *props[] = {"statistics.interval.ms", "100", "client.id", "c-stats", NULL};

    gregor_producer *p = test_producer(props);
    seen_t ps = {.handle = p, .thread = pthread_self()};
    CHECK_INT(gregor_producer_set_stats_cb(NULL, on_producer_stats, &ps),
              GREGOR_ERR__INVALID_ARG);
    CHECK_INT(gregor_producer_set_stats_cb(p, on_producer_stats, &ps), 0);
    for (int i = 0; i < N; i++) {
        char v[32];
        int n = snprintf(v, sizeof v, "value-%04d", i);
        CHECK_OK(gregor_producer_send(p, topic, 0, NULL, 0, (const uint8_t *)v, (size_t)n,
                                      NULL, 0, NULL, 10000, errstr, sizeof errstr),
                 errstr);
    }
    CHECK_INT(gregor_producer_flush(p, 30000), 0);
    snprintf(want, sizeof want, "\"txmsgs\":%d", N);
    int64_t deadline = now_ms() + 30000;
    while (!has(&ps, want) && now_ms() < deadline)
        gregor_producer_poll(p, 100);
    CHECK_MSG(has(&ps, want), "last producer stats: %s", ps.last ? ps.last : "(none)");
    CHECK_CONTAINS(ps.last, "\"type\":\"producer\"");
    CHECK_CONTAINS(ps.last, "\"client_id\":\"c-stats\"");
    CHECK_CONTAINS(ps.last, "\"brokers\":{");
    CHECK_CONTAINS(ps.last, "\"state\":\"UP\"");
    CHECK_CONTAINS(ps.last, topic);
    /* cleared: no more calls */
    CHECK_INT(gregor_producer_set_stats_cb(p, NULL, NULL), 0);
    int calls = ps.calls;
    gregor_producer_poll(p, 300);
    CHECK_INT(ps.calls, calls);
    gregor_producer_free(p);

    gregor_consumer *c = test_consumer(props);
    seen_t cs = {.handle = c, .thread = pthread_self()};
    CHECK_INT(gregor_consumer_set_stats_cb(NULL, on_consumer_stats, &cs),
              GREGOR_ERR__INVALID_ARG);
    CHECK_INT(gregor_consumer_set_stats_cb(c, on_consumer_stats, &cs), 0);
    gregor_tpl *tpl = gregor_tpl_new();
    CHECK_INT(gregor_tpl_add(tpl, topic, 0, GREGOR_OFFSET_BEGINNING), 0);
    CHECK_OK(gregor_consumer_assign(c, tpl, errstr, sizeof errstr), errstr);
    gregor_tpl_free(tpl);
    int got = 0;
    snprintf(want, sizeof want, "\"rxmsgs\":%d", N);
    deadline = now_ms() + 30000;
    while ((got < N || !has(&cs, want) || !has(&cs, "\"consumer_lag\":0")) &&
           now_ms() < deadline) {
        gregor_message *m = gregor_consumer_poll(c, 100);
        if (m) {
            CHECK_INT(gregor_message_err(m), 0);
            got++;
            gregor_message_free(m);
        }
    }
    CHECK_INT(got, N);
    CHECK_MSG(has(&cs, want), "last consumer stats: %s", cs.last ? cs.last : "(none)");
    CHECK_CONTAINS(cs.last, "\"type\":\"consumer\"");
    CHECK_CONTAINS(cs.last, "\"consumer_lag\":0");
    snprintf(want, sizeof want, "\"hi_offset\":%d", N);
    CHECK_CONTAINS(cs.last, want);
    gregor_consumer_free(c);
    CHECK(cs.calls >= 1);
    free(ps.last);
    free(cs.last);
    printf("ok: %d producer and %d consumer snapshots\n", ps.calls, cs.calls);
    return 0;
}
