/*
 * A group consumer's rebalance protocol, group metadata (KIP-447) and
 * non-blocking close (rd_kafka_consumer_close_queue / _closed), in C,
 * against the broker:
 * - gregor_consumer_rebalance_protocol: "NONE" before joining, "EAGER"
 *   once in the group; gregor_consumer_assignment_lost 0;
 * - gregor_consumer_group_metadata: the group id, generation -1 and member
 *   "" before joining; generation >= 0 and the member id once joined;
 *   gregor_group_metadata_new / _new_with_genid build the other forms;
 * - gregor_consumer_close_start returns at once; an epoll loop on the
 *   consumer's eventfd polls until gregor_consumer_closed; the revocation
 *   ran in that poll, on this thread; later polls answer _STATE; a second
 *   close_start is refused with _STATE.
 */
#include <errno.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>

#include "check.h"

static int revoked_on_main;
static int assigned;
static pthread_t main_thread;

static void create_topic(const char *topic) {
    char err[512];
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
}

static void on_rebalance(gregor_consumer *c, int32_t event, const gregor_tpl *parts, void *opaque) {
    (void)c;
    (void)opaque;
    if (event == GREGOR_REBALANCE_ASSIGNED && gregor_tpl_count(parts) > 0)
        assigned = 1;
    if (event == GREGOR_REBALANCE_REVOKED && pthread_equal(pthread_self(), main_thread))
        revoked_on_main++;
}

int main(void) {
    char err[512], topic[128], group[128];
    main_thread = pthread_self();
    unique_topic(topic, sizeof topic, "events-close");
    unique_topic(group, sizeof group, "events-close-g");
    create_topic(topic);
    const char *pairs[] = {"group.id", group, "session.timeout.ms", "6000", NULL};
    gregor_consumer *c = test_consumer(pairs);

    CHECK_STR(gregor_consumer_rebalance_protocol(c), "NONE");
    CHECK_STR(gregor_consumer_rebalance_protocol(NULL), "NONE");
    CHECK_INT(gregor_consumer_assignment_lost(c), 0);
    CHECK_INT(gregor_consumer_closed(c), 0);
    CHECK_INT(gregor_consumer_closed(NULL), -1);

    gregor_group_metadata *md = gregor_consumer_group_metadata(c);
    CHECK(md != NULL);
    CHECK_STR(gregor_group_metadata_group_id(md), group);
    CHECK_INT(gregor_group_metadata_generation_id(md), -1);
    CHECK_STR(gregor_group_metadata_member_id(md), "");
    CHECK(gregor_group_metadata_group_instance_id(md) == NULL);
    gregor_group_metadata_free(md);
    CHECK(gregor_consumer_group_metadata(NULL) == NULL);
    CHECK(gregor_group_metadata_new(NULL) == NULL);
    CHECK(gregor_group_metadata_new("") == NULL);
    md = gregor_group_metadata_new_with_genid("g", 4, "m-1", "inst");
    CHECK_INT(gregor_group_metadata_generation_id(md), 4);
    CHECK_STR(gregor_group_metadata_member_id(md), "m-1");
    CHECK_STR(gregor_group_metadata_group_instance_id(md), "inst");
    gregor_group_metadata_free(md);
    gregor_group_metadata_free(NULL);
    CHECK_INT(gregor_group_metadata_generation_id(NULL), -1);

    CHECK_INT(gregor_consumer_set_rebalance_cb(c, on_rebalance, NULL), 0);
    const char *topics[] = {topic};
    CHECK_OK(gregor_consumer_subscribe(c, topics, 1, err, sizeof err), err);
    int64_t deadline = now_ms() + 30000;
    while (!assigned && now_ms() < deadline) {
        gregor_message *m = gregor_consumer_poll(c, 100);
        if (m)
            gregor_message_free(m);
    }
    CHECK(assigned);
    CHECK_STR(gregor_consumer_rebalance_protocol(c), "EAGER");
    md = gregor_consumer_group_metadata(c);
    CHECK(gregor_group_metadata_generation_id(md) >= 0);
    char member[256];
    CHECK_OK(gregor_consumer_member_id(c, member, sizeof member), "member_id");
    CHECK_STR(gregor_group_metadata_member_id(md), member);
    gregor_group_metadata_free(md);

    int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    uint64_t one = 1, v;
    CHECK_INT(gregor_consumer_io_event_enable(c, fd, &one, sizeof one), 0);
    int ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev = {.events = EPOLLIN};
    ev.data.fd = fd;
    CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) == 0);
    while (read(fd, &v, sizeof v) == (ssize_t)sizeof v) {
    }

    int64_t t0 = now_ms();
    CHECK_INT(gregor_consumer_close_start(c), 0);
    /* the close cannot end before the application polls (the revocation is
     * served on the polling thread): still open here means close_start did
     * not wait for it (a condition, not a time a loaded machine can miss) */
    CHECK_MSG(gregor_consumer_closed(c) == 0, "close_start blocked until the close ended");
    CHECK_INT(gregor_consumer_close_start(c), GREGOR_ERR__STATE);
    int state_errors = 0, wakeups = 0;
    deadline = now_ms() + 30000;
    while (gregor_consumer_closed(c) != 1) {
        CHECK_MSG(now_ms() < deadline, "close did not end");
        struct epoll_event out;
        if (epoll_wait(ep, &out, 1, 100) != 1)
            continue;
        if (read(fd, &v, sizeof v) != (ssize_t)sizeof v)
            continue;
        wakeups++;
        gregor_message *m = gregor_consumer_poll(c, 0);
        if (m) {
            if (gregor_message_err(m) == GREGOR_ERR__STATE)
                state_errors++;
            gregor_message_free(m);
        }
    }
    printf("close_start -> closed in %" PRId64 " ms, %d wakeups, %d _STATE polls\n",
           now_ms() - t0, wakeups, state_errors);
    CHECK_INT(revoked_on_main, 1);
    gregor_message *m = gregor_consumer_poll(c, 0);
    CHECK(m != NULL);
    CHECK_INT(gregor_message_err(m), GREGOR_ERR__STATE);
    gregor_message_free(m);
    CHECK_INT(gregor_consumer_io_event_enable(c, -1, NULL, 0), 0);
    gregor_consumer_free(c);
    close(ep);
    close(fd);
    printf("ok\n");
    return 0;
}
