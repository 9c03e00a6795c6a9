#!/usr/bin/env bash
# Builds an older release's Worker for the interleaved comparisons of `make bench`
# (BENCH_BEFORE): `scripts/bench-before.sh COMMIT` unpacks COMMIT (git archive, no worktree) into
# target/bench-before/COMMIT, builds its bundle with its own Makefile and this checkout's tools,
# and prints the folder, e.g.
#   BENCH_BEFORE=$(scripts/bench-before.sh 705baa9) BENCH_ONLY=dispatch make bench
set -euo pipefail
cd "$(dirname "$0")/.."
commit=${1:?usage: scripts/bench-before.sh COMMIT}
root=$PWD
dir=$root/target/bench-before/$commit
if [ ! -f "$dir/wrangler.toml" ]; then
  rm -rf "$dir" && mkdir -p "$dir"
  git archive "$commit" | tar -x -C "$dir"
fi
# Inside this checkout, cargo would take it for a member of this workspace: its own, then.
grep -q '^\[workspace\]' "$dir/Cargo.toml" || printf '\n[workspace]\n' >> "$dir/Cargo.toml"
cargo_bin=${CARGO_HOME:-$HOME/.cargo}/bin
export PATH=$root/node_modules/.bin:$cargo_bin:$PATH
export WASM_BINDGEN_BIN=$cargo_bin/wasm-bindgen ESBUILD_BIN=$root/node_modules/.bin/esbuild
# Its own target folder (its dependencies at its versions), kept between runs.
export CARGO_TARGET_DIR=$root/target/bench-before-target
make -C "$dir" --no-print-directory worker >&2
echo "$dir"
