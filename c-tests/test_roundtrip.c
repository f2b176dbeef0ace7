/*
 * Produce records of every shape to a fresh topic and consume them back,
 * comparing every byte: keys and values (null, empty, binary with NULs,
 * large), headers (null and empty values, binary values, repeated names),
 * the timestamps given on produce, and the partitions and offsets that
 * gregor_producer_send_sync returned.
 */
#include "check.h"

#define MAX_HEADERS 8
#define BIG_LEN (200 * 1000)

typedef struct {
    const char *name;
    const uint8_t *value; /* NULL: null value */
    size_t len;
} hdr;

typedef struct {
    const char *what;
    int32_t partition; /* as asked: -1 lets the partitioner choose */
    const uint8_t *key; /* NULL: null key */
    size_t key_len;
    const uint8_t *value; /* NULL: tombstone */
    size_t value_len;
    hdr headers[MAX_HEADERS];
    size_t header_count;
    int64_t timestamp;
    /* filled by produce */
    int32_t got_partition;
    int64_t got_offset;
    int seen;
} record;

static const uint8_t nothing[1] = {0};
static uint8_t all_bytes[256];
static uint8_t big[BIG_LEN];

#define S(lit) (const uint8_t *)(lit), sizeof(lit) - 1

static void check_slice(const char *what, const char *field, gregor_slice got,
                        const uint8_t *want, size_t want_len) {
    if (want == NULL) {
        CHECK_MSG(got.ptr == NULL, "%s: %s should be null", what, field);
        CHECK_MSG(got.len == 0, "%s: null %s has len %zu", what, field, got.len);
        return;
    }
    CHECK_MSG(got.ptr != NULL, "%s: %s is null, want %zu bytes", what, field, want_len);
    CHECK_MSG(got.len == want_len, "%s: %s has %zu bytes, want %zu", what, field,
              got.len, want_len);
    CHECK_MSG(memcmp(got.ptr, want, want_len) == 0, "%s: %s bytes differ", what, field);
}

static void check_message(const record *r, const gregor_message *m, const char *topic) {
    CHECK_STR(gregor_message_topic(m), topic);
    CHECK_INT(gregor_message_partition(m), r->got_partition);
    CHECK_INT(gregor_message_offset(m), r->got_offset);
    check_slice(r->what, "key", gregor_message_key(m), r->key, r->key_len);
    check_slice(r->what, "value", gregor_message_value(m), r->value, r->value_len);

    int tstype = -1;
    CHECK_INT(gregor_message_timestamp(m, &tstype), r->timestamp);
    CHECK_INT(tstype, 1); /* create time */
    CHECK_INT(gregor_message_timestamp(m, NULL), r->timestamp);
    CHECK(gregor_message_leader_epoch(m) >= -1);
    CHECK_INT(gregor_message_err(m), 0);
    CHECK_STR(gregor_message_errstr(m), "");

    CHECK_INT(gregor_message_header_count(m), r->header_count);
    for (size_t i = 0; i < r->header_count; i++) {
        gregor_slice name, value;
        CHECK_INT(gregor_message_header(m, i, &name, &value), 0);
        const hdr *h = &r->headers[i];
        check_slice(r->what, "header name", name, (const uint8_t *)h->name,
                    strlen(h->name));
        check_slice(r->what, h->name, value, h->value, h->len);
        /* either out-parameter may be NULL */
        CHECK_INT(gregor_message_header(m, i, NULL, NULL), 0);
        gregor_slice only;
        CHECK_INT(gregor_message_header(m, i, NULL, &only), 0);
        CHECK(only.ptr == value.ptr && only.len == value.len);
    }
    /* out of range: an error, and the out-parameters stay untouched */
    gregor_slice name = {(const uint8_t *)"x", 77}, value = {(const uint8_t *)"y", 88};
    CHECK_INT(gregor_message_header(m, r->header_count, &name, &value),
              GREGOR_ERR__INVALID_ARG);
    CHECK_INT(gregor_message_header(m, (size_t)-1, &name, &value), GREGOR_ERR__INVALID_ARG);
    CHECK(name.len == 77 && value.len == 88);
}

int main(void) {
    char topic[128], errstr[512];
    unique_topic(topic, sizeof topic, "roundtrip");
    for (int i = 0; i < 256; i++)
        all_bytes[i] = (uint8_t)i;
    for (size_t i = 0; i < BIG_LEN; i++)
        big[i] = (uint8_t)(i * 7 + (i >> 8));
    static const uint8_t nul_key[] = {0, 'k', 0, 0xff, 0};
    static const uint8_t bin_hdr[] = {0, 1, 2, 0, 0xfe};
    const int64_t ts = 1700000000000LL; /* 2023-11-14, far from "now" */

    record recs[] = {
        {.what = "plain", .key = S("key-0"), .value = S("hello")},
        {.what = "null key", .value = S("value without key")},
        {.what = "tombstone", .key = S("key-2")},
        {.what = "empty value", .key = S("key-3"), .value = nothing, .value_len = 0},
        {.what = "empty key", .key = nothing, .key_len = 0, .value = S("v")},
        {.what = "null key and value"},
        {.what = "binary", .key = nul_key, .key_len = sizeof nul_key, .value = all_bytes,
         .value_len = sizeof all_bytes},
        {.what = "headers",
         .key = S("key-h"),
         .value = S("with headers"),
         .headers = {{"h1", S("v1")},
                     {"null-valued", NULL, 0},
                     {"binary", bin_hdr, sizeof bin_hdr},
                     {"empty", nothing, 0},
                     {"h1", S("repeated name")},
                     {"", S("empty name")}},
         .header_count = 6},
        {.what = "headers, null value", .headers = {{"only", NULL, 0}}, .header_count = 1},
        {.what = "large", .key = S("big"), .value = big, .value_len = BIG_LEN},
        {.what = "partitioner", .partition = -1, .key = S("any partition"), .value = S("p")},
    };
    const size_t n = sizeof recs / sizeof recs[0];

    gregor_producer *p = test_producer((const char *const[]){"acks", "all", NULL});

    /* Produce. The first send creates the topic (broker auto-create). */
    int64_t expect_offset = 0;
    for (size_t i = 0; i < n; i++) {
        record *r = &recs[i];
        r->timestamp = ts + (int64_t)i * 1000;
        gregor_headers *hs = NULL;
        if (r->header_count) {
            hs = gregor_headers_new();
            CHECK(hs != NULL);
            for (size_t j = 0; j < r->header_count; j++)
                CHECK_INT(gregor_headers_add(hs, r->headers[j].name, r->headers[j].value,
                                             r->headers[j].len),
                          0);
        }
        r->got_partition = -99;
        r->got_offset = -99;
        CHECK_OK(gregor_producer_send_sync(p, topic, r->partition, r->key, r->key_len,
                                           r->value, r->value_len, hs, r->timestamp,
                                           30000, &r->got_partition, &r->got_offset,
                                           errstr, sizeof errstr),
                 errstr);
        CHECK_STR(errstr, ""); /* success clears errstr */
        gregor_headers_free(hs);
        if (r->partition >= 0) {
            CHECK_INT(r->got_partition, r->partition);
            /* a fresh topic: partition 0's offsets count from 0, one per send */
            CHECK_INT(r->got_offset, expect_offset);
            expect_offset++;
        } else {
            CHECK(r->got_partition >= 0);
            CHECK(r->got_offset >= 0);
        }
    }
    /* out-parameters are optional */
    CHECK_OK(gregor_producer_send_sync(p, topic, 0, NULL, 0, S("no outs"), NULL, ts, 30000,
                                       NULL, NULL, errstr, sizeof errstr),
             errstr);
    /* and so is errstr */
    CHECK_INT(gregor_producer_send_sync(p, topic, 0, NULL, 0, S("no errstr"), NULL, ts,
                                        30000, NULL, NULL, NULL, 0),
              0);

    /* How many partitions did auto-create give the topic? */
    gregor_metadata *md = NULL;
    CHECK_OK(gregor_producer_metadata(p, topic, 10000, &md, errstr, sizeof errstr), errstr);
    CHECK_INT(gregor_metadata_topic_count(md), 1);
    CHECK_STR(gregor_metadata_topic_name(md, 0), topic);
    size_t partitions = gregor_metadata_partition_count(md, 0);
    CHECK(partitions >= 1);
    CHECK(recs[n - 1].got_partition < (int32_t)partitions);
    gregor_metadata_free(md);
    gregor_producer_free(p);

    /* Consume everything from the beginning of every partition. */
    gregor_consumer *c = test_consumer(NULL);
    gregor_tpl *tpl = gregor_tpl_new();
    for (size_t i = 0; i < partitions; i++)
        CHECK_INT(gregor_tpl_add(tpl, topic, (int32_t)i, GREGOR_OFFSET_BEGINNING), 0);
    CHECK_INT(gregor_tpl_count(tpl), partitions);
    CHECK_OK(gregor_consumer_assign(c, tpl, errstr, sizeof errstr), errstr);
    gregor_tpl_free(tpl);

    size_t seen = 0, extra = 0;
    int64_t deadline = now_ms() + 30000;
    while (seen < n && now_ms() < deadline) {
        gregor_message *m = gregor_consumer_poll(c, 1000);
        if (!m)
            continue;
        int err = gregor_message_err(m);
        if (err) {
            fprintf(stderr, "consumer event %d (%s): %s\n", err, gregor_err_name(err),
                    gregor_message_errstr(m));
            gregor_message_free(m);
            continue;
        }
        int32_t part = gregor_message_partition(m);
        int64_t off = gregor_message_offset(m);
        record *r = NULL;
        for (size_t i = 0; i < n; i++)
            if (recs[i].got_partition == part && recs[i].got_offset == off)
                r = &recs[i];
        if (r) {
            CHECK_MSG(!r->seen, "%s consumed twice", r->what);
            check_message(r, m, topic);
            r->seen = 1;
            seen++;
        } else {
            /* the two sends without out-parameters */
            CHECK_INT(part, 0);
            CHECK(off == expect_offset || off == expect_offset + 1);
            extra++;
        }
        gregor_message_free(m);
    }
    for (size_t i = 0; i < n; i++)
        CHECK_MSG(recs[i].seen, "%s (partition %d offset %" PRId64 ") never consumed",
                  recs[i].what, recs[i].got_partition, recs[i].got_offset);
    gregor_consumer_free(c);
    printf("roundtrip: %zu records (%zu partitions) produced and consumed back\n", n,
           partitions);
    return 0;
}
