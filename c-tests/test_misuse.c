/*
 * Misuse through the C API: every NULL handle and NULL argument returns an
 * error code with errstr filled (or the documented neutral value for
 * accessors), out-parameters stay untouched on error, gregor_*_free(NULL)
 * does nothing, polling a NULL consumer returns NULL at once, and a few
 * errors only the broker can give (a partition the topic lacks).
 */
#include "check.h"

#define SENTINEL_I64 ((int64_t)0x5A5A5A5A5A5A5A5ALL)
#define SENTINEL_I32 ((int32_t)0x5A5A5A5A)

static void check_null_message(void) {
    CHECK_STR(gregor_message_topic(NULL), "");
    CHECK_INT(gregor_message_partition(NULL), -1);
    CHECK_INT(gregor_message_offset(NULL), -1);
    gregor_slice k = gregor_message_key(NULL), v = gregor_message_value(NULL);
    CHECK(k.ptr == NULL && k.len == 0);
    CHECK(v.ptr == NULL && v.len == 0);
    int tstype = 77;
    CHECK_INT(gregor_message_timestamp(NULL, &tstype), -1);
    CHECK_INT(tstype, 77);
    CHECK_INT(gregor_message_timestamp(NULL, NULL), -1);
    CHECK_INT(gregor_message_leader_epoch(NULL), -1);
    CHECK_INT(gregor_message_header_count(NULL), 0);
    gregor_slice name = {(const uint8_t *)"n", 1}, value = {(const uint8_t *)"v", 1};
    CHECK_INT(gregor_message_header(NULL, 0, &name, &value), GREGOR_ERR__INVALID_ARG);
    CHECK(name.len == 1 && value.len == 1);
    CHECK_INT(gregor_message_err(NULL), GREGOR_ERR__INVALID_ARG);
    CHECK_STR(gregor_message_errstr(NULL), "");
}

static void check_null_metadata(void) {
    CHECK_INT(gregor_metadata_broker_count(NULL), 0);
    CHECK_INT(gregor_metadata_broker_id(NULL, 0), -1);
    CHECK(gregor_metadata_broker_host(NULL, 0) == NULL);
    CHECK_INT(gregor_metadata_broker_port(NULL, 0), -1);
    CHECK_INT(gregor_metadata_controller_id(NULL), -1);
    CHECK(gregor_metadata_cluster_id(NULL) == NULL);
    CHECK_INT(gregor_metadata_topic_count(NULL), 0);
    CHECK(gregor_metadata_topic_name(NULL, 0) == NULL);
    CHECK(gregor_metadata_topic_id(NULL, 0) == NULL);
    uint8_t id[16] = {9};
    CHECK_INT(gregor_metadata_topic_id_bytes(NULL, 0, id), GREGOR_ERR__INVALID_ARG);
    CHECK_INT(id[0], 9);
    CHECK_INT(gregor_metadata_topic_err(NULL, 0), GREGOR_ERR__INVALID_ARG);
    CHECK_INT(gregor_metadata_partition_count(NULL, 0), 0);
    CHECK_INT(gregor_metadata_partition_id(NULL, 0, 0), -1);
    CHECK_INT(gregor_metadata_partition_leader(NULL, 0, 0), -1);
    CHECK_INT(gregor_metadata_partition_err(NULL, 0, 0), GREGOR_ERR__INVALID_ARG);
    int32_t ids[4] = {SENTINEL_I32};
    CHECK_INT(gregor_metadata_partition_replicas(NULL, 0, 0, ids, 4), 0);
    CHECK_INT(gregor_metadata_partition_isrs(NULL, 0, 0, ids, 4), 0);
    CHECK_INT(ids[0], SENTINEL_I32);
}

static void check_free_null(void) {
    gregor_config_free(NULL);
    gregor_headers_free(NULL);
    gregor_producer_free(NULL);
    gregor_consumer_free(NULL);
    gregor_tpl_free(NULL);
    gregor_message_free(NULL);
    gregor_metadata_free(NULL);
}

static void check_headers(void) {
    gregor_headers *h = gregor_headers_new();
    CHECK(h != NULL);
    CHECK_INT(gregor_headers_add(NULL, "n", (const uint8_t *)"v", 1), GREGOR_ERR__INVALID_ARG);
    CHECK_INT(gregor_headers_add(h, NULL, (const uint8_t *)"v", 1), GREGOR_ERR__INVALID_ARG);
    CHECK_INT(gregor_headers_add(h, "\xc3\x28", (const uint8_t *)"v", 1),
              GREGOR_ERR__INVALID_ARG); /* not UTF-8 */
    CHECK_INT(gregor_headers_add(h, "ok", NULL, 12345), 0); /* NULL value: null, len ignored */
    gregor_headers_free(h);
}

static void check_tpl(void) {
    gregor_tpl *tpl = gregor_tpl_new();
    CHECK(tpl != NULL);
    CHECK_INT(gregor_tpl_count(NULL), 0);
    CHECK_INT(gregor_tpl_add(NULL, "t", 0, 0), GREGOR_ERR__INVALID_ARG);
    CHECK_INT(gregor_tpl_add(tpl, NULL, 0, 0), GREGOR_ERR__INVALID_ARG);
    CHECK_INT(gregor_tpl_count(tpl), 0);
    CHECK_INT(gregor_tpl_add(tpl, "t", 0, GREGOR_OFFSET_TAIL_BASE - 5), 0);
    CHECK_INT(gregor_tpl_count(tpl), 1);
    gregor_tpl_free(tpl);
}

static void check_consumer(const char *topic) {
    char errstr[512];
    gregor_consumer *c = test_consumer(NULL);

    /* poll on NULL returns NULL at once, whatever the timeout */
    int64_t t0 = now_ms();
    CHECK(gregor_consumer_poll(NULL, 0) == NULL);
    CHECK(gregor_consumer_poll(NULL, 5000) == NULL);
    CHECK(gregor_consumer_poll(NULL, -1) == NULL);
    CHECK(now_ms() - t0 < 1000);

    /* nothing assigned: NULL after about the timeout */
    t0 = now_ms();
    CHECK(gregor_consumer_poll(c, 300) == NULL);
    int64_t took = now_ms() - t0;
    CHECK_MSG(took >= 250 && took < 3000, "poll(300) took %" PRId64 " ms", took);

    /* assign */
    CHECK_INT(gregor_consumer_assign(NULL, NULL, errstr, sizeof errstr),
              GREGOR_ERR__INVALID_ARG);
    CHECK_CONTAINS(errstr, "consumer");
    gregor_tpl *bad = gregor_tpl_new();
    CHECK_INT(gregor_tpl_add(bad, topic, -1, 0), 0);
    CHECK_INT(gregor_consumer_assign(c, bad, errstr, sizeof errstr), GREGOR_ERR__INVALID_ARG);
    CHECK_CONTAINS(errstr, topic);
    gregor_tpl_free(bad);
    bad = gregor_tpl_new();
    CHECK_INT(gregor_tpl_add(bad, topic, 0, -5), 0); /* not a logical offset */
    CHECK_INT(gregor_consumer_assign(c, bad, errstr, sizeof errstr), GREGOR_ERR__INVALID_ARG);
    CHECK_CONTAINS(errstr, "-5");
    gregor_tpl_free(bad);
    CHECK_OK(gregor_consumer_assign(c, NULL, errstr, sizeof errstr), errstr); /* unassign */

    /* watermarks */
    int64_t lo = SENTINEL_I64, hi = SENTINEL_I64;
    CHECK_INT(gregor_consumer_watermarks(NULL, topic, 0, &lo, &hi, 1000, errstr, sizeof errstr),
              GREGOR_ERR__INVALID_ARG);
    CHECK_CONTAINS(errstr, "consumer");
    CHECK_INT(gregor_consumer_watermarks(c, NULL, 0, &lo, &hi, 1000, errstr, sizeof errstr),
              GREGOR_ERR__INVALID_ARG);
    CHECK_CONTAINS(errstr, "topic");
    CHECK(lo == SENTINEL_I64 && hi == SENTINEL_I64);
    /* a partition the topic does not have */
    int rc = gregor_consumer_watermarks(c, topic, 999, &lo, &hi, 5000, errstr, sizeof errstr);
    CHECK_MSG(rc == GREGOR_ERR__UNKNOWN_PARTITION, "rc %d (%s): %s", rc, gregor_err_name(rc),
              errstr);
    CHECK(lo == SENTINEL_I64 && hi == SENTINEL_I64);

    /* metadata */
    gregor_metadata *md = (gregor_metadata *)&lo; /* must stay untouched */
    CHECK_INT(gregor_consumer_metadata(NULL, topic, 1000, &md, errstr, sizeof errstr),
              GREGOR_ERR__INVALID_ARG);
    CHECK(md == (gregor_metadata *)&lo);
    CHECK_INT(gregor_consumer_metadata(c, topic, 1000, NULL, errstr, sizeof errstr),
              GREGOR_ERR__INVALID_ARG);
    gregor_consumer_free(c);
}

static void check_producer(const char *topic) {
    char errstr[512];
    gregor_producer *p = test_producer(NULL);
    int32_t part = SENTINEL_I32;
    int64_t off = SENTINEL_I64;
    const uint8_t *v = (const uint8_t *)"v";

    CHECK_INT(gregor_producer_send_sync(NULL, topic, 0, NULL, 0, v, 1, NULL, 0, 1000, &part,
                                        &off, errstr, sizeof errstr),
              GREGOR_ERR__INVALID_ARG);
    CHECK_CONTAINS(errstr, "producer");
    CHECK_INT(gregor_producer_send_sync(p, NULL, 0, NULL, 0, v, 1, NULL, 0, 1000, &part, &off,
                                        errstr, sizeof errstr),
              GREGOR_ERR__INVALID_ARG);
    CHECK_CONTAINS(errstr, "topic");
    CHECK_INT(gregor_producer_send_sync(p, topic, -2, NULL, 0, v, 1, NULL, 0, 1000, &part,
                                        &off, errstr, sizeof errstr),
              GREGOR_ERR__INVALID_ARG);
    CHECK_CONTAINS(errstr, "-2");
    /* tiny errstr sizes on a real error */
    char one[1] = {'X'}, five[5] = {'X', 'X', 'X', 'X', 'X'};
    CHECK_INT(gregor_producer_send_sync(p, NULL, 0, NULL, 0, v, 1, NULL, 0, 1000, NULL, NULL,
                                        one, sizeof one),
              GREGOR_ERR__INVALID_ARG);
    CHECK_INT(one[0], '\0');
    CHECK_INT(gregor_producer_send_sync(p, NULL, 0, NULL, 0, v, 1, NULL, 0, 1000, NULL, NULL,
                                        five, sizeof five),
              GREGOR_ERR__INVALID_ARG);
    CHECK_INT(five[4], '\0');
    CHECK_INT(strlen(five), 4);
    CHECK(part == SENTINEL_I32 && off == SENTINEL_I64);

    /* a partition the topic does not have: an error, within the timeout */
    int64_t t0 = now_ms();
    int rc = gregor_producer_send_sync(p, topic, 999, NULL, 0, v, 1, NULL, 0, 3000, &part, &off,
                                       errstr, sizeof errstr);
    int64_t took = now_ms() - t0;
    CHECK_MSG(rc == GREGOR_ERR__UNKNOWN_PARTITION, "rc %d (%s): %s", rc, gregor_err_name(rc),
              errstr);
    CHECK_CONTAINS(errstr, topic);
    CHECK_CONTAINS(errstr, "999");
    CHECK_MSG(took < 3000 + 1000, "took %" PRId64 " ms", took);
    CHECK(part == SENTINEL_I32 && off == SENTINEL_I64);

    /* an invalid topic name: the broker's code comes through unchanged */
    rc = gregor_producer_send_sync(p, "not a valid topic name!", 0, NULL, 0, v, 1, NULL, 0,
                                   3000, &part, &off, errstr, sizeof errstr);
    CHECK_MSG(rc == GREGOR_ERR_INVALID_TOPIC_EXCEPTION, "rc %d (%s): %s", rc,
              gregor_err_name(rc), errstr);
    CHECK_CONTAINS(errstr, "INVALID_TOPIC_EXCEPTION");
    CHECK(part == SENTINEL_I32 && off == SENTINEL_I64);

    /* metadata */
    gregor_metadata *md = NULL;
    CHECK_INT(gregor_producer_metadata(NULL, topic, 1000, &md, errstr, sizeof errstr),
              GREGOR_ERR__INVALID_ARG);
    CHECK_CONTAINS(errstr, "producer");
    CHECK(md == NULL);
    gregor_producer_free(p);
}

int main(void) {
    char topic[128], errstr[512];
    unique_topic(topic, sizeof topic, "misuse");

    check_null_message();
    check_null_metadata();
    check_free_null();
    check_headers();
    check_tpl();

    /* a real topic with one partition known to exist */
    gregor_producer *p = test_producer(NULL);
    CHECK_OK(gregor_producer_send_sync(p, topic, 0, NULL, 0, (const uint8_t *)"x", 1, NULL, 0,
                                       30000, NULL, NULL, errstr, sizeof errstr),
             errstr);
    gregor_producer_free(p);

    check_producer(topic);
    check_consumer(topic);
    printf("misuse: NULL arguments, accessors, free(NULL) and bad partitions checked\n");
    return 0;
}
