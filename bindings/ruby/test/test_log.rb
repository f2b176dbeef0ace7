# frozen_string_literal: true

# Gregor::Config.logger (rdkafka-ruby's Config.logger) gets the clients' log
# lines: with debug contexts on, "gregor: [thrd:...]: ..." at DEBUG; with
# debug unset, nothing. Against the broker at $GREGOR_TEST_BROKER
# (default 127.0.0.1:9092): ruby -Ilib test/test_log.rb
require "minitest/autorun"
require "securerandom"
require "stringio"
require "gregor"

class GregorLogTest < Minitest::Test
  BROKER = ENV.fetch("GREGOR_TEST_BROKER", "127.0.0.1:9092")

  def setup
    @saved = Gregor::Config.logger
    @out = StringIO.new
    Gregor::Config.logger = Logger.new(@out)
  end

  def teardown
    Gregor::Config.logger = @saved
  end

  def produce(extra)
    producer = Gregor::Config.new({ "bootstrap.servers" => BROKER }.merge(extra)).producer
    topic = "ruby-log-#{Process.pid}-#{SecureRandom.hex(5)}"
    producer.produce(topic: topic, payload: "v", partition: 0).wait(max_wait_timeout: 30)
    producer.flush(30_000)
    producer.close
    topic
  end

  def wait_for_output
    40.times do
      break unless Gregor::Config.log_queue.empty? && @out.string.empty?

      sleep 0.05
    end
    sleep 0.1
  end

  def test_debug_lines_reach_the_logger
    produce("debug" => "broker,topic")
    wait_for_output
    log = @out.string
    assert_includes log, "DEBUG -- : gregor: [thrd:"
    assert_match(%r{/bootstrap: Connected to }, log)
    assert_includes log, "]: leader"
  end

  def test_debug_unset_writes_nothing
    produce({})
    sleep 0.3
    assert_equal "", @out.string
  end
end
