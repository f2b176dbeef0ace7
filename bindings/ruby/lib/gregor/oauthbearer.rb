# frozen_string_literal: true

module Gregor
  # SASL/OAUTHBEARER in rdkafka-ruby's shape: `Config.oauthbearer_token_refresh_callback
  # = ->(oauthbearer_config, client_name) { ... }` is called when a client
  # needs a token (at the start, then 80 % through each token's lifetime);
  # it answers with `client.oauthbearer_set_token(token:, lifetime_ms:,
  # principal_name:, extensions:)` or `client.oauthbearer_set_token_failure(reason)`
  # on the client named `client_name` (Producer, Consumer or Admin#name).
  module Native
    callback :oauthbearer_token_refresh_cb, %i[pointer string pointer], :void
    bind :gregor_config_set_oauthbearer_token_refresh_cb, %i[pointer oauthbearer_token_refresh_cb pointer], :int
    %i[producer consumer admin].each do |kind|
      bind :"gregor_#{kind}_oauthbearer_set_token",
           %i[pointer string int64 string pointer size_t pointer size_t], :int
      bind :"gregor_#{kind}_oauthbearer_set_token_failure", %i[pointer string], :int
    end
  end

  module OAuthBearer
    @names = {}
    @next_id = 0
    @lock = Mutex.new

    class << self
      # The id the C side hands back as the callback's opaque for the client
      # called `name` (an id, not a Ruby object, so nothing the garbage
      # collector moves or frees is ever behind the pointer).
      def register(name)
        @lock.synchronize do
          @next_id += 1
          @names[@next_id] = name
          @next_id
        end
      end

      def unregister(id)
        @lock.synchronize { @names.delete(id) } if id
      end

      def name_of(id)
        @lock.synchronize { @names[id] }
      end

      # Installs the process-wide callback on `conf` for the client `name`
      # when Config.oauthbearer_token_refresh_callback is set (as
      # rdkafka-ruby, which sets librdkafka's refresh callback then only);
      # returns the registry id (nil when none was installed).
      def install(conf, name)
        return nil unless Config.oauthbearer_token_refresh_callback

        id = register(name)
        Native.gregor_config_set_oauthbearer_token_refresh_cb(conf, Bindings::OAuthbearerTokenRefreshCallback,
                                                              FFI::Pointer.new(id))
        id
      end
    end

    # rdkafka-ruby's Helpers::OAuth for Producer, Consumer and Admin: sets
    # the client's token (librdkafka's rd_kafka_oauthbearer_set_token).
    # Returns 0, or the error code (:state, -172, when OAUTHBEARER is not
    # the configured mechanism; :invalid_arg for an expired token or a
    # malformed extension), after reporting the failure to the client as
    # rdkafka-ruby does.
    module Client
      def oauthbearer_set_token(token:, lifetime_ms:, principal_name:, extensions: nil)
        ext = (extensions || {}).flat_map { |k, v| [k.to_s, v.to_s] }
        arr, keep = Native.cstr_array(ext)
        buf = Native.errbuf
        rc = @native.use(:oauthbearer_set_token) do |native|
          Native.public_send(:"gregor_#{oauth_kind}_oauthbearer_set_token", native, token.to_s, lifetime_ms,
                             principal_name.to_s, ext.empty? ? nil : arr, ext.size, buf, Native::ERRSTR_SIZE)
        end
        keep.size # referenced until the call is done
        return rc if rc.zero?

        oauthbearer_set_token_failure("Failed to set token: #{buf.read_string}")
        rc
      end

      # Reports that no token could be had (librdkafka's
      # rd_kafka_oauthbearer_set_token_failure); returns 0 or the error code.
      def oauthbearer_set_token_failure(reason)
        @native.use(:oauthbearer_set_token_failure) do |native|
          Native.public_send(:"gregor_#{oauth_kind}_oauthbearer_set_token_failure", native, reason.to_s)
        end
      end
    end
  end

  module Bindings
    # rdkafka-ruby's name for the C refresh callback: calls
    # Config.oauthbearer_token_refresh_callback with the
    # `sasl.oauthbearer.config` value and the client's name.
    OAuthbearerTokenRefreshCallback = FFI::Function.new(:void, %i[pointer string pointer]) do |_handle, config, opaque|
      cb = Config.oauthbearer_token_refresh_callback
      name = opaque.null? ? nil : OAuthBearer.name_of(opaque.address)
      cb.call(config, name) if cb && name
    rescue StandardError => e
      warn "gregor: oauthbearer token refresh callback raised #{e.class}: #{e.message}"
    end
  end
end
