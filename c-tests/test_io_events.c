/*
 * Event-loop integration (librdkafka's rd_kafka_queue_io_event_enable /
 * rd_kafka_queue_cb_event_enable / rd_kafka_queue_yield):
 *
 * 1. A producer and a consumer driven from one epoll loop through two
 *    eventfds against the real broker: the loop polls a handle only when its
 *    eventfd is readable, once per wakeup. Every delivery report and every
 *    message is served, and no poll finds nothing (counted and printed).
 * 2. The callback form: the callback writes the eventfd itself.
 * 3. gregor_*_yield wakes a poll blocked for 10 s on another thread within
 *    milliseconds (measured and printed); a yield with nobody polling makes
 *    the next waiting poll return at once.
 * 4. Bad arguments get GREGOR_ERR__INVALID_ARG.
 * 5. gregor_producer_start_background: reports reach the callback on a
 *    gregor thread with no poll at all.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>

#include "check.h"

#define N_MESSAGES 2000
#define N_CB_MESSAGES 200

static int delivered;
static int delivery_errors;

static void on_delivery(const gregor_delivery_report *dr, void *opaque) {
    (void)opaque;
    if (dr->err != 0) {
        delivery_errors++;
        fprintf(stderr, "delivery failed: %s\n", dr->errstr);
    }
    delivered++;
}

/* Reads an eventfd's counter (resetting it); 0 if it was not signalled. */
static uint64_t drain(int fd) {
    uint64_t v = 0;
    if (read(fd, &v, sizeof v) != (ssize_t)sizeof v) {
        CHECK_MSG(errno == EAGAIN, "read eventfd: %s", strerror(errno));
        return 0;
    }
    return v;
}

static void create_topic(const char *topic) {
    char err[512];
    gregor_config *conf = test_config(NULL);
    gregor_admin *admin = gregor_admin_new(conf, err, sizeof err);
    CHECK_MSG(admin != NULL, "%s", err);
    gregor_config_free(conf);
    gregor_new_topic *nt = gregor_new_topic_new(topic, 1, 1);
    gregor_topic_results *tr = NULL;
    CHECK_OK(gregor_admin_create_topics(admin, (const gregor_new_topic *const *)&nt, 1, NULL, &tr,
                                        err, sizeof err),
             err);
    CHECK_MSG(gregor_topic_results_err(tr, 0) == 0, "%s", gregor_topic_results_errstr(tr, 0));
    gregor_topic_results_free(tr);
    gregor_new_topic_free(nt);
    gregor_admin_free(admin);
}

static void send_range(gregor_producer *p, const char *topic, int from, int to) {
    char err[512], value[32];
    for (int i = from; i < to; i++) {
        int n = snprintf(value, sizeof value, "m-%d", i);
        CHECK_OK(gregor_producer_send(p, topic, 0, NULL, 0, (const uint8_t *)value, (size_t)n,
                                      NULL, 0, NULL, 1000, err, sizeof err),
                 err);
    }
}

typedef struct {
    int producer_polls, producer_empty;
    int consumer_polls, consumer_empty;
    int consumed, consumer_errors;
    int producer_wakeups, consumer_wakeups;
} loop_stats;

/* Checks message `m` is the next one in order, and frees it. */
static void take(gregor_message *m, loop_stats *s) {
    if (gregor_message_err(m) != 0) {
        fprintf(stderr, "consumer error: %s\n", gregor_message_errstr(m));
        s->consumer_errors++;
    } else {
        char want[32];
        int n = snprintf(want, sizeof want, "m-%d", s->consumed);
        gregor_slice v = gregor_message_value(m);
        CHECK_MSG(v.len == (size_t)n && memcmp(v.ptr, want, (size_t)n) == 0,
                  "message %d out of order", s->consumed);
        s->consumed++;
    }
    gregor_message_free(m);
}

/* Runs the epoll loop until `want_delivered` reports and `want_consumed`
 * messages were served, polling each handle once per wakeup of its fd. */
static void run_loop(int ep, int pfd, int cfd, gregor_producer *p, gregor_consumer *c,
                     int want_delivered, int want_consumed, loop_stats *s) {
    int64_t deadline = now_ms() + 60000;
    while (delivered < want_delivered || s->consumed < want_consumed) {
        CHECK_MSG(now_ms() < deadline, "timed out: %d/%d delivered, %d/%d consumed", delivered,
                  want_delivered, s->consumed, want_consumed);
        struct epoll_event evs[2];
        int n = epoll_wait(ep, evs, 2, 1000);
        CHECK_MSG(n >= 0 || errno == EINTR, "epoll_wait: %s", strerror(errno));
        for (int i = 0; i < n; i++) {
            if (evs[i].data.fd == pfd) {
                if (drain(pfd) == 0)
                    continue;
                s->producer_wakeups++;
                s->producer_polls++;
                if (gregor_producer_poll(p, 0) == 0)
                    s->producer_empty++;
            } else if (evs[i].data.fd == cfd) {
                if (drain(cfd) == 0)
                    continue;
                s->consumer_wakeups++;
                s->consumer_polls++;
                gregor_message *m = gregor_consumer_poll(c, 0);
                if (m == NULL)
                    s->consumer_empty++;
                else
                    take(m, s);
            }
        }
    }
}

static atomic_int bg_reports, bg_on_main;
static pthread_t main_thread;

static void on_bg_delivery(const gregor_delivery_report *dr, void *opaque) {
    (void)opaque;
    if (dr->err == 0)
        atomic_fetch_add(&bg_reports, 1);
    if (pthread_equal(pthread_self(), main_thread))
        atomic_fetch_add(&bg_on_main, 1);
}

static atomic_int cb_calls;

static void consumer_event_cb(const gregor_consumer *c, void *opaque) {
    (void)c;
    uint64_t one = 1;
    atomic_fetch_add(&cb_calls, 1);
    /* only signal: never call gregor from here */
    if (write(*(int *)opaque, &one, sizeof one) < 0)
        return;
}

typedef struct {
    gregor_producer *p;
    gregor_consumer *c;
    int64_t returned_at;
    int result;
} blocked_poll;

static void *poll_10s(void *arg) {
    blocked_poll *b = arg;
    if (b->c) {
        gregor_message *m = gregor_consumer_poll(b->c, 10000);
        b->result = m != NULL;
        if (m)
            gregor_message_free(m);
    } else {
        b->result = gregor_producer_poll(b->p, 10000);
    }
    b->returned_at = now_ms();
    return NULL;
}

static void *flush_10s(void *arg) {
    blocked_poll *b = arg;
    b->result = gregor_producer_flush(b->p, 10000);
    b->returned_at = now_ms();
    return NULL;
}

/* Blocks a call for 10 s on a thread, yields it after 300 ms, returns how
 * many ms it took to return after the yield. */
static int64_t yield_after(blocked_poll *b, void *(*fn)(void *), const char *what) {
    pthread_t t;
    b->returned_at = 0;
    CHECK(pthread_create(&t, NULL, fn, b) == 0);
    usleep(300 * 1000);
    int64_t at = now_ms();
    if (b->c)
        gregor_consumer_yield(b->c);
    else
        gregor_producer_yield(b->p);
    CHECK(pthread_join(t, NULL) == 0);
    int64_t took = b->returned_at - at;
    printf("yield: %s blocked for 10 s returned %" PRId64 " ms after gregor_*_yield\n", what,
           took);
    /* far below the 10 s the call would block without the yield, far above
     * what a loaded machine adds to a wake-up; the delay is printed above */
    CHECK_MSG(took >= 0 && took < 5000, "%s took %" PRId64 " ms to wake", what, took);
    return took;
}

int main(void) {
    char topic[128];
    unique_topic(topic, sizeof topic, "events-io");
    create_topic(topic);

    const char *pp[] = {"linger.ms", "5", NULL};
    gregor_producer *p = test_producer(pp);
    CHECK_OK(gregor_producer_set_dr_cb(p, on_delivery, NULL), "set_dr_cb");
    gregor_consumer *c = test_consumer(NULL);
    gregor_tpl *tpl = gregor_tpl_new();
    gregor_tpl_add(tpl, topic, 0, GREGOR_OFFSET_BEGINNING);
    char err[512];
    CHECK_OK(gregor_consumer_assign(c, tpl, err, sizeof err), err);
    gregor_tpl_free(tpl);

    /* 4. bad arguments */
    uint64_t one = 1;
    CHECK_INT(gregor_producer_io_event_enable(p, 0, &one, 0), GREGOR_ERR__INVALID_ARG);
    CHECK_INT(gregor_producer_io_event_enable(p, 0, NULL, 8), GREGOR_ERR__INVALID_ARG);
    CHECK_INT(gregor_producer_io_event_enable(p, -2, &one, 8), GREGOR_ERR__INVALID_ARG);
    CHECK_INT(gregor_producer_io_event_enable(p, 0, &one, 4096), GREGOR_ERR__INVALID_ARG);
    CHECK_INT(gregor_consumer_io_event_enable(NULL, 0, &one, 8), GREGOR_ERR__INVALID_ARG);
    CHECK_INT(gregor_producer_io_event_enable(p, -1, NULL, 0), 0); /* disable */
    gregor_producer_yield(NULL);
    gregor_consumer_yield(NULL);

    /* 1. one epoll loop, two eventfds */
    int pfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    int cfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    CHECK(pfd >= 0 && cfd >= 0);
    CHECK_INT(gregor_producer_io_event_enable(p, pfd, &one, sizeof one), 0);
    CHECK_INT(gregor_consumer_io_event_enable(c, cfd, &one, sizeof one), 0);
    int ep = epoll_create1(EPOLL_CLOEXEC);
    CHECK(ep >= 0);
    struct epoll_event ev = {.events = EPOLLIN};
    ev.data.fd = pfd;
    CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, pfd, &ev) == 0);
    ev.data.fd = cfd;
    CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, cfd, &ev) == 0);

    loop_stats s = {0};
    int64_t t0 = now_ms();
    send_range(p, topic, 0, N_MESSAGES);
    run_loop(ep, pfd, cfd, p, c, N_MESSAGES, N_MESSAGES, &s);
    printf("epoll loop: %d reports over %d producer polls (%d empty, %d wakeups), "
           "%d messages over %d consumer polls (%d empty, %d wakeups, %d errors) in %" PRId64
           " ms\n",
           delivered, s.producer_polls, s.producer_empty, s.producer_wakeups, s.consumed,
           s.consumer_polls, s.consumer_empty, s.consumer_wakeups, s.consumer_errors,
           now_ms() - t0);
    CHECK_INT(delivered, N_MESSAGES);
    CHECK_INT(delivery_errors, 0);
    CHECK_INT(s.consumed, N_MESSAGES);
    CHECK_INT(s.producer_empty, 0);
    CHECK_INT(s.consumer_empty, 0);
    CHECK(s.producer_polls > 0 && s.producer_polls < N_MESSAGES); /* reports come in batches */

    /* nothing is left: a last zero-timeout poll of each finds nothing, and
     * no fd is pending */
    usleep(200 * 1000);
    CHECK_INT(drain(pfd), 0);
    CHECK_INT(drain(cfd), 0);

    /* 2. the callback form, the callback writing the consumer's fd */
    CHECK_INT(gregor_consumer_cb_event_enable(c, consumer_event_cb, &cfd), 0);
    loop_stats s2 = s;
    s2.consumer_polls = s2.consumer_empty = 0;
    send_range(p, topic, N_MESSAGES, N_MESSAGES + N_CB_MESSAGES);
    run_loop(ep, pfd, cfd, p, c, N_MESSAGES + N_CB_MESSAGES, N_MESSAGES + N_CB_MESSAGES, &s2);
    printf("callback form: %d callbacks, %d consumer polls (%d empty)\n", atomic_load(&cb_calls),
           s2.consumer_polls, s2.consumer_empty);
    CHECK(atomic_load(&cb_calls) > 0);
    CHECK_INT(s2.consumer_empty, 0);
    CHECK_INT(s2.producer_empty, 0);
    CHECK_INT(gregor_consumer_cb_event_enable(c, NULL, NULL), 0); /* disable */

    /* 3. yield wakes a 10 s poll within milliseconds */
    blocked_poll b = {.c = c};
    yield_after(&b, poll_10s, "gregor_consumer_poll");
    CHECK_INT(b.result, 0);
    blocked_poll bp = {.p = p};
    yield_after(&bp, poll_10s, "gregor_producer_poll");
    CHECK_INT(bp.result, 0);
    /* flush with a message outstanding that cannot be delivered (a
     * producer whose broker does not answer), so flush would wait 10 s */
    const char *dead[] = {"bootstrap.servers", "127.0.0.1:1", NULL};
    gregor_producer *q = test_producer(dead);
    CHECK_OK(gregor_producer_send(q, topic, 0, NULL, 0, (const uint8_t *)"x", 1, NULL, 0, NULL,
                                  1000, err, sizeof err),
             err);
    blocked_poll bf = {.p = q};
    yield_after(&bf, flush_10s, "gregor_producer_flush");
    CHECK_INT(bf.result, GREGOR_ERR__TIMED_OUT);
    gregor_producer_purge(q, GREGOR_PURGE_F_QUEUE | GREGOR_PURGE_F_INFLIGHT);
    gregor_producer_poll(q, 0);
    gregor_producer_free(q);

    /* a yield with nobody waiting: the next waiting poll returns at once */
    gregor_consumer_yield(c);
    int64_t at = now_ms();
    gregor_message *m = gregor_consumer_poll(c, 10000);
    CHECK(m == NULL);
    CHECK_MSG(now_ms() - at < 5000, "a pending yield took %" PRId64 " ms (of 10 s)", now_ms() - at);
    /* consumed: the poll after waits again */
    at = now_ms();
    m = gregor_consumer_poll(c, 300);
    CHECK(m == NULL);
    CHECK(now_ms() - at >= 250);

    /* 5. background serving: no poll */
    main_thread = pthread_self();
    gregor_producer *bg = test_producer(pp);
    CHECK_OK(gregor_producer_set_dr_cb(bg, on_bg_delivery, NULL), "set_dr_cb");
    CHECK_INT(gregor_producer_start_background(bg), 0);
    CHECK_INT(gregor_producer_start_background(bg), GREGOR_ERR__STATE);
    send_range(bg, topic, 0, 100);
    int64_t bg_deadline = now_ms() + 30000;
    while (atomic_load(&bg_reports) < 100 && now_ms() < bg_deadline)
        usleep(10 * 1000);
    printf("background: %d reports served with no poll\n", atomic_load(&bg_reports));
    CHECK_INT(atomic_load(&bg_reports), 100);
    CHECK_INT(atomic_load(&bg_on_main), 0);
    gregor_producer_free(bg);

    CHECK_INT(gregor_producer_io_event_enable(p, -1, NULL, 0), 0);
    CHECK_INT(gregor_consumer_io_event_enable(c, -1, NULL, 0), 0);
    gregor_consumer_free(c);
    gregor_producer_free(p);
    close(ep);
    close(pfd);
    close(cfd);
    printf("ok\n");
    return 0;
}
