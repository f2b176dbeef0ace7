"""Configs: ``ConfigResource``, ``ConfigEntry``, the config source and
incremental operation enums, and ``describe_configs`` / ``alter_configs``
/ ``incremental_alter_configs``."""

import concurrent.futures
from ctypes import byref, c_void_p
from enum import Enum

from .._lib import cstr, cstr_array, errbuf, handle_array, lib, pystr
from ..error import KafkaError, KafkaException, raise_for
from ._common import _enum, _exc, _from_library, _new_future, _Options
from ._resource import ResourceType

# Read from libgregor at load time (gregor_get_*_descs), never copied here.
# confluent-kafka (librdkafka) prefixes the unknown config source's name
# like the others.
ConfigSource = _from_library(__name__, "ConfigSource", "config_source", Enum, {"UNKNOWN": "UNKNOWN_CONFIG"})
AlterConfigOpType = _from_library(__name__, "AlterConfigOpType", "alter_config_op_type")


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


def _source(v):
    try:
        return ConfigSource(v)
    except ValueError:
        return ConfigSource.UNKNOWN_CONFIG


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


class _ConfigCalls:
    """Mixed into AdminClient."""

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
