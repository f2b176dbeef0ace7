# frozen_string_literal: true

module Gregor
  # gregor's in-process mock cluster (gregor_mock_cluster_*), for tests that
  # need no broker; the calls follow librdkafka's rdkafka_mock.h.
  #
  #   Gregor::MockCluster.open(3) do |cluster|
  #     cluster.create_topic("orders", partitions: 1, replication: 3)
  #     producer = Gregor::Config.new("bootstrap.servers" => cluster.bootstraps).producer
  #     cluster.push_request_errors(0, [6, 6]) # Produce: NOT_LEADER_OR_FOLLOWER twice
  #   end
  class MockCluster
    # One request a mock broker received while tracking was on; timestamp_us:
    # microseconds since the cluster started (monotonic).
    TrackedRequest = Struct.new(:broker_id, :api_key, :api_version, :timestamp_us)

    # gregor_mock_request
    class Request < FFI::Struct
      layout :broker_id, :int32, :api_key, :int16, :api_version, :int16, :timestamp_us, :int64
    end

    module Native
      extend FFI::Library
      ffi_lib Gregor::Native.ffi_libraries.map(&:name)

      def self.bind(name, args, ret)
        Gregor::Native::SIGNATURES[name] = [args.map { |t| find_type(t) }, find_type(ret)]
        attach_function(name, args, ret)
      rescue FFI::NotFoundError
        define_singleton_method(name) do |*_a|
          raise Gregor::RdkafkaError.new(ERRORS.fetch(:_NOT_IMPLEMENTED), broker_message: "#{name} is not in the loaded libgregor")
        end
      end

      bind :gregor_mock_cluster_new, [:int, :pointer, :size_t], :pointer
      bind :gregor_mock_cluster_bootstraps, [:pointer], :string
      bind :gregor_mock_cluster_destroy, [:pointer], :void
      bind :gregor_mock_topic_create, [:pointer, :string, :int, :int], :int
      bind :gregor_mock_partition_set_leader, [:pointer, :string, :int32, :int32], :int
      bind :gregor_mock_partition_set_follower, [:pointer, :string, :int32, :int32], :int
      bind :gregor_mock_broker_set_down, [:pointer, :int32], :int
      bind :gregor_mock_broker_set_up, [:pointer, :int32], :int
      bind :gregor_mock_broker_set_rtt, [:pointer, :int32, :int], :int
      bind :gregor_mock_broker_set_rack, [:pointer, :int32, :string], :int
      bind :gregor_mock_push_request_errors, [:pointer, :int16, :size_t, :pointer], :int
      bind :gregor_mock_broker_push_request_error_rtts, [:pointer, :int32, :int16, :size_t, :pointer, :pointer], :int
      bind :gregor_mock_coordinator_set, [:pointer, :string, :string, :int32], :int
      bind :gregor_mock_set_apiversion, [:pointer, :int16, :int16, :int16], :int
      bind :gregor_mock_set_transaction_version, [:pointer, :int16], :int
      bind :gregor_mock_group_initial_rebalance_delay_ms, [:pointer, :int], :int
      bind :gregor_mock_start_request_tracking, [:pointer], :int
      bind :gregor_mock_stop_request_tracking, [:pointer], :int
      bind :gregor_mock_get_requests, [:pointer, :pointer, :size_t], :size_t
      bind :gregor_mock_clear_requests, [:pointer], :int
      bind :gregor_mock_partition_high_watermark, [:pointer, :string, :int32], :int64
    end

    # The cluster's bootstrap.servers list.
    attr_reader :bootstraps
    alias bootstrap_servers bootstraps

    # Starts `brokers` brokers (IDs 1..brokers) on 127.0.0.1; with a block,
    # yields the cluster and stops it when the block ends.
    def self.open(brokers = 3)
      cluster = new(brokers)
      return cluster unless block_given?

      begin
        yield cluster
      ensure
        cluster.close
      end
    end

    def initialize(brokers = 3)
      err = FFI::MemoryPointer.new(:char, 512)
      @handle = Native.gregor_mock_cluster_new(Integer(brokers), err, 512)
      raise Gregor::RdkafkaError.new(ERRORS.fetch(:_INVALID_ARG), broker_message: err.read_string) if @handle.null?

      @bootstraps = Native.gregor_mock_cluster_bootstraps(@handle)
    end

    # Stops every broker (idempotent).
    def close
      h = @handle
      @handle = nil
      Native.gregor_mock_cluster_destroy(h) if h && !h.null?
    end

    def closed?
      @handle.nil?
    end

    def create_topic(topic, partitions: 1, replication: 1)
      check(Native.gregor_mock_topic_create(handle, topic, partitions, replication))
    end

    # Moves the leader of topic [partition]; its leader epoch goes up by one.
    def set_partition_leader(topic, partition, broker_id)
      check(Native.gregor_mock_partition_set_leader(handle, topic, partition, broker_id))
    end

    # The follower (-1: none) the leader of topic [partition] names as
    # preferred read replica (KIP-392) to a consumer that sends its rack.
    def set_partition_follower(topic, partition, broker_id)
      check(Native.gregor_mock_partition_set_follower(handle, topic, partition, broker_id))
    end

    def broker_down(broker_id)
      check(Native.gregor_mock_broker_set_down(handle, broker_id))
    end

    def broker_up(broker_id)
      check(Native.gregor_mock_broker_set_up(handle, broker_id))
    end

    def set_broker_rtt(broker_id, rtt_ms)
      check(Native.gregor_mock_broker_set_rtt(handle, broker_id, Integer(rtt_ms)))
    end

    def set_broker_rack(broker_id, rack)
      check(Native.gregor_mock_broker_set_rack(handle, broker_id, rack))
    end

    # The next errors.size requests of api_key get these error codes (on
    # broker_id only if given, each after rtts_ms[i] ms).
    def push_request_errors(api_key, errors, broker_id: nil, rtts_ms: nil)
      arr = FFI::MemoryPointer.new(:int16, [errors.size, 1].max)
      arr.write_array_of_int16(errors.map { |e| Integer(e) })
      if broker_id.nil?
        raise ArgumentError, "rtts_ms needs broker_id" if rtts_ms

        return check(Native.gregor_mock_push_request_errors(handle, api_key, errors.size, arr))
      end
      rtts = FFI::MemoryPointer.new(:int, [errors.size, 1].max)
      rtts.write_array_of_int(rtts_ms || Array.new(errors.size, 0))
      check(Native.gregor_mock_broker_push_request_error_rtts(handle, broker_id, api_key, errors.size, arr, rtts))
    end

    # key_type "group" or "transaction".
    def set_coordinator(key_type, key, broker_id)
      check(Native.gregor_mock_coordinator_set(handle, key_type.to_s, key, broker_id))
    end

    def set_api_version(api_key, min_version, max_version)
      check(Native.gregor_mock_set_apiversion(handle, api_key, min_version, max_version))
    end

    # Finalizes transaction.version at +level+ (nil: not finalized); 2 or
    # more is transactions v2 (KIP-890 part 2).
    def set_transaction_version(level)
      check(Native.gregor_mock_set_transaction_version(handle, level.nil? ? -1 : Integer(level)))
    end

    def group_initial_rebalance_delay_ms=(ms)
      check(Native.gregor_mock_group_initial_rebalance_delay_ms(handle, Integer(ms)))
    end

    def start_request_tracking
      check(Native.gregor_mock_start_request_tracking(handle))
    end

    def stop_request_tracking
      check(Native.gregor_mock_stop_request_tracking(handle))
    end

    # The recorded requests, oldest first.
    def requests
      n = Native.gregor_mock_get_requests(handle, nil, 0)
      return [] if n.zero?

      buf = FFI::MemoryPointer.new(Request, n)
      n = [n, Native.gregor_mock_get_requests(handle, buf, n)].min
      Array.new(n) do |i|
        r = Request.new(buf + i * Request.size)
        TrackedRequest.new(r[:broker_id], r[:api_key], r[:api_version], r[:timestamp_us])
      end
    end

    def clear_requests
      check(Native.gregor_mock_clear_requests(handle))
    end

    # The partition's high watermark, or -1 for an unknown partition.
    def high_watermark(topic, partition)
      Native.gregor_mock_partition_high_watermark(handle, topic, partition)
    end

    private

    def handle
      raise Gregor::RdkafkaError.new(ERRORS.fetch(:_STATE), broker_message: "the mock cluster is closed") if @handle.nil?

      @handle
    end

    def check(rc)
      raise Gregor::RdkafkaError.new(rc, broker_message: Gregor::Native.gregor_err_str(rc)) unless rc.zero?

      nil
    end
  end
end
