# frozen_string_literal: true

require "ffi"

module Gregor
  # The C functions of libgregor, attached with the ffi gem.
  #
  # The library is looked for in GREGOR_LIBRARY (a path), then through the
  # system loader (libgregor.so.0, libgregor.so). Calls that block (poll,
  # flush, admin requests, metadata) are attached with `blocking: true` so
  # they release the VM lock while they wait. A function the loaded library
  # lacks (an older build) does not stop loading: calling it raises
  # Gregor::RdkafkaError with code -170 (_NOT_IMPLEMENTED) naming it.
  module Native
    extend FFI::Library

    LIBRARY_CANDIDATES = [ENV["GREGOR_LIBRARY"], "libgregor.so.0", "libgregor.so"].compact.reject(&:empty?)
    begin
      ffi_lib(ENV["GREGOR_LIBRARY"] && !ENV["GREGOR_LIBRARY"].empty? ? [ENV["GREGOR_LIBRARY"]] : LIBRARY_CANDIDATES)
    rescue LoadError => e
      raise LoadError, "gregor: cannot load libgregor (set GREGOR_LIBRARY to its path or `make install` it): #{e.message}"
    end

    MISSING = []
    # name => [argument types, return type] of every function bound, for the
    # check against include/gregor.h (test/test_signatures.rb)
    SIGNATURES = {}

    # attach_function that tolerates a missing symbol (see above).
    def self.bind(name, args, ret, **opts)
      SIGNATURES[name] = [args.map { |t| find_type(t) }, find_type(ret)]
      attach_function(name, args, ret, **opts)
    rescue FFI::NotFoundError
      MISSING << name
      define_singleton_method(name) do |*_a|
        raise Gregor::RdkafkaError.new(-170, broker_message: "#{name} is not in the loaded libgregor; this call needs a newer build")
      end
    end

    class Slice < FFI::Struct
      layout :ptr, :pointer, :len, :size_t

      def to_s_or_nil
        self[:ptr].null? ? nil : self[:ptr].read_bytes(self[:len])
      end
    end

    class DeliveryReport < FFI::Struct
      layout :topic, :string, :partition, :int32, :offset, :int64, :timestamp, :int64,
             :err, :int, :errstr, :string, :msg_opaque, :pointer, :message, :pointer
    end

    callback :dr_cb, [DeliveryReport.by_ref, :pointer], :void
    callback :rebalance_cb, [:pointer, :int32, :pointer, :pointer], :void
    callback :commit_cb, [:pointer, :int32, :pointer, :pointer], :void
    callback :stats_cb, [:pointer, :pointer, :size_t, :pointer], :void
    # gregor_log_cb(opaque, level, fac, name, buf)
    callback :log_cb, [:pointer, :int, :string, :string, :string], :void

    E = [:pointer, :size_t].freeze # errstr, errstr_size

    bind :gregor_version, [], :string
    bind :gregor_err_name, [:int], :string
    bind :gregor_err_str, [:int], :string
    bind :gregor_err_rdkafka_name, [:int], :string
    bind :gregor_err_rdkafka_str, [:int], :string

    bind :gregor_config_new, [], :pointer
    bind :gregor_config_set, [:pointer, :string, :string] + E, :int
    bind :gregor_config_free, [:pointer], :void
    bind :gregor_config_set_log_cb, [:pointer, :log_cb, :pointer], :int
    bind :gregor_config_dump, [:pointer, :pointer], :pointer
    bind :gregor_config_dump_free, [:pointer, :size_t], :void

    bind :gregor_headers_new, [], :pointer
    bind :gregor_headers_add, [:pointer, :string, :pointer, :size_t], :int
    bind :gregor_headers_free, [:pointer], :void

    bind :gregor_producer_new, [:pointer] + E, :pointer
    bind :gregor_producer_free, [:pointer], :void, blocking: true
    bind :gregor_producer_set_dr_cb, [:pointer, :dr_cb, :pointer], :int
    bind :gregor_producer_send,
         [:pointer, :string, :int32, :pointer, :size_t, :pointer, :size_t, :pointer, :int64, :pointer, :int] + E,
         :int, blocking: true
    bind :gregor_producer_poll, [:pointer, :int], :int, blocking: true
    bind :gregor_producer_flush, [:pointer, :int], :int, blocking: true
    bind :gregor_producer_purge, [:pointer, :int], :int, blocking: true
    bind :gregor_producer_len, [:pointer], :size_t
    bind :gregor_producer_close, [:pointer, :int], :void, blocking: true
    bind :gregor_partitioner, [:string, :pointer, :size_t, :int32], :int32
    bind :gregor_producer_set_stats_cb, [:pointer, :stats_cb, :pointer], :int
    bind :gregor_producer_metadata, [:pointer, :string, :int, :pointer] + E, :int, blocking: true
    bind :gregor_consumer_set_stats_cb, [:pointer, :stats_cb, :pointer], :int
    bind :gregor_consumer_metadata, [:pointer, :string, :int, :pointer] + E, :int, blocking: true

    bind :gregor_metadata_broker_count, [:pointer], :size_t
    bind :gregor_metadata_cluster_id, [:pointer], :string
    bind :gregor_metadata_controller_id, [:pointer], :int32
    bind :gregor_metadata_broker_id, [:pointer, :size_t], :int32
    bind :gregor_metadata_broker_host, [:pointer, :size_t], :string
    bind :gregor_metadata_broker_port, [:pointer, :size_t], :int32
    bind :gregor_metadata_topic_count, [:pointer], :size_t
    bind :gregor_metadata_topic_name, [:pointer, :size_t], :string
    bind :gregor_metadata_topic_err, [:pointer, :size_t], :int
    bind :gregor_metadata_partition_count, [:pointer, :size_t], :size_t
    bind :gregor_metadata_partition_id, [:pointer, :size_t, :size_t], :int32
    bind :gregor_metadata_partition_leader, [:pointer, :size_t, :size_t], :int32
    bind :gregor_metadata_partition_err, [:pointer, :size_t, :size_t], :int
    bind :gregor_metadata_partition_replicas, [:pointer, :size_t, :size_t, :pointer, :size_t], :size_t
    bind :gregor_metadata_partition_isrs, [:pointer, :size_t, :size_t, :pointer, :size_t], :size_t
    bind :gregor_metadata_free, [:pointer], :void

    bind :gregor_tpl_new, [], :pointer
    bind :gregor_tpl_add, [:pointer, :string, :int32, :int64], :int
    bind :gregor_tpl_count, [:pointer], :size_t
    bind :gregor_tpl_free, [:pointer], :void
    bind :gregor_tpl_topic, [:pointer, :size_t], :string
    bind :gregor_tpl_partition, [:pointer, :size_t], :int32
    bind :gregor_tpl_offset, [:pointer, :size_t], :int64
    bind :gregor_tpl_err, [:pointer, :size_t], :int
    bind :gregor_tpl_leader_epoch, [:pointer, :size_t], :int32
    bind :gregor_tpl_set_metadata, [:pointer, :size_t, :string], :int32
    bind :gregor_tpl_metadata, [:pointer, :size_t], :string

    bind :gregor_consumer_new, [:pointer] + E, :pointer
    bind :gregor_consumer_free, [:pointer], :void, blocking: true
    bind :gregor_consumer_close, [:pointer], :int, blocking: true
    bind :gregor_consumer_assign, [:pointer, :pointer] + E, :int
    bind :gregor_consumer_assignment, [:pointer, :pointer], :int
    bind :gregor_consumer_poll, [:pointer, :int], :pointer, blocking: true
    bind :gregor_consumer_seek, [:pointer, :string, :int32, :int64] + E, :int
    bind :gregor_consumer_pause, [:pointer, :pointer] + E, :int
    bind :gregor_consumer_resume, [:pointer, :pointer] + E, :int
    bind :gregor_consumer_position, [:pointer, :pointer] + E, :int
    bind :gregor_consumer_committed, [:pointer, :pointer, :int] + E, :int, blocking: true
    bind :gregor_consumer_watermarks, [:pointer, :string, :int32, :pointer, :pointer, :int] + E, :int,
         blocking: true
    bind :gregor_consumer_set_rebalance_cb, [:pointer, :rebalance_cb, :pointer], :int32
    bind :gregor_consumer_subscribe, [:pointer, :pointer, :size_t] + E, :int32
    bind :gregor_consumer_unsubscribe, [:pointer], :int32, blocking: true
    bind :gregor_consumer_subscription, [:pointer, :pointer], :int32
    bind :gregor_consumer_commit, [:pointer, :pointer, :int32] + E, :int32, blocking: true
    bind :gregor_consumer_store_offsets, [:pointer, :pointer], :int32
    bind :gregor_consumer_member_id, [:pointer, :pointer, :size_t], :int32
    bind :gregor_consumer_offsets_for_times, [:pointer, :pointer, :int] + E, :int, blocking: true

    bind :gregor_message_topic, [:pointer], :string
    bind :gregor_message_partition, [:pointer], :int32
    bind :gregor_message_offset, [:pointer], :int64
    bind :gregor_message_key, [:pointer], Slice.by_value
    bind :gregor_message_value, [:pointer], Slice.by_value
    bind :gregor_message_timestamp, [:pointer, :pointer], :int64
    bind :gregor_message_header_count, [:pointer], :size_t
    bind :gregor_message_header, [:pointer, :size_t, Slice.by_ref, Slice.by_ref], :int
    bind :gregor_message_err, [:pointer], :int
    bind :gregor_message_errstr, [:pointer], :string
    bind :gregor_message_free, [:pointer], :void

    bind :gregor_admin_new, [:pointer] + E, :pointer
    bind :gregor_admin_free, [:pointer], :void, blocking: true
    bind :gregor_admin_close, [:pointer], :int, blocking: true
    bind :gregor_admin_metadata, [:pointer, :string, :int, :pointer] + E, :int, blocking: true
    bind :gregor_new_topic_new, [:string, :int32, :int32], :pointer
    bind :gregor_new_topic_set_config, [:pointer, :string, :string] + E, :int
    bind :gregor_new_topic_free, [:pointer], :void
    bind :gregor_admin_create_topics, [:pointer, :pointer, :size_t, :pointer, :pointer] + E, :int, blocking: true
    bind :gregor_admin_delete_topics, [:pointer, :pointer, :size_t, :pointer, :pointer] + E, :int, blocking: true
    bind :gregor_topic_results_count, [:pointer], :size_t
    bind :gregor_topic_results_name, [:pointer, :size_t], :string
    bind :gregor_topic_results_err, [:pointer, :size_t], :int
    bind :gregor_topic_results_errstr, [:pointer, :size_t], :string
    bind :gregor_topic_results_free, [:pointer], :void
    bind :gregor_new_partitions_new, [:string, :int32], :pointer
    bind :gregor_new_partitions_free, [:pointer], :void
    bind :gregor_admin_create_partitions, [:pointer, :pointer, :size_t, :pointer, :pointer] + E, :int, blocking: true
    bind :gregor_admin_delete_groups, [:pointer, :pointer, :size_t, :pointer, :pointer] + E, :int, blocking: true
    bind :gregor_group_results_count, [:pointer], :size_t
    bind :gregor_group_results_group_id, [:pointer, :size_t], :string
    bind :gregor_group_results_err, [:pointer, :size_t], :int
    bind :gregor_group_results_errstr, [:pointer, :size_t], :string
    bind :gregor_group_results_free, [:pointer], :void
    bind :gregor_admin_list_offsets, [:pointer, :pointer, :int, :pointer, :pointer] + E, :int, blocking: true
    bind :gregor_partition_results_count, [:pointer], :size_t
    bind :gregor_partition_results_topic, [:pointer, :size_t], :string
    bind :gregor_partition_results_partition, [:pointer, :size_t], :int32
    bind :gregor_partition_results_err, [:pointer, :size_t], :int
    bind :gregor_partition_results_errstr, [:pointer, :size_t], :string
    bind :gregor_partition_results_offset, [:pointer, :size_t], :int64
    bind :gregor_partition_results_timestamp, [:pointer, :size_t], :int64
    bind :gregor_partition_results_leader_epoch, [:pointer, :size_t], :int32
    bind :gregor_partition_results_free, [:pointer], :void
    bind :gregor_config_resource_new, [:int, :string], :pointer
    bind :gregor_config_resource_add_incremental_config, [:pointer, :string, :int, :string] + E, :int
    bind :gregor_config_resource_free, [:pointer], :void
    bind :gregor_admin_describe_configs,
         [:pointer, :pointer, :size_t, :pointer, :size_t, :int, :int, :pointer, :pointer] + E, :int, blocking: true
    bind :gregor_admin_incremental_alter_configs, [:pointer, :pointer, :size_t, :pointer, :pointer] + E, :int,
         blocking: true
    bind :gregor_config_results_count, [:pointer], :size_t
    bind :gregor_config_results_type, [:pointer, :size_t], :int
    bind :gregor_config_results_name, [:pointer, :size_t], :string
    bind :gregor_config_results_err, [:pointer, :size_t], :int
    bind :gregor_config_results_errstr, [:pointer, :size_t], :string
    bind :gregor_config_results_entry_count, [:pointer, :size_t], :size_t
    bind :gregor_config_results_entry_name, [:pointer, :size_t, :size_t], :string
    bind :gregor_config_results_entry_value, [:pointer, :size_t, :size_t], :string
    bind :gregor_config_results_entry_source, [:pointer, :size_t, :size_t], :int
    bind :gregor_config_results_entry_is_default, [:pointer, :size_t, :size_t], :int
    bind :gregor_config_results_entry_is_read_only, [:pointer, :size_t, :size_t], :int
    bind :gregor_config_results_entry_is_sensitive, [:pointer, :size_t, :size_t], :int
    bind :gregor_config_results_synonym_count, [:pointer, :size_t, :size_t], :size_t
    bind :gregor_config_results_synonym_name, [:pointer, :size_t, :size_t, :size_t], :string
    bind :gregor_config_results_synonym_value, [:pointer, :size_t, :size_t, :size_t], :string
    bind :gregor_config_results_free, [:pointer], :void

    ERRSTR_SIZE = 512

    def self.errbuf
      FFI::MemoryPointer.new(:char, ERRSTR_SIZE)
    end

    # Raises RdkafkaError for a non-zero code, with the errstr buffer's text.
    def self.check!(code, buf = nil, message_prefix = nil)
      return if code.zero?

      text = buf&.read_string
      raise Gregor::RdkafkaError.new(code, message_prefix, broker_message: text && !text.empty? ? text : nil)
    end

    # A buffer holding bytes (or nil for NULL) and its length.
    def self.bytes(str)
      return [nil, 0] if str.nil?

      s = str.to_s.b
      return [FFI::MemoryPointer.new(:uint8, 1), 0] if s.empty?

      p = FFI::MemoryPointer.new(:uint8, s.bytesize)
      p.put_bytes(0, s)
      [p, s.bytesize]
    end

    # A `const char *const *` for strings; returns [array, keepalive].
    # A string with a NUL raises ArgumentError, as ruby-ffi's :string
    # arguments do: C would read "rt\0evil" as "rt".
    def self.cstr_array(strings)
      ptrs = strings.map do |s|
        s = s.to_s
        raise ArgumentError, "string contains null byte: #{s.inspect}" if s.include?("\0")

        FFI::MemoryPointer.from_string(s)
      end
      arr = FFI::MemoryPointer.new(:pointer, [ptrs.size, 1].max)
      arr.put_array_of_pointer(0, ptrs) unless ptrs.empty?
      [arr, ptrs]
    end
  end
end
