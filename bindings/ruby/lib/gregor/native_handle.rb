# frozen_string_literal: true

module Gregor
  # Owns one native client handle (gregor_producer/consumer/admin) for a Ruby
  # object, and makes closing it safe while other Ruby threads are inside
  # calls on it (without it, Admin#close could free the handle under a
  # thread still in gregor_admin_create_topics).
  #
  # - Every native call goes through #use: it counts the call in flight (or
  #   raises the client's Closed*Error once #close has begun) and yields the
  #   pointer.
  # - #close marks the handle closed (no new call starts), runs the client's
  #   close (gregor_*_close: calls blocked in C return promptly), waits for
  #   the calls in flight to leave, and only then frees the handle — so no
  #   Ruby thread ever holds the address of a freed handle, and a new handle
  #   given the same address can never get a stale call.
  # - #close from inside a call on the same handle (a delivery or rebalance
  #   callback closing its own client) cannot wait for itself: the last call
  #   to leave closes and frees it.
  # - A finalizer frees the handle if the owner is garbage collected without
  #   #close (no call can be in flight then: each holds the owner).
  #
  # - Across fork the handle stays the parent's: the child has none of the
  #   library's threads, so there the handle reports closed, calls raise the
  #   closed error, and #close and the finalizer leave it alone (as
  #   rdkafka-ruby does for librdkafka, which is not fork-safe either).
  #
  # The C library's own contract (gregor.h preamble) makes a free under a
  # call memory-safe as well; this keeps the binding clear of the one case
  # it does not cover (address reuse) and makes `close` wait for its calls.
  class NativeHandle
    # `closer`: a lambda(ptr) that wakes blocked calls without freeing;
    # `freer`: a lambda(ptr) that frees; `error`: the Closed*Error class.
    def initialize(owner, ptr, closer:, freer:, error:)
      @ptr = ptr
      @closer = closer
      @freer = freer
      @error = error
      @lock = Mutex.new
      @drained = ConditionVariable.new
      @users = Hash.new(0) # thread => calls it has in flight
      @inflight = 0
      @state = :open # :open, :closing, :closed
      @cell = [ptr] # what the finalizer frees (emptied by #close)
      @pid = Process.pid
      @shared = { poller: nil, finalize: false } # with the polling thread
      ObjectSpace.define_finalizer(owner, self.class.finalizer(@cell, freer, @pid, @shared, closer))
    end

    # The finalizer: must not reference the owner.
    # With a polling thread alive it only asks the thread to stop (and wakes
    # its poll): the thread frees once out of its call.
    def self.finalizer(cell, freer, pid, shared, closer)
      proc do
        next unless Process.pid == pid # a forked child's copy: the parent's

        if shared[:poller]&.alive?
          shared[:finalize] = true
          ptr = cell.first
          closer&.call(ptr) if ptr
        else
          ptr = cell.pop
          freer.call(ptr) if ptr
        end
      end
    end

    # Starts a thread that calls `poll.call(ptr, timeout_ms)` (a counted
    # call, see #use) over and over until the handle is closed, so
    # callbacks run without the application polling (rdkafka-ruby's
    # polling thread). `poll` must not hold the owner, and the thread holds
    # only this NativeHandle and `keep` (the callbacks the C side calls):
    # an owner dropped without #close is still garbage collected, and its
    # finalizer has the thread free the handle once out of its poll.
    def start_polling(poll, timeout_ms, keep)
      @shared[:poller] = self.class.poller(self, @cell, @freer, @shared, poll, timeout_ms, keep)
    end

    def polling?
      !@shared[:poller].nil?
    end

    # Waits for the polling thread to end after #close (not from itself).
    def join_poller
      t = @shared[:poller]
      t.join if t && t != Thread.current && !inherited?
    end

    def self.poller(handle, cell, freer, shared, poll, timeout_ms, keep)
      thread = Thread.new do
        _ = keep
        loop do
          if shared[:finalize]
            ptr = cell.pop
            freer.call(ptr) if ptr
            break
          end
          handle.use(:poll) { |ptr| poll.call(ptr, timeout_ms) }
        rescue ClosedClientError
          break
        rescue StandardError => e
          warn "gregor: polling thread: #{e.class}: #{e.message}"
          sleep(timeout_ms / 1000.0) # backoff before the next poll
        end
      end
      thread.report_on_exception = false
      thread.name = "gregor-poll"
      thread
    end

    def closed?
      @state != :open || inherited?
    end

    # True in a process forked after the handle was made.
    def inherited?
      Process.pid != @pid
    end

    # Yields the pointer with this call counted in flight; raises the
    # client's closed error (naming `method`) once closing has begun.
    def use(method)
      raise @error.new(method) if inherited?

      @lock.synchronize do
        raise @error.new(method) unless @state == :open

        @inflight += 1
        @users[Thread.current] += 1
      end
      begin
        yield @ptr
      ensure
        leave
      end
    end

    # Closes and frees the handle (see the class comment); idempotent, and a
    # second caller waits for the first to finish. `before_close`, if given,
    # runs first with the pointer while no new call can start (a producer
    # flushes there).
    def close(before_close = nil)
      return if inherited?

      ptr = nil
      @lock.synchronize do
        if @state != :open
          # another thread is closing: wait for it (unless we are inside a
          # call, which it waits for in turn)
          @drained.wait(@lock) while @state != :closed && @users[Thread.current].zero?
          return
        end
        @state = :closing
        ptr = @ptr
        if @users[Thread.current].positive?
          @deferred = true # the last call to leave finishes (see #leave)
          return
        end
      end
      before_close&.call(ptr)
      @closer&.call(ptr)
      @lock.synchronize { @drained.wait(@lock) while @inflight.positive? }
      finish(ptr)
    end

    private

    def leave
      deferred = false
      @lock.synchronize do
        @inflight -= 1
        n = @users[Thread.current] -= 1
        @users.delete(Thread.current) if n.zero?
        if @inflight.zero?
          deferred = @deferred
          @deferred = false
          @drained.broadcast
        end
      end
      return unless deferred

      @closer&.call(@ptr)
      finish(@ptr)
    end

    def finish(ptr)
      @cell.clear
      @freer.call(ptr)
      @lock.synchronize do
        @state = :closed
        @drained.broadcast
      end
    end
  end
end
