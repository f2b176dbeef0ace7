/* The ABI probe of gregor's librdkafka (scripts/rdkafka-abi-check.sh):
 * compiled against the real librdkafka's rdkafka.h and linked once against
 * gregor's librdkafka.so.1 and once against the real one.
 *
 *   probe facts   prints what both libraries must answer alike: version,
 *                 debug contexts, the error descriptor array entry by
 *                 entry, rd_kafka_err2str / rd_kafka_err2name of every code
 *                 from -300 to 300 and some beyond, the error object's
 *                 answers for NULL. The script compares the two outputs.
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

static int stubs(void) {
        char errstr[256], tiny[8];
        const char *want = "rd_kafka_new: not implemented by gregor's librdkafka yet";
        rd_kafka_error_t *error;
        const rd_kafka_error_t **errors;
        size_t cnt = 99;
        rd_kafka_resp_err_t err;

        CHECK(rd_kafka_conf_new() == NULL, "rd_kafka_conf_new() is NULL");

        memset(errstr, 'x', sizeof errstr);
        CHECK(rd_kafka_new(RD_KAFKA_PRODUCER, NULL, errstr, sizeof errstr) == NULL,
              "rd_kafka_new() is NULL");
        CHECK(!strcmp(errstr, want), "rd_kafka_new's errstr: \"%s\"", errstr);
        CHECK(rd_kafka_last_error() == RD_KAFKA_RESP_ERR__NOT_IMPLEMENTED,
              "rd_kafka_last_error() after it: %s", rd_kafka_err2name(rd_kafka_last_error()));

        memset(tiny, 'x', sizeof tiny);
        rd_kafka_new(RD_KAFKA_CONSUMER, NULL, tiny, sizeof tiny);
        CHECK(!memcmp(tiny, want, sizeof tiny - 1) && tiny[sizeof tiny - 1] == '\0',
              "an errstr of 8 bytes holds 7 and the NUL: \"%s\"", tiny);
        CHECK(rd_kafka_new(RD_KAFKA_CONSUMER, NULL, NULL, 0) == NULL,
              "rd_kafka_new() with no errstr is NULL");

        CHECK(rd_kafka_conf_set(NULL, "client.id", "probe", errstr, sizeof errstr) ==
                  RD_KAFKA_CONF_INVALID,
              "rd_kafka_conf_set() is RD_KAFKA_CONF_INVALID: \"%s\"", errstr);

        error = rd_kafka_init_transactions(NULL, 1000);
        CHECK(error != NULL, "rd_kafka_init_transactions() is an error object, not NULL (success)");
        if (error) {
                CHECK(rd_kafka_error_code(error) == RD_KAFKA_RESP_ERR__NOT_IMPLEMENTED &&
                          !strcmp(rd_kafka_error_name(error), "_NOT_IMPLEMENTED"),
                      "its code: %s", rd_kafka_error_name(error));
                CHECK(strstr(rd_kafka_error_string(error), "rd_kafka_init_transactions") != NULL,
                      "its text: \"%s\"", rd_kafka_error_string(error));
                CHECK(!rd_kafka_error_is_fatal(error) && !rd_kafka_error_is_retriable(error),
                      "neither fatal nor retriable");
                rd_kafka_error_destroy(error);
        }

        /* Variadic in C: the stub takes the fixed parameters only. */
        err = rd_kafka_producev(NULL, RD_KAFKA_V_TOPIC("t"), RD_KAFKA_V_VALUE("v", 1),
                                RD_KAFKA_V_KEY("k", 1), RD_KAFKA_V_PARTITION(0), RD_KAFKA_V_END);
        CHECK(err == RD_KAFKA_RESP_ERR__NOT_IMPLEMENTED, "rd_kafka_producev(...) is %s",
              rd_kafka_err2name(err));

        CHECK(rd_kafka_topic_partition_list_new(1) == NULL,
              "rd_kafka_topic_partition_list_new() is NULL");
        CHECK(rd_kafka_poll(NULL, 0) == -1, "rd_kafka_poll() is -1");
        CHECK(rd_kafka_flush(NULL, 0) == RD_KAFKA_RESP_ERR__NOT_IMPLEMENTED, "rd_kafka_flush() is %s",
              rd_kafka_err2name(rd_kafka_flush(NULL, 0)));
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
        if (argc == 2 && !strcmp(argv[1], "stubs"))
                return stubs();
        fprintf(stderr, "usage: %s facts|stubs\n", argv[0]);
        return 2;
}
