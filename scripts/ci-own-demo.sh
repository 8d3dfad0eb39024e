# Sourced by the examples' CI checks (scripts/ci-stock-alert.sh, scripts/ci-shop-checkout.sh):
# `demo_at <label> <folder> [<gateway port> <simulator port>]` uses the demo on those ports when
# given, else `own_demo <label> <folder>` starts the built demo (what `npm run demo` runs after its build)
# on two free ports, with no cache or payments file, in a process group of its own, and waits
# for its /healthz. It sets `port`, `sim_port` and `demo_pid` (the group's id, for the caller's
# cleanup), and exits 1 naming <label> when the build is missing or the demo exits.
# A port below the kernel's ephemeral range, free now (scripts/listener-port.ts says why: a port 0
# pick can be handed to a client's connection, the bench's say, before the server listens on it).
free_port() { node -r ts-node/register/transpile-only scripts/listener-port.ts; }
own_demo() {
  local label=$1 folder=$2
  [ -f dist/src/demo.js ] || { echo "$label: dist/src/demo.js is missing: npm run build first"; exit 1; }
  port=$(free_port)
  sim_port=$(free_port)
  PORT=$port SIMULATOR_PORT=$sim_port CACHE_FILE=off PAYMENTS_FILE=off setsid node dist/src/demo.js >"$folder/demo" 2>&1 &
  demo_pid=$!
  for _ in $(seq 1 120); do
    curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && return 0
    kill -0 "$demo_pid" 2>/dev/null || { cat "$folder/demo"; echo "$label: the demo exited"; exit 1; }
    sleep 0.25
  done
}
demo_at() {
  if [ $# -ge 4 ]; then
    port=$3
    sim_port=$4
  else
    own_demo "$1" "$2"
  fi
}
