/*
 * Configuration and error reporting, no broker needed: gregor_config_set
 * with NULL arguments, unknown keys and bad values (error codes, errstr
 * naming the key), errstr truncation at every small size into buffers of
 * exactly that size (so AddressSanitizer sees any write past them),
 * gregor_config_get (size query, truncation, aliases, defaults, errors),
 * producer/consumer construction errors, and gregor_err_name/gregor_err_str.
 */
#include <limits.h>

#include "check.h"

/* gregor_config_set(conf, key, value) with an errstr of exactly `size`
 * heap bytes; checks the text is `full` cut to fit and NUL-terminated. */
static void check_truncated_set(gregor_config *conf, const char *key, const char *value,
                                int want_rc, const char *full, size_t size) {
    char *buf = malloc(size ? size : 1);
    CHECK(buf != NULL);
    memset(buf, 'X', size ? size : 1);
    CHECK_INT(gregor_config_set(conf, key, value, buf, size), want_rc);
    if (size == 0) {
        CHECK_MSG(buf[0] == 'X', "errstr_size 0: errstr was written");
    } else {
        size_t want_len = strlen(full) < size - 1 ? strlen(full) : size - 1;
        CHECK_MSG(memchr(buf, '\0', size) != NULL, "size %zu: no NUL", size);
        CHECK_INT(strlen(buf), want_len);
        CHECK_MSG(strncmp(buf, full, want_len) == 0, "size %zu: \"%s\" is not a prefix of \"%s\"",
                  size, buf, full);
    }
    free(buf);
}

static void check_errstr_sizes(gregor_config *conf, const char *key, const char *value,
                               int want_rc) {
    char full[1024];
    CHECK_INT(gregor_config_set(conf, key, value, full, sizeof full), want_rc);
    size_t len = strlen(full);
    CHECK(len > 5);
    size_t sizes[] = {0, 1, 2, 5, 16, len - 1, len, len + 1, len + 2};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        check_truncated_set(conf, key, value, want_rc, full, sizes[i]);
    /* NULL errstr, with or without a size: the code alone */
    CHECK_INT(gregor_config_set(conf, key, value, NULL, 0), want_rc);
    CHECK_INT(gregor_config_set(conf, key, value, NULL, 100), want_rc);
}

/* gregor_config_get into a buffer of exactly `size` heap bytes. */
static void check_get(const gregor_config *conf, const char *key, const char *want,
                      size_t size) {
    char *buf = malloc(size ? size : 1);
    CHECK(buf != NULL);
    memset(buf, 'X', size ? size : 1);
    size_t dest_size = size;
    CHECK_INT(gregor_config_get(conf, key, buf, &dest_size), 0);
    CHECK_INT(dest_size, strlen(want) + 1);
    if (size == 0) {
        CHECK(buf[0] == 'X');
    } else {
        size_t n = strlen(want) < size - 1 ? strlen(want) : size - 1;
        CHECK_INT(strlen(buf), n);
        CHECK(strncmp(buf, want, n) == 0);
    }
    free(buf);
}

static void check_get_all_sizes(const gregor_config *conf, const char *key, const char *want) {
    size_t need = 12345;
    /* size query */
    CHECK_INT(gregor_config_get(conf, key, NULL, &need), 0);
    CHECK_INT(need, strlen(want) + 1);
    for (size_t size = 0; size <= need + 1; size++)
        check_get(conf, key, want, size);
}

static void check_err(int code, const char *name) {
    const char *n = gregor_err_name(code);
    CHECK_STR(n, name);
    const char *s = gregor_err_str(code);
    CHECK(s != NULL && s[0] != '\0');
    /* static strings: the same pointer every time */
    CHECK(gregor_err_name(code) == n);
    CHECK(gregor_err_str(code) == s);
}

/* The name of a GREGOR_ERR_* constant is the macro's name without the prefix. */
#define CHECK_ERR_CONST(c) check_err(c, &#c[sizeof "GREGOR_ERR_" - 1])

int main(void) {
    char errstr[512];

    /* version */
    const char *v = gregor_version();
    CHECK(v != NULL && strchr(v, '.') != NULL);

    /* --- gregor_config_set --- */
    gregor_config *conf = gregor_config_new();
    CHECK(conf != NULL);

    CHECK_INT(gregor_config_set(NULL, "client.id", "x", errstr, sizeof errstr),
              GREGOR_ERR__INVALID_ARG);
    CHECK_CONTAINS(errstr, "conf");
    CHECK_INT(gregor_config_set(conf, NULL, "x", errstr, sizeof errstr),
              GREGOR_ERR__INVALID_ARG);
    CHECK_CONTAINS(errstr, "key");
    CHECK_INT(gregor_config_set(conf, "client.id", NULL, errstr, sizeof errstr),
              GREGOR_ERR__INVALID_ARG);
    CHECK_CONTAINS(errstr, "value");
    CHECK_INT(gregor_config_set(conf, "\xff\xfe", "x", errstr, sizeof errstr),
              GREGOR_ERR__INVALID_ARG);
    CHECK_CONTAINS(errstr, "UTF-8");

    /* unknown key: INVALID_CONFIG, errstr names the key */
    CHECK_INT(gregor_config_set(conf, "no.such.property", "1", errstr, sizeof errstr),
              GREGOR_ERR__INVALID_CONFIG);
    CHECK_CONTAINS(errstr, "no.such.property");
    CHECK_INT(gregor_config_set(conf, "bootstrap.server", "h:1", errstr, sizeof errstr),
              GREGOR_ERR__INVALID_CONFIG);
    CHECK_CONTAINS(errstr, "bootstrap.server");

    /* bad values: INVALID_CONFIG naming the key (and the value) */
    struct {
        const char *key, *value;
    } bad[] = {
        {"acks", "maybe"},
        {"socket.timeout.ms", "abc"},
        {"socket.timeout.ms", "-5"},
        {"socket.timeout.ms", "99999999999999999999"},
        {"enable.partition.eof", "perhaps"},
        {"compression.type", "brotli"},
        {"security.protocol", "carrier-pigeon"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        errstr[0] = '\0';
        CHECK_INT(gregor_config_set(conf, bad[i].key, bad[i].value, errstr, sizeof errstr),
                  GREGOR_ERR__INVALID_CONFIG);
        CHECK_CONTAINS(errstr, bad[i].key);
    }
    CHECK_CONTAINS(errstr, "carrier-pigeon");

    /* success clears errstr */
    strcpy(errstr, "stale");
    CHECK_OK(gregor_config_set(conf, "client.id", "c-tests", errstr, sizeof errstr), errstr);
    CHECK_STR(errstr, "");

    /* errstr truncation: unknown key, bad value, NULL argument */
    check_errstr_sizes(conf, "no.such.property.with.a.long.name", "1",
                       GREGOR_ERR__INVALID_CONFIG);
    check_errstr_sizes(conf, "acks", "maybe", GREGOR_ERR__INVALID_CONFIG);
    check_errstr_sizes(NULL, "acks", "1", GREGOR_ERR__INVALID_ARG);
    /* and success at size 1 writes an empty string */
    check_truncated_set(conf, "client.id", "c-tests", 0, "", 1);

    /* --- gregor_config_get --- */
    CHECK_OK(gregor_config_set(conf, "bootstrap.servers", "127.0.0.1:1", errstr,
                               sizeof errstr),
             errstr);
    CHECK_OK(gregor_config_set(conf, "acks", "all", errstr, sizeof errstr), errstr);
    check_get_all_sizes(conf, "client.id", "c-tests");
    check_get_all_sizes(conf, "bootstrap.servers", "127.0.0.1:1");
    check_get_all_sizes(conf, "metadata.broker.list", "127.0.0.1:1"); /* an alias */
    check_get_all_sizes(conf, "acks", "-1");                          /* normalized */
    check_get_all_sizes(conf, "socket.timeout.ms", "60000");          /* a default */
    check_get_all_sizes(conf, "group.id", "");                        /* empty */

    char dest[64] = "untouched";
    size_t dest_size = sizeof dest;
    CHECK_INT(gregor_config_get(conf, "no.such.property", dest, &dest_size),
              GREGOR_ERR__INVALID_CONFIG);
    CHECK_INT(dest_size, sizeof dest); /* out-parameters written only on success */
    CHECK_STR(dest, "untouched");
    CHECK_INT(gregor_config_get(NULL, "client.id", dest, &dest_size), GREGOR_ERR__INVALID_ARG);
    CHECK_INT(gregor_config_get(conf, NULL, dest, &dest_size), GREGOR_ERR__INVALID_ARG);
    CHECK_INT(gregor_config_get(conf, "client.id", dest, NULL), GREGOR_ERR__INVALID_ARG);
    CHECK_INT(gregor_config_get(conf, "client.id", NULL, NULL), GREGOR_ERR__INVALID_ARG);
    CHECK_INT(dest_size, sizeof dest);
    CHECK_STR(dest, "untouched");

    /* --- construction errors --- */
    CHECK(gregor_producer_new(NULL, errstr, sizeof errstr) == NULL);
    CHECK_CONTAINS(errstr, "conf");
    CHECK(gregor_consumer_new(NULL, errstr, sizeof errstr) == NULL);
    CHECK_CONTAINS(errstr, "conf");
    CHECK(gregor_producer_new(NULL, NULL, 0) == NULL);

    /* a producer property on a consumer, and the other way round: a
     * warning, as librdkafka, and the client is made (test_config_dump) */
    gregor_consumer *wc = gregor_consumer_new(conf, errstr, sizeof errstr);
    CHECK_MSG(wc != NULL, "%s", errstr);
    gregor_consumer_free(wc);
    /* a construction error names the property, truncated to the buffer */
    gregor_config *cconf = gregor_config_new();
    CHECK_OK(gregor_config_set(cconf, "bootstrap.servers", "127.0.0.1:notaport", errstr,
                               sizeof errstr),
             errstr);
    CHECK(gregor_producer_new(cconf, errstr, sizeof errstr) == NULL);
    CHECK_CONTAINS(errstr, "bootstrap.servers");
    char tiny[5];
    CHECK(gregor_producer_new(cconf, tiny, sizeof tiny) == NULL);
    CHECK_INT(strlen(tiny), 4);
    gregor_config_free(cconf);

    /* the producer copies conf: freeing conf first is fine */
    gregor_producer *p = gregor_producer_new(conf, errstr, sizeof errstr);
    CHECK_MSG(p != NULL, "%s", errstr);
    CHECK_STR(errstr, "");
    gregor_config_free(conf);
    gregor_producer_free(p);

    /* --- TLS and SASL configuration through the C API --- */
    {
        gregor_config *tc = gregor_config_new();
        CHECK_OK(gregor_config_set(tc, "bootstrap.servers", "127.0.0.1:1", errstr, sizeof errstr),
                 errstr);
        CHECK_INT(gregor_config_set(tc, "security.protocol", "tls", errstr, sizeof errstr),
                  GREGOR_ERR__INVALID_CONFIG);
        CHECK_CONTAINS(errstr, "security.protocol");
        CHECK_OK(gregor_config_set(tc, "security.protocol", "SSL", errstr, sizeof errstr), errstr);
        CHECK_OK(gregor_config_set(tc, "ssl.ca.location", "/nonexistent/ca.pem", errstr,
                                   sizeof errstr),
                 errstr);
        CHECK(gregor_producer_new(tc, errstr, sizeof errstr) == NULL);
        CHECK_CONTAINS(errstr, "ssl.ca.location");
        const char *certs = getenv("GREGOR_TEST_CERTS");
        if (certs) {
            char ca[1024];
            snprintf(ca, sizeof ca, "%s/ca.pem", certs);
            CHECK_OK(gregor_config_set(tc, "ssl.ca.location", ca, errstr, sizeof errstr), errstr);
            gregor_producer *tp = gregor_producer_new(tc, errstr, sizeof errstr);
            CHECK_MSG(tp != NULL, "%s", errstr);
            gregor_producer_free(tp);
        }
        CHECK_OK(gregor_config_set(tc, "security.protocol", "sasl_plaintext", errstr, sizeof errstr),
                 errstr);
        CHECK_OK(gregor_config_set(tc, "sasl.mechanism", "SCRAM-SHA-512", errstr, sizeof errstr),
                 errstr);
        CHECK(gregor_producer_new(tc, errstr, sizeof errstr) == NULL);
        CHECK_CONTAINS(errstr, "sasl.username");
        gregor_config_free(tc);
    }

    /* --- error names and descriptions --- */
    check_err(0, "NO_ERROR");
    check_err(3, "UNKNOWN_TOPIC_OR_PARTITION");
    check_err(-185, "_TIMED_OUT");
    CHECK_STR(gregor_err_str(-185), "Local: Timed out");
    check_err(-1, "UNKNOWN_SERVER_ERROR");
    CHECK_ERR_CONST(GREGOR_ERR_NO_ERROR);
    CHECK_ERR_CONST(GREGOR_ERR__BAD_MSG);
    CHECK_ERR_CONST(GREGOR_ERR__TRANSPORT);
    CHECK_ERR_CONST(GREGOR_ERR__MSG_TIMED_OUT);
    CHECK_ERR_CONST(GREGOR_ERR__PARTITION_EOF);
    CHECK_ERR_CONST(GREGOR_ERR__UNKNOWN_PARTITION);
    CHECK_ERR_CONST(GREGOR_ERR__ALL_BROKERS_DOWN);
    CHECK_ERR_CONST(GREGOR_ERR__INVALID_ARG);
    CHECK_ERR_CONST(GREGOR_ERR__TIMED_OUT);
    CHECK_ERR_CONST(GREGOR_ERR__INVALID_CONFIG);
    CHECK_ERR_CONST(GREGOR_ERR__SSL);
    CHECK_ERR_CONST(GREGOR_ERR__AUTHENTICATION);
    CHECK_STR(gregor_err_str(GREGOR_ERR__SSL), "Local: SSL error");
    CHECK_ERR_CONST(GREGOR_ERR__AUTO_OFFSET_RESET);
    CHECK_ERR_CONST(GREGOR_ERR_UNKNOWN_SERVER_ERROR);
    CHECK_ERR_CONST(GREGOR_ERR_OFFSET_OUT_OF_RANGE);
    CHECK_ERR_CONST(GREGOR_ERR_UNKNOWN_TOPIC_OR_PARTITION);
    CHECK_ERR_CONST(GREGOR_ERR_NOT_LEADER_OR_FOLLOWER);
    CHECK_ERR_CONST(GREGOR_ERR_TOPIC_AUTHORIZATION_FAILED);
    CHECK_ERR_CONST(GREGOR_ERR_UNKNOWN_TOPIC_ID);
    CHECK_ERR_CONST(GREGOR_ERR_SHARE_SESSION_LIMIT_REACHED);
    /* codes gregor does not know */
    int unknown[] = {12345, -12345, 134, -2, -200, -139, INT_MAX, INT_MIN};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        CHECK_STR(gregor_err_name(unknown[i]), "UNKNOWN");
        CHECK_STR(gregor_err_str(unknown[i]), "Unknown error");
    }
    /* every code in the local and broker ranges has a name and a description */
    for (int code = -300; code <= 300; code++) {
        CHECK(gregor_err_name(code) != NULL && gregor_err_name(code)[0] != '\0');
        CHECK(gregor_err_str(code) != NULL && gregor_err_str(code)[0] != '\0');
    }

    printf("config: errors, errstr truncation, config_get and error names checked\n");
    return 0;
}
