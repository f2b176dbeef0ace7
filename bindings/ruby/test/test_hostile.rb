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

# Ctrl-C reaches a thread waiting in a long poll or flush within a slice
# (Gregor::Sliced), not after the whole timeout. The bound of 5 s for a 30 s
# call is wide for a loaded machine; the delay is printed.
class InterruptTest < Minitest::Test
  CONF = { "bootstrap.servers" => "127.0.0.1:1", "message.timeout.ms" => "60000" }.freeze

  # Ruby keeps SIGINT ignored when it started ignored (a background job of
  # a non-interactive shell, as a CI runner may start the suite), and then
  # never raises Interrupt: the test gives it Ruby's own handler, as a
  # program run from a terminal has.
  def setup
    @previous_int = trap("INT", "DEFAULT")
  end

  def teardown
    trap("INT", @previous_int) if @previous_int
  end

  def interrupted(what)
    killer = Thread.new do
      sleep 0.3
      Process.kill("INT", Process.pid)
    end
    t0 = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    assert_raises(Interrupt) { yield }
    took = Process.clock_gettime(Process::CLOCK_MONOTONIC) - t0
    puts format("%s: Interrupt %.0f ms after the call began (SIGINT at 300 ms)", what, took * 1000)
    assert_operator took, :<, 5.0, "#{what} waited #{took} s for a Ctrl-C"
  ensure
    killer&.join
  end

  def test_producer_flush_and_poll
    producer = Gregor::Config.new(CONF).producer
    producer.produce(topic: "t", payload: "v")
    interrupted("flush(30_000)") { producer.flush(30_000) }
    interrupted("poll(30_000)") { producer.poll(30_000) }
  ensure
    producer&.purge
    producer&.close
  end

  def test_consumer_poll
    consumer = Gregor::Config.new(CONF.merge("group.id" => "g")).consumer
    consumer.subscribe("t")
    interrupted("consumer poll(30_000)") { consumer.poll(30_000) }
  ensure
    consumer&.close
  end
end
