/*
 * The ZooKeeper-balanced consumer through the C API, against the real
 * ZooKeeper ($GREGOR_TEST_ZOOKEEPER or 127.0.0.1:2181) and broker: a chroot
 * holding the broker's registration and the topic's partitions as a
 * ZooKeeper-mode Kafka writes them (made with gregor_zk_put),
 * two members of one group splitting a 2-partition topic, offsets
 * committed to ZooKeeper read back with gregor_zk_offset_get, misuse.
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

static gregor_zk_consumer *member(const char *connect, const char *group, const char *topic) {
    char err[512];
    gregor_config *conf = gregor_config_new();
    CHECK_OK(gregor_config_set(conf, "zookeeper.connect", connect, err, sizeof err), err);
    CHECK_OK(gregor_config_set(conf, "group.id", group, err, sizeof err), err);
    CHECK_OK(gregor_config_set(conf, "auto.offset.reset", "smallest", err, sizeof err), err);
    CHECK_OK(gregor_config_set(conf, "enable.auto.commit", "false", err, sizeof err), err);
    const char *topics[] = {topic};
    gregor_zk_consumer *c = gregor_zk_consumer_new(conf, topics, 1, err, sizeof err);
    CHECK_MSG(c != NULL, "%s", err);
    gregor_config_free(conf);
    return c;
}

int main(void) {
    char err[512], topic[128], root[160], connect[256], group[160], cmd[1024];
    unique_topic(topic, sizeof topic, "zkc");
    snprintf(root, sizeof root, "/gregor-%s", topic);
    snprintf(group, sizeof group, "g-%s", topic);
    snprintf(connect, sizeof connect, "%s%s", zk_addr(), root);
    gregor_zk *zroot = gregor_zk_new(zk_addr(), 6000, err, sizeof err);
    CHECK_MSG(zroot != NULL, "%s", err);

    /* The topic on the broker: two partitions. */
    gregor_config *conf = test_config(NULL);
    gregor_admin *admin = gregor_admin_new(conf, err, sizeof err);
    CHECK_MSG(admin != NULL, "%s", err);
    gregor_config_free(conf);
    gregor_new_topic *nt = gregor_new_topic_new(topic, 2, 1);
    gregor_topic_results *tr = NULL;
    CHECK_OK(gregor_admin_create_topics(admin, (const gregor_new_topic *const *)&nt, 1, NULL, &tr,
                                        err, sizeof err),
             err);
    CHECK_MSG(gregor_topic_results_err(tr, 0) == 0, "%s", gregor_topic_results_errstr(tr, 0));
    gregor_topic_results_free(tr);
    gregor_new_topic_free(nt);
    gregor_admin_free(admin);

    /* What a ZooKeeper-mode Kafka writes, under our chroot. */
    char host[128];
    snprintf(host, sizeof host, "%s", test_broker());
    char *colon = strrchr(host, ':');
    CHECK(colon != NULL);
    *colon = '\0';
    char path[512];
    snprintf(path, sizeof path, "%s/brokers/ids/111", root);
    snprintf(cmd, sizeof cmd,
             "{\"listener_security_protocol_map\":{\"PLAINTEXT\":\"PLAINTEXT\"},"
             "\"endpoints\":[\"PLAINTEXT://%s:%s\"],\"jmx_port\":-1,\"host\":\"%s\","
             "\"timestamp\":\"1649662012051\",\"port\":%s,\"version\":4}",
             host, colon + 1, host, colon + 1);
    zk_put(zroot, path, cmd);
    snprintf(path, sizeof path, "%s/brokers/topics/%s", root, topic);
    zk_put(zroot, path, "{\"version\":1,\"partitions\":{\"0\":[111],\"1\":[111]}}");

    /* Misuse: no topics, no group, NULLs. */
    gregor_config *bad = gregor_config_new();
    CHECK_OK(gregor_config_set(bad, "zookeeper.connect", connect, err, sizeof err), err);
    const char *topics[] = {topic};
    CHECK(gregor_zk_consumer_new(bad, topics, 1, err, sizeof err) == NULL);
    CHECK_CONTAINS(err, "group.id");
    CHECK_OK(gregor_config_set(bad, "group.id", group, err, sizeof err), err);
    CHECK(gregor_zk_consumer_new(bad, NULL, 0, err, sizeof err) == NULL);
    CHECK_CONTAINS(err, "topic");
    const char *null_topic[] = {NULL};
    CHECK(gregor_zk_consumer_new(bad, null_topic, 1, err, sizeof err) == NULL);
    CHECK(gregor_zk_consumer_new(NULL, topics, 1, err, sizeof err) == NULL);
    gregor_config_free(bad);
    CHECK(gregor_zk_consumer_poll(NULL, 0) == NULL);
    CHECK_INT(gregor_zk_consumer_commit(NULL, err, sizeof err), GREGOR_ERR__INVALID_ARG);
    CHECK_STR(gregor_zk_consumer_id(NULL), "");
    gregor_zk_consumer_close(NULL);
    gregor_zk_consumer_free(NULL);

    /* Two members: one partition each. */
    gregor_zk_consumer *a = member(connect, group, topic);
    gregor_zk_consumer *b = member(connect, group, topic);
    char prefix[200];
    snprintf(prefix, sizeof prefix, "%s_", group);
    CHECK(strncmp(gregor_zk_consumer_id(a), prefix, strlen(prefix)) == 0);
    CHECK(strcmp(gregor_zk_consumer_id(a), gregor_zk_consumer_id(b)) != 0);

    gregor_producer *p = test_producer(NULL);
    enum { N = 20 };
    for (int i = 0; i < N; i++) {
        char v[32];
        int n = snprintf(v, sizeof v, "v%d", i);
        CHECK_OK(gregor_producer_send_sync(p, topic, i % 2, NULL, 0, (const uint8_t *)v, (size_t)n,
                                           NULL, -1, 10000, NULL, NULL, err, sizeof err),
                 err);
    }
    gregor_producer_free(p);

    int seen[N] = {0};
    int got = 0, from_a = 0, part_of[2] = {-1, -1};
    int64_t deadline = now_ms() + 60000;
    while (got < N && now_ms() < deadline) {
        for (int k = 0; k < 2; k++) {
            gregor_zk_consumer *c = k == 0 ? a : b;
            gregor_message *m = gregor_zk_consumer_poll(c, 100);
            if (!m)
                continue;
            if (gregor_message_err(m) == 0) {
                gregor_slice v = gregor_message_value(m);
                char buf[32] = {0};
                memcpy(buf, v.ptr, v.len < 31 ? v.len : 31);
                int i = atoi(buf + 1);
                CHECK(i >= 0 && i < N);
                seen[i]++;
                got++;
                from_a += k == 0;
                int part = gregor_message_partition(m);
                CHECK(part == 0 || part == 1);
                /* each partition is read by one member only */
                CHECK(part_of[part] == -1 || part_of[part] == k);
                part_of[part] = k;
                CHECK_STR(gregor_message_topic(m), topic);
            }
            gregor_message_free(m);
        }
    }
    CHECK_INT(got, N);
    for (int i = 0; i < N; i++)
        CHECK_INT(seen[i], 1);
    CHECK_INT(from_a, N / 2);

    /* Commit: ZooKeeper holds the next offset of each partition. */
    CHECK_OK(gregor_zk_consumer_commit(a, err, sizeof err), err);
    CHECK_OK(gregor_zk_consumer_commit(b, err, sizeof err), err);
    gregor_zk *zk = gregor_zk_new(connect, 6000, err, sizeof err);
    CHECK_MSG(zk != NULL, "%s", err);
    for (int part = 0; part < 2; part++) {
        int64_t off = -1;
        CHECK_OK(gregor_zk_offset_get(zk, group, topic, part, &off, err, sizeof err), err);
        CHECK_INT(off, N / 2);
    }
    /* Both members registered, with a static subscription. */
    gregor_zk_names *members = NULL;
    CHECK_OK(gregor_zk_list_group_members(zk, group, &members, err, sizeof err), err);
    CHECK_INT(gregor_zk_names_count(members), 2);
    const char *ids[2] = {gregor_zk_consumer_id(a), gregor_zk_consumer_id(b)};
    for (int i = 0; i < 2; i++) {
        const char *m0 = gregor_zk_names_get(members, 0), *m1 = gregor_zk_names_get(members, 1);
        CHECK(strcmp(m0, ids[i]) == 0 || strcmp(m1, ids[i]) == 0);
        char data[1024];
        size_t len = 0;
        snprintf(path, sizeof path, "/consumers/%s/ids/%s", group, ids[i]);
        CHECK_OK(gregor_zk_get(zk, path, (uint8_t *)data, sizeof data - 1, &len, err, sizeof err),
                 err);
        CHECK(len < sizeof data);
        data[len] = '\0';
        CHECK_CONTAINS(data, "\"static\"");
    }
    gregor_zk_names_free(members);

    gregor_zk_consumer_close(a);
    gregor_message *m = gregor_zk_consumer_poll(a, 0);
    CHECK(m != NULL);
    CHECK_INT(gregor_message_err(m), GREGOR_ERR__STATE);
    gregor_message_free(m);
    gregor_zk_consumer_free(a);
    gregor_zk_consumer_free(b);
    gregor_zk_free(zk);

    CHECK_OK(gregor_zk_delete(zroot, root, err, sizeof err), err);
    gregor_zk_free(zroot);
    printf("zk consumer: %d messages over two members, offsets in ZooKeeper\n", got);
    return 0;
}
