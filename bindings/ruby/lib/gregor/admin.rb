# frozen_string_literal: true

module Gregor
  # An admin client (rdkafka-ruby's shape): requests return handles whose
  # `wait` gives the report. Each request runs its blocking C call (which
  # releases the VM lock) on its own thread.
  class Admin
    CreateTopicReport = Struct.new(:error_string, :result_name)
    DeleteTopicReport = Struct.new(:error_string, :result_name)

    # A request in flight.
    class Handle
      def initialize(&work)
        @thread = Thread.new(&work)
        @thread.report_on_exception = false
      end

      def pending?
        @thread.alive?
      end

      # Waits up to `max_wait_timeout` seconds; raises the request's
      # RdkafkaError (unless raise_response_error is false) or
      # WaitTimeoutError.
      def wait(max_wait_timeout: 60, raise_response_error: true)
        unless @thread.join(max_wait_timeout)
          raise Producer::WaitTimeoutError, "Waiting for the admin request timed out after #{max_wait_timeout} seconds"
        end

        report, error = @thread.value
        raise error if error && raise_response_error

        report
      end
    end

    CLOSE = ->(ptr) { Native.gregor_admin_close(ptr) }
    FREE = ->(ptr) { Native.gregor_admin_free(ptr) }

    def initialize(native_config)
      buf = Native.errbuf
      native = Native.gregor_admin_new(native_config, buf, Native::ERRSTR_SIZE)
      Native.gregor_config_free(native_config)
      raise Config::ConfigError, buf.read_string if native.null?

      @native = NativeHandle.new(self, native, closer: CLOSE, freer: FREE, error: ClosedAdminError)
    end

    # Creates a topic; `topic_config` is a Hash of topic configs.
    def create_topic(topic_name, partition_count, replication_factor, topic_config = {})
      ensure_open(:create_topic)
      nt = Native.gregor_new_topic_new(topic_name.to_s, partition_count, replication_factor)
      raise ArgumentError, "invalid topic name #{topic_name.inspect}" if nt.null?

      topic_config.each do |k, v|
        buf = Native.errbuf
        rc = Native.gregor_new_topic_set_config(nt, k.to_s, v.to_s, buf, Native::ERRSTR_SIZE)
        unless rc.zero?
          Native.gregor_new_topic_free(nt)
          Native.check!(rc, buf)
        end
      end
      arr = FFI::MemoryPointer.new(:pointer, 1)
      arr.put_pointer(0, nt)
      Handle.new do
        topic_call(:gregor_admin_create_topics, arr, CreateTopicReport, topic_name)
      ensure
        Native.gregor_new_topic_free(nt)
      end
    end

    def delete_topic(topic_name)
      ensure_open(:delete_topic)
      arr, keep = Native.cstr_array([topic_name.to_s])
      Handle.new do
        keep # referenced until the call is done
        topic_call(:gregor_admin_delete_topics, arr, DeleteTopicReport, topic_name)
      end
    end

    def closed?
      @native.closed?
    end

    # Frees the admin client. Requests in flight on their threads return
    # first (with an error); later calls raise ClosedAdminError.
    def close
      @native.close
    end

    private

    def ensure_open(method)
      raise ClosedAdminError, method if closed?
    end

    # Returns [report, error or nil].
    def topic_call(fn, arr, report_class, topic_name)
      out = FFI::MemoryPointer.new(:pointer)
      buf = Native.errbuf
      rc = begin
        @native.use(fn) { |native| Native.public_send(fn, native, arr, 1, nil, out, buf, Native::ERRSTR_SIZE) }
      rescue ClosedAdminError => e
        return [nil, e]
      end
      return [nil, RdkafkaError.new(rc, buf.read_string)] unless rc.zero?

      res = out.read_pointer
      begin
        err = Native.gregor_topic_results_err(res, 0)
        text = Native.gregor_topic_results_errstr(res, 0)
        report = report_class.new(err.zero? ? nil : text, Native.gregor_topic_results_name(res, 0) || topic_name)
        [report, err.zero? ? nil : RdkafkaError.new(err, text, "Error in #{fn.to_s.sub('gregor_admin_', '')}")]
      ensure
        Native.gregor_topic_results_free(res)
      end
    end
  end
end
