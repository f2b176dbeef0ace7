"""Share consumers (KIP-932 share groups): the names confluent-kafka
exports, so programs and test helpers that import them load. gregor does not
implement share groups (ShareGroupHeartbeat / ShareFetch /
ShareAcknowledge); constructing one raises KafkaException
``_NOT_IMPLEMENTED`` naming KIP-932."""

from .error import KafkaError, KafkaException


def _refuse(what):
    raise KafkaException(KafkaError(KafkaError._NOT_IMPLEMENTED,
                                    f"{what}: KIP-932 share groups are not implemented by gregor"))


class ShareConsumer:
    """A KIP-932 share-group consumer: not implemented (raises on construction)."""

    def __init__(self, conf=None, **kwargs):
        _refuse("ShareConsumer")


class DeserializingShareConsumer(ShareConsumer):
    """A deserializing KIP-932 share-group consumer: not implemented."""

    def __init__(self, conf=None, **kwargs):
        _refuse("DeserializingShareConsumer")
