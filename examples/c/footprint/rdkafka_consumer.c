/* gregor_consumer.c with librdkafka: partition 0 assigned at its end,
 * polled for the idle time; prints VmRSS. */
#include <librdkafka/rdkafka.h>
#include "idle.h"

int main(int argc, char **argv) {
    struct args a = parse_args(argc, argv);
    char err[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    if (rd_kafka_conf_set(conf, "bootstrap.servers", a.brokers, err, sizeof err) ||
        rd_kafka_conf_set(conf, "group.id", "footprint", err, sizeof err) ||
        rd_kafka_conf_set(conf, "enable.auto.commit", "false", err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
    if (!rk) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    rd_kafka_topic_partition_list_t *tpl = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(tpl, a.topic, 0)->offset = RD_KAFKA_OFFSET_END;
    if (rd_kafka_assign(rk, tpl)) {
        fprintf(stderr, "assign failed\n");
        return 1;
    }
    for (double end = now_s() + a.idle_s; now_s() < end;) {
        rd_kafka_message_t *m = rd_kafka_consumer_poll(rk, 100);
        if (m) rd_kafka_message_destroy(m);
    }
    printf("%ld\n", vm_rss_kb());
    rd_kafka_topic_partition_list_destroy(tpl);
    rd_kafka_consumer_close(rk);
    rd_kafka_destroy(rk);
    return 0;
}
