#!/usr/bin/env bash
# Installs the system libraries the package links (libzmq, SQLite, OpenSSL's libcrypto) when
# pkg-config cannot find them.
set -euo pipefail
need=()
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
pkg-config --exists libzmq 2>/dev/null || need+=(libzmq3-dev)
pkg-config --exists sqlite3 2>/dev/null || need+=(libsqlite3-dev)
pkg-config --exists libcrypto 2>/dev/null || need+=(libssl-dev)
if [ ${#need[@]} -gt 0 ]; then
  # pkg-config missing means we cannot tell what is installed: ask for all four.
  [[ " ${need[*]} " == *" pkg-config "* ]] && need=(pkg-config libzmq3-dev libsqlite3-dev libssl-dev)
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "installing ${need[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi
