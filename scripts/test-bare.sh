#!/usr/bin/env bash
# npm run test:bare [-- <jest arguments>]
#
# Runs the test suite as on a bare machine: in a network namespace of its own (unshare -n, only
# the loopback interface up), where nothing answers on 5432 or 6379, so global setup starts an
# embedded PostgreSQL and a redis-server of its own, as on a laptop with no services running.
# Needs root (or user namespaces), iproute2 and redis-server on PATH. Without jest arguments it
# runs the whole `npm test`; with them, `jest <arguments>` after a build. `timeout` catches a jest
# that never exits: that is a failure too.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -eq 0 ]; then
  cmd='npm test'
else
  cmd="npm run --silent build && npx jest $(printf '%q ' "$@")"
fi
exec unshare -n -- bash -c "ip link set lo up && timeout --kill-after=10 ${TEST_BARE_TIMEOUT:-3600} bash -c $(printf '%q' "$cmd")"
