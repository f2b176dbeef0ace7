/*
 * One producer handle shared by 8 threads producing at once (released
 * together by a barrier, onto a topic none of them has seen, so they also
 * race on its auto-creation): every send is acknowledged, no two get the
 * same partition and offset, and each partition's offsets are exactly
 * 0..n-1. Then two threads poll one consumer handle at once and every
 * record comes back exactly once, where send_sync said it went.
 */
#include <pthread.h>

#include "check.h"

#define THREADS 8
#define PER_THREAD 40
#define TOTAL (THREADS * PER_THREAD)
#define MAX_PARTITIONS 256

typedef struct {
    int32_t partition;
    int64_t offset;
    int seen;
} sent;

static gregor_producer *producer;
static gregor_consumer *consumer;
static char topic[128];
static pthread_barrier_t start;
static sent results[THREADS][PER_THREAD];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int consumed;
static int64_t consume_deadline;

static void *produce(void *arg) {
    int t = (int)(intptr_t)arg;
    char errstr[512], key[32], value[64];
    int rc = pthread_barrier_wait(&start);
    CHECK(rc == 0 || rc == PTHREAD_BARRIER_SERIAL_THREAD);
    for (int i = 0; i < PER_THREAD; i++) {
        snprintf(key, sizeof key, "key-%d-%d", t, i % 5);
        snprintf(value, sizeof value, "thread %d message %d", t, i);
        sent *s = &results[t][i];
        CHECK_OK(gregor_producer_send_sync(producer, topic, -1, (const uint8_t *)key,
                                           strlen(key), (const uint8_t *)value, strlen(value),
                                           NULL, 0, 30000, &s->partition, &s->offset, errstr,
                                           sizeof errstr),
                 errstr);
    }
    return NULL;
}

static void *consume(void *arg) {
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&lock);
        int done = consumed == TOTAL || now_ms() > consume_deadline;
        pthread_mutex_unlock(&lock);
        if (done)
            return NULL;
        gregor_message *m = gregor_consumer_poll(consumer, 200);
        if (!m)
            continue;
        if (gregor_message_err(m)) {
            fprintf(stderr, "consumer event: %s\n", gregor_message_errstr(m));
            gregor_message_free(m);
            continue;
        }
        gregor_slice v = gregor_message_value(m);
        char text[64];
        CHECK(v.ptr != NULL && v.len < sizeof text);
        memcpy(text, v.ptr, v.len);
        text[v.len] = '\0';
        int t, i;
        CHECK_MSG(sscanf(text, "thread %d message %d", &t, &i) == 2, "value \"%s\"", text);
        CHECK(t >= 0 && t < THREADS && i >= 0 && i < PER_THREAD);
        pthread_mutex_lock(&lock);
        sent *s = &results[t][i];
        CHECK_MSG(!s->seen, "%s consumed twice", text);
        CHECK_INT(gregor_message_partition(m), s->partition);
        CHECK_INT(gregor_message_offset(m), s->offset);
        s->seen = 1;
        consumed++;
        pthread_mutex_unlock(&lock);
        gregor_message_free(m);
    }
}

int main(void) {
    char errstr[512];
    unique_topic(topic, sizeof topic, "threads");
    producer = test_producer(NULL);

    pthread_t th[THREADS];
    CHECK(pthread_barrier_init(&start, NULL, THREADS) == 0);
    int64_t t0 = now_ms();
    for (int t = 0; t < THREADS; t++)
        CHECK(pthread_create(&th[t], NULL, produce, (void *)(intptr_t)t) == 0);
    for (int t = 0; t < THREADS; t++)
        CHECK(pthread_join(th[t], NULL) == 0);
    int64_t took = now_ms() - t0;
    pthread_barrier_destroy(&start);

    /* (partition, offset) pairs are unique and fill each partition from 0 */
    static int count[MAX_PARTITIONS];
    static unsigned char used[MAX_PARTITIONS][TOTAL];
    for (int t = 0; t < THREADS; t++)
        for (int i = 0; i < PER_THREAD; i++) {
            sent *s = &results[t][i];
            CHECK(s->partition >= 0 && s->partition < MAX_PARTITIONS);
            CHECK_MSG(s->offset >= 0 && s->offset < TOTAL, "offset %" PRId64, s->offset);
            CHECK_MSG(!used[s->partition][s->offset],
                      "partition %d offset %" PRId64 " acknowledged twice", s->partition,
                      s->offset);
            used[s->partition][s->offset] = 1;
            count[s->partition]++;
        }
    int partitions_used = 0;
    for (int p = 0; p < MAX_PARTITIONS; p++) {
        for (int o = 0; o < count[p]; o++)
            CHECK_MSG(used[p][o], "partition %d: offset %d missing of %d", p, o, count[p]);
        partitions_used += count[p] > 0;
    }

    /* the brokers agree: each partition's high watermark is its count */
    gregor_metadata *md = NULL;
    CHECK_OK(gregor_producer_metadata(producer, topic, 10000, &md, errstr, sizeof errstr),
             errstr);
    size_t np = gregor_metadata_partition_count(md, 0);
    CHECK(np >= 1 && np <= MAX_PARTITIONS);
    gregor_metadata_free(md);
    gregor_producer_free(producer);

    consumer = test_consumer(NULL);
    gregor_tpl *tpl = gregor_tpl_new();
    for (size_t p = 0; p < np; p++) {
        int64_t lo = -1, hi = -1;
        CHECK_OK(gregor_consumer_watermarks(consumer, topic, (int32_t)p, &lo, &hi, 10000,
                                            errstr, sizeof errstr),
                 errstr);
        CHECK_INT(lo, 0);
        CHECK_INT(hi, count[p]);
        CHECK_INT(gregor_tpl_add(tpl, topic, (int32_t)p, GREGOR_OFFSET_BEGINNING), 0);
    }
    CHECK_OK(gregor_consumer_assign(consumer, tpl, errstr, sizeof errstr), errstr);
    gregor_tpl_free(tpl);

    /* two threads poll the one consumer */
    consume_deadline = now_ms() + 30000;
    pthread_t ct[2];
    for (int i = 0; i < 2; i++)
        CHECK(pthread_create(&ct[i], NULL, consume, NULL) == 0);
    for (int i = 0; i < 2; i++)
        CHECK(pthread_join(ct[i], NULL) == 0);
    CHECK_INT(consumed, TOTAL);
    gregor_consumer_free(consumer);

    printf("threads: %d sends from %d threads in %" PRId64 " ms over %d of %zu partitions, "
           "all consumed back\n",
           TOTAL, THREADS, took, partitions_used, np);
    return 0;
}
