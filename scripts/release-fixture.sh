#!/usr/bin/env bash
# Writes the Worker bundle of a release as a fixture: tests/fixtures/releases/$COMMIT/ (index.js
# and its wasm, gzipped), the shipped bot built with the test scaffolding (`make worker
# TESTKIT=1`: examples/echo/build-testkit; a release from before the bot crates and the testkit
# feature builds build/, test hooks included), from `git archive` (no worktree). tests/e2e/releases.rs serves it beside this
# tree's build, the front door of one with the actors of the other, to test a deploy's mixed
# releases (docs/operations.md). Each release adds the fixture of the one before it.
#
#   scripts/release-fixture.sh 7014e39
set -euo pipefail
COMMIT=${1:?usage: scripts/release-fixture.sh COMMIT}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# Outside the repository: an older tree is no member of this workspace.
SRC=${TMPDIR:-/tmp}/slackline-release-fixture/src-$COMMIT
OUT=$ROOT/tests/fixtures/releases/$COMMIT

export PATH=$ROOT/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH
export WASM_BINDGEN_BIN=${CARGO_HOME:-$HOME/.cargo}/bin/wasm-bindgen ESBUILD_BIN=$ROOT/node_modules/.bin/esbuild

built() { for dir in "$SRC/examples/echo/build-testkit" "$SRC/build"; do [ -f "$dir/index.js" ] && { echo "$dir"; return; }; done; }
if [ -z "$(built)" ]; then
  rm -rf "$SRC" && mkdir -p "$SRC"
  git -C "$ROOT" archive "$COMMIT" | tar -x -C "$SRC"
  ln -s "$ROOT/node_modules" "$SRC/node_modules"
  make -C "$SRC" --no-print-directory worker TESTKIT=1
fi
BUILT=$(built)

rm -rf "$OUT" && mkdir -p "$OUT"
cp "$BUILT/index.js" "$OUT/index.js"
gzip -9 -n -c "$BUILT/index_bg.wasm" > "$OUT/index_bg.wasm.gz"
echo "wrote $OUT:"; ls -l "$OUT"
