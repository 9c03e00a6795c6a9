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

WORKER_SOURCES := $(shell find src -name '*.rs') Cargo.toml Cargo.lock

.PHONY: setup build worker dev test test-native test-wasm test-e2e clean

setup:
	@scripts/setup.sh

# The Worker bundle. Rebuilt only when a source changed, so wrangler's [build] hook and the
# end-to-end harness can call it on every start for free.
build/index.js: $(WORKER_SOURCES)
	worker-build --release
	@touch build/index.js

worker: build/index.js

build: setup
	@$(MAKE) --no-print-directory worker

.dev.vars:
	cp .dev.vars.example .dev.vars
	@echo "created .dev.vars from .dev.vars.example (edit it; make dev never overwrites it)"

dev: build .dev.vars
	wrangler dev --ip 127.0.0.1 --port $(PORT) --inspector-port $(INSPECTOR_PORT) --persist-to $(PERSIST_TO)

test: build
	cargo test --locked --lib --bins --tests --quiet -- --test-threads=4
	$(MAKE) --no-print-directory test-wasm

test-wasm:
	cargo test --locked --target wasm32-unknown-unknown --test wasm_core

clean:
	rm -rf build target .wrangler
