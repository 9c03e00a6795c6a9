#!/usr/bin/env bash
# `scripts/flow.sh BOT_DIR FLOW_FILE [NAME=VALUE…]` (a bot's `make flow`): runs the bot's scripted
# flow as its CI would, with no Slack: the simulator's fake Slack and the bot (`wrangler dev` of
# BOT_DIR's wrangler.toml and build/index.js, which must be built) on free ports, then
# `slackline-sim script FLOW_FILE` against them — each step what Slack sends, each `expect` a call
# the bot must then make (docs/simulator.md) — and stops both. The vars given are added to the
# bot's settings (a signing secret, a token and SLACK_API_URL are set for the fake). Exits
# non-zero, with the calls that did come, when an expectation is not met.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
bot="$(cd "${1:?usage: scripts/flow.sh BOT_DIR FLOW_FILE [NAME=VALUE…]}" && pwd)"
flow="$(cd "$(dirname "${2:?usage: scripts/flow.sh BOT_DIR FLOW_FILE}")" && pwd)/$(basename "$2")"
shift 2
who="make flow"
export PATH="$here/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
export WRANGLER_SEND_METRICS=false WRANGLER_WRITE_LOGS=false CI=true NO_COLOR=1 FORCE_COLOR=0
# shellcheck source=scripts/local-run.sh
source "$here/scripts/local-run.sh"

test -f "$bot/build/index.js" || { echo "$who: $bot/build/index.js is not built (make worker)" >&2; exit 1; }
cargo build --quiet --locked --manifest-path "$here/Cargo.toml" -p slackline-sim --bin slackline-sim
sim="${CARGO_TARGET_DIR:-$here/target}/debug/slackline-sim"
secret="make-flow-signing-secret"
start_fake_slack "$sim"
write_vars "$secret" "$@"
start_bot "$bot/wrangler.toml" "$bot/build/index.js" "$work/vars.env"
# Each expect waits the default --timeout (20 s, slackline-sim's one default).
"$sim" script "$flow" --url "http://127.0.0.1:$app_port" --sim "http://127.0.0.1:$sim_port" --secret "$secret"
