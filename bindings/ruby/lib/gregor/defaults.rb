# frozen_string_literal: true

module Gregor
  # The default timeouts of the binding's calls (rdkafka-ruby's Defaults,
  # same names and values): the value a call uses when its timeout argument
  # is left out. rdkafka-ruby's metadata retry timings and its NativeKafka
  # synchronize loop have no counterpart (gregor retries metadata inside
  # the library) and are not defined.
  module Defaults
    CONSUMER_COMMITTED_TIMEOUT_MS = 2_000
    CONSUMER_CLUSTER_ID_TIMEOUT_MS = 1_000
    CONSUMER_QUERY_WATERMARK_TIMEOUT_MS = 1_000
    CONSUMER_LAG_TIMEOUT_MS = 1_000
    CONSUMER_OFFSETS_FOR_TIMES_TIMEOUT_MS = 1_000
    CONSUMER_POLL_TIMEOUT_MS = 250
    # Consumer#seek never waits (gregor_consumer_seek does not block), as
    # rdkafka-ruby's seek with this timeout.
    CONSUMER_SEEK_TIMEOUT_MS = 0
    # Consumer#events_poll's default wait.
    CONSUMER_EVENTS_POLL_TIMEOUT_MS = 0
    PRODUCER_FLUSH_TIMEOUT_MS = 5_000
    # Producer#purge flushes in steps of this many ms, sleeping
    # PRODUCER_PURGE_SLEEP_INTERVAL_MS between them, until nothing is left.
    PRODUCER_PURGE_FLUSH_TIMEOUT_MS = 100
    PRODUCER_PURGE_SLEEP_INTERVAL_MS = 1
    METADATA_TIMEOUT_MS = 2_000
    HANDLE_WAIT_TIMEOUT_MS = 60_000
    PARTITIONS_COUNT_CACHE_TTL_MS = 30_000
    # How long each poll of the producer's polling thread waits.
    NATIVE_KAFKA_POLL_TIMEOUT_MS = 100
  end
end
