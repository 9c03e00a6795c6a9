#!/usr/bin/env bash
# worker-build, with panics that unwind: the standard library is rebuilt with panic=unwind
# (the rust-src component; RUSTC_BOOTSTRAP lets the stable toolchain take cargo's -Zbuild-std, as
# for the fuzz targets) and the Worker compiled with -Cpanic=unwind, so a handler's panic is
# caught and recorded as `handler_failed` (src/app/guard.rs) instead of aborting the Wasm
# instance with every request and alarm in flight. The bots' Makefiles (and the template's) build
# through this script. A RUSTFLAGS of your own replaces the target's flags: add -Cpanic=unwind to it.
set -euo pipefail
export RUSTC_BOOTSTRAP=1
export CARGO_UNSTABLE_BUILD_STD=std,panic_unwind
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-Cpanic=unwind"
exec worker-build "$@"
