#!/usr/bin/env bash
# examples/shop-checkout as its README documents it, against the demo (.ci/run's demo step
# runs this; run it by hand the same way, from the repository root, after `npm run build`):
#   scripts/ci-shop-checkout.sh                                 # starts a demo of its own
#   scripts/ci-shop-checkout.sh <gateway port> <simulator port> # a demo that runs already
# With no ports it starts the built demo (what `npm run demo` runs after its build) on free
# ports, with no cache or payments file: a key's budget of its own, which the other checks of
# .ci/run's demo step spend meanwhile (the account's poll would wait behind them). Then
# scripts/ci-shop-checkout.mjs does what the page does, books the README's transfer and waits
# for PAID (about one 60 s poll interval, at most 90 s). The demo is stopped by its process
# group id. Exit status 1 when the request is not paid.
set -euo pipefail
# shellcheck source=scripts/ci-own-demo.sh
. "$(dirname "$0")/ci-own-demo.sh"
work=$(mktemp -d)
demo_pid=""
stop() {
  if [ -n "$demo_pid" ]; then
    kill -TERM -- "-$demo_pid" 2>/dev/null || true
    for _ in $(seq 1 40); do kill -0 -- "-$demo_pid" 2>/dev/null || break; sleep 0.25; done
    kill -KILL -- "-$demo_pid" 2>/dev/null || true
  fi
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap stop EXIT
trap 'exit 143' TERM INT

demo_at examples/shop-checkout "$work" "$@"
timeout 150 node scripts/ci-shop-checkout.mjs "$port" "$sim_port"
