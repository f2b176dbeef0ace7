# frozen_string_literal: true

module Gregor
  # A producer (rdkafka-ruby's shape): `produce` queues a message and returns
  # a DeliveryHandle; `handle.wait` serves delivery reports (gregor_producer_poll,
  # which releases the VM lock) until this one has come.
  class Producer
    include OAuthBearer::Client
    # What a delivered (or failed) message got.
    DeliveryReport = Struct.new(:partition, :offset, :topic_name, :error, :label) do
      alias_method :topic, :topic_name
    end

    # The outcome of one produce (rdkafka-ruby's DeliveryHandle): fields
    # :pending, :response, :partition, :offset; `wait` serves delivery
    # reports (gregor_producer_poll on the waiting thread) until this one
    # has come, and returns its DeliveryReport.
    class DeliveryHandle < AbstractHandle
      attr_accessor :label, :topic

      def initialize(producer = nil, label = nil)
        super()
        @producer = producer
        @label = label
      end

      def operation_name
        "delivery"
      end

      def create_result
        DeliveryReport.new(self[:partition], self[:offset], @topic, error, @label)
      end

      def raise_error
        raise error
      end

      def error
        return nil if self[:response].zero?

        RdkafkaError.new(self[:response], broker_message: broker_message)
      end

      # The report, once come (gregor's older name for the wait's value).
      def _complete(report)
        self[:partition] = report.partition
        self[:offset] = report.offset
        self[:response] = report.error ? report.error.rdkafka_response : 0
        self.broker_message = report.error&.broker_message
        @topic = report.topic_name
        unlock
      end

      private

      # Serves reports instead of sleeping (gregor has no background thread).
      def wait_step(left)
        return super unless @producer && !@producer.polling_thread?

        ms = left ? [[(left * 1000).ceil, 100].min, 1].max : 100
        begin
          @producer.poll(ms)
        rescue ClosedProducerError
          super # closed meanwhile: its reports are served by close
        end
      end
    end

    # Raised by DeliveryHandle#wait when the report did not come in time.
    WaitTimeoutError = AbstractHandle::WaitTimeoutError

    # The messages in flight and the callbacks the C side calls, apart from
    # the Producer so the polling thread can keep them alive without keeping
    # the Producer (which its finalizer then frees).
    class Deliveries
      attr_reader :delivery_callback, :delivery_callback_arity, :dr_cb, :stats_cb
      # the error callback the C side holds (kept alive with the other callbacks)
      attr_accessor :error_cb

      def initialize
        @pending = {}
        @next_id = 1
        @lock = Mutex.new
        @dr_cb = method(:on_delivery).to_proc # kept referenced while the C side holds it
        # reads Config.statistics_callback at each call (rdkafka-ruby installs
        # its callback on every client too)
        @stats_cb = Producer.stats_proc
      end

      def delivery_callback=(callback)
        raise TypeError, "Callback has to be callable" unless callback.respond_to?(:call)

        @delivery_callback = callback
        @delivery_callback_arity = callback.respond_to?(:arity) ? callback.arity : callback.method(:call).arity
      end

      # Registers `handle`; returns the id the C side passes back.
      def add(handle)
        @lock.synchronize do
          i = @next_id
          @next_id += 1
          @pending[i] = handle
          i
        end
      end

      def remove(id)
        @lock.synchronize { @pending.delete(id) }
      end

      private

      def call_delivery_callback(report, handle)
        return unless @delivery_callback

        case @delivery_callback_arity
        when 0 then @delivery_callback.call
        when 1 then @delivery_callback.call(report)
        else @delivery_callback.call(report, handle)
        end
      end

      def on_delivery(dr, _opaque)
        handle = remove(dr[:msg_opaque].address)
        return unless handle

        error = dr[:err].zero? ? nil : RdkafkaError.new(dr[:err], broker_message: dr[:errstr])
        report = DeliveryReport.new(dr[:partition], dr[:offset], dr[:topic], error, handle.label)
        handle._complete(report)
        # As rdkafka-ruby's DeliveryCallback: the report the callback gets
        # carries the error as its Integer code (0: delivered; -152:
        # :purge_queue, ...), the one DeliveryHandle#wait returns an
        # RdkafkaError or nil.
        call_delivery_callback(DeliveryReport.new(dr[:partition], dr[:offset], dr[:topic], dr[:err], handle.label),
                               handle)
      rescue StandardError => e
        warn "gregor: delivery callback raised #{e.class}: #{e.message}"
      end
    end

    # Called with each DeliveryReport on the thread serving reports (the
    # polling thread, or inside poll/flush/DeliveryHandle#wait); a callable
    # taking two arguments also gets the DeliveryHandle (rdkafka-ruby's shape).
    # As in rdkafka-ruby, this report's `error` is the Integer code (0 when
    # delivered); DeliveryHandle#wait's report has an RdkafkaError or nil.
    def delivery_callback=(callback)
      @deliveries.delivery_callback = callback
    end

    def delivery_callback
      @deliveries.delivery_callback
    end

    def delivery_callback_arity
      @deliveries.delivery_callback_arity
    end

    # librdkafka's instance name shape: "<client.id>#producer-<n>", n
    # counting the clients made in this process (client.id's default is
    # gregor's, "gregor").
    attr_reader :name

    # What the polling thread runs (made here, where it holds no Producer).
    POLL = ->(ptr, ms) { Native.gregor_producer_poll(ptr, ms) }

    # Wakes calls blocked in C (poll, flush) without freeing.
    CLOSE = ->(ptr) { Native.gregor_producer_close(ptr, 0) }
    # Frees; the callback goes first (nothing may call into Ruby from a free
    # run by the garbage collector).
    FREE = lambda do |ptr|
      Native.gregor_producer_set_dr_cb(ptr, nil, nil)
      Native.gregor_producer_set_stats_cb(ptr, nil, nil)
      Native.gregor_producer_set_error_cb(ptr, nil, nil)
      Native.gregor_producer_free(ptr)
    end

    @partitions_count_cache = nil
    class << self
      # The process-wide partition count cache (rdkafka-ruby's).
      def partitions_count_cache
        @partitions_count_cache ||= PartitionsCountCache.new
      end

      attr_writer :partitions_count_cache
    end

    # A statistics callback (Config.statistics_callback) for the C side:
    # parses the JSON and hands the Hash over, on the polling thread.
    def self.stats_proc
      lambda do |_handle, json, len, _opaque|
        cb = Config.statistics_callback
        next unless cb

        # the JSON is NUL-terminated (gregor.h), read up to it as rdkafka-ruby
        # reads librdkafka's; `len` is its length
        _ = len
        stats = JSON.parse(json.is_a?(String) ? json : json.read_string)
        # As rdkafka-ruby: each snapshot's topics refresh the process-wide
        # partition count cache (partitions but the UA one, "-1").
        (stats["topics"] || {}).each do |topic, details|
          count = (details["partitions"] || {}).keys.count { |k| k != "-1" }
          Producer.partitions_count_cache.set(topic, count) if count.positive?
        end
        cb.call(stats)
      rescue StandardError => e
        warn "gregor: statistics callback raised #{e.class}: #{e.message}"
      end
    end

    # `run_polling_thread` (rdkafka-ruby's, default true): a thread serves
    # delivery reports and statistics every `poll_timeout_ms`, so callbacks
    # come without the application polling; false leaves that to
    # poll/flush/DeliveryHandle#wait.
    def initialize(native_config, partitioner: "consistent_random", name: nil, run_polling_thread: true,
                   poll_timeout_ms: Defaults::NATIVE_KAFKA_POLL_TIMEOUT_MS, oauth_id: nil)
      @oauth_id = oauth_id
      @partitioner = partitioner.to_s
      @name = name
      buf = Native.errbuf
      native = Native.gregor_producer_new(native_config, buf, Native::ERRSTR_SIZE)
      Native.gregor_config_free(native_config)
      raise Config::ClientCreationError.from_library(buf.read_string) if native.null?

      @deliveries = Deliveries.new
      Native.gregor_producer_set_dr_cb(native, @deliveries.dr_cb, nil)
      Native.gregor_producer_set_stats_cb(native, @deliveries.stats_cb, nil)
      @deliveries.error_cb = Events.install(:producer, native, name)
      @native = NativeHandle.new(self, native, closer: CLOSE, freer: FREE, error: ClosedProducerError)
      @native.start_polling(POLL, poll_timeout_ms, @deliveries) if run_polling_thread
    end

    # The error that stopped the idempotent/transactional producer for good
    # (librdkafka's rd_kafka_fatal_error), as an RdkafkaError, or nil.
    def fatal_error
      @native.use(:fatal_error) { |native| Events.fatal_error(:producer, native) }
    end

    # Queues a message. `payload`/`key` nil mean null; `partition` nil lets
    # the partitioner choose; `timestamp` is a Time or ms since the epoch;
    # `headers` a Hash. Returns a DeliveryHandle.
    # `partition_key` (rdkafka-ruby's): the partition is the one
    # `partitioner` (default: the producer's `partitioner` property) gives
    # it among the topic's partitions (Producer#partition_count, cached).
    def produce(topic:, payload: nil, key: nil, partition: nil, partition_key: nil, timestamp: nil, headers: nil,
                label: nil, topic_config: nil, partitioner: nil)
      check_topic_config(topic_config) if topic_config && !topic_config.empty?
      if partition.nil? && partition_key
        count = partition_count(topic.to_s)
        if count.positive?
          kp, kn = Native.bytes(partition_key)
          p = Native.gregor_partitioner(partitioner || @partitioner, kp, kn, count)
          partition = p if p >= 0
        end
      end
      @native.use(:produce) do |native|
        produce_on(native, topic, payload, key, partition, timestamp, headers, label)
      end
    end

    private def produce_on(native, topic, payload, key, partition, timestamp, headers, label)
      handle = DeliveryHandle.new(self, label)
      handle[:pending] = true
      handle.topic = topic.to_s
      AbstractHandle.register(handle)
      id = @deliveries.add(handle)
      queued = false
      ts = case timestamp
           when nil then 0
           when Time then (timestamp.to_r * 1000).to_i
           when Integer then timestamp
           else raise TypeError, "Timestamp has to be nil, an Integer or a Time"
           end
      hdrs = nil
      keep = []
      if headers && !headers.empty?
        hdrs = Native.gregor_headers_new
        headers.each do |name, value|
          # an Array value: the header repeated, once per element, in order
          (value.is_a?(Array) ? value : [value]).each do |v|
            p, n = Native.bytes(v)
            keep << p
            Native.gregor_headers_add(hdrs, name.to_s, p, n)
          end
        end
      end
      kp, kn = Native.bytes(key)
      vp, vn = Native.bytes(payload)
      buf = Native.errbuf
      rc = Native.gregor_producer_send(native, topic.to_s, partition || -1, kp, kn, vp, vn, hdrs, ts,
                                       FFI::Pointer.new(id), 0, buf, Native::ERRSTR_SIZE)
      if rc == QUEUE_FULL
        # delivery reports not served yet count against the queue (as in
        # librdkafka); serve what is ready and try once more
        Native.gregor_producer_poll(native, 0)
        rc = Native.gregor_producer_send(native, topic.to_s, partition || -1, kp, kn, vp, vn, hdrs, ts,
                                         FFI::Pointer.new(id), 0, buf, Native::ERRSTR_SIZE)
      end
      Native.check!(rc, buf)
      queued = true
      handle
    ensure
      Native.gregor_headers_free(hdrs) if hdrs
      # not queued (refused, or a bad argument raised): no report will come
      unless queued
        @deliveries.remove(id)
        AbstractHandle.remove(handle)
      end
    end

    # Cluster metadata (all topics, or `topic_name`).
    def metadata(topic_name = nil, timeout_ms = Defaults::METADATA_TIMEOUT_MS)
      @native.use(:metadata) { |native| Metadata.new(:gregor_producer_metadata, native, topic_name, timeout_ms) }
    end

    # The topic's partition count (cached process-wide for 30 s; -1 if the
    # topic does not exist).
    def partition_count(topic)
      raise ClosedProducerError, :partition_count if closed?

      self.class.partitions_count_cache.get(topic) do
        metadata(topic).topics.first&.fetch(:partition_count) || -1
      rescue RdkafkaError => e
        raise unless e.code == :unknown_topic_or_part

        -1
      end
    end

    # Serves delivery reports for up to `timeout_ms`; returns how many.
    def poll(timeout_ms = 0)
      @native.use(:poll) do |native|
        Sliced.call(Integer(timeout_ms), ->(served) { served != 0 || closed? || take_yield }) { |ms| Native.gregor_producer_poll(native, ms) }
      end
    end

    # Serves what is ready (delivery reports, statistics) without waiting,
    # yielding each poll's count, until none is left or the block returns
    # :stop (rdkafka-ruby's events_poll_nb_each).
    def events_poll_nb_each
      raise ClosedProducerError, :events_poll_nb_each if closed?

      loop do
        count = poll(0)
        break if count.zero?
        break if yield(count) == :stop
      end
    end

    # Waits up to `timeout_ms` until every message has its report. Returns
    # true if none is left outstanding, false when the time ran out
    # (:timed_out); another error raises RdkafkaError (rdkafka-ruby's rule).
    def flush(timeout_ms = Defaults::PRODUCER_FLUSH_TIMEOUT_MS)
      code = @native.use(:flush) do |native|
        Sliced.call(Integer(timeout_ms), ->(c) { c != TIMED_OUT || closed? || take_yield }) { |ms| Native.gregor_producer_flush(native, ms) }
      end
      return true if code.zero?
      return false if code == TIMED_OUT

      raise RdkafkaError.new(code)
    end

    TIMED_OUT = ERRORS.fetch(:_TIMED_OUT)

    QUEUE_FULL = ERRORS.fetch(:_QUEUE_FULL)

    # gregor_producer_purge's flags (librdkafka's RD_KAFKA_PURGE_F_*).
    PURGE_F_QUEUE = 0x1
    PURGE_F_INFLIGHT = 0x2

    # Purges the queued and in-flight messages (rdkafka-ruby's `purge`,
    # librdkafka's rd_kafka_purge): their delivery handles complete with
    # :purge_queue / :purge_inflight errors, served here by flushing until
    # nothing is left. For a fast shutdown, or to drop a backlog after an
    # outage. Returns true.
    def purge
      raise ClosedProducerError, :purge if closed?

      @native.use(:purge) do |native|
        Native.check!(Native.gregor_producer_purge(native, PURGE_F_QUEUE | PURGE_F_INFLIGHT))
      end
      sleep(Defaults::PRODUCER_PURGE_SLEEP_INTERVAL_MS / 1000.0) until flush(Defaults::PRODUCER_PURGE_FLUSH_TIMEOUT_MS)
      true
    end

    # Messages not yet reported.
    def queue_size
      @native.use(:queue_size) { |native| Native.gregor_producer_len(native) }
    end

    alias queue_length queue_size

    # rdkafka-ruby starts its polling thread here (Config#producer(native_kafka_auto_start: false)
    # defers it); gregor's client runs from creation and serves callbacks in
    # the caller's calls, so there is nothing left to start. Raises
    # ClosedProducerError once closed.
    def start
      raise ClosedProducerError, :start if closed?

      nil
    end

    def closed?
      @native.closed?
    end

    # Whether a polling thread serves this producer's reports.
    def polling_thread?
      @native.polling?
    end

    # Flushes for up to `timeout_ms`, then frees the producer. Threads in
    # calls on it (a DeliveryHandle#wait, a flush) return first; later
    # calls raise ClosedProducerError.
    def close(timeout_ms = Defaults::PRODUCER_FLUSH_TIMEOUT_MS)
      @native.close(->(native) { Native.gregor_producer_close(native, timeout_ms) })
      @native.join_poller
      OAuthBearer.unregister(@oauth_id)
    end

    private def oauth_kind = :producer

    private

    # rdkafka-ruby's per-message topic settings (librdkafka topic handles
    # with their own acks, compression, message.timeout.ms): gregor has one
    # set of settings per producer. A property gregor does not know is the
    # ConfigError rdkafka-ruby raises; a known one raises ConfigError too,
    # rather than being dropped without a word.
    def check_topic_config(topic_config)
      conf = Native.gregor_config_new
      begin
        topic_config.each do |k, v|
          buf = Native.errbuf
          value = v == true ? "true" : v == false ? "false" : v.to_s
          rc = Native.gregor_config_set(conf, k.to_s, value, buf, Native::ERRSTR_SIZE)
          raise Config::ConfigError, buf.read_string unless rc.zero?
        end
      ensure
        Native.gregor_config_free(conf)
      end
      raise Config::ConfigError, "topic_config (#{topic_config.keys.join(', ')}): gregor has no per-topic " \
                                 "producer settings; set them on the producer's Config"
    end
  end

  # rdkafka-ruby's names for the C callbacks every client gets (its
  # Bindings::ErrorCallback and StatsCallback, same arguments: client,
  # code and reason / JSON and length, opaque); each client installs its
  # own copy, which also names the client in the error's instance_name.
  module Bindings
    ErrorCallback = FFI::Function.new(:void, %i[pointer int string pointer], Events.error_proc)
    StatsCallback = FFI::Function.new(:void, %i[pointer pointer size_t pointer], Producer.stats_proc)
  end
end
