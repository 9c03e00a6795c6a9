#!/usr/bin/env bash
# Checks that a production Worker bundle carries none of slackline's test scaffolding (the
# `testkit` feature: the x-slackline-test-* hooks, the tally app, the benchmarks' seeding, the
# cost meter, the test panic marker), and, so that the check can fail, that a testkit bundle
# does carry each marker.
#
#   scripts/check-production-bundle.sh PRODUCTION.wasm TESTKIT.wasm
#
# Each marker is a string only the scaffolding's code holds (a header name, a JSON field of its
# answers); string data survives the link-time stripping of function names, so a marker in the
# bundle means the code that holds it was linked in.
set -euo pipefail

production=${1:?usage: $0 PRODUCTION.wasm TESTKIT.wasm}
testkit=${2:?usage: $0 PRODUCTION.wasm TESTKIT.wasm}

markers=(
  "x-slackline-test-now"      # the test hooks (runtime/test_hooks.rs)
  "slackline_tally_update"    # the tally app the end-to-end tests serve (app/tally.rs)
  "seeded_receipts"           # the benchmarks' seeding (POST …/seed)
  "delete_alarms"             # the cost meter's answer (GET …/meter)
  "TEST_PANIC_MARKER "        # a handler made to panic on purpose
)

failed=0
for marker in "${markers[@]}"; do
  if ! grep -q -a -F -- "$marker" "$testkit"; then
    echo "check-production-bundle: the testkit bundle lacks \"$marker\": the marker no longer names the scaffolding ($testkit)" >&2
    failed=1
  fi
  if grep -q -a -F -- "$marker" "$production"; then
    echo "check-production-bundle: the production bundle carries \"$marker\": test scaffolding linked into $production" >&2
    failed=1
  fi
done
[ "$failed" = 0 ] || exit 1
echo "check-production-bundle: $(basename "$(dirname "$production")")/$(basename "$production") carries none of the ${#markers[@]} scaffolding markers the testkit bundle has"
