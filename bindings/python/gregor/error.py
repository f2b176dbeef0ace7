"""KafkaError and KafkaException, shaped like confluent-kafka's, and the
errors SerializingProducer / DeserializingConsumer raise (ConsumeError,
ProduceError and their key/value (de)serialization subclasses).

KafkaError, KafkaException and the error-code table live in
``gregor._kafka_error``, which ``gregor.serialization`` imports too; this
module is where they are public.
"""

from ._descriptors import error_descs  # noqa: F401  (gregor.error's names)
from ._kafka_error import KafkaError, KafkaException, error_names, raise_for  # noqa: F401
from ._lib import lib, pystr  # noqa: F401  (gregor.error's names)
from .serialization import SerializationError


class _KafkaClientError(KafkaException):
    """A client error: the KafkaError, the exception that caused it (if any)
    and, when consuming, the message as received."""

    def __init__(self, kafka_error, exception=None, kafka_message=None):
        super().__init__(kafka_error)
        self.exception = exception
        self.kafka_message = kafka_message

    @property
    def code(self):
        return self.args[0].code()

    @property
    def name(self):
        return self.args[0].name()


class ConsumeError(_KafkaClientError):
    """Consuming failed; after a deserialization error ``kafka_message`` holds
    the message as received."""

    def __init__(self, kafka_error, exception=None, kafka_message=None):
        super().__init__(kafka_error, exception, kafka_message)


class KeyDeserializationError(ConsumeError, SerializationError):
    def __init__(self, exception=None, kafka_message=None):
        super().__init__(KafkaError(KafkaError._KEY_DESERIALIZATION, str(exception)), exception=exception,
                         kafka_message=kafka_message)


class ValueDeserializationError(ConsumeError, SerializationError):
    def __init__(self, exception=None, kafka_message=None):
        super().__init__(KafkaError(KafkaError._VALUE_DESERIALIZATION, str(exception)), exception=exception,
                         kafka_message=kafka_message)


class ProduceError(_KafkaClientError):
    """Producing failed."""

    def __init__(self, kafka_error, exception=None):
        super().__init__(kafka_error, exception, None)


class KeySerializationError(ProduceError, SerializationError):
    def __init__(self, exception=None):
        super().__init__(KafkaError(KafkaError._KEY_SERIALIZATION, str(exception)), exception=exception)


class ValueSerializationError(ProduceError, SerializationError):
    def __init__(self, exception=None):
        super().__init__(KafkaError(KafkaError._VALUE_SERIALIZATION, str(exception)), exception=exception)
