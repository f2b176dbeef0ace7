"""AdminClient's consumer-group calls (list/describe/delete groups, list/alter
group offsets), bound to the group admin C API once the library has it."""

from ..error import KafkaError, KafkaException


def _missing(what):
    raise KafkaException(
        KafkaError(
            KafkaError._NOT_IMPLEMENTED,
            f"AdminClient.{what}: the loaded libgregor has no group admin calls yet",
        )
    )


def list_consumer_groups(self, **kwargs):
    _missing("list_consumer_groups")


def describe_consumer_groups(self, group_ids, **kwargs):
    _missing("describe_consumer_groups")


def delete_consumer_groups(self, group_ids, **kwargs):
    _missing("delete_consumer_groups")


def list_consumer_group_offsets(self, list_consumer_group_offsets_request, **kwargs):
    _missing("list_consumer_group_offsets")


def alter_consumer_group_offsets(self, alter_consumer_group_offsets_request, **kwargs):
    _missing("alter_consumer_group_offsets")
