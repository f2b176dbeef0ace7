/* gregor-mock-cluster: an N-broker Kafka cluster for failover tests, the mock
 * cluster librdkafka ships (rdkafka_mock.h), driven over stdin.
 *
 *   gregor-mock-cluster [BROKERS]        (default 3)
 *
 * The first line on stdout is the bootstrap list (host:port,...). Then each
 * line read on stdin is one command, answered by one line: "ok", "ok VALUE"
 * or "error: WHY" (a dump answers several "request ..." lines, then "ok").
 * EOF or "quit" ends the cluster.
 *
 *   topic NAME PARTITIONS REPLICATION   create a topic
 *   leader TOPIC PART BROKER            move a partition's leader (-1: none)
 *   follower TOPIC PART BROKER          the preferred read replica the leader
 *                                       names to consumers (KIP-392; -1: none)
 *   follower_wmarks TOPIC PART LO HI    the follower's watermarks (-1: leader's)
 *   down BROKER / up BROKER             a broker stops / starts answering
 *   rtt BROKER MS                       delay every response of a broker
 *   rack BROKER RACK                    a broker's rack (KIP-392)
 *   err APIKEY CODE [COUNT]             the next COUNT requests of APIKEY to
 *                                       any broker fail with CODE (default 1)
 *   berr BROKER APIKEY CODE COUNT [MS]  the same on one broker, each answered
 *                                       after MS (CODE 0 with MS: a delay only)
 *   clearerr APIKEY                     drop queued cluster-wide errors
 *   topicerr TOPIC CODE                 Metadata reports CODE for TOPIC
 *   coord group|txn KEY BROKER          place a group/transaction coordinator
 *   apiversion APIKEY MIN MAX           the version range brokers advertise
 *   rebalance_delay MS                  group.initial.rebalance.delay.ms
 *   consumer_group HB_MS SESSION_MS     heartbeat interval and session timeout
 *                                       of KIP-848 consumer groups
 *   track start|stop|clear|dump         request tracking; dump answers one
 *                                       "request BROKER APIKEY TIME_US" line
 *                                       per request since start or clear
 *   track versions                      one "version BROKER NAME VERSION" line
 *                                       per request since start or clear, in
 *                                       order (NAME as librdkafka names the
 *                                       API: Produce, ApiVersion, ...); read
 *                                       from the mock's debug log, which the
 *                                       driver always enables for this
 *   quit
 *
 * At start the versions the mock advertises but does not parse (the
 * flexible, compact-array versions of JoinGroup v6, SyncGroup v4 and
 * LeaveGroup v3+) are capped: JoinGroup 0-5, SyncGroup 0-3, LeaveGroup 0-2.
 * Built by scripts/mock-cluster.sh.
 */
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXARGS 8

static rd_kafka_mock_cluster_t *mc;

/* Request versions, from the mock's "Received XRequestVn" debug lines. */
static pthread_mutex_t vlock = PTHREAD_MUTEX_INITIALIZER;
static char **vlines;
static size_t vcnt, vcap;
static int vtrack, show_debug;

static void vclear(void) {
    for (size_t i = 0; i < vcnt; i++) free(vlines[i]);
    vcnt = 0;
}

static void log_cb(const rd_kafka_t *rk, int level, const char *fac, const char *buf) {
    const char *b = strstr(buf, "Broker ");
    const char *r = b ? strstr(b, ": Received ") : NULL;
    const char *v = r ? strstr(r, "RequestV") : NULL;
    (void)rk;
    if (v) {
        int broker = atoi(b + 7), version = atoi(v + 8);
        const char *name = r + 11;
        char line[128];
        snprintf(line, sizeof line, "version %d %.*s %d", broker, (int)(v - name), name, version);
        pthread_mutex_lock(&vlock);
        if (vtrack) {
            if (vcnt == vcap) {
                vcap = vcap ? vcap * 2 : 1024;
                vlines = realloc(vlines, vcap * sizeof *vlines);
            }
            vlines[vcnt++] = strdup(line);
        }
        pthread_mutex_unlock(&vlock);
        if (!show_debug) return;
    }
    if (show_debug || level <= 4) fprintf(stderr, "%%%d|%s| %s\n", level, fac, buf);
}

static int answer(rd_kafka_resp_err_t err) {
    if (err)
        printf("error: %s\n", rd_kafka_err2name(err));
    else
        printf("ok\n");
    return 0;
}

static int usage(const char *what) {
    printf("error: usage: %s\n", what);
    return 0;
}

static int command(int argc, char **argv) {
    const char *c = argv[0];
    if (!strcmp(c, "topic")) {
        if (argc != 4) return usage("topic NAME PARTITIONS REPLICATION");
        return answer(rd_kafka_mock_topic_create(mc, argv[1], atoi(argv[2]), atoi(argv[3])));
    }
    if (!strcmp(c, "leader")) {
        if (argc != 4) return usage("leader TOPIC PART BROKER");
        return answer(rd_kafka_mock_partition_set_leader(mc, argv[1], atoi(argv[2]), atoi(argv[3])));
    }
    if (!strcmp(c, "follower")) {
        if (argc != 4) return usage("follower TOPIC PART BROKER");
        return answer(
            rd_kafka_mock_partition_set_follower(mc, argv[1], atoi(argv[2]), atoi(argv[3])));
    }
    if (!strcmp(c, "follower_wmarks")) {
        if (argc != 5) return usage("follower_wmarks TOPIC PART LO HI");
        return answer(rd_kafka_mock_partition_set_follower_wmarks(
            mc, argv[1], atoi(argv[2]), atoll(argv[3]), atoll(argv[4])));
    }
    if (!strcmp(c, "down")) {
        if (argc != 2) return usage("down BROKER");
        return answer(rd_kafka_mock_broker_set_down(mc, atoi(argv[1])));
    }
    if (!strcmp(c, "up")) {
        if (argc != 2) return usage("up BROKER");
        return answer(rd_kafka_mock_broker_set_up(mc, atoi(argv[1])));
    }
    if (!strcmp(c, "rtt")) {
        if (argc != 3) return usage("rtt BROKER MS");
        return answer(rd_kafka_mock_broker_set_rtt(mc, atoi(argv[1]), atoi(argv[2])));
    }
    if (!strcmp(c, "rack")) {
        if (argc != 3) return usage("rack BROKER RACK");
        return answer(rd_kafka_mock_broker_set_rack(mc, atoi(argv[1]), argv[2]));
    }
    if (!strcmp(c, "err")) {
        if (argc != 3 && argc != 4) return usage("err APIKEY CODE [COUNT]");
        size_t n = argc == 4 ? (size_t)atol(argv[3]) : 1;
        rd_kafka_resp_err_t *errs = calloc(n ? n : 1, sizeof *errs);
        for (size_t i = 0; i < n; i++) errs[i] = (rd_kafka_resp_err_t)atoi(argv[2]);
        rd_kafka_mock_push_request_errors_array(mc, (int16_t)atoi(argv[1]), n, errs);
        free(errs);
        return answer(RD_KAFKA_RESP_ERR_NO_ERROR);
    }
    if (!strcmp(c, "berr")) {
        if (argc != 5 && argc != 6) return usage("berr BROKER APIKEY CODE COUNT [MS]");
        long n = atol(argv[4]);
        int rtt = argc == 6 ? atoi(argv[5]) : 0;
        for (long i = 0; i < n; i++) {
            rd_kafka_resp_err_t e = rd_kafka_mock_broker_push_request_error_rtts(
                mc, atoi(argv[1]), (int16_t)atoi(argv[2]), 1, (rd_kafka_resp_err_t)atoi(argv[3]), rtt);
            if (e) return answer(e);
        }
        return answer(RD_KAFKA_RESP_ERR_NO_ERROR);
    }
    if (!strcmp(c, "clearerr")) {
        if (argc != 2) return usage("clearerr APIKEY");
        rd_kafka_mock_clear_request_errors(mc, (int16_t)atoi(argv[1]));
        return answer(RD_KAFKA_RESP_ERR_NO_ERROR);
    }
    if (!strcmp(c, "topicerr")) {
        if (argc != 3) return usage("topicerr TOPIC CODE");
        rd_kafka_mock_topic_set_error(mc, argv[1], (rd_kafka_resp_err_t)atoi(argv[2]));
        return answer(RD_KAFKA_RESP_ERR_NO_ERROR);
    }
    if (!strcmp(c, "coord")) {
        if (argc != 4 || (strcmp(argv[1], "group") && strcmp(argv[1], "txn")))
            return usage("coord group|txn KEY BROKER");
        /* the mock names the transaction coordinator's kind "transaction" */
        return answer(rd_kafka_mock_coordinator_set(
            mc, strcmp(argv[1], "txn") ? argv[1] : "transaction", argv[2], atoi(argv[3])));
    }
    if (!strcmp(c, "apiversion")) {
        if (argc != 4) return usage("apiversion APIKEY MIN MAX");
        return answer(rd_kafka_mock_set_apiversion(mc, (int16_t)atoi(argv[1]), (int16_t)atoi(argv[2]),
                                                   (int16_t)atoi(argv[3])));
    }
    if (!strcmp(c, "consumer_group")) {
        if (argc != 3) return usage("consumer_group HB_MS SESSION_MS");
        rd_kafka_mock_set_group_consumer_heartbeat_interval_ms(mc, atoi(argv[1]));
        rd_kafka_mock_set_group_consumer_session_timeout_ms(mc, atoi(argv[2]));
        return answer(RD_KAFKA_RESP_ERR_NO_ERROR);
    }
    if (!strcmp(c, "rebalance_delay")) {
        if (argc != 2) return usage("rebalance_delay MS");
        rd_kafka_mock_group_initial_rebalance_delay_ms(mc, atoi(argv[1]));
        return answer(RD_KAFKA_RESP_ERR_NO_ERROR);
    }
    if (!strcmp(c, "track")) {
        if (argc != 2) return usage("track start|stop|clear|dump|versions");
        if (!strcmp(argv[1], "start")) {
            pthread_mutex_lock(&vlock);
            vtrack = 1;
            pthread_mutex_unlock(&vlock);
            rd_kafka_mock_start_request_tracking(mc);
        } else if (!strcmp(argv[1], "stop")) {
            pthread_mutex_lock(&vlock);
            vtrack = 0;
            pthread_mutex_unlock(&vlock);
            rd_kafka_mock_stop_request_tracking(mc);
        } else if (!strcmp(argv[1], "clear")) {
            pthread_mutex_lock(&vlock);
            vclear();
            pthread_mutex_unlock(&vlock);
            rd_kafka_mock_clear_requests(mc);
        } else if (!strcmp(argv[1], "versions")) {
            pthread_mutex_lock(&vlock);
            for (size_t i = 0; i < vcnt; i++) printf("%s\n", vlines[i]);
            pthread_mutex_unlock(&vlock);
        } else if (!strcmp(argv[1], "dump")) {
            size_t n = 0;
            rd_kafka_mock_request_t **reqs = rd_kafka_mock_get_requests(mc, &n);
            for (size_t i = 0; i < n; i++)
                printf("request %d %d %lld\n", (int)rd_kafka_mock_request_id(reqs[i]),
                       (int)rd_kafka_mock_request_api_key(reqs[i]),
                       (long long)rd_kafka_mock_request_timestamp(reqs[i]));
            rd_kafka_mock_request_destroy_array(reqs, n);
        } else
            return usage("track start|stop|clear|dump|versions");
        return answer(RD_KAFKA_RESP_ERR_NO_ERROR);
    }
    printf("error: unknown command %s\n", c);
    return 0;
}

int main(int argc, char **argv) {
    char err[512];
    int brokers = argc > 1 ? atoi(argv[1]) : 3;
    setvbuf(stdout, NULL, _IOLBF, 0);
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    /* The mock's debug log names each request's version (track versions);
     * it reaches stderr only with GREGOR_MOCK_DEBUG=mock (or all, ...). */
    const char *debug = getenv("GREGOR_MOCK_DEBUG");
    char dbg[256];
    show_debug = debug && *debug;
    snprintf(dbg, sizeof dbg, "mock%s%s", show_debug ? "," : "", show_debug ? debug : "");
    rd_kafka_conf_set_log_cb(conf, log_cb);
    if (rd_kafka_conf_set(conf, "debug", dbg, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    if (!rk) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    mc = rd_kafka_mock_cluster_new(rk, brokers);
    if (!mc) {
        fprintf(stderr, "rd_kafka_mock_cluster_new failed\n");
        return 1;
    }
    /* The versions the mock advertises but misreads (see above). */
    rd_kafka_mock_set_apiversion(mc, 11, 0, 5); /* JoinGroup */
    rd_kafka_mock_set_apiversion(mc, 14, 0, 3); /* SyncGroup */
    rd_kafka_mock_set_apiversion(mc, 13, 0, 2); /* LeaveGroup */
    printf("%s\n", rd_kafka_mock_cluster_bootstraps(mc));

    char line[4096];
    while (fgets(line, sizeof line, stdin)) {
        char *args[MAXARGS];
        int n = 0;
        for (char *t = strtok(line, " \t\r\n"); t && n < MAXARGS; t = strtok(NULL, " \t\r\n"))
            args[n++] = t;
        if (n == 0) continue;
        if (!strcmp(args[0], "quit")) break;
        command(n, args);
    }
    rd_kafka_mock_cluster_destroy(mc);
    rd_kafka_destroy(rk);
    return 0;
}
