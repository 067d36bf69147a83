#!/usr/bin/env bash
# A local OpenID Connect test issuer for the edge's sign-in, made with the openssl command line:
# never for production. run-local.sh makes one under DATA/issuer and gives the edge its issuers file.
#
#   deploy/local-issuer.sh init DIR                    a P-256 key, DIR/jwks.json and DIR/issuers.json
#   deploy/local-issuer.sh token DIR SUBJECT NONCE     prints an ID token for SUBJECT, valid one hour
#
# The issuer is https://id.campus.test and the audience cafe.campus.app; sign in with
#   curl -s -X POST http://127.0.0.1:8080/v1/sessions -H 'Content-Type: application/json' \
#     -d "{\"idToken\":\"$(deploy/local-issuer.sh token data/issuer alice n-1)\",\"nonce\":\"n-1\",\"deviceId\":\"phone-1\"}"
set -euo pipefail
issuer=https://id.campus.test
audience=cafe.campus.app
b64url() { basenc --base64url -w0 | tr -d '='; }
# Hex on stdin to bytes (bash's printf, so nothing beyond coreutils is needed).
unhex() { local hex; hex="$(cat)"; printf "$(printf '%s' "$hex" | sed 's/../\\x&/g')"; }
case "${1:-}" in
  init)
    dir="$2"; mkdir -p "$dir"
    [ -f "$dir/key.pem" ] || openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$dir/key.pem" 2>/dev/null
    # The point 04‖x‖y is the last 65 bytes of the SubjectPublicKeyInfo.
    point="$(openssl pkey -in "$dir/key.pem" -pubout -outform DER | tail -c 64 | od -An -tx1 | tr -d ' \n')"
    x="$(printf '%s' "${point:0:64}" | unhex | b64url)"
    y="$(printf '%s' "${point:64:64}" | unhex | b64url)"
    printf '{"keys":[{"kty":"EC","crv":"P-256","kid":"local-1","use":"sig","alg":"ES256","x":"%s","y":"%s"}]}\n' "$x" "$y" > "$dir/jwks.json"
    printf '[{"issuer":"%s","audiences":["%s","%s.Clip"],"jwksFile":"jwks.json","userId":"derived"}]\n' "$issuer" "$audience" "$audience" > "$dir/issuers.json"
    ;;
  token)
    dir="$2"; subject="$3"; nonce="$4"; now="$(date +%s)"
    header="$(printf '{"alg":"ES256","kid":"local-1","typ":"JWT"}' | b64url)"
    claims="$(printf '{"iss":"%s","aud":"%s","sub":"%s","nonce":"%s","iat":%d,"exp":%d}' "$issuer" "$audience" "$subject" "$nonce" "$now" "$((now + 3600))" | b64url)"
    # openssl signs in DER; JOSE wants r‖s, each 32 bytes.
    der="$(printf '%s.%s' "$header" "$claims" | openssl dgst -sha256 -sign "$dir/key.pem" | od -An -tx1 | tr -d ' \n')"
    ints="$(printf '%s' "$der" | unhex | openssl asn1parse -inform DER | awk -F: '/INTEGER/ {print $NF}')"
    raw=""
    for int in $ints; do int="$(printf '%064s' "$int" | tr ' ' 0)"; raw="$raw${int: -64}"; done
    printf '%s.%s.%s\n' "$header" "$claims" "$(printf '%s' "$raw" | unhex | b64url)"
    ;;
  *) echo "usage: local-issuer.sh init DIR | token DIR SUBJECT NONCE" >&2; exit 2 ;;
esac
