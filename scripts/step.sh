#!/usr/bin/env bash
# Times the steps of `make test` so that a run says where its minutes went (issue 34: the suite's
# cold and warm times, step by step).
#
#   scripts/step.sh begin                  # forget the last run's times
#   scripts/step.sh NAME command args...   # run the command, note NAME's seconds (its status kept)
#   scripts/step.sh report                 # print every step's seconds and the total
#
# The times go to target/suite-times.tsv (one `name<TAB>seconds` line per step).
set -uo pipefail
TIMES=${SUITE_TIMES:-target/suite-times.tsv}

case "${1:?usage: scripts/step.sh begin | report | NAME command...}" in
  begin)
    mkdir -p "$(dirname "$TIMES")" && : > "$TIMES"
    ;;
  report)
    [ -s "$TIMES" ] || exit 0
    echo "make test, step by step (seconds):"
    awk -F'\t' '{ printf "  %-16s %6d\n", $1, $2; total += $2 } END { printf "  %-16s %6d (%d min %d s)\n", "total", total, total / 60, total % 60 }' "$TIMES"
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
