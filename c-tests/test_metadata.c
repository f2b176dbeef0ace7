/*
 * Metadata through the C API: brokers (count, ids, hosts, ports), the
 * controller, a fresh topic with its partitions, leaders among the brokers,
 * replicas, the 22-character topic ID and its 16 bytes, out-of-range
 * indexes, an unknown topic, and watermarks through a consumer.
 */
#include "check.h"

/* Decodes Kafka's topic ID text (unpadded URL-safe base64 of 16 bytes). */
static void decode_topic_id(const char *s, uint8_t out[16]) {
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    uint32_t acc = 0;
    int bits = 0;
    size_t n = 0;
    for (const char *c = s; *c; c++) {
        const char *at = strchr(alphabet, *c);
        CHECK_MSG(at != NULL && *c != '\0', "topic id \"%s\": bad character '%c'", s, *c);
        acc = (acc << 6) | (uint32_t)(at - alphabet);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            CHECK(n < 16);
            out[n++] = (uint8_t)(acc >> bits);
        }
    }
    CHECK_INT(n, 16);
}

static int broker_index(const gregor_metadata *md, int32_t id) {
    for (size_t i = 0; i < gregor_metadata_broker_count(md); i++)
        if (gregor_metadata_broker_id(md, i) == id)
            return (int)i;
    return -1;
}

static size_t find_topic(const gregor_metadata *md, const char *topic) {
    size_t found = (size_t)-1;
    for (size_t t = 0; t < gregor_metadata_topic_count(md); t++) {
        const char *name = gregor_metadata_topic_name(md, t);
        CHECK(name != NULL);
        if (strcmp(name, topic) == 0) {
            CHECK_MSG(found == (size_t)-1, "topic %s listed twice", topic);
            found = t;
        }
    }
    CHECK_MSG(found != (size_t)-1, "topic %s not in metadata", topic);
    return found;
}

static void check_brokers(const gregor_metadata *md) {
    size_t nb = gregor_metadata_broker_count(md);
    CHECK(nb >= 1);
    for (size_t i = 0; i < nb; i++) {
        int32_t id = gregor_metadata_broker_id(md, i);
        CHECK(id >= 0);
        CHECK_INT(broker_index(md, id), i); /* ids are unique */
        const char *host = gregor_metadata_broker_host(md, i);
        CHECK(host != NULL && host[0] != '\0');
        int32_t port = gregor_metadata_broker_port(md, i);
        CHECK(port > 0 && port < 65536);
    }
    CHECK_INT(gregor_metadata_broker_id(md, nb), -1);
    CHECK(gregor_metadata_broker_host(md, nb) == NULL);
    CHECK_INT(gregor_metadata_broker_port(md, nb), -1);
    int32_t controller = gregor_metadata_controller_id(md);
    CHECK(controller == -1 || broker_index(md, controller) >= 0);
}

/* Checks topic t; returns its partition count. */
static size_t check_topic(const gregor_metadata *md, size_t t, uint8_t id_out[16]) {
    CHECK_INT(gregor_metadata_topic_err(md, t), 0);
    const char *id = gregor_metadata_topic_id(md, t);
    CHECK(id != NULL);
    CHECK_INT(strlen(id), 22);
    uint8_t decoded[16], raw[16];
    decode_topic_id(id, decoded);
    memset(raw, 0xAA, sizeof raw);
    CHECK_INT(gregor_metadata_topic_id_bytes(md, t, raw), 0);
    CHECK(memcmp(decoded, raw, 16) == 0);
    memcpy(id_out, raw, 16);

    size_t np = gregor_metadata_partition_count(md, t);
    CHECK(np >= 1);
    int seen[1024] = {0};
    CHECK(np <= 1024);
    for (size_t p = 0; p < np; p++) {
        int32_t pid = gregor_metadata_partition_id(md, t, p);
        CHECK(pid >= 0 && (size_t)pid < np);
        CHECK_MSG(!seen[pid], "partition %d listed twice", pid);
        seen[pid] = 1;
        CHECK_INT(gregor_metadata_partition_err(md, t, p), 0);
        int32_t leader = gregor_metadata_partition_leader(md, t, p);
        CHECK_MSG(broker_index(md, leader) >= 0, "partition %d: leader %d is not a broker",
                  pid, leader);

        size_t nr = gregor_metadata_partition_replicas(md, t, p, NULL, 0);
        CHECK(nr >= 1 && nr <= 64);
        int32_t reps[65];
        reps[nr] = 12345; /* a sentinel: copies at most max */
        CHECK_INT(gregor_metadata_partition_replicas(md, t, p, reps, nr), nr);
        CHECK_INT(reps[nr], 12345);
        int leader_is_replica = 0;
        for (size_t r = 0; r < nr; r++)
            leader_is_replica |= reps[r] == leader;
        CHECK(leader_is_replica);
        /* a smaller buffer gets a prefix, the count stays the total */
        int32_t first = -7;
        CHECK_INT(gregor_metadata_partition_replicas(md, t, p, &first, 1), nr);
        CHECK_INT(first, reps[0]);

        size_t ni = gregor_metadata_partition_isrs(md, t, p, NULL, 0);
        CHECK(ni >= 1 && ni <= nr);
        int32_t isrs[64];
        CHECK_INT(gregor_metadata_partition_isrs(md, t, p, isrs, 64), ni);
    }
    /* past the end */
    CHECK_INT(gregor_metadata_partition_id(md, t, np), -1);
    CHECK_INT(gregor_metadata_partition_leader(md, t, np), -1);
    CHECK_INT(gregor_metadata_partition_err(md, t, np), GREGOR_ERR__INVALID_ARG);
    CHECK_INT(gregor_metadata_partition_replicas(md, t, np, NULL, 0), 0);
    CHECK_INT(gregor_metadata_partition_isrs(md, t, np, NULL, 0), 0);
    return np;
}

int main(void) {
    char topic[128], missing[128], errstr[512];
    unique_topic(topic, sizeof topic, "metadata");
    unique_topic(missing, sizeof missing, "never-created");

    /* Create the topic by producing to it (broker auto-create). */
    gregor_producer *p = test_producer(NULL);
    for (int i = 0; i < 3; i++)
        CHECK_OK(gregor_producer_send_sync(p, topic, 0, NULL, 0, (const uint8_t *)"m", 1,
                                           NULL, 0, 30000, NULL, NULL, errstr,
                                           sizeof errstr),
                 errstr);

    /* One topic. */
    gregor_metadata *md = NULL;
    CHECK_OK(gregor_producer_metadata(p, topic, 10000, &md, errstr, sizeof errstr), errstr);
    CHECK(md != NULL);
    check_brokers(md);
    const char *cluster_id = gregor_metadata_cluster_id(md);
    CHECK(cluster_id == NULL || cluster_id[0] != '\0');
    CHECK_INT(gregor_metadata_topic_count(md), 1);
    CHECK_STR(gregor_metadata_topic_name(md, 0), topic);
    uint8_t id1[16];
    size_t np = check_topic(md, 0, id1);
    static const uint8_t zero[16];
    CHECK_MSG(memcmp(id1, zero, 16) != 0, "broker gave the topic no id");
    /* out of range */
    CHECK(gregor_metadata_topic_name(md, 1) == NULL);
    CHECK(gregor_metadata_topic_id(md, 1) == NULL);
    CHECK_INT(gregor_metadata_topic_err(md, 1), GREGOR_ERR__INVALID_ARG);
    CHECK_INT(gregor_metadata_partition_count(md, 1), 0);
    uint8_t untouched[16];
    memset(untouched, 0x5A, sizeof untouched);
    CHECK_INT(gregor_metadata_topic_id_bytes(md, 1, untouched), GREGOR_ERR__INVALID_ARG);
    CHECK_INT(untouched[0], 0x5A);
    CHECK_INT(gregor_metadata_topic_id_bytes(md, 0, NULL), GREGOR_ERR__INVALID_ARG);
    gregor_metadata_free(md);

    /* All topics: ours is among them, the same. */
    md = NULL;
    CHECK_OK(gregor_producer_metadata(p, NULL, 10000, &md, errstr, sizeof errstr), errstr);
    check_brokers(md);
    size_t t = find_topic(md, topic);
    uint8_t id2[16];
    CHECK_INT(check_topic(md, t, id2), np);
    CHECK(memcmp(id1, id2, 16) == 0);
    gregor_metadata_free(md);

    /* The metadata out-parameter is required. */
    CHECK_INT(gregor_producer_metadata(p, topic, 10000, NULL, errstr, sizeof errstr),
              GREGOR_ERR__INVALID_ARG);
    CHECK_CONTAINS(errstr, "metadata");
    gregor_producer_free(p);

    /* Through a consumer: an unknown topic is reported, not created. */
    gregor_consumer *c = test_consumer(NULL);
    md = NULL;
    CHECK_OK(gregor_consumer_metadata(c, missing, 10000, &md, errstr, sizeof errstr), errstr);
    if (gregor_metadata_topic_count(md) == 1) {
        CHECK_STR(gregor_metadata_topic_name(md, 0), missing);
        CHECK_INT(gregor_metadata_topic_err(md, 0), GREGOR_ERR_UNKNOWN_TOPIC_OR_PARTITION);
    } else {
        CHECK_INT(gregor_metadata_topic_count(md), 0);
    }
    gregor_metadata_free(md);

    md = NULL;
    CHECK_OK(gregor_consumer_metadata(c, topic, 10000, &md, errstr, sizeof errstr), errstr);
    uint8_t id3[16];
    CHECK_INT(check_topic(md, 0, id3), np);
    CHECK(memcmp(id1, id3, 16) == 0);
    gregor_metadata_free(md);

    /* Watermarks of partition 0: the three messages sent above. */
    int64_t low = -99, high = -99;
    CHECK_OK(gregor_consumer_watermarks(c, topic, 0, &low, &high, 10000, errstr,
                                        sizeof errstr),
             errstr);
    CHECK_INT(low, 0);
    CHECK_INT(high, 3);
    CHECK_OK(gregor_consumer_watermarks(c, topic, 0, NULL, NULL, 10000, errstr, sizeof errstr),
             errstr);
    gregor_consumer_free(c);

    printf("metadata: topic with %zu partitions checked\n", np);
    return 0;
}
