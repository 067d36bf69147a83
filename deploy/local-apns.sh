#!/usr/bin/env bash
# A local APNs for this machine: Tests/Peers/apns_peer.py (a strict HTTP/2 peer over TLS that
# checks every header, the provider token's raw r‖s ES256 signature and the payload as APNs does),
# a test CA and its certificate for 127.0.0.1, and a test team signing key (.p8) for
# notification-service, all made with the openssl command line: never for production (there,
# the .p8 is the team's key from Apple, and APNs is Apple's). run-local.sh uses it under DATA/apns.
#
#   deploy/local-apns.sh init DIR     DIR/ca.crt, DIR/server.crt/.key, DIR/AuthKey_LOCALAPNS1.p8 and
#                                     its public half (made once: existing files are kept), DIR/faults.json
#   deploy/local-apns.sh peer DIR     runs the peer in the foreground on a free loopback port (DIR/port);
#                                     every request and its answer is one JSON line in DIR/record.jsonl
#   deploy/local-apns.sh flags DIR    the notification-service flags that send to the running peer
#   deploy/local-apns.sh show DIR     one line per request the peer answered: status, push type,
#                                     collapse id, expiration, priority, and the alert or Live Activity state
#   deploy/local-apns.sh token DIR    a provider token signed with the test key, valid an hour: push by
#                                     hand with curl --http2 --cacert DIR/ca.crt -H "authorization: bearer …"
#
# The key id is LOCALAPNS1, the team CAMPUSCAFE; the peer allows the topics edu.campus.cafe (the
# app) and edu.campus.cafe.Clip (its App Clip), and their .push-type.liveactivity.
set -euo pipefail
cd "$(dirname "$0")/.."
kid=LOCALAPNS1
team=CAMPUSCAFE
topics=edu.campus.cafe,edu.campus.cafe.Clip
case "${1:-}" in
  init)
    dir="$2"; mkdir -p "$dir"
    if [ ! -f "$dir/ca.crt" ]; then
      openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 825 -subj "/CN=Campus Cafe local APNs test CA" \
        -keyout "$dir/ca.key" -out "$dir/ca.crt" 2>/dev/null
    fi
    if [ ! -f "$dir/server.crt" ]; then
      openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=127.0.0.1" -keyout "$dir/server.key" -out "$dir/server.csr" 2>/dev/null
      printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' > "$dir/server.ext"
      openssl x509 -req -in "$dir/server.csr" -CA "$dir/ca.crt" -CAkey "$dir/ca.key" -CAcreateserial -days 825 \
        -extfile "$dir/server.ext" -out "$dir/server.crt" 2>/dev/null
      rm -f "$dir/server.csr" "$dir/server.ext"
    fi
    # Apple hands out the team key as AuthKey_<kid>.p8 (PKCS #8, P-256); the peer checks with its public half.
    if [ ! -f "$dir/AuthKey_$kid.p8" ]; then
      openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$dir/AuthKey_$kid.p8" 2>/dev/null
      chmod 600 "$dir/AuthKey_$kid.p8"
    fi
    [ -f "$dir/AuthKey_$kid.pub" ] || openssl pkey -in "$dir/AuthKey_$kid.p8" -pubout -out "$dir/AuthKey_$kid.pub" 2>/dev/null
    # No scripted faults: every well-formed push is answered 200 (the peer's help says how to script 410, 429, 5xx …).
    [ -f "$dir/faults.json" ] || echo '{}' > "$dir/faults.json"
    ;;
  peer)
    dir="$2"; rm -f "$dir/port"
    exec env --default-signal /usr/bin/python3 Tests/Peers/apns_peer.py --cert "$dir/server.crt" --key "$dir/server.key" \
      --port-file "$dir/port" --record "$dir/record.jsonl" --faults "$dir/faults.json" --topics "$topics" "$kid=$dir/AuthKey_$kid.pub"
    ;;
  flags)
    dir="$(cd "$2" && pwd)"; url="https://127.0.0.1:$(cat "$dir/port")"
    # Both environments go to the peer: nothing run on this machine reaches Apple.
    printf '%s\n' --apns-key-file "$dir/AuthKey_$kid.p8" --apns-key-id "$kid" --apns-team-id "$team" \
      --apns-sandbox-url "$url" --apns-production-url "$url" --apns-ca-file "$dir/ca.crt"
    ;;
  show)
    dir="$2"
    /usr/bin/python3 - "$dir/record.jsonl" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    h, p = r.get("headers", {}), r.get("payload") or {}
    aps = p.get("aps", {}) if isinstance(p, dict) else {}
    what = [str(r.get("status")), h.get("apns-push-type", "-"), "token=" + str(r.get("token", ""))[:8] + "…"]
    if r.get("status") != 200:
        what.append("reason=" + str(r.get("reason")))
    what += ["apns-collapse-id=" + h.get("apns-collapse-id", "-"), "apns-expiration=" + h.get("apns-expiration", "-"),
             "apns-priority=" + h.get("apns-priority", "-"), "kid=" + str(r.get("kid"))]
    if "alert" in aps:
        what += ["kind=" + str(p.get("kind")), "alert=" + json.dumps(aps["alert"], ensure_ascii=False)]
    if "content-state" in aps:
        what += ["phase=" + str(aps["content-state"].get("phase")), "event=" + str(aps.get("event")), "timestamp=" + str(aps.get("timestamp"))]
        if "dismissal-date" in aps:
            what.append("dismissal-date=" + str(aps["dismissal-date"]))
    print(" ".join(what))
PY
    ;;
  token)
    dir="$2"
    b64url() { basenc --base64url -w0 | tr -d '='; }
    unhex() { local hex; hex="$(cat)"; printf "$(printf '%s' "$hex" | sed 's/../\\x&/g')"; }
    header="$(printf '{"alg":"ES256","kid":"%s"}' "$kid" | b64url)"
    claims="$(printf '{"iss":"%s","iat":%d}' "$team" "$(date +%s)" | b64url)"
    # openssl signs in DER; JOSE (and APNs) want r‖s, each 32 bytes (as local-issuer.sh does).
    der="$(printf '%s.%s' "$header" "$claims" | openssl dgst -sha256 -sign "$dir/AuthKey_$kid.p8" | od -An -tx1 | tr -d ' \n')"
    raw=""
    for int in $(printf '%s' "$der" | unhex | openssl asn1parse -inform DER | awk -F: '/INTEGER/ {print $NF}'); do
      int="$(printf '%064s' "$int" | tr ' ' 0)"; raw="$raw${int: -64}"
    done
    printf '%s.%s.%s\n' "$header" "$claims" "$(printf '%s' "$raw" | unhex | b64url)"
    ;;
  *) echo "usage: local-apns.sh init DIR | peer DIR | flags DIR | show DIR | token DIR" >&2; exit 2 ;;
esac
