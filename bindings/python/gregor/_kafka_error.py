"""KafkaError and KafkaException, shaped like confluent-kafka's, and the
error-code table they are built from: the module every other one takes them
from (``gregor.error`` re-exports them with the serialization errors, which
need ``gregor.serialization``, which needs ``KafkaException``).

Every error code is a class attribute of ``KafkaError`` named as librdkafka
names it (``KafkaError._PARTITION_EOF``, ``KafkaError.UNKNOWN_TOPIC_OR_PARTITION``);
the table is read from libgregor when the module loads (its descriptor
table, ``gregor_get_err_descs``), never copied by hand.
"""

from ._descriptors import error_descs
from ._lib import lib, pystr

_NAMES = {code: name for code, name, _desc in error_descs()}

# Codes only the bindings raise (serializers of SerializingProducer /
# DeserializingConsumer): librdkafka's values, used where libgregor has no
# such code.
_BINDING_CODES = {
    -162: ("_KEY_SERIALIZATION", "Local: Key serialization error"),
    -161: ("_VALUE_SERIALIZATION", "Local: Value serialization error"),
    -160: ("_KEY_DESERIALIZATION", "Local: Key deserialization error"),
    -159: ("_VALUE_DESERIALIZATION", "Local: Value deserialization error"),
}
for _code, (_name, _text) in _BINDING_CODES.items():
    if _name not in _NAMES.values():
        _NAMES.setdefault(_code, _name)


class KafkaError:
    """An error: a code (0 ok, > 0 the broker's, < 0 local), its name and text."""

    # public as gregor.error.KafkaError: tracebacks, reprs and pickles name that module
    __module__ = "gregor.error"

    def __init__(self, error, reason=None, fatal=False, retriable=False, txn_requires_abort=False):
        self._code = int(error)
        self._reason = reason
        self._fatal = bool(fatal)
        self._retriable = bool(retriable)
        self._txn_requires_abort = bool(txn_requires_abort)

    def code(self):
        """The numeric code."""
        return self._code

    def name(self):
        """The code's name, e.g. ``_TIMED_OUT``."""
        return _NAMES.get(self._code, f"ERR_{self._code}?")

    def str(self):
        """The human-readable reason."""
        if self._reason:
            return self._reason
        if self._code not in _NAMES:
            return f"Err-{self._code}?"  # librdkafka's text for a code it does not know
        if self._code in _BINDING_CODES and _NAMES[self._code] == _BINDING_CODES[self._code][0]:
            return _BINDING_CODES[self._code][1]
        return pystr(lib.gregor_err_str(self._code)) or self.name()

    def fatal(self):
        return self._fatal

    def retriable(self):
        return self._retriable

    def txn_requires_abort(self):
        return self._txn_requires_abort

    def __str__(self):
        return self.str()

    def __repr__(self):
        return f'KafkaError{{code={self.name()},val={self._code},str="{self.str()}"}}'

    def __eq__(self, other):
        if isinstance(other, KafkaError):
            return self._code == other._code
        if isinstance(other, int):
            return self._code == other
        return NotImplemented

    def __ne__(self, other):
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    def __hash__(self):
        return hash(self._code)

    def __bool__(self):
        return True


for _code, _name in _NAMES.items():
    setattr(KafkaError, _name, _code)

# librdkafka (so confluent-kafka) names a few Kafka codes differently from
# Kafka's own names, which libgregor uses ("UNKNOWN_TOPIC_OR_PART" for
# UNKNOWN_TOPIC_OR_PARTITION). Code written against confluent-kafka uses
# librdkafka's, so both are attributes of the same code; librdkafka's names
# are read from libgregor (gregor_err_rdkafka_name, the librdkafka column of
# its Kafka code table), and name() still returns gregor's.
if lib.has("gregor_err_rdkafka_name"):
    for _code, _name, _desc in error_descs():
        _alias = pystr(lib.gregor_err_rdkafka_name(_code))
        if _alias and _alias.isidentifier() and not hasattr(KafkaError, _alias):
            setattr(KafkaError, _alias, _code)


class KafkaException(Exception):
    """Raised by failing calls; ``args[0]`` is the ``KafkaError``."""

    __module__ = "gregor.error"  # as KafkaError's

    def __init__(self, kafka_error=None, *args, **kwargs):
        if kafka_error is None:
            kafka_error = KafkaError(KafkaError._FAIL, *args, **kwargs)
        elif isinstance(kafka_error, int):
            kafka_error = KafkaError(kafka_error, *args, **kwargs)
        super().__init__(kafka_error)

    def __str__(self):
        return str(self.args[0])


def raise_for(code, errbuf=None, reason=None):
    """Raise KafkaException for a non-zero code (with errstr text if any)."""
    if code == 0:
        return
    if reason is None and errbuf is not None:
        reason = pystr(errbuf.value) or None
    raise KafkaException(KafkaError(code, reason))


def error_names():
    """{code: name} as loaded from the library."""
    return dict(_NAMES)
