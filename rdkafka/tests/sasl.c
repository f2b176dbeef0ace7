/*
 * sasl.c: SASL at run time through librdkafka's API, the same on gregor's
 * librdkafka.so.1 as on the real one: rd_kafka_oauthbearer_set_token and
 * _set_token_failure (their checks and error codes, from inside the
 * token refresh callback that rd_kafka_poll serves), the callback's
 * sasl.oauthbearer.config, rd_kafka_sasl_background_callbacks_enable
 * with and without the SASL queue (with it, the callback runs without a
 * poll), and rd_kafka_sasl_set_credentials. Needs no broker: the
 * bootstrap address is closed, nothing here depends on connecting.
 * Prints lines without times, so both libraries' outputs compare with diff.
 *
 * Usage: sasl
 */
#define _DEFAULT_SOURCE /* usleep, gettimeofday */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include <librdkafka/rdkafka.h>

static volatile int calls;

/* The refresh callback's lines. A callback served in the background runs
 * on another thread while the main thread prints: from then on the lines
 * of any thread but the main one are kept here and printed by the main
 * thread once the callback is done (cb_done), so the output's order does
 * not depend on the threads' timing. */
static int defer_cb;
static pthread_t main_thread;
static char cb_lines[4096];
static size_t cb_len;
static int cb_done;

static void emit(const char *line) {
        if (!__atomic_load_n(&defer_cb, __ATOMIC_ACQUIRE) ||
            pthread_equal(pthread_self(), main_thread)) {
                fputs(line, stdout);
                return;
        }
        int n = snprintf(cb_lines + cb_len, sizeof cb_lines - cb_len, "%s", line);
        if (n > 0 && (size_t)n < sizeof cb_lines - cb_len)
                cb_len += (size_t)n;
}

static int64_t wall_ms(void) {
        struct timeval tv;
        gettimeofday(&tv, NULL);
        return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

/* A result: its code's name and the reason up to any time in it. */
static void show(const char *what, rd_kafka_resp_err_t err, const char *errstr) {
        char text[512];
        snprintf(text, sizeof text, "%s", errstr ? errstr : "");
        char *t = strstr(text, "now=");
        if (t)
                *t = '\0';
        char line[700];
        snprintf(line, sizeof line, "%s: %s%s%s\n", what, rd_kafka_err2name(err),
                 *text ? ": " : "", text);
        emit(line);
}

static void show_error(const char *what, rd_kafka_error_t *e) {
        if (!e) {
                printf("%s: no error\n", what);
                return;
        }
        show(what, rd_kafka_error_code(e), rd_kafka_error_string(e));
        rd_kafka_error_destroy(e);
}

static void refresh_cb(rd_kafka_t *rk, const char *config, void *opaque) {
        char errstr[512];
        const char *odd[]      = {"a"};
        const char *reserved[] = {"auth", "x"};
        const char *bad_key[]  = {"k-1", "v"};
        const char *ok_ext[]   = {"traceid", "abc"};
        (void)opaque;
        if (calls++)
                return;
        char line[600];
        snprintf(line, sizeof line, "refresh callback: config \"%s\"\n",
                 config ? config : "(null)");
        emit(line);
        errstr[0] = '\0';
        show("set_token odd extension count",
             rd_kafka_oauthbearer_set_token(rk, "tok", wall_ms() + 60000, "p", odd, 1, errstr,
                                            sizeof errstr),
             errstr);
        errstr[0] = '\0';
        show("set_token expired",
             rd_kafka_oauthbearer_set_token(rk, "tok", wall_ms() - 1000, "p", NULL, 0, errstr,
                                            sizeof errstr),
             errstr);
        errstr[0] = '\0';
        show("set_token reserved key",
             rd_kafka_oauthbearer_set_token(rk, "tok", wall_ms() + 60000, "p", reserved, 2, errstr,
                                            sizeof errstr) != 0 ? RD_KAFKA_RESP_ERR__INVALID_ARG
                                                                : RD_KAFKA_RESP_ERR_NO_ERROR,
             NULL);
        errstr[0] = '\0';
        show("set_token bad key",
             rd_kafka_oauthbearer_set_token(rk, "tok", wall_ms() + 60000, "p", bad_key, 2, errstr,
                                            sizeof errstr) != 0 ? RD_KAFKA_RESP_ERR__INVALID_ARG
                                                                : RD_KAFKA_RESP_ERR_NO_ERROR,
             NULL);
        errstr[0] = '\0';
        show("set_token good",
             rd_kafka_oauthbearer_set_token(rk, "tok", wall_ms() + 60000, "p", ok_ext, 2, errstr,
                                            sizeof errstr),
             errstr);
        __atomic_store_n(&cb_done, 1, __ATOMIC_RELEASE);
}

static rd_kafka_t *client(int oauthbearer, int sasl_queue) {
        char errstr[512];
        rd_kafka_conf_t *conf = rd_kafka_conf_new();
        rd_kafka_conf_set(conf, "bootstrap.servers", "127.0.0.1:1", errstr, sizeof errstr);
        rd_kafka_conf_set(conf, "log_level", "0", errstr, sizeof errstr);
        if (oauthbearer) {
                rd_kafka_conf_set(conf, "security.protocol", "SASL_PLAINTEXT", errstr,
                                  sizeof errstr);
                rd_kafka_conf_set(conf, "sasl.mechanism", "OAUTHBEARER", errstr, sizeof errstr);
                rd_kafka_conf_set(conf, "sasl.oauthbearer.config", "principal=admin scope=x",
                                  errstr, sizeof errstr);
                rd_kafka_conf_set_oauthbearer_token_refresh_cb(conf, refresh_cb);
                if (sasl_queue)
                        rd_kafka_conf_enable_sasl_queue(conf, 1);
        }
        rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof errstr);
        if (!rk) {
                printf("rd_kafka_new failed: %s\n", errstr);
                return NULL;
        }
        return rk;
}

int main(void) {
        char errstr[512];
        const char *ext[] = {"k", "v"};

        printf("== PLAINTEXT producer\n");
        rd_kafka_t *rk = client(0, 0);
        if (!rk)
                return 1;
        errstr[0] = '\0';
        show("set_token", rd_kafka_oauthbearer_set_token(rk, "tok", wall_ms() + 60000, "p", ext, 2,
                                                         errstr, sizeof errstr),
             errstr);
        show("set_token_failure", rd_kafka_oauthbearer_set_token_failure(rk, "why"), NULL);
        show_error("background callbacks", rd_kafka_sasl_background_callbacks_enable(rk));
        show_error("set_credentials", rd_kafka_sasl_set_credentials(rk, "user", "pass"));
        show_error("set_credentials NULL password", rd_kafka_sasl_set_credentials(rk, "user", NULL));
        rd_kafka_destroy(rk);

        printf("== OAUTHBEARER producer, callback from rd_kafka_poll\n");
        calls = 0;
        rk    = client(1, 0);
        if (!rk)
                return 1;
        for (int i = 0; i < 50 && !calls; i++)
                rd_kafka_poll(rk, 100);
        printf("callback ran: %s\n", calls ? "yes" : "no");
        show("set_token_failure NULL", rd_kafka_oauthbearer_set_token_failure(rk, NULL), NULL);
        show("set_token_failure empty", rd_kafka_oauthbearer_set_token_failure(rk, ""), NULL);
        show_error("background callbacks without the SASL queue",
                   rd_kafka_sasl_background_callbacks_enable(rk));
        rd_kafka_destroy(rk);

        printf("== OAUTHBEARER producer, SASL queue, background callbacks\n");
        calls = 0;
        rk    = client(1, 1);
        if (!rk)
                return 1;
        main_thread = pthread_self();
        cb_len = 0;
        __atomic_store_n(&cb_done, 0, __ATOMIC_RELEASE);
        __atomic_store_n(&defer_cb, 1, __ATOMIC_RELEASE);
        show_error("background callbacks", rd_kafka_sasl_background_callbacks_enable(rk));
        for (int i = 0; i < 50 && !__atomic_load_n(&cb_done, __ATOMIC_ACQUIRE); i++)
                usleep(100 * 1000);
        int done = __atomic_load_n(&cb_done, __ATOMIC_ACQUIRE);
        if (done)
                fputs(cb_lines, stdout);
        printf("callback ran without a poll: %s\n", done ? "yes" : "no");
        rd_kafka_destroy(rk);
        return 0;
}
