/*
 * Group admin through the C API, against the test broker: offsets set on a
 * new group with an admin commit and read back (all, and named partitions
 * in order), the group listed and described (no members: Empty), the typed
 * error for OffsetDelete (the broker lacks it: the call fails with
 * GREGOR_ERR__UNSUPPORTED_FEATURE and writes no result), the group deleted
 * and no longer listed; NULL and out-of-range handling of every new result
 * object. Decoding of consumer-protocol members is shown on scripted bytes
 * in tests/admin_groups.rs (the broker returns member metadata empty).
 */
#include "check.h"

static int listed(gregor_admin *admin, const char *group, int *simple) {
    char err[512];
    gregor_group_listings *l = NULL;
    CHECK_OK(gregor_admin_list_groups(admin, NULL, 0, NULL, 0, NULL, &l, err, sizeof err), err);
    CHECK_INT(gregor_group_listings_error_count(l), 0);
    int found = 0;
    for (size_t i = 0; i < gregor_group_listings_count(l); i++) {
        if (strcmp(gregor_group_listings_group_id(l, i), group) == 0) {
            found = 1;
            if (simple)
                *simple = gregor_group_listings_is_simple(l, i);
            CHECK(gregor_group_listings_coordinator_id(l, i) >= 0);
            CHECK(gregor_group_listings_state(l, i) != NULL);
        }
    }
    CHECK(gregor_group_listings_group_id(l, 1u << 30) == NULL);
    CHECK_INT(gregor_group_listings_error_err(l, 0), GREGOR_ERR__INVALID_ARG);
    gregor_group_listings_free(l);
    return found;
}

int main(void) {
    char err[512];
    char topic[128], group[128];
    unique_topic(topic, sizeof topic, "cgroups");
    unique_topic(group, sizeof group, "cgroups-g");

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

    /* set offsets: an admin commit on a group with no members */
    gregor_tpl *offs = gregor_tpl_new();
    gregor_tpl_add(offs, topic, 0, 12);
    gregor_tpl_add(offs, topic, 1, 30);
    const char *md[2] = {"c-meta", NULL};
    gregor_partition_results *pr = NULL;
    CHECK_OK(gregor_admin_alter_group_offsets(admin, group, offs, md, NULL, &pr, err, sizeof err),
             err);
    CHECK_INT(gregor_partition_results_count(pr), 2);
    for (size_t i = 0; i < 2; i++)
        CHECK_MSG(gregor_partition_results_err(pr, i) == 0, "%s",
                  gregor_partition_results_errstr(pr, i));
    gregor_partition_results_free(pr);

    /* read them back: all of the group's, then one named partition */
    CHECK_OK(gregor_admin_list_group_offsets(admin, group, NULL, 1, NULL, &pr, err, sizeof err),
             err);
    CHECK_INT(gregor_partition_results_count(pr), 2);
    CHECK_STR(gregor_partition_results_topic(pr, 0), topic);
    CHECK_INT(gregor_partition_results_partition(pr, 0), 0);
    CHECK_INT(gregor_partition_results_offset(pr, 0), 12);
    CHECK_INT(gregor_partition_results_offset(pr, 1), 30);
    CHECK_INT(gregor_partition_results_err(pr, 1), 0);
    /* the broker keeps no metadata or leader epoch (librdkafka reads none either) */
    CHECK_INT(gregor_partition_results_leader_epoch(pr, 0), -1);
    CHECK(gregor_partition_results_metadata(pr, 0) == NULL);
    CHECK(gregor_partition_results_metadata(pr, 9) == NULL);
    gregor_partition_results_free(pr);

    gregor_tpl *one = gregor_tpl_new();
    gregor_tpl_add(one, topic, 1, 0);
    CHECK_OK(gregor_admin_list_group_offsets(admin, group, one, 0, NULL, &pr, err, sizeof err), err);
    CHECK_INT(gregor_partition_results_count(pr), 1);
    CHECK_INT(gregor_partition_results_offset(pr, 0), 30);
    gregor_partition_results_free(pr);

    /* listed (a group that only has offsets) and described */
    int simple = -1;
    CHECK(listed(admin, group, &simple));
    /* Kafka lists a group that only has offsets with protocol type "" (a
     * simple group); nisshi says "consumer" in ListGroups (and "" in
     * DescribeGroups) */
    CHECK(simple == 0 || simple == 1);
    const char *gs[2] = {group, group};
    gregor_group_descriptions *gd = NULL;
    CHECK_OK(gregor_admin_describe_groups(admin, gs, 2, 1, NULL, &gd, err, sizeof err), err);
    CHECK_INT(gregor_group_descriptions_count(gd), 1); /* one per distinct group */
    CHECK_MSG(gregor_group_descriptions_err(gd, 0) == 0, "%s", gregor_group_descriptions_errstr(gd, 0));
    CHECK_STR(gregor_group_descriptions_group_id(gd, 0), group);
    CHECK_STR(gregor_group_descriptions_state(gd, 0), "Empty");
    CHECK_INT(gregor_group_descriptions_member_count(gd, 0), 0);
    int32_t cid = -2, cport = -2;
    const char *chost = NULL;
    CHECK_OK(gregor_group_descriptions_coordinator(gd, 0, &cid, &chost, &cport), "coordinator");
    CHECK(cid >= 0 && chost != NULL && cport > 0);
    int ops[16];
    CHECK(gregor_group_descriptions_authorized_operations(gd, 0, ops, 16) >= 0);
    /* out of range: NULL, -1, 0, INVALID_ARG, nothing written */
    CHECK(gregor_group_descriptions_member_id(gd, 0, 0) == NULL);
    CHECK(gregor_group_descriptions_state(gd, 5) == NULL);
    CHECK_INT(gregor_group_descriptions_member_subscription_version(gd, 0, 0), -1);
    CHECK_INT(gregor_group_descriptions_member_subscription_topic_count(gd, 0, 0), 0);
    CHECK_INT(gregor_group_descriptions_member_assignment_count(gd, 0, 0), 0);
    CHECK_INT(gregor_group_descriptions_member_subscription_err(gd, 0, 0), GREGOR_ERR__INVALID_ARG);
    gregor_slice sl = gregor_group_descriptions_member_metadata(gd, 0, 0);
    CHECK(sl.ptr == NULL && sl.len == 0);
    cid = -2;
    CHECK_INT(gregor_group_descriptions_coordinator(gd, 3, &cid, NULL, NULL), GREGOR_ERR__INVALID_ARG);
    CHECK_INT(cid, -2);
    const char *ot = NULL;
    int32_t op = -2;
    CHECK_INT(gregor_group_descriptions_member_assignment_partition(gd, 0, 0, 0, &ot, &op),
              GREGOR_ERR__INVALID_ARG);
    CHECK(ot == NULL && op == -2);
    gregor_group_descriptions_free(gd);

    /* OffsetDelete: not spoken by this broker, a typed error, no result */
    pr = NULL;
    int rc = gregor_admin_delete_group_offsets(admin, group, one, NULL, &pr, err, sizeof err);
    CHECK_INT(rc, GREGOR_ERR__UNSUPPORTED_FEATURE);
    CHECK_CONTAINS(err, "OffsetDelete");
    CHECK(pr == NULL);

    /* delete the group: then it is gone */
    gregor_group_results *gr = NULL;
    CHECK_OK(gregor_admin_delete_groups(admin, gs, 1, NULL, &gr, err, sizeof err), err);
    CHECK_INT(gregor_group_results_count(gr), 1);
    CHECK_STR(gregor_group_results_group_id(gr, 0), group);
    CHECK_MSG(gregor_group_results_err(gr, 0) == 0, "%s", gregor_group_results_errstr(gr, 0));
    CHECK_INT(gregor_group_results_err(gr, 1), GREGOR_ERR__INVALID_ARG);
    gregor_group_results_free(gr);
    CHECK(!listed(admin, group, NULL));

    /* NULLs */
    CHECK_INT(gregor_admin_list_groups(NULL, NULL, 0, NULL, 0, NULL, NULL, err, sizeof err),
              GREGOR_ERR__INVALID_ARG);
    CHECK_INT(gregor_admin_describe_groups(admin, NULL, 1, 0, NULL, &gd, err, sizeof err),
              GREGOR_ERR__INVALID_ARG);
    CHECK_INT(gregor_admin_list_group_offsets(admin, NULL, NULL, 0, NULL, &pr, err, sizeof err),
              GREGOR_ERR__INVALID_ARG);
    CHECK_INT(gregor_admin_alter_group_offsets(admin, group, NULL, NULL, NULL, &pr, err, sizeof err),
              GREGOR_ERR__INVALID_ARG);
    CHECK_INT(gregor_group_listings_count(NULL), 0);
    CHECK_INT(gregor_group_descriptions_count(NULL), 0);
    CHECK_INT(gregor_group_results_count(NULL), 0);
    gregor_group_listings_free(NULL);
    gregor_group_descriptions_free(NULL);
    gregor_group_results_free(NULL);

    const char *del[1] = {topic};
    CHECK_OK(gregor_admin_delete_topics(admin, del, 1, NULL, &tr, err, sizeof err), err);
    gregor_topic_results_free(tr);
    gregor_tpl_free(one);
    gregor_tpl_free(offs);
    gregor_admin_free(admin);
    printf("ok\n");
    return 0;
}
