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
free_port() { node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })'; }
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

if [ $# -ge 2 ]; then
  port=$1
  sim_port=$2
else
  [ -f dist/src/demo.js ] || { echo "examples/shop-checkout: dist/src/demo.js is missing: npm run build first"; exit 1; }
  port=$(free_port)
  sim_port=$(free_port)
  PORT=$port SIMULATOR_PORT=$sim_port CACHE_FILE=off PAYMENTS_FILE=off setsid node dist/src/demo.js >"$work/demo" 2>&1 &
  demo_pid=$!
  for _ in $(seq 1 120); do
    curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
    kill -0 "$demo_pid" 2>/dev/null || { cat "$work/demo"; echo "examples/shop-checkout: the demo exited"; exit 1; }
    sleep 0.25
  done
fi
timeout 150 node scripts/ci-shop-checkout.mjs "$port" "$sim_port"
