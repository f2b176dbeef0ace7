# frozen_string_literal: true

require "fcntl"

module Gregor
  # Event-loop integration (librdkafka's rd_kafka_queue_io_event_enable and
  # rd_kafka_queue_yield), the consumer's rebalance protocol, its
  # non-blocking close, and its group metadata (KIP-447).
  #
  #   io = consumer.event_io          # an IO readable when poll has something
  #   IO.select([io]); io.read_nonblock(64); consumer.poll(0)
  #   consumer.yield_now              # a poll blocked on another thread returns nil
  #
  # With fibers (a Fiber scheduler), `io.wait_readable` suspends only the
  # fiber; poll once per wakeup (gregor writes again when a poll left
  # something queued, so no poll finds nothing and nothing is missed).
  module Native
    bind :gregor_producer_io_event_enable, [:pointer, :int, :pointer, :size_t], :int
    bind :gregor_producer_yield, [:pointer], :void
    bind :gregor_consumer_io_event_enable, [:pointer, :int, :pointer, :size_t], :int
    bind :gregor_consumer_yield, [:pointer], :void
    bind :gregor_consumer_rebalance_protocol, [:pointer], :string
    bind :gregor_consumer_assignment_lost, [:pointer], :int
    bind :gregor_consumer_close_start, [:pointer], :int
    bind :gregor_consumer_closed, [:pointer], :int
    bind :gregor_consumer_group_metadata, [:pointer], :pointer
    bind :gregor_group_metadata_new, [:string], :pointer
    bind :gregor_group_metadata_group_id, [:pointer], :string
    bind :gregor_group_metadata_generation_id, [:pointer], :int32
    bind :gregor_group_metadata_member_id, [:pointer], :string
    bind :gregor_group_metadata_group_instance_id, [:pointer], :string
    bind :gregor_group_metadata_free, [:pointer], :void
  end

  # The wakeup pipe of one handle: gregor writes a byte to its write end.
  class EventPipe
    attr_reader :reader

    def initialize
      @reader, @writer = IO.pipe
      @reader.binmode
      @writer.binmode
      # a full pipe already holds a wakeup: gregor's write must not block
      @writer.fcntl(Fcntl::F_SETFL, @writer.fcntl(Fcntl::F_GETFL) | Fcntl::O_NONBLOCK)
    end

    def fileno
      @writer.fileno
    end

    # Reads what is pending without blocking; the number of wakeups.
    def drain
      @reader.read_nonblock(4096).bytesize
    rescue IO::WaitReadable, EOFError
      0
    end

    def close
      @reader.close unless @reader.closed?
      @writer.close unless @writer.closed?
    end
  end

  # Shared by Producer and Consumer: `prefix` is :producer or :consumer.
  module EventLoop
    PAYLOAD = FFI::MemoryPointer.from_string("!") # 1 byte (and a NUL)

    # An IO readable whenever the handle's queue (delivery reports and
    # events; messages, rebalances and events) has something for poll.
    # Drain it (#drain_event_io) and poll once per wakeup.
    def event_io
      @event_pipe ||= begin
        pipe = EventPipe.new
        rc = @native.use(:event_io) do |native|
          Native.send(:"gregor_#{event_prefix}_io_event_enable", native, pipe.fileno, PAYLOAD, 1)
        end
        unless rc.zero?
          pipe.close
          raise RdkafkaError.new(rc, broker_message: "io_event_enable failed")
        end
        pipe
      end
      @event_pipe.reader
    end

    # rdkafka-ruby's enable_queue_io_events (librdkafka's
    # rd_kafka_queue_io_event_enable on the client's queue): writes
    # `payload` to the application's `fd` whenever the queue poll serves
    # goes from empty to non-empty (gregor_*_io_event_enable); an event
    # loop or fiber scheduler waits on the fd's read end and then polls.
    # ClosedInnerError on a closed client, as rdkafka-ruby.
    def enable_queue_io_events(fd, payload = "\x01")
      raise ClosedInnerError if closed?

      bytes = payload.to_s.b
      raise ArgumentError, "payload must be 1 to 1024 bytes" unless (1..1024).cover?(bytes.bytesize)

      buf = FFI::MemoryPointer.new(:uint8, bytes.bytesize)
      buf.put_bytes(0, bytes)
      rc = begin
        @native.use(:enable_queue_io_events) do |native|
          Native.send(:"gregor_#{event_prefix}_io_event_enable", native, Integer(fd), buf, bytes.bytesize)
        end
      rescue ClosedClientError
        raise ClosedInnerError
      end
      raise RdkafkaError.new(rc, broker_message: "io_event_enable failed") unless rc.zero?

      nil
    end

    # Reads the pending wakeups of #event_io without blocking; their count
    # of bytes (0 if none).
    def drain_event_io
      @event_pipe ? @event_pipe.drain : 0
    end

    # Stops the wakeups and closes #event_io.
    def disable_event_io
      return unless @event_pipe

      @native.use(:disable_event_io) do |native|
        Native.send(:"gregor_#{event_prefix}_io_event_enable", native, -1, nil, 0)
      end
      @event_pipe.close
      @event_pipe = nil
    end

    # Makes a poll (or flush) blocked on another thread return now, as if
    # its timeout ran out; with none blocked, the next one that would wait
    # returns at once (librdkafka's rd_kafka_queue_yield).
    def yield_now
      # seen by a wait between its slices (Gregor::Sliced), set before the
      # wakeup so the slice it ends sees it
      @yielded = true
      @native.use(:yield_now) { |native| Native.send(:"gregor_#{event_prefix}_yield", native) }
      nil
    end

    private

    # Whether a yield came since the last look (and forgets it): a sliced
    # wait ends at it, as the one long wait it stands for would have.
    def take_yield
      return false unless @yielded

      @yielded = false
      true
    end

    public
  end

  class Producer
    include EventLoop

    private

    def event_prefix
      :producer
    end
  end

  # A consumer's group membership (KIP-447): what the producer's
  # send_offsets_to_transaction needs to have zombie members fenced.
  class ConsumerGroupMetadata
    attr_reader :group_id, :generation_id, :member_id, :group_instance_id

    def initialize(group_id, generation_id = -1, member_id = "", group_instance_id = nil)
      @group_id = group_id
      @generation_id = generation_id
      @member_id = member_id
      @group_instance_id = group_instance_id
    end

    def self.from_native(ptr)
      new(Native.gregor_group_metadata_group_id(ptr), Native.gregor_group_metadata_generation_id(ptr),
          Native.gregor_group_metadata_member_id(ptr), Native.gregor_group_metadata_group_instance_id(ptr))
    ensure
      Native.gregor_group_metadata_free(ptr)
    end

    def to_h
      { group_id: group_id, generation_id: generation_id, member_id: member_id, group_instance_id: group_instance_id }
    end
  end

  class Consumer
    include EventLoop

    # "EAGER" or "COOPERATIVE" once in a group, else "NONE"
    # (rd_kafka_rebalance_protocol).
    def rebalance_protocol
      native_call(:rebalance_protocol) { |native| Native.gregor_consumer_rebalance_protocol(native) }
    end

    # The group metadata now (group id, generation, member id, instance
    # id); nil without group.id.
    def consumer_group_metadata
      ptr = native_call(:consumer_group_metadata) { |native| Native.gregor_consumer_group_metadata(native) }
      ptr.null? ? nil : ConsumerGroupMetadata.from_native(ptr)
    end

    # Starts closing without blocking (rd_kafka_consumer_close_queue): keep
    # calling #poll (a revocation is served there, the rebalance listener
    # runs on the polling thread) until #close_done? is true; polls raise
    # the `state` error once the consumer stopped. #close afterwards frees it.
    def close_start
      rc = native_call(:close_start) { |native| Native.gregor_consumer_close_start(native) }
      raise RdkafkaError.new(rc, broker_message: "close_start") unless rc.zero?

      nil
    end

    # True once a close begun by #close_start ended (rd_kafka_consumer_closed).
    def close_done?
      return true if closed?

      native_call(:close_done?) { |native| Native.gregor_consumer_closed(native) } == 1
    end

    private

    def event_prefix
      :consumer
    end
  end
end
