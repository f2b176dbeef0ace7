# frozen_string_literal: true

module Gregor
  # Configuration with librdkafka's property names, shaped like
  # rdkafka-ruby's: `Gregor::Config.new("bootstrap.servers" => "…").producer`.
  class Config
    # Raised for an unknown property or a bad value.
    class ConfigError < RuntimeError; end

    # An object with on_partitions_assigned(list) / on_partitions_revoked(list)
    # (TopicPartitionLists), called inside poll/close when the group's
    # assignment changes (rdkafka-ruby's consumer_rebalance_listener).
    attr_accessor :consumer_rebalance_listener

    def initialize(config_hash = {})
      @config_hash = {}
      config_hash.each { |k, v| self[k] = v }
    end

    def []=(key, value)
      @config_hash[key.to_s] = value
    end

    def [](key)
      @config_hash[key.to_s]
    end

    def producer
      Producer.new(native_config)
    end

    def consumer
      Consumer.new(native_config, rebalance_listener: @consumer_rebalance_listener)
    end

    def admin
      Admin.new(native_config)
    end

    private

    # Calls `yield`-free: returns a gregor_config the caller frees.
    def native_config
      conf = Native.gregor_config_new
      @config_hash.each do |k, v|
        buf = Native.errbuf
        value = v == true ? "true" : v == false ? "false" : v.to_s
        rc = Native.gregor_config_set(conf, k, value, buf, Native::ERRSTR_SIZE)
        next if rc.zero?

        Native.gregor_config_free(conf)
        raise ConfigError, buf.read_string
      end
      conf
    end
  end
end
