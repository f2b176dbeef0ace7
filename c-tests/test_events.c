/*
 * Client events through the C API (librdkafka's error_cb semantics), fatal
 * errors and error objects:
 * - every broker down (a closed port on 127.0.0.1): _TRANSPORT, then
 *   _ALL_BROKERS_DOWN within 2 x reconnect.backoff.max.ms, served inside
 *   gregor_producer_poll on this thread;
 * - a wrong SCRAM password (the SASL broker, $GREGOR_TEST_BROKER_SASL,
 *   default 127.0.0.1:9094): _AUTHENTICATION;
 * - an untrusted TLS certificate (the TLS broker, $GREGOR_TEST_BROKER_TLS,
 *   default 127.0.0.1:9093, without its CA): _SSL;
 * - a fatal error of the transactional (so idempotent) producer: the test
 *   broker refuses transactional ids (TRANSACTIONAL_ID_AUTHORIZATION_FAILED),
 *   which is fatal; gregor_producer_txn_init returns a gregor_error_t
 *   flagged fatal, the error callback gets _FATAL, and
 *   gregor_producer_fatal_error returns the cause afterwards.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>

#include "check.h"

#define MAX_SEEN 64

struct seen {
    int n;
    int codes[MAX_SEEN];
    int64_t at[MAX_SEEN];
    char reasons[MAX_SEEN][256];
    pthread_t thread;
};

static void on_error(const gregor_producer *p, int err, const char *reason, void *opaque) {
    struct seen *s = opaque;
    CHECK(p != NULL);
    /* served on the polling thread */
    CHECK(pthread_equal(pthread_self(), s->thread));
    if (s->n < MAX_SEEN) {
        s->codes[s->n] = err;
        s->at[s->n] = now_ms();
        snprintf(s->reasons[s->n], sizeof s->reasons[0], "%s", reason);
        s->n++;
    }
    printf("    error_cb: %s: %s\n", gregor_err_name(err), reason);
}

static int find(const struct seen *s, int code) {
    for (int i = 0; i < s->n; i++)
        if (s->codes[i] == code) return i;
    return -1;
}

/* Polls until `code` was seen or `limit_ms` passed; its index or -1. */
static int poll_for(gregor_producer *p, struct seen *s, int code, int64_t limit_ms) {
    int64_t until = now_ms() + limit_ms;
    while (now_ms() < until) {
        gregor_producer_poll(p, 100);
        int i = find(s, code);
        if (i >= 0) return i;
    }
    return -1;
}

static const char *env_or(const char *var, const char *dflt) {
    const char *v = getenv(var);
    return v && *v ? v : dflt;
}

static void closed_port_addr(char *buf, size_t size) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(fd >= 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CHECK(bind(fd, (struct sockaddr *)&a, sizeof a) == 0);
    socklen_t len = sizeof a;
    CHECK(getsockname(fd, (struct sockaddr *)&a, &len) == 0);
    snprintf(buf, size, "127.0.0.1:%d", ntohs(a.sin_port));
    close(fd);
}

static gregor_producer *producer_with_cb(const char *const *props, struct seen *s) {
    gregor_producer *p = test_producer(props);
    memset(s, 0, sizeof *s);
    s->thread = pthread_self();
    CHECK_INT(gregor_producer_set_error_cb(p, on_error, s), 0);
    return p;
}

static void send_one(gregor_producer *p, const char *topic) {
    char errstr[256];
    CHECK_OK(gregor_producer_send(p, topic, -1, NULL, 0, (const uint8_t *)"v", 1, NULL, 0, NULL, 0,
                                  errstr, sizeof errstr),
             errstr);
}

static void all_brokers_down(void) {
    char addr[64];
    closed_port_addr(addr, sizeof addr);
    const char *const props[] = {"bootstrap.servers", addr, "reconnect.backoff.ms", "100",
                                 "reconnect.backoff.max.ms", "1000", "message.timeout.ms",
                                 "300000", NULL};
    struct seen s;
    gregor_producer *p = producer_with_cb(props, &s);
    int64_t t0 = now_ms();
    send_one(p, "events-c-down");
    int i = poll_for(p, &s, GREGOR_ERR__ALL_BROKERS_DOWN, 2000);
    CHECK_MSG(i >= 0, "no _ALL_BROKERS_DOWN in 2 s (%d events)", s.n);
    printf("  _ALL_BROKERS_DOWN after %" PRId64 " ms\n", s.at[i] - t0);
    CHECK(s.at[i] - t0 < 2000);
    CHECK_INT(s.codes[0], GREGOR_ERR__TRANSPORT);
    CHECK_CONTAINS(s.reasons[0], addr);
    /* raised once while the condition lasts */
    int before = s.n;
    for (int k = 0; k < 10; k++) gregor_producer_poll(p, 100);
    CHECK_INT(s.n, before);
    /* clearing the callback: events are dropped, nothing is called */
    CHECK_INT(gregor_producer_set_error_cb(p, NULL, NULL), 0);
    gregor_producer_free(p);
    CHECK_INT(gregor_producer_set_error_cb(NULL, on_error, NULL), GREGOR_ERR__INVALID_ARG);
}

static void wrong_scram_password(void) {
    const char *const props[] = {"bootstrap.servers", env_or("GREGOR_TEST_BROKER_SASL", "127.0.0.1:9094"),
                                 "security.protocol", "sasl_plaintext", "sasl.mechanisms",
                                 "SCRAM-SHA-256", "sasl.username", "gregor256", "sasl.password",
                                 "events-c-wrong", NULL};
    struct seen s;
    gregor_producer *p = producer_with_cb(props, &s);
    send_one(p, "events-c-auth");
    int i = poll_for(p, &s, GREGOR_ERR__AUTHENTICATION, 30000); /* valgrind is slow at SCRAM */
    CHECK_MSG(i >= 0, "no _AUTHENTICATION (%d events)", s.n);
    CHECK(strstr(s.reasons[i], "events-c-wrong") == NULL);
    gregor_producer_free(p);
}

static void untrusted_certificate(void) {
    const char *const props[] = {"bootstrap.servers", env_or("GREGOR_TEST_BROKER_TLS", "127.0.0.1:9093"),
                                 "security.protocol", "ssl", NULL};
    struct seen s;
    gregor_producer *p = producer_with_cb(props, &s);
    send_one(p, "events-c-tls");
    int i = poll_for(p, &s, GREGOR_ERR__SSL, 30000);
    CHECK_MSG(i >= 0, "no _SSL (%d events)", s.n);
    CHECK_CONTAINS(s.reasons[i], "certificate");
    gregor_producer_free(p);
}

static void fatal_transactional_error(void) {
    char errstr[512];
    const char *const props[] = {"bootstrap.servers", test_broker(), "transactional.id",
                                 "events-c-txn", NULL};
    struct seen s;
    gregor_producer *p = producer_with_cb(props, &s);
    CHECK_INT(gregor_producer_fatal_error(p, errstr, sizeof errstr), 0);
    gregor_error_t *e = gregor_producer_txn_init(p, 10000);
    CHECK(e != NULL);
    printf("  txn_init: %s (%d): %s; fatal %d retriable %d abort %d\n", gregor_error_name(e),
           gregor_error_code(e), gregor_error_string(e), gregor_error_is_fatal(e),
           gregor_error_is_retriable(e), gregor_error_txn_requires_abort(e));
    CHECK_INT(gregor_error_is_fatal(e), 1);
    CHECK_INT(gregor_error_is_retriable(e), 0);
    CHECK_INT(gregor_error_txn_requires_abort(e), 0);
    int code = gregor_error_code(e);
    CHECK_INT(code, GREGOR_ERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
    CHECK_STR(gregor_error_name(e), "TRANSACTIONAL_ID_AUTHORIZATION_FAILED");
    gregor_error_destroy(e);
    /* queryable after the fact */
    CHECK_INT(gregor_producer_fatal_error(p, errstr, sizeof errstr), code);
    CHECK(errstr[0] != '\0');
    /* the _FATAL event comes through the callback at the next poll */
    CHECK_MSG(poll_for(p, &s, GREGOR_ERR__FATAL, 2000) >= 0, "no _FATAL (%d events)", s.n);
    /* every later transactional call is fatal too */
    e = gregor_producer_txn_begin(p);
    CHECK(e != NULL && gregor_error_is_fatal(e));
    gregor_error_destroy(e);
    gregor_error_destroy(NULL);
    CHECK_INT(gregor_error_code(NULL), 0);
    CHECK_INT(gregor_producer_fatal_error(NULL, errstr, sizeof errstr), GREGOR_ERR__INVALID_ARG);
    e = gregor_producer_txn_commit(NULL, 0);
    CHECK(e != NULL && gregor_error_code(e) == GREGOR_ERR__INVALID_ARG);
    gregor_error_destroy(e);
    gregor_producer_free(p);
}

/* ----- throttling: a scripted broker (bytes written from Kafka's schemas) ----- */

static int read_exact(int fd, uint8_t *buf, size_t n) {
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r <= 0) return -1;
        got += (size_t)r;
    }
    return 0;
}

static uint8_t *put16(uint8_t *p, int16_t v) {
    p[0] = (uint8_t)((uint16_t)v >> 8);
    p[1] = (uint8_t)v;
    return p + 2;
}

static uint8_t *put32(uint8_t *p, int32_t v) {
    uint32_t u = (uint32_t)v;
    p[0] = (uint8_t)(u >> 24);
    p[1] = (uint8_t)(u >> 16);
    p[2] = (uint8_t)(u >> 8);
    p[3] = (uint8_t)u;
    return p + 4;
}

/* One connection: ApiVersions (UNSUPPORTED_VERSION above v0, as KIP-511;
 * ApiVersions 0, Metadata 0-4 advertised), then Metadata v4 answers with
 * broker 7, no topics and throttle_time_ms 321. */
static void *throttling_peer(void *arg) {
    int lfd = *(int *)arg;
    int fd = accept(lfd, NULL, NULL);
    if (fd < 0) return NULL;
    uint8_t req[4096], resp[256];
    for (;;) {
        uint8_t sz[4];
        if (read_exact(fd, sz, 4)) break;
        uint32_t n = ((uint32_t)sz[0] << 24) | ((uint32_t)sz[1] << 16) | ((uint32_t)sz[2] << 8) | sz[3];
        if (n < 8 || n > sizeof req || read_exact(fd, req, n)) break;
        int16_t api = (int16_t)((req[0] << 8) | req[1]);
        int16_t ver = (int16_t)((req[2] << 8) | req[3]);
        uint8_t *p = resp + 4;
        memcpy(p, req + 4, 4); /* correlation id */
        p += 4;
        if (api == 18) {
            p = put16(p, ver > 0 ? 35 : 0);
            p = put32(p, 2);
            p = put16(put16(put16(p, 18), 0), 0);
            p = put16(put16(put16(p, 3), 0), 4);
        } else if (api == 3) {
            p = put32(p, 321);              /* throttle_time_ms */
            p = put32(p, 1);                /* one broker */
            p = put32(p, 7);                /* node id */
            p = put16(p, 9);
            memcpy(p, "127.0.0.1", 9);
            p += 9;
            p = put32(p, 1);                /* port */
            p = put16(p, -1);               /* rack: null */
            p = put16(p, -1);               /* cluster id: null */
            p = put32(p, 7);                /* controller */
            p = put32(p, 0);                /* no topics */
        } else {
            break;
        }
        put32(resp, (int32_t)(p - resp - 4));
        if (write(fd, resp, (size_t)(p - resp)) != p - resp) break;
    }
    close(fd);
    return NULL;
}

struct throttled {
    int n;
    int32_t broker_id;
    int ms;
    char name[128];
};

static void on_throttle(const gregor_producer *p, const char *broker_name, int32_t broker_id,
                        int throttle_time_ms, void *opaque) {
    struct throttled *t = opaque;
    CHECK(p != NULL);
    t->n++;
    t->broker_id = broker_id;
    t->ms = throttle_time_ms;
    snprintf(t->name, sizeof t->name, "%s", broker_name);
}

static void throttle(void) {
    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(lfd >= 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CHECK(bind(lfd, (struct sockaddr *)&a, sizeof a) == 0);
    CHECK(listen(lfd, 4) == 0);
    socklen_t len = sizeof a;
    CHECK(getsockname(lfd, (struct sockaddr *)&a, &len) == 0);
    char addr[64], expect[80], errstr[256];
    snprintf(addr, sizeof addr, "127.0.0.1:%d", ntohs(a.sin_port));
    snprintf(expect, sizeof expect, "%s/bootstrap", addr);
    pthread_t th;
    CHECK(pthread_create(&th, NULL, throttling_peer, &lfd) == 0);

    const char *const props[] = {"bootstrap.servers", addr, NULL};
    gregor_producer *p = test_producer(props);
    struct throttled t;
    memset(&t, 0, sizeof t);
    CHECK_INT(gregor_producer_set_throttle_cb(p, on_throttle, &t), 0);
    gregor_metadata *md = NULL;
    CHECK_OK(gregor_producer_metadata(p, NULL, 5000, &md, errstr, sizeof errstr), errstr);
    gregor_metadata_free(md);
    CHECK_INT(t.n, 0); /* served only inside poll */
    gregor_producer_poll(p, 100);
    CHECK_INT(t.n, 1);
    CHECK_INT(t.ms, 321);
    CHECK_INT(t.broker_id, -1);
    CHECK_STR(t.name, expect);
    gregor_producer_free(p);
    close(lfd);
    pthread_join(th, NULL);
}

int main(void) {
    all_brokers_down();
    printf("ok: all brokers down\n");
    wrong_scram_password();
    printf("ok: wrong SCRAM password\n");
    untrusted_certificate();
    printf("ok: untrusted certificate\n");
    fatal_transactional_error();
    printf("ok: fatal transactional error\n");
    throttle();
    printf("ok: throttle\n");
    return 0;
}
