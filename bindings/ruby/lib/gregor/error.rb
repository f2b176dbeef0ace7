# frozen_string_literal: true

module Gregor
  # Base of gregor's errors.
  class BaseError < RuntimeError; end

  # An error code from libgregor (0 ok, > 0 the broker's Kafka code, < 0
  # local), shaped like rdkafka-ruby's RdkafkaError: `rdkafka_response` is
  # the number, `code` its name as a symbol (`:partition_eof`,
  # `:unknown_topic_or_partition`), both from the library.
  class RdkafkaError < BaseError
    attr_reader :rdkafka_response, :message_prefix, :broker_message, :instance_name

    # rdkafka-ruby's signature: the code, an optional prefix for the
    # message, and the broker's (or library's) own text.
    def initialize(response, message_prefix = nil, broker_message: nil, instance_name: nil)
      raise TypeError, "Response has to be an integer" unless response.is_a?(Integer)

      @rdkafka_response = response
      @broker_message = broker_message
      @message_prefix = message_prefix
      @instance_name = instance_name
      super(to_s)
    end

    # The code's name, lower case, without librdkafka's leading underscore.
    def code
      name = Gregor.error_name(@rdkafka_response)
      (name.start_with?("_") ? name[1..] : name).downcase.to_sym
    end

    def to_s
      prefix = @message_prefix ? "#{@message_prefix} - " : ""
      text = @broker_message || Gregor::Native.gregor_err_str(@rdkafka_response)
      "#{prefix}#{text} (#{code})#{@instance_name ? " [#{@instance_name}]" : ''}"
    end

    def is_partition_eof?
      @rdkafka_response == Gregor::ERRORS.fetch(:_PARTITION_EOF)
    end

    def ==(other)
      other.is_a?(self.class) && to_s == other.to_s
    end
  end

  # An error with the topic partition list it concerns.
  class RdkafkaTopicPartitionListError < RdkafkaError
    attr_reader :topic_partition_list

    def initialize(response, topic_partition_list, message_prefix = nil)
      super(response, message_prefix)
      @topic_partition_list = topic_partition_list
    end
  end

  # libgregor could not be loaded.
  class LibraryLoadError < BaseError; end

  # rdkafka-ruby's error for a closed librdkafka instance (gregor raises the
  # client's Closed*Error instead; kept for code that rescues it).
  class ClosedInnerError < BaseError
    def initialize
      super("Illegal call to a closed inner librdkafka instance")
    end
  end

  # Raised by calls on a closed client (each client has its own subclass,
  # as in rdkafka-ruby).
  class ClosedClientError < BaseError
    def initialize(method, what = "client")
      super("Illegal call to #{method} on a closed #{what}")
    end
  end

  # Raised by calls on a closed producer.
  class ClosedProducerError < ClosedClientError
    def initialize(method)
      super(method, "producer")
    end
  end

  # Raised by calls on a closed consumer.
  class ClosedConsumerError < ClosedClientError
    def initialize(method)
      super(method, "consumer")
    end
  end

  # Raised by calls on a closed admin client.
  class ClosedAdminError < ClosedClientError
    def initialize(method)
      super(method, "admin")
    end
  end

  require_relative "descriptors"

  # {name symbol => code}, read from libgregor when this file loads (its
  # descriptor table, gregor_get_err_descs), never copied by hand.
  ERRORS = Descriptors.errors.to_h { |code, name, _desc| [name.to_sym, code] }.freeze
  ERROR_NAMES = ERRORS.invert.freeze

  # The constants of rdkafka-ruby's Rdkafka::Bindings that applications and
  # rdkafka-ruby's specs compare with: RD_KAFKA_RESP_ERR_<NAME> for every
  # code (librdkafka's names, from ERRORS), partition and offset specials.
  # librdkafka's raw functions are not here: they only exist over librdkafka.
  module Bindings
    ERRORS.each do |name, code|
      const_set(:"RD_KAFKA_RESP_ERR_#{name}", code)
    end
    RD_KAFKA_PARTITION_UA = -1
    RD_KAFKA_OFFSET_BEGINNING = -2
    RD_KAFKA_OFFSET_END = -1
    RD_KAFKA_OFFSET_STORED = -1000
    RD_KAFKA_OFFSET_INVALID = -1001
    # list_offsets' isolation_level:
    RD_KAFKA_ISOLATION_LEVEL_READ_UNCOMMITTED = 0
    RD_KAFKA_ISOLATION_LEVEL_READ_COMMITTED = 1
    # rdkafka-ruby's ACL constants, from the library's enum tables
    # (librdkafka calls resource type 4 BROKER where Kafka says CLUSTER).
    { resource_type: "RD_KAFKA_RESOURCE_", resource_pattern_type: "RD_KAFKA_RESOURCE_PATTERN_",
      acl_operation: "RD_KAFKA_ACL_OPERATION_", acl_permission_type: "RD_KAFKA_ACL_PERMISSION_TYPE_" }
      .each do |kind, prefix|
        ENUMS.fetch(kind).each do |name, value|
          const = :"#{prefix}#{name == :cluster && kind == :resource_type ? 'BROKER' : name.upcase}"
          const_set(const, value) unless const_defined?(const, false)
        end
      end
  end

  def self.error_name(code)
    ERROR_NAMES.fetch(code) { Native.gregor_err_name(code) || "UNKNOWN" }.to_s
  end
end
