# frozen_string_literal: true

module Gregor
  # librdkafka's name (rd_kafka_err2name) and text (rd_kafka_err2str) of
  # `code`, from libgregor (gregor_err_rdkafka_name / _str); gregor's own
  # name and text from a library without them.
  def self.rdkafka_error_name(code)
    !Native::MISSING.include?(:gregor_err_rdkafka_name) ? Native.gregor_err_rdkafka_name(code) : error_name(code)
  end

  def self.rdkafka_error_text(code)
    !Native::MISSING.include?(:gregor_err_rdkafka_str) ? Native.gregor_err_rdkafka_str(code) : Native.gregor_err_str(code)
  end

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

    # The code's name as librdkafka spells it (rd_kafka_err2name: :unknown_topic_or_part,
    # :msg_size_too_large), lower case, without the leading underscore of
    # local codes (:partition_eof); :err_<n>? for a code nobody knows.
    def code
      name = Gregor.rdkafka_error_name(@rdkafka_response).downcase
      (name.start_with?("_") ? name[1..] : name).to_sym
    end

    # As rdkafka-ruby's: "[prefix - ]<librdkafka's text> (<code>)[ [instance]]",
    # e.g. "Broker: Message size too large (msg_size_too_large)". The
    # broker's (or gregor's) own detail is in #broker_message.
    def to_s
      prefix = @message_prefix ? "#{@message_prefix} - " : ""
      "#{prefix}#{Gregor.rdkafka_error_text(@rdkafka_response)} (#{code})#{@instance_name ? " [#{@instance_name}]" : ''}"
    end

    def is_partition_eof?
      code == :partition_eof
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
      # librdkafka's name where it differs from Kafka's (UNKNOWN_TOPIC_OR_PART)
      rd = Gregor.rdkafka_error_name(code)
      const_set(:"RD_KAFKA_RESP_ERR_#{rd}", code) if rd =~ /\A_?[A-Z][A-Z0-9_]*\z/ && !const_defined?(:"RD_KAFKA_RESP_ERR_#{rd}", false)
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
