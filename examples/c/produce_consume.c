/*
 * gregor from C, built only with pkg-config:
 *
 *   cc produce_consume.c $(pkg-config --cflags --libs gregor) -o produce_consume
 *   cc -static produce_consume.c $(pkg-config --static --cflags --libs gregor) -o produce_consume
 *
 *   ./produce_consume [broker [topic]]
 *
 * Creates the topic (1 partition), produces one message with a delivery
 * report, consumes it back from the beginning, checks it is the same, and
 * deletes the topic. Exits 0 only if the message came back unchanged.
 */
#include <gregor.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int delivered_err = 1;
static int32_t delivered_partition = -1;
static int64_t delivered_offset = -1;

static void on_delivery(const gregor_delivery_report *dr, void *opaque) {
    (void)opaque;
    delivered_err = dr->err;
    delivered_partition = dr->partition;
    delivered_offset = dr->offset;
    if (dr->err)
        fprintf(stderr, "delivery failed: %s: %s\n", gregor_err_name(dr->err), dr->errstr);
}

static int fail(const char *what, int rc, const char *err) {
    fprintf(stderr, "%s: %s: %s\n", what, gregor_err_name(rc), err);
    return 1;
}

int main(int argc, char **argv) {
    const char *broker = argc > 1 ? argv[1] : "127.0.0.1:9092";
    char topic[128];
    if (argc > 2)
        snprintf(topic, sizeof topic, "%s", argv[2]);
    else
        snprintf(topic, sizeof topic, "gregor-c-example-%ld-%ld", (long)getpid(), (long)time(NULL));
    char err[512];
    int rc;

    gregor_config *conf = gregor_config_new();
    if ((rc = gregor_config_set(conf, "bootstrap.servers", broker, err, sizeof err)))
        return fail("config", rc, err);

    /* create the topic */
    gregor_admin *admin = gregor_admin_new(conf, err, sizeof err);
    if (!admin)
        return fail("admin", GREGOR_ERR__INVALID_CONFIG, err);
    gregor_new_topic *nt = gregor_new_topic_new(topic, 1, 1);
    const gregor_new_topic *nts[1] = {nt};
    gregor_topic_results *res = NULL;
    if ((rc = gregor_admin_create_topics(admin, nts, 1, NULL, &res, err, sizeof err)))
        return fail("create_topics", rc, err);
    if ((rc = gregor_topic_results_err(res, 0)))
        return fail("create topic", rc, gregor_topic_results_errstr(res, 0));
    gregor_topic_results_free(res);
    gregor_new_topic_free(nt);

    /* produce one message, delivery report served by flush */
    gregor_producer *p = gregor_producer_new(conf, err, sizeof err);
    if (!p)
        return fail("producer", GREGOR_ERR__INVALID_CONFIG, err);
    gregor_producer_set_dr_cb(p, on_delivery, NULL);
    const char *value = "hello from pkg-config";
    if ((rc = gregor_producer_send(p, topic, -1, (const uint8_t *)"k", 1, (const uint8_t *)value,
                                   strlen(value), NULL, 0, NULL, 1000, err, sizeof err)))
        return fail("send", rc, err);
    if ((rc = gregor_producer_flush(p, 30000)))
        return fail("flush", rc, "messages outstanding");
    if (delivered_err)
        return 1;
    printf("delivered to %s [%d] at offset %lld\n", topic, delivered_partition,
           (long long)delivered_offset);

    /* consume it back */
    gregor_consumer *c = gregor_consumer_new(conf, err, sizeof err);
    if (!c)
        return fail("consumer", GREGOR_ERR__INVALID_CONFIG, err);
    gregor_tpl *tpl = gregor_tpl_new();
    gregor_tpl_add(tpl, topic, delivered_partition, delivered_offset);
    if ((rc = gregor_consumer_assign(c, tpl, err, sizeof err)))
        return fail("assign", rc, err);
    int ok = 0;
    for (int i = 0; i < 30 && !ok; i++) {
        gregor_message *m = gregor_consumer_poll(c, 1000);
        if (!m)
            continue;
        if (gregor_message_err(m)) {
            fprintf(stderr, "poll: %s\n", gregor_message_errstr(m));
        } else {
            gregor_slice v = gregor_message_value(m);
            printf("consumed %.*s at offset %lld\n", (int)v.len, (const char *)v.ptr,
                   (long long)gregor_message_offset(m));
            ok = v.len == strlen(value) && memcmp(v.ptr, value, v.len) == 0 &&
                 gregor_message_offset(m) == delivered_offset;
        }
        gregor_message_free(m);
    }
    gregor_tpl_free(tpl);
    gregor_consumer_close(c);
    gregor_consumer_free(c);
    gregor_producer_free(p);

    /* delete the topic */
    const char *names[1] = {topic};
    if ((rc = gregor_admin_delete_topics(admin, names, 1, NULL, &res, err, sizeof err)) == 0)
        gregor_topic_results_free(res);
    gregor_admin_free(admin);
    gregor_config_free(conf);
    if (!ok) {
        fprintf(stderr, "the message did not come back\n");
        return 1;
    }
    printf("gregor %s: ok\n", gregor_version());
    return 0;
}
