# frozen_string_literal: true

module Gregor
  # The base of the handles an asynchronous call returns (rdkafka-ruby's
  # AbstractHandle shape): fields read and written with `handle[:pending]`,
  # `handle[:response]` (0 or the error code) and the others a subclass
  # names; `wait(max_wait_timeout_ms:)` blocks until the call is done and
  # returns its report (or raises its error). rdkafka-ruby's handles are
  # FFI structs filled by librdkafka's background thread; gregor's are plain
  # objects completed by the thread that ran the call (admin) or by the
  # delivery callback (producer).
  class AbstractHandle
    # Handles not completed yet, by object id (rdkafka-ruby keeps its
    # in-flight handles here; so does gregor, for the same leak checks).
    REGISTRY = {}
    REGISTRY_MUTEX = Mutex.new
    private_constant :REGISTRY_MUTEX

    # How long `wait` waits without a timeout given, in ms.
    DEFAULT_WAIT_TIMEOUT_MS = Defaults::HANDLE_WAIT_TIMEOUT_MS

    # Raised by `wait` when the call is still pending at the timeout.
    class WaitTimeoutError < RuntimeError; end

    class << self
      # rdkafka-ruby's handles are FFI structs declared with `layout
      # :pending, :bool, :response, :int, …`; gregor's keep their fields in
      # a Hash, so a layout only names them.
      def layout(*fields)
        @layout = fields.each_slice(2).map(&:first)
      end

      def register(handle)
        REGISTRY_MUTEX.synchronize { REGISTRY[handle.to_ptr.address] = handle }
      end

      # Takes the handle (or its `to_ptr.address`) out; returns it.
      def remove(handle_or_address)
        address = handle_or_address.is_a?(AbstractHandle) ? handle_or_address.to_ptr.address : handle_or_address
        REGISTRY_MUTEX.synchronize { REGISTRY.delete(address) }
      end
    end

    # The report, once prepared (or an exception to raise from `wait`).
    attr_accessor :result
    # The broker's (or library's) text for a failed call.
    attr_accessor :broker_message

    def initialize
      @fields = { pending: false, response: 0 }
      @mutex = Mutex.new
      @done = ConditionVariable.new
    end

    def [](name)
      @fields[name]
    end

    def []=(name, value)
      @fields[name] = value
    end

    def pending?
      self[:pending] ? true : false
    end

    # A stand-in for rdkafka-ruby's struct pointer: its address identifies
    # the handle (in REGISTRY); it points at nothing.
    def to_ptr
      @to_ptr ||= FFI::Pointer.new(object_id)
    end

    # Waits up to `max_wait_timeout_ms` (nil: forever; the deprecated
    # `max_wait_timeout` is in seconds) for the call to be done. Returns the
    # report; raises its RdkafkaError (unless `raise_response_error` is
    # false) or WaitTimeoutError.
    def wait(max_wait_timeout: :not_provided, max_wait_timeout_ms: :not_provided, raise_response_error: true)
      timeout_ms =
        if max_wait_timeout_ms != :not_provided then max_wait_timeout_ms
        elsif max_wait_timeout != :not_provided then max_wait_timeout && (max_wait_timeout * 1000).to_i
        else DEFAULT_WAIT_TIMEOUT_MS
        end
      deadline = timeout_ms && now + timeout_ms / 1000.0
      loop do
        unless pending?
          return raise_error if self[:response] != 0 && raise_response_error

          return create_result
        end
        left = deadline && deadline - now
        raise self.class::WaitTimeoutError, "Waiting for #{operation_name} timed out after #{timeout_ms} ms" if left && left <= 0

        wait_step(left)
      end
    end

    # Marks the call done and wakes the waiters.
    def unlock
      @mutex.synchronize do
        self[:pending] = false
        @done.broadcast
      end
      self.class.remove(self)
    end

    def operation_name
      raise "Must be implemented by subclass!"
    end

    def create_result
      raise "Must be implemented by subclass!"
    end

    # The report a call left in `result` (re-raising an exception there).
    def prepared_result
      raise(result) if result.is_a?(Exception)

      result
    end

    def raise_error
      raise RdkafkaError.new(self[:response], broker_message: broker_message)
    end

    private

    # Waits for `unlock` up to `left` seconds (nil: a while).
    def wait_step(left)
      @mutex.synchronize { @done.wait(@mutex, left ? [left, 1.0].min : 1.0) if pending? }
    end

    def now
      Process.clock_gettime(Process::CLOCK_MONOTONIC)
    end
  end
end
