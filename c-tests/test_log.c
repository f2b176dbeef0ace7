/*
 * Logging through the C API: gregor_config_set_log_cb (librdkafka's
 * rd_kafka_conf_set_log_cb) with debug=all over a produce / group consume
 * run gets the lines librdkafka writes (the client's creation, connects,
 * ApiVersions, metadata, leaders, group join-state transitions), each with
 * a level, a facility, the client's name and a "[thrd:...]: " message;
 * with debug unset the same run writes nothing; with log.queue=true the
 * lines come only inside poll/flush, on the polling thread.
 */
#include <pthread.h>

#include "check.h"

typedef struct {
    pthread_mutex_t mu;
    int n;
    int bad;          /* a line without a facility, name or [thrd: prefix */
    int other_thread; /* lines delivered off `thread` */
    pthread_t thread;
    char text[1 << 16]; /* "FAC|name|buf\n" of the lines, truncated */
    size_t len;
} lines_t;

static void on_log(void *opaque, int level, const char *fac, const char *name,
                   const char *buf) {
    lines_t *l = opaque;
    pthread_mutex_lock(&l->mu);
    l->n++;
    if (level < 0 || level > 7 || !fac || !*fac || !name || strncmp(name, "gregor#", 7) ||
        !buf || strncmp(buf, "[thrd:", 6))
        l->bad++;
    if (!pthread_equal(pthread_self(), l->thread))
        l->other_thread++;
    int w = snprintf(l->text + l->len, sizeof l->text - l->len, "%s|%s|%s\n", fac ? fac : "",
                     name ? name : "", buf ? buf : "");
    if (w > 0 && l->len + (size_t)w < sizeof l->text)
        l->len += (size_t)w;
    pthread_mutex_unlock(&l->mu);
}

static int has(lines_t *l, const char *needle) {
    pthread_mutex_lock(&l->mu);
    int r = strstr(l->text, needle) != NULL;
    pthread_mutex_unlock(&l->mu);
    return r;
}

/* A produce + group consume run with `debug` (NULL: unset); the lines go to `l`. */
static void run(const char *debug, lines_t *l, const char *tag) {
    char topic[128], group[160], errstr[512];
    unique_topic(topic, sizeof topic, tag);
    snprintf(group, sizeof group, "%s-g", topic);

    gregor_config *conf = test_config(NULL);
    if (debug)
        CHECK_OK(gregor_config_set(conf, "debug", debug, errstr, sizeof errstr), errstr);
    CHECK_INT(gregor_config_set_log_cb(NULL, on_log, l), GREGOR_ERR__INVALID_ARG);
    CHECK_INT(gregor_config_set_log_cb(conf, on_log, l), 0);
    gregor_producer *p = gregor_producer_new(conf, errstr, sizeof errstr);
    CHECK_MSG(p != NULL, "%s", errstr);
    if (debug) /* the creation's own line, before any call on the handle */
        CHECK_MSG(has(l, "INIT|gregor#producer-"), "%s", l->text);
    for (int i = 0; i < 10; i++)
        CHECK_OK(gregor_producer_send(p, topic, 0, NULL, 0, (const uint8_t *)"v", 1, NULL, 0,
                                      NULL, 10000, errstr, sizeof errstr),
                 errstr);
    CHECK_INT(gregor_producer_flush(p, 30000), 0);
    gregor_producer_free(p);

    CHECK_OK(gregor_config_set(conf, "group.id", group, errstr, sizeof errstr), errstr);
    CHECK_OK(gregor_config_set(conf, "auto.offset.reset", "earliest", errstr, sizeof errstr),
             errstr);
    gregor_consumer *c = gregor_consumer_new(conf, errstr, sizeof errstr);
    CHECK_MSG(c != NULL, "%s", errstr);
    gregor_config_free(conf);
    const char *topics[] = {topic};
    CHECK_OK(gregor_consumer_subscribe(c, topics, 1, errstr, sizeof errstr), errstr);
    int got = 0;
    int64_t deadline = now_ms() + 30000;
    while (got < 10 && now_ms() < deadline) {
        gregor_message *m = gregor_consumer_poll(c, 200);
        if (m && !gregor_message_err(m))
            got++;
        gregor_message_free(m);
    }
    CHECK_INT(got, 10);
    CHECK_INT(gregor_consumer_close(c), 0);
    gregor_consumer_free(c);
}

int main(void) {
    static lines_t all = {.mu = PTHREAD_MUTEX_INITIALIZER};
    all.thread = pthread_self();
    run("all", &all, "log-all");
    printf("debug=all: %d lines\n", all.n);
    CHECK_INT(all.bad, 0);
    CHECK_MSG(all.other_thread > 0, "no line came from gregor's threads");
    CHECK_MSG(has(&all, "CONNECT|gregor#producer-"), "%s", all.text);
    CHECK_MSG(has(&all, "APIVERSION|"), "%s", all.text);
    CHECK_MSG(has(&all, "Received metadata"), "%s", all.text);
    CHECK_MSG(has(&all, "BROKER|"), "%s", all.text); /* the partition's leader */
    CHECK_MSG(has(&all, "CGRPJOINSTATE|gregor#consumer-"), "%s", all.text);
    CHECK_MSG(has(&all, "changed join state wait-assign-call -> steady"), "%s", all.text);
    CHECK_MSG(has(&all, "JOINGROUP|"), "%s", all.text);

    static lines_t quiet = {.mu = PTHREAD_MUTEX_INITIALIZER};
    quiet.thread = pthread_self();
    run(NULL, &quiet, "log-quiet");
    CHECK_MSG(quiet.n == 0, "debug unset wrote %d line(s):\n%s", quiet.n, quiet.text);

    /* log.queue: nothing until poll; then everything on this thread */
    static lines_t q = {.mu = PTHREAD_MUTEX_INITIALIZER};
    q.thread = pthread_self();
    char topic[128], errstr[512];
    unique_topic(topic, sizeof topic, "log-q");
    const char *props[] = {"debug", "broker,metadata", "log.queue", "true", NULL};
    gregor_config *conf = test_config(props);
    CHECK_INT(gregor_config_set_log_cb(conf, on_log, &q), 0);
    gregor_producer *p = gregor_producer_new(conf, errstr, sizeof errstr);
    CHECK_MSG(p != NULL, "%s", errstr);
    gregor_config_free(conf);
    CHECK_OK(gregor_producer_send(p, topic, 0, NULL, 0, (const uint8_t *)"v", 1, NULL, 0, NULL,
                                  10000, errstr, sizeof errstr),
             errstr);
    usleep(300 * 1000);
    CHECK_INT(q.n, 0);
    CHECK_INT(gregor_producer_flush(p, 30000), 0);
    CHECK_MSG(q.n > 0 && has(&q, "CONNECTED|"), "%s", q.text);
    CHECK_INT(q.other_thread, 0);
    gregor_producer_free(p);
    printf("ok\n");
    return 0;
}
