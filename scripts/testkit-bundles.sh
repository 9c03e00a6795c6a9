#!/usr/bin/env bash
# The bots the end-to-end tests serve, compiled in one cargo invocation before the tests start
# (`make testkit-bundles`): their final links (whole-program LTO, one codegen unit, one core
# each) then run side by side instead of one after another as each test first asks for its bot.
# The tests' own `make worker TESTKIT=1 BOT=…` then finds the compile done and only runs
# wasm-bindgen and esbuild. Same flags as scripts/worker-build.sh, so the artifacts are the ones
# worker-build's own `cargo build` would make.
set -euo pipefail
cd "$(dirname "$0")/.."
export RUSTC_BOOTSTRAP=1
export CARGO_UNSTABLE_BUILD_STD=std,panic_unwind
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-Cpanic=unwind -Clink-arg=--strip-all -Clink-arg=--keep-section=target_features"
bots=(echo triage tickets hello digest)
packages=() features=()
for bot in "${bots[@]}"; do
  packages+=(-p "slackline-$bot")
  features+=("slackline-$bot/testkit")
done
cargo build --locked --quiet --lib --release --target wasm32-unknown-unknown "${packages[@]}" --features "$(IFS=,; echo "${features[*]}")"
for bot in "${bots[@]}"; do
  make --no-print-directory worker TESTKIT=1 BOT="examples/$bot"
done
