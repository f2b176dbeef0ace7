/* A minimal gregor producer: one message, flush, then idle; prints VmRSS.
 * Built statically by scripts/size-report.sh next to rdkafka_producer.c. */
#include <unistd.h>
#include "gregor.h"
#include "idle.h"

int main(int argc, char **argv) {
    struct args a = parse_args(argc, argv);
    char err[512];
    gregor_config *conf = gregor_config_new();
    if (gregor_config_set(conf, "bootstrap.servers", a.brokers, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    gregor_producer *p = gregor_producer_new(conf, err, sizeof err);
    if (!p) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    int rc = gregor_producer_send(p, a.topic, -1, NULL, 0, (const uint8_t *)"hello", 5, NULL, 0,
                                  NULL, 0, err, sizeof err);
    if (!rc) rc = gregor_producer_flush(p, 10000);
    if (rc) {
        fprintf(stderr, "produce: %s\n", gregor_err_name(rc));
        return 1;
    }
    sleep(a.idle_s);
    printf("%ld\n", vm_rss_kb());
    gregor_producer_free(p);
    gregor_config_free(conf);
    return 0;
}
