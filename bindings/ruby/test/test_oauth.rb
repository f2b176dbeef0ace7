# frozen_string_literal: true

# SASL/OAUTHBEARER in rdkafka-ruby's shape: Config.oauthbearer_token_refresh_callback
# called with (sasl.oauthbearer.config, client name), answered with
# oauthbearer_set_token / oauthbearer_set_token_failure on the client. No
# broker is needed (the bootstrap port is closed); the token's way to a
# broker is tested on the wire in tests/oauthbearer.rs.
#   ruby -Ilib test/test_oauth.rb
require "minitest/autorun"
require "socket"
require "gregor"

class GregorOAuthTest < Minitest::Test
  def teardown
    Gregor::Config.oauthbearer_token_refresh_callback = nil
    Gregor::Config.error_callback = nil
  end

  def closed_port
    s = TCPServer.new("127.0.0.1", 0)
    port = s.addr[1]
    s.close
    "127.0.0.1:#{port}"
  end

  def config(extra = {})
    Gregor::Config.new({
      "bootstrap.servers": closed_port,
      "security.protocol": "sasl_plaintext",
      "sasl.mechanisms": "OAUTHBEARER",
      "sasl.oauthbearer.config": "principal=rb",
    }.merge(extra))
  end

  def wait_for(limit = 5)
    until_t = Process.clock_gettime(Process::CLOCK_MONOTONIC) + limit
    sleep 0.02 until yield || Process.clock_gettime(Process::CLOCK_MONOTONIC) > until_t
  end

  def now_ms
    (Time.now.to_f * 1000).to_i
  end

  def test_refresh_callback_gets_config_and_client_name_and_sets_the_token
    calls = Queue.new
    producer = nil
    Gregor::Config.oauthbearer_token_refresh_callback = lambda do |cfg, name|
      calls << [cfg, name]
    end
    producer = config.producer # its polling thread serves the callback
    wait_for { !calls.empty? }
    cfg, name = calls.pop
    assert_equal "principal=rb", cfg
    assert_equal producer.name, name
    assert_equal 0, producer.oauthbearer_set_token(token: "rb-token", lifetime_ms: now_ms + 60_000,
                                                   principal_name: "rb", extensions: { "traceId" => "7" })
    producer.close
  end

  def test_set_token_validates_and_reports_failures
    errors = Queue.new
    Gregor::Config.error_callback = ->(e) { errors << e }
    consumer = config("group.id": "oauth-rb").consumer
    rc = consumer.oauthbearer_set_token(token: "t", lifetime_ms: now_ms + 60_000, principal_name: "rb",
                                        extensions: { "auth" => "x" })
    assert_equal(-186, rc) # _INVALID_ARG
    rc = consumer.oauthbearer_set_token(token: "t", lifetime_ms: now_ms - 1, principal_name: "rb")
    assert_equal(-186, rc)
    # the failure was reported: an _AUTHENTICATION error event
    wait_for do
      consumer.poll(50)
      !errors.empty?
    end
    e = errors.pop
    assert_equal :authentication, e.code
    assert_includes e.broker_message.to_s, "Failed to set token"
    consumer.close
  end

  def test_admin_gets_its_callback_without_poll_and_plain_clients_answer_state
    got = Queue.new
    Gregor::Config.oauthbearer_token_refresh_callback = ->(cfg, _name) { got << cfg }
    admin = config.admin
    wait_for { !got.empty? }
    assert_equal "principal=rb", got.pop
    assert_equal 0, admin.oauthbearer_set_token(token: "a", lifetime_ms: now_ms + 60_000, principal_name: "rb")
    admin.close
    Gregor::Config.oauthbearer_token_refresh_callback = nil
    plain = Gregor::Config.new("bootstrap.servers": closed_port).producer
    assert_equal(-172, plain.oauthbearer_set_token_failure("x")) # _STATE
    plain.close
  end
end
