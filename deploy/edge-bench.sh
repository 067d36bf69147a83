#!/usr/bin/env bash
# Measures the HTTP edge with h2load (Debian nghttp2-client): requests per second and p50/p99 for
# GET /v1/menu and POST /v1/orders (a retried order: one Idempotency-Key, so the same order each
# time) through Pushpin → edge → order-service, beside the same load against a second Pushpin's
# own test route (the ceiling without us), and the CPU each process spends per menu request.
# New orders, each with its own reservation and Idempotency-Key, are driven open-loop by
# deploy/edge-orders.py at fixed rates, beside the same tool against the test route.
# A measurement, not a test. It starts a plain-mode platform from the release build on the
# default ports, so run it on a quiet machine in its own network namespace:
#
#   swift build -c release
#   unshare --net bash -c 'ip link set lo up; deploy/edge-bench.sh'
set -euo pipefail
cd "$(dirname "$0")/.."
command -v h2load >/dev/null || { echo "edge-bench.sh: h2load missing (apt-get install nghttp2-client)" >&2; exit 1; }
bin="$(swift build -c release --show-bin-path)"
work="$(mktemp -d /tmp/cafe-edge-bench-XXXXXX)"; D="$work/data"; P="$work/ceiling"
cleanup() { deploy/stop-local.sh "$D" >/dev/null 2>&1 || true; [ -f "$P/pid" ] && kill "$(cat "$P/pid")" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
# The edge's own limits are per token and address; one token drives this load, so they are lifted.
export CAFE_TOKEN_RATE=100000 CAFE_TOKEN_BURST=100000 CAFE_ADDRESS_RATE=100000 CAFE_ADDRESS_BURST=100000
# The demo campus with room for every order of the run (12 a window would refuse most of them).
python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))
for cafe in c["cafes"]: cafe["pickup"]["capacity"] = 10000
json.dump(c, open(sys.argv[2], "w"))' deploy/campus.json "$work/campus.json"
deploy/run-local.sh --detach --data "$D" --bin "$bin" --campus "$work/campus.json" >/dev/null 2>&1
deploy/pushpin/render.sh "$P" --http-port 8090 --zhttp tcp://127.0.0.1:7561 --publish tcp://127.0.0.1:7562 --control-port 7563 >/dev/null
printf '* test\n' > "$P/routes"
(exec env --default-signal pushpin --config "$P/pushpin.conf" > "$P/log" 2>&1) & echo $! > "$P/pid"
sleep 3
API=http://127.0.0.1:8080; J='Content-Type: application/json'
ID=$(deploy/local-issuer.sh token "$D/issuer" alice n-1)
TOKEN=$(curl -s -X POST $API/v1/sessions -H "$J" -d '{"idToken":"'$ID'","nonce":"n-1","deviceId":"phone-1"}' | sed 's/.*"token":"\([^"]*\)".*/\1/')
H="Authorization: Bearer $TOKEN"
curl -s -X PUT $API/v1/devices/phone-1/registration -H "$H" -H "$J" -d '{"channel":"bus","language":"en","locale":"en_US","authorization":"authorized"}' >/dev/null
R=$(curl -s -X POST $API/v1/cafes/caffe-macs/reservations -H "$H" -H "$J" -d '{"locale":"en_US"}' | sed 's/.*"reservationId":"\([^"]*\)".*/\1/')
echo '{"channel":"app","cafeId":"caffe-macs","reservationId":"'$R'","locale":"en_US","paymentToken":"tok_4242424242424242","items":[{"itemId":"caesar","quantity":1}]}' > "$work/order.json"
curl -sf -o /dev/null -X POST $API/v1/orders -H "$H" -H "$J" -H 'Idempotency-Key: k-bench-0001' -d @"$work/order.json"

pct() { python3 -c "import sys; v=sorted(int(l.split()[2]) for l in open(sys.argv[1])); print('p50 %.2f ms, p99 %.2f ms' % (v[len(v)//2]/1000, v[int(len(v)*0.99)]/1000))" "$1"; }
run() { name=$1; shift; h2load --h1 -n 20000 --log-file="$work/$name.log" "$@" > "$work/$name.txt"
  echo "$name: $(grep -o '[0-9.]* req/s' "$work/$name.txt"), $(grep -o '[0-9]* 2xx' "$work/$name.txt"), $(pct "$work/$name.log")"; }
cpu() { for n in edge order-service region-monitor pushpin-proxy condure; do for pid in $(pgrep -f "^[^ ]*$n .*$1"); do
  echo "$n $(awk '{print $14+$15}' /proc/$pid/stat)"; done; done | awk '{a[$1]+=$2} END {for (k in a) print k, a[k]}' | sort; }
cpu "$D" > "$work/cpu0"; run menu-cpu -c 50 -H "$H" "$API/v1/menu?locale=en_US"; cpu "$D" > "$work/cpu1"
echo "CPU per menu request: $(join "$work/cpu0" "$work/cpu1" | awk -v hz="$(getconf CLK_TCK)" '{printf "%s %.0f µs, ", $1, ($3-$2)*1e6/hz/20000}')"
for c in 10 50; do
  run "ceiling-c$c" -c $c http://127.0.0.1:8090/
  run "menu-c$c" -c $c -H "$H" "$API/v1/menu?locale=en_US"
  run "order-retry-c$c" -c $c -H "$H" -H "$J" -H 'Idempotency-Key: k-bench-0001' -d "$work/order.json" "$API/v1/orders"
done
# Open-loop new orders: 100 phones signed in, each order reserves and then places.
for i in $(seq 1 100); do
  id=$(deploy/local-issuer.sh token "$D/issuer" "bench-$i" "n-$i")
  t=$(curl -s -X POST $API/v1/sessions -H "$J" -d '{"idToken":"'$id'","nonce":"n-'$i'","deviceId":"bench-phone-'$i'"}' | sed 's/.*"token":"\([^"]*\)".*/\1/')
  curl -sf -o /dev/null -X PUT $API/v1/devices/bench-phone-$i/registration -H "Authorization: Bearer $t" -H "$J" \
    -d '{"channel":"bus","language":"en","locale":"en_US","authorization":"authorized"}'
  echo "$t bench-phone-$i"
done > "$work/sessions"
for rate in 50 100 150 200; do
  python3 deploy/edge-orders.py --ceiling http://127.0.0.1:8090/ --rate $rate --seconds 20
  python3 deploy/edge-orders.py --base $API --sessions "$work/sessions" --rate $rate --seconds 20 --run "r$rate"
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
