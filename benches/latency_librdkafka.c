/* The librdkafka side of the produce latency benchmark (benches/latency.rs):
 * the same loop as gregor's there. One message every INTERVAL_MS to
 * partition 0 of TOPIC; between sends rd_kafka_poll waits for delivery
 * reports until the next send is due. Each message's latency is from just
 * before rd_kafka_producev to its delivery report callback; one warm-up
 * message (connection, metadata) is delivered and flushed first and not
 * counted. Prints one latency in microseconds per line, then "failed N".
 * Built by benches/latency.rs against the librdkafka scripts/setup.sh
 * installs.
 *
 *   latency_librdkafka BROKERS TOPIC COUNT INTERVAL_MS LINGER_MS
 */
#include <librdkafka/rdkafka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double *sent_at;
static double *latency;
static long failed;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void dr_cb(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque) {
    double t = now();
    long i = (long)(size_t)m->_private;
    (void)rk;
    (void)opaque;
    if (m->err) {
        failed++;
        return;
    }
    if (i >= 0) latency[i] = t - sent_at[i];
}

int main(int argc, char **argv) {
    char err[512];
    if (argc < 6) {
        fprintf(stderr, "usage: latency_librdkafka BROKERS TOPIC COUNT INTERVAL_MS LINGER_MS\n");
        return 2;
    }
    long count = atol(argv[3]);
    double interval = atof(argv[4]) / 1000.0;
    sent_at = calloc((size_t)count, sizeof *sent_at);
    latency = calloc((size_t)count, sizeof *latency);
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    if (rd_kafka_conf_set(conf, "bootstrap.servers", argv[1], err, sizeof err) ||
        rd_kafka_conf_set(conf, "acks", "all", err, sizeof err) ||
        rd_kafka_conf_set(conf, "enable.idempotence", "false", err, sizeof err) ||
        rd_kafka_conf_set(conf, "linger.ms", argv[5], err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    rd_kafka_conf_set_dr_msg_cb(conf, dr_cb);
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    if (!rk) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    const char payload[100] = {0};
    /* warm-up: opaque -1 is not counted */
    rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(argv[2]), RD_KAFKA_V_PARTITION(0),
                      RD_KAFKA_V_VALUE((void *)payload, sizeof payload),
                      RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                      RD_KAFKA_V_OPAQUE((void *)(size_t)-1), RD_KAFKA_V_END);
    rd_kafka_flush(rk, 30000);
    double next = now();
    for (long i = 0; i < count; i++) {
        double t;
        while ((t = now()) < next) rd_kafka_poll(rk, (int)((next - t) * 1000.0 + 0.999));
        sent_at[i] = now();
        if (rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(argv[2]), RD_KAFKA_V_PARTITION(0),
                              RD_KAFKA_V_VALUE((void *)payload, sizeof payload),
                              RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                              RD_KAFKA_V_OPAQUE((void *)(size_t)i), RD_KAFKA_V_END)) {
            failed++;
        }
        next += interval;
    }
    rd_kafka_flush(rk, 30000);
    for (long i = 0; i < count; i++) printf("%.0f\n", latency[i] * 1e6);
    printf("failed %ld\n", failed);
    rd_kafka_destroy(rk);
    return failed != 0;
}
