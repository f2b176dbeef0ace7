/* The ABI probe of gregor's librdkafka (scripts/rdkafka-abi-check.sh):
 * compiled against the real librdkafka's rdkafka.h and linked once against
 * gregor's librdkafka.so.1 and once against the real one.
 *
 *   probe facts   prints what both libraries must answer alike: version,
 *                 debug contexts, the error descriptor array entry by
 *                 entry, rd_kafka_err2str / rd_kafka_err2name of every code
 *                 from -300 to 300 and some beyond, the error object's
 *                 answers for NULL. The script compares the two outputs.
 *   probe conf    prints what both libraries must answer alike for a fixed
 *                 list of configuration calls: set (known, unknown, bad
 *                 values, topic-level names on the global conf), get by the
 *                 size protocol, dup, dup_filter, dump (only the keys set:
 *                 the defaults differ), topic confs, the default topic conf.
 *                 Where gregor deliberately differs (the text of a bad
 *                 value's errstr, defaults, canonical names), only the
 *                 result is printed. The script compares the two outputs.
 *   probe stubs   checks (gregor's library only) that functions not
 *                 implemented yet fail cleanly; exit 1 on the first that
 *                 does not.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <librdkafka/rdkafka.h>

static const char *or_null(const char *s) { return s ? s : "(null)"; }

static int facts(void) {
        const struct rd_kafka_err_desc *descs = NULL;
        size_t cnt = 0, i;
        int code;
        static const int beyond[] = {INT_MIN, -100000, -1000, 1000, 32767, INT_MAX};

        printf("version 0x%08x\n", rd_kafka_version());
        printf("version_str %s\n", rd_kafka_version_str());
        printf("debug_contexts %s\n", rd_kafka_get_debug_contexts());
        printf("last_error %d\n", rd_kafka_last_error());

        rd_kafka_get_err_descs(&descs, &cnt);
        printf("err_descs %zu\n", cnt);
        for (i = 0; i < cnt; i++)
                printf("desc[%zu] %d %s %s\n", i, descs[i].code, or_null(descs[i].name),
                       or_null(descs[i].desc));

        /* One call per line: unknown codes share a per-thread buffer. */
        for (code = -300; code <= 300; code++) {
                printf("err2name %d %s\n", code, rd_kafka_err2name((rd_kafka_resp_err_t)code));
                printf("err2str %d %s\n", code, rd_kafka_err2str((rd_kafka_resp_err_t)code));
        }
        for (i = 0; i < sizeof beyond / sizeof beyond[0]; i++) {
                printf("err2name %d %s\n", beyond[i], rd_kafka_err2name((rd_kafka_resp_err_t)beyond[i]));
                printf("err2str %d %s\n", beyond[i], rd_kafka_err2str((rd_kafka_resp_err_t)beyond[i]));
        }

        printf("error_code(NULL) %d\n", rd_kafka_error_code(NULL));
        printf("error_name(NULL) \"%s\"\n", rd_kafka_error_name(NULL));
        printf("error_string(NULL) \"%s\"\n", rd_kafka_error_string(NULL));
        printf("error_is_fatal(NULL) %d\n", rd_kafka_error_is_fatal(NULL));
        printf("error_is_retriable(NULL) %d\n", rd_kafka_error_is_retriable(NULL));
        printf("error_txn_requires_abort(NULL) %d\n", rd_kafka_error_txn_requires_abort(NULL));
        rd_kafka_error_destroy(NULL);
        return 0;
}

static const char *res_name(rd_kafka_conf_res_t r) {
        switch (r) {
        case RD_KAFKA_CONF_OK: return "OK";
        case RD_KAFKA_CONF_INVALID: return "INVALID";
        case RD_KAFKA_CONF_UNKNOWN: return "UNKNOWN";
        default: return "?";
        }
}

/* set: the result; errstr only where its text must be the same. */
static void conf_set(rd_kafka_conf_t *conf, const char *name, const char *value, int show_errstr) {
        char errstr[512] = "";
        rd_kafka_conf_res_t r = rd_kafka_conf_set(conf, name, value, errstr, sizeof errstr);
        printf("set %s=%s %s", name, value, res_name(r));
        if (r != RD_KAFKA_CONF_OK && show_errstr)
                printf(" \"%s\"", errstr);
        printf("\n");
}

static void topic_set(rd_kafka_topic_conf_t *tconf, const char *name, const char *value,
                      int show_errstr) {
        char errstr[512] = "";
        rd_kafka_conf_res_t r = rd_kafka_topic_conf_set(tconf, name, value, errstr, sizeof errstr);
        printf("topic_set %s=%s %s", name, value, res_name(r));
        if (r != RD_KAFKA_CONF_OK && show_errstr)
                printf(" \"%s\"", errstr);
        printf("\n");
}

/* get by the size protocol: the size, then the value, then a buffer too small. */
static void conf_get(const char *what, const rd_kafka_conf_t *conf,
                     const rd_kafka_topic_conf_t *tconf, const char *name) {
        char buf[512], tiny[4];
        size_t size = 0, tsize = sizeof tiny;
        rd_kafka_conf_res_t r;

        r = conf ? rd_kafka_conf_get(conf, name, NULL, &size)
                 : rd_kafka_topic_conf_get(tconf, name, NULL, &size);
        printf("%s %s: %s", what, name, res_name(r));
        if (r != RD_KAFKA_CONF_OK) {
                printf("\n");
                return;
        }
        printf(" size %zu", size);
        size = sizeof buf;
        r = conf ? rd_kafka_conf_get(conf, name, buf, &size)
                 : rd_kafka_topic_conf_get(tconf, name, buf, &size);
        printf(" %s \"%s\" size %zu", res_name(r), buf, size);
        memset(tiny, 'x', sizeof tiny);
        r = conf ? rd_kafka_conf_get(conf, name, tiny, &tsize)
                 : rd_kafka_topic_conf_get(tconf, name, tiny, &tsize);
        printf(" tiny %s \"%.*s\" size %zu\n", res_name(r), (int)sizeof tiny - 1, tiny, tsize);
}

/* get: the result only, where the value's spelling differs. */
static void conf_res(const char *what, const rd_kafka_conf_t *conf,
                     const rd_kafka_topic_conf_t *tconf, const char *name) {
        size_t size = 0;
        rd_kafka_conf_res_t r = conf ? rd_kafka_conf_get(conf, name, NULL, &size)
                                     : rd_kafka_topic_conf_get(tconf, name, NULL, &size);
        printf("%s %s: %s\n", what, name, res_name(r));
}

/* dump: the pairs count is even; the values of the keys in `keys` only. */
static void dump(const char *what, const char **arr, size_t cnt, const char **keys) {
        size_t i, k;
        printf("%s: count even %d\n", what, cnt % 2 == 0);
        for (k = 0; keys[k]; k++) {
                const char *v = "(absent)";
                for (i = 0; i + 1 < cnt; i += 2)
                        if (!strcmp(arr[i], keys[k]))
                                v = or_null(arr[i + 1]);
                printf("%s %s=%s\n", what, keys[k], v);
        }
}

static void cb_dr_msg(rd_kafka_t *rk, const rd_kafka_message_t *m, void *o) {
        (void)rk; (void)m; (void)o;
}
static void cb_error(rd_kafka_t *rk, int err, const char *reason, void *o) {
        (void)rk; (void)err; (void)reason; (void)o;
}
static void cb_log(const rd_kafka_t *rk, int level, const char *fac, const char *buf) {
        (void)rk; (void)level; (void)fac; (void)buf;
}
static int cb_stats(rd_kafka_t *rk, char *json, size_t len, void *o) {
        (void)rk; (void)json; (void)len; (void)o;
        return 0;
}
static int32_t cb_partitioner(const rd_kafka_topic_t *rkt, const void *key, size_t keylen,
                              int32_t cnt, void *ro, void *mo) {
        (void)rkt; (void)key; (void)keylen; (void)ro; (void)mo;
        return cnt - 1;
}

static int conf(void) {
        static const char *global_keys[] = {"client.id", "socket.timeout.ms", "enable.idempotence",
                                            "statistics.interval.ms", "batch.num.messages",
                                            "message.max.bytes", "acks", "auto.offset.reset",
                                            "compression.codec", "metadata.broker.list",
                                            "queue.buffering.max.ms", NULL};
        /* Not auto.offset.reset: librdkafka answers with the first synonym
         * of the value, "largest", gregor with its canonical "latest". */
        static const char *topic_keys[] = {"message.timeout.ms", "compression.codec",
                                           "request.required.acks", "acks", "client.id", NULL};
        static const char *filter[] = {"socket.", "batch."};
        rd_kafka_conf_t *c = rd_kafka_conf_new(), *d, *f;
        rd_kafka_topic_conf_t *t, *t2;
        const char **arr;
        size_t cnt = 0;
        FILE *devnull;

        setvbuf(stdout, NULL, _IOLBF, 0); /* a crash keeps what was printed */
        printf("conf_new %s\n", c ? "non-NULL" : "NULL");
        if (!c)
                return 1;
        printf("default topic conf at first: %s\n",
               rd_kafka_conf_get_default_topic_conf(c) ? "set" : "NULL");

        conf_set(c, "client.id", "probe", 1);
        conf_set(c, "foo", "bar", 1);
        conf_set(c, "topic.foo", "bar", 1);
        conf_set(c, "socket.timeout.ms", "abc", 0);
        conf_set(c, "socket.timeout.ms", "5", 0);
        conf_set(c, "socket.timeout.ms", "12345", 1);
        conf_set(c, "enable.idempotence", "maybe", 0);
        conf_set(c, "enable.idempotence", "true", 1);
        conf_set(c, "statistics.interval.ms", "500", 1);
        conf_set(c, "batch.num.messages", "1234", 1);
        conf_set(c, "message.max.bytes", "2000000", 1);
        conf_set(c, "bootstrap.servers", "localhost:9092", 1);
        conf_set(c, "linger.ms", "7", 1);
        conf_set(c, "error_cb", "x", 1);
        conf_set(c, "debug", "nosuchcontext", 0);
        conf_set(c, "compression.codec", "zip", 0);
        conf_set(c, "compression.codec", "lz4", 1);
        /* Topic-level properties on the global conf: the default topic conf. */
        conf_set(c, "acks", "all", 1);
        conf_set(c, "topic.message.timeout.ms", "45678", 1);
        conf_set(c, "auto.offset.reset", "nowhere", 0);
        conf_set(c, "auto.offset.reset", "earliest", 1);
        printf("default topic conf after a topic property: %s\n",
               rd_kafka_conf_get_default_topic_conf(c) ? "set" : "NULL");

        conf_get("get", c, NULL, "client.id");
        conf_get("get", c, NULL, "socket.timeout.ms");
        conf_get("get", c, NULL, "enable.idempotence");
        conf_get("get", c, NULL, "compression.codec");
        conf_get("get", c, NULL, "compression.type");
        conf_get("get", c, NULL, "metadata.broker.list");
        conf_get("get", c, NULL, "bootstrap.servers");
        conf_get("get", c, NULL, "acks");
        conf_get("get", c, NULL, "request.required.acks");
        conf_get("get", c, NULL, "message.timeout.ms");
        conf_get("get", c, NULL, "foo");
        conf_get("get", c, NULL, "group.id");

        arr = rd_kafka_conf_dump(c, &cnt);
        dump("dump", arr, cnt, global_keys);
        rd_kafka_conf_dump_free(arr, cnt);

        d = rd_kafka_conf_dup(c);
        printf("dup %s\n", d ? "non-NULL" : "NULL");
        conf_get("dup get", d, NULL, "client.id");
        conf_get("dup get", d, NULL, "socket.timeout.ms");
        conf_get("dup get", d, NULL, "acks");
        printf("dup's default topic conf: %s\n",
               !rd_kafka_conf_get_default_topic_conf(d)            ? "NULL"
               : rd_kafka_conf_get_default_topic_conf(d) ==
                         rd_kafka_conf_get_default_topic_conf(c) ? "shared"
                                                                   : "its own");
        conf_set(d, "client.id", "changed", 1);
        conf_get("original after dup changed", c, NULL, "client.id");
        rd_kafka_conf_destroy(d);

        f = rd_kafka_conf_dup_filter(c, 2, filter);
        conf_get("dup_filter get", f, NULL, "client.id");
        /* An empty value puts the default back (the defaults differ). */
        conf_set(f, "group.id", "g", 1);
        conf_set(f, "group.id", "", 1);
        conf_get("dup_filter get after group.id=\"\"", f, NULL, "group.id");
        conf_set(f, "client.id", "", 1);
        conf_res("dup_filter get after client.id=\"\"", f, NULL, "client.id");
        conf_set(f, "socket.timeout.ms", "", 0);
        conf_get("dup_filter get", f, NULL, "message.max.bytes");
        {
                char buf[64];
                size_t size = sizeof buf;
                rd_kafka_conf_get(f, "socket.timeout.ms", buf, &size);
                printf("dup_filter socket.timeout.ms kept: %d\n", !strcmp(buf, "12345"));
                size = sizeof buf;
                rd_kafka_conf_get(f, "batch.num.messages", buf, &size);
                printf("dup_filter batch.num.messages kept: %d\n", !strcmp(buf, "1234"));
        }
        rd_kafka_conf_destroy(f);

        t = rd_kafka_topic_conf_new();
        printf("topic_conf_new %s\n", t ? "non-NULL" : "NULL");
        topic_set(t, "message.timeout.ms", "1234", 1);
        topic_set(t, "topic.acks", "1", 1);
        topic_set(t, "acks", "lots", 0);
        topic_set(t, "client.id", "x", 1);
        topic_set(t, "nosuch", "x", 1);
        topic_set(t, "partitioner_cb", "x", 1);
        topic_set(t, "auto.offset.reset", "latest", 1);
        topic_set(t, "compression.codec", "gzip", 1);
        conf_get("topic get", NULL, t, "message.timeout.ms");
        conf_get("topic get", NULL, t, "delivery.timeout.ms");
        conf_get("topic get", NULL, t, "acks");
        conf_get("topic get", NULL, t, "client.id");
        conf_res("topic get", NULL, t, "auto.offset.reset");
        arr = rd_kafka_topic_conf_dump(t, &cnt);
        dump("topic dump", arr, cnt, topic_keys);
        rd_kafka_conf_dump_free(arr, cnt);
        t2 = rd_kafka_topic_conf_dup(t);
        conf_get("topic dup get", NULL, t2, "message.timeout.ms");
        rd_kafka_topic_conf_set_opaque(t2, &cnt);
        rd_kafka_topic_conf_set_partitioner_cb(t2, cb_partitioner);
        rd_kafka_topic_conf_set_msg_order_cmp(t2, NULL);
        rd_kafka_topic_conf_destroy(t2);

        rd_kafka_conf_set_default_topic_conf(c, t);
        printf("set_default_topic_conf then get: %s\n",
               rd_kafka_conf_get_default_topic_conf(c) == t ? "the same" : "another");
        conf_get("get after set_default_topic_conf", c, NULL, "message.timeout.ms");
        conf_get("get after set_default_topic_conf", c, NULL, "acks");

        rd_kafka_conf_set_opaque(c, &cnt);
        rd_kafka_conf_set_events(c, RD_KAFKA_EVENT_DR | RD_KAFKA_EVENT_ERROR);
        rd_kafka_conf_set_dr_msg_cb(c, cb_dr_msg);
        rd_kafka_conf_set_error_cb(c, cb_error);
        rd_kafka_conf_set_log_cb(c, cb_log);
        rd_kafka_conf_set_stats_cb(c, cb_stats);
        rd_kafka_conf_set_throttle_cb(c, NULL);
        rd_kafka_conf_set_rebalance_cb(c, NULL);
        rd_kafka_conf_set_offset_commit_cb(c, NULL);
        rd_kafka_conf_set_consume_cb(c, NULL);
        rd_kafka_conf_set_background_event_cb(c, NULL);
        rd_kafka_conf_set_oauthbearer_token_refresh_cb(c, NULL);
        rd_kafka_conf_set_dr_cb(c, NULL);
        rd_kafka_conf_set_socket_cb(c, NULL);
        rd_kafka_conf_set_connect_cb(c, NULL);
        rd_kafka_conf_set_closesocket_cb(c, NULL);
        rd_kafka_conf_set_open_cb(c, NULL);
        rd_kafka_conf_set_resolve_cb(c, NULL);
        rd_kafka_conf_set_engine_callback_data(c, NULL);
        rd_kafka_conf_enable_sasl_queue(c, 1);
        printf("set_ssl_cert_verify_cb %s\n",
               res_name(rd_kafka_conf_set_ssl_cert_verify_cb(c, NULL)));
        printf("callbacks and opaque stored\n");

        devnull = fopen("/dev/null", "w");
        if (devnull) {
                rd_kafka_conf_properties_show(devnull);
                fclose(devnull);
        }
        printf("properties_show returns\n");

        rd_kafka_conf_destroy(c);
        printf("destroyed\n");
        return 0;
}

static int failures;

#define CHECK(cond, ...)                                                       \
        do {                                                                   \
                if (cond) {                                                    \
                        printf("ok   " __VA_ARGS__);                           \
                } else {                                                       \
                        printf("FAIL " __VA_ARGS__);                           \
                        failures++;                                            \
                }                                                              \
                printf("\n");                                                  \
        } while (0)

/* A function not implemented yet, with an errstr: a certificate set on a
 * configuration (the stub reads neither). */
static rd_kafka_conf_res_t stub_call(char *errstr, size_t size) {
        static const char cert[] = "-";
        return rd_kafka_conf_set_ssl_cert(NULL, RD_KAFKA_CERT_PUBLIC_KEY, RD_KAFKA_CERT_ENC_PEM,
                                          cert, sizeof cert, errstr, size);
}

static int stubs(void) {
        char errstr[256], tiny[8];
        const char *want = "rd_kafka_conf_set_ssl_cert: not implemented by gregor's librdkafka yet";
        rd_kafka_error_t *error;
        const rd_kafka_error_t **errors;
        size_t cnt = 99;
        rd_kafka_resp_err_t err;

        memset(errstr, 'x', sizeof errstr);
        CHECK(stub_call(errstr, sizeof errstr) == RD_KAFKA_CONF_INVALID,
              "rd_kafka_conf_set_ssl_cert() is RD_KAFKA_CONF_INVALID");
        CHECK(!strcmp(errstr, want), "rd_kafka_conf_set_ssl_cert's errstr: \"%s\"", errstr);
        CHECK(rd_kafka_last_error() == RD_KAFKA_RESP_ERR__NOT_IMPLEMENTED,
              "rd_kafka_last_error() after it: %s", rd_kafka_err2name(rd_kafka_last_error()));

        memset(tiny, 'x', sizeof tiny);
        stub_call(tiny, sizeof tiny);
        CHECK(!memcmp(tiny, want, sizeof tiny - 1) && tiny[sizeof tiny - 1] == '\0',
              "an errstr of 8 bytes holds 7 and the NUL: \"%s\"", tiny);
        CHECK(stub_call(NULL, 0) == RD_KAFKA_CONF_INVALID,
              "rd_kafka_conf_set_ssl_cert() with no errstr is RD_KAFKA_CONF_INVALID");

        /* Implemented, but NULL-safe where librdkafka would crash. */
        CHECK(rd_kafka_conf_set(NULL, "client.id", "probe", errstr, sizeof errstr) ==
                  RD_KAFKA_CONF_INVALID,
              "rd_kafka_conf_set(NULL) is RD_KAFKA_CONF_INVALID: \"%s\"", errstr);
        CHECK(rd_kafka_conf_dup(NULL) == NULL, "rd_kafka_conf_dup(NULL) is NULL");
        CHECK(rd_kafka_conf_get_default_topic_conf(NULL) == NULL,
              "rd_kafka_conf_get_default_topic_conf(NULL) is NULL");
        rd_kafka_conf_set_log_cb(NULL, NULL);
        rd_kafka_topic_conf_destroy(NULL); /* librdkafka's would crash */

        error = rd_kafka_consumer_close_queue(NULL, NULL);
        CHECK(error != NULL,
              "rd_kafka_consumer_close_queue() is an error object, not NULL (success)");
        if (error) {
                CHECK(rd_kafka_error_code(error) == RD_KAFKA_RESP_ERR__NOT_IMPLEMENTED &&
                          !strcmp(rd_kafka_error_name(error), "_NOT_IMPLEMENTED"),
                      "its code: %s", rd_kafka_error_name(error));
                CHECK(strstr(rd_kafka_error_string(error), "rd_kafka_consumer_close_queue") != NULL,
                      "its text: \"%s\"", rd_kafka_error_string(error));
                CHECK(!rd_kafka_error_is_fatal(error) && !rd_kafka_error_is_retriable(error),
                      "neither fatal nor retriable");
                rd_kafka_error_destroy(error);
        }

        /* Variadic in C: the stub takes the fixed parameters only. */
        error = rd_kafka_error_new(RD_KAFKA_RESP_ERR__FAIL, "%s %d", "x", 1);
        CHECK(error != NULL && rd_kafka_error_code(error) == RD_KAFKA_RESP_ERR__NOT_IMPLEMENTED,
              "rd_kafka_error_new(...) is a _NOT_IMPLEMENTED error object");
        rd_kafka_error_destroy(error);

        /* Implemented: a NULL handle fails cleanly. */
        error = rd_kafka_sasl_background_callbacks_enable(NULL);
        CHECK(error != NULL && rd_kafka_error_code(error) == RD_KAFKA_RESP_ERR__INVALID_ARG,
              "rd_kafka_sasl_background_callbacks_enable(NULL) is an _INVALID_ARG error object");
        rd_kafka_error_destroy(error);
        CHECK(rd_kafka_AdminOptions_new(NULL, RD_KAFKA_ADMIN_OP_ANY) == NULL,
              "rd_kafka_AdminOptions_new(NULL) is NULL");
        err = rd_kafka_producev(NULL, RD_KAFKA_V_TOPIC("t"), RD_KAFKA_V_VALUE("v", 1),
                                RD_KAFKA_V_KEY("k", 1), RD_KAFKA_V_PARTITION(0), RD_KAFKA_V_END);
        CHECK(err == RD_KAFKA_RESP_ERR__INVALID_ARG, "rd_kafka_producev(NULL, ...) is %s",
              rd_kafka_err2name(err));
        CHECK(rd_kafka_poll(NULL, 0) == 0, "rd_kafka_poll(NULL) is 0");
        CHECK(rd_kafka_flush(NULL, 0) == RD_KAFKA_RESP_ERR__INVALID_ARG, "rd_kafka_flush(NULL) is %s",
              rd_kafka_err2name(rd_kafka_flush(NULL, 0)));
        CHECK(rd_kafka_topic_new(NULL, "t", NULL) == NULL, "rd_kafka_topic_new(NULL) is NULL");
        errors = rd_kafka_ListConsumerGroups_result_errors(NULL, &cnt);
        CHECK(errors == NULL && cnt == 0,
              "rd_kafka_ListConsumerGroups_result_errors() is NULL with a count of 0 (%zu)", cnt);
        rd_kafka_destroy(NULL);
        rd_kafka_conf_destroy(NULL);
        CHECK(1, "destroy functions return");

        printf("%d failure(s)\n", failures);
        return failures != 0;
}

int main(int argc, char **argv) {
        if (argc == 2 && !strcmp(argv[1], "facts"))
                return facts();
        if (argc == 2 && !strcmp(argv[1], "conf"))
                return conf();
        if (argc == 2 && !strcmp(argv[1], "stubs"))
                return stubs();
        fprintf(stderr, "usage: %s facts|conf|stubs\n", argv[0]);
        return 2;
}
