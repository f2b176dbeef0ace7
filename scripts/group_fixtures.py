#!/usr/bin/env python3
"""Generates tests/group_fixtures/mod.rs: response bodies for the group admin
APIs (DescribeGroups with consumer-protocol members, ListGroups, DeleteGroups,
OffsetFetch, OffsetDelete), encoded by kafka-python 3's protocol classes --
an encoder independent of gregor's. The member metadata and assignments are
kafka-python's ConsumerProtocolSubscription / ConsumerProtocolAssignment
(kafka.protocol.consumer.metadata), version-prefixed exactly as a Java or
librdkafka member writes them into JoinGroup / SyncGroup; the test broker
(nisshi) returns those fields empty, so this is where their decoding is shown
(KAFKA-2687).

Each fixture is (NAME, API key, version, snippet); the snippet builds `msg`,
and the Rust constant holds `msg.encode()` as hex, with the snippet in its
doc comment. Regenerate with:

    python3 scripts/group_fixtures.py > tests/group_fixtures/mod.rs
"""

import textwrap

from kafka.protocol.admin.groups import *  # noqa: F401,F403
from kafka.protocol.consumer.group import (  # noqa: F401
    OffsetCommitRequest, OffsetCommitResponse, OffsetDeleteResponse, OffsetFetchResponse,
)
from kafka.protocol.consumer.metadata import (  # noqa: F401
    ConsumerProtocolAssignment, ConsumerProtocolSubscription,
)

# Shared by the snippets: what a Java 3.x / librdkafka 2.x member writes.
PRELUDE = """
S = ConsumerProtocolSubscription; A = ConsumerProtocolAssignment
java_sub = S(3, topics=["orders", "payments"], user_data=None,
             owned_partitions=[S.TopicPartition(topic="orders", partitions=[0])],
             generation_id=5, rack_id="rack-a").encode()
java_asg = A(3, assigned_partitions=[A.TopicPartition(topic="orders", partitions=[0, 1]),
                                     A.TopicPartition(topic="payments", partitions=[2])],
             user_data=None).encode()
rdk_sub = S(1, topics=["orders"], user_data=b"\\x00\\x01",
            owned_partitions=[]).encode()
rdk_asg = A(0, assigned_partitions=[A.TopicPartition(topic="orders", partitions=[2])],
            user_data=b"ud").encode()
old_sub = S(0, topics=["legacy"], user_data=None).encode()
"""

FIXTURES = [
    # ----- DescribeGroups, flexible v5: a mixed consumer group, a member
    # with garbage metadata, a non-consumer group, an unauthorized one -----
    ("DESCRIBE_GROUPS_V5", 15, 5, """
R = DescribeGroupsResponse; G = R.DescribedGroup; M = G.DescribedGroupMember
msg = R[5](throttle_time_ms=0, groups=[
    G(error_code=0, group_id="mixed", group_state="Stable", protocol_type="consumer", protocol_data="range",
      members=[
        M(member_id="java-1", group_instance_id="static-a", client_id="java-client", client_host="/10.0.0.1",
          member_metadata=java_sub, member_assignment=java_asg),
        M(member_id="rdkafka-1", group_instance_id=None, client_id="rdkafka", client_host="/10.0.0.2",
          member_metadata=rdk_sub, member_assignment=rdk_asg),
        M(member_id="broken-1", group_instance_id=None, client_id="broken", client_host="/10.0.0.3",
          member_metadata=b"\\x00\\x00\\x00\\x00\\x00\\x05ab", member_assignment=java_asg)],
      authorized_operations={3, 8}),
    G(error_code=0, group_id="connectors", group_state="Stable", protocol_type="connect", protocol_data="sessioned",
      members=[M(member_id="worker-1", group_instance_id=None, client_id="connect-1", client_host="/10.0.0.4",
                 member_metadata=b"\\x00\\x01url", member_assignment=b"\\x00\\x01x")],
      authorized_operations={8}),
    G(error_code=30, group_id="secret", group_state="", protocol_type="", protocol_data="",
      members=[], authorized_operations=set()),
])"""),
    # ----- DescribeGroups v0 (Kafka 0.9, KAFKA-2687's first form) -----
    ("DESCRIBE_GROUPS_V0", 15, 0, """
R = DescribeGroupsResponse; G = R.DescribedGroup; M = G.DescribedGroupMember
msg = R[0](groups=[
    G(error_code=0, group_id="old", group_state="Stable", protocol_type="consumer", protocol_data="roundrobin",
      members=[M(member_id="m-0", client_id="c0", client_host="/h0", member_metadata=old_sub,
                 member_assignment=A(0, assigned_partitions=[A.TopicPartition(topic="legacy", partitions=[0, 1, 2])], user_data=None).encode())]),
    G(error_code=0, group_id="rebalancing", group_state="PreparingRebalance", protocol_type="consumer", protocol_data="",
      members=[M(member_id="m-1", client_id="c1", client_host="/h1", member_metadata=b"", member_assignment=b"")]),
])"""),
    # ----- DescribeGroups v3: the coordinator moved, then the new one answers -----
    ("DESCRIBE_GROUPS_V3_NOT_COORDINATOR", 15, 3, """
R = DescribeGroupsResponse; G = R.DescribedGroup
msg = R[3](throttle_time_ms=0, groups=[
    G(error_code=16, group_id="moving", group_state="", protocol_type="", protocol_data="", members=[], authorized_operations=set())])"""),
    ("DESCRIBE_GROUPS_V3_MOVED", 15, 3, """
R = DescribeGroupsResponse; G = R.DescribedGroup
msg = R[3](throttle_time_ms=0, groups=[
    G(error_code=0, group_id="moving", group_state="Empty", protocol_type="consumer", protocol_data="", members=[],
      authorized_operations={3, 6, 8})])"""),
    # ----- ListGroups v4 from two brokers, one failing -----
    ("LIST_GROUPS_V4_BROKER1", 16, 4, """
R = ListGroupsResponse; L = R.ListedGroup
msg = R[4](throttle_time_ms=0, error_code=0, groups=[
    L(group_id="mixed", protocol_type="consumer", group_state="Stable"),
    L(group_id="offsets-only", protocol_type="", group_state="Empty")])"""),
    ("LIST_GROUPS_V4_BROKER2_ERROR", 16, 4, """
R = ListGroupsResponse
msg = R[4](throttle_time_ms=0, error_code=15, groups=[])"""),
    ("LIST_GROUPS_V4_BROKER2", 16, 4, """
R = ListGroupsResponse; L = R.ListedGroup
msg = R[4](throttle_time_ms=0, error_code=0, groups=[L(group_id="connectors", protocol_type="connect", group_state="Stable")])"""),
    # ----- DeleteGroups v2 -----
    ("DELETE_GROUPS_V2", 42, 2, """
R = DeleteGroupsResponse; D = R.DeletableGroupResult
msg = R[2](throttle_time_ms=0, results=[
    D(group_id="gone", error_code=0), D(group_id="busy", error_code=68), D(group_id="nobody", error_code=69)])"""),
    # ----- OffsetDelete v0 (KIP-496; the test broker lacks it) -----
    ("OFFSET_DELETE_V0", 47, 0, """
R = OffsetDeleteResponse; T = R.OffsetDeleteResponseTopic; P = T.OffsetDeleteResponsePartition
msg = R[0](error_code=0, throttle_time_ms=0, topics=[
    T(name="orders", partitions=[P(partition_index=0, error_code=0), P(partition_index=1, error_code=86)])])"""),
    ("OFFSET_DELETE_V0_GROUP_NOT_FOUND", 47, 0, """
R = OffsetDeleteResponse
msg = R[0](error_code=69, throttle_time_ms=0, topics=[])"""),
    # ----- OffsetFetch v5 (the single-group form, with leader epochs), first
    # refused while transactional offsets are pending -----
    ("OFFSET_FETCH_V5_UNSTABLE", 9, 5, """
R = OffsetFetchResponse
msg = R[5](throttle_time_ms=0, error_code=88, topics=[])"""),
    ("OFFSET_FETCH_V5", 9, 5, """
R = OffsetFetchResponse; T = R.OffsetFetchResponseTopic; P = T.OffsetFetchResponsePartition
msg = R[5](throttle_time_ms=0, error_code=0, topics=[
    T(name="orders", partitions=[
        P(partition_index=1, committed_offset=42, committed_leader_epoch=3, metadata="m1", error_code=0),
        P(partition_index=0, committed_offset=-1, committed_leader_epoch=-1, metadata="", error_code=0)])])"""),
    # ----- OffsetCommit v8 as an admin commit: the request kafka-python
    # encodes for generation -1 and no member, a moved coordinator, then
    # per-partition results -----
    ("OFFSET_COMMIT_V8_REQUEST", 8, 8, """
R = OffsetCommitRequest; T = R.OffsetCommitRequestTopic; P = T.OffsetCommitRequestPartition
msg = R[8](group_id="g", generation_id_or_member_epoch=-1, member_id="", group_instance_id=None, topics=[
    T(name="orders", partitions=[
        P(partition_index=0, committed_offset=5, committed_leader_epoch=3, committed_metadata="note"),
        P(partition_index=1, committed_offset=9, committed_leader_epoch=-1, committed_metadata="")])])"""),
    ("OFFSET_COMMIT_V8_NOT_COORDINATOR", 8, 8, """
R = OffsetCommitResponse; T = R.OffsetCommitResponseTopic; P = T.OffsetCommitResponsePartition
msg = R[8](throttle_time_ms=0, topics=[T(name="orders", partitions=[
    P(partition_index=0, error_code=16), P(partition_index=1, error_code=16)])])"""),
    ("OFFSET_COMMIT_V8", 8, 8, """
R = OffsetCommitResponse; T = R.OffsetCommitResponseTopic; P = T.OffsetCommitResponsePartition
msg = R[8](throttle_time_ms=0, topics=[T(name="orders", partitions=[
    P(partition_index=0, error_code=0), P(partition_index=1, error_code=12)])])"""),
]


def main():
    print("//! Generated by scripts/group_fixtures.py from kafka-python 3's protocol")
    print("//! classes (Apache Kafka's JSON message schemas): group admin response")
    print("//! bodies, with consumer protocol member metadata and assignments as Java")
    print("//! and librdkafka members write them. Do not edit by hand.")
    print("#![allow(dead_code)]")
    print()
    print("/// A body: (API key, version, hex).")
    print("pub type Fixture = (i16, i16, &'static str);")
    pre = {}
    exec(textwrap.dedent(PRELUDE), globals(), pre)
    print()
    print("// Member bytes used below (kafka.protocol.consumer.metadata):")
    print("// ```python")
    for line in textwrap.dedent(PRELUDE).strip().splitlines():
        print(f"// {line}".rstrip())
    print("// ```")
    for name in ("java_sub", "java_asg", "rdk_sub", "rdk_asg", "old_sub"):
        print()
        print(f"/// `{name}` above, as bytes.")
        print(f'pub const {name.upper()}: &str = "{pre[name].hex()}";')
    for name, key, version, snippet in FIXTURES:
        ns = dict(pre)
        exec(textwrap.dedent(snippet), globals(), ns)
        body = ns["msg"].encode().hex()
        print()
        print("/// ```python")
        for line in textwrap.dedent(snippet).strip().splitlines():
            print(f"/// {line}".rstrip())
        print("/// ```")
        print(f'pub const {name}: Fixture = ({key}, {version}, "{body}");')


if __name__ == "__main__":
    main()
