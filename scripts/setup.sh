#!/usr/bin/env bash
# Installs the tools a Worker on slackline builds and runs with, and only what is missing.
# Idempotent and quiet when everything is already there (about a second), so `make dev` and
# `make test` (and a bot's, made with `make new`) call it every time. On a fresh machine it takes
# about 5 minutes (two `cargo install`s).
#
#   - the rustfmt, clippy and rust-src components       (rustup; make test lints, the Worker
#                                                        unwinds: scripts/worker-build.sh)
#   - the wasm32-unknown-unknown Rust target            (rustup)
#   - worker-build, pinned                              (cargo install, into ~/.cargo/bin)
#   - wasm-bindgen CLI at exactly Cargo.lock's version  (cargo install; worker-build would otherwise
#                                                        download it from GitHub, unreachable here)
#   - Node 22 and wrangler (with workerd), pinned       (npm ci, into ./node_modules)
#
# `scripts/setup.sh --for-tests` (slackline's own `make test` and fuzzing) adds what only
# slackline's own suite uses, which a bot's `make dev` and `make test` never install:
#   - cargo-fuzz, pinned                                (cargo install; for the fuzz smoke)
#   - Chromium and jq                                   (apt-get; the dead-letter page's browser
#                                                        test, the log recipes' test)
set -euo pipefail
case "${1:-}" in
  "") FOR_TESTS=0 ;;
  --for-tests) FOR_TESTS=1 ;;
  *) printf 'setup: unknown option %s (use --for-tests, or nothing)\n' "$1" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/.."

# Two `make dev` (or a `make dev` and a `make test`) started at once must not install at once.
exec 9>.setup.lock
flock 9

WORKER_BUILD_VERSION=0.8.7
CARGO_BIN="${CARGO_HOME:-$HOME/.cargo}/bin"
export PATH="$CARGO_BIN:$PATH"

say() { printf 'setup: %s\n' "$*" >&2; }

# Node, wrangler and the distribution's packages are downloads, the Rust tools below are
# compiles: on a fresh machine the first run while the others build (about a minute and a half
# less), and the script waits for both.
install_node_and_packages() {
  # npm ci only when the lockfile changed since the last install (npm records it in node_modules).
  if [ ! -x node_modules/.bin/wrangler ] || [ ! -x node_modules/.bin/node ] \
     || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    say "installing Node 22 and wrangler into ./node_modules"
    npm ci --no-audit --no-fund --loglevel=error
  fi
  node_modules/.bin/node -e 'const [a,b]=process.versions.node.split(".").map(Number); if (a<22||(a===22&&b<12)) {console.error("setup: node_modules/.bin/node is "+process.version+", need >= 22.12"); process.exit(1)}'

  # The browser test drives the distribution's Chromium (a browser download by a test tool is not
  # possible here); jq runs the log recipes of docs/operations.md.
  missing_packages=()
  if [ "$FOR_TESTS" = 1 ]; then
    command -v chromium >/dev/null || missing_packages+=(chromium)
    command -v jq >/dev/null || missing_packages+=(jq)
  fi
  if [ ${#missing_packages[@]} -gt 0 ]; then
    say "installing ${missing_packages[*]} from the distribution (apt-get)"
    if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing_packages[@]}" >/dev/null
  fi
}
install_node_and_packages &
node_and_packages=$!
trap 'kill "$node_and_packages" 2>/dev/null || true' EXIT

# make test runs rustfmt and clippy; the Worker's build rebuilds the standard library from
# rust-src with panic=unwind (scripts/worker-build.sh).
for component in rustfmt clippy rust-src; do
  if ! rustup component list --installed | grep -q "^$component"; then
    say "adding the $component component"
    rustup component add "$component"
  fi
done

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

# `worker-build --version` prints "0.8.7", `wasm-bindgen --version` "wasm-bindgen 0.2.130".
installed_version() { "$1" --version 2>/dev/null | awk '{print $NF}'; }

if [ "$(installed_version worker-build)" != "$WORKER_BUILD_VERSION" ]; then
  say "installing worker-build $WORKER_BUILD_VERSION (about 3 minutes)"
  cargo install worker-build --version "$WORKER_BUILD_VERSION" --locked
fi

# The CLI must equal the wasm-bindgen library version that Cargo.lock resolved.
WASM_BINDGEN_VERSION=$(awk '/^name = "wasm-bindgen"$/ {getline; gsub(/[^0-9.]/, ""); print; exit}' Cargo.lock)
if [ -z "$WASM_BINDGEN_VERSION" ]; then
  say "no wasm-bindgen in Cargo.lock"; exit 1
fi
if [ "$(installed_version wasm-bindgen)" != "$WASM_BINDGEN_VERSION" ] \
   || [ "$(installed_version wasm-bindgen-test-runner)" != "$WASM_BINDGEN_VERSION" ]; then
  say "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (about 2 minutes)"
  # Its own lockfile can pin a crate the registry has since yanked (0.2.130 pins webpki-roots
  # 1.0.11): then resolve afresh. Cargo's refusal of the lockfile is not an error of the setup,
  # so it is kept out of sight and said in words; any other failure is shown as it is.
  locked_log=$(mktemp)
  if ! cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --locked --force 2>"$locked_log"; then
    if grep -q 'failed to select a version' "$locked_log"; then
      say "wasm-bindgen-cli's own lockfile pins a crate the registry has since yanked: resolving its dependencies afresh (expected, not an error)"
    else
      cat "$locked_log" >&2
      say "installing wasm-bindgen-cli with its own lockfile failed (above): trying once more with fresh dependencies"
    fi
    cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force
  fi
  rm -f "$locked_log"
fi

CARGO_FUZZ_VERSION=0.13.2
if [ "$FOR_TESTS" = 1 ] && [ "$(installed_version cargo-fuzz)" != "$CARGO_FUZZ_VERSION" ]; then
  say "installing cargo-fuzz $CARGO_FUZZ_VERSION (about 1 minute)"
  cargo install cargo-fuzz --version "$CARGO_FUZZ_VERSION" --locked
fi

# The downloads started above: their failure is the script's.
wait "$node_and_packages"
trap - EXIT
