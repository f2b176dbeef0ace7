/*
 * Hostile arguments through the C API: lengths no object can have, sums of
 * lengths that would wrap, and strings returned for codes no table knows.
 * Every call must answer with an error code (never a panic, never a count
 * left behind), and every returned string must stay valid. Needs no broker:
 * the producer points at a closed port.
 */
#include <stdint.h>

#include "check.h"

static gregor_producer *new_producer(void) {
    char errstr[512];
    gregor_config *conf = gregor_config_new();
    CHECK_OK(gregor_config_set(conf, "bootstrap.servers", "127.0.0.1:1", errstr, sizeof errstr),
             errstr);
    CHECK_OK(gregor_config_set(conf, "message.timeout.ms", "2000", errstr, sizeof errstr),
             errstr);
    gregor_producer *p = gregor_producer_new(conf, errstr, sizeof errstr);
    CHECK_MSG(p != NULL, "%s", errstr);
    gregor_config_free(conf);
    return p;
}

/* A key or value length past any object, or lengths whose sum wraps: the
 * message is too large, nothing is queued, and a flush has nothing to wait
 * for (librdkafka answers RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE). */
static void check_huge_lengths(void) {
    gregor_producer *p = new_producer();
    const uint8_t key[] = "k", val[] = "val";
    char errstr[512];
    static const struct {
        size_t key_len, val_len;
    } cases[] = {
        {SIZE_MAX, 3},                            /* wraps with the value's 3 */
        {3, SIZE_MAX},                            /* past isize::MAX */
        {(size_t)PTRDIFF_MAX, (size_t)PTRDIFF_MAX}, /* each valid, the sum wraps */
        {(size_t)PTRDIFF_MAX, 3},                 /* no wrap, just huge */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        errstr[0] = 0;
        int rc = gregor_producer_send(p, "hostile", 0, key, cases[i].key_len, val,
                                      cases[i].val_len, NULL, 0, NULL, 0, errstr,
                                      sizeof errstr);
        CHECK_MSG(rc == GREGOR_ERR_MESSAGE_TOO_LARGE, "case %zu: rc %d: %s", i, rc, errstr);
        CHECK_INT(gregor_producer_len(p), 0);
        rc = gregor_producer_send(p, "hostile", -1, key, cases[i].key_len, val,
                                  cases[i].val_len, NULL, 0, NULL, 100, errstr, sizeof errstr);
        CHECK_MSG(rc == GREGOR_ERR_MESSAGE_TOO_LARGE, "case %zu (blocking): rc %d: %s", i, rc,
                  errstr);
        CHECK_INT(gregor_producer_len(p), 0);
    }
    int32_t part = -7;
    int64_t off = -7;
    int rc = gregor_producer_send_sync(p, "hostile", 0, key, SIZE_MAX, val, 3, NULL, 0, 100,
                                       &part, &off, errstr, sizeof errstr);
    CHECK_MSG(rc == GREGOR_ERR_MESSAGE_TOO_LARGE, "send_sync: rc %d: %s", rc, errstr);
    CHECK_INT(part, -7);
    CHECK_INT(gregor_producer_len(p), 0);
    CHECK_INT(gregor_producer_flush(p, 1000), 0);

    /* Other ptr,len pairs: refused, not read. */
    gregor_headers *h = gregor_headers_new();
    CHECK_INT(gregor_headers_add(h, "h", val, SIZE_MAX), GREGOR_ERR__INVALID_ARG);
    gregor_headers_free(h);
    CHECK_INT(gregor_partitioner("murmur2_random", key, SIZE_MAX, 3), GREGOR_ERR__INVALID_ARG);
    gregor_producer_free(p);
}

/* Strings for unknown codes stay valid: two in one printf, and many more. */
static void check_unknown_code_strings(void) {
    const char *name = gregor_err_rdkafka_name(-1000);
    const char *str = gregor_err_rdkafka_str(-1000);
    char line[128];
    snprintf(line, sizeof line, "%s: %s", name, str);
    CHECK_STR(line, "ERR_-1000?: Err--1000?");
    const char *names[64];
    for (int i = 0; i < 64; i++)
        names[i] = gregor_err_rdkafka_name(-2000 - i);
    for (int i = 0; i < 64; i++) {
        char want[32];
        snprintf(want, sizeof want, "ERR_%d?", -2000 - i);
        CHECK_STR(names[i], want);
    }
    CHECK_STR(name, "ERR_-1000?");
    CHECK_STR(str, "Err--1000?");
    /* far more codes than any table holds: still valid, never NULL */
    const char *first = gregor_err_rdkafka_str(INT32_MIN);
    for (int i = 0; i < 100000; i++)
        CHECK(gregor_err_rdkafka_str(-100000 - i) != NULL);
    CHECK(strncmp(first, "Err-", 4) == 0);
    CHECK_STR(gregor_err_rdkafka_name(3), "UNKNOWN_TOPIC_OR_PART");
    CHECK_STR(gregor_err_name(-1000), "UNKNOWN");
}

/* After gregor_consumer_close, new subscriptions and assignments are
 * refused with _STATE (they were accepted and never served). */
static void check_closed_consumer(void) {
    char errstr[512];
    gregor_config *conf = gregor_config_new();
    CHECK_OK(gregor_config_set(conf, "bootstrap.servers", "127.0.0.1:1", errstr, sizeof errstr),
             errstr);
    CHECK_OK(gregor_config_set(conf, "group.id", "hostile", errstr, sizeof errstr), errstr);
    gregor_consumer *c = gregor_consumer_new(conf, errstr, sizeof errstr);
    CHECK_MSG(c != NULL, "%s", errstr);
    gregor_config_free(conf);
    gregor_consumer_close(c);
    const char *topics[] = {"t"};
    CHECK_INT(gregor_consumer_subscribe(c, topics, 1, errstr, sizeof errstr), GREGOR_ERR__STATE);
    CHECK_CONTAINS(errstr, "closed");
    gregor_tpl *tpl = gregor_tpl_new();
    CHECK_INT(gregor_tpl_add(tpl, "t", 0, GREGOR_OFFSET_BEGINNING), 0);
    CHECK_INT(gregor_consumer_assign(c, tpl, errstr, sizeof errstr), GREGOR_ERR__STATE);
    CHECK_INT(gregor_consumer_incremental_assign(c, tpl, errstr, sizeof errstr),
              GREGOR_ERR__STATE);
    gregor_tpl_free(tpl);
    gregor_consumer_free(c);
}

/* Configurations librdkafka refuses at client creation are refused too. */
static void check_refused_configs(void) {
    static const char *cases[][4] = {
        {"transactional.id", "tx", "enable.idempotence", "false"},
        {"linger.ms", "5000", "message.timeout.ms", "1000"},
        {"linger.ms", "1000", "message.timeout.ms", "1000"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char errstr[512] = "";
        gregor_config *conf = gregor_config_new();
        CHECK_OK(gregor_config_set(conf, "bootstrap.servers", "127.0.0.1:1", errstr,
                                   sizeof errstr),
                 errstr);
        CHECK_OK(gregor_config_set(conf, cases[i][0], cases[i][1], errstr, sizeof errstr), errstr);
        CHECK_OK(gregor_config_set(conf, cases[i][2], cases[i][3], errstr, sizeof errstr), errstr);
        gregor_producer *p = gregor_producer_new(conf, errstr, sizeof errstr);
        gregor_config_free(conf);
        CHECK_MSG(p == NULL, "case %zu accepted", i);
        CHECK_CONTAINS(errstr, i == 0 ? "requires `enable.idempotence=true`"
                                      : "must be greater than `linger.ms`");
    }
}

int main(void) {
    check_huge_lengths();
    check_unknown_code_strings();
    check_closed_consumer();
    check_refused_configs();
    printf("ok\n");
    return 0;
}
