# frozen_string_literal: true

# gregor for Ruby: rdkafka-ruby's shape over libgregor through the ffi gem.
#
#   config = Gregor::Config.new("bootstrap.servers" => "127.0.0.1:9092")
#   report = config.producer.produce(topic: "t", payload: "hi").wait
#   report.partition, report.offset
require "json"
require "logger"
require_relative "gregor/native"
require_relative "gregor/error"
require_relative "gregor/defaults"
require_relative "gregor/native_handle"
require_relative "gregor/sliced"
require_relative "gregor/abstract_handle"
require_relative "gregor/config"
require_relative "gregor/events"
require_relative "gregor/oauthbearer"
require_relative "gregor/producer"
require_relative "gregor/consumer"
require_relative "gregor/admin"
require_relative "gregor/admin_acl"
require_relative "gregor/metadata"
require_relative "gregor/event_loop"
require_relative "gregor/mock_cluster"

module Gregor
  # The loaded libgregor's version.
  def self.library_version
    Native.gregor_version
  end

  VERSION = "0.1.0"
end
