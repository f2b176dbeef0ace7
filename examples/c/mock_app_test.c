/*
 * An application test that needs no broker: the code under test
 * (publish_order, below) runs against gregor's in-process mock cluster,
 * which the test also uses to inject failures.
 *
 *   cc mock_app_test.c $(pkg-config --cflags --libs gregor) -o mock_app_test
 *   ./mock_app_test            (exit 0 when every check passes)
 *
 * Checks: the order is written and reads back unchanged; it still gets
 * through, once, when the leader answers NOT_LEADER_OR_FOLLOWER twice, and
 * when the leader moves to another (slow) broker; the requests the mock
 * recorded show where the Produce requests went.
 */
#include <gregor.h>
#include <stdio.h>
#include <string.h>

/* ---- the application code under test ---- */

static void on_delivery(const gregor_delivery_report *dr, void *opaque) {
    *(int *)opaque = dr->err;
    if (dr->err)
        fprintf(stderr, "delivery failed: %s: %s\n", gregor_err_name(dr->err), dr->errstr);
}

/* Publishes one order (key = id) and waits for its delivery. 0 on success. */
static int publish_order(const char *bootstrap, const char *topic, const char *id,
                         const char *body) {
    char err[512];
    gregor_config *conf = gregor_config_new();
    if (gregor_config_set(conf, "bootstrap.servers", bootstrap, err, sizeof err) ||
        gregor_config_set(conf, "enable.idempotence", "true", err, sizeof err)) {
        gregor_config_free(conf);
        return -1;
    }
    gregor_producer *p = gregor_producer_new(conf, err, sizeof err);
    gregor_config_free(conf);
    if (!p)
        return -1;
    int delivery = -1;
    gregor_producer_set_dr_cb(p, on_delivery, &delivery);
    int rc = gregor_producer_send(p, topic, -1, (const uint8_t *)id, strlen(id),
                                  (const uint8_t *)body, strlen(body), NULL, 0, NULL, 0, err,
                                  sizeof err);
    if (!rc)
        rc = gregor_producer_flush(p, 10000);
    gregor_producer_free(p);
    return rc ? rc : delivery;
}

/* ---- the test ---- */

static int failures = 0;
#define CHECK(cond, what)                                                       \
    do {                                                                        \
        int ok_ = (cond);                                                       \
        printf("%s %s\n", ok_ ? "ok  " : "FAIL", what);                         \
        if (!ok_)                                                               \
            failures++;                                                         \
    } while (0)

/* Reads partition 0 of `topic` from the start; 1 if `body` is the last value. */
static int read_back(const char *bootstrap, const char *topic, const char *body, int n) {
    char err[512];
    gregor_config *conf = gregor_config_new();
    gregor_config_set(conf, "bootstrap.servers", bootstrap, err, sizeof err);
    gregor_consumer *c = gregor_consumer_new(conf, err, sizeof err);
    gregor_config_free(conf);
    if (!c)
        return 0;
    gregor_tpl *tpl = gregor_tpl_new();
    gregor_tpl_add(tpl, topic, 0, GREGOR_OFFSET_BEGINNING);
    gregor_consumer_assign(c, tpl, err, sizeof err);
    gregor_tpl_free(tpl);
    int seen = 0, last_ok = 0;
    for (int i = 0; i < 100 && seen < n; i++) {
        gregor_message *m = gregor_consumer_poll(c, 100);
        if (!m)
            continue;
        if (!gregor_message_err(m)) {
            gregor_slice v = gregor_message_value(m);
            last_ok = v.len == strlen(body) && memcmp(v.ptr, body, v.len) == 0;
            seen++;
        }
        gregor_message_free(m);
    }
    gregor_consumer_close(c);
    gregor_consumer_free(c);
    return seen == n && last_ok;
}

int main(void) {
    char err[512];
    setvbuf(stdout, NULL, _IONBF, 0);
    gregor_mock_cluster *mc = gregor_mock_cluster_new(3, err, sizeof err);
    if (!mc) {
        fprintf(stderr, "mock cluster: %s\n", err);
        return 1;
    }
    const char *bs = gregor_mock_cluster_bootstraps(mc);
    CHECK(gregor_mock_topic_create(mc, "orders", 1, 3) == 0, "topic created on the mock");
    CHECK(gregor_mock_partition_set_leader(mc, "orders", 0, 1) == 0, "leader pinned to broker 1");

    CHECK(publish_order(bs, "orders", "o-1", "2 apples") == 0, "order o-1 published");
    CHECK(gregor_mock_partition_high_watermark(mc, "orders", 0) == 1, "one record on the partition");
    CHECK(read_back(bs, "orders", "2 apples", 1), "o-1 reads back unchanged");

    /* The leader answers NOT_LEADER_OR_FOLLOWER (6) twice: the order still gets through. */
    gregor_mock_start_request_tracking(mc);
    const int16_t errors[2] = {6, 6};
    CHECK(gregor_mock_push_request_errors(mc, 0 /* Produce */, 2, errors) == 0, "two errors injected");
    CHECK(publish_order(bs, "orders", "o-2", "3 pears") == 0, "order o-2 published through the errors");
    CHECK(read_back(bs, "orders", "3 pears", 2), "o-2 reads back unchanged, once, after o-1");

    /* The leader moves to broker 2, which is slow. */
    CHECK(gregor_mock_partition_set_leader(mc, "orders", 0, 2) == 0, "leader moved to broker 2");
    CHECK(gregor_mock_broker_set_rtt(mc, 2, 50) == 0, "broker 2 answers after 50 ms");
    CHECK(publish_order(bs, "orders", "o-3", "1 fig") == 0, "order o-3 published to the new leader");
    CHECK(read_back(bs, "orders", "1 fig", 3), "o-3 reads back unchanged, after o-2");

    size_t n = gregor_mock_get_requests(mc, NULL, 0);
    gregor_mock_request reqs[512];
    n = gregor_mock_get_requests(mc, reqs, n < 512 ? n : 512);
    int to1 = 0, to2 = 0, in_order = 1;
    for (size_t i = 0; i < n; i++) {
        to1 += reqs[i].api_key == 0 && reqs[i].broker_id == 1;
        to2 += reqs[i].api_key == 0 && reqs[i].broker_id == 2;
        in_order &= i == 0 || reqs[i].timestamp_us >= reqs[i - 1].timestamp_us;
    }
    CHECK(n > 0 && reqs[0].timestamp_us > 0 && in_order,
          "each request's time (microseconds since the cluster started), in order");
    printf("Produce requests recorded: %d to broker 1, %d to broker 2\n", to1, to2);
    CHECK(to1 >= 3, "the mock recorded the two failed attempts and the retry on broker 1");
    CHECK(to2 >= 1, "and the Produce to the new leader");
    CHECK(gregor_mock_topic_create(mc, "orders", 1, 1) == 36, "creating it again: TOPIC_ALREADY_EXISTS");
    CHECK(gregor_mock_broker_set_down(mc, 9) != 0, "an unknown broker is an error");
    CHECK(gregor_mock_partition_set_follower(mc, "orders", 0, 3) == 0,
          "broker 3 named preferred read replica (KIP-392)");
    CHECK(gregor_mock_partition_set_follower(mc, "orders", 0, 9) != 0,
          "an unknown broker as follower is an error");

    gregor_mock_cluster_destroy(mc);
    printf("%s\n", failures ? "FAILED" : "all checks passed");
    return failures != 0;
}
