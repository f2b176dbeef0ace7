# frozen_string_literal: true

# Every C function the Ruby binding attaches has the arity and argument kinds
# (pointer, integer of the same width, struct by value) that include/gregor.h
# declares: a mismatch here is memory corruption at run time, which no other
# test would show reliably. The Python binding has the same check
# (bindings/python/tests/test_gregor.py). No broker needed:
#   ruby -Ibindings/ruby/lib bindings/ruby/test/test_signatures.rb
require "minitest/autorun"
require "gregor"

class GregorSignaturesTest < Minitest::Test
  HEADER = File.expand_path("../../../include/gregor.h", __dir__)
  INT_WIDTHS = {
    "int" => 4, "int32_t" => 4, "uint32_t" => 4, "int64_t" => 8, "uint64_t" => 8,
    "int16_t" => 2, "uint16_t" => 2, "int8_t" => 1, "uint8_t" => 1, "size_t" => 8,
    "bool" => 1, "double" => 8
  }.freeze
  STRUCTS_BY_VALUE = /\b(gregor_slice|gregor_delivery_report)\b/

  def prototypes
    text = File.read(HEADER)
    text.scan(/^([A-Za-z_][\w \*]*?\**)\s*\b(gregor_\w+)\((.*?)\);/m).to_h do |ret, name, args|
      args = args.split.join(" ")
      params = ["", "void"].include?(args) ? [] : args.split(",").map(&:strip)
      [name.to_sym, [ret.strip, params]]
    end
  end

  # [kind, width]: kind is :ptr, :int, :struct or :void
  def c_kind(decl)
    return [:ptr, nil] if decl.include?("*") || decl =~ /\bgregor_\w+_cb\b/
    return [:struct, nil] if decl =~ STRUCTS_BY_VALUE
    words = decl.split
    return [:void, nil] if words == ["void"]

    type = words.length > 1 && words.last !~ /_t$|^(int|bool|double)$/ ? words[-2] : words.last
    type = words.reject { |w| %w[const enum].include?(w) }.first if type.nil?
    [:int, INT_WIDTHS[type]]
  end

  def ruby_kind(type)
    case type
    when FFI::StructByValue then [:struct, nil]
    when FFI::StructByReference, FFI::FunctionType, FFI::Type::Mapped then [:ptr, nil]
    else
      if [FFI::Type::POINTER, FFI::Type::STRING, FFI::Type::BUFFER_IN, FFI::Type::BUFFER_OUT,
          FFI::Type::BUFFER_INOUT].include?(type)
        [:ptr, nil]
      elsif type == FFI::Type::VOID
        [:void, nil]
      else
        [:int, type.size]
      end
    end
  end

  def test_attached_functions_match_the_header
    skip "needs the source tree's include/gregor.h" unless File.exist?(HEADER)
    protos = prototypes
    checked = 0
    Gregor::Native::SIGNATURES.each do |name, (args, ret)|
      next unless protos.key?(name) # a function of a later library version

      cret, cparams = protos[name]
      assert_equal cparams.length, args.length, "#{name}: argument count"
      args.zip(cparams).each_with_index do |(a, c), i|
        ck, cw = c_kind(c)
        rk, rw = ruby_kind(a)
        assert_equal ck, rk, "#{name}: argument #{i} (#{c})"
        assert_equal cw, rw, "#{name}: argument #{i} (#{c}) width" if ck == :int && cw
      end
      ck, cw = c_kind(cret)
      rk, rw = ruby_kind(ret)
      assert_equal ck, rk, "#{name}: return type #{cret}"
      assert_equal cw, rw, "#{name}: return width (#{cret})" if ck == :int && cw
      checked += 1
    end
    assert_operator checked, :>, 200
  end

  def test_the_check_sees_a_wrong_width
    assert_equal [:int, 8], ruby_kind(FFI.find_type(:int64))
    refute_equal c_kind("int32_t partition")[1], ruby_kind(FFI.find_type(:int64))[1]
    assert_equal [:ptr, nil], c_kind("const char *topic")
    assert_equal [:struct, nil], c_kind("gregor_slice")
  end
end
