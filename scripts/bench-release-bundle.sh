#!/usr/bin/env bash
# The bundle of a release (a git tag) of the shipped bot, built as the benchmarks build this tree's
# own (`make worker TESTKIT=1`: examples/echo/build-testkit, the test scaffolding in), for
# `BENCH_ONLY=releases make bench`. The tag's tree is unpacked (git archive, no worktree) into
# target/releases/TAG/src and built with its own Makefile and this checkout's tools, in this
# checkout's cargo target folder (CARGO_TARGET_DIR, else target/): the crates.io dependencies and
# the standard library rebuilt for unwinding are there already, only slackline and the bot compile.
# The bundle is kept in target/releases/TAG/echo/build-testkit/ and built again only when missing.
# Prints its index.js:
#   scripts/bench-release-bundle.sh v0.2.0
# Any commit works too (a release before tags, e.g. 10fd0e0): a tree from before the `testkit`
# feature (no TESTKIT in its Makefile) is built with its plain `make worker`, which then carried
# the test hooks in every build, inert without ALLOW_TEST_CLOCK=1.
#
# Cargo names a workspace member by its path inside the workspace, not on disk: the tag's
# slackline 0.2.0 and this tree's are the same unit to it, in the same files. So the tag's files
# are unpacked with the time of the unpacking (newer than anything built before: cargo compiles
# them instead of taking this tree's artifacts for up to date), and after the build the two units'
# fingerprints are forgotten (this tree's next build compiles its own again instead of taking the
# release's). That costs this tree one compile of slackline and the bot per release built.
set -euo pipefail
tag=${1:?usage: scripts/bench-release-bundle.sh TAG}
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/target/releases/$tag
bundle=$out/echo/build-testkit/index.js
if [ -f "$bundle" ]; then
  echo "$bundle"
  exit 0
fi
git -C "$root" rev-parse -q --verify "$tag^{commit}" >/dev/null || { echo "bench-release-bundle: no tag or commit $tag (git tag lists the releases)" >&2; exit 2; }
src=$out/src
rm -rf "$src" && mkdir -p "$src"
git -C "$root" archive "$tag" | tar -x -m -C "$src"
[ -d "$src/examples/echo" ] || { echo "bench-release-bundle: $tag has no examples/echo to build" >&2; exit 2; }
ln -s "$root/node_modules" "$src/node_modules"
# Inside this checkout, cargo would take an older tree without its own workspace for a member.
grep -q '^\[workspace\]' "$src/Cargo.toml" || printf '\n[workspace]\n' >> "$src/Cargo.toml"
cargo_bin=${CARGO_HOME:-$HOME/.cargo}/bin
export PATH=$root/node_modules/.bin:$cargo_bin:$PATH
export WASM_BINDGEN_BIN=$cargo_bin/wasm-bindgen ESBUILD_BIN=$root/node_modules/.bin/esbuild WRANGLER_SEND_METRICS=false
target=$(realpath -m "${CARGO_TARGET_DIR:-$root/target}")
export CARGO_TARGET_DIR=$target
echo "bench-release-bundle: building $tag's examples/echo (TESTKIT=1) in $target" >&2
if grep -q 'TESTKIT' "$src/Makefile"; then
  make -C "$src" --no-print-directory worker TESTKIT=1 >&2
  built=build-testkit
else
  make -C "$src" --no-print-directory worker >&2
  built=build
fi
release=$target/wasm32-unknown-unknown/release
flock "$release/.cargo-lock" rm -rf "$release"/.fingerprint/slackline-???????????????? "$release"/.fingerprint/slackline-echo-????????????????
staging=$out/echo.part$$
rm -rf "$staging" && mkdir -p "$staging"
cp -R "$src/examples/echo/$built" "$staging/build-testkit"
rm -rf "$out/echo" && mv "$staging" "$out/echo"
echo "$bundle"
