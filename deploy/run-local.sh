#!/usr/bin/env bash
# Starts the whole platform on this machine: the bus and the five services on loopback, each with
# its SQLite file under a data folder, serving the demo campus. Ctrl-C stops everything.
#
#   deploy/run-local.sh [--data DIR] [--campus FILE] [--release] [--detach]
#
# --detach leaves it running in the background; deploy/stop-local.sh stops it.
set -euo pipefail
cd "$(dirname "$0")/.."
data=data
campus=deploy/campus.json
config=debug
detach=0
while [ $# -gt 0 ]; do
  case "$1" in
    --data) data="$2"; shift 2 ;;
    --campus) campus="$2"; shift 2 ;;
    --release) config=release; shift ;;
    --detach) detach=1; shift ;;
    *) echo "run-local.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
deploy/ensure-deps.sh
swift build -c "$config" >&2
bin="$(swift build -c "$config" --show-bin-path)"
mkdir -p "$data/logs"
if [ -f "$data/pids" ] && kill -0 $(cat "$data/pids") 2>/dev/null; then
  echo "run-local.sh: the platform is already running (pids in $data/pids); deploy/stop-local.sh stops it" >&2
  exit 1
fi
: > "$data/pids"

start() {
  local name="$1"; shift
  "$bin/$name" "$@" >>"$data/logs/$name.log" 2>&1 &
  echo $! >> "$data/pids"
}
stop() {
  [ -f "$data/pids" ] || return 0
  kill -TERM $(cat "$data/pids") 2>/dev/null || true
  wait 2>/dev/null || true
  rm -f "$data/pids"
  echo "stopped" >&2
}

start bus
for service in beacon-ingest region-monitor order-service kitchen-display notification-service; do
  case "$service" in
    region-monitor|order-service|notification-service) start "$service" --data-dir "$data" --campus "$campus" ;;
    *) start "$service" --data-dir "$data" ;;
  esac
done
[ "$detach" -eq 1 ] || trap stop EXIT INT TERM

for _ in $(seq 1 50); do
  if "$bin/cafectl" health --timeout-ms 500 >/dev/null 2>&1; then
    "$bin/cafectl" health
    cat >&2 <<MSG

Campus Café is up: bus tcp://127.0.0.1:7401 (publish) / 7402 (subscribe), beacon-ingest :7410,
region-monitor :7420 (fixes :7425), order-service :7430, kitchen-display :7440, notification-service :7450.
Data and logs: $data/   cafectl: $bin/cafectl   Watch everything: $bin/cafectl tail ""
MSG
    if [ "$detach" -eq 1 ]; then echo "detached; stop with deploy/stop-local.sh" >&2; exit 0; fi
    echo "Ctrl-C stops the platform." >&2
    wait
    exit 0
  fi
  sleep 0.2
done
echo "run-local.sh: services did not become healthy in 10 s; see $data/logs/" >&2
"$bin/cafectl" health || true
exit 1
