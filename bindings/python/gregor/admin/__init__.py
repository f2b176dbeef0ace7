"""confluent-kafka's AdminClient over gregor_admin.

Every request method returns ``concurrent.futures.Future`` objects, keyed as
confluent-kafka keys them (by topic name, ConfigResource, AclBinding, filter
or group id). The blocking C call runs on a worker thread of the client
(ctypes releases the GIL during it) and completes the futures.

The calls and their types are grouped by family, as in confluent-kafka's
``confluent_kafka/admin/``: ``_topics``, ``_config``, ``_acl``,
``_cluster``, ``_groups``, ``_offsets`` (list_offsets), ``_records``
(delete_records), ``_election`` (elect_leaders) and ``_scram``, over
``_resource`` (the resource enums) and ``_common`` (options, futures,
argument checks); this module holds the client itself and exports the
families' public names.
"""

import concurrent.futures
import time as _time

# ctypes, byref, c_void_p, Enum, enum_descs, cstr, cstr_array, handle_array,
# ms, pystr and KafkaException are not used here any more (the code that
# used them is in the family modules), but stay names of gregor.admin
import ctypes  # noqa: F401
from ctypes import byref, c_void_p  # noqa: F401
from enum import Enum  # noqa: F401

from .._conf import _make_config, _merge_conf, _pop_logger, _pop_oauth_cb, _set_oauth_cb
from .._descriptors import enum_descs  # noqa: F401
from .._lib import cstr, cstr_array, errbuf, handle_array, lib, ms, pystr  # noqa: F401
from .._model import ElectionType, IsolationLevel, TopicCollection, TopicPartitionInfo  # noqa: F401
from ..error import KafkaError, KafkaException, raise_for  # noqa: F401
from ._acl import AclBinding, AclBindingFilter, AclOperation, AclPermissionType, _AclCalls
from ._cluster import Node, _ClusterCalls
from ._common import _exc
from ._config import AlterConfigOpType, ConfigEntry, ConfigResource, ConfigSource, _ConfigCalls
from ._election import _ElectionCalls, _ElectionType  # noqa: F401  (_ElectionType: as confluent-kafka's admin)
from ._groups import (
    ConsumerGroupDescription,
    ConsumerGroupListing,
    ConsumerGroupState,
    ConsumerGroupTopicPartitions,
    ConsumerGroupType,
    ListConsumerGroupsResult,
    MemberAssignment,
    MemberDescription,
)
from ._offsets import ListOffsetsResultInfo, OffsetSpec, _OffsetCalls
from ._records import DeletedRecords, _RecordsCalls
from ._resource import ResourcePatternType, ResourceType
from ._scram import (
    ScramCredentialInfo,
    ScramMechanism,
    UserScramCredentialAlteration,
    UserScramCredentialDeletion,
    UserScramCredentialsDescription,
    UserScramCredentialUpsertion,
    _ScramCalls,
)
from ._topics import NewPartitions, NewTopic, TopicDescription, _TopicCalls

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


class AdminClient(_TopicCalls, _ConfigCalls, _AclCalls, _ClusterCalls, _OffsetCalls, _RecordsCalls, _ElectionCalls,
                  _ScramCalls):
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

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        """Closes the client; exceptions propagate."""
        self.close()
        return None

    def __len__(self):
        return 0  # requests are answered on worker threads, nothing waits in a queue for poll()

    def poll(self, timeout=-1):
        """Serves the client's callbacks for up to ``timeout`` s (None /
        negative: until one is served). The admin client has no callbacks
        to serve (its results complete futures from worker threads), so this
        waits out the timeout, as librdkafka's rd_kafka_poll does when
        nothing happens. Returns the number of events served (0)."""
        self._check_open()
        if timeout is None or timeout < 0:
            while True:
                _time.sleep(0.2)
                self._check_open()
        if timeout > 0:
            _time.sleep(timeout)
        return 0

    def set_sasl_credentials(self, username, password):
        """Sets the SASL user name and password new connections authenticate
        with (also those of list_topics)."""
        from .. import _set_sasl_credentials

        _set_sasl_credentials(lib.gregor_admin_set_sasl_credentials, self._ptr, username, password)
        self._sasl_credentials = (username, password)

    # groups: see _groups.py (bound lazily; needs the group admin C calls)

    from ._groups import (  # noqa: E402
        list_consumer_groups,
        describe_consumer_groups,
        delete_consumer_groups,
        list_consumer_group_offsets,
        alter_consumer_group_offsets,
        list_groups,
    )


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
