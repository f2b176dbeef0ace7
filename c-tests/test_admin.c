/*
 * The admin client through the C API, against the test broker: cluster
 * description, several topics created in one call (KIP-4: the last
 * instruction for a topic wins, one result per topic), a second create
 * answered TOPIC_ALREADY_EXISTS per topic, describe (partitions, replicas,
 * topic ID), an incremental config change read back, offsets by spec (and
 * the typed error for MAX_TIMESTAMP, which this broker's ListOffsets lacks),
 * an operation the broker lacks (CreatePartitions: the call fails with
 * GREGOR_ERR__UNSUPPORTED_FEATURE and writes no result), delete by topic ID
 * and by name, and what the broker reports afterwards.
 */
#include "check.h"

int main(void) {
    char err[512];
    char t1[128], t2[128];
    unique_topic(t1, sizeof t1, "admin-a");
    unique_topic(t2, sizeof t2, "admin-b");

    gregor_config *conf = test_config(NULL);
    gregor_admin *admin = gregor_admin_new(conf, err, sizeof err);
    CHECK_MSG(admin != NULL, "%s", err);
    gregor_config_free(conf);

    gregor_cluster_description *cd = NULL;
    CHECK_OK(gregor_admin_describe_cluster(admin, 0, NULL, &cd, err, sizeof err), err);
    int32_t node = gregor_cluster_description_controller_id(cd);
    CHECK(gregor_cluster_description_broker_count(cd) >= 1);
    CHECK(gregor_cluster_description_cluster_id(cd) != NULL);
    CHECK_INT(gregor_cluster_description_broker_id(cd, 99), -1);
    gregor_cluster_description_free(cd);

    gregor_new_topic *nt[3];
    nt[0] = gregor_new_topic_new(t1, 3, 1);
    CHECK_OK(gregor_new_topic_set_config(nt[0], "retention.ms", "77777", err, sizeof err), err);
    nt[1] = gregor_new_topic_new(t2, -1, -1);
    CHECK_OK(gregor_new_topic_set_replica_assignment(nt[1], 0, &node, 1, err, sizeof err), err);
    nt[2] = gregor_new_topic_new(t1, 1, 1); /* the last instruction for t1 wins */
    gregor_admin_options *opts = gregor_admin_options_new();
    CHECK_OK(gregor_admin_options_set_operation_timeout(opts, 10000), "");
    gregor_topic_results *tr = NULL;
    CHECK_OK(gregor_admin_create_topics(admin, (const gregor_new_topic *const *)nt, 3, opts, &tr,
                                        err, sizeof err),
             err);
    CHECK_INT(gregor_topic_results_count(tr), 2);
    for (size_t i = 0; i < 2; i++)
        CHECK_MSG(gregor_topic_results_err(tr, i) == 0, "%s", gregor_topic_results_errstr(tr, i));
    CHECK_STR(gregor_topic_results_name(tr, 0), t1);
    CHECK_INT(gregor_topic_results_num_partitions(tr, 0), 1);
    CHECK_INT(gregor_topic_results_err(tr, 7), GREGOR_ERR__INVALID_ARG);
    char id1[64];
    snprintf(id1, sizeof id1, "%s", gregor_topic_results_topic_id(tr, 0));
    CHECK_INT(strlen(id1), 22);
    gregor_topic_results_free(tr);
    for (int i = 0; i < 3; i++)
        gregor_new_topic_free(nt[i]);

    gregor_new_topic *again = gregor_new_topic_new(t2, 1, 1);
    CHECK_OK(gregor_admin_create_topics(admin, (const gregor_new_topic *const *)&again, 1, NULL,
                                        &tr, err, sizeof err),
             err);
    CHECK_INT(gregor_topic_results_err(tr, 0), GREGOR_ERR_TOPIC_ALREADY_EXISTS);
    CHECK_STR(gregor_err_name(gregor_topic_results_err(tr, 0)), "TOPIC_ALREADY_EXISTS");
    CHECK_CONTAINS(gregor_topic_results_errstr(tr, 0), t2);
    gregor_topic_results_free(tr);
    gregor_new_topic_free(again);

    const char *names[2] = {t1, t2};
    gregor_topic_descriptions *d = NULL;
    CHECK_OK(gregor_admin_describe_topics(admin, names, 2, 0, NULL, &d, err, sizeof err), err);
    CHECK_INT(gregor_topic_descriptions_partition_count(d, 0), 1);
    CHECK_STR(gregor_topic_descriptions_topic_id(d, 0), id1);
    int32_t reps[8];
    CHECK_INT(gregor_topic_descriptions_partition_replicas(d, 1, 0, reps, 8), 1);
    CHECK_INT(reps[0], node);
    CHECK_INT(gregor_topic_descriptions_authorized_operations(d, 0, NULL, 0), -1);
    gregor_topic_descriptions_free(d);

    gregor_config_resource *res = gregor_config_resource_new(GREGOR_CONFIG_RESOURCE_TOPIC, t1);
    CHECK_OK(gregor_config_resource_add_incremental_config(res, "retention.ms",
                                                           GREGOR_ALTER_CONFIG_SET, "88888", err,
                                                           sizeof err),
             err);
    gregor_config_results *cr = NULL;
    CHECK_OK(gregor_admin_incremental_alter_configs(
                 admin, (const gregor_config_resource *const *)&res, 1, NULL, &cr, err, sizeof err),
             err);
    CHECK_MSG(gregor_config_results_err(cr, 0) == 0, "%s", gregor_config_results_errstr(cr, 0));
    gregor_config_results_free(cr);
    const char *keys[1] = {"retention.ms"};
    CHECK_OK(gregor_admin_describe_configs(admin, (const gregor_config_resource *const *)&res, 1,
                                           keys, 1, 1, 1, NULL, &cr, err, sizeof err),
             err);
    CHECK_INT(gregor_config_results_entry_count(cr, 0), 1);
    CHECK_STR(gregor_config_results_entry_value(cr, 0, 0), "88888");
    CHECK_INT(gregor_config_results_entry_source(cr, 0, 0), GREGOR_CONFIG_SOURCE_DYNAMIC_TOPIC);
    gregor_config_results_free(cr);
    gregor_config_resource_free(res);

    gregor_tpl *tpl = gregor_tpl_new();
    gregor_tpl_add(tpl, t1, 0, GREGOR_OFFSET_SPEC_LATEST);
    gregor_tpl_add(tpl, t2, 0, GREGOR_OFFSET_SPEC_MAX_TIMESTAMP);
    gregor_partition_results *pr = NULL;
    CHECK_OK(gregor_admin_list_offsets(admin, tpl, 0, NULL, &pr, err, sizeof err), err);
    CHECK_INT(gregor_partition_results_err(pr, 0), 0);
    CHECK_INT(gregor_partition_results_offset(pr, 0), 0);
    CHECK_INT(gregor_partition_results_err(pr, 1), GREGOR_ERR__UNSUPPORTED_FEATURE);
    gregor_partition_results_free(pr);
    gregor_tpl_free(tpl);

    gregor_new_partitions *np = gregor_new_partitions_new(t1, 4);
    tr = NULL;
    CHECK_INT(gregor_admin_create_partitions(admin, (const gregor_new_partitions *const *)&np, 1,
                                             NULL, &tr, err, sizeof err),
              GREGOR_ERR__UNSUPPORTED_FEATURE);
    CHECK(tr == NULL);
    CHECK_CONTAINS(err, "CreatePartitions");
    gregor_new_partitions_free(np);

    const char *ids[1] = {id1};
    CHECK_OK(gregor_admin_delete_topics_by_id(admin, ids, 1, opts, &tr, err, sizeof err), err);
    CHECK_MSG(gregor_topic_results_err(tr, 0) == 0, "%s", gregor_topic_results_errstr(tr, 0));
    gregor_topic_results_free(tr);
    CHECK_OK(gregor_admin_delete_topics(admin, names + 1, 1, opts, &tr, err, sizeof err), err);
    CHECK_MSG(gregor_topic_results_err(tr, 0) == 0, "%s", gregor_topic_results_errstr(tr, 0));
    gregor_topic_results_free(tr);
    CHECK_OK(gregor_admin_describe_topics(admin, names, 2, 0, NULL, &d, err, sizeof err), err);
    CHECK_INT(gregor_topic_descriptions_err(d, 0), GREGOR_ERR_UNKNOWN_TOPIC_OR_PARTITION);
    CHECK_INT(gregor_topic_descriptions_err(d, 1), GREGOR_ERR_UNKNOWN_TOPIC_OR_PARTITION);
    gregor_topic_descriptions_free(d);

    gregor_admin_options_free(opts);
    gregor_admin_free(admin);
    gregor_admin_free(NULL);
    return 0;
}
