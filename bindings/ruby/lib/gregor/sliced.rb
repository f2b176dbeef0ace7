# frozen_string_literal: true

module Gregor
  # A long blocking call made as a row of short ones, so that Ctrl-C (and
  # Thread#raise or #kill) reaches a thread waiting in C within a slice:
  # Ruby runs a signal's handler only when the thread comes back from C, and
  # ffi has no way to wake a thread blocked there. Python's binding checks
  # for signals the same way between its waits.
  module Sliced
    SLICE_MS = 100

    # Yields each slice's timeout in ms until `done.call(result)` is true or
    # `timeout_ms` has passed (negative: no limit); returns the last result.
    def self.call(timeout_ms, done)
      deadline = timeout_ms.negative? ? nil : now_ms + timeout_ms
      loop do
        slice = deadline ? (deadline - now_ms).clamp(0, SLICE_MS) : SLICE_MS
        result = yield slice
        return result if done.call(result) || (deadline && now_ms >= deadline)
      end
    end

    def self.now_ms
      Process.clock_gettime(Process::CLOCK_MONOTONIC, :millisecond)
    end
  end
end
