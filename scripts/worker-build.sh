#!/usr/bin/env bash
# worker-build, with panics that unwind: the standard library is rebuilt with panic=unwind
# (the rust-src component; RUSTC_BOOTSTRAP lets the stable toolchain take cargo's -Zbuild-std, as
# for the fuzz targets) and the Worker compiled with -Cpanic=unwind, so a handler's panic is
# caught and recorded as `handler_failed` (src/app/guard.rs) instead of aborting the Wasm
# instance with every request and alarm in flight. The bots' Makefiles (and the template's) build
# through this script. A RUSTFLAGS of your own replaces the target's flags: add -Cpanic=unwind (and
# the strip flags below) to it. `scripts/worker-build.sh --cargo ARGS` runs cargo ARGS with the
# same settings instead (scripts/testkit-bundles.sh: a compile worker-build then finds done).
set -euo pipefail
export RUSTC_BOOTSTRAP=1
export CARGO_UNSTABLE_BUILD_STD=std,panic_unwind
# The Worker's wasm without its function names (about 96 KiB less gzipped; docs/benchmarks.md) but
# with the target_features section wasm-bindgen reads to know which Wasm features the code uses:
# cargo's `strip = true` drops both, and wasm-bindgen then warns. KEEP_NAMES=1 keeps the names, so
# that a panic's stack trace shows them (docs/operations.md, "Debugging a panic").
strip="-Clink-arg=--strip-all -Clink-arg=--keep-section=target_features"
[[ -n "${KEEP_NAMES:-}" ]] && strip=""
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-Cpanic=unwind $strip"
[[ "${1:-}" == --cargo ]] && shift && exec cargo "$@"
exec worker-build "$@"
