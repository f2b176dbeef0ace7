"""SASL/SCRAM credentials: the mechanism, credential and alteration
classes, and ``describe_user_scram_credentials`` /
``alter_user_scram_credentials``."""

from ctypes import POINTER, byref, c_char_p, c_int, c_int32, c_size_t, c_uint8, c_void_p
from enum import Enum

from .._lib import EXTRA, buf_arg, cstr, cstr_array, errbuf, lib, pystr
from ..error import KafkaError
from ._common import _check_timeouts, _exc, _new_future, _Options

P, S = c_void_p, c_char_p
E = [c_char_p, c_size_t]
PP = POINTER(c_void_p)
CSTRS = POINTER(c_char_p)

EXTRA.update({
    "gregor_admin_describe_user_scram_credentials": (c_int, [P, CSTRS, c_size_t, P, PP] + E),
    "gregor_admin_alter_user_scram_credentials": (c_int, [P, P, P, PP] + E),
    "gregor_scram_alterations_new": (P, []),
    "gregor_scram_alterations_add_upsert": (c_int, [P, S, c_int, c_int32, S, POINTER(c_uint8), c_size_t]),
    "gregor_scram_alterations_add_delete": (c_int, [P, S, c_int]),
    "gregor_scram_alterations_free": (None, [P]),
    "gregor_scram_users_count": (c_size_t, [P]),
    "gregor_scram_users_name": (S, [P, c_size_t]),
    "gregor_scram_users_err": (c_int, [P, c_size_t]),
    "gregor_scram_users_errstr": (S, [P, c_size_t]),
    "gregor_scram_users_credential_count": (c_size_t, [P, c_size_t]),
    "gregor_scram_users_credential_mechanism": (c_int, [P, c_size_t, c_size_t]),
    "gregor_scram_users_credential_iterations": (c_int32, [P, c_size_t, c_size_t]),
    "gregor_scram_users_free": (None, [P]),
})


class ScramMechanism(Enum):
    """SASL/SCRAM mechanisms (Kafka's ScramMechanism ids)."""

    UNKNOWN = 0
    SCRAM_SHA_256 = 1
    SCRAM_SHA_512 = 2

    def __lt__(self, other):
        if not isinstance(other, ScramMechanism):
            return NotImplemented
        return self.value < other.value


class ScramCredentialInfo:
    """A SCRAM credential's mechanism and iteration count."""

    def __init__(self, mechanism, iterations):
        self.mechanism = mechanism
        self.iterations = iterations


class UserScramCredentialsDescription:
    """A user's SCRAM credentials (``scram_credential_infos``)."""

    def __init__(self, user, scram_credential_infos):
        self.user = user
        self.scram_credential_infos = scram_credential_infos


class UserScramCredentialAlteration:
    """Base of the SCRAM credential changes."""

    def __init__(self, user):
        self.user = user


class UserScramCredentialUpsertion(UserScramCredentialAlteration):
    """Sets a user's credential for a mechanism (password bytes, optional salt bytes)."""

    def __init__(self, user, scram_credential_info, password, salt=None):
        super().__init__(user)
        self.scram_credential_info = scram_credential_info
        self.password = password
        self.salt = salt


class UserScramCredentialDeletion(UserScramCredentialAlteration):
    """Deletes a user's credential for a mechanism."""

    def __init__(self, user, mechanism):
        super().__init__(user)
        self.mechanism = mechanism


class _ScramCalls:
    """Mixed into AdminClient."""

    def describe_user_scram_credentials(self, users=None, **kwargs):
        """users None: Future({user: UserScramCredentialsDescription}) for
        every user; else {user: Future(UserScramCredentialsDescription)}."""
        self._check_open()
        if users is not None:
            if not isinstance(users, list):
                raise TypeError("Expected input to be list of String")
            for u in users:
                if u is None:
                    raise TypeError("'user' cannot be None")
                if not isinstance(u, str):
                    raise TypeError("Each value should be a string")
                if not u:
                    raise ValueError("'user' cannot be empty")
        _check_timeouts(kwargs)
        opts = _Options(kwargs)
        names = list(users or [])
        arr = cstr_array(names)
        dup = len(set(names)) != len(names)

        def do():
            if dup:
                raise _exc(KafkaError._INVALID_ARG, "Duplicate users not allowed")
            out = c_void_p()
            eb = errbuf()
            rc = lib.gregor_admin_describe_user_scram_credentials(self._ptr, arr, len(names), opts.ptr, byref(out),
                                                                  eb, len(eb))
            if rc:
                raise _exc(rc, pystr(eb.value))
            try:
                res = {}
                for i in range(lib.gregor_scram_users_count(out)):
                    name = pystr(lib.gregor_scram_users_name(out, i))
                    err = lib.gregor_scram_users_err(out, i)
                    if err:
                        res[name] = _exc(err, pystr(lib.gregor_scram_users_errstr(out, i)))
                        continue
                    infos = []
                    for k in range(lib.gregor_scram_users_credential_count(out, i)):
                        m = lib.gregor_scram_users_credential_mechanism(out, i, k)
                        infos.append(ScramCredentialInfo(
                            ScramMechanism(m) if m in (1, 2) else ScramMechanism.UNKNOWN,
                            lib.gregor_scram_users_credential_iterations(out, i, k)))
                    res[name] = UserScramCredentialsDescription(name, infos)
                return res
            finally:
                lib.gregor_scram_users_free(out)

        if users is None:
            f = _new_future()

            def do_all():
                res = do()
                for v in res.values():
                    if isinstance(v, BaseException):
                        raise v
                return {0: res}

            self._run({0: f}, do_all, opts.free)
            return f
        futures = {u: _new_future() for u in names}
        self._run(futures, do, opts.free)
        return futures

    def alter_user_scram_credentials(self, alterations, **kwargs):
        """{user: Future(None)} for a list of UserScramCredentialUpsertion /
        UserScramCredentialDeletion."""
        self._check_open()
        if not isinstance(alterations, list):
            raise TypeError("Expected input to be list")
        if not alterations:
            raise ValueError("Expected at least one alteration")
        for a in alterations:
            if not isinstance(a, UserScramCredentialAlteration):
                raise TypeError("Expected each element of list to be subclass of UserScramCredentialAlteration")
            if a.user is None:
                raise TypeError("'user' cannot be None")
            if not isinstance(a.user, str):
                raise TypeError("'user' must be a string")
            if not a.user:
                raise ValueError("'user' cannot be empty")
            if isinstance(a, UserScramCredentialUpsertion):
                if a.password is None:
                    raise TypeError("'password' cannot be None")
                if not isinstance(a.password, bytes):
                    raise TypeError("'password' must be bytes")
                if not a.password:
                    raise ValueError("'password' cannot be empty")
                if a.salt is not None and not isinstance(a.salt, bytes):
                    raise TypeError("'salt' must be bytes")
                if a.salt is not None and not a.salt:
                    raise ValueError("'salt' can be None but cannot be empty")
                info = a.scram_credential_info
                if not isinstance(info, ScramCredentialInfo):
                    raise TypeError("Expected credential_info to be ScramCredentialInfo Type")
                if isinstance(info.iterations, bool) or not isinstance(info.iterations, int):
                    raise TypeError("Expected iterations to be an int")
                if info.iterations < 1:
                    raise ValueError("Iterations should be positive")
                if not isinstance(info.mechanism, ScramMechanism):
                    raise TypeError("Expected the mechanism to be ScramMechanism Type")
            elif isinstance(a, UserScramCredentialDeletion):
                if not isinstance(a.mechanism, ScramMechanism):
                    raise TypeError("Expected the mechanism to be ScramMechanism Type")
            else:
                raise TypeError("Expected each element of list 'alterations' to be either a "
                                "UserScramCredentialUpsertion or a UserScramCredentialDeletion")
        _check_timeouts(kwargs)
        opts = _Options(kwargs)
        h = lib.gregor_scram_alterations_new()
        try:
            for a in alterations:
                if isinstance(a, UserScramCredentialUpsertion):
                    sp, sn = buf_arg(a.salt)
                    rc = lib.gregor_scram_alterations_add_upsert(h, cstr(a.user), a.scram_credential_info.mechanism.value,
                                                                 a.scram_credential_info.iterations, a.password, sp,
                                                                 sn)
                else:
                    rc = lib.gregor_scram_alterations_add_delete(h, cstr(a.user), a.mechanism.value)
                if rc:
                    raise _exc(rc, f"invalid SCRAM alteration for user {a.user!r}")
        except BaseException:
            lib.gregor_scram_alterations_free(h)
            opts.free()
            raise
        users = list(dict.fromkeys(a.user for a in alterations))
        futures = {u: _new_future() for u in users}

        def do():
            out = c_void_p()
            eb = errbuf()
            rc = lib.gregor_admin_alter_user_scram_credentials(self._ptr, h, opts.ptr, byref(out), eb, len(eb))
            if rc:
                raise _exc(rc, pystr(eb.value))
            try:
                res = {}
                for i in range(lib.gregor_scram_users_count(out)):
                    err = lib.gregor_scram_users_err(out, i)
                    res[pystr(lib.gregor_scram_users_name(out, i))] = (
                        _exc(err, pystr(lib.gregor_scram_users_errstr(out, i))) if err else None)
                return res
            finally:
                lib.gregor_scram_users_free(out)

        def cleanup():
            lib.gregor_scram_alterations_free(h)
            opts.free()

        self._run(futures, do, cleanup)
        return futures
