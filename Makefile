# The two commands of the README:
#   make demo   installs what is missing, builds, renders and plots Haptics/heartbeat.ahap (and plays it when a device is there)
#   make test   installs what is missing (sound servers included), builds, then runs three lanes at once: the
#               tests that need no sound server (in parallel), the *RigTests suites one at a time through the
#               sound-server rigs, and a fuzzing round
# Benchmarks (release builds) are `make bench`; see bench/README.md.
# Fuzzing (libFuzzer: AHAP reader, profile, .haptic, sound reader, cue-sheet, OSC, pattern loader): `make fuzz` (FUZZ_SECONDS per target,
# default 60; `make test` runs a 15 s round per target); see scripts/fuzz.sh.
# The C library: `make lib` links libhapticsynth (.so with its SONAME, .a) into $(LIBDIR).
# `make install [PREFIX=/usr/local] [DESTDIR=...]` installs the CLI and the studio's executable
# (the Swift runtime linked in statically: they need nothing of the toolchain), its data (patterns, sounds, cue sheet, actuator
# profiles), manual pages, shell completions, systemd user units, and the C library (header,
# .so with its private Swift runtime in lib/hapticsynth/, .a, pkg-config files); `make uninstall`
# removes them (scripts/install.sh). `make deb` builds the Debian package into $(OUT)
# (packaging/debian/build-deb.sh); `make package-test` installs it into a bare Debian 12 root and
# runs it there (scripts/package-test.sh); `make package-run` does that with the .deb already built.

SWIFT ?= swift
OUT ?= out

FUZZ_SECONDS ?= 60
PREFIX ?= /usr/local
DESTDIR ?=
LIBDIR ?= .build/lib
# The version (one place: VERSION) and the commit compiled into the CLI (Package.swift reads both).
VERSION := $(shell cat VERSION)
export HAPTICSYNTH_COMMIT ?= $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
# Release builds that need nothing of the toolchain at run time: the Swift runtime and Foundation
# linked into the executable.
RELEASE = $(SWIFT) build -c release --static-swift-stdlib

.PHONY: demo test deps build bench fuzz lib release install uninstall deb package-test package-run clean

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build

demo: deps
	$(SWIFT) build -c release --product hapticsynth
	@mkdir -p $(OUT)
	.build/release/hapticsynth render Haptics/heartbeat.ahap -o $(OUT)/heartbeat.wav
	.build/release/hapticsynth plot Haptics/heartbeat.ahap -o $(OUT)/heartbeat.png
	@echo "drew the pattern and its drive on bass-shaker to $(OUT)/heartbeat.png"
	@# ALSA's `null` PCM opens anywhere and discards what it is given: it is no device to play to.
	@dev=$$(.build/release/hapticsynth devices --usable 2>/dev/null | grep -vx null | head -n1); \
	if [ -n "$$dev" ]; then \
		echo "playing through ALSA device $$dev"; \
		.build/release/hapticsynth play -D "$$dev" Haptics/heartbeat.ahap; \
	else \
		echo "not playing live: no ALSA playback device can be opened here (ALSA's null PCM, which discards everything, does not count). What ALSA lists, and why each fails:"; \
		.build/release/hapticsynth devices 2>&1 | sed 's/^/  /'; \
		echo "rendered to $(OUT)/heartbeat.wav and drew $(OUT)/heartbeat.png; nothing played"; \
	fi

test:
	SWIFT=$(SWIFT) scripts/test.sh

fuzz: deps
	SWIFTC=$(SWIFT)c scripts/fuzz.sh $(FUZZ_SECONDS)

bench: deps
	SWIFT=$(SWIFT) bench/run.sh

lib: deps
	$(SWIFT) build -c release --target HapticSynthC
	scripts/link-library.sh "$$($(SWIFT) build -c release --show-bin-path)" $(LIBDIR)

release:
	$(RELEASE) --product hapticsynth
	$(RELEASE) --product hapticsynth-studio
	$(RELEASE) --target HapticSynthC

install: deps release
	DESTDIR="$(DESTDIR)" scripts/install.sh "$$($(SWIFT) build -c release --show-bin-path)" "$(PREFIX)"

uninstall:
	DESTDIR="$(DESTDIR)" scripts/install.sh --uninstall "$(PREFIX)"

deb: deps release
	packaging/debian/build-deb.sh "$$($(SWIFT) build -c release --show-bin-path)" $(OUT)

DEB = $(OUT)/hapticsynth_$(VERSION)_amd64.deb

package-test: deb
	scripts/package-test.sh $(DEB)

# Without `deb` as a prerequisite: each `swift build` in another environment plans the build
# again (about 17 s), and may then compile HummingbirdCore again (35 s more). CI builds the .deb
# inside `make test` (.ci/run).
package-run:
	scripts/package-test.sh $(DEB)

clean:
	rm -rf .build $(OUT)

# The Python package (python/, docs/python.md) as a platform wheel with the release library and
# its private Swift runtime inside, into $(OUT)/wheels.
.PHONY: wheel
wheel: lib
	python/build-wheel.sh $(LIBDIR) $(OUT)/wheels
