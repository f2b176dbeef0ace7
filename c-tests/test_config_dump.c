/*
 * gregor_config_dump: the effective configuration as name/value pairs
 * (values set, defaults otherwise), secrets redacted whether set or not,
 * aliases and callbacks left out; NULL arguments; freeing. And the
 * tolerance of librdkafka: a property gregor does not act on, or one of
 * the other role, still makes a client; so does a configuration without
 * bootstrap.servers. No broker needed.
 */
#include "check.h"

static const char *lookup(char **arr, size_t cnt, const char *name) {
    for (size_t i = 0; i + 1 < cnt; i += 2)
        if (strcmp(arr[i], name) == 0)
            return arr[i + 1];
    return NULL;
}

int main(void) {
    char errstr[512];
    gregor_config *conf = gregor_config_new();
    CHECK_OK(gregor_config_set(conf, "metadata.broker.list", "127.0.0.1:1", errstr, sizeof errstr),
             errstr);
    CHECK_OK(gregor_config_set(conf, "linger.ms", "7", errstr, sizeof errstr), errstr);
    CHECK_OK(gregor_config_set(conf, "group.id", "config-dump", errstr, sizeof errstr), errstr);
    CHECK_OK(gregor_config_set(conf, "socket.keepalive.enable", "true", errstr, sizeof errstr),
             errstr);
    CHECK_OK(gregor_config_set(conf, "socket.max.fails", "3", errstr, sizeof errstr), errstr);
    CHECK_OK(gregor_config_set(conf, "sasl.password", "s3cret-pw", errstr, sizeof errstr), errstr);
    CHECK_OK(gregor_config_set(conf, "ssl.key.password", "s3cret-key", errstr, sizeof errstr),
             errstr);
    CHECK_OK(gregor_config_set(conf, "ssl.key.pem", "-----BEGIN s3cret-pem", errstr, sizeof errstr),
             errstr);
    CHECK_OK(gregor_config_set(conf, "sasl.oauthbearer.client.secret", "s3cret-oidc", errstr,
                               sizeof errstr),
             errstr);
    CHECK_OK(gregor_config_set(conf, "sasl.oauthbearer.token", "s3cret-token", errstr,
                               sizeof errstr),
             errstr);

    size_t cnt = 0;
    char **arr = gregor_config_dump(conf, &cnt);
    CHECK(arr != NULL);
    CHECK_MSG(cnt > 300 && cnt % 2 == 0, "cnt %zu", cnt);
    /* set values, under their canonical names */
    CHECK_STR(lookup(arr, cnt, "bootstrap.servers"), "127.0.0.1:1");
    CHECK_STR(lookup(arr, cnt, "linger.ms"), "7");
    CHECK_STR(lookup(arr, cnt, "group.id"), "config-dump");
    CHECK_STR(lookup(arr, cnt, "socket.keepalive.enable"), "true");
    CHECK_STR(lookup(arr, cnt, "socket.max.fails"), "3");
    /* defaults */
    CHECK_STR(lookup(arr, cnt, "client.id"), "gregor");
    CHECK_STR(lookup(arr, cnt, "acks"), "-1");
    CHECK_STR(lookup(arr, cnt, "connections.max.idle.ms"), "0");
    /* aliases and callbacks are not listed */
    CHECK(lookup(arr, cnt, "metadata.broker.list") == NULL);
    CHECK(lookup(arr, cnt, "queue.buffering.max.ms") == NULL);
    CHECK(lookup(arr, cnt, "error_cb") == NULL);
    /* secrets: redacted, set or not, and nowhere in the dump */
    const char *secrets[] = {"sasl.password", "ssl.key.password", "ssl.key.pem",
                             "sasl.oauthbearer.client.secret", "sasl.oauthbearer.token",
                             "sasl.username", "ssl.keystore.password"};
    for (size_t i = 0; i < sizeof secrets / sizeof secrets[0]; i++)
        CHECK_STR(lookup(arr, cnt, secrets[i]), "[redacted]");
    for (size_t i = 0; i < cnt; i++)
        CHECK_MSG(strstr(arr[i], "s3cret") == NULL, "secret in dump: %s", arr[i]);
    gregor_config_dump_free(arr, cnt);

    /* NULL arguments */
    cnt = 42;
    CHECK(gregor_config_dump(NULL, &cnt) == NULL);
    CHECK_INT(cnt, 42);
    CHECK(gregor_config_dump(conf, NULL) == NULL);
    gregor_config_dump_free(NULL, 0);

    /* a consumer property and a no-effect property on a producer, a producer
     * property on a consumer: clients all the same (warnings on stderr) */
    gregor_producer *p = gregor_producer_new(conf, errstr, sizeof errstr);
    CHECK_MSG(p != NULL, "%s", errstr);
    gregor_producer_free(p);
    gregor_consumer *c = gregor_consumer_new(conf, errstr, sizeof errstr);
    CHECK_MSG(c != NULL, "%s", errstr);
    gregor_consumer_free(c);
    gregor_config_free(conf);

    /* no bootstrap.servers: created, with no broker to talk to */
    gregor_config *empty = gregor_config_new();
    p = gregor_producer_new(empty, errstr, sizeof errstr);
    CHECK_MSG(p != NULL, "%s", errstr);
    gregor_producer_free(p);
    c = gregor_consumer_new(empty, errstr, sizeof errstr);
    CHECK_MSG(c != NULL, "%s", errstr);
    gregor_consumer_free(c);
    gregor_config_free(empty);

    /* a name librdkafka does not know stays an error naming it */
    gregor_config *bad = gregor_config_new();
    CHECK_INT(gregor_config_set(bad, "socket.keepalive.enabled", "true", errstr, sizeof errstr),
              GREGOR_ERR__INVALID_CONFIG);
    CHECK_CONTAINS(errstr, "socket.keepalive.enabled");
    /* a callback is set through its function, not as a string */
    CHECK_INT(gregor_config_set(bad, "error_cb", "x", errstr, sizeof errstr),
              GREGOR_ERR__INVALID_CONFIG);
    CHECK_CONTAINS(errstr, "error_cb");
    gregor_config_free(bad);
    return 0;
}
