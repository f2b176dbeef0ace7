/* An idle gregor consumer: partition 0 of the topic assigned at its end,
 * polled for the idle time; prints VmRSS. */
#include "gregor.h"
#include "idle.h"

int main(int argc, char **argv) {
    struct args a = parse_args(argc, argv);
    char err[512];
    gregor_config *conf = gregor_config_new();
    if (gregor_config_set(conf, "bootstrap.servers", a.brokers, err, sizeof err) ||
        gregor_config_set(conf, "group.id", "footprint", err, sizeof err) ||
        gregor_config_set(conf, "enable.auto.commit", "false", err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    gregor_consumer *c = gregor_consumer_new(conf, err, sizeof err);
    if (!c) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    gregor_tpl *tpl = gregor_tpl_new();
    gregor_tpl_add(tpl, a.topic, 0, GREGOR_OFFSET_END);
    if (gregor_consumer_assign(c, tpl, err, sizeof err)) {
        fprintf(stderr, "assign: %s\n", err);
        return 1;
    }
    for (double end = now_s() + a.idle_s; now_s() < end;)
        gregor_message_free(gregor_consumer_poll(c, 100));
    printf("%ld\n", vm_rss_kb());
    gregor_tpl_free(tpl);
    gregor_consumer_close(c);
    gregor_consumer_free(c);
    gregor_config_free(conf);
    return 0;
}
