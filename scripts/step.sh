#!/usr/bin/env bash
# Times the steps of `make test` so that a run says where its minutes went (issue 34: the suite's
# cold and warm times, step by step).
#
#   scripts/step.sh begin                  # forget the last run's times, note the start
#   scripts/step.sh NAME command args...   # run the command, note NAME's seconds (its status kept)
#   scripts/step.sh background NAME cmd... # the same, in the background, its output kept aside
#   scripts/step.sh wait NAME              # wait for a background step, print its output, its status
#   scripts/step.sh report                 # print every step's seconds and the run's wall time
#
# The times go to target/suite-times.tsv (one `name<TAB>seconds` line per step; a background
# step's line says so). Background steps overlap others, so the total is the wall time from
# `begin`, not the sum of the lines.
set -uo pipefail
TIMES=${SUITE_TIMES:-target/suite-times.tsv}

case "${1:?usage: scripts/step.sh begin | report | NAME command...}" in
  begin)
    mkdir -p "$(dirname "$TIMES")" && : > "$TIMES" && date +%s > "$TIMES.start"
    ;;
  background)
    name=${2:?usage: scripts/step.sh background NAME command...} && shift 2
    rm -f "$TIMES.$name.status"
    ( "$0" "$name (background)" "$@" > "$TIMES.$name.log" 2>&1; echo $? > "$TIMES.$name.status" ) &
    ;;
  wait)
    name=${2:?usage: scripts/step.sh wait NAME}
    while [ ! -s "$TIMES.$name.status" ]; do sleep 1; done
    cat "$TIMES.$name.log"
    exit "$(cat "$TIMES.$name.status")"
    ;;
  report)
    [ -s "$TIMES" ] || exit 0
    echo "make test, step by step (seconds; a background step overlaps the ones after it):"
    awk -F'\t' '{ printf "  %-24s %6d\n", $1, $2 }' "$TIMES"
    wall=$(($(date +%s) - $(cat "$TIMES.start" 2>/dev/null || date +%s)))
    printf "  %-24s %6d (%d min %d s)\n" "total (wall)" "$wall" $((wall / 60)) $((wall % 60))
    ;;
  *)
    name=$1 && shift
    started=$(date +%s)
    "$@"
    status=$?
    mkdir -p "$(dirname "$TIMES")" && printf '%s\t%s\n' "$name" "$(($(date +%s) - started))" >> "$TIMES"
    exit $status
    ;;
esac
