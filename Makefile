# Lodestar — see README.md. Every target installs what it needs first (make deps).
PREFIX ?= /usr/local
DESTDIR ?=
SWIFT ?= swift
CONFIG ?= release
DEBIAN_PACKAGES := libgps-dev libi2c-dev libudev-dev pkg-config libmosquitto-dev
# lodestar-fleet (the fleet side, docs/fleet.md) links libpq; the board's lodestar does not.
FLEET_PACKAGES := libpq-dev
# Real peers the MQTT/fleet tests start on loopback (docs/fleet.md).
MQTT_TEST_PACKAGES := mosquitto mosquitto-clients postgresql postgresql-15-postgis-3 openssl
# Test-only: gpsd stays off boards (Debian's gpsd takes u-blox receivers on hotplug; docs/deployment.md).
TEST_PACKAGES := gpsd gpsd-clients systemd python3-gps chrony tmux socat rtklib $(FLEET_PACKAGES) $(MQTT_TEST_PACKAGES)
# make hil: qemu, the guest's busybox/kmod/udev/i2c-tools/chronyd (copied from this machine), initramfs tools.
HIL_PACKAGES := qemu-system-x86 busybox-static cpio kmod udev i2c-tools python3 chrony
BENCH_PACKAGES := libgeographiclib-dev time
# Test dependencies of the maps, exports and live page (docs/maps.md): a real browser, the GPX schema check, GPX and
# GIS readers.
MAP_TEST_PACKAGES := chromium libxml2-utils gpsbabel gdal-bin
# make deb: Debian's packaging tools; make package-test: a clean Debian 12 to install the package into.
DEB_BUILD_PACKAGES := dpkg-dev debhelper lintian fakeroot file
PACKAGE_TEST_PACKAGES := debootstrap
HOST_ARCH := $(shell dpkg --print-architecture 2>/dev/null)
ARCH ?= $(HOST_ARCH)
BIN := .build/$(CONFIG)/lodestar
# Release links use the toolchain's own lld when it ships one: RELR-packed relative relocations
# (-z pack-relative-relocs; needs glibc >= 2.36, Debian 12) replace a 2.6 MB relocation table read at every start,
# --gc-sections and --icf=all drop unused and duplicate code; every function in its own section
# (-function-sections) laid out in the order a replay first runs them (scripts/link-order.txt, made by
# scripts/link-order.sh), and no dynamic symbol table for the executable's own 32,000 symbols (--no-export-dynamic):
# resident memory is then the code a board runs (docs/benchmarks.md "Memory"). Otherwise the default linker.
LLD := $(shell d=$$(dirname "$$(readlink -f "$$(command -v $(SWIFT))")"); [ -x "$$d/ld.lld" ] && echo "$$d/ld.lld")
TOOLSET := .build/lodestar-toolset.json
LINK_FLAGS := --static-swift-stdlib $(if $(LLD),--toolset $(CURDIR)/$(TOOLSET) -Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections)
DEMO_CAPTURE := captures/simulated-drive.lcap
FUZZ_SECONDS ?= 600
SOAK_SECONDS ?= 600

.PHONY: deb package-test ubx-test-venv all deps test-deps hil-deps build test hil demo bench eval fuzz install uninstall clean fleet fleet-test-deps map-test-deps map-picture

all: build

$(TOOLSET): Makefile
	@mkdir -p .build
	@printf '{ "schemaVersion": "1.0", "linker": { "path": "%s", "extraCLIOptions": ["-z", "pack-relative-relocs", "--gc-sections", "--icf=all", "--symbol-ordering-file=%s", "--no-warn-symbol-ordering", "--no-export-dynamic"] } }\n' "$(LLD)" "$(CURDIR)/scripts/link-order.txt" > $@

# Installs the Debian packages that are missing (a no-op when all are present).
deps:
	@missing=""; for p in $(DEBIAN_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing:$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

# Installs the missing packages of $(1) (a no-op when all are present).
define apt_missing
	@missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then echo "Installing:$$missing"; SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing; fi
endef

test-deps: deps
	$(call apt_missing,$(TEST_PACKAGES))

hil-deps: deps
	$(call apt_missing,$(HIL_PACKAGES))

# The release binary links the Swift runtime statically: nothing but Debian's C libraries is needed on a board,
# and start-up touches fewer pages (lower RSS).
build: deps $(TOOLSET)
	$(SWIFT) build -c $(CONFIG) --product lodestar $(LINK_FLAGS)

# Test-only: pyubx2 (an independent Python UBX implementation) builds the expected frames of Tests/UBXTests
# (scripts/ubx-test-frames.py). A board never needs it.
UBX_VENV := .build/venv
ubx-test-venv: $(UBX_VENV)/bin/python3
$(UBX_VENV)/bin/python3:
	@dpkg-query -W -f='$${Status}' python3-venv 2>/dev/null | grep -q "install ok installed" || python3 -m venv --help >/dev/null 2>&1 || \
	  { SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq python3-venv; }
	python3 -m venv $(UBX_VENV) && $(UBX_VENV)/bin/pip install -q pyubx2

# Without a terminal (CI) the test run is bounded (TEST_TIMEOUT seconds; a clean run takes 25-30 min here): a run
# that hangs (stop 56: a trapped test whose runner never exited) fails with its own line instead of at CI's limit,
# with time left for hil. At a terminal it runs as is (timeout's own process group would keep Ctrl-C from it).
TEST_TIMEOUT ?= 4200
test: test-deps map-test-deps ubx-test-venv
	@if [ -t 0 ]; then exec $(SWIFT) test --disable-xctest; fi; \
	  timeout -k 30 $(TEST_TIMEOUT) $(SWIFT) test --disable-xctest; rc=$$?; \
	  if [ $$rc = 124 ] || [ $$rc = 137 ]; then echo "make test: swift test did not end within $(TEST_TIMEOUT) s (a hung test or runner)"; fi; \
	  exit $$rc
	$(SWIFT) build --product LodestarFuzz && .build/debug/LodestarFuzz Tests/Fuzz/corpus/*

# Hardware-in-the-loop: Debian's kernel under qemu with i2c-stub, IIO drivers, a USB serial gadget and udevd
# (scripts/hil/hil.sh; docs/devices.md "Verified against a real kernel"). Downloads only Debian's kernel package.
hil: hil-deps $(TOOLSET)
	$(SWIFT) build -c release --product lodestar $(LINK_FLAGS)
	scripts/hil/hil.sh

# Installs what the fleet build and the MQTT/PostgreSQL tests need (only what is missing).
fleet-test-deps: deps
	$(call apt_missing,$(FLEET_PACKAGES) $(MQTT_TEST_PACKAGES))

# lodestar-fleet, installed beside lodestar (`lodestar fleet` runs it).
fleet: deps $(TOOLSET)
	$(call apt_missing,$(FLEET_PACKAGES))
	$(SWIFT) build -c $(CONFIG) --product lodestar-fleet $(LINK_FLAGS)

map-test-deps:
	@missing=""; for p in $(MAP_TEST_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing; fi

# The README's picture: `lodestar map` of the shipped capture, screenshot by headless Chromium.
map-picture: build map-test-deps
	scripts/map-picture.sh $(BIN)

demo: build
	$(BIN) replay $(DEMO_CAPTURE)

bench: deps $(TOOLSET)
	@missing=""; for p in $(BENCH_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; fi
	$(SWIFT) build -c release --product lodestar $(LINK_FLAGS)
	$(SWIFT) build -c release --product LodestarBench $(LINK_FLAGS)
	$(SWIFT) build -c release --product LodestarEval $(LINK_FLAGS)
	scripts/bench.sh
	python3 scripts/soak.py .build/release/lodestar $(SOAK_SECONDS)
	@$(MAKE) --no-print-directory fleet-test-deps
	$(SWIFT) build -c release --product lodestar-fleet $(LINK_FLAGS)
	$(SWIFT) build -c release --product FleetBench $(LINK_FLAGS)
	scripts/fleet-bench.sh

# Heading accuracy on the real recordings in ../shared/data/mag (BROAD trials, x-io Fusion) through the session pipeline and
# by the estimator alone, and its per-sample cost;
# position smoothing raw vs smoothed on ../shared/data/gnss (GSDC Pixel 4, F9K, the walk with a real IMU).
# All release builds take the same flags (LINK_FLAGS), so one build directory serves them without recompiling.
# (`swift run` takes no --static-swift-stdlib: the tools are built with the flags, then run.)
eval: deps $(TOOLSET)
	$(SWIFT) build -c release $(LINK_FLAGS) --product LodestarEval
	$(SWIFT) build -c release $(LINK_FLAGS) --product SmoothingEval
	$(SWIFT) build -c release $(LINK_FLAGS) --product GeocodingEval
	.build/release/LodestarEval
	.build/release/LodestarEval --estimator-only
	.build/release/LodestarEval bench
	.build/release/SmoothingEval
	python3 scripts/geodata/evalset.py > /tmp/lodestar-geocoding-eval.csv && .build/release/GeocodingEval /tmp/lodestar-geocoding-eval.csv

fuzz: deps
	scripts/fuzz.sh $(FUZZ_SECONDS)

# Debian packages from the tree into .build/: lodestar_VERSION_ARCH.deb (stripped; service, socket, udev rules,
# sysusers/tmpfiles, conffile), lodestar-fleet, and their -dbgsym packages; then lintian (docs/deployment.md
# "Debian packages"). ARCH=arm64 cross-builds with an installed Swift SDK (scripts/deb-cross.sh).
deb: deps
	$(call apt_missing,$(DEB_BUILD_PACKAGES) $(FLEET_PACKAGES))
ifeq ($(ARCH),$(HOST_ARCH))
	rm -f .build/lodestar*_$(ARCH).deb
	dpkg-checkbuilddeps
	debian/rules clean && debian/rules build && fakeroot debian/rules binary
	lintian --fail-on error --info .build/lodestar*_$(ARCH).deb
	@ls -l .build/*.deb
else
	SWIFT=$(SWIFT) scripts/deb-cross.sh $(ARCH)
endif

# Installs .build/lodestar_*.deb into a clean Debian 12 (debootstrap, cached in .build/package-test) with apt, runs it,
# purges it and checks nothing is left (scripts/package-test.sh; about 40 s after make deb, 2.5 min more the first time).
package-test: deb
	$(call apt_missing,$(PACKAGE_TEST_PACKAGES))
	scripts/package-test.sh

install: build
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
	  $(DESTDIR)$(PREFIX)/share/doc/lodestar $(DESTDIR)/etc/udev/rules.d $(DESTDIR)/etc/systemd/system \
	  $(DESTDIR)/etc/lodestar $(DESTDIR)/usr/lib/sysusers.d $(DESTDIR)/usr/lib/tmpfiles.d
	install -m 0755 -s $(BIN) $(DESTDIR)$(PREFIX)/bin/lodestar
	if [ -x .build/$(CONFIG)/lodestar-fleet ]; then install -m 0755 -s .build/$(CONFIG)/lodestar-fleet $(DESTDIR)$(PREFIX)/bin/lodestar-fleet; fi
	install -m 0644 docs/lodestar.1 $(DESTDIR)$(PREFIX)/share/man/man1/lodestar.1
	install -m 0644 docs/*.md README.md $(DESTDIR)$(PREFIX)/share/doc/lodestar/
	install -m 0644 udev/*.rules $(DESTDIR)/etc/udev/rules.d/
	sed 's|/usr/local/bin/lodestar|$(PREFIX)/bin/lodestar|; s|/usr/local/share/doc|$(PREFIX)/share/doc|' \
	  systemd/lodestar.service > $(DESTDIR)/etc/systemd/system/lodestar.service
	[ -e $(DESTDIR)/etc/lodestar/lodestar.conf ] || install -m 0644 systemd/lodestar.conf $(DESTDIR)/etc/lodestar/lodestar.conf
	sed 's|/usr/local/share/doc|$(PREFIX)/share/doc|' systemd/lodestar.socket > $(DESTDIR)/etc/systemd/system/lodestar.socket
	install -m 0644 systemd/sysusers.conf $(DESTDIR)/usr/lib/sysusers.d/lodestar.conf
	install -m 0644 systemd/tmpfiles.conf $(DESTDIR)/usr/lib/tmpfiles.d/lodestar.conf
	@if [ -z "$(DESTDIR)" ] && [ -d /run/systemd/system ]; then \
	  systemd-sysusers lodestar.conf && systemd-tmpfiles --create lodestar.conf && \
	  udevadm control --reload && systemctl daemon-reload && \
	  echo "Installed. Edit /etc/lodestar/lodestar.conf, then: sudo systemctl enable --now lodestar"; fi

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/lodestar $(DESTDIR)$(PREFIX)/share/man/man1/lodestar.1
	rm -rf $(DESTDIR)$(PREFIX)/share/doc/lodestar
	rm -f $(DESTDIR)/etc/udev/rules.d/60-lodestar.rules $(DESTDIR)/etc/systemd/system/lodestar.service $(DESTDIR)/etc/systemd/system/lodestar.socket \
	  $(DESTDIR)/usr/lib/sysusers.d/lodestar.conf $(DESTDIR)/usr/lib/tmpfiles.d/lodestar.conf
	@echo "Kept /etc/lodestar/lodestar.conf and the lodestar user."

clean:
	rm -rf .build .build-fuzz .build-hil
