# frozen_string_literal: true

# rdkafka-ruby's shapes added for its spec suite (error names and texts,
# ACL calls, instance names, delivery callbacks with their handle, header
# arrays, assignment_lost?, cluster_id), against the broker at
# $GREGOR_TEST_BROKER: ruby -Ilib test/test_rdkafka_shape.rb
require_relative "test_gregor"
require "timeout"

class GregorRdkafkaShapeTest < GregorTest
  # only the tests below: GregorTest's run from test_gregor.rb
  def self.runnable_methods
    public_instance_methods(false).grep(/\Atest_/).map(&:to_s)
  end
  Minitest::Runnable.runnables.delete(GregorTest)

  B = Gregor::Bindings

  def test_error_names_and_texts_are_librdkafkas
    assert_equal :msg_size_too_large, Gregor::RdkafkaError.new(10).code
    assert_equal "Broker: Message size too large (msg_size_too_large)", Gregor::RdkafkaError.new(10).message
    assert_equal :unknown_topic_or_part, Gregor::RdkafkaError.new(3).code
    assert_equal :partition_eof, Gregor::RdkafkaError.new(-191).code
    assert Gregor::RdkafkaError.new(-191).is_partition_eof?
    assert_equal "Err-933975? (err_933975?)", Gregor::RdkafkaError.new(933_975).to_s
    assert_equal "pre - Local: Timed out (timed_out) [x#producer-1]",
                 Gregor::RdkafkaError.new(-185, "pre", instance_name: "x#producer-1").to_s
    # librdkafka's constant names next to Kafka's
    assert_equal 3, B::RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART
    assert_equal 3, B::RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PARTITION
    assert_equal 10, B::RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE
  end

  def test_broker_error_through_a_handle_reads_as_librdkafkas
    topic = create_topic(1)
    e = assert_raises(Gregor::RdkafkaError) { @admin.create_topic(topic, 1, 1).wait(max_wait_timeout_ms: 30_000) }
    assert_equal :topic_already_exists, e.code
    assert_match(/\ABroker: Topic already exists \(topic_already_exists\)\z/, e.message)
    assert_includes e.broker_message, topic
  end

  def acl(name)
    { resource_type: B::RD_KAFKA_RESOURCE_TOPIC, resource_name: name,
      resource_pattern_type: B::RD_KAFKA_RESOURCE_PATTERN_LITERAL, principal: "User:anonymous", host: "*",
      operation: B::RD_KAFKA_ACL_OPERATION_READ, permission_type: B::RD_KAFKA_ACL_PERMISSION_TYPE_ALLOW }
  end

  # The test broker runs without an authorizer: every ACL call comes back
  # SECURITY_DISABLED through its handle (a broker with one would succeed;
  # both paths run the same code).
  def test_acl_calls_come_back_through_their_handles
    spec = acl(unique("acl"))
    create = @admin.create_acl(**spec)
    assert_kind_of Gregor::Admin::CreateAclHandle, create
    begin
      report = create.wait(max_wait_timeout_ms: 30_000)
      assert_equal 0, report.rdkafka_response
      assert_equal "", report.rdkafka_response_string
      found = @admin.describe_acl(**spec).wait(max_wait_timeout_ms: 30_000).acls
      assert(found.any? { |a| a.matching_acl_resource_name == spec[:resource_name] })
      deleted = @admin.delete_acl(**spec).wait(max_wait_timeout_ms: 30_000).deleted_acls
      assert_equal 1, deleted.size
      assert_equal B::RD_KAFKA_ACL_OPERATION_READ, deleted.first.matching_acl_operation
    rescue Gregor::RdkafkaError => e
      assert_equal :security_disabled, e.code
      assert_equal 54, create[:response]
      report = create.wait(raise_response_error: false)
      assert_equal 54, report.rdkafka_response
      assert_match(/Authorizer|[Ss]ecurity/, report.rdkafka_response_string)
      e = assert_raises(Gregor::RdkafkaError) { @admin.describe_acl(**spec).wait(max_wait_timeout_ms: 30_000) }
      assert_equal :security_disabled, e.code
      handle = @admin.delete_acl(**spec, resource_name: nil)
      e = assert_raises(Gregor::RdkafkaError) { handle.wait(max_wait_timeout_ms: 30_000) }
      assert_equal :security_disabled, e.code
      assert_equal [], handle.wait(raise_response_error: false).deleted_acls
    end
    @admin.close
    assert_raises(Gregor::ClosedAdminError) { @admin.create_acl(**spec) }
    @admin = config.admin
  end

  def test_acl_filter_errors_and_report_classes
    # numbers librdkafka refuses are refused before anything is sent
    e = assert_raises(Gregor::Config::ConfigError) { @admin.describe_acl(**acl("x"), operation: 99) }
    assert_equal "Invalid operation", e.message
    # ANY matches in a filter only
    e = assert_raises(Gregor::Config::ConfigError) { @admin.create_acl(**acl("x"), operation: B::RD_KAFKA_ACL_OPERATION_ANY) }
    assert_equal "Invalid operation", e.message
    assert_raises(Gregor::Config::ConfigError) { @admin.create_acl(**acl("x"), resource_pattern_type: B::RD_KAFKA_RESOURCE_PATTERN_MATCH) }
    assert_raises(Gregor::Config::ConfigError) { @admin.delete_acl(**acl("x"), resource_type: B::RD_KAFKA_RESOURCE_UNKNOWN) }
    @admin.delete_acl(**acl(nil), operation: B::RD_KAFKA_ACL_OPERATION_ANY).wait(raise_response_error: false)
    report = Gregor::Admin::CreateAclReport.new(rdkafka_response: 0,
                                                rdkafka_response_string: FFI::MemoryPointer.from_string(""))
    assert_equal "", report.rdkafka_response_string
    assert_equal [], Gregor::Admin::ListOffsetsReport.new(result_infos: FFI::Pointer::NULL, result_count: 0).offsets
  end

  def test_instance_names_delivery_callback_and_header_arrays
    topic = create_topic(1)
    producer = config("client.id" => "shape").producer
    assert_match(/\Ashape#producer-\d+\z/, producer.name)
    assert_raises(TypeError) { producer.delivery_callback = "not callable" }
    seen = []
    producer.delivery_callback = ->(report, handle) { seen << [report, handle] }
    handle = producer.produce(topic: topic, payload: "v", partition: 0, headers: { "version" => %w[2.1.3 2.1.4] })
    handle.wait(max_wait_timeout_ms: 30_000)
    assert_same handle, seen.first[1]
    assert_equal 0, seen.first[0].offset
    only_report = []
    producer.delivery_callback = ->(report) { only_report << report }
    producer.produce(topic: topic, payload: "w", partition: 0).wait(max_wait_timeout_ms: 30_000)
    assert_equal 1, only_report.first.offset
    assert_raises(TypeError) { producer.produce(topic: topic, payload: "x", timestamp: "10101010") }
    exploding = Object.new
    def exploding.to_s = raise("boom")
    assert_raises(RuntimeError) { producer.produce(topic: topic, payload: "x", headers: { "k" => exploding }) }
    assert_empty Gregor::AbstractHandle::REGISTRY # nothing left registered by the failed produces
    producer.close
    assert_raises(Gregor::ClosedProducerError) { producer.queue_size }

    consumer = config("group.id" => unique("g")).consumer
    assert_match(/\Agregor#consumer-\d+\z/, consumer.name)
    consumer.assign(Gregor::Consumer::TopicPartitionList.new.tap do |l|
      l.add_topic_and_partitions_with_offsets(topic, 0 => 0)
    end)
    message = poll_until(consumer, 1).first
    assert_equal({ "version" => %w[2.1.3 2.1.4] }, message.headers)
    refute consumer.assignment_lost?
    refute_empty consumer.cluster_id
    assert_raises(NotImplementedError) { consumer.each_batch {} }
    assert_kind_of Enumerable, consumer
    consumer.close
    assert_raises(Gregor::ClosedConsumerError) { consumer.assignment_lost? }
  end

  def test_consumer_list_offsets_and_lag_in_one_query
    topic = create_topic(2)
    producer = config.producer
    2.times { producer.produce(topic: topic, payload: "a", partition: 0).wait(max_wait_timeout_ms: 30_000) }
    producer.produce(topic: topic, payload: "b", partition: 1).wait(max_wait_timeout_ms: 30_000)
    producer.close
    consumer = config("group.id" => unique("g")).consumer
    report = consumer.list_offsets(
      { topic => [{ partition: 0, offset: :earliest }, { partition: 0, offset: :latest },
                  { partition: 1, offset: :latest }] }
    ).wait(max_wait_timeout_ms: 30_000)
    assert_kind_of Gregor::Admin::ListOffsetsReport, report
    assert_equal [[0, 0], [0, 2], [1, 1]], report.offsets.map { |r| [r[:partition], r[:offset]] }
    assert_raises(ArgumentError) { consumer.list_offsets({ topic => [{ partition: 0, offset: :latest }] }, isolation_level: 0) }
    assert_raises(ArgumentError) { consumer.list_offsets({ topic => [{ partition: 0, offset: :nope }] }) }
    list = Gregor::Consumer::TopicPartitionList.new
    list.add_topic_and_partitions_with_offsets(topic, 0 => 1, 1 => 0)
    list.add_topic("no-offsets-#{topic}", 0..1)
    assert_equal({ topic => { 0 => 1, 1 => 1 }, "no-offsets-#{topic}" => {} }, consumer.lag(list, 30_000))
    consumer.close
    assert_raises(Gregor::ClosedConsumerError) { consumer.list_offsets({}) }
    assert_raises(Gregor::ClosedConsumerError) { consumer.lag(list) }
  end

  def test_read_uncommitted_consumer_lists_at_its_level
    consumer = config("group.id" => unique("g"), "isolation.level" => "read_uncommitted").consumer
    assert_raises(ArgumentError) { consumer.list_offsets({ "t" => [{ partition: 0, offset: :latest }] }, isolation_level: 1) }
    consumer.close
  end

  def test_describe_properties_is_the_dump_with_symbol_keys
    props = Gregor::Config.new("client.id" => "shape-client").describe_properties
    assert_equal "shape-client", props[:"client.id"]
    assert_equal Gregor::Config.new("client.id" => "shape-client").dump.size, props.size
  end

  def test_create_topic_bounds_and_defaults
    e = assert_raises(Gregor::Config::ConfigError) { @admin.create_topic(unique("t"), -999, 1) }
    assert_match(/num_partitions out of expected range/, e.message)
    e = assert_raises(Gregor::Config::ConfigError) { @admin.create_topic(unique("t"), 1, -2) }
    assert_match(/replication_factor out of expected range/, e.message)
    assert_equal 60_000, Gregor::Defaults::HANDLE_WAIT_TIMEOUT_MS
    assert_equal Gregor::Defaults::HANDLE_WAIT_TIMEOUT_MS, Gregor::AbstractHandle::DEFAULT_WAIT_TIMEOUT_MS
    assert_equal 2_000, Gregor::Defaults::CONSUMER_COMMITTED_TIMEOUT_MS
  end

  def test_seek_by_moves_the_position
    topic = create_topic(1)
    producer = config.producer
    3.times { |i| producer.produce(topic: topic, payload: "m#{i}", partition: 0).wait(max_wait_timeout_ms: 30_000) }
    producer.close
    consumer = config("group.id" => unique("g")).consumer
    consumer.assign(Gregor::Consumer::TopicPartitionList.new.tap do |l|
      l.add_topic_and_partitions_with_offsets(topic, 0 => 0)
    end)
    first = poll_until(consumer, 1).first
    assert_equal 0, first.offset
    consumer.seek_by(topic, 0, 2)
    assert_equal "m2", poll_until(consumer, 1).first.payload
    consumer.close
    assert_raises(Gregor::ClosedConsumerError) { consumer.seek_by(topic, 0, 0) }
  end

  def test_statistics_refresh_the_partitions_count_cache
    topic = create_topic(3)
    Gregor::Config.statistics_callback = ->(_stats) {}
    producer = config("statistics.interval.ms" => 100).producer
    producer.produce(topic: topic, payload: "x", partition: 0).wait(max_wait_timeout_ms: 30_000)
    deadline = Time.now + 10
    producer.poll(100) until Gregor::Producer.partitions_count_cache.to_h.key?(topic) || Time.now > deadline
    assert_equal 3, Gregor::Producer.partitions_count_cache.to_h.fetch(topic)[1]
    producer.close
  ensure
    Gregor::Config.statistics_callback = nil
  end

  # librdkafka (so rdkafka-ruby) and gregor are not fork-safe: a forked
  # child has none of the client's threads. There the inherited producer
  # reads as closed and its close and finalizer leave the parent's handle
  # alone; the parent's producer keeps working.
  def test_forked_child_treats_an_inherited_producer_as_closed
    topic = create_topic(1)
    producer = config.producer
    producer.produce(topic: topic, payload: "a", partition: 0).wait(max_wait_timeout_ms: 30_000)
    pid = fork do
      closed = producer.closed?
      producer.close
      refused = begin
        producer.produce(topic: topic, payload: "b")
        false
      rescue Gregor::ClosedProducerError
        true
      end
      exit(closed && producer.closed? && refused ? 0 : 1) # runs the finalizers
    end
    _, status = Process.wait2(pid)
    refute status.signaled?
    assert_equal 0, status.exitstatus
    refute producer.closed?
    assert_equal 1, producer.produce(topic: topic, payload: "c", partition: 0).wait(max_wait_timeout_ms: 30_000).offset
    producer.close
  end

  def test_topic_config_is_refused_and_start_is_accepted
    producer = config.producer(native_kafka_auto_start: false)
    assert_nil producer.start
    e = assert_raises(Gregor::Config::ConfigError) { producer.produce(topic: "t", payload: "", topic_config: { invalid: "x" }) }
    assert_match(/invalid/, e.message)
    e = assert_raises(Gregor::Config::ConfigError) { producer.produce(topic: "t", payload: "", topic_config: { acks: 1 }) }
    assert_match(/per-topic/, e.message)
    producer.close
    assert_raises(Gregor::ClosedProducerError) { producer.start }
    @admin.start
    consumer = config("group.id" => unique("g")).consumer
    consumer.start
    consumer.close
    assert_raises(Gregor::ClosedConsumerError) { consumer.start }
  end

  # rdkafka-ruby's producer polling thread: delivery callbacks come while
  # the application does not poll.
  def test_polling_thread_serves_delivery_callbacks
    topic = create_topic(1)
    producer = config.producer
    assert producer.polling_thread?
    reports = Queue.new
    producer.delivery_callback = ->(report) { reports << report }
    producer.produce(topic: topic, payload: "x", partition: 0, label: "l1")
    report = Timeout.timeout(30) { reports.pop }
    assert_equal "l1", report.label
    assert_equal 0, report.offset
    producer.close
    assert_raises(Gregor::ClosedProducerError) { producer.events_poll_nb_each { |_| } }
    # without it, reports wait for a poll
    producer = config.producer(run_polling_thread: false)
    refute producer.polling_thread?
    producer.delivery_callback = ->(report) { reports << report }
    handle = producer.produce(topic: topic, payload: "y", partition: 0)
    sleep 0.5
    assert reports.empty?
    counts = []
    deadline = Time.now + 30
    producer.events_poll_nb_each { |n| counts << n } while counts.empty? && Time.now < deadline
    assert_equal [1], counts
    assert_equal 1, reports.pop.offset
    refute handle.pending?
    producer.close
  end

  # A producer dropped without close: its finalizer stops the polling thread
  # and the thread frees the handle.
  def test_unclosed_producer_with_polling_thread_is_collected
    before = Thread.list.count { |t| t.name == "gregor-poll" }
    5.times { config.producer }
    GC.start
    deadline = Time.now + 20
    until Thread.list.count { |t| t.name == "gregor-poll" && t.alive? } <= before || Time.now > deadline
      GC.start
      sleep 0.1
    end
    assert_operator Thread.list.count { |t| t.name == "gregor-poll" && t.alive? }, :<=, before
  end

  # A member that stops polling past max.poll.interval.ms loses its
  # partitions (GREGOR_REBALANCE_LOST): assignment_lost? is true until the
  # group assigns it partitions again. About 8 s.
  def test_assignment_lost_after_max_poll_interval
    topic = create_topic(1)
    events = []
    listener = Object.new
    listener.define_singleton_method(:on_partitions_assigned) { |_l| events << :assigned }
    listener.define_singleton_method(:on_partitions_revoked) { |_l| events << :revoked }
    cfg = config("group.id" => unique("g"), "session.timeout.ms" => 6000, "max.poll.interval.ms" => 6000,
                 "heartbeat.interval.ms" => 1000)
    cfg.consumer_rebalance_listener = listener
    consumer = cfg.consumer
    consumer.subscribe(topic)
    deadline = Time.now + TIMEOUT
    consumer.poll(200) while consumer.assignment.empty? && Time.now < deadline
    refute_empty consumer.assignment
    refute consumer.assignment_lost?
    sleep 7 # no poll past max.poll.interval.ms
    errors = []
    lost = false
    deadline = Time.now + TIMEOUT
    until lost || Time.now > deadline
      begin
        consumer.poll(200)
      rescue Gregor::RdkafkaError => e
        errors << e.code
      end
      lost = consumer.assignment_lost?
    end
    assert lost
    assert_includes errors, :max_poll_exceeded
    deadline = Time.now + TIMEOUT
    while consumer.assignment_lost? && Time.now < deadline
      begin
        consumer.poll(200)
      rescue Gregor::RdkafkaError
        nil
      end
    end
    refute consumer.assignment_lost?
    assert_equal %i[assigned revoked assigned], events.first(3)
    consumer.close
  end

  def test_store_offset_with_metadata_then_commit
    topic = create_topic(1)
    producer = config.producer
    producer.produce(topic: topic, payload: "m", partition: 0).wait(max_wait_timeout_ms: 30_000)
    producer.close
    group = unique("g")
    consumer = config("group.id" => group, "enable.auto.offset.store" => false, "enable.auto.commit" => false).consumer
    consumer.assign(Gregor::Consumer::TopicPartitionList.new.tap do |l|
      l.add_topic_and_partitions_with_offsets(topic, 0 => 0)
    end)
    message = poll_until(consumer, 1).first
    consumer.store_offset(message, "meta-1")
    consumer.commit
    list = Gregor::Consumer::TopicPartitionList.new.tap { |l| l.add_topic(topic, [0]) }
    partition = consumer.committed(list, 30_000).to_h[topic].first
    assert_equal 1, partition.offset
    # the test broker (nisshi) keeps no commit metadata; a Kafka broker
    # gives it back (tests/group.rs checks the bytes sent)
    assert_includes [nil, "meta-1"], partition.metadata
    consumer.close
  end

  # rd_kafka_conf_set's texts for an unknown property and an empty value;
  # a client the library refuses to make is ClientCreationError (also a
  # ConfigError), with librdkafka's "<file property> failed: ..." text.
  def test_configuration_errors_read_as_librdkafkas
    e = assert_raises(Gregor::Config::ConfigError) { Gregor::Config.new("invalid.key" => "v").consumer }
    assert_equal 'No such configuration property: "invalid.key"', e.message
    e = assert_raises(Gregor::Config::ConfigError) { Gregor::Config.new("security.protocol" => nil).producer }
    assert_equal 'Configuration property "security.protocol" cannot be set to empty value', e.message
    e = assert_raises(Gregor::Config::ConfigError) { Gregor::Config.new("linger.ms" => "abc").producer }
    assert_includes e.message, "linger.ms" # gregor's own text otherwise
    refute_kind_of Gregor::Config::ClientCreationError, e
    bad_ca = { "bootstrap.servers" => BROKER, "security.protocol" => "SSL", "ssl.ca.location" => "/nonsense" }
    %i[producer consumer admin].each do |kind|
      e = assert_raises(Gregor::Config::ClientCreationError) { Gregor::Config.new(bad_ca).public_send(kind) }
      assert_match(/\Assl\.ca\.location failed: .*nonsense/, e.message)
      assert_kind_of Gregor::Config::ConfigError, e
    end
  end

  # The delivery callback's report carries the Integer code (0), as
  # rdkafka-ruby's; the handle's report an RdkafkaError or nil. flush is
  # false when time runs out.
  def test_delivery_callback_report_error_is_the_code_and_flush_times_out
    topic = create_topic(1)
    producer = config.producer
    reports = Queue.new
    producer.delivery_callback = ->(report) { reports << report }
    report = producer.produce(topic: topic, payload: "v", partition: 0).wait(max_wait_timeout_ms: 30_000)
    assert_nil report.error
    assert_equal 0, Timeout.timeout(30) { reports.pop }.error
    producer.close
    stuck = Gregor::Config.new("bootstrap.servers" => "127.0.0.1:1", "message.timeout.ms" => 5000).producer
    stuck.produce(topic: topic, payload: "v")
    assert_equal false, stuck.flush(100)
    stuck.purge
    assert_equal true, stuck.flush(100)
    stuck.close
  end

  # gregor's consumer serves its events in poll and its admin client queues
  # none: rdkafka-ruby's events polls serve nothing, wait their timeout, and
  # raise once closed.
  def test_events_polls_of_consumer_and_admin
    consumer = config("group.id" => "ruby-events-poll-#{Process.pid}").consumer
    assert_equal 0, consumer.events_poll_nb
    t0 = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    assert_equal 0, consumer.events_poll(200)
    assert_operator Process.clock_gettime(Process::CLOCK_MONOTONIC) - t0, :>=, 0.19
    yielded = []
    consumer.events_poll_nb_each { |n| yielded << n }
    assert_empty yielded
    waiter = Thread.new { consumer.events_poll(-1) }
    sleep 0.1
    consumer.close
    assert_equal 0, waiter.value # a wait without end returns at close
    assert_raises(Gregor::ClosedConsumerError) { consumer.events_poll_nb_each { |_| } }
    @admin.events_poll_nb_each { |n| yielded << n }
    assert_empty yielded
    admin = config.admin
    admin.close
    e = assert_raises(Gregor::ClosedAdminError) { admin.events_poll_nb_each { |_| } }
    assert_match(/events_poll_nb_each/, e.message)
    assert_equal 100, Gregor::Defaults::PRODUCER_PURGE_FLUSH_TIMEOUT_MS
  end

  # rdkafka-ruby's to_native_tpl/from_native_tpl round trip: a topic
  # without partitions, offsets nil or a Time; a bad offset frees the list.
  def test_native_tpl_round_trip
    l = Gregor::Consumer::TopicPartitionList
    [l.new.tap { |x| x.add_topic("t") }, l.new.tap { |x| x.add_topic("t", 0..16) },
     l.new.tap { |x| x.add_topic_and_partitions_with_offsets("t", 0 => 100, 1 => nil) }].each do |list|
      tpl = list.to_native_tpl
      assert_equal list, l.from_native_tpl(tpl)
      Gregor::Native.gregor_tpl_free(tpl)
    end
    at = Time.at(1_505_069_646, 250_000)
    tpl = l.new.tap { |x| x.add_topic_and_partitions_with_offsets("t", 0 => at) }.to_native_tpl
    assert_equal((at.to_f * 1000).floor, l.from_native_tpl(tpl).to_h["t"].first.offset)
    Gregor::Native.gregor_tpl_free(tpl)
    assert_raises(TypeError) { l.new.tap { |x| x.add_topic_and_partitions_with_offsets("t", 0 => "x") }.to_native_tpl }
  end

  # librdkafka refuses store_offset while enable.auto.offset.store is on
  # (its default).
  def test_store_offset_needs_auto_offset_store_off
    consumer = config("group.id" => unique("g")).consumer
    message = Struct.new(:topic, :partition, :offset).new("t", 0, 5)
    e = assert_raises(Gregor::RdkafkaError) { consumer.store_offset(message) }
    assert_equal :invalid_arg, e.code
    consumer.close
  end

  # A BROKER config resource is named by a broker id, checked before
  # sending, as librdkafka.
  def test_broker_config_resource_needs_a_broker_id
    e = assert_raises(Gregor::RdkafkaError) do
      @admin.describe_configs([{ resource_type: 4, resource_name: "non-existing" }]).wait(max_wait_timeout_ms: 30_000)
    end
    assert_equal :invalid_arg, e.code
    assert_match(/Expected an int32 broker_id/, e.broker_message)
  end
end
