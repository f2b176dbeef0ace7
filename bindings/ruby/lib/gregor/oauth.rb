# frozen_string_literal: true

module Gregor
  module Native
    # SASL/OAUTHBEARER (src/ffi/oauthbearer.rs, src/ffi/oauthbearer_cb.rs)
    callback :oauthbearer_token_refresh_cb, %i[pointer string pointer], :void
    bind :gregor_config_set_oauthbearer_token_refresh_cb, %i[pointer oauthbearer_token_refresh_cb pointer], :int
    %w[producer consumer admin].each do |role|
      bind :"gregor_#{role}_oauthbearer_set_token",
           %i[pointer string int64 string pointer size_t pointer size_t], :int
      bind :"gregor_#{role}_oauthbearer_set_token_failure", %i[pointer string], :int
    end
  end

  # rdkafka-ruby's Helpers::OAuth: `oauthbearer_set_token` and
  # `oauthbearer_set_token_failure` on producers, consumers and admin
  # clients, and `Config.oauthbearer_token_refresh_callback`, called as
  # `callback.call(oauthbearer_config, client_name)` when a token is needed
  # (at the start and 80 % through the token's lifetime) — inside poll for
  # producers (their polling thread) and consumers, on a gregor thread for
  # the admin client, as librdkafka runs it.
  module OAuth
    NAMES = {} # native handle address => client name (the callback's second argument)
    NAMES_LOCK = Mutex.new

    REFRESH = FFI::Function.new(:void, %i[pointer string pointer]) do |handle, config, _opaque|
      cb = Config.oauthbearer_token_refresh_callback
      name = NAMES_LOCK.synchronize { NAMES[handle.address] }
      cb&.call(config, name)
    rescue Exception => e # rubocop:disable Lint/RescueException
      # an exception must not unwind into C; the refresh is reported failed
      kind = NAMES_LOCK.synchronize { NAMES[[:kind, handle.address]] }
      Native.send(:"gregor_#{kind}_oauthbearer_set_token_failure", handle, "#{e.class}: #{e.message}") if kind
    end

    # Sets the refresh callback on a configuration being made (when one is set).
    def self.install(conf)
      return unless Config.oauthbearer_token_refresh_callback

      Native.gregor_config_set_oauthbearer_token_refresh_cb(conf, REFRESH, nil)
    end

    # Remembers which client a native handle is (the callback gets the handle).
    def self.register(native, kind, name)
      NAMES_LOCK.synchronize do
        NAMES[native.address] = name
        NAMES[[:kind, native.address]] = kind
      end
    end

    # Sets the SASL/OAUTHBEARER token (rdkafka-ruby's shape): `lifetime_ms`
    # is when it expires (ms since the epoch); `extensions` a Hash of
    # RFC 7628 key => value. Returns 0, or the error code after reporting
    # the failure with oauthbearer_set_token_failure, as rdkafka-ruby does.
    def oauthbearer_set_token(token:, lifetime_ms:, principal_name:, extensions: nil)
      flat = (extensions || {}).flat_map { |k, v| [k.to_s, v.to_s] }
      strs = flat.map { |s| FFI::MemoryPointer.from_string(s) }
      arr = FFI::MemoryPointer.new(:pointer, [strs.size, 1].max)
      arr.write_array_of_pointer(strs) unless strs.empty?
      buf = Native.errbuf
      rc = @native.use(:oauthbearer_set_token) do |native|
        Native.send(:"gregor_#{oauth_kind}_oauthbearer_set_token", native, token, lifetime_ms, principal_name,
                    arr, flat.size, buf, Native::ERRSTR_SIZE)
      end
      return rc if rc.zero?

      oauthbearer_set_token_failure("Failed to set token: #{buf.read_string}")
      rc
    end

    # Reports that no token could be had (librdkafka's
    # rd_kafka_oauthbearer_set_token_failure). Returns the code.
    def oauthbearer_set_token_failure(reason)
      @native.use(:oauthbearer_set_token_failure) do |native|
        Native.send(:"gregor_#{oauth_kind}_oauthbearer_set_token_failure", native, reason)
      end
    end

    private def oauth_kind
      case self
      when Producer then :producer
      when Consumer then :consumer
      else :admin
      end
    end
  end
end

module Gregor
  [Producer, Consumer, Admin].each { |klass| klass.include(OAuth) }
end
