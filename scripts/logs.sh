#!/usr/bin/env bash
# Log recipes: filters over slackline's JSON log lines (see docs/operations.md).
#
#   make dev 2>&1 | scripts/logs.sh sweeps T0123              # local: wrangler dev's output
#   wrangler tail --format json | scripts/logs.sh --tail failures T0123   # deployed
#
# Recipes: requests TEAM | sweeps TEAM | deliveries TEAM | failures TEAM | alerts [TEAM]
set -euo pipefail
mode=local
if [ "${1:-}" = "--tail" ]; then mode=tail; shift; fi
recipe=${1:?usage: logs.sh [--tail] requests|sweeps|deliveries|failures|alerts [TEAM]}
team=${2:-}

case "$recipe" in
  requests)   filter='select(.kind == "request" and .team == $team) | {route, op_key, type, verdict, reason, retry_num, ack_ms}' ;;
  sweeps)     filter='select(.kind == "sweep" and .team == $team) | {trigger, claimed, delivered, retried, parked, fenced, pending, oldest_pending_age_ms, next_alarm_at, duration_ms, alert}' ;;
  deliveries) filter='select(.kind == "delivery" and .team == $team) | {row, effect, target, attempt, outcome, error, http_status, latency_ms}' ;;
  failures)   filter='select(.kind == "delivery" and .team == $team and (.outcome == "retry" or .outcome == "parked")) | {row, target, attempt, outcome, error, http_status, reason, next_attempt_at}' ;;
  alerts)     filter='select(.alert != null and ($team == "" or .team == $team)) | {alert, kind, team, row, reason, target, target_failures, oldest_pending_age_ms}' ;;
  *) echo "logs.sh: unknown recipe $recipe" >&2; exit 2 ;;
esac

if [ "$mode" = tail ]; then
  # `wrangler tail --format json` prints one (multi-line) JSON event per invocation; our lines are
  # the messages of its logs.
  jq -c --unbuffered '.logs[]?.message[]? | fromjson? // empty' | jq -c --unbuffered --arg team "$team" "$filter"
else
  # `wrangler dev` prints our lines as they are (error-level ones behind a marker).
  grep --line-buffered -o '{.*}' | jq -R -c --unbuffered 'fromjson? // empty' | jq -c --unbuffered --arg team "$team" "$filter"
fi
