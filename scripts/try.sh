#!/usr/bin/env bash
# `make try`: the whole round trip in a terminal, no Slack account needed. Starts the simulator's
# fake Slack (`slackline-sim serve`) and slackline (`wrangler dev`, pointed at the fake) on free
# ports, sends a signed @-mention, prints the threaded reply and the request, sweep and delivery
# log lines for it, and stops everything it started — also on Ctrl-C or an error. Exits non-zero
# if the reply did not arrive (`make test` runs it as a smoke test).
#
# `scripts/try.sh triage` (`make try APP=triage`) serves examples/triage instead (TRIAGE_CHANNEL
# set to a channel of the fake) and runs its flow (`slackline-sim triage`): /incident, the modal
# submitted, the announcement, Acknowledge, Resolve, each step with what Slack received.
#
# `scripts/try.sh tickets` (`make try APP=tickets`) serves examples/tickets (TICKETS_CHANNEL set to
# a channel of the fake) and runs its flow.sim (`slackline-sim script`): /ticket and its modal, Take,
# the Workflow step "Create ticket" completing, its ticket's link unfurled as a Work Object and its
# flexpane, Close; each step with what Slack received, each expectation ticked.
#
# TESTKIT=1 (as `make test` runs the examples' flows) serves the bundle with the test scaffolding
# that the end-to-end tests have just built (build-testkit/; the scaffolding stays off unless a
# var switches it on) instead of building the production bundle too: one whole-program build
# less per example.
set -euo pipefail
cd "$(dirname "$0")/.."
app="${1:-echo}"
export APP="$app" # wrangler's build hook (make worker) builds this bot
case "$app" in
  echo) flow=(mention --text "hello from make try"); shown=" --text 'hello from make try'" ;;
  triage) flow=(triage); shown="" ;;
  tickets) flow=(script examples/tickets/flow.sim); shown="" ;;
  *) echo "make try: APP=$app has no flow here (APP=echo, the default, APP=triage or APP=tickets)" >&2; exit 2 ;;
esac
export PATH="$PWD/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
export WRANGLER_SEND_METRICS=false WRANGLER_WRITE_LOGS=false CI=true NO_COLOR=1 FORCE_COLOR=0

who="make try"
# shellcheck source=scripts/local-run.sh
source scripts/local-run.sh

cargo build --quiet --locked -p slackline-sim --bin slackline-sim
secret="make-try-signing-secret"
team="TTRY$(date +%s)"
start_fake_slack target/debug/slackline-sim
write_vars "$secret" LOG_DELIVERIES=all TRIAGE_CHANNEL=C0TRIAGE TICKETS_CHANNEL=C0DESK
start_bot wrangler.toml "examples/$app/build${TESTKIT:+-testkit}/index.js" "$work/vars.env"
echo "fake Slack on http://127.0.0.1:$sim_port, slackline on http://127.0.0.1:$app_port"
echo
# A script's file is shown with its subcommand.
[ "${flow[0]}" = script ] && named="script ${flow[1]}" || named="${flow[0]}"
echo "\$ slackline-sim $named --team $team$shown"
# The default --timeout (20 s), as `make flow` and a script run by hand wait.
target/debug/slackline-sim "${flow[@]}" --url "http://127.0.0.1:$app_port" --sim "http://127.0.0.1:$sim_port" \
  --secret "$secret" --team "$team"

echo
echo "slackline's log lines for $team (request, sweep, delivery):"
for _ in $(seq 1 40); do grep -q '"kind":"delivery"' "$work/app.log" && break; sleep 0.25; done
grep -o '{"kind":"\(request\|sweep\|delivery\)".*}' "$work/app.log" | grep "\"team\":\"$team\"" | sed 's/^/  /'
