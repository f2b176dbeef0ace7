/*
 * SASL/OAUTHBEARER tokens from C, as librdkafka's
 * rd_kafka_conf_set_oauthbearer_token_refresh_cb, rd_kafka_oauthbearer_set_token
 * and rd_kafka_oauthbearer_set_token_failure: the callback runs inside
 * gregor_producer_poll with the handle, sasl.oauthbearer.config and the
 * opaque; set_token validates as librdkafka (RFC 7628 extension keys and
 * values, no "auth" key, an even extension count, an unexpired token);
 * set_token_failure raises an _AUTHENTICATION error event; an admin client
 * (no poll) gets its callback on a gregor thread; a client without
 * OAUTHBEARER answers _STATE. No broker is needed (the bootstrap address is
 * closed: nothing here depends on connecting).
 */
#include <sys/time.h>

#include "check.h"

typedef struct {
    void *handle;
    int calls;
    int errors;
    char last_error[512];
    char config[128];
} state;

static int64_t wall_ms(void) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

static void refresh_cb(void *handle, const char *oauthbearer_config, void *opaque) {
    state *st = opaque;
    char errstr[512];
    st->calls++;
    st->handle = handle;
    snprintf(st->config, sizeof st->config, "%s", oauthbearer_config);
    gregor_producer *p = handle;
    const char *reserved[] = {"auth", "x"};
    CHECK_INT(gregor_producer_oauthbearer_set_token(p, "tok", wall_ms() + 60000, "c-test",
                                                    reserved, 2, errstr, sizeof errstr),
              GREGOR_ERR__INVALID_ARG);
    CHECK_CONTAINS(errstr, "auth");
    const char *odd[] = {"traceId"};
    CHECK_INT(gregor_producer_oauthbearer_set_token(p, "tok", wall_ms() + 60000, "c-test", odd,
                                                    1, errstr, sizeof errstr),
              GREGOR_ERR__INVALID_ARG);
    CHECK_CONTAINS(errstr, "multiple of 2");
    const char *badkey[] = {"trace1", "x"};
    CHECK_INT(gregor_producer_oauthbearer_set_token(p, "tok", wall_ms() + 60000, "c-test",
                                                    badkey, 2, errstr, sizeof errstr),
              GREGOR_ERR__INVALID_ARG);
    CHECK_INT(gregor_producer_oauthbearer_set_token(p, "tok", wall_ms() - 1, "c-test", NULL, 0,
                                                    errstr, sizeof errstr),
              GREGOR_ERR__INVALID_ARG);
    CHECK_CONTAINS(errstr, "unexpired");
    CHECK_INT(gregor_producer_oauthbearer_set_token(p, NULL, wall_ms() + 60000, "c-test", NULL,
                                                    0, errstr, sizeof errstr),
              GREGOR_ERR__INVALID_ARG);
    const char *ext[] = {"traceId", "42"};
    CHECK_OK(gregor_producer_oauthbearer_set_token(p, "c-token", wall_ms() + 60000, "c-test",
                                                   ext, 2, errstr, sizeof errstr),
             errstr);
}

static void error_cb(const gregor_producer *producer, int err, const char *reason,
                     void *opaque) {
    (void)producer;
    state *st = opaque;
    if (err == GREGOR_ERR__AUTHENTICATION) {
        st->errors++;
        snprintf(st->last_error, sizeof st->last_error, "%s", reason);
    }
}

static void admin_cb(void *handle, const char *oauthbearer_config, void *opaque) {
    state *st = opaque;
    char errstr[512];
    (void)oauthbearer_config;
    st->handle = handle;
    CHECK_OK(gregor_admin_oauthbearer_set_token(handle, "admin-token", wall_ms() + 60000, NULL,
                                                NULL, 0, errstr, sizeof errstr),
             errstr);
    __atomic_add_fetch(&st->calls, 1, __ATOMIC_SEQ_CST);
}

static gregor_config *oauth_config(void) {
    char errstr[512];
    gregor_config *conf = gregor_config_new();
    const char *pairs[] = {"bootstrap.servers", "127.0.0.1:1",
                           "security.protocol", "sasl_plaintext",
                           "sasl.mechanisms", "OAUTHBEARER",
                           "sasl.oauthbearer.config", "principal=c-test",
                           NULL};
    for (const char **kv = pairs; kv[0]; kv += 2)
        CHECK_OK(gregor_config_set(conf, kv[0], kv[1], errstr, sizeof errstr), errstr);
    return conf;
}

int main(void) {
    char errstr[512];
    state st = {0};

    /* the producer: the callback runs inside poll, on this thread */
    gregor_config *conf = oauth_config();
    CHECK_OK(gregor_config_set_oauthbearer_token_refresh_cb(conf, refresh_cb, &st), "set cb");
    gregor_producer *p = gregor_producer_new(conf, errstr, sizeof errstr);
    CHECK_MSG(p != NULL, "%s", errstr);
    gregor_config_free(conf);
    CHECK_OK(gregor_producer_set_error_cb(p, error_cb, &st), "error cb");
    int64_t t0 = now_ms();
    while (st.calls == 0 && now_ms() - t0 < 5000)
        gregor_producer_poll(p, 50);
    CHECK_INT(st.calls, 1);
    CHECK(st.handle == (void *)p);
    CHECK_STR(st.config, "principal=c-test");
    /* a failure: reported once through the error callback */
    CHECK_INT(gregor_producer_oauthbearer_set_token_failure(p, ""), GREGOR_ERR__INVALID_ARG);
    CHECK_INT(gregor_producer_oauthbearer_set_token_failure(p, NULL), GREGOR_ERR__INVALID_ARG);
    CHECK_OK(gregor_producer_oauthbearer_set_token_failure(p, "idp down"), "failure");
    t0 = now_ms();
    while (st.errors == 0 && now_ms() - t0 < 5000)
        gregor_producer_poll(p, 50);
    CHECK_CONTAINS(st.last_error, "Failed to acquire SASL OAUTHBEARER token: idp down");
    CHECK_OK(gregor_producer_sasl_background_callbacks_enable(p), "background");
    gregor_producer_free(p);

    /* an admin client has no poll: its callback runs on a gregor thread */
    state ast = {0};
    conf = oauth_config();
    CHECK_OK(gregor_config_set_oauthbearer_token_refresh_cb(conf, admin_cb, &ast), "set cb");
    gregor_admin *a = gregor_admin_new(conf, errstr, sizeof errstr);
    CHECK_MSG(a != NULL, "%s", errstr);
    gregor_config_free(conf);
    t0 = now_ms();
    while (__atomic_load_n(&ast.calls, __ATOMIC_SEQ_CST) == 0 && now_ms() - t0 < 5000)
        usleep(10000);
    CHECK_INT(__atomic_load_n(&ast.calls, __ATOMIC_SEQ_CST), 1);
    CHECK(ast.handle == (void *)a);
    gregor_admin_free(a);

    /* without OAUTHBEARER: _STATE, as librdkafka */
    conf = gregor_config_new();
    CHECK_OK(gregor_config_set(conf, "bootstrap.servers", "127.0.0.1:1", errstr, sizeof errstr),
             errstr);
    gregor_consumer *c = gregor_consumer_new(conf, errstr, sizeof errstr);
    CHECK_MSG(c != NULL, "%s", errstr);
    gregor_config_free(conf);
    CHECK_INT(gregor_consumer_oauthbearer_set_token(c, "t", wall_ms() + 60000, "p", NULL, 0,
                                                    errstr, sizeof errstr),
              GREGOR_ERR__STATE);
    CHECK_CONTAINS(errstr, "not the configured authentication mechanism");
    CHECK_INT(gregor_consumer_oauthbearer_set_token_failure(c, "x"), GREGOR_ERR__STATE);
    CHECK_INT(gregor_consumer_sasl_background_callbacks_enable(c), GREGOR_ERR__STATE);
    gregor_consumer_free(c);
    printf("ok\n");
    return 0;
}
