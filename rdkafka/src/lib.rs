//! librdkafka's C ABI on gregor: a library that is `librdkafka.so.1` to
//! programs built against librdkafka 2.12.1 (kcat, confluent-kafka-python's
//! C extension, rdkafka-ruby, …), with gregor's Rust core underneath.
//!
//! Every function librdkafka exports is here, by the one table
//! `abi/functions.tsv` (scripts/rdkafka-abi-table.py writes it from
//! librdkafka's `rdkafka.h`, `rdkafka_mock.h` and the library's own export
//! list). The modules below implement some by hand, each family in its
//! module; build.rs generates the rest ([`stubs`]), which fail as their
//! return type allows (`RD_KAFKA_RESP_ERR__NOT_IMPLEMENTED`, NULL, -1, …)
//! and say so in `errstr` where the function has one. build.rs also makes
//! the shared library's export list from the same table, so the library
//! exports exactly librdkafka's names: gregor's own `gregor_*` C ABI, linked
//! in through gregor's Rust API, stays hidden, and the library can be loaded
//! beside `libgregor.so`.
//!
//! The families implemented by hand, by module:
//!
//! | module | family |
//! |---|---|
//! | [`version`] | `rd_kafka_version`, `_version_str`, debug contexts |
//! | [`errors`] | error codes: `err2str`, `err2name`, descriptors, last error |
//! | [`error_object`] | `rd_kafka_error_t` |
//! | [`conf`] | `rd_kafka_conf_t`, `rd_kafka_topic_conf_t` |
//! | [`partition_list`] | `rd_kafka_topic_partition_list_t` / `_t`, leader epochs; conversions to gregor's `TopicPartitionOffset` |
//! | [`headers`] | `rd_kafka_headers_t`; conversions to gregor's headers |
//! | [`group_list`] | `rd_kafka_list_groups` and its `struct rd_kafka_group_list`, its destroy |
//! | [`admin_acls`] | AclBinding, AclBindingFilter; `CreateAcls`, `DescribeAcls`, `DeleteAcls` and their results; the ACL enumerations' names |
//! | [`admin_configs`] | ConfigResource, ConfigEntry; `DescribeConfigs`, `AlterConfigs`, `IncrementalAlterConfigs` and their results |
//! | [`admin_describe`] | TopicCollection; `DescribeTopics` and its topic descriptions |
//! | [`admin_groups`] | `ListConsumerGroupOffsets`; `rd_kafka_group_result_t` |
//! | [`admin_offsets`] | `ListOffsets` and its result infos |
//! | [`admin_parts`] | `rd_kafka_Node_t`, `rd_kafka_topic_result_t` accessors |
//! | [`admin_scram`] | SCRAM credential alterations; `DescribeUserScramCredentials`, `AlterUserScramCredentials` and their results |
//! | [`uuid`] | `rd_kafka_Uuid_t` |
//! | [`mem`] | `rd_kafka_mem_malloc` / `_calloc` / `_free`: the C heap every plain-data object lives on |
//! | [`handle`] | `rd_kafka_t`: new, destroy, name, type, poll, flush, purge, log level |
//! | [`topic`] | `rd_kafka_topic_t` |
//! | [`producer`] | `produce`, `produceva` (and `producev`, C in `csrc/producev.c` on `produceva`, which build.rs compiles and links), delivery reports |
//! | [`message`] | `rd_kafka_message_t` and its accessors |
//! | [`consumer`] | the high-level consumer: subscribe, `consumer_poll` (consumed messages, their headers and destroy), assignment and `rebalance_cb`, commits and `offset_commit_cb`, positions, seek, pause, watermarks, offsets for times |
//! | [`consume`] | the legacy consumer by topic handle and partition: `consume_start`, `_stop`, `consume`, `consume_batch`, `consume_callback`; and on an application queue where started partitions interleave: `consume_start_queue`, `consume_queue`, `consume_batch_queue`, `consume_callback_queue` |
//! | [`group_metadata`] | `rd_kafka_consumer_group_metadata_t`: of a consumer, new, accessors, write / read |
//! | [`txn`] | the transactional producer: init, begin, send offsets, commit, abort, with librdkafka's error flags |
//! | [`metadata`] | `rd_kafka_metadata_t` of `rd_kafka_metadata` |
//! | [`partitioner`] | the built-in partitioners' `rd_kafka_msg_partitioner_*` functions |
//! | [`queue`] | `rd_kafka_queue_t`: new, destroy, poll, length, the main, background and consumer queues |
//! | [`event`] | `rd_kafka_event_t` of the admin results, their topic results; the consumer queue's fetch (`message_next`, `_count`, `_array`) and error events |
//! | [`mock`] | `rd_kafka_mock_cluster_t` on gregor's mock cluster: new, destroy, handle, bootstraps; topics, leaders, followers, brokers down / up, RTT, rack; pushed request errors (`push_request_errors` and a broker's `push_request_error_rtts`, C in `csrc/mock.c`), coordinators, API versions, request tracking |
//! | [`admin`] | AdminOptions, NewTopic, DeleteTopic, NewPartitions; `CreateTopics`, `DeleteTopics`, `CreatePartitions`; `rd_kafka_thread_cnt` |
//!
//! Conventions of every export: its body runs inside [`guard::guard`], so
//! no panic unwinds into C; what it writes through the caller's pointers
//! goes through [`raw`].

#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod admin;
pub mod admin_acls;
pub mod admin_configs;
pub mod admin_describe;
pub mod admin_groups;
pub mod admin_offsets;
pub mod admin_parts;
pub mod admin_scram;
pub mod conf;
pub mod consume;
pub mod consumer;
pub mod error_object;
pub mod errors;
pub mod event;
pub mod group_list;
pub mod group_metadata;
pub mod guard;
pub mod handle;
pub mod headers;
pub mod mem;
pub mod message;
pub mod metadata;
pub mod mock;
pub mod partition_list;
pub mod partitioner;
pub mod producer;
pub mod queue;
pub mod raw;
pub mod sasl;
pub mod stubs;
pub mod topic;
pub mod txn;
pub mod uuid;
pub mod version;
