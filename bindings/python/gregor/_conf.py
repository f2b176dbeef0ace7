"""Configuration dicts to gregor_config handles, for every client
(Producer, Consumer, AdminClient): the properties, the ``logger`` (a C log
callback) and confluent-kafka's ``oauth_cb`` (a C token refresh callback).
"""

import ctypes
from ctypes import c_int, c_void_p

from ._lib import EXTRA, LOG_CB, cstr, cstr_array, errbuf, lib, pystr
from .error import KafkaError, KafkaException, raise_for


def _conf_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


# syslog level -> logging level, as confluent-kafka's log_cb maps them
_LOG_LEVELS = (50, 50, 50, 40, 30, 20, 20, 10)


def _log_cb(logger):
    """The C log callback for a ``logging.Logger``-like ``logger``: each line
    becomes ``logger.log(level, "%s [%s] %s", fac, name, message)``, as
    confluent-kafka's."""

    def cb(_opaque, level, fac, name, buf):
        try:
            lvl = _LOG_LEVELS[level] if 0 <= level < len(_LOG_LEVELS) else 10
            logger.log(lvl, "%s [%s] %s", pystr(fac), pystr(name), pystr(buf))
        except Exception:
            pass  # a failing logger must not break the client

    return LOG_CB(cb)


def _make_config(conf, role, log_cb=None, log_queue=True):
    """A gregor_config handle from a dict (caller frees). With ``log_cb``
    (from :func:`_log_cb`), lines go to it and ``log.queue`` is set, so they
    are served by poll/flush on the caller's thread, as confluent-kafka does
    for its ``logger`` (the admin client, which has no poll, passes
    ``log_queue=False``: its lines come from gregor's threads)."""
    dtc = conf.get("default.topic.config")
    if isinstance(dtc, dict):
        # the deprecated topic-level dict: its properties apply over the
        # top-level ones, as librdkafka's default topic conf does
        conf = {k: v for k, v in conf.items() if k != "default.topic.config"}
        conf.update(dtc)
    h = lib.gregor_config_new()
    try:
        if log_cb is not None:
            raise_for(lib.gregor_config_set_log_cb(h, log_cb, None))
            if log_queue and "log.queue" not in conf:
                eb = errbuf()
                raise_for(lib.gregor_config_set(h, cstr("log.queue"), cstr("true"), eb, len(eb)), eb)
        for k, v in conf.items():
            if not isinstance(k, str):
                raise TypeError(f"config keys must be str, not {type(k).__name__}")
            if callable(v):
                # on_delivery (producer), on_commit (consumer) and logger are
                # taken out before this; gregor reports errors as messages or
                # exceptions, not through error_cb/stats_cb callbacks.
                raise KafkaException(
                    KafkaError(KafkaError._INVALID_ARG, f"{role}: callback property {k!r} is not supported")
                )
            if v is None:
                continue  # None leaves the property unset, as in confluent-kafka
            eb = errbuf()
            rc = lib.gregor_config_set(h, cstr(k), cstr(_conf_value(v)), eb, len(eb))
            if rc and "is not one of" in (pystr(eb.value) or ""):
                # librdkafka's wording first (programs match on it), then gregor's list of values
                raise_for(rc, reason=f'Invalid value for configuration property "{k}": {v} ({pystr(eb.value)})')
            raise_for(rc, eb)
    except BaseException:
        lib.gregor_config_free(h)
        raise
    return h


def _pop_logger(conf):
    """Takes ``logger`` out of a config dict: its C log callback, or None."""
    logger = conf.pop("logger", None)
    if logger is None:
        return None
    if not callable(getattr(logger, "log", None)):
        raise KafkaException(KafkaError(KafkaError._INVALID_ARG, "logger must be a logging.Logger (with .log())"))
    return _log_cb(logger)


def _merge_conf(conf, kwargs):
    if conf is None:
        if not kwargs:
            raise TypeError("expected configuration dict")
        conf = {}
    if not isinstance(conf, dict):
        raise TypeError("expected configuration dict")
    out = dict(conf)
    out.update(kwargs)
    return out


# -- SASL/OAUTHBEARER: confluent-kafka's oauth_cb ------------------------------

OAUTH_CB = ctypes.CFUNCTYPE(None, c_void_p, ctypes.c_char_p, c_void_p)
EXTRA["gregor_config_set_oauthbearer_token_refresh_cb"] = (c_int, [c_void_p, OAUTH_CB, c_void_p])
for _role in ("producer", "consumer", "admin"):
    EXTRA[f"gregor_{_role}_oauthbearer_set_token"] = (
        c_int,
        [c_void_p, ctypes.c_char_p, ctypes.c_int64, ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p),
         ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t],
    )
    EXTRA[f"gregor_{_role}_oauthbearer_set_token_failure"] = (c_int, [c_void_p, ctypes.c_char_p])
del _role


def _pop_oauth_cb(conf):
    """Takes ``oauth_cb`` out of ``conf``: None or a callable (TypeError otherwise)."""
    cb = conf.pop("oauth_cb", None)
    if cb is not None and not callable(cb):
        raise TypeError("expected oauth_cb property as a callable function")
    return cb


def _oauth_trampoline(client, cb, role):
    """A C token refresh callback calling confluent-kafka's
    ``oauth_cb(oauthbearer_config) -> (token, expiry[, principal[, extensions]])``
    (``expiry`` in seconds since the epoch, ``extensions`` a dict) and
    handing the answer to ``gregor_<role>_oauthbearer_set_token``. An
    exception (or a token gregor refuses) becomes
    ``..._set_token_failure`` and is raised by the next poll, as
    confluent-kafka raises it."""
    set_token = getattr(lib, f"gregor_{role}_oauthbearer_set_token")
    set_failure = getattr(lib, f"gregor_{role}_oauthbearer_set_token_failure")

    def on_refresh(handle, config, _opaque):
        try:
            res = cb(pystr(config) or "")
            if not isinstance(res, tuple) or not 2 <= len(res) <= 4:
                raise TypeError("oauth_cb must return (token, expiry[, principal[, extensions]])")
            token, expiry = res[0], res[1]
            principal = res[2] if len(res) > 2 else ""
            extensions = res[3] if len(res) > 3 and res[3] is not None else {}
            if not isinstance(extensions, dict):
                raise TypeError("oauth_cb extensions must be a dict")
            flat = []
            for k, v in extensions.items():
                flat += [k, v]
            arr = cstr_array(flat)
            eb = errbuf()
            rc = set_token(handle, cstr(token), int(float(expiry) * 1000), cstr(principal or ""),
                           arr, len(flat), eb, len(eb))
            raise_for(rc, eb)
        except BaseException as e:
            try:
                set_failure(handle, cstr(str(e) or type(e).__name__))
            finally:
                client._keep_error(e)

    return OAUTH_CB(on_refresh)


def _set_oauth_cb(ch, client, cb, role):
    """Sets ``cb`` (from :func:`_pop_oauth_cb`) on config handle ``ch``;
    returns the C callback to keep alive with the client (or None)."""
    if cb is None:
        return None
    tramp = _oauth_trampoline(client, cb, role)
    raise_for(lib.gregor_config_set_oauthbearer_token_refresh_cb(ch, tramp, None))
    return tramp
