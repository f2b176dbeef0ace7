# frozen_string_literal: true

module Gregor
  # Configuration with librdkafka's property names, shaped like
  # rdkafka-ruby's: `Gregor::Config.new("bootstrap.servers" => "…").producer`.
  class Config
    # Raised for an unknown property or a bad value.
    class ConfigError < RuntimeError; end

    # Raised when the library refuses to make a client from a configuration
    # whose properties were each accepted (rd_kafka_new's failure in
    # rdkafka-ruby): a file that cannot be read, a missing
    # bootstrap.servers, settings that contradict each other. A ConfigError
    # too, so code rescuing either keeps working.
    class ClientCreationError < ConfigError
      # librdkafka's text for a file property that cannot be loaded
      # ("ssl.ca.location failed: ..."), from gregor's
      # ('configuration property "ssl.ca.location": ...').
      def self.from_library(text)
        m = /\Aconfiguration property "(ssl\.[a-z.]+\.location|ssl\.[a-z.]*pem)": (.*)\z/m.match(text)
        new(m ? "#{m[1]} failed: #{m[2]}" : text)
      end
    end

    # Raised when setting a nil logger.
    class NoLoggerError < RuntimeError; end

    @logger = Logger.new($stdout)

    # An object with on_partitions_assigned(list) / on_partitions_revoked(list)
    # (TopicPartitionLists), called inside poll/close when the group's
    # assignment changes (rdkafka-ruby's consumer_rebalance_listener).
    attr_accessor :consumer_rebalance_listener

    # rdkafka-ruby's switch for librdkafka's rd_kafka_poll_set_consumer
    # (default true). Accepted and kept; gregor has one queue per consumer,
    # served by Consumer#poll either way.
    attr_accessor :consumer_poll_set

    @instances = 0
    @instances_lock = Mutex.new

    # librdkafka's instance name: "<client.id>#<type>-<n>", n counting the
    # clients this process made (client.id defaults to gregor's "gregor").
    def self.instance_name(client_id, type)
      n = @instances_lock.synchronize { @instances += 1 }
      "#{client_id || 'gregor'}##{type}-#{n}"
    end

    def initialize(config_hash = {})
      @consumer_poll_set = true
      @config_hash = {}
      config_hash.each { |k, v| self[k] = v }
    end

    def []=(key, value)
      @config_hash[key.to_s] = value
    end

    def [](key)
      @config_hash[key.to_s]
    end

    class << self
      # The process-wide logger (rdkafka-ruby's Config.logger): every
      # client's log lines (`log_level`, `debug`) go to it as
      # "gregor: [thrd:…]: message", with syslog levels mapped to Logger
      # severities as rdkafka-ruby maps them. The clients queue their lines
      # (`log.queue`) and hand them over inside poll/flush/close on the
      # calling thread; they are pushed to `log_queue` and a background
      # thread writes them, as rdkafka-ruby does.
      attr_reader :logger

      def logger=(logger)
        raise NoLoggerError if logger.nil?

        @logger = logger
      end

      # The queue between the clients and the log thread.
      def log_queue
        @log_queue ||= Queue.new
      end

      # Starts the thread that writes `log_queue` to the logger (again after a fork).
      def ensure_log_thread
        return if @log_thread && @log_thread.alive? && @log_pid == Process.pid

        @log_mutex ||= Mutex.new
        @log_mutex.synchronize do
          return if @log_thread && @log_thread.alive? && @log_pid == Process.pid

          @log_queue = Queue.new if @log_pid && @log_pid != Process.pid
          @log_pid = Process.pid
          @log_thread = Thread.new do
            loop do
              severity, msg = log_queue.pop
              @logger.add(severity) { msg }
            end
          end
        end
      end

      # The C log callback shared by every client (kept referenced here).
      def log_callback
        @log_callback ||= FFI::Function.new(:void, [:pointer, :int, :string, :string, :string]) do |_opaque, level, _fac, _name, line|
          severity = case level
                     when 0, 1, 2 then Logger::FATAL
                     when 3 then Logger::ERROR
                     when 4 then Logger::WARN
                     when 5, 6 then Logger::INFO
                     when 7 then Logger::DEBUG
                     else Logger::UNKNOWN
                     end
          ensure_log_thread
          log_queue << [severity, "gregor: #{line}"]
        end
      end

      # Process-wide callbacks, as rdkafka-ruby's: `statistics_callback`
      # gets each statistics snapshot (a Hash parsed from the JSON) of
      # every client made afterwards, served inside its poll calls;
      # `error_callback` gets an RdkafkaError for each client-level error
      # (:transport, :ssl, :authentication, :all_brokers_down, :fatal, …) of
      # every producer and consumer made afterwards, also inside its poll
      # calls (see gregor/events.rb); `oauthbearer_token_refresh_callback`
      # gets (sasl.oauthbearer.config, client name) when an OAUTHBEARER
      # token is needed, and answers with the client's
      # oauthbearer_set_token (see gregor/oauthbearer.rb).
      attr_reader :statistics_callback, :error_callback, :oauthbearer_token_refresh_callback

      def statistics_callback=(callback)
        raise TypeError, "Callback has to be callable" unless callback.respond_to?(:call) || callback.nil?

        @statistics_callback = callback
      end

      def error_callback=(callback)
        raise TypeError, "Callback has to be callable" unless callback.respond_to?(:call) || callback.nil?

        @error_callback = callback
      end

      def oauthbearer_token_refresh_callback=(callback)
        raise TypeError, "Callback has to be callable" unless callback.respond_to?(:call) || callback.nil?

        @oauthbearer_token_refresh_callback = callback
      end
    end

    # rdkafka-ruby's options: `run_polling_thread:` (producer, default true)
    # starts a thread serving delivery reports and statistics every
    # `native_kafka_poll_timeout_ms` (Defaults::NATIVE_KAFKA_POLL_TIMEOUT_MS); `native_kafka_auto_start:`
    # is accepted and has no effect (the client runs from creation; #start
    # has nothing left to do). The consumer serves its callbacks in #poll
    # and the admin client runs each request on its own thread, so their
    # options are accepted without effect.
    def producer(native_kafka_auto_start: true, native_kafka_poll_timeout_ms: Defaults::NATIVE_KAFKA_POLL_TIMEOUT_MS,
                 run_polling_thread: true)
      _ = native_kafka_auto_start
      name = Config.instance_name(self["client.id"], "producer")
      conf, oauth_id = native_config_for(name)
      Producer.new(conf, partitioner: self[:partitioner] || "consistent_random", name: name, oauth_id: oauth_id,
                         run_polling_thread: run_polling_thread, poll_timeout_ms: native_kafka_poll_timeout_ms)
    end

    def consumer(**_options)
      name = Config.instance_name(self["client.id"], "consumer")
      conf, oauth_id = native_config_for(name)
      Consumer.new(conf, rebalance_listener: @consumer_rebalance_listener, name: name, oauth_id: oauth_id,
                                  read_committed: self["isolation.level"].to_s != "read_uncommitted",
                                  auto_offset_store: !%w[false f 0].include?(self["enable.auto.offset.store"].to_s.downcase))
    end

    # The admin client's name is a producer's, as librdkafka's admin
    # clients are producer instances ("<client.id>#producer-<n>").
    def admin(**_options)
      name = Config.instance_name(self["client.id"], "producer")
      conf, oauth_id = native_config_for(name)
      Admin.new(conf, name: name, oauth_id: oauth_id)
    end

    # The effective configuration clients made from this one would have:
    # every property (canonical names) with its value or default, as a Hash
    # of Strings, checked as a client checks it (librdkafka's
    # rd_kafka_conf_dump). Secrets (sasl.password, ssl.key.password,
    # ssl.key.pem, sasl.oauthbearer.* secrets and tokens, ...) read
    # "[redacted]", set or not.
    # rdkafka-ruby's name for the same dump: a Hash of Symbol => String.
    def describe_properties
      dump.transform_keys(&:to_sym)
    end

    def dump
      conf = native_config
      begin
        cnt = FFI::MemoryPointer.new(:size_t)
        arr = Native.gregor_config_dump(conf, cnt)
        raise ConfigError, "gregor_config_dump failed" if arr.null?

        n = cnt.read(:size_t)
        begin
          arr.get_array_of_pointer(0, n).map(&:read_string).each_slice(2).to_h
        ensure
          Native.gregor_config_dump_free(arr, n)
        end
      ensure
        Native.gregor_config_free(conf)
      end
    end

    private

    # native_config for the client `name`, with the OAUTHBEARER refresh
    # callback when Config.oauthbearer_token_refresh_callback is set:
    # [conf, registry id or nil].
    def native_config_for(name)
      conf = native_config
      [conf, OAuthBearer.install(conf, name)]
    end

    # Calls `yield`-free: returns a gregor_config the caller frees.
    def native_config
      conf = Native.gregor_config_new
      unless Native::MISSING.include?(:gregor_config_set_log_cb)
        Native.gregor_config_set_log_cb(conf, Config.log_callback, nil)
        Native.gregor_config_set(conf, "log.queue", "true", Native.errbuf, Native::ERRSTR_SIZE) unless @config_hash.key?("log.queue")
      end
      @config_hash.each do |k, v|
        buf = Native.errbuf
        value = v == true ? "true" : v == false ? "false" : v.to_s
        rc = Native.gregor_config_set(conf, k, value, buf, Native::ERRSTR_SIZE)
        next if rc.zero?

        Native.gregor_config_free(conf)
        raise ConfigError, Config.rdkafka_config_text(k, value, buf.read_string)
      end
      conf
    end

    # librdkafka's texts (rd_kafka_conf_set's errstr, which rdkafka-ruby's
    # ConfigError carries) for the refusals applications match on: an
    # unknown property and an empty value for a property that needs one;
    # gregor's own text otherwise (it names the property and the reason).
    def self.rdkafka_config_text(key, value, text)
      if text.end_with?(": no such configuration property")
        "No such configuration property: \"#{key}\""
      elsif value.empty?
        "Configuration property \"#{key}\" cannot be set to empty value"
      else
        text
      end
    end
  end
end
