/*
 * The librdkafka side of benches/consumer.rs, measured exactly as the
 * gregor side is: the same loop (one poll per message, the message freed at
 * once), the same clock (first message to last), librdkafka's default
 * settings. Built by the benchmark against the librdkafka that
 * scripts/setup.sh installs.
 *
 *   consumer_librdkafka BROKERS TOPIC PARTITIONS COUNT
 *
 * Prints "consumed SECONDS" and "first SECONDS" (from start to the first message).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <librdkafka/rdkafka.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    char err[512];
    if (argc != 5) {
        fprintf(stderr, "usage: %s BROKERS TOPIC PARTITIONS COUNT\n", argv[0]);
        return 2;
    }
    double start = now();
    int partitions = atoi(argv[3]);
    long count = atol(argv[4]);
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    if (rd_kafka_conf_set(conf, "bootstrap.servers", argv[1], err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
    if (!rk) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    rd_kafka_topic_t *rkt = rd_kafka_topic_new(rk, argv[2], NULL);
    rd_kafka_queue_t *q = rd_kafka_queue_new(rk);
    for (int p = 0; p < partitions; p++) {
        if (rd_kafka_consume_start_queue(rkt, p, RD_KAFKA_OFFSET_BEGINNING, q) == -1) {
            fprintf(stderr, "start: %s\n", rd_kafka_err2str(rd_kafka_last_error()));
            return 1;
        }
    }
    long n = 0;
    size_t bytes = 0;
    double first = 0;
    while (n < count) {
        rd_kafka_message_t *m = rd_kafka_consume_queue(q, 10000);
        if (!m) {
            fprintf(stderr, "timed out after %ld messages\n", n);
            return 1;
        }
        if (m->err) {
            if (m->err != RD_KAFKA_RESP_ERR__PARTITION_EOF) {
                fprintf(stderr, "error: %s\n", rd_kafka_message_errstr(m));
                return 1;
            }
        } else {
            if (!n)
                first = now();
            bytes += m->len;
            n++;
        }
        rd_kafka_message_destroy(m);
    }
    double end = now();
    printf("consumed %f\nfirst %f\nbytes %zu\n", end - first, first - start, bytes);
    for (int p = 0; p < partitions; p++)
        rd_kafka_consume_stop(rkt, p);
    rd_kafka_queue_destroy(q);
    rd_kafka_topic_destroy(rkt);
    rd_kafka_destroy(rk);
    return 0;
}
