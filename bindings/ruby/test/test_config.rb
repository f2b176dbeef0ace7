# frozen_string_literal: true

# Configuration as tolerant as librdkafka's: Config#dump (effective values,
# secrets redacted), properties of the other role and properties gregor
# does not act on (warnings, not errors), a configuration without
# bootstrap.servers. ruby -Ilib test/test_config.rb
require "minitest/autorun"
require "gregor"

class GregorConfigTest < Minitest::Test
  BROKER = ENV.fetch("GREGOR_TEST_BROKER", "127.0.0.1:9092")

  SECRETS = %w[sasl.password ssl.key.password ssl.key.pem sasl.oauthbearer.client.secret
               sasl.oauthbearer.token].freeze

  def test_dump_lists_values_and_defaults_and_redacts_secrets
    conf = Gregor::Config.new(
      "bootstrap.servers" => BROKER, "linger.ms" => 7, "socket.keepalive.enable" => true,
      "sasl.password" => "s3cret-pw", "ssl.key.password" => "s3cret-kp", "ssl.key.pem" => "s3cret-pem",
      "sasl.oauthbearer.client.secret" => "s3cret-oidc", "sasl.oauthbearer.token" => "s3cret-tok"
    )
    d = conf.dump
    assert_equal BROKER, d["bootstrap.servers"]
    assert_equal "7", d["linger.ms"]
    assert_equal "true", d["socket.keepalive.enable"]
    assert_equal "gregor", d["client.id"]
    SECRETS.each { |k| assert_equal "[redacted]", d[k], k }
    refute_match(/s3cret/, d.inspect)
    refute d.key?("metadata.broker.list")
    assert_operator d.size, :>, 150
  end

  def test_dump_checks_like_a_client
    assert_raises(Gregor::Config::ConfigError) { Gregor::Config.new("no.such.thing" => 1).dump }
  end

  def test_one_hash_for_producer_consumer_and_admin
    conf = Gregor::Config.new("bootstrap.servers" => BROKER, "linger.ms" => 5, "group.id" => "ruby-config",
                              "socket.keepalive.enable" => true, "debug" => "broker",
                              "socket.max.fails" => 3)
    conf.producer.close
    conf.consumer.close
    conf.admin.close
  end

  def test_no_bootstrap_servers_makes_clients
    conf = Gregor::Config.new("group.id" => "ruby-config-none")
    conf.producer.close
    conf.consumer.close
  end
end
