"""SerializingProducer and DeserializingConsumer, as confluent-kafka's: a
Producer / Consumer whose keys and values go through the ``key.serializer``
/ ``value.serializer`` (``key.deserializer`` / ``value.deserializer``)
configured, each called as ``f(obj, SerializationContext)``."""

from .error import (
    ConsumeError,
    KeyDeserializationError,
    KeySerializationError,
    ValueDeserializationError,
    ValueSerializationError,
)
from .serialization import MessageField, SerializationContext


def _client():
    from . import Consumer, Producer  # the package imports this module

    return Producer, Consumer


def _make_classes():
    Producer, Consumer = _client()

    class SerializingProducer(Producer):
        """A Producer that serializes keys and values first."""

        def __init__(self, conf):
            conf = dict(conf)
            self._key_serializer = conf.pop("key.serializer", None)
            self._value_serializer = conf.pop("value.serializer", None)
            super().__init__(conf)

        def produce(self, topic, key=None, value=None, partition=-1, on_delivery=None, timestamp=0,
                    headers=None):
            """Serializes ``key`` and ``value`` (KeySerializationError /
            ValueSerializationError on failure), then produces them."""
            ctx = SerializationContext(topic, MessageField.KEY, headers)
            if self._key_serializer is not None:
                try:
                    key = self._key_serializer(key, ctx)
                except Exception as e:
                    raise KeySerializationError(e)
            ctx.field = MessageField.VALUE
            if self._value_serializer is not None:
                try:
                    value = self._value_serializer(value, ctx)
                except Exception as e:
                    raise ValueSerializationError(e)
            super().produce(topic, value, key, headers=headers, partition=partition, timestamp=timestamp,
                            on_delivery=on_delivery)

    class DeserializingConsumer(Consumer):
        """A Consumer that deserializes keys and values of what it polls."""

        def __init__(self, conf):
            conf = dict(conf)
            self._key_deserializer = conf.pop("key.deserializer", None)
            self._value_deserializer = conf.pop("value.deserializer", None)
            super().__init__(conf)

        def poll(self, timeout=-1):
            """The next message, deserialized, or None. An error event raises
            ConsumeError; a failing deserializer Key/ValueDeserializationError
            (the message as received in ``kafka_message``)."""
            msg = super().poll(timeout)
            if msg is None:
                return None
            error = msg.error()
            if error is not None:
                raise ConsumeError(error, kafka_message=msg)
            topic = msg.topic()
            if topic is None:
                raise TypeError("Message topic is None")
            ctx = SerializationContext(topic, MessageField.VALUE, msg.headers())
            value = msg.value()
            if self._value_deserializer is not None:
                try:
                    value = self._value_deserializer(value, ctx)
                except Exception as e:
                    raise ValueDeserializationError(exception=e, kafka_message=msg)
            key = msg.key()
            ctx.field = MessageField.KEY
            if self._key_deserializer is not None:
                try:
                    key = self._key_deserializer(key, ctx)
                except Exception as e:
                    raise KeyDeserializationError(exception=e, kafka_message=msg)
            msg.set_key(key)
            msg.set_value(value)
            return msg

        def consume(self, num_messages=1, timeout=-1):
            """Not offered, as in confluent-kafka: use poll()."""
            raise NotImplementedError

    return SerializingProducer, DeserializingConsumer
