"""The resource types and resource pattern types the config and ACL calls
name resources with (confluent-kafka's ``admin._resource``)."""

from ._common import _from_library, _Ordered

# Read from libgregor at load time (gregor_get_*_descs), never copied here.
# confluent-kafka (librdkafka) calls resource type 4 BROKER.
ResourceType = _from_library(__name__, "ResourceType", "resource_type", _Ordered, {"CLUSTER": "BROKER"})
ResourcePatternType = _from_library(__name__, "ResourcePatternType", "resource_pattern_type", _Ordered)
