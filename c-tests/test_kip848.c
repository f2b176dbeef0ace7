/*
 * The KIP-848 consumer group protocol (group.protocol=consumer) through the
 * C API, against librdkafka's mock cluster (tests/mock_cluster/, started
 * here through scripts/mock-cluster.sh; the test broker and gregor's own
 * mock do not serve ConsumerGroupHeartbeat): two members of one group share
 * a 4-partition topic, polled in turn on this thread. Their rebalance
 * callbacks get incremental events, applied with
 * gregor_consumer_incremental_assign / _unassign after committing what was
 * consumed; no partition is ever assigned to both members at once, every
 * message is consumed exactly once (each commits what it consumed, with its
 * member epoch, OffsetCommit v9), and the second member's close hands its
 * partitions back to the first.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include "check.h"

#define PARTS 4
#define PER 25
#define MEMBERS 2

typedef struct {
    int idx;
    int assigned;  /* ASSIGNED events */
    int revoked;   /* REVOKED events */
    int lost;      /* LOST events */
} member;

/* owner[p]: the member index owning partition p, -1 for none */
static int owner[PARTS];
/* times[p][o]: how often message o of partition p was consumed */
static int times[PARTS][PER];

static void on_rebalance(gregor_consumer *c, int32_t event, const gregor_tpl *parts,
                         void *opaque) {
    member *m = opaque;
    char errstr[512];
    size_t n = gregor_tpl_count(parts);
    if (event == GREGOR_REBALANCE_ASSIGNED) {
        m->assigned++;
        for (size_t i = 0; i < n; i++) {
            int p = gregor_tpl_partition(parts, i);
            CHECK(p >= 0 && p < PARTS);
            CHECK_MSG(owner[p] == -1, "partition %d assigned to member %d while member %d owns it",
                      p, m->idx, owner[p]);
            owner[p] = m->idx;
        }
        CHECK_OK(gregor_consumer_incremental_assign(c, parts, errstr, sizeof errstr), errstr);
    } else {
        if (event == GREGOR_REBALANCE_REVOKED) {
            m->revoked++;
            /* commit what was consumed before giving the partitions up */
            int rc = gregor_consumer_commit(c, NULL, 0, errstr, sizeof errstr);
            CHECK_MSG(rc == 0 || rc == GREGOR_ERR__NO_OFFSET, "commit at revoke: %s", errstr);
        } else {
            m->lost++;
        }
        for (size_t i = 0; i < n; i++) {
            int p = gregor_tpl_partition(parts, i);
            CHECK(p >= 0 && p < PARTS);
            CHECK_INT(owner[p], m->idx);
            owner[p] = -1;
        }
        CHECK_OK(gregor_consumer_incremental_unassign(c, parts, errstr, sizeof errstr), errstr);
    }
}

/* The mock cluster driver, talked to over pipes. */
typedef struct {
    pid_t pid;
    FILE *in;  /* its stdin */
    FILE *out; /* its stdout */
    char bootstrap[256];
} cluster;

static void command(cluster *mc, const char *line) {
    char buf[512];
    fprintf(mc->in, "%s\n", line);
    fflush(mc->in);
    CHECK_MSG(fgets(buf, sizeof buf, mc->out) != NULL, "%s: the mock cluster exited", line);
    CHECK_MSG(strncmp(buf, "ok", 2) == 0, "%s: %s", line, buf);
}

static void cluster_start(cluster *mc, int brokers) {
    char path[1024];
    FILE *f = popen("scripts/mock-cluster.sh path", "r");
    CHECK(f != NULL);
    CHECK_MSG(fgets(path, sizeof path, f) != NULL, "scripts/mock-cluster.sh path printed nothing");
    CHECK_INT(pclose(f), 0);
    path[strcspn(path, "\n")] = 0;
    int to[2], from[2];
    CHECK(pipe(to) == 0 && pipe(from) == 0);
    mc->pid = fork();
    CHECK(mc->pid >= 0);
    if (mc->pid == 0) {
        char n[16];
        snprintf(n, sizeof n, "%d", brokers);
        dup2(to[0], 0);
        dup2(from[1], 1);
        close(to[0]);
        close(to[1]);
        close(from[0]);
        close(from[1]);
        execl(path, path, n, (char *)NULL);
        _exit(127);
    }
    close(to[0]);
    close(from[1]);
    mc->in = fdopen(to[1], "w");
    mc->out = fdopen(from[0], "r");
    CHECK(mc->in && mc->out);
    CHECK_MSG(fgets(mc->bootstrap, sizeof mc->bootstrap, mc->out) != NULL,
              "the mock cluster did not start (%s)", path);
    mc->bootstrap[strcspn(mc->bootstrap, "\n")] = 0;
}

static void cluster_stop(cluster *mc) {
    int status;
    fprintf(mc->in, "quit\n");
    fclose(mc->in);
    fclose(mc->out);
    CHECK(waitpid(mc->pid, &status, 0) == mc->pid);
}

static gregor_consumer *new_member(const cluster *mc, const char *group, member *m,
                                   const char *topic) {
    char errstr[512];
    gregor_consumer *c = test_consumer((const char *const[]){
        "bootstrap.servers", mc->bootstrap, "group.id", group, "group.protocol", "consumer",
        "auto.offset.reset", "earliest", "enable.auto.commit", "false", "fetch.wait.max.ms",
        "100", NULL});
    CHECK_OK(gregor_consumer_set_rebalance_cb(c, on_rebalance, m), "set rebalance cb");
    const char *topics[] = {topic};
    CHECK_OK(gregor_consumer_subscribe(c, topics, 1, errstr, sizeof errstr), errstr);
    return c;
}

static int consumed(void) {
    int n = 0;
    for (int p = 0; p < PARTS; p++)
        for (int o = 0; o < PER; o++)
            n += times[p][o] > 0;
    return n;
}

/* Polls every open member in turn until `want` distinct messages were
 * consumed or `ms` passed; each message is committed at once. */
static void poll_members(gregor_consumer **cs, member *ms, int want, int ms_max) {
    char errstr[512];
    int64_t deadline = now_ms() + ms_max;
    while (consumed() < want && now_ms() < deadline) {
        for (int i = 0; i < MEMBERS; i++) {
            if (!cs[i])
                continue;
            gregor_message *m = gregor_consumer_poll(cs[i], 20);
            if (!m)
                continue;
            if (gregor_message_err(m) == 0) {
                int p = gregor_message_partition(m);
                int64_t o = gregor_message_offset(m);
                CHECK(p >= 0 && p < PARTS && o >= 0 && o < PER);
                CHECK_MSG(owner[p] == ms[i].idx, "member %d consumed [%d] @%lld it does not own",
                          i, p, (long long)o);
                times[p][o]++;
                CHECK_OK(gregor_consumer_commit(cs[i], NULL, 0, errstr, sizeof errstr), errstr);
            }
            gregor_message_free(m);
        }
    }
}

int main(void) {
    char errstr[512], group[128];
    const char *topic = "kip848c";
    cluster mc;
    cluster_start(&mc, 3);
    command(&mc, "consumer_group 200 5000");
    command(&mc, "topic kip848c 4 3");
    unique_topic(group, sizeof group, "kip848-g");
    for (int p = 0; p < PARTS; p++)
        owner[p] = -1;

    gregor_producer *prod = test_producer((const char *const[]){
        "bootstrap.servers", mc.bootstrap, NULL});
    for (int p = 0; p < PARTS; p++) {
        for (int i = 0; i < PER; i++) {
            char v[32];
            int len = snprintf(v, sizeof v, "p%d-%d", p, i);
            int32_t part;
            int64_t off;
            CHECK_OK(gregor_producer_send_sync(prod, topic, p, NULL, 0, (const uint8_t *)v,
                                               (size_t)len, NULL, -1, 30000, &part, &off,
                                               errstr, sizeof errstr),
                     errstr);
            CHECK_INT(off, i);
        }
    }
    gregor_producer_free(prod);

    member ms[MEMBERS] = {{.idx = 0}, {.idx = 1}};
    gregor_consumer *cs[MEMBERS] = {NULL, NULL};

    /* the first member takes every partition and consumes some */
    cs[0] = new_member(&mc, group, &ms[0], topic);
    poll_members(cs, ms, PARTS * PER / 4, 30000);
    CHECK(consumed() >= PARTS * PER / 4);
    CHECK_INT(ms[0].assigned, 1);
    char id[64];
    CHECK_OK(gregor_consumer_member_id(cs[0], id, sizeof id), "member id");
    CHECK_INT(strlen(id), 22); /* generated by the client (KIP-1082) */

    /* the second joins: the first revokes some, the second gets them */
    cs[1] = new_member(&mc, group, &ms[1], topic);
    int64_t deadline = now_ms() + 30000;
    while ((ms[1].assigned == 0 || ms[0].revoked == 0) && now_ms() < deadline)
        poll_members(cs, ms, PARTS * PER, 50);
    CHECK_MSG(ms[1].assigned >= 1 && ms[0].revoked >= 1,
              "no rebalance: assigned %d, revoked %d", ms[1].assigned, ms[0].revoked);
    int split[MEMBERS] = {0, 0};
    for (int p = 0; p < PARTS; p++)
        if (owner[p] >= 0)
            split[owner[p]]++;
    CHECK_MSG(split[0] == PARTS / 2 && split[1] == PARTS / 2, "split %d/%d", split[0],
              split[1]);
    poll_members(cs, ms, PARTS * PER * 3 / 4, 30000);

    /* the second leaves: its partitions go back to the first */
    CHECK_OK(gregor_consumer_close(cs[1]), "close");
    CHECK(ms[1].revoked >= 1);
    gregor_consumer_free(cs[1]);
    cs[1] = NULL;
    for (int p = 0; p < PARTS; p++)
        CHECK(owner[p] != 1);
    poll_members(cs, ms, PARTS * PER, 30000);
    CHECK_INT(consumed(), PARTS * PER);
    /* (the second member may have consumed its share before it left: the
     * first then takes those partitions back with nothing left to read) */
    int64_t until = now_ms() + 30000;
    int all = 0;
    while (!all && now_ms() < until) {
        poll_members(cs, ms, PARTS * PER + 1, 50);
        all = 1;
        for (int p = 0; p < PARTS; p++)
            all &= owner[p] == 0;
    }
    for (int p = 0; p < PARTS; p++) {
        CHECK_INT(owner[p], 0);
        for (int o = 0; o < PER; o++)
            CHECK_MSG(times[p][o] == 1, "[%d] @%d consumed %d times", p, o, times[p][o]);
    }
    CHECK_INT(ms[0].lost + ms[1].lost, 0);

    /* committed offsets: the end of every partition */
    gregor_tpl *q = gregor_tpl_new();
    for (int p = 0; p < PARTS; p++)
        CHECK_OK(gregor_tpl_add(q, topic, p, GREGOR_OFFSET_INVALID), "add");
    CHECK_OK(gregor_consumer_committed(cs[0], q, 10000, errstr, sizeof errstr), errstr);
    for (int p = 0; p < PARTS; p++)
        CHECK_INT(gregor_tpl_offset(q, (size_t)p), PER);
    gregor_tpl_free(q);

    CHECK_OK(gregor_consumer_close(cs[0]), "close");
    gregor_consumer_free(cs[0]);
    cluster_stop(&mc);
    printf("test_kip848: ok (member 0: %d assigned, %d revoked; member 1: %d assigned, "
           "%d revoked)\n",
           ms[0].assigned, ms[0].revoked, ms[1].assigned, ms[1].revoked);
    return 0;
}
