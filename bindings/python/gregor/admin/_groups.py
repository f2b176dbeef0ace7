"""AdminClient's consumer-group calls, as confluent-kafka has them:
list/describe/delete consumer groups, list/alter consumer group offsets,
and the legacy ``list_groups``; with the group model classes
(``ConsumerGroupListing``, ``ConsumerGroupDescription``,
``ConsumerGroupTopicPartitions``, the state and type enums, ...).

Bound to libgregor's group admin functions (gregor_admin_list_groups, …)
lazily, like every other function: with a library that lacks them, only
these calls fail (KafkaException _NOT_IMPLEMENTED naming the function).
"""

from ctypes import POINTER, byref, c_char_p, c_int, c_int32, c_int64, c_size_t, c_void_p
from enum import Enum

from .._lib import EXTRA, cstr, cstr_array, errbuf, lib, pystr
from ..error import KafkaError, KafkaException
from ._acl import AclOperation
from ._cluster import Node
from ._common import _exc, _new_future, _Options

P, S = c_void_p, c_char_p
E = [c_char_p, c_size_t]
PP = POINTER(c_void_p)
CSTRS = POINTER(c_char_p)

EXTRA.update({
    "gregor_admin_list_groups": (c_int, [P, CSTRS, c_size_t, CSTRS, c_size_t, P, PP] + E),
    "gregor_group_listings_count": (c_size_t, [P]),
    "gregor_group_listings_group_id": (S, [P, c_size_t]),
    "gregor_group_listings_protocol_type": (S, [P, c_size_t]),
    "gregor_group_listings_state": (S, [P, c_size_t]),
    "gregor_group_listings_type": (S, [P, c_size_t]),
    "gregor_group_listings_is_simple": (c_int, [P, c_size_t]),
    "gregor_group_listings_error_count": (c_size_t, [P]),
    "gregor_group_listings_error_broker": (c_int32, [P, c_size_t]),
    "gregor_group_listings_error_err": (c_int, [P, c_size_t]),
    "gregor_group_listings_error_errstr": (S, [P, c_size_t]),
    "gregor_group_listings_free": (None, [P]),
    "gregor_admin_describe_groups": (c_int, [P, CSTRS, c_size_t, c_int, P, PP] + E),
    "gregor_group_descriptions_count": (c_size_t, [P]),
    "gregor_group_descriptions_group_id": (S, [P, c_size_t]),
    "gregor_group_descriptions_err": (c_int, [P, c_size_t]),
    "gregor_group_descriptions_errstr": (S, [P, c_size_t]),
    "gregor_group_descriptions_state": (S, [P, c_size_t]),
    "gregor_group_descriptions_protocol_type": (S, [P, c_size_t]),
    "gregor_group_descriptions_protocol": (S, [P, c_size_t]),
    "gregor_group_descriptions_coordinator": (c_int, [P, c_size_t, POINTER(c_int32), POINTER(c_char_p),
                                                      POINTER(c_int32)]),
    "gregor_group_descriptions_authorized_operations": (c_int, [P, c_size_t, POINTER(c_int), c_size_t]),
    "gregor_group_descriptions_member_count": (c_size_t, [P, c_size_t]),
    "gregor_group_descriptions_member_id": (S, [P, c_size_t, c_size_t]),
    "gregor_group_descriptions_member_group_instance_id": (S, [P, c_size_t, c_size_t]),
    "gregor_group_descriptions_member_client_id": (S, [P, c_size_t, c_size_t]),
    "gregor_group_descriptions_member_client_host": (S, [P, c_size_t, c_size_t]),
    "gregor_group_descriptions_member_assignment_count": (c_size_t, [P, c_size_t, c_size_t]),
    "gregor_group_descriptions_member_assignment_partition": (c_int, [P, c_size_t, c_size_t, c_size_t,
                                                                      POINTER(c_char_p), POINTER(c_int32)]),
    "gregor_group_descriptions_free": (None, [P]),
    "gregor_group_descriptions_type": (S, [P, c_size_t]),
    "gregor_group_descriptions_member_target_assignment_count": (c_size_t, [P, c_size_t, c_size_t]),
    "gregor_group_descriptions_member_target_assignment_partition": (c_int, [P, c_size_t, c_size_t, c_size_t,
                                                                             POINTER(c_char_p), POINTER(c_int32)]),
    "gregor_admin_delete_groups": (c_int, [P, CSTRS, c_size_t, P, PP] + E),
    "gregor_group_results_count": (c_size_t, [P]),
    "gregor_group_results_group_id": (S, [P, c_size_t]),
    "gregor_group_results_err": (c_int, [P, c_size_t]),
    "gregor_group_results_errstr": (S, [P, c_size_t]),
    "gregor_group_results_free": (None, [P]),
    "gregor_admin_list_group_offsets": (c_int, [P, S, P, c_int, P, PP] + E),
    "gregor_admin_alter_group_offsets": (c_int, [P, S, P, CSTRS, P, PP] + E),
    "gregor_partition_results_count": (c_size_t, [P]),
    "gregor_partition_results_topic": (S, [P, c_size_t]),
    "gregor_partition_results_partition": (c_int32, [P, c_size_t]),
    "gregor_partition_results_err": (c_int, [P, c_size_t]),
    "gregor_partition_results_errstr": (S, [P, c_size_t]),
    "gregor_partition_results_offset": (c_int64, [P, c_size_t]),
    "gregor_partition_results_leader_epoch": (c_int32, [P, c_size_t]),
    "gregor_partition_results_metadata": (S, [P, c_size_t]),
    "gregor_partition_results_free": (None, [P]),
})

# Kafka's state and type names <-> confluent-kafka's enums.
_STATE_BY_NAME = {
    "PreparingRebalance": "PREPARING_REBALANCING",
    "CompletingRebalance": "COMPLETING_REBALANCING",
    "Stable": "STABLE",
    "Dead": "DEAD",
    "Empty": "EMPTY",
}
_TYPE_BY_NAME = {"consumer": "CONSUMER", "classic": "CLASSIC"}


class ConsumerGroupType(Enum):
    UNKNOWN = 0
    CONSUMER = 1
    CLASSIC = 2


class ConsumerGroupState(Enum):
    UNKNOWN = 0
    PREPARING_REBALANCING = 1
    COMPLETING_REBALANCING = 2
    STABLE = 3
    DEAD = 4
    EMPTY = 5


class ConsumerGroupListing:
    def __init__(self, group_id, is_simple_consumer_group, state=None, type=None):
        self.group_id = group_id
        self.is_simple_consumer_group = is_simple_consumer_group
        self.state = state
        self.type = type


class ListConsumerGroupsResult:
    def __init__(self, valid=None, errors=None):
        self.valid = valid or []
        self.errors = errors or []


class MemberAssignment:
    def __init__(self, topic_partitions=None):
        self.topic_partitions = topic_partitions or []


class MemberDescription:
    def __init__(self, member_id, client_id, host, assignment, group_instance_id=None, target_assignment=None):
        self.member_id = member_id
        self.client_id = client_id
        self.host = host
        self.assignment = assignment
        self.group_instance_id = group_instance_id
        self.target_assignment = target_assignment


class ConsumerGroupDescription:
    def __init__(self, group_id, is_simple_consumer_group, members, partition_assignor, state, coordinator,
                 authorized_operations=None, type=None):
        self.group_id = group_id
        self.is_simple_consumer_group = is_simple_consumer_group
        self.members = members
        self.partition_assignor = partition_assignor
        self.state = state
        self.coordinator = coordinator
        self.authorized_operations = authorized_operations
        self.type = type


class ConsumerGroupTopicPartitions:
    def __init__(self, group_id, topic_partitions=None):
        self.group_id = group_id
        self.topic_partitions = topic_partitions

    def __hash__(self):
        return hash(self.group_id)

    def __eq__(self, other):
        return isinstance(other, ConsumerGroupTopicPartitions) and self.group_id == other.group_id


def _state(name):
    return ConsumerGroupState[_STATE_BY_NAME.get(name or "", "UNKNOWN")]


def _type(name):
    return ConsumerGroupType[_TYPE_BY_NAME.get((name or "").lower(), "UNKNOWN")]


def list_consumer_groups(self, **kwargs):
    """Future(ListConsumerGroupsResult): every broker's groups, and the brokers that failed."""
    want_states, want_types = kwargs.pop("states", None), kwargs.pop("types", None)
    for given, cls, name in ((want_states, ConsumerGroupState, "states"), (want_types, ConsumerGroupType, "types")):
        if given is None:
            continue
        if not isinstance(given, set):
            raise TypeError(f"'{name}' must be a set")
        for v in given:
            if not isinstance(v, cls):
                raise TypeError(f"All elements of {name} must be of type {cls.__name__}")
    states = [k for k, v in _STATE_BY_NAME.items() if v in {s.name for s in want_states or ()}]
    types = [k for k, v in _TYPE_BY_NAME.items() if v in {t.name for t in want_types or ()}]
    opts = _Options(kwargs)
    sarr, tarr = cstr_array(states), cstr_array(types)
    f = _new_future()

    def do():
        out = c_void_p()
        eb = errbuf()
        rc = lib.gregor_admin_list_groups(self._ptr, sarr, len(states), tarr, len(types), opts.ptr, byref(out), eb,
                                          len(eb))
        if rc:
            raise _exc(rc, pystr(eb.value))
        try:
            valid = []
            for i in range(lib.gregor_group_listings_count(out)):
                valid.append(ConsumerGroupListing(
                    pystr(lib.gregor_group_listings_group_id(out, i)),
                    lib.gregor_group_listings_is_simple(out, i) == 1,
                    _state(pystr(lib.gregor_group_listings_state(out, i))),
                    _type(pystr(lib.gregor_group_listings_type(out, i))),
                ))
            errors = []
            for j in range(lib.gregor_group_listings_error_count(out)):
                errors.append(KafkaError(lib.gregor_group_listings_error_err(out, j),
                                         pystr(lib.gregor_group_listings_error_errstr(out, j))))
            return {0: ListConsumerGroupsResult(valid, errors)}
        finally:
            lib.gregor_group_listings_free(out)

    self._run({0: f}, do, opts.free)
    return f


def describe_consumer_groups(self, group_ids, **kwargs):
    """{group_id: Future(ConsumerGroupDescription)}."""
    from .. import TopicPartition

    _check_group_ids(group_ids)
    include_ops = 1 if kwargs.pop("include_authorized_operations", False) else 0
    opts = _Options(kwargs)
    arr = cstr_array(group_ids)
    futures = {g: _new_future() for g in group_ids}

    def do():
        out = c_void_p()
        eb = errbuf()
        rc = lib.gregor_admin_describe_groups(self._ptr, arr, len(group_ids), include_ops, opts.ptr, byref(out), eb,
                                              len(eb))
        if rc:
            raise _exc(rc, pystr(eb.value))
        try:
            res = {}
            for i in range(lib.gregor_group_descriptions_count(out)):
                gid = pystr(lib.gregor_group_descriptions_group_id(out, i))
                err = lib.gregor_group_descriptions_err(out, i)
                if err:
                    res[gid] = _exc(err, pystr(lib.gregor_group_descriptions_errstr(out, i)))
                    continue
                gtype = pystr(lib.gregor_group_descriptions_type(out, i)) or ""
                members = []

                def partitions(count, get, m):
                    parts = []
                    for k in range(count(out, i, m)):
                        t, p = c_char_p(), c_int32()
                        if get(out, i, m, k, byref(t), byref(p)) == 0:
                            parts.append(TopicPartition(pystr(t.value), p.value))
                    return parts

                for m in range(lib.gregor_group_descriptions_member_count(out, i)):
                    parts = partitions(lib.gregor_group_descriptions_member_assignment_count,
                                       lib.gregor_group_descriptions_member_assignment_partition, m)
                    # KIP-848 groups: the target assignment (confluent-kafka
                    # has it for "consumer" type groups only, None otherwise)
                    target = None
                    if gtype == "consumer":
                        target = MemberAssignment(partitions(
                            lib.gregor_group_descriptions_member_target_assignment_count,
                            lib.gregor_group_descriptions_member_target_assignment_partition, m))
                    members.append(MemberDescription(
                        pystr(lib.gregor_group_descriptions_member_id(out, i, m)),
                        pystr(lib.gregor_group_descriptions_member_client_id(out, i, m)),
                        pystr(lib.gregor_group_descriptions_member_client_host(out, i, m)),
                        MemberAssignment(parts),
                        pystr(lib.gregor_group_descriptions_member_group_instance_id(out, i, m)),
                        target,
                    ))
                cid, chost, cport = c_int32(-1), c_char_p(), c_int32(-1)
                lib.gregor_group_descriptions_coordinator(out, i, byref(cid), byref(chost), byref(cport))
                ops = None
                buf = (c_int * 32)()
                n = lib.gregor_group_descriptions_authorized_operations(out, i, buf, 32)
                if n >= 0:
                    ops = [AclOperation(x) for x in buf[:min(n, 32)]]
                ptype = pystr(lib.gregor_group_descriptions_protocol_type(out, i)) or ""
                res[gid] = ConsumerGroupDescription(
                    gid, ptype == "", members, pystr(lib.gregor_group_descriptions_protocol(out, i)) or "",
                    _state(pystr(lib.gregor_group_descriptions_state(out, i))),
                    Node(cid.value, pystr(chost.value), cport.value), ops, _type(gtype))
            return res
        finally:
            lib.gregor_group_descriptions_free(out)

    self._run(futures, do, opts.free)
    return futures


def delete_consumer_groups(self, group_ids, **kwargs):
    """{group_id: Future(None)}; a group with members fails with NON_EMPTY_GROUP."""
    _check_group_ids(group_ids)
    opts = _Options(kwargs)
    arr = cstr_array(group_ids)
    futures = {g: _new_future() for g in group_ids}

    def do():
        out = c_void_p()
        eb = errbuf()
        rc = lib.gregor_admin_delete_groups(self._ptr, arr, len(group_ids), opts.ptr, byref(out), eb, len(eb))
        if rc:
            raise _exc(rc, pystr(eb.value))
        try:
            res = {}
            for i in range(lib.gregor_group_results_count(out)):
                gid = pystr(lib.gregor_group_results_group_id(out, i))
                err = lib.gregor_group_results_err(out, i)
                res[gid] = _exc(err, pystr(lib.gregor_group_results_errstr(out, i))) if err else None
            return res
        finally:
            lib.gregor_group_results_free(out)

    self._run(futures, do, opts.free)
    return futures


def _check_group_ids(group_ids):
    if not isinstance(group_ids, list):
        raise TypeError("Expected input to be list of group ids")
    if not group_ids:
        raise ValueError("Expected at least one group id")
    for g in group_ids:
        if not isinstance(g, str):
            raise TypeError("Expected list of group ids to be strings")
        if not g:
            raise ValueError("Group id cannot be empty")


def _check_group_offsets_request(request, altering):
    from .. import OFFSET_INVALID, TopicPartition

    if request is None:
        raise TypeError("request cannot be None")
    if not isinstance(request, list):
        raise TypeError("request must be a list")
    if len(request) != 1:
        raise ValueError("Currently we support {} offsets for a single consumer group only".format(
            "altering" if altering else "listing"))
    req = request[0]
    if not isinstance(req, ConsumerGroupTopicPartitions):
        raise TypeError("Expected list of 'ConsumerGroupTopicPartitions'")
    if req.group_id is None:
        raise TypeError("'group_id' cannot be None")
    if not isinstance(req.group_id, str):
        raise TypeError("'group_id' must be a string")
    if not req.group_id:
        raise ValueError("'group_id' cannot be empty")
    parts = req.topic_partitions
    if parts is None:
        if altering:
            raise ValueError("'topic_partitions' cannot be null")
        return req
    if not isinstance(parts, list):
        raise TypeError("'topic_partitions' must be a list")
    if not parts:
        raise ValueError("'topic_partitions' cannot be empty")
    for tp in parts:
        if tp is None:
            raise ValueError("Element of 'topic_partitions' cannot be None")
        if not isinstance(tp, TopicPartition):
            raise TypeError("Element of 'topic_partitions' must be of type TopicPartition")
        if not tp.topic:
            raise ValueError("Element of 'topic_partitions' must not have 'topic' attribute as Empty")
        if tp.partition < 0:
            raise ValueError("Element of 'topic_partitions' must not have negative 'partition' value")
        if altering and tp.offset < 0:
            raise ValueError("Element of 'topic_partitions' must not have negative value for 'offset' field")
        if not altering and tp.offset != OFFSET_INVALID:
            raise ValueError("Element of 'topic_partitions' must not have 'offset' value")
    return req


def _one_request(requests, what):
    return _check_group_offsets_request(requests, altering=what.startswith("alter"))


def _offsets_results(out):
    from .. import TopicPartition

    parts = []
    for i in range(lib.gregor_partition_results_count(out)):
        tp = TopicPartition(pystr(lib.gregor_partition_results_topic(out, i)),
                            lib.gregor_partition_results_partition(out, i),
                            lib.gregor_partition_results_offset(out, i))
        ep = lib.gregor_partition_results_leader_epoch(out, i)
        tp.leader_epoch = ep if ep >= 0 else None
        md = lib.gregor_partition_results_metadata(out, i)
        tp.metadata = pystr(md) if md else None
        err = lib.gregor_partition_results_err(out, i)
        if err:
            tp.error = KafkaError(err, pystr(lib.gregor_partition_results_errstr(out, i)) or None)
        parts.append(tp)
    return parts


def list_consumer_group_offsets(self, list_consumer_group_offsets_request, **kwargs):
    """{group_id: Future(ConsumerGroupTopicPartitions)} with the committed offsets
    (of the partitions asked, or of every partition the group has offsets for)."""
    from .. import _tpl_from

    req = _one_request(list_consumer_group_offsets_request, "list_consumer_group_offsets")
    require_stable = 1 if kwargs.pop("require_stable", False) else 0
    opts = _Options(kwargs)
    tpl = _tpl_from(req.topic_partitions, with_offsets=False) if req.topic_partitions else None
    f = _new_future()

    def do():
        out = c_void_p()
        eb = errbuf()
        rc = lib.gregor_admin_list_group_offsets(self._ptr, cstr(req.group_id), tpl, require_stable, opts.ptr,
                                                 byref(out), eb, len(eb))
        if rc:
            raise _exc(rc, pystr(eb.value))
        try:
            return {req.group_id: ConsumerGroupTopicPartitions(req.group_id, _offsets_results(out))}
        finally:
            lib.gregor_partition_results_free(out)

    def cleanup():
        if tpl is not None:
            lib.gregor_tpl_free(tpl)
        opts.free()

    self._run({req.group_id: f}, do, cleanup)
    return {req.group_id: f}


def alter_consumer_group_offsets(self, alter_consumer_group_offsets_request, **kwargs):
    """{group_id: Future(ConsumerGroupTopicPartitions)}: commits the given
    offsets for a group with no active members."""
    from .. import _tpl_from

    req = _one_request(alter_consumer_group_offsets_request, "alter_consumer_group_offsets")
    if not req.topic_partitions:
        raise ValueError("alter_consumer_group_offsets: topic_partitions must not be empty")
    for tp in req.topic_partitions:
        if tp.offset < 0:
            raise ValueError(f"alter_consumer_group_offsets: {tp.topic} [{tp.partition}] needs an offset >= 0")
    opts = _Options(kwargs)
    tpl = _tpl_from(req.topic_partitions)
    mds = [tp.metadata for tp in req.topic_partitions]
    md_arr = cstr_array(mds) if any(m is not None for m in mds) else None
    f = _new_future()

    def do():
        out = c_void_p()
        eb = errbuf()
        rc = lib.gregor_admin_alter_group_offsets(self._ptr, cstr(req.group_id), tpl, md_arr, opts.ptr, byref(out),
                                                  eb, len(eb))
        if rc:
            raise _exc(rc, pystr(eb.value))
        try:
            parts = _offsets_results(out)
            # the results carry each partition's outcome; the offsets are the ones asked for
            asked = {(tp.topic, tp.partition): tp for tp in req.topic_partitions}
            for tp in parts:
                a = asked.get((tp.topic, tp.partition))
                if a is not None and tp.offset < 0:
                    tp.offset = a.offset
                    tp.metadata = tp.metadata if tp.metadata is not None else a.metadata
                    tp.leader_epoch = tp.leader_epoch if tp.leader_epoch is not None else a.leader_epoch
            failed = next((tp.error for tp in parts if tp.error is not None), None)
            if failed is not None:
                raise KafkaException(failed)
            return {req.group_id: ConsumerGroupTopicPartitions(req.group_id, parts)}
        finally:
            lib.gregor_partition_results_free(out)

    def cleanup():
        lib.gregor_tpl_free(tpl)
        opts.free()

    self._run({req.group_id: f}, do, cleanup)
    return {req.group_id: f}


class GroupMember:
    """A member of a group, as ``list_groups`` reports it."""

    def __init__(self, id, client_id, client_host):
        self.id = id
        self.client_id = client_id
        self.client_host = client_host
        self.metadata = None
        self.assignment = None


class GroupMetadata:
    """A group, as the legacy ``list_groups`` reports it."""

    def __init__(self, id, broker, state, protocol_type, protocol, members, error=None):
        self.id = id
        self.broker = broker
        self.state = state
        self.protocol_type = protocol_type
        self.protocol = protocol
        self.members = members
        self.error = error

    def __repr__(self):
        return f"GroupMetadata({self.id})"

    def __str__(self):
        return str(self.id)


def list_groups(self, group=None, timeout=-1):
    """The legacy group listing (confluent-kafka's list_groups): a list of
    GroupMetadata, synchronous; raises KafkaException when it fails."""
    _KAFKA_TIMEOUT_WAIT = 60.0  # seconds, when no timeout is given
    if not self._handle:
        raise RuntimeError("Handle has been closed")
    t = None if timeout is None or timeout < 0 else timeout
    kw = {} if t is None else {"request_timeout": t}
    if group is not None:
        ids = [group]
    else:
        res = self.list_consumer_groups(**kw).result(_KAFKA_TIMEOUT_WAIT if t is None else t + 5)
        ids = [g.group_id for g in res.valid]
    out = []
    if not ids:
        return out
    for gid, f in self.describe_consumer_groups(ids, **kw).items():
        try:
            d = f.result(_KAFKA_TIMEOUT_WAIT if t is None else t + 5)
        except KafkaException as e:
            out.append(GroupMetadata(gid, None, None, None, None, [], e.args[0]))
            continue
        members = [GroupMember(m.member_id, m.client_id, m.host) for m in d.members]
        out.append(GroupMetadata(gid, d.coordinator, d.state.name if d.state is not None else None,
                                 "consumer" if d.is_simple_consumer_group is False else "",
                                 d.partition_assignor, members))
    return out
