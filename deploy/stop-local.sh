#!/usr/bin/env bash
# Stops a platform started with deploy/run-local.sh --detach (SIGTERM, then waits for exit).
set -euo pipefail
cd "$(dirname "$0")/.."
data="${1:-data}"
[ -f "$data/pids" ] || { echo "stop-local.sh: nothing running ($data/pids not found)" >&2; exit 0; }
pids=$(cat "$data/pids")
kill -TERM $pids 2>/dev/null || true
for _ in $(seq 1 50); do
  alive=0
  for p in $pids; do kill -0 "$p" 2>/dev/null && alive=1; done
  [ "$alive" -eq 0 ] && break
  sleep 0.1
done
rm -f "$data/pids"
echo "stopped" >&2
