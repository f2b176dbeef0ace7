"""ACLs: the operation and permission enums, ``AclBinding`` and
``AclBindingFilter``, and ``create_acls`` / ``describe_acls`` /
``delete_acls``."""

from ctypes import byref, c_void_p
from enum import Enum

from .._lib import cstr, errbuf, handle_array, lib, pystr
from ..error import KafkaError, KafkaException
from ._common import _enum, _exc, _from_library, _new_future, _Options, _Ordered
from ._resource import ResourcePatternType, ResourceType

# Read from libgregor at load time (gregor_get_*_descs), never copied here.
AclOperation = _from_library(__name__, "AclOperation", "acl_operation", _Ordered)
AclPermissionType = _from_library(__name__, "AclPermissionType", "acl_permission_type", _Ordered)


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


class _AclCalls:
    """Mixed into AdminClient."""

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
