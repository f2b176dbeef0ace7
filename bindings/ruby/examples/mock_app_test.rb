# frozen_string_literal: true

# An application test that needs no broker: the code under test
# (publish_orders) runs against gregor's in-process mock cluster, which the
# test also uses to inject failures.
#
#   GREGOR_LIBRARY=target/debug/libgregor.so ruby -Ibindings/ruby/lib bindings/ruby/examples/mock_app_test.rb
require "minitest/autorun"
require "gregor"

PRODUCE = 0
NOT_LEADER_OR_FOLLOWER = 6

# ---- the application code under test ----

# Publishes { id => body } keyed by id; returns the delivery reports.
def publish_orders(bootstrap, topic, orders)
  producer = Gregor::Config.new("bootstrap.servers" => bootstrap, "enable.idempotence" => true).producer
  handles = orders.map { |id, body| producer.produce(topic: topic, key: id, payload: body) }
  handles.map { |h| h.wait(max_wait_timeout: 10) }
ensure
  producer&.close
end

# ---- the tests ----

class OrdersTest < Minitest::Test
  def setup
    @cluster = Gregor::MockCluster.new(3)
    @cluster.create_topic("orders", partitions: 1, replication: 3)
  end

  def teardown
    @cluster.close
  end

  def read_all(n)
    consumer = Gregor::Config.new("bootstrap.servers" => @cluster.bootstraps, "group.id" => "app-test").consumer
    tpl = Gregor::Consumer::TopicPartitionList.new
    tpl.add_topic_and_partitions_with_offsets("orders", 0 => 0)
    consumer.assign(tpl)
    got = []
    100.times do
      break if got.size >= n

      m = consumer.poll(100)
      got << [m.key, m.payload] if m
    end
    consumer.close
    got
  end

  def test_orders_are_published_in_order
    reports = publish_orders(@cluster.bootstraps, "orders", "o-1" => "2 apples", "o-2" => "3 pears")
    assert_equal [0, 1], reports.map(&:offset)
    assert_equal 2, @cluster.high_watermark("orders", 0)
    assert_equal [["o-1", "2 apples"], ["o-2", "3 pears"]], read_all(2)
  end

  def test_orders_survive_leader_errors_and_a_leader_move
    @cluster.start_request_tracking
    @cluster.push_request_errors(PRODUCE, [NOT_LEADER_OR_FOLLOWER] * 2)
    publish_orders(@cluster.bootstraps, "orders", "o-1" => "x")
    @cluster.set_partition_leader("orders", 0, 2)
    @cluster.set_broker_rtt(2, 50)
    publish_orders(@cluster.bootstraps, "orders", "o-2" => "y")
    assert_equal [%w[o-1 x], %w[o-2 y]], read_all(2)
    produce_to = @cluster.requests.select { |r| r.api_key == PRODUCE }.map(&:broker_id)
    assert_operator produce_to.size, :>=, 4, produce_to.inspect
    assert_equal 2, produce_to.last
    # when each request came (microseconds since the cluster started), in order
    times = @cluster.requests.map(&:timestamp_us)
    assert_equal times.sort, times
    assert_operator times.first, :>, 0
  end

  def test_block_form_and_errors
    seen = nil
    Gregor::MockCluster.open(1) do |c|
      seen = c
      assert_match(/\A127\.0\.0\.1:\d+\z/, c.bootstraps)
      c.create_topic("t", partitions: 2)
      assert_raises(Gregor::RdkafkaError) { c.create_topic("t", partitions: 2) }
      assert_raises(Gregor::RdkafkaError) { c.broker_down(7) }
      c.set_partition_follower("t", 1, 1) # KIP-392, for consumers with a rack
      assert_raises(Gregor::RdkafkaError) { c.set_partition_follower("t", 5, 1) }
    end
    assert seen.closed?
    assert_raises(Gregor::RdkafkaError) { seen.create_topic("u") }
  end
end
