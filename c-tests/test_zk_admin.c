/*
 * The ZooKeeper admin requests and change notifications through the C API
 * (gregor_zk_list_topic_deletions, _reassignments,
 * _preferred_replica_elections, _isr_changes, _config_changes) against the
 * real ZooKeeper ($GREGOR_TEST_ZOOKEEPER or 127.0.0.1:2181): first an empty
 * chroot (every list empty), then the znodes a ZooKeeper-mode Kafka and its
 * admin tools write, read back; a malformed znode named in the error; NULL
 * handling; the chroot removed.
 */
#include "check.h"

static const char *zk_addr(void) {
    const char *z = getenv("GREGOR_TEST_ZOOKEEPER");
    return z && *z ? z : "127.0.0.1:2181";
}

static void put(gregor_zk *zk, const char *path, const char *data) {
    char err[512];
    CHECK_OK(gregor_zk_put(zk, path, (const uint8_t *)data, strlen(data), err, sizeof err), err);
}

int main(void) {
    char err[512], topic[128], root[160], connect[256];
    unique_topic(topic, sizeof topic, "zka");
    snprintf(root, sizeof root, "/gregor-%s", topic);
    snprintf(connect, sizeof connect, "%s%s", zk_addr(), root);

    gregor_zk *zroot = gregor_zk_new(zk_addr(), 6000, err, sizeof err);
    CHECK_MSG(zroot != NULL, "%s", err);
    char path[512];
    snprintf(path, sizeof path, "%s/brokers/ids", root);
    put(zroot, path, "");
    gregor_zk *zk = gregor_zk_new(connect, 6000, err, sizeof err);
    CHECK_MSG(zk != NULL, "%s", err);

    /* Nothing pending: every list is empty. */
    gregor_zk_names *n = NULL;
    gregor_zk_partitions *p = NULL;
    gregor_zk_config_changes *cc = NULL;
    CHECK_OK(gregor_zk_list_topic_deletions(zk, &n, err, sizeof err), err);
    CHECK_INT(gregor_zk_names_count(n), 0);
    gregor_zk_names_free(n);
    CHECK_OK(gregor_zk_list_reassignments(zk, &p, err, sizeof err), err);
    CHECK_INT(gregor_zk_partitions_count(p), 0);
    gregor_zk_partitions_free(p);
    CHECK_OK(gregor_zk_list_preferred_replica_elections(zk, &p, err, sizeof err), err);
    CHECK_INT(gregor_zk_partitions_count(p), 0);
    gregor_zk_partitions_free(p);
    CHECK_OK(gregor_zk_list_isr_changes(zk, &p, err, sizeof err), err);
    CHECK_INT(gregor_zk_partitions_count(p), 0);
    gregor_zk_partitions_free(p);
    CHECK_OK(gregor_zk_list_config_changes(zk, &cc, err, sizeof err), err);
    CHECK_INT(gregor_zk_config_changes_count(cc), 0);
    gregor_zk_config_changes_free(cc);

    /* What kafka-topics.sh --delete, kafka-reassign-partitions.sh,
     * kafka-preferred-replica-election.sh, the controller and
     * kafka-configs.sh write. */
    put(zk, "/admin/delete_topics/zeta", "");
    put(zk, "/admin/delete_topics/alpha", "");
    put(zk, "/admin/reassign_partitions",
        "{\"version\":1,\"partitions\":[{\"topic\":\"alpha\",\"partition\":0,\"replicas\":[1,2,3]},"
        "{\"topic\":\"beta\",\"partition\":4,\"replicas\":[3],\"log_dirs\":[\"any\"]}]}");
    put(zk, "/admin/preferred_replica_election",
        "{\"version\":1,\"partitions\":[{\"topic\":\"beta\",\"partition\":2}]}");
    put(zk, "/isr_change_notification/isr_change_0000000002",
        "{\"version\":1,\"partitions\":[{\"topic\":\"gamma\",\"partition\":1}]}");
    put(zk, "/isr_change_notification/isr_change_0000000001",
        "{\"version\":1,\"partitions\":[{\"topic\":\"alpha\",\"partition\":0},"
        "{\"topic\":\"alpha\",\"partition\":5}]}");
    put(zk, "/config/changes/config_change_0000000007",
        "{\"version\":2,\"entity_path\":\"topics/alpha\"}");
    put(zk, "/config/changes/config_change_0000000003",
        "{\"version\":1,\"entity_type\":\"clients\",\"entity_name\":\"app-1\"}");

    CHECK_OK(gregor_zk_list_topic_deletions(zk, &n, err, sizeof err), err);
    CHECK_INT(gregor_zk_names_count(n), 2);
    CHECK_STR(gregor_zk_names_get(n, 0), "alpha");
    CHECK_STR(gregor_zk_names_get(n, 1), "zeta");
    gregor_zk_names_free(n);

    int32_t ids[4] = {0};
    CHECK_OK(gregor_zk_list_reassignments(zk, &p, err, sizeof err), err);
    CHECK_INT(gregor_zk_partitions_count(p), 2);
    CHECK_STR(gregor_zk_partitions_topic(p, 0), "alpha");
    CHECK_INT(gregor_zk_partitions_partition(p, 0), 0);
    CHECK_INT(gregor_zk_partitions_replicas(p, 0, ids, 4), 3);
    CHECK(ids[0] == 1 && ids[1] == 2 && ids[2] == 3);
    CHECK_INT(gregor_zk_partitions_replicas(p, 0, NULL, 0), 3); /* count only */
    CHECK_STR(gregor_zk_partitions_topic(p, 1), "beta");
    CHECK_INT(gregor_zk_partitions_partition(p, 1), 4);
    CHECK_INT(gregor_zk_partitions_replicas(p, 1, ids, 4), 1);
    CHECK_INT(ids[0], 3);
    CHECK(gregor_zk_partitions_notification(p, 0) == NULL);
    CHECK(gregor_zk_partitions_topic(p, 2) == NULL);
    CHECK_INT(gregor_zk_partitions_partition(p, 2), -1);
    CHECK_INT(gregor_zk_partitions_replicas(p, 2, ids, 4), 0);
    gregor_zk_partitions_free(p);

    CHECK_OK(gregor_zk_list_preferred_replica_elections(zk, &p, err, sizeof err), err);
    CHECK_INT(gregor_zk_partitions_count(p), 1);
    CHECK_STR(gregor_zk_partitions_topic(p, 0), "beta");
    CHECK_INT(gregor_zk_partitions_partition(p, 0), 2);
    CHECK_INT(gregor_zk_partitions_replicas(p, 0, ids, 4), 0);
    gregor_zk_partitions_free(p);

    /* ISR changes: one row per partition, notifications in znode order. */
    CHECK_OK(gregor_zk_list_isr_changes(zk, &p, err, sizeof err), err);
    CHECK_INT(gregor_zk_partitions_count(p), 3);
    CHECK_STR(gregor_zk_partitions_notification(p, 0), "isr_change_0000000001");
    CHECK_STR(gregor_zk_partitions_topic(p, 0), "alpha");
    CHECK_INT(gregor_zk_partitions_partition(p, 0), 0);
    CHECK_STR(gregor_zk_partitions_notification(p, 1), "isr_change_0000000001");
    CHECK_INT(gregor_zk_partitions_partition(p, 1), 5);
    CHECK_STR(gregor_zk_partitions_notification(p, 2), "isr_change_0000000002");
    CHECK_STR(gregor_zk_partitions_topic(p, 2), "gamma");
    CHECK_INT(gregor_zk_partitions_partition(p, 2), 1);
    gregor_zk_partitions_free(p);

    CHECK_OK(gregor_zk_list_config_changes(zk, &cc, err, sizeof err), err);
    CHECK_INT(gregor_zk_config_changes_count(cc), 2);
    CHECK_STR(gregor_zk_config_changes_name(cc, 0), "config_change_0000000003");
    CHECK_STR(gregor_zk_config_changes_entity_path(cc, 0), "clients/app-1");
    CHECK_STR(gregor_zk_config_changes_name(cc, 1), "config_change_0000000007");
    CHECK_STR(gregor_zk_config_changes_entity_path(cc, 1), "topics/alpha");
    CHECK(gregor_zk_config_changes_name(cc, 2) == NULL);
    gregor_zk_config_changes_free(cc);

    /* A malformed znode: the error names it and the field; nothing out. */
    put(zk, "/admin/reassign_partitions",
        "{\"version\":1,\"partitions\":[{\"topic\":\"alpha\",\"partition\":0}]}");
    p = NULL;
    CHECK_INT(gregor_zk_list_reassignments(zk, &p, err, sizeof err), GREGOR_ERR__BAD_MSG);
    CHECK_CONTAINS(err, "/admin/reassign_partitions");
    CHECK_CONTAINS(err, "replicas");
    CHECK(p == NULL);
    put(zk, "/admin/preferred_replica_election", "not json");
    CHECK_INT(gregor_zk_list_preferred_replica_elections(zk, &p, err, sizeof err),
              GREGOR_ERR__BAD_MSG);
    CHECK_CONTAINS(err, "/admin/preferred_replica_election");
    CHECK(p == NULL);

    /* Misuse. */
    CHECK_INT(gregor_zk_list_topic_deletions(zk, NULL, err, sizeof err), GREGOR_ERR__INVALID_ARG);
    CHECK_INT(gregor_zk_list_reassignments(NULL, &p, err, sizeof err), GREGOR_ERR__INVALID_ARG);
    CHECK_INT(gregor_zk_list_isr_changes(zk, NULL, err, sizeof err), GREGOR_ERR__INVALID_ARG);
    CHECK_INT(gregor_zk_list_config_changes(NULL, &cc, err, sizeof err), GREGOR_ERR__INVALID_ARG);
    CHECK_INT(gregor_zk_partitions_count(NULL), 0);
    CHECK(gregor_zk_partitions_topic(NULL, 0) == NULL);
    CHECK_INT(gregor_zk_partitions_partition(NULL, 0), -1);
    CHECK_INT(gregor_zk_partitions_replicas(NULL, 0, ids, 4), 0);
    CHECK(gregor_zk_partitions_notification(NULL, 0) == NULL);
    CHECK_INT(gregor_zk_config_changes_count(NULL), 0);
    CHECK(gregor_zk_config_changes_entity_path(NULL, 0) == NULL);
    gregor_zk_partitions_free(NULL);
    gregor_zk_config_changes_free(NULL);
    gregor_zk_free(zk);

    CHECK_OK(gregor_zk_delete(zroot, root, err, sizeof err), err);
    gregor_zk_free(zroot);
    printf("zk admin: deletions, reassignments, elections, ISR and config changes\n");
    return 0;
}
