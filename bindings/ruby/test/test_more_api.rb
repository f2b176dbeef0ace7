# frozen_string_literal: true

# The admin and consumer calls added for rdkafka-ruby's shapes (against the
# broker at $GREGOR_TEST_BROKER): ruby -Ilib test/test_more_api.rb
require_relative "test_gregor"

class GregorMoreApiTest < GregorTest
  # only the tests below: GregorTest's run from test_gregor.rb
  def self.runnable_methods
    public_instance_methods(false).grep(/\Atest_/).map(&:to_s)
  end
  Minitest::Runnable.runnables.delete(GregorTest)

  def produce(topic, count, partition: 0)
    producer = config.producer
    handles = count.times.map { |i| producer.produce(topic: topic, payload: "m#{i}", partition: partition) }
    handles.each { |h| h.wait(max_wait_timeout: TIMEOUT) }
    producer.close
  end

  def tpl(topic, offsets)
    list = Gregor::Consumer::TopicPartitionList.new
    list.add_topic_and_partitions_with_offsets(topic, offsets)
    list
  end

  def test_admin_create_partitions
    topic = create_topic(1)
    handle = @admin.create_partitions(topic, 3)
    assert_kind_of Gregor::Admin::CreatePartitionsHandle, handle
    report = begin
      handle.wait(max_wait_timeout_ms: TIMEOUT * 1000)
    rescue Gregor::RdkafkaError => e
      # nisshi (the test broker) has no CreatePartitions: the error still
      # comes back through the handle
      skip "broker lacks CreatePartitions" if e.code == :unsupported_feature
      raise
    end
    assert_equal topic, report.result_name
    assert_nil report.error_string
    assert_equal 3, @admin.metadata(topic).topics.first[:partition_count]
    e = assert_raises(Gregor::RdkafkaError) { @admin.create_partitions(topic, 2).wait(max_wait_timeout: TIMEOUT) }
    assert_equal :invalid_partitions, e.code
  end

  def test_admin_delete_group
    topic = create_topic(1)
    produce(topic, 1)
    group = unique("g")
    consumer = config("group.id" => group).consumer
    consumer.commit(tpl(topic, 0 => 1))
    consumer.close
    handle = @admin.delete_group(group)
    assert_kind_of Gregor::Admin::DeleteGroupsHandle, handle
    report = handle.wait(max_wait_timeout_ms: TIMEOUT * 1000)
    assert_equal group, report.result_name
    assert_nil report.error_string
    # the group's committed offsets went with it
    consumer = config("group.id" => group).consumer
    assert_equal(-1001, consumer.committed(tpl(topic, 0 => nil)).to_h[topic].first.offset)
    consumer.close
    @admin.close
    assert_raises(Gregor::ClosedAdminError) { @admin.delete_group(group) }
    @admin = config.admin
  end

  def test_admin_list_offsets
    topic = create_topic(2)
    produce(topic, 3)
    latest = @admin.list_offsets({ topic => [{ partition: 0, offset: :latest }, { partition: 1, offset: :latest }] })
    assert_kind_of Gregor::Admin::ListOffsetsHandle, latest
    got = latest.wait(max_wait_timeout_ms: 60_000).offsets.map { |o| [o[:topic], o[:partition], o[:offset]] }.sort
    assert_equal [[topic, 0, 3], [topic, 1, 0]], got
    earliest = @admin.list_offsets({ topic => [{ partition: 0, offset: :earliest }] }).wait(max_wait_timeout_ms: 60_000)
    assert_equal [0], earliest.offsets.map { |o| o[:offset] }
    assert_raises(ArgumentError) { @admin.list_offsets({ topic => [{ partition: 0, offset: :nope }] }) }
  end

  def test_admin_describe_and_incremental_alter_configs
    topic = unique("cfg")
    @admin.create_topic(topic, 1, 1, "retention.ms" => "60000").wait(max_wait_timeout: TIMEOUT)
    @created << topic
    report = @admin.describe_configs([{ resource_type: 2, resource_name: topic }]).wait(max_wait_timeout_ms: 60_000)
    res = report.resources.first
    assert_equal [topic, 2], [res.name, res.type]
    assert_includes res.configs.map(&:name), "retention.ms"
    altered = @admin.incremental_alter_configs(
      [{ resource_type: 2, resource_name: topic, configs: [{ name: "retention.ms", op_type: 0, value: "86400000" }] }]
    ).wait(max_wait_timeout_ms: 60_000)
    assert_equal topic, altered.resources.first.name
    deadline = Time.now + TIMEOUT
    value = nil
    while Time.now < deadline
      cfgs = @admin.describe_configs([{ resource_type: 2, resource_name: topic }]).wait.resources.first.configs
      value = cfgs.find { |c| c.name == "retention.ms" }.value
      break if value == "86400000"

      sleep 0.2
    end
    assert_equal "86400000", value
    assert_raises(KeyError) { @admin.describe_configs([{ resource_type: 2 }]) }
  end

  def test_consumer_pause_resume_member_id_lag
    topic = create_topic(1)
    produce(topic, 4)
    group = unique("g")
    consumer = config("group.id" => group, "auto.offset.reset" => "earliest", "enable.auto.commit" => false).consumer
    assert_nil consumer.member_id
    assert consumer.subscription.empty?
    consumer.subscribe(topic)
    assert_equal({ topic => nil }, consumer.subscription.to_h)
    first = poll_until(consumer, 1)
    assert_equal 1, first.size
    refute_nil consumer.member_id
    list = tpl(topic, 0 => nil)
    consumer.pause(list)
    rest = []
    5.times do
      m = consumer.poll(200)
      rest << m if m
    end
    consumer.resume(list)
    rest.concat(poll_until(consumer, 3 - rest.size))
    assert_equal 4, first.size + rest.size
    consumer.commit(tpl(topic, 0 => 1))
    assert_equal({ topic => { 0 => 3 } }, consumer.lag(consumer.committed(tpl(topic, 0 => nil))))
    e = assert_raises(Gregor::RdkafkaTopicPartitionListError) { consumer.pause(tpl("not-assigned-#{topic}", 0 => nil)) }
    refute_nil e
    assert_raises(TypeError) { consumer.pause(true) }
    consumer.close
    assert_raises(Gregor::ClosedConsumerError) { consumer.member_id }
  end

  def test_consumer_offsets_for_times_and_poll_batch
    topic = create_topic(1)
    before = (Time.now.to_f * 1000).to_i - 1000
    produce(topic, 3)
    consumer = config("group.id" => unique("g")).consumer
    found = consumer.offsets_for_times(tpl(topic, 0 => before))
    assert_equal [[0, 0]], found.to_h[topic].map { |p| [p.partition, p.offset] }
    later = consumer.offsets_for_times(tpl(topic, 0 => Time.now + 3600))
    assert_equal(-1, later.to_h[topic].first.offset)
    assert_raises(TypeError) { consumer.offsets_for_times([]) }
    consumer.assign(tpl(topic, 0 => 0))
    batch = []
    deadline = Time.now + TIMEOUT
    batch.concat(consumer.poll_batch(500, max_items: 2)) while batch.size < 3 && Time.now < deadline
    assert_equal %w[m0 m1 m2], batch.map(&:payload)
    assert_equal [], consumer.poll_batch_nb(max_items: 10)
    consumer.close
    assert_raises(Gregor::ClosedConsumerError) { consumer.poll_batch(10) }
    assert_raises(Gregor::ClosedConsumerError) { consumer.poll_batch_nb }
  end

  # close waits for the new blocking calls in flight (NativeHandle#use)
  def test_close_under_new_calls_in_flight
    topic = create_topic(1)
    admin = config.admin
    handles = 5.times.flat_map do
      [admin.list_offsets({ topic => [{ partition: 0, offset: :latest }] }),
       admin.describe_configs([{ resource_type: 2, resource_name: topic }])]
    end
    admin.close
    handles.each do |h|
      h.wait(max_wait_timeout_ms: TIMEOUT * 1000)
    rescue Gregor::RdkafkaError => e
      assert_includes %i[_destroy destroy], e.code
    end
    consumer = config("group.id" => unique("g")).consumer
    threads = 4.times.map do
      Thread.new do
        consumer.offsets_for_times(tpl(topic, 0 => 0))
      rescue Gregor::ClosedConsumerError, Gregor::RdkafkaError
        nil
      end
    end
    consumer.close
    threads.each { |t| assert t.join(TIMEOUT) }
  end
end
