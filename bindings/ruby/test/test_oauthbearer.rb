# frozen_string_literal: true

# SASL/OAUTHBEARER in rdkafka-ruby's shape (gregor's oauthbearer C API):
# Config.oauthbearer_token_refresh_callback gets (sasl.oauthbearer.config,
# client name) when a client needs a token, and answers with
# #oauthbearer_set_token / #oauthbearer_set_token_failure on that client.
#   ruby -Ilib test/test_oauthbearer.rb
require "minitest/autorun"
require "timeout"
require "gregor"

class GregorOAuthBearerTest < Minitest::Test
  BROKER = ENV.fetch("GREGOR_TEST_BROKER", "127.0.0.1:9092")

  def setup
    # a libgregor built without the OAUTHBEARER C API
    skip "libgregor has no gregor_*_oauthbearer_set_token" if Gregor::Native::MISSING.include?(:gregor_producer_oauthbearer_set_token)
  end

  def teardown
    Gregor::Config.oauthbearer_token_refresh_callback = nil
  end

  def oauth_config(extra = {})
    Gregor::Config.new({ "bootstrap.servers" => BROKER, "security.protocol" => "sasl_plaintext",
                         "sasl.mechanisms" => "OAUTHBEARER", "sasl.oauthbearer.config" => "scope=ruby" }.merge(extra))
  end

  def lifetime
    (Time.now.to_f * 1000).to_i + 900_000
  end

  def test_set_token_without_oauthbearer_is_state
    %i[producer consumer admin].each do |kind|
      extra = kind == :consumer ? { "group.id" => "ruby-oauth-#{Process.pid}" } : {}
      client = Gregor::Config.new({ "bootstrap.servers" => BROKER }.merge(extra)).public_send(kind)
      rc = client.oauthbearer_set_token(token: "foo", lifetime_ms: lifetime, principal_name: "kafka-cluster")
      assert_equal Gregor::Bindings::RD_KAFKA_RESP_ERR__STATE, rc, kind
      client.close
    end
  end

  def test_set_token_with_and_without_extensions_and_refusals
    %i[producer consumer admin].each do |kind|
      extra = kind == :consumer ? { "group.id" => "ruby-oauth-#{Process.pid}" } : {}
      client = oauth_config(extra).public_send(kind)
      assert_equal 0, client.oauthbearer_set_token(token: "foo", lifetime_ms: lifetime, principal_name: "kafka-cluster")
      assert_equal 0, client.oauthbearer_set_token(token: "foo", lifetime_ms: lifetime, principal_name: "kafka-cluster",
                                                   extensions: { "foo" => "bar" })
      # an expired token and a malformed extension key are refused
      assert_equal Gregor::Bindings::RD_KAFKA_RESP_ERR__INVALID_ARG,
                   client.oauthbearer_set_token(token: "foo", lifetime_ms: 1, principal_name: "p")
      assert_equal Gregor::Bindings::RD_KAFKA_RESP_ERR__INVALID_ARG,
                   client.oauthbearer_set_token(token: "foo", lifetime_ms: lifetime, principal_name: "p",
                                                extensions: { "auth" => "x" })
      assert_equal 0, client.oauthbearer_set_token_failure("no token today")
      client.close
      assert_raises(Gregor::ClosedClientError) { client.oauthbearer_set_token(token: "f", lifetime_ms: lifetime, principal_name: "p") }
    end
  end

  # The refresh callback runs when the client needs its first token, with
  # the sasl.oauthbearer.config value and the client's name; the token it
  # sets is taken.
  def test_refresh_callback_gets_config_and_name_and_sets_the_token
    calls = Queue.new
    clients = {}
    Gregor::Config.oauthbearer_token_refresh_callback = lambda do |config, name|
      # the first call may come before the test has stored the client
      50.times { break if clients.key?(name); sleep 0.1 }
      rc = clients.fetch(name).oauthbearer_set_token(token: "t-#{name}", lifetime_ms: lifetime, principal_name: "p")
      calls << [config, name, rc]
    end
    producer = oauth_config("client.id" => "ruby-oauth").producer
    clients[producer.name] = producer
    admin = oauth_config("client.id" => "ruby-oauth").admin
    clients[admin.name] = admin
    seen = Timeout.timeout(20) { [calls.pop, calls.pop] }
    assert_equal [["scope=ruby", admin.name, 0], ["scope=ruby", producer.name, 0]].sort, seen.sort
    producer.close
    admin.close
  end

  def test_callback_must_be_callable
    assert_raises(TypeError) { Gregor::Config.oauthbearer_token_refresh_callback = "not a callback" }
  end
end
