# frozen_string_literal: true

module Gregor
  # ACLs (KIP-140) in rdkafka-ruby's shape: Admin#create_acl, #describe_acl,
  # #delete_acl, their handles and reports. Numbers are Kafka's (and
  # librdkafka's): resource types, pattern types, operations and permission
  # types as Bindings::RD_KAFKA_RESOURCE_*, RD_KAFKA_RESOURCE_PATTERN_*,
  # RD_KAFKA_ACL_OPERATION_*, RD_KAFKA_ACL_PERMISSION_TYPE_*.
  module Native
    bind :gregor_acl_binding_new, [:int, :string, :int, :string, :string, :int, :int] + E, :pointer
    bind :gregor_acl_binding_free, [:pointer], :void
    bind :gregor_acl_filter_new, [:int, :string, :int, :string, :string, :int, :int] + E, :pointer
    bind :gregor_acl_filter_free, [:pointer], :void
    bind :gregor_admin_create_acls, [:pointer, :pointer, :size_t, :pointer, :pointer] + E, :int, blocking: true
    bind :gregor_admin_describe_acls, [:pointer, :pointer, :pointer, :pointer] + E, :int, blocking: true
    bind :gregor_admin_delete_acls, [:pointer, :pointer, :size_t, :pointer, :pointer] + E, :int, blocking: true
    bind :gregor_acl_bindings_count, [:pointer], :size_t
    bind :gregor_acl_bindings_resource_type, [:pointer, :size_t], :int
    bind :gregor_acl_bindings_resource_name, [:pointer, :size_t], :string
    bind :gregor_acl_bindings_pattern_type, [:pointer, :size_t], :int
    bind :gregor_acl_bindings_principal, [:pointer, :size_t], :string
    bind :gregor_acl_bindings_host, [:pointer, :size_t], :string
    bind :gregor_acl_bindings_operation, [:pointer, :size_t], :int
    bind :gregor_acl_bindings_permission_type, [:pointer, :size_t], :int
    bind :gregor_acl_bindings_err, [:pointer, :size_t], :int
    bind :gregor_acl_bindings_errstr, [:pointer, :size_t], :string
    bind :gregor_acl_bindings_free, [:pointer], :void
    bind :gregor_delete_acls_results_count, [:pointer], :size_t
    bind :gregor_delete_acls_results_err, [:pointer, :size_t], :int
    bind :gregor_delete_acls_results_errstr, [:pointer, :size_t], :string
    bind :gregor_delete_acls_results_matches, [:pointer, :size_t], :pointer
    bind :gregor_delete_acls_results_free, [:pointer], :void
  end

  module Bindings
    # RD_KAFKA_RESOURCE_*, RD_KAFKA_RESOURCE_PATTERN_*, RD_KAFKA_ACL_OPERATION_*
    # and RD_KAFKA_ACL_PERMISSION_TYPE_* come from the library's enum tables
    # (gregor/error.rb).

    # Config resource types and incremental alter ops (rdkafka-ruby's names).
    RD_KAFKA_ALTER_CONFIG_OP_TYPE_SET = 0
    RD_KAFKA_ALTER_CONFIG_OP_TYPE_DELETE = 1
    RD_KAFKA_ALTER_CONFIG_OP_TYPE_APPEND = 2
    RD_KAFKA_ALTER_CONFIG_OP_TYPE_SUBTRACT = 3
  end

  class Admin
    # One ACL binding of a describe or delete result (rdkafka-ruby's
    # AclBindingResult).
    class AclBindingResult
      attr_reader :result_error, :error_string, :matching_acl_resource_type,
                  :matching_acl_resource_name, :matching_acl_resource_pattern_type,
                  :matching_acl_principal, :matching_acl_host, :matching_acl_operation,
                  :matching_acl_permission_type

      alias matching_acl_pattern_type matching_acl_resource_pattern_type

      # Binding `i` of a gregor_acl_bindings set.
      def self.from_native(bindings, index)
        err = Native.gregor_acl_bindings_err(bindings, index)
        new(result_error: err,
            error_string: err.zero? ? nil : Native.gregor_acl_bindings_errstr(bindings, index),
            resource_type: Native.gregor_acl_bindings_resource_type(bindings, index),
            resource_name: Native.gregor_acl_bindings_resource_name(bindings, index),
            resource_pattern_type: Native.gregor_acl_bindings_pattern_type(bindings, index),
            principal: Native.gregor_acl_bindings_principal(bindings, index),
            host: Native.gregor_acl_bindings_host(bindings, index),
            operation: Native.gregor_acl_bindings_operation(bindings, index),
            permission_type: Native.gregor_acl_bindings_permission_type(bindings, index))
      end

      def initialize(result_error: 0, error_string: nil, resource_type:, resource_name:, resource_pattern_type:,
                     principal:, host:, operation:, permission_type:)
        @result_error = result_error
        @error_string = error_string
        @matching_acl_resource_type = resource_type
        @matching_acl_resource_name = resource_name
        @matching_acl_resource_pattern_type = resource_pattern_type
        @matching_acl_principal = principal
        @matching_acl_host = host
        @matching_acl_operation = operation
        @matching_acl_permission_type = permission_type
      end
    end

    # What a create_acl got: `rdkafka_response` (0 if created) and
    # `rdkafka_response_string` ("" if created).
    class CreateAclReport
      attr_reader :rdkafka_response, :rdkafka_response_string

      def initialize(rdkafka_response:, rdkafka_response_string:)
        @rdkafka_response = rdkafka_response
        @rdkafka_response_string = Admin.report_text(rdkafka_response_string)
      end
    end

    # What a delete_acl got: `deleted_acls`, AclBindingResults.
    class DeleteAclReport
      attr_reader :deleted_acls

      def initialize(deleted_acls: [])
        @deleted_acls = deleted_acls
      end
    end

    # What a describe_acl got: `acls`, AclBindingResults.
    class DescribeAclReport
      attr_reader :acls

      def initialize(acls: [])
        @acls = acls
      end
    end

    # A create_acl in flight.
    class CreateAclHandle < AbstractHandle
      def operation_name
        "create acl"
      end

      def create_result
        prepared_result
      end
    end

    # A delete_acl in flight.
    class DeleteAclHandle < CreateAclHandle
      def operation_name
        "delete acl"
      end
    end

    # A describe_acl in flight.
    class DescribeAclHandle < CreateAclHandle
      def operation_name
        "describe acl"
      end
    end

    # Creates one ACL. Returns a CreateAclHandle at once; raises
    # Config::ConfigError for a binding the library refuses (an ANY value,
    # a missing name).
    def create_acl(resource_type:, resource_name:, resource_pattern_type:, principal:, host:, operation:,
                   permission_type:)
      ensure_open(:create_acl)
      check_acl_numbers(resource_type, resource_pattern_type, operation, permission_type, filter: false)
      buf = Native.errbuf
      binding = Native.gregor_acl_binding_new(resource_type, resource_name&.to_s, resource_pattern_type,
                                              principal&.to_s, host&.to_s, operation, permission_type,
                                              buf, Native::ERRSTR_SIZE)
      raise Config::ConfigError, buf.read_string if binding.null?

      arr = FFI::MemoryPointer.new(:pointer, 1)
      arr.put_pointer(0, binding)
      run_async(CreateAclHandle.new, :create_acl) do |handle|
        acl_call(handle, :gregor_admin_create_acls) do |native, out, ebuf|
          Native.gregor_admin_create_acls(native, arr, 1, nil, out, ebuf, Native::ERRSTR_SIZE)
        end
      ensure
        Native.gregor_acl_binding_free(binding)
      end
    end

    # Describes the ACLs matching a filter (nil strings and the ANY values
    # match everything). Returns a DescribeAclHandle at once.
    def describe_acl(resource_type:, resource_name:, resource_pattern_type:, principal:, host:, operation:,
                     permission_type:)
      ensure_open(:describe_acl)
      filter = acl_filter(resource_type, resource_name, resource_pattern_type, principal, host, operation,
                          permission_type)
      run_async(DescribeAclHandle.new, :describe_acl) do |handle|
        out = FFI::MemoryPointer.new(:pointer)
        buf = Native.errbuf
        rc = @native.use(:describe_acl) do |native|
          Native.gregor_admin_describe_acls(native, filter, nil, out, buf, Native::ERRSTR_SIZE)
        end
        if rc.zero?
          res = out.read_pointer
          begin
            acls = Array.new(Native.gregor_acl_bindings_count(res)) { |i| AclBindingResult.from_native(res, i) }
            handle.result = DescribeAclReport.new(acls: acls)
          ensure
            Native.gregor_acl_bindings_free(res)
          end
        else
          handle[:response] = rc
          handle.broker_message = buf.read_string
          handle.result = DescribeAclReport.new
        end
      ensure
        Native.gregor_acl_filter_free(filter)
      end
    end

    # Deletes the ACLs matching a filter. Returns a DeleteAclHandle at once;
    # its report's `deleted_acls` are the ACLs the broker deleted.
    def delete_acl(resource_type:, resource_name:, resource_pattern_type:, principal:, host:, operation:,
                   permission_type:)
      ensure_open(:delete_acl)
      filter = acl_filter(resource_type, resource_name, resource_pattern_type, principal, host, operation,
                          permission_type)
      arr = FFI::MemoryPointer.new(:pointer, 1)
      arr.put_pointer(0, filter)
      run_async(DeleteAclHandle.new, :delete_acl) do |handle|
        out = FFI::MemoryPointer.new(:pointer)
        buf = Native.errbuf
        rc = @native.use(:delete_acl) do |native|
          Native.gregor_admin_delete_acls(native, arr, 1, nil, out, buf, Native::ERRSTR_SIZE)
        end
        if rc.zero?
          res = out.read_pointer
          begin
            err = Native.gregor_delete_acls_results_err(res, 0)
            handle[:response] = err
            handle.broker_message = err.zero? ? nil : Native.gregor_delete_acls_results_errstr(res, 0)
            matches = Native.gregor_delete_acls_results_matches(res, 0)
            deleted = if matches.null?
                        []
                      else
                        Array.new(Native.gregor_acl_bindings_count(matches)) do |i|
                          AclBindingResult.from_native(matches, i)
                        end
                      end
            handle.result = DeleteAclReport.new(deleted_acls: deleted)
          ensure
            Native.gregor_delete_acls_results_free(res)
          end
        else
          handle[:response] = rc
          handle.broker_message = buf.read_string
          handle.result = DeleteAclReport.new
        end
      ensure
        Native.gregor_acl_filter_free(filter)
      end
    end

    private

    # The ranges librdkafka's rd_kafka_AclBinding_new / _AclBindingFilter_new
    # accept (with Kafka's DELEGATION_TOKEN 6 and USER 7 resource types):
    # UNKNOWN is never valid; ANY (and MATCH) only in a filter. Raises
    # Config::ConfigError with librdkafka's text.
    def check_acl_numbers(resource_type, pattern_type, operation, permission_type, filter:)
      low = filter ? 1 : 2
      raise Config::ConfigError, "Invalid resource type" unless (low..7).cover?(resource_type)
      raise Config::ConfigError, "Invalid resource pattern type" unless ((filter ? 1 : 3)..4).cover?(pattern_type)
      raise Config::ConfigError, "Invalid operation" unless (low..12).cover?(operation)
      raise Config::ConfigError, "Invalid permission type" unless (low..3).cover?(permission_type)
    end

    def acl_filter(resource_type, resource_name, resource_pattern_type, principal, host, operation, permission_type)
      check_acl_numbers(resource_type, resource_pattern_type, operation, permission_type, filter: true)
      buf = Native.errbuf
      filter = Native.gregor_acl_filter_new(resource_type, resource_name&.to_s, resource_pattern_type,
                                            principal&.to_s, host&.to_s, operation, permission_type,
                                            buf, Native::ERRSTR_SIZE)
      raise Config::ConfigError, buf.read_string if filter.null?

      filter
    end

    # Runs a create-ACLs call: the handle gets the (first) binding's outcome
    # and a CreateAclReport.
    def acl_call(handle, method)
      out = FFI::MemoryPointer.new(:pointer)
      buf = Native.errbuf
      rc = @native.use(method) { |native| yield native, out, buf }
      if rc.zero?
        res = out.read_pointer
        begin
          err = Native.gregor_acl_bindings_err(res, 0)
          text = err.zero? ? "" : Native.gregor_acl_bindings_errstr(res, 0).to_s
        ensure
          Native.gregor_acl_bindings_free(res)
        end
      else
        err = rc
        text = buf.read_string
      end
      handle[:response] = err
      handle.broker_message = err.zero? ? nil : text
      handle.result = CreateAclReport.new(rdkafka_response: err, rdkafka_response_string: text)
    end
  end
end
