# frozen_string_literal: true

Gem::Specification.new do |s|
  s.name = "gregor"
  s.version = "0.1.0"
  s.summary = "rdkafka-ruby's shape over libgregor (the ffi gem; no compiler needed)"
  s.license = "Apache-2.0"
  s.authors = ["gregor authors"]
  s.files = Dir["lib/**/*.rb"]
  s.require_paths = ["lib"]
  s.required_ruby_version = ">= 2.7"
  s.add_dependency "ffi", ">= 1.15"
end
