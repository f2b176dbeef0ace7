"""confluent-kafka's model classes that are not tied to one client:
IsolationLevel, ElectionType, TopicCollection, TopicPartitionInfo,
AcknowledgeType. The enum values are Kafka's wire values (IsolationLevel in
ListOffsets / Fetch, ElectionType in ElectLeaders, KIP-932's acknowledge
types), the same numbers confluent-kafka uses."""

from enum import Enum, IntEnum


class IsolationLevel(Enum):
    """Which offsets a read sees: all (READ_UNCOMMITTED) or those of committed
    transactions only (READ_COMMITTED)."""

    READ_UNCOMMITTED = 0
    READ_COMMITTED = 1

    def __lt__(self, other):
        if not isinstance(other, IsolationLevel):
            return NotImplemented
        return self.value < other.value


class ElectionType(Enum):
    """A leader election (ElectLeaders): the preferred replica, or any
    replica (unclean)."""

    PREFERRED = 0
    UNCLEAN = 1

    def __lt__(self, other):
        if not isinstance(other, ElectionType):
            return NotImplemented
        return self.value < other.value


class AcknowledgeType(IntEnum):
    """A share consumer's acknowledgement (KIP-932)."""

    ACCEPT = 1
    RELEASE = 2
    REJECT = 3


class TopicCollection:
    """Topics named by name (``describe_topics``)."""

    def __init__(self, topic_names):
        self.topic_names = topic_names


class TopicPartitionInfo:
    """A partition as ``describe_topics`` describes it: id, leader and
    replicas / in-sync replicas (Nodes)."""

    def __init__(self, id, leader, replicas, isr):
        self.id = id
        self.leader = leader
        self.replicas = replicas
        self.isr = isr
