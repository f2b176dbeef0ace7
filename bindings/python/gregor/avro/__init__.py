"""``confluent_kafka.avro``'s names (the legacy AvroProducer / AvroConsumer).

gregor has no Schema Registry client and no Avro serializer (they need
other packages). The module imports, so programs and
test helpers that only import it load; constructing either class raises
ImportError saying so — the error confluent-kafka itself raises when its
Avro dependencies are missing.
"""

_WHY = ("{}: gregor has no Schema Registry client or Avro serializer "
        "(use confluent-kafka's schema_registry package with gregor's SerializingProducer)")


class AvroProducer:
    """Not available in gregor: raises ImportError."""

    def __init__(self, config=None, *args, **kwargs):
        raise ImportError(_WHY.format("AvroProducer"))


class AvroConsumer:
    """Not available in gregor: raises ImportError."""

    def __init__(self, config=None, *args, **kwargs):
        raise ImportError(_WHY.format("AvroConsumer"))
