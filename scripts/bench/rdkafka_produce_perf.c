/* The librdkafka side of the producer benchmark: the same loop as gregor's
 * examples/produce_perf.rs (produce COUNT messages as fast as the queue
 * allows, then flush until every delivery report is in), so both clients are
 * timed from first send to last acknowledgement. Built by
 * scripts/bench-producer.py against the librdkafka that scripts/setup.sh
 * installs.
 *
 *   rdkafka_produce_perf BROKERS TOPIC COUNT SIZE ACKS CODEC
 */
#include <librdkafka/rdkafka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long failed;

static void dr_cb(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque) {
    (void)rk;
    (void)opaque;
    if (m->err) failed++;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    char err[512];
    if (argc < 7) {
        fprintf(stderr, "usage: rdkafka_produce_perf BROKERS TOPIC COUNT SIZE ACKS CODEC\n");
        return 2;
    }
    long count = atol(argv[3]);
    size_t size = (size_t)atol(argv[4]);
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    if (rd_kafka_conf_set(conf, "bootstrap.servers", argv[1], err, sizeof err) ||
        rd_kafka_conf_set(conf, "acks", argv[5], err, sizeof err) ||
        rd_kafka_conf_set(conf, "compression.codec", argv[6], err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    rd_kafka_conf_set_dr_msg_cb(conf, dr_cb);
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    if (!rk) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    char *payload = malloc(size);
    for (size_t i = 0; i < size; i++) payload[i] = "0123456789abcdefghijklmnopqrstuvwxyz"[i % 36];
    double t0 = now();
    for (long i = 0; i < count; i++) {
        while (rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(argv[2]), RD_KAFKA_V_VALUE(payload, size),
                                 RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END) ==
               RD_KAFKA_RESP_ERR__QUEUE_FULL)
            rd_kafka_poll(rk, 1);
        rd_kafka_poll(rk, 0);
    }
    rd_kafka_flush(rk, 300000);
    double secs = now() - t0;
    printf("librdkafka: %ld msgs in %.3f s: %.0f msgs/s, %.1f MB/s, %ld failed\n", count, secs, count / secs,
           count * (double)size / secs / 1e6, failed);
    rd_kafka_destroy(rk);
    free(payload);
    return failed != 0;
}
