#!/usr/bin/env bash
# A local test CA and a certificate for localhost and 127.0.0.1 signed by it, for Pushpin's HTTPS
# on this machine: never for production (there, put your own certificate in the same place, or
# terminate TLS at your ingress; deploy/README.md, "TLS").
#
#   deploy/local-tls.sh DIR PORT     DIR/ca.crt (give it to curl --cacert), and the certificate
#                                    as DIR/runner/certs/default_PORT.crt and .key (Pushpin's)
# Made once: an existing CA and certificate are kept.
set -euo pipefail
dir="$1"; port="$2"
mkdir -p "$dir/runner/certs"
certs="$dir/runner/certs"
if [ ! -f "$dir/ca.crt" ]; then
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 825 -subj "/CN=Campus Cafe local test CA" \
    -keyout "$dir/ca.key" -out "$dir/ca.crt" 2>/dev/null
fi
if [ ! -f "$certs/default_$port.crt" ]; then
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=localhost" \
    -keyout "$certs/default_$port.key" -out "$dir/server.csr" 2>/dev/null
  printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' > "$dir/server.ext"
  openssl x509 -req -in "$dir/server.csr" -CA "$dir/ca.crt" -CAkey "$dir/ca.key" -CAcreateserial -days 825 \
    -extfile "$dir/server.ext" -out "$certs/default_$port.crt" 2>/dev/null
  rm -f "$dir/server.csr" "$dir/server.ext"
fi
