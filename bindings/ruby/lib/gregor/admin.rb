# frozen_string_literal: true

module Gregor
  # An admin client (rdkafka-ruby's shape): requests return handles whose
  # `wait` gives the report. Each request runs its blocking C call (which
  # releases the VM lock) on its own thread.
  class Admin
    # A report field given as a String, nil, or (as rdkafka-ruby's reports
    # take them) a C string pointer.
    def self.report_text(v)
      return v.read_string if v.is_a?(FFI::Pointer) && !v.null?
      return nil if v.is_a?(FFI::Pointer)

      v
    end

    # What a create_topic got: the error text (nil if created) and the topic.
    class CreateTopicReport
      attr_reader :error_string, :result_name

      def initialize(error_string, result_name)
        @error_string = Admin.report_text(error_string)
        @result_name = Admin.report_text(result_name)
      end
    end

    # What a delete_topic got.
    class DeleteTopicReport < CreateTopicReport; end

    # A create_topic in flight: `wait(max_wait_timeout_ms:)` gives its report.
    class CreateTopicHandle < AbstractHandle
      def operation_name
        "create topic"
      end

      def create_result
        prepared_result
      end

      def raise_error
        raise RdkafkaError.new(self[:response], broker_message: broker_message || result&.error_string)
      end
    end

    # A delete_topic in flight.
    class DeleteTopicHandle < CreateTopicHandle
      def operation_name
        "delete topic"
      end
    end

    # What a create_partitions got.
    class CreatePartitionsReport < CreateTopicReport; end

    # A create_partitions in flight.
    class CreatePartitionsHandle < CreateTopicHandle
      def operation_name
        "create partitions"
      end
    end

    # What a delete_group got: the error text (nil if deleted) and the group.
    class DeleteGroupsReport < CreateTopicReport; end

    # A delete_group in flight.
    class DeleteGroupsHandle < CreateTopicHandle
      def operation_name
        "delete groups"
      end
    end

    # What a list_offsets got: `offsets`, an Array of {topic:, partition:,
    # offset:, timestamp:, leader_epoch:} (leader_epoch nil if unknown).
    class ListOffsetsReport
      attr_reader :offsets

      # `result_infos:`/`result_count:` are rdkafka-ruby's (librdkafka's
      # result array): only a NULL one (no results) exists without librdkafka.
      def initialize(offsets: [], result_infos: nil, result_count: 0)
        if result_infos.is_a?(FFI::Pointer) && !result_infos.null? && result_count.positive?
          raise ArgumentError, "librdkafka's ListOffsets result infos do not exist in gregor; pass offsets:"
        end

        @offsets = offsets
      end
    end

    # A list_offsets in flight.
    class ListOffsetsHandle < AbstractHandle
      def operation_name
        "list offsets"
      end

      def create_result
        prepared_result
      end
    end

    # Offset specs of list_offsets (gregor.h GREGOR_OFFSET_SPEC_*).
    OFFSET_SPECS = { earliest: -2, latest: -1, max_timestamp: -3 }.freeze

    # One config of a described resource (rdkafka-ruby's ConfigBindingResult).
    class ConfigBindingResult
      attr_reader :name, :value, :read_only, :default, :sensitive, :synonym, :synonyms

      def initialize(name:, value:, read_only: 0, default: 0, sensitive: 0, synonym: 0, synonyms: [])
        @name = name
        @value = value
        @read_only = read_only
        @default = default
        @sensitive = sensitive
        @synonym = synonym
        @synonyms = synonyms
      end
    end

    # A described (or altered) resource: name, type (rdkafka-ruby's resource
    # type numbers) and its configs.
    class ConfigResourceBindingResult
      attr_reader :name, :type, :configs

      def initialize(name, type)
        @name = name
        @type = type
        @configs = []
      end

      def configs_count
        @configs.size
      end
    end

    # What a describe_configs got: `resources`.
    class DescribeConfigsReport
      attr_reader :resources

      def initialize(resources: [])
        @resources = resources
      end
    end

    # What an incremental_alter_configs got.
    class IncrementalAlterConfigsReport < DescribeConfigsReport; end

    # A describe_configs in flight.
    class DescribeConfigsHandle < ListOffsetsHandle
      def operation_name
        "describe configs"
      end
    end

    # An incremental_alter_configs in flight.
    class IncrementalAlterConfigsHandle < ListOffsetsHandle
      def operation_name
        "incremental alter configs"
      end
    end

    # rdkafka-ruby's resource type numbers (librdkafka's) => gregor.h's
    # GREGOR_CONFIG_RESOURCE_* (topic 2 and broker 4 agree; group differs).
    CONFIG_RESOURCE_TYPES = { 2 => 2, 4 => 4, 3 => 32, 8 => 8 }.freeze
    CONFIG_RESOURCE_BROKER = 4 # Kafka's (and librdkafka's) BROKER resource type

    # The old name of the admin handles' base (kept for gregor's callers).
    Handle = AbstractHandle

    CLOSE = ->(ptr) { Native.gregor_admin_close(ptr) }
    FREE = ->(ptr) { Native.gregor_admin_free(ptr) }

    include OAuthBearer::Client

    # "<client.id>#producer-<n>", as librdkafka names its admin clients.
    attr_reader :name

    def initialize(native_config, name: nil, oauth_id: nil)
      @name = name
      @oauth_id = oauth_id
      buf = Native.errbuf
      native = Native.gregor_admin_new(native_config, buf, Native::ERRSTR_SIZE)
      Native.gregor_config_free(native_config)
      raise Config::ClientCreationError.from_library(buf.read_string) if native.null?

      @native = NativeHandle.new(self, native, closer: CLOSE, freer: FREE, error: ClosedAdminError)
    end

    # Creates a topic; `topic_config` is a Hash of topic configs. Returns a
    # CreateTopicHandle at once; the request runs on its own thread.
    def create_topic(topic_name, partition_count, replication_factor, topic_config = {})
      ensure_open(:create_topic)
      # librdkafka's rd_kafka_NewTopic_new bounds and texts (-1: the
      # broker's default)
      unless partition_count.is_a?(Integer) && partition_count >= -1 && partition_count <= 100_000
        raise Config::ConfigError, "num_partitions out of expected range 1..100000 or -1 for broker default"
      end
      unless replication_factor.is_a?(Integer) && replication_factor >= -1 && replication_factor <= 10_000
        raise Config::ConfigError, "replication_factor out of expected range -1..10000"
      end

      nt = Native.gregor_new_topic_new(topic_name.to_s, partition_count, replication_factor)
      raise ArgumentError, "invalid topic name #{topic_name.inspect}" if nt.null?

      topic_config.each do |k, v|
        buf = Native.errbuf
        rc = Native.gregor_new_topic_set_config(nt, k.to_s, v.to_s, buf, Native::ERRSTR_SIZE)
        unless rc.zero?
          Native.gregor_new_topic_free(nt)
          Native.check!(rc, buf)
        end
      end
      arr = FFI::MemoryPointer.new(:pointer, 1)
      arr.put_pointer(0, nt)
      run_async(CreateTopicHandle.new, :create_topic) do |handle|
        topic_call(handle, :gregor_admin_create_topics, arr, CreateTopicReport, topic_name)
      ensure
        Native.gregor_new_topic_free(nt)
      end
    end

    def delete_topic(topic_name)
      ensure_open(:delete_topic)
      arr, keep = Native.cstr_array([topic_name.to_s])
      run_async(DeleteTopicHandle.new, :delete_topic) do |handle|
        keep.size # referenced until the call is done
        topic_call(handle, :gregor_admin_delete_topics, arr, DeleteTopicReport, topic_name)
      end
    end

    # Raises the topic's partition count to `partition_count`. Returns a
    # CreatePartitionsHandle at once.
    def create_partitions(topic_name, partition_count)
      ensure_open(:create_partitions)
      np = Native.gregor_new_partitions_new(topic_name.to_s, partition_count)
      raise Config::ConfigError, "invalid partitions for #{topic_name.inspect}" if np.null?

      arr = FFI::MemoryPointer.new(:pointer, 1)
      arr.put_pointer(0, np)
      run_async(CreatePartitionsHandle.new, :create_partitions) do |handle|
        topic_call(handle, :gregor_admin_create_partitions, arr, CreatePartitionsReport, topic_name)
      ensure
        Native.gregor_new_partitions_free(np)
      end
    end

    # Deletes a consumer group (one without members). Returns a
    # DeleteGroupsHandle at once.
    def delete_group(group_id)
      ensure_open(:delete_group)
      arr, keep = Native.cstr_array([group_id.to_s])
      run_async(DeleteGroupsHandle.new, :delete_group) do |handle|
        keep.size # referenced until the call is done
        topic_call(handle, :gregor_admin_delete_groups, arr, DeleteGroupsReport, group_id, results: :group_results,
                                                                                          name: :group_id)
      end
    end

    # Looks up offsets: `topic_partition_offsets` is {topic => [{partition:,
    # offset:}]} with offset :earliest, :latest, :max_timestamp or a
    # timestamp (ms); `isolation_level` 1 (read committed) makes :latest the
    # last stable offset. Returns a ListOffsetsHandle at once.
    def list_offsets(topic_partition_offsets, isolation_level: nil)
      ensure_open(:list_offsets)
      parsed = topic_partition_offsets.flat_map do |topic, partitions|
        partitions.map do |spec|
          offset = spec.fetch(:offset)
          native = offset.is_a?(Integer) ? offset : OFFSET_SPECS[offset]
          raise ArgumentError, "Unknown offset specification: #{offset.inspect}" unless native

          [topic.to_s, spec.fetch(:partition), native]
        end
      end
      tpl = Native.gregor_tpl_new
      parsed.each { |topic, partition, offset| Native.gregor_tpl_add(tpl, topic, partition, offset) }
      run_async(ListOffsetsHandle.new, :list_offsets) do |handle|
        partition_call(handle, :list_offsets, tpl, isolation_level.to_i == 1 ? 1 : 0)
      ensure
        Native.gregor_tpl_free(tpl)
      end
    end

    # Describes the configs of `resources`: [{resource_type:, resource_name:}]
    # (rdkafka-ruby's resource types: 2 topic, 4 broker, 3 group). Returns a
    # DescribeConfigsHandle at once.
    def describe_configs(resources)
      ensure_open(:describe_configs)
      parsed = resources.map { |r| [r.fetch(:resource_type), r.fetch(:resource_name)] }
      arr, natives = config_resources(parsed)
      run_async(DescribeConfigsHandle.new, :describe_configs) do |handle|
        config_call(handle, DescribeConfigsReport, natives) do |native, out, buf|
          Native.gregor_admin_describe_configs(native, arr, natives.size, nil, 0, 1, 0, nil, out, buf,
                                               Native::ERRSTR_SIZE)
        end
      ensure
        natives.each { |n| Native.gregor_config_resource_free(n) }
      end
    end

    # Applies config changes: [{resource_type:, resource_name:, configs:
    # [{name:, op_type:, value:}]}] with op_type 0 set, 1 delete, 2 append,
    # 3 subtract. Returns an IncrementalAlterConfigsHandle at once; raises
    # RdkafkaError (invalid_arg) for a change the library refuses.
    def incremental_alter_configs(resources_with_configs)
      ensure_open(:incremental_alter_configs)
      parsed = resources_with_configs.map do |r|
        [r.fetch(:resource_type), r.fetch(:resource_name),
         r.fetch(:configs).map { |c| [c.fetch(:name), c.fetch(:op_type), c.fetch(:value)] }]
      end
      arr, natives = config_resources(parsed)
      begin
        parsed.each_with_index do |(_t, _n, configs), i|
          configs.each do |name, op, value|
            buf = Native.errbuf
            rc = Native.gregor_config_resource_add_incremental_config(natives[i], name.to_s, op,
                                                                      value&.to_s, buf, Native::ERRSTR_SIZE)
            Native.check!(rc, buf)
          end
        end
      rescue StandardError
        natives.each { |n| Native.gregor_config_resource_free(n) }
        raise
      end
      run_async(IncrementalAlterConfigsHandle.new, :incremental_alter_configs) do |handle|
        config_call(handle, IncrementalAlterConfigsReport, natives) do |native, out, buf|
          Native.gregor_admin_incremental_alter_configs(native, arr, natives.size, nil, out, buf, Native::ERRSTR_SIZE)
        end
      ensure
        natives.each { |n| Native.gregor_config_resource_free(n) }
      end
    end

    # Cluster metadata (all topics, or `topic_name`).
    def metadata(topic_name = nil, timeout_ms = Defaults::METADATA_TIMEOUT_MS)
      @native.use(:metadata) { |native| Metadata.new(:gregor_admin_metadata, native, topic_name, timeout_ms) }
    end

    # rdkafka-ruby starts its polling thread here (Config#admin(native_kafka_auto_start: false)
    # defers it); gregor's client runs from creation and serves callbacks in
    # the caller's calls, so there is nothing left to start. Raises
    # ClosedAdminError once closed.
    def start
      raise ClosedAdminError, :start if closed?

      nil
    end

    def closed?
      @native.closed?
    end

    # rdkafka-ruby's Admin.describe_errors (librdkafka's
    # rd_kafka_get_err_descs): every error code the library knows, as
    # {code => {code:, description:, name:}} with librdkafka's names and
    # texts, read from the library's descriptor table.
    def self.describe_errors
      Descriptors.errors.to_h do |code, _name, _desc|
        [code, { code: code, description: Gregor.rdkafka_error_text(code), name: Gregor.rdkafka_error_name(code) }]
      end
    end

    # rdkafka-ruby's: serves the admin client's queued events without
    # waiting, yielding each poll's count until none is left or the block
    # returns :stop. gregor's admin client queues no events (each request
    # completes its own handle on its own thread), so it never yields.
    def events_poll_nb_each
      ensure_open(:events_poll_nb_each)
      nil
    end

    # Frees the admin client. Requests in flight on their threads return
    # first (with an error); later calls raise ClosedAdminError.
    def close
      @native.close
      OAuthBearer.unregister(@oauth_id)
    end

    private

    def oauth_kind = :admin

    def ensure_open(method)
      raise ClosedAdminError, method if closed?
    end

    # Runs `yield handle` on a new thread; the handle is pending until then.
    def run_async(handle, _method)
      handle[:pending] = true
      AbstractHandle.register(handle)
      thread = Thread.new do
        yield handle
      rescue StandardError => e
        handle[:response] =
          case e
          when RdkafkaError then e.rdkafka_response
          when ClosedClientError then ERRORS.fetch(:_DESTROY)
          else ERRORS.fetch(:_FAIL)
          end
        handle.broker_message = e.message
        handle.result = nil
      ensure
        handle.unlock
      end
      thread.report_on_exception = false
      handle
    end

    # Fills `handle` with the call's outcome.
    # [array of gregor_config_resource pointers, the pointers]; raises
    # RdkafkaError (invalid_arg) for an unknown type (nothing left allocated).
    def config_resources(parsed)
      natives = []
      parsed.each do |type, name, *|
        # as librdkafka (rd_kafka_ConfigResource_get_single_broker_id): a
        # BROKER resource is named by its broker id, checked before sending
        if CONFIG_RESOURCE_TYPES[type] == CONFIG_RESOURCE_BROKER && !(name.to_s =~ /\A\d{1,10}\z/ && name.to_i < 2**31)
          natives.each { |x| Native.gregor_config_resource_free(x) }
          raise RdkafkaError.new(ERRORS.fetch(:_INVALID_ARG),
                                 broker_message: "Expected an int32 broker_id for ConfigResource(type=BROKER, name=#{name})")
        end
        n = CONFIG_RESOURCE_TYPES[type] && Native.gregor_config_resource_new(CONFIG_RESOURCE_TYPES[type], name.to_s)
        if n.nil? || n.null?
          natives.each { |x| Native.gregor_config_resource_free(x) }
          raise RdkafkaError.new(ERRORS.fetch(:_INVALID_ARG), "Invalid config resource #{type.inspect} #{name.inspect}")
        end
        natives << n
      end
      arr = FFI::MemoryPointer.new(:pointer, [natives.size, 1].max)
      arr.put_array_of_pointer(0, natives) unless natives.empty?
      [arr, natives]
    end

    # Runs `yield native, out, errbuf` (a config call) and fills `handle`
    # with a `report_class` of its resources (or the first resource error).
    def config_call(handle, report_class, _keep)
      out = FFI::MemoryPointer.new(:pointer)
      buf = Native.errbuf
      rc = @native.use(handle.operation_name) { |native| yield native, out, buf }
      unless rc.zero?
        handle[:response] = rc
        handle.broker_message = buf.read_string
        return
      end

      res = out.read_pointer
      begin
        types = CONFIG_RESOURCE_TYPES.invert
        resources = Array.new(Native.gregor_config_results_count(res)) do |i|
          err = Native.gregor_config_results_err(res, i)
          unless err.zero?
            text = Native.gregor_config_results_errstr(res, i)
            handle.result = RdkafkaError.new(err, text, broker_message: text)
            return
          end
          r = ConfigResourceBindingResult.new(Native.gregor_config_results_name(res, i),
                                              types.fetch(Native.gregor_config_results_type(res, i), nil))
          Native.gregor_config_results_entry_count(res, i).times do |j|
            synonyms = Array.new(Native.gregor_config_results_synonym_count(res, i, j)) do |k|
              ConfigBindingResult.new(name: Native.gregor_config_results_synonym_name(res, i, j, k),
                                      value: Native.gregor_config_results_synonym_value(res, i, j, k), synonym: 1)
            end
            r.configs << ConfigBindingResult.new(
              name: Native.gregor_config_results_entry_name(res, i, j),
              value: Native.gregor_config_results_entry_value(res, i, j),
              read_only: Native.gregor_config_results_entry_is_read_only(res, i, j),
              default: Native.gregor_config_results_entry_is_default(res, i, j),
              sensitive: Native.gregor_config_results_entry_is_sensitive(res, i, j),
              synonyms: synonyms
            )
          end
          r
        end
        handle.result = report_class.new(resources: resources)
      ensure
        Native.gregor_config_results_free(res)
      end
    end

    # Runs gregor_admin_list_offsets and fills `handle` with a
    # ListOffsetsReport (or the first partition's error).
    def partition_call(handle, method, tpl, read_committed)
      out = FFI::MemoryPointer.new(:pointer)
      buf = Native.errbuf
      rc = @native.use(method) do |native|
        Native.gregor_admin_list_offsets(native, tpl, read_committed, nil, out, buf, Native::ERRSTR_SIZE)
      end
      unless rc.zero?
        handle[:response] = rc
        handle.broker_message = buf.read_string
        return
      end

      res = out.read_pointer
      begin
        offsets = Array.new(Native.gregor_partition_results_count(res)) do |i|
          topic = Native.gregor_partition_results_topic(res, i)
          partition = Native.gregor_partition_results_partition(res, i)
          err = Native.gregor_partition_results_err(res, i)
          unless err.zero?
            handle.result = RdkafkaError.new(err, "Error querying offsets for partition #{partition} of '#{topic}'",
                                             broker_message: Native.gregor_partition_results_errstr(res, i))
            return
          end
          epoch = Native.gregor_partition_results_leader_epoch(res, i)
          { topic: topic, partition: partition, offset: Native.gregor_partition_results_offset(res, i),
            timestamp: Native.gregor_partition_results_timestamp(res, i), leader_epoch: epoch == -1 ? nil : epoch }
        end
        handle.result = ListOffsetsReport.new(offsets: offsets)
      ensure
        Native.gregor_partition_results_free(res)
      end
    end

    # `results`/`name`: the gregor_<results>_{err,errstr,<name>,free}
    # accessors of the call's result set.
    def topic_call(handle, fn, arr, report_class, topic_name, results: :topic_results, name: :name)
      out = FFI::MemoryPointer.new(:pointer)
      buf = Native.errbuf
      rc = @native.use(fn) { |native| Native.public_send(fn, native, arr, 1, nil, out, buf, Native::ERRSTR_SIZE) }
      unless rc.zero?
        handle[:response] = rc
        handle.broker_message = buf.read_string
        handle.result = report_class.new(handle.broker_message, topic_name.to_s)
        return
      end

      res = out.read_pointer
      begin
        err = Native.public_send(:"gregor_#{results}_err", res, 0)
        text = Native.public_send(:"gregor_#{results}_errstr", res, 0)
        handle[:response] = err
        handle.broker_message = err.zero? ? nil : text
        handle.result = report_class.new(err.zero? ? nil : text,
                                         Native.public_send(:"gregor_#{results}_#{name}", res, 0) || topic_name.to_s)
      ensure
        Native.public_send(:"gregor_#{results}_free", res)
      end
    end
  end
end
