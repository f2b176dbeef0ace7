"""confluent-kafka's AdminClient over gregor_admin.

Every request method returns ``concurrent.futures.Future`` objects, keyed as
confluent-kafka keys them (by topic name, ConfigResource, AclBinding, filter
or group id). The blocking C call runs on a worker thread of the client
(ctypes releases the GIL during it) and completes the futures.
"""

import ctypes
import concurrent.futures
from ctypes import byref, c_void_p
from enum import Enum

from .._descriptors import enum_descs
from .._lib import cstr, cstr_array, errbuf, handle_array, lib, ms, pystr
from .._conf import _make_config, _merge_conf, _pop_logger, _pop_oauth_cb, _set_oauth_cb
from ._more import (  # noqa: F401
    DeletedRecords,
    ListOffsetsResultInfo,
    OffsetSpec,
    ScramCredentialInfo,
    ScramMechanism,
    TopicDescription,
    UserScramCredentialAlteration,
    UserScramCredentialDeletion,
    UserScramCredentialsDescription,
    UserScramCredentialUpsertion,
    _check_timeouts,
    _ElectionType,
    _MoreCalls,
)
from .._model import ElectionType, IsolationLevel, TopicCollection, TopicPartitionInfo  # noqa: F401
from ..error import KafkaError, KafkaException, raise_for

__all__ = [
    "AdminClient",
    "NewTopic",
    "NewPartitions",
    "ConfigResource",
    "ConfigEntry",
    "ConfigSource",
    "AlterConfigOpType",
    "ResourceType",
    "ResourcePatternType",
    "AclOperation",
    "AclPermissionType",
    "AclBinding",
    "AclBindingFilter",
    "ConsumerGroupListing",
    "ListConsumerGroupsResult",
    "ConsumerGroupDescription",
    "MemberDescription",
    "MemberAssignment",
    "ConsumerGroupTopicPartitions",
    "ConsumerGroupState",
    "ConsumerGroupType",
    "Node",
    "OffsetSpec",
    "ListOffsetsResultInfo",
    "DeletedRecords",
    "TopicDescription",
    "ScramMechanism",
    "ScramCredentialInfo",
    "UserScramCredentialsDescription",
    "UserScramCredentialAlteration",
    "UserScramCredentialUpsertion",
    "UserScramCredentialDeletion",
    "ElectionType",
    "IsolationLevel",
    "TopicCollection",
    "TopicPartitionInfo",
]


class _Ordered(Enum):
    """An enum whose members sort by value (as confluent-kafka's)."""

    def __lt__(self, other):
        return self.value < other.value


def _from_library(cls_name, kind, base=Enum, rename=None):
    """An Enum built from the library's descriptor table ``kind``; ``rename``
    maps the library's (the Java client's) names to confluent-kafka's where
    they differ."""
    rename = rename or {}
    members = [(rename.get(name, name), value) for value, name, _c, _d in enum_descs(kind)]
    return base(cls_name, members, module=__name__)


# Read from libgregor at load time (gregor_get_*_descs), never copied here.
# confluent-kafka (librdkafka) calls resource type 4 BROKER, and prefixes
# the unknown config source's name like the others.
ResourceType = _from_library("ResourceType", "resource_type", _Ordered, {"CLUSTER": "BROKER"})
ResourcePatternType = _from_library("ResourcePatternType", "resource_pattern_type", _Ordered)
AclOperation = _from_library("AclOperation", "acl_operation", _Ordered)
AclPermissionType = _from_library("AclPermissionType", "acl_permission_type", _Ordered)
ConfigSource = _from_library("ConfigSource", "config_source", Enum, {"UNKNOWN": "UNKNOWN_CONFIG"})
AlterConfigOpType = _from_library("AlterConfigOpType", "alter_config_op_type")


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




def _enum(value, cls, what):
    if isinstance(value, cls):
        return value
    if isinstance(value, str):
        try:
            return cls[value.upper()]
        except KeyError:
            raise ValueError(f"Unknown {what} name {value!r}") from None
    if isinstance(value, int):
        return cls(value)
    raise TypeError(f"{what} must be a {cls.__name__}, not {type(value).__name__}")


# -- request classes --------------------------------------------------------


class NewTopic:
    """A topic to create."""

    def __init__(self, topic, num_partitions=-1, replication_factor=-1, replica_assignment=None, config=None):
        if not isinstance(topic, str):
            raise TypeError("topic must be str")
        self.topic = topic
        self.num_partitions = num_partitions
        self.replication_factor = replication_factor
        self.replica_assignment = replica_assignment
        if config is not None and not isinstance(config, dict):
            raise TypeError("config must be a dict of str: str")
        self.config = dict(config or {})

    def __hash__(self):
        return hash(self.topic)

    def __eq__(self, other):
        return isinstance(other, NewTopic) and self.topic == other.topic

    def __repr__(self):
        return f"NewTopic(topic={self.topic},num_partitions={self.num_partitions})"


class NewPartitions:
    """Partitions to add to a topic (``new_total_count`` in all)."""

    def __init__(self, topic, new_total_count, replica_assignment=None):
        if not isinstance(topic, str):
            raise TypeError("topic must be str")
        self.topic = topic
        self.new_total_count = new_total_count
        self.replica_assignment = replica_assignment

    def __hash__(self):
        return hash(self.topic)

    def __eq__(self, other):
        return isinstance(other, NewPartitions) and self.topic == other.topic

    def __repr__(self):
        return f"NewPartitions(topic={self.topic},new_total_count={self.new_total_count})"


class ConfigEntry:
    """A config value, as described or as an incremental change."""

    def __init__(self, name, value, source=ConfigSource.UNKNOWN_CONFIG, is_read_only=False, is_default=False,
                 is_sensitive=False, is_synonym=False, synonyms=None, incremental_operation=None):
        self.name = name
        self.value = value
        self.source = source
        self.is_read_only = bool(is_read_only)
        self.is_default = bool(is_default)
        self.is_sensitive = bool(is_sensitive)
        self.is_synonym = bool(is_synonym)
        self.synonyms = synonyms if synonyms is not None else {}
        self.incremental_operation = incremental_operation

    def __repr__(self):
        return f"ConfigEntry({self.name}=\"{self.value}\")"

    def __str__(self):
        return f"{self.name}=\"{self.value}\""


class ConfigResource:
    """A config resource (topic, broker, group) and the changes to make to it."""

    Type = ResourceType

    def __init__(self, restype, name, set_config=None, described_configs=None, error=None,
                 incremental_configs=None):
        if name is None:
            raise ValueError("Expected resource name to be a string")
        self.restype = _enum(restype, ResourceType, "resource type")
        self.restype_int = self.restype.value
        self.name = str(name)
        self.set_config_dict = dict(set_config or {})
        self.incremental_configs = list(incremental_configs or [])
        self.configs = described_configs
        self.error = error

    def __repr__(self):
        return f"ConfigResource({self.restype},{self.name})"

    def __hash__(self):
        return hash((self.restype, self.name))

    def __eq__(self, other):
        return isinstance(other, ConfigResource) and (self.restype, self.name) == (other.restype, other.name)

    def __lt__(self, other):
        return (self.restype.value, self.name) < (other.restype.value, other.name)

    def __len__(self):
        return len(self.set_config_dict)

    def set_config(self, name, value, overwrite=True):
        if not overwrite and name in self.set_config_dict:
            return
        self.set_config_dict[name] = value

    def add_incremental_config(self, config_entry):
        self.incremental_configs.append(config_entry)


class AclBinding:
    """An ACL binding."""

    _filter = False

    def __init__(self, restype, name, resource_pattern_type, principal, host, operation, permission_type):
        # confluent-kafka's checks: None is a ValueError (a filter's strings
        # may be None), a wrong type a TypeError
        args = {"restype": restype, "name": name, "resource_pattern_type": resource_pattern_type,
                "principal": principal, "host": host, "operation": operation, "permission_type": permission_type}
        for k, v in args.items():
            if v is None and not (self._filter and k in ("name", "principal", "host")):
                raise ValueError(f"Expected {k} to be not None")
        for k in ("name", "principal", "host"):
            if args[k] is not None and not isinstance(args[k], str):
                raise TypeError(f"Expected {k} to be a string")
        self.restype = _enum(restype, ResourceType, "restype")
        self.name = name
        self.resource_pattern_type = _enum(resource_pattern_type, ResourcePatternType, "resource_pattern_type")
        self.principal = principal
        self.host = host
        self.operation = _enum(operation, AclOperation, "operation")
        self.permission_type = _enum(permission_type, AclPermissionType, "permission_type")
        if not self._filter:
            for field in ("name", "principal", "host"):
                if not isinstance(getattr(self, field), str):
                    raise TypeError(f"Expected {field} to be a string")
            # UNKNOWN stays allowed: a binding the broker describes may carry it
            for field, bad in (("restype", (ResourceType.ANY,)),
                               ("resource_pattern_type", (ResourcePatternType.ANY, ResourcePatternType.MATCH)),
                               ("operation", (AclOperation.ANY,)),
                               ("permission_type", (AclPermissionType.ANY,))):
                if getattr(self, field) in bad:
                    raise ValueError(f"Cannot use enum {getattr(self, field).name}, value not allowed for {field}")

    def _to_tuple(self):
        return (self.restype, self.name, self.resource_pattern_type, self.principal, self.host, self.operation,
                self.permission_type)

    def __hash__(self):
        return hash(self._to_tuple())

    def __eq__(self, other):
        return isinstance(other, AclBinding) and self._to_tuple() == other._to_tuple()

    def __lt__(self, other):
        def key(b):
            return tuple(x.value if isinstance(x, Enum) else (x or "") for x in b._to_tuple())
        return key(self) < key(other)

    def __repr__(self):
        return (f"{type(self).__name__}(restype={self.restype.name},name={self.name},"
                f"resource_pattern_type={self.resource_pattern_type.name},principal={self.principal},"
                f"host={self.host},operation={self.operation.name},permission_type={self.permission_type.name})")


class AclBindingFilter(AclBinding):
    """A filter over ACLs: ANY values and None strings match everything."""

    _filter = True


# -- group results ----------------------------------------------------------


class Node:
    def __init__(self, id, host, port, rack=None):
        self.id = id
        self.id_string = str(id)
        self.host = host
        self.port = port
        self.rack = rack

    def __repr__(self):
        return f"Node({self.id}, {self.host}:{self.port})"


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


# -- the client -------------------------------------------------------------


def _exc(code, text):
    return KafkaException(KafkaError(code, text or None))


class _Options:
    """A gregor_admin_options from confluent-kafka's keyword arguments."""

    ALLOWED = {"request_timeout", "operation_timeout", "validate_only"}

    def __init__(self, kwargs, allowed=()):
        unknown = set(kwargs) - self.ALLOWED - set(allowed)
        if unknown:
            raise TypeError(f"unexpected keyword argument(s): {', '.join(sorted(unknown))}")
        _check_timeouts(kwargs)
        self.ptr = lib.gregor_admin_options_new()
        if "request_timeout" in kwargs and kwargs["request_timeout"] is not None:
            lib.gregor_admin_options_set_request_timeout(self.ptr, ms(kwargs["request_timeout"], -1))
        if "operation_timeout" in kwargs and kwargs["operation_timeout"] is not None:
            lib.gregor_admin_options_set_operation_timeout(self.ptr, ms(kwargs["operation_timeout"], -1))
        if kwargs.get("validate_only"):
            lib.gregor_admin_options_set_validate_only(self.ptr, 1)

    def free(self):
        lib.gregor_admin_options_free(self.ptr)
        self.ptr = None


def _new_future():
    f = concurrent.futures.Future()
    f.set_running_or_notify_cancel()
    return f


def _check_incremental(r):
    """An incremental_alter_configs resource, checked as confluent-kafka does."""
    entries = r.incremental_configs
    if not entries:
        raise ValueError(f"{r}: expected a non-empty list of ConfigEntry with an incremental_operation")
    seen = set()
    for e in entries:
        if not isinstance(e, ConfigEntry):
            raise TypeError(f"{r}: expected ConfigEntry objects, not {type(e).__name__}")
        if not isinstance(e.name, str):
            raise TypeError(f"{r}: a ConfigEntry name must be a str, not {type(e.name).__name__}")
        if not isinstance(e.incremental_operation, AlterConfigOpType):
            raise TypeError(f"{r}: incremental_operation of {e.name} must be an AlterConfigOpType")
        if e.name in seen:
            raise KafkaException(KafkaError(KafkaError._INVALID_ARG, f"{r}: duplicate ConfigEntry found: {e.name}"))
        seen.add(e.name)


def _check_acl_list(items, cls, what):
    if items is None:
        raise TypeError(f"Expected non-empty list of {what} objects")
    if not isinstance(items, list) or not items:
        raise ValueError(f"Expected non-empty list of {what} objects")
    for b in items:
        if not isinstance(b, cls) or (cls is AclBinding and isinstance(b, AclBindingFilter)):
            raise ValueError(f"Expected list of {what} objects")
    if len(set(items)) != len(items):
        raise ValueError(f"duplicate {what} objects not allowed")


class AdminClient(_MoreCalls):
    """confluent-kafka's AdminClient: requests return futures."""

    _handle = None  # until __init__ has run (a subclass may not call it)
    _pool = None

    def __init__(self, conf=None, **kwargs):
        conf = _merge_conf(conf, kwargs)
        self._log_cb = _pop_logger(conf)  # kept alive with the client
        oauth_cb = _pop_oauth_cb(conf)
        self._cb_error = None
        ch = _make_config(conf, "admin", self._log_cb, log_queue=False)
        try:
            # no poll: gregor runs the admin client's oauth_cb on its own thread
            self._oauth_cb = _set_oauth_cb(ch, self, oauth_cb, "admin")
            eb = errbuf()
            h = lib.gregor_admin_new(ch, eb, len(eb))
            if not h:
                raise_for(KafkaError._INVALID_CONFIG, eb)
        finally:
            lib.gregor_config_free(ch)
        self._handle = h
        self._metadata_conf = conf
        # Requests run concurrently (a slow one does not hold up the
        # others, as with librdkafka); unlike librdkafka's, two made one
        # after the other without waiting are not sent in that order.
        self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=4, thread_name_prefix="gregor-admin")

    def _keep_error(self, e):
        # an oauth_cb exception: reported as a token failure (error events)
        if self._cb_error is None:
            self._cb_error = e

    @property
    def _ptr(self):
        h = self._handle
        if not h:
            raise RuntimeError("AdminClient has been closed")
        return h

    def _check_open(self):
        if not self._handle:
            raise RuntimeError("AdminClient has been closed")

    def close(self):
        """Waits for the requests in flight, then frees the client; later
        calls raise RuntimeError("AdminClient has been closed")."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True)
        h, self._handle = self._handle, None
        if h:
            lib.gregor_admin_free(h)

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def _run(self, futures, call, cleanup):
        """Runs ``call()`` (returns {key: result or exception}) on a worker; completes ``futures``."""

        def work():
            try:
                results = call()
            except BaseException as e:
                results = {k: e for k in futures}
            finally:
                cleanup()
            for k, f in futures.items():
                r = results.get(k, _exc(KafkaError._FAIL, f"no result for {k!r}"))
                if isinstance(r, BaseException):
                    f.set_exception(r)
                else:
                    f.set_result(r)

        self._pool.submit(work)

    # topics

    def _topic_results_call(self, fn, arr, count, opts):
        out = c_void_p()
        eb = errbuf()
        rc = fn(self._ptr, arr, count, opts.ptr, byref(out), eb, len(eb))
        if rc:
            raise _exc(rc, pystr(eb.value))
        try:
            res = {}
            for i in range(lib.gregor_topic_results_count(out)):
                name = pystr(lib.gregor_topic_results_name(out, i))
                err = lib.gregor_topic_results_err(out, i)
                res[name] = _exc(err, pystr(lib.gregor_topic_results_errstr(out, i))) if err else None
            return res
        finally:
            lib.gregor_topic_results_free(out)

    def create_topics(self, new_topics, **kwargs):
        """{topic: Future(None)}; a failed topic's future raises KafkaException."""
        if not isinstance(new_topics, list) or not new_topics:
            raise ValueError("Expected non-empty list of NewTopic objects")
        opts = _Options(kwargs)
        handles = []
        try:
            for nt in new_topics:
                if not isinstance(nt, NewTopic):
                    raise TypeError("Expected list of NewTopic objects")
                h = lib.gregor_new_topic_new(cstr(nt.topic), int(nt.num_partitions), int(nt.replication_factor))
                if not h:
                    raise ValueError(f"invalid topic name {nt.topic!r}")
                handles.append(h)
                if nt.replica_assignment:
                    for p, brokers in enumerate(nt.replica_assignment):
                        arr = (ctypes.c_int32 * max(len(brokers), 1))(*brokers)
                        eb = errbuf()
                        raise_for(lib.gregor_new_topic_set_replica_assignment(h, p, arr, len(brokers), eb, len(eb)),
                                  eb)
                for k, v in nt.config.items():
                    eb = errbuf()
                    raise_for(lib.gregor_new_topic_set_config(h, cstr(k), cstr(str(v)), eb, len(eb)), eb)
        except BaseException:
            for h in handles:
                lib.gregor_new_topic_free(h)
            opts.free()
            raise
        arr = handle_array(handles)
        futures = {nt.topic: _new_future() for nt in new_topics}

        def cleanup():
            for h in handles:
                lib.gregor_new_topic_free(h)
            opts.free()

        self._run(futures, lambda: self._topic_results_call(lib.gregor_admin_create_topics, arr, len(handles), opts),
                  cleanup)
        return futures

    def delete_topics(self, topics, **kwargs):
        """{topic: Future(None)}."""
        if not isinstance(topics, list) or not topics:
            raise ValueError("Expected non-empty list of topic strings")
        for t in topics:
            if not isinstance(t, str) or not t:
                raise ValueError("Expected list of topic strings")
        opts = _Options(kwargs)
        arr = cstr_array(topics)
        futures = {t: _new_future() for t in topics}
        self._run(futures, lambda: self._topic_results_call(lib.gregor_admin_delete_topics, arr, len(topics), opts),
                  opts.free)
        return futures

    def create_partitions(self, new_partitions, **kwargs):
        """{topic: Future(None)}."""
        if not isinstance(new_partitions, list):
            raise TypeError("Expected list of NewPartitions objects")
        if not new_partitions:
            raise ValueError("Expected non-empty list of NewPartitions objects")
        opts = _Options(kwargs)
        handles = []
        try:
            for np_ in new_partitions:
                if not isinstance(np_, NewPartitions):
                    raise TypeError("Expected list of NewPartitions objects")
                h = lib.gregor_new_partitions_new(cstr(np_.topic), int(np_.new_total_count))
                if not h:
                    raise ValueError(f"invalid topic {np_.topic!r}")
                handles.append(h)
                for i, brokers in enumerate(np_.replica_assignment or []):
                    arr = (ctypes.c_int32 * max(len(brokers), 1))(*brokers)
                    eb = errbuf()
                    raise_for(lib.gregor_new_partitions_set_replica_assignment(h, i, arr, len(brokers), eb, len(eb)),
                              eb)
        except BaseException:
            for h in handles:
                lib.gregor_new_partitions_free(h)
            opts.free()
            raise
        arr = handle_array(handles)
        futures = {np_.topic: _new_future() for np_ in new_partitions}

        def cleanup():
            for h in handles:
                lib.gregor_new_partitions_free(h)
            opts.free()

        self._run(futures,
                  lambda: self._topic_results_call(lib.gregor_admin_create_partitions, arr, len(handles), opts),
                  cleanup)
        return futures

    def list_topics(self, topic=None, timeout=-1):
        """ClusterMetadata (synchronous, as in confluent-kafka)."""
        # The admin client has no metadata call of its own in the C API; a
        # short-lived producer (no connections until asked) serves it.
        from .. import Producer

        if not self._handle:
            raise RuntimeError("Handle has been closed")
        p = Producer(self._conf_for_metadata())
        creds = getattr(self, "_sasl_credentials", None)
        if creds is not None:
            p.set_sasl_credentials(*creds)
        try:
            return p.list_topics(topic, timeout)
        finally:
            p._h.free()

    def _conf_for_metadata(self):
        return self._metadata_conf

    # configs

    def _config_results(self, out):
        res = {}
        for i in range(lib.gregor_config_results_count(out)):
            rtype = ResourceType(lib.gregor_config_results_type(out, i))
            name = pystr(lib.gregor_config_results_name(out, i))
            err = lib.gregor_config_results_err(out, i)
            key = (rtype, name)
            if err:
                res[key] = _exc(err, pystr(lib.gregor_config_results_errstr(out, i)))
                continue
            entries = {}
            for j in range(lib.gregor_config_results_entry_count(out, i)):
                ename = pystr(lib.gregor_config_results_entry_name(out, i, j))
                syns = {}
                for k in range(lib.gregor_config_results_synonym_count(out, i, j)):
                    sname = pystr(lib.gregor_config_results_synonym_name(out, i, j, k))
                    syns[sname] = ConfigEntry(sname, pystr(lib.gregor_config_results_synonym_value(out, i, j, k)),
                                              source=_source(lib.gregor_config_results_synonym_source(out, i, j, k)),
                                              is_synonym=True)
                entries[ename] = ConfigEntry(
                    ename,
                    pystr(lib.gregor_config_results_entry_value(out, i, j)),
                    source=_source(lib.gregor_config_results_entry_source(out, i, j)),
                    is_read_only=lib.gregor_config_results_entry_is_read_only(out, i, j) == 1,
                    is_default=lib.gregor_config_results_entry_is_default(out, i, j) == 1,
                    is_sensitive=lib.gregor_config_results_entry_is_sensitive(out, i, j) == 1,
                    synonyms=syns,
                )
            res[key] = entries
        return res

    def _config_call(self, resources, kwargs, fill, call, allowed=(), check=None):
        if not isinstance(resources, list):
            raise TypeError("Expected list of ConfigResource objects")
        if not resources:
            raise ValueError("Expected non-empty list of ConfigResource objects")
        for r in resources:
            if not isinstance(r, ConfigResource):
                raise ValueError("Expected list of ConfigResource objects")
        if check is not None:
            for r in resources:
                check(r)
        opts = _Options(kwargs, allowed)
        handles = []
        try:
            for r in resources:
                h = lib.gregor_config_resource_new(r.restype.value, cstr(r.name))
                if not h:
                    raise ValueError(f"invalid config resource {r!r}")
                handles.append(h)
                fill(h, r)
        except BaseException:
            for h in handles:
                lib.gregor_config_resource_free(h)
            opts.free()
            raise
        arr = handle_array(handles)
        futures = {r: _new_future() for r in resources}

        def do():
            out = c_void_p()
            eb = errbuf()
            rc = call(arr, len(handles), opts, byref(out), eb)
            if rc:
                raise _exc(rc, pystr(eb.value))
            try:
                by_key = self._config_results(out)
            finally:
                lib.gregor_config_results_free(out)
            return {r: by_key.get((r.restype, r.name), _exc(KafkaError._FAIL, f"no result for {r!r}"))
                    for r in resources}

        def cleanup():
            for h in handles:
                lib.gregor_config_resource_free(h)
            opts.free()

        self._run(futures, do, cleanup)
        return futures

    def describe_configs(self, resources, **kwargs):
        """{ConfigResource: Future({name: ConfigEntry})}."""
        synonyms = 1 if kwargs.pop("include_synonyms", False) else 0
        docs = 1 if kwargs.pop("include_documentation", False) else 0
        keys = cstr_array([])

        def call(arr, n, opts, out, eb):
            return lib.gregor_admin_describe_configs(self._ptr, arr, n, keys, 0, synonyms, docs, opts.ptr, out, eb,
                                                     len(eb))

        return self._config_call(resources, kwargs, lambda h, r: None, call)

    def alter_configs(self, resources, **kwargs):
        """{ConfigResource: Future(None)}: replaces each resource's dynamic configs (legacy AlterConfigs)."""

        def fill(h, r):
            for k, v in r.set_config_dict.items():
                raise_for(lib.gregor_config_resource_set_config(h, cstr(k), cstr(None if v is None else str(v))))

        def call(arr, n, opts, out, eb):
            return lib.gregor_admin_alter_configs(self._ptr, arr, n, opts.ptr, out, eb, len(eb))

        futures = self._config_call(resources, kwargs, fill, call)
        return self._none_results(futures)

    def incremental_alter_configs(self, resources, **kwargs):
        """{ConfigResource: Future(None)}: applies each ConfigEntry's incremental_operation."""

        def fill(h, r):
            for e in r.incremental_configs:
                op = _enum(e.incremental_operation if e.incremental_operation is not None else AlterConfigOpType.SET,
                           AlterConfigOpType, "incremental_operation")
                eb = errbuf()
                value = None if e.value is None else str(e.value)
                raise_for(lib.gregor_config_resource_add_incremental_config(h, cstr(e.name), op.value, cstr(value),
                                                                            eb, len(eb)), eb)

        def call(arr, n, opts, out, eb):
            return lib.gregor_admin_incremental_alter_configs(self._ptr, arr, n, opts.ptr, out, eb, len(eb))

        futures = self._config_call(resources, kwargs, fill, call, check=_check_incremental)
        return self._none_results(futures)

    @staticmethod
    def _none_results(futures):
        """Alter calls resolve to None, not to the (empty) entries."""
        out = {}
        for k, f in futures.items():
            g = concurrent.futures.Future()
            g.set_running_or_notify_cancel()

            def relay(src, dst=g):
                e = src.exception()
                if e is not None:
                    dst.set_exception(e)
                else:
                    dst.set_result(None)

            f.add_done_callback(relay)
            out[k] = g
        return out

    # ACLs

    @staticmethod
    def _acl_handle(new, b):
        eb = errbuf()
        h = new(b.restype.value, cstr(b.name), b.resource_pattern_type.value, cstr(b.principal), cstr(b.host),
                b.operation.value, b.permission_type.value, eb, len(eb))
        if not h:
            raise KafkaException(KafkaError(KafkaError._INVALID_ARG, pystr(eb.value)))
        return h

    @staticmethod
    def _bindings(h):
        out = []
        for i in range(lib.gregor_acl_bindings_count(h)):
            out.append(AclBinding(
                ResourceType(lib.gregor_acl_bindings_resource_type(h, i)),
                pystr(lib.gregor_acl_bindings_resource_name(h, i)),
                ResourcePatternType(lib.gregor_acl_bindings_pattern_type(h, i)),
                pystr(lib.gregor_acl_bindings_principal(h, i)),
                pystr(lib.gregor_acl_bindings_host(h, i)),
                AclOperation(lib.gregor_acl_bindings_operation(h, i)),
                AclPermissionType(lib.gregor_acl_bindings_permission_type(h, i)),
            ))
        return out

    def create_acls(self, acls, **kwargs):
        """{AclBinding: Future(None)}."""
        _check_acl_list(acls, AclBinding, "AclBinding")
        opts = _Options(kwargs)
        handles = []
        try:
            for b in acls:
                if not isinstance(b, AclBinding) or isinstance(b, AclBindingFilter):
                    raise TypeError("Expected list of AclBinding objects")
                handles.append(self._acl_handle(lib.gregor_acl_binding_new, b))
        except BaseException:
            for h in handles:
                lib.gregor_acl_binding_free(h)
            opts.free()
            raise
        arr = handle_array(handles)
        futures = {b: _new_future() for b in acls}

        def do():
            out = c_void_p()
            eb = errbuf()
            rc = lib.gregor_admin_create_acls(self._ptr, arr, len(handles), opts.ptr, byref(out), eb, len(eb))
            if rc:
                raise _exc(rc, pystr(eb.value))
            try:
                res = {}
                for i, b in enumerate(acls):
                    err = lib.gregor_acl_bindings_err(out, i)
                    res[b] = _exc(err, pystr(lib.gregor_acl_bindings_errstr(out, i))) if err else None
                return res
            finally:
                lib.gregor_acl_bindings_free(out)

        def cleanup():
            for h in handles:
                lib.gregor_acl_binding_free(h)
            opts.free()

        self._run(futures, do, cleanup)
        return futures

    def describe_acls(self, acl_binding_filter, **kwargs):
        """Future([AclBinding])."""
        if not isinstance(acl_binding_filter, AclBindingFilter):
            raise TypeError("Expected an AclBindingFilter object")
        opts = _Options(kwargs)
        h = self._acl_handle(lib.gregor_acl_filter_new, acl_binding_filter)
        f = _new_future()

        def do():
            out = c_void_p()
            eb = errbuf()
            rc = lib.gregor_admin_describe_acls(self._ptr, h, opts.ptr, byref(out), eb, len(eb))
            if rc:
                raise _exc(rc, pystr(eb.value))
            try:
                return {0: self._bindings(out)}
            finally:
                lib.gregor_acl_bindings_free(out)

        def cleanup():
            lib.gregor_acl_filter_free(h)
            opts.free()

        self._run({0: f}, do, cleanup)
        return f

    def delete_acls(self, acl_binding_filters, **kwargs):
        """{AclBindingFilter: Future([AclBinding deleted])}."""
        _check_acl_list(acl_binding_filters, AclBindingFilter, "AclBindingFilter")
        opts = _Options(kwargs)
        handles = []
        try:
            for b in acl_binding_filters:
                if not isinstance(b, AclBindingFilter):
                    raise TypeError("Expected list of AclBindingFilter objects")
                handles.append(self._acl_handle(lib.gregor_acl_filter_new, b))
        except BaseException:
            for h in handles:
                lib.gregor_acl_filter_free(h)
            opts.free()
            raise
        arr = handle_array(handles)
        futures = {b: _new_future() for b in acl_binding_filters}

        def do():
            out = c_void_p()
            eb = errbuf()
            rc = lib.gregor_admin_delete_acls(self._ptr, arr, len(handles), opts.ptr, byref(out), eb, len(eb))
            if rc:
                raise _exc(rc, pystr(eb.value))
            try:
                res = {}
                for i, b in enumerate(acl_binding_filters):
                    err = lib.gregor_delete_acls_results_err(out, i)
                    if err:
                        res[b] = _exc(err, pystr(lib.gregor_delete_acls_results_errstr(out, i)))
                    else:
                        res[b] = self._bindings(lib.gregor_delete_acls_results_matches(out, i))
                return res
            finally:
                lib.gregor_delete_acls_results_free(out)

        def cleanup():
            for h in handles:
                lib.gregor_acl_filter_free(h)
            opts.free()

        self._run(futures, do, cleanup)
        return futures

    # cluster

    def describe_cluster(self, **kwargs):
        """Future(DescribeClusterResult-like object with cluster_id, controller, nodes)."""
        include_ops = 1 if kwargs.pop("include_authorized_operations", False) else 0
        opts = _Options(kwargs)
        f = _new_future()

        def do():
            out = c_void_p()
            eb = errbuf()
            rc = lib.gregor_admin_describe_cluster(self._ptr, include_ops, opts.ptr, byref(out), eb, len(eb))
            if rc:
                raise _exc(rc, pystr(eb.value))
            try:
                nodes = []
                for i in range(lib.gregor_cluster_description_broker_count(out)):
                    nodes.append(Node(lib.gregor_cluster_description_broker_id(out, i),
                                      pystr(lib.gregor_cluster_description_broker_host(out, i)),
                                      lib.gregor_cluster_description_broker_port(out, i),
                                      pystr(lib.gregor_cluster_description_broker_rack(out, i))))
                cid = lib.gregor_cluster_description_controller_id(out)
                return {0: _ClusterDescription(pystr(lib.gregor_cluster_description_cluster_id(out)),
                                               next((n for n in nodes if n.id == cid), None), nodes)}
            finally:
                lib.gregor_cluster_description_free(out)

        self._run({0: f}, do, opts.free)
        return f

    # groups: see _groups.py (bound lazily; needs the group admin C calls)

    from ._groups import (  # noqa: E402
        list_consumer_groups,
        describe_consumer_groups,
        delete_consumer_groups,
        list_consumer_group_offsets,
        alter_consumer_group_offsets,
    )


class _ClusterDescription:
    def __init__(self, cluster_id, controller, nodes):
        self.cluster_id = cluster_id
        self.controller = controller
        self.nodes = nodes
        self.authorized_operations = None


def _source(v):
    try:
        return ConfigSource(v)
    except ValueError:
        return ConfigSource.UNKNOWN_CONFIG


def _open_only(fn):
    def call(self, *args, **kwargs):
        self._check_open()
        return fn(self, *args, **kwargs)

    call.__name__, call.__qualname__, call.__doc__ = fn.__name__, fn.__qualname__, fn.__doc__
    return call


# every request raises RuntimeError("AdminClient has been closed") on a
# closed (or never initialised) client, before looking at its arguments
for _name in ("create_topics", "delete_topics", "create_partitions", "describe_configs", "alter_configs",
              "incremental_alter_configs", "create_acls", "describe_acls", "delete_acls", "describe_cluster",
              "list_consumer_groups", "describe_consumer_groups", "delete_consumer_groups",
              "list_consumer_group_offsets", "alter_consumer_group_offsets"):
    setattr(AdminClient, _name, _open_only(getattr(AdminClient, _name)))
del _name
