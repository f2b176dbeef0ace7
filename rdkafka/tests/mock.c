/*
 * mock.c: librdkafka's mock cluster API (rdkafka_mock.h), the same on
 * gregor's librdkafka.so.1 as on the real one. Needs no broker: a mock
 * cluster of 3 brokers, a topic of 4 partitions with leaders set by hand,
 * 100 messages produced to it and consumed back, a broker taken down and
 * up again, pushed Produce errors the producer retries through, and the
 * requests the cluster tracked. Prints lines without ports or timings,
 * so the two libraries' outputs compare with diff.
 *
 * Usage: mock
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#define TOPIC "mock-topic"
#define PARTS 4
#define MSGS  100
#define PRODUCE_API 0 /* the Produce request's API key */

static int delivered[2]; /* [0]: succeeded, [1]: failed */
static rd_kafka_resp_err_t last_dr_err;

static void dr_cb(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque) {
        (void)rk;
        (void)opaque;
        delivered[m->err ? 1 : 0]++;
        if (m->err)
                last_dr_err = m->err;
}

static void no_log(const rd_kafka_t *rk, int level, const char *fac, const char *buf) {
        (void)rk;
        (void)level;
        (void)fac;
        (void)buf;
}

static rd_kafka_conf_t *conf_for(const char *bootstraps) {
        char errstr[256];
        rd_kafka_conf_t *conf = rd_kafka_conf_new();
        if (bootstraps &&
            rd_kafka_conf_set(conf, "bootstrap.servers", bootstraps, errstr, sizeof(errstr)) !=
                RD_KAFKA_CONF_OK) {
                fprintf(stderr, "conf: %s\n", errstr);
                exit(1);
        }
        rd_kafka_conf_set_log_cb(conf, no_log);
        return conf;
}

static void set(rd_kafka_conf_t *conf, const char *k, const char *v) {
        char errstr[256];
        if (rd_kafka_conf_set(conf, k, v, errstr, sizeof(errstr)) != RD_KAFKA_CONF_OK) {
                fprintf(stderr, "conf %s: %s\n", k, errstr);
                exit(1);
        }
}

static void produce_n(rd_kafka_t *rk, int32_t partition, int n, int base) {
        int i;
        for (i = 0; i < n; i++) {
                char val[32];
                rd_kafka_resp_err_t err;
                int32_t p = partition >= 0 ? partition : (base + i) % PARTS;
                snprintf(val, sizeof(val), "msg-%d", base + i);
                err = rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(TOPIC), RD_KAFKA_V_PARTITION(p),
                                        RD_KAFKA_V_VALUE(val, strlen(val)),
                                        RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
                if (err) {
                        printf("producev %d: %s\n", base + i, rd_kafka_err2name(err));
                        return;
                }
        }
}

int main(void) {
        char errstr[256];
        rd_kafka_t *rk0, *prod, *cons;
        rd_kafka_mock_cluster_t *mc;
        rd_kafka_conf_t *conf;
        rd_kafka_topic_partition_list_t *parts;
        const char *bootstraps;
        int counts[PARTS] = {0}, got = 0, bad = 0, p, tries;
        rd_kafka_mock_request_t **reqs;
        size_t cnt, i, produce_reqs = 0;

        setvbuf(stdout, NULL, _IOLBF, 0);

        rk0 = rd_kafka_new(RD_KAFKA_PRODUCER, conf_for(NULL), errstr, sizeof(errstr));
        if (!rk0) {
                fprintf(stderr, "rd_kafka_new: %s\n", errstr);
                return 1;
        }
        mc = rd_kafka_mock_cluster_new(rk0, 3);
        if (!mc) {
                fprintf(stderr, "rd_kafka_mock_cluster_new failed\n");
                return 1;
        }
        printf("cluster: handle is rk %s\n", rd_kafka_mock_cluster_handle(mc) == rk0 ? "yes" : "no");
        bootstraps = rd_kafka_mock_cluster_bootstraps(mc);
        printf("bootstraps: %d brokers\n", bootstraps ? 1 + (int)(strchr(bootstraps, ',') != NULL) +
                                                           (int)(strrchr(bootstraps, ',') != strchr(bootstraps, ','))
                                                     : 0);

        printf("topic_create: %s\n", rd_kafka_err2name(rd_kafka_mock_topic_create(mc, TOPIC, PARTS, 3)));
        printf("topic_create again: %s\n",
               rd_kafka_err2name(rd_kafka_mock_topic_create(mc, TOPIC, PARTS, 3)));
        for (p = 0; p < PARTS; p++) {
                printf("set_leader [%d] -> %d: %s\n", p, p % 3 + 1,
                       rd_kafka_err2name(rd_kafka_mock_partition_set_leader(mc, TOPIC, p, p % 3 + 1)));
                printf("set_follower [%d] -> %d: %s\n", p, (p + 1) % 3 + 1,
                       rd_kafka_err2name(
                           rd_kafka_mock_partition_set_follower(mc, TOPIC, p, (p + 1) % 3 + 1)));
        }
        printf("set_rtt 1: %s\n", rd_kafka_err2name(rd_kafka_mock_broker_set_rtt(mc, 1, 5)));
        printf("set_rack 1: %s\n", rd_kafka_err2name(rd_kafka_mock_broker_set_rack(mc, 1, "rack-a")));
        printf("set_down 99: %s\n", rd_kafka_err2name(rd_kafka_mock_broker_set_down(mc, 99)));
        printf("coordinator_set: %s\n",
               rd_kafka_err2name(rd_kafka_mock_coordinator_set(mc, "group", "mock-group", 2)));

        /* produce 100 messages round the partitions */
        conf = conf_for(bootstraps);
        set(conf, "linger.ms", "5");
        rd_kafka_conf_set_dr_msg_cb(conf, dr_cb);
        prod = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof(errstr));
        if (!prod) {
                fprintf(stderr, "producer: %s\n", errstr);
                return 1;
        }
        produce_n(prod, -1, MSGS, 0);
        printf("flush: %s\n", rd_kafka_err2name(rd_kafka_flush(prod, 30000)));
        printf("delivered: %d ok, %d failed\n", delivered[0], delivered[1]);

        /* consume them back from the start of every partition */
        conf = conf_for(bootstraps);
        set(conf, "group.id", "mock-group");
        set(conf, "enable.auto.commit", "false");
        cons = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof(errstr));
        if (!cons) {
                fprintf(stderr, "consumer: %s\n", errstr);
                return 1;
        }
        parts = rd_kafka_topic_partition_list_new(PARTS);
        for (p = 0; p < PARTS; p++)
                rd_kafka_topic_partition_list_add(parts, TOPIC, p)->offset = RD_KAFKA_OFFSET_BEGINNING;
        printf("assign: %s\n", rd_kafka_err2name(rd_kafka_assign(cons, parts)));
        rd_kafka_topic_partition_list_destroy(parts);
        for (tries = 0; got < MSGS && tries < 300; tries++) {
                rd_kafka_message_t *m = rd_kafka_consumer_poll(cons, 100);
                char want[32];
                if (!m)
                        continue;
                if (!m->err && m->partition >= 0 && m->partition < PARTS) {
                        snprintf(want, sizeof(want), "msg-%d",
                                 (int)(m->offset * PARTS + m->partition));
                        if (m->len != strlen(want) || memcmp(m->payload, want, m->len))
                                bad++;
                        counts[m->partition]++;
                        got++;
                }
                rd_kafka_message_destroy(m);
        }
        printf("consumed: %d, %d unexpected\n", got, bad);
        for (p = 0; p < PARTS; p++)
                printf("consumed [%d]: %d\n", p, counts[p]);
        rd_kafka_consumer_close(cons);
        rd_kafka_destroy(cons);

        /* a broker down and up again: its partition's messages still go */
        printf("set_down 2: %s\n", rd_kafka_err2name(rd_kafka_mock_broker_set_down(mc, 2)));
        printf("set_up 2: %s\n", rd_kafka_err2name(rd_kafka_mock_broker_set_up(mc, 2)));
        delivered[0] = delivered[1] = 0;
        produce_n(prod, 1, 10, MSGS);
        printf("flush after down/up: %s\n", rd_kafka_err2name(rd_kafka_flush(prod, 30000)));
        printf("delivered after down/up: %d ok, %d failed\n", delivered[0], delivered[1]);

        /* pushed Produce errors: the producer retries through them */
        rd_kafka_mock_start_request_tracking(mc);
        rd_kafka_mock_clear_requests(mc);
        rd_kafka_mock_push_request_errors(mc, PRODUCE_API, 2,
                                          RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS,
                                          RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS);
        delivered[0] = delivered[1] = 0;
        produce_n(prod, 0, 1, MSGS + 10);
        printf("flush after errors: %s\n", rd_kafka_err2name(rd_kafka_flush(prod, 30000)));
        printf("delivered after errors: %d ok, %d failed\n", delivered[0], delivered[1]);
        reqs = rd_kafka_mock_get_requests(mc, &cnt);
        for (i = 0; i < cnt; i++) {
                if (rd_kafka_mock_request_api_key(reqs[i]) == PRODUCE_API) {
                        produce_reqs++;
                        if (produce_reqs == 1)
                                printf("produce request to broker %" PRId32 ", timestamp %s\n",
                                       rd_kafka_mock_request_id(reqs[i]),
                                       rd_kafka_mock_request_timestamp(reqs[i]) > 0 ? "set" : "unset");
                }
        }
        printf("produce requests: %zu\n", produce_reqs);
        rd_kafka_mock_request_destroy_array(reqs, cnt);
        rd_kafka_mock_stop_request_tracking(mc);

        /* a retry-exhausting error: the message fails with it */
        rd_kafka_mock_push_request_errors(mc, PRODUCE_API, 1,
                                          RD_KAFKA_RESP_ERR_INVALID_MSG);
        delivered[0] = delivered[1] = 0;
        produce_n(prod, 0, 1, MSGS + 11);
        rd_kafka_flush(prod, 30000);
        printf("delivered after a fatal error: %d ok, %d failed (%s)\n", delivered[0], delivered[1],
               delivered[1] ? rd_kafka_err2name(last_dr_err) : "-");

        rd_kafka_destroy(prod);
        rd_kafka_mock_cluster_destroy(mc);
        rd_kafka_destroy(rk0);
        printf("done\n");
        return 0;
}
