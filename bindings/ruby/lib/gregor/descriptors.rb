# frozen_string_literal: true

module Gregor
  # The library's descriptor tables (as librdkafka's rd_kafka_get_err_descs):
  # every error code and every value of the admin enumerations, with names
  # and descriptions, read once when gregor loads. Gregor::ERRORS and the
  # enum tables below are built from them, never copied by hand.
  module Descriptors
    # struct gregor_err_desc
    class ErrDesc < FFI::Struct
      layout :code, :int, :name, :string, :desc, :string
    end

    # struct gregor_enum_desc
    class EnumDesc < FFI::Struct
      layout :value, :int, :name, :string, :constant, :string, :desc, :string
    end

    KINDS = %i[acl_operation acl_permission_type resource_type resource_pattern_type
               config_resource_type config_source config_type alter_config_op_type
               scram_mechanism election_type].freeze

    Native.bind :gregor_get_err_descs, [:pointer, :pointer], :void
    KINDS.each { |k| Native.bind :"gregor_get_#{k}_descs", [:pointer, :pointer], :void }

    def self.read(function, struct)
      unless Native.respond_to?(function) && !Native::MISSING.include?(function)
        raise LoadError, "gregor: the loaded libgregor has no #{function}; rebuild or reinstall it"
      end

      out = FFI::MemoryPointer.new(:pointer)
      cnt = FFI::MemoryPointer.new(:size_t)
      Native.public_send(function, out, cnt)
      base = out.read_pointer
      Array.new(cnt.read(:size_t)) { |i| struct.new(base + i * struct.size) }
    end

    # [[code, name, description], ...] of every error code.
    def self.errors
      read(:gregor_get_err_descs, ErrDesc).map { |d| [d[:code], d[:name], d[:desc]] }
    end

    # [[value, name, C constant, description], ...] of one enumeration
    # (:acl_operation, :resource_type, :config_source, ...).
    def self.enum(kind)
      read(:"gregor_get_#{kind}_descs", EnumDesc).map { |d| [d[:value], d[:name], d[:constant], d[:desc]] }
    end
  end

  # {kind => {name symbol (lower case) => value}} for every enumeration, e.g.
  # Gregor::ENUMS[:acl_operation][:idempotent_write] == 12.
  ENUMS = Descriptors::KINDS.to_h do |k|
    [k, Descriptors.enum(k).to_h { |v, name, _c, _d| [name.downcase.to_sym, v] }.freeze]
  end.freeze
end
