/*
 * The typed ZooKeeper reads of the C API (gregor_zk_list_brokers, _topics,
 * _describe_topic, _controller, _list_groups, _group_members, _group_offsets,
 * _get / _put / _delete) against the real ZooKeeper
 * ($GREGOR_TEST_ZOOKEEPER or 127.0.0.1:2181): a chroot holding what a
 * ZooKeeper-mode Kafka and a Kafka 0.8 consumer group write, read back
 * through a session on the chroot; then the errors (unknown topic, missing
 * znode, relative path, NULLs) and the removal of the chroot.
 */
#include "check.h"

static const char *zk_addr(void) {
    const char *z = getenv("GREGOR_TEST_ZOOKEEPER");
    return z && *z ? z : "127.0.0.1:2181";
}

static char root[160];

static void put(gregor_zk *zk, const char *rel, const char *data) {
    char path[512], err[512];
    snprintf(path, sizeof path, "%s%s", root, rel);
    CHECK_OK(gregor_zk_put(zk, path, (const uint8_t *)data, strlen(data), err, sizeof err), err);
}

int main(void) {
    char err[512], topic[128], connect[256], group[160];
    unique_topic(topic, sizeof topic, "zki");
    snprintf(root, sizeof root, "/gregor-%s", topic);
    snprintf(group, sizeof group, "g-%s", topic);
    snprintf(connect, sizeof connect, "%s%s", zk_addr(), root);

    gregor_zk *zroot = gregor_zk_new(zk_addr(), 6000, err, sizeof err);
    CHECK_MSG(zroot != NULL, "%s", err);
    put(zroot, "/brokers/ids/7",
        "{\"listener_security_protocol_map\":{\"PLAINTEXT\":\"PLAINTEXT\",\"SSL\":\"SSL\"},"
        "\"endpoints\":[\"PLAINTEXT://h7:9092\",\"SSL://h7:9093\"],\"rack\":\"r1\","
        "\"jmx_port\":-1,\"host\":\"h7\",\"timestamp\":\"1649662012051\",\"port\":9092,"
        "\"version\":4}");
    put(zroot, "/brokers/ids/3",
        "{\"jmx_port\":-1,\"host\":\"h3\",\"timestamp\":\"1649662012051\",\"port\":9092,"
        "\"version\":1}");
    char rel[512], data[768];
    snprintf(rel, sizeof rel, "/brokers/topics/%s", topic);
    put(zroot, rel,
        "{\"version\":2,\"partitions\":{\"0\":[7],\"1\":[7,3]},\"adding_replicas\":{\"1\":[3]},"
        "\"removing_replicas\":{},\"topic_id\":\"q6S1qXK3TkeTEdGa1b_nTw\"}");
    snprintf(rel, sizeof rel, "/brokers/topics/%s/partitions/0/state", topic);
    put(zroot, rel,
        "{\"controller_epoch\":5,\"leader\":7,\"version\":1,\"leader_epoch\":4,\"isr\":[7]}");
    snprintf(rel, sizeof rel, "/config/topics/%s", topic);
    put(zroot, rel, "{\"version\":1,\"config\":{\"retention.ms\":\"86400000\"}}");
    put(zroot, "/controller", "{\"version\":1,\"brokerid\":7,\"timestamp\":\"1649662012132\"}");
    put(zroot, "/controller_epoch", "5");
    snprintf(rel, sizeof rel, "/consumers/%s/ids/%s_host-1-abc", group, group);
    snprintf(data, sizeof data,
             "{\"version\":1,\"subscription\":{\"%s\":1},\"pattern\":\"static\","
             "\"timestamp\":\"1558617131642\"}",
             topic);
    put(zroot, rel, data);
    snprintf(rel, sizeof rel, "/consumers/%s/offsets/%s/1", group, topic);
    put(zroot, rel, "17");
    snprintf(rel, sizeof rel, "/consumers/%s/offsets/%s/0", group, topic);
    put(zroot, rel, "42");

    gregor_zk *zk = gregor_zk_new(connect, 6000, err, sizeof err);
    CHECK_MSG(zk != NULL, "%s", err);

    /* Brokers, by id. */
    gregor_zk_brokers *b = NULL;
    CHECK_OK(gregor_zk_list_brokers(zk, &b, err, sizeof err), err);
    CHECK_INT(gregor_zk_brokers_count(b), 2);
    CHECK_INT(gregor_zk_brokers_id(b, 0), 3);
    CHECK_INT(gregor_zk_brokers_id(b, 1), 7);
    CHECK_INT(gregor_zk_brokers_version(b, 1), 4);
    CHECK(gregor_zk_brokers_rack(b, 0) == NULL);
    CHECK_STR(gregor_zk_brokers_rack(b, 1), "r1");
    CHECK_INT(gregor_zk_brokers_endpoint_count(b, 0), 1); /* v1: host and port */
    CHECK_STR(gregor_zk_brokers_endpoint_host(b, 0, 0), "h3");
    CHECK_INT(gregor_zk_brokers_endpoint_count(b, 1), 2);
    CHECK_STR(gregor_zk_brokers_endpoint_listener(b, 1, 1), "SSL");
    CHECK_STR(gregor_zk_brokers_endpoint_security_protocol(b, 1, 1), "SSL");
    CHECK_STR(gregor_zk_brokers_endpoint_host(b, 1, 1), "h7");
    CHECK_INT(gregor_zk_brokers_endpoint_port(b, 1, 1), 9093);
    CHECK_INT(gregor_zk_brokers_endpoint_port(b, 1, 2), -1);
    CHECK_INT(gregor_zk_brokers_id(b, 2), -1);
    CHECK(gregor_zk_brokers_endpoint_host(b, 2, 0) == NULL);
    gregor_zk_brokers_free(b);

    /* Topics. */
    gregor_zk_names *n = NULL;
    CHECK_OK(gregor_zk_list_topics(zk, &n, err, sizeof err), err);
    CHECK_INT(gregor_zk_names_count(n), 1);
    CHECK_STR(gregor_zk_names_get(n, 0), topic);
    CHECK(gregor_zk_names_get(n, 1) == NULL);
    gregor_zk_names_free(n);

    gregor_zk_topic *t = NULL;
    CHECK_OK(gregor_zk_describe_topic(zk, topic, &t, err, sizeof err), err);
    CHECK_STR(gregor_zk_topic_id(t), "q6S1qXK3TkeTEdGa1b_nTw");
    CHECK_INT(gregor_zk_topic_version(t), 2);
    CHECK_INT(gregor_zk_topic_partition_count(t), 2);
    int32_t ids[4] = {0};
    CHECK_INT(gregor_zk_topic_partition_id(t, 0), 0);
    CHECK_INT(gregor_zk_topic_partition_replicas(t, 0, ids, 4), 1);
    CHECK_INT(ids[0], 7);
    CHECK_INT(gregor_zk_topic_partition_has_state(t, 0), 1);
    CHECK_INT(gregor_zk_topic_partition_leader(t, 0), 7);
    CHECK_INT(gregor_zk_topic_partition_leader_epoch(t, 0), 4);
    CHECK_INT(gregor_zk_topic_partition_controller_epoch(t, 0), 5);
    CHECK_INT(gregor_zk_topic_partition_isr(t, 0, ids, 4), 1);
    CHECK_INT(ids[0], 7);
    CHECK_INT(gregor_zk_topic_partition_id(t, 1), 1);
    CHECK_INT(gregor_zk_topic_partition_replicas(t, 1, ids, 1), 2); /* count beyond max */
    CHECK_INT(ids[0], 7);
    CHECK_INT(gregor_zk_topic_partition_adding(t, 1, ids, 4), 1);
    CHECK_INT(ids[0], 3);
    CHECK_INT(gregor_zk_topic_partition_removing(t, 1, ids, 4), 0);
    CHECK_INT(gregor_zk_topic_partition_has_state(t, 1), 0);
    CHECK_INT(gregor_zk_topic_partition_leader(t, 1), -1);
    CHECK_INT(gregor_zk_topic_partition_isr(t, 1, ids, 4), 0);
    CHECK_INT(gregor_zk_topic_partition_has_state(t, 2), -1);
    CHECK_INT(gregor_zk_topic_config_count(t), 1);
    CHECK_STR(gregor_zk_topic_config_name(t, 0), "retention.ms");
    CHECK_STR(gregor_zk_topic_config_value(t, 0), "86400000");
    CHECK(gregor_zk_topic_config_name(t, 1) == NULL);
    gregor_zk_topic_free(t);
    t = NULL;
    CHECK_INT(gregor_zk_describe_topic(zk, "no-such-topic", &t, err, sizeof err),
              GREGOR_ERR__UNKNOWN_TOPIC);
    CHECK_CONTAINS(err, "no-such-topic");
    CHECK(t == NULL);

    /* Controller. */
    int32_t ctrl = -9, epoch = -9;
    CHECK_OK(gregor_zk_controller(zk, &ctrl, &epoch, err, sizeof err), err);
    CHECK_INT(ctrl, 7);
    CHECK_INT(epoch, 5);

    /* Groups, members, offsets. */
    CHECK_OK(gregor_zk_list_groups(zk, &n, err, sizeof err), err);
    CHECK_INT(gregor_zk_names_count(n), 1);
    CHECK_STR(gregor_zk_names_get(n, 0), group);
    gregor_zk_names_free(n);
    CHECK_OK(gregor_zk_list_group_members(zk, group, &n, err, sizeof err), err);
    CHECK_INT(gregor_zk_names_count(n), 1);
    char id[320];
    snprintf(id, sizeof id, "%s_host-1-abc", group);
    CHECK_STR(gregor_zk_names_get(n, 0), id);
    gregor_zk_names_free(n);
    gregor_tpl *offs = NULL;
    CHECK_OK(gregor_zk_list_group_offsets(zk, group, NULL, &offs, err, sizeof err), err);
    CHECK_INT(gregor_tpl_count(offs), 2);
    CHECK_STR(gregor_tpl_topic(offs, 0), topic);
    CHECK_INT(gregor_tpl_partition(offs, 0), 0);
    CHECK_INT(gregor_tpl_offset(offs, 0), 42);
    CHECK_INT(gregor_tpl_partition(offs, 1), 1);
    CHECK_INT(gregor_tpl_offset(offs, 1), 17);
    gregor_tpl_free(offs);
    CHECK_OK(gregor_zk_offset_set(zk, group, topic, 1, 18, err, sizeof err), err);
    CHECK_OK(gregor_zk_list_group_offsets(zk, group, topic, &offs, err, sizeof err), err);
    CHECK_INT(gregor_tpl_offset(offs, 1), 18);
    gregor_tpl_free(offs);
    CHECK_OK(gregor_zk_list_group_offsets(zk, "g-none", NULL, &offs, err, sizeof err), err);
    CHECK_INT(gregor_tpl_count(offs), 0);
    gregor_tpl_free(offs);

    /* Znodes: get with a short buffer gives the full length. */
    uint8_t buf[4];
    size_t len = 0;
    CHECK_OK(gregor_zk_get(zk, "/controller_epoch", buf, sizeof buf, &len, err, sizeof err), err);
    CHECK_INT(len, 1);
    CHECK(buf[0] == '5');
    CHECK_OK(gregor_zk_get(zk, "/controller", NULL, 0, &len, err, sizeof err), err);
    CHECK(len > sizeof buf);
    CHECK_OK(gregor_zk_get(zk, "/controller", buf, sizeof buf, &len, err, sizeof err), err);
    CHECK(memcmp(buf, "{\"ve", 4) == 0);
    CHECK_OK(gregor_zk_put(zk, "/x/y/z", (const uint8_t *)"hi", 2, err, sizeof err), err);
    CHECK_OK(gregor_zk_get(zk, "/x/y/z", buf, sizeof buf, &len, err, sizeof err), err);
    CHECK(len == 2 && memcmp(buf, "hi", 2) == 0);
    CHECK_OK(gregor_zk_put(zk, "/x/empty", NULL, 0, err, sizeof err), err);
    CHECK_OK(gregor_zk_get(zk, "/x/empty", buf, sizeof buf, &len, err, sizeof err), err);
    CHECK_INT(len, 0);
    CHECK_OK(gregor_zk_delete(zk, "/x", err, sizeof err), err);
    CHECK_INT(gregor_zk_get(zk, "/x/y/z", buf, sizeof buf, &len, err, sizeof err),
              GREGOR_ERR__NOENT);
    CHECK_CONTAINS(err, "/x/y/z");
    CHECK_OK(gregor_zk_delete(zk, "/x", err, sizeof err), err); /* already gone */

    /* Misuse. */
    CHECK_INT(gregor_zk_put(zk, "relative", NULL, 0, err, sizeof err), GREGOR_ERR__INVALID_ARG);
    CHECK_INT(gregor_zk_delete(zk, "/", err, sizeof err), GREGOR_ERR__INVALID_ARG);
    CHECK_INT(gregor_zk_put(zk, "/p", NULL, 3, err, sizeof err), GREGOR_ERR__INVALID_ARG);
    CHECK_INT(gregor_zk_list_topics(zk, NULL, err, sizeof err), GREGOR_ERR__INVALID_ARG);
    CHECK_INT(gregor_zk_list_topics(NULL, &n, err, sizeof err), GREGOR_ERR__INVALID_ARG);
    CHECK_INT(gregor_zk_describe_topic(zk, NULL, &t, err, sizeof err), GREGOR_ERR__INVALID_ARG);
    CHECK_INT(gregor_zk_list_group_offsets(zk, NULL, NULL, &offs, err, sizeof err),
              GREGOR_ERR__INVALID_ARG);
    CHECK_INT(gregor_zk_controller(NULL, &ctrl, &epoch, err, sizeof err),
              GREGOR_ERR__INVALID_ARG);
    CHECK_INT(gregor_zk_names_count(NULL), 0);
    CHECK(gregor_zk_names_get(NULL, 0) == NULL);
    CHECK_INT(gregor_zk_brokers_count(NULL), 0);
    CHECK_INT(gregor_zk_topic_partition_leader(NULL, 0), -1);
    gregor_zk_names_free(NULL);
    gregor_zk_brokers_free(NULL);
    gregor_zk_topic_free(NULL);
    gregor_zk_free(zk);

    CHECK_OK(gregor_zk_delete(zroot, root, err, sizeof err), err);
    CHECK_OK(gregor_zk_get(zroot, "/", NULL, 0, &len, err, sizeof err), err);
    CHECK_INT(gregor_zk_get(zroot, root, NULL, 0, &len, err, sizeof err), GREGOR_ERR__NOENT);
    gregor_zk_free(zroot);
    printf("zk inspect: brokers, topic, controller, group offsets, znodes\n");
    return 0;
}
