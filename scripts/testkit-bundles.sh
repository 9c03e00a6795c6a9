#!/usr/bin/env bash
# The bots the end-to-end tests serve, compiled in one cargo invocation before the tests start
# (`make test`'s bundles step): their final links (whole-program LTO, one codegen unit, one core
# each) then run side by side instead of one after another as each test first asks for its bot.
# The tests' own `make worker TESTKIT=1 BOT=…` then finds the compile done and only runs
# wasm-bindgen and esbuild. The compile runs with scripts/worker-build.sh's settings, so its
# artifacts are the ones worker-build's own `cargo build` would make.
set -euo pipefail
cd "$(dirname "$0")/.."
bots=(echo triage tickets hello digest)
packages=() features=()
for bot in "${bots[@]}"; do
  packages+=(-p "slackline-$bot")
  features+=("slackline-$bot/testkit")
done
scripts/worker-build.sh --cargo build --locked --quiet --lib --release --target wasm32-unknown-unknown "${packages[@]}" --features "$(IFS=,; echo "${features[*]}")"
for bot in "${bots[@]}"; do
  make --no-print-directory worker TESTKIT=1 BOT="examples/$bot"
done
