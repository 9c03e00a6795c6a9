# Sourced by scripts/try.sh and scripts/flow.sh: the simulator's fake Slack and a bot under
# `wrangler dev`, each on a free port in its own process group, stopped (with wrangler's workerd
# children) on exit, an error or Ctrl-C. The caller sets `who` (its name, for messages).
work=$(mktemp -d)
groups=()
cleanup() {
  for g in "${groups[@]}"; do kill -TERM -- "-$g" 2>/dev/null || true; done
  sleep 0.3
  for g in "${groups[@]}"; do kill -KILL -- "-$g" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'echo "$who: interrupted"; exit 130' INT TERM

free_port() { node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }
answers() { node -e "fetch(process.argv[1]).then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))" "$1"; }
wait_for() { # url what seconds
  for _ in $(seq 1 $(( $3 * 4 ))); do answers "$1" && return 0; sleep 0.25; done
  echo "$who: $2 did not start within $3 s; its output:" >&2
  return 1
}

# start_fake_slack SIM_BINARY: the fake on $sim_port, its log in $work/sim.log.
start_fake_slack() {
  sim_port=$(free_port)
  setsid "$1" serve --port "$sim_port" > "$work/sim.log" 2>&1 &
  groups+=($!)
  wait_for "http://127.0.0.1:$sim_port/_sim/calls" "the fake Slack" 10 || { cat "$work/sim.log" >&2; exit 1; }
}

# start_bot CONFIG BUNDLE VARS_FILE: wrangler dev on $app_port, its log in $work/app.log.
start_bot() {
  app_port=$(free_port)
  local inspector_port
  inspector_port=$(free_port)
  setsid wrangler dev --config "$1" "$2" --ip 127.0.0.1 --port "$app_port" --inspector-port "$inspector_port" --show-interactive-dev-session=false \
    --persist-to "$work/state" --env-file "$3" > "$work/app.log" 2>&1 &
  groups+=($!)
  wait_for "http://127.0.0.1:$app_port/healthz" "the bot (wrangler dev)" 120 || { tail -40 "$work/app.log" >&2; exit 1; }
}

# write_vars SECRET [NAME=VALUE…]: $work/vars.env, the bot's settings against the fake Slack
# ($sim_port, started first): the signing secret, a token the fake takes, its API URL, and the
# vars given.
write_vars() {
  local secret="$1"
  shift
  {
    printf 'SLACK_SIGNING_SECRET=%s\nSLACK_BOT_TOKEN=xoxb-local-run\nSLACK_API_URL=http://127.0.0.1:%s/api\n' "$secret" "$sim_port"
    for var in "$@"; do printf '%s\n' "$var"; done
  } > "$work/vars.env"
}
