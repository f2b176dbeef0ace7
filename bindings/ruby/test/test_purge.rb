# frozen_string_literal: true

# Producer#purge as rdkafka-ruby's: queued messages dropped, their delivery
# handles complete with :purge_queue, the producer empty and usable after.

require "minitest/autorun"
require "securerandom"
require "gregor"

class PurgeTest < Minitest::Test
  BROKER = ENV.fetch("GREGOR_TEST_BROKER", "127.0.0.1:9092")

  def test_purge_completes_every_handle_with_purge_queue_and_the_producer_goes_on
    producer = Gregor::Config.new("bootstrap.servers" => BROKER, "linger.ms" => "60000").producer
    topic = "ruby-purge-#{Process.pid}-#{SecureRandom.hex(5)}"
    warm = producer.produce(topic: topic, payload: "first", key: "k")
    assert producer.flush(30_000)
    assert_nil warm.wait(max_wait_timeout: 30).error

    reports = []
    producer.delivery_callback = ->(report) { reports << report }
    handles = Array.new(50) { |i| producer.produce(topic: topic, payload: "v#{i}", key: "k#{i}", partition: 0) }
    assert_equal 50, producer.queue_size
    assert_equal true, producer.purge
    assert_equal 0, producer.queue_size
    assert_equal 50, reports.size
    handles.each do |h|
      err = assert_raises(Gregor::RdkafkaError) { h.wait(max_wait_timeout: 5) }
      assert_equal :purge_queue, err.code
    end
    # the callback's report carries the Integer code, as rdkafka-ruby's
    assert(reports.all? { |r| r.error == Gregor::Bindings::RD_KAFKA_RESP_ERR__PURGE_QUEUE })

    again = producer.produce(topic: topic, payload: "after", key: "k", partition: 0)
    assert producer.flush(30_000) # linger.ms is long: flush sends it now
    report = again.wait(max_wait_timeout: 30)
    assert_nil report.error
    assert_operator report.offset, :>=, 0
  ensure
    producer&.close
  end
end
