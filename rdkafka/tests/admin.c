/*
 * The admin calls librdkafka's test harness uses, against a broker:
 * queues, result events, AdminOptions, NewTopic / DeleteTopic /
 * NewPartitions, CreateTopics, DeleteTopics, CreatePartitions. Compiled
 * against librdkafka's own rdkafka.h and linked with either library, it
 * must print the same lines (scripts/rdkafka-abi-check.sh compares them).
 *
 * Usage: admin <bootstrap.servers> <topic prefix>
 * Topic names are printed with the prefix as "$P", so runs with different
 * prefixes print the same.
 */
#define _DEFAULT_SOURCE /* usleep */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <librdkafka/rdkafka.h>

static const char *prefix;

/* Prints `s` with every occurrence of the topic prefix as "$P". */
static void print_sub(const char *s) {
        size_t n = strlen(prefix);
        const char *p;
        if (!s) {
                printf("(null)");
                return;
        }
        while ((p = strstr(s, prefix))) {
                printf("%.*s$P", (int)(p - s), s);
                s = p + n;
        }
        printf("%s", s);
}

static void print_err(const char *what, rd_kafka_resp_err_t err, const char *errstr) {
        printf("%s: %s \"", what, rd_kafka_err2name(err));
        print_sub(errstr);
        printf("\"\n");
}

/* Waits for the result event of `type` and prints it. */
static void result(rd_kafka_queue_t *q, rd_kafka_event_type_t type, void *opaque) {
        rd_kafka_event_t *ev = rd_kafka_queue_poll(q, 60 * 1000);
        const rd_kafka_topic_result_t **topics = NULL;
        size_t cnt = 0, i;

        if (!ev) {
                printf("no result\n");
                return;
        }
        printf("event %s type-ok %d error %s opaque-ok %d\n", rd_kafka_event_name(ev),
               rd_kafka_event_type(ev) == type, rd_kafka_err2name(rd_kafka_event_error(ev)),
               rd_kafka_event_opaque(ev) == opaque);
        /* the request's error text is each library's own */
        if (rd_kafka_event_error(ev))
                printf("  request error with a text: %d\n",
                       strlen(rd_kafka_event_error_string(ev)) > 0);
        printf("  as CreateTopics %d DeleteTopics %d CreatePartitions %d\n",
               rd_kafka_event_CreateTopics_result(ev) != NULL,
               rd_kafka_event_DeleteTopics_result(ev) != NULL,
               rd_kafka_event_CreatePartitions_result(ev) != NULL);
        if (type == RD_KAFKA_EVENT_CREATETOPICS_RESULT)
                topics = rd_kafka_CreateTopics_result_topics(
                    rd_kafka_event_CreateTopics_result(ev), &cnt);
        else if (type == RD_KAFKA_EVENT_DELETETOPICS_RESULT)
                topics = rd_kafka_DeleteTopics_result_topics(
                    rd_kafka_event_DeleteTopics_result(ev), &cnt);
        else
                topics = rd_kafka_CreatePartitions_result_topics(
                    rd_kafka_event_CreatePartitions_result(ev), &cnt);
        printf("  %zu topic(s)\n", cnt);
        for (i = 0; i < cnt; i++) {
                printf("  topic ");
                print_sub(rd_kafka_topic_result_name(topics[i]));
                printf(" %s \"", rd_kafka_err2name(rd_kafka_topic_result_error(topics[i])));
                print_sub(rd_kafka_topic_result_error_string(topics[i]));
                printf("\"\n");
        }
        rd_kafka_event_destroy(ev);
}

static rd_kafka_AdminOptions_t *options(rd_kafka_t *rk, rd_kafka_admin_op_t op, void *opaque) {
        char errstr[256];
        rd_kafka_AdminOptions_t *o = rd_kafka_AdminOptions_new(rk, op);
        if (rd_kafka_AdminOptions_set_request_timeout(o, 30000, errstr, sizeof errstr) ||
            rd_kafka_AdminOptions_set_operation_timeout(o, 20000, errstr, sizeof errstr)) {
                printf("options: %s\n", errstr);
                exit(1);
        }
        rd_kafka_AdminOptions_set_opaque(o, opaque);
        return o;
}

static void create(rd_kafka_t *rk, rd_kafka_queue_t *q, const char **names, const int *parts,
                   size_t cnt, int validate_only, void *opaque) {
        rd_kafka_NewTopic_t *nt[4];
        rd_kafka_AdminOptions_t *o = options(rk, RD_KAFKA_ADMIN_OP_CREATETOPICS, opaque);
        char errstr[256];
        size_t i;

        if (validate_only &&
            rd_kafka_AdminOptions_set_validate_only(o, 1, errstr, sizeof errstr))
                printf("validate_only: %s\n", errstr);
        for (i = 0; i < cnt; i++) {
                nt[i] = rd_kafka_NewTopic_new(names[i], parts[i], 1, errstr, sizeof errstr);
                if (!nt[i]) {
                        printf("NewTopic_new: %s\n", errstr);
                        exit(1);
                }
        }
        if (cnt > 1)
                printf("set_config: %s\n",
                       rd_kafka_err2name(rd_kafka_NewTopic_set_config(nt[1], "cleanup.policy",
                                                                      "compact")));
        rd_kafka_CreateTopics(rk, nt, cnt, o, q);
        rd_kafka_AdminOptions_destroy(o);
        rd_kafka_NewTopic_destroy_array(nt, cnt);
        result(q, RD_KAFKA_EVENT_CREATETOPICS_RESULT, opaque);
}

static void delete(rd_kafka_t *rk, rd_kafka_queue_t *q, const char **names, size_t cnt,
                   int with_options, void *opaque) {
        rd_kafka_DeleteTopic_t *dt[4];
        rd_kafka_AdminOptions_t *o =
            with_options ? options(rk, RD_KAFKA_ADMIN_OP_DELETETOPICS, opaque) : NULL;
        size_t i;

        for (i = 0; i < cnt; i++)
                dt[i] = rd_kafka_DeleteTopic_new(names[i]);
        rd_kafka_DeleteTopics(rk, dt, cnt, o, q);
        if (o)
                rd_kafka_AdminOptions_destroy(o);
        rd_kafka_DeleteTopic_destroy_array(dt, cnt);
        result(q, RD_KAFKA_EVENT_DELETETOPICS_RESULT, with_options ? opaque : NULL);
}

static void partitions(rd_kafka_t *rk, rd_kafka_queue_t *q, const char *name, size_t total,
                       void *opaque) {
        char errstr[256];
        rd_kafka_NewPartitions_t *np[1];
        rd_kafka_AdminOptions_t *o = options(rk, RD_KAFKA_ADMIN_OP_CREATEPARTITIONS, opaque);

        np[0] = rd_kafka_NewPartitions_new(name, total, errstr, sizeof errstr);
        rd_kafka_CreatePartitions(rk, np, 1, o, q);
        rd_kafka_AdminOptions_destroy(o);
        rd_kafka_NewPartitions_destroy_array(np, 1);
        result(q, RD_KAFKA_EVENT_CREATEPARTITIONS_RESULT, opaque);
}

/* Local checks: the options' and objects' argument errors. */
static void local_checks(rd_kafka_t *rk) {
        char errstr[256];
        rd_kafka_resp_err_t err;
        rd_kafka_AdminOptions_t *o = rd_kafka_AdminOptions_new(rk, RD_KAFKA_ADMIN_OP_DELETETOPICS);
        rd_kafka_NewTopic_t *nt;
        int32_t ids[] = {1};

        printf("AdminOptions_new(bad op) is NULL: %d\n",
               rd_kafka_AdminOptions_new(rk, RD_KAFKA_ADMIN_OP__CNT) == NULL);
        err = rd_kafka_AdminOptions_set_request_timeout(o, -5, errstr, sizeof errstr);
        print_err("request_timeout -5", err, errstr);
        err = rd_kafka_AdminOptions_set_request_timeout(o, 3600001, errstr, sizeof errstr);
        print_err("request_timeout 3600001", err, errstr);
        err = rd_kafka_AdminOptions_set_operation_timeout(o, -2, errstr, sizeof errstr);
        print_err("operation_timeout -2", err, errstr);
        err = rd_kafka_AdminOptions_set_operation_timeout(o, -1, errstr, sizeof errstr);
        printf("operation_timeout -1: %s\n", rd_kafka_err2name(err));
        err = rd_kafka_AdminOptions_set_validate_only(o, 1, errstr, sizeof errstr);
        print_err("validate_only on DeleteTopics", err, errstr);
        err = rd_kafka_AdminOptions_set_broker(o, -1, errstr, sizeof errstr);
        print_err("broker -1", err, errstr);
        err = rd_kafka_AdminOptions_set_broker(o, 1, errstr, sizeof errstr);
        printf("broker 1: %s\n", rd_kafka_err2name(err));
        rd_kafka_AdminOptions_destroy(o);
        o = rd_kafka_AdminOptions_new(rk, RD_KAFKA_ADMIN_OP_DESCRIBECONFIGS);
        err = rd_kafka_AdminOptions_set_operation_timeout(o, 100, errstr, sizeof errstr);
        print_err("operation_timeout on DescribeConfigs", err, errstr);
        rd_kafka_AdminOptions_destroy(o);

        nt = rd_kafka_NewTopic_new("t", -2, 1, errstr, sizeof errstr);
        printf("NewTopic_new(-2 partitions): %d \"%s\"\n", nt == NULL, errstr);
        nt = rd_kafka_NewTopic_new("t", 100001, 1, errstr, sizeof errstr);
        printf("NewTopic_new(100001 partitions): %d \"%s\"\n", nt == NULL, errstr);
        nt = rd_kafka_NewTopic_new("t", 1, -2, errstr, sizeof errstr);
        printf("NewTopic_new(replication -2): %d \"%s\"\n", nt == NULL, errstr);
        nt = rd_kafka_NewTopic_new(NULL, 1, 1, errstr, sizeof errstr);
        printf("NewTopic_new(NULL): %d \"%s\"\n", nt == NULL, errstr);
        nt = rd_kafka_NewTopic_new("t", -1, -1, errstr, sizeof errstr);
        printf("NewTopic_new(-1, -1): %d\n", nt != NULL);
        err = rd_kafka_NewTopic_set_replica_assignment(nt, 0, ids, 1, errstr, sizeof errstr);
        print_err("replica assignment with default partitions", err, errstr);
        rd_kafka_NewTopic_destroy(nt);
        nt = rd_kafka_NewTopic_new("t", 2, 1, errstr, sizeof errstr);
        err = rd_kafka_NewTopic_set_replica_assignment(nt, 0, ids, 1, errstr, sizeof errstr);
        print_err("replica assignment with a replication factor", err, errstr);
        printf("set_config(NULL name): %s\n",
               rd_kafka_err2name(rd_kafka_NewTopic_set_config(nt, NULL, "x")));
        rd_kafka_NewTopic_destroy(nt);
        nt = rd_kafka_NewTopic_new("t", 2, -1, errstr, sizeof errstr);
        err = rd_kafka_NewTopic_set_replica_assignment(nt, 1, ids, 1, errstr, sizeof errstr);
        print_err("replica assignment of partition 1 first", err, errstr);
        err = rd_kafka_NewTopic_set_replica_assignment(nt, 0, ids, 1, errstr, sizeof errstr);
        printf("replica assignment of partition 0: %s\n", rd_kafka_err2name(err));
        rd_kafka_NewTopic_destroy(nt);
        printf("NewPartitions_new(0): %d \"%s\"\n",
               rd_kafka_NewPartitions_new("t", 0, errstr, sizeof errstr) == NULL, errstr);
        printf("event of NULL: type %d name %s\n", rd_kafka_event_type(NULL),
               rd_kafka_event_name(NULL));
}

int main(int argc, char **argv) {
        char errstr[512], t1[256], t2[256], t3[256];
        const char *names[3];
        int parts[3] = {3, 1, 1};
        rd_kafka_conf_t *conf = rd_kafka_conf_new();
        rd_kafka_t *rk;
        rd_kafka_queue_t *q, *mainq;
        rd_kafka_event_t *ev;
        int i, threads;

        if (argc != 3) {
                fprintf(stderr, "usage: admin <bootstrap.servers> <topic prefix>\n");
                return 2;
        }
        prefix = argv[2];
        snprintf(t1, sizeof t1, "%s-1", prefix);
        snprintf(t2, sizeof t2, "%s-2", prefix);
        snprintf(t3, sizeof t3, "%s-3", prefix);
        if (rd_kafka_conf_set(conf, "bootstrap.servers", argv[1], errstr, sizeof errstr)) {
                fprintf(stderr, "%s\n", errstr);
                return 1;
        }
        rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof errstr);
        if (!rk) {
                fprintf(stderr, "%s\n", errstr);
                return 1;
        }
        printf("threads while a handle lives: %s\n", rd_kafka_thread_cnt() > 0 ? "some" : "none");
        local_checks(rk);

        q = rd_kafka_queue_new(rk);
        ev = rd_kafka_queue_poll(q, 200);
        printf("poll of an empty queue: %s, length %zu\n", ev ? "an event" : "NULL",
               rd_kafka_queue_length(q));

        names[0] = t1;
        names[1] = t2;
        printf("-- create $P-1 (3 partitions) and $P-2 (compacted)\n");
        create(rk, q, names, parts, 2, 0, (void *)0x1234);
        printf("-- create $P-1 again\n");
        create(rk, q, names, parts, 1, 0, (void *)0x1);
        printf("-- create $P-3, validate only\n");
        names[0] = t3;
        create(rk, q, names, parts, 1, 1, NULL);
        printf("-- $P-1 to 5 partitions, then to 2\n");
        partitions(rk, q, t1, 5, (void *)0x5);
        partitions(rk, q, t1, 2, (void *)0x2);
        printf("-- partitions of missing $P-3\n");
        partitions(rk, q, t3, 2, NULL);
        printf("-- delete $P-1 and $P-2\n");
        names[0] = t1;
        delete (rk, q, names, 2, 1, (void *)0x77);
        printf("-- delete missing $P-3, no options, on the main queue\n");
        names[0] = t3;
        mainq = rd_kafka_queue_get_main(rk);
        delete (rk, mainq, names, 1, 0, NULL);
        rd_kafka_queue_destroy(mainq);
        printf("queue length after: %zu\n", rd_kafka_queue_length(q));

        rd_kafka_queue_destroy(q);
        rd_kafka_destroy(rk);
        for (i = 0; i < 50 && (threads = rd_kafka_thread_cnt()) > 0; i++)
                usleep(100 * 1000);
        printf("threads after destroy: %d\n", rd_kafka_thread_cnt());
        return 0;
}
