# Builds and installs gregor's C library the way C users expect:
#
#   make                      cargo build --profile dist (libgregor.a, libgregor.so, the gregor CLI)
#                             dist: release + LTO, one codegen unit (Cargo.toml)
#   make install              into PREFIX (default /usr/local); DESTDIR honoured; stripped
#   make install-dbg          the debug info stripped from them (a "-dbg package"), see below
#   make uninstall            removes both
#   make PROFILE=debug ...    use target/debug instead (what scripts/test.sh does)
#   make CARGO_FEATURES='--no-default-features --features tls,sasl' ...
#                             a library without ZooKeeper, Kafka 0.7 and admin
#                             (README "Cargo features"; the header stays the same)
#   CARGO_TARGET_DIR=dir make ...
#                             cargo's output in dir instead of target/, as for cargo
#
# Installs $(LIBDIR)/libgregor.a, libgregor.so.$(VERSION) with the symlinks
# libgregor.so.0 (the soname, set in build.rs) and libgregor.so,
# $(BINDIR)/gregor, $(INCLUDEDIR)/gregor.h and $(LIBDIR)/pkgconfig/gregor.pc,
# so that
#   cc app.c $(pkg-config --cflags --libs gregor)
#   cc -static app.c $(pkg-config --static --cflags --libs gregor)
# both work.
#
# Stripping: cargo's output keeps its debug info (line tables: the profiles
# set debug = 1, for profilers and backtraces); what `make install` copies
# does not. libgregor.so and the CLI lose their symbol tables and debug info
# (strip --strip-unneeded; the dynamic symbols stay) and gain a
# .gnu_debuglink naming their debug file (they already carry a GNU build
# ID). libgregor.a keeps its symbols (a static link needs them) and loses its
# debug sections and the LLVM bitcode an LTO build embeds (.llvmbc, read by
# rustc's LTO only). `make install-dbg` installs the split debug info where
# gdb and eu-stack look for a debuglink, whatever the PREFIX:
#   $(LIBDIR)/.debug/libgregor.so.$(VERSION).debug   (sections zlib-compressed)
#   $(BINDIR)/.debug/gregor.debug
#   $(LIBDIR)/.debug/libgregor.a     with debug info: link with -L$(LIBDIR)/.debug
#                                    for a static program with gregor's lines
# A crash report from a stripped install is symbolized with those files, e.g.
#   gdb -batch -ex 'info symbol 0x...' $(LIBDIR)/libgregor.so.0
#   addr2line -f -e $(LIBDIR)/.debug/libgregor.so.$(VERSION).debug 0x...
#
# librdkafka's ABI on gregor (rdkafka/, package gregor-rdkafka):
#
#   make install-rdkafka      into RDKAFKA_PREFIX (default $(PREFIX)/lib/gregor-rdkafka);
#                             DESTDIR honoured; stripped
#   make uninstall-rdkafka    removes it
#
# A directory of its own, laid out as librdkafka's own `make install` lays
# out its PREFIX, so that it never mixes with gregor's files nor, being off
# the loader's and pkg-config's default paths, with a real librdkafka:
#   $(RDKAFKA_LIBDIR)/librdkafka.so.1     (the soname, set in rdkafka/build.rs)
#   $(RDKAFKA_LIBDIR)/librdkafka.so -> librdkafka.so.1
#   $(RDKAFKA_LIBDIR)/librdkafka.a
#   $(RDKAFKA_INCLUDEDIR)/librdkafka/rdkafka.h, rdkafka_mock.h
#   $(RDKAFKA_LIBDIR)/pkgconfig/rdkafka.pc (Name rdkafka, librdkafka's version)
# A program written for librdkafka then builds unchanged with
#   PKG_CONFIG_PATH=$(RDKAFKA_LIBDIR)/pkgconfig cc app.c $(pkg-config --cflags --libs rdkafka)
# (and runs with LD_LIBRARY_PATH=$(RDKAFKA_LIBDIR), or -Wl,-rpath); with
# RDKAFKA_PREFIX=$(PREFIX) it takes librdkafka's place outright.
# The library is built without whole-program LTO (rdkafka/build.rs: LTO
# merges gregor into the library's own object, past the symbol hiding; a
# `dist` build of it exports every gregor_* function too), so PROFILE=dist
# builds it with the release profile. CARGO_FEATURES does not apply: it needs gregor's default features.
# The variadic functions written in C (rdkafka/csrc/: rd_kafka_producev,
# rd_kafka_mock_push_request_errors) are linked into the shared library by
# rdkafka/build.rs; the installed librdkafka.a gets them here, compiled
# with $(CC) and added to the archive.

PREFIX     ?= /usr/local
LIBDIR     ?= $(PREFIX)/lib
BINDIR     ?= $(PREFIX)/bin
INCLUDEDIR ?= $(PREFIX)/include
DESTDIR    ?=
PROFILE    ?= dist
CARGO      ?= cargo
CARGO_FEATURES ?=
INSTALL    ?= install
STRIP      ?= strip
OBJCOPY    ?= objcopy

VERSION := $(shell sed -n 's/^version *= *"\(.*\)"/\1/p' Cargo.toml | head -1)
SOMAJOR := 0
ifeq ($(PROFILE),debug)
CARGO_FLAGS :=
else
CARGO_FLAGS := --profile $(PROFILE)
endif
# cargo's target directory: CARGO_TARGET_DIR if set, as for cargo itself.
TARGET_DIR := $(or $(CARGO_TARGET_DIR),target)
OUT := $(TARGET_DIR)/$(PROFILE)
# The stripped copies and their split debug info; cargo's files stay as built.
STAGE := $(OUT)/install-stage
SO := libgregor.so.$(VERSION)

RDKAFKA_PREFIX     ?= $(PREFIX)/lib/gregor-rdkafka
RDKAFKA_LIBDIR     ?= $(RDKAFKA_PREFIX)/lib
RDKAFKA_INCLUDEDIR ?= $(RDKAFKA_PREFIX)/include
# The librdkafka version the library reports (rd_kafka_version_str).
RDKAFKA_VERSION := $(shell sed -n 's/^pub const VERSION_STR: &CStr = c"\(.*\)";/\1/p' rdkafka/src/version.rs)
ifeq ($(PROFILE),dist)
RDKAFKA_PROFILE := release
else
RDKAFKA_PROFILE := $(PROFILE)
endif
ifeq ($(RDKAFKA_PROFILE),debug)
RDKAFKA_CARGO_FLAGS :=
else
RDKAFKA_CARGO_FLAGS := --profile $(RDKAFKA_PROFILE)
endif
RDKAFKA_OUT := $(TARGET_DIR)/$(RDKAFKA_PROFILE)
RDKAFKA_STAGE := $(RDKAFKA_OUT)/rdkafka-install-stage

.PHONY: all build stage install install-dbg uninstall FORCE
.PHONY: build-rdkafka stage-rdkafka install-rdkafka uninstall-rdkafka
all: build

# With PROFILE=dist, libgregor.a and libgregor.so are built a second time
# without the rlib the CLI needs: beside an rlib, rustc applies no LTO to
# them and the static library is every crate's objects side by side; alone,
# LTO makes each one object of what the C API reaches (installed .a 24 ->
# 15 MB, .so 8.0 -> 7.7 MB; README "Footprint"), at the cost of compiling
# the dependencies once more.
build:
	$(CARGO) build $(CARGO_FLAGS) $(CARGO_FEATURES) --lib --bin gregor
ifeq ($(PROFILE),dist)
	$(CARGO) rustc $(CARGO_FLAGS) $(CARGO_FEATURES) --lib --crate-type staticlib,cdylib
endif

# Regenerated on every install: it records PREFIX, which may change between runs.
$(OUT)/gregor.pc: FORCE
	mkdir -p $(OUT)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' pkgconfig/gregor.pc.in > $@

# --only-keep-debug first, then strip, then point the stripped file at its
# debug file (the debuglink holds the name and a CRC of the .debug file).
stage: build
	rm -rf $(STAGE) && mkdir -p $(STAGE)
	$(OBJCOPY) --only-keep-debug --compress-debug-sections=zlib $(OUT)/libgregor.so $(STAGE)/$(SO).debug
	$(STRIP) --strip-unneeded -o $(STAGE)/$(SO) $(OUT)/libgregor.so
	cd $(STAGE) && $(OBJCOPY) --add-gnu-debuglink=$(SO).debug $(SO)
	$(OBJCOPY) --only-keep-debug --compress-debug-sections=zlib $(OUT)/gregor $(STAGE)/gregor.debug
	$(STRIP) --strip-unneeded -o $(STAGE)/gregor $(OUT)/gregor
	cd $(STAGE) && $(OBJCOPY) --add-gnu-debuglink=gregor.debug gregor
	$(STRIP) --strip-debug --remove-section=.llvmbc --remove-section=.llvmcmd \
	    -o $(STAGE)/libgregor.a $(OUT)/libgregor.a
	$(OBJCOPY) --remove-section=.llvmbc --remove-section=.llvmcmd \
	    $(OUT)/libgregor.a $(STAGE)/libgregor-dbg.a

install: stage $(OUT)/gregor.pc
	$(INSTALL) -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(BINDIR)
	$(INSTALL) -m 644 $(STAGE)/libgregor.a $(DESTDIR)$(LIBDIR)/libgregor.a
	$(INSTALL) -m 755 $(STAGE)/$(SO) $(DESTDIR)$(LIBDIR)/$(SO)
	ln -sf $(SO) $(DESTDIR)$(LIBDIR)/libgregor.so.$(SOMAJOR)
	ln -sf libgregor.so.$(SOMAJOR) $(DESTDIR)$(LIBDIR)/libgregor.so
	$(INSTALL) -m 755 $(STAGE)/gregor $(DESTDIR)$(BINDIR)/gregor
	$(INSTALL) -m 644 include/gregor.h $(DESTDIR)$(INCLUDEDIR)/gregor.h
	$(INSTALL) -m 644 $(OUT)/gregor.pc $(DESTDIR)$(LIBDIR)/pkgconfig/gregor.pc

install-dbg: stage
	$(INSTALL) -d $(DESTDIR)$(LIBDIR)/.debug $(DESTDIR)$(BINDIR)/.debug
	$(INSTALL) -m 644 $(STAGE)/$(SO).debug $(DESTDIR)$(LIBDIR)/.debug/$(SO).debug
	$(INSTALL) -m 644 $(STAGE)/gregor.debug $(DESTDIR)$(BINDIR)/.debug/gregor.debug
	$(INSTALL) -m 644 $(STAGE)/libgregor-dbg.a $(DESTDIR)$(LIBDIR)/.debug/libgregor.a

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/libgregor.a $(DESTDIR)$(LIBDIR)/libgregor.so \
	      $(DESTDIR)$(LIBDIR)/libgregor.so.$(SOMAJOR) $(DESTDIR)$(LIBDIR)/$(SO) \
	      $(DESTDIR)$(BINDIR)/gregor \
	      $(DESTDIR)$(INCLUDEDIR)/gregor.h $(DESTDIR)$(LIBDIR)/pkgconfig/gregor.pc \
	      $(DESTDIR)$(LIBDIR)/.debug/$(SO).debug $(DESTDIR)$(LIBDIR)/.debug/libgregor.a \
	      $(DESTDIR)$(BINDIR)/.debug/gregor.debug
	-rmdir $(DESTDIR)$(LIBDIR)/.debug $(DESTDIR)$(BINDIR)/.debug 2>/dev/null

build-rdkafka:
	$(CARGO) build $(RDKAFKA_CARGO_FLAGS) -p gregor-rdkafka

# Regenerated on every install, as gregor.pc.
$(RDKAFKA_OUT)/rdkafka.pc: FORCE
	mkdir -p $(RDKAFKA_OUT)
	sed -e 's|@PREFIX@|$(RDKAFKA_PREFIX)|' -e 's|@LIBDIR@|$(RDKAFKA_LIBDIR)|' \
	    -e 's|@INCLUDEDIR@|$(RDKAFKA_INCLUDEDIR)|' -e 's|@VERSION@|$(RDKAFKA_VERSION)|' \
	    pkgconfig/rdkafka.pc.in > $@

# Stripped as libgregor.so and libgregor.a are (see above); no debug
# files are kept for these.
stage-rdkafka: build-rdkafka
	rm -rf $(RDKAFKA_STAGE) && mkdir -p $(RDKAFKA_STAGE)
	$(STRIP) --strip-unneeded -o $(RDKAFKA_STAGE)/librdkafka.so.1 $(RDKAFKA_OUT)/librdkafka.so
	$(STRIP) --strip-debug --remove-section=.llvmbc --remove-section=.llvmcmd \
	    -o $(RDKAFKA_STAGE)/librdkafka.a $(RDKAFKA_OUT)/librdkafka.a
	for c in rdkafka/csrc/*.c; do \
	    $(CC) -O2 -fPIC -Irdkafka/include -c $$c \
	        -o $(RDKAFKA_STAGE)/rdkafka-shim-$$(basename $$c .c).o || exit 1; \
	done
	$(AR) rs $(RDKAFKA_STAGE)/librdkafka.a $(RDKAFKA_STAGE)/rdkafka-shim-*.o

install-rdkafka: stage-rdkafka $(RDKAFKA_OUT)/rdkafka.pc
	$(INSTALL) -d $(DESTDIR)$(RDKAFKA_LIBDIR)/pkgconfig $(DESTDIR)$(RDKAFKA_INCLUDEDIR)/librdkafka
	$(INSTALL) -m 644 $(RDKAFKA_STAGE)/librdkafka.a $(DESTDIR)$(RDKAFKA_LIBDIR)/librdkafka.a
	$(INSTALL) -m 755 $(RDKAFKA_STAGE)/librdkafka.so.1 $(DESTDIR)$(RDKAFKA_LIBDIR)/librdkafka.so.1
	ln -sf librdkafka.so.1 $(DESTDIR)$(RDKAFKA_LIBDIR)/librdkafka.so
	$(INSTALL) -m 644 rdkafka/include/librdkafka/rdkafka.h rdkafka/include/librdkafka/rdkafka_mock.h \
	    $(DESTDIR)$(RDKAFKA_INCLUDEDIR)/librdkafka/
	$(INSTALL) -m 644 $(RDKAFKA_OUT)/rdkafka.pc $(DESTDIR)$(RDKAFKA_LIBDIR)/pkgconfig/rdkafka.pc

# Then the directories, each only if empty (with the default RDKAFKA_PREFIX
# all of them are ours).
uninstall-rdkafka:
	rm -f $(DESTDIR)$(RDKAFKA_LIBDIR)/librdkafka.a $(DESTDIR)$(RDKAFKA_LIBDIR)/librdkafka.so \
	      $(DESTDIR)$(RDKAFKA_LIBDIR)/librdkafka.so.1 \
	      $(DESTDIR)$(RDKAFKA_INCLUDEDIR)/librdkafka/rdkafka.h \
	      $(DESTDIR)$(RDKAFKA_INCLUDEDIR)/librdkafka/rdkafka_mock.h \
	      $(DESTDIR)$(RDKAFKA_LIBDIR)/pkgconfig/rdkafka.pc
	-rmdir $(DESTDIR)$(RDKAFKA_INCLUDEDIR)/librdkafka $(DESTDIR)$(RDKAFKA_LIBDIR)/pkgconfig \
	       $(DESTDIR)$(RDKAFKA_LIBDIR) $(DESTDIR)$(RDKAFKA_INCLUDEDIR) $(DESTDIR)$(RDKAFKA_PREFIX) 2>/dev/null

FORCE:
