/*
 * gregor_producer_purge (librdkafka's rd_kafka_purge) and the delivery
 * report's message: status, latency, key, value and headers.
 *
 * Queued messages: against the test broker, a long linger.ms keeps them
 * queued. In-flight messages: against librdkafka's mock cluster
 * (scripts/mock-cluster.sh run 1, driven over a pipe), whose `rtt` command
 * holds every response for seconds, so the requests stay in flight while
 * the test purges them. Every purged message must get exactly one report
 * with the purge code; the producer is then empty and delivers again.
 */
#include <signal.h>
#include <sys/wait.h>

#include "check.h"

#define N_MSGS 200
#define MAX_OPAQUE 1000

typedef struct {
    int count;
    int err;
    int status;
    int64_t latency;
    int64_t offset;
} seen_t;

static seen_t seen[MAX_OPAQUE];
static int reports;

static void key_of(int i, char *buf, size_t n) { snprintf(buf, n, "k%d", i); }
static void value_of(int i, char *buf, size_t n) { snprintf(buf, n, "value %d", i); }

static void check_slice_eq(gregor_slice s, const char *want, int i, const char *what) {
    CHECK_MSG(s.ptr != NULL, "%s of %d is null", what, i);
    CHECK_MSG(s.len == strlen(want) && memcmp(s.ptr, want, s.len) == 0,
              "%s of %d: got %.*s, want %s", what, i, (int)s.len, (const char *)s.ptr, want);
}

static void dr_cb(const gregor_delivery_report *dr, void *opaque) {
    (void)opaque;
    int i = (int)(intptr_t)dr->msg_opaque;
    CHECK(i >= 0 && i < MAX_OPAQUE);
    const gregor_message *m = dr->message;
    CHECK(m != NULL);
    char k[32], v[64], n[16];
    key_of(i, k, sizeof k);
    value_of(i, v, sizeof v);
    snprintf(n, sizeof n, "%d", i);
    /* the report's message is the message as sent */
    check_slice_eq(gregor_message_key(m), k, i, "key");
    check_slice_eq(gregor_message_value(m), v, i, "value");
    CHECK_INT(gregor_message_header_count(m), 2);
    gregor_slice hn, hv;
    CHECK_INT(gregor_message_header(m, 0, &hn, &hv), 0);
    CHECK(hn.len == 1 && memcmp(hn.ptr, "n", 1) == 0);
    check_slice_eq(hv, n, i, "header n");
    CHECK_INT(gregor_message_header(m, 1, &hn, &hv), 0);
    CHECK(hn.len == 5 && memcmp(hn.ptr, "empty", 5) == 0);
    CHECK(hv.ptr == NULL);
    CHECK_INT(gregor_message_err(m), dr->err);
    CHECK_INT(gregor_message_partition(m), dr->partition);
    CHECK_INT(gregor_message_offset(m), dr->offset);
    CHECK_STR(gregor_message_topic(m), dr->topic);
    seen[i].count++;
    seen[i].err = dr->err;
    seen[i].status = gregor_message_status(m);
    seen[i].latency = gregor_message_latency(m);
    seen[i].offset = dr->offset;
    reports++;
}

static void reset(void) {
    memset(seen, 0, sizeof seen);
    reports = 0;
}

static void send_range(gregor_producer *p, const char *topic, int from, int to) {
    char errstr[512];
    for (int i = from; i < to; i++) {
        char k[32], v[64], n[16];
        key_of(i, k, sizeof k);
        value_of(i, v, sizeof v);
        snprintf(n, sizeof n, "%d", i);
        gregor_headers *h = gregor_headers_new();
        CHECK_OK(gregor_headers_add(h, "n", (const uint8_t *)n, strlen(n)), "");
        CHECK_OK(gregor_headers_add(h, "empty", NULL, 0), "");
        CHECK_OK(gregor_producer_send(p, topic, 0, (const uint8_t *)k, strlen(k),
                                      (const uint8_t *)v, strlen(v), h, 0,
                                      (void *)(intptr_t)i, 0, errstr, sizeof errstr),
                 errstr);
        gregor_headers_free(h);
    }
}

static void poll_until(gregor_producer *p, int n, int64_t ms) {
    int64_t until = now_ms() + ms;
    while (reports < n && now_ms() < until)
        gregor_producer_poll(p, 50);
}

/* each of [from, to) got exactly one report with `err` and `status` */
static void check_range(int from, int to, int err, int status) {
    for (int i = from; i < to; i++) {
        CHECK_MSG(seen[i].count == 1, "message %d: %d reports", i, seen[i].count);
        CHECK_MSG(seen[i].err == err, "message %d: %s, want %s", i, gregor_err_name(seen[i].err),
                  gregor_err_name(err));
        CHECK_MSG(seen[i].status == status, "message %d: status %d, want %d", i, seen[i].status,
                  status);
        CHECK_MSG(seen[i].latency >= 0, "message %d: latency %" PRId64, i, seen[i].latency);
    }
}

static void create_topic_on_test_broker(const char *topic) {
    /* a metadata request for a new topic creates it (auto-create) or fails;
     * send_sync creates it through auto-creation where the broker allows */
    char errstr[512];
    gregor_producer *p = test_producer(NULL);
    int32_t part;
    int64_t off;
    CHECK_OK(gregor_producer_send_sync(p, topic, 0, NULL, 0, (const uint8_t *)"x", 1, NULL, 0,
                                       20000, &part, &off, errstr, sizeof errstr),
             errstr);
    gregor_producer_free(p);
}

static void purge_queued(void) {
    char topic[128];
    unique_topic(topic, sizeof topic, "purge-q");
    create_topic_on_test_broker(topic);
    const char *props[] = {"linger.ms", "60000", NULL};
    gregor_producer *p = test_producer(props);
    CHECK_OK(gregor_producer_set_dr_cb(p, dr_cb, NULL), "");
    reset();
    send_range(p, topic, 0, N_MSGS);
    CHECK_INT(gregor_producer_len(p), N_MSGS);
    CHECK_INT(gregor_producer_purge(p, GREGOR_PURGE_F_QUEUE), 0);
    poll_until(p, N_MSGS, 5000);
    CHECK_INT(reports, N_MSGS);
    CHECK_INT(gregor_producer_len(p), 0);
    check_range(0, N_MSGS, GREGOR_ERR__PURGE_QUEUE, GREGOR_MSG_STATUS_NOT_PERSISTED);
    /* reusable */
    reset();
    send_range(p, topic, 500, 510);
    CHECK_INT(gregor_producer_flush(p, 20000), 0);
    CHECK_INT(reports, 10);
    check_range(500, 510, 0, GREGOR_MSG_STATUS_PERSISTED);
    CHECK(seen[500].offset >= 0);
    /* bad input */
    CHECK_INT(gregor_producer_purge(p, 0x10), GREGOR_ERR__INVALID_ARG);
    CHECK_INT(gregor_producer_purge(NULL, GREGOR_PURGE_F_QUEUE), GREGOR_ERR__INVALID_ARG);
    CHECK_INT(gregor_message_status(NULL), GREGOR_ERR__INVALID_ARG);
    CHECK_INT(gregor_message_latency(NULL), -1);
    gregor_producer_set_dr_cb(p, NULL, NULL);
    gregor_producer_free(p);
    printf("purge of %d queued messages: one _PURGE_QUEUE report each, not persisted; "
           "then delivered again\n",
           N_MSGS);
}

/* delivery.report.only.error: only failed messages get a report */
static void only_errors(void) {
    char topic[128];
    unique_topic(topic, sizeof topic, "purge-oe");
    create_topic_on_test_broker(topic);
    const char *props[] = {"linger.ms", "60000", "delivery.report.only.error", "true", NULL};
    gregor_producer *p = test_producer(props);
    CHECK_OK(gregor_producer_set_dr_cb(p, dr_cb, NULL), "");
    reset();
    send_range(p, topic, 0, 3);
    CHECK_INT(gregor_producer_flush(p, 20000), 0);
    CHECK_INT(reports, 0);
    CHECK_INT(gregor_producer_len(p), 0);
    send_range(p, topic, 3, 5);
    CHECK_INT(gregor_producer_purge(p, GREGOR_PURGE_F_QUEUE), 0);
    CHECK_INT(gregor_producer_poll(p, 5000), 2);
    check_range(3, 5, GREGOR_ERR__PURGE_QUEUE, GREGOR_MSG_STATUS_NOT_PERSISTED);
    gregor_producer_set_dr_cb(p, NULL, NULL);
    gregor_producer_free(p);
    printf("delivery.report.only.error: no report for delivered messages, one for each failed\n");
}

/* ----- the mock cluster, driven over pipes ----- */

typedef struct {
    pid_t pid;
    FILE *in;  /* commands */
    FILE *out; /* answers */
    char bootstrap[256];
} mock_t;

static void mock_start(mock_t *m) {
    int to_child[2], from_child[2];
    CHECK(pipe(to_child) == 0 && pipe(from_child) == 0);
    m->pid = fork();
    CHECK(m->pid >= 0);
    if (m->pid == 0) {
        dup2(to_child[0], 0);
        dup2(from_child[1], 1);
        close(to_child[1]);
        close(from_child[0]);
        execl("/bin/bash", "bash", "scripts/mock-cluster.sh", "run", "1", (char *)NULL);
        _exit(127);
    }
    close(to_child[0]);
    close(from_child[1]);
    m->in = fdopen(to_child[1], "w");
    m->out = fdopen(from_child[0], "r");
    CHECK(m->in && m->out);
    CHECK_MSG(fgets(m->bootstrap, sizeof m->bootstrap, m->out) != NULL,
              "the mock cluster did not start (scripts/mock-cluster.sh run 1)");
    m->bootstrap[strcspn(m->bootstrap, "\r\n")] = 0;
}

static void mock_cmd(mock_t *m, const char *cmd) {
    char line[512];
    fprintf(m->in, "%s\n", cmd);
    fflush(m->in);
    CHECK_MSG(fgets(line, sizeof line, m->out) != NULL, "no answer to %s", cmd);
    CHECK_MSG(strncmp(line, "ok", 2) == 0, "%s: %s", cmd, line);
}

/* waits until the mock broker has received a Produce request since the
 * last "track clear" (the request is then in flight: its answer is held) */
static void mock_wait_produce(mock_t *m, int64_t ms) {
    int64_t until = now_ms() + ms;
    for (;;) {
        char line[512];
        int seen_produce = 0;
        fprintf(m->in, "track dump\n");
        fflush(m->in);
        for (;;) {
            CHECK_MSG(fgets(line, sizeof line, m->out) != NULL, "no answer to track dump");
            if (strncmp(line, "ok", 2) == 0)
                break;
            int broker, api;
            if (sscanf(line, "request %d %d", &broker, &api) == 2 && api == 0)
                seen_produce = 1;
        }
        if (seen_produce)
            return;
        CHECK_MSG(now_ms() < until, "no Produce request reached the mock broker");
        usleep(20 * 1000);
    }
}

static void mock_stop(mock_t *m) {
    fprintf(m->in, "quit\n");
    fclose(m->in);
    fclose(m->out);
    int st;
    waitpid(m->pid, &st, 0);
}

static void purge_in_flight(void) {
    char errstr[512], cmd[256];
    mock_t m;
    mock_start(&m);
    const char *topic = "purge-inflight";
    snprintf(cmd, sizeof cmd, "topic %s 1 1", topic);
    mock_cmd(&m, cmd);
    gregor_config *conf = gregor_config_new();
    CHECK_OK(gregor_config_set(conf, "bootstrap.servers", m.bootstrap, errstr, sizeof errstr),
             errstr);
    /* one request at a time: the second batch waits queued behind the first */
    CHECK_OK(gregor_config_set(conf, "max.in.flight.requests.per.connection", "1", errstr,
                               sizeof errstr),
             errstr);
    CHECK_OK(gregor_config_set(conf, "linger.ms", "50", errstr, sizeof errstr), errstr);
    gregor_producer *p = gregor_producer_new(conf, errstr, sizeof errstr);
    CHECK_MSG(p != NULL, "%s", errstr);
    gregor_config_free(conf);
    CHECK_OK(gregor_producer_set_dr_cb(p, dr_cb, NULL), "");
    /* warm up: metadata, connection */
    reset();
    send_range(p, topic, 900, 901);
    CHECK_INT(gregor_producer_flush(p, 20000), 0);
    check_range(900, 901, 0, GREGOR_MSG_STATUS_PERSISTED);

    /* every answer held for 6 s: the first batch stays in flight */
    mock_cmd(&m, "rtt 1 6000");
    mock_cmd(&m, "track start");
    mock_cmd(&m, "track clear");
    reset();
    send_range(p, topic, 0, 100);
    mock_wait_produce(&m, 30000);
    send_range(p, topic, 100, 130); /* queued behind it */
    usleep(100 * 1000);
    CHECK_INT(gregor_producer_len(p), 130);
    CHECK_INT(gregor_producer_poll(p, 0), 0);
    int64_t t0 = now_ms();
    CHECK_INT(gregor_producer_purge(p, GREGOR_PURGE_F_QUEUE | GREGOR_PURGE_F_INFLIGHT), 0);
    poll_until(p, 130, 5000);
    CHECK_MSG(now_ms() - t0 < 5000, "the purge waited for the held answer");
    CHECK_INT(reports, 130);
    CHECK_INT(gregor_producer_len(p), 0);
    check_range(0, 100, GREGOR_ERR__PURGE_INFLIGHT, GREGOR_MSG_STATUS_POSSIBLY_PERSISTED);
    check_range(100, 130, GREGOR_ERR__PURGE_QUEUE, GREGOR_MSG_STATUS_NOT_PERSISTED);

    /* answers come at once again: the held answer for the purged request
     * (sent before new ones on the connection) is ignored; new messages are
     * delivered */
    mock_cmd(&m, "rtt 1 0");
    send_range(p, topic, 200, 220);
    CHECK_INT(gregor_producer_flush(p, 60000), 0);
    /* past the held answer's time: it came and changed nothing */
    while (now_ms() < t0 + 7000)
        gregor_producer_poll(p, 100);
    CHECK_INT(reports, 150);
    check_range(0, 100, GREGOR_ERR__PURGE_INFLIGHT, GREGOR_MSG_STATUS_POSSIBLY_PERSISTED);
    check_range(200, 220, 0, GREGOR_MSG_STATUS_PERSISTED);
    CHECK_INT(gregor_producer_len(p), 0);
    gregor_producer_set_dr_cb(p, NULL, NULL);
    gregor_producer_free(p);
    mock_stop(&m);
    printf("purge in flight (mock broker holding answers 6 s): 100 _PURGE_INFLIGHT possibly "
           "persisted + 30 _PURGE_QUEUE, once each, at once; the late answer ignored; "
           "delivered again\n");
}

int main(void) {
    signal(SIGPIPE, SIG_IGN);
    purge_queued();
    only_errors();
    purge_in_flight();
    return 0;
}
