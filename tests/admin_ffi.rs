//! The admin C API (src/ffi/admin/) called through its `extern "C"`
//! functions, as C does: builders, calls, result accessors, ownership,
//! NULL and out-of-range handling — against the real broker, and against
//! the scripted cluster (kafka-python bodies) for what the broker lacks.
#![allow(unsafe_code)]

mod admin_fixtures;
mod admin_mock;
mod common;

use std::ffi::{c_char, CStr, CString};
use std::ptr;

use admin_fixtures::*;
use admin_mock::{any, on, Mock};
use gregor::ffi::*;

fn s(p: *const c_char) -> Option<String> {
    if p.is_null() {
        None
    } else {
        Some(unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_string())
    }
}

struct Err([c_char; 512]);

impl Err {
    fn new() -> Self {
        Err([0; 512])
    }
    fn p(&mut self) -> *mut c_char {
        self.0.as_mut_ptr()
    }
    fn text(&self) -> String {
        s(self.0.as_ptr()).unwrap()
    }
}

fn admin_for(bootstrap: &str) -> *mut gregor_admin {
    let conf = gregor_config_new();
    let mut e = Err::new();
    let k = CString::new("bootstrap.servers").unwrap();
    let v = CString::new(bootstrap).unwrap();
    assert_eq!(
        gregor_config_set(conf, k.as_ptr(), v.as_ptr(), e.p(), 512),
        0
    );
    let k2 = CString::new("socket.timeout.ms").unwrap();
    let v2 = CString::new("10000").unwrap();
    assert_eq!(
        gregor_config_set(conf, k2.as_ptr(), v2.as_ptr(), e.p(), 512),
        0
    );
    let a = gregor_admin_new(conf, e.p(), 512);
    gregor_config_free(conf);
    assert!(!a.is_null(), "{}", e.text());
    a
}

#[test]
fn topics_configs_and_cluster_on_the_broker() {
    if !common::broker_up() {
        return;
    }
    let a = admin_for(&common::broker());
    let mut e = Err::new();

    let mut cd = ptr::null_mut();
    assert_eq!(
        gregor_admin_describe_cluster(a, 0, ptr::null(), &mut cd, e.p(), 512),
        0,
        "{}",
        e.text()
    );
    let node = gregor_cluster_description_controller_id(cd);
    assert_eq!(gregor_cluster_description_broker_count(cd), 1);
    assert_eq!(gregor_cluster_description_broker_id(cd, 0), node);
    let host = s(gregor_cluster_description_broker_host(cd, 0)).unwrap();
    let port = gregor_cluster_description_broker_port(cd, 0);
    assert_eq!(format!("{host}:{port}"), common::broker());
    assert!(s(gregor_cluster_description_cluster_id(cd)).is_some());
    assert_eq!(gregor_cluster_description_broker_id(cd, 9), -1);
    assert_eq!(
        gregor_cluster_description_authorized_operations(cd, ptr::null_mut(), 0),
        -1
    );
    gregor_cluster_description_free(cd);

    // create two topics: counts + config, and an explicit assignment
    let t1 = CString::new(common::unique_topic("ffi-a")).unwrap();
    let t2 = CString::new(common::unique_topic("ffi-b")).unwrap();
    let nt1 = gregor_new_topic_new(t1.as_ptr(), 3, 1);
    let (ck, cv) = (
        CString::new("retention.ms").unwrap(),
        CString::new("54321").unwrap(),
    );
    assert_eq!(
        gregor_new_topic_set_config(nt1, ck.as_ptr(), cv.as_ptr(), e.p(), 512),
        0
    );
    let nt2 = gregor_new_topic_new(t2.as_ptr(), -1, -1);
    let brokers = [node];
    for p in 0..2 {
        assert_eq!(
            gregor_new_topic_set_replica_assignment(nt2, p, brokers.as_ptr(), 1, e.p(), 512),
            0
        );
    }
    assert_ne!(
        gregor_new_topic_set_replica_assignment(nt2, -1, brokers.as_ptr(), 1, e.p(), 512),
        0
    );
    let topics = [nt1.cast_const(), nt2.cast_const()];
    let opts = gregor_admin_options_new();
    gregor_admin_options_set_operation_timeout(opts, 10_000);
    let mut tr = ptr::null_mut();
    assert_eq!(
        gregor_admin_create_topics(a, topics.as_ptr(), 2, opts, &mut tr, e.p(), 512),
        0,
        "{}",
        e.text()
    );
    gregor_new_topic_free(nt1);
    gregor_new_topic_free(nt2);
    assert_eq!(gregor_topic_results_count(tr), 2);
    for i in 0..2 {
        assert_eq!(
            gregor_topic_results_err(tr, i),
            0,
            "{:?}",
            s(gregor_topic_results_errstr(tr, i))
        );
        assert_eq!(s(gregor_topic_results_errstr(tr, i)).as_deref(), Some(""));
        assert!(s(gregor_topic_results_topic_id(tr, i)).is_some());
    }
    assert_eq!(
        s(gregor_topic_results_name(tr, 0)),
        t1.to_str().ok().map(String::from)
    );
    assert_eq!(gregor_topic_results_num_partitions(tr, 0), 3);
    assert_eq!(gregor_topic_results_num_partitions(tr, 1), 2);
    let id1 = CString::new(s(gregor_topic_results_topic_id(tr, 0)).unwrap()).unwrap();
    assert_eq!(gregor_topic_results_err(tr, 5), GREGOR_ERR__INVALID_ARG);
    assert!(gregor_topic_results_name(tr, 5).is_null());
    gregor_topic_results_free(tr);

    // again: TOPIC_ALREADY_EXISTS per topic
    let nt = gregor_new_topic_new(t1.as_ptr(), 1, 1);
    let one = [nt.cast_const()];
    let mut tr = ptr::null_mut();
    assert_eq!(
        gregor_admin_create_topics(a, one.as_ptr(), 1, ptr::null(), &mut tr, e.p(), 512),
        0
    );
    assert_eq!(
        gregor_topic_results_err(tr, 0),
        GREGOR_ERR_TOPIC_ALREADY_EXISTS
    );
    let name = s(gregor_err_name(gregor_topic_results_err(tr, 0))).unwrap();
    assert_eq!(name, "TOPIC_ALREADY_EXISTS");
    gregor_topic_results_free(tr);
    gregor_new_topic_free(nt);

    // describe by name and by ID
    let names = [t1.as_ptr(), t2.as_ptr()];
    let mut d = ptr::null_mut();
    assert_eq!(
        gregor_admin_describe_topics(a, names.as_ptr(), 2, 0, ptr::null(), &mut d, e.p(), 512),
        0
    );
    assert_eq!(gregor_topic_descriptions_count(d), 2);
    assert_eq!(gregor_topic_descriptions_partition_count(d, 0), 3);
    assert_eq!(gregor_topic_descriptions_is_internal(d, 0), 0);
    let mut reps = [0i32; 4];
    assert_eq!(
        gregor_topic_descriptions_partition_replicas(d, 1, 1, reps.as_mut_ptr(), 4),
        1
    );
    assert_eq!(reps[0], node);
    assert_eq!(gregor_topic_descriptions_partition_leader(d, 1, 1), node);
    assert_eq!(gregor_topic_descriptions_partition_id(d, 0, 2), 2);
    assert_eq!(gregor_topic_descriptions_partition_id(d, 0, 3), -1);
    gregor_topic_descriptions_free(d);
    let ids = [id1.as_ptr()];
    let mut d = ptr::null_mut();
    assert_eq!(
        gregor_admin_describe_topics_by_id(a, ids.as_ptr(), 1, 0, ptr::null(), &mut d, e.p(), 512),
        0
    );
    assert_eq!(
        s(gregor_topic_descriptions_name(d, 0)),
        t1.to_str().ok().map(String::from)
    );
    gregor_topic_descriptions_free(d);

    // configs: incremental alter then describe
    let res = gregor_config_resource_new(GREGOR_CONFIG_RESOURCE_TOPIC, t1.as_ptr());
    let v = CString::new("65432").unwrap();
    assert_eq!(
        gregor_config_resource_add_incremental_config(
            res,
            ck.as_ptr(),
            GREGOR_ALTER_CONFIG_SET,
            v.as_ptr(),
            e.p(),
            512
        ),
        0
    );
    assert_ne!(
        gregor_config_resource_add_incremental_config(
            res,
            ck.as_ptr(),
            GREGOR_ALTER_CONFIG_SET,
            ptr::null(),
            e.p(),
            512
        ),
        0,
        "SET needs a value"
    );
    assert!(e.text().contains("needs a value"));
    let rs = [res.cast_const()];
    let mut cr = ptr::null_mut();
    assert_eq!(
        gregor_admin_incremental_alter_configs(a, rs.as_ptr(), 1, ptr::null(), &mut cr, e.p(), 512),
        0
    );
    assert_eq!(gregor_config_results_err(cr, 0), 0);
    gregor_config_results_free(cr);
    let keys = [ck.as_ptr()];
    let mut cr = ptr::null_mut();
    assert_eq!(
        gregor_admin_describe_configs(
            a,
            rs.as_ptr(),
            1,
            keys.as_ptr(),
            1,
            1,
            1,
            ptr::null(),
            &mut cr,
            e.p(),
            512
        ),
        0
    );
    assert_eq!(
        gregor_config_results_type(cr, 0),
        GREGOR_CONFIG_RESOURCE_TOPIC
    );
    assert_eq!(gregor_config_results_entry_count(cr, 0), 1);
    assert_eq!(
        s(gregor_config_results_entry_name(cr, 0, 0)).as_deref(),
        Some("retention.ms")
    );
    assert_eq!(
        s(gregor_config_results_entry_value(cr, 0, 0)).as_deref(),
        Some("65432")
    );
    assert_eq!(
        gregor_config_results_entry_source(cr, 0, 0),
        GREGOR_CONFIG_SOURCE_DYNAMIC_TOPIC
    );
    assert_eq!(gregor_config_results_entry_is_default(cr, 0, 0), 0);
    gregor_config_results_free(cr);
    gregor_config_resource_free(res);

    // delete records + list offsets through gregor_tpl
    let tpl = gregor_tpl_new();
    gregor_tpl_add(tpl, t1.as_ptr(), 0, GREGOR_OFFSET_SPEC_EARLIEST);
    gregor_tpl_add(tpl, t1.as_ptr(), 1, GREGOR_OFFSET_SPEC_MAX_TIMESTAMP);
    let mut pr = ptr::null_mut();
    assert_eq!(
        gregor_admin_list_offsets(a, tpl, 0, ptr::null(), &mut pr, e.p(), 512),
        0
    );
    assert_eq!(gregor_partition_results_err(pr, 0), 0);
    assert_eq!(gregor_partition_results_offset(pr, 0), 0);
    assert_eq!(
        gregor_partition_results_err(pr, 1),
        GREGOR_ERR__UNSUPPORTED_FEATURE,
        "this broker lacks ListOffsets v7"
    );
    gregor_partition_results_free(pr);
    gregor_tpl_free(tpl);

    // call-level: the broker lacks CreatePartitions
    let np = gregor_new_partitions_new(t1.as_ptr(), 5);
    let nps = [np.cast_const()];
    let mut tr = ptr::null_mut();
    let rc = gregor_admin_create_partitions(a, nps.as_ptr(), 1, ptr::null(), &mut tr, e.p(), 512);
    assert_eq!(rc, GREGOR_ERR__UNSUPPORTED_FEATURE);
    assert!(tr.is_null(), "out-parameters are written only on success");
    assert!(e.text().contains("CreatePartitions"), "{}", e.text());
    gregor_new_partitions_free(np);

    // delete by name; then describe reports the error per topic
    let mut tr = ptr::null_mut();
    assert_eq!(
        gregor_admin_delete_topics(a, names.as_ptr(), 2, opts, &mut tr, e.p(), 512),
        0
    );
    assert_eq!(
        (
            gregor_topic_results_err(tr, 0),
            gregor_topic_results_err(tr, 1)
        ),
        (0, 0)
    );
    gregor_topic_results_free(tr);
    let mut d = ptr::null_mut();
    assert_eq!(
        gregor_admin_describe_topics(a, names.as_ptr(), 1, 0, ptr::null(), &mut d, e.p(), 512),
        0
    );
    assert_eq!(
        gregor_topic_descriptions_err(d, 0),
        GREGOR_ERR_UNKNOWN_TOPIC_OR_PARTITION
    );
    gregor_topic_descriptions_free(d);

    // ACLs: the broker has no authorizer
    let f = gregor_acl_filter_new(
        GREGOR_RESOURCE_ANY,
        ptr::null(),
        GREGOR_PATTERN_ANY,
        ptr::null(),
        ptr::null(),
        GREGOR_ACL_OPERATION_ANY,
        GREGOR_ACL_PERMISSION_ANY,
        e.p(),
        512,
    );
    let mut acls = ptr::null_mut();
    assert_eq!(
        gregor_admin_describe_acls(a, f, ptr::null(), &mut acls, e.p(), 512),
        GREGOR_ERR_SECURITY_DISABLED
    );
    gregor_acl_filter_free(f);
    gregor_admin_options_free(opts);
    gregor_admin_free(a);
}

#[test]
fn null_and_bad_arguments_are_errors_not_crashes() {
    let mut e = Err::new();
    let mut tr = ptr::null_mut();
    assert_eq!(
        gregor_admin_create_topics(
            ptr::null(),
            ptr::null(),
            0,
            ptr::null(),
            &mut tr,
            e.p(),
            512
        ),
        GREGOR_ERR__INVALID_ARG
    );
    assert!(e.text().contains("admin"), "{}", e.text());
    let a = admin_for("127.0.0.1:1");
    assert_eq!(
        gregor_admin_create_topics(a, ptr::null(), 2, ptr::null(), &mut tr, e.p(), 512),
        GREGOR_ERR__INVALID_ARG,
        "a NULL array with a count"
    );
    assert_eq!(
        gregor_admin_delete_topics(a, ptr::null(), 0, ptr::null(), ptr::null_mut(), e.p(), 512),
        GREGOR_ERR__INVALID_ARG,
        "NULL out"
    );
    let bad = [CString::new("not-an-id").unwrap()];
    let bp = [bad[0].as_ptr()];
    assert_eq!(
        gregor_admin_delete_topics_by_id(a, bp.as_ptr(), 1, ptr::null(), &mut tr, e.p(), 512),
        GREGOR_ERR__INVALID_ARG
    );
    assert!(gregor_new_topic_new(ptr::null(), 1, 1).is_null());
    assert!(gregor_config_resource_new(1000, c"x".as_ptr()).is_null());
    let b = gregor_acl_binding_new(
        2,
        ptr::null(),
        3,
        c"User:x".as_ptr(),
        c"*".as_ptr(),
        3,
        3,
        e.p(),
        512,
    );
    assert!(b.is_null());
    assert!(e.text().contains("resource_name"), "{}", e.text());
    // accessors on NULL
    assert_eq!(gregor_topic_results_count(ptr::null()), 0);
    assert!(gregor_config_results_entry_name(ptr::null(), 0, 0).is_null());
    assert_eq!(
        gregor_partition_results_err(ptr::null(), 0),
        GREGOR_ERR__INVALID_ARG
    );
    assert!(gregor_quota_entries_value(ptr::null(), 0, 0).is_nan());
    // frees of NULL
    gregor_topic_results_free(ptr::null_mut());
    gregor_admin_free(ptr::null_mut());
    gregor_admin_options_free(ptr::null_mut());
    gregor_scram_alterations_free(ptr::null_mut());
    // list-offsets with an invalid spec
    let tpl = gregor_tpl_new();
    gregor_tpl_add(tpl, c"t".as_ptr(), 0, -7);
    let mut pr = ptr::null_mut();
    assert_eq!(
        gregor_admin_list_offsets(a, tpl, 0, ptr::null(), &mut pr, e.p(), 512),
        GREGOR_ERR__INVALID_ARG
    );
    gregor_tpl_free(tpl);
    gregor_admin_free(a);
}

#[test]
fn results_the_broker_cannot_produce_through_the_c_api() {
    let m = Mock::new(
        2,
        &[
            (35, 0, 4),
            (61, 0, 0),
            (48, 0, 1),
            (49, 0, 1),
            (50, 0, 0),
            (51, 0, 0),
            (65, 0, 0),
            (66, 0, 1),
            (31, 0, 3),
            (60, 0, 1),
            (46, 0, 0),
            (37, 0, 3),
        ],
    );
    let a = admin_for(&m.brokers[0].1);
    let mut e = Err::new();

    m.step(DESCRIBE_LOG_DIRS_V4_BROKER1, on(1));
    m.step(DESCRIBE_LOG_DIRS_V4_BROKER2, on(2));
    let mut l = ptr::null_mut();
    assert_eq!(
        gregor_admin_describe_log_dirs(a, ptr::null(), 0, ptr::null(), &mut l, e.p(), 512),
        0,
        "{}",
        e.text()
    );
    assert_eq!(gregor_log_dirs_broker_count(l), 2);
    assert_eq!(gregor_log_dirs_broker_err(l, 0), 0);
    assert_eq!(
        gregor_log_dirs_broker_err(l, 1),
        GREGOR_ERR_CLUSTER_AUTHORIZATION_FAILED
    );
    assert_eq!(
        s(gregor_log_dirs_dir_path(l, 0, 0)).as_deref(),
        Some("/var/kafka/a")
    );
    assert_eq!(gregor_log_dirs_dir_total_bytes(l, 0, 0), 1_000_000);
    assert_eq!(gregor_log_dirs_dir_usable_bytes(l, 0, 1), -1);
    assert_eq!(
        gregor_log_dirs_dir_err(l, 0, 1),
        GREGOR_ERR_KAFKA_STORAGE_ERROR
    );
    assert_eq!(gregor_log_dirs_replica_count(l, 0, 0), 2);
    assert_eq!(gregor_log_dirs_replica_size(l, 0, 0, 1), 8192);
    assert_eq!(gregor_log_dirs_replica_is_future(l, 0, 0, 1), 1);
    assert_eq!(
        s(gregor_log_dirs_replica_topic(l, 0, 0, 1)).as_deref(),
        Some("t")
    );
    gregor_log_dirs_free(l);

    m.topic("t", &[2, 1]);
    m.step(DESCRIBE_PRODUCERS_V0_BROKER1, on(1));
    m.step_then(DESCRIBE_PRODUCERS_V0_BROKER2, on(2), |st| {
        st.topics[0].1[0] = 1
    });
    m.step(DESCRIBE_PRODUCERS_V0_RETRY, on(1));
    let tpl = gregor_tpl_new();
    gregor_tpl_add(tpl, c"t".as_ptr(), 0, 0);
    gregor_tpl_add(tpl, c"t".as_ptr(), 1, 0);
    let mut pr = ptr::null_mut();
    assert_eq!(
        gregor_admin_describe_producers(a, tpl, -1, ptr::null(), &mut pr, e.p(), 512),
        0,
        "{}",
        e.text()
    );
    assert_eq!(gregor_partition_results_producer_count(pr, 0), 0);
    assert_eq!(gregor_partition_results_producer_count(pr, 1), 2);
    let (mut pid, mut epoch, mut seq, mut ts, mut ce, mut start) =
        (0i64, 0i32, 0i32, 0i64, 0i32, 0i64);
    assert_eq!(
        gregor_partition_results_producer(
            pr, 1, 0, &mut pid, &mut epoch, &mut seq, &mut ts, &mut ce, &mut start
        ),
        0
    );
    assert_eq!(
        (pid, epoch, seq, ts, ce, start),
        (1000, 3, 41, 1_700_000_000_000, 7, 120)
    );
    assert_eq!(
        gregor_partition_results_producer(
            pr,
            1,
            1,
            &mut pid,
            ptr::null_mut(),
            ptr::null_mut(),
            ptr::null_mut(),
            &mut ce,
            &mut start
        ),
        0
    );
    assert_eq!((pid, ce, start), (1001, -1, -1));
    assert_eq!(
        gregor_partition_results_producer(
            pr,
            1,
            2,
            &mut pid,
            ptr::null_mut(),
            ptr::null_mut(),
            ptr::null_mut(),
            ptr::null_mut(),
            ptr::null_mut()
        ),
        GREGOR_ERR__INVALID_ARG
    );
    gregor_partition_results_free(pr);
    gregor_tpl_free(tpl);

    m.step(DESCRIBE_CLIENT_QUOTAS_V1, any);
    let f = gregor_quota_filter_new(0);
    assert_eq!(
        gregor_quota_filter_add_component(f, c"user".as_ptr(), GREGOR_QUOTA_MATCH_ANY, ptr::null()),
        0
    );
    assert_ne!(
        gregor_quota_filter_add_component(f, c"user".as_ptr(), 9, ptr::null()),
        0
    );
    let mut q = ptr::null_mut();
    assert_eq!(
        gregor_admin_describe_client_quotas(a, f, ptr::null(), &mut q, e.p(), 512),
        0
    );
    assert_eq!(gregor_quota_entries_count(q), 2);
    assert_eq!(gregor_quota_entries_entity_part_count(q, 0), 2);
    assert_eq!(
        s(gregor_quota_entries_entity_part_type(q, 0, 0)).as_deref(),
        Some("client-id")
    );
    assert!(
        gregor_quota_entries_entity_part_name(q, 0, 0).is_null(),
        "the default entity"
    );
    assert_eq!(
        s(gregor_quota_entries_value_key(q, 0, 1)).as_deref(),
        Some("request_percentage")
    );
    assert_eq!(gregor_quota_entries_value(q, 0, 1), 12.5);
    gregor_quota_entries_free(q);
    gregor_quota_filter_free(f);

    m.step(ALTER_CLIENT_QUOTAS_V1, any);
    let qa = gregor_quota_alteration_new();
    gregor_quota_alteration_add_entity(qa, c"client-id".as_ptr(), c"app".as_ptr());
    gregor_quota_alteration_set(qa, c"bogus_rate".as_ptr(), 1.0);
    let qb = gregor_quota_alteration_new();
    gregor_quota_alteration_add_entity(qb, c"user".as_ptr(), c"alice".as_ptr());
    gregor_quota_alteration_add_entity(qb, c"client-id".as_ptr(), ptr::null());
    gregor_quota_alteration_remove(qb, c"consumer_byte_rate".as_ptr());
    let qs = [qa.cast_const(), qb.cast_const()];
    let mut q = ptr::null_mut();
    assert_eq!(
        gregor_admin_alter_client_quotas(a, qs.as_ptr(), 2, ptr::null(), &mut q, e.p(), 512),
        0
    );
    assert_eq!(gregor_quota_entries_err(q, 0), GREGOR_ERR_INVALID_REQUEST);
    assert!(s(gregor_quota_entries_errstr(q, 0))
        .unwrap()
        .contains("bogus_rate"));
    assert_eq!(gregor_quota_entries_err(q, 1), 0);
    gregor_quota_entries_free(q);
    gregor_quota_alteration_free(qa);
    gregor_quota_alteration_free(qb);

    m.step(DESCRIBE_SCRAM_V0, any);
    let users = [c"alice".as_ptr(), c"bob".as_ptr()];
    let mut u = ptr::null_mut();
    assert_eq!(
        gregor_admin_describe_user_scram_credentials(
            a,
            users.as_ptr(),
            2,
            ptr::null(),
            &mut u,
            e.p(),
            512
        ),
        0
    );
    assert_eq!(gregor_scram_users_credential_count(u, 0), 2);
    assert_eq!(
        gregor_scram_users_credential_mechanism(u, 0, 1),
        GREGOR_SCRAM_SHA_512
    );
    assert_eq!(gregor_scram_users_credential_iterations(u, 0, 1), 8192);
    assert_eq!(gregor_scram_users_err(u, 1), GREGOR_ERR_RESOURCE_NOT_FOUND);
    gregor_scram_users_free(u);

    m.step(ALTER_SCRAM_V0, any);
    let sa = gregor_scram_alterations_new();
    let salt: Vec<u8> = (0..32).collect();
    gregor_scram_alterations_add_delete(sa, c"alice".as_ptr(), GREGOR_SCRAM_SHA_512);
    gregor_scram_alterations_add_upsert(
        sa,
        c"alice".as_ptr(),
        GREGOR_SCRAM_SHA_256,
        4096,
        c"alice-secret".as_ptr(),
        salt.as_ptr(),
        32,
    );
    gregor_scram_alterations_add_upsert(
        sa,
        c"bob".as_ptr(),
        GREGOR_SCRAM_SHA_512,
        1024,
        c"pencil".as_ptr(),
        b"NaCl".as_ptr(),
        4,
    );
    let mut u = ptr::null_mut();
    assert_eq!(
        gregor_admin_alter_user_scram_credentials(a, sa, ptr::null(), &mut u, e.p(), 512),
        0
    );
    assert_eq!(
        gregor_scram_users_err(u, 1),
        GREGOR_ERR_UNACCEPTABLE_CREDENTIAL
    );
    assert_eq!(
        m.seen(51)[0].body,
        admin_mock::unhex(ALTER_SCRAM_V0_REQUEST.2),
        "hashlib's salted passwords"
    );
    gregor_scram_users_free(u);
    gregor_scram_alterations_free(sa);

    m.step(LIST_TRANSACTIONS_V1_BROKER1, on(1));
    m.step(LIST_TRANSACTIONS_V1_BROKER2, on(2));
    let mut t = ptr::null_mut();
    assert_eq!(
        gregor_admin_list_transactions(
            a,
            ptr::null(),
            0,
            ptr::null(),
            0,
            -1,
            ptr::null(),
            &mut t,
            e.p(),
            512
        ),
        0
    );
    assert_eq!(
        gregor_transactions_count(t),
        3,
        "two listed, one broker failed"
    );
    assert_eq!(
        s(gregor_transactions_state(t, 1)).as_deref(),
        Some("PrepareCommit")
    );
    assert_eq!(gregor_transactions_coordinator_id(t, 0), 1);
    assert_eq!(
        s(gregor_transactions_transactional_id(t, 2)).as_deref(),
        Some("")
    );
    assert_eq!(
        gregor_transactions_err(t, 2),
        GREGOR_ERR_COORDINATOR_NOT_AVAILABLE
    );
    gregor_transactions_free(t);

    m.state.lock().unwrap().coordinator = 2;
    m.step(DESCRIBE_TRANSACTIONS_V0, on(2));
    let ids = [c"txn-a".as_ptr()];
    let mut t = ptr::null_mut();
    assert_eq!(
        gregor_admin_describe_transactions(a, ids.as_ptr(), 1, ptr::null(), &mut t, e.p(), 512),
        0
    );
    assert_eq!(gregor_transactions_producer_epoch(t, 0), 3);
    assert_eq!(gregor_transactions_timeout_ms(t, 0), 60_000);
    assert_eq!(gregor_transactions_partition_count(t, 0), 3);
    assert_eq!(
        s(gregor_transactions_partition_topic(t, 0, 2)).as_deref(),
        Some("u")
    );
    assert_eq!(gregor_transactions_partition(t, 0, 1), 2);
    gregor_transactions_free(t);

    m.step(DELETE_ACLS_V3, any);
    let f1 = gregor_acl_filter_new(
        GREGOR_RESOURCE_TOPIC,
        c"orders".as_ptr(),
        GREGOR_PATTERN_ANY,
        ptr::null(),
        ptr::null(),
        GREGOR_ACL_OPERATION_ANY,
        GREGOR_ACL_PERMISSION_ANY,
        e.p(),
        512,
    );
    let f2 = gregor_acl_filter_new(
        GREGOR_RESOURCE_ANY,
        ptr::null(),
        GREGOR_PATTERN_MATCH,
        ptr::null(),
        ptr::null(),
        GREGOR_ACL_OPERATION_ANY,
        GREGOR_ACL_PERMISSION_ANY,
        e.p(),
        512,
    );
    let fs = [f1.cast_const(), f2.cast_const()];
    let mut dr = ptr::null_mut();
    assert_eq!(
        gregor_admin_delete_acls(a, fs.as_ptr(), 2, ptr::null(), &mut dr, e.p(), 512),
        0
    );
    let matches = gregor_delete_acls_results_matches(dr, 0);
    assert_eq!(gregor_acl_bindings_count(matches), 2);
    assert_eq!(
        s(gregor_acl_bindings_principal(matches, 1)).as_deref(),
        Some("User:bob")
    );
    assert_eq!(
        gregor_acl_bindings_operation(matches, 1),
        GREGOR_ACL_OPERATION_WRITE
    );
    assert_eq!(
        gregor_acl_bindings_permission_type(matches, 1),
        GREGOR_ACL_PERMISSION_DENY
    );
    assert_eq!(
        gregor_acl_bindings_err(matches, 1),
        GREGOR_ERR_UNKNOWN_SERVER_ERROR
    );
    assert_eq!(
        s(gregor_err_name(GREGOR_ERR_UNKNOWN_SERVER_ERROR)).as_deref(),
        Some("UNKNOWN_SERVER_ERROR")
    );
    assert_eq!(
        gregor_delete_acls_results_err(dr, 1),
        GREGOR_ERR_CLUSTER_AUTHORIZATION_FAILED
    );
    assert!(gregor_delete_acls_results_matches(dr, 2).is_null());
    gregor_delete_acls_results_free(dr);
    gregor_acl_filter_free(f1);
    gregor_acl_filter_free(f2);

    m.step(DESCRIBE_CLUSTER_V1, any);
    let mut cd = ptr::null_mut();
    assert_eq!(
        gregor_admin_describe_cluster(a, 1, ptr::null(), &mut cd, e.p(), 512),
        0
    );
    assert_eq!(
        s(gregor_cluster_description_broker_rack(cd, 1)).as_deref(),
        Some("rack-b")
    );
    let mut ops = [0; 8];
    assert_eq!(
        gregor_cluster_description_authorized_operations(cd, ops.as_mut_ptr(), 8),
        3
    );
    assert_eq!(
        &ops[..3],
        &[
            GREGOR_ACL_OPERATION_ALTER,
            GREGOR_ACL_OPERATION_DESCRIBE,
            GREGOR_ACL_OPERATION_DESCRIBE_CONFIGS
        ]
    );
    gregor_cluster_description_free(cd);

    m.step(LIST_REASSIGNMENTS_V0, any);
    let mut lr = ptr::null_mut();
    assert_eq!(
        gregor_admin_list_partition_reassignments(a, ptr::null(), ptr::null(), &mut lr, e.p(), 512),
        0
    );
    assert_eq!(gregor_partition_reassignments_count(lr), 2);
    let mut buf = [0i32; 2];
    assert_eq!(
        gregor_partition_reassignments_replicas(lr, 1, buf.as_mut_ptr(), 2),
        3,
        "3 replicas, 2 copied"
    );
    assert_eq!(buf, [1, 2]);
    assert_eq!(
        gregor_partition_reassignments_removing(lr, 1, buf.as_mut_ptr(), 2),
        1
    );
    gregor_partition_reassignments_free(lr);

    m.step_then(CREATE_PARTITIONS_V3_FIRST, on(1), |st| st.controller = 2);
    m.step(CREATE_PARTITIONS_V3_RETRY, on(2));
    let mut nps = Vec::new();
    for (t, n) in [
        (c"a", 6),
        (c"b", 4),
        (c"c", 2),
        (c"d", 5),
        (c"e", 5),
        (c"f", 5),
    ] {
        nps.push(gregor_new_partitions_new(t.as_ptr(), n));
    }
    let (r12, r21) = ([1, 2], [2, 1]);
    assert_eq!(
        gregor_new_partitions_set_replica_assignment(nps[0], 0, r12.as_ptr(), 2, e.p(), 512),
        0
    );
    assert_ne!(
        gregor_new_partitions_set_replica_assignment(nps[0], 2, r21.as_ptr(), 2, e.p(), 512),
        0,
        "out of order"
    );
    assert_eq!(
        gregor_new_partitions_set_replica_assignment(nps[0], 1, r21.as_ptr(), 2, e.p(), 512),
        0
    );
    let cptrs: Vec<*const gregor_new_partitions> = nps.iter().map(|p| p.cast_const()).collect();
    let opts = gregor_admin_options_new();
    gregor_admin_options_set_operation_timeout(opts, 5000);
    let mut tr = ptr::null_mut();
    assert_eq!(
        gregor_admin_create_partitions(a, cptrs.as_ptr(), 6, opts, &mut tr, e.p(), 512),
        0
    );
    let errs: Vec<i32> = (0..6).map(|i| gregor_topic_results_err(tr, i)).collect();
    assert_eq!(
        errs,
        [
            0,
            0,
            GREGOR_ERR_INVALID_PARTITIONS,
            GREGOR_ERR_INVALID_REPLICA_ASSIGNMENT,
            GREGOR_ERR_REASSIGNMENT_IN_PROGRESS,
            GREGOR_ERR_POLICY_VIOLATION
        ]
    );
    assert_eq!(
        m.seen(37)[1].body,
        admin_mock::unhex(CREATE_PARTITIONS_V3_RETRY_REQUEST.2)
    );
    gregor_topic_results_free(tr);
    for p in nps {
        gregor_new_partitions_free(p);
    }
    gregor_admin_options_free(opts);
    gregor_admin_free(a);
    let (left, unexpected) = m.leftovers();
    assert_eq!((left, unexpected.len()), (0, 0), "{unexpected:?}");
}
