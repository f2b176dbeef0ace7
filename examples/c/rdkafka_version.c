/*
 * gregor's librdkafka (make install-rdkafka) from C, built as a program
 * written for librdkafka is, with nothing but pkg-config:
 *
 *   cc rdkafka_version.c $(pkg-config --cflags --libs rdkafka) -o rdkafka_version
 *   cc -static rdkafka_version.c $(pkg-config --static --cflags --libs rdkafka) -o rdkafka_version
 *
 *   ./rdkafka_version [bootstrap]
 *
 * Prints rd_kafka_version_str(), checks that rd_kafka_version() is the
 * RD_KAFKA_VERSION of the header the program was built with, then creates
 * a producer, has rd_kafka_producev() refuse a message without a topic,
 * and destroys it. Needs no broker: rd_kafka_new() "creates a
 * new Kafka handle and starts its operation" (rdkafka.h) and returns; the
 * brokers are connected to by the handle's own threads, and nothing is
 * produced, so rd_kafka_destroy() has nothing to wait for. Exits 0 only if
 * all of that worked.
 */
#include <librdkafka/rdkafka.h>
#include <stdio.h>

int main(int argc, char **argv) {
    const char *bootstrap = argc > 1 ? argv[1] : "127.0.0.1:9092";
    char err[512];

    /* rdkafka.h, RD_KAFKA_VERSION: hex 0xMMmmrrxx, compared with
     * rd_kafka_version() at run time. */
    printf("%s\n", rd_kafka_version_str());
    if (rd_kafka_version() != RD_KAFKA_VERSION) {
        fprintf(stderr, "rd_kafka_version() is 0x%08x, the header's RD_KAFKA_VERSION 0x%08x\n",
                rd_kafka_version(), RD_KAFKA_VERSION);
        return 1;
    }

    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    if (rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap, err, sizeof err) !=
        RD_KAFKA_CONF_OK) {
        fprintf(stderr, "bootstrap.servers: %s\n", err);
        rd_kafka_conf_destroy(conf);
        return 1;
    }
    /* rdkafka.h, rd_kafka_new(): the conf object is freed by it on success
     * and must not be used or destroyed by the application afterwards. */
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    if (!rk) {
        fprintf(stderr, "rd_kafka_new: %s\n", err);
        rd_kafka_conf_destroy(conf);
        return 1;
    }
    if (rd_kafka_type(rk) != RD_KAFKA_PRODUCER) {
        fprintf(stderr, "rd_kafka_type: not a producer\n");
        rd_kafka_destroy(rk);
        return 1;
    }
    printf("producer %s\n", rd_kafka_name(rk));
    /* rd_kafka_producev() (variadic, in the static library too): a message
     * without a topic is refused at once, with RD_KAFKA_RESP_ERR__INVALID_ARG
     * (rdkafka.h: "Invalid argument, or invalid configuration"). */
    rd_kafka_resp_err_t perr = rd_kafka_producev(rk, RD_KAFKA_V_VALUE("x", 1), RD_KAFKA_V_END);
    if (perr != RD_KAFKA_RESP_ERR__INVALID_ARG) {
        fprintf(stderr, "rd_kafka_producev without a topic: %s\n", rd_kafka_err2str(perr));
        rd_kafka_destroy(rk);
        return 1;
    }
    rd_kafka_destroy(rk);
    return 0;
}
