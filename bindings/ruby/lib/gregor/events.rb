# frozen_string_literal: true

module Gregor
  # Client events in rdkafka-ruby's shape: `Gregor::Config.error_callback =
  # ->(error) { … }` gets a Gregor::RdkafkaError for each client-level error
  # (librdkafka's error_cb: :transport, :resolve, :ssl, :authentication,
  # :all_brokers_down, :fatal, …) of every producer and consumer. gregor
  # serves it inside the client's poll calls on the polling thread
  # (rdkafka-ruby runs it on librdkafka's background thread).
  module Native
    callback :error_cb, %i[pointer int string pointer], :void
    bind :gregor_producer_set_error_cb, %i[pointer error_cb pointer], :int
    bind :gregor_consumer_set_error_cb, %i[pointer error_cb pointer], :int
    bind :gregor_producer_fatal_error, %i[pointer pointer size_t], :int
    bind :gregor_consumer_fatal_error, %i[pointer pointer size_t], :int
  end

  # Hooks the process-wide error callback into every client.
  module Events
    # A C error callback calling Config.error_callback (read at each call,
    # as rdkafka-ruby reads it, so a callback set after the client was made
    # gets its errors too) with an RdkafkaError naming the client
    # (`instance_name`, "<client.id>#producer-1").
    def self.error_proc(instance_name = nil)
      lambda do |_handle, code, reason, _opaque|
        cb = Config.error_callback
        cb&.call(RdkafkaError.new(code, broker_message: reason, instance_name: instance_name))
      rescue StandardError => e
        warn "gregor: error callback raised #{e.class}: #{e.message}"
      end
    end

    # Installs the error callback on `native` (`kind` :producer or
    # :consumer); returns the proc to keep referenced while the C side
    # holds it.
    def self.install(kind, native, instance_name = nil)
      cb = error_proc(instance_name)
      Native.public_send(:"gregor_#{kind}_set_error_cb", native, cb, nil)
      cb
    end

    # The error that stopped the client for good (rd_kafka_fatal_error),
    # as an RdkafkaError, or nil.
    def self.fatal_error(kind, native)
      buf = Native.errbuf
      code = Native.public_send(:"gregor_#{kind}_fatal_error", native, buf, Native::ERRSTR_SIZE)
      code.zero? ? nil : RdkafkaError.new(code, broker_message: buf.read_string)
    end
  end
end
