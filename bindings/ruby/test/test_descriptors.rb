# frozen_string_literal: true

# The error names and enum tables come from libgregor's descriptor tables
# (gregor_get_err_descs, gregor_get_*_descs); no broker needed:
#   ruby -Ilib test/test_descriptors.rb
require "minitest/autorun"
require "gregor"

class GregorDescriptorsTest < Minitest::Test
  def test_every_error_code_is_named
    descs = Gregor::Descriptors.errors
    assert_operator descs.size, :>, 150
    descs.each do |code, name, desc|
      assert_equal code, Gregor::ERRORS.fetch(name.to_sym), name
      assert_equal name, Gregor.error_name(code)
      assert_equal desc, Gregor::Native.gregor_err_str(code)
      assert_equal code, Gregor::Bindings.const_get(:"RD_KAFKA_RESP_ERR_#{name}")
    end
    assert_equal 0, Gregor::ERRORS[:NO_ERROR]
    assert_equal :partition_eof, Gregor::RdkafkaError.new(Gregor::ERRORS[:_PARTITION_EOF]).code
  end

  def test_enums_match_the_library
    Gregor::Descriptors::KINDS.each do |kind|
      rows = Gregor::Descriptors.enum(kind)
      refute_empty rows, kind
      assert_equal(rows.to_h { |v, n, _c, _d| [n.downcase.to_sym, v] }, Gregor::ENUMS.fetch(kind))
      rows.each { |_v, _n, constant, desc| assert(constant.start_with?("GREGOR_") && !desc.empty?) }
    end
    # ACL operations go to 15 (TWO_PHASE_COMMIT, KIP-939), not 12.
    assert_equal 15, Gregor::ENUMS[:acl_operation][:two_phase_commit]
    assert_equal 12, Gregor::Bindings::RD_KAFKA_ACL_OPERATION_IDEMPOTENT_WRITE
    assert_equal 4, Gregor::Bindings::RD_KAFKA_RESOURCE_BROKER
    assert_equal 3, Gregor::Bindings::RD_KAFKA_RESOURCE_PATTERN_LITERAL
    assert_equal 3, Gregor::Bindings::RD_KAFKA_ACL_PERMISSION_TYPE_ALLOW
    assert_equal 9, Gregor::ENUMS[:config_type][:password]
  end
end
