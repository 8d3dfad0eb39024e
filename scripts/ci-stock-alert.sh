#!/usr/bin/env bash
# examples/stock-alert as its README documents it, against the demo (.ci/run's demo step runs
# this; run it by hand the same way, from the repository root, after `npm run build`):
#   scripts/ci-stock-alert.sh                                 # starts a demo of its own
#   scripts/ci-stock-alert.sh <gateway port> <simulator port> # a demo that runs already
# With no ports it starts the built demo (what `npm run demo` runs after its build) on free
# ports, with no cache or payments file: a key's budget of its own, which the other checks of
# .ci/run's demo step spend meanwhile on theirs (the store's poll would wait behind them).
# It starts a local webhook receiver, runs the README's command (the sh block after the
# `ci-stock-alert: command` marker, pointed at these ports and the receiver), waits until the
# gateway has polled the store once (the baseline), forces the stock change the README shows
# (the block after `ci-stock-alert: change`), and waits up to 90 s for the script to print
# `alert posted:` and the receiver to get the message (the gateway polls the store once a
# minute). Every process it started is stopped by its process id. Exit status 1 when the
# alert does not come.
set -euo pipefail
# shellcheck source=scripts/ci-own-demo.sh
. "$(dirname "$0")/ci-own-demo.sh"
readme=examples/stock-alert/README.md
block() { awk -v marker="$1" 'index($0, marker) { found = 1; next } found && /^```sh/ { inside = 1; next } inside && /^```/ { exit } inside { print }' "$readme"; }
work=$(mktemp -d)
receiver_pid=""
alert_pid=""
demo_pid=""
stop() {
  # Only the processes started here, by their ids (each leads a process group of its own).
  if [ -n "$alert_pid" ]; then kill -INT -- "-$alert_pid" 2>/dev/null || true; fi
  for pid in $receiver_pid $demo_pid; do kill -TERM -- "-$pid" 2>/dev/null || true; done
  for pid in $alert_pid $receiver_pid $demo_pid; do
    for _ in $(seq 1 40); do kill -0 -- "-$pid" 2>/dev/null || break; sleep 0.25; done
    kill -KILL -- "-$pid" 2>/dev/null || true
  done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap stop EXIT
trap 'exit 143' TERM INT

demo_at examples/stock-alert "$work" "$@"

# The webhook receiver: answers 204 and appends each body to a file; prints its port.
setsid node -e '
  const fs = require("node:fs");
  const server = require("node:http").createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk)).on("end", () => { fs.appendFileSync(process.argv[1], body + "\n"); res.writeHead(204).end(); });
  });
  server.listen(0, "127.0.0.1", () => console.log(server.address().port));
' "$work/posted" >"$work/receiver" 2>&1 &
receiver_pid=$!
for _ in $(seq 1 40); do [ -s "$work/receiver" ] && break; sleep 0.25; done
hook_port=$(head -1 "$work/receiver")
[[ "$hook_port" =~ ^[0-9]+$ ]] || { cat "$work/receiver"; echo "examples/stock-alert: the webhook receiver did not start"; exit 1; }

cmd=$(block 'ci-stock-alert: command' | sed -e "s#127.0.0.1:4000#127.0.0.1:$port#g" -e "s#127.0.0.1:9000#127.0.0.1:$hook_port#g")
change=$(block 'ci-stock-alert: change' | sed "s#localhost:4010#127.0.0.1:$sim_port#g")
[ -n "$cmd" ] && [ -n "$change" ] || { echo "$readme has no sh block after a ci-stock-alert marker"; exit 1; }
echo "$cmd"
polls() { curl -fsS "http://127.0.0.1:$port/metrics" | awk '/^statev_subscription_polls_total\{.*resource="inventory"/ { n += $NF } END { print n + 0 }'; }
before=$(polls)
setsid bash -c "$cmd" >"$work/out" 2>&1 &
alert_pid=$!
# The baseline: the gateway's first poll of the store, the one the change is compared with.
for _ in $(seq 1 120); do
  [ "$(polls)" -gt "$before" ] && break
  kill -0 "$alert_pid" 2>/dev/null || { cat "$work/out"; echo "examples/stock-alert: the script exited"; exit 1; }
  sleep 0.25
done
[ "$(polls)" -gt "$before" ] || { cat "$work/out"; echo "examples/stock-alert: the gateway never polled the store"; exit 1; }
echo "$change"
bash -c "$change"; echo
started=$SECONDS
until grep -q '^alert posted:' "$work/out"; do
  if [ $((SECONDS - started)) -ge 90 ]; then cat "$work/out"; echo "examples/stock-alert: no alert within 90 s of the change"; exit 1; fi
  kill -0 "$alert_pid" 2>/dev/null || { cat "$work/out"; echo "examples/stock-alert: the script exited"; exit 1; }
  sleep 0.5
done
cat "$work/out"
grep -q 'Stock below' "$work/posted" || { echo "examples/stock-alert: the receiver got no message"; exit 1; }
echo "examples/stock-alert: alert posted $((SECONDS - started)) s after the change"
