"""The cluster: ``describe_cluster`` (its brokers as ``Node``s and its
controller) and ``list_topics`` (the cluster's metadata, as a producer
reads it)."""

from ctypes import byref, c_void_p

from .._lib import errbuf, lib, pystr
from ._common import _exc, _new_future, _Options


class Node:
    def __init__(self, id, host, port, rack=None):
        self.id = id
        self.id_string = str(id)
        self.host = host
        self.port = port
        self.rack = rack

    def __repr__(self):
        return f"Node({self.id}, {self.host}:{self.port})"


class _ClusterDescription:
    def __init__(self, cluster_id, controller, nodes):
        self.cluster_id = cluster_id
        self.controller = controller
        self.nodes = nodes
        self.authorized_operations = None


class _ClusterCalls:
    """Mixed into AdminClient."""

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

    def _nodes_by_id(self, opts):
        """{broker id: Node} from describe_cluster, or {} if it fails (the
        Nodes then carry only their id)."""
        out = c_void_p()
        eb = errbuf()
        if lib.gregor_admin_describe_cluster(self._ptr, 0, opts.ptr, byref(out), eb, len(eb)):
            return {}
        try:
            nodes = {}
            for i in range(lib.gregor_cluster_description_broker_count(out)):
                b = lib.gregor_cluster_description_broker_id(out, i)
                nodes[b] = Node(b, pystr(lib.gregor_cluster_description_broker_host(out, i)),
                                lib.gregor_cluster_description_broker_port(out, i),
                                pystr(lib.gregor_cluster_description_broker_rack(out, i)))
            return nodes
        finally:
            lib.gregor_cluster_description_free(out)

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
