/*
 * gregor_zk_migrate_offsets against the real ZooKeeper
 * ($GREGOR_TEST_ZOOKEEPER or 127.0.0.1:2181) and broker: a legacy group's
 * offsets in a chroot (with the broker registered there as a ZooKeeper-mode
 * Kafka registers itself), a dry run that writes nothing, ZooKeeper -> Kafka
 * through the registered broker (read back with the admin API's OffsetFetch),
 * Kafka -> ZooKeeper for one topic through a bootstrap.servers config (read
 * back from the znodes), bad directions and NULLs.
 */
#include "check.h"

static const char *zk_addr(void) {
    const char *z = getenv("GREGOR_TEST_ZOOKEEPER");
    return z && *z ? z : "127.0.0.1:2181";
}

static void zk_put(gregor_zk *zk, const char *path, const char *data) {
    char err[512];
    CHECK_OK(gregor_zk_put(zk, path, (const uint8_t *)data, strlen(data), err, sizeof err), err);
}

/* The committed Kafka offset of group's topic [part] (-1: none). */
static int64_t kafka_offset(gregor_admin *admin, const char *group, const char *topic, int part) {
    char err[512];
    gregor_tpl *want = gregor_tpl_new();
    gregor_tpl_add(want, topic, part, -1);
    gregor_partition_results *r = NULL;
    CHECK_OK(gregor_admin_list_group_offsets(admin, group, want, 0, NULL, &r, err, sizeof err),
             err);
    CHECK_INT(gregor_partition_results_count(r), 1);
    CHECK_INT(gregor_partition_results_err(r, 0), 0);
    int64_t o = gregor_partition_results_offset(r, 0);
    gregor_partition_results_free(r);
    gregor_tpl_free(want);
    return o;
}

int main(void) {
    char err[512], topic[128], root[160], connect[256], group[160], path[512], data[512];
    unique_topic(topic, sizeof topic, "zkm");
    snprintf(root, sizeof root, "/gregor-%s", topic);
    snprintf(group, sizeof group, "g-%s", topic);
    snprintf(connect, sizeof connect, "%s%s", zk_addr(), root);

    /* The topic on the broker: two partitions. */
    gregor_config *conf = test_config(NULL);
    gregor_admin *admin = gregor_admin_new(conf, err, sizeof err);
    CHECK_MSG(admin != NULL, "%s", err);
    gregor_new_topic *nt = gregor_new_topic_new(topic, 2, 1);
    gregor_topic_results *tr = NULL;
    CHECK_OK(gregor_admin_create_topics(admin, (const gregor_new_topic *const *)&nt, 1, NULL, &tr,
                                        err, sizeof err),
             err);
    CHECK_MSG(gregor_topic_results_err(tr, 0) == 0, "%s", gregor_topic_results_errstr(tr, 0));
    gregor_topic_results_free(tr);
    gregor_new_topic_free(nt);

    /* Under the chroot: the broker's registration and the group's offsets. */
    gregor_zk *zroot = gregor_zk_new(zk_addr(), 6000, err, sizeof err);
    CHECK_MSG(zroot != NULL, "%s", err);
    char host[128];
    snprintf(host, sizeof host, "%s", test_broker());
    char *colon = strrchr(host, ':');
    CHECK(colon != NULL);
    *colon = '\0';
    snprintf(path, sizeof path, "%s/brokers/ids/111", root);
    snprintf(data, sizeof data,
             "{\"listener_security_protocol_map\":{\"PLAINTEXT\":\"PLAINTEXT\"},"
             "\"endpoints\":[\"PLAINTEXT://%s:%s\"],\"jmx_port\":-1,\"host\":\"%s\","
             "\"timestamp\":\"1649662012051\",\"port\":%s,\"version\":4}",
             host, colon + 1, host, colon + 1);
    zk_put(zroot, path, data);
    gregor_zk_free(zroot);
    gregor_zk *zk = gregor_zk_new(connect, 6000, err, sizeof err);
    CHECK_MSG(zk != NULL, "%s", err);
    CHECK_OK(gregor_zk_offset_set(zk, group, topic, 0, 5, err, sizeof err), err);
    CHECK_OK(gregor_zk_offset_set(zk, group, topic, 1, 7, err, sizeof err), err);

    /* Dry run: what would be copied, nothing written. */
    gregor_tpl *out = NULL;
    CHECK_OK(gregor_zk_migrate_offsets(zk, NULL, group, NULL, GREGOR_ZK_MIGRATE_TO_KAFKA, 1, 30000,
                                       &out, err, sizeof err),
             err);
    CHECK_INT(gregor_tpl_count(out), 2);
    CHECK_STR(gregor_tpl_topic(out, 0), topic);
    CHECK_INT(gregor_tpl_partition(out, 0), 0);
    CHECK_INT(gregor_tpl_offset(out, 0), 5);
    CHECK_INT(gregor_tpl_partition(out, 1), 1);
    CHECK_INT(gregor_tpl_offset(out, 1), 7);
    gregor_tpl_free(out);
    CHECK_INT(kafka_offset(admin, group, topic, 0), -1);
    CHECK_INT(kafka_offset(admin, group, topic, 1), -1);

    /* ZooKeeper -> Kafka, through the broker registered in the chroot. */
    CHECK_OK(gregor_zk_migrate_offsets(zk, NULL, group, NULL, GREGOR_ZK_MIGRATE_TO_KAFKA, 0, -1,
                                       &out, err, sizeof err),
             err);
    CHECK_INT(gregor_tpl_count(out), 2);
    gregor_tpl_free(out);
    CHECK_INT(kafka_offset(admin, group, topic, 0), 5);
    CHECK_INT(kafka_offset(admin, group, topic, 1), 7);

    /* Kafka -> ZooKeeper for this topic only, through bootstrap.servers. */
    CHECK_OK(gregor_zk_offset_set(zk, group, topic, 0, 1, err, sizeof err), err);
    CHECK_OK(gregor_zk_offset_set(zk, group, topic, 1, 2, err, sizeof err), err);
    CHECK_OK(gregor_zk_migrate_offsets(zk, conf, group, topic, GREGOR_ZK_MIGRATE_TO_ZK, 0, 30000,
                                       &out, err, sizeof err),
             err);
    CHECK_INT(gregor_tpl_count(out), 2);
    CHECK_INT(gregor_tpl_offset(out, 0), 5);
    CHECK_INT(gregor_tpl_offset(out, 1), 7);
    gregor_tpl_free(out);
    int64_t off = -1;
    CHECK_OK(gregor_zk_offset_get(zk, group, topic, 0, &off, err, sizeof err), err);
    CHECK_INT(off, 5);
    CHECK_OK(gregor_zk_offset_get(zk, group, topic, 1, &off, err, sizeof err), err);
    CHECK_INT(off, 7);
    /* Another topic's name selects nothing. */
    CHECK_OK(gregor_zk_migrate_offsets(zk, conf, group, "no-such-topic", GREGOR_ZK_MIGRATE_TO_ZK,
                                       1, 30000, &out, err, sizeof err),
             err);
    CHECK_INT(gregor_tpl_count(out), 0);
    gregor_tpl_free(out);

    /* Misuse: nothing out. */
    out = NULL;
    CHECK_INT(gregor_zk_migrate_offsets(zk, conf, group, NULL, 7, 1, 1000, &out, err, sizeof err),
              GREGOR_ERR__INVALID_ARG);
    CHECK_CONTAINS(err, "direction");
    CHECK(out == NULL);
    CHECK_INT(gregor_zk_migrate_offsets(zk, conf, NULL, NULL, GREGOR_ZK_MIGRATE_TO_ZK, 1, 1000,
                                        &out, err, sizeof err),
              GREGOR_ERR__INVALID_ARG);
    CHECK_INT(gregor_zk_migrate_offsets(zk, conf, group, NULL, GREGOR_ZK_MIGRATE_TO_ZK, 1, 1000,
                                        NULL, err, sizeof err),
              GREGOR_ERR__INVALID_ARG);
    CHECK_INT(gregor_zk_migrate_offsets(NULL, conf, group, NULL, GREGOR_ZK_MIGRATE_TO_ZK, 1, 1000,
                                        &out, err, sizeof err),
              GREGOR_ERR__INVALID_ARG);
    CHECK(out == NULL);

    gregor_config_free(conf);
    gregor_admin_free(admin);
    gregor_zk_free(zk);
    zroot = gregor_zk_new(zk_addr(), 6000, err, sizeof err);
    CHECK_MSG(zroot != NULL, "%s", err);
    CHECK_OK(gregor_zk_delete(zroot, root, err, sizeof err), err);
    gregor_zk_free(zroot);
    printf("zk migrate: dry run, ZooKeeper -> Kafka, Kafka -> ZooKeeper\n");
    return 0;
}
