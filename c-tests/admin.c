/* The admin C API from C, against the test broker (argv[1], host:port):
 * create topics in one call (one already existing), describe them, alter
 * and describe a config, list offsets, delete them, and check what the
 * broker reports at each step. Run under AddressSanitizer/UBSan by
 * tests/admin_c.rs. Prints "ok" and exits 0 on success. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include "gregor.h"

#define CHECK(cond, ...) do { if (!(cond)) { fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
    fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); exit(1); } } while (0)

int main(int argc, char **argv) {
    char err[512];
    const char *broker = argc > 1 ? argv[1] : "127.0.0.1:9092";
    char t1[128], t2[128];
    snprintf(t1, sizeof t1, "c-admin-a-%d-%ld", (int)getpid(), (long)time(NULL));
    snprintf(t2, sizeof t2, "c-admin-b-%d-%ld", (int)getpid(), (long)time(NULL));

    gregor_config *conf = gregor_config_new();
    CHECK(gregor_config_set(conf, "bootstrap.servers", broker, err, sizeof err) == 0, "%s", err);
    gregor_admin *admin = gregor_admin_new(conf, err, sizeof err);
    CHECK(admin, "%s", err);
    gregor_config_free(conf);

    /* the controller, to place replicas explicitly */
    gregor_cluster_description *cd = NULL;
    CHECK(gregor_admin_describe_cluster(admin, 0, NULL, &cd, err, sizeof err) == 0, "%s", err);
    int32_t node = gregor_cluster_description_controller_id(cd);
    CHECK(gregor_cluster_description_broker_count(cd) >= 1, "no brokers");
    gregor_cluster_description_free(cd);

    gregor_new_topic *nt[3];
    nt[0] = gregor_new_topic_new(t1, 3, 1);
    CHECK(gregor_new_topic_set_config(nt[0], "retention.ms", "77777", err, sizeof err) == 0, "%s", err);
    nt[1] = gregor_new_topic_new(t2, -1, -1);
    CHECK(gregor_new_topic_set_replica_assignment(nt[1], 0, &node, 1, err, sizeof err) == 0, "%s", err);
    nt[2] = gregor_new_topic_new(t1, 1, 1); /* seed 004: the last instruction for t1 wins */
    gregor_admin_options *opts = gregor_admin_options_new();
    gregor_admin_options_set_operation_timeout(opts, 10000);
    gregor_topic_results *tr = NULL;
    CHECK(gregor_admin_create_topics(admin, (const gregor_new_topic *const *)nt, 3, opts, &tr, err, sizeof err) == 0, "%s", err);
    CHECK(gregor_topic_results_count(tr) == 2, "one result per topic");
    for (size_t i = 0; i < 2; i++)
        CHECK(gregor_topic_results_err(tr, i) == 0, "%s: %s", gregor_err_name(gregor_topic_results_err(tr, i)),
              gregor_topic_results_errstr(tr, i));
    CHECK(gregor_topic_results_num_partitions(tr, 0) == 1, "t1 has %d partitions", gregor_topic_results_num_partitions(tr, 0));
    char id1[64];
    snprintf(id1, sizeof id1, "%s", gregor_topic_results_topic_id(tr, 0));
    gregor_topic_results_free(tr);
    for (int i = 0; i < 3; i++) gregor_new_topic_free(nt[i]);

    /* again: TOPIC_ALREADY_EXISTS, named as the protocol names it */
    gregor_new_topic *again = gregor_new_topic_new(t2, 1, 1);
    CHECK(gregor_admin_create_topics(admin, (const gregor_new_topic *const *)&again, 1, NULL, &tr, err, sizeof err) == 0, "%s", err);
    CHECK(gregor_topic_results_err(tr, 0) == GREGOR_ERR_TOPIC_ALREADY_EXISTS, "got %d", gregor_topic_results_err(tr, 0));
    CHECK(strcmp(gregor_err_name(gregor_topic_results_err(tr, 0)), "TOPIC_ALREADY_EXISTS") == 0, "name");
    gregor_topic_results_free(tr);
    gregor_new_topic_free(again);

    /* what the broker reports */
    const char *names[2] = { t1, t2 };
    gregor_topic_descriptions *d = NULL;
    CHECK(gregor_admin_describe_topics(admin, names, 2, 0, NULL, &d, err, sizeof err) == 0, "%s", err);
    CHECK(gregor_topic_descriptions_partition_count(d, 0) == 1, "t1 partitions");
    CHECK(strcmp(gregor_topic_descriptions_topic_id(d, 0), id1) == 0, "topic id");
    int32_t reps[8];
    size_t n = gregor_topic_descriptions_partition_replicas(d, 1, 0, reps, 8);
    CHECK(n == 1 && reps[0] == node, "t2 replicas");
    gregor_topic_descriptions_free(d);

    /* configs */
    gregor_config_resource *res = gregor_config_resource_new(GREGOR_CONFIG_RESOURCE_TOPIC, t1);
    CHECK(gregor_config_resource_add_incremental_config(res, "retention.ms", GREGOR_ALTER_CONFIG_SET, "88888", err, sizeof err) == 0, "%s", err);
    gregor_config_results *cr = NULL;
    CHECK(gregor_admin_incremental_alter_configs(admin, (const gregor_config_resource *const *)&res, 1, NULL, &cr, err, sizeof err) == 0, "%s", err);
    CHECK(gregor_config_results_err(cr, 0) == 0, "%s", gregor_config_results_errstr(cr, 0));
    gregor_config_results_free(cr);
    const char *keys[1] = { "retention.ms" };
    CHECK(gregor_admin_describe_configs(admin, (const gregor_config_resource *const *)&res, 1, keys, 1, 1, 1, NULL, &cr, err, sizeof err) == 0, "%s", err);
    CHECK(gregor_config_results_entry_count(cr, 0) == 1, "one key");
    CHECK(strcmp(gregor_config_results_entry_value(cr, 0, 0), "88888") == 0, "value %s", gregor_config_results_entry_value(cr, 0, 0));
    CHECK(gregor_config_results_entry_source(cr, 0, 0) == GREGOR_CONFIG_SOURCE_DYNAMIC_TOPIC, "source");
    gregor_config_results_free(cr);
    gregor_config_resource_free(res);

    /* offsets: latest of an empty partition is 0; MAX_TIMESTAMP is a typed per-partition error here */
    gregor_tpl *tpl = gregor_tpl_new();
    gregor_tpl_add(tpl, t1, 0, GREGOR_OFFSET_SPEC_LATEST);
    gregor_tpl_add(tpl, t2, 0, GREGOR_OFFSET_SPEC_MAX_TIMESTAMP);
    gregor_partition_results *pr = NULL;
    CHECK(gregor_admin_list_offsets(admin, tpl, 0, NULL, &pr, err, sizeof err) == 0, "%s", err);
    CHECK(gregor_partition_results_err(pr, 0) == 0 && gregor_partition_results_offset(pr, 0) == 0, "latest");
    CHECK(gregor_partition_results_err(pr, 1) == GREGOR_ERR__UNSUPPORTED_FEATURE, "max timestamp: %d", gregor_partition_results_err(pr, 1));
    gregor_partition_results_free(pr);
    gregor_tpl_free(tpl);

    /* delete by ID and by name */
    const char *ids[1] = { id1 };
    CHECK(gregor_admin_delete_topics_by_id(admin, ids, 1, opts, &tr, err, sizeof err) == 0, "%s", err);
    CHECK(gregor_topic_results_err(tr, 0) == 0, "%s", gregor_topic_results_errstr(tr, 0));
    gregor_topic_results_free(tr);
    CHECK(gregor_admin_delete_topics(admin, names + 1, 1, opts, &tr, err, sizeof err) == 0, "%s", err);
    CHECK(gregor_topic_results_err(tr, 0) == 0, "%s", gregor_topic_results_errstr(tr, 0));
    gregor_topic_results_free(tr);
    CHECK(gregor_admin_describe_topics(admin, names, 2, 0, NULL, &d, err, sizeof err) == 0, "%s", err);
    CHECK(gregor_topic_descriptions_err(d, 0) == GREGOR_ERR_UNKNOWN_TOPIC_OR_PARTITION, "t1 gone");
    CHECK(gregor_topic_descriptions_err(d, 1) == GREGOR_ERR_UNKNOWN_TOPIC_OR_PARTITION, "t2 gone");
    gregor_topic_descriptions_free(d);

    gregor_admin_options_free(opts);
    gregor_admin_free(admin);
    printf("ok\n");
    return 0;
}
