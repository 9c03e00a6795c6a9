# slackline: the two commands a newcomer needs are `make dev` and `make test`.
# Both install whatever is missing first (scripts/setup.sh), so they work on a fresh machine.

SHELL := bash
PORT ?= 8787
INSPECTOR_PORT ?= $(shell echo $$(( $(PORT) + 1000 )))
PERSIST_TO ?= .wrangler/state

CARGO_BIN := $(or $(CARGO_HOME),$(HOME)/.cargo)/bin
export PATH := $(CURDIR)/node_modules/.bin:$(CARGO_BIN):$(PATH)
# worker-build would download these from GitHub, which these machines cannot reach.
export WASM_BINDGEN_BIN = $(CARGO_BIN)/wasm-bindgen
export ESBUILD_BIN = $(CURDIR)/node_modules/.bin/esbuild
export WRANGLER_SEND_METRICS = false
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER = wasm-bindgen-test-runner
# V8 flags for workerd (e.g. MINIFLARE_WORKERD_V8_FLAGS=--perf-basic-prof for perf, see
# docs/benchmarks.md) turn on V8's log too, which workerd writes as isolate-*-v8.log files into its
# working directory: the repository root. Unless the flags choose a --logfile, it goes to /dev/null
# (perf's symbol maps, /tmp/perf-<pid>.map, are written all the same).
ifneq ($(strip $(MINIFLARE_WORKERD_V8_FLAGS)),)
ifeq ($(findstring --logfile,$(MINIFLARE_WORKERD_V8_FLAGS)),)
export MINIFLARE_WORKERD_V8_FLAGS += --no-logfile-per-isolate --logfile=/dev/null
endif
endif

# The bot make dev, make try and the tests serve: a crate of examples/ built on the library.
APP ?= echo
BOT := examples/$(APP)
WORKER_SOURCES := $(shell find src $(BOT)/src -name '*.rs') Cargo.toml Cargo.lock $(BOT)/Cargo.toml

FUZZ_TARGETS := signature events command interaction
FUZZ_SECONDS ?= 10

.PHONY: setup setup-tests build worker dev sim docs try test test-checks lint test-wasm test-template test-template-build test-template-flow new fuzz fuzz-smoke bench soak clean

setup:
	@scripts/setup.sh

# What only slackline's own suite uses on top (cargo-fuzz, Chromium, jq): a bot never installs it.
setup-tests:
	@scripts/setup.sh --for-tests

# The Worker bundle. Rebuilt only when a source changed, so wrangler's [build] hook and the
# end-to-end harness can call it on every start for free. TESTKIT=1 (the tests and benchmarks)
# builds the bot with slackline's test scaffolding into build-testkit/ instead: the test hooks, the
# tally, the meter, the seeding. The bundle `make dev` serves and `wrangler deploy` ships has none;
# `make dev TESTKIT=1` serves the one with it (with ALLOW_TEST_CLOCK=1 in .dev.vars, the test clock
# that `slackline-sim advance` moves).
TESTKIT ?=
BUILD_DIR := build$(if $(TESTKIT),-testkit)
$(BOT)/$(BUILD_DIR)/index.js: $(WORKER_SOURCES)
	cd $(BOT) && $(CURDIR)/scripts/worker-build.sh --release --out-dir $(BUILD_DIR) $(if $(TESTKIT),-- --features testkit)
	@touch $(BOT)/$(BUILD_DIR)/index.js

worker: $(BOT)/$(BUILD_DIR)/index.js

build: setup
	@$(MAKE) --no-print-directory worker

.dev.vars:
	cp .dev.vars.example .dev.vars
	@echo "created .dev.vars from .dev.vars.example (edit it; make dev never overwrites it)"

dev: build .dev.vars
	@scripts/check-dev-vars.sh .dev.vars
	wrangler dev --config wrangler.toml $(BOT)/$(BUILD_DIR)/index.js --ip 127.0.0.1 --port $(PORT) --inspector-port $(INSPECTOR_PORT) --persist-to $(PERSIST_TO)

# The fake Slack `make dev` talks to out of the box (.dev.vars.example): slackline-sim serve on
# SIM_PORT (8790), every call it receives printed; Ctrl-C stops it.
SIM_PORT ?= 8790
sim: setup
	cargo build --quiet --locked -p slackline-sim --bin slackline-sim
	target/debug/slackline-sim serve --port $(SIM_PORT)

# The crate's API docs, every listener, input and helper: open target/doc/slackline/index.html.
docs: setup
	cargo doc --locked --no-deps --package slackline --quiet
	@echo "slackline's API docs: file://$(CURDIR)/target/doc/slackline/index.html"

# The round trip without Slack: the simulator's fake Slack, slackline, a mention and its reply
# (APP=triage: the triage bot's flow, /incident to Resolve; APP=tickets: the ticket desk's flow.sim,
# a Workflow step completing and a link unfurled as a Work Object among its steps).
try: build
	scripts/try.sh $(APP)

# Each step is timed (scripts/step.sh): the run ends with where its minutes went. Two phases on
# the 2 cores: first everything that only needs CPU side by side (the lint, the native and wasm32
# test builds with the doc tests and the wasm32 tests, the fuzz smoke, the template's build and
# test, the bundles the end-to-end tests serve, the tests that time nothing), each build in its
# own cargo target directory where it can (one cargo lock per directory); the check that the
# template's production bundle carries none of the test scaffolding a testkit bundle has
# (scripts/check-production-bundle.sh); then, alone, the steps
# that run Workers and time their answers: the end-to-end tests (scripts/e2e.sh), the examples'
# flows (make try, against the bundles the first phase built, TESTKIT=1, scripts/try.sh) and the
# template's flow.
test:
	@scripts/step.sh begin
	@scripts/step.sh setup scripts/setup.sh --for-tests
	@scripts/step.sh background checks $(MAKE) --no-print-directory test-checks
	@scripts/step.sh background template-build $(MAKE) --no-print-directory test-template-build
	@scripts/step.sh background fuzz-smoke $(MAKE) --no-print-directory fuzz-smoke
	@scripts/step.sh bundles scripts/testkit-bundles.sh
	@scripts/step.sh wait checks
	@scripts/step.sh wait template-build
	@scripts/step.sh bundle-check scripts/check-production-bundle.sh $(TEMPLATE_CHECK)/build/index_bg.wasm examples/echo/build-testkit/index_bg.wasm
	@scripts/step.sh wait fuzz-smoke
	@scripts/step.sh e2e scripts/e2e.sh
	@scripts/step.sh try-echo $(MAKE) --no-print-directory try TESTKIT=1
	@scripts/step.sh try-triage $(MAKE) --no-print-directory try APP=triage TESTKIT=1
	@scripts/step.sh try-tickets $(MAKE) --no-print-directory try APP=tickets TESTKIT=1
	@scripts/step.sh template-flow $(MAKE) --no-print-directory test-template-flow
	@scripts/step.sh report

# Every test binary but the end-to-end suite (tests/e2e/, run by scripts/e2e.sh).
NATIVE_TESTS := $(patsubst tests/%.rs,--test %,$(wildcard tests/*.rs)) $(patsubst sim/tests/%.rs,--test %,$(wildcard sim/tests/*.rs))

# make test's first phase, in target/debug and target/wasm32-unknown-unknown/debug: the lint, then
# every test built, and run where nothing in them keeps time (the native tests but the
# end-to-end suite, the doc tests, the wasm32 core tests), make try's simulator built.
test-checks:
	@scripts/step.sh lint $(MAKE) --no-print-directory lint
	@scripts/step.sh test-build cargo test --locked --workspace --lib --bins --tests --no-run --quiet
	@scripts/step.sh native-tests cargo test --locked --workspace --lib --bins $(NATIVE_TESTS) --quiet
	@scripts/step.sh sim-build cargo build --quiet --locked -p slackline-sim --bin slackline-sim
	@scripts/step.sh doc-tests cargo test --locked --doc --quiet
	@scripts/step.sh test-wasm $(MAKE) --no-print-directory test-wasm

# rustfmt (rustfmt.toml) and clippy with every warning an error, native and wasm32 (the adapters
# exist only there), the production build and the tests' (testkit); the crate's docs (cargo doc's
# front page) with every broken link an error; the fuzz crate is its own workspace.
lint: setup
	cargo fmt --check
	cargo fmt --check --manifest-path fuzz/Cargo.toml
	cargo clippy --locked --workspace --all-targets --quiet -- -D warnings
	cargo clippy --locked --workspace --lib --target wasm32-unknown-unknown --quiet -- -D warnings
	cargo clippy --locked --package slackline --lib --tests --features testkit --target wasm32-unknown-unknown --quiet -- -D warnings
	RUSTDOCFLAGS="-D warnings" cargo doc --locked --no-deps --package slackline --quiet

# A new bot from the template (template/): its own folder, Cargo.toml (slackline by path, this
# checkout, pinned to this release), wrangler.toml, manifest.json, src/ with a test, README,
# Makefile, flow.sim, named NAME everywhere (crate, Worker, Slack app, bot user, command):
# NAME defaults to DIR's last component, made a name cargo and Slack take (lowercase letters,
# digits and dashes; a command name is at most 32 characters).
new:
	@test -n "$(DIR)" || { echo "usage: make new DIR=path/to/mybot [NAME=mybot]"; exit 2; }
	@test ! -e "$(DIR)" || { echo "make new: $(DIR) already exists"; exit 2; }
	@name="$(or $(NAME),$(notdir $(abspath $(DIR))))"; \
	  echo "$$name" | grep -Eq '^[a-z][a-z0-9-]{0,30}$$' || { echo "make new: NAME=$$name: use lowercase letters, digits and dashes, a letter first, at most 31 (it names the crate, the Worker and /$$name)"; exit 2; }; \
	  mkdir -p "$(DIR)" && cp -R template/. "$(DIR)/" && cp Cargo.lock "$(DIR)/Cargo.lock"; \
	  sed -i "s#SLACKLINE_PATH#$(CURDIR)#g" "$(DIR)/Cargo.toml" "$(DIR)/Makefile" "$(DIR)/README.md"; \
	  grep -rlZ mybot "$(DIR)" --exclude=Cargo.lock | xargs -0 -r sed -i "s/mybot/$$name/g"; \
	  echo "created $(DIR) (the bot $$name): cd $(DIR) && make test && make dev"

# The template builds to wasm32, passes its own test and runs its flow.sim against wrangler dev and
# the fake Slack (its `make flow`), as a user gets it from `make new`. It
# shares the workspace's target folder: what the bots' builds compiled (the std rebuilt for
# unwinding, slackline, worker) is not compiled again. The bot made last time is kept while `make
# new` makes the same files (so cargo and its Makefile rebuild only what changed), and its bundle
# is rebuilt whenever slackline's sources are newer.
TEMPLATE_CHECK := target/template-check
TEMPLATE_NEW := target/template-new
test-template: test-template-build test-template-flow

# The template's bot made (or kept) and built, its own test run: no Worker served yet.
test-template-build:
	rm -rf $(TEMPLATE_NEW)
	$(MAKE) --no-print-directory new DIR=$(TEMPLATE_NEW) NAME=checkbot
	@! grep -rn mybot $(TEMPLATE_NEW) --exclude=Cargo.lock || { echo "make new left the template's name behind (above)"; exit 1; }
	@if diff -rq -x build -x target -x .wrangler -x .dev.vars $(TEMPLATE_NEW) $(TEMPLATE_CHECK) >/dev/null 2>&1; then \
	  rm -rf $(TEMPLATE_NEW); echo "test-template: $(TEMPLATE_CHECK) is up to date"; \
	else rm -rf $(TEMPLATE_CHECK) && mv $(TEMPLATE_NEW) $(TEMPLATE_CHECK); fi
	@if [ -n "$$(find src Cargo.toml Cargo.lock -newer $(TEMPLATE_CHECK)/build/index.js 2>/dev/null | head -1)" ]; then rm -f $(TEMPLATE_CHECK)/build/index.js; fi
	CARGO_TARGET_DIR=$(CURDIR)/target $(MAKE) --no-print-directory -C $(TEMPLATE_CHECK) test

# The template's flow.sim against wrangler dev and the fake Slack (its `make flow`).
test-template-flow:
	CARGO_TARGET_DIR=$(CURDIR)/target $(MAKE) --no-print-directory -C $(TEMPLATE_CHECK) flow

test-wasm:
	cargo test --locked --target wasm32-unknown-unknown --test wasm_core

# Figures, not pass/fail: see docs/benchmarks.md. BENCH_QUICK=1 runs a tenth of the load.
bench: build
	cargo bench --locked --bench load

# The reliability suite at ten times the load (make test runs it at smoke scale).
soak: build
	SLACKLINE_SOAK=1 cargo test --locked --test e2e reliability:: -- --nocapture

# cargo fuzz needs nightly-only flags; RUSTC_BOOTSTRAP lets the stable toolchain take them.
# `make fuzz` runs each target for FUZZ_SECONDS (default 10 in the smoke, e.g. 300 by hand). The
# targets are built once, then run two at a time (one per core), each into its own log. The smoke
# (make test) builds them unoptimized and without AddressSanitizer (FUZZ_BUILD): a third of the
# build time, with overflow checks and debug assertions on, for fewer runs in its 10 s; `make fuzz`
# builds them as cargo fuzz does by default (optimized, AddressSanitizer) for long runs.
FUZZ_BUILD ?= --dev --sanitizer none
fuzz-smoke: setup-tests
	@mkdir -p target/fuzz-logs
	@RUSTC_BOOTSTRAP=1 cargo fuzz build $(FUZZ_BUILD) --fuzz-dir fuzz > target/fuzz-logs/build.log 2>&1 || { cat target/fuzz-logs/build.log; exit 1; }
	@set -- $(FUZZ_TARGETS); failed=0; \
	while [ $$# -gt 0 ]; do \
	  pids=""; for t in $$1 $${2:-}; do \
	    mkdir -p fuzz/corpus/$$t; \
	    ( RUSTC_BOOTSTRAP=1 cargo fuzz run $(FUZZ_BUILD) --fuzz-dir fuzz $$t fuzz/corpus/$$t fuzz/seeds/$$t -- \
	        -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 > target/fuzz-logs/$$t.log 2>&1 ) & pids="$$pids $$!"; \
	  done; \
	  for p in $$pids; do wait $$p || failed=1; done; shift; shift 2>/dev/null || true; \
	done; \
	for t in $(FUZZ_TARGETS); do \
	  echo "fuzz: $$t for $(FUZZ_SECONDS) s"; grep -E "^(stat::number_of_executed_units|Done|==|SUMMARY)" target/fuzz-logs/$$t.log; \
	done; \
	[ $$failed = 0 ] || { echo "fuzz-smoke: a target failed (target/fuzz-logs/)"; exit 1; }

fuzz:
	@$(MAKE) --no-print-directory fuzz-smoke FUZZ_BUILD=

clean:
	rm -rf build examples/*/build examples/*/build-testkit benches/apps/*/build benches/apps/*/build-testkit target .wrangler
