/* The consumer check of gregor's librdkafka (scripts/rdkafka-abi-check.sh):
 * compiled against the real librdkafka's rdkafka.h, linked once against
 * gregor's librdkafka.so.1 and once against the real one, and run against
 * the same broker, each run on a fresh topic; the two outputs must be
 * identical, so it prints no topic names, member ids or timestamps, only
 * whether they are sane.
 *
 *   consumer <bootstrap> <topic> <n>
 *
 * Produces <n> keyed messages (with a header) round-robin over the topic's
 * partitions, then a group consumer (enable.partition.eof, manual commits)
 * subscribes with a rebalance_cb that prints each event and assigns, reads
 * all <n> with rd_kafka_consumer_poll (the message fields, the topic
 * handle, headers, timestamp type, the _PARTITION_EOF events), prints them
 * sorted by key; then subscription, assignment, rebalance protocol,
 * member id, position, a synchronous commit and its offset_commit_cb,
 * committed offsets, watermarks (queried and cached), offsets for times,
 * commit_message (of the first message), and rd_kafka_consumer_close (the revocation through the
 * rebalance_cb) and consumer_closed. Then the legacy consumer on the same
 * topic (no group): consume_start at BEGINNING, at offset 1 and at END,
 * rd_kafka_consume, consume_batch and consume_callback for one partition
 * each, a partition not started, a timeout, consume_stop; and every
 * partition started on one queue (consume_start_queue) read through
 * consume_batch_queue, consume_queue and consume_callback_queue.
 */
#define _DEFAULT_SOURCE /* usleep */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <librdkafka/rdkafka.h>

#define MAX_MSGS 1000
#define MAX_PARTS 64

struct got {
        char key[32];
        char value[32];
        char header[32];
        int32_t partition;
        int64_t offset;
        rd_kafka_timestamp_type_t tstype;
};

static struct got got[MAX_MSGS];
static int got_cnt;
static int64_t eof_offset[MAX_PARTS];
static int commit_cbs;
static const char *the_topic;

static void copy_bytes(char *dst, size_t size, const void *src, size_t len) {
        if (!src) {
                snprintf(dst, size, "(null)");
                return;
        }
        if (len >= size)
                len = size - 1;
        memcpy(dst, src, len);
        dst[len] = '\0';
}

static int cb_msgs;

static void consume_cb(rd_kafka_message_t *m, void *opaque) {
        char key[32];
        copy_bytes(key, sizeof key, m->key, m->key_len);
        printf("  consume_cb %s [%d] @%lld%s\n", key, (int)m->partition, (long long)m->offset,
               opaque == &cb_msgs ? "" : " (wrong opaque)");
        cb_msgs++;
}

static int cmp_got(const void *a, const void *b) {
        const struct got *x = a, *y = b;
        return strcmp(x->key, y->key);
}

static void print_parts(const char *what, const rd_kafka_topic_partition_list_t *parts,
                        int with_offsets) {
        int i;
        printf("%s:", what);
        for (i = 0; i < parts->cnt; i++) {
                const rd_kafka_topic_partition_t *p = &parts->elems[i];
                printf(" %s[%d]", strcmp(p->topic, the_topic) ? p->topic : "T", (int)p->partition);
                if (with_offsets)
                        printf("@%lld", (long long)p->offset);
                if (p->err)
                        printf("(%s)", rd_kafka_err2name(p->err));
        }
        printf("\n");
}

static void rebalance_cb(rd_kafka_t *rk, rd_kafka_resp_err_t err,
                         rd_kafka_topic_partition_list_t *parts, void *opaque) {
        rd_kafka_topic_partition_list_t *now = NULL;
        const char *proto = rd_kafka_rebalance_protocol(rk);
        char what[128];

        snprintf(what, sizeof what, "rebalance %s (%s, lost %d)", rd_kafka_err2name(err),
                 proto ? proto : "NULL", rd_kafka_assignment_lost(rk));
        print_parts(what, parts, 0);
        if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS)
                err = rd_kafka_assign(rk, parts);
        else
                err = rd_kafka_assign(rk, NULL);
        printf("  assign: %s\n", rd_kafka_err2name(err));
        if (!rd_kafka_assignment(rk, &now)) {
                print_parts("  assignment", now, 0);
                rd_kafka_topic_partition_list_destroy(now);
        }
        (void)opaque;
}

static void offset_commit_cb(rd_kafka_t *rk, rd_kafka_resp_err_t err,
                             rd_kafka_topic_partition_list_t *offsets, void *opaque) {
        char what[128];
        snprintf(what, sizeof what, "offset_commit_cb %s", rd_kafka_err2name(err));
        print_parts(what, offsets, 1);
        commit_cbs++;
        (void)rk;
        (void)opaque;
}

static void fail(const char *what, rd_kafka_resp_err_t err) {
        printf("%s: %s\n", what, rd_kafka_err2name(err));
}

static int partition_count(rd_kafka_t *rk, rd_kafka_topic_t *rkt) {
        const rd_kafka_metadata_t *md = NULL;
        int tries, cnt = 0, j, ready;

        for (tries = 0; tries < 50 && !cnt; tries++) {
                if (rd_kafka_metadata(rk, 0, rkt, &md, 5000)) {
                        usleep(200 * 1000);
                        continue;
                }
                ready = md->topic_cnt == 1 && !md->topics[0].err &&
                        md->topics[0].partition_cnt > 0;
                for (j = 0; ready && j < md->topics[0].partition_cnt; j++)
                        ready = !md->topics[0].partitions[j].err &&
                                md->topics[0].partitions[j].leader >= 0;
                if (ready)
                        cnt = md->topics[0].partition_cnt;
                rd_kafka_metadata_destroy(md);
                if (!cnt)
                        usleep(200 * 1000);
        }
        return cnt;
}

static int produce(const char *bootstrap, const char *topic, int n, int *parts) {
        char errstr[512], key[32], value[32], hdr[32];
        rd_kafka_conf_t *conf = rd_kafka_conf_new();
        rd_kafka_t *rk;
        rd_kafka_topic_t *rkt;
        rd_kafka_resp_err_t err;
        int i;

        rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap, errstr, sizeof errstr);
        if (!(rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof errstr))) {
                printf("producer: %s\n", errstr);
                return -1;
        }
        rkt = rd_kafka_topic_new(rk, topic, NULL);
        *parts = partition_count(rk, rkt);
        printf("partitions: %d\n", *parts);
        if (*parts <= 0 || *parts > MAX_PARTS)
                return -1;
        for (i = 0; i < n; i++) {
                snprintf(key, sizeof key, "key-%04d", i);
                snprintf(value, sizeof value, "value-%d", i);
                snprintf(hdr, sizeof hdr, "h%d", i);
                err = rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_PARTITION(i % *parts),
                                        RD_KAFKA_V_KEY(key, strlen(key)),
                                        RD_KAFKA_V_VALUE(value, strlen(value)),
                                        RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                                        RD_KAFKA_V_HEADER("hdr", hdr, -1), RD_KAFKA_V_END);
                if (err)
                        fail("producev", err);
        }
        fail("flush", rd_kafka_flush(rk, 30000));
        rd_kafka_topic_destroy(rkt);
        rd_kafka_destroy(rk);
        return 0;
}

/* rd_kafka_consumer_group_metadata of the member, and write / read. */
static void group_metadata(rd_kafka_t *rk, const char *group) {
        rd_kafka_consumer_group_metadata_t *cgmd = rd_kafka_consumer_group_metadata(rk), *back;
        rd_kafka_error_t *error;
        void *buf = NULL;
        size_t size = 0, i;

        if (!cgmd) {
                printf("group metadata: NULL\n");
                return;
        }
        printf("group metadata: group %s, generation %d, member %s, instance %s\n",
               strcmp(rd_kafka_consumer_group_metadata_group_id(cgmd), group) ? "other" : "ours",
               (int)rd_kafka_consumer_group_metadata_generation_id(cgmd),
               *rd_kafka_consumer_group_metadata_member_id(cgmd) ? "set" : "empty",
               rd_kafka_consumer_group_metadata_group_instance_id(cgmd) ? "set" : "NULL");
        error = rd_kafka_consumer_group_metadata_write(cgmd, &buf, &size);
        printf("  write: %s\n", error ? rd_kafka_error_string(error) : "ok");
        if (!error) {
                error = rd_kafka_consumer_group_metadata_read(&back, buf, size);
                printf("  read back: %s", error ? rd_kafka_error_name(error) : "ok");
                if (!error) {
                        printf(", generation %d, same member %d\n",
                               (int)rd_kafka_consumer_group_metadata_generation_id(back),
                               !strcmp(rd_kafka_consumer_group_metadata_member_id(back),
                                       rd_kafka_consumer_group_metadata_member_id(cgmd)));
                        rd_kafka_consumer_group_metadata_destroy(back);
                } else {
                        printf("\n");
                }
                if (error)
                        rd_kafka_error_destroy(error);
                error = rd_kafka_consumer_group_metadata_read(&back, buf, size - 1);
                printf("  read of one byte less: %s\n", error ? rd_kafka_error_name(error) : "ok");
                if (error)
                        rd_kafka_error_destroy(error);
                else
                        rd_kafka_consumer_group_metadata_destroy(back);
                rd_kafka_mem_free(NULL, buf);
        } else {
                rd_kafka_error_destroy(error);
        }
        rd_kafka_consumer_group_metadata_destroy(cgmd);

        cgmd = rd_kafka_consumer_group_metadata_new_with_genid("g", 3, "m", "inst");
        if (!rd_kafka_consumer_group_metadata_write(cgmd, &buf, &size)) {
                printf("  write of (g, 3, m, inst):");
                for (i = 0; i < size; i++)
                        printf(" %02x", ((unsigned char *)buf)[i]);
                printf("\n");
                rd_kafka_mem_free(NULL, buf);
        }
        rd_kafka_consumer_group_metadata_destroy(cgmd);
}

/* pause / resume, seek_partitions and rd_kafka_seek, offsets_store and
 * offset_store on the group member. */
static void seek_pause_store(rd_kafka_t *rk, const char *topic, int parts) {
        rd_kafka_topic_partition_list_t *list = rd_kafka_topic_partition_list_new(parts);
        rd_kafka_topic_t *rkt = rd_kafka_topic_new(rk, topic, NULL);
        rd_kafka_message_t *m;
        rd_kafka_error_t *error;
        int i, tries;

        for (i = 0; i < parts; i++)
                rd_kafka_topic_partition_list_add(list, topic, i);
        fail("pause_partitions", rd_kafka_pause_partitions(rk, list));
        print_parts("paused", list, 0);
        fail("resume_partitions", rd_kafka_resume_partitions(rk, list));
        print_parts("resumed", list, 0);
        rd_kafka_topic_partition_list_destroy(list);

        list = rd_kafka_topic_partition_list_new(1);
        rd_kafka_topic_partition_list_add(list, topic, 0)->offset = 2;
        error = rd_kafka_seek_partitions(rk, list, 10000);
        printf("seek_partitions [0] @2: %s\n", error ? rd_kafka_error_name(error) : "ok");
        if (error)
                rd_kafka_error_destroy(error);
        print_parts("  seeked", list, 1);
        for (tries = 0; tries < 100; tries++) {
                m = rd_kafka_consumer_poll(rk, 100);
                if (!m)
                        continue;
                if (!m->err && m->partition == 0) {
                        printf("  next of [0]: @%lld\n", (long long)m->offset);
                        rd_kafka_message_destroy(m);
                        break;
                }
                rd_kafka_message_destroy(m);
        }
        fail("seek [1] @3 (legacy)", rd_kafka_seek(rkt, 1, 3, 10000));
        for (tries = 0; tries < 100; tries++) {
                m = rd_kafka_consumer_poll(rk, 100);
                if (!m)
                        continue;
                if (!m->err && m->partition == 1) {
                        printf("  next of [1]: @%lld\n", (long long)m->offset);
                        rd_kafka_message_destroy(m);
                        break;
                }
                rd_kafka_message_destroy(m);
        }
        fail("position", rd_kafka_position(rk, list));
        print_parts("  position", list, 1);
        list->elems[0].offset = 1;
        fail("offsets_store [0] @1 (auto store on)", rd_kafka_offsets_store(rk, list));
        print_parts("  stored", list, 1);
        rd_kafka_topic_partition_list_destroy(list);
        fail("offset_store [0] @0 (legacy, auto store on)", rd_kafka_offset_store(rkt, 0, 0));
        m = NULL;
        for (tries = 0; tries < 10 && !m; tries++)
                m = rd_kafka_consumer_poll(rk, 100);
        error = rd_kafka_offset_store_message(m);
        printf("offset_store_message (%s): %s\n", m ? rd_kafka_err2name(m->err) : "no message",
               error ? rd_kafka_error_name(error) : "ok");
        if (error)
                rd_kafka_error_destroy(error);
        if (m)
                rd_kafka_message_destroy(m);
        rd_kafka_topic_destroy(rkt);
}

static int coop_revoked;

/* A rebalance_cb for either protocol: incremental calls for COOPERATIVE. */
static void coop_rebalance_cb(rd_kafka_t *rk, rd_kafka_resp_err_t err,
                              rd_kafka_topic_partition_list_t *parts, void *opaque) {
        rd_kafka_topic_partition_list_t *now = NULL;
        const char *proto = rd_kafka_rebalance_protocol(rk);
        rd_kafka_error_t *error = NULL;
        char what[128];
        int coop = proto && !strcmp(proto, "COOPERATIVE");

        snprintf(what, sizeof what, "cooperative: rebalance %s (%s, lost %d)", rd_kafka_err2name(err),
                 proto ? proto : "NULL", rd_kafka_assignment_lost(rk));
        print_parts(what, parts, 0);
        if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS && coop)
                error = rd_kafka_incremental_assign(rk, parts);
        else if (coop)
                error = rd_kafka_incremental_unassign(rk, parts);
        else
                rd_kafka_assign(rk, err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS ? parts : NULL);
        printf("  %s: %s\n", coop ? "incremental" : "assign", error ? rd_kafka_error_name(error) : "ok");
        if (error)
                rd_kafka_error_destroy(error);
        if (err == RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS)
                coop_revoked++;
        if (!rd_kafka_assignment(rk, &now)) {
                print_parts("  assignment", now, 0);
                rd_kafka_topic_partition_list_destroy(now);
        }
        (void)opaque;
}

/* A second group, cooperative-sticky: reads the topic again, then
 * unsubscribes (an incremental revocation) and closes. */
static void cooperative(const char *bootstrap, const char *topic, int n) {
        char errstr[512], group[256];
        rd_kafka_conf_t *conf = rd_kafka_conf_new();
        rd_kafka_topic_partition_list_t *subs;
        rd_kafka_message_t *m;
        rd_kafka_error_t *error;
        rd_kafka_t *rk;
        int msgs = 0, tries;

        snprintf(group, sizeof group, "%s-coop", topic);
        rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap, errstr, sizeof errstr);
        rd_kafka_conf_set(conf, "group.id", group, errstr, sizeof errstr);
        rd_kafka_conf_set(conf, "auto.offset.reset", "earliest", errstr, sizeof errstr);
        rd_kafka_conf_set(conf, "partition.assignment.strategy", "cooperative-sticky", errstr,
                          sizeof errstr);
        rd_kafka_conf_set_rebalance_cb(conf, coop_rebalance_cb);
        if (!(rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof errstr))) {
                printf("cooperative: %s\n", errstr);
                return;
        }
        subs = rd_kafka_topic_partition_list_new(1);
        rd_kafka_topic_partition_list_add(subs, topic, RD_KAFKA_PARTITION_UA);
        fail("cooperative: subscribe", rd_kafka_subscribe(rk, subs));
        rd_kafka_topic_partition_list_destroy(subs);
        for (tries = 0; tries < 600 && msgs < n;) {
                m = rd_kafka_consumer_poll(rk, 100);
                if (!m) {
                        tries++;
                        continue;
                }
                if (!m->err)
                        msgs++;
                rd_kafka_message_destroy(m);
        }
        printf("cooperative: consumed %d of %d\n", msgs, n);
        /* an incremental call outside a rebalance: the partition is assigned already */
        subs = rd_kafka_topic_partition_list_new(1);
        rd_kafka_topic_partition_list_add(subs, topic, 0);
        error = rd_kafka_incremental_assign(rk, subs);
        printf("cooperative: incremental_assign of an assigned partition: %s\n",
               error ? rd_kafka_error_name(error) : "ok");
        if (error)
                rd_kafka_error_destroy(error);
        rd_kafka_topic_partition_list_destroy(subs);
        fail("cooperative: unsubscribe", rd_kafka_unsubscribe(rk));
        for (tries = 0; tries < 100 && !coop_revoked; tries++) {
                m = rd_kafka_consumer_poll(rk, 100);
                if (m)
                        rd_kafka_message_destroy(m);
        }
        fail("cooperative: consumer_close", rd_kafka_consumer_close(rk));
        rd_kafka_destroy(rk);
}

/* The messages produced to partition p of parts. */
static int count_of(int n, int parts, int p) {
        return (n + parts - 1 - p) / parts;
}

static void legacy(const char *bootstrap, const char *topic, int n, int parts) {
        char errstr[512], key[32];
        rd_kafka_conf_t *conf = rd_kafka_conf_new();
        rd_kafka_message_t *m, *batch[MAX_MSGS];
        rd_kafka_topic_t *rkt;
        rd_kafka_t *rk;
        ssize_t got_n;
        int p, i, tries;

        rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap, errstr, sizeof errstr);
        if (!(rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof errstr))) {
                printf("legacy consumer: %s\n", errstr);
                return;
        }
        rkt = rd_kafka_topic_new(rk, topic, NULL);
        m = rd_kafka_consume(rkt, 99, 0);
        printf("legacy: consume of a partition not started: %s, %s\n", m ? "a message" : "NULL",
               rd_kafka_err2name(rd_kafka_last_error()));
        for (p = 0; p < parts && p < 4; p++) {
                int64_t offset = p == 1 ? 1 : p == 3 ? RD_KAFKA_OFFSET_END : RD_KAFKA_OFFSET_BEGINNING;
                printf("legacy: consume_start [%d] @%lld: %d\n", p, (long long)offset,
                       rd_kafka_consume_start(rkt, p, offset));
        }
        for (i = 0; i < count_of(n, parts, 0); i++) {
                if (!(m = rd_kafka_consume(rkt, 0, 10000))) {
                        printf("legacy: consume [0]: NULL, %s\n",
                               rd_kafka_err2name(rd_kafka_last_error()));
                        break;
                }
                copy_bytes(key, sizeof key, m->key, m->key_len);
                printf("legacy: consume %s %s [%d] @%lld\n", rd_kafka_err2name(m->err), key,
                       (int)m->partition, (long long)m->offset);
                rd_kafka_message_destroy(m);
        }
        if (parts > 1) {
                got_n = rd_kafka_consume_batch(rkt, 1, 10000, batch, count_of(n, parts, 1) - 1);
                printf("legacy: consume_batch [1]: %d\n", (int)got_n);
                for (i = 0; i < got_n; i++) {
                        copy_bytes(key, sizeof key, batch[i]->key, batch[i]->key_len);
                        printf("  %s %s [%d] @%lld\n", rd_kafka_err2name(batch[i]->err), key,
                               (int)batch[i]->partition, (long long)batch[i]->offset);
                        rd_kafka_message_destroy(batch[i]);
                }
        }
        if (parts > 2) {
                for (tries = 0; tries < 20 && cb_msgs < count_of(n, parts, 2); tries++)
                        if (rd_kafka_consume_callback(rkt, 2, 1000, consume_cb, &cb_msgs) < 0)
                                break;
                printf("legacy: consume_callback [2]: %d message(s)\n", cb_msgs);
        }
        if (parts > 3) {
                m = rd_kafka_consume(rkt, 3, 1000);
                printf("legacy: consume [3] from END: %s, %s\n", m ? "a message" : "NULL",
                       rd_kafka_err2name(rd_kafka_last_error()));
                if (m)
                        rd_kafka_message_destroy(m);
        }
        for (p = 0; p < parts && p < 4; p++)
                printf("legacy: consume_stop [%d]: %d\n", p, rd_kafka_consume_stop(rkt, p));

        /* the high-level calls need group.id */
        m = rd_kafka_consumer_poll(rk, 0);
        printf("no group: consumer_poll: %s", m ? rd_kafka_err2name(m->err) : "NULL");
        if (m) {
                printf(" [%d] @%lld payload %s\n", (int)m->partition, (long long)m->offset,
                       m->payload ? "set" : "NULL");
                rd_kafka_message_destroy(m);
        } else {
                printf("\n");
        }
        fail("no group: assign(NULL)", rd_kafka_assign(rk, NULL));
        fail("no group: commit", rd_kafka_commit(rk, NULL, 0));
        fail("no group: subscribe", rd_kafka_subscribe(rk, NULL));
        printf("no group: rebalance_protocol %s, memberid %s, group metadata %s, closed %d\n",
               rd_kafka_rebalance_protocol(rk) ? "set" : "NULL",
               rd_kafka_memberid(rk) ? "set" : "NULL",
               rd_kafka_consumer_group_metadata(rk) ? "set" : "NULL",
               rd_kafka_consumer_closed(rk));
        fail("no group: consumer_close", rd_kafka_consumer_close(rk));
        rd_kafka_topic_destroy(rkt);
        rd_kafka_destroy(rk);
}

/* The legacy consumer with every partition started on one application
 * queue: messages and end-of-partition events of all partitions through
 * consume_batch_queue, consume_queue and consume_callback_queue, counted
 * per partition (their interleaving varies). */
static int q_counts[MAX_PARTS], q_eofs;

static void count_queued(rd_kafka_message_t *m) {
        if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF)
                q_eofs++;
        else if (!m->err && m->partition >= 0 && m->partition < MAX_PARTS)
                q_counts[m->partition]++;
}

static void queue_cb(rd_kafka_message_t *m, void *opaque) {
        (void)opaque;
        count_queued(m);
}

static void legacy_queue(const char *bootstrap, const char *topic, int n, int parts) {
        char errstr[512];
        rd_kafka_conf_t *conf = rd_kafka_conf_new();
        rd_kafka_message_t *m, *batch[16];
        rd_kafka_topic_t *rkt;
        rd_kafka_queue_t *rkqu;
        rd_kafka_t *rk;
        ssize_t got_n;
        int p, i, tries, total = 0;

        rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap, errstr, sizeof errstr);
        rd_kafka_conf_set(conf, "enable.partition.eof", "true", errstr, sizeof errstr);
        if (!(rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof errstr))) {
                printf("queue consumer: %s\n", errstr);
                return;
        }
        rkt = rd_kafka_topic_new(rk, topic, NULL);
        rkqu = rd_kafka_queue_new(rk);
        for (p = 0; p < parts && p < MAX_PARTS; p++)
                if (rd_kafka_consume_start_queue(rkt, p, RD_KAFKA_OFFSET_BEGINNING, rkqu))
                        printf("queue: consume_start_queue [%d] failed: %s\n", p,
                               rd_kafka_err2name(rd_kafka_last_error()));
        printf("queue: consume_start_queue [0] again: %d\n",
               rd_kafka_consume_start_queue(rkt, 0, RD_KAFKA_OFFSET_BEGINNING, rkqu));
        got_n = rd_kafka_consume_batch_queue(rkqu, 10000, batch, 16);
        for (i = 0; i < got_n; i++) {
                count_queued(batch[i]);
                rd_kafka_message_destroy(batch[i]);
        }
        if ((m = rd_kafka_consume_queue(rkqu, 10000))) {
                count_queued(m);
                rd_kafka_message_destroy(m);
        }
        for (tries = 0; tries < 30 && q_eofs < parts; tries++)
                if (rd_kafka_consume_callback_queue(rkqu, 1000, queue_cb, NULL) < 0)
                        break;
        for (p = 0; p < parts && p < MAX_PARTS; p++)
                total += q_counts[p] == count_of(n, parts, p);
        printf("queue: batch of %d, %d of %d partitions complete, %d end(s) of partition\n",
               (int)got_n, total, parts, q_eofs);
        m = rd_kafka_consume_queue(rkqu, 100);
        printf("queue: consume_queue at the end: %s, %s\n", m ? "a message" : "NULL",
               rd_kafka_err2name(rd_kafka_last_error()));
        if (m)
                rd_kafka_message_destroy(m);
        for (p = 0; p < parts && p < MAX_PARTS; p++)
                if (rd_kafka_consume_stop(rkt, p))
                        printf("queue: consume_stop [%d] failed\n", p);
        rd_kafka_queue_destroy(rkqu);
        rd_kafka_topic_destroy(rkt);
        rd_kafka_destroy(rk);
}

int main(int argc, char **argv) {
        char errstr[512], group[256];
        const char *bootstrap, *topic;
        rd_kafka_conf_t *conf;
        rd_kafka_t *rk;
        rd_kafka_topic_partition_list_t *subs, *list = NULL;
        rd_kafka_resp_err_t err;
        rd_kafka_message_t *m, *last = NULL; /* the message of key-0000 */
        int n, parts = 0, i, eofs = 0, tries;
        int64_t lo, hi;
        char *member;

        if (argc != 4 || (n = atoi(argv[3])) < 1 || n > MAX_MSGS) {
                fprintf(stderr, "usage: %s <bootstrap> <topic> <n: 1..%d>\n", argv[0], MAX_MSGS);
                return 2;
        }
        bootstrap = argv[1];
        the_topic = topic = argv[2];
        if (produce(bootstrap, topic, n, &parts))
                return 1;

        conf = rd_kafka_conf_new();
        snprintf(group, sizeof group, "%s-group", topic);
        rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap, errstr, sizeof errstr);
        rd_kafka_conf_set(conf, "group.id", group, errstr, sizeof errstr);
        rd_kafka_conf_set(conf, "auto.offset.reset", "earliest", errstr, sizeof errstr);
        rd_kafka_conf_set(conf, "enable.partition.eof", "true", errstr, sizeof errstr);
        rd_kafka_conf_set(conf, "enable.auto.commit", "false", errstr, sizeof errstr);
        rd_kafka_conf_set_rebalance_cb(conf, rebalance_cb);
        rd_kafka_conf_set_offset_commit_cb(conf, offset_commit_cb);
        if (!(rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof errstr))) {
                printf("consumer: %s\n", errstr);
                return 1;
        }
        printf("rebalance protocol before joining: %s\n",
               rd_kafka_rebalance_protocol(rk) ? rd_kafka_rebalance_protocol(rk) : "NULL");
        fail("poll_set_consumer", rd_kafka_poll_set_consumer(rk));

        subs = rd_kafka_topic_partition_list_new(1);
        rd_kafka_topic_partition_list_add(subs, topic, RD_KAFKA_PARTITION_UA);
        fail("subscribe", rd_kafka_subscribe(rk, subs));
        rd_kafka_topic_partition_list_destroy(subs);
        if (!rd_kafka_subscription(rk, &list)) {
                print_parts("subscription", list, 0);
                rd_kafka_topic_partition_list_destroy(list);
        }

        /* up to 60 s of empty polls */
        for (tries = 0; tries < 600 && (got_cnt < n || eofs < parts);) {
                m = rd_kafka_consumer_poll(rk, 100);
                if (!m) {
                        tries++;
                        continue;
                }
                if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
                        if (m->partition >= 0 && m->partition < parts) {
                                if (eof_offset[m->partition] == 0 &&
                                    m->offset == (n + parts - 1 - m->partition) / parts)
                                        eofs++;
                                eof_offset[m->partition] = m->offset;
                        }
                        if (!m->rkt || strcmp(rd_kafka_topic_name(m->rkt), topic))
                                printf("EOF event without the topic handle\n");
                } else if (m->err) {
                        printf("error event: %s\n", rd_kafka_err2name(m->err));
                } else if (got_cnt < MAX_MSGS) {
                        struct got *g = &got[got_cnt++];
                        rd_kafka_headers_t *hdrs = NULL;
                        const void *hv = NULL;
                        size_t hs = 0;
                        copy_bytes(g->key, sizeof g->key, m->key, m->key_len);
                        copy_bytes(g->value, sizeof g->value, m->payload, m->len);
                        if (!rd_kafka_message_headers(m, &hdrs) &&
                            !rd_kafka_header_get_last(hdrs, "hdr", &hv, &hs))
                                copy_bytes(g->header, sizeof g->header, hv, hs);
                        else
                                strcpy(g->header, "(none)");
                        g->partition = m->partition;
                        g->offset = m->offset;
                        if (rd_kafka_message_timestamp(m, &g->tstype) <= 0)
                                g->tstype = RD_KAFKA_TIMESTAMP_NOT_AVAILABLE;
                        if (!m->rkt || strcmp(rd_kafka_topic_name(m->rkt), topic))
                                printf("message without the topic handle\n");
                        if (!last && !strcmp(g->key, "key-0000")) {
                                last = m; /* kept for commit_message */
                                continue;
                        }
                }
                rd_kafka_message_destroy(m);
        }
        printf("consumed %d of %d, %d partition(s) at EOF\n", got_cnt, n, eofs);
        qsort(got, got_cnt, sizeof got[0], cmp_got);
        for (i = 0; i < got_cnt; i++)
                printf("msg %s %s hdr=%s [%d] @%lld tstype %d\n", got[i].key, got[i].value,
                       got[i].header, (int)got[i].partition, (long long)got[i].offset,
                       (int)got[i].tstype);
        for (i = 0; i < parts; i++)
                printf("eof [%d] @%lld\n", i, (long long)eof_offset[i]);

        if (!rd_kafka_subscription(rk, &list)) {
                print_parts("subscription", list, 0);
                rd_kafka_topic_partition_list_destroy(list);
        }
        if (!rd_kafka_assignment(rk, &list)) {
                print_parts("assignment", list, 0);
                fail("position", rd_kafka_position(rk, list));
                print_parts("position", list, 1);
                rd_kafka_topic_partition_list_destroy(list);
        }
        printf("rebalance protocol: %s\n", rd_kafka_rebalance_protocol(rk));
        member = rd_kafka_memberid(rk);
        printf("memberid: %s\n", member && *member ? "set" : "empty");
        rd_kafka_mem_free(rk, member);

        fail("commit (sync, stored offsets)", rd_kafka_commit(rk, NULL, 0));
        for (tries = 0; tries < 50 && !commit_cbs; tries++) {
                m = rd_kafka_consumer_poll(rk, 100);
                if (m)
                        rd_kafka_message_destroy(m);
        }
        printf("offset_commit_cb calls: %d\n", commit_cbs);

        list = rd_kafka_topic_partition_list_new(parts);
        for (i = 0; i < parts; i++)
                rd_kafka_topic_partition_list_add(list, topic, i);
        fail("committed", rd_kafka_committed(rk, list, 10000));
        print_parts("committed", list, 1);
        for (i = 0; i < parts; i++) {
                err = rd_kafka_query_watermark_offsets(rk, topic, i, &lo, &hi, 10000);
                printf("query_watermark_offsets [%d]: %s %lld..%lld\n", i, rd_kafka_err2name(err),
                       (long long)lo, (long long)hi);
                lo = hi = -99;
                err = rd_kafka_get_watermark_offsets(rk, topic, i, &lo, &hi);
                printf("get_watermark_offsets [%d]: %s high %lld\n", i, rd_kafka_err2name(err),
                       (long long)hi);
                list->elems[i].offset = 0; /* timestamp 0: the first message */
        }
        fail("offsets_for_times", rd_kafka_offsets_for_times(rk, list, 10000));
        print_parts("offsets_for_times", list, 1);
        rd_kafka_topic_partition_list_destroy(list);

        if (last) {
                commit_cbs = 0;
                fail("commit_message (sync)", rd_kafka_commit_message(rk, last, 0));
                printf("key-0000's message [%d] @%lld\n", (int)last->partition,
                       (long long)last->offset);
                rd_kafka_message_destroy(last);
                for (tries = 0; tries < 50 && !commit_cbs; tries++) {
                        m = rd_kafka_consumer_poll(rk, 100);
                        if (m)
                                rd_kafka_message_destroy(m);
                }
        }

        group_metadata(rk, group);
        seek_pause_store(rk, topic, parts);

        printf("closed before close: %d\n", rd_kafka_consumer_closed(rk));
        fail("consumer_close", rd_kafka_consumer_close(rk));
        printf("closed after close: %d\n", rd_kafka_consumer_closed(rk));
        rd_kafka_destroy(rk);
        cooperative(bootstrap, topic, n);
        legacy(bootstrap, topic, n, parts);
        legacy_queue(bootstrap, topic, n, parts);
        printf("done\n");
        return 0;
}
