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
    # about two backoffs (1.1 s); 5 s leaves room for a loaded machine
    e = poll_for(producer, errors, :all_brokers_down, 5.0)
    refute_nil e, errors.map(&:code).inspect
    assert_operator Process.clock_gettime(Process::CLOCK_MONOTONIC) - t0, :<, 5.0
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
  # As rdkafka-ruby: every client has the C callback, which reads
  # Config.error_callback at each call, so one set after the client was
  # made gets its errors, named after the client.
  def test_error_callback_set_after_the_client_was_made_names_it
    producer = Gregor::Config.new("bootstrap.servers" => closed_port, "client.id" => "late-cb",
                                  "reconnect.backoff.ms" => 100, "message.timeout.ms" => 1000).producer
    errors = []
    Gregor::Config.error_callback = ->(e) { errors << e }
    producer.produce(topic: "events-rb-late", payload: "v")
    e = poll_for(producer, errors, :transport, 2.0)
    refute_nil e, errors.map(&:code).inspect
    assert_match(/\Alate-cb#producer-\d+\z/, e.instance_name)
    # rdkafka-ruby's name for the callback, callable as its specs call it
    Gregor::Bindings::ErrorCallback.call(nil, 8, "Broker not available", nil)
    assert_equal :broker_not_available, errors.last.code
    assert_equal "Broker not available", errors.last.broker_message
    assert_nil errors.last.instance_name
    producer.close
  end
end
