/* The producer check of gregor's librdkafka (scripts/rdkafka-abi-check.sh):
 * compiled against the real librdkafka's rdkafka.h, linked once against
 * gregor's librdkafka.so.1 and once against the real one, and run against
 * the same broker; the two outputs must be identical, so it prints only
 * what does not vary from run to run (no offsets, timestamps or latencies,
 * only whether they are sane).
 *
 *   producer <bootstrap> <topic> <n>
 *
 * A bootstrap of "mock" runs against the library's own mock cluster
 * (test.mock.num.brokers=1) instead of a broker, for debugging.
 *
 * Covers: rd_kafka_new (producer and consumer), name, type, opaque, conf;
 * topic handles; rd_kafka_metadata of the topic (waiting until the broker
 * has created it); <n> messages through rd_kafka_produce (RD_KAFKA_MSG_F_COPY,
 * no flag, explicit and unassigned partitions), rd_kafka_producev (by topic
 * name, RD_KAFKA_MSG_F_FREE, a header; once with 22 headers, a list longer
 * than producev reads onto the stack) and rd_kafka_produceva; a produce to
 * a partition the topic lacks; rd_kafka_produce_batch; the built-in
 * partitioners' functions; rd_kafka_flush; the delivery reports (error,
 * partition, key, value, topic handle, opaque, status, the headers it
 * was produced with, and the message accessors), printed in message
 * order; outq_len, poll, purge, fatal_error and destroy. Then a producer
 * of an unreachable cluster: error_cb's codes, a message timing out and
 * its report.
 */
#define _DEFAULT_SOURCE /* strdup, usleep */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <librdkafka/rdkafka.h>

#define MAX_MSGS 1000

struct report {
        int seen;
        rd_kafka_resp_err_t err;
        int32_t partition;
        char key[64];
        char value[64];
        char topic[128];
        int offset_ok;
        int payload_is_original;
        int status;
        int tstype;
        int ts_ok;
        int cb_opaque_ok;
        int errstr_is_payload;
        int headers;
};

static struct report reports[MAX_MSGS + 1];
static const void *originals[MAX_MSGS + 1];
static int dr_count;
static int app_state; /* the conf opaque's target */

/* what error_cb reported: the codes seen */
static int seen_transport, seen_all_down;

static void error_cb(rd_kafka_t *rk, int err, const char *reason, void *opaque) {
        (void)rk;
        (void)opaque;
        if (!reason)
                printf("error_cb: NULL reason\n");
        if (err == RD_KAFKA_RESP_ERR__TRANSPORT)
                seen_transport = 1;
        else if (err == RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN)
                seen_all_down = 1;
}

/* what stats_cb got */
static int stats_calls, stats_json_ok;
static char *stats_kept;

static int stats_cb(rd_kafka_t *rk, char *json, size_t json_len, void *opaque) {
        (void)rk;
        stats_calls++;
        stats_json_ok = json && json[0] == '{' && strlen(json) == json_len && opaque == &app_state;
        if (!stats_kept) { /* keep the first: ours to free with rd_kafka_mem_free */
                stats_kept = json;
                return 1;
        }
        return 0;
}

/* log lines log_cb got */
static volatile int log_lines;

static void log_cb(const rd_kafka_t *rk, int level, const char *fac, const char *buf) {
        (void)rk;
        (void)level;
        (void)fac;
        (void)buf;
        log_lines++;
}

static void copy_bytes(char *dst, size_t size, const void *src, size_t len) {
        if (!src) {
                snprintf(dst, size, "(null)");
                return;
        }
        if (len >= size)
                len = size - 1;
        memcpy(dst, src, len);
        dst[len] = '\0';
}

static void dr_msg_cb(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque) {
        intptr_t i = (intptr_t)m->_private;
        struct report *r;
        rd_kafka_timestamp_type_t tstype;
        int64_t ts;

        (void)rk;
        dr_count++;
        if (i < 1 || i > MAX_MSGS) {
                printf("dr: unexpected opaque %ld\n", (long)i);
                return;
        }
        r = &reports[i];
        r->seen++;
        r->err = m->err;
        r->partition = m->partition;
        copy_bytes(r->key, sizeof r->key, m->key, m->key_len);
        copy_bytes(r->value, sizeof r->value, m->payload, m->len);
        snprintf(r->topic, sizeof r->topic, "%s", m->rkt ? rd_kafka_topic_name(m->rkt) : "(no rkt)");
        r->offset_ok = m->err || m->offset >= 0;
        r->payload_is_original = m->payload == originals[i];
        r->status = rd_kafka_message_status(m);
        ts = rd_kafka_message_timestamp(m, &tstype);
        r->tstype = tstype;
        r->ts_ok = ts > 1500000000000LL;
        r->cb_opaque_ok = opaque == &app_state;
        r->errstr_is_payload = m->err && rd_kafka_message_errstr(m) == m->payload;
        {
                rd_kafka_headers_t *hdrs = NULL;
                r->headers = rd_kafka_message_headers(m, &hdrs) ? 0 : (int)rd_kafka_header_cnt(hdrs);
        }
}

static void print_metadata(const rd_kafka_metadata_t *md, const char *topic) {
        int i, j;
        printf("metadata: brokers %s, topics %d\n", md->broker_cnt >= 1 ? ">= 1" : "none",
               md->topic_cnt);
        for (i = 0; i < md->topic_cnt; i++) {
                const rd_kafka_metadata_topic_t *t = &md->topics[i];
                printf("metadata: topic %s err %s partitions %d\n",
                       strcmp(t->topic, topic) ? t->topic : "(the topic)",
                       rd_kafka_err2name(t->err), t->partition_cnt);
                for (j = 0; j < t->partition_cnt; j++) {
                        const rd_kafka_metadata_partition_t *p = &t->partitions[j];
                        printf("metadata:   partition %d err %s leader %s replicas %d isrs %d\n",
                               p->id, rd_kafka_err2name(p->err),
                               p->leader >= 0 ? "known" : "none", p->replica_cnt, p->isr_cnt);
                }
        }
        for (i = 0; i < md->broker_cnt; i++)
                if (md->brokers[i].id < 0 || !md->brokers[i].host || md->brokers[i].port <= 0)
                        printf("metadata: bad broker entry %d\n", i);
}

/* Metadata of the topic once the broker has it (a producer's metadata
 * request lets the broker auto-create it); prints the last answer. */
static int topic_metadata(rd_kafka_t *rk, rd_kafka_topic_t *rkt, int *partitions) {
        const rd_kafka_metadata_t *md = NULL;
        rd_kafka_resp_err_t err = RD_KAFKA_RESP_ERR_NO_ERROR;
        int tries, ready = 0, j;

        for (tries = 0; tries < 50 && !ready; tries++) {
                if (md) {
                        rd_kafka_metadata_destroy(md);
                        md = NULL;
                        usleep(200 * 1000);
                }
                err = rd_kafka_metadata(rk, 0, rkt, &md, 5000);
                if (err) {
                        md = NULL;
                        usleep(200 * 1000);
                        continue;
                }
                ready = md->topic_cnt == 1 && !md->topics[0].err &&
                        md->topics[0].partition_cnt > 0;
                for (j = 0; ready && j < md->topics[0].partition_cnt; j++)
                        ready = !md->topics[0].partitions[j].err &&
                                md->topics[0].partitions[j].leader >= 0;
        }
        printf("metadata: %s\n", rd_kafka_err2name(err));
        if (!md)
                return -1;
        print_metadata(md, rd_kafka_topic_name(rkt));
        *partitions = md->topics[0].partition_cnt;
        rd_kafka_metadata_destroy(md);
        return ready ? 0 : -1;
}

/* the built-in partitioners' functions, on keys where they hash */
static void print_partitioners(rd_kafka_topic_t *rkt, int partitions) {
        static const char *keys[] = {"a", "key-1", "hello world", "0123456789abcdef"};
        static const int32_t counts[] = {1, 3, 7, 100};
        size_t k, c;
        int ok = 1;

        for (k = 0; k < sizeof keys / sizeof *keys; k++)
                for (c = 0; c < sizeof counts / sizeof *counts; c++) {
                        const char *key = keys[k];
                        size_t len = strlen(key);
                        int32_t cnt = counts[c];
                        printf("partitioners %s/%d: consistent %d consistent_random %d "
                               "murmur2 %d murmur2_random %d fnv1a %d fnv1a_random %d\n",
                               key, cnt,
                               rd_kafka_msg_partitioner_consistent(rkt, key, len, cnt, NULL, NULL),
                               rd_kafka_msg_partitioner_consistent_random(rkt, key, len, cnt, NULL, NULL),
                               rd_kafka_msg_partitioner_murmur2(rkt, key, len, cnt, NULL, NULL),
                               rd_kafka_msg_partitioner_murmur2_random(rkt, key, len, cnt, NULL, NULL),
                               rd_kafka_msg_partitioner_fnv1a(rkt, key, len, cnt, NULL, NULL),
                               rd_kafka_msg_partitioner_fnv1a_random(rkt, key, len, cnt, NULL, NULL));
                }
        printf("partitioners of a NULL key: consistent %d murmur2 %d fnv1a %d\n",
               rd_kafka_msg_partitioner_consistent(rkt, NULL, 0, 7, NULL, NULL),
               rd_kafka_msg_partitioner_murmur2(rkt, NULL, 0, 7, NULL, NULL),
               rd_kafka_msg_partitioner_fnv1a(rkt, NULL, 0, 7, NULL, NULL));
        for (c = 0; c < 50; c++) {
                int32_t p = rd_kafka_msg_partitioner_random(rkt, NULL, 0, partitions, NULL, NULL);
                ok = ok && p >= 0 && p < partitions;
        }
        printf("partitioner random: %s\n", ok ? "in range" : "out of range");
}

/* bootstrap.servers, or a mock cluster for "mock" */
static int set_bootstrap(rd_kafka_conf_t *conf, const char *bootstrap, char *errstr, size_t size) {
        if (!strcmp(bootstrap, "mock"))
                return rd_kafka_conf_set(conf, "test.mock.num.brokers", "1", errstr, size);
        return rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap, errstr, size);
}

int main(int argc, char **argv) {
        char errstr[512], buf[64], name[64];
        rd_kafka_conf_t *conf;
        rd_kafka_t *rk, *consumer;
        rd_kafka_topic_t *rkt, *again;
        const char *bootstrap, *topic;
        int n, i, partitions = 0, rc, total;
        size_t size;
        rd_kafka_resp_err_t err;
        rd_kafka_error_t *error;

        if (argc != 4 || (n = atoi(argv[3])) < 4 || n > MAX_MSGS - 4) {
                fprintf(stderr, "usage: %s <bootstrap> <topic> <n: 4..%d>\n", argv[0], MAX_MSGS - 4);
                return 2;
        }
        bootstrap = argv[1];
        topic = argv[2];

        conf = rd_kafka_conf_new();
        if (set_bootstrap(conf, bootstrap, errstr, sizeof errstr) ||
            rd_kafka_conf_set(conf, "client.id", "abi-producer", errstr, sizeof errstr) ||
            rd_kafka_conf_set(conf, "linger.ms", "5", errstr, sizeof errstr) ||
            rd_kafka_conf_set(conf, "statistics.interval.ms", "100", errstr, sizeof errstr)) {
                printf("conf_set: %s\n", errstr);
                return 1;
        }
        rd_kafka_conf_set_dr_msg_cb(conf, dr_msg_cb);
        rd_kafka_conf_set_stats_cb(conf, stats_cb);
        rd_kafka_conf_set_opaque(conf, &app_state);

        rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof errstr);
        if (!rk) {
                printf("new: failed: %s\n", errstr);
                return 1;
        }
        printf("new: ok\n");
        printf("name: %s\n", rd_kafka_name(rk));
        printf("type: %d\n", rd_kafka_type(rk));
        printf("opaque: %s\n", rd_kafka_opaque(rk) == &app_state ? "the conf's" : "other");
        size = sizeof buf;
        rc = rd_kafka_conf_get(rd_kafka_conf(rk), "client.id", buf, &size);
        printf("conf: client.id %s (%d)\n", rc == RD_KAFKA_CONF_OK ? buf : "?", rc);

        rkt = rd_kafka_topic_new(rk, topic, NULL);
        printf("topic_new: %s\n", rkt ? "ok" : rd_kafka_err2name(rd_kafka_last_error()));
        if (!rkt)
                return 1;
        printf("topic_name: %s\n", strcmp(rd_kafka_topic_name(rkt), topic) ? "other" : "the topic");
        again = rd_kafka_topic_new(rk, topic, NULL);
        printf("topic_new again: %s\n", again == rkt ? "the same handle" : "another handle");
        rd_kafka_topic_destroy(again);

        if (topic_metadata(rk, rkt, &partitions)) {
                printf("metadata: the topic is not ready\n");
                return 1;
        }

        {
                char *cluster = rd_kafka_clusterid(rk, 5000);
                printf("clusterid: %s\n", cluster && *cluster ? "known" : "none");
                if (cluster)
                        rd_kafka_mem_free(rk, cluster);
                printf("controllerid: %s\n", rd_kafka_controllerid(rk, 5000) >= 0 ? "known" : "none");
        }

        print_partitioners(rkt, partitions);

        /* a partition the topic does not have */
        rc = rd_kafka_produce(rkt, partitions + 5, RD_KAFKA_MSG_F_COPY, "x", 1, NULL, 0, NULL);
        printf("produce to a partition the topic lacks: %d %s errno %s\n", rc,
               rd_kafka_err2name(rd_kafka_last_error()), errno == ESRCH ? "ESRCH" : "other");

        for (i = 1; i <= n; i++) {
                char key[32], value[32];
                snprintf(key, sizeof key, "key-%d", i);
                snprintf(value, sizeof value, "value-%d", i);
                switch (i % 4) {
                case 0: /* copied, unassigned partition: the partitioner picks by key */
                        rc = rd_kafka_produce(rkt, RD_KAFKA_PARTITION_UA, RD_KAFKA_MSG_F_COPY, value,
                                              strlen(value), key, strlen(key), (void *)(intptr_t)i);
                        err = rc ? rd_kafka_last_error() : RD_KAFKA_RESP_ERR_NO_ERROR;
                        break;
                case 1: { /* not copied: the report points to our buffer */
                        static char kept[MAX_MSGS + 1][32];
                        snprintf(kept[i], sizeof kept[i], "%s", value);
                        originals[i] = kept[i];
                        rc = rd_kafka_produce(rkt, 0, 0, kept[i], strlen(kept[i]), key, strlen(key),
                                              (void *)(intptr_t)i);
                        err = rc ? rd_kafka_last_error() : RD_KAFKA_RESP_ERR_NO_ERROR;
                        break;
                }
                case 2: { /* by topic name, the library frees the payload */
                        char *owned = strdup(value);
                        originals[i] = owned;
                        if (i == 2) {
                                /* a long list, 26 entries: the opaque after
                                 * the headers must still come through */
                                err = rd_kafka_producev(
                                    rk, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_FREE),
                                    RD_KAFKA_V_VALUE(owned, strlen(owned)),
                                    RD_KAFKA_V_KEY(key, strlen(key)),
                                    RD_KAFKA_V_HEADER("h1", "v", -1), RD_KAFKA_V_HEADER("h2", "v", -1),
                                    RD_KAFKA_V_HEADER("h3", "v", -1), RD_KAFKA_V_HEADER("h4", "v", -1),
                                    RD_KAFKA_V_HEADER("h5", "v", -1), RD_KAFKA_V_HEADER("h6", "v", -1),
                                    RD_KAFKA_V_HEADER("h7", "v", -1), RD_KAFKA_V_HEADER("h8", "v", -1),
                                    RD_KAFKA_V_HEADER("h9", "v", -1), RD_KAFKA_V_HEADER("h10", "v", -1),
                                    RD_KAFKA_V_HEADER("h11", "v", -1), RD_KAFKA_V_HEADER("h12", "v", -1),
                                    RD_KAFKA_V_HEADER("h13", "v", -1), RD_KAFKA_V_HEADER("h14", "v", -1),
                                    RD_KAFKA_V_HEADER("h15", "v", -1), RD_KAFKA_V_HEADER("h16", "v", -1),
                                    RD_KAFKA_V_HEADER("h17", "v", -1), RD_KAFKA_V_HEADER("h18", "v", -1),
                                    RD_KAFKA_V_HEADER("h19", "v", -1), RD_KAFKA_V_HEADER("h20", "v", -1),
                                    RD_KAFKA_V_HEADER("h21", "v", -1), RD_KAFKA_V_HEADER("h22", "v", -1),
                                    RD_KAFKA_V_OPAQUE((void *)(intptr_t)i), RD_KAFKA_V_END);
                                if (err)
                                        free(owned);
                                break;
                        }
                        err = rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic),
                                                RD_KAFKA_V_PARTITION(RD_KAFKA_PARTITION_UA),
                                                RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_FREE),
                                                RD_KAFKA_V_VALUE(owned, strlen(owned)),
                                                RD_KAFKA_V_KEY(key, strlen(key)),
                                                RD_KAFKA_V_HEADER("h", "v", -1),
                                                RD_KAFKA_V_OPAQUE((void *)(intptr_t)i),
                                                RD_KAFKA_V_END);
                        if (err)
                                free(owned);
                        break;
                }
                default: { /* the array form, copied, by handle */
                        rd_kafka_vu_t vus[6];
                        memset(vus, 0, sizeof vus);
                        vus[0].vtype = RD_KAFKA_VTYPE_RKT;
                        vus[0].u.rkt = rkt;
                        vus[1].vtype = RD_KAFKA_VTYPE_VALUE;
                        vus[1].u.mem.ptr = value;
                        vus[1].u.mem.size = strlen(value);
                        vus[2].vtype = RD_KAFKA_VTYPE_KEY;
                        vus[2].u.mem.ptr = key;
                        vus[2].u.mem.size = strlen(key);
                        vus[3].vtype = RD_KAFKA_VTYPE_MSGFLAGS;
                        vus[3].u.i = RD_KAFKA_MSG_F_COPY;
                        vus[4].vtype = RD_KAFKA_VTYPE_OPAQUE;
                        vus[4].u.ptr = (void *)(intptr_t)i;
                        vus[5].vtype = RD_KAFKA_VTYPE_PARTITION;
                        vus[5].u.i32 = partitions - 1;
                        error = rd_kafka_produceva(rk, vus, 6);
                        err = error ? rd_kafka_error_code(error) : RD_KAFKA_RESP_ERR_NO_ERROR;
                        if (error)
                                rd_kafka_error_destroy(error);
                        break;
                }
                }
                if (err)
                        printf("produce %d: %s\n", i, rd_kafka_err2name(err));
        }
        printf("produced: %d\n", n);
        total = n + 4;

        /* a batch of 4, each to its own partition (not to one the topic
         * lacks: librdkafka 2.12.1 then keeps counting the failed message
         * in rd_kafka_outq_len, and flush times out) */
        {
                rd_kafka_message_t batch[4];
                static char bvals[4][32], bkeys[4][32];
                const int32_t parts[4] = {0, partitions - 1, 1 % partitions, 0};
                memset(batch, 0, sizeof batch);
                for (i = 0; i < 4; i++) {
                        snprintf(bvals[i], sizeof bvals[i], "batch-value-%d", i);
                        snprintf(bkeys[i], sizeof bkeys[i], "batch-key-%d", i);
                        batch[i].partition = parts[i];
                        batch[i].payload = bvals[i];
                        batch[i].len = strlen(bvals[i]);
                        batch[i].key = bkeys[i];
                        batch[i].key_len = strlen(bkeys[i]);
                        batch[i]._private = (void *)(intptr_t)(n + 1 + i);
                        batch[i].err = RD_KAFKA_RESP_ERR__FAIL;
                }
                rc = rd_kafka_produce_batch(rkt, RD_KAFKA_PARTITION_UA,
                                            RD_KAFKA_MSG_F_COPY | RD_KAFKA_MSG_F_PARTITION, batch, 4);
                printf("produce_batch: %d queued, errs %s %s %s %s\n", rc,
                       rd_kafka_err2name(batch[0].err), rd_kafka_err2name(batch[1].err),
                       rd_kafka_err2name(batch[2].err), rd_kafka_err2name(batch[3].err));
        }

        err = rd_kafka_flush(rk, 30000);
        printf("flush: %s\n", rd_kafka_err2name(err));
        printf("outq_len: %d\n", rd_kafka_outq_len(rk));
        printf("poll after flush: %d\n", rd_kafka_poll(rk, 0));
        printf("delivery reports: %d\n", dr_count);
        for (i = 1; i <= total; i++) {
                struct report *r = &reports[i];
                printf("dr %d: seen %d err %s partition %d key %s value %s topic %s offset %s "
                       "status %d tstype %d ts %s payload %s cb_opaque %s headers %d\n",
                       i, r->seen, rd_kafka_err2name(r->err), r->partition, r->key, r->value,
                       strcmp(r->topic, topic) ? r->topic : "the topic", r->offset_ok ? "ok" : "bad",
                       r->status, r->tstype, r->ts_ok ? "ok" : "bad",
                       r->payload_is_original ? "original" : "copy",
                       r->cb_opaque_ok ? "ok" : "bad", r->headers);
        }

        for (i = 0; i < 30 && stats_calls < 2; i++)
                rd_kafka_poll(rk, 100);
        printf("stats_cb: %s, json %s\n", stats_calls >= 2 ? "called" : "not called",
               stats_json_ok ? "an object of the length given" : "bad");
        if (stats_kept)
                rd_kafka_mem_free(rk, stats_kept);

        printf("purge: %s\n",
               rd_kafka_err2name(rd_kafka_purge(rk, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT)));
        printf("fatal_error: %s\n", rd_kafka_err2name(rd_kafka_fatal_error(rk, errstr, sizeof errstr)));
        rd_kafka_topic_destroy(rkt);
        rd_kafka_destroy(rk);
        printf("destroy: ok\n");

        /* a conf rd_kafka_new refuses stays the caller's */
        conf = rd_kafka_conf_new();
        rd_kafka_conf_set(conf, "enable.idempotence", "true", errstr, sizeof errstr);
        rd_kafka_conf_set(conf, "acks", "1", errstr, sizeof errstr);
        errstr[0] = '\0';
        rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof errstr);
        printf("new with enable.idempotence and acks=1: %s, errstr %s\n", rk ? "a handle" : "NULL",
               errstr[0] ? "set" : "empty");
        if (rk)
                rd_kafka_destroy(rk);
        else
                rd_kafka_conf_destroy(conf);

        /* a consumer handle: the handle counter is the process's */
        conf = rd_kafka_conf_new();
        set_bootstrap(conf, bootstrap, errstr, sizeof errstr);
        rd_kafka_conf_set(conf, "client.id", "abi-consumer", errstr, sizeof errstr);
        rd_kafka_conf_set(conf, "group.id", "abi-producer-check", errstr, sizeof errstr);
        consumer = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof errstr);
        if (!consumer) {
                printf("consumer new: failed: %s\n", errstr);
                return 1;
        }
        snprintf(name, sizeof name, "%s", rd_kafka_name(consumer));
        printf("consumer: name %s type %d\n", name, rd_kafka_type(consumer));
        rd_kafka_destroy_flags(consumer, RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE);
        printf("consumer destroy: ok\n");

        /* an unreachable cluster: error_cb, and a message timing out */
        conf = rd_kafka_conf_new();
        rd_kafka_conf_set(conf, "bootstrap.servers", "127.0.0.1:1", errstr, sizeof errstr);
        rd_kafka_conf_set(conf, "message.timeout.ms", "1500", errstr, sizeof errstr);
        rd_kafka_conf_set(conf, "reconnect.backoff.ms", "100", errstr, sizeof errstr);
        rd_kafka_conf_set_dr_msg_cb(conf, dr_msg_cb);
        rd_kafka_conf_set_error_cb(conf, error_cb);
        rd_kafka_conf_set_log_cb(conf, log_cb);
        rd_kafka_conf_set_opaque(conf, &app_state);
        rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof errstr);
        if (!rk) {
                printf("unreachable new: failed: %s\n", errstr);
                return 1;
        }
        /* silenced: lines logged once the level is set are dropped (the
         * callback runs on the logging thread, so earlier ones are in by
         * the time the pause is over) */
        rd_kafka_set_log_level(rk, 0);
        usleep(300 * 1000);
        log_lines = 0;
        memset(&reports[1], 0, sizeof reports[1]);
        originals[1] = NULL;
        dr_count = 0;
        err = rd_kafka_producev(rk, RD_KAFKA_V_TOPIC("unreachable"), RD_KAFKA_V_VALUE("lost", 4),
                                RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                                RD_KAFKA_V_OPAQUE((void *)(intptr_t)1), RD_KAFKA_V_END);
        printf("unreachable producev: %s\n", rd_kafka_err2name(err));
        for (i = 0; i < 50 && !seen_all_down; i++)
                rd_kafka_poll(rk, 100);
        printf("unreachable error_cb: _TRANSPORT %s, _ALL_BROKERS_DOWN %s\n",
               seen_transport ? "seen" : "not seen", seen_all_down ? "seen" : "not seen");
        printf("unreachable log lines after set_log_level(0): %d\n", log_lines);
        err = rd_kafka_flush(rk, 10000);
        printf("unreachable flush: %s, outq_len %d\n", rd_kafka_err2name(err), rd_kafka_outq_len(rk));
        printf("unreachable dr: seen %d err %s value %s status %d errstr %s\n", reports[1].seen,
               rd_kafka_err2name(reports[1].err), reports[1].value, reports[1].status,
               reports[1].errstr_is_payload ? "the payload" : "other");
        rd_kafka_destroy(rk);
        printf("unreachable destroy: ok\n");
        return 0;
}
