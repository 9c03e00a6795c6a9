#!/usr/bin/env bash
# The end-to-end suite (tests/e2e, built already by `make test`'s first phase) in two processes
# side by side. The tests that take a minute or more of real time by what they check — Slack's
# rate tiers over 25 pages, a schedule's next minute, fifty replies at Slack's pace — run in one,
# started at once; the rest in the other, 8 at a time. In one process they would start where
# libtest's name order puts them, half-way through, and end a minute after everything else.
# Each process shares its own runtimes (two shared runtimes instead of one). Extra arguments go
# to both (e.g. --nocapture).
set -uo pipefail
cd "$(dirname "$0")/.."
slow=(pacing:: fire::)
skip=()
for module in "${slow[@]}"; do skip+=(--skip "$module"); done
log=$(mktemp)
trap 'rm -f "$log"' EXIT
cargo test --locked --test e2e --quiet -- --test-threads=4 "$@" "${slow[@]}" > "$log" 2>&1 &
slow_pid=$!
cargo test --locked --test e2e --quiet -- --test-threads=8 "$@" "${skip[@]}"
rest=$?
wait "$slow_pid"
slow_status=$?
echo "the long-running tests (${slow[*]}):"
cat "$log"
[ "$rest" = 0 ] && [ "$slow_status" = 0 ]
