# Larder: `make test` runs the test suite, `make speed` the speed comparison (later issue).
# Both install the Debian packages they need when they are missing.

SYSTEM_PACKAGES := libtokyocabinet-dev libssl-dev zlib1g-dev libsqlite3-dev pkg-config tokyocabinet-bin wamerican
SWIFT ?= swift

SCALE ?= 1
REPEAT ?= 3

.PHONY: test build deps clean speed

deps:
	@missing=""; \
	for p in $(SYSTEM_PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "Installing:$$missing"; \
		SUDO=""; [ "$$(id -u)" -ne 0 ] && SUDO="sudo"; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

build: deps
	$(SWIFT) build

test: deps
	$(SWIFT) test

# The speed comparison: every workload on Larder, SQLite, GRDB and raw Tokyo Cabinet, each in
# its own process, in release mode. Writes SpeedTests/RESULTS.md and SpeedTests/results.svg.
# `SCALE=0.1 make speed` for a quick run.
speed: deps
	$(SWIFT) build -c release
	"$$($(SWIFT) build -c release --show-bin-path)/SpeedCompare" --scale $(SCALE) --repeat $(REPEAT) --out SpeedTests

clean:
	rm -rf .build
