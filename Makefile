# Larder: `make test` runs the test suite, `make speed` the speed comparison (later issue),
# `make fuzz` the long fuzzing of every decoder of untrusted bytes.
# All install the Debian packages they need when they are missing.

SYSTEM_PACKAGES := libtokyocabinet-dev libssl-dev zlib1g-dev libsqlite3-dev pkg-config tokyocabinet-bin wamerican etcd-server
SWIFT ?= swift

SCALE ?= 1
REPEAT ?= 3
# The etcd engines' scale (etcd is far slower than a local file); 0 leaves them out.
ETCD_SCALE ?= 0.1

.PHONY: test build deps clean speed fuzz fuzz-mutation power-loss query-random thread-sanitizer interchange-scale

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

# The library's tests, then the speed tests' smoke run (their own package, SpeedTests/: it
# brings GRDB, which the library's package does not depend on).
test: deps
	$(SWIFT) test
	$(SWIFT) test --package-path SpeedTests

# The speed comparison: every workload on Larder, SQLite, GRDB and raw Tokyo Cabinet, each in
# its own process, in release mode; then the BNR workloads at ETCD_SCALE on Larder on etcd and a
# raw etcd client, on a 3-member cluster SpeedCompare starts and stops. Writes
# SpeedTests/RESULTS.md and SpeedTests/results.svg. `SCALE=0.1 make speed` for a quick run.
speed: deps
	$(SWIFT) build -c release --package-path SpeedTests
	"$$($(SWIFT) build -c release --package-path SpeedTests --show-bin-path)/SpeedCompare" --scale $(SCALE) --repeat $(REPEAT) --etcd-scale $(ETCD_SCALE) --out SpeedTests --readme README.md

# Fuzzing: every decoder of untrusted bytes (Sources/*/Fuzzing) on FUZZ_INPUTS inputs each.
# `make fuzz`: coverage-guided, libFuzzer with AddressSanitizer, in its own build folder; the
# corpus grows in .build-fuzz/corpus/<target>, starting from the target's seeds and
# Tests/FuzzCorpus/<target>;
# a failing input is saved to fuzz-failures/<target>/ (copy it into Tests/FuzzCorpus/<target>/
# once fixed). `FUZZ_TARGETS=jsonBinary make fuzz` for one target.
# About 9 minutes on a 2-core VM (searchQuery takes 5 of them).
# `make fuzz-mutation`: the deterministic mutation fuzzer instead (no libFuzzer needed);
# FUZZ_SEED replays a run.
FUZZ_INPUTS ?= 1000000
FUZZ_TARGETS ?= dataBuffer recordPage sealedPage recordEnvelope commitJournal classRecord objectIndexRecord encryptionRecord changeRecord historyRecord textIndex searchQuery jsonBinary indexRun documentQuery jsonText interchange storedModelSchema storedModelContent
FUZZ_BUILD := .build-fuzz

fuzz: deps
	$(SWIFT) build -c release --scratch-path $(FUZZ_BUILD) --product LarderFuzz -Xswiftc -sanitize=fuzzer,address -Xswiftc -DLARDER_LIBFUZZER
	@bin="$$($(SWIFT) build -c release --scratch-path $(FUZZ_BUILD) --show-bin-path)"; failed=""; \
	for target in $(FUZZ_TARGETS); do \
		mkdir -p $(FUZZ_BUILD)/corpus/$$target fuzz-failures/$$target; \
		for kept in Tests/FuzzCorpus/$$target/*; do \
			case "$$kept" in */\*) ;; *) cp "$$kept" $(FUZZ_BUILD)/corpus/$$target/;; esac; \
		done; \
		echo "== $$target: $(FUZZ_INPUTS) inputs"; start=$$(date +%s); \
		SWIFT_BACKTRACE=enable=no LARDER_FUZZ_TARGET=$$target LARDER_FUZZ_SEEDS=$(FUZZ_BUILD)/corpus/$$target \
			"$$bin/LarderFuzz" -runs=$(FUZZ_INPUTS) -timeout=10 -rss_limit_mb=4096 -detect_leaks=0 -print_final_stats=1 \
			-artifact_prefix=fuzz-failures/$$target/ $(FUZZ_BUILD)/corpus/$$target \
			> fuzz-failures/$$target.log 2>&1; \
		grep -E '^(Done|stat::number_of_executed_units|FAILURE|Fatal error|==[0-9]+==ERROR|Test unit written)' fuzz-failures/$$target.log; \
		[ -n "$$(ls fuzz-failures/$$target)" ] && failed="$$failed $$target"; \
		echo "== $$target: $$(( $$(date +%s) - start )) s"; \
	done; \
	if [ -n "$$failed" ]; then echo "failures in:$$failed (inputs in fuzz-failures/)"; exit 1; fi

FUZZ_SEED ?= $(shell date +%s)
fuzz-mutation: deps
	$(SWIFT) build -c release --product LarderFuzz
	@bin="$$($(SWIFT) build -c release --show-bin-path)"; status=0; \
	for target in $(FUZZ_TARGETS); do \
		"$$bin/LarderFuzz" --target $$target --inputs $(FUZZ_INPUTS) --seed $(FUZZ_SEED) --out fuzz-failures || status=1; \
	done; exit $$status

# Simulated power cuts (Tests/LarderTests/PowerLossTests.swift): POWER_CUTS cuts from
# POWER_CUT_SEED (`make test` runs 100); POWER_CUT_KEEP=DIR keeps the last failed cut's files.
POWER_CUTS ?= 2000
POWER_CUT_SEED ?= $(shell date +%s)
power-loss: deps
	$(SWIFT) build --build-tests
	POWER_CUTS=$(POWER_CUTS) POWER_CUT_SEED=$(POWER_CUT_SEED) $(SWIFT) test --skip-build --filter PowerLossTests/everyAcknowledgedSaveSurvivesSimulatedPowerCuts

# Object queries against a brute-force oracle at the scale of the issue that asked for them
# (Tests/LarderTests/ObjectQueryRandomTests.swift): 20,000 objects, 2,000 random predicates;
# `make test` runs 5,000 and 500. QUERY_RANDOM_SEED=<printed seed> replays a run.
QUERY_RANDOM_OBJECTS ?= 20000
QUERY_RANDOM_QUERIES ?= 2000
query-random: deps
	$(SWIFT) build --build-tests
	QUERY_RANDOM_OBJECTS=$(QUERY_RANDOM_OBJECTS) QUERY_RANDOM_QUERIES=$(QUERY_RANDOM_QUERIES) $(SWIFT) test --skip-build --filter ObjectQueryRandomTests

# The interchange at scale (Tests/LarderCrashWorker/InterchangeScale.swift): a store of
# INTERCHANGE_SCALE_OBJECTS objects made, exported, imported into an empty store and exported
# again in a release build, each step in a child process that reports its peak memory; fails if
# an export or import goes over 200 MB or the two exports differ. `make test` runs 20,000
# (InterchangeScaleTests).
INTERCHANGE_SCALE_OBJECTS ?= 1000000
INTERCHANGE_SCALE_DIR ?= /tmp/larder-interchange-scale
interchange-scale: deps
	$(SWIFT) build -c release --product LarderCrashWorker
	rm -rf $(INTERCHANGE_SCALE_DIR)
	"$$($(SWIFT) build -c release --show-bin-path)/LarderCrashWorker" interchange-scale $(INTERCHANGE_SCALE_DIR) $(INTERCHANGE_SCALE_OBJECTS) 200; \
		status=$$?; rm -rf $(INTERCHANGE_SCALE_DIR); exit $$status

# The suites that share a store across tasks (StorePool, its snapshot reads and gates, the
# documents' async API and feeds) under ThreadSanitizer, in their own build folder: any data race
# it reports fails the run. About 6 minutes on a 2-core VM, most of it the instrumented build.
TSAN_BUILD := .build-tsan
TSAN_FILTER ?= StorePoolTests|SnapshotViewTests|AsyncGateTests|ChangeFeedTests|DocumentChangeTests|CacheAndConcurrencyTests
thread-sanitizer: deps
	$(SWIFT) build --build-tests --scratch-path $(TSAN_BUILD) --sanitize=thread
	TSAN_OPTIONS=halt_on_error=1 $(SWIFT) test --skip-build --scratch-path $(TSAN_BUILD) --sanitize=thread --filter '$(TSAN_FILTER)'

clean:
	rm -rf .build SpeedTests/.build $(FUZZ_BUILD) $(TSAN_BUILD)
