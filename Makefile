# Larder: `make test` runs the test suite, `make speed` the speed comparison (later issue).
# Both install the Debian packages they need when they are missing.

SYSTEM_PACKAGES := libtokyocabinet-dev libssl-dev zlib1g-dev libsqlite3-dev pkg-config tokyocabinet-bin wamerican
SWIFT ?= swift

.PHONY: test build deps clean

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

clean:
	rm -rf .build
