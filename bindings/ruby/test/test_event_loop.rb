# frozen_string_literal: true

# Event-loop integration (Producer/Consumer#event_io, #yield_now), the
# consumer's rebalance protocol, group metadata and non-blocking close,
# against the broker at $GREGOR_TEST_BROKER:
#   ruby -Ilib test/test_event_loop.rb
require_relative "test_gregor"

class GregorEventLoopTest < GregorTest
  def self.runnable_methods
    public_instance_methods(false).grep(/\Atest_/).map(&:to_s)
  end
  Minitest::Runnable.runnables.delete(GregorTest)

  N = 300

  def now
    Process.clock_gettime(Process::CLOCK_MONOTONIC)
  end

  # One IO.select loop serves a producer's reports and a consumer's
  # messages, polling each only when its IO is readable: every report and
  # message is served and no poll finds nothing.
  def test_one_select_loop_serves_producer_and_consumer
    topic = create_topic(1)
    producer = config("linger.ms" => 5).producer(run_polling_thread: false)
    consumer = config.consumer
    list = Gregor::Consumer::TopicPartitionList.new
    list.add_topic_and_partitions_with_offsets(topic, 0 => 0)
    consumer.assign(list)
    pio = producer.event_io
    cio = consumer.event_io
    handles = Array.new(N) { |i| producer.produce(topic: topic, payload: "m-#{i}", partition: 0) }
    got = []
    empty = { producer: 0, consumer: 0 }
    deadline = now + TIMEOUT
    until (handles.all? { |h| !h.pending? } && got.size == N) || now > deadline
      ready, = IO.select([pio, cio], nil, nil, 1)
      next unless ready

      if ready.include?(pio) && producer.drain_event_io.positive?
        empty[:producer] += 1 if producer.poll(0).zero?
      end
      if ready.include?(cio) && consumer.drain_event_io.positive?
        msg = consumer.poll(0)
        msg ? got << msg.payload : empty[:consumer] += 1
      end
    end
    assert_equal Array.new(N) { |i| "m-#{i}" }, got
    assert(handles.all? { |h| h.wait(max_wait_timeout: 1).offset >= 0 })
    assert_equal({ producer: 0, consumer: 0 }, empty)
    consumer.disable_event_io
    producer.disable_event_io
  ensure
    consumer&.close
    producer&.close
  end

  # yield_now wakes a poll blocked for 10 s on another thread.
  def test_yield_now_wakes_a_blocked_poll
    consumer = config.consumer
    list = Gregor::Consumer::TopicPartitionList.new
    list.add_topic_and_partitions_with_offsets(create_topic(1), 0 => 0)
    consumer.assign(list)
    returned = nil
    t = Thread.new do
      consumer.poll(10_000)
      returned = now
    end
    sleep 0.3
    at = now
    consumer.yield_now
    t.join
    took_ms = ((returned - at) * 1000).round(1)
    puts "\nyield: Consumer#poll(10_000) returned #{took_ms} ms after yield_now"
    # well before the 10 s timeout, with room for a loaded machine
    assert_operator took_ms, :<, 5000
    producer = config.producer(run_polling_thread: false)
    producer.yield_now # none waits: the next waiting poll returns at once
    at = now
    assert_equal 0, producer.poll(10_000)
    assert_operator now - at, :<, 5.0 # of a 10 s timeout
  ensure
    consumer&.close
    producer&.close
  end

  def test_rebalance_protocol_group_metadata_and_close_start
    topic = create_topic(2)
    group = unique("g")
    events = []
    listener = Object.new
    listener.define_singleton_method(:on_partitions_assigned) { |_l| events << [:assigned, Thread.current] }
    listener.define_singleton_method(:on_partitions_revoked) { |_l| events << [:revoked, Thread.current] }
    cfg = config("group.id" => group, "partition.assignment.strategy" => "cooperative-sticky")
    cfg.consumer_rebalance_listener = listener
    consumer = cfg.consumer
    assert_equal "NONE", consumer.rebalance_protocol
    md = consumer.consumer_group_metadata
    assert_equal [group, -1, "", nil], [md.group_id, md.generation_id, md.member_id, md.group_instance_id]
    consumer.subscribe(topic)
    deadline = now + TIMEOUT
    consumer.poll(100) while consumer.assignment.empty? && now < deadline
    refute_empty consumer.assignment
    assert_equal "COOPERATIVE", consumer.rebalance_protocol
    md = consumer.consumer_group_metadata
    assert_operator md.generation_id, :>=, 0
    refute_empty md.member_id

    io = consumer.event_io
    consumer.close_start
    assert_raises(Gregor::RdkafkaError) { consumer.close_start }
    deadline = now + TIMEOUT
    until consumer.close_done? || now > deadline
      next unless IO.select([io], nil, nil, 0.2) && consumer.drain_event_io.positive?

      begin
        consumer.poll(0)
      rescue Gregor::RdkafkaError => e
        assert_equal :state, e.code
      end
    end
    assert consumer.close_done?
    assert_equal [:revoked, Thread.current], events.last
  ensure
    consumer&.close
  end
end
