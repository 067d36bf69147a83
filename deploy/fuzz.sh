#!/usr/bin/env bash
# Runs every fuzz target (Tests/Fuzz) under libFuzzer with AddressSanitizer.
#
#   deploy/fuzz.sh [seconds]          each target for that long (default 60)
#   deploy/fuzz.sh --runs N           each target for N inputs
#   deploy/fuzz.sh [...] target…      only the targets named
#
# Builds the FuzzTargets library and what it uses with -sanitize=fuzzer,address into .build/fuzz
# (a build of its own: nothing else is instrumented), links libFuzzer's entry
# (Tests/Fuzz/LibFuzzer/LibFuzzerEntry.swift) against it, and runs each target from its seed
# corpus (PROTOCOL.md's examples, the catalogs, option lines) with its dictionary. The corpus
# grows in .build/fuzz/<target>/corpus across runs. A trap, a sanitizer report or a disagreement
# between two decoding routes stops that target and saves the input as
# .build/fuzz/<target>/crash-…; `swift run cafe-fuzz replay <target> <file>`
# reproduces it without libFuzzer. Exits non-zero when any target found something.
set -euo pipefail
cd "$(dirname "$0")/.."

limit=(-max_total_time=60)
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) limit=(-runs="$2"); shift 2 ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    ''|*[!0-9]*) targets+=("$1"); shift ;;
    *) limit=(-max_total_time="$1"); shift ;;
  esac
done
all=(requests sightings batches fixes envelopes compact replies catalog options identity tnetstrings zhttp sessions apns webhook metrics)
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")

deploy/ensure-deps.sh >/dev/null
out=.build/fuzz
echo "== building the fuzz targets with libFuzzer and AddressSanitizer (.build/fuzz)"
mkdir -p "$out"
# One -sanitize flag with both: swiftc keeps only the last -sanitize it is given, so SwiftPM's
# --sanitize fuzzer --sanitize address would build without coverage counters.
if ! swift build -c release --build-path "$out" -Xswiftc -sanitize=fuzzer,address --target FuzzTargets >"$out/build.log" 2>&1; then
  grep -E "error" "$out/build.log" | head -20 || tail -20 "$out/build.log"
  exit 2
fi
release="$out/release"
# Every object of the library and the modules it uses: library modules are capitalised (executables
# and test bundles, should anything have built them here, are not).
mapfile -t objects < <(find "$release/" -regex '.*/[A-Z][A-Za-z]*\.build/[^/]*\.o' -not -regex '.*\(Tests\|TestSupport\)\.build/.*' | sort)
# gold warns once per ASan helper it cannot export: kept in the log, shown only on failure.
if ! swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name CafeLibFuzzer \
  -I "$release/Modules" -I "$release" \
  -Xcc -fmodule-map-file=Shared/CZeroMQ/module.modulemap -Xcc -fmodule-map-file=Shared/CSQLite/module.modulemap \
  -Xcc -fmodule-map-file=Shared/CCrypto/module.modulemap \
  Tests/Fuzz/LibFuzzer/LibFuzzerEntry.swift "${objects[@]}" -lzmq -lsqlite3 -lcrypto -o "$out/cafe-libfuzzer" >"$out/link.log" 2>&1; then
  grep -v "Cannot export local symbol" "$out/link.log" | tail -20
  exit 2
fi

export SWIFT_BACKTRACE=enable=no                       # the Swift backtracer and ASan fight over a crash
export ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1
status=0
summary=()
for target in "${targets[@]}"; do
  dir="$out/$target"
  mkdir -p "$dir/corpus"
  CAFE_FUZZ_TARGET="$target" CAFE_FUZZ_PREPARE="$dir" "$out/cafe-libfuzzer" >/dev/null
  echo "== $target (${limit[*]})"
  log="$dir/last-run.log"
  set +e
  CAFE_FUZZ_TARGET="$target" "$out/cafe-libfuzzer" "${limit[@]}" -max_len=16384 -timeout=10 -rss_limit_mb=4096 \
    -dict="$dir/tokens.dict" -artifact_prefix="$dir/" -print_final_stats=1 "$dir/corpus" >"$log" 2>&1
  code=$?
  set -e
  runs=$(awk '/^stat::number_of_executed_units/ {print $2}' "$log")
  seconds=$(awk '/^Done [0-9]+ runs in/ {print $5}' "$log")
  corpus=$(find "$dir/corpus" -type f | wc -l)
  if grep -q "libFuzzer: run interrupted" "$log"; then
    status=1
    summary+=("$(printf '%-10s interrupted (a signal) after %s runs' "$target" "${runs:-?}")")
  elif [ "$code" -ne 0 ]; then
    status=1
    grep -E "Fatal error|ERROR: AddressSanitizer|ERROR: libFuzzer|SUMMARY|Test unit written" "$log" | head -8 || true
    summary+=("$(printf '%-10s FOUND something after %s runs: see %s' "$target" "${runs:-?}" "$log")")
  else
    summary+=("$(printf '%-10s %10s runs in %5s s, corpus %5s inputs, nothing found' "$target" "${runs:-?}" "${seconds:-?}" "$corpus")")
  fi
done
echo
echo "== fuzz summary"
printf '%s\n' "${summary[@]}"
exit "$status"
