/* gregor_producer.c with librdkafka: one message, flush, idle; prints VmRSS. */
#include <unistd.h>
#include <librdkafka/rdkafka.h>
#include "idle.h"

int main(int argc, char **argv) {
    struct args a = parse_args(argc, argv);
    char err[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    if (rd_kafka_conf_set(conf, "bootstrap.servers", a.brokers, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    if (!rk) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    rd_kafka_resp_err_t rc = rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(a.topic),
                                               RD_KAFKA_V_VALUE("hello", 5), RD_KAFKA_V_END);
    if (!rc) rc = rd_kafka_flush(rk, 10000);
    if (rc) {
        fprintf(stderr, "produce: %s\n", rd_kafka_err2name(rc));
        return 1;
    }
    sleep(a.idle_s);
    printf("%ld\n", vm_rss_kb());
    rd_kafka_destroy(rk);
    return 0;
}
