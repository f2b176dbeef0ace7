# frozen_string_literal: true

# Issue 24: a client closed while another Ruby thread is inside a blocking
# call on it must not crash (it segfaulted, rc 134, within 20 rounds of the
# admin script below). Each test runs GREGOR_LIFETIME_ROUNDS rounds (default
# 1000) against the broker at $GREGOR_TEST_BROKER (default 127.0.0.1:9092):
#
#   ruby -Ilib test/test_lifetime.rb
#   GREGOR_LIFETIME_ROUNDS=200 ruby -Ilib test/test_lifetime.rb   # quicker
require "minitest/autorun"
require "securerandom"
require "gregor"

class GregorLifetimeTest < Minitest::Test
  BROKER = ENV.fetch("GREGOR_TEST_BROKER", "127.0.0.1:9092")
  ROUNDS = Integer(ENV.fetch("GREGOR_LIFETIME_ROUNDS", "1000"))
  PROMPT = 10 # seconds a call cut short by close may take to return

  def config(extra = {})
    Gregor::Config.new({ "bootstrap.servers" => BROKER }.merge(extra))
  end

  # Two rounds in three let the other thread get into its C call first
  # (0-3 ms); the third closes at once, before it does.
  def settle(i)
    sleep(rand * 0.003) unless (i % 3).zero?
  end

  def timed(label)
    t0 = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    yield
    ms = ((Process.clock_gettime(Process::CLOCK_MONOTONIC) - t0) * 1000).round
    puts "\n#{label}: #{ROUNDS} rounds in #{ms} ms"
  end

  # Deletes the topics the rounds may have created, 100 names a request.
  def delete_topics(names)
    admin = config.admin
    names.each_slice(100) do |slice|
      arr, keep = Gregor::Native.cstr_array(slice)
      out = FFI::MemoryPointer.new(:pointer)
      buf = Gregor::Native.errbuf
      admin.instance_variable_get(:@native).use(:delete_topics) do |native|
        rc = Gregor::Native.gregor_admin_delete_topics(native, arr, slice.size, nil, out, buf,
                                                      Gregor::Native::ERRSTR_SIZE)
        Gregor::Native.gregor_topic_results_free(out.read_pointer) if rc.zero?
      end
      keep
    end
  ensure
    admin&.close
  end

  # The issue's script: create_topic runs on its own thread, close frees at once.
  def test_admin_closed_while_creating_a_topic
    names = []
    handles = []
    timed("admin create_topic + close") do
      ROUNDS.times do |i|
        admin = config.admin
        name = "race-#{Process.pid}-#{i}"
        names << name
        handles << admin.create_topic(name, 1, 1)
        settle(i)
        admin.close # the request thread may be inside gregor_admin_create_topics
      end
    end
    # every request ended: created, cut short in C by the close, or refused
    # before it started
    outcome = Hash.new(0)
    handles.each do |h|
      h.wait(max_wait_timeout_ms: PROMPT * 1000, raise_response_error: false)
      refute h.pending?
      outcome[if h[:response].zero? then :created
              elsif h.broker_message.to_s.start_with?("Illegal call") then :closed_before_the_call
              else :"cut_short_#{Gregor.error_name(h[:response])}"
              end] += 1
    end
    puts "admin outcomes: #{outcome.sort.to_h}"
    assert(outcome.keys.any? { |k| k != :closed_before_the_call }, "no request ever got into C")
  ensure
    delete_topics(names) unless names.empty?
  end

  def test_admin_calls_after_close_raise_closed_admin_error
    admin = config.admin
    admin.close
    admin.close # idempotent
    assert admin.closed?
    assert_raises(Gregor::ClosedAdminError) { admin.create_topic("x", 1, 1) }
    assert_raises(Gregor::ClosedClientError) { admin.delete_topic("x") }
  end

  def topic
    @topic ||= begin
      t = "ruby-lifetime-#{Process.pid}-#{SecureRandom.hex(4)}"
      admin = config.admin
      admin.create_topic(t, 1, 1).wait(max_wait_timeout: 60)
      admin.close
      t
    end
  end

  def teardown
    delete_topics([@topic]) if @topic
  end

  # A thread waits for a delivery (polling in C) while the main thread closes.
  def test_producer_closed_while_a_thread_waits_for_delivery
    t = topic
    timed("producer produce/wait + close") do
      ROUNDS.times do |i|
        producer = config.producer
        handle = producer.produce(topic: t, payload: "round #{i}")
        waiter = Thread.new do
          handle.wait(max_wait_timeout: PROMPT)
        rescue Gregor::ClosedProducerError, Gregor::RdkafkaError, Gregor::Producer::WaitTimeoutError
          nil
        end
        settle(i)
        producer.close(i.even? ? 0 : 5000)
        assert waiter.join(PROMPT), "round #{i}: the waiting thread did not return"
        assert_raises(Gregor::ClosedProducerError) { producer.produce(topic: t, payload: "late") }
      end
    end
  end

  # A thread blocked in poll while the main thread closes.
  def test_consumer_closed_while_a_thread_polls
    t = topic
    timed("consumer poll + close") do
      ROUNDS.times do |i|
        consumer = config.consumer
        list = Gregor::Consumer::TopicPartitionList.new
        list.add_topic_and_partitions_with_offsets(t, 0 => -1) # from the end: nothing comes
        consumer.assign(list)
        poller = Thread.new do
          consumer.poll(30_000)
        rescue Gregor::ClosedConsumerError
          nil
        end
        settle(i)
        consumer.close
        assert poller.join(PROMPT), "round #{i}: the polling thread did not return"
        assert_raises(Gregor::ClosedConsumerError) { consumer.poll(0) }
      end
    end
  end

  # Clients dropped without close are freed by their finalizers.
  def test_finalizers_free_unclosed_clients
    50.times do
      config.producer
      config.consumer
      config.admin
    end
    GC.start
    GC.start
    pass
  end
end
