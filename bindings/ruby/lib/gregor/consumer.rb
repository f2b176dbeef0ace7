# frozen_string_literal: true

module Gregor
  # A consumer (rdkafka-ruby's shape): `subscribe(*topics)` or `assign`,
  # then `poll(ms)` or `each { |message| }`, `commit`, `close`.
  class Consumer
    include Enumerable
    include OAuthBearer::Client
    # A message's headers (rdkafka-ruby's Consumer::Headers): a frozen Hash
    # of name => value (a String, or an Array of them for a repeated name;
    # nil for a null value).
    module Headers
      EMPTY = {}.freeze

      def self.from_native(native)
        n = Native.gregor_message_header_count(native)
        return EMPTY if n.zero?

        headers = {}
        n.times do |i|
          name = Native::Slice.new
          value = Native::Slice.new
          next unless Native.gregor_message_header(native, i, name, value).zero?

          key = name.to_s_or_nil.to_s.force_encoding(Encoding::UTF_8)
          v = value.to_s_or_nil
          headers[key] = headers.key?(key) ? Array(headers[key]) << v : v
        end
        headers.freeze
      end
    end

    # A consumed message.
    class Message
      attr_reader :topic, :partition, :offset, :key, :payload, :timestamp, :headers

      def initialize(native)
        @topic = Native.gregor_message_topic(native)
        @partition = Native.gregor_message_partition(native)
        @offset = Native.gregor_message_offset(native)
        @key = Native.gregor_message_key(native).to_s_or_nil
        @payload = Native.gregor_message_value(native).to_s_or_nil
        tstype = FFI::MemoryPointer.new(:int)
        ms = Native.gregor_message_timestamp(native, tstype)
        @timestamp = tstype.read_int.zero? || ms.negative? ? nil : Time.at(ms / 1000, (ms % 1000) * 1000)
        @headers = Headers.from_native(native)
      end

      def to_s
        "<Message in '#{topic}' with key '#{key}', payload '#{payload}', partition #{partition}, offset #{offset}>"
      end
    end

    # A partition with its offset (nil: none), error code (0: none) and
    # commit metadata, as rdkafka-ruby's Consumer::Partition.
    class Partition
      attr_reader :partition, :offset, :err, :metadata

      def initialize(partition, offset, err = 0, metadata = nil)
        @partition = partition
        @offset = offset
        @err = err || 0
        @metadata = metadata
      end

      def to_s
        s = "<Partition #{partition}"
        s += " offset=#{offset}" if offset
        s += " err=#{err}" unless err.zero?
        s += " metadata=#{metadata}" unless metadata.nil?
        "#{s}>"
      end

      alias inspect to_s

      def ==(other)
        self.class == other.class && partition == other.partition && offset == other.offset
      end
    end

    # Topics with partitions (and offsets), as rdkafka-ruby's TopicPartitionList.
    class TopicPartitionList
      def initialize(data = nil)
        @data = data || {}
      end

      # `partitions`: an Integer count, an Array of partition numbers, or nil
      # (all, for subscriptions).
      def add_topic(topic, partitions = nil)
        @data[topic.to_s] =
          case partitions
          when nil then nil
          when Integer then (0...partitions).map { |p| Partition.new(p, nil, nil) }
          else partitions.map { |p| Partition.new(p, nil, nil) }
          end
      end

      # `partitions_with_offsets`: {partition => offset}.
      def add_topic_and_partitions_with_offsets(topic, partitions_with_offsets)
        @data[topic.to_s] = partitions_with_offsets.map { |p, o| Partition.new(p, o, nil) }
      end

      def to_h
        @data
      end

      # Entries: each partition, and 1 for a topic without partitions.
      def count
        @data.values.sum { |ps| ps ? ps.size : 1 }
      end

      def to_s
        "<TopicPartitionList: #{to_h}>"
      end

      def empty?
        @data.empty?
      end

      def ==(other)
        other.to_h == to_h
      end

      # A gregor_tpl the caller frees.
      def to_native(default_offset = -1001)
        tpl = Native.gregor_tpl_new
        @data.each do |topic, parts|
          (parts || []).each do |p|
            Native.gregor_tpl_add(tpl, topic, p.partition, p.offset.nil? ? default_offset : p.offset)
            Native.gregor_tpl_set_metadata(tpl, Native.gregor_tpl_count(tpl) - 1, p.metadata) if p.metadata
          end
        end
        tpl
      end

      # rdkafka-ruby's to_native_tpl, over a gregor_tpl the caller frees
      # (gregor_tpl_free): a topic without partitions is one entry with
      # partition -1 (librdkafka's RD_KAFKA_PARTITION_UA), a nil offset is
      # -1001 (OFFSET_INVALID), a Time offset its ms since the epoch. Frees
      # the list if an entry cannot be added (TypeError for an offset that
      # is no Integer, Time or nil).
      def to_native_tpl
        tpl = Native.gregor_tpl_new
        begin
          @data.each do |topic, parts|
            next Native.gregor_tpl_add(tpl, topic.to_s, PARTITION_UA, OFFSET_INVALID) unless parts

            parts.each do |p|
              offset = p.offset.is_a?(Time) ? (p.offset.to_f * 1000).floor : p.offset
              raise TypeError, "offset has to be an Integer, a Time or nil: #{offset.inspect}" unless offset.nil? || offset.is_a?(Integer)

              Native.check!(Native.gregor_tpl_add(tpl, topic.to_s, p.partition, offset || OFFSET_INVALID))
              Native.gregor_tpl_set_metadata(tpl, Native.gregor_tpl_count(tpl) - 1, p.metadata) if p.metadata
            end
          end
        rescue Exception # rubocop:disable Lint/RescueException -- free, then re-raise whatever it was
          Native.gregor_tpl_free(tpl)
          raise
        end
        tpl
      end

      # rdkafka-ruby's from_native_tpl: the list a gregor_tpl holds (it is
      # not freed), read back as to_native_tpl wrote it.
      def self.from_native_tpl(tpl)
        data = {}
        Native.gregor_tpl_count(tpl).times do |i|
          topic = Native.gregor_tpl_topic(tpl, i)
          partition = Native.gregor_tpl_partition(tpl, i)
          if partition == PARTITION_UA
            data[topic] = nil
            next
          end
          offset = Native.gregor_tpl_offset(tpl, i)
          (data[topic] ||= []) << Partition.new(partition, offset == OFFSET_INVALID ? nil : offset,
                                                Native.gregor_tpl_err(tpl, i), Native.gregor_tpl_metadata(tpl, i))
        end
        new(data)
      end

      PARTITION_UA = -1
      OFFSET_INVALID = -1001

      def self.from_native(tpl)
        data = {}
        Native.gregor_tpl_count(tpl).times do |i|
          topic = Native.gregor_tpl_topic(tpl, i)
          err = Native.gregor_tpl_err(tpl, i)
          (data[topic] ||= []) << Partition.new(Native.gregor_tpl_partition(tpl, i), Native.gregor_tpl_offset(tpl, i),
                                                err, Native.gregor_tpl_metadata(tpl, i))
        end
        new(data)
      end
    end

    REBALANCE_ASSIGNED = 1
    REBALANCE_REVOKED = 2
    REBALANCE_LOST = 3

    # Leaves the group and wakes polls blocked in C, without freeing.
    CLOSE = ->(ptr) { Native.gregor_consumer_close(ptr) }
    # Frees (the C side drops the callbacks first).
    FREE = lambda do |ptr|
      Native.gregor_consumer_set_error_cb(ptr, nil, nil)
      Native.gregor_consumer_free(ptr)
    end

    # librdkafka's instance name shape, "<client.id>#consumer-<n>".
    attr_reader :name

    def initialize(native_config, rebalance_listener: nil, name: nil, read_committed: true, auto_offset_store: true,
                   oauth_id: nil)
      @oauth_id = oauth_id
      @name = name
      @auto_offset_store = auto_offset_store
      @read_committed = read_committed
      @assignment_lost = false
      buf = Native.errbuf
      native = Native.gregor_consumer_new(native_config, buf, Native::ERRSTR_SIZE)
      Native.gregor_config_free(native_config)
      raise Config::ClientCreationError.from_library(buf.read_string) if native.null?

      # both read Config's callbacks at each call (rdkafka-ruby installs them
      # on every client too)
      @stats_cb = Producer.stats_proc # kept referenced while the C side holds it
      Native.gregor_consumer_set_stats_cb(native, @stats_cb, nil)
      @error_cb = Events.install(:consumer, native, name) # kept referenced while the C side holds it
      @native = NativeHandle.new(self, native, closer: CLOSE, freer: FREE, error: ClosedConsumerError)

      @rebalance_listener = rebalance_listener
      @rebalance_cb = method(:on_rebalance).to_proc # kept referenced while the C side holds it
    end

    # Cluster metadata (all topics, or `topic_name`).
    def metadata(topic_name = nil, timeout_ms = Defaults::METADATA_TIMEOUT_MS)
      native_call(:metadata) { |native| Metadata.new(:gregor_consumer_metadata, native, topic_name, timeout_ms) }
    end

    # Joins the group for `topics`; partitions come with later polls.
    def subscribe(*topics)
      native_call(:subscribe) do |native|
        # only with a listener: a rebalance callback makes the assignment
        # wait for a poll (gregor applies it itself otherwise)
        Native.check!(Native.gregor_consumer_set_rebalance_cb(native, @rebalance_cb, nil)) if @rebalance_listener
        arr, _keep = Native.cstr_array(topics.flatten)
        buf = Native.errbuf
        Native.check!(Native.gregor_consumer_subscribe(native, arr, topics.flatten.size, buf, Native::ERRSTR_SIZE),
                      buf, "Error subscribing to '#{topics.join(', ')}'")
      end
    end

    def unsubscribe
      native_call(:unsubscribe) do |native|
        Native.check!(Native.gregor_consumer_unsubscribe(native))
      end
    end

    # The subscribed topics, as a TopicPartitionList of topics without
    # partitions (rdkafka-ruby's shape; empty when not subscribed).
    def subscription
      native_call(:subscription) do |native|
        out = FFI::MemoryPointer.new(:pointer)
        Native.check!(Native.gregor_consumer_subscription(native, out), nil, "Error getting subscription")
        tpl = out.read_pointer
        begin
          list = TopicPartitionList.new
          Native.gregor_tpl_count(tpl).times { |i| list.add_topic(Native.gregor_tpl_topic(tpl, i)) }
          list
        ensure
          Native.gregor_tpl_free(tpl)
        end
      end
    end

    # Replaces the assignment with `list` (a TopicPartitionList).
    def assign(list)
      native_call(:assign) do |native|
        with_tpl(list) do |tpl|
          buf = Native.errbuf
          Native.check!(Native.gregor_consumer_assign(native, tpl, buf, Native::ERRSTR_SIZE), buf)
        end
      end
    end

    def assignment
      native_call(:assignment) do |native|
        out = FFI::MemoryPointer.new(:pointer)
        Native.check!(Native.gregor_consumer_assignment(native, out))
        tpl = out.read_pointer
        begin
          TopicPartitionList.from_native(tpl)
        ensure
          Native.gregor_tpl_free(tpl)
        end
      end
    end

    # The next message, nil after `timeout_ms`; raises RdkafkaError for an
    # error event.
    def poll(timeout_ms)
      raise_listener_error
      msg = @native.use(:poll) do |native|
        done = ->(m) { !m.null? || closed? || @listener_error || take_yield }
        Sliced.call(Integer(timeout_ms), done) { |ms| Native.gregor_consumer_poll(native, ms) }
      end
      # a message that came with it is returned first; the next poll raises
      raise_listener_error if msg.null?
      return nil if msg.null?

      begin
        err = Native.gregor_message_err(msg)
        # a poll cut short by close (from another thread) ends like a
        # timeout, also when it caught an error the close itself caused (a
        # fetch's connection closed under it)
        return nil if closed? && !err.zero?
        raise RdkafkaError.new(err, broker_message: Native.gregor_message_errstr(msg)) unless err.zero?

        Message.new(msg)
      ensure
        Native.gregor_message_free(msg)
      end
    end

    # The next message if one is ready now (rdkafka-ruby's non-blocking poll).
    def poll_nb(timeout_ms = 0)
      raise ClosedConsumerError, :poll_nb if closed?

      poll(timeout_ms)
    end

    # Yields the messages ready now; stops when the block returns :stop.
    def poll_nb_each
      raise ClosedConsumerError, :poll_nb_each if closed?

      while (message = poll(0))
        break if yield(message) == :stop
      end
    end

    # Up to `max_items` messages: waits up to `timeout_ms` for the first,
    # then takes what is ready. Error events come back in the Array as
    # RdkafkaError objects (not raised), as rdkafka-ruby's poll_batch.
    def poll_batch(timeout_ms, max_items: 100)
      raise ClosedConsumerError, :poll_batch if closed?

      batch(timeout_ms, max_items)
    end

    # poll_batch for what is ready within `timeout_ms` (default 0: now).
    def poll_batch_nb(timeout_ms = 0, max_items: 100)
      raise ClosedConsumerError, :poll_batch_nb if closed?

      batch(timeout_ms, max_items)
    end

    # rdkafka-ruby's events_poll: serves librdkafka's main queue (statistics,
    # errors, logs) apart from the messages when `consumer_poll_set` is
    # false. gregor's consumer has one queue: its events are served by
    # #poll (and poll_nb, poll_batch, each) with the messages, whatever
    # consumer_poll_set says, so there is never a separate event to serve
    # here (as with librdkafka's default, consumer_poll_set true). Waits up
    # to `timeout_ms` (negative: until the consumer is closed), so a loop
    # around it does not spin; returns 0, the events served.
    def events_poll(timeout_ms = Defaults::CONSUMER_EVENTS_POLL_TIMEOUT_MS)
      raise ClosedConsumerError, :events_poll if closed?

      deadline = timeout_ms.negative? ? nil : Process.clock_gettime(Process::CLOCK_MONOTONIC) + timeout_ms / 1000.0
      loop do
        left = deadline ? deadline - Process.clock_gettime(Process::CLOCK_MONOTONIC) : 0.1
        break if left <= 0 || closed?

        sleep([left, 0.1].min)
      end
      0
    end

    # events_poll without waiting by default (rdkafka-ruby's non-blocking
    # variant).
    def events_poll_nb(timeout_ms = 0)
      events_poll(timeout_ms)
    end

    # Yields the count of each events_poll_nb(0) that served events, until
    # none is left or the block returns :stop (rdkafka-ruby's): never
    # yields, as events_poll serves none (see above).
    def events_poll_nb_each
      raise ClosedConsumerError, :events_poll_nb_each if closed?

      loop do
        count = events_poll_nb(0)
        break if count.zero?
        break if yield(count) == :stop
      end
    end

    INVALID_ARG = -186 # GREGOR_ERR__INVALID_ARG

    # Stores the offset after `message` (with commit `metadata`) for the
    # next commit; needs `enable.auto.offset.store` false (RdkafkaError
    # :invalid_arg otherwise, as librdkafka).
    def store_offset(message, metadata = nil)
      # librdkafka's rd_kafka_offsets_store refuses it while the consumer
      # stores offsets itself (enable.auto.offset.store, default true)
      if @auto_offset_store
        raise RdkafkaError.new(INVALID_ARG, broker_message: "store_offset needs enable.auto.offset.store=false")
      end

      list = TopicPartitionList.new
      list.add_topic_and_partitions_with_offsets(message.topic, [[message.partition, message.offset + 1]])
      native_call(:store_offset) do |native|
        with_tpl(list) do |tpl|
          Native.gregor_tpl_set_metadata(tpl, 0, metadata) if metadata
          Native.check!(Native.gregor_consumer_store_offsets(native, tpl))
        end
      end
      nil
    end

    # Yields messages until the consumer is closed.
    def each
      loop do
        break if closed?

        message = begin
          poll(Defaults::CONSUMER_POLL_TIMEOUT_MS)
        rescue ClosedConsumerError
          break
        end
        yield(message) if message
      end
    end

    # Commits `list` (offsets to consume next) or, with nil, the consumed
    # positions. Synchronous unless `async`.
    def commit(list = nil, async = false)
      native_call(:commit) do |native|
        buf = Native.errbuf
        if list
          with_tpl(list) do |tpl|
            Native.check!(Native.gregor_consumer_commit(native, tpl, async ? 1 : 0, buf, Native::ERRSTR_SIZE), buf)
          end
        else
          Native.check!(Native.gregor_consumer_commit(native, nil, async ? 1 : 0, buf, Native::ERRSTR_SIZE), buf)
        end
        nil
      end
    end

    # The group's committed offsets for `list` (default: the assignment).
    def committed(list = nil, timeout_ms = Defaults::CONSUMER_COMMITTED_TIMEOUT_MS)
      native_call(:committed) do |native|
        list ||= assignment
        with_tpl(list) do |tpl|
          buf = Native.errbuf
          Native.check!(Native.gregor_consumer_committed(native, tpl, timeout_ms, buf, Native::ERRSTR_SIZE), buf)
          TopicPartitionList.from_native(tpl)
        end
      end
    end

    # The next offsets to consume for `list` (default: the assignment).
    def position(list = nil)
      native_call(:position) do |native|
        list ||= assignment
        with_tpl(list) do |tpl|
          buf = Native.errbuf
          Native.gregor_consumer_position(native, tpl, buf, Native::ERRSTR_SIZE)
          TopicPartitionList.from_native(tpl)
        end
      end
    end

    def seek(message_or_topic, partition = nil, offset = nil)
      native_call(:seek) do |native|
        if message_or_topic.is_a?(Message)
          topic = message_or_topic.topic
          partition = message_or_topic.partition
          offset = message_or_topic.offset
        else
          topic = message_or_topic
        end
        buf = Native.errbuf
        Native.check!(Native.gregor_consumer_seek(native, topic.to_s, partition, offset, buf, Native::ERRSTR_SIZE), buf)
      end
    end

    # rdkafka-ruby's seek by topic, partition and offset.
    def seek_by(topic, partition, offset)
      raise ClosedConsumerError, :seek_by if closed?

      seek(topic, partition, offset)
    end

    # Stops fetching the partitions of `list` (a TopicPartitionList); raises
    # RdkafkaTopicPartitionListError (nothing paused) for one not assigned.
    def pause(list)
      native_call(:pause) do |native|
        with_tpl(list) do |tpl|
          buf = Native.errbuf
          rc = Native.gregor_consumer_pause(native, tpl, buf, Native::ERRSTR_SIZE)
          unless rc.zero?
            raise RdkafkaTopicPartitionListError.new(rc, TopicPartitionList.from_native(tpl),
                                                     "Error pausing '#{list.to_h}'")
          end
        end
      end
      nil
    end

    # Resumes the paused partitions of `list`.
    def resume(list)
      native_call(:resume) do |native|
        with_tpl(list) do |tpl|
          buf = Native.errbuf
          Native.check!(Native.gregor_consumer_resume(native, tpl, buf, Native::ERRSTR_SIZE), buf,
                        "Error resume '#{list.to_h}'")
        end
      end
      nil
    end

    # The member id the group coordinator gave this consumer (nil before
    # joining).
    def member_id
      native_call(:member_id) do |native|
        buf = FFI::MemoryPointer.new(:char, 1024)
        Native.check!(Native.gregor_consumer_member_id(native, buf, 1024))
        id = buf.read_string
        id.empty? ? nil : id
      end
    end

    # For each entry of `list` whose offset is a timestamp (ms, or a Time),
    # the first offset at or after it (-1: none).
    def offsets_for_times(list, timeout_ms = Defaults::CONSUMER_OFFSETS_FOR_TIMES_TIMEOUT_MS)
      raise TypeError, "list has to be a TopicPartitionList" unless list.is_a?(TopicPartitionList)

      native_call(:offsets_for_times) do |native|
        tpl = Native.gregor_tpl_new
        begin
          list.to_h.each do |topic, parts|
            (parts || []).each do |p|
              ts = p.offset.is_a?(Time) ? (p.offset.to_r * 1000).to_i : p.offset # exact ms
              Native.gregor_tpl_add(tpl, topic, p.partition, ts.nil? ? -1 : ts)
            end
          end
          buf = Native.errbuf
          Native.check!(Native.gregor_consumer_offsets_for_times(native, tpl, timeout_ms, buf, Native::ERRSTR_SIZE), buf)
          TopicPartitionList.from_native(tpl)
        ensure
          Native.gregor_tpl_free(tpl)
        end
      end
    end

    # {topic => {partition => lag}}: each partition's high watermark minus
    # its offset in `topic_partition_list` (usually `committed`); partitions
    # without an offset (nil or invalid) are left out.
    # One batched query (#list_offsets, :latest, at the consumer's
    # isolation level) for every partition with an offset.
    def lag(topic_partition_list, watermark_timeout_ms = Defaults::CONSUMER_LAG_TIMEOUT_MS)
      raise ClosedConsumerError, :lag if closed?

      by_topic = topic_partition_list.to_h
      with_offset = ->(p) { !(p.offset.nil? || p.offset == -1001) } # none committed (GREGOR_OFFSET_INVALID)
      request = {}
      by_topic.each do |topic, partitions|
        (partitions || []).select(&with_offset).each do |p|
          (request[topic] ||= []) << { partition: p.partition, offset: :latest }
        end
      end
      ends = {}
      unless request.empty?
        begin
          report = list_offsets(request, isolation_level: @read_committed ? 1 : 0,
                                         timeout_ms: watermark_timeout_ms).wait(max_wait_timeout_ms: watermark_timeout_ms)
        rescue AbstractHandle::WaitTimeoutError
          raise RdkafkaError.new(ERRORS.fetch(:_TIMED_OUT), "Error querying watermark offsets of '#{request.keys.join(', ')}'")
        end
        report.offsets.each { |r| (ends[r[:topic]] ||= {})[r[:partition]] = r[:offset] }
      end
      by_topic.to_h do |topic, partitions|
        [topic, (partitions || []).select(&with_offset).to_h { |p| [p.partition, ends.fetch(topic).fetch(p.partition) - p.offset] }]
      end
    end

    # rdkafka-ruby's Consumer#list_offsets: `{topic => [{partition:, offset:}]}`
    # with offset :earliest, :latest, :max_timestamp or a timestamp (ms).
    # Asked through this consumer's connections at its own isolation.level
    # (`isolation_level:` may name it; another level raises ArgumentError:
    # use Admin#list_offsets), on the calling thread: the
    # Admin::ListOffsetsHandle it returns is complete, its report in
    # Admin::ListOffsetsReport's shape (timestamp -1: not asked for).
    def list_offsets(topic_partition_offsets, isolation_level: nil, timeout_ms: Defaults::HANDLE_WAIT_TIMEOUT_MS)
      raise ClosedConsumerError, :list_offsets if closed?

      own = @read_committed ? 1 : 0
      if isolation_level && isolation_level != own
        raise ArgumentError, "this consumer reads #{@read_committed ? 'committed' : 'uncommitted'} offsets " \
                             "(isolation.level); use Admin#list_offsets for isolation_level #{isolation_level}"
      end
      specs = topic_partition_offsets.flat_map do |topic, partitions|
        partitions.map do |spec|
          offset = spec.fetch(:offset)
          native = offset.is_a?(Integer) ? offset : Admin::OFFSET_SPECS[offset]
          raise ArgumentError, "Unknown offset specification: #{offset.inspect}" unless native

          [topic.to_s, spec.fetch(:partition), native]
        end
      end
      handle = Admin::ListOffsetsHandle.new
      native_call(:list_offsets) do |native|
        tpl = Native.gregor_tpl_new
        begin
          specs.each { |t, p, o| Native.gregor_tpl_add(tpl, t, p, o) }
          buf = Native.errbuf
          rc = specs.empty? ? 0 : Native.gregor_consumer_offsets_for_times(native, tpl, timeout_ms, buf, Native::ERRSTR_SIZE)
          if rc.zero?
            offsets = Array.new(Native.gregor_tpl_count(tpl)) do |i|
              epoch = Native.gregor_tpl_leader_epoch(tpl, i)
              { topic: Native.gregor_tpl_topic(tpl, i), partition: Native.gregor_tpl_partition(tpl, i),
                offset: Native.gregor_tpl_offset(tpl, i), timestamp: -1, leader_epoch: epoch == -1 ? nil : epoch }
            end
            handle.result = Admin::ListOffsetsReport.new(offsets: offsets)
          else
            handle[:response] = rc
            handle.broker_message = buf.read_string
          end
        ensure
          Native.gregor_tpl_free(tpl)
        end
      end
      handle
    end

    # [low, high] watermarks of a partition, asked of its leader.
    def query_watermark_offsets(topic, partition, timeout_ms = Defaults::CONSUMER_QUERY_WATERMARK_TIMEOUT_MS)
      native_call(:query_watermark_offsets) do |native|
        low = FFI::MemoryPointer.new(:int64)
        high = FFI::MemoryPointer.new(:int64)
        buf = Native.errbuf
        Native.check!(Native.gregor_consumer_watermarks(native, topic.to_s, partition, low, high, timeout_ms, buf,
                                                        Native::ERRSTR_SIZE), buf)
        [low.read_int64, high.read_int64]
      end
    end

    # True when the group took this consumer's partitions away without a
    # rebalance (session expired, fenced, max.poll.interval.ms exceeded:
    # GREGOR_REBALANCE_LOST) and none were assigned since, as librdkafka's
    # rd_kafka_assignment_lost. Read from the rebalance events, which
    # gregor hands to a consumer with a rebalance listener
    # (Config#consumer_rebalance_listener=) only: without one it stays false.
    def assignment_lost?
      raise ClosedConsumerError, :assignment_lost? if closed?

      @assignment_lost
    end

    # The cluster id the brokers report (Metadata v2+), nil if none.
    def cluster_id(timeout_ms = Defaults::CONSUMER_CLUSTER_ID_TIMEOUT_MS)
      native_call(:cluster_id) do |native|
        Metadata.new(:gregor_consumer_metadata, native, nil, timeout_ms, topics: false).cluster_id
      end
    end

    # rdkafka-ruby raises NotImplementedError too (use #poll_batch).
    def each_batch(*_args)
      raise NotImplementedError, "each_batch was removed; use #poll_batch"
    end

    # rdkafka-ruby starts its polling thread here (Config#consumer(native_kafka_auto_start: false)
    # defers it); gregor's client runs from creation and serves callbacks in
    # the caller's calls, so there is nothing left to start. Raises
    # ClosedConsumerError once closed.
    def start
      raise ClosedConsumerError, :start if closed?

      nil
    end

    def closed?
      @native.closed?
    end

    # Leaves the group, stops fetching and frees the consumer. Polls in
    # flight on other threads return nil first; later calls raise
    # ClosedConsumerError.
    def close
      @native.close
      OAuthBearer.unregister(@oauth_id)
    end

    private

    def oauth_kind = :consumer

    # Runs `yield native` counted in flight (ClosedConsumerError once closed).
    def native_call(method, &blk)
      @native.use(method, &blk)
    end

    # Runs inside poll/close; the library applies the change after it returns.
    def on_rebalance(_c, event, tpl, _opaque)
      @assignment_lost = event == REBALANCE_LOST if [REBALANCE_ASSIGNED, REBALANCE_LOST].include?(event)
      return unless @rebalance_listener

      list = tpl.null? ? TopicPartitionList.new : TopicPartitionList.from_native(tpl)
      if event == REBALANCE_ASSIGNED
        @rebalance_listener.on_partitions_assigned(list) if @rebalance_listener.respond_to?(:on_partitions_assigned)
      elsif @rebalance_listener.respond_to?(:on_partitions_revoked)
        @rebalance_listener.on_partitions_revoked(list)
      end
    rescue Exception => e # rubocop:disable Lint/RescueException -- never into C: raised from poll instead
      # The change is applied all the same (the library does it when this
      # returns); the exception reaches the application from the poll that
      # served the rebalance, as the Java client's poll throws a listener's
      # exception, and goes to the logger as rdkafka-ruby logs it.
      Config.logger.error("gregor: rebalance listener raised #{e.class}: #{e.message}")
      @listener_error ||= e
    end

    # Raises (once) what the rebalance listener raised during a poll.
    def raise_listener_error
      e = @listener_error
      return unless e

      @listener_error = nil
      raise e
    end

    # Up to `max_items` polls: the first waits up to `timeout_ms`, the rest
    # take what is ready; error events are kept in the Array.
    def batch(timeout_ms, max_items)
      results = []
      wait = timeout_ms
      while results.size < max_items
        item = begin
          poll(wait)
        rescue RdkafkaError => e
          e
        end
        break if item.nil?

        results << item
        wait = 0
      end
      results
    end

    def with_tpl(list)
      raise TypeError, "list has to be a TopicPartitionList" unless list.is_a?(TopicPartitionList)

      tpl = list.to_native
      begin
        yield tpl
      ensure
        Native.gregor_tpl_free(tpl)
      end
    end
  end
end
