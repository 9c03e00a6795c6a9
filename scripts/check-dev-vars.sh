#!/usr/bin/env bash
# `make dev`'s check of .dev.vars (the bot's and the template's): a bot with no way to reach Slack
# answers every request and then parks each of its effects as `not_installed`, quietly. Say so
# before wrangler starts, and say where its calls go.
set -euo pipefail
vars="${1:-.dev.vars}"
value() { sed -n "s/^[[:space:]]*$1[[:space:]]*=[[:space:]]*//p" "$vars" | tail -1; }
token=$(value SLACK_BOT_TOKEN)
client=$(value SLACK_CLIENT_ID)
api=$(value SLACK_API_URL)
if [[ -z "$token" && -z "$client" ]]; then
  echo "make dev: warning: $vars sets neither SLACK_BOT_TOKEN nor SLACK_CLIENT_ID: every Slack call the bot" >&2
  echo "  queues will be parked as not_installed. Set SLACK_BOT_TOKEN (any value works against the" >&2
  echo "  simulator, \`make sim\`), or install the app through /slack/install with the OAuth settings." >&2
fi
case "$api" in
  "" | https://slack.com/api) echo "make dev: Slack calls go to Slack (https://slack.com/api)" ;;
  *) echo "make dev: Slack calls go to $api (SLACK_API_URL in $vars; \`make sim\` serves the simulator's fake Slack on 127.0.0.1:8790)" ;;
esac
