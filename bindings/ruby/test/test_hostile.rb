# frozen_string_literal: true

# Strings with an embedded NUL are refused with ArgumentError (as ruby-ffi
# refuses them for a :string argument), never cut at the NUL by C: topics,
# header names, subscriptions, group ids, configuration names and values.
# Needs no broker: the clients point at a closed port and nothing is sent.

require "minitest/autorun"
require "gregor"

class HostileStringsTest < Minitest::Test
  CONF = { "bootstrap.servers" => "127.0.0.1:1", "message.timeout.ms" => "1000" }.freeze

  def test_producer_topic_and_header_names
    producer = Gregor::Config.new(CONF).producer
    assert_raises(ArgumentError) { producer.produce(topic: "t\0suffix", payload: "v") }
    assert_raises(ArgumentError) { producer.produce(topic: "t", payload: "v", headers: { "h\0x" => "v" }) }
    assert_equal 0, producer.queue_size
  ensure
    producer&.close
  end

  def test_subscribe
    consumer = Gregor::Config.new(CONF.merge("group.id" => "g")).consumer
    assert_raises(ArgumentError) { consumer.subscribe("rt\0evil") }
    assert_raises(ArgumentError) { consumer.subscribe("ok", "rt\0evil") }
  ensure
    consumer&.close
  end

  def test_config_names_and_values
    assert_raises(ArgumentError) { Gregor::Config.new(CONF.merge("group.id" => "g\0evil")).consumer }
    assert_raises(ArgumentError) { Gregor::Config.new(CONF.merge("client.id\0x" => "a")).producer }
  end
end
