#!/usr/bin/env bash
# Writes the schema fixture of a release: tests/fixtures/schema/v$VERSION/ (see
# tests/e2e/support/fixture.rs). VERSION is the schema version that release writes (0: the last
# release before versioning); COMMIT is the release. The release is built from `git archive`
# (no worktree), served by wrangler with the end-to-end harness of this checkout driving it
# (tests/e2e/upgrade.rs `seed_a_fixture`), then its Durable Objects' SQLite files are dumped
# as SQL text with the sqlite3 command.
#
#   scripts/schema-fixture.sh 0 35c4f9e     # the unversioned release
#   scripts/schema-fixture.sh 1 <tag>       # the first release of version 1, once a 2 exists
set -euo pipefail
VERSION=${1:?usage: scripts/schema-fixture.sh VERSION COMMIT}
COMMIT=${2:?usage: scripts/schema-fixture.sh VERSION COMMIT}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$ROOT/target/schema-fixture
SRC=$WORK/src-v$VERSION
STATE=$WORK/state-v$VERSION
OUT=$ROOT/tests/fixtures/schema/v$VERSION
command -v sqlite3 >/dev/null || { echo "sqlite3 is needed (apt-get install sqlite3)" >&2; exit 1; }

export PATH=$ROOT/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH
export WASM_BINDGEN_BIN=${CARGO_HOME:-$HOME/.cargo}/bin/wasm-bindgen ESBUILD_BIN=$ROOT/node_modules/.bin/esbuild

rm -rf "$STATE"
if [ -d "$ROOT/tests/fixtures/releases/$COMMIT" ]; then
  # The release's bundle is a release fixture (scripts/release-fixture.sh): served as it is.
  SCHEMA_FIXTURE_CONFIG=$ROOT/wrangler.toml SCHEMA_FIXTURE_RELEASE=$COMMIT SCHEMA_FIXTURE_STATE=$STATE \
    cargo test --locked --manifest-path "$ROOT/Cargo.toml" --test e2e upgrade::seed_a_fixture -- --ignored --exact
else
  if [ ! -f "$SRC/examples/echo/build/index.js" ]; then
    rm -rf "$SRC" && mkdir -p "$SRC"
    git -C "$ROOT" archive "$COMMIT" | tar -x -C "$SRC"
    ln -s "$ROOT/node_modules" "$SRC/node_modules"
    make -C "$SRC" --no-print-directory worker
  fi
  SCHEMA_FIXTURE_CONFIG=$SRC/wrangler.toml SCHEMA_FIXTURE_STATE=$STATE \
    cargo test --locked --manifest-path "$ROOT/Cargo.toml" --test e2e upgrade::seed_a_fixture -- --ignored --exact
fi

rm -rf "$OUT" && mkdir -p "$OUT"
cp "$STATE/written_at" "$OUT/written_at"
(cd "$STATE" && find v3/do -name '*.sqlite') | while read -r db; do
  mkdir -p "$OUT/$(dirname "$db")"
  sqlite3 "$STATE/$db" .dump > "$OUT/${db%.sqlite}.sql"
done
echo "wrote $OUT:"; (cd "$OUT" && find . -type f | sort)
