"""confluent-kafka's ``confluent_kafka.serialization``: the Serializer /
Deserializer base classes, the string, integer and double (de)serializers,
``MessageField``, ``SerializationContext`` and ``SerializationError``.

The integer and double formats are Kafka's own (big-endian int32, IEEE 754
float64), as the Java client's IntegerSerializer / DoubleSerializer write.
"""

import struct as _struct
from enum import Enum

from ._kafka_error import KafkaException

__all__ = [
    "Deserializer",
    "IntegerDeserializer",
    "IntegerSerializer",
    "DoubleDeserializer",
    "DoubleSerializer",
    "StringDeserializer",
    "StringSerializer",
    "MessageField",
    "SerializationContext",
    "SerializationError",
    "Serializer",
]


class MessageField(str, Enum):
    """Which part of a message a (de)serializer works on."""

    NONE = "none"
    KEY = "key"
    VALUE = "value"

    def __str__(self):
        return str(self.value)


class SerializationContext:
    """What a (de)serializer is told besides the object: the topic, the
    field (``MessageField``) and the message's headers."""

    def __init__(self, topic, field, headers=None):
        self.topic = topic
        self.field = field
        self.headers = headers


class SerializationError(KafkaException):
    """A (de)serializer failed."""


class Serializer:
    """Turns an object into bytes: ``__call__(obj, ctx=None)``."""

    __slots__ = []

    def __call__(self, obj, ctx=None):
        raise NotImplementedError


class Deserializer:
    """Turns bytes into an object: ``__call__(value, ctx=None)``."""

    __slots__ = []

    def __call__(self, value, ctx=None):
        raise NotImplementedError


class DoubleSerializer(Serializer):
    """A float as 8 bytes, IEEE 754 big-endian; None stays None."""

    def __call__(self, obj, ctx=None):
        if obj is None:
            return None
        try:
            return _struct.pack(">d", obj)
        except _struct.error as e:
            raise SerializationError(str(e))


class DoubleDeserializer(Deserializer):
    """8 bytes, IEEE 754 big-endian, to a float; None stays None."""

    def __call__(self, value, ctx=None):
        if value is None:
            return None
        try:
            return _struct.unpack(">d", value)[0]
        except _struct.error as e:
            raise SerializationError(str(e))


class IntegerSerializer(Serializer):
    """An int as 4 bytes, big-endian signed; None stays None."""

    def __call__(self, obj, ctx=None):
        if obj is None:
            return None
        try:
            return _struct.pack(">i", obj)
        except _struct.error as e:
            raise SerializationError(str(e))


class IntegerDeserializer(Deserializer):
    """4 bytes, big-endian signed, to an int; None stays None."""

    def __call__(self, value, ctx=None):
        if value is None:
            return None
        try:
            return _struct.unpack(">i", value)[0]
        except _struct.error as e:
            raise SerializationError(str(e))


class StringSerializer(Serializer):
    """A str encoded with ``codec`` (default UTF-8); None stays None."""

    def __init__(self, codec="utf_8"):
        self.codec = codec

    def __call__(self, obj, ctx=None):
        if obj is None:
            return None
        try:
            return obj.encode(self.codec)
        except Exception as e:
            raise SerializationError(str(e))


class StringDeserializer(Deserializer):
    """Bytes decoded with ``codec`` (default UTF-8); None stays None."""

    def __init__(self, codec="utf_8"):
        self.codec = codec

    def __call__(self, value, ctx=None):
        if value is None:
            return None
        try:
            return value.decode(self.codec)
        except Exception as e:
            raise SerializationError(str(e))
