# frozen_string_literal: true

# Against the broker at $GREGOR_TEST_BROKER (default 127.0.0.1:9092), with
# unique topic and group names: ruby -Ilib test/test_gregor.rb
require "minitest/autorun"
require "securerandom"
require "gregor"

class GregorTest < Minitest::Test
  BROKER = ENV.fetch("GREGOR_TEST_BROKER", "127.0.0.1:9092")
  TIMEOUT = 60

  def config(extra = {})
    Gregor::Config.new({ "bootstrap.servers" => BROKER }.merge(extra))
  end

  def unique(prefix)
    "ruby-#{prefix}-#{Process.pid}-#{SecureRandom.hex(5)}"
  end

  def setup
    @admin = config.admin
    @created = []
  end

  def teardown
    @created.each do |t|
      @admin.delete_topic(t).wait(max_wait_timeout: TIMEOUT, raise_response_error: false)
    end
    @admin.close
  end

  def create_topic(partitions)
    topic = unique("t")
    report = @admin.create_topic(topic, partitions, 1).wait(max_wait_timeout: TIMEOUT)
    assert_nil report.error_string
    assert_equal topic, report.result_name
    @created << topic
    topic
  end

  def poll_until(consumer, count)
    got = []
    deadline = Time.now + TIMEOUT
    while got.size < count && Time.now < deadline
      msg = consumer.poll(500)
      got << msg if msg
    end
    got
  end

  def test_error_table_comes_from_the_library
    assert_equal(-191, Gregor::ERRORS[:_PARTITION_EOF])
    assert_equal 3, Gregor::ERRORS[:UNKNOWN_TOPIC_OR_PARTITION]
    err = Gregor::RdkafkaError.new(-185)
    assert_equal :timed_out, err.code
    assert_match(/timed out/i, err.to_s)
  end

  def test_bad_config_is_an_error_naming_the_property
    e = assert_raises(Gregor::Config::ConfigError) { config("no.such.property" => "1").producer }
    assert_match(/no.such.property/, e.message)
  end

  def test_produce_with_wait_reports_partition_and_offset
    topic = create_topic(2)
    producer = config.producer
    handles = 3.times.map { |i| producer.produce(topic: topic, payload: "m#{i}", key: "k#{i}", partition: 1) }
    reports = handles.map { |h| h.wait(max_wait_timeout: TIMEOUT) }
    assert_equal [1, 1, 1], reports.map(&:partition)
    assert_equal [0, 1, 2], reports.map(&:offset)
    assert(reports.all? { |r| r.error.nil? && r.topic_name == topic })
    # A handle wakes inside its delivery callback, and the queue counts a
    # message until that callback has returned (as librdkafka's
    # rd_kafka_outq_len), so right after `wait` the polling thread may still
    # be serving: `flush` is what promises an empty queue.
    assert producer.flush(TIMEOUT * 1000)
    assert_equal 0, producer.queue_size
    producer.close
    assert_raises(Gregor::ClosedClientError) { producer.produce(topic: topic, payload: "x") }
  end

  def test_blocking_poll_releases_the_vm_lock
    producer = config.producer
    ticks = 0
    spinner = Thread.new { loop { ticks += 1; sleep 0.01 } }
    producer.poll(1000) # nothing to serve: blocks in C for the whole second
    spinner.kill
    producer.close
    assert_operator ticks, :>, 20, "another thread ran while poll blocked"
  end

  def test_consume_assigned_partition
    topic = create_topic(1)
    producer = config.producer
    producer.produce(topic: topic, payload: "hello", key: "k", headers: { "h" => "v" }).wait(max_wait_timeout: TIMEOUT)
    producer.close
    consumer = config("group.id" => unique("g")).consumer
    list = Gregor::Consumer::TopicPartitionList.new
    list.add_topic_and_partitions_with_offsets(topic, 0 => 0)
    consumer.assign(list)
    msg = poll_until(consumer, 1).first
    refute_nil msg
    assert_equal ["hello", "k", 0, 0, { "h" => "v" }], [msg.payload, msg.key, msg.partition, msg.offset, msg.headers]
    assert_equal [0, 1], consumer.query_watermark_offsets(topic, 0)
    consumer.close
    assert_raises(Gregor::ClosedClientError) { consumer.poll(10) }
  end

  def test_subscribe_consume_commit
    topic = create_topic(2)
    producer = config.producer
    handles = 4.times.map { |i| producer.produce(topic: topic, payload: "g#{i}", partition: i % 2) }
    handles.each { |h| h.wait(max_wait_timeout: TIMEOUT) }
    producer.close
    group = unique("g")
    listener = Struct.new(:assigned, :revoked) do
      def on_partitions_assigned(list)
        assigned.concat(list.to_h.flat_map { |t, ps| ps.map { |p| [t, p.partition] } })
      end

      def on_partitions_revoked(list)
        revoked.concat(list.to_h.flat_map { |t, ps| ps.map { |p| [t, p.partition] } })
      end
    end.new([], [])
    cfg = config("group.id" => group, "auto.offset.reset" => "earliest", "enable.auto.commit" => false)
    cfg.consumer_rebalance_listener = listener
    consumer = cfg.consumer
    consumer.subscribe(topic)
    got = poll_until(consumer, 4)
    assert_equal %w[g0 g1 g2 g3], got.map(&:payload).sort
    assert_equal [[topic, 0], [topic, 1]], listener.assigned.sort
    consumer.commit
    committed = consumer.committed.to_h[topic].sort_by(&:partition)
    assert_equal [[0, 2], [1, 2]], committed.map { |p| [p.partition, p.offset] }
    consumer.close
    assert_equal [[topic, 0], [topic, 1]], listener.revoked.sort

    # the group resumes after the committed offsets
    p2 = config.producer
    p2.produce(topic: topic, payload: "after", partition: 0).wait(max_wait_timeout: TIMEOUT)
    p2.close
    again = config("group.id" => group, "auto.offset.reset" => "earliest").consumer
    again.subscribe(topic)
    got = poll_until(again, 1)
    assert_equal [["after", 2]], got.map { |m| [m.payload, m.offset] }
    again.close
  end

  # An exception in the rebalance listener is raised from the poll that
  # served the rebalance (as the Java client's poll throws it), and the
  # assignment is applied all the same.
  def test_rebalance_listener_exception_is_raised_from_poll
    topic = create_topic(1)
    listener = Object.new
    listener.define_singleton_method(:on_partitions_assigned) { |_list| raise ArgumentError, "boom" }
    cfg = config("group.id" => unique("g"), "auto.offset.reset" => "earliest")
    cfg.consumer_rebalance_listener = listener
    consumer = cfg.consumer
    consumer.subscribe(topic)
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + TIMEOUT
    raised = nil
    while raised.nil? && Process.clock_gettime(Process::CLOCK_MONOTONIC) < deadline
      begin
        consumer.poll(200)
      rescue ArgumentError => e
        raised = e
      end
    end
    assert_equal "boom", raised&.message
    assert_equal [0], consumer.assignment.to_h[topic].map(&:partition)
    assert_nil consumer.poll(0) # raised once
  ensure
    consumer&.close
  end

  def test_admin_create_and_delete_topic
    topic = unique("adm")
    report = @admin.create_topic(topic, 3, 1, "retention.ms" => "60000").wait(max_wait_timeout: TIMEOUT)
    assert_equal topic, report.result_name
    e = assert_raises(Gregor::RdkafkaError) { @admin.create_topic(topic, 3, 1).wait(max_wait_timeout: TIMEOUT) }
    assert_equal :topic_already_exists, e.code
    assert_equal topic, @admin.delete_topic(topic).wait(max_wait_timeout: TIMEOUT).result_name
    e = assert_raises(Gregor::RdkafkaError) { @admin.delete_topic(topic).wait(max_wait_timeout: TIMEOUT) }
    assert_equal :unknown_topic_or_part, e.code
  end

  # rdkafka-ruby's shapes: handle fields, wait(max_wait_timeout_ms:),
  # Metadata, partition_count and partition_key, Closed*Error, statistics.
  def test_rdkafka_ruby_shapes
    topic = create_topic(3)
    producer = config.producer
    handle = producer.produce(topic: topic, payload: "p", partition_key: "user-1")
    assert_kind_of Gregor::AbstractHandle, handle
    report = handle.wait(max_wait_timeout_ms: TIMEOUT * 1000)
    refute handle.pending?
    assert_equal 0, handle[:response]
    assert_equal Gregor::Native.gregor_partitioner("consistent_random", FFI::MemoryPointer.from_string("user-1"), 6, 3),
                 report.partition
    assert_equal 3, producer.partition_count(topic)
    assert_equal 3, Gregor::Producer.partitions_count_cache.to_h[topic][1]
    md = producer.metadata(topic)
    assert_equal [topic], md.topics.map { |t| t[:topic_name] }
    assert_equal [0, 1, 2], md.topics.first[:partitions].map { |p| p[:partition_id] }
    refute_empty md.brokers
    assert_equal md.brokers, @admin.metadata.brokers
    producer.close
    assert_raises(Gregor::ClosedProducerError) { producer.produce(topic: topic, payload: "x") }
    e = assert_raises(Gregor::AbstractHandle::WaitTimeoutError) do
      h = Gregor::Admin::CreateTopicHandle.new
      h[:pending] = true
      h.wait(max_wait_timeout_ms: 50)
    end
    assert_match(/create topic/, e.message)
    assert_equal 0, Gregor::Bindings::RD_KAFKA_RESP_ERR_NO_ERROR
    assert_equal(-197, Gregor::Bindings::RD_KAFKA_RESP_ERR__DESTROY)
  end

  def test_statistics_callback
    got = Queue.new
    Gregor::Config.statistics_callback = ->(stats) { got << stats }
    producer = config("statistics.interval.ms" => 100).producer
    deadline = Time.now + TIMEOUT
    producer.poll(100) while got.empty? && Time.now < deadline
    refute got.empty?
    assert got.pop.key?("msg_cnt")
    producer.close
  ensure
    Gregor::Config.statistics_callback = nil
  end
end
