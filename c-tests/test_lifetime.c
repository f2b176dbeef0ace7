/*
 * Handle lifetime (the contract in gregor.h's preamble): a producer,
 * consumer or admin handle freed while other threads are blocked in calls
 * on it, round after round. Every round starts a handle and a few threads
 * that block in it (poll, flush, send_sync, metadata, watermarks, admin
 * requests) or hammer it with quick calls, waits 0-2 ms, frees the handle
 * and joins the threads. Each blocked call must return GREGOR_ERR__DESTROY
 * (a consumer poll: a message carrying it) within a few seconds of the
 * free; calls made after the free must get GREGOR_ERR__DESTROY without
 * touching freed memory (AddressSanitizer watches).
 *
 * The "broker" is a local socket that accepts connections and never
 * answers, so the calls really block (until a 30 s timeout the free must
 * cut short); no real broker is needed. Rounds per handle type:
 * $LIFETIME_ROUNDS (default 1000; the total is printed).
 *
 * Runs under AddressSanitizer (scripts/c-tests.sh). ThreadSanitizer is no
 * use here without an instrumented Rust side: built with gcc's
 * -fsanitize=thread against the plain libgregor.a, TSan sees Rust's
 * malloc/free/memcpy through its interceptors but not Rust's atomics and
 * locks, and reports races inside gregor that are ordered by them (dozens
 * per run, all in Rust frames; none in this file). Instrumenting Rust needs
 * nightly -Zsanitizer=thread with -Zbuild-std.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/socket.h>

#include "check.h"

#define DESTROY GREGOR_ERR__DESTROY
#define BLOCK_MS 30000     /* what the blocked calls would wait without the free */
#define PROMPT_MS 5000     /* the free and every call in flight end within this */
#define MAX_THREADS 6
#define SINK_FDS 512

static char silent[64]; /* host:port of the silent broker */
static int stop_sink; /* atomic */

/* Accepts connections and keeps them open without a word (closing the
 * oldest when the ring is full, so the backlog never fills). */
static void *sink(void *arg) {
    int lfd = (int)(intptr_t)arg;
    int fds[SINK_FDS];
    int n = 0;
    for (int i = 0; i < SINK_FDS; i++)
        fds[i] = -1;
    while (!__atomic_load_n(&stop_sink, __ATOMIC_ACQUIRE)) {
        struct pollfd p = {.fd = lfd, .events = POLLIN};
        if (poll(&p, 1, 100) <= 0)
            continue;
        int fd = accept(lfd, NULL, NULL);
        if (fd < 0)
            continue;
        if (fds[n] >= 0)
            close(fds[n]);
        fds[n] = fd;
        n = (n + 1) % SINK_FDS;
    }
    for (int i = 0; i < SINK_FDS; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    close(lfd);
    return NULL;
}

static pthread_t start_sink(void) {
    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(lfd >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CHECK(bind(lfd, (struct sockaddr *)&a, sizeof a) == 0);
    CHECK(listen(lfd, 256) == 0);
    socklen_t len = sizeof a;
    CHECK(getsockname(lfd, (struct sockaddr *)&a, &len) == 0);
    snprintf(silent, sizeof silent, "127.0.0.1:%d", ntohs(a.sin_port));
    pthread_t t;
    CHECK(pthread_create(&t, NULL, sink, (void *)(intptr_t)lfd) == 0);
    return t;
}

static gregor_config *silent_config(int producer) {
    char errstr[512];
    gregor_config *conf = gregor_config_new();
    const char *pairs[] = {"bootstrap.servers", silent, "socket.timeout.ms", "30000",
                           producer ? "message.timeout.ms" : NULL, "30000", NULL};
    for (const char **p = pairs; *p; p += 2)
        CHECK_OK(gregor_config_set(conf, p[0], p[1], errstr, sizeof errstr), errstr);
    return conf;
}

/* One round: the handle and what its threads saw. */
typedef struct {
    void *h;
    int64_t freed_at;             /* when the free began (ms) */
    int freed;                    /* set just before the free (atomic) */
    int rc[MAX_THREADS];          /* each thread's last result */
    int64_t ended[MAX_THREADS];   /* when each thread's call returned */
    int in_call[MAX_THREADS];     /* set just before each first call (atomic) */
} round_t;

typedef struct {
    round_t *r;
    int i;
} arg_t;

static const char *TOPIC = "lifetime";

/* ----- producer ----- */

static void *producer_thread(void *v) {
    arg_t *a = v;
    gregor_producer *p = a->r->h;
    char errstr[256];
    int rc = 0;
    int32_t part;
    int64_t off;
    gregor_metadata *md = NULL;
    __atomic_store_n(&a->r->in_call[a->i], 1, __ATOMIC_RELEASE);
    switch (a->i) {
    case 0: /* blocks in poll: returns 0 once freed */
        while (!__atomic_load_n(&a->r->freed, __ATOMIC_ACQUIRE))
            gregor_producer_poll(p, BLOCK_MS);
        rc = DESTROY;
        break;
    case 1: /* queues, then blocks in flush */
        rc = gregor_producer_send(p, TOPIC, 0, NULL, 0, (const uint8_t *)"v", 1, NULL, 0,
                                  NULL, 0, errstr, sizeof errstr);
        if (rc == 0)
            rc = gregor_producer_flush(p, BLOCK_MS);
        break;
    case 2: /* blocks in send_sync */
        rc = gregor_producer_send_sync(p, TOPIC, 0, NULL, 0, (const uint8_t *)"v", 1, NULL, 0,
                                       BLOCK_MS, &part, &off, errstr, sizeof errstr);
        break;
    case 3: /* blocks in a metadata request */
        rc = gregor_producer_metadata(p, NULL, BLOCK_MS, &md, errstr, sizeof errstr);
        if (rc == 0)
            gregor_metadata_free(md);
        break;
    default: /* quick calls until the handle is gone */
        do {
            rc = gregor_producer_send(p, TOPIC, -1, NULL, 0, (const uint8_t *)"v", 1, NULL,
                                      0, NULL, 0, errstr, sizeof errstr);
            (void)gregor_producer_len(p);
            sched_yield();
        } while (rc != DESTROY);
        break;
    }
    a->r->rc[a->i] = rc;
    a->r->ended[a->i] = now_ms();
    return NULL;
}

static void *new_producer(void) {
    char errstr[512];
    gregor_config *conf = silent_config(1);
    gregor_producer *p = gregor_producer_new(conf, errstr, sizeof errstr);
    CHECK_MSG(p != NULL, "%s", errstr);
    gregor_config_free(conf);
    return p;
}

static void free_producer(void *h) { gregor_producer_free(h); }

/* ----- consumer ----- */

static int poll_rc(gregor_consumer *c, int timeout_ms) {
    gregor_message *m = gregor_consumer_poll(c, timeout_ms);
    if (!m)
        return 1; /* timed out */
    int rc = gregor_message_err(m);
    gregor_message_free(m);
    return rc;
}

static void *consumer_thread(void *v) {
    arg_t *a = v;
    gregor_consumer *c = a->r->h;
    char errstr[256];
    int rc = 0;
    int64_t lo, hi;
    gregor_metadata *md = NULL;
    __atomic_store_n(&a->r->in_call[a->i], 1, __ATOMIC_RELEASE);
    switch (a->i) {
    case 0: /* blocks in poll: a message carrying _DESTROY */
        rc = poll_rc(c, BLOCK_MS);
        break;
    case 1: /* blocks asking the leader for watermarks */
        rc = gregor_consumer_watermarks(c, TOPIC, 0, &lo, &hi, BLOCK_MS, errstr, sizeof errstr);
        break;
    case 2:
        rc = gregor_consumer_metadata(c, TOPIC, BLOCK_MS, &md, errstr, sizeof errstr);
        if (rc == 0)
            gregor_metadata_free(md);
        break;
    default: /* quick polls until the handle is gone */
        do {
            rc = poll_rc(c, 0);
            sched_yield();
        } while (rc != DESTROY);
        break;
    }
    a->r->rc[a->i] = rc;
    a->r->ended[a->i] = now_ms();
    return NULL;
}

static void *new_consumer(void) {
    char errstr[512];
    gregor_config *conf = silent_config(0);
    gregor_consumer *c = gregor_consumer_new(conf, errstr, sizeof errstr);
    CHECK_MSG(c != NULL, "%s", errstr);
    gregor_config_free(conf);
    /* an assigned partition: fetching starts (and blocks) too */
    gregor_tpl *tpl = gregor_tpl_new();
    gregor_tpl_add(tpl, TOPIC, 0, GREGOR_OFFSET_BEGINNING);
    CHECK_OK(gregor_consumer_assign(c, tpl, errstr, sizeof errstr), errstr);
    gregor_tpl_free(tpl);
    return c;
}

static void free_consumer(void *h) { gregor_consumer_free(h); }

/* ----- admin ----- */

static void *admin_thread(void *v) {
    arg_t *a = v;
    gregor_admin *ad = a->r->h;
    char errstr[256], name[64];
    int rc = 0;
    gregor_admin_options *o = gregor_admin_options_new();
    gregor_admin_options_set_request_timeout(o, BLOCK_MS);
    __atomic_store_n(&a->r->in_call[a->i], 1, __ATOMIC_RELEASE);
    switch (a->i) {
    case 0:
    case 1: { /* blocks creating a topic (the Ruby script's race) */
        snprintf(name, sizeof name, "race-%d", a->i);
        gregor_new_topic *t = gregor_new_topic_new(name, 1, 1);
        const gregor_new_topic *ts[] = {t};
        gregor_topic_results *res = NULL;
        rc = gregor_admin_create_topics(ad, ts, 1, o, &res, errstr, sizeof errstr);
        if (rc == 0)
            gregor_topic_results_free(res);
        gregor_new_topic_free(t);
        break;
    }
    case 2: { /* blocks describing the cluster */
        gregor_cluster_description *d = NULL;
        rc = gregor_admin_describe_cluster(ad, 0, o, &d, errstr, sizeof errstr);
        if (rc == 0)
            gregor_cluster_description_free(d);
        break;
    }
    default: { /* one blocking call after another until the handle is gone */
        do {
            const char *names[] = {"race-x"};
            gregor_topic_results *res = NULL;
            rc = gregor_admin_delete_topics(ad, names, 1, o, &res, errstr, sizeof errstr);
            if (rc == 0)
                gregor_topic_results_free(res);
        } while (rc != DESTROY && !__atomic_load_n(&a->r->freed, __ATOMIC_ACQUIRE));
        if (rc != DESTROY) { /* the last call may have begun after the free */
            const char *names[] = {"race-x"};
            gregor_topic_results *res = NULL;
            rc = gregor_admin_delete_topics(ad, names, 1, o, &res, errstr, sizeof errstr);
            if (rc == 0)
                gregor_topic_results_free(res);
        }
        break;
    }
    }
    gregor_admin_options_free(o);
    a->r->rc[a->i] = rc;
    a->r->ended[a->i] = now_ms();
    return NULL;
}

static void *new_admin(void) {
    char errstr[512];
    gregor_config *conf = gregor_config_new();
    CHECK_OK(gregor_config_set(conf, "bootstrap.servers", silent, errstr, sizeof errstr),
             errstr);
    gregor_admin *a = gregor_admin_new(conf, errstr, sizeof errstr);
    CHECK_MSG(a != NULL, "%s", errstr);
    gregor_config_free(conf);
    return a;
}

static void free_admin(void *h) { gregor_admin_free(h); }

/* ----- a free from inside a callback of a call on the same handle ----- */

static int reports_seen;

static void free_in_dr_cb(const gregor_delivery_report *dr, void *opaque) {
    (void)dr;
    reports_seen++;
    /* poll is running this callback: the free would wait for itself, so it
     * is refused (a no-op) */
    gregor_producer_free((gregor_producer *)opaque);
}

static void check_free_from_callback(void) {
    char errstr[512];
    gregor_config *conf = silent_config(1);
    /* the sender waits out a metadata request before it expires messages */
    CHECK_OK(gregor_config_set(conf, "socket.timeout.ms", "200", errstr, sizeof errstr), errstr);
    CHECK_OK(gregor_config_set(conf, "message.timeout.ms", "100", errstr, sizeof errstr), errstr);
    gregor_producer *p = gregor_producer_new(conf, errstr, sizeof errstr);
    CHECK_MSG(p != NULL, "%s", errstr);
    gregor_config_free(conf);
    CHECK_OK(gregor_producer_set_dr_cb(p, free_in_dr_cb, p), "");
    for (int i = 0; i < 3; i++)
        CHECK_OK(gregor_producer_send(p, TOPIC, 0, NULL, 0, (const uint8_t *)"v", 1, NULL, 0,
                                      NULL, 0, errstr, sizeof errstr),
                 errstr);
    int64_t deadline = now_ms() + 10000;
    while (reports_seen == 0 && now_ms() < deadline)
        gregor_producer_poll(p, 100); /* the messages time out after 100 ms */
    CHECK_MSG(reports_seen > 0, "no delivery report within 10 s");
    /* still alive and usable; then freed for real, and gone */
    CHECK_INT(gregor_producer_flush(p, 0), 0);
    CHECK_INT(gregor_producer_len(p), 0);
    gregor_producer_set_dr_cb(p, NULL, NULL);
    gregor_producer_free(p);
    CHECK_INT(gregor_producer_flush(p, 0), DESTROY);
    printf("free from a delivery callback: refused, the producer stays usable\n");
}

/* ----- the rounds ----- */

typedef struct {
    const char *name;
    void *(*make)(void);
    void (*destroy)(void *);
    void *(*body)(void *);
    int threads;
} kind_t;

static int in_flight_at_free; /* calls (most likely) in flight when freed */

static int64_t run_rounds(const kind_t *k, int rounds, unsigned *seed) {
    int64_t worst = 0;
    for (int n = 0; n < rounds; n++) {
        round_t r;
        memset(&r, 0, sizeof r);
        r.h = k->make();
        pthread_t t[MAX_THREADS];
        arg_t args[MAX_THREADS];
        for (int i = 0; i < k->threads; i++) {
            args[i] = (arg_t){&r, i};
            CHECK(pthread_create(&t[i], NULL, k->body, &args[i]) == 0);
        }
        /* mostly after the threads are blocked; now and then before they
         * even got in (their calls must then fail cleanly) */
        int wait_us = (int)(rand_r(seed) % 2500);
        if (wait_us > 300)
            usleep((useconds_t)wait_us);
        r.freed_at = now_ms();
        for (int i = 0; i < k->threads; i++)
            in_flight_at_free += __atomic_load_n(&r.in_call[i], __ATOMIC_ACQUIRE);
        __atomic_store_n(&r.freed, 1, __ATOMIC_RELEASE);
        k->destroy(r.h);
        int64_t free_ms = now_ms() - r.freed_at;
        for (int i = 0; i < k->threads; i++)
            CHECK(pthread_join(t[i], NULL) == 0);
        k->destroy(r.h); /* a second free of the same pointer: a no-op */
        for (int i = 0; i < k->threads; i++) {
            int64_t late = r.ended[i] - r.freed_at;
            CHECK_MSG(r.rc[i] == DESTROY, "%s round %d thread %d: rc %d (%s)", k->name, n, i,
                      r.rc[i], gregor_err_name(r.rc[i]));
            CHECK_MSG(late < PROMPT_MS, "%s round %d thread %d: returned %lld ms after free",
                      k->name, n, i, (long long)late);
            if (late > worst)
                worst = late;
        }
        CHECK_MSG(free_ms < PROMPT_MS, "%s round %d: free took %lld ms", k->name, n,
                  (long long)free_ms);
        if (free_ms > worst)
            worst = free_ms;
    }
    return worst;
}

int main(void) {
    const char *env = getenv("LIFETIME_ROUNDS");
    int rounds = env && *env ? atoi(env) : 1000;
    unsigned seed = (unsigned)getpid();
    pthread_t sink_thread = start_sink();
    const kind_t kinds[] = {
        {"producer", new_producer, free_producer, producer_thread, 5},
        {"consumer", new_consumer, free_consumer, consumer_thread, 4},
        {"admin", new_admin, free_admin, admin_thread, 4},
    };
    int total = 0, calls = 0;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        int64_t t0 = now_ms();
        int64_t worst = run_rounds(&kinds[k], rounds, &seed);
        printf("%s: %d rounds, %d threads each, %lld ms, slowest free/return %lld ms\n",
               kinds[k].name, rounds, kinds[k].threads, (long long)(now_ms() - t0),
               (long long)worst);
        total += rounds;
        calls += rounds * kinds[k].threads;
    }
    check_free_from_callback();
    /* a call on a NULL handle is still an invalid argument, not _DESTROY */
    CHECK_INT(gregor_producer_flush(NULL, 0), GREGOR_ERR__INVALID_ARG);
    __atomic_store_n(&stop_sink, 1, __ATOMIC_RELEASE);
    pthread_join(sink_thread, NULL);
    printf("%d handles freed; %d threads made calls on them, %d of them already inside a "
           "call at the free: all returned _DESTROY promptly\n",
           total, calls, in_flight_at_free);
    return 0;
}
