# Builds and installs gregor's C library the way C users expect:
#
#   make                      cargo build --release (libgregor.a, libgregor.so)
#   make install              into PREFIX (default /usr/local); DESTDIR honoured
#   make uninstall
#   make PROFILE=debug ...    use target/debug instead (what scripts/test.sh does)
#
# Installs $(LIBDIR)/libgregor.a, libgregor.so.$(VERSION) with the symlinks
# libgregor.so.0 (the soname, set in build.rs) and libgregor.so,
# $(INCLUDEDIR)/gregor.h and $(LIBDIR)/pkgconfig/gregor.pc, so that
#   cc app.c $(pkg-config --cflags --libs gregor)
#   cc -static app.c $(pkg-config --static --cflags --libs gregor)
# both work.

PREFIX     ?= /usr/local
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
DESTDIR    ?=
PROFILE    ?= release
CARGO      ?= cargo
INSTALL    ?= install

VERSION := $(shell sed -n 's/^version *= *"\(.*\)"/\1/p' Cargo.toml | head -1)
SOMAJOR := 0
ifeq ($(PROFILE),release)
CARGO_FLAGS := --release
else
CARGO_FLAGS :=
endif
OUT := target/$(PROFILE)

.PHONY: all build install uninstall FORCE
all: build

build:
	$(CARGO) build $(CARGO_FLAGS) --lib

# Regenerated on every install: it records PREFIX, which may change between runs.
$(OUT)/gregor.pc: FORCE
	mkdir -p $(OUT)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' pkgconfig/gregor.pc.in > $@

install: build $(OUT)/gregor.pc
	$(INSTALL) -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR)
	$(INSTALL) -m 644 $(OUT)/libgregor.a $(DESTDIR)$(LIBDIR)/libgregor.a
	$(INSTALL) -m 755 $(OUT)/libgregor.so $(DESTDIR)$(LIBDIR)/libgregor.so.$(VERSION)
	ln -sf libgregor.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libgregor.so.$(SOMAJOR)
	ln -sf libgregor.so.$(SOMAJOR) $(DESTDIR)$(LIBDIR)/libgregor.so
	$(INSTALL) -m 644 include/gregor.h $(DESTDIR)$(INCLUDEDIR)/gregor.h
	$(INSTALL) -m 644 $(OUT)/gregor.pc $(DESTDIR)$(LIBDIR)/pkgconfig/gregor.pc

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/libgregor.a $(DESTDIR)$(LIBDIR)/libgregor.so \
	      $(DESTDIR)$(LIBDIR)/libgregor.so.$(SOMAJOR) $(DESTDIR)$(LIBDIR)/libgregor.so.$(VERSION) \
	      $(DESTDIR)$(INCLUDEDIR)/gregor.h $(DESTDIR)$(LIBDIR)/pkgconfig/gregor.pc

FORCE:
