/*
 * A tiny test harness for gregor's C tests: CHECK macros that print
 * file:line and what failed, then exit non-zero; plus the broker address,
 * unique topic names and a monotonic clock. Header-only; every helper is
 * static and marked unused so -Wall -Wextra -Werror accepts tests that
 * use only some of them.
 */
#ifndef GREGOR_CHECK_H
#define GREGOR_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gregor.h"

#define CHECK_UNUSED __attribute__((unused))

#define FAIL_AT(...)                                                          \
    do {                                                                      \
        fprintf(stderr, "%s:%d: FAILED: ", __FILE__, __LINE__);               \
        fprintf(stderr, __VA_ARGS__);                                         \
        fputc('\n', stderr);                                                  \
        exit(1);                                                              \
    } while (0)

/* CHECK(cond): fails with the condition's text. */
#define CHECK(cond)                                                           \
    do {                                                                      \
        if (!(cond))                                                          \
            FAIL_AT("%s", #cond);                                             \
    } while (0)

/* CHECK_MSG(cond, fmt, ...): fails with the condition and a message. */
#define CHECK_MSG(cond, ...)                                                  \
    do {                                                                      \
        if (!(cond)) {                                                        \
            fprintf(stderr, "%s:%d: FAILED: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                     \
            fputc('\n', stderr);                                              \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

/* CHECK_INT(a, b): two integers are equal (compared as int64_t). */
#define CHECK_INT(a, b)                                                       \
    do {                                                                      \
        int64_t check_a_ = (int64_t)(a), check_b_ = (int64_t)(b);             \
        if (check_a_ != check_b_)                                             \
            FAIL_AT("%s == %s: %" PRId64 " != %" PRId64, #a, #b, check_a_,    \
                    check_b_);                                                \
    } while (0)

/* CHECK_STR(a, b): two C strings are equal (neither NULL). */
#define CHECK_STR(a, b)                                                       \
    do {                                                                      \
        const char *check_a_ = (a), *check_b_ = (b);                          \
        if (!check_a_ || !check_b_ || strcmp(check_a_, check_b_) != 0)        \
            FAIL_AT("%s == %s: \"%s\" != \"%s\"", #a, #b,                     \
                    check_a_ ? check_a_ : "(NULL)",                           \
                    check_b_ ? check_b_ : "(NULL)");                          \
    } while (0)

/* CHECK_CONTAINS(hay, needle): `hay` is non-NULL and contains `needle`. */
#define CHECK_CONTAINS(hay, needle)                                           \
    do {                                                                      \
        const char *check_h_ = (hay), *check_n_ = (needle);                   \
        if (!check_h_ || !strstr(check_h_, check_n_))                         \
            FAIL_AT("\"%s\" contains \"%s\"",                                 \
                    check_h_ ? check_h_ : "(NULL)", check_n_);                \
    } while (0)

/* CHECK_OK(expr): a gregor call returned 0; on failure prints errstr too. */
#define CHECK_OK(expr, errstr)                                                \
    do {                                                                      \
        int check_rc_ = (expr);                                               \
        if (check_rc_ != 0)                                                   \
            FAIL_AT("%s returned %d (%s): %s", #expr, check_rc_,              \
                    gregor_err_name(check_rc_), (errstr));                    \
    } while (0)

/* The broker under test: $GREGOR_TEST_BROKER or 127.0.0.1:9092. */
static CHECK_UNUSED const char *test_broker(void) {
    const char *b = getenv("GREGOR_TEST_BROKER");
    return b && *b ? b : "127.0.0.1:9092";
}

/* Writes a topic name no other test or earlier run uses into buf. */
static CHECK_UNUSED void unique_topic(char *buf, size_t size, const char *prefix) {
    struct timespec ts;
    static int n;
    clock_gettime(CLOCK_REALTIME, &ts);
    snprintf(buf, size, "c-%s-%ld-%lld%09ld-%d", prefix, (long)getpid(),
             (long long)ts.tv_sec, ts.tv_nsec, n++);
}

/* Milliseconds on the monotonic clock. */
static CHECK_UNUSED int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * A configuration with bootstrap.servers set to the test broker and then
 * each (key, value) of the NULL-terminated list `pairs`. Caller frees it.
 */
static CHECK_UNUSED gregor_config *test_config(const char *const *pairs) {
    char errstr[512];
    gregor_config *conf = gregor_config_new();
    CHECK(conf != NULL);
    CHECK_OK(gregor_config_set(conf, "bootstrap.servers", test_broker(), errstr,
                               sizeof errstr),
             errstr);
    for (; pairs && pairs[0]; pairs += 2)
        CHECK_OK(gregor_config_set(conf, pairs[0], pairs[1], errstr, sizeof errstr),
                 errstr);
    return conf;
}

/* A producer (or consumer) for the test broker with extra properties. */
static CHECK_UNUSED gregor_producer *test_producer(const char *const *pairs) {
    char errstr[512];
    gregor_config *conf = test_config(pairs);
    gregor_producer *p = gregor_producer_new(conf, errstr, sizeof errstr);
    CHECK_MSG(p != NULL, "%s", errstr);
    gregor_config_free(conf);
    return p;
}

static CHECK_UNUSED gregor_consumer *test_consumer(const char *const *pairs) {
    char errstr[512];
    gregor_config *conf = test_config(pairs);
    gregor_consumer *c = gregor_consumer_new(conf, errstr, sizeof errstr);
    CHECK_MSG(c != NULL, "%s", errstr);
    gregor_config_free(conf);
    return c;
}

#endif /* GREGOR_CHECK_H */
