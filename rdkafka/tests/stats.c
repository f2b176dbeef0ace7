/* The statistics workload of scripts/stats-keys.sh: compiled against the
 * real librdkafka's rdkafka.h, linked once against gregor's librdkafka.so.1
 * and once against the real one, run against the same broker, each run on
 * a topic of its own. It prints the last statistics JSON (librdkafka's
 * STATISTICS.md) each client emitted, one line per client:
 *
 *   stats <bootstrap> <topic> <n>
 *
 *   producer\t{...}
 *   consumer\t{...}
 *
 * The topic is created first (3 partitions, rd_kafka_CreateTopics). The
 * producer (statistics.interval.ms=500, a stats_cb) sends <n> keyed
 * messages, flushes, and polls on until a statistics emission after the
 * flush; a group consumer (same interval) subscribes, reads all <n> with
 * rd_kafka_consumer_poll, commits, and polls on until an emission after the
 * commit. The outputs differ in values; what is compared is their key paths.
 */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <librdkafka/rdkafka.h>

static char *last_json;
static int emissions;

static int stats_cb(rd_kafka_t *rk, char *json, size_t len, void *opaque) {
        (void)rk;
        (void)opaque;
        free(last_json);
        last_json = malloc(len + 1);
        if (!last_json)
                return 0;
        memcpy(last_json, json, len);
        last_json[len] = '\0';
        emissions++;
        return 0; /* librdkafka frees json */
}

static double now_s(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return ts.tv_sec + ts.tv_nsec / 1e9;
}

static rd_kafka_conf_t *conf_of(const char *bootstrap, const char *const *kv) {
        char err[512];
        rd_kafka_conf_t *conf = rd_kafka_conf_new();
        if (rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap, err, sizeof err) ||
            rd_kafka_conf_set(conf, "statistics.interval.ms", "500", err, sizeof err)) {
                fprintf(stderr, "conf: %s\n", err);
                exit(1);
        }
        for (; kv && kv[0]; kv += 2)
                if (rd_kafka_conf_set(conf, kv[0], kv[1], err, sizeof err)) {
                        fprintf(stderr, "conf %s: %s\n", kv[0], err);
                        exit(1);
                }
        rd_kafka_conf_set_stats_cb(conf, stats_cb);
        return conf;
}

/* Serves the client (poll_fn) until two more emissions than `since` were
 * seen (the first may have been under way already), at most 10 s. */
static void until_emitted(rd_kafka_t *rk, int since, int consumer) {
        double end = now_s() + 10;
        while (emissions < since + 2 && now_s() < end) {
                if (consumer) {
                        rd_kafka_message_t *m = rd_kafka_consumer_poll(rk, 100);
                        if (m)
                                rd_kafka_message_destroy(m);
                } else {
                        rd_kafka_poll(rk, 100);
                }
        }
}

/* Creates `topic` with 3 partitions through `rk`'s admin API. */
static void create_topic(rd_kafka_t *rk, const char *topic) {
        char err[512];
        rd_kafka_NewTopic_t *nt = rd_kafka_NewTopic_new(topic, 3, 1, err, sizeof err);
        if (!nt) {
                fprintf(stderr, "NewTopic: %s\n", err);
                exit(1);
        }
        rd_kafka_queue_t *q = rd_kafka_queue_new(rk);
        rd_kafka_CreateTopics(rk, &nt, 1, NULL, q);
        rd_kafka_event_t *ev = rd_kafka_queue_poll(q, 30000);
        const rd_kafka_CreateTopics_result_t *res = ev ? rd_kafka_event_CreateTopics_result(ev) : NULL;
        size_t cnt = 0;
        const rd_kafka_topic_result_t **tr = res ? rd_kafka_CreateTopics_result_topics(res, &cnt) : NULL;
        if (!res || rd_kafka_event_error(ev) || cnt != 1 || rd_kafka_topic_result_error(tr[0])) {
                fprintf(stderr, "CreateTopics failed: %s\n",
                        !ev ? "timed out"
                        : cnt == 1 ? rd_kafka_topic_result_error_string(tr[0])
                                   : rd_kafka_event_error_string(ev));
                exit(1);
        }
        rd_kafka_event_destroy(ev);
        rd_kafka_queue_destroy(q);
        rd_kafka_NewTopic_destroy(nt);
}

static void print_last(const char *who) {
        if (!last_json) {
                fprintf(stderr, "%s: no statistics emitted\n", who);
                exit(1);
        }
        printf("%s\t%s\n", who, last_json);
        free(last_json);
        last_json = NULL;
        emissions = 0;
}

int main(int argc, char **argv) {
        char err[512];
        if (argc != 4) {
                fprintf(stderr, "usage: stats <bootstrap> <topic> <n>\n");
                return 2;
        }
        const char *bootstrap = argv[1], *topic = argv[2];
        int n = atoi(argv[3]);

        const char *pkv[] = {"linger.ms", "5", "enable.idempotence", "true", NULL};
        rd_kafka_t *p =
            rd_kafka_new(RD_KAFKA_PRODUCER, conf_of(bootstrap, pkv), err, sizeof err);
        if (!p) {
                fprintf(stderr, "producer: %s\n", err);
                return 1;
        }
        create_topic(p, topic);
        for (int i = 0; i < n; i++) {
                char key[32], value[64];
                snprintf(key, sizeof key, "k%d", i);
                snprintf(value, sizeof value, "value %d", i);
                rd_kafka_resp_err_t e;
                while ((e = rd_kafka_producev(
                            p, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_KEY(key, strlen(key)),
                            RD_KAFKA_V_VALUE(value, strlen(value)),
                            RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END)) ==
                       RD_KAFKA_RESP_ERR__QUEUE_FULL)
                        rd_kafka_poll(p, 10);
                if (e) {
                        fprintf(stderr, "producev: %s\n", rd_kafka_err2str(e));
                        return 1;
                }
                rd_kafka_poll(p, 0);
        }
        if (rd_kafka_flush(p, 30000)) {
                fprintf(stderr, "flush timed out\n");
                return 1;
        }
        until_emitted(p, emissions, 0);
        print_last("producer");
        rd_kafka_destroy(p);

        char group[300];
        snprintf(group, sizeof group, "%s-group", topic);
        const char *ckv[] = {"group.id", group, "auto.offset.reset", "earliest",
                             "enable.auto.commit", "false", NULL};
        rd_kafka_t *c =
            rd_kafka_new(RD_KAFKA_CONSUMER, conf_of(bootstrap, ckv), err, sizeof err);
        if (!c) {
                fprintf(stderr, "consumer: %s\n", err);
                return 1;
        }
        rd_kafka_poll_set_consumer(c);
        rd_kafka_topic_partition_list_t *sub = rd_kafka_topic_partition_list_new(1);
        rd_kafka_topic_partition_list_add(sub, topic, RD_KAFKA_PARTITION_UA);
        if (rd_kafka_subscribe(c, sub)) {
                fprintf(stderr, "subscribe failed\n");
                return 1;
        }
        rd_kafka_topic_partition_list_destroy(sub);
        int got = 0;
        double end = now_s() + 60;
        while (got < n && now_s() < end) {
                rd_kafka_message_t *m = rd_kafka_consumer_poll(c, 200);
                if (!m)
                        continue;
                if (!m->err)
                        got++;
                rd_kafka_message_destroy(m);
        }
        if (got < n) {
                fprintf(stderr, "consumer: %d of %d messages\n", got, n);
                return 1;
        }
        rd_kafka_commit(c, NULL, 0);
        until_emitted(c, emissions, 1);
        print_last("consumer");
        rd_kafka_consumer_close(c);
        rd_kafka_destroy(c);
        return 0;
}
