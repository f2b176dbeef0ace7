"""``confluent_kafka.cimpl``'s names (confluent-kafka's C extension module),
for code that imports from it directly: the same objects as ``gregor``'s."""

from . import (  # noqa: F401
    OFFSET_BEGINNING,
    OFFSET_END,
    OFFSET_INVALID,
    OFFSET_STORED,
    TIMESTAMP_CREATE_TIME,
    TIMESTAMP_LOG_APPEND_TIME,
    TIMESTAMP_NOT_AVAILABLE,
    Consumer,
    KafkaError,
    KafkaException,
    Message,
    Producer,
    ShareConsumer,
    TopicPartition,
    consistent,
    fnv1a,
    libversion,
    murmur2,
    version,
)
