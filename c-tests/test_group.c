/*
 * A consumer group member through the C API: subscribe, the rebalance
 * callback assigning (served inside gregor_consumer_poll), consume what was
 * produced, a sync commit of the consumed positions and of explicit offsets
 * with metadata, committed() matching, an async commit reported to the
 * commit callback, the member id, misuse answered with errors, and close
 * revoking through the callback and leaving the group.
 */
#include "check.h"

#define N 20

typedef struct {
    int assigned;        /* ASSIGNED events seen */
    int revoked;         /* REVOKED events seen */
    int partitions;      /* partitions in the last ASSIGNED */
    int commits;         /* commit callbacks */
    int commit_err;      /* their last error */
    int64_t commit_offset;
    char commit_meta[64];
} seen;

static void on_rebalance(gregor_consumer *c, int32_t event, const gregor_tpl *parts,
                         void *opaque) {
    seen *s = opaque;
    char errstr[256];
    if (event == GREGOR_REBALANCE_ASSIGNED) {
        s->assigned++;
        s->partitions = (int)gregor_tpl_count(parts);
        /* assign them ourselves: this is what the event then does */
        CHECK_OK(gregor_consumer_assign(c, parts, errstr, sizeof errstr), errstr);
    } else if (event == GREGOR_REBALANCE_REVOKED) {
        s->revoked++;
        /* no unassign here: gregor applies the event after we return */
    }
    /* misuse inside a callback is refused, never a crash */
    gregor_consumer_free(c);
}

static void on_commit(gregor_consumer *c, int32_t err, const gregor_tpl *offsets,
                      void *opaque) {
    (void)c;
    seen *s = opaque;
    s->commits++;
    s->commit_err = err;
    if (gregor_tpl_count(offsets) > 0) {
        s->commit_offset = gregor_tpl_offset(offsets, 0);
        const char *m = gregor_tpl_metadata(offsets, 0);
        snprintf(s->commit_meta, sizeof s->commit_meta, "%s", m ? m : "(null)");
    }
}

int main(void) {
    char topic[128], group[128], errstr[512];
    unique_topic(topic, sizeof topic, "group");
    unique_topic(group, sizeof group, "group-g");

    /* the first send creates the topic (broker auto-create), one partition */
    gregor_producer *p = test_producer(NULL);
    for (int i = 0; i < N; i++) {
        char v[32];
        int len = snprintf(v, sizeof v, "m-%d", i);
        int32_t part;
        int64_t off;
        CHECK_OK(gregor_producer_send_sync(p, topic, 0, NULL, 0, (const uint8_t *)v,
                                           (size_t)len, NULL, -1, 30000, &part, &off,
                                           errstr, sizeof errstr),
                 errstr);
        CHECK_INT(off, i);
    }
    gregor_producer_free(p);

    gregor_consumer *c = test_consumer((const char *const[]){
        "group.id", group, "auto.offset.reset", "earliest", "enable.auto.commit", "false",
        "fetch.wait.max.ms", "100", "heartbeat.interval.ms", "500", NULL});

    /* misuse: NULLs and bad lists are errors */
    CHECK_INT(gregor_consumer_subscribe(NULL, NULL, 0, errstr, sizeof errstr),
              GREGOR_ERR__INVALID_ARG);
    CHECK_INT(gregor_consumer_subscribe(c, NULL, 1, errstr, sizeof errstr),
              GREGOR_ERR__INVALID_ARG);
    CHECK_INT(gregor_consumer_subscribe(c, (const char *const[]){""}, 1, errstr,
                                        sizeof errstr),
              GREGOR_ERR__INVALID_ARG);
    CHECK_INT(gregor_consumer_subscribe(c, (const char *const[]){"^("}, 1, errstr,
                                        sizeof errstr),
              GREGOR_ERR__INVALID_ARG);
    CHECK_INT(gregor_consumer_set_rebalance_cb(NULL, on_rebalance, NULL),
              GREGOR_ERR__INVALID_ARG);
    char id[256];
    CHECK_OK(gregor_consumer_member_id(c, id, sizeof id), "member id");
    CHECK_STR(id, "");

    seen s = {0};
    CHECK_OK(gregor_consumer_set_rebalance_cb(c, on_rebalance, &s), "set rebalance cb");
    CHECK_OK(gregor_consumer_set_commit_cb(c, on_commit, &s), "set commit cb");
    const char *topics[] = {topic};
    CHECK_OK(gregor_consumer_subscribe(c, topics, 1, errstr, sizeof errstr), errstr);

    gregor_tpl *sub = NULL;
    CHECK_OK(gregor_consumer_subscription(c, &sub), "subscription");
    CHECK_INT(gregor_tpl_count(sub), 1);
    CHECK_STR(gregor_tpl_topic(sub, 0), topic);
    CHECK_INT(gregor_tpl_partition(sub, 0), -1);
    gregor_tpl_free(sub);

    /* consume everything; the assignment arrives through the callback */
    int got = 0;
    int64_t deadline = now_ms() + 60000;
    while (got < N && now_ms() < deadline) {
        gregor_message *m = gregor_consumer_poll(c, 200);
        if (!m)
            continue;
        if (gregor_message_err(m) == 0) {
            CHECK_INT(gregor_message_offset(m), got);
            got++;
        }
        gregor_message_free(m);
    }
    CHECK_INT(got, N);
    CHECK_INT(s.assigned, 1);
    CHECK(s.partitions >= 1); /* the auto-created topic has the broker's default count */
    CHECK_OK(gregor_consumer_member_id(c, id, sizeof id), "member id");
    CHECK(strlen(id) > 0);
    CHECK_INT(gregor_consumer_member_id(c, id, 2), GREGOR_ERR__INVALID_ARG);

    /* sync commit of the consumed positions, then committed() agrees */
    CHECK_OK(gregor_consumer_commit(c, NULL, 0, errstr, sizeof errstr), errstr);
    gregor_tpl *q = gregor_tpl_new();
    CHECK_OK(gregor_tpl_add(q, topic, 0, GREGOR_OFFSET_INVALID), "add");
    CHECK_OK(gregor_consumer_committed(c, q, 30000, errstr, sizeof errstr), errstr);
    CHECK_INT(gregor_tpl_offset(q, 0), N);
    /* nothing more to commit */
    CHECK_INT(gregor_consumer_commit(c, NULL, 0, errstr, sizeof errstr),
              GREGOR_ERR__NO_OFFSET);

    /* explicit offsets with metadata, sync */
    gregor_tpl *o = gregor_tpl_new();
    CHECK_OK(gregor_tpl_add(o, topic, 0, 5), "add");
    CHECK(gregor_tpl_metadata(o, 0) == NULL);
    CHECK_OK(gregor_tpl_set_metadata(o, 0, "five"), "set metadata");
    CHECK_STR(gregor_tpl_metadata(o, 0), "five");
    CHECK_INT(gregor_tpl_set_metadata(o, 7, "x"), GREGOR_ERR__INVALID_ARG);
    CHECK(gregor_tpl_metadata(o, 7) == NULL);
    CHECK_OK(gregor_consumer_commit(c, o, 0, errstr, sizeof errstr), errstr);
    CHECK_OK(gregor_consumer_committed(c, q, 30000, errstr, sizeof errstr), errstr);
    CHECK_INT(gregor_tpl_offset(q, 0), 5);

    /* async: the result comes to the commit callback inside poll */
    CHECK_OK(gregor_tpl_set_offset(o, 0, 7), "set offset");
    CHECK_OK(gregor_tpl_set_metadata(o, 0, "seven"), "set metadata");
    CHECK_OK(gregor_consumer_commit(c, o, 1, errstr, sizeof errstr), errstr);
    deadline = now_ms() + 30000;
    while (s.commits == 0 && now_ms() < deadline) {
        gregor_message *m = gregor_consumer_poll(c, 100);
        gregor_message_free(m);
    }
    CHECK_INT(s.commits, 1);
    CHECK_INT(s.commit_err, 0);
    CHECK_INT(s.commit_offset, 7);
    CHECK_STR(s.commit_meta, "seven");
    CHECK_OK(gregor_consumer_committed(c, q, 30000, errstr, sizeof errstr), errstr);
    CHECK_INT(gregor_tpl_offset(q, 0), 7);

    /* store_offsets: only assigned partitions */
    gregor_tpl *bad = gregor_tpl_new();
    CHECK_OK(gregor_tpl_add(bad, topic, 99, 1), "add");
    CHECK_INT(gregor_consumer_store_offsets(c, bad), GREGOR_ERR__UNKNOWN_PARTITION);
    gregor_tpl_free(bad);
    CHECK_OK(gregor_tpl_set_offset(o, 0, 9), "set offset");
    CHECK_OK(gregor_consumer_store_offsets(c, o), "store");
    CHECK_OK(gregor_consumer_commit(c, NULL, 0, errstr, sizeof errstr), errstr);
    CHECK_OK(gregor_consumer_committed(c, q, 30000, errstr, sizeof errstr), errstr);
    CHECK_INT(gregor_tpl_offset(q, 0), 9);

    /* close: the revoke runs through the callback, then the member leaves */
    CHECK_OK(gregor_consumer_close(c), "close");
    CHECK_INT(s.revoked, 1);
    gregor_message *m = gregor_consumer_poll(c, 0);
    CHECK(m != NULL && gregor_message_err(m) == GREGOR_ERR__STATE);
    gregor_message_free(m);
    gregor_consumer_free(c);

    /* a consumer without group.id cannot subscribe or commit */
    gregor_consumer *plain = test_consumer(NULL);
    CHECK_INT(gregor_consumer_subscribe(plain, topics, 1, errstr, sizeof errstr),
              GREGOR_ERR__INVALID_ARG);
    CHECK_INT(gregor_consumer_commit(plain, NULL, 0, errstr, sizeof errstr),
              GREGOR_ERR__INVALID_ARG);
    gregor_consumer_free(plain);

    gregor_tpl_free(o);
    gregor_tpl_free(q);
    printf("test_group: ok\n");
    return 0;
}
