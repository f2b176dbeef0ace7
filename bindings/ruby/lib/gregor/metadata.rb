# frozen_string_literal: true

module Gregor
  # A cluster metadata snapshot in rdkafka-ruby's shape: `brokers` is an
  # Array of {broker_id:, broker_name:, broker_port:}; `topics` an Array of
  # {topic_name:, partition_count:, partitions: [{partition_id:, leader:,
  # replica_count:, replicas:, in_sync_replica_brokers:, isrs:}]}. A topic or
  # partition error raises RdkafkaError, as in rdkafka-ruby.
  class Metadata
    attr_reader :brokers, :topics, :cluster_id, :controller_id

    # Asks through a producer or consumer pointer (`fn` is
    # :gregor_producer_metadata or :gregor_consumer_metadata) about every
    # topic, or `topic_name`.
    # `topics: false` reads only the cluster part (brokers, ids).
    def initialize(fn, native, topic_name = nil, timeout_ms = 2_000, topics: true)
      @read_topics = topics
      out = FFI::MemoryPointer.new(:pointer)
      buf = Native.errbuf
      Native.check!(Native.public_send(fn, native, topic_name&.to_s, timeout_ms, out, buf, Native::ERRSTR_SIZE), buf)
      md = out.read_pointer
      begin
        read(md)
      ensure
        Native.gregor_metadata_free(md)
      end
    end

    private

    def read(md)
      @cluster_id = Native.gregor_metadata_cluster_id(md)
      @controller_id = Native.gregor_metadata_controller_id(md)
      @brokers = Array.new(Native.gregor_metadata_broker_count(md)) do |i|
        { broker_id: Native.gregor_metadata_broker_id(md, i), broker_name: Native.gregor_metadata_broker_host(md, i),
          broker_port: Native.gregor_metadata_broker_port(md, i) }
      end
      @topics = Array.new(@read_topics ? Native.gregor_metadata_topic_count(md) : 0) do |t|
        err = Native.gregor_metadata_topic_err(md, t)
        raise RdkafkaError.new(err) unless err.zero?

        n = Native.gregor_metadata_partition_count(md, t)
        partitions = Array.new(n) do |p|
          perr = Native.gregor_metadata_partition_err(md, t, p)
          raise RdkafkaError.new(perr) unless perr.zero?

          replicas = ids(:gregor_metadata_partition_replicas, md, t, p)
          isrs = ids(:gregor_metadata_partition_isrs, md, t, p)
          { partition_id: Native.gregor_metadata_partition_id(md, t, p), leader: Native.gregor_metadata_partition_leader(md, t, p),
            replica_count: replicas.size, replicas: replicas, in_sync_replica_brokers: isrs.size, isrs: isrs }
        end
        { topic_name: Native.gregor_metadata_topic_name(md, t), partition_count: n, partitions: partitions }
      end
    end

    def ids(fn, md, t, p)
      n = Native.public_send(fn, md, t, p, nil, 0)
      return [] if n.zero?

      out = FFI::MemoryPointer.new(:int32, n)
      Native.public_send(fn, md, t, p, out, n)
      out.read_array_of_int32(n)
    end
  end

  class Producer
    # Partition counts by topic, shared by every producer of the process
    # (rdkafka-ruby's PartitionsCountCache shape): `get(topic) { count }`
    # runs the block when the entry is missing or older than the TTL; a
    # higher count always wins, a lower one only once the entry expired.
    class PartitionsCountCache
      DEFAULT_TTL_MS = Defaults::PARTITIONS_COUNT_CACHE_TTL_MS

      def initialize(ttl = :not_provided, ttl_ms: :not_provided)
        @ttl_ms =
          if ttl_ms != :not_provided then ttl_ms
          elsif ttl != :not_provided then (ttl * 1000).to_i
          else DEFAULT_TTL_MS
          end
        @counts = {} # topic => [ms, count]
        @lock = Mutex.new
      end

      def get(topic)
        info = @counts[topic]
        return info[1] if info && !expired?(info[0])

        set(topic, yield)
        @counts[topic][1]
      end

      def set(topic, new_count)
        @lock.synchronize do
          info = @counts[topic]
          if info.nil? || new_count > info[1] || expired?(info[0])
            @counts[topic] = [now_ms, new_count]
          else
            info[0] = now_ms
          end
        end
      end

      def to_h
        @counts
      end

      private

      def expired?(at)
        now_ms - at > @ttl_ms
      end

      def now_ms
        (Process.clock_gettime(Process::CLOCK_MONOTONIC) * 1000).to_i
      end
    end
  end
end
