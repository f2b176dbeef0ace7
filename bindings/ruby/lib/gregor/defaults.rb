# frozen_string_literal: true

module Gregor
  # The default timeouts of the binding's calls (rdkafka-ruby's Defaults,
  # same names and values): the value a call uses when its timeout argument
  # is left out. rdkafka-ruby's internal timings (purge and metadata retry
  # sleeps, its synchronize loop) have no counterpart: gregor retries inside
  # the library.
  module Defaults
    CONSUMER_COMMITTED_TIMEOUT_MS = 2_000
    CONSUMER_CLUSTER_ID_TIMEOUT_MS = 1_000
    CONSUMER_QUERY_WATERMARK_TIMEOUT_MS = 1_000
    CONSUMER_LAG_TIMEOUT_MS = 1_000
    CONSUMER_OFFSETS_FOR_TIMES_TIMEOUT_MS = 1_000
    CONSUMER_POLL_TIMEOUT_MS = 250
    PRODUCER_FLUSH_TIMEOUT_MS = 5_000
    METADATA_TIMEOUT_MS = 2_000
    HANDLE_WAIT_TIMEOUT_MS = 60_000
    PARTITIONS_COUNT_CACHE_TTL_MS = 30_000
    # How long each poll of the producer's polling thread waits.
    NATIVE_KAFKA_POLL_TIMEOUT_MS = 100
  end
end
