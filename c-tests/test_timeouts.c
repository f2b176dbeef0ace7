/*
 * The one timeout rule of every blocking call (the header's preamble), as
 * librdkafka's: a negative timeout waits forever, 0 does not block.
 *  - gregor_consumer_poll(c, -1) on an empty partition waits until another
 *    thread produces a message 1.5 s later, and returns that message;
 *  - gregor_consumer_poll(c, 0) on an empty partition returns NULL at once;
 *  - gregor_producer_poll(p, -1) waits for the delivery report of a message
 *    still lingering (linger.ms=300), gregor_producer_flush(p, -1) returns
 *    0 once every message has its report.
 * Before the rule a negative timeout meant 0: the polls returned NULL / 0
 * at once and this test fails.
 */
#include <pthread.h>

#include "check.h"

static gregor_producer *producer;
static char topic[128];
static int reports;

static void on_report(const gregor_delivery_report *dr, void *opaque) {
    (void)opaque;
    CHECK_MSG(dr->err == 0, "delivery failed: %s", dr->errstr);
    reports++;
}

static void *produce_later(void *arg) {
    (void)arg;
    char errstr[512];
    const char *value = "late";
    usleep(1500 * 1000);
    int32_t part;
    int64_t off;
    CHECK_OK(gregor_producer_send_sync(producer, topic, 0, NULL, 0, (const uint8_t *)value,
                                       strlen(value), NULL, 0, -1, &part, &off, errstr,
                                       sizeof errstr),
             errstr);
    return NULL;
}

int main(void) {
    char errstr[512];
    unique_topic(topic, sizeof topic, "timeouts");
    const char *pconf[] = {"linger.ms", "300", NULL};
    producer = test_producer(pconf);
    CHECK_OK(gregor_producer_set_dr_cb(producer, on_report, NULL), "set_dr_cb");

    /* send_sync(-1): until the delivery report (auto-creates the topic). */
    const char *first = "first";
    int32_t part;
    int64_t off;
    CHECK_OK(gregor_producer_send_sync(producer, topic, 0, NULL, 0, (const uint8_t *)first,
                                       strlen(first), NULL, 0, -1, &part, &off, errstr,
                                       sizeof errstr),
             errstr);
    CHECK_INT(part, 0);

    /* The consumer starts after the first message: its partition is empty. */
    gregor_consumer *c = test_consumer(NULL);
    gregor_tpl *tpl = gregor_tpl_new();
    CHECK_OK(gregor_tpl_add(tpl, topic, 0, off + 1), "tpl_add");
    CHECK_OK(gregor_consumer_assign(c, tpl, errstr, sizeof errstr), errstr);
    gregor_tpl_free(tpl);

    /* 0 does not block. */
    int64_t t0 = now_ms();
    gregor_message *m = gregor_consumer_poll(c, 0);
    CHECK(m == NULL);
    CHECK_MSG(now_ms() - t0 < 1000, "poll(0) took %" PRId64 " ms", now_ms() - t0);

    /* -1 waits until a message comes, however long that takes. */
    pthread_t th;
    CHECK(pthread_create(&th, NULL, produce_later, NULL) == 0);
    t0 = now_ms();
    m = gregor_consumer_poll(c, -1);
    int64_t waited = now_ms() - t0;
    CHECK_MSG(m != NULL, "poll(-1) returned NULL after %" PRId64 " ms", waited);
    CHECK_MSG(gregor_message_err(m) == 0, "%s", gregor_message_errstr(m));
    gregor_slice v = gregor_message_value(m);
    CHECK(v.len == 4 && memcmp(v.ptr, "late", 4) == 0);
    CHECK_INT(gregor_message_offset(m), off + 1);
    CHECK_MSG(waited >= 1000, "poll(-1) returned after only %" PRId64 " ms", waited);
    gregor_message_free(m);
    CHECK(pthread_join(th, NULL) == 0);
    gregor_consumer_free(c);

    /* producer poll(-1): waits for the lingering message's report. */
    const char *value = "async";
    CHECK_OK(gregor_producer_send(producer, topic, 0, NULL, 0, (const uint8_t *)value,
                                  strlen(value), NULL, 0, NULL, 0, errstr, sizeof errstr),
             errstr);
    CHECK_INT(gregor_producer_poll(producer, -1), 1);
    CHECK_INT(reports, 1);

    /* flush(-1): returns 0 once every message has its report. */
    for (int i = 0; i < 5; i++)
        CHECK_OK(gregor_producer_send(producer, topic, 0, NULL, 0, (const uint8_t *)value,
                                      strlen(value), NULL, 0, NULL, -1, errstr,
                                      sizeof errstr),
                 errstr);
    CHECK_INT(gregor_producer_flush(producer, -1), 0);
    CHECK_INT(reports, 6);
    CHECK_INT(gregor_producer_len(producer), 0);

    gregor_producer_free(producer);
    printf("ok\n");
    return 0;
}
