# frozen_string_literal: true

# Gregor::Config.error_callback (rdkafka-ruby's shape) against brokers that
# cannot be reached and the SASL broker ($GREGOR_TEST_BROKER_SASL,
# 127.0.0.1:9094) with a wrong password: ruby -Ilib test/test_events.rb
require "minitest/autorun"
require "socket"
require "gregor"

class GregorEventsTest < Minitest::Test
  def teardown
    Gregor::Config.error_callback = nil
  end

  def closed_port
    s = TCPServer.new("127.0.0.1", 0)
    port = s.addr[1]
    s.close
    "127.0.0.1:#{port}"
  end

  # Polls `producer` until an error with `code` came or `limit` seconds pass.
  def poll_for(producer, errors, code, limit)
    until_t = Process.clock_gettime(Process::CLOCK_MONOTONIC) + limit
    while Process.clock_gettime(Process::CLOCK_MONOTONIC) < until_t
      producer.poll(100)
      found = errors.find { |e| e.code == code }
      return found if found
    end
    nil
  end

  def test_all_brokers_down_reaches_the_error_callback
    errors = []
    Gregor::Config.error_callback = ->(e) { errors << e }
    producer = Gregor::Config.new("bootstrap.servers" => closed_port,
                                  "reconnect.backoff.ms" => 100,
                                  "reconnect.backoff.max.ms" => 1000,
                                  "message.timeout.ms" => 1000).producer
    t0 = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    producer.produce(topic: "events-rb-down", payload: "v")
    e = poll_for(producer, errors, :all_brokers_down, 2.0)
    refute_nil e, errors.map(&:code).inspect
    assert_operator Process.clock_gettime(Process::CLOCK_MONOTONIC) - t0, :<, 2.0
    assert_kind_of Gregor::RdkafkaError, e
    assert_equal :transport, errors.first.code
    assert_nil producer.fatal_error
    producer.close
  end

  def test_wrong_scram_password_is_authentication
    errors = []
    Gregor::Config.error_callback = ->(e) { errors << e }
    producer = Gregor::Config.new("bootstrap.servers" => ENV.fetch("GREGOR_TEST_BROKER_SASL", "127.0.0.1:9094"),
                                  "security.protocol" => "sasl_plaintext",
                                  "sasl.mechanisms" => "SCRAM-SHA-256",
                                  "sasl.username" => "gregor256",
                                  "sasl.password" => "events-rb-wrong",
                                  "message.timeout.ms" => 1000).producer
    producer.produce(topic: "events-rb-auth", payload: "v")
    e = poll_for(producer, errors, :authentication, 5.0)
    refute_nil e, errors.map(&:code).inspect
    refute_includes e.to_s, "events-rb-wrong"
    producer.close
  end
end
